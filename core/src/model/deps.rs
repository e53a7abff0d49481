//! Inter-stream dependencies: who produced the event a wait waited for.
//!
//! `hipEventRecord` calls (the sync facts of that kind) are indexed by event handle, each
//! handle's in a vector sorted by correlation id. A wait resolves to the
//! latest record whose correlation id is strictly below its own: correlation ids are handed out
//! in call order, so this is the record the runtime had seen when the wait was issued, whatever
//! order the callbacks arrived in. Handles are reused (one event recorded many times), so only
//! that rule — not "the last record seen" — gives the right producer.
//!
//! The pass at the end of this file turns each resolved wait into a flow between two anchors:
//! the producer (the last GPU activity on the recording stream before the record, else the
//! record call) and the consumer (the first GPU activity on the waiting stream after the wait,
//! else the wait call itself, as for host syncs).

use crate::fastmap::HashMap;
use crate::util::search::Hints;

use super::streams::{stream_key, StreamFacts, StreamIndex, StreamKey};
use super::trace::{Anchor, AnchorPlace, DependencyFlow, ResolvedWait, StreamTail, SyncCall};
use crate::facts::{ApiRecord, HipEventOp, SyncFact, SyncKind};

/// One `hipEventRecord`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Producer {
    pub correlation_id: u64,
    /// Raw `hipStream_t` of the record (0 = null stream: a real producer).
    pub stream: u64,
    /// Creation order of that stream (`CallFact::stream_seq`).
    pub stream_seq: u64,
    /// HIP device of the stream, -1 when unknown.
    pub device: i32,
}

/// The `hipEventRecord`s by event handle, every device's merged in correlation order: what
/// waits are resolved in (one probe and a binary search per wait). They are the sync facts of
/// that kind (`of`), which the application threads keep anyway: indexed at finalize, they
/// cost the application threads no lock and no map of their own per `hipEventRecord`.
#[derive(Debug, Default)]
pub struct ProducerIndex {
    /// Each event's slot in `records` (the slot also keys its [`ProducerNear`] hint).
    by_event: HashMap<u64, usize>,
    records: Vec<Vec<Producer>>,
}

impl ProducerIndex {
    /// The producers of a collection: its `hipEventRecord` sync facts (`syncs`, and the
    /// earlier windows' latest records handed on to it).
    pub fn of<'s>(syncs: impl IntoIterator<Item = &'s SyncFact>) -> Self {
        Self::of_records(
            syncs
                .into_iter()
                .filter(|s| s.kind == SyncKind::EventRecord)
                .map(|s| {
                    (
                        s.event,
                        Producer {
                            correlation_id: s.correlation_id,
                            stream: s.stream,
                            stream_seq: s.stream_seq,
                            device: s.device,
                        },
                    )
                }),
        )
    }

    fn of_records(records: impl IntoIterator<Item = (u64, Producer)>) -> Self {
        let mut by_event: HashMap<u64, usize> = HashMap::default();
        let mut of_event: Vec<Vec<Producer>> = Vec::new();
        for (event, p) in records {
            let slot = *by_event.entry(event).or_insert_with(|| {
                of_event.push(Vec::new());
                of_event.len() - 1
            });
            of_event[slot].push(p);
        }
        for v in &mut of_event {
            // A call is recorded on one device only: correlation ids do not tie (if they did,
            // the order would still be the same every run); a call seen twice is one record.
            // An event's records come as each recording thread's run in id order, one after
            // another: a stable sort merges the runs, where an unstable one sorts them again.
            v.sort_by_key(|p| (p.correlation_id, p.device, p.stream, p.stream_seq));
            v.dedup_by_key(|p| p.correlation_id);
        }
        ProducerIndex {
            by_event,
            records: of_event,
        }
    }

    /// The latest record of `event`, on any device, with a correlation id strictly below
    /// `wait_correlation_id` (upper bound, then one back), searched from where `event`'s last
    /// answer was (`near`).
    pub fn resolve_near(
        &self,
        event: u64,
        wait_correlation_id: u64,
        near: &mut ProducerNear,
    ) -> Option<Producer> {
        let &slot = self.by_event.get(&event)?;
        let v = self.records.get(slot)?;
        let i = near.partition_point(slot, v, |q| q.correlation_id < wait_correlation_id);
        i.checked_sub(1).map(|i| v[i])
    }
}

/// Where each event's records were last searched, as [`super::streams::Near`] for the
/// streams' activities: an event recorded every step has hundreds of thousands of records.
pub type ProducerNear = Hints;

/// Where and when a call ended: all a host anchor takes of its API record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallEnd {
    pub thread_id: u64,
    pub end_ns: u64,
}

/// The ends of the calls a dependency may be anchored at on the host: the waits that draw an
/// arrow, and every `hipEventRecord`. Copied out of the API records so that the dependency pass can
/// run beside the host events pass, which consumes those records; a few calls per step, where
/// the records are every call. Sorted by correlation id: made in that order, the API records
/// (in delivery order, close to it) are read nearly in order, where a hash map's inserts
/// missed the cache on every call.
#[derive(Debug, Default)]
pub struct CallEnds {
    ids: Vec<u64>,
    ends: Vec<CallEnd>,
}

impl CallEnds {
    /// The ends of `syncs`' waits and records (the producers), from the API record of each id
    /// (`api`).
    pub fn of(syncs: &[SyncFact], api: impl Fn(u64) -> Option<ApiRecord>) -> Self {
        let mut ids: Vec<u64> = Self::wanted(syncs).collect();
        // The facts come as each thread's run in id order, one after another: a stable sort
        // merges the runs, where an unstable one sorts them again from scratch.
        ids.sort();
        ids.dedup();
        let mut ends = Vec::with_capacity(ids.len());
        ids.retain(|&corr| match api(corr) {
            Some(a) => {
                ends.push(CallEnd {
                    thread_id: a.thread_id,
                    end_ns: a.end_ns.max(a.start_ns),
                });
                true
            }
            None => false,
        });
        ids.shrink_to_fit();
        CallEnds { ids, ends }
    }

    /// The ids of `syncs` whose calls' ends are kept (`of`): the waits' and the records'.
    pub fn wanted(syncs: &[SyncFact]) -> impl Iterator<Item = u64> + '_ {
        syncs
            .iter()
            .filter(|s| s.kind == SyncKind::EventRecord || s.kind.draws_arrow())
            .map(|s| s.correlation_id)
    }

    pub fn get(&self, correlation_id: u64) -> Option<CallEnd> {
        let i = self.ids.binary_search(&correlation_id).ok()?;
        self.ends.get(i).copied()
    }
}

/// Flow ids: below 2^53 (xprof's viewer reads them as JavaScript numbers), with bit 52 set and a
/// per-host value in bits 36–51 so two hosts' ids differ when xprof merges them; the wait's
/// correlation id in the low 36 bits.
pub fn flow_id(host_salt: u64, wait_correlation_id: u64) -> u64 {
    (1 << 52) | ((host_salt & 0xffff) << 36) | (wait_correlation_id & ((1 << 36) - 1))
}

/// FNV-1a of host name and pid: the per-host part of flow ids.
pub fn host_salt(hostname: &str, pid: u32) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in hostname.bytes().chain(pid.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h ^ (h >> 32)
}

/// What the dependency pass needs from the rest of the join.
pub struct DepInputs<'a> {
    pub producers: &'a ProducerIndex,
    pub streams: &'a StreamIndex,
    /// The lines of each GPU plane, where the stream index finds its activities' times.
    pub lines_of: super::streams::LinesOf<'a>,
    /// HIP device number → GPU plane.
    pub plane_of: &'a dyn Fn(i32) -> Option<u32>,
    /// The ends of the calls that can be host anchors.
    pub call_ends: &'a CallEnds,
    /// GPU-side completion of each HIP event barrier, by (call correlation id, operation), when
    /// the runtime traces HIP events (`HIP_EVENT`, after SDK 1.3.5).
    pub barriers: &'a HashMap<(u64, HipEventOp), u64>,
    /// Where the arrows from records of earlier windows start (`Carried::anchors`):
    /// only when the run's windows are merged into one profile.
    pub earlier_anchors: &'a HashMap<u64, Anchor>,
    /// Where each stream's last work in earlier windows ended (`Carried::stream_tails`):
    /// only when the run's windows are merged into one profile.
    pub earlier_tails: &'a HashMap<(u32, StreamKey), StreamTail>,
    pub host_salt: u64,
}

/// Where an arrow from record `p` starts: the GPU-side completion of its barrier, else the
/// last activity on its stream before it, else where an earlier window found it
/// (`DepInputs::earlier_anchors`), else where its stream's last work in earlier windows
/// ended (`DepInputs::earlier_tails`: the record came after a cut that had all the work
/// before it), else the end of the record call. The window's own work
/// comes before the earlier window's finding: a record handed on with the work before it
/// (not delivered at the cut) finds that work here, where the earlier window could only find
/// older work; a record handed on without it (it returned after the cut, or went on as a
/// producer only) has no work of its stream before it here, the work before it being held
/// with it when it is held.
fn producer_anchor(
    i: &DepInputs<'_>,
    p: &Producer,
    at: StreamAt,
    near: &mut super::streams::Near,
) -> Option<Anchor> {
    at.plane
        .and_then(|pl| {
            barrier_anchor(i, pl, at.facts, p.correlation_id, HipEventOp::Record).or_else(|| {
                let slot = at.facts.activities?;
                i.streams
                    .last_before(i.lines_of, pl, slot, p.correlation_id, near)
            })
        })
        .or_else(|| i.earlier_anchors.get(&p.correlation_id).copied())
        .or_else(|| {
            let tail = i.earlier_tails.get(&(at.plane?, at.key))?;
            (tail.correlation_id < p.correlation_id).then_some(tail.anchor)
        })
        .or_else(|| host_anchor(i, p.correlation_id))
}

/// A stream a sync fact names, as the dependency pass reads it: its GPU plane, its key and
/// what the stream index holds of it.
#[derive(Debug, Clone, Copy)]
struct StreamAt {
    plane: Option<u32>,
    key: StreamKey,
    facts: StreamFacts,
}

/// The streams the sync facts name, each looked up once (`StreamAt`): a program's few
/// streams, named by every record and wait, where each fact asked its device's plane, its
/// stream's number and its activities one map at a time, twice for a wait (its stream and
/// its record's). (The facts come in id order, every thread's streams in turn: a few streams
/// compared before the probe cost more than they saved.)
#[derive(Default)]
struct StreamMemo(HashMap<(i32, u64, u64), StreamAt>);

impl StreamMemo {
    fn at(&mut self, i: &DepInputs<'_>, device: i32, stream: u64, stream_seq: u64) -> StreamAt {
        *self
            .0
            .entry((device, stream, stream_seq))
            .or_insert_with(|| {
                let plane = (i.plane_of)(device);
                let key = stream_key(stream, stream_seq);
                StreamAt {
                    plane,
                    key,
                    facts: plane.map_or_else(StreamFacts::default, |p| i.streams.facts(p, key)),
                }
            })
    }
}

/// The most streams whose last work a window hands on (`stream_tails`), those of the latest
/// work kept: a program that makes a stream per step and never destroys it must not make
/// every window carry them all.
pub const MAX_STREAM_TAILS: usize = 4096;

/// Where the last work on each stream ended, this window's (from its lines) over `tails`
/// (the windows' before it, by stream: `DepInputs::earlier_tails`), for the next window of a run merged into one profile: at most
/// [`MAX_STREAM_TAILS`], sorted by stream.
pub fn stream_tails(
    mut tails: HashMap<(u32, StreamKey), StreamTail>,
    streams: &StreamIndex,
    lines_of: super::streams::LinesOf<'_>,
) -> Vec<StreamTail> {
    for (plane, key, line) in streams.stream_lines() {
        let Some(lines) = lines_of(plane) else {
            continue;
        };
        let Ok(k) = lines.binary_search_by_key(&line, |l| l.id) else {
            continue;
        };
        let events = &lines[k].events;
        let Some(last) = events.last() else {
            continue;
        };
        // A graph launch's dispatches share its id: the one ending last.
        let end = events
            .iter()
            .rev()
            .take_while(|e| e.correlation_id == last.correlation_id)
            .map(|e| e.end_ns)
            .max()
            .unwrap_or(last.end_ns);
        let tail = StreamTail {
            plane,
            key,
            correlation_id: last.correlation_id,
            anchor: Anchor::on_device(plane, line, end),
        };
        tails.insert((plane, key), tail);
    }
    let mut tails: Vec<StreamTail> = tails.into_values().collect();
    if tails.len() > MAX_STREAM_TAILS {
        tails.sort_unstable_by_key(|t| std::cmp::Reverse(t.correlation_id));
        tails.truncate(MAX_STREAM_TAILS);
    }
    tails.sort_unstable_by_key(|t| (t.plane, t.key));
    tails
}

/// Where the arrows from `records` start (each that has a start), by correlation id: for the
/// next window of a run merged into one profile, which may have waits on them.
pub fn record_anchors<'s>(
    i: &DepInputs<'_>,
    records: impl IntoIterator<Item = &'s SyncFact>,
) -> Vec<(u64, Anchor)> {
    let mut near = super::streams::Near::default();
    let mut streams = StreamMemo::default();
    records
        .into_iter()
        .filter(|s| s.kind == SyncKind::EventRecord && s.correlation_id != 0)
        .filter_map(|s| {
            let p = Producer {
                correlation_id: s.correlation_id,
                stream: s.stream,
                stream_seq: s.stream_seq,
                device: s.device,
            };
            let at = streams.at(i, p.device, p.stream, p.stream_seq);
            producer_anchor(i, &p, at, &mut near).map(|a| (s.correlation_id, a))
        })
        .collect()
}

/// Resolves every sync call and builds the dependency flows.
pub fn resolve_dependencies(
    mut syncs: Vec<SyncFact>,
    i: &DepInputs<'_>,
    counters: &mut super::Counters,
) -> (Vec<SyncCall>, Vec<DependencyFlow>) {
    use crate::util::buffers::{Backwards, FromTheEnd};
    syncs.retain(|s| s.correlation_id != 0);
    // Stable: of a call seen twice, the first is kept.
    crate::util::sort::sort_by_time(&mut syncs, |s| s.correlation_id, |_| ());
    syncs.dedup_by_key(|s| s.correlation_id);
    // The facts are taken from the end and given back as the calls are made, so the two are
    // never held whole at once (a program that synchronizes every few launches has a sync
    // call per few records, and they can be the join's peak). The calls
    // and the arrows (at most one per wait) are made last to first, each in one vector grown
    // by eighths towards its count, and turned around in place (`Backwards::in_place`: the
    // calls are at the join's peak, where chunks joined at the end would hold them twice).
    let total = syncs.len();
    let arrows = syncs.iter().filter(|s| s.kind.draws_arrow()).count();
    let mut calls = Backwards::in_place(total);
    let mut flows = Backwards::in_place(arrows);
    let mut syncs = FromTheEnd::new(syncs);
    let mut near = super::streams::Near::default();
    let mut producers_near = ProducerNear::default();
    let mut streams = StreamMemo::default();
    while let Some(s) = syncs.next() {
        let at = streams.at(i, s.device, s.stream, s.stream_seq);
        let waits_on_event = s.kind.waits_on_event();
        let producer = if waits_on_event {
            // The records are sync facts, restamped with their streams' creations already
            // (`streams::restamp`).
            i.producers
                .resolve_near(s.event, s.correlation_id, &mut producers_near)
        } else {
            None
        };
        if waits_on_event {
            if producer.is_some() {
                counters.waits_resolved += 1;
            } else {
                counters.waits_unresolved += 1;
            }
        }
        let produced_at = producer.map(|p| (p, streams.at(i, p.device, p.stream, p.stream_seq)));
        let resolved = produced_at.and_then(|(p, pat)| {
            Some(ResolvedWait {
                record_correlation_id: std::num::NonZeroU64::new(p.correlation_id)?,
                stream: pat.facts.number.and_then(narrow),
                device: pat.plane.and_then(narrow),
            })
        });
        calls.push(SyncCall {
            correlation_id: s.correlation_id,
            kind: s.kind,
            event: s.event,
            stream: at
                .facts
                .number
                .filter(|_| s.kind.names_a_stream())
                .and_then(narrow),
            device: at.plane.and_then(narrow),
            resolved,
        });
        // Queries do not wait: no arrow.
        let Some((p, pat)) = produced_at.filter(|_| s.kind.draws_arrow()) else {
            continue;
        };
        let from = producer_anchor(i, &p, pat, &mut near);
        let to = match (s.kind, at.plane) {
            (SyncKind::StreamWaitEvent, Some(pl)) => {
                barrier_anchor(i, pl, at.facts, s.correlation_id, HipEventOp::Wait)
                    .or_else(|| {
                        let slot = at.facts.activities?;
                        i.streams
                            .first_after(i.lines_of, pl, slot, s.correlation_id, &mut near)
                    })
                    .or_else(|| host_anchor(i, s.correlation_id))
            }
            _ => host_anchor(i, s.correlation_id),
        };
        if from.is_none() {
            counters.waits_without_arrow += 1;
        }
        if let (Some(from), Some(to)) = (from, to) {
            flows.push(DependencyFlow {
                id: flow_id(i.host_salt, s.correlation_id),
                wait_correlation_id: s.correlation_id,
                record_correlation_id: p.correlation_id,
                from,
                to,
            });
        }
    }
    let mut flows = flows.into_vec();
    // Waits left unresolved leave their room unused.
    flows.shrink_to_fit();
    (calls.into_vec(), flows)
}

/// A stream number or plane in the width `SyncCall` keeps (none is ever past it: a run has
/// a few planes and streams).
fn narrow<T: TryFrom<U>, U>(v: U) -> Option<T> {
    T::try_from(v).ok()
}

/// The GPU-side completion of a call's HIP event barrier, on its stream's line: where the
/// runtime traces HIP events, the record completes when the work before it has, and the wait
/// when the waiting stream may go on — better anchors than the neighbouring activities. A
/// runtime that traces none leaves the map empty, and no call probes it.
fn barrier_anchor(
    i: &DepInputs<'_>,
    plane: u32,
    stream: StreamFacts,
    correlation_id: u64,
    op: HipEventOp,
) -> Option<Anchor> {
    if i.barriers.is_empty() {
        return None;
    }
    let &time_ns = i.barriers.get(&(correlation_id, op))?;
    Some(Anchor::on_device(plane, stream.line?, time_ns))
}

/// A point at the end of an API call, on its thread's line.
fn host_anchor(i: &DepInputs<'_>, correlation_id: u64) -> Option<Anchor> {
    i.call_ends.get(correlation_id).map(|a| Anchor {
        place: AnchorPlace::Host { tid: a.thread_id },
        time_ns: a.end_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hipEventRecord`s gathered in any order, indexed as the join indexes the sync facts
    /// (`ProducerIndex::of`).
    #[derive(Debug, Clone, Default)]
    struct ProducerMap {
        records: Vec<(u64, Producer)>,
    }

    impl ProducerMap {
        fn record(&mut self, event: u64, p: Producer) {
            self.records.push((event, p));
        }

        fn into_index(self) -> ProducerIndex {
            ProducerIndex::of_records(self.records)
        }

        fn resolve(&self, event: u64, wait_correlation_id: u64) -> Option<Producer> {
            self.clone().into_index().resolve_near(
                event,
                wait_correlation_id,
                &mut ProducerNear::default(),
            )
        }
    }

    fn p(corr: u64, stream: u64) -> Producer {
        Producer {
            correlation_id: corr,
            stream,
            stream_seq: stream,
            device: 0,
        }
    }

    /// Every wait resolves to the latest record of its handle strictly before it, on any
    /// device, checked against every record by brute force: reused handles, one handle's
    /// records on several devices, records in any order, waits before, between and after them
    /// (the model tests' deterministic generator; no new dependency).
    #[test]
    fn the_index_resolves_every_wait_to_the_latest_record_before_it() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| crate::model::next_random(&mut x) % n;
        for round in 0..50 {
            let mut m = ProducerMap::default();
            // A call is one record on one device: distinct ids, recorded in any order.
            let mut ids: Vec<u64> = (1..=400).filter(|_| next(3) == 0).collect();
            for i in (1..ids.len()).rev() {
                ids.swap(i, next(i as u64 + 1) as usize);
            }
            let mut recorded = Vec::new();
            for &id in ids.iter().take(20 + round * 2) {
                let mut r = p(id, next(4));
                r.device = next(3) as i32 - 1;
                let event = next(6);
                m.record(event, r);
                recorded.push((event, r));
            }
            let waits: Vec<(u64, u64)> = (0..200).map(|_| (next(7), next(420))).collect();
            let want: Vec<Option<Producer>> = waits
                .iter()
                .map(|&(e, w)| {
                    recorded
                        .iter()
                        .filter(|(event, r)| *event == e && r.correlation_id < w)
                        .map(|&(_, r)| r)
                        .max_by_key(|r| r.correlation_id)
                })
                .collect();
            let index = m.into_index();
            // Each wait on its own, searched from its event's end.
            let got: Vec<Option<Producer>> = waits
                .iter()
                .map(|&(e, w)| index.resolve_near(e, w, &mut ProducerNear::default()))
                .collect();
            assert_eq!(got, want, "round {round}");
            assert!(want.iter().any(Option::is_some) && want.iter().any(Option::is_none));
            // Searched from each event's last answer: in any order, and falling as the
            // dependency stage asks.
            let mut near = ProducerNear::default();
            let got: Vec<Option<Producer>> = waits
                .iter()
                .map(|&(e, w)| index.resolve_near(e, w, &mut near))
                .collect();
            assert_eq!(got, want, "round {round}, in any order");
            let mut falling: Vec<usize> = (0..waits.len()).collect();
            falling.sort_by_key(|&k| std::cmp::Reverse(waits[k].1));
            let mut near = ProducerNear::default();
            for k in falling {
                let (e, w) = waits[k];
                assert_eq!(
                    index.resolve_near(e, w, &mut near),
                    want[k],
                    "round {round}"
                );
            }
        }
    }

    #[test]
    fn a_wait_resolves_to_the_latest_record_strictly_before_it() {
        let mut m = ProducerMap::default();
        m.record(0xe, p(100, 1));
        m.record(0xe, p(200, 2));
        assert_eq!(m.resolve(0xe, 101).map(|p| p.correlation_id), Some(100));
        assert_eq!(m.resolve(0xe, 201).map(|p| p.correlation_id), Some(200));
        assert_eq!(m.resolve(0xe, 100), None, "strictly below");
        assert_eq!(m.resolve(0xe, 50), None, "recorded only after the wait");
        assert_eq!(m.resolve(0xf, 500), None, "never recorded");
    }

    #[test]
    fn resolution_does_not_depend_on_arrival_order() {
        let recs = [p(10, 1), p(30, 2), p(20, 0), p(40, 1), p(35, 3)];
        let waits = [5u64, 11, 21, 31, 36, 41, 1000];
        let expect: Vec<Option<u64>> = {
            let mut m = ProducerMap::default();
            for r in recs {
                m.record(7, r);
            }
            waits
                .iter()
                .map(|&w| m.resolve(7, w).map(|p| p.correlation_id))
                .collect()
        };
        assert_eq!(
            expect,
            vec![
                None,
                Some(10),
                Some(20),
                Some(30),
                Some(35),
                Some(40),
                Some(40)
            ]
        );
        // Every permutation of the five records (120) gives the same answers.
        let mut idx = [0usize, 1, 2, 3, 4];
        let mut count = 0;
        permute(&mut idx, 0, &mut |order| {
            let mut m = ProducerMap::default();
            for &k in order {
                m.record(7, recs[k]);
            }
            let got: Vec<Option<u64>> = waits
                .iter()
                .map(|&w| m.resolve(7, w).map(|p| p.correlation_id))
                .collect();
            assert_eq!(got, expect, "order {order:?}");
            count += 1;
        });
        assert_eq!(count, 120);
    }

    fn permute(a: &mut [usize; 5], k: usize, f: &mut dyn FnMut(&[usize])) {
        if k == a.len() {
            f(a);
            return;
        }
        for i in k..a.len() {
            a.swap(k, i);
            permute(a, k + 1, f);
            a.swap(k, i);
        }
    }

    /// Records and waits on streams that share a handle across devices and reuse one on a
    /// device (two creations), in an order that turns from stream to stream: each call, its
    /// resolved record and its arrow's ends name what the stream index gives for that call's
    /// own (plane, stream), looked up on its own.
    #[test]
    fn each_sync_takes_the_stream_of_its_own_device_and_creation() {
        use crate::model::streams::{build_lines, tests::ev, Near};
        // (device, handle, creation): handle 0xa on both devices, created twice on device 0.
        let streams: [(i32, u64, u64); 5] = [
            (0, 0xa, 3),
            (0, 0xa, 40),
            (1, 0xa, 5),
            (1, 0xb, 7),
            (0, 0, 0),
        ];
        let key = |&(_, h, seq): &(i32, u64, u64)| stream_key(h, seq);
        let mut grouped = std::collections::BTreeMap::new();
        let mut syncs = Vec::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for step in 0..60u64 {
            let corr = 100 + 10 * step;
            let s = streams[(crate::util::next_random(&mut x) % 5) as usize];
            let w = streams[(crate::util::next_random(&mut x) % 5) as usize];
            let fact = |(device, stream, stream_seq): (i32, u64, u64), corr, kind| SyncFact {
                correlation_id: corr,
                kind,
                event: 1 + step % 3,
                stream,
                device,
                stream_seq,
            };
            // Work on the recording stream before the record, on the waiting one after.
            for (st, c) in [(s, corr), (w, corr + 3)] {
                grouped
                    .entry((st.0 as u32, key(&st)))
                    .or_insert_with(Vec::new)
                    .push(ev(c, c * 10, c * 10 + 5));
            }
            syncs.push(fact(s, corr + 1, SyncKind::EventRecord));
            syncs.push(fact(w, corr + 2, SyncKind::StreamWaitEvent));
        }
        let known = syncs.iter().map(|f| {
            (
                f.device as u32,
                stream_key(f.stream, f.stream_seq),
                f.correlation_id,
            )
        });
        let (lines, index) = build_lines(grouped, known, &mut 0);
        let producers = ProducerIndex::of(&syncs);
        let lines_of = |p: u32| lines.get(&p).map(Vec::as_slice);
        let plane_of = |d: i32| u32::try_from(d).ok();
        let (call_ends, barriers) = (CallEnds::default(), HashMap::default());
        let (earlier_anchors, earlier_tails) = (HashMap::default(), HashMap::default());
        let inputs = DepInputs {
            producers: &producers,
            streams: &index,
            lines_of: &lines_of,
            plane_of: &plane_of,
            call_ends: &call_ends,
            barriers: &barriers,
            earlier_anchors: &earlier_anchors,
            earlier_tails: &earlier_tails,
            host_salt: 0,
        };
        let (calls, flows) = resolve_dependencies(
            syncs.clone(),
            &inputs,
            &mut super::super::Counters::default(),
        );
        // Every wait comes right after a record of its event: each draws an arrow.
        assert_eq!((calls.len(), flows.len()), (120, 60));
        let number = |f: &SyncFact| {
            let n = index.number(f.device as u32, stream_key(f.stream, f.stream_seq));
            n.and_then(|n| i32::try_from(n).ok())
        };
        let fact_of = |corr: u64| syncs.iter().find(|f| f.correlation_id == corr).unwrap();
        for c in &calls {
            let f = fact_of(c.correlation_id);
            assert_eq!(c.stream, number(f), "call {}", c.correlation_id);
            assert_eq!(c.device, u16::try_from(f.device).ok());
            if let Some(r) = c.resolved {
                let record = fact_of(r.record_correlation_id.get());
                assert_eq!(r.stream, number(record), "record of {}", c.correlation_id);
            }
        }
        for flow in &flows {
            let (record, wait) = (
                fact_of(flow.record_correlation_id),
                fact_of(flow.wait_correlation_id),
            );
            // Each stream's plane and activities looked up on their own.
            let on = |f: &SyncFact| {
                let plane = f.device as u32;
                let facts = index.facts(plane, stream_key(f.stream, f.stream_seq));
                (plane, facts.activities.unwrap())
            };
            let (rp, rs) = on(record);
            let (wp, ws) = on(wait);
            let near = &mut Near::default();
            let from = index.last_before(&lines_of, rp, rs, record.correlation_id, near);
            let to = index.first_after(&lines_of, wp, ws, wait.correlation_id, near);
            assert_eq!(
                (Some(flow.from), Some(flow.to)),
                (from, to),
                "wait {}",
                wait.correlation_id
            );
        }
    }

    #[test]
    fn null_stream_producer_is_resolved_and_devices_are_searched() {
        let mut m = ProducerMap::default();
        m.record(9, p(10, 0));
        m.record(
            9,
            Producer {
                device: 1,
                ..p(15, 4)
            },
        );
        let got = m.resolve(9, 12).unwrap();
        assert_eq!((got.correlation_id, got.stream), (10, 0));
        assert_eq!(m.resolve(9, 16).unwrap().device, 1);
    }

    #[test]
    fn call_ends_hold_the_waits_and_records_that_have_an_api_record() {
        use crate::facts::ApiDomain;
        let record = |corr: u64| ApiRecord {
            domain: ApiDomain::Hip,
            operation: 1,
            correlation_id: corr,
            external_id: 0,
            start_ns: corr * 10,
            // One call's end before its start: the anchor takes the start.
            end_ns: if corr == 30 { 1 } else { corr * 10 + 5 },
            thread_id: corr + 100,
        };
        let sync = |corr, kind| SyncFact {
            correlation_id: corr,
            kind,
            event: 1,
            stream: 0,
            device: 0,
            stream_seq: 0,
        };
        let syncs = [
            // The records (the producers), one of them also a wait's id.
            sync(30, SyncKind::EventRecord),
            sync(10, SyncKind::EventRecord),
            sync(20, SyncKind::EventRecord),
            sync(50, SyncKind::EventSynchronize),
            sync(20, SyncKind::StreamWaitEvent),
            // No arrow: a query waits for nothing, a stream sync names no event.
            sync(40, SyncKind::EventQuery),
            sync(60, SyncKind::StreamSynchronize),
            // No record of this call.
            sync(70, SyncKind::EventSynchronize),
        ];
        let records: Vec<ApiRecord> = [10, 20, 30, 40, 50, 60].map(record).into();
        let ends = CallEnds::of(&syncs, |corr| {
            records.iter().find(|a| a.correlation_id == corr).copied()
        });
        let end = |tid, end_ns| {
            Some(CallEnd {
                thread_id: tid,
                end_ns,
            })
        };
        assert_eq!(ends.get(10), end(110, 105));
        assert_eq!(ends.get(20), end(120, 205));
        assert_eq!(ends.get(30), end(130, 300));
        assert_eq!(ends.get(50), end(150, 505));
        for absent in [0, 40, 60, 70, 15, 99] {
            assert_eq!(ends.get(absent), None, "{absent}");
        }
        assert_eq!(ends.ids, vec![10, 20, 30, 50]);
    }

    #[test]
    fn flow_ids_stay_below_2_53_and_differ_by_host() {
        let a = flow_id(host_salt("node-a", 1), u64::MAX);
        let b = flow_id(host_salt("node-b", 1), u64::MAX);
        assert!(a < 1 << 53 && b < 1 << 53);
        assert_ne!(a, b);
        assert_ne!(flow_id(7, 1), flow_id(7, 2));
    }
}
