//! The join: N activities per correlation id, orphans both ways kept and counted, and
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
            // Every HIP call carries its id; the truth counts calls with work.
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
        // And on stderr at exit, where the user looks.
        let stderr = stderr_of(&out);
        assert!(
            stderr.contains(&format!(
                "rocprof-xplane: warning: the runtime dropped {dropped} records of this run"
            )),
            "{sdk}: the exit lines say nothing of the drops: {stderr}"
        );

        // Nothing else went missing: what was delivered (or built from callbacks) is what the
        // tool counted, and
        // delivered + dropped is everything the scenario did.
        let delivered: u64 = delivery["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| u(&b["delivered"]))
            .sum::<u64>()
            + u(&delivery["hip_calls_by_callbacks"])
            + delivery["roctx_calls_by_callbacks"].as_u64().unwrap_or(0);
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
        let done = support::truth::truth_traced_hip_calls(&truth["plan"])
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

/// Where records were dropped, no arrow is left without an end. `sync-deps.toml` (cross-stream
/// waits on reused events, every sync API) is run with every buffer forced to a 4 KiB DISCARD
/// buffer, on several delivery seeds, so launches, records and waits are lost in different
/// places: in the file every dependency flow still has its two anchors, and real xprof draws
/// only complete flows (launch and dependency arrows alike).
#[test]
fn dropped_records_leave_no_arrow_without_an_end() {
    let text = std::fs::read_to_string(builtin("sync-deps.toml")).unwrap();
    assert!(
        !text.contains("[delivery]"),
        "sync-deps.toml has its own [delivery]"
    );
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("sync-deps-discard.toml");
    // Root keys must precede the first table: put the delivery table right before [[gpus]].
    let text = text.replacen(
        "[[gpus]]",
        "[delivery]\nbuffer_size_override = \"1KiB\"\nforce_policy = \"discard\"\nshuffle_window = 8\n\n[[gpus]]",
        1,
    );
    std::fs::write(&scenario, text).unwrap();
    let mut dropped_somewhere = false;
    for (sdk, seed) in [("0.6.0", "1"), ("1.0.0", "2"), ("1.4.0", "3")] {
        let what = format!("{sdk} seed {seed}");
        let dir = tmp.path().join(what.replace(' ', "-"));
        let truth_path = dir.join("truth.json");
        std::fs::create_dir_all(&dir).unwrap();
        let out = Direct::new(&scenario, sdk)
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", &dir)
            .env("ROCPROF_XPLANE_RUN_NAME", "drops")
            .arg("--seed")
            .arg(seed)
            .ground_truth(&truth_path)
            .output();
        assert!(out.status.success(), "{what}: {}", stderr_of(&out));
        let truth = read_truth(&truth_path);
        dropped_somewhere |= u(&truth["delivery"]["total_dropped"]) > 0;
        let files = profiles(&dir, "drops");
        let space = read_xspace(&files[0]).unwrap();
        // Every `flow` stat (dependency anchors) pairs an out with an in.
        let mut ends: BTreeMap<u64, (u32, u32)> = BTreeMap::new();
        for p in &space.planes {
            for e in events(p) {
                if let Some(rocprof_xplane::xplane::proto::x_stat::Value::Uint64Value(v)) =
                    e.raw_stat("flow")
                {
                    let slot = ends.entry(v >> 2).or_default();
                    if v & 3 == 2 {
                        slot.0 += 1;
                    } else {
                        slot.1 += 1;
                    }
                }
            }
        }
        assert!(
            ends.values().all(|&(o, i)| o == 1 && i == 1),
            "{what}: dependency flows without both ends: {ends:?}"
        );
        if support::xprof::available() {
            let s = support::xprof::summary(&files[0], &support::paths::host_of(&files[0]));
            // A flow end xprof shows always has its start (lone *starts* are the HIP calls
            // without device work, as in XLA's files: nothing is drawn for them).
            for (id, f) in s["trace"]["flows"].as_object().unwrap() {
                assert!(
                    u(&f["in"]) == 0 || u(&f["out"]) == 1,
                    "{what}: flow {id} ends without its source: {f}"
                );
                if f["cat"].is_null() {
                    assert!(u(&f["in"]) == 1 && u(&f["out"]) == 1, "{what}: {id}: {f}");
                }
            }
        }
    }
    assert!(
        dropped_somewhere,
        "4 KiB DISCARD buffers should drop records"
    );
}

/// LOSSLESS back-pressure: the tool's 4 KiB LOSSLESS buffers behind a slow consumer (2 ms per
/// buffer callback) make the application's writers block — the runtime's answer to a full
/// LOSSLESS buffer — and still every record arrives, none dropped, on both SDK families.
#[test]
fn lossless_back_pressure_blocks_writers_and_loses_nothing() {
    let text = std::fs::read_to_string(test_scenario("tiny-buffers.toml")).unwrap();
    let text = text.replacen(
        "buffer_size_override = \"4KiB\"",
        "buffer_size_override = \"4KiB\"\ndelivery_delay_us = 2000",
        1,
    );
    assert!(
        text.contains("delivery_delay_us"),
        "tiny-buffers.toml changed shape"
    );
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("slow-consumer.toml");
    std::fs::write(&scenario, text).unwrap();
    for sdk in ["0.6.0", "1.0.0"] {
        let r = simulate(&scenario, sdk, &[]);
        let d = r.delivery();
        let buffers = d["buffers"].as_array().unwrap();
        assert!(
            buffers.iter().all(|b| b["policy"] == "LOSSLESS"),
            "{sdk}: {d}"
        );
        assert!(
            buffers.iter().any(|b| u(&b["writer_blocked"]) > 0),
            "{sdk}: no writer ever waited: {d}"
        );
        assert_eq!(d["total_dropped"], 0, "{sdk}");
        assert_eq!(
            count_by_name(kernels(&r.space)),
            truth_kernels(r.plan()),
            "{sdk}"
        );
    }
}
