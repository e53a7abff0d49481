//! The replay plan: what the scenario compiler (`scenario`: parse + timing model) hands to the
//! simulated runtime (`runtime`), which turns it into callbacks and buffer records.
//!
//! Everything here is already *timed* (simulated nanoseconds since replay start) and *resolved*
//! (cross-stream waits honoured, per-stream serialisation applied), so the runtime only has to
//! emit, in the personality's ABI, what the plan says happened. Operation ids are **not** here:
//! HIP APIs are named, and the runtime maps names to the ids of the personality it simulates,
//! exactly as the real SDK's numbering depends on its version.

/// A whole simulated run.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// GPU agents, in ordinal order. The runtime adds one CPU agent before them.
    pub gpus: Vec<GpuSpec>,
    /// Code objects, each loaded on one GPU; kernel symbols refer to them.
    pub code_objects: Vec<CodeObjectSpec>,
    /// Kernel symbols; `Activity::Kernel::kernel` indexes this vector.
    pub kernels: Vec<KernelSymbol>,
    /// HIP streams the scenario uses (the null stream of each GPU is implicit, handle 0).
    pub streams: Vec<StreamSpec>,
    /// Application threads, each replayed on its own OS thread.
    pub threads: Vec<ThreadPlan>,
    pub delivery: DeliveryModel,
}

/// Properties reported through `rocprofiler_query_available_agents`.
#[derive(Debug, Clone, Default)]
pub struct GpuSpec {
    /// ISA name, e.g. "gfx942".
    pub name: String,
    /// e.g. "AMD Instinct MI300X".
    pub product_name: String,
    /// e.g. "aldebaran", "mi300".
    pub model_name: String,
    pub cu_count: u32,
    pub simd_per_cu: u32,
    pub wave_front_size: u32,
    pub max_waves_per_cu: u32,
    pub max_engine_clk_mhz: u32,
    pub num_xcc: u32,
    pub lds_size_in_kb: u32,
    /// Device memory in bytes.
    pub local_mem_bytes: u64,
    /// Where the agent reports that memory: `false` in `local_mem_size` (and a frame-buffer
    /// bank of the same size), `true` only in its frame-buffer bank with `local_mem_size` 0,
    /// as a real MI350X agent does.
    pub memory_in_banks: bool,
    /// major*10000 + minor*100 + stepping, e.g. 90402 for gfx942.
    pub gfx_target_version: u32,
    /// PCI vendor (0x1002) and device id.
    pub vendor_id: u16,
    pub device_id: u16,
    /// Number of HSA queues the runtime creates on this GPU (queue ids are opaque handles).
    pub queues: u32,
}

#[derive(Debug, Clone, Default)]
pub struct CodeObjectSpec {
    /// e.g. "file:///app/model.hsaco#offset=0&size=4096".
    pub uri: String,
    pub gpu: u32,
    /// Sim time at which the code object is loaded (LOAD callbacks) on the thread that loads it.
    pub load_thread: u32,
    /// Unload before finalize (UNLOAD callbacks) at this sim time; `None` = unloaded at finalize.
    pub unload_at_ns: Option<u64>,
}

#[derive(Debug, Clone, Default)]
pub struct KernelSymbol {
    /// HSA symbol name as the real runtime reports it: usually mangled, ending in ".kd".
    pub symbol_name: String,
    pub code_object: u32,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
    /// Static LDS bytes per work-group.
    pub group_segment_size: u32,
    /// Scratch bytes per work-item.
    pub private_segment_size: u32,
    pub kernarg_segment_size: u32,
    /// The floating-point work and memory traffic of one dispatch (what its hardware counters
    /// are derived from; zero when the scenario does not say).
    pub work: KernelWork,
}

/// Floating-point precision of a kernel's math.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Precision {
    F16,
    Bf16,
    #[default]
    F32,
    F64,
}

impl Precision {
    pub fn parse(s: &str) -> Option<Precision> {
        match s {
            "f16" | "fp16" => Some(Precision::F16),
            "bf16" => Some(Precision::Bf16),
            "f32" | "fp32" => Some(Precision::F32),
            "f64" | "fp64" => Some(Precision::F64),
            _ => None,
        }
    }
}

/// What one dispatch of a kernel does, as the scenario states it: its FLOPs (done as VALU FMAs,
/// or on the matrix cores with `mfma`) and the bytes it reads from and writes to memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelWork {
    pub flops: u64,
    pub precision: Precision,
    pub mfma: bool,
    pub read_bytes: u64,
    pub write_bytes: u64,
}

#[derive(Debug, Clone, Default)]
pub struct StreamSpec {
    /// Fake but stable `hipStream_t` value (never 0; 0 is the null stream).
    pub handle: u64,
    pub gpu: u32,
    /// Scenario name of the stream, for the ground truth.
    pub name: String,
}

#[derive(Debug, Clone, Default)]
pub struct ThreadPlan {
    pub name: String,
    /// In program order; `start_ns` is non-decreasing.
    pub ops: Vec<HostOp>,
    /// Wall-clock milliseconds the OS thread sleeps before its first op: it changes only
    /// *when* a tool sees this thread's calls (e.g. a record delivered after a wait made later
    /// in simulated time on another thread), never ids, timestamps or timing.
    pub real_delay_ms: u64,
}

/// One host-side call made by an application thread.
#[derive(Debug, Clone)]
pub struct HostOp {
    /// Sim-time ns since replay start, on the calling thread.
    pub start_ns: u64,
    pub end_ns: u64,
    pub call: HostCall,
    /// The GPU barrier packet this call enqueued (hipEventRecord, and hipStreamWaitEvent on an
    /// event still pending); only SDKs with HIP event tracing report it.
    pub barrier: Option<Barrier>,
}

/// A barrier packet of a hipEventRecord (RECORD) or hipStreamWaitEvent (WAIT), timed by the
/// same model as the event: a RECORD barrier runs when the stream's earlier work has ended (and
/// not before the call returns) and is modelled as instantaneous, so it ends exactly when the
/// event completes; a WAIT barrier starts when the waiting stream reaches it and ends when the
/// awaited event completes, which is when later work on that stream may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Barrier {
    pub op: BarrierOp,
    /// GPU and HSA queue index the barrier was dispatched to (the stream's).
    pub gpu: u32,
    pub queue: u32,
    /// GPU and queue of the stream the event was recorded on (= `gpu`/`queue` for RECORD).
    pub source_gpu: u32,
    pub source_queue: u32,
    /// `hipEvent_t` value.
    pub event: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierOp {
    Record,
    Wait,
}

#[derive(Debug, Clone)]
pub enum HostCall {
    /// A HIP runtime API call, possibly causing device work (a graph launch causes many).
    Hip {
        api: String,
        args: HipArgs,
        activities: Vec<Activity>,
    },
    /// A roctx call.
    Marker(MarkerOp),
    /// The application pushes/pops an external correlation id (framework op id).
    ExternalPush(u64),
    ExternalPop,
    /// Loads a code object (emits CODE_OBJECT LOAD + kernel-symbol callbacks on this thread).
    CodeObjectLoad(u32),
}

/// Arguments of the HIP calls the simulator models; the runtime writes them into the args union
/// of the personality (callback payloads, and `_EXT` buffer records in 1.x).
#[derive(Debug, Clone, PartialEq)]
pub enum HipArgs {
    None,
    /// hipLaunchKernel / hipModuleLaunchKernel / hipExtLaunchKernel …
    Launch {
        kernel: u32,
        grid_blocks: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u32,
        stream: u64,
    },
    GraphLaunch {
        graph_exec: u64,
        stream: u64,
    },
    /// hipMemcpy* (stream = None for synchronous variants); `kind` is hipMemcpyKind (0..=4).
    Memcpy {
        dst: u64,
        src: u64,
        bytes: u64,
        kind: u32,
        stream: Option<u64>,
    },
    Memset {
        dst: u64,
        value: i32,
        bytes: u64,
        stream: Option<u64>,
    },
    EventRecord {
        event: u64,
        stream: u64,
    },
    StreamWaitEvent {
        stream: u64,
        event: u64,
        flags: u32,
    },
    EventSynchronize {
        event: u64,
    },
    StreamSynchronize {
        stream: u64,
    },
    /// `stream` is the handle the call returns (written through the out-pointer at EXIT).
    StreamCreate {
        stream: u64,
        flags: u32,
    },
    /// hipMalloc / hipHostMalloc / hipMallocManaged (the call writes `ptr` through its
    /// out-pointer) and hipHostRegister (`ptr` is the argument itself).
    Malloc {
        ptr: u64,
        bytes: u64,
        flags: u32,
        /// hipMallocAsync's stream.
        stream: u64,
    },
    /// hipFree / hipHostFree / hipHostUnregister / hipFreeAsync (with its stream).
    Free {
        ptr: u64,
        stream: u64,
    },
    StreamDestroy {
        stream: u64,
    },
    SetDevice {
        device: u32,
    },
}

/// Device work caused by a HIP call; shares the call's internal correlation id.
#[derive(Debug, Clone, PartialEq)]
pub enum Activity {
    Kernel {
        gpu: u32,
        /// Index of the HSA queue on that GPU (0-based, < GpuSpec::queues).
        queue: u32,
        kernel: u32,
        /// Grid in work-items (HSA convention, as the real record reports it).
        grid_items: [u32; 3],
        block: [u32; 3],
        /// LDS bytes per work-group (static + dynamic), as in the dispatch packet.
        group_segment_size: u32,
        private_segment_size: u32,
        /// `hipStream_t` the work was submitted to (0 = null stream).
        stream: u64,
        start_ns: u64,
        end_ns: u64,
    },
    Copy {
        direction: CopyDirection,
        /// `None` = the CPU agent.
        src_gpu: Option<u32>,
        dst_gpu: Option<u32>,
        bytes: u64,
        stream: u64,
        start_ns: u64,
        end_ns: u64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CopyDirection {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MarkerOp {
    Mark(String),
    Push(String),
    Pop,
    /// roctxRangeStartA; `key` names the range so a later Stop (maybe on another thread) finds
    /// the id the runtime returned.
    Start {
        message: String,
        key: u32,
    },
    Stop {
        key: u32,
    },
}

/// How and when records reach the tool.
#[derive(Debug, Clone, Default)]
pub struct DeliveryModel {
    pub seed: u64,
    /// Completion records are emitted in an order shuffled within windows of this many
    /// activities (0 or 1 = completion order by end time).
    pub shuffle_window: usize,
    pub api_order: ApiOrder,
    /// Extra delay per buffer-callback invocation, to model a slow consumer (µs).
    pub delivery_delay_us: u64,
    /// Replace the buffer size the tool asked for (bytes), to force wraps and drops in tests.
    pub buffer_size_override: Option<usize>,
    /// Create every tool buffer with this policy whatever the tool asked for: models a runtime
    /// or configuration that loses records, so tests can prove a tool surfaces `drop_count`.
    pub force_policy: Option<BufferPolicy>,
    /// Pace the replay in wall time: each host call waits until `real_time` × its simulated
    /// start has passed since the replay began (1.0 = real time; 0 = as fast as possible), so
    /// a scenario lasts as long on any machine that keeps up (live capture, time windows).
    pub real_time: f64,
}

/// A buffer policy the runtime can impose (`rocprofiler_buffer_policy_t` without the SDK types,
/// so the plan stays independent of the ABI crate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferPolicy {
    /// One half; records offered while it is full or being delivered are dropped and counted.
    Discard,
    /// Two halves; the writer blocks while both are busy.
    Lossless,
}

impl BufferPolicy {
    /// The enumerator suffix, as the ground truth and the docs name it.
    pub fn name(self) -> &'static str {
        match self {
            BufferPolicy::Discard => "DISCARD",
            BufferPolicy::Lossless => "LOSSLESS",
        }
    }
}

/// Whether API buffer records reach the buffer before or after the activities they caused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApiOrder {
    /// API records at API exit, activity records at completion (the real order).
    #[default]
    Natural,
    /// All activity records of a call are emitted before its API record.
    ActivitiesFirst,
    /// API records are held back and emitted after all activities.
    ApiLast,
}
