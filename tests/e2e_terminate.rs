//! A program ended by SIGTERM (a batch scheduler's time limit) or SIGINT (Ctrl-C) still leaves
//! its profile (a job killed by its scheduler must not be left with no profile at all), and still
//! ends as that signal ends it. Through the simulated rocprofiler-sdk runtime (test
//! infrastructure, not hardware), with the 32-thread storm scenario signalled mid-run.

mod support;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use rocprof_xplane::xplane::read_xspace;
use std::collections::HashSet;
use support::paths::tool_library;
use support::sim::Direct;
use support::xspace::{counters, host_api_events, kernels};

/// The tool inside `scenarios/live-capture.toml`: about 25 s of work paced at wall-clock
/// speed, so every signal lands mid-run, after a known stretch of work. `delivery` adds to
/// its `[delivery]`, `env` to the tool's environment. The log directory (under `tmp`) and the
/// running driver.
fn start_live(tmp: &Path, delivery: &str, env: &[(&str, &str)]) -> (PathBuf, Child) {
    let text = std::fs::read_to_string(support::paths::builtin("live-capture.toml")).unwrap();
    let text = text.replacen(
        "real_time = 1.0",
        &format!("real_time = 1.0\n{delivery}"),
        1,
    );
    let scenario = tmp.join("live.toml");
    std::fs::write(&scenario, text).unwrap();
    let dir = tmp.join("logs");
    let mut d = Direct::new(&scenario, "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", &dir)
        .env("ROCPROF_XPLANE_RUN_NAME", "run")
        .signals_at_default();
    for (k, v) in env {
        d = d.env(k, v);
    }
    (dir, d.spawn())
}

/// Whether `sig` is among the caught signals of process `pid` (`SigCgt` in /proc).
fn catches(pid: i32, sig: i32) -> bool {
    let st = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    st.lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        .is_some_and(|m| m & (1 << (sig - 1)) != 0)
}

/// Waits until the tool has its handlers in (the tool is tracing), gives the program `busy`
/// to make records, sends `sig`, and returns how the process ended, within 60 s, and what it
/// wrote on stderr.
fn signal_mid_run(
    mut child: Child,
    installed: i32,
    sig: i32,
    busy: Duration,
) -> (ExitStatus, String) {
    let pid = child.id() as i32;
    let deadline = Instant::now() + Duration::from_secs(60);
    while !catches(pid, installed) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before the tool set its handler"
        );
        assert!(Instant::now() < deadline, "no handler after 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(busy);
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before the signal"
    );
    // SAFETY: signalling our own child process, known to be running.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0);
    let sent = Instant::now();
    // The process must end on its own: poll, and kill it if it hangs (then fail).
    while child.try_wait().unwrap().is_none() {
        if sent.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the process did not end within 60 s of the signal");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn profiles(dir: &Path) -> Vec<PathBuf> {
    let run = dir.join("plugins/profile/run");
    let mut v: Vec<PathBuf> = std::fs::read_dir(run)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// SIGTERM and SIGINT mid-run: the profile is written, complete (kernels, API calls and roctx
/// ranges, each kernel joined to its launch), the process still ends killed by that signal
/// (what a scheduler or shell expects), and real xprof opens the file. Fails without the
/// handler: the signal's default action ends the process before anything is written.
#[test]
fn a_program_ended_by_sigterm_or_sigint_leaves_its_profile() {
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, child) = start_live(tmp.path(), "", &[]);
        let (status, stderr) = signal_mid_run(child, sig, sig, Duration::from_millis(1500));
        assert_eq!(status.signal(), Some(sig), "{sig}: {status:?}\n{stderr}");
        assert!(
            stderr.contains("writing the profile before the process ends"),
            "{stderr}"
        );
        let files = profiles(&dir);
        assert_eq!(files.len(), 1, "{sig}: {files:?}\n{stderr}");
        assert!(stderr.contains("rocprof-xplane: wrote "), "{stderr}");
        let space = read_xspace(&files[0]).unwrap();
        let launches: HashSet<u64> = host_api_events(&space)
            .iter()
            .filter_map(|e| e.correlation_id())
            .collect();
        let kernels = kernels(&space);
        let joined = kernels
            .iter()
            .filter(|k| k.correlation_id().is_some_and(|c| launches.contains(&c)))
            .count();
        eprintln!(
            "{sig}: {} kernels, {joined} joined, {} API events; counters {:?}",
            kernels.len(),
            launches.len(),
            counters(&space)
        );
        assert!(!kernels.is_empty(), "{sig}: no kernels\n{stderr}");
        // Launches return before their kernels end: every kernel delivered has its call.
        assert_eq!(joined, kernels.len(), "{sig}: kernels without their launch");
        if sig == libc::SIGTERM && support::xprof::available() {
            let s = support::xprof::summary(&files[0], &support::paths::host_of(&files[0]));
            assert_eq!(s["errors"], serde_json::json!({}), "xprof errors");
            assert!(s["trace"]["complete_events"].as_u64().unwrap_or(0) > 0);
        }
    }
}

/// `ROCPROF_XPLANE_TERM_SIGNALS=INT`: SIGTERM is left alone (not caught; it ends the program
/// at once, no profile), SIGINT is taken.
#[test]
fn term_signals_chooses_which_signals_are_taken() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, child) = start_live(tmp.path(), "", &[("ROCPROF_XPLANE_TERM_SIGNALS", "INT")]);
    let pid = child.id() as i32;
    let (status, stderr) = signal_mid_run(child, libc::SIGINT, libc::SIGTERM, Duration::ZERO);
    assert!(!catches(pid, libc::SIGTERM));
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{stderr}");
    assert!(profiles(&dir).is_empty(), "{stderr}");
    assert!(!stderr.contains("writing the profile"), "{stderr}");
}

/// Writing is bounded: with `ROCPROF_XPLANE_TERM_TIMEOUT` shorter than the write, the process
/// still ends, killed by the signal, with a warning, and no half-written file under the
/// profile's name.
#[test]
fn a_write_past_the_timeout_does_not_keep_the_process_alive() {
    let tmp = tempfile::tempdir().unwrap();
    // Each buffer delivery takes the runtime 300 ms, so the flush that starts the write
    // outlasts a 50 ms limit whatever the machine's speed.
    let (dir, child) = start_live(
        tmp.path(),
        "delivery_delay_us = 300000",
        &[("ROCPROF_XPLANE_TERM_TIMEOUT", "0.05")],
    );
    let (status, stderr) = signal_mid_run(
        child,
        libc::SIGTERM,
        libc::SIGTERM,
        Duration::from_millis(500),
    );
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{stderr}");
    assert!(
        stderr.contains("the profile was not written within 0.05 s"),
        "{stderr}"
    );
    for f in profiles(&dir) {
        let n = f.file_name().unwrap().to_string_lossy().into_owned();
        assert!(n.starts_with('.') && n.contains(".tmp."), "stray {n}");
    }
}

/// Capture windows and SIGTERM: the windows cut while the program ran stay as they are, and
/// what came after the last cut is written as the last window before the process ends (without
/// the handler, it was lost with the process).
#[test]
fn a_windowed_run_ended_by_sigterm_writes_its_last_window() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, child) = start_live(tmp.path(), "", &[("ROCPROF_XPLANE_WINDOW_SECONDS", "0.5")]);
    let (status, stderr) = signal_mid_run(
        child,
        libc::SIGTERM,
        libc::SIGTERM,
        Duration::from_millis(1800),
    );
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{stderr}");
    let cut = stderr.matches("wrote window ").count();
    assert!(cut >= 1, "no window cut while running: {stderr}");
    let mut windows: Vec<String> = std::fs::read_dir(dir.join("plugins/profile"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    windows.sort();
    // Finalize ran at the signal: it wrote the last window, or said that nothing came after
    // the last cut (a signal landing right after a cut on a slow machine). Without the
    // handler, neither.
    if stderr.contains("no further file") {
        assert_eq!(windows.len(), cut, "{windows:?}\n{stderr}");
        return;
    }
    assert_eq!(windows.len(), cut + 1, "{windows:?}\n{stderr}");
    let last = dir.join("plugins/profile").join(windows.last().unwrap());
    let file = std::fs::read_dir(&last)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let space = read_xspace(&file).unwrap();
    assert!(
        !kernels(&space).is_empty(),
        "the last window has no kernels"
    );
}
