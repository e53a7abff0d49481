//! Reading what an encoded `XEvent` or `XStat` holds without decoding it: the field keys the
//! merge matches on, an event's times, a stat's metadata id. The bottom of the merge: the
//! event-by-event merge (`events`), the splice (`splice`) and the index of a window (`input`)
//! all read encoded events through it.

use std::io;

use super::Check;
use crate::wire::xplane::{self as fields, event, stat};
use crate::wire::{check, varint_at, FieldValue, Fields};

/// Field number of `XLine.events`.
pub(super) const LINE_EVENTS: u32 = fields::line::EVENTS.number;
/// The keys of the `XEvent` and `XStat` fields the merge reads.
pub(super) const EVENT_METADATA_ID: u64 = event::METADATA_ID.key();
pub(super) const EVENT_OFFSET_PS: u64 = event::OFFSET_PS.key();
pub(super) const EVENT_DURATION_PS: u64 = event::DURATION_PS.key();
pub(super) const EVENT_STATS: u64 = event::STATS.key();
pub(super) const STAT_METADATA_ID: u64 = stat::METADATA_ID.key();
pub(super) const STAT_REF_VALUE: u64 = stat::REF_VALUE.key();

/// `offset_ps` and `duration_ps` of one encoded `XEvent` copied as it is; `None` when it holds
/// `drop_stat`. Our writers put fields 1–3 first, so with only bounds to check and no stat to
/// look for, the reading stops at the first stat.
pub(super) fn event_times(
    b: &[u8],
    drop_stat: Option<i64>,
    check: Check,
) -> io::Result<Option<(i64, i64)>> {
    if check == Check::Fields {
        check::check_event(b)?;
    }
    let (mut offset, mut duration) = (0i64, 0i64);
    let mut cursor = Fields::new(b, "an event");
    while let Some((key, value)) = cursor.next_field()? {
        match (key, value) {
            (EVENT_OFFSET_PS, FieldValue::Varint(v)) => offset = v as i64,
            (EVENT_DURATION_PS, FieldValue::Varint(v)) => duration = v as i64,
            (EVENT_STATS, _) if drop_stat.is_none() => break,
            (EVENT_STATS, FieldValue::Len(one)) if stat_metadata_id(one)? == drop_stat => {
                return Ok(None)
            }
            _ => {}
        }
    }
    Ok(Some((offset, duration)))
}

/// What the index of a window reads of one encoded `XEvent`, in one pass: its times as
/// [`event_times`] reads them without a stat to look for (fields before the first stat), and
/// whether it holds the stat `open` (`false` without one), as [`event_times`] with `open`
/// says. The same answers and the same errors as those two readings, with the fields before
/// the first stat read once.
pub(super) fn event_times_and_stat(b: &[u8], open: Option<i64>) -> io::Result<(i64, i64, bool)> {
    match our_event_times_and_stat(b, open) {
        Some(read) => Ok(read),
        None => any_event_times_and_stat(b, open),
    }
}

/// [`event_times_and_stat`] for an event as our writers encode it (fields 1–3, then stats,
/// each with its `metadata_id` first), read byte by byte: `None` for anything else, damage
/// included, which the reading of any event then answers.
#[inline]
fn our_event_times_and_stat(b: &[u8], open: Option<i64>) -> Option<(i64, i64, bool)> {
    let (mut offset, mut duration) = (0i64, 0i64);
    let mut at = 0;
    loop {
        if at == b.len() {
            return Some((offset, duration, false));
        }
        match varint_at(b, &mut at).ok()? {
            EVENT_METADATA_ID => {
                varint_at(b, &mut at).ok()?;
            }
            EVENT_OFFSET_PS => offset = varint_at(b, &mut at).ok()? as i64,
            EVENT_DURATION_PS => duration = varint_at(b, &mut at).ok()? as i64,
            EVENT_STATS => break,
            _ => return None,
        }
    }
    // At a stat's length, its key read.
    loop {
        let len = usize::try_from(varint_at(b, &mut at).ok()?).ok()?;
        let end = at.checked_add(len).filter(|&end| end <= b.len())?;
        let Some(open) = open else {
            return Some((offset, duration, false));
        };
        let stat = &b[..end];
        if stat.get(at) != Some(&(STAT_METADATA_ID as u8)) {
            return None;
        }
        at += 1;
        if varint_at(stat, &mut at).ok()? as i64 == open {
            return Some((offset, duration, true));
        }
        at = end;
        if at == b.len() {
            return Some((offset, duration, false));
        }
        if varint_at(b, &mut at).ok()? != EVENT_STATS {
            return None;
        }
    }
}

/// [`event_times_and_stat`] for any event, field by field.
fn any_event_times_and_stat(b: &[u8], open: Option<i64>) -> io::Result<(i64, i64, bool)> {
    let (mut offset, mut duration) = (0i64, 0i64);
    let mut cursor = Fields::new(b, "an event");
    while let Some((key, value)) = cursor.next_field()? {
        match (key, value) {
            (EVENT_OFFSET_PS, FieldValue::Varint(v)) => offset = v as i64,
            (EVENT_DURATION_PS, FieldValue::Varint(v)) => duration = v as i64,
            (EVENT_STATS, _) if open.is_none() => break,
            (EVENT_STATS, value) => {
                // The times are those before the first stat; the stats are read for `open`.
                return Ok((offset, duration, holds_stat(cursor, value, open)?));
            }
            _ => {}
        }
    }
    Ok((offset, duration, false))
}

/// Whether the stats from `first` (the value of the field just read from `cursor`) on hold
/// `open`, reading on to the event's end as [`event_times`] does.
fn holds_stat(
    mut cursor: Fields<'_>,
    first: FieldValue<'_>,
    open: Option<i64>,
) -> io::Result<bool> {
    let mut value = first;
    loop {
        if let FieldValue::Len(one) = value {
            if stat_metadata_id(one)? == open {
                return Ok(true);
            }
        }
        // The fields after the first stat: only stats are looked at.
        loop {
            match cursor.next_field()? {
                None => return Ok(false),
                Some((EVENT_STATS, v)) => {
                    value = v;
                    break;
                }
                Some(_) => {}
            }
        }
    }
}

/// The `metadata_id` of one encoded `XStat` (field 1, first as our writers put it), if any.
fn stat_metadata_id(b: &[u8]) -> io::Result<Option<i64>> {
    let mut cursor = Fields::new(b, "a stat");
    while let Some((key, value)) = cursor.next_field()? {
        if let (STAT_METADATA_ID, FieldValue::Varint(id)) = (key, value) {
            return Ok(Some(id as i64));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index's one reading of an event gives what the two readings it replaces give:
    /// the times before the first stat, whether the event holds the stat looked for, and an
    /// error where either would fail, on events sound and damaged.
    #[test]
    fn one_reading_answers_as_the_two_it_replaces() {
        // (metadata_id 3, offset 10, duration 4) then the stats given, then what follows.
        let event = |stats: &[&[u8]], after: &[u8]| {
            let mut b = vec![0x08, 0x03, 0x10, 0x0a, 0x18, 0x04];
            for st in stats {
                b.push(0x22);
                b.push(st.len() as u8);
                b.extend_from_slice(st);
            }
            b.extend_from_slice(after);
            b
        };
        let (stat5, stat9, no_id) = (
            &[0x08, 0x05, 0x30, 0x01][..],
            &[0x08, 0x09][..],
            &[0x30, 0x02][..],
        );
        let events = [
            event(&[], &[]),
            event(&[stat5], &[]),
            event(&[stat9, stat5], &[]),
            event(&[no_id, stat9], &[]),
            // A later offset after the stats: the times are those before them.
            event(&[stat9], &[0x10, 0x63]),
            // A stat whose length runs past the event, after the one looked for or before it.
            event(&[stat5], &[0x22, 0x09, 0x08]),
            event(&[stat9], &[0x22, 0x09, 0x08]),
            // A damaged stat: its id's varint never ends.
            event(&[&[0x08, 0xff]], &[]),
            // Longer varints: an offset of 300, a stat id written in two bytes.
            vec![0x10, 0xac, 0x02, 0x22, 0x03, 0x08, 0x85, 0x00],
            // A stat whose length runs past the event as the first one.
            vec![0x10, 0x01, 0x22, 0x05, 0x08, 0x05],
            // A field of another number before the stats.
            vec![0x28, 0x01, 0x10, 0x07, 0x22, 0x02, 0x08, 0x05],
            // A wire type no field has, before the stats and after them.
            vec![0x08, 0x03, 0x0f],
            event(&[stat9], &[0x0f]),
        ];
        for (i, b) in events.iter().enumerate() {
            for open in [None, Some(5), Some(9)] {
                let two = event_times(b, None, Check::Bounds).and_then(|times| {
                    let closed = match open {
                        Some(_) => event_times(b, open, Check::Bounds)?.is_some(),
                        None => true,
                    };
                    Ok((times.unwrap_or((0, 0)), !closed))
                });
                let one = event_times_and_stat(b, open).map(|(o, d, held)| ((o, d), held));
                let any = any_event_times_and_stat(b, open).map(|(o, d, held)| ((o, d), held));
                assert_eq!(one.is_ok(), any.is_ok(), "event {i}, {open:?}");
                if let (Ok(one), Ok(any)) = (&one, &any) {
                    assert_eq!(one, any, "event {i}, {open:?}");
                }
                match (two, one) {
                    (Ok(two), Ok(one)) => assert_eq!(two, one, "event {i}, {open:?}"),
                    (Err(_), Err(_)) => {}
                    (two, one) => panic!("event {i}, {open:?}: {two:?} against {one:?}"),
                }
            }
        }
    }
}
