//! Bad configuration never harms the profiled program. A bad `ROCPROF_XPLANE_*` value
//! gives one clear stderr line naming the variable, the default is used and the trace is still
//! written; an output directory that cannot be created is reported, and the program still exits
//! normally. The program is the simulator driver replaying a scenario with our tool loaded
//! through `ROCP_TOOL_LIBRARIES` (simulated runtime: test infrastructure, not hardware).

mod support;

use rocprof_xplane::xplane::read_xspace;
use support::paths::{builtin, profiles, tool_library};
use support::sim::Direct;
use support::truth::{read_truth, truth_kernels};
use support::xspace::*;
use support::{stderr_of, u};

/// The stderr line about `var`; it must show the bad value too.
fn complaint<'a>(stderr: &'a str, var: &str, value: &str) -> &'a str {
    let line = stderr
        .lines()
        .find(|l| l.contains(var))
        .unwrap_or_else(|| panic!("no message naming {var}:\n{stderr}"));
    assert!(
        line.contains(value),
        "the message about {var} does not show {value:?}: {line}"
    );
    line
}

#[test]
fn bad_values_are_reported_and_defaults_used() {
    let bad = [
        ("ROCPROF_XPLANE_BUFFER_SIZE", "banana"),
        ("ROCPROF_XPLANE_DOMAINS", "nonsense"),
        ("ROCPROF_XPLANE_DISABLE", "maybe"),
        ("ROCPROF_XPLANE_LOG", "loud"),
        ("ROCPROF_XPLANE_WRITE_THREADS", "lots"),
    ];
    for sdk in ["0.6.0", "1.0.0"] {
        let tmp = tempfile::tempdir().unwrap();
        let truth_path = tmp.path().join("truth.json");
        let mut d = Direct::new(&builtin("tiny.toml"), sdk)
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", tmp.path())
            .env("ROCPROF_XPLANE_RUN_NAME", "bad-env")
            .ground_truth(&truth_path);
        for (k, v) in bad {
            d = d.env(k, v);
        }
        let out = d.output();
        let stderr = stderr_of(&out);
        assert!(
            out.status.success(),
            "{sdk}: the program must exit 0: {}\n{stderr}",
            out.status
        );
        for (var, value) in bad {
            let line = complaint(&stderr, var, value);
            assert!(
                line.contains("default"),
                "{sdk}: {var}: the message should say what is used: {line}"
            );
        }

        // The trace is written with the defaults: every domain traced, as the truth says.
        let files = profiles(tmp.path(), "bad-env");
        assert_eq!(
            files.len(),
            1,
            "{sdk}: trace not written with defaults:\n{stderr}"
        );
        let s = read_xspace(&files[0]).unwrap();
        let plan = &read_truth(&truth_path)["plan"];
        assert_eq!(
            count_by_name(kernels(&s)),
            truth_kernels(plan),
            "{sdk}: kernels"
        );
        assert_eq!(
            memcpys(&s).len() as u64,
            u(&plan["totals"]["memory_copies"]),
            "{sdk}: copies"
        );
        assert_eq!(
            host_api_events(&s).len() as u64,
            support::truth::truth_traced_hip_calls(plan),
            "{sdk}: HIP calls"
        );
        // Default-size buffers: the runtime's delivery shows the tool's default request.
        let sizes: Vec<u64> = read_truth(&truth_path)["delivery"]["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| u(&b["size"]))
            .collect();
        assert!(
            sizes
                .iter()
                .all(|&n| n == rocprof_xplane::config::DEFAULT_BUFFER_SIZE as u64),
            "{sdk}: buffer sizes {sizes:?}"
        );
    }
}

#[test]
fn unwritable_output_directory_is_reported_and_the_program_exits_normally() {
    for sdk in ["0.6.0", "1.0.0"] {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("not-a-directory");
        std::fs::write(&file, b"a regular file").unwrap();
        let logs = file.join("logs");
        let truth_path = tmp.path().join("truth.json");
        let out = Direct::new(&builtin("tiny.toml"), sdk)
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", &logs)
            .env("ROCPROF_XPLANE_RUN_NAME", "nowhere")
            .ground_truth(&truth_path)
            .output();
        let stderr = stderr_of(&out);
        assert!(
            out.status.success(),
            "{sdk}: the program must exit 0: {}\n{stderr}",
            out.status
        );
        let line = stderr
            .lines()
            .find(|l| l.contains("rocprof-xplane") && l.contains(&*logs.to_string_lossy()))
            .unwrap_or_else(|| panic!("{sdk}: no error naming {}:\n{stderr}", logs.display()));
        assert!(
            line.to_ascii_lowercase().contains("error") || line.contains("cannot"),
            "{sdk}: {line}"
        );
        // The program itself ran to completion (its own output, the ground truth, is there).
        assert!(
            read_truth(&truth_path)["plan"]["totals"]["kernel_dispatches"]
                .as_u64()
                .unwrap()
                > 0
        );
        assert_eq!(
            std::fs::read(&file).unwrap(),
            b"a regular file",
            "{sdk}: the file was touched"
        );
    }
}

/// A full filesystem under the output directory: the write fails with ENOSPC, the error is
/// reported on one line naming the path, the program exits 0 with its own output intact, and no
/// partial `.xplane.pb` (nor the temporary file) is left behind. Runs in a private mount
/// namespace with a 64 KiB tmpfs (root needed, as in CI); elsewhere it says so and returns.
#[test]
fn a_full_filesystem_is_reported_and_leaves_no_partial_file() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let truth_path = tmp.path().join("truth.json");
    // 5,128 dispatches: about 180 KB of XPlane, far more than the 64 KiB the tmpfs holds.
    let out = Direct::new(&builtin("graph-launch.toml"), "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", &logs)
        .env("ROCPROF_XPLANE_RUN_NAME", "full")
        .ground_truth(&truth_path)
        .output_on_tiny_tmpfs(&logs, 64 * 1024);
    let Some(out) = out else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs as root and must be able to mount a private tmpfs"
        );
        eprintln!("skipped: no private mount namespace here (needs root and unshare)");
        return;
    };
    let stderr = stderr_of(&out);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the program must exit 0: {}\n{stderr}",
        out.status
    );
    let line = stderr
        .lines()
        .find(|l| l.contains("rocprof-xplane") && l.contains(&*logs.to_string_lossy()))
        .unwrap_or_else(|| panic!("no error naming the output path:\n{stderr}"));
    assert!(line.contains("No space left on device"), "{line}");
    let left: Vec<&str> = stdout
        .split("--- left:")
        .nth(1)
        .unwrap_or("")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(
        left.is_empty(),
        "files left on the full filesystem: {left:?}"
    );
    assert!(
        u(&read_truth(&truth_path)["plan"]["totals"]["kernel_dispatches"]) > 5000,
        "the program's own output"
    );
}

#[test]
fn a_run_name_that_is_a_path_is_refused_and_the_default_used() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let out = Direct::new(&builtin("tiny.toml"), "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", &logs)
        .env("ROCPROF_XPLANE_RUN_NAME", "../escaped")
        .output();
    let stderr = stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    complaint(&stderr, "ROCPROF_XPLANE_RUN_NAME", "../escaped");
    // Nothing escaped the log directory; the profile is in one (default-named) run directory.
    assert!(!logs.join("plugins/escaped").exists() && !tmp.path().join("escaped").exists());
    let runs: Vec<_> = std::fs::read_dir(logs.join("plugins/profile"))
        .unwrap_or_else(|e| panic!("no run directory written: {e}\n{stderr}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(profiles(&logs, &runs[0]).len(), 1, "{stderr}");
}

/// Only the HIP calls the output needs are buffer-traced by default (launches, copies, memsets,
/// syncs, events, streams, memory): `markers.toml`'s `hipGetDevice` is not on the host line and
/// the runtime emitted no record for it (the subscription, not a filter after the fact);
/// `ROCPROF_XPLANE_HIP_API=all` brings every call back. Both SDK families, each run through the
/// accounting check (records emitted = events written).
#[test]
fn only_needed_hip_calls_are_traced_unless_all_is_asked() {
    let names = |r: &support::sim::Run| -> Vec<String> {
        support::xspace::host_api_events(&r.space)
            .iter()
            .map(|e| e.name().to_string())
            .collect()
    };
    for sdk in ["0.6.0", "1.0.0"] {
        let default = support::sim::simulate(&builtin("markers.toml"), sdk, &[]);
        let all = support::sim::simulate(
            &builtin("markers.toml"),
            sdk,
            &[("ROCPROF_XPLANE_HIP_API", "all")],
        );
        let (d, a) = (names(&default), names(&all));
        assert!(!d.iter().any(|n| n == "hipGetDevice"), "{sdk}: {d:?}");
        assert!(a.iter().any(|n| n == "hipGetDevice"), "{sdk}: {a:?}");
        assert!(d.iter().any(|n| n == "hipLaunchKernel"), "{sdk}: {d:?}");
        assert_eq!(
            d.len() + a.iter().filter(|n| *n == "hipGetDevice").count(),
            a.len(),
            "{sdk}: only the unneeded calls differ"
        );
        let emitted = |r: &support::sim::Run| {
            r.delivery()["emitted_per_kind"]["HIP_RUNTIME_API"]
                .as_u64()
                .unwrap_or(0)
        };
        assert!(
            emitted(&default) < emitted(&all),
            "{sdk}: the runtime still emitted them"
        );
    }
}

/// `scenario` under `sdk` with the calls the tool takes from their callbacks by default
/// (`built`), and with `setting=buffer` (`buffered`): some were taken from callbacks (the
/// simulator's `by_callbacks` count of them), none with the records buffered, the runtime
/// buffered fewer of buffer kind `kind`, and each call was recorded once, one way or the other.
/// Returns the runs' name and both runs.
fn recorded_once(
    scenario: &str,
    sdk: &str,
    setting: &str,
    kind: &str,
    by_callbacks: &str,
) -> (String, support::sim::Run, support::sim::Run) {
    let what = format!("{scenario} --sdk {sdk}");
    let built = support::sim::simulate(&builtin(scenario), sdk, &[]);
    let buffered = support::sim::simulate(&builtin(scenario), sdk, &[(setting, "buffer")]);
    let emitted =
        |r: &support::sim::Run| r.delivery()["emitted_per_kind"][kind].as_u64().unwrap_or(0);
    let taken = |r: &support::sim::Run| u(&r.delivery()[by_callbacks]);
    assert!(
        taken(&built) > 0,
        "{what}: no call taken from its callbacks"
    );
    assert_eq!(taken(&buffered), 0, "{what}");
    assert!(
        emitted(&built) < emitted(&buffered),
        "{what}: the runtime still buffered every call"
    );
    assert_eq!(
        emitted(&built) + taken(&built),
        emitted(&buffered),
        "{what}: each call recorded once, one way or the other"
    );
    (what, built, buffered)
}

/// By default the records of the HIP calls the tool subscribes callbacks to are built from their
/// ENTER and EXIT callbacks, so the runtime buffers none for them (its per-call buffered record
/// is the larger part of what a call costs through the runtime, `ci/bench-c-driver.sh`): only
/// the calls outside the table of HIP operations are buffer-traced. The profile's HIP calls are
/// those of `ROCPROF_XPLANE_HIP_API_RECORDS=buffer`, with the same names, ids, times and
/// durations. Both SDK families; each run also through the accounting check.
#[test]
fn hip_call_records_come_from_callbacks_and_match_the_buffered_ones() {
    let calls = |r: &support::sim::Run| -> Vec<(String, u64, i64, i64)> {
        let evs = support::xspace::host_api_events(&r.space);
        let first = evs.iter().map(|e| e.start_ps()).min().unwrap_or(0);
        let mut v: Vec<_> = evs
            .iter()
            .map(|e| {
                (
                    e.name().to_string(),
                    e.correlation_id().unwrap_or(0),
                    e.start_ps() - first,
                    e.event.duration_ps,
                )
            })
            .collect();
        v.sort();
        v
    };
    for sdk in ["0.6.0", "1.0.0"] {
        for scenario in ["memory.toml", "sync-deps.toml", "markers.toml"] {
            let (what, built, buffered) = recorded_once(
                scenario,
                sdk,
                "ROCPROF_XPLANE_HIP_API_RECORDS",
                "HIP_RUNTIME_API",
                "hip_calls_by_callbacks",
            );
            let (b, f) = (calls(&built), calls(&buffered));
            assert!(!b.is_empty(), "{what}");
            assert_eq!(b, f, "{what}: the same calls, ids, times and durations");
        }
    }
}

/// By default roctx ranges and marks take their times from the roctx callbacks the tool
/// receives anyway, so the runtime buffers no record of the roctx calls they cover (a record per
/// call, stamped and emplaced under the buffer's lock on the calling thread, that the join read
/// only for times the callbacks already had). The profile's roctx events are those of
/// `ROCPROF_XPLANE_ROCTX_RECORDS=buffer`: the same names, starts and ends (a range from its
/// push's or start's entry to its pop's or stop's exit, as their buffered records say; a start
/// acts at its exit, where its id is known, its entry's time kept for it), and a mark an
/// instant at its call's entry, where the buffered record gave it the call's duration.
/// Each roctx call is counted once, one way or the other. Both SDK families; each run also
/// through the accounting check.
#[test]
fn roctx_ranges_take_their_times_from_callbacks_and_match_the_buffered_ones() {
    // (name, start, end, open at the end), in ps from the first HIP call (the same in both
    // runs: HIP calls' records come from their callbacks either way).
    let roctx = |r: &support::sim::Run| -> Vec<(String, i64, i64, bool)> {
        let origin = host_api_events(&r.space)
            .iter()
            .map(|e| e.start_ps())
            .min()
            .expect("HIP calls");
        let mut v: Vec<_> = events(plane(&r.space, "/host:CPU"))
            .into_iter()
            .filter(|e| e.line.name.contains("/ROCTX"))
            .map(|e| {
                let start = e.start_ps() - origin;
                let open = e.raw_stat("open_at_end").is_some();
                (
                    e.name().to_string(),
                    start,
                    start + e.event.duration_ps,
                    open,
                )
            })
            .collect();
        v.sort();
        v
    };
    for sdk in ["0.6.0", "1.0.0"] {
        for scenario in ["markers.toml", "train-loop.toml"] {
            let (what, built, buffered) = recorded_once(
                scenario,
                sdk,
                "ROCPROF_XPLANE_ROCTX_RECORDS",
                "MARKER_CORE_API",
                "roctx_calls_by_callbacks",
            );
            assert_eq!(
                counter(&built.space, "marker_records"),
                counter(&buffered.space, "marker_records"),
                "{what}: the roctx calls counted alike"
            );
            let (b, f) = (roctx(&built), roctx(&buffered));
            assert!(!b.is_empty(), "{what}");
            let names = |v: &[(String, i64, i64, bool)]| -> Vec<String> {
                let mut n: Vec<String> = v.iter().map(|e| e.0.clone()).collect();
                n.sort();
                n
            };
            assert_eq!(names(&b), names(&f), "{what}: the same ranges and marks");
            let mut instants = 0;
            for (x, y) in b.iter().zip(&f) {
                let mark = x.2 == x.1;
                instants += usize::from(mark);
                // A range still open at exit ends at each run's own exit; a mark is an
                // instant, whatever its call's duration.
                let ends = x.3 || x.2 == y.2 || (mark && y.2 >= y.1);
                assert!(
                    x.1 == y.1 && ends,
                    "{what}: {x:?} beside the buffered {y:?}"
                );
            }
            let marks = built.truth["plan"]["markers"]["mark"].as_u64().unwrap_or(0) as usize;
            assert_eq!(instants, marks, "{what}: the marks are instants");
        }
    }
}

/// The memory ceiling: with `ROCPROF_XPLANE_MAX_MEMORY=64k` the graph-launch scenario (5,128
/// dispatches) overflows what the tool may hold. The program still succeeds; records past the
/// ceiling are dropped and counted (`memory_limit_dropped`, a file warning, one stderr line at
/// exit), and what was kept plus what was dropped is everything the runtime delivered (the
/// accounting check of every simulated run). Without the variable nothing is dropped.
#[test]
fn the_memory_ceiling_drops_and_counts_instead_of_growing() {
    for sdk in ["0.6.0", "1.0.0"] {
        let r = support::sim::simulate(
            &builtin("graph-launch.toml"),
            sdk,
            &[("ROCPROF_XPLANE_MAX_MEMORY", "64k")],
        );
        let dropped = counter(&r.space, "memory_limit_dropped");
        assert!(dropped > 0, "{sdk}: nothing dropped at a 64 KiB ceiling");
        let kept: u64 = [
            "api_records",
            "kernel_records",
            "memcpy_records",
            "marker_records",
        ]
        .iter()
        .map(|c| counter(&r.space, c))
        .sum();
        let emitted: u64 = r.delivery()["emitted_per_kind"]
            .as_object()
            .unwrap()
            .values()
            .map(u)
            .sum::<u64>()
            + u(&r.delivery()["hip_calls_by_callbacks"])
            + r.delivery()["roctx_calls_by_callbacks"]
                .as_u64()
                .unwrap_or(0);
        assert_eq!(kept + dropped, emitted, "{sdk}: kept + dropped = delivered");
        assert!(
            r.stderr.contains("memory ceiling") && r.stderr.contains(&dropped.to_string()),
            "{sdk}: {}",
            r.stderr
        );
        assert!(
            r.space
                .warnings
                .iter()
                .any(|w| w.contains("memory ceiling") && w.contains(&dropped.to_string())),
            "{sdk}: {:?}",
            r.space.warnings
        );
        let unlimited = support::sim::simulate(&builtin("graph-launch.toml"), sdk, &[]);
        assert_eq!(
            counter(&unlimited.space, "memory_limit_dropped"),
            0,
            "{sdk}"
        );
        assert_eq!(
            kernels(&unlimited.space).len() as u64,
            u(&unlimited.delivery()["emitted_per_kind"]["KERNEL_DISPATCH"]),
            "{sdk}"
        );
    }
}

/// `rocprof-xplane run` with rocprofv3's spelling: `--kernel-trace` alone traces kernels only
/// (no HIP API calls on the host plane), `-d` is the output directory. The "program" is the
/// simulated runtime's driver on a scenario (test infrastructure), found through a stand-in
/// ROCm directory so the launcher's ROCm check passes.
#[test]
fn run_with_rocprofv3_flags_traces_what_they_name() {
    let tmp = tempfile::tempdir().unwrap();
    let rocm = tmp.path().join("rocm");
    std::fs::create_dir_all(rocm.join("lib")).unwrap();
    std::fs::write(rocm.join("lib/librocprofiler-sdk.so"), b"").unwrap();
    let logs = tmp.path().join("logs");
    let mut cmd = std::process::Command::new(support::paths::cli());
    for (k, _) in std::env::vars() {
        if k.starts_with("ROCPROF_XPLANE_") || k == "ROCP_TOOL_LIBRARIES" {
            cmd.env_remove(k);
        }
    }
    let out = cmd
        .env("ROCM_PATH", &rocm)
        .args(["run", "--kernel-trace", "--run-name", "v3flags", "-d"])
        .arg(&logs)
        .arg("--")
        .arg(support::paths::driver())
        .arg(builtin("tiny.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let files = profiles(&logs, "v3flags");
    assert_eq!(files.len(), 1, "{files:?}\n{}", stderr_of(&out));
    let s = read_xspace(&files[0]).unwrap();
    assert_eq!(kernels(&s).len(), 2, "tiny.toml's two kernels");
    assert!(host_api_events(&s).is_empty(), "HIP API not traced");
}

/// `ROCPROF_XPLANE_WRITE_THREADS` reaches the writer: on one thread and on three (the device
/// planes of a 4-GPU run built beside the host plane), the profile holds every kernel of every
/// GPU, as the runtime reported them; by default the tool says what it chose.
#[test]
fn the_planes_are_whole_on_any_number_of_writing_threads() {
    for threads in [Some("1"), Some("3"), None] {
        let tmp = tempfile::tempdir().unwrap();
        let truth_path = tmp.path().join("truth.json");
        let mut d = Direct::new(&builtin("occupancy.toml"), "1.0.0")
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", tmp.path())
            .env("ROCPROF_XPLANE_RUN_NAME", "threads")
            .env("ROCPROF_XPLANE_LOG", "debug")
            .ground_truth(&truth_path);
        if let Some(n) = threads {
            d = d.env("ROCPROF_XPLANE_WRITE_THREADS", n);
        }
        let out = d.output();
        let stderr = stderr_of(&out);
        assert!(out.status.success(), "{threads:?}: {stderr}");
        let said = match threads {
            Some(n) => format!("planes built on {n} threads, as ROCPROF_XPLANE_WRITE_THREADS asks"),
            None => "planes built on ".to_string(),
        };
        assert!(
            stderr.contains(&said),
            "{threads:?}: no {said:?} in\n{stderr}"
        );
        let s = read_xspace(&profiles(tmp.path(), "threads")[0]).unwrap();
        let gpus = s
            .planes
            .iter()
            .filter(|p| p.name.starts_with(GPU_PREFIX))
            .count();
        assert_eq!(gpus, 4, "{threads:?}");
        let plan = &read_truth(&truth_path)["plan"];
        assert_eq!(
            count_by_name(kernels(&s)),
            truth_kernels(plan),
            "{threads:?}: kernels"
        );
    }
}

/// The tool's one line about the value of `var` (`VAR="…"` or `VAR: …`; there must be exactly
/// one), checked short and whole: no control character.
fn the_line<'a>(stderr: &'a str, var: &str) -> &'a str {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            l.starts_with("rocprof-xplane: ")
                && (l.contains(&format!("{var}=")) || l.contains(&format!("{var}:")))
        })
        .collect();
    assert_eq!(lines.len(), 1, "one line about {var}:\n{stderr}");
    assert!(
        lines[0].len() < 500,
        "{} bytes: {}",
        lines[0].len(),
        lines[0]
    );
    assert!(!lines[0].chars().any(char::is_control), "{}", lines[0]);
    lines[0]
}

/// Runs `tiny.toml` with the tool and `env` (`ROCPROF_XPLANE_OUTPUT_DIR` is `dir/logs` unless
/// `env` sets it), in `dir`; the program must exit 0.
fn run_tiny(
    dir: &std::path::Path,
    env: &[(&str, &std::ffi::OsStr)],
) -> (String, serde_json::Value) {
    let truth_path = dir.join("truth.json");
    let mut d = Direct::new(&builtin("tiny.toml"), "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .current_dir(dir)
        .ground_truth(&truth_path);
    if !env.iter().any(|(k, _)| *k == "ROCPROF_XPLANE_OUTPUT_DIR") {
        d = d.env("ROCPROF_XPLANE_OUTPUT_DIR", dir.join("logs"));
    }
    for (k, v) in env {
        d = d.env(k, v);
    }
    let out = d.output();
    let stderr = stderr_of(&out);
    assert!(
        out.status.success(),
        "the program must exit 0: {}\n{stderr}",
        out.status
    );
    (stderr, read_truth(&truth_path))
}

/// The run directories written under `logs`.
fn runs(logs: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(logs.join("plugins/profile"))
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `WINDOW_MERGE=<typo>`: the line names the default this run really has (on: nothing else is
/// set), and the profile is written.
#[test]
fn a_window_merge_typo_names_the_real_default() {
    let tmp = tempfile::tempdir().unwrap();
    let (stderr, _) = run_tiny(
        tmp.path(),
        &[
            ("ROCPROF_XPLANE_WINDOW_MERGE", "maybe".as_ref()),
            ("ROCPROF_XPLANE_RUN_NAME", "typo".as_ref()),
        ],
    );
    assert_eq!(
        the_line(&stderr, "ROCPROF_XPLANE_WINDOW_MERGE"),
        "rocprof-xplane: ROCPROF_XPLANE_WINDOW_MERGE=\"maybe\" is invalid (expected 1/0, \
         true/false, yes/no, on/off); using default 1 (no window rule, START_DELAY, DURATION or \
         SERVER is set)"
    );
    assert_eq!(
        profiles(&tmp.path().join("logs"), "typo").len(),
        1,
        "{stderr}"
    );
}

/// An output directory that is not UTF-8 gets the profile (not `./rocprof-xplane-logs`); a
/// `LOG` value that is not UTF-8 is one line, escaped, and the default used.
#[test]
fn bytes_that_are_not_utf8_are_a_path_or_one_line() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp
        .path()
        .join(std::ffi::OsStr::from_bytes(b"logs-caf\xe9"));
    let (stderr, _) = run_tiny(
        tmp.path(),
        &[
            ("ROCPROF_XPLANE_OUTPUT_DIR", logs.as_os_str()),
            ("ROCPROF_XPLANE_RUN_NAME", "latin1".as_ref()),
            (
                "ROCPROF_XPLANE_LOG",
                std::ffi::OsStr::from_bytes(b"lo\xffud"),
            ),
        ],
    );
    assert_eq!(
        the_line(&stderr, "ROCPROF_XPLANE_LOG"),
        "rocprof-xplane: ROCPROF_XPLANE_LOG=\"lo\\xffud\" is invalid (not UTF-8); using default warn"
    );
    assert_eq!(profiles(&logs, "latin1").len(), 1, "{stderr}");
    assert!(!tmp.path().join("rocprof-xplane-logs").exists(), "{stderr}");
}

/// A 100 KB value holding an escape sequence and a newline: one short line naming the
/// variable, the value cut and escaped, nothing forged on a line of its own; the default used.
#[test]
fn a_long_value_is_one_short_line() {
    let tmp = tempfile::tempdir().unwrap();
    let value = format!(
        "kernel,\u{1b}[31m{}\nrocprof-xplane: forged",
        "x".repeat(100_000)
    );
    let (stderr, truth) = run_tiny(
        tmp.path(),
        &[
            ("ROCPROF_XPLANE_DOMAINS", value.as_ref()),
            ("ROCPROF_XPLANE_RUN_NAME", "long".as_ref()),
        ],
    );
    let line = the_line(&stderr, "ROCPROF_XPLANE_DOMAINS");
    assert!(
        line.contains(&format!("…\" ({} bytes) is invalid", value.len())),
        "{line}"
    );
    assert!(line.contains("\\u{1b}[31m"), "{line}");
    assert!(line.ends_with("using default all"), "{line}");
    assert!(!stderr.lines().any(|l| l.contains("forged")), "{stderr}");
    let files = profiles(&tmp.path().join("logs"), "long");
    let s = read_xspace(&files[0]).unwrap();
    assert_eq!(
        count_by_name(kernels(&s)),
        truth_kernels(&truth["plan"]),
        "every domain traced"
    );
    assert!(!host_api_events(&s).is_empty(), "every domain traced");
}

/// A 100 KB run name is refused at start (one short line saying the rule), and the profile is
/// written under the default name instead of being lost at exit.
#[test]
fn a_run_name_too_long_for_a_directory_is_refused_at_start() {
    let tmp = tempfile::tempdir().unwrap();
    let name = "r".repeat(100_000);
    let (stderr, _) = run_tiny(tmp.path(), &[("ROCPROF_XPLANE_RUN_NAME", name.as_ref())]);
    let line = the_line(&stderr, "ROCPROF_XPLANE_RUN_NAME");
    assert!(
        line.contains(&format!(
            "is 100000 bytes; at most {}",
            rocprof_xplane::config::RUN_NAME_MAX_BYTES
        )),
        "{line}"
    );
    let logs = tmp.path().join("logs");
    let runs = runs(&logs);
    assert_eq!(runs.len(), 1, "{runs:?}\n{stderr}");
    assert!(
        line.ends_with(&format!("using default {}", runs[0])),
        "{line}"
    );
    assert_eq!(profiles(&logs, &runs[0]).len(), 1, "{stderr}");
}

/// `SERVER=PORT+rank` with `LOCAL_RANK=abc`: the line says the rank is not a number (not that
/// none is set), and that nothing is recorded; the tool declines, the program runs on.
#[test]
fn a_local_rank_that_is_not_a_number_is_said_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (stderr, truth) = run_tiny(
        tmp.path(),
        &[
            ("ROCPROF_XPLANE_SERVER", "7000+rank".as_ref()),
            ("LOCAL_RANK", "abc".as_ref()),
        ],
    );
    assert_eq!(
        the_line(&stderr, "ROCPROF_XPLANE_SERVER"),
        format!(
            "rocprof-xplane: ROCPROF_XPLANE_SERVER=\"7000+rank\" is invalid (PORT+rank, but \
             LOCAL_RANK=\"abc\" is not a number); {} (unset the variable to trace the whole run)",
            rocprof_xplane::config::mode::NO_SERVICE
        )
    );
    assert_eq!(truth["delivery"]["clients"][0]["configured"], false);
    assert!(runs(&tmp.path().join("logs")).is_empty());
}

/// A `SERVER` that cannot be used records nothing, whether the value is refused or its port
/// is taken: one line says so, no profile is written, the program runs to its end.
#[test]
fn a_service_that_cannot_be_used_records_nothing() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for (value, says) in [
        ("host:port", "is invalid (port"),
        (taken.as_str(), "cannot listen on"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let (stderr, truth) = run_tiny(tmp.path(), &[("ROCPROF_XPLANE_SERVER", value.as_ref())]);
        let line = the_line(&stderr, "ROCPROF_XPLANE_SERVER");
        assert!(line.contains(says), "{value}: {line}");
        assert!(
            line.contains(rocprof_xplane::config::mode::NO_SERVICE),
            "{value}: {line}"
        );
        assert!(
            runs(&tmp.path().join("logs")).is_empty(),
            "{value}: {stderr}"
        );
        assert!(
            u(&truth["plan"]["totals"]["kernel_dispatches"]) > 0,
            "{value}: the program's own output"
        );
    }
}
