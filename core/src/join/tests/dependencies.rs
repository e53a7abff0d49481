//! Dependencies through the whole join: the sync calls resolved and their arrows drawn,
//! within a window and across windows (`model::carry`).

use crate::facts::SyncKind;
use crate::model::trace::{Anchor, AnchorPlace, ResolvedWait};

/// The whole pass through the join: a record on stream A after a kernel, a wait on stream B
/// before a kernel, and an event sync on the host.
fn two_streams(barriers: bool) -> crate::model::Trace {
    crate::model::join::join(two_streams_collected(barriers))
}

fn two_streams_collected(barriers: bool) -> crate::model::events::Collected {
    use crate::model::events::{
        AgentInfo, AgentType, ApiDomain, ApiRecord, CallFact, Collected, HipEventOp,
        HipEventRecord, KernelRecord, StreamCreation, SyncFact,
    };
    let gpu = AgentInfo::for_test(0x10, AgentType::Gpu, 0);
    let mut c = Collected {
        hostname: "h".into(),
        agents: vec![gpu],
        ..Collected::default()
    };
    for (op, n) in [
        (1, "hipLaunchKernel"),
        (2, "hipEventRecord"),
        (3, "hipStreamWaitEvent"),
        (4, "hipEventSynchronize"),
    ] {
        c.op_names
            .insert((ApiDomain::Hip, op), std::sync::Arc::from(n));
    }
    let api = |op, corr, s| ApiRecord {
        domain: ApiDomain::Hip,
        operation: op,
        correlation_id: corr,
        external_id: 0,
        start_ns: s,
        end_ns: s + 5,
        thread_id: 7,
    };
    // corr 3: kernel on A; 4: record e on A; 5: wait B on e; 6: kernel on B; 7: event sync.
    c.api = [
        api(1, 3, 100),
        api(2, 4, 110),
        api(3, 5, 120),
        api(1, 6, 130),
        api(4, 7, 140),
    ]
    .into_iter()
    .collect();
    let k = |corr, s, e| KernelRecord {
        correlation_id: corr,
        external_id: 0,
        start_ns: s,
        end_ns: e,
        thread_id: 7,
        agent: 0x10,
        queue: 0x91,
        kernel_id: 0,
        dispatch_id: corr,
        private_segment_size: 0,
        group_segment_size: 0,
        workgroup: [1, 1, 1],
        grid: [1, 1, 1],
        pipe_id: None,
    };
    c.kernels = vec![k(3, 200, 300), k(6, 400, 450)].into();
    c.stream_creations = vec![
        StreamCreation {
            correlation_id: 1,
            stream: 0xa,
            device: 0,
            stream_seq: 1,
        },
        StreamCreation {
            correlation_id: 2,
            stream: 0xb,
            device: 0,
            stream_seq: 2,
        },
    ];
    // Facts as a racing thread may record them: stream unknown at capture time.
    let fact = |corr, stream| CallFact {
        correlation_id: corr,
        stream,
        device: -1,
        stream_seq: 0,
    };
    c.calls = vec![fact(3, 0xa), fact(6, 0xb)].into();
    let sync = |corr, kind, stream| SyncFact {
        correlation_id: corr,
        kind,
        event: 0xe,
        stream,
        device: -1,
        stream_seq: 0,
    };
    c.syncs = vec![
        sync(4, SyncKind::EventRecord, 0xa),
        sync(5, SyncKind::StreamWaitEvent, 0xb),
        sync(7, SyncKind::EventSynchronize, 0),
    ];
    if barriers {
        let b = |corr, end| HipEventRecord {
            correlation_id: corr,
            operation: 0,
            start_ns: end - 1,
            end_ns: end,
            event: 0xe,
            queue: 0x91,
        };
        c.hip_events = vec![
            (HipEventOp::Record, b(4, 310)),
            (HipEventOp::Wait, b(5, 320)),
        ];
    }
    c
}

/// The stream lines and dependency stages run beside the host events stage: on two threads
/// the trace is the one thread's, stream numbers, lines split where a stream overlaps itself
/// and the stream lines stage's accounting included.
#[test]
fn stream_lines_beside_the_host_events_are_the_lines_before_them() {
    use crate::model::events::{ApiDomain, ApiRecord, CallFact};
    let mut c = two_streams_collected(false);
    // A second launch on stream B, its kernel overlapping the first one's there: B's line
    // splits, which the stream lines stage counts.
    c.api.push(ApiRecord {
        domain: ApiDomain::Hip,
        operation: 1,
        correlation_id: 8,
        external_id: 0,
        start_ns: 150,
        end_ns: 155,
        thread_id: 7,
    });
    let mut second = c.kernels.iter().last().expect("two kernels");
    second.correlation_id = 8;
    second.dispatch_id = 8;
    second.start_ns = 420;
    second.end_ns = 480;
    c.kernels.push(second);
    c.calls.push(CallFact {
        correlation_id: 8,
        stream: 0xb,
        device: -1,
        stream_seq: 0,
    });
    let one = crate::model::join::join_on(c.clone(), 1);
    let two = crate::model::join::join_on(c, 2);
    assert_eq!(format!("{one:?}"), format!("{two:?}"));
    assert_eq!(two.counters.stream_overlap_events, 1);
    let lines: Vec<i64> = two.devices[0].lines.iter().map(|l| l.id).collect();
    assert!(
        lines.len() >= 3,
        "stream A, stream B and B's overlap: {lines:?}"
    );
    assert!(two
        .dependency_flows
        .iter()
        .any(|f| f.wait_correlation_id == 5 && f.record_correlation_id == 4));
}

/// The dependency stage runs beside the host events stage, from the ends of the calls it
/// copied before the API records were consumed: the same trace as one after the other,
/// host anchors included (at the end of a record call, and of a host wait).
#[test]
fn dependencies_beside_the_host_events_are_the_dependencies_after_them() {
    use crate::model::events::{ApiDomain, ApiRecord, SyncFact};
    let mut c = two_streams_collected(false);
    // A second event, recorded on a stream the profile never saw made (no plane, no
    // line: the record's anchor is its call's end), and waited on by the host.
    let call = |op, corr, start, tid| ApiRecord {
        domain: ApiDomain::Hip,
        operation: op,
        correlation_id: corr,
        external_id: 0,
        start_ns: start,
        end_ns: start + 3,
        thread_id: tid,
    };
    c.api.push(call(2, 8, 150, 9));
    c.api.push(call(4, 9, 160, 11));
    let sync = |corr, kind| SyncFact {
        correlation_id: corr,
        kind,
        event: 0xf,
        stream: 0xc,
        device: -1,
        stream_seq: 0,
    };
    c.syncs.push(sync(8, SyncKind::EventRecord));
    c.syncs.push(sync(9, SyncKind::EventSynchronize));
    let one = crate::model::join::join_on(c.clone(), 1);
    let two = crate::model::join::join_on(c, 2);
    assert_eq!(format!("{one:?}"), format!("{two:?}"));
    let host = |tid, time_ns| Anchor {
        place: AnchorPlace::Host { tid },
        time_ns,
    };
    let flow = two
        .dependency_flows
        .iter()
        .find(|f| f.wait_correlation_id == 9)
        .map(|f| (f.record_correlation_id, f.from, f.to));
    assert_eq!(flow, Some((8, host(9, 153), host(11, 163))));
    assert_eq!(
        (two.counters.waits_resolved, two.counters.waits_unresolved),
        (3, 0)
    );
    assert_eq!(two.counters, one.counters);
}

/// The producers are the collection's own records and those handed on to it: a window
/// whose waits' record was made in an earlier window that handed nothing on (a capture of
/// the profiler service, an attach session) leaves them unresolved, with the raw event
/// handle, and draws no arrow.
#[test]
fn a_record_drained_with_an_earlier_window_resolves_no_wait() {
    let mut c = two_streams_collected(false);
    c.syncs.retain(|s| s.kind != SyncKind::EventRecord);
    let t = crate::model::join::join(c);
    assert_eq!(
        (t.counters.waits_resolved, t.counters.waits_unresolved),
        (0, 2)
    );
    assert!(t.dependency_flows.is_empty());
    let waits: Vec<(u64, u64, bool)> = t
        .sync_calls
        .iter()
        .map(|s| (s.correlation_id, s.event, s.resolved.is_some()))
        .collect();
    assert_eq!(waits, [(5, 0xe, false), (7, 0xe, false)]);
}

/// `two_streams_collected` cut into two windows after call `cut`: the first holds the calls
/// up to it, the second the rest, with the first's latest event records handed on.
fn windows_cut_after(
    cut: u64,
) -> (
    crate::model::events::Collected,
    crate::model::events::Collected,
) {
    let mut first = two_streams_collected(false);
    let mut next = two_streams_collected(false);
    first.api.retain(|a| a.correlation_id <= cut);
    first.syncs.retain(|s| s.correlation_id <= cut);
    next.api.retain(|a| a.correlation_id > cut);
    next.syncs.retain(|s| s.correlation_id > cut);
    next.calls.retain(|f| f.correlation_id > cut);
    let _ = next.kernels.split_where(|k| k.correlation_id <= cut);
    next.carried.producers = crate::model::carry::latest_producers(&first, &[]);
    (first, next)
}

/// A capture window cut after the record (corr 4) and before its waits (5, 7) hands the
/// event's latest record on (`model::carry::latest_producers`): the next window's waits
/// resolve to it, as in the whole run, and draw no arrow (the record's anchor is in the
/// earlier window's file).
#[test]
fn a_record_handed_on_by_an_earlier_window_resolves_its_waits() {
    let whole = crate::model::join::join(two_streams_collected(false));
    let cut = 4;
    let (_, next) = windows_cut_after(cut);
    assert_eq!(next.carried.producers.len(), 1);
    let t = crate::model::join::join(next);
    assert_eq!(
        (t.counters.waits_resolved, t.counters.waits_unresolved),
        (2, 0)
    );
    let records = |t: &crate::model::Trace| -> Vec<(u64, Option<u64>)> {
        t.sync_calls
            .iter()
            .filter(|s| s.correlation_id > cut)
            .map(|s| {
                let record = s.resolved.map(|r| r.record_correlation_id.get());
                (s.correlation_id, record)
            })
            .collect()
    };
    assert_eq!(records(&t), [(5, Some(4)), (7, Some(4))]);
    assert_eq!(records(&t), records(&whole));
    assert!(t.dependency_flows.is_empty());
    // Counted, and said in the profile's warnings.
    assert_eq!(t.counters.waits_without_arrow, 2);
    assert_eq!(whole.counters.waits_without_arrow, 0);
}

/// Windows to be merged into one profile on one clock (`WINDOW_MERGE`): the window that
/// made the record finds where its arrows start (`Carried::anchors_wanted`,
/// `Trace::record_anchors`), and the next window's waits on it draw the arrows the whole
/// run draws, from there. The writer puts the record's anchor on its line even where the
/// next window has nothing else on that line. Windows written apart draw no such arrow.
#[test]
fn merged_windows_draw_the_arrow_from_a_record_of_an_earlier_window() {
    let whole = crate::model::join::join(two_streams_collected(false));
    let cut = 4;
    let (mut first, mut next) = windows_cut_after(cut);
    first.carried.anchors_wanted = vec![cut];
    let first = crate::model::join::join(first);
    assert_eq!(first.record_anchors.len(), 1);
    next.carried.anchors = first.record_anchors.clone();
    let t = crate::model::join::join(next);
    let flows = |t: &crate::model::Trace| -> Vec<(u64, u64, Anchor, Anchor)> {
        t.dependency_flows
            .iter()
            .map(|f| (f.wait_correlation_id, f.record_correlation_id, f.from, f.to))
            .collect()
    };
    assert_eq!(flows(&t), flows(&whole));
    assert_eq!(flows(&t).len(), 2);
    assert_eq!(t.counters.waits_without_arrow, 0);
    // Both ends of both arrows are written, the record's on its line though the window
    // has no other event there.
    let space = crate::xplane::build_xspace(&t);
    let anchors = |name: &str| {
        space
            .planes
            .iter()
            .flat_map(|p| {
                p.lines.iter().flat_map(move |l| {
                    l.events.iter().filter(move |e| {
                        p.event_metadata
                            .get(&e.metadata_id)
                            .is_some_and(|m| m.name == name)
                    })
                })
            })
            .count()
    };
    use crate::xplane::deps::{RECORD_ANCHOR, WAIT_ANCHOR};
    assert_eq!((anchors(RECORD_ANCHOR), anchors(WAIT_ANCHOR)), (2, 2));
}

/// Windows merged on one clock, cut after the wait (corr 5) whose stream's next work
/// (the kernel, 6) is launched after the cut or returns after it, and after the record
/// (4) whose call returned after the cut: the two windows draw the arrows the run written
/// whole draws, anchor for anchor. The wait is held for the work after it
/// (`Windows::Merged`), also when that work came but is held itself, where windows
/// written apart end its arrow at its call; the record, handed on with its call, starts
/// its arrows where the first window found the kernel before it, where the next window
/// alone could only start them at its call.
#[test]
fn merged_windows_draw_the_arrows_a_cut_between_a_wait_and_its_work_separates() {
    use crate::model::carry::{hand_off, HandedOn, Windows};
    let whole = crate::model::join::join(two_streams_collected(false));
    let flows = |t: &[&crate::model::Trace]| -> Vec<(u64, u64, Anchor, Anchor)> {
        let mut v: Vec<_> = t
            .iter()
            .flat_map(|t| &t.dependency_flows)
            .map(|f| (f.wait_correlation_id, f.record_correlation_id, f.from, f.to))
            .collect();
        v.sort_unstable_by_key(|f| f.0);
        v
    };
    assert_eq!(flows(&[&whole]).len(), 2);
    // `kernel_first`: the launch after the wait (6) returns after the cut, its kernel
    // before it (the launch is held with its kernel).
    let two_windows = |windows: Windows, kernel_first: bool| {
        let cut = 5;
        let (mut first, mut next) = windows_cut_after(cut);
        next.carried.producers.clear();
        if kernel_first {
            next.calls.clear();
            let _ = next.kernels.split_where(|_| true);
        } else {
            first.calls.retain(|f| f.correlation_id <= cut);
            let _ = first.kernels.split_where(|k| k.correlation_id > cut);
        }
        // The record's call returns after the cut.
        next.api
            .append(first.api.split_where(|a| a.correlation_id == 4));
        let (mut held, _) = hand_off(&mut first, &HandedOn::default(), windows).unwrap();
        let first = crate::model::join::join(first);
        held.carried.anchors = first.record_anchors.clone();
        held.absorb(next);
        (first, crate::model::join::join(held))
    };
    for kernel_first in [false, true] {
        let (first, next) = two_windows(Windows::Merged, kernel_first);
        assert!(first.dependency_flows.is_empty(), "{kernel_first}");
        assert_eq!(flows(&[&first, &next]), flows(&[&whole]), "{kernel_first}");
        assert_eq!(next.counters.waits_without_arrow, 0);
    }
    // Written apart, the wait's arrow ends at its call, and the event sync's starts at
    // the record's call.
    let (first, next) = two_windows(Windows::Apart, false);
    let at_call = |a: Anchor| matches!(a.place, AnchorPlace::Host { .. });
    let apart = flows(&[&first, &next]);
    assert_eq!(apart.len(), 2, "{apart:?}");
    assert!(at_call(apart[0].3) && at_call(apart[1].2), "{apart:?}");
    assert!(flows(&[&whole]).iter().all(|f| !at_call(f.2)));
}

/// A stream's work comes in order, and so must a window's share of it: with the kernel
/// before an event record not delivered at the cut, the record is held with it, and so
/// are the wait and the event sync on that record, the launch after the wait on its
/// stream, and a device sync after them. The next window draws the arrows the whole run
/// draws: a record left in the first window would start its arrow at the end of the last
/// work there on its stream, maybe a step or more before the record.
#[test]
fn what_follows_a_held_call_on_its_stream_is_held_with_it() {
    use crate::model::carry::{split_incomplete_handed, HandedOn, Windows};
    use crate::model::events::{ApiDomain, ApiRecord, SyncFact};
    let with_device_sync = |mut c: crate::model::events::Collected| {
        c.op_names.insert(
            (ApiDomain::Hip, 5),
            std::sync::Arc::from("hipDeviceSynchronize"),
        );
        c.api.push(ApiRecord {
            domain: ApiDomain::Hip,
            operation: 5,
            correlation_id: 8,
            external_id: 0,
            start_ns: 150,
            end_ns: 500,
            thread_id: 7,
        });
        c.syncs.push(SyncFact {
            correlation_id: 8,
            kind: SyncKind::DeviceSynchronize,
            event: 0,
            stream: 0,
            device: -1,
            stream_seq: 0,
        });
        c
    };
    let whole = crate::model::join::join(with_device_sync(two_streams_collected(false)));
    let mut first = with_device_sync(two_streams_collected(false));
    let late = first.kernels.split_where(|k| k.correlation_id == 3);
    let (mut held, _) =
        split_incomplete_handed(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
    let mut ids: Vec<u64> = held.api.iter().map(|a| a.correlation_id).collect();
    ids.sort_unstable();
    assert_eq!(ids, [3, 4, 5, 6, 7, 8]);
    let t = crate::model::join::join(first);
    assert!(t.sync_calls.is_empty() && t.dependency_flows.is_empty());
    let mut next = two_streams_collected(false);
    next.api.clear();
    next.calls.clear();
    next.syncs.clear();
    next.kernels = late;
    held.absorb(next);
    let t = crate::model::join::join(held);
    let arrows = |t: &crate::model::Trace| -> Vec<(u64, u64, u64, u64)> {
        let mut v: Vec<_> = t
            .dependency_flows
            .iter()
            .map(|f| {
                (
                    f.wait_correlation_id,
                    f.record_correlation_id,
                    f.from.time_ns,
                    f.to.time_ns,
                )
            })
            .collect();
        v.sort_unstable();
        v
    };
    assert!(!arrows(&whole).is_empty());
    assert_eq!(arrows(&t), arrows(&whole));
}

/// A `hipEventRecord` that returns after a window's cut is handed on with its call, but a
/// wait of that window that waited for it still resolves to it there, and draws its
/// arrow: the record stays in the window as a producer only.
#[test]
fn a_record_handed_on_with_its_call_still_resolves_the_waits_before_the_cut() {
    use crate::model::carry::{split_incomplete_handed, HandedOn, Windows};
    let mut c = two_streams_collected(false);
    c.api.retain(|a| a.correlation_id != 4);
    let (held, _) = split_incomplete_handed(&mut c, &HandedOn::default(), Windows::Apart).unwrap();
    assert_eq!(held.syncs.len(), 1);
    assert!(c.syncs.iter().all(|s| s.correlation_id != 4));
    let t = crate::model::join::join(c);
    assert_eq!(
        (t.counters.waits_resolved, t.counters.waits_unresolved),
        (2, 0)
    );
    assert!(t
        .sync_calls
        .iter()
        .all(|s| s.correlation_id == 4 || s.resolved.is_some()));
    // The same arrows as the whole run's.
    let arrows = |t: &crate::model::Trace| -> Vec<(u64, u64, u64)> {
        t.dependency_flows
            .iter()
            .map(|f| {
                (
                    f.wait_correlation_id,
                    f.record_correlation_id,
                    f.from.time_ns,
                )
            })
            .collect()
    };
    assert_eq!(arrows(&t), arrows(&two_streams(false)));
    assert!(!t.dependency_flows.is_empty());
}

/// A wait handed on to the next window resolves there to the record before it, though a
/// later record of the same event came before the cut: the record each wait handed on
/// resolves to goes along (`model::carry::hand_off`), not only each event's latest.
#[test]
fn a_wait_handed_on_resolves_to_the_record_before_it() {
    use crate::model::carry::{hand_off, HandedOn, Windows};
    use crate::model::events::{ApiDomain, ApiRecord, SyncFact};
    let mut first = two_streams_collected(false);
    // The event is recorded again (corr 8) after the wait (5), whose call returns after
    // the cut: its record is not here yet.
    first.syncs.push(SyncFact {
        correlation_id: 8,
        ..first.syncs[0]
    });
    let record = first.api.split_where(|a| a.correlation_id == 5);
    let second = first.api.iter().nth(1).unwrap();
    first.api.push(ApiRecord {
        correlation_id: 8,
        start_ns: 150,
        end_ns: 155,
        ..second
    });
    let (mut held, _) = hand_off(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
    let mut ids: Vec<u64> = held
        .carried
        .producers
        .iter()
        .map(|s| s.correlation_id)
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [4, 8]);
    let mut next = two_streams_collected(false);
    next.api = record;
    assert_eq!(next.api.iter().next().unwrap().domain, ApiDomain::Hip);
    next.syncs.clear();
    next.calls.clear();
    let _ = next.kernels.split_where(|_| true);
    held.absorb(next);
    let t = crate::model::join::join(held);
    let resolved: Vec<(u64, Option<u64>)> = t
        .sync_calls
        .iter()
        .map(|s| {
            (
                s.correlation_id,
                s.resolved.map(|r| r.record_correlation_id.get()),
            )
        })
        .collect();
    assert_eq!(resolved, [(5, Some(4))]);
}

/// Windows merged on one clock: a wait handed on for the work after it resolves in the next
/// window to the record it waited for, and draws the arrow the run held whole draws, however
/// many records of other events follow it in its window. Here more than
/// `carry::MAX_PRODUCERS` do (a window of a million records has about that many on the
/// MaxText-shaped scenario, and a wait handed on again holds the next window's too): when every
/// record from the first wait handed on went along, at most that many of them (the latest),
/// the record that wait resolves to was left out, and its arrow was lost without a word.
#[test]
fn a_wait_handed_on_resolves_to_its_record_however_many_records_follow_it() {
    use crate::model::carry::{hand_off, HandedOn, Windows, MAX_PRODUCERS};
    use crate::model::events::{ApiRecord, SyncFact};
    let flow_of_wait = |t: &crate::model::Trace| {
        t.dependency_flows
            .iter()
            .find(|f| f.wait_correlation_id == 5)
            .map(|f| (f.record_correlation_id, f.from, f.to))
    };
    let whole = crate::model::join::join(two_streams_collected(false));
    assert!(flow_of_wait(&whole).is_some());
    // The wait (5) is in the first window, the launch after it on its stream (6) in the next.
    let mut first = two_streams_collected(false);
    let late_kernel = first.kernels.split_where(|k| k.correlation_id == 6);
    let late_api = first.api.split_where(|a| a.correlation_id == 6);
    first.calls.retain(|f| f.correlation_id != 6);
    // After the wait, the thread records another event on stream A, again and again: every
    // record's call has returned and the work before it has come.
    let n = MAX_PRODUCERS as u64 + 1;
    let second = first.api.iter().nth(1).unwrap();
    for i in 0..n {
        let id = 100 + i;
        first.api.push(ApiRecord {
            correlation_id: id,
            start_ns: 1_000 + 10 * i,
            end_ns: 1_005 + 10 * i,
            ..second
        });
        first.syncs.push(SyncFact {
            correlation_id: id,
            event: 0xf,
            ..first.syncs[0]
        });
    }
    let (mut held, _) = hand_off(&mut first, &HandedOn::default(), Windows::Merged).unwrap();
    assert!(
        held.syncs.iter().any(|s| s.correlation_id == 5),
        "the wait is held"
    );
    // The records go along as producers: each event's latest, and the one the wait needs.
    let mut producers: Vec<u64> = held
        .carried
        .producers
        .iter()
        .map(|s| s.correlation_id)
        .collect();
    producers.sort_unstable();
    assert_eq!(
        (producers.len(), producers.first(), producers.last()),
        (2, Some(&4), Some(&(100 + n - 1))),
        "the records handed on"
    );
    let first = crate::model::join::join(first);
    held.carried.anchors = first.record_anchors.clone();
    let mut next = two_streams_collected(false);
    next.api = late_api;
    next.calls.retain(|f| f.correlation_id == 6);
    next.syncs.clear();
    next.kernels = late_kernel;
    held.absorb(next);
    let next = crate::model::join::join(held);
    assert_eq!(
        (next.counters.waits_resolved, next.counters.waits_unresolved),
        (1, 0)
    );
    assert_eq!(flow_of_wait(&next), flow_of_wait(&whole));
}

#[test]
fn arrows_join_the_producer_activity_to_the_consumer_activity() {
    let t = two_streams(false);
    let (a, b) = (t.devices[0].lines[0].id, t.devices[0].lines[1].id);
    assert_eq!((a, b), (0, 1), "streams A and B, by creation");
    let f: Vec<(u64, Anchor, Anchor)> = t
        .dependency_flows
        .iter()
        .map(|f| (f.wait_correlation_id, f.from, f.to))
        .collect();
    let dev = |line, time_ns| Anchor {
        place: AnchorPlace::Device { ordinal: 0, line },
        time_ns,
    };
    let host = |time_ns| Anchor {
        place: AnchorPlace::Host { tid: 7 },
        time_ns,
    };
    assert_eq!(
        f,
        vec![
            // The wait: end of the kernel before the record → start of the kernel after it.
            (5, dev(a, 300), dev(b, 400)),
            // The event sync: same producer → the end of the sync call on the host.
            (7, dev(a, 300), host(145)),
        ]
    );
    let wait = t.sync_calls.iter().find(|s| s.correlation_id == 5).unwrap();
    assert_eq!(wait.stream, Some(1));
    assert_eq!(
        wait.resolved,
        Some(ResolvedWait {
            record_correlation_id: std::num::NonZeroU64::new(4).unwrap(),
            stream: Some(0),
            device: Some(0)
        })
    );
    assert_eq!(
        (t.counters.waits_resolved, t.counters.waits_unresolved),
        (2, 0)
    );
}

#[test]
fn hip_event_barriers_give_the_anchor_times() {
    let t = two_streams(true);
    let f = &t.dependency_flows[0];
    assert_eq!(f.wait_correlation_id, 5);
    // Record barrier completes at 310, the wait barrier releases stream B at 320.
    assert_eq!((f.from.time_ns, f.to.time_ns), (310, 320));
    assert_eq!(
        f.from.place,
        AnchorPlace::Device {
            ordinal: 0,
            line: 0
        }
    );
    assert_eq!(
        f.to.place,
        AnchorPlace::Device {
            ordinal: 0,
            line: 1
        }
    );
}

/// One thread's last step and its syncs, with the times each piece reaches the tool: a
/// launch on stream A (3), a record of `e` on A (4), B waits for `e` (5), a launch on B
/// (6), the host waits for `e` (7), for B (8), then for the device (9). The sync calls
/// return once the GPU work they wait for has ended, as the runtime's do.
fn last_step_with_syncs() -> crate::model::events::Collected {
    use crate::model::events::{ApiDomain, SyncFact};
    let mut c = two_streams_collected(false);
    for (op, n) in [(5, "hipStreamSynchronize"), (6, "hipDeviceSynchronize")] {
        c.op_names
            .insert((ApiDomain::Hip, op), std::sync::Arc::from(n));
    }
    let ends = [(7, 305), (8, 455)];
    c.api = c
        .api
        .iter()
        .map(|mut a| {
            if let Some(&(_, end)) = ends.iter().find(|(id, _)| *id == a.correlation_id) {
                a.end_ns = end;
            }
            a
        })
        .collect();
    let mut call = c.api.iter().next().unwrap();
    (call.operation, call.correlation_id) = (5, 8);
    (call.start_ns, call.end_ns) = (310, 455);
    c.api.push(call);
    (call.operation, call.correlation_id) = (6, 9);
    (call.start_ns, call.end_ns) = (460, 470);
    c.api.push(call);
    // The capture's facts name the thread's device.
    c.calls = c
        .calls
        .iter()
        .map(|f| crate::model::events::CallFact { device: 0, ..f })
        .collect();
    for s in c.syncs.iter_mut() {
        s.device = 0;
    }
    let sync = |corr, kind, stream| SyncFact {
        correlation_id: corr,
        kind,
        event: 0,
        stream,
        device: 0,
        stream_seq: 0,
    };
    c.syncs.push(sync(8, SyncKind::StreamSynchronize, 0xb));
    c.syncs.push(sync(9, SyncKind::DeviceSynchronize, 0));
    c
}

/// What a window delivered by a cut: the API records of the calls returned by `api`, the
/// kernels ended by `kernels`, and the capture's facts of the calls entered by `facts`.
#[derive(Debug, Clone, Copy)]
struct CutAt {
    api: u64,
    kernels: u64,
    facts: u64,
}

/// `c`'s pieces delivered by `cut` (`before`), or after it.
fn delivered(
    mut c: crate::model::events::Collected,
    cut: CutAt,
    before: bool,
) -> crate::model::events::Collected {
    let entered: std::collections::HashMap<u64, u64> = c
        .api
        .iter()
        .map(|a| (a.correlation_id, a.start_ns))
        .collect();
    let by = |at: u64, t: u64| (at <= t) == before;
    let fact = |id: &u64| by(entered[id], cut.facts);
    c.api.retain(|a| by(a.end_ns, cut.api));
    let _ = c.kernels.split_where(|k| !by(k.end_ns, cut.kernels));
    c.calls.retain(|f| fact(&f.correlation_id));
    c.syncs.retain(|s| fact(&s.correlation_id));
    c.counters.api_records = c.api.len() as u64;
    c.counters.kernel_records = c.kernels.len() as u64;
    c
}

/// What the tests compare of a trace: each sync call's stats, each arrow with its anchors,
/// each HIP call's host event (thread, times, device work) and each kernel's line.
#[derive(Debug, Default, PartialEq)]
struct Shown {
    syncs: Vec<crate::model::trace::SyncCall>,
    flows: Vec<(u64, u64, Anchor, Anchor)>,
    calls: Vec<(u64, u64, u64, u64, u32)>,
    kernels: Vec<(u64, u32, i64, u64)>,
}

impl Shown {
    fn add(&mut self, t: &crate::model::Trace) {
        self.syncs.extend(t.sync_calls.iter().cloned());
        let flows = t.dependency_flows.iter();
        self.flows
            .extend(flows.map(|f| (f.wait_correlation_id, f.record_correlation_id, f.from, f.to)));
        for th in &t.host_threads {
            self.calls.extend(th.events.iter().map(|e| {
                (
                    e.correlation_id,
                    th.tid,
                    e.start_ns,
                    e.end_ns,
                    t.launched(e).0,
                )
            }));
        }
        for d in &t.devices {
            for l in &d.lines {
                let events = l.events.iter();
                self.kernels
                    .extend(events.map(|e| (e.correlation_id, d.ordinal, l.id, e.start_ns)));
            }
        }
    }

    fn sorted(mut self) -> Self {
        self.syncs.sort_by_key(|s| s.correlation_id);
        self.flows.sort_by_key(|f| f.0);
        self.calls.sort_unstable();
        self.kernels.sort_unstable();
        self
    }
}

/// Windows merged into one profile (`WINDOW_MERGE`, the default when a run outgrows a
/// window) show what the run held whole shows, wherever the cut falls around a step's
/// syncs: a cut at every time of the step, the API records, the kernel records and the
/// capture's facts each taken at a time of their own (the buffers are flushed one after
/// the other, and the facts are drained after them), the first window handing on what it
/// cannot join yet (`model::carry::hand_off`) and the second taking it in. Each
/// `hipEventSynchronize`, `hipStreamSynchronize` and `hipDeviceSynchronize` keeps its stats
/// (its stream, its resolved record), each arrow its anchors, each call its thread and
/// times, each kernel its line, and neither window counts a piece without the other.
#[test]
fn merged_windows_show_a_step_s_syncs_as_the_whole_run_wherever_the_cut_falls() {
    // The GPU behind the host, and the host behind the GPU: kernel 3 has ended before the
    // record after it is called, so a cut can fall between them, the kernel in the first
    // window and the record in the next.
    for host_behind in [false, true] {
        let mut run = last_step_with_syncs();
        if host_behind {
            let early = |k: crate::model::events::KernelRecord| match k.correlation_id {
                3 => crate::model::events::KernelRecord {
                    start_ns: 101,
                    end_ns: 107,
                    ..k
                },
                _ => k,
            };
            let kernels: Vec<_> = run.kernels.iter().map(early).collect();
            run.kernels = kernels.into();
        }
        every_cut_shows_the_whole_run(run);
    }
}

fn every_cut_shows_the_whole_run(run: crate::model::events::Collected) {
    use crate::model::carry::{hand_off, HandedOn, Windows};
    use crate::model::join::join_numbered;
    use crate::model::streams::StreamNumbers;
    let mut want = Shown::default();
    want.add(&crate::model::join::join(run.clone()));
    let want = want.sorted();
    assert_eq!(want.syncs.len(), 5);
    assert_eq!(want.flows.len(), 2);
    let mut times: Vec<u64> = run
        .api
        .iter()
        .flat_map(|a| [a.start_ns, a.end_ns])
        .chain(run.kernels.iter().flat_map(|k| [k.start_ns, k.end_ns]))
        .collect();
    times.push(0);
    times.sort_unstable();
    times.dedup();
    let mut cuts = 0;
    for &api in &times {
        for &kernels in &times {
            for &facts in times.iter().filter(|&&t| t >= api.max(kernels)) {
                let cut = CutAt {
                    api,
                    kernels,
                    facts,
                };
                let mut numbers = StreamNumbers::default();
                let mut first = delivered(run.clone(), cut, true);
                let mut next = delivered(run.clone(), cut, false);
                next.carried.producers.clear();
                let carried = hand_off(&mut first, &HandedOn::default(), Windows::Merged);
                let first = join_numbered(first, 1, &mut numbers);
                if let Some((mut held, _)) = carried {
                    held.carried.anchors = first.record_anchors.clone();
                    held.absorb(next);
                    next = held;
                }
                next.carried.stream_tails = first.stream_tails.clone();
                let next = join_numbered(next, 1, &mut numbers);
                let mut got = Shown::default();
                got.add(&first);
                got.add(&next);
                assert_eq!(got.sorted(), want, "{cut:?}");
                for t in [&first, &next] {
                    let c = &t.counters;
                    assert_eq!(
                        (
                            c.launches_without_activity,
                            c.activities_without_api,
                            c.waits_unresolved,
                            c.waits_without_arrow
                        ),
                        (0, 0, 0, 0),
                        "{cut:?}"
                    );
                }
                cuts += 1;
            }
        }
    }
    assert!(cuts > 500, "{cuts} cuts");
}
