//! The joined, resolved trace of one process.
//!
//! This is the hand-over point between collection (entry/decode/store/join, which fill it at
//! finalize) and output (`crate::xplane`, which turns it into an XSpace). It is plain owned data
//! so the XPlane writer can be tested without any runtime, and so the same writer can later serve
//! converters (rocprofv3 JSON/CSV, rocpd) that build a `Trace` from files.
//!
//! All timestamps are nanoseconds on `CLOCK_BOOTTIME`, the clock of every rocprofiler-sdk record.

use std::sync::Arc;

pub use crate::facts::{CopyDirection, Counters};
use crate::model::corrmap::IdSet;
use crate::model::graph::{GraphExec, GraphNode};

/// One process's profile, ready to be written.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// Host name as written to `XSpace.hostnames` and used in the file name.
    pub hostname: String,
    pub pid: u32,
    /// Runtime version string handed to `rocprofiler_configure` (e.g. "1.0.0").
    pub sdk_version: String,
    /// The user's rule for the roctx ranges that are steps (`xplane::steps`).
    pub step_rule: Option<super::steps::StepRule>,
    /// Profile window on `CLOCK_BOOTTIME`; line timestamps are written relative to `start_boottime_ns`.
    pub start_boottime_ns: u64,
    pub stop_boottime_ns: u64,
    /// No event starts before `start_boottime_ns`: the join moves the start back to the
    /// earliest event (`join::time_window`, which walks every event), so the writer need not
    /// walk them all again to find it. False for a trace made another way (tests), which the
    /// writer walks.
    pub start_covers_events: bool,
    /// The same two instants on the wall clock (Unix epoch ns), for the `Task Environment` plane.
    pub start_walltime_ns: u64,
    pub stop_walltime_ns: u64,
    /// The map from the boot clock to the job's clock, every process of the job's one time
    /// axis (`clock`); `None` without a job origin (the file then counts from its own start).
    pub clock: Option<crate::clock::JobClock>,
    /// GPUs, in ordinal order (ordinal = index among GPU agents, as HIP numbers devices).
    pub devices: Vec<Device>,
    /// Host threads that made traced API calls, sorted by thread id.
    pub host_threads: Vec<HostThread>,
    /// Scope-range-id tree: (child, parent) pairs, exported as `/host:__ScopeRangeCallStack__`.
    pub scope_tree: Vec<(i64, i64)>,
    /// Arguments and resolution of every synchronization call, sorted by correlation id.
    pub sync_calls: Vec<SyncCall>,
    /// One flow per resolved dependency, producer → consumer.
    pub dependency_flows: Vec<DependencyFlow>,
    /// Where the arrows from the records the next window was handed start
    /// (`Carried::anchors_wanted`), by record correlation id: for that window's join.
    pub record_anchors: Vec<(u64, Anchor)>,
    /// The last work on each stream in this window and the run's windows before it
    /// (`Carried::tails_wanted`): for the next window's records with no work before them on
    /// their stream there.
    pub stream_tails: Vec<StreamTail>,
    /// The calls a device event's `correlation_id` may name as written: only their work
    /// carries `correlation_id`, other work `orphan_correlation_id` (a launch flow's end
    /// needs its start). The join notes them as it reads the calls.
    pub written_calls: WrittenCalls,
    /// Allocations and frees with each allocator's totals (xprof's memory profile).
    pub memory: Vec<super::memory::MemoryEvent>,
    /// The host events' names (API names, roctx labels), each stored once.
    pub names: Table<Arc<str>>,
    /// The annotations the events name by id, each stored once.
    pub annotations: Table<Annotation>,
    /// The launch shapes the kernel events name by id, each stored once.
    pub shapes: Table<LaunchShape>,
    /// The graph nodes the device events name by id, each stored once.
    pub graph_nodes: Table<GraphNode>,
    /// The graph launches the host events name (`Launched`), each (graph, count) stored once.
    pub graph_launches: Table<GraphLaunch>,
    /// Hardware counters of the kernel dispatches that have any, by dispatch id (`model::pmc`).
    pub kernel_counters: crate::fastmap::HashMap<u64, super::pmc::KernelCounters>,
    /// Device counters per interval between reads, every GPU (`model::device_counters`),
    /// sorted by agent, counter, start.
    pub device_counters: Vec<super::device_counters::DeviceInterval>,
    /// What was received, skipped, dropped or left unmatched: nothing is lost silently.
    pub counters: Counters,
    /// Human-readable problems, written to `XSpace.warnings`.
    pub warnings: Vec<String>,
}

impl Trace {
    /// A host event's name ("" if the table does not hold it).
    pub fn name(&self, e: &HostEvent) -> &str {
        self.names.get(e.name).map_or("", |n| n)
    }

    /// The annotation an event names, if any (and if the table holds it).
    pub fn annotation(&self, id: Option<Id<Annotation>>) -> Option<&Annotation> {
        id.and_then(|i| self.annotations.get(i))
    }

    /// A kernel event's launch shape (if the table holds it).
    pub fn shape(&self, k: &KernelInfo) -> Option<&LaunchShape> {
        self.shapes.get(k.shape)
    }

    /// The graph node a device event was (if any, and if the table holds it).
    pub fn graph_node(&self, e: &DeviceEvent) -> Option<GraphNode> {
        e.graph.and_then(|g| self.graph_nodes.get(g)).copied()
    }

    /// What a host event's call launched: how many device events, and the executable graph
    /// of a graph launch whose work was numbered (none if the table does not hold it).
    pub fn launched(&self, e: &HostEvent) -> (u32, Option<GraphExec>) {
        match e.launched.get() {
            Launches::Count(n) => (n, None),
            Launches::Graph(g) => self
                .graph_launches
                .get(g)
                .map_or((0, None), |g| (g.activity_count, Some(g.exec))),
        }
    }
}

/// The HIP calls whose device work is labelled as launched: those written on this trace's
/// host plane, and those an earlier window of the same profile wrote (`Carried::launched`).
/// Empty for a trace made without them (`WrittenCalls::of_host` notes a trace's own).
#[derive(Debug, Clone, Default)]
pub struct WrittenCalls {
    here: IdSet,
    /// Sorted.
    earlier: Vec<u64>,
}

impl WrittenCalls {
    /// `here`, the ids of the HIP calls on the host plane, and `earlier`, sorted, those earlier
    /// windows wrote.
    pub fn new(here: IdSet, earlier: Vec<u64>) -> Self {
        debug_assert!(earlier.is_sorted());
        WrittenCalls { here, earlier }
    }

    /// The HIP calls with an id among `threads`' events, and `earlier`, sorted.
    pub fn of_host(threads: &[HostThread], earlier: Vec<u64>) -> Self {
        let ids = threads
            .iter()
            .flat_map(|t| &t.events)
            .filter(|e| e.kind == HostEventKind::HipApi && e.correlation_id != 0)
            .map(|e| e.correlation_id);
        Self::new(IdSet::of(ids.clone(), ids.count()), earlier)
    }

    /// Whether the call `corr` names was written (0 names none). (Asked per activity:
    /// inlined, a bit test.)
    #[inline]
    pub fn contains(&self, corr: u64) -> bool {
        corr != 0 && (self.here.contains(corr) || self.earlier.binary_search(&corr).is_ok())
    }

    /// The calls earlier windows of the same profile wrote, sorted.
    pub fn earlier(&self) -> &[u64] {
        &self.earlier
    }
}

/// A GPU agent and everything that ran on it.
#[derive(Debug, Clone, Default)]
pub struct Device {
    /// 0-based GPU ordinal; the plane is `/device:GPU:<ordinal>` with plane id = ordinal.
    pub ordinal: u32,
    /// Opaque rocprofiler agent handle (for diagnostics only).
    pub agent_handle: u64,
    /// ISA name, e.g. "gfx942".
    pub name: String,
    /// Marketing name, e.g. "AMD Instinct MI300X".
    pub product_name: String,
    pub vendor_name: String,
    pub compute_units: u32,
    pub simd_per_cu: u32,
    pub wave_front_size: u32,
    pub max_waves_per_cu: u32,
    /// Peak engine clock in kHz (xprof's `clock_rate`).
    pub clock_rate_khz: u64,
    /// Device memory in bytes (0 when unknown).
    pub memory_bytes: u64,
    /// Peak memory bandwidth in bytes/s; 0 = unknown, and the writer then omits the stat.
    pub memory_bandwidth_bytes_per_s: u64,
    /// `gfx_target_version` as reported by the agent: major*10000 + minor*100 + stepping.
    pub gfx_target_version: u32,
    /// Lines of this device plane (one per HIP stream; per queue for work of no known stream),
    /// each with its events.
    pub lines: Vec<DeviceLine>,
}

/// One timeline on a device plane.
#[derive(Debug, Clone, Default)]
pub struct DeviceLine {
    /// Small dense id (0, 1, 2, …), unique within the device.
    pub id: i64,
    /// Display name, e.g. "Queue 0" or "Stream 3".
    pub name: String,
    /// Events, in any order; the writer sorts them.
    pub events: Vec<DeviceEvent>,
}

/// Work that ran on a GPU.
#[derive(Debug, Clone)]
pub struct DeviceEvent {
    pub start_ns: u64,
    pub end_ns: u64,
    /// Internal correlation id of the launching API call (0 = none). Shared by every
    /// dispatch of one `hipGraphLaunch`. (The launching thread is its call's host event's.)
    pub correlation_id: u64,
    pub kind: DeviceEventKind,
    /// Annotation context captured when the launching API call was entered.
    pub annotation: Option<Id<Annotation>>,
    /// The HIP graph node this was, for work of a graph launch the runtime let us number:
    /// its place in [`Trace::graph_nodes`] (4 bytes where the node is 8; a graph's nodes run
    /// again at every launch of it).
    pub graph: Option<Id<GraphNode>>,
}

#[derive(Debug, Clone)]
pub enum DeviceEventKind {
    Kernel(KernelInfo),
    /// Boxed: copies are few beside kernel dispatches, and the kernel variant is 16 bytes
    /// (a joined event is 48 B instead of 64 B).
    Memcpy(Box<MemcpyInfo>),
}

/// What a kernel's code object declares: the same for every dispatch of that kernel, so the
/// joined events share one (a million dispatches of a few hundred kernels; each dispatch's
/// event is 40 bytes smaller than with these facts copied into it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelCode {
    /// Demangled kernel name without the `.kd` suffix.
    pub name: Arc<str>,
    pub kernel_id: u64,
    /// Vector registers per work-item (arch VGPRs + accumulation VGPRs).
    pub vgpr_count: u32,
    /// Of those, the accumulation (matrix-core) VGPRs: AGPRs on CDNA.
    pub agpr_count: u32,
    pub sgpr_count: u32,
    /// Scratch bytes per work-item the kernel's code object declares (spills, private arrays).
    pub symbol_scratch_bytes: u32,
    /// LDS bytes declared by the kernel symbol.
    pub static_shared_bytes: u32,
}

/// A kernel dispatch on the device timeline: its own id and its launch's shape.
#[derive(Debug, Clone)]
pub struct KernelInfo {
    pub dispatch_id: u64,
    /// Shared by every dispatch of the same launch shape (a joined kernel event is 48 B
    /// instead of 96 B with these facts copied into it).
    pub shape: Id<LaunchShape>,
}

/// A value's place in a [`Table`]: what an event holds instead of an `Arc` of what it shares
/// with others. Cloning an `Arc` per event at the join (and dropping it after the write) is an
/// atomic on the shared value's cache line, which also waits for the event stores before it,
/// once per event. An id is 4 bytes where the `Arc` is 8, and the writer's caches hold no
/// reference.
pub struct Id<T: ?Sized>(std::num::NonZeroU32, std::marker::PhantomData<fn() -> T>);

impl<T: ?Sized> Id<T> {
    /// The id's position in its table.
    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }

    /// Position plus one, never 0: the writer's caches keep 0 for an empty slot.
    pub fn get(self) -> u32 {
        self.0.get()
    }
}

impl<T: ?Sized> Clone for Id<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: ?Sized> Copy for Id<T> {}
impl<T: ?Sized> PartialEq for Id<T> {
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}
impl<T: ?Sized> Eq for Id<T> {}
impl<T: ?Sized> std::hash::Hash for Id<T> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h)
    }
}
impl<T: ?Sized> std::fmt::Debug for Id<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Values shared by many events, each stored once and named by its [`Id`]; ids are handed out
/// in order, so the events of one stretch of the run name nearby ids.
///
/// Kept in chunks of [`TABLE_CHUNK_BYTES`] at most (a power of two of values), each allocated
/// once and never moved: a table of a value per range pushed (the annotations) grows while
/// the join frees its inputs in pieces of that size, between blocks still in use, and chunks
/// can be made of those pieces' pages where one growing vector would take fresh pages for
/// every step past the largest piece (`heap::pool`). The first chunk grows as a vector up to
/// the chunk's room, so a table of a few values holds no whole chunk.
#[derive(Debug, Clone)]
pub struct Table<T> {
    /// Chunk `k` holds the values of positions `k << shift` to `((k + 1) << shift) - 1`.
    chunks: Vec<Vec<T>>,
    /// Values in all the chunks.
    len: usize,
}

/// Bytes of a table's chunk at most: as large as the pieces the join frees (the application
/// threads' capture chunks, 64 KiB, `store::chunked::THREAD_CHUNK`), at least as large as
/// the blocks the pool makes of freed pages (`heap::pool::LARGE`) for values of up to 2 KiB.
pub const TABLE_CHUNK_BYTES: usize = 64 << 10;

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Table<T> {
    /// Log2 of the values a chunk holds: the most a power of two of them in
    /// [`TABLE_CHUNK_BYTES`] (values of zero bytes count as one).
    const SHIFT: u32 = {
        let n = TABLE_CHUNK_BYTES
            / if std::mem::size_of::<T>() == 0 {
                1
            } else {
                std::mem::size_of::<T>()
            };
        if n == 0 {
            0
        } else {
            usize::BITS - 1 - n.leading_zeros()
        }
    };
    const ROOM: usize = 1 << Self::SHIFT;

    /// Stores `v` and returns its id. A table never holds 2^32 - 1 values (a memory ceiling
    /// stops the records long before); past that the last value's id is returned rather than
    /// the program stopped.
    #[inline]
    pub fn push(&mut self, v: T) -> Id<T> {
        if self.len < u32::MAX as usize {
            match self.chunks.last_mut() {
                Some(last) if last.len() < Self::ROOM => last.push(v),
                _ => self.push_to_new_chunk(v),
            }
            self.len += 1;
        }
        let n = std::num::NonZeroU32::new(self.len as u32).expect("a pushed table is not empty");
        Id(n, std::marker::PhantomData)
    }

    /// A new chunk for `v`: the first grows as a vector (by doubling, so up to the chunk's
    /// room exactly), the others have their room at once.
    #[inline(never)]
    fn push_to_new_chunk(&mut self, v: T) {
        let mut chunk = if self.chunks.is_empty() {
            Vec::new()
        } else {
            Vec::with_capacity(Self::ROOM)
        };
        chunk.push(v);
        self.chunks.push(chunk);
    }

    #[inline]
    pub fn get(&self, id: Id<T>) -> Option<&T> {
        let i = id.index();
        // Chunks fill in order, each to its room before the next is made: position `i` is in
        // chunk `i >> SHIFT`, at `i` modulo the room.
        self.chunks.get(i >> Self::SHIFT)?.get(i & (Self::ROOM - 1))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Every value, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flatten()
    }
}

impl<T> std::ops::Index<Id<T>> for Table<T> {
    type Output = T;

    /// Panics for an id of another table (a bug); ids reach the writer only from their own.
    #[inline]
    fn index(&self, id: Id<T>) -> &T {
        self.get(id).expect("an id of another table")
    }
}

/// What the dispatches of one kernel launched with one grid, block and queue have in common.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchShape {
    /// The kernel's code-object facts, shared by its dispatches.
    pub code: Arc<KernelCode>,
    /// Grid size in work-groups (blocks), not work-items.
    pub grid: [u32; 3],
    /// Work-group (block) size in work-items.
    pub block: [u32; 3],
    /// LDS bytes of the dispatch beyond the static amount.
    pub dynamic_shared_bytes: u32,
    /// Scratch bytes per work-item.
    pub private_segment_bytes: u32,
    /// HSA queue the dispatch ran on (lines are HIP streams; the queue stays a stat).
    pub queue: u64,
    /// Hardware pipe of the completion, where the SDK reports it (newest SDK).
    pub pipe_id: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemcpyInfo {
    pub direction: CopyDirection,
    pub bytes: u64,
    /// GPU ordinals of the source and destination agents, when they are GPUs.
    pub src_device: Option<u32>,
    pub dst_device: Option<u32>,
    /// Memory kinds of the destination and source, when the call's pointers were seen.
    pub kinds: Option<(crate::facts::MemKind, crate::facts::MemKind)>,
}

/// Framework context captured on the app thread at API entry and shared by all events it caused.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotation {
    /// Nested roctx range labels, outermost first, joined by "::" when written. Shared: every
    /// range pushed under the same labels (each its own annotation, for its scope id) holds
    /// one list.
    pub stack: Arc<[Arc<str>]>,
    /// Innermost scope range id (0 = none).
    pub scope_range_id: i64,
    /// External correlation ids pushed by the application, outermost first.
    pub external_ids: Vec<u64>,
}

/// A host thread's timeline on `/host:CPU`.
#[derive(Debug, Clone, Default)]
pub struct HostThread {
    pub tid: u64,
    pub name: String,
    pub events: Vec<HostEvent>,
}

/// Plain data (`Copy`): what it shares with other events it names by id.
#[derive(Debug, Clone, Copy)]
pub struct HostEvent {
    /// API or marker name, e.g. "hipLaunchKernel", or the roctx label of a range: its place
    /// in [`Trace::names`] (4 bytes where an `Arc<str>` is 16).
    pub name: Name,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Internal correlation id (0 = none); equals `DeviceEvent::correlation_id` of its work.
    pub correlation_id: u64,
    pub kind: HostEventKind,
    pub annotation: Option<Id<Annotation>>,
    /// GPU ordinal the call targeted, when known (launches and copies).
    pub device: Ordinal16,
    /// The number of device events this call produced (graph launches produce many), and the
    /// executable graph a `hipGraphLaunch` launched when its work was numbered
    /// ([`Trace::launched`]).
    pub launched: Launched,
}

impl HostEvent {
    /// The range's own scope id: a push/pop range's is its event's correlation id (its
    /// push's, `capture::thread::scope_id_for`); 0 for calls, marks and start/stop ranges.
    pub fn scope_id(&self) -> i64 {
        match self.kind {
            HostEventKind::MarkerRange(r) if !r.process_wide => self.correlation_id as i64,
            _ => 0,
        }
    }
}

/// A host event's name: its place in [`Trace::names`].
pub type Name = Id<Arc<str>>;

/// What a call launched, in 4 bytes (the count and the graph apart would make a host event 48
/// bytes, not 40): the number of device events it produced, or for a graph launch whose work
/// was numbered, its entry in [`Trace::graph_launches`], which holds that number beside the
/// executable graph. Few calls are graph launches, and the launches of one graph mostly share
/// one entry.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Launched(u32);

/// A [`Launched`] read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launches {
    Count(u32),
    Graph(Id<GraphLaunch>),
}

impl Launched {
    /// The high bit marks a graph launch's entry; below it, a count or the entry's position.
    const GRAPH: u32 = 1 << 31;
    pub const NOTHING: Launched = Launched(0);

    /// `n` device events; a count past 2^31 − 1 (more events than a trace can hold) reads as
    /// that.
    pub fn count(n: u32) -> Self {
        Launched(n.min(Self::GRAPH - 1))
    }

    /// A graph launch's entry; `None` for an entry past 2^31 (more graph launches than a trace
    /// can hold), which the caller writes as a plain count.
    pub fn graph(g: Id<GraphLaunch>) -> Option<Self> {
        (g.get() < Self::GRAPH).then(|| Launched(Self::GRAPH | g.get()))
    }

    pub fn get(self) -> Launches {
        match std::num::NonZeroU32::new(self.0 & !Self::GRAPH) {
            Some(id) if self.0 & Self::GRAPH != 0 => {
                Launches::Graph(Id(id, std::marker::PhantomData))
            }
            _ => Launches::Count(self.0 & !Self::GRAPH),
        }
    }
}

impl std::fmt::Debug for Launched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// A graph launch as its host event shows it: the executable graph and how many device events
/// (its nodes' work) it produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GraphLaunch {
    pub exec: GraphExec,
    pub activity_count: u32,
}

/// A GPU ordinal in 16 bits, `u16::MAX` for none (no node has 65,535 GPUs): 2 bytes where an
/// `Option<u16>` is 4, so that with the kind beside it a host event is 40 bytes (a program's
/// host events are the largest part of its trace).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ordinal16(u16);

impl Ordinal16 {
    pub const NONE: Ordinal16 = Ordinal16(u16::MAX);

    pub fn get(self) -> Option<u16> {
        (self.0 != u16::MAX).then_some(self.0)
    }
}

impl From<Option<u16>> for Ordinal16 {
    /// `u16::MAX` itself, never a real ordinal, reads as none.
    fn from(o: Option<u16>) -> Self {
        Ordinal16(o.unwrap_or(u16::MAX))
    }
}

impl std::fmt::Debug for Ordinal16 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostEventKind {
    HipApi,
    /// A roctx range (push/pop or start/stop).
    MarkerRange(RangeInfo),
    /// An instantaneous roctx mark.
    Marker,
}

/// What the writer needs to know about a roctx range to place and label it. Flags only (two
/// bytes with the kind): a push/pop range's scope id is its event's correlation id
/// ([`HostEvent::scope_id`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RangeInfo {
    /// `roctxRangeStartA`/`Stop`: process-wide, need not nest with the thread's push/pop ranges,
    /// and has no scope id.
    pub process_wide: bool,
    /// Still open when the profile ended; shown closed at the end time.
    pub open_at_end: bool,
}

/// A synchronization call's arguments as written on its host event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncCall {
    pub correlation_id: u64,
    pub kind: crate::facts::SyncKind,
    /// Raw `hipEvent_t` (0 when the API has none).
    pub event: u64,
    /// `N` of the `Stream #N` line of the stream argument (the consumer for waits; the null
    /// stream is `Some`), when the call has one and its device is known.
    pub stream: Option<i32>,
    /// GPU plane of that stream.
    pub device: Option<u16>,
    /// The record this wait resolved to.
    pub resolved: Option<ResolvedWait>,
}

/// (Stream numbers in 32 bits, planes in 16, a resolved record's id nonzero: a program that
/// synchronizes every step has a sync call per few launches, and all of them are held from
/// the join's dependency stage, its peak there, to the end of the write.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedWait {
    pub record_correlation_id: std::num::NonZeroU64,
    /// `N` of the recording stream's line.
    pub stream: Option<i32>,
    pub device: Option<u16>,
}

/// A point where a dependency arrow starts or ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    pub place: AnchorPlace,
    pub time_ns: u64,
}

impl Anchor {
    /// A point on line `line` of GPU plane `ordinal`.
    pub fn on_device(ordinal: u32, line: i64, time_ns: u64) -> Self {
        Anchor {
            place: AnchorPlace::Device { ordinal, line },
            time_ns,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AnchorPlace {
    /// A line (`DeviceLine::id`) of a GPU plane.
    Device { ordinal: u32, line: i64 },
    /// A host thread's API line.
    Host { tid: u64 },
}

/// Where the last work of a stream in a run's windows so far ended, when the windows are
/// merged into one profile: a record of a later window with no work before it on its stream
/// there starts its arrows here, where the run written whole starts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamTail {
    pub plane: u32,
    pub key: super::streams::StreamKey,
    /// The call of that work: a record before it (its fact came after the cut) does not
    /// start there.
    pub correlation_id: u64,
    pub anchor: Anchor,
}

/// A resolved dependency, drawn as an arrow from `from` (producer) to `to` (consumer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DependencyFlow {
    /// Flow id (< 2^53, unique per host).
    pub id: u64,
    pub wait_correlation_id: u64,
    pub record_correlation_id: u64,
    pub from: Anchor,
    pub to: Anchor,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values pushed across many chunks read back by id, in order, and every chunk past the
    /// first is allocated at its room once (a value never moves); the first grows up to it.
    #[test]
    fn a_table_reads_back_its_values_across_chunks() {
        let mut t: Table<[u64; 6]> = Table::default();
        assert!(t.is_empty());
        assert_eq!(t.len(), 0);
        let room = Table::<[u64; 6]>::ROOM;
        assert!(room * 48 <= TABLE_CHUNK_BYTES && room * 96 > TABLE_CHUNK_BYTES);
        let n = 5 * room + 7;
        let mut ids = Vec::new();
        let mut second = None;
        for i in 0..n as u64 {
            ids.push(t.push([i; 6]));
            if i as usize == room {
                second = Some(&t[ids[room]] as *const [u64; 6]);
            }
        }
        assert_eq!(t.len(), n);
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(id.index(), i);
            assert_eq!(t[id], [i as u64; 6]);
            assert_eq!(t.get(id), Some(&[i as u64; 6]));
        }
        assert!(t.iter().copied().eq((0..n as u64).map(|i| [i; 6])));
        assert_eq!(
            second,
            Some(&t[ids[room]] as *const [u64; 6]),
            "never moved"
        );
        assert!(t.chunks[1..].iter().all(|c| c.capacity() == room));
        assert_eq!(t.chunks[0].capacity(), room);
        // An id past the values (another table's) is none of them.
        let mut other = Table::default();
        for i in 0..=n as u64 {
            other.push([i; 6]);
        }
        let past = other.push([0; 6]);
        assert_eq!(t.get(past), None);
        // A table of a few values holds no whole chunk.
        let mut few: Table<u64> = Table::default();
        few.push(1);
        assert!(few.chunks[0].capacity() < Table::<u64>::ROOM);
    }

    /// A joined trace holds one of these per event until it is written (a million dispatches
    /// is a common run): each byte here is a megabyte or more of the join's peak, so a field
    /// that makes them grow should be a decision, not an accident.
    #[test]
    fn joined_events_stay_at_their_size() {
        // The annotation, the launch shape and the graph node are ids; the launching thread
        // is the call's.
        assert_eq!(std::mem::size_of::<DeviceEvent>(), 48);
        // A range's scope id is its correlation id, the ordinal 2 bytes, the name and the
        // annotation ids and what the call launched 4 bytes each.
        assert_eq!(std::mem::size_of::<HostEvent>(), 40);
        assert_eq!(std::mem::size_of::<SyncCall>(), 56);
        assert_eq!(Ordinal16::from(Some(3)).get(), Some(3));
        assert_eq!(Ordinal16::from(None).get(), None);
        assert_eq!(Ordinal16::NONE.get(), None);
    }

    #[test]
    fn launched_reads_back_a_count_or_a_graph_launch() {
        assert_eq!(Launched::NOTHING.get(), Launches::Count(0));
        assert_eq!(Launched::count(7).get(), Launches::Count(7));
        assert_eq!(
            Launched::count(u32::MAX).get(),
            Launches::Count((1 << 31) - 1)
        );
        let exec = crate::model::graph::GraphNode::new(5, 0).unwrap().exec();
        let mut t = Trace::default();
        let first = t.graph_launches.push(GraphLaunch {
            exec,
            activity_count: 3,
        });
        let g = t.graph_launches.push(GraphLaunch {
            exec,
            activity_count: 1 << 24,
        });
        assert_ne!(first, g);
        let l = Launched::graph(g).unwrap();
        assert_eq!(l.get(), Launches::Graph(g));
        let mut e = HostEvent {
            name: t.names.push(Arc::from("hipGraphLaunch")),
            start_ns: 1,
            end_ns: 2,
            correlation_id: 9,
            kind: HostEventKind::HipApi,
            annotation: None,
            device: Ordinal16::NONE,
            launched: l,
        };
        assert_eq!(t.launched(&e), (1 << 24, Some(exec)));
        e.launched = Launched::count(2);
        assert_eq!(t.launched(&e), (2, None));
    }
}
