//! Capture windows: what one window hands on (`model::carry`) and the next one joins.

use super::*;
use crate::join::join;
use crate::model::trace::HostEventKind;

/// A queue of its own for kernel 5: placed by its queue, not its call's stream, it would
/// have a line of its own.
const OTHER_QUEUE: u64 = 0xbeef_0000;

/// Launches 5 and 6 on a created stream inside `step` > `fwd`, after launch 4 on the null
/// stream: the whole run's pieces, as one collection. Kernel 5 and kernel 6's call are
/// left out when `cut` (a window's cut fell before them).
fn launches_under_ranges(cut: bool) -> Collected {
    use crate::model::events::CallFact;
    let mut c = base();
    // As the decode counts them.
    c.counters.api_records = if cut { 2 } else { 3 };
    c.counters.kernel_records = 2;
    c.markers.push(range_span("step", 2, 9, 0));
    c.markers.push(range_span("fwd", 3, 8, 2));
    for (corr, stream) in [(4, 0), (5, 0xa), (6, 0xa)] {
        c.scopes.push((corr, 3));
        c.calls.push(CallFact {
            correlation_id: corr,
            stream,
            device: 0,
            stream_seq: 0,
        });
    }
    c.api.push(api(LAUNCH, 4, 4, 8, 7));
    c.kernels.push(kernel(4, 9, 12, 1, 0, q()));
    c.api.push(api(LAUNCH, 5, 10, 20, 7));
    c.kernels.push(kernel(6, 25, 28, 1, 2, q()));
    if !cut {
        c.api.push(api(LAUNCH, 6, 21, 24, 7));
        c.kernels.push(kernel(5, 30, 40, 1, 1, OTHER_QUEUE));
    }
    c
}

/// A capture window cut between a launch and its kernel, and between a kernel and its
/// call's record, hands both on (`model::carry`): the next window joins each whole, on
/// the stream line and with the roctx labels the whole run gives it, and neither window
/// counts a launch without activity or an activity without a call. The next window alone
/// (no carry) would show its kernel without a call and without labels.
#[test]
fn a_window_hands_on_the_calls_it_cannot_join_yet() {
    use crate::model::carry::{split_incomplete_handed, HandedOn, Windows};
    let whole = join(launches_under_ranges(false));
    let mut first = launches_under_ranges(true);
    let (held, handed) =
        split_incomplete_handed(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
    assert_eq!(handed.get(&5), Some(&1));
    assert_eq!(handed.get(&6), Some(&1));
    assert_eq!(handed.len(), 2);
    let ids = |a: &crate::store::PackedVec<ApiRecord>| {
        a.iter().map(|a| a.correlation_id).collect::<Vec<_>>()
    };
    assert_eq!(ids(&held.api), [5]);
    assert_eq!(ids(&first.api), [4]);
    assert_eq!(first.kernels.len(), 1);
    assert_eq!(held.kernels.len(), 1);
    let mut scopes: Vec<(u64, i64)> = held.scopes.iter().copied().collect();
    scopes.sort_unstable();
    assert_eq!(scopes, [(5, 3), (6, 3)]);
    assert_eq!(held.calls.len(), 2);
    // The spans naming scope 3, for labels only: shown in the first window.
    let mut context: Vec<&str> = held
        .carried
        .scope_context
        .iter()
        .map(|m| &*m.label)
        .collect();
    context.sort_unstable();
    assert_eq!(context, ["fwd", "step"]);
    assert_eq!(first.markers.len(), 2);
    // The counts go with the records.
    assert_eq!(
        (held.counters.api_records, held.counters.kernel_records),
        (1, 1)
    );
    assert_eq!(
        (first.counters.api_records, first.counters.kernel_records),
        (1, 1)
    );
    let first = join(first);
    assert_eq!(first.counters.launches_without_activity, 0);
    assert_eq!(first.counters.activities_without_api, 0);

    // The next window: kernel 5 completes, call 6 returns.
    let mut next = base();
    next.kernels.push(kernel(5, 30, 40, 1, 1, OTHER_QUEUE));
    next.api.push(api(LAUNCH, 6, 21, 24, 7));
    let alone = join(next.clone());
    assert_eq!(
        kernel_place(&alone, 5).2,
        None,
        "without the carry: no labels"
    );
    assert_eq!(alone.counters.activities_without_api, 1);

    let mut carried = held;
    carried.absorb(next);
    let t = join(carried);
    // The same device and labels as in the whole run, and the same stream as kernel 6
    // (a window numbers its streams from those it holds).
    let (five, six) = (kernel_place(&t, 5), kernel_place(&t, 6));
    assert_eq!(five.1, six.1, "one stream");
    for (corr, (device, _, labels)) in [(5, five), (6, six)] {
        let (whole_device, _, whole_labels) = kernel_place(&whole, corr);
        assert_eq!(
            (device, labels),
            (whole_device, whole_labels),
            "kernel {corr}"
        );
        assert!(
            t.host_threads[0]
                .events
                .iter()
                .any(|e| e.correlation_id == corr && e.kind == HostEventKind::HipApi),
            "call {corr}"
        );
    }
    assert!(kernel_place(&t, 5).2.is_some());
    assert_eq!(t.counters.launches_without_activity, 0);
    assert_eq!(t.counters.activities_without_api, 0);
    // The context spans are not shown again.
    let ranges = t.host_threads[0]
        .events
        .iter()
        .filter(|e| matches!(e.kind, HostEventKind::MarkerRange(_)))
        .count();
    assert_eq!(ranges, 0);
}

/// An incomplete call is handed on while it stays incomplete, at most `MAX_HANDED_ON`
/// windows in a row; then it is written as it is. A complete one is never handed on.
#[test]
fn an_incomplete_call_is_handed_on_a_bounded_number_of_times() {
    use crate::model::carry::{split_incomplete_handed, HandedOn, Windows, MAX_HANDED_ON};
    let mut c = base();
    c.api.push(api(LAUNCH, 5, 10, 20, 7));
    let mut handed = HandedOn::default();
    for n in 1..=MAX_HANDED_ON {
        let (held, next) = split_incomplete_handed(&mut c, &handed, Windows::Apart).unwrap();
        assert_eq!(next.get(&5), Some(&n));
        assert!(c.api.is_empty());
        c = base();
        c.absorb(held);
        handed = next;
    }
    assert!(split_incomplete_handed(&mut c, &handed, Windows::Apart).is_none());
    assert_eq!(c.api.len(), 1);
    assert_eq!(join(c).counters.launches_without_activity, 1);

    let mut complete = base();
    complete.api.push(api(LAUNCH, 5, 10, 20, 7));
    complete.kernels.push(kernel(5, 30, 40, 1, 1, q()));
    complete.api.push(api(SYNC, 7, 50, 60, 7));
    assert!(split_incomplete_handed(&mut complete, &HandedOn::default(), Windows::Apart).is_none());
}

/// A graph launch (`GRAPH`, 10) on stream 0xa with two of its dispatches delivered, a
/// third `late` one, and a launch after it on the same stream (11) whose kernel is
/// delivered if `moved_on`.
fn graph_on_a_stream(late: bool, moved_on: bool) -> Collected {
    use crate::model::events::CallFact;
    let mut c = base();
    c.markers.push(range_span("step", 2, 9, 0));
    c.markers.push(range_span("fwd", 3, 8, 2));
    c.scopes.push((10, 3));
    for corr in [10, 11] {
        c.calls.push(CallFact {
            correlation_id: corr,
            stream: 0xa,
            device: 0,
            stream_seq: 0,
        });
    }
    c.api.push(api(GRAPH, 10, 100, 200, 7));
    c.api.push(api(LAUNCH, 11, 210, 220, 7));
    for d in 0..2 {
        c.kernels
            .push(kernel(10, 300 + 10 * d, 305 + 10 * d, 1, d, q()));
    }
    if late {
        c.kernels.push(kernel(10, 400, 405, 1, 2, q()));
    }
    if moved_on {
        c.kernels.push(kernel(11, 410, 420, 1, 3, q()));
    }
    c
}

/// A graph launch whose stream has not moved on at the cut (no later work on it has
/// come) may have dispatches still to come: it is handed on whole, with the launch after
/// it on its stream, and the next window joins its late dispatch with it, rather than the
/// launch written with two of its three dispatches and the third in the next window without
/// its call.
#[test]
fn a_graph_launch_is_handed_on_until_its_stream_moves_on() {
    use crate::model::carry::{split_incomplete_handed, HandedOn, Windows};
    let whole = join(graph_on_a_stream(true, true));
    let mut first = graph_on_a_stream(false, false);
    let (mut held, handed) =
        split_incomplete_handed(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
    assert_eq!((handed.get(&10), handed.get(&11)), (Some(&1), Some(&1)));
    assert_eq!((held.api.len(), held.kernels.len()), (2, 2));
    assert!(first.api.is_empty() && first.kernels.is_empty());
    let mut next = base();
    next.kernels.push(kernel(10, 400, 405, 1, 2, q()));
    next.kernels.push(kernel(11, 410, 420, 1, 3, q()));
    held.absorb(next);
    let t = join(held);
    assert_eq!(t.counters.activities_without_api, 0);
    assert_eq!(t.counters.launches_without_activity, 0);
    // Each dispatch's id, start and roctx labels.
    type Dispatch = (u64, u64, Option<Vec<Arc<str>>>);
    let dispatches = |t: &Trace| {
        let mut v: Vec<Dispatch> = t
            .devices
            .iter()
            .flat_map(|d| d.lines.iter().flat_map(|l| l.events.iter()))
            .map(|e| {
                let labels = t.annotation(e.annotation).map(|a| a.stack.to_vec());
                (e.correlation_id, e.start_ns, labels)
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(dispatches(&t), dispatches(&whole));
}

/// Each HIP call's id and how many device events it launched, sorted.
fn launch_counts(t: &Trace) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> = t
        .host_threads
        .iter()
        .flat_map(|th| th.events.iter())
        .filter(|e| e.kind == HostEventKind::HipApi)
        .map(|e| (e.correlation_id, t.launched(e).0))
        .collect();
    v.sort_unstable();
    v
}

/// Where the capture counted a graph launch's dispatches (`Collected::graph_launches`), a
/// launch split by a cut is held until all of them came, though
/// its stream has moved on (a later launch's kernel was delivered before its last dispatch):
/// the next window writes it whole, with the count, labels and stream the run written whole
/// gives it, and no activity without a call. Written once its stream moved on, the launch
/// showed two of its three dispatches, and the third went to the next window as an activity
/// without a call. A launch all of whose dispatches are here is written, though its stream
/// has not moved on, and its context does not go along (it has no work to come).
#[test]
fn a_counted_graph_launch_is_held_until_all_of_it_came() {
    use crate::model::carry::{split_incomplete_handed, HandedOn, Windows};
    use crate::model::events::GraphLaunchFact;
    let counted = |mut c: Collected| {
        c.graph_launches.push(GraphLaunchFact {
            correlation_id: 10,
            activities: 3,
        });
        c
    };
    let whole = join(counted(graph_on_a_stream(true, true)));
    assert_eq!(launch_counts(&whole), [(10, 3), (11, 1)]);
    for windows in [Windows::Apart, Windows::Merged] {
        let mut first = counted(graph_on_a_stream(false, true));
        let (mut held, handed) =
            split_incomplete_handed(&mut first, &HandedOn::default(), windows).unwrap();
        assert_eq!(
            (handed.get(&10), handed.get(&11)),
            (Some(&1), Some(&1)),
            "{windows:?}: held, not written with a context"
        );
        assert_eq!((held.api.len(), held.kernels.len()), (2, 3));
        assert_eq!(held.graph_launches.len(), 1, "its fact goes with it");
        assert!(first.api.is_empty() && first.kernels.is_empty());
        let mut next = base();
        next.kernels.push(kernel(10, 400, 405, 1, 2, q()));
        held.absorb(next);
        // All of it came: nothing is held, and no context goes along.
        assert!(
            split_incomplete_handed(&mut held.clone(), &handed, windows).is_none(),
            "{windows:?}: all of it came"
        );
        let t = join(held);
        assert_eq!(launch_counts(&t), launch_counts(&whole), "{windows:?}");
        assert_eq!(t.counters.activities_without_api, 0);
        assert_eq!(t.counters.launches_without_activity, 0);
        assert_eq!(kernel_place(&t, 10), kernel_place(&whole, 10));
    }
    // All three came before the cut, the stream not moved on (launch 11's kernel is still
    // to come): the graph launch is written, with no context, launch 11 is handed on.
    let mut complete = counted(graph_on_a_stream(true, false));
    let (_, handed) =
        split_incomplete_handed(&mut complete, &HandedOn::default(), Windows::Apart).unwrap();
    assert_eq!(handed.iter().collect::<Vec<_>>(), [(11, 1)]);
    assert_eq!(launch_counts(&join(complete)), [(10, 3)]);
}

/// A graph launch whose dispatches a cut splits though its stream has moved on (a later
/// launch's kernel was delivered before its last dispatch): the call and its first
/// dispatches are written in the first window, and its scope and launch facts go along to
/// the next as context. The late dispatch there has the labels and device the whole run
/// gives it; windows written apart count it as an activity without a call (its call is in
/// the earlier file), windows merged into one profile as launched (its call is in that
/// profile, `Trace::written_calls`, so that the merged profile warns of no activity
/// without a call that the run written whole does not have).
/// The context goes along again while its time has not run out (`CONTEXT_NS`).
#[test]
fn a_graph_launch_s_late_dispatches_keep_their_labels_in_the_next_window() {
    use crate::model::carry::{split_incomplete_handed, HandedOn, Windows, CONTEXT, CONTEXT_NS};
    let graph = |late: bool| graph_on_a_stream(late, true);
    let whole = join(graph(true));
    for windows in [Windows::Apart, Windows::Merged] {
        let mut first = graph(false);
        let (held, handed) =
            split_incomplete_handed(&mut first, &HandedOn::default(), windows).unwrap();
        assert_eq!(handed.get(&10), Some(&CONTEXT));
        assert!(held.api.is_empty() && held.kernels.is_empty());
        assert_eq!((first.api.len(), first.kernels.len()), (2, 3));
        assert_eq!(
            (first.scopes.len(), first.calls.len()),
            (1, 2),
            "copied, not moved"
        );

        let mut next = base();
        next.kernels.push(kernel(10, 400, 405, 1, 2, q()));
        next.stop_boottime_ns = 50_000_000;
        let mut carried = held;
        carried.absorb(next);
        // More of its dispatches may follow: the context goes along again, until
        // `CONTEXT_NS` has passed since the cut that wrote its call.
        let (_, again) = split_incomplete_handed(&mut carried.clone(), &handed, windows).unwrap();
        assert_eq!(again.get(&10), Some(&CONTEXT));
        let mut later = carried.clone();
        later.stop_boottime_ns = CONTEXT_NS;
        assert!(split_incomplete_handed(&mut later, &handed, windows).is_none());
        let t = join(carried);
        let (device, _, labels) = kernel_place(&t, 10);
        let whole_late = whole
            .devices
            .iter()
            .flat_map(|d| d.lines.iter().map(move |l| (d, l)))
            .flat_map(|(d, l)| l.events.iter().map(move |e| (d, e)))
            .find(|(_, e)| e.correlation_id == 10 && e.start_ns == 400)
            .map(|(d, e)| (d.ordinal, whole.annotation(e.annotation).cloned()))
            .unwrap();
        assert_eq!((device, labels), whole_late);
        assert!(whole_late.1.is_some());
        let (without_call, earlier) = match windows {
            Windows::Apart => (1, vec![]),
            Windows::Merged => (0, vec![10]),
        };
        assert_eq!(
            t.counters.activities_without_api, without_call,
            "{windows:?}"
        );
        assert_eq!(t.written_calls.earlier(), earlier, "{windows:?}");
        // The writer labels the dispatch's id as its call's where that call was written.
        assert_eq!(
            t.written_calls.contains(10),
            without_call == 0,
            "{windows:?}"
        );
    }
}

/// A window cut right after another can show none of a stream's work: a graph launch whose
/// context (scope and launch facts, copied) it took in for dispatches still to come hands it
/// on again, so that a dispatch delivered two windows after its call is placed and labelled
/// as in the run written whole (and, windows merged, shown as launched). Before, the context
/// went one window only: that dispatch lost its stream and its roctx labels (an XLA op's
/// `hlo_op`: xprof's hlo_stats counted one kernel fewer), as an activity without a call.
/// It goes along for `CONTEXT_NS` of the tool's clock after the cut that wrote the call.
#[test]
fn a_graph_launch_s_context_crosses_a_window_without_its_stream_s_work() {
    use crate::model::carry::{split_incomplete_handed, HandedOn, Windows, CONTEXT, CONTEXT_NS};
    let whole = join(graph_on_a_stream(true, true));
    let whole_late = kernel_place(&whole, 10);
    assert!(whole_late.2.is_some());
    for windows in [Windows::Apart, Windows::Merged] {
        let mut first = graph_on_a_stream(false, true);
        let (mut carried, mut handed) =
            split_incomplete_handed(&mut first, &HandedOn::default(), windows).unwrap();
        assert_eq!(handed.get(&10), Some(&CONTEXT));
        // Windows with no work of stream 0xa: a launch on another stream, then nothing.
        for (n, other) in [(1, true), (2, false)] {
            let mut quiet = base();
            if other {
                quiet.calls.push(crate::model::events::CallFact {
                    correlation_id: 12,
                    stream: 0xb,
                    device: 0,
                    stream_seq: 0,
                });
                quiet.api.push(api(LAUNCH, 12, 230, 240, 7));
                quiet.kernels.push(kernel(12, 250, 260, 1, 4, q()));
            }
            carried.absorb(quiet);
            let (again, next) = split_incomplete_handed(&mut carried, &handed, windows)
                .unwrap_or_else(|| panic!("{windows:?}: the context after {n} quiet windows"));
            assert_eq!(next.get(&10), Some(&CONTEXT), "{windows:?} {n}");
            assert_eq!(join(carried).counters.activities_without_api, 0);
            (carried, handed) = (again, next);
        }
        let mut last = base();
        last.kernels.push(kernel(10, 400, 405, 1, 2, q()));
        // Its time ran out at this cut: the context goes no further.
        last.stop_boottime_ns = CONTEXT_NS;
        carried.absorb(last);
        assert!(split_incomplete_handed(&mut carried.clone(), &handed, windows).is_none());
        let t = join(carried);
        let (device, line, labels) = kernel_place(&t, 10);
        assert_eq!(
            (device, labels),
            (whole_late.0, whole_late.2.clone()),
            "{windows:?}"
        );
        assert_eq!(
            line,
            kernel_place(&whole, 11).1,
            "{windows:?}: on its stream's line"
        );
        let (without_call, earlier) = match windows {
            Windows::Apart => (1, vec![]),
            Windows::Merged => (0, vec![10]),
        };
        assert_eq!(
            t.counters.activities_without_api, without_call,
            "{windows:?}"
        );
        assert_eq!(t.written_calls.earlier(), earlier, "{windows:?}");
    }
    // Bounded: a context goes along `CONTEXT_NS` after the cut that wrote its call.
    let mut c = base();
    c.calls.push(crate::model::events::CallFact {
        correlation_id: 10,
        stream: 0xa,
        device: 0,
        stream_seq: 0,
    });
    c.scopes.push((10, 3));
    c.carried.contexts = vec![(10, 7)];
    let handed: HandedOn = [(10, CONTEXT)].into_iter().collect();
    c.stop_boottime_ns = 7 + CONTEXT_NS - 1;
    let (again, _) = split_incomplete_handed(&mut c.clone(), &handed, Windows::Merged).unwrap();
    assert_eq!(again.carried.contexts, [(10, 7)], "the time of its own cut");
    c.stop_boottime_ns = 7 + CONTEXT_NS;
    assert!(split_incomplete_handed(&mut c, &handed, Windows::Merged).is_none());
}

/// The reproduction of a paced training loop cut every 50 ms: a graph launch (10) has two of
/// its dispatches in a window with the kernel of the launch after it on its stream (11), whose
/// call has not returned (held, handed on with its kernel). The graph is written there, its
/// stream having moved on, and its context goes along. The next window takes in launch 11
/// with its kernel; every window after it shows new work of the stream; the graph's last
/// dispatch comes a second after its call's window. It keeps its stream and labels as the
/// run written whole gives them, and nothing is counted unplaced. Before, the work carried in
/// counted as the stream's own later work, and the context was not handed on again: the late
/// dispatch came without call and labels (an XLA op's `hlo_op`: 380 of 384 `fwd_fusion`
/// dispatches had theirs). A dispatch that comes after `CONTEXT_NS` is written without them,
/// and counted (`activities_unplaced`), not dropped.
#[test]
fn a_graph_launch_s_context_outlasts_its_stream_s_later_work_carried_in() {
    use crate::model::carry::{split_incomplete_handed, HandedOn, Windows, CONTEXT, CONTEXT_NS};
    use crate::model::events::CallFact;
    const WINDOW_NS: u64 = 50_000_000;
    const T0: u64 = 1_000_000_000;
    let whole = join(graph_on_a_stream(true, true));
    let whole_late = kernel_place(&whole, 10);
    assert!(whole_late.2.is_some());
    let launch = |c: &mut Collected, id: u64, at: u64| {
        c.calls.push(CallFact {
            correlation_id: id,
            stream: 0xa,
            device: 0,
            stream_seq: 0,
        });
        c.api.push(api(LAUNCH, id, at, at + 5, 7));
        c.kernels.push(kernel(id, at + 10, at + 15, 1, id, q()));
    };
    for windows in [Windows::Apart, Windows::Merged] {
        let mut first = graph_on_a_stream(false, true);
        first.api.retain(|a| a.correlation_id != 11);
        first.stop_boottime_ns = T0;
        let (mut carried, mut handed) =
            split_incomplete_handed(&mut first, &HandedOn::default(), windows).unwrap();
        assert_eq!(handed.get(&10), Some(&CONTEXT), "{windows:?}");
        assert_eq!(handed.get(&11), Some(&1), "{windows:?}: launch 11 held");
        assert_eq!(first.api.len(), 1, "{windows:?}: the graph written");
        // Window 2: launch 11's call returns (its kernel carried in); windows 3 to 20: new
        // work on the stream each.
        for n in 2..=20u64 {
            let mut next = base();
            next.stop_boottime_ns = T0 + (n - 1) * WINDOW_NS;
            if n == 2 {
                next.api.push(api(LAUNCH, 11, 210, 220, 7));
            } else {
                launch(&mut next, 100 + n, 1000 * n);
            }
            carried.absorb(next);
            let (again, ids) = split_incomplete_handed(&mut carried, &handed, windows)
                .unwrap_or_else(|| panic!("{windows:?}: no context after window {n}"));
            assert_eq!(ids.get(&10), Some(&CONTEXT), "{windows:?}: window {n}");
            let t = join(carried);
            assert_eq!(t.counters.activities_without_api, 0, "{windows:?} {n}");
            (carried, handed) = (again, ids);
        }
        let mut late = base();
        late.stop_boottime_ns = T0 + 20 * WINDOW_NS;
        late.kernels.push(kernel(10, 400, 405, 1, 2, q()));
        let mut past = carried.clone();
        carried.absorb(late.clone());
        let t = join(carried);
        let (device, line, labels) = kernel_place(&t, 10);
        assert_eq!((device, labels), (whole_late.0, whole_late.2.clone()));
        assert_eq!(
            line,
            kernel_place(&whole, 11).1,
            "{windows:?}: its stream's line"
        );
        assert_eq!(t.counters.activities_unplaced, 0, "{windows:?}");
        let (without_call, earlier) = match windows {
            Windows::Apart => (1, vec![]),
            Windows::Merged => (0, vec![10]),
        };
        assert_eq!(
            t.counters.activities_without_api, without_call,
            "{windows:?}"
        );
        assert_eq!(t.written_calls.earlier(), earlier, "{windows:?}");

        // Past the bound the context is not handed on; a dispatch after it is kept and
        // counted, without its call's labels.
        past.stop_boottime_ns = T0 + CONTEXT_NS;
        assert!(split_incomplete_handed(&mut past.clone(), &handed, windows).is_none());
        let mut alone = base();
        alone.kernels.push(kernel(10, 400, 405, 1, 2, q()));
        let t = join(alone);
        assert_eq!(kernel_place(&t, 10).2, None);
        assert_eq!(
            (
                t.counters.activities_without_api,
                t.counters.activities_unplaced
            ),
            (1, 1)
        );
    }
}

/// A roctx range shown in one window whose push and pop records are delivered after the
/// cut: the next window drops those records (they stand for the span already shown)
/// instead of showing each as a call of its own, and awaits them no further once they
/// came.
#[test]
fn roctx_records_that_come_after_their_span_s_window_are_not_shown_again() {
    use crate::model::carry::{hand_off, HandedOn, Windows};
    let mut first = base_with_roctx_names();
    first.markers.push(train_step());
    // Another roctx call's record came: roctx records are traced.
    first.api.push(roctx(5, 22, 600, 601));
    let (mut carried, handed) = hand_off(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
    assert_eq!(carried.carried.spans_shown, [20, 21]);
    let t = join(first);
    let names = |t: &Trace| -> Vec<String> {
        t.host_threads
            .iter()
            .flat_map(|th| th.events.iter())
            .map(|e| t.name(e).to_string())
            .collect()
    };
    assert_eq!(names(&t), ["train_step", "roctxGetThreadId"]);

    let mut next = base_with_roctx_names();
    let mut dropped = 0;
    for r in [roctx(1, 20, 100, 110), roctx(2, 21, 500, 510)] {
        next.marker_records
            .push_or_count(crate::facts::MarkerRecord::of(r), &mut dropped);
    }
    next.api.push(api(LAUNCH, 40, 700, 710, 7));
    next.kernels.push(kernel(40, 720, 730, 1, 1, q()));
    carried.absorb(next);
    let mut again = carried.clone();
    assert!(
        hand_off(&mut again, &handed, Windows::Apart).is_none(),
        "nothing is awaited once the records came"
    );
    assert_eq!(names(&join(carried)), ["hipLaunchKernel"]);
}

/// The roctx text of a call handed on reaches its kernel in the next window whatever it
/// is: empty, non-ASCII, 10 KB. The window's planes encode and decode with it, and the
/// two windows merged show it, written each on its own names and clock or on one run's
/// (as `WINDOW_MERGE` writes them, every event then copied as it was written).
#[test]
fn hostile_labels_go_along_with_the_calls_handed_on() {
    use crate::model::carry::{hand_off, HandedOn, Windows};
    use prost::Message;
    for label in [
        String::new(),
        "步骤 ünï ✓ \u{202e}".into(),
        "x".repeat(10 * 1024),
    ] {
        let mut first = base();
        first.markers.push(range_span(&label, 2, 9, 0));
        first.scopes.push((5, 2));
        first.api.push(api(LAUNCH, 5, 10, 20, 7));
        let (mut carried, _) = hand_off(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
        assert_eq!(carried.carried.scope_context.len(), 1);
        let mut next = base();
        next.kernels.push(kernel(5, 30, 40, 1, 1, q()));
        carried.absorb(next);
        let t = join(carried);
        let labels = kernel_place(&t, 5).2.map(|a| a.stack.to_vec());
        assert_eq!(labels, Some(vec![Arc::<str>::from(label.as_str())]));
        let bytes = crate::xplane::build_xspace(&t).encode_to_vec();
        assert!(crate::xplane::proto::XSpace::decode(bytes.as_slice()).is_ok());

        // The two windows written and merged into one profile (`xplane::merge`), each on
        // its own names and clock, and on one run's (`xplane::RunIds`, as `WINDOW_MERGE`
        // writes them and merges them at exit): the text reaches the kernel there too,
        // the range shows once, and no line holds partially overlapping events.
        let dir = tempfile::tempdir().unwrap();
        let layout = |run: &str| crate::xplane::OutputLayout {
            log_dir: dir.path().into(),
            run_name: run.into(),
            host: "h.1".into(),
            durable: false,
        };
        let first = join(first);
        for shared in [false, true] {
            let run = crate::xplane::RunIds::new();
            let run = shared.then_some(&run);
            let run_dir = |n: &str| format!("{n}{}", u8::from(shared));
            let files = [
                crate::xplane::write_window(&first, &layout(&run_dir("w1")), 1, run).unwrap(),
                crate::xplane::write_window(&t, &layout(&run_dir("w2")), 1, run).unwrap(),
            ];
            let out = layout(&run_dir("one"));
            let (path, m) = if shared {
                crate::xplane::merge::merge_own_files(&files, &out, &[])
            } else {
                crate::xplane::merge::merge_files(&files, &out)
            }
            .unwrap();
            if shared {
                assert_eq!(m.copied, m.events, "every event copied as it was written");
            }
            let space = crate::xplane::read_xspace(&path).unwrap();
            let mut ranges = 0;
            let mut labelled_kernel = false;
            for p in &space.planes {
                let stat_names = |e: &crate::xplane::proto::XEvent| -> Vec<String> {
                    e.stats
                        .iter()
                        .filter_map(|st| match &st.value {
                            Some(crate::xplane::proto::x_stat::Value::StrValue(v)) => {
                                Some(v.clone())
                            }
                            Some(crate::xplane::proto::x_stat::Value::RefValue(r)) => {
                                p.stat_metadata.get(&(*r as i64)).map(|m| m.name.clone())
                            }
                            _ => None,
                        })
                        .collect()
                };
                for l in &p.lines {
                    // Sorted by start, each event ends before the next starts or after the
                    // next ends (nested): no partial overlap.
                    let mut open: Vec<i64> = Vec::new();
                    for e in &l.events {
                        let Some(crate::xplane::proto::x_event::Data::OffsetPs(at)) = e.data else {
                            continue;
                        };
                        open.retain(|&end| end > at);
                        if let Some(&end) = open.last() {
                            assert!(at + e.duration_ps <= end, "{}: partial overlap", l.name);
                        }
                        open.push(at + e.duration_ps);
                        let name = p.event_metadata.get(&e.metadata_id).map_or("", |m| &m.name);
                        ranges += usize::from(name == label && !label.is_empty());
                        labelled_kernel |= p.name.starts_with("/device:GPU:")
                            && (label.is_empty() || stat_names(e).contains(&label));
                    }
                }
            }
            assert!(labelled_kernel, "the kernel's labels in the merged profile");
            if !label.is_empty() {
                assert_eq!(ranges, 1, "the range, once");
            }
        }
    }
}

/// The merge at exit splices each line from the windows' files (`xplane::merge`'s `splice`):
/// the same file, byte for byte, as the event-by-event merge writes. Here a host line whose
/// pieces overlap (a range of the second window began among the first's calls, well past the
/// first of the index's samples), a range the first shows open at its cut (left out, the
/// second shows it whole), and device lines that follow each other.
#[test]
fn spliced_windows_are_the_event_by_event_merge_byte_for_byte() {
    let mut first = base_with_roctx_names();
    let mut second = base_with_roctx_names();
    for i in 0..600u64 {
        let (w, at) = if i < 300 {
            (&mut first, 1_000 + i * 100)
        } else {
            (&mut second, 40_000 + i * 100)
        };
        w.api.push(api(LAUNCH, 100 + i, at, at + 50, 7));
        w.kernels
            .push(kernel(100 + i, at + 60, at + 90, 1, 100 + i, q()));
    }
    let range = |end_ns, open_at_end| crate::facts::calls::MarkerSpan {
        start_ns: 15_010,
        end_ns,
        open_at_end,
        ..range_span("step", 9, 10, 0)
    };
    first.markers.push(range(31_000, true));
    second.markers.push(range(90_000, false));
    let (first, second) = (join(first), join(second));
    let dir = tempfile::tempdir().unwrap();
    let layout = |run: &str| crate::xplane::OutputLayout {
        log_dir: dir.path().into(),
        run_name: run.into(),
        host: "h.1".into(),
        durable: false,
    };
    let run = crate::xplane::RunIds::new();
    let files = [
        crate::xplane::write_window(&first, &layout("w1"), 1, Some(&run)).unwrap(),
        crate::xplane::write_window(&second, &layout("w2"), 1, Some(&run)).unwrap(),
    ];
    let (spliced, m) =
        crate::xplane::merge::merge_own_files(&files, &layout("spliced"), &[]).unwrap();
    let (each, e) =
        crate::xplane::merge::merge_own_files_event_by_event(&files, &layout("each")).unwrap();
    assert_eq!(
        (m.events, m.open_ranges_left_out),
        (e.events, e.open_ranges_left_out)
    );
    assert_eq!(m.open_ranges_left_out, 1);
    assert_eq!(
        (m.spliced, e.spliced),
        (m.events, 0),
        "every line spliced, or none"
    );
    assert!(
        std::fs::read(&spliced).unwrap() == std::fs::read(&each).unwrap(),
        "the spliced file differs from the event-by-event merge's"
    );
    // Indexed as written, the windows merge the same: read back, or from where their writer
    // placed their events (none read).
    let indexed = files
        .iter()
        .map(|f| crate::xplane::merge::Indexed::own(f).unwrap())
        .collect();
    let (again, _) =
        crate::xplane::merge::merge_own_indexed(indexed, &[], &layout("again"), &[]).unwrap();
    assert!(std::fs::read(&again).unwrap() == std::fs::read(&each).unwrap());
    let written = [
        crate::xplane::write_window_placed(
            &first,
            crate::xplane::HostEvents::of(&first),
            &layout("p1"),
            1,
            Some(&run),
        )
        .unwrap(),
        crate::xplane::write_window_placed(
            &second,
            crate::xplane::HostEvents::of(&second),
            &layout("p2"),
            1,
            Some(&run),
        )
        .unwrap(),
    ];
    for (w, f) in written.iter().zip(&files) {
        assert_eq!(std::fs::read(&w.path).unwrap(), std::fs::read(f).unwrap());
        assert!(w.places.iter().all(|p| p.lines.iter().all(Option::is_some)));
    }
    let indexed = written
        .iter()
        .map(|w| crate::xplane::merge::Indexed::written(w).unwrap())
        .collect();
    let (placed, _) =
        crate::xplane::merge::merge_own_indexed(indexed, &[], &layout("placed"), &[]).unwrap();
    assert!(std::fs::read(&placed).unwrap() == std::fs::read(&each).unwrap());
    // A window of no run to be merged is indexed by no merge: its lines note no places (the
    // roctx lines among them).
    let alone = crate::xplane::write_window_placed(
        &first,
        crate::xplane::HostEvents::of(&first),
        &layout("alone"),
        1,
        None,
    )
    .unwrap();
    let lines: Vec<&Option<_>> = alone.places.iter().flat_map(|p| &p.lines).collect();
    assert!(lines.len() >= 3, "{} lines", lines.len());
    assert!(lines.iter().all(|l| l.is_none()));
}

/// Hardware-counter values (`ROCPROF_XPLANE_PMC`) of a dispatch whose kernel record a cut
/// sends to the next window (the counting service's buffer is flushed after the kernel
/// records'): they go along (`model::carry::hand_off`) and the next window's kernel event
/// carries them, as in the run written whole; so do the values of a kernel handed on for
/// its call. Values whose kernel record still has not come a window later are not handed on
/// again. Before, the values stayed in the first window, which had no kernel for them, and
/// the kernel showed without counters in the next.
#[test]
fn counter_values_meet_their_kernel_in_the_next_window() {
    use crate::facts::CounterValue;
    use crate::model::carry::{hand_off, HandedOn, Windows};
    let value = |dispatch: u64, v: f64| CounterValue {
        dispatch_id: dispatch,
        agent: GPU0,
        counter: Arc::from("SQ_WAVES"),
        value: v,
    };
    // Dispatch 1 (call 5) is whole here; dispatch 2 (call 6) has its values here and its
    // kernel record in the next window; dispatch 3's kernel (call 7) is here but its call
    // returned after the cut; dispatch 4's kernel record never comes.
    let whole = || {
        let mut c = base();
        c.api.push(api(LAUNCH, 5, 10, 20, 7));
        c.api.push(api(LAUNCH, 6, 21, 24, 7));
        c.api.push(api(LAUNCH, 7, 25, 60, 7));
        c.kernels.push(kernel(5, 30, 40, 1, 1, q()));
        c.kernels.push(kernel(6, 41, 50, 1, 2, q()));
        c.kernels.push(kernel(7, 51, 55, 1, 3, q()));
        for d in [1, 2, 3, 4] {
            // Two instances each (two XCCs): summed.
            c.counter_values.push(value(d, 8.0 * d as f64));
            c.counter_values.push(value(d, 1.0));
        }
        c
    };
    let whole = join(whole());
    let counted = |t: &Trace, d: u64| {
        let kernel_here = kernels_of(t).iter().any(|e| match &e.kind {
            crate::model::trace::DeviceEventKind::Kernel(k) => k.dispatch_id == d,
            _ => false,
        });
        (kernel_here, t.kernel_counters.get(&d).cloned())
    };
    for d in [1, 2, 3] {
        assert!(counted(&whole, d).1.is_some(), "dispatch {d}");
    }

    for windows in [Windows::Apart, Windows::Merged] {
        let mut first = base();
        first.api.push(api(LAUNCH, 5, 10, 20, 7));
        first.api.push(api(LAUNCH, 6, 21, 24, 7));
        first.kernels.push(kernel(5, 30, 40, 1, 1, q()));
        first.kernels.push(kernel(7, 51, 55, 1, 3, q()));
        for d in [1, 2, 3, 4] {
            first.counter_values.push(value(d, 8.0 * d as f64));
            first.counter_values.push(value(d, 1.0));
        }
        let (mut carried, handed) =
            hand_off(&mut first, &HandedOn::default(), windows).expect("calls 6 and 7");
        let mut kept: Vec<u64> = first.counter_values.iter().map(|v| v.dispatch_id).collect();
        kept.dedup();
        assert_eq!(kept, [1], "{windows:?}");
        assert_eq!(carried.carried.counters_awaited, [2, 4], "{windows:?}");
        let first = join(first);
        assert_eq!(counted(&first, 1), counted(&whole, 1), "{windows:?}");

        let mut next = base();
        next.api.push(api(LAUNCH, 7, 25, 60, 7));
        next.kernels.push(kernel(6, 41, 50, 1, 2, q()));
        carried.absorb(next);
        // Dispatch 4's values waited one window: they go no further.
        let mut again = carried.clone();
        if let Some((later, _)) = hand_off(&mut again, &handed, windows) {
            assert!(later.counter_values.is_empty(), "{windows:?}");
        }
        let next = join(carried);
        for d in [2, 3] {
            assert_eq!(
                counted(&next, d),
                counted(&whole, d),
                "{windows:?}: dispatch {d}"
            );
            assert!(counted(&next, d).0, "{windows:?}: kernel of dispatch {d}");
        }
    }
}
