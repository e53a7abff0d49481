//! Lifecycle behaviour through the simulated runtime (test infrastructure, not hardware): the
//! tool beside another tool, opting out, bad configuration.

mod sim_common;
use sim_common::{profiles, read_one, run_driver, tool_library};

fn kernels(s: &rocprof_xplane::xplane::proto::XSpace) -> usize {
    s.planes
        .iter()
        .filter(|p| p.name.starts_with("/device:GPU:"))
        .flat_map(|p| {
            p.lines
                .iter()
                .flat_map(|l| l.events.iter())
                .map(move |e| (p, e))
        })
        .filter(|(p, e)| !p.event_metadata[&e.metadata_id].name.starts_with("Memcpy"))
        .count()
}

#[test]
fn works_when_loaded_second_beside_another_tool() {
    let dir = tempfile::tempdir().unwrap();
    let other = tool_library()
        .parent()
        .unwrap()
        .join("librocprof_sim_test_tool.so");
    if !other.is_file() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let st = std::process::Command::new(cargo)
            .args(["build", "-q", "-p", "rocprof-sim-test-tool"])
            .current_dir(sim_common::workspace())
            .status()
            .unwrap();
        assert!(
            st.success() && other.is_file(),
            "cannot build the simulator's test tool"
        );
    }
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
