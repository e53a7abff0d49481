//! The simulator's `--ground-truth` document: what a correct profiler reports for a scenario
//! (`plan`, computed from the scenario alone, never from the tool's output) and what the
//! runtime delivered (`delivery`).

use std::collections::BTreeMap;
use std::path::Path;

use rocprof_xplane::capture::symbols::clean_kernel_name;
use serde_json::Value;

use super::u;

/// A ground-truth file, decoded; `stderr` (of the run that should have written it) goes into
/// the panic message if it is missing.
pub fn load_truth(path: &Path, stderr: &str) -> Value {
    let s = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "no ground truth at {}: {e}\nstderr:\n{stderr}",
            path.display()
        )
    });
    serde_json::from_str(&s).expect("ground truth is JSON")
}

/// Decoded `--ground-truth` file (for runs made outside [`super::sim::simulate`]).
pub fn read_truth(path: &Path) -> Value {
    load_truth(path, "")
}

/// Dispatches per kernel name as the tool names kernels (demangled, no `.kd`).
pub fn truth_kernels(plan: &Value) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for (name, k) in plan["kernels"].as_object().expect("truth.kernels") {
        *m.entry(clean_kernel_name(name)).or_insert(0) += u(&k["dispatches"]);
    }
    m
}

/// Dispatches per (GPU ordinal, kernel name).
pub fn truth_kernels_per_gpu(plan: &Value) -> BTreeMap<(u32, String), u64> {
    let mut m = BTreeMap::new();
    for (name, k) in plan["kernels"].as_object().expect("truth.kernels") {
        for (gpu, n) in k["per_gpu"].as_object().expect("per_gpu") {
            *m.entry((gpu.parse().unwrap(), clean_kernel_name(name)))
                .or_insert(0) += u(n);
        }
    }
    m
}

/// For each API name, `activities → calls` (how many calls made k activities).
pub fn truth_activities_per_call(plan: &Value) -> BTreeMap<String, BTreeMap<u64, u64>> {
    plan["activities_per_call"]
        .as_object()
        .expect("truth.activities_per_call")
        .iter()
        .map(|(api, per)| {
            let per = per
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, n)| (k.parse().unwrap(), u(n)))
                .collect();
            (api.clone(), per)
        })
        .collect()
}

/// [`truth_activities_per_call`] restricted to calls with activity (APIs with none left out):
/// what launch→activity joins and flows must show.
pub fn truth_calls_with_activity(plan: &Value) -> BTreeMap<String, BTreeMap<u64, u64>> {
    truth_activities_per_call(plan)
        .into_iter()
        .map(|(api, per)| {
            (
                api,
                per.into_iter()
                    .filter(|(k, _)| *k > 0)
                    .collect::<BTreeMap<_, _>>(),
            )
        })
        .filter(|(_, per)| !per.is_empty())
        .collect()
}

/// HIP calls of the plan the tool buffer-traces by default (`hip::traced_by_default`, the
/// same rule the tool applies): the host line's expected count unless
/// `ROCPROF_XPLANE_HIP_API=all`.
pub fn truth_traced_hip_calls(plan: &Value) -> u64 {
    plan["hip_api"]
        .as_object()
        .expect("truth hip_api")
        .iter()
        .filter(|(name, _)| rocprof_xplane::hip::traced_by_default(name))
        .map(|(_, n)| super::u(n))
        .sum()
}

/// Whether the tool, run with the environment `var` reads, builds the records of the HIP calls
/// it subscribes callbacks to from those callbacks (`ROCPROF_XPLANE_HIP_API_RECORDS`, default
/// `callbacks`; only while it traces HIP calls, `ROCPROF_XPLANE_DOMAINS`): as the tool's own
/// configuration reads them.
pub fn builds_hip_records(var: impl Fn(&str) -> Option<String>) -> bool {
    let (cfg, _) = rocprof_xplane::config::Config::parse(var, 0);
    cfg.domains.hip && cfg.hip_api_from_callbacks
}

/// The roctx calls the tool has a record of: those the runtime emitted a buffered record of,
/// and those a recording tool saw through their callbacks alone (the ground truth's
/// `delivery.roctx_calls_by_callbacks`: the tool's default takes the ranges' times from the
/// callbacks, `ROCPROF_XPLANE_ROCTX_RECORDS`).
pub fn roctx_calls_recorded(truth: &Value) -> u64 {
    let d = &truth["delivery"];
    d["emitted_per_kind"]["MARKER_CORE_API"]
        .as_u64()
        .unwrap_or(0)
        + d["roctx_calls_by_callbacks"].as_u64().unwrap_or(0)
}

/// The calls a recording tool saw through their callbacks alone, the runtime buffering no
/// record of them: HIP calls and roctx calls.
pub fn calls_by_callbacks(truth: &Value) -> u64 {
    let d = &truth["delivery"];
    u(&d["hip_calls_by_callbacks"]) + d["roctx_calls_by_callbacks"].as_u64().unwrap_or(0)
}

/// The HIP calls the tool has a record of: those the runtime emitted a buffered record of,
/// and, when the tool builds records from callbacks (`builds`, [`builds_hip_records`]), those
/// it learned of through their callbacks alone while recording (the ground truth's
/// `delivery.hip_calls_by_callbacks`).
pub fn hip_calls_recorded(truth: &Value, builds: bool) -> u64 {
    let d = &truth["delivery"];
    // A kind the runtime emitted nothing of is absent.
    let buffered = d["emitted_per_kind"]["HIP_RUNTIME_API"]
        .as_u64()
        .unwrap_or(0);
    buffered
        + if builds {
            u(&d["hip_calls_by_callbacks"])
        } else {
            0
        }
}
