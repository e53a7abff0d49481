//! The memory ceiling (`ROCPROF_XPLANE_MAX_MEMORY`): records the tool holds for the profile are
//! charged here; past the ceiling, delivered records are dropped and counted instead of kept,
//! so a long or huge run ends with a partial profile and a warning, never an out-of-memory
//! abort of the user's job.
//!
//! The check is one relaxed load per delivered batch (buffer callbacks) and per captured HIP
//! call (application threads), so the hot path pays nothing measurable for it. An application
//! thread adds its calls to the shared count in batches ([`charge_call`]): one shared atomic
//! written by every thread on every call is a cache line passed from core to core at each
//! call, a cost that grows with the cores the program runs on.

use std::cell::Cell;
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

/// What an application thread charges the shared count at once: its calls' bytes until they
/// reach this. The count then lags by less than this per thread (2 MiB with 32 threads),
/// nothing beside a ceiling of gigabytes (a quarter of the machine's memory by default).
const CALL_BATCH: u64 = 64 << 10;

thread_local! {
    /// This thread's calls' bytes not yet in `HELD`.
    static PENDING: Cell<u64> = const { Cell::new(0) };
}

/// Charges one captured call's `bytes` from an application thread: kept on the thread, and
/// added to the shared count once they reach `CALL_BATCH`. (What is pending when the budget
/// is reset counts toward the next window's: at most `CALL_BATCH` per thread.)
#[inline]
pub fn charge_call(bytes: u64) {
    let batched = PENDING.try_with(|p| {
        let n = p.get().saturating_add(bytes);
        if n < CALL_BATCH {
            p.set(n);
            0
        } else {
            p.set(0);
            n
        }
    });
    match batched {
        Ok(0) => {}
        Ok(n) => charge(n),
        // The thread's locals are gone (a call made while the thread exits): charged at once.
        Err(_) => charge(bytes),
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

    /// The budget is process-wide and `cargo test` runs tests on threads of one process: the
    /// tests that set and read it take turns.
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn charging_past_the_ceiling_fills_and_reset_empties() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
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

    /// An application thread's calls reach the shared count in batches, none lost: the
    /// ceiling is still reached, within one batch of where every call charged at once.
    #[test]
    fn calls_are_charged_in_batches_and_still_fill_the_budget() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        std::thread::spawn(|| {
            set_limit(1 << 20);
            let _ = take_dropped_and_reset();
            for _ in 0..(CALL_BATCH / 64 - 1) {
                charge_call(64);
            }
            assert_eq!(held(), 0, "below one batch: kept on the thread");
            charge_call(64);
            assert_eq!(held(), CALL_BATCH, "a batch: added at once");
            let mut calls = CALL_BATCH / 64;
            while !full() {
                charge_call(64);
                calls += 1;
                assert!(
                    calls * 64 <= (1 << 20) + CALL_BATCH,
                    "the ceiling was passed unseen"
                );
            }
            assert!(calls * 64 >= 1 << 20);
            set_limit(0);
            let _ = take_dropped_and_reset();
        })
        .join()
        .unwrap();
    }
}
