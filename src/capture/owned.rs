//! A thread's capture state, worked on by its own thread without a locked instruction and lent
//! to the drain on the tool's thread at a cut ([`ThreadCell`]).
//!
//! A mutex costs its thread a locked compare-and-swap and a locked swap per callback, although
//! only a drain ever contends for it. Here the owning thread marks itself busy with a plain
//! store, checks with a plain load that no drain wants the state, works on it, and clears its
//! mark with a plain (release) store. A drain raises its flag, makes every thread of the process
//! pass a full memory barrier (`membarrier`, `sdk::os::heavy_barrier`), then waits until the
//! owner is not busy: either the owner's mark reached the drain, which waits for it to clear, or
//! the drain's flag reached the owner, which steps aside until the drain is done. That is the
//! Dekker handshake with the owner's half of its fence moved to the drain's side, where it is
//! paid once per thread per cut instead of once per callback. Where the kernel refuses the
//! barrier (before Linux 4.14, some sandboxes, valgrind) both sides use a full fence: one
//! locked instruction on the owner's side, where the mutex had two.
//!
//! The drain sees what it saw through the mutex: a callback's changes whole or not at all, from
//! a thread running, idle or gone (the registry keeps its state).

use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::sync::atomic::{compiler_fence, fence, AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::sdk::os;
use crate::store::sinks::lock;

/// How the two sides of the handshake order the mark against the flag (chosen once per
/// registry: the kernel's registration is the process's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Barrier {
    /// The owner orders with a compiler fence, the drain with `membarrier`.
    Asymmetric,
    /// Both sides with a full fence (no `membarrier`).
    Fences,
}

impl Barrier {
    /// The asymmetric barrier when this process can have it.
    pub fn for_this_process() -> Barrier {
        if os::register_heavy_barrier() {
            Barrier::Asymmetric
        } else {
            Barrier::Fences
        }
    }

    /// The owner's side: its mark before its read of the drain's flag.
    #[inline(always)]
    fn light(self) {
        match self {
            Barrier::Asymmetric => compiler_fence(Ordering::SeqCst),
            Barrier::Fences => fence(Ordering::SeqCst),
        }
    }

    /// The drain's side: its flag before its read of the owner's mark.
    fn heavy(self) {
        match self {
            Barrier::Asymmetric => os::heavy_barrier(),
            Barrier::Fences => fence(Ordering::SeqCst),
        }
    }
}

/// A value one thread works on ([`Owner::with`]) and drains borrow ([`ThreadCell::lend`]).
pub struct ThreadCell<T> {
    /// The owner is working on `value`: written by the owner only.
    busy: AtomicBool,
    /// A drain wants or holds `value`: written by drains only, under `drains`.
    wanted: AtomicBool,
    barrier: Barrier,
    /// One drain at a time; an owner that met a drain waits here until it is done.
    drains: Mutex<()>,
    value: UnsafeCell<T>,
}

// SAFETY: `value` is reached only through `Owner::with` (one thread at a time: there is one
// `Owner` per cell, and it is not `Sync`) and `ThreadCell::lend` (serialized by
// `drains`), and the handshake above keeps the two apart; `T: Send` because the drains reach it
// from another thread.
unsafe impl<T: Send> Sync for ThreadCell<T> {}

/// The owning thread's handle of a [`ThreadCell`]: one per cell, not `Sync` (it may move to
/// another thread, never be shared).
pub struct Owner<T> {
    cell: Arc<ThreadCell<T>>,
    _one_thread: PhantomData<Cell<()>>,
}

/// A new cell holding `value`: the owner's handle, and the cell for the registry.
pub fn new_cell<T>(value: T, barrier: Barrier) -> (Owner<T>, Arc<ThreadCell<T>>) {
    let cell = Arc::new(ThreadCell {
        busy: AtomicBool::new(false),
        wanted: AtomicBool::new(false),
        barrier,
        drains: Mutex::new(()),
        value: UnsafeCell::new(value),
    });
    let owner = Owner {
        cell: Arc::clone(&cell),
        _one_thread: PhantomData,
    };
    (owner, cell)
}

/// Clears a flag when dropped (also when the work panicked: the panic is caught at the FFI
/// edge, and the other side must not wait for ever).
struct Clear<'a>(&'a AtomicBool);

impl Drop for Clear<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl<T> Owner<T> {
    /// Runs `f` on the value: two plain stores and a plain load around it, unless a drain holds
    /// the value (then it waits for the drain). Panics when called again from inside `f` (the
    /// value is already lent to the outer call).
    #[inline(always)]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let c = &*self.cell;
        // Only this thread writes `busy`: set here means a call from inside `f`.
        assert!(
            !c.busy.load(Ordering::Relaxed),
            "a thread's capture state reached from inside its own use"
        );
        loop {
            c.busy.store(true, Ordering::Relaxed);
            c.barrier.light();
            if !c.wanted.load(Ordering::Acquire) {
                break;
            }
            c.busy.store(false, Ordering::Release);
            c.wait_for_drain();
        }
        let _done = Clear(&c.busy);
        // SAFETY: this thread holds the cell's one owner and is not inside another `with` (checked
        // above); its mark is set and no drain wanted the value after it, so any drain that
        // starts now sees the mark and waits until `_done` clears it.
        f(unsafe { &mut *c.value.get() })
    }

    /// [`Self::with`] when it takes no wait and cannot panic, as a guard (for a path written
    /// without closures): the value, marked busy until the guard drops (a plain load, a plain
    /// store and a plain load here, a release store at the drop); `None`, having changed
    /// nothing, when a drain wants the value or it is already lent to an outer use (`with`
    /// waits, or panics).
    #[inline(always)]
    pub fn try_borrow(&self) -> Option<Busy<'_, T>> {
        let c = &*self.cell;
        // Only this thread writes `busy`: set here means a use inside another.
        if c.busy.load(Ordering::Relaxed) {
            return None;
        }
        c.busy.store(true, Ordering::Relaxed);
        c.barrier.light();
        if c.wanted.load(Ordering::Acquire) {
            c.busy.store(false, Ordering::Release);
            return None;
        }
        Some(Busy {
            // SAFETY: as in `with`: this thread holds the cell's one owner (not `Sync`) and is
            // not inside another use (checked above); its mark is set and no drain wanted the
            // value after it, so any drain that starts now waits until the guard clears it.
            value: unsafe { &mut *c.value.get() },
            _done: Clear(&c.busy),
        })
    }
}

/// The owner's use of its value ([`Owner::try_borrow`]): the mark clears when it drops.
pub struct Busy<'a, T> {
    value: &'a mut T,
    _done: Clear<'a>,
}

impl<T> std::ops::Deref for Busy<'_, T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> std::ops::DerefMut for Busy<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        self.value
    }
}

impl<T> ThreadCell<T> {
    /// The owner met a drain: waits until it is done.
    #[cold]
    #[inline(never)]
    fn wait_for_drain(&self) {
        drop(lock(&self.drains));
    }

    /// Lends the value to `f` on a drain's thread, waiting until its owner is not working on
    /// it; the owner waits meanwhile if it needs it. Never from the owning thread inside
    /// [`Owner::with`].
    pub fn lend<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let _one_drain = lock(&self.drains);
        self.wanted.store(true, Ordering::Relaxed);
        let _done = Clear(&self.wanted);
        self.barrier.heavy();
        let mut spins = 0u32;
        while self.busy.load(Ordering::Acquire) {
            // The owner is inside one callback: a few hundred ns.
            if spins < 64 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        // SAFETY: drains are serialized by `_one_drain`; the flag is up and the barrier made it
        // visible to the owner before its mark was read clear, so the owner is outside `with`
        // and steps aside at its next one until `_done` lowers the flag.
        f(unsafe { &mut *self.value.get() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Every value the owner adds is taken by exactly one drain, drained while the owner is
    /// adding (two words per step, which a drain must never see half-done), and whatever was
    /// added after the last drain is still there after the owner's thread is gone.
    #[test]
    fn drains_concurrent_with_the_owner_take_each_value_once() {
        for barrier in [Barrier::for_this_process(), Barrier::Fences] {
            let (owner, cell) = new_cell((Vec::<u64>::new(), 0u64), barrier);
            const N: u64 = 200_000;
            let started = Arc::new(AtomicU64::new(0));
            let seen = Arc::clone(&started);
            // Drains made so far: halfway, the owner waits for two, so that some drain
            // surely falls while it runs, however the threads are scheduled.
            let drained = Arc::new(AtomicU64::new(0));
            let drained_seen = Arc::clone(&drained);
            let t = std::thread::spawn(move || {
                for i in 0..N {
                    if i == N / 2 {
                        while drained_seen.load(Ordering::Relaxed) < 2 {
                            std::thread::yield_now();
                        }
                    }
                    owner.with(|(v, sum)| {
                        v.push(i);
                        *sum += i;
                    });
                    seen.store(i, Ordering::Relaxed);
                }
                // `owner` dropped here: the thread ends with values not yet drained.
            });
            let (mut got, mut sum) = (Vec::new(), 0u64);
            let mut drains = 0;
            while !t.is_finished() || drains == 0 {
                cell.lend(|(v, s)| {
                    assert_eq!(v.iter().sum::<u64>(), *s, "a drain saw half a step");
                    sum += std::mem::take(s);
                    got.append(v);
                });
                drains += 1;
                drained.store(drains, Ordering::Relaxed);
            }
            t.join().unwrap();
            cell.lend(|(v, s)| {
                sum += std::mem::take(s);
                got.append(v);
            });
            assert!(started.load(Ordering::Relaxed) == N - 1);
            assert_eq!(got.len() as u64, N, "{barrier:?}: each value once");
            assert!(got.iter().copied().eq(0..N), "{barrier:?}: in order");
            assert_eq!(sum, N * (N - 1) / 2);
            assert!(drains > 1, "{barrier:?}: drained while the owner ran");
        }
    }

    /// A panic inside the owner's work leaves the value lendable (the mark is cleared as it
    /// unwinds), and a use from inside the owner's own use is refused, not a second borrow.
    #[test]
    fn a_panic_or_a_nested_use_leaves_the_cell_usable() {
        let (owner, cell) = new_cell(1u32, Barrier::Fences);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            owner.with(|v| {
                *v = 2;
                panic!("inside the callback");
            })
        }));
        assert!(r.is_err());
        let nested = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            owner.with(|_| owner.with(|v| *v = 3))
        }));
        assert!(nested.is_err());
        assert_eq!(cell.lend(|v| *v), 2);
        owner.with(|v| *v = 4);
        assert_eq!(cell.lend(|v| *v), 4);
    }
}
