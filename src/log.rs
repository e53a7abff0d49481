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
        eprintln!("rocprof-xplane: {tag}{msg}");
    }
}

#[macro_export]
macro_rules! log_error { ($($t:tt)*) => { $crate::log::emit($crate::config::LogLevel::Error, format_args!($($t)*)) } }
#[macro_export]
macro_rules! log_warn { ($($t:tt)*) => { $crate::log::emit($crate::config::LogLevel::Warn, format_args!($($t)*)) } }
#[macro_export]
macro_rules! log_info { ($($t:tt)*) => { $crate::log::emit($crate::config::LogLevel::Info, format_args!($($t)*)) } }
#[macro_export]
macro_rules! log_debug { ($($t:tt)*) => { $crate::log::emit($crate::config::LogLevel::Debug, format_args!($($t)*)) } }
