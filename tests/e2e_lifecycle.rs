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
/// in a flush for a delivery thread it does not have (before: it hung, and the parent with it)
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
