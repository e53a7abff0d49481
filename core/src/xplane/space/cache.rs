//! What the events of a plane share, encoded once and kept: a launch shape's stats, an
//! annotation's, a label list's, a copy route's `memcpy_details`, and event metadata ids by
//! the identity of their names. Every cache gives the bytes encoding afresh would give: the
//! plane's names are interned the first time they are encoded.

use std::sync::Arc;

use crate::fastmap::{HashMap, HashSet};
use crate::model::annotations::Labels;
use crate::model::steps::StepRule;
use crate::model::{
    Annotation, CopyDirection, Device, Id, LaunchShape, MemcpyInfo, Name, Table, Trace,
};

use super::levels::LevelStats;
use super::line_names::{copy_order, COPY_ORDER};
use crate::xplane::builder::{fibonacci_slot, Hot, PlaneBuilder, StatBytes, StatIds, StatValue};
use crate::xplane::stats as s;

/// The launch parameters that make up `kernel_details`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct KernelKey([u32; 12]);

impl KernelKey {
    fn of(k: &LaunchShape) -> Self {
        let [g0, g1, g2] = k.grid;
        let [b0, b1, b2] = k.block;
        KernelKey([
            k.code.vgpr_count,
            k.code.static_shared_bytes,
            k.dynamic_shared_bytes,
            g0,
            g1,
            g2,
            b0,
            b1,
            b2,
            k.private_segment_bytes,
            // Registers decide occupancy, which is part of the details.
            k.code.agpr_count,
            k.code.sgpr_count,
        ])
    }
}

/// Per-plane memo of work that repeats across events, keyed by identity: launch shapes and
/// annotations by their ids in the trace's tables (every dispatch of a graph launch names one
/// annotation), kernel names by address (they can be kilobytes of template text, costly to
/// hash per event).
pub(super) struct EventCache<'t> {
    shape_table: &'t Table<LaunchShape>,
    kernel_details: HashMap<KernelKey, StatBytes>,
    /// Kernel event metadata that already carries its resource stats.
    with_resources: HashSet<i64>,
    event_ids: EventIds,
    /// Per launch shape: its stats and its kernel's event metadata id.
    shapes: IdSlots<(StatBytes, i64)>,
    annotations: AnnotationCache<'t>,
    /// Per copy route and size: its `memcpy_details` stat (a string formatted and interned).
    copies: SlotCache<MemcpyInfo>,
    names: &'t Table<Arc<str>>,
    /// Per host event name: its event metadata id, 0 until first used (ids start at 1).
    name_ids: Vec<i64>,
    /// Per copy direction, in `COPY_ORDER`: its event metadata id, 0 until first used (a
    /// copy's name is not hashed per event).
    copy_name_ids: [i64; COPY_ORDER.len()],
}

/// The event name of a kernel whose launch shape is not in the trace's table (a `Trace` built
/// by hand with an id of another table): shown, not dropped.
pub(super) const UNKNOWN_SHAPE: &str = "<kernel of an unknown launch shape>";

/// Event metadata ids by the address of the name (`Arc<str>`s shared by many events).
#[derive(Default)]
struct EventIds {
    ids: HashMap<*const u8, i64>,
    /// Keeps every pointer used as a key alive, so an address cannot be reused by another value.
    pinned: Vec<Arc<str>>,
}

impl EventIds {
    #[inline]
    fn get(&mut self, plane: &mut PlaneBuilder, name: &Arc<str>) -> i64 {
        let key = name.as_ptr();
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = plane.event_metadata_id(name);
        self.ids.insert(key, id);
        self.pinned.push(name.clone());
        id
    }
}

impl<'t> EventCache<'t> {
    pub(super) fn new(trace: &'t Trace) -> Self {
        EventCache {
            shape_table: &trace.shapes,
            kernel_details: HashMap::default(),
            with_resources: HashSet::default(),
            event_ids: EventIds::default(),
            shapes: IdSlots::default(),
            names: &trace.names,
            name_ids: Vec::new(),
            copy_name_ids: [0; COPY_ORDER.len()],
            annotations: AnnotationCache {
                table: &trace.annotations,
                annotations: IdSlots::default(),
                label_lists: ListStats::new(trace.step_rule.as_ref()),
            },
            copies: SlotCache::default(),
        }
    }

    /// A copy's `memcpy_details`, formatted and interned on a miss only: the same bytes, since
    /// a hit's names were interned when it was first encoded.
    #[inline]
    pub(super) fn memcpy_stats(
        &mut self,
        plane: &mut PlaneBuilder,
        m: &MemcpyInfo,
        stats: &mut StatBytes,
    ) {
        let (bytes, hit) = self.copies.slot(m);
        if !hit {
            bytes.clear();
            plane.put(
                bytes,
                s::MEMCPY_DETAILS,
                StatValue::Ref(&s::memcpy_details(m)),
            );
        }
        stats.extend(bytes);
    }

    /// The stats a kernel event takes from its launch shape (queue, pipe, details, occupancy)
    /// and its event metadata id. Kept per shape (a store entry's dispatches share one), so
    /// an event costs one slot probe instead of hashing its launch parameters and its name.
    /// `None` for an id the trace's table does not hold.
    #[inline]
    pub(super) fn kernel(
        &mut self,
        plane: &mut PlaneBuilder,
        ids: &mut StatIds,
        shape: Id<LaunchShape>,
        d: &Device,
    ) -> Option<(&StatBytes, i64)> {
        let k = self.shape_table.get(shape)?;
        let (cached, hit) = self.shapes.slot(shape);
        let (bytes, id) = cached;
        if hit {
            return Some((bytes, *id));
        }
        bytes.clear();
        bytes.u64(ids.get(plane, crate::xplane::deps::HSA_QUEUE), k.queue);
        if let Some(p) = k.pipe_id {
            bytes.i64(ids.get(plane, s::PIPE_ID), i64::from(p));
        }
        let details = self
            .kernel_details
            .entry(KernelKey::of(k))
            .or_insert_with(|| {
                let occ = crate::model::occupancy::occupancy(k, d);
                let mut v = StatBytes::new();
                plane.put(
                    &mut v,
                    s::KERNEL_DETAILS,
                    StatValue::Ref(&s::kernel_details(k, occ.as_ref())),
                );
                if let Some(o) = occ {
                    plane.put(
                        &mut v,
                        s::WAVES_PER_SIMD,
                        StatValue::I64(i64::from(o.waves_per_simd)),
                    );
                    plane.put(&mut v, s::OCCUPANCY_LIMITER, StatValue::Ref(o.limiter));
                }
                v
            });
        bytes.extend(details);
        *id = self.event_ids.get(plane, &k.code.name);
        if self.with_resources.insert(*id) {
            for (name, v) in s::kernel_resource_stats(k) {
                let st = plane.stat(name, StatValue::I64(v));
                plane.add_event_metadata_stat(*id, st);
            }
        }
        Some((bytes, *id))
    }

    /// A copy event's event metadata id, looked up by its direction (no hashing per event).
    #[inline]
    pub(super) fn copy_name_id(
        &mut self,
        plane: &mut PlaneBuilder,
        direction: CopyDirection,
    ) -> i64 {
        let id = &mut self.copy_name_ids[copy_order(direction)];
        if *id == 0 {
            *id = plane.event_metadata_id(s::memcpy_event_name(direction));
        }
        *id
    }

    /// A host event's event metadata id, looked up by the name's id (no hashing per event).
    #[inline]
    pub(super) fn host_name_id(&mut self, plane: &mut PlaneBuilder, name: Name) -> i64 {
        let i = name.index();
        if let Some(&id) = self.name_ids.get(i).filter(|&&id| id != 0) {
            return id;
        }
        let Some(text) = self.names.get(name) else {
            // An id of another table (a `Trace` built by hand): shown unnamed, not cached.
            return plane.event_metadata_id("");
        };
        let id = plane.event_metadata_id(text);
        if self.name_ids.len() <= i {
            self.name_ids.resize(self.names.len(), 0);
        }
        self.name_ids[i] = id;
        id
    }

    // Always (as `AnnotationCache::stats`): every event asks, and a call of its own costs more
    // than the slot compare that mostly answers; the planes' walks are in other modules.
    #[inline(always)]
    pub(super) fn annotation_stats(
        &mut self,
        plane: &mut PlaneBuilder,
        ids: &mut StatIds,
        a: Option<Id<Annotation>>,
        stats: &mut StatBytes,
    ) {
        let Some(a) = a else { return };
        if let Some(bytes) = self.annotations.stats(plane, ids, a) {
            stats.extend(bytes);
        }
    }

    /// Starts bringing what [`Self::annotation_stats`] will read of annotation `a` into the
    /// cache: its slot and the annotation. A plane's events name annotations in time order,
    /// which lie in the table in the order their calls were captured, thread by thread, so
    /// each read ahead of its turn is otherwise a miss waited for.
    #[inline(always)]
    pub(super) fn prefetch_annotation(&self, a: Option<Id<Annotation>>) {
        if let Some(a) = a {
            self.annotations.prefetch(a);
        }
    }
}

/// The encoded stats of recently seen annotations, in a fixed number of slots chosen by id:
/// events that share an annotation come close together (a graph launch's dispatches, the
/// calls inside one roctx range), while a run can hold millions of distinct annotations (a
/// range around every step or call), which an unbounded map would keep for the whole write.
/// A miss encodes the stats again, to the same bytes (the plane's ids are already interned).
///
/// A miss is common: every roctx range has its own scope id, so every range is an annotation
/// of its own, and a plane's lines each walk the whole run. Its label list, though, is shared
/// by every range pushed with the same labels (`capture::thread` keeps one list while the
/// labels stay the same), and parsing the labels is the costly part of a miss (each `name#k=v#`
/// level split, every key and string value interned by name). So the labels' stats are cached
/// too, by their list's address, for the whole plane (`ListStats`): a miss then encodes the
/// scope and external ids (through the plane's `StatIds`, not hashed by name per miss) and
/// copies the labels' bytes.
struct AnnotationCache<'t> {
    table: &'t Table<Annotation>,
    annotations: IdSlots<StatBytes>,
    label_lists: ListStats<'t>,
}

/// The encoded stats of each label list a plane has met, by the list's address: every line of
/// a plane walks the whole run and meets each list again. Not in slots: a run with more lists
/// than slots (a step range around every 16 launches, each step's name its own list) would
/// lose every list before the next line came back to it, and parse and intern it again. A
/// map, since addresses a fixed stride apart share too few slots of a multiplicative spread.
/// Bounded: past [`MAX_LISTS`] lists it starts over, as a run can name every range
/// differently.
/// The run's step rule goes with them: a step level is never a label's op.
/// The lists met recently are kept aside in slots by address (`recent`, each an index into
/// `kept`), in front of the map, and the list met last before them (`last`): the ranges of one
/// thread come in runs that share a list (a host thread's line: one compare per range), and a
/// device line interleaves the runs of every thread that launches onto it (each thread keeps a
/// list of its own), so a list met again costs a slot compare, not a map probe.
struct ListStats<'t> {
    /// Each list's place in `kept`, by the list's address.
    lists: HashMap<usize, usize>,
    /// The lists (held, so an address cannot be reused while it is a key) and their stats.
    kept: Vec<(Labels, StatBytes)>,
    /// Per slot of an address ([`recent_slot`]): the address of the list met last there and
    /// its place in `kept`; address 0 for none. Emptied whenever `kept` is.
    recent: [(usize, usize); RECENT_SLOTS],
    /// The list met last, as its slot in `recent` holds it.
    last: (usize, usize),
    /// Probes of `lists` so far (a test counts them).
    probes: usize,
    /// The labels met so far, parsed: a new list costs a look-up per label.
    levels: LevelStats,
    step_rule: Option<&'t StepRule>,
}

impl Default for ListStats<'_> {
    fn default() -> Self {
        ListStats {
            lists: HashMap::default(),
            kept: Vec::new(),
            recent: [(0, 0); RECENT_SLOTS],
            last: (0, 0),
            probes: 0,
            levels: LevelStats::default(),
            step_rule: None,
        }
    }
}

/// The label lists a plane keeps encoded at most: about 4 MB of entries, and their stats.
const MAX_LISTS: usize = 1 << 16;

/// Slots of [`ListStats::recent`] (a power of two): far more than the threads a run commonly
/// has, so that the lists of the threads sharing a device line seldom share a slot (their
/// addresses often lie a fixed stride apart, which a multiplicative spread into fewer slots
/// folds onto each other).
const RECENT_BITS: u32 = 10;

const RECENT_SLOTS: usize = 1 << RECENT_BITS;

/// The slot of [`ListStats::recent`] of the list at address `key`.
#[inline]
fn recent_slot(key: usize) -> usize {
    fibonacci_slot(key as u64, RECENT_BITS)
}

impl<'t> ListStats<'t> {
    fn new(step_rule: Option<&'t StepRule>) -> Self {
        ListStats {
            step_rule,
            ..ListStats::default()
        }
    }

    // Inline: asked on every annotation miss, and mostly answered by `recent` in a few
    // instructions, fewer than a call's saved registers.
    #[inline]
    fn stats(&mut self, plane: &mut PlaneBuilder, list: &Labels) -> &StatBytes {
        let key = Arc::as_ptr(list).cast::<u8>() as usize;
        if self.last.0 != key {
            let slot = recent_slot(key);
            if self.recent[slot].0 != key {
                let at = self.place(plane, list, key);
                self.recent[slot] = (key, at);
            }
            self.last = self.recent[slot];
        }
        &self.kept[self.last.1].1
    }

    /// The place in `kept` of the list at address `key`, encoded there on its first meeting.
    #[inline(never)]
    fn place(&mut self, plane: &mut PlaneBuilder, list: &Labels, key: usize) -> usize {
        self.probes += 1;
        if let Some(&at) = self.lists.get(&key) {
            return at;
        }
        if self.lists.len() >= MAX_LISTS {
            self.lists.clear();
            self.kept.clear();
            // Their places are gone, and a list dropped with `kept` frees its address.
            self.recent = [(0, 0); RECENT_SLOTS];
        }
        let mut bytes = StatBytes::new();
        self.levels.write(plane, list, self.step_rule, &mut bytes);
        self.kept.push((list.clone(), bytes));
        self.lists.insert(key, self.kept.len() - 1);
        self.kept.len() - 1
    }
}

/// Slots of each `SlotCache` (a power of two).
const SLOT_BITS: u32 = 12;

const SLOTS: usize = 1 << SLOT_BITS;

impl AnnotationCache<'_> {
    /// As [`EventCache::prefetch_annotation`].
    #[inline(always)]
    fn prefetch(&self, id: Id<Annotation>) {
        if let Some(a) = self.table.get(id) {
            crate::util::prefetch::prefetch(a);
        }
        self.annotations.prefetch(id);
    }

    /// The stats of `id`, encoded on a miss into the slot's buffer (a miss allocates nothing
    /// once the slots are warm); `None` for an id the trace's table does not hold.
    #[inline(always)]
    fn stats(
        &mut self,
        plane: &mut PlaneBuilder,
        ids: &mut StatIds,
        id: Id<Annotation>,
    ) -> Option<&StatBytes> {
        let a = self.table.get(id)?;
        let (bytes, hit) = self.annotations.slot(id);
        if !hit {
            bytes.clear();
            add_id_stats(plane, ids, a, bytes);
            if !a.stack.is_empty() {
                bytes.extend(self.label_lists.stats(plane, &a.stack));
            }
        }
        Some(bytes)
    }
}

/// What was encoded for a value of a trace's table, kept by its id, one entry per slot: a
/// multiply and a compare, with no reference to keep alive.
struct IdSlots<V>(Vec<(u32, V)>);

impl<V: Default> Default for IdSlots<V> {
    fn default() -> Self {
        IdSlots((0..SLOTS).map(|_| (0, V::default())).collect())
    }
}

impl<V> IdSlots<V> {
    /// Starts bringing `id`'s slot into the cache.
    #[inline(always)]
    fn prefetch<T>(&self, id: Id<T>) {
        crate::util::prefetch::prefetch(&self.0[fibonacci_slot(u64::from(id.get()), SLOT_BITS)]);
    }

    /// As [`SlotCache::slot`]: the value of `id`'s slot and whether it is `id`'s (ids are never
    /// 0, the empty slot's).
    fn slot<T>(&mut self, id: Id<T>) -> (&mut V, bool) {
        // Spread by Fibonacci hashing, not by the id's low bits: a plane's lines each walk
        // the run, and a walk over more ids than slots evicts every slot before it comes back
        // to an id when the slots follow the ids in order.
        let (cached, value) = &mut self.0[fibonacci_slot(u64::from(id.get()), SLOT_BITS)];
        if *cached == id.get() {
            return (value, true);
        }
        *cached = id.get();
        (value, false)
    }
}

/// What was encoded from a value, kept by the value, one entry per slot: a copy's route and
/// size (`MemcpyInfo`), of which the copies of a loop repeat a handful.
struct SlotCache<K, V = StatBytes>(Vec<(Option<K>, V)>);

impl<K, V: Default> Default for SlotCache<K, V> {
    fn default() -> Self {
        SlotCache((0..SLOTS).map(|_| (None, V::default())).collect())
    }
}

impl<K: std::hash::Hash + Eq + Clone, V> SlotCache<K, V> {
    /// The value of `key`'s slot, and whether it is `key`'s; on a miss the slot now belongs
    /// to `key` and holds what the previous key left (a buffer to clear and reuse).
    fn slot(&mut self, key: &K) -> (&mut V, bool) {
        use std::hash::BuildHasher;
        // Fibonacci hashing: the slot from every bit of the key's hash, not its low bits.
        let spread = rustc_hash::FxBuildHasher.hash_one(key);
        let (cached, value) = &mut self.0[fibonacci_slot(spread, SLOT_BITS)];
        if cached.as_ref() == Some(key) {
            return (value, true);
        }
        *cached = Some(key.clone());
        (value, false)
    }
}

/// Stats from the annotation context captured at API entry are the same on the host call and
/// on every device event it caused, as in XLA: its ids, then its labels' stats.
/// The annotation's own ids: its scope range and external correlation ids.
// Inline: every annotation miss writes these two stats, fewer instructions than a call's
// saved registers; the rare list of external ids is a call of its own.
#[inline(always)]
fn add_id_stats(
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
    a: &Annotation,
    stats: &mut StatBytes,
) {
    if a.scope_range_id != 0 {
        stats.i64(ids.hot(plane, Hot::ScopeRangeId), a.scope_range_id);
    }
    if let Some(&inner) = a.external_ids.last() {
        stats.u64(ids.hot(plane, Hot::ExternalCorrelationId), inner);
        if a.external_ids.len() > 1 {
            add_external_ids_stat(plane, &a.external_ids, stats);
        }
    }
}

/// `external_correlation_ids`: every external id of an annotation that has more than one.
#[inline(never)]
fn add_external_ids_stat(plane: &mut PlaneBuilder, external_ids: &[u64], stats: &mut StatBytes) {
    let all: Vec<String> = external_ids.iter().map(u64::to_string).collect();
    plane.put(
        stats,
        s::EXTERNAL_CORRELATION_IDS,
        StatValue::Ref(&all.join(",")),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        DeviceEvent, DeviceEventKind, DeviceLine, HostEventKind, HostThread, KernelCode, KernelInfo,
    };
    use crate::xplane::proto::x_stat;
    use crate::xplane::space::build_xspace;
    use crate::xplane::space::testing::{
        add_label_stats, events_in_turn, gpu_plane, one_line, ref_stat,
    };

    /// More copy routes and sizes than slots, copies of each spread across the line: every copy
    /// carries its own `memcpy_details`, cached or not, and the plane interns each string once.
    #[test]
    fn copy_events_read_their_own_details_through_the_slot_cache() {
        let routes: Vec<MemcpyInfo> = (0..SLOTS as u64 * 2 + 7)
            .map(|i| MemcpyInfo {
                direction: if i % 2 == 0 {
                    CopyDirection::HostToDevice
                } else {
                    CopyDirection::DeviceToHost
                },
                bytes: 4096 + i / 3,
                src_device: (i % 2 == 1).then_some((i % 3) as u32),
                dst_device: (i % 2 == 0).then_some((i % 3) as u32),
                kinds: None,
            })
            .collect();
        let events = events_in_turn(routes.len() * 3, |n| {
            DeviceEventKind::Memcpy(Box::new(routes[(n * 7919) % routes.len()].clone()))
        });
        let trace = Trace {
            devices: vec![one_line(events.clone())],
            ..Default::default()
        };
        let space = build_xspace(&trace);
        let plane = gpu_plane(&space);
        let written = &plane.lines[0].events;
        assert_eq!(written.len(), events.len());
        for (w, e) in written.iter().zip(&events) {
            let DeviceEventKind::Memcpy(m) = &e.kind else {
                unreachable!()
            };
            let details = ref_stat(plane, w, s::MEMCPY_DETAILS).expect("memcpy details");
            assert_eq!(details, s::memcpy_details(m));
        }
        let distinct: std::collections::HashSet<String> =
            routes.iter().map(s::memcpy_details).collect();
        let interned = plane
            .stat_metadata
            .values()
            .filter(|m| m.name.starts_with("kind_src:"))
            .count();
        assert_eq!(interned, distinct.len());
    }

    /// More launch shapes than slots, dispatches of each spread across the line: every event
    /// carries its own shape's queue, kernel details and kernel name, cached or not.
    #[test]
    fn kernel_events_read_their_own_shape_through_the_slot_cache() {
        let mut table = Table::default();
        let shapes: Vec<Id<LaunchShape>> = (0..SLOTS as u32 * 2 + 7)
            .map(|i| {
                table.push(LaunchShape {
                    code: Arc::new(KernelCode {
                        name: Arc::from(format!("k{}", i % 11)),
                        vgpr_count: 8 * (i % 5),
                        ..Default::default()
                    }),
                    grid: [i + 1, 1, 1],
                    block: [64, 1, 1],
                    queue: u64::from(i),
                    ..Default::default()
                })
            })
            .collect();
        // Every id numbered one ahead of its table position would find a neighbour's shape.
        assert_eq!(table.get(shapes[0]).unwrap().queue, 0);
        let events = events_in_turn(shapes.len() * 3, |n| {
            DeviceEventKind::Kernel(KernelInfo {
                dispatch_id: n as u64,
                shape: shapes[(n * 7919) % shapes.len()],
            })
        });
        let trace = Trace {
            devices: vec![Device {
                name: "gfx942".into(),
                compute_units: 304,
                simd_per_cu: 4,
                wave_front_size: 64,
                max_waves_per_cu: 32,
                ..one_line(events.clone())
            }],
            shapes: table,
            ..Default::default()
        };
        let space = build_xspace(&trace);
        let plane = gpu_plane(&space);
        let stat_name = |id: i64| plane.stat_metadata[&id].name.as_str();
        let written = &plane.lines[0].events;
        assert_eq!(written.len(), events.len());
        for (w, e) in written.iter().zip(&events) {
            let DeviceEventKind::Kernel(k) = &e.kind else {
                unreachable!()
            };
            let shape = trace.shape(k).unwrap();
            assert_eq!(plane.event_metadata[&w.metadata_id].name, *shape.code.name);
            let queue = w
                .stats
                .iter()
                .find(|st| stat_name(st.metadata_id) == crate::xplane::deps::HSA_QUEUE)
                .and_then(|st| st.value.clone());
            assert_eq!(queue, Some(x_stat::Value::Uint64Value(shape.queue)));
            let details = ref_stat(plane, w, s::KERNEL_DETAILS).expect("kernel details");
            let grid = shape.grid[0];
            assert!(details.contains(&format!("grid:{grid},")), "{details}");
        }
    }

    /// A `Trace` built by hand can name what its tables do not hold (ids of another trace's
    /// tables): every event is still written, under a placeholder name and without the
    /// stats it could not find, and nothing panics.
    #[test]
    fn ids_past_the_tables_are_written_under_placeholders() {
        use crate::model::{HostEvent, Ordinal16};
        let mut other = Table::default();
        let shape = (0..3)
            .map(|_| other.push(LaunchShape::default()))
            .last()
            .unwrap();
        let mut other_names = Table::default();
        let name = (0..3)
            .map(|_| other_names.push(Arc::from("x")))
            .last()
            .unwrap();
        let mut other_annotations = Table::default();
        let annotation = Some(other_annotations.push(Annotation::default()));
        let trace = Trace {
            devices: vec![Device {
                lines: vec![DeviceLine {
                    id: 0,
                    name: String::new(),
                    events: vec![DeviceEvent {
                        start_ns: 10,
                        end_ns: 20,
                        correlation_id: 1,
                        kind: DeviceEventKind::Kernel(KernelInfo {
                            dispatch_id: 1,
                            shape,
                        }),
                        annotation,
                        graph: None,
                    }],
                }],
                ..Default::default()
            }],
            host_threads: vec![HostThread {
                tid: 1,
                name: String::new(),
                events: vec![HostEvent {
                    name,
                    start_ns: 5,
                    end_ns: 8,
                    correlation_id: 1,
                    kind: HostEventKind::HipApi,
                    annotation,
                    device: Ordinal16::NONE,
                    launched: crate::model::Launched::count(1),
                }],
            }],
            ..Default::default()
        };
        let space = build_xspace(&trace);
        let gpu = gpu_plane(&space);
        let kernel = &gpu.lines[0].events[0];
        assert_eq!(gpu.event_metadata[&kernel.metadata_id].name, UNKNOWN_SHAPE);
        let host = space
            .planes
            .iter()
            .find(|p| p.name == s::HOST_PLANE)
            .unwrap();
        let calls: Vec<&str> = host
            .lines
            .iter()
            .flat_map(|l| &l.events)
            .map(|e| host.event_metadata[&e.metadata_id].name.as_str())
            .collect();
        assert_eq!(calls, [""]);
    }

    /// The stats of an annotation encoded without any cache, the ids' stats by name.
    fn add_annotation_stats(plane: &mut PlaneBuilder, a: &Annotation, stats: &mut StatBytes) {
        if a.scope_range_id != 0 {
            plane.put(stats, s::SCOPE_RANGE_ID, StatValue::I64(a.scope_range_id));
        }
        if let Some(&inner) = a.external_ids.last() {
            plane.put(stats, s::EXTERNAL_CORRELATION_ID, StatValue::U64(inner));
            if a.external_ids.len() > 1 {
                let all: Vec<String> = a.external_ids.iter().map(u64::to_string).collect();
                let all = all.join(",");
                plane.put(stats, s::EXTERNAL_CORRELATION_IDS, StatValue::Ref(&all));
            }
        }
        add_label_stats(plane, &a.stack, None, stats);
    }

    /// More distinct annotations than slots, each asked for twice in a row and again after a
    /// full cycle: every answer is what encoding the annotation afresh gives, one or several
    /// external ids alike. Every other one
    /// shares one of a few label lists (ranges pushed again with the same labels), the rest
    /// have lists of their own, so both tables evict.
    #[test]
    fn annotation_cache_answers_as_a_fresh_encoding_through_evictions() {
        // Hostile labels among them: empty, non-ASCII (in a key and a value too), 10 KB.
        let hostile: [&str; 5] = [
            "",
            "ステップ 😀",
            "Thunk:#hlo_op=融合.1,ключ=\u{202e}знач#",
            &"é#k=v#".repeat(1_700),
            "\u{7}\t\u{feff}",
        ];
        let shared: Vec<Arc<[Arc<str>]>> = (0..5)
            .map(|k| {
                vec![
                    Arc::from(format!("train {k}")),
                    Arc::from(format!("fusion.{k}#hlo_op=fusion.{k},program_id={k}#")),
                    Arc::from(hostile[k]),
                ]
                .into()
            })
            .collect();
        let mut table = Table::default();
        let annotations: Vec<Id<Annotation>> = (0..SLOTS as i64 * 3)
            .map(|i| {
                table.push(Annotation {
                    stack: if i % 2 == 0 {
                        shared[i as usize % 5].clone()
                    } else {
                        vec![
                            Arc::from(format!("step {}", i % 7)),
                            Arc::from(format!("op{i}#k={i}#")),
                        ]
                        .into()
                    },
                    scope_range_id: i + 1,
                    // Every third with a list of external ids (`external_correlation_ids`).
                    external_ids: if i % 3 == 0 {
                        vec![7, i as u64]
                    } else {
                        vec![i as u64]
                    },
                })
            })
            .collect();
        let mut plane = PlaneBuilder::new(0, "p");
        let mut cache = AnnotationCache {
            table: &table,
            annotations: IdSlots::default(),
            label_lists: ListStats::default(),
        };
        let mut ids = StatIds::default();
        let fresh = |plane: &mut PlaneBuilder, a: &Annotation| {
            let mut b = StatBytes::new();
            add_annotation_stats(plane, a, &mut b);
            b
        };
        for round in 0..2 {
            for &a in &annotations {
                let want = fresh(&mut plane, &table[a]);
                for _ in 0..2 {
                    assert_eq!(
                        cache.stats(&mut plane, &mut ids, a),
                        Some(&want),
                        "round {round}"
                    );
                }
            }
        }
    }

    /// A step range's TraceMe keys that mark roots and groups (`_r`, `_a`, `step_name`,
    /// `group_id`) stay off the HIP calls and kernels inside it: xprof makes every event with
    /// `_r` a step root of its own (a step per call instead of one per range). Its other keys
    /// (`step_num` included) still reach them.
    #[test]
    fn a_step_ranges_root_keys_stay_off_the_work_inside_it() {
        use crate::model::{Annotation, HostEvent, HostEventKind, HostThread, Ordinal16};
        let mut annotations = Table::default();
        let annotation = annotations.push(Annotation {
            stack: vec![
                Arc::from("train#step_num=3,_r=1#"),
                Arc::from("inner#_a=2,step_name=s,group_id=4,keep=1#"),
            ]
            .into(),
            ..Annotation::default()
        });
        let mut names = Table::default();
        let name = names.push(Arc::from("hipLaunchKernel"));
        let mut shapes = Table::default();
        let shape = shapes.push(LaunchShape::default());
        let mut events = events_in_turn(1, |_| {
            DeviceEventKind::Kernel(KernelInfo {
                dispatch_id: 1,
                shape,
            })
        });
        events[0].correlation_id = 5;
        events[0].annotation = Some(annotation);
        let trace = Trace {
            names,
            annotations,
            shapes,
            start_boottime_ns: 1,
            host_threads: vec![HostThread {
                tid: 7,
                name: String::new(),
                events: vec![HostEvent {
                    name,
                    start_ns: 2,
                    end_ns: 3,
                    correlation_id: 5,
                    kind: HostEventKind::HipApi,
                    annotation: Some(annotation),
                    device: Ordinal16::NONE,
                    launched: crate::model::Launched::count(1),
                }],
            }],
            devices: vec![one_line(events)],
            ..Default::default()
        };
        let space = build_xspace(&trace);
        for plane in [&space.planes[0], gpu_plane(&space)] {
            let event = &plane.lines[0].events[0];
            let names: Vec<&str> = event
                .stats
                .iter()
                .map(|st| plane.stat_metadata[&st.metadata_id].name.as_str())
                .collect();
            for reserved in ["_r", "_a", "step_name", "group_id"] {
                assert!(!names.contains(&reserved), "{}: {names:?}", plane.name);
            }
            for kept in ["step_num", "keep", s::TF_OP] {
                assert!(names.contains(&kept), "{}: {names:?}", plane.name);
            }
        }
    }

    /// A run of ranges pushed with the same labels shares one list: the run costs one probe of
    /// the plane's lists, each range's stats still the list's own.
    #[test]
    fn a_run_of_one_label_list_probes_the_lists_once() {
        let one: Labels = vec![Arc::from("step#step_num=1#")].into();
        let mut plane = PlaneBuilder::new(0, "p");
        let mut cache = ListStats::default();
        let mut want = StatBytes::new();
        add_label_stats(&mut plane, &one, None, &mut want);
        for _ in 0..1000 {
            assert_eq!(cache.stats(&mut plane, &one), &want);
        }
        assert_eq!(cache.probes, 1);
        assert_eq!(cache.kept.len(), 1);
    }

    /// The ranges of many threads interleave on a device line, each thread's list its own:
    /// every list costs one probe of the plane's lists for the whole line (not one each time
    /// the line turns to another thread's), each range's stats still its list's own.
    #[test]
    fn interleaved_label_lists_probe_the_lists_once_each() {
        // 32 threads' lists, each in a slot of its own (as most are: the slots outnumber them).
        let mut lists: Vec<Labels> = Vec::new();
        let mut spare = Vec::new();
        while lists.len() < 32 {
            let l: Labels = vec![Arc::from(format!("step {}#step_num=1#", lists.len()))].into();
            let slot = recent_slot(Arc::as_ptr(&l).cast::<u8>() as usize);
            if lists
                .iter()
                .any(|o| recent_slot(Arc::as_ptr(o).cast::<u8>() as usize) == slot)
            {
                spare.push(l);
            } else {
                lists.push(l);
            }
        }
        let mut plane = PlaneBuilder::new(0, "p");
        let want: Vec<StatBytes> = lists
            .iter()
            .map(|l| {
                let mut b = StatBytes::new();
                add_label_stats(&mut plane, l, None, &mut b);
                b
            })
            .collect();
        let mut cache = ListStats::default();
        for _ in 0..100 {
            for (l, want) in lists.iter().zip(&want) {
                assert_eq!(cache.stats(&mut plane, l), want);
            }
        }
        assert_eq!(cache.probes, lists.len());
    }

    /// When the plane's lists start over past their bound, the lists met recently are
    /// forgotten with them: a list met before and again after gets its own stats (its old
    /// place is gone).
    #[test]
    fn label_lists_met_again_after_a_start_over_get_their_own_stats() {
        let name: Arc<str> = Arc::from("fill");
        let filler: Vec<Labels> = (1..MAX_LISTS).map(|_| vec![name.clone()].into()).collect();
        let last: Labels = vec![Arc::from("last#step_num=2#")].into();
        let key = |l: &Labels| Arc::as_ptr(l).cast::<u8>() as usize;
        // The list that starts over, in another slot than `last`'s.
        let over = loop {
            let l: Labels = vec![Arc::from("over")].into();
            if recent_slot(key(&l)) != recent_slot(key(&last)) {
                break l;
            }
        };
        let mut plane = PlaneBuilder::new(0, "p");
        let mut want = StatBytes::new();
        add_label_stats(&mut plane, &last, None, &mut want);
        let mut cache = ListStats::default();
        for l in &filler {
            cache.stats(&mut plane, l);
        }
        assert_eq!(cache.stats(&mut plane, &last), &want);
        assert_eq!(cache.kept.len(), MAX_LISTS);
        cache.stats(&mut plane, &over);
        assert_eq!(cache.kept.len(), 1, "started over");
        assert_eq!(cache.stats(&mut plane, &last), &want);
    }

    /// Every line of a plane walks the run and meets each label list again: each list is
    /// encoded once for the plane (three times as many lists as the slots that lost them
    /// before the next line came back), to the bytes a fresh encoding gives, and the lists
    /// kept stay within their bound.
    #[test]
    fn a_planes_label_lists_are_encoded_once_for_all_its_lines() {
        // Allocated one after another, as the join makes a run's lists.
        let lists = |n: usize| -> Vec<Labels> {
            (0..n)
                .map(|i| vec![Arc::from(format!("train_step {i}#step_num={i}#"))].into())
                .collect()
        };
        let run = lists(3 * SLOTS);
        let mut plane = PlaneBuilder::new(0, "p");
        let mut cache = ListStats::default();
        for line in 0..3 {
            for l in &run {
                let key = Arc::as_ptr(l).cast::<u8>() as usize;
                assert_eq!(cache.lists.contains_key(&key), line > 0, "line {line}");
                let mut want = StatBytes::new();
                add_label_stats(&mut plane, l, None, &mut want);
                assert_eq!(cache.stats(&mut plane, l), &want);
            }
        }
        let more = lists(MAX_LISTS + 10);
        for l in &more {
            cache.stats(&mut plane, l);
            assert!(cache.lists.len() <= MAX_LISTS);
        }
    }
}
