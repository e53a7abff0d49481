//! A registry of per-producer stores.

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

#[cfg(test)]
mod tests {
    use super::*;

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
