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

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::store::sinks::{OwnLine, ThreadSlots};

/// One slot per thread that ever made a traced HIP call: the epoch of its open call above, a
/// sequence number below that is odd while a call is open, bumped at the outermost ENTER and
/// EXIT, written only by its own thread.
static SLOTS: ThreadSlots<AtomicU64> = ThreadSlots::new();

/// A thread's slot, on a cache line of its own.
type Slot = OwnLine<AtomicU64>;

/// Bumped when EXIT callbacks may have been lost (a detach stops our callback context): calls
/// opened in an older epoch are no longer waited for, and their thread starts afresh.
static EPOCH: AtomicU32 = AtomicU32::new(0);

struct Mine {
    depth: Cell<u32>,
    /// Epoch of the outermost open call.
    epoch: Cell<u32>,
    slot: Arc<Slot>,
}

thread_local! {
    static MINE: Mine = {
        let slot = SLOTS.register(AtomicU64::new(0));
        Mine { depth: Cell::new(0), epoch: Cell::new(0), slot }
    };
}

fn publish(m: &Mine, open: bool) {
    let seq = m.slot.load(Ordering::Relaxed) as u32;
    let seq = if open {
        seq | 1
    } else {
        (seq | 1).wrapping_add(1)
    };
    m.slot.store(
        (u64::from(m.epoch.get()) << 32) | u64::from(seq),
        Ordering::Release,
    );
}

/// A HIP call entered on this thread (nested calls count once).
pub fn enter() {
    let _ = MINE.try_with(|m| {
        let epoch = EPOCH.load(Ordering::Relaxed);
        if m.depth.get() > 0 && m.epoch.get() != epoch {
            // The EXIT of the call open across an epoch change never came.
            m.depth.set(0);
        }
        let d = m.depth.get();
        m.depth.set(d + 1);
        if d == 0 {
            m.epoch.set(epoch);
            publish(m, true);
        }
    });
}

/// A HIP call exited on this thread.
pub fn exit() {
    let _ = MINE.try_with(|m| {
        let d = m.depth.get();
        if d == 0 {
            // An EXIT whose ENTER we did not see (callbacks enabled mid-call).
            return;
        }
        m.depth.set(d - 1);
        if d == 1 {
            publish(m, false);
        }
    });
}

/// Calls open now are not waited for any more: their EXIT may never reach us (after a detach
/// the SDK's callbacks to our contexts may stop).
pub fn forget_open_calls() {
    EPOCH.fetch_add(1, Ordering::Relaxed);
}

/// How long the end of a window waits for calls that began before it.
pub const SETTLE_LIMIT: Duration = Duration::from_millis(500);

/// The runtime writes a call's record just after our EXIT callback returns: a pause this long
/// lets a thread that was between the two finish.
const AFTER_EXIT: Duration = Duration::from_millis(2);

/// [`settle`] for [`SETTLE_LIMIT`], logging the calls still open then: what the end of a
/// window and a detach do before their flush. `after` names the event for the log line.
pub fn settle_before_flush(after: &str) {
    let open = settle(SETTLE_LIMIT);
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
pub fn settle(limit: Duration) -> usize {
    let epoch = u64::from(EPOCH.load(Ordering::Relaxed));
    let open: Vec<(Arc<Slot>, u64)> = SLOTS
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::sinks::lock;
    use std::sync::Mutex;

    /// The slots are process-wide: one test at a time.
    static SERIAL: Mutex<()> = Mutex::new(());

    /// Two threads' slots never share a cache line, however the allocator places them.
    #[test]
    fn each_threads_slot_has_a_cache_line_of_its_own() {
        let _one = lock(&SERIAL);
        for _ in 0..2 {
            std::thread::spawn(enter_and_exit).join().unwrap();
        }
        let slots = SLOTS.all();
        for s in slots.iter() {
            assert_eq!(Arc::as_ptr(s) as usize % 64, 0);
        }
        assert!(std::mem::size_of::<Slot>() >= 64);
    }

    fn enter_and_exit() {
        enter();
        exit();
    }

    #[test]
    fn settle_waits_for_a_call_open_at_the_stop_and_not_for_later_ones() {
        let _one = lock(&SERIAL);
        let (tx, rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            enter();
            enter(); // nested: still one open call
            exit();
            tx.send(()).unwrap();
            go_rx.recv().unwrap();
            exit();
        });
        rx.recv().unwrap();
        let t0 = Instant::now();
        // Still open at the limit: reported.
        assert_eq!(settle(Duration::from_millis(20)), 1);
        assert!(t0.elapsed() >= Duration::from_millis(20));
        go_tx.send(()).unwrap();
        t.join().unwrap();
        // Closed: nothing to wait for.
        let t0 = Instant::now();
        assert_eq!(settle(Duration::from_secs(5)), 0);
        assert!(t0.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn calls_open_across_a_forget_are_not_waited_for_and_their_thread_recovers() {
        let _one = lock(&SERIAL);
        let (tx, rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            enter(); // its EXIT is "lost"
            tx.send(()).unwrap();
            go_rx.recv().unwrap();
            enter(); // a new call after the epoch change
            tx.send(()).unwrap();
            go_rx.recv().unwrap();
            exit();
        });
        rx.recv().unwrap();
        forget_open_calls();
        let t0 = Instant::now();
        assert_eq!(
            settle(Duration::from_secs(5)),
            0,
            "the lost call is not waited for"
        );
        assert!(t0.elapsed() < Duration::from_secs(1));
        go_tx.send(()).unwrap();
        rx.recv().unwrap();
        assert_eq!(settle(Duration::from_millis(20)), 1, "the new call is");
        go_tx.send(()).unwrap();
        t.join().unwrap();
        assert_eq!(settle(Duration::from_secs(5)), 0, "and its EXIT closes it");
    }

    #[test]
    fn settle_returns_when_the_open_call_exits() {
        let _one = lock(&SERIAL);
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            enter();
            tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(30));
            exit();
        });
        rx.recv().unwrap();
        assert_eq!(settle(Duration::from_secs(5)), 0);
        t.join().unwrap();
    }
}
