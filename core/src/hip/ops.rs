//! The table of HIP operations: name → role, where its stream/event arguments sit, and whether
//! it is expected to cause device activity.
//!
//! Offsets come from the members of `rocprofiler_hip_api_args_t` declared in the sys crate
//! (`offset_of!`), never from literals, so a layout fact lives in the header alone. Every
//! layer reads this table: the session (which operations to subscribe to), the callbacks (what
//! to read at ENTER/EXIT), the join (which calls should have produced device work).
//!
//! Names the table does not list but whose prefix says they copy or set memory
//! (`hipMemcpy*`, `hipMemset*`) or launch (`hip*Launch*Kernel*`) still get a role, with the
//! stream unknown: their work is put on the calling thread's current device, never silently
//! on GPU 0.

use std::collections::HashMap;
use std::mem::offset_of;
use std::sync::LazyLock;

use rocprofiler_sdk_sys as sys;

use crate::facts::{CopyDirection, MemAction, MemKind, SyncKind};

type Args = sys::rocprofiler_hip_api_args_t;

/// What a HIP operation does, as far as the trace is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Starts kernels (one or many: graph launches).
    Launch,
    /// Copies memory.
    Copy,
    /// Sets memory (HIP runs a fill kernel).
    Memset,
    /// Stream-ordered allocation or free (`hipMallocAsync`, `hipFreeAsync`).
    StreamOrderedAlloc,
    /// Allocates, frees, registers or unregisters memory (`HipOp::mem` says how).
    Memory,
    /// Records, waits for or queries events and streams.
    Sync(SyncKind),
    /// Creates a stream (the new `hipStream_t` is read through the out-pointer at EXIT).
    StreamCreate,
    StreamDestroy,
    /// `hipSetDevice`: the thread's current device, read at EXIT when the call succeeded.
    SetDevice,
}

/// Where the operation's stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamArg {
    /// The operation has no stream (`hipSetDevice`, `hipEventSynchronize`).
    None,
    /// Blocking work on the thread's null stream (`hipMemcpy`, `hipMemset`).
    Null,
    /// A `hipStream_t` at this offset of the args union.
    At(u8),
    /// A pointer at offset `.0` of the args union to a struct whose `hipStream_t` is at `.1`.
    InConfig(u8, u8),
    /// A `hipStream_t*` out-pointer at this offset, written by the call (read at EXIT).
    Out(u8),
    /// Not known (an operation the table does not list): the thread's current device.
    Current,
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HipOp {
    pub name: &'static str,
    pub role: Role,
    pub stream: StreamArg,
    /// Offset of the `hipEvent_t` argument, for event APIs.
    pub event: Option<u8>,
    /// Whether the call normally produces a device activity record (kernel or copy).
    pub device_activity: bool,
    /// Whether its activities are many and of a number the records do not tell (a graph
    /// launch: one dispatch per kernel node), so that some may come after the call looks
    /// complete (`model::carry`).
    pub many_activities: bool,
    /// For allocation, free and registration calls: what they do to memory, read at EXIT.
    pub mem: Option<MemArgs>,
    /// For copies: offsets of the destination and source pointers, read at ENTER (the memory
    /// kind of each side comes from the allocations that hold them).
    pub copy_ptrs: Option<(u8, u8)>,
}

/// Where an allocation call's pointer and size are, and what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemArgs {
    pub action: MemAction,
    pub kind: MemKind,
    /// Offset of the pointer argument; `out`: it is a `void**` the call writes (allocations).
    pub ptr: u8,
    pub out: bool,
    /// Offset of the `size_t` size (allocations and registrations).
    pub size: Option<u8>,
}

impl HipOp {
    /// Whether the entry callback must capture anything for this operation (annotation,
    /// device/stream, sync arguments).
    pub fn captured_at_entry(&self) -> bool {
        !matches!(self.role, Role::SetDevice | Role::StreamCreate)
    }

    /// Whether the call is a synchronization API, and which.
    pub fn sync_kind(&self) -> Option<SyncKind> {
        match self.role {
            Role::Sync(k) => Some(k),
            _ => None,
        }
    }
}

const fn off(o: usize) -> u8 {
    assert!(o < 88, "offset outside the 88-byte args union");
    o as u8
}

macro_rules! at {
    ($($f:tt)+) => {
        StreamArg::At(off(offset_of!(Args, $($f)+)))
    };
}
macro_rules! ev {
    ($($f:tt)+) => {
        Some(off(offset_of!(Args, $($f)+)))
    };
}

const fn op(
    name: &'static str,
    role: Role,
    stream: StreamArg,
    event: Option<u8>,
    device_activity: bool,
) -> HipOp {
    HipOp {
        name,
        role,
        stream,
        event,
        device_activity,
        many_activities: false,
        mem: None,
        copy_ptrs: None,
    }
}

impl HipOp {
    /// Whether the row is one of the table's, not one [`lookup`] made from a name's prefix.
    pub fn is_listed(&self) -> bool {
        !self.name.is_empty()
    }

    const fn with_mem(mut self, mem: MemArgs) -> HipOp {
        self.mem = Some(mem);
        self
    }
    const fn with_copy_ptrs(mut self, dst: u8, src: u8) -> HipOp {
        self.copy_ptrs = Some((dst, src));
        self
    }
}

/// An allocation (`void** ptr`, `size_t size` at the given offsets).
const fn alloc(name: &'static str, kind: MemKind, ptr: u8, size: u8) -> HipOp {
    op(name, Role::Memory, StreamArg::None, None, false).with_mem(MemArgs {
        action: MemAction::Alloc,
        kind,
        ptr,
        out: true,
        size: Some(size),
    })
}

/// A free (`void* ptr`); `kind` says which allocations it may end.
const fn free(name: &'static str, kind: MemKind, ptr: u8) -> HipOp {
    op(name, Role::Memory, StreamArg::None, None, false).with_mem(MemArgs {
        action: MemAction::Free,
        kind,
        ptr,
        out: false,
        size: None,
    })
}

macro_rules! o {
    ($($f:tt)+) => {
        off(offset_of!(Args, $($f)+))
    };
}

const fn launch(name: &'static str, stream: StreamArg) -> HipOp {
    op(name, Role::Launch, stream, None, true)
}
/// A launch of a whole graph: as many dispatches as it has kernel nodes.
const fn graph_launch(name: &'static str, stream: StreamArg) -> HipOp {
    HipOp {
        many_activities: true,
        ..launch(name, stream)
    }
}
const fn copy(name: &'static str, stream: StreamArg) -> HipOp {
    op(name, Role::Copy, stream, None, true)
}
const fn memset(name: &'static str, stream: StreamArg) -> HipOp {
    op(name, Role::Memset, stream, None, true)
}
const fn sync(name: &'static str, kind: SyncKind, stream: StreamArg, event: Option<u8>) -> HipOp {
    op(name, Role::Sync(kind), stream, event, false)
}

/// Every HIP operation the tool treats specially. The `_spt` variants work on the per-thread
/// default stream when passed the null stream, which the trace shows as the null stream.
pub static OPS: &[HipOp] = &[
    // Launches.
    launch("hipLaunchKernel", at!(hipLaunchKernel.stream)),
    launch("hipLaunchKernel_spt", at!(hipLaunchKernel.stream)),
    // Same parameter list as hipLaunchKernel through the stream (sharedMemBytes is 4 bytes,
    // padded to 8).
    launch("hipLaunchCooperativeKernel", at!(hipLaunchKernel.stream)),
    launch(
        "hipLaunchCooperativeKernel_spt",
        at!(hipLaunchKernel.stream),
    ),
    launch("hipExtLaunchKernel", at!(hipExtLaunchKernel.stream)),
    launch("hipModuleLaunchKernel", at!(hipModuleLaunchKernel.stream)),
    launch(
        "hipModuleLaunchCooperativeKernel",
        at!(hipModuleLaunchKernel.stream),
    ),
    // hipExtModuleLaunchKernel/hipHccModuleLaunchKernel: global sizes instead of grid sizes,
    // the stream at the same place.
    launch(
        "hipExtModuleLaunchKernel",
        at!(hipModuleLaunchKernel.stream),
    ),
    launch(
        "hipHccModuleLaunchKernel",
        at!(hipModuleLaunchKernel.stream),
    ),
    launch(
        "hipLaunchKernelExC",
        StreamArg::InConfig(
            off(offset_of!(Args, hipLaunchKernelExC.config)),
            off(offset_of!(sys::hipLaunchConfig_t, stream)),
        ),
    ),
    graph_launch("hipGraphLaunch", at!(hipGraphLaunch.stream)),
    graph_launch("hipGraphLaunch_spt", at!(hipGraphLaunch.stream)),
    // One launch per device, each on its own stream: the stream is not one argument (nor does
    // the runtime's HIP_STREAM bracket these: it wraps functions with a `hipStream_t` parameter).
    launch("hipLaunchCooperativeKernelMultiDevice", StreamArg::Current),
    launch("hipExtLaunchMultiKernelMultiDevice", StreamArg::Current),
    // Copies.
    copy("hipMemcpy", StreamArg::Null).with_copy_ptrs(o!(hipMemcpy.dst), o!(hipMemcpy.src)),
    copy("hipMemcpy_spt", StreamArg::Null).with_copy_ptrs(o!(hipMemcpy.dst), o!(hipMemcpy.src)),
    copy("hipMemcpyHtoD", StreamArg::Null).with_copy_ptrs(o!(hipMemcpy.dst), o!(hipMemcpy.src)),
    copy("hipMemcpyDtoH", StreamArg::Null).with_copy_ptrs(o!(hipMemcpy.dst), o!(hipMemcpy.src)),
    copy("hipMemcpyDtoD", StreamArg::Null).with_copy_ptrs(o!(hipMemcpy.dst), o!(hipMemcpy.src)),
    copy("hipMemcpyPeer", StreamArg::Null),
    copy("hipMemcpy2D", StreamArg::Null),
    copy("hipMemcpy2D_spt", StreamArg::Null),
    copy("hipMemcpy3D", StreamArg::Null),
    copy("hipMemcpy3D_spt", StreamArg::Null),
    copy("hipMemcpyToSymbol", StreamArg::Null),
    copy("hipMemcpyToSymbol_spt", StreamArg::Null),
    copy("hipMemcpyFromSymbol", StreamArg::Null),
    copy("hipMemcpyFromSymbol_spt", StreamArg::Null),
    copy("hipMemcpyAsync", at!(hipMemcpyAsync.stream))
        .with_copy_ptrs(o!(hipMemcpyAsync.dst), o!(hipMemcpyAsync.src)),
    copy("hipMemcpyAsync_spt", at!(hipMemcpyAsync.stream))
        .with_copy_ptrs(o!(hipMemcpyAsync.dst), o!(hipMemcpyAsync.src)),
    copy("hipMemcpyWithStream", at!(hipMemcpyWithStream.stream))
        .with_copy_ptrs(o!(hipMemcpyWithStream.dst), o!(hipMemcpyWithStream.src)),
    copy("hipMemcpyHtoDAsync", at!(hipMemcpyHtoDAsync.stream))
        .with_copy_ptrs(o!(hipMemcpyHtoDAsync.dst), o!(hipMemcpyHtoDAsync.src)),
    // (dst, src, size, stream) like hipMemcpyHtoDAsync.
    copy("hipMemcpyDtoHAsync", at!(hipMemcpyHtoDAsync.stream))
        .with_copy_ptrs(o!(hipMemcpyHtoDAsync.dst), o!(hipMemcpyHtoDAsync.src)),
    copy("hipMemcpyDtoDAsync", at!(hipMemcpyHtoDAsync.stream))
        .with_copy_ptrs(o!(hipMemcpyHtoDAsync.dst), o!(hipMemcpyHtoDAsync.src)),
    copy("hipMemcpyPeerAsync", at!(hipMemcpyPeerAsync.stream)),
    copy("hipMemcpy2DAsync", at!(hipMemcpy2DAsync.stream)),
    copy("hipMemcpy2DAsync_spt", at!(hipMemcpy2DAsync.stream)),
    copy("hipMemcpy3DAsync", at!(hipMemcpy3DAsync.stream)),
    copy("hipMemcpy3DAsync_spt", at!(hipMemcpy3DAsync.stream)),
    copy("hipMemcpyToSymbolAsync", at!(hipMemcpyToSymbolAsync.stream)),
    copy(
        "hipMemcpyToSymbolAsync_spt",
        at!(hipMemcpyToSymbolAsync.stream),
    ),
    copy(
        "hipMemcpyFromSymbolAsync",
        at!(hipMemcpyFromSymbolAsync.stream),
    ),
    copy(
        "hipMemcpyFromSymbolAsync_spt",
        at!(hipMemcpyFromSymbolAsync.stream),
    ),
    // Memsets.
    memset("hipMemset", StreamArg::Null),
    memset("hipMemset_spt", StreamArg::Null),
    memset("hipMemsetD8", StreamArg::Null),
    memset("hipMemsetD16", StreamArg::Null),
    memset("hipMemsetD32", StreamArg::Null),
    memset("hipMemset2D", StreamArg::Null),
    memset("hipMemset3D", StreamArg::Null),
    memset("hipMemsetAsync", at!(hipMemsetAsync.stream)),
    memset("hipMemsetAsync_spt", at!(hipMemsetAsync.stream)),
    memset("hipMemsetD8Async", at!(hipMemsetD8Async.stream)),
    memset("hipMemsetD16Async", at!(hipMemsetD16Async.stream)),
    memset("hipMemsetD32Async", at!(hipMemsetD32Async.stream)),
    memset("hipMemset2DAsync", at!(hipMemset2DAsync.stream)),
    memset("hipMemset2DAsync_spt", at!(hipMemset2DAsync.stream)),
    memset("hipMemset3DAsync", at!(hipMemset3DAsync.stream)),
    memset("hipMemset3DAsync_spt", at!(hipMemset3DAsync.stream)),
    // Stream-ordered allocation.
    op(
        "hipMallocAsync",
        Role::StreamOrderedAlloc,
        at!(hipMallocAsync.stream),
        None,
        false,
    )
    .with_mem(MemArgs {
        action: MemAction::Alloc,
        kind: MemKind::Device,
        ptr: o!(hipMallocAsync.dev_ptr),
        out: true,
        size: Some(o!(hipMallocAsync.size)),
    }),
    op(
        "hipMallocFromPoolAsync",
        Role::StreamOrderedAlloc,
        at!(hipMallocFromPoolAsync.stream),
        None,
        false,
    )
    .with_mem(MemArgs {
        action: MemAction::Alloc,
        kind: MemKind::Device,
        ptr: o!(hipMallocFromPoolAsync.dev_ptr),
        out: true,
        size: Some(o!(hipMallocFromPoolAsync.size)),
    }),
    op(
        "hipFreeAsync",
        Role::StreamOrderedAlloc,
        at!(hipFreeAsync.stream),
        None,
        false,
    )
    .with_mem(MemArgs {
        action: MemAction::Free,
        kind: MemKind::Device,
        ptr: o!(hipFreeAsync.dev_ptr),
        out: false,
        size: None,
    }),
    // Allocation, free and registration: the memory timeline and the kinds of copies.
    alloc(
        "hipMalloc",
        MemKind::Device,
        o!(hipMalloc.ptr),
        o!(hipMalloc.size),
    ),
    alloc(
        "hipExtMallocWithFlags",
        MemKind::Device,
        o!(hipExtMallocWithFlags.ptr),
        o!(hipExtMallocWithFlags.sizeBytes),
    ),
    alloc(
        "hipMallocManaged",
        MemKind::Managed,
        o!(hipMallocManaged.dev_ptr),
        o!(hipMallocManaged.size),
    ),
    alloc(
        "hipHostMalloc",
        MemKind::Pinned,
        o!(hipHostMalloc.ptr),
        o!(hipHostMalloc.size),
    ),
    alloc(
        "hipMallocHost",
        MemKind::Pinned,
        o!(hipMallocHost.ptr),
        o!(hipMallocHost.size),
    ),
    alloc(
        "hipHostAlloc",
        MemKind::Pinned,
        o!(hipHostAlloc.ptr),
        o!(hipHostAlloc.size),
    ),
    op(
        "hipHostRegister",
        Role::Memory,
        StreamArg::None,
        None,
        false,
    )
    .with_mem(MemArgs {
        action: MemAction::Alloc,
        kind: MemKind::Registered,
        ptr: o!(hipHostRegister.hostPtr),
        out: false,
        size: Some(o!(hipHostRegister.sizeBytes)),
    }),
    free("hipFree", MemKind::Device, o!(hipFree.ptr)),
    free("hipHostFree", MemKind::Pinned, o!(hipHostFree.ptr)),
    free("hipFreeHost", MemKind::Pinned, o!(hipFreeHost.ptr)),
    free(
        "hipHostUnregister",
        MemKind::Registered,
        o!(hipHostUnregister.hostPtr),
    ),
    // Events and synchronization.
    sync(
        "hipEventRecord",
        SyncKind::EventRecord,
        at!(hipEventRecord.stream),
        ev!(hipEventRecord.event),
    ),
    sync(
        "hipEventRecord_spt",
        SyncKind::EventRecord,
        at!(hipEventRecord.stream),
        ev!(hipEventRecord.event),
    ),
    sync(
        "hipEventRecordWithFlags",
        SyncKind::EventRecord,
        at!(hipEventRecordWithFlags.stream),
        ev!(hipEventRecordWithFlags.event),
    ),
    sync(
        "hipStreamWaitEvent",
        SyncKind::StreamWaitEvent,
        at!(hipStreamWaitEvent.stream),
        ev!(hipStreamWaitEvent.event),
    ),
    sync(
        "hipStreamWaitEvent_spt",
        SyncKind::StreamWaitEvent,
        at!(hipStreamWaitEvent.stream),
        ev!(hipStreamWaitEvent.event),
    ),
    sync(
        "hipEventSynchronize",
        SyncKind::EventSynchronize,
        StreamArg::None,
        ev!(hipEventSynchronize.event),
    ),
    sync(
        "hipEventQuery",
        SyncKind::EventQuery,
        StreamArg::None,
        ev!(hipEventQuery.event),
    ),
    sync(
        "hipStreamSynchronize",
        SyncKind::StreamSynchronize,
        at!(hipStreamSynchronize.stream),
        None,
    ),
    sync(
        "hipStreamSynchronize_spt",
        SyncKind::StreamSynchronize,
        at!(hipStreamSynchronize.stream),
        None,
    ),
    sync(
        "hipStreamQuery",
        SyncKind::StreamQuery,
        at!(hipStreamQuery.stream),
        None,
    ),
    sync(
        "hipStreamQuery_spt",
        SyncKind::StreamQuery,
        at!(hipStreamQuery.stream),
        None,
    ),
    // Waits for every stream of the thread's current device; names none.
    sync(
        "hipDeviceSynchronize",
        SyncKind::DeviceSynchronize,
        StreamArg::None,
        None,
    ),
    // Streams and devices.
    op(
        "hipStreamCreate",
        Role::StreamCreate,
        StreamArg::Out(off(offset_of!(Args, hipStreamCreate.stream))),
        None,
        false,
    ),
    op(
        "hipStreamCreateWithFlags",
        Role::StreamCreate,
        StreamArg::Out(off(offset_of!(Args, hipStreamCreateWithFlags.stream))),
        None,
        false,
    ),
    op(
        "hipStreamCreateWithPriority",
        Role::StreamCreate,
        StreamArg::Out(off(offset_of!(Args, hipStreamCreateWithPriority.stream))),
        None,
        false,
    ),
    op(
        "hipExtStreamCreateWithCUMask",
        Role::StreamCreate,
        StreamArg::Out(off(offset_of!(Args, hipExtStreamCreateWithCUMask.stream))),
        None,
        false,
    ),
    op(
        "hipStreamDestroy",
        Role::StreamDestroy,
        at!(hipStreamDestroy.stream),
        None,
        false,
    ),
    op(
        "hipSetDevice",
        Role::SetDevice,
        StreamArg::None,
        None,
        false,
    ),
];

static BY_NAME: LazyLock<HashMap<&'static str, &'static HipOp>> =
    LazyLock::new(|| OPS.iter().map(|o| (o.name, o)).collect());

/// The row for `name`; for an unlisted copy, memset or launch, a row with the stream unknown
/// and no name ([`HipOp::is_listed`]: false).
pub fn lookup(name: &str) -> Option<HipOp> {
    if let Some(o) = BY_NAME.get(name) {
        return Some(**o);
    }
    let role = if name.starts_with("hipMemcpy") {
        Role::Copy
    } else if name.starts_with("hipMemset") {
        Role::Memset
    } else if name.starts_with("hip") && name.contains("Launch") && name.contains("Kernel") {
        Role::Launch
    } else {
        return None;
    };
    Some(op("", role, StreamArg::Current, None, true))
}

/// Families of HIP calls kept on the host line by default beside the table's rows (they touch
/// memory, events, streams or graphs: what a timeline is read for). Everything else
/// (`hipGetDevice`, `hipGetLastError`, `hipDeviceGetAttribute`, …) costs a record per call
/// and clutters the host line; `ROCPROF_XPLANE_HIP_API=all` brings them back.
const HOST_LINE_PREFIXES: &[&str] = &[
    "hipMalloc",
    "hipFree",
    "hipHostMalloc",
    "hipHostAlloc",
    "hipHostFree",
    "hipHostRegister",
    "hipHostUnregister",
    "hipMallocManaged",
    "hipMemAlloc",
    "hipMemFree",
    "hipMemPool",
    "hipMemPrefetch",
    "hipMemAdvise",
    "hipMemcpy",
    "hipMemset",
    "hipEvent",
    "hipStream",
    "hipGraph",
    "hipDeviceSynchronize",
    "hipSetDevice",
];

/// Whether the HIP call named `name` is buffer-traced by default: every row of the table (or
/// a call [`lookup`] gives a role), and the memory, event, stream and graph families above.
pub fn traced_by_default(name: &str) -> bool {
    lookup(name).is_some() || HOST_LINE_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether a call named `name` is expected to produce device activity.
pub fn expects_device_activity(name: &str) -> bool {
    lookup(name).is_some_and(|o| o.device_activity)
}

/// Whether a call named `name` makes activities of a number its records do not tell.
pub fn makes_many_activities(name: &str) -> bool {
    lookup(name).is_some_and(|o| o.many_activities)
}

/// The direction of a memory-copy record, from its operation (the SDK's
/// `rocprofiler_memory_copy_operation_t`, declared in the sys crate). An operation this build
/// does not know is `Unknown`: the copy is kept, its direction not guessed.
pub fn copy_direction(operation: i32) -> CopyDirection {
    match u32::try_from(operation) {
        Ok(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_HOST) => CopyDirection::HostToHost,
        Ok(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE) => CopyDirection::HostToDevice,
        Ok(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST) => CopyDirection::DeviceToHost,
        Ok(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE) => CopyDirection::DeviceToDevice,
        _ => CopyDirection::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str) -> HipOp {
        lookup(name).unwrap_or_else(|| panic!("{name} not in the table"))
    }

    #[test]
    fn traced_by_default_keeps_work_memory_sync_and_drops_queries() {
        for n in [
            "hipLaunchKernel",
            "hipModuleLaunchKernel",
            "hipGraphLaunch",
            "hipMemcpyAsync",
            "hipMemcpy2DAsync",
            "hipMemsetD32Async",
            "hipMalloc",
            "hipFree",
            "hipHostMalloc",
            "hipMallocAsync",
            "hipEventRecord",
            "hipEventCreate",
            "hipStreamWaitEvent",
            "hipStreamSynchronize",
            "hipDeviceSynchronize",
            "hipSetDevice",
            "hipGraphInstantiate",
        ] {
            assert!(traced_by_default(n), "{n} should be traced");
        }
        for n in [
            "hipGetDevice",
            "hipGetLastError",
            "hipPeekAtLastError",
            "hipDeviceGetAttribute",
            "hipGetDeviceProperties",
            "hipFuncGetAttributes",
            "hipRuntimeGetVersion",
        ] {
            assert!(!traced_by_default(n), "{n} should not be traced by default");
        }
    }

    #[test]
    fn names_are_unique() {
        assert_eq!(BY_NAME.len(), OPS.len());
    }

    #[test]
    fn the_calls_the_old_lists_disagreed_on() {
        // (name, role, stream offset): each was missing from at least one of the three lists.
        let cases: [(&str, Role, StreamArg); 8] = [
            ("hipMemcpy2DAsync", Role::Copy, StreamArg::At(56)),
            ("hipMemcpy3DAsync", Role::Copy, StreamArg::At(8)),
            ("hipMemcpyToSymbolAsync", Role::Copy, StreamArg::At(40)),
            ("hipMemsetD8Async", Role::Memset, StreamArg::At(24)),
            ("hipMemsetD16Async", Role::Memset, StreamArg::At(24)),
            ("hipMemsetD32Async", Role::Memset, StreamArg::At(24)),
            (
                "hipLaunchKernelExC",
                Role::Launch,
                StreamArg::InConfig(0, 32),
            ),
            (
                "hipExtStreamCreateWithCUMask",
                Role::StreamCreate,
                StreamArg::Out(0),
            ),
        ];
        for (name, role, stream) in cases {
            let o = row(name);
            assert_eq!((o.role, o.stream), (role, stream), "{name}");
        }
        assert!(row("hipMemsetD32Async").device_activity);
        assert!(row("hipLaunchKernelExC").device_activity);
        assert!(!row("hipExtStreamCreateWithCUMask").device_activity);
    }

    #[test]
    fn offsets_match_the_hip_parameter_lists() {
        let at = |n: &str| match row(n).stream {
            StreamArg::At(o) => o,
            s => panic!("{n}: {s:?}"),
        };
        assert_eq!(at("hipLaunchKernel"), 48);
        assert_eq!(at("hipModuleLaunchKernel"), 40);
        assert_eq!(at("hipGraphLaunch"), 8);
        assert_eq!(at("hipMemcpyAsync"), 32);
        assert_eq!(at("hipMemcpyDtoHAsync"), 24);
        assert_eq!(at("hipMemcpyPeerAsync"), 40);
        assert_eq!(at("hipMemset2DAsync"), 40);
        assert_eq!(at("hipMemset3DAsync"), 64);
        assert_eq!(at("hipMallocAsync"), 16);
        assert_eq!(at("hipFreeAsync"), 8);
        assert_eq!(at("hipStreamWaitEvent"), 0);
        assert_eq!(row("hipStreamWaitEvent").event, Some(8));
        assert_eq!(at("hipEventRecordWithFlags"), 8);
        assert_eq!(row("hipEventQuery").event, Some(0));
        assert_eq!(at("hipStreamQuery"), 0);
    }

    #[test]
    fn roles_and_activity() {
        assert_eq!(
            row("hipStreamWaitEvent").sync_kind(),
            Some(SyncKind::StreamWaitEvent)
        );
        assert_eq!(
            row("hipEventRecordWithFlags").sync_kind(),
            Some(SyncKind::EventRecord)
        );
        assert_eq!(row("hipDeviceSynchronize").stream, StreamArg::None);
        assert_eq!(row("hipMemcpy").stream, StreamArg::Null);
        assert!(row("hipGraphLaunch").device_activity);
        assert!(row("hipGraphLaunch").many_activities);
        assert!(!row("hipLaunchKernel").many_activities);
        assert!(!row("hipStreamSynchronize").device_activity);
        assert!(!row("hipMallocAsync").device_activity);
        assert_eq!(row("hipSetDevice").role, Role::SetDevice);
        assert!(lookup("hipGetDevice").is_none());
        let malloc = row("hipMalloc");
        assert_eq!(malloc.role, Role::Memory);
        assert!(!malloc.device_activity);
        let m = malloc.mem.unwrap();
        assert_eq!(
            (m.action, m.kind, m.out),
            (MemAction::Alloc, MemKind::Device, true)
        );
        assert_eq!(row("hipHostFree").mem.unwrap().action, MemAction::Free);
        assert_eq!(
            row("hipHostRegister").mem.unwrap().kind,
            MemKind::Registered
        );
        assert!(!row("hipHostRegister").mem.unwrap().out);
        assert!(row("hipMemcpyAsync").copy_ptrs.is_some());
        assert!(row("hipMemcpy2DAsync").copy_ptrs.is_none());
        assert!(lookup("hipGetLastError").is_none());
    }

    #[test]
    fn unlisted_copies_and_launches_go_to_the_current_device() {
        let o = row("hipMemcpy2DToArrayAsync");
        assert_eq!((o.role, o.stream), (Role::Copy, StreamArg::Current));
        assert_eq!(row("hipMemsetD2D8Async").role, Role::Memset);
        assert_eq!(row("hipDrvLaunchKernelEx").role, Role::Launch);
        assert!(expects_device_activity("hipMemcpyAtoH"));
        assert!(!expects_device_activity("hipEventCreate"));
    }

    /// The four directions the SDK names, each from its declared value; anything else (the
    /// SDK's `NONE`, past its `LAST`, negative) is unknown.
    #[test]
    fn copy_directions_come_from_the_sdk_s_operation_values() {
        let op = |v: sys::rocprofiler_memory_copy_operation_t| copy_direction(v as i32);
        assert_eq!(
            op(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_HOST),
            CopyDirection::HostToHost
        );
        assert_eq!(
            op(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE),
            CopyDirection::HostToDevice
        );
        assert_eq!(
            op(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST),
            CopyDirection::DeviceToHost
        );
        assert_eq!(
            op(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE),
            CopyDirection::DeviceToDevice
        );
        for other in [
            sys::ROCPROFILER_MEMORY_COPY_NONE,
            sys::ROCPROFILER_MEMORY_COPY_LAST,
        ] {
            assert_eq!(op(other), CopyDirection::Unknown);
        }
        assert_eq!(copy_direction(-2), CopyDirection::Unknown);
    }
}
