//! Profiling a running job on demand through the profiler service
//! (`ROCPROF_XPLANE_SERVER`), driven by **real xprof's capture client** (the library behind the
//! Capture Profile button and the continuous-profiling API), against the paced
//! `scenarios/live-capture.toml` in the simulated rocprofiler-sdk runtime (test
//! infrastructure, not hardware).

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use rocprof_xplane::xplane::proto::XSpace;
use rocprof_xplane::xplane::read_xspace;
use serde_json::Value;
use support::paths::tool_library;
use support::served::{live, wait_bounded, Served};
use support::sim::Direct;
use support::truth::read_truth;
use support::u;
use support::xspace::{count_by_name, device_counts_by_name, host_api_events};

/// Every `.xplane.pb` under `<logdir>/plugins/profile/`, by run directory.
fn captured(logdir: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut m: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for run in std::fs::read_dir(logdir.join("plugins/profile"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let mut files: Vec<PathBuf> = std::fs::read_dir(run.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".xplane.pb"))
            .collect();
        files.sort();
        m.insert(run.file_name().to_string_lossy().into_owned(), files);
    }
    m
}

fn client(args: &[&str]) -> Value {
    support::xprof::capture_client(args)
}

fn kernels_of(s: &XSpace) -> u64 {
    device_counts_by_name(s).0.values().sum()
}

/// The Capture Profile path: xprof's `trace()` against a running simulated job. The capture
/// succeeds, the client writes the file into the logdir layout xprof lists
/// (`plugins/profile/<session>/<addr>.xplane.pb`), and it holds exactly the records the
/// runtime emitted for us during the window (the simulator's ground truth: it emits only while
/// our buffers are on, which is the window). Real xprof opens it with the window's kernels.
/// The process itself writes nothing and runs to its end.
#[test]
fn xprof_capture_profile_gets_the_window_with_the_truth_counts() {
    if !support::xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let truth = tmp.path().join("truth.json");
    let own_dir = tmp.path().join("own");
    let served = Served::start(
        Direct::new(&live(tmp.path(), 40), "1.0.0")
            .env("ROCPROF_XPLANE_OUTPUT_DIR", &own_dir)
            .ground_truth(&truth),
    );
    let logdir = tmp.path().join("xprof-logdir");
    let r = client(&["trace", &served.addr, logdir.to_str().unwrap(), "1000"]);
    assert_eq!(r["ok"], true, "{r}");
    let port = served.port().to_string();
    let (ok, stderr) = served.finish();
    assert!(ok, "{stderr}");
    let runs = captured(&logdir);
    assert_eq!(runs.len(), 1, "{runs:?}");
    let files = runs.values().next().unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name, format!("127.0.0.1_{port}.xplane.pb"));
    assert!(
        !own_dir.exists(),
        "the process wrote nothing itself: {stderr}"
    );

    let s = read_xspace(&files[0]).unwrap();
    let emitted = &read_truth(&truth)["delivery"]["emitted_per_kind"];
    let (by_name, copies) = device_counts_by_name(&s);
    assert_eq!(
        kernels_of(&s),
        u(&emitted["KERNEL_DISPATCH"]),
        "{by_name:?}"
    );
    assert_eq!(copies, u(&emitted["MEMORY_COPY"]));
    assert_eq!(
        host_api_events(&s).len() as u64,
        support::truth::hip_calls_recorded(&read_truth(&truth), true)
    );
    // About one second of ~95 steps per second (wide bounds for a loaded machine).
    let n = by_name["forward"];
    assert!((40..=110).contains(&n), "{by_name:?}");
    // A step cut by the window's end may have its forward kernel inside and not its backward.
    assert!(
        by_name["forward"].abs_diff(by_name["backward"]) <= 1,
        "{by_name:?}"
    );

    let x = support::xprof::summary(&files[0], &support::paths::host_of(&files[0]));
    assert_eq!(x["errors"], serde_json::json!({}), "{x}");
    let occ = support::xprof::occurrences(&x["kernel_stats"]);
    assert_eq!(occ.values().sum::<u64>(), kernels_of(&s), "{occ:?}");
    // A kernel whose launch fell before the window carries no arrow end without a start.
    for (id, f) in x["trace"]["flows"].as_object().unwrap() {
        assert!(u(&f["in"]) == 0 || u(&f["out"]) > 0, "flow {id}: {f}");
    }
}

/// `host_tracer_level` 0 / `device_tracer_level` 0 from the capture options leave out the
/// host API calls / the GPU activity; an empty window (nothing traced) is answered as "no trace"
/// (the client's UNAVAILABLE), never a silent success.
#[test]
fn tracer_levels_and_an_empty_window() {
    if !support::xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Each run goes on until the test is done with it (`ROCPROF_SIM_END_FILE`): a call of
    // xprof's client starts a Python process, slow on a loaded machine.
    let end = tmp.path().join("end");
    let served = Served::start(
        Direct::new(&live(tmp.path(), 250), "1.0.0").env("ROCPROF_SIM_END_FILE", &end),
    );
    let logdir = tmp.path().join("logdir");
    let opts = r#"{"session_id": "device_only", "host_tracer_level": 0}"#;
    let r = client(&[
        "trace",
        &served.addr,
        logdir.to_str().unwrap(),
        "500",
        "1",
        opts,
    ]);
    assert_eq!(r["ok"], true, "{r}");
    let opts = r#"{"session_id": "host_only", "device_tracer_level": 0}"#;
    let r = client(&[
        "trace",
        &served.addr,
        logdir.to_str().unwrap(),
        "500",
        "1",
        opts,
    ]);
    assert_eq!(r["ok"], true, "{r}");
    std::fs::write(&end, "").unwrap();
    let (ok, stderr) = served.finish();
    assert!(ok, "{stderr}");
    let runs = captured(&logdir);
    let device_only = read_xspace(&runs["device_only"][0]).unwrap();
    assert!(kernels_of(&device_only) > 0);
    assert!(host_api_events(&device_only).is_empty());
    let host_only = read_xspace(&runs["host_only"][0]).unwrap();
    assert_eq!(kernels_of(&host_only), 0);
    assert!(!host_api_events(&host_only).is_empty());

    // A process idle during the window (one kernel, up to 60 s of host time until the test
    // ends it, one kernel).
    let idle_toml = tmp.path().join("idle.toml");
    std::fs::write(&idle_toml, IDLE).unwrap();
    let idle_end = tmp.path().join("idle_end");
    let idle =
        Served::start(Direct::new(&idle_toml, "1.0.0").env("ROCPROF_SIM_END_FILE", &idle_end));
    std::thread::sleep(Duration::from_millis(300));
    let r = client(&["trace", &idle.addr, logdir.to_str().unwrap(), "300", "2"]);
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r["error"].as_str().unwrap().contains("No trace event"),
        "{r}"
    );
    std::fs::write(&idle_end, "").unwrap();
    let (ok, stderr) = idle.finish();
    assert!(ok, "{stderr}");
}

const IDLE: &str = r#"
name = "idle"
seed = 1
[delivery]
real_time = 1.0
[[gpus]]
preset = "mi300x"
[[kernels]]
name = "k"
dur_us = 100
[[threads]]
name = "t"
calls = [
  { op = "launch", kernel = "k" },
  { repeat = 6, calls = [{ op = "sleep", us = 10000000 }] },
  { op = "launch", kernel = "k" },
]
"#;

/// Continuous profiling through xprof's API: start, snapshots while the run goes on, stop.
/// Each snapshot is a complete XPlane of the recent past only: it spans about the kept time
/// (`ROCPROF_XPLANE_RING_SECONDS=1`, plus at most a segment), and within it nothing is
/// missing (the steady 10.5 ms step leaves no gap longer than a step on the compute stream,
/// where a lost segment would leave 100 ms). Launch arrows still meet across segment cuts. A
/// second start, and snapshot or stop with no session, answer as the protocol says. The run
/// (26 s at most) goes on until the test is done with it (`ROCPROF_SIM_END_FILE`): each call of
/// xprof's client starts a Python process, which on a loaded machine took long enough that a
/// run of fixed length had ended before the first snapshot.
#[test]
fn continuous_profiling_snapshots_hold_the_recent_past_while_the_run_goes_on() {
    if !support::xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let end = tmp.path().join("end");
    let served = Served::start(
        Direct::new(&live(tmp.path(), 250), "1.0.0")
            .env("ROCPROF_XPLANE_RING_SECONDS", "1")
            .env("ROCPROF_SIM_END_FILE", &end),
    );
    let addr = served.addr.clone();
    let logdir = tmp.path().join("logdir");
    let ld = logdir.to_str().unwrap();
    let r = client(&["snapshot", &addr, ld]);
    assert_eq!(r["ok"], false, "no session yet: {r}");
    assert!(r["error"].as_str().unwrap().contains("NOT_FOUND"), "{r}");
    assert_eq!(client(&["start", &addr])["ok"], true);
    let again = client(&["start", &addr]);
    assert!(
        again["error"]
            .as_str()
            .unwrap_or("")
            .contains("ALREADY_EXISTS"),
        "{again}"
    );
    // A capture while the recorder runs is refused (the client reports "no trace").
    let busy = client(&["trace", &addr, ld, "200"]);
    assert_eq!(busy["ok"], false, "{busy}");
    std::thread::sleep(Duration::from_millis(2500));
    let r = client(&["snapshot", &addr, ld]);
    assert_eq!(r["ok"], true, "{r}");
    std::thread::sleep(Duration::from_millis(1200));
    let r = client(&["snapshot", &addr, ld]);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(client(&["stop", &addr])["ok"], true);
    let r = client(&["stop", &addr]);
    assert!(
        r["error"].as_str().unwrap_or("").contains("NOT_FOUND"),
        "{r}"
    );
    std::fs::write(&end, "").unwrap();
    let (ok, stderr) = served.finish();
    assert!(ok, "{stderr}");

    let runs = captured(&logdir);
    let files: Vec<&PathBuf> = runs.values().flatten().collect();
    assert_eq!(files.len(), 2, "{runs:?}");
    let mut last_end = 0;
    for f in files {
        let s = read_xspace(f).unwrap();
        let mut starts: Vec<(i64, i64)> = support::xspace::kernels(&s)
            .iter()
            .map(|e| {
                (
                    e.start_ps() / 1000,
                    (e.start_ps() + e.event.duration_ps) / 1000,
                )
            })
            .collect();
        starts.sort();
        let span = starts.last().unwrap().1 - starts[0].0;
        assert!(
            (900_000_000..=1_600_000_000).contains(&span),
            "{f:?}: the snapshot spans {span} ns, not the last second"
        );
        let worst = starts.windows(2).map(|w| w[1].0 - w[0].0).max().unwrap();
        assert!(worst < 60_000_000, "{f:?}: a {worst} ns hole");
        assert!(starts[0].0 > last_end - 1_600_000_000);
        last_end = starts.last().unwrap().1;
        // A kernel shown without its launch lies at an edge of the ring: launched before the
        // kept time (its call's segment let go), or at the snapshot's cut, where the kernel
        // buffer's flush came after the API buffer's and took kernels whose calls' records
        // were not delivered yet. How many depends on how long the machine delays those
        // flushes; between segments none is parted from its launch. One thread launches onto
        // one stream in order, so the edge ones are a run at either end of the kernels by time.
        let mut by_time = support::xspace::kernels(&s);
        by_time.sort_by_key(|e| e.start_ps());
        let orphan: Vec<bool> = by_time
            .iter()
            .map(|e| e.stat("orphan_correlation_id").is_some())
            .collect();
        let head = orphan.iter().take_while(|&&o| o).count();
        let tail = orphan[head..].iter().rev().take_while(|&&o| o).count();
        let parted = orphan[head..orphan.len() - tail]
            .iter()
            .filter(|&&o| o)
            .count();
        assert_eq!(
            parted, 0,
            "{f:?}: {parted} kernels lost their launch across segments ({head} at the start and {tail} at the end without theirs)"
        );
        assert!(
            support::xspace::counter(&s, "activities_without_api") >= (head + tail) as u64,
            "{f:?}"
        );
        let x = support::xprof::summary(f, &support::paths::host_of(f));
        assert_eq!(x["errors"], serde_json::json!({}), "{x}");
    }
}

/// The flight recorder's memory bound (`ROCPROF_XPLANE_RING_MEMORY=64k`, with a kept time far
/// longer than the run): the oldest segments are let go, and counted, once the bound is passed;
/// the snapshot holds at most the bound plus the newest segment, covers only the recent past,
/// and says in its warnings how much was let go; the program runs on.
#[test]
fn the_flight_recorder_stays_within_its_memory_bound() {
    if !support::xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The run goes on until the test is done with it (`ROCPROF_SIM_END_FILE`).
    let end = tmp.path().join("end");
    let served = Served::start(
        Direct::new(&live(tmp.path(), 250), "1.0.0")
            .env("ROCPROF_SIM_END_FILE", &end)
            .env("ROCPROF_XPLANE_CONTINUOUS", "1")
            .env("ROCPROF_XPLANE_RING_SECONDS", "60")
            .env("ROCPROF_XPLANE_RING_MEMORY", "64k"),
    );
    std::thread::sleep(Duration::from_millis(3500));
    let logdir = tmp.path().join("logdir");
    let r = client(&["snapshot", &served.addr, logdir.to_str().unwrap()]);
    assert_eq!(r["ok"], true, "{r}");
    std::fs::write(&end, "").unwrap();
    let (ok, stderr) = served.finish();
    assert!(ok, "{stderr}");
    let runs = captured(&logdir);
    let s = read_xspace(&runs.values().next().unwrap()[0]).unwrap();
    let w = s
        .warnings
        .iter()
        .find(|w| w.contains("flight recorder"))
        .unwrap_or_else(|| panic!("{:?}", s.warnings));
    let number_before = |what: &str| -> u64 {
        let i = w.find(what).unwrap_or_else(|| panic!("{w}"));
        w[..i].split_whitespace().last().unwrap().parse().unwrap()
    };
    assert!(number_before(" for memory") > 0, "{w}");
    let held = number_before(" bytes");
    // The bound plus at most the newest segment (1 s of this run: well under 64 KiB).
    assert!(held <= 2 * 64 * 1024, "{w}");
    let mut starts: Vec<i64> = support::xspace::kernels(&s)
        .iter()
        .map(|e| e.start_ps() / 1000)
        .collect();
    starts.sort();
    let span = starts.last().unwrap() - starts[0];
    assert!(span < 3_000_000_000, "only the recent past: {span} ns");
}

/// Without `ROCPROF_XPLANE_SERVER` the tool starts no service thread and opens no socket; with
/// it, both exist. Read from `/proc` while the simulated program runs.
#[test]
fn no_service_thread_and_no_socket_without_the_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = live(tmp.path(), 20);
    let look = |child: &Child| {
        let pid = child.id();
        let threads: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/task"))
            .unwrap()
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
            .map(|c| c.trim().to_string())
            .collect();
        let sockets = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .unwrap()
            .flatten()
            .filter_map(|f| std::fs::read_link(f.path()).ok())
            .filter(|l| l.to_string_lossy().starts_with("socket:"))
            .count();
        (threads, sockets)
    };
    let mut plain = Direct::new(&scenario, "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", tmp.path().join("out"))
        .spawn();
    std::thread::sleep(Duration::from_millis(1200));
    let (threads, sockets) = look(&plain);
    assert!(wait_bounded(&mut plain, Duration::from_secs(60)));
    assert!(
        threads.iter().any(|t| t.starts_with("rocprof")),
        "the tool was loaded: {threads:?}"
    );
    assert!(
        !threads.iter().any(|t| t.starts_with("rocprof-xp-")),
        "{threads:?}"
    );
    assert_eq!(sockets, 0);

    let mut served = Served::start(Direct::new(&scenario, "1.0.0"));
    let (threads, sockets) = look(&served.child);
    assert!(
        threads
            .iter()
            .any(|t| t == rocprof_xplane::server::THREAD_NAME),
        "{threads:?}"
    );
    assert!(sockets >= 1);
    assert!(wait_bounded(&mut served.child, Duration::from_secs(60)));
}

/// A port already taken: one clear line, and the program runs to its end untraced by the
/// service (exit status 0).
#[test]
fn an_unusable_port_is_reported_once_and_never_fatal() {
    let tmp = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = Direct::new(&live(tmp.path(), 3), "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_SERVER", &addr)
        .output();
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("cannot listen").count(),
        1,
        "one line naming the problem: {stderr}"
    );
    assert!(stderr.contains(&addr), "{stderr}");
}

/// Multi-host capture: two simulated processes, each with its own service, captured by one
/// `trace("a:P1,a:P2")` as xprof does for a comma-separated list (one session, one shared start
/// time 3 s ahead): one run directory with one file per address, aligned in time, which xprof
/// lists as two hosts and whose all-hosts kernel stats sum both.
#[test]
fn one_capture_of_two_processes_gives_one_run_with_a_file_each() {
    if !support::xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let scenario = live(tmp.path(), 70);
    let a = Served::start(Direct::new(&scenario, "1.0.0"));
    let b = Served::start(Direct::new(&scenario, "1.0.0"));
    let logdir = tmp.path().join("logdir");
    let both = format!("{},{}", a.addr, b.addr);
    let r = client(&["trace", &both, logdir.to_str().unwrap(), "800"]);
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        r["seconds"].as_f64().unwrap() > 3.0,
        "the shared delay: {r}"
    );
    let (ok_a, err_a) = a.finish();
    let (ok_b, err_b) = b.finish();
    assert!(ok_a && ok_b, "{err_a}\n{err_b}");
    let runs = captured(&logdir);
    assert_eq!(runs.len(), 1, "{runs:?}");
    let files = runs.values().next().unwrap();
    assert_eq!(files.len(), 2, "{files:?}");
    let first_kernel = |f: &PathBuf| {
        let s = read_xspace(f).unwrap();
        support::xspace::kernels(&s)
            .iter()
            .map(|e| e.start_ps() / 1000)
            .min()
            .unwrap()
    };
    let skew = (first_kernel(&files[0]) - first_kernel(&files[1])).abs();
    assert!(
        skew < 100_000_000,
        "the windows start together: {skew} ns apart"
    );
    let x = support::xprof::summary_multi(files);
    let hosts: Vec<&str> = x["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h.as_str())
        .filter(|h| *h != "ALL_HOSTS")
        .collect();
    assert_eq!(hosts.len(), 2, "{x}");
    for (h, per) in x["per_host"].as_object().unwrap() {
        assert!(u(&per["complete_flows"]) > 0, "{h}: launch arrows drawn");
    }
    let total: u64 = files
        .iter()
        .map(|f| kernels_of(&read_xspace(f).unwrap()))
        .sum();
    let occ = support::xprof::occurrences(&x["kernel_stats_all_hosts"]);
    assert_eq!(occ.values().sum::<u64>(), total, "{occ:?}");
    let names = count_by_name(support::xspace::kernels(&read_xspace(&files[0]).unwrap()));
    assert!(names.contains_key("forward"), "{names:?}");
}
