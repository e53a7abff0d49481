//! `rocprof-xplane simulate`: replay a scenario in the simulated rocprofiler-sdk runtime with
//! this tool loaded, exactly as a real runtime would load it (a separate process, the tool
//! given in `ROCP_TOOL_LIBRARIES`). The simulator is test infrastructure: no GPU is involved.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::Parser;

use super::launch::{absolute, find_driver, find_tool_library, resolve_run_name, set_tool_env};

#[derive(Debug, Parser)]
#[command(about = "Replay a scenario in the simulated runtime")]
pub struct Args {
    /// Scenario file (TOML).
    scenario: PathBuf,
    /// Log directory to write into (what `xprof --logdir` takes).
    #[arg(long)]
    output_dir: PathBuf,
    /// SDK version the simulator impersonates, e.g. 0.6.0 or 1.0.0.
    #[arg(long)]
    sdk: Option<String>,
    /// Also write the simulator's ground truth (JSON) to this file.
    #[arg(long)]
    ground_truth: Option<PathBuf>,
    /// Run directory name (default: $ROCPROF_XPLANE_RUN_NAME, else the launcher job id, else a timestamp).
    #[arg(long)]
    run_name: Option<String>,
}

pub fn execute(args: Args) -> ExitCode {
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("rocprof-xplane simulate: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<ExitCode, String> {
    if !args.scenario.is_file() {
        return Err(format!(
            "scenario file {} not found",
            args.scenario.display()
        ));
    }
    let driver = find_driver()?;
    let tool = find_tool_library()?;
    let out_dir = absolute(&args.output_dir);
    let run_name = resolve_run_name(args.run_name.as_deref())?;

    let mut cmd = Command::new(&driver);
    cmd.arg(&args.scenario);
    if let Some(v) = &args.sdk {
        cmd.arg("--sdk").arg(v);
    }
    if let Some(g) = &args.ground_truth {
        cmd.arg("--ground-truth").arg(absolute(g));
    }
    // A single path: the runtime's list parser drops the last entry only when ':' appears.
    set_tool_env(&mut cmd, &tool, &out_dir, &run_name);

    let started = std::time::SystemTime::now();
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", driver.display()))?;
    if !status.success() {
        return Err(format!("simulator exited with {status}"));
    }
    let run_dir = out_dir
        .join("plugins")
        .join("profile")
        .join(rocprof_xplane_core::xplane::run_dir_name(&run_name));
    let files: Vec<PathBuf> = std::fs::read_dir(&run_dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().ends_with(".xplane.pb"))
                // Only what this run wrote (the run directory may hold earlier runs' files).
                .filter(|p| {
                    let modified = std::fs::metadata(p).and_then(|m| m.modified());
                    modified.is_ok_and(|t| t >= started - std::time::Duration::from_secs(1))
                })
                .collect()
        })
        .unwrap_or_default();
    if files.is_empty() && std::env::var_os("ROCPROF_XPLANE_SERVER").is_some() {
        // The profiler service hands its profiles to the clients that asked for them.
        crate::out!("the profiler service was on: profiles went to the capturing clients, none was written here");
        return Ok(ExitCode::SUCCESS);
    }
    if files.is_empty() {
        return Err(format!(
            "the simulated run finished but wrote nothing under {}",
            run_dir.display()
        ));
    }
    for f in &files {
        crate::out!("wrote {}", f.display());
    }
    crate::out!(
        "open it with:  xprof --logdir {} --port 6006",
        out_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
