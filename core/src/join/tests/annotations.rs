//! Annotations and roctx: the context of each call and its work, the spans' times.

use super::*;
use crate::join::join;

#[test]
fn annotations_attach_to_api_and_activities() {
    let mut c = base();
    c.markers.push(range_span("step", 2, 9, 0));
    c.markers.push(range_span("fwd", 3, 8, 2));
    // The capture kept the innermost scope at the call; the stack comes from the spans.
    c.scopes.push((5, 3));
    c.api.push(api(LAUNCH, 5, 10, 20, 7));
    c.kernels.push(kernel(5, 30, 40, 1, 1, q()));
    let t = join(c);
    let want = Annotation {
        stack: vec![Arc::from("step"), Arc::from("fwd")].into(),
        scope_range_id: 3,
        external_ids: vec![],
    };
    let call = t.host_threads[0]
        .events
        .iter()
        .find(|e| e.correlation_id == 5)
        .unwrap();
    assert_eq!(t.annotation(call.annotation), Some(&want));
    assert_eq!(t.annotation(kernels_of(&t)[0].annotation), Some(&want));
}

#[test]
fn external_ids_join_the_roctx_annotation() {
    let mut c = base();
    c.markers.push(range_span("step", 2, 9, 0));
    c.scopes.push((5, 2));
    let mut a = api(GRAPH, 5, 10, 20, 7);
    a.external_id = 1001;
    c.api.push(a);
    for i in 0..3 {
        c.kernels
            .push(kernel(5, 30 + i * 10, 35 + i * 10, 1, i, q()));
    }
    // No API record, external id only on the activity; and one with neither.
    let mut orphan = kernel(9, 100, 110, 1, 9, q());
    orphan.external_id = 77;
    c.kernels.push(orphan);
    c.kernels.push(kernel(0, 200, 210, 1, 10, q()));
    let t = join(c);
    let ks = kernels_of(&t);
    let first = t.annotation(ks[0].annotation).unwrap();
    assert_eq!(first.external_ids, vec![1001]);
    assert_eq!(&*first.stack[0], "step");
    assert_eq!(
        ks[0].annotation, ks[2].annotation,
        "one annotation per call"
    );
    let call = t.host_threads[0]
        .events
        .iter()
        .find(|e| e.correlation_id == 5)
        .unwrap();
    assert_eq!(call.annotation, ks[0].annotation);
    assert_eq!(
        t.annotation(ks[3].annotation).unwrap().external_ids,
        vec![77]
    );
    assert!(t.annotation(ks[3].annotation).unwrap().stack.is_empty());
    assert!(ks[4].annotation.is_none());
}

#[test]
fn marker_spans_use_buffered_times_and_hide_their_records() {
    let mut c = base_with_roctx_names();
    c.api.push(roctx(1, 20, 100, 110));
    c.api.push(roctx(2, 21, 500, 510));
    c.api.push(roctx(5, 22, 600, 601));
    c.markers.push(train_step());
    // A range whose buffered records never arrived keeps the callback times.
    c.markers.push(MarkerSpan {
        label: Arc::from("lonely"),
        thread_id: 8,
        open_correlation_id: 30,
        close_correlation_id: 31,
        start_ns: 1000,
        end_ns: 2000,
        instant: false,
        ..MarkerSpan::default()
    });
    let t = join(c);
    let ev: Vec<(&str, u64, u64)> = t
        .host_threads
        .iter()
        .flat_map(|th| th.events.iter())
        .map(|e| (t.name(e), e.start_ns, e.end_ns))
        .collect();
    assert_eq!(
        ev,
        vec![
            ("train_step", 100, 510),
            ("roctxGetThreadId", 600, 601),
            ("lonely", 1000, 2000)
        ]
    );
}

/// The tool's stores keep roctx records packed apart (`Collected::marker_records`); a
/// collection made otherwise has them among the calls. Either way the profile is the
/// same: spans take their records' times (of an id's repeats, the first in the records'
/// order, wherever each lies), span records vanish, and the others stay calls.
#[test]
fn roctx_records_read_packed_give_what_unpacked_ones_give() {
    let mut c = base_with_roctx_names();
    c.api.push(api(LAUNCH, 40, 200, 210, 7));
    let records = [
        roctx(1, 20, 100, 110),
        // A repeat of the push's id, first in the records' order: it gives the times.
        roctx(1, 20, 90, 95),
        roctx(2, 21, 500, 510),
        roctx(5, 22, 600, 601),
    ];
    c.markers.push(MarkerSpan {
        scope_id: 20,
        ..train_step()
    });
    c.scopes.push((40, 20));
    let profile = |c: Collected| {
        let t = join(c);
        let events: Vec<(String, u64, u64)> = t
            .host_threads
            .iter()
            .flat_map(|th| th.events.iter())
            .map(|e| (t.name(e).to_string(), e.start_ns, e.end_ns))
            .collect();
        let bytes = prost::Message::encode_to_vec(&crate::xplane::build_xspace(&t));
        (events, bytes)
    };
    let mut unpacked = c.clone();
    for r in records {
        unpacked.api.push(r);
    }
    let mut packed = c.clone();
    let mut dropped = 0;
    for r in records {
        packed
            .marker_records
            .push_or_count(crate::facts::MarkerRecord::of(r), &mut dropped);
    }
    // One repeat in each place: the earlier still wins.
    let mut split = c;
    split.api.push(records[1]);
    for r in [records[0], records[2], records[3]] {
        split
            .marker_records
            .push_or_count(crate::facts::MarkerRecord::of(r), &mut dropped);
    }
    let (events, bytes) = profile(unpacked);
    assert_eq!(
        events,
        [
            ("train_step".to_string(), 90, 510),
            ("hipLaunchKernel".to_string(), 200, 210),
            ("roctxGetThreadId".to_string(), 600, 601),
        ]
    );
    assert_eq!(profile(packed), (events.clone(), bytes.clone()));
    assert_eq!(profile(split), (events, bytes));
}

fn span_of(label: &str, open: u64, close: u64, scope: i64, parent: i64) -> MarkerSpan {
    MarkerSpan {
        label: Arc::from(label),
        thread_id: 7,
        open_correlation_id: open,
        close_correlation_id: close,
        scope_id: scope,
        parent_scope_id: parent,
        ..MarkerSpan::default()
    }
}

/// Through the whole join: uncaptured calls and marks get their range's context, ranges
/// carry their own id and kind, and the tree comes out of the spans.
#[test]
fn join_fills_calls_marks_ranges_and_the_tree() {
    use crate::model::events::{ApiDomain, ApiRecord, Collected};
    use crate::model::join::join;
    use crate::model::{HostEventKind, RangeInfo};

    let api = |corr: u64, thread: u64| ApiRecord {
        domain: ApiDomain::Hip,
        operation: 1,
        correlation_id: corr,
        external_id: 0,
        start_ns: corr * 10,
        end_ns: corr * 10 + 5,
        thread_id: thread,
    };
    let timed = |mut m: MarkerSpan, s: u64, e: u64| {
        m.start_ns = s;
        m.end_ns = e;
        m
    };
    let markers = vec![
        timed(span_of("step", 1, 10, 1, 0), 10, 105),
        timed(span_of("mm", 2, 6, 2, 1), 20, 65),
        MarkerSpan {
            instant: true,
            close_correlation_id: 4,
            ..timed(span_of("tick", 4, 4, 0, 0), 40, 40)
        },
        MarkerSpan {
            process_wide: true,
            ..timed(span_of("job", 8, 12, 0, 0), 80, 125)
        },
        MarkerSpan {
            open_at_end: true,
            ..timed(span_of("left open", 20, 0, 20, 0), 200, 300)
        },
    ];
    let t = join(Collected {
        markers,
        api: vec![api(3, 7), api(5, 7), api(7, 8), api(21, 7)].into(),
        ..Collected::default()
    });
    assert_eq!(t.scope_tree, vec![(2, 1)]);
    let ev = |name: &str| {
        t.host_threads
            .iter()
            .flat_map(|th| th.events.iter())
            .filter(|e| t.name(e) == name)
            .collect::<Vec<_>>()
    };
    let scopes: Vec<Option<i64>> = ev("<hip operation 1>")
        .iter()
        .map(|e| e.annotation.map(|a| t.annotations[a].scope_range_id))
        .collect();
    // Sorted by thread, then time: cid 3, 5, 21 on thread 7; cid 7 on thread 8.
    assert_eq!(scopes, vec![Some(2), Some(2), Some(20), None]);
    assert_eq!(
        t.annotations[ev("tick")[0].annotation.unwrap()].scope_range_id,
        2
    );
    assert_eq!(
        ev("mm")[0].kind,
        HostEventKind::MarkerRange(RangeInfo::default())
    );
    assert_eq!(
        ev("mm")[0].scope_id(),
        2,
        "a range's scope id is its push's id"
    );
    assert_eq!(ev("job")[0].scope_id(), 0, "start/stop ranges have none");
    assert!(ev("mm")[0].annotation.is_none(), "a range is its own scope");
    assert!(matches!(ev("job")[0].kind, HostEventKind::MarkerRange(r) if r.process_wide));
    assert!(matches!(ev("left open")[0].kind, HostEventKind::MarkerRange(r) if r.open_at_end));
}
