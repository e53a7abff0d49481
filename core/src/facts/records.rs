//! The runtime's records, as the buffer callbacks decode them: API calls, kernel dispatches,
//! memory copies and HIP event barriers. Timestamps are the runtime's (`CLOCK_BOOTTIME`, ns);
//! ids stay raw (operation ids, agent handles, kernel ids): the join names them.

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

/// A roctx API record (its domain `Marker`), kept apart from the HIP ones by the tool's stores
/// (`Collected::marker_records`): the same facts, packed in fewer bytes (`store::layouts`),
/// since most only give a roctx span its times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkerRecord(pub(crate) ApiRecord);

impl MarkerRecord {
    /// The record of a roctx call: its domain is `Marker`, whatever `a` names.
    pub fn of(a: ApiRecord) -> Self {
        MarkerRecord(ApiRecord {
            domain: ApiDomain::Marker,
            ..a
        })
    }

    /// The record, as the API records are read.
    pub fn api(self) -> ApiRecord {
        self.0
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

/// A completed memory copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyRecord {
    pub correlation_id: u64,
    pub external_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub thread_id: u64,
    /// `rocprofiler_memory_copy_operation_t`, as the record gives it (`hip::ops::copy_direction`
    /// reads it).
    pub operation: i32,
    pub dst_agent: u64,
    pub src_agent: u64,
    pub bytes: u64,
}

/// Which way a memory copy went, from its record's operation (`hip::ops::copy_direction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopyDirection {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    /// Direction not known (unknown operation id); kept rather than dropped.
    Unknown,
}

impl CopyDirection {
    /// Whether the destination and the source are on a GPU; `None` when not known.
    pub fn gpu_sides(self) -> Option<(bool, bool)> {
        match self {
            CopyDirection::HostToDevice => Some((true, false)),
            CopyDirection::DeviceToHost => Some((false, true)),
            CopyDirection::DeviceToDevice => Some((true, true)),
            CopyDirection::HostToHost => Some((false, false)),
            CopyDirection::Unknown => None,
        }
    }
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
