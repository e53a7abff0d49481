//! Runs the real `rocprof-sim` driver with the test tool and parses what the tool logged.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub const SDKS: [&str; 2] = ["0.6.0", "1.0.0"];

/// target/<profile>/ — where cargo put the driver, the runtime .so and the test tool.
pub fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rocprof-sim"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The `cargo build` options that put artifacts where this test binary's own build put them:
/// `bin_dir()` is `<target-dir>[/<triple>]/<profile-dir>`, so the nested build gets the same
/// `--target-dir` (whatever `CARGO_TARGET_DIR`, `--target-dir` or config chose), the same
/// `--target` for a cross build, and the same profile (`--release` under target/release).
fn same_layout_args() -> Vec<std::ffi::OsString> {
    let bin = bin_dir();
    let profile_dir = bin.file_name().unwrap().to_string_lossy().into_owned();
    let parent = bin.parent().unwrap();
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    // Cargo tags the root of every target directory; a cross build adds one level.
    let target_dir = if !parent.join("CACHEDIR.TAG").exists()
        && parent
            .parent()
            .is_some_and(|t| t.join("CACHEDIR.TAG").exists())
    {
        args.push("--target".into());
        args.push(parent.file_name().unwrap().into());
        parent.parent().unwrap()
    } else {
        parent
    };
    args.push("--target-dir".into());
    args.push(target_dir.into());
    match profile_dir.as_str() {
        // `cargo test` builds with the test profile, which lands in target/debug like dev.
        "debug" => {}
        "release" => args.push("--release".into()),
        custom => {
            args.push("--profile".into());
            args.push(custom.into());
        }
    }
    args
}

/// Makes sure the runtime cdylib and the test tool are built and current (the test tool is a
/// separate package, so `cargo test -p rocprof-sim` would not build it by itself).
fn ensure_built() {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let args = same_layout_args();
        let st = Command::new(env!("CARGO"))
            .args([
                "build",
                "-q",
                "-p",
                "rocprof-sim",
                "-p",
                "rocprof-sim-test-tool",
            ])
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build");
        assert!(
            st.success(),
            "building the simulator and test tool failed (cargo build {args:?})"
        );
    });
}

pub fn tool_path() -> PathBuf {
    ensure_built();
    bin_dir().join("librocprof_sim_test_tool.so")
}

/// A copy of the test tool under another path (a distinct library for the dynamic loader).
pub fn tool_copy(dir: &Path, name: &str) -> PathBuf {
    let dst = dir.join(name);
    std::fs::copy(tool_path(), &dst).expect("copy test tool");
    dst
}

pub struct Sim {
    pub log: Vec<Value>,
    pub truth: Value,
    pub code: Option<i32>,
    pub stderr: String,
    pub stdout: String,
}

impl Sim {
    pub fn ev(&self, name: &str) -> Vec<&Value> {
        self.log.iter().filter(|v| v["ev"] == name).collect()
    }
    pub fn status(&self, what: &str) -> Option<(u64, String)> {
        self.ev("status")
            .into_iter()
            .find(|v| v["what"] == what)
            .map(|v| {
                (
                    v["status"].as_u64().unwrap(),
                    v["name"].as_str().unwrap_or("").to_string(),
                )
            })
    }
    pub fn recs(&self, kind_name: &str) -> Vec<&Value> {
        self.ev("rec")
            .into_iter()
            .filter(|v| v["kind_name"] == kind_name)
            .collect()
    }
    pub fn cbs(&self, kind_name: &str) -> Vec<&Value> {
        self.ev("cb")
            .into_iter()
            .filter(|v| v["kind_name"] == kind_name)
            .collect()
    }
    pub fn index_of(&self, pred: impl Fn(&Value) -> bool) -> Option<usize> {
        self.log.iter().position(pred)
    }
    pub fn emitted_total(&self) -> u64 {
        self.truth["delivery"]["emitted_per_kind"]
            .as_object()
            .map(|m| m.values().map(|v| v.as_u64().unwrap()).sum())
            .unwrap_or(0)
    }
    pub fn buffer_truth(&self) -> &Value {
        &self.truth["delivery"]["buffers"][0]
    }
    /// The drops of the (one) buffer, after checking that the `drop_count`s passed to the
    /// tool's callbacks add up to them and that delivered + dropped = emitted.
    pub fn reported_drops(&self) -> u64 {
        let dropped = self.buffer_truth()["dropped"].as_u64().unwrap();
        let reported: u64 = self
            .ev("buffer")
            .iter()
            .map(|b| b["drops"].as_u64().unwrap())
            .sum();
        assert_eq!(reported, dropped, "drop_count passed to callbacks adds up");
        assert_eq!(self.ev("rec").len() as u64 + dropped, self.emitted_total());
        dropped
    }
}

pub struct Opts<'a> {
    pub sdk: &'a str,
    pub plan: &'a str,
    pub modes: &'a str,
    /// ROCP_TOOL_LIBRARIES; None = the test tool alone.
    pub tools: Option<String>,
    pub extra_args: Vec<String>,
    /// More environment for the driver.
    pub env: Vec<(&'a str, &'a str)>,
}

impl<'a> Opts<'a> {
    pub fn new(sdk: &'a str, plan: &'a str, modes: &'a str) -> Self {
        Opts {
            sdk,
            plan,
            modes,
            tools: None,
            extra_args: Vec::new(),
            env: Vec::new(),
        }
    }
}

pub fn run(sdk: &str, plan: &str, modes: &str) -> Sim {
    run_opts(Opts::new(sdk, plan, modes))
}

pub fn run_opts(o: Opts) -> Sim {
    let tool = tool_path();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tool.jsonl");
    let truth = dir.path().join("truth.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocprof-sim"));
    if let Some(path) = o.plan.strip_prefix("file:") {
        cmd.arg(path);
    } else {
        cmd.args(["--builtin", o.plan]);
    }
    cmd.args(["--sdk", o.sdk, "--ground-truth"])
        .arg(&truth)
        .args(&o.extra_args);
    cmd.env(
        "ROCP_TOOL_LIBRARIES",
        o.tools.unwrap_or_else(|| tool.display().to_string()),
    )
    .env("ROCPROF_SIM_TEST_TOOL_LOG", &log)
    .env("ROCPROF_SIM_TEST_TOOL_MODE", o.modes)
    .env_remove("ROCPROF_SIM_LIBRARY")
    .envs(o.env.iter().copied());
    let out = cmd.output().expect("run rocprof-sim");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let log = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("tool log line"))
        .collect();
    let truth = std::fs::read_to_string(&truth)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    Sim {
        log,
        truth,
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
    }
}

/// One `#[test]` per personality for a `fn check(sdk: &str)`.
#[macro_export]
macro_rules! both_sdks {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn sdk_0_6_0() {
                super::$name("0.6.0")
            }
            #[test]
            fn sdk_1_0_0() {
                super::$name("1.0.0")
            }
        }
    )*};
}
