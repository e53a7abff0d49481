//! The ground truth's dependency fields (`event_records`, `waits[].producer`,
//! `waits[].consumer`, `event_syncs`, `stream_order`, `correlation_id` of every call) checked
//! against an independent computation from what the test tool actually received: the HIP API
//! ENTER callbacks (arguments by name, correlation ids), the kernel-dispatch and memory-copy
//! buffer records, and (1.x) the HIP_STREAM callbacks. Nothing here reuses `truth.rs`.

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

fn hex(v: &Value) -> u64 {
    let s = v.as_str().expect("argument value string");
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a u64: {v}"))
}

/// A HIP call as the tool saw it at ENTER.
struct Call {
    api: String,
    args: serde_json::Map<String, Value>,
}

impl Call {
    fn arg(&self, name: &str) -> Option<u64> {
        self.args.get(name).map(hex)
    }
    /// The stream the call names (a call without a stream argument uses the null stream).
    fn stream(&self) -> u64 {
        self.arg("stream").unwrap_or(0)
    }
}

/// A device activity as the tool received it: correlation id and absolute times.
#[derive(Clone, Copy, Debug)]
struct Act {
    corr: u64,
    start: u64,
    end: u64,
}

struct Seen {
    calls: BTreeMap<u64, Call>,
    /// Activities per stream handle (single-GPU scenarios), sorted by correlation id.
    per_stream: HashMap<u64, Vec<Act>>,
    base: u64,
}

fn seen(s: &Sim) -> Seen {
    let mut calls = BTreeMap::new();
    for cb in s.cbs("HIP_RUNTIME_API") {
        if let Some(args) = cb["args"].as_object() {
            calls.insert(
                u(&cb["corr"]),
                Call {
                    api: cb["op_name"].as_str().unwrap().to_string(),
                    args: args.clone(),
                },
            );
        }
    }
    let mut per_stream: HashMap<u64, Vec<Act>> = HashMap::new();
    for r in s
        .recs("KERNEL_DISPATCH")
        .into_iter()
        .chain(s.recs("MEMORY_COPY"))
    {
        let corr = u(&r["corr"]);
        let stream = calls[&corr].stream();
        per_stream.entry(stream).or_default().push(Act {
            corr,
            start: u(&r["start"]),
            end: u(&r["end"]),
        });
    }
    for v in per_stream.values_mut() {
        v.sort_by_key(|a| (a.corr, a.start, a.end));
    }
    Seen {
        calls,
        per_stream,
        base: u(&s.truth["replay"]["base_timestamp_ns"]),
    }
}

impl Seen {
    /// Latest hipEventRecord of `event` with a correlation id below `corr`.
    fn record_before(&self, event: u64, corr: u64) -> Option<(u64, &Call)> {
        self.calls
            .range(..corr)
            .rev()
            .find(|(_, c)| c.api.starts_with("hipEventRecord") && c.arg("event") == Some(event))
            .map(|(k, c)| (*k, c))
    }
    /// Of the last call before `corr` with work on `stream`: its activity ending last.
    fn last_before(&self, stream: u64, corr: u64) -> Option<Act> {
        let v = self.per_stream.get(&stream)?;
        let last = v.iter().rev().find(|a| a.corr < corr)?.corr;
        v.iter()
            .filter(|a| a.corr == last)
            .max_by_key(|a| (a.end, a.start))
            .copied()
    }
    /// Of the first call after `corr` with work on `stream`: its activity starting first.
    fn first_after(&self, stream: u64, corr: u64) -> Option<Act> {
        let v = self.per_stream.get(&stream)?;
        let first = v.iter().find(|a| a.corr > corr)?.corr;
        v.iter()
            .filter(|a| a.corr == first)
            .min_by_key(|a| (a.start, a.end))
            .copied()
    }
    fn check_act(&self, truth: &Value, want: Option<Act>, what: &str) {
        match want {
            None => assert!(truth.is_null(), "{what}: truth has {truth}, tool saw none"),
            Some(a) => {
                assert_eq!(u(&truth["call"]["correlation_id"]), a.corr, "{what}");
                assert_eq!(u(&truth["start_ns"]) + self.base, a.start, "{what}");
                assert_eq!(u(&truth["end_ns"]) + self.base, a.end, "{what}");
            }
        }
    }
}

/// Every wait, event sync and record of the truth against what the tool saw.
fn check_dependencies(sdk: &str, name: &str) -> Sim {
    let s = run(sdk, &scenario(name), "buf_size=65536");
    assert_eq!(s.code, Some(0), "{name}: {}", s.stderr);
    let seen = seen(&s);
    let plan = &s.truth["plan"];
    let what = format!("{name} {sdk}");

    let records = plan["event_records"].as_array().unwrap();
    let seen_records: Vec<u64> = seen
        .calls
        .iter()
        .filter(|(_, c)| c.api.starts_with("hipEventRecord"))
        .map(|(k, _)| *k)
        .collect();
    let truth_records: Vec<u64> = records
        .iter()
        .map(|r| u(&r["record"]["correlation_id"]))
        .collect();
    assert_eq!(
        truth_records, seen_records,
        "{what}: record correlation ids"
    );
    for r in records {
        let corr = u(&r["record"]["correlation_id"]);
        let call = &seen.calls[&corr];
        assert_eq!(
            call.arg("event"),
            Some(u(&r["event"])),
            "{what}: record {corr}"
        );
        assert_eq!(
            call.stream(),
            u(&r["stream"]["handle"]),
            "{what}: record {corr}"
        );
        let last = seen.last_before(call.stream(), corr);
        seen.check_act(&r["last_activity"], last, &format!("{what}: record {corr}"));
        // The event completes when the stream's earlier work has ended (or the call returned).
        if let Some(a) = last {
            assert!(
                u(&r["complete_ns"]) + seen.base >= a.end,
                "{what}: record {corr}"
            );
        }
    }

    let waits = plan["waits"].as_array().unwrap();
    let seen_waits: Vec<u64> = seen
        .calls
        .iter()
        .filter(|(_, c)| c.api.starts_with("hipStreamWaitEvent"))
        .map(|(k, _)| *k)
        .collect();
    assert_eq!(
        waits
            .iter()
            .map(|w| u(&w["wait"]["correlation_id"]))
            .collect::<Vec<_>>(),
        seen_waits,
        "{what}: wait correlation ids"
    );
    for w in waits {
        let corr = u(&w["wait"]["correlation_id"]);
        let call = &seen.calls[&corr];
        let event = call.arg("event").unwrap();
        let ww = format!("{what}: wait {corr}");
        assert_eq!(u(&w["event"]), event, "{ww}");
        assert_eq!(u(&w["stream"]["handle"]), call.stream(), "{ww}");
        match seen.record_before(event, corr) {
            None => assert!(w["producer"].is_null(), "{ww}: should be unresolved"),
            Some((rc, rcall)) => {
                let p = &w["producer"];
                assert_eq!(u(&p["record"]["correlation_id"]), rc, "{ww}");
                assert_eq!(u(&p["stream"]["handle"]), rcall.stream(), "{ww}");
                let last = seen.last_before(rcall.stream(), rc);
                seen.check_act(&p["last_activity"], last, &format!("{ww} producer"));
            }
        }
        let first = seen.first_after(call.stream(), corr);
        seen.check_act(&w["consumer"], first, &format!("{ww} consumer"));
    }

    for e in plan["event_syncs"].as_array().unwrap() {
        let corr = u(&e["sync"]["correlation_id"]);
        let call = &seen.calls[&corr];
        assert_eq!(call.api, "hipEventSynchronize");
        let event = call.arg("event").unwrap();
        match seen.record_before(event, corr) {
            None => assert!(e["producer"].is_null(), "{what}: sync {corr}"),
            Some((rc, _)) => assert_eq!(
                u(&e["producer"]["record"]["correlation_id"]),
                rc,
                "{what}: sync {corr}"
            ),
        }
    }
    check_stream_order(&s, &seen, &what);
    s
}

/// `stream_order` against the creations the tool saw: under 1.x the HIP_STREAM CREATE
/// callbacks number streams in creation order (single-GPU scenarios, so the per-GPU index is
/// that number); under 0.x the order of the hipStreamCreate calls and the first later call
/// naming each new handle. `line_index` is dense over the streams with work or named by a
/// record, wait or stream sync, null stream first.
fn check_stream_order(s: &Sim, seen: &Seen, what: &str) {
    let order = s.truth["plan"]["stream_order"].as_array().unwrap();
    let mut created: Vec<u64> = Vec::new();
    let creates = s.cbs("HIP_STREAM");
    if !creates.is_empty() {
        for cb in creates
            .iter()
            .filter(|c| c["op_name"] == "HIP_STREAM_CREATE")
        {
            assert_eq!(u(&cb["stream_id"]), created.len() as u64 + 1, "{what}");
            created.push(u(&cb["stream"]));
        }
    } else {
        for (corr, c) in &seen.calls {
            if !c.api.starts_with("hipStreamCreate") {
                continue;
            }
            let next = seen
                .calls
                .range(corr + 1..)
                .find(|(_, c)| {
                    // hipStreamCreate's own `stream` argument is the out-pointer.
                    !c.api.starts_with("hipStreamCreate")
                        && c.stream() != 0
                        && !created.contains(&c.stream())
                })
                .map(|(_, c)| c.stream())
                .expect("a created stream is used");
            created.push(next);
        }
    }
    let mut want: Vec<(u64, u64)> = vec![(0, 0)];
    want.extend(created.iter().enumerate().map(|(i, h)| (*h, i as u64 + 1)));
    let got: Vec<(u64, u64)> = order
        .iter()
        .map(|o| (u(&o["handle"]), u(&o["index"])))
        .collect();
    assert_eq!(got, want, "{what}: stream creation order");
    let named = |h: u64| {
        seen.per_stream.contains_key(&h)
            || seen.calls.values().any(|c| {
                (c.api.starts_with("hipEventRecord")
                    || c.api.starts_with("hipStreamWaitEvent")
                    || c.api.starts_with("hipStreamSynchronize"))
                    && c.stream() == h
            })
    };
    let mut next = 0;
    for o in order {
        let h = u(&o["handle"]);
        if named(h) {
            assert_eq!(o["line_index"], next, "{what}: stream {h:#x}");
            next += 1;
        } else {
            assert!(o["line_index"].is_null(), "{what}: stream {h:#x} unused");
        }
    }
}

fn two_stream_events(sdk: &str) {
    let s = check_dependencies(sdk, "two-stream-events");
    let plan = &s.truth["plan"];
    assert_eq!(plan["waits"].as_array().unwrap().len(), 8);
    assert_eq!(plan["event_records"].as_array().unwrap().len(), 8);
    assert_eq!(plan["totals"]["unresolved_waits"], 0);
    for w in plan["waits"].as_array().unwrap() {
        assert!(!w["consumer"].is_null(), "every wait has a consumer kernel");
        assert_ne!(w["stream"]["handle"], w["producer"]["stream"]["handle"]);
    }
}

fn event_reuse(sdk: &str) {
    let s = check_dependencies(sdk, "event-reuse");
    let plan = &s.truth["plan"];
    let corr = |v: &Value| u(&v["correlation_id"]);
    let rec: Vec<u64> = plan["event_records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| corr(&r["record"]))
        .collect();
    assert_eq!(rec, [100, 200]);
    let waits: Vec<(u64, Option<u64>)> = plan["waits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                corr(&w["wait"]),
                (!w["producer"].is_null()).then(|| corr(&w["producer"]["record"])),
            )
        })
        .collect();
    assert_eq!(waits, [(101, Some(100)), (201, Some(200)), (203, None)]);
    let sync = &plan["event_syncs"][0];
    assert_eq!(corr(&sync["producer"]["record"]), 200);
    // The recorder thread starts late in wall-clock time: the tool gets each wait's ENTER
    // callback before the ENTER of the record it resolves to.
    let at = |c: u64, api: &str| {
        s.index_of(|v| v["ev"] == "cb" && v["op_name"] == api && v["corr"] == c && v["phase"] == 1)
            .unwrap_or_else(|| panic!("no ENTER of {api} {c}"))
    };
    assert!(at(101, "hipStreamWaitEvent") < at(100, "hipEventRecord"));
    assert!(at(201, "hipStreamWaitEvent") < at(200, "hipEventRecord"));
}

fn concurrent_streams(sdk: &str) {
    let s = check_dependencies(sdk, "concurrent-streams");
    let plan = &s.truth["plan"];
    let order = plan["stream_order"].as_array().unwrap();
    assert_eq!(order.len(), 7, "null + 6 streams");
    // More streams than HSA queues: some queue carries kernels of two streams.
    let seen = seen(&s);
    let mut streams_per_queue: HashMap<u64, std::collections::BTreeSet<u64>> = HashMap::new();
    for r in s.recs("KERNEL_DISPATCH") {
        let stream = seen.calls[&u(&r["corr"])].stream();
        streams_per_queue
            .entry(u(&r["queue"]))
            .or_default()
            .insert(stream);
    }
    assert!(
        streams_per_queue.values().any(|s| s.len() > 1),
        "{streams_per_queue:?}"
    );
    // Copies on three streams overlap in time.
    let copies: Vec<(u64, u64)> = plan["streams"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|st| u(&st["memory_copies"]) > 0 && u(&st["handle"]) != 0)
        .map(|st| (u(&st["first_start_ns"]), u(&st["last_end_ns"])))
        .collect();
    assert_eq!(copies.len(), 3);
    let latest_start = copies.iter().map(|c| c.0).max().unwrap();
    let earliest_end = copies.iter().map(|c| c.1).min().unwrap();
    assert!(latest_start < earliest_end, "{copies:?}");
    assert_eq!(plan["totals"]["unresolved_waits"], 0);
}

fn sync_deps(sdk: &str) {
    check_dependencies(sdk, "sync-deps");
}

both_sdks!(
    two_stream_events,
    event_reuse,
    concurrent_streams,
    sync_deps
);

/// A stream created on one thread and used on another, and a roctx range started on one thread
/// and stopped on another: the replay holds the using thread until the creating call (the
/// starting call) has run, as in any real program, even when the creating thread runs late in
/// wall-clock time. Without that gate the user thread reached its launch first and the runtime
/// announced (numbered) the stream from the wrong thread — the intermittent failure of
/// `sync_deps::sdk_1_0_0` under load.
#[test]
fn cross_thread_stream_use_and_range_stop_wait_for_their_creation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gated.toml");
    std::fs::write(
        &path,
        r#"
name = "gated"
[[gpus]]
preset = "mi300x"
[[kernels]]
name = "k"
[[streams]]
name = "s"
[[threads]]
name = "maker"
real_delay_ms = 300
calls = [
  { op = "stream_create", stream = "s" },
  { op = "range_start", msg = "job", key = "job" },
]
[[threads]]
name = "user"
start_us = 500
calls = [
  { op = "launch", kernel = "k", stream = "s" },
  { op = "range_stop", key = "job" },
]
"#,
    )
    .unwrap();
    let file = format!("file:{}", path.display());
    let s = run("1.0.0", &file, "buf_size=65536");
    assert_eq!(s.code, Some(0), "{}", s.stderr);
    let cbs = s.ev("cb");
    let pos = |pred: &dyn Fn(&Value) -> bool| -> usize {
        cbs.iter()
            .position(|c| pred(c))
            .unwrap_or_else(|| panic!("no such callback in {cbs:#?}"))
    };
    let create = pos(&|c| c["op_name"] == "HIP_STREAM_CREATE");
    let launch = pos(&|c| c["op_name"] == "hipLaunchKernel");
    assert!(create < launch, "stream announced after its first use");
    let maker_tid = &cbs[pos(&|c| c["op_name"] == "hipStreamCreate")]["tid"];
    assert_eq!(
        &cbs[create]["tid"], maker_tid,
        "announced by the creating thread"
    );
    let start = pos(&|c| c["op_name"] == "roctxRangeStartA");
    let stop = pos(&|c| c["op_name"] == "roctxRangeStop");
    assert!(start < stop, "range stopped before it was started");
}
