//! One-line stderr messages, filtered by `ROCPROF_XPLANE_LOG`.
//!
//! The tool shares stderr with the application, so every line is prefixed and the default level
//! (warn) stays quiet unless something is wrong.

use crate::config::{self, LogLevel};

pub fn enabled(level: LogLevel) -> bool {
    level != LogLevel::Off && config::get().log >= level
}

pub fn emit(level: LogLevel, msg: std::fmt::Arguments<'_>) {
    if enabled(level) {
        let tag = match level {
            LogLevel::Error => "error: ",
            LogLevel::Warn => "warning: ",
            _ => "",
        };
        stderr_line(format_args!("rocprof-xplane: {tag}{msg}"));
    }
}

/// Writes one line to stderr and ignores failure. `eprintln!` panics when stderr cannot be
/// written (a pipe whose reader is gone while SIGPIPE is ignored, a full disk); the tool prints
/// from inside the runtime's callbacks and from the panic guard itself, where a panic would
/// abort the profiled program, and no message is worth that.
pub fn stderr_line(line: std::fmt::Arguments<'_>) {
    write_line(&mut std::io::stderr().lock(), line);
}

fn write_line(w: &mut impl std::io::Write, line: std::fmt::Arguments<'_>) {
    let _ = writeln!(w, "{line}");
}

#[macro_export]
macro_rules! log_error { ($($t:tt)*) => { $crate::log::emit($crate::config::LogLevel::Error, format_args!($($t)*)) } }
#[macro_export]
macro_rules! log_warn { ($($t:tt)*) => { $crate::log::emit($crate::config::LogLevel::Warn, format_args!($($t)*)) } }
#[macro_export]
macro_rules! log_info { ($($t:tt)*) => { $crate::log::emit($crate::config::LogLevel::Info, format_args!($($t)*)) } }
#[macro_export]
macro_rules! log_debug { ($($t:tt)*) => { $crate::log::emit($crate::config::LogLevel::Debug, format_args!($($t)*)) } }

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

    #[test]
    fn a_line_that_cannot_be_written_is_dropped_not_a_panic() {
        let r = std::panic::catch_unwind(|| write_line(&mut Broken, format_args!("x {}", 1)));
        assert!(r.is_ok());
        let mut ok = Vec::new();
        write_line(&mut ok, format_args!("rocprof-xplane: {}", "hi"));
        assert_eq!(ok, b"rocprof-xplane: hi\n");
    }
}
