//! The checked scenario: names resolved to indices, units converted to nanoseconds and bytes.
//! It is what the parser produces and the compiler consumes; it never leaves this module.

use std::collections::HashMap;

use crate::plan::DeliveryModel;

use super::presets::GpuDef;

pub(crate) struct Scenario {
    pub gpus: Vec<GpuDef>,
    pub code_objects: Vec<CodeObjectDef>,
    pub kernels: Vec<KernelDef>,
    pub graphs: Vec<GraphDef>,
    pub streams: Vec<StreamDef>,
    pub events: Vec<String>,
    pub range_keys: Vec<String>,
    pub threads: Vec<ThreadDef>,
    pub timing: Timing,
    pub delivery: DeliveryModel,
    /// Seed of the duration jitter (defaults to the delivery seed).
    pub seed: u64,
    /// Source location of each call, indexed by `Call::src`.
    pub srcs: Vec<SrcLoc>,
    /// Number of `Call`s (ids are 0..n_calls), for per-call execution counters.
    pub n_calls: u32,
    pub uses_memset: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct SrcLoc {
    pub line: usize,
    pub column: usize,
    pub path: String,
}

pub(crate) struct CodeObjectDef {
    pub name: String,
    pub uri: Option<String>,
    pub gpus: Vec<u32>,
    pub load_thread: u32,
    /// Loaded by an explicit `load` call instead of at start-up.
    pub lazy: bool,
    pub unload_at_ns: Option<u64>,
}

pub(crate) struct KernelDef {
    /// Symbol name without the `.kd` suffix (mangled or plain, as written).
    pub name: String,
    pub code_object: u32,
    pub sgpr: u32,
    pub vgpr: u32,
    pub agpr: u32,
    pub lds: u32,
    pub scratch: u32,
    pub kernarg: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dur_ns: u64,
    pub work: crate::plan::KernelWork,
}

pub(crate) struct GraphNode {
    pub kernel: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dyn_lds: u32,
    pub dur_ns: u64,
}

pub(crate) struct GraphDef {
    pub name: String,
    pub nodes: Vec<GraphNode>,
    /// Nodes are dealt round-robin onto this many parallel branches (1 = a serial chain).
    pub branches: u32,
}

pub(crate) struct StreamDef {
    pub name: String,
    pub gpu: u32,
    pub flags: u32,
}

#[derive(Clone)]
pub(crate) struct ThreadDef {
    pub name: String,
    pub device: u32,
    /// Delay after start-up (the eager code-object loads) before the first call.
    pub start_ns: u64,
    pub gap_ns: Option<u64>,
    /// Wall-clock delay before the thread's first call (delivery order only).
    pub real_delay_ms: u64,
    pub calls: Vec<Call>,
}

#[derive(Clone)]
pub(crate) struct Call {
    pub op: Op,
    /// Index into `Scenario::srcs`.
    pub src: u32,
    /// Host duration override.
    pub host_ns: Option<u64>,
    /// Host gap before this call (overrides the thread's gap).
    pub gap_ns: Option<u64>,
    /// Unique id of this call site (counts executions for `{n}` and `step`).
    pub id: u32,
}

/// A marker message; `{i}` (innermost repeat iteration) and `{n}` (executions of this call so
/// far) are substituted when `dynamic`.
#[derive(Clone)]
pub(crate) struct Text {
    pub text: String,
    pub dynamic: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CopyKind {
    H2H,
    H2D,
    D2H,
    D2D,
    Peer,
}

/// `None` = the null stream of the thread's current device.
pub(crate) type StreamRef = Option<u32>;

/// What an allocation op allocates (and which HIP call does it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AllocKind {
    /// `hipMalloc` / `hipFree`, on the thread's current device.
    Device,
    /// `hipHostMalloc` / `hipHostFree`.
    Pinned,
    /// `hipMallocManaged` / `hipFree`.
    Managed,
    /// `hipHostRegister` / `hipHostUnregister` of host memory the program allocated itself.
    Registered,
    /// `hipMallocAsync` / `hipFreeAsync` on a stream (stream-ordered device memory).
    Async,
}

impl AllocKind {
    pub fn apis(self) -> (&'static str, &'static str) {
        match self {
            AllocKind::Device => ("hipMalloc", "hipFree"),
            AllocKind::Pinned => ("hipHostMalloc", "hipHostFree"),
            AllocKind::Managed => ("hipMallocManaged", "hipFree"),
            AllocKind::Registered => ("hipHostRegister", "hipHostUnregister"),
            AllocKind::Async => ("hipMallocAsync", "hipFreeAsync"),
        }
    }
}

#[derive(Clone)]
pub(crate) enum Op {
    /// Allocates (or registers) the named buffer.
    Malloc {
        buffer: String,
        kind: AllocKind,
        bytes: u64,
        /// `async`: the stream of `hipMallocAsync`.
        stream: StreamRef,
    },
    /// Frees (or unregisters) the named buffer (`async`: on this stream).
    Free {
        buffer: String,
        stream: StreamRef,
    },
    Launch {
        kernel: u32,
        api: String,
        grid: [u32; 3],
        block: [u32; 3],
        dyn_lds: u32,
        stream: StreamRef,
        dur_ns: Option<u64>,
    },
    Graph {
        graph: u32,
        api: String,
        stream: StreamRef,
    },
    Memcpy {
        kind: CopyKind,
        api: String,
        bytes: u64,
        stream: StreamRef,
        sync: bool,
        src_dev: Option<u32>,
        dst_dev: Option<u32>,
        dur_ns: Option<u64>,
        /// Named buffers the copy reads and writes (their addresses), when given.
        src_buffer: Option<String>,
        dst_buffer: Option<String>,
    },
    Memset {
        api: String,
        bytes: u64,
        value: i32,
        stream: StreamRef,
        sync: bool,
        dur_ns: Option<u64>,
    },
    EventRecord {
        event: u32,
        stream: StreamRef,
    },
    StreamWaitEvent {
        stream: StreamRef,
        event: u32,
        flags: u32,
    },
    EventSync {
        event: u32,
    },
    StreamSync {
        stream: StreamRef,
    },
    DeviceSync,
    SetDevice(u32),
    StreamCreate(u32),
    StreamDestroy(u32),
    Mark(Text),
    Push(Text),
    Pop,
    RangeStart {
        msg: Text,
        key: u32,
    },
    RangeStop {
        key: u32,
    },
    ExtPush {
        base: u64,
        step: u64,
    },
    ExtPop,
    Sleep(u64),
    /// Any other HIP API, with no arguments and no device work (e.g. hipGetDevice, hipMalloc).
    Api(String),
    Load(u32),
    Repeat {
        n: u64,
        calls: Vec<Call>,
    },
}

/// Host-side timing parameters (all in ns).
pub(crate) struct Timing {
    /// From the end of an enqueuing API call to the earliest start of its device work.
    pub dispatch_latency_ns: u64,
    /// From device completion to the return of a blocking call.
    pub sync_return_ns: u64,
    /// Fixed cost added to every modelled copy.
    pub copy_latency_ns: u64,
    pub default_gap_ns: u64,
    pub kernel_ns: u64,
    /// Extra host time of hipGraphLaunch per node.
    pub graph_node_host_ns: u64,
    /// Relative jitter applied to every duration (0 = none; 0.1 = ±10 %).
    pub jitter: f64,
    pub api_ns: HashMap<String, u64>,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            dispatch_latency_ns: 2_000,
            sync_return_ns: 1_000,
            copy_latency_ns: 3_000,
            default_gap_ns: 500,
            kernel_ns: 10_000,
            graph_node_host_ns: 100,
            jitter: 0.0,
            api_ns: HashMap::new(),
        }
    }
}

/// Pseudo API names used as keys of `[timing.api_us]` for host operations that are not HIP calls.
pub(crate) const EXT_PUSH_KEY: &str = "external_id_push";
pub(crate) const EXT_POP_KEY: &str = "external_id_pop";
pub(crate) const LOAD_KEY: &str = "code_object_load";

impl Timing {
    /// Host duration of one call of `api` (scenario override, else the built-in default).
    pub fn api_ns(&self, api: &str) -> u64 {
        if let Some(&v) = self.api_ns.get(api) {
            return v;
        }
        default_api_ns(api)
    }
}

/// Built-in host durations: plausible orders of magnitude for the HIP runtime's host side
/// (a few µs per enqueue, tens of µs for stream creation). Model parameters, not measurements.
pub(crate) fn default_api_ns(api: &str) -> u64 {
    let base = api.strip_suffix("_spt").unwrap_or(api);
    match base {
        a if a.contains("LaunchKernel") || a.contains("LaunchCooperativeKernel") => 4_000,
        "hipGraphLaunch" => 8_000,
        a if a.starts_with("hipMemcpy") => 5_000,
        a if a.starts_with("hipMemset") => 4_000,
        "hipEventRecord" | "hipEventRecordWithFlags" | "hipStreamWaitEvent" => 1_500,
        "hipEventSynchronize" | "hipStreamSynchronize" | "hipDeviceSynchronize" => 1_000,
        a if a.starts_with("hipStreamCreate") => 25_000,
        "hipStreamDestroy" => 15_000,
        "hipSetDevice" | "hipGetDevice" | "hipGetDeviceCount" => 300,
        "hipMalloc" | "hipMallocAsync" | "hipHostMalloc" | "hipMallocManaged" => 20_000,
        "hipHostRegister" => 15_000,
        "hipFree" | "hipFreeAsync" | "hipHostFree" | "hipHostUnregister" => 10_000,
        a if a.starts_with("roctx") => 300,
        EXT_PUSH_KEY | EXT_POP_KEY => 100,
        LOAD_KEY => 150_000,
        _ => 1_000,
    }
}
