//! The device counting service (`runtime::device_counting`) through the C ABI, as the test
//! tool uses it (mode `device_counting`): a context of its own counts `GRBM_GUI_ACTIVE`,
//! `GRBM_COUNT` and `SQ_WAVES` on every GPU of `scenarios/counters.toml` from the tool's
//! initialization, and one sample at finalize returns what ran since. Checked against what the
//! tool itself received (the kernel dispatch records: busy cycles from their intervals) and the
//! ground truth's per-kernel `SQ_WAVES`. Simulated runtime (test infrastructure).

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a u64: {v}"))
}

/// Busy ns of a set of intervals: their union.
fn union_ns(mut spans: Vec<(u64, u64)>) -> u64 {
    spans.sort_unstable();
    let (mut busy, mut reach) = (0, 0);
    for (s, e) in spans {
        let s = s.max(reach);
        if e > s {
            busy += e - s;
            reach = e;
        }
    }
    busy
}

fn one_sample_counts_what_ran(sdk: &str) {
    let plan = format!(
        "file:{}/../scenarios/counters.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let sim = run(sdk, &plan, "device_counting");
    assert_eq!(sim.code, Some(0), "{}", sim.stderr);
    for what in [
        "dc_create_context",
        "dc_start_context",
        "dc_sample",
        "dc_flush",
    ] {
        assert_eq!(
            sim.status(what).map(|s| s.0),
            Some(0),
            "{what}: {}",
            sim.stderr
        );
    }
    let gpus: Vec<&Value> = sim
        .ev("agent")
        .into_iter()
        .filter(|a| a["type"] == 2)
        .collect();
    assert_eq!(gpus.len(), 4);
    let values = sim.ev("dc_value");
    assert!(!values.is_empty(), "no value records");
    assert!(values
        .iter()
        .all(|v| v["user"] == 7 && v["dispatch_id"] == 0));
    assert!(
        sim.ev("dc_other").is_empty(),
        "a device sample has no header record"
    );
    let v1 = sdk.starts_with('1');
    // (agent or 0 when the record does not say, counter) → summed instances.
    let mut sums: BTreeMap<(u64, String), f64> = BTreeMap::new();
    for v in &values {
        let agent = if v1 { u(&v["agent"]) } else { 0 };
        let name = v["counter"]
            .as_str()
            .expect("a configured counter")
            .to_string();
        *sums.entry((agent, name)).or_default() += v["value"].as_f64().unwrap();
    }
    let kernels = sim.recs("KERNEL_DISPATCH");
    assert!(!kernels.is_empty());
    let (mut busy_all, mut waves_all, mut count_all) = (0u64, 0u64, 0f64);
    for (gpu, a) in gpus.iter().enumerate() {
        let agent = u(&a["id"]);
        let (clk, xcc) = (u(&a["max_engine_clk_fcompute"]), u(&a["num_xcc"]).max(1));
        let spans: Vec<(u64, u64)> = kernels
            .iter()
            .filter(|k| u(&k["agent"]) == agent)
            .map(|k| (u(&k["start"]), u(&k["end"])))
            .collect();
        let first = spans.iter().map(|s| s.0).min().unwrap();
        let last = spans.iter().map(|s| s.1).max().unwrap();
        let busy = xcc * (union_ns(spans) * clk / 1000);
        let span = xcc * ((last - first) * clk / 1000);
        let waves: u64 = sim.truth["plan"]["kernel_counters"]
            .as_object()
            .unwrap()
            .values()
            .filter_map(|per_gpu| per_gpu.get(gpu.to_string()))
            .map(|t| u(&t["values"]["SQ_WAVES"]) * u(&t["dispatches"]))
            .sum();
        busy_all += busy;
        waves_all += waves;
        if v1 {
            let get = |n: &str| sums[&(agent, n.to_string())];
            assert_eq!(get("GRBM_GUI_ACTIVE"), busy as f64, "GPU {gpu} busy cycles");
            assert_eq!(get("SQ_WAVES"), waves as f64, "GPU {gpu} waves");
            assert!(
                get("GRBM_COUNT") >= span as f64,
                "GPU {gpu}: elapsed cycles"
            );
            count_all += get("GRBM_COUNT");
        }
    }
    if !v1 {
        let get = |n: &str| sums[&(0, n.to_string())];
        assert_eq!(get("GRBM_GUI_ACTIVE"), busy_all as f64);
        assert_eq!(get("SQ_WAVES"), waves_all as f64);
        count_all = get("GRBM_COUNT");
    }
    // GPU_UTIL = GRBM_GUI_ACTIVE / GRBM_COUNT stays a share.
    assert!(count_all >= busy_all as f64 && busy_all > 0);
}

both_sdks!(one_sample_counts_what_ran);
