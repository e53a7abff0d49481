//! A line of the output spliced from its inputs' encoded events where they lie in their files:
//! each input's piece of the line is in time order already (the writer's order), so the merge
//! takes runs of events from one piece until another's next event comes first, and copies each
//! run as one byte range. Where the run ends is found from a sample of the piece's event times
//! taken when the input was indexed ([`EventIndex`], every [`SAMPLE`]-th event) and at most
//! that many events read after it; no event is decoded, re-encoded or copied through memory
//! one by one. Windows cut in time overlap only where an event spans a cut (a range open
//! across it, a call handed on): a line of N windows is then a few ranges per window.
//!
//! A roctx range an input before the last shows open at its end (`open_at_end`) is left out,
//! as the event-by-event merge leaves it out: the index notes where those events lie, and the
//! ranges copied go around them.

use std::cmp::Reverse;
use std::fs::File;
use std::io::{self, Write};
use std::sync::Arc;

use super::encoded::{event_times, event_times_and_stat, LINE_EVENTS};
use super::Check;
use crate::wire::{check, FileFields, RawField};

/// An event's place in the writer's line order: start, the longer first.
pub(super) type Key = (i64, Reverse<i64>);

/// Every this many events of a line, the index notes the event's time and place (as the
/// writer does where it hands them over, `builder::EventPlaces`).
pub(super) const SAMPLE: u64 = crate::xplane::builder::SAMPLE_EVERY;

/// One event noted by the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sample {
    key: Key,
    /// Where its `events` entry begins in the file.
    pos: u64,
    /// Its number in the line.
    n: u64,
}

/// Where one input line's events lie, and in what order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct EventIndex {
    /// From the first event's entry to the end of the last's.
    start: u64,
    end: u64,
    count: u64,
    samples: Vec<Sample>,
    /// The events lie together (no other field between two) in the line's order: runs of them
    /// may be copied as byte ranges.
    pub(super) spliceable: bool,
    /// The largest end (offset + duration) among the events, ps from the line's timestamp.
    max_end_ps: Option<i64>,
    /// The events that hold `open_at_end` (their entries' ranges), and the largest end among
    /// the others.
    pub(super) open_at_end: Vec<(u64, u64)>,
    max_end_closed_ps: Option<i64>,
}

impl EventIndex {
    /// The index of a line whose writer noted where its events lie (`p`), its first event's
    /// entry at `at` in the file: what reading them gives ([`EventIndexer`]), for the events
    /// as our writer lays them (together, in the line's order).
    pub(super) fn placed(p: &crate::xplane::builder::EventPlaces, at: u64) -> EventIndex {
        EventIndex {
            start: if p.count == 0 { 0 } else { at },
            end: if p.count == 0 { 0 } else { at + p.len },
            count: p.count,
            samples: p
                .samples
                .iter()
                .map(|s| Sample {
                    key: (s.offset_ps, Reverse(s.duration_ps)),
                    pos: at + s.pos,
                    n: s.n,
                })
                .collect(),
            spliceable: true,
            max_end_ps: p.max_end_ps,
            open_at_end: p
                .open_at_end
                .iter()
                .map(|&(a, b)| (at + a, at + b))
                .collect(),
            max_end_closed_ps: p.max_end_closed_ps,
        }
    }
}

impl EventIndex {
    /// From its first event's entry to the end of its last's.
    pub(super) fn span(&self) -> (u64, u64) {
        (self.start, self.end)
    }

    pub(super) fn count(&self) -> u64 {
        self.count
    }

    /// Keeps at most `most` of its samples: the first and every k-th after it, k the fewest
    /// that leaves that many. A place is then looked for from a sample up to k × [`SAMPLE`]
    /// events before it.
    pub(super) fn thin_samples(&mut self, most: usize) {
        let k = self.samples.len().div_ceil(most.max(1));
        if k <= 1 {
            return;
        }
        let mut i = 0;
        self.samples.retain(|_| {
            i += 1;
            (i - 1) % k == 0
        });
        self.samples.shrink_to_fit();
    }

    /// The events noted (every [`SAMPLE`]-th): their keys and where their entries begin.
    pub(super) fn samples(&self) -> impl Iterator<Item = (Key, u64)> + '_ {
        self.samples.iter().map(|s| (s.key, s.pos))
    }

    /// The largest end among its events, ps from the line's timestamp: all of them, or those
    /// not open at the end (`closed`).
    pub(super) fn max_end_ps(&self, closed: bool) -> Option<i64> {
        if closed {
            self.max_end_closed_ps
        } else {
            self.max_end_ps
        }
    }
}

/// Builds an [`EventIndex`] as a line's fields are read in order.
#[derive(Debug, Default)]
pub(super) struct EventIndexer {
    index: EventIndex,
    last_key: Option<Key>,
    /// A field other than an event came after the first event.
    gap: bool,
    sorted: bool,
    together: bool,
}

impl EventIndexer {
    /// The event whose entry lies in `[at, end)`, its body `bytes`, checked as `check` says
    /// (it may be copied as it is); `open`: the plane's `open_at_end` stat id.
    pub(super) fn event(
        &mut self,
        at: u64,
        end: u64,
        bytes: &[u8],
        check: Check,
        open: Option<i64>,
    ) -> io::Result<()> {
        if check == Check::Fields {
            check::check_event(bytes)?;
        }
        let (offset, duration, held_open) = event_times_and_stat(bytes, open)?;
        let e = offset.saturating_add(duration);
        let closed = !held_open;
        if closed {
            let c = &mut self.index.max_end_closed_ps;
            *c = Some(c.map_or(e, |m| m.max(e)));
        } else {
            self.index.open_at_end.push((at, end));
        }
        let key = (offset, Reverse(duration));
        let i = &mut self.index;
        if i.count == 0 {
            i.start = at;
            self.sorted = true;
            self.together = true;
        } else if self.gap || at != i.end {
            self.together = false;
        }
        if self.last_key.is_some_and(|last| key < last) {
            self.sorted = false;
        }
        if i.count % SAMPLE == 0 {
            i.samples.push(Sample {
                key,
                pos: at,
                n: i.count,
            });
        }
        self.last_key = Some(key);
        i.end = end;
        i.count += 1;
        i.max_end_ps = Some(i.max_end_ps.map_or(e, |m| m.max(e)));
        Ok(())
    }

    /// A field of the line that is not an event.
    pub(super) fn other_field(&mut self) {
        if self.index.count > 0 {
            self.gap = true;
        }
    }

    pub(super) fn finish(self) -> EventIndex {
        let mut i = self.index;
        i.spliceable = i.count == 0 || (self.sorted && self.together);
        i
    }
}

/// One input's piece of the line being spliced.
pub(super) struct Piece<'a> {
    pub(super) file: Arc<File>,
    pub(super) index: &'a EventIndex,
    /// The input's place in time order (ties go to the earlier).
    pub(super) input: usize,
    /// Its `open_at_end` events are left out (an input before the last).
    pub(super) drop_open: bool,
}

/// A byte range of an input file copied into the output as it is.
pub(super) struct Range {
    pub(super) file: Arc<File>,
    pub(super) start: u64,
    pub(super) end: u64,
}

/// A line's events as ranges of its inputs' files, in the output's order.
#[derive(Default)]
pub(super) struct Spliced {
    pub(super) ranges: Vec<Range>,
    pub(super) bytes: u64,
    pub(super) events: u64,
    pub(super) dropped: u64,
    /// The largest end among the events kept, ps from the line's timestamp.
    pub(super) max_end_ps: Option<i64>,
}

/// Where one piece is: its next event (`key` at `pos`, `None` past the last), read through
/// `reader` (positioned after it), and `mark`, where what is not yet copied begins.
struct Run<'a> {
    piece: &'a Piece<'a>,
    reader: FileFields,
    pos: u64,
    n: u64,
    key: Option<Key>,
    mark: u64,
    mark_n: u64,
}

impl<'a> Run<'a> {
    fn new(piece: &'a Piece<'a>) -> io::Result<Self> {
        let i = piece.index;
        let mut run = Run {
            piece,
            reader: FileFields::new(piece.file.clone(), i.start, i.end),
            pos: i.start,
            n: 0,
            key: None,
            mark: i.start,
            mark_n: 0,
        };
        run.settle()?;
        Ok(run)
    }

    fn drops(&self) -> &'a [(u64, u64)] {
        if self.piece.drop_open {
            &self.piece.index.open_at_end
        } else {
            &[]
        }
    }

    fn ordered(&self) -> Option<(Key, usize)> {
        self.key.map(|k| (k, self.piece.input))
    }

    /// Reads the event at `pos`, stepping over those left out; `key` is `None` at the end.
    fn settle(&mut self) -> io::Result<()> {
        let drops = self.drops();
        loop {
            if self.n >= self.piece.index.count {
                self.key = None;
                self.pos = self.piece.index.end;
                return Ok(());
            }
            let Some((number, RawField::Len(len))) = self.reader.field()? else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a line's events changed since the file was indexed",
                ));
            };
            debug_assert_eq!(number, LINE_EVENTS);
            let left_out = drops.binary_search_by_key(&self.pos, |d| d.0).is_ok();
            let bytes = self.reader.bytes(len)?;
            if left_out {
                self.n += 1;
                self.pos = self.reader.position();
                continue;
            }
            let (offset, duration) = event_times(bytes, None, Check::Bounds)?.unwrap_or((0, 0));
            self.key = Some((offset, Reverse(duration)));
            return Ok(());
        }
    }

    /// Moves past the event read (its entry ends where the reader is).
    fn step(&mut self) -> io::Result<()> {
        self.pos = self.reader.position();
        self.n += 1;
        self.settle()
    }

    /// Moves to the first event not before `bound` (in key, then input order): to the last
    /// sample before it, then event by event.
    fn advance_to(&mut self, bound: (Key, usize)) -> io::Result<()> {
        let input = self.piece.input;
        let samples = &self.piece.index.samples;
        let j = samples.partition_point(|s| (s.key, input) < bound);
        if let Some(s) = j
            .checked_sub(1)
            .map(|j| samples[j])
            .filter(|s| s.n > self.n)
        {
            self.reader = FileFields::new(self.piece.file.clone(), s.pos, self.piece.index.end);
            self.pos = s.pos;
            self.n = s.n;
            self.settle()?;
        }
        while self.ordered().is_some_and(|o| o < bound) {
            self.step()?;
        }
        Ok(())
    }

    /// To the end of the piece.
    fn finish(&mut self) {
        self.pos = self.piece.index.end;
        self.n = self.piece.index.count;
        self.key = None;
    }

    /// What lies from `mark` to `pos` goes into `out`, around the events left out.
    fn emit(&mut self, out: &mut Spliced) {
        let (from, to) = (self.mark, self.pos);
        let drops = self.drops();
        let first = drops.partition_point(|d| d.0 < from);
        let mut at = from;
        let mut dropped = 0;
        for &(a, b) in drops[first..].iter().take_while(|d| d.0 < to) {
            push_range(out, &self.piece.file, at, a);
            at = b;
            dropped += 1;
        }
        push_range(out, &self.piece.file, at, to);
        out.events += self.n - self.mark_n - dropped;
        out.dropped += dropped;
        self.mark = to;
        self.mark_n = self.n;
    }
}

fn push_range(out: &mut Spliced, file: &Arc<File>, start: u64, end: u64) {
    if end <= start {
        return;
    }
    out.bytes += end - start;
    match out.ranges.last_mut() {
        Some(r) if Arc::ptr_eq(&r.file, file) && r.end == start => r.end = end,
        _ => out.ranges.push(Range {
            file: file.clone(),
            start,
            end,
        }),
    }
}

/// The line's events from `pieces` (each in the line's order, `EventIndex::spliceable`), in
/// the order the event-by-event merge gives: by start, the longer first, then by input.
pub(super) fn splice(pieces: &[Piece]) -> io::Result<Spliced> {
    let mut out = Spliced::default();
    for p in pieces {
        let i = p.index;
        let end = if p.drop_open {
            i.max_end_closed_ps
        } else {
            i.max_end_ps
        };
        if let Some(e) = end {
            out.max_end_ps = Some(out.max_end_ps.map_or(e, |m| m.max(e)));
        }
    }
    let mut runs = pieces
        .iter()
        .map(Run::new)
        .collect::<io::Result<Vec<_>>>()?;
    loop {
        // The run whose next event comes first, and the next event of any other.
        let mut first: Option<(usize, (Key, usize))> = None;
        for (r, run) in runs.iter().enumerate() {
            if let Some(o) = run.ordered().filter(|&o| first.is_none_or(|(_, f)| o < f)) {
                first = Some((r, o));
            }
        }
        let Some((r, _)) = first else {
            break;
        };
        let bound = runs
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != r)
            .filter_map(|(_, run)| run.ordered())
            .min();
        let run = &mut runs[r];
        match bound {
            Some(bound) => run.advance_to(bound)?,
            None => run.finish(),
        }
        run.emit(&mut out);
    }
    // What is left of a piece is events left out.
    for run in &mut runs {
        run.finish();
        run.emit(&mut out);
    }
    Ok(out)
}

/// Copies `len` bytes of `from` at `at` to the end of `w` (flushed first).
pub(super) fn copy_range(
    from: &File,
    at: u64,
    len: u64,
    w: &mut io::BufWriter<File>,
) -> io::Result<()> {
    w.flush()?;
    super::copy::copy_range(from, at, len, super::copy::Dest::End(w.get_ref()))
}
