//! Shared helpers of the end-to-end acceptance tests (`mod e2e_support;` in `tests/e2e_*.rs`).
//!
//! Every test here runs the real tool `.so` inside the *simulated* rocprofiler-sdk runtime
//! (`rocprof-sim`, test infrastructure — no GPU is involved) as a separate process, then compares
//! the `.xplane.pb` it wrote with the simulator's ground truth, which the simulator computes from
//! the scenario alone (never from the tool's output).
//!
//! The binaries are not built here: `cargo build --workspace --all-targets` (the README's test
//! command) builds the driver, the simulated runtime and the simulator's test tool first. A
//! missing artifact fails with a message saying so.
#![allow(dead_code)]

pub mod xspace;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

use rocprof_xplane::xplane::proto::XSpace;
use rocprof_xplane::xplane::read_xspace;
use serde_json::Value;

/// The workspace root (this package is the root package).
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>/`: the test executable lives in `target/<profile>/deps/`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test binary has a directory");
    if deps.file_name().is_some_and(|n| n == "deps") {
        deps.parent().unwrap().to_path_buf()
    } else {
        deps.to_path_buf()
    }
}

/// An artifact of the workspace build, or a panic that says how to build it.
pub fn artifact(name: &str) -> PathBuf {
    let p = profile_dir().join(name);
    assert!(
        p.is_file(),
        "{} not found: the end-to-end tests need the whole workspace built first — run \
         `cargo build --workspace --all-targets` (same profile as the tests), then the tests",
        p.display()
    );
    p
}

/// The `rocprof-xplane` CLI.
pub fn cli() -> PathBuf {
    artifact("rocprof-xplane")
}

/// The simulator driver (plays the application; loads tools like the real runtime).
pub fn driver() -> PathBuf {
    // The simulated runtime it dlopens sits beside it.
    artifact("librocprofiler_sdk_sim.so");
    artifact("rocprof-sim")
}

/// Our tool library, as an application would load it.
pub fn tool_library() -> PathBuf {
    artifact("librocprof_xplane.so")
}

/// The simulator's own test tool: records what the runtime handed it (agents, records) as
/// JSON lines — an independent witness of what the runtime reported.
pub fn sim_test_tool() -> PathBuf {
    artifact("librocprof_sim_test_tool.so")
}

/// A built-in scenario (`scenarios/<name>`).
pub fn builtin(name: &str) -> PathBuf {
    let p = workspace().join("scenarios").join(name);
    assert!(p.is_file(), "built-in scenario {} missing", p.display());
    p
}

/// A scenario written for these tests (`tests/scenarios/<name>`).
pub fn test_scenario(name: &str) -> PathBuf {
    let p = workspace().join("tests").join("scenarios").join(name);
    assert!(p.is_file(), "test scenario {} missing", p.display());
    p
}

/// Variables from the developer's shell that would change what the tool or the simulator does.
fn scrub(cmd: &mut Command) {
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("ROCPROF_XPLANE_")
            || k.starts_with("ROCPROF_SIM_")
            || k == "ROCP_TOOL_LIBRARIES"
            || k == "LD_PRELOAD"
        {
            cmd.env_remove(k);
        }
    }
}

/// Everything one profiled run left behind.
pub struct Run {
    /// Keeps the temporary directory alive as long as the run is inspected.
    pub tmp: tempfile::TempDir,
    pub log_dir: PathBuf,
    pub run_name: String,
    /// `.xplane.pb` files of the run directory, sorted.
    pub files: Vec<PathBuf>,
    /// The first (usually only) file, decoded.
    pub space: XSpace,
    /// The simulator's `--ground-truth` document: `plan` (what a correct profiler reports),
    /// `delivery` (what the runtime delivered, dropped, …), `replay`.
    pub truth: Value,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The ground truth computed from the scenario.
    pub fn plan(&self) -> &Value {
        &self.truth["plan"]
    }

    /// What the runtime delivered to the tools.
    pub fn delivery(&self) -> &Value {
        &self.truth["delivery"]
    }

    pub fn run_dir(&self) -> PathBuf {
        self.log_dir.join("plugins/profile").join(&self.run_name)
    }
}

/// `.xplane.pb` files under `<log_dir>/plugins/profile/<run>/`, sorted.
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

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn load_truth(path: &Path, stderr: &str) -> Value {
    let s = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "no ground truth at {}: {e}\nstderr:\n{stderr}",
            path.display()
        )
    });
    serde_json::from_str(&s).expect("ground truth is JSON")
}

/// `rocprof-xplane simulate <scenario> --output-dir <log_dir> --sdk <sdk>`, with this build's
/// driver and tool library and none of the caller's `ROCPROF_*` settings; add arguments
/// (`--run-name`, `--ground-truth`) and environment as needed.
pub fn simulate_command(scenario: &Path, sdk: &str, log_dir: &Path) -> Command {
    let mut cmd = Command::new(cli());
    scrub(&mut cmd);
    cmd.arg("simulate")
        .arg(scenario)
        .arg("--output-dir")
        .arg(log_dir)
        .args(["--sdk", sdk])
        .env("ROCPROF_SIM_DRIVER", driver())
        .env("ROCPROF_XPLANE_TOOL_LIBRARY", tool_library());
    cmd
}

/// `rocprof-xplane simulate <scenario> --output-dir <tmp> --sdk <sdk>` with `env` added, as a
/// user would run it; asserts it succeeded and wrote exactly one file.
pub fn simulate(scenario: &Path, sdk: &str, env: &[(&str, &str)]) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join("logs");
    let truth_path = tmp.path().join("truth.json");
    let run_name = "e2e".to_string();
    let mut cmd = simulate_command(scenario, sdk, &log_dir);
    cmd.args(["--run-name", &run_name])
        .arg("--ground-truth")
        .arg(&truth_path);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run rocprof-xplane simulate");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        out.status.success(),
        "rocprof-xplane simulate {} --sdk {sdk} failed ({})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        scenario.display(),
        out.status
    );
    let files = profiles(&log_dir, &run_name);
    assert_eq!(
        files.len(),
        1,
        "one file per process expected: {files:?}\nstderr:\n{stderr}"
    );
    let space = read_xspace(&files[0]).unwrap_or_else(|e| panic!("read {:?}: {e}", files[0]));
    let truth = load_truth(&truth_path, &stderr);
    Run {
        tmp,
        log_dir,
        run_name,
        files,
        space,
        truth,
        stdout,
        stderr,
    }
}

/// One scenario run per (scenario, SDK) per test binary, shared by the tests that only read it.
pub fn cached(scenario: &Path, sdk: &str) -> Arc<Run> {
    type Slot = Arc<OnceLock<Arc<Run>>>;
    static CACHE: OnceLock<Mutex<HashMap<(PathBuf, String), Slot>>> = OnceLock::new();
    let slot = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry((scenario.to_path_buf(), sdk.to_string()))
        .or_default()
        .clone();
    slot.get_or_init(|| Arc::new(simulate(scenario, sdk, &[])))
        .clone()
}

/// The application run directly, the tool given through `ROCP_TOOL_LIBRARIES` by the caller's
/// `env` — as on a real machine, without our CLI in between.
pub struct Direct {
    pub scenario: PathBuf,
    pub sdk: String,
    pub env: Vec<(String, String)>,
    pub ground_truth: Option<PathBuf>,
}

impl Direct {
    pub fn new(scenario: &Path, sdk: &str) -> Self {
        Direct {
            scenario: scenario.to_path_buf(),
            sdk: sdk.to_string(),
            env: Vec::new(),
            ground_truth: None,
        }
    }

    pub fn env(mut self, k: &str, v: impl AsRef<std::ffi::OsStr>) -> Self {
        self.env
            .push((k.into(), v.as_ref().to_string_lossy().into_owned()));
        self
    }

    pub fn ground_truth(mut self, p: &Path) -> Self {
        self.ground_truth = Some(p.to_path_buf());
        self
    }

    /// Starts the driver; the caller waits (so several can run at once).
    pub fn spawn(&self) -> std::process::Child {
        self.command()
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start rocprof-sim")
    }

    pub fn output(&self) -> Output {
        self.command().output().expect("run rocprof-sim")
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(driver());
        scrub(&mut cmd);
        cmd.arg(&self.scenario).args(["--sdk", &self.sdk]);
        if let Some(g) = &self.ground_truth {
            cmd.arg("--ground-truth").arg(g);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }
}

/// Decoded `--ground-truth` file (for `Direct` runs).
pub fn read_truth(path: &Path) -> Value {
    load_truth(path, "")
}

pub fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not an unsigned number: {v}"))
}

pub fn stderr_of(o: &Output) -> String {
    text(&o.stderr)
}

pub fn stdout_of(o: &Output) -> String {
    text(&o.stdout)
}
