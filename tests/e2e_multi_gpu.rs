//! `scenarios/multi-gpu.toml` (an MI300X and an MI250X GCD, four threads, copies in
//! every direction): one device plane per GPU with the agent's properties, kernels and copies
//! per device as in the ground truth, copy directions and ends as the runtime reported them.
//!
//! Two witnesses, both independent of the tool: the simulator's ground truth (computed from the
//! scenario) and the simulator's own test tool loaded *beside* ours, which logs every agent and
//! record the runtime handed out. Simulated runtime (test infrastructure), not hardware.

mod support;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use rocprof_xplane::xplane::proto::XSpace;
use rocprof_xplane::xplane::read_xspace;
use serde_json::Value;
use support::paths::{builtin, profiles, sim_test_tool, tool_library};
use support::sim::{cached, Direct};
use support::truth::{read_truth, truth_kernels_per_gpu};
use support::xspace::*;
use support::{stderr_of, u};

const SDKS: [&str; 2] = ["0.6.0", "1.0.0"];
/// `rocprofiler_agent_type_t`: GPU.
const AGENT_TYPE_GPU: u64 = 2;

/// The xprof event name for a copy direction, by the truth's / runtime's direction names.
fn memcpy_event_name(direction: &str) -> &'static str {
    match direction {
        "HostToDevice" | "MEMORY_COPY_HOST_TO_DEVICE" => "MemcpyHToD",
        "DeviceToHost" | "MEMORY_COPY_DEVICE_TO_HOST" => "MemcpyDToH",
        "DeviceToDevice" | "MEMORY_COPY_DEVICE_TO_DEVICE" => "MemcpyDToD",
        "HostToHost" | "MEMORY_COPY_HOST_TO_HOST" => "MemcpyHToH",
        other => panic!("unknown copy direction {other:?}"),
    }
}

struct Witnessed {
    space: XSpace,
    /// GPU agents as the test tool saw them, in HIP ordinal order.
    gpus: Vec<Value>,
    /// Every buffer record the test tool received.
    records: Vec<Value>,
    truth: Value,
}

/// multi-gpu.toml with the simulator's test tool loaded first and ours second.
fn witnessed(sdk: &str) -> Arc<Witnessed> {
    static RUNS: OnceLock<[OnceLock<Arc<Witnessed>>; 2]> = OnceLock::new();
    let i = SDKS.iter().position(|s| *s == sdk).unwrap();
    RUNS.get_or_init(Default::default)[i]
        .get_or_init(|| {
            let tmp = tempfile::tempdir().unwrap();
            let log = tmp.path().join("witness.jsonl");
            let truth = tmp.path().join("truth.json");
            // Trailing ':' keeps both entries (the runtime's list parser drops the last token).
            let libs = format!(
                "{}:{}:",
                sim_test_tool().display(),
                tool_library().display()
            );
            let scenario = builtin("multi-gpu.toml");
            let out = Direct::new(&scenario, sdk)
                .env("ROCP_TOOL_LIBRARIES", &libs)
                .env("ROCPROF_SIM_TEST_TOOL_LOG", &log)
                .env("ROCPROF_XPLANE_OUTPUT_DIR", tmp.path())
                .env("ROCPROF_XPLANE_RUN_NAME", "witnessed")
                .ground_truth(&truth)
                .output();
            assert!(out.status.success(), "{sdk}: {}", stderr_of(&out));
            let files = profiles(tmp.path(), "witnessed");
            assert_eq!(files.len(), 1, "{sdk}: {files:?}\n{}", stderr_of(&out));
            let lines: Vec<Value> = std::fs::read_to_string(&log)
                .expect("the test tool wrote its log")
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let mut gpus: Vec<Value> = lines
                .iter()
                .filter(|v| v["ev"] == "agent" && u(&v["type"]) == AGENT_TYPE_GPU)
                .cloned()
                .collect();
            gpus.sort_by_key(|a| u(&a["logical_node_type_id"]));
            let records = lines.into_iter().filter(|v| v["ev"] == "rec").collect();
            Arc::new(Witnessed {
                space: read_xspace(&files[0]).unwrap(),
                gpus,
                records,
                truth: read_truth(&truth),
            })
        })
        .clone()
}

#[test]
fn one_device_plane_per_gpu_with_the_agents_properties() {
    for sdk in SDKS {
        let w = witnessed(sdk);
        let planes = device_planes(&w.space);
        assert_eq!(
            planes.len() as u64,
            u(&w.truth["plan"]["totals"]["gpus"]),
            "{sdk}"
        );
        assert_eq!(planes.len(), w.gpus.len(), "{sdk}: one plane per GPU agent");
        for (i, (p, agent)) in planes.iter().zip(&w.gpus).enumerate() {
            let truth_dev = &w.truth["plan"]["devices"][i];
            assert_eq!(p.name, format!("/device:GPU:{i}"), "{sdk}");
            assert_eq!(p.id, i as i64, "{sdk}: plane id = ordinal");
            let st = plane_stats(p);
            let s = |k: &str| {
                st.get(k)
                    .cloned()
                    .unwrap_or_else(|| panic!("{sdk} {}: no {k}: {st:?}", p.name))
            };
            assert_eq!(s("device_vendor"), Stat::Str("AMD".into()), "{sdk}");
            // gfx name and product from the ground truth and from the runtime's agent.
            assert_eq!(
                s("gpu_device_name").as_str(),
                truth_dev["name"].as_str(),
                "{sdk} {}",
                p.name
            );
            assert_eq!(
                s("gpu_device_name").as_str(),
                agent["name"].as_str(),
                "{sdk} {}",
                p.name
            );
            assert!(s("gpu_device_name").as_str().unwrap().starts_with("gfx"));
            if let Some(prod) = st.get("product_name") {
                assert_eq!(
                    prod.as_str(),
                    truth_dev["product_name"].as_str(),
                    "{sdk} {}",
                    p.name
                );
            }
            assert_eq!(
                s("core_count").as_u64(),
                agent["cu_count"].as_u64(),
                "{sdk} {}",
                p.name
            );
            assert_eq!(
                s("clock_rate").as_u64(),
                Some(u(&agent["max_engine_clk_fcompute"]) * 1000),
                "{sdk} {}: clock_rate in kHz",
                p.name
            );
            assert_eq!(
                s("memory_size").as_u64(),
                agent["local_mem_size"].as_u64(),
                "{sdk} {}",
                p.name
            );
            let v = u(&agent["gfx_target_version"]);
            assert_eq!(
                s("compute_cap_major").as_u64(),
                Some(v / 10000),
                "{sdk} {}",
                p.name
            );
            assert_eq!(
                s("compute_cap_minor").as_u64(),
                Some(v / 100 % 100),
                "{sdk} {}",
                p.name
            );
            assert!(
                st.contains_key("memory_bandwidth"),
                "{sdk} {}: memory_bandwidth missing",
                p.name
            );
        }
    }
}

#[test]
fn kernels_and_copies_per_device_match_the_ground_truth() {
    for sdk in SDKS {
        let r = cached(&builtin("multi-gpu.toml"), sdk, &[]);
        let plan = r.plan();
        assert_eq!(r.delivery()["total_dropped"], 0);
        let planes = device_planes(&r.space);
        assert_eq!(planes.len() as u64, u(&plan["totals"]["gpus"]), "{sdk}");

        // Kernels per (GPU, name) and per GPU.
        let mut got: BTreeMap<(u32, String), u64> = BTreeMap::new();
        for p in &planes {
            for k in events(p).into_iter().filter(|e| e.is_kernel()) {
                *got.entry((ordinal(p), k.name().to_string())).or_default() += 1;
            }
        }
        assert_eq!(
            got,
            truth_kernels_per_gpu(plan),
            "{sdk}: kernels per GPU and name"
        );
        for d in plan["devices"].as_array().unwrap() {
            let gpu = u(&d["gpu"]) as u32;
            let n: u64 = got
                .iter()
                .filter(|((g, _), _)| *g == gpu)
                .map(|(_, n)| n)
                .sum();
            assert_eq!(n, u(&d["kernel_dispatches"]), "{sdk}: kernels on GPU {gpu}");
        }

        // Copies: count and bytes per direction, by xprof's event names.
        let mut copies: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for m in memcpys(&r.space) {
            let det = m.stat("memcpy_details").unwrap();
            let bytes: u64 = details(det.as_str().unwrap())["size"].parse().unwrap();
            let e = copies.entry(m.name().to_string()).or_default();
            e.0 += 1;
            e.1 += bytes;
        }
        let want: BTreeMap<String, (u64, u64)> = plan["memory_copies"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(dir, c)| {
                (
                    memcpy_event_name(dir).to_string(),
                    (u(&c["count"]), u(&c["bytes"])),
                )
            })
            .collect();
        assert_eq!(copies, want, "{sdk}: (count, bytes) per copy direction");
        assert_eq!(
            want.len(),
            4,
            "multi-gpu.toml copies in all four directions"
        );

        // Copies with one GPU end (H2D, D2H) sit on that GPU's plane, as the truth says.
        for d in plan["devices"].as_array().unwrap() {
            let gpu = u(&d["gpu"]) as u32;
            let plane = planes.iter().find(|p| ordinal(p) == gpu).unwrap();
            let on_plane = count_by_name(events(plane).into_iter().filter(|e| e.is_memcpy()));
            for dir in ["HostToDevice", "DeviceToHost"] {
                let want = d["memory_copies"].get(dir).map_or(0, |c| u(&c["count"]));
                let name = memcpy_event_name(dir);
                assert_eq!(
                    on_plane.get(name).copied().unwrap_or(0),
                    want,
                    "{sdk}: {name} on GPU {gpu}"
                );
            }
        }
    }
}

#[test]
fn copy_directions_and_ends_are_the_ones_the_runtime_reported() {
    for sdk in SDKS {
        let w = witnessed(sdk);
        let ordinal_of: HashMap<u64, u64> = w
            .gpus
            .iter()
            .enumerate()
            .map(|(i, a)| (u(&a["id"]), i as u64))
            .collect();
        // (event name, bytes, destination GPU, source GPU) for every copy record.
        let mut want: BTreeMap<(String, u64, Option<u64>, Option<u64>), u64> = BTreeMap::new();
        for r in w.records.iter().filter(|r| r["kind_name"] == "MEMORY_COPY") {
            let key = (
                memcpy_event_name(r["op_name"].as_str().unwrap()).to_string(),
                u(&r["bytes"]),
                ordinal_of.get(&u(&r["dst_agent"])).copied(),
                ordinal_of.get(&u(&r["src_agent"])).copied(),
            );
            *want.entry(key).or_default() += 1;
        }
        let mut got: BTreeMap<(String, u64, Option<u64>, Option<u64>), u64> = BTreeMap::new();
        for m in memcpys(&w.space) {
            let det = m.stat("memcpy_details").unwrap();
            let det = details(det.as_str().unwrap());
            let key = (
                m.name().to_string(),
                det["size"].parse().unwrap(),
                det.get("dest").map(|d| d.parse().unwrap()),
                det.get("src").map(|d| d.parse().unwrap()),
            );
            *got.entry(key).or_default() += 1;
        }
        assert_eq!(
            got, want,
            "{sdk}: copies by (direction, bytes, dest GPU, src GPU)"
        );
        // Peer copies both ways are in the scenario.
        assert!(
            want.keys().any(|k| k.2 == Some(1) && k.3 == Some(0)),
            "no 0→1 peer copy"
        );
        assert!(
            want.keys().any(|k| k.2 == Some(0) && k.3 == Some(1)),
            "no 1→0 peer copy"
        );
    }
}

/// The truth places each copy on the device of the stream it was issued on (as CUPTI's
/// `deviceId` does); H2H and peer copies make this differ from "the GPU end of the copy".
#[test]
fn every_copy_is_on_the_plane_of_its_streams_device() {
    let r = cached(&builtin("multi-gpu.toml"), "1.0.0", &[]);
    let mut got: BTreeMap<(u64, String), u64> = BTreeMap::new();
    for p in device_planes(&r.space) {
        for m in events(p).into_iter().filter(|e| e.is_memcpy()) {
            *got.entry((u64::from(ordinal(p)), m.name().to_string()))
                .or_default() += 1;
        }
    }
    let mut want: BTreeMap<(u64, String), u64> = BTreeMap::new();
    for d in r.plan()["devices"].as_array().unwrap() {
        for (dir, c) in d["memory_copies"].as_object().unwrap() {
            want.insert(
                (u(&d["gpu"]), memcpy_event_name(dir).to_string()),
                u(&c["count"]),
            );
        }
    }
    assert_eq!(got, want, "copies per (GPU plane, direction)");
}

/// Register and scratch resources on every kernel's event metadata, as the scenario's code
/// object declares them (`scenarios/multi-gpu.toml`: gemm 128 arch VGPRs + 64 AGPRs, softmax
/// 256 scratch bytes, defaults 32 SGPRs / 32 VGPRs), and `uses_scratch` only where there is
/// scratch. Both SDK families, every GPU plane.
#[test]
fn kernels_carry_their_register_and_scratch_resources() {
    for sdk in SDKS {
        let r = cached(&builtin("multi-gpu.toml"), sdk, &[]);
        let want: HashMap<&str, (i64, i64, i64, i64)> = [
            (
                "gemm_bf16(void const*, void const*, void*, int)",
                (32, 128, 64, 0),
            ),
            ("layernorm_fwd", (32, 32, 0, 0)),
            ("softmax_fwd", (32, 32, 0, 256)),
        ]
        .into_iter()
        .collect();
        let mut seen = 0;
        for e in kernels(&r.space) {
            let Some(&(sgpr, vgpr, agpr, scratch)) = want.get(e.name()) else {
                continue;
            };
            seen += 1;
            let got = |n: &str| match e.stat(n) {
                Some(Stat::I64(v)) => v,
                other => panic!("{sdk}: {} {n} = {other:?}", e.name()),
            };
            assert_eq!(
                (
                    got("sgpr_count"),
                    got("arch_vgpr_count"),
                    got("agpr_count"),
                    got("scratch_bytes")
                ),
                (sgpr, vgpr, agpr, scratch),
                "{sdk}: {}",
                e.name()
            );
            assert_eq!(
                e.stat("uses_scratch").is_some(),
                scratch > 0,
                "{sdk}: {}",
                e.name()
            );
        }
        assert!(seen > 0, "{sdk}: none of the scenario's kernels found");
    }
}

/// The newest SDK's longer kernel-dispatch record (192 bytes, `int32_t pipe_id` at 184; issue
/// 10, reference "newer" §3.2), in the simulator's 1.4.0 personality: every record is read
/// (none counted as bad size, the accounting check passes) and each kernel carries `pipe_id`,
/// one value per HSA queue (the simulator models the pipe as the queue's index). The 1.0.0
/// personality's 184-byte records give no `pipe_id`.
#[test]
fn the_longer_dispatch_record_is_read_and_pipe_id_written() {
    let s = support::sim::cached(&builtin("concurrent-streams.toml"), "1.4.0", &[]);
    assert_eq!(counter(&s.space, "bad_size_records"), 0);
    let mut pipe_of_queue: BTreeMap<u64, i64> = BTreeMap::new();
    let mut kernels = 0;
    for e in device_events(&s.space)
        .into_iter()
        .filter(|e| e.is_kernel())
    {
        kernels += 1;
        let stat = |n: &str| match e.raw_stat(n) {
            Some(rocprof_xplane::xplane::proto::x_stat::Value::Int64Value(v)) => Some(*v),
            Some(rocprof_xplane::xplane::proto::x_stat::Value::Uint64Value(v)) => Some(*v as i64),
            _ => None,
        };
        let pipe = stat("pipe_id").unwrap_or_else(|| panic!("{}: no pipe_id", e.name()));
        let queue = stat("hsa_queue").expect("hsa_queue") as u64;
        assert!((0..4).contains(&pipe), "{pipe}");
        assert_eq!(
            *pipe_of_queue.entry(queue).or_insert(pipe),
            pipe,
            "queue {queue:#x}"
        );
    }
    assert!(kernels > 0);
    assert!(pipe_of_queue.len() > 1, "several queues: {pipe_of_queue:?}");
    let old = support::sim::cached(&builtin("concurrent-streams.toml"), "1.0.0", &[]);
    assert!(device_events(&old.space)
        .into_iter()
        .filter(|e| e.is_kernel())
        .all(|e| e.raw_stat("pipe_id").is_none()));
}
