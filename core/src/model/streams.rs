//! Device lines are HIP streams: one line per stream per device, `Stream #N` with small dense
//! numbers in creation order (the null stream first).
//!
//! HSA queues are not streams: with more streams than the runtime's queues (4 per device by
//! default) several streams share a queue, and one line per queue draws unrelated work as if
//! it were ordered. The stream of every launch and copy is read from its arguments at entry
//! (`CallFact`), which works under every SDK version. Work whose call was not seen keeps a line
//! per HSA queue (kernels) or one line for copies, numbered after the streams.
//!
//! A stream runs its work in order, so its events should never overlap; the runtime is not ours,
//! so where they do, the line is split into sub-lines (greedily, first sub-line free at the
//! event's start) and the split events are counted.

use crate::fastmap::{HashMap, HashSet};
use crate::util::search::Hints;
use std::collections::BTreeMap;

use super::trace::{Anchor, DeviceEvent, DeviceLine};
use crate::facts::{CallFact, StreamCreation, SyncFact};

/// Which stream (or fallback) a device event belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StreamKey {
    /// The null stream of the device.
    Null,
    /// A stream created while the tool ran, by creation order.
    Created(u64),
    /// A stream created before the tool (raw handle).
    Unknown(u64),
    /// A kernel whose launch call was not seen: its HSA queue (raw handle).
    Queue(u64),
    /// A copy whose call was not seen.
    Copies,
}

/// The key of a stream as recorded at a call's entry.
pub fn stream_key(stream: u64, stream_seq: u64) -> StreamKey {
    match (stream, stream_seq) {
        (0, _) => StreamKey::Null,
        (_, 0) => StreamKey::Unknown(stream),
        (_, s) => StreamKey::Created(s),
    }
}

/// Stream creations by handle, each list in correlation order.
#[derive(Debug, Default)]
pub struct Creations(HashMap<u64, Vec<StreamCreation>>);

impl Creations {
    pub fn new(list: &[StreamCreation]) -> Self {
        let mut m: HashMap<u64, Vec<StreamCreation>> = HashMap::default();
        for c in list.iter().filter(|c| c.stream != 0) {
            m.entry(c.stream).or_default().push(*c);
        }
        for v in m.values_mut() {
            v.sort_by_key(|c| c.correlation_id);
        }
        Creations(m)
    }

    /// Device and creation order of `stream` as used by call `correlation_id`: the latest
    /// creation of that handle before the call (a destroyed stream's handle can be reused).
    pub fn at(&self, stream: u64, correlation_id: u64) -> Option<(i32, u64)> {
        latest_before(self.of(stream), correlation_id)
    }

    /// The creations of `stream`, in correlation order (none: empty).
    fn of(&self, stream: u64) -> &[StreamCreation] {
        self.0.get(&stream).map_or(&[], Vec::as_slice)
    }
}

/// Device and creation order of the latest of `creations` (one handle's, in correlation order)
/// before call `correlation_id`.
fn latest_before(creations: &[StreamCreation], correlation_id: u64) -> Option<(i32, u64)> {
    let i = creations.partition_point(|c| c.correlation_id < correlation_id);
    creations[..i].last().map(|c| (c.device, c.stream_seq))
}

/// Re-reads the device and creation order of every call's stream from the creations
/// (`Restamp`).
pub fn restamp(creations: &Creations, calls: &mut [CallFact], syncs: &mut [SyncFact]) {
    let mut r = Restamp::new(creations);
    for f in calls.iter_mut() {
        *f = r.call(*f);
    }
    for f in syncs.iter_mut().filter(|f| f.stream != 0) {
        if let Some((d, seq)) = r.at(f.stream, f.correlation_id) {
            (f.device, f.stream_seq) = (d, seq);
        }
    }
}

/// The device and creation order of a call's stream, re-read from the creations one call at a
/// time: for calls read where they are kept (packed, their stream's facts shared by many
/// calls, so not restamped in place). A thread's calls mostly name a few streams, one after
/// another (its compute stream, its copy stream): the creations of the last few streams asked
/// for are kept (no hash probe per call).
pub struct Restamp<'a> {
    creations: &'a Creations,
    /// Streams asked for lately, each with its creations; stream 0 has none (`Creations::new`
    /// leaves it out), so the slots start as it.
    recent: [(u64, &'a [StreamCreation]); RECENT_STREAMS],
    /// The slot the next stream not among them takes.
    next: usize,
}

/// How many streams [`Restamp`] keeps at hand.
const RECENT_STREAMS: usize = 4;

impl<'a> Restamp<'a> {
    pub fn new(creations: &'a Creations) -> Self {
        Restamp {
            creations,
            recent: [(0, &[]); RECENT_STREAMS],
            next: 0,
        }
    }

    /// `f` with its stream's device and creation order as of its call.
    pub fn call(&mut self, mut f: CallFact) -> CallFact {
        if f.stream != 0 {
            if let Some((d, seq)) = self.at(f.stream, f.correlation_id) {
                (f.device, f.stream_seq) = (d, seq);
            }
        }
        f
    }

    fn at(&mut self, stream: u64, correlation_id: u64) -> Option<(i32, u64)> {
        let of = match self.recent.iter().find(|(s, _)| *s == stream) {
            Some(&(_, of)) => of,
            None => {
                let of = self.creations.of(stream);
                self.recent[self.next] = (stream, of);
                self.next = (self.next + 1) % RECENT_STREAMS;
                of
            }
        };
        latest_before(of, correlation_id)
    }
}

/// One activity of a stream, for dependency anchors: where its event is on the device's lines
/// (its times are read there when an anchor is asked for). 16 bytes per event of every stream
/// a sync call names — most streams of a program that synchronizes them — where the times
/// copied in would make 32.
#[derive(Debug, Clone, Copy)]
struct Activity {
    correlation_id: u64,
    /// The line's id (small: stream numbers and overlap sub-lines of one device).
    line: u32,
    /// Position of the event in that line's events.
    at: u32,
}

/// The lines of a device plane, sorted by id (as `build_lines` leaves them).
pub type LinesOf<'a> = &'a dyn Fn(u32) -> Option<&'a [DeviceLine]>;

/// The event an activity names, with its line's id.
fn event_of<'a>(lines: &'a [DeviceLine], a: &Activity) -> Option<(&'a DeviceEvent, i64)> {
    let id = i64::from(a.line);
    let k = lines.binary_search_by_key(&id, |l| l.id).ok()?;
    Some((lines[k].events.get(a.at as usize)?, id))
}

/// What a dependency anchor reads of one stream ([`StreamIndex::facts`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamFacts {
    /// `N` of `Stream #N`.
    pub number: Option<i64>,
    /// Its own line (`Stream #N`), when it has device work.
    pub line: Option<i64>,
    /// The slot of its activities, when a sync call names it.
    pub activities: Option<usize>,
}

/// Stream numbers and each stream's activities in submission (correlation id) order.
#[derive(Debug, Default)]
pub struct StreamIndex {
    numbers: HashMap<(u32, StreamKey), i64>,
    /// Streams with a line of their own (device work).
    with_line: HashSet<(u32, StreamKey)>,
    /// Activities of the streams sync calls name (only those can anchor an arrow), each
    /// stream's in its slot of `activities` (the slot also keys its [`Near`] hint: one lookup
    /// per search).
    activity: HashMap<(u32, StreamKey), usize>,
    activities: Vec<Vec<Activity>>,
}

impl StreamIndex {
    /// `N` of `Stream #N` on GPU plane `plane`.
    pub fn number(&self, plane: u32, key: StreamKey) -> Option<i64> {
        self.numbers.get(&(plane, key)).copied()
    }

    /// The streams with device work and a line of their own: each one's plane, key and
    /// line (`Stream #N`). Work whose call was not seen (`StreamKey::Queue`, `Copies`) runs on
    /// no stream a call names, and is left out.
    pub fn stream_lines(&self) -> impl Iterator<Item = (u32, StreamKey, i64)> + '_ {
        self.with_line
            .iter()
            .filter(|(_, k)| !matches!(k, StreamKey::Queue(_) | StreamKey::Copies))
            .filter_map(|&(plane, key)| Some((plane, key, self.number(plane, key)?)))
    }

    /// The stream's own line (`Stream #N`), when it has device work.
    pub fn line_of(&self, plane: u32, key: StreamKey) -> Option<i64> {
        self.with_line
            .contains(&(plane, key))
            .then(|| self.number(plane, key))
            .flatten()
    }

    /// What a dependency anchor reads of a stream, found together: its number, its own line
    /// (when it has device work) and the slot of its activities (when a sync call names it).
    pub fn facts(&self, plane: u32, key: StreamKey) -> StreamFacts {
        StreamFacts {
            number: self.number(plane, key),
            line: self.line_of(plane, key),
            activities: self.activity.get(&(plane, key)).copied(),
        }
    }

    /// The end of the last activity submitted before `correlation_id` on the stream whose
    /// activities are in `slot` ([`StreamFacts::activities`]), read from the plane's lines
    /// (`lines_of`: the lines `build_lines` made). `near` remembers where each stream was
    /// last asked about.
    pub fn last_before(
        &self,
        lines_of: LinesOf<'_>,
        plane: u32,
        slot: usize,
        correlation_id: u64,
        near: &mut Near,
    ) -> Option<Anchor> {
        let v = self.activities.get(slot)?;
        let i = near.partition_point(slot, v, |a| a.correlation_id < correlation_id);
        let last = v[..i].last()?;
        let lines = lines_of(plane)?;
        // Several activities may share the id (graph launch): the one ending last. A loop, not
        // `max_by_key` over a `take_while` chain, which compiles to more per sync fact here.
        let mut best: Option<(&DeviceEvent, i64)> = None;
        for a in v[..i].iter().rev() {
            if a.correlation_id != last.correlation_id {
                break;
            }
            if let Some((e, line)) = event_of(lines, a) {
                if best.is_none_or(|(b, _)| (e.end_ns, e.start_ns) >= (b.end_ns, b.start_ns)) {
                    best = Some((e, line));
                }
            }
        }
        let (e, line) = best?;
        Some(Anchor::on_device(plane, line, e.end_ns))
    }

    /// The start of the first activity submitted after `correlation_id` on the stream whose
    /// activities are in `slot`, as [`Self::last_before`].
    pub fn first_after(
        &self,
        lines_of: LinesOf<'_>,
        plane: u32,
        slot: usize,
        correlation_id: u64,
        near: &mut Near,
    ) -> Option<Anchor> {
        let v = self.activities.get(slot)?;
        let i = near.partition_point(slot, v, |a| a.correlation_id <= correlation_id);
        let first = v.get(i)?;
        let lines = lines_of(plane)?;
        let mut best: Option<(&DeviceEvent, i64)> = None;
        for a in &v[i..] {
            if a.correlation_id != first.correlation_id {
                break;
            }
            if let Some((e, line)) = event_of(lines, a) {
                if best.is_none_or(|(b, _)| (e.start_ns, e.end_ns) < (b.start_ns, b.end_ns)) {
                    best = Some((e, line));
                }
            }
        }
        let (e, line) = best?;
        Some(Anchor::on_device(plane, line, e.start_ns))
    }
}

/// Where each stream's activities were last searched, by the stream's slot in its
/// [`StreamIndex`]: the dependency stage asks about the sync calls in falling correlation
/// order, so each answer lies at or just before the last one on its stream (streams of hundreds
/// of thousands of activities).
pub type Near = Hints;

/// `N` of each stream's `Stream #N`, for as long as the numbers must mean the same stream:
/// one profile, or every capture window of a run (`window`). A window numbers the streams it
/// has not seen before after those it has, in the order a whole run would give them: a
/// stream keeps its number in every window, though a stream first used in a later window has
/// a number after the earlier windows' streams, where a run written whole might have given it
/// a lower one.
#[derive(Debug, Default, Clone)]
pub struct StreamNumbers {
    numbers: HashMap<(u32, StreamKey), i64>,
    /// The next number of each plane: how many of its streams are numbered.
    next: HashMap<u32, i64>,
}

impl StreamNumbers {
    /// The number of `key` on `plane`, the next free one if it has none yet.
    fn number(&mut self, plane: u32, key: StreamKey) -> i64 {
        if let Some(&n) = self.numbers.get(&(plane, key)) {
            return n;
        }
        let next = self.next.entry(plane).or_insert(0);
        let n = *next;
        *next += 1;
        self.numbers.insert((plane, key), n);
        n
    }

    /// The first number no stream of `plane` has: where its overlap sub-lines start.
    fn first_free(&self, plane: u32) -> i64 {
        self.next.get(&plane).copied().unwrap_or(0)
    }
}

/// Order of streams on a device: null stream, created streams by creation, streams from before
/// the tool by first call, then the fallback lines.
fn order_key(key: StreamKey, first_correlation: u64, first_start: u64) -> (u8, u64) {
    match key {
        StreamKey::Null => (0, 0),
        StreamKey::Created(seq) => (1, seq),
        StreamKey::Unknown(_) => (2, first_correlation),
        StreamKey::Queue(_) => (3, first_start),
        StreamKey::Copies => (4, 0),
    }
}

/// A stream's events (sorted by start) as sub-lines without partial overlaps: sub-line 0 is the
/// stream's own line; each event goes to the first sub-line free at its start (greedy). The
/// usual case, no overlap at all, keeps the vector as it is.
fn split_overlaps(events: Vec<DeviceEvent>, split_events: &mut u64) -> Vec<Vec<DeviceEvent>> {
    // Sorted by start: disjoint exactly when each event starts after the previous one ends.
    if events
        .windows(2)
        .all(|w| w[1].start_ns >= w[0].end_ns.max(w[0].start_ns))
    {
        return vec![events];
    }
    let mut ends: Vec<u64> = Vec::new();
    let mut subs: Vec<Vec<DeviceEvent>> = Vec::new();
    for e in events {
        let at = ends.iter().position(|&end| end <= e.start_ns);
        let k = match at {
            Some(k) => k,
            None => {
                ends.push(0);
                subs.push(Vec::new());
                ends.len() - 1
            }
        };
        if k > 0 {
            *split_events += 1;
        }
        ends[k] = e.end_ns.max(e.start_ns);
        subs[k].push(e);
    }
    subs
}

/// A stream's events made ready for its lines, on whichever thread (`prepare_line`): sorted,
/// split into sub-lines where they overlap, and indexed for anchors when a sync call names
/// the stream. What needs every stream (the numbers, the sub-lines' ids) is left to
/// `build_lines_with`.
pub struct PreparedLine {
    plane: u32,
    key: StreamKey,
    /// The lowest nonzero correlation id and the earliest start of the stream's events.
    first_correlation: u64,
    first_start: u64,
    subs: Vec<Vec<DeviceEvent>>,
    /// In the order anchors are searched in; `line` is the sub-line's index until the
    /// sub-lines have ids.
    activity: Vec<Activity>,
    split_events: u64,
}

/// A stream (`plane`, `key`), its events and whether a sync call names it: what
/// `prepare_line` is given.
pub type LineTask = ((u32, StreamKey), Vec<DeviceEvent>, bool);

/// Prepares one stream's line; needs nothing of any other stream.
pub fn prepare_line(((plane, key), mut events, named): LineTask) -> PreparedLine {
    // Mostly in this order already (the kernels pass places them by time): a stable sort
    // would still take a scratch buffer of half the line's events at the join's peak.
    let order = |e: &DeviceEvent| (e.start_ns, std::cmp::Reverse(e.end_ns), e.correlation_id);
    if !events.is_sorted_by_key(order) {
        events.sort_by_key(order);
    }
    let first_correlation = events
        .iter()
        .map(|e| e.correlation_id)
        .filter(|&c| c != 0)
        .min()
        .unwrap_or(u64::MAX);
    let first_start = events.first().map_or(0, |e| e.start_ns);
    let mut split_events = 0;
    let subs = split_overlaps(events, &mut split_events);
    let mut activity = Vec::new();
    if named {
        // This stream's activities in the order anchors are searched in: by correlation id,
        // then time, then place (a total order). Their times are read from the events, not
        // copied beside them: a copy (32 B per event) held with the index (16 B) at once on
        // both threads' streams was the join's peak on a run of a few long streams.
        activity.reserve_exact(subs.iter().map(Vec::len).sum());
        for (line, events) in (0u32..).zip(&subs) {
            activity.extend((0u32..).zip(events).map(|(at, e)| Activity {
                correlation_id: e.correlation_id,
                line,
                at,
            }));
        }
        let times = |a: &Activity| {
            let e = &subs[a.line as usize][a.at as usize];
            (e.start_ns, e.end_ns)
        };
        // Made in place order: ties of id and times stay in it.
        crate::util::sort::sort_by_time(&mut activity, |a| a.correlation_id, times);
    }
    PreparedLine {
        plane,
        key,
        first_correlation,
        first_start,
        subs,
        activity,
        split_events,
    }
}

/// Builds the lines of every device from its events grouped by stream. `known` lists streams
/// that had no device work but appear in sync calls, so they get a number too.
pub fn build_lines(
    grouped: BTreeMap<(u32, StreamKey), Vec<DeviceEvent>>,
    known: impl IntoIterator<Item = (u32, StreamKey, u64)>,
    split_events: &mut u64,
) -> (BTreeMap<u32, Vec<DeviceLine>>, StreamIndex) {
    build_lines_with(
        grouped,
        known,
        split_events,
        &mut StreamNumbers::default(),
        |tasks| tasks.into_iter().map(prepare_line).collect(),
    )
}

/// [`build_lines`], each stream's line prepared by `prepare_all` (which may share them
/// between threads: it returns one `prepare_line` result per task, in any order), with the
/// numbers `numbers` gave earlier (capture windows of one run) and new ones added to it.
pub fn build_lines_with(
    grouped: BTreeMap<(u32, StreamKey), Vec<DeviceEvent>>,
    known: impl IntoIterator<Item = (u32, StreamKey, u64)>,
    split_events: &mut u64,
    numbers: &mut StreamNumbers,
    prepare_all: impl FnOnce(Vec<LineTask>) -> Vec<PreparedLine>,
) -> (BTreeMap<u32, Vec<DeviceLine>>, StreamIndex) {
    // The streams sync calls name, each with its lowest call id (a program's few streams,
    // each named by many calls: inserted one by one, since a set collected from the calls
    // would be sized for all of them). Only these need their activities indexed for anchors.
    let mut named: HashMap<(u32, StreamKey), u64> = HashMap::default();
    for (plane, key, corr) in known {
        if matches!(key, StreamKey::Queue(_) | StreamKey::Copies) {
            continue;
        }
        let lowest = named.entry((plane, key)).or_insert(corr);
        *lowest = (*lowest).min(corr);
    }
    let tasks: Vec<LineTask> = grouped
        .into_iter()
        .map(|(at, events)| (at, events, named.contains_key(&at)))
        .collect();
    let prepared = prepare_all(tasks);
    // (plane) → [(order, key)]
    let mut keys: BTreeMap<u32, BTreeMap<StreamKey, (u8, u64)>> = BTreeMap::new();
    for p in &prepared {
        let o = order_key(p.key, p.first_correlation, p.first_start);
        keys.entry(p.plane).or_default().insert(p.key, o);
    }
    // (A call's order key grows with its id: the lowest id's is the lowest.)
    for (&(plane, key), &corr) in &named {
        let o = order_key(key, corr, 0);
        let e = keys.entry(plane).or_default().entry(key).or_insert(o);
        *e = (*e).min(o);
    }
    let mut index = StreamIndex::default();
    for (&plane, ks) in &keys {
        let mut v: Vec<(&StreamKey, &(u8, u64))> = ks.iter().collect();
        v.sort_by_key(|(k, o)| (**o, **k));
        for (k, _) in v {
            index.numbers.insert((plane, *k), numbers.number(plane, *k));
        }
    }

    let mut out: BTreeMap<u32, Vec<DeviceLine>> = BTreeMap::new();
    let mut next_free: HashMap<u32, i64> = HashMap::default();
    for &plane in keys.keys() {
        next_free.insert(plane, numbers.first_free(plane));
    }
    // Sub-lines past a stream's own take the next free ids of their plane, in stream number
    // order.
    let mut numbered: Vec<(i64, PreparedLine)> = prepared
        .into_iter()
        .map(|p| (index.numbers[&(p.plane, p.key)], p))
        .collect();
    numbered.sort_by_key(|(number, p)| (p.plane, *number));
    for (number, p) in numbered {
        *split_events += p.split_events;
        let lines = out.entry(p.plane).or_default();
        let mut ids = Vec::with_capacity(p.subs.len());
        for (k, events) in p.subs.into_iter().enumerate() {
            let (id, name) = if k == 0 {
                (number, format!("Stream #{number}"))
            } else {
                let free = next_free.entry(p.plane).or_default();
                let id = *free;
                *free += 1;
                (id, format!("Stream #{number} (overlap {k})"))
            };
            index.with_line.insert((p.plane, p.key));
            // Line ids are stream numbers and overlap sub-lines of one device.
            ids.push(u32::try_from(id).unwrap_or(u32::MAX));
            lines.push(DeviceLine { id, name, events });
        }
        if !p.activity.is_empty() {
            let mut activity = p.activity;
            for a in &mut activity {
                a.line = ids[a.line as usize];
            }
            index
                .activity
                .insert((p.plane, p.key), index.activities.len());
            index.activities.push(activity);
        }
    }
    for lines in out.values_mut() {
        lines.sort_by_key(|l| l.id);
    }
    (out, index)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::trace::{AnchorPlace, DeviceEventKind, KernelInfo, LaunchShape, Table};

    /// A kernel event of `corr` from `s` to `e` (the join's tests build lines of them too).
    pub(crate) fn ev(corr: u64, s: u64, e: u64) -> DeviceEvent {
        DeviceEvent {
            start_ns: s,
            end_ns: e,
            correlation_id: corr,
            kind: DeviceEventKind::Kernel(KernelInfo {
                dispatch_id: 0,
                shape: Table::default().push(LaunchShape::default()),
            }),
            annotation: None,
            graph: None,
        }
    }

    /// Calls over more streams than `Restamp` keeps at hand, some handles created twice (a
    /// destroyed stream's handle reused), get the creation each call's own search of the
    /// creations gives, whatever order the streams come in.
    #[test]
    fn restamped_calls_take_the_latest_creation_before_them() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut list = Vec::new();
        for handle in 1..=9u64 {
            for k in 0..=(handle % 3) {
                let corr = 1 + crate::util::next_random(&mut x) % 10_000;
                list.push(StreamCreation {
                    correlation_id: corr,
                    stream: handle * 0x1000,
                    device: (handle % 4) as i32 + k as i32,
                    stream_seq: corr,
                });
            }
        }
        let creations = Creations::new(&list);
        let mut r = Restamp::new(&creations);
        for run in 0..4_000u64 {
            // Runs of a few calls on one of a few streams, as a thread's calls come.
            let stream =
                0x1000 * (crate::util::next_random(&mut x) % if run % 2 == 0 { 3 } else { 10 });
            for _ in 0..1 + run % 3 {
                let corr = crate::util::next_random(&mut x) % 11_000;
                let f = CallFact {
                    correlation_id: corr,
                    stream,
                    device: -1,
                    stream_seq: 0,
                };
                let want = if stream == 0 {
                    None
                } else {
                    creations.at(stream, corr)
                };
                let got = r.call(f);
                assert_eq!(
                    (got.device, got.stream_seq),
                    want.unwrap_or((-1, 0)),
                    "stream {stream:#x}, call {corr}"
                );
            }
        }
    }

    #[test]
    fn numbers_follow_creation_with_the_null_stream_first() {
        let mut g = BTreeMap::new();
        g.insert((0, StreamKey::Created(7)), vec![ev(1, 10, 20)]);
        g.insert((0, StreamKey::Null), vec![ev(2, 30, 40)]);
        g.insert((0, StreamKey::Created(3)), vec![ev(3, 50, 60)]);
        g.insert((0, StreamKey::Queue(0xabc)), vec![ev(0, 5, 6)]);
        g.insert((1, StreamKey::Created(5)), vec![ev(4, 1, 2)]);
        let mut split = 0;
        // Stream 4 only waits (no work of its own): it still gets a number.
        let (lines, idx) = build_lines(g, [(0, StreamKey::Created(4), 9)], &mut split);
        let names: Vec<(i64, &str)> = lines[&0].iter().map(|l| (l.id, l.name.as_str())).collect();
        assert_eq!(
            names,
            vec![
                (0, "Stream #0"),
                (1, "Stream #1"),
                (3, "Stream #3"),
                (4, "Stream #4")
            ]
        );
        assert_eq!(idx.number(0, StreamKey::Created(3)), Some(1));
        assert_eq!(idx.number(0, StreamKey::Created(4)), Some(2));
        assert_eq!(idx.number(0, StreamKey::Created(7)), Some(3));
        assert_eq!(idx.number(1, StreamKey::Created(5)), Some(0));
        assert_eq!(split, 0);
    }

    /// Capture windows of one run share their numbers: a stream idle in a later window does
    /// not give its number to another there, a stream new in that window takes the next
    /// free number, and overlap sub-lines take ids past every number given. Numbered apart,
    /// the second window had called stream 7 `Stream #0`, the null stream's name in the first.
    #[test]
    fn windows_of_one_run_keep_each_stream_s_number() {
        let build = |g, numbers: &mut StreamNumbers| {
            let mut split = 0;
            build_lines_with(g, [], &mut split, numbers, |tasks| {
                tasks.into_iter().map(prepare_line).collect()
            })
        };
        let names = |lines: &BTreeMap<u32, Vec<DeviceLine>>| -> Vec<(i64, String)> {
            lines[&0].iter().map(|l| (l.id, l.name.clone())).collect()
        };
        let mut numbers = StreamNumbers::default();
        let mut first = BTreeMap::new();
        first.insert((0, StreamKey::Null), vec![ev(1, 10, 20)]);
        first.insert((0, StreamKey::Created(3)), vec![ev(2, 30, 40)]);
        first.insert((0, StreamKey::Created(7)), vec![ev(3, 50, 60)]);
        let (lines, _) = build(first, &mut numbers);
        assert_eq!(
            names(&lines),
            [
                (0, "Stream #0".into()),
                (1, "Stream #1".into()),
                (2, "Stream #2".into())
            ]
        );
        // The next window: stream 7 alone, overlapping itself, and a new stream 9.
        let second = || {
            let mut g = BTreeMap::new();
            g.insert(
                (0, StreamKey::Created(7)),
                vec![ev(4, 100, 200), ev(5, 150, 160)],
            );
            g.insert((0, StreamKey::Created(9)), vec![ev(6, 300, 310)]);
            g
        };
        let (lines, index) = build(second(), &mut numbers);
        assert_eq!(
            names(&lines),
            [
                (2, "Stream #2".into()),
                (3, "Stream #3".into()),
                (4, "Stream #2 (overlap 1)".into())
            ]
        );
        assert_eq!(index.number(0, StreamKey::Created(9)), Some(3));
        let (apart, _) = build(second(), &mut StreamNumbers::default());
        assert_eq!(names(&apart)[0], (0, "Stream #0".into()));
    }

    #[test]
    fn calls_take_their_stream_from_the_creation_before_them() {
        let mk = |corr, stream, device, seq| StreamCreation {
            correlation_id: corr,
            stream,
            device,
            stream_seq: seq,
        };
        // Handle 0xa created on device 0, destroyed, re-created on device 1.
        let cr = Creations::new(&[mk(50, 0xa, 1, 2), mk(1, 0xa, 0, 1)]);
        // A wait seen before the creating thread published the stream (device -1).
        let mut calls = [CallFact {
            correlation_id: 10,
            stream: 0xa,
            device: -1,
            stream_seq: 0,
        }];
        let mut syncs = [SyncFact {
            correlation_id: 60,
            kind: crate::facts::SyncKind::StreamWaitEvent,
            event: 1,
            stream: 0xa,
            device: -1,
            stream_seq: 0,
        }];
        restamp(&cr, &mut calls, &mut syncs);
        assert_eq!((calls[0].device, calls[0].stream_seq), (0, 1));
        assert_eq!((syncs[0].device, syncs[0].stream_seq), (1, 2));
        assert_eq!(cr.at(0xa, 1), None, "not before its creation");
    }

    /// A program's few streams are named by millions of sync calls: the lines are built from
    /// the calls as they are read, holding nothing per call (the calls collected first, and a
    /// set collected from them, would be sized by the calls, not the streams). Counted by the
    /// `heap-stats` build (`ci/test.sh` runs it alone).
    #[cfg(feature = "heap-stats")]
    #[test]
    fn lines_hold_nothing_per_sync_call_heap() {
        let mut g = BTreeMap::new();
        g.insert(
            (0, StreamKey::Created(1)),
            vec![ev(1, 10, 20), ev(2, 30, 40)],
        );
        let calls = 2_000_000u64;
        let known = (0..calls).map(|i| (0, StreamKey::Created(1 + i % 2), i + 3));
        let mut split = 0;
        let (before, _) = crate::heap::stats().unwrap();
        let _ = crate::heap::interval_peak();
        let (lines, idx) = build_lines(g, known, &mut split);
        let top = crate::heap::interval_peak().unwrap();
        assert!(
            top < before + (1 << 20),
            "{} KB held while building two streams' lines",
            (top - before) >> 10
        );
        // Both streams have numbers; the one with no work of its own no line.
        assert_eq!(idx.number(0, StreamKey::Created(2)), Some(1));
        assert_eq!(lines[&0].len(), 1);
    }

    #[test]
    fn a_graph_launch_s_work_is_anchored_at_its_last_end_and_its_first_start() {
        // Launch 2's three dispatches share its id and overlap one another (so some land on
        // overlap lines): a record after it anchors at the latest end, a wait before it at
        // the earliest start, whichever dispatch and line those are.
        let mut g = BTreeMap::new();
        g.insert(
            (0, StreamKey::Created(1)),
            vec![
                ev(1, 0, 5),
                ev(2, 10, 30),
                ev(2, 8, 40),
                ev(2, 6, 20),
                ev(3, 50, 60),
            ],
        );
        let mut split = 0;
        let (lines, idx) = build_lines(g, [(0, StreamKey::Created(1), 1)], &mut split);
        let lines_of = |p: u32| lines.get(&p).map(Vec::as_slice);
        let slot = idx.facts(0, StreamKey::Created(1)).activities.unwrap();
        let near = &mut Near::default();
        let before_3 = idx.last_before(&lines_of, 0, slot, 3, near).unwrap();
        assert_eq!(before_3.time_ns, 40);
        let after_1 = idx.first_after(&lines_of, 0, slot, 1, near).unwrap();
        assert_eq!(after_1.time_ns, 6);
        // Past the last activity, and before the first, there is none.
        assert!(idx.first_after(&lines_of, 0, slot, 3, near).is_none());
        assert!(idx.last_before(&lines_of, 0, slot, 1, near).is_none());
    }

    #[test]
    fn a_self_overlapping_stream_is_split_and_counted() {
        let mut g = BTreeMap::new();
        g.insert(
            (0, StreamKey::Created(1)),
            vec![ev(1, 10, 50), ev(2, 20, 60), ev(3, 60, 70), ev(4, 30, 40)],
        );
        let mut split = 0;
        // A sync call names the stream, so its activities are indexed for anchors.
        let (lines, idx) = build_lines(g, [(0, StreamKey::Created(1), 1)], &mut split);
        let l = &lines[&0];
        assert_eq!(l.len(), 3);
        assert_eq!(split, 2);
        for line in l {
            let mut ev: Vec<(u64, u64)> =
                line.events.iter().map(|e| (e.start_ns, e.end_ns)).collect();
            ev.sort();
            for w in ev.windows(2) {
                assert!(w[0].1 <= w[1].0, "{:?} overlaps on {}", w, line.name);
            }
        }
        assert_eq!(l[1].name, "Stream #0 (overlap 1)");
        // Anchors find the events on whichever sub-line they landed.
        let lines_of = |p: u32| lines.get(&p).map(Vec::as_slice);
        let slot = idx.facts(0, StreamKey::Created(1)).activities.unwrap();
        let a = idx
            .first_after(&lines_of, 0, slot, 1, &mut Near::default())
            .unwrap();
        assert_eq!(
            (a.time_ns, a.place),
            (
                20,
                AnchorPlace::Device {
                    ordinal: 0,
                    line: l[1].id
                }
            )
        );
        let b = idx
            .last_before(&lines_of, 0, slot, 4, &mut Near::default())
            .unwrap();
        assert_eq!(b.time_ns, 70);
        // The index names events (16 B each) in vectors of their own size: it lives to the
        // join's end, one entry per event of every stream a sync call names.
        assert_eq!(std::mem::size_of::<Activity>(), 16);
        assert_eq!(idx.activities.len(), idx.activity.len());
        assert!(idx
            .activities
            .iter()
            .all(|v| v.len() == 4 && v.capacity() == v.len()));
    }
}
