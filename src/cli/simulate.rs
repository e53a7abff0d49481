//! `rocprof-xplane simulate`.

use std::process::ExitCode;

/// Arguments after the subcommand name.
pub fn main(args: &[String]) -> ExitCode {
    let _ = args;
    eprintln!("rocprof-xplane simulate: not yet implemented");
    ExitCode::from(2)
}
