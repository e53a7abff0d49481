//! Helpers shared by the end-to-end tests through the simulator (`mod sim_common;`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use rocprof_xplane::xplane::proto::XSpace;
use rocprof_xplane::xplane::read_xspace;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Builds the simulator driver and the tool's cdylib once. Both are needed fresh: `cargo test`
/// builds the library only as an rlib for test binaries, so without this the `.so` the
/// simulator loads could be stale (or missing on a clean checkout).
pub fn sim_driver() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            for args in [
                &["build", "-q", "-p", "rocprof-sim"][..],
                &["build", "-q", "-p", "rocprof-xplane", "--lib"][..],
            ] {
                let st = Command::new(&cargo)
                    .args(args)
                    .current_dir(workspace())
                    .status()
                    .expect("run cargo build");
                assert!(st.success(), "cargo {args:?} failed");
            }
            let exe = PathBuf::from(env!("CARGO_BIN_EXE_rocprof-xplane"));
            let driver = exe.parent().unwrap().join("rocprof-sim");
            assert!(driver.is_file(), "no driver at {}", driver.display());
            driver
        })
        .clone()
}

/// The tool library built for this test run (beside the `rocprof-xplane` binary).
pub fn tool_library() -> PathBuf {
    sim_driver();
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_rocprof-xplane"));
    let lib = exe.parent().unwrap().join("librocprof_xplane.so");
    assert!(lib.is_file(), "no tool library at {}", lib.display());
    lib
}

/// Every `.xplane.pb` under `<log_dir>/plugins/profile/<run>/`.
pub fn profiles(log_dir: &Path, run: &str) -> Vec<PathBuf> {
    let dir = log_dir.join("plugins/profile").join(run);
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".xplane.pb"))
        .collect();
    v.sort();
    v
}

pub fn read_one(log_dir: &Path, run: &str) -> XSpace {
    let files = profiles(log_dir, run);
    assert_eq!(files.len(), 1, "expected one profile: {files:?}");
    read_xspace(&files[0]).unwrap()
}

/// Runs the simulator driver directly (as a real application would be run) with `env`.
pub fn run_driver(scenario: &str, sdk: &str, env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(sim_driver());
    cmd.arg(workspace().join("scenarios").join(scenario))
        .args(["--sdk", sdk]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}
