//! `rocprof-xplane run`.

use std::process::ExitCode;

/// Arguments after the subcommand name.
pub fn main(args: &[String]) -> ExitCode {
    let _ = args;
    eprintln!("rocprof-xplane run: not yet implemented");
    ExitCode::from(2)
}
