//! A line's events, each encoded into its `XLine.events` entry as it is added, sorted when the
//! line is finished.

use prost::Message;

use super::segments::Segments;
use super::StatBytes;
use crate::wire::{self, xplane as fields};
use crate::xplane::proto::XLine;

/// Collects the events of one line; offsets are relative to the line timestamp. Each event is
/// encoded when added, as a whole `events` entry (about 60 B) rather than message structs
/// (about 250 B with its stats): a stream line of a million dispatches is the exit path's
/// largest single object. Events that arrive in their sorted order (nearly every line: the
/// join sorts them) need nothing more, and the line's bytes are the arena itself; a sort index
/// is built only when one arrives out of order. The arena is held in segments
/// ([`Segments`]), so that a long line's bytes fit in the room the lines and events freed
/// before it left: the one being written, and those filled before it.
#[derive(Debug)]
pub struct LineBuilder {
    /// Everything but the events.
    header: XLine,
    /// The `events` entries (field 4: key, length, `XEvent`), in insertion order: the arena's
    /// segment being written, after those in `filled`. Positions in the arena count from its
    /// first byte across its segments.
    arena: Vec<u8>,
    /// The arena's segments filled before the one being written.
    filled: Segments,
    /// Sort key and place of every event, once one came out of order (`None` until then).
    index: Option<Vec<EventSlot>>,
    /// Number of events and the sort key of the last one.
    count: usize,
    last_key: SortKey,
    /// Where the last event's entry begins in the arena.
    last_start: usize,
    max_end_ps: i64,
    /// Events announced by [`Self::expect_events`].
    expected: usize,
    /// The count of events after which the arena is reserved for those announced: 1 when
    /// more than one is, else never (`usize::MAX`). One compare per event, where the count
    /// and the announcement were two.
    reserve_after: usize,
    /// Where the events lie as they are encoded, for the merge's index of a window
    /// ([`EventPlaces`]); `None` once an event came whose stats the builder cannot tell apart
    /// (`add_encoded_event`, `add_unplaced_event_bytes`).
    places: Option<Placing>,
}

/// Every this many events of a line, its [`EventPlaces`] note the event's time and place.
pub const SAMPLE_EVERY: u64 = 64;

/// Where a line's events lie in its encoding and in what order, as the merge at exit indexes a
/// window (`xplane::merge`): noted while each event is encoded, so that a window written to be
/// merged is never read back to be indexed. Places count from the line's first event entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventPlaces {
    /// The line's id.
    pub line_id: i64,
    /// Bytes of the line's encoding before its first event entry.
    pub lead: u64,
    /// Bytes of its event entries, which lie together in the line's order (start, the longer
    /// first).
    pub len: u64,
    pub count: u64,
    /// Every [`SAMPLE_EVERY`]-th event, from the first.
    pub samples: Vec<EventSample>,
    /// The largest end (offset + duration) among the events, ps from the line's timestamp.
    pub max_end_ps: Option<i64>,
    /// The same among those that do not hold `open_at_end`.
    pub max_end_closed_ps: Option<i64>,
    /// The entries of the events that hold `open_at_end`, in order.
    pub open_at_end: Vec<(u64, u64)>,
}

/// One event an [`EventPlaces`] notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventSample {
    pub offset_ps: i64,
    pub duration_ps: i64,
    /// Where its entry begins.
    pub pos: u64,
    /// Its number in the line.
    pub n: u64,
}

/// What a [`LineBuilder`] notes for its [`EventPlaces`] while events come in order; once one
/// comes out of order, the samples and open entries are taken again from the sorted slots in
/// `finish`.
#[derive(Debug)]
struct Placing {
    samples: Vec<EventSample>,
    /// The largest end among the events (`i64::MIN` before the first: the line's count says
    /// whether there is one).
    max_end_ps: i64,
    /// The same among those that do not hold `open_at_end` (there is one when fewer events
    /// hold it than the line has).
    max_end_closed_ps: i64,
    /// The arena's entries of the events that hold `open_at_end`, in arena order.
    open_at_end: Vec<(u64, u64)>,
}

impl Default for Placing {
    fn default() -> Self {
        Placing {
            samples: Vec::new(),
            max_end_ps: i64::MIN,
            max_end_closed_ps: i64::MIN,
            open_at_end: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct EventSlot {
    offset_ps: i64,
    duration_ps: i64,
    /// Where its entry begins in the arena, the arena segment that holds it, and its length.
    start: usize,
    segment: u32,
    len: u32,
}

/// Start ascending, then longest first: an enclosing event before those nested in it.
type SortKey = (i64, std::cmp::Reverse<i64>);

impl EventSlot {
    fn key(&self) -> SortKey {
        (self.offset_ps, std::cmp::Reverse(self.duration_ps))
    }
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
            arena: Vec::new(),
            filled: Segments::default(),
            index: None,
            count: 0,
            // The smallest key: no first event is out of order.
            last_key: (i64::MIN, std::cmp::Reverse(i64::MAX)),
            last_start: 0,
            max_end_ps: 0,
            expected: 0,
            reserve_after: usize::MAX,
            places: Some(Placing::default()),
        }
    }

    /// Whether the line notes its [`EventPlaces`]: not in a profile no merge indexes (they
    /// would be dropped unread).
    pub fn noting_places(mut self, noting: bool) -> Self {
        if !noting {
            self.places = None;
        }
        self
    }

    /// The line will hold about `n` events (a device line knows its count): the arena is sized
    /// once, after the first event shows their size, instead of doubling (each doubling of a
    /// heap block copies everything so far).
    pub fn expect_events(&mut self, n: usize) {
        self.expected = n;
        self.reserve_after = if n > 1 { 1 } else { usize::MAX };
    }

    /// Names the line after its events are known (a device line's name lists its kinds).
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.header.name = name.into();
    }

    pub fn set_display_name(&mut self, name: impl Into<String>) {
        self.header.display_name = name.into();
    }

    /// Adds an event, encoded now as `XEvent::encode` would: `metadata_id` (1), `offset_ps`
    /// (2, a oneof member: always written), `duration_ps` (3), then the stats (4).
    // Always (as `add_event_bytes`): the place noted is a few instructions beside the call
    // to the encoding, which the planes' walks make once per event.
    #[inline(always)]
    pub fn add_event(
        &mut self,
        metadata_id: i64,
        offset_ps: i64,
        duration_ps: i64,
        stats: &StatBytes,
    ) {
        let open = stats.holds_open_at_end();
        self.add_event_bytes(metadata_id, offset_ps, duration_ps, stats.as_bytes(), open);
    }

    /// As [`Self::add_event`], the stats given as their wire bytes (`StatBytes::as_bytes`), of
    /// which `open_at_end` says whether they hold the `open_at_end` stat.
    #[inline(always)]
    pub fn add_event_bytes(
        &mut self,
        metadata_id: i64,
        offset_ps: i64,
        duration_ps: i64,
        stats: &[u8],
        open_at_end: bool,
    ) {
        self.encode_event(metadata_id, offset_ps, duration_ps, stats, open_at_end);
    }

    /// As [`Self::add_event_bytes`], for stats the caller has not read (a merge copying
    /// another profile's): the line's [`EventPlaces`] are then not known.
    pub fn add_unplaced_event_bytes(
        &mut self,
        metadata_id: i64,
        offset_ps: i64,
        duration_ps: i64,
        stats: &[u8],
    ) {
        self.places = None;
        self.encode_event(metadata_id, offset_ps, duration_ps, stats, false);
    }

    /// Encodes an event into the arena and notes its place in the line's order and for its
    /// [`EventPlaces`] (`open_at_end`: its stats hold that stat).
    // Never: one copy of it for the three walks that add events (a thread's calls, its roctx
    // lines, a stream's work), where inlined it crowds their registers.
    #[inline(never)]
    fn encode_event(
        &mut self,
        metadata_id: i64,
        offset_ps: i64,
        duration_ps: i64,
        stats: &[u8],
        open_at_end: bool,
    ) {
        let end = offset_ps.saturating_add(duration_ps);
        self.max_end_ps = self.max_end_ps.max(end);
        self.room_for(fields::EVENT_HEAD_BYTES + stats.len());
        // Where the entry begins, taken once its segment has the room.
        let at = self.arena.len();
        fields::put_event(&mut self.arena, metadata_id, offset_ps, duration_ps, stats);
        self.placed(self.filled.len() + at, offset_ps, duration_ps);
        self.note_place(end, offset_ps, duration_ps, open_at_end);
    }

    /// Adds an event already encoded (an `XEvent`'s bytes, e.g. copied from another profile
    /// whose ids and clock are the line's), whose `offset_ps` and `duration_ps` are given.
    pub fn add_encoded_event(&mut self, offset_ps: i64, duration_ps: i64, event: &[u8]) {
        self.places = None;
        self.max_end_ps = self.max_end_ps.max(offset_ps.saturating_add(duration_ps));
        let start = self.arena_len();
        self.room_for(wire::entry_len(fields::line::EVENTS, event.len()));
        fields::put_event_entry(&mut self.arena, event);
        self.placed(start, offset_ps, duration_ps);
    }

    /// Bytes in the arena, over all its segments.
    #[inline]
    fn arena_len(&self) -> usize {
        self.filled.len() + self.arena.len()
    }

    /// Notes events the line holds but the builder does not (a merge that copies them from
    /// their file as they lie): the largest of their ends, in ps from the line's timestamp.
    pub fn note_end_ps(&mut self, end_ps: i64) {
        self.max_end_ps = self.max_end_ps.max(end_ps);
    }

    /// Notes the event just encoded from byte `start` of the arena: its place in the line's
    /// order, and the arena's reservation once the first event shows their size.
    #[inline]
    fn placed(&mut self, start: usize, offset_ps: i64, duration_ps: i64) {
        let key = (offset_ps, std::cmp::Reverse(duration_ps));
        if self.index.is_some() || key < self.last_key {
            self.index_event(start, offset_ps, duration_ps);
        }
        self.last_key = key;
        self.last_start = start;
        self.count += 1;
        if self.count == self.reserve_after {
            self.reserve_expected(self.arena_len() - start);
        }
    }

    /// Puts the event just encoded from byte `start` into the sort index, made first from the
    /// events before it when this is the first one out of order.
    #[inline(never)]
    fn index_event(&mut self, start: usize, offset_ps: i64, duration_ps: i64) {
        let slot = EventSlot {
            offset_ps,
            duration_ps,
            start,
            segment: self.filled.count() as u32,
            len: (self.arena_len() - start) as u32,
        };
        match &mut self.index {
            Some(index) => index.push(slot),
            None => {
                let mut index = self.slots_before(start);
                index.push(slot);
                self.index = Some(index);
            }
        }
    }

    /// Reserves the arena for the events announced, the first one's size (`first` bytes) shown.
    #[cold]
    fn reserve_expected(&mut self, first: usize) {
        // One eighth over the first event's size, which may be unusually large (a kernel
        // with many stats first): capped; the arena's segment takes what it can of it, the
        // next segments are sized as they open (`make_room`), and `finish` gives back the
        // last one's rest.
        let each = (first + first / 8).min(MAX_EXPECTED_EVENT_BYTES);
        let len = self.arena.len();
        let to = (len + (self.expected - 1).saturating_mul(each)).max(self.arena.capacity() * 2);
        self.filled.make_room(&mut self.arena, 0, to - len);
    }

    /// Room for `need` more bytes in the arena's segment: one compare while there is
    /// ([`Self::make_room`] where there is not).
    #[inline]
    fn room_for(&mut self, need: usize) {
        if self.arena.capacity() - self.arena.len() < need {
            self.make_room(need);
        }
    }

    /// Before `need` more bytes go to an arena segment without the room: for a line whose
    /// count was announced and outgrew its reservation (later events larger than the first),
    /// room for the events still to come at the average size so far, not a doubling of the
    /// whole arena (for a host thread's line, tens of MB left unused at the writer's peak);
    /// otherwise as a vector's push grows: to twice the arena's capacity (at least 8 bytes).
    /// The segment takes what it can of that ([`Segments::reserve`]).
    #[cold]
    fn make_room(&mut self, need: usize) {
        let len = self.arena_len();
        let want = if self.count > 0 && self.count < self.expected {
            let each = len / self.count;
            (self.expected - self.count)
                .saturating_mul(each + each / 16)
                .max(need)
        } else {
            let capacity = self.filled.len() + self.arena.capacity();
            capacity.saturating_mul(2).max(len + need).max(8) - len
        };
        self.filled.make_room(&mut self.arena, need, want);
    }

    /// Notes the place of the event just encoded (the arena's last entry, `self.count` - 1),
    /// which ends at `end`.
    #[inline]
    fn note_place(&mut self, end: i64, offset_ps: i64, duration_ps: i64, open_at_end: bool) {
        let Some(p) = &mut self.places else {
            return;
        };
        p.max_end_ps = p.max_end_ps.max(end);
        let last = self.last_start as u64;
        if open_at_end {
            let len = self.filled.len() + self.arena.len();
            p.open_at_end.push((last, len as u64));
        } else {
            p.max_end_closed_ps = p.max_end_closed_ps.max(end);
        }
        let n = (self.count - 1) as u64;
        if n % SAMPLE_EVERY == 0 && self.index.is_none() {
            p.samples.push(EventSample {
                offset_ps,
                duration_ps,
                pos: last,
                n,
            });
        }
    }

    /// The line's [`EventPlaces`] in the order `events` holds them (`slots`: the sorted slots,
    /// when an event came out of order), `lead` bytes of the line before them.
    fn places(&mut self, slots: Option<&[EventSlot]>, lead: usize) -> Option<EventPlaces> {
        let mut p = self.places.take()?;
        let open = p.open_at_end.len();
        if let Some(slots) = slots {
            let arena_open = std::mem::take(&mut p.open_at_end);
            p.samples.clear();
            let mut pos = 0u64;
            for (n, e) in slots.iter().enumerate() {
                let n = n as u64;
                if n % SAMPLE_EVERY == 0 {
                    p.samples.push(EventSample {
                        offset_ps: e.offset_ps,
                        duration_ps: e.duration_ps,
                        pos,
                        n,
                    });
                }
                let len = u64::from(e.len);
                if !arena_open.is_empty()
                    && arena_open
                        .binary_search_by_key(&(e.start as u64), |o| o.0)
                        .is_ok()
                {
                    p.open_at_end.push((pos, pos + len));
                }
                pos += len;
            }
        }
        Some(EventPlaces {
            line_id: self.header.id,
            lead: lead as u64,
            len: 0,
            count: self.count as u64,
            samples: p.samples,
            max_end_ps: (self.count > 0).then_some(p.max_end_ps),
            max_end_closed_ps: (self.count > open).then_some(p.max_end_closed_ps),
            open_at_end: p.open_at_end,
        })
    }

    /// The slots of the events encoded before byte `end` of the arena, read back from it (only
    /// when the first event out of order arrives).
    fn slots_before(&self, end: usize) -> Vec<EventSlot> {
        let mut out = Vec::with_capacity(self.count + 1);
        let open = (self.filled.len(), self.arena.as_slice());
        for (segment, (start, bytes)) in self.filled.iter().chain([open]).enumerate() {
            let bytes = &bytes[..bytes.len().min(end.saturating_sub(start))];
            let mut at = 0;
            while at < bytes.len() {
                let (len, offset_ps, duration_ps) = fields::event_entry_times(&bytes[at..]);
                out.push(EventSlot {
                    offset_ps,
                    duration_ps,
                    start: start + at,
                    segment: segment as u32,
                    len: len as u32,
                });
                // Our own encoding: every entry is whole, in one segment (a length of 0 would
                // be a bug, not data).
                at += len.max(1);
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Sorts events by (start ascending, duration descending), the order XLA's `SortXSpace`
    /// leaves them in: an enclosing event comes before the events nested in it, which the
    /// trace viewer's nesting relies on. The sort is stable, so ties keep insertion order.
    pub fn finish(mut self) -> FinishedLine {
        let (events, mut places) = match self.index.take() {
            None => {
                let places = self.places(None, 0);
                self.arena.shrink_to_fit();
                let mut events = std::mem::take(&mut self.filled);
                events.fill(std::mem::take(&mut self.arena));
                (events, places)
            }
            Some(mut index) => {
                index.sort_by_key(EventSlot::key);
                let mut rest = self.arena_len();
                self.filled.fill(std::mem::take(&mut self.arena));
                let starts = self.filled.starts();
                let (mut sorted, mut open) = (Segments::default(), Vec::new());
                for e in &index {
                    let segment = e.segment as usize;
                    let at = e.start - starts[segment];
                    let len = e.len as usize;
                    sorted.push(&mut open, &self.filled.segment(segment)[at..at + len], rest);
                    rest -= len;
                }
                sorted.fill(open);
                (sorted, self.places(Some(&index), 0))
            }
        };
        self.header.duration_ps = self.max_end_ps;
        // Fields 1–3 (id, name, timestamp) come before the events (field 4) on the wire.
        let leading = XLine {
            id: std::mem::take(&mut self.header.id),
            name: std::mem::take(&mut self.header.name),
            timestamp_ns: std::mem::take(&mut self.header.timestamp_ns),
            ..Default::default()
        };
        let (head, split) = wire::around_repeated(&leading, self.header);
        if let Some(p) = &mut places {
            p.lead = split as u64;
            p.len = events.len() as u64;
        }
        FinishedLine {
            head,
            split,
            events,
            places: places.map(Box::new),
        }
    }
}

/// The most an arena reserves per announced event (typical events are 40–90 bytes).
const MAX_EXPECTED_EVENT_BYTES: usize = 128;

/// A finished line, events sorted and encoded; added to its plane by
/// [`PlaneBuilder::add_line`].
#[derive(Debug, Clone)]
pub struct FinishedLine {
    head: Vec<u8>,
    split: usize,
    /// The `events` entries, sorted.
    events: Segments,
    /// Where they lie (`None`: not known, see [`LineBuilder::add_unplaced_event_bytes`]);
    /// boxed, as a finished line is moved about whole.
    places: Option<Box<EventPlaces>>,
}

impl FinishedLine {
    /// Length of the line's encoding.
    pub fn encoded_len(&self) -> usize {
        self.head.len() + self.events.len()
    }

    /// The line's bytes before and after its events: a line whose events are copied from
    /// elsewhere is these around them.
    pub fn around_events(&self) -> (&[u8], &[u8]) {
        (&self.head[..self.split], &self.head[self.split..])
    }

    /// Where the line's events lie, as the merge's index of a window reads them; taken once.
    pub fn take_places(&mut self) -> Option<EventPlaces> {
        self.places.take().map(|p| *p)
    }

    /// Length of the line as an `XPlane.lines` entry (key and length included).
    pub fn entry_len(&self) -> usize {
        wire::entry_len(fields::plane::LINES, self.encoded_len())
    }

    /// Writes the line as an `XPlane.lines` entry (into the output, or a plane's set-aside
    /// file).
    pub fn write_entry(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        wire::write_entry_head(fields::plane::LINES, self.encoded_len(), w)?;
        self.write_to(w)
    }

    fn write_to(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        w.write_all(&self.head[..self.split])?;
        self.events.write_to(w)?;
        w.write_all(&self.head[self.split..])
    }

    /// Appends the bytes `XLine::encode` gives for the line with its events.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        // Writing into a Vec cannot fail.
        let _ = self.write_to(out);
    }

    /// The line as a message (for tests and in-memory consumers).
    pub fn to_xline(&self) -> XLine {
        let mut b = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut b);
        // Our own encoding: decoding cannot fail short of a prost bug.
        XLine::decode(b.as_slice()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_sort_by_start_then_longest_first() {
        let mut l = LineBuilder::new(0, "x", 0);
        let none = StatBytes::new();
        l.add_event(1, 50, 5, &none);
        l.add_event(2, 10, 5, &none);
        l.add_event(3, 10, 100, &none);
        let line = l.finish().to_xline();
        let ids: Vec<i64> = line.events.iter().map(|e| e.metadata_id).collect();
        assert_eq!(ids, [3, 2, 1]);
        assert_eq!(line.duration_ps, 110);
    }

    /// Events in order need no index; the first one out of order makes the line build one from
    /// the events already encoded, and the result is the stable sort either way.
    #[test]
    fn a_late_event_out_of_order_sorts_with_the_ones_before_it() {
        let mut st = StatBytes::new();
        st.u64(2, 1 << 40);
        let times = [(5, 1), (5, 1), (7, 0), (300, 9), (-4, 2), (6, 3), (300, 20)];
        let mut ordered = LineBuilder::new(0, "x", 0);
        let mut late = LineBuilder::new(0, "x", 0);
        let mut sorted: Vec<(usize, (i64, i64))> = times.iter().copied().enumerate().collect();
        sorted.sort_by_key(|(_, (o, d))| (*o, std::cmp::Reverse(*d)));
        for (i, (o, d)) in &sorted {
            ordered.add_event(*i as i64 + 1, *o, *d, &st);
        }
        for (i, (o, d)) in times.iter().enumerate() {
            late.add_event(i as i64 + 1, *o, *d, &st);
        }
        assert!(ordered.index.is_none(), "in order: no index");
        assert!(late.index.is_some());
        let (a, b) = (ordered.finish(), late.finish());
        assert_eq!(a.events.to_vec(), b.events.to_vec());
        let ids: Vec<i64> = b.to_xline().events.iter().map(|e| e.metadata_id).collect();
        assert_eq!(ids, [5, 1, 2, 6, 3, 7, 4]);
    }

    /// One event of a long line: its id, times, stats (0 to 16 of them, one event's more
    /// than a segment holds) and whether it holds `open_at_end`.
    struct Ev {
        id: i64,
        offset_ps: i64,
        duration_ps: i64,
        stats: Vec<u8>,
        open: bool,
    }

    /// Events enough for several arena segments, in their sorted order, of sizes that make
    /// entries end just short of and across where a segment would end.
    fn long_line_events() -> Vec<Ev> {
        let big = super::super::segments::SEGMENT_BYTES / 8;
        (0..20_000i64)
            .map(|i| {
                let n = if i == 7_001 {
                    big
                } else {
                    (i * 37 % 17) as usize
                };
                let mut stats = StatBytes::new();
                for k in 0..n {
                    stats.u64(k as i64 % 9 + 1, (i as u64) << (k % 40));
                }
                Ev {
                    id: i % 50 + 1,
                    offset_ps: i / 3 * 1_000,
                    duration_ps: 5_000 - i % 3 * 10 - i % 7,
                    stats: stats.as_bytes().to_vec(),
                    open: i % 997 == 0,
                }
            })
            .collect()
    }

    /// The events' entries encoded one after the other into a single vector, in the order
    /// given: the bytes a line of them holds.
    fn single_arena(events: &[&Ev]) -> Vec<u8> {
        let mut out = Vec::new();
        for e in events {
            fields::put_event(&mut out, e.id, e.offset_ps, e.duration_ps, &e.stats);
        }
        out
    }

    fn build(events: &[&Ev], announced: bool) -> (usize, FinishedLine) {
        let mut l = LineBuilder::new(3, "long", 0);
        if announced {
            l.expect_events(events.len());
        }
        for e in events {
            l.add_event_bytes(e.id, e.offset_ps, e.duration_ps, &e.stats, e.open);
        }
        (l.filled.count() + 1, l.finish())
    }

    /// The line's places point at its entries as they lie in its bytes: every sample at an
    /// entry of its times, every open entry at one of the events that hold it.
    fn check_places(line: &mut FinishedLine, sorted: &[&Ev]) {
        let bytes = line.events.to_vec();
        let p = line.take_places().expect("places known");
        assert_eq!(p.len as usize, bytes.len());
        assert_eq!(p.count as usize, sorted.len());
        assert_eq!(
            p.samples.len(),
            sorted.len().div_ceil(SAMPLE_EVERY as usize)
        );
        for s in &p.samples {
            let e = sorted[s.n as usize];
            let (_, offset, duration) = fields::event_entry_times(&bytes[s.pos as usize..]);
            assert_eq!(
                (offset, duration),
                (e.offset_ps, e.duration_ps),
                "sample {}",
                s.n
            );
            assert_eq!((s.offset_ps, s.duration_ps), (offset, duration));
        }
        let open: Vec<Vec<u8>> = p
            .open_at_end
            .iter()
            .map(|&(a, b)| bytes[a as usize..b as usize].to_vec())
            .collect();
        let want: Vec<Vec<u8>> = sorted
            .iter()
            .filter(|e| e.open)
            .map(|e| single_arena(&[e]))
            .collect();
        assert_eq!(open, want);
    }

    /// A line longer than several arena segments, its events in order, announced or not: its
    /// bytes are those of the entries encoded one after the other into one vector, as prost
    /// encodes the line, and its places point at its entries.
    #[test]
    fn a_line_across_segments_is_its_entries_in_one_run() {
        let events = long_line_events();
        let sorted: Vec<&Ev> = events.iter().collect();
        let whole = single_arena(&sorted);
        assert!(whole.len() > 4 * super::super::segments::SEGMENT_BYTES);
        for announced in [true, false] {
            let (segments, mut line) = build(&sorted, announced);
            assert!(segments > 4, "{segments} segments (announced: {announced})");
            assert!(line.events.to_vec() == whole, "announced: {announced}");
            let mut encoded = Vec::new();
            line.encode_into(&mut encoded);
            assert!(encoded == line.to_xline().encode_to_vec());
            let mut entry = Vec::new();
            line.write_entry(&mut entry).unwrap();
            assert_eq!(entry.len(), line.entry_len());
            assert!(entry.ends_with(&encoded));
            check_places(&mut line, &sorted);
        }
    }

    /// The same events out of order, the first late one after several segments are full: the
    /// sort index read back from every segment puts them in the sorted line's order, and the
    /// bytes are the sorted entries in one run.
    #[test]
    fn a_line_across_segments_sorts_events_that_came_out_of_order() {
        let events = long_line_events();
        let sorted: Vec<&Ev> = events.iter().collect();
        let whole = single_arena(&sorted);
        // Events 12,000 to 12,999 first, then the rest in order, then every 5th one again
        // reversed (the sort is stable: those repeats come after their twins).
        let mut shuffled: Vec<&Ev> = sorted[..12_000].to_vec();
        shuffled.extend(&sorted[13_000..]);
        let late = shuffled.len();
        shuffled.extend(&sorted[12_000..13_000]);
        let (segments, mut line) = build(&shuffled, true);
        assert!(segments > 4, "{segments} segments");
        assert!(line.events.to_vec() == whole);
        check_places(&mut line, &sorted);
        let line = line.to_xline();
        assert_eq!(line.events.len(), late + 1_000);
        let end = sorted.iter().map(|e| e.offset_ps + e.duration_ps).max();
        assert_eq!(Some(line.duration_ps), end);

        let mut twice: Vec<&Ev> = sorted.clone();
        twice.extend(sorted.iter().step_by(5).rev());
        let mut want: Vec<&Ev> = twice.clone();
        want.sort_by_key(|e| (e.offset_ps, std::cmp::Reverse(e.duration_ps)));
        let (_, line) = build(&twice, false);
        assert!(line.events.to_vec() == single_arena(&want));
    }
}
