//! `/host:CPU`: a line per host thread with its HIP calls (and the anchors of the arrows that
//! start or end there), the thread's roctx lines beside it, and the memory timeline.

use crate::fastmap::{HashMap, HashSet};
use crate::model::corrmap::{id_range, CorrMap, IdSet};
use std::borrow::Cow;

use crate::model::{
    AnchorPlace, DeviceEventKind, HostEvent, HostEventKind, HostThread, MemcpyInfo, Trace,
};

use super::cache::EventCache;
use super::{anchor_only_lines, duration_ps, AnchorEvent, AnchorFeed, Timebase};
use crate::xplane::builder::{
    BuiltPlane, FinishedLine, Hot, LineBuilder, PlaneBuilder, StatBytes, StatIds, StatValue,
};
use crate::xplane::lanes::{range_stats, RoctxLines, RoctxShape};
use crate::xplane::run_ids::{finish_plane, new_plane, RunIds};
use crate::xplane::spill::SpillPolicy;
use crate::xplane::stats as s;
use crate::xplane::steps::{StepFinder, StepRoot, StepRoots};

/// The host threads' events as the planes read them, thread by thread in the trace's order:
/// borrowed from a trace that stays whole ([`HostEvents::of`]: a window that may be written
/// again), or taken out of it ([`HostEvents::take`]: the trace's last write), and then the
/// host plane frees each thread's once its lines are encoded. The joined trace is held whole
/// beside the planes being built otherwise: its host events are most of it on a call-heavy run.
pub struct HostEvents<'t> {
    threads: Vec<Cow<'t, [HostEvent]>>,
}

impl<'t> HostEvents<'t> {
    /// The events of `trace`'s threads, left in it.
    pub fn of(trace: &'t Trace) -> Self {
        HostEvents {
            threads: trace
                .host_threads
                .iter()
                .map(|t| Cow::Borrowed(t.events.as_slice()))
                .collect(),
        }
    }

    /// The events of `trace`'s threads, taken out of it (its threads are left without events).
    pub fn take(trace: &mut Trace) -> HostEvents<'static> {
        HostEvents {
            threads: trace
                .host_threads
                .iter_mut()
                .map(|t| Cow::Owned(std::mem::take(&mut t.events)))
                .collect(),
        }
    }

    /// Thread `i`'s events (`Trace::host_threads` order).
    pub(super) fn of_thread(&self, i: usize) -> &[HostEvent] {
        self.threads.get(i).map_or(&[], |e| e)
    }

    /// Every thread's events, in `Trace::host_threads` order.
    pub(super) fn threads(&self) -> impl Iterator<Item = &[HostEvent]> {
        self.threads.iter().map(|e| &**e)
    }

    /// Whether the host plane frees these events as it writes them (taken out of the trace).
    pub(super) fn freed_as_written(&self) -> bool {
        self.threads.iter().any(|e| matches!(e, Cow::Owned(_)))
    }

    /// Bytes of the events the host plane frees as it writes them (the owned ones).
    pub(super) fn owned_bytes(&self) -> u64 {
        self.threads
            .iter()
            .filter(|e| matches!(e, Cow::Owned(_)))
            .map(|e| std::mem::size_of_val(&**e) as u64)
            .sum()
    }

    /// Thread `i`'s events, handed over: owned ones are freed when the caller drops them.
    fn hand_over(&mut self, i: usize) -> Cow<'t, [HostEvent]> {
        self.threads
            .get_mut(i)
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

/// The first copy of each correlation id, so the host copy API can carry `memcpy_details`
/// like XLA's host events do. Only copies are kept: a table over every call's id (16 B each)
/// would be the largest thing the writer adds to the joined trace, and a call's device work
/// is already on its event (`HostEvent::launched`).
///
/// Every host event asks for its id. The copies are few and their ids spread over the whole
/// range, so a probe of their map per event would miss the cache. A bit per id of their
/// range answers first (a thread's ids rise, so its bits are read nearly in order); the map
/// is probed for the copies alone.
pub(super) struct FirstCopies<'t> {
    /// There are no copies: no event asks the set.
    none: bool,
    ids: IdSet,
    by_id: CorrMap<&'t MemcpyInfo>,
}

impl<'t> FirstCopies<'t> {
    pub(super) fn of(trace: &'t Trace) -> Self {
        // One walk over every device event, in plain loops (it is the one pass over them all
        // before the planes); the copies, few, are walked again for the range.
        let mut copies: Vec<(u64, &MemcpyInfo)> = Vec::new();
        for line in trace.devices.iter().flat_map(|d| &d.lines) {
            for e in &line.events {
                if let DeviceEventKind::Memcpy(m) = &e.kind {
                    if e.correlation_id != 0 {
                        copies.push((e.correlation_id, &**m));
                    }
                }
            }
        }
        let none = copies.is_empty();
        let range = id_range(copies.iter().map(|&(id, _)| id));
        let mut ids = IdSet::for_range(range, copies.len());
        let mut by_id = CorrMap::for_range(range, copies.len());
        for (id, m) in copies {
            ids.insert(id);
            by_id.get_or_insert_with(id, || m);
        }
        FirstCopies { none, ids, by_id }
    }

    fn get(&self, correlation_id: u64) -> Option<&'t MemcpyInfo> {
        if self.none || correlation_id == 0 || !self.ids.contains(correlation_id) {
            return None;
        }
        self.by_id.get(&correlation_id).copied()
    }
}

/// What the planes read off the host threads' events before any plane is built, in one walk
/// over them (a plain loop, every event's kind read once):
/// * `steps`: each thread's step roots (`xplane::steps`);
/// * each thread's calls and roctx events, which its lines are sized and dealt by.
pub(super) struct HostSurvey {
    pub steps: StepRoots,
    /// By `Trace::host_threads` index.
    threads: Vec<ThreadShape>,
}

/// What a thread's lines are sized and dealt by: how many HIP calls it made (its API line's
/// events), and its roctx events (`RoctxLines`).
#[derive(Default)]
struct ThreadShape {
    calls: usize,
    roctx: RoctxShape,
}

impl HostSurvey {
    pub(super) fn of(trace: &Trace, host: &HostEvents) -> Self {
        let mut steps = StepFinder::new(trace);
        let mut threads = Vec::with_capacity(trace.host_threads.len());
        for (i, t) in trace.host_threads.iter().enumerate() {
            let events = host.of_thread(i);
            let mut roctx = RoctxShape::default();
            for e in events {
                if let (Some((process_wide, span)), range) = roctx_parts(e) {
                    roctx.add(process_wide, span);
                    if let Some(r) = range {
                        steps.range(e, r);
                    }
                }
            }
            steps.end_thread(t.tid, events);
            // Every event is a call or a roctx event.
            let calls = events.len() - roctx.len();
            threads.push(ThreadShape { calls, roctx });
        }
        HostSurvey {
            steps: steps.finish(),
            threads,
        }
    }

    /// Thread `i`'s shape (`Trace::host_threads` order).
    fn thread(&self, i: usize) -> Option<&ThreadShape> {
        self.threads.get(i)
    }
}

/// The HIP calls with a correlation id on the host plane.
fn host_api_events<'a>(host: &'a HostEvents) -> impl Iterator<Item = &'a HostEvent> {
    host.threads()
        .flatten()
        .filter(|e| e.correlation_id != 0 && e.kind == HostEventKind::HipApi)
}

/// How many events ahead the host plane asks for a sync call's record: a thread's sync calls
/// lie among every thread's, in id order, so each read would miss the cache, and an event
/// takes longer to write than a miss to arrive.
const SYNC_PREFETCH_AHEAD: usize = 4;

/// The sync calls a run has at most for the host plane not to ask for them ahead: their
/// records (56 B each) and their index fit in a core's own caches.
const SYNC_PREFETCH_PAST: usize = 1024;

/// What the host plane alone looks up beside its threads' events, made from them before any
/// plane is built: the first copy of each call, and each thread's step roots and shape.
pub(super) struct HostLookups<'a, 't> {
    pub copies: &'a FirstCopies<'t>,
    pub survey: &'a HostSurvey,
    /// Told of each thread's events freed (the device planes built beside this one wait on it).
    pub freed: &'a super::threads::HostProgress,
}

/// The host plane, each thread's events (`host`) dropped once its lines are encoded.
pub(super) fn host_plane(
    trace: &Trace,
    mut host: HostEvents,
    base: &Timebase,
    lookups: HostLookups<'_, '_>,
    anchors: &HashMap<AnchorPlace, Vec<AnchorEvent>>,
    spill: Option<&SpillPolicy>,
    run: Option<&RunIds>,
) -> BuiltPlane {
    let HostLookups {
        copies,
        survey,
        freed,
    } = lookups;
    let syncs = crate::xplane::deps::SyncIndex::new(trace);
    // A few sync calls stay in the cache once read: asked for ahead only when there are more.
    let prefetch_syncs = trace.sync_calls.len() > SYNC_PREFETCH_PAST;
    let mut plane = new_plane(run, 0, s::HOST_PLANE.to_string());
    plane.spill_lines(spill.cloned());
    let mut cache = EventCache::new(trace);
    let mut ids = StatIds::default();
    // The memory line comes last, after the threads' events are gone: its calls first.
    let memory_calls = memory_calls(trace, &host);
    let mut threads: Vec<(usize, &HostThread)> = trace.host_threads.iter().enumerate().collect();
    threads.sort_by_key(|(_, t)| t.tid);
    let mut stats = StatBytes::new();
    for (i, t) in threads {
        let events = host.hand_over(i);
        let tid = t.tid as i64;
        let mut api = base.line(tid, format!("Host Threads/{}", t.tid));
        let mut feed = AnchorFeed::new(anchors.get(&AnchorPlace::Host { tid: t.tid }));
        let roots = survey.steps.of_thread(t.tid);
        let no_shape = ThreadShape::default();
        let shape = survey.thread(i).unwrap_or(&no_shape);
        // XLA writes display_name = name on host lines; a known thread name is more useful.
        let display = if t.name.is_empty() {
            None
        } else if t.name.ends_with(&t.tid.to_string()) {
            Some(t.name.clone())
        } else {
            Some(format!("{}/{}", t.name, t.tid))
        };
        api.set_display_name(
            display
                .clone()
                .unwrap_or_else(|| format!("Host Threads/{}", t.tid)),
        );
        let mut roctx = RoctxLines::new(t.tid, display, base.line_ts_ns, &shape.roctx)
            .noting_places(base.placed);
        api.expect_events(shape.calls + feed.count() + roots.len());
        for (i, e) in events.iter().enumerate() {
            if prefetch_syncs {
                if let Some(ahead) = events.get(i + SYNC_PREFETCH_AHEAD) {
                    syncs.prefetch(ahead.correlation_id);
                }
            }
            if let Some(ahead) = events.get(i + super::ANNOTATION_PREFETCH_AHEAD) {
                cache.prefetch_annotation(ahead.annotation);
            }
            stats.clear();
            let (span, range) = roctx_parts(e);
            // `correlation_id` on every HIP call, as XLA writes it. xprof turns each into a
            // launch-flow start; one without device work has no end, and xprof 2.24.2 keeps it
            // as a lone start that draws nothing (checked in tests/e2e_deps.rs).
            if span.is_none() && e.correlation_id != 0 {
                stats.u64(ids.hot(&mut plane, Hot::CorrelationId), e.correlation_id);
                crate::xplane::deps::add_sync_stats(
                    &mut plane,
                    &mut ids,
                    syncs.get(e.correlation_id),
                    &mut stats,
                );
            }
            if let Some(dev) = e.device.get() {
                stats.u64(ids.hot(&mut plane, Hot::DeviceId), u64::from(dev));
            }
            if let Some(m) = copies.get(e.correlation_id) {
                cache.memcpy_stats(&mut plane, m, &mut stats);
            }
            let (activity_count, graph) = trace.launched(e);
            if activity_count > 1 {
                stats.u64(
                    ids.hot(&mut plane, Hot::ActivityCount),
                    u64::from(activity_count),
                );
            }
            if let Some(g) = graph {
                stats.u64(ids.hot(&mut plane, Hot::GraphExecId), g.id());
                // xprof's names for the same id (`xplane::stats`).
                stats.u64(ids.hot(&mut plane, Hot::CudaGraphId), g.id());
                stats.u64(ids.hot(&mut plane, Hot::CudaGraphExecId), g.id());
            }
            if let Some(r) = range {
                range_stats(&mut plane, &mut ids, e.scope_id(), &r, &mut stats);
            }
            cache.annotation_stats(&mut plane, &mut ids, e.annotation, &mut stats);
            let id = cache.host_name_id(&mut plane, e.name);
            let start = base.offset_ps(e.start_ns);
            match span {
                None => {
                    let dur = duration_ps(e.start_ns, e.end_ns);
                    feed.before(&mut plane, &mut ids, &mut api, start, |t| base.offset_ps(t));
                    api.add_event(id, start, dur, &stats)
                }
                // A mark's span ends where it starts: its duration is 0.
                Some((process_wide, span)) => {
                    let dur = duration_ps(span.0, span.1);
                    roctx.add(process_wide, span, id, start, dur, &stats)
                }
            }
        }
        feed.finish(&mut plane, &mut ids, &mut api, |t| base.offset_ps(t));
        for root in roots {
            step_root(&mut plane, &mut ids, &mut api, base, root, &mut stats);
        }
        // A thread line is written even when empty: the thread made traced calls.
        plane.add_line(api.finish());
        for line in roctx.finish() {
            plane.add_line(line);
        }
        if let Cow::Owned(events) = events {
            let bytes = std::mem::size_of_val(events.as_slice());
            drop(events);
            freed.freed(bytes as u64);
        }
    }
    // Anchors on a thread with no call in this window.
    anchor_only_lines(&mut plane, &mut ids, base, anchors, |place| match *place {
        AnchorPlace::Host { tid } if trace.host_threads.iter().all(|t| t.tid != tid) => {
            Some((tid as i64, format!("Host Threads/{tid}")))
        }
        _ => None,
    });
    if let Some(line) = memory_line(trace, &memory_calls, base, &mut plane) {
        plane.add_line(line);
    }
    finish_plane(run, plane)
}

/// A step's root on its thread's API line (`xplane::steps`): `_r`, `step_num` when known, and
/// never `group_id` (xprof takes a file with `group_id` as grouped already, and then draws no
/// launch arrows and derives no step rows).
fn step_root(
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
    api: &mut LineBuilder,
    base: &Timebase,
    root: &StepRoot,
    stats: &mut StatBytes,
) {
    stats.clear();
    stats.i64(ids.get(plane, s::STEP_ROOT_LEVEL), root.mark.root_level);
    if let Some(n) = root.mark.step_num {
        stats.i64(ids.get(plane, s::STEP_NUM), n);
    }
    if root.open_at_end {
        stats.open_at_end(ids.get(plane, s::OPEN_AT_END));
    }
    let id = plane.event_metadata_id(&root.mark.name);
    let start = base.offset_ps(root.span.start_ns);
    let dur = duration_ps(root.span.start_ns, root.span.end_ns);
    api.add_event(id, start, dur, stats);
}

/// A roctx event's group (start/stop ranges are process-wide) and span (start, end) on its
/// thread's lines.
type RoctxSpan = (bool, (u64, u64));

/// The event's [`RoctxSpan`] (`None` for a HIP call) and, for a range, its flags: the
/// event's kind read once.
#[inline]
fn roctx_parts(
    e: &crate::model::HostEvent,
) -> (Option<RoctxSpan>, Option<crate::model::RangeInfo>) {
    match e.kind {
        HostEventKind::HipApi => (None, None),
        HostEventKind::Marker => (Some((false, (e.start_ns, e.start_ns))), None),
        HostEventKind::MarkerRange(r) => (Some((r.process_wide, (e.start_ns, e.end_ns))), Some(r)),
    }
}

/// The allocation calls of the memory timeline, by correlation id. Only those: a program
/// that allocates now and then has millions of other calls, and a table of them all sat at the
/// writer's peak (`peak_guard`).
fn memory_calls(trace: &Trace, host: &HostEvents) -> HashMap<u64, HostEvent> {
    if trace.memory.is_empty() {
        return HashMap::default();
    }
    let wanted: HashSet<u64> = trace.memory.iter().map(|m| m.correlation_id).collect();
    host_api_events(host)
        .filter(|e| wanted.contains(&e.correlation_id))
        .map(|e| (e.correlation_id, *e))
        .collect()
}

/// The allocation timeline as xprof's memory profile reads it: one zero-length
/// `MemoryAllocation` / `MemoryDeallocation` event per call, with the allocator's totals after
/// it. `tf_op` names what allocated: the innermost roctx range of the call, else the HIP call.
fn memory_line(
    trace: &Trace,
    calls: &HashMap<u64, HostEvent>,
    base: &Timebase,
    plane: &mut PlaneBuilder,
) -> Option<FinishedLine> {
    if trace.memory.is_empty() {
        return None;
    }
    let capacity: HashMap<String, u64> = trace
        .devices
        .iter()
        .filter(|d| d.memory_bytes > 0)
        .map(|d| (format!("GPU_{}", d.ordinal), d.memory_bytes))
        .collect();
    let mut line = base.line(s::MEMORY_LINE_ID, "Memory (HIP allocations)");
    for m in &trace.memory {
        let call = calls.get(&m.correlation_id);
        let api = call.map_or(if m.alloc { "alloc" } else { "free" }, |e| trace.name(e));
        let op = call
            .and_then(|e| trace.annotation(e.annotation))
            .and_then(|a| a.stack.last())
            .map_or(api, |l| l.as_ref());
        let mut stats = StatBytes::new();
        for (name, value) in [
            (s::ALLOCATOR_NAME, StatValue::Ref(&m.allocator)),
            (s::BYTES_RESERVED, StatValue::I64(0)),
            (s::BYTES_ALLOCATED, StatValue::I64(m.in_use as i64)),
            (s::PEAK_BYTES_IN_USE, StatValue::I64(m.peak as i64)),
            (s::REQUESTED_BYTES, StatValue::I64(m.bytes as i64)),
            (s::ALLOCATION_BYTES, StatValue::I64(m.bytes as i64)),
            // xprof reads these with `IntValue()`: int64 (a uint64 would read as 0).
            (s::ADDRESS, StatValue::I64(m.address as i64)),
            (s::TF_OP, StatValue::Ref(op)),
            (s::REGION_TYPE, StatValue::Ref(m.kind.name())),
            (s::DATA_TYPE, StatValue::I64(0)),
            (s::TENSOR_SHAPE, StatValue::Ref("")),
            (s::CORRELATION_ID, StatValue::U64(m.correlation_id)),
        ] {
            plane.put(&mut stats, name, value);
        }
        if let Some(cap) = capacity.get(m.allocator.as_ref()) {
            plane.put(
                &mut stats,
                s::BYTES_AVAILABLE,
                StatValue::I64(cap.saturating_sub(m.in_use) as i64),
            );
        }
        let name = if m.alloc {
            s::MEMORY_ALLOCATION
        } else {
            s::MEMORY_DEALLOCATION
        };
        let id = plane.event_metadata_id(name);
        line.add_event(id, base.offset_ps(m.time_ns), 0, &stats);
    }
    Some(line.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Ordinal16, RangeInfo, Table, WrittenCalls};
    use std::sync::Arc;

    /// A trace's own written calls (`WrittenCalls::of_host`) are every HIP call's id, whatever
    /// the order of a thread's ids, and the earlier windows' ids; no roctx span's id. The
    /// survey counts each thread's calls and roctx events.
    #[test]
    fn every_call_is_written_whatever_the_order_of_its_thread_s_ids() {
        let mut names = Table::default();
        let name = names.push(Arc::from("hipLaunchKernel"));
        let event = |correlation_id: u64, kind: HostEventKind| HostEvent {
            name,
            start_ns: correlation_id,
            end_ns: correlation_id + 1,
            correlation_id,
            kind,
            annotation: None,
            device: Ordinal16::NONE,
            launched: crate::model::Launched::count(1),
        };
        let span = HostEventKind::MarkerRange(RangeInfo::default());
        let thread = |tid: u64, events: Vec<HostEvent>| HostThread {
            tid,
            name: String::new(),
            events,
        };
        let trace = Trace {
            names,
            host_threads: vec![
                // Ids out of order: 2 and 900 lie outside the first and last calls' 10..=50.
                thread(
                    1,
                    vec![
                        event(7, span),
                        event(10, HostEventKind::HipApi),
                        event(900, HostEventKind::HipApi),
                        event(2, HostEventKind::HipApi),
                        event(0, HostEventKind::HipApi),
                        event(50, HostEventKind::HipApi),
                        event(60, span),
                    ],
                ),
                thread(2, vec![event(30, HostEventKind::HipApi)]),
                thread(3, vec![event(40, span)]),
                thread(4, Vec::new()),
            ],
            ..Default::default()
        };
        let survey = HostSurvey::of(&trace, &HostEvents::of(&trace));
        let set = WrittenCalls::of_host(&trace.host_threads, vec![1, 5_000]);
        for id in [1, 2, 10, 30, 50, 900, 5_000] {
            assert!(set.contains(id), "{id}");
        }
        for id in [0, 3, 7, 40, 60, 899] {
            assert!(!set.contains(id), "{id}");
        }
        // Each thread's API line is sized for its calls (one without an id too) and its roctx
        // lines for its spans, by the thread's place in the trace.
        let shapes: Vec<(usize, usize)> = (0..4)
            .map(|i| {
                let t = survey.thread(i).expect("a shape per thread");
                (t.calls, t.roctx.len())
            })
            .collect();
        assert_eq!(shapes, [(5, 2), (1, 0), (0, 1), (0, 0)]);
        assert!(survey.thread(4).is_none());
    }
}
