//! The fields of `proto/xplane.proto`'s messages, by number and wire type: the one place the
//! writer and the merge take them from (checked against prost's encoding of the messages in
//! the tests below), and the encoding of the events and stats the writer writes without
//! prost's structs.

use prost::encoding::encoded_len_varint;

use super::frame::Field;
use super::varint::{copy_small, raw_long_varint, raw_varint, WireRun};

/// `XSpace`.
pub mod space {
    use super::Field;
    pub const PLANES: Field = Field::len(1);
    pub const ERRORS: Field = Field::len(2);
    pub const WARNINGS: Field = Field::len(3);
    pub const HOSTNAMES: Field = Field::len(4);
}

/// `XPlane`.
pub mod plane {
    use super::Field;
    pub const ID: Field = Field::varint(1);
    pub const NAME: Field = Field::len(2);
    pub const LINES: Field = Field::len(3);
    pub const EVENT_METADATA: Field = Field::len(4);
    pub const STAT_METADATA: Field = Field::len(5);
    pub const STATS: Field = Field::len(6);
}

/// `XLine`.
pub mod line {
    use super::Field;
    pub const ID: Field = Field::varint(1);
    pub const NAME: Field = Field::len(2);
    pub const TIMESTAMP_NS: Field = Field::varint(3);
    pub const EVENTS: Field = Field::len(4);
    pub const DURATION_PS: Field = Field::varint(9);
    pub const DISPLAY_ID: Field = Field::varint(10);
    pub const DISPLAY_NAME: Field = Field::len(11);
}

/// `XEvent`.
pub mod event {
    use super::Field;
    pub const METADATA_ID: Field = Field::varint(1);
    /// A member of the `data` oneof: written whenever the event has it, 0 included.
    pub const OFFSET_PS: Field = Field::varint(2);
    pub const DURATION_PS: Field = Field::varint(3);
    pub const STATS: Field = Field::len(4);
    /// The `data` oneof's other member (aggregated events; this crate writes none).
    pub const NUM_OCCURRENCES: Field = Field::varint(5);
    /// The highest number of a field of the message.
    pub const LAST: u32 = NUM_OCCURRENCES.number;
}

/// `XStat`; every field but `metadata_id` is a member of the `value` oneof.
pub mod stat {
    use super::Field;
    pub const METADATA_ID: Field = Field::varint(1);
    pub const DOUBLE_VALUE: Field = Field::fixed64(2);
    pub const UINT64_VALUE: Field = Field::varint(3);
    pub const INT64_VALUE: Field = Field::varint(4);
    pub const STR_VALUE: Field = Field::len(5);
    pub const BYTES_VALUE: Field = Field::len(6);
    pub const REF_VALUE: Field = Field::varint(7);
    /// The highest number of a field of the message.
    pub const LAST: u32 = REF_VALUE.number;
}

/// Appends an `XEvent.stats` entry holding `XStat { metadata_id, <value>: v }` with a varint
/// value (`value`: `UINT64_VALUE`, `INT64_VALUE` as its two's-complement bits, or `REF_VALUE`),
/// as prost writes it: the id left out when 0 (proto3's default), the value never (a oneof
/// member).
#[inline(always)]
pub fn put_varint_stat(out: &mut Vec<u8>, metadata_id: i64, value: Field, v: u64) {
    let id = metadata_id as u64;
    if id.wrapping_sub(1) >= 0x7f {
        return put_varint_stat_of_any_id(out, id, value, v);
    }
    // The usual stat, its id one byte: key, length, the id's key and byte and the value's key
    // are five bytes known at once; the stat (at most 3 + 10 bytes) has a one-byte length.
    let len = 3 + encoded_len_varint(v) as u8;
    let mut run = WireRun::on(out);
    run.bytes([
        event::STATS.key_byte(),
        len,
        stat::METADATA_ID.key_byte(),
        id as u8,
        value.key_byte(),
    ]);
    run.varint(v);
    run.done();
}

/// [`put_varint_stat`] for an id of 0 (left out) or of more than one byte.
#[inline(never)]
fn put_varint_stat_of_any_id(out: &mut Vec<u8>, id: u64, value: Field, v: u64) {
    let id_len = if id == 0 {
        0
    } else {
        1 + encoded_len_varint(id)
    };
    let len = id_len + 1 + encoded_len_varint(v);
    let mut run = WireRun::on(out);
    run.byte(event::STATS.key_byte());
    run.varint(len as u64);
    if id != 0 {
        run.byte(stat::METADATA_ID.key_byte());
        run.varint(id);
    }
    run.byte(value.key_byte());
    run.varint(v);
    run.done();
}

/// Appends an `XLine.events` entry holding the event with fields 1–3 and `stats` (its
/// `XEvent.stats` entries, encoded), as prost writes it: `metadata_id` and `duration_ps` left
/// out when 0, `offset_ps` (a oneof member) never. The entry's length is written as one byte
/// and set once the event is (an event of 128 bytes or more, rare, moves its bytes along for
/// the longer length), so no field's length is worked out before it is written.
#[inline]
pub fn put_event(
    out: &mut Vec<u8>,
    metadata_id: i64,
    offset_ps: i64,
    duration_ps: i64,
    stats: &[u8],
) {
    let start = out.len();
    // The room is checked once, for the longest head and the stats: the fields are then
    // written without a check each (a compare and a branch per field, as many as the rest of
    // a field's writing on a short varint).
    out.reserve(EVENT_HEAD_BYTES + stats.len());
    let at = out.spare_capacity_mut().as_mut_ptr().cast::<u8>();
    // SAFETY: the vector's spare room from `at` holds `EVENT_HEAD_BYTES + stats.len()` bytes.
    // The head takes at most 35 of them (the key, the length's byte, three keys and three
    // varints of up to 10 bytes: `EVENT_HEAD_BYTES` is 48), the stats the rest; every byte
    // written is one of them, and `body + 2` bytes from `at` are written, in order, before the
    // length is set.
    let body = unsafe {
        at.write(line::EVENTS.key_byte());
        let mut n = 2;
        if metadata_id != 0 {
            at.add(n).write(event::METADATA_ID.key_byte());
            n += 1 + raw_varint(at.add(n + 1), metadata_id as u64);
        }
        // The offset and the duration in ps take several bytes (a µs is 3), written by their
        // length rather than a loop that tests every byte.
        at.add(n).write(event::OFFSET_PS.key_byte());
        n += 1 + raw_long_varint(at.add(n + 1), offset_ps as u64);
        if duration_ps != 0 {
            at.add(n).write(event::DURATION_PS.key_byte());
            n += 1 + raw_long_varint(at.add(n + 1), duration_ps as u64);
        }
        copy_small(
            std::slice::from_raw_parts_mut(at.add(n).cast(), stats.len()),
            stats,
        );
        n + stats.len() - 2
    };
    match u8::try_from(body) {
        Ok(len) if len < 0x80 => {
            // SAFETY: byte 1 of the room, within it (above); `body + 2` bytes were written.
            unsafe {
                at.add(1).write(len);
                out.set_len(start + body + 2);
            }
        }
        _ => {
            // SAFETY: as above; the length's byte is set by `lengthen_entry`.
            unsafe {
                at.add(1).write(0);
                out.set_len(start + body + 2);
            }
            lengthen_entry(out, start, body);
        }
    }
}

/// Gives the entry at `start` (key, a one-byte placeholder, then `body` bytes) the length's
/// varint in full, moving the body along by the bytes it adds.
#[cold]
fn lengthen_entry(out: &mut Vec<u8>, start: usize, body: usize) {
    let len = super::varints(&[body as u64]);
    let from = start + 2;
    let end = out.len();
    out.resize(end + len.len() - 1, 0);
    out.copy_within(from..end, start + 1 + len.len());
    out[start + 1..start + 1 + len.len()].copy_from_slice(&len);
}

/// Bytes a [`put_event`] run may take beyond the stats: key, length and fields 1–3 (keys
/// and varints of up to 10 bytes).
pub const EVENT_HEAD_BYTES: usize = super::WIRE_RUN_BYTES;

/// Appends an `XLine.events` entry holding `event`, an encoded `XEvent`.
pub fn put_event_entry(out: &mut Vec<u8>, event: &[u8]) {
    put_entry(out, line::EVENTS, event);
}

/// Appends a length-delimited entry of `field` holding `bytes`.
pub fn put_entry(out: &mut Vec<u8>, field: Field, bytes: &[u8]) {
    prost::encoding::encode_varint(field.key(), out);
    prost::encoding::encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// Appends a varint field: its key and `v`.
pub fn put_varint(out: &mut Vec<u8>, field: Field, v: u64) {
    prost::encoding::encode_varint(field.key(), out);
    prost::encoding::encode_varint(v, out);
}

/// The `XLine.events` entry at the front of `entries` (as [`put_event`] and
/// [`put_event_entry`] write them): its length, its `offset_ps` and `duration_ps`. Reads only
/// the fields that come before the stats (fields 1–3 are written first); entries this crate
/// wrote are whole, so a damaged one reads as what it holds, never an error.
pub fn event_entry_times(entries: &[u8]) -> (usize, i64, i64) {
    let mut at = 1;
    let body = super::varint_at(entries, &mut at).unwrap_or(0) as usize;
    let end = at.saturating_add(body).min(entries.len());
    let mut fields = super::Fields::new(&entries[at.min(end)..end], "an event");
    let (mut offset, mut duration) = (0, 0);
    while let Ok(Some((key, value))) = fields.next_field() {
        match (key, value) {
            (OFFSET_PS_KEY, super::FieldValue::Varint(v)) => offset = v as i64,
            (DURATION_PS_KEY, super::FieldValue::Varint(v)) => duration = v as i64,
            (METADATA_ID_KEY, _) => {}
            _ => break,
        }
    }
    (end, offset, duration)
}

const METADATA_ID_KEY: u64 = event::METADATA_ID.key();
const OFFSET_PS_KEY: u64 = event::OFFSET_PS.key();
const DURATION_PS_KEY: u64 = event::DURATION_PS.key();

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{FieldValue, Fields};
    use crate::xplane::proto::{
        x_event, x_stat, XEvent, XEventMetadata, XLine, XPlane, XSpace, XStat, XStatMetadata,
    };
    use prost::Message;

    /// The fields of `bytes` as keys, in order.
    fn keys(bytes: &[u8]) -> Vec<u64> {
        let mut fields = Fields::new(bytes, "a message");
        let mut keys = Vec::new();
        while let Some((key, _)) = fields.next_field().unwrap() {
            keys.push(key);
        }
        keys
    }

    fn keys_of(fields: &[Field]) -> Vec<u64> {
        fields.iter().map(|f| f.key()).collect()
    }

    fn stat(value: x_stat::Value) -> XStat {
        XStat {
            metadata_id: 3,
            value: Some(value),
        }
    }

    /// Every field of every message, set, encoded by prost: its keys are the constants', in
    /// the order prost writes them (by number, a oneof at its lowest: the writer splices
    /// entries where their number falls, and the merge reads an event's fields 1–3 before its
    /// stats).
    #[test]
    fn the_constants_are_the_fields_prost_writes() {
        let space = XSpace {
            planes: vec![XPlane::default()],
            errors: vec!["e".into()],
            warnings: vec!["w".into()],
            hostnames: vec!["h".into()],
        };
        let in_space = [
            space::PLANES,
            space::ERRORS,
            space::WARNINGS,
            space::HOSTNAMES,
        ];
        assert_eq!(keys(&space.encode_to_vec()), keys_of(&in_space));
        let plane = XPlane {
            id: 1,
            name: "p".into(),
            lines: vec![XLine::default()],
            event_metadata: [(1, XEventMetadata::default())].into(),
            stat_metadata: [(1, XStatMetadata::default())].into(),
            stats: vec![XStat::default()],
        };
        let in_plane = [
            plane::ID,
            plane::NAME,
            plane::LINES,
            plane::EVENT_METADATA,
            plane::STAT_METADATA,
            plane::STATS,
        ];
        assert_eq!(keys(&plane.encode_to_vec()), keys_of(&in_plane));
        let line = XLine {
            id: 1,
            display_id: 2,
            name: "l".into(),
            display_name: "d".into(),
            timestamp_ns: 3,
            duration_ps: 4,
            events: vec![XEvent::default()],
        };
        let in_line = [
            line::ID,
            line::NAME,
            line::TIMESTAMP_NS,
            line::EVENTS,
            line::DURATION_PS,
            line::DISPLAY_ID,
            line::DISPLAY_NAME,
        ];
        assert_eq!(keys(&line.encode_to_vec()), keys_of(&in_line));
        for (data, member) in [
            (x_event::Data::OffsetPs(5), event::OFFSET_PS),
            (x_event::Data::NumOccurrences(5), event::NUM_OCCURRENCES),
        ] {
            let e = XEvent {
                metadata_id: 1,
                duration_ps: 2,
                stats: vec![XStat::default()],
                data: Some(data),
            };
            // A oneof where its lowest number falls, whichever member it holds.
            let want = [event::METADATA_ID, member, event::DURATION_PS, event::STATS];
            assert_eq!(keys(&e.encode_to_vec()), keys_of(&want));
            assert!(want.iter().all(|f| f.number <= event::LAST));
        }
        for (value, member) in [
            (x_stat::Value::DoubleValue(0.5), stat::DOUBLE_VALUE),
            (x_stat::Value::Uint64Value(5), stat::UINT64_VALUE),
            (x_stat::Value::Int64Value(-5), stat::INT64_VALUE),
            (x_stat::Value::StrValue("s".into()), stat::STR_VALUE),
            (x_stat::Value::BytesValue(vec![1]), stat::BYTES_VALUE),
            (x_stat::Value::RefValue(5), stat::REF_VALUE),
        ] {
            let want = [stat::METADATA_ID, member];
            assert_eq!(keys(&stat(value).encode_to_vec()), keys_of(&want));
            assert!(member.number <= stat::LAST);
        }
    }

    /// The other way: messages written by key from the constants decode by prost into the
    /// fields the constants name.
    #[test]
    fn what_the_constants_write_prost_reads_into_the_named_fields() {
        let mut b = Vec::new();
        put_varint(&mut b, line::ID, 7);
        put_entry(&mut b, line::NAME, b"n");
        put_varint(&mut b, line::TIMESTAMP_NS, 8);
        put_varint(&mut b, line::DURATION_PS, 9);
        put_varint(&mut b, line::DISPLAY_ID, 10);
        put_entry(&mut b, line::DISPLAY_NAME, b"d");
        let mut e = Vec::new();
        put_varint(&mut e, event::NUM_OCCURRENCES, 3);
        put_event_entry(&mut b, &e);
        let line = XLine::decode(b.as_slice()).unwrap();
        assert_eq!(
            line,
            XLine {
                id: 7,
                display_id: 10,
                name: "n".into(),
                display_name: "d".into(),
                timestamp_ns: 8,
                duration_ps: 9,
                events: vec![XEvent {
                    data: Some(x_event::Data::NumOccurrences(3)),
                    ..XEvent::default()
                }],
            }
        );
        let mut b = Vec::new();
        put_varint(&mut b, plane::ID, 4);
        put_entry(&mut b, plane::NAME, b"p");
        put_entry(&mut b, plane::LINES, &[]);
        put_entry(&mut b, plane::STATS, &[]);
        let mut md = Vec::new();
        put_varint(&mut md, Field::varint(1), 2);
        put_entry(&mut b, plane::EVENT_METADATA, &md);
        put_entry(&mut b, plane::STAT_METADATA, &md);
        let plane = XPlane::decode(b.as_slice()).unwrap();
        assert_eq!((plane.id, plane.name.as_str()), (4, "p"));
        assert_eq!((plane.lines.len(), plane.stats.len()), (1, 1));
        assert_eq!(plane.event_metadata.keys().collect::<Vec<_>>(), [&2]);
        assert_eq!(plane.stat_metadata.keys().collect::<Vec<_>>(), [&2]);
        let mut b = Vec::new();
        for f in [
            space::PLANES,
            space::ERRORS,
            space::WARNINGS,
            space::HOSTNAMES,
        ] {
            put_entry(&mut b, f, &[]);
        }
        let space = XSpace::decode(b.as_slice()).unwrap();
        assert_eq!(space.planes.len(), 1);
        assert_eq!(
            [space.errors, space.warnings, space.hostnames],
            [[""], [""], [""]]
        );
        let mut b = Vec::new();
        put_varint(&mut b, stat::METADATA_ID, 2);
        put_entry(&mut b, stat::BYTES_VALUE, b"x");
        assert_eq!(
            XStat::decode(b.as_slice()).unwrap(),
            XStat {
                metadata_id: 2,
                value: Some(x_stat::Value::BytesValue(b"x".to_vec()))
            }
        );
        put_entry(&mut b, stat::STR_VALUE, b"y");
        let mut double = stat::DOUBLE_VALUE.key_byte().to_le_bytes().to_vec();
        double.extend(0.5f64.to_le_bytes());
        for (bytes, want) in [
            (b.clone(), x_stat::Value::StrValue("y".into())),
            (double, x_stat::Value::DoubleValue(0.5)),
        ] {
            assert_eq!(XStat::decode(bytes.as_slice()).unwrap().value, Some(want));
        }
    }

    /// The stats and event heads written without structs are prost's bytes, value for value:
    /// ids of 0 and 1, negative and 10-byte varints, zero offsets and durations.
    #[test]
    fn events_and_stats_written_without_structs_are_prost_s() {
        let values = [0u64, 1, 127, 128, 300, u64::MAX >> 1, u64::MAX];
        for &v in &values {
            for id in [0i64, 1, 127, 128, 200, -1] {
                let mut got = Vec::new();
                put_varint_stat(&mut got, id, stat::UINT64_VALUE, v);
                put_varint_stat(&mut got, id, stat::INT64_VALUE, v);
                put_varint_stat(&mut got, id, stat::REF_VALUE, v);
                let mut want = Vec::new();
                for value in [
                    x_stat::Value::Uint64Value(v),
                    x_stat::Value::Int64Value(v as i64),
                    x_stat::Value::RefValue(v),
                ] {
                    let s = XStat {
                        metadata_id: id,
                        value: Some(value),
                    };
                    prost::encoding::message::encode(event::STATS.number, &s, &mut want);
                }
                assert_eq!(got, want, "{id} {v}");
                let mut entry = Vec::new();
                put_event(&mut entry, id, v as i64, -id, &got);
                let event = XEvent {
                    metadata_id: id,
                    duration_ps: -id,
                    stats: XEvent::decode(got.as_slice()).unwrap().stats,
                    data: Some(x_event::Data::OffsetPs(v as i64)),
                };
                let mut want = Vec::new();
                prost::encoding::message::encode(line::EVENTS.number, &event, &mut want);
                assert_eq!(entry, want, "{id} {v}");
                assert_eq!(event_entry_times(&entry), (entry.len(), v as i64, -id));
            }
        }
    }

    /// Events with stats of every length the writer copies in pieces and past it (the entry's
    /// length one byte, then two) are prost's, after what the vector held.
    #[test]
    fn events_with_stats_of_every_length_are_prost_s() {
        for n in 0..40 {
            let stats: Vec<XStat> = (0..n)
                .map(|i| XStat {
                    metadata_id: i + 1,
                    value: Some(x_stat::Value::Uint64Value(1 << (i * 3 % 64))),
                })
                .collect();
            let mut bytes = Vec::new();
            for s in &stats {
                prost::encoding::message::encode(event::STATS.number, s, &mut bytes);
            }
            for (id, offset, duration) in [(0, 0, 0), (7, 1 << 40, 3_000_000), (300, -1, -5)] {
                let event = XEvent {
                    metadata_id: id,
                    duration_ps: duration,
                    stats: stats.clone(),
                    data: Some(x_event::Data::OffsetPs(offset)),
                };
                let mut want = vec![9];
                prost::encoding::message::encode(line::EVENTS.number, &event, &mut want);
                let mut got = vec![9];
                put_event(&mut got, id, offset, duration, &bytes);
                assert_eq!(got, want, "{n} stats, {} bytes", bytes.len());
            }
        }
    }

    /// An event of 128 bytes or more moves its bytes along for its longer length: the entry
    /// is prost's at every length the length's varint changes size, after what the vector held.
    #[test]
    fn long_events_are_written_as_prost_writes_them() {
        for stats_len in [100, 108, 115, 116, 117, 200, 16_370, 16_371, 16_400, 70_000] {
            let value = "x".repeat(stats_len);
            let s = XStat {
                metadata_id: 1,
                value: Some(x_stat::Value::StrValue(value)),
            };
            let mut stats = Vec::new();
            prost::encoding::message::encode(event::STATS.number, &s, &mut stats);
            let event = XEvent {
                metadata_id: 3,
                duration_ps: 1 << 40,
                stats: vec![s],
                data: Some(x_event::Data::OffsetPs(1 << 50)),
            };
            let mut want = vec![9, 9];
            prost::encoding::message::encode(line::EVENTS.number, &event, &mut want);
            let mut got = vec![9, 9];
            put_event(&mut got, 3, 1 << 50, 1 << 40, &stats);
            assert_eq!(got, want, "{stats_len}");
        }
    }

    #[test]
    fn an_event_entry_s_times_are_read_before_its_stats() {
        let mut e = Vec::new();
        put_varint(&mut e, event::OFFSET_PS, 5);
        put_entry(&mut e, event::STATS, &[0x18, 0x01]);
        put_varint(&mut e, event::DURATION_PS, 9);
        let mut entry = Vec::new();
        put_event_entry(&mut entry, &e);
        entry.push(0x22);
        // The duration after a stat is not read: the writer puts fields 1–3 first.
        assert_eq!(event_entry_times(&entry), (entry.len() - 1, 5, 0));
        let mut b = Fields::new(&e, "an event");
        assert_eq!(b.next_field().unwrap(), Some((0x10, FieldValue::Varint(5))));
    }
}
