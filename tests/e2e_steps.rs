//! The pages of xprof a user reads first, through **real xprof** (PyPI `xprof`, pinned, its
//! offline conversion API, never its server) on what the tool wrote inside the simulated
//! runtime (test infrastructure, not hardware):
//!
//! * steps — xprof groups work into steps only from a step root on the `/host:CPU` line that
//!   holds the launches; the tool writes one for every roctx range that is a step (TraceMe
//!   text with `_r`/`step_num`, PyTorch's `ProfilerStep#N`, or the `STEP_RANGE` rule), and the
//!   overview page, input pipeline and pod viewer then show the simulator's steps: their count
//!   and their time (each step's span on its GPU, as the ground truth computes it from the
//!   scenario: `scope_instances[].enclosed`);
//! * graphs — `cuda_graph_id` on a graph launch's work gives xprof's "Command Buffers" row,
//!   one event per `hipGraphLaunch`;
//! * device facts — roofline_model's peak is our `peak_teraflops_per_second`, and perf_counters
//!   takes our GPU planes (they carry `device_id`);
//! * a four-rank job in one run directory — pod_viewer lists four hosts with their steps.

mod support;

use prost::Message;
use rocprof_xplane::xplane::proto::{x_stat, XEvent, XEventMetadata, XLine, XStat, XStatMetadata};
use serde_json::Value;
use support::paths::{builtin, host_of, profiles};
use support::sim::{cached, Run};
use support::truth::truth_calls_with_activity;
use support::u;
use support::xprof;
use support::xspace::{device_planes, plane_stats, Stat};

/// The truth's step ranges: the outermost roctx ranges whose label `is_step` accepts, with
/// their host start and their span on the GPU, ordered by start.
struct TruthStep {
    label: String,
    push_ns: u64,
    device_ms: f64,
}

fn truth_steps(plan: &Value, is_step: impl Fn(&str) -> bool) -> Vec<TruthStep> {
    let mut steps: Vec<TruthStep> = plan["scope_instances"]
        .as_array()
        .expect("truth.scope_instances")
        .iter()
        .filter(|i| is_step(i["label"].as_str().unwrap()))
        .map(|i| {
            let e = &i["enclosed"];
            TruthStep {
                label: i["label"].as_str().unwrap().to_string(),
                push_ns: u(&i["push_ns"]),
                device_ms: (u(&e["device_end_ns"]) - u(&e["device_start_ns"])) as f64 / 1e6,
            }
        })
        .collect();
    steps.sort_by_key(|s| s.push_ns);
    steps
}

/// The steps xprof's overview page and input pipeline list: with more than five steps it
/// leaves out the first and the last (`ConvertStepEventsToStepDb`, xprof's
/// `step_events_to_steps_db.cc`: the first and last may be cut by the profile's ends); its
/// step numbers are its groups, in root start order (`SortRootEventList` in XLA's
/// `group_events.cc`).
fn overview_kept(steps: &[TruthStep]) -> &[TruthStep] {
    if steps.len() > 5 {
        &steps[1..steps.len() - 1]
    } else {
        steps
    }
}

fn is_train_loop_step(label: &str) -> bool {
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    label
        .strip_prefix("train#step_num=")
        .and_then(|r| r.strip_suffix(",_r=1#"))
        .is_some_and(number)
        || label.strip_prefix("ProfilerStep#").is_some_and(number)
}

fn mean(v: impl IntoIterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.into_iter().collect();
    v.iter().sum::<f64>() / v.len() as f64
}

fn f(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a number: {v}"))
}

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want.abs()
}

/// xprof's views of the run's only file, without conversion errors.
fn views(r: &Run) -> Value {
    let v = xprof::views(&r.files[0]);
    assert_eq!(
        v["errors"],
        serde_json::json!({}),
        "xprof conversion errors"
    );
    v
}

/// Trace-viewer rows of GPU `gpu` (derived ones included) with their event counts.
fn gpu_rows<'a>(v: &'a Value, r: &Run, gpu: u32) -> &'a serde_json::Map<String, Value> {
    let process = format!("{} /device:GPU:{gpu}", host_of(&r.files[0]));
    v["rows"][&process]
        .as_object()
        .unwrap_or_else(|| panic!("no process {process:?} in {:?}", v["rows"]))
}

/// Events of the derived row whose name starts with `prefix` (`Command Buffers - from #0`).
fn row_events(rows: &serde_json::Map<String, Value>, prefix: &str) -> u64 {
    rows.iter()
        .filter(|(name, _)| name.starts_with(prefix))
        .map(|(_, n)| u(n))
        .sum()
}

/// The overview page, input pipeline and pod viewer show the truth's steps: the overview's
/// count and mean step time (±1 %) are the kept steps', every pod-viewer step time is a
/// truth step's span (±1 %), and the input pipeline lists the overview's steps.
fn check_steps(v: &Value, steps: &[TruthStep], what: &str) {
    let kept = overview_kept(steps);
    let overview = v["overview"]["steps"].as_array().unwrap();
    assert_eq!(overview.len(), kept.len(), "{what}: overview steps");
    let want = mean(kept.iter().map(|s| s.device_ms));
    let got = mean(overview.iter().map(|s| f(&s["step_ms"])));
    assert!(
        close(got, want, 0.01),
        "{what}: overview mean step time {got} ms, truth {want} ms"
    );
    // The page's own average is rounded to 0.1 ms.
    let shown = f(&v["overview"]["p"]["steptime_ms_average"]);
    assert!(
        (shown - want).abs() <= 0.05 + 0.01 * want,
        "{what}: overview average {shown} ms, truth {want} ms"
    );
    let compute = f(&v["overview"]["p"]["device_compute_time_ms_avg"]);
    assert!(compute > 0.0, "{what}: device compute time {compute}");
    let numbers = |s: &Value| -> Vec<String> {
        s.as_array()
            .unwrap()
            .iter()
            .map(|x| x["step"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        numbers(&v["input_pipeline"]["steps"]),
        numbers(&v["overview"]["steps"]),
        "{what}: input pipeline steps"
    );
    let pod = &v["pod_viewer"];
    assert_eq!(
        u(&pod["steps"]),
        steps.len() as u64,
        "{what}: pod viewer steps"
    );
    let mut got: Vec<f64> = pod["hosts"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|h| h.as_array().unwrap())
        .map(|s| f(&s[1]) / 1e3)
        .collect();
    let mut want: Vec<f64> = steps.iter().map(|s| s.device_ms).collect();
    got.sort_by(f64::total_cmp);
    want.sort_by(f64::total_cmp);
    assert_eq!(got.len(), want.len(), "{what}: pod viewer step times");
    for (g, w) in got.iter().zip(&want) {
        assert!(close(*g, *w, 0.01), "{what}: pod step {g} ms vs {w} ms");
    }
}

/// One launch arrow per call with device work, as without steps (the step roots carry no
/// `correlation_id`, so they add none and take none away).
fn check_launch_arrows(v: &Value, r: &Run, what: &str) {
    let calls: u64 = truth_calls_with_activity(r.plan())
        .values()
        .flat_map(|per| per.values())
        .sum();
    assert_eq!(
        u(&v["complete_flows"]["gpu_launch"]),
        calls,
        "{what}: launch arrows"
    );
}

#[test]
fn train_loop_steps_in_xprof_equal_the_ground_truth() {
    if !xprof::available() {
        return;
    }
    for sdk in ["0.6.0", "1.4.0"] {
        let r = cached(&builtin("train-loop.toml"), sdk, &[]);
        let what = format!("train-loop {sdk}");
        let v = views(&r);
        let steps = truth_steps(r.plan(), is_train_loop_step);
        assert_eq!(
            steps.len(),
            14,
            "{what}: {:?}",
            steps.iter().map(|s| &s.label).collect::<Vec<_>>()
        );
        check_steps(&v, &steps, &what);
        check_launch_arrows(&v, &r, &what);
        // Each GPU's `Steps` row holds its loop's steps; `Launch Stats` is there too.
        for (gpu, n) in [(0, 8), (1, 6)] {
            let rows = gpu_rows(&v, &r, gpu);
            assert_eq!(
                rows.get("Steps").map(u),
                Some(n),
                "{what}: GPU {gpu} rows {rows:?}"
            );
            assert!(
                rows.contains_key("Launch Stats"),
                "{what}: GPU {gpu} rows {rows:?}"
            );
        }
        // The forward pass is one hipGraphLaunch per step: one command buffer each where the
        // SDK reports graph ids (1.3.0+), none where it reports none.
        let buffers = row_events(gpu_rows(&v, &r, 0), "Command Buffers");
        assert_eq!(
            buffers,
            if sdk == "1.4.0" { 8 } else { 0 },
            "{what}: command buffers"
        );
    }
}

/// The truth's device work per XLA op of the JAX loop: each `Thunk:#hlo_op=<op>#` range's
/// enclosed kernels and copies, summed per op.
fn truth_xla_ops(plan: &Value) -> std::collections::BTreeMap<String, u64> {
    let mut ops = std::collections::BTreeMap::new();
    for i in plan["scope_instances"]
        .as_array()
        .expect("truth.scope_instances")
    {
        let label = i["label"].as_str().unwrap();
        let Some(op) = label
            .strip_prefix("Thunk:#hlo_op=")
            .and_then(|r| r.strip_suffix('#'))
        else {
            continue;
        };
        let e = &i["enclosed"];
        *ops.entry(op.to_string()).or_insert(0) +=
            u(&e["kernel_dispatches"]) + u(&e["memory_copies"]);
    }
    ops
}

/// A step range is the loop around the ops, never their op: in xprof's kernel_stats each
/// kernel is named by its op — the PyTorch loop's by their `aten::` op, the JAX loop's by the
/// XLA op its `Thunk:` range names (through the placeholder HLO modules), the optimizer's
/// (inside the plain `Optimizer.step#Adam.step`, no op) by none — and
/// framework_op_stats names the host calls by the XLA level inside `train#step_num=N,_r=1#`,
/// never by a step.
#[test]
fn kernel_stats_name_the_ops_inside_a_step_not_the_step() {
    if !xprof::available() {
        return;
    }
    for sdk in ["0.6.0", "1.4.0"] {
        let r = cached(&builtin("train-loop.toml"), sdk, &[]);
        let s = xprof::summary(&r.files[0], &host_of(&r.files[0]));
        let ops: Vec<&str> = s["kernel_stats"]["op_names"]
            .as_array()
            .unwrap_or_else(|| panic!("{sdk}: no kernel_stats in {s}"))
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            ops,
            [
                "",
                "aten::linear",
                "aten::mse_loss",
                "aten::relu",
                "command_buffer.2",
                "fusion.3",
                "fusion.4"
            ],
            "{sdk}: kernel_stats op names"
        );
        let host: Vec<&String> = s["framework_op_stats"]["host_ops"]
            .as_object()
            .unwrap_or_else(|| panic!("{sdk}: no framework_op_stats in {s}"))
            .keys()
            .collect();
        assert_eq!(
            host,
            [
                "XlaModule",
                "aten::linear",
                "aten::mse_loss",
                "aten::relu",
                "aten::to"
            ],
            "{sdk}: framework_op_stats host ops"
        );
    }
}

/// Kernels labelled by XLA's TraceMe texts reach xprof's op tools through the placeholder HLO
/// modules of `/host:metadata` (`xplane::hlo`): op_profile lists the JAX loop's program as
/// `jit_train_step(7)` with each `hlo_op` under `custom-call`, hlo_stats and
/// framework_op_stats list each op with as many occurrences as the simulator ran kernels and
/// copies under it — for the file written whole, for capture windows merged at exit
/// (`WINDOW_MERGE`) and for windows written apart and merged by `rocprof-xplane merge`.
#[test]
fn op_tools_list_the_xla_ops_of_a_run_without_xlas_hlo() {
    if !xprof::available() {
        return;
    }
    let scenario = builtin("train-loop.toml");
    let whole = cached(&scenario, "1.4.0", &[]);
    let want = truth_xla_ops(whole.plan());
    assert_eq!(want.len(), 5, "{want:?}");
    // Paced in wall time (a cut follows its range's end within 10 ms: 0.2 ms of the run), so
    // that a window ends where the program is: after each `copy.1` of the JAX loop, before
    // the step's other ops ran on the GPU.
    let tmp = tempfile::tempdir().unwrap();
    let paced = tmp.path().join("train-loop-paced.toml");
    let text = std::fs::read_to_string(&scenario).unwrap();
    assert!(text.contains("[delivery]\n"));
    std::fs::write(
        &paced,
        text.replace("[delivery]\n", "[delivery]\nreal_time = 50\n"),
    )
    .unwrap();
    let windowed = |merge: &str| {
        let dir = tmp.path().join(format!("merge{merge}"));
        let out = support::sim::Direct::new(&paced, "1.4.0")
            .env("ROCP_TOOL_LIBRARIES", support::paths::tool_library())
            .env("ROCPROF_XPLANE_OUTPUT_DIR", &dir)
            .env("ROCPROF_XPLANE_RUN_NAME", "w")
            .env("ROCPROF_XPLANE_WINDOW_RANGE", "Thunk:#hlo_op=copy.1#")
            .env("ROCPROF_XPLANE_WINDOW_MERGE", merge)
            .output();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        // A graph's dispatches delivered behind later work, windows after their call's, keep
        // their labels (`model::carry::CONTEXT_NS`, seconds of the tool's clock however many
        // windows, so a loaded machine that delays delivery does not lose them): none is
        // written without its call's launch facts.
        assert!(!stderr.contains("launch facts"), "merge {merge}: {stderr}");
        (dir, stderr)
    };
    let (at_exit, stderr) = windowed("1");
    assert!(stderr.contains("rocprof-xplane: merged "), "{stderr}");
    let (apart, _) = windowed("0");
    // The windows cut the loop: the first holds only some of the program's ops, which the
    // merge completes from the others.
    let mut window_runs: Vec<String> = std::fs::read_dir(apart.join("plugins/profile"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("w_w"))
        .collect();
    window_runs.sort();
    assert!(window_runs.len() > 1, "{window_runs:?}");
    let first = support::paths::profiles(&apart, &window_runs[0]);
    let first_ops = xprof::views(&first[0])["hlo_stats"]
        .as_array()
        .map_or(0, |rows| {
            rows.iter().filter(|r| r["program_id"] == "7").count()
        });
    assert!(first_ops < want.len(), "first window holds {first_ops} ops");
    support::cli::merge(&apart, "w");
    let files = [
        ("whole", whole.files[0].clone()),
        (
            "merged at exit",
            support::paths::profiles(&at_exit, "w")[0].clone(),
        ),
        (
            "merged apart",
            support::paths::profiles(&apart, "w")[0].clone(),
        ),
    ];
    for (what, file) in files {
        let v = xprof::views(&file);
        assert_eq!(v["errors"], serde_json::json!({}), "{what}: xprof errors");
        let program = &v["op_profile"]["jit_train_step(7)"];
        let listed: Vec<&String> = program["custom-call"]
            .as_object()
            .unwrap_or_else(|| panic!("{what}: op_profile {}", v["op_profile"]))
            .keys()
            .collect();
        assert_eq!(
            listed,
            want.keys().collect::<Vec<_>>(),
            "{what}: op_profile"
        );
        let hlo: std::collections::BTreeMap<String, u64> = v["hlo_stats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["program_id"] == "7")
            .map(|r| {
                assert_eq!(r["category"], "custom-call", "{what}: {r}");
                (
                    r["name"].as_str().unwrap().to_string(),
                    f(&r["occurrences"]) as u64,
                )
            })
            .collect();
        assert_eq!(hlo, want, "{what}: hlo_stats");
        for (op, n) in &want {
            assert_eq!(
                v["framework_op_stats"]["device_ops"][op].as_u64(),
                Some(*n),
                "{what}: framework_op_stats {op}"
            );
        }
    }
}

/// Plain ranges are steps when the user's rule names them: graph-launch's `decode step {i}`
/// with `ROCPROF_XPLANE_STEP_RANGE='decode step *'`. Without a rule such ranges stay ranges:
/// nothing is guessed. Either way its 20 `hipGraphLaunch`es are 20 command buffers.
#[test]
fn the_step_range_rule_makes_steps_of_plain_ranges() {
    if !xprof::available() {
        return;
    }
    let scenario = builtin("graph-launch.toml");
    let rule = [("ROCPROF_XPLANE_STEP_RANGE", "decode step *")];
    for (env, with_rule) in [(&rule[..], true), (&[][..], false)] {
        let r = cached(&scenario, "1.4.0", env);
        let what = format!("graph-launch, rule {with_rule}");
        let v = views(&r);
        let rows = gpu_rows(&v, &r, 0);
        assert_eq!(row_events(rows, "Command Buffers"), 20, "{what}: {rows:?}");
        check_launch_arrows(&v, &r, &what);
        if with_rule {
            let steps = truth_steps(r.plan(), |l| l.starts_with("decode step "));
            assert_eq!(steps.len(), 20);
            check_steps(&v, &steps, &what);
        } else {
            assert_eq!(v["overview"]["steps"], serde_json::json!([]), "{what}");
            assert_eq!(u(&v["pod_viewer"]["steps"]), 0, "{what}");
            assert!(!rows.contains_key("Steps"), "{what}: {rows:?}");
        }
    }
}

/// roofline_model's peak FLOP rate is the `peak_teraflops_per_second` we write; perf_counters
/// takes our GPU planes: a counter event on each (as a rocprofiler counter would be written)
/// gives one row per GPU, numbered by our `device_id` plane stat — and none without that stat.
#[test]
fn roofline_and_perf_counters_read_our_device_planes() {
    if !xprof::available() {
        return;
    }
    let r = cached(&builtin("train-loop.toml"), "1.0.0", &[]);
    let v = views(&r);
    for p in device_planes(&r.space) {
        let stats = plane_stats(p);
        assert!(
            matches!(stats.get("device_id"), Some(Stat::I64(_))),
            "{}: {stats:?}",
            p.name
        );
    }
    let peak = match plane_stats(device_planes(&r.space)[0]).get("peak_teraflops_per_second") {
        Some(Stat::F64(t)) => *t,
        other => panic!("peak_teraflops_per_second: {other:?}"),
    };
    let shown = f(&v["roofline"]["peak_flop_rate"]);
    assert!(
        close(shown, peak * 1e3, 1e-4),
        "roofline peak {shown} GFLOP/s, ours {peak} TFLOP/s"
    );
    // xprof's own table gives an MI300X the same figure, so the stat is shown to be what
    // the roofline reads by a copy whose stat says half: the roofline follows it.
    let tmp = tempfile::tempdir().unwrap();
    let mut halved = r.space.clone();
    for p in halved
        .planes
        .iter_mut()
        .filter(|p| p.name.starts_with("/device:GPU:"))
    {
        let id = stat_metadata_id(p, "peak_teraflops_per_second");
        for st in p.stats.iter_mut().filter(|st| st.metadata_id == id) {
            st.value = Some(x_stat::Value::DoubleValue(peak / 2.0));
        }
    }
    let file = tmp.path().join("halved.xplane.pb");
    std::fs::write(&file, halved.encode_to_vec()).unwrap();
    let shown = f(&xprof::views(&file)["roofline"]["peak_flop_rate"]);
    assert!(
        close(shown, peak / 2.0 * 1e3, 1e-4),
        "roofline peak {shown} GFLOP/s from a stat of {} TFLOP/s",
        peak / 2.0
    );

    for (keep_device_id, want_rows) in [(true, 2usize), (false, 0)] {
        let mut space = r.space.clone();
        for p in space
            .planes
            .iter_mut()
            .filter(|p| p.name.starts_with("/device:GPU:"))
        {
            add_counter_sample(p, "SQ_WAVES", 4096);
            if !keep_device_id {
                let id = stat_metadata_id(p, "device_id");
                p.stats.retain(|s| s.metadata_id != id);
            }
        }
        let file = tmp
            .path()
            .join(format!("counters-{keep_device_id}.xplane.pb"));
        std::fs::write(&file, space.encode_to_vec()).unwrap();
        let got = xprof::views(&file);
        let rows = got["perf_counters"].as_array().unwrap();
        assert_eq!(
            rows.len(),
            want_rows,
            "device_id {keep_device_id}: {rows:?}"
        );
        let mut chips: Vec<u64> = rows.iter().map(|row| f(&row["Chip"]) as u64).collect();
        chips.sort();
        if keep_device_id {
            assert_eq!(chips, [0, 1]);
            assert!(rows.iter().all(|row| row["Counter"] == "sq_waves"));
        }
    }
}

fn stat_metadata_id(p: &rocprof_xplane::xplane::proto::XPlane, name: &str) -> i64 {
    p.stat_metadata
        .values()
        .find(|m| m.name == name)
        .map(|m| m.id)
        .unwrap_or_else(|| panic!("{}: no stat {name:?}", p.name))
}

/// One event named `counter` with `counter_value` on a line of its own.
fn add_counter_sample(p: &mut rocprof_xplane::xplane::proto::XPlane, counter: &str, value: u64) {
    let next = |keys: &mut dyn Iterator<Item = i64>| keys.max().unwrap_or(0) + 1;
    let event_id = next(&mut p.event_metadata.keys().copied());
    p.event_metadata.insert(
        event_id,
        XEventMetadata {
            id: event_id,
            name: counter.to_string(),
            ..Default::default()
        },
    );
    let stat_id = next(&mut p.stat_metadata.keys().copied());
    p.stat_metadata.insert(
        stat_id,
        XStatMetadata {
            id: stat_id,
            name: "counter_value".to_string(),
            ..Default::default()
        },
    );
    let line_id = next(&mut p.lines.iter().map(|l| l.id));
    p.lines.push(XLine {
        id: line_id,
        name: "Counters".to_string(),
        events: vec![XEvent {
            metadata_id: event_id,
            data: Some(rocprof_xplane::xplane::proto::x_event::Data::OffsetPs(
                1_000_000,
            )),
            duration_ps: 0,
            stats: vec![XStat {
                metadata_id: stat_id,
                value: Some(x_stat::Value::Uint64Value(value)),
            }],
        }],
        ..Default::default()
    });
}

/// Four ranks of train-loop as `torchrun` starts them (one run directory, one file per rank
/// named after it): pod_viewer lists the four hosts, each with the truth's steps.
#[test]
fn four_ranks_of_train_loop_are_four_hosts_with_their_steps() {
    if !xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let truths = support::sim::torchrun_ranks(&builtin("train-loop.toml"), "steps4", &logs, 4);
    let files = profiles(&logs, "torchrun_steps4");
    assert_eq!(files.len(), 4, "{files:?}");
    let pod = xprof::pod(&files);
    assert_eq!(pod["errors"], serde_json::json!({}));
    let hosts = pod["pod_viewer"]["hosts"].as_object().unwrap();
    let mut names: Vec<&String> = hosts.keys().collect();
    names.sort();
    let mut want: Vec<String> = files.iter().map(|f| host_of(f)).collect();
    want.sort();
    assert_eq!(names, want.iter().collect::<Vec<_>>(), "pod viewer hosts");
    // Over several hosts xprof keeps the steps the hosts have in common, aligned by time
    // (`ComputeStepIntersectionToMergeOpStats`, xprof's `multi_xplanes_to_op_stats.cc` and
    // `utils/step_intersection.cc`): the ranks ran side by side on one job clock, so which of
    // their steps line up depends on how the machine scheduled them. Each host lists the same
    // step numbers, at least one, and each of its step times is a step of its own rank's truth.
    // Each host is one rank's file (`<hostname>.rank<N>`).
    let numbers = |mine: &Value| -> Vec<u64> {
        let mut n: Vec<u64> = mine.as_array().unwrap().iter().map(|s| u(&s[0])).collect();
        n.sort();
        n
    };
    let first = numbers(hosts.values().next().unwrap());
    assert!(!first.is_empty(), "pod viewer steps: {hosts:?}");
    for (host, mine) in hosts {
        assert_eq!(numbers(mine), first, "{host}: step numbers");
        let rank: usize = host
            .rsplit_once(".rank")
            .and_then(|(_, n)| n.parse().ok())
            .unwrap_or_else(|| panic!("host {host:?} names no rank"));
        let steps = truth_steps(&truths[rank]["plan"], is_train_loop_step);
        for s in mine.as_array().unwrap() {
            let got = f(&s[1]) / 1e3;
            assert!(
                steps.iter().any(|t| close(got, t.device_ms, 0.01)),
                "{host}: step of {got} ms is no step of rank {rank}'s truth"
            );
        }
    }
}
