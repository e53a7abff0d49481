//! rocprofv3 JSON (`--output-format json`): one object `rocprofiler-sdk-tool` holding, per
//! process, `metadata`, `agents`, `strings` (operation names per buffer kind), `kernel_symbols`
//! and `buffer_records` by kind. Field names are the SDK's record fields.

use std::path::Path;

use serde_json::Value;

use super::{err, Builder, ConvertError};
use rocprof_xplane_core::model::events::{
    AgentInfo, AgentType, ApiDomain, ApiRecord, Collected, CopyRecord, KernelRecord, KernelSymbol,
};

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn u32_of(v: &Value) -> u32 {
    u32::try_from(u(v)).unwrap_or(u32::MAX)
}

fn dim(v: &Value) -> [u32; 3] {
    [u32_of(&v["x"]), u32_of(&v["y"]), u32_of(&v["z"])]
}

pub fn read(path: &Path) -> Result<Collected, ConvertError> {
    let f = std::fs::File::open(path).map_err(|e| err(path, e.to_string()))?;
    let r = super::open_maybe_gz(path, f, true)?;
    let doc: Value = serde_json::from_reader(r).map_err(|e| err(path, format!("bad JSON: {e}")))?;
    let tools = doc["rocprofiler-sdk-tool"]
        .as_array()
        .ok_or_else(|| err(path, "no `rocprofiler-sdk-tool` array: not rocprofv3 JSON"))?;
    let [t] = &tools[..] else {
        return Err(err(
            path,
            format!(
                "{} processes in one file; convert each process's file separately",
                tools.len()
            ),
        ));
    };
    from_tool(t).map_err(|m| err(path, m))
}

/// One process's section.
fn from_tool(t: &Value) -> Result<Collected, String> {
    let meta = &t["metadata"];
    let hostname = meta["node"]["hostname"].as_str().unwrap_or("").to_string();
    let pid = u32::try_from(u(&meta["pid"])).unwrap_or(0);
    let mut b = Builder::new(hostname, pid);
    b.c.start_boottime_ns = u(&meta["init_time"]);
    b.c.stop_boottime_ns = u(&meta["fini_time"]);

    let agents = agents(t);
    let ordinal = |handle: u64| -> i32 {
        agents
            .iter()
            .find(|a| a.handle == handle && a.kind == AgentType::Gpu)
            .map_or(-1, |a| a.type_index)
    };
    // Operation names per buffer kind, by the kind's name.
    let names = |kind: &str| -> Vec<String> {
        t["strings"]["buffer_records"]
            .as_array()
            .and_then(|ks| ks.iter().find(|k| k["kind"] == kind))
            .and_then(|k| k["operations"].as_array())
            .map(|ops| {
                ops.iter()
                    .map(|o| o.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    for (i, n) in names("HIP_RUNTIME_API").iter().enumerate() {
        b.op_name(ApiDomain::Hip, i as i32, n);
    }
    for (i, n) in names("MARKER_CORE_API").iter().enumerate() {
        b.op_name(ApiDomain::Marker, i as i32, n);
    }

    for s in t["kernel_symbols"].as_array().into_iter().flatten() {
        let id = u(&s["kernel_id"]);
        let raw = s["kernel_name"].as_str().unwrap_or("");
        if raw.is_empty() {
            continue;
        }
        b.symbol(
            id,
            raw,
            KernelSymbol {
                name: "".into(),
                sgpr_count: u32_of(&s["sgpr_count"]),
                arch_vgpr_count: u32_of(&s["arch_vgpr_count"]),
                accum_vgpr_count: u32_of(&s["accum_vgpr_count"]),
                group_segment_size: u32_of(&s["group_segment_size"]),
                private_segment_size: u32_of(&s["private_segment_size"]),
            },
        );
    }

    let records = &t["buffer_records"];
    for r in records["kernel_dispatch"].as_array().into_iter().flatten() {
        let d = &r["dispatch_info"];
        let agent = u(&d["agent_id"]["handle"]);
        let corr = u(&r["correlation_id"]["internal"]);
        b.c.push_kernel(KernelRecord {
            correlation_id: corr,
            external_id: u(&r["correlation_id"]["external"]),
            start_ns: u(&r["start_timestamp"]),
            end_ns: u(&r["end_timestamp"]),
            thread_id: u(&r["thread_id"]),
            agent,
            queue: u(&d["queue_id"]["handle"]),
            kernel_id: u(&d["kernel_id"]),
            dispatch_id: u(&d["dispatch_id"]),
            private_segment_size: u32_of(&d["private_segment_size"]),
            group_segment_size: u32_of(&d["group_segment_size"]),
            workgroup: dim(&d["workgroup_size"]),
            grid: dim(&d["grid_size"]),
            pipe_id: d
                .get("pipe_id")
                .or_else(|| r.get("pipe_id"))
                .and_then(Value::as_i64)
                .map(|v| v as i32),
        });
        if corr != 0 {
            b.on_stream(corr, u(&r["stream_id"]["handle"]), ordinal(agent));
        }
    }
    for r in records["hip_api"].as_array().into_iter().flatten() {
        b.c.api.push(ApiRecord {
            domain: ApiDomain::Hip,
            operation: r["operation"].as_i64().unwrap_or(-1) as i32,
            correlation_id: u(&r["correlation_id"]["internal"]),
            external_id: u(&r["correlation_id"]["external"]),
            start_ns: u(&r["start_timestamp"]),
            end_ns: u(&r["end_timestamp"]),
            thread_id: u(&r["thread_id"]),
        });
    }
    for r in records["memory_copy"].as_array().into_iter().flatten() {
        b.c.copies.push(CopyRecord {
            correlation_id: u(&r["correlation_id"]["internal"]),
            external_id: u(&r["correlation_id"]["external"]),
            start_ns: u(&r["start_timestamp"]),
            end_ns: u(&r["end_timestamp"]),
            thread_id: u(&r["thread_id"]),
            operation: r["operation"].as_i64().unwrap_or(0) as i32,
            dst_agent: u(&r["dst_agent_id"]["handle"]),
            src_agent: u(&r["src_agent_id"]["handle"]),
            bytes: u(&r["bytes"]),
        });
    }
    let markers = records["marker_api"].as_array().map_or(0, Vec::len);
    if markers > 0 {
        b.c.warnings.push(format!(
            "{markers} roctx records in the input were not converted (their text is not in rocprofv3's JSON records)"
        ));
    }
    b.c.agents = agents;
    Ok(b.finish())
}

/// `agents`: GPUs numbered in the order rocprofv3 lists them (its `gpu_index` when present).
fn agents(t: &Value) -> Vec<AgentInfo> {
    let mut gpu = 0;
    let mut out = Vec::new();
    for a in t["agents"].as_array().into_iter().flatten() {
        let kind = match u(&a["type"]) {
            1 => AgentType::Cpu,
            2 => AgentType::Gpu,
            _ => AgentType::Other,
        };
        let type_index = match kind {
            AgentType::Gpu => {
                let i = a["gpu_index"].as_i64().map_or(gpu, |v| v as i32);
                gpu += 1;
                i
            }
            _ => -1,
        };
        let simds = u32_of(&a["simd_per_cu"]);
        out.push(AgentInfo {
            handle: u(&a["id"]["handle"]),
            kind,
            type_index,
            node_id: u32_of(&a["node_id"]),
            name: a["name"].as_str().unwrap_or("").into(),
            product_name: a["product_name"].as_str().unwrap_or("").into(),
            vendor_name: a["vendor_name"].as_str().unwrap_or("").into(),
            cu_count: u32_of(&a["cu_count"]),
            simd_per_cu: simds,
            wave_front_size: u32_of(&a["wave_front_size"]),
            max_waves_per_cu: match u32_of(&a["max_waves_per_cu"]) {
                0 => u32_of(&a["max_waves_per_simd"]) * simds,
                n => n,
            },
            max_engine_clk_mhz: u32_of(&a["max_engine_clk_fcompute"]),
            local_mem_bytes: u(&a["local_mem_size"]),
            gfx_target_version: u32_of(&a["gfx_target_version"]),
        });
    }
    out
}
