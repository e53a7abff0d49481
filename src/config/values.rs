//! Reading one setting: the raw bytes from the environment, checked against the kind of value
//! its row of the table ([`super::table`]) declares, with the documented default used, and one
//! warning line, when the value is refused.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

pub use super::show::{shown, shown_str, SHOWN_CHARS};
use super::table::{Default, Kind, Setting, Word};
use super::{ConfigWarning, PREFIX};
use crate::model::steps::StepRule;

/// A refused value, before the line says what is used instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Complaint {
    /// The variable's full name.
    pub var: String,
    /// The value as [`shown`].
    pub shown: String,
    /// Why it is refused.
    pub why: String,
}

impl Complaint {
    pub fn new(var: impl Into<String>, value: &OsStr, why: impl Into<String>) -> Self {
        Complaint {
            var: var.into(),
            shown: shown(value),
            why: why.into(),
        }
    }

    /// The one line: `VAR="value" is invalid (why); <instead>`.
    pub fn instead(self, instead: impl std::fmt::Display) -> ConfigWarning {
        ConfigWarning(format!(
            "{}={} is invalid ({}); {instead}",
            self.var, self.shown, self.why
        ))
    }

    /// The one line when the default is used: `…; using default <default>`.
    pub fn using(self, default: impl std::fmt::Display) -> ConfigWarning {
        self.instead(format_args!("using default {default}"))
    }
}

/// What reading one setting gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read<T> {
    /// Absent, empty or only blanks.
    Unset,
    Set(T),
    /// Refused; the caller says what is used instead.
    Bad(Complaint),
}

impl<T> Read<T> {
    pub fn is_set(&self) -> bool {
        !matches!(self, Read::Unset)
    }
}

/// Reads settings through a lookup (the process environment, or a map in tests) and collects
/// the warning lines.
pub struct Reader<'a> {
    lookup: &'a dyn Fn(&str) -> Option<OsString>,
    pub warnings: Vec<ConfigWarning>,
}

impl<'a> Reader<'a> {
    pub fn new(lookup: &'a dyn Fn(&str) -> Option<OsString>) -> Self {
        Reader {
            lookup,
            warnings: Vec::new(),
        }
    }

    /// The raw value of `s`; an empty or blank one counts as unset.
    fn raw(&self, s: &Setting) -> Option<OsString> {
        (self.lookup)(&format!("{PREFIX}{}", s.name))
            .filter(|v| !v.as_bytes().iter().all(u8::is_ascii_whitespace))
    }

    /// `s` as bytes: any value is a path.
    pub fn os(&self, s: &Setting) -> Read<OsString> {
        match self.raw(s) {
            None => Read::Unset,
            Some(v) => Read::Set(v),
        }
    }

    /// `s` checked by `parse`; a value that is not UTF-8 is refused.
    pub fn get<T>(&self, s: &Setting, parse: impl Fn(&Kind, &str) -> Result<T, String>) -> Read<T> {
        let Some(raw) = self.raw(s) else {
            return Read::Unset;
        };
        let var = format!("{PREFIX}{}", s.name);
        match raw.to_str() {
            None => Read::Bad(Complaint::new(var, &raw, "not UTF-8")),
            Some(text) => match parse(&s.kind, text) {
                Ok(v) => Read::Set(v),
                Err(why) => Read::Bad(Complaint::new(var, &raw, why)),
            },
        }
    }

    /// The value set for `s`, if one is and it is good (a refused one says so on one line,
    /// naming the documented default).
    pub fn given<T>(
        &mut self,
        s: &Setting,
        parse: impl Fn(&Kind, &str) -> Result<T, String>,
    ) -> Option<T> {
        match self.get(s, &parse) {
            Read::Set(v) => Some(v),
            Read::Unset => None,
            Read::Bad(c) => {
                self.warnings.push(c.using(s.default.text()));
                None
            }
        }
    }

    /// `s`'s value, or its documented default (a refused value says so on one line): `None`
    /// when the default is no value.
    pub fn value<T>(
        &mut self,
        s: &Setting,
        parse: impl Fn(&Kind, &str) -> Result<T, String>,
    ) -> Option<T> {
        self.given(s, &parse).or_else(|| default_of(s, parse))
    }

    /// [`Reader::value`] for a setting whose default is a value.
    pub fn value_or<T>(
        &mut self,
        s: &Setting,
        parse: impl Fn(&Kind, &str) -> Result<T, String>,
        fallback: T,
    ) -> T {
        self.value(s, parse).unwrap_or(fallback)
    }
}

/// `s`'s documented default read by `parse`, when it is a value.
pub fn default_of<T>(s: &Setting, parse: impl Fn(&Kind, &str) -> Result<T, String>) -> Option<T> {
    match s.default {
        // A table test parses every such default with its own setting's rule.
        Default::Value(text) => parse(&s.kind, text).ok(),
        Default::Off(_) | Default::Derived(_) => None,
    }
}

/// `1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`.
pub fn flag(_: &Kind, v: &str) -> Result<bool, String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err("expected 1/0, true/false, yes/no, on/off".into()),
    }
}

fn find_word(words: &'static [Word], v: &str) -> Option<&'static str> {
    words
        .iter()
        .find(|w| {
            w.name.eq_ignore_ascii_case(v) || w.aliases.iter().any(|a| a.eq_ignore_ascii_case(v))
        })
        .map(|w| w.name)
}

fn expected_words(words: &[Word]) -> String {
    let names: Vec<&str> = words.iter().map(|w| w.name).collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// One word of [`Kind::Word`], as its table spells it.
pub fn word(kind: &Kind, v: &str) -> Result<&'static str, String> {
    let Kind::Word(words) = kind else {
        return Err(mismatch("a word"));
    };
    find_word(words, v.trim()).ok_or_else(|| format!("expected {}", expected_words(words)))
}

/// A comma list of [`Kind::List`]'s words, each once, in the order given; blanks between
/// commas are skipped.
pub fn list(kind: &Kind, v: &str) -> Result<Vec<&'static str>, String> {
    let Kind::List(words) = kind else {
        return Err(mismatch("a list"));
    };
    let mut out = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let w = find_word(words, part).ok_or_else(|| {
            format!(
                "unknown {}; known: {}",
                shown_str(part),
                words.iter().map(|w| w.name).collect::<Vec<_>>().join(", ")
            )
        })?;
        if !out.contains(&w) {
            out.push(w);
        }
    }
    Ok(out)
}

/// Bytes with an optional binary suffix: `65536`, `64k`, `4m`, `1g` (also `KiB`, `MB`, …).
pub fn parse_size(v: &str) -> Option<usize> {
    let s = v.trim().to_ascii_lowercase();
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits_end == 0 {
        return None;
    }
    let n: usize = s[..digits_end].parse().ok()?;
    let mult: usize = match s[digits_end..].trim() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// A byte count within [`Kind::Bytes`]'s range; `none` (`off`, `0`) is 0 where allowed.
pub fn bytes(kind: &Kind, v: &str) -> Result<u64, String> {
    let &Kind::Bytes { min, max, none } = kind else {
        return Err(mismatch("bytes"));
    };
    let t = v.trim();
    if none
        && ["none", "off", "0"]
            .iter()
            .any(|n| t.eq_ignore_ascii_case(n))
    {
        return Ok(0);
    }
    let expected = if none {
        "expected bytes with an optional k/m/g suffix, or none"
    } else {
        "expected bytes with an optional k/m/g suffix"
    };
    let n = parse_size(t).ok_or(expected)? as u64;
    if !(min..=max).contains(&n) {
        return Err(format!(
            "outside the accepted range ({})",
            super::table::bytes_range(min, max)
        ));
    }
    Ok(n)
}

/// Seconds (fractions allowed, an `s` suffix too) within [`Kind::Seconds`]'s range, as
/// milliseconds.
pub fn seconds_ms(kind: &Kind, v: &str) -> Result<u64, String> {
    let &Kind::Seconds { min } = kind else {
        return Err(mismatch("seconds"));
    };
    match v.trim().trim_end_matches('s').trim().parse::<f64>() {
        Ok(t) if t.is_finite() && (min..=1e7).contains(&t) => Ok((t * 1e3) as u64),
        _ if min > 0.0 => Err(format!("expected seconds, at least {min}")),
        _ => Err("expected seconds".into()),
    }
}

/// A whole number within [`Kind::Count`]'s range.
pub fn count(kind: &Kind, v: &str) -> Result<u64, String> {
    let &Kind::Count { min, max } = kind else {
        return Err(mismatch("a count"));
    };
    match v.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ if max == u64::MAX && min == 1 => Err("expected a positive count".into()),
        _ => Err(format!("expected a count from {min} to {max}")),
    }
}

/// A Unix time in seconds (fractions allowed), as ns since the epoch.
pub fn unix_time_ns(kind: &Kind, v: &str) -> Result<u64, String> {
    let &Kind::UnixTime = kind else {
        return Err(mismatch("a Unix time"));
    };
    let t = v.trim();
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let bad = || "expected a Unix time in seconds, e.g. 1760000000".to_string();
    let secs: u64 = int.parse().map_err(|_| bad())?;
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let ns: u64 = format!("{frac:0<9}").parse().map_err(|_| bad())?;
    secs.checked_mul(1_000_000_000)
        .and_then(|s| s.checked_add(ns))
        .filter(|&t| t > 0)
        .ok_or_else(bad)
}

/// `HOST:PORT` or `[V6]:PORT` of another process (resolved when used).
pub fn peer(kind: &Kind, v: &str) -> Result<String, String> {
    let &Kind::Peer = kind else {
        return Err(mismatch("an address"));
    };
    let t = v.trim();
    let bad = || "expected HOST:PORT or [V6]:PORT".to_string();
    let (host, port) = t.rsplit_once(':').ok_or_else(bad)?;
    if host.is_empty() || host.contains('/') || port.parse::<u16>().map_or(true, |p| p == 0) {
        return Err(bad());
    }
    if host.contains(':') && !(host.starts_with('[') && host.ends_with(']')) {
        return Err("an IPv6 address goes in brackets: [::1]:port".into());
    }
    if matches!(host, "0.0.0.0" | "[::]" | "*") {
        return Err("expected an address other processes reach (not a wildcard)".into());
    }
    Ok(t.to_string())
}

/// Text exactly as given (a roctx range name is compared byte for byte).
pub fn text(_: &Kind, v: &str) -> Result<String, String> {
    Ok(v.to_string())
}

/// A step rule (`STEP_RANGE`): the text, or a pattern with `*`s.
pub fn step_rule(kind: &Kind, v: &str) -> Result<StepRule, String> {
    let &Kind::StepPattern = kind else {
        return Err(mismatch("a step pattern"));
    };
    StepRule::parse(v)
}

/// A parser asked of a setting of another kind: a defect of the table, which its tests catch;
/// refused like a bad value rather than a panic inside the profiled program.
fn mismatch(what: &str) -> String {
    format!("internal: this setting is not read as {what}")
}
