//! The tool's own heap, counted in a measurement build (`--features heap-stats`).
//!
//! Whole-process RSS mixes the tool's memory with the program's and the runtime's: in the
//! simulator, the simulator's own cost of tracing (its buffers, its record queues) is counted as
//! ours. A cdylib carries its own Rust global allocator, so counting it gives exactly the bytes
//! the tool holds — its stores, the join, the writer — and their peak. Off by default: every
//! allocation would pay a shared atomic add.
//!
//! Underneath, the tool's allocator is a [`BlockPool`]: large blocks from page ranges all of
//! the tool's threads share (`pool`), the rest from the system allocator.

pub mod pool;

pub use pool::BlockPool;

/// `(live, peak)` bytes of the tool's heap, when counted.
pub fn stats() -> Option<(usize, usize)> {
    #[cfg(feature = "heap-stats")]
    {
        Some(counting::stats())
    }
    #[cfg(not(feature = "heap-stats"))]
    {
        None
    }
}

/// The tool heap's peak since the previous call (or the start), when counted; the next
/// interval starts at what is live now. The join's laps read it, so each pass shows its own top
/// (the overall peak only shows the first pass to reach it).
pub fn interval_peak() -> Option<usize> {
    #[cfg(feature = "heap-stats")]
    {
        Some(counting::interval_peak())
    }
    #[cfg(not(feature = "heap-stats"))]
    {
        None
    }
}

/// The pool under the counting allocator of the `heap-stats` build.
#[cfg(feature = "heap-stats")]
pub fn counted_pool() -> &'static BlockPool {
    counting::COUNTING.pool()
}

#[cfg(feature = "heap-stats")]
mod counting {
    use std::alloc::{GlobalAlloc, Layout};

    use super::BlockPool;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static LIVE: AtomicUsize = AtomicUsize::new(0);
    static PEAK: AtomicUsize = AtomicUsize::new(0);
    static INTERVAL_PEAK: AtomicUsize = AtomicUsize::new(0);

    pub fn stats() -> (usize, usize) {
        (LIVE.load(Ordering::Relaxed), PEAK.load(Ordering::Relaxed))
    }

    pub fn interval_peak() -> usize {
        INTERVAL_PEAK
            .swap(LIVE.load(Ordering::Relaxed), Ordering::Relaxed)
            .max(LIVE.load(Ordering::Relaxed))
    }

    fn grew(n: usize) {
        let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
        if now > PEAK.load(Ordering::Relaxed) {
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        if now > INTERVAL_PEAK.load(Ordering::Relaxed) {
            INTERVAL_PEAK.fetch_max(now, Ordering::Relaxed);
        }
    }

    fn shrank(n: usize) {
        LIVE.fetch_sub(n, Ordering::Relaxed);
    }

    pub struct Counting(BlockPool);

    impl Counting {
        pub fn pool(&self) -> &BlockPool {
            &self.0
        }
    }

    // SAFETY: every method forwards to the pool with the caller's arguments unchanged and only
    // adds bookkeeping, so the pool's guarantees are the caller's.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the caller's contract for `alloc` is `self.0.alloc`'s.
            let p = unsafe { self.0.alloc(layout) };
            if !p.is_null() {
                grew(layout.size());
            }
            p
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            // SAFETY: as `alloc`.
            let p = unsafe { self.0.alloc_zeroed(layout) };
            if !p.is_null() {
                grew(layout.size());
            }
            p
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: `ptr` came from this allocator (so from the pool) with `layout`.
            unsafe { self.0.dealloc(ptr, layout) };
            shrank(layout.size());
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: `ptr` came from the pool with `layout`; the caller's contract holds.
            let p = unsafe { self.0.realloc(ptr, layout, new_size) };
            if !p.is_null() {
                if new_size >= layout.size() {
                    grew(new_size - layout.size());
                } else {
                    shrank(layout.size() - new_size);
                }
            }
            p
        }
    }

    #[global_allocator]
    pub static COUNTING: Counting = Counting(BlockPool::new());

    #[cfg(test)]
    mod tests {
        #[test]
        fn a_held_vector_shows_in_live_and_peak() {
            let (_, before) = super::stats();
            let v = vec![0u8; 64 << 20];
            let (live, peak) = super::stats();
            assert!(live >= v.len() && peak >= before.max(v.len()));
            drop(v);
            let (after, _) = super::stats();
            assert!(after + (32 << 20) < live, "freed: {after} vs {live}");
        }
    }
}
