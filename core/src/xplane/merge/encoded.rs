//! Reading what an encoded `XEvent` or `XStat` holds without decoding it: the field keys the
//! merge matches on, an event's times, a stat's metadata id. The bottom of the merge: the
//! event-by-event merge (`events`), the splice (`splice`) and the index of a window (`input`)
//! all read encoded events through it.

use std::io;

use super::Check;
use crate::wire::xplane::{self as fields, event, stat};
use crate::wire::{check, FieldValue, Fields};

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
