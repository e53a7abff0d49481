//! `rocprof-sim` command line, run inside the library (`rocprof_sim_main`) so the driver
//! binary stays a thin loader like a real application.

use std::path::PathBuf;

use super::personality::Personality;

const HELP: &str = "\
rocprof-sim — SIMULATED rocprofiler-sdk runtime (test infrastructure, not a profiler)

Loads the tools named in ROCP_TOOL_LIBRARIES exactly as the real rocprofiler-sdk does and
replays a scenario as if an application ran on AMD GPUs. No GPU is used; nothing it produces
is a measurement of real hardware.

usage: rocprof-sim <SCENARIO.toml> [--sdk 0.6.0|1.0.0|1.2.1|1.4.0] [--ground-truth FILE.json] [--seed N]
       rocprof-sim --builtin <basic|stress[:N]|mi250x|empty> [options]   (simulator self-tests)

  --sdk VERSION          SDK personality to impersonate (default 1.0.0)
  --ground-truth FILE    write what was simulated and delivered as JSON (at exit)
  --seed N               override the scenario's delivery-shuffle seed
  --builtin NAME         replay a built-in plan instead of a scenario file
  --fork-child           after the replay, fork(); the child exits at once through exit()
                         (running the atexit handlers it inherited, the runtime's finalization
                         included), the parent waits for it and reports its status
  --fork-exec-child      after the replay, fork(); the child exec()s this same program on the
                         same scenario (a launcher starting a worker): a new process that loads
                         the tools afresh; the parent waits for it and reports its status
  --exit-after-ms MS     return from main MS milliseconds after the replay started, even if
                         application threads are still calling HIP: exit() then runs the
                         runtime's finalization (and every tool's finalize) while those threads
                         keep calling and buffers are still being delivered (an exit race)
  --attach TOOL          with --attach-window: act as a process-attachment driver
                         (rocprof-attach) on this process, loading TOOL while it runs (SDK
                         1.2.1 and later; the process must be started with ROCP_TOOL_ATTACH=1)
  --attach-window A:B    attach at A ms and detach at B ms after the replay began (repeatable: later
                         windows reattach the same tool); A = 0 attaches before the replay's clock
                         starts, so the replay runs attached from its start however long the
                         attach takes
";

struct Args {
    scenario: Option<PathBuf>,
    builtin: Option<String>,
    sdk: Personality,
    ground_truth: Option<PathBuf>,
    seed: Option<u64>,
    fork_child: bool,
    fork_exec_child: bool,
    exit_after_ms: Option<u64>,
    /// `--attach TOOL`: the tool library a process-attachment driver loads later.
    attach_tool: Option<String>,
    /// `--attach-window START_MS:END_MS` (repeatable): attach at START, detach at END, in
    /// wall-clock ms from the program's start.
    attach_windows: Vec<(u64, u64)>,
}

fn parse(args: &[String]) -> Result<Option<Args>, String> {
    let mut out = Args {
        scenario: None,
        builtin: None,
        sdk: Personality::V1_0_0,
        ground_truth: None,
        seed: None,
        fork_child: false,
        fork_exec_child: false,
        exit_after_ms: None,
        attach_tool: None,
        attach_windows: Vec::new(),
    };
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or(format!("{flag} needs a value"));
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--sdk" => {
                let v = value("--sdk")?;
                out.sdk = Personality::parse(&v).ok_or(format!("unknown SDK version `{v}`"))?;
            }
            "--ground-truth" => out.ground_truth = Some(value("--ground-truth")?.into()),
            "--seed" => {
                let v = value("--seed")?;
                out.seed = Some(v.parse().map_err(|_| format!("bad seed `{v}`"))?);
            }
            "--builtin" => out.builtin = Some(value("--builtin")?),
            "--fork-child" => out.fork_child = true,
            "--fork-exec-child" => out.fork_exec_child = true,
            "--exit-after-ms" => {
                let v = value("--exit-after-ms")?;
                out.exit_after_ms = Some(v.parse().map_err(|_| format!("bad milliseconds `{v}`"))?);
            }
            "--attach" => out.attach_tool = Some(value("--attach")?),
            "--attach-window" => {
                let v = value("--attach-window")?;
                let w = v
                    .split_once(':')
                    .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                    .filter(|(a, b)| a < b)
                    .ok_or(format!("bad window `{v}` (START_MS:END_MS, START < END)"))?;
                out.attach_windows.push(w);
            }
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            s => {
                if out.scenario.is_some() {
                    return Err("only one scenario file".into());
                }
                out.scenario = Some(s.into());
            }
        }
    }
    if out.scenario.is_none() && out.builtin.is_none() {
        return Err("missing scenario file".into());
    }
    if out.attach_tool.is_some() == out.attach_windows.is_empty() {
        return Err("--attach and --attach-window go together".into());
    }
    Ok(Some(out))
}

fn load_scenario(path: &std::path::Path) -> Result<crate::plan::Plan, String> {
    // ScenarioError already names the file.
    crate::scenario::load(path).map_err(|e| e.to_string())
}

fn plan_truth(plan: &crate::plan::Plan) -> serde_json::Value {
    serde_json::to_value(crate::truth::GroundTruth::from_plan(plan)).unwrap_or_default()
}

pub fn main(argv: Vec<String>) -> i32 {
    let args = match parse(&argv) {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{HELP}");
            return 0;
        }
        Err(e) => {
            eprintln!("rocprof-sim: {e}\n\n{HELP}");
            return 2;
        }
    };
    let plan = match (&args.builtin, &args.scenario) {
        (Some(b), _) => match super::fixtures::plan(b) {
            Some(p) => p,
            None => {
                eprintln!(
                    "rocprof-sim: unknown builtin `{b}` (have {:?})",
                    super::fixtures::NAMES
                );
                return 2;
            }
        },
        (None, Some(path)) => match load_scenario(path) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("rocprof-sim: {e}");
                return 1;
            }
        },
        (None, None) => unreachable!("parse() requires one of them"),
    };
    let mut plan = plan;
    if let Some(seed) = args.seed {
        plan.delivery.seed = seed;
    }
    let truth = args.ground_truth.as_ref().map(|_| plan_truth(&plan));
    if let Some(tool) = args.attach_tool.clone() {
        schedule_attach(tool, args.attach_windows.clone());
    }
    let (summary, exited_early) = match run(plan, args.sdk, args.exit_after_ms) {
        Ok(Some(s)) => (serde_json::to_value(s).unwrap_or_default(), false),
        Ok(None) => (serde_json::Value::Null, true),
        Err(e) => {
            eprintln!("rocprof-sim: {e}");
            return 1;
        }
    };
    if let (Some(path), Some(truth)) = (args.ground_truth, truth) {
        // Written now (delivery still in progress, in case a tool takes the process down in
        // finalize) and again once finalization is complete, when delivery counts are final.
        let write = move |path: &std::path::Path, finalized: bool| {
            let doc = serde_json::json!({
                "simulated": true,
                "finalized": finalized,
                "exited_early": exited_early,
                "plan": truth,
                "replay": summary,
                "delivery": super::delivery_report(),
            });
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("rocprof-sim: cannot write {}: {e}", path.display());
            }
        };
        // Not when exiting early: the exit must follow at once, racing the replay.
        if !exited_early {
            write(&path, false);
        }
        super::at_finalize_end(move || write(&path, true));
    }
    if args.fork_child {
        fork_a_child_that_exits();
    }
    if args.fork_exec_child {
        fork_a_child_that_execs(&argv);
    }
    0
}

/// Replays the plan; with `exit_after_ms`, on a thread of its own, giving up waiting that long
/// after the replay began (`Ok(None)`: the replay goes on while `main` returns and `exit()`
/// finalizes).
fn run(
    plan: crate::plan::Plan,
    sdk: Personality,
    exit_after_ms: Option<u64>,
) -> Result<Option<super::replay::ReplaySummary>, String> {
    let Some(ms) = exit_after_ms else {
        return super::run_plan(plan, sdk).map(Some);
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let (started_tx, started) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(super::run_plan_then(plan, sdk, move || {
            let _ = started_tx.send(());
        }));
    });
    // The time counts from the replay's start: loading and initializing the tools takes a
    // variable time (a debug build's, on a loaded machine, can take more than 30 ms; counted
    // from the process's start, `main` could return before any tool was initialized, and none
    // would be finalized). A replay that fails to start ends the wait at once.
    let _ = started.recv_timeout(std::time::Duration::from_secs(120));
    match rx.recv_timeout(std::time::Duration::from_millis(ms)) {
        Ok(r) => r.map(Some),
        Err(_) => {
            eprintln!("rocprof-sim: exiting after {ms} ms with the replay still running");
            Ok(None)
        }
    }
}

/// A process-attachment driver (`rocprof-attach -p PID -t TOOL -d MS`) acting on this process:
/// attaches `tool` at each window's start and detaches it at its end, on a thread of its own
/// (the real driver works through ptrace from outside; the runtime's side is the same). Window
/// times count from the replay's start, not the process start (tool loading and scenario
/// set-up take a variable time, longer on a loaded machine, and the windows are meant to fall
/// into the workload); it prints when each step really ended.
fn schedule_attach(tool: String, windows: Vec<(u64, u64)>) {
    let at_start = windows.first().is_some_and(|w| w.0 == 0);
    if at_start {
        *lock_attach_at_start() = Some(tool.clone());
    }
    std::thread::spawn(move || {
        let t0 = loop {
            if let Some(t) = super::replay::REPLAY_STARTED.get() {
                break *t;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        let until = |ms: u64| {
            let at = t0 + std::time::Duration::from_millis(ms);
            std::thread::sleep(at.saturating_duration_since(std::time::Instant::now()));
        };
        let now_ms = || t0.elapsed().as_millis();
        for (i, (start, end)) in windows.into_iter().enumerate() {
            until(start);
            if i == 0 && at_start {
                // Attached before the clock started (`attach_before_the_clock`), which said
                // how that went; the replay's start came after it.
                if ATTACHED_AT_START.get() != Some(&true) {
                    continue;
                }
            } else {
                if let Err(e) = super::attach::attach(&tool) {
                    eprintln!("rocprof-sim: attach at {start} ms: {e}");
                    continue;
                }
                eprintln!(
                    "rocprof-sim: attached {tool} at {start} ms (done at {} ms)",
                    now_ms()
                );
            }
            until(end);
            match super::attach::detach() {
                Ok(()) => eprintln!(
                    "rocprof-sim: detached at {end} ms (done at {} ms)",
                    now_ms()
                ),
                Err(e) => eprintln!("rocprof-sim: detach at {end} ms: {e}"),
            }
        }
    });
}

/// The tool of an `--attach-window 0:B`, attached by the replay before its clock starts.
static ATTACH_AT_START: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

fn lock_attach_at_start() -> std::sync::MutexGuard<'static, Option<String>> {
    ATTACH_AT_START
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether that attach succeeded (set before the replay's clock starts).
static ATTACHED_AT_START: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Called by the (first) replay just before its clock starts: attaches the tool of an
/// `--attach-window 0:B` there, so the replay's first call already reports to the tool's
/// contexts however long loading and attaching the tool take (hundreds of ms for a debug
/// build on a loaded machine: an attach due at a time before a call can end after it).
pub fn attach_before_the_clock() {
    let Some(tool) = lock_attach_at_start().take() else {
        return;
    };
    let ok = match super::attach::attach(&tool) {
        Ok(()) => {
            eprintln!("rocprof-sim: attached {tool} at 0 ms (before the replay's clock started)");
            true
        }
        Err(e) => {
            eprintln!("rocprof-sim: attach at 0 ms: {e}");
            false
        }
    };
    let _ = ATTACHED_AT_START.set(ok);
}

/// A launcher that forks and execs a worker: the child becomes a new program (this one, on the
/// same scenario, without the fork option and the ground-truth file), which loads the tools
/// afresh at its own start.
fn fork_a_child_that_execs(argv: &[String]) {
    let mut child_args: Vec<std::ffi::CString> = Vec::new();
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--fork-exec-child" => {}
            "--ground-truth" => {
                it.next();
            }
            _ => child_args.extend(std::ffi::CString::new(a.as_str())),
        }
    }
    let exe = c"/proc/self/exe";
    let mut ptrs: Vec<*const libc::c_char> = child_args.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    // SAFETY: fork has no preconditions; the child only calls execv and _exit.
    let pid = unsafe { libc::fork() };
    match pid {
        0 => {
            // SAFETY: `exe` and every argument are NUL-terminated and outlive the call; the
            // array is null-terminated. On failure the child leaves without running the
            // parent's atexit handlers.
            unsafe {
                libc::execv(exe.as_ptr(), ptrs.as_ptr());
                libc::_exit(127)
            }
        }
        p if p < 0 => eprintln!("rocprof-sim: fork failed"),
        p => wait_and_report(p, "exec'd child"),
    }
}

/// Waits for child `pid` and says how it ended (`-1` when not by `exit`).
fn wait_and_report(pid: libc::pid_t, what: &str) {
    let mut status = 0;
    // SAFETY: waiting for our own child; `status` is a valid out-pointer.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    eprintln!("rocprof-sim: {what} {pid} exited with {code}");
}

/// A program that forks (a launcher, a data-loader worker, `subprocess` without exec) and whose
/// child leaves through `exit()`: the child inherits the runtime's atexit finalization, and so
/// every tool's finalize, but none of the parent's other threads.
fn fork_a_child_that_exits() {
    // SAFETY: fork has no preconditions; the child only calls exit().
    let pid = unsafe { libc::fork() };
    match pid {
        0 => {
            // SAFETY: plain libc exit in the child: runs the inherited atexit handlers.
            unsafe { libc::exit(0) }
        }
        p if p < 0 => eprintln!("rocprof-sim: fork failed"),
        p => wait_and_report(p, "forked child"),
    }
}
