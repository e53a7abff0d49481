//! The memory ceiling (`ROCPROF_XPLANE_MAX_MEMORY`): records the tool holds for the profile are
//! charged here; past the ceiling, delivered records are dropped and counted instead of kept,
//! so a long or huge run ends with a partial profile and a warning, never an out-of-memory
//! abort of the user's job.
//!
//! The check is one relaxed load per delivered batch (buffer callbacks) and per captured HIP
//! call (application threads), so the hot path pays nothing measurable for it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Bytes of records held (decoded events and captured per-call facts).
static HELD: AtomicU64 = AtomicU64::new(0);
/// The ceiling; `u64::MAX` = none.
static LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);
/// Set once the ceiling is reached; cleared when what is held is handed over (finalize or the
/// end of a capture window).
static FULL: AtomicBool = AtomicBool::new(false);
/// Records dropped because of the ceiling.
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Sets the ceiling (0 = none).
pub fn set_limit(bytes: u64) {
    LIMIT.store(if bytes == 0 { u64::MAX } else { bytes }, Ordering::Relaxed);
}

pub fn limit() -> Option<u64> {
    let l = LIMIT.load(Ordering::Relaxed);
    (l != u64::MAX).then_some(l)
}

/// Whether new records must be dropped.
#[inline]
pub fn full() -> bool {
    FULL.load(Ordering::Relaxed)
}

/// Charges `bytes` newly held; marks the budget full when the ceiling is passed.
#[inline]
pub fn charge(bytes: u64) {
    let held = HELD.fetch_add(bytes, Ordering::Relaxed) + bytes;
    if held >= LIMIT.load(Ordering::Relaxed) {
        FULL.store(true, Ordering::Relaxed);
    }
}

/// Counts `n` records dropped at the ceiling.
#[inline]
pub fn drop_records(n: u64) {
    DROPPED.fetch_add(n, Ordering::Relaxed);
}

/// Records dropped so far, and resets the budget: what was held has been handed over.
pub fn take_dropped_and_reset() -> u64 {
    HELD.store(0, Ordering::Relaxed);
    FULL.store(false, Ordering::Relaxed);
    DROPPED.swap(0, Ordering::Relaxed)
}

/// Bytes held now.
#[cfg(test)]
fn held() -> u64 {
    HELD.load(Ordering::Relaxed)
}

/// Default ceiling: a quarter of the machine's physical memory (the job owns the rest), or
/// none when the size cannot be read.
pub fn default_limit() -> u64 {
    // SAFETY: sysconf only reads system configuration.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages <= 0 || page <= 0 {
        return 0;
    }
    (pages as u64).saturating_mul(page as u64) / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charging_past_the_ceiling_fills_and_reset_empties() {
        set_limit(1000);
        let _ = take_dropped_and_reset();
        charge(600);
        assert!(!full());
        charge(600);
        assert!(full());
        drop_records(3);
        assert_eq!(take_dropped_and_reset(), 3);
        assert!(!full());
        assert_eq!(held(), 0);
        set_limit(0);
        assert_eq!(limit(), None);
        charge(u64::MAX / 2);
        assert!(!full(), "no ceiling");
        let _ = take_dropped_and_reset();
    }
}
