//! One roctx annotation level: its shape (TraceMe, PyTorch `emit_nvtx`, plain), its name and its
//! fields. The annotation parser (`annotation`), the step rule (`steps`) and the placeholder HLO
//! modules (`hlo`) all read levels through [`parse_level`].
//!
//! Levels are never re-split on `::` (PyTorch op names such as `aten::mm` contain it, and a quote
//! in one label must not reach into the next). A level is one of three shapes:
//!
//! * **TraceMe-encoded** `name#k=v,k=v#` (XLA's `XlaModule:#hlo_module=…,program_id=…#`,
//!   `Thunk:#hlo_op=…#`): split as XLA's `ParseAnnotation` does — the text must end in `#`, the
//!   name is what precedes the first `#`, pairs are separated by commas outside quotes and
//!   brackets, `key=value` split at the first `=`, both trimmed and non-empty;
//! * **PyTorch `emit_nvtx`**: `<op name>, seq = <n>[, op_id = <n>][, sizes = [[…], …]]
//!   [, input_op_ids = [(id,nr), …]]` (PyTorch's `getNvtxStr`); the op name is kept whole;
//! * **plain**: anything else (`train step 3`, `don't`, an empty label).
//!
//! All slicing is at ASCII delimiters, so no text — non-ASCII, unbalanced, empty or huge — can
//! split a character or panic.

/// The fields that open a PyTorch `emit_nvtx` range text after the op name, each as it follows
/// the name: `, <field> = ` (`seq`, `op_id`, `sizes`, `input_op_ids`).
const PYTORCH_FIELDS: [&str; 4] = [", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "];

/// Whether `b` opens a nested part of a pair list ([`split_nested`]): a quote or a bracket.
fn opens_nesting(b: u8) -> bool {
    matches!(b, b'"' | b'\'' | b'{' | b'(' | b'[')
}

/// A value from a `k=v`, typed the way XLA's `ParseAndAddStatValue` types it.
#[derive(Debug, Clone, PartialEq)]
pub enum ParsedValue {
    I64(i64),
    U64(u64),
    F64(f64),
    Str(String),
}

impl ParsedValue {
    pub fn parse(s: &str) -> Self {
        if let Ok(v) = s.parse::<i64>() {
            ParsedValue::I64(v)
        } else if let Ok(v) = s.parse::<u64>() {
            ParsedValue::U64(v)
        } else if let Some(v) = s.parse::<f64>().ok().filter(|v| v.is_finite()) {
            ParsedValue::F64(v)
        } else {
            ParsedValue::Str(s.to_owned())
        }
    }
}

/// The shape of one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelForm {
    Plain,
    TraceMe,
    PyTorch,
}

/// One parsed level: its name and its `key`/`value` fields (empty for plain labels).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level<'a> {
    pub form: LevelForm,
    pub name: &'a str,
    pub fields: Vec<(&'a str, &'a str)>,
}

pub fn parse_level(label: &str) -> Level<'_> {
    #[cfg(test)]
    PARSES.with(|n| n.set(n.get() + 1));
    traceme_level(label)
        .or_else(|| pytorch_level(label))
        .unwrap_or(Level {
            form: LevelForm::Plain,
            name: label,
            fields: Vec::new(),
        })
}

#[cfg(test)]
thread_local! {
    /// Levels parsed on this thread: what the tests count parses by.
    pub(crate) static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn traceme_level(label: &str) -> Option<Level<'_>> {
    let body = label.strip_suffix('#')?;
    let mut parts = body.split('#');
    let name = parts.next().unwrap_or("").trim();
    let fields = key_values(parts.next()?, '=');
    (!fields.is_empty()).then_some(Level {
        form: LevelForm::TraceMe,
        name,
        fields,
    })
}

fn pytorch_level(label: &str) -> Option<Level<'_>> {
    let cut = pytorch_fields_start(label)?;
    let name = label[..cut].trim();
    if name.is_empty() {
        return None;
    }
    let fields = key_values(&label[cut + 1..], '=');
    if fields.is_empty() {
        return None;
    }
    Some(Level {
        form: LevelForm::PyTorch,
        name,
        fields,
    })
}

/// Where the first of [`PYTORCH_FIELDS`] starts in `label`: every marker opens with a comma,
/// so one pass over the commas finds the earliest (no search per marker).
fn pytorch_fields_start(label: &str) -> Option<usize> {
    let bytes = label.as_bytes();
    (0..bytes.len()).find(|&i| {
        bytes[i] == b','
            && PYTORCH_FIELDS
                .iter()
                .any(|f| bytes[i..].starts_with(f.as_bytes()))
    })
}

/// `k<sep>v` pairs of a comma-separated list (commas inside quotes or brackets kept), trimmed,
/// empty keys or values dropped, as XLA's `ParseMetadata`.
fn key_values(list: &str, sep: char) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    if list.bytes().any(opens_nesting) {
        for (quotes, brackets) in SPLITS {
            pairs.clear();
            let mut pair = |piece| pairs.extend(key_value(piece, sep));
            if split_nested(list, quotes, brackets, &mut pair) {
                return pairs;
            }
        }
        unreachable!("splitting with nothing nested always balances")
    } else {
        // Nothing nested (most labels): every comma splits, as `split_nested` would split it.
        pairs.extend(
            list.split(',')
                .filter(|p| kept(p))
                .filter_map(|p| key_value(p, sep)),
        );
        pairs
    }
}

/// `k<sep>v`, trimmed, when neither is empty.
fn key_value(kv: &str, sep: char) -> Option<(&str, &str)> {
    let (k, v) = kv.split_once(sep)?;
    let (k, v) = (k.trim(), v.trim());
    (!k.is_empty() && !v.is_empty()).then_some((k, v))
}

/// How a pair list is split, in turn, until the split balances: like XLA's `SplitPairs`,
/// commas outside `"…"`, `'…'`, `(…)`, `[…]`, `{…}`. Unlike XLA, a quote or bracket still open
/// at the end (an apostrophe as in `don't`) does not swallow the rest: the list is split again
/// ignoring quotes, then ignoring brackets too (which always balances).
const SPLITS: [(bool, bool); 3] = [(true, true), (false, true), (false, false)];

/// Gives `piece` every piece of `list` between commas outside quotes (when `quotes`) and
/// brackets (when `brackets`), pieces of one byte or less dropped as XLA's; false when a quote
/// or bracket is still open at the end (the pieces given are then not the list's).
fn split_nested<'a>(
    list: &'a str,
    quotes: bool,
    brackets: bool,
    piece: &mut impl FnMut(&'a str),
) -> bool {
    // Inline up to a nesting depth of 16: no allocation for any label a framework writes.
    let mut open: smallvec::SmallVec<[u8; 16]> = smallvec::SmallVec::new();
    let mut start = 0;
    let mut keep = |p: &'a str| {
        if kept(p) {
            piece(p);
        }
    };
    // Bytes, not chars: every delimiter is ASCII, and no byte of a multi-byte character is,
    // so `i` at a comma is a character boundary and the slices below are safe.
    for (i, &b) in list.as_bytes().iter().enumerate() {
        match b {
            b'"' | b'\'' if quotes => {
                if open.last() == Some(&b) {
                    open.pop();
                } else {
                    open.push(b);
                }
            }
            b'{' | b'(' | b'[' if brackets => open.push(b),
            b'}' | b')' | b']' if brackets => {
                let opener = match b {
                    b'}' => b'{',
                    b')' => b'(',
                    _ => b'[',
                };
                if open.last() == Some(&opener) {
                    open.pop();
                }
            }
            b',' if open.is_empty() => {
                keep(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    keep(&list[start..]);
    open.is_empty()
}

/// Whether a piece between commas is kept: pieces of one byte or less are dropped, as XLA's.
fn kept(piece: &str) -> bool {
    piece.len() > 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces of the first split of `list` that balances.
    fn split_pairs(list: &str) -> Vec<&str> {
        for (quotes, brackets) in SPLITS {
            let mut pieces = Vec::new();
            if split_nested(list, quotes, brackets, &mut |p| pieces.push(p)) {
                return pieces;
            }
        }
        unreachable!()
    }

    /// `key_values` splits a list with nothing nested at every comma itself: `split_pairs`
    /// gives those pieces too, tricky commas and short pieces included, and the pairs are the
    /// same.
    #[test]
    fn a_list_with_nothing_nested_splits_at_every_comma() {
        for list in [
            "a=1,b=2",
            ",a=1,,b=2,",
            "x, =1, k= v ,z=",
            "a,b,cc,,d",
            "",
            ",",
            "hlo_op=fusion.3,program_id=7",
            "k=v}],)",
            "ü=1,é,,ß=ẞ",
        ] {
            assert!(!list.bytes().any(opens_nesting), "{list}");
            let every_comma: Vec<&str> = list.split(',').filter(|p| kept(p)).collect();
            assert_eq!(split_pairs(list), every_comma, "{list}");
            let nested: Vec<_> = split_pairs(list)
                .into_iter()
                .filter_map(|kv| key_value(kv, '='))
                .collect();
            assert_eq!(key_values(list, '='), nested, "{list}");
        }
    }

    /// The PyTorch form is found by its field markers, each `, <field> = `.
    #[test]
    fn pytorch_labels_split_at_their_first_field() {
        let l = parse_level("aten::linear, op_id = 2, seq = 17, sizes = [[256, 4096], [4096]]");
        assert_eq!(l.form, LevelForm::PyTorch);
        assert_eq!(l.name, "aten::linear");
        assert_eq!(
            l.fields,
            [
                ("op_id", "2"),
                ("seq", "17"),
                ("sizes", "[[256, 4096], [4096]]")
            ]
        );
        assert_eq!(parse_level("a = b, seqq = 1").form, LevelForm::Plain);
    }

    /// One pass over the commas finds where the first field marker starts, as a search for
    /// each marker would: markers out of order, repeated, after other commas, after
    /// multi-byte text, a marker's prefix alone, none.
    #[test]
    fn the_first_field_marker_is_found_in_one_pass() {
        for label in [
            "aten::linear, op_id = 2, seq = 17",
            "a, b, c, sizes = [[1, 2]], seq = 3",
            "ü, ß, input_op_ids = [(1,0)], seq = 1",
            "x,, seq = 1",
            "x, seqq = 1, seq",
            ", seq = ",
            "no markers, at all = here",
            "",
            ",",
        ] {
            let searched = PYTORCH_FIELDS.iter().filter_map(|f| label.find(f)).min();
            assert_eq!(pytorch_fields_start(label), searched, "{label:?}");
        }
    }
}
