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
";

struct Args {
    scenario: Option<PathBuf>,
    builtin: Option<String>,
    sdk: Personality,
    ground_truth: Option<PathBuf>,
    seed: Option<u64>,
    fork_child: bool,
}

fn parse(args: &[String]) -> Result<Option<Args>, String> {
    let mut out = Args {
        scenario: None,
        builtin: None,
        sdk: Personality::V1_0_0,
        ground_truth: None,
        seed: None,
        fork_child: false,
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
    let summary = match super::run_plan(plan, args.sdk) {
        Ok(s) => s,
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
                "plan": truth,
                "replay": summary,
                "delivery": super::delivery_report(),
            });
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("rocprof-sim: cannot write {}: {e}", path.display());
            }
        };
        write(&path, false);
        super::at_finalize_end(move || write(&path, true));
    }
    if args.fork_child {
        fork_a_child_that_exits();
    }
    0
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
        p => {
            let mut status = 0;
            // SAFETY: waiting for our own child; `status` is a valid out-pointer.
            unsafe { libc::waitpid(p, &mut status, 0) };
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                -1
            };
            eprintln!("rocprof-sim: forked child {p} exited with {code}");
        }
    }
}
