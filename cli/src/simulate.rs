//! `rocprof-xplane simulate`: replay a scenario in the simulated rocprofiler-sdk runtime with
//! this tool loaded, exactly as a real runtime would load it (a separate process, the tool
//! given in `ROCP_TOOL_LIBRARIES`). The simulator is test infrastructure: no GPU is involved.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Parser;

use rocprof_xplane::config::Config;
use rocprof_xplane::output;

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
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", driver.display()))?;
    let pid = child.id();
    let status = child
        .wait()
        .map_err(|e| format!("cannot wait for {}: {e}", driver.display()))?;
    if !status.success() {
        return Err(format!("simulator exited with {status}"));
    }
    let run_dir = out_dir
        .join("plugins")
        .join("profile")
        .join(rocprof_xplane_core::xplane::run_dir_name(&run_name));
    // Only the file of the process started here: other ranks of the job (other processes, run
    // at the same time into the same run) write theirs beside it.
    let own = own_file(&out_dir, &run_name, pid);
    // Written by this run, not left by an earlier process of the same number.
    let files: Vec<PathBuf> = std::iter::once(own)
        .filter(|p| {
            let modified = std::fs::metadata(p).and_then(|m| m.modified());
            modified.is_ok_and(|t| t >= started - std::time::Duration::from_secs(1))
        })
        .collect();
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

/// The profile process `pid` writes into run `run_name` under `out_dir`, named as the tool
/// names it (`output::file_host`) with the environment the process inherited from us.
fn own_file(out_dir: &Path, run_name: &str, pid: u32) -> PathBuf {
    let lookup = |k: &str| std::env::var(k).ok();
    let (cfg, _) = Config::parse(lookup, 0);
    let host = output::file_host(
        cfg.file_template.as_deref(),
        &rocprof_xplane::sdk::os::hostname(),
        pid,
        lookup,
    );
    let layout = rocprof_xplane_core::xplane::OutputLayout {
        log_dir: out_dir.to_path_buf(),
        run_name: run_name.to_string(),
        host,
        durable: true,
    };
    layout.file_path()
}
