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

use std::sync::atomic::{AtomicU64, Ordering};

use crate::capture::local;

/// The memory ceiling and what is charged against it.
#[derive(Debug)]
pub struct Budget {
    /// Bytes of records held (decoded events and captured per-call facts).
    held: AtomicU64,
    /// The ceiling; `u64::MAX` = none.
    limit: AtomicU64,
    /// Records dropped because of the ceiling.
    dropped: AtomicU64,
    /// Bytes of windows cut and waiting to be joined and written (`control::writer`): held
    /// until the writer takes them, whatever the cuts reset.
    queued: AtomicU64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            held: AtomicU64::new(0),
            limit: AtomicU64::new(u64::MAX),
            dropped: AtomicU64::new(0),
            queued: AtomicU64::new(0),
        }
    }
}

/// What an application thread charges the shared count at once: its calls' bytes until they
/// reach this. The count then lags by less than this per thread (2 MiB with 32 threads),
/// nothing beside a ceiling of gigabytes (a quarter of the machine's memory by default).
const CALL_BATCH: u64 = 64 << 10;

impl Budget {
    /// Sets the ceiling (0 = none).
    pub fn set_limit(&self, bytes: u64) {
        self.limit
            .store(if bytes == 0 { u64::MAX } else { bytes }, Ordering::Relaxed);
    }

    pub fn limit(&self) -> Option<u64> {
        let l = self.limit.load(Ordering::Relaxed);
        (l != u64::MAX).then_some(l)
    }

    /// Charges `bytes` newly held; whether the ceiling is now passed (the recorder then drops
    /// what comes next until the budget is reset).
    #[inline]
    pub fn charge(&self, bytes: u64) -> bool {
        let held = self.held.fetch_add(bytes, Ordering::Relaxed) + bytes;
        held.saturating_add(self.queued.load(Ordering::Relaxed))
            >= self.limit.load(Ordering::Relaxed)
    }

    /// A cut window of `bytes` waits for the writer: charged until [`Self::unqueue`].
    pub fn queue(&self, bytes: u64) {
        self.queued.fetch_add(bytes, Ordering::Relaxed);
    }

    /// The writer took a waiting window of `bytes`.
    pub fn unqueue(&self, bytes: u64) {
        let _ = self
            .queued
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |q| {
                Some(q.saturating_sub(bytes))
            });
    }

    /// Charges one captured call's `bytes` from an application thread: kept on the thread, and
    /// added to the shared count once they reach `CALL_BATCH`; whether the ceiling is now
    /// passed. (What is pending when the budget is reset counts toward the next window's: at
    /// most `CALL_BATCH` per thread.)
    #[inline]
    pub fn charge_call(&self, bytes: u64) -> bool {
        local::with(|l| self.charge_call_on(l, bytes))
    }

    /// [`Self::charge_call`], given this thread's slot.
    #[inline]
    pub(crate) fn charge_call_on(&self, l: &local::Local, bytes: u64) -> bool {
        // What is pending is below `CALL_BATCH` (it is kept only then): with `bytes` held below
        // `u64::MAX - CALL_BATCH` (a constant's compare folds away) the sum cannot overflow.
        let n = l.pending_charge.get() + bytes.min(u64::MAX - CALL_BATCH);
        if n < CALL_BATCH {
            l.pending_charge.set(n);
            false
        } else {
            l.pending_charge.set(0);
            self.charge(n)
        }
    }

    /// Counts `n` records dropped at the ceiling.
    #[inline]
    pub fn drop_records(&self, n: u64) {
        self.dropped.fetch_add(n, Ordering::Relaxed);
    }

    /// Records dropped so far, and resets the budget: what was held has been handed over.
    pub fn take_dropped_and_reset(&self) -> u64 {
        self.held.store(0, Ordering::Relaxed);
        self.dropped.swap(0, Ordering::Relaxed)
    }

    /// Bytes held now.
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }
}

/// Default ceiling: a quarter of the machine's physical memory (the job owns the rest), or
/// none when the size cannot be read.
pub fn default_limit() -> u64 {
    // Up into `sdk`, to its `os` leaf (no imports from the crate), where the FFI of every OS
    // call lives.
    crate::sdk::os::physical_memory_bytes().map_or(0, |b| b / 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charging_past_the_ceiling_fills_and_reset_empties() {
        let b = Budget::default();
        b.set_limit(1000);
        assert!(!b.charge(600));
        assert!(b.charge(600));
        b.drop_records(3);
        assert_eq!(b.take_dropped_and_reset(), 3);
        assert_eq!(b.held(), 0);
        assert!(!b.charge(600), "held afresh after the reset");
        b.set_limit(0);
        assert_eq!(b.limit(), None);
        assert!(!b.charge(u64::MAX / 2), "no ceiling");
    }

    /// An application thread's calls reach the shared count in batches, none lost: the
    /// ceiling is still reached, within one batch of where every call charged at once.
    #[test]
    fn calls_are_charged_in_batches_and_still_fill_the_budget() {
        std::thread::spawn(|| {
            let b = Budget::default();
            b.set_limit(1 << 20);
            for _ in 0..(CALL_BATCH / 64 - 1) {
                assert!(!b.charge_call(64));
            }
            assert_eq!(b.held(), 0, "below one batch: kept on the thread");
            b.charge_call(64);
            assert_eq!(b.held(), CALL_BATCH, "a batch: added at once");
            let mut calls = CALL_BATCH / 64;
            loop {
                calls += 1;
                if b.charge_call(64) {
                    break;
                }
                assert!(
                    calls * 64 <= (1 << 20) + CALL_BATCH,
                    "the ceiling was passed unseen"
                );
            }
            assert!(calls * 64 >= 1 << 20);
        })
        .join()
        .unwrap();
    }
}
