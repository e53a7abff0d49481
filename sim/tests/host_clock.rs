//! Each process run by `rocprof-sim` lives on a simulated host with clocks of its own
//! (`ROCPROF_SIM_BOOTTIME`, `_WALL_OFFSET`, `_WALL_STEP`, `_START_AT`): what a tool reads
//! through `clock_gettime` and the SDK clock, against the machine's kernel clocks (the raw
//! system call, which no library can stand in for).

mod common;

use common::{run_opts, Opts, Sim};
use serde_json::Value;

const DAY_NS: u64 = 86_400_000_000_000;
const MS: i128 = 1_000_000;

/// One thread: a kernel, an hour of host compute (simulated: the replay takes no such time;
/// 360 sleeps, as a simulated duration lasts at most 10 s), a kernel. The simulated time then runs far ahead of the machine's clocks.
const HOUR_APART: &str = r#"
name = "hour-apart"
[[gpus]]
preset = "mi300x"
[[kernels]]
name = "k"
dur_us = 10
[[streams]]
name = "s0"
device = 0
[[threads]]
name = "main"
calls = [
  { op = "launch", kernel = "k", stream = "s0" },
  { op = "stream_sync", stream = "s0" },
  { repeat = 360, calls = [ { op = "sleep", us = 10000000 } ] },
  { op = "launch", kernel = "k", stream = "s0" },
  { op = "stream_sync", stream = "s0" },
]
"#;

fn scenario(dir: &std::path::Path, text: &str) -> String {
    let path = dir.join("scenario.toml");
    std::fs::write(&path, text).unwrap();
    format!("file:{}", path.display())
}

fn run_with(plan: &str, env: Vec<(&str, &str)>) -> Sim {
    let mut o = Opts::new("1.0.0", plan, "");
    o.env = env;
    let s = run_opts(o);
    assert_eq!(s.code, Some(0), "{}", s.stderr);
    s
}

/// The clocks the test tool read at `at` (`initialize` or `finalize`).
fn clocks<'a>(s: &'a Sim, at: &str) -> &'a Value {
    let c = s.ev("clocks");
    &c.iter()
        .find(|c| c["at"] == at)
        .unwrap_or_else(|| panic!("no clocks at {at}"))["clocks"]
}

fn ns(v: &Value, key: &str) -> i128 {
    i128::from(v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}")))
}

/// The host's wall clock minus its boot clock.
fn wall_minus_boot(c: &Value) -> i128 {
    ns(c, "realtime") - ns(c, "boottime")
}

#[test]
fn without_settings_a_process_reads_the_machine_s_clocks() {
    let s = run_with("basic", vec![]);
    let c = clocks(&s, "initialize");
    // Each pair read within a few µs of each other (10 ms allows a loaded machine).
    assert!(
        (ns(c, "boottime") - ns(c, "machine_boottime")).abs() < 10 * MS,
        "{c}"
    );
    assert!(
        (ns(c, "realtime") - ns(c, "machine_realtime")).abs() < 10 * MS,
        "{c}"
    );
    assert!(
        ns(c, "boottime") >= ns(c, "sdk"),
        "SDK clock read first: {c}"
    );
    assert!(ns(c, "boottime") - ns(c, "sdk") < 10 * MS, "{c}");
}

#[test]
fn each_process_reads_the_boot_and_wall_clocks_of_its_host() {
    let s = run_with(
        "basic",
        vec![
            ("ROCPROF_SIM_BOOTTIME", "3d"),
            ("ROCPROF_SIM_WALL_OFFSET", "+50ms"),
        ],
    );
    let c = clocks(&s, "initialize");
    // Up three days when the process started, a moment before the tool's initialize.
    let up = ns(c, "boottime") - i128::from(3 * DAY_NS);
    assert!((0..60_000 * MS).contains(&up), "{c}");
    assert!(ns(c, "boottime") - ns(c, "sdk") < 10 * MS, "{c}");
    let ahead = ns(c, "realtime") - ns(c, "machine_realtime");
    assert!(
        (ahead - 50 * MS).abs() < 10 * MS,
        "wall clock 50 ms ahead: {c}"
    );
    // Every record is stamped on the host's boot clock, from the replay's base on.
    let replay = &s.truth["replay"];
    let base = replay["base_timestamp_ns"].as_u64().unwrap();
    assert!(base.abs_diff(3 * DAY_NS) < 60_000_000_000, "{replay}");
    let recs = s.ev("rec");
    assert!(!recs.is_empty());
    for r in recs {
        if let Some(start) = r["start"].as_u64() {
            assert!(start >= base, "{r}");
        }
    }
    assert_eq!(
        replay["host_clock"]["wall_offset_ns"].as_i64(),
        Some(50_000_000)
    );
}

/// The replay runs an hour of simulated time in a moment; the host's wall clock goes with its
/// boot clock (the SDK clock), so a tool sees no drift between them, as on a real host.
#[test]
fn the_host_wall_clock_follows_simulated_time() {
    let dir = tempfile::tempdir().unwrap();
    let plan = scenario(dir.path(), HOUR_APART);
    let s = run_with(&plan, vec![("ROCPROF_SIM_WALL_OFFSET", "-50ms")]);
    let (a, b) = (clocks(&s, "initialize"), clocks(&s, "finalize"));
    let ran = ns(b, "sdk") - ns(a, "sdk");
    assert!(ran >= 3_600_000 * MS, "an hour of simulated time: {a} {b}");
    let machine = ns(b, "machine_realtime") - ns(a, "machine_realtime");
    assert!(machine < 600_000 * MS, "in much less machine time: {a} {b}");
    let drift = wall_minus_boot(b) - wall_minus_boot(a);
    assert!(drift.abs() < MS, "the two clocks keep together: {drift} ns");
    // The records' times are an hour apart too.
    let kernels: Vec<u64> = s
        .recs("KERNEL_DISPATCH")
        .iter()
        .map(|r| r["start"].as_u64().unwrap())
        .collect();
    assert_eq!(kernels.len(), 2);
    assert!(kernels[1] - kernels[0] >= 3_600_000_000_000);
}

#[test]
fn a_wall_step_moves_the_wall_clock_when_simulated_time_reaches_it() {
    let dir = tempfile::tempdir().unwrap();
    let plan = scenario(dir.path(), HOUR_APART);
    let s = run_with(&plan, vec![("ROCPROF_SIM_WALL_STEP", "30m:+100ms")]);
    let (a, b) = (clocks(&s, "initialize"), clocks(&s, "finalize"));
    let step = wall_minus_boot(b) - wall_minus_boot(a);
    assert!((step - 100 * MS).abs() < MS, "stepped by 100 ms: {step} ns");
    assert_eq!(
        s.truth["replay"]["host_clock"]["wall_step"],
        serde_json::json!({"at_ns": 1_800_000_000_000u64, "by_ns": 100_000_000})
    );
}

/// `ROCPROF_SIM_START_AT` puts simulated time 0 at a true instant: the driver waits for it,
/// and a record stamped `t` happened at `base_unix_ns + (t - base_timestamp_ns)`.
#[test]
fn start_at_puts_simulated_time_zero_at_that_instant() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let at = now + 1_500_000_000;
    let at_s = at.to_string();
    let began = std::time::Instant::now();
    let s = run_with(
        "basic",
        vec![
            ("ROCPROF_SIM_START_AT", &at_s),
            ("ROCPROF_SIM_BOOTTIME", "40d"),
        ],
    );
    assert!(
        began.elapsed() >= std::time::Duration::from_millis(1_400),
        "the driver waited for the instant"
    );
    let replay = &s.truth["replay"];
    assert_eq!(replay["base_unix_ns"].as_u64(), Some(at));
    // The tool, started before that instant, maps the host's boot clock to its wall clock as
    // it read both at initialize: simulated time 0 lands on the instant (no wall offset).
    let c = clocks(&s, "initialize");
    let base = i128::from(replay["base_timestamp_ns"].as_u64().unwrap());
    let mapped = base + wall_minus_boot(c);
    assert!(
        (mapped - i128::from(at)).abs() < MS,
        "{mapped} vs {at}: {c}"
    );
}

#[test]
fn a_list_gives_each_rank_its_own_setting() {
    let s = run_with(
        "basic",
        vec![("ROCPROF_SIM_WALL_OFFSET", "-50ms,+70ms"), ("RANK", "1")],
    );
    assert_eq!(
        s.truth["replay"]["host_clock"]["wall_offset_ns"].as_i64(),
        Some(70_000_000)
    );
}

#[test]
fn a_bad_setting_is_one_line_and_nothing_runs() {
    for (var, value, says) in [
        ("ROCPROF_SIM_WALL_OFFSET", "fast", "unknown unit `fast`"),
        ("ROCPROF_SIM_BOOTTIME", "-3d", "must be above 0"),
        ("ROCPROF_SIM_WALL_STEP", "100ms", "expected AT:BY"),
        ("ROCPROF_SIM_WALL_OFFSET", "1s,2s", "none for rank 7"),
    ] {
        let mut o = Opts::new("1.0.0", "basic", "");
        o.env = vec![(var, value), ("RANK", "7")];
        let s = run_opts(o);
        assert_eq!(s.code, Some(2), "{var}={value}: {}", s.stderr);
        let lines: Vec<&str> = s.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{var}={value}: {}", s.stderr);
        assert!(
            lines[0].contains(var) && lines[0].contains(says),
            "{var}={value}: {}",
            s.stderr
        );
        assert!(s.log.is_empty(), "no tool was loaded");
    }
}
