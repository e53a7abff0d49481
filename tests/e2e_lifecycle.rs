//! Lifecycle behaviour through the simulated runtime (test infrastructure, not hardware): the
//! tool beside another tool, opting out, bad configuration.

mod support;

use std::process::Output;

use support::paths::{builtin, profiles, sim_test_tool, tool_library};
use support::sim::Direct;
use support::xspace::{device_counts_by_name, read_one};

/// Device events that are not copies (by name: not `Memcpy…`).
fn kernels(s: &rocprof_xplane::xplane::proto::XSpace) -> usize {
    device_counts_by_name(s).0.values().sum::<u64>() as usize
}

/// The simulator driver started directly (as the application) with `env`.
fn run_driver(scenario: &str, sdk: &str, env: &[(&str, &str)]) -> Output {
    env.iter()
        .fold(Direct::new(&builtin(scenario), sdk), |d, (k, v)| {
            d.env(k, v)
        })
        .output()
}

#[test]
fn works_when_loaded_second_beside_another_tool() {
    let dir = tempfile::tempdir().unwrap();
    let other = sim_test_tool();
    // Trailing ':' so the runtime's list parser keeps both entries; ours is priority 1.
    let libs = format!("{}:{}:", other.display(), tool_library().display());
    let out = run_driver(
        "tiny.toml",
        "1.0.0",
        &[
            ("ROCP_TOOL_LIBRARIES", &libs),
            ("ROCPROF_XPLANE_OUTPUT_DIR", dir.path().to_str().unwrap()),
            ("ROCPROF_XPLANE_RUN_NAME", "second"),
            ("ROCPROF_XPLANE_LOG", "info"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("loaded as tool #1"), "{stderr}");
    assert_eq!(kernels(&read_one(dir.path(), "second")), 2);
}

/// The documented recipe to ride along beside rocprofv3 (docs/configuration.md): the user sets
/// `ROCP_TOOL_LIBRARIES` to our library and runs `rocprofv3`, which LD_PRELOADs its own tool and
/// *appends* it to `ROCP_TOOL_LIBRARIES` (`ours.so:its.so`, whose last entry the runtime's list
/// parser drops). The runtime then configures ours from the list (priority 0) and rocprofv3's
/// from the global scope (priority 1): both trace everything. The simulator's test tool plays
/// rocprofv3's, preloaded the same way.
#[test]
fn riding_along_beside_rocprofv3_both_tools_trace_everything() {
    let dir = tempfile::tempdir().unwrap();
    let other = sim_test_tool();
    let log = dir.path().join("rocprofv3-tool.jsonl");
    let libs = format!("{}:{}", tool_library().display(), other.display());
    let truth = dir.path().join("truth.json");
    let out = Direct::new(&builtin("sync-deps.toml"), "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", &libs)
        .env("LD_PRELOAD", &other)
        .env("ROCPROF_SIM_TEST_TOOL_LOG", &log)
        .env("ROCPROF_XPLANE_OUTPUT_DIR", dir.path())
        .env("ROCPROF_XPLANE_RUN_NAME", "ride")
        .ground_truth(&truth)
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let t = support::truth::read_truth(&truth);
    let clients = t["delivery"]["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 2, "{clients:?}");
    assert!(clients[0]["library"]
        .as_str()
        .unwrap()
        .ends_with("librocprof_xplane.so"));
    assert_eq!(clients[1]["library"], "<global scope>");
    let all = support::truth::truth_kernels(&t["plan"])
        .values()
        .sum::<u64>();
    assert_eq!(kernels(&read_one(dir.path(), "ride")) as u64, all);
    let theirs = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.contains(r#""ev":"rec""#) && l.contains(r#""kind_name":"KERNEL_DISPATCH""#))
        .count() as u64;
    assert_eq!(theirs, all, "rocprofv3's tool saw every kernel too");
}

#[test]
fn disable_opts_out_without_harming_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let lib = tool_library();
    let out = run_driver(
        "tiny.toml",
        "0.6.0",
        &[
            ("ROCP_TOOL_LIBRARIES", lib.to_str().unwrap()),
            ("ROCPROF_XPLANE_OUTPUT_DIR", dir.path().to_str().unwrap()),
            ("ROCPROF_XPLANE_RUN_NAME", "off"),
            ("ROCPROF_XPLANE_DISABLE", "1"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(profiles(dir.path(), "off").is_empty());
}

#[test]
fn bad_configuration_is_reported_and_defaults_used() {
    let dir = tempfile::tempdir().unwrap();
    let lib = tool_library();
    let out = run_driver(
        "tiny.toml",
        "1.0.0",
        &[
            ("ROCP_TOOL_LIBRARIES", lib.to_str().unwrap()),
            ("ROCPROF_XPLANE_OUTPUT_DIR", dir.path().to_str().unwrap()),
            ("ROCPROF_XPLANE_RUN_NAME", "bad"),
            ("ROCPROF_XPLANE_BUFFER_SIZE", "lots"),
            ("ROCPROF_XPLANE_DOMAINS", "kernel,gpu"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("ROCPROF_XPLANE_BUFFER_SIZE=\"lots\" is invalid"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ROCPROF_XPLANE_DOMAINS=\"kernel,gpu\" is invalid"),
        "{stderr}"
    );
    assert_eq!(kernels(&read_one(dir.path(), "bad")), 2);
}

#[test]
fn small_buffers_lose_nothing() {
    // 4 KiB buffers force many watermark deliveries during the 5,120-dispatch graph replay.
    let dir = tempfile::tempdir().unwrap();
    let lib = tool_library();
    let out = run_driver(
        "graph-launch.toml",
        "1.0.0",
        &[
            ("ROCP_TOOL_LIBRARIES", lib.to_str().unwrap()),
            ("ROCPROF_XPLANE_OUTPUT_DIR", dir.path().to_str().unwrap()),
            ("ROCPROF_XPLANE_RUN_NAME", "small"),
            ("ROCPROF_XPLANE_BUFFER_SIZE", "4k"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = read_one(dir.path(), "small");
    assert_eq!(kernels(&s), 5120 + 8);
}

/// A program that forks a child which leaves through `exit()` (so it runs the runtime's atexit
/// finalization it inherited): the child is not profiled — it exits at once instead of waiting
/// in a flush for a delivery thread it does not have (which would hang it, and the parent with it)
/// — and the only profile is the parent's, under the parent's pid. Both SDK families.
#[test]
fn a_forked_child_is_not_profiled_and_never_hangs() {
    for sdk in ["0.6.0", "1.0.0"] {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Direct::new(&builtin("tiny.toml"), sdk)
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", dir.path())
            .env("ROCPROF_XPLANE_RUN_NAME", "fork")
            .arg("--fork-child")
            .spawn();
        let parent_pid = child.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{sdk}: the program hung after fork");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(status.success(), "{sdk}: {status}\n{stderr}");
        assert!(
            stderr.contains("forked child") && stderr.contains("exited with 0"),
            "{sdk}: {stderr}"
        );
        let files = profiles(dir.path(), "fork");
        assert_eq!(files.len(), 1, "{sdk}: {files:?}");
        let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.ends_with(&format!(".{parent_pid}.xplane.pb")),
            "{sdk}: {name} is not the parent's ({parent_pid})"
        );
        assert!(kernels(&read_one(dir.path(), "fork")) > 0, "{sdk}");
    }
}

/// A launcher that forks and execs a worker (the same program, as `torchrun` or a
/// `subprocess.Popen` would): the exec'd child is a new process that loads the tool afresh and
/// is profiled on its own — two complete files under two pids, neither hangs, the parent's
/// not mixed with the child's. Both SDK families.
#[test]
fn a_forked_and_execd_child_is_profiled_as_its_own_process() {
    for sdk in ["0.6.0", "1.0.0"] {
        let dir = tempfile::tempdir().unwrap();
        let child = Direct::new(&builtin("tiny.toml"), sdk)
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", dir.path())
            .env("ROCPROF_XPLANE_RUN_NAME", "exec")
            .arg("--fork-exec-child")
            .spawn();
        let parent_pid = child.id();
        let out = wait_or_fail(child, 60, sdk);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{sdk}: {stderr}");
        assert!(
            stderr.contains("exec'd child") && stderr.contains("exited with 0"),
            "{sdk}: {stderr}"
        );
        let files = profiles(dir.path(), "exec");
        assert_eq!(files.len(), 2, "{sdk}: {files:?}\n{stderr}");
        let pids: Vec<u32> = files
            .iter()
            .map(|f| {
                let n = f.file_name().unwrap().to_string_lossy().into_owned();
                let stem = n.strip_suffix(".xplane.pb").unwrap();
                stem.rsplit('.').next().unwrap().parse().unwrap()
            })
            .collect();
        assert!(
            pids.contains(&parent_pid),
            "{sdk}: {pids:?} vs {parent_pid}"
        );
        for f in &files {
            let s = rocprof_xplane::xplane::read_xspace(f).unwrap();
            // tiny.toml: two kernels per process, each process its own.
            assert_eq!(kernels(&s), 2, "{sdk}: {f:?}");
        }
    }
}

/// A program that leaves through `_exit` runs no atexit handler, so the runtime never finalizes
/// the tool: it must simply end — no hang, no output of ours — and write nothing (a profile is
/// only written at finalize; nothing half-written is left either).
#[test]
fn a_program_that_calls_underscore_exit_ends_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = Direct::new(&builtin("tiny.toml"), "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", dir.path())
        .env("ROCPROF_XPLANE_RUN_NAME", "gone")
        .env("ROCPROF_SIM_EXIT_WITH__EXIT", "1")
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}\n{stderr}", out.status);
    assert!(!stderr.contains("rocprof-xplane"), "{stderr}");
    assert!(
        !dir.path().join("plugins").exists(),
        "nothing is written without finalize"
    );
}

/// The tool loaded into a process whose runtime never initialises it: loaded only, and
/// configured but never initialized (the runtime went away). The process exits normally, with
/// nothing of ours on stderr and no file. Loaded with Python's ctypes, as a host program would.
#[test]
fn the_tool_loaded_but_never_initialised_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
if sys.argv[2] == "configure":
    f = lib.rocprofiler_configure
    f.restype = ctypes.c_void_p
    f.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_void_p]
    client = (ctypes.c_uint64 * 4)()
    r = f(10000, b"1.0.0", 0, ctypes.cast(client, ctypes.c_void_p))
    print("configured", r is not None)
print("done")
"#;
    for mode in ["load", "configure"] {
        let out = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(tool_library())
            .arg(mode)
            .env("ROCPROF_XPLANE_OUTPUT_DIR", dir.path())
            .output()
            .expect("python3 (ci/setup.sh installs it)");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{mode}: {}\n{stderr}", out.status);
        assert!(stdout.contains("done"), "{mode}: {stdout}");
        if mode == "configure" {
            assert!(stdout.contains("configured True"), "{mode}: {stdout}");
        }
        assert!(!stderr.contains("rocprof-xplane"), "{mode}: {stderr}");
        assert!(
            !dir.path().join("plugins").exists(),
            "{mode}: a file was written"
        );
    }
}

/// `scenarios/thread-storm.toml` scaled down to `repeat` iterations per thread (32 threads, four
/// calls each), written into `dir`.
fn small_storm(dir: &std::path::Path, repeat: u32) -> std::path::PathBuf {
    support::paths::scaled_scenario(dir, "thread-storm.toml", 25000, repeat)
}

/// Waits for `child` at most `secs`, killing it and failing the test if it hangs.
fn wait_or_fail(mut child: std::process::Child, secs: u64, what: &str) -> Output {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}: the program hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The program returns from `main` while its 32 threads are still calling HIP and roctx and the
/// delivery threads are still handing buffers over: `exit()` runs the runtime's finalization,
/// and so our finalize, concurrently with API callbacks, buffer callbacks and records still
/// being written. The program must end at once with its own exit code, nothing of ours but the
/// one "wrote" line on stderr, and a file holding a consistent prefix of the work: no more
/// records than the runtime emitted, every kernel one of the scenario's, every line nesting.
/// Several exit points (early, mid-run) on both SDK families.
#[test]
fn exit_while_threads_still_call_hip_finishes_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = small_storm(tmp.path(), 400);
    for sdk in ["0.6.0", "1.0.0"] {
        for ms in [30, 150, 400] {
            let what = format!("{sdk}, exit after {ms} ms");
            let dir = tmp.path().join(format!("{sdk}-{ms}"));
            let truth = dir.join("truth.json");
            std::fs::create_dir_all(&dir).unwrap();
            let child = Direct::new(&scenario, sdk)
                .env("ROCP_TOOL_LIBRARIES", tool_library())
                .env("ROCPROF_XPLANE_OUTPUT_DIR", &dir)
                .env("ROCPROF_XPLANE_RUN_NAME", "race")
                .arg("--exit-after-ms")
                .arg(&ms.to_string())
                .ground_truth(&truth)
                .spawn();
            let out = wait_or_fail(child, 120, &what);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{what}: {}\n{stderr}", out.status);
            let ours: Vec<&str> = stderr
                .lines()
                .filter(|l| l.starts_with("rocprof-xplane"))
                .collect();
            assert!(
                ours.len() == 1 && ours[0].starts_with("rocprof-xplane: wrote "),
                "{what}: {stderr}"
            );
            let t: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&truth).unwrap()).unwrap();
            assert_eq!(t["finalized"], true, "{what}");
            let s = read_one(&dir, "race");
            support::xspace::assert_lines_nest(&s, &what);
            let c = support::xspace::counters(&s);
            let emitted = &t["delivery"]["emitted_per_kind"];
            let n = |k: &str| emitted[k].as_u64().unwrap_or(0);
            assert!(c["kernel_records"] <= n("KERNEL_DISPATCH"), "{what}: {c:?}");
            assert!(
                c["api_records"] <= support::truth::hip_calls_recorded(&t, true),
                "{what}: {c:?}"
            );
            assert!(
                c["marker_records"] <= support::truth::roctx_calls_recorded(&t),
                "{what}: {c:?}"
            );
            let (by_name, _) = device_counts_by_name(&s);
            assert!(
                by_name
                    .keys()
                    .all(|k| k == "storm_small" || k == "storm_large"),
                "{what}: {by_name:?}"
            );
            if t["exited_early"] == false {
                // The replay won the race: then the file is complete.
                assert_eq!(c["kernel_records"], n("KERNEL_DISPATCH"), "{what}");
            }
        }
    }
}

/// 32 application threads calling HIP and roctx at once (the thread-storm scenario, scaled down
/// to 1,000 calls per thread here; the 100,000-call size is in docs/reliability.md): every record
/// reaches the file, through the CLI's accounting and nesting checks, on both SDK families.
#[test]
fn thirty_two_threads_at_once_lose_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = small_storm(tmp.path(), 250);
    for sdk in ["0.6.0", "1.0.0"] {
        let run = support::sim::simulate(&scenario, sdk, &[]);
        let (by_name, _) = device_counts_by_name(&run.space);
        assert_eq!(by_name.values().sum::<u64>(), 32 * 250 * 2, "{sdk}");
        let host = support::xspace::events(support::xspace::plane(
            &run.space,
            support::xspace::HOST_PLANE,
        ));
        let threads: std::collections::BTreeSet<_> = host
            .iter()
            .filter(|e| e.line.name.contains("/ROCTX"))
            .map(|e| e.line.id)
            .collect();
        assert!(threads.len() >= 32, "{sdk}: roctx lines {threads:?}");
    }
}
