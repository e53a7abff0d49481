//! HIP event tracing (personality 1.4.0, "newer" reference §5): RECORD/WAIT barrier records
//! and callbacks, checked against what the test tool observed of the same run (HIP API
//! callbacks and records, kernel/copy records) rather than against the simulator's tables, and
//! against the ground truth's barrier fields. Older personalities emit none.

mod common;
use common::*;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

fn scenario(name: &str) -> String {
    format!(
        "file:{}/../scenarios/{name}.toml",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a u64: {v}"))
}

fn hex(v: &Value) -> u64 {
    let s = v.as_str().expect("argument string");
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

/// A HIP call as the tool saw it: name, arguments (ENTER callback), times (API record).
struct Call {
    api: String,
    args: serde_json::Map<String, Value>,
    tid: u64,
    start: u64,
    end: u64,
}

impl Call {
    fn stream(&self) -> u64 {
        self.args.get("stream").map(hex).unwrap_or(0)
    }
    fn event(&self) -> Option<u64> {
        self.args.get("event").map(hex)
    }
}

struct Run {
    s: Sim,
    calls: BTreeMap<u64, Call>,
    /// Per stream: (correlation id, start, end, queue handle or 0 for copies).
    work: HashMap<u64, Vec<(u64, u64, u64, u64)>>,
}

fn replay(sdk: &str, name: &str) -> Run {
    let s = run(sdk, &scenario(name), "buf_size=65536");
    assert_eq!(s.code, Some(0), "{name}: {}", s.stderr);
    assert_eq!(s.ev("rec").len() as u64, s.emitted_total(), "{name}: lost");
    let mut calls = BTreeMap::new();
    for cb in s.cbs("HIP_RUNTIME_API") {
        if let Some(a) = cb["args"].as_object() {
            calls.insert(
                u(&cb["corr"]),
                Call {
                    api: cb["op_name"].as_str().unwrap().into(),
                    args: a.clone(),
                    tid: u(&cb["tid"]),
                    start: 0,
                    end: 0,
                },
            );
        }
    }
    for r in s.recs("HIP_RUNTIME_API") {
        let c = calls
            .get_mut(&u(&r["corr"]))
            .expect("API record of a seen call");
        (c.start, c.end) = (u(&r["start"]), u(&r["end"]));
    }
    let mut work: HashMap<u64, Vec<(u64, u64, u64, u64)>> = HashMap::new();
    for r in s
        .recs("KERNEL_DISPATCH")
        .into_iter()
        .chain(s.recs("MEMORY_COPY"))
    {
        let corr = u(&r["corr"]);
        let queue = r.get("queue").map_or(0, u);
        work.entry(calls[&corr].stream()).or_default().push((
            corr,
            u(&r["start"]),
            u(&r["end"]),
            queue,
        ));
    }
    Run { s, calls, work }
}

impl Run {
    /// End of the work submitted to `stream` by calls before `corr` (0 if none).
    fn work_end_before(&self, stream: u64, corr: u64) -> u64 {
        self.work.get(&stream).map_or(0, |v| {
            v.iter()
                .filter(|w| w.0 < corr)
                .map(|w| w.2)
                .max()
                .unwrap_or(0)
        })
    }
}

/// Every property of the HIP_EVENT records and callbacks that the tool can check by itself.
fn check_hip_events(name: &str) -> Run {
    let r = replay("1.4.0", name);
    let s = &r.s;
    let recs = s.recs("HIP_EVENT");
    let cbs = s.cbs("HIP_EVENT");
    let truth = &s.truth["plan"];
    let base = u(&s.truth["replay"]["base_timestamp_ns"]);

    // Records: 88 bytes, one per barrier, with the async correlation id of the call.
    let mut by_corr: HashMap<u64, &Value> = HashMap::new();
    for rec in &recs {
        assert_eq!(rec["size"], 88, "{name}: {rec}");
        assert_eq!(rec["record_kind"], 38);
        let corr = u(&rec["corr"]);
        assert!(
            by_corr.insert(corr, rec).is_none(),
            "{name}: two barriers for {corr}"
        );
        let call = &r.calls[&corr];
        assert_eq!(Some(u(&rec["event"])), call.event(), "{name}: {corr}");
        assert_eq!(u(&rec["tid"]), call.tid, "{name}: enqueuing thread");
        assert!(u(&rec["start"]) <= u(&rec["end"]));
        assert!(
            u(&rec["start"]) >= call.end,
            "{name}: barrier before its call returned"
        );
    }
    // RECORD: one per hipEventRecord, on the stream's queue, completing when the stream's
    // earlier work (and the call) ended; modelled instantaneous.
    let mut record_end: HashMap<u64, (u64, u64)> = HashMap::new(); // corr -> (end, queue)
    for (corr, call) in r.calls.iter().filter(|(_, c)| c.api == "hipEventRecord") {
        let rec = by_corr
            .get(corr)
            .unwrap_or_else(|| panic!("{name}: no RECORD for {corr}"));
        assert_eq!(rec["op_name"], "HIP_EVENT_RECORD");
        assert_eq!(rec["queue"], rec["source_queue"], "{name}: {corr}");
        let want = r.work_end_before(call.stream(), *corr).max(call.end);
        assert_eq!(
            (u(&rec["start"]), u(&rec["end"])),
            (want, want),
            "{name}: {corr}"
        );
        // The stream's kernels ran on the same queue.
        if let Some(q) = r
            .work
            .get(&call.stream())
            .and_then(|v| v.iter().find(|w| w.3 != 0))
        {
            assert_eq!(u(&rec["queue"]), q.3, "{name}: RECORD {corr} queue");
        }
        record_end.insert(*corr, (want, u(&rec["queue"])));
    }
    // WAIT: exactly for waits whose latest earlier record had not completed when the wait
    // started; ends when that record's barrier ended; later work on the stream starts after.
    let mut waits = 0;
    for (corr, call) in r
        .calls
        .iter()
        .filter(|(_, c)| c.api == "hipStreamWaitEvent")
    {
        let producer = r
            .calls
            .range(..*corr)
            .rev()
            .find(|(_, c)| c.api == "hipEventRecord" && c.event() == call.event())
            .map(|(k, _)| record_end[k]);
        let pending = producer.filter(|(end, _)| *end > call.start);
        match (by_corr.get(corr), pending) {
            (None, None) => {}
            (Some(rec), Some((end, queue))) => {
                waits += 1;
                assert_eq!(rec["op_name"], "HIP_EVENT_WAIT");
                assert_eq!(u(&rec["end"]), end.max(u(&rec["start"])), "{name}: {corr}");
                assert_eq!(u(&rec["source_queue"]), queue, "{name}: WAIT {corr} source");
                let later = r.work.get(&call.stream()).into_iter().flatten();
                for w in later.filter(|w| w.0 > *corr) {
                    assert!(
                        w.1 >= u(&rec["end"]),
                        "{name}: work {} before wait {corr}",
                        w.0
                    );
                }
            }
            (rec, p) => panic!("{name}: wait {corr}: record {rec:?}, pending producer {p:?}"),
        }
    }
    let records = record_end.len();
    assert_eq!(
        recs.len(),
        records + waits,
        "{name}: no extra HIP_EVENT records"
    );

    // Callbacks: ENTER and EXIT with zero timestamps on the calling thread inside the HIP
    // call, then PHASE_NONE with the record's times and the same user_data slot value.
    for (corr, rec) in &by_corr {
        let mine: Vec<&&Value> = cbs.iter().filter(|c| u(&c["corr"]) == *corr).collect();
        let phases: Vec<u64> = mine.iter().map(|c| u(&c["phase"])).collect();
        assert_eq!(phases, [1, 2, 0], "{name}: {corr} phases");
        for c in &mine {
            assert_eq!(c["size"], 56);
            assert_eq!(c["op"], rec["op"]);
            assert_eq!(c["queue"], rec["queue"]);
            assert_eq!(c["source_queue"], rec["source_queue"]);
            assert_eq!(c["event"], rec["event"]);
            assert_eq!(c["agent"], rec["agent"]);
            assert_eq!(u(&c["tid"]), r.calls[corr].tid);
        }
        assert_eq!(
            (mine[0]["start"].clone(), mine[0]["end"].clone()),
            (0.into(), 0.into())
        );
        assert_eq!(
            (mine[1]["start"].clone(), mine[1]["end"].clone()),
            (0.into(), 0.into())
        );
        assert_eq!(
            (&mine[2]["start"], &mine[2]["end"]),
            (&rec["start"], &rec["end"])
        );
        let at = |pred: &dyn Fn(&Value) -> bool| s.index_of(|v| pred(v)).unwrap();
        let api_enter = at(&|v| {
            v["ev"] == "cb"
                && v["kind_name"] == "HIP_RUNTIME_API"
                && v["phase"] == 1
                && u(&v["corr"]) == *corr
        });
        let api_exit = at(&|v| {
            v["ev"] == "cb"
                && v["kind_name"] == "HIP_RUNTIME_API"
                && v["phase"] == 2
                && u(&v["corr"]) == *corr
        });
        let enq =
            at(&|v| v["ev"] == "cb" && v["kind_name"] == "HIP_EVENT" && u(&v["corr"]) == *corr);
        assert!(
            api_enter < enq && enq < api_exit,
            "{name}: {corr}: enqueue inside the call"
        );
    }

    // The ground truth names the same barriers.
    let base_of = |b: &Value| (u(&b["start_ns"]) + base, u(&b["end_ns"]) + base);
    for er in truth["event_records"].as_array().unwrap() {
        let corr = u(&er["record"]["correlation_id"]);
        let rec = by_corr[&corr];
        assert_eq!(base_of(&er["barrier"]), (u(&rec["start"]), u(&rec["end"])));
        assert_eq!(u(&er["complete_ns"]) + base, u(&rec["end"]));
    }
    for w in truth["waits"].as_array().unwrap() {
        let corr = u(&w["wait"]["correlation_id"]);
        match by_corr.get(&corr) {
            None => assert!(w["barrier"].is_null(), "{name}: truth WAIT {corr}"),
            Some(rec) => assert_eq!(base_of(&w["barrier"]), (u(&rec["start"]), u(&rec["end"]))),
        }
    }
    r
}

#[test]
fn two_stream_events_every_wait_has_a_barrier() {
    let r = check_hip_events("two-stream-events");
    let n = |op: &str| {
        r.s.recs("HIP_EVENT")
            .iter()
            .filter(|x| x["op_name"] == op)
            .count()
    };
    assert_eq!((n("HIP_EVENT_RECORD"), n("HIP_EVENT_WAIT")), (8, 8));
}

#[test]
fn event_reuse_waits_on_completed_or_unrecorded_events_have_none() {
    let r = check_hip_events("event-reuse");
    let recs = r.s.recs("HIP_EVENT");
    let corr: Vec<u64> = recs.iter().map(|x| u(&x["corr"])).collect();
    assert_eq!(corr.len(), 2, "{corr:?}");
    assert!(corr.contains(&100) && corr.contains(&200));
}

#[test]
fn concurrent_and_sync_deps_scenarios() {
    for name in ["concurrent-streams", "sync-deps"] {
        check_hip_events(name);
    }
}

#[test]
fn multi_gpu_waits_name_the_recording_queue() {
    // Cross-GPU waits: the WAIT barrier runs on the waiting GPU, its source queue is the
    // recording stream's queue on the other GPU (queue handles encode the GPU).
    let r = replay("1.4.0", "multi-gpu");
    let waits: Vec<&Value> =
        r.s.recs("HIP_EVENT")
            .into_iter()
            .filter(|x| x["op_name"] == "HIP_EVENT_WAIT")
            .collect();
    let records: HashMap<u64, u64> =
        r.s.recs("HIP_EVENT")
            .into_iter()
            .filter(|x| x["op_name"] == "HIP_EVENT_RECORD")
            .map(|x| (u(&x["corr"]), u(&x["queue"])))
            .collect();
    assert!(!waits.is_empty());
    for w in waits {
        assert!(records.values().any(|q| *q == u(&w["source_queue"])), "{w}");
    }
    let truth = &r.s.truth["plan"];
    assert!(truth["waits"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| !w["barrier"].is_null() && w["barrier"]["gpu"] != w["barrier"]["source_gpu"]));
}

fn older_personalities_emit_no_hip_events(sdk: &str) {
    let r = replay(sdk, "two-stream-events");
    assert!(r.s.recs("HIP_EVENT").is_empty() && r.s.cbs("HIP_EVENT").is_empty());
    assert!(r.s.truth["delivery"]["emitted_per_kind"]
        .get("HIP_EVENT")
        .is_none());
}

#[test]
fn no_hip_events_in_1_2_1() {
    older_personalities_emit_no_hip_events("1.2.1");
}

both_sdks!(older_personalities_emit_no_hip_events);
