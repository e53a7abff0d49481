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

/// Formats the whole line first and hands it over in one `write_all` (one `write(2)` for any
/// line that fits a pipe's atomic size): `writeln!` on unbuffered stderr issues a write per
/// formatted piece, which interleaves with the application's own output mid-line.
fn write_line(w: &mut impl std::io::Write, line: std::fmt::Arguments<'_>) {
    let mut text = line.to_string();
    text.push('\n');
    let _ = w.write_all(text.as_bytes());
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
