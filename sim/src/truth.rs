//! Ground truth: what a correct profiler must report for a `Plan`, computed from the plan alone
//! (never from the tool's output), so tests can compare the tool's XPlane against it.
//!
//! Conventions shared with the scenario compiler and the simulated runtime:
//! * **Global host order** is the order of `HostOp::start_ns` over all threads (the compiler
//!   guarantees these are unique process-wide; ties, if a hand-built plan has any, fall back to
//!   thread index then op index). "Latest record before a wait" means in this order.
//! * `hip_seq` numbers the HIP API calls (`HostCall::Hip`) in that order from 0; `host_seq`
//!   numbers all host ops (HIP, markers, external-id push/pop, code-object loads).
//! * A null-stream operation belongs to the calling thread's current device: device 0 until the
//!   thread calls hipSetDevice (the compiler emits one first on threads that start elsewhere).
//! * Kernel names are symbol names with a trailing `.kd` removed (not demangled).
//!
//! Every map is a `BTreeMap` and every list is in global host order, so the JSON is stable.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::plan::*;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GroundTruth {
    pub totals: Totals,
    /// HIP API calls by API name.
    pub hip_api: BTreeMap<String, u64>,
    /// Memory copies by direction ("HostToDevice", …).
    pub memory_copies: BTreeMap<String, CopyStats>,
    /// roctx calls by kind: "mark", "push", "pop", "range_start", "range_stop".
    pub markers: BTreeMap<String, u64>,
    /// roctxMarkA calls by message.
    pub mark_messages: BTreeMap<String, u64>,
    pub devices: Vec<DeviceTruth>,
    /// Every stream that saw a call or activity, sorted by (gpu, handle).
    pub streams: Vec<StreamTruth>,
    /// Dispatches per kernel name (symbol without `.kd`).
    pub kernels: BTreeMap<String, KernelStats>,
    /// Per graph-exec handle.
    pub graphs: BTreeMap<u64, GraphTruth>,
    /// For each API name: how many calls produced k activities (k → calls). A graph launch of N
    /// nodes appears as N → launches: all N records share the launch's correlation id.
    pub activities_per_call: BTreeMap<String, BTreeMap<u64, u64>>,
    /// Every hipEventRecord in global host order (`record_index` = position here).
    pub event_records: Vec<Producer>,
    /// One edge per hipStreamWaitEvent, in global host order.
    pub waits: Vec<WaitEdge>,
    /// One entry per hipEventSynchronize, in global host order.
    pub event_syncs: Vec<EventSyncEdge>,
    pub threads: Vec<ThreadTruth>,
    /// Every roctx push/pop range instance the replay opened, in global host order of the
    /// pushes: the scope nesting a profiler's scope-range tree must reproduce pair for pair.
    pub scope_instances: Vec<ScopeInstance>,
    /// Per allocator (`GPU_<device>` for device and managed memory, `host_pinned` for pinned
    /// and registered host memory), as a profiler's memory timeline must show it.
    pub memory: BTreeMap<String, MemoryTruth>,
    /// Per GPU, its streams in creation order: the null stream first (index 0), then every
    /// hipStreamCreate* on that GPU in global order (a re-created handle is a new entry).
    pub stream_order: Vec<StreamOrder>,
    /// roctxRangeStartA/Stop ranges by message.
    pub ranges: BTreeMap<String, RangeStats>,
    /// By innermost external correlation id active at the call.
    pub external_ids: BTreeMap<u64, AttributedCounts>,
    /// Calls and activities made with no external id pushed.
    pub without_external_id: AttributedCounts,
    /// Hardware counters per kernel name and GPU, as a profiler summing each counter's
    /// instances must report them for every dispatch (`counters`). Empty for GPUs whose
    /// architecture the simulator has no counters for.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub kernel_counters: BTreeMap<String, BTreeMap<u32, KernelCounterTruth>>,
}

/// One kernel's counters on one GPU (every dispatch of it there has the same).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KernelCounterTruth {
    pub arch: String,
    pub dispatches: u64,
    /// Counter name → value summed over its instances. The cycle counters (`GRBM_*`) are
    /// left out: they depend on each dispatch's duration (cycles = duration × clock, per XCC).
    pub values: BTreeMap<String, u64>,
    /// The scenario's FLOPs and bytes of one dispatch, which the derived metrics must recover.
    pub flops: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// False when dispatches of the kernel on this GPU had different launch shapes (then
    /// `values` are the first dispatch's).
    pub uniform: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub gpus: u64,
    pub threads: u64,
    pub streams_declared: u64,
    pub code_objects: u64,
    pub kernel_symbols: u64,
    pub host_ops: u64,
    pub hip_api_calls: u64,
    pub kernel_dispatches: u64,
    pub memory_copies: u64,
    pub marker_calls: u64,
    pub external_pushes: u64,
    pub external_pops: u64,
    pub code_object_loads: u64,
    pub graph_launches: u64,
    pub graph_kernel_dispatches: u64,
    /// hipStreamWaitEvent calls whose event had no earlier hipEventRecord.
    pub unresolved_waits: u64,
    /// First host/device timestamp and last one (ns).
    pub first_ns: u64,
    pub last_ns: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CopyStats {
    pub count: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeviceTruth {
    pub gpu: u32,
    /// What the runtime reports for this GPU's agent (flattened: `name`, `cu_count`, … sit
    /// beside the counts in the JSON).
    #[serde(flatten)]
    pub agent: AgentProperties,
    pub kernel_dispatches: u64,
    /// Sum of kernel durations (ns).
    pub kernel_ns: u64,
    /// Copies whose stream belongs to this device, by direction.
    pub memory_copies: BTreeMap<String, CopyStats>,
    /// Kernel dispatches per HSA queue index.
    pub queues: BTreeMap<u32, u64>,
}

/// The properties of GPU `gpu`'s agent as `rocprofiler_query_available_agents` reports them,
/// so tests can check a tool's device planes against the plan instead of against what a test
/// tool saw. `runtime::agents` fills the agent struct from [`AgentProperties::of`], so the
/// two cannot disagree. Field names follow the plan (`GpuSpec`); where the agent struct names
/// the field differently the doc says which.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AgentProperties {
    /// ISA name (agent `name`), e.g. "gfx942".
    pub name: String,
    pub vendor_name: String,
    pub product_name: String,
    pub model_name: String,
    /// KFD node id; the CPU agent is node 0, GPU `i` is node `i + 1`.
    pub node_id: u32,
    pub logical_node_id: i32,
    /// Index among the GPU agents (= the HIP device ordinal here).
    pub logical_node_type_id: i32,
    pub cu_count: u32,
    pub simd_per_cu: u32,
    /// `cu_count × simd_per_cu`.
    pub simd_count: u32,
    pub wave_front_size: u32,
    pub max_waves_per_cu: u32,
    pub max_waves_per_simd: u32,
    /// Agent `max_engine_clk_fcompute`, MHz.
    pub max_engine_clk_mhz: u32,
    pub num_xcc: u32,
    pub lds_size_in_kb: u32,
    /// The GPU's memory, bytes: agent `local_mem_size`, or its frame-buffer bank alone when
    /// `memory_in_banks`.
    pub local_mem_bytes: u64,
    /// How the agent reports its memory, not what a profiler shows: not in the ground truth.
    #[serde(skip)]
    pub memory_in_banks: bool,
    /// major*10000 + minor*100 + stepping.
    pub gfx_target_version: u32,
    pub vendor_id: u16,
    pub device_id: u16,
}

impl AgentProperties {
    /// The agent of the plan's GPU number `gpu`.
    pub fn of(gpu: u32, g: &GpuSpec) -> Self {
        AgentProperties {
            name: g.name.clone(),
            vendor_name: "AMD".into(),
            product_name: g.product_name.clone(),
            model_name: g.model_name.clone(),
            node_id: gpu + 1,
            logical_node_id: gpu as i32 + 1,
            logical_node_type_id: gpu as i32,
            cu_count: g.cu_count,
            simd_per_cu: g.simd_per_cu,
            simd_count: g.cu_count * g.simd_per_cu,
            wave_front_size: g.wave_front_size,
            max_waves_per_cu: g.max_waves_per_cu,
            max_waves_per_simd: g.max_waves_per_cu / g.simd_per_cu.max(1),
            max_engine_clk_mhz: g.max_engine_clk_mhz,
            num_xcc: g.num_xcc,
            lds_size_in_kb: g.lds_size_in_kb,
            local_mem_bytes: g.local_mem_bytes,
            memory_in_banks: g.memory_in_banks,
            gfx_target_version: g.gfx_target_version,
            vendor_id: g.vendor_id,
            device_id: g.device_id,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StreamTruth {
    pub gpu: u32,
    /// `hipStream_t` value; 0 = the null stream of `gpu`.
    pub handle: u64,
    pub name: String,
    pub kernel_dispatches: u64,
    pub memory_copies: u64,
    pub kernel_ns: u64,
    pub copy_ns: u64,
    /// HIP API calls naming this stream (launches, copies, records, waits, syncs, create/destroy).
    pub api_calls: u64,
    /// Earliest activity start and latest activity end (0 if none).
    pub first_start_ns: u64,
    pub last_end_ns: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KernelStats {
    pub dispatches: u64,
    pub total_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// Dispatches per GPU.
    pub per_gpu: BTreeMap<u32, u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GraphTruth {
    pub launches: u64,
    pub kernel_dispatches: u64,
    /// Distinct kernel names dispatched by this graph.
    pub distinct_kernels: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamRef {
    pub gpu: u32,
    pub handle: u64,
    pub name: String,
}

/// Identifies a host op: thread index and index in `ThreadPlan::ops`, plus its global ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OpRef {
    pub thread: u32,
    pub op_index: u64,
    pub host_seq: u64,
    pub hip_seq: u64,
    /// The internal correlation id the simulated runtime gives this call (and its device
    /// work): HIP and roctx calls are numbered 1, 2, … in global host order; external-id
    /// push/pop and code-object loads take none.
    pub correlation_id: u64,
}

/// One device activity (kernel dispatch or memory copy) of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ActivityRef {
    /// The HIP call that submitted it; `call.correlation_id` is the activity's correlation id.
    pub call: OpRef,
    /// Index in that call's activities (a graph launch has many).
    pub index: u32,
    /// "kernel" or "copy".
    pub kind: &'static str,
    pub gpu: u32,
    /// `hipStream_t` it ran on (0 = the null stream of `gpu`).
    pub stream: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Producer {
    /// Ordinal of the producing hipEventRecord among all hipEventRecord calls (global order).
    pub record_index: u64,
    pub record: OpRef,
    pub event: u64,
    pub stream: StreamRef,
    /// The last device activity submitted to `stream` before the record (the work the event
    /// waits for). Of a call with several activities on the stream (graph launch), the one
    /// ending last. `None` if nothing was submitted to the stream before.
    pub last_activity: Option<ActivityRef>,
    /// When the event completes in the timing model: `max(end of all work submitted to
    /// stream before the record, end of the record call)`.
    pub complete_ns: u64,
    /// The RECORD barrier packet (reported by SDKs with HIP event tracing).
    pub barrier: Option<BarrierTruth>,
}

/// A hipEventRecord / hipStreamWaitEvent barrier packet on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BarrierTruth {
    /// GPU and HSA queue index it was dispatched to (its stream's).
    pub gpu: u32,
    pub queue: u32,
    /// GPU and queue index of the stream the event was recorded on.
    pub source_gpu: u32,
    pub source_queue: u32,
    pub start_ns: u64,
    pub end_ns: u64,
}

impl BarrierTruth {
    fn of(b: &Barrier) -> Self {
        BarrierTruth {
            gpu: b.gpu,
            queue: b.queue,
            source_gpu: b.source_gpu,
            source_queue: b.source_queue,
            start_ns: b.start_ns,
            end_ns: b.end_ns,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WaitEdge {
    pub wait: OpRef,
    pub stream: StreamRef,
    pub event: u64,
    pub flags: u32,
    /// `None` = unresolved (the event was never recorded before the wait).
    pub producer: Option<Producer>,
    /// The first device activity submitted to the waiting `stream` after the wait (by a later
    /// call in global order); of a call with several, the one starting first. `None` if
    /// nothing follows on that stream. Set whether or not the wait is resolved.
    pub consumer: Option<ActivityRef>,
    /// The WAIT barrier packet; `None` when the runtime enqueues none (event never recorded,
    /// or already complete when the call checked it).
    pub barrier: Option<BarrierTruth>,
}

/// A stream's place in its GPU's creation order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamOrder {
    pub gpu: u32,
    pub handle: u64,
    pub name: String,
    /// 0 for the null stream, then 1, 2, … per GPU in creation order.
    pub index: u32,
    /// The hipStreamCreate* call (`None` for the null stream).
    pub created: Option<OpRef>,
    /// The hipStreamDestroy that ended this incarnation, if any.
    pub destroyed: Option<OpRef>,
    /// The stream had device work, or was named by a hipEventRecord, hipStreamWaitEvent or
    /// hipStreamSynchronize during this incarnation.
    pub used: bool,
    /// Dense rank among the `used` entries of this GPU in `index` order (null stream first):
    /// the `N` of a `Stream #N` line when lines exist exactly for used streams. `None` if unused.
    pub line_index: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventSyncEdge {
    pub sync: OpRef,
    pub event: u64,
    pub producer: Option<Producer>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AttributedCounts {
    pub hip_api_calls: u64,
    pub marker_calls: u64,
    pub kernel_dispatches: u64,
    pub memory_copies: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ScopeTruth {
    /// roctx push labels from outermost to innermost.
    pub path: Vec<String>,
    /// How often this exact stack was entered (pushes of its innermost label).
    pub entered: u64,
    /// Work done while this was exactly the thread's stack.
    pub counts: AttributedCounts,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ThreadTruth {
    pub index: u32,
    pub name: String,
    pub host_ops: u64,
    pub hip_api: BTreeMap<String, u64>,
    /// roctx push/pop tree as (path → counts), sorted by path; the empty path is "no range".
    pub scopes: Vec<ScopeTruth>,
    /// Labels still pushed when the thread ends (outermost first).
    pub open_at_end: Vec<String>,
    pub max_depth: u32,
    pub ops_start_ns: u64,
    pub ops_end_ns: u64,
}

/// One roctxRangePushA … roctxRangePop range as replayed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ScopeInstance {
    /// Index in `scope_instances`.
    pub index: u64,
    pub thread: u32,
    pub label: String,
    /// The instance open on the same thread when this one was pushed (`None` = outermost).
    pub parent: Option<u64>,
    /// 1 for an outermost range.
    pub depth: u32,
    /// Internal correlation ids the simulated runtime gives the push and the pop (HIP and roctx
    /// calls are numbered from 1 in global host order); `pop_correlation_id` is `None` for a
    /// range still open at the end.
    pub push_correlation_id: u64,
    pub pop_correlation_id: Option<u64>,
    /// Work done while this was the thread's innermost range (attributed at call entry, as in
    /// `ScopeTruth`): HIP calls, roctx calls (its own pop included), dispatches, copies.
    pub counts: AttributedCounts,
    /// Host time of the range: the start of its push and the end of its pop (`pop_ns` is
    /// `None` for a range still open at the end).
    pub push_ns: u64,
    pub pop_ns: Option<u64>,
    /// Everything the thread's HIP calls made while this range was open, nested ranges
    /// included: what a profiler that groups work into steps by this range must count in it.
    pub enclosed: EnclosedWork,
}

/// The device work of the HIP calls made inside a range (at any depth below it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct EnclosedWork {
    pub kernel_dispatches: u64,
    pub memory_copies: u64,
    /// Sum of the kernels' durations (ns).
    pub kernel_ns: u64,
    /// The earliest start and the latest end of that work (0 and 0 when there is none): the
    /// range's span on the device.
    pub device_start_ns: u64,
    pub device_end_ns: u64,
}

impl EnclosedWork {
    fn add(&mut self, a: &Activity) {
        let (start, end) = (act_start(a), act_end(a));
        match a {
            Activity::Kernel { .. } => {
                self.kernel_dispatches += 1;
                self.kernel_ns += end - start;
            }
            Activity::Copy { .. } => self.memory_copies += 1,
        }
        if self.kernel_dispatches + self.memory_copies == 1 {
            self.device_start_ns = start;
            self.device_end_ns = end;
        } else {
            self.device_start_ns = self.device_start_ns.min(start);
            self.device_end_ns = self.device_end_ns.max(end);
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RangeStats {
    pub started: u64,
    pub stopped: u64,
    /// Ranges stopped on a different thread than they started on.
    pub cross_thread: u64,
}

fn direction_name(d: CopyDirection) -> &'static str {
    match d {
        CopyDirection::HostToHost => "HostToHost",
        CopyDirection::HostToDevice => "HostToDevice",
        CopyDirection::DeviceToHost => "DeviceToHost",
        CopyDirection::DeviceToDevice => "DeviceToDevice",
    }
}

/// Kernel name as the truth reports it: the symbol without a trailing `.kd`.
pub fn kernel_display_name(symbol: &str) -> &str {
    symbol.strip_suffix(".kd").unwrap_or(symbol)
}

/// The global host order: (thread, op index) sorted by start time, then thread, then index.
pub fn global_order(plan: &Plan) -> Vec<(u32, u32)> {
    let mut v: Vec<(u64, u32, u32)> = plan
        .threads
        .iter()
        .enumerate()
        .flat_map(|(t, th)| {
            th.ops
                .iter()
                .enumerate()
                .map(move |(i, op)| (op.start_ns, t as u32, i as u32))
        })
        .collect();
    v.sort_unstable();
    v.into_iter().map(|(_, t, i)| (t, i)).collect()
}

impl GroundTruth {
    pub fn from_plan(plan: &Plan) -> Self {
        Builder::new(plan).run()
    }

    /// Pretty JSON, for golden files and for eyeballing a scenario.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("ground truth serialises")
    }
}

/// One allocator's allocations over the run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MemoryTruth {
    pub allocations: u64,
    pub frees: u64,
    /// The most bytes allocated at once, and what is still allocated at the end.
    pub peak_bytes: u64,
    pub final_bytes: u64,
}

struct Builder<'p> {
    plan: &'p Plan,
    /// Live allocations: address → (allocator, bytes).
    live_memory: HashMap<u64, (String, u64)>,
    gt: GroundTruth,
    stream_names: HashMap<u64, (u32, &'p str)>,
    streams: BTreeMap<(u32, u64), StreamTruth>,
    devices: Vec<u32>,
    /// Latest record per event handle.
    latest_record: HashMap<u64, Producer>,
    /// Last activity submitted per (gpu, stream handle).
    last_activity: HashMap<(u32, u64), ActivityRef>,
    /// Latest end of the work submitted per (gpu, stream handle).
    tail: HashMap<(u32, u64), u64>,
    /// Activities per (gpu, stream handle) in submission order, to find wait consumers.
    stream_acts: HashMap<(u32, u64), Vec<ActivityRef>>,
    /// Index in `gt.stream_order` of each live stream incarnation.
    live_stream: HashMap<(u32, u64), usize>,
    record_count: u64,
    /// Per plan kernel index; merged by name at the end (two GPUs' symbols share a name).
    kernel_stats: HashMap<u32, KernelStats>,
    graph_kernels: BTreeMap<u64, std::collections::BTreeSet<u32>>,
}

impl<'p> Builder<'p> {
    fn new(plan: &'p Plan) -> Self {
        let stream_names = plan
            .streams
            .iter()
            .map(|s| (s.handle, (s.gpu, s.name.as_str())))
            .collect();
        let devices = vec![0; plan.threads.len()];
        Self {
            plan,
            live_memory: HashMap::new(),
            gt: GroundTruth::default(),
            stream_names,
            streams: BTreeMap::new(),
            devices,
            latest_record: HashMap::new(),
            last_activity: HashMap::new(),
            tail: HashMap::new(),
            stream_acts: HashMap::new(),
            live_stream: HashMap::new(),
            record_count: 0,
            kernel_stats: HashMap::new(),
            graph_kernels: BTreeMap::new(),
        }
    }

    /// Resolves a stream handle named by a call of `thread`.
    fn stream_ref(&self, thread: u32, handle: u64) -> StreamRef {
        match self.stream_names.get(&handle) {
            Some(&(gpu, name)) if handle != 0 => StreamRef {
                gpu,
                handle,
                name: name.to_string(),
            },
            _ => StreamRef {
                gpu: if handle == 0 {
                    self.devices[thread as usize]
                } else {
                    0
                },
                handle,
                name: if handle == 0 {
                    "null".into()
                } else {
                    format!("0x{handle:x}")
                },
            },
        }
    }

    fn stream_entry(&mut self, s: &StreamRef) -> &mut StreamTruth {
        self.streams
            .entry((s.gpu, s.handle))
            .or_insert_with(|| StreamTruth {
                gpu: s.gpu,
                handle: s.handle,
                name: s.name.clone(),
                ..Default::default()
            })
    }

    fn run(mut self) -> GroundTruth {
        let plan = self.plan;
        let gt = &mut self.gt;
        gt.totals.gpus = plan.gpus.len() as u64;
        gt.totals.threads = plan.threads.len() as u64;
        gt.totals.streams_declared = plan.streams.len() as u64;
        gt.totals.code_objects = plan.code_objects.len() as u64;
        gt.totals.kernel_symbols = plan.kernels.len() as u64;
        gt.devices = plan
            .gpus
            .iter()
            .enumerate()
            .map(|(i, g)| DeviceTruth {
                gpu: i as u32,
                agent: AgentProperties::of(i as u32, g),
                ..Default::default()
            })
            .collect();
        for g in 0..plan.gpus.len() as u32 {
            self.live_stream.insert((g, 0), gt.stream_order.len());
            gt.stream_order.push(StreamOrder {
                gpu: g,
                handle: 0,
                name: "null".into(),
                index: 0,
                created: None,
                destroyed: None,
                used: false,
                line_index: None,
            });
        }

        // Per-thread scope state.
        let n_threads = plan.threads.len();
        let mut stacks: Vec<Vec<String>> = vec![Vec::new(); n_threads];
        let mut ext: Vec<Vec<u64>> = vec![Vec::new(); n_threads];
        let mut scopes: Vec<BTreeMap<Vec<String>, ScopeTruth>> = vec![BTreeMap::new(); n_threads];
        let mut thread_truth: Vec<ThreadTruth> = plan
            .threads
            .iter()
            .enumerate()
            .map(|(i, t)| ThreadTruth {
                index: i as u32,
                name: t.name.clone(),
                host_ops: t.ops.len() as u64,
                ops_start_ns: t.ops.first().map_or(0, |o| o.start_ns),
                ops_end_ns: t.ops.iter().map(|o| o.end_ns).max().unwrap_or(0),
                ..Default::default()
            })
            .collect();
        let mut open_ranges: HashMap<u32, (String, u32)> = HashMap::new();
        let mut first = u64::MAX;
        let mut last = 0u64;

        let mut hip_seq = 0u64;
        // Correlation ids as the simulated runtime assigns them (HIP and roctx calls, from 1).
        let mut next_correlation_id = 1u64;
        let mut open_instances: Vec<Vec<u64>> = vec![Vec::new(); n_threads];
        for (host_seq, (t, i)) in global_order(plan).into_iter().enumerate() {
            let op = &plan.threads[t as usize].ops[i as usize];
            first = first.min(op.start_ns);
            last = last.max(op.end_ns);
            let correlation_id = match op.call {
                HostCall::Hip { .. } | HostCall::Marker(_) => {
                    next_correlation_id += 1;
                    next_correlation_id - 1
                }
                _ => 0,
            };
            let opref = OpRef {
                thread: t,
                op_index: u64::from(i),
                host_seq: host_seq as u64,
                hip_seq,
                correlation_id,
            };
            // Attribute the call and its activities to the thread's stacks at entry (before a
            // push or pop of this very call takes effect).
            let counts = match &op.call {
                HostCall::Hip { activities, .. } => AttributedCounts {
                    hip_api_calls: 1,
                    marker_calls: 0,
                    kernel_dispatches: activities
                        .iter()
                        .filter(|a| matches!(a, Activity::Kernel { .. }))
                        .count() as u64,
                    memory_copies: activities
                        .iter()
                        .filter(|a| matches!(a, Activity::Copy { .. }))
                        .count() as u64,
                },
                HostCall::Marker(_) => AttributedCounts {
                    marker_calls: 1,
                    ..Default::default()
                },
                _ => AttributedCounts::default(),
            };
            if let Some(&inst) = open_instances[t as usize].last() {
                add_counts(&mut self.gt.scope_instances[inst as usize].counts, &counts);
            }
            if counts != AttributedCounts::default() {
                add_counts(
                    &mut scope_entry(&mut scopes[t as usize], &stacks[t as usize]).counts,
                    &counts,
                );
                // A thread with an empty stack gets the main thread's current top, as the real
                // SDK gives it (`external_correlation.cpp`: "child threads inherit the current
                // value on default thread"); thread 0 is the process's main thread.
                let inherited = ext[t as usize].last().or(ext[0].last());
                let target = match inherited {
                    Some(id) => self.gt.external_ids.entry(*id).or_default(),
                    None => &mut self.gt.without_external_id,
                };
                add_counts(target, &counts);
            }
            match &op.call {
                HostCall::Hip {
                    api,
                    args,
                    activities,
                } => {
                    hip_seq += 1;
                    self.gt.totals.hip_api_calls += 1;
                    bump(&mut self.gt.hip_api, api);
                    bump(&mut thread_truth[t as usize].hip_api, api);
                    let per_call = match self.gt.activities_per_call.get_mut(api.as_str()) {
                        Some(m) => m,
                        None => self.gt.activities_per_call.entry(api.clone()).or_default(),
                    };
                    *per_call.entry(activities.len() as u64).or_default() += 1;
                    self.hip_call(t, opref, op, args);
                    for act in activities {
                        for &inst in &open_instances[t as usize] {
                            self.gt.scope_instances[inst as usize].enclosed.add(act);
                        }
                    }
                    for (ai, act) in activities.iter().enumerate() {
                        first = first.min(act_start(act));
                        last = last.max(act_end(act));
                        self.activity(t, opref, ai as u32, act, args);
                    }
                }
                HostCall::Marker(m) => {
                    self.gt.totals.marker_calls += 1;
                    let kind = match m {
                        MarkerOp::Mark(_) => "mark",
                        MarkerOp::Push(_) => "push",
                        MarkerOp::Pop => "pop",
                        MarkerOp::Start { .. } => "range_start",
                        MarkerOp::Stop { .. } => "range_stop",
                    };
                    *self.gt.markers.entry(kind.into()).or_default() += 1;
                    match m {
                        MarkerOp::Push(label) => {
                            let open = &mut open_instances[t as usize];
                            let index = self.gt.scope_instances.len() as u64;
                            self.gt.scope_instances.push(ScopeInstance {
                                index,
                                thread: t,
                                label: label.clone(),
                                parent: open.last().copied(),
                                depth: open.len() as u32 + 1,
                                push_correlation_id: correlation_id,
                                push_ns: op.start_ns,
                                ..Default::default()
                            });
                            open.push(index);
                            stacks[t as usize].push(label.clone());
                            let depth = stacks[t as usize].len() as u32;
                            let tt = &mut thread_truth[t as usize];
                            tt.max_depth = tt.max_depth.max(depth);
                            scope_entry(&mut scopes[t as usize], &stacks[t as usize]).entered += 1;
                        }
                        MarkerOp::Pop => {
                            stacks[t as usize].pop();
                            if let Some(i) = open_instances[t as usize].pop() {
                                let inst = &mut self.gt.scope_instances[i as usize];
                                inst.pop_correlation_id = Some(correlation_id);
                                inst.pop_ns = Some(op.end_ns);
                            }
                        }
                        MarkerOp::Start { message, key } => {
                            self.gt.ranges.entry(message.clone()).or_default().started += 1;
                            open_ranges.insert(*key, (message.clone(), t));
                        }
                        MarkerOp::Stop { key } => {
                            if let Some((msg, st)) = open_ranges.remove(key) {
                                let r = self.gt.ranges.entry(msg).or_default();
                                r.stopped += 1;
                                if st != t {
                                    r.cross_thread += 1;
                                }
                            }
                        }
                        MarkerOp::Mark(msg) => bump(&mut self.gt.mark_messages, msg),
                    }
                }
                HostCall::ExternalPush(id) => {
                    self.gt.totals.external_pushes += 1;
                    ext[t as usize].push(*id);
                }
                HostCall::ExternalPop => {
                    self.gt.totals.external_pops += 1;
                    ext[t as usize].pop();
                }
                HostCall::CodeObjectLoad(_) => self.gt.totals.code_object_loads += 1,
            }
        }
        for (t, tt) in thread_truth.iter_mut().enumerate() {
            tt.scopes = std::mem::take(&mut scopes[t]).into_values().collect();
            tt.open_at_end = std::mem::take(&mut stacks[t]);
        }
        self.resolve_consumers();
        self.number_lines();
        let gt = &mut self.gt;
        gt.threads = thread_truth;
        gt.streams = std::mem::take(&mut self.streams).into_values().collect();
        gt.totals.host_ops = plan.threads.iter().map(|t| t.ops.len() as u64).sum();
        gt.totals.first_ns = if first == u64::MAX { 0 } else { first };
        gt.totals.last_ns = last;
        gt.totals.unresolved_waits =
            gt.waits.iter().filter(|w| w.producer.is_none()).count() as u64;
        for (k, ks) in std::mem::take(&mut self.kernel_stats) {
            let name = plan.kernels.get(k as usize).map_or_else(
                || format!("<kernel {k}>"),
                |s| kernel_display_name(&s.symbol_name).to_string(),
            );
            let e = gt.kernels.entry(name).or_insert_with(|| KernelStats {
                min_ns: u64::MAX,
                ..Default::default()
            });
            e.dispatches += ks.dispatches;
            e.total_ns += ks.total_ns;
            e.min_ns = e.min_ns.min(ks.min_ns);
            e.max_ns = e.max_ns.max(ks.max_ns);
            for (g, n) in ks.per_gpu {
                *e.per_gpu.entry(g).or_default() += n;
            }
        }
        for (h, ks) in std::mem::take(&mut self.graph_kernels) {
            if let Some(g) = gt.graphs.get_mut(&h) {
                g.distinct_kernels = ks.len() as u64;
            }
        }
        self.gt
    }

    /// Fills each wait's `consumer` once every activity is known.
    fn resolve_consumers(&mut self) {
        for w in &mut self.gt.waits {
            let Some(acts) = self.stream_acts.get(&(w.stream.gpu, w.stream.handle)) else {
                continue;
            };
            let i = acts.partition_point(|a| a.call.host_seq <= w.wait.host_seq);
            let Some(first) = acts.get(i) else { continue };
            w.consumer = acts[i..]
                .iter()
                .take_while(|a| a.call.host_seq == first.call.host_seq)
                .min_by_key(|a| (a.start_ns, a.end_ns, a.index))
                .copied();
        }
    }

    /// Dense `line_index` over the used streams of each GPU, null stream first.
    fn number_lines(&mut self) {
        let mut order: Vec<usize> = (0..self.gt.stream_order.len()).collect();
        order.sort_by_key(|&i| (self.gt.stream_order[i].gpu, self.gt.stream_order[i].index));
        let mut next: HashMap<u32, u32> = HashMap::new();
        for i in order {
            let s = &mut self.gt.stream_order[i];
            if s.used {
                let n = next.entry(s.gpu).or_default();
                s.line_index = Some(*n);
                *n += 1;
            }
        }
    }

    /// The live incarnation of stream `(gpu, handle)` in `stream_order`, added on first use
    /// when the plan never created it (hand-built plans).
    fn stream_slot(&mut self, gpu: u32, handle: u64, created: Option<OpRef>) -> usize {
        if created.is_none() {
            if let Some(&i) = self.live_stream.get(&(gpu, handle)) {
                return i;
            }
        }
        let index = self.gt.stream_order.iter().filter(|s| s.gpu == gpu).count() as u32;
        let name = match self.stream_names.get(&handle) {
            Some(&(_, n)) if handle != 0 => n.to_string(),
            _ => format!("0x{handle:x}"),
        };
        let i = self.gt.stream_order.len();
        self.gt.stream_order.push(StreamOrder {
            gpu,
            handle,
            name,
            index,
            created,
            destroyed: None,
            used: false,
            line_index: None,
        });
        self.live_stream.insert((gpu, handle), i);
        i
    }

    fn mark_used(&mut self, s: &StreamRef) {
        let i = self.stream_slot(s.gpu, s.handle, None);
        self.gt.stream_order[i].used = true;
    }

    fn producer_for(&self, event: u64) -> Option<Producer> {
        self.latest_record.get(&event).cloned()
    }

    fn touch_stream(&mut self, t: u32, handle: u64) {
        let gpu = match self.stream_names.get(&handle) {
            Some(&(g, _)) if handle != 0 => g,
            _ if handle == 0 => self.devices[t as usize],
            _ => 0,
        };
        if let Some(st) = self.streams.get_mut(&(gpu, handle)) {
            st.api_calls += 1;
            return;
        }
        let s = self.stream_ref(t, handle);
        self.stream_entry(&s).api_calls += 1;
    }

    fn hip_call(&mut self, t: u32, op: OpRef, host: &HostOp, args: &HipArgs) {
        let end_ns = host.end_ns;
        let barrier = host.barrier.as_ref().map(BarrierTruth::of);
        match args {
            HipArgs::Malloc { ptr, bytes, .. } => {
                let api = match &host.call {
                    HostCall::Hip { api, .. } => api.as_str(),
                    _ => "",
                };
                let allocator =
                    if matches!(api, "hipMalloc" | "hipMallocManaged" | "hipMallocAsync") {
                        format!("GPU_{}", self.devices[t as usize])
                    } else {
                        "host_pinned".to_string()
                    };
                let m = self.gt.memory.entry(allocator.clone()).or_default();
                m.allocations += 1;
                m.final_bytes += bytes;
                m.peak_bytes = m.peak_bytes.max(m.final_bytes);
                self.live_memory.insert(*ptr, (allocator, *bytes));
            }
            HipArgs::Free { ptr, .. } => {
                if let Some((allocator, bytes)) = self.live_memory.remove(ptr) {
                    let m = self.gt.memory.entry(allocator).or_default();
                    m.frees += 1;
                    m.final_bytes -= bytes;
                }
            }
            HipArgs::SetDevice { device } => self.devices[t as usize] = *device,
            HipArgs::EventRecord { event, stream } => {
                self.touch_stream(t, *stream);
                let s = self.stream_ref(t, *stream);
                self.mark_used(&s);
                let key = (s.gpu, s.handle);
                let last = self.last_activity.get(&key).copied();
                let tail = self.tail.get(&key).copied().unwrap_or(0);
                let p = Producer {
                    record_index: self.record_count,
                    record: op,
                    event: *event,
                    stream: s,
                    last_activity: last,
                    complete_ns: tail.max(end_ns),
                    barrier,
                };
                self.gt.event_records.push(p.clone());
                self.latest_record.insert(*event, p);
                self.record_count += 1;
            }
            HipArgs::StreamWaitEvent {
                stream,
                event,
                flags,
            } => {
                self.touch_stream(t, *stream);
                let s = self.stream_ref(t, *stream);
                self.mark_used(&s);
                let edge = WaitEdge {
                    wait: op,
                    stream: s,
                    event: *event,
                    flags: *flags,
                    producer: self.producer_for(*event),
                    consumer: None,
                    barrier,
                };
                // Later work on the stream (and a later record's completion) waits for it.
                if let Some(p) = &edge.producer {
                    let tail = self
                        .tail
                        .entry((edge.stream.gpu, edge.stream.handle))
                        .or_default();
                    *tail = (*tail).max(p.complete_ns);
                }
                self.gt.waits.push(edge);
            }
            HipArgs::StreamSynchronize { stream } => {
                self.touch_stream(t, *stream);
                let s = self.stream_ref(t, *stream);
                self.mark_used(&s);
            }
            HipArgs::StreamCreate { stream, .. } => {
                self.touch_stream(t, *stream);
                let s = self.stream_ref(t, *stream);
                self.stream_slot(s.gpu, s.handle, Some(op));
            }
            HipArgs::StreamDestroy { stream } => {
                self.touch_stream(t, *stream);
                let s = self.stream_ref(t, *stream);
                if let Some(i) = self.live_stream.remove(&(s.gpu, s.handle)) {
                    self.gt.stream_order[i].destroyed = Some(op);
                }
            }
            HipArgs::EventSynchronize { event } => {
                let edge = EventSyncEdge {
                    sync: op,
                    event: *event,
                    producer: self.producer_for(*event),
                };
                self.gt.event_syncs.push(edge);
            }
            HipArgs::Launch { stream, .. } => self.touch_stream(t, *stream),
            HipArgs::Memcpy { stream, .. } | HipArgs::Memset { stream, .. } => {
                self.touch_stream(t, stream.unwrap_or(0))
            }
            HipArgs::GraphLaunch { graph_exec, stream } => {
                self.touch_stream(t, *stream);
                self.gt.totals.graph_launches += 1;
                self.gt.graphs.entry(*graph_exec).or_default().launches += 1;
            }
            HipArgs::None => {}
        }
    }

    fn activity(&mut self, t: u32, op: OpRef, ai: u32, act: &Activity, args: &HipArgs) {
        match act {
            Activity::Kernel {
                gpu,
                queue,
                kernel,
                stream,
                start_ns,
                end_ns,
                ..
            } => {
                let dur = end_ns - start_ns;
                self.kernel_counters(act);
                self.gt.totals.kernel_dispatches += 1;
                let ks = self
                    .kernel_stats
                    .entry(*kernel)
                    .or_insert_with(|| KernelStats {
                        min_ns: u64::MAX,
                        ..Default::default()
                    });
                ks.dispatches += 1;
                ks.total_ns += dur;
                ks.min_ns = ks.min_ns.min(dur);
                ks.max_ns = ks.max_ns.max(dur);
                *ks.per_gpu.entry(*gpu).or_default() += 1;
                if let Some(d) = self.gt.devices.get_mut(*gpu as usize) {
                    d.kernel_dispatches += 1;
                    d.kernel_ns += dur;
                    *d.queues.entry(*queue).or_default() += 1;
                }
                let st = match self.streams.get_mut(&(*gpu, *stream)) {
                    Some(st) => st,
                    None => {
                        let s = StreamRef {
                            gpu: *gpu,
                            handle: *stream,
                            name: self.stream_ref(t, *stream).name,
                        };
                        self.stream_entry(&s)
                    }
                };
                st.kernel_dispatches += 1;
                st.kernel_ns += dur;
                span(st, *start_ns, *end_ns);
                self.submitted(ActivityRef {
                    call: op,
                    index: ai,
                    kind: "kernel",
                    gpu: *gpu,
                    stream: *stream,
                    start_ns: *start_ns,
                    end_ns: *end_ns,
                });
                if let HipArgs::GraphLaunch { graph_exec, .. } = args {
                    self.gt.totals.graph_kernel_dispatches += 1;
                    self.gt
                        .graphs
                        .entry(*graph_exec)
                        .or_default()
                        .kernel_dispatches += 1;
                    self.graph_kernels
                        .entry(*graph_exec)
                        .or_default()
                        .insert(*kernel);
                }
            }
            Activity::Copy {
                direction,
                bytes,
                stream,
                start_ns,
                end_ns,
                ..
            } => {
                let dur = end_ns - start_ns;
                self.gt.totals.memory_copies += 1;
                let dn = direction_name(*direction).to_string();
                let c = self.gt.memory_copies.entry(dn.clone()).or_default();
                c.count += 1;
                c.bytes += bytes;
                let s = self.stream_ref(t, *stream);
                if let Some(d) = self.gt.devices.get_mut(s.gpu as usize) {
                    let c = d.memory_copies.entry(dn).or_default();
                    c.count += 1;
                    c.bytes += bytes;
                }
                let st = self.stream_entry(&s);
                st.memory_copies += 1;
                st.copy_ns += dur;
                span(st, *start_ns, *end_ns);
                self.submitted(ActivityRef {
                    call: op,
                    index: ai,
                    kind: "copy",
                    gpu: s.gpu,
                    stream: s.handle,
                    start_ns: *start_ns,
                    end_ns: *end_ns,
                });
            }
        }
    }

    /// Bookkeeping of a stream's submitted work: last activity (of the latest call, the one
    /// ending last), tail, submission list, use.
    fn submitted(&mut self, a: ActivityRef) {
        let key = (a.gpu, a.stream);
        let keep = self.last_activity.get(&key).is_some_and(|l| {
            l.call.host_seq == a.call.host_seq && (l.end_ns, l.start_ns) >= (a.end_ns, a.start_ns)
        });
        if !keep {
            self.last_activity.insert(key, a);
        }
        let tail = self.tail.entry(key).or_default();
        *tail = (*tail).max(a.end_ns);
        self.stream_acts.entry(key).or_default().push(a);
        let i = self.stream_slot(a.gpu, a.stream, None);
        self.gt.stream_order[i].used = true;
    }
}

fn span(st: &mut StreamTruth, s: u64, e: u64) {
    if st.kernel_dispatches + st.memory_copies == 1 {
        st.first_start_ns = s;
    } else {
        st.first_start_ns = st.first_start_ns.min(s);
    }
    st.last_end_ns = st.last_end_ns.max(e);
}

fn scope_entry<'m>(
    m: &'m mut BTreeMap<Vec<String>, ScopeTruth>,
    path: &[String],
) -> &'m mut ScopeTruth {
    if !m.contains_key(path) {
        m.insert(
            path.to_vec(),
            ScopeTruth {
                path: path.to_vec(),
                ..Default::default()
            },
        );
    }
    m.get_mut(path).expect("just inserted")
}

fn bump(m: &mut BTreeMap<String, u64>, key: &str) {
    match m.get_mut(key) {
        Some(v) => *v += 1,
        None => {
            m.insert(key.to_string(), 1);
        }
    }
}

fn add_counts(a: &mut AttributedCounts, b: &AttributedCounts) {
    a.hip_api_calls += b.hip_api_calls;
    a.marker_calls += b.marker_calls;
    a.kernel_dispatches += b.kernel_dispatches;
    a.memory_copies += b.memory_copies;
}

fn act_start(a: &Activity) -> u64 {
    match a {
        Activity::Kernel { start_ns, .. } | Activity::Copy { start_ns, .. } => *start_ns,
    }
}

fn act_end(a: &Activity) -> u64 {
    match a {
        Activity::Kernel { end_ns, .. } | Activity::Copy { end_ns, .. } => *end_ns,
    }
}

/// Checks the timing invariants every plan must satisfy, re-deriving them from the plan alone:
/// per-thread host ops in order and non-overlapping; host start times unique process-wide;
/// device work never before its call; per-stream serialisation between calls; every
/// hipStreamWaitEvent honoured against the latest earlier hipEventRecord of the event; blocking
/// calls ending after what they wait for. Returns human-readable violations (empty = fine).
pub fn plan_violations(plan: &Plan) -> Vec<String> {
    let mut v = Vec::new();
    for (t, th) in plan.threads.iter().enumerate() {
        let mut prev_end = 0u64;
        for (i, op) in th.ops.iter().enumerate() {
            if op.end_ns < op.start_ns {
                v.push(format!("thread {t} op {i}: ends before it starts"));
            }
            if i > 0 && op.start_ns < prev_end {
                v.push(format!(
                    "thread {t} op {i}: starts at {} before the previous op ends at {prev_end}",
                    op.start_ns
                ));
            }
            prev_end = op.end_ns;
        }
    }
    let order = global_order(plan);
    for w in order.windows(2) {
        let a = &plan.threads[w[0].0 as usize].ops[w[0].1 as usize];
        let b = &plan.threads[w[1].0 as usize].ops[w[1].1 as usize];
        if a.start_ns == b.start_ns && w[0].0 != w[1].0 {
            v.push(format!(
                "threads {} and {} both start an op at {}",
                w[0].0, w[1].0, a.start_ns
            ));
        }
    }
    let gpu_of: HashMap<u64, u32> = plan.streams.iter().map(|s| (s.handle, s.gpu)).collect();
    let mut device = vec![0u32; plan.threads.len()];
    // Per (gpu, stream): latest end of work of earlier calls, and the wait barrier.
    let mut tail: HashMap<(u32, u64), u64> = HashMap::new();
    let mut barrier: HashMap<(u32, u64), u64> = HashMap::new();
    let mut event_done: HashMap<u64, u64> = HashMap::new();
    // Per event: completion, GPU and queue of its latest record.
    let mut event_record: HashMap<u64, (u64, u32, u32)> = HashMap::new();
    let barriers_modelled = plan
        .threads
        .iter()
        .flat_map(|t| &t.ops)
        .any(|o| o.barrier.is_some());
    let key = |device: &[u32], t: u32, h: u64| -> (u32, u64) {
        (
            if h == 0 {
                device[t as usize]
            } else {
                gpu_of.get(&h).copied().unwrap_or(u32::MAX)
            },
            h,
        )
    };
    for (t, i) in order {
        let op = &plan.threads[t as usize].ops[i as usize];
        let HostCall::Hip {
            api,
            args,
            activities,
        } = &op.call
        else {
            continue;
        };
        let ctx = format!("thread {t} op {i} ({api})");
        let mut call_end: HashMap<(u32, u64), u64> = HashMap::new();
        for a in activities {
            let (s, e, k) = match a {
                Activity::Kernel {
                    gpu,
                    stream,
                    start_ns,
                    end_ns,
                    ..
                } => (*start_ns, *end_ns, (*gpu, *stream)),
                Activity::Copy {
                    stream,
                    start_ns,
                    end_ns,
                    ..
                } => (*start_ns, *end_ns, key(&device, t, *stream)),
            };
            if s < op.start_ns || e < s {
                v.push(format!(
                    "{ctx}: activity [{s}, {e}] starts before its call at {}",
                    op.start_ns
                ));
            }
            let prev = tail.get(&k).copied().unwrap_or(0);
            if s < prev {
                v.push(format!("{ctx}: activity on stream {k:?} starts at {s}, before earlier work ends at {prev}"));
            }
            let b = barrier.get(&k).copied().unwrap_or(0);
            if s < b {
                v.push(format!("{ctx}: activity on stream {k:?} starts at {s}, before its awaited event completes at {b}"));
            }
            let ce = call_end.entry(k).or_default();
            *ce = (*ce).max(e);
        }
        for (k, e) in call_end {
            let tl = tail.entry(k).or_default();
            *tl = (*tl).max(e);
        }
        let blocks_until = |done: u64| done <= op.start_ns || op.end_ns >= done;
        match args {
            HipArgs::SetDevice { device: d } => device[t as usize] = *d,
            HipArgs::EventRecord { event, stream } => {
                let k = key(&device, t, *stream);
                let done = tail.get(&k).copied().unwrap_or(0);
                event_done.insert(*event, done);
                // The event completes after the stream's earlier work (and the waits it was
                // made to honour) and not before the call returns; the RECORD barrier runs
                // then, modelled as instantaneous.
                let raised = barrier.get(&k).copied().unwrap_or(0);
                let complete = done.max(raised).max(op.end_ns);
                let (gpu, queue) = op.barrier.map_or((k.0, u32::MAX), |b| (b.gpu, b.queue));
                event_record.insert(*event, (complete, gpu, queue));
                if barriers_modelled {
                    let ok = op.barrier.is_some_and(|b| {
                        b.op == BarrierOp::Record
                            && (b.start_ns, b.end_ns) == (complete, complete)
                            && (b.gpu, b.queue) == (b.source_gpu, b.source_queue)
                            && b.gpu == k.0
                    });
                    if !ok {
                        v.push(format!(
                            "{ctx}: RECORD barrier {:?}, expected one at {complete} on GPU {}",
                            op.barrier, k.0
                        ));
                    }
                }
            }
            HipArgs::StreamWaitEvent { stream, event, .. } => {
                let k = key(&device, t, *stream);
                let reached = tail
                    .get(&k)
                    .copied()
                    .unwrap_or(0)
                    .max(barrier.get(&k).copied().unwrap_or(0));
                if let Some(&d) = event_done.get(event) {
                    let b = barrier.entry(k).or_default();
                    *b = (*b).max(d);
                }
                // A WAIT barrier exists iff the awaited record had not completed when the call
                // started; it starts when the stream reaches it (not before the call returns)
                // and ends when the event completes.
                let pending = event_record
                    .get(event)
                    .copied()
                    .filter(|r| r.0 > op.start_ns);
                match (op.barrier, pending) {
                    (None, None) => {}
                    (Some(b), Some((c, sg, sq))) => {
                        let s = reached.max(op.end_ns);
                        if b.op != BarrierOp::Wait
                            || (b.start_ns, b.end_ns) != (s, s.max(c))
                            || b.gpu != k.0
                            || (b.source_gpu, b.source_queue) != (sg, sq)
                        {
                            v.push(format!(
                                "{ctx}: WAIT barrier {b:?}: expected [{s}, {}] on GPU {}, source ({sg}, {sq})",
                                s.max(c),
                                k.0
                            ));
                        }
                    }
                    (b, r) if barriers_modelled => v.push(format!(
                        "{ctx}: WAIT barrier {b:?}, but the awaited record (completion, GPU, queue) is {r:?}"
                    )),
                    _ => {}
                }
            }
            HipArgs::EventSynchronize { event } => {
                let d = event_done.get(event).copied().unwrap_or(0);
                if !blocks_until(d) {
                    v.push(format!(
                        "{ctx}: returns at {} before the event completes at {d}",
                        op.end_ns
                    ));
                }
            }
            HipArgs::StreamSynchronize { stream } => {
                let d = tail.get(&key(&device, t, *stream)).copied().unwrap_or(0);
                if !blocks_until(d) {
                    v.push(format!(
                        "{ctx}: returns at {} before the stream drains at {d}",
                        op.end_ns
                    ));
                }
            }
            HipArgs::None if api == "hipDeviceSynchronize" => {
                let dev = device[t as usize];
                let d = tail
                    .iter()
                    .filter(|(k, _)| k.0 == dev)
                    .map(|(_, e)| *e)
                    .max()
                    .unwrap_or(0);
                if !blocks_until(d) {
                    v.push(format!(
                        "{ctx}: returns at {} before device {dev} drains at {d}",
                        op.end_ns
                    ));
                }
            }
            HipArgs::Memcpy { stream: None, .. } | HipArgs::Memset { stream: None, .. } => {
                let d = activities.iter().map(act_end).max().unwrap_or(0);
                if !blocks_until(d) {
                    v.push(format!(
                        "{ctx}: synchronous call returns at {} before its work ends at {d}",
                        op.end_ns
                    ));
                }
            }
            _ => {}
        }
    }
    v
}

impl Builder<'_> {
    /// The counters kernel activity `act` produces (`counters`), kept per kernel name and GPU.
    fn kernel_counters(&mut self, act: &Activity) {
        let Activity::Kernel {
            gpu,
            kernel,
            grid_items,
            block,
            ..
        } = act
        else {
            return;
        };
        let plan = self.plan;
        let (Some(spec), Some(sym)) = (
            plan.gpus.get(*gpu as usize),
            plan.kernels.get(*kernel as usize),
        ) else {
            return;
        };
        let Some(arch) = crate::counters::Arch::of(spec) else {
            return;
        };
        let d = crate::counters::Dispatch {
            gpu: spec,
            grid_items: *grid_items,
            block: *block,
            duration_ns: 0,
            work: &sym.work,
        };
        let values: BTreeMap<String, u64> = crate::counters::catalogue(arch)
            .iter()
            .filter(|c| c.source != crate::counters::Source::Cycles)
            .map(|c| (c.name.to_string(), d.summed(c)))
            .collect();
        let name = kernel_display_name(&sym.symbol_name).to_string();
        let e = self
            .gt
            .kernel_counters
            .entry(name)
            .or_default()
            .entry(*gpu)
            .or_insert_with(|| KernelCounterTruth {
                arch: spec.name.clone(),
                values: values.clone(),
                flops: sym.work.flops,
                read_bytes: sym.work.read_bytes,
                write_bytes: sym.work.write_bytes,
                uniform: true,
                ..Default::default()
            });
        e.dispatches += 1;
        if e.values != values {
            e.uniform = false;
        }
    }
}
