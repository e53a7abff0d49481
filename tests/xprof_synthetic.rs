//! Our file, opened by real xprof (offline API): kernel stats, trace viewer, flows, overview.
//!
//! Installs xprof into target/xprof-venv on first run (~30 s).

mod support;
use support::synthetic as common;
use support::u;

use std::collections::BTreeMap;

use rocprof_xplane::xplane::{process_host_name, write_xspace, OutputLayout};
use serde_json::Value;

fn xprof_view() -> (common::Expected, Value, String) {
    let (trace, expected) = common::synthetic_trace();
    let dir = tempfile::tempdir().unwrap();
    let layout = OutputLayout {
        log_dir: dir.path().into(),
        run_name: "2026_11_22_00_00_00".into(),
        host: process_host_name(&trace.hostname, trace.pid),
        durable: false,
    };
    let path = write_xspace(&trace, &layout).unwrap();
    let host = layout.file_host();
    let summary = support::xprof::summary(&path, &host);
    assert_eq!(
        summary["errors"],
        serde_json::json!({}),
        "xprof conversion errors"
    );
    (expected, summary, host)
}

/// Events per name in every "Stream #…" row of one trace-viewer process.
fn stream_events(summary: &Value, process: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    if let Some(threads) = summary["trace"]["events"][process].as_object() {
        for (thread, names) in threads {
            if !thread.starts_with("Stream #") {
                continue;
            }
            for (name, n) in names.as_object().unwrap() {
                *out.entry(name.clone()).or_default() += n.as_u64().unwrap();
            }
        }
    }
    out
}

#[test]
fn xprof_reads_kernels_flows_and_device() {
    if !support::xprof::available() {
        return;
    }
    let (expected, s, host) = xprof_view();

    let tools: Vec<&str> = s["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"kernel_stats") && tools.contains(&"trace_viewer@"),
        "{tools:?}"
    );

    // kernel_stats: one occurrence per dispatch, graph dispatches included.
    let occ = &s["kernel_stats"]["occurrences"];
    let occ: BTreeMap<String, u64> = occ
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    let want: BTreeMap<String, u64> = expected
        .kernels
        .iter()
        .map(|(k, (_, n))| (k.clone(), *n as u64))
        .collect();
    assert_eq!(occ, want, "kernel_stats occurrences");
    // Launch parameters parsed from kernel_details.
    let gemm = s["kernel_stats"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["Kernel Name"] == "gemm_kernel")
        .unwrap();
    assert_eq!(gemm["Registers per thread"], 64.0);
    assert_eq!(gemm["Shared Mem bytes"], 5120.0);
    assert_eq!(gemm["Block dim"], "256,1,1");
    assert_eq!(gemm["Grid dim"], "128,1,1");

    // Trace viewer: each kernel under its own GPU process, on a stream row, and nowhere else.
    for (name, (dev, n)) in &expected.kernels {
        for other in 0..2u32 {
            let got = stream_events(&s, &format!("{host} /device:GPU:{other}"))
                .get(name)
                .copied()
                .unwrap_or(0);
            let want = if other == *dev { *n as u64 } else { 0 };
            assert_eq!(got, want, "{name} on GPU:{other}");
        }
    }
    for (name, n) in &expected.memcpys {
        let total: u64 = (0..2)
            .map(|d| {
                stream_events(&s, &format!("{host} /device:GPU:{d}"))
                    .get(name)
                    .copied()
                    .unwrap_or(0)
            })
            .sum();
        assert_eq!(total, *n as u64, "{name}");
    }
    // Host: API calls and roctx markers both visible, on separate rows.
    let cpu = &s["trace"]["events"][format!("{host} /host:CPU")];
    let api_calls: u64 = cpu
        .as_object()
        .unwrap()
        .iter()
        .filter(|(t, _)| !t.ends_with("/ROCTX"))
        .flat_map(|(_, names)| names.as_object().unwrap().values())
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(api_calls, expected.host_api_calls as u64);
    assert_eq!(cpu["python3/1001/ROCTX"]["train_step"], 1);
    assert_eq!(cpu["python3/1001/ROCTX"]["checkpoint"], 1);

    // Flows: xprof makes one flow per correlation id (id = hash(hostname, correlation id)),
    // out of the host launch and into every device event carrying that id. A graph launch's
    // dispatches therefore share ONE flow with one start and N ends; xprof cannot give each
    // dispatch its own arrow from one host event (one flow per event, last one wins).
    // Calls without device work carry `correlation_id` too: xprof gives each a
    // one-ended flow (a start only), which draws no arrow; only complete flows are arrows.
    let all_flows = s["trace"]["flows"].as_object().unwrap();
    let flows: serde_json::Map<String, Value> = all_flows
        .iter()
        .filter(|(_, f)| u(&f["in"]) > 0)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for f in all_flows.values().filter(|f| u(&f["in"]) == 0) {
        assert_eq!(f["out"], 1, "a lone start, never a lone end: {f}");
    }
    assert_eq!(
        flows.len(),
        expected.dispatches_per_correlation.len(),
        "one flow per correlation id"
    );
    let mut ends_per_flow: Vec<u64> = Vec::new();
    for (id, f) in flows {
        assert_eq!(
            f["out"], 1,
            "flow {id} must start at exactly one host launch"
        );
        assert_eq!(f["cat"], "gpu_launch");
        let events = f["events"].as_array().unwrap();
        let host_events: Vec<&Value> = events
            .iter()
            .filter(|e| e["process"].as_str().unwrap().ends_with("/host:CPU"))
            .collect();
        assert_eq!(host_events.len(), 1);
        let ins = f["in"].as_u64().unwrap();
        assert_eq!(events.len() as u64, ins + 1);
        if ins > 1 {
            assert_eq!(host_events[0]["name"], "hipGraphLaunch");
            assert!(events
                .iter()
                .filter(|e| e["name"] != "hipGraphLaunch")
                .all(|e| e["process"] == format!("{host} /device:GPU:0")));
        }
        ends_per_flow.push(ins);
    }
    ends_per_flow.sort_unstable();
    let mut want_ends: Vec<u64> = expected
        .dispatches_per_correlation
        .values()
        .map(|&n| n as u64)
        .collect();
    want_ends.sort_unstable();
    assert_eq!(
        ends_per_flow, want_ends,
        "flow ends = dispatches per correlation id"
    );
    let graph_dispatches = expected.dispatches_per_correlation[&expected.graph_correlation_id];
    assert_eq!(*ends_per_flow.last().unwrap(), graph_dispatches as u64);

    // Overview: an AMD GPU with its gfx name.
    let device_type = s["overview"]["device_type"].as_str().unwrap_or_default();
    assert_eq!(device_type, "AMD GPU - gfx942");

    // Annotations became derived lines xprof builds itself (XLA Modules from hlo_module).
    let gpu0_threads = s["trace"]["threads"][format!("{host} /device:GPU:0")]
        .as_array()
        .unwrap();
    assert!(
        gpu0_threads
            .iter()
            .any(|t| t.as_str().unwrap().starts_with("XLA Modules")),
        "{gpu0_threads:?}"
    );
}

/// Two processes of one job write one run directory; xprof lists each file as its own host,
/// converts both, and keeps their launch flows apart.
#[test]
fn processes_of_one_job_are_hosts_of_one_run() {
    if !support::xprof::available() {
        return;
    }
    let (trace, expected) = common::synthetic_trace();
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut hosts = Vec::new();
    for pid in [4242, 4243] {
        let layout = OutputLayout {
            log_dir: dir.path().into(),
            run_name: "job".into(),
            host: process_host_name("node-7", pid),
            durable: false,
        };
        files.push(write_xspace(&trace, &layout).unwrap());
        hosts.push(layout.file_host());
    }
    assert_eq!(files[0].parent(), files[1].parent(), "one run directory");
    let s = support::xprof::summary_multi(&files);
    assert_eq!(s["errors"], serde_json::json!({}));
    assert_eq!(
        s["hosts"],
        serde_json::json!(["ALL_HOSTS", "node-7.4242", "node-7.4243"])
    );
    // kernel_stats over ALL_HOSTS: both processes' dispatches.
    for (name, (_, n)) in &expected.kernels {
        assert_eq!(
            s["kernel_stats_all_hosts"]["occurrences"][name],
            2 * *n as u64,
            "{name}"
        );
    }
    for h in &hosts {
        let t = &s["per_host"][h];
        assert_eq!(
            t["complete_flows"],
            expected.dispatches_per_correlation.len(),
            "{h}"
        );
        assert!(t["processes"]
            .as_array()
            .unwrap()
            .contains(&Value::from(format!("{h} /device:GPU:1"))));
    }
}

/// A file whose planes were too large to hold while built (their lines set aside in a file,
/// `xplane::spill`, past 4 MiB) opens in real xprof like any other: 150,000 launches make a
/// host plane and a device plane past that size, and xprof counts every dispatch.
#[test]
fn xprof_reads_planes_whose_lines_were_set_aside() {
    if !support::xprof::available() {
        return;
    }
    let n = 150_000;
    let trace = common::launches(n);
    let dir = tempfile::tempdir().unwrap();
    let layout = OutputLayout {
        log_dir: dir.path().into(),
        run_name: "2026_11_26_00_00_00".into(),
        host: process_host_name("spillhost", 7),
        durable: false,
    };
    let planes_past_the_size = {
        let mut big = 0;
        rocprof_xplane::xplane::build_planes(&trace, |p| {
            big += usize::from(p.encoded_len() > rocprof_xplane::xplane::spill::SPILL_PAST);
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap();
        big
    };
    assert_eq!(
        planes_past_the_size, 2,
        "host and device planes are set aside"
    );
    // On one thread both large planes go into the output as they are built; on two the
    // device plane is built beside the host plane, its lines in a file until the host plane
    // is written. Either way their lengths are padded.
    for threads in [1, 2] {
        let layout = OutputLayout {
            run_name: format!("2026_11_26_00_00_0{threads}"),
            ..layout.clone()
        };
        let path = rocprof_xplane::xplane::write_xspace_on(&trace, &layout, threads).unwrap();
        let written = support::xspace::plane_length_widths(&std::fs::read(&path).unwrap());
        assert_eq!(written[..2], [5, 5], "{threads} threads");
        let s = support::xprof::summary(&path, &layout.file_host());
        assert_eq!(
            s["errors"],
            serde_json::json!({}),
            "xprof conversion errors"
        );
        let occ = support::xprof::occurrences(&s["kernel_stats"]);
        assert_eq!(occ.values().sum::<u64>(), n, "{occ:?}");
    }
}
