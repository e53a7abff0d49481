//! Periodic device counters (`ROCPROF_XPLANE_PMC_INTERVAL`), through the simulated
//! rocprofiler-sdk runtime (test infrastructure, not hardware) on both SDK families:
//! `scenarios/device-counters.toml` keeps two GPUs busy, then one idle, for about 0.8 s of wall
//! time; the tool reads each GPU's counters every 10 ms. The simulator logs the truth of every
//! read it served (`ROCPROF_SIM_DEVICE_READS`: the values accumulated since the counters
//! started, instances summed); every point on a GPU plane's `_counters_` line must be the
//! difference of two consecutive reads of that GPU, and `GPU_UTIL` their busy share — none
//! missing, none doubled, in one profile or cut into capture windows. Real xprof draws the
//! points as counter tracks and lists them in perf_counters. A bad interval is one line.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rocprof_xplane::xplane::proto::XSpace;
use serde_json::Value;
use support::paths::builtin;
use support::xspace::{device_planes, events, ordinal, Stat};

/// The user's counters, read beside the two GRBM counters the tool always reads.
const PMC: &str = "SQ_WAVES,SQ_INSTS_VALU_FMA_F32";
const COUNTERS: [&str; 4] = [
    "GRBM_GUI_ACTIVE",
    "GRBM_COUNT",
    "SQ_WAVES",
    "SQ_INSTS_VALU_FMA_F32",
];
/// How far a point's time may be from the simulator's time of its read: the tool takes the
/// time when the read's sample call has returned (before the flush that delivers its values),
/// which a loaded machine can deschedule the sampling thread around.
const TIME_SLACK_NS: i64 = 20_000_000;

/// One read of one counter of one GPU, as the simulator served it.
#[derive(Debug, Clone, Copy)]
struct Read {
    now: u64,
    total: u64,
}

/// One point of a `_counters_` line.
#[derive(Debug, Clone)]
struct Point {
    start_ps: i64,
    value: u64,
    description: String,
}

struct Profiled {
    /// Every profile the run wrote (one, or one per capture window).
    spaces: Vec<XSpace>,
    /// (GPU, counter) → the reads in order.
    reads: BTreeMap<(u32, String), Vec<Read>>,
    stderr: String,
    files: Vec<PathBuf>,
}

fn all_profiles(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.to_string_lossy().ends_with(".xplane.pb") {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

/// Runs the scenario with `env` on `sdk`; the simulator logs its reads.
fn profile(sdk: &str, env: &[(&str, &str)]) -> (tempfile::TempDir, Profiled) {
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join("logs");
    let reads_log = tmp.path().join("reads.jsonl");
    let mut cmd = support::sim::simulate_command(&builtin("device-counters.toml"), sdk, &log_dir);
    cmd.args(["--run-name", "dc"])
        .env("ROCPROF_XPLANE_PMC", PMC)
        .env("ROCPROF_SIM_DEVICE_READS", &reads_log);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run rocprof-xplane simulate");
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{sdk}: {stderr}");
    let files = all_profiles(&log_dir);
    assert!(!files.is_empty(), "{sdk}: no profile\n{stderr}");
    let spaces = files
        .iter()
        .map(|f| rocprof_xplane::xplane::read_xspace(f).unwrap())
        .collect();
    let mut reads: BTreeMap<(u32, String), Vec<Read>> = BTreeMap::new();
    // No file: the simulator served no read.
    let logged = std::fs::read_to_string(&reads_log).unwrap_or_default();
    for line in logged.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        reads
            .entry((
                support::u(&v["gpu"]) as u32,
                v["counter"].as_str().unwrap().to_string(),
            ))
            .or_default()
            .push(Read {
                now: support::u(&v["now"]),
                total: support::u(&v["total"]),
            });
    }
    (
        tmp,
        Profiled {
            spaces,
            reads,
            stderr,
            files,
        },
    )
}

/// (GPU, counter) → the points of every profile's `_counters_` lines, in time order.
fn points(spaces: &[XSpace]) -> BTreeMap<(u32, String), Vec<Point>> {
    let mut out: BTreeMap<(u32, String), Vec<Point>> = BTreeMap::new();
    for s in spaces {
        for p in device_planes(s) {
            for e in events(p)
                .into_iter()
                .filter(|e| e.line.name == "_counters_")
            {
                let Some(Stat::U64(value)) = e.stat("counter_value") else {
                    panic!("{}: counter_value not uint64", e.name());
                };
                let description = e
                    .stat("performance_counter_description")
                    .and_then(|d| d.as_str().map(String::from))
                    .unwrap_or_default();
                out.entry((ordinal(p), e.name().to_string()))
                    .or_default()
                    .push(Point {
                        start_ps: e.start_ps(),
                        value,
                        description,
                    });
            }
        }
    }
    for v in out.values_mut() {
        v.sort_by_key(|p| p.start_ps);
    }
    out
}

/// Every interval between two reads is one point, at its first read, worth the difference of
/// the two; GPU_UTIL is 100 × the busy cycles over the elapsed ones of the same interval.
fn check_against_the_reads(what: &str, run: &Profiled) {
    let got = points(&run.spaces);
    let mut largest_gap_ns = 0;
    for gpu in [0u32, 1] {
        for counter in COUNTERS {
            let reads = &run.reads[&(gpu, counter.to_string())];
            assert!(reads.len() >= 20, "{what}: {} reads", reads.len());
            let pts = got
                .get(&(gpu, counter.to_string()))
                .unwrap_or_else(|| panic!("{what}: no {counter} points on GPU {gpu}"));
            assert_eq!(
                pts.len(),
                reads.len() - 1,
                "{what}: GPU {gpu} {counter}: one point per interval"
            );
            for (k, p) in pts.iter().enumerate() {
                let want = reads[k + 1].total - reads[k].total;
                assert_eq!(p.value, want, "{what}: GPU {gpu} {counter} interval {k}");
            }
            largest_gap_ns = largest_gap_ns.max(check_times(what, gpu, counter, pts, reads));
        }
        let busy = &run.reads[&(gpu, "GRBM_GUI_ACTIVE".to_string())];
        let count = &run.reads[&(gpu, "GRBM_COUNT".to_string())];
        let util = &got[&(gpu, "GPU_UTIL".to_string())];
        assert_eq!(util.len(), busy.len() - 1, "{what}: GPU {gpu} GPU_UTIL");
        let mut shares = Vec::new();
        for (k, p) in util.iter().enumerate() {
            let b = (busy[k + 1].total - busy[k].total) as f64;
            let c = (count[k + 1].total - count[k].total) as f64;
            let share = 100.0 * b / c;
            assert_eq!(
                p.value,
                share.round() as u64,
                "{what}: GPU {gpu} interval {k}"
            );
            assert!(
                p.description.contains(&format!("busy {share:.2} %")),
                "{what}: {}",
                p.description
            );
            shares.push(share);
        }
        // The busy share changes over the run: GPU 0 works, then idles.
        let (lo, hi) = shares
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        assert!(hi > 1.0, "{what}: GPU {gpu} never busy: {shares:?}");
        if gpu == 0 {
            assert!(lo == 0.0, "{what}: GPU 0 never idle: {shares:?}");
        }
    }
    // How near the points' times are to the reads' (seen with `-- --nocapture`).
    eprintln!("{what}: the points' spacing is within {largest_gap_ns} ns of the reads'");
}

/// The points keep the reads' times: the spacing of consecutive points is that of the reads,
/// within the time a read takes. Returns the largest gap between the two, in ns.
fn check_times(what: &str, gpu: u32, counter: &str, pts: &[Point], reads: &[Read]) -> i64 {
    let mut largest = 0;
    for k in 1..pts.len() {
        let tool = (pts[k].start_ps - pts[0].start_ps) / 1000;
        let sim = (reads[k].now - reads[0].now) as i64;
        let gap = (tool - sim).abs();
        assert!(
            gap <= TIME_SLACK_NS,
            "{what}: GPU {gpu} {counter} point {k}: {tool} ns after the first, read {sim} ns after"
        );
        largest = largest.max(gap);
    }
    largest
}

fn one_profile_equals_the_reads(sdk: &str) {
    let (_tmp, run) = profile(sdk, &[("ROCPROF_XPLANE_PMC_INTERVAL", "0.01")]);
    assert_eq!(run.files.len(), 1, "{:?}", run.files);
    check_against_the_reads(sdk, &run);
    // Per-dispatch counting is off, and said once.
    assert_eq!(
        run.stderr
            .matches("counters are read per device every interval, not per dispatch")
            .count(),
        1,
        "{}",
        run.stderr
    );
    for p in device_planes(&run.spaces[0]) {
        for e in events(p).into_iter().filter(|e| e.is_kernel()) {
            assert!(
                e.stat("SQ_WAVES").is_none(),
                "{sdk}: a kernel has counter stats"
            );
        }
    }
}

#[test]
fn sampled_values_equal_the_simulators_reads_sdk_0_6_0() {
    one_profile_equals_the_reads("0.6.0");
}

#[test]
fn sampled_values_equal_the_simulators_reads_sdk_1_0_0() {
    one_profile_equals_the_reads("1.0.0");
}

/// Cut into capture windows every 100 ms and merged at exit, the windows together hold every
/// interval once: the one across a cut is in the window its end is in, drawn from its start.
#[test]
fn capture_windows_neither_lose_nor_double_an_interval() {
    for sdk in ["0.6.0", "1.0.0"] {
        let (_tmp, run) = profile(
            sdk,
            &[
                ("ROCPROF_XPLANE_PMC_INTERVAL", "0.01"),
                ("ROCPROF_XPLANE_WINDOW_SECONDS", "0.1"),
                ("ROCPROF_XPLANE_WINDOW_MERGE", "1"),
            ],
        );
        let windows = run.stderr.matches("wrote window ").count();
        assert!(windows >= 4, "{sdk}: {windows} windows\n{}", run.stderr);
        assert_eq!(
            run.files.len(),
            1,
            "{sdk}: one merged profile: {:?}",
            run.files
        );
        check_against_the_reads(&format!("{sdk}, {windows} windows merged"), &run);
    }
}

/// A bad interval is one line naming the setting and what it expects; the run is profiled
/// without device counters.
#[test]
fn a_bad_interval_is_one_clear_line() {
    for bad in ["0", "10ms", "-1", "soon"] {
        let (_tmp, run) = profile("1.0.0", &[("ROCPROF_XPLANE_PMC_INTERVAL", bad)]);
        let lines: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.contains("PMC_INTERVAL"))
            .collect();
        assert_eq!(lines.len(), 1, "{bad}: {lines:?}");
        assert!(
            lines[0].contains(&format!("ROCPROF_XPLANE_PMC_INTERVAL=\"{bad}\" is invalid"))
                && lines[0].contains("expected seconds, at least 0.001"),
            "{bad}: {}",
            lines[0]
        );
        assert!(
            points(&run.spaces)
                .keys()
                .all(|(_, c)| c != "GPU_UTIL" && c != "GRBM_COUNT"),
            "{bad}: device counters read"
        );
    }
}

/// Through real xprof: the trace viewer draws GPU_UTIL and every counter read as one counter
/// track per GPU, a point per interval; perf_counters lists them per GPU.
#[test]
fn xprof_draws_the_device_counter_tracks() {
    if !support::xprof::available() {
        return;
    }
    let (_tmp, run) = profile("1.0.0", &[("ROCPROF_XPLANE_PMC_INTERVAL", "0.01")]);
    let v = support::xprof::views(&run.files[0]);
    assert_eq!(v["errors"], serde_json::json!({}), "{v}");
    let drawn = v["counter_tracks"].as_object().unwrap();
    let mut rows: BTreeMap<(u64, String), u64> = BTreeMap::new();
    for row in v["perf_counters"].as_array().unwrap() {
        *rows
            .entry((
                row["Chip"].as_f64().unwrap() as u64,
                row["Counter"].as_str().unwrap().to_string(),
            ))
            .or_default() += 1;
    }
    for gpu in [0u32, 1] {
        let (_, tracks) = drawn
            .iter()
            .find(|(p, _)| p.ends_with(&format!("/device:GPU:{gpu}")))
            .unwrap_or_else(|| panic!("no counter tracks for GPU {gpu}: {drawn:?}"));
        let intervals = run.reads[&(gpu, "GRBM_COUNT".to_string())].len() as u64 - 1;
        for name in COUNTERS.iter().chain(&["GPU_UTIL"]) {
            assert_eq!(
                tracks[*name].as_u64(),
                Some(intervals),
                "GPU {gpu} {name}: {tracks:?}"
            );
            assert_eq!(
                rows.get(&(u64::from(gpu), name.to_lowercase())),
                Some(&intervals),
                "perf_counters GPU {gpu} {name}"
            );
        }
    }
}

/// Attached, detached and attached again (SDK 1.2.1 process attachment, a paced
/// `live-capture` run): the sampling thread stops at the detach and starts again at the
/// reattach, the program ends on time, and each session's profile holds exactly the intervals
/// between the reads of its own session — none spans the gap, where the counters restarted.
#[test]
fn a_reattach_reads_afresh_and_the_thread_stops_at_each_detach() {
    use support::paths::{profiles, tool_library};
    let tmp = tempfile::tempdir().unwrap();
    let reads_log = tmp.path().join("reads.jsonl");
    let scenario = support::paths::scaled_scenario(tmp.path(), "live-capture.toml", 250, 30);
    let began = std::time::Instant::now();
    let out = support::sim::Direct::new(&scenario, "1.2.1")
        .env("ROCPROF_XPLANE_OUTPUT_DIR", tmp.path().join("logs"))
        .env("ROCPROF_XPLANE_RUN_NAME", "att")
        .env("ROCPROF_XPLANE_PMC_INTERVAL", "0.02")
        .env("ROCPROF_SIM_DEVICE_READS", &reads_log)
        .env("ROCP_TOOL_ATTACH", "1")
        .arg("--attach")
        .arg(tool_library().to_str().unwrap())
        .arg("--attach-window")
        .arg("500:1200")
        .arg("--attach-window")
        .arg("1800:2400")
        .output();
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        began.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        began.elapsed()
    );
    // The simulator's reads of GRBM_COUNT, split into sessions where the reads pause.
    let mut sessions: Vec<Vec<Read>> = Vec::new();
    let mut last = 0u64;
    for line in std::fs::read_to_string(&reads_log).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["counter"] != "GRBM_COUNT" {
            continue;
        }
        let r = Read {
            now: support::u(&v["now"]),
            total: support::u(&v["total"]),
        };
        if sessions.is_empty() || r.now - last > 200_000_000 {
            sessions.push(Vec::new());
        }
        last = r.now;
        sessions.last_mut().unwrap().push(r);
    }
    assert_eq!(sessions.len(), 2, "{stderr}");
    let logs = tmp.path().join("logs");
    for (reads, run) in sessions.iter().zip(["att", "att_attach02"]) {
        let files = profiles(&logs, run);
        assert_eq!(files.len(), 1, "{run}: {stderr}");
        let space = rocprof_xplane::xplane::read_xspace(&files[0]).unwrap();
        let got = points(std::slice::from_ref(&space));
        let pts = &got[&(0, "GRBM_COUNT".to_string())];
        assert!(reads.len() >= 10, "{run}: {} reads", reads.len());
        assert_eq!(pts.len(), reads.len() - 1, "{run}");
        for (k, p) in pts.iter().enumerate() {
            assert_eq!(p.value, reads[k + 1].total - reads[k].total, "{run} {k}");
        }
        // GPU_UTIL over every interval in which cycles elapsed: two reads the simulator's
        // clock gave one instant (it stands still while its replay is ahead) have none.
        let timed = pts.iter().filter(|p| p.value > 0).count();
        assert_eq!(got[&(0, "GPU_UTIL".to_string())].len(), timed, "{run}");
    }
}
