//! `rocprof-xplane inspect` on our output and on real XLA files.

mod support;
use support::synthetic as common;

use rocprof_xplane::xplane::{write_xspace, OutputLayout};
use support::cli::{inspect, inspect_json};
use support::paths::real_testdata;

/// The synthetic trace written as our tool writes it (host `h.1`), in `dir`.
fn our_file(dir: &tempfile::TempDir) -> (std::path::PathBuf, common::Expected) {
    let (trace, expected) = common::synthetic_trace();
    let layout = OutputLayout {
        log_dir: dir.path().into(),
        run_name: "r".into(),
        host: "h.1".into(),
        durable: false,
    };
    (write_xspace(&trace, &layout).unwrap(), expected)
}

#[test]
fn json_summary_of_our_file() {
    let dir = tempfile::tempdir().unwrap();
    let (path, expected) = our_file(&dir);
    let s = inspect_json(&path);

    let kernels: usize = expected.kernels.values().map(|k| k.1).sum();
    let memcpys: usize = expected.memcpys.values().sum();
    assert_eq!(s["event_counts"]["kernels"], kernels);
    assert_eq!(s["event_counts"]["memcpys"], memcpys);
    assert_eq!(s["event_counts"]["api_calls"], expected.host_api_calls);
    assert_eq!(s["event_counts"]["markers"], expected.markers);
    assert_eq!(s["event_counts"]["other"], 0);
    assert_eq!(s["hostnames"], serde_json::json!(["h.1"]));
    assert_eq!(s["distinct_kernels"], expected.kernels.len());
    // gemm_kernel: 3 × 40 µs is the largest total.
    assert_eq!(s["top_kernels"][0]["name"], "gemm_kernel");
    assert_eq!(s["top_kernels"][0]["count"], 3);
    assert_eq!(s["top_kernels"][0]["total_ns"], 120_000);
    // By count: graph_node_a/graph_node_b/reduce_sum have 4 each; ties broken by time, then name.
    let by_count: Vec<(&str, u64)> = s["top_kernels_by_count"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["name"].as_str().unwrap(), k["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        by_count,
        [
            ("reduce_sum", 4),
            ("graph_node_a", 4),
            ("graph_node_b", 4),
            ("gemm_kernel", 3),
            ("elementwise_add", 2)
        ]
    );
    let devices = s["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 2);
    assert_eq!(devices[1]["properties"]["gpu_device_name"], "gfx942");
    assert_eq!(devices[1]["properties"]["device_vendor"], "AMD");
    assert_eq!(s["counters"]["runtime_dropped"], 12);
    // Every counter the tool keeps, and not the clock origin (a time, not a count).
    let counters = s["counters"].as_object().unwrap();
    assert_eq!(counters.len(), 22, "{counters:?}");
    assert_eq!(s["counters"]["steps_overlapping"], 0);
    assert!(!counters.contains_key("origin_boottime_ns"));
    let warnings: Vec<&str> = s["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warnings.contains(&"rocprof-xplane: 12 records dropped by the runtime (drop_count)"),
        "{warnings:?}"
    );
    let gpu0 = s["planes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "/device:GPU:0")
        .unwrap();
    let lines: Vec<(i64, u64)> = gpu0["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["id"].as_i64().unwrap(), l["events"].as_u64().unwrap()))
        .collect();
    assert_eq!(lines, vec![(0, 5), (1, 8), (2, 1)]);

    // The text form mentions the same facts.
    let (ok, text, _) = inspect(&[path.to_str().unwrap()]);
    assert!(ok);
    assert!(
        text.contains("17 kernels, 3 memcpys, 14 API calls, 2 markers"),
        "{text}"
    );
    assert!(text.contains("gemm_kernel"));
}

/// `--events` lists every event of every line once, in the line's order, with its stats by
/// name; planes come by name and lines by id, so the listing is the same for the same profile
/// whatever order the file holds them in.
#[test]
fn events_listing_holds_every_event_with_its_stats() {
    let dir = tempfile::tempdir().unwrap();
    let (path, expected) = our_file(&dir);
    let (ok, text, err) = inspect(&[path.to_str().unwrap(), "--events"]);
    assert!(ok, "{err}");
    let space = rocprof_xplane::xplane::read_xspace(&path).unwrap();
    let events: usize = space
        .planes
        .iter()
        .flat_map(|p| &p.lines)
        .map(|l| l.events.len())
        .sum();
    let listed = text
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("  EM "))
        .count();
    assert_eq!(listed, events);
    let planes: Vec<&str> = text.lines().filter(|l| l.starts_with("PLANE ")).collect();
    let mut sorted = planes.clone();
    sorted.sort_by_key(|l| l.split(' ').nth(2).unwrap_or(""));
    assert_eq!(planes, sorted, "planes by name");
    assert_eq!(planes.len(), space.planes.len());
    // gemm_kernel's three dispatches carry their kernel details by name.
    let gemm: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  gemm_kernel T"))
        .collect();
    assert_eq!(gemm.len(), 3, "{text}");
    assert!(
        gemm.iter().all(|l| l.contains("kernel_details=ref:")),
        "{gemm:?}"
    );
    let kernels: usize = expected.kernels.values().map(|k| k.1).sum();
    assert!(listed >= kernels);
    // Hostile names stay on their event's line: one with a newline (and other control
    // characters), empty, non-ASCII, 10 KB, the host events taking them in turn.
    let (mut trace, _) = common::synthetic_trace();
    let long = "ü".repeat(5_000);
    let names = [
        "hipLaunch\nPLANE 9 forged\r\u{7}",
        "",
        "é日本🚀\u{200b}\"",
        long.as_str(),
    ];
    let ids = names.map(|n| trace.names.push(std::sync::Arc::from(n)));
    for (i, e) in trace
        .host_threads
        .iter_mut()
        .flat_map(|t| &mut t.events)
        .enumerate()
    {
        e.name = ids[i % ids.len()];
    }
    let hostile_dir = tempfile::tempdir().unwrap();
    let layout = OutputLayout {
        log_dir: hostile_dir.path().into(),
        run_name: "r".into(),
        host: "h.1".into(),
        durable: false,
    };
    let hostile_path = write_xspace(&trace, &layout).unwrap();
    let (ok, hostile_text, err) = inspect(&[hostile_path.to_str().unwrap(), "--events"]);
    assert!(ok, "{err}");
    let hostile_listed = hostile_text
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("  EM "))
        .count();
    assert_eq!(hostile_listed, events);
    assert_eq!(
        hostile_text
            .lines()
            .filter(|l| l.starts_with("PLANE "))
            .count(),
        space.planes.len()
    );
    assert!(
        hostile_text.contains("hipLaunch\\nPLANE 9 forged\\r\\u{7} T"),
        "{hostile_text}"
    );
    // Printable text is listed as it is (a zero-width space is escaped), the empty name too.
    assert!(hostile_text.contains(&format!("  {long} T")));
    assert!(
        hostile_text.contains("  é日本🚀\\u{200b}\\\" T"),
        "{hostile_text}"
    );
    assert!(
        hostile_text.lines().any(|l| l.starts_with("   T")),
        "an empty name"
    );
    // The host lines, whose events took the names, nest. (The fixture's device lines hold
    // kernels that overlap by construction: a hand-made trace, not one the join made.)
    let mut host_only = rocprof_xplane::xplane::read_xspace(&hostile_path).unwrap();
    host_only.planes.retain(|p| p.name == "/host:CPU");
    assert_eq!(host_only.planes.len(), 1);
    support::xspace::assert_lines_nest(&host_only, "hostile names");
    // The same listing from the same file; the summary options still exclude each other.
    assert_eq!(inspect(&[path.to_str().unwrap(), "--events"]).1, text);
    assert!(!inspect(&[path.to_str().unwrap(), "--events", "--json"]).0);
}

#[test]
fn json_summary_of_a_real_xla_file() {
    let p = real_testdata().join("xla-xplane-mi355x/934987a2fc2f.xplane.pb");
    let s = inspect_json(&p);
    // README of that folder: 150 kernels on GPU:0, 150 launches on Host Threads/7.
    assert_eq!(s["event_counts"]["kernels"], 150);
    assert_eq!(s["event_counts"]["api_calls"], 150);
    assert_eq!(s["hostnames"], serde_json::json!(["934987a2fc2f"]));
    assert_eq!(s["devices"].as_array().unwrap().len(), 8);
}

#[test]
fn missing_empty_and_corrupt_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.xplane.pb");
    let (ok, _, err) = inspect(&[missing.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("cannot read") && err.contains("nope.xplane.pb"),
        "{err}"
    );

    let empty = dir.path().join("empty.xplane.pb");
    std::fs::write(&empty, b"").unwrap();
    let (ok, _, err) = inspect(&[empty.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("empty"), "{err}");

    // A truncated copy of a real file.
    let real = std::fs::read(real_testdata().join("xla-xplane-mi300x/tw003.xplane.pb")).unwrap();
    let cut = dir.path().join("cut.xplane.pb");
    std::fs::write(&cut, &real[..real.len() / 2]).unwrap();
    let (ok, _, err) = inspect(&[cut.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("not a valid XSpace"), "{err}");

    let (ok, _, err) = inspect(&[]);
    assert!(!ok && err.to_lowercase().contains("usage"), "{err}");
}

/// Stream busy share, idle gaps ("bubbles") and dependency arrows, on a hand-built XSpace whose
/// answer is worked out by hand: work at [0,100], [150,250] and [200,300] (overlapping, counted
/// once) and [1000,1100] µs, plus a zero-length anchor at 500 µs (not work). Busy = 100 + 150 +
/// 100 = 350 µs of an 1,100 µs span (31.8 %); gaps: 700 µs after 300, 50 µs after 100. Two
/// `flow` anchors = one dependency arrow.
#[test]
fn streams_busy_share_gaps_and_dependency_arrows() {
    use prost::Message;
    use rocprof_xplane::xplane::proto::{
        x_event, x_stat, XEvent, XEventMetadata, XLine, XPlane, XSpace, XStat, XStatMetadata,
    };
    let us = |v: i64| v * 1_000_000; // ps
    let ev = |start: i64, dur: i64, stats: Vec<XStat>| XEvent {
        metadata_id: 1,
        data: Some(x_event::Data::OffsetPs(us(start))),
        duration_ps: us(dur),
        stats,
    };
    let flow = |v: u64| XStat {
        metadata_id: 7,
        value: Some(x_stat::Value::Uint64Value(v)),
    };
    let plane = XPlane {
        id: 1,
        name: "/device:GPU:0".into(),
        lines: vec![XLine {
            id: 3,
            name: "Stream #3(Compute)".into(),
            timestamp_ns: 1_000,
            events: vec![
                ev(0, 100, vec![]),
                ev(150, 100, vec![]),
                ev(200, 100, vec![]),
                ev(500, 0, vec![flow(5 << 2 | 2)]),
                ev(600, 0, vec![flow(5 << 2 | 1)]),
                ev(1000, 100, vec![]),
            ],
            ..Default::default()
        }],
        event_metadata: [(
            1,
            XEventMetadata {
                id: 1,
                name: "k".into(),
                ..Default::default()
            },
        )]
        .into(),
        stat_metadata: [(
            7,
            XStatMetadata {
                id: 7,
                name: "flow".into(),
                ..Default::default()
            },
        )]
        .into(),
        ..Default::default()
    };
    let space = XSpace {
        planes: vec![plane],
        ..Default::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.xplane.pb");
    std::fs::write(&path, space.encode_to_vec()).unwrap();
    let s = inspect_json(&path);
    let st = &s["streams"][0];
    assert_eq!(st["line"], "Stream #3(Compute)");
    assert_eq!(st["events"], 4, "anchors are not work");
    assert_eq!(st["span_ns"], 1_100_000);
    let busy = st["busy_fraction"].as_f64().unwrap();
    assert!((busy - 350.0 / 1100.0).abs() < 1e-9, "{busy}");
    assert_eq!(st["gaps"], 2);
    assert_eq!(
        st["largest_gaps"],
        serde_json::json!([
            {"at_ns": 300_000, "gap_ns": 700_000},
            {"at_ns": 100_000, "gap_ns": 50_000}
        ])
    );
    assert_eq!(s["dependency_arrows"], 1);
    let (ok, text, err) = inspect(&[path.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(text.contains("31.8% busy"), "{text}");
}
