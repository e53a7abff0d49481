//! Every application thread's capture state: registered the first time a callback runs on the
//! thread, worked on by that thread alone without a locked instruction (`owned`), lent to the
//! drain at a cut.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::local;
use super::owned::{self, Barrier, Owner, ThreadCell};
use super::thread::{OpenRange, ThreadState};
use crate::model::events::{CallFact, CopyPtrs, MarkerSpan, MemFact, SyncFact};
use crate::store::sinks::lock;

/// The registry of thread states.
pub struct Threads {
    /// Every thread's state, in registration order (kept after its thread ends).
    all: Mutex<Vec<Arc<ThreadCell<ThreadState>>>>,
    /// Threads registered so far (each gets its own block of fallback scope ids).
    registered: AtomicU64,
    /// How a thread and the drain keep apart (`owned`).
    barrier: Barrier,
}

impl Default for Threads {
    fn default() -> Self {
        Threads {
            all: Mutex::new(Vec::new()),
            registered: AtomicU64::new(0),
            barrier: Barrier::for_this_process(),
        }
    }
}

impl Threads {
    /// Runs `f` on the calling thread's state, registering it on first use. Returns `None` if
    /// thread-local storage is already gone (a callback during thread teardown): the event is
    /// then not captured.
    #[inline]
    pub fn with_current<R>(
        &self,
        thread_id: u64,
        f: impl FnOnce(&mut ThreadState) -> R,
    ) -> Option<R> {
        local::with(|l| self.with_current_on(l, thread_id, f))
    }

    /// [`Self::with_current`], given this thread's slot.
    #[inline(always)]
    pub(crate) fn with_current_on<R>(
        &self,
        l: &local::Local,
        thread_id: u64,
        f: impl FnOnce(&mut ThreadState) -> R,
    ) -> R {
        let owner = local::address_of(self);
        local::with_registered(
            &l.state,
            owner,
            || self.register(),
            |o| {
                o.with(|s| {
                    if s.thread_id == 0 {
                        s.thread_id = thread_id;
                    }
                    f(s)
                })
            },
        )
    }

    fn register(&self) -> Owner<ThreadState> {
        let mut state = ThreadState::default();
        state.set_fallback_block(self.registered.fetch_add(1, Ordering::Relaxed));
        let (owner, cell) = owned::new_cell(state, self.barrier);
        lock(&self.all).push(cell);
        owner
    }

    /// Visits every registered thread's state, in registration order, each lent in turn.
    fn for_each(&self, mut f: impl FnMut(&mut ThreadState)) {
        let all: Vec<Arc<ThreadCell<ThreadState>>> = lock(&self.all).clone();
        for s in all {
            s.lend(&mut f);
        }
    }
}

/// Everything captured on all threads. Ranges still open are closed at `end_ns`.
#[derive(Debug, Default)]
pub struct Drained {
    pub scopes: Vec<(u64, i64)>,
    pub calls: Vec<CallFact>,
    pub syncs: Vec<SyncFact>,
    pub memory: Vec<MemFact>,
    pub copy_ptrs: Vec<CopyPtrs>,
    pub markers: Vec<MarkerSpan>,
    pub unmatched_pops: u64,
    pub ranges_left_open: u64,
}

impl Threads {
    /// Drains every registered thread's state: ranges still open are closed at `end_ns`, or with
    /// `keep_open` shown up to it and kept open for the next window.
    pub fn drain(&self, end_ns: u64, keep_open: bool) -> Drained {
        let threads = self;
        let mut d = Drained::default();
        // How many of each there are, so that each output grows in two steps toward it
        // (`chunked::room_toward`); a thread still running may add more before its turn.
        let mut n = [0usize; 5];
        threads.for_each(|s| {
            n[0] += s.scopes.len();
            n[1] += s.calls.len();
            n[2] += s.syncs.len();
            n[3] += s.copy_ptrs.len();
            n[4] += s.spans.len() + s.other_spans.len();
        });
        threads.for_each(|s| {
            s.scopes.drain_into_toward(&mut d.scopes, n[0]);
            s.calls.drain_into_toward(&mut d.calls, n[1]);
            s.syncs.drain_into_toward(&mut d.syncs, n[2]);
            d.memory.append(&mut s.memory);
            s.copy_ptrs.drain_into_toward(&mut d.copy_ptrs, n[3]);
            let tid = s.thread_id;
            s.spans
                .drain_map_into(&mut d.markers, n[4], |m| m.into_span(tid));
            d.markers.append(&mut s.other_spans);
            d.unmatched_pops += std::mem::take(&mut s.unmatched_pops);
            // At a window's end open ranges are shown up to the cut and stay on the stack (their
            // pop comes in a later window); at finalize they are closed.
            let open: Vec<OpenRange> = if keep_open {
                s.stack.iter().rev().cloned().collect()
            } else {
                std::iter::from_fn(|| s.pop_range()).collect()
            };
            for r in open {
                d.ranges_left_open += 1;
                d.markers.push(MarkerSpan {
                    label: r.label,
                    thread_id: tid,
                    open_correlation_id: r.correlation_id,
                    close_correlation_id: 0,
                    start_ns: r.start_ns,
                    end_ns: end_ns.max(r.start_ns),
                    instant: false,
                    scope_id: r.scope_id,
                    parent_scope_id: r.parent_scope_id,
                    process_wide: false,
                    open_at_end: true,
                });
            }
        });
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::devices::Streams;

    /// Threads record launch facts while cuts drain them, some threads ending before a drain
    /// and some between two: every fact is drained exactly once, each thread's in its order.
    #[test]
    fn cuts_concurrent_with_callbacks_and_ended_threads_take_each_fact_once() {
        const THREADS: u64 = 6;
        const CALLS: u64 = 20_000;
        let (threads, streams) = (Threads::default(), Streams::default());
        let (threads, streams) = (&threads, &streams);
        let mut calls: Vec<CallFact> = Vec::new();
        std::thread::scope(|sc| {
            let workers: Vec<_> = (1..=THREADS)
                .map(|tid| {
                    sc.spawn(move || {
                        // Threads end after different numbers of calls.
                        for i in 0..CALLS / tid {
                            threads.with_current(tid, |t| {
                                streams.on_work_enter(t, (tid << 32) | (i + 1), 0)
                            });
                        }
                    })
                })
                .collect();
            while workers.iter().any(|w| !w.is_finished()) {
                calls.extend(threads.drain(0, true).calls);
            }
        });
        calls.extend(threads.drain(0, true).calls);
        assert!(threads.drain(0, true).calls.is_empty(), "nothing twice");
        for tid in 1..=THREADS {
            let mine: Vec<u64> = calls
                .iter()
                .filter(|c| c.correlation_id >> 32 == tid)
                .map(|c| c.correlation_id & 0xffff_ffff)
                .collect();
            assert!(mine.iter().copied().eq(1..=CALLS / tid), "thread {tid}");
        }
    }
}
