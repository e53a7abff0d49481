//! Kernel-dispatch records (same 184-byte layout in every SDK version).

use rocprofiler_sdk_sys as sys;

use super::record::read_record;
use crate::model::events::KernelRecord;
use crate::store::EventStore;

type Record = sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t;

/// Bytes of `dispatch_info` we read (through `grid_size`); the runtime reports 72.
///
/// The struct is a fixed 128 bytes in every SDK version (a static assertion upstream) and the outer
/// record's `size` is already checked, so an inner `size` of 0 means "not filled in", not "short":
/// such records are kept. Only a non-zero size below what we read marks a record we must skip.
const DISPATCH_INFO_BYTES_READ: usize = 72;

/// The newest SDK appends `int32_t pipe_id` to the 184-byte record (192 bytes in all; reference
/// "newer" §3.2): read only when the record's own `size` covers it.
const PIPE_ID_OFFSET: usize = std::mem::size_of::<Record>();

/// # Safety
/// `payload` must point to `size` readable bytes.
#[inline(always)]
pub unsafe fn decode(payload: *const u8, size: usize, out: &mut EventStore) {
    // SAFETY: `payload` holds `size` bytes; `read_record` checks `size` and copies the record
    // out of the runtime's buffer, which is only valid during the callback.
    let Some(r) = (unsafe { read_record::<Record>(payload, size, out) }) else {
        return;
    };
    let info = &r.dispatch_info;
    if info.size != 0 && (info.size as usize) < DISPATCH_INFO_BYTES_READ {
        out.counters.bad_size_records += 1;
        return;
    }
    out.counters.kernel_records += 1;
    out.kernels.push_or_count(
        KernelRecord {
            correlation_id: r.correlation_id.internal,
            // SAFETY: reading a u64 from a plain 8-byte union.
            external_id: unsafe { r.correlation_id.external.value },
            start_ns: r.start_timestamp,
            end_ns: r.end_timestamp,
            thread_id: r.thread_id,
            agent: info.agent_id.handle,
            queue: info.queue_id.handle,
            kernel_id: info.kernel_id,
            dispatch_id: info.dispatch_id,
            private_segment_size: info.private_segment_size,
            group_segment_size: info.group_segment_size,
            workgroup: [
                info.workgroup_size.x,
                info.workgroup_size.y,
                info.workgroup_size.z,
            ],
            grid: [info.grid_size.x, info.grid_size.y, info.grid_size.z],
            // SAFETY: `payload` holds `size` bytes, and `pipe_id` is read only when `size` covers it.
            // The SDK's "none" sentinel names no pipe: no stat.
            pipe_id: (size >= PIPE_ID_OFFSET + 4)
                .then(|| unsafe { (payload.add(PIPE_ID_OFFSET) as *const i32).read_unaligned() })
                .and_then(rocprofiler_sdk_sys::dispatch_pipe),
        },
        &mut out.counters.memory_limit_dropped,
    );
}
