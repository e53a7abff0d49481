//! Real xprof (PyPI `xprof`, pinned) as a test client, through its offline conversion API.
//!
//! The venv lives in `target/xprof-venv` and is created on first use (about 30 s, ~350 MB);
//! a lock file serialises creation across parallel test binaries, and a marker file records a
//! finished install so a half-made venv is repaired rather than trusted.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::paths::workspace;
use super::u;

pub const XPROF_VERSION: &str = "2.24.2";

/// Whether the real-xprof checks run. They need xprof from PyPI once (about 350 MB into
/// `target/xprof-venv`, 30–60 s); offline, `ROCPROF_XPLANE_SKIP_XPROF=1` skips them with a note
/// on stderr. CI (`CI` set) always runs them: there the variable is refused.
pub fn available() -> bool {
    let skip = std::env::var("ROCPROF_XPLANE_SKIP_XPROF").is_ok_and(|v| v == "1");
    if !skip {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "ROCPROF_XPLANE_SKIP_XPROF=1 is refused in CI: the real-xprof checks always run there"
    );
    eprintln!(
        "note: real-xprof checks skipped (ROCPROF_XPLANE_SKIP_XPROF=1); they need PyPI xprof=={XPROF_VERSION} once"
    );
    false
}

pub fn venv_dir() -> PathBuf {
    workspace().join("target").join("xprof-venv")
}

/// Holds an exclusive `flock` on a file for its lifetime.
struct FileLock(fs::File);

impl FileLock {
    fn acquire(path: &Path) -> FileLock {
        let f = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .unwrap_or_else(|e| panic!("open lock {}: {e}", path.display()));
        use std::os::fd::AsRawFd;
        // SAFETY: the fd is valid for the lifetime of `f`, which the lock owns.
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(
            rc,
            0,
            "flock {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        );
        FileLock(f)
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: the fd is still open; unlocking an fd we locked has no other effect.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// The venv's python, with xprof installed (installs it on first use).
pub fn python() -> PathBuf {
    let venv = venv_dir();
    let py = venv.join("bin").join("python3");
    let marker = venv.join(format!(".rocprof-xplane-xprof-{XPROF_VERSION}"));
    if marker.exists() {
        return py;
    }
    fs::create_dir_all(venv.parent().unwrap()).unwrap();
    let _lock = FileLock::acquire(&venv.with_extension("lock"));
    if marker.exists() {
        return py;
    }
    if !py.exists() {
        run(
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
            "python3 -m venv",
        );
    }
    run(
        Command::new(&py)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .arg(format!("xprof=={XPROF_VERSION}")),
        "pip install xprof",
    );
    fs::write(&marker, b"ok\n").unwrap();
    py
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}); the real-xprof tests need PyPI once (offline: set \
         ROCPROF_XPLANE_SKIP_XPROF=1 to skip them):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `tests/xprof/xprof_summary.py` on `file` (as host `host`) and returns its JSON. The
/// conversion runs in a child process with a timeout, so a crash or hang in xprof's C++ fails
/// the test instead of taking it down or stalling it.
pub fn summary(file: &Path, host: &str) -> Value {
    run_script(
        SUMMARY,
        &[file.as_os_str(), "--host".as_ref(), host.as_ref()],
    )
}

/// `xprof_summary.py --multi`: every file copied into one run directory, as the processes of one
/// job write them; reports the hosts xprof lists, ALL_HOSTS kernel_stats and per-host traces.
pub fn summary_multi(files: &[PathBuf]) -> Value {
    let mut args: Vec<&std::ffi::OsStr> = vec!["--multi".as_ref()];
    args.extend(files.iter().map(|f| f.as_os_str()));
    run_script(SUMMARY, &args)
}

/// `xprof_summary.py --merged`: every file copied into one run directory and the trace viewer
/// opened on all of them at once, as xprof's UI does when several hosts are selected: its time
/// span (`full_timespan_ms`) and every complete event (`process`, `row`, `name`, `ts`, `dur`
/// in µs, as xprof gives them).
pub fn merged(files: &[PathBuf]) -> Value {
    let mut args: Vec<&std::ffi::OsStr> = vec!["--merged".as_ref()];
    args.extend(files.iter().map(|f| f.as_os_str()));
    run_script(SUMMARY, &args)
}

const SUMMARY: &str = "xprof_summary.py";

/// `xprof_summary.py --views`: what xprof's step and device views make of `file` —
/// `overview` and `input_pipeline` (`steps`: `[{step, step_ms, compute_ms}]`, `p`: the page's
/// summary figures), `pod_viewer` (`steps`, `hosts`: host → `[[step, duration_us]]`),
/// `roofline` (`peak_*`), `perf_counters` (rows), `hlo_stats` (rows), `op_profile` (program →
/// category → op), `framework_op_stats`, `rows` (trace viewer rows per process with their event
/// counts, the derived ones included) and `complete_flows` (per flow category).
pub fn views(file: &Path) -> Value {
    run_script(SUMMARY, &["--views".as_ref(), file.as_os_str()])
}

/// `xprof_summary.py --pod`: every file in one run directory (as `summary_multi`), and
/// `pod_viewer` over all hosts: `steps` and `hosts` (host → `[[step, duration_us]]`).
pub fn pod(files: &[PathBuf]) -> Value {
    let mut args: Vec<&std::ffi::OsStr> = vec!["--pod".as_ref()];
    args.extend(files.iter().map(|f| f.as_os_str()));
    run_script(SUMMARY, &args)
}

/// xprof's `memory_profile` tool on `file`: its JSON (`memoryProfilePerAllocator`, …).
pub fn memory_profile(file: &Path) -> Value {
    run_script(SUMMARY, &["--memory".as_ref(), file.as_os_str()])
}

/// Runs `tests/xprof/capture_client.py` (xprof's own capture client library: `trace`, the
/// continuous-profiling calls, `monitor`) and returns its JSON line (`ok`, `error`, `seconds`).
pub fn capture_client(args: &[&str]) -> Value {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    run_script("capture_client.py", &args)
}

/// Runs `tests/xprof/grpc_call.py`: `request` (an encoded message) sent `count` times to gRPC
/// `method` (`/tensorflow.ProfilerService/Profile`) at `addr`, one channel, with grpcio (xprof's
/// dependency). Returns `{"codes": [...], "details": [...]}`, one per call.
pub fn grpc_call(addr: &str, method: &str, request: &[u8], count: usize) -> Value {
    let file = tempfile::NamedTempFile::new().unwrap();
    fs::write(file.path(), request).unwrap();
    run_script(
        "grpc_call.py",
        &[
            addr.as_ref(),
            method.as_ref(),
            file.path().as_os_str(),
            count.to_string().as_ref(),
        ],
    )
}

fn run_script(name: &str, args: &[&std::ffi::OsStr]) -> Value {
    let py = python();
    let script = workspace().join("tests").join("xprof").join(name);
    let mut child = Command::new(py)
        .arg(&script)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {name}: {e}"));
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    // A hang fails; a profile of a million events converted on a loaded 2-core runner (the
    // streamed run of `e2e_windows`) may take more than five minutes.
    let deadline = Instant::now() + Duration::from_secs(900);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{name} timed out on {args:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = out_reader.join().unwrap();
    let err = err_reader.join().unwrap();
    assert!(status.success(), "{name} failed ({status}):\n{err}");
    // xprof's C++ client prints its own lines on stdout too: the answer is the last JSON line.
    let line = out
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .unwrap_or(&out);
    serde_json::from_str(line).unwrap_or_else(|e| panic!("bad JSON from {name}: {e}\n{out}\n{err}"))
}

/// A `kernel_stats` table's `occurrences`: kernel name → dispatches xprof counted.
pub fn occurrences(kernel_stats: &Value) -> BTreeMap<String, u64> {
    kernel_stats["occurrences"]
        .as_object()
        .unwrap_or_else(|| panic!("no kernel_stats occurrences in {kernel_stats}"))
        .iter()
        .map(|(k, n)| (k.clone(), u(n)))
        .collect()
}

/// Events named `name` in trace-viewer process `process` (e.g. `host /device:GPU:0`), on the
/// stream rows only: not the derived rows xprof adds (`… - from #…`), which repeat them.
pub fn events_on_stream_rows(summary: &Value, process: &str, name: &str) -> u64 {
    let trace = &summary["trace"];
    let rows = trace["events"][process]
        .as_object()
        .unwrap_or_else(|| panic!("no process {process:?} in {:?}", trace["processes"]));
    rows.iter()
        .filter(|(row, _)| !row.contains(" - from #"))
        .map(|(_, names)| names[name].as_u64().unwrap_or(0))
        .sum()
}
