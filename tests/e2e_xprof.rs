//! **Real xprof** (PyPI `xprof`, pinned, offline conversion API
//! only — never its server) reads what the tool wrote inside the simulated runtime (test
//! infrastructure, not hardware), and what xprof shows equals the simulator's ground truth:
//! `kernel_stats` occurrences per kernel, every kernel under its GPU's process in
//! `trace_viewer@` with launch→kernel flows, an AMD gfx device in `overview_page`, and the
//! processes of one job as hosts of one run.
//!
//! xprof runs through the shared harness (`tests/support/xprof.rs`: a venv in
//! `target/xprof-venv` created on first use under a lock, a private copy of each file, a
//! timeout), the same one the XPlane writer's xprof tests use.

mod support;

use std::collections::BTreeMap;

use serde_json::Value;
use support::paths::{builtin, host_of, profiles};
use support::sim::{cached, simulate, simulate_command, Run};
use support::truth::{read_truth, truth_calls_with_activity, truth_kernels, truth_kernels_per_gpu};
use support::u;
use support::xprof::{self, events_on_stream_rows, occurrences};

/// xprof's summary of a run's (only) file.
fn xprof_view(r: &Run) -> (String, Value) {
    let host = host_of(&r.files[0]);
    let s = xprof::summary(&r.files[0], &host);
    assert_eq!(
        s["errors"],
        serde_json::json!({}),
        "xprof conversion errors"
    );
    (host, s)
}

/// Trace viewer: each kernel's dispatches on its GPU's process (on the stream rows, not the
/// derived rows xprof adds), launch→kernel flows as many and as wide as the truth's launches,
/// and an AMD gfx device in the overview.
fn check_trace_and_overview(r: &Run, host: &str, s: &Value, what: &str) {
    let plan = r.plan();
    let trace = &s["trace"];
    let gpus = u(&plan["totals"]["gpus"]);
    for ((gpu, name), n) in truth_kernels_per_gpu(plan) {
        let process = format!("{host} /device:GPU:{gpu}");
        let seen = events_on_stream_rows(s, &process, &name);
        assert_eq!(seen, n, "{what}: {name} on {process}");
    }
    let processes: Vec<&str> = trace["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(
        processes.len() as u64,
        gpus + 1,
        "{what}: GPU processes + host: {processes:?}"
    );
    assert!(
        processes.contains(&format!("{host} /host:CPU").as_str()),
        "{what}: {processes:?}"
    );

    // Flows: each starts at exactly one host call and ends on every device activity of that
    // call; per launch API, the number of ends equals the truth's activities per call.
    let mut got: BTreeMap<String, BTreeMap<u64, u64>> = BTreeMap::new();
    let mut ends = 0u64;
    for (id, f) in trace["flows"].as_object().unwrap() {
        // Dependency arrows are checked in e2e_deps; a HIP call without device work
        // carries `correlation_id` too, and xprof leaves it a lone start (no arrow).
        if f["cat"] != "gpu_launch" || u(&f["in"]) == 0 {
            continue;
        }
        assert_eq!(
            f["out"], 1,
            "{what}: flow {id} without exactly one start: {f}"
        );
        let evs = f["events"].as_array().unwrap();
        let starts: Vec<&Value> = evs
            .iter()
            .filter(|e| e["process"].as_str().unwrap().ends_with("/host:CPU"))
            .collect();
        assert_eq!(
            starts.len(),
            1,
            "{what}: flow {id} has {} host events",
            starts.len()
        );
        for e in evs
            .iter()
            .filter(|e| !e["process"].as_str().unwrap().ends_with("/host:CPU"))
        {
            assert!(
                e["process"].as_str().unwrap().contains("/device:GPU:"),
                "{what}: flow {id} ends off-GPU: {e}"
            );
        }
        let n = u(&f["in"]);
        ends += n;
        *got.entry(starts[0]["name"].as_str().unwrap().to_string())
            .or_default()
            .entry(n)
            .or_default() += 1;
    }
    let want = truth_calls_with_activity(plan);
    assert_eq!(got, want, "{what}: launch→activity flows per API");
    assert_eq!(
        ends,
        u(&plan["totals"]["kernel_dispatches"]) + u(&plan["totals"]["memory_copies"]),
        "{what}: one flow end per dispatch and copy"
    );

    let device = s["overview"]["device_type"].as_str().unwrap_or("");
    let gfx = plan["devices"][0]["name"].as_str().unwrap();
    assert!(
        device.contains("AMD") && device.contains(gfx),
        "{what}: overview device_type {device:?}"
    );
}

#[test]
fn graph_launch_kernel_stats_equal_the_ground_truth() {
    if !xprof::available() {
        return;
    }
    // Without roctx, xprof's kernel_stats has one row per (kernel, launch shape): 257 rows,
    // all shown. (With the per-step roctx ranges of the scenario each (kernel, range) is a row
    // and xprof shows only the top 1000; the default run below checks the trace instead.)
    let r = simulate(
        &builtin("graph-launch.toml"),
        "1.0.0",
        &[("ROCPROF_XPLANE_DOMAINS", "hip,kernel,memcpy")],
    );
    let (host, s) = xprof_view(&r);
    let ks = &s["kernel_stats"];
    assert_eq!(
        occurrences(ks),
        truth_kernels(r.plan()),
        "kernel_stats occurrences per kernel"
    );
    assert_eq!(
        occurrences(ks).values().sum::<u64>(),
        u(&r.plan()["totals"]["kernel_dispatches"]),
        "kernel_stats total"
    );
    check_trace_and_overview(&r, &host, &s, "graph-launch without roctx");
}

#[test]
fn graph_launch_trace_viewer_and_overview_with_default_settings() {
    if !xprof::available() {
        return;
    }
    for sdk in ["0.6.0", "1.0.0"] {
        let r = cached(&builtin("graph-launch.toml"), sdk, &[]);
        let (host, s) = xprof_view(&r);
        check_trace_and_overview(&r, &host, &s, &format!("graph-launch {sdk}"));
        // Every row xprof's kernel_stats does show is a real kernel, never over-counted.
        let want = truth_kernels(r.plan());
        for (name, n) in occurrences(&s["kernel_stats"]) {
            assert!(
                want.get(&name).is_some_and(|w| n <= *w),
                "{sdk}: kernel_stats {name} ×{n}"
            );
        }
    }
}

#[test]
fn multi_gpu_in_xprof() {
    if !xprof::available() {
        return;
    }
    let r = cached(&builtin("multi-gpu.toml"), "1.0.0", &[]);
    let (host, s) = xprof_view(&r);
    assert_eq!(
        occurrences(&s["kernel_stats"]),
        truth_kernels(r.plan()),
        "kernel_stats occurrences"
    );
    check_trace_and_overview(&r, &host, &s, "multi-gpu");
}

#[test]
fn processes_of_one_run_are_separate_hosts_in_xprof() {
    if !xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let mut truths = Vec::new();
    for sdk in ["0.6.0", "1.0.0"] {
        let truth = tmp.path().join(format!("{sdk}.json"));
        let out = simulate_command(&builtin("tiny.toml"), sdk, &logs)
            .args(["--run-name", "job", "--ground-truth"])
            .arg(&truth)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        truths.push(read_truth(&truth));
    }
    let files = profiles(&logs, "job");
    assert_eq!(files.len(), 2, "{files:?}");
    let s = xprof::summary_multi(&files);
    assert_eq!(s["errors"], serde_json::json!({}));
    let mut hosts: Vec<String> = s["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap().to_string())
        .collect();
    hosts.sort();
    let mut want: Vec<String> = files.iter().map(|f| host_of(f)).collect();
    want.sort();
    assert!(hosts.iter().all(|h| !h.is_empty()));
    assert_eq!(
        hosts.iter().filter(|h| want.contains(h)).count(),
        2,
        "xprof hosts {hosts:?}, files {want:?}"
    );
    // kernel_stats over ALL_HOSTS adds both processes' kernels.
    assert_eq!(
        occurrences(&s["kernel_stats_all_hosts"]),
        kernels_of_all(&truths),
        "ALL_HOSTS kernel_stats"
    );
    for h in &want {
        let procs = &s["per_host"][h]["processes"];
        assert!(
            procs.as_array().is_some_and(|p| p
                .iter()
                .any(|x| x.as_str().unwrap().starts_with(h.as_str()))),
            "host {h}: processes {procs}"
        );
    }
}

/// A four-process job as `torchrun` starts it: four ranks of the same program at once, each
/// with the tool through `ROCP_TOOL_LIBRARIES`, sharing only the launcher's environment
/// (`TORCHELASTIC_RUN_ID`, `RANK`, `LOCAL_RANK`) — no run name given — and one file-name
/// template (`ROCPROF_XPLANE_OUTPUT_FILE=%hostname%.rank%rank%`, rocprofv3's `-o` spelling). All
/// four land in one run directory named from the job (`torchrun_<id>`), one file per rank named
/// after it; real xprof lists four hosts and its all-hosts kernel stats are the sum of the four
/// processes' kernels.
#[test]
fn a_four_process_torchrun_job_is_one_run_of_four_hosts() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let truths = support::sim::torchrun_ranks(&builtin("multi-gpu.toml"), "job42", &logs, 4);
    let files = profiles(&logs, "torchrun_job42");
    assert_eq!(files.len(), 4, "one file per process in one run: {files:?}");
    let hosts: std::collections::BTreeSet<String> = files.iter().map(|f| host_of(f)).collect();
    assert_eq!(hosts.len(), 4, "{hosts:?}");
    let me = rocprof_xplane::sdk::session::hostname();
    let expected: std::collections::BTreeSet<String> =
        (0..4).map(|r| format!("{me}.rank{r}")).collect();
    assert_eq!(hosts, expected, "files named by the template");
    if !xprof::available() {
        return;
    }
    let s = xprof::summary_multi(&files);
    assert_eq!(s["errors"], serde_json::json!({}));
    let listed: Vec<&str> = s["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h.as_str())
        .filter(|h| hosts.contains(*h))
        .collect();
    assert_eq!(listed.len(), 4, "xprof hosts {:?}", s["hosts"]);
    assert_eq!(
        occurrences(&s["kernel_stats_all_hosts"]),
        kernels_of_all(&truths),
        "ALL_HOSTS kernel_stats"
    );
}

/// Kernel name → dispatches, summed over the ground truths of several processes.
fn kernels_of_all(truths: &[Value]) -> BTreeMap<String, u64> {
    let mut sum: BTreeMap<String, u64> = BTreeMap::new();
    for t in truths {
        for (k, n) in truth_kernels(&t["plan"]) {
            *sum.entry(k).or_default() += n;
        }
    }
    sum
}
