//! Correlation join: API records ↔ every device activity they caused, into a `Trace`.
//!
//! Runs once, at finalize, over everything collected; sorting beats a locked hash map on the hot
//! path. Rules that matter (each has a test):
//! * every activity record is kept, including all N dispatches sharing one correlation id
//!   (`hipGraphLaunch`), and activities whose correlation id matches no API record (counted);
//! * launch/copy APIs that produced no activity are kept on the host (counted);
//! * unknown kernel ids are named by id (counted);
//! * output order depends only on the data, never on delivery order or handle values.

use crate::fastmap::HashMap;
use smallvec::SmallVec;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::corrmap::{id_range, CorrMap, IdSet, Slot};
use super::events::{
    AgentInfo, AgentType, ApiDomain, ApiRecord, Collected, CopyRecord, KernelRecord,
};
use super::streams::{stream_key, StreamKey as LineKey};
use super::trace::{
    Annotation, CopyDirection, Device, DeviceEvent, DeviceEventKind, HostEvent, HostEventKind,
    HostThread, Id, KernelCode, KernelInfo, LaunchShape, MemcpyInfo, Name, Ordinal16, RangeInfo,
    Table, Trace,
};
use crate::store::PackedVec;
use crate::util::buffers::{grow, Backwards, FromTheEnd};
use crate::util::sort::{sort_by_positions, sort_two_runs, stable_order};
pub use crate::util::threads::{cores, side_by_side};
use std::num::{NonZeroU32, NonZeroU64};

/// Name used for a kernel whose id never appeared in a kernel-symbol callback.
pub fn unknown_kernel_name(kernel_id: u64) -> String {
    format!("<unknown kernel {kernel_id}>")
}

/// GPU ordinals: HIP numbers devices by their index among GPU agents, which the runtime reports
/// as `logical_node_type_id`; node id and handle only break ties.
fn gpu_ordinals(agents: &[AgentInfo]) -> Vec<&AgentInfo> {
    let mut gpus: Vec<&AgentInfo> = agents.iter().filter(|a| a.kind == AgentType::Gpu).collect();
    gpus.sort_by_key(|a| (a.type_index, a.node_id, a.handle));
    gpus
}

fn device_from_agent(ordinal: u32, a: &AgentInfo) -> Device {
    Device {
        ordinal,
        agent_handle: a.handle,
        name: a.name.clone(),
        product_name: a.product_name.clone(),
        vendor_name: a.vendor_name.clone(),
        compute_units: a.cu_count,
        simd_per_cu: a.simd_per_cu,
        wave_front_size: a.wave_front_size,
        max_waves_per_cu: a.max_waves_per_cu,
        clock_rate_khz: u64::from(a.max_engine_clk_mhz) * 1000,
        memory_bytes: a.local_mem_bytes,
        memory_bandwidth_bytes_per_s: super::hbm::peak_bandwidth(
            &a.name,
            &a.product_name,
            a.cu_count,
        )
        .unwrap_or(0),
        gfx_target_version: a.gfx_target_version,
        lines: Vec::new(),
    }
}

/// Which device plane a copy belongs to: the destination GPU, else the source GPU.
fn copy_device(c: &CopyRecord, ordinal_of: &HashMap<u64, u32>) -> Option<u32> {
    ordinal_of
        .get(&c.dst_agent)
        .or_else(|| ordinal_of.get(&c.src_agent))
        .copied()
}

/// HIP device index → our GPU plane, learned from kernel launches (the device a launch was
/// issued to, and the agent its dispatch ran on). The two numberings differ whenever HIP sees
/// fewer GPUs than the runtime enumerates (`HIP_VISIBLE_DEVICES=2`: HIP's device 0 is the
/// third GPU agent). Most-seen plane per device; ties go to the lower plane.
fn hip_device_planes(
    issued_on: &CorrMap<u16>,
    kernels: &PackedVec<KernelRecord>,
    ordinal_of: &HashMap<u64, u32>,
) -> HashMap<i32, u32> {
    let mut votes: BTreeMap<(i32, u32), u64> = BTreeMap::new();
    // Consecutive dispatches mostly vote alike: a run is counted, then added to its tally once
    // (a tree probe per dispatch was a twentieth of the storm's join).
    let mut run: Option<((i32, u32), u64)> = None;
    for k in kernels.iter().filter(|k| k.correlation_id != 0) {
        if let (Some(&d), Some(&p)) = (issued_on.get(&k.correlation_id), ordinal_of.get(&k.agent)) {
            let vote = (i32::from(d), p);
            match &mut run {
                Some((v, n)) if *v == vote => *n += 1,
                _ => {
                    if let Some((v, n)) = run.replace((vote, 1)) {
                        *votes.entry(v).or_default() += n;
                    }
                }
            }
        }
    }
    if let Some((v, n)) = run {
        *votes.entry(v).or_default() += n;
    }
    let mut best: HashMap<i32, (u64, u32)> = HashMap::default();
    for ((d, p), n) in votes {
        let e = best.entry(d).or_insert((n, p));
        if n > e.0 {
            *e = (n, p);
        }
    }
    best.into_iter().map(|(d, (_, p))| (d, p)).collect()
}

/// The GPU plane of HIP device `device` for copy `m`: the plane learned from kernel launches;
/// else the same index, but only when that cannot contradict the copy's own GPU ends (it has
/// none, or the index is one of them) — otherwise `None` and the copy goes by its GPU end.
fn issued_plane(
    device: i32,
    m: &CopyRecord,
    hip_plane: &HashMap<i32, u32>,
    ordinal_of: &HashMap<u64, u32>,
    gpu_count: usize,
) -> Option<u32> {
    if let Some(&p) = hip_plane.get(&device) {
        return Some(p);
    }
    let d = u32::try_from(device)
        .ok()
        .filter(|&d| (d as usize) < gpu_count)?;
    let ends = [ordinal_of.get(&m.dst_agent), ordinal_of.get(&m.src_agent)];
    if ends.iter().all(Option::is_none) || ends.contains(&Some(&d)) {
        Some(d)
    } else {
        None
    }
}

/// The span to show for a device activity. A zero start would drag the profile origin to boot
/// time (and the timeline to days), so such records are skipped; an end before the start is
/// shown with zero duration. Both are counted, never silently changed.
fn usable_span(
    start_ns: u64,
    end_ns: u64,
    counters: &mut crate::model::Counters,
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

fn ceil_div(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        a.div_ceil(b)
    }
}

/// Annotation of each correlation id: the roctx context captured at API entry, plus the external
/// correlation id the runtime stamped on the call's records. Merged once per id and shared by
/// every event of that id (a graph launch's dispatches name one annotation).
#[derive(Default)]
struct AnnotationIndex {
    captured: CorrMap<Id<Annotation>>,
    /// External id of each API call (from its record).
    /// Nonzero, so an entry is 8 B (an `Option<u64>` is 16): frameworks (PyTorch, XLA) stamp
    /// one on every call, and the table spans every call's id.
    external: CorrMap<NonZeroU64>,
    merged: HashMap<(u64, u64), Id<Annotation>>,
    /// Every annotation the ids name: the scopes' and the merged ones, for the trace.
    table: Table<Annotation>,
}

impl AnnotationIndex {
    fn get(&mut self, corr: u64, record_external: u64) -> Option<Id<Annotation>> {
        let base = if corr == 0 {
            None
        } else {
            self.captured.get(&corr).copied()
        };
        let ext = self.external_of(corr, record_external);
        if ext == 0 {
            return base;
        }
        let table = &mut self.table;
        Some(*self.merged.entry((corr, ext)).or_insert_with(|| {
            let mut a = base.map(|b| table[b].clone()).unwrap_or_default();
            if a.external_ids.last() != Some(&ext) {
                a.external_ids.push(ext);
            }
            table.push(a)
        }))
    }

    /// The external correlation id an event of `corr` carries: the one the runtime answered
    /// for the call, else the record's own.
    fn external_of(&self, corr: u64, record_external: u64) -> u64 {
        self.external
            .get(&corr)
            .map(|e| e.get())
            .filter(|_| corr != 0)
            .unwrap_or(record_external)
    }
}

/// The join, as named passes over what was collected. Each pass reads the collection and the
/// indexes built before it and adds to the output; the device records are freed as soon as
/// they are events.
pub fn join(c: Collected) -> Trace {
    join_on(c, cores())
}

/// [`join`] on at most `threads` threads (1: every pass on this one).
pub fn join_on(c: Collected, threads: usize) -> Trace {
    join_numbered(c, threads, &mut super::streams::StreamNumbers::default())
}

/// [`join_on`] with the stream numbers earlier capture windows of the run gave (`numbers`,
/// which gets this window's new streams): a stream keeps its `Stream #N` in every window.
pub fn join_numbered(
    mut c: Collected,
    threads: usize,
    numbers: &mut super::streams::StreamNumbers,
) -> Trace {
    let mut counters = c.counters.clone();
    let mut warnings = std::mem::take(&mut c.warnings);
    let mut laps = Laps::start();

    let mut places = place_devices(&c.agents, &c.kernels, &mut warnings);
    // The correlation ids of the calls: every per-call table is a vector over their range.
    let ids = Ids::of(&c);
    // The annotations read the records, spans and scopes; the call tables the call and sync
    // facts, the stream creations and the kernels: side by side.
    let mut spanned = Spanned::take(&mut c);
    let calls = std::mem::take(&mut c.calls);
    let mut syncs = std::mem::take(&mut c.syncs);
    // Restamped beside the syncs, for the producer index only.
    let mut earlier_producers = std::mem::take(&mut c.carried.producers);
    // The kernels' order needs nothing else either: made by whichever thread is free first
    // (the annotations are the longer on a run of many calls, the call tables on a run of
    // many dispatches).
    let order_claimed = std::sync::atomic::AtomicBool::new(false);
    let claim_order = || {
        let first = !order_claimed.swap(true, std::sync::atomic::Ordering::Relaxed);
        first.then(|| kernel_order(&c.kernels))
    };
    let (((mut annotations, scope_tree), order_here), (mut work, order_beside, beside)) =
        side_by_side(
            threads,
            (
                calls,
                (syncs.as_mut_slice(), earlier_producers.as_mut_slice()),
                &mut places,
            ),
            {
                let (c, claim_order) = (&c, &claim_order);
                move |(calls, syncs, places)| {
                    let began = std::time::Instant::now();
                    let work = call_tables(c, calls, syncs, places, ids);
                    (work, claim_order(), began.elapsed())
                }
            },
            || (index_annotations(&mut spanned, ids), claim_order()),
        );
    let beside_pass = if order_beside.is_some() {
        "call tables and kernel order"
    } else {
        "call tables"
    };
    // Claimed once, so made once; made here should neither side have claimed it.
    let order = order_beside
        .or(order_here)
        .unwrap_or_else(|| kernel_order(&c.kernels));
    spanned.put_back(&mut c);
    c.syncs = syncs;
    laps.lap_beside("annotations", Some((beside_pass, beside)));
    // Each line's size, counted beside the HIP records' index (they read different records),
    // so that the kernels and copies fill lines made once at their size.
    let (api, (sizes, beside)) = side_by_side(
        threads,
        (),
        {
            let (c, places, work) = (&c, &places, &work);
            move |()| {
                let began = std::time::Instant::now();
                let sizes = line_sizes(&c.kernels, &c.copies, places, work);
                (sizes, began.elapsed())
            }
        },
        || ApiIndex::build(&c.api, ids, &c.carried.launched),
    );
    work.reserve_lines(sizes);
    laps.lap_beside("api index", Some(("line sizes", beside)));

    // The kernels pass beside what the rest of the join needs of neither the annotations
    // nor the lines: the copies' planes and memory kinds, and the dependency pass's call
    // ends.
    let kernels = std::mem::take(&mut c.kernels);
    let copies = std::mem::take(&mut c.copies);
    let beside_input = (
        copies,
        (std::mem::take(&mut c.syncs), earlier_producers),
        std::mem::take(&mut c.hip_events),
        super::deps::host_salt(&c.hostname, c.pid),
        (
            std::mem::take(&mut c.carried.anchors),
            std::mem::take(&mut c.carried.anchors_wanted),
        ),
    );
    // At most one activity entry per dispatch or copy (a graph launch's share one): room
    // once, as for the issued devices.
    work.activity_of
        .reserve(kernels.len() + beside_input.0.len());
    let (shapes, (placed, dependency_work, beside)) = side_by_side(
        threads,
        beside_input,
        {
            let (c, places, api) = (&c, &places, &api);
            move |(copies, syncs, hip_events, host_salt, anchors)| {
                let began = std::time::Instant::now();
                let placed =
                    place_copies(copies, (&c.carried.memory, &c.memory), &c.copy_ptrs, places);
                let work = DependencyWork::take(syncs, hip_events, &c.api, api, host_salt, anchors);
                (placed, work, began.elapsed())
            }
        },
        || {
            kernel_events(
                (kernels, order),
                &c.symbols,
                &places,
                &api,
                &mut annotations,
                &mut work,
                &mut counters,
            )
        },
    );
    laps.lap_beside("kernels", Some(("copies' places and call ends", beside)));
    copy_events(
        placed,
        &api,
        &mut annotations,
        &mut work,
        &mut counters,
        &mut warnings,
    );
    // The device records are events now (the kernel records were freed as they became
    // events): free the rest before the host events are built.
    drop(std::mem::take(&mut places.issued_on));
    drop(std::mem::take(&mut work.stream_of));
    drop(std::mem::take(&mut c.copy_ptrs));
    laps.lap("copies");

    // The streams the sync calls name get numbers too, and those of the records handed on
    // (a wait may resolve to them).
    let stream_index = stream_lines(
        dependency_work
            .syncs
            .iter()
            .chain(&dependency_work.earlier_producers),
        &mut places,
        work.take_lines(),
        threads,
        numbers,
        &mut counters,
    );
    laps.lap("stream lines");
    // The HIP records' index has served its last pass.
    drop(api);
    // Side by side; on one thread the dependencies first, so that their inputs (the sync
    // facts, the producers made of them, the per-stream index) are freed before the host events,
    // the join's largest output, are built.
    let (
        (host_threads, names),
        ((sync_calls, dependency_flows, record_anchors), dependency_counters, beside),
    ) = side_by_side(
        threads,
        dependency_work,
        {
            let places = &places;
            move |w: DependencyWork| {
                let out = w.resolve(&stream_index, places);
                drop(stream_index);
                out
            }
        },
        || host_events(&mut c, &work, &mut annotations, &mut counters),
    );
    counters += &dependency_counters;
    // One after the other, the dependencies' time is in this lap too.
    laps.lap_beside("host events", Some(("dependencies", beside)));
    let window = time_window(&c, &host_threads, &places.devices);
    crate::log_debug!("join passes: {laps}");
    let (memory, frees_unmatched) = super::memory::timeline(&c.carried.memory, &c.memory);
    counters.memory_frees_unmatched += frees_unmatched;
    let launched_earlier = std::mem::take(&mut c.carried.launched);

    Trace {
        hostname: c.hostname,
        pid: c.pid,
        sdk_version: c.sdk_version,
        start_boottime_ns: window.start,
        stop_boottime_ns: window.stop,
        start_covers_events: true,
        start_walltime_ns: window.start_wall,
        stop_walltime_ns: window.stop_wall,
        devices: places.devices,
        host_threads,
        scope_tree,
        sync_calls,
        dependency_flows,
        record_anchors,
        launched_earlier,
        memory,
        names,
        annotations: annotations.table,
        shapes,
        counters,
        warnings,
    }
}

/// Time of each pass, for the debug log (where a slow join spends its time), and at debug
/// level the memory after it (which pass grows the join's peak).
struct Laps {
    last: std::time::Instant,
    laps: Vec<Lap>,
    with_memory: bool,
}

struct Lap {
    pass: &'static str,
    time: std::time::Duration,
    memory: Option<LapMemory>,
    /// A pass that ran beside this one on a helper thread, and its own time.
    beside: Option<(&'static str, std::time::Duration)>,
}

enum LapMemory {
    /// The process's resident memory, kB.
    Rss(u64),
    /// The tool's own heap in a `heap-stats` build: live, and the top during the pass, bytes.
    Heap(usize, usize),
}

impl Laps {
    fn start() -> Self {
        // Each pass's top counts from the join's start.
        let _ = crate::heap::interval_peak();
        Laps {
            last: std::time::Instant::now(),
            laps: Vec::new(),
            with_memory: crate::measure::debug_enabled(),
        }
    }

    fn lap(&mut self, pass: &'static str) {
        self.lap_beside(pass, None);
    }

    fn lap_beside(
        &mut self,
        pass: &'static str,
        beside: Option<(&'static str, std::time::Duration)>,
    ) {
        let now = std::time::Instant::now();
        let memory = match crate::heap::stats() {
            _ if !self.with_memory => None,
            Some((live, _)) => Some(LapMemory::Heap(
                live,
                crate::heap::interval_peak().unwrap_or(live),
            )),
            None => crate::measure::process_memory_kb().0.map(LapMemory::Rss),
        };
        self.laps.push(Lap {
            pass,
            time: now - self.last,
            memory,
            beside,
        });
        self.last = now;
    }
}

impl std::fmt::Display for Laps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, l) in self.laps.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{} {:.1} ms", l.pass, l.time.as_secs_f64() * 1e3)?;
            if let Some((pass, time)) = l.beside {
                write!(f, " [{pass} {:.1} ms beside it]", time.as_secs_f64() * 1e3)?;
            }
            match l.memory {
                Some(LapMemory::Rss(kb)) => write!(f, " (rss {} MB)", kb / 1000)?,
                Some(LapMemory::Heap(live, peak)) => write!(
                    f,
                    " (heap {} MB, top {} MB)",
                    live / 1_000_000,
                    peak / 1_000_000
                )?,
                None => {}
            }
        }
        Ok(())
    }
}

/// The correlation-id range of a collection's calls, for its per-call tables.
#[derive(Debug, Clone, Copy)]
struct Ids {
    range: Option<(u64, u64)>,
    count: usize,
}

impl Ids {
    /// The roctx records still packed are not read for it: their ids are their spans' (or
    /// lie among the calls'), and the range only sizes the tables (an id outside it is kept
    /// all the same).
    fn of(c: &Collected) -> Self {
        let calls = c.api.iter().map(|a| a.correlation_id);
        let spans = c
            .markers
            .iter()
            .flat_map(|m| [m.open_correlation_id, m.close_correlation_id]);
        Ids {
            range: id_range(calls.chain(spans)),
            count: c.api.len() + c.marker_records.len(),
        }
    }

    fn map<V>(self) -> CorrMap<V> {
        CorrMap::for_range(self.range, self.count)
    }
}

/// Device planes and how records find them.
struct Places {
    devices: Vec<Device>,
    /// GPU agent handle → plane (enumerated GPUs only; copies use these).
    ordinal_of: HashMap<u64, u32>,
    /// Agent handle → plane for kernels (also agents that are not enumerated GPUs).
    kernel_plane_of: HashMap<u64, u32>,
    /// HIP device index → plane, learned from kernel launches (`hip_device_planes`).
    hip_plane: HashMap<i32, u32>,
    /// The HIP device each launch or copy call was issued to (emptied after the copies).
    issued_on: CorrMap<u16>,
}

impl Places {
    /// The plane of the kernels of `agent` (the first when it is not known): the kernels pass
    /// and the line sizes counted before it place them alike.
    fn kernel_plane(&self, agent: u64) -> u32 {
        self.kernel_plane_of.get(&agent).copied().unwrap_or(0)
    }

    /// The plane of HIP device `d` (sync calls and copies name HIP devices).
    fn of_hip(&self, d: i32) -> Option<u32> {
        self.hip_plane.get(&d).copied().or_else(|| {
            u32::try_from(d)
                .ok()
                .filter(|&d| (d as usize) < self.ordinal_of.len())
        })
    }
}

/// Pass 1: a plane per GPU agent (HIP's numbering); kernels on agents that are not enumerated
/// GPUs still get a plane (numbered by handle, so deterministically), which is reported, not
/// hidden. Copies keep using GPUs only.
fn place_devices(
    agents: &[AgentInfo],
    kernels: &PackedVec<KernelRecord>,
    warnings: &mut Vec<String>,
) -> Places {
    let mut devices: Vec<Device> = Vec::new();
    let mut ordinal_of: HashMap<u64, u32> = HashMap::default();
    for (i, a) in gpu_ordinals(agents).into_iter().enumerate() {
        ordinal_of.insert(a.handle, i as u32);
        devices.push(device_from_agent(i as u32, a));
    }
    let mut kernel_plane_of = ordinal_of.clone();
    let mut other_agents: Vec<u64> = kernels
        .iter()
        .map(|k| k.agent)
        .filter(|h| !ordinal_of.contains_key(h))
        .collect();
    other_agents.sort_unstable();
    other_agents.dedup();
    for h in other_agents {
        let ordinal = devices.len() as u32;
        let what = if agents.iter().any(|a| a.handle == h) {
            "which is not a GPU"
        } else {
            "which was not enumerated"
        };
        warnings.push(format!(
            "kernel dispatches on agent {h:#x}, {what}; shown as GPU {ordinal}"
        ));
        kernel_plane_of.insert(h, ordinal);
        devices.push(Device {
            ordinal,
            agent_handle: h,
            name: format!("unknown agent {h:#x}"),
            ..Device::default()
        });
    }
    Places {
        devices,
        ordinal_of,
        kernel_plane_of,
        hip_plane: HashMap::default(),
        issued_on: CorrMap::default(),
    }
}

/// Sorts one thread's events by start, the longest first (an enclosing range before what it
/// encloses), then correlation id and name; events equal in all four keep their input order.
/// `events[..spans]` are the thread's roctx spans and the rest its calls as delivered: two
/// runs each nearly in order (`util::sort::sort_two_runs`).
fn sort_host_events(events: &mut [HostEvent], spans: usize, names: &Table<Arc<str>>) {
    sort_two_runs(events, spans, |x, y| host_order(names, x, y));
}

/// By start, the longest first, correlation id, then name (the text, as written).
fn host_order(names: &Table<Arc<str>>, x: &HostEvent, y: &HostEvent) -> std::cmp::Ordering {
    (x.start_ns, std::cmp::Reverse(x.end_ns), x.correlation_id)
        .cmp(&(y.start_ns, std::cmp::Reverse(y.end_ns), y.correlation_id))
        .then_with(|| names.get(x.name).cmp(&names.get(y.name)))
}

/// The per-call tables of the device passes: the stream, device and stream creation of each
/// launch and copy, from the facts captured at entry and the creations (the sync facts are
/// restamped with them too, so the producers made of them need no second look). The facts
/// are freed here, before the device events are made.
fn call_tables(
    c: &Collected,
    mut calls: Vec<super::events::CallFact>,
    (syncs, earlier_producers): (
        &mut [super::events::SyncFact],
        &mut [super::events::SyncFact],
    ),
    places: &mut Places,
    ids: Ids,
) -> DeviceWork {
    let creations = super::streams::Creations::new(&c.stream_creations);
    super::streams::restamp(&creations, &mut calls, syncs);
    super::streams::restamp(&creations, &mut [], earlier_producers);
    let work = DeviceWork::new(&calls, ids);
    places.issued_on = issued_devices(&calls, ids);
    places.hip_plane = hip_device_planes(&places.issued_on, &c.kernels, &places.ordinal_of);
    drop(calls);
    work
}

/// What the annotations pass reads and changes of the collection, moved out of it for the
/// pass (which runs beside the call tables) and back: the records (the spans' are dropped),
/// the spans (given their times) and the scopes captured at entry (consumed).
struct Spanned {
    api: Vec<ApiRecord>,
    /// Consumed by the pass: the ones no span stands for are moved into `api`.
    marker_records: PackedVec<ApiRecord>,
    markers: Vec<super::events::MarkerSpan>,
    /// Read for labels and the scope tree only, then dropped.
    scope_context: Vec<super::events::MarkerSpan>,
    scopes: Vec<(u64, i64)>,
    /// Records of spans an earlier window showed: dropped too.
    spans_shown: Vec<u64>,
}

impl Spanned {
    fn take(c: &mut Collected) -> Self {
        Spanned {
            api: std::mem::take(&mut c.api),
            marker_records: std::mem::take(&mut c.marker_records),
            markers: std::mem::take(&mut c.markers),
            scope_context: std::mem::take(&mut c.carried.scope_context),
            scopes: std::mem::take(&mut c.scopes),
            spans_shown: std::mem::take(&mut c.carried.spans_shown),
        }
    }

    fn put_back(self, c: &mut Collected) {
        debug_assert!(self.marker_records.is_empty());
        (c.api, c.markers, c.scopes) = (self.api, self.markers, self.scopes);
    }
}

/// Pass 2: the annotation of each correlation id (roctx context at entry, ranges, external
/// ids from the API records) and the scope-range tree; the roctx records the spans stand for
/// give them their times and are dropped.
fn index_annotations(c: &mut Spanned, ids: Ids) -> (AnnotationIndex, Vec<(i64, i64)>) {
    let mut annotations = AnnotationIndex {
        captured: ids.map(),
        external: ids.map(),
        merged: HashMap::default(),
        table: Table::default(),
    };
    // The roctx records a span stands for become that span's event, never events of their
    // own: placing them in ranges made an annotation per range that nothing read. They are
    // found by id (a bit per id of the range), give the span their times and are dropped
    // here, before the API records are sorted and indexed.
    let mut span_ids = IdSet::for_range(ids.range, 2 * c.markers.len());
    for m in &c.markers {
        for id in [m.open_correlation_id, m.close_correlation_id] {
            if id != 0 {
                span_ids.insert(id);
            }
        }
    }
    for &id in &c.spans_shown {
        span_ids.insert(id);
    }
    take_span_records(c, &span_ids, ids);
    drop(span_ids);
    annotations.captured.reserve(c.scopes.len());
    let mut stacks =
        super::annotations::ScopeStacks::with_context(&c.markers, &c.scope_context, ids.range);
    // In the order captured: where an id was captured twice the later one wins, as it did
    // when they were sorted by id first (a stable sort), which cost the storm's join 110
    // instructions per record for a table that takes them in any order.
    // A thread's calls come in order, so consecutive ones mostly share their scope.
    let mut last: Option<(i64, Id<Annotation>)> = None;
    for (corr, scope) in std::mem::take(&mut c.scopes) {
        let a = match last {
            Some((s, a)) if s == scope => Some(a),
            _ => stacks.annotation(scope),
        };
        if let Some(a) = a {
            last = Some((scope, a));
            annotations.captured.insert(corr, a);
        }
    }
    let marks = c.markers.iter().filter(|m| m.instant);
    super::annotations::annotate_from_ranges(
        &mut annotations.captured,
        c.api
            .iter()
            .map(|a| (a.thread_id, a.correlation_id))
            .chain(marks.map(|m| (m.thread_id, m.open_correlation_id))),
        &c.markers,
        &mut stacks,
    );
    annotations.table = stacks.into_table();
    let scope_tree = super::annotations::scope_tree(c.scope_context.iter().chain(&c.markers));
    for a in &c.api {
        if a.domain != ApiDomain::Hip || a.correlation_id == 0 {
            continue;
        }
        if let Some(e) = NonZeroU64::new(a.external_id) {
            annotations
                .external
                .get_or_insert_with(a.correlation_id, || e);
        }
    }
    (annotations, scope_tree)
}

/// A span takes the times of the buffered records of the calls that opened and closed it (the
/// runtime's clock for the calls; the callbacks' timestamps when a record is missing), and
/// those records are dropped: they become no event of their own. They were held through the
/// device passes to the host events' (the storm's 200,000 push and pop records, 48 B each, at
/// the join's peak), and sorted with the calls. Of an id's repeats, the one first in the API
/// records' order (`api_key`) gives the times, whether it is in `api` (a collection made by
/// hand or converted) or still packed in `marker_records` (the tool's own), which are read
/// there: the roctx records no span stands for are the only ones unpacked, into `api`.
fn take_span_records(c: &mut Spanned, span_ids: &IdSet, ids: Ids) {
    let is_span_record = |a: &ApiRecord| {
        a.domain == ApiDomain::Marker
            && a.correlation_id != 0
            && span_ids.contains(a.correlation_id)
    };
    let roctx_in_api = c.api.iter().any(|a| a.domain == ApiDomain::Marker);
    let in_api = if roctx_in_api {
        positions(&c.api, ids, ApiDomain::Marker)
    } else {
        CorrMap::default()
    };
    // The packed ones, read once: where each span's record is, and the others moved among
    // the calls (after them: the positions above stay as they are).
    let packed = std::mem::take(&mut c.marker_records);
    let mut in_packed: CorrMap<Slot> = ids.map();
    in_packed.reserve(packed.len());
    let mut others = Vec::new();
    for (i, a) in packed.positions() {
        if !is_span_record(&a) {
            others.push(a);
            continue;
        }
        keep_first(&mut in_packed, i, &a, |j| packed.get(j));
    }
    // (Room for them alone: the calls' vector is as long as the calls.)
    c.api.reserve_exact(others.len());
    c.api.append(&mut others);
    for m in &mut c.markers {
        let record = |corr: u64| {
            if corr == 0 {
                return None;
            }
            let unpacked = roctx_in_api
                .then(|| in_api.get(&corr).map(|s| c.api[s.index()]))
                .flatten();
            let packed = in_packed.get(&corr).and_then(|s| packed.get(s.index()));
            match (unpacked, packed) {
                (Some(a), Some(b)) => Some(if api_key(&b) < api_key(&a) { b } else { a }),
                (a, b) => a.or(b),
            }
        };
        let open = record(m.open_correlation_id);
        let close = record(m.close_correlation_id);
        let start = open.map_or(m.start_ns, |r| r.start_ns);
        let end = if m.instant {
            open.map_or(m.end_ns, |r| r.end_ns)
        } else {
            close.map_or(m.end_ns, |r| r.end_ns)
        };
        (m.start_ns, m.end_ns) = (start, end);
    }
    drop((in_api, in_packed, packed));
    if roctx_in_api {
        c.api.retain(|a| !is_span_record(a));
    }
    c.api.shrink_to_fit();
}

/// Pass 3: where each correlation id's HIP record is. The records stay in delivery order: a
/// sort by id moved each 48-byte record along a permutation walked in cycles, a cache miss per
/// record waiting on the one before, and the passes after find records by id, never in order
/// (the host events pass settles each thread's own order, `sort_host_events`).
struct ApiIndex {
    /// Positions in the API records (fewer than 2^32 records of 48 B are ever held; a
    /// `Slot` is 4 B per id of the table).
    hip: CorrMap<Slot>,
    /// Calls an earlier window of the same profile wrote (`Collected::launched_earlier`).
    earlier: Vec<u64>,
}

impl ApiIndex {
    fn build(api: &[ApiRecord], ids: Ids, earlier: &[u64]) -> Self {
        ApiIndex {
            hip: positions(api, ids, ApiDomain::Hip),
            earlier: earlier.to_vec(),
        }
    }

    /// Whether an activity with this id has its launching call in the collection (counted
    /// when not).
    fn launched(&self, corr: u64) -> bool {
        corr != 0 && (self.hip.contains_key(&corr) || self.earlier.binary_search(&corr).is_ok())
    }
}

/// The API records' order: by correlation id, then every other field.
fn api_key(a: &ApiRecord) -> (u64, u64, u64, u64, i32, ApiDomain, u64) {
    (
        a.correlation_id,
        a.start_ns,
        a.end_ns,
        a.thread_id,
        a.operation,
        a.domain,
        a.external_id,
    )
}

/// Where each correlation id's record of `domain` is in `api`: of an id's repeats, the first
/// in the records' order (`api_key`), whatever order they were delivered in.
fn positions(api: &[ApiRecord], ids: Ids, domain: ApiDomain) -> CorrMap<Slot> {
    let mut map: CorrMap<Slot> = ids.map();
    map.reserve(api.iter().filter(|a| a.domain == domain).count());
    for (i, a) in api.iter().enumerate() {
        if a.domain != domain || a.correlation_id == 0 {
            continue;
        }
        keep_first(&mut map, i, a, |j| Some(api[j]));
    }
    map
}

/// Notes `a`, at position `i`, as its id's record unless one first in the records' order
/// (`api_key`) is there already; `at(j)` reads the record at position `j`.
fn keep_first(
    map: &mut CorrMap<Slot>,
    i: usize,
    a: &ApiRecord,
    at: impl Fn(usize) -> Option<ApiRecord>,
) {
    let Some(slot) = Slot::new(i) else { return };
    let kept = map.get_or_insert_with(a.correlation_id, || slot);
    if *kept != slot && at(kept.index()).is_some_and(|b| api_key(a) < api_key(&b)) {
        *kept = slot;
    }
}

/// Where a line's events stop doubling (`grow`) …
const LINE_SMALL_BELOW: usize = 1 << 16;
/// … and the share of its length it grows by after: an eighth. The kernels stage's last step
/// is the top of its peak (the device events made so far, the room for the next step and the
/// kernel records not yet taken), so the step stays a small share.
const LINE_GROWS_PER: usize = 8;

/// What the device passes produce and the host pass reads.
struct DeviceWork {
    /// The stream of each launch/copy, from its arguments at entry: a slot of `streams` (a
    /// run has a few streams and millions of calls: 4 B per id of the table, not the 16 of a
    /// `LineKey`).
    stream_of: CorrMap<Slot>,
    streams: Vec<LineKey>,
    /// Per correlation id: how many activities (an entry has one at least: 8 B per id, not
    /// 12), and the lowest device they ran on.
    activity_of: CorrMap<(NonZeroU32, u32)>,
    /// The executable graph of each graph launch, from the nodes of its work.
    graph_exec_of: CorrMap<crate::model::graph::GraphExec>,
    /// Events per (plane, stream), in the order the lines were first seen; `line_of` finds a
    /// line and `last` remembers the previous event's, since consecutive events mostly share
    /// one (no ordered-map probe per event).
    lines: Vec<((u32, LineKey), Vec<DeviceEvent>)>,
    line_of: HashMap<(u32, LineKey), usize>,
    last: Option<((u32, LineKey), usize)>,
    /// The lines of each stream slot (one entry per stream of `streams`), by plane, found by
    /// index: consecutive events mostly
    /// change line (the kernels pass walks every GPU's dispatches in time order), so `last`
    /// missed and each event hashed its line's key (`push` took 95 M instructions on
    /// MaxText/10, 71 M by slot).
    slot_lines: Vec<SmallVec<[(u32, u32); 1]>>,
    /// The events each line of `lines` will hold, when counted (`reserve_lines`; 0 when not).
    sizes: Vec<usize>,
}

impl DeviceWork {
    fn new(calls: &[super::events::CallFact], ids: Ids) -> Self {
        let mut stream_of = ids.map();
        stream_of.reserve(calls.len());
        let mut streams = Vec::new();
        let mut slot_of: HashMap<LineKey, Slot> = HashMap::default();
        // A thread's consecutive calls mostly name one stream: the last answer is kept.
        let mut last: Option<(LineKey, Slot)> = None;
        for f in calls.iter().filter(|f| f.correlation_id != 0) {
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
            // (Past 2^32 − 1 streams a call's work goes by its queue.)
            if let Some(slot) = slot {
                stream_of.insert(f.correlation_id, slot);
            }
        }
        let slot_lines = vec![SmallVec::new(); streams.len()];
        DeviceWork {
            stream_of,
            streams,
            activity_of: ids.map(),
            graph_exec_of: ids.map(),
            lines: Vec::new(),
            line_of: HashMap::default(),
            last: None,
            slot_lines,
            sizes: Vec::new(),
        }
    }

    /// The line of call `corr`'s work: the stream it named at its entry (with its slot), else
    /// `otherwise`.
    fn place(&self, corr: u64, otherwise: LineKey) -> (LineKey, Option<Slot>) {
        self.stream_of
            .get(&corr)
            .and_then(|&s| Some((*self.streams.get(s.index())?, Some(s))))
            .unwrap_or((otherwise, None))
    }

    /// The position in `lines` of line (`dev`, `key`), added when new.
    fn line_index(&mut self, dev: u32, key: LineKey) -> usize {
        match self.last {
            Some((k, i)) if k == (dev, key) => i,
            _ => {
                let lines = &mut self.lines;
                let sizes = &mut self.sizes;
                let i = *self.line_of.entry((dev, key)).or_insert_with(|| {
                    lines.push(((dev, key), Vec::new()));
                    sizes.push(0);
                    lines.len() - 1
                });
                self.last = Some(((dev, key), i));
                i
            }
        }
    }

    /// The events of every line, by (plane, stream).
    fn take_lines(&mut self) -> BTreeMap<(u32, LineKey), Vec<DeviceEvent>> {
        self.line_of.clear();
        self.slot_lines.clear();
        self.sizes.clear();
        self.last = None;
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

    /// Adds device event `e` on plane `dev`, line `key` (of stream slot `slot`, when it is a
    /// stream's), and counts it for its launching call.
    fn push(&mut self, dev: u32, (key, slot): (LineKey, Option<Slot>), e: DeviceEvent) {
        let corr = e.correlation_id;
        if corr != 0 {
            let mut first = false;
            let n = self.activity_of.get_or_insert_with(corr, || {
                first = true;
                (NonZeroU32::MIN, dev)
            });
            if !first {
                n.0 = n.0.saturating_add(1);
                n.1 = n.1.min(dev);
            }
            if let Some(g) = e.graph {
                self.graph_exec_of.insert(corr, g.exec());
            }
        }
        let at = self.line_at(dev, (key, slot));
        let line = &mut self.lines[at].1;
        match self.sizes.get(at) {
            // Its second half (`reserve_lines`).
            Some(&n) if line.len() == line.capacity() && n > line.len() => {
                line.reserve_exact(n - line.len());
            }
            _ => grow(line, usize::MAX, LINE_SMALL_BELOW, LINE_GROWS_PER),
        }
        line.push(e);
    }

    /// The position in `lines` of line (`dev`, `key`): by its stream's slot when it has one,
    /// else by key; added when new.
    fn line_at(&mut self, dev: u32, (key, slot): (LineKey, Option<Slot>)) -> usize {
        let known = slot
            .and_then(|s| self.slot_lines.get(s.index()))
            .and_then(|l| l.iter().find(|(d, _)| *d == dev));
        match known {
            Some(&(_, i)) => i as usize,
            None => {
                let i = self.line_index(dev, key);
                if let (Some(s), Ok(at)) = (slot, u32::try_from(i)) {
                    if let Some(l) = self.slot_lines.get_mut(s.index()) {
                        l.push((dev, at));
                    }
                }
                i
            }
        }
    }

    /// Room on each line of `sizes` (`line_sizes`) for its `n` more events, in two steps:
    /// half now, the rest when that is full (`push`). Made whole at once, every line's room
    /// was held beside all the kernel records, which are given back only as they are taken:
    /// the MaxText-sized run's tool heap peaked at the kernels pass, 904.6 MB against 860.6
    /// (one run each of the `heap-stats` build's debug lines). In halves each line is copied
    /// once, half of it, where eighths copied it about eight times.
    fn reserve_lines(&mut self, sizes: Vec<(u32, (LineKey, Option<Slot>), usize)>) {
        for (dev, place, n) in sizes {
            let at = self.line_at(dev, place);
            let line = &mut self.lines[at].1;
            line.reserve_exact(n.div_ceil(2));
            self.sizes[at] = line.len() + n;
        }
    }
}

/// Pass 4: every kernel dispatch record becomes a device event (graph launches: all N of
/// them), on its stream's line, named from its code object.
fn kernel_events(
    (kernels, order): (PackedVec<KernelRecord>, Vec<u32>),
    symbols: &std::collections::HashMap<u64, super::events::KernelSymbol>,
    places: &Places,
    api: &ApiIndex,
    annotations: &mut AnnotationIndex,
    work: &mut DeviceWork,
    counters: &mut crate::model::Counters,
) -> Table<LaunchShape> {
    // Each record is freed with its chunk once it is an event.
    let mut records = kernels.into_taker();
    // One `KernelCode` per kernel id, shared by its dispatches; one `LaunchShape` per launch
    // entry of the stores (the same kernel, grid, block and queue), shared by its dispatches.
    let mut codes: HashMap<u64, Arc<KernelCode>> = HashMap::default();
    let mut table = Table::default();
    let mut shapes: Vec<Option<(Id<LaunchShape>, u32, bool)>> = vec![None; records.entries()];
    for &i in &order {
        let Some((k, entry)) = records.take_with_entry(i as usize) else {
            continue;
        };
        let Some((start_ns, end_ns)) = usable_span(k.start_ns, k.end_ns, counters) else {
            continue;
        };
        if !api.launched(k.correlation_id) {
            counters.activities_without_api += 1;
        }
        // Per store entry (one agent, one kernel): its plane and whether its symbol came are
        // looked up once, not per dispatch.
        let (shape, dev, has_symbol) = shapes[entry].get_or_insert_with(|| {
            let code = codes
                .entry(k.kernel_id)
                .or_insert_with(|| Arc::new(kernel_code(k.kernel_id, symbols.get(&k.kernel_id))))
                .clone();
            (
                table.push(launch_shape(&k, code)),
                places.kernel_plane(k.agent),
                symbols.contains_key(&k.kernel_id),
            )
        });
        if !*has_symbol {
            counters.kernels_without_symbol += 1;
        }
        let (shape, dev) = (*shape, *dev);
        let info = KernelInfo {
            dispatch_id: k.dispatch_id,
            shape,
        };
        let key = work.place(k.correlation_id, LineKey::Queue(k.queue));
        let (graph, external) = crate::model::graph::split(k.external_id);
        let e = DeviceEvent {
            start_ns,
            end_ns,
            correlation_id: k.correlation_id,
            thread_id: k.thread_id,
            kind: DeviceEventKind::Kernel(info),
            annotation: annotations.get(k.correlation_id, external),
            graph,
        };
        work.push(dev, key, e);
    }
    table
}

/// The kernel records' positions in time order (ties by end, correlation id, dispatch, agent,
/// queue, then position): the order their events are made in.
fn kernel_order(kernels: &PackedVec<KernelRecord>) -> Vec<u32> {
    stable_order(
        || kernels.positions().map(|(i, k)| (i, k.start_ns)),
        |i| {
            kernels
                .get(i)
                .map(|k| (k.end_ns, k.correlation_id, k.dispatch_id, k.agent, k.queue))
        },
    )
}

/// The launch facts of dispatch `k` of the kernel `code`.
fn launch_shape(k: &KernelRecord, code: Arc<KernelCode>) -> LaunchShape {
    LaunchShape {
        grid: [
            ceil_div(k.grid[0], k.workgroup[0]),
            ceil_div(k.grid[1], k.workgroup[1]),
            ceil_div(k.grid[2], k.workgroup[2]),
        ],
        block: k.workgroup,
        dynamic_shared_bytes: k
            .group_segment_size
            .saturating_sub(code.static_shared_bytes),
        private_segment_bytes: k.private_segment_size,
        queue: k.queue,
        pipe_id: k.pipe_id,
        code,
    }
}

/// A kernel's code-object facts from its symbol; named by id when the symbol never came.
fn kernel_code(kernel_id: u64, sym: Option<&super::events::KernelSymbol>) -> KernelCode {
    KernelCode {
        name: sym.map_or_else(
            || Arc::from(unknown_kernel_name(kernel_id)),
            |s| s.name.clone(),
        ),
        kernel_id,
        // Saturating: a corrupt symbol (or a converted file's row) may claim counts near
        // u32::MAX, whose sum overflowed (a panic in debug builds).
        vgpr_count: sym.map_or(0, |s| s.arch_vgpr_count.saturating_add(s.accum_vgpr_count)),
        agpr_count: sym.map_or(0, |s| s.accum_vgpr_count),
        sgpr_count: sym.map_or(0, |s| s.sgpr_count),
        symbol_scratch_bytes: sym.map_or(0, |s| s.private_segment_size),
        static_shared_bytes: sym.map_or(0, |s| s.group_segment_size),
    }
}

/// The HIP device each launch or copy call was issued to. 16 bits (`Option<u16>` is 4 B per id
/// of the table, `Option<i32>` 8): a HIP device number past 65,535 is no device of any node.
fn issued_devices(calls: &[super::events::CallFact], ids: Ids) -> CorrMap<u16> {
    let mut map = ids.map();
    // Room once: entry by entry the table filled a hash map until dense enough for its vector.
    map.reserve(calls.len());
    for f in calls.iter().filter(|f| f.correlation_id != 0) {
        if let Ok(d) = u16::try_from(f.device) {
            map.insert(f.correlation_id, d);
        }
    }
    map
}

/// Pass 5, first half: every memory copy placed on the plane of the device it was issued to
/// (its stream's device, as CUPTI reports it) when the HIP callback saw the call, else on its
/// GPU end, with the memory kinds of its two sides. It needs neither the annotations nor the
/// lines, so it runs beside the kernels pass (`side_by_side`).
fn place_copies(
    mut copies: Vec<CopyRecord>,
    (earlier, memory): (&super::memory::LiveMemory, &[super::events::MemFact]),
    copy_ptrs: &[super::events::CopyPtrs],
    places: &Places,
) -> PlacedCopies {
    copies.sort_by_key(|m: &CopyRecord| {
        (
            m.start_ns,
            m.end_ns,
            m.correlation_id,
            m.operation,
            m.bytes,
            m.src_agent,
            m.dst_agent,
        )
    });
    let mut placed = PlacedCopies {
        copies: Vec::with_capacity(copies.len()),
        counters: crate::model::Counters::default(),
        without_gpu: 0,
    };
    let gpu_count = places.ordinal_of.len();
    // Memory kinds of each copy's two sides, from the allocations live at its call.
    let directions: HashMap<u64, CopyDirection> = copies
        .iter()
        .map(|m| {
            (
                m.correlation_id,
                crate::hip::ops::copy_direction(m.operation),
            )
        })
        .collect();
    let sides = |corr| directions.get(&corr)?.gpu_sides();
    let copy_kinds = super::memory::copy_kinds(earlier, memory, copy_ptrs, sides);
    drop(directions);
    for m in &copies {
        let Some((start_ns, end_ns)) = usable_span(m.start_ns, m.end_ns, &mut placed.counters)
        else {
            continue;
        };
        let Some(dev) = copy_plane(m, places, gpu_count) else {
            placed.without_gpu += 1;
            continue;
        };
        let (graph, external) = crate::model::graph::split(m.external_id);
        let e = DeviceEvent {
            start_ns,
            end_ns,
            correlation_id: m.correlation_id,
            thread_id: m.thread_id,
            kind: DeviceEventKind::Memcpy(Box::new(MemcpyInfo {
                direction: crate::hip::ops::copy_direction(m.operation),
                bytes: m.bytes,
                src_device: places.ordinal_of.get(&m.src_agent).copied(),
                dst_device: places.ordinal_of.get(&m.dst_agent).copied(),
                kinds: copy_kinds.get(&m.correlation_id).copied(),
            })),
            annotation: None,
            graph,
        };
        placed.copies.push((dev, external, e));
    }
    placed
}

/// The plane of copy `m`: the device its call was issued to, else a GPU side of it, else the
/// first GPU; none without GPUs. (`gpu_count` is `places.ordinal_of.len()`, read once.)
fn copy_plane(m: &CopyRecord, places: &Places, gpu_count: usize) -> Option<u32> {
    let issued = places
        .issued_on
        .get(&m.correlation_id)
        .filter(|_| m.correlation_id != 0)
        .and_then(|&d| {
            issued_plane(
                i32::from(d),
                m,
                &places.hip_plane,
                &places.ordinal_of,
                gpu_count,
            )
        });
    issued
        .or_else(|| copy_device(m, &places.ordinal_of))
        .or(if places.devices.is_empty() {
            None
        } else {
            Some(0)
        })
}

/// How many events each line will get from the kernels and the copies, as (plane, line,
/// events): counted before the kernels pass so that each line is allocated at its size, in
/// two steps (`DeviceWork::reserve_lines`). A line grown in eighths was copied whole at each
/// step (`grow`): `memmove` was 32.8 % of the kernels pass's samples on the MaxText-sized
/// run (`ci/perf-pass.sh … join::kernel_events`). Records the passes will skip (no usable
/// span, no GPU for a copy) are counted too: room for a few events more, never a copy.
fn line_sizes(
    kernels: &PackedVec<KernelRecord>,
    copies: &[CopyRecord],
    places: &Places,
    work: &DeviceWork,
) -> Vec<(u32, (LineKey, Option<Slot>), usize)> {
    // By stream slot and plane (a run has a few of each): no hashing per record. Lines of
    // no stream (a queue's, the copies' own) by key, the previous one remembered.
    let mut by_slot: Vec<SmallVec<[(u32, usize); 1]>> = vec![SmallVec::new(); work.streams.len()];
    let mut by_key: HashMap<(u32, LineKey), usize> = HashMap::default();
    let mut count = |dev: u32, (key, slot): (LineKey, Option<Slot>)| match slot
        .and_then(|s| by_slot.get_mut(s.index()))
    {
        Some(planes) => match planes.iter_mut().find(|(d, _)| *d == dev) {
            Some((_, n)) => *n += 1,
            None => planes.push((dev, 1)),
        },
        None => *by_key.entry((dev, key)).or_default() += 1,
    };
    let mut last_agent = None;
    for k in kernels.iter() {
        let dev = match last_agent {
            Some((agent, dev)) if agent == k.agent => dev,
            _ => {
                let dev = places.kernel_plane(k.agent);
                last_agent = Some((k.agent, dev));
                dev
            }
        };
        count(dev, work.place(k.correlation_id, LineKey::Queue(k.queue)));
    }
    let gpu_count = places.ordinal_of.len();
    for m in copies {
        if let Some(dev) = copy_plane(m, places, gpu_count) {
            count(dev, work.place(m.correlation_id, LineKey::Copies));
        }
    }
    let slotted = by_slot.into_iter().enumerate().flat_map(|(i, planes)| {
        let key = work.streams[i];
        planes
            .into_iter()
            .map(move |(dev, n)| (dev, (key, Slot::new(i)), n))
    });
    let mut sizes: Vec<_> = slotted
        .chain(
            by_key
                .into_iter()
                .map(|((dev, key), n)| (dev, (key, None), n)),
        )
        .collect();
    // Lines are made in this order: the same every run.
    sizes.sort_unstable_by_key(|&(dev, (key, _), _)| (dev, key));
    sizes
}

/// The copies as events in time order, each with its plane and its record's external
/// correlation id; and what placing them counted.
struct PlacedCopies {
    copies: Vec<(u32, u64, DeviceEvent)>,
    counters: crate::model::Counters,
    without_gpu: u64,
}

/// Pass 5, second half: each placed copy, annotated, on its stream's line, in time order
/// after the kernels (whose lines and annotations it shares).
fn copy_events(
    placed: PlacedCopies,
    api: &ApiIndex,
    annotations: &mut AnnotationIndex,
    work: &mut DeviceWork,
    counters: &mut crate::model::Counters,
    warnings: &mut Vec<String>,
) {
    *counters += &placed.counters;
    for (dev, external, mut e) in placed.copies {
        if !api.launched(e.correlation_id) {
            counters.activities_without_api += 1;
        }
        let key = work.place(e.correlation_id, LineKey::Copies);
        e.annotation = annotations.get(e.correlation_id, external);
        work.push(dev, key, e);
    }
    let copies_without_gpu = placed.without_gpu;
    if copies_without_gpu > 0 {
        warnings.push(format!(
            "{copies_without_gpu} memory copies could not be placed: no GPU agent known"
        ));
    }
}

/// Pass 6: lines are HIP streams (model::streams); sync calls name streams too, so those
/// streams get numbers even without device work of their own.
fn stream_lines<'s>(
    syncs: impl Iterator<Item = &'s super::events::SyncFact>,
    places: &mut Places,
    lines: BTreeMap<(u32, LineKey), Vec<DeviceEvent>>,
    threads: usize,
    numbers: &mut super::streams::StreamNumbers,
    counters: &mut crate::model::Counters,
) -> super::streams::StreamIndex {
    // Read as the lines are built, not collected first (32 B per sync call naming a stream).
    let known_streams = syncs.filter(|f| f.kind.names_a_stream()).filter_map(|f| {
        places
            .of_hip(f.device)
            .map(|p| (p, stream_key(f.stream, f.stream_seq), f.correlation_id))
    });
    let (device_lines, stream_index) = super::streams::build_lines_with(
        lines,
        known_streams,
        &mut counters.stream_overlap_events,
        numbers,
        |tasks| prepare_lines(tasks, threads),
    );
    for (dev, dev_lines) in device_lines {
        places.devices[dev as usize].lines = dev_lines;
    }
    stream_index
}

/// Each stream's line prepared (sorted, split where it overlaps, indexed), the streams shared
/// between this thread and a helper by their events, largest first to the one with fewer: a
/// stream needs nothing of another, and which thread prepared it changes nothing in it.
fn prepare_lines(
    mut tasks: Vec<super::streams::LineTask>,
    threads: usize,
) -> Vec<super::streams::PreparedLine> {
    let prepare = |tasks: Vec<super::streams::LineTask>| -> Vec<super::streams::PreparedLine> {
        tasks
            .into_iter()
            .map(super::streams::prepare_line)
            .collect()
    };
    if threads < 2 || tasks.len() < 2 {
        return prepare(tasks);
    }
    tasks.sort_by_key(|t| std::cmp::Reverse(t.1.len()));
    let (mut here, mut beside) = (Vec::new(), Vec::new());
    let (mut here_events, mut beside_events) = (0usize, 0usize);
    for t in tasks {
        if here_events <= beside_events {
            here_events += t.1.len();
            here.push(t);
        } else {
            beside_events += t.1.len();
            beside.push(t);
        }
    }
    let (mut lines, others) = side_by_side(threads, beside, prepare, || prepare(here));
    lines.extend(others);
    lines
}

/// A host thread's events while they are built, towards its known count: made whole up
/// front, they would be held beside the API records they are made from, which are given back
/// as they are taken.
#[derive(Default)]
struct Growing {
    /// Made last first: the records are taken from the end.
    events: Backwards<HostEvent>,
    /// How many of the events are roctx spans (pushed after the calls).
    spans: usize,
}

/// Each thread's host events as they grow, in thread id order. `of` tries the thread it
/// answered last before searching: a thread's records come in runs, and an ordered map's
/// search per record was 1.6 % of MaxText/10's finalize in instructions.
struct ThreadEvents {
    list: Vec<(u64, Growing)>,
    last: usize,
}

impl ThreadEvents {
    /// One entry per thread of `sizes`, growing towards its size.
    fn new(sizes: HashMap<u64, usize>) -> Self {
        let all = sizes.values().sum();
        let mut list: Vec<(u64, Growing)> = sizes
            .into_iter()
            .map(|(t, total)| (t, Growing::towards(total, all)))
            .collect();
        list.sort_unstable_by_key(|(t, _)| *t);
        ThreadEvents { list, last: 0 }
    }

    /// Thread `tid`'s events; a thread not counted in the sizes gets an entry of its own.
    fn of(&mut self, tid: u64) -> &mut Growing {
        if self.list.get(self.last).is_none_or(|(t, _)| *t != tid) {
            self.last = match self.list.binary_search_by_key(&tid, |(t, _)| *t) {
                Ok(i) => i,
                Err(i) => {
                    self.list.insert(i, (tid, Growing::default()));
                    i
                }
            };
        }
        &mut self.list[self.last].1
    }
}

impl Growing {
    /// `all`: every thread's count. A thread of more than an eighth of them grows in place
    /// (`Backwards::in_place`): joining its chunks would hold its events twice for a moment,
    /// and a program that calls from one thread would hold them all twice at the join's end
    /// (`tests/peak_guard.rs`).
    fn towards(total: usize, all: usize) -> Self {
        Growing {
            events: if total > all / 8 {
                Backwards::in_place(total)
            } else {
                Backwards::towards(total)
            },
            spans: 0,
        }
    }

    fn push(&mut self, e: HostEvent) {
        self.events.push(e);
    }
}

/// The host events' names, each stored once in the trace's table and found by its address:
/// the operation names and the roctx labels (interned by the capture) are `Arc`s shared by
/// many events. The table holds every name it hands out an id for, so an address cannot be
/// reused by another name while this lives.
#[derive(Default)]
struct NameTable {
    table: Table<Arc<str>>,
    by_addr: HashMap<usize, Name>,
    /// The name asked for last: consecutive spans of a loop mostly share their label.
    last: Option<(usize, Name)>,
}

impl NameTable {
    fn intern(&mut self, name: &Arc<str>) -> Name {
        let addr = Arc::as_ptr(name).cast::<u8>() as usize;
        if let Some((_, id)) = self.last.filter(|&(a, _)| a == addr) {
            return id;
        }
        let table = &mut self.table;
        let id = *self
            .by_addr
            .entry(addr)
            .or_insert_with(|| table.push(name.clone()));
        self.last = Some((addr, id));
        id
    }
}

/// The runtime's operation names by (domain, operation), as a table per domain: operations
/// are small numbers (a few hundred HIP functions), and a hash probe per API record was a
/// tenth of the host events' pass. Each entry is the name's id and whether the operation
/// launches device work (looked up once per operation, not by name per record).
struct OpNames {
    hip: Vec<Option<(Name, bool)>>,
    marker: Vec<Option<(Name, bool)>>,
}

/// Operations at or past this are left out of the tables (none are: the runtime numbers its
/// operations from 0), and shown as unnamed.
const MAX_OPERATION: usize = 1 << 16;

impl OpNames {
    fn new(
        names: &std::collections::HashMap<(ApiDomain, i32), Arc<str>>,
        interned: &mut NameTable,
    ) -> Self {
        let mut t = OpNames {
            hip: Vec::new(),
            marker: Vec::new(),
        };
        // In operation order, so the table's ids do not follow the map's iteration order.
        let mut ops: Vec<_> = names.iter().collect();
        ops.sort_unstable_by_key(|(&(d, op), _)| (d == ApiDomain::Marker, op));
        for (&(domain, op), name) in ops {
            let Some(i) = usize::try_from(op).ok().filter(|&i| i < MAX_OPERATION) else {
                continue;
            };
            let launches =
                domain == ApiDomain::Hip && crate::hip::ops::expects_device_activity(name);
            let entry = (interned.intern(name), launches);
            let table = t.table_mut(domain);
            if table.len() <= i {
                table.resize(i + 1, None);
            }
            table[i] = Some(entry);
        }
        t
    }

    fn table_mut(&mut self, domain: ApiDomain) -> &mut Vec<Option<(Name, bool)>> {
        match domain {
            ApiDomain::Hip => &mut self.hip,
            ApiDomain::Marker => &mut self.marker,
        }
    }

    fn get(&self, domain: ApiDomain, op: i32) -> Option<(Name, bool)> {
        let table = match domain {
            ApiDomain::Hip => &self.hip,
            ApiDomain::Marker => &self.marker,
        };
        *table.get(usize::try_from(op).ok()?)?
    }
}

/// Pass 8: host threads: roctx spans (timed by the buffered records of the calls that opened
/// and closed them, runtime clock, else the callback's own timestamps) and every API call,
/// with what it launched.
fn host_events(
    c: &mut Collected,
    work: &DeviceWork,
    annotations: &mut AnnotationIndex,
    counters: &mut crate::model::Counters,
) -> (Vec<HostThread>, Table<Arc<str>>) {
    let mut names = NameTable::default();
    let op_names = OpNames::new(&c.op_names, &mut names);
    // Operations the runtime did not name: one name each, made on first use.
    let mut unnamed: HashMap<(ApiDomain, i32), Name> = HashMap::default();
    let mut op_name = |names: &mut NameTable, a: &ApiRecord| -> (Name, bool) {
        op_names.get(a.domain, a.operation).unwrap_or_else(|| {
            let id = *unnamed.entry((a.domain, a.operation)).or_insert_with(|| {
                let d = match a.domain {
                    ApiDomain::Hip => "hip",
                    ApiDomain::Marker => "roctx",
                };
                names
                    .table
                    .push(Arc::from(format!("<{d} operation {}>", a.operation)))
            });
            (id, false)
        })
    };

    // The spans become events and are not needed after: taken, and given back as they are
    // (below, after the calls).
    let mut markers = std::mem::take(&mut c.markers);
    let span_order = |a: &super::events::MarkerSpan, b: &super::events::MarkerSpan| {
        (a.thread_id, a.open_correlation_id, a.start_ns)
            .cmp(&(b.thread_id, b.open_correlation_id, b.start_ns))
            .then_with(|| a.label.cmp(&b.label))
    };
    // Moved once each: a stable sort of the spans themselves would take a scratch copy.
    sort_by_positions(&mut markers, span_order);
    // Each thread's events grow in chunks towards its known count (`Growing`). The roctx
    // records the spans stand for are gone already (`take_span_records`): every record left
    // is an event.
    let mut sizes: HashMap<u64, usize> = HashMap::default();
    for t in markers.iter().map(|m| m.thread_id) {
        *sizes.entry(t).or_default() += 1;
    }
    for a in &c.api {
        *sizes.entry(a.thread_id).or_default() += 1;
    }
    let mut threads = ThreadEvents::new(sizes);

    // The records are taken from the end, and the vector shrunk as they go, so its memory is
    // given back while the host events (48 B each, as the records are) grow: the two never
    // coexist whole at the join's peak. Each thread's events come out last first, and are
    // turned round below.
    let mut records = FromTheEnd::new(std::mem::take(&mut c.api));
    while let Some(a) = records.next() {
        let annotation = annotations.get(a.correlation_id, a.external_id);
        let (name, launches) = op_name(&mut names, a);
        let (count, device) = work
            .activity_of
            .get(&a.correlation_id)
            .filter(|_| a.correlation_id != 0 && a.domain == ApiDomain::Hip)
            .map_or((0, None), |&(n, d)| (n.get(), u16::try_from(d).ok()));
        if launches && count == 0 {
            counters.launches_without_activity += 1;
        }
        threads.of(a.thread_id).push(HostEvent {
            name,
            start_ns: a.start_ns,
            end_ns: a.end_ns.max(a.start_ns),
            correlation_id: a.correlation_id,
            kind: match a.domain {
                ApiDomain::Hip => HostEventKind::HipApi,
                ApiDomain::Marker => HostEventKind::Marker,
            },
            annotation,
            device: device.into(),
            activity_count: count,
            graph_exec_id: work.graph_exec_of.get(&a.correlation_id).copied(),
        });
    }

    drop(records);

    // The spans, taken from the end as the records were: each thread's events are now its
    // calls and then its spans, both last first, and are turned round below.
    let mut spans = FromTheEnd::new(markers);
    while let Some(m) = spans.next() {
        let (start, end) = (m.start_ns, m.end_ns);
        let thread = threads.of(m.thread_id);
        thread.spans += 1;
        thread.push(HostEvent {
            name: names.intern(&m.label),
            start_ns: start,
            end_ns: end.max(start),
            // A push/pop range's scope id is its push's correlation id, which the event
            // carries (`HostEvent::scope_id`); a push that had no usable id got a fresh one.
            correlation_id: match m.scope_id {
                0 => m.open_correlation_id,
                scope => scope as u64,
            },
            kind: if m.instant {
                HostEventKind::Marker
            } else {
                HostEventKind::MarkerRange(RangeInfo {
                    process_wide: m.process_wide,
                    open_at_end: m.open_at_end,
                })
            },
            // A mark carries the context it was made in; a range is its own scope.
            annotation: if m.instant {
                annotations.get(m.open_correlation_id, 0)
            } else {
                None
            },
            device: Ordinal16::NONE,
            activity_count: 0,
            graph_exec_id: None,
        });
    }

    drop(spans);
    let names = names.table;
    let threads = threads
        .list
        .into_iter()
        .map(|(tid, grown)| {
            let spans = grown.spans;
            // Spans first, in their order, then the calls as delivered (`sort_host_events`
            // settles and merges the two runs).
            let mut events = grown.events.into_vec();
            sort_host_events(&mut events, spans, &names);
            HostThread {
                tid,
                name: c.thread_names.get(&tid).cloned().unwrap_or_default(),
                events,
            }
        })
        .collect();
    (threads, names)
}

/// Pass 7: inter-stream dependencies of the sync calls (model::deps). It needs no host
/// event, and the host events pass needs nothing of it: the two run side by side
/// (`side_by_side`). What it reads is taken out of the collection first (`take`), the API
/// records' part of it copied (`deps::CallEnds`), since the host events pass consumes them.
struct DependencyWork {
    syncs: Vec<super::events::SyncFact>,
    /// Records that are not calls of this collection (`Collected::earlier_producers`):
    /// producers only.
    earlier_producers: Vec<super::events::SyncFact>,
    call_ends: super::deps::CallEnds,
    hip_events: Vec<(super::events::HipEventOp, super::events::HipEventRecord)>,
    host_salt: u64,
    /// `Collected::earlier_anchors` and `anchors_wanted`.
    anchors: (Vec<(u64, super::trace::Anchor)>, Vec<u64>),
}

/// What the dependency pass makes (the sync calls, the arrows, where the arrows from the
/// records the next window needs start), and its own accounting and time (for the debug
/// line).
type Dependencies = (
    (
        Vec<super::trace::SyncCall>,
        Vec<super::trace::DependencyFlow>,
        Vec<(u64, super::trace::Anchor)>,
    ),
    crate::model::Counters,
    std::time::Duration,
);

impl DependencyWork {
    /// Only the call ends are made here (beside the kernels pass); the rest of the pass's
    /// inputs are moved, and made ready beside the host events.
    fn take(
        (syncs, earlier_producers): (Vec<super::events::SyncFact>, Vec<super::events::SyncFact>),
        hip_events: Vec<(super::events::HipEventOp, super::events::HipEventRecord)>,
        api_records: &[ApiRecord],
        api: &ApiIndex,
        host_salt: u64,
        anchors: (Vec<(u64, super::trace::Anchor)>, Vec<u64>),
    ) -> Self {
        let call_ends = super::deps::CallEnds::of(&syncs, |corr| {
            api.hip.get(&corr).map(|&i| &api_records[i.index()])
        });
        DependencyWork {
            syncs,
            earlier_producers,
            call_ends,
            hip_events,
            host_salt,
            anchors,
        }
    }

    fn resolve(self, stream_index: &super::streams::StreamIndex, places: &Places) -> Dependencies {
        let began = std::time::Instant::now();
        let mut counters = crate::model::Counters::default();
        let producers =
            super::deps::ProducerIndex::of(self.syncs.iter().chain(&self.earlier_producers));
        let (earlier_anchors, wanted) = self.anchors;
        let earlier_anchors: HashMap<u64, super::trace::Anchor> =
            earlier_anchors.into_iter().collect();
        let mut barriers: HashMap<(u64, super::events::HipEventOp), u64> = HashMap::default();
        for (op, r) in self
            .hip_events
            .iter()
            .filter(|(_, r)| r.correlation_id != 0)
        {
            let e = barriers.entry((r.correlation_id, *op)).or_default();
            *e = (*e).max(r.end_ns);
        }
        drop(self.hip_events);
        let plane_of = |d: i32| places.of_hip(d);
        let lines_of = |p: u32| places.devices.get(p as usize).map(|d| d.lines.as_slice());
        let inputs = super::deps::DepInputs {
            producers: &producers,
            streams: stream_index,
            lines_of: &lines_of,
            plane_of: &plane_of,
            call_ends: &self.call_ends,
            barriers: &barriers,
            earlier_anchors: &earlier_anchors,
            host_salt: self.host_salt,
        };
        let record_anchors = if wanted.is_empty() {
            Vec::new()
        } else {
            let wanted: crate::fastmap::HashSet<u64> = wanted.into_iter().collect();
            super::deps::record_anchors(
                &inputs,
                self.syncs
                    .iter()
                    .chain(&self.earlier_producers)
                    .filter(|s| wanted.contains(&s.correlation_id)),
            )
        };
        drop(self.earlier_producers);
        let (calls, flows) = super::deps::resolve_dependencies(self.syncs, &inputs, &mut counters);
        ((calls, flows, record_anchors), counters, began.elapsed())
    }
}

/// What running passes side by side holds beyond what one thread holds running them one
/// after the other, at most: the call tables' per-call vectors and the kernels' order, made
/// while the annotations' are (about 12 B per call and per kernel), the copies' placing
/// maps (their directions and memory kinds by correlation id, about 32 B per copy) while
/// the kernels grow, a second stream's line being prepared (its activities with their times,
/// 32 B per event, and a sort's scratch of half its events, 32 B per event: at most half the
/// device events are on the helper's lines), or the dependency pass's inputs, held while the
/// host events grow (the sync facts, the producers made of them, the call ends, 24 B each).
pub fn beside_bytes(c: &Collected) -> usize {
    use std::mem::size_of;
    let tables = (c.api.len() + c.kernels.len()) * 3 * size_of::<u32>();
    let placing = c.copies.len() * 4 * size_of::<u64>();
    let lines = (c.kernels.len() + c.copies.len()) / 2 * 64;
    let ends = size_of::<u64>() + size_of::<super::deps::CallEnd>();
    let dependencies = c.syncs.len()
        * (size_of::<super::events::SyncFact>() + size_of::<super::deps::Producer>() + ends)
        + c.hip_events.len()
            * size_of::<(super::events::HipEventOp, super::events::HipEventRecord)>();
    tables.max(placing).max(lines).max(dependencies)
}

/// The profile's time window, boot and wall clock.
struct Window {
    start: u64,
    stop: u64,
    start_wall: u64,
    stop_wall: u64,
}

/// Pass 9: the window covers the session and every event (events before the start move it).
/// The wall-clock window is the boottime window shifted by the offset between the two clocks,
/// measured once at the start: the same two instants, so the Task Environment times and the
/// event offsets agree even if the clocks drift apart during the run (or, in the simulator,
/// run at different speeds).
fn time_window(c: &Collected, host_threads: &[HostThread], devices: &[Device]) -> Window {
    // None until known: a start of 0 is "not recorded" only as the collection's, never as an
    // event's. An event at 0 (a record the runtime stamped 0) once set the start to 0, and the
    // next event, taking 0 for "unset", set it past the first: the window then missed it.
    let mut start = (c.start_boottime_ns != 0).then_some(c.start_boottime_ns);
    let mut stop = c.stop_boottime_ns;
    let all_times = host_threads
        .iter()
        .flat_map(|t| t.events.iter().map(|e| (e.start_ns, e.end_ns)))
        .chain(
            devices
                .iter()
                .flat_map(|d| d.lines.iter())
                .flat_map(|l| l.events.iter().map(|e| (e.start_ns, e.end_ns))),
        );
    for (s, e) in all_times {
        start = Some(start.map_or(s, |start| start.min(s)));
        stop = stop.max(e);
    }
    let start = start.unwrap_or(0);
    let stop = stop.max(start);
    let (start_wall, stop_wall) = if c.start_walltime_ns == 0 {
        (0, 0)
    } else {
        let offset = i128::from(c.start_walltime_ns) - i128::from(c.start_boottime_ns);
        let wall = |t: u64| u64::try_from(i128::from(t) + offset).unwrap_or(0);
        (wall(start), wall(stop))
    };
    Window {
        start,
        stop,
        start_wall,
        stop_wall: stop_wall.max(start_wall),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::next_random;

    /// Each stream's line is prepared on either thread and in any order, and the lines, the
    /// streams' numbers and the anchors found on them are those of one thread. Streams overlap
    /// themselves, so sub-lines take ids past the streams' numbers: an anchor must name the
    /// line its event is on, checked against the lines themselves.
    #[test]
    fn stream_lines_prepared_on_two_threads_are_those_of_one_thread() {
        use super::super::streams::{build_lines, build_lines_with, prepare_line};
        use super::super::trace::{Anchor, AnchorPlace, DeviceLine};
        let mut seed = 0x5eed_u64;
        let keys = [
            LineKey::Null,
            LineKey::Created(1),
            LineKey::Created(2),
            LineKey::Unknown(0xa0),
            LineKey::Queue(0xb0),
            LineKey::Copies,
        ];
        let mut grouped = BTreeMap::new();
        let mut corr = 1u64;
        for plane in 0..3u32 {
            for &key in &keys {
                let count = 5 + (next_random(&mut seed) % 40) as usize;
                let mut t = 1_000u64;
                let mut events: Vec<DeviceEvent> = (0..count)
                    .map(|_| {
                        t += next_random(&mut seed) % 50;
                        // Graph launches share an id.
                        corr += next_random(&mut seed) % 2;
                        super::super::streams::tests::ev(corr, t, t + next_random(&mut seed) % 80)
                    })
                    .collect();
                // Not quite in time order, as copies after the kernels leave a line.
                for _ in 0..count / 4 {
                    let (i, j) = (
                        (next_random(&mut seed) % count as u64) as usize,
                        (next_random(&mut seed) % count as u64) as usize,
                    );
                    events.swap(i, j);
                }
                grouped.insert((plane, key), events);
            }
        }
        // Sync calls name most streams, one with no work of its own, and (ignored) a queue.
        let known = vec![
            (0, LineKey::Created(3), 5),
            (0, LineKey::Created(1), 2),
            (0, LineKey::Created(2), 9),
            (1, LineKey::Null, 1),
            (1, LineKey::Unknown(0xa0), 3),
            (2, LineKey::Created(2), 4),
            (2, LineKey::Queue(0xb0), 1),
        ];
        let one_thread = |g| {
            let mut split = 0;
            let (lines, index) = build_lines(g, known.clone(), &mut split);
            (lines, index, split)
        };
        let two_threads = |g| {
            let mut split = 0;
            let (lines, index) =
                build_lines_with(g, known.clone(), &mut split, &mut Default::default(), |t| {
                    prepare_lines(t, 2)
                });
            (lines, index, split)
        };
        let reversed = |g| {
            let mut split = 0;
            let (lines, index) =
                build_lines_with(g, known.clone(), &mut split, &mut Default::default(), |t| {
                    t.into_iter().rev().map(prepare_line).collect()
                });
            (lines, index, split)
        };
        let listing = |lines: &BTreeMap<u32, Vec<DeviceLine>>| {
            lines
                .iter()
                .flat_map(|(&p, ls)| {
                    ls.iter().map(move |l| {
                        let events: Vec<(u64, u64, u64)> = l
                            .events
                            .iter()
                            .map(|e| (e.start_ns, e.end_ns, e.correlation_id))
                            .collect();
                        (p, l.id, l.name.clone(), events)
                    })
                })
                .collect::<Vec<_>>()
        };
        let (lines, index, split) = one_thread(grouped.clone());
        assert!(split > 0, "the fixture's streams overlap themselves");
        for (other_lines, other_index, other_split) in
            [two_threads(grouped.clone()), reversed(grouped)]
        {
            assert_eq!(listing(&other_lines), listing(&lines));
            assert_eq!(other_split, split);
            for p in 0..3u32 {
                for &key in keys.iter().chain(&[LineKey::Created(3)]) {
                    assert_eq!(other_index.number(p, key), index.number(p, key));
                    assert_eq!(other_index.line_of(p, key), index.line_of(p, key));
                }
            }
            // Anchors, against the lines: the last activity submitted before an id (the one
            // ending last of a graph launch's), the first after it (the one starting first).
            let lines_of = |p: u32| other_lines.get(&p).map(Vec::as_slice);
            // One memory of where each stream was searched, asked in rising order here (the
            // dependency pass asks in falling order).
            let mut near = crate::model::streams::Near::default();
            for &(p, key, _) in known.iter().filter(|k| !matches!(k.1, LineKey::Queue(_))) {
                let Some(n) = other_index.number(p, key) else {
                    panic!("named stream {key:?} has no number");
                };
                let own = format!("Stream #{n}");
                let sub = format!("Stream #{n} (overlap ");
                let events: Vec<(i64, &DeviceEvent)> = other_lines
                    .get(&p)
                    .into_iter()
                    .flatten()
                    .filter(|l| l.name == own || l.name.starts_with(&sub))
                    .flat_map(|l| l.events.iter().map(move |e| (l.id, e)))
                    .collect();
                for c in 0..=corr + 1 {
                    let before = events
                        .iter()
                        .filter(|(_, e)| e.correlation_id < c)
                        .map(|(_, e)| e.correlation_id)
                        .max()
                        .and_then(|m| {
                            events
                                .iter()
                                .filter(|(_, e)| e.correlation_id == m)
                                .max_by_key(|(_, e)| (e.end_ns, e.start_ns))
                        })
                        .map(|&(line, e)| Anchor::on_device(p, line, e.end_ns));
                    let after = events
                        .iter()
                        .filter(|(_, e)| e.correlation_id > c)
                        .map(|(_, e)| e.correlation_id)
                        .min()
                        .and_then(|m| {
                            events
                                .iter()
                                .filter(|(_, e)| e.correlation_id == m)
                                .min_by_key(|(_, e)| (e.start_ns, e.end_ns))
                        })
                        .map(|&(line, e)| Anchor::on_device(p, line, e.start_ns));
                    let got_before = other_index.last_before(&lines_of, p, key, c, &mut near);
                    let got_after = other_index.first_after(&lines_of, p, key, c, &mut near);
                    // Ties of both times may be on either of two lines: the time is the anchor.
                    assert_eq!(
                        got_before.map(|a| a.time_ns),
                        before.map(|a| a.time_ns),
                        "{key:?} before {c}"
                    );
                    assert_eq!(
                        got_after.map(|a| a.time_ns),
                        after.map(|a| a.time_ns),
                        "{key:?} after {c}"
                    );
                    // The line named holds an event of that id at that time.
                    for (got, at_end) in [(got_before, true), (got_after, false)] {
                        let Some(Anchor {
                            place: AnchorPlace::Device { line, .. },
                            time_ns,
                        }) = got
                        else {
                            continue;
                        };
                        assert!(
                            events.iter().any(|&(l, e)| l == line
                                && time_ns == if at_end { e.end_ns } else { e.start_ns }),
                            "{key:?} at {c}: no event at {time_ns} on line {line}"
                        );
                    }
                }
            }
        }
    }

    /// Every event reaches the line of its plane and stream, in the order pushed, whether its
    /// line is found by the stream's slot (one stream's work on two planes, two streams taking
    /// turns) or by key (work whose call named no stream, or no call at all).
    #[test]
    fn device_events_reach_their_line_by_slot_or_by_key() {
        let call = |correlation_id, stream| crate::model::events::CallFact {
            correlation_id,
            stream,
            device: 0,
            stream_seq: 100 + stream,
        };
        let calls: Vec<_> = (1..=40).map(|i| call(i, 1 + i % 2)).collect();
        let ids = Ids {
            range: Some((1, 60)),
            count: 60,
        };
        let mut work = DeviceWork::new(&calls, ids);
        let mut want: BTreeMap<(u32, LineKey), Vec<u64>> = BTreeMap::new();
        for corr in 1..=60u64 {
            // Calls 41..=60 named no stream: their work goes by queue.
            let at = work.place(corr, LineKey::Queue(7));
            let dev = (corr % 3 == 0) as u32;
            want.entry((dev, at.0)).or_default().push(corr);
            let e = DeviceEvent {
                start_ns: corr,
                end_ns: corr + 1,
                correlation_id: corr,
                thread_id: 1,
                kind: DeviceEventKind::Kernel(KernelInfo {
                    dispatch_id: corr,
                    shape: Table::default().push(LaunchShape::default()),
                }),
                annotation: None,
                graph: None,
            };
            work.push(dev, at, e);
        }
        let got: BTreeMap<(u32, LineKey), Vec<u64>> = work
            .take_lines()
            .into_iter()
            .map(|(k, events)| (k, events.iter().map(|e| e.correlation_id).collect()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(
            got.len(),
            6,
            "two streams and the queue, each on two planes"
        );
    }

    /// The line sizes counted before the kernels pass are what the kernels and copies put on
    /// each line: every line ends at its size (its capacity is its length, not a step's), on
    /// streams named by calls and on queues, on two planes, copies on kernels' streams and on
    /// their own line. A record the passes skip leaves room for one event more, and a line
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
                c.calls.push(crate::model::events::CallFact {
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
        // Skipped by the kernels pass (no start): the first on a queue of its own, which
        // gets room but no event, the second on a line with events.
        c.kernels.push(kernel(0, 0, 5, 1, 9_001, 0xbeef));
        let mut alone = kernel(0, 0, 5, 1, 9_002, q());
        alone.agent = GPU0;
        c.kernels.push(alone);

        let (mut warnings, mut counters) = (Vec::new(), crate::model::Counters::default());
        let mut places = place_devices(&c.agents, &c.kernels, &mut warnings);
        let ids = Ids::of(&c);
        let calls = std::mem::take(&mut c.calls);
        let mut syncs = std::mem::take(&mut c.syncs);
        let mut work = call_tables(&c, calls, (&mut syncs, &mut []), &mut places, ids);
        let mut spanned = Spanned::take(&mut c);
        let (mut annotations, _) = index_annotations(&mut spanned, ids);
        spanned.put_back(&mut c);
        let api = ApiIndex::build(&c.api, ids, &[]);
        let sizes = line_sizes(&c.kernels, &c.copies, &places, &work);
        let planes: std::collections::BTreeSet<u32> = sizes.iter().map(|s| s.0).collect();
        assert_eq!(planes.len(), 2, "lines on both planes: {sizes:?}");
        work.reserve_lines(sizes);
        let order = kernel_order(&c.kernels);
        kernel_events(
            (std::mem::take(&mut c.kernels), order),
            &c.symbols,
            &places,
            &api,
            &mut annotations,
            &mut work,
            &mut counters,
        );
        let placed = place_copies(
            std::mem::take(&mut c.copies),
            (&Default::default(), &[]),
            &[],
            &places,
        );
        copy_events(
            placed,
            &api,
            &mut annotations,
            &mut work,
            &mut counters,
            &mut warnings,
        );

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

    /// Every path of `sort_host_events` (in order already; two runs, each in order or nearly,
    /// settled and merged; a settling given up half way; anything else sorted) gives what a
    /// stable sort by the same order gives: ties in input order.
    #[test]
    fn host_events_sort_as_a_stable_sort_on_every_path() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| next_random(&mut x) % m;
        let mut table = Table::default();
        let names: Vec<Name> = ["a", "b", "c"]
            .iter()
            .map(|s| table.push(Arc::from(*s)))
            .collect();
        let host_order = |x: &HostEvent, y: &HostEvent| host_order(&table, x, y);
        for case in 0..600 {
            let n = match case % 5 {
                // Long enough that a disorder beyond the settling's moves gives it up.
                4 => 2_000 + next(200) as usize,
                _ => next(40) as usize,
            };
            // Few distinct values, so ties in every key (and whole ties) are common.
            let mut events: Vec<HostEvent> = (0..n)
                .map(|i| HostEvent {
                    name: names[next(3) as usize],
                    start_ns: next(6),
                    end_ns: 6 + next(4),
                    correlation_id: next(3),
                    kind: HostEventKind::HipApi,
                    annotation: None,
                    device: Ordinal16::NONE,
                    activity_count: i as u32,
                    graph_exec_id: None,
                })
                .collect();
            // Two runs, as a thread's spans then its calls.
            let spans = next(n as u64 + 1) as usize;
            match case % 5 {
                0 => events.sort_by(host_order),
                1 => {
                    events[..spans].sort_by(host_order);
                    events[spans..].sort_by(host_order);
                }
                2 => {
                    // Each run nearly in order: neighbours swapped, as delivered.
                    events[..spans].sort_by(host_order);
                    events[spans..].sort_by(host_order);
                    for _ in 0..n / 3 {
                        let i = next(n as u64) as usize;
                        let j = (i + 1 + next(4) as usize).min(n - 1);
                        events.swap(i, j);
                    }
                }
                _ => {}
            }
            let mut want = events.clone();
            want.sort_by(host_order);
            sort_host_events(&mut events, spans, &table);
            let ids = |v: &[HostEvent]| v.iter().map(|e| e.activity_count).collect::<Vec<_>>();
            assert_eq!(ids(&events), ids(&want), "case {case}");
        }
    }

    #[test]
    fn host_events_sort_by_start_longest_first_then_id_and_name_ties_in_input_order() {
        let mut table = Table::default();
        let mut ev = |name: &str, start, end, corr, activity_count| HostEvent {
            name: table.push(Arc::from(name)),
            start_ns: start,
            end_ns: end,
            correlation_id: corr,
            kind: HostEventKind::HipApi,
            annotation: None,
            device: Ordinal16::NONE,
            activity_count,
            graph_exec_id: None,
        };
        // The spans first, then the calls, as `host_events` fills a thread.
        let mut events = vec![
            ev("range", 10, 100, 1, 0),
            ev("inner", 20, 30, 2, 0),
            ev("b", 40, 50, 7, 1),
            ev("hipMalloc", 10, 20, 3, 0),
            ev("a", 40, 50, 7, 0),
            ev("b", 40, 50, 7, 2),
            ev("hipFree", 5, 6, 9, 0),
            ev("long", 10, 100, 0, 0),
        ];
        sort_host_events(&mut events, 2, &table);
        let got: Vec<(&str, u32)> = events
            .iter()
            .map(|e| (&*table[e.name], e.activity_count))
            .collect();
        assert_eq!(
            got,
            [
                ("hipFree", 0),
                ("long", 0),
                ("range", 0),
                ("hipMalloc", 0),
                ("inner", 0),
                ("a", 0),
                ("b", 1),
                ("b", 2),
            ]
        );
    }

    use crate::model::events::{KernelSymbol, MarkerSpan};

    const GPU0: u64 = 0x1111;
    const GPU1: u64 = 0x2222;
    const CPU: u64 = 0x9999;
    const LAUNCH: i32 = 214;
    const GRAPH: i32 = 166;
    const MEMCPY: i32 = 268;
    const SYNC: i32 = 66;

    fn agent(handle: u64, kind: AgentType, type_index: i32) -> AgentInfo {
        AgentInfo::for_test(handle, kind, type_index)
    }

    #[test]
    fn device_bandwidth_comes_from_the_table_only_for_a_whole_known_product() {
        let mi300x = device_from_agent(0, &agent(GPU0, AgentType::Gpu, 0));
        assert_eq!(mi300x.memory_bandwidth_bytes_per_s, 5_300_000_000_000);
        let partition = device_from_agent(
            0,
            &AgentInfo {
                cu_count: 38,
                ..agent(GPU0, AgentType::Gpu, 0)
            },
        );
        assert_eq!(
            partition.memory_bandwidth_bytes_per_s, 0,
            "unknown, not a guess"
        );
    }

    fn api(op: i32, corr: u64, start: u64, end: u64, tid: u64) -> ApiRecord {
        ApiRecord {
            domain: ApiDomain::Hip,
            operation: op,
            correlation_id: corr,
            external_id: 0,
            start_ns: start,
            end_ns: end,
            thread_id: tid,
        }
    }

    /// A roctx call's record on thread 7.
    fn roctx(op: i32, corr: u64, start: u64, end: u64) -> ApiRecord {
        ApiRecord {
            domain: ApiDomain::Marker,
            ..api(op, corr, start, end, 7)
        }
    }

    /// A push/pop range on thread 7, pushed by call 20 and popped by 21, with the callbacks'
    /// times (101–509) that its records' times replace.
    fn train_step() -> MarkerSpan {
        MarkerSpan {
            label: Arc::from("train_step"),
            thread_id: 7,
            open_correlation_id: 20,
            close_correlation_id: 21,
            start_ns: 101,
            end_ns: 509,
            instant: false,
            ..MarkerSpan::default()
        }
    }

    fn kernel(
        corr: u64,
        start: u64,
        end: u64,
        kernel_id: u64,
        dispatch: u64,
        queue: u64,
    ) -> KernelRecord {
        KernelRecord {
            correlation_id: corr,
            external_id: 0,
            start_ns: start,
            end_ns: end,
            thread_id: 7,
            agent: GPU0,
            queue,
            kernel_id,
            dispatch_id: dispatch,
            private_segment_size: 16,
            group_segment_size: 4096,
            workgroup: [256, 1, 1],
            grid: [1024, 1, 1],
            pipe_id: None,
        }
    }

    /// A one-byte copy on thread 7 at `corr * 10 ns` lasting 5 ns.
    fn copy(corr: u64, op: i32, dst: u64, src: u64) -> CopyRecord {
        CopyRecord {
            correlation_id: corr,
            external_id: 0,
            start_ns: corr * 10,
            end_ns: corr * 10 + 5,
            thread_id: 7,
            operation: op,
            dst_agent: dst,
            src_agent: src,
            bytes: 1,
        }
    }

    fn base() -> Collected {
        let mut c = Collected {
            hostname: "host".into(),
            pid: 42,
            sdk_version: "1.0.0".into(),
            agents: vec![
                agent(CPU, AgentType::Cpu, 0),
                agent(GPU1, AgentType::Gpu, 1),
                agent(GPU0, AgentType::Gpu, 0),
            ],
            ..Collected::default()
        };
        for (op, name) in [
            (LAUNCH, "hipLaunchKernel"),
            (GRAPH, "hipGraphLaunch"),
            (MEMCPY, "hipMemcpyAsync"),
            (SYNC, "hipDeviceSynchronize"),
        ] {
            c.op_names.insert((ApiDomain::Hip, op), Arc::from(name));
        }
        c.symbols.insert(
            1,
            KernelSymbol {
                name: Arc::from("gemm(float*)"),
                sgpr_count: 32,
                arch_vgpr_count: 64,
                accum_vgpr_count: 8,
                group_segment_size: 1024,
                private_segment_size: 0,
            },
        );
        c
    }

    /// `base` with the roctx operations a push, a pop and a query are named by.
    fn base_with_roctx_names() -> Collected {
        let mut c = base();
        for (op, name) in [
            (1, "roctxRangePushA"),
            (2, "roctxRangePop"),
            (5, "roctxGetThreadId"),
        ] {
            c.op_names.insert((ApiDomain::Marker, op), Arc::from(name));
        }
        c
    }

    fn kernels_of(t: &Trace) -> Vec<&DeviceEvent> {
        t.devices
            .iter()
            .flat_map(|d| d.lines.iter())
            .flat_map(|l| l.events.iter())
            .filter(|e| matches!(e.kind, DeviceEventKind::Kernel(_)))
            .collect()
    }

    #[test]
    fn graph_launch_keeps_every_dispatch() {
        let mut c = base();
        c.api.push(api(GRAPH, 10, 100, 200, 7));
        for i in 0..5u64 {
            c.kernels
                .push(kernel(10, 300 + i * 100, 350 + i * 100, 1, 100 + i, q()));
        }
        let t = join(c);
        let ks = kernels_of(&t);
        assert_eq!(ks.len(), 5);
        assert!(ks.iter().all(|k| k.correlation_id == 10));
        let dispatches: Vec<u64> = ks
            .iter()
            .map(|k| match &k.kind {
                DeviceEventKind::Kernel(i) => i.dispatch_id,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(dispatches, vec![100, 101, 102, 103, 104]);
        let host = &t.host_threads[0].events[0];
        assert_eq!(t.name(host), "hipGraphLaunch");
        assert_eq!(host.activity_count, 5);
        assert_eq!(host.device.get(), Some(0));
        assert_eq!(t.counters.activities_without_api, 0);
        assert_eq!(t.counters.launches_without_activity, 0);
    }

    /// An opaque queue handle, large like the runtime's.
    fn q() -> u64 {
        0xdead_0000
    }

    #[test]
    fn orphans_both_ways_are_kept_and_counted() {
        let mut c = base();
        // API with no activity (launch) and one that is not a launch (sync).
        c.api.push(api(LAUNCH, 1, 10, 20, 7));
        c.api.push(api(SYNC, 2, 30, 40, 7));
        // Activity whose API record never arrived, and one with no correlation id at all.
        c.kernels.push(kernel(99, 50, 60, 1, 1, q()));
        c.kernels.push(kernel(0, 70, 80, 1, 2, q()));
        let t = join(c);
        assert_eq!(kernels_of(&t).len(), 2);
        assert_eq!(t.counters.activities_without_api, 2);
        assert_eq!(t.counters.launches_without_activity, 1);
        assert_eq!(t.host_threads[0].events.len(), 2);
    }

    #[test]
    fn unknown_kernel_named_by_id_and_counted() {
        let mut c = base();
        c.api.push(api(LAUNCH, 1, 10, 20, 7));
        c.kernels.push(kernel(1, 30, 40, 777, 1, q()));
        let t = join(c);
        let ks = kernels_of(&t);
        match &ks[0].kind {
            DeviceEventKind::Kernel(i) => {
                assert_eq!(&*t.shape(i).unwrap().code.name, "<unknown kernel 777>")
            }
            _ => panic!(),
        }
        assert_eq!(t.counters.kernels_without_symbol, 1);
    }

    #[test]
    fn kernel_details_from_symbol_and_dispatch() {
        let mut c = base();
        c.api.push(api(LAUNCH, 1, 10, 20, 7));
        c.kernels.push(kernel(1, 30, 40, 1, 1, q()));
        let t = join(c);
        let DeviceEventKind::Kernel(i) = &kernels_of(&t)[0].kind else {
            panic!()
        };
        let shape = t.shape(i).unwrap();
        assert_eq!(&*shape.code.name, "gemm(float*)");
        assert_eq!(shape.grid, [4, 1, 1]);
        assert_eq!(shape.block, [256, 1, 1]);
        assert_eq!(shape.code.vgpr_count, 72);
        assert_eq!(shape.code.sgpr_count, 32);
        assert_eq!(shape.code.static_shared_bytes, 1024);
        assert_eq!(shape.dynamic_shared_bytes, 3072);
        assert_eq!(shape.private_segment_bytes, 16);
    }

    #[test]
    fn gpu_ordinal_from_agent_and_dense_queue_lines() {
        let mut c = base();
        c.api.push(api(LAUNCH, 1, 10, 20, 7));
        let mut k1 = kernel(1, 500, 600, 1, 1, 0xffff_0000);
        k1.agent = GPU1;
        c.kernels.push(k1);
        // Two queues on GPU0; the one with the later first activity has the smaller handle.
        c.kernels.push(kernel(1, 100, 200, 1, 2, 0xbbbb));
        c.kernels.push(kernel(1, 50, 90, 1, 3, 0xcccc));
        c.kernels.push(kernel(1, 300, 400, 1, 4, 0xbbbb));
        let t = join(c);
        assert_eq!(t.devices.len(), 2);
        assert_eq!(t.devices[0].agent_handle, GPU0);
        assert_eq!(t.devices[1].agent_handle, GPU1);
        assert_eq!(t.devices[0].clock_rate_khz, 2_100_000);
        let l = &t.devices[0].lines;
        assert_eq!(l.len(), 2);
        assert_eq!((l[0].id, l[0].events.len()), (0, 1));
        assert_eq!(
            l[0].events[0].start_ns, 50,
            "queue with the earliest activity first"
        );
        assert_eq!((l[1].id, l[1].events.len()), (1, 2));
        assert_eq!(t.devices[1].lines[0].id, 0);
    }

    #[test]
    fn memcpy_direction_and_devices() {
        let mut c = base();
        c.api.push(api(MEMCPY, 3, 10, 20, 7));
        c.copies.push(CopyRecord {
            end_ns: 40,
            bytes: 4096,
            ..copy(3, 2, GPU1, CPU)
        });
        c.copies.push(CopyRecord {
            start_ns: 50,
            end_ns: 60,
            bytes: 8,
            ..copy(0, 4, GPU0, GPU1)
        });
        let t = join(c);
        let l1 = &t.devices[1].lines;
        assert_eq!(l1.len(), 1);
        assert_eq!(l1[0].id, 0);
        let DeviceEventKind::Memcpy(m) = &l1[0].events[0].kind else {
            panic!()
        };
        assert_eq!(m.direction, CopyDirection::HostToDevice);
        assert_eq!((m.src_device, m.dst_device, m.bytes), (None, Some(1), 4096));
        let DeviceEventKind::Memcpy(m) = &t.devices[0].lines[0].events[0].kind else {
            panic!()
        };
        assert_eq!(m.direction, CopyDirection::DeviceToDevice);
        assert_eq!((m.src_device, m.dst_device), (Some(1), Some(0)));
        assert_eq!(t.counters.activities_without_api, 1);
        assert_eq!(t.host_threads[0].events[0].device.get(), Some(1));
    }

    #[test]
    fn copies_go_to_the_device_they_were_issued_to() {
        use crate::model::events::CallFact;
        let mut c = base();
        // Peer copy 0 → 1 issued on a GPU 0 stream; host-to-host copy issued on GPU 1; a copy
        // whose call was not seen (GPU end: destination); a fact with an unknown device.
        c.copies.push(copy(1, 4, GPU1, GPU0));
        c.copies.push(copy(2, 1, CPU, CPU));
        c.copies.push(copy(3, 2, GPU1, CPU));
        c.copies.push(copy(4, 2, GPU1, CPU));
        c.calls = vec![
            CallFact {
                correlation_id: 1,
                stream: 0xa,
                device: 0,
                stream_seq: 0,
            },
            CallFact {
                correlation_id: 2,
                stream: 0,
                device: 1,
                stream_seq: 0,
            },
            CallFact {
                correlation_id: 4,
                stream: 0xb,
                device: -1,
                stream_seq: 0,
            },
        ];
        let t = join(c);
        let on = |d: usize| -> Vec<u64> {
            t.devices[d]
                .lines
                .iter()
                .flat_map(|l| l.events.iter())
                .map(|e| e.correlation_id)
                .collect()
        };
        assert_eq!(on(0), vec![1]);
        // Line order: the null stream, the stream from before the tool, unattributed copies.
        assert_eq!(on(1), vec![2, 4, 3]);
    }

    #[test]
    fn hip_device_numbers_are_mapped_to_planes_not_taken_as_planes() {
        // HIP_VISIBLE_DEVICES=1: HIP's device 0 is the runtime's second GPU (plane 1). Its
        // kernel, a host-to-device copy into it and a host-to-host copy, all issued on HIP
        // device 0, belong on plane 1; plane 0 (a GPU HIP never used) stays empty.
        use crate::model::events::CallFact;
        let mut c = base();
        c.kernels.push(KernelRecord {
            agent: GPU1,
            ..kernel(1, 10, 20, 1, 1, q())
        });
        c.copies.push(copy(2, 2, GPU1, CPU));
        c.copies.push(copy(3, 1, CPU, CPU));
        c.calls = (1..=3)
            .map(|corr| CallFact {
                correlation_id: corr,
                stream: 0,
                device: 0,
                stream_seq: 0,
            })
            .collect();
        let t = join(c.clone());
        let on = |t: &Trace, d: usize| -> Vec<u64> {
            t.devices[d]
                .lines
                .iter()
                .flat_map(|l| l.events.iter())
                .map(|e| e.correlation_id)
                .collect()
        };
        assert_eq!(on(&t, 0), Vec::<u64>::new());
        assert_eq!(on(&t, 1), vec![1, 2, 3]);

        // No kernel to learn the numbering from: a HIP index that contradicts the copy's own
        // GPU end is not trusted; one that cannot (no GPU end) still is.
        c.kernels.clear();
        let t = join(c);
        assert_eq!(on(&t, 1), vec![2]);
        assert_eq!(on(&t, 0), vec![3]);
    }

    /// A roctx range on thread 7, `scope` its push's id, `parent` the enclosing push's.
    fn range_span(label: &str, scope: u64, close: u64, parent: i64) -> MarkerSpan {
        MarkerSpan {
            label: Arc::from(label),
            thread_id: 7,
            open_correlation_id: scope,
            close_correlation_id: close,
            start_ns: scope,
            end_ns: 1000 + close,
            scope_id: scope as i64,
            parent_scope_id: parent,
            ..MarkerSpan::default()
        }
    }

    #[test]
    fn annotations_attach_to_api_and_activities() {
        let mut c = base();
        c.markers.push(range_span("step", 2, 9, 0));
        c.markers.push(range_span("fwd", 3, 8, 2));
        // The capture kept the innermost scope at the call; the stack comes from the spans.
        c.scopes.push((5, 3));
        c.api.push(api(LAUNCH, 5, 10, 20, 7));
        c.kernels.push(kernel(5, 30, 40, 1, 1, q()));
        let t = join(c);
        let want = Annotation {
            stack: vec![Arc::from("step"), Arc::from("fwd")].into(),
            scope_range_id: 3,
            external_ids: vec![],
        };
        let call = t.host_threads[0]
            .events
            .iter()
            .find(|e| e.correlation_id == 5)
            .unwrap();
        assert_eq!(t.annotation(call.annotation), Some(&want));
        assert_eq!(t.annotation(kernels_of(&t)[0].annotation), Some(&want));
    }

    #[test]
    fn external_ids_join_the_roctx_annotation() {
        let mut c = base();
        c.markers.push(range_span("step", 2, 9, 0));
        c.scopes.push((5, 2));
        let mut a = api(GRAPH, 5, 10, 20, 7);
        a.external_id = 1001;
        c.api.push(a);
        for i in 0..3 {
            c.kernels
                .push(kernel(5, 30 + i * 10, 35 + i * 10, 1, i, q()));
        }
        // No API record, external id only on the activity; and one with neither.
        let mut orphan = kernel(9, 100, 110, 1, 9, q());
        orphan.external_id = 77;
        c.kernels.push(orphan);
        c.kernels.push(kernel(0, 200, 210, 1, 10, q()));
        let t = join(c);
        let ks = kernels_of(&t);
        let first = t.annotation(ks[0].annotation).unwrap();
        assert_eq!(first.external_ids, vec![1001]);
        assert_eq!(&*first.stack[0], "step");
        assert_eq!(
            ks[0].annotation, ks[2].annotation,
            "one annotation per call"
        );
        let call = t.host_threads[0]
            .events
            .iter()
            .find(|e| e.correlation_id == 5)
            .unwrap();
        assert_eq!(call.annotation, ks[0].annotation);
        assert_eq!(
            t.annotation(ks[3].annotation).unwrap().external_ids,
            vec![77]
        );
        assert!(t.annotation(ks[3].annotation).unwrap().stack.is_empty());
        assert!(ks[4].annotation.is_none());
    }

    #[test]
    fn records_a_span_stands_for_are_not_placed_in_ranges() {
        let mut c = base();
        // push (20), a HIP call the entry capture missed (21), a roctx call no span stands
        // for (22), pop (23).
        c.api.push(roctx(1, 20, 100, 110));
        c.api.push(api(1, 21, 200, 210, 7));
        c.api.push(roctx(1, 22, 300, 301));
        c.api.push(roctx(1, 23, 500, 510));
        c.markers.push(MarkerSpan {
            label: Arc::from("step"),
            thread_id: 7,
            open_correlation_id: 20,
            close_correlation_id: 23,
            start_ns: 101,
            end_ns: 509,
            scope_id: 20,
            instant: false,
            ..MarkerSpan::default()
        });
        let ids = Ids::of(&c);
        let mut spanned = Spanned::take(&mut c);
        let (index, _) = index_annotations(&mut spanned, ids);
        spanned.put_back(&mut c);
        let placed = |corr| {
            index
                .captured
                .get(&corr)
                .map(|&a| index.table[a].scope_range_id)
        };
        assert_eq!(
            placed(21),
            Some(20),
            "a call inside the range is placed in it"
        );
        assert_eq!(
            placed(22),
            Some(20),
            "so is a roctx call that stays an event"
        );
        assert_eq!(placed(20), None, "the push is the span's own event");
        assert_eq!(placed(23), None, "the pop too");
        // The push's and the pop's records gave the span their times and are gone before the
        // API records are sorted: the device passes never hold them.
        let left: Vec<u64> = c.api.iter().map(|a| a.correlation_id).collect();
        assert_eq!(left, [21, 22]);
        assert_eq!((c.markers[0].start_ns, c.markers[0].end_ns), (100, 510));
    }

    #[test]
    fn marker_spans_use_buffered_times_and_hide_their_records() {
        let mut c = base_with_roctx_names();
        c.api.push(roctx(1, 20, 100, 110));
        c.api.push(roctx(2, 21, 500, 510));
        c.api.push(roctx(5, 22, 600, 601));
        c.markers.push(train_step());
        // A range whose buffered records never arrived keeps the callback times.
        c.markers.push(MarkerSpan {
            label: Arc::from("lonely"),
            thread_id: 8,
            open_correlation_id: 30,
            close_correlation_id: 31,
            start_ns: 1000,
            end_ns: 2000,
            instant: false,
            ..MarkerSpan::default()
        });
        let t = join(c);
        let ev: Vec<(&str, u64, u64)> = t
            .host_threads
            .iter()
            .flat_map(|th| th.events.iter())
            .map(|e| (t.name(e), e.start_ns, e.end_ns))
            .collect();
        assert_eq!(
            ev,
            vec![
                ("train_step", 100, 510),
                ("roctxGetThreadId", 600, 601),
                ("lonely", 1000, 2000)
            ]
        );
    }

    /// The tool's stores keep roctx records packed apart (`Collected::marker_records`); a
    /// collection made otherwise has them among the calls. Either way the profile is the
    /// same: spans take their records' times (of an id's repeats, the first in the records'
    /// order, wherever each lies), span records vanish, and the others stay calls.
    #[test]
    fn roctx_records_read_packed_give_what_unpacked_ones_give() {
        let mut c = base_with_roctx_names();
        c.api.push(api(LAUNCH, 40, 200, 210, 7));
        let records = [
            roctx(1, 20, 100, 110),
            // A repeat of the push's id, first in the records' order: it gives the times.
            roctx(1, 20, 90, 95),
            roctx(2, 21, 500, 510),
            roctx(5, 22, 600, 601),
        ];
        c.markers.push(MarkerSpan {
            scope_id: 20,
            ..train_step()
        });
        c.scopes.push((40, 20));
        let profile = |c: Collected| {
            let t = join(c);
            let events: Vec<(String, u64, u64)> = t
                .host_threads
                .iter()
                .flat_map(|th| th.events.iter())
                .map(|e| (t.name(e).to_string(), e.start_ns, e.end_ns))
                .collect();
            let bytes = prost::Message::encode_to_vec(&crate::xplane::build_xspace(&t));
            (events, bytes)
        };
        let mut unpacked = c.clone();
        unpacked.api.extend(records);
        let mut packed = c.clone();
        let mut dropped = 0;
        for r in records {
            packed.marker_records.push_or_count(r, &mut dropped);
        }
        // One repeat in each place: the earlier still wins.
        let mut split = c;
        split.api.push(records[1]);
        for r in [records[0], records[2], records[3]] {
            split.marker_records.push_or_count(r, &mut dropped);
        }
        let (events, bytes) = profile(unpacked);
        assert_eq!(
            events,
            [
                ("train_step".to_string(), 90, 510),
                ("hipLaunchKernel".to_string(), 200, 210),
                ("roctxGetThreadId".to_string(), 600, 601),
            ]
        );
        assert_eq!(profile(packed), (events.clone(), bytes.clone()));
        assert_eq!(profile(split), (events, bytes));
    }

    #[test]
    fn output_is_deterministic_whatever_the_input_order() {
        let mut a = base();
        for i in 0..50u64 {
            a.api
                .push(api(LAUNCH, i + 1, i * 10, i * 10 + 5, 7 + i % 3));
            a.kernels.push(kernel(
                i + 1,
                1000 + i * 7,
                1003 + i * 7,
                1 + i % 2,
                i,
                0x100 + i % 4,
            ));
        }
        let mut b = a.clone();
        b.api.reverse();
        let mut shuffled: Vec<_> = b.kernels.iter().collect();
        shuffled.reverse();
        shuffled.rotate_left(17);
        b.kernels = shuffled.into();
        let (ta, tb) = (join(a), join(b));
        assert_eq!(format!("{ta:?}"), format!("{tb:?}"));
        assert_eq!(
            ta.host_threads.iter().map(|t| t.tid).collect::<Vec<_>>(),
            vec![7, 8, 9]
        );
    }

    #[test]
    fn unknown_agent_gets_its_own_plane() {
        let mut c = base();
        let mut k = kernel(0, 1, 2, 1, 1, q());
        k.agent = 0x5555;
        c.kernels.push(k);
        let t = join(c);
        assert_eq!(t.devices.len(), 3);
        assert_eq!(t.devices[2].agent_handle, 0x5555);
        assert_eq!(t.devices[2].lines[0].events.len(), 1);
        assert_eq!(t.warnings.len(), 1);
    }

    #[test]
    fn kernel_on_a_cpu_agent_is_kept_not_a_panic() {
        let mut c = base();
        let mut k = kernel(0, 1, 2, 1, 1, q());
        k.agent = CPU;
        c.kernels.push(k);
        c.copies.push(CopyRecord {
            start_ns: 5,
            end_ns: 6,
            ..copy(0, 2, GPU0, CPU)
        });
        let t = join(c);
        assert_eq!(t.devices.len(), 3);
        assert_eq!(t.devices[2].agent_handle, CPU);
        assert!(t.warnings[0].contains("not a GPU"), "{:?}", t.warnings);
        // The copy's host end is still not a device.
        let DeviceEventKind::Memcpy(m) = &t.devices[0].lines[0].events[0].kind else {
            panic!()
        };
        assert_eq!((m.src_device, m.dst_device), (None, Some(0)));
    }

    #[test]
    fn zero_or_reversed_timestamps_are_counted_not_placed_at_boot() {
        let mut c = base();
        c.start_boottime_ns = 1000;
        c.stop_boottime_ns = 2000;
        c.api.push(api(LAUNCH, 1, 1100, 1150, 7));
        c.kernels.push(kernel(1, 1200, 1300, 1, 1, q()));
        c.kernels.push(kernel(1, 0, 1400, 1, 2, q())); // never started: cannot be placed
        c.kernels.push(kernel(1, 1500, 1450, 1, 3, q())); // end before start
        let t = join(c);
        assert_eq!(t.counters.bad_timestamp_records, 2);
        assert_eq!(
            t.start_boottime_ns, 1000,
            "a zero start must not drag the origin to 0"
        );
        let spans: Vec<(u64, u64)> = t.devices[0]
            .lines
            .iter()
            .flat_map(|l| l.events.iter().map(|e| (e.start_ns, e.end_ns)))
            .collect();
        assert_eq!(spans, vec![(1200, 1300), (1500, 1500)]);
    }

    /// Register counts a corrupt symbol (or a converted file's row) claims near u32::MAX: the
    /// kernel's VGPRs saturate rather than overflow (a panic in debug builds; found by
    /// `tests/fuzz.rs` once its symbols took their AGPR count from the record).
    #[test]
    fn a_symbols_register_counts_saturate() {
        let sym = super::super::events::KernelSymbol {
            name: Arc::from("k"),
            sgpr_count: u32::MAX,
            arch_vgpr_count: u32::MAX - 1,
            accum_vgpr_count: 5,
            group_segment_size: u32::MAX,
            private_segment_size: u32::MAX,
        };
        let code = kernel_code(1, Some(&sym));
        assert_eq!((code.vgpr_count, code.agpr_count), (u32::MAX, 5));
    }

    /// A call the runtime stamped 0 (a fuzzed record; device records at 0 are dropped and
    /// counted, calls are kept) is inside the window: the window starts at 0, not at the next
    /// event, so the writer's origin (taken from the window) is at or before every event.
    #[test]
    fn a_call_stamped_zero_is_inside_the_window() {
        let mut c = base();
        c.start_boottime_ns = 500;
        c.stop_boottime_ns = 2000;
        c.api.push(api(LAUNCH, 1, 0, 0, 7));
        c.api.push(api(LAUNCH, 2, 600, 700, 7));
        let t = join(c);
        let starts: Vec<u64> = t.host_threads[0]
            .events
            .iter()
            .map(|e| e.start_ns)
            .collect();
        assert_eq!(starts, [0, 600]);
        assert_eq!((t.start_boottime_ns, t.stop_boottime_ns), (0, 2000));
        assert!(t.start_covers_events);
        crate::xplane::build_xspace(&t);
    }

    #[test]
    fn window_covers_all_events() {
        let mut c = base();
        c.start_boottime_ns = 1000;
        c.stop_boottime_ns = 2000;
        c.start_walltime_ns = 1_000_000;
        c.stop_walltime_ns = 1_001_000;
        c.api.push(api(LAUNCH, 1, 900, 950, 7));
        c.kernels.push(kernel(1, 1900, 2100, 1, 1, q()));
        let t = join(c);
        assert_eq!((t.start_boottime_ns, t.stop_boottime_ns), (900, 2100));
        assert_eq!(
            (t.start_walltime_ns, t.stop_walltime_ns),
            (999_900, 1_001_100)
        );
        // What the writer takes as its time origin without walking the events again: the
        // call before the session's start is at offset 0, and no warning says the origin moved.
        assert!(t.start_covers_events);
        let space = crate::xplane::build_xspace(&t);
        assert!(space.warnings.iter().all(|w| !w.contains("profile start")));
        let host = space.planes.iter().find(|p| p.name == "/host:CPU").unwrap();
        use crate::xplane::proto::x_event::Data;
        let first = host
            .lines
            .iter()
            .flat_map(|l| &l.events)
            .filter_map(|e| match e.data {
                Some(Data::OffsetPs(o)) => Some(o),
                _ => None,
            })
            .min();
        assert_eq!(first, Some(0));
        let gpu = space
            .planes
            .iter()
            .find(|p| p.name.starts_with("/device:GPU:"))
            .unwrap();
        let kernel = gpu.lines.iter().flat_map(|l| &l.events).next().unwrap();
        assert_eq!(kernel.data, Some(Data::OffsetPs((1900 - 900) * 1000)));
    }

    #[test]
    fn wall_window_follows_the_boottime_window_when_clocks_drift() {
        let mut c = base();
        c.start_boottime_ns = 1000;
        c.stop_boottime_ns = 100_000; // the event clock ran far ahead of …
        c.start_walltime_ns = 5_000_000;
        c.stop_walltime_ns = 5_000_500; // … the wall clock
        c.api.push(api(LAUNCH, 1, 2000, 90_000, 7));
        let t = join(c);
        assert_eq!(
            t.stop_walltime_ns - t.start_walltime_ns,
            t.stop_boottime_ns - t.start_boottime_ns
        );
        assert_eq!(t.start_walltime_ns, 5_000_000);
    }

    /// Where kernel `corr` landed in a trace (device, line name, annotation), for comparing a
    /// windowed join with one of the whole run (a window numbers its lines from 0).
    fn kernel_place(t: &Trace, corr: u64) -> (u32, String, Option<Annotation>) {
        t.devices
            .iter()
            .flat_map(|d| d.lines.iter().map(move |l| (d, l)))
            .flat_map(|(d, l)| l.events.iter().map(move |e| (d, l, e)))
            .find(|(_, _, e)| e.correlation_id == corr)
            .map(|(d, l, e)| {
                (
                    d.ordinal,
                    l.name.clone(),
                    t.annotation(e.annotation).cloned(),
                )
            })
            .unwrap_or_else(|| panic!("no kernel {corr}"))
    }

    /// A queue of its own for kernel 5: placed by its queue, not its call's stream, it would
    /// have a line of its own.
    const OTHER_QUEUE: u64 = 0xbeef_0000;

    /// Launches 5 and 6 on a created stream inside `step` > `fwd`, after launch 4 on the null
    /// stream: the whole run's pieces, as one collection. Kernel 5 and kernel 6's call are
    /// left out when `cut` (a window's cut fell before them).
    fn launches_under_ranges(cut: bool) -> Collected {
        use crate::model::events::CallFact;
        let mut c = base();
        // As the decode counts them.
        c.counters.api_records = if cut { 2 } else { 3 };
        c.counters.kernel_records = 2;
        c.markers.push(range_span("step", 2, 9, 0));
        c.markers.push(range_span("fwd", 3, 8, 2));
        for (corr, stream) in [(4, 0), (5, 0xa), (6, 0xa)] {
            c.scopes.push((corr, 3));
            c.calls.push(CallFact {
                correlation_id: corr,
                stream,
                device: 0,
                stream_seq: 0,
            });
        }
        c.api.push(api(LAUNCH, 4, 4, 8, 7));
        c.kernels.push(kernel(4, 9, 12, 1, 0, q()));
        c.api.push(api(LAUNCH, 5, 10, 20, 7));
        c.kernels.push(kernel(6, 25, 28, 1, 2, q()));
        if !cut {
            c.api.push(api(LAUNCH, 6, 21, 24, 7));
            c.kernels.push(kernel(5, 30, 40, 1, 1, OTHER_QUEUE));
        }
        c
    }

    /// A capture window cut between a launch and its kernel, and between a kernel and its
    /// call's record, hands both on (`model::carry`): the next window joins each whole, on
    /// the stream line and with the roctx labels the whole run gives it, and neither window
    /// counts a launch without activity or an activity without a call. Without the carry,
    /// the next window's kernel had no call, no labels and no stream.
    #[test]
    fn a_window_hands_on_the_calls_it_cannot_join_yet() {
        use crate::model::carry::{split_incomplete, HandedOn, Windows};
        let whole = join(launches_under_ranges(false));
        let mut first = launches_under_ranges(true);
        let (held, handed) =
            split_incomplete(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
        assert_eq!(handed.get(&5), Some(&1));
        assert_eq!(handed.get(&6), Some(&1));
        assert_eq!(handed.len(), 2);
        let ids = |a: &[ApiRecord]| a.iter().map(|a| a.correlation_id).collect::<Vec<_>>();
        assert_eq!(ids(&held.api), [5]);
        assert_eq!(ids(&first.api), [4]);
        assert_eq!(first.kernels.len(), 1);
        assert_eq!(held.kernels.len(), 1);
        let mut scopes = held.scopes.clone();
        scopes.sort_unstable();
        assert_eq!(scopes, [(5, 3), (6, 3)]);
        assert_eq!(held.calls.len(), 2);
        // The spans naming scope 3, for labels only: shown in the first window.
        let mut context: Vec<&str> = held
            .carried
            .scope_context
            .iter()
            .map(|m| &*m.label)
            .collect();
        context.sort_unstable();
        assert_eq!(context, ["fwd", "step"]);
        assert_eq!(first.markers.len(), 2);
        // The counts go with the records.
        assert_eq!(
            (held.counters.api_records, held.counters.kernel_records),
            (1, 1)
        );
        assert_eq!(
            (first.counters.api_records, first.counters.kernel_records),
            (1, 1)
        );
        let first = join(first);
        assert_eq!(first.counters.launches_without_activity, 0);
        assert_eq!(first.counters.activities_without_api, 0);

        // The next window: kernel 5 completes, call 6 returns.
        let mut next = base();
        next.kernels.push(kernel(5, 30, 40, 1, 1, OTHER_QUEUE));
        next.api.push(api(LAUNCH, 6, 21, 24, 7));
        let alone = join(next.clone());
        assert_eq!(
            kernel_place(&alone, 5).2,
            None,
            "without the carry: no labels"
        );
        assert_eq!(alone.counters.activities_without_api, 1);

        let mut carried = held;
        carried.absorb(next);
        let t = join(carried);
        // The same device and labels as in the whole run, and the same stream as kernel 6
        // (a window numbers its streams from those it holds).
        let (five, six) = (kernel_place(&t, 5), kernel_place(&t, 6));
        assert_eq!(five.1, six.1, "one stream");
        for (corr, (device, _, labels)) in [(5, five), (6, six)] {
            let (whole_device, _, whole_labels) = kernel_place(&whole, corr);
            assert_eq!(
                (device, labels),
                (whole_device, whole_labels),
                "kernel {corr}"
            );
            assert!(
                t.host_threads[0]
                    .events
                    .iter()
                    .any(|e| e.correlation_id == corr && e.kind == HostEventKind::HipApi),
                "call {corr}"
            );
        }
        assert!(kernel_place(&t, 5).2.is_some());
        assert_eq!(t.counters.launches_without_activity, 0);
        assert_eq!(t.counters.activities_without_api, 0);
        // The context spans are not shown again.
        let ranges = t.host_threads[0]
            .events
            .iter()
            .filter(|e| matches!(e.kind, HostEventKind::MarkerRange(_)))
            .count();
        assert_eq!(ranges, 0);
    }

    /// An incomplete call is handed on while it stays incomplete, at most `MAX_HANDED_ON`
    /// windows in a row; then it is written as it is. A complete one is never handed on.
    #[test]
    fn an_incomplete_call_is_handed_on_a_bounded_number_of_times() {
        use crate::model::carry::{split_incomplete, HandedOn, Windows, MAX_HANDED_ON};
        let mut c = base();
        c.api.push(api(LAUNCH, 5, 10, 20, 7));
        let mut handed = HandedOn::default();
        for n in 1..=MAX_HANDED_ON {
            let (held, next) = split_incomplete(&mut c, &handed, Windows::Apart).unwrap();
            assert_eq!(next.get(&5), Some(&n));
            assert!(c.api.is_empty());
            c = base();
            c.absorb(held);
            handed = next;
        }
        assert!(split_incomplete(&mut c, &handed, Windows::Apart).is_none());
        assert_eq!(c.api.len(), 1);
        assert_eq!(join(c).counters.launches_without_activity, 1);

        let mut complete = base();
        complete.api.push(api(LAUNCH, 5, 10, 20, 7));
        complete.kernels.push(kernel(5, 30, 40, 1, 1, q()));
        complete.api.push(api(SYNC, 7, 50, 60, 7));
        assert!(split_incomplete(&mut complete, &HandedOn::default(), Windows::Apart).is_none());
    }

    /// A graph launch (`GRAPH`, 10) on stream 0xa with two of its dispatches delivered, a
    /// third `late` one, and a launch after it on the same stream (11) whose kernel is
    /// delivered if `moved_on`.
    fn graph_on_a_stream(late: bool, moved_on: bool) -> Collected {
        use crate::model::events::CallFact;
        let mut c = base();
        c.markers.push(range_span("step", 2, 9, 0));
        c.markers.push(range_span("fwd", 3, 8, 2));
        c.scopes.push((10, 3));
        for corr in [10, 11] {
            c.calls.push(CallFact {
                correlation_id: corr,
                stream: 0xa,
                device: 0,
                stream_seq: 0,
            });
        }
        c.api.push(api(GRAPH, 10, 100, 200, 7));
        c.api.push(api(LAUNCH, 11, 210, 220, 7));
        for d in 0..2 {
            c.kernels
                .push(kernel(10, 300 + 10 * d, 305 + 10 * d, 1, d, q()));
        }
        if late {
            c.kernels.push(kernel(10, 400, 405, 1, 2, q()));
        }
        if moved_on {
            c.kernels.push(kernel(11, 410, 420, 1, 3, q()));
        }
        c
    }

    /// A graph launch whose stream has not moved on at the cut (no later work on it has
    /// come) may have dispatches still to come: it is handed on whole, with the launch after
    /// it on its stream, and the next window joins its late dispatch with it. Before, the
    /// launch was written with two of its three dispatches and the third came in the next
    /// window without its call.
    #[test]
    fn a_graph_launch_is_handed_on_until_its_stream_moves_on() {
        use crate::model::carry::{split_incomplete, HandedOn, Windows};
        let whole = join(graph_on_a_stream(true, true));
        let mut first = graph_on_a_stream(false, false);
        let (mut held, handed) =
            split_incomplete(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
        assert_eq!((handed.get(&10), handed.get(&11)), (Some(&1), Some(&1)));
        assert_eq!((held.api.len(), held.kernels.len()), (2, 2));
        assert!(first.api.is_empty() && first.kernels.is_empty());
        let mut next = base();
        next.kernels.push(kernel(10, 400, 405, 1, 2, q()));
        next.kernels.push(kernel(11, 410, 420, 1, 3, q()));
        held.absorb(next);
        let t = join(held);
        assert_eq!(t.counters.activities_without_api, 0);
        assert_eq!(t.counters.launches_without_activity, 0);
        // Each dispatch's id, start and roctx labels.
        type Dispatch = (u64, u64, Option<Vec<Arc<str>>>);
        let dispatches = |t: &Trace| {
            let mut v: Vec<Dispatch> = t
                .devices
                .iter()
                .flat_map(|d| d.lines.iter().flat_map(|l| l.events.iter()))
                .map(|e| {
                    let labels = t.annotation(e.annotation).map(|a| a.stack.to_vec());
                    (e.correlation_id, e.start_ns, labels)
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(dispatches(&t), dispatches(&whole));
    }

    /// A graph launch whose dispatches a cut splits though its stream has moved on (a later
    /// launch's kernel was delivered before its last dispatch): the call and its first
    /// dispatches are written in the first window, and its scope and launch facts go along to
    /// the next as context. The late dispatch there has the labels and device the whole run
    /// gives it; windows written apart count it as an activity without a call (its call is in
    /// the earlier file), windows merged into one profile as launched (its call is in that
    /// profile, `Trace::launched_earlier`: before, every such dispatch made the merged
    /// profile warn of activities without a call that the run written whole does not have).
    /// The context is not handed on again.
    #[test]
    fn a_graph_launch_s_late_dispatches_keep_their_labels_in_the_next_window() {
        use crate::model::carry::{split_incomplete, HandedOn, Windows, MAX_HANDED_ON};
        let graph = |late: bool| graph_on_a_stream(late, true);
        let whole = join(graph(true));
        for windows in [Windows::Apart, Windows::Merged] {
            let mut first = graph(false);
            let (held, handed) =
                split_incomplete(&mut first, &HandedOn::default(), windows).unwrap();
            assert_eq!(handed.get(&10), Some(&MAX_HANDED_ON));
            assert!(held.api.is_empty() && held.kernels.is_empty());
            assert_eq!((first.api.len(), first.kernels.len()), (2, 3));
            assert_eq!(
                (first.scopes.len(), first.calls.len()),
                (1, 2),
                "copied, not moved"
            );

            let mut next = base();
            next.kernels.push(kernel(10, 400, 405, 1, 2, q()));
            let mut carried = held;
            carried.absorb(next);
            // Marked as handed on the most times: the context is never handed on again.
            assert!(split_incomplete(&mut carried.clone(), &handed, windows).is_none());
            let t = join(carried);
            let (device, _, labels) = kernel_place(&t, 10);
            let whole_late = whole
                .devices
                .iter()
                .flat_map(|d| d.lines.iter().map(move |l| (d, l)))
                .flat_map(|(d, l)| l.events.iter().map(move |e| (d, e)))
                .find(|(_, e)| e.correlation_id == 10 && e.start_ns == 400)
                .map(|(d, e)| (d.ordinal, whole.annotation(e.annotation).cloned()))
                .unwrap();
            assert_eq!((device, labels), whole_late);
            assert!(whole_late.1.is_some());
            let (without_call, earlier) = match windows {
                Windows::Apart => (1, vec![]),
                Windows::Merged => (0, vec![10]),
            };
            assert_eq!(
                t.counters.activities_without_api, without_call,
                "{windows:?}"
            );
            assert_eq!(t.launched_earlier, earlier, "{windows:?}");
        }
    }

    /// A roctx range shown in one window whose push and pop records are delivered after the
    /// cut: the next window drops those records (they stand for the span already shown)
    /// instead of showing each as a call of its own, and awaits them no further once they
    /// came. On the MaxText-shaped run cut into two windows, 202 pushes, pops and marks of
    /// one thread were shown so in the second.
    #[test]
    fn roctx_records_that_come_after_their_span_s_window_are_not_shown_again() {
        use crate::model::carry::{hand_off, HandedOn, Windows};
        let mut first = base_with_roctx_names();
        first.markers.push(train_step());
        // Another roctx call's record came: roctx records are traced.
        first.api.push(roctx(5, 22, 600, 601));
        let (mut carried, handed) =
            hand_off(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
        assert_eq!(carried.carried.spans_shown, [20, 21]);
        let t = join(first);
        let names = |t: &Trace| -> Vec<String> {
            t.host_threads
                .iter()
                .flat_map(|th| th.events.iter())
                .map(|e| t.name(e).to_string())
                .collect()
        };
        assert_eq!(names(&t), ["train_step", "roctxGetThreadId"]);

        let mut next = base_with_roctx_names();
        let mut dropped = 0;
        for r in [roctx(1, 20, 100, 110), roctx(2, 21, 500, 510)] {
            next.marker_records.push_or_count(r, &mut dropped);
        }
        next.api.push(api(LAUNCH, 40, 700, 710, 7));
        next.kernels.push(kernel(40, 720, 730, 1, 1, q()));
        carried.absorb(next);
        let mut again = carried.clone();
        assert!(
            hand_off(&mut again, &handed, Windows::Apart).is_none(),
            "nothing is awaited once the records came"
        );
        assert_eq!(names(&join(carried)), ["hipLaunchKernel"]);
    }

    /// The roctx text of a call handed on reaches its kernel in the next window whatever it
    /// is: empty, non-ASCII, 10 KB. The window's planes encode and decode with it, and the
    /// two windows merged show it, written each on its own names and clock or on one run's
    /// (as `WINDOW_MERGE` writes them, every event then copied as it was written).
    #[test]
    fn hostile_labels_go_along_with_the_calls_handed_on() {
        use crate::model::carry::{hand_off, HandedOn, Windows};
        use prost::Message;
        for label in [
            String::new(),
            "步骤 ünï ✓ \u{202e}".into(),
            "x".repeat(10 * 1024),
        ] {
            let mut first = base();
            first.markers.push(range_span(&label, 2, 9, 0));
            first.scopes.push((5, 2));
            first.api.push(api(LAUNCH, 5, 10, 20, 7));
            let (mut carried, _) =
                hand_off(&mut first, &HandedOn::default(), Windows::Apart).unwrap();
            assert_eq!(carried.carried.scope_context.len(), 1);
            let mut next = base();
            next.kernels.push(kernel(5, 30, 40, 1, 1, q()));
            carried.absorb(next);
            let t = join(carried);
            let labels = kernel_place(&t, 5).2.map(|a| a.stack.to_vec());
            assert_eq!(labels, Some(vec![Arc::<str>::from(label.as_str())]));
            let bytes = crate::xplane::build_xspace(&t).encode_to_vec();
            assert!(crate::xplane::proto::XSpace::decode(bytes.as_slice()).is_ok());

            // The two windows written and merged into one profile (`xplane::merge`), each on
            // its own names and clock, and on one run's (`xplane::RunIds`, as `WINDOW_MERGE`
            // writes them and merges them at exit): the text reaches the kernel there too,
            // the range shows once, and no line holds partially overlapping events.
            let dir = tempfile::tempdir().unwrap();
            let layout = |run: &str| crate::xplane::OutputLayout {
                log_dir: dir.path().into(),
                run_name: run.into(),
                host: "h.1".into(),
            };
            let first = join(first);
            for shared in [false, true] {
                let run = crate::xplane::RunIds::new();
                let run = shared.then_some(&run);
                let run_dir = |n: &str| format!("{n}{}", u8::from(shared));
                let files = [
                    crate::xplane::write_window(&first, &layout(&run_dir("w1")), 1, run).unwrap(),
                    crate::xplane::write_window(&t, &layout(&run_dir("w2")), 1, run).unwrap(),
                ];
                let merge = if shared {
                    crate::xplane::merge::merge_own_files
                } else {
                    crate::xplane::merge::merge_files
                };
                let (path, m) = merge(&files, &layout(&run_dir("one"))).unwrap();
                if shared {
                    assert_eq!(m.copied, m.events, "every event copied as it was written");
                }
                let space = crate::xplane::read_xspace(&path).unwrap();
                let mut ranges = 0;
                let mut labelled_kernel = false;
                for p in &space.planes {
                    let stat_names = |e: &crate::xplane::proto::XEvent| -> Vec<String> {
                        e.stats
                            .iter()
                            .filter_map(|st| match &st.value {
                                Some(crate::xplane::proto::x_stat::Value::StrValue(v)) => {
                                    Some(v.clone())
                                }
                                Some(crate::xplane::proto::x_stat::Value::RefValue(r)) => {
                                    p.stat_metadata.get(&(*r as i64)).map(|m| m.name.clone())
                                }
                                _ => None,
                            })
                            .collect()
                    };
                    for l in &p.lines {
                        // Sorted by start, each event ends before the next starts or after the
                        // next ends (nested): no partial overlap.
                        let mut open: Vec<i64> = Vec::new();
                        for e in &l.events {
                            let Some(crate::xplane::proto::x_event::Data::OffsetPs(at)) = e.data
                            else {
                                continue;
                            };
                            open.retain(|&end| end > at);
                            if let Some(&end) = open.last() {
                                assert!(at + e.duration_ps <= end, "{}: partial overlap", l.name);
                            }
                            open.push(at + e.duration_ps);
                            let name = p.event_metadata.get(&e.metadata_id).map_or("", |m| &m.name);
                            ranges += usize::from(name == label && !label.is_empty());
                            labelled_kernel |= p.name.starts_with("/device:GPU:")
                                && (label.is_empty() || stat_names(e).contains(&label));
                        }
                    }
                }
                assert!(labelled_kernel, "the kernel's labels in the merged profile");
                if !label.is_empty() {
                    assert_eq!(ranges, 1, "the range, once");
                }
            }
        }
    }
}
