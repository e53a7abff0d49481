//! A label list's stats from its labels, each label parsed once per plane.
//!
//! A run's label lists are many and mostly new (a step number or a PyTorch `seq` in one of
//! their labels), while their labels recur: every list of a JAX step repeats its `XlaModule:`
//! level and a few `Thunk:` levels. So a plane keeps each label text it has met parsed
//! ([`LabelFields`]) with the ids its stats were interned under, and a new list costs its
//! joined text and a look-up per label, not a parse and an interning of every field.
//!
//! Ids are interned lazily, the first time a label's field or op is written, so the plane
//! interns the same names in the same order as encoding each list afresh
//! ([`crate::xplane::annotation::parse_annotation`] then one `put` per stat): the bytes and
//! the plane's metadata are the same.

use std::sync::Arc;

use crate::fastmap::HashMap;
use crate::model::steps::StepRule;
use crate::xplane::annotation::{merge, LabelFields, ParsedValue};
use crate::xplane::builder::{PlaneBuilder, StatBytes, StatValue};
use crate::xplane::proto::{x_stat, XStat};
use crate::xplane::stats as s;

/// The label texts a plane keeps parsed at most; past it they start over (a run can give
/// every label a text of its own, as PyTorch's `seq` does).
pub(super) const MAX_LEVELS: usize = 1 << 16;

/// The bytes the parsed labels of a plane hold at most (their owned keys, values and names,
/// and a share per field and per label): past it they start over, so a run of huge labels
/// (10 KB each, 64 fields) holds no more than a run of common ones.
pub(super) const MAX_HELD_BYTES: usize = 8 << 20;

/// What a label's parse holds besides its text's bytes: per label, and per field.
const LEVEL_BYTES: usize = std::mem::size_of::<Level>() + 64;
const FIELD_BYTES: usize =
    std::mem::size_of::<(String, ParsedValue)>() + std::mem::size_of::<Option<FieldIds>>();

/// A label's parse and the ids its stats were written under in this plane.
struct Level {
    parsed: LabelFields,
    /// The stat id of the op's name, once written as a `tf_op`.
    op_id: Option<i64>,
    /// Per field, once written: its key's id and how its value is written.
    ids: Vec<Option<FieldIds>>,
}

#[derive(Clone, Copy)]
enum FieldIds {
    /// A key the tool writes itself (`stats::RESERVED_EVENT_STATS`): never a label's stat.
    Reserved,
    /// The key's id and, for a string, the id of the interned value.
    Written { key: i64, value: i64 },
}

/// The labels one plane has parsed.
#[derive(Default)]
pub(super) struct LevelStats {
    /// Each text's place in `levels` (the key shares the label's text).
    places: HashMap<Arc<str>, usize>,
    levels: Vec<Level>,
    /// The list being written: its labels' places (reused).
    list: Vec<usize>,
    /// The list's joined text (reused).
    joined: String,
    /// What `levels` holds, about ([`MAX_HELD_BYTES`]).
    held: usize,
}

impl LevelStats {
    /// The place of `label`, parsed on its first meeting.
    fn place(&mut self, label: &Arc<str>, step_rule: Option<&StepRule>) -> usize {
        if let Some(&at) = self.places.get(&**label) {
            return at;
        }
        let parsed = LabelFields::parse(label, step_rule);
        // Keys, values and the name are pieces of the text: at most its length.
        self.held += LEVEL_BYTES + label.len() + parsed.fields.len() * FIELD_BYTES;
        self.levels.push(Level {
            ids: vec![None; parsed.fields.len()],
            parsed,
            op_id: None,
        });
        self.places.insert(label.clone(), self.levels.len() - 1);
        self.levels.len() - 1
    }

    /// Writes the stats of the roctx labels open at a call (outermost first) to `stats`:
    /// `nvtx_range`, the whole stack; `tf_op` and the fields of TraceMe and PyTorch levels
    /// (`xplane::annotation`). Plain labels are NVTX-like and give `nvtx_range` only, as CUPTI
    /// writes for NVTX: a `tf_op` from "decode step 17" would split xprof's kernel_stats rows
    /// per label (rows are keyed by op name and capped at 1000), hiding kernels.
    pub(super) fn write(
        &mut self,
        plane: &mut PlaneBuilder,
        labels: &[Arc<str>],
        step_rule: Option<&StepRule>,
        stats: &mut StatBytes,
    ) {
        if labels.is_empty() {
            return;
        }
        if self.levels.len() + labels.len() > MAX_LEVELS || self.held > MAX_HELD_BYTES {
            self.places.clear();
            self.levels.clear();
            self.held = 0;
        }
        self.joined.clear();
        self.list.clear();
        for (i, label) in labels.iter().enumerate() {
            if i > 0 {
                self.joined.push_str("::");
            }
            self.joined.push_str(label);
            let at = self.place(label, step_rule);
            self.list.push(at);
        }
        plane.put(stats, s::NVTX_RANGE, StatValue::Ref(&self.joined));
        let levels: Vec<&LabelFields> = self.list.iter().map(|&l| &self.levels[l].parsed).collect();
        let merged = merge(&levels);
        if merged.fields.is_empty() {
            return;
        }
        if let Some(op) = merged.op {
            let level = &mut self.levels[self.list[op]];
            let tf_op = plane.stat_metadata_id(s::TF_OP);
            let name = level.parsed.op.as_deref().unwrap_or_default();
            let id = *level
                .op_id
                .get_or_insert_with(|| plane.stat_metadata_id(name));
            stats.reference(tf_op, id);
        }
        for &(l, f) in &merged.fields {
            let level = &mut self.levels[self.list[l]];
            let (key, value) = &level.parsed.fields[f];
            let ids = *level.ids[f].get_or_insert_with(|| field_ids(plane, key, value));
            let FieldIds::Written {
                key,
                value: value_id,
            } = ids
            else {
                continue;
            };
            match value {
                ParsedValue::I64(v) => stats.i64(key, *v),
                ParsedValue::U64(v) => stats.u64(key, *v),
                ParsedValue::F64(v) => stats.push(&XStat {
                    metadata_id: key,
                    value: Some(x_stat::Value::DoubleValue(*v)),
                }),
                ParsedValue::Str(_) => stats.reference(key, value_id),
            }
        }
    }
}

/// Interns a field's key and, for a string, its value, in the order `PlaneBuilder::put` does.
fn field_ids(plane: &mut PlaneBuilder, key: &str, value: &ParsedValue) -> FieldIds {
    if s::RESERVED_EVENT_STATS.contains(&key) {
        return FieldIds::Reserved;
    }
    let key = plane.stat_metadata_id(key);
    let value = match value {
        ParsedValue::Str(v) => plane.stat_metadata_id(v),
        _ => 0,
    };
    FieldIds::Written { key, value }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xplane::annotation::MAX_KEYS;
    use crate::xplane::level::PARSES;
    use crate::xplane::space::testing::add_label_stats;

    fn fresh(plane: &mut PlaneBuilder, labels: &[Arc<str>], rule: Option<&StepRule>) -> StatBytes {
        let mut stats = StatBytes::new();
        add_label_stats(plane, labels, rule, &mut stats);
        stats
    }

    /// A JAX-like and a PyTorch-like run: labels recurring across lists (with their own
    /// `Arc`s, as labels recorded on another thread or read from a file have), a step level,
    /// a step by the user's rule, a level whose key repeats inner and outer, duplicated keys,
    /// a reserved key, a double, plain and hostile labels.
    fn lists() -> Vec<Vec<Arc<str>>> {
        let mut out = Vec::new();
        for step in 0..40 {
            for thunk in ["copy.1", "fusion.3", "fusion.3", "copy.5"] {
                out.push(vec![
                    Arc::from(format!("train#step_num={step},_r=1#")),
                    Arc::from("XlaModule:#hlo_module=jit_step,program_id=7,k=outer#"),
                    Arc::from(format!("Thunk:#hlo_op={thunk},k=inner,k=again,x=1.5#")),
                ]);
            }
            out.push(vec![
                Arc::from(format!("ProfilerStep#{step}")),
                Arc::from(format!(
                    "aten::linear, seq = {step}, op_id = 2, sizes = [[256, 4096], [4096]]"
                )),
            ]);
            out.push(vec![
                Arc::from(format!("decode {step}#n={step}#")),
                Arc::from("plain label"),
                Arc::from("op#correlation_id=9,tf_op=mine,big=18446744073709551615,n=-1#"),
            ]);
            out.push(vec![Arc::from("plain label"), Arc::from("ステップ 😀")]);
            out.push(vec![Arc::from("don't"), Arc::from("Thunk:#hlo_op=[1,#")]);
        }
        out
    }

    /// Parsed once per plane and interned lazily, every list's stats are the bytes encoding it
    /// afresh gives, and the plane ends with the same names under the same ids.
    #[test]
    fn lists_from_parsed_labels_are_the_fresh_encoding() {
        let rule = StepRule::parse("decode *").unwrap();
        for rule in [None, Some(&rule)] {
            let mut cached = PlaneBuilder::new(0, "p");
            let mut afresh = PlaneBuilder::new(0, "p");
            let mut levels = LevelStats::default();
            for (i, list) in lists().iter().enumerate() {
                let mut got = StatBytes::new();
                levels.write(&mut cached, list, rule, &mut got);
                let want = fresh(&mut afresh, list, rule);
                assert_eq!(got, want, "list {i}: {list:?}");
            }
            let names = |p: PlaneBuilder| {
                let mut n: Vec<(i64, String)> = p
                    .finish()
                    .into_xplane()
                    .stat_metadata
                    .into_values()
                    .map(|m| (m.id, m.name))
                    .collect();
                n.sort();
                n
            };
            assert_eq!(names(cached), names(afresh));
        }
    }

    /// A label met in many lists is parsed once for the plane, whatever `Arc` holds its text.
    #[test]
    fn a_label_is_parsed_once_per_plane() {
        let lists = lists();
        let distinct: std::collections::HashSet<&str> =
            lists.iter().flatten().map(|l| l.as_ref()).collect();
        let mut plane = PlaneBuilder::new(0, "p");
        let mut levels = LevelStats::default();
        let before = PARSES.with(|n| n.get());
        for list in &lists {
            levels.write(&mut plane, list, None, &mut StatBytes::new());
        }
        let parses = PARSES.with(|n| n.get()) - before;
        assert_eq!(parses, distinct.len());
        assert!(parses * 2 < lists.iter().map(Vec::len).sum::<usize>());
    }

    /// Past their bound the parsed labels start over, and the lists still encode as afresh.
    #[test]
    fn parsed_labels_start_over_past_their_bound() {
        let mut cached = PlaneBuilder::new(0, "p");
        let mut afresh = PlaneBuilder::new(0, "p");
        let mut levels = LevelStats::default();
        for i in 0..MAX_LEVELS + 10 {
            let list: Vec<Arc<str>> = vec![
                Arc::from("XlaModule:#hlo_module=m#"),
                Arc::from(format!("op#n={i}#")),
            ];
            let mut got = StatBytes::new();
            levels.write(&mut cached, &list, None, &mut got);
            assert_eq!(got, fresh(&mut afresh, &list, None), "list {i}");
            assert!(levels.levels.len() <= MAX_LEVELS);
        }
    }

    /// Huge labels (10 KB, more keys than a stack takes) start over by the bytes they hold,
    /// long before their count would, and still encode as afresh.
    #[test]
    fn huge_labels_start_over_by_their_bytes() {
        let many_keys: String = (0..200)
            .map(|k| format!("key{k}={}", "v".repeat(40)))
            .collect::<Vec<_>>()
            .join(",");
        let mut cached = PlaneBuilder::new(0, "p");
        let mut afresh = PlaneBuilder::new(0, "p");
        let mut levels = LevelStats::default();
        let mut started_over = false;
        for i in 0..3_000 {
            let list: Vec<Arc<str>> = vec![Arc::from(format!("op{i}#{many_keys}#"))];
            let before = levels.levels.len();
            let mut got = StatBytes::new();
            levels.write(&mut cached, &list, None, &mut got);
            started_over |= levels.levels.len() <= before;
            assert_eq!(got, fresh(&mut afresh, &list, None), "list {i}");
            // The bound is checked before a list's labels are parsed: one label over at most.
            let one_label = LEVEL_BYTES + list[0].len() + MAX_KEYS * FIELD_BYTES;
            assert!(levels.held <= MAX_HELD_BYTES + one_label, "list {i}");
        }
        assert!(started_over, "held {} bytes", levels.held);
    }
}
