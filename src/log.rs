//! Diagnostics: the `log_*` macros emit `tracing` events; our own subscriber turns each into one
//! prefixed stderr line, filtered by `ROCPROF_XPLANE_LOG`.
//!
//! The tool shares stderr with the application, so every line is prefixed and the default level
//! (warn) stays quiet unless something is wrong. `tracing` (the design card's choice) gives each
//! call site a cached enabled check, so a disabled level costs a load and a branch; the
//! subscriber is installed in this library's own copy of `tracing` (a cdylib links its own), so
//! it never replaces or sees a Rust host program's subscriber.

use std::fmt::Write as _;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// How much the tool says on stderr (`ROCPROF_XPLANE_LOG`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Off,
    Error,
    Warn,
    Info,
    Debug,
}

impl LogLevel {
    /// From one of `LOG`'s words.
    pub(crate) fn from_word(w: &str) -> LogLevel {
        match w {
            "off" => LogLevel::Off,
            "error" => LogLevel::Error,
            "info" => LogLevel::Info,
            "debug" => LogLevel::Debug,
            _ => LogLevel::Warn,
        }
    }
}

pub use rocprof_xplane_core::measure::{minor_faults, peak_headroom_bytes, process_memory_kb};

fn tracing_level(level: LogLevel) -> Option<Level> {
    match level {
        LogLevel::Off => None,
        LogLevel::Error => Some(Level::ERROR),
        LogLevel::Warn => Some(Level::WARN),
        LogLevel::Info => Some(Level::INFO),
        LogLevel::Debug => Some(Level::DEBUG),
    }
}

/// Writes each event of at most `max` as one line through `sink`; spans are not used.
pub struct LineSubscriber {
    max: Option<Level>,
    sink: fn(std::fmt::Arguments<'_>),
}

impl LineSubscriber {
    pub fn new(level: LogLevel) -> Self {
        LineSubscriber {
            max: tracing_level(level),
            sink: stderr_line,
        }
    }
}

/// Collects an event's message and fields into one line.
struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
}

impl Subscriber for LineSubscriber {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.max.is_some_and(|max| *metadata.level() <= max)
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(match self.max {
            Some(l) => tracing::level_filters::LevelFilter::from_level(l),
            None => tracing::level_filters::LevelFilter::OFF,
        })
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut line = Line(String::new());
        event.record(&mut line);
        let tag = match *event.metadata().level() {
            Level::ERROR => "error: ",
            Level::WARN => "warning: ",
            _ => "",
        };
        (self.sink)(format_args!("rocprof-xplane: {tag}{}", line.0));
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// Installs the subscriber for this library's `tracing` at `level` (once; later calls keep the
/// first).
pub fn install(level: LogLevel) {
    let _ = tracing::subscriber::set_global_default(LineSubscriber::new(level));
}

/// Writes one line to stderr and ignores failure. `eprintln!` panics when stderr cannot be
/// written (a pipe whose reader is gone while SIGPIPE is ignored, a full disk); the tool prints
/// from inside the runtime's callbacks and from the panic guard itself, where a panic would
/// abort the profiled program, and no message is worth that.
pub fn stderr_line(line: std::fmt::Arguments<'_>) {
    write_line(&mut std::io::stderr().lock(), line);
}

/// Formats the whole line first and hands it over in one `write_all` (one `write(2)` for any
/// line that fits a pipe's atomic size): `writeln!` on unbuffered stderr issues a write per
/// formatted piece, which interleaves with the application's own output mid-line.
fn write_line(w: &mut impl std::io::Write, line: std::fmt::Arguments<'_>) {
    let mut text = line.to_string();
    text.push('\n');
    let _ = w.write_all(text.as_bytes());
}

#[macro_export]
macro_rules! log_error { ($($t:tt)*) => { ::tracing::error!("{}", format_args!($($t)*)) } }
#[macro_export]
macro_rules! log_warn { ($($t:tt)*) => { ::tracing::warn!("{}", format_args!($($t)*)) } }
#[macro_export]
macro_rules! log_info { ($($t:tt)*) => { ::tracing::info!("{}", format_args!($($t)*)) } }
#[macro_export]
macro_rules! log_debug { ($($t:tt)*) => { ::tracing::debug!("{}", format_args!($($t)*)) } }

/// Resident memory and its peak of this process, its minor page faults and CPU time so far (and
/// the tool's own heap, in a `heap-stats` build), for debug lines.
pub fn process_memory() -> String {
    let (rss, peak) = process_memory_kb();
    let kb = |v: Option<u64>| v.map_or("?".to_string(), |v| format!("{v} kB"));
    let heap = crate::heap::stats().map_or(String::new(), |(live, peak)| {
        format!(
            "; tool heap {:.1} MB, peak {:.1} MB",
            live as f64 / 1e6,
            peak as f64 / 1e6
        )
    });
    let faults = minor_faults().map_or(String::new(), |n| format!(", minor faults {n}"));
    let cpu = crate::sdk::os::process_cpu_ns().map_or(String::new(), |ns| {
        format!(", process CPU {:.1} ms", ns as f64 / 1e6)
    });
    format!("rss {}, peak {}{faults}{cpu}{heap}", kb(rss), kb(peak))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A destination that refuses every write, like stderr on a closed pipe.
    struct Broken;

    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }

    /// `ci/bench-e2e.sh` reads finalize's CPU from the memory part of the finalize lines as
    /// `process CPU N ms`; the count includes this thread's own CPU time.
    #[test]
    fn the_memory_part_carries_the_process_cpu_in_ms() {
        let own_ns = crate::sdk::os::thread_cpu_ns();
        let line = process_memory();
        let ms: f64 = line
            .split(", process CPU ")
            .nth(1)
            .and_then(|rest| rest.split(" ms").next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no process CPU in {line:?}"));
        // The line rounds to 0.1 ms.
        assert!(
            ms * 1e6 + 1e5 >= own_ns as f64,
            "{ms} ms < this thread's {own_ns} ns"
        );
    }

    #[test]
    fn a_line_that_cannot_be_written_is_dropped_not_a_panic() {
        let r = std::panic::catch_unwind(|| write_line(&mut Broken, format_args!("x {}", 1)));
        assert!(r.is_ok());
        let mut ok = Vec::new();
        write_line(&mut ok, format_args!("rocprof-xplane: {}", "hi"));
        assert_eq!(ok, b"rocprof-xplane: hi\n");
    }

    /// Records each `write` call separately, as unbuffered stderr does.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl std::io::Write for Writes {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.push(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    thread_local! {
        static CAPTURED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    fn capture(line: std::fmt::Arguments<'_>) {
        CAPTURED.with(|c| c.borrow_mut().push(line.to_string()));
    }

    #[test]
    fn events_become_one_prefixed_line_each_at_or_above_the_level() {
        let sub = LineSubscriber {
            max: tracing_level(LogLevel::Warn),
            sink: capture,
        };
        tracing::subscriber::with_default(sub, || {
            crate::log_error!("cannot write {}", "/x");
            crate::log_warn!("drops: {}", 3);
            crate::log_info!("not shown at warn");
            crate::log_debug!("nor this");
        });
        let got = CAPTURED.with(|c| c.borrow().clone());
        assert_eq!(
            got,
            vec![
                "rocprof-xplane: error: cannot write /x".to_string(),
                "rocprof-xplane: warning: drops: 3".to_string()
            ]
        );
        let off = LineSubscriber {
            max: tracing_level(LogLevel::Off),
            sink: capture,
        };
        CAPTURED.with(|c| c.borrow_mut().clear());
        tracing::subscriber::with_default(off, || crate::log_error!("silent"));
        assert!(CAPTURED.with(|c| c.borrow().is_empty()));
    }

    #[test]
    fn a_line_is_one_write() {
        let mut w = Writes::default();
        write_line(
            &mut w,
            format_args!("rocprof-xplane: {} of {}", 3, "many pieces"),
        );
        assert_eq!(w.0, vec![b"rocprof-xplane: 3 of many pieces\n".to_vec()]);
    }
}
