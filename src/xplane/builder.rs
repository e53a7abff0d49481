//! Per-plane interning of event and stat metadata, and typed stat values.
//!
//! Mirrors how XLA's `XPlaneBuilder` assigns ids (per plane, `++last_id` from 1, deduplicated by
//! name, event and stat ids counted separately) so our files have the same shape xprof is tested
//! with. String values are written as `ref_value`: the string becomes a stat metadata entry, which
//! keeps files small when thousands of events repeat one `kernel_details` string.

use prost::Message;

use crate::fastmap::HashMap;

use super::proto::{x_event, x_stat, XEvent, XEventMetadata, XLine, XPlane, XStat, XStatMetadata};

/// A typed stat value. The variant is part of the contract with xprof (e.g. `correlation_id`
/// must be `U64`, `scope_range_id` must be `I64`).
#[derive(Debug, Clone, PartialEq)]
pub enum StatValue<'a> {
    U64(u64),
    I64(i64),
    F64(f64),
    /// Interned: written as `ref_value` pointing at a stat metadata named by the string.
    Ref(&'a str),
    /// Written inline as `str_value`.
    Str(&'a str),
    Bytes(&'a [u8]),
}

/// Builds one `XPlane`, interning names as it goes. Each line is encoded as soon as it is
/// added: a finished line costs its wire bytes (about 60 B per event) rather than its message
/// structs (about 200 B per event), so the exit path's peak is the largest plane's encoding.
#[derive(Debug)]
pub struct PlaneBuilder {
    plane: XPlane,
    /// Wire bytes of the `lines` entries (field 3) added so far.
    lines: Vec<u8>,
    event_ids: HashMap<String, i64>,
    stat_ids: HashMap<String, i64>,
    last_event_id: i64,
    last_stat_id: i64,
}

impl PlaneBuilder {
    pub fn new(id: i64, name: impl Into<String>) -> Self {
        PlaneBuilder {
            plane: XPlane {
                id,
                name: name.into(),
                ..Default::default()
            },
            lines: Vec::new(),
            event_ids: HashMap::default(),
            stat_ids: HashMap::default(),
            last_event_id: 0,
            last_stat_id: 0,
        }
    }

    /// Id of the event metadata called `name`, created on first use.
    pub fn event_metadata_id(&mut self, name: &str) -> i64 {
        let (id, new) = intern(&mut self.event_ids, &mut self.last_event_id, name);
        if new {
            self.plane.event_metadata.insert(
                id,
                XEventMetadata {
                    id,
                    name: name.to_owned(),
                    ..Default::default()
                },
            );
        }
        id
    }

    /// Id of the stat metadata called `name`, created on first use. Stat names and interned
    /// string values share this namespace, as in XLA.
    pub fn stat_metadata_id(&mut self, name: &str) -> i64 {
        let (id, new) = intern(&mut self.stat_ids, &mut self.last_stat_id, name);
        if new {
            self.plane.stat_metadata.insert(
                id,
                XStatMetadata {
                    id,
                    name: name.to_owned(),
                    ..Default::default()
                },
            );
        }
        id
    }

    /// A stat named `name` with `value`, interning whatever it needs.
    pub fn stat(&mut self, name: &str, value: StatValue<'_>) -> XStat {
        let metadata_id = self.stat_metadata_id(name);
        let value = match value {
            StatValue::U64(v) => x_stat::Value::Uint64Value(v),
            StatValue::I64(v) => x_stat::Value::Int64Value(v),
            StatValue::F64(v) => x_stat::Value::DoubleValue(v),
            // Ids are positive, so the cast is lossless.
            StatValue::Ref(s) => x_stat::Value::RefValue(self.stat_metadata_id(s) as u64),
            StatValue::Str(s) => x_stat::Value::StrValue(s.to_owned()),
            StatValue::Bytes(b) => x_stat::Value::BytesValue(b.to_vec()),
        };
        XStat {
            metadata_id,
            value: Some(value),
        }
    }

    /// Adds a stat to event metadata `id` (what every event of that name shares).
    pub fn add_event_metadata_stat(&mut self, id: i64, stat: XStat) {
        if let Some(m) = self.plane.event_metadata.get_mut(&id) {
            m.stats.push(stat);
        }
    }

    /// Adds a plane-level stat (device capabilities, Task Environment times).
    pub fn add_plane_stat(&mut self, name: &str, value: StatValue<'_>) {
        let stat = self.stat(name, value);
        self.plane.stats.push(stat);
    }

    /// Adds a raw plane-level stat whose `metadata_id` is not a stat-metadata id (the scope
    /// tree uses the child scope id there).
    pub fn add_raw_plane_stat(&mut self, stat: XStat) {
        self.plane.stats.push(stat);
    }

    /// Reserves stat-metadata ids up to `max_id` with one empty-named entry, so that raw ids
    /// used by [`Self::add_raw_plane_stat`] can never be reused for a real stat name later.
    pub fn reserve_stat_ids_up_to(&mut self, max_id: i64) {
        if max_id > self.last_stat_id {
            self.plane.stat_metadata.insert(
                max_id,
                XStatMetadata {
                    id: max_id,
                    ..Default::default()
                },
            );
            self.last_stat_id = max_id;
        }
    }

    /// Adds a finished line (see [`LineBuilder::finish`]) to the plane's encoding.
    pub fn add_line(&mut self, line: FinishedLine) {
        prost::encoding::encode_key(
            LINES_FIELD,
            prost::encoding::WireType::LengthDelimited,
            &mut self.lines,
        );
        prost::encoding::encode_varint(line.encoded_len() as u64, &mut self.lines);
        line.encode_into(&mut self.lines);
    }

    pub fn finish(mut self) -> BuiltPlane {
        // Fields 1–2 (id, name) come before the lines (field 3) on the wire.
        let leading = XPlane {
            id: std::mem::take(&mut self.plane.id),
            name: std::mem::take(&mut self.plane.name),
            ..Default::default()
        };
        let (head, split) = around_repeated(&leading, self.plane);
        BuiltPlane {
            head,
            split,
            lines: self.lines,
        }
    }
}

/// The encoding of `leading` followed by the rest of `whole`'s fields, and where a repeated
/// field numbered between the two goes: `leading` holds the fields that precede it on the wire
/// (moved out of `whole`, so nothing is cloned), `whole` the fields that follow (its leading
/// fields left at their defaults, which encode to nothing).
fn around_repeated<M: Message>(leading: &M, whole: M) -> (Vec<u8>, usize) {
    let split = leading.encoded_len();
    let mut head = Vec::with_capacity(split + whole.encoded_len());
    leading.encode_raw(&mut head);
    whole.encode_raw(&mut head);
    (head, split)
}

/// `XPlane.lines`' field number.
const LINES_FIELD: u32 = 3;

/// A finished plane, encoded: everything but its lines (`head`, split where the lines go) and
/// its lines as wire bytes.
#[derive(Debug, Clone)]
pub struct BuiltPlane {
    head: Vec<u8>,
    split: usize,
    lines: Vec<u8>,
}

impl BuiltPlane {
    /// Length of the plane's encoding (what `XPlane::encoded_len` gives with its lines).
    pub fn encoded_len(&self) -> usize {
        self.head.len() + self.lines.len()
    }

    /// Writes the bytes `XPlane::encode` gives for the plane with its lines: fields 1–2 (id,
    /// name), the lines (field 3), then fields 4–6, so the file is the same byte for byte.
    pub fn write_to(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        w.write_all(&self.head[..self.split])?;
        w.write_all(&self.lines)?;
        w.write_all(&self.head[self.split..])
    }

    /// The plane as a message, for in-memory consumers.
    pub fn into_xplane(self) -> XPlane {
        let mut b = Vec::with_capacity(self.encoded_len());
        // Writing into a Vec cannot fail.
        let _ = self.write_to(&mut b);
        // Our own encoding: decoding cannot fail short of a prost bug; an empty plane is then
        // the safe answer.
        XPlane::decode(b.as_slice()).unwrap_or_default()
    }
}

/// Collects the events of one line; offsets are relative to the line timestamp. Each event is
/// encoded when added (about 60 B, plus 32 B to sort it by) rather than kept as message structs
/// (about 250 B with its stats): a stream line of a million dispatches is the exit path's
/// largest single object.
#[derive(Debug)]
pub struct LineBuilder {
    /// Everything but the events.
    header: XLine,
    /// Per event: sort key (offset, duration) and where its encoding lies in `arena`.
    index: Vec<EventSlot>,
    arena: Vec<u8>,
    max_end_ps: i64,
}

#[derive(Debug, Clone, Copy)]
struct EventSlot {
    offset_ps: i64,
    duration_ps: i64,
    start: usize,
    len: usize,
}

impl LineBuilder {
    pub fn new(id: i64, name: impl Into<String>, timestamp_ns: i64) -> Self {
        LineBuilder {
            header: XLine {
                id,
                name: name.into(),
                timestamp_ns,
                ..Default::default()
            },
            index: Vec::new(),
            arena: Vec::new(),
            max_end_ps: 0,
        }
    }

    pub fn set_display_name(&mut self, name: impl Into<String>) {
        self.header.display_name = name.into();
    }

    pub fn add_event(
        &mut self,
        metadata_id: i64,
        offset_ps: i64,
        duration_ps: i64,
        stats: Vec<XStat>,
    ) {
        self.max_end_ps = self.max_end_ps.max(offset_ps.saturating_add(duration_ps));
        let e = XEvent {
            metadata_id,
            duration_ps,
            stats,
            data: Some(x_event::Data::OffsetPs(offset_ps)),
        };
        let start = self.arena.len();
        e.encode_raw(&mut self.arena);
        self.index.push(EventSlot {
            offset_ps,
            duration_ps,
            start,
            len: self.arena.len() - start,
        });
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Sorts events by (start ascending, duration descending), the order XLA's `SortXSpace`
    /// leaves them in: an enclosing event comes before the events nested in it, which the
    /// trace viewer's nesting relies on. The sort is stable, so ties keep insertion order.
    pub fn finish(mut self) -> FinishedLine {
        self.index
            .sort_by_key(|e| (e.offset_ps, std::cmp::Reverse(e.duration_ps)));
        self.header.duration_ps = self.max_end_ps;
        // Fields 1–3 (id, name, timestamp) come before the events (field 4) on the wire.
        let leading = XLine {
            id: std::mem::take(&mut self.header.id),
            name: std::mem::take(&mut self.header.name),
            timestamp_ns: std::mem::take(&mut self.header.timestamp_ns),
            ..Default::default()
        };
        let (head, split) = around_repeated(&leading, self.header);
        FinishedLine {
            head,
            split,
            index: self.index,
            arena: self.arena,
        }
    }
}

/// `XLine.events`' field number.
const EVENTS_FIELD: u32 = 4;

/// A finished line, events sorted and encoded; written into its plane by
/// [`PlaneBuilder::add_line`].
#[derive(Debug)]
pub struct FinishedLine {
    head: Vec<u8>,
    split: usize,
    index: Vec<EventSlot>,
    arena: Vec<u8>,
}

impl FinishedLine {
    /// Length of the line's encoding.
    pub fn encoded_len(&self) -> usize {
        let events: usize = self
            .index
            .iter()
            .map(|e| {
                prost::encoding::key_len(EVENTS_FIELD)
                    + prost::encoding::encoded_len_varint(e.len as u64)
                    + e.len
            })
            .sum();
        self.head.len() + events
    }

    /// Appends the bytes `XLine::encode` gives for the line with its events.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.head[..self.split]);
        for e in &self.index {
            prost::encoding::encode_key(
                EVENTS_FIELD,
                prost::encoding::WireType::LengthDelimited,
                out,
            );
            prost::encoding::encode_varint(e.len as u64, out);
            out.extend_from_slice(&self.arena[e.start..e.start + e.len]);
        }
        out.extend_from_slice(&self.head[self.split..]);
    }

    /// The line as a message (for tests and in-memory consumers).
    pub fn to_xline(&self) -> XLine {
        let mut b = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut b);
        // Our own encoding: decoding cannot fail short of a prost bug.
        XLine::decode(b.as_slice()).unwrap_or_default()
    }
}

/// The id of `name` in one id space, `(id, true)` when it was assigned now (`++last`, as XLA).
fn intern(ids: &mut HashMap<String, i64>, last: &mut i64, name: &str) -> (i64, bool) {
    if let Some(&id) = ids.get(name) {
        return (id, false);
    }
    *last += 1;
    ids.insert(name.to_owned(), *last);
    (*last, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_per_name_and_starts_at_one() {
        let mut p = PlaneBuilder::new(3, "/device:GPU:3");
        assert_eq!(p.event_metadata_id("k"), 1);
        assert_eq!(p.event_metadata_id("j"), 2);
        assert_eq!(p.event_metadata_id("k"), 1);
        assert_eq!(p.stat_metadata_id("correlation_id"), 1);
        let s = p.stat("kernel_details", StatValue::Ref("regs:1"));
        assert_eq!(s.metadata_id, 2);
        assert_eq!(s.value, Some(x_stat::Value::RefValue(3)));
        let plane = p.finish().into_xplane();
        assert_eq!(plane.stat_metadata[&3].name, "regs:1");
        assert_eq!(plane.event_metadata[&2].name, "j");
    }

    #[test]
    fn a_built_plane_encodes_as_the_message_with_its_lines() {
        let mut p = PlaneBuilder::new(2, "/device:GPU:2");
        for l in 0..3 {
            let mut line = LineBuilder::new(l, format!("Stream {l}"), 0);
            let id = p.event_metadata_id("k");
            let st = p.stat("correlation_id", StatValue::U64(7 + l as u64));
            line.add_event(id, 10 * l, 5, vec![st]);
            p.add_line(line.finish());
        }
        p.add_plane_stat("clock_rate", StatValue::U64(2100));
        let built = p.finish();
        let mut bytes = Vec::new();
        built.write_to(&mut bytes).unwrap();
        let plane = built.clone().into_xplane();
        assert_eq!(plane.lines.len(), 3);
        assert_eq!(plane.lines[2].events[0].duration_ps, 5);
        assert_eq!(
            bytes,
            plane.encode_to_vec(),
            "same bytes as the whole message"
        );
        assert_eq!(built.encoded_len(), bytes.len());
    }

    #[test]
    fn lines_sort_by_start_then_longest_first() {
        let mut l = LineBuilder::new(0, "x", 0);
        l.add_event(1, 50, 5, vec![]);
        l.add_event(2, 10, 5, vec![]);
        l.add_event(3, 10, 100, vec![]);
        let line = l.finish().to_xline();
        let ids: Vec<i64> = line.events.iter().map(|e| e.metadata_id).collect();
        assert_eq!(ids, [3, 2, 1]);
        assert_eq!(line.duration_ps, 110);
    }
}
