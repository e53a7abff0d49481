//! Running a scenario in the *simulated* rocprofiler-sdk runtime (`rocprof-sim`, test
//! infrastructure — no GPU is involved) with the real tool `.so` loaded, as a separate process:
//! either through `rocprof-xplane simulate` ([`simulate`], [`cached`]) or by starting the driver
//! directly as an application would be started ([`Direct`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

use rocprof_xplane::xplane::proto::XSpace;
use rocprof_xplane::xplane::read_xspace;
use serde_json::Value;

use super::paths::{cli, driver, profiles, run_dir, tool_library};
use super::text;
use super::truth::load_truth;

/// Variables from the developer's shell that would change what the tool or the simulator does,
/// removed; then `ROCPROF_XPLANE_TEST_ENV` (`KEY=VALUE` pairs, space-separated) set on every
/// run, under what the test itself sets: the whole suite run with a setting as its default,
/// e.g. `ROCPROF_XPLANE_TEST_ENV="ROCPROF_XPLANE_WINDOW_MERGE=1 ROCPROF_XPLANE_WINDOW_EVENTS=20000"`.
pub fn scrub(cmd: &mut Command) {
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
    let defaults = std::env::var("ROCPROF_XPLANE_TEST_ENV").unwrap_or_default();
    for pair in defaults.split_whitespace() {
        let (k, v) = pair
            .split_once('=')
            .unwrap_or_else(|| panic!("ROCPROF_XPLANE_TEST_ENV: `{pair}` is not KEY=VALUE"));
        cmd.env(k, v);
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
        run_dir(&self.log_dir, &self.run_name)
    }
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
    run_simulate(simulate_command, scenario, sdk, env)
}

/// [`simulate`] from a command of the caller's making (e.g. one that leaves the CLI to find
/// the tool library itself).
pub fn run_simulate(
    command: impl FnOnce(&Path, &str, &Path) -> Command,
    scenario: &Path,
    sdk: &str,
    env: &[(&str, &str)],
) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join("logs");
    let truth_path = tmp.path().join("truth.json");
    let run_name = "e2e".to_string();
    let mut cmd = command(scenario, sdk, &log_dir);
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
    // Every simulated run through the CLI: nothing lost silently, and no line mis-nests.
    let what = format!("{} --sdk {sdk}", scenario.display());
    let builds = super::truth::builds_hip_records(|k| {
        env.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    });
    super::xspace::assert_accounting(&space, &truth, builds, &what);
    super::xspace::assert_lines_nest(&space, &what);
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

/// One [`simulate`] run per (scenario, SDK, environment) per test binary, shared by the tests
/// that only read it. Concurrent callers of the same key wait for one run.
pub fn cached(scenario: &Path, sdk: &str, env: &[(&str, &str)]) -> Arc<Run> {
    type Key = (PathBuf, String, Vec<(String, String)>);
    type Slot = Arc<OnceLock<Arc<Run>>>;
    static CACHE: OnceLock<Mutex<HashMap<Key, Slot>>> = OnceLock::new();
    let key = (
        scenario.to_path_buf(),
        sdk.to_string(),
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    let slot = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry(key)
        .or_default()
        .clone();
    slot.get_or_init(|| {
        let run = simulate(scenario, sdk, env);
        remove_at_exit(run.tmp.path());
        Arc::new(run)
    })
    .clone()
}

/// Removes `dir` when the test binary exits: a cached run lives in a static, which is never
/// dropped, so its temporary directory would otherwise stay behind after every test run.
fn remove_at_exit(dir: &Path) {
    static DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    static REGISTER: std::sync::Once = std::sync::Once::new();
    extern "C" fn remove_all() {
        if let Ok(dirs) = DIRS.lock() {
            for d in dirs.iter() {
                let _ = std::fs::remove_dir_all(d);
            }
        }
    }
    DIRS.lock().unwrap().push(dir.to_path_buf());
    // SAFETY: `remove_all` is a plain `extern "C"` function that neither unwinds nor calls
    // `exit`; registering it once has no other precondition.
    REGISTER.call_once(|| unsafe {
        libc::atexit(remove_all);
    });
}

/// The application run directly, the tool given through `ROCP_TOOL_LIBRARIES` by the caller's
/// `env` — as on a real machine, without our CLI in between.
pub struct Direct {
    pub scenario: PathBuf,
    pub sdk: String,
    /// Values as given: bytes that are not UTF-8 reach the program unchanged.
    pub env: Vec<(String, std::ffi::OsString)>,
    pub ground_truth: Option<PathBuf>,
    /// The program's working directory (the test's own unless set).
    pub cwd: Option<PathBuf>,
    /// Extra driver options (`--fork-child`, …).
    pub args: Vec<String>,
    /// The program's `RLIMIT_NOFILE` (soft and hard), as `ulimit -n` would set it.
    pub fd_limit: Option<u64>,
    /// SIGINT and SIGTERM at their default action in the program (`signals_at_default`).
    pub default_signals: bool,
}

impl Direct {
    pub fn new(scenario: &Path, sdk: &str) -> Self {
        Direct {
            scenario: scenario.to_path_buf(),
            sdk: sdk.to_string(),
            env: Vec::new(),
            ground_truth: None,
            cwd: None,
            args: Vec::new(),
            fd_limit: None,
            default_signals: false,
        }
    }

    /// Runs the program with SIGINT and SIGTERM at their default action, whatever this
    /// process's were: a shell starts a background job with SIGINT ignored, and the tool
    /// leaves a signal the program ignores alone, so a test of the tool's handler would
    /// depend on how its runner was started.
    pub fn signals_at_default(mut self) -> Self {
        self.default_signals = true;
        self
    }

    /// Runs the program with at most `n` open files (`ulimit -n n`).
    pub fn fd_limit(mut self, n: u64) -> Self {
        self.fd_limit = Some(n);
        self
    }

    pub fn arg(mut self, a: &str) -> Self {
        self.args.push(a.into());
        self
    }

    pub fn env(mut self, k: &str, v: impl AsRef<std::ffi::OsStr>) -> Self {
        self.env.push((k.into(), v.as_ref().to_os_string()));
        self
    }

    /// Runs the program in `dir`, so that a relative path (the default output directory)
    /// lands there.
    pub fn current_dir(mut self, dir: &Path) -> Self {
        self.cwd = Some(dir.to_path_buf());
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

    /// Runs the driver to the end. With a ground truth, a run that wrote this process's
    /// profile also passes the accounting and nesting checks every CLI run passes (nothing lost
    /// silently, no line mis-nests).
    pub fn output(&self) -> Output {
        let child = self
            .command()
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start rocprof-sim");
        let pid = child.id();
        let out = child.wait_with_output().expect("run rocprof-sim");
        if let (true, Some(truth)) = (out.status.success(), &self.ground_truth) {
            self.check_accounting(pid, truth, &out);
        }
        out
    }

    /// Runs the driver to the end as [`Direct::output`] does, with its application threads
    /// held before their middle call (`ROCPROF_SIM_HOLD_FILE`, the file `hold`) until `ready`
    /// says what the test waits for has happened (checked every 10 ms, for 120 s at most, or
    /// until the process ends), so the second half of the run begins after it.
    pub fn output_held_until(&self, hold: &Path, ready: impl Fn() -> bool) -> Output {
        let mut child = self
            .command()
            .env("ROCPROF_SIM_HOLD_FILE", hold)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start rocprof-sim");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while !ready()
            && std::time::Instant::now() < deadline
            && matches!(child.try_wait(), Ok(None))
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::fs::write(hold, "").expect("write the hold file");
        let pid = child.id();
        let out = child.wait_with_output().expect("run rocprof-sim");
        if let (true, Some(truth)) = (out.status.success(), &self.ground_truth) {
            self.check_accounting(pid, truth, &out);
        }
        out
    }

    /// The accounting and nesting checks on the file process `pid` wrote, if it wrote one.
    fn check_accounting(&self, pid: u32, truth: &Path, out: &Output) {
        let var = |k: &str| {
            self.env
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
        };
        let Some(log_dir) = var("ROCPROF_XPLANE_OUTPUT_DIR") else {
            return;
        };
        // A bounded capture keeps only its part by design (records in flight at its end are
        // not written anywhere): its test checks the counts itself.
        if var("ROCPROF_XPLANE_DURATION").is_some() {
            return;
        }
        // So does an attach session (only the work while attached).
        if self.args.iter().any(|a| a == "--attach") {
            return;
        }
        let suffix = format!(".{pid}.xplane.pb");
        let runs = std::fs::read_dir(Path::new(&log_dir).join("plugins/profile"));
        let files: Vec<PathBuf> = runs
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|run| {
                std::fs::read_dir(run.path())
                    .into_iter()
                    .flatten()
                    .flatten()
            })
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(&suffix))
            .collect();
        // One profile per process; capture windows (several) are checked by their own tests.
        let ([file], true) = (&files[..], truth.is_file()) else {
            return;
        };
        let stderr = text(&out.stderr);
        let truth = load_truth(truth, &stderr);
        if truth["finalized"] != true || truth["exited_early"] == true {
            return;
        }
        // The runtime counts emitted records over all tools' buffers: with a second tool loaded
        // beside ours, the per-kind totals are not ours alone.
        let configured = truth["delivery"]["clients"]
            .as_array()
            .map_or(0, |c| c.iter().filter(|c| c["configured"] == true).count());
        if configured != 1 {
            return;
        }
        let space = read_xspace(file).unwrap_or_else(|e| panic!("read {file:?}: {e}"));
        let what = format!("{} --sdk {} (direct)", self.scenario.display(), self.sdk);
        let builds =
            super::truth::builds_hip_records(|k| var(k).map(|v| v.to_string_lossy().into_owned()));
        super::xspace::assert_accounting(&space, &truth, builds, &what);
        super::xspace::assert_lines_nest(&space, &what);
    }

    /// Runs the driver in a private mount namespace with a `size`-byte tmpfs mounted on `dir`
    /// (a full filesystem without touching the machine's), then lists every file left under
    /// `dir` on stdout after a `--- left:` line, since the tmpfs vanishes with the namespace.
    /// `None` when the namespace cannot be made (not root, no `unshare`).
    pub fn output_on_tiny_tmpfs(&self, dir: &Path, size: u64) -> Option<Output> {
        let inner = self.command();
        let script = format!(
            "mount -t tmpfs -o size={size} tmpfs \"$0\" || exit 97; \"$@\"; rc=$?; \
             echo '--- left:'; find \"$0\" -type f; exit $rc"
        );
        let mut cmd = Command::new("unshare");
        cmd.args(["-m", "sh", "-c", &script]).arg(dir);
        let out = wrapping(cmd, &inner).output().ok()?;
        (out.status.code() != Some(97)
            && !String::from_utf8_lossy(&out.stderr).contains("unshare:"))
        .then_some(out)
    }

    /// Runs the driver under `wrapper` (a program and its first arguments: `valgrind …`), which
    /// `ci/setup.sh` installs.
    pub fn output_under(&self, wrapper: Command) -> Output {
        let program = wrapper.get_program().to_string_lossy().into_owned();
        wrapping(wrapper, &self.command())
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e} (ci/setup.sh installs it)"))
    }

    /// Runs the driver under `strace -f`, tracing `syscalls` (`strace -e trace=`) into `log`.
    /// Needs `strace` (ci/setup.sh installs it).
    pub fn output_under_strace(&self, syscalls: &str, log: &Path) -> Output {
        let mut cmd = Command::new("strace");
        cmd.args(["-f", "-qq", "-e"])
            .arg(format!("trace={syscalls}"))
            .arg("-o")
            .arg(log);
        self.output_under(cmd)
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(driver());
        scrub(&mut cmd);
        cmd.arg(&self.scenario)
            .args(["--sdk", &self.sdk])
            .args(&self.args);
        if let Some(g) = &self.ground_truth {
            cmd.arg("--ground-truth").arg(g);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        if self.default_signals {
            use std::os::unix::process::CommandExt;
            // SAFETY: runs in the child between fork and exec; signal is async-signal-safe.
            unsafe {
                cmd.pre_exec(|| {
                    for sig in [libc::SIGINT, libc::SIGTERM] {
                        if libc::signal(sig, libc::SIG_DFL) == libc::SIG_ERR {
                            return Err(std::io::Error::last_os_error());
                        }
                    }
                    Ok(())
                });
            }
        }
        if let Some(n) = self.fd_limit {
            use std::os::unix::process::CommandExt;
            let limit = libc::rlimit {
                rlim_cur: n,
                rlim_max: n,
            };
            // SAFETY: runs in the child between fork and exec; setrlimit is async-signal-safe
            // and `limit` is a copy owned by the closure.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        cmd
    }
}

/// `wrapper` (a program and its first arguments) made to run `inner` with `inner`'s
/// environment.
fn wrapping(mut wrapper: Command, inner: &Command) -> Command {
    wrapper.arg(inner.get_program()).args(inner.get_args());
    scrub(&mut wrapper);
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => wrapper.env(k, v),
            None => wrapper.env_remove(k),
        };
    }
    wrapper
}

/// Rank `rank` of a `torchrun` job `job` (`TORCHELASTIC_RUN_ID`, `RANK`, `LOCAL_RANK`) with the
/// tool loaded, writing into `logs` (run directory `torchrun_<job>`), on SDK 1.0.0.
pub fn torchrun_rank(scenario: &Path, logs: &Path, job: &str, rank: usize) -> Direct {
    Direct::new(scenario, "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", logs)
        .env("TORCHELASTIC_RUN_ID", job)
        .env("RANK", rank.to_string())
        .env("LOCAL_RANK", rank.to_string())
}

/// Runs `ranks` processes of `scenario` at once as `torchrun` starts them: one job
/// (`TORCHELASTIC_RUN_ID=job`), each with its `RANK` / `LOCAL_RANK`, all writing into `logs`
/// (run directory `torchrun_<job>`), one file per rank named after it; returns each rank's
/// ground truth (written beside `logs`), in rank order, after every process succeeded.
///
/// The ranks share one job start (`ROCPROF_XPLANE_JOB_START`, as a batch script exports it)
/// and one true instant for their simulated time 0 (`ROCPROF_SIM_START_AT`), so they run side
/// by side on the job clock as a real job's ranks do, however late this machine starts each.
pub fn torchrun_ranks(scenario: &Path, job: &str, logs: &Path, ranks: usize) -> Vec<Value> {
    let dir = logs.parent().unwrap_or(logs);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let start_at = (now.as_nanos() + 1_500_000_000).to_string();
    let job_start = now.as_secs().to_string();
    let children: Vec<_> = (0..ranks)
        .map(|rank| {
            let truth = dir.join(format!("rank{rank}.json"));
            let child = torchrun_rank(scenario, logs, job, rank)
                .env("ROCPROF_XPLANE_OUTPUT_FILE", "%hostname%.rank%rank%")
                .env("WORLD_SIZE", ranks.to_string())
                .env("ROCPROF_XPLANE_JOB_START", &job_start)
                .env("ROCPROF_SIM_START_AT", &start_at)
                .ground_truth(&truth)
                .spawn();
            (child, truth)
        })
        .collect();
    children
        .into_iter()
        .map(|(child, truth)| {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            super::truth::read_truth(&truth)
        })
        .collect()
}
