//! Where things are: the workspace, the artifacts of the workspace build in `target/<profile>/`,
//! scenarios, the real test data, and the profile files a run leaves in its run directory.

use std::path::{Path, PathBuf};

/// The command that builds every artifact these tests run (the README's test command,
/// `ci/test.sh`, runs it before `cargo test`).
pub const BUILD_COMMAND: &str = "cargo build --workspace --all-targets";

/// The file name of our tool library (the package's cdylib).
const TOOL_LIBRARY: &str = "librocprof_xplane.so";

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

/// An artifact of the workspace build, or a panic naming the missing file and how to build it.
///
/// Never builds: a nested `cargo build` from a test would fight the running `cargo test` for
/// the target directory's lock and hide a stale build behind a slow test.
pub fn artifact(name: &str) -> PathBuf {
    let p = profile_dir().join(name);
    assert!(
        p.is_file(),
        "{} not found: these tests need the whole workspace built first — run \
         `{BUILD_COMMAND}` (same profile as the tests), then the tests",
        p.display()
    );
    p
}

/// The `rocprof-xplane` CLI. It is its own package (`cli/`), so, like the simulator's driver,
/// `cargo test -p rocprof-xplane` alone does not rebuild it: `ci/test.sh` builds the workspace
/// first.
pub fn cli() -> PathBuf {
    artifact("rocprof-xplane")
}

/// The simulator driver (plays the application; loads tools like the real runtime). It belongs
/// to another package, so `cargo test -p rocprof-xplane` alone does not rebuild it.
pub fn driver() -> PathBuf {
    // The simulated runtime it dlopens sits beside it.
    artifact("librocprofiler_sdk_sim.so");
    artifact("rocprof-sim")
}

/// Our tool library, as an application would load it (the cdylib of this package), built from
/// the sources under test: `cargo test` rebuilds it in `target/<profile>/deps/` but, unlike
/// `cargo build`, does not copy it up to `target/<profile>/`.
pub fn tool_library() -> PathBuf {
    let built = profile_dir().join("deps").join(TOOL_LIBRARY);
    if built.is_file() {
        built
    } else {
        artifact(TOOL_LIBRARY)
    }
}

/// The tool library where `rocprof-xplane simulate` finds it by itself: beside the CLI, in
/// `target/<profile>/`. Only `cargo build` puts it there (and `cargo test -p` may build the
/// package with other dependency features than the workspace build), so it is the workspace
/// build's copy, not necessarily the bytes of [`tool_library`].
pub fn tool_library_beside_cli() -> PathBuf {
    artifact(TOOL_LIBRARY)
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

/// Real profiles from AMD hardware (XLA XPlanes, rocprofv3 output): `shared/testdata/real/`.
pub fn real_testdata() -> PathBuf {
    workspace().join("../shared/testdata/real")
}

/// A copy of built-in scenario `name` in `dir` with its `repeat = {from}` replaced by
/// `repeat = {to}`: the same workload at a size a test can afford (or a benchmark wants).
pub fn scaled_scenario(dir: &Path, name: &str, from: u32, to: u32) -> PathBuf {
    let text = std::fs::read_to_string(builtin(name)).unwrap();
    let needle = format!("repeat = {from}");
    assert!(
        text.contains(&needle),
        "{name} changed shape: no `{needle}`"
    );
    let p = dir.join(name);
    std::fs::write(&p, text.replace(&needle, &format!("repeat = {to}"))).unwrap();
    p
}

/// [`scaled_scenario`], paced (`[delivery] real_time`): the program takes about that many
/// times its simulated time, so a fast machine with nothing else running cannot deliver it all
/// before the tool's first tick. Written once under a name of its own, renamed into place, so
/// runs started together from one `dir` read it whole.
#[allow(dead_code)]
pub fn paced_scenario(dir: &Path, name: &str, from: u32, to: u32, real_time: u32) -> PathBuf {
    let p = dir.join(format!("paced-{real_time}-{to}-{name}"));
    if p.is_file() {
        return p;
    }
    let text = std::fs::read_to_string(scaled_scenario(dir, name, from, to)).unwrap();
    assert!(
        text.contains("[delivery]\n"),
        "{name} changed shape: no `[delivery]`"
    );
    let part = p.with_extension("part");
    let paced = format!("[delivery]\nreal_time = {real_time}\n");
    std::fs::write(&part, text.replace("[delivery]\n", &paced)).unwrap();
    std::fs::rename(&part, &p).unwrap();
    p
}

/// One file of the real test data, which must be there.
pub fn real_data(rel: &str) -> PathBuf {
    let p = real_testdata().join(rel);
    assert!(p.is_file(), "real test data {} missing", p.display());
    p
}

/// The run directory xprof scans: `<log_dir>/plugins/profile/<run>/`.
pub fn run_dir(log_dir: &Path, run: &str) -> PathBuf {
    log_dir.join("plugins/profile").join(run)
}

/// `.xplane.pb` files under `<log_dir>/plugins/profile/<run>/`, sorted; none if it is missing.
pub fn profiles(log_dir: &Path, run: &str) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(run_dir(log_dir, run)) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".xplane.pb"))
        .collect();
    v.sort();
    v
}

/// The host part of a profile's file name (`<host>.xplane.pb`), which xprof lists as a host.
pub fn host_of(file: &Path) -> String {
    let n = file.file_name().unwrap().to_string_lossy();
    n.strip_suffix(".xplane.pb")
        .expect("*.xplane.pb")
        .to_string()
}
