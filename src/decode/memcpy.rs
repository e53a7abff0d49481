//! Memory-copy records: 80 bytes in 0.x, 96 in 1.x (addresses appended). We read the common
//! 80-byte prefix, so one decoder serves both.

use rocprofiler_sdk_sys as sys;

use super::record::read_record;
use crate::model::events::CopyRecord;
use crate::store::EventStore;

type Record = sys::rocprofiler_buffer_tracing_memory_copy_record_v0_t;

/// # Safety
/// `payload` must point to `size` readable bytes.
#[inline(always)]
pub unsafe fn decode(payload: *const u8, size: usize, out: &mut EventStore) {
    // SAFETY: `payload` holds `size` bytes; `read_record` checks that `size` covers the 80-byte
    // prefix we copy.
    let Some(r) = (unsafe { read_record::<Record>(payload, size, out) }) else {
        return;
    };
    out.counters.memcpy_records += 1;
    out.copies.push_or_count(
        CopyRecord {
            correlation_id: r.correlation_id.internal,
            // SAFETY: reading a u64 from a plain 8-byte union.
            external_id: unsafe { r.correlation_id.external.value },
            start_ns: r.start_timestamp,
            end_ns: r.end_timestamp,
            thread_id: r.thread_id,
            operation: r.operation as i32,
            dst_agent: r.dst_agent_id.handle,
            src_agent: r.src_agent_id.handle,
            bytes: r.bytes,
        },
        &mut out.counters.memory_limit_dropped,
    );
}
