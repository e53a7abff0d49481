//! Reading a raw record's bytes: its own `size`, and a copy of the layout read when that size
//! covers it.

use crate::store::EventStore;

/// Reads the record's leading `size` field.
///
/// # Safety
/// `payload` must point to at least 8 readable bytes.
#[inline]
pub(super) unsafe fn record_size(payload: *const u8) -> usize {
    // SAFETY: guaranteed by the caller; every tracing record starts with `uint64_t size`.
    unsafe { (payload as *const u64).read_unaligned() as usize }
}

/// Copies a `R` out of the runtime's buffer when the record's own `size` covers it; otherwise
/// counts a bad-size record and returns `None`. The copy matters: the buffer is only valid
/// during the callback.
///
/// # Safety
/// `payload` must point to `size` readable bytes.
#[inline]
pub(super) unsafe fn read_record<R: Copy>(
    payload: *const u8,
    size: usize,
    out: &mut EventStore,
) -> Option<R> {
    if size < std::mem::size_of::<R>() {
        out.counters.bad_size_records += 1;
        return None;
    }
    // SAFETY: `size` (≤ the readable bytes, per the caller) covers the whole `R`.
    Some(unsafe { (payload as *const R).read_unaligned() })
}
