//! `rocprof-xplane simulate scenarios/graph-launch.toml` under
//! SDK 0.6.0 and 1.0.0 keeps **every** graph-launched dispatch (5,120 = 256 nodes × 20
//! launches, delivered in shuffled order) plus the direct launches, each dispatch carrying the
//! `hipGraphLaunch`'s correlation id, and the kernel multiset does not change from run to run.
//!
//! Runs in the simulated rocprofiler-sdk runtime (test infrastructure, not hardware); expected
//! values come from the simulator's ground truth, computed from the scenario alone.

mod support;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use support::paths::builtin;
use support::sim::{cached, simulate, Run};
use support::truth::{truth_activities_per_call, truth_calls_with_activity, truth_kernels};
use support::u;
use support::xspace::*;

const SDKS: [&str; 2] = ["0.6.0", "1.0.0"];

fn graph_run(sdk: &str) -> std::sync::Arc<Run> {
    cached(&builtin("graph-launch.toml"), sdk, &[])
}

/// Host API events that caused device work, by correlation id (each id on exactly one call).
fn launches_by_correlation(r: &Run) -> HashMap<u64, String> {
    let mut m = HashMap::new();
    for e in host_api_events(&r.space) {
        if let Some(c) = e.correlation_id() {
            let prev = m.insert(c, e.name().to_string());
            assert!(
                prev.is_none(),
                "correlation id {c} on two host calls: {prev:?} and {}",
                e.name()
            );
        }
    }
    m
}

/// Device kernels grouped by correlation id: id → kernel names.
fn kernels_by_correlation(r: &Run) -> BTreeMap<u64, Vec<String>> {
    let mut m: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for k in kernels(&r.space) {
        let c = k
            .correlation_id()
            .unwrap_or_else(|| panic!("kernel {} without correlation_id", k.name()));
        m.entry(c).or_default().push(k.name().to_string());
    }
    m
}

#[test]
fn every_graph_and_direct_dispatch_is_kept_per_kernel_name() {
    for sdk in SDKS {
        let r = graph_run(sdk);
        let plan = r.plan();
        let totals = &plan["totals"];
        // The scenario's contract: 256 nodes × 20 launches.
        assert_eq!(
            u(&totals["graph_kernel_dispatches"]),
            5120,
            "graph-launch.toml changed?"
        );
        assert_eq!(
            r.delivery()["total_dropped"],
            0,
            "{sdk}: runtime dropped records"
        );
        assert_eq!(
            r.delivery()["total_lost_unflushed"],
            0,
            "{sdk}: records left in buffers"
        );

        let got = count_by_name(kernels(&r.space));
        assert_eq!(
            got,
            truth_kernels(plan),
            "{sdk}: kernel dispatches per name"
        );
        assert_eq!(
            got.values().sum::<u64>(),
            u(&totals["kernel_dispatches"]),
            "{sdk}"
        );

        // Split by the API that launched them: graph kernels vs direct hipLaunchKernel.
        let launches = launches_by_correlation(&r);
        let mut per_api: BTreeMap<String, u64> = BTreeMap::new();
        for (corr, names) in kernels_by_correlation(&r) {
            let api = launches.get(&corr).unwrap_or_else(|| {
                panic!("{sdk}: kernels of correlation {corr} have no host call")
            });
            *per_api.entry(api.clone()).or_default() += names.len() as u64;
        }
        let apc = truth_activities_per_call(plan);
        let want_of = |api: &str| -> u64 {
            apc.get(api)
                .map_or(0, |per| per.iter().map(|(k, n)| k * n).sum())
        };
        assert_eq!(
            per_api.get("hipGraphLaunch").copied().unwrap_or(0),
            u(&totals["graph_kernel_dispatches"]),
            "{sdk}: graph-launched kernels"
        );
        assert_eq!(
            per_api.get("hipLaunchKernel").copied().unwrap_or(0),
            want_of("hipLaunchKernel"),
            "{sdk}: directly launched kernels"
        );
        assert!(
            want_of("hipLaunchKernel") > 0,
            "the scenario has direct launches"
        );
    }
}

#[test]
fn every_dispatch_of_a_graph_launch_shares_its_correlation_id() {
    for sdk in SDKS {
        let r = graph_run(sdk);
        let plan = r.plan();
        let launches = launches_by_correlation(&r);
        let by_corr = kernels_by_correlation(&r);

        // Every hipGraphLaunch on the host carries a uint64 correlation id, and exactly the
        // graph's dispatches carry the same id on the device plane.
        let graph_calls: Vec<u64> = launches
            .iter()
            .filter(|(_, n)| *n == "hipGraphLaunch")
            .map(|(c, _)| *c)
            .collect();
        assert_eq!(
            graph_calls.len() as u64,
            u(&plan["totals"]["graph_launches"]),
            "{sdk}"
        );
        let graph = plan["graphs"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .expect("one graph");
        for c in &graph_calls {
            let names = by_corr
                .get(c)
                .unwrap_or_else(|| panic!("{sdk}: launch {c} has no kernels"));
            assert_eq!(
                names.len() as u64 * u(&graph["launches"]),
                u(&graph["kernel_dispatches"]),
                "{sdk}: dispatches of launch {c}"
            );
            let distinct: BTreeSet<&String> = names.iter().collect();
            assert_eq!(
                distinct.len() as u64,
                u(&graph["distinct_kernels"]),
                "{sdk}: launch {c}"
            );
        }

        // Per API: how many calls produced k device activities — exactly the truth's table
        // (a 256-node graph: 256 → 20 launches; direct launches and copies: 1 → n).
        let activities = device_events_per_correlation(&r.space);
        let mut got: BTreeMap<String, BTreeMap<u64, u64>> = BTreeMap::new();
        // Every HIP call carries a correlation id; the truth's table counts calls with work.
        for (c, api) in &launches {
            let Some(&n) = activities.get(c) else {
                continue;
            };
            *got.entry(api.clone()).or_default().entry(n).or_default() += 1;
        }
        let want = truth_calls_with_activity(plan);
        assert_eq!(got, want, "{sdk}: activities per call");
        // No device event points at a correlation id the host plane does not have.
        for c in activities.keys() {
            assert!(
                launches.contains_key(c),
                "{sdk}: device correlation {c} has no host call"
            );
        }
    }
}

/// What must not change between runs: each kernel's name, launch details and duration, and
/// which API call (by name and order of the call) launched which kernels.
type Fingerprint = (
    BTreeMap<(String, String, i64), u64>,
    Vec<(String, Vec<String>)>,
);

fn fingerprint(r: &Run) -> Fingerprint {
    let mut multiset = BTreeMap::new();
    for k in kernels(&r.space) {
        let details = k
            .stat("kernel_details")
            .and_then(|s| s.as_str().map(str::to_string))
            .unwrap();
        *multiset
            .entry((k.name().to_string(), details, k.event.duration_ps))
            .or_insert(0) += 1;
    }
    // Host calls in time order, each with the sorted names of the kernels it launched.
    let by_corr = kernels_by_correlation(r);
    let mut calls: Vec<(i64, String, Vec<String>)> = host_api_events(&r.space)
        .into_iter()
        .filter_map(|e| {
            let mut names = by_corr.get(&e.correlation_id()?)?.clone();
            names.sort();
            Some((e.start_ps(), e.name().to_string(), names))
        })
        .collect();
    calls.sort();
    (
        multiset,
        calls.into_iter().map(|(_, n, k)| (n, k)).collect(),
    )
}

#[test]
fn kernel_multiset_is_identical_run_after_run_and_across_sdks() {
    let scenario = builtin("graph-launch.toml");
    let reference = fingerprint(&graph_run("1.0.0"));
    assert_eq!(
        reference.0.values().sum::<u64>(),
        u(&graph_run("1.0.0").plan()["totals"]["kernel_dispatches"])
    );
    for sdk in SDKS {
        // The cached run plus two fresh ones: three runs per SDK.
        let runs = [
            graph_run(sdk),
            simulate(&scenario, sdk, &[]).into(),
            simulate(&scenario, sdk, &[]).into(),
        ];
        for (i, r) in runs.iter().enumerate() {
            let f = fingerprint(r);
            assert!(
                f.0 == reference.0,
                "{sdk} run {i}: kernel multiset differs from 1.0.0 run 0"
            );
            assert!(
                f.1 == reference.1,
                "{sdk} run {i}: launch → kernels grouping differs"
            );
        }
    }
}

/// graph-launch.toml with its `[delivery]` table extended by `extra` (written to `dir`).
fn graph_launch_with_delivery(dir: &std::path::Path, extra: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(builtin("graph-launch.toml")).unwrap();
    assert!(
        text.contains("\n[delivery]\n"),
        "graph-launch.toml has no [delivery] table"
    );
    let p = dir.join("graph-launch-variant.toml");
    std::fs::write(
        &p,
        text.replacen("\n[delivery]\n", &format!("\n[delivery]\n{extra}\n"), 1),
    )
    .unwrap();
    p
}

#[test]
fn delivery_order_does_not_change_the_result() {
    // API records after all activities, activities before their API record, and a different
    // shuffle of completions: the join must give the same trace every time.
    let reference = fingerprint(&graph_run("1.0.0"));
    for (sdk, extra) in [
        ("1.0.0", "api_order = \"api_last\""),
        ("0.6.0", "api_order = \"activities_first\""),
        ("1.0.0", "seed = 99\napi_order = \"activities_first\""),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let r = simulate(&graph_launch_with_delivery(tmp.path(), extra), sdk, &[]);
        assert_eq!(
            count_by_name(kernels(&r.space)),
            truth_kernels(r.plan()),
            "{sdk} {extra}"
        );
        let f = fingerprint(&r);
        assert!(f.0 == reference.0, "{sdk} {extra}: kernel multiset differs");
        assert!(
            f.1 == reference.1,
            "{sdk} {extra}: launch → kernels grouping differs"
        );
        assert_no_orphans(&r.space, &format!("{sdk} {extra}"));
    }
}

#[test]
fn lines_are_sorted_dense_and_inside_the_profile_window() {
    for sdk in SDKS {
        let r = graph_run(sdk);
        let env = plane_stats(plane(&r.space, TASK_ENV));
        let start = env["profile_start_time"]
            .as_u64()
            .expect("profile_start_time");
        let stop = env["profile_stop_time"]
            .as_u64()
            .expect("profile_stop_time");
        assert!(start < stop, "{sdk}: profile window {start}..{stop}");
        // Times count from the job's origin (docs/clock.md), so every event lies in
        // (profile_start_time - origin)..(profile_stop_time - origin) on the job clock.
        let origin = env["rocprof_xplane_clock_origin_unix_ns"]
            .as_u64()
            .expect("the job's origin");
        let (from_ps, window_ps) = (
            ((start - origin) * 1000) as i64,
            ((stop - origin) * 1000) as i64,
        );
        for p in device_planes(&r.space) {
            let mut ids: Vec<i64> = p.lines.iter().map(|l| l.id).collect();
            ids.sort_unstable();
            assert_eq!(
                ids,
                (0..p.lines.len() as i64).collect::<Vec<_>>(),
                "{sdk} {}: dense line ids",
                p.name
            );
        }
        for p in r
            .space
            .planes
            .iter()
            .filter(|p| p.name == HOST_PLANE || p.name.starts_with(GPU_PREFIX))
        {
            for l in &p.lines {
                let evs: Vec<Ev> = l
                    .events
                    .iter()
                    .map(|event| Ev {
                        plane: p,
                        line: l,
                        event,
                    })
                    .collect();
                for e in &evs {
                    let (a, b) = (e.start_ps(), e.start_ps() + e.event.duration_ps);
                    assert!(
                        a >= from_ps && b <= window_ps,
                        "{sdk} {} {}: {} at {a}..{b} ps outside the profile ({from_ps}..{window_ps} ps)",
                        p.name,
                        l.name,
                        e.name()
                    );
                }
                assert!(
                    evs.windows(2).all(|w| w[0].offset_ps() <= w[1].offset_ps()),
                    "{sdk} {} {}: events not sorted",
                    p.name,
                    l.name
                );
            }
        }
    }
}

/// Graph node attribution: under the newest SDK personality (HIP_GRAPH
/// callbacks, 1.3.0+), every dispatch of a `hipGraphLaunch` names its executable graph
/// (`graph_exec_id`) and its node (`graph_node_id`, its position in the launch, which the
/// scenario's generated nodes `decode_op_<i>` make checkable: node i is `decode_op_i`), though
/// the 256 records of a launch arrive shuffled; each node appears once per launch; the launch
/// carries the exec id and its dispatch count; direct launches and copies carry neither. The
/// roctx annotation of the launch still reaches its dispatches. Under 1.2.1 (no HIP_GRAPH
/// kind) nothing is numbered.
#[test]
fn graph_dispatches_name_their_executable_graph_and_node() {
    let r = cached(&builtin("graph-launch.toml"), "1.4.0", &[]);
    let launches = u(&r.plan()["totals"]["graph_launches"]);
    let mut per_node: BTreeMap<u64, u64> = BTreeMap::new();
    let mut graph_kernels = 0;
    for k in kernels(&r.space) {
        let node = k.stat("graph_node_id").and_then(|s| s.as_u64());
        let exec = k.stat("graph_exec_id").and_then(|s| s.as_u64());
        if k.name().starts_with("decode_op_") {
            let node = node.unwrap_or_else(|| panic!("{} without graph_node_id", k.name()));
            assert_eq!(exec, Some(1), "{}", k.name());
            assert_eq!(k.name(), format!("decode_op_{node}"));
            assert!(
                k.stat("nvtx_range").is_some(),
                "the launch's roctx range reaches its nodes"
            );
            *per_node.entry(node).or_default() += 1;
            graph_kernels += 1;
        } else {
            assert_eq!((node, exec), (None, None), "{}", k.name());
        }
    }
    assert_eq!(graph_kernels, 256 * launches);
    assert_eq!(per_node.len(), 256);
    assert!(per_node.values().all(|&n| n == launches), "{per_node:?}");
    let mut graph_calls = 0;
    for e in host_api_events(&r.space) {
        let exec = e.stat("graph_exec_id").and_then(|s| s.as_u64());
        if e.name() == "hipGraphLaunch" {
            assert_eq!(exec, Some(1));
            assert_eq!(e.stat("activity_count").and_then(|s| s.as_u64()), Some(256));
            graph_calls += 1;
        } else {
            assert_eq!(exec, None, "{}", e.name());
        }
    }
    assert_eq!(graph_calls, launches);
    for e in device_events(&r.space)
        .into_iter()
        .filter(|e| e.is_memcpy())
    {
        assert!(e.stat("graph_node_id").is_none());
    }

    // Real xprof opens the file with the new stats, every dispatch in its kernel stats.
    if support::xprof::available() {
        let f = &r.files[0];
        let x = support::xprof::summary(f, &support::paths::host_of(f));
        assert_eq!(x["errors"], serde_json::json!({}), "{x}");
        let occ = support::xprof::occurrences(&x["kernel_stats"]);
        assert_eq!(occ.values().sum::<u64>(), kernels(&r.space).len() as u64);
    }

    let older = cached(&builtin("graph-launch.toml"), "1.2.1", &[]);
    assert!(kernels(&older.space)
        .iter()
        .all(|k| k.stat("graph_node_id").is_none()));
}
