//! `Trace` → `XSpace`: the planes, lines, events and stats xprof's tools read.
//!
//! The file gets none of the post-processing XLA's `ProfilerSession` applies before saving, so
//! this writes that final shape directly: host API events already in `/host:CPU`, line
//! timestamps relative to the profile start, events sorted per line.

use crate::fastmap::{HashMap, HashSet};
use crate::model::annotations::Labels;
use crate::model::corrmap::{id_range, CorrMap, IdSet};
use std::sync::Arc;

use super::annotation::{parse_annotation, ParsedValue};
use super::builder::{
    fibonacci_slot, BuiltPlane, FinishedLine, LineBuilder, PlaneBuilder, StatBytes, StatIds,
    StatValue,
};
use super::deps::AnchorFeed;
use super::lanes::{range_stats, RoctxLines};
use super::proto::{x_stat, XSpace, XStat};
use super::run_ids::{finish_plane, new_plane, RunIds};
use super::spill::SpillPolicy;
use super::stats as s;
use crate::model::{
    AnchorPlace, Annotation, CopyDirection, Counters, Device, DeviceEventKind, DeviceLine,
    HostEventKind, HostThread, Id, LaunchShape, MemcpyInfo, Name, Table, Trace,
};

/// Roctx ranges and marks of thread `tid` go on their own line, id `tid | MARKER_LINE_BIT`:
/// start/stop ranges need not nest with the API calls, so sharing a row would mis-nest them.
/// xprof's trace viewer keys rows by the line id truncated to 32 bits (seen with xprof 2.24.2:
/// a line `tid + 2^32`, as XLA uses for NVTX, lands in the same row as `tid`), so the bit must
/// lie below 2^31; Linux thread ids stay below 2^22, and a positive 32-bit id is never in
/// xprof's derived-line range (negative as int32).
pub const MARKER_LINE_BIT: i64 = 1 << 30;

/// Builds the XSpace for one process. Pure: the same trace gives the same bytes.
pub fn build_xspace(trace: &Trace) -> XSpace {
    let mut planes = Vec::new();
    let mut space = build_planes(trace, |p| {
        planes.push(p.into_xplane());
        Ok::<(), std::convert::Infallible>(())
    })
    .unwrap_or_else(|e| match e {});
    space.planes = planes;
    space
}

/// Builds the planes one at a time, handing each to `sink` before the next is built (the file
/// writer encodes and writes it, then drops it: only one plane is ever in memory), and returns
/// the rest of the XSpace (warnings, host names) with no planes. The planes come in the order
/// `build_xspace` lists them, so the bytes are the same either way.
pub fn build_planes<E>(
    trace: &Trace,
    sink: impl FnMut(BuiltPlane) -> Result<(), E>,
) -> Result<XSpace, E> {
    build_planes_spilling(trace, None, 1, sink)
}

/// As [`build_planes`], the host and device planes' lines set aside in a file past a size
/// (`spill`, see `xplane::spill`) while each plane is built: the same bytes, the writer's peak
/// one line instead of the largest plane. With an output file in `spill`, those lines go
/// straight into it instead: `sink` must then have written each plane there, flushed, before
/// it returns, so the next plane starts where it belongs; the planes are then the same but for
/// their padded lengths.
///
/// With `threads` above 1, the device planes are built on that many threads less one while
/// this thread builds the host plane, which then takes device planes too: each plane is built
/// from the trace alone, so the planes are the same as one thread's, and they reach `sink` in
/// the same order; only the host plane's lines may go into an output file (the device planes
/// are built while it is), so a device plane's length is then unpadded. A device plane
/// finished before its turn waits with at most the spill size of its lines in memory (the rest
/// in its file): the memory held grows by a plane being built per thread and by up to the
/// spill size per waiting plane.
pub fn build_planes_spilling<E>(
    trace: &Trace,
    spill: Option<&SpillPolicy>,
    threads: usize,
    sink: impl FnMut(BuiltPlane) -> Result<(), E>,
) -> Result<XSpace, E> {
    build_window_planes(trace, spill, threads, None, sink)
}

/// As [`build_planes_spilling`], for a window of a run whose windows are to be merged (`run`):
/// the host and device planes number their names as the run's earlier windows did, and times
/// start at the run's origin (`xplane::RunIds`).
pub fn build_window_planes<E>(
    trace: &Trace,
    spill: Option<&SpillPolicy>,
    threads: usize,
    run: Option<&RunIds>,
    mut sink: impl FnMut(BuiltPlane) -> Result<(), E>,
) -> Result<XSpace, E> {
    let base = Timebase::new(trace, run);
    let copies = FirstCopies::of(trace);
    let launched = host_calls_by_correlation(trace);
    let anchors = super::deps::anchors_by_place(trace);

    // Each plane's place in the output: the host plane first, then the devices in order. A
    // plane writes into the output only in its turn (`spill::OutputTurn`), so one built while
    // another is sets its lines aside until then.
    let host_spill = spill.map(|s| s.for_plane(0));
    let host = || host_plane(trace, &base, &copies, &anchors, host_spill.as_ref(), run);
    let device = |(i, d): (usize, &Device)| {
        let spill = spill.map(|s| s.for_plane(1 + i));
        device_plane(trace, d, &base, &launched, &anchors, spill.as_ref(), run)
    };
    if threads <= 1 || trace.devices.is_empty() {
        sink(host())?;
        for d in trace.devices.iter().enumerate() {
            sink(device(d))?;
        }
    } else {
        DevicePlanes::new(&trace.devices).build(threads - 1, &device, host, &mut sink)?;
    }
    if let Some(p) = scope_tree_plane(&trace.scope_tree) {
        sink(p)?;
    }
    sink(task_environment_plane(trace, &base))?;

    let mut warnings = trace.warnings.clone();
    warnings.extend(counter_warnings(&trace.counters));
    if base.early_ns > 0 {
        warnings.push(format!(
            "rocprof-xplane: events began {} ns before the profile start; the time origin was moved back to the earliest event",
            base.early_ns
        ));
    }

    Ok(XSpace {
        planes: Vec::new(),
        errors: Vec::new(),
        warnings,
        hostnames: if trace.hostname.is_empty() {
            Vec::new()
        } else {
            vec![trace.hostname.clone()]
        },
    })
}

/// Bytes a line being built holds per event, at most: its encoded events (about 40–60 B) and
/// the arena's room for those still to come.
const LINE_BYTES_PER_EVENT: u64 = 96;

/// What building the device planes on `workers` threads beside the host plane adds to the
/// writer's memory, at most: on each worker the largest device plane being built (its largest
/// line whole, and up to the spill size of its finished lines), and every device plane finished
/// before its turn (up to the spill size of its lines each).
pub fn parallel_planes_bytes(trace: &Trace, workers: usize) -> u64 {
    let spill = super::spill::SPILL_PAST as u64;
    let line = |l: &DeviceLine| l.events.len() as u64 * LINE_BYTES_PER_EVENT;
    let plane = |d: &Device| d.lines.iter().map(line).sum::<u64>();
    let building = trace
        .devices
        .iter()
        .map(|d| d.lines.iter().map(line).max().unwrap_or(0) + plane(d).min(spill))
        .max()
        .unwrap_or(0);
    let waiting: u64 = trace.devices.iter().map(|d| plane(d).min(spill)).sum();
    building * workers.min(trace.devices.len()) as u64 + waiting
}

/// The device planes handed out to the threads that build them, by a counter: a plane is
/// claimed once, by the first thread to ask, and the planes reach the sink in ordinal order.
struct DevicePlanes<'t> {
    devices: &'t [Device],
    next: std::sync::atomic::AtomicUsize,
}

impl<'t> DevicePlanes<'t> {
    fn new(devices: &'t [Device]) -> Self {
        DevicePlanes {
            devices,
            next: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The next unclaimed device, as its index.
    fn claim(&self) -> Option<usize> {
        let i = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        (i < self.devices.len()).then_some(i)
    }

    /// No device is handed out after this (the sink failed: what is built is not written).
    fn close(&self) {
        self.next
            .store(self.devices.len(), std::sync::atomic::Ordering::Relaxed);
    }

    /// `workers` threads build device planes while this one builds the host plane (`host`),
    /// sinks it, and then builds the planes still unclaimed, sinking each in order as soon as
    /// the planes before it are in. A worker that cannot be started, or that ends without
    /// handing in its plane (a panic), leaves its planes to this thread.
    fn build<E>(
        &self,
        workers: usize,
        device: &(impl Fn((usize, &Device)) -> BuiltPlane + Sync),
        host: impl FnOnce() -> BuiltPlane,
        sink: &mut impl FnMut(BuiltPlane) -> Result<(), E>,
    ) -> Result<(), E> {
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel::<(usize, BuiltPlane)>();
            let mut started = Vec::new();
            for _ in 0..workers.min(self.devices.len()) {
                let tx = tx.clone();
                let spawned = std::thread::Builder::new()
                    .name("rocprof-xplane-planes".into())
                    .spawn_scoped(scope, move || {
                        let timer = crate::measure::helper_start();
                        while let Some(i) = self.claim() {
                            if tx.send((i, device((i, &self.devices[i])))).is_err() {
                                break;
                            }
                        }
                        crate::measure::helper_done(timer);
                    });
                match spawned {
                    Ok(handle) => started.push(handle),
                    Err(e) => {
                        crate::log_debug!("building the device planes on fewer threads: {e}");
                        break;
                    }
                }
            }
            drop(tx);
            let sunk = self.sink_in_order(device, host, &rx, sink);
            if sunk.is_err() {
                self.close();
            }
            drop(rx);
            // Joined here, so a worker's panic (its plane then built by this thread) is
            // reported rather than raised again as the scope ends.
            for worker in started {
                if worker.join().is_err() {
                    crate::log_debug!(
                        "a device plane thread panicked; its planes were built again"
                    );
                }
            }
            sunk
        })
    }

    fn sink_in_order<E>(
        &self,
        device: &impl Fn((usize, &Device)) -> BuiltPlane,
        host: impl FnOnce() -> BuiltPlane,
        rx: &std::sync::mpsc::Receiver<(usize, BuiltPlane)>,
        sink: &mut impl FnMut(BuiltPlane) -> Result<(), E>,
    ) -> Result<(), E> {
        sink(host())?;
        let mut waiting: Vec<Option<BuiltPlane>> = Vec::new();
        waiting.resize_with(self.devices.len(), || None);
        for want in 0..self.devices.len() {
            let plane = loop {
                // Planes the workers finished first: the next in order is written before any
                // more work is taken, since the plane after it may take the output only then
                // (`spill::OutputTurn`). Left in the channel, they waited for this thread to
                // build a plane more, and a worker's plane past the spill size was set aside
                // to its end.
                while let Ok((i, p)) = rx.try_recv() {
                    waiting[i] = Some(p);
                }
                if let Some(p) = waiting[want].take() {
                    break p;
                }
                // Work first, wait only when nothing is left to claim.
                let (i, p) = match self.claim() {
                    Some(i) => (i, device((i, &self.devices[i]))),
                    None => match rx.recv() {
                        Ok(got) => got,
                        // Every worker has ended and this plane never came: build it here.
                        Err(_) => (want, device((want, &self.devices[want]))),
                    },
                };
                waiting[i] = Some(p);
            };
            sink(plane)?;
        }
        Ok(())
    }
}

/// Converts `CLOCK_BOOTTIME` ns to the offsets written in lines.
struct Timebase {
    /// Every line's `timestamp_ns` is 0 and event offsets are `(t - origin_ns) * 1000` ps.
    origin_ns: u64,
    /// How far events began before the start (warned of).
    early_ns: u64,
}

impl Timebase {
    /// The trace's own origin or, for a window of a run to be merged, the run's (at or before
    /// the window's own).
    fn new(trace: &Trace, run: Option<&RunIds>) -> Self {
        let own = Self::own(trace);
        let Some(origin_ns) = run.map(|r| r.origin_ns(own.origin_ns)) else {
            return own;
        };
        Timebase {
            origin_ns,
            early_ns: own.early_ns,
        }
    }

    /// How far the origin lies before `trace.start_boottime_ns` (events before the start, or
    /// a window on its run's clock): what the wall-clock start is moved back by.
    fn before_start_ns(&self, trace: &Trace) -> u64 {
        trace.start_boottime_ns.saturating_sub(self.origin_ns)
    }

    fn own(trace: &Trace) -> Self {
        if trace.start_covers_events {
            // The join walked every event for this answer (the MaxText-sized run's 8.8 M,
            // walked again here before any plane could start).
            debug_assert!(
                Self::earliest(trace).is_none_or(|e| e >= trace.start_boottime_ns),
                "an event starts before the trace's start"
            );
            return Timebase {
                origin_ns: trace.start_boottime_ns,
                early_ns: 0,
            };
        }
        match Self::earliest(trace) {
            // No profile start recorded (e.g. a converter that knows only the events): start
            // at the first event, never at boot, whose offsets could overflow int64 ps.
            Some(e) if trace.start_boottime_ns == 0 => Timebase {
                origin_ns: e,
                early_ns: 0,
            },
            Some(e) if e < trace.start_boottime_ns => Timebase {
                origin_ns: e,
                early_ns: trace.start_boottime_ns - e,
            },
            _ => Timebase {
                origin_ns: trace.start_boottime_ns,
                early_ns: 0,
            },
        }
    }

    /// The earliest event's start, walking every event.
    fn earliest(trace: &Trace) -> Option<u64> {
        trace
            .devices
            .iter()
            .flat_map(|d| {
                d.lines
                    .iter()
                    .flat_map(|l| l.events.iter().map(|e| e.start_ns))
            })
            .chain(
                trace
                    .host_threads
                    .iter()
                    .flat_map(|t| t.events.iter().map(|e| e.start_ns)),
            )
            .min()
    }

    fn offset_ps(&self, t_ns: u64) -> i64 {
        ps(t_ns.saturating_sub(self.origin_ns))
    }
}

fn ps(ns: u64) -> i64 {
    i64::try_from(u128::from(ns) * 1000).unwrap_or(i64::MAX)
}

fn duration_ps(start_ns: u64, end_ns: u64) -> i64 {
    ps(end_ns.saturating_sub(start_ns))
}

/// The first copy of each correlation id, so the host copy API can carry `memcpy_details`
/// like XLA's host events do. Only copies are kept: a table over every call's id (16 B each)
/// was the largest thing the writer added to the joined trace (150 MB on the MaxText-sized
/// run), and a call's device work is already on its event (`activity_count`).
///
/// Every host event asks for its id. The copies are few and their ids spread over the whole
/// range, so the map is hashed, and a probe per event missed the cache: 28 % of the host
/// plane's samples on the MaxText-sized run (`perf annotate`, seventeenth session). A bit per
/// id of their range answers first (a thread's ids rise, so its bits are read nearly in
/// order); the map is probed for the copies alone.
struct FirstCopies<'t> {
    ids: IdSet,
    by_id: CorrMap<&'t MemcpyInfo>,
}

impl<'t> FirstCopies<'t> {
    fn of(trace: &'t Trace) -> Self {
        // One walk over every device event; the copies, few, are walked again for the range.
        let copies: Vec<(u64, &MemcpyInfo)> = trace
            .devices
            .iter()
            .flat_map(|d| &d.lines)
            .flat_map(|l| &l.events)
            .filter(|e| e.correlation_id != 0)
            .filter_map(|e| match &e.kind {
                DeviceEventKind::Memcpy(m) => Some((e.correlation_id, &**m)),
                _ => None,
            })
            .collect();
        let range = id_range(copies.iter().map(|&(id, _)| id));
        let mut ids = IdSet::for_range(range, copies.len());
        let mut by_id = CorrMap::for_range(range, copies.len());
        for (id, m) in copies {
            ids.insert(id);
            by_id.get_or_insert_with(id, || m);
        }
        FirstCopies { ids, by_id }
    }

    fn get(&self, correlation_id: u64) -> Option<&'t MemcpyInfo> {
        if correlation_id == 0 || !self.ids.contains(correlation_id) {
            return None;
        }
        self.by_id.get(&correlation_id).copied()
    }
}

/// Correlation ids of the HIP calls written on the host plane, or by an earlier window of the
/// same profile (`Trace::launched_earlier`): only a device event whose call is among them may
/// carry `correlation_id` (a launch-flow end needs its start). A bit per id
/// of their range, its bounds and their count found in one walk: the device planes' threads
/// wait for this set. A map over the ids, found in three walks, took 118 of the finalize
/// thread's 1,672 samples in the MaxText-sized run's write, this 80 (`ci/perf-pass.sh
/// scenarios/maxtext-scale.toml 'rocprof_xplane::xplane::'`, seventeenth session).
fn host_calls_by_correlation(trace: &Trace) -> IdSet {
    let mut count = 0usize;
    let ids = || {
        host_api_events(trace)
            .map(|e| e.correlation_id)
            .chain(trace.launched_earlier.iter().copied())
    };
    let range = id_range(ids().inspect(|_| count += 1));
    let mut set = IdSet::for_range(range, count);
    for id in ids() {
        set.insert(id);
    }
    set
}

/// The HIP calls with a correlation id on the host plane.
fn host_api_events(trace: &Trace) -> impl Iterator<Item = &crate::model::HostEvent> {
    trace
        .host_threads
        .iter()
        .flat_map(|t| &t.events)
        .filter(|e| e.correlation_id != 0 && e.kind == HostEventKind::HipApi)
}

/// How many events ahead the host plane asks for a sync call's record: a thread's sync calls
/// lie among every thread's, in id order, so each read missed the cache (about 70 % of
/// `add_sync_stats`' samples on the MaxText-sized run), and an event takes longer to write
/// than a miss to arrive.
const SYNC_PREFETCH_AHEAD: usize = 4;

fn host_plane(
    trace: &Trace,
    base: &Timebase,
    copies: &FirstCopies<'_>,
    anchors: &HashMap<AnchorPlace, Vec<super::deps::AnchorEvent>>,
    spill: Option<&SpillPolicy>,
    run: Option<&RunIds>,
) -> BuiltPlane {
    let syncs = super::deps::SyncIndex::new(trace);
    let mut plane = new_plane(run, 0, s::HOST_PLANE.to_string());
    plane.spill_lines(spill.cloned());
    let mut cache = EventCache::new(trace);
    let mut ids = StatIds::default();
    let mut threads: Vec<&HostThread> = trace.host_threads.iter().collect();
    threads.sort_by_key(|t| t.tid);
    let mut stats = StatBytes::new();
    for t in threads {
        let tid = t.tid as i64;
        let mut api = LineBuilder::new(tid, format!("Host Threads/{}", t.tid), 0);
        let mut feed = AnchorFeed::new(anchors.get(&AnchorPlace::Host { tid: t.tid }));
        api.expect_events(
            t.events
                .iter()
                .filter(|e| e.kind == HostEventKind::HipApi)
                .count()
                + feed.count(),
        );
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
        let mut roctx = RoctxLines::new(t.tid, display, t.events.iter().filter_map(roctx_span));
        for (i, e) in t.events.iter().enumerate() {
            if let Some(ahead) = t.events.get(i + SYNC_PREFETCH_AHEAD) {
                syncs.prefetch(ahead.correlation_id);
            }
            stats.clear();
            // `correlation_id` on every HIP call, as XLA writes it. xprof turns each into a
            // launch-flow start; one without device work has no end, and xprof 2.24.2 keeps it
            // as a lone start that draws nothing (checked in tests/e2e_deps.rs).
            if e.correlation_id != 0 && e.kind == HostEventKind::HipApi {
                stats.u64(ids.get(&mut plane, s::CORRELATION_ID), e.correlation_id);
                super::deps::add_sync_stats(
                    &mut plane,
                    &mut ids,
                    syncs.get(e.correlation_id),
                    &mut stats,
                );
            }
            if let Some(dev) = e.device.get() {
                stats.u64(ids.get(&mut plane, s::DEVICE_ID), u64::from(dev));
            }
            if let Some(m) = copies.get(e.correlation_id) {
                cache.memcpy_stats(&mut plane, m, &mut stats);
            }
            if e.activity_count > 1 {
                stats.u64(
                    ids.get(&mut plane, s::ACTIVITY_COUNT),
                    u64::from(e.activity_count),
                );
            }
            if let Some(g) = e.graph_exec_id {
                stats.u64(ids.get(&mut plane, s::GRAPH_EXEC_ID), g.id());
            }
            if let HostEventKind::MarkerRange(r) = e.kind {
                range_stats(&mut plane, &mut ids, e.scope_id(), &r, &mut stats);
            }
            cache.annotation_stats(&mut plane, &mut ids, e.annotation, &mut stats);
            let id = cache.host_name_id(&mut plane, e.name);
            let start = base.offset_ps(e.start_ns);
            let dur = match e.kind {
                HostEventKind::Marker => 0,
                _ => duration_ps(e.start_ns, e.end_ns),
            };
            match roctx_span(e) {
                None => {
                    feed.before(&mut plane, &mut ids, &mut api, start, |t| base.offset_ps(t));
                    api.add_event(id, start, dur, &stats)
                }
                Some((process_wide, span)) => roctx.add(process_wide, span, id, start, dur, &stats),
            }
        }
        feed.finish(&mut plane, &mut ids, &mut api, |t| base.offset_ps(t));
        // A thread line is written even when empty: the thread made traced calls.
        plane.add_line(api.finish());
        for line in roctx.finish() {
            plane.add_line(line);
        }
    }
    // Anchors on a thread with no call in this window.
    anchor_only_lines(&mut plane, &mut ids, base, anchors, |place| match *place {
        AnchorPlace::Host { tid } if trace.host_threads.iter().all(|t| t.tid != tid) => {
            Some((tid as i64, format!("Host Threads/{tid}")))
        }
        _ => None,
    });
    if let Some(line) = memory_line(trace, base, &mut plane) {
        plane.add_line(line);
    }
    finish_plane(run, plane)
}

/// A line of its own for each place of `anchors` that `lone` names (its line id and name, for
/// a place of this plane with no line in this window), holding only its anchors, in line id
/// order: an arrow from a record an earlier window made, in a window to be merged with it
/// (`Collected::earlier_anchors`), starts on a thread or stream this window may not have.
fn anchor_only_lines(
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
    base: &Timebase,
    anchors: &HashMap<AnchorPlace, Vec<super::deps::AnchorEvent>>,
    lone: impl Fn(&AnchorPlace) -> Option<(i64, String)>,
) {
    let mut lines: Vec<(i64, String, &Vec<super::deps::AnchorEvent>)> = anchors
        .iter()
        .filter_map(|(place, a)| lone(place).map(|(id, name)| (id, name, a)))
        .collect();
    lines.sort_unstable_by_key(|l| l.0);
    for (id, name, a) in lines {
        let mut line = LineBuilder::new(id, name, 0);
        AnchorFeed::new(Some(a)).finish(plane, ids, &mut line, |t| base.offset_ps(t));
        plane.add_line(line.finish());
    }
}

/// A roctx event's group (start/stop ranges are process-wide) and span on its thread's lines;
/// `None` for a HIP call.
fn roctx_span(e: &crate::model::HostEvent) -> Option<(bool, (u64, u64))> {
    match e.kind {
        HostEventKind::HipApi => None,
        HostEventKind::Marker => Some((false, (e.start_ns, e.start_ns))),
        HostEventKind::MarkerRange(r) => Some((r.process_wide, (e.start_ns, e.end_ns))),
    }
}

/// The allocation timeline as xprof's memory profile reads it: one zero-length
/// `MemoryAllocation` / `MemoryDeallocation` event per call, with the allocator's totals after
/// it. `tf_op` names what allocated: the innermost roctx range of the call, else the HIP call.
fn memory_line(trace: &Trace, base: &Timebase, plane: &mut PlaneBuilder) -> Option<FinishedLine> {
    if trace.memory.is_empty() {
        return None;
    }
    // Only the allocation calls: a program that allocates now and then has millions of other
    // calls, and a table of them all sat at the writer's peak (`peak_guard`).
    let wanted: HashSet<u64> = trace.memory.iter().map(|m| m.correlation_id).collect();
    let calls: HashMap<u64, &crate::model::HostEvent> = host_api_events(trace)
        .filter(|e| wanted.contains(&e.correlation_id))
        .map(|e| (e.correlation_id, e))
        .collect();
    let capacity: HashMap<String, u64> = trace
        .devices
        .iter()
        .filter(|d| d.memory_bytes > 0)
        .map(|d| (format!("GPU_{}", d.ordinal), d.memory_bytes))
        .collect();
    let mut line = LineBuilder::new(s::MEMORY_LINE_ID, "Memory (HIP allocations)", 0);
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

fn device_plane(
    trace: &Trace,
    d: &Device,
    base: &Timebase,
    launched: &IdSet,
    anchors: &HashMap<AnchorPlace, Vec<super::deps::AnchorEvent>>,
    spill: Option<&SpillPolicy>,
    run: Option<&RunIds>,
) -> BuiltPlane {
    let mut plane = new_plane(
        run,
        i64::from(d.ordinal),
        format!("{}{}", s::GPU_PLANE_PREFIX, d.ordinal),
    );
    plane.spill_lines(spill.cloned());
    add_device_caps(&mut plane, d);
    let mut lines: Vec<_> = d.lines.iter().collect();
    lines.sort_by_key(|l| l.id);
    let mut cache = EventCache::new(trace);
    let mut ids = StatIds::default();
    let mut stats = StatBytes::new();
    for l in lines {
        let mut line = LineBuilder::new(l.id, String::new(), 0);
        let mut feed = AnchorFeed::new(anchors.get(&AnchorPlace::Device {
            ordinal: d.ordinal,
            line: l.id,
        }));
        line.expect_events(l.events.len() + feed.count());
        let mut types = LineTypes::default();
        for e in &l.events {
            stats.clear();
            types.add(&e.kind);
            if e.correlation_id != 0 {
                let id = if launched.contains(e.correlation_id) {
                    ids.get(&mut plane, s::CORRELATION_ID)
                } else {
                    ids.get(&mut plane, s::ORPHAN_CORRELATION_ID)
                };
                stats.u64(id, e.correlation_id);
            }
            let id = match &e.kind {
                DeviceEventKind::Kernel(info) => {
                    match cache.kernel(&mut plane, &mut ids, info.shape, d) {
                        Some((shape_stats, id)) => {
                            stats.extend(shape_stats);
                            id
                        }
                        None => plane.event_metadata_id(UNKNOWN_SHAPE),
                    }
                }
                DeviceEventKind::Memcpy(m) => {
                    cache.memcpy_stats(&mut plane, m, &mut stats);
                    cache.copy_name_id(&mut plane, m.direction)
                }
            };
            if let Some(g) = e.graph {
                stats.u64(ids.get(&mut plane, s::GRAPH_EXEC_ID), g.exec_id());
                stats.u64(ids.get(&mut plane, s::GRAPH_NODE_ID), u64::from(g.node()));
            }
            cache.annotation_stats(&mut plane, &mut ids, e.annotation, &mut stats);
            let start = base.offset_ps(e.start_ns);
            feed.before(&mut plane, &mut ids, &mut line, start, |t| {
                base.offset_ps(t)
            });
            line.add_event(id, start, duration_ps(e.start_ns, e.end_ns), &stats);
        }
        feed.finish(&mut plane, &mut ids, &mut line, |t| base.offset_ps(t));
        line.set_name(device_line_name(l, &types));
        plane.add_line(line.finish());
    }
    // Anchors on a stream with no work in this window.
    anchor_only_lines(&mut plane, &mut ids, base, anchors, |place| match *place {
        AnchorPlace::Device { ordinal, line }
            if ordinal == d.ordinal && d.lines.iter().all(|l| l.id != line) =>
        {
            Some((line, format!("Stream #{line}")))
        }
        _ => None,
    });
    finish_plane(run, plane)
}

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
struct EventCache<'t> {
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
    /// copy's name was hashed per event).
    copy_name_ids: [i64; COPY_ORDER.len()],
}

/// The event name of a kernel whose launch shape is not in the trace's table (a `Trace` built
/// by hand with an id of another table): shown, not dropped.
const UNKNOWN_SHAPE: &str = "<kernel of an unknown launch shape>";

/// Event metadata ids by the address of the name (`Arc<str>`s shared by many events).
#[derive(Default)]
struct EventIds {
    ids: HashMap<*const u8, i64>,
    /// Keeps every pointer used as a key alive, so an address cannot be reused by another value.
    pinned: Vec<Arc<str>>,
}

impl EventIds {
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
    fn new(trace: &'t Trace) -> Self {
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
                label_lists: ListStats::default(),
            },
            copies: SlotCache::default(),
        }
    }

    /// A copy's `memcpy_details`, formatted and interned on a miss only: the same bytes, since
    /// a hit's names were interned when it was first encoded.
    fn memcpy_stats(&mut self, plane: &mut PlaneBuilder, m: &MemcpyInfo, stats: &mut StatBytes) {
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
    fn kernel(
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
        bytes.u64(ids.get(plane, super::deps::HSA_QUEUE), k.queue);
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
    fn copy_name_id(&mut self, plane: &mut PlaneBuilder, direction: CopyDirection) -> i64 {
        let id = &mut self.copy_name_ids[copy_order(direction)];
        if *id == 0 {
            *id = plane.event_metadata_id(s::memcpy_event_name(direction));
        }
        *id
    }

    /// A host event's event metadata id, looked up by the name's id (no hashing per event).
    fn host_name_id(&mut self, plane: &mut PlaneBuilder, name: Name) -> i64 {
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

    fn annotation_stats(
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
    label_lists: ListStats,
}

/// The encoded stats of each label list a plane has met, by the list's address: every line of
/// a plane walks the whole run and meets each list again. In slots, a run with more lists than
/// slots (a step range around every 16 launches, each step's name its own list) lost every
/// list before the next line came back to it, and parsed and interned it again: 643 → 525
/// instructions per event of the `hot_path` export (`ci/bench-instructions.sh`). A map, since
/// addresses a fixed stride apart share too few slots of a multiplicative spread. Bounded: past
/// [`MAX_LISTS`] lists it starts over, as a run can name every range differently.
#[derive(Default)]
struct ListStats(HashMap<usize, (Labels, StatBytes)>);

/// The label lists a plane keeps encoded at most: about 4 MB of entries, and their stats.
const MAX_LISTS: usize = 1 << 16;

impl ListStats {
    fn stats(&mut self, plane: &mut PlaneBuilder, list: &Labels) -> &StatBytes {
        let key = Arc::as_ptr(list).cast::<u8>() as usize;
        if self.0.len() >= MAX_LISTS && !self.0.contains_key(&key) {
            self.0.clear();
        }
        // The entry holds the list, so its address cannot be reused while it is a key.
        &self
            .0
            .entry(key)
            .or_insert_with(|| {
                let mut bytes = StatBytes::new();
                add_label_stats(plane, list, &mut bytes);
                (list.clone(), bytes)
            })
            .1
    }
}

/// Slots of each `SlotCache` (a power of two).
const SLOT_BITS: u32 = 12;
const SLOTS: usize = 1 << SLOT_BITS;

impl AnnotationCache<'_> {
    /// The stats of `id`, encoded on a miss into the slot's buffer (a miss allocates nothing
    /// once the slots are warm); `None` for an id the trace's table does not hold.
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
    /// As [`SlotCache::slot`]: the value of `id`'s slot and whether it is `id`'s (ids are never
    /// 0, the empty slot's).
    fn slot<T>(&mut self, id: Id<T>) -> (&mut V, bool) {
        // Spread by Fibonacci hashing, not by the id's low bits: a plane's lines each walk
        // the run, and a walk over more ids than slots evicts every slot before it comes back
        // to an id when the slots follow the ids in order (the `hot_path` export re-encoded
        // a third more annotations that way than spread).
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

/// `<name>(<types>)` like XLA's and CUPTI's `Stream #<id>(<types>)`; the model's name (or
/// `Stream #<id>`) comes first. Kernels are listed as CUPTI's `Compute` because xprof's
/// derived-timeline code puts lines whose name contains "Compute" first.
fn device_line_name(l: &DeviceLine, types: &LineTypes) -> String {
    let base = if l.name.is_empty() {
        format!("Stream #{}", l.id)
    } else {
        l.name.clone()
    };
    let present: Vec<&str> = types.names().collect();
    if present.is_empty() {
        base
    } else {
        format!("{base}({})", present.join(","))
    }
}

/// A device line's name from the names its pieces had in profiles cut from one run
/// (`xplane::merge`): `Stream #1(Compute)` and `Stream #1(MemcpyDToH)` make
/// `Stream #1(Compute,MemcpyDToH)`, the kinds in the order [`device_line_name`] lists them
/// (any it does not know after them); a name without kinds is kept as it is.
pub fn merged_line_name(names: &[&str]) -> String {
    let split = |n: &str| -> Option<(String, Vec<String>)> {
        let open = n.rfind('(').filter(|_| n.ends_with(')'))?;
        let kinds = n[open + 1..n.len() - 1]
            .split(',')
            .map(str::to_string)
            .collect();
        Some((n[..open].to_string(), kinds))
    };
    // (A piece with no kinds, a line holding only an arrow's anchor, takes the others'.)
    let Some((base, _)) = names.iter().find_map(|n| split(n)) else {
        return names.first().map_or(String::new(), |n| n.to_string());
    };
    let mut kinds: Vec<String> = Vec::new();
    for n in names {
        match split(n) {
            Some((b, ks)) if b == base => {
                for k in ks {
                    if !kinds.contains(&k) {
                        kinds.push(k);
                    }
                }
            }
            _ => {}
        }
    }
    let known: Vec<&str> = std::iter::once(COMPUTE)
        .chain(COPY_ORDER.iter().map(|d| s::memcpy_event_name(*d)))
        .collect();
    let place = |k: &String| known.iter().position(|n| n == k).unwrap_or(known.len());
    kinds.sort_by_key(place);
    format!("{base}({})", kinds.join(","))
}

/// The kinds of work a device line's name lists, in this order: compute, then the copies by
/// direction, each under its event name (`stats::memcpy_event_name`).
const COMPUTE: &str = "Compute";
const COPY_ORDER: [CopyDirection; 5] = [
    CopyDirection::HostToDevice,
    CopyDirection::DeviceToHost,
    CopyDirection::DeviceToDevice,
    CopyDirection::HostToHost,
    CopyDirection::Unknown,
];

/// Where `direction` stands in `COPY_ORDER` (which lists every direction).
fn copy_order(direction: CopyDirection) -> usize {
    COPY_ORDER
        .iter()
        .position(|&d| d == direction)
        .unwrap_or(COPY_ORDER.len() - 1)
}

/// Which kinds a line holds (compute, then `COPY_ORDER`), noted as its events are written (a
/// separate pass over a million-event line costs a cache miss per event).
#[derive(Default)]
struct LineTypes([bool; 1 + COPY_ORDER.len()]);

impl LineTypes {
    fn add(&mut self, kind: &DeviceEventKind) {
        let at = match kind {
            DeviceEventKind::Kernel(_) => 0,
            DeviceEventKind::Memcpy(m) => copy_order(m.direction) + 1,
        };
        self.0[at] = true;
    }

    /// The names of the kinds held, in order.
    fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        std::iter::once(COMPUTE)
            .chain(COPY_ORDER.iter().map(|d| s::memcpy_event_name(*d)))
            .zip(self.0)
            .filter(|(_, seen)| *seen)
            .map(|(name, _)| name)
    }
}

/// Plane stats xprof's `GetDeviceCaps` and `SetRunEnvironment` read, with the value types of
/// real XLA ROCm files (int64 except the two uint64 memory figures; strings inline).
fn add_device_caps(plane: &mut PlaneBuilder, d: &Device) {
    plane.add_plane_stat(s::DEVICE_VENDOR, StatValue::Str(s::VENDOR_AMD));
    if !d.name.is_empty() {
        plane.add_plane_stat(s::GPU_DEVICE_NAME, StatValue::Str(&d.name));
    }
    plane.add_plane_stat(
        s::CLOCK_RATE,
        StatValue::I64(i64::try_from(d.clock_rate_khz).unwrap_or(i64::MAX)),
    );
    plane.add_plane_stat(s::CORE_COUNT, StatValue::I64(i64::from(d.compute_units)));
    // Unknown is left out rather than written as 0, which would read as a measured figure
    // (xprof itself takes an absent stat as 0; see docs/xplane-output.md).
    if d.memory_bandwidth_bytes_per_s > 0 {
        plane.add_plane_stat(
            s::MEMORY_BANDWIDTH,
            StatValue::U64(d.memory_bandwidth_bytes_per_s),
        );
    }
    plane.add_plane_stat(s::MEMORY_SIZE, StatValue::U64(d.memory_bytes));
    let (major, minor) = compute_capability(d.gfx_target_version);
    plane.add_plane_stat(s::COMPUTE_CAP_MAJOR, StatValue::I64(major));
    plane.add_plane_stat(s::COMPUTE_CAP_MINOR, StatValue::I64(minor));
    if !d.product_name.is_empty() {
        plane.add_plane_stat(s::PRODUCT_NAME, StatValue::Str(&d.product_name));
    }
}

/// `gfx_target_version` = major*10000 + minor*100 + stepping, e.g. 90402 → (9, 4).
pub fn compute_capability(gfx_target_version: u32) -> (i64, i64) {
    let v = i64::from(gfx_target_version);
    ((v / 10000) % 100, (v / 100) % 100)
}

/// Stats from the annotation context captured at API entry are the same on the host call and
/// on every device event it caused, as in XLA: its ids, then its labels' stats.
/// The annotation's own ids: its scope range and external correlation ids.
fn add_id_stats(
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
    a: &Annotation,
    stats: &mut StatBytes,
) {
    if a.scope_range_id != 0 {
        stats.i64(ids.get(plane, s::SCOPE_RANGE_ID), a.scope_range_id);
    }
    if let Some(&inner) = a.external_ids.last() {
        stats.u64(ids.get(plane, s::EXTERNAL_CORRELATION_ID), inner);
        if a.external_ids.len() > 1 {
            let all: Vec<String> = a.external_ids.iter().map(u64::to_string).collect();
            plane.put(
                stats,
                s::EXTERNAL_CORRELATION_IDS,
                StatValue::Ref(&all.join(",")),
            );
        }
    }
}

/// The stats of the roctx labels open at the call (outermost first).
fn add_label_stats(plane: &mut PlaneBuilder, labels: &[Arc<str>], stats: &mut StatBytes) {
    if labels.is_empty() {
        return;
    }
    let parsed = parse_annotation(labels);
    plane.put(stats, s::NVTX_RANGE, StatValue::Ref(&parsed.joined));
    // Plain roctx labels are NVTX-like: `nvtx_range` only, as CUPTI writes for NVTX. `tf_op`
    // and field stats come only from levels in XLA's `name#k=v#` form or PyTorch's `emit_nvtx`
    // form (`xplane::annotation`). A `tf_op` from plain labels such as
    // "decode step 17" would split xprof's kernel_stats rows per label (rows are keyed by op
    // name and capped at 1000), hiding kernels.
    if parsed.metadata.is_empty() {
        return;
    }
    if !parsed.tf_op.is_empty() {
        plane.put(stats, s::TF_OP, StatValue::Ref(&parsed.tf_op));
    }
    for (k, v) in &parsed.metadata {
        if s::RESERVED_EVENT_STATS.contains(&k.as_str()) {
            continue;
        }
        let value = match v {
            ParsedValue::I64(v) => StatValue::I64(*v),
            ParsedValue::U64(v) => StatValue::U64(*v),
            ParsedValue::F64(v) => StatValue::F64(*v),
            ParsedValue::Str(v) => StatValue::Ref(v),
        };
        plane.put(stats, k, value);
    }
}

/// `/host:__ScopeRangeCallStack__`: one plane stat per (child, parent), `metadata_id` = child,
/// `int64_value` = parent. Like XLA's CUPTI collector, one empty-named stat metadata at the
/// largest id keeps later writers from reusing those ids; no plane when the tree is empty.
fn scope_tree_plane(tree: &[(i64, i64)]) -> Option<BuiltPlane> {
    if tree.is_empty() {
        return None;
    }
    let mut plane = PlaneBuilder::new(0, s::SCOPE_TREE_PLANE);
    let mut max_id = 0;
    for &(child, parent) in tree {
        max_id = max_id.max(child).max(parent);
        plane.add_raw_plane_stat(XStat {
            metadata_id: child,
            value: Some(x_stat::Value::Int64Value(parent)),
        });
    }
    plane.reserve_stat_ids_up_to(max_id);
    Some(plane.finish())
}

/// `Task Environment`: the absolute wall-clock window (uint64 ns, as `ProfilerSession` writes),
/// which the relative line timestamps need to be placed in time, plus our record counters.
fn task_environment_plane(trace: &Trace, base: &Timebase) -> BuiltPlane {
    let mut plane = PlaneBuilder::new(0, s::TASK_ENV_PLANE);
    let start_wall = trace
        .start_walltime_ns
        .saturating_sub(base.before_start_ns(trace));
    plane.add_plane_stat(s::PROFILE_START_TIME, StatValue::U64(start_wall));
    plane.add_plane_stat(s::PROFILE_STOP_TIME, StatValue::U64(trace.stop_walltime_ns));
    plane.add_plane_stat(s::ORIGIN_BOOTTIME_NS, StatValue::U64(base.origin_ns));
    plane.add_plane_stat(
        "rocprof_xplane_version",
        StatValue::Str(env!("CARGO_PKG_VERSION")),
    );
    if !trace.sdk_version.is_empty() {
        plane.add_plane_stat(
            "rocprofiler_sdk_version",
            StatValue::Str(&trace.sdk_version),
        );
    }
    for (name, value) in counter_fields(&trace.counters) {
        plane.add_plane_stat(&format!("rocprof_xplane_{name}"), StatValue::U64(value));
    }
    plane.finish()
}

/// Every counter with its field name, in declaration order.
pub fn counter_fields(c: &Counters) -> [(&'static str, u64); 18] {
    [
        ("api_records", c.api_records),
        ("kernel_records", c.kernel_records),
        ("memcpy_records", c.memcpy_records),
        ("marker_records", c.marker_records),
        ("unknown_kind_records", c.unknown_kind_records),
        ("bad_size_records", c.bad_size_records),
        ("runtime_dropped", c.runtime_dropped),
        ("activities_without_api", c.activities_without_api),
        ("launches_without_activity", c.launches_without_activity),
        ("kernels_without_symbol", c.kernels_without_symbol),
        ("bad_timestamp_records", c.bad_timestamp_records),
        ("waits_resolved", c.waits_resolved),
        ("waits_unresolved", c.waits_unresolved),
        ("waits_without_arrow", c.waits_without_arrow),
        ("stream_overlap_events", c.stream_overlap_events),
        ("hip_event_records", c.hip_event_records),
        ("memory_limit_dropped", c.memory_limit_dropped),
        ("memory_frees_unmatched", c.memory_frees_unmatched),
    ]
}

/// One warning per non-zero anomaly counter, so xprof users see losses without our CLI.
pub fn counter_warnings(c: &Counters) -> Vec<String> {
    let items = [
        (
            c.runtime_dropped,
            "records dropped by the runtime (drop_count)",
        ),
        (
            c.memory_limit_dropped,
            "records dropped at the memory ceiling (ROCPROF_XPLANE_MAX_MEMORY)",
        ),
        (
            c.memory_frees_unmatched,
            "frees that ended no allocation seen in the profile (allocated before it began, freed twice, or not HIP's)",
        ),
        (c.unknown_kind_records, "records of an unknown kind skipped"),
        (
            c.bad_size_records,
            "records with a too-small size field skipped",
        ),
        (
            c.activities_without_api,
            "device activities without a matching API call (kept, no launch arrow)",
        ),
        (
            c.launches_without_activity,
            "launch/copy API calls without device activity (kept on the host)",
        ),
        (
            c.kernels_without_symbol,
            "kernel dispatches without a kernel symbol (named by kernel id)",
        ),
        (
            c.bad_timestamp_records,
            "device activities with a zero start (skipped) or an end before the start (zero duration)",
        ),
        (
            c.waits_without_arrow,
            "waits resolved to an event record made in an earlier capture window (no arrow: its anchor is there; windows merged with ROCPROF_XPLANE_WINDOW_MERGE draw it)",
        ),
        (
            c.stream_overlap_events,
            "device events moved to a sub-line because their HIP stream overlapped itself",
        ),
    ];
    items
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("rocprof-xplane: {n} {what}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DeviceEvent, DeviceLine, KernelCode, KernelInfo};

    /// A GPU whose one line holds `events`.
    fn one_line(events: Vec<DeviceEvent>) -> Device {
        Device {
            lines: vec![DeviceLine {
                id: 0,
                name: String::new(),
                events,
            }],
            ..Default::default()
        }
    }

    /// `n` events one after the other, the `k`-th of kind `kind(k)`.
    fn events_in_turn(n: usize, kind: impl Fn(usize) -> DeviceEventKind) -> Vec<DeviceEvent> {
        (0..n)
            .map(|k| DeviceEvent {
                start_ns: k as u64 * 10,
                end_ns: k as u64 * 10 + 5,
                correlation_id: 0,
                thread_id: 1,
                kind: kind(k),
                annotation: None,
                graph: None,
            })
            .collect()
    }

    /// The string that event `w`'s reference stat `name` points at.
    fn ref_stat<'p>(
        plane: &'p crate::xplane::proto::XPlane,
        w: &crate::xplane::proto::XEvent,
        name: &str,
    ) -> Option<&'p str> {
        let stat_name = |id: i64| plane.stat_metadata[&id].name.as_str();
        w.stats
            .iter()
            .find(|st| stat_name(st.metadata_id) == name)
            .and_then(|st| match st.value {
                Some(x_stat::Value::RefValue(r)) => Some(stat_name(r as i64)),
                _ => None,
            })
    }

    /// A merged device line lists every kind its pieces held, in the writer's order; other
    /// names are kept as the first piece had them.
    #[test]
    fn merged_line_names_list_every_kind_in_order() {
        assert_eq!(
            merged_line_name(&[
                "Stream #1(MemcpyDToH)",
                "Stream #1(Compute,MemcpyDToD)",
                "Stream #1(Compute)"
            ]),
            "Stream #1(Compute,MemcpyDToH,MemcpyDToD)"
        );
        assert_eq!(merged_line_name(&["Host Threads/7", "x"]), "Host Threads/7");
        assert_eq!(
            merged_line_name(&["Stream #0(Weird)", "Stream #0(Compute)"]),
            "Stream #0(Compute,Weird)"
        );
        assert_eq!(merged_line_name(&[]), "");
    }

    /// `n` devices with nothing but their ordinals, 0 to `n - 1`.
    fn numbered_devices(n: u32) -> Vec<Device> {
        (0..n)
            .map(|ordinal| Device {
                ordinal,
                ..Device::default()
            })
            .collect()
    }

    /// A worker that panics while building a plane leaves that plane to the writing thread:
    /// every plane still reaches the sink, once, in ordinal order. Each device plane here
    /// panics on a worker thread once.
    #[test]
    fn a_plane_a_worker_could_not_build_is_built_by_the_writing_thread() {
        let devices = numbered_devices(6);
        let failed = std::sync::Mutex::new(Vec::new());
        let device = |(_, d): (usize, &Device)| {
            let on_worker = std::thread::current().name() == Some("rocprof-xplane-planes");
            if on_worker && d.ordinal % 2 == 1 {
                let mut failed = failed.lock().unwrap();
                if !failed.contains(&d.ordinal) {
                    failed.push(d.ordinal);
                    drop(failed);
                    panic!("a test's panic on a worker, plane {}", d.ordinal);
                }
            }
            PlaneBuilder::new(i64::from(d.ordinal), format!("plane {}", d.ordinal)).finish()
        };
        let mut sunk = Vec::new();
        DevicePlanes::new(&devices)
            .build(
                2,
                &device,
                // The host plane takes a while: the workers claim planes first.
                || {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    PlaneBuilder::new(-1, "host").finish()
                },
                &mut |p: BuiltPlane| {
                    sunk.push(p.into_xplane().id);
                    Ok::<(), std::convert::Infallible>(())
                },
            )
            .unwrap();
        assert_eq!(sunk, [-1, 0, 1, 2, 3, 4, 5]);
        assert!(!failed.lock().unwrap().is_empty(), "a worker panicked");
    }

    /// A worker that panics mid-plane after its plane took the output (its turn had come) has
    /// left part of that plane there. The writing thread builds the plane again, and the
    /// output is made to end where the turn began before it is written: the file is the same,
    /// byte for byte, as one no worker failed in. Here device plane 0's worker waits for its
    /// turn, writes three lines into the output and panics, once.
    #[test]
    fn a_plane_that_panicked_in_the_output_is_taken_out_before_it_is_written_again() {
        use super::super::spill::{OutputTurn, SpillPolicy};
        use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
        let devices = numbered_devices(3);
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, panic_once: bool| {
            let path = dir.path().join(name);
            let file = std::fs::File::create(&path).unwrap();
            let turn = OutputTurn::of(&file).unwrap();
            let policy = SpillPolicy::past(dir.path(), 0).with_output(turn.clone());
            let (claimed, panicked) = (AtomicBool::new(false), AtomicBool::new(!panic_once));
            let waited = |what: &dyn Fn() -> bool| {
                let t = std::time::Instant::now();
                while !what() {
                    assert!(t.elapsed().as_secs() < 20, "the test's threads never met");
                    std::thread::yield_now();
                }
            };
            let device = |(i, d): (usize, &Device)| {
                let on_worker = std::thread::current().name() == Some("rocprof-xplane-planes");
                let policy = policy.for_plane(1 + i);
                if on_worker && i == 0 {
                    claimed.store(true, SeqCst);
                    waited(&|| policy.output.as_ref().is_some_and(|o| o.open().is_some()));
                }
                let mut p = PlaneBuilder::new(i64::from(d.ordinal), format!("plane {i}"));
                p.spill_lines(Some(policy));
                for l in 0..6 {
                    if on_worker && i == 0 && l == 3 && !panicked.swap(true, SeqCst) {
                        panic!("a test's panic on a worker, mid-plane");
                    }
                    let mut line = LineBuilder::new(l, format!("line {l}"), 0);
                    let id = p.event_metadata_id("k");
                    line.add_event(id, 10 * l, 5, &StatBytes::new());
                    p.add_line(line.finish());
                }
                p.finish()
            };
            let mut out = std::io::BufWriter::new(file.try_clone().unwrap());
            // The file writer's own step for each plane, rewind included.
            let write = super::super::file::write_plane;
            DevicePlanes::new(&devices)
                .build(
                    1,
                    &device,
                    // The worker claims device plane 0 before the host plane is written.
                    || {
                        waited(&|| claimed.load(SeqCst));
                        PlaneBuilder::new(-1, "host").finish()
                    },
                    &mut |p: BuiltPlane| write(&p, &mut out, Some(&turn)),
                )
                .unwrap();
            assert!(panicked.load(SeqCst));
            std::fs::read(path).unwrap()
        };
        let want = write("whole.pb", false);
        let got = write("after-a-panic.pb", true);
        assert!(got == want, "{} B against {} B", got.len(), want.len());
        let space =
            <crate::xplane::proto::XSpace as prost::Message>::decode(got.as_slice()).unwrap();
        let names: Vec<&str> = space.planes.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["host", "plane 0", "plane 1", "plane 2"]);
        assert!(space.planes[1..].iter().all(|p| p.lines.len() == 6));
    }

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
                        thread_id: 1,
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
                    activity_count: 1,
                    graph_exec_id: None,
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
        add_label_stats(plane, &a.stack, stats);
    }

    /// More distinct annotations than slots, each asked for twice in a row and again after a
    /// full cycle: every answer is what encoding the annotation afresh gives. Every other one
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
                    external_ids: vec![i as u64],
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
                assert_eq!(cache.0.contains_key(&key), line > 0, "line {line}");
                let mut want = StatBytes::new();
                add_label_stats(&mut plane, l, &mut want);
                assert_eq!(cache.stats(&mut plane, l), &want);
            }
        }
        let more = lists(MAX_LISTS + 10);
        for l in &more {
            cache.stats(&mut plane, l);
            assert!(cache.0.len() <= MAX_LISTS);
        }
    }

    /// The (first) device plane of `space`.
    fn gpu_plane(space: &XSpace) -> &crate::xplane::proto::XPlane {
        space
            .planes
            .iter()
            .find(|p| p.name.starts_with(s::GPU_PLANE_PREFIX))
            .expect("a device plane")
    }

    /// Plane-level stat names → values of the single device plane written for `device`.
    fn device_plane_stats(device: Device) -> HashMap<String, Option<x_stat::Value>> {
        let trace = Trace {
            devices: vec![device],
            ..Default::default()
        };
        let space = build_xspace(&trace);
        let plane = gpu_plane(&space);
        plane
            .stats
            .iter()
            .map(|st| {
                (
                    plane.stat_metadata[&st.metadata_id].name.clone(),
                    st.value.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn memory_bandwidth_is_written_when_known_and_omitted_when_not() {
        let known = device_plane_stats(Device {
            name: "gfx942".into(),
            memory_bandwidth_bytes_per_s: 5_300_000_000_000,
            memory_bytes: 1 << 30,
            ..Default::default()
        });
        assert_eq!(
            known.get(s::MEMORY_BANDWIDTH),
            Some(&Some(x_stat::Value::Uint64Value(5_300_000_000_000)))
        );

        let unknown = device_plane_stats(Device {
            name: "gfx1100".into(),
            memory_bandwidth_bytes_per_s: 0,
            memory_bytes: 1 << 30,
            ..Default::default()
        });
        assert!(!unknown.contains_key(s::MEMORY_BANDWIDTH), "{unknown:?}");
        // The other capabilities are still there.
        assert!(unknown.contains_key(s::MEMORY_SIZE));
        assert!(unknown.contains_key(s::CORE_COUNT));
    }
}
