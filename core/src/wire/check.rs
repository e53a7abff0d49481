//! Whether an encoded `XEvent` or `XStat` decodes as prost decodes it: what the merge checks
//! before it copies an event's or a stat's bytes as they are into its output, so that a
//! damaged input is refused rather than copied into a file no reader could decode.
//!
//! Each message's fields are written out in a `match` on their keys rather than walked through
//! a table of fields: the checks run on every byte a checked merge copies.

use std::io;

use super::varint::{invalid, varint_at};
use super::xplane::{event, stat};

/// Whether encoded `XEvent` `b` decodes as prost decodes it: every field whole, of a valid
/// number and known wire type, its known fields of their wire types (1, 2, 3, 5 varints; 4
/// stats, each checked as [`check_stat`] checks it).
pub fn check_event(b: &[u8]) -> io::Result<()> {
    const METADATA_ID: u64 = event::METADATA_ID.key();
    const OFFSET_PS: u64 = event::OFFSET_PS.key();
    const DURATION_PS: u64 = event::DURATION_PS.key();
    const NUM_OCCURRENCES: u64 = event::NUM_OCCURRENCES.key();
    const STATS: u64 = event::STATS.key();
    let mut at = 0;
    while at < b.len() {
        let key = varint_at(b, &mut at)?;
        match key {
            METADATA_ID | OFFSET_PS | DURATION_PS | NUM_OCCURRENCES => skip_varint(b, &mut at)?,
            STATS => {
                let stat = len_delimited(b, &mut at, "an event")?;
                check_stat(stat)?;
            }
            key => other_field(b, &mut at, key, event::LAST, "an event")?,
        }
    }
    Ok(())
}

/// Whether encoded `XStat` `b` decodes as prost decodes it: every field whole, of a valid
/// number and known wire type, its known fields of their wire types (1, 3, 4, 7 varints; 2 a
/// double; 5, 6 bytes), a `str_value` UTF-8.
pub fn check_stat(b: &[u8]) -> io::Result<()> {
    const METADATA_ID: u64 = stat::METADATA_ID.key();
    const UINT64_VALUE: u64 = stat::UINT64_VALUE.key();
    const INT64_VALUE: u64 = stat::INT64_VALUE.key();
    const REF_VALUE: u64 = stat::REF_VALUE.key();
    const DOUBLE_VALUE: u64 = stat::DOUBLE_VALUE.key();
    const STR_VALUE: u64 = stat::STR_VALUE.key();
    const BYTES_VALUE: u64 = stat::BYTES_VALUE.key();
    let mut at = 0;
    while at < b.len() {
        let key = varint_at(b, &mut at)?;
        match key {
            METADATA_ID | UINT64_VALUE | INT64_VALUE | REF_VALUE => skip_varint(b, &mut at)?,
            DOUBLE_VALUE => at = field_end(b, at, 8, "a stat")?,
            STR_VALUE => {
                let s = len_delimited(b, &mut at, "a stat")?;
                std::str::from_utf8(s).map_err(|_| invalid("a stat's string is not UTF-8"))?;
            }
            BYTES_VALUE => at = len_delimited(b, &mut at, "a stat").map(|_| at)?,
            key => other_field(b, &mut at, key, stat::LAST, "a stat")?,
        }
    }
    Ok(())
}

/// A field whose key `key` no known field of the message (numbered up to `known`) has: one of
/// those of another wire type is refused, as is a number of 0 or past 2^29 - 1, or an unknown
/// wire type (groups too); any other is stepped over.
fn other_field(b: &[u8], at: &mut usize, key: u64, known: u32, what: &str) -> io::Result<()> {
    let tag = key >> 3;
    if tag == 0 || tag > u64::from(prost::encoding::MAX_TAG) {
        return Err(invalid(&format!("{what}'s field numbered {tag}")));
    }
    if tag <= u64::from(known) {
        return Err(invalid(&format!(
            "{what}'s field {tag} of the wrong wire type"
        )));
    }
    match key & 7 {
        0 => skip_varint(b, at),
        1 => field_end(b, *at, 8, what).map(|end| *at = end),
        2 => len_delimited(b, at, what).map(|_| ()),
        5 => field_end(b, *at, 4, what).map(|end| *at = end),
        _ => Err(invalid(&format!("{what}'s field of an unknown wire type"))),
    }
}

/// The value of the length-delimited field at `b[*at..]` (its length first), `at` moved past.
fn len_delimited<'b>(b: &'b [u8], at: &mut usize, what: &str) -> io::Result<&'b [u8]> {
    let len = usize::try_from(varint_at(b, at)?).unwrap_or(usize::MAX);
    let end = field_end(b, *at, len, what)?;
    let value = &b[*at..end];
    *at = end;
    Ok(value)
}

/// Where a value of `len` bytes at `b[at..]` ends, if `b` holds it.
fn field_end(b: &[u8], at: usize, len: usize, what: &str) -> io::Result<usize> {
    at.checked_add(len)
        .filter(|&end| end <= b.len())
        .ok_or_else(|| invalid(&format!("a field runs past {what}")))
}

/// Steps over the varint at `b[*at..]` as [`varint_at`] reads it, without its value.
#[inline(always)]
fn skip_varint(b: &[u8], at: &mut usize) -> io::Result<()> {
    match b.get(*at) {
        Some(&byte) if byte < 0x80 => {
            *at += 1;
            Ok(())
        }
        _ => varint_at(b, at).map(|_| ()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xplane::proto::{XEvent, XStat};
    use prost::Message;

    /// What prost refuses to decode is refused, and what it decodes passes: a stat's
    /// `str_value` that is not UTF-8, a known field of the wrong wire type, a field numbered
    /// 0, a field that runs past its message; a string, a double, bytes, unknown
    /// fields of every wire type.
    #[test]
    fn the_checks_refuse_what_prost_refuses() {
        let event_of = |stat: &[u8]| {
            // metadata_id 1, offset 0, then the stat.
            let mut e = vec![0x08, 0x01, 0x10, 0x00, 0x22, stat.len() as u8];
            e.extend_from_slice(stat);
            e
        };
        let stats: [(&[u8], bool); 10] = [
            (&[0x08, 0x01, 0x2a, 0x02, 0xff, 0xfe], false),
            (&[0x0a, 0x01, 0x00, 0x18, 0x05], false),
            (&[0x08, 0x01, 0x02, 0x00], false),
            (&[0x08, 0x01, 0x2a, 0x05, b'o'], false),
            (&[0x08, 0x01, 0x11, 0, 0, 0], false),
            (&[0x08, 0x01, 0x2a, 0x02, b'o', b'k'], true),
            (&[0x11, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f], true),
            (&[0x32, 0x01, 0xff, 0x48, 0x07], true),
            (&[0x41, 1, 2, 3, 4, 5, 6, 7, 8, 0x4d, 1, 2, 3, 4], true),
            (&[0x52, 0x00, 0x18, 0x80, 0x01], true),
        ];
        for (stat, sound) in stats {
            assert_eq!(XStat::decode(stat).is_ok(), sound, "{stat:?}: prost");
            assert_eq!(check_stat(stat).is_ok(), sound, "{stat:?}");
            let event = event_of(stat);
            assert_eq!(XEvent::decode(event.as_slice()).is_ok(), sound, "{stat:?}");
            assert_eq!(check_event(&event).is_ok(), sound, "{stat:?} in an event");
        }
        for event in [&[0x08, 0x01, 0x12, 0x01, 0x00][..], &[0x28, 0x80], &[0x07]] {
            assert!(XEvent::decode(event).is_err(), "{event:?}: prost");
            assert!(check_event(event).is_err(), "{event:?}");
        }
        // A group (field 9), which prost steps over, is refused: no XPlane message has one.
        assert!(XStat::decode(&[0x4b, 0x4c][..]).is_ok());
        assert!(check_stat(&[0x4b, 0x4c]).is_err());
    }
}
