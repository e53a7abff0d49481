//! `rocprof-xplane inspect` and `merge`, as a user runs them.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::paths::cli;
use super::text;

/// `rocprof-xplane inspect ARGS…`: (succeeded, stdout, stderr).
pub fn inspect(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(cli())
        .arg("inspect")
        .args(args)
        .output()
        .unwrap();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// `rocprof-xplane inspect FILE --json`, which must succeed and print JSON.
pub fn inspect_json(file: &Path) -> Value {
    let out = Command::new(cli())
        .arg("inspect")
        .arg(file)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "inspect failed: {}",
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("inspect --json prints JSON")
}

/// `rocprof-xplane merge LOG_DIR RUN`, which must succeed: the windows of `RUN` made one
/// profile, read back.
pub fn merge(log_dir: &Path, run: &str) -> rocprof_xplane::xplane::proto::XSpace {
    let out = Command::new(cli())
        .arg("merge")
        .arg(log_dir)
        .arg(run)
        .output()
        .unwrap();
    assert!(out.status.success(), "merge failed: {}", text(&out.stderr));
    super::xspace::read_one(log_dir, run)
}
