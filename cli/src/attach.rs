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
    let target = Target::of(args.pid)?;
    // One attach at a time: the lock is held until the driver has detached.
    let _held = sessions::lock(&target)?;
    let earlier = sessions::read(&target);
    let session = match &earlier {
        // The tool in the process was configured at its first attach and keeps that: this
        // session goes where that one said.
        Some(e) => Session {
            out_dir: e.out_dir.clone(),
            run_name: e.run_name.clone(),
            number: e.number + 1,
        },
        None => {
            if target.has_tool(&tool) {
                eprintln!(
                    "rocprof-xplane attach: note: the tool is already loaded in process {} by an \
                     attach not made with this command; it keeps that attach's output directory \
                     and run name, and writes this attach session as <that run>_attachNN",
                    args.pid
                );
            }
            Session {
                out_dir: out_dir.clone(),
                run_name: run_name.clone(),
                number: 1,
            }
        }
    };
    let dest = session.destination();
    if earlier.is_some() && (session.out_dir != out_dir || args.run_name.is_some()) {
        eprintln!(
            "rocprof-xplane attach: note: process {} was attached before, into {} as run {:?}; \
             its tool keeps those settings (--output-dir and --run-name apply to a process's \
             first attach), so this attach session goes to {}",
            args.pid,
            session.out_dir.display(),
            session.run_name,
            dest.display()
        );
    }
    let mut cmd = Command::new(&driver);
    cmd.arg("-p")
        .arg(args.pid.to_string())
        .arg("-t")
        .arg(&tool)
        .arg("-d")
        .arg(args.duration.to_string())
        // rocprof-attach hands its environment to the target's tool (the SDK applies the
        // environment passed with the attach request); this is where the tool writes.
        .env(tool_var("OUTPUT_DIR"), &session.out_dir)
        .env(tool_var("RUN_NAME"), &session.run_name);
    eprintln!(
        "rocprof-xplane attach: {} -p {} -t {} -d {} (profile into {}/)",
        driver.display(),
        args.pid,
        tool.display(),
        args.duration,
        dest.display()
    );
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", driver.display()))?;
    if !status.success() {
        return Err(format!("{} exited with {status}", driver.display()));
    }
    sessions::write(&target, &session);
    Ok(ExitCode::SUCCESS)
}

/// A running process, told apart from a later one given the same pid by its start time.
pub struct Target {
    pid: u32,
    /// `/proc/<pid>/stat` field 22: clock ticks after boot.
    started: u64,
}

impl Target {
    fn of(pid: u32) -> Result<Target, String> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_err(|e| format!("process {pid}: {e}"))?;
        // After the command name (in parentheses, which may hold anything): field 3 on.
        let started = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().nth(19))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("process {pid}: unreadable /proc/{pid}/stat"))?;
        Ok(Target { pid, started })
    }

    /// Whether a library of `tool`'s file name is mapped into the process.
    fn has_tool(&self, tool: &Path) -> bool {
        let Some(name) = tool.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        std::fs::read_to_string(format!("/proc/{}/maps", self.pid))
            .is_ok_and(|maps| maps.lines().any(|l| l.ends_with(&format!("/{name}"))))
    }
}

/// An attach session: where the tool in the process writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    out_dir: PathBuf,
    /// The run name the tool was configured with at the process's first attach.
    run_name: String,
    /// 1 for the first attach of the process.
    number: u32,
}

impl Session {
    /// `<out_dir>/plugins/profile/<run dir of this attach session>`.
    fn destination(&self) -> PathBuf {
        let run = rocprof_xplane::control::attach::session_run_name(&self.run_name, self.number);
        self.out_dir
            .join("plugins")
            .join("profile")
            .join(rocprof_xplane_core::xplane::run_dir_name(&run))
    }
}

/// What this command remembers of the attaches it made, per process, in a directory of the
/// user's own (`$XDG_RUNTIME_DIR/rocprof-xplane`, else `<tmp>/rocprof-xplane-<uid>`, mode
/// 0700): `attach-<pid>.lock`, held while an attach runs, and `attach-<pid>.json`, the first
/// attach's output directory and run name and the sessions so far (with the process's start
/// time, so a later process with the same pid starts afresh).
mod sessions {
    use std::fs::{File, OpenOptions};
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
    use std::path::PathBuf;

    use serde_json::json;

    use super::{Session, Target};

    fn dir() -> Result<PathBuf, String> {
        // SAFETY: getuid has no preconditions and cannot fail.
        let uid = unsafe { libc::getuid() };
        let d = match std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
            Some(r) => PathBuf::from(r).join("rocprof-xplane"),
            None => std::env::temp_dir().join(format!("rocprof-xplane-{uid}")),
        };
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&d);
        let m = std::fs::symlink_metadata(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        if !m.is_dir() || m.uid() != uid || m.mode() & 0o022 != 0 {
            return Err(format!(
                "{} is not a directory of this user's alone; not used",
                d.display()
            ));
        }
        Ok(d)
    }

    /// The lock of `target`'s attaches, held until dropped; an error when another attach
    /// holds it.
    /// Without a directory of its own, the attach goes on unguarded (`None`), saying so.
    pub fn lock(target: &Target) -> Result<Option<File>, String> {
        let dir = match dir() {
            Ok(d) => d,
            Err(e) => {
                eprintln!(
                    "rocprof-xplane attach: warning: {e}: two attaches to one process are not \
                     kept apart, and a later attach cannot say where its profile goes"
                );
                return Ok(None);
            }
        };
        let path = dir.join(format!("attach-{}.lock", target.pid));
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        // SAFETY: flock on a descriptor we own; it only takes or refuses the lock.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(format!(
                "process {} is being profiled by another `rocprof-xplane attach` right now; \
                 one attach at a time: try again when it has detached",
                target.pid
            ));
        }
        Ok(Some(f))
    }

    fn record(target: &Target) -> Option<PathBuf> {
        dir()
            .ok()
            .map(|d| d.join(format!("attach-{}.json", target.pid)))
    }

    /// The last attach session of `target` made with this command, if any.
    pub fn read(target: &Target) -> Option<Session> {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(record(target)?).ok()?).ok()?;
        if v["started"].as_u64()? != target.started {
            return None;
        }
        Some(Session {
            out_dir: PathBuf::from(v["output_dir"].as_str()?),
            run_name: v["run_name"].as_str()?.to_string(),
            number: u32::try_from(v["sessions"].as_u64()?).ok()?,
        })
    }

    /// Remembers `session` as `target`'s last (best effort: without it, the next attach
    /// cannot say where its session goes).
    pub fn write(target: &Target, s: &Session) {
        let Some(path) = record(target) else {
            return;
        };
        let v = json!({
            "pid": target.pid,
            "started": target.started,
            "output_dir": s.out_dir.to_string_lossy(),
            "run_name": s.run_name,
            "sessions": s.number,
        });
        let tmp = path.with_extension("json.tmp");
        let written =
            std::fs::write(&tmp, v.to_string()).and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(e) = written {
            eprintln!(
                "rocprof-xplane attach: warning: cannot remember this attach session in {} ({e}); a \
                 later attach to the process cannot say where its profile goes",
                path.display()
            );
        }
    }
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
