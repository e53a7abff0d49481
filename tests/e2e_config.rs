//! Issue 3: bad configuration never harms the profiled program. A bad `ROCPROF_XPLANE_*` value
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
            support::u(&r.delivery()["emitted_per_kind"]["HIP_RUNTIME_API"])
        };
        assert!(
            emitted(&default) < emitted(&all),
            "{sdk}: the runtime still emitted them"
        );
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
            .sum();
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
