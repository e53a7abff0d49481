//! A line of the output merged from its inputs' pieces, event by event in time order: each
//! event read field by field and its ids and time moved to the output's, or copied as it is
//! where the input already agrees with the output.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;

use super::encoded::{
    event_times, EVENT_DURATION_PS, EVENT_METADATA_ID, EVENT_OFFSET_PS, EVENT_STATS, LINE_EVENTS,
    STAT_METADATA_ID, STAT_REF_VALUE,
};
use super::heads::{Ids, PlanePart};
use super::input::{stat_id_named, Input, LineIn};
use super::{splice, Check, Merged};
use crate::wire::xplane::{self as fields, event, stat};
use crate::wire::{check, FieldValue, Fields, FileFields, RawField};
use crate::xplane::builder::{FinishedLine, LineBuilder};
use crate::xplane::stats as s;

/// What every line of one output plane is merged from: the plane's parts (one per input that
/// has it), each part's ids in the output's, and each input's time shift.
pub(super) struct PlaneMerge<'a> {
    pub(super) inputs: &'a [Input],
    pub(super) planes: Vec<PlanePart<'a>>,
    pub(super) ids: Vec<Ids>,
    pub(super) shift: &'a [i64],
    pub(super) check: Check,
    /// Lines whose pieces may be copied as they are are spliced (`splice`).
    pub(super) splice: bool,
}

/// A line of the output: built event by event, or its inputs' events spliced from their files
/// between its own fields.
pub(super) enum MergedLine {
    Built(FinishedLine),
    Spliced {
        head: FinishedLine,
        events: splice::Spliced,
    },
}

impl MergedLine {
    fn encoded_len(&self) -> usize {
        match self {
            MergedLine::Built(l) => l.encoded_len(),
            MergedLine::Spliced { head, events } => head.encoded_len() + events.bytes as usize,
        }
    }

    /// Length of the line as an `XPlane.lines` entry (key and length included).
    pub(super) fn entry_len(&self) -> usize {
        crate::wire::entry_len(fields::plane::LINES, self.encoded_len())
    }

    /// The bytes of its events copied from the inputs' files (0 for a line built here).
    pub(super) fn spliced_bytes(&self) -> u64 {
        match self {
            MergedLine::Built(_) => 0,
            MergedLine::Spliced { events, .. } => events.bytes,
        }
    }

    /// Writes the line as an `XPlane.lines` entry.
    pub(super) fn write_entry(&self, w: &mut io::BufWriter<std::fs::File>) -> io::Result<()> {
        match self {
            MergedLine::Built(l) => l.write_entry(w),
            MergedLine::Spliced { head, events } => {
                use std::io::Write;
                crate::wire::write_entry_head(fields::plane::LINES, self.encoded_len(), w)?;
                let (before, after) = head.around_events();
                w.write_all(before)?;
                for r in &events.ranges {
                    splice::copy_range(&r.file, r.start, r.end - r.start, w)?;
                }
                w.write_all(after)
            }
        }
    }
}

/// One part's piece of the line being merged.
struct LinePart<'a> {
    /// The part's place among `PlaneMerge::planes`.
    plane: usize,
    input: usize,
    line: &'a LineIn,
}

/// An event as the output has it: its metadata id, and where it lies on the output's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EventPlace {
    metadata_id: i64,
    offset_ps: i64,
    duration_ps: i64,
}

impl PlaneMerge<'_> {
    /// The plane's line ids, in the order they first appear.
    pub(super) fn line_ids(&self) -> Vec<i64> {
        let mut line_ids: Vec<i64> = Vec::new();
        for part in &self.planes {
            for l in &part.plane.lines {
                if !line_ids.contains(&l.head.id) {
                    line_ids.push(l.head.id);
                }
            }
        }
        line_ids
    }

    /// The output's line `id`, merged by time from its pieces in every part: spliced from
    /// their files where every piece may be copied as it is (`splice`), else event by event.
    pub(super) fn line(&self, id: i64, merged: &mut Merged) -> io::Result<MergedLine> {
        let parts: Vec<LinePart> = self
            .planes
            .iter()
            .enumerate()
            .flat_map(|(plane, part)| {
                part.plane
                    .lines
                    .iter()
                    .filter(|l| l.head.id == id)
                    .map(move |line| LinePart {
                        plane,
                        input: part.input,
                        line,
                    })
            })
            .collect();
        let mut line = self.line_head(&parts);
        let out_ts_ns = self.line_ts_ns(&parts);
        if let Some(pieces) = self.pieces(&parts, out_ts_ns).filter(|_| self.splice) {
            let events = splice::splice(&pieces)?;
            if let Some(e) = events.max_end_ps {
                line.note_end_ps(e);
            }
            merged.events += events.events;
            merged.copied += events.events;
            merged.spliced += events.events;
            merged.open_ranges_left_out += events.dropped;
            return Ok(MergedLine::Spliced {
                head: line.finish(),
                events,
            });
        }
        let mut cursors: Vec<LineCursor> =
            parts.iter().map(|p| self.cursor(p, out_ts_ns)).collect();
        let mut heap = BinaryHeap::new();
        for (c, cursor) in cursors.iter_mut().enumerate() {
            if cursor.advance()? {
                heap.push(Reverse(cursor.key(c)));
            }
        }
        while let Some(Reverse((_, _, c))) = heap.pop() {
            let cur = &mut cursors[c];
            let e = cur.event;
            if cur.verbatim.is_some() {
                line.add_encoded_event(e.offset_ps, e.duration_ps, &cur.stats);
                merged.copied += 1;
            } else {
                line.add_unplaced_event_bytes(
                    e.metadata_id,
                    e.offset_ps,
                    e.duration_ps,
                    &cur.stats,
                );
            }
            merged.events += 1;
            if cur.advance()? {
                heap.push(Reverse(cur.key(c)));
            }
        }
        merged.open_ranges_left_out += cursors.iter().map(|c| c.dropped).sum::<u64>();
        Ok(MergedLine::Built(line.finish()))
    }

    /// The parts' pieces of a line as they lie in their files, when every one may be copied
    /// as it is (on the output's ids and clock, its events together and in order); `None`
    /// otherwise.
    fn pieces<'p>(&self, parts: &[LinePart<'p>], out_ts_ns: i64) -> Option<Vec<splice::Piece<'p>>> {
        let last = self.inputs.len() - 1;
        parts
            .iter()
            .map(|p| {
                let kept = self.ids[p.plane].all_kept
                    && self.move_ps(p, out_ts_ns) == 0
                    && p.line.events.spliceable;
                kept.then(|| splice::Piece {
                    file: self.inputs[p.input].file(),
                    index: &p.line.events,
                    input: p.input,
                    drop_open: p.input != last,
                })
            })
            .collect()
    }

    /// ps every offset of piece `p` moves by onto the output line's clock (whose timestamp is
    /// `out_ts_ns`): its line timestamp and its input's shift, less the output line's.
    fn move_ps(&self, p: &LinePart, out_ts_ns: i64) -> i64 {
        p.line
            .head
            .timestamp_ns
            .saturating_sub(out_ts_ns)
            .saturating_mul(1000)
            .saturating_add(self.shift[p.input])
    }

    /// The output line's head: its id, its name from every piece's (a device line's kinds of
    /// work merged), the first display name any piece has, and its timestamp: the earliest
    /// piece's, on the output's clock (windows of one run share theirs, so their events keep
    /// their offsets).
    fn line_head(&self, parts: &[LinePart]) -> LineBuilder {
        let first = &parts[0].line.head;
        let names: Vec<&str> = parts.iter().map(|p| p.line.head.name.as_str()).collect();
        let mut line = LineBuilder::new(
            first.id,
            crate::xplane::space::merged_line_name(&names),
            self.line_ts_ns(parts),
        );
        if let Some(d) = parts
            .iter()
            .map(|p| &p.line.head.display_name)
            .find(|d| !d.is_empty())
        {
            line.set_display_name(d.clone());
        }
        line
    }

    /// The output line's timestamp: the earliest of its pieces', moved onto the output's clock.
    fn line_ts_ns(&self, parts: &[LinePart]) -> i64 {
        parts
            .iter()
            .map(|p| {
                p.line
                    .head
                    .timestamp_ns
                    .saturating_add(self.shift[p.input] / 1000)
            })
            .min()
            .unwrap_or(0)
    }

    /// The cursor over one piece's events, whose line has timestamp `out_ts_ns` in the output.
    fn cursor(&self, p: &LinePart, out_ts_ns: i64) -> LineCursor<'_> {
        let last = self.inputs.len() - 1;
        let ids = &self.ids[p.plane];
        let drop_stat = (p.input != last)
            .then(|| stat_id_named(&self.planes[p.plane].plane.head, s::OPEN_AT_END))
            .flatten();
        let move_ps = self.move_ps(p, out_ts_ns);
        LineCursor {
            reader: FileFields::new(self.inputs[p.input].file(), p.line.start, p.line.end),
            ids,
            move_ps,
            drop_stat,
            dropped: 0,
            verbatim: (ids.all_kept && move_ps == 0).then_some(self.check),
            event: EventPlace {
                metadata_id: 0,
                offset_ps: 0,
                duration_ps: 0,
            },
            stats: Vec::new(),
            stat: Vec::new(),
        }
    }
}

/// The events of one input line, in its order, on the output's clock and in its ids; the
/// current one held (`event`, and its stats as their wire bytes in `stats`).
struct LineCursor<'a> {
    reader: FileFields,
    ids: &'a Ids,
    /// ps every offset moves by onto the output line's clock.
    move_ps: i64,
    /// An `open_at_end` stat id whose events are left out (inputs before the last).
    drop_stat: Option<i64>,
    dropped: u64,
    /// Events are copied as they are (`Ids::all_kept`, no time to move), checked as `check`
    /// says; the current one's bytes are then in `stats`.
    verbatim: Option<Check>,
    event: EventPlace,
    stats: Vec<u8>,
    /// Scratch for one stat.
    stat: Vec<u8>,
}

impl LineCursor<'_> {
    /// Reads the next event kept; `false` at the line's end.
    fn advance(&mut self) -> io::Result<bool> {
        while let Some((number, value)) = self.reader.field()? {
            // A field the line's head holds, or one unknown here: stepped over. `field` read a
            // varint's value, not a fixed-width one's.
            let n = match value {
                RawField::Len(n) => n,
                RawField::Fixed(n) => {
                    self.reader.skip(n as u64)?;
                    continue;
                }
                RawField::Varint(_) => continue,
            };
            if number != LINE_EVENTS {
                self.reader.skip(n)?;
                continue;
            }
            let bytes = self.reader.bytes(n)?;
            if let Some(check) = self.verbatim {
                match event_times(bytes, self.drop_stat, check)? {
                    Some((offset_ps, duration_ps)) => {
                        self.stats.clear();
                        self.stats.extend_from_slice(bytes);
                        self.event.offset_ps = offset_ps;
                        self.event.duration_ps = duration_ps;
                        return Ok(true);
                    }
                    None => {
                        self.dropped += 1;
                        continue;
                    }
                }
            }
            let (ids, drop_stat) = (self.ids, self.drop_stat);
            let (stats, stat) = (&mut self.stats, &mut self.stat);
            match read_event(bytes, ids, drop_stat, stats, stat)? {
                Some(read) => {
                    self.event = EventPlace {
                        offset_ps: read.offset_ps.saturating_add(self.move_ps),
                        ..read
                    };
                    return Ok(true);
                }
                None => self.dropped += 1,
            }
        }
        Ok(false)
    }

    /// The writer's line order (start, the longer first), then the input's.
    fn key(&self, input: usize) -> (i64, Reverse<i64>, usize) {
        (self.event.offset_ps, Reverse(self.event.duration_ps), input)
    }
}

/// One encoded `XEvent`: its metadata id (in the output's ids), offset and duration (on its
/// input's clock), its
/// stats re-encoded into `stats` with the output's ids (`stat`: scratch); `None` when it
/// holds `drop_stat`. Read field by field, with no `XEvent` decoded and encoded again.
fn read_event(
    b: &[u8],
    ids: &Ids,
    drop_stat: Option<i64>,
    stats: &mut Vec<u8>,
    stat: &mut Vec<u8>,
) -> io::Result<Option<EventPlace>> {
    let (mut md, mut offset, mut duration) = (0i64, 0i64, 0i64);
    stats.clear();
    let mut cursor = Fields::new(b, "an event");
    while let Some((key, value)) = cursor.next_field()? {
        match (key, value) {
            (EVENT_METADATA_ID, FieldValue::Varint(v)) => md = v as i64,
            (EVENT_OFFSET_PS, FieldValue::Varint(v)) => offset = v as i64,
            (EVENT_DURATION_PS, FieldValue::Varint(v)) => duration = v as i64,
            (EVENT_STATS, FieldValue::Len(one)) => {
                // Damage copied as it is (here, or a value field in `read_stat`) would make a
                // file nothing can read.
                check::check_stat(one)?;
                if ids.stats_kept && drop_stat.is_none() {
                    // The stat as it is (a plane whose stat ids the output keeps: the first
                    // input's, and often the others').
                    stats.push(event::STATS.key_byte());
                    stats.extend_from_slice(cursor.raw_value());
                    continue;
                }
                if !read_stat(one, ids, drop_stat, stat)? {
                    return Ok(None);
                }
                fields::put_entry(stats, event::STATS, stat);
            }
            // Fields the output's event does not carry.
            _ => {}
        }
    }
    Ok(Some(EventPlace {
        metadata_id: ids.events.get(&md).copied().unwrap_or(md),
        offset_ps: offset,
        duration_ps: duration,
    }))
}

/// One encoded `XStat` into `out` with the output's ids (its metadata id, and the stat a
/// `ref_value` names); `false` when it is `drop_stat`.
fn read_stat(b: &[u8], ids: &Ids, drop_stat: Option<i64>, out: &mut Vec<u8>) -> io::Result<bool> {
    out.clear();
    let stat_id = |id: i64| ids.stats.get(&id).copied().unwrap_or(id);
    let mut cursor = Fields::new(b, "a stat");
    loop {
        let start = cursor.position();
        let Some((key, value)) = cursor.next_field()? else {
            return Ok(true);
        };
        match (key, value) {
            (STAT_METADATA_ID, FieldValue::Varint(id)) => {
                let id = id as i64;
                if drop_stat == Some(id) {
                    return Ok(false);
                }
                fields::put_varint(out, stat::METADATA_ID, stat_id(id) as u64);
            }
            (STAT_REF_VALUE, FieldValue::Varint(r)) => {
                let to = i64::try_from(r).map_or(r, |r| stat_id(r) as u64);
                fields::put_varint(out, stat::REF_VALUE, to);
            }
            _ => out.extend_from_slice(cursor.since(start)),
        }
    }
}

#[cfg(test)]
mod damage_tests {
    use super::*;

    /// A stat damaged inside an event of a plane whose ids the output keeps (the fast path
    /// that copies stats as they are) is refused, as the field-by-field path refuses it:
    /// copied, it would make a merged file that no reader could decode.
    #[test]
    fn a_damaged_stat_is_refused_where_stats_are_copied_as_they_are() {
        let ids = Ids {
            stats_kept: true,
            ..Ids::default()
        };
        // metadata_id 1, offset 0, then a stat whose second field has wire type 7.
        let event = [0x08, 0x01, 0x10, 0x00, 0x22, 0x04, 0x08, 0x01, 0x0f, 0x00];
        let (mut stats, mut stat) = (Vec::new(), Vec::new());
        assert!(read_event(&event, &ids, None, &mut stats, &mut stat).is_err());
        // The same stat, sound, is copied as it is.
        let event = [0x08, 0x01, 0x10, 0x00, 0x22, 0x04, 0x08, 0x01, 0x18, 0x05];
        let got = read_event(&event, &ids, None, &mut stats, &mut stat).unwrap();
        let want = EventPlace {
            metadata_id: 1,
            offset_ps: 0,
            duration_ps: 0,
        };
        assert_eq!(got, Some(want));
        assert_eq!(stats, [0x22, 0x04, 0x08, 0x01, 0x18, 0x05]);
    }

    /// What prost refuses to decode is refused before it is copied, whole framing or not: a
    /// stat's `str_value` that is not UTF-8, a known field of the wrong wire type (a stat's
    /// `metadata_id`, an event's `offset_ps`), a field numbered 0: sound framing does not make
    /// an event copied as it is (or its stats, on a plane whose stat ids the output keeps)
    /// decodable.
    #[test]
    fn what_prost_cannot_decode_is_refused_before_it_is_copied() {
        use prost::Message;
        let ids = Ids {
            stats_kept: true,
            all_kept: true,
            ..Ids::default()
        };
        let stats_of = |stat: &[u8]| {
            // metadata_id 1, offset 0, then the stat.
            let mut e = vec![0x08, 0x01, 0x10, 0x00, 0x22, stat.len() as u8];
            e.extend_from_slice(stat);
            e
        };
        let damaged: [(&str, Vec<u8>); 4] = [
            (
                "str_value not UTF-8",
                stats_of(&[0x08, 0x01, 0x2a, 0x02, 0xff, 0xfe]),
            ),
            (
                "metadata_id as bytes",
                stats_of(&[0x0a, 0x01, 0x00, 0x18, 0x05]),
            ),
            ("field 0", stats_of(&[0x08, 0x01, 0x02, 0x00])),
            ("offset_ps as bytes", vec![0x08, 0x01, 0x12, 0x01, 0x00]),
        ];
        for (what, event) in damaged {
            assert!(
                crate::xplane::proto::XEvent::decode(event.as_slice()).is_err(),
                "{what}: prost decodes it"
            );
            // (Re-encoding writes an event's own fields anew, a wrong one left out.)
            let (mut stats, mut stat) = (Vec::new(), Vec::new());
            let reencoded = read_event(&event, &ids, None, &mut stats, &mut stat);
            assert!(
                reencoded.is_err() || what == "offset_ps as bytes",
                "{what}: re-encoded"
            );
            assert!(
                event_times(&event, None, Check::Fields).is_err(),
                "{what}: copied as it is"
            );
        }
        // Sound: a string, a double, bytes, an unknown field.
        let sound = stats_of(&[
            0x08, 0x01, 0x2a, 0x02, b'o', b'k', 0x11, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x32, 0x00,
            0x48, 0x07,
        ]);
        assert!(crate::xplane::proto::XEvent::decode(sound.as_slice()).is_ok());
        assert_eq!(
            event_times(&sound, None, Check::Fields).unwrap(),
            Some((0, 0))
        );
    }
}
