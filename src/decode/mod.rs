//! Raw buffer records → compact owned events.
//!
//! This runs inside the runtime's buffer callback, so it does the minimum: check the header
//! category and kind (resolved by name at initialize), check the record's own `size` against the
//! layout we read, copy the fields we need into the store. Anything else is skipped and counted,
//! never guessed at.

pub mod abi;
pub mod api;
pub mod hip_event;
pub mod kernel;
pub mod memcpy;
pub mod pmc;
mod record;

use rocprofiler_sdk_sys as sys;

use record::record_size;

use crate::model::events::ApiDomain;
use crate::store::EventStore;
pub use abi::Abi;

/// Runtime values of the buffer-tracing kinds we decode (`None` = not traced / not present).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BufferKinds {
    pub hip_api: Option<u32>,
    pub marker_api: Option<u32>,
    pub kernel_dispatch: Option<u32>,
    pub memory_copy: Option<u32>,
    /// `HIP_EVENT` (SDK after 1.3.5 only; resolved by name, never assumed).
    pub hip_event: Option<u32>,
    /// Whether a dispatch counting service delivers `COUNTERS` records into our buffers.
    pub counters: bool,
}

/// Which decoder a tracing record goes to, by its buffer-tracing kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decoder {
    Unknown,
    Kernel,
    Copy,
    HipApi,
    Marker,
    HipEvent,
}

impl BufferKinds {
    /// Each decoder and the kind configured for it, first in priority: a kind configured for
    /// two goes to the first.
    fn by_priority(&self) -> [(Option<u32>, Decoder); 5] {
        [
            (self.kernel_dispatch, Decoder::Kernel),
            (self.memory_copy, Decoder::Copy),
            (self.hip_api, Decoder::HipApi),
            (self.marker_api, Decoder::Marker),
            (self.hip_event, Decoder::HipEvent),
        ]
    }

    /// The decoder of a tracing record of `kind`: the first of kernel dispatch, memory copy, HIP
    /// API, marker API and HIP event configured for it ([`Self::by_priority`]).
    fn decoder(&self, kind: u32) -> Decoder {
        self.by_priority()
            .into_iter()
            .find(|&(k, _)| k == Some(kind))
            .map_or(Decoder::Unknown, |(_, d)| d)
    }
}

/// Kinds below this are routed by [`Routes`]' table; the SDK's buffer-tracing kinds are a few
/// dozen values, and any other asks [`BufferKinds::decoder`].
const ROUTED_KINDS: usize = 64;

/// The decoder of each buffer-tracing kind, made once per delivery from its [`BufferKinds`]:
/// a record reads one table entry instead of comparing its kind with each kind configured.
struct Routes<'k> {
    by_kind: [Decoder; ROUTED_KINDS],
    kinds: &'k BufferKinds,
}

impl<'k> Routes<'k> {
    fn of(kinds: &'k BufferKinds) -> Routes<'k> {
        let mut by_kind = [Decoder::Unknown; ROUTED_KINDS];
        // Lowest priority first: a kind configured twice goes where `BufferKinds::decoder`
        // sends it.
        for (kind, d) in kinds.by_priority().into_iter().rev() {
            if let Some(slot) = kind.and_then(|k| by_kind.get_mut(k as usize)) {
                *slot = d;
            }
        }
        Routes { by_kind, kinds }
    }

    #[inline(always)]
    fn decoder(&self, kind: u32) -> Decoder {
        match self.by_kind.get(kind as usize) {
            Some(&d) => d,
            None => self.kinds.decoder(kind),
        }
    }
}

/// Decodes one record into `out`, by the delivery's [`Routes`], under the ABI family `V1`
/// names (1.x when true).
///
/// # Safety
/// `header` must be null or point to a valid record header whose `payload` (if non-null)
/// points to a record of at least the size its own `size` field states.
#[inline(always)]
unsafe fn decode_routed<const V1: bool>(
    routes: &Routes<'_>,
    header: *const sys::rocprofiler_record_header_t,
    out: &mut EventStore,
) {
    if header.is_null() {
        out.counters.bad_size_records += 1;
        return;
    }
    // SAFETY: `header` is valid per the contract; the hash member covers category and kind.
    let (hash, payload) = unsafe { ((*header).__bindgen_anon_1.hash, (*header).payload) };
    let category = (hash & 0xffff_ffff) as u32;
    let kind = (hash >> 32) as u32;
    if category != sys::ROCPROFILER_BUFFER_CATEGORY_TRACING {
        if category == sys::ROCPROFILER_BUFFER_CATEGORY_COUNTERS && routes.kinds.counters {
            if payload.is_null() {
                out.counters.bad_size_records += 1;
            } else {
                // SAFETY: a non-null payload of this category and kind, per the contract.
                unsafe { pmc::decode(kind, payload as *const u8, out) };
            }
        } else {
            out.counters.unknown_kind_records += 1;
        }
        return;
    }
    if payload.is_null() {
        out.counters.bad_size_records += 1;
        return;
    }
    let payload = payload as *const u8;
    // SAFETY: a non-null tracing payload starts with its 8-byte size.
    let size = unsafe { record_size(payload) };
    // SAFETY: `payload` holds `size` bytes (the record states its own size); each decoder
    // checks `size` against the layout it reads before reading.
    unsafe {
        match routes.decoder(kind) {
            Decoder::Kernel => kernel::decode(payload, size, out),
            Decoder::Copy => memcpy::decode(payload, size, out),
            Decoder::HipApi => api::decode::<V1>(ApiDomain::Hip, payload, size, out),
            Decoder::Marker => api::decode::<V1>(ApiDomain::Marker, payload, size, out),
            Decoder::HipEvent => hip_event::decode(payload, size, out),
            Decoder::Unknown => out.counters.unknown_kind_records += 1,
        }
    }
}

/// Decodes a whole delivery and adds the runtime's `drop_count`.
///
/// # Safety
/// `headers` must be null or point to `n` header pointers, each valid per `decode_routed`.
pub unsafe fn decode_batch(
    abi: Abi,
    kinds: &BufferKinds,
    headers: *const *const sys::rocprofiler_record_header_t,
    n: usize,
    drop_count: u64,
    out: &mut EventStore,
) {
    out.counters.runtime_dropped += drop_count;
    if headers.is_null() {
        return;
    }
    let routes = Routes::of(kinds);
    // SAFETY: this function's contract.
    unsafe {
        match abi {
            Abi::V0 => decode_all::<false>(&routes, headers, n, out),
            Abi::V1 => decode_all::<true>(&routes, headers, n, out),
        }
    }
}

/// [`decode_batch`]'s loop under the ABI family `V1` names (1.x when true): the family is the
/// delivery's, tested once for it, and the common decoders (kernel dispatch, memory copy, API)
/// are made part of the loop, with no call per record.
///
/// # Safety
/// As [`decode_batch`], `headers` not null.
#[inline(never)]
unsafe fn decode_all<const V1: bool>(
    routes: &Routes<'_>,
    headers: *const *const sys::rocprofiler_record_header_t,
    n: usize,
    out: &mut EventStore,
) {
    for i in 0..n {
        // SAFETY: `headers` has `n` entries per the contract.
        let h = unsafe { *headers.add(i) };
        // SAFETY: each entry is valid per the contract.
        unsafe { decode_routed::<V1>(routes, h, out) };
    }
}

#[cfg(test)]
pub(crate) mod tests;
