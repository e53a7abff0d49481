//! Annotation stacks, scope-range ids and the scope tree, end to end: the built-in scenario
//! `nested-annotations.toml` replayed in the *simulated* rocprofiler-sdk runtime (test
//! infrastructure, no GPU) with the real tool library, for both SDK families, checked against
//! the simulator's ground truth (`plan.scope_instances`) by decoding the XSpace and through real
//! xprof.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rocprof_xplane::xplane::proto::x_stat;
use serde_json::Value;
use support::paths::builtin;
use support::sim::{cached, Run};
use support::xspace::{
    assert_lines_nest, events, host_api_events, kernels, memcpys, plane, Ev, Stat,
};
use support::{u, xprof};

const SDKS: [&str; 2] = ["0.6.0", "1.0.0"];
const TREE_PLANE: &str = "/host:__ScopeRangeCallStack__";

/// With every HIP call traced: the scenario's `hipGetDevice` calls (which the default leaves
/// off the host line) check that a call inside a range left open is still annotated.
fn run(sdk: &str) -> Arc<Run> {
    cached(
        &builtin("nested-annotations.toml"),
        sdk,
        &[("ROCPROF_XPLANE_HIP_API", "all")],
    )
}

/// One push/pop range instance of the ground truth.
struct Instance {
    thread: usize,
    label: String,
    parent: Option<usize>,
    hip_calls: u64,
    kernels: u64,
    copies: u64,
}

fn instances(plan: &Value) -> Vec<Instance> {
    plan["scope_instances"]
        .as_array()
        .expect("truth.scope_instances")
        .iter()
        .map(|i| Instance {
            thread: u(&i["thread"]) as usize,
            label: i["label"].as_str().unwrap().to_string(),
            parent: i["parent"].as_u64().map(|p| p as usize),
            hip_calls: u(&i["counts"]["hip_api_calls"]),
            kernels: u(&i["counts"]["kernel_dispatches"]),
            copies: u(&i["counts"]["memory_copies"]),
        })
        .collect()
}

/// OS thread id of each scenario thread, as the replay reported it.
fn tids(r: &Run) -> Vec<u64> {
    r.truth["replay"]["threads"]
        .as_array()
        .expect("truth.replay.threads")
        .iter()
        .map(u)
        .collect()
}

fn scope_id(e: &Ev<'_>) -> Option<i64> {
    match e.raw_stat("scope_range_id")? {
        x_stat::Value::Int64Value(v) => Some(*v),
        other => panic!("scope_range_id of {:?} is not int64: {other:?}", e.name()),
    }
}

/// The scope id of every truth instance, read from the tool's own range events: on each
/// thread's push/pop roctx line(s), range events in start order are the thread's pushes in
/// order. Checks labels on the way, so ids are mapped without knowing how the tool makes them.
fn scope_ids(r: &Run) -> Vec<i64> {
    let plan = r.plan();
    let inst = instances(plan);
    let marks: BTreeSet<&str> = plan["mark_messages"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let host = plane(&r.space, "/host:CPU");
    let mut ids = vec![0i64; inst.len()];
    for (t, tid) in tids(r).into_iter().enumerate() {
        let line = format!("Host Threads/{tid}/ROCTX");
        let mut ranges: Vec<Ev<'_>> = events(host)
            .into_iter()
            .filter(|e| e.line.name == line || e.line.name.starts_with(&format!("{line} #")))
            .filter(|e| !marks.contains(e.name()))
            .collect();
        ranges.sort_by_key(|e| e.offset_ps());
        let mine: Vec<usize> = (0..inst.len()).filter(|&i| inst[i].thread == t).collect();
        assert_eq!(
            ranges.iter().map(|e| e.name()).collect::<Vec<_>>(),
            mine.iter()
                .map(|&i| inst[i].label.as_str())
                .collect::<Vec<_>>(),
            "range events of thread {t} ({tid}), in push order"
        );
        for (e, i) in ranges.iter().zip(mine) {
            ids[i] = scope_id(e).unwrap_or_else(|| panic!("range {:?} has no scope id", e.name()));
        }
    }
    ids
}

#[test]
fn scope_tree_holds_exactly_the_replayed_nesting() {
    for sdk in SDKS {
        let r = run(sdk);
        let inst = instances(r.plan());
        let ids = scope_ids(&r);
        assert!(ids.iter().all(|&id| id != 0));
        assert_eq!(
            ids.iter().collect::<BTreeSet<_>>().len(),
            ids.len(),
            "{sdk}: a fresh id per push, also for the module executed again under the same name"
        );
        let expected: Vec<(i64, i64)> = {
            let mut v: Vec<(i64, i64)> = inst
                .iter()
                .enumerate()
                .filter_map(|(i, x)| x.parent.map(|p| (ids[i], ids[p])))
                .collect();
            v.sort_unstable();
            v
        };
        let tree = plane(&r.space, TREE_PLANE);
        let mut got: Vec<(i64, i64)> = tree
            .stats
            .iter()
            .map(|s| match s.value {
                Some(x_stat::Value::Int64Value(parent)) => (s.metadata_id, parent),
                ref v => panic!("tree value not int64: {v:?}"),
            })
            .collect();
        got.sort_unstable();
        assert_eq!(got, expected, "{sdk}: child→parent pairs, each once");
        assert_eq!(expected.len(), 33, "the scenario's nested pushes");
        // The stat-metadata id reservation: no stat name can take an id used as a child.
        let max = got.iter().map(|&(c, p)| c.max(p)).max().unwrap();
        assert!(tree.stat_metadata.keys().any(|&k| k >= max), "{sdk}");
    }
}

#[test]
fn every_api_kernel_and_copy_of_a_range_carries_its_innermost_scope_id() {
    for sdk in SDKS {
        let r = run(sdk);
        let inst = instances(r.plan());
        let ids = scope_ids(&r);
        let tid_of = tids(&r);
        let by_id: BTreeMap<i64, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let count = |evs: Vec<Ev<'_>>| -> BTreeMap<Option<usize>, u64> {
            let mut m = BTreeMap::new();
            for e in evs {
                let inst_of = scope_id(&e).map(|id| {
                    *by_id.get(&id).unwrap_or_else(|| {
                        panic!("{sdk}: {:?} has unknown scope id {id}", e.name())
                    })
                });
                *m.entry(inst_of).or_insert(0) += 1;
            }
            m
        };
        let expect = |f: &dyn Fn(&Instance) -> u64, total: u64| {
            let mut m: BTreeMap<Option<usize>, u64> = inst
                .iter()
                .enumerate()
                .filter(|(_, x)| f(x) > 0)
                .map(|(i, x)| (Some(i), f(x)))
                .collect();
            let inside: u64 = m.values().sum();
            if total > inside {
                m.insert(None, total - inside);
            }
            m
        };
        let totals = &r.plan()["totals"];
        assert_eq!(
            count(kernels(&r.space)),
            expect(&|x| x.kernels, u(&totals["kernel_dispatches"])),
            "{sdk}: kernels per innermost range"
        );
        assert_eq!(
            count(memcpys(&r.space)),
            expect(&|x| x.copies, u(&totals["memory_copies"])),
            "{sdk}: copies per innermost range"
        );
        assert_eq!(
            count(host_api_events(&r.space)),
            expect(&|x| x.hip_calls, u(&totals["hip_api_calls"])),
            "{sdk}: HIP API events per innermost range"
        );
        // Threads never mix: a call carries only scope ids of ranges of its own thread.
        for e in host_api_events(&r.space) {
            if let Some(id) = scope_id(&e) {
                let tid = tid_of[inst[by_id[&id]].thread];
                assert_eq!(e.line.id, tid as i64, "{sdk}: {:?}", e.name());
            }
        }
        // Each dispatch of a graph launch carries the launch's scope id.
        let launch_scope: BTreeMap<u64, Option<i64>> = host_api_events(&r.space)
            .into_iter()
            .filter(|e| e.name() == "hipGraphLaunch")
            .map(|e| (e.correlation_id().unwrap(), scope_id(&e)))
            .collect();
        assert_eq!(launch_scope.len(), 3, "{sdk}");
        let mut graph_kernels = 0;
        for k in kernels(&r.space) {
            if let Some(want) = k.correlation_id().and_then(|c| launch_scope.get(&c)) {
                assert_eq!(&scope_id(&k), want, "{sdk}: {}", k.name());
                assert!(want.is_some());
                graph_kernels += 1;
            }
        }
        assert_eq!(
            graph_kernels,
            u(&totals["graph_kernel_dispatches"]),
            "{sdk}"
        );
    }
}

fn str_stat(e: &Ev<'_>, name: &str) -> Option<String> {
    e.stat(name).and_then(|s| s.as_str().map(str::to_owned))
}

fn kernels_named<'a>(r: &'a Run, name: &str) -> Vec<Ev<'a>> {
    let ks: Vec<Ev<'a>> = kernels(&r.space)
        .into_iter()
        .filter(|k| k.name() == name)
        .collect();
    assert!(!ks.is_empty(), "no kernel {name}");
    ks
}

#[test]
fn annotation_texts_become_typed_stats() {
    for sdk in SDKS {
        let r = run(sdk);
        // XLA-style, four levels: step (plain) → XlaModule → Thunk → sub-op.
        for k in kernels_named(&r, "fusion_1_gemm") {
            assert_eq!(
                str_stat(&k, "tf_op").as_deref(),
                Some("XlaModule:"),
                "{sdk}"
            );
            assert_eq!(
                str_stat(&k, "hlo_module").as_deref(),
                Some("jit_train_step")
            );
            assert_eq!(str_stat(&k, "hlo_op").as_deref(), Some("fusion.1"));
            assert_eq!(k.stat("program_id"), Some(Stat::I64(42)));
            assert_eq!(k.stat("unique_hlo_op_id"), Some(Stat::I64(1)));
            assert_eq!(str_stat(&k, "name").as_deref(), Some("dot_general"));
            assert_eq!(k.stat("algo"), Some(Stat::I64(3)), "innermost sub-op level");
            assert_eq!(k.stat("alpha"), Some(Stat::F64(1.5)));
            assert!(str_stat(&k, "nvtx_range")
                .unwrap()
                .starts_with("train step "));
        }
        for k in kernels_named(&r, "attn_qk") {
            assert_eq!(str_stat(&k, "hlo_op").as_deref(), Some("fusion.1"), "{sdk}");
            assert_eq!(
                k.stat("algo"),
                None,
                "the graph launch is outside the sub-op"
            );
        }
        let passes: BTreeSet<i64> = kernels_named(&r, "reduce_pass")
            .iter()
            .map(|k| match k.stat("pass") {
                Some(Stat::I64(p)) => p,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(passes, BTreeSet::from([1, 2]));
        let k = &kernels_named(&r, "reduce_pass")[0];
        assert_eq!(
            str_stat(k, "shape").as_deref(),
            Some("\"f32[8,128]\""),
            "quoted commas kept"
        );
        // PyTorch emit_nvtx texts: op names whole, fields typed, innermost first.
        for k in kernels_named(&r, "gemm_f16") {
            assert_eq!(
                str_stat(&k, "tf_op").as_deref(),
                Some("aten::linear"),
                "{sdk}"
            );
            assert_eq!(
                k.stat("op_id"),
                Some(Stat::I64(13)),
                "aten::mm is innermost"
            );
            assert_eq!(
                str_stat(&k, "sizes").as_deref(),
                Some("[[8, 16], [16, 32]]")
            );
            assert_eq!(str_stat(&k, "input_op_ids").as_deref(), Some("[(10,0)]"));
            assert!(matches!(k.stat("seq"), Some(Stat::I64(0 | 1))));
            assert!(matches!(
                k.stat("external_correlation_id"),
                Some(Stat::U64(500 | 501))
            ));
        }
        for k in kernels_named(&r, "relu_fwd") {
            assert_eq!(str_stat(&k, "tf_op").as_deref(), Some("aten::relu"));
        }
        // Hostile labels: the apostrophe outside the XLA levels swallows nothing.
        let k = &kernels_named(&r, "fusion_9")[0];
        assert_eq!(str_stat(k, "tf_op").as_deref(), Some("XlaModule:"), "{sdk}");
        assert_eq!(str_stat(k, "hlo_module").as_deref(), Some("jit_eval"));
        assert_eq!(str_stat(k, "hlo_op").as_deref(), Some("fusion.9"));
        assert_eq!(
            str_stat(k, "nvtx_range").as_deref(),
            Some("don't::XlaModule:#hlo_module=jit_eval,program_id=7#::Thunk:#hlo_op=fusion.9#")
        );
        let d2h: Vec<Ev<'_>> = memcpys(&r.space)
            .into_iter()
            .filter(|m| m.name() == "MemcpyDToH")
            .collect();
        assert_eq!(
            str_stat(&d2h[0], "nvtx_range").as_deref(),
            Some("评估 – eval [CJK, en dash")
        );
        assert_eq!(
            str_stat(&d2h[0], "tf_op"),
            None,
            "plain labels give no tf_op"
        );
        let host = plane(&r.space, "/host:CPU");
        let names: BTreeSet<&str> = events(host).iter().map(|e| e.name()).collect();
        for label in ["checkpoint – 保存", "评估 – eval [CJK, en dash", "don't"] {
            assert!(names.contains(label), "{sdk}: {label}");
        }
    }
}

#[test]
fn roctx_lines_nest_and_start_stop_ranges_have_their_own() {
    for sdk in SDKS {
        let r = run(sdk);
        assert_lines_nest(&r.space, sdk);
        let t = tids(&r);
        let host = plane(&r.space, "/host:CPU");
        let on = |line: String| -> Vec<&str> {
            let mut v: Vec<&str> = events(host)
                .into_iter()
                .filter(|e| e.line.name == line)
                .map(|e| e.name())
                .collect();
            v.sort_unstable();
            v
        };
        // Started on "jax", stopped on "io": on the starting thread's range line.
        assert_eq!(
            on(format!("Host Threads/{}/ROCTX ranges", t[0])),
            ["epoch 0"],
            "{sdk}"
        );
        // Two start/stop ranges that partially overlap each other and the push/pop ranges.
        assert_eq!(
            on(format!("Host Threads/{}/ROCTX ranges", t[2])),
            ["prefetch A"]
        );
        assert_eq!(
            on(format!("Host Threads/{}/ROCTX ranges #1", t[2])),
            ["prefetch B"]
        );
        // Still open at the end: closed at the end and marked.
        let open: Vec<Ev<'_>> = events(host)
            .into_iter()
            .filter(|e| e.name() == "left open")
            .collect();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].stat("open_at_end"), Some(Stat::I64(1)), "{sdk}");
        assert!(
            r.space
                .warnings
                .iter()
                .any(|w| w.contains("1 roctx ranges were still open")),
            "{sdk}: {:?}",
            r.space.warnings
        );
        let closed = events(host)
            .into_iter()
            .filter(|e| e.stat("open_at_end").is_some())
            .count();
        assert_eq!(closed, 1, "{sdk}: only the range left open is marked");
        // `rocprof-xplane inspect` counts every roctx line's events as markers.
        let counts = &support::cli::inspect_json(&r.files[0])["event_counts"];
        let m = &r.plan()["markers"];
        let roctx_events = instances(r.plan()).len() as u64 + u(&m["mark"]) + u(&m["range_start"]);
        assert_eq!(
            (u(&counts["markers"]), u(&counts["other"])),
            (roctx_events, 0),
            "{sdk}: {counts}"
        );
    }
}

/// The stream line (id) holding kernel `name`.
fn line_of(r: &Run, name: &str) -> i64 {
    kernels_named(r, name)[0].line.id
}

/// Number of instances whose label starts with `prefix` and that have kernels in their subtree.
fn instances_with_kernels(inst: &[Instance], thread: usize, prefix: &str) -> u64 {
    let mut subtree = vec![0u64; inst.len()];
    for i in (0..inst.len()).rev() {
        subtree[i] += inst[i].kernels;
        if let Some(p) = inst[i].parent {
            subtree[p] += subtree[i];
        }
    }
    (0..inst.len())
        .filter(|&i| {
            inst[i].thread == thread && inst[i].label.starts_with(prefix) && subtree[i] > 0
        })
        .count() as u64
}

fn derived(summary: &Value, process: &str, row: &str) -> (u64, BTreeMap<String, u64>) {
    let d = &summary["trace"]["derived_lines"][process][row];
    let names = d["names"]
        .as_object()
        .unwrap_or_else(|| {
            panic!(
                "no derived row {row:?} in {process:?}: {}",
                summary["trace"]["derived_lines"]
            )
        })
        .iter()
        .map(|(k, v)| (k.clone(), u(v)))
        .collect();
    (u(&d["events"]), names)
}

#[test]
fn real_xprof_derives_xla_and_framework_lines_per_stream() {
    if !xprof::available() {
        return;
    }
    for sdk in SDKS {
        let r = run(sdk);
        let inst = instances(r.plan());
        let file = &r.files[0];
        let host = support::paths::host_of(file);
        let s = xprof::summary(file, &host);
        assert_eq!(s["errors"], serde_json::json!({}), "{sdk}");
        let gpu = format!("{host} /device:GPU:0");
        let (xla, io, torch) = (
            line_of(&r, "fusion_1_gemm"),
            line_of(&r, "fusion_9"),
            line_of(&r, "gemm_f16"),
        );

        // The module executed three times under one name: three separate events.
        let (n, names) = derived(&s, &gpu, &format!("XLA Modules - from #{xla}"));
        assert_eq!(n, instances_with_kernels(&inst, 0, "XlaModule:"), "{sdk}");
        assert_eq!(names, BTreeMap::from([("jit_train_step(42)".into(), 3)]));
        let (n, names) = derived(&s, &gpu, &format!("XLA Ops - from #{xla}"));
        assert_eq!(n, instances_with_kernels(&inst, 0, "Thunk:"), "{sdk}");
        assert_eq!(
            names,
            BTreeMap::from([("fusion.1".into(), 3), ("reduce.3".into(), 3)])
        );
        let (n, _) = derived(&s, &gpu, &format!("XLA Modules - from #{io}"));
        assert_eq!(n, instances_with_kernels(&inst, 2, "XlaModule:"));
        let (n, _) = derived(&s, &gpu, &format!("XLA Ops - from #{io}"));
        assert_eq!(n, instances_with_kernels(&inst, 2, "Thunk:"));
        // PyTorch ops: Framework Ops from `tf_op` (outermost op of each kernel).
        let (n, names) = derived(&s, &gpu, &format!("Framework Ops - from #{torch}"));
        assert_eq!(
            names,
            BTreeMap::from([("aten::linear".into(), 2), ("aten::relu".into(), 2)]),
            "{sdk}"
        );
        assert_eq!(n, 4);

        let ops: BTreeSet<String> = s["kernel_stats"]["op_names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        // XLA-labelled kernels are named by their `hlo_op`, through the placeholder module of
        // their program (`xplane::hlo`).
        for op in ["aten::linear", "aten::relu", "fusion.1", "reduce.3"] {
            assert!(ops.contains(op), "{sdk}: kernel_stats op names {ops:?}");
        }
        let fw = &s["framework_op_stats"]["device_ops"];
        for (op, n) in [("aten::linear", 2), ("aten::relu", 2), ("aten::to", 2)] {
            assert_eq!(fw[op].as_u64(), Some(n), "{sdk}: framework_op_stats {fw}");
        }
    }
}

/// Negative control: the same file without scope ids and without the tree plane. xprof then
/// merges the three back-to-back invocations of the identically named module into one event —
/// the scope-range tree is what keeps repeated invocations apart.
#[test]
fn without_the_scope_tree_xprof_merges_repeated_module_invocations() {
    if !xprof::available() {
        return;
    }
    use prost::Message;
    let r = run("1.0.0");
    let mut stripped = r.space.clone();
    stripped.planes.retain(|p| p.name != TREE_PLANE);
    for p in &mut stripped.planes {
        let Some(sid) = p
            .stat_metadata
            .values()
            .find(|m| m.name == "scope_range_id")
            .map(|m| m.id)
        else {
            continue;
        };
        for l in &mut p.lines {
            for e in &mut l.events {
                e.stats.retain(|st| st.metadata_id != sid);
            }
        }
    }
    let host = support::paths::host_of(&r.files[0]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{host}.xplane.pb"));
    std::fs::write(&file, stripped.encode_to_vec()).unwrap();
    let s = xprof::summary(&file, &host);
    let xla = line_of(&r, "fusion_1_gemm");
    let (n, names) = derived(
        &s,
        &format!("{host} /device:GPU:0"),
        &format!("XLA Modules - from #{xla}"),
    );
    assert_eq!(names, BTreeMap::from([("jit_train_step(42)".into(), 1)]));
    assert_eq!(n, 1, "without scope ids the three invocations merge");
}

/// The same derived lines from a real XLA ROCm file (JAX 0.8 / ROCm 7.1.1 on MI355X, recorded by
/// others): module events are named `<hlo_module>(<program_id>)` as ours are, and its module,
/// run 5 times, comes out as ONE `XLA Modules` event — that file predates ROCm scope tracking
/// and has no scope ids, which is what ours add.
#[test]
fn real_xla_file_through_xprof_for_comparison() {
    if !xprof::available() {
        return;
    }
    let dir = support::paths::real_testdata().join("xla-xplane-mi355x");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".xplane.pb"))
        .expect("the real MI355X file");
    let host = support::paths::host_of(&file);
    let s = xprof::summary(&file, &host);
    let gpu = format!("{host} /device:GPU:0");
    let rows = s["trace"]["derived_lines"][&gpu].as_object().unwrap();
    let row = |prefix: &str| {
        let (name, _) = rows
            .iter()
            .find(|(r, _)| r.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} row: {:?}", rows.keys()));
        derived(&s, &gpu, name)
    };
    let (modules, names) = row("XLA Modules - from #");
    assert_eq!(names, BTreeMap::from([("jit_loss_fn(17)".into(), 1)]));
    assert_eq!(modules, 1);
    let (_, ops) = row("XLA Ops - from #");
    assert!(
        ops.values().all(|&n| n == 5),
        "each op ran 5 times: {ops:?}"
    );
    // Host launch events carry the annotation's tf_op, as ours do.
    assert_eq!(
        s["framework_op_stats"]["host_ops"]["XlaModule"].as_u64(),
        Some(150)
    );
}
