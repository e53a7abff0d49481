//! What the tool observes: names vs ids, callbacks, code objects, agents, record layouts,
//! correlation ids and timestamps (reference §2.4–§2.10, §3, §4).

mod common;
use common::*;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

fn v1(sdk: &str) -> bool {
    sdk.starts_with('1')
}

fn names_consistent_with_ids(sdk: &str) {
    let s = run(sdk, "basic", "");
    let n = s.ev("names")[0];
    let b = &n["buffer"];
    assert_eq!(b["5"]["name"], "HIP_RUNTIME_API");
    assert_eq!(b["5"]["ops"]["214"], "hipLaunchKernel");
    assert_eq!(b["5"]["ops"]["166"], "hipGraphLaunch");
    assert_eq!(b["7"]["ops"]["1"], "roctxRangePushA");
    assert_eq!(b["10"]["name"], "MEMORY_COPY");
    assert_eq!(b["10"]["ops"]["2"], "MEMORY_COPY_HOST_TO_DEVICE");
    assert_eq!(b["11"]["name"], "KERNEL_DISPATCH");
    assert_eq!(b["11"]["ops"]["2"], "KERNEL_DISPATCH_COMPLETE");
    assert!(b.get("0").is_none(), "NONE is not iterated");
    let c = &n["callback"];
    assert_eq!(c["10"], "CODE_OBJECT");
    assert_eq!(c["12"], "KERNEL_DISPATCH");
    if v1(sdk) {
        assert_eq!(b["12"]["name"], "SCRATCH_MEMORY");
        assert_eq!(b["21"]["name"], "HIP_RUNTIME_API_EXT");
        assert_eq!(b["32"]["name"], "MARKER_CORE_RANGE_API");
        assert_eq!(c["20"], "HIP_STREAM");
        assert_eq!(b["5"]["ops"]["474"], "hipLaunchKernelExC");
    } else {
        assert_eq!(b["12"]["name"], "PAGE_MIGRATION");
        assert_eq!(b["13"]["name"], "SCRATCH_MEMORY");
        assert!(b.get("21").is_none() && c.get("20").is_none());
        assert!(b["5"]["ops"].get("474").is_none());
    }
    let st = n["status"].as_array().unwrap();
    assert_eq!(st[16][1], "ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED");
    assert_eq!(st[21][1], "ROCPROFILER_STATUS_ERROR_FINALIZED");
    assert_eq!(st[44][1], "<null>");
    // Every record decodes to named kinds/operations.
    for r in s.ev("rec") {
        assert!(
            r["kind_name"].is_string() && r["op_name"].is_string(),
            "{r}"
        );
        assert_eq!(r["kind"], r["record_kind"]);
        assert_eq!(r["category"], 1);
    }
}

fn enter_exit_same_thread_same_user_data(sdk: &str) {
    let s = run(sdk, "basic", "");
    let api: Vec<&Value> = s
        .ev("cb")
        .into_iter()
        .filter(|v| v["kind_name"] == "HIP_RUNTIME_API" || v["kind_name"] == "MARKER_CORE_API")
        .collect();
    let enters = api.iter().filter(|v| v["phase"] == 1).count();
    let exits: Vec<&&Value> = api.iter().filter(|v| v["phase"] == 2).collect();
    assert!(enters > 10);
    assert_eq!(enters, exits.len());
    for e in exits {
        assert_eq!(e["enter_exit_ok"], true, "{e}");
    }
    for v in &api {
        assert_eq!(
            v["tid"], v["self_tid"],
            "API callbacks run on the calling thread"
        );
    }
    // The kernel-dispatch user value set at ENQUEUE reaches the COMPLETE callback.
    for c in s.cbs("KERNEL_DISPATCH").iter().filter(|v| v["op"] == 2) {
        assert_eq!(c["phase"], 0);
        assert_eq!(
            c["user"].as_u64().unwrap(),
            7_000_000 + c["dispatch_id"].as_u64().unwrap()
        );
        assert_ne!(
            c["self_tid"], c["tid"],
            "COMPLETE comes from another thread"
        );
    }
}

fn kernel_symbols_with_kd_names(sdk: &str) {
    let s = run(sdk, "basic", "");
    let co = s.cbs("CODE_OBJECT");
    let syms: Vec<&&Value> = co
        .iter()
        .filter(|v| v["op"] == 2 && v["phase"] == 1)
        .collect();
    assert_eq!(syms.len(), 3);
    let ids: HashSet<u64> = syms
        .iter()
        .map(|v| v["kernel_id"].as_u64().unwrap())
        .collect();
    for v in &syms {
        assert!(v["kernel_name"].as_str().unwrap().ends_with(".kd"));
        assert_eq!(v["size"], 88);
    }
    for r in s.recs("KERNEL_DISPATCH") {
        assert!(
            ids.contains(&r["kernel_id"].as_u64().unwrap()),
            "dispatch of an unknown kernel"
        );
    }
    // LOAD before symbols; at finalize UNLOAD: the code object first, then its symbols.
    let load = s
        .index_of(|v| v["kind_name"] == "CODE_OBJECT" && v["op"] == 1 && v["phase"] == 1)
        .unwrap();
    let first_sym = s
        .index_of(|v| v["kind_name"] == "CODE_OBJECT" && v["op"] == 2)
        .unwrap();
    assert!(load < first_sym);
    let unload = s
        .index_of(|v| v["kind_name"] == "CODE_OBJECT" && v["op"] == 1 && v["phase"] == 2)
        .expect("UNLOAD");
    let sym_unloads: Vec<usize> = (0..s.log.len())
        .filter(|&i| {
            s.log[i]["kind_name"] == "CODE_OBJECT" && s.log[i]["op"] == 2 && s.log[i]["phase"] == 2
        })
        .collect();
    assert_eq!(sym_unloads.len(), 3);
    assert!(sym_unloads.iter().all(|&i| i > unload));
    let fin = s.index_of(|v| v["ev"] == "finalize_begin").unwrap();
    assert!(unload < fin, "UNLOAD happens before the tool's finalize");
    // First launch on another thread may precede the explicit load: LOAD still comes first.
    let first_enqueue = s
        .index_of(|v| v["kind_name"] == "KERNEL_DISPATCH" && v["ev"] == "cb")
        .unwrap();
    assert!(load < first_enqueue);
}

/// The explicit LOAD on thread 0 is slow to deliver (the tool sleeps in it) while thread 1
/// launches one of its kernels: the launch waits for the load, as behind HIP's module-load lock,
/// instead of dispatching a kernel whose symbol the tool has not been told about. Before the
/// fix, a second loader saw the code object marked loaded and dispatched at once — the rare
/// "load < first_enqueue" failure of `kernel_symbols_with_kd_names`, made certain here.
fn dispatch_waits_for_a_load_in_progress(sdk: &str) {
    let s = run(sdk, "basic", "slow_load_ms=300");
    let load = s
        .index_of(|v| v["kind_name"] == "CODE_OBJECT" && v["op"] == 1 && v["phase"] == 1)
        .expect("LOAD");
    let first_enqueue = s
        .index_of(|v| v["kind_name"] == "KERNEL_DISPATCH" && v["ev"] == "cb")
        .expect("a dispatch");
    assert!(
        load < first_enqueue,
        "dispatch at {first_enqueue} before LOAD at {load}"
    );
    let first_symbol = s
        .index_of(|v| v["kind_name"] == "CODE_OBJECT" && v["op"] == 2 && v["phase"] == 1)
        .expect("symbols");
    assert!(
        first_symbol < first_enqueue,
        "dispatch before its kernel symbols"
    );
}

fn agents_properties(sdk: &str) {
    let s = run(sdk, "basic", "");
    let a = s.ev("agent");
    assert_eq!(a.len(), 2);
    assert_eq!(a[0]["type"], 1, "CPU agent first");
    let g = a[1];
    assert_eq!(g["type"], 2);
    assert_eq!(g["name"], "gfx942");
    assert_eq!(g["cu_count"], 304);
    assert_eq!(g["gfx_target_version"], 90402);
    assert_eq!(g["product_name"], "AMD Instinct MI300X");
    assert_eq!(g["size"], 304);
    assert_eq!(g["logical_node_type_id"], 0);
    let gpu_agent = g["id"].as_u64().unwrap();
    for r in s.recs("KERNEL_DISPATCH") {
        assert_eq!(r["agent"].as_u64().unwrap(), gpu_agent);
    }
    let m = run(sdk, "mi250x", "");
    let gpus: Vec<&Value> = m
        .ev("agent")
        .into_iter()
        .filter(|v| v["type"] == 2)
        .collect();
    assert_eq!(gpus.len(), 2);
    for (i, g) in gpus.iter().enumerate() {
        assert_eq!(g["name"], "gfx90a");
        assert_eq!(g["cu_count"], 110);
        assert_eq!(g["model_name"], "aldebaran");
        assert_eq!(g["logical_node_type_id"], i as u64);
    }
    // Asking for more than the runtime's struct size fails.
    let big = run(sdk, "empty", "agent_size=400");
    assert_eq!(
        big.status("query_agents").unwrap().1,
        "ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI"
    );
    assert!(big.ev("agent").is_empty());
}

fn agents_match_the_ground_truth_devices(sdk: &str) {
    // Every property the ground truth lists for a device is what the runtime reported for that
    // GPU's agent (field names as in the plan; two differ from the agent struct).
    let s = run(
        sdk,
        &format!(
            "file:{}/../scenarios/multi-gpu.toml",
            env!("CARGO_MANIFEST_DIR")
        ),
        "no_callbacks",
    );
    let gpus: Vec<&Value> = s
        .ev("agent")
        .into_iter()
        .filter(|v| v["type"] == 2)
        .collect();
    let devices = s.truth["plan"]["devices"].as_array().unwrap();
    assert_eq!(gpus.len(), 2);
    assert_eq!(gpus.len(), devices.len());
    fn agent_key(k: &str) -> &str {
        match k {
            "max_engine_clk_mhz" => "max_engine_clk_fcompute",
            "local_mem_bytes" => "local_mem_size",
            k => k,
        }
    }
    let counts = [
        "gpu",
        "kernel_dispatches",
        "kernel_ns",
        "memory_copies",
        "queues",
    ];
    for (agent, dev) in gpus.iter().zip(devices) {
        let mut compared = 0;
        for (k, v) in dev.as_object().unwrap() {
            if counts.contains(&k.as_str()) {
                continue;
            }
            assert_eq!(&agent[agent_key(k)], v, "{sdk}: {k} of {agent}");
            compared += 1;
        }
        assert!(compared >= 20, "{sdk}: only {compared} properties in {dev}");
    }
    assert_eq!(devices[0]["product_name"], "AMD Instinct MI300X");
    assert_eq!(devices[1]["name"], "gfx90a");
    assert_eq!(devices[1]["max_engine_clk_mhz"], 1700);
}

fn graph_launch_dispatches_share_correlation_id(sdk: &str) {
    let s = run(sdk, "basic", "");
    let graph: Vec<&Value> = s
        .recs("HIP_RUNTIME_API")
        .into_iter()
        .filter(|r| r["op_name"] == "hipGraphLaunch")
        .collect();
    assert_eq!(graph.len(), 1);
    let corr = &graph[0]["corr"];
    let k: Vec<&Value> = s
        .recs("KERNEL_DISPATCH")
        .into_iter()
        .filter(|r| &r["corr"] == corr)
        .collect();
    assert_eq!(k.len(), 5);
    let ids: HashSet<u64> = k
        .iter()
        .map(|r| r["dispatch_id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids.len(), 5, "distinct dispatch ids");
    // Every kernel's correlation id names the HIP call that launched it.
    let api: HashMap<u64, &Value> = s
        .recs("HIP_RUNTIME_API")
        .into_iter()
        .map(|r| (r["corr"].as_u64().unwrap(), r))
        .collect();
    for r in s.recs("KERNEL_DISPATCH") {
        let call = api
            .get(&r["corr"].as_u64().unwrap())
            .expect("launching API call");
        assert_eq!(call["tid"], r["tid"]);
        assert!(r["start"].as_u64() >= call["start"].as_u64());
    }
}

fn record_layouts_per_version(sdk: &str) {
    let s = run(sdk, "basic", "");
    let api = if v1(sdk) { 64 } else { 56 };
    for r in s
        .recs("HIP_RUNTIME_API")
        .iter()
        .chain(s.recs("MARKER_CORE_API").iter())
    {
        assert_eq!(r["size"], api);
    }
    for r in s.recs("MEMORY_COPY") {
        assert_eq!(r["size"], if v1(sdk) { 96 } else { 80 });
        assert_eq!(r["bytes"], 1 << 20);
    }
    for r in s.recs("KERNEL_DISPATCH") {
        assert_eq!(r["size"], 184);
        assert_eq!(r["info_size"], 72);
        assert_eq!(r["op_name"], "KERNEL_DISPATCH_COMPLETE");
    }
    // grid_size is in work-items (HSA convention, §3.4): numBlocks × dimBlocks of the launch.
    let dim3 = |v: &Value| -> Vec<u64> {
        v.as_str()
            .unwrap()
            .trim_matches(|c| c == '{' || c == '}')
            .split(',')
            .map(|x| x.trim().parse().unwrap())
            .collect()
    };
    let mut launches = 0;
    for c in s.cbs("HIP_RUNTIME_API") {
        if c["op_name"] != "hipLaunchKernel" || c["phase"] != 1 {
            continue;
        }
        let blocks = dim3(&c["args"]["numBlocks"]);
        let wg = dim3(&c["args"]["dimBlocks"]);
        let k: Vec<&Value> = s
            .recs("KERNEL_DISPATCH")
            .into_iter()
            .filter(|r| r["corr"] == c["corr"])
            .collect();
        assert_eq!(k.len(), 1, "{c}");
        let items: Vec<u64> = blocks.iter().zip(&wg).map(|(b, w)| b * w).collect();
        assert_eq!(k[0]["grid"], serde_json::json!(items), "{c}");
        assert_eq!(k[0]["workgroup"], serde_json::json!(wg), "{c}");
        assert!(items[0] > wg[0], "a multi-block launch");
        launches += 1;
    }
    assert!(launches >= 4, "{launches}");
    let ext = s.recs("HIP_RUNTIME_API_EXT");
    if v1(sdk) {
        assert_eq!(ext.len(), s.recs("HIP_RUNTIME_API").len());
        assert!(ext.iter().all(|r| r["size"] == 176));
        // Arguments of buffered EXT records by name (rocprofiler_iterate_buffer_tracing_record_args).
        let mc = ext
            .iter()
            .find(|r| r["op_name"] == "hipMemcpyAsync")
            .unwrap();
        assert_eq!(mc["args_status"], 0);
        assert_eq!(mc["args"]["sizeBytes"], "1048576");
        assert_eq!(mc["args"]["kind"], "1");
    } else {
        assert!(ext.is_empty());
    }
    for c in s.cbs("MEMORY_COPY") {
        assert_eq!(c["size"], if v1(sdk) { 64 } else { 48 });
    }
}

fn external_correlation_ids(sdk: &str) {
    // basic pushes 4242 around the forward range on thread 0.
    let s = run(sdk, "basic", "");
    let k = s.recs("KERNEL_DISPATCH");
    assert!(k.iter().any(|r| r["ext"] == 4242));
    // Calls on the pushing thread before the push / after the pop carry no external id.
    // (Other threads inherit the main thread's top while it is pushed — timing-dependent.)
    let api = |name: &str| {
        s.recs("HIP_RUNTIME_API")
            .into_iter()
            .find(|r| r["op_name"] == name)
            .unwrap()
    };
    assert_eq!(api("hipStreamCreate")["ext"], 0);
    assert_eq!(api("hipStreamSynchronize")["ext"], 0);
    assert_eq!(api("hipGraphLaunch")["ext"], 4242);
    let push = s
        .cbs("MARKER_CORE_API")
        .into_iter()
        .find(|v| v["op_name"] == "roctxRangePushA")
        .unwrap();
    assert_eq!(push["ext"], 4242);
    // A request callback answering for KERNEL_DISPATCH overrides the stack for those only.
    let r = run(sdk, "basic", "ext_request");
    for rec in r.recs("KERNEL_DISPATCH") {
        assert_eq!(
            rec["ext"].as_u64().unwrap(),
            900_000 + rec["corr"].as_u64().unwrap()
        );
    }
    assert!(r.recs("HIP_RUNTIME_API").iter().any(|x| x["ext"] == 4242));
}

fn external_id_pushed_in_enter(sdk: &str) {
    // §2.10: an id pushed during a HIP ENTER callback is used for the async work started by
    // that call and reported at its EXIT (and in its buffered record).
    let s = run(sdk, "basic", "push_in_enter");
    let exits: Vec<&Value> = s
        .cbs("HIP_RUNTIME_API")
        .into_iter()
        .filter(|v| v["phase"] == 2)
        .collect();
    assert!(exits.len() > 5);
    for e in exits {
        assert_eq!(e["ext"], 777, "{e}");
    }
    for r in s.recs("HIP_RUNTIME_API") {
        assert_eq!(r["ext"], 777, "{r}");
    }
    let k = s.recs("KERNEL_DISPATCH");
    assert!(!k.is_empty());
    for r in k {
        assert_eq!(r["ext"], 777, "{r}");
    }
}

fn timestamps_agree_with_tool_clock(sdk: &str) {
    let s = run(sdk, "basic", "");
    let api: HashMap<u64, &Value> = s
        .recs("HIP_RUNTIME_API")
        .into_iter()
        .map(|r| (r["corr"].as_u64().unwrap(), r))
        .collect();
    let mut checked = 0;
    for c in s.cbs("HIP_RUNTIME_API").iter().filter(|v| v["phase"] == 1) {
        let rec = api[&c["corr"].as_u64().unwrap()];
        assert_eq!(
            c["now"], rec["start"],
            "get_timestamp at ENTER == record start"
        );
        checked += 1;
    }
    assert!(checked > 5);
    for r in s.ev("rec") {
        if r["start"].is_u64() {
            assert!(r["start"].as_u64() <= r["end"].as_u64());
        }
    }
}

fn hip_stream_callbacks_only_in_1x(sdk: &str) {
    let s = run(sdk, "basic", "");
    let st = s.cbs("HIP_STREAM");
    if !v1(sdk) {
        assert!(st.is_empty());
        return;
    }
    let create: Vec<&&Value> = st
        .iter()
        .filter(|v| v["op_name"] == "HIP_STREAM_CREATE")
        .collect();
    assert_eq!(create.len(), 1);
    assert_eq!(create[0]["phase"], 0);
    assert_eq!(create[0]["stream_id"], 1);
    let sets = st
        .iter()
        .filter(|v| v["op_name"] == "HIP_STREAM_SET")
        .count();
    assert!(sets >= 2 && sets % 2 == 0, "SET comes in ENTER/EXIT pairs");
    // HIP args reach the tool by name.
    let mc = s
        .cbs("HIP_RUNTIME_API")
        .into_iter()
        .find(|v| v["op_name"] == "hipMemcpyAsync" && v["phase"] == 1)
        .unwrap();
    assert_eq!(mc["args"]["sizeBytes"], "1048576");
    assert_eq!(
        mc["args"]["stream"],
        format!("{:#x}", create[0]["stream"].as_u64().unwrap())
    );
}

fn memory_copy_agents(sdk: &str) {
    let s = run(sdk, "basic", "");
    let agents = s.ev("agent");
    let (cpu, gpu) = (&agents[0]["id"], &agents[1]["id"]);
    let c = s.recs("MEMORY_COPY");
    assert_eq!(c.len(), 1);
    assert_eq!(&c[0]["src_agent"], cpu);
    assert_eq!(&c[0]["dst_agent"], gpu);
    assert_eq!(c[0]["op_name"], "MEMORY_COPY_HOST_TO_DEVICE");
    // Callback args by name work with either record layout.
    let mc = s
        .cbs("HIP_RUNTIME_API")
        .into_iter()
        .find(|v| v["op_name"] == "hipMemcpyAsync" && v["phase"] == 1)
        .unwrap();
    assert_eq!(mc["args"]["sizeBytes"], "1048576");
    assert_eq!(mc["args"]["dst"], "0x7f00dead0000");
}

fn range_markers_only_in_1x(sdk: &str) {
    let s = run(sdk, "basic", "");
    let cbs = s.cbs("MARKER_CORE_RANGE_API");
    let recs = s.recs("MARKER_CORE_RANGE_API");
    if !v1(sdk) {
        assert!(cbs.is_empty() && recs.is_empty());
        return;
    }
    let thread: Vec<&&Value> = cbs
        .iter()
        .filter(|v| v["op_name"] == "roctxThreadRangeA")
        .collect();
    assert_eq!(thread.len(), 2, "ENTER at push, EXIT at pop");
    assert_eq!(thread[0]["phase"], 1);
    assert_eq!(thread[0]["message"], "forward");
    assert_eq!(thread[1]["phase"], 2);
    assert_eq!(
        thread[1]["enter_exit_ok"], true,
        "same user_data slot and value"
    );
    assert_eq!(thread[0]["corr"], thread[1]["corr"]);
    let process: Vec<&&Value> = cbs
        .iter()
        .filter(|v| v["op_name"] == "roctxProcessRangeA")
        .collect();
    assert_eq!(process.len(), 2);
    assert_eq!(process[1]["enter_exit_ok"], true);
    // One record per range, spanning push..pop.
    assert_eq!(recs.len(), 3, "thread range, process range, mark");
    let core = s.recs("MARKER_CORE_API");
    let push = core
        .iter()
        .find(|r| r["op_name"] == "roctxRangePushA")
        .unwrap();
    let pop = core
        .iter()
        .find(|r| r["op_name"] == "roctxRangePop")
        .unwrap();
    let range = recs
        .iter()
        .find(|r| r["op_name"] == "roctxThreadRangeA")
        .unwrap();
    assert_eq!(range["start"], push["start"]);
    assert_eq!(range["end"], pop["end"]);
    assert_eq!(range["corr"], push["corr"]);
}

fn clock_after_replay_is_past_every_record(sdk: &str) {
    let s = run(sdk, "basic", "");
    let last = s
        .ev("rec")
        .iter()
        .filter_map(|r| r["end"].as_u64())
        .max()
        .unwrap();
    let fin = s.ev("finalize_begin")[0]["now"].as_u64().unwrap();
    assert!(
        fin > last,
        "get_timestamp at finalize ({fin}) <= a record end ({last})"
    );
}

both_sdks!(
    range_markers_only_in_1x,
    clock_after_replay_is_past_every_record,
    names_consistent_with_ids,
    enter_exit_same_thread_same_user_data,
    kernel_symbols_with_kd_names,
    dispatch_waits_for_a_load_in_progress,
    agents_properties,
    agents_match_the_ground_truth_devices,
    graph_launch_dispatches_share_correlation_id,
    record_layouts_per_version,
    external_correlation_ids,
    external_id_pushed_in_enter,
    timestamps_agree_with_tool_clock,
    hip_stream_callbacks_only_in_1x,
    memory_copy_agents,
);

/// A start/stop range stopped on another thread (`markers.toml`: started on "trainer",
/// stopped on "monitor"): its EXIT callback and its one record carry the thread that started
/// it, as the real runtime's (which keeps the opener's thread id with the open range).
#[test]
fn a_range_stopped_on_another_thread_is_recorded_on_the_opening_thread() {
    let plan = format!(
        "file:{}/../scenarios/markers.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let s = run("1.0.0", &plan, "");
    let cbs = s.cbs("MARKER_CORE_RANGE_API");
    let process: Vec<&&Value> = cbs
        .iter()
        .filter(|v| v["op_name"] == "roctxProcessRangeA")
        .collect();
    assert_eq!(process.len(), 2, "ENTER at start, EXIT at stop");
    let opener = &process[0]["tid"];
    // The stopping call ran on another thread.
    let stop = s
        .cbs("MARKER_CORE_API")
        .into_iter()
        .find(|v| v["op_name"] == "roctxRangeStop")
        .unwrap();
    assert_ne!(&stop["tid"], opener);
    assert_eq!(&process[1]["tid"], opener);
    let rec = s
        .recs("MARKER_CORE_RANGE_API")
        .into_iter()
        .find(|r| r["op_name"] == "roctxProcessRangeA")
        .unwrap();
    assert_eq!(&rec["tid"], opener);
}

/// A scenario on one MI300X with a 5 µs kernel `k` and the named `streams`, whose one thread
/// makes `calls` (the entries of its `calls` list).
fn one_thread(streams: &[&str], calls: &str) -> String {
    let mut s = String::from(
        "name = \"one-thread\"\nseed = 1\n[[gpus]]\npreset = \"mi300x\"\n\
         [[kernels]]\nname = \"k\"\ndur_us = 5\n",
    );
    for name in streams {
        s += &format!("[[streams]]\nname = \"{name}\"\n");
    }
    s + &format!("[[threads]]\nname = \"main\"\ncalls = [{calls}]\n")
}

/// A run (`run`) of the scenario `text`, written to a temporary file; it must succeed.
fn run_text(sdk: &str, text: &str) -> Sim {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scenario.toml");
    std::fs::write(&path, text).unwrap();
    let s = run(sdk, &format!("file:{}", path.display()), "");
    assert_eq!(s.code, Some(0), "{sdk}: {}", s.stderr);
    s
}

/// §3.4: HIP_STREAM `stream_id`s count in creation order (not declaration order), and a
/// re-created `hipStream_t` value gets a new index.
#[test]
fn hip_stream_ids_in_creation_order_and_new_on_reuse() {
    let scenario = one_thread(
        &["a", "b"],
        r#"
  { op = "stream_create", stream = "b" },
  { op = "stream_create", stream = "a" },
  { op = "launch", kernel = "k", stream = "a" },
  { op = "stream_destroy", stream = "a" },
  { op = "stream_create", stream = "a" },
  { op = "launch", kernel = "k", stream = "a" },
  { op = "device_sync" },
"#,
    );
    for sdk in ["1.0.0", "1.2.1"] {
        let s = run_text(sdk, &scenario);
        let st = s.cbs("HIP_STREAM");
        let of = |op: &str| -> Vec<(u64, u64)> {
            st.iter()
                .filter(|v| v["op_name"] == op)
                .map(|v| {
                    (
                        v["stream_id"].as_u64().unwrap(),
                        v["stream"].as_u64().unwrap(),
                    )
                })
                .collect()
        };
        let create = of("HIP_STREAM_CREATE");
        assert_eq!(create.len(), 3, "{sdk}: {create:?}");
        let (b, a) = (create[0].1, create[1].1);
        assert_ne!(a, b);
        assert_eq!(create[0], (1, b), "{sdk}: first created is 1");
        assert_eq!(create[1], (2, a), "{sdk}");
        assert_eq!(create[2], (3, a), "{sdk}: same handle, new index");
        assert_eq!(of("HIP_STREAM_DESTROY"), vec![(2, a)], "{sdk}");
        let sets: Vec<u64> = of("HIP_STREAM_SET").iter().map(|x| x.0).collect();
        assert_eq!(sets, vec![2, 2, 3, 3], "{sdk}: SET ENTER/EXIT per launch");
    }
}

/// rocprofiler-sdk's stream wrapper (`hip/stream.cpp`) brackets only calls of functions with a
/// `hipStream_t` parameter with HIP_STREAM SET: a copy through `hipMemcpyParam2DAsync` is
/// bracketed; a multi-device launch, whose streams lie in its launch parameter list, is not.
#[test]
fn hip_stream_set_brackets_only_functions_with_a_stream_parameter() {
    let scenario = one_thread(
        &["a"],
        r#"
  { op = "stream_create", stream = "a" },
  { op = "launch", kernel = "k", stream = "a", api = "hipExtLaunchMultiKernelMultiDevice" },
  { op = "memcpy", kind = "d2d", bytes = 4096, stream = "a", api = "hipMemcpyParam2DAsync" },
  { op = "launch", kernel = "k", stream = "a", api = "hipLaunchCooperativeKernelMultiDevice" },
  { op = "device_sync" },
"#,
    );
    for sdk in ["1.0.0", "1.2.1"] {
        let sets: Vec<u64> = run_text(sdk, &scenario)
            .cbs("HIP_STREAM")
            .iter()
            .filter(|v| v["op_name"] == "HIP_STREAM_SET")
            .map(|v| v["phase"].as_u64().unwrap())
            .collect();
        assert_eq!(sets, vec![1, 2], "{sdk}: ENTER and EXIT of the copy alone");
    }
}

#[test]
fn agent_size_of_1_2_1_personality() {
    let s = run("1.2.1", "empty", "agent_size=312");
    assert_eq!(s.status("query_agents").unwrap().0, 0);
    assert!(s.ev("agent").iter().all(|a| a["size"] == 312));
    assert_eq!(s.ev("configure")[0]["version"], 10201);
}

#[test]
fn status_numbering_of_1_2_1() {
    let s = run("1.2.1", "empty", "");
    let st = s.ev("names")[0]["status"].as_array().unwrap().clone();
    assert_eq!(
        st[41][1],
        "ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_REGISTER_VERSION"
    );
    let s = run("1.0.0", "empty", "");
    let st = s.ev("names")[0]["status"].as_array().unwrap().clone();
    assert_eq!(st[40][1], "ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED");
    assert_eq!(st[41][1], "<null>");
}

/// The newest SDK's kernel-dispatch callback payload (reference "newer" §3.2): 160 bytes with
/// `int32_t pipe_id` at 152 in the 1.4.0 personality, the 152-byte payload before it; a tool
/// reads `size` before the new field. One pipe per queue, as the buffer records say.
#[test]
fn kernel_dispatch_callback_payload_grows_to_160_with_pipe_id() {
    for (sdk, size) in [("1.0.0", 152), ("1.2.1", 152), ("1.4.0", 160)] {
        let s = common::run(sdk, "basic", "");
        let cbs = s.cbs("KERNEL_DISPATCH");
        assert!(!cbs.is_empty(), "{sdk}");
        for c in &cbs {
            assert_eq!(c["size"], size, "{sdk}: {c}");
            assert_eq!(c.get("pipe_id").is_some(), size == 160, "{sdk}: {c}");
        }
    }
}

/// `ROCPROF_SIM_TOOL_CALLS=skip` (the baseline of `ci/bench-e2e.sh`): the tool is configured,
/// initialized and finalized, the runtime builds and buffers the same records, but no tool
/// callback runs: no callback-tracing call, no buffer delivery, no external-id request.
#[test]
fn skipped_tool_calls_leave_the_runtime_work_and_call_no_tool_callback() {
    for sdk in ["0.6.0", "1.0.0"] {
        let traced = common::run(sdk, "basic", "");
        let mut o = Opts::new(sdk, "basic", "");
        o.env = vec![("ROCPROF_SIM_TOOL_CALLS", "skip")];
        let skipped = run_opts(o);
        assert_eq!(skipped.code, Some(0), "{sdk}: {}", skipped.stderr);
        for s in [&traced, &skipped] {
            assert_eq!(s.ev("configure").len(), 1, "{sdk}");
            assert_eq!(s.ev("initialize").len(), 1, "{sdk}");
        }
        // The control: the same run calls the tool.
        assert!(!traced.ev("cb").is_empty(), "{sdk}");
        assert!(!traced.ev("rec").is_empty(), "{sdk}");
        for ev in ["cb", "rec", "buffer"] {
            assert!(
                skipped.ev(ev).is_empty(),
                "{sdk}: {ev} {:?}",
                skipped.ev(ev).first()
            );
        }
        // The runtime's work is the same: as many records built and buffered.
        assert!(skipped.emitted_total() > 0, "{sdk}");
        assert_eq!(skipped.emitted_total(), traced.emitted_total(), "{sdk}");
    }
}
