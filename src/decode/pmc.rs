//! Records of the `COUNTERS` category (the dispatch counting service): the header record of a
//! counted dispatch (which agent ran it) and one value record per counter instance. The value
//! record has no `size` field: only its 32-byte prefix, the same in every SDK version (1.x
//! appends the agent), is read.

use rocprofiler_sdk_sys as sys;

use crate::model::events::{CounterDispatch, CounterSample};
use crate::store::EventStore;

/// # Safety
/// `payload` must point to the record of (`COUNTERS`, `kind`) as the runtime wrote it.
pub unsafe fn decode(kind: u32, payload: *const u8, out: &mut EventStore) {
    match kind {
        sys::ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER => {
            // SAFETY: a header record starts with its 8-byte size.
            let size = unsafe { (payload as *const u64).read_unaligned() } as usize;
            if size < std::mem::size_of::<sys::rocprofiler_dispatch_counting_service_record_t>() {
                out.counters.bad_size_records += 1;
                return;
            }
            // SAFETY: `size` covers the struct, which is plain data.
            let r = unsafe {
                (payload as *const sys::rocprofiler_dispatch_counting_service_record_t)
                    .read_unaligned()
            };
            out.pmc_dispatches.push(CounterDispatch {
                dispatch_id: r.dispatch_info.dispatch_id,
                agent: r.dispatch_info.agent_id.handle,
            });
        }
        sys::ROCPROFILER_COUNTER_RECORD_VALUE => {
            // SAFETY: a value record of any version holds at least the 0.x record.
            let r = unsafe {
                (payload as *const sys::rocprofiler_counter_record_v0_t).read_unaligned()
            };
            out.pmc_samples.push(CounterSample {
                dispatch_id: r.dispatch_id,
                instance: r.id,
                value: r.counter_value,
            });
        }
        _ => out.counters.unknown_kind_records += 1,
    }
}
