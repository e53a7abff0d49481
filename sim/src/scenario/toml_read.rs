//! Typed, position-aware access to a parsed TOML document (toml_edit keeps byte spans), so every
//! error can name its line and field path. Unknown keys are errors: a typo in a hand-written
//! scenario must not silently fall back to a default.

use std::ops::Range;

use toml_edit::{Item, TableLike, Value};

use super::error::ScenarioError;

pub(crate) struct Source<'t> {
    line_starts: Vec<usize>,
    _text: &'t str,
}

impl<'t> Source<'t> {
    pub fn new(text: &'t str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            line_starts,
            _text: text,
        }
    }

    /// 1-based (line, column) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        (line, offset - self.line_starts[line - 1] + 1)
    }
}

/// Any TOML node: a table-level item or a value inside an array / inline table.
#[derive(Clone, Copy)]
pub(crate) enum Node<'a> {
    Item(&'a Item),
    Value(&'a Value),
    /// An element of an array of tables (`[[x]]`), which toml_edit exposes as a bare table.
    Table(&'a toml_edit::Table),
}

impl<'a> Node<'a> {
    fn span(&self) -> Option<Range<usize>> {
        match self {
            Node::Item(i) => i.span(),
            Node::Value(v) => v.span(),
            Node::Table(t) => t.span(),
        }
    }

    fn value(&self) -> Option<&'a Value> {
        match self {
            Node::Item(i) => i.as_value(),
            Node::Value(v) => Some(v),
            Node::Table(_) => None,
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            Node::Item(i) => i.type_name(),
            Node::Value(v) => v.type_name(),
            Node::Table(_) => "table",
        }
    }
}

/// A node plus where it is, for error messages.
#[derive(Clone)]
pub(crate) struct At<'a, 's> {
    pub node: Node<'a>,
    pub path: String,
    /// Fallback position (the parent's) when the node carries no span.
    pub pos: (usize, usize),
    pub src: &'s Source<'s>,
}

/// A table (standard or inline) being read, with the list of keys consumed so far.
pub(crate) struct Obj<'a, 's> {
    pub tbl: &'a dyn TableLike,
    pub at: At<'a, 's>,
}

impl<'a, 's> At<'a, 's> {
    pub fn root(item: &'a Item, src: &'s Source<'s>) -> Self {
        Self {
            node: Node::Item(item),
            path: String::new(),
            pos: (1, 1),
            src,
        }
    }

    pub fn position(&self) -> (usize, usize) {
        self.node
            .span()
            .map(|s| self.src.line_col(s.start))
            .unwrap_or(self.pos)
    }

    pub fn err(&self, msg: impl Into<String>) -> ScenarioError {
        let (l, c) = self.position();
        ScenarioError::new(l, c, self.path.clone(), msg)
    }

    fn child(&self, node: Node<'a>, path: String) -> At<'a, 's> {
        At {
            node,
            path,
            pos: self.position(),
            src: self.src,
        }
    }

    pub fn obj(&self) -> Result<Obj<'a, 's>, ScenarioError> {
        let tbl: Option<&'a dyn TableLike> = match self.node {
            Node::Item(i) => i.as_table_like(),
            Node::Value(v) => v.as_inline_table().map(|t| t as &dyn TableLike),
            Node::Table(t) => Some(t as &dyn TableLike),
        };
        match tbl {
            Some(tbl) => Ok(Obj {
                tbl,
                at: self.clone(),
            }),
            None => Err(self.err(format!("expected a table, found {}", self.node.type_name()))),
        }
    }

    /// Elements of an array or an array of tables.
    pub fn array(&self) -> Result<Vec<At<'a, 's>>, ScenarioError> {
        let p = &self.path;
        match self.node {
            Node::Item(Item::ArrayOfTables(a)) => Ok(a
                .iter()
                .enumerate()
                .map(|(i, t)| At {
                    node: Node::Table(t),
                    path: format!("{p}[{i}]"),
                    pos: t
                        .span()
                        .map(|s| self.src.line_col(s.start))
                        .unwrap_or(self.position()),
                    src: self.src,
                })
                .collect()),
            _ => match self.node.value().and_then(|v| v.as_array()) {
                Some(a) => Ok(a
                    .iter()
                    .enumerate()
                    .map(|(i, v)| self.child(Node::Value(v), format!("{p}[{i}]")))
                    .collect()),
                None => Err(self.err(format!(
                    "expected an array, found {}",
                    self.node.type_name()
                ))),
            },
        }
    }

    pub fn str(&self) -> Result<&'a str, ScenarioError> {
        self.node.value().and_then(|v| v.as_str()).ok_or_else(|| {
            self.err(format!(
                "expected a string, found {}",
                self.node.type_name()
            ))
        })
    }

    pub fn is_str(&self) -> bool {
        self.node.value().is_some_and(|v| v.is_str())
    }

    pub fn is_array(&self) -> bool {
        matches!(self.node, Node::Item(Item::ArrayOfTables(_)))
            || self.node.value().is_some_and(|v| v.is_array())
    }

    pub fn int(&self) -> Result<i64, ScenarioError> {
        self.node
            .value()
            .and_then(|v| v.as_integer())
            .ok_or_else(|| {
                self.err(format!(
                    "expected an integer, found {}",
                    self.node.type_name()
                ))
            })
    }

    pub fn u64(&self) -> Result<u64, ScenarioError> {
        let v = self.int()?;
        u64::try_from(v).map_err(|_| self.err(format!("must not be negative (got {v})")))
    }

    pub fn u32(&self) -> Result<u32, ScenarioError> {
        let v = self.int()?;
        u32::try_from(v).map_err(|_| self.err(format!("must be in 0..={} (got {v})", u32::MAX)))
    }

    pub fn i32(&self) -> Result<i32, ScenarioError> {
        let v = self.int()?;
        i32::try_from(v).map_err(|_| self.err(format!("does not fit a 32-bit int (got {v})")))
    }

    /// A number (integer or float).
    pub fn num(&self) -> Result<f64, ScenarioError> {
        let v = self.node.value();
        if let Some(i) = v.and_then(|v| v.as_integer()) {
            return Ok(i as f64);
        }
        v.and_then(|v| v.as_float())
            .filter(|f| f.is_finite())
            .ok_or_else(|| {
                self.err(format!(
                    "expected a number, found {}",
                    self.node.type_name()
                ))
            })
    }

    /// A non-negative number.
    pub fn nonneg(&self) -> Result<f64, ScenarioError> {
        let v = self.num()?;
        if v < 0.0 {
            return Err(self.err(format!("must not be negative (got {v})")));
        }
        Ok(v)
    }

    pub fn bool(&self) -> Result<bool, ScenarioError> {
        self.node.value().and_then(|v| v.as_bool()).ok_or_else(|| {
            self.err(format!(
                "expected true or false, found {}",
                self.node.type_name()
            ))
        })
    }

    /// Microseconds (number) → nanoseconds, at most [`MAX_DURATION_US`].
    pub fn us_to_ns(&self) -> Result<u64, ScenarioError> {
        let us = self.nonneg()?;
        if us > MAX_DURATION_US {
            return Err(self.err(format!(
                "{us} µs is longer than the {MAX_DURATION_US} µs (10 s) a simulated duration may last"
            )));
        }
        Ok(us_to_ns(us))
    }

    /// A byte count: an integer, or a string with a unit ("64MiB", "1.5 GB", "4096").
    pub fn bytes(&self) -> Result<u64, ScenarioError> {
        if self.is_str() {
            let s = self.str()?;
            parse_bytes(s).ok_or_else(|| {
                self.err(format!(
                    "invalid byte size {s:?} (use an integer or e.g. \"64KiB\", \"1.5MB\", \"2GiB\"; must not be negative)"
                ))
            })
        } else {
            self.u64()
        }
    }

    /// `x`, `[x]`, `[x, y]` or `[x, y, z]` (missing dimensions are 1; each ≥ 1).
    pub fn dim3(&self) -> Result<[u32; 3], ScenarioError> {
        let mut d = [1u32; 3];
        if self.is_array() {
            let a = self.array()?;
            if a.is_empty() || a.len() > 3 {
                return Err(self.err("expected 1 to 3 dimensions"));
            }
            for (i, e) in a.iter().enumerate() {
                d[i] = e.u32()?;
            }
        } else {
            d[0] = self.u32()?;
        }
        if d.contains(&0) {
            return Err(self.err("dimensions must be ≥ 1"));
        }
        Ok(d)
    }
}

impl<'a, 's> Obj<'a, 's> {
    pub fn get(&self, key: &str) -> Option<At<'a, 's>> {
        let (k, item) = self.tbl.get_key_value(key)?;
        let path = if self.at.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.at.path)
        };
        let pos = k
            .span()
            .map(|s| self.at.src.line_col(s.start))
            .unwrap_or(self.at.position());
        Some(At {
            node: Node::Item(item),
            path,
            pos,
            src: self.at.src,
        })
    }

    pub fn req(&self, key: &str) -> Result<At<'a, 's>, ScenarioError> {
        self.get(key)
            .ok_or_else(|| self.at.err(format!("missing required field `{key}`")))
    }

    /// Rejects keys outside `allowed`, suggesting the closest allowed one.
    pub fn only(&self, allowed: &[&str]) -> Result<(), ScenarioError> {
        for (k, _) in self.tbl.iter() {
            if !allowed.contains(&k) {
                let at = self.get(k).expect("key exists");
                let hint = closest(k, allowed)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                return Err(at.err(format!(
                    "unknown field `{k}`{hint}; allowed: {}",
                    allowed.join(", ")
                )));
            }
        }
        Ok(())
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>, ScenarioError> {
        self.get(key).map(|a| a.str()).transpose()
    }
    pub fn opt_u32(&self, key: &str) -> Result<Option<u32>, ScenarioError> {
        self.get(key).map(|a| a.u32()).transpose()
    }
    pub fn opt_u64(&self, key: &str) -> Result<Option<u64>, ScenarioError> {
        self.get(key).map(|a| a.u64()).transpose()
    }
    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>, ScenarioError> {
        self.get(key).map(|a| a.bool()).transpose()
    }
    pub fn opt_us(&self, key: &str) -> Result<Option<u64>, ScenarioError> {
        self.get(key).map(|a| a.us_to_ns()).transpose()
    }
    pub fn opt_bytes(&self, key: &str) -> Result<Option<u64>, ScenarioError> {
        self.get(key).map(|a| a.bytes()).transpose()
    }
    pub fn opt_dim3(&self, key: &str) -> Result<Option<[u32; 3]>, ScenarioError> {
        self.get(key).map(|a| a.dim3()).transpose()
    }
}

/// Longest duration, gap or delay a scenario may give one call: with the 200 M-call limit, the
/// simulated timeline then stays far inside u64 nanoseconds (found by fuzzing: `dur_us = 11e91`
/// overflowed the compiler's time arithmetic).
pub(crate) const MAX_DURATION_US: f64 = 1e7;

pub(crate) fn us_to_ns(us: f64) -> u64 {
    (us * 1000.0).round() as u64
}

pub(crate) fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let v = (n * mult).round();
    (v.is_finite() && v >= 0.0 && v < u64::MAX as f64).then_some(v as u64)
}

/// Closest candidate by edit distance, if reasonably close.
pub(crate) fn closest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
