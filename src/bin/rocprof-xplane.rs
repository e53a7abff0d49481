//! `rocprof-xplane`: run a program under the tool, replay a scenario in the simulator, or
//! inspect an `.xplane.pb` file.

use std::process::ExitCode;

const USAGE: &str = "\
usage: rocprof-xplane <command> [args]

commands:
  simulate <SCENARIO> --output-dir <DIR> [--sdk <version>] [--ground-truth F]
                      run the tool inside the simulated rocprofiler-sdk runtime (no GPU needed)
  convert <ROCPROFV3 OUTPUT> [--output-dir DIR] [--run-name NAME]
                      turn rocprofv3 JSON or CSV output into an XPlane profile xprof opens
  inspect <FILE> [--json]
                      summarise an .xplane.pb: planes, lines, events per kind, top kernels, drops
  run [--output-dir DIR] -- <program> [args]
                      run a program on a real ROCm machine with the tool loaded
  attach <PID> [--duration 10s] [--output-dir DIR]
                      profile a running process for a while (rocprofiler-sdk process
                      attachment through AMD's rocprof-attach; the process must have been
                      started with ROCP_TOOL_ATTACH=1)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    match cmd.as_str() {
        "simulate" => rocprof_xplane::cli::simulate::main(rest),
        "inspect" => rocprof_xplane::cli::inspect::main(rest),
        "convert" => rocprof_xplane::cli::convert::main(rest),
        "run" => rocprof_xplane::cli::run::main(rest),
        "attach" => rocprof_xplane::cli::attach::main(rest),
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("rocprof-xplane: unknown command '{other}'\n");
            eprint!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
