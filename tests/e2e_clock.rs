//! One job, one clock: the processes of a job, each on a simulated host of its own (the
//! simulator's host clocks: boot clocks days apart, wall clocks off true time; test
//! infrastructure, no GPU), land on one timeline in **real xprof's merged trace viewer**, the
//! view its UI shows when several hosts of a run are selected.
//!
//! Ranks are given one true instant for their simulated time 0 (`ROCPROF_SIM_START_AT`), so an
//! event at one simulated time happens at one true instant in every rank, as the end of a
//! collective does; where the ground truth says a record happened is
//! `base_unix_ns + (t - base_timestamp_ns)`.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use support::paths::{host_of, profiles, tool_library};
use support::sim::Direct;
use support::truth::read_truth;
use support::xspace::{plane, plane_stats, TASK_ENV};
use support::{u, xprof};

const MS: f64 = 1e3; // in xprof's µs

fn unix_now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// Processes that each take their own start as the job time get one origin unless they start
/// on either side of 01:00:00 UTC (`clock::origin_for`); the tests that use that rule do not
/// start within 20 s of it.
fn away_from_the_origin_rule_s_boundary() {
    let day = 86_400_000_000_000u64;
    let boundary = 3_600_000_000_000u64;
    let margin = 20_000_000_000u64;
    let into_day = unix_now_ns() % day;
    if into_day + margin > boundary && into_day < boundary + margin {
        std::thread::sleep(Duration::from_nanos(boundary + margin - into_day));
    }
}

/// The Task Environment's clock statements of a profile.
struct Clock {
    origin_unix_ns: u64,
    error_ns: u64,
    alignment: String,
}

fn clock_of(file: &Path) -> Clock {
    let s = rocprof_xplane::xplane::read_xspace(file).unwrap();
    let env = plane_stats(plane(&s, TASK_ENV));
    let get = |k: &str| {
        env.get(k)
            .unwrap_or_else(|| panic!("{}: no {k} in {:?}", file.display(), env.keys()))
    };
    Clock {
        origin_unix_ns: get("rocprof_xplane_clock_origin_unix_ns").as_u64().unwrap(),
        error_ns: get("rocprof_xplane_clock_error_ns").as_u64().unwrap(),
        alignment: get("rocprof_xplane_clock_alignment")
            .as_str()
            .unwrap()
            .to_string(),
    }
}

/// xprof's merged trace viewer over `files`: every complete event, by host (the process name's
/// first word, the file's host part).
fn merged(files: &[PathBuf]) -> (Value, BTreeMap<String, Vec<Value>>) {
    let m = xprof::merged(files);
    assert_eq!(m["errors"], serde_json::json!({}), "{m}");
    let mut by_host: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for e in m["events"].as_array().unwrap() {
        let host = e["process"].as_str().unwrap().split(' ').next().unwrap();
        by_host.entry(host.to_string()).or_default().push(e.clone());
    }
    (m, by_host)
}

/// The earliest event of a host in the merged view, in µs.
fn first_ts(events: &[Value]) -> f64 {
    events
        .iter()
        .map(|e| e["ts"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min)
}

/// A rank of a `torchrun`-like job (no run name given: the launcher's id names the run), its
/// file named after its rank.
fn rank(scenario: &Path, logs: &Path, truth: &Path, r: usize, job: &str) -> Direct {
    support::sim::torchrun_rank(scenario, logs, job, r)
        .env("ROCPROF_XPLANE_OUTPUT_FILE", "rank%rank%")
        .ground_truth(truth)
}

fn wait_ok(child: std::process::Child, what: &str) {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Two ranks on hosts up 3 and 40 days, the second started 2 s after the first: in xprof's
/// merged view the second rank's first event is 2 s after the first's (±1 ms plus the clock
/// error each profile states), and each first event lies where the ground truth says it
/// happened, counted from the origin the profiles state.
#[test]
fn two_ranks_started_two_seconds_apart_are_two_seconds_apart_in_xprof() {
    if !xprof::available() {
        return;
    }
    away_from_the_origin_rule_s_boundary();
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let scenario = support::paths::builtin("tiny.toml");
    let t0 = unix_now_ns() + 700_000_000;
    let truths = [tmp.path().join("r0.json"), tmp.path().join("r1.json")];
    let first = rank(&scenario, &logs, &truths[0], 0, "two")
        .env("ROCPROF_SIM_BOOTTIME", "3d")
        .env("ROCPROF_SIM_START_AT", t0.to_string())
        .spawn();
    std::thread::sleep(Duration::from_secs(2));
    let second = rank(&scenario, &logs, &truths[1], 1, "two")
        .env("ROCPROF_SIM_BOOTTIME", "40d")
        .env("ROCPROF_SIM_START_AT", (t0 + 2_000_000_000).to_string())
        .spawn();
    wait_ok(first, "rank 0");
    wait_ok(second, "rank 1");
    let files = profiles(&logs, "torchrun_two");
    assert_eq!(files.len(), 2, "{files:?}");
    let clocks: Vec<Clock> = files.iter().map(|f| clock_of(f)).collect();
    assert_eq!(
        clocks[0].origin_unix_ns, clocks[1].origin_unix_ns,
        "one origin"
    );
    for c in &clocks {
        assert_eq!(c.alignment, "aligned by host clocks");
    }
    let (m, by_host) = merged(&files);
    let hosts: Vec<String> = files.iter().map(|f| host_of(f)).collect();
    let firsts: Vec<f64> = hosts.iter().map(|h| first_ts(&by_host[h])).collect();
    let error_us = clocks.iter().map(|c| c.error_ns).sum::<u64>() as f64 / 1e3;
    let apart = firsts[1] - firsts[0];
    assert!(
        (apart - 2_000.0 * MS).abs() <= 1.0 * MS + error_us,
        "rank 1 starts {apart} µs after rank 0 (2 s ± 1 ms + {error_us} µs): {:?}",
        m["full_timespan_ms"]
    );
    // Each where the truth says, on the stated origin.
    for (i, t) in truths.iter().enumerate() {
        let truth = read_truth(t);
        let replay = &truth["replay"];
        let base_unix = u(&replay["base_unix_ns"]);
        // The scenario's first event (its first host call) starts at simulated time 0.
        let expect_us = (base_unix - clocks[i].origin_unix_ns) as f64 / 1e3;
        assert!(
            (firsts[i] - expect_us).abs() <= 1.0 * MS + clocks[i].error_ns as f64 / 1e3,
            "rank {i}: first event at {} µs, truth {expect_us} µs",
            firsts[i]
        );
    }
}

/// A job of four ranks whose hosts' wall clocks are +50, -50, +20 and -30 ms off true time,
/// every rank given one clock reference address: the rank that can listen on it is the job's
/// clock reference, the others estimate their offset to it over the clock exchange. Every
/// rank ends the same collective (`allreduce`, a kernel at one simulated time, so at one true
/// instant in every rank): in xprof's merged view the four `allreduce` kernels start within
/// the stated error of one another. Without the reference, the same job shows them as far
/// apart as the clocks are.
#[test]
fn four_ranks_with_clocks_50_ms_off_line_up_a_collective_with_the_offset_estimate() {
    if !xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("collective.toml");
    std::fs::write(&scenario, COLLECTIVE).unwrap();
    let spread_of = |estimate: bool| -> (f64, f64, Vec<Clock>) {
        let logs = tmp.path().join(if estimate { "with" } else { "without" });
        let job = if estimate { "with" } else { "without" };
        let port = free_port();
        let t0 = unix_now_ns() + 1_500_000_000;
        let children: Vec<_> = (0..4)
            .map(|r| {
                let truth = tmp.path().join(format!("{job}{r}.json"));
                let mut d = rank(&scenario, &logs, &truth, r, job)
                    .env("ROCPROF_SIM_WALL_OFFSET", "+50ms,-50ms,+20ms,-30ms")
                    .env("ROCPROF_SIM_BOOTTIME", format!("{}d", 2 + 9 * r))
                    .env("ROCPROF_SIM_START_AT", t0.to_string());
                if estimate {
                    d = d.env(
                        "ROCPROF_XPLANE_CLOCK_REFERENCE",
                        format!("127.0.0.1:{port}"),
                    );
                }
                d.spawn()
            })
            .collect();
        for (r, c) in children.into_iter().enumerate() {
            wait_ok(c, &format!("rank {r}"));
        }
        let files = profiles(&logs, &format!("torchrun_{job}"));
        assert_eq!(files.len(), 4, "{files:?}");
        let clocks: Vec<Clock> = files.iter().map(|f| clock_of(f)).collect();
        let (_, by_host) = merged(&files);
        let starts: Vec<f64> = files
            .iter()
            .map(|f| {
                let evs = &by_host[&host_of(f)];
                let k: Vec<f64> = evs
                    .iter()
                    .filter(|e| {
                        e["name"] == "allreduce"
                            && !e["row"].as_str().unwrap().contains(" - from #")
                    })
                    .map(|e| e["ts"].as_f64().unwrap())
                    .collect();
                assert_eq!(k.len(), 1, "{}: one allreduce", f.display());
                k[0]
            })
            .collect();
        let spread = starts.iter().cloned().fold(f64::MIN, f64::max)
            - starts.iter().cloned().fold(f64::MAX, f64::min);
        let error_us = clocks.iter().map(|c| c.error_ns).max().unwrap() as f64 / 1e3;
        (spread, error_us, clocks)
    };
    let (spread, error_us, clocks) = spread_of(true);
    let is_reference = |c: &Clock| c.alignment.starts_with("the job's clock reference");
    assert_eq!(
        clocks.iter().filter(|c| is_reference(c)).count(),
        1,
        "one reference"
    );
    for c in clocks.iter().filter(|c| !is_reference(c)) {
        assert!(
            c.alignment
                .starts_with("aligned to the clock of 127.0.0.1:"),
            "{}",
            c.alignment
        );
    }
    let origins: std::collections::BTreeSet<u64> =
        clocks.iter().map(|c| c.origin_unix_ns).collect();
    assert_eq!(origins.len(), 1, "the reference's origin for all");
    assert!(
        spread <= 2.0 * error_us,
        "the collective's ends lie {spread} µs apart; each rank states ±{error_us} µs"
    );
    let (spread_without, _, clocks_without) = spread_of(false);
    assert!(clocks_without
        .iter()
        .all(|c| c.alignment == "aligned by host clocks"));
    assert!(
        (spread_without - 100.0 * MS).abs() < 5.0 * MS,
        "without the reference, as far apart as the clocks: {spread_without} µs"
    );
}

/// A free TCP port on the loopback (free when this returns).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Paced in wall time (the ranks exchange clock readings while they run): setup work, the
/// collective (`allreduce`) at 300 ms, some work after it; 0.6 s in all.
const COLLECTIVE: &str = r#"
name = "collective"
seed = 1
[delivery]
real_time = 1.0
[[gpus]]
preset = "mi300x"
[[kernels]]
name = "forward"
dur_us = 2000
[[kernels]]
name = "allreduce"
dur_us = 500
[[streams]]
name = "s0"
device = 0
[[threads]]
name = "main"
calls = [
  { repeat = 10, calls = [ { op = "launch", kernel = "forward", stream = "s0" }, { op = "sleep", us = 28000 } ] },
  { op = "stream_sync", stream = "s0" },
  { op = "launch", kernel = "allreduce", stream = "s0" },
  { op = "stream_sync", stream = "s0" },
  { repeat = 10, calls = [ { op = "launch", kernel = "forward", stream = "s0" }, { op = "sleep", us = 28000 } ] },
  { op = "stream_sync", stream = "s0" },
]
"#;

/// One process over 25 hours of simulated wall time (the host's clocks follow simulated time):
/// every event keeps its exact time (the ns between any two events as the records have them,
/// and where the truth says it happened within the stated error), nothing overflows, and xprof
/// opens it with every event in place.
#[test]
fn a_run_over_24_hours_keeps_every_time_exact_and_xprof_opens_it() {
    if !xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("day.toml");
    std::fs::write(&scenario, OVER_A_DAY).unwrap();
    let logs = tmp.path().join("logs");
    let truth_file = tmp.path().join("truth.json");
    let log = tmp.path().join("records.jsonl");
    // The simulator's test tool beside ours logs every record as the runtime delivered it.
    let libs = format!(
        "{}:{}:",
        support::paths::sim_test_tool().display(),
        tool_library().display()
    );
    let out = Direct::new(&scenario, "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", &libs)
        .env("ROCPROF_SIM_TEST_TOOL_LOG", &log)
        .env("ROCPROF_XPLANE_OUTPUT_DIR", &logs)
        .env("ROCPROF_XPLANE_RUN_NAME", "day")
        .env("ROCPROF_SIM_BOOTTIME", "2d")
        .ground_truth(&truth_file)
        .output();
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let files = profiles(&logs, "day");
    assert_eq!(files.len(), 1);
    let clock = clock_of(&files[0]);
    let truth = read_truth(&truth_file);
    let replay = &truth["replay"];
    let (base_ts, base_unix) = (u(&replay["base_timestamp_ns"]), u(&replay["base_unix_ns"]));
    let mut records: Vec<u64> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["ev"] == "rec" && v["kind_name"] == "KERNEL_DISPATCH")
        .map(|v| u(&v["start"]))
        .collect();
    records.sort_unstable();
    let s = rocprof_xplane::xplane::read_xspace(&files[0]).unwrap();
    let mut written: Vec<i64> = support::xspace::kernels(&s)
        .iter()
        .map(|k| k.start_ps())
        .collect();
    written.sort_unstable();
    assert_eq!(written.len(), 4);
    assert_eq!(records.len(), 4);
    assert!(
        records[3] - records[0] > 25 * 3_600_000_000_000,
        "{records:?}"
    );
    for (w, r) in written.iter().zip(&records) {
        // Intervals exact to the ns…
        assert_eq!(
            (*w - written[0]) as u64,
            (r - records[0]) * 1000,
            "{written:?} vs {records:?}"
        );
        // …and each where it happened, counted from the stated origin.
        let truth_ns = base_unix + (r - base_ts) - clock.origin_unix_ns;
        assert!(
            (i128::from(*w) / 1000 - i128::from(truth_ns)).unsigned_abs()
                <= 1_000_000 + u128::from(clock.error_ns),
            "{w} ps vs {truth_ns} ns"
        );
    }
    let (m, by_host) = merged(&files);
    let span = m["full_timespan_ms"].as_array().unwrap();
    let span_ms = span[1].as_f64().unwrap() - span[0].as_f64().unwrap();
    assert!(
        span_ms > 24.0 * 3_600_000.0,
        "over a day in xprof: {span:?}"
    );
    let events = &by_host[&host_of(&files[0])];
    let mut ks: Vec<f64> = events
        .iter()
        .filter(|e| e["name"] == "k" && !e["row"].as_str().unwrap().contains(" - from #"))
        .map(|e| e["ts"].as_f64().unwrap())
        .collect();
    ks.sort_by(f64::total_cmp);
    assert_eq!(ks.len(), 4, "every kernel in xprof");
    for (x, w) in ks.iter().zip(&written) {
        assert!(
            (x * 1e6 - *w as f64).abs() < 1e3,
            "xprof {x} µs vs written {w} ps"
        );
    }
}

/// Two kernels, 25 hours of host compute (9,000 sleeps of 10 s, the longest a simulated
/// duration may be), two kernels.
const OVER_A_DAY: &str = r#"
name = "over-a-day"
seed = 1
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
  { op = "launch", kernel = "k", stream = "s0" },
  { op = "stream_sync", stream = "s0" },
  { repeat = 9000, calls = [ { op = "sleep", us = 10000000 } ] },
  { op = "launch", kernel = "k", stream = "s0" },
  { op = "launch", kernel = "k", stream = "s0" },
  { op = "stream_sync", stream = "s0" },
]
"#;

/// Two ranks on one host, the second started 2 s after the first, each recorded by
/// rocprofv3's way (the simulator's test tool, its records written into a rocpd database of
/// its own) and converted together: the two profiles count from one instant of the host's boot
/// clock, so in xprof's merged view the second rank's first event is 2 s after the first's.
/// Given as two hosts, the converter says it cannot put them on one axis.
#[test]
fn rocpd_databases_of_two_ranks_converted_together_land_on_one_timeline() {
    if !xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let scenario = support::paths::builtin("tiny.toml");
    let t0 = unix_now_ns() + 700_000_000;
    let logs: Vec<PathBuf> = (0..2)
        .map(|r| tmp.path().join(format!("r{r}.jsonl")))
        .collect();
    let spawn = |r: usize| {
        Direct::new(&scenario, "1.0.0")
            .env("ROCP_TOOL_LIBRARIES", support::paths::sim_test_tool())
            .env("ROCPROF_SIM_TEST_TOOL_LOG", &logs[r])
            .env(
                "ROCPROF_SIM_START_AT",
                (t0 + 2_000_000_000 * r as u64).to_string(),
            )
            .spawn()
    };
    let first = spawn(0);
    std::thread::sleep(Duration::from_secs(2));
    let second = spawn(1);
    wait_ok(first, "rank 0");
    wait_ok(second, "rank 1");
    let convert = |hosts: [&str; 2], run: &str| {
        let dbs: Vec<PathBuf> = (0..2)
            .map(|r| {
                let db = tmp.path().join(format!("{run}{r}.db"));
                support::rocpd::write_run(&db, &logs[r], &format!("{run}{r}"), hosts[r]);
                db
            })
            .collect();
        let out = std::process::Command::new(support::paths::cli())
            .arg("convert")
            .args(&dbs)
            .arg("--output-dir")
            .arg(tmp.path().join("out"))
            .args(["--run-name", run])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", support::stderr_of(&out));
        (
            profiles(&tmp.path().join("out"), run),
            support::stderr_of(&out),
        )
    };
    let (files, stderr) = convert(["node0", "node0"], "one_host");
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(!stderr.contains("hosts"), "{stderr}");
    let (_, by_host) = merged(&files);
    let firsts: Vec<f64> = files
        .iter()
        .map(|f| first_ts(&by_host[&host_of(f)]))
        .collect();
    let apart = (firsts[1] - firsts[0]).abs();
    assert!(
        (apart - 2_000.0 * MS).abs() <= 1.0 * MS,
        "{apart} µs apart: {firsts:?}"
    );
    let (_, stderr) = convert(["node0", "node1"], "two_hosts");
    assert!(
        stderr.contains("processes of 2 hosts (node0, node1)"),
        "{stderr}"
    );
}
