//! What a capture window hands to the next (`window`): the calls it cannot join yet.
//!
//! The GPU runs behind the host, and a call's pieces reach the tool at different times: its
//! capture facts at entry, its API record when it returns, its kernels or copies when they
//! complete. A cut falls between them. Written as they are, a launch shows without its kernel
//! in one window, and the kernel shows in the next without its call, its roctx labels or the
//! stream it was launched on: most launches of a window whose GPU runs behind would show
//! without activity there, and as many kernels without a call in the window after.
//!
//! So a window keeps back every correlation id that is still incomplete, with all it holds
//! for that id, and the next window takes them in before its join:
//!
//! - a call expected to make device work (`hip::ops`) that has none yet;
//! - device work, or capture facts, whose call has no record yet;
//! - what a stream's order makes incomplete (`hold_in_stream_order`): every later call on
//!   the stream of a held call (an event record's arrow starts at the work before it), the
//!   waits on a record so held, and a graph launch whose dispatches are not all here (where
//!   their count is not known: whose stream has no later work here yet);
//!   with windows merged on one clock (`Windows::Merged`), also a `hipStreamWaitEvent` whose
//!   stream has no device work after it here (its arrow ends at that work).
//!
//! A graph launch's dispatch count is not in its records. Where the capture counted it (the
//! runtime's external-id requests made on the launching thread during the call, one per dispatch
//! or copy: `Collected::graph_launches`), the launch is held until all of them came, and written
//! whole; a count short of the work (the runtime created some of it on another thread) leaves the
//! rest to come later without its call's stream and labels, counted (`activities_unplaced`) and
//! said at exit. Where it did not count it, the launch is written once its stream has moved on,
//! and its scope and launch facts still go along, copied, so that a dispatch delivered after its
//! stream's later work, and after the cut, is placed on its stream and labelled in a later window
//! (counted there as an activity without a call: the call is in the earlier file). Delivery of
//! later work says nothing of when the rest comes: a runtime that hands its completion records on
//! in batches can deliver a finished dispatch behind later work, and behind work carried from
//! window to window, many short windows later. So the context goes along for [`CONTEXT_NS`] of
//! the tool's clock after the cut that wrote the call, whatever the windows show, at most
//! [`MAX_CONTEXTS`] of them (the latest). A dispatch that comes later still is written without
//! its call's stream and labels, counted (`activities_unplaced`) and said at exit.
//!
//! A roctx range is shown in the window where it ends, with its callbacks' times if its
//! buffered records have not come: those records, when they come, are dropped in the next
//! window (`Carried::spans_shown`), not shown as calls of their own.
//!
//! An id is carried while it is incomplete, at most [`MAX_HANDED_ON`] times; then it is
//! written as it is, and counted (a launch that never makes device work must not
//! wait for ever, nor be held by a week-long job). At finalize the last window takes in what
//! is left and writes it whole: the runtime has delivered everything by then. The roctx spans
//! that name the carried calls' scopes go along as `Carried::scope_context`, for their
//! labels only: they were shown in their own window.
//!
//! What the window leaves allocated goes along (`Carried::memory`,
//! `memory::live_after`: at most `memory::MAX_LIVE` allocations, and each allocator's peak):
//! the next window's frees find their allocations and its copies the kind of memory they
//! read, and its memory timeline goes on from the run's totals.
//!
//! Event records go along too (`Carried::producers`, producers only): each event
//! handle's latest, and the one each wait handed on resolves to, so that a wait in a later
//! window still resolves to the record it waited for. Its stats name the record's call,
//! though no arrow is drawn (the record's anchor is in an earlier file), unless the windows are
//! merged into one profile (`Carried::anchors`). A record handed on
//! with its call stays a producer in its own window, for the waits there. These are the first
//! two carry rules a streaming join needs (docs/architecture.md).

use crate::fastmap::HashMap;
use crate::util::buffers::move_where;

use super::collected::Collected;
use super::corrmap::{id_range, latest_dense_range, IdRanks, IdSet};
use crate::facts::{ApiDomain, CallFact, CounterValue, HipEventOp, MarkerSpan, SyncFact, SyncKind};

/// How many windows in a row an incomplete call may be handed on. A GPU that runs that many
/// windows behind its host is not the common case: past it, the pieces are written as they
/// are and counted (`launches_without_activity`, `activities_without_api`).
pub const MAX_HANDED_ON: u32 = 16;

/// Correlation ids handed on, and how many times each was: made once (`collect`), then read
/// by id. A window whose device runs behind hands on its latest calls by the hundred thousand,
/// and the next window reads each of them again, and asks for every call of its own up to
/// the largest: a rank in a table of bits over their ids' range and a slot per id in id order,
/// read in about the order the ids are, where a hash map of them is probed at random (and
/// keeps about 22 B an id, against 5 B here: `tests/peak_guard.rs`).
#[derive(Debug, Default)]
pub struct HandedOn {
    /// The ids of the range the bits pay for (`IdRanks::of`); a member's rank is its slot.
    ranks: IdRanks,
    /// Each member's count, by rank.
    times: Vec<u32>,
    /// The ids outside that range.
    spill: HashMap<u64, u32>,
    /// The largest id (0: none): a larger one is not here, without a look-up.
    max: u64,
}

impl HandedOn {
    /// How many times `id` was handed on, when it was.
    #[inline]
    pub fn get(&self, id: &u64) -> Option<&u32> {
        if *id > self.max {
            return None;
        }
        match self.ranks.rank(*id) {
            Some(r) => self.times.get(r),
            None => self.spill.get(id),
        }
    }

    pub fn len(&self) -> usize {
        self.times.len() + self.spill.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every id with its count: those of the range in id order, then the others.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        let ranked = self.ranks.members().zip(self.times.iter().copied());
        ranked.chain(self.spill.iter().map(|(&id, &n)| (id, n)))
    }
}

/// From `(id, count)` pairs: a later pair of the same id replaces an earlier one (as a map's
/// `extend` does).
impl FromIterator<(u64, u32)> for HandedOn {
    fn from_iter<I: IntoIterator<Item = (u64, u32)>>(pairs: I) -> Self {
        let pairs: Vec<(u64, u32)> = pairs.into_iter().filter(|&(id, _)| id != 0).collect();
        if pairs.is_empty() {
            return HandedOn::default();
        }
        let range = id_range(pairs.iter().map(|&(id, _)| id));
        let dense = latest_dense_range(range, pairs.len());
        let ranks = IdRanks::of(dense, pairs.len(), pairs.iter().map(|&(id, _)| id));
        let mut out = HandedOn {
            times: vec![0; ranks.len()],
            ranks,
            spill: HashMap::default(),
            max: range.map_or(0, |(_, hi)| hi),
        };
        for (id, n) in pairs {
            match out.ranks.rank(id) {
                Some(r) => out.times[r] = n,
                None => {
                    out.spill.insert(id, n);
                }
            }
        }
        out
    }
}

/// How `HandedOn` marks a graph launch written in an earlier window whose scope and launch
/// facts go along, copied, for its late dispatches (`Carried::contexts`): past
/// `MAX_HANDED_ON`, never held.
pub const CONTEXT: u32 = MAX_HANDED_ON + 1;

/// How long, on the tool's clock, a graph launch's scope and launch facts go along after the
/// cut that wrote its call (its stream's later work had come by then). Run time, not a
/// number of windows: 50 ms windows make a hundred of them, and a dispatch delivered behind
/// later work waits as long in a short window as in a long one.
pub const CONTEXT_NS: u64 = 5_000_000_000;

/// The most graph-launch contexts that go along at once, the latest kept: a program that
/// launches more graphs than this in `CONTEXT_NS` keeps the latest. Each is its launch fact
/// (32 B), its scope (16 B), its entry here (16 B) and its `HandedOn` mark (5 B, about 22 B
/// when hashed), windows merged its `Carried::launched` id (8 B), and the roctx spans around
/// its scope when no other context shares them (about 80 B each; their labels are shared, not
/// copied). With one range around each launch, as on MaxText-shaped runs
/// (`scenarios/maxtext-scale.toml`), at most about 175 B: at most about 6 MB.
pub const MAX_CONTEXTS: usize = 32_768;

/// The most event handles whose latest record is handed on: a program that makes a new event
/// per step and never destroys it must not make every window carry them all. The latest
/// records are kept. The records the waits handed on resolve to go along beside them, one per
/// wait: a bound on them would lose the arrows of the waits a long window hands on.
pub const MAX_PRODUCERS: usize = 65_536;

/// What becomes of a run's windows: each a profile of its own, or merged into one profile
/// on one clock at exit (`WINDOW_MERGE`), where an arrow may start in one window and end in
/// another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Windows {
    Apart,
    Merged,
}

/// What window `c` hands to the next: its incomplete calls (`split_incomplete`, taken out of
/// `c`) and the event records a later wait may resolve to (`latest_producers`), with how
/// many times each handed-on id was; `None` when there is neither. With `Windows::Merged`,
/// `c`'s join is also asked where the arrows of every record handed on start
/// (`Carried::anchors_wanted`), for the next window's waits on them, and where each stream's
/// last work ended (`Carried::tails_wanted`), for the next window's records.
pub fn hand_off(
    c: &mut Collected,
    carried_in: &HandedOn,
    windows: Windows,
) -> Option<(Collected, HandedOn)> {
    // Windows merged: whatever is handed on, the next window's records may find the work
    // before them on their streams only here or earlier (`Trace::stream_tails`).
    c.carried.tails_wanted = windows == Windows::Merged;
    let split = split_incomplete(c, carried_in, windows);
    let waits_handed_on = split.as_ref().map_or(&[][..], |(held, _)| &held.syncs[..]);
    let producers = latest_producers(c, waits_handed_on);
    let shown = spans_awaiting_records(c, carried_in);
    // The memory facts of the calls handed on went with them: the next window applies them.
    let memory = super::memory::live_after(&c.carried.memory, &c.memory);
    let counted = counter_values_to_hand_on(c, split.as_ref().map(|(held, _)| held));
    if split.is_none()
        && producers.is_empty()
        && shown.is_empty()
        && memory.is_empty()
        && counted.values.is_empty()
    {
        return None;
    }
    let (mut held, mut ids) = split.unwrap_or_else(|| (empty_like(c), Vec::new()));
    held.carried.producers = producers;
    held.carried.memory = memory;
    held.counter_values.extend(counted.values);
    held.carried.counters_awaited = counted.awaited;
    if windows == Windows::Merged {
        // Every record handed on, those with their calls too (they stay producers here, so
        // they are among these): the next window finds such a record's anchor itself when
        // the work before it went along, but when that work stayed here (the record returned
        // after the cut), only this window can.
        c.carried.anchors_wanted = held
            .carried
            .producers
            .iter()
            .map(|s| s.correlation_id)
            .collect();
    }
    held.carried.spans_shown = shown.keys().copied().collect();
    held.carried.spans_shown.sort_unstable();
    ids.extend(shown);
    Some((held, ids.into_iter().collect()))
}

/// Hardware-counter values a window hands on (`hand_off`), and of them the dispatches whose
/// kernel record has not come.
#[derive(Default)]
struct CountedHandOff {
    values: Vec<CounterValue>,
    awaited: Vec<u64>,
}

/// Takes out of `c` the counter values (`ROCPROF_XPLANE_PMC`) whose dispatch has no kernel
/// record left in `c`: those of a kernel handed on in `held` go along with it, and those whose
/// kernel record has not come go along once, to meet it in the next window. A cut flushes
/// the counting service's buffer after the kernel records' (`BufferSlot::Counters` is the
/// last), so a dispatch that completes between the two flushes has its counter records in
/// this window and its kernel record in the next. Values already handed on once for a kernel
/// that has still not come stay here, matching nothing, as they did before: a window must not
/// carry them for ever.
fn counter_values_to_hand_on(c: &mut Collected, held: Option<&Collected>) -> CountedHandOff {
    if c.counter_values.is_empty() {
        return CountedHandOff::default();
    }
    let dispatches = |c: &Collected| -> crate::fastmap::HashSet<u64> {
        c.kernels.iter().map(|k| k.dispatch_id).collect()
    };
    let here = dispatches(c);
    let with_held = held.map(dispatches).unwrap_or_default();
    let awaited_before: crate::fastmap::HashSet<u64> =
        c.carried.counters_awaited.iter().copied().collect();
    let (values, stay): (Vec<CounterValue>, Vec<CounterValue>) =
        std::mem::take(&mut c.counter_values)
            .into_iter()
            .partition(|v| {
                let d = v.dispatch_id;
                !here.contains(&d) && (with_held.contains(&d) || !awaited_before.contains(&d))
            });
    c.counter_values = stay;
    let mut awaited: Vec<u64> = values
        .iter()
        .map(|v| v.dispatch_id)
        .filter(|d| !with_held.contains(d))
        .collect();
    awaited.sort_unstable();
    awaited.dedup();
    CountedHandOff { values, awaited }
}

/// The roctx calls whose spans `c` shows (or an earlier window showed) before their buffered
/// records came, with how many windows each has been waited for: the next window drops
/// those records when they come, instead of showing each as a call of its own (they stand
/// for a span already shown). A window with no roctx record at all, and none awaited, is one
/// whose roctx records are not traced: nothing is awaited.
fn spans_awaiting_records(c: &Collected, carried_in: &HandedOn) -> HashMap<u64, u32> {
    let mut out = HashMap::default();
    // The roctx calls among the API records, by their shared entries' domain: no record
    // unpacked.
    let marker_entry: Vec<bool> = c
        .api
        .shared()
        .iter()
        .map(|s| s.domain() == ApiDomain::Marker)
        .collect();
    let ids = || {
        let packed = c.marker_records.ids();
        let in_api = c.api.ids_with_entry().filter(|&(_, e)| marker_entry[e]);
        packed.chain(in_api.map(|(id, _)| id))
    };
    if ids().next().is_none() && c.carried.spans_shown.is_empty() {
        return out;
    }
    // A bit per id of the records' range: a test per span, not a hash lookup.
    let expected = c.marker_records.len() + c.markers.len();
    let mut came = IdSet::for_range(id_range(ids()), expected);
    for id in ids() {
        came.insert(id);
    }
    let times = |id: u64| carried_in.get(&id).copied().unwrap_or(0);
    for &id in &c.carried.spans_shown {
        if !came.contains(id) && times(id) < MAX_HANDED_ON {
            out.insert(id, times(id) + 1);
        }
    }
    for m in c.markers.iter().filter(|m| !m.open_at_end) {
        for id in [m.open_correlation_id, m.close_correlation_id] {
            if id != 0 && !came.contains(id) {
                out.entry(id).or_insert(1);
            }
        }
    }
    out
}

/// The `hipEventRecord`s a later window's waits may resolve to, among `c`'s sync facts and
/// the records it took in or keeps as producers, in correlation order:
///
/// - each event handle's latest, for the waits the next windows make: at most
///   [`MAX_PRODUCERS`] of them (the latest);
/// - for each wait among `waits` (those handed on with their calls; other facts are passed
///   over), the latest record of its event before it: the one it resolves to in the next
///   window, where a later record of the same event must not hide it. These are never left
///   out: there is one per wait handed on, and the waits go along whole.
pub fn latest_producers(c: &Collected, waits: &[SyncFact]) -> Vec<SyncFact> {
    let records = || {
        c.carried
            .producers
            .iter()
            .chain(&c.syncs)
            .filter(|s| s.kind == SyncKind::EventRecord && s.correlation_id != 0)
    };
    // Each event's latest record: a probe per record, in one pass (every step records its
    // events, and a window has tens of thousands of records: sorting them all to find a few
    // hundred events' latest cost the most of the hand-off after the split). Of two records
    // of the event's latest id, the first: the one taken in, when it is there too.
    let mut latest: HashMap<u64, &SyncFact> = HashMap::default();
    for s in records() {
        latest
            .entry(s.event)
            .and_modify(|l| {
                if s.correlation_id > l.correlation_id {
                    *l = s;
                }
            })
            .or_insert(s);
    }
    let mut out: Vec<SyncFact> = latest.into_values().copied().collect();
    if out.len() > MAX_PRODUCERS {
        out.sort_unstable_by_key(|s| std::cmp::Reverse(s.correlation_id));
        out.truncate(MAX_PRODUCERS);
    }
    // Each wait's record: the latest of its event before it. The waits of each event in id
    // order; a record is noted at the first of them after it, and each wait then takes the
    // latest of its own and those noted at the waits before it: a probe and a search of its
    // event's waits per record, where the records would be sorted.
    let mut waits_of: HashMap<u64, Vec<(u64, Option<&SyncFact>)>> = HashMap::default();
    for w in waits.iter().filter(|s| s.kind.waits_on_event()) {
        waits_of
            .entry(w.event)
            .or_default()
            .push((w.correlation_id, None));
    }
    if !waits_of.is_empty() {
        for of_event in waits_of.values_mut() {
            of_event.sort_unstable_by_key(|&(id, _)| id);
        }
        for s in records() {
            let Some(of_event) = waits_of.get_mut(&s.event) else {
                continue;
            };
            let first_after = of_event.partition_point(|&(id, _)| id <= s.correlation_id);
            if let Some((_, noted)) = of_event.get_mut(first_after) {
                if noted.is_none_or(|n| n.correlation_id < s.correlation_id) {
                    *noted = Some(s);
                }
            }
        }
        for of_event in waits_of.into_values() {
            let mut latest: Option<&SyncFact> = None;
            // Each record once: when it becomes the latest (the waits after it until a later
            // one resolve to it too).
            for n in of_event.into_iter().filter_map(|(_, noted)| noted) {
                if latest.is_none_or(|l| l.correlation_id < n.correlation_id) {
                    latest = Some(n);
                    out.push(*n);
                }
            }
        }
    }
    out.sort_unstable_by_key(|s| s.correlation_id);
    out.dedup_by_key(|s| s.correlation_id);
    out
}

/// An empty collection of `c`'s process, for the next window to absorb: `absorb` keeps the
/// later window's span (the earlier start, the later stop).
fn empty_like(c: &Collected) -> Collected {
    Collected {
        hostname: c.hostname.clone(),
        pid: c.pid,
        sdk_version: c.sdk_version.clone(),
        step_rule: c.step_rule.clone(),
        start_boottime_ns: u64::MAX,
        start_walltime_ns: u64::MAX,
        ..Collected::default()
    }
}

/// [`split_incomplete`] with the ids made a `HandedOn`, as the next window reads them (the
/// tests' view of the split alone; `hand_off` adds the spans' ids first).
#[cfg(test)]
pub fn split_incomplete_handed(
    c: &mut Collected,
    carried_in: &HandedOn,
    windows: Windows,
) -> Option<(Collected, HandedOn)> {
    split_incomplete(c, carried_in, windows).map(|(out, held)| (out, held.into_iter().collect()))
}

/// Takes out of `c` every correlation id that is still incomplete, with everything `c` holds
/// for it, and returns them for the next window with how many times each will have been
/// handed on (`carried_in`: those `c` took from the window before), each id once; `None` when
/// nothing is incomplete.
fn split_incomplete(
    c: &mut Collected,
    carried_in: &HandedOn,
    windows: Windows,
) -> Option<(Collected, Vec<(u64, u32)>)> {
    // What the rules ask of a call's domain and operation, once per shared entry: the walks
    // over the calls read each record's id and entry, none unpacked.
    let kind_of_entry: Vec<CallKind> = c
        .api
        .shared()
        .iter()
        .map(|s| {
            use crate::hip::ops::{expects_device_activity, makes_many_activities};
            if s.domain() != ApiDomain::Hip {
                return CallKind::Other;
            }
            match c.op_names.get(&(ApiDomain::Hip, s.operation())) {
                Some(n) if expects_device_activity(n) && makes_many_activities(n) => {
                    CallKind::GraphLaunch
                }
                Some(n) if expects_device_activity(n) => CallKind::Launch,
                _ => CallKind::Hip,
            }
        })
        .collect();
    let hip_calls = || {
        c.api
            .ids_with_entry()
            .map(|(id, entry)| (id, kind_of_entry[entry]))
            .filter(|&(_, kind)| kind != CallKind::Other)
    };
    let range = id_range(hip_calls().map(|(id, _)| id));
    // The walks over the stores go by `for_each`: a packed store's chunks are walked as
    // nested loops, not an iterator asked for each record in turn.
    let mut active = IdSet::for_range(range, c.api.len());
    let mut promised = Promised::of(c);
    c.kernels.ids().for_each(|id| {
        active.insert(id);
        promised.count(id);
    });
    c.copies.iter().for_each(|k| {
        active.insert(k.correlation_id);
        promised.count(k.correlation_id);
    });

    let mut h = Holding {
        carried_in,
        held: Vec::new(),
        ids: IdSet::for_range(range, c.api.len()),
    };
    // Graph launches with device work here: complete or not by their stream (below).
    let mut graph_launches = Vec::new();
    let mut recorded = IdSet::for_range(range, c.api.len());
    hip_calls().for_each(|(id, kind)| {
        recorded.insert(id);
        // A launch without device work here is held; a graph launch with some is asked of
        // its stream below. Whether a call may be handed on again is asked last: most
        // launches have their work here.
        let launch = matches!(kind, CallKind::Launch | CallKind::GraphLaunch);
        if launch && !active.contains(id) {
            if h.open(id) {
                h.hold(id);
            }
        } else if kind == CallKind::GraphLaunch && h.open(id) {
            graph_launches.push(id);
        }
    });
    let facts = c
        .kernels
        .ids()
        .chain(c.copies.iter().map(|k| k.correlation_id))
        .chain(c.scopes.iter().map(|&(id, _)| id))
        .chain(c.syncs.iter().map(|f| f.correlation_id))
        .chain(c.copy_ptrs.iter().map(|f| f.correlation_id))
        .chain(c.memory.iter().map(|f| f.correlation_id))
        .chain(c.graph_launches.iter().map(|f| f.correlation_id))
        .chain(c.hip_events.iter().map(|(_, r)| r.correlation_id));
    // A fact whose call has no record here is held with it.
    let hold_unrecorded = |h: &mut Holding, id: u64| {
        if !recorded.contains(id) && h.open(id) {
            h.hold(id);
        }
    };
    facts.for_each(|id| hold_unrecorded(&mut h, id));
    // The calls' facts in the same walk as their streams' latest work.
    let arrived = latest_work(c, &active, |id| hold_unrecorded(&mut h, id));
    hold_in_stream_order(c, &arrived, (&graph_launches, &promised), windows, &mut h);
    // A graph launch written here whose count is not known may still have dispatches to come
    // (its stream's later work can be delivered before them, or its stream is not known), as
    // may one not all of whose counted work is here (held the most times): its scope and
    // launch facts go along, copied, for those to be placed and labelled in a later window
    // (marked as handed on more than the most times: never held there, and told apart from an
    // id held `MAX_HANDED_ON` times), with those taken in whose time has not run out. One all
    // of whose counted work is here has none to come: nothing goes along for it.
    let now = c.stop_boottime_ns;
    let mut contexts: Vec<(u64, u64)> = graph_launches
        .iter()
        .filter(|&&id| !h.holds(id) && promised.complete(id) != Some(true))
        .map(|&id| (id, now))
        .collect();
    contexts.extend(contexts_handed_on_again(c, &recorded, now));
    let contexts = latest_contexts(contexts);
    let (mut held, held_ids) = (h.held, h.ids);
    if held.is_empty() && contexts.is_empty() {
        return None;
    }

    let mut out = take_held(c, &held_ids, &contexts, windows);
    held.extend(contexts.iter().map(|&(id, _)| (id, CONTEXT)));
    out.carried.contexts = contexts;
    Some((out, held))
}

/// What the hand-off's rules ask of a call's domain and operation (`hip::ops`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CallKind {
    /// A HIP call expected to make device work, not a graph launch.
    Launch,
    /// A HIP graph launch (it makes many activities).
    GraphLaunch,
    /// Any other HIP call.
    Hip,
    /// A call of another domain (roctx).
    Other,
}

/// The graph-launch contexts `c` took in (`Carried::contexts`, their calls in an earlier
/// window) that go along again: those written less than [`CONTEXT_NS`] before `now`, the cut
/// of `c`, on the tool's clock. What `c` shows of their streams says nothing of their
/// dispatches still to come: a stream's later work (that is why the context exists) and the
/// work carried in with it can be delivered before them, window after window.
fn contexts_handed_on_again(c: &Collected, recorded: &IdSet, now: u64) -> Vec<(u64, u64)> {
    let taken_in: HashMap<u64, u64> = c
        .carried
        .contexts
        .iter()
        .filter(|&&(id, since)| now.saturating_sub(since) < CONTEXT_NS && !recorded.contains(id))
        .copied()
        .collect();
    if taken_in.is_empty() {
        return Vec::new();
    }
    // A bit test per call (most lie outside the contexts' id range), not a lookup.
    let ids = IdSet::of(taken_in.keys().copied(), taken_in.len());
    c.calls
        .ids()
        .filter(|&id| ids.contains(id))
        .filter_map(|id| Some((id, *taken_in.get(&id)?)))
        .collect()
}

/// `contexts` once each, sorted, at most [`MAX_CONTEXTS`] of them: the latest calls'.
fn latest_contexts(mut contexts: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    contexts.sort_unstable();
    contexts.dedup_by_key(|&mut (id, _)| id);
    let extra = contexts.len().saturating_sub(MAX_CONTEXTS);
    contexts.drain(..extra);
    contexts
}

/// Moves out of `c` everything it holds for the ids `held` (and copies what it holds for the
/// graph launches of `contexts`, once each), with the records' counts: a window's counts are
/// of the records it shows.
fn take_held(
    c: &mut Collected,
    held: &IdSet,
    contexts: &[(u64, u64)],
    windows: Windows,
) -> Collected {
    let mut out = empty_like(c);
    let is_held = |id: u64| id != 0 && held.contains(id);
    // One walk each, reading the packed records' ids: the held calls are a window's latest,
    // so most records are not held, and most chunks hold none.
    out.api = c
        .api
        .split_ids_where(is_held, |a| a.domain == ApiDomain::Hip);
    out.kernels = c.kernels.split_ids_where(is_held, |_| true);
    move_where(&mut c.copies, &mut out.copies, |k| {
        is_held(k.correlation_id)
    });
    // In place, chunk by chunk: a chunk with no scope held is only read, one with only held
    // scopes moves whole.
    let held_scope = |&(id, _): &(u64, i64)| is_held(id);
    out.scopes = c.scopes.split_where(held_scope, held_scope, |_| {});
    out.calls = c.calls.split_ids_where(is_held, |_| true);
    move_where(&mut c.syncs, &mut out.syncs, |f| is_held(f.correlation_id));
    // A record handed on may be what a wait of this window waited for: it stays here as a
    // producer only (its call is shown in the next window).
    c.carried
        .producers
        .extend(out.syncs.iter().filter(|s| s.kind == SyncKind::EventRecord));
    move_where(&mut c.copy_ptrs, &mut out.copy_ptrs, |f| {
        is_held(f.correlation_id)
    });
    move_where(&mut c.memory, &mut out.memory, |f| {
        is_held(f.correlation_id)
    });
    move_where(&mut c.graph_launches, &mut out.graph_launches, |f| {
        is_held(f.correlation_id)
    });
    move_where(&mut c.hip_events, &mut out.hip_events, |(_, r)| {
        is_held(r.correlation_id)
    });
    if !contexts.is_empty() {
        let launches = || contexts.iter().map(|&(id, _)| id);
        if windows == Windows::Merged {
            out.carried.launched = launches().collect();
            out.carried.launched.sort_unstable();
        }
        // A bit test per call and scope (most lie outside the contexts' id range).
        let copied = IdSet::of(launches(), contexts.len());
        let copied = |id: u64| id != 0 && copied.contains(id);
        out.scopes
            .extend(c.scopes.iter().filter(|&&(id, _)| copied(id)).copied());
        let calls = c.calls.iter().filter(|f| copied(f.correlation_id));
        for f in calls {
            out.calls
                .push_or_count(f, &mut out.counters.memory_limit_dropped);
        }
    }
    out.carried.scope_context = scope_chains(c, out.scopes.iter().map(|&(_, scope)| scope));
    // The records' counts go with them: a window's counts are of the records it shows.
    for (mine, theirs, n) in [
        (
            &mut c.counters.api_records,
            &mut out.counters.api_records,
            out.api.len(),
        ),
        (
            &mut c.counters.kernel_records,
            &mut out.counters.kernel_records,
            out.kernels.len(),
        ),
        (
            &mut c.counters.memcpy_records,
            &mut out.counters.memcpy_records,
            out.copies.len(),
        ),
        (
            &mut c.counters.hip_event_records,
            &mut out.counters.hip_event_records,
            out.hip_events.len(),
        ),
    ] {
        let n = (n as u64).min(*mine);
        *mine -= n;
        *theirs += n;
    }
    out
}

/// The ids a window keeps back, with how many times each was handed on before it.
struct Holding<'a> {
    carried_in: &'a HandedOn,
    /// The ids held, each once, with how many times each will have been handed on.
    held: Vec<(u64, u32)>,
    /// The held ids again, as bits for the tests that follow.
    ids: IdSet,
}

impl Holding<'_> {
    fn times(&self, id: u64) -> u32 {
        self.carried_in.get(&id).copied().unwrap_or(0)
    }

    /// Whether `id` may be handed on (once more).
    fn open(&self, id: u64) -> bool {
        id != 0 && self.times(id) < MAX_HANDED_ON
    }

    /// Keeps `id` back; whether it was not already.
    fn hold(&mut self, id: u64) -> bool {
        // `ids` holds the same ids as `held`, as bits.
        if self.ids.contains(id) {
            return false;
        }
        self.held.push((id, self.times(id) + 1));
        self.ids.insert(id);
        true
    }

    fn holds(&self, id: u64) -> bool {
        id != 0 && self.ids.contains(id)
    }

    /// Keeps `id` back if it may be and is not yet; whether it was newly kept.
    fn hold_open(&mut self, id: u64) -> bool {
        self.open(id) && !self.holds(id) && self.hold(id)
    }
}

/// A stream by its handle (the null stream: by device, each has its own). Handles, not
/// creation order: a fact written on a racing thread may not know the creation yet.
type StreamOf = (i32, u64);

/// The calls whose device work has come, by stream: grouped once per window (a hash lookup
/// per call), then read by the stream-order rules round after round without hashing again.
struct Arrived {
    /// Each stream's slot in `calls`.
    slot: HashMap<StreamOf, usize>,
    /// Each stream's calls with device work here, in delivery order, and the latest of them.
    calls: Vec<(StreamOf, Vec<u64>, u64)>,
}

impl Arrived {
    /// The latest call on stream `s` whose device work has come.
    fn latest(&self, s: StreamOf) -> Option<u64> {
        self.slot.get(&s).map(|&i| self.calls[i].2)
    }

    /// The latest call on each stream whose device work has come and that `h` does not hold.
    fn latest_kept(&self, h: &Holding<'_>) -> HashMap<StreamOf, u64> {
        let kept = |ids: &Vec<u64>| ids.iter().copied().filter(|&id| !h.holds(id)).max();
        self.calls
            .iter()
            .filter_map(|(s, ids, _)| Some((*s, kept(ids)?)))
            .collect()
    }
}

/// The calls of `c` whose device work has come (in `active`), by stream; `each` is given
/// every call's id on the way (the walk's other use).
fn latest_work(c: &Collected, active: &IdSet, mut each: impl FnMut(u64)) -> Arrived {
    let mut arrived = Arrived {
        slot: HashMap::default(),
        calls: Vec::new(),
    };
    // A call's stream is in its shared entry: looked up once per entry, not per call.
    let mut slot_of_entry = vec![usize::MAX; c.calls.entries()];
    c.calls.iter_with_entry().for_each(|(f, entry)| {
        each(f.correlation_id);
        if !active.contains(f.correlation_id) {
            return;
        }
        let mut i = slot_of_entry[entry];
        if i == usize::MAX {
            let s = stream_of(f.device, f.stream);
            let calls = &mut arrived.calls;
            i = *arrived.slot.entry(s).or_insert_with(|| {
                calls.push((s, Vec::new(), 0));
                calls.len() - 1
            });
            slot_of_entry[entry] = i;
        }
        let (_, ids, last) = &mut arrived.calls[i];
        ids.push(f.correlation_id);
        *last = (*last).max(f.correlation_id);
    });
    arrived
}

fn stream_of(device: i32, stream: u64) -> StreamOf {
    if stream == 0 {
        (device, 0)
    } else {
        (i32::MIN, stream)
    }
}

/// Holds what a stream's order makes incomplete, beside the calls `h` holds already. A
/// stream runs its work in order, so what a window shows of it must be a prefix:
///
/// - a graph launch with some of its dispatches here is complete once a later call on its
///   stream has device work here (its own dispatches ran before that work);
/// - after a held call, every later call on its stream is held (launches, copies, event
///   records, waits, stream syncs): an event record's arrow starts at the end of the work
///   before it on its stream, which is not here yet;
/// - a wait on an event whose latest record before it is held for the work before it is
///   held too (its arrow starts at that work), and so, in turn, is what follows it on its
///   stream. A record held only for its own call (it returned after the cut) has that work
///   here: it stays a producer here, and the waits on it are written here;
/// - a `hipDeviceSynchronize` is held after a held call on any stream of its device.
///
/// A `hipStreamWaitEvent` whose stream has no device work after it that this window keeps
/// ends its arrow at that work, which comes in the next window. Windows written apart keep
/// the wait here: holding it would leave its record in this one, with no arrow at all, so
/// its arrow ends at its call, as a wait with no work after it does. Windows merged on one
/// clock hold it (`Windows::Merged`): the next window draws its arrow from where this one
/// found the record (`Carried::anchors_wanted`) to the work after the wait, as the run
/// written whole does. A wait whose barrier completion is here (`HipEventOp::Wait`) has its
/// end here.
///
/// A graph launch whose stream is not known (no entry fact) is written with what it has.
fn hold_in_stream_order(
    c: &Collected,
    arrived: &Arrived,
    (graph_launches, promised): (&[u64], &Promised),
    windows: Windows,
    h: &mut Holding<'_>,
) {
    hold_graph_launches_still_to_complete(c, arrived, graph_launches, promised, h);
    let wait_barriers: crate::fastmap::HashSet<u64> = match windows {
        Windows::Apart => Default::default(),
        Windows::Merged => c
            .hip_events
            .iter()
            .filter(|(op, _)| *op == HipEventOp::Wait)
            .map(|(_, r)| r.correlation_id)
            .collect(),
    };
    // To a fixed point. What follows a held call, and a wait on a record so held, come after
    // what holds them: one pass in correlation order holds them all. A wait held before its
    // work (windows merged) may come before the calls that hold it: the pass is made again
    // after such waits are held (they are few, and so are the rounds).
    let mut order = InOrder::default();
    loop {
        hold_after_held(c, &mut order, h);
        let changed = windows == Windows::Merged
            && hold_waits_before_their_work(c, arrived, &wait_barriers, h);
        if !changed {
            break;
        }
    }
    hold_device_syncs_after_held(c, h);
}

/// Holds a graph launch with some of its dispatches here whose others may be still to come:
/// one whose work the capture counted (`Promised`) until all of it came, any other while its
/// stream has no later device work here.
fn hold_graph_launches_still_to_complete(
    c: &Collected,
    arrived: &Arrived,
    graph_launches: &[u64],
    promised: &Promised,
    h: &mut Holding<'_>,
) {
    let mut uncounted = Vec::new();
    for &id in graph_launches {
        match promised.complete(id) {
            Some(false) => {
                h.hold_open(id);
            }
            Some(true) => {}
            None => uncounted.push(id),
        }
    }
    if uncounted.is_empty() {
        return;
    }
    let later_work = |s: StreamOf, id: u64| arrived.latest(s).is_some_and(|last| last > id);
    // A bit test per call, not a hash lookup.
    let graphs = IdSet::of(uncounted.iter().copied(), uncounted.len());
    c.calls.iter().for_each(|f| {
        let id = f.correlation_id;
        if id != 0 && graphs.contains(id) && !later_work(stream_of(f.device, f.stream), id) {
            h.hold_open(id);
        }
    });
}

/// The graph launches whose dispatches and copies the capture counted
/// (`Collected::graph_launches`): that count, and how many of them are here (those carried in
/// with the launch included: a held launch goes along with all it has).
struct Promised {
    /// The counted launches' ids as bits: most records are of other calls.
    ids: IdSet,
    counts: HashMap<u64, (u32, u32)>,
}

impl Promised {
    /// The counts `c` holds, none of the work here yet (`count` each dispatch and copy).
    fn of(c: &Collected) -> Self {
        let counted = c.graph_launches.iter().filter(|f| f.correlation_id != 0);
        Promised {
            ids: IdSet::of(
                counted.clone().map(|f| f.correlation_id),
                c.graph_launches.len(),
            ),
            counts: counted
                .map(|f| (f.correlation_id, (f.activities, 0)))
                .collect(),
        }
    }

    /// The counts `c` holds, with its dispatches and copies counted.
    #[cfg(test)]
    fn of_here(c: &Collected) -> Self {
        let mut p = Self::of(c);
        c.kernels.ids().for_each(|id| p.count(id));
        c.copies.iter().for_each(|k| p.count(k.correlation_id));
        p
    }

    /// One dispatch or copy of call `id` is here.
    #[inline(always)]
    fn count(&mut self, id: u64) {
        if !self.counts.is_empty() && self.ids.contains(id) {
            if let Some((_, here)) = self.counts.get_mut(&id) {
                *here += 1;
            }
        }
    }

    /// Whether all the work launch `id` promised is here; `None` when its count is not known.
    fn complete(&self, id: u64) -> Option<bool> {
        self.counts
            .get(&id)
            .map(|&(promised, here)| here >= promised)
    }
}

/// Each event's `hipEventRecord`s in correlation order, for the waits on them.
#[derive(Default)]
struct EventRecords(Vec<(u64, u64, StreamOf)>);

impl EventRecords {
    /// The records from id `from` on.
    fn from_id(c: &Collected, from: u64) -> Self {
        let mut records: Vec<(u64, u64, StreamOf)> = c
            .syncs
            .iter()
            .filter(|s| s.kind == SyncKind::EventRecord && s.correlation_id >= from)
            .map(|s| (s.event, s.correlation_id, stream_of(s.device, s.stream)))
            .collect();
        records.sort_unstable();
        EventRecords(records)
    }

    /// The latest record of `event` before call `id`, and its stream.
    fn before(&self, event: u64, id: u64) -> Option<(u64, StreamOf)> {
        let records = &self.0;
        let i = records.partition_point(|&(e, r, _)| (e, r) < (event, id));
        i.checked_sub(1)
            .map(|i| records[i])
            .filter(|&(e, _, _)| e == event)
            .map(|(_, r, s)| (r, s))
    }
}

/// A call or sync fact as the stream-order rules read it.
#[derive(Clone, Copy)]
struct Ordered {
    id: u64,
    /// The stream it runs on (a sync that names none: `None`).
    stream: Option<StreamOf>,
    /// The event it waits on, for a wait.
    waits_on: Option<u64>,
}

/// The sync facts from id `from` on, with the calls that share an id with one of them, in
/// correlation order, and the event records among them: sorted once, and read again by each
/// later round of the stream-order rules whose first held call is not earlier. A window has
/// a sync call per few launches: the calls, most of its facts, are never sorted.
struct InOrder {
    from: u64,
    facts: Vec<Ordered>,
    records: EventRecords,
}

impl Default for InOrder {
    fn default() -> Self {
        InOrder {
            from: u64::MAX,
            facts: Vec::new(),
            records: EventRecords::default(),
        }
    }
}

/// The first held call or sync on each stream, grown as holds are found in correlation order.
/// A question of whether a fact follows a held one on its stream is "is the first held before
/// it", so holds of any later id may be in it already.
#[derive(Default)]
struct FirstHeld(HashMap<StreamOf, u64>);

impl FirstHeld {
    fn note(&mut self, s: StreamOf, id: u64) {
        let first = self.0.entry(s).or_insert(id);
        *first = (*first).min(id);
    }

    fn before(&self, s: StreamOf, id: u64) -> bool {
        self.of(s) < id
    }

    fn of(&self, s: StreamOf) -> u64 {
        self.0.get(&s).copied().unwrap_or(u64::MAX)
    }
}

/// Holds every call and sync that follows a held one on its stream, and every wait whose
/// latest record before it is held for the work before it (a record held after a held call
/// on its stream; one held only for its own call has its work here, and stays a producer
/// here): the rules applied until they hold nothing more.
///
/// A hold that follows a held fact on its stream moves no stream's first held fact, so only
/// the waits can, and what they make held comes after them. So the sync facts (and the calls
/// sharing their ids) are read once in correlation order from the first held fact, each
/// stream's first held fact noted as they go, and then every call is held whose stream's
/// first held fact is before it: a bit test and a compare per call, its stream read once per
/// shared entry. The facts of one id are settled before any of them notes its stream.
///
/// A wait's record matters only from the first held fact on: one before it is after no held
/// fact on its stream. So only the records from there on are sorted for the waits.
fn hold_after_held(c: &Collected, order: &mut InOrder, h: &mut Holding<'_>) {
    let mut first = FirstHeld::default();
    // A call's stream is in its shared entry: read once per entry, not per call.
    let mut stream_of_entry: Vec<Option<StreamOf>> = vec![None; c.calls.entries()];
    let mut entry_stream = |f: &CallFact, entry: usize| {
        *stream_of_entry[entry].get_or_insert_with(|| stream_of(f.device, f.stream))
    };
    for (f, id) in first_held_of_entries(c, h) {
        first.note(stream_of(f.device, f.stream), id);
    }
    let sync_stream = |s: &SyncFact| {
        s.kind
            .names_a_stream()
            .then(|| stream_of(s.device, s.stream))
    };
    for s in c.syncs.iter() {
        if let Some(st) = sync_stream(s).filter(|_| h.holds(s.correlation_id)) {
            first.note(st, s.correlation_id);
        }
    }
    // Only what comes after the first held fact can follow one, or wait on a record held: a
    // window's held calls are its latest, so most facts are not looked at again.
    let Some(floor) = first.0.values().copied().min() else {
        return;
    };
    if floor < order.from {
        order.facts.clear();
        let syncs = c.syncs.iter().filter(|s| s.correlation_id >= floor);
        let ids = IdSet::of(syncs.clone().map(|s| s.correlation_id), c.syncs.len());
        c.calls.iter_with_entry().for_each(|(f, entry)| {
            let id = f.correlation_id;
            if id >= floor && ids.contains(id) {
                order.facts.push(Ordered {
                    id,
                    stream: Some(entry_stream(&f, entry)),
                    waits_on: None,
                });
            }
        });
        order.facts.extend(syncs.map(|s| Ordered {
            id: s.correlation_id,
            stream: sync_stream(s),
            waits_on: s.kind.waits_on_event().then_some(s.event),
        }));
        // The facts of one id are settled together (below), in any order. Their ids are
        // sorted, not the facts (each 40 B, in as many runs as the window had drains).
        crate::util::sort::sort_by_time(&mut order.facts, |f| f.id, |_| ());
        order.records = EventRecords::from_id(c, floor);
        order.from = floor;
    }
    let records = &order.records;
    let start = order.facts.partition_point(|f| f.id < floor);
    for group in order.facts[start..].chunk_by(|a, b| a.id == b.id) {
        let id = group[0].id;
        for f in group {
            let follows = f.stream.is_some_and(|s| first.before(s, id));
            let waits_on_held = || {
                f.waits_on
                    .and_then(|event| records.before(event, id))
                    .is_some_and(|(r, st)| h.holds(r) && first.before(st, r))
            };
            if follows || waits_on_held() {
                h.hold_open(id);
            }
        }
        if h.holds(id) {
            for s in group.iter().filter_map(|f| f.stream) {
                first.note(s, id);
            }
        }
    }
    // Every stream's first held fact is known: the calls after it are held.
    let mut first_of_entry: Vec<Option<u64>> = vec![None; c.calls.entries()];
    c.calls.iter_with_entry().for_each(|(f, entry)| {
        let id = f.correlation_id;
        if id <= floor || h.holds(id) {
            return;
        }
        let first_held =
            *first_of_entry[entry].get_or_insert_with(|| first.of(entry_stream(&f, entry)));
        if first_held < id {
            h.hold_open(id);
        }
    });
}

/// The first held call of each shared entry, with one call of the entry (whose device and
/// stream are the entry's): a rule asking per stream or device reads each entry once, not
/// each held call (a window whose device runs behind holds millions of calls).
fn first_held_of_entries(c: &Collected, h: &Holding<'_>) -> impl Iterator<Item = (CallFact, u64)> {
    let mut first: Vec<Option<(CallFact, u64)>> = vec![None; c.calls.entries()];
    c.calls.iter_with_entry().for_each(|(f, entry)| {
        let id = f.correlation_id;
        if h.holds(id) {
            let (_, first) = first[entry].get_or_insert((f, id));
            *first = (*first).min(id);
        }
    });
    first.into_iter().flatten()
}

/// A `hipDeviceSynchronize` after a held call on any stream of its device (a call whose device
/// is not known counts for every device): after the other rules, as it holds nothing after it.
fn hold_device_syncs_after_held(c: &Collected, h: &mut Holding<'_>) {
    let device_syncs = || {
        c.syncs
            .iter()
            .filter(|s| s.kind == SyncKind::DeviceSynchronize)
    };
    if device_syncs().next().is_none() {
        return;
    }
    let mut first_on: HashMap<i32, u64> = HashMap::default();
    let mut note = |device: i32, id: u64| {
        let first = first_on.entry(device.max(-1)).or_insert(id);
        *first = (*first).min(id);
    };
    for (f, id) in first_held_of_entries(c, h) {
        note(f.device, id);
    }
    for s in c.syncs.iter().filter(|s| h.holds(s.correlation_id)) {
        note(s.device, s.correlation_id);
    }
    let unknown = first_on.get(&-1).copied().unwrap_or(u64::MAX);
    for s in device_syncs() {
        let first = if s.device < 0 {
            first_on.values().copied().min().unwrap_or(u64::MAX)
        } else {
            first_on
                .get(&s.device)
                .copied()
                .unwrap_or(u64::MAX)
                .min(unknown)
        };
        if first < s.correlation_id {
            h.hold_open(s.correlation_id);
        }
    }
}

/// With windows merged (`Windows::Merged`): holds each `hipStreamWaitEvent` whose stream has
/// no device work after it that this window keeps (none came, or what came is held), unless
/// its barrier's completion is here (`barriers`); whether any was newly held. Asked again
/// after each round of the stream-order rules, which may hold that work.
fn hold_waits_before_their_work(
    c: &Collected,
    arrived: &Arrived,
    barriers: &crate::fastmap::HashSet<u64>,
    h: &mut Holding<'_>,
) -> bool {
    let kept_work = arrived.latest_kept(h);
    let ends_later = |s: &&SyncFact| {
        s.kind == SyncKind::StreamWaitEvent
            && !barriers.contains(&s.correlation_id)
            && kept_work
                .get(&stream_of(s.device, s.stream))
                .is_none_or(|&last| last < s.correlation_id)
    };
    let mut changed = false;
    for s in c.syncs.iter().filter(ends_later) {
        changed |= h.hold_open(s.correlation_id);
    }
    changed
}

/// Copies of the spans of `scopes` and of every range around them, each once, from `c`'s
/// spans (and the context `c` itself took in).
fn scope_chains(c: &Collected, scopes: impl Iterator<Item = i64>) -> Vec<MarkerSpan> {
    let spans = || c.carried.scope_context.iter().chain(&c.markers);
    let mut by_scope: HashMap<i64, &MarkerSpan> = HashMap::default();
    let mut out = Vec::new();
    let mut wanted = scopes.filter(|&s| s != 0).peekable();
    if wanted.peek().is_none() {
        return out;
    }
    // The later copy of a scope wins, as in the join (a range shown open at a cut and again).
    for m in spans().filter(|m| m.scope_id != 0) {
        by_scope.insert(m.scope_id, m);
    }
    let mut taken = crate::fastmap::HashSet::default();
    // The calls of one range come one after the other: a scope asked again at once is passed
    // over without a look-up.
    let mut last = 0;
    for scope in wanted {
        if std::mem::replace(&mut last, scope) == scope {
            continue;
        }
        let mut next = scope;
        // A chain longer than the spans is a cycle (only malformed input makes one).
        for _ in 0..=by_scope.len() {
            if next == 0 || !taken.insert(next) {
                break;
            }
            let Some(m) = by_scope.get(&next) else { break };
            out.push((*m).clone());
            next = m.parent_scope_id;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream-order rules applied round by round until a round holds nothing more: what
    /// `hold_in_stream_order`'s one pass in correlation order must hold.
    fn hold_round_by_round(
        c: &Collected,
        arrived: &Arrived,
        graph_launches: &[u64],
        windows: Windows,
        h: &mut Holding<'_>,
    ) {
        let promised = Promised::of_here(c);
        hold_graph_launches_still_to_complete(c, arrived, graph_launches, &promised, h);
        let records = EventRecords::from_id(c, 0);
        let barriers = Default::default();
        loop {
            let mut changed = windows == Windows::Merged
                && hold_waits_before_their_work(c, arrived, &barriers, h);
            let mut first_held: HashMap<StreamOf, u64> = HashMap::default();
            let mut note = |s: StreamOf, id: u64| {
                let first = first_held.entry(s).or_insert(id);
                *first = (*first).min(id);
            };
            for f in c.calls.iter().filter(|f| h.holds(f.correlation_id)) {
                note(stream_of(f.device, f.stream), f.correlation_id);
            }
            for s in c.syncs.iter().filter(|s| h.holds(s.correlation_id)) {
                if s.kind.names_a_stream() {
                    note(stream_of(s.device, s.stream), s.correlation_id);
                }
            }
            let after = |s: StreamOf, id: u64| first_held.get(&s).is_some_and(|&f| f < id);
            for f in c.calls.iter() {
                if after(stream_of(f.device, f.stream), f.correlation_id) {
                    changed |= h.hold_open(f.correlation_id);
                }
            }
            for s in &c.syncs {
                let follows = s.kind.names_a_stream()
                    && after(stream_of(s.device, s.stream), s.correlation_id);
                let waits_on_held = s.kind.waits_on_event()
                    && records
                        .before(s.event, s.correlation_id)
                        .is_some_and(|(r, st)| h.holds(r) && after(st, r));
                if follows || waits_on_held {
                    changed |= h.hold_open(s.correlation_id);
                }
            }
            if !changed {
                break;
            }
        }
        // A `hipDeviceSynchronize` after a held call or sync of its device (any, when it
        // names none; a fact that names none counts for every device).
        let mut first_on: HashMap<i32, u64> = HashMap::default();
        let held_calls = c.calls.iter().map(|f| (f.device, f.correlation_id));
        let held_syncs = c.syncs.iter().map(|s| (s.device, s.correlation_id));
        for (device, id) in held_calls.chain(held_syncs).filter(|&(_, id)| h.holds(id)) {
            let first = first_on.entry(device.max(-1)).or_insert(id);
            *first = (*first).min(id);
        }
        let first_on = |device: i32| {
            let of = |d: i32| first_on.get(&d).copied().unwrap_or(u64::MAX);
            match device {
                d if d < 0 => first_on.values().copied().min().unwrap_or(u64::MAX),
                d => of(d).min(of(-1)),
            }
        };
        let device_syncs: Vec<u64> = c
            .syncs
            .iter()
            .filter(|s| {
                s.kind == SyncKind::DeviceSynchronize && first_on(s.device) < s.correlation_id
            })
            .map(|s| s.correlation_id)
            .collect();
        for id in device_syncs {
            h.hold_open(id);
        }
    }

    /// On random windows (streams on two devices and the null streams, event records and
    /// waits across streams, facts in any order, some calls held for their own pieces, some
    /// handed on the most times already), the one pass holds what the rules applied round by
    /// round hold, windows written apart or merged.
    #[test]
    fn one_pass_in_correlation_order_holds_what_rounds_do() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| crate::util::next_random(&mut x) % n;
        let mut held_somewhere = 0;
        for round in 0..300 {
            let n = 20 + next(200);
            let mut c = Collected::default();
            let mut active_ids = Vec::new();
            let mut graph_launches = Vec::new();
            let mut held_first = Vec::new();
            let mut carried_in = Vec::new();
            for id in 1..=n {
                let device = next(3) as i32 - 1;
                let stream = [0, 0xa, 0xb, 0xc][next(4) as usize];
                match next(10) {
                    0..=5 => {
                        c.calls.push(CallFact {
                            correlation_id: id,
                            stream,
                            device,
                            stream_seq: 0,
                        });
                        match next(10) {
                            0 => held_first.push(id),
                            1 => graph_launches.push(id),
                            _ => {}
                        }
                        if next(4) != 0 {
                            active_ids.push(id);
                        }
                    }
                    r => {
                        c.syncs.push(SyncFact {
                            correlation_id: id,
                            kind: match r {
                                6 => SyncKind::EventRecord,
                                7 => SyncKind::StreamWaitEvent,
                                8 => [SyncKind::EventSynchronize, SyncKind::StreamSynchronize]
                                    [next(2) as usize],
                                _ => SyncKind::DeviceSynchronize,
                            },
                            event: next(3),
                            stream,
                            device,
                            stream_seq: 0,
                        });
                        // A sync call's launch fact too (a record or wait names its stream at
                        // entry), now and then on another stream than its sync fact's.
                        if next(3) == 0 {
                            let other = [0, 0xa, 0xb, 0xc][next(4) as usize];
                            c.calls.push(CallFact {
                                correlation_id: id,
                                stream: if next(4) == 0 { other } else { stream },
                                device,
                                stream_seq: 0,
                            });
                        }
                    }
                }
                if next(25) == 0 {
                    carried_in.push((id, MAX_HANDED_ON));
                }
            }
            // Delivery order is not correlation order.
            let mut calls: Vec<CallFact> = c.calls.iter().collect();
            for i in (1..calls.len()).rev() {
                calls.swap(i, next(i as u64 + 1) as usize);
            }
            c.calls = calls.into();
            let carried_in: HandedOn = carried_in.into_iter().collect();
            for i in (1..c.syncs.len()).rev() {
                c.syncs.swap(i, next(i as u64 + 1) as usize);
            }
            let range = Some((1, n));
            let mut active = IdSet::for_range(range, n as usize);
            for &id in &active_ids {
                active.insert(id);
            }
            let arrived = latest_work(&c, &active, |_| {});
            let graph_launches: Vec<u64> = graph_launches
                .into_iter()
                .filter(|&id| active.contains(id))
                .collect();
            for windows in [Windows::Apart, Windows::Merged] {
                let holding = || {
                    let mut h = Holding {
                        carried_in: &carried_in,
                        held: Vec::new(),
                        ids: IdSet::for_range(range, n as usize),
                    };
                    for &id in &held_first {
                        h.hold_open(id);
                    }
                    h
                };
                let (mut pass, mut rounds) = (holding(), holding());
                let promised = Promised::of_here(&c);
                let launches = (&graph_launches[..], &promised);
                hold_in_stream_order(&c, &arrived, launches, windows, &mut pass);
                hold_round_by_round(&c, &arrived, &graph_launches, windows, &mut rounds);
                let sorted = |h: &Holding| {
                    let mut v = h.held.clone();
                    v.sort_unstable();
                    v
                };
                assert_eq!(
                    sorted(&pass),
                    sorted(&rounds),
                    "window {round}, {windows:?}"
                );
                held_somewhere += pass.held.len();
            }
        }
        assert!(held_somewhere > 1000, "the rules held {held_somewhere}");
    }

    /// The ids handed on answer with the count of their last pair, whether they lie in the
    /// range the bits cover (the latest ids) or far below it (a roctx range opened long
    /// before), and no other id does.
    #[test]
    fn the_ids_handed_on_answer_in_and_out_of_their_range() {
        let far = 1u64 << 40;
        let latest = |i: u64| far + 2 * i;
        let mut pairs = vec![(10, 1), (12, 2), (0, 5)];
        pairs.extend((0..1000).map(|i| (latest(i), 1 + (i % 3) as u32)));
        pairs.extend([(11, 3), (12, 4), (latest(7), CONTEXT)]);
        let ids: HandedOn = pairs.into_iter().collect();
        assert_eq!(ids.len(), 1003, "12 and the latest 7 once, 0 is no id");
        let mut want = vec![(10, 1), (11, 3), (12, 4)];
        want.extend(
            (0..1000).map(|i| (latest(i), if i == 7 { CONTEXT } else { 1 + (i % 3) as u32 })),
        );
        for &(id, n) in &want {
            assert_eq!(ids.get(&id), Some(&n), "id {id}");
        }
        for id in [0, 9, 13, far - 1, latest(3) + 1, latest(999) + 1] {
            assert_eq!(ids.get(&id), None, "id {id}");
        }
        assert_eq!(
            ids.spill.len(),
            3,
            "the ids far below the latest are hashed"
        );
        let mut all: Vec<(u64, u32)> = ids.iter().collect();
        all.sort_unstable();
        assert_eq!(all, want);
        assert!(HandedOn::default().is_empty());
    }

    /// Of the records handed on, each event keeps its latest, the ones a window took in
    /// included, at most `MAX_PRODUCERS` events (the latest).
    #[test]
    fn each_event_hands_on_its_latest_record() {
        use crate::model::carry::latest_producers;
        let record = |corr, event| SyncFact {
            correlation_id: corr,
            kind: SyncKind::EventRecord,
            event,
            stream: 0xa,
            device: 0,
            stream_seq: 0,
        };
        let mut c = Collected {
            carried: crate::model::collected::Carried {
                producers: vec![record(2, 0xe), record(3, 0xf)],
                ..Default::default()
            },
            syncs: vec![
                record(9, 0xe),
                record(5, 0xe),
                SyncFact {
                    kind: SyncKind::StreamWaitEvent,
                    ..record(10, 0xf)
                },
            ],
            ..Collected::default()
        };
        let latest: Vec<(u64, u64)> = latest_producers(&c, &[])
            .iter()
            .map(|s| (s.event, s.correlation_id))
            .collect();
        assert_eq!(latest, [(0xf, 3), (0xe, 9)]);
        let n = crate::model::carry::MAX_PRODUCERS as u64;
        c.syncs = (1..=n + 2).map(|i| record(i, i)).collect();
        c.carried.producers.clear();
        let latest = latest_producers(&c, &[]);
        assert_eq!(latest.len() as u64, n);
        assert_eq!(latest[0].correlation_id, 3, "the oldest two left out");
    }

    /// On random windows (records of a few events taken in and made here, some taken in
    /// again, waits handed on or not), what is handed on is each event's latest record and,
    /// for each wait handed on, its event's latest record before it: as a search of every
    /// record finds them.
    #[test]
    fn the_records_handed_on_are_the_latest_and_those_the_waits_resolve_to() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| crate::util::next_random(&mut x) % n;
        let mut with_waits = 0;
        for round in 0..200 {
            let fact = |id: u64, kind, event: u64| SyncFact {
                correlation_id: id,
                kind,
                event,
                // The stream tells the records apart beside their ids.
                stream: 0x100 + id,
                device: 0,
                stream_seq: 0,
            };
            let kinds = [
                SyncKind::EventRecord,
                SyncKind::EventRecord,
                SyncKind::StreamWaitEvent,
                SyncKind::EventSynchronize,
                SyncKind::DeviceSynchronize,
            ];
            let mut c = Collected::default();
            for id in 1..=next(20) {
                c.carried
                    .producers
                    .push(fact(id, SyncKind::EventRecord, next(6)));
            }
            for id in 0..next(300) {
                let kind = kinds[next(kinds.len() as u64) as usize];
                c.syncs.push(fact(20 + id, kind, next(6)));
            }
            // A record taken in that this window holds again (the same call), and one of id 0.
            if let Some(&again) = c.carried.producers.last() {
                c.syncs.push(again);
            }
            c.syncs.push(fact(0, SyncKind::EventRecord, 1));
            for i in (1..c.syncs.len()).rev() {
                c.syncs.swap(i, next(i as u64 + 1) as usize);
            }
            let waits: Vec<SyncFact> = c.syncs.iter().filter(|_| next(3) == 0).copied().collect();
            let records: Vec<&SyncFact> = c
                .carried
                .producers
                .iter()
                .chain(&c.syncs)
                .filter(|s| s.kind == SyncKind::EventRecord && s.correlation_id != 0)
                .collect();
            let latest_before = |event: u64, id: u64| {
                records
                    .iter()
                    .filter(|r| r.event == event && r.correlation_id < id)
                    .max_by_key(|r| r.correlation_id)
                    .map(|r| **r)
            };
            let mut want: Vec<SyncFact> = (0..6)
                .filter_map(|event| latest_before(event, u64::MAX))
                .collect();
            for w in waits.iter().filter(|w| w.kind.waits_on_event()) {
                with_waits += 1;
                want.extend(latest_before(w.event, w.correlation_id));
            }
            want.sort_by_key(|s| s.correlation_id);
            want.dedup_by_key(|s| s.correlation_id);
            assert_eq!(latest_producers(&c, &waits), want, "window {round}");
        }
        assert!(with_waits > 1000, "{with_waits} waits handed on");
    }
}
