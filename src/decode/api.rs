//! HIP runtime API and roctx marker records (same layout; 56 bytes in 0.x, 64 in 1.x because
//! the correlation id grew).

use std::mem::size_of;

use rocprofiler_sdk_sys as sys;

use crate::model::events::{ApiDomain, ApiRecord};
use crate::sdk::Abi;
use crate::store::EventStore;

/// # Safety
/// `payload` must point to `size` readable bytes.
pub unsafe fn decode(
    abi: Abi,
    domain: ApiDomain,
    payload: *const u8,
    size: usize,
    out: &mut EventStore,
) {
    let rec = match abi {
        Abi::V0 => {
            type R = sys::rocprofiler_buffer_tracing_hip_api_record_v0_t;
            if size < size_of::<R>() {
                out.counters.bad_size_records += 1;
                return;
            }
            // SAFETY: `size` covers the record.
            let r: R = unsafe { (payload as *const R).read_unaligned() };
            ApiRecord {
                domain,
                operation: r.operation,
                correlation_id: r.correlation_id.internal,
                // SAFETY: reading a u64 from a plain 8-byte union.
                external_id: unsafe { r.correlation_id.external.value },
                start_ns: r.start_timestamp,
                end_ns: r.end_timestamp,
                thread_id: r.thread_id,
            }
        }
        Abi::V1 => {
            type R = sys::rocprofiler_buffer_tracing_hip_api_record_v1_t;
            if size < size_of::<R>() {
                out.counters.bad_size_records += 1;
                return;
            }
            // SAFETY: `size` covers the record.
            let r: R = unsafe { (payload as *const R).read_unaligned() };
            ApiRecord {
                domain,
                operation: r.operation,
                correlation_id: r.correlation_id.internal,
                // SAFETY: reading a u64 from a plain 8-byte union.
                external_id: unsafe { r.correlation_id.external.value },
                start_ns: r.start_timestamp,
                end_ns: r.end_timestamp,
                thread_id: r.thread_id,
            }
        }
    };
    match domain {
        ApiDomain::Hip => out.counters.api_records += 1,
        ApiDomain::Marker => out.counters.marker_records += 1,
    }
    out.api.push(rec);
}
