//! Scenario compiler tests: parse errors, the timing model's invariants, dependency resolution
//! with reused events, graph-launch counts of the built-in scenarios, determinism.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{load, parse_str, ScenarioError};
use crate::plan::*;
use crate::truth::{plan_violations, GroundTruth};

fn scenario_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(name)
}

fn load_builtin(name: &str) -> Plan {
    load(&scenario_path(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// The plan obeys every rule of the timing model (`truth::plan_violations` lists none).
fn assert_consistent(plan: &Plan) {
    let v = plan_violations(plan);
    assert!(v.is_empty(), "{v:?}");
}

fn err(text: &str) -> ScenarioError {
    match parse_str(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

const HEADER: &str = r#"
[[gpus]]
preset = "mi300x"

[[kernels]]
name = "gemm"
dur_us = 10

[[streams]]
name = "s0"
"#;

fn with_calls(calls: &str) -> String {
    format!("{HEADER}\n[[threads]]\nname = \"main\"\ncalls = [\n{calls}\n]\n")
}

/// All activities of all calls, with their host op, in global host order.
fn activities(plan: &Plan) -> Vec<(&HostOp, &Activity)> {
    let mut v = Vec::new();
    for (t, i) in crate::truth::global_order(plan) {
        let op = &plan.threads[t as usize].ops[i as usize];
        if let HostCall::Hip { activities, .. } = &op.call {
            v.extend(activities.iter().map(|a| (op, a)));
        }
    }
    v
}

fn kernel_span(a: &Activity) -> (u64, u64) {
    match a {
        Activity::Kernel {
            start_ns, end_ns, ..
        }
        | Activity::Copy {
            start_ns, end_ns, ..
        } => (*start_ns, *end_ns),
    }
}

fn kernel_name<'p>(plan: &'p Plan, a: &Activity) -> &'p str {
    match a {
        Activity::Kernel { kernel, .. } => &plan.kernels[*kernel as usize].symbol_name,
        Activity::Copy { .. } => "<copy>",
    }
}

// ---------------------------------------------------------------- parse errors

#[test]
fn syntax_error_names_the_line() {
    let e = err("[[gpus]]\npreset = \"mi300x\"\nthreads = [ oops ]\n");
    assert_eq!(e.line, 3, "{e}");
    assert!(e.to_string().contains("TOML syntax error"), "{e}");
}

#[test]
fn unknown_kernel_is_reported_with_line_field_and_suggestion() {
    let text = with_calls("  { op = \"launch\", kernel = \"gemn\", stream = \"s0\" },");
    let e = err(&text);
    let line = text.lines().position(|l| l.contains("gemn")).unwrap() + 1;
    assert_eq!(e.line, line, "{e}");
    assert_eq!(e.path, "threads[0].calls[0].kernel");
    assert!(e.message.contains("unknown kernel `gemn`"), "{e}");
    assert!(e.message.contains("did you mean `gemm`"), "{e}");
}

#[test]
fn unknown_fields_and_ops_are_errors_not_defaults() {
    let e = err(&with_calls(
        "  { op = \"launch\", kernel = \"gemm\", strem = \"s0\" },",
    ));
    assert!(
        e.message.contains("unknown field `strem`") && e.message.contains("did you mean `stream`"),
        "{e}"
    );
    let e = err(&with_calls("  { op = \"lanch\", kernel = \"gemm\" },"));
    assert!(
        e.message.contains("unknown op `lanch`") && e.message.contains("`launch`"),
        "{e}"
    );
    let e = err(&format!(
        "{HEADER}\n[timing]\njiter = 0.1\n[[threads]]\ncalls = []\n"
    ));
    assert!(
        e.path == "timing.jiter" && e.message.contains("`jitter`"),
        "{e}"
    );
}

#[test]
fn delivery_force_policy_is_parsed_and_checked() {
    let text =
        |delivery: &str| format!("{HEADER}\n[delivery]\n{delivery}\n[[threads]]\ncalls = []\n");
    let plan = parse_str(&text("")).unwrap();
    assert_eq!(plan.delivery.force_policy, None);
    let plan = parse_str(&text("force_policy = \"discard\"")).unwrap();
    assert_eq!(plan.delivery.force_policy, Some(BufferPolicy::Discard));
    let plan = parse_str(&text("force_policy = \"lossless\"")).unwrap();
    assert_eq!(plan.delivery.force_policy, Some(BufferPolicy::Lossless));
    let e = err(&text("force_policy = \"DISCARD\""));
    assert_eq!(e.path, "delivery.force_policy", "{e}");
    assert!(e.message.contains("unknown force_policy `DISCARD`"), "{e}");
}

#[test]
fn pop_without_push_is_an_error_at_the_pop() {
    let text =
        with_calls("  { op = \"push\", msg = \"a\" },\n  { op = \"pop\" },\n  { op = \"pop\" },");
    let e = err(&text);
    assert_eq!(e.path, "threads[0].calls[2]");
    assert!(
        e.message.contains("pop without a matching push") && e.message.contains("thread `main`"),
        "{e}"
    );
    let e = err(&with_calls("  { op = \"ext_pop\" },"));
    assert!(e.message.contains("ext_pop without"), "{e}");
    let e = err(&with_calls("  { op = \"range_stop\", key = \"x\" },"));
    assert!(e.message.contains("without an active range_start"), "{e}");
}

#[test]
fn negative_and_malformed_sizes_are_rejected() {
    let e = err(&with_calls(
        "  { op = \"memcpy\", kind = \"h2d\", bytes = -4 },",
    ));
    assert!(e.message.contains("must not be negative"), "{e}");
    let e = err(&with_calls(
        "  { op = \"memcpy\", kind = \"h2d\", bytes = \"-4MiB\" },",
    ));
    assert!(e.message.contains("invalid byte size"), "{e}");
    let e = err(&with_calls(
        "  { op = \"memcpy\", kind = \"h2d\", bytes = \"4 parsecs\" },",
    ));
    assert!(e.message.contains("invalid byte size"), "{e}");
    let e = err(&with_calls(
        "  { op = \"launch\", kernel = \"gemm\", dur_us = -1 },",
    ));
    assert!(e.message.contains("must not be negative"), "{e}");
    let e = err(&with_calls(
        "  { op = \"launch\", kernel = \"gemm\", block = [64, 64] },",
    ));
    assert!(e.message.contains("exceeds the limit of 1024"), "{e}");
}

#[test]
fn semantic_errors_name_what_is_wrong() {
    let e = err(&with_calls(
        "  { op = \"memcpy\", kind = \"peer\", bytes = 4, src_device = 0 },",
    ));
    assert!(
        e.message
            .contains("needs both `src_device` and `dst_device`"),
        "{e}"
    );
    let e = err(&with_calls(
        "  { op = \"stream_create\", stream = \"s0\" },\n  { op = \"stream_destroy\", stream = \"s0\" },\n  { op = \"launch\", kernel = \"gemm\", stream = \"s0\" },",
    ));
    assert!(
        e.message.contains("used after hipStreamDestroy") && e.path == "threads[0].calls[2]",
        "{e}"
    );
    let e = err(&with_calls("  { op = \"set_device\", device = 3 },"));
    assert!(e.message.contains("device 3 does not exist"), "{e}");
    let e = err(&with_calls("  { repeat = 100000, calls = [ { repeat = 100000, calls = [ { op = \"device_sync\" } ] } ] },"));
    assert!(e.message.contains("more than the limit"), "{e}");
    let e = err("[[gpus]]\npreset = \"mi310x\"\n[[threads]]\ncalls = []\n");
    assert!(e.message.contains("unknown GPU preset `mi310x`"), "{e}");
}

#[test]
fn load_reports_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.toml");
    std::fs::write(&p, with_calls("  { op = \"pop\" },")).unwrap();
    let e = load(&p).unwrap_err();
    assert_eq!(e.file.as_deref(), Some(p.as_path()));
    assert!(
        e.to_string().starts_with(&format!("{}:", p.display())),
        "{e}"
    );
    let e = load(&dir.path().join("missing.toml")).unwrap_err();
    assert!(e.message.contains("cannot read scenario"), "{e}");
}

// ---------------------------------------------------------------- timing model

#[test]
fn per_stream_work_is_serialised_and_streams_overlap() {
    let text = format!(
        "{HEADER}\n[[streams]]\nname = \"s1\"\n[[threads]]\ncalls = [\n{}\n]\n",
        r#"{ op = "launch", kernel = "gemm", stream = "s0", dur_us = 100 },
           { op = "launch", kernel = "gemm", stream = "s0", dur_us = 100 },
           { op = "launch", kernel = "gemm", stream = "s1", dur_us = 100 },
           { op = "launch", kernel = "gemm", stream = "s0", dur_us = 100 },"#
    );
    let plan = parse_str(&text).unwrap();
    assert_consistent(&plan);
    let acts = activities(&plan);
    let on = |h: u64| -> Vec<(u64, u64)> {
        acts.iter()
            .filter_map(|(_, a)| match a {
                Activity::Kernel { stream, .. } if *stream == h => Some(kernel_span(a)),
                _ => None,
            })
            .collect()
    };
    let (s0, s1) = (plan.streams[0].handle, plan.streams[1].handle);
    let a = on(s0);
    assert_eq!(a.len(), 3);
    assert_eq!(
        a[1].0, a[0].1,
        "second kernel starts when the first ends (back-to-back)"
    );
    assert_eq!(a[2].0, a[1].1);
    let b = on(s1);
    assert!(
        b[0].0 < a[1].1 && b[0].1 > a[1].0,
        "different streams overlap: {a:?} {b:?}"
    );
}

#[test]
fn concurrency_limit_serialises_across_streams() {
    let text = r#"
[[gpus]]
preset = "mi300x"
max_concurrent_kernels = 1
[[kernels]]
name = "k"
dur_us = 100
[[streams]]
name = "a"
[[streams]]
name = "b"
[[threads]]
calls = [ { op = "launch", kernel = "k", stream = "a" }, { op = "launch", kernel = "k", stream = "b" } ]
"#;
    let plan = parse_str(text).unwrap();
    let acts = activities(&plan);
    let (a, b) = (kernel_span(acts[0].1), kernel_span(acts[1].1));
    assert!(
        b.0 >= a.1,
        "with one slot the second stream waits: {a:?} {b:?}"
    );
}

#[test]
fn wait_resolves_to_latest_record_of_a_reused_event() {
    let text = format!(
        "{HEADER}\n[[streams]]\nname = \"s1\"\n[[streams]]\nname = \"s2\"\n[[threads]]\ncalls = [\n{}\n]\n",
        r#"{ op = "launch", kernel = "gemm", stream = "s0", dur_us = 1000 },
           { op = "event_record", event = "e", stream = "s0" },
           { op = "launch", kernel = "gemm", stream = "s1", dur_us = 10 },
           { op = "event_record", event = "e", stream = "s1" },
           { op = "stream_wait_event", stream = "s2", event = "e" },
           { op = "launch", kernel = "gemm", stream = "s2", dur_us = 5 },
           { op = "stream_wait_event", stream = "s2", event = "ghost" },"#
    );
    let plan = parse_str(&text).unwrap();
    assert_consistent(&plan);
    let acts = activities(&plan);
    let long = kernel_span(acts[0].1);
    let short = kernel_span(acts[1].1);
    let consumer = kernel_span(acts[2].1);
    assert!(
        consumer.0 >= short.1,
        "consumer waits for the latest record (s1): {consumer:?} {short:?}"
    );
    assert!(
        consumer.0 < long.1,
        "…and not for the overwritten record on s0: {consumer:?} {long:?}"
    );

    let gt = GroundTruth::from_plan(&plan);
    assert_eq!(gt.waits.len(), 2);
    let p = gt.waits[0].producer.as_ref().expect("resolved");
    assert_eq!(p.record_index, 1, "second hipEventRecord of the run");
    assert_eq!(p.stream.name, "s1");
    assert_eq!(gt.waits[0].stream.name, "s2");
    assert!(
        gt.waits[1].producer.is_none(),
        "never-recorded event stays unresolved"
    );
    assert_eq!(gt.totals.unresolved_waits, 1);
    assert_ne!(gt.waits[0].event, gt.waits[1].event);
}

#[test]
fn blocking_calls_end_after_what_they_wait_for() {
    let plan = parse_str(&with_calls(
        r#"{ op = "launch", kernel = "gemm", stream = "s0", dur_us = 500 },
           { op = "stream_sync", stream = "s0" },
           { op = "memcpy", kind = "d2h", bytes = "1GiB" },"#,
    ))
    .unwrap();
    let ops: Vec<&HostOp> = plan.threads[0]
        .ops
        .iter()
        .filter(|o| !matches!(o.call, HostCall::CodeObjectLoad(_)))
        .collect();
    // ops: hipStreamCreate (implicit), hipLaunchKernel, hipStreamSynchronize, hipMemcpy
    let names: Vec<&str> = ops
        .iter()
        .map(|o| match &o.call {
            HostCall::Hip { api, .. } => api.as_str(),
            _ => "?",
        })
        .collect();
    assert_eq!(
        names,
        [
            "hipStreamCreate",
            "hipLaunchKernel",
            "hipStreamSynchronize",
            "hipMemcpy"
        ]
    );
    let HostCall::Hip { activities: k, .. } = &ops[1].call else {
        unreachable!()
    };
    assert!(ops[2].end_ns > kernel_span(&k[0]).1);
    let HostCall::Hip {
        activities: c,
        args,
        ..
    } = &ops[3].call
    else {
        unreachable!()
    };
    assert!(ops[3].end_ns > kernel_span(&c[0]).1);
    assert!(matches!(
        args,
        HipArgs::Memcpy {
            stream: None,
            kind: 2,
            ..
        }
    ));
    // 1 GiB at the MI300X preset's 50 GB/s ≈ 21.5 ms.
    let (s, e) = kernel_span(&c[0]);
    assert!((21_000_000..22_000_000).contains(&(e - s)), "{}", e - s);
    assert!(plan_violations(&plan).is_empty());
}

#[test]
fn memset_is_a_fill_kernel_dispatch() {
    let plan = parse_str(&with_calls(
        r#"{ op = "memset", bytes = "1MiB", value = 7, stream = "s0" },"#,
    ))
    .unwrap();
    let acts = activities(&plan);
    assert_eq!(acts.len(), 1);
    assert_eq!(kernel_name(&plan, acts[0].1), super::FILL_KERNEL);
    let Activity::Kernel {
        block, grid_items, ..
    } = acts[0].1
    else {
        panic!()
    };
    assert_eq!(*block, [256, 1, 1]);
    assert_eq!(grid_items[0] % 256, 0);
    // The runtime's blit code object is loaded from memory.
    assert!(plan
        .code_objects
        .iter()
        .any(|c| c.uri.starts_with("memory://")));
}

#[test]
fn streams_map_round_robin_onto_queues() {
    let mut text =
        String::from("[[gpus]]\npreset = \"mi300x\"\nqueues = 2\n[[kernels]]\nname = \"k\"\n");
    for i in 0..3 {
        text += &format!("[[streams]]\nname = \"s{i}\"\n");
    }
    text += "[[threads]]\ncalls = [ { op = \"launch\", kernel = \"k\" }, ";
    for i in 0..3 {
        text += &format!("{{ op = \"launch\", kernel = \"k\", stream = \"s{i}\" }}, ");
    }
    text += "]\n";
    let plan = parse_str(&text).unwrap();
    let queues: Vec<u32> = activities(&plan)
        .iter()
        .map(|(_, a)| match a {
            Activity::Kernel { queue, .. } => *queue,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        queues,
        [0, 1, 0, 1],
        "null stream on queue 0, then s0, s1, s2 round-robin"
    );
}

#[test]
fn thread_on_another_device_starts_with_set_device_and_uses_its_null_stream() {
    let text = r#"
[[gpus]]
preset = "mi300x"
[[gpus]]
preset = "mi250x"
[[kernels]]
name = "k"
[[threads]]
device = 1
calls = [ { op = "launch", kernel = "k" } ]
"#;
    let plan = parse_str(text).unwrap();
    let ops = &plan.threads[0].ops;
    let HostCall::Hip { api, args, .. } = &ops[ops.len() - 2].call else {
        panic!()
    };
    assert_eq!(
        (api.as_str(), args),
        ("hipSetDevice", &HipArgs::SetDevice { device: 1 })
    );
    let gt = GroundTruth::from_plan(&plan);
    assert_eq!(gt.devices[1].kernel_dispatches, 1);
    assert_eq!(gt.kernels["k"].per_gpu.get(&1), Some(&1));
    assert_eq!(
        plan.kernels.len(),
        2,
        "one kernel symbol per GPU the code object is loaded on"
    );
}

#[test]
fn host_ops_are_ordered_and_unique_across_threads() {
    // Two identical threads would collide at every step; the compiler keeps starts unique.
    let text = format!(
        "{HEADER}\n[[threads]]\ncalls = [ {{ repeat = 50, calls = [ {{ op = \"mark\", msg = \"x\" }} ] }} ]\n[[threads]]\ncalls = [ {{ repeat = 50, calls = [ {{ op = \"mark\", msg = \"y\" }} ] }} ]\n"
    );
    let plan = parse_str(&text).unwrap();
    assert_consistent(&plan);
    let mut starts: Vec<u64> = plan
        .threads
        .iter()
        .flat_map(|t| t.ops.iter().map(|o| o.start_ns))
        .collect();
    let n = starts.len();
    starts.sort_unstable();
    starts.dedup();
    assert_eq!(starts.len(), n);
}

// ---------------------------------------------------------------- expansion & templates

#[test]
fn repeat_expansion_counts_and_templates() {
    let plan = parse_str(&with_calls(
        r#"{ repeat = 3, calls = [
              { op = "ext_push", id = 100, step = 10 },
              { op = "push", msg = "outer {i}" },
              { repeat = 4, calls = [ { op = "mark", msg = "inner {i} call {n}" } ] },
              { repeat = 0, calls = [ { op = "mark", msg = "never" } ] },
              { op = "pop" },
              { op = "ext_pop" },
           ] },"#,
    ))
    .unwrap();
    let ops = &plan.threads[0].ops;
    assert!(
        matches!(ops[0].call, HostCall::CodeObjectLoad(0)),
        "start-up load first"
    );
    assert_eq!(ops.len(), 1 + 3 * (4 + 4));
    let marks: Vec<&str> = ops
        .iter()
        .filter_map(|o| match &o.call {
            HostCall::Marker(MarkerOp::Mark(m)) => Some(m.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(marks.len(), 12);
    assert_eq!(marks[0], "inner 0 call 0");
    assert_eq!(marks[5], "inner 1 call 5");
    assert_eq!(marks[11], "inner 3 call 11");
    let ext: Vec<u64> = ops
        .iter()
        .filter_map(|o| match o.call {
            HostCall::ExternalPush(id) => Some(id),
            _ => None,
        })
        .collect();
    assert_eq!(ext, [100, 110, 120]);
    let gt = GroundTruth::from_plan(&plan);
    assert_eq!(gt.markers["mark"], 12);
    assert_eq!(
        gt.external_ids[&110].marker_calls,
        4 + 2,
        "push + 4 marks + pop under id 110"
    );
    let scopes: BTreeMap<Vec<String>, u64> = gt.threads[0]
        .scopes
        .iter()
        .map(|s| (s.path.clone(), s.counts.marker_calls))
        .collect();
    assert_eq!(
        scopes[&vec!["outer 2".to_string()]],
        4 + 1,
        "4 marks + the pop inside `outer 2`"
    );
}

// ---------------------------------------------------------------- built-in scenarios

#[test]
fn graph_launch_scenario_has_exactly_5120_graph_dispatches() {
    let plan = load_builtin("graph-launch.toml");
    assert_consistent(&plan);
    assert_eq!(plan.delivery.shuffle_window, 64);
    let gt = GroundTruth::from_plan(&plan);
    assert_eq!(gt.totals.graph_launches, 20);
    assert_eq!(gt.totals.graph_kernel_dispatches, 5_120);
    assert_eq!(gt.hip_api["hipLaunchKernel"], 8);
    assert_eq!(gt.totals.kernel_dispatches, 5_128);
    assert_eq!(
        gt.activities_per_call["hipGraphLaunch"],
        BTreeMap::from([(256, 20)])
    );
    let (_, g) = gt.graphs.iter().next().unwrap();
    assert_eq!(
        (g.launches, g.kernel_dispatches, g.distinct_kernels),
        (20, 5_120, 256)
    );
    assert_eq!(gt.kernels.len(), 257);
    assert!(gt.kernels.values().filter(|k| k.dispatches == 20).count() == 256);
    assert_eq!(gt.memory_copies["HostToDevice"].count, 2);
    assert_eq!(gt.memory_copies["DeviceToHost"].count, 2);
    // All 256 dispatches of one launch run serially on the launch stream.
    let launch = plan.threads[0]
        .ops
        .iter()
        .find_map(|o| match &o.call {
            HostCall::Hip {
                api, activities, ..
            } if api == "hipGraphLaunch" => Some(activities),
            _ => None,
        })
        .unwrap();
    for w in launch.windows(2) {
        assert!(kernel_span(&w[1]).0 >= kernel_span(&w[0]).1);
    }
    // The roctx range of each step covers its 256 graph dispatches.
    let step3 = gt.threads[0]
        .scopes
        .iter()
        .find(|s| s.path == ["decode step 3"])
        .unwrap();
    assert_eq!(step3.counts.kernel_dispatches, 256);
}

#[test]
fn multi_gpu_scenario_covers_every_direction_and_both_devices() {
    let plan = load_builtin("multi-gpu.toml");
    assert_consistent(&plan);
    assert_eq!(plan.gpus.len(), 2);
    assert_eq!(
        (plan.gpus[0].name.as_str(), plan.gpus[1].name.as_str()),
        ("gfx942", "gfx90a")
    );
    assert_eq!(plan.threads.len(), 4);
    let gt = GroundTruth::from_plan(&plan);
    for dir in [
        "HostToDevice",
        "DeviceToHost",
        "DeviceToDevice",
        "HostToHost",
    ] {
        assert!(
            gt.memory_copies.get(dir).is_some_and(|c| c.count > 0),
            "{dir}"
        );
    }
    let peer = activities(&plan)
        .iter()
        .filter(|(_, a)| matches!(a, Activity::Copy { src_gpu: Some(s), dst_gpu: Some(d), .. } if s != d))
        .count();
    assert_eq!(peer, 10 + 1);
    assert!(gt.devices.iter().all(|d| d.kernel_dispatches > 0));
    assert!(gt.waits.len() >= 30 && gt.waits.iter().filter(|w| w.producer.is_some()).count() >= 25);
    assert!(gt.waits.iter().any(|w| w
        .producer
        .as_ref()
        .is_some_and(|p| p.record.thread != w.wait.thread)));
    assert_eq!(gt.ranges["load weights"].started, 1);
}

#[test]
fn sync_deps_scenario_resolves_reused_events() {
    let plan = load_builtin("sync-deps.toml");
    assert_consistent(&plan);
    let gt = GroundTruth::from_plan(&plan);
    let main_waits: Vec<_> = gt.waits.iter().filter(|w| w.wait.thread == 0).collect();
    assert_eq!(main_waits.len(), 6);
    for w in &main_waits[..5] {
        assert_eq!(
            w.producer.as_ref().unwrap().stream.name,
            "b",
            "latest record of `e` is on b"
        );
    }
    assert!(main_waits[5].producer.is_none());
    let cross = gt.waits.iter().find(|w| w.wait.thread == 1).unwrap();
    assert_eq!(cross.producer.as_ref().unwrap().record.thread, 0);
    assert_eq!(gt.event_syncs.len(), 2);
}

#[test]
fn markers_scenario_tree_and_cross_thread_range() {
    let plan = load_builtin("markers.toml");
    assert_consistent(&plan);
    let gt = GroundTruth::from_plan(&plan);
    assert_eq!(gt.ranges["training"].cross_thread, 1);
    assert_eq!(gt.threads[0].open_at_end, ["left open"]);
    let layer = gt.threads[0]
        .scopes
        .iter()
        .find(|s| s.path == ["epoch", "step 1", "layer"])
        .unwrap();
    assert_eq!((layer.entered, layer.counts.kernel_dispatches), (2, 2));
    assert_eq!(gt.external_ids[&1001].kernel_dispatches, 2);
    assert_eq!(gt.external_ids[&77].hip_api_calls, 1);
}

#[test]
fn every_builtin_scenario_compiles_and_keeps_the_invariants() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") && !p.ends_with("stress.toml") {
            let plan = load(&p).unwrap_or_else(|e| panic!("{e}"));
            let v = plan_violations(&plan);
            assert!(v.is_empty(), "{}: {:?}", p.display(), &v[..v.len().min(5)]);
            n += 1;
        }
    }
    assert!(n >= 5);
}

// ---------------------------------------------------------------- determinism

#[test]
fn same_seed_same_plan_and_truth() {
    let a = load_builtin("multi-gpu.toml");
    let b = load_builtin("multi-gpu.toml");
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert_eq!(GroundTruth::from_plan(&a), GroundTruth::from_plan(&b));
    assert_eq!(
        GroundTruth::from_plan(&a).to_json(),
        GroundTruth::from_plan(&b).to_json()
    );
}

#[test]
fn jitter_depends_on_the_seed_only() {
    let text = |seed: u64| {
        format!(
            "seed = {seed}\n[timing]\njitter = 0.2\n{}",
            with_calls(
                r#"{ repeat = 50, calls = [ { op = "launch", kernel = "gemm", stream = "s0" } ] },"#
            )
        )
    };
    let durs = |plan: &Plan| -> Vec<u64> {
        activities(plan)
            .iter()
            .map(|(_, a)| kernel_span(a))
            .map(|(s, e)| e - s)
            .collect()
    };
    let a = durs(&parse_str(&text(1)).unwrap());
    assert_eq!(a, durs(&parse_str(&text(1)).unwrap()));
    assert_ne!(a, durs(&parse_str(&text(2)).unwrap()));
    assert!(
        a.iter().all(|&d| (8_000..=12_000).contains(&d)),
        "±20 % of 10 µs: {a:?}"
    );
    assert!(a.iter().any(|&d| d != 10_000));
}

// ---------------------------------------------------------------- bench (prints, never asserts time)

#[test]
#[ignore = "benchmark: run with --ignored --nocapture (prefer --release)"]
fn bench_compile_stress() {
    let t = std::time::Instant::now();
    let plan = load_builtin("stress.toml");
    let compile = t.elapsed();
    let t = std::time::Instant::now();
    let gt = GroundTruth::from_plan(&plan);
    let truth = t.elapsed();
    let ops: usize = plan.threads.iter().map(|t| t.ops.len()).sum();
    println!(
        "stress.toml: {ops} host ops, {} kernel dispatches; compile {:.2?}, ground truth {:.2?}",
        gt.totals.kernel_dispatches, compile, truth
    );
    assert!(gt.totals.kernel_dispatches >= 1_000_000);
}

#[test]
#[ignore = "tool: SCENARIO=name.toml cargo test -p rocprof-sim --lib dump_truth -- --ignored --nocapture"]
fn dump_truth() {
    let name = std::env::var("SCENARIO").unwrap_or_else(|_| "tiny.toml".into());
    let plan = load_builtin(&name);
    println!("{}", GroundTruth::from_plan(&plan).to_json());
}

#[test]
fn lazy_code_objects_load_where_the_load_call_is() {
    let base = r#"
[[gpus]]
preset = "mi300x"
[[code_objects]]
name = "eager"
[[code_objects]]
name = "jit"
lazy = true
[[kernels]]
name = "k_jit"
code_object = "jit"
[[threads]]
name = "a"
calls = [ { op = "mark", msg = "a" } ]
"#;
    let e = err(&format!(
        "{base}[[threads]]\nname = \"b\"\ncalls = [ {{ op = \"launch\", kernel = \"k_jit\" }} ]\n"
    ));
    assert!(
        e.message.contains("before its code object `jit` is loaded"),
        "{e}"
    );
    let plan = parse_str(&format!(
        "{base}[[threads]]\nname = \"b\"\ncalls = [ {{ op = \"load\", code_object = \"jit\" }}, {{ op = \"launch\", kernel = \"k_jit\" }} ]\n"
    ))
    .unwrap();
    assert_eq!(plan.code_objects.len(), 2);
    assert_eq!(
        (
            plan.code_objects[0].load_thread,
            plan.code_objects[1].load_thread
        ),
        (0, 1)
    );
    assert!(matches!(
        plan.threads[1].ops[0].call,
        HostCall::CodeObjectLoad(1)
    ));
    assert!(matches!(
        plan.threads[0].ops[0].call,
        HostCall::CodeObjectLoad(0)
    ));
    assert!(plan_violations(&plan).is_empty());
}

#[test]
fn calls_may_also_be_written_as_arrays_of_tables() {
    let text = format!(
        "{HEADER}\n[[threads]]\nname = \"main\"\n\n[[threads.calls]]\nop = \"push\"\nmsg = \"outer\"\n\n[[threads.calls]]\nrepeat = 3\n\n[[threads.calls.calls]]\nop = \"launch\"\nkernel = \"gemm\"\nstream = \"s0\"\n\n[[threads.calls]]\nop = \"pop\"\n"
    );
    let gt = GroundTruth::from_plan(&parse_str(&text).unwrap());
    assert_eq!(gt.hip_api["hipLaunchKernel"], 3);
    assert_eq!(
        gt.threads[0]
            .scopes
            .iter()
            .find(|s| s.path == ["outer"])
            .unwrap()
            .counts
            .kernel_dispatches,
        3
    );
    // Errors inside array-of-tables calls still point at the right line.
    let bad = text.replace("kernel = \"gemm\"", "kernel = \"nope\"");
    let e = err(&bad);
    assert_eq!(
        e.line,
        bad.lines().position(|l| l.contains("nope")).unwrap() + 1,
        "{e}"
    );
}

#[test]
fn byte_sizes_and_units() {
    use super::toml_read::parse_bytes;
    assert_eq!(parse_bytes("4096"), Some(4096));
    assert_eq!(parse_bytes("64KiB"), Some(65_536));
    assert_eq!(parse_bytes("1.5 MB"), Some(1_500_000));
    assert_eq!(parse_bytes("2GiB"), Some(2 << 30));
    assert_eq!(parse_bytes("-1"), None);
    assert_eq!(parse_bytes("1 furlong"), None);
    assert_eq!(parse_bytes(""), None);
}

#[test]
fn plan_violations_catches_broken_plans() {
    let text = format!(
        "{HEADER}\n[[streams]]\nname = \"s1\"\n[[threads]]\ncalls = [\n{}\n]\n",
        r#"{ op = "launch", kernel = "gemm", stream = "s0", dur_us = 100 },
           { op = "event_record", event = "e", stream = "s0" },
           { op = "stream_wait_event", stream = "s1", event = "e" },
           { op = "launch", kernel = "gemm", stream = "s1", dur_us = 100 },
           { op = "launch", kernel = "gemm", stream = "s0", dur_us = 100 },
           { op = "stream_sync", stream = "s0" },"#
    );
    let good = parse_str(&text).unwrap();
    assert!(plan_violations(&good).is_empty());
    let launches: Vec<usize> = good.threads[0]
        .ops
        .iter()
        .enumerate()
        .filter(|(_, o)| matches!(&o.call, HostCall::Hip { api, .. } if api == "hipLaunchKernel"))
        .map(|(i, _)| i)
        .collect();
    let shift = |plan: &mut Plan, op: usize, to: u64| {
        if let HostCall::Hip { activities, .. } = &mut plan.threads[0].ops[op].call {
            if let Activity::Kernel {
                start_ns, end_ns, ..
            } = &mut activities[0]
            {
                let d = *end_ns - *start_ns;
                *start_ns = to;
                *end_ns = to + d;
            }
        }
    };
    let first_start = kernel_span(match &good.threads[0].ops[launches[0]].call {
        HostCall::Hip { activities, .. } => &activities[0],
        _ => unreachable!(),
    })
    .0;
    let op_start = |i: usize| good.threads[0].ops[i].start_ns;
    // The consumer on s1 starting before the awaited kernel on s0 ends.
    let mut bad = good.clone();
    shift(&mut bad, launches[1], op_start(launches[1]) + 1);
    let v = plan_violations(&bad);
    assert!(v.iter().any(|m| m.contains("awaited event")), "{v:?}");
    // The third kernel overlapping the first on the same stream.
    let mut bad = good.clone();
    shift(&mut bad, launches[2], first_start + 10);
    let v = plan_violations(&bad);
    assert!(
        v.iter().any(|m| m.contains("before earlier work ends")),
        "{v:?}"
    );
    // hipStreamSynchronize returning early.
    let mut bad = good.clone();
    let sync = bad.threads[0].ops.len() - 1;
    bad.threads[0].ops[sync].end_ns = bad.threads[0].ops[sync].start_ns + 1;
    let v = plan_violations(&bad);
    assert!(
        v.iter().any(|m| m.contains("before the stream drains")),
        "{v:?}"
    );
}

#[test]
fn threads_sharing_a_stream_serialise_in_global_order() {
    let text = format!(
        "{HEADER}\n[[threads]]\nname = \"a\"\ncalls = [ {{ repeat = 20, calls = [ {{ op = \"launch\", kernel = \"gemm\", stream = \"s0\", dur_us = 3 }} ] }} ]\n[[threads]]\nname = \"b\"\nstart_us = 1\ncalls = [ {{ repeat = 20, calls = [ {{ op = \"launch\", kernel = \"gemm\", stream = \"s0\", dur_us = 3 }} ] }} ]\n"
    );
    let plan = parse_str(&text).unwrap();
    assert_consistent(&plan);
    let acts = activities(&plan);
    assert_eq!(acts.len(), 40);
    // In global host order, the shared stream's kernels run back-to-back in submission order.
    for w in acts.windows(2) {
        assert!(kernel_span(w[1].1).0 >= kernel_span(w[0].1).1);
    }
    let gt = GroundTruth::from_plan(&plan);
    assert_eq!(
        gt.threads[0].hip_api["hipLaunchKernel"] + gt.threads[1].hip_api["hipLaunchKernel"],
        40
    );
    assert_eq!(
        gt.streams
            .iter()
            .find(|s| s.name == "s0")
            .unwrap()
            .kernel_dispatches,
        40
    );
}

#[test]
fn truth_lists_every_push_instance_with_its_parent_and_correlation_ids() {
    // Correlation ids go to HIP and roctx calls in global order (the implicit hipStreamCreate
    // before the first use of `s0` included); external-id pushes get none.
    let plan = parse_str(&with_calls(
        r#"{ op = "push", msg = "step" },
           { op = "ext_push", id = 9 },
           { op = "push", msg = "op" },
           { op = "launch", kernel = "gemm", stream = "s0" },
           { op = "pop" },
           { op = "push", msg = "op" },
           { op = "pop" },
           { op = "ext_pop" },
           { op = "pop" },
           { op = "push", msg = "open" },"#,
    ))
    .unwrap();
    let gt = GroundTruth::from_plan(&plan);
    type Row<'a> = (&'a str, Option<u64>, u32, u64, Option<u64>, u64);
    let got: Vec<Row<'_>> = gt
        .scope_instances
        .iter()
        .map(|i| {
            (
                i.label.as_str(),
                i.parent,
                i.depth,
                i.push_correlation_id,
                i.pop_correlation_id,
                i.counts.kernel_dispatches,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("step", None, 1, 1, Some(8), 0),
            ("op", Some(0), 2, 2, Some(5), 1),
            ("op", Some(0), 2, 6, Some(7), 0),
            ("open", None, 1, 9, None, 0),
        ]
    );
    // Work is attributed at entry: the second "op"'s own pop counts as its roctx call.
    assert_eq!(gt.scope_instances[2].counts.marker_calls, 1);
    assert_eq!(
        gt.scope_instances[1].counts.hip_api_calls, 2,
        "stream create + launch"
    );
}

#[test]
fn truth_gives_each_range_the_work_it_encloses_at_any_depth() {
    let plan = parse_str(&with_calls(
        r#"{ op = "push", msg = "step" },
           { op = "launch", kernel = "gemm", stream = "s0", dur_us = 10 },
           { op = "push", msg = "inner" },
           { op = "launch", kernel = "gemm", stream = "s0", dur_us = 30 },
           { op = "memcpy", kind = "d2h", bytes = "4KiB", stream = "s0" },
           { op = "pop" },
           { op = "stream_sync", stream = "s0" },
           { op = "pop" },
           { op = "launch", kernel = "gemm", stream = "s0" },
           { op = "push", msg = "open" },"#,
    ))
    .unwrap();
    let gt = GroundTruth::from_plan(&plan);
    let by_label = |l: &str| gt.scope_instances.iter().find(|i| i.label == l).unwrap();
    let (step, inner, open) = (by_label("step"), by_label("inner"), by_label("open"));
    // The outer range holds the inner one's kernel and copy as well as its own kernel.
    assert_eq!(
        (step.enclosed.kernel_dispatches, step.enclosed.memory_copies),
        (2, 1)
    );
    assert_eq!(step.enclosed.kernel_ns, 40_000);
    assert_eq!(
        (
            inner.enclosed.kernel_dispatches,
            inner.enclosed.memory_copies
        ),
        (1, 1)
    );
    // Its device span runs from its first kernel's start to the copy's end (the stream runs
    // them in order), inside its host span, which the sync keeps open until the copy is done.
    let kernels: Vec<(u64, u64)> = plan
        .threads
        .iter()
        .flat_map(|t| &t.ops)
        .filter_map(|op| match &op.call {
            HostCall::Hip { activities, .. } => Some(activities),
            _ => None,
        })
        .flatten()
        .map(|a| match a {
            Activity::Kernel {
                start_ns, end_ns, ..
            }
            | Activity::Copy {
                start_ns, end_ns, ..
            } => (*start_ns, *end_ns),
        })
        .collect();
    assert_eq!(step.enclosed.device_start_ns, kernels[0].0);
    assert_eq!(step.enclosed.device_end_ns, kernels[2].1);
    assert_eq!(inner.enclosed.device_start_ns, kernels[1].0);
    assert!(step.push_ns < step.enclosed.device_start_ns);
    assert!(step.enclosed.device_end_ns < step.pop_ns.unwrap());
    // Work after a range closed is not its own; a range still open holds no pop time.
    assert_eq!(open.enclosed, Default::default());
    assert_eq!(open.pop_ns, None);
}

#[test]
fn train_loop_steps_enclose_all_work_after_each_loops_first_step() {
    // Each loop's work from its first step on lies inside a step, one GPU per loop: what lets
    // a profiler's step spans equal the ranges' enclosed work.
    let plan = load_builtin("train-loop.toml");
    assert_consistent(&plan);
    let gt = GroundTruth::from_plan(&plan);
    let steps: Vec<_> = gt.scope_instances.iter().filter(|i| i.depth == 1).collect();
    let labels: Vec<&str> = steps.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(steps.len(), 14, "{labels:?}");
    // Each thread drives one GPU (jax: 0, torch: 1), so its work is that GPU's.
    for (thread, n, kernels) in [(0u32, 8usize, 65u64), (1, 6, 14)] {
        let mine: Vec<_> = steps.iter().filter(|s| s.thread == thread).collect();
        assert_eq!(mine.len(), n);
        for s in &mine {
            assert_eq!(s.enclosed.kernel_dispatches, kernels, "{}", s.label);
            assert!(
                s.enclosed.device_end_ns < s.pop_ns.unwrap(),
                "synced: {}",
                s.label
            );
        }
        let first = mine[0].push_ns;
        let inside: u64 = mine
            .iter()
            .map(|s| s.enclosed.kernel_dispatches + s.enclosed.memory_copies)
            .sum();
        let after_first: u64 = plan.threads[thread as usize]
            .ops
            .iter()
            .filter(|op| op.start_ns >= first)
            .filter_map(|op| match &op.call {
                HostCall::Hip { activities, .. } => Some(activities),
                _ => None,
            })
            .flatten()
            .count() as u64;
        assert_eq!(inside, after_first, "thread {thread}");
    }
    assert_eq!(gt.graphs.values().map(|g| g.launches).sum::<u64>(), 8);
}

#[test]
#[ignore = "tool: SCENARIO_FILES='a.toml b.toml' cargo test -p rocprof-sim --lib print_errors -- --ignored --nocapture"]
fn print_errors() {
    for f in std::env::var("SCENARIO_FILES")
        .unwrap_or_default()
        .split_whitespace()
    {
        match load(std::path::Path::new(f)) {
            Ok(_) => println!("{f}: ok"),
            Err(e) => println!("{e}"),
        }
    }
}

// ---------------------------------------------------------------- HIP event barriers

#[test]
fn barriers_follow_the_event_model_and_violations_are_caught() {
    let plan = load_builtin("two-stream-events.toml");
    let gt = GroundTruth::from_plan(&plan);
    // Every record has a RECORD barrier ending when its event completes; every wait in this
    // scenario waits on a record still pending, so each has a WAIT barrier ending there too.
    for r in &gt.event_records {
        let b = r.barrier.expect("RECORD barrier");
        assert_eq!((b.start_ns, b.end_ns), (r.complete_ns, r.complete_ns));
        assert_eq!((b.gpu, b.queue), (b.source_gpu, b.source_queue));
    }
    for w in &gt.waits {
        let p = w.producer.as_ref().unwrap();
        let b = w.barrier.expect("WAIT barrier");
        assert_eq!(b.end_ns, p.complete_ns.max(b.start_ns));
        let rb = p.barrier.unwrap();
        assert_eq!((b.source_gpu, b.source_queue), (rb.gpu, rb.queue));
        if let Some(c) = &w.consumer {
            assert!(c.start_ns >= b.end_ns, "consumer before its wait barrier");
        }
    }
    // event-reuse: waits on completed or never-recorded events enqueue no barrier.
    let reuse = GroundTruth::from_plan(&load_builtin("event-reuse.toml"));
    assert!(reuse.waits.iter().all(|w| w.barrier.is_none()));
    assert_eq!(reuse.event_records.len(), 2);

    let wait_op = |plan: &Plan| {
        plan.threads[0]
            .ops
            .iter()
            .position(|o| o.barrier.is_some_and(|b| b.op == BarrierOp::Wait))
            .unwrap()
    };
    let mut early_end = plan.clone();
    let i = wait_op(&early_end);
    if let Some(b) = early_end.threads[0].ops[i].barrier.as_mut() {
        b.end_ns -= 1;
    }
    assert!(plan_violations(&early_end)
        .iter()
        .any(|v| v.contains("WAIT barrier")));
    let mut missing = plan.clone();
    let i = wait_op(&missing);
    missing.threads[0].ops[i].barrier = None;
    assert!(plan_violations(&missing)
        .iter()
        .any(|v| v.contains("WAIT barrier None")));
    let mut moved = plan.clone();
    let i = moved.threads[0]
        .ops
        .iter()
        .position(|o| o.barrier.is_some_and(|b| b.op == BarrierOp::Record))
        .unwrap();
    if let Some(b) = moved.threads[0].ops[i].barrier.as_mut() {
        b.start_ns += 1;
    }
    assert!(plan_violations(&moved)
        .iter()
        .any(|v| v.contains("RECORD barrier")));
}

/// Found by the scenario fuzzer (`sim/tests/fuzz_scenario.rs`): `dur_us = 11e91` overflowed the
/// compiler's time arithmetic (a panic in debug builds, a wrapped timeline in release). Every
/// duration is now bounded, with an error naming the field.
#[test]
fn absurd_durations_are_rejected_not_overflowed() {
    let text = HEADER.replace("dur_us = 10", "dur_us = 11e91");
    let e = err(&format!(
        "{text}\n[[threads]]\nname = \"main\"\ncalls = [\n  {{ op = \"launch\", kernel = \"gemm\" }},\n]\n"
    ));
    assert!(e.message.contains("10 s"), "{e}");
    assert!(e.path.contains("dur_us"), "{e}");
    let e = err(&with_calls(
        "  { op = \"launch\", kernel = \"gemm\", dur_us = 1e300 },",
    ));
    assert!(e.message.contains("longer than"), "{e}");
    // The bound itself is accepted.
    let ok = with_calls("  { op = \"launch\", kernel = \"gemm\", dur_us = 1e7 },");
    assert!(parse_str(&ok).is_ok());
}
