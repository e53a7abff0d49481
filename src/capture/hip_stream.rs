//! The HIP stream the runtime itself reports (SDK 1.x `HIP_STREAM` callbacks), for work whose
//! stream the call's arguments cannot give.
//!
//! The argument path (`devices::on_work_enter`, driven by the table in `crate::hip`) reads the
//! stream of every operation the table knows, under every SDK version. Where the runtime has
//! HIP_STREAM tracing (1.0.0+) and the tool has started it ([`Brackets`]: at the first call
//! that needs it), it brackets every call of a HIP function with a `hipStream_t` parameter with
//! SET ENTER/EXIT on the calling thread; we keep that as a thread-local stack (no lock: only
//! the owning thread touches it) and use its top for the work of an operation the table does
//! not list. (A multi-device launch, which the table knows only as "work on the current
//! device", is never bracketed: its streams lie in its parameter list.) The
//! external-correlation-id request service, called on the same thread when a dispatch or copy
//! is created, binds that stream to the activity's correlation id. We always decline to supply
//! the external id there (non-zero return), so the id the application pushed stays on the
//! record: user external ids are annotations, and the stream travels in our own facts rather
//! than packed into that id.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::devices::Streams;
use super::local;
use super::threads::Threads;

/// The runtime's stream brackets (the HIP_STREAM SET callbacks), which cost every call of a
/// HIP function with a `hipStream_t` parameter two more callbacks (and, in rocprofiler-sdk,
/// a look-up in its stream map under a read lock) but place only the work of functions the
/// table does not list. So they are configured in a context of their own that starts only
/// when such a call comes (`Session::start_brackets`, on the coordinator's next tick): a
/// program whose launches, copies and memsets are all rows of the table never pays for them.
/// Until they run, work of an unlisted call goes to the current device's null stream; such
/// calls are counted, for the profile's warnings.
#[derive(Default)]
pub struct Brackets {
    /// [`OFF`], [`READY`], [`ASKED`] or [`OPEN`].
    state: AtomicU8,
    /// Unlisted calls whose work went to the null stream while the brackets were not open.
    unplaced: AtomicU64,
}

/// No brackets configured (SDK 0.x, `ROCPROF_XPLANE_HIP_STREAM=off`): nothing is counted.
const OFF: u8 = 0;
/// Configured, not yet wanted.
const READY: u8 = 1;
/// An unlisted call came: the coordinator starts them.
const ASKED: u8 = 2;
/// Started.
const OPEN: u8 = 3;

impl Brackets {
    /// The brackets are configured and can be started.
    pub fn ready(&self) {
        let _ = self
            .state
            .compare_exchange(OFF, READY, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// A call of a function the table does not list came with no bracket open: asks for the
    /// brackets (once), and counts the call while they are not open.
    #[cold]
    pub fn unplaced_call(&self) {
        let state =
            match self
                .state
                .compare_exchange(READY, ASKED, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => ASKED,
                Err(s) => s,
            };
        if state == ASKED {
            self.unplaced.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether a call asked for the brackets and they are not started yet.
    pub fn asked(&self) -> bool {
        self.state.load(Ordering::Relaxed) == ASKED
    }

    /// The brackets were started: calls from here on are placed by them.
    pub fn opened(&self) {
        self.state.store(OPEN, Ordering::Relaxed);
    }

    /// The unlisted calls counted since the last take.
    pub fn take_unplaced(&self) -> u64 {
        self.unplaced.swap(0, Ordering::Relaxed)
    }
}

/// `HIP_STREAM` SET callback: ENTER pushes, EXIT pops. An EXIT with nothing pushed (a callback
/// lost at thread start-up) is ignored.
#[inline(always)]
pub fn on_set(enter: bool, stream: u64) {
    local::with(|l| on_set_on(l, enter, stream));
}

/// [`on_set`] for a bracket nested in no other (an ENTER with none open, the EXIT of the only
/// one open) or an unbalanced EXIT: a compare and one or two stores. Returns false, having
/// done nothing, for a nested bracket: [`on_set`] takes it.
#[inline(always)]
pub fn on_set_outermost(enter: bool, stream: u64) -> bool {
    local::with(|l| set_outermost_on(l, enter, stream))
}

/// [`on_set_outermost`], given this thread's slot.
#[inline(always)]
pub(crate) fn set_outermost_on(l: &local::Local, enter: bool, stream: u64) -> bool {
    match (enter, l.stream_depth.get()) {
        (true, 0) => {
            l.stream_top.set(stream);
            l.stream_depth.set(1);
            true
        }
        (false, 0 | 1) => {
            l.stream_depth.set(0);
            true
        }
        _ => false,
    }
}

/// [`on_set`], given this thread's slot. The stack's top lives in a cell of its own: a SET
/// bracket around a call nested in no other is a compare and two stores at ENTER, a compare
/// and a store at EXIT; only brackets nested inside another touch the stack below.
#[inline(always)]
pub(crate) fn on_set_on(l: &local::Local, enter: bool, stream: u64) {
    if set_outermost_on(l, enter, stream) {
        return;
    }
    let depth = l.stream_depth.get();
    if enter {
        push_below(l);
        l.stream_top.set(stream);
        l.stream_depth.set(depth + 1);
    } else {
        pop_below(l);
        l.stream_depth.set(depth - 1);
    }
}

/// A bracket opens inside another (a HIP call nested in one): the outer stream goes below.
#[cold]
#[inline(never)]
fn push_below(l: &local::Local) {
    l.streams_below.borrow_mut().push(l.stream_top.get());
}

/// A nested bracket closes: the stream below it is the top again.
#[cold]
#[inline(never)]
fn pop_below(l: &local::Local) {
    let below = l.streams_below.borrow_mut().pop();
    l.stream_top.set(below.unwrap_or(0));
}

/// The stream of the HIP call in progress on this thread, if the runtime reported one.
pub fn current() -> Option<u64> {
    local::with(current_on)
}

/// [`current`], given this thread's slot.
#[inline]
pub(crate) fn current_on(l: &local::Local) -> Option<u64> {
    (l.stream_depth.get() > 0).then(|| l.stream_top.get())
}

/// Notes, at a call's entry, whether its fact already names the right stream.
#[inline]
pub(crate) fn note_entry_on(l: &local::Local, correlation_id: u64, placed: bool) {
    let (p, u) = if placed {
        (correlation_id, 0)
    } else {
        (0, correlation_id)
    };
    l.placed.set(p);
    l.unplaced.set(u);
}

/// Whether the activities of call `correlation_id` need no stream from a request: the call's
/// fact already names the right one (or the activity belongs to no call).
#[inline(always)]
pub(crate) fn already_placed_on(l: &local::Local, correlation_id: u64) -> bool {
    correlation_id == 0 || l.placed.get() == correlation_id
}

/// External-correlation-id request for a dispatch or copy of call `correlation_id` on thread
/// `thread_id`: records the runtime-reported stream when the call's entry could not (or the
/// call was never seen at entry). Returns whether a fact was written or corrected.
pub fn on_activity_request(
    threads: &Threads,
    streams: &Streams,
    thread_id: u64,
    correlation_id: u64,
) -> bool {
    local::with(|l| on_activity_request_on(l, threads, streams, thread_id, correlation_id))
}

/// [`on_activity_request`], given this thread's slot: a dispatch of a call its arguments
/// placed (nearly every one) returns after one compare.
#[inline]
pub(crate) fn on_activity_request_on(
    l: &local::Local,
    threads: &Threads,
    streams: &Streams,
    thread_id: u64,
    correlation_id: u64,
) -> bool {
    if already_placed_on(l, correlation_id) {
        return false;
    }
    let Some(stream) = current_on(l) else {
        return false;
    };
    let unplaced = l.unplaced.get() == correlation_id;
    l.placed.set(correlation_id);
    threads.with_current_on(l, thread_id, |t| {
        if unplaced {
            streams.restream_last(t, correlation_id, stream);
        } else {
            streams.on_work_enter(t, correlation_id, stream);
        }
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case on a fresh thread: the state is thread-local.
    fn on_fresh_thread<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
        std::thread::spawn(f).join().unwrap()
    }

    #[test]
    fn set_brackets_nest_and_unwind() {
        on_fresh_thread(|| {
            assert_eq!(current(), None);
            on_set(true, 0xa);
            on_set(true, 0xb);
            assert_eq!(current(), Some(0xb));
            on_set(false, 0xb);
            assert_eq!(current(), Some(0xa));
            on_set(false, 0xa);
            on_set(false, 0xa); // unbalanced EXIT: ignored
            assert_eq!(current(), None);
            // The null stream is a reported stream, not "none".
            on_set(true, 0);
            assert_eq!(current(), Some(0));
            // Nested deeper than the stack keeps inline: each EXIT uncovers the one around it.
            for s in 1..=9 {
                on_set(true, 0x100 * s);
            }
            for s in (1..=9).rev() {
                assert_eq!(current(), Some(0x100 * s));
                on_set(false, 0x100 * s);
            }
            assert_eq!(current(), Some(0));
            on_set(false, 0);
            assert_eq!(current(), None);
        });
    }

    /// The callback's way: the outermost path first, [`on_set`] for what it declines.
    fn set(enter: bool, stream: u64) {
        if !on_set_outermost(enter, stream) {
            on_set(enter, stream);
        }
    }

    #[test]
    fn the_outermost_path_keeps_the_stack_the_nested_one_does() {
        on_fresh_thread(|| {
            // Only the outermost path: a bracket at a time.
            assert!(on_set_outermost(true, 0xa));
            assert_eq!(current(), Some(0xa));
            assert!(!on_set_outermost(true, 0xb), "nested: declined");
            assert_eq!(current(), Some(0xa), "a declined bracket changes nothing");
            assert!(on_set_outermost(false, 0xa));
            assert_eq!(current(), None);
            assert!(on_set_outermost(false, 0xa), "unbalanced EXIT: ignored");
            assert_eq!(current(), None);
            // Both paths, as the callback takes them: the same stack as `on_set` alone.
            set(true, 0xa);
            set(true, 0xb);
            set(true, 0xc);
            assert_eq!(current(), Some(0xc));
            set(false, 0xc);
            assert_eq!(current(), Some(0xb));
            set(false, 0xb);
            assert_eq!(current(), Some(0xa));
            set(false, 0xa);
            assert_eq!(current(), None);
            set(true, 0);
            assert_eq!(current(), Some(0), "the null stream is a reported stream");
            set(false, 0);
            set(false, 0);
            assert_eq!(current(), None);
        });
    }

    #[test]
    fn a_call_the_entry_could_not_place_is_corrected_once() {
        let calls = on_fresh_thread(|| {
            let (threads, streams) = (&Threads::default(), &Streams::default());
            // Entry of call 7 saw no stream argument: a null-stream fact was written.
            threads.with_current(1, |t| streams.on_work_enter(t, 7, 0));
            local::with(|l| note_entry_on(l, 7, false));
            on_set(true, 0x5000);
            assert!(
                on_activity_request(threads, streams, 1, 7),
                "first dispatch corrects the fact"
            );
            assert!(
                !on_activity_request(threads, streams, 1, 7),
                "further dispatches of the call do not"
            );
            // Call 8 was never seen at entry: its first dispatch writes a fact.
            assert!(on_activity_request(threads, streams, 1, 8));
            // Call 9 was placed by its arguments: the request leaves it alone.
            threads.with_current(1, |t| streams.on_work_enter(t, 9, 0x6000));
            local::with(|l| note_entry_on(l, 9, true));
            assert!(!on_activity_request(threads, streams, 1, 9));
            on_set(false, 0x5000);
            // No stream reported: nothing to add.
            assert!(!on_activity_request(threads, streams, 1, 10));
            threads.with_current(1, |t| {
                t.calls
                    .iter()
                    .map(|c| (c.correlation_id, c.stream))
                    .collect::<Vec<_>>()
            })
        });
        assert_eq!(calls, vec![(7, 0x5000), (8, 0x5000), (9, 0x6000)]);
    }
}
