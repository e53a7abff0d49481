//! HIP event barrier records (`HIP_EVENT`, SDK after 1.3.5; 88 bytes): the GPU-side times of
//! the barrier a `hipEventRecord` or `hipStreamWaitEvent` enqueued. Used for the dependency
//! arrows' anchors when present; the buffer exists only when the runtime names the kind.

use rocprofiler_sdk_sys as sys;

use super::record::read_record;
use crate::model::events::HipEventRecord;
use crate::store::EventStore;

type Record = sys::rocprofiler_buffer_tracing_hip_event_record_t;

/// # Safety
/// `payload` must point to `size` readable bytes.
pub unsafe fn decode(payload: *const u8, size: usize, out: &mut EventStore) {
    // SAFETY: `payload` holds `size` bytes; `read_record` checks that `size` covers the record.
    let Some(r) = (unsafe { read_record::<Record>(payload, size, out) }) else {
        return;
    };
    out.counters.hip_event_records += 1;
    out.hip_events.push(HipEventRecord {
        correlation_id: r.correlation_id.internal,
        operation: r.operation as i32,
        start_ns: r.start_timestamp,
        end_ns: r.end_timestamp,
        event: r.hip_event_handle,
        queue: r.queue_id.handle,
    });
}
