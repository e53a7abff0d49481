//! rocprofv3 JSON (`--output-format json`): one object `rocprofiler-sdk-tool` holding, per
//! process, `metadata`, `agents`, `strings` (operation names per buffer kind, indexed by kind
//! and operation id; the roctx messages by correlation id), `kernel_symbols` and
//! `buffer_records` by kind. Field names are the SDK's record fields; each `hip_api` record
//! also holds its call's `args` (`type`, `name`, `value`) where rocprofv3 wrote them (its
//! versions with rocpd output do), read as `super::calls` reads every format's arguments.

use std::path::Path;

use serde_json::Value;

use super::calls::{CallArgs, Roctx};
use super::{err, BadValue, Builder, ConvertError, Place, RowIssues};
use rocprof_xplane_core::model::events::{
    AgentInfo, AgentType, ApiDomain, ApiRecord, Collected, CopyRecord, KernelRecord, KernelSymbol,
};

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn u32_of(v: &Value) -> u32 {
    u32::try_from(u(v)).unwrap_or(u32::MAX)
}

/// One buffer record being read: required fields that are absent or of the wrong type make it
/// a bad record (`RowIssues`).
struct Rec<'a> {
    v: &'a Value,
    place: Place,
    bad: Option<BadValue>,
}

impl<'a> Rec<'a> {
    fn at(&self, path: &str) -> &'a Value {
        path.split('.').fold(self.v, |v, k| &v[k])
    }

    /// A required unsigned integer at `path` (`dispatch_info.kernel_id`).
    fn req(&mut self, path: &str) -> u64 {
        let v = self.at(path);
        match v.as_u64() {
            Some(n) => n,
            None => {
                if self.bad.is_none() {
                    self.bad = Some(BadValue {
                        place: self.place.clone(),
                        column: path.to_string(),
                        value: if v.is_null() {
                            "(absent)".into()
                        } else {
                            v.to_string()
                        },
                        expected: "an unsigned integer",
                    });
                }
                0
            }
        }
    }

    fn req32(&mut self, path: &str) -> u32 {
        u32::try_from(self.req(path)).unwrap_or(u32::MAX)
    }

    fn dim(&mut self, path: &str) -> [u32; 3] {
        [
            self.req32(&format!("{path}.x")),
            self.req32(&format!("{path}.y")),
            self.req32(&format!("{path}.z")),
        ]
    }

    /// An optional field (absent in some SDK versions): 0 when absent.
    fn opt(&self, path: &str) -> u64 {
        u(self.at(path))
    }
}

/// Reads each record of `records[kind]`, keeping those without a bad value.
fn each<T>(
    file: &Path,
    records: &Value,
    kind: &str,
    issues: &mut RowIssues,
    mut read: impl FnMut(&mut Rec<'_>) -> T,
    mut keep: impl FnMut(T),
) {
    for (i, v) in records[kind].as_array().into_iter().flatten().enumerate() {
        issues.records += 1;
        let mut rec = Rec {
            v,
            place: Place {
                file: file.to_path_buf(),
                at: format!("buffer_records.{kind}[{i}]"),
            },
            bad: None,
        };
        let t = read(&mut rec);
        match rec.bad {
            Some(b) => issues.bad.push(b),
            None => keep(t),
        }
    }
}

pub fn read(path: &Path) -> Result<Collected, ConvertError> {
    let f = std::fs::File::open(path).map_err(|e| err(path, e.to_string()))?;
    let r = super::open_maybe_gz(path, f, true)?;
    let doc: Value = serde_json::from_reader(r).map_err(|e| {
        let what = if e.is_eof() {
            "truncated JSON (the file ends inside the document)"
        } else if e.is_io() {
            "unreadable (a truncated or damaged gzip stream?)"
        } else {
            "malformed JSON"
        };
        err(
            path,
            format!("{what} at line {} column {}: {e}", e.line(), e.column()),
        )
    })?;
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
    from_tool(path, t)
}

/// One process's section.
fn from_tool(file: &Path, t: &Value) -> Result<Collected, ConvertError> {
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
    let hip_names = names("HIP_RUNTIME_API");
    for (i, n) in hip_names.iter().enumerate() {
        b.op_name(ApiDomain::Hip, i as i32, n);
    }
    for (i, n) in names("MARKER_CORE_API").iter().enumerate() {
        b.op_name(ApiDomain::Marker, i as i32, n);
    }
    let range_ops = names("MARKER_CORE_RANGE_API");
    // The kind of a record by its id: `strings.buffer_records` is indexed by kind.
    let kind_name = |kind: u64| -> &str {
        t["strings"]["buffer_records"][kind as usize]["kind"]
            .as_str()
            .unwrap_or("")
    };
    // roctx texts by the correlation id of their call.
    let messages: std::collections::HashMap<u64, &str> = t["strings"]["marker_api"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| Some((m["key"].as_u64()?, m["value"].as_str()?)))
        .collect();

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
    let mut issues = RowIssues::default();
    each(
        file,
        records,
        "kernel_dispatch",
        &mut issues,
        |r| {
            let agent = r.req("dispatch_info.agent_id.handle");
            let k = KernelRecord {
                correlation_id: r.req("correlation_id.internal"),
                external_id: r.opt("correlation_id.external"),
                start_ns: r.req("start_timestamp"),
                end_ns: r.req("end_timestamp"),
                thread_id: r.opt("thread_id"),
                agent,
                queue: r.req("dispatch_info.queue_id.handle"),
                kernel_id: r.req("dispatch_info.kernel_id"),
                dispatch_id: r.opt("dispatch_info.dispatch_id"),
                private_segment_size: u32_of(r.at("dispatch_info.private_segment_size")),
                group_segment_size: u32_of(r.at("dispatch_info.group_segment_size")),
                workgroup: r.dim("dispatch_info.workgroup_size"),
                grid: r.dim("dispatch_info.grid_size"),
                pipe_id: r
                    .at("dispatch_info.pipe_id")
                    .as_i64()
                    .or_else(|| r.at("pipe_id").as_i64())
                    .and_then(|v| i32::try_from(v).ok())
                    .and_then(rocprofiler_sdk_sys::dispatch_pipe),
            };
            (k, r.opt("stream_id.handle"))
        },
        |(k, stream)| {
            if k.correlation_id != 0 {
                b.on_stream(k.correlation_id, stream, ordinal(k.agent));
            }
            b.c.push_kernel(k);
        },
    );
    each(
        file,
        records,
        "hip_api",
        &mut issues,
        |r| {
            let a = ApiRecord {
                domain: ApiDomain::Hip,
                operation: i32::try_from(r.req("operation")).unwrap_or(-1),
                correlation_id: r.req("correlation_id.internal"),
                external_id: r.opt("correlation_id.external"),
                start_ns: r.req("start_timestamp"),
                end_ns: r.req("end_timestamp"),
                thread_id: r.opt("thread_id"),
            };
            let args = CallArgs::of(r.at("args").as_array().into_iter().flatten().map(|a| {
                (
                    a["name"].as_str().unwrap_or(""),
                    a["value"].as_str().unwrap_or(""),
                )
            }));
            (a, args)
        },
        |(a, args)| {
            let name = usize::try_from(a.operation)
                .ok()
                .and_then(|i| hip_names.get(i))
                .map_or("", String::as_str);
            b.hip_call(a, name, args);
        },
    );
    each(
        file,
        records,
        "memory_copy",
        &mut issues,
        |r| {
            let m = CopyRecord {
                correlation_id: r.req("correlation_id.internal"),
                external_id: r.opt("correlation_id.external"),
                start_ns: r.req("start_timestamp"),
                end_ns: r.req("end_timestamp"),
                thread_id: r.opt("thread_id"),
                operation: i32::try_from(r.req("operation")).unwrap_or(0),
                dst_agent: r.req("dst_agent_id.handle"),
                src_agent: r.req("src_agent_id.handle"),
                bytes: r.req("bytes"),
            };
            (m, r.opt("stream_id.handle"))
        },
        |(m, stream)| {
            if m.correlation_id != 0 {
                let gpu = [m.dst_agent, m.src_agent]
                    .into_iter()
                    .map(ordinal)
                    .find(|&o| o >= 0)
                    .unwrap_or(-1);
                b.on_stream(m.correlation_id, stream, gpu);
            }
            b.c.copies.push(m);
        },
    );
    // roctx: a record of the range kind (a mark, a push/pop or a start/stop range) with its
    // text; others (the push, pop and stop calls of older SDKs, the control and name calls)
    // are counted.
    let mut others = 0u64;
    each(
        file,
        records,
        "marker_api",
        &mut issues,
        |r| {
            (
                r.req("kind"),
                r.req("operation"),
                r.req("correlation_id.internal"),
                r.req("start_timestamp"),
                r.req("end_timestamp"),
                r.opt("thread_id"),
            )
        },
        |(kind, op, corr, start, end, tid)| {
            let text = messages
                .get(&corr)
                .filter(|_| kind_name(kind) == "MARKER_CORE_RANGE_API");
            let Some(label) = text else {
                others += 1;
                return;
            };
            b.roctx(&Roctx {
                op: range_ops.get(op as usize).map(String::as_str),
                label,
                thread_id: tid,
                correlation_id: corr,
                start_ns: start,
                end_ns: end,
            });
        },
    );
    b.c.warnings.extend(issues.settle()?);
    if others > 0 {
        b.c.warnings.push(format!(
            "{others} roctx records without a text of their own (MARKER_CORE_API push, pop and \
             stop calls, control and name calls) were not converted: the range records carry \
             the ranges' texts"
        ));
    }
    b.op_name(ApiDomain::Marker, 0, "roctxMarkA");
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
            local_mem_bytes: rocprofiler_sdk_sys::gpu_memory_bytes(
                u(&a["local_mem_size"]),
                a["mem_banks"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|m| (u32_of(&m["heap_type"]), u(&m["size_in_bytes"]))),
            ),
            gfx_target_version: u32_of(&a["gfx_target_version"]),
        });
    }
    out
}
