//! Which GPU each HIP call was issued to: the device of its stream, else the thread's current
//! device — what CUPTI reports as an activity's `deviceId`.
//!
//! Copy records only name their two agents (host ends are CPUs, peer copies have two GPUs), so
//! the GPU plane a copy belongs to comes from here: `hipSetDevice` sets the thread's current
//! device, `hipStream*Create*` binds the new stream to it, and at the entry of a launch or copy
//! the `stream` argument (null stream: the current device) gives the device. Streams are created
//! rarely, so one process-wide map with a lock is fine; each thread caches what it looked up.
//!
//! This is also the seam for HIP-stream lines and sync dependencies: the stream of every call
//! is recorded with its correlation id.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::thread::ThreadState;
use crate::model::events::{CallFact, SyncFact, SyncKind};
use crate::store::sinks::lock;

/// What the tool reads from a HIP API's arguments (offsets inside the 88-byte args union,
/// reference §5.2; identical in every SDK version).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HipRole {
    /// Nothing to read.
    #[default]
    Other,
    /// `hipSetDevice(int deviceId)`: the thread's current device.
    SetDevice,
    /// `hipStreamCreate*(hipStream_t* stream, …)`: read `*stream` at EXIT.
    StreamCreate,
    /// Work on the `hipStream_t` argument at this offset.
    Stream(u8),
    /// Work on the thread's null stream (blocking copies and memsets).
    NullStream,
    /// A synchronization API: its event/stream arguments are recorded (the seam for
    /// inter-stream dependencies; the join does not use them yet).
    Sync(SyncKind),
}

/// Where a synchronization API's (event, stream) arguments sit in the args union; `None` = no
/// such argument.
pub fn sync_offsets(kind: SyncKind) -> (Option<u8>, Option<u8>) {
    match kind {
        SyncKind::EventRecord => (Some(0), Some(8)),
        SyncKind::StreamWaitEvent => (Some(8), Some(0)),
        SyncKind::EventSynchronize => (Some(0), None),
        SyncKind::StreamSynchronize => (None, Some(0)),
        SyncKind::DeviceSynchronize => (None, None),
    }
}

/// The role of a HIP API, by name.
pub fn role_for(name: &str) -> HipRole {
    match name {
        "hipSetDevice" => HipRole::SetDevice,
        "hipStreamCreate" | "hipStreamCreateWithFlags" | "hipStreamCreateWithPriority" => {
            HipRole::StreamCreate
        }
        "hipLaunchKernel"
        | "hipLaunchKernel_spt"
        | "hipExtLaunchKernel"
        | "hipLaunchCooperativeKernel"
        | "hipLaunchCooperativeKernel_spt" => HipRole::Stream(48),
        "hipModuleLaunchKernel"
        | "hipModuleLaunchCooperativeKernel"
        | "hipExtModuleLaunchKernel"
        | "hipHccModuleLaunchKernel" => HipRole::Stream(40),
        "hipGraphLaunch" | "hipGraphLaunch_spt" => HipRole::Stream(8),
        "hipMemcpyAsync" | "hipMemcpyAsync_spt" | "hipMemcpyWithStream" => HipRole::Stream(32),
        "hipMemcpyHtoDAsync" | "hipMemcpyDtoHAsync" | "hipMemcpyDtoDAsync" | "hipMemsetAsync"
        | "hipMemsetAsync_spt" => HipRole::Stream(24),
        // hipMemcpyPeerAsync(dst, int dstDevice, src, int srcDevice, size_t, hipStream_t)
        "hipMemcpyPeerAsync" => HipRole::Stream(40),
        "hipMemcpy"
        | "hipMemcpy_spt"
        | "hipMemcpyHtoD"
        | "hipMemcpyDtoH"
        | "hipMemcpyDtoD"
        | "hipMemcpyPeer"
        | "hipMemset"
        | "hipMemcpy2D"
        | "hipMemcpyToSymbol"
        | "hipMemcpyFromSymbol" => HipRole::NullStream,
        "hipEventRecord" | "hipEventRecord_spt" | "hipEventRecordWithFlags" => {
            HipRole::Sync(SyncKind::EventRecord)
        }
        "hipStreamWaitEvent" | "hipStreamWaitEvent_spt" => HipRole::Sync(SyncKind::StreamWaitEvent),
        "hipEventSynchronize" => HipRole::Sync(SyncKind::EventSynchronize),
        "hipStreamSynchronize" | "hipStreamSynchronize_spt" => {
            HipRole::Sync(SyncKind::StreamSynchronize)
        }
        "hipDeviceSynchronize" => HipRole::Sync(SyncKind::DeviceSynchronize),
        _ => HipRole::Other,
    }
}

/// Records a synchronization call's arguments at its entry.
pub fn on_sync_enter(
    t: &mut ThreadState,
    correlation_id: u64,
    kind: SyncKind,
    event: u64,
    stream: u64,
) {
    let device = device_of(t, stream);
    t.syncs.push(SyncFact {
        correlation_id,
        kind,
        event,
        stream,
        device,
    });
}

static STREAM_DEVICES: Mutex<Option<HashMap<u64, i32>>> = Mutex::new(None);
/// Bumped at every stream creation: a destroyed stream's handle can be reused by a new stream
/// on another device, so a thread's cached lookups are only good for the generation they were
/// made in.
static STREAM_GENERATION: AtomicU64 = AtomicU64::new(0);

/// Binds a newly created stream to the creating thread's current device.
pub fn on_stream_created(t: &mut ThreadState, stream: u64) {
    if stream == 0 {
        return;
    }
    let device = t.current_device;
    lock(&STREAM_DEVICES)
        .get_or_insert_with(HashMap::new)
        .insert(stream, device);
    STREAM_GENERATION.fetch_add(1, Ordering::AcqRel);
    t.stream_devices.insert(stream, device);
}

/// Device of `stream` as seen from thread `t` (null stream: its current device).
pub fn device_of(t: &mut ThreadState, stream: u64) -> i32 {
    if stream == 0 {
        return t.current_device;
    }
    let generation = STREAM_GENERATION.load(Ordering::Acquire);
    if t.stream_generation != generation {
        t.stream_devices.clear();
        t.stream_generation = generation;
    }
    if let Some(&d) = t.stream_devices.get(&stream) {
        return d;
    }
    let found = lock(&STREAM_DEVICES)
        .as_ref()
        .and_then(|m| m.get(&stream).copied());
    match found {
        Some(d) => {
            t.stream_devices.insert(stream, d);
            d
        }
        None => -1,
    }
}

/// Records the device/stream of a launch or copy at its entry.
pub fn on_work_enter(t: &mut ThreadState, correlation_id: u64, stream: u64) {
    let device = device_of(t, stream);
    t.calls.push(CallFact {
        correlation_id,
        stream,
        device,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_follow_the_device_current_at_creation() {
        let mut a = ThreadState::default();
        let mut b = ThreadState::default();
        on_stream_created(&mut a, 0xa0); // device 0
        a.current_device = 1;
        on_stream_created(&mut a, 0xa1);
        // Another thread sees both through the process-wide map.
        assert_eq!(device_of(&mut b, 0xa0), 0);
        assert_eq!(device_of(&mut b, 0xa1), 1);
        assert_eq!(device_of(&mut b, 0xdead), -1, "unknown stream");
        b.current_device = 1;
        on_work_enter(&mut b, 7, 0);
        on_work_enter(&mut b, 8, 0xa0);
        let calls: Vec<CallFact> = b.calls.iter().copied().collect();
        assert_eq!(
            calls,
            [
                CallFact {
                    correlation_id: 7,
                    stream: 0,
                    device: 1
                },
                CallFact {
                    correlation_id: 8,
                    stream: 0xa0,
                    device: 0
                },
            ]
        );
    }

    #[test]
    fn a_reused_stream_handle_is_not_read_from_a_stale_cache() {
        let mut a = ThreadState::default();
        let mut b = ThreadState::default();
        on_stream_created(&mut a, 0xc0); // device 0
        assert_eq!(device_of(&mut b, 0xc0), 0, "b caches the lookup");
        // The stream is destroyed and its handle reused by a new stream on device 1.
        a.current_device = 1;
        on_stream_created(&mut a, 0xc0);
        assert_eq!(device_of(&mut b, 0xc0), 1);
        assert_eq!(device_of(&mut a, 0xc0), 1);
    }

    #[test]
    fn sync_calls_keep_event_stream_and_device() {
        let mut t = ThreadState::default();
        on_stream_created(&mut t, 0x51);
        on_sync_enter(&mut t, 9, SyncKind::StreamWaitEvent, 0xe1, 0x51);
        on_sync_enter(&mut t, 10, SyncKind::DeviceSynchronize, 0, 0);
        let got: Vec<SyncFact> = t.syncs.iter().copied().collect();
        assert_eq!(
            got[0],
            SyncFact {
                correlation_id: 9,
                kind: SyncKind::StreamWaitEvent,
                event: 0xe1,
                stream: 0x51,
                device: 0
            }
        );
        assert_eq!(
            (got[1].kind, got[1].device),
            (SyncKind::DeviceSynchronize, 0)
        );
    }

    #[test]
    fn roles_by_name() {
        assert_eq!(role_for("hipLaunchKernel"), HipRole::Stream(48));
        assert_eq!(role_for("hipModuleLaunchKernel"), HipRole::Stream(40));
        assert_eq!(role_for("hipMemcpyAsync"), HipRole::Stream(32));
        assert_eq!(role_for("hipMemcpyDtoHAsync"), HipRole::Stream(24));
        assert_eq!(role_for("hipGraphLaunch"), HipRole::Stream(8));
        assert_eq!(role_for("hipMemcpy"), HipRole::NullStream);
        assert_eq!(role_for("hipSetDevice"), HipRole::SetDevice);
        assert_eq!(role_for("hipStreamCreateWithFlags"), HipRole::StreamCreate);
        assert_eq!(role_for("hipGetDevice"), HipRole::Other);
        assert_eq!(
            role_for("hipStreamWaitEvent"),
            HipRole::Sync(SyncKind::StreamWaitEvent)
        );
        assert_eq!(sync_offsets(SyncKind::StreamWaitEvent), (Some(8), Some(0)));
        assert_eq!(
            role_for("hipEventRecord"),
            HipRole::Sync(SyncKind::EventRecord)
        );
    }
}
