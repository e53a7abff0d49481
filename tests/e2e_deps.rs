//! Issue 7, "what it must show": HIP streams as device lines, sync-API stats resolved from the
//! sorted per-event producer vectors, and dependency arrows, checked against the simulator's
//! ground truth (test infrastructure, not hardware) by decoding the file AND through real xprof
//! (`trace_viewer@`), for both SDK families.
//!
//! The simulator numbers correlation ids in global call order, as its ground truth numbers HIP
//! calls (`hip_seq`), so the k-th HIP host event by correlation id is the truth's call k.

mod support;

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;
use support::paths::{builtin, host_of};
use support::sim::{cached, Run};
use support::u;
use support::xspace::{
    assert_lines_nest, counter, device_planes, events, host_api_events, Ev, Stat,
};

const SDKS: [&str; 2] = ["0.6.0", "1.0.0"];

fn run(scenario: &str, sdk: &str) -> std::sync::Arc<Run> {
    cached(&builtin(scenario), sdk, &[])
}

/// HIP host events in correlation-id order (= the truth's `hip_seq` order).
fn hip_calls(r: &Run) -> Vec<Ev<'_>> {
    let mut v: Vec<Ev<'_>> = host_api_events(&r.space)
        .into_iter()
        .filter(|e| e.name().starts_with("hip"))
        .collect();
    v.sort_by_key(|e| e.correlation_id().unwrap_or(u64::MAX));
    v
}

fn stat_u64(e: &Ev<'_>, name: &str) -> Option<u64> {
    e.stat(name).and_then(|s| s.as_u64())
}

/// The truth's resolved producer record of a wait, as `hip_seq`.
fn producer_seq(edge: &Value) -> Option<u64> {
    let p = &edge["producer"];
    (!p.is_null()).then(|| u(&p["record"]["hip_seq"]))
}

fn check_waits(r: &Run, what: &str) -> (u64, u64) {
    let plan = r.plan();
    let calls = hip_calls(r);
    assert_eq!(
        calls.len() as u64,
        u(&plan["totals"]["hip_api_calls"]),
        "{what}: every HIP call on the host"
    );
    for e in &calls {
        assert!(
            e.correlation_id().is_some(),
            "{what}: {} without correlation_id",
            e.name()
        );
    }
    let corr_of = |seq: u64| calls[seq as usize].correlation_id().unwrap();
    let (mut resolved, mut unresolved) = (0, 0);
    let edges = plan["waits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w, u(&w["wait"]["hip_seq"]), "hipStreamWaitEvent"))
        .chain(
            plan["event_syncs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| (w, u(&w["sync"]["hip_seq"]), "hipEventSynchronize")),
        );
    for (edge, seq, api) in edges {
        let ev = &calls[seq as usize];
        assert_eq!(ev.name(), api, "{what}: call {seq}");
        assert_eq!(
            ev.stat("sync_type")
                .and_then(|s| s.as_str().map(String::from)),
            Some(if api == "hipStreamWaitEvent" {
                "stream_wait_event".to_string()
            } else {
                "event_synchronize".to_string()
            }),
            "{what}: call {seq}"
        );
        // Always the raw event handle, resolved or not.
        assert_eq!(
            stat_u64(ev, "wait_on_hip_event_id"),
            Some(u(&edge["event"])),
            "{what}: {api} {seq}"
        );
        match producer_seq(edge) {
            Some(p) => {
                resolved += 1;
                assert_eq!(
                    stat_u64(ev, "wait_on_hip_event_record_corr_id"),
                    Some(corr_of(p)),
                    "{what}: {api} {seq} resolves to record call {p}"
                );
                let record = &calls[p as usize];
                assert!(record.name().starts_with("hipEventRecord"));
                assert_eq!(stat_u64(record, "hip_event"), Some(u(&edge["event"])));
                // The producer's stream as the record wrote it (the null stream counts).
                let rec_stream = record.stat("hip_stream");
                assert!(rec_stream.is_some(), "{what}: record {p} has no hip_stream");
                assert_eq!(ev.stat("wait_on_stream"), rec_stream, "{what}: {api} {seq}");
            }
            None => {
                unresolved += 1;
                assert_eq!(
                    ev.stat("wait_on_hip_event_record_corr_id"),
                    None,
                    "{what}: {api} {seq} must stay unresolved"
                );
            }
        }
        if api == "hipStreamWaitEvent" {
            assert!(
                matches!(ev.stat("hip_stream"), Some(Stat::I64(_))),
                "{what}: the consumer stream of {seq}: {:?}",
                ev.stat("hip_stream")
            );
        }
    }
    assert_eq!(counter(&r.space, "waits_resolved"), resolved, "{what}");
    assert_eq!(counter(&r.space, "waits_unresolved"), unresolved, "{what}");
    for e in &calls {
        if matches!(e.name(), "hipStreamSynchronize" | "hipDeviceSynchronize") {
            assert!(e.stat("sync_type").is_some(), "{what}: {}", e.name());
            assert!(e.stat("hip_stream").is_some(), "{what}: {}", e.name());
        }
    }
    (resolved, unresolved)
}

/// Device lines are the truth's streams: one `Stream #N` line per stream with work, holding
/// exactly that stream's kernels and copies.
fn check_stream_lines(r: &Run, what: &str) {
    let plan = r.plan();
    let mut want: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for s in plan["streams"].as_array().unwrap() {
        let n = u(&s["kernel_dispatches"]) + u(&s["memory_copies"]);
        if n > 0 {
            want.entry(u(&s["gpu"]) as u32).or_default().push(n);
        }
    }
    for p in device_planes(&r.space) {
        let gpu: u32 = p.name.rsplit(':').next().unwrap().parse().unwrap();
        let mut got: Vec<u64> = Vec::new();
        for l in &p.lines {
            assert!(
                l.name.starts_with(&format!("Stream #{}", l.id)) && !l.name.contains("overlap"),
                "{what}: line {} named {:?}",
                l.id,
                l.name
            );
            let work = l
                .events
                .iter()
                .filter(|e| {
                    let ev = Ev {
                        plane: p,
                        line: l,
                        event: e,
                    };
                    ev.is_kernel() || ev.is_memcpy()
                })
                .count() as u64;
            if work > 0 {
                got.push(work);
            }
        }
        got.sort_unstable();
        let mut w = want.remove(&gpu).unwrap_or_default();
        w.sort_unstable();
        assert_eq!(got, w, "{what}: events per stream line on GPU {gpu}");
        // The HSA queue stays as a stat on every kernel.
        for e in events(p).into_iter().filter(|e| e.is_kernel()) {
            assert!(
                e.stat("hsa_queue").is_some(),
                "{what}: kernel without hsa_queue"
            );
        }
    }
    assert_eq!(counter(&r.space, "stream_overlap_events"), 0, "{what}");
}

/// Dependency anchors in the decoded file: one `HIP event record` (out) and one `HIP event
/// wait` (in) per arrow, with the same flow id, and none carrying `correlation_id`.
fn decoded_dependency_flows(r: &Run) -> BTreeMap<u64, (u64, u64)> {
    let mut flows: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for p in &r.space.planes {
        for e in events(p) {
            let Some(v) = stat_u64(&e, "flow") else {
                continue;
            };
            assert!(e.correlation_id().is_none(), "anchor with correlation_id");
            assert_eq!(e.event.duration_ps, 0);
            let id = (v >> 2) & ((1 << 56) - 1);
            assert!(id < 1 << 53, "flow id {id} not below 2^53");
            let f = flows.entry(id).or_default();
            match (e.name(), v & 3) {
                ("HIP event record", 2) => f.0 += 1,
                ("HIP event wait", 1) => f.1 += 1,
                (n, d) => panic!("unexpected flow anchor {n:?} direction {d}"),
            }
        }
    }
    flows
}

/// Each producer anchor sits at the end of the truth's last activity on the recording stream
/// before the record, on that activity's line; each stream-wait consumer anchor at the start of
/// a device event of a later call, on that event's line.
fn check_anchor_positions(r: &Run, what: &str) {
    let calls = hip_calls(r);
    let corr_of = |seq: u64| calls[seq as usize].correlation_id().unwrap();
    // Anchors by (wait correlation id, direction out?) → (plane, line id, offset).
    let mut anchors: HashMap<(u64, bool), (String, i64, i64)> = HashMap::new();
    let mut work: Vec<(u64, String, i64, i64, i64)> = Vec::new();
    for p in device_planes(&r.space)
        .into_iter()
        .chain([support::xspace::plane(&r.space, "/host:CPU")])
    {
        for e in events(p) {
            if let Some(w) = stat_u64(&e, "dependency_wait_corr_id") {
                let out = e.name() == "HIP event record";
                anchors.insert((w, out), (p.name.clone(), e.line.id, e.offset_ps()));
            } else if let Some(c) = e
                .correlation_id()
                .filter(|_| e.is_kernel() || e.is_memcpy())
            {
                let end = e.offset_ps() + e.event.duration_ps;
                work.push((c, p.name.clone(), e.line.id, e.offset_ps(), end));
            }
        }
    }
    let mut checked = 0;
    for w in r.plan()["waits"].as_array().unwrap() {
        let Some(last) = w["producer"]["last_activity"].as_array() else {
            continue;
        };
        let wait_corr = corr_of(u(&w["wait"]["hip_seq"]));
        let act_corr = corr_of(u(&last[0]["hip_seq"]));
        let (plane, line, at) = anchors
            .get(&(wait_corr, true))
            .unwrap_or_else(|| panic!("{what}: no producer anchor for wait {wait_corr}"));
        assert!(
            work.iter()
                .any(|(c, p, l, _, end)| *c == act_corr && p == plane && l == line && end == at),
            "{what}: producer anchor of wait {wait_corr} not at the end of call {act_corr}"
        );
        let (plane, line, at) = &anchors[&(wait_corr, false)];
        if plane.starts_with("/device:GPU:") {
            assert!(
                work.iter().any(|(c, p, l, start, _)| *c > wait_corr
                    && p == plane
                    && l == line
                    && start == at),
                "{what}: consumer anchor of wait {wait_corr} not at the start of later work"
            );
        }
        checked += 1;
    }
    assert!(checked > 0, "{what}: no wait with a producer activity");
}

#[test]
fn sync_deps_waits_resolve_to_the_truths_records_both_sdks() {
    for sdk in SDKS {
        let r = run("sync-deps.toml", sdk);
        let what = format!("sync-deps {sdk}");
        let (resolved, unresolved) = check_waits(&r, &what);
        assert!(
            resolved >= 8 && unresolved >= 1,
            "{what}: {resolved} {unresolved}"
        );
        check_stream_lines(&r, &what);
        assert_lines_nest(&r.space, &what);
        let flows = decoded_dependency_flows(&r);
        assert_eq!(
            flows.len() as u64,
            resolved,
            "{what}: one arrow per resolved wait"
        );
        assert!(flows.values().all(|&f| f == (1, 1)), "{what}: {flows:?}");
        check_anchor_positions(&r, &what);
    }
}

#[test]
fn multi_gpu_streams_and_waits_both_sdks() {
    for sdk in SDKS {
        let r = run("multi-gpu.toml", sdk);
        let what = format!("multi-gpu {sdk}");
        check_waits(&r, &what);
        check_stream_lines(&r, &what);
        assert_lines_nest(&r.space, &what);
        check_anchor_positions(&r, &what);
    }
}

/// Through real xprof: every launch arrow (gpu_launch) joins one host call to its device work,
/// every dependency arrow joins one `HIP event record` anchor to one `HIP event wait` anchor,
/// and no flow is left with only one end — although every HIP call now carries
/// `correlation_id`, also the ones without device work.
#[test]
fn xprof_draws_launch_and_dependency_arrows_without_dangling_ones() {
    for sdk in SDKS {
        let r = run("sync-deps.toml", sdk);
        let what = format!("sync-deps {sdk} via xprof");
        let host = host_of(&r.files[0]);
        let s = support::xprof::summary(&r.files[0], &host);
        assert_eq!(s["errors"], serde_json::json!({}), "{what}");
        let decoded = decoded_dependency_flows(&r);
        let mut launch = 0u64;
        let mut dependency: HashMap<u64, (String, String)> = HashMap::new();
        let mut one_ended = 0u64;
        for (id, f) in s["trace"]["flows"].as_object().unwrap() {
            let evs = f["events"].as_array().unwrap();
            if u(&f["in"]) == 0 {
                // xprof 2.24.2 gives every host event with `correlation_id` a gpu_launch flow
                // start; a call without device work keeps a lone start, which draws no arrow
                // (an arrow needs a START and an END). Only such calls may have one.
                assert_eq!(f["cat"], "gpu_launch", "{what}: {id}: {f}");
                assert_eq!((u(&f["out"]), evs.len()), (1, 1), "{what}: {id}: {f}");
                assert!(evs[0]["process"].as_str().unwrap().ends_with("/host:CPU"));
                one_ended += 1;
                continue;
            }
            assert!(u(&f["out"]) >= 1, "{what}: flow {id} without a start: {f}");
            if f["cat"] == "gpu_launch" {
                launch += 1;
                assert!(evs
                    .iter()
                    .all(|e| e["name"] != "HIP event record" && e["name"] != "HIP event wait"));
                continue;
            }
            assert!(
                f["cat"].is_null(),
                "{what}: dependency flows are generic: {f}"
            );
            assert_eq!(evs.len(), 2, "{what}: {f}");
            let out = evs
                .iter()
                .find(|e| e["name"] == "HIP event record")
                .unwrap();
            let inn = evs.iter().find(|e| e["name"] == "HIP event wait").unwrap();
            assert_eq!(
                out["dependency_wait_corr_id"], inn["dependency_wait_corr_id"],
                "{what}: {f}"
            );
            dependency.insert(
                id.parse().unwrap(),
                (
                    format!("{} {}", out["process"], out["thread"]),
                    format!("{} {}", inn["process"], inn["thread"]),
                ),
            );
        }
        let calls_with_work: u64 = support::truth::truth_calls_with_activity(r.plan())
            .values()
            .flat_map(|m| m.values())
            .sum();
        assert_eq!(
            launch, calls_with_work,
            "{what}: one launch arrow per call with work"
        );
        let hip_calls = u(&r.plan()["totals"]["hip_api_calls"]);
        assert_eq!(
            one_ended,
            hip_calls - calls_with_work,
            "{what}: lone flow starts only for the calls without device work"
        );
        let ids: Vec<u64> = decoded.keys().copied().collect();
        let mut got: Vec<u64> = dependency.keys().copied().collect();
        got.sort_unstable();
        assert_eq!(
            got, ids,
            "{what}: every dependency arrow, same ids as written"
        );
        // Stream waits whose consumer stream has later work end on a GPU stream row.
        assert!(
            dependency
                .values()
                .any(|(from, to)| from.contains("/device:GPU:") && to.contains("/device:GPU:")),
            "{what}: {dependency:?}"
        );
        eprintln!(
            "{what}: {launch} launch arrows, {} dependency arrows, {one_ended} one-ended \
             launch flows (calls without device work), {} flows in all",
            dependency.len(),
            s["trace"]["flow_count"]
        );
    }
}
