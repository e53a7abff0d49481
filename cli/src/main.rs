//! `rocprof-xplane`: run a program under the tool, attach to a running one, replay a scenario
//! in the simulator, convert rocprofv3 output, inspect an `.xplane.pb` file, or merge a run's
//! capture windows into one profile.
//!
//! The command line lives in this crate, apart from the tool library: the `.so` that is loaded
//! into profiled programs carries none of it (nor the SQLite, CSV and gzip readers `convert`
//! needs).

mod attach;
mod convert;
mod files;
mod inspect;
mod launch;
mod merge;
mod rocprofv3;
mod run;
mod simulate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "rocprof-xplane",
    version,
    about = "rocprofiler-sdk tool that writes XPlane profiles for xprof / TensorBoard",
    after_help = "Without a GPU: `rocprof-xplane simulate scenarios/graph-launch.toml --output-dir out` \
                  runs the tool inside the simulated rocprofiler-sdk runtime (test infrastructure)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a program with the tool loaded (a ROCm machine); rocprofv3's trace flags work too.
    Run(run::Args),
    /// Profile a running process for a while (rocprofiler-sdk process attachment through
    /// AMD's rocprof-attach; the process must have been started with ROCP_TOOL_ATTACH=1).
    Attach(attach::Args),
    /// Run the tool inside the simulated rocprofiler-sdk runtime (no GPU needed).
    Simulate(simulate::Args),
    /// Convert rocprofv3 output (rocpd database, JSON, CSV) to an XPlane profile xprof opens.
    Convert(convert::Args),
    /// Summarise an .xplane.pb: planes, lines, events per kind, top kernels, streams, drops.
    Inspect(inspect::Args),
    /// Merge a run's capture windows into one profile per process.
    Merge(merge::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return launch::exit_code(&e);
        }
    };
    match cli.command {
        Command::Run(a) => run::execute(a),
        Command::Attach(a) => attach::execute(a),
        Command::Simulate(a) => simulate::execute(a),
        Command::Convert(a) => convert::execute(a),
        Command::Inspect(a) => inspect::execute(a),
        Command::Merge(a) => merge::execute(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// `convert --help` names every input it reads, the rocpd database first.
    #[test]
    fn convert_help_names_its_inputs() {
        let mut cmd = Cli::command();
        let help = cmd
            .find_subcommand_mut("convert")
            .expect("convert")
            .render_long_help()
            .to_string();
        for what in [".db", "rocpd", "JSON", "CSV", "rocpd2csv"] {
            assert!(help.contains(what), "{what} missing from:\n{help}");
        }
    }

    #[test]
    fn every_subcommand_is_listed_in_the_help() {
        let help = Cli::command().render_help().to_string();
        for sub in ["run", "attach", "simulate", "convert", "inspect", "merge"] {
            assert!(help.contains(sub), "{sub} missing from:\n{help}");
        }
    }
}
