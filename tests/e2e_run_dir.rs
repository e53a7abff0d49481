//! Several processes of one job land in one run directory, one file each, and appear
//! as separate hosts (`XSpace.hostnames` = the file's host part, which xprof lists as hosts).
//!
//! Two profiled programs run at the same time with the same `ROCPROF_XPLANE_OUTPUT_DIR` and
//! `ROCPROF_XPLANE_RUN_NAME`: one through `rocprof-xplane simulate`, one started directly as an
//! application would be. Simulated runtime (test infrastructure), not hardware.

mod support;

use std::process::Stdio;

use rocprof_xplane::xplane::read_xspace;
use support::paths::{builtin, host_of as host_part, profiles, tool_library};
use support::sim::{simulate_command, Direct};
use support::truth::{read_truth, truth_kernels};
use support::xspace::*;

#[test]
fn two_processes_write_two_files_into_one_run_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let run = "job_42";
    let (truth_a, truth_b) = (tmp.path().join("a.json"), tmp.path().join("b.json"));

    // Process A: through the CLI, run name from the environment (no --run-name).
    let a = simulate_command(&builtin("tiny.toml"), "0.6.0", &logs)
        .arg("--ground-truth")
        .arg(&truth_a)
        .env("ROCPROF_XPLANE_RUN_NAME", run)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Process B: the application itself, at the same time.
    let b = Direct::new(&builtin("multi-gpu.toml"), "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", &logs)
        .env("ROCPROF_XPLANE_RUN_NAME", run)
        .ground_truth(&truth_b)
        .spawn();
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(
        a.status.success(),
        "A: {}",
        String::from_utf8_lossy(&a.stderr)
    );
    assert!(
        b.status.success(),
        "B: {}",
        String::from_utf8_lossy(&b.stderr)
    );

    // One run directory, holding exactly the two files (no temporaries left behind).
    let runs = run_dirs(&logs);
    assert_eq!(runs, vec![std::ffi::OsString::from(run)]);
    let all: Vec<_> = std::fs::read_dir(logs.join("plugins/profile").join(run))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let files = profiles(&logs, run);
    assert_eq!(files.len(), 2, "two processes, two files: {all:?}");
    assert_eq!(
        all.len(),
        2,
        "only the two profiles in the run directory: {all:?}"
    );

    // Each file is its own host, and holds its own process's trace.
    let hosts: Vec<String> = files.iter().map(|f| host_part(f)).collect();
    assert_ne!(hosts[0], hosts[1]);
    let mut matched = Vec::new();
    for f in &files {
        let s = read_xspace(f).unwrap();
        assert_eq!(
            s.hostnames,
            vec![host_part(f)],
            "{}: hostnames",
            f.display()
        );
        let got = count_by_name(kernels(&s));
        let which = [("tiny", &truth_a), ("multi-gpu", &truth_b)]
            .into_iter()
            .find(|(_, t)| truth_kernels(&read_truth(t)["plan"]) == got)
            .unwrap_or_else(|| panic!("{}: kernels {got:?} match neither process", f.display()));
        matched.push(which.0);
        let gpus = device_planes(&s).len() as u64;
        assert_eq!(
            gpus,
            read_truth(which.1)["plan"]["totals"]["gpus"]
                .as_u64()
                .unwrap()
        );
    }
    matched.sort();
    assert_eq!(matched, ["multi-gpu", "tiny"]);
    // A's CLI output names its file in the shared run directory.
    let stdout = String::from_utf8_lossy(&a.stdout);
    assert!(
        stdout.contains(&format!("plugins/profile/{run}/")),
        "{stdout}"
    );
}

/// Without `ROCPROF_XPLANE_RUN_NAME`, a launcher's job id is the shared default: two ranks started
/// more than a second apart (so their clocks would give different timestamp names) still land in
/// one run directory named after the Slurm job and step.
#[test]
fn ranks_of_one_launcher_job_share_a_run_without_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let rank = || {
        Direct::new(&builtin("tiny.toml"), "1.0.0")
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", &logs)
            .env("SLURM_JOB_ID", "4242")
            .env("SLURM_STEP_ID", "3")
            .spawn()
    };
    let first = rank().wait_with_output().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let second = rank().wait_with_output().unwrap();
    for (i, out) in [first, second].iter().enumerate() {
        assert!(
            out.status.success(),
            "rank {i}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let runs = run_dirs(&logs);
    assert_eq!(runs, vec![std::ffi::OsString::from("slurm_4242.3")]);
    assert_eq!(profiles(&logs, "slurm_4242.3").len(), 2);
}

/// Names of the run directories under `<logs>/plugins/profile`.
fn run_dirs(logs: &std::path::Path) -> Vec<std::ffi::OsString> {
    std::fs::read_dir(logs.join("plugins/profile"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect()
}
