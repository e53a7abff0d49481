//! What the subcommands share: the exit code of a parse error, finding the artifacts built
//! beside this binary, and the environment that loads the tool into the child process.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use rocprof_xplane::config;

/// `--help` / `--version` "errors" succeed; real usage errors exit with 2.
pub fn exit_code(e: &clap::Error) -> ExitCode {
    if e.use_stderr() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// Candidate directories for artifacts built beside the running binary: its own directory and
/// the cargo profile directory above `deps/` (when run from a test binary).
fn artifact_dirs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        let mut dir = exe.parent().map(Path::to_path_buf);
        for _ in 0..2 {
            if let Some(d) = dir {
                v.push(d.clone());
                dir = d.parent().map(Path::to_path_buf);
            }
        }
    }
    v
}

/// `$env_var` if set, else the file `file_name` in one of [`artifact_dirs`]; the error says how
/// to build it (`package`) or point at it.
fn find_artifact(env_var: &str, file_name: &str, package: &str) -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(env_var) {
        return Ok(PathBuf::from(p));
    }
    artifact_dirs()
        .into_iter()
        .map(|d| d.join(file_name))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "{file_name} not found next to this binary; build it with \
                 `cargo build -p {package}` or set {env_var}"
            )
        })
}

/// The simulator driver: `$ROCPROF_SIM_DRIVER`, else `rocprof-sim` beside this binary.
pub fn find_driver() -> Result<PathBuf, String> {
    find_artifact("ROCPROF_SIM_DRIVER", "rocprof-sim", "rocprof-sim")
}

/// This tool as a loadable library: `$ROCPROF_XPLANE_TOOL_LIBRARY`, else `librocprof_xplane.so`
/// beside this binary (or in the cargo target directory above it), as an absolute path.
pub fn find_tool_library() -> Result<PathBuf, String> {
    const ENV: &str = "ROCPROF_XPLANE_TOOL_LIBRARY";
    if let Some(p) = std::env::var_os(ENV) {
        return Ok(PathBuf::from(p));
    }
    let found = find_artifact(ENV, "librocprof_xplane.so", "rocprof-xplane")?;
    found
        .canonicalize()
        .map_err(|e| format!("{}: {e}", found.display()))
}

/// Makes `p` absolute against the current directory (the directory need not exist yet).
pub fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Name of the environment variable `ROCPROF_XPLANE_<name>`.
pub fn tool_var(name: &str) -> String {
    format!("{}{name}", config::PREFIX)
}

/// The run name every process of the launched program shares: `given`, else
/// `$ROCPROF_XPLANE_RUN_NAME` (empty counts as unset, as the tool reads it), else the launcher's
/// job id (so `srun rocprof-xplane run -- …` on many nodes still gives one run), else the time now.
/// A `--run-name` that breaks the tool's rule (`config::check_run_name`) is an error here,
/// before anything runs, rather than a default the user did not ask for.
pub fn resolve_run_name(given: Option<&str>) -> Result<String, String> {
    if let Some(g) = given {
        return config::check_run_name(g).map_err(|why| format!("--run-name {g:?} {why}"));
    }
    Ok(std::env::var(tool_var("RUN_NAME"))
        .ok()
        .and_then(|v| config::check_run_name(&v).ok())
        .or_else(|| config::job_run_name(|k| std::env::var(k).ok()))
        .unwrap_or_else(|| config::run_name_for(unix_now())))
}

/// Sets what makes the runtime load the tool into `cmd`, where the tool writes, and the job's
/// start every process it starts shares (`ROCPROF_XPLANE_JOB_START`: the one set, else now),
/// so that they all count their times from one origin.
pub fn set_tool_env(
    cmd: &mut Command,
    tool_libraries: impl AsRef<std::ffi::OsStr>,
    out_dir: &Path,
    run_name: &str,
) {
    cmd.env("ROCP_TOOL_LIBRARIES", tool_libraries)
        .env(tool_var("OUTPUT_DIR"), out_dir)
        .env(tool_var("RUN_NAME"), run_name)
        .env(tool_var("JOB_START"), job_start());
}

/// `$ROCPROF_XPLANE_JOB_START` when it is one, else the time now (Unix seconds, to the ns).
fn job_start() -> String {
    let kind = config::table::JOB_START.kind;
    std::env::var(tool_var("JOB_START"))
        .ok()
        .filter(|v| config::values::unix_time_ns(&kind, v).is_ok())
        .unwrap_or_else(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            format!("{}.{:09}", now.as_secs(), now.subsec_nanos())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Demo {
        #[arg(long)]
        name: Option<String>,
    }

    #[test]
    fn parse_errors_exit_2_and_help_exits_0() {
        let ok = Demo::try_parse_from(["demo", "--name", "x"]).unwrap();
        assert_eq!(ok.name.as_deref(), Some("x"));
        let bad = Demo::try_parse_from(["demo", "--nope"]).unwrap_err();
        assert_eq!(exit_code(&bad), ExitCode::from(2));
        let help = Demo::try_parse_from(["demo", "--help"]).unwrap_err();
        assert_eq!(exit_code(&help), ExitCode::SUCCESS);
    }

    #[test]
    fn tool_env_names_the_library_and_the_destination() {
        let mut cmd = Command::new("true");
        set_tool_env(&mut cmd, "/t/lib.so", Path::new("/out"), "r1");
        let envs: Vec<(String, String)> = cmd
            .get_envs()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.unwrap().to_string_lossy().into_owned(),
                )
            })
            .collect();
        assert!(envs.contains(&("ROCP_TOOL_LIBRARIES".into(), "/t/lib.so".into())));
        assert!(envs.contains(&("ROCPROF_XPLANE_OUTPUT_DIR".into(), "/out".into())));
        assert!(envs.contains(&("ROCPROF_XPLANE_RUN_NAME".into(), "r1".into())));
        let start = envs
            .iter()
            .find(|(k, _)| k == "ROCPROF_XPLANE_JOB_START")
            .map(|(_, v)| v.clone())
            .expect("the job start every process shares");
        let kind = config::table::JOB_START.kind;
        assert!(
            config::values::unix_time_ns(&kind, &start).is_ok(),
            "{start}"
        );
        assert_eq!(resolve_run_name(Some("given")).as_deref(), Ok("given"));
        assert_eq!(resolve_run_name(Some("a:b")).as_deref(), Ok("a:b"));
        assert!(resolve_run_name(Some("x/y"))
            .unwrap_err()
            .contains("single directory name"));
    }
}
