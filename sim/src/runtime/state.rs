//! Process-wide state of the simulated runtime: lifecycle status, registered clients, contexts
//! and their services, the clock, and id allocation.
//!
//! Configuration (contexts, services, buffers) is only mutable inside the init window; after
//! that the hot path only reads it, so short mutex sections suffice and no lock is ever held
//! while tool code runs (a tool may call back into the runtime from any callback).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use super::abi::*;
use super::buffer::Buffer;
use super::personality::Personality;
use crate::prng::SplitMix64;

/// Init/fini status as reported by `rocprofiler_is_initialized` / `_is_finalized`:
/// 0 = not yet, -1 = in progress, 1 = done.
pub static INIT_STATUS: AtomicI32 = AtomicI32::new(0);
pub static FINI_STATUS: AtomicI32 = AtomicI32::new(0);

static PERSONALITY: OnceLock<Personality> = OnceLock::new();

/// The personality is fixed by the first run (`rocprof_sim_main` / `run_plan`) or, if the tool
/// or a test queries the runtime first, from `ROCPROF_SIM_SDK` (default 1.0.0).
pub fn personality() -> Personality {
    *PERSONALITY.get_or_init(|| {
        std::env::var("ROCPROF_SIM_SDK")
            .ok()
            .and_then(|s| Personality::parse(&s))
            .unwrap_or(Personality::V1_0_0)
    })
}

/// `ROCPROF_SIM_TOOL_CALLS=skip`: every tool callback (callback tracing, buffer delivery,
/// external-id requests) is skipped while the runtime still does all its other work:
/// records built and buffered, buffers filled and recycled. The tools are loaded, configured
/// and finalized as usual. A benchmark's baseline (`ci/bench-e2e.sh`): the same run minus the
/// tool's own work, so the difference is the tool's cost and not the runtime's tracing.
pub fn tool_calls_skipped() -> bool {
    static SKIP: OnceLock<bool> = OnceLock::new();
    *SKIP.get_or_init(|| std::env::var("ROCPROF_SIM_TOOL_CALLS").as_deref() == Ok("skip"))
}

/// Returns false if a different personality was already fixed.
pub fn set_personality(p: Personality) -> bool {
    *PERSONALITY.get_or_init(|| p) == p
}

/// The status by its enumerator's suffix. Every export evaluates `status("ERROR")` for its
/// panic guard, so this must not allocate: the tool's every `rocprofiler_get_timestamp` would
/// pay for it, where the real runtime's is a clock read.
pub fn status(name: &str) -> rocprofiler_status_t {
    personality().status_suffix(name)
}

/// Raw pointers that are only ever handed back to the tool that gave them to us.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opaque(pub usize);
// SAFETY: the runtime never dereferences these; they are tool-owned values passed back verbatim,
// exactly as the real runtime passes them between its threads.
unsafe impl Send for Opaque {}
// SAFETY: see above — never dereferenced by the runtime.
unsafe impl Sync for Opaque {}

impl Opaque {
    pub fn ptr(self) -> *mut std::ffi::c_void {
        self.0 as *mut std::ffi::c_void
    }
}

/// A tool found during discovery.
pub struct Client {
    pub priority: u32,
    pub library: String,
    /// Runtime-owned client id storage in the personality's layout (v0: 16 bytes, v1: 24).
    pub client_id: Box<[u64; 3]>,
    pub handle: u32,
    pub result: Option<rocprofiler_tool_configure_result_t>,
    pub initialized: bool,
    pub finalized: AtomicBool,
    /// Name the tool wrote into the client id during configure (read back from its layout).
    pub name: Option<String>,
}
// SAFETY: the configure result holds tool function pointers and tool_data that the runtime calls
// from whichever thread runs (de)initialisation — same contract as the real runtime.
unsafe impl Send for Client {}

#[derive(Clone)]
pub struct CallbackService {
    /// Tool callback, version-erased (`rocprofiler_callback_tracing_cb_v0_t`/`_v1_t`).
    pub callback: Opaque,
    pub data: Opaque,
    pub ops: Option<OpSet>,
}

#[derive(Clone)]
pub struct BufferService {
    pub buffer: Arc<Buffer>,
    pub ops: Option<OpSet>,
}

/// The operations a service was configured for, tested on every traced call: a bit per
/// operation id (ids are small and dense), any id outside the bits' range kept in a list.
#[derive(Clone, Debug)]
pub struct OpSet {
    bits: Vec<u64>,
    others: Vec<i32>,
}

impl OpSet {
    /// Ids below this are kept as bits.
    const BITS_BELOW: i32 = 1 << 12;

    pub fn new(ops: &[i32]) -> OpSet {
        let mut set = OpSet {
            bits: Vec::new(),
            others: Vec::new(),
        };
        for &op in ops {
            if (0..Self::BITS_BELOW).contains(&op) {
                let word = op as usize / 64;
                if set.bits.len() <= word {
                    set.bits.resize(word + 1, 0);
                }
                set.bits[word] |= 1 << (op % 64);
            } else {
                set.others.push(op);
            }
        }
        set
    }

    pub fn contains(&self, op: i32) -> bool {
        if (0..Self::BITS_BELOW).contains(&op) {
            self.bits
                .get(op as usize / 64)
                .is_some_and(|w| w & (1 << (op % 64)) != 0)
        } else {
            self.others.contains(&op)
        }
    }
}

#[derive(Clone)]
pub struct RequestService {
    pub kinds: Option<Vec<u32>>,
    pub callback: rocprofiler_external_correlation_id_request_cb_t,
    pub data: Opaque,
}

/// A service per tracing kind, indexed by the kind's value (a few dozen at most): every traced
/// call looks its kinds up here.
#[derive(Clone)]
pub struct KindMap<T> {
    by_kind: Vec<Option<T>>,
    /// Kinds set: whether the map is empty is one compare (asked per HIP call).
    set: usize,
}

impl<T> Default for KindMap<T> {
    fn default() -> Self {
        KindMap {
            by_kind: Vec::new(),
            set: 0,
        }
    }
}

impl<T> KindMap<T> {
    pub fn get(&self, kind: &u32) -> Option<&T> {
        self.by_kind.get(*kind as usize)?.as_ref()
    }
    pub fn contains_key(&self, kind: &u32) -> bool {
        self.get(kind).is_some()
    }
    pub fn is_empty(&self) -> bool {
        self.set == 0
    }
    pub fn insert(&mut self, kind: u32, v: T) {
        let i = kind as usize;
        if self.by_kind.len() <= i {
            self.by_kind.resize_with(i + 1, || None);
        }
        if self.by_kind[i].replace(v).is_none() {
            self.set += 1;
        }
    }
}

/// Hasher for integer keys (thread ids, stream handles, call keys) of the maps the traced
/// calls consult: a multiply per word (FxHash), with the high bits rotated down because the
/// table indexes by the low bits and handles often differ only above bit 12.
#[derive(Default, Clone, Copy)]
pub struct IntHasher(u64);

impl Hasher for IntHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0xf135_7aea_2e62_a9c5);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

pub type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
pub type IntSet<K> = std::collections::HashSet<K, BuildHasherDefault<IntHasher>>;

#[derive(Default, Clone)]
pub struct Services {
    pub buffer: KindMap<BufferService>,
    pub callback: KindMap<CallbackService>,
    pub request: Option<RequestService>,
    /// The buffered dispatch counting service (`runtime::counting`).
    pub dispatch_counting: Option<super::counting::DispatchCounting>,
    /// The device counting service (`runtime::device_counting`).
    pub device_counting: Option<super::device_counting::DeviceCounting>,
}

pub struct Context {
    pub handle: u64,
    pub client: Option<usize>,
    /// Set through [`Context::set_active`], which tells the active-set snapshots.
    active: AtomicBool,
    /// Frozen after the init window; readers take a cheap `Arc` snapshot.
    services: RwLock<Arc<Services>>,
    /// Per-thread external correlation id stacks (`push/pop_external_correlation_id`).
    ext_stacks: Mutex<IntMap<u64, Vec<u64>>>,
    /// Ids on all of `ext_stacks` together: while 0, a look-up needs no lock.
    ext_held: AtomicUsize,
}

impl Context {
    pub fn new(handle: u64, client: Option<usize>) -> Context {
        Context {
            handle,
            client,
            active: AtomicBool::new(false),
            services: RwLock::new(Default::default()),
            ext_stacks: Mutex::new(Default::default()),
            ext_held: AtomicUsize::new(0),
        }
    }
    pub fn services(&self) -> Arc<Services> {
        self.services
            .read()
            .map(|s| Arc::clone(&s))
            .unwrap_or_default()
    }
    /// Mutable access during configuration (copy-on-write of the snapshot).
    pub fn edit_services<R>(&self, f: impl FnOnce(&mut Services) -> R) -> R {
        let mut guard = self.services.write().unwrap_or_else(|e| e.into_inner());
        let r = f(Arc::make_mut(&mut guard));
        drop(guard);
        REGISTRY.contexts_changed();
        r
    }
    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }
    pub fn set_active(&self, on: bool) {
        self.active.store(on, Ordering::Release);
        REGISTRY.contexts_changed();
    }
    /// `push_external_correlation_id` on `tid`'s stack.
    pub fn push_external(&self, tid: u64, v: u64) {
        let mut stacks = lock(&self.ext_stacks);
        stacks.entry(tid).or_default().push(v);
        self.ext_held.fetch_add(1, Ordering::Release);
    }
    /// `pop_external_correlation_id` from `tid`'s stack, if it holds an id.
    pub fn pop_external(&self, tid: u64) -> Option<u64> {
        let mut stacks = lock(&self.ext_stacks);
        let v = stacks.get_mut(&tid).and_then(|s| s.pop());
        if v.is_some() {
            self.ext_held.fetch_sub(1, Ordering::Release);
        }
        v
    }
    /// The stacks, unless no thread holds an id (then nothing needs reading).
    fn held_stacks(&self) -> Option<MutexGuard<'_, IntMap<u64, Vec<u64>>>> {
        (self.ext_held.load(Ordering::Acquire) != 0).then(|| lock(&self.ext_stacks))
    }
    /// Depth of this thread's push/pop stack (to see whether a callback pushed).
    #[inline]
    pub fn external_depth(&self, tid: u64) -> usize {
        self.held_stacks()
            .and_then(|s| s.get(&tid).map(Vec::len))
            .unwrap_or(0)
    }
    /// Top of this thread's stack, else (like the real SDK) the main thread's top, else 0.
    /// During a replay the main thread's top is taken from the plan at the caller's simulated
    /// time ([`set_main_external_timeline`]), not from how far the main thread has got in wall
    /// time: the same on every run.
    #[inline]
    pub fn external_top(&self, tid: u64) -> u64 {
        if self.ext_held.load(Ordering::Acquire) == 0
            && MAIN_EXTERNAL_TIMELINE.get().is_none_or(|tl| tl.is_empty())
        {
            // No stack holds an id and no replayed main thread pushes one.
            return 0;
        }
        self.external_top_held(tid)
    }

    #[cold]
    fn external_top_held(&self, tid: u64) -> u64 {
        let stacks = self.held_stacks();
        let timeline = MAIN_EXTERNAL_TIMELINE.get().filter(|tl| !tl.is_empty());
        if let Some(v) = stacks.as_ref().and_then(|s| s.get(&tid)?.last()) {
            return *v;
        }
        let now = SIM_NOW.with(|c| c.get());
        if let (Some(tl), true) = (timeline, now != 0) {
            let i = tl.partition_point(|&(at, _)| at <= now);
            return if i == 0 { 0 } else { tl[i - 1].1 };
        }
        let main = pid();
        stacks
            .and_then(|s| s.get(&main)?.last().copied())
            .unwrap_or(0)
    }
}

/// The active contexts with their services, as the traced calls iterate them.
pub type ActiveContexts = Arc<[(Arc<Context>, Arc<Services>)]>;

pub struct Registry {
    pub context_offset: u64,
    pub buffer_offset: u64,
    pub thread_offset: u64,
    pub agent_offset: u64,
    pub client_offset: u32,
    pub contexts: Vec<Arc<Context>>,
    pub buffers: Vec<Arc<Buffer>>,
    pub clients: Vec<Client>,
    /// Client whose configure/initialize is running (owner of new contexts).
    pub current_client: Option<usize>,
}

pub static REGISTRY: LazyRegistry = LazyRegistry {
    registry: OnceLock::new(),
    contexts_version: AtomicU64::new(0),
};

pub struct LazyRegistry {
    registry: OnceLock<Mutex<Registry>>,
    /// Bumped after any context is started or stopped or has its services edited (a context
    /// is created inactive): a snapshot of the active set taken at version `v` is current
    /// while it stays `v`.
    contexts_version: AtomicU64,
}

impl LazyRegistry {
    pub fn contexts_changed(&self) {
        self.contexts_version.fetch_add(1, Ordering::AcqRel);
    }

    /// The active contexts and their services, as of now. Each thread keeps the last snapshot
    /// it took and reuses it while no context changed, so a traced call neither takes the
    /// registry's lock nor clones each context's `Arc`s.
    pub fn active(&self) -> ActiveContexts {
        thread_local! {
            static SNAPSHOT: RefCell<Option<(u64, ActiveContexts)>> = const { RefCell::new(None) };
        }
        // Read before the snapshot is built: a change made meanwhile bumps it past `version`,
        // so the next call rebuilds.
        let version = self.contexts_version.load(Ordering::Acquire);
        let build = || -> ActiveContexts {
            active_contexts()
                .into_iter()
                .map(|c| {
                    let s = c.services();
                    (c, s)
                })
                .collect()
        };
        SNAPSHOT
            .try_with(|cell| {
                let mut cell = cell.borrow_mut();
                match &*cell {
                    Some((v, snap)) if *v == version => Arc::clone(snap),
                    _ => {
                        let snap = build();
                        *cell = Some((version, Arc::clone(&snap)));
                        snap
                    }
                }
            })
            // The thread is exiting (its snapshot already dropped): build one for this call.
            .unwrap_or_else(|_| build())
    }

    pub fn lock(&self) -> MutexGuard<'_, Registry> {
        let m = self.registry.get_or_init(|| {
            let mut rng = SplitMix64::new(seed_from_env_and_time());
            Mutex::new(Registry {
                // Real handles are a random per-process offset in 255..65535 plus an index.
                context_offset: 255 + rng.next_u64() % (65535 - 255),
                buffer_offset: 255 + rng.next_u64() % (65535 - 255),
                thread_offset: 255 + rng.next_u64() % (65535 - 255),
                agent_offset: 0x1_0000 + (rng.next_u64() % 0xffff) * 16,
                client_offset: 255 + (rng.next_u64() % 60000) as u32,
                contexts: Vec::new(),
                buffers: Vec::new(),
                clients: Vec::new(),
                current_client: None,
            })
        });
        lock(m)
    }
}

impl Registry {
    pub fn context(&self, handle: u64) -> Option<Arc<Context>> {
        let idx = handle.checked_sub(self.context_offset)? as usize;
        self.contexts.get(idx).cloned()
    }
    /// A live (not destroyed) buffer.
    pub fn buffer(&self, handle: u64) -> Option<Arc<Buffer>> {
        let idx = handle.checked_sub(self.buffer_offset)? as usize;
        self.buffers.get(idx).filter(|b| !b.is_destroyed()).cloned()
    }
}

/// Active contexts, cloned out of the registry so no lock is held while emitting.
pub fn active_contexts() -> Vec<Arc<Context>> {
    REGISTRY
        .lock()
        .contexts
        .iter()
        .filter(|c| c.is_active())
        .cloned()
        .collect()
}

pub fn all_contexts() -> Vec<Arc<Context>> {
    REGISTRY.lock().contexts.clone()
}

/// Poison-tolerant lock: a panic in one callback path must not wedge the whole runtime.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn in_init_window() -> bool {
    INIT_STATUS.load(Ordering::Acquire) == -1
}

// ---- clock ---------------------------------------------------------------------------------

/// The host's `CLOCK_BOOTTIME` (`host_clock`): the machine's, shifted to the simulated host's.
pub fn boottime_ns() -> u64 {
    super::host_clock::host_boottime_ns()
}

thread_local! {
    /// Simulated "now" of a replay thread (absolute ns), 0 = not a replay thread right now.
    static SIM_NOW: Cell<u64> = const { Cell::new(0) };
    static TID: Cell<u64> = const { Cell::new(0) };
}

/// Highest simulated time reached by any replay thread, and the shift applied to the real
/// clock once replay is over, so every timestamp a tool reads stays monotonic with the
/// simulated record timestamps.
static SIM_HIGH_WATER: AtomicU64 = AtomicU64::new(0);
static POST_REPLAY_SHIFT: AtomicU64 = AtomicU64::new(0);

/// The main thread's external-id top over simulated time (absolute ns, value from then on),
/// from the plan's pushes and pops on thread 0 (the process's main thread).
static MAIN_EXTERNAL_TIMELINE: std::sync::OnceLock<Vec<(u64, u64)>> = std::sync::OnceLock::new();

pub fn set_main_external_timeline(tl: Vec<(u64, u64)>) {
    let _ = MAIN_EXTERNAL_TIMELINE.set(tl);
}

pub fn set_sim_now(abs_ns: u64) {
    SIM_NOW.with(|c| c.set(abs_ns));
    SIM_HIGH_WATER.fetch_max(abs_ns, Ordering::AcqRel);
}

pub fn clear_sim_now() {
    SIM_NOW.with(|c| c.set(0));
}

/// Called when replay ends: from now on the real clock is shifted past the simulated end.
pub fn end_replay_clock(sim_end_abs: u64) {
    let now = boottime_ns();
    let hw = SIM_HIGH_WATER.load(Ordering::Acquire).max(sim_end_abs);
    POST_REPLAY_SHIFT.store(hw.saturating_sub(now) + 1, Ordering::Release);
}

/// `rocprofiler_get_timestamp`: a replay thread's simulated time, else the (shifted) real
/// CLOCK_BOOTTIME, never below what replay threads have reached.
pub fn timestamp_ns() -> u64 {
    let sim = SIM_NOW.with(|c| c.get());
    if sim != 0 {
        return sim;
    }
    let real = boottime_ns() + POST_REPLAY_SHIFT.load(Ordering::Acquire);
    real.max(SIM_HIGH_WATER.load(Ordering::Acquire))
}

/// Process id (the main thread's TID), cached: it is read for every record.
pub fn pid() -> u64 {
    static PID: OnceLock<u64> = OnceLock::new();
    *PID.get_or_init(|| std::process::id() as u64)
}

pub fn gettid() -> u64 {
    TID.with(|c| {
        if c.get() == 0 {
            // SAFETY: gettid has no preconditions.
            c.set(unsafe { libc::gettid() } as u64);
        }
        c.get()
    })
}

// ---- randomness (deterministic where the plan asks for it) ----------------------------------

fn seed_from_env_and_time() -> u64 {
    if let Some(s) = std::env::var("ROCPROF_SIM_HANDLE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return s;
    }
    boottime_ns() ^ ((std::process::id() as u64) << 32)
}

#[cfg(test)]
mod tests {
    use super::OpSet;

    #[test]
    fn op_set_holds_exactly_its_ids() {
        let set = OpSet::new(&[0, 5, 63, 64, 214, 4095, 4096, -1, i32::MAX]);
        for op in [0, 5, 63, 64, 214, 4095, 4096, -1, i32::MAX] {
            assert!(set.contains(op), "{op} missing");
        }
        for op in [1, 62, 65, 213, 215, 4094, 4097, -2, i32::MIN, 100_000] {
            assert!(!set.contains(op), "{op} present");
        }
        assert!(!OpSet::new(&[]).contains(0));
    }
}
