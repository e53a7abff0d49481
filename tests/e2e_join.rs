//! Issue 3, the join: N activities per correlation id, orphans both ways kept and counted, and
//! the runtime's `drop_count` surfaced — each visible in the file (`XSpace.warnings`, the
//! `rocprof_xplane_*` counters) and through `rocprof-xplane inspect --json`.
//!
//! How the cases are produced in the simulated runtime (test infrastructure, not hardware):
//! * activities without an API record: the tool told not to trace HIP (`ROCPROF_XPLANE_DOMAINS`
//!   without `hip`) — every dispatch and copy arrives with no API record to join;
//! * launch API records without activity: the tool told to trace only `hip,marker`;
//! * drops: a DISCARD buffer that overflows. Our tool asks for LOSSLESS buffers;
//!   `tests/scenarios/tiny-buffers-discard.toml` makes the simulated runtime create every buffer
//!   with DISCARD anyway (`[delivery] force_policy`) and shrinks them to 4 KiB so they overflow.

mod support;

use std::collections::BTreeMap;

use rocprof_xplane::xplane::read_xspace;
use support::cli::inspect_json as inspect;
use support::paths::{builtin, profiles, test_scenario, tool_library};
use support::sim::{cached, simulate, Direct, Run};
use support::truth::{read_truth, truth_calls_with_activity, truth_kernels};
use support::xspace::*;
use support::{stderr_of, u};

/// The truth's table "API → (activities per call → calls)" restricted to calls with activity
/// ([`truth_calls_with_activity`]), measured in the file: host calls with a correlation id and
/// the number of device events carrying that id.
fn measured_calls_with_activity(r: &Run) -> BTreeMap<String, BTreeMap<u64, u64>> {
    let per_corr = device_events_per_correlation(&r.space);
    let mut got: BTreeMap<String, BTreeMap<u64, u64>> = BTreeMap::new();
    for h in host_api_events(&r.space) {
        if let Some(c) = h.correlation_id() {
            // Every HIP call carries its id (issue 7); the truth counts calls with work.
            let n = per_corr.get(&c).copied().unwrap_or(0);
            if n == 0 {
                continue;
            }
            *got.entry(h.name().to_string())
                .or_default()
                .entry(n)
                .or_default() += 1;
        }
    }
    got
}

#[test]
fn n_activities_per_correlation_id_as_in_the_ground_truth() {
    // One graph launch = 256 dispatches on one id; multi-gpu: copies, memsets, kernels on two
    // devices from four threads.
    for (scenario, sdk) in [
        ("graph-launch.toml", "0.6.0"),
        ("multi-gpu.toml", "1.0.0"),
        ("multi-gpu.toml", "0.6.0"),
    ] {
        let r = cached(&builtin(scenario), sdk, &[]);
        let want = truth_calls_with_activity(r.plan());
        assert_eq!(measured_calls_with_activity(&r), want, "{scenario} {sdk}");
        // Every device event's id belongs to a host call.
        let host: std::collections::HashSet<u64> = host_api_events(&r.space)
            .iter()
            .filter_map(|h| h.correlation_id())
            .collect();
        for e in device_events(&r.space) {
            assert!(
                host.contains(&e.correlation_id().unwrap()),
                "{scenario} {sdk}: {} orphaned",
                e.name()
            );
        }
        assert_no_orphans(&r.space, &format!("{scenario} {sdk}"));
    }
}

#[test]
fn activities_without_api_records_are_kept_and_counted() {
    for sdk in ["0.6.0", "1.0.0"] {
        let r = simulate(
            &builtin("graph-launch.toml"),
            sdk,
            &[("ROCPROF_XPLANE_DOMAINS", "kernel,memcpy")],
        );
        let plan = r.plan();
        // Every dispatch and copy is still there...
        assert_eq!(
            count_by_name(kernels(&r.space)),
            truth_kernels(plan),
            "{sdk}"
        );
        assert_eq!(
            memcpys(&r.space).len() as u64,
            u(&plan["totals"]["memory_copies"]),
            "{sdk}"
        );
        assert!(
            host_api_events(&r.space).is_empty(),
            "{sdk}: HIP was not traced"
        );
        // ...and counted as having no API record, in the file and in inspect's summary.
        let orphans = u(&plan["totals"]["kernel_dispatches"]) + u(&plan["totals"]["memory_copies"]);
        assert_eq!(
            counter(&r.space, "activities_without_api"),
            orphans,
            "{sdk}"
        );
        assert!(
            r.space
                .warnings
                .iter()
                .any(|w| w.contains(&orphans.to_string()) && w.contains("without")),
            "{sdk}: no warning about {orphans} orphaned activities: {:?}",
            r.space.warnings
        );
        let i = inspect(&r.files[0]);
        assert_eq!(
            i["counters"]["activities_without_api"], orphans,
            "{sdk}: inspect --json"
        );
        assert_eq!(
            i["event_counts"]["kernels"], plan["totals"]["kernel_dispatches"],
            "{sdk}"
        );
        assert_eq!(i["warnings"], serde_json::json!(r.space.warnings), "{sdk}");
    }
}

#[test]
fn launch_api_records_without_activity_are_kept_and_counted() {
    for sdk in ["0.6.0", "1.0.0"] {
        let r = simulate(
            &builtin("graph-launch.toml"),
            sdk,
            &[("ROCPROF_XPLANE_DOMAINS", "hip,marker")],
        );
        let plan = r.plan();
        assert!(
            kernels(&r.space).is_empty() && memcpys(&r.space).is_empty(),
            "{sdk}: GPU work was not traced"
        );
        // Every HIP call is on the host plane...
        let mut want_api: BTreeMap<String, u64> = BTreeMap::new();
        for (name, n) in plan["hip_api"].as_object().unwrap() {
            want_api.insert(name.clone(), u(n));
        }
        assert_eq!(
            count_by_name(host_api_events(&r.space)),
            want_api,
            "{sdk}: host API calls"
        );
        // ...and each call that launched work (graph launches, kernel launches, copies) is
        // counted as a launch without activity.
        let launches: u64 = truth_calls_with_activity(plan)
            .values()
            .flat_map(|per| per.values())
            .sum();
        assert!(launches > 0);
        assert_eq!(
            counter(&r.space, "launches_without_activity"),
            launches,
            "{sdk}"
        );
        assert!(
            r.space
                .warnings
                .iter()
                .any(|w| w.contains(&launches.to_string())),
            "{sdk}: no warning about {launches} launches without activity: {:?}",
            r.space.warnings
        );
        assert_eq!(
            inspect(&r.files[0])["counters"]["launches_without_activity"],
            launches,
            "{sdk}"
        );
    }
}

#[test]
fn tiny_lossless_buffers_lose_nothing() {
    // The same 4 KiB buffers as the drop test, with the LOSSLESS policy the tool asks for:
    // many deliveries and blocked writers, but every record arrives.
    let r = simulate(&test_scenario("tiny-buffers.toml"), "1.0.0", &[]);
    let d = r.delivery();
    assert_eq!(d["total_dropped"], 0);
    assert!(
        d["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| u(&b["callbacks"]) > 10),
        "small buffers expected: {d}"
    );
    assert_eq!(count_by_name(kernels(&r.space)), truth_kernels(r.plan()));
    assert_eq!(
        measured_calls_with_activity(&r),
        truth_calls_with_activity(r.plan())
    );
    assert_eq!(counter(&r.space, "runtime_dropped"), 0);
}

#[test]
fn runtime_drops_are_counted_and_reported() {
    for sdk in ["0.6.0", "1.0.0"] {
        let tmp = tempfile::tempdir().unwrap();
        let truth_path = tmp.path().join("truth.json");
        let out = Direct::new(&test_scenario("tiny-buffers-discard.toml"), sdk)
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", tmp.path())
            .env("ROCPROF_XPLANE_RUN_NAME", "drops")
            .ground_truth(&truth_path)
            .output();
        assert!(
            out.status.success(),
            "{sdk}: the program must not suffer: {}",
            stderr_of(&out)
        );
        let truth = read_truth(&truth_path);
        let delivery = &truth["delivery"];
        assert_eq!(delivery["forced_policy"], "DISCARD", "{sdk}");
        assert!(
            delivery["buffers"]
                .as_array()
                .unwrap()
                .iter()
                .all(|b| b["policy"] == "DISCARD" && b["requested_policy"] == "LOSSLESS"),
            "{sdk}: the runtime did not force DISCARD on the tool's LOSSLESS buffers: {delivery}"
        );
        let dropped = u(&delivery["total_dropped"]);
        assert!(
            dropped > 0,
            "{sdk}: 4 KiB DISCARD buffers should have overflowed: {delivery}"
        );

        let files = profiles(tmp.path(), "drops");
        assert_eq!(files.len(), 1, "{sdk}: {}", stderr_of(&out));
        let space = read_xspace(&files[0]).unwrap();
        // Every drop the runtime reported is counted, and warned about in the file.
        assert_eq!(counter(&space, "runtime_dropped"), dropped, "{sdk}");
        assert!(
            space
                .warnings
                .iter()
                .any(|w| w.contains(&dropped.to_string()) && w.contains("drop")),
            "{sdk}: no drop warning: {:?}",
            space.warnings
        );
        let i = inspect(&files[0]);
        assert_eq!(
            i["counters"]["runtime_dropped"], dropped,
            "{sdk}: inspect --json"
        );

        // Nothing else went missing: what was delivered is what the tool counted, and
        // delivered + dropped is everything the scenario did.
        let delivered: u64 = delivery["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| u(&b["delivered"]))
            .sum();
        let received: u64 = [
            "api_records",
            "kernel_records",
            "memcpy_records",
            "marker_records",
        ]
        .iter()
        .map(|c| counter(&space, c))
        .sum();
        assert_eq!(
            received, delivered,
            "{sdk}: records delivered vs counted by the tool"
        );
        let t = &truth["plan"]["totals"];
        let done = u(&t["hip_api_calls"])
            + u(&t["kernel_dispatches"])
            + u(&t["memory_copies"])
            + u(&t["marker_calls"]);
        assert_eq!(
            delivered + dropped,
            done,
            "{sdk}: delivered + dropped = all records"
        );
        assert_eq!(
            kernels(&space).len() as u64,
            counter(&space, "kernel_records"),
            "{sdk}: every received dispatch is in the file"
        );
    }
}
