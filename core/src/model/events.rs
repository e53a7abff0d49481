//! Compact owned facts, as decoded from runtime records and callbacks.
//!
//! These are what the hot path produces (plain `Copy` structs, no strings, no allocation per
//! record) and what `join` consumes at finalize. Ids stay raw (operation ids, agent handles,
//! kernel ids): turning them into names is join's job, once, not the hot path's.

use std::collections::HashMap;
use std::sync::Arc;

/// Where an API record came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ApiDomain {
    Hip,
    Marker,
}

/// A HIP runtime or roctx API call (buffered record: timestamps are the runtime's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiRecord {
    pub domain: ApiDomain,
    /// Runtime operation id (resolved to a name via `Collected::op_names`).
    pub operation: i32,
    pub correlation_id: u64,
    /// External correlation id as stamped by the runtime (0 = none): the innermost id a
    /// framework pushed on this thread when the call was made.
    pub external_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub thread_id: u64,
}

/// A record's duration split in two for its packed form (`store::packed`): the low 32 bits stay
/// with the record, the high ones (zero below 4.29 s) go with the facts it shares with others,
/// so a record keeps 4 bytes for its end instead of 8. Lossless for any pair of timestamps,
/// an end before its start included (wrapping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DurationHigh(u32);

#[inline]
fn split_duration(start_ns: u64, end_ns: u64) -> (u32, DurationHigh) {
    let d = end_ns.wrapping_sub(start_ns);
    (d as u32, DurationHigh((d >> 32) as u32))
}

#[inline]
fn end_of(start_ns: u64, low: u32, high: DurationHigh) -> u64 {
    start_ns.wrapping_add(u64::from(low) | (u64::from(high.0) << 32))
}

/// What differs per API call; the rest of [`ApiRecord`] is its [`ApiSource`]. Packed to 4-byte
/// alignment: 28 bytes, so that a stored call with its table index is 32 (48 unpacked).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
pub struct ApiEach {
    correlation_id: u64,
    external_id: u64,
    start_ns: u64,
    duration_low: u32,
}

/// The thread and operation many calls share (a loop calls the same few operations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ApiSource {
    thread_id: u64,
    operation: i32,
    domain: ApiDomain,
    duration_high: DurationHigh,
}

impl crate::store::packed::Pack for ApiRecord {
    type Each = ApiEach;
    type Shared = ApiSource;

    #[inline]
    fn split(self) -> (ApiEach, ApiSource) {
        let ApiRecord {
            domain,
            operation,
            correlation_id,
            external_id,
            start_ns,
            end_ns,
            thread_id,
        } = self;
        let (duration_low, duration_high) = split_duration(start_ns, end_ns);
        (
            ApiEach {
                correlation_id,
                external_id,
                start_ns,
                duration_low,
            },
            ApiSource {
                thread_id,
                operation,
                domain,
                duration_high,
            },
        )
    }

    #[inline]
    fn join(e: ApiEach, s: &ApiSource) -> ApiRecord {
        ApiRecord {
            domain: s.domain,
            operation: s.operation,
            correlation_id: e.correlation_id,
            external_id: e.external_id,
            start_ns: e.start_ns,
            end_ns: end_of(e.start_ns, e.duration_low, s.duration_high),
            thread_id: s.thread_id,
        }
    }
}

/// A completed kernel dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelRecord {
    pub correlation_id: u64,
    /// External correlation id as stamped by the runtime (0 = none).
    pub external_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub thread_id: u64,
    pub agent: u64,
    pub queue: u64,
    pub kernel_id: u64,
    pub dispatch_id: u64,
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    /// Work-items per work-group.
    pub workgroup: [u32; 3],
    /// Total work-items (HSA convention).
    pub grid: [u32; 3],
    /// Hardware pipe the completion came from (newest SDK's 192-byte record), when present.
    pub pipe_id: Option<i32>,
}

/// What differs per kernel dispatch; the rest of [`KernelRecord`] is its [`KernelLaunch`].
/// Packed to 4-byte alignment: 36 bytes, a stored dispatch with its table index 40 (was 48).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
pub struct KernelEach {
    correlation_id: u64,
    external_id: u64,
    start_ns: u64,
    dispatch_id: u64,
    duration_low: u32,
}

/// What the dispatches of one kernel shape from one thread on one queue share: stored once per
/// store (see `store::packed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelLaunch {
    thread_id: u64,
    agent: u64,
    queue: u64,
    kernel_id: u64,
    private_segment_size: u32,
    group_segment_size: u32,
    workgroup: [u32; 3],
    grid: [u32; 3],
    pipe_id: Option<i32>,
    duration_high: DurationHigh,
}

/// One word of the fields that tell launches apart in practice (kernel, queue, thread, grid),
/// instead of hashing all fourteen: equal launches still hash equally, and the delivery thread
/// looks a launch up whenever consecutive records differ (several queues in one buffer).
/// Measured with `hot_path` (`kernel, shapes interleaved`).
impl std::hash::Hash for KernelLaunch {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let grid = u64::from(self.grid[0]) | (u64::from(self.grid[1]) << 32);
        state.write_u64(
            self.kernel_id ^ self.queue.rotate_left(21) ^ self.thread_id.rotate_left(42) ^ grid,
        );
    }
}

impl crate::store::packed::Pack for KernelRecord {
    type Each = KernelEach;
    type Shared = KernelLaunch;

    #[inline]
    fn split(self) -> (KernelEach, KernelLaunch) {
        let KernelRecord {
            correlation_id,
            external_id,
            start_ns,
            end_ns,
            thread_id,
            agent,
            queue,
            kernel_id,
            dispatch_id,
            private_segment_size,
            group_segment_size,
            workgroup,
            grid,
            pipe_id,
        } = self;
        let (duration_low, duration_high) = split_duration(start_ns, end_ns);
        (
            KernelEach {
                correlation_id,
                external_id,
                start_ns,
                dispatch_id,
                duration_low,
            },
            KernelLaunch {
                thread_id,
                agent,
                queue,
                kernel_id,
                private_segment_size,
                group_segment_size,
                workgroup,
                grid,
                pipe_id,
                duration_high,
            },
        )
    }

    #[inline]
    fn join(e: KernelEach, l: &KernelLaunch) -> KernelRecord {
        KernelRecord {
            correlation_id: e.correlation_id,
            external_id: e.external_id,
            start_ns: e.start_ns,
            end_ns: end_of(e.start_ns, e.duration_low, l.duration_high),
            thread_id: l.thread_id,
            agent: l.agent,
            queue: l.queue,
            kernel_id: l.kernel_id,
            dispatch_id: e.dispatch_id,
            private_segment_size: l.private_segment_size,
            group_segment_size: l.group_segment_size,
            workgroup: l.workgroup,
            grid: l.grid,
            pipe_id: l.pipe_id,
        }
    }
}

/// A completed memory copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyRecord {
    pub correlation_id: u64,
    pub external_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub thread_id: u64,
    /// `rocprofiler_memory_copy_operation_t` (1 = H2H … 4 = D2D).
    pub operation: i32,
    pub dst_agent: u64,
    pub src_agent: u64,
    pub bytes: u64,
}

/// What differs per copy; the rest of [`CopyRecord`] is its [`CopyRoute`]. Packed as
/// [`KernelEach`]: 40 bytes stored (was 48).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
pub struct CopyEach {
    correlation_id: u64,
    external_id: u64,
    start_ns: u64,
    bytes: u64,
    duration_low: u32,
}

/// The thread, direction and agents many copies share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CopyRoute {
    thread_id: u64,
    operation: i32,
    dst_agent: u64,
    src_agent: u64,
    duration_high: DurationHigh,
}

impl crate::store::packed::Pack for CopyRecord {
    type Each = CopyEach;
    type Shared = CopyRoute;

    #[inline]
    fn split(self) -> (CopyEach, CopyRoute) {
        let CopyRecord {
            correlation_id,
            external_id,
            start_ns,
            end_ns,
            thread_id,
            operation,
            dst_agent,
            src_agent,
            bytes,
        } = self;
        let (duration_low, duration_high) = split_duration(start_ns, end_ns);
        (
            CopyEach {
                correlation_id,
                external_id,
                start_ns,
                bytes,
                duration_low,
            },
            CopyRoute {
                thread_id,
                operation,
                dst_agent,
                src_agent,
                duration_high,
            },
        )
    }

    #[inline]
    fn join(e: CopyEach, r: &CopyRoute) -> CopyRecord {
        CopyRecord {
            correlation_id: e.correlation_id,
            external_id: e.external_id,
            start_ns: e.start_ns,
            end_ns: end_of(e.start_ns, e.duration_low, r.duration_high),
            thread_id: r.thread_id,
            operation: r.operation,
            dst_agent: r.dst_agent,
            src_agent: r.src_agent,
            bytes: e.bytes,
        }
    }
}

/// A roctx range or mark seen by the marker callback (the buffered records carry no text).
///
/// Built field by field on the application threads, not with `..MarkerSpan::default()`: the
/// default label is the process-wide empty `Arc<str>`, whose count every thread's every pop
/// would increment and decrement (one cache line shared by all threads, on the hot path).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkerSpan {
    pub label: Arc<str>,
    pub thread_id: u64,
    /// Correlation id of the call that opened the range (push/start) or of the mark.
    pub open_correlation_id: u64,
    /// Correlation id of the call that closed it (pop/stop); equals `open_…` for a mark.
    pub close_correlation_id: u64,
    /// Callback-side timestamps (`rocprofiler_get_timestamp`), used when the buffered marker
    /// records of the two calls are missing.
    pub start_ns: u64,
    pub end_ns: u64,
    pub instant: bool,
    /// Scope range id of a push/pop range (0 for marks and start/stop ranges).
    pub scope_id: i64,
    /// Scope id of the range that enclosed it on its thread when pushed (0 = outermost).
    pub parent_scope_id: i64,
    /// A `roctxRangeStartA`/`Stop` range: process-wide, need not nest with anything.
    pub process_wide: bool,
    /// Still open when the profile ended (closed at the end time).
    pub open_at_end: bool,
}

/// The device and stream a HIP call was issued to (from its arguments at entry), keyed by
/// its internal correlation id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallFact {
    pub correlation_id: u64,
    /// Raw `hipStream_t` (0 = null stream).
    pub stream: u64,
    /// HIP device index (HIP's numbering, not necessarily our GPU ordinal: the join maps it),
    /// or -1 when the stream's device is unknown.
    pub device: i32,
    /// Creation order of `stream`: the correlation id of the `hipStream*Create*` that made it
    /// (0 = the null stream or a stream created before the tool); a reused handle is a new
    /// stream.
    pub stream_seq: u64,
}

/// Where a thread's launches and copies go: the few streams it uses, shared by its calls, so
/// that a call is held in 16 bytes while tracing instead of 32 (`store::packed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallTarget {
    stream: u64,
    device: i32,
    stream_seq: u64,
}

impl crate::store::packed::Pack for CallFact {
    type Each = u64;
    type Shared = CallTarget;

    #[inline]
    fn split(self) -> (u64, CallTarget) {
        let CallFact {
            correlation_id,
            stream,
            device,
            stream_seq,
        } = self;
        (
            correlation_id,
            CallTarget {
                stream,
                device,
                stream_seq,
            },
        )
    }

    #[inline]
    fn join(correlation_id: u64, t: &CallTarget) -> CallFact {
        CallFact {
            correlation_id,
            stream: t.stream,
            device: t.device,
            stream_seq: t.stream_seq,
        }
    }
}

/// A `hipStream*Create*` that succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamCreation {
    pub correlation_id: u64,
    /// The new `hipStream_t`.
    pub stream: u64,
    /// HIP device current on the creating thread.
    pub device: i32,
    /// Creation order: the creating call's correlation id.
    pub stream_seq: u64,
}

/// Synchronization HIP APIs whose arguments are recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SyncKind {
    /// `hipEventRecord`: a producer of `event`.
    EventRecord,
    /// `hipStreamWaitEvent`: `stream` waits for `event`.
    StreamWaitEvent,
    /// `hipEventSynchronize`: the host waits for `event`.
    EventSynchronize,
    /// `hipEventQuery`: the host asks whether `event` completed.
    EventQuery,
    /// `hipStreamSynchronize`: the host waits for `stream`.
    StreamSynchronize,
    /// `hipStreamQuery`: the host asks whether `stream` is idle.
    StreamQuery,
    /// `hipDeviceSynchronize`: the host waits for the current device.
    DeviceSynchronize,
}

impl SyncKind {
    /// Whether the call names a stream (which then gets a `Stream #N` number even without
    /// device work of its own). `hipDeviceSynchronize` waits for every stream and names none.
    pub fn names_a_stream(self) -> bool {
        matches!(
            self,
            SyncKind::EventRecord
                | SyncKind::StreamWaitEvent
                | SyncKind::StreamSynchronize
                | SyncKind::StreamQuery
        )
    }

    /// Whether the call waits on a HIP event: resolved to the latest record of that event
    /// before it.
    pub fn waits_on_event(self) -> bool {
        matches!(
            self,
            SyncKind::StreamWaitEvent | SyncKind::EventSynchronize | SyncKind::EventQuery
        )
    }

    /// Whether a resolved wait draws a dependency arrow (a query does not wait).
    pub fn draws_arrow(self) -> bool {
        self.waits_on_event() && self != SyncKind::EventQuery
    }
}

/// Arguments of a synchronization call, read at its entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncFact {
    pub correlation_id: u64,
    pub kind: SyncKind,
    /// Raw `hipEvent_t` (0 when the API has none).
    pub event: u64,
    /// Raw `hipStream_t` (0 = null stream or none).
    pub stream: u64,
    /// Device of `stream` (null stream: the thread's current device), -1 when unknown.
    pub device: i32,
    /// As `CallFact::stream_seq`.
    pub stream_seq: u64,
}

/// What differs per synchronization call; the rest of [`SyncFact`] is its [`SyncTarget`].
/// Packed to 4-byte alignment: a stored call with its table index is 20 bytes (40 unpacked).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
pub struct SyncEach {
    correlation_id: u64,
    event: u64,
}

/// The kind of call and the stream it names, which a loop repeats every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SyncTarget {
    kind: SyncKind,
    stream: u64,
    device: i32,
    stream_seq: u64,
}

impl crate::store::packed::Pack for SyncFact {
    type Each = SyncEach;
    type Shared = SyncTarget;

    #[inline]
    fn split(self) -> (SyncEach, SyncTarget) {
        let SyncFact {
            correlation_id,
            kind,
            event,
            stream,
            device,
            stream_seq,
        } = self;
        (
            SyncEach {
                correlation_id,
                event,
            },
            SyncTarget {
                kind,
                stream,
                device,
                stream_seq,
            },
        )
    }

    #[inline]
    fn join(e: SyncEach, t: &SyncTarget) -> SyncFact {
        SyncFact {
            correlation_id: e.correlation_id,
            kind: t.kind,
            event: e.event,
            stream: t.stream,
            device: t.device,
            stream_seq: t.stream_seq,
        }
    }
}

/// What an allocation-family HIP call does to memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemAction {
    /// Allocates (or registers) a range.
    Alloc,
    /// Frees (or unregisters) the range starting at the pointer.
    Free,
}

/// What kind of memory a range is, as CUPTI names the kinds xprof shows (`memcpy_details`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemKind {
    /// Device memory (`hipMalloc`, `hipMallocAsync`).
    Device,
    /// Page-locked host memory (`hipHostMalloc`, `hipMallocHost`, `hipHostAlloc`).
    Pinned,
    /// Host memory page-locked afterwards (`hipHostRegister`): pinned too.
    Registered,
    /// Managed memory (`hipMallocManaged`).
    Managed,
    /// Host memory HIP did not allocate or register.
    Pageable,
    Unknown,
}

impl MemKind {
    /// The name xprof shows (CUPTI's memory-kind names).
    pub fn name(self) -> &'static str {
        match self {
            MemKind::Device => "device",
            MemKind::Pinned | MemKind::Registered => "pinned",
            MemKind::Managed => "managed",
            MemKind::Pageable => "pageable",
            MemKind::Unknown => "unknown",
        }
    }
}

/// A successful allocation, free, registration or unregistration, read at the call's EXIT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemFact {
    pub correlation_id: u64,
    pub thread_id: u64,
    /// When the call returned (the runtime's clock).
    pub time_ns: u64,
    pub action: MemAction,
    pub kind: MemKind,
    pub address: u64,
    /// Bytes (0 for frees: the allocation says how many).
    pub bytes: u64,
    /// HIP device current on the thread (a stream-ordered call: its stream's device).
    pub device: i32,
}

/// The destination and source pointers of a copy call, read at its ENTER.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyPtrs {
    pub correlation_id: u64,
    pub dst: u64,
    pub src: u64,
}

/// Which barrier a HIP_EVENT record describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HipEventOp {
    /// The barrier `hipEventRecord` enqueued: it completes when the work before it has.
    Record,
    /// The barrier `hipStreamWaitEvent` enqueued: it completes when the waiting stream may go on.
    Wait,
    /// An operation this build does not know (kept out of the anchors).
    Other,
}

/// A HIP event barrier with its GPU-side times (SDK after 1.3.5: the `HIP_EVENT` buffer kind),
/// keyed by the correlation id of the `hipEventRecord` / `hipStreamWaitEvent` that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HipEventRecord {
    pub correlation_id: u64,
    /// Runtime operation id (resolved by name at finalize).
    pub operation: i32,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Raw `hipEvent_t`.
    pub event: u64,
    pub queue: u64,
}

/// A kernel symbol from a code-object callback, name already cleaned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSymbol {
    pub name: Arc<str>,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentType {
    Cpu,
    Gpu,
    Other,
}

/// Agent properties read at initialize.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInfo {
    pub handle: u64,
    pub kind: AgentType,
    /// 0..N-1 among agents of the same type (HIP's device numbering).
    pub type_index: i32,
    pub node_id: u32,
    pub name: String,
    pub product_name: String,
    pub vendor_name: String,
    pub cu_count: u32,
    pub simd_per_cu: u32,
    pub wave_front_size: u32,
    pub max_waves_per_cu: u32,
    pub max_engine_clk_mhz: u32,
    pub local_mem_bytes: u64,
    pub gfx_target_version: u32,
}

impl AgentInfo {
    /// An MI300X-like agent for unit tests and the fuzz targets (a CPU when `kind` says so).
    #[doc(hidden)]
    pub fn for_test(handle: u64, kind: AgentType, type_index: i32) -> AgentInfo {
        AgentInfo {
            handle,
            kind,
            type_index,
            node_id: type_index as u32,
            name: if kind == AgentType::Gpu {
                "gfx942".into()
            } else {
                "cpu".into()
            },
            product_name: "AMD Instinct MI300X".into(),
            vendor_name: "AMD".into(),
            cu_count: 304,
            simd_per_cu: 4,
            wave_front_size: 64,
            max_waves_per_cu: 32,
            max_engine_clk_mhz: 2100,
            local_mem_bytes: 192 << 30,
            gfx_target_version: 90402,
        }
    }
}

/// Everything collected in one process, ready for `join`.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    pub hostname: String,
    pub pid: u32,
    pub sdk_version: String,
    pub start_boottime_ns: u64,
    pub stop_boottime_ns: u64,
    pub start_walltime_ns: u64,
    pub stop_walltime_ns: u64,
    pub agents: Vec<AgentInfo>,
    pub api: Vec<ApiRecord>,
    /// roctx API records as the stores packed them (the tool's own collection; a collection
    /// made otherwise may hold its roctx records in `api`). Most stand for a span of `markers`
    /// and only give it its times: the join reads them here and moves the others into `api`.
    /// Unpacking them all had cost the 200 k-launch storm 9.6 MB of fresh memory at exit.
    pub marker_records: crate::store::PackedVec<ApiRecord>,
    pub kernels: crate::store::PackedVec<KernelRecord>,
    pub copies: Vec<CopyRecord>,
    pub markers: Vec<MarkerSpan>,
    /// Spans that only name the scopes of calls a capture window handed on to this one
    /// (`model::carry`): read for their labels and the scope tree, never shown (they were
    /// shown in their own window).
    pub scope_context: Vec<MarkerSpan>,
    /// The innermost roctx scope open at each API entry, keyed by internal correlation id
    /// (the stack is that scope's chain of parents in `markers`).
    pub scopes: Vec<(u64, i64)>,
    /// Device and stream of launch/copy calls, keyed by internal correlation id.
    pub calls: Vec<CallFact>,
    /// Arguments of synchronization calls, keyed by internal correlation id.
    pub syncs: Vec<SyncFact>,
    /// `hipEventRecord`s that are not calls of this collection, for the producer index only
    /// (`model::carry`): the latest of each event handle from earlier capture windows (a
    /// wait resolving to one draws no arrow unless `earlier_anchors` says where it starts), and
    /// the records this window hands on with their calls (a wait of this window may have
    /// waited for one).
    pub earlier_producers: Vec<SyncFact>,
    /// Where the arrows from `earlier_producers` start, by the record's correlation id, found
    /// in the windows where those records were made: given only when the run's windows are
    /// merged into one profile (`WINDOW_MERGE`, one clock), where an arrow may start before
    /// its window does.
    pub earlier_anchors: Vec<(u64, super::trace::Anchor)>,
    /// The records (`hipEventRecord` correlation ids) whose arrows' starts the next window
    /// needs (those handed on to it), when the run's windows are merged: the join finds them
    /// (`Trace::record_anchors`).
    pub anchors_wanted: Vec<u64>,
    /// Correlation ids of roctx calls whose spans an earlier capture window showed before
    /// their buffered records came (`model::carry`): those records stand for a span already
    /// shown, so they are dropped, not shown as calls of their own.
    pub spans_shown: Vec<u64>,
    /// Graph launches an earlier window wrote whose dispatches may still come (their launch
    /// facts were handed on, copied: `model::carry`), sorted; given only when the run's
    /// windows are merged into one profile, where those calls are: a late dispatch is then
    /// labelled as launched (`correlation_id`), as the run written whole labels it, not as
    /// an activity without a call.
    pub launched_earlier: Vec<u64>,
    /// Streams created in this capture window.
    pub stream_creations: Vec<StreamCreation>,
    /// Allocations, frees, registrations of memory (the memory timeline, the copies' kinds).
    pub memory: Vec<MemFact>,
    /// What the run's earlier capture windows left allocated (`model::carry`): this window's
    /// memory timeline and copies' kinds go on from it.
    pub earlier_memory: super::memory::LiveMemory,
    /// The pointers each copy call named.
    pub copy_ptrs: Vec<CopyPtrs>,
    /// HIP event barriers (GPU-side record/wait times), when the runtime offers them.
    pub hip_events: Vec<(HipEventOp, HipEventRecord)>,
    pub symbols: HashMap<u64, KernelSymbol>,
    /// `(domain, operation) → name` from the runtime's name queries.
    pub op_names: HashMap<(ApiDomain, i32), Arc<str>>,
    /// Thread names known to the tool (tid → name).
    pub thread_names: HashMap<u64, String>,
    /// Counts gathered while collecting (decode skips, runtime drops).
    pub counters: super::trace::Counters,
    pub warnings: Vec<String>,
}

impl Collected {
    /// Whether any runtime record (API call, kernel, copy) was collected: roctx spans alone,
    /// which the callbacks keep to follow the stacks, are not records.
    pub fn has_records(&self) -> bool {
        !(self.api.is_empty()
            && self.marker_records.is_empty()
            && self.kernels.is_empty()
            && self.copies.is_empty())
    }

    /// Keeps a kernel record; one refused by its store (past 2^32 − 1 distinct launch shapes,
    /// never within the memory ceiling) is counted as the ceiling's drops are.
    pub fn push_kernel(&mut self, k: KernelRecord) {
        self.kernels
            .push_or_count(k, &mut self.counters.memory_limit_dropped);
    }

    /// Records held (runtime records and roctx spans), for the flight recorder's accounting.
    pub fn record_count(&self) -> u64 {
        (self.api_record_count() + self.kernels.len() + self.copies.len() + self.markers.len())
            as u64
    }

    /// HIP and roctx API records held (the roctx ones may still be packed apart).
    pub fn api_record_count(&self) -> usize {
        self.api.len() + self.marker_records.len()
    }

    /// An estimate of the heap this collection holds: the per-event vectors (the maps it shares
    /// with every other window, symbols and names, are not counted).
    pub fn approx_bytes(&self) -> u64 {
        use std::mem::size_of_val;
        (size_of_val(self.api.as_slice())
            + self.marker_records.held_bytes()
            + self.kernels.held_bytes()
            + size_of_val(self.copies.as_slice())
            + size_of_val(self.markers.as_slice())
            + size_of_val(self.scopes.as_slice())
            + size_of_val(self.calls.as_slice())
            + size_of_val(self.syncs.as_slice())
            + size_of_val(self.memory.as_slice())
            + size_of_val(self.earlier_memory.allocations.as_slice())
            + size_of_val(self.copy_ptrs.as_slice())
            + size_of_val(self.hip_events.as_slice())) as u64
    }

    /// Appends `later`, the next cut of the same process, so that one join sees both (a launch
    /// in one cut and its kernel in the next still meet). A roctx range open at the cut between
    /// them appears in both, shown up to the cut in the first: the later copy wins.
    pub fn absorb(&mut self, later: Collected) {
        let Collected {
            hostname: _,
            pid: _,
            sdk_version: _,
            start_boottime_ns,
            stop_boottime_ns,
            start_walltime_ns,
            stop_walltime_ns,
            agents,
            api,
            marker_records,
            kernels,
            copies,
            markers,
            scope_context,
            scopes,
            calls,
            syncs,
            earlier_producers,
            earlier_anchors,
            anchors_wanted,
            spans_shown,
            launched_earlier,
            stream_creations,
            memory,
            earlier_memory,
            copy_ptrs,
            hip_events,
            symbols,
            op_names,
            thread_names,
            counters,
            warnings,
        } = later;
        self.start_boottime_ns = self.start_boottime_ns.min(start_boottime_ns);
        self.start_walltime_ns = self.start_walltime_ns.min(start_walltime_ns);
        self.stop_boottime_ns = self.stop_boottime_ns.max(stop_boottime_ns);
        self.stop_walltime_ns = self.stop_walltime_ns.max(stop_walltime_ns);
        if self.agents.is_empty() {
            self.agents = agents;
        }
        self.api.extend(api);
        self.counters.memory_limit_dropped += self.marker_records.append(marker_records);
        self.counters.memory_limit_dropped += self.kernels.append(kernels);
        self.copies.extend(copies);
        let reopened: std::collections::HashSet<(u64, u64)> = markers
            .iter()
            .map(|m| (m.thread_id, m.open_correlation_id))
            .collect();
        self.markers.retain(|m| {
            !(m.open_at_end && reopened.contains(&(m.thread_id, m.open_correlation_id)))
        });
        self.markers.extend(markers);
        self.scope_context.extend(scope_context);
        self.scopes.extend(scopes);
        self.calls.extend(calls);
        self.syncs.extend(syncs);
        self.earlier_producers.extend(earlier_producers);
        self.earlier_anchors.extend(earlier_anchors);
        self.anchors_wanted.extend(anchors_wanted);
        self.spans_shown.extend(spans_shown);
        self.launched_earlier.extend(launched_earlier);
        for sc in stream_creations {
            if !self.stream_creations.contains(&sc) {
                self.stream_creations.push(sc);
            }
        }
        self.memory.extend(memory);
        // What the earlier windows left: the carry holds it, the cut after it has none.
        if self.earlier_memory.is_empty() {
            self.earlier_memory = earlier_memory;
        }
        self.copy_ptrs.extend(copy_ptrs);
        self.hip_events.extend(hip_events);
        self.symbols.extend(symbols);
        self.op_names.extend(op_names);
        self.thread_names.extend(thread_names);
        self.counters += &counters;
        for w in warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::packed::{packed_size, PackedVec};

    /// Start/end pairs whose duration needs more than the 32 bits kept per record: the high
    /// part goes with the shared entry, so every end comes back exactly (an end before its
    /// start and the extremes of the clock included).
    const TIMES: [(u64, u64); 7] = [
        (1_000, 1_500),
        (5, 5),
        (10, (1 << 32) + 10),
        (7, 7 + 9_000_000_000),
        (2_000, 1_000),
        (0, u64::MAX),
        (u64::MAX, 0),
    ];

    #[test]
    fn packed_records_keep_every_duration() {
        let api: Vec<ApiRecord> = TIMES
            .iter()
            .enumerate()
            .map(|(i, &(start_ns, end_ns))| ApiRecord {
                domain: if i % 2 == 0 {
                    ApiDomain::Hip
                } else {
                    ApiDomain::Marker
                },
                operation: 3,
                correlation_id: i as u64 + 1,
                external_id: 40 + i as u64,
                start_ns,
                end_ns,
                thread_id: 77,
            })
            .collect();
        let kernels: Vec<KernelRecord> = TIMES
            .iter()
            .enumerate()
            .map(|(i, &(start_ns, end_ns))| KernelRecord {
                correlation_id: i as u64 + 1,
                external_id: 0,
                start_ns,
                end_ns,
                thread_id: 77,
                agent: 2,
                queue: 9,
                kernel_id: 4,
                dispatch_id: 100 + i as u64,
                private_segment_size: 0,
                group_segment_size: 64,
                workgroup: [256, 1, 1],
                grid: [4096, 1, 1],
                pipe_id: Some(1),
            })
            .collect();
        let copies: Vec<CopyRecord> = TIMES
            .iter()
            .enumerate()
            .map(|(i, &(start_ns, end_ns))| CopyRecord {
                correlation_id: i as u64 + 1,
                external_id: 0,
                start_ns,
                end_ns,
                thread_id: 77,
                operation: 2,
                dst_agent: 2,
                src_agent: 1,
                bytes: 1 << 20,
            })
            .collect();
        let a: PackedVec<ApiRecord> = api.clone().into();
        let k: PackedVec<KernelRecord> = kernels.clone().into();
        let c: PackedVec<CopyRecord> = copies.clone().into();
        assert_eq!(a.iter().collect::<Vec<_>>(), api);
        assert_eq!(k.iter().collect::<Vec<_>>(), kernels);
        assert_eq!(c.iter().collect::<Vec<_>>(), copies);
        // Short calls of one thread and operation share one entry.
        let short: PackedVec<ApiRecord> = api[..2]
            .iter()
            .map(|&r| ApiRecord {
                domain: ApiDomain::Hip,
                ..r
            })
            .collect();
        assert_eq!(
            short.held_bytes(),
            2 * 32 + std::mem::size_of::<ApiSource>()
        );
    }

    /// A thread's call and sync facts come back whole from their packed form, whatever
    /// repeats and whatever does not.
    #[test]
    fn packed_facts_come_back_whole() {
        let kinds = [
            SyncKind::EventRecord,
            SyncKind::StreamWaitEvent,
            SyncKind::StreamSynchronize,
            SyncKind::DeviceSynchronize,
        ];
        let syncs: Vec<SyncFact> = (0..40u64)
            .map(|i| SyncFact {
                correlation_id: 1000 + i,
                kind: kinds[i as usize % kinds.len()],
                event: if i % 3 == 0 { 0 } else { 0xe000 + i % 5 },
                stream: 0x5000 + i % 2,
                device: (i % 3) as i32 - 1,
                stream_seq: i % 2 * 17,
            })
            .collect();
        let calls: Vec<CallFact> = (0..40u64)
            .map(|i| CallFact {
                correlation_id: 2000 + i,
                stream: i % 4,
                device: (i % 2) as i32,
                stream_seq: i % 4 * 3,
            })
            .collect();
        let s: PackedVec<SyncFact> = syncs.clone().into();
        let c: PackedVec<CallFact> = calls.clone().into();
        assert_eq!(s.iter().collect::<Vec<_>>(), syncs);
        assert_eq!(c.iter().collect::<Vec<_>>(), calls);
    }

    /// What one record costs while tracing (issue 8: ≤ 64 B retained per event).
    #[test]
    fn stored_records_are_small() {
        assert_eq!(packed_size::<ApiRecord>(), 32);
        assert_eq!(packed_size::<KernelRecord>(), 40);
        assert_eq!(packed_size::<CopyRecord>(), 40);
        assert_eq!(packed_size::<CallFact>(), 16);
        assert_eq!(packed_size::<SyncFact>(), 20);
    }
}
