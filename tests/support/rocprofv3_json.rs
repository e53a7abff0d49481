//! rocprofv3's JSON output (`--output-format json`, `<pid>_results.json`) of a simulated run's
//! [`Records`]: one `rocprofiler-sdk-tool` entry per process with `metadata`, `agents`,
//! `strings` (the buffer kinds' operation names indexed by kind and operation id, the roctx
//! messages by correlation id), `kernel_symbols` (indexed by kernel id) and `buffer_records`
//! by kind, each record with the SDK's field names as rocprofv3 serializes them (the HIP
//! records with their `args` and `stream_id`, the dispatches and copies with `stream_id`), as
//! in the real MI350X file of `../shared/testdata/real/` and rocprofv3's serializers.
//! Test infrastructure: no GPU is involved.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::records::{Head, Records};

fn handle(h: u64) -> Value {
    json!({ "handle": h })
}

fn dim(d: [u64; 3]) -> Value {
    json!({ "x": d[0], "y": d[1], "z": d[2] })
}

/// The fields every API record has (rocprofv3's `save_buffer_tracing_api_record`).
fn api_record(h: &Head, size: u64) -> Map<String, Value> {
    let v = json!({
        "size": size,
        "kind": h.kind,
        "operation": h.op,
        "correlation_id": { "internal": h.corr, "external": h.ext },
        "start_timestamp": h.start,
        "end_timestamp": h.end,
        "thread_id": h.tid,
    });
    v.as_object().unwrap().clone()
}

/// The SDK's agent record as rocprofv3 writes it: the handle as `{"handle": …}` and the GPU
/// index (-1 for other agents).
fn agent(a: &Value) -> Value {
    let mut a = a.as_object().cloned().unwrap_or_default();
    a.remove("ev");
    let gpu_index = if a["type"] == 2 {
        a["logical_node_type_id"].as_i64().unwrap_or(0)
    } else {
        -1
    };
    a.insert("id".into(), handle(a["id"].as_u64().unwrap_or(0)));
    a.insert("gpu_index".into(), json!(gpu_index));
    Value::Object(a)
}

/// `strings.buffer_records`: every kind's name and operation names, indexed by their ids.
fn kind_names(r: &Records) -> Value {
    let last = r.kinds.keys().max().copied().unwrap_or(0);
    (0..=last)
        .map(|k| match r.kinds.get(&k) {
            Some((name, ops)) => {
                let n = ops.keys().max().map_or(0, |m| m + 1);
                let ops: Vec<&str> = (0..n)
                    .map(|o| ops.get(&o).map_or("", String::as_str))
                    .collect();
                json!({ "kind": name, "operations": ops })
            }
            None if k == 0 => json!({ "kind": "NONE", "operations": [] }),
            None => json!({ "kind": "", "operations": [] }),
        })
        .collect()
}

/// `kernel_symbols`, indexed by kernel id (ids without a symbol, 0 among them, hold an empty
/// entry, as rocprofv3 writes them).
fn symbols(r: &Records) -> Value {
    let last = r.symbols.iter().map(|s| s.kernel_id).max().unwrap_or(0);
    (0..=last)
        .map(|id| {
            let s = r.symbol(id);
            let raw = s.map_or("", |s| s.name.as_str());
            let formatted = if raw.is_empty() {
                String::new()
            } else {
                rocprof_xplane::capture::symbols::clean_kernel_name(raw)
            };
            let f = |g: fn(&super::records::Symbol) -> u64| s.map_or(0, g);
            json!({
                "size": 88,
                "kernel_id": id,
                "code_object_id": f(|s| s.code_object_id),
                "kernel_name": raw,
                "kernel_object": 0,
                "kernarg_segment_size": 0,
                "kernarg_segment_alignment": 0,
                "group_segment_size": f(|s| s.group_segment_size),
                "private_segment_size": f(|s| s.private_segment_size),
                "sgpr_count": f(|s| s.sgpr_count),
                "arch_vgpr_count": f(|s| s.arch_vgpr_count),
                "accum_vgpr_count": f(|s| s.accum_vgpr_count),
                "kernel_code_entry_byte_offset": 0,
                "kernel_address": handle(0),
                "formatted_kernel_name": formatted,
                "demangled_kernel_name": raw,
                "truncated_kernel_name": raw,
            })
        })
        .collect()
}

/// The document rocprofv3 writes for `r`.
pub fn document(r: &Records) -> Value {
    let dispatches: Vec<Value> = r
        .dispatches
        .iter()
        .map(|k| {
            let h = &k.head;
            json!({
                "size": 184,
                "kind": h.kind,
                "operation": h.op,
                "thread_id": h.tid,
                "correlation_id": { "internal": h.corr, "external": h.ext },
                "start_timestamp": h.start,
                "end_timestamp": h.end,
                "dispatch_info": {
                    "size": 72,
                    "agent_id": handle(k.agent),
                    "queue_id": handle(k.queue),
                    "kernel_id": k.kernel_id,
                    "dispatch_id": k.dispatch_id,
                    "private_segment_size": k.private_segment_size,
                    "group_segment_size": k.group_segment_size,
                    "workgroup_size": dim(k.workgroup),
                    "grid_size": dim(k.grid),
                },
                "stream_id": handle(k.stream_id),
            })
        })
        .collect();
    let calls: Vec<Value> = r
        .calls
        .iter()
        .map(|c| {
            let mut m = api_record(&c.head, 176);
            // Calls whose arguments were not recorded are written as rocprofv3 wrote every
            // call before it kept them: without `args` and `retval`. The argument types are
            // not in the test tool's log.
            if let Some(args) = &c.args {
                let args: Vec<Value> = args
                    .iter()
                    .map(|(name, value)| json!({ "type": "", "name": name, "value": value }))
                    .collect();
                m.insert("args".into(), Value::Array(args));
                m.insert("retval".into(), json!({ "uint64_t_retval": 0 }));
            }
            m.insert("stream_id".into(), handle(c.stream_id));
            Value::Object(m)
        })
        .collect();
    let copies: Vec<Value> = r
        .copies
        .iter()
        .map(|m| {
            let h = &m.head;
            json!({
                "size": 96,
                "kind": h.kind,
                "operation": h.op,
                "thread_id": h.tid,
                "correlation_id": { "internal": h.corr, "external": h.ext },
                "start_timestamp": h.start,
                "end_timestamp": h.end,
                "dst_agent_id": handle(m.dst_agent),
                "src_agent_id": handle(m.src_agent),
                "bytes": m.bytes,
                "stream_id": handle(m.stream_id),
            })
        })
        .collect();
    let markers: Vec<Value> = r
        .markers
        .iter()
        .map(|m| Value::Object(api_record(&m.head, 64)))
        .collect();
    let messages: Vec<Value> = r
        .markers
        .iter()
        .filter_map(|m| {
            m.message
                .as_ref()
                .map(|t| json!({ "key": m.head.corr, "value": t }))
        })
        .collect();
    let tool = json!({
        "metadata": {
            "node": {
                "id": 0,
                "hash": 0,
                "machine_id": "",
                "system_name": "Linux",
                "hostname": r.hostname,
                "release": "",
                "version": "",
                "hardware_name": "x86_64",
                "domain_name": "(none)",
            },
            "pid": r.pid,
            "init_time": r.init_ns,
            "fini_time": r.fini_ns,
            "command": [],
            "config": {},
        },
        "agents": r.agents.iter().map(agent).collect::<Vec<_>>(),
        "counters": [],
        "strings": {
            "callback_records": [],
            "buffer_records": kind_names(r),
            "marker_api": messages,
            "correlation_id": { "external": [] },
            "counters": { "dimension_ids": [] },
            "pc_sample_instructions": [],
            "pc_sample_comments": [],
            "att_filenames": [],
            "code_object_snapshot_filenames": [],
        },
        "code_objects": [],
        "kernel_symbols": symbols(r),
        "host_functions": [],
        "summary": [],
        "callback_records": { "counter_collection": [] },
        "buffer_records": {
            "kernel_dispatch": dispatches,
            "hip_api": calls,
            "hsa_api": [],
            "marker_api": markers,
            "rccl_api": [],
            "memory_copy": copies,
            "memory_allocation": [],
            "scratch_memory": [],
            "rocdecode_api": [],
            "rocjpeg_api": [],
            "pc_sample_host_trap": [],
            "pc_sample_stochastic": [],
        },
    });
    json!({ "rocprofiler-sdk-tool": [tool] })
}

/// Writes `<dir>/<pid>_results.json`; returns its path.
pub fn write(dir: &Path, r: &Records) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(format!("{}_results.json", r.pid));
    std::fs::write(&p, serde_json::to_vec_pretty(&document(r)).unwrap()).unwrap();
    p
}
