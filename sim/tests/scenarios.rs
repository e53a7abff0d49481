//! The repository's scenarios (compiled by the scenario module) replayed through the real
//! driver and the test tool: every emitted record reaches a LOSSLESS tool that flushes, and
//! what arrives matches the scenario's ground truth.

mod common;
use common::*;
use serde_json::Value;
use std::collections::HashMap;

fn scenario(name: &str) -> String {
    format!(
        "file:{}/../scenarios/{name}.toml",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn replay(sdk: &str, name: &str) -> Sim {
    let plan = scenario(name);
    let s = run(sdk, &plan, "no_callbacks,buf_size=65536");
    assert_eq!(s.code, Some(0), "{name}: {}", s.stderr);
    assert!(
        s.truth["plan"].is_object(),
        "{name}: ground truth has the plan section"
    );
    assert_eq!(s.truth["simulated"], true);
    assert_eq!(
        s.ev("rec").len() as u64,
        s.emitted_total(),
        "{name}: records lost"
    );
    assert_eq!(s.truth["delivery"]["total_dropped"], 0);
    let totals = &s.truth["plan"]["totals"];
    assert_eq!(
        s.recs("KERNEL_DISPATCH").len() as u64,
        totals["kernel_dispatches"].as_u64().unwrap(),
        "{name}: one dispatch record per planned dispatch"
    );
    assert_eq!(
        s.recs("HIP_RUNTIME_API").len() as u64,
        totals["hip_api_calls"].as_u64().unwrap(),
        "{name}: one API record per planned HIP call"
    );
    s
}

fn small_scenarios_deliver_everything(sdk: &str) {
    for name in [
        "tiny",
        "markers",
        "multi-gpu",
        "sync-deps",
        "two-stream-events",
        "event-reuse",
        "concurrent-streams",
    ] {
        replay(sdk, name);
    }
}

fn graph_launch_scenario_keeps_every_dispatch(sdk: &str) {
    let s = replay(sdk, "graph-launch");
    let graph_corr: Vec<u64> = s
        .recs("HIP_RUNTIME_API")
        .iter()
        .filter(|r| r["op_name"] == "hipGraphLaunch")
        .map(|r| r["corr"].as_u64().unwrap())
        .collect();
    let mut per_corr: HashMap<u64, u64> = HashMap::new();
    for r in s.recs("KERNEL_DISPATCH") {
        *per_corr.entry(r["corr"].as_u64().unwrap()).or_default() += 1;
    }
    let in_graphs: u64 = graph_corr
        .iter()
        .map(|c| per_corr.get(c).copied().unwrap_or(0))
        .sum();
    let want = s.truth["plan"]["totals"]["graph_kernel_dispatches"]
        .as_u64()
        .unwrap();
    assert_eq!(in_graphs, want);
    // Shuffled completion order: dispatch ids do not arrive sorted.
    let ids: Vec<u64> = s
        .recs("KERNEL_DISPATCH")
        .iter()
        .map(|r| r["dispatch_id"].as_u64().unwrap())
        .collect();
    assert!(
        ids.windows(2).any(|w| w[0] > w[1]),
        "shuffle_window had no effect"
    );
}

fn same_seed_same_completion_order(sdk: &str) {
    let order = |s: &Sim| -> Vec<Value> {
        s.truth["replay"]["completion_order"]
            .as_array()
            .unwrap()
            .clone()
    };
    let a = run(sdk, &scenario("multi-gpu"), "no_callbacks");
    let b = run(sdk, &scenario("multi-gpu"), "no_callbacks");
    assert_eq!(order(&a), order(&b));
    let mut o = Opts::new(sdk, "", "no_callbacks");
    let plan = scenario("multi-gpu");
    o.plan = &plan;
    o.extra_args = vec!["--seed".into(), "12345".into()];
    let c = run_opts(o);
    assert_ne!(order(&a), order(&c), "--seed changes the shuffle");
}

/// `ROCPROF_SIM_DEVICE_IN_STEP=1` paces the application threads by the device thread: when
/// records come, never what they are. Every record of a run with several threads, GPUs and
/// a shuffled completion order is the same with it as without (times from the first record:
/// each run has a clock base of its own), and the run ends (no thread waits for ever).
fn device_in_step_changes_when_records_come_not_what_they_are(sdk: &str) {
    fn records(s: &Sim) -> Vec<(String, String, u64, u64, u64)> {
        let recs = s.ev("rec");
        let base = recs
            .iter()
            .filter_map(|r| r["start"].as_u64())
            .min()
            .unwrap_or(0);
        let mut out: Vec<_> = recs
            .iter()
            .map(|r| {
                let at = |k: &str| r[k].as_u64().map_or(u64::MAX, |t| t - base);
                (
                    r["kind_name"].to_string(),
                    r["op_name"].to_string(),
                    r["corr"].as_u64().unwrap_or(0),
                    at("start"),
                    at("end"),
                )
            })
            .collect();
        out.sort();
        out
    }
    for name in ["multi-gpu", "concurrent-streams", "sync-deps"] {
        let plan = scenario(name);
        let free = run(sdk, &plan, "no_callbacks");
        let mut o = Opts::new(sdk, &plan, "no_callbacks");
        o.env = vec![(rocprofiler_sdk_sim::runtime::DEVICE_IN_STEP, "1")];
        let paced = run_opts(o);
        for (s, how) in [(&free, "free"), (&paced, "in step")] {
            assert_eq!(s.code, Some(0), "{name}, {how}: {}", s.stderr);
            assert_eq!(s.ev("rec").len() as u64, s.emitted_total(), "{name}, {how}");
        }
        let (a, b) = (records(&free), records(&paced));
        assert!(a.len() > 10, "{name}: {} records", a.len());
        assert_eq!(a, b, "{name}: the same records either way");
    }
}

both_sdks!(
    small_scenarios_deliver_everything,
    graph_launch_scenario_keeps_every_dispatch,
    same_seed_same_completion_order,
    device_in_step_changes_when_records_come_not_what_they_are,
);

/// tiny.toml with an extra `[delivery]` table.
fn tiny_with(dir: &std::path::Path, delivery: &str) -> String {
    let base = std::fs::read_to_string(format!(
        "{}/../scenarios/tiny.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let path = dir.join("tiny-delivery.toml");
    std::fs::write(&path, format!("{base}\n[delivery]\n{delivery}\n")).unwrap();
    format!("file:{}", path.display())
}

fn api_order_is_honoured(sdk: &str) {
    let dir = tempfile::tempdir().unwrap();
    let kinds = |s: &Sim| -> Vec<String> {
        s.ev("rec")
            .iter()
            .map(|r| r["kind_name"].as_str().unwrap().to_string())
            .collect()
    };
    // api_last: every API record after every activity record.
    let s = run(
        sdk,
        &tiny_with(dir.path(), "api_order = \"api_last\""),
        "no_callbacks",
    );
    let k = kinds(&s);
    let first_api = k
        .iter()
        .position(|x| x.starts_with("HIP_RUNTIME_API"))
        .unwrap();
    let last_act = k
        .iter()
        .rposition(|x| x == "KERNEL_DISPATCH" || x == "MEMORY_COPY")
        .unwrap();
    assert!(first_api > last_act, "{k:?}");
    assert_eq!(s.ev("rec").len() as u64, s.emitted_total());
    // activities_first: a launch's API record comes after its dispatch record.
    let s = run(
        sdk,
        &tiny_with(dir.path(), "api_order = \"activities_first\""),
        "no_callbacks",
    );
    for d in s.recs("KERNEL_DISPATCH") {
        let at =
            |pred: &dyn Fn(&Value) -> bool| s.index_of(|v| v["ev"] == "rec" && pred(v)).unwrap();
        let disp = at(&|v| v["kind_name"] == "KERNEL_DISPATCH" && v["corr"] == d["corr"]);
        let api = at(&|v| v["kind_name"] == "HIP_RUNTIME_API" && v["corr"] == d["corr"]);
        assert!(api > disp);
    }
}

fn buffer_size_override_applies(sdk: &str) {
    let dir = tempfile::tempdir().unwrap();
    let s = run(
        sdk,
        &tiny_with(dir.path(), "buffer_size_override = \"1KiB\""),
        "no_callbacks",
    );
    assert_eq!(s.buffer_truth()["size"], 1024);
    assert_eq!(s.ev("rec").len() as u64, s.emitted_total());
    // No policy forced: the buffer runs with what the tool asked for.
    assert!(s.truth["delivery"]["forced_policy"].is_null());
    assert_eq!(s.buffer_truth()["policy"], "LOSSLESS");
    assert_eq!(s.buffer_truth()["requested_policy"], "LOSSLESS");
}

/// A burst of 300 launches into 2 KiB buffers drained by a slow consumer, with `force_policy`.
fn burst_forcing(dir: &std::path::Path, policy: &str) -> String {
    let path = dir.join(format!("burst-{policy}.toml"));
    let text = format!(
        r#"name = "burst"
seed = 3
[delivery]
buffer_size_override = "2KiB"
delivery_delay_us = 300
force_policy = "{policy}"
[[gpus]]
preset = "mi300x"
[[kernels]]
name = "k"
dur_us = 2
[[threads]]
calls = [ {{ repeat = 300, calls = [ {{ op = "launch", kernel = "k" }} ] }}, {{ op = "device_sync" }} ]
"#
    );
    std::fs::write(&path, text).unwrap();
    format!("file:{}", path.display())
}

fn forced_discard_drops_and_reports_drop_count(sdk: &str) {
    // The test tool asks for LOSSLESS; the runtime imposes DISCARD.
    let dir = tempfile::tempdir().unwrap();
    let s = run(sdk, &burst_forcing(dir.path(), "discard"), "no_callbacks");
    assert_eq!(s.truth["delivery"]["forced_policy"], "DISCARD");
    let t = s.buffer_truth();
    assert_eq!(t["policy"], "DISCARD", "{t}");
    assert_eq!(t["requested_policy"], "LOSSLESS", "{t}");
    let dropped = s.reported_drops();
    assert!(dropped > 0, "a forced DISCARD buffer should overflow: {t}");
    assert_eq!(s.truth["delivery"]["total_dropped"], dropped);
}

fn forced_lossless_loses_nothing(sdk: &str) {
    // The test tool asks for DISCARD; the runtime imposes LOSSLESS, so writers block instead.
    let dir = tempfile::tempdir().unwrap();
    let s = run(
        sdk,
        &burst_forcing(dir.path(), "lossless"),
        "no_callbacks,discard",
    );
    assert_eq!(s.truth["delivery"]["forced_policy"], "LOSSLESS");
    let t = s.buffer_truth();
    assert_eq!(t["policy"], "LOSSLESS", "{t}");
    assert_eq!(t["requested_policy"], "DISCARD", "{t}");
    assert_eq!(s.reported_drops(), 0, "{t}");
    assert!(t["writer_blocked"].as_u64().unwrap() > 0, "{t}");
}

both_sdks!(
    api_order_is_honoured,
    buffer_size_override_applies,
    forced_discard_drops_and_reports_drop_count,
    forced_lossless_loses_nothing,
);

#[test]
fn a_bad_scenario_is_reported_once_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, "[[gpus]]\npreset = \"mi3000x\"\n").unwrap();
    let missing = dir.path().join("missing.toml");
    for (file, what) in [
        (&path, ":2:10: gpus[0].preset: unknown GPU preset `mi3000x`"),
        (&missing, ": cannot read scenario"),
    ] {
        let s = run("1.0.0", &format!("file:{}", file.display()), "");
        assert_eq!(s.code, Some(1), "{}", s.stderr);
        let shown = file.display().to_string();
        assert_eq!(
            s.stderr.matches(&shown).count(),
            1,
            "the path once: {}",
            s.stderr
        );
        assert!(
            s.stderr.contains(&format!("rocprof-sim: {shown}{what}")),
            "{}",
            s.stderr
        );
    }
}
