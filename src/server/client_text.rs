//! What a client sends, as it may appear in the program's stderr: escaped and shortened
//! ([`ClientText`]), and the lines a client can cause counted against a budget
//! ([`LineBudget`]), so that no request can forge a line, fill the log, or flood it.

use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most characters of a client's text a line shows.
pub const MAX_SHOWN_CHARS: usize = 64;

/// A client's text for a log line: control characters (newlines, escape codes, NUL, …) and
/// Unicode format characters written as escapes (`\n`, `\u{1b}`), at most [`MAX_SHOWN_CHARS`]
/// characters shown, and then how long the whole was.
pub struct ClientText<'a>(pub &'a str);

impl fmt::Display for ClientText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (shown, c) in self.0.chars().enumerate() {
            if shown == MAX_SHOWN_CHARS {
                return write!(f, "…({} bytes in all)", self.0.len());
            }
            if c.is_control() || is_format(c) {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// Characters that change how a terminal shows the text around them without being control
/// characters: bidirectional overrides and isolates, zero-width marks, the line and paragraph
/// separators.
fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}'
    )
}

/// Lines caused by clients: up to `burst` at once, then one per `every`; the lines held back
/// are counted, and the next line that passes says how many.
pub struct LineBudget {
    burst: u32,
    every: Duration,
    state: Mutex<Budget>,
}

struct Budget {
    tokens: u32,
    refilled: Instant,
    held_back: u64,
}

impl LineBudget {
    /// The service's budget: ten lines at once, then one every six seconds.
    pub fn for_service() -> LineBudget {
        LineBudget::new(10, Duration::from_secs(6), Instant::now())
    }

    pub fn new(burst: u32, every: Duration, now: Instant) -> LineBudget {
        LineBudget {
            burst,
            every,
            state: Mutex::new(Budget {
                tokens: burst,
                refilled: now,
                held_back: 0,
            }),
        }
    }

    /// Whether a line may be written at `now`: `Some(n)` with the lines held back since the
    /// last one written, `None` when this one is held back.
    pub fn take(&self, now: Instant) -> Option<u64> {
        let mut b = crate::store::sinks::lock(&self.state);
        let earned =
            now.saturating_duration_since(b.refilled).as_nanos() / self.every.as_nanos().max(1);
        if earned > 0 {
            b.tokens = (u128::from(b.tokens) + earned).min(u128::from(self.burst)) as u32;
            b.refilled += self.every * u32::try_from(earned).unwrap_or(u32::MAX);
        }
        // A full budget earns nothing more: the period counts from the first line it spends.
        if b.tokens == self.burst {
            b.refilled = now;
        }
        if b.tokens == 0 {
            b.held_back += 1;
            return None;
        }
        b.tokens -= 1;
        Some(std::mem::take(&mut b.held_back))
    }

    /// `line` as it is to be logged now, with how many were held back before it; `None` when
    /// it is held back: `if let Some(l) = budget.pass(format_args!(…)) { log_warn!("{l}") }`.
    pub fn pass(&self, line: fmt::Arguments<'_>) -> Option<String> {
        match self.take(Instant::now())? {
            0 => Some(line.to_string()),
            held => Some(format!(
                "{line} ({held} lines caused by clients held back before this one)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_long_text_shortened() {
        let forged = "a\nrocprof-xplane: wrote /etc/passwd\x1b[31m\r\0\u{202e}z";
        let shown = ClientText(forged).to_string();
        assert!(!shown.chars().any(|c| c.is_control()), "{shown:?}");
        assert_eq!(
            shown,
            "a\\nrocprof-xplane: wrote /etc/passwd\\u{1b}[31m\\r\\u{0}\\u{202e}z"
        );
        let long = "é".repeat(1 << 20);
        let shown = ClientText(&long).to_string();
        assert_eq!(
            shown,
            format!("{}…({} bytes in all)", "é".repeat(MAX_SHOWN_CHARS), 2 << 20)
        );
        assert_eq!(ClientText("run_2024").to_string(), "run_2024");
        assert_eq!(ClientText("").to_string(), "");
        // Non-ASCII text that changes nothing on a terminal is kept.
        assert_eq!(ClientText("prüfung 試験").to_string(), "prüfung 試験");
    }

    #[test]
    fn a_burst_passes_then_one_line_per_period_saying_how_many_were_held_back() {
        let t0 = Instant::now();
        let b = LineBudget::new(3, Duration::from_secs(6), t0);
        let passed: Vec<Option<u64>> = (0..5).map(|_| b.take(t0)).collect();
        assert_eq!(passed, [Some(0), Some(0), Some(0), None, None]);
        assert_eq!(b.take(t0 + Duration::from_secs(5)), None);
        assert_eq!(b.take(t0 + Duration::from_secs(6)), Some(3));
        assert_eq!(b.take(t0 + Duration::from_secs(7)), None);
        // A long quiet spell refills up to the burst, not beyond.
        let later = t0 + Duration::from_secs(600);
        let passed = (0..4).filter(|_| b.take(later).is_some()).count();
        assert_eq!(passed, 3);
    }
}
