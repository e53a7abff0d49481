//! Capture windows under a hostile environment: a window that cannot be written (a full disk,
//! then freed), two processes of one run name whose file name lacks `%pid%`, and a process cut
//! short while it writes at exit. Through the simulated rocprofiler-sdk runtime (test
//! infrastructure, not hardware); a full disk is a real tiny tmpfs where the machine allows
//! one, else an injected ENOSPC (`ROCPROF_XPLANE_TEST_FAIL_WRITES`, docs/reliability.md).

mod support;

use std::io::BufRead;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rocprof_xplane::xplane::proto::XSpace;
use rocprof_xplane::xplane::read_xspace;
use support::paths::tool_library;
use support::sim::Direct;
use support::truth::read_truth;
use support::xspace::counters;

/// The 32-thread storm at `repeat` iterations per thread, cut every 3,000 records and merged
/// at exit, writing run `run` under `dir`; its ground truth goes to `truth` (not checked by the
/// driver: these runs lose records on purpose).
fn storm_windows(tmp: &Path, dir: &Path, run: &str, truth: &Path) -> Direct {
    // Paced: unpaced, a machine with nothing else running can deliver the whole storm before
    // the first cut, and a test of what happens to a window at a later cut has none.
    let scenario = support::paths::paced_scenario(tmp, "thread-storm.toml", 25000, 250, 200);
    Direct::new(&scenario, "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", dir)
        .env("ROCPROF_XPLANE_RUN_NAME", run)
        .env("ROCPROF_XPLANE_WINDOW_EVENTS", "3000")
        .env("ROCPROF_XPLANE_WINDOW_MERGE", "1")
        .arg("--ground-truth")
        .arg(truth.to_str().unwrap())
}

/// The records of the kinds a window counts, as the runtime emitted them, with the HIP calls
/// whose records the tool built from their callbacks.
fn emitted_records(truth: &Path) -> u64 {
    let truth = read_truth(truth);
    let e = &truth["delivery"]["emitted_per_kind"];
    [
        "KERNEL_DISPATCH",
        "MEMORY_COPY",
        "HIP_RUNTIME_API",
        "MARKER_CORE_API",
    ]
    .iter()
    .map(|k| e[*k].as_u64().unwrap_or(0))
    .sum::<u64>()
        + support::truth::calls_by_callbacks(&truth)
}

/// The records of those kinds a profile holds.
fn held_records(s: &XSpace) -> u64 {
    let c = counters(s);
    c["kernel_records"] + c["memcpy_records"] + c["api_records"] + c["marker_records"]
}

/// Everything under `dir`, files only, hidden ones included.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Window directories (`<run>_wNNNN`) left under `dir`.
fn windows_left(dir: &Path, run: &str) -> Vec<String> {
    std::fs::read_dir(dir.join("plugins/profile"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("{run}_w")))
        .collect()
}

/// A window whose write fails once (the disk full at its cut, free at the next) is written
/// again at the next cut under its own number: the merged profile holds every record the
/// runtime emitted, and says of no loss. Before, the window was dropped with one error line,
/// the profile lacked its span with no word of it, and the next window took its number.
#[test]
fn a_window_that_cannot_be_written_is_written_again_at_the_next_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, truth) = (tmp.path().join("logs"), tmp.path().join("truth.json"));
    let out = storm_windows(tmp.path(), &dir, "r", &truth)
        .env("ROCPROF_XPLANE_TEST_FAIL_WRITES", "2")
        .output();
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    // Which windows fit depends on where the cuts fall (a window holds what was delivered
    // when its count was seen): at least one does not.
    assert!(stderr.contains("cannot write capture window "), "{stderr}");
    assert!(!stderr.contains("the profile is partial"), "{stderr}");
    let merged = support::xspace::read_one(&dir, "r");
    assert_eq!(held_records(&merged), emitted_records(&truth), "{stderr}");
    assert_eq!(counters(&merged)["windows_lost"], 0);
    assert!(windows_left(&dir, "r").is_empty(), "{stderr}");
}

/// A window that fails again at its retry is lost, and said: in the profile (a warning naming
/// it, its span and its records; `windows_lost` and `window_records_lost`) and on stderr at
/// exit. What the profile holds plus what it says it lost is every record emitted. Its number
/// is never given again: the next window is the one after it.
#[test]
fn a_window_lost_for_good_is_said_in_the_profile_and_at_exit() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, truth) = (tmp.path().join("logs"), tmp.path().join("truth.json"));
    let out = storm_windows(tmp.path(), &dir, "r", &truth)
        .env("ROCPROF_XPLANE_TEST_FAIL_WRITES", "2,2")
        .env("ROCPROF_XPLANE_LOG", "debug")
        .output();
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    let merged = support::xspace::read_one(&dir, "r");
    let c = counters(&merged);
    assert_eq!(c["windows_lost"], 1, "{stderr}");
    assert!(c["window_records_lost"] > 0);
    assert_eq!(
        held_records(&merged) + c["window_records_lost"],
        emitted_records(&truth),
        "{stderr}"
    );
    let said: Vec<&String> = merged
        .warnings
        .iter()
        .filter(|w| w.starts_with("capture window 2 (") && w.contains("could not be written"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", merged.warnings);
    assert!(
        said[0].contains(&format!("{} records", c["window_records_lost"])),
        "{said:?}"
    );
    assert!(
        stderr.contains("rocprof-xplane: the profile is partial: capture window 2 ("),
        "{stderr}"
    );
    // Its number is never given to another window: no file is written as window 2, and the
    // window after it is numbered 3 or more.
    let written: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("rocprof-xplane: wrote") || l.contains(" written to "))
        .collect();
    assert!(!written.iter().any(|l| l.contains("_w0002/")), "{stderr}");
    assert!(written.iter().any(|l| l.contains("_w0003/")), "{stderr}");
}

/// When every window cut while the program runs fails, the profile written at exit is the
/// last window alone: it names every window it lacks, and the records it holds plus those it
/// names are every record emitted. Before, it was written under the run's own name with no
/// word of the rest, looking complete.
#[test]
fn a_run_whose_windows_all_failed_says_so_in_its_one_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, truth) = (tmp.path().join("logs"), tmp.path().join("truth.json"));
    let out = storm_windows(tmp.path(), &dir, "r", &truth)
        .env("ROCPROF_XPLANE_TEST_FAIL_WRITES", "*")
        .output();
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    let merged = support::xspace::read_one(&dir, "r");
    let c = counters(&merged);
    assert!(c["windows_lost"] >= 2, "{stderr}");
    let named = merged
        .warnings
        .iter()
        .filter(|w| w.starts_with("capture window ") && w.contains("could not be written"))
        .count() as u64;
    assert_eq!(named, c["windows_lost"], "{:?}", merged.warnings);
    assert_eq!(
        held_records(&merged) + c["window_records_lost"],
        emitted_records(&truth)
    );
    assert_eq!(
        stderr
            .matches("rocprof-xplane: the profile is partial:")
            .count() as u64,
        c["windows_lost"],
        "{stderr}"
    );
}

/// A real full disk (a 64 KiB tmpfs, where the machine lets a test mount one): a small
/// window may fit, larger ones do not. No hidden temporary is left, and stderr names
/// each window lost (a profile under the run's own name, if the small last window and the
/// merge fit, names them too: `a_window_lost_for_good_is_said_in_the_profile_and_at_exit`).
#[test]
fn on_a_full_disk_nothing_looks_complete_and_no_temporary_is_left() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, truth) = (tmp.path().join("logs"), tmp.path().join("truth.json"));
    std::fs::create_dir_all(&dir).unwrap();
    let Some(out) = storm_windows(tmp.path(), &dir, "r", &truth).output_on_tiny_tmpfs(&dir, 65536)
    else {
        eprintln!("skipped: no private tmpfs here");
        return;
    };
    let stderr = support::stderr_of(&out);
    let stdout = support::stdout_of(&out);
    assert!(out.status.success(), "{stderr}");
    let left = stdout.split("--- left:").nth(1).unwrap_or("").trim();
    let profiles = format!("{}/plugins/profile/", dir.display());
    for f in left.lines() {
        let rel = f.strip_prefix(&profiles).unwrap_or(f);
        let (run, name) = rel.split_once('/').unwrap_or(("", rel));
        assert!(
            run.starts_with('r') && !name.starts_with('.'),
            "{f} left on the full disk\n{stderr}"
        );
    }
    // Which windows fit depends on where the cuts fall (a window holds what was delivered
    // when its count was seen): at least one does not.
    assert!(stderr.contains("cannot write capture window "), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(
        stderr.contains("rocprof-xplane: the profile is partial: capture window "),
        "{stderr}"
    );
}

/// Two processes, one run name, a file name without `%pid%`, windows merged at exit: each
/// writes its own windows (the pid in their names) and its own profile. One takes the run's
/// name, the other says it cannot and writes `<name>_<pid>`: two complete profiles, each with
/// every record its runtime emitted. Before, both merged into one file mixing both processes'
/// windows, and one process's own window was lost.
#[test]
fn two_processes_of_one_name_never_share_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logs");
    let truths = [tmp.path().join("t1.json"), tmp.path().join("t2.json")];
    let children: Vec<_> = truths
        .iter()
        .map(|t| {
            storm_windows(tmp.path(), &dir, "r", t)
                .env("ROCPROF_XPLANE_OUTPUT_FILE", "node")
                .spawn()
        })
        .collect();
    let mut stderr = String::new();
    for c in children {
        let out = c.wait_with_output().unwrap();
        stderr += &support::stderr_of(&out);
        assert!(out.status.success(), "{stderr}");
    }
    let files = support::paths::profiles(&dir, "r");
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 2, "{names:?}\n{stderr}");
    assert!(names.contains(&"node.xplane.pb".to_string()), "{names:?}");
    assert!(stderr.contains("is another process's"), "{stderr}");
    let mut held: Vec<u64> = files
        .iter()
        .map(|f| held_records(&read_xspace(f).unwrap()))
        .collect();
    let mut want: Vec<u64> = truths.iter().map(|t| emitted_records(t)).collect();
    held.sort_unstable();
    want.sort_unstable();
    assert_eq!(held, want, "{names:?}\n{stderr}");
    assert!(windows_left(&dir, "r").is_empty(), "{stderr}");
    // Nor is the lock beside the profile left behind.
    let hidden: Vec<PathBuf> = files_under(&dir.join("plugins/profile/r"))
        .into_iter()
        .filter(|f| f.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

/// A process SIGKILLed while it holds the run's file name leaves its lock file
/// (`.<host>.xplane.pb.lock`) behind, but not its lock: the lock is an `flock`, which the kernel
/// releases when the process dies. The next run of that name reuses the file silently, takes
/// the name (no "another process's" line, no `_<pid>` file) and writes a complete profile.
#[test]
fn a_lock_left_by_a_killed_process_never_blocks_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logs");
    let run_dir = support::paths::run_dir(&dir, "r");
    let lock = run_dir.join(".node.xplane.pb.lock");
    // A tenth of the storm: its first window (and the lock) comes about a second after start,
    // the run ends ten times later. The whole storm spends most of the lock's 60 s bound
    // building its replay plan on a loaded machine.
    let scenario = support::paths::scaled_scenario(tmp.path(), "thread-storm.toml", 25000, 2500);
    let mut killed = Direct::new(&scenario, "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", &dir)
        .env("ROCPROF_XPLANE_RUN_NAME", "r")
        .env("ROCPROF_XPLANE_OUTPUT_FILE", "node")
        .env("ROCPROF_XPLANE_WINDOW_EVENTS", "3000")
        .env("ROCPROF_XPLANE_WINDOW_MERGE", "1")
        .spawn();
    // The name is claimed with the process's first window.
    let began = Instant::now();
    while !lock.exists() {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "no lock after 60 s"
        );
        if let Some(status) = killed.try_wait().unwrap() {
            panic!("the storm ended ({status}) before its first window");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    killed.kill().unwrap();
    let status = killed.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
    assert!(lock.exists(), "the killed process's lock file stays");
    assert!(support::paths::profiles(&dir, "r").is_empty());

    let truth = tmp.path().join("truth.json");
    let out = storm_windows(tmp.path(), &dir, "r", &truth)
        .env("ROCPROF_XPLANE_OUTPUT_FILE", "node")
        .output();
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("another process's"), "{stderr}");
    let files = support::paths::profiles(&dir, "r");
    assert_eq!(files, [run_dir.join("node.xplane.pb")], "{stderr}");
    assert_eq!(
        held_records(&read_xspace(&files[0]).unwrap()),
        emitted_records(&truth),
        "{stderr}"
    );
    assert!(!lock.exists(), "removed at exit");
}

/// A second SIGTERM while the windows are being written and merged at exit ends the process
/// at once, as documented, and it leaves no hidden temporary file (the file being written has
/// no name until it is complete) and says where the windows are kept and the command that
/// merges them, which then makes the one profile. Before, a hidden temporary of the size of
/// the write was left and the line did not mention the windows.
#[test]
fn a_second_sigterm_during_the_exit_merge_keeps_the_windows_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, truth) = (tmp.path().join("logs"), tmp.path().join("truth.json"));
    let scenario = support::paths::scaled_scenario(tmp.path(), "thread-storm.toml", 25000, 2500);
    let mut child = Direct::new(&scenario, "1.0.0")
        .signals_at_default()
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", &dir)
        .env("ROCPROF_XPLANE_RUN_NAME", "r")
        .env("ROCPROF_XPLANE_WINDOW_EVENTS", "100000")
        .env("ROCPROF_XPLANE_WINDOW_MERGE", "1")
        .env("ROCPROF_XPLANE_LOG", "debug")
        .arg("--ground-truth")
        .arg(truth.to_str().unwrap())
        .spawn();
    let pid = child.id() as i32;
    let mut stdout = child.stdout.take().unwrap();
    let drain = std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let lines = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut stderr = String::new();
    let mut signalled = false;
    for line in lines.lines() {
        let line = line.unwrap();
        // The exit begins: the last window's flush, join and write, then the merge follow.
        if !signalled && line.contains("finalize: start") {
            for _ in 0..2 {
                // SAFETY: signalling our own child process, still running (it is writing).
                unsafe { libc::kill(pid, libc::SIGTERM) };
                std::thread::sleep(Duration::from_millis(20));
            }
            signalled = true;
        }
        stderr += &line;
        stderr.push('\n');
    }
    let status = child.wait().unwrap();
    let _ = drain.join();
    assert!(signalled, "{stderr}");
    if status.success() {
        // The exit was done before the signals landed (a very fast machine): nothing to see.
        eprintln!("skipped: the exit ended before the second signal");
        return;
    }
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{stderr}");
    if stderr.contains("the capture windows were merged into") {
        // The merge was done (its windows removed) before the second signal landed.
        eprintln!("skipped: the merge ended before the second signal");
        return;
    }
    let hidden: Vec<PathBuf> = files_under(&dir)
        .into_iter()
        .filter(|f| f.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}\n{stderr}");
    let merge = format!("`rocprof-xplane merge {} r`", dir.display());
    assert!(stderr.contains(&merge), "{stderr}");
    assert!(
        stderr.contains("the capture windows are kept unmerged"),
        "{stderr}"
    );
    assert!(!windows_left(&dir, "r").is_empty(), "{stderr}");
    let started = Instant::now();
    let out = std::process::Command::new(support::paths::cli())
        .arg("merge")
        .arg(&dir)
        .arg("r")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    assert!(started.elapsed() < Duration::from_secs(120));
    assert_eq!(support::paths::profiles(&dir, "r").len(), 1);
}
