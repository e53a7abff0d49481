//! The capture state of the process: every application thread's state, the calls under way,
//! the streams, the roctx ranges that span threads, the kernel symbols. What a callback writes
//! goes here; what a cut drains comes from here.

use super::devices::Streams;
use super::inflight::OpenCalls;
use super::markers::{MarkerCall, Markers};
use super::symbols::Symbols;
use super::thread::ThreadState;
use super::threads::{Drained, Threads};

/// Every application thread's capture state, and the process-wide facts beside it.
#[derive(Default)]
pub struct Capture {
    threads: Threads,
    open_calls: OpenCalls,
    streams: Streams,
    markers: Markers,
    symbols: Symbols,
}

impl Capture {
    /// Runs `f` on the calling thread's state, registering it on first use.
    #[inline]
    pub fn with_current<R>(&self, thread_id: u64, f: impl FnOnce(&mut ThreadState) -> R) -> R {
        self.threads.with_current(thread_id, f)
    }

    /// Every thread's state.
    pub fn threads(&self) -> &Threads {
        &self.threads
    }

    /// HIP calls under way (a cut waits for them).
    pub fn open_calls(&self) -> &OpenCalls {
        &self.open_calls
    }

    /// Streams and the devices they were created on.
    pub fn streams(&self) -> &Streams {
        &self.streams
    }

    /// Kernel symbols.
    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    /// One roctx callback.
    #[inline]
    pub fn on_marker(&self, call: &MarkerCall<'_>) {
        self.markers.on_marker(&self.threads, call);
    }

    /// [`Self::on_marker`] for a push, a pop or a mark that takes no allocation, lock or wait,
    /// before the panic guard (`Markers::on_marker_unguarded`): false, having changed nothing,
    /// for any other. `l` is this thread's slot.
    #[inline(always)]
    pub(crate) fn on_marker_unguarded(
        &self,
        l: &super::local::Local,
        call: &MarkerCall<'_>,
    ) -> bool {
        self.markers.on_marker_unguarded(&self.threads, l, call)
    }

    /// [`Self::on_marker`], given this thread's slot `l`.
    #[inline]
    pub(crate) fn on_marker_on(&self, l: &super::local::Local, call: &MarkerCall<'_>) {
        self.markers.on_marker_on(&self.threads, l, call);
    }

    /// A dispatch or copy of call `correlation_id` is being created on thread `thread_id`
    /// (`hip_stream::on_activity_request`).
    pub fn on_activity_request(&self, thread_id: u64, correlation_id: u64) -> bool {
        super::hip_stream::on_activity_request(
            &self.threads,
            &self.streams,
            thread_id,
            correlation_id,
        )
    }

    /// The runtime asks, on the creating thread, for the external correlation id of a dispatch
    /// or copy of call `correlation_id`: its stream is bound when the call's entry could not
    /// (`hip_stream::on_activity_request`), and inside a graph launch the node's attribution is
    /// the answer (`graph::next_external`); `None` outside one. One access to the thread's slot.
    #[inline]
    pub fn on_external_id_request(&self, thread_id: u64, correlation_id: u64) -> Option<u64> {
        super::local::with(|l| {
            super::hip_stream::on_activity_request_on(
                l,
                &self.threads,
                &self.streams,
                thread_id,
                correlation_id,
            );
            super::graph::next_external_on(l)
        })
    }

    /// One external-correlation-id request of call `correlation_id` on this thread, counted
    /// (`graph::note_request_on`: a graph launch's count of dispatches and copies), and whether
    /// it has nothing more to do ([`Self::external_id_request_idle`]). Called once per request;
    /// loads, compares and stores that cannot panic, as that check.
    #[inline(always)]
    pub fn note_external_id_request(&self, correlation_id: u64) -> bool {
        super::local::with(|l| {
            super::graph::note_request_on(l, correlation_id);
            request_idle_on(l, correlation_id)
        })
    }

    /// Whether an external-correlation-id request of call `correlation_id` has nothing to do on
    /// this thread: the call's stream already placed and no graph launch under way, nearly every
    /// request ([`Self::on_external_id_request`] would return `None` and change nothing). Loads
    /// and compares that cannot panic: the request answers these outside the panic guard.
    #[inline(always)]
    pub fn external_id_request_idle(&self, correlation_id: u64) -> bool {
        super::local::with(|l| request_idle_on(l, correlation_id))
    }

    /// Cuts a window at every `every`-th closing of the roctx range `name`.
    pub fn set_range_rule(&self, name: &str, every: u64) {
        self.markers.set_range_rule(name, every);
    }

    /// Whether the rule's range ended since the last call.
    pub fn take_range_end(&self) -> bool {
        self.markers.take_range_end()
    }

    /// Everything captured on all threads, with the start/stop ranges still open: ranges open
    /// now are closed at `end_ns`, or with `keep_open` shown up to it and kept for the next
    /// window.
    pub fn drain(&self, end_ns: u64, keep_open: bool) -> Drained {
        let mut d = self.threads.drain(end_ns, keep_open);
        let (m, open) = self.markers.drain_open(end_ns, keep_open);
        d.markers.extend(m);
        d.ranges_left_open += open;
        // The room left by growing in steps (`room_for`) is not kept through the join.
        d.syncs.shrink_to_fit();
        d.copy_ptrs.shrink_to_fit();
        d.markers.shrink_to_fit();
        d
    }
}

/// [`Capture::external_id_request_idle`], given this thread's slot `l`.
#[inline(always)]
fn request_idle_on(l: &super::local::Local, correlation_id: u64) -> bool {
    super::hip_stream::already_placed_on(l, correlation_id) && super::graph::no_launch_on(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::markers::{MarkerCall, MarkerOp};

    fn call(
        op: MarkerOp,
        enter: bool,
        tid: u64,
        corr: u64,
        ts: u64,
        label: Option<&'static std::ffi::CStr>,
    ) -> MarkerCall<'static> {
        MarkerCall {
            op,
            enter,
            thread_id: tid,
            correlation_id: corr,
            timestamp_ns: ts,
            label: label.map(crate::sdk::payload::Message::new),
            stop_id: 0,
            start_retval: 0,
        }
    }

    #[test]
    fn ranges_pair_per_thread_and_across_threads() {
        let c = Capture::default();
        let c = &c;
        std::thread::scope(|sc| {
            sc.spawn(|| {
                // Each callback's other phase is not acted on (`MarkerOp::acts_at_enter`): these
                // leave no range, mark, pop or stop behind.
                for (op, enter) in [
                    (MarkerOp::Mark, false),
                    (MarkerOp::RangePush, false),
                    (MarkerOp::RangePop, true),
                    (MarkerOp::RangeStart, true),
                    (MarkerOp::RangeStop, true),
                    (MarkerOp::Other, true),
                    (MarkerOp::Other, false),
                ] {
                    let mut m = call(op, enter, 11, 90, 90, Some(c"other phase"));
                    (m.start_retval, m.stop_id) = (42, 42);
                    c.on_marker(&m);
                }
                c.on_marker(&call(MarkerOp::RangePush, true, 11, 1, 100, Some(c"outer")));
                c.on_marker(&call(MarkerOp::RangePush, true, 11, 2, 110, Some(c"inner")));
                // The annotation at a HIP call now is the whole stack.
                c.with_current(11, |t| t.capture_at_api_enter(3));
                c.on_marker(&call(MarkerOp::RangePop, false, 11, 4, 150, None));
                c.on_marker(&call(MarkerOp::Mark, true, 11, 5, 160, Some(c"tick")));
                let mut start = call(MarkerOp::RangeStart, false, 11, 6, 170, Some(c"job"));
                start.start_retval = 42;
                c.on_marker(&start);
                // `outer` stays open until the end.
            })
            .join()
            .unwrap()
        });
        std::thread::scope(|sc| {
            sc.spawn(|| {
                let mut stop = call(MarkerOp::RangeStop, false, 12, 7, 300, None);
                stop.stop_id = 42;
                c.on_marker(&stop);
                c.on_marker(&call(MarkerOp::RangePop, false, 12, 8, 310, None));
                // nothing pushed
            })
            .join()
            .unwrap()
        });
        let d = c.drain(1000, false);
        let mut spans: Vec<(String, u64, u64, u64, u64, bool)> = d
            .markers
            .iter()
            .map(|m| {
                (
                    m.label.to_string(),
                    m.thread_id,
                    m.start_ns,
                    m.end_ns,
                    m.close_correlation_id,
                    m.instant,
                )
            })
            .collect();
        spans.sort();
        assert_eq!(
            spans,
            [
                ("inner".into(), 11, 110, 150, 4, false),
                ("job".into(), 11, 170, 300, 7, false),
                ("outer".into(), 11, 100, 1000, 0, false),
                ("tick".into(), 11, 160, 160, 5, true),
            ]
        );
        assert_eq!((d.unmatched_pops, d.ranges_left_open), (1, 1));
        // Scope ids: each push its own correlation id, with its parent; start/stop ranges none.
        let by_label = |l: &str| d.markers.iter().find(|m| &*m.label == l).unwrap();
        let ids = |l: &str| {
            let m = by_label(l);
            (m.scope_id, m.parent_scope_id, m.process_wide, m.open_at_end)
        };
        assert_eq!(ids("outer"), (1, 0, false, true));
        assert_eq!(ids("inner"), (2, 1, false, false));
        assert_eq!(ids("job"), (0, 0, true, false));
        assert_eq!(ids("tick"), (0, 0, false, false));
        assert!(d.scopes.iter().eq(&[(3, 2)]), "innermost at the HIP call");
        // The whole stack at the call is that scope's chain in the spans.
        let mut stacks = crate::model::annotations::ScopeStacks::new(&d.markers, None);
        let id = stacks.annotation(2).unwrap();
        let a = &stacks.table()[id];
        let stack: Vec<&str> = a.stack.iter().map(|s| &**s).collect();
        assert_eq!((a.scope_range_id, stack), (2, vec!["outer", "inner"]));
    }

    /// The unguarded roctx path records what the guarded one does: each call offered to it
    /// first, the guarded path taking what it declines, gives the same spans and counts as the
    /// guarded path alone. It takes nearly every push, pop and mark, and declines, having
    /// changed nothing, what needs an allocation (a label new to the thread, a stack past its
    /// room, a new chunk of spans), a span kept whole (another thread id), a lock (start/stop)
    /// or an unregistered thread.
    #[test]
    fn the_unguarded_marker_path_records_what_the_guarded_one_does() {
        let run = |fast: bool| {
            std::thread::spawn(move || {
                let c = Capture::default();
                let l = super::super::local::slot();
                let (mut taken, mut declined) = (0u32, Vec::new());
                let mut offer = |i: u64, m: MarkerCall<'_>| {
                    if fast && c.on_marker_unguarded(l, &m) {
                        taken += 1;
                    } else {
                        if fast {
                            declined.push(i);
                        }
                        c.on_marker(&m);
                    }
                };
                let mut corr = 0u64;
                let mut next = || {
                    corr += 1;
                    corr
                };
                use MarkerOp::{Mark, RangePop as Pop, RangePush as Push};
                // 0: unregistered; 1: a label new to the thread.
                offer(0, call(Push, true, 7, next(), 10, Some(c"step")));
                offer(1, call(Push, true, 7, next(), 11, Some(c"fwd")));
                offer(2, call(Pop, false, 7, next(), 12, None));
                // Past the stack's inline room (8 open), and back.
                for i in 0..12 {
                    offer(10 + i, call(Push, true, 7, next(), 20 + i, Some(c"step")));
                }
                for i in 0..12 {
                    offer(30 + i, call(Pop, false, 7, next(), 40 + i, None));
                }
                // Marks, an empty label, another thread id (kept whole), unmatched pops.
                offer(50, call(Mark, true, 7, next(), 50, Some(c"step")));
                offer(51, call(Mark, true, 7, next(), 51, None));
                offer(52, call(Mark, true, 7, next(), 52, None));
                offer(53, call(Mark, true, 8, next(), 53, Some(c"step")));
                offer(54, call(Pop, false, 7, next(), 54, None));
                offer(55, call(Pop, false, 7, next(), 55, None));
                // Many ranges: the spans take new chunks.
                for i in 0..300 {
                    offer(100, call(Push, true, 7, next(), 100 + 2 * i, Some(c"step")));
                    offer(101, call(Pop, false, 7, next(), 101 + 2 * i, None));
                }
                // A start/stop range takes the lock.
                let mut start = call(MarkerOp::RangeStart, false, 7, next(), 900, Some(c"job"));
                start.start_retval = 5;
                offer(60, start);
                let mut stop = call(MarkerOp::RangeStop, false, 7, next(), 901, None);
                stop.stop_id = 5;
                offer(61, stop);
                let d = c.drain(1000, false);
                (
                    d.markers,
                    d.unmatched_pops,
                    d.ranges_left_open,
                    taken,
                    declined,
                )
            })
            .join()
            .unwrap()
        };
        let (guarded, pops, open, _, _) = run(false);
        let (fast, fast_pops, fast_open, taken, declined) = run(true);
        assert_eq!(fast, guarded);
        assert_eq!((fast_pops, fast_open), (pops, open));
        assert_eq!((pops, open), (1, 0));
        assert_eq!(guarded.len(), 1 + 12 + 4 + 1 + 300 + 1);
        // Declined: unregistered (0), a new label (1), the first span (2: no chunk yet), the
        // push past the stack's inline room (17: its heap room takes the rest), the empty
        // label new (51), the span kept whole (53), each new chunk of spans (54, then 101 as
        // the chunks double), start and stop (60, 61).
        assert_eq!(declined, [0, 1, 2, 17, 51, 53, 54, 101, 101, 101, 60, 61]);
        assert_eq!(taken as usize + declined.len(), 3 + 24 + 6 + 600 + 2);
    }

    /// A graph launch's count of work is the requests made for it on its thread since its
    /// first, whether or not `HIP_GRAPH` brackets it; another call's request starts a count of
    /// its own, and a launch none of whose requests came here has no count.
    #[test]
    fn a_graph_launch_s_count_is_its_requests_on_its_thread() {
        use super::super::graph::launched_on;
        use crate::model::events::GraphLaunchFact;
        std::thread::spawn(|| {
            let c = Capture::default();
            let count = |id| super::super::local::with(|l| launched_on(l, id));
            let fact = |correlation_id, activities| {
                Some(GraphLaunchFact {
                    correlation_id,
                    activities,
                })
            };
            for _ in 0..3 {
                c.note_external_id_request(9);
            }
            assert_eq!(count(9), fact(9, 3));
            c.note_external_id_request(10);
            assert_eq!((count(9), count(10)), (None, fact(10, 1)));
            // Inside a HIP_GRAPH bracket, counted the same.
            super::super::graph::on_launch(true, 3);
            for _ in 0..2 {
                c.note_external_id_request(11);
                assert!(c.on_external_id_request(1, 11).is_some());
            }
            super::super::graph::on_launch(false, 3);
            assert_eq!(count(11), fact(11, 2));
            assert_eq!(count(12), None, "no request of its own");
        })
        .join()
        .unwrap();
    }

    /// A request is idle exactly when the full request would change nothing and answer
    /// nothing: the call already placed, no graph launch under way.
    #[test]
    fn an_idle_request_is_one_the_full_request_would_ignore() {
        std::thread::spawn(|| {
            let c = Capture::default();
            assert!(c.external_id_request_idle(0), "no call: nothing to place");
            // Call 5's entry placed it by its arguments.
            c.threads
                .with_current(1, |t| c.streams.on_work_enter(t, 5, 0x10));
            super::super::local::with(|l| super::super::hip_stream::note_entry_on(l, 5, true));
            assert!(c.external_id_request_idle(5));
            assert_eq!(c.on_external_id_request(1, 5), None);
            // Call 6 was not seen at entry: the request has work (with a stream reported).
            assert!(!c.external_id_request_idle(6));
            // Inside a graph launch every request is answered.
            super::super::graph::on_launch(true, 3);
            assert!(!c.external_id_request_idle(5));
            assert!(c.on_external_id_request(1, 5).is_some());
            super::super::graph::on_launch(false, 3);
            assert!(c.external_id_request_idle(5));
        })
        .join()
        .unwrap();
    }
}
