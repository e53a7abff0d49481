//! What the device stages build and the host stage reads (`DeviceWork`): the stream each call
//! named, the device events on their lines as they are made, and how many activities each
//! call had. The call tables stage makes it (`call_tables`), the line sizes are counted before
//! the kernels come (`line_sizes`), the kernels and copies stages fill it.

use crate::facts::{CallFact, CopyRecord, Counters, KernelRecord, StreamCreation, SyncFact};
use crate::fastmap::HashMap;
use crate::model::corrmap::{CorrMap, Ranked, Slot};
use crate::model::graph::{GraphExec, GraphNode};
use crate::model::streams::{self, stream_key, StreamKey as LineKey};
use crate::model::trace::{DeviceEvent, Id, Table};
use crate::store::PackedVec;
use crate::util::buffers::grow;
use smallvec::SmallVec;
use std::collections::BTreeMap;
use std::num::NonZeroU32;

use super::annotations::AnnotationIndex;
use super::api_index::ApiIndex;
use super::devices::{copy_plane, HipVotes, IssuedDevices, Places};
use super::input::{DeviceRecords, Ids};

/// The call tables stage: the stream of each launch and copy (`DeviceWork`) and the HIP device
/// it was issued to (`Places::learn_hip_devices`), from the facts read at entry and the
/// streams' creations, and how many kernel events each line will hold (`line_sizes`). The sync
/// facts, this window's and the producers carried in, are restamped with the creations too, so
/// the producers made of them need no second look. The call facts stay packed as the threads
/// kept them (16 B a call, not 32): each is restamped once (`streams::Restamp`) and ranked once
/// for both tables over the calls, and they are freed here, before the device events are made.
/// Each kernel record is ranked once too, for its vote and its line.
pub(super) fn call_tables(
    calls: PackedVec<CallFact>,
    syncs: &mut [SyncFact],
    carried_producers: &mut [SyncFact],
    creations: &[StreamCreation],
    device: &DeviceRecords,
    places: &mut Places,
    ids: &Ids,
) -> DeviceWork {
    let creations = streams::Creations::new(creations);
    streams::restamp(&creations, &mut [], syncs);
    streams::restamp(&creations, &mut [], carried_producers);
    let mut r = streams::Restamp::new(&creations);
    let (mut work, issued) =
        DeviceWork::of_calls(calls.iter().map(|f| r.call(f)), calls.len(), ids);
    drop(calls);
    let votes = work.count_kernels(&device.kernels, places, &issued);
    let issued_to = |corr| issued.get(corr, work.stream_slot(work.key(corr)));
    places.learn_hip_devices(votes, issued_to, &device.copies, ids);
    work
}

/// Lines of no stream found by a search of a few before a hash probe (`DeviceWork::few`).
const FEW_LINES: usize = 8;

/// Where a line's events stop doubling (`grow`) …
const LINE_SMALL_BELOW: usize = 1 << 16;
/// … and the share of its length it grows by after: an eighth. The kernels stage's last step
/// is the top of its peak (the device events made so far, the room for the next step and the
/// kernel records not yet taken), so the step stays a small share.
const LINE_GROWS_PER: usize = 8;

/// The steps a counted line's room is made in (`DeviceWork::reserve_lines`): quarters, the
/// last one in two eighths.
const LINE_ROOM_STEPS: usize = 4;

/// What the kernels and copies stages read (the planes, the API index) and add to (the
/// annotations, the lines, the accounting).
pub(super) struct DeviceStage<'a> {
    pub places: &'a Places,
    pub api: &'a ApiIndex,
    pub annotations: &'a mut AnnotationIndex,
    pub work: &'a mut DeviceWork,
    pub counters: &'a mut Counters,
}

impl DeviceStage<'_> {
    /// The same stage for a shorter while: one stage after another.
    pub(super) fn reborrow(&mut self) -> DeviceStage<'_> {
        DeviceStage {
            places: self.places,
            api: self.api,
            annotations: self.annotations,
            work: self.work,
            counters: self.counters,
        }
    }
}

/// The line a call's device work goes on: its stream's (with the stream's slot in
/// `DeviceWork::streams`), else a line of no stream (a queue's, the copies' own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LinePlace {
    pub key: LineKey,
    pub slot: Option<Slot>,
}

/// What each call's device work was, made by the device stages for the calls' host events,
/// which take it (`DeviceWork::take_call_activity`) and free it once the calls are events.
#[derive(Default)]
pub(super) struct CallActivity {
    /// Per correlation id: how many activities, and the lowest device they ran on.
    pub activity_of: Activities,
    /// The executable graph of each graph launch, from the nodes of its work.
    pub graph_exec_of: CorrMap<GraphExec>,
}

/// A table of values each stored once (graph nodes, graph launches: the events name them by
/// id), with the id of each value stored.
pub(super) struct Interned<T> {
    table: Table<T>,
    ids: HashMap<T, Id<T>>,
}

impl<T> Default for Interned<T> {
    fn default() -> Self {
        Interned {
            table: Table::default(),
            ids: HashMap::default(),
        }
    }
}

impl<T: Copy + Eq + std::hash::Hash> Interned<T> {
    /// The id of `v`, stored when new.
    pub fn id(&mut self, v: T) -> Id<T> {
        let table = &mut self.table;
        *self.ids.entry(v).or_insert_with(|| table.push(v))
    }

    pub fn into_table(self) -> Table<T> {
        self.table
    }
}

/// How many activities each call had and the lowest device they ran on, 4 B per call (the
/// table has a slot per call, and is held through the kernels and host events stages):
/// the count in the low 24 bits, the device in the high 8. A call past either (a graph launch
/// of 16 M nodes, a device past 254) is kept whole apart (`large`).
#[derive(Default)]
pub(super) struct Activities {
    of: CorrMap<NonZeroU32>,
    large: HashMap<u64, (NonZeroU32, u32)>,
}

/// An entry of `Activities::of` kept in `Activities::large`.
const LARGE: u32 = u32::MAX;
const COUNT_BITS: u32 = 24;
const COUNT_MASK: u32 = (1 << COUNT_BITS) - 1;

impl Activities {
    /// Room for about `n` calls with activities.
    pub(super) fn reserve(&mut self, n: usize) {
        self.of.reserve(n);
    }

    /// Call `corr` ranked for this table and the others over the calls (`CorrMap::key`).
    #[inline]
    pub(super) fn key(&self, corr: u64) -> Ranked {
        self.of.key(corr)
    }

    /// One more activity of call `call`, on device `dev`. (Inlined in `DeviceWork::push`:
    /// always, as left to the compiler it stays a call per event.)
    #[inline(always)]
    fn add(&mut self, call: Ranked, dev: u32) {
        let corr = call.id;
        let mut first = false;
        let e = self.of.get_or_insert_with_ranked(call, || {
            first = true;
            NonZeroU32::MIN
        });
        let (n, low) = if first {
            (NonZeroU32::MIN, dev)
        } else if e.get() == LARGE {
            // (Every `LARGE` entry has its counts in `large`.)
            if let Some(n) = self.large.get_mut(&corr) {
                n.0 = n.0.saturating_add(1);
                n.1 = n.1.min(dev);
            }
            return;
        } else {
            let n = NonZeroU32::MIN.saturating_add((e.get() & COUNT_MASK) - 1);
            (n.saturating_add(1), (e.get() >> COUNT_BITS).min(dev))
        };
        let packs = n.get() < COUNT_MASK && low < (LARGE >> COUNT_BITS);
        *e = if packs {
            NonZeroU32::new(n.get() | low << COUNT_BITS).unwrap_or(NonZeroU32::MIN)
        } else {
            self.large.insert(corr, (n, low));
            NonZeroU32::MAX
        };
    }

    /// How many activities call `corr` had (none: `None`) and the lowest device they ran on.
    #[inline]
    pub(super) fn get(&self, call: Ranked) -> Option<(NonZeroU32, u32)> {
        let e = self.of.get_ranked(call)?.get();
        if e == LARGE {
            return self.large_of(call.id);
        }
        let n = NonZeroU32::new(e & COUNT_MASK)?;
        Some((n, e >> COUNT_BITS))
    }

    /// The counts of a call kept whole apart (`large`): rare, and hashed, so not inlined.
    #[inline(never)]
    fn large_of(&self, corr: u64) -> Option<(NonZeroU32, u32)> {
        self.large.get(&corr).copied()
    }
}

/// How many events a line will hold (`line_sizes`).
#[derive(Debug, Clone, Copy)]
pub(super) struct LineSize {
    pub plane: u32,
    pub place: LinePlace,
    pub events: usize,
}

/// What the device stages produce and the host stage reads.
pub(super) struct DeviceWork {
    /// The stream of each launch/copy, from its arguments at entry: a slot of `streams` (a
    /// run has a few streams and millions of calls: 4 B per call, not the 16 of a `LineKey`).
    stream_of: CorrMap<Slot>,
    streams: Vec<LineKey>,
    /// What each call's device work was, for its host event (`CallActivity`).
    pub calls: CallActivity,
    /// Events per (plane, stream), in the order the lines were first seen; `line_of` finds a
    /// line and `last` remembers the previous event's, since consecutive events mostly share
    /// one (no ordered-map probe per event).
    lines: Vec<((u32, LineKey), Vec<DeviceEvent>)>,
    line_of: HashMap<(u32, LineKey), usize>,
    last: Option<((u32, LineKey), usize)>,
    /// The first `FEW_LINES` lines of no stream asked for, searched in order before
    /// `line_of`: a run's work without a stream is on a few queues (and the copies' own
    /// line), each dispatch mostly on another queue than the one before, where `last` misses
    /// and a hash probe would be made per event.
    few: SmallVec<[((u32, LineKey), usize); FEW_LINES]>,
    /// The lines of each stream slot (one entry per stream of `streams`), by plane, found by
    /// index: consecutive events mostly change line (the kernels stage walks every GPU's
    /// dispatches in time order), so remembering the last line rarely helps, and a slot's
    /// few planes are found without hashing the line's key.
    slot_lines: Vec<SmallVec<[(u32, u32); 1]>>,
    /// The graph nodes the events name (`DeviceEvent::graph`).
    graph_nodes: Interned<GraphNode>,
    /// The events each line of `lines` will hold, when counted (`reserve_lines`; 0 when not).
    sizes: Vec<usize>,
    /// The kernel events each line will hold (`count_kernels`), for `line_sizes`.
    kernel_lines: LineCounts,
}

impl DeviceWork {
    /// The table of `calls` (`n` of them): the stream each named (kept), and the HIP device
    /// each was issued to (returned: `IssuedDevices`, by the stream's slot), each call ranked
    /// once for both.
    fn of_calls(
        calls: impl Iterator<Item = CallFact>,
        n: usize,
        ids: &Ids,
    ) -> (Self, IssuedDevices) {
        let mut stream_of: CorrMap<Slot> = ids.per_call();
        stream_of.reserve(n);
        let mut issued = IssuedDevices::default();
        let mut streams = Vec::new();
        let mut slot_of: HashMap<LineKey, Slot> = HashMap::default();
        // A thread's consecutive calls mostly name one stream: the last answer is kept.
        let mut last: Option<(LineKey, Slot)> = None;
        for f in calls.filter(|f| f.correlation_id != 0) {
            let call = stream_of.key(f.correlation_id);
            let key = stream_key(f.stream, f.stream_seq);
            let slot = match last {
                Some((k, slot)) if k == key => Some(slot),
                _ => match slot_of.get(&key) {
                    Some(&slot) => Some(slot),
                    None => Slot::new(streams.len()).inspect(|&slot| {
                        streams.push(key);
                        slot_of.insert(key, slot);
                    }),
                },
            };
            last = slot.map(|s| (key, s));
            let before = || stream_of.get_ranked(call).copied();
            issued.note(f.correlation_id, f.device, before, slot);
            // (Past 2^32 − 1 streams a call's work goes by its queue.)
            if let Some(slot) = slot {
                stream_of.insert_ranked(call, slot);
            }
        }
        let slot_lines = vec![SmallVec::new(); streams.len()];
        let kernel_lines = LineCounts::new(streams.len());
        let work = DeviceWork {
            stream_of,
            streams,
            calls: CallActivity {
                activity_of: Activities {
                    of: ids.per_call(),
                    large: HashMap::default(),
                },
                graph_exec_of: ids.per_call(),
            },
            lines: Vec::new(),
            line_of: HashMap::default(),
            last: None,
            few: SmallVec::new(),
            slot_lines,
            graph_nodes: Interned::default(),
            sizes: Vec::new(),
            kernel_lines,
        };
        (work, issued)
    }

    /// Each kernel record, ranked once: its call's HIP device (`issued`) votes for its
    /// plane when it ran on an enumerated GPU, and it is counted on its line
    /// (`kernel_lines`, for `line_sizes`). In the store's order, as the votes are counted.
    fn count_kernels(
        &mut self,
        kernels: &PackedVec<KernelRecord>,
        places: &Places,
        issued: &IssuedDevices,
    ) -> HipVotes {
        let mut votes = HipVotes::default();
        let mut counts = std::mem::take(&mut self.kernel_lines);
        for (k, entry) in kernels.iter_with_entry() {
            let call = self.key(k.correlation_id);
            let slot = self.stream_slot(call);
            if k.correlation_id != 0 {
                let d = places.entry_gpu(entry).zip(issued.get(call.id, slot));
                if let Some((p, d)) = d {
                    votes.vote(d, p);
                }
            }
            let dev = places.entry_plane(entry);
            counts.count(dev, self.place_of_slot(slot, LineKey::Queue(k.queue)));
        }
        self.kernel_lines = counts;
        votes
    }

    /// The line of call `corr`'s work: the stream it named at its entry (with its slot), else
    /// `otherwise`.
    pub(super) fn place(&self, corr: u64, otherwise: LineKey) -> LinePlace {
        self.place_ranked(self.key(corr), otherwise)
    }

    /// Call `corr` ranked for the tables over the calls (`CorrMap::key`): ranked once, read in
    /// each of them (`place_ranked`, `push`, `AnnotationIndex::get_ranked`).
    #[inline]
    pub(super) fn key(&self, corr: u64) -> Ranked {
        self.calls.activity_of.key(corr)
    }

    /// `place` of a ranked call.
    pub(super) fn place_ranked(&self, call: Ranked, otherwise: LineKey) -> LinePlace {
        self.place_of_slot(self.stream_slot(call), otherwise)
    }

    /// The slot of the stream call `call` named at its entry.
    #[inline]
    fn stream_slot(&self, call: Ranked) -> Option<Slot> {
        self.stream_of.get_ranked(call).copied()
    }

    /// The line of the work of a call whose stream is at `slot` (`stream_slot`), else
    /// `otherwise`.
    #[inline]
    fn place_of_slot(&self, slot: Option<Slot>, otherwise: LineKey) -> LinePlace {
        slot.and_then(|s| {
            Some(LinePlace {
                key: *self.streams.get(s.index())?,
                slot: Some(s),
            })
        })
        .unwrap_or(LinePlace {
            key: otherwise,
            slot: None,
        })
    }

    /// What each call's device work was: the device stages are done.
    pub(super) fn take_call_activity(&mut self) -> CallActivity {
        std::mem::take(&mut self.calls)
    }

    /// The graph nodes the events name: the device stages are done.
    pub(super) fn take_graph_nodes(&mut self) -> Table<GraphNode> {
        std::mem::take(&mut self.graph_nodes).into_table()
    }

    /// Lets go of the stream each call named: the copies are the last to ask.
    pub(super) fn forget_call_streams(&mut self) {
        drop(std::mem::take(&mut self.stream_of));
    }

    /// The position in `lines` of line (`dev`, `key`), added when new; `of_no_stream`: the
    /// line is found by its key each time (not by a stream's slot), so it is kept among the
    /// `few` while there is room.
    fn line_index(&mut self, dev: u32, key: LineKey, of_no_stream: bool) -> usize {
        let at = (dev, key);
        if let Some((k, i)) = self.last {
            if k == at {
                return i;
            }
        }
        let i = match self.few.iter().find(|(k, _)| *k == at) {
            Some(&(_, i)) => i,
            None => {
                let lines = &mut self.lines;
                let sizes = &mut self.sizes;
                let i = *self.line_of.entry(at).or_insert_with(|| {
                    lines.push((at, Vec::new()));
                    sizes.push(0);
                    lines.len() - 1
                });
                if of_no_stream && self.few.len() < FEW_LINES {
                    self.few.push((at, i));
                }
                i
            }
        };
        self.last = Some((at, i));
        i
    }

    /// The events of every line, by (plane, stream).
    pub(super) fn take_lines(&mut self) -> BTreeMap<(u32, LineKey), Vec<DeviceEvent>> {
        self.line_of.clear();
        self.slot_lines.clear();
        self.sizes.clear();
        self.last = None;
        self.few.clear();
        // Trimmed to their events: a grown vector keeps up to twice its events' room for as
        // long as the trace lives (shrinking a large block moves nothing).
        std::mem::take(&mut self.lines)
            .into_iter()
            // A line given room whose records were all skipped (`line_sizes`) is no line.
            .filter(|(_, events)| !events.is_empty())
            .map(|(at, mut events)| {
                events.shrink_to_fit();
                (at, events)
            })
            .collect()
    }

    /// Adds device event `e`, graph node `graph` when it was one, on plane `dev`, at `place`,
    /// and counts it for its launching call. (`call`: its correlation id ranked, `key`.)
    /// Inlined where the events are made (a call per dispatch and copy): the event is then
    /// built in place, not copied through the call. (Always: left to the compiler, it stays a
    /// call.)
    #[inline(always)]
    pub(super) fn push(
        &mut self,
        dev: u32,
        place: LinePlace,
        call: Ranked,
        mut e: DeviceEvent,
        graph: Option<GraphNode>,
    ) {
        let corr = e.correlation_id;
        debug_assert_eq!(call.id, corr, "the event's call");
        if corr != 0 {
            self.calls.activity_of.add(call, dev);
            if let Some(g) = graph {
                self.calls.graph_exec_of.insert(corr, g.exec());
            }
        }
        e.graph = graph.map(|g| self.graph_nodes.id(g));
        let at = self.line_at(dev, place);
        let line = &mut self.lines[at].1;
        if line.len() == line.capacity() {
            make_room(line, self.sizes.get(at).copied());
        }
        line.push(e);
    }

    /// The position in `lines` of the line at `place` on plane `dev`: by its stream's slot
    /// when it has one, else by key; added when new. (Inlined where events are pushed: the
    /// slot's line is found in a few reads, and only a new line or one of no stream takes
    /// the call.)
    #[inline]
    fn line_at(&mut self, dev: u32, place: LinePlace) -> usize {
        let known = place
            .slot
            .and_then(|s| self.slot_lines.get(s.index()))
            .and_then(|l| l.iter().find(|(d, _)| *d == dev));
        match known {
            Some(&(_, i)) => i as usize,
            None => self.new_line_at(dev, place),
        }
    }

    /// `line_at` of a line not found by its stream's slot.
    #[inline(never)]
    fn new_line_at(&mut self, dev: u32, LinePlace { key, slot }: LinePlace) -> usize {
        let i = self.line_index(dev, key, slot.is_none());
        if let (Some(s), Ok(at)) = (slot, u32::try_from(i)) {
            if let Some(l) = self.slot_lines.get_mut(s.index()) {
                l.push((dev, at));
            }
        }
        i
    }

    /// Room on each line of `sizes` (`line_sizes`) for its events, in steps of a quarter, the
    /// last quarter in two eighths (`LINE_ROOM_STEPS`): one now, the next when that is full
    /// (`push`). Made whole at once, or in halves, a line's room would be held beside the
    /// kernel records not yet given back (they are given back as they are taken): the top of
    /// the kernels stage's peak, which is the join's on a run of one long stream. The last
    /// step's room beside the last step's records is that top, so the last step is an eighth;
    /// the earlier ones, whose records are more but whose room is less, stay quarters: each
    /// line is copied at most four times, 2.4 of its size in all (where glibc did not map it:
    /// a mapped one grows in place), where eighths throughout copy it 3.5 times over.
    pub(super) fn reserve_lines(&mut self, sizes: Vec<LineSize>) {
        for LineSize {
            plane,
            place,
            events,
        } in sizes
        {
            let at = self.line_at(plane, place);
            let line = &mut self.lines[at].1;
            line.reserve_exact(events.div_ceil(LINE_ROOM_STEPS));
            self.sizes[at] = line.len() + events;
        }
        // The kernels' counts have served.
        self.kernel_lines = LineCounts::default();
    }
}

/// Room for the next events of a full line (`DeviceWork::push`) that will hold `size` events
/// (`reserve_lines`; `None` or 0 when not counted): its next quarter, or eighth in the last
/// quarter, else a step of `grow`.
#[inline(never)]
fn make_room(line: &mut Vec<DeviceEvent>, size: Option<usize>) {
    match size {
        Some(n) if n > line.len() => {
            let quarter = n.div_ceil(LINE_ROOM_STEPS);
            let left = n - line.len();
            let step = if left <= quarter {
                quarter.div_ceil(2)
            } else {
                quarter
            };
            line.reserve_exact(left.min(step));
        }
        _ => grow(line, usize::MAX, LINE_SMALL_BELOW, LINE_GROWS_PER),
    }
}

/// Events counted per line: by stream slot and plane (a run has a few of each), no hashing
/// per record; lines of no stream (a queue's, the copies' own) by key.
#[derive(Debug, Clone, Default)]
struct LineCounts {
    by_slot: Vec<SmallVec<[(u32, usize); 1]>>,
    by_key: HashMap<(u32, LineKey), usize>,
}

impl LineCounts {
    /// Counts for the lines of `slots` streams and of no stream.
    fn new(slots: usize) -> Self {
        LineCounts {
            by_slot: vec![SmallVec::new(); slots],
            by_key: HashMap::default(),
        }
    }

    /// One event more on plane `dev`'s line at `place`.
    #[inline]
    fn count(&mut self, dev: u32, LinePlace { key, slot }: LinePlace) {
        match slot.and_then(|s| self.by_slot.get_mut(s.index())) {
            Some(planes) => match planes.iter_mut().find(|(d, _)| *d == dev) {
                Some((_, n)) => *n += 1,
                None => planes.push((dev, 1)),
            },
            None => *self.by_key.entry((dev, key)).or_default() += 1,
        }
    }

    /// Each line's count, by (plane, key): the order lines are made in, the same every run.
    fn sizes(self, streams: &[LineKey]) -> Vec<LineSize> {
        let slotted =
            self.by_slot
                .into_iter()
                .zip(streams)
                .enumerate()
                .flat_map(|(i, (planes, &key))| {
                    planes.into_iter().map(move |(plane, events)| LineSize {
                        plane,
                        place: LinePlace {
                            key,
                            slot: Slot::new(i),
                        },
                        events,
                    })
                });
        let mut sizes: Vec<LineSize> = slotted
            .chain(
                self.by_key
                    .into_iter()
                    .map(|((plane, key), events)| LineSize {
                        plane,
                        place: LinePlace { key, slot: None },
                        events,
                    }),
            )
            .collect();
        sizes.sort_unstable_by_key(|s| (s.plane, s.place.key));
        sizes
    }
}

/// How many events each line will get from the kernels (counted by the call tables stage,
/// `DeviceWork::count_kernels`) and the copies: counted before the kernels stage so that each
/// line is allocated at its size, in steps (`DeviceWork::reserve_lines`), where a line grown
/// step by step would be copied whole at each step (`grow`). Records the stages will skip (no
/// usable span, no GPU for a copy) are counted too: room for a few events more, never a copy.
pub(super) fn line_sizes(
    copies: &[CopyRecord],
    places: &Places,
    work: &DeviceWork,
) -> Vec<LineSize> {
    let mut counts = work.kernel_lines.clone();
    let gpu_count = places.ordinal_of.len();
    for m in copies {
        if let Some(dev) = copy_plane(m, places, gpu_count) {
            counts.count(dev, work.place(m.correlation_id, LineKey::Copies));
        }
    }
    counts.sizes(&work.streams)
}

/// The span to show for a device activity. A zero start would drag the profile origin to boot
/// time (and the timeline to days), so such records are skipped; an end before the start is
/// shown with zero duration. Both are counted, never silently changed.
pub(super) fn usable_span(
    start_ns: u64,
    end_ns: u64,
    counters: &mut Counters,
) -> Option<(u64, u64)> {
    if start_ns == 0 {
        counters.bad_timestamp_records += 1;
        return None;
    }
    if end_ns < start_ns {
        counters.bad_timestamp_records += 1;
        return Some((start_ns, start_ns));
    }
    Some((start_ns, end_ns))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::annotations::{annotate, Spanned};
    use crate::join::copies::{copy_events, place_copies};
    use crate::join::devices::place_devices;
    use crate::join::input::Input;
    use crate::join::kernels::{kernel_events, kernel_order};
    use crate::join::tests::{
        api, base, copy, kernel, no_labels, q, CPU, GPU0, GPU1, LAUNCH, MEMCPY,
    };
    use crate::model::next_random;
    use crate::model::trace::{DeviceEventKind, KernelInfo, LaunchShape, Table};

    /// Each call's count and lowest device read back as counted, whether packed in the 4 B
    /// entry or kept apart: a count past 24 bits, a device past 254, and a call that passes
    /// from one to the other.
    #[test]
    fn activities_count_and_keep_the_lowest_device_packed_or_apart() {
        let ids = Ids::every(1, 100);
        let mut a = Activities {
            of: ids.per_call(),
            large: HashMap::default(),
        };
        a.reserve(100);
        let mut want: std::collections::HashMap<u64, (u32, u32)> = Default::default();
        let mut add = |a: &mut Activities, corr: u64, dev: u32| {
            a.add(a.key(corr), dev);
            let w = want.entry(corr).or_insert((0, u32::MAX));
            *w = (w.0 + 1, w.1.min(dev));
        };
        for corr in 1..=100u64 {
            for k in 0..corr % 4 + 1 {
                add(
                    &mut a,
                    corr,
                    [3, 0, 7, 254, 255, 70_000][((corr + k) % 6) as usize],
                );
            }
        }
        // Past 24 bits of count: kept apart from there on.
        for _ in 0..COUNT_MASK + 2 {
            add(&mut a, 5, 9);
        }
        for (&corr, &(n, dev)) in &want {
            let got = a.get(a.key(corr)).map(|(n, d)| (n.get(), d));
            assert_eq!(got, Some((n, dev)), "call {corr}");
        }
        assert!(
            a.large.contains_key(&5),
            "a count past 24 bits is kept apart"
        );
        assert_eq!(a.get(a.key(101)), None);
    }

    /// Every event reaches the line of its plane and stream, in the order pushed, whether its
    /// line is found by the stream's slot (one stream's work on two planes, two streams taking
    /// turns) or by key (work whose call named no stream, or no call at all: on more queues
    /// than `FEW_LINES`, taking turns, so found among the few and by the map).
    #[test]
    fn device_events_reach_their_line_by_slot_or_by_key() {
        let call = |correlation_id, stream| crate::model::events::CallFact {
            correlation_id,
            stream,
            device: 0,
            stream_seq: 100 + stream,
        };
        let calls: Vec<_> = (1..=40).map(|i| call(i, 1 + i % 2)).collect();
        let ids = Ids::every(1, 200);
        let (mut work, _) = DeviceWork::of_calls(calls.into_iter(), 40, &ids);
        let mut want: BTreeMap<(u32, LineKey), Vec<u64>> = BTreeMap::new();
        for corr in 1..=200u64 {
            // Calls 41..=200 named no stream: their work goes by queue.
            let at = work.place(corr, LineKey::Queue(7 + corr % 7));
            let dev = (corr % 3 == 0) as u32;
            want.entry((dev, at.key)).or_default().push(corr);
            let e = DeviceEvent {
                start_ns: corr,
                end_ns: corr + 1,
                correlation_id: corr,
                kind: DeviceEventKind::Kernel(KernelInfo {
                    dispatch_id: corr,
                    shape: Table::default().push(LaunchShape::default()),
                }),
                annotation: None,
                graph: None,
            };
            work.push(dev, at, work.key(corr), e, None);
        }
        let got: BTreeMap<(u32, LineKey), Vec<u64>> = work
            .take_lines()
            .into_iter()
            .map(|(k, events)| (k, events.iter().map(|e| e.correlation_id).collect()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(
            got.len(),
            2 * (2 + 7),
            "two streams and seven queues, each on two planes"
        );
        let queues = got.keys().filter(|(_, k)| matches!(k, LineKey::Queue(_)));
        assert!(
            queues.count() > FEW_LINES,
            "lines of no stream beyond the few"
        );
    }

    /// The device each call was issued to, kept by stream slot and apart only where a call's
    /// differs, reads back as a table over every call would: the last of an id's repeats
    /// wins unless its device is past 16 bits (then the earlier one stays), calls of one
    /// stream on several devices, and devices past 16 bits.
    #[test]
    fn issued_devices_read_back_as_a_table_over_every_call() {
        let mut x = 0x5eed_1234u64;
        let mut next = |m: u64| next_random(&mut x) % m;
        let mut calls = Vec::new();
        let mut want: std::collections::HashMap<u64, u16> = Default::default();
        for _ in 0..3_000 {
            let correlation_id = 1 + next(1_000);
            let stream = next(4);
            // Mostly the stream's own device; now and then another, or one past 16 bits.
            let device = match next(20) {
                0 => 70_000,
                1 => next(3) as i32,
                _ => stream as i32,
            };
            calls.push(CallFact {
                correlation_id,
                stream,
                device,
                stream_seq: 0,
            });
            if let Ok(d) = u16::try_from(device) {
                want.insert(correlation_id, d);
            }
        }
        let ids = Ids::every(1, 1_000);
        let (work, issued) = DeviceWork::of_calls(calls.into_iter(), 3_000, &ids);
        for corr in 0..=1_001u64 {
            let got = issued.get(corr, work.stream_slot(work.key(corr)));
            assert_eq!(got, want.get(&corr).copied(), "call {corr}");
        }
    }

    /// Before the kernels stage each call fact is ranked once, for both tables over the calls
    /// (its stream, its HIP device), and each kernel record once, for its vote on its HIP
    /// device's plane and for its line's size; the kernels stage ranks each record once more
    /// (for every table it reads). The HIP devices are learned all the same.
    #[test]
    fn each_call_and_kernel_is_ranked_once_before_the_kernels_stage() {
        use crate::model::corrmap::RANKINGS;
        let mut c = base();
        let n = 2_000u64;
        for corr in 1..=n {
            c.api.push(api(LAUNCH, corr, corr * 10, corr * 10 + 3, 7));
            c.calls.push(CallFact {
                correlation_id: corr,
                stream: 1 + corr % 3,
                device: 0,
                stream_seq: 0,
            });
            let mut k = kernel(corr, corr * 10 + 1, corr * 10 + 2, 1, corr, q());
            k.agent = GPU1;
            c.kernels.push(k);
        }
        let Input {
            agents,
            host,
            device,
            mut facts,
            ..
        } = Input::split(c);
        let mut places = place_devices(&agents, &device.kernels, &mut Vec::new());
        let ids = Ids::of(&host);
        let calls = std::mem::take(&mut facts.calls);
        let before = RANKINGS.with(|r| r.get());
        let work = call_tables(
            calls,
            &mut facts.syncs,
            &mut [],
            &facts.stream_creations,
            &device,
            &mut places,
            &ids,
        );
        let sizes = line_sizes(&device.copies, &places, &work);
        let ranked = RANKINGS.with(|r| r.get()) - before;
        assert_eq!(ranked, 2 * n, "one ranking per call fact and per kernel");
        assert_eq!(places.of_hip(0), Some(1), "HIP device 0 is GPU1's plane");
        assert_eq!(sizes.iter().map(|s| s.events).sum::<usize>(), n as usize);
    }

    /// The line sizes counted before the kernels stage are what the kernels and copies put on
    /// each line: every line ends at its size (its capacity is its length, not a step's), on
    /// streams named by calls and on queues, on two planes, copies on kernels' streams and on
    /// their own line. A record the stages skip leaves room for one event more, and a line
    /// that gets no event at all is no line.
    #[test]
    fn lines_are_made_once_at_the_size_the_kernels_and_copies_give_them() {
        let mut c = base();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for corr in 1..=3_000u64 {
            let r = next_random(&mut x);
            let op = if corr % 7 == 0 { MEMCPY } else { LAUNCH };
            c.api.push(api(op, corr, corr * 10, corr * 10 + 3, 7));
            // Most calls name one of three streams (on HIP device 0 or 1); some none.
            if r % 5 != 0 {
                let stream = 1 + r % 3;
                c.calls.push(CallFact {
                    correlation_id: corr,
                    stream,
                    device: i32::from(stream == 3),
                    stream_seq: 0,
                });
            }
            if op == MEMCPY {
                let (dst, src) = if r % 2 == 0 { (GPU0, CPU) } else { (CPU, GPU1) };
                c.copies.push(copy(corr, MEMCPY, dst, src));
            } else {
                let mut k = kernel(corr, corr * 10 + 1, corr * 10 + 2, 1, corr, q() + r % 2);
                k.agent = if (r >> 8) % 3 == 0 { GPU1 } else { GPU0 };
                c.kernels.push(k);
            }
        }
        // Skipped by the kernels stage (no start): the first on a queue of its own, which
        // gets room but no event, the second on a line with events.
        c.kernels.push(kernel(0, 0, 5, 1, 9_001, 0xbeef));
        let mut alone = kernel(0, 0, 5, 1, 9_002, q());
        alone.agent = GPU0;
        c.kernels.push(alone);

        let Input {
            agents,
            host,
            device,
            mut facts,
            names,
            ..
        } = Input::split(c);
        let (mut warnings, mut counters) = (Vec::new(), Counters::default());
        let mut places = place_devices(&agents, &device.kernels, &mut warnings);
        let ids = Ids::of(&host);
        let calls = std::mem::take(&mut facts.calls);
        let creations = &facts.stream_creations;
        let mut work = call_tables(
            calls,
            &mut facts.syncs,
            &mut [],
            creations,
            &device,
            &mut places,
            &ids,
        );
        let annotated = annotate(Spanned::new(host, no_labels()), &ids);
        let mut annotations = annotated.index;
        let api = ApiIndex::build(&annotated.calls.api, &ids, Vec::new(), &[]).index;
        let sizes = line_sizes(&device.copies, &places, &work);
        let planes: std::collections::BTreeSet<u32> = sizes.iter().map(|s| s.plane).collect();
        assert_eq!(planes.len(), 2, "lines on both planes: {sizes:?}");
        work.reserve_lines(sizes);
        let order = kernel_order(&device.kernels);
        kernel_events(
            device.kernels,
            order,
            &names.symbols,
            DeviceStage {
                places: &places,
                api: &api,
                annotations: &mut annotations,
                work: &mut work,
                counters: &mut counters,
            },
        );
        let placed = place_copies(device.copies, &Default::default(), &[], &[], &places);
        let stage = DeviceStage {
            places: &places,
            api: &api,
            annotations: &mut annotations,
            work: &mut work,
            counters: &mut counters,
        };
        copy_events(placed, stage, &mut warnings);

        let shapes: Vec<(u32, LineKey, usize, usize)> = work
            .lines
            .iter()
            .map(|((dev, key), events)| (*dev, *key, events.len(), events.capacity()))
            .collect();
        let (empty, filled): (Vec<&(u32, LineKey, usize, usize)>, Vec<_>) =
            shapes.iter().partition(|s| s.2 == 0);
        assert_eq!(empty.len(), 1, "the skipped kernel's own queue: {shapes:?}");
        let one_more = filled.iter().filter(|s| s.3 == s.2 + 1).count();
        assert_eq!(
            one_more, 1,
            "the line of the other skipped kernel: {shapes:?}"
        );
        assert!(
            filled.iter().all(|s| s.3 == s.2 || s.3 == s.2 + 1),
            "every line made at its size: {shapes:?}"
        );
        let lines = work.take_lines();
        assert_eq!(lines.len(), filled.len());
        assert!(lines.values().all(|events| !events.is_empty()));
        assert_eq!(
            lines.values().map(Vec::len).sum::<usize>(),
            2_572 + 428,
            "every kernel and copy"
        );
    }
}
