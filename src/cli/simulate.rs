//! `rocprof-xplane simulate`: replay a scenario in the simulated rocprofiler-sdk runtime with
//! this tool loaded, exactly as a real runtime would load it (a separate process, the tool
//! given in `ROCP_TOOL_LIBRARIES`). The simulator is test infrastructure: no GPU is involved.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Parser;

use crate::config;

#[derive(Debug, Parser)]
#[command(
    name = "rocprof-xplane simulate",
    about = "Replay a scenario in the simulated runtime"
)]
struct Args {
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
    /// Run directory name (default: a timestamp).
    #[arg(long)]
    run_name: Option<String>,
}

/// Candidate directories for artifacts built beside the running binary: its own directory and
/// the cargo profile directory above `deps/` (when run from a test binary).
fn artifact_dirs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        let mut dir = exe.parent().map(Path::to_path_buf);
        for _ in 0..2 {
            if let Some(d) = dir {
                v.push(d.clone());
                dir = d.parent().map(Path::to_path_buf);
            }
        }
    }
    v
}

/// The simulator driver: `$ROCPROF_SIM_DRIVER`, else `rocprof-sim` beside this binary.
pub fn find_driver() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("ROCPROF_SIM_DRIVER") {
        return Ok(PathBuf::from(p));
    }
    artifact_dirs()
        .into_iter()
        .map(|d| d.join("rocprof-sim"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "simulator driver 'rocprof-sim' not found next to this binary; build it with \
             `cargo build -p rocprof-sim` or set ROCPROF_SIM_DRIVER"
                .to_string()
        })
}

/// This tool as a loadable library: `librocprof_xplane.so` beside this binary (or in the
/// cargo target directory above it), as an absolute path.
pub fn find_tool_library() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("ROCPROF_XPLANE_TOOL_LIBRARY") {
        return Ok(PathBuf::from(p));
    }
    artifact_dirs()
        .into_iter()
        .map(|d| d.join("librocprof_xplane.so"))
        .find(|p| p.is_file())
        .and_then(|p| p.canonicalize().ok())
        .ok_or_else(|| {
            "librocprof_xplane.so not found next to this binary; build it with \
             `cargo build -p rocprof-xplane` or set ROCPROF_XPLANE_TOOL_LIBRARY"
                .to_string()
        })
}

/// Makes `p` absolute against the current directory (the directory need not exist yet).
pub fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

pub fn main(args: &[String]) -> ExitCode {
    let args = match Args::try_parse_from(
        std::iter::once(OsString::from("rocprof-xplane simulate"))
            .chain(args.iter().map(OsString::from)),
    ) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
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
    let run_name = args
        .run_name
        .clone()
        .or_else(|| std::env::var(format!("{}RUN_NAME", config::PREFIX)).ok())
        .unwrap_or_else(|| config::run_name_for(unix_now()));

    let mut cmd = Command::new(&driver);
    cmd.arg(&args.scenario);
    if let Some(v) = &args.sdk {
        cmd.arg("--sdk").arg(v);
    }
    if let Some(g) = &args.ground_truth {
        cmd.arg("--ground-truth").arg(absolute(g));
    }
    // A single path: the runtime's list parser drops the last entry only when ':' appears.
    cmd.env("ROCP_TOOL_LIBRARIES", &tool);
    cmd.env(format!("{}OUTPUT_DIR", config::PREFIX), &out_dir);
    cmd.env(format!("{}RUN_NAME", config::PREFIX), &run_name);

    let started = std::time::SystemTime::now();
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", driver.display()))?;
    if !status.success() {
        return Err(format!("simulator exited with {status}"));
    }
    let run_dir = out_dir.join("plugins").join("profile").join(&run_name);
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
    if files.is_empty() {
        return Err(format!(
            "the simulated run finished but wrote nothing under {}",
            run_dir.display()
        ));
    }
    for f in &files {
        println!("wrote {}", f.display());
    }
    println!(
        "open it with:  xprof --logdir {} --port 6006",
        out_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
