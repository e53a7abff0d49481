//! Every application thread's capture state: registered the first time a callback runs on the
//! thread, worked on by that thread alone without a locked instruction (`owned`), lent to the
//! drain at a cut.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::local;
use super::owned::{self, Barrier, Owner, ThreadCell};
use super::thread::{OpenRange, ThreadSpan, ThreadState};
use crate::model::events::{
    ApiRecord, CallFact, CopyPtrs, GraphLaunchFact, MarkerSpan, MemFact, SyncFact,
};
use crate::store::chunked::{ChunkedVec, THREAD_CHUNK, THREAD_FACT_CHUNK};

/// The steps the drained spans' room is made in (`Threads::drain`).
const ROOM_STEPS: usize = 8;
use crate::store::sinks::lock;
use crate::store::PackedVec;

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
    /// Runs `f` on the calling thread's state, registering it on first use.
    #[inline]
    pub fn with_current<R>(&self, thread_id: u64, f: impl FnOnce(&mut ThreadState) -> R) -> R {
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
            |o| o.with(|s| f(s.adopting(thread_id))),
        )
    }

    /// [`Self::with_current_on`] when it takes no registration, no wait and cannot panic, as a
    /// guard ([`owned::Busy`], for a path written without closures): the thread's state is
    /// registered first in its entries and no drain holds it (else `None`, having changed
    /// nothing: [`Self::with_current_on`] takes it).
    #[inline(always)]
    pub(crate) fn try_borrow_current_on<'l>(
        &self,
        l: &'l local::Local,
        thread_id: u64,
    ) -> Option<owned::Busy<'l, ThreadState>> {
        let o = local::registered(&l.state, local::address_of(self))?;
        let mut s = o.try_borrow()?;
        s.adopting(thread_id);
        Some(s)
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
    /// Moved as the threads captured them, in their chunks: nothing is copied.
    pub scopes: crate::model::collected::Scopes,
    /// Kept packed as the threads kept them (16 B a call, their streams' facts shared).
    pub calls: PackedVec<CallFact>,
    /// The HIP calls' records the callbacks built, kept packed in their chunks.
    pub api: PackedVec<ApiRecord>,
    pub syncs: Vec<SyncFact>,
    pub memory: Vec<MemFact>,
    pub graph_launches: Vec<GraphLaunchFact>,
    pub copy_ptrs: Vec<CopyPtrs>,
    pub markers: Vec<MarkerSpan>,
    pub unmatched_pops: u64,
    pub ranges_left_open: u64,
    /// Call facts and records refused by `PackedVec::append` (past 2^32 − 1 shared entries in
    /// all).
    pub refused: u64,
}

impl Threads {
    /// Drains every registered thread's state: ranges still open are closed at `end_ns`, or with
    /// `keep_open` shown up to it and kept open for the next window.
    ///
    /// Each thread's vectors are taken whole in one visit (a thread still running adds to new
    /// ones), then made into the outputs one kind after another (the scopes' and the calls'
    /// chunks are moved as they are, the calls still packed: no output is made for them, nor
    /// their chunks freed here, where the freed pieces would be too small for the outputs,
    /// which take fresh pages): each output grows in steps toward its count (two,
    /// `chunked::room_toward`; eighths for the spans, the largest, whose room
    /// beside what is not yet moved is the drain's top: a thread's span also grows as it
    /// moves, from 64 B to 80), the taken chunks freed as they move, so what is held beyond the
    /// records is one output's room at a time. Filled side by side,
    /// thread by thread, every output's room was held at once: the top of finalize's heap on
    /// the launch storm, above the join's.
    pub fn drain(&self, end_ns: u64, keep_open: bool) -> Drained {
        let mut d = Drained::default();
        let mut taken: Vec<TakenThread> = Vec::new();
        self.for_each(|s| {
            let tid = s.thread_id;
            d.memory.append(&mut s.memory);
            d.graph_launches.append(&mut s.graph_launches);
            d.unmatched_pops += std::mem::take(&mut s.unmatched_pops);
            let mut after_spans = std::mem::take(&mut s.other_spans);
            // At a window's end open ranges are shown up to the cut and stay on the stack (their
            // pop comes in a later window); at finalize they are closed.
            let open: Vec<OpenRange> = if keep_open {
                s.stack.iter().rev().cloned().collect()
            } else {
                std::iter::from_fn(|| s.pop_range()).collect()
            };
            for r in open {
                d.ranges_left_open += 1;
                after_spans.push(MarkerSpan {
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
            taken.push(TakenThread {
                tid,
                scopes: std::mem::take(&mut s.scopes),
                calls: s.calls.take_keeping_room(),
                api: s.api.take_keeping_room(),
                syncs: s.syncs.take_keeping_room(),
                copy_ptrs: std::mem::take(&mut s.copy_ptrs),
                spans: std::mem::take(&mut s.spans),
                after_spans,
            });
        });
        // The scopes' and the calls' chunks move as they are: nothing is copied.
        for t in &mut taken {
            t.scopes.shrink_to_fit();
            d.scopes.append(std::mem::take(&mut t.scopes));
            d.refused += d.calls.append(std::mem::take(&mut t.calls).rechunked());
            d.refused += d.api.append(std::mem::take(&mut t.api).rechunked());
        }
        let n = taken.iter().map(|t| t.syncs.len()).sum();
        for t in &mut taken {
            t.syncs.drain_into_toward(&mut d.syncs, n);
        }
        let n = taken.iter().map(|t| t.copy_ptrs.len()).sum();
        for t in &mut taken {
            t.copy_ptrs.drain_into_toward(&mut d.copy_ptrs, n);
        }
        // Each thread's closed ranges and marks, then its others and its open ranges.
        let n = taken
            .iter()
            .map(|t| t.spans.len() + t.after_spans.len())
            .sum();
        for t in taken {
            let TakenThread {
                tid,
                mut spans,
                mut after_spans,
                ..
            } = t;
            spans.drain_map_in_steps(&mut d.markers, n, ROOM_STEPS, |m| m.into_span(tid));
            d.markers.append(&mut after_spans);
        }
        d
    }
}

/// A thread's vectors as the drain took them (`Threads::drain`).
struct TakenThread {
    tid: u64,
    scopes: ChunkedVec<(u64, i64), THREAD_CHUNK>,
    calls: PackedVec<CallFact, THREAD_FACT_CHUNK>,
    api: PackedVec<ApiRecord, THREAD_CHUNK>,
    syncs: PackedVec<SyncFact, THREAD_CHUNK>,
    copy_ptrs: ChunkedVec<CopyPtrs, THREAD_CHUNK>,
    spans: ChunkedVec<ThreadSpan, THREAD_CHUNK>,
    /// Spans that do not fit a `ThreadSpan`, and the ranges still open.
    after_spans: Vec<MarkerSpan>,
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
                calls.extend(threads.drain(0, true).calls.iter());
            }
        });
        calls.extend(threads.drain(0, true).calls.iter());
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
