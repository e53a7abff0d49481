//! An event's stats as wire bytes, and the ids of the stat names every event carries.

use super::PlaneBuilder;
use crate::wire::xplane as fields;
use crate::xplane::proto::XStat;

/// Stat metadata ids of the names a plane's events carry on every event (`correlation_id`,
/// `device_id`, …), interned on first use (so ids are assigned in the same order as by name)
/// and then read without hashing the name or scanning the names used so far: a slot chosen by
/// the name's address. Every event asks for several (a sync call's host event for up to six
/// of twenty).
pub struct StatIds {
    /// (address and length of the name, its id); an id of 0 marks an empty slot (ids start
    /// at 1). Two names in one slot take turns: the one asked for is looked up by name again,
    /// to the same id.
    slots: [(usize, usize, i64); STAT_ID_SLOTS],
    /// The id of each [`Hot`] name, 0 until first used.
    hot: [i64; Hot::COUNT],
}

/// The stat names nearly every event of a plane carries (a HIP call's, a dispatch's, a sync
/// call's, an anchor's), each with a place of its own in [`StatIds`]: read with a load and a
/// test, where a name by address is hashed and compared. Interned on first use, as by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hot {
    CorrelationId,
    OrphanCorrelationId,
    DeviceId,
    ActivityCount,
    GraphExecId,
    GraphNodeId,
    CudaGraphId,
    CudaGraphExecId,
    HipStream,
    SyncType,
    HipEvent,
    WaitOnHipEventId,
    WaitOnStream,
    WaitOnHipEventRecordCorrId,
    Flow,
    DependencyOf,
    ScopeRangeId,
    ExternalCorrelationId,
}

impl Hot {
    const COUNT: usize = 18;

    /// Every hot name, in their order.
    pub const ALL: [Hot; Hot::COUNT] = [
        Hot::CorrelationId,
        Hot::OrphanCorrelationId,
        Hot::DeviceId,
        Hot::ActivityCount,
        Hot::GraphExecId,
        Hot::GraphNodeId,
        Hot::CudaGraphId,
        Hot::CudaGraphExecId,
        Hot::HipStream,
        Hot::SyncType,
        Hot::HipEvent,
        Hot::WaitOnHipEventId,
        Hot::WaitOnStream,
        Hot::WaitOnHipEventRecordCorrId,
        Hot::Flow,
        Hot::DependencyOf,
        Hot::ScopeRangeId,
        Hot::ExternalCorrelationId,
    ];

    /// The stat's name.
    pub const fn name(self) -> &'static str {
        use crate::xplane::deps as d;
        use crate::xplane::stats as s;
        match self {
            Hot::CorrelationId => s::CORRELATION_ID,
            Hot::OrphanCorrelationId => s::ORPHAN_CORRELATION_ID,
            Hot::DeviceId => s::DEVICE_ID,
            Hot::ActivityCount => s::ACTIVITY_COUNT,
            Hot::GraphExecId => s::GRAPH_EXEC_ID,
            Hot::GraphNodeId => s::GRAPH_NODE_ID,
            Hot::CudaGraphId => s::CUDA_GRAPH_ID,
            Hot::CudaGraphExecId => s::CUDA_GRAPH_EXEC_ID,
            Hot::HipStream => d::HIP_STREAM,
            Hot::SyncType => d::SYNC_TYPE,
            Hot::HipEvent => d::HIP_EVENT,
            Hot::WaitOnHipEventId => d::WAIT_ON_HIP_EVENT_ID,
            Hot::WaitOnStream => d::WAIT_ON_STREAM,
            Hot::WaitOnHipEventRecordCorrId => d::WAIT_ON_HIP_EVENT_RECORD_CORR_ID,
            Hot::Flow => d::FLOW,
            Hot::DependencyOf => d::DEPENDENCY_OF,
            Hot::ScopeRangeId => s::SCOPE_RANGE_ID,
            Hot::ExternalCorrelationId => s::EXTERNAL_CORRELATION_ID,
        }
    }
}

/// Slots of a `StatIds` (a power of two): the stat names are a few dozen constants.
const STAT_ID_SLOTS: usize = 64;

/// The slot of `key` in a table of `2^bits` slots, by Fibonacci hashing: the key times 2^64 / φ,
/// its top bits. Keys that differ only in their low bits (addresses a few bytes apart, ids in
/// order) land far apart, where their low bits alone would crowd a few slots or evict each
/// slot in turn.
pub(crate) fn fibonacci_slot(key: u64, bits: u32) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
}

impl Default for StatIds {
    fn default() -> Self {
        StatIds {
            slots: [(0, 0, 0); STAT_ID_SLOTS],
            hot: [0; Hot::COUNT],
        }
    }
}

impl StatIds {
    /// The id of the hot stat `h`, interned on its first use.
    #[inline]
    pub fn hot(&mut self, plane: &mut PlaneBuilder, h: Hot) -> i64 {
        let id = &mut self.hot[h as usize];
        if *id == 0 {
            *id = plane.stat_metadata_id(h.name());
        }
        *id
    }

    pub fn get(&mut self, plane: &mut PlaneBuilder, name: &'static str) -> i64 {
        let (at, len) = (name.as_ptr() as usize, name.len());
        // The constants lie a few bytes apart: spread, not by their low bits.
        let entry = &mut self.slots[fibonacci_slot(at as u64, STAT_ID_SLOTS.ilog2())];
        if entry.2 != 0 && entry.0 == at && entry.1 == len {
            return entry.2;
        }
        let id = plane.stat_metadata_id(name);
        *entry = (at, len, id);
        id
    }
}

/// An event's stats as wire bytes (the `XEvent.stats` entries, field 4), written straight from
/// their values: an event costs no `XStat` structs and, once the buffer has grown, no heap
/// allocation. The bytes are what prost writes for the same stats.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StatBytes {
    bytes: Vec<u8>,
    /// They hold the `open_at_end` stat ([`Self::open_at_end`]).
    open_at_end: bool,
}

impl StatBytes {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.open_at_end = false;
    }

    /// The `open_at_end` stat (`metadata_id`: its id in the plane), value 1: the event is a
    /// range open at the end of its window. A line notes where such events lie for the merge
    /// at exit ([`super::EventPlaces`]), which leaves them out of every window but the last.
    pub fn open_at_end(&mut self, metadata_id: i64) {
        self.i64(metadata_id, 1);
        self.open_at_end = true;
    }

    /// Whether they hold the `open_at_end` stat.
    pub fn holds_open_at_end(&self) -> bool {
        self.open_at_end
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Appends every stat of `other`.
    pub fn extend(&mut self, other: &StatBytes) {
        self.bytes.extend_from_slice(&other.bytes);
        self.open_at_end |= other.open_at_end;
    }

    /// Appends any stat (strings, bytes, doubles) through prost.
    pub fn push(&mut self, stat: &XStat) {
        prost::encoding::message::encode(fields::event::STATS.number, stat, &mut self.bytes);
    }

    // Always: a call costs about as much as the stat's bytes (an event writes several).
    #[inline(always)]
    pub fn u64(&mut self, metadata_id: i64, v: u64) {
        fields::put_varint_stat(&mut self.bytes, metadata_id, fields::stat::UINT64_VALUE, v);
    }

    // Always: a call costs about as much as the stat's bytes (an event writes several).
    #[inline(always)]
    pub fn i64(&mut self, metadata_id: i64, v: i64) {
        // int64 is written as the varint of its two's-complement bits, as prost does.
        fields::put_varint_stat(
            &mut self.bytes,
            metadata_id,
            fields::stat::INT64_VALUE,
            v as u64,
        );
    }

    /// A `ref_value` stat: `target` is the stat metadata id of the interned string.
    // Always: a call costs about as much as the stat's bytes (an event writes several).
    #[inline(always)]
    pub fn reference(&mut self, metadata_id: i64, target: i64) {
        fields::put_varint_stat(
            &mut self.bytes,
            metadata_id,
            fields::stat::REF_VALUE,
            target as u64,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xplane::builder::{LineBuilder, StatValue};
    use crate::xplane::proto::x_stat;
    use prost::Message;

    /// Ids through `StatIds` are the plane's ids by name, assigned in first-use order, with more
    /// names than slots (so names share slots and take turns) and names that are prefixes of
    /// each other at one address (told apart by length).
    #[test]
    fn stat_ids_are_the_ids_by_name_in_first_use_order() {
        let text: &'static str = Box::leak("abcdefgh".repeat(40).into_boxed_str());
        let mut names: Vec<&'static str> =
            (1..=text.len()).step_by(3).map(|n| &text[..n]).collect();
        names.extend((0..200).map(|i| &*Box::leak(format!("stat_{i}").into_boxed_str())));
        let mut plane = PlaneBuilder::new(1, "p");
        let mut by_name = PlaneBuilder::new(1, "p");
        let mut ids = StatIds::default();
        for round in 0..3 {
            // Each round in another order: first use in the first, turns in slots after.
            let order: Vec<&'static str> = match round {
                0 => names.clone(),
                1 => names.iter().rev().copied().collect(),
                _ => names
                    .iter()
                    .step_by(7)
                    .chain(names.iter())
                    .copied()
                    .collect(),
            };
            for name in order {
                let got = ids.get(&mut plane, name);
                assert_eq!(
                    got,
                    by_name.stat_metadata_id(name),
                    "{name:?} in round {round}"
                );
            }
        }
        assert_eq!(plane.plane.stat_metadata, by_name.plane.stat_metadata);
    }

    /// A hot stat's id is its name's id, by either way of asking, in first-use order.
    #[test]
    fn hot_ids_are_the_ids_by_name() {
        let mut plane = PlaneBuilder::new(1, "p");
        let mut by_name = PlaneBuilder::new(1, "p");
        let mut ids = StatIds::default();
        let names: Vec<&str> = Hot::ALL.iter().map(|h| h.name()).collect();
        let unique: std::collections::HashSet<&str> = names.iter().copied().collect();
        assert_eq!(unique.len(), names.len(), "two hot stats share a name");
        for (i, &h) in Hot::ALL.iter().rev().enumerate() {
            let got = if i % 2 == 0 {
                ids.hot(&mut plane, h)
            } else {
                ids.get(&mut plane, h.name())
            };
            assert_eq!(got, by_name.stat_metadata_id(h.name()), "{h:?}");
            assert_eq!(ids.hot(&mut plane, h), got, "{h:?} again");
        }
        assert_eq!(plane.plane.stat_metadata, by_name.plane.stat_metadata);
    }

    /// The hand-written encoding is prost's, value for value: ids of 0 and 1, negative and
    /// 10-byte varints, zero offsets and durations, every kind of stat value.
    #[test]
    fn events_and_stats_encode_as_prost_does() {
        use crate::xplane::proto::{x_event, XEvent};
        let values = [0u64, 1, 127, 128, 300, u64::MAX >> 1, u64::MAX];
        let mut p = PlaneBuilder::new(0, "p");
        let mut line = LineBuilder::new(1, "l", 0);
        let mut expected = Vec::new();
        for (i, &v) in values.iter().enumerate() {
            let mut stats = StatBytes::new();
            let mut structs = Vec::new();
            for id in [0i64, 1, 200] {
                stats.u64(id, v);
                stats.i64(id, v as i64);
                stats.reference(id, v as i64);
                structs.push(XStat {
                    metadata_id: id,
                    value: Some(x_stat::Value::Uint64Value(v)),
                });
                structs.push(XStat {
                    metadata_id: id,
                    value: Some(x_stat::Value::Int64Value(v as i64)),
                });
                structs.push(XStat {
                    metadata_id: id,
                    value: Some(x_stat::Value::RefValue(v)),
                });
            }
            let d = XStat {
                metadata_id: 3,
                value: Some(x_stat::Value::DoubleValue(0.5)),
            };
            stats.push(&d);
            structs.push(d);
            p.put(&mut stats, "name", StatValue::Str("inline"));
            structs.push(XStat {
                metadata_id: p.stat_metadata_id("name"),
                value: Some(x_stat::Value::StrValue("inline".into())),
            });
            let (offset, duration) = (v as i64, -(i as i64));
            line.add_event(i as i64, offset, duration, &stats);
            expected.push(XEvent {
                metadata_id: i as i64,
                duration_ps: duration,
                stats: structs,
                data: Some(x_event::Data::OffsetPs(offset)),
            });
        }
        let got = line.finish().to_xline();
        let mut want = got.clone();
        want.events = expected;
        want.events.sort_by_key(|e| match e.data {
            Some(x_event::Data::OffsetPs(o)) => (o, std::cmp::Reverse(e.duration_ps)),
            _ => unreachable!(),
        });
        assert_eq!(got, want);
        // And byte for byte: re-encoding the decoded events by prost gives the same bytes.
        let mut l2 = LineBuilder::new(1, "l", 0);
        let mut st = StatBytes::new();
        st.u64(5, 9);
        st.i64(6, -1);
        l2.add_event(4, -3, 0, &st);
        let f = l2.finish();
        let mut ours = Vec::new();
        f.encode_into(&mut ours);
        assert_eq!(ours, f.to_xline().encode_to_vec());
    }
}
