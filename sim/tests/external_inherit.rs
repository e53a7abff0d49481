//! A thread whose external-id stack is empty gets what the real SDK gives it — the main
//! thread's current top (`external_correlation.cpp`: "child threads inherit the current value
//! on default thread") — and, in the simulator, the same on every run: the main thread's top
//! is read at the caller's *simulated* time, not from how far the main thread got in wall time.

mod common;
use common::*;
use std::collections::BTreeMap;

const SCENARIO: &str = r#"
name = "external-inherit"
seed = 1
[[gpus]]
preset = "mi300x"
[[kernels]]
name = "k"
dur_us = 2
[[threads]]
name = "main"
calls = [
  { op = "sleep", us = 10 },
  { op = "ext_push", id = 77 },
  { op = "sleep", us = 100 },
  { op = "ext_pop" },
  { op = "sleep", us = 100 },
]
[[threads]]
name = "worker"
real_delay_ms = REAL_DELAY
calls = [
  { op = "launch", kernel = "k", host_us = 1 },
  { op = "sleep", us = 50 },
  { op = "launch", kernel = "k", host_us = 1 },
  { op = "sleep", us = 100 },
  { op = "launch", kernel = "k", host_us = 1 },
]
"#;

/// Worker launches in simulated order → the external id each one's API record carried.
fn worker_external_ids(sdk: &str, real_delay_ms: u32) -> Vec<u64> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inherit.toml");
    std::fs::write(
        &path,
        SCENARIO.replace("REAL_DELAY", &real_delay_ms.to_string()),
    )
    .unwrap();
    let s = run(sdk, &format!("file:{}", path.display()), "");
    assert_eq!(s.code, Some(0), "{}", s.stderr);
    let mut by_start: BTreeMap<u64, u64> = BTreeMap::new();
    for r in s.recs("HIP_RUNTIME_API") {
        if r["op_name"] == "hipLaunchKernel" {
            by_start.insert(r["start"].as_u64().unwrap(), r["ext"].as_u64().unwrap());
        }
    }
    // The truth agrees: one launch under 77, two without.
    let t = &s.truth["plan"];
    assert_eq!(
        t["external_ids"]["77"]["hip_api_calls"], 1,
        "{}",
        t["external_ids"]
    );
    assert_eq!(t["without_external_id"]["hip_api_calls"], 2);
    by_start.into_values().collect()
}

fn inherits_main_threads_top_by_simulated_time(sdk: &str) {
    // Worker calls at ~0 µs (before the push), ~51 µs (inside it) and ~152 µs (after the pop);
    // whether the worker's OS thread runs before, with or after the main thread in wall time
    // (0 or 300 ms delay) must not change the answer.
    for delay in [0, 300] {
        assert_eq!(
            worker_external_ids(sdk, delay),
            vec![0, 77, 0],
            "delay {delay} ms"
        );
    }
}

both_sdks!(inherits_main_threads_top_by_simulated_time);
