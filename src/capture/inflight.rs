//! HIP calls under way on each application thread, so the end of a capture window can wait for
//! the calls that began inside it.
//!
//! The runtime picks the contexts a HIP call reports to when the call *enters* and writes its
//! buffer record when it *exits*: a call that entered before the buffer context was stopped
//! (a `hipDeviceSynchronize` waiting on a kernel, say) still lands its record after the stop,
//! and a flush made at once would miss it, leaving it to be thrown away with the next window's
//! leftovers. The window's end therefore waits until every call open at the stop has exited.
//!
//! Cost on the application thread: one thread-local counter and one store to a cache line only
//! that thread writes (its slot is aligned to a line of its own), at the outermost ENTER and
//! EXIT; no lock, no shared write.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::local;
use crate::store::sinks::{OwnLine, ThreadSlots};

/// A thread's slot, on a cache line of its own: the epoch of its open call above, a sequence
/// number below that is odd while a call is open, bumped at the outermost ENTER and EXIT,
/// written only by its own thread.
pub(crate) type Slot = OwnLine<AtomicU64>;

/// How long the end of a window waits for calls that began before it.
pub const SETTLE_LIMIT: Duration = Duration::from_millis(500);

/// The runtime writes a call's record just after our EXIT callback returns: a pause this long
/// lets a thread that was between the two finish.
const AFTER_EXIT: Duration = Duration::from_millis(2);

/// The open-call slots of every thread that ever made a traced HIP call.
#[derive(Default)]
pub struct OpenCalls {
    slots: ThreadSlots<AtomicU64>,
    /// Bumped when EXIT callbacks may have been lost (a detach stops our callback context):
    /// calls opened in an older epoch are no longer waited for, and their thread starts
    /// afresh.
    epoch: AtomicU32,
}

impl OpenCalls {
    /// Runs `f` on this thread's slot in this registry.
    #[inline(always)]
    fn with_slot(&self, l: &local::Local, f: impl FnOnce(&Slot)) {
        let owner = local::address_of(&self.slots);
        local::with_registered(
            &l.open_slot,
            owner,
            || self.slots.register(AtomicU64::new(0)),
            |slot| f(slot),
        )
    }

    /// A HIP call entered on this thread (nested calls count once).
    #[inline]
    pub fn enter(&self) {
        local::with(|l| self.enter_on(l));
    }

    /// [`Self::enter`], given this thread's slot.
    #[inline(always)]
    pub(crate) fn enter_on(&self, l: &local::Local) {
        if self.deepen(l) {
            self.with_slot(l, |slot| publish(l, slot, true));
        }
    }

    /// [`Self::enter_on`] with this thread's open-call slot of this registry already found
    /// ([`Self::registered_slot_on`]): no second look-up.
    #[inline(always)]
    pub(crate) fn enter_on_slot(&self, l: &local::Local, slot: &Slot) {
        if self.deepen(l) {
            publish(l, slot, true);
        }
    }

    /// One call deeper on this thread; true for the outermost call, which the slot shows.
    #[inline(always)]
    fn deepen(&self, l: &local::Local) -> bool {
        let epoch = self.epoch.load(Ordering::Relaxed);
        if l.open_depth.get() > 0 && l.open_epoch.get() != epoch {
            // The EXIT of the call open across an epoch change never came.
            l.open_depth.set(0);
        }
        let d = l.open_depth.get();
        l.open_depth.set(d + 1);
        if d == 0 {
            l.open_epoch.set(epoch);
        }
        d == 0
    }

    /// This thread's open-call slot of this registry when it is first in its entries (a load
    /// and a compare, no change): [`Self::enter_on_slot`] takes it. `None` when the ENTER
    /// would take a registration or the chain walk ([`Self::enter_on`] does those).
    #[inline(always)]
    pub(crate) fn registered_slot_on<'l>(&self, l: &'l local::Local) -> Option<&'l Slot> {
        local::registered(&l.open_slot, local::address_of(&self.slots)).map(|s| &**s)
    }

    /// A HIP call exited on this thread.
    #[inline]
    pub fn exit(&self) {
        local::with(|l| self.exit_on(l));
    }

    /// [`Self::exit`], given this thread's slot.
    #[inline(always)]
    pub(crate) fn exit_on(&self, l: &local::Local) {
        let d = l.open_depth.get();
        if d == 0 {
            // An EXIT whose ENTER we did not see (callbacks enabled mid-call).
            return;
        }
        l.open_depth.set(d - 1);
        if d == 1 {
            self.with_slot(l, |slot| publish(l, slot, false));
        }
    }

    /// [`Self::exit_on`] when it needs no registration of this thread's slot (the call's ENTER
    /// made it): a load, a compare and a store or two, no allocation, no lock, nothing that can
    /// panic, so a callback may run it before its panic guard. Returns false, having changed
    /// nothing, when the outermost EXIT finds no slot of this registry first in the thread's
    /// entries (an ENTER never seen, a thread used with several registries): [`Self::exit_on`]
    /// takes it.
    #[inline(always)]
    pub(crate) fn exit_registered_on(&self, l: &local::Local) -> bool {
        let d = l.open_depth.get();
        match d {
            // An EXIT whose ENTER we did not see (callbacks enabled mid-call).
            0 => true,
            1 => {
                let owner = local::address_of(&self.slots);
                let Some(slot) = local::registered(&l.open_slot, owner) else {
                    return false;
                };
                l.open_depth.set(0);
                publish(l, slot, false);
                true
            }
            _ => {
                l.open_depth.set(d - 1);
                true
            }
        }
    }

    /// Calls open now are not waited for any more: their EXIT may never reach us (after a
    /// detach the SDK's callbacks to our contexts may stop).
    pub fn forget_open_calls(&self) {
        self.epoch.fetch_add(1, Ordering::Relaxed);
    }

    /// [`Self::settle`] for [`SETTLE_LIMIT`], logging the calls still open then: what the end
    /// of a window and a detach do before their flush. `after` names the event for the log
    /// line.
    pub fn settle_before_flush(&self, after: &str) {
        let open = self.settle(SETTLE_LIMIT);
        if open > 0 {
            crate::log_info!(
                "{open} HIP calls were still running {SETTLE_LIMIT:?} after {after}: their records miss it"
            );
        }
    }

    /// Waits (at most `limit`) until every HIP call open now has exited, then a little longer
    /// for their records to be written. Returns how many were still open at the limit (a call
    /// blocked longer, whose record then misses this window). Call after stopping the buffer
    /// context and before the flush that ends the window; never on an application thread.
    pub fn settle(&self, limit: Duration) -> usize {
        let epoch = u64::from(self.epoch.load(Ordering::Relaxed));
        let open: Vec<(Arc<Slot>, u64)> = self
            .slots
            .all()
            .iter()
            .map(|s| (Arc::clone(s), s.load(Ordering::Acquire)))
            .filter(|(_, v)| v & 1 == 1 && v >> 32 == epoch)
            .collect();
        let deadline = Instant::now() + limit;
        let mut waiting = open;
        while !waiting.is_empty() {
            waiting.retain(|(s, v)| s.load(Ordering::Acquire) == *v);
            if waiting.is_empty() || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        std::thread::sleep(AFTER_EXIT);
        waiting.len()
    }
}

fn publish(l: &local::Local, slot: &Slot, open: bool) {
    let seq = slot.load(Ordering::Relaxed) as u32;
    let seq = if open {
        seq | 1
    } else {
        (seq | 1).wrapping_add(1)
    };
    slot.store(
        (u64::from(l.open_epoch.get()) << 32) | u64::from(seq),
        Ordering::Release,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads' slots never share a cache line, however the allocator places them.
    #[test]
    fn each_threads_slot_has_a_cache_line_of_its_own() {
        let calls = OpenCalls::default();
        let calls = &calls;
        for _ in 0..2 {
            std::thread::scope(|s| s.spawn(|| enter_and_exit(calls)).join().unwrap());
        }
        let slots = calls.slots.all();
        for s in slots.iter() {
            assert_eq!(Arc::as_ptr(s) as usize % 64, 0);
        }
        assert!(std::mem::size_of::<Slot>() >= 64);
    }

    fn enter_and_exit(calls: &OpenCalls) {
        calls.enter();
        calls.exit();
    }

    #[test]
    fn settle_waits_for_a_call_open_at_the_stop_and_not_for_later_ones() {
        let calls = Arc::new(OpenCalls::default());
        let mine = Arc::clone(&calls);
        let (tx, rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            mine.enter();
            mine.enter(); // nested: still one open call
            mine.exit();
            tx.send(()).unwrap();
            go_rx.recv().unwrap();
            mine.exit();
        });
        rx.recv().unwrap();
        let t0 = Instant::now();
        // Still open at the limit: reported.
        assert_eq!(calls.settle(Duration::from_millis(20)), 1);
        assert!(t0.elapsed() >= Duration::from_millis(20));
        go_tx.send(()).unwrap();
        t.join().unwrap();
        // Closed: nothing to wait for.
        let t0 = Instant::now();
        assert_eq!(calls.settle(Duration::from_secs(5)), 0);
        assert!(t0.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn calls_open_across_a_forget_are_not_waited_for_and_their_thread_recovers() {
        let calls = Arc::new(OpenCalls::default());
        let mine = Arc::clone(&calls);
        let (tx, rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            mine.enter(); // its EXIT is "lost"
            tx.send(()).unwrap();
            go_rx.recv().unwrap();
            mine.enter(); // a new call after the epoch change
            tx.send(()).unwrap();
            go_rx.recv().unwrap();
            mine.exit();
        });
        rx.recv().unwrap();
        calls.forget_open_calls();
        let t0 = Instant::now();
        assert_eq!(
            calls.settle(Duration::from_secs(5)),
            0,
            "the lost call is not waited for"
        );
        assert!(t0.elapsed() < Duration::from_secs(1));
        go_tx.send(()).unwrap();
        rx.recv().unwrap();
        assert_eq!(
            calls.settle(Duration::from_millis(20)),
            1,
            "the new call is"
        );
        go_tx.send(()).unwrap();
        t.join().unwrap();
        assert_eq!(
            calls.settle(Duration::from_secs(5)),
            0,
            "and its EXIT closes it"
        );
    }

    /// The EXIT the callbacks take before their guard keeps the slot as [`OpenCalls::exit_on`]
    /// does, and declines, changing nothing, where only the chain walk finds the slot (a thread
    /// used with a second registry).
    #[test]
    fn the_unguarded_exit_closes_calls_as_the_guarded_one_does() {
        let (calls, second) = (OpenCalls::default(), OpenCalls::default());
        std::thread::scope(|s| {
            s.spawn(|| {
                local::with(|l| {
                    assert!(calls.exit_registered_on(l), "an EXIT never entered");
                    calls.enter_on(l);
                    calls.enter_on(l); // nested: one open call
                    assert!(calls.exit_registered_on(l));
                    assert_eq!(calls.settle(Duration::from_millis(5)), 1, "still open");
                    assert!(calls.exit_registered_on(l));
                    assert_eq!(l.open_depth.get(), 0);
                    assert_eq!(calls.settle(Duration::from_secs(5)), 0, "closed");
                    // The thread's first registry is `calls`: `second`'s slot is in the chain.
                    second.enter_on(l);
                    assert!(!second.exit_registered_on(l), "declined");
                    assert_eq!(l.open_depth.get(), 1, "and nothing changed");
                    assert_eq!(second.settle(Duration::from_millis(5)), 1);
                    second.exit_on(l);
                    assert_eq!(second.settle(Duration::from_secs(5)), 0);
                });
            });
        });
    }

    #[test]
    fn settle_returns_when_the_open_call_exits() {
        let calls = Arc::new(OpenCalls::default());
        let mine = Arc::clone(&calls);
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            mine.enter();
            tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(30));
            mine.exit();
        });
        rx.recv().unwrap();
        assert_eq!(calls.settle(Duration::from_secs(5)), 0);
        t.join().unwrap();
    }
}
