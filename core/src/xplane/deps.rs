//! Synchronization stats on host API events, and the anchors of dependency arrows.
//!
//! xprof gives every event carrying `correlation_id` its launch arrow and keeps one flow per
//! event (the last it reads; its own `correlation_id` flow comes after ours), so a dependency
//! arrow cannot start or end on a kernel or an API call. Each end gets an anchor of its own: a
//! zero-duration event, without `correlation_id`, on the producer's or consumer's line, carrying
//! a `flow` stat. Launch arrows (category `gpu_launch`) and dependency arrows (category generic,
//! anchors named `HIP event record` / `HIP event wait`) then both survive.

use crate::fastmap::HashMap;

use super::builder::{Hot, LineBuilder, PlaneBuilder, StatBytes, StatIds};
use crate::model::corrmap::{id_range, CorrMap, Slot};
use crate::model::events::SyncKind;
use crate::model::{AnchorPlace, SyncCall, Trace};

// Stat names, on the pattern of CUPTI-based tools (`cuda_event` → `hip_event`, …). All ours.
pub const HIP_EVENT: &str = "hip_event";
pub const HIP_STREAM: &str = "hip_stream";
/// `hip_stream` of a call that waits for no single stream (`hipDeviceSynchronize`).
pub const NO_STREAM: i64 = -1;
pub const SYNC_TYPE: &str = "sync_type";
pub const WAIT_ON_HIP_EVENT_ID: &str = "wait_on_hip_event_id";
pub const WAIT_ON_STREAM: &str = "wait_on_stream";
pub const WAIT_ON_HIP_EVENT_RECORD_CORR_ID: &str = "wait_on_hip_event_record_corr_id";
/// Ours: the HSA queue a kernel ran on (lines are HIP streams).
pub const HSA_QUEUE: &str = "hsa_queue";
/// XLA's flow stat (`XFlow` packed value).
pub const FLOW: &str = "flow";
/// Ours, on anchors: the wait's correlation id.
pub const DEPENDENCY_OF: &str = "dependency_wait_corr_id";

pub const RECORD_ANCHOR: &str = "HIP event record";
pub const WAIT_ANCHOR: &str = "HIP event wait";

/// `XFlow` directions (bits 0–1).
const FLOW_OUT: u64 = 2;
const FLOW_IN: u64 = 1;
/// `ContextType::kGeneric`: not `gpu_launch`, so a user can filter the two kinds apart.
const FLOW_CATEGORY: u64 = 0;

/// The packed `flow` stat value: category in bits 58–63, id in 2–57, direction in 0–1.
pub fn flow_value(id: u64, out: bool) -> u64 {
    (FLOW_CATEGORY << 58) | ((id & ((1 << 56) - 1)) << 2) | if out { FLOW_OUT } else { FLOW_IN }
}

pub fn sync_type(kind: SyncKind) -> &'static str {
    match kind {
        SyncKind::EventRecord => "event_record",
        SyncKind::StreamWaitEvent => "stream_wait_event",
        SyncKind::EventSynchronize => "event_synchronize",
        SyncKind::EventQuery => "event_query",
        SyncKind::StreamSynchronize => "stream_synchronize",
        SyncKind::StreamQuery => "stream_query",
        SyncKind::DeviceSynchronize => "device_synchronize",
    }
}

/// Sync calls by correlation id, for the host plane's walk over every HIP call.
pub struct SyncIndex<'a> {
    calls: &'a [SyncCall],
    /// A vector over the calls' id range when they fill enough of it (a program that
    /// synchronizes every step has a sync call every few ids): the host plane asks for each
    /// call in its threads' id order, so the vector is walked nearly in order, where a hash
    /// map of them would miss the cache on every call, and 4 B per id is less than a map's
    /// entries take.
    by_id: CorrMap<Slot>,
}

impl<'a> SyncIndex<'a> {
    pub fn new(trace: &'a Trace) -> Self {
        let calls = &trace.sync_calls[..];
        let ids = || calls.iter().map(|c| c.correlation_id);
        let by_id = CorrMap::positions_of(id_range(ids()), calls.len(), ids().enumerate());
        SyncIndex { calls, by_id }
    }

    #[inline]
    pub fn get(&self, correlation_id: u64) -> Option<&'a SyncCall> {
        let calls = self.calls;
        self.by_id.get(&correlation_id).map(|s| &calls[s.index()])
    }

    /// Starts bringing `correlation_id`'s call into the cache, if it is one, and does not wait
    /// for it (where a read ahead stalled on each miss in turn, as the calls read in blocks did).
    #[inline]
    pub fn prefetch(&self, correlation_id: u64) {
        // A call's 56 bytes mostly straddle two cache lines (its kind is near its end).
        if let Some(c) = self.get(correlation_id) {
            crate::util::prefetch::prefetch(c);
        }
    }
}

/// The stats of a synchronization call's host event. The names' ids come from `ids` (no
/// hashing of the name per call: a program that synchronizes every step has a million of
/// these), interned in the order `PlaneBuilder::put` would, so the bytes are the same.
/// Asked for every HIP call, most of which are no sync call: that answer costs no call.
#[inline]
pub fn add_sync_stats(
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
    call: Option<&SyncCall>,
    stats: &mut StatBytes,
) {
    if let Some(c) = call {
        sync_stats(plane, ids, c, stats);
    }
}

#[inline(never)]
fn sync_stats(plane: &mut PlaneBuilder, ids: &mut StatIds, c: &SyncCall, stats: &mut StatBytes) {
    let stream = |plane: &mut PlaneBuilder, ids: &mut StatIds, stats: &mut StatBytes| {
        if let Some(n) = c.stream {
            stats.i64(ids.hot(plane, Hot::HipStream), i64::from(n));
        }
    };
    let sync_type = |plane: &mut PlaneBuilder, ids: &mut StatIds, stats: &mut StatBytes| {
        let id = ids.hot(plane, Hot::SyncType);
        stats.reference(id, ids.get(plane, sync_type(c.kind)));
    };
    match c.kind {
        SyncKind::EventRecord => {
            stats.u64(ids.hot(plane, Hot::HipEvent), c.event);
            stream(plane, ids, stats);
        }
        SyncKind::StreamWaitEvent | SyncKind::EventSynchronize | SyncKind::EventQuery => {
            sync_type(plane, ids, stats);
            stream(plane, ids, stats);
            stats.u64(ids.hot(plane, Hot::WaitOnHipEventId), c.event);
            if let Some(r) = c.resolved {
                if let Some(n) = r.stream {
                    stats.i64(ids.hot(plane, Hot::WaitOnStream), i64::from(n));
                }
                stats.u64(
                    ids.hot(plane, Hot::WaitOnHipEventRecordCorrId),
                    r.record_correlation_id.get(),
                );
            }
        }
        SyncKind::StreamSynchronize | SyncKind::StreamQuery => {
            sync_type(plane, ids, stats);
            stream(plane, ids, stats);
        }
        // It waits for every stream of the device and names none: -1, the value CUPTI gives
        // context/device synchronization records (CUPTI_SYNCHRONIZATION_INVALID_VALUE as int32)
        // and Kineto writes, so tools reading CUPTI-parity fields see "no stream", not stream 0.
        SyncKind::DeviceSynchronize => {
            sync_type(plane, ids, stats);
            stats.i64(ids.hot(plane, Hot::HipStream), NO_STREAM);
        }
    }
}

/// One anchor to write.
#[derive(Debug, Clone, Copy)]
pub struct AnchorEvent {
    pub time_ns: u64,
    pub flow: u64,
    pub out: bool,
    pub wait_correlation_id: u64,
}

/// Anchors per line, each line's in time order (ties in flow order). A flow's two ends lie
/// on the lines of its record and its wait, which the flows before it mostly used too: each
/// end's line is found from the last one that end used, and looked up by place only when it
/// changed; a line whose anchors came in time order is not sorted.
pub fn anchors_by_place(trace: &Trace) -> HashMap<AnchorPlace, Vec<AnchorEvent>> {
    let mut lines: Vec<(AnchorPlace, Vec<AnchorEvent>)> = Vec::new();
    let mut slot: HashMap<AnchorPlace, usize> = HashMap::default();
    // The line each end (record, wait) went to last.
    let mut last: [Option<usize>; 2] = [None; 2];
    for f in &trace.dependency_flows {
        for (end, a, out) in [(0, f.from, true), (1, f.to, false)] {
            let i = match last[end] {
                Some(i) if lines[i].0 == a.place => i,
                _ => *slot.entry(a.place).or_insert_with(|| {
                    lines.push((a.place, Vec::new()));
                    lines.len() - 1
                }),
            };
            last[end] = Some(i);
            lines[i].1.push(AnchorEvent {
                time_ns: a.time_ns,
                flow: flow_value(f.id, out),
                out,
                wait_correlation_id: f.wait_correlation_id,
            });
        }
    }
    lines
        .into_iter()
        .map(|(place, mut anchors)| {
            if !anchors.is_sorted_by_key(|a| a.time_ns) {
                anchors.sort_by_key(|a| a.time_ns);
            }
            (place, anchors)
        })
        .collect()
}

/// The anchors of one line, written among its events in time order: appended after the
/// events, they would make the line sort itself at `finish` (an index of 32 B per event and a
/// sorted copy of the whole line: on a host thread's line, the writer's peak). The order is
/// the one that sort gives: an anchor goes before the first event that starts after it, so an
/// event starting at the anchor's time comes first.
///
/// An anchor's two stats go through one buffer, their ids through the plane's `StatIds`, and
/// its name's id is looked up once per line (at the line's first anchor of each name, so the
/// plane's ids come in the order of first use): there is an anchor per recorded or awaited
/// event, and none allocates or hashes a name.
pub struct AnchorFeed<'a> {
    rest: &'a [AnchorEvent],
    stats: StatBytes,
    /// Event metadata ids of `RECORD_ANCHOR` and `WAIT_ANCHOR` (0 until first used).
    names: [i64; 2],
    /// The first of `rest`'s time on the line, once asked for.
    next_ps: Option<i64>,
}

impl<'a> AnchorFeed<'a> {
    pub fn new(anchors: Option<&'a Vec<AnchorEvent>>) -> Self {
        AnchorFeed {
            rest: anchors.map_or(&[], Vec::as_slice),
            stats: StatBytes::new(),
            names: [0; 2],
            next_ps: None,
        }
    }

    /// Anchors still to write.
    pub fn count(&self) -> usize {
        self.rest.len()
    }

    /// Writes the anchors that come before an event at `offset_ps` of `line` (`to_ps`: the
    /// line's times, the same at every call). Asked before every event of the line, and most
    /// have none before them: the next anchor's time is kept, a compare per event.
    #[inline]
    pub fn before(
        &mut self,
        plane: &mut PlaneBuilder,
        ids: &mut StatIds,
        line: &mut LineBuilder,
        offset_ps: i64,
        to_ps: impl Fn(u64) -> i64,
    ) {
        let Some(first) = self.rest.first() else {
            return;
        };
        let next = *self.next_ps.get_or_insert_with(|| to_ps(first.time_ns));
        if next < offset_ps {
            self.write_before(plane, ids, line, offset_ps, to_ps);
        }
    }

    #[inline(never)]
    fn write_before(
        &mut self,
        plane: &mut PlaneBuilder,
        ids: &mut StatIds,
        line: &mut LineBuilder,
        offset_ps: i64,
        to_ps: impl Fn(u64) -> i64,
    ) {
        self.next_ps = None;
        while let Some((a, rest)) = self.rest.split_first() {
            let at = to_ps(a.time_ns);
            if at >= offset_ps {
                self.next_ps = Some(at);
                break;
            }
            self.write(plane, ids, line, a, at);
            self.rest = rest;
        }
    }

    /// Writes the anchors after the line's last event.
    pub fn finish(
        mut self,
        plane: &mut PlaneBuilder,
        ids: &mut StatIds,
        line: &mut LineBuilder,
        to_ps: impl Fn(u64) -> i64,
    ) {
        for a in std::mem::take(&mut self.rest) {
            self.write(plane, ids, line, a, to_ps(a.time_ns));
        }
    }

    fn write(
        &mut self,
        plane: &mut PlaneBuilder,
        ids: &mut StatIds,
        line: &mut LineBuilder,
        a: &AnchorEvent,
        at: i64,
    ) {
        let (slot, name) = if a.out {
            (0, RECORD_ANCHOR)
        } else {
            (1, WAIT_ANCHOR)
        };
        if self.names[slot] == 0 {
            self.names[slot] = plane.event_metadata_id(name);
        }
        let s = &mut self.stats;
        s.clear();
        s.u64(ids.hot(plane, Hot::Flow), a.flow);
        s.u64(ids.hot(plane, Hot::DependencyOf), a.wait_correlation_id);
        line.add_event(self.names[slot], at, 0, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A roctx label in XLA's `name#k=v#` form cannot forge or duplicate the sync stats.
    #[test]
    fn labels_cannot_forge_sync_stats() {
        use crate::model::{Annotation, HostEvent, HostEventKind, HostThread, ResolvedWait};
        use std::sync::Arc;
        let label = "step#hip_stream=99,wait_on_hip_event_id=1,sync_type=x,keep=1#";
        let mut names = crate::model::Table::default();
        let name = names.push(Arc::from("hipStreamWaitEvent"));
        let mut annotations = crate::model::Table::default();
        let annotation = annotations.push(Annotation {
            stack: vec![Arc::from(label)].into(),
            ..Annotation::default()
        });
        let trace = Trace {
            names,
            annotations,
            start_boottime_ns: 1,
            host_threads: vec![HostThread {
                tid: 7,
                name: String::new(),
                events: vec![HostEvent {
                    name,
                    start_ns: 10,
                    end_ns: 20,
                    correlation_id: 5,
                    kind: HostEventKind::HipApi,
                    annotation: Some(annotation),
                    device: crate::model::Ordinal16::NONE,
                    launched: crate::model::Launched::count(0),
                }],
            }],
            sync_calls: vec![SyncCall {
                correlation_id: 5,
                kind: SyncKind::StreamWaitEvent,
                event: 0xe0,
                stream: Some(2),
                device: Some(0),
                resolved: Some(ResolvedWait {
                    record_correlation_id: std::num::NonZeroU64::new(4).unwrap(),
                    stream: Some(1),
                    device: Some(0),
                }),
            }],
            ..Trace::default()
        };
        let space = crate::xplane::build_xspace(&trace);
        let host = &space.planes[0];
        let ev = &host.lines[0].events[0];
        let named = |n: &str| -> Vec<&super::super::proto::XStat> {
            ev.stats
                .iter()
                .filter(|s| host.stat_metadata[&s.metadata_id].name == n)
                .collect()
        };
        use super::super::proto::x_stat::Value;
        assert_eq!(named(HIP_STREAM).len(), 1);
        assert_eq!(named(HIP_STREAM)[0].value, Some(Value::Int64Value(2)));
        assert_eq!(
            named(WAIT_ON_HIP_EVENT_ID)[0].value,
            Some(Value::Uint64Value(0xe0))
        );
        assert_eq!(named(SYNC_TYPE).len(), 1);
        assert_eq!(named(WAIT_ON_STREAM)[0].value, Some(Value::Int64Value(1)));
        assert_eq!(
            named(WAIT_ON_HIP_EVENT_RECORD_CORR_ID)[0].value,
            Some(Value::Uint64Value(4))
        );
        assert_eq!(named("keep").len(), 1, "other label keys still pass");
    }

    #[test]
    fn flow_values_pack_as_xla_does() {
        // XFlow: (category << 58) | (id << 2) | direction; out = 2, in = 1.
        assert_eq!(flow_value(12345, true), 12345 * 4 + 2);
        assert_eq!(flow_value(12345, false), 12345 * 4 + 1);
    }
}
