//! The CLI's checks of the files it reads, and of where it writes, before `merge`, `inspect`
//! and `convert` do anything: a file that is not a profile is refused with one line, never
//! opened when it is not a regular file (a FIFO would hang the command), a gap in a run's
//! windows is named, a closed stdout ends the command quietly, and `merge --into` follows
//! the rule of `--run-name`. The windows come from a simulated run (the simulated
//! rocprofiler-sdk runtime: test infrastructure).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use support::paths::{cli, tool_library};
use support::sim::Direct;
use support::text;

/// A run's windows, written once: `<logs>/plugins/profile/win_w0001/…` and on, unmerged
/// (`WINDOW_MERGE=0`), at least three of them.
fn windows_source() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let scenario = support::paths::scaled_scenario(tmp.path(), "thread-storm.toml", 25000, 800);
        let logs = tmp.path().join("logs");
        let out = Direct::new(&scenario, "1.0.0")
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", &logs)
            .env("ROCPROF_XPLANE_RUN_NAME", "win")
            .env("ROCPROF_XPLANE_WINDOW_EVENTS", "3000")
            .env("ROCPROF_XPLANE_WINDOW_MERGE", "0")
            .output();
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(window_file(&logs, 3).is_file(), "{}", text(&out.stderr));
        tmp
    })
    .path()
}

/// A fresh copy of the run's windows under `dir`; returns its log directory.
fn copy_windows(dir: &Path) -> PathBuf {
    let from = windows_source().join("logs/plugins/profile");
    let logs = dir.join("logs");
    for run in std::fs::read_dir(&from).unwrap().flatten() {
        let name = run.file_name();
        if !name.to_string_lossy().starts_with("win_w") {
            continue;
        }
        let to = logs.join("plugins/profile").join(&name);
        std::fs::create_dir_all(&to).unwrap();
        for f in std::fs::read_dir(run.path()).unwrap().flatten() {
            std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
        }
    }
    logs
}

/// The one profile file of window `n`.
fn window_file(logs: &Path, n: u32) -> PathBuf {
    let dir = logs.join(format!("plugins/profile/win_w{n:04}"));
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".xplane.pb"))
        .unwrap()
}

/// Runs `rocprof-xplane ARGS…`, failing the test if it has not ended within 30 s (a hang).
fn run_bounded(args: &[&std::ffi::OsStr]) -> Output {
    let mut child = Command::new(cli())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rocprof-xplane {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn merge(logs: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["merge".as_ref(), logs.as_os_str(), "win".as_ref()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    run_bounded(&args)
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Nothing was merged into run `run` (no profile in its directory).
fn nothing_merged(logs: &Path, run: &str) -> bool {
    support::paths::profiles(logs, run).is_empty()
}

/// A window that is not a profile — 0 bytes, a symbolic link to `/dev/zero`, a FIFO — is
/// refused with one line naming it, and nothing is merged (the windows stay for a merge once
/// it is put right); `inspect` and `convert` refuse the same files the same way. Before, the
/// empty and `/dev/zero` windows were merged as empty (rc 0, events missing) and the FIFO hung
/// `merge` forever.
#[test]
fn windows_that_are_not_profiles_are_refused_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    type Plant = fn(&Path);
    let cases: [(&str, Plant, &str); 3] = [
        (
            "empty",
            |f| std::fs::write(f, b"").unwrap(),
            "is empty (0 bytes): not a profile",
        ),
        (
            "dev-zero",
            |f| {
                std::fs::remove_file(f).unwrap();
                std::os::unix::fs::symlink("/dev/zero", f).unwrap();
            },
            "is a character device, not a regular file: not read",
        ),
        (
            "fifo",
            |f| {
                std::fs::remove_file(f).unwrap();
                mkfifo(f);
            },
            "is a FIFO, not a regular file: not read",
        ),
    ];
    for (what, plant, says) in cases {
        let logs = copy_windows(&tmp.path().join(what));
        let bad = window_file(&logs, 2);
        plant(&bad);
        let out = merge(&logs, &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{what}: one line: {stderr}");
        assert!(
            stderr.contains(&bad.display().to_string()) && stderr.contains(says),
            "{what}: {stderr}"
        );
        assert!(nothing_merged(&logs, "win"), "{what}");

        let out = run_bounded(&["inspect".as_ref(), bad.as_os_str()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "inspect {what}: {stderr}");
        assert!(stderr.contains(says), "inspect {what}: {stderr}");
    }
    // `convert` reads rocprofv3's files: a FIFO given as one (or beside one, as a CSV
    // sibling) is refused by its metadata, without a hang.
    let fifo = tmp.path().join("run_kernel_trace.csv");
    mkfifo(&fifo);
    let out = run_bounded(&[
        "convert".as_ref(),
        fifo.as_os_str(),
        "--output-dir".as_ref(),
        tmp.path().join("converted").as_os_str(),
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is a FIFO, not a regular file"), "{stderr}");
}

/// A window number missing from a run (a window that could not be written, or was removed)
/// is named on stderr, and the windows there are merged; before, the gap passed in silence.
#[test]
fn a_missing_window_number_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = copy_windows(tmp.path());
    std::fs::remove_dir_all(logs.join("plugins/profile/win_w0002")).unwrap();
    let out = merge(&logs, &[]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(": window 2 missing") && stderr.contains("lacks their time"),
        "{stderr}"
    );
    assert_eq!(support::paths::profiles(&logs, "win").len(), 1);
}

/// `merge --into` follows the rule `--run-name` follows: a path or an empty name is refused
/// (exit 2, one line) and nothing is written, inside the log directory or outside it. Before,
/// such names were sanitised into a directory name and the merge went on with rc 0.
#[test]
fn merge_into_names_follow_the_run_name_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = copy_windows(tmp.path());
    for into in ["../../escape", "", " ", "a/b", ".."] {
        let out = merge(&logs, &["--into", into]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{into:?}: {stderr}");
        assert!(
            stderr.contains("--into") && stderr.contains("single directory name"),
            "{into:?}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    let runs: Vec<String> = std::fs::read_dir(logs.join("plugins/profile"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("win_w"))
        .collect();
    assert!(runs.is_empty(), "nothing merged: {runs:?}");
    assert!(!tmp.path().join("escape").exists());
    assert!(!logs.join("escape").exists());
    // A name that is one directory is taken.
    let out = merge(&logs, &["--into", "merged:run"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(support::paths::profiles(&logs, "merged_run").len(), 1);
}

/// A reader that closed stdout before the command wrote its result (`… | head -0`) ends the
/// output; the command's work stands and its status is the usual one, with no panic. Before,
/// `merge` panicked with exit 101 after writing its file.
#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = copy_windows(tmp.path());
    let merged_file = {
        let mut child = Command::new(cli())
            .args(["merge".as_ref(), logs.as_os_str(), "win".as_ref()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "merge: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        let files = support::paths::profiles(&logs, "win");
        assert_eq!(files.len(), 1, "the merge was done");
        files[0].clone()
    };
    for args in [vec!["inspect"], vec!["inspect", "--json"]] {
        let mut child = Command::new(cli())
            .args(&args)
            .arg(&merged_file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}
