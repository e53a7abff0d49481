//! HIP runtime API and roctx marker records (same layout; 56 bytes in 0.x, 64 in 1.x because
//! the correlation id grew).

use rocprofiler_sdk_sys as sys;

use super::record::read_record;
use crate::model::events::{ApiDomain, ApiRecord, MarkerRecord};
use crate::store::EventStore;

/// The fields we keep, from either version's record (same names, different offsets).
macro_rules! api_record {
    ($r:expr, $domain:expr) => {{
        let r = $r;
        ApiRecord {
            domain: $domain,
            operation: r.operation,
            correlation_id: r.correlation_id.internal,
            // SAFETY: reading a u64 from a plain 8-byte union.
            external_id: unsafe { r.correlation_id.external.value },
            start_ns: r.start_timestamp,
            end_ns: r.end_timestamp,
            thread_id: r.thread_id,
        }
    }};
}

/// A record of either ABI family, read when its own `size` covers the layout of the family
/// `V1` names (1.x when true): the family is fixed per delivery, so the decode loop is made once
/// per family and a record tests no family.
///
/// # Safety
/// `payload` must point to `size` readable bytes.
#[inline(always)]
pub unsafe fn decode<const V1: bool>(
    domain: ApiDomain,
    payload: *const u8,
    size: usize,
    out: &mut EventStore,
) {
    let rec = if V1 {
        // SAFETY: `payload` holds `size` bytes; `read_record` checks `size`.
        unsafe {
            read_record::<sys::rocprofiler_buffer_tracing_hip_api_record_v1_t>(payload, size, out)
        }
        .map(|r| api_record!(r, domain))
    } else {
        // SAFETY: as above.
        unsafe {
            read_record::<sys::rocprofiler_buffer_tracing_hip_api_record_v0_t>(payload, size, out)
        }
        .map(|r| api_record!(r, domain))
    };
    let Some(rec) = rec else {
        return;
    };
    let dropped = &mut out.counters.memory_limit_dropped;
    match domain {
        ApiDomain::Hip => {
            out.counters.api_records += 1;
            out.api.push_or_count(rec, dropped);
        }
        ApiDomain::Marker => {
            out.counters.marker_records += 1;
            out.marker_records
                .push_or_count(MarkerRecord::of(rec), dropped);
        }
    }
}
