//! roctx annotation text → the stats xprof derives its lines from.
//!
//! Each roctx push is one level of the stack (`xplane::level`: TraceMe, PyTorch `emit_nvtx` or
//! plain). Only TraceMe and PyTorch levels give stats: `tf_op` is the name of the outermost such
//! level that is not a step (XLA takes the outermost level; plain labels are user text, not
//! framework ops, and as `tf_op` they would split xprof's kernel_stats rows per label; a step
//! range, `xplane::steps::step_of`, is the loop around the ops, which XLA records as a TraceMe
//! on the host, never as the op of device work), and every `k=v` / field of
//! every such level, innermost first, first occurrence of a key wins, typed like XLA's
//! `ParseAndAddStatValue` (int64, else uint64, else double, else string).

use std::sync::Arc;

pub use super::level::ParsedValue;
use super::level::{parse_level, LevelForm};
use super::steps::step_of_level;
use crate::model::steps::StepRule;

/// At most this many keys per annotation become stats (a hostile 10 KB label of `k=v` pairs
/// would otherwise add hundreds of stat names to the plane).
pub const MAX_KEYS: usize = 64;

/// What an annotation stack turns into on an event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedAnnotation {
    /// The whole stack joined by `::` (stat `nvtx_range`).
    pub joined: String,
    /// Name of the outermost TraceMe or PyTorch level that is not a step (stat `tf_op`); empty
    /// when none.
    pub tf_op: String,
    /// Every field of those levels, innermost level first, first occurrence of a key wins.
    pub metadata: Vec<(String, ParsedValue)>,
}

/// One label as a stack's stats read it, parsed once and owned: what the writer keeps per
/// label text, since a label recurs in many stacks (`XlaModule:`, `Thunk:` levels).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LabelFields {
    /// The level's name when it can be the stack's `tf_op`: a TraceMe or PyTorch level that is
    /// not a step.
    pub op: Option<String>,
    /// Its fields in the level's order, the first occurrence of each key, at most [`MAX_KEYS`]
    /// (a stack takes no more, and a later duplicate in a level never wins).
    pub fields: Vec<(String, ParsedValue)>,
}

impl LabelFields {
    pub fn parse(label: &str, step_rule: Option<&StepRule>) -> Self {
        let level = parse_level(label);
        let op = (level.form != LevelForm::Plain
            && step_of_level(label, &level, step_rule).is_none())
        .then(|| level.name.to_owned());
        let mut fields: Vec<(String, ParsedValue)> = Vec::new();
        for (k, v) in &level.fields {
            if fields.len() == MAX_KEYS {
                break;
            }
            if !fields.iter().any(|(seen, _)| seen == k) {
                fields.push(((*k).to_owned(), ParsedValue::parse(v)));
            }
        }
        LabelFields { op, fields }
    }
}

/// Where a stack's stats come from, by place in its levels (outermost first).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged {
    /// The level whose name is `tf_op`: the outermost with an op.
    pub op: Option<usize>,
    /// `(level, field)` of every key's innermost occurrence, innermost level first, at most
    /// [`MAX_KEYS`].
    pub fields: Vec<(usize, usize)>,
}

/// Merges a stack's levels (outermost first): `tf_op` from the outermost level with an op,
/// fields innermost level first, the first occurrence of a key wins.
pub fn merge(levels: &[&LabelFields]) -> Merged {
    let op = levels.iter().position(|l| l.op.is_some());
    let mut fields: Vec<(usize, usize)> = Vec::new();
    'levels: for (at, level) in levels.iter().enumerate().rev() {
        for (f, (k, _)) in level.fields.iter().enumerate() {
            if fields.len() == MAX_KEYS {
                break 'levels;
            }
            if !fields.iter().any(|&(l, g)| levels[l].fields[g].0 == *k) {
                fields.push((at, f));
            }
        }
    }
    Merged { op, fields }
}

/// Parses the labels open at a call (outermost first); a function of the labels and the run's
/// step rule alone, so the writer can cache it per shared label list.
pub fn parse_annotation(labels: &[Arc<str>], step_rule: Option<&StepRule>) -> ParsedAnnotation {
    let joined = labels
        .iter()
        .map(|s| s.as_ref())
        .collect::<Vec<_>>()
        .join("::");
    let levels: Vec<LabelFields> = labels
        .iter()
        .map(|l| LabelFields::parse(l, step_rule))
        .collect();
    let merged = merge(&levels.iter().collect::<Vec<_>>());
    let tf_op = merged
        .op
        .and_then(|l| levels[l].op.clone())
        .unwrap_or_default();
    let metadata = merged
        .fields
        .iter()
        .map(|&(l, f)| levels[l].fields[f].clone())
        .collect();
    ParsedAnnotation {
        joined,
        tf_op,
        metadata,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(levels: &[&str]) -> Vec<Arc<str>> {
        levels.iter().map(|s| Arc::from(*s)).collect()
    }

    fn keys(p: &ParsedAnnotation) -> Vec<&str> {
        p.metadata.iter().map(|(k, _)| k.as_str()).collect()
    }

    fn get<'p>(p: &'p ParsedAnnotation, k: &str) -> Option<&'p ParsedValue> {
        p.metadata.iter().find(|(n, _)| n == k).map(|(_, v)| v)
    }

    /// Each label is parsed once, the step test of the `tf_op` candidate included.
    #[test]
    fn each_level_is_parsed_once() {
        let labels = ann(&[
            "plain",
            "XlaModule:#hlo_module=jit_f,program_id=7#",
            "Thunk:#hlo_op=fusion.1#",
        ]);
        let before = crate::xplane::level::PARSES.with(|n| n.get());
        let p = parse_annotation(&labels, None);
        let parses = crate::xplane::level::PARSES.with(|n| n.get()) - before;
        assert_eq!(p.tf_op, "XlaModule:");
        assert_eq!(parses, labels.len());
    }

    #[test]
    fn xla_levels_give_typed_values() {
        let p = parse_annotation(
            &ann(&[
                "XlaModule:#hlo_module=jit_f,program_id=7#",
                "Thunk:#hlo_op=fusion.1,name=\"a,b\",x=1.5,big=18446744073709551615,neg=-3#",
            ]),
            None,
        );
        assert_eq!(p.tf_op, "XlaModule:");
        assert_eq!(
            p.joined,
            "XlaModule:#hlo_module=jit_f,program_id=7#::Thunk:#hlo_op=fusion.1,name=\"a,b\",x=1.5,big=18446744073709551615,neg=-3#"
        );
        assert_eq!(
            p.metadata,
            vec![
                ("hlo_op".into(), ParsedValue::Str("fusion.1".into())),
                ("name".into(), ParsedValue::Str("\"a,b\"".into())),
                ("x".into(), ParsedValue::F64(1.5)),
                ("big".into(), ParsedValue::U64(u64::MAX)),
                ("neg".into(), ParsedValue::I64(-3)),
                ("hlo_module".into(), ParsedValue::Str("jit_f".into())),
                ("program_id".into(), ParsedValue::I64(7)),
            ]
        );
    }

    #[test]
    fn brackets_and_quotes_keep_their_commas_and_numbers_vs_strings() {
        let p = parse_annotation(&ann(&[
            "op#shape=[1,2,3],attrs={a:1,b:2},call=f(x, y),q='p,q',v=1e3,w=0x10,inf=inf,s= 12 #",
        ]), None);
        assert_eq!(get(&p, "shape"), Some(&ParsedValue::Str("[1,2,3]".into())));
        assert_eq!(
            get(&p, "attrs"),
            Some(&ParsedValue::Str("{a:1,b:2}".into()))
        );
        assert_eq!(get(&p, "call"), Some(&ParsedValue::Str("f(x, y)".into())));
        assert_eq!(get(&p, "q"), Some(&ParsedValue::Str("'p,q'".into())));
        assert_eq!(get(&p, "v"), Some(&ParsedValue::F64(1000.0)));
        assert_eq!(get(&p, "w"), Some(&ParsedValue::Str("0x10".into())));
        assert_eq!(get(&p, "inf"), Some(&ParsedValue::Str("inf".into())));
        assert_eq!(get(&p, "s"), Some(&ParsedValue::I64(12)), "trimmed");
    }

    #[test]
    fn inner_key_wins_and_plain_labels_give_nothing() {
        let p = parse_annotation(&ann(&["train_step", "outer#k=1#", "inner#k=2#"]), None);
        assert_eq!(p.tf_op, "outer");
        assert_eq!(p.metadata, vec![("k".into(), ParsedValue::I64(2))]);
        let plain = parse_annotation(&ann(&["step 3", "forward", "C#", "#", "a#b#"]), None);
        assert_eq!((plain.tf_op.as_str(), plain.metadata.len()), ("", 0));
        assert_eq!(
            parse_annotation(&ann(&[]), None),
            ParsedAnnotation::default()
        );
        assert_eq!(parse_annotation(&ann(&[""]), None).joined, "");
    }

    /// An apostrophe in an outer plain label opens no "quote": the `::` to the XLA level is
    /// not swallowed into it (which would give `tf_op = "don't::XlaModule:"`).
    #[test]
    fn an_apostrophe_outside_does_not_swallow_the_xla_level() {
        let p = parse_annotation(
            &ann(&[
                "don't",
                "XlaModule:#hlo_module=jit_f,program_id=7#",
                "Thunk:#hlo_op=fusion.1#",
            ]),
            None,
        );
        assert_eq!(p.tf_op, "XlaModule:");
        assert_eq!(keys(&p), ["hlo_op", "hlo_module", "program_id"]);
        assert_eq!(get(&p, "program_id"), Some(&ParsedValue::I64(7)));
        assert_eq!(
            p.joined,
            "don't::XlaModule:#hlo_module=jit_f,program_id=7#::Thunk:#hlo_op=fusion.1#"
        );
    }

    #[test]
    fn unbalanced_text_inside_a_level_loses_nothing_after_it() {
        for outer in ["[warmup", "say \"hi", "(", "}{", "'"] {
            let p = parse_annotation(&ann(&[outer, "Thunk:#hlo_op=fusion.2#"]), None);
            assert_eq!(p.tf_op, "Thunk:", "{outer}");
            assert_eq!(
                get(&p, "hlo_op"),
                Some(&ParsedValue::Str("fusion.2".into()))
            );
        }
        // Inside one level: an apostrophe in a value keeps the following keys.
        let p = parse_annotation(
            &ann(&["Thunk:#name=don't stop,hlo_op=fusion.3,n=[1#"]),
            None,
        );
        assert_eq!(
            get(&p, "name"),
            Some(&ParsedValue::Str("don't stop".into()))
        );
        assert_eq!(
            get(&p, "hlo_op"),
            Some(&ParsedValue::Str("fusion.3".into()))
        );
        assert_eq!(get(&p, "n"), Some(&ParsedValue::Str("[1".into())));
    }

    #[test]
    fn non_ascii_is_kept_intact() {
        let p = parse_annotation(
            &ann(&[
                "шаг – 3",
                "模块#hlo_module=前向–模块,program_id=٣#",
                "Thunk:#hlo_op=融合.1,note=ünïcödé 🚀#",
            ]),
            None,
        );
        assert_eq!(p.tf_op, "模块");
        assert_eq!(
            get(&p, "hlo_module"),
            Some(&ParsedValue::Str("前向–模块".into()))
        );
        assert_eq!(get(&p, "program_id"), Some(&ParsedValue::Str("٣".into())));
        assert_eq!(get(&p, "hlo_op"), Some(&ParsedValue::Str("融合.1".into())));
        assert_eq!(
            get(&p, "note"),
            Some(&ParsedValue::Str("ünïcödé 🚀".into()))
        );
        assert!(p.joined.starts_with("шаг – 3::模块#"));
    }

    #[test]
    fn huge_and_lossy_texts_never_panic_and_stay_bounded() {
        let big_plain = "x–".repeat(4000); // ~16 KB of multi-byte text
        let many_keys: String = (0..2000).map(|i| format!("k{i}={i},")).collect();
        let big_xla = format!("Thunk:#{many_keys}hlo_op=last#");
        let lossy = String::from_utf8_lossy(b"bad \xff\xfe utf8#hlo_op=\xc3#").into_owned();
        let p = parse_annotation(&ann(&[&big_plain, &big_xla, &lossy]), None);
        assert_eq!(p.metadata.len(), MAX_KEYS);
        assert_eq!(
            get(&p, "hlo_op"),
            Some(&ParsedValue::Str("\u{fffd}".into()))
        );
        assert_eq!(p.tf_op, "Thunk:");
        assert!(p.joined.len() > 16_000);
        // Every prefix of a multi-byte text, cut anywhere a `&str` can be cut.
        let text = "模块#hlo_module=前向–模块,k=[é,\"ü#";
        for (i, _) in text.char_indices() {
            let _ = parse_annotation(&ann(&[&text[..i], &text[i..]]), None);
        }
    }

    #[test]
    fn pytorch_emit_nvtx_texts() {
        let p = parse_annotation(&ann(&[
            "train step 3",
            "aten::linear, seq = 41, op_id = 7, sizes = [[8, 16], [32, 16], [32]], input_op_ids = [(5,0), (6,0)]",
            "aten::addmm, seq = 42, op_id = 9, sizes = [[32], [8, 16], [16, 32]]",
        ]), None);
        assert_eq!(p.tf_op, "aten::linear");
        assert_eq!(
            p.metadata,
            vec![
                ("seq".into(), ParsedValue::I64(42)),
                ("op_id".into(), ParsedValue::I64(9)),
                (
                    "sizes".into(),
                    ParsedValue::Str("[[32], [8, 16], [16, 32]]".into())
                ),
                (
                    "input_op_ids".into(),
                    ParsedValue::Str("[(5,0), (6,0)]".into())
                ),
            ]
        );
        let l = parse_level("aten::mm, seq = 3");
        assert_eq!((l.form, l.name), (LevelForm::PyTorch, "aten::mm"));
        let l = parse_level("aten::empty, sizes = [[2, 2]]");
        assert_eq!((l.form, l.name), (LevelForm::PyTorch, "aten::empty"));
        // An op without sequence number or shapes is just its name: a plain label.
        assert_eq!(parse_level("aten::add").form, LevelForm::Plain);
        assert_eq!(parse_level(", seq = 3").form, LevelForm::Plain);
    }

    /// A step range (TraceMe `_r`/`step_num`, `ProfilerStep#<n>`, the user's rule) is the loop
    /// around the ops, not their op: `tf_op` is the next level in, or none; its fields stay.
    #[test]
    fn a_step_level_is_never_the_op() {
        let jax = parse_annotation(
            &ann(&[
                "train#step_num=3,_r=1#",
                "XlaModule:#hlo_module=jit_f,program_id=7#",
                "Thunk:#hlo_op=fusion.1#",
            ]),
            None,
        );
        assert_eq!(jax.tf_op, "XlaModule:");
        assert_eq!(get(&jax, "step_num"), Some(&ParsedValue::I64(3)));
        let alone = parse_annotation(&ann(&["train#step_num=3,_r=1#", "forward"]), None);
        assert_eq!(alone.tf_op, "");
        assert_eq!(get(&alone, "step_num"), Some(&ParsedValue::I64(3)));
        let torch = parse_annotation(
            &ann(&["ProfilerStep#4, seq = 1", "aten::mm, seq = 2"]),
            None,
        );
        assert_eq!(torch.tf_op, "aten::mm");
        // `_r=0` says "not a root": an op like any other.
        let not_root = parse_annotation(&ann(&["train#_r=0#", "Thunk:#hlo_op=f#"]), None);
        assert_eq!(not_root.tf_op, "train");
        let rule = StepRule::parse("iter*").unwrap();
        let ruled = parse_annotation(&ann(&["iter#n=5#", "Thunk:#hlo_op=f#"]), Some(&rule));
        assert_eq!(ruled.tf_op, "Thunk:");
        let unruled = parse_annotation(&ann(&["iter#n=5#", "Thunk:#hlo_op=f#"]), None);
        assert_eq!(unruled.tf_op, "iter");
    }
}
