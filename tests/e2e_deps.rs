//! What the dependency view must show: HIP streams as device lines, sync-API stats resolved
//! from the sorted per-event producer vectors, and dependency arrows, checked against the
//! simulator's ground truth (test infrastructure, not hardware) by decoding the file AND through
//! real xprof (`trace_viewer@`), for both SDK families (0.6.0 and 1.0.0 personalities).
//!
//! The ground truth gives every call's correlation id (`plan.waits[].wait.correlation_id`, …),
//! each wait's producer record and its last activity, the consumer activity, and the expected
//! `Stream #N` of every stream (`plan.stream_order[].line_index`).

mod support;

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;
use support::paths::{builtin, host_of};
use support::sim::{cached, Run};
use support::u;
use support::xspace::{
    assert_lines_nest, counter, device_events, device_planes, events, host_api_events, memcpys,
    plane, Ev, Stat,
};

/// Both SDK families, and 1.4.0: the personality with HIP event tracing (`HIP_EVENT` barriers).
const SDKS: [&str; 3] = ["0.6.0", "1.0.0", "1.4.0"];

/// Personalities whose runtime reports HIP event barriers.
fn has_barriers(sdk: &str) -> bool {
    sdk == "1.4.0"
}

fn run(scenario: &str, sdk: &str) -> std::sync::Arc<Run> {
    cached(&builtin(scenario), sdk, &[])
}

fn stat_u64(e: &Ev<'_>, name: &str) -> Option<u64> {
    e.stat(name).and_then(|s| s.as_u64())
}

fn corr(op: &Value) -> u64 {
    u(&op["correlation_id"])
}

/// HIP host events by correlation id; every one carries it.
fn hip_calls(r: &Run) -> HashMap<u64, Ev<'_>> {
    let mut m = HashMap::new();
    for e in host_api_events(&r.space) {
        if !e.name().starts_with("hip") {
            continue;
        }
        let c = e
            .correlation_id()
            .unwrap_or_else(|| panic!("{} without correlation_id", e.name()));
        m.insert(c, e);
    }
    m
}

/// Sync stats of every wait and event sync equal the truth's resolution; returns the number of
/// (resolved, unresolved) waits.
fn check_waits(r: &Run, what: &str) -> (u64, u64) {
    let plan = r.plan();
    let calls = hip_calls(r);
    assert_eq!(
        calls.len() as u64,
        support::truth::truth_traced_hip_calls(plan),
        "{what}: every traced HIP call on the host, once"
    );
    let (mut resolved, mut unresolved) = (0, 0);
    let waits = plan["waits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w, &w["wait"], true));
    let syncs = plan["event_syncs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w, &w["sync"], false));
    for (edge, op, stream_wait) in waits.chain(syncs) {
        let c = corr(op);
        let ev = &calls[&c];
        let (api, ty) = if stream_wait {
            ("hipStreamWaitEvent", "stream_wait_event")
        } else {
            ("hipEventSynchronize", "event_synchronize")
        };
        assert_eq!(ev.name(), api, "{what}: call {c}");
        assert_eq!(
            ev.stat("sync_type"),
            Some(Stat::Str(ty.into())),
            "{what}: {c}"
        );
        // Always the raw event handle, resolved or not.
        assert_eq!(
            stat_u64(ev, "wait_on_hip_event_id"),
            Some(u(&edge["event"])),
            "{what}: {c}"
        );
        let p = &edge["producer"];
        if p.is_null() {
            unresolved += 1;
            assert_eq!(
                ev.stat("wait_on_hip_event_record_corr_id"),
                None,
                "{what}: {c}"
            );
            assert_eq!(ev.stat("wait_on_stream"), None, "{what}: {c}");
        } else {
            resolved += 1;
            let rc = corr(&p["record"]);
            assert_eq!(
                stat_u64(ev, "wait_on_hip_event_record_corr_id"),
                Some(rc),
                "{what}: {api} {c} resolves to record {rc}"
            );
            let record = &calls[&rc];
            assert!(record.name().starts_with("hipEventRecord"), "{what}: {rc}");
            assert_eq!(stat_u64(record, "hip_event"), Some(u(&edge["event"])));
            // The producer's stream, as `Stream #N` of the truth (the null stream counts).
            let want = line_index(plan, &p["stream"]);
            assert_eq!(
                record.stat("hip_stream"),
                Some(Stat::I64(want)),
                "{what}: {rc}"
            );
            assert_eq!(
                ev.stat("wait_on_stream"),
                Some(Stat::I64(want)),
                "{what}: {c}"
            );
        }
        if stream_wait {
            let want = line_index(plan, &edge["stream"]);
            assert_eq!(
                ev.stat("hip_stream"),
                Some(Stat::I64(want)),
                "{what}: consumer of {c}"
            );
        }
    }
    assert_eq!(counter(&r.space, "waits_resolved"), resolved, "{what}");
    assert_eq!(counter(&r.space, "waits_unresolved"), unresolved, "{what}");
    for e in calls.values() {
        if matches!(e.name(), "hipStreamSynchronize" | "hipDeviceSynchronize") {
            assert!(e.stat("sync_type").is_some(), "{what}: {}", e.name());
        }
        if e.name() == "hipStreamSynchronize" {
            assert!(e.stat("hip_stream").is_some(), "{what}: {}", e.name());
        }
        if e.name() == "hipDeviceSynchronize" {
            assert_eq!(
                e.stat("hip_stream"),
                Some(Stat::I64(-1)),
                "{what}: no stream"
            );
        }
    }
    (resolved, unresolved)
}

/// The truth's `Stream #N` of a stream `{gpu, handle}`.
fn line_index(plan: &Value, stream: &Value) -> i64 {
    plan["stream_order"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["gpu"] == stream["gpu"] && s["handle"] == stream["handle"])
        .and_then(|s| s["line_index"].as_i64())
        .unwrap_or_else(|| panic!("no line_index for {stream}"))
}

/// Device lines are the truth's streams: line `Stream #N` (id N) holds exactly the kernels and
/// copies of the stream whose `line_index` is N, and nothing else holds device work.
fn check_stream_lines(r: &Run, what: &str) {
    let plan = r.plan();
    let mut want: BTreeMap<(u64, i64), u64> = BTreeMap::new();
    for s in plan["streams"].as_array().unwrap() {
        let n = u(&s["kernel_dispatches"]) + u(&s["memory_copies"]);
        if n > 0 {
            want.insert((u(&s["gpu"]), line_index(plan, s)), n);
        }
    }
    let mut got: BTreeMap<(u64, i64), u64> = BTreeMap::new();
    for p in device_planes(&r.space) {
        let gpu: u64 = p.name.rsplit(':').next().unwrap().parse().unwrap();
        for l in &p.lines {
            assert!(
                l.name.starts_with(&format!("Stream #{}", l.id)) && !l.name.contains("overlap"),
                "{what}: line {} named {:?}",
                l.id,
                l.name
            );
        }
        for e in events(p)
            .into_iter()
            .filter(|e| e.is_kernel() || e.is_memcpy())
        {
            *got.entry((gpu, e.line.id)).or_default() += 1;
            if e.is_kernel() {
                assert!(
                    e.stat("hsa_queue").is_some(),
                    "{what}: kernel without hsa_queue"
                );
            }
        }
    }
    assert_eq!(got, want, "{what}: device work per (GPU, Stream #N)");
    assert_eq!(counter(&r.space, "stream_overlap_events"), 0, "{what}");
}

/// Anchor of each arrow end: (wait correlation id, producer end?) → (plane, line id, offset ps).
type Anchors = HashMap<(u64, bool), (String, i64, i64)>;

/// Dependency anchors in the decoded file: exactly one `HIP event record` (flow out) and one
/// `HIP event wait` (flow in) per arrow with the same id below 2^53, none with correlation_id.
fn decoded_anchors(r: &Run) -> Anchors {
    let mut flows: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    let mut anchors = Anchors::new();
    for p in &r.space.planes {
        for e in events(p) {
            let Some(v) = stat_u64(&e, "flow") else {
                continue;
            };
            assert!(e.correlation_id().is_none(), "anchor with correlation_id");
            assert_eq!(e.event.duration_ps, 0);
            let id = (v >> 2) & ((1 << 56) - 1);
            assert!(id < 1 << 53, "flow id {id} not below 2^53");
            let out = match (e.name(), v & 3) {
                ("HIP event record", 2) => true,
                ("HIP event wait", 1) => false,
                (n, d) => panic!("unexpected flow anchor {n:?} direction {d}"),
            };
            let f = flows.entry(id).or_default();
            if out {
                f.0 += 1
            } else {
                f.1 += 1
            }
            let w = stat_u64(&e, "dependency_wait_corr_id").expect("anchor names its wait");
            let prev = anchors.insert((w, out), (p.name.clone(), e.line.id, e.offset_ps()));
            assert!(prev.is_none(), "two anchors for wait {w}");
        }
    }
    assert!(flows.values().all(|&f| f == (1, 1)), "{flows:?}");
    anchors
}

/// Arrows join the truth's producer to its consumer: the producer anchor at the end of the
/// producer record's last activity (on its line), else at the record call's end on the host; the
/// consumer anchor at the start of the truth's consumer activity, else at the wait call's end.
/// Where the runtime reports HIP event barriers (`barriers`), an anchor whose stream has a line
/// sits there at the GPU-side completion of the RECORD or WAIT barrier instead.
fn check_arrows(r: &Run, what: &str, barriers: bool) -> usize {
    let anchors = decoded_anchors(r);
    let mut work: HashMap<u64, Vec<(String, i64, i64, i64)>> = HashMap::new();
    for e in device_events(&r.space) {
        if let Some(c) = e.correlation_id() {
            let end = e.offset_ps() + e.event.duration_ps;
            work.entry(c)
                .or_default()
                .push((e.plane.name.clone(), e.line.id, e.offset_ps(), end));
        }
    }
    let host = plane(&r.space, "/host:CPU");
    let host_end = |c: u64| -> (String, i64, i64) {
        let e = events(host)
            .into_iter()
            .find(|e| e.correlation_id() == Some(c))
            .unwrap();
        (
            host.name.clone(),
            e.line.id,
            e.offset_ps() + e.event.duration_ps,
        )
    };
    let plan = r.plan();
    // Truth times are relative to the replay start: map them through one activity whose file
    // offset is known.
    let reference = plan["waits"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|w| w["consumer"].as_object())
        .expect("a wait with a consumer activity");
    let ref_start = work[&corr(&reference["call"])]
        .iter()
        .map(|x| x.2)
        .min()
        .unwrap();
    let ref_rel = u(&reference["start_ns"]) as i64;
    let file_ps = |t_rel: &Value| ref_start + (u(t_rel) as i64 - ref_rel) * 1000;
    let lines_with_work: std::collections::HashSet<(String, i64)> = work
        .values()
        .flatten()
        .map(|x| (x.0.clone(), x.1))
        .collect();
    // The anchor on a stream's own line at a barrier's completion, when both exist.
    let on_barrier = |barrier: &Value, stream: &Value| -> Option<(String, i64, i64)> {
        if !barriers || barrier.is_null() {
            return None;
        }
        let place = (
            format!("/device:GPU:{}", u(&stream["gpu"])),
            line_index(plan, stream),
        );
        lines_with_work
            .contains(&place)
            .then(|| (place.0, place.1, file_ps(&barrier["end_ns"])))
    };
    let (mut arrows, mut on_barriers, mut moved) = (0, 0, 0);
    let waits = plan["waits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w, &w["wait"], true));
    let syncs = plan["event_syncs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w, &w["sync"], false));
    for (edge, op, stream_wait) in waits.chain(syncs) {
        let w = corr(op);
        let p = &edge["producer"];
        if p.is_null() {
            assert!(
                !anchors.contains_key(&(w, true)),
                "{what}: arrow for unresolved {w}"
            );
            continue;
        }
        arrows += 1;
        let from_activity = match p["last_activity"].as_object() {
            Some(a) => {
                let c = corr(&a["call"]);
                let last_end = work[&c].iter().map(|x| x.3).max().unwrap();
                let at = work[&c].iter().find(|x| x.3 == last_end).unwrap();
                (at.0.clone(), at.1, at.3)
            }
            None => host_end(corr(&p["record"])),
        };
        let from = match on_barrier(&p["barrier"], &p["stream"]) {
            Some(b) => {
                on_barriers += 1;
                moved += usize::from(b != from_activity);
                b
            }
            None => from_activity,
        };
        assert_eq!(anchors[&(w, true)], from, "{what}: producer of {w}");
        let consumer = edge
            .get("consumer")
            .and_then(|c| c.as_object())
            .filter(|_| stream_wait);
        let to_activity = match consumer {
            Some(a) => {
                let c = corr(&a["call"]);
                let first = work[&c].iter().map(|x| x.2).min().unwrap();
                let at = work[&c].iter().find(|x| x.2 == first).unwrap();
                (at.0.clone(), at.1, at.2)
            }
            None => host_end(w),
        };
        let to = match on_barrier(&edge["barrier"], &edge["stream"]).filter(|_| stream_wait) {
            Some(b) => {
                on_barriers += 1;
                moved += usize::from(b != to_activity);
                b
            }
            None => to_activity,
        };
        assert_eq!(anchors[&(w, false)], to, "{what}: consumer of {w}");
    }
    assert_eq!(anchors.len(), 2 * arrows, "{what}: no other anchors");
    if barriers {
        assert!(on_barriers > 0, "{what}: no anchor at a HIP event barrier");
        assert!(counter(&r.space, "hip_event_records") > 0, "{what}");
    } else {
        assert_eq!(counter(&r.space, "hip_event_records"), 0, "{what}");
    }
    eprintln!(
        "{what}: {arrows} arrows, {on_barriers} anchors at HIP event barriers ({moved} of them \
         elsewhere than the neighbouring activity)"
    );
    arrows
}

/// Through real xprof: each launch arrow (`gpu_launch`) joins one host call to its device
/// work, one per call with work; each dependency arrow joins one `HIP event record` anchor to
/// one `HIP event wait` anchor of the same wait, with the ids we wrote; a call without device
/// work keeps a lone launch-flow start (it carries `correlation_id` as every HIP call does),
/// which draws no arrow. Returns (launch arrows, dependency arrows, lone starts).
fn check_in_xprof(r: &Run, what: &str, dependency_arrows: usize) -> (u64, u64, u64) {
    let host = host_of(&r.files[0]);
    let s = support::xprof::summary(&r.files[0], &host);
    assert_eq!(s["errors"], serde_json::json!({}), "{what}");
    let (mut launch, mut dependency, mut lone) = (0u64, 0u64, 0u64);
    for (id, f) in s["trace"]["flows"].as_object().unwrap() {
        let evs = f["events"].as_array().unwrap();
        let names: Vec<&str> = evs.iter().map(|e| e["name"].as_str().unwrap()).collect();
        if u(&f["in"]) == 0 {
            assert_eq!(f["cat"], "gpu_launch", "{what}: {id}: {f}");
            assert_eq!((u(&f["out"]), evs.len()), (1, 1), "{what}: {id}: {f}");
            assert!(evs[0]["process"].as_str().unwrap().ends_with("/host:CPU"));
            lone += 1;
        } else if f["cat"] == "gpu_launch" {
            assert_eq!(u(&f["out"]), 1, "{what}: {f}");
            assert!(evs.iter().all(|e| e["dependency_wait_corr_id"].is_null()));
            assert!(!names.contains(&"HIP event record") && !names.contains(&"HIP event wait"));
            launch += 1;
        } else {
            assert!(
                f["cat"].is_null(),
                "{what}: dependency flows are generic: {f}"
            );
            assert_eq!(names.len(), 2, "{what}: {f}");
            assert!(names.contains(&"HIP event record") && names.contains(&"HIP event wait"));
            assert_eq!(
                evs[0]["dependency_wait_corr_id"],
                evs[1]["dependency_wait_corr_id"]
            );
            assert!(u(&f["out"]) == 1 && u(&f["in"]) == 1, "{what}: {f}");
            dependency += 1;
        }
    }
    let with_work: u64 = support::truth::truth_calls_with_activity(r.plan())
        .values()
        .flat_map(|m| m.values())
        .sum();
    assert_eq!(
        launch, with_work,
        "{what}: one launch arrow per call with work"
    );
    assert_eq!(
        dependency, dependency_arrows as u64,
        "{what}: every dependency arrow"
    );
    let hip_calls = support::truth::truth_traced_hip_calls(r.plan());
    assert_eq!(
        lone,
        hip_calls - with_work,
        "{what}: lone starts = calls without work"
    );
    eprintln!("{what}: xprof trace_viewer@: {launch} launch arrows, {dependency} dependency arrows, {lone} lone launch-flow starts");
    (launch, dependency, lone)
}

/// Everything, decoded and through xprof, for one scenario under both SDK families.
fn check_scenario(scenario: &str) -> Vec<(u64, u64, usize)> {
    SDKS.iter()
        .map(|sdk| {
            let r = run(scenario, sdk);
            let what = format!("{scenario} {sdk}");
            let (resolved, unresolved) = check_waits(&r, &what);
            check_stream_lines(&r, &what);
            assert_lines_nest(&r.space, &what);
            let arrows = check_arrows(&r, &what, has_barriers(sdk));
            if support::xprof::available() {
                check_in_xprof(&r, &what, arrows);
            }
            (resolved, unresolved, arrows)
        })
        .collect()
}

#[test]
fn two_stream_events_eight_of_eight_waits_resolved() {
    for (resolved, unresolved, arrows) in check_scenario("two-stream-events.toml") {
        assert_eq!((resolved, unresolved, arrows), (8, 0, 8));
    }
    // No extra events: device work is exactly the truth's, host calls exactly the truth's.
    for sdk in SDKS {
        let r = run("two-stream-events.toml", sdk);
        let t = &r.plan()["totals"];
        assert_eq!(
            device_events(&r.space).len() as u64,
            u(&t["kernel_dispatches"]) + u(&t["memory_copies"]),
            "{sdk}"
        );
    }
}

#[test]
fn event_reuse_resolves_by_correlation_order_even_when_the_record_arrives_late() {
    for (resolved, unresolved, _) in check_scenario("event-reuse.toml") {
        // 101 → 100, 201 → 200, the event sync → 200; 203 (never recorded) unresolved.
        assert_eq!((resolved, unresolved), (3, 1));
    }
    for sdk in SDKS {
        let r = run("event-reuse.toml", sdk);
        let calls = hip_calls(&r);
        let rec = |c: u64| stat_u64(&calls[&c], "wait_on_hip_event_record_corr_id");
        assert_eq!(
            (rec(101), rec(201), rec(205)),
            (Some(100), Some(200), Some(200)),
            "{sdk}"
        );
        assert_eq!(rec(203), None, "{sdk}");
        assert!(
            stat_u64(&calls[&203], "wait_on_hip_event_id").is_some(),
            "{sdk}"
        );
    }
}

#[test]
fn concurrent_streams_get_distinct_lines_and_arrows() {
    for (resolved, _, arrows) in check_scenario("concurrent-streams.toml") {
        assert_eq!((resolved, arrows), (9, 9));
    }
    for sdk in SDKS {
        let r = run("concurrent-streams.toml", sdk);
        // Six named streams plus the null stream, each its own line on the one GPU, although
        // they share 4 HSA queues.
        let gpu = &device_planes(&r.space)[0];
        let with_work = gpu.lines.iter().filter(|l| !l.events.is_empty()).count();
        assert_eq!(with_work, 7, "{sdk}");
    }
}

#[test]
fn sync_deps_and_multi_gpu_both_sdks() {
    for (resolved, unresolved, _) in check_scenario("sync-deps.toml") {
        assert_eq!((resolved, unresolved), (8, 1));
    }
    check_scenario("multi-gpu.toml");
}

/// The runtime's stream brackets cost every call with a stream two more callbacks, so the tool
/// starts them only when a call of a function its table does not list comes: a program whose
/// calls are all rows of the table never gets them.
#[test]
fn the_stream_brackets_start_only_for_a_call_the_table_cannot_place() {
    use support::paths::test_scenario;
    let log = [("ROCPROF_XPLANE_LOG", "info")];
    let started = |r: &Run| r.stderr.contains("HIP_STREAM brackets started");
    let listed = cached(&builtin("sync-deps.toml"), "1.0.0", &log);
    assert!(!started(&listed), "{}", listed.stderr);
    let unlisted = cached(&test_scenario("unplaced-op-stream.toml"), "1.0.0", &log);
    assert!(started(&unlisted), "{}", unlisted.stderr);
}

/// Work of HIP calls whose stream the table cannot read. A call of a function with a
/// `hipStream_t` parameter the table does not list: under SDK 1.x the runtime's own
/// `HIP_STREAM` brackets (bound to the work through the external-correlation request service)
/// put its work on its stream's line, from when the tool started them, at the first such call,
/// on; that first call's work goes to the current device's null stream, counted in the
/// profile's warnings. Under 0.x, which has no such callbacks, every such call's work goes
/// there. A multi-device launch has no `hipStream_t` parameter, so the runtime brackets it
/// under no SDK. Lines stay nested either way (work that overlaps on the null stream's line is
/// split off, counted).
#[test]
fn work_the_table_cannot_place_follows_the_stream_the_runtime_reports() {
    use support::paths::test_scenario;
    for sdk in ["0.6.0", "1.0.0"] {
        let r = cached(&test_scenario("unplaced-op-stream.toml"), sdk, &[]);
        assert_lines_nest(&r.space, sdk);
        // Lines of a kernel's dispatches, in time order.
        let line_of = |kernel: &str| -> Vec<i64> {
            let mut v: Vec<(i64, i64)> = device_events(&r.space)
                .into_iter()
                .filter(|e| e.name() == kernel)
                .map(|e| (e.start_ps(), e.line.id))
                .collect();
            v.sort_unstable();
            v.into_iter().map(|(_, line)| line).collect()
        };
        let known = line_of("k_known");
        let multi = line_of("k_multi");
        let mut copies: Vec<(i64, i64)> = memcpys(&r.space)
            .iter()
            .map(|e| (e.start_ps(), e.line.id))
            .collect();
        copies.sort_unstable();
        let copies: Vec<i64> = copies.into_iter().map(|(_, line)| line).collect();
        assert_eq!((known.len(), multi.len(), copies.len()), (2, 1, 2), "{sdk}");
        // The first k_known ran on stream "s" (Stream #1), the second on the null stream (line
        // 0, or a line split off it where the work placed there overlaps).
        assert_eq!(known[0], 1, "{sdk}");
        assert_ne!(known[1], 1, "{sdk}");
        let early = r
            .space
            .warnings
            .iter()
            .filter(|w| w.contains("before the runtime's HIP_STREAM brackets started"))
            .collect::<Vec<_>>();
        if sdk == "1.0.0" {
            // The first copy asked for the brackets; the second, after the sleep, is in them.
            assert_ne!(copies[0], 1, "{sdk}: {copies:?}");
            assert_eq!(copies[1], 1, "{sdk}: the copy on its stream's line");
            assert_eq!(early.len(), 1, "{sdk}: {:?}", r.space.warnings);
            assert!(early[0].starts_with("1 calls"), "{sdk}: {early:?}");
        } else {
            assert!(
                !copies.contains(&1),
                "{sdk}: 0.x cannot know the copies' stream"
            );
            assert!(early.is_empty(), "{sdk}: {early:?}");
        }
        // A multi-device launch's streams lie in its parameter list: no SDK brackets it, so
        // its kernel goes to the current device's null stream under both.
        assert!(!multi.contains(&1), "{sdk}: {multi:?}");
    }
}
