//! `rocprof-xplane attach <pid>`: profile a process that is already running, through
//! rocprofiler-sdk's process attachment (SDK 1.2.0+, ROCm 7.x). It wraps AMD's `rocprof-attach`
//! driver, which loads our tool library into the target, detaches it after the duration and
//! exits; the tool writes the session's profile at the detach. Nothing here attaches by itself:
//! where `rocprof-attach` is absent this command says so and stops.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Parser;

use super::launch::{absolute, find_tool_library, resolve_run_name, tool_var};

#[derive(Debug, Parser)]
#[command(about = "Profile a running process for a while (rocprofiler-sdk process attachment)")]
pub struct Args {
    /// The process to profile. It must have been started with ROCP_TOOL_ATTACH=1.
    pid: u32,
    /// How long to stay attached: seconds, or with a unit (`500ms`, `10s`, `2m`).
    #[arg(long, default_value = "10s", value_parser = parse_duration_ms)]
    duration: u64,
    /// Log directory the profile goes to (what `xprof --logdir` takes).
    #[arg(long, default_value = "rocprof-xplane-logs")]
    output_dir: PathBuf,
    /// Run directory name (default: $ROCPROF_XPLANE_RUN_NAME, else a timestamp).
    #[arg(long)]
    run_name: Option<String>,
    /// The `rocprof-attach` driver to use (default: from PATH, $ROCM_PATH/bin, /opt/rocm/bin).
    #[arg(long)]
    rocprof_attach: Option<PathBuf>,
}

/// `10`, `10s`, `500ms`, `2m` → milliseconds (at least 1).
fn parse_duration_ms(v: &str) -> Result<u64, String> {
    let v = v.trim();
    let (num, scale) = if let Some(n) = v.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix('s') {
        (n, 1e3)
    } else if let Some(n) = v.strip_suffix('m') {
        (n, 60e3)
    } else {
        (v, 1e3)
    };
    match num.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x * scale <= 1e10 => Ok(((x * scale) as u64).max(1)),
        _ => Err(format!("{v:?} is not a duration (e.g. 10s, 500ms, 2m)")),
    }
}

pub fn execute(args: Args) -> ExitCode {
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("rocprof-xplane attach: {e}");
            ExitCode::from(2)
        }
    }
}

/// What the target's environment says about attachment: `Some(true)` when it was started with
/// `ROCP_TOOL_ATTACH=1`, `None` when we may not read it (another user's process).
fn started_for_attach(pid: u32) -> Result<Option<bool>, String> {
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    if !proc_dir.exists() {
        return Err(format!("no process {pid}"));
    }
    match std::fs::read(proc_dir.join("environ")) {
        Ok(env) => Ok(Some(
            env.split(|b| *b == 0).any(|kv| kv == b"ROCP_TOOL_ATTACH=1"),
        )),
        Err(_) => Ok(None),
    }
}

/// AMD's attach driver: the given path, else `rocprof-attach` on PATH, in `$ROCM_PATH/bin` or
/// in `/opt/rocm/bin`.
fn find_rocprof_attach(given: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("--rocprof-attach {}: no such file", p.display()))
        };
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(r) = std::env::var_os("ROCM_PATH") {
        dirs.push(PathBuf::from(r).join("bin"));
    }
    dirs.push(PathBuf::from("/opt/rocm/bin"));
    dirs.into_iter()
        .map(|d| d.join("rocprof-attach"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "rocprof-attach not found (on PATH, in $ROCM_PATH/bin or /opt/rocm/bin): process \
             attachment needs AMD's driver from rocprofiler-sdk 1.2.0 or later (ROCm 7.x); \
             install it or name it with --rocprof-attach"
                .to_string()
        })
}

fn run(args: &Args) -> Result<ExitCode, String> {
    match started_for_attach(args.pid)? {
        Some(true) => {}
        Some(false) => {
            return Err(format!(
                "process {} was not started with ROCP_TOOL_ATTACH=1: rocprofiler-sdk can attach \
                 only to processes that had it set when they started (start the job once with \
                 ROCP_TOOL_ATTACH=1; from then on it can be profiled any time without a restart)",
                args.pid
            ))
        }
        None => eprintln!(
            "rocprof-xplane attach: cannot read the environment of process {}; it must have \
             been started with ROCP_TOOL_ATTACH=1",
            args.pid
        ),
    }
    let driver = find_rocprof_attach(args.rocprof_attach.as_deref())?;
    let tool = find_tool_library()?;
    let run_name = resolve_run_name(args.run_name.as_deref())?;
    let out_dir = absolute(&args.output_dir);
    let mut cmd = Command::new(&driver);
    cmd.arg("-p")
        .arg(args.pid.to_string())
        .arg("-t")
        .arg(&tool)
        .arg("-d")
        .arg(args.duration.to_string())
        // rocprof-attach hands its environment to the target's tool (the SDK applies the
        // environment passed with the attach request); this is where the tool writes.
        .env(tool_var("OUTPUT_DIR"), &out_dir)
        .env(tool_var("RUN_NAME"), &run_name);
    eprintln!(
        "rocprof-xplane attach: {} -p {} -t {} -d {} (profile into {}/plugins/profile/{run_name}/)",
        driver.display(),
        args.pid,
        tool.display(),
        args.duration,
        out_dir.display()
    );
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", driver.display()))?;
    if !status.success() {
        return Err(format!("{} exited with {status}", driver.display()));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_the_units_people_type() {
        assert_eq!(parse_duration_ms("10"), Ok(10_000));
        assert_eq!(parse_duration_ms("10s"), Ok(10_000));
        assert_eq!(parse_duration_ms("1.5s"), Ok(1_500));
        assert_eq!(parse_duration_ms("500ms"), Ok(500));
        assert_eq!(parse_duration_ms("2m"), Ok(120_000));
        for bad in ["", "0", "-1s", "x", "1h", "nan"] {
            assert!(parse_duration_ms(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_missing_process_is_named() {
        assert_eq!(
            started_for_attach(u32::MAX).unwrap_err(),
            "no process 4294967295"
        );
        // This test process was not started for attachment (unless the harness is).
        let me = std::process::id();
        let expect = std::env::var("ROCP_TOOL_ATTACH").as_deref() == Ok("1");
        assert_eq!(started_for_attach(me), Ok(Some(expect)));
    }
}
