//! Subcommands of the `rocprof-xplane` binary. Each module owns one subcommand.

pub mod attach;
pub mod convert;
pub mod inspect;
pub mod launch;
pub mod run;
pub mod simulate;
