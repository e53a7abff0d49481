//! What the capture reads of a call beside its record: at entry, the stream and device of a
//! launch or copy, a synchronization call's arguments, a copy's pointers; at exit, a stream
//! created and what an allocation-family call did to memory; from the roctx callbacks, the
//! ranges and marks with their labels.

use std::sync::Arc;

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
    /// Callback-side timestamps (`rocprofiler_get_timestamp`): the span's times unless the
    /// buffered marker records of the two calls give theirs (`ROCTX_RECORDS=buffer`).
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

/// How many dispatches and copies one graph launch made: the runtime's external-id requests
/// for it on its thread while it ran (SDK 1.x), keyed by the correlation id its records carry.
/// A launch's records carry no count: this is how a window knows whether all of them came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphLaunchFact {
    pub correlation_id: u64,
    pub activities: u32,
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
