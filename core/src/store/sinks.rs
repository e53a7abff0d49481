//! Registries of per-producer state: stores behind their own mutex (`Sinks`), and per-thread
//! slots of atomics on cache lines of their own (`ThreadSlots`).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Producers register once and keep their `Arc`; only registration takes the registry lock.
pub struct Sinks<S> {
    all: Mutex<Vec<Arc<Mutex<S>>>>,
}

impl<S> Default for Sinks<S> {
    fn default() -> Self {
        Sinks {
            all: Mutex::new(Vec::new()),
        }
    }
}

/// Locks a store even if a panic (caught at the FFI edge) poisoned it: the data are plain
/// appended events and stay usable.
pub fn lock<S>(m: &Mutex<S>) -> MutexGuard<'_, S> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<S: Default> Sinks<S> {
    pub const fn new() -> Self {
        Sinks {
            all: Mutex::new(Vec::new()),
        }
    }

    /// Creates and registers a new store for one producer.
    pub fn register(&self) -> Arc<Mutex<S>> {
        let s = Arc::new(Mutex::new(S::default()));
        lock(&self.all).push(s.clone());
        s
    }

    /// Visits every registered store, in registration order.
    pub fn for_each(&self, mut f: impl FnMut(&mut S)) {
        let all: Vec<Arc<Mutex<S>>> = lock(&self.all).clone();
        for s in all {
            f(&mut lock(&s));
        }
    }
}

/// A value on a cache line of its own. Slots allocated one after another would share lines,
/// and a thread's stores to its own slot would then pass the line between the cores of
/// threads that merely sit beside it in memory.
#[repr(align(64))]
#[derive(Debug, Default)]
pub struct OwnLine<T>(pub T);

impl<T> std::ops::Deref for OwnLine<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// Per-thread slots that only their own thread writes (atomics, relaxed: no lock, no shared
/// write on the thread's path) and a reader on another thread scans. A thread registers its
/// slot once, from its `thread_local!`; the registry keeps it after the thread ends.
pub struct ThreadSlots<T> {
    all: Mutex<Vec<Arc<OwnLine<T>>>>,
}

impl<T> ThreadSlots<T> {
    pub const fn new() -> Self {
        ThreadSlots {
            all: Mutex::new(Vec::new()),
        }
    }

    /// A new thread's slot, holding `value`, registered.
    pub fn register(&self, value: T) -> Arc<OwnLine<T>> {
        let slot = Arc::new(OwnLine(value));
        lock(&self.all).push(Arc::clone(&slot));
        slot
    }

    /// Every slot registered so far, in registration order.
    pub fn all(&self) -> MutexGuard<'_, Vec<Arc<OwnLine<T>>>> {
        lock(&self.all)
    }
}

impl<T> Default for ThreadSlots<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads' slots never share a cache line, however the allocator places them, and
    /// a slot stays readable after its thread ends.
    #[test]
    fn thread_slots_have_lines_of_their_own_and_outlive_their_threads() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let slots: Arc<ThreadSlots<AtomicU64>> = Arc::new(ThreadSlots::new());
        for t in 1..=3u64 {
            let slots = Arc::clone(&slots);
            std::thread::spawn(move || {
                slots
                    .register(AtomicU64::new(0))
                    .store(t, Ordering::Relaxed)
            })
            .join()
            .unwrap();
        }
        let all = slots.all();
        let seen: Vec<u64> = all.iter().map(|s| s.load(Ordering::Relaxed)).collect();
        assert_eq!(seen, [1, 2, 3]);
        for s in all.iter() {
            assert_eq!(Arc::as_ptr(s) as usize % 64, 0);
        }
        assert!(std::mem::size_of::<OwnLine<AtomicU64>>() >= 64);
    }

    #[test]
    fn each_thread_fills_its_own_store() {
        let sinks: Arc<Sinks<Vec<u32>>> = Arc::new(Sinks::new());
        let handles: Vec<_> = (0..4u32)
            .map(|t| {
                let sinks = sinks.clone();
                std::thread::spawn(move || {
                    let mine = sinks.register();
                    for i in 0..1000 {
                        lock(&mine).push(t * 1000 + i);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let mut all = Vec::new();
        sinks.for_each(|s| all.append(s));
        all.sort_unstable();
        assert!(all.iter().copied().eq(0..4000));
    }
}
