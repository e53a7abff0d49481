//! The records of one simulated run as rocprofv3 holds them before it writes any output: read
//! from what the simulator's test tool (`librocprof_sim_test_tool.so`, loaded beside ours)
//! logged of every record and callback. The rocpd, JSON and CSV writers (`rocpd`,
//! `rocprofv3_json`, `rocprofv3_csv`) all write these, so their files hold the same records.
//! Test infrastructure: no GPU is involved.
//!
//! What rocprofv3 keeps beside the buffer records comes from the callbacks, as rocprofv3 takes
//! it: each HIP call's arguments (at entry), the SDK stream id current on the calling thread
//! (`HIP_STREAM_SET` brackets every call that names a stream), each roctx call's message.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::Value;

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// A kernel symbol (`CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER`).
#[derive(Debug, Clone)]
pub struct Symbol {
    pub kernel_id: u64,
    pub code_object_id: u64,
    /// The HSA symbol name (`….kd`).
    pub name: String,
    /// Static LDS bytes.
    pub group_segment_size: u64,
    pub private_segment_size: u64,
    pub sgpr_count: u64,
    pub arch_vgpr_count: u64,
    pub accum_vgpr_count: u64,
}

/// The fields every buffer record of a call or activity has.
#[derive(Debug, Clone)]
pub struct Head {
    /// The SDK's buffer tracing kind and operation ids, and their names.
    pub kind: u64,
    pub kind_name: String,
    pub op: u64,
    pub op_name: String,
    pub corr: u64,
    /// External correlation id (0 = none).
    pub ext: u64,
    pub start: u64,
    pub end: u64,
    pub tid: u64,
}

/// A HIP API call.
#[derive(Debug, Clone)]
pub struct Call {
    pub head: Head,
    /// Arguments as the SDK prints them (name, value), in the order the test tool logged them;
    /// `None` when not recorded (a call without arguments has an empty list).
    pub args: Option<Vec<(String, String)>>,
    /// The SDK stream id current on the thread during the call (0 = none named).
    pub stream_id: u64,
}

/// A kernel dispatch.
#[derive(Debug, Clone)]
pub struct Dispatch {
    pub head: Head,
    /// The agent's handle.
    pub agent: u64,
    pub queue: u64,
    pub kernel_id: u64,
    pub dispatch_id: u64,
    pub private_segment_size: u64,
    /// Static plus dynamic LDS bytes.
    pub group_segment_size: u64,
    pub workgroup: [u64; 3],
    pub grid: [u64; 3],
    /// The SDK stream id of the launching call.
    pub stream_id: u64,
}

/// A memory copy.
#[derive(Debug, Clone)]
pub struct Copy {
    pub head: Head,
    pub dst_agent: u64,
    pub src_agent: u64,
    pub bytes: u64,
    pub stream_id: u64,
}

/// A roctx record of the range kind (`MARKER_CORE_RANGE_API`: a mark, a push/pop range or a
/// start/stop range, each one record).
#[derive(Debug, Clone)]
pub struct Marker {
    pub head: Head,
    /// The text the call was given.
    pub message: Option<String>,
}

/// One process's records.
#[derive(Debug, Clone)]
pub struct Records {
    pub pid: u64,
    pub hostname: String,
    /// Process start and end (rocprofv3's `process_start_ns` / `process_end_ns`); 0 = unknown.
    pub init_ns: u64,
    pub fini_ns: u64,
    /// The agents as the SDK describes them (the test tool's log: `id` is the handle).
    pub agents: Vec<Value>,
    /// Buffer tracing kinds by id: name and operation names by id.
    pub kinds: BTreeMap<u64, (String, BTreeMap<u64, String>)>,
    pub symbols: Vec<Symbol>,
    pub calls: Vec<Call>,
    pub dispatches: Vec<Dispatch>,
    pub copies: Vec<Copy>,
    pub markers: Vec<Marker>,
}

impl Records {
    /// The records of the run the test tool logged to `log`, on host `hostname`.
    pub fn from_log(log: &Path, hostname: &str) -> Records {
        let lines: Vec<Value> = std::fs::read_to_string(log)
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let pid = lines
            .iter()
            .find(|e| e["ev"] == "configure")
            .map_or(0, |e| u(&e["pid"]));
        let mut kinds = BTreeMap::new();
        if let Some(names) = lines.iter().find(|e| e["ev"] == "names") {
            for (id, k) in names["buffer"].as_object().into_iter().flatten() {
                let ops = k["ops"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(op, n)| (op.parse().unwrap(), n.as_str().unwrap().to_string()))
                    .collect();
                kinds.insert(
                    id.parse().unwrap(),
                    (k["name"].as_str().unwrap().to_string(), ops),
                );
            }
        }
        let agents = lines
            .iter()
            .filter(|e| e["ev"] == "agent")
            .cloned()
            .collect();
        let symbols = lines
            .iter()
            .filter(|e| {
                e["ev"] == "cb"
                    && e["op_name"] == "CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER"
                    && e["phase"] == 1
            })
            .map(|s| Symbol {
                kernel_id: u(&s["kernel_id"]),
                code_object_id: u(&s["co_id"]),
                name: s["kernel_name"].as_str().unwrap_or("").to_string(),
                group_segment_size: u(&s["group_segment_size"]),
                private_segment_size: u(&s["private_segment_size"]),
                sgpr_count: u(&s["sgpr_count"]),
                arch_vgpr_count: u(&s["arch_vgpr_count"]),
                accum_vgpr_count: u(&s["accum_vgpr_count"]),
            })
            .collect();
        let at_entry = Callbacks::read(&lines);
        // The process's times: when the tool was initialized and finalized.
        let at = |ev: &str| {
            lines
                .iter()
                .find(|e| e["ev"] == ev)
                .map_or(0, |e| u(&e["now"]))
        };
        let (init_ns, fini_ns) = (at("initialize"), at("finalize_begin"));

        let mut r = Records {
            pid,
            hostname: hostname.to_string(),
            init_ns,
            fini_ns,
            agents,
            kinds,
            symbols,
            calls: Vec::new(),
            dispatches: Vec::new(),
            copies: Vec::new(),
            markers: Vec::new(),
        };
        // Call index by correlation id.
        let mut calls_seen: HashMap<u64, usize> = HashMap::new();
        for e in lines.iter().filter(|e| e["ev"] == "rec") {
            let head = Head {
                kind: u(&e["kind"]),
                kind_name: e["kind_name"].as_str().unwrap_or("").to_string(),
                op: u(&e["op"]),
                op_name: e["op_name"].as_str().unwrap_or("").to_string(),
                corr: u(&e["corr"]),
                ext: u(&e["ext"]),
                start: u(&e["start"]),
                end: u(&e["end"]),
                tid: u(&e["tid"]),
            };
            let stream_id = at_entry.stream.get(&head.corr).copied().unwrap_or(0);
            match head.kind_name.as_str() {
                // One record per call: the runtime may deliver both the plain and the `_EXT`
                // record of a call; rocprofv3 keeps the `_EXT` one.
                "HIP_RUNTIME_API" | "HIP_RUNTIME_API_EXT" => match calls_seen.get(&head.corr) {
                    Some(&i) => {
                        if head.kind_name.ends_with("_EXT") {
                            r.calls[i].head = head;
                        }
                    }
                    None => {
                        calls_seen.insert(head.corr, r.calls.len());
                        r.calls.push(Call {
                            args: at_entry.args.get(&head.corr).cloned(),
                            stream_id,
                            head,
                        });
                    }
                },
                "MARKER_CORE_RANGE_API" => r.markers.push(Marker {
                    message: at_entry.message.get(&head.corr).cloned(),
                    head,
                }),
                "KERNEL_DISPATCH" => {
                    let dim = |k: &str| [0, 1, 2].map(|i| u(&e[k][i]));
                    r.dispatches.push(Dispatch {
                        agent: u(&e["agent"]),
                        queue: u(&e["queue"]),
                        kernel_id: u(&e["kernel_id"]),
                        dispatch_id: u(&e["dispatch_id"]),
                        private_segment_size: u(&e["private_segment_size"]),
                        group_segment_size: u(&e["group_segment_size"]),
                        workgroup: dim("workgroup"),
                        grid: dim("grid"),
                        stream_id,
                        head,
                    });
                }
                "MEMORY_COPY" => r.copies.push(Copy {
                    dst_agent: u(&e["dst_agent"]),
                    src_agent: u(&e["src_agent"]),
                    bytes: u(&e["bytes"]),
                    stream_id,
                    head,
                }),
                _ => {}
            }
        }
        r
    }

    /// The agent record with handle `handle`.
    pub fn agent(&self, handle: u64) -> Option<&Value> {
        self.agents.iter().find(|a| u(&a["id"]) == handle)
    }

    /// The KFD node id of agent `handle` (rocprofv3's CSV names agents by it: `Agent <n>`).
    pub fn node_id(&self, handle: u64) -> u64 {
        self.agent(handle).map_or(0, |a| u(&a["node_id"]))
    }

    /// The symbol of kernel `kernel_id`.
    pub fn symbol(&self, kernel_id: u64) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.kernel_id == kernel_id)
    }
}

/// What the callbacks said of each call, by correlation id.
#[derive(Default)]
struct Callbacks {
    args: HashMap<u64, Vec<(String, String)>>,
    stream: HashMap<u64, u64>,
    message: HashMap<u64, String>,
}

impl Callbacks {
    fn read(lines: &[Value]) -> Callbacks {
        let mut out = Callbacks::default();
        let mut current: HashMap<u64, u64> = HashMap::new();
        for e in lines.iter().filter(|e| e["ev"] == "cb") {
            let tid = u(&e["tid"]);
            match (e["kind_name"].as_str(), u(&e["phase"])) {
                (Some("HIP_STREAM"), 1) if e["op_name"] == "HIP_STREAM_SET" => {
                    current.insert(tid, u(&e["stream_id"]));
                }
                (Some("HIP_STREAM"), 2) if e["op_name"] == "HIP_STREAM_SET" => {
                    current.remove(&tid);
                }
                (Some("HIP_RUNTIME_API"), 1) => {
                    let corr = u(&e["corr"]);
                    if let Some(args) = e["args"].as_object() {
                        let args = args
                            .iter()
                            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                            .collect();
                        out.args.insert(corr, args);
                    }
                    out.stream
                        .insert(corr, current.get(&tid).copied().unwrap_or(0));
                }
                (Some("MARKER_CORE_RANGE_API"), 1) => {
                    if let Some(m) = e["message"].as_str() {
                        out.message.insert(u(&e["corr"]), m.to_string());
                    }
                }
                _ => {}
            }
        }
        out
    }
}
