//! Replaying a [`Plan`]: one OS thread per application thread (real gettid ids), plus one
//! "device" thread standing in for the HSA signal-handler thread that observes completions.
//!
//! Everything that must be reproducible (internal correlation ids, dispatch ids, roctx range
//! ids, completion order incl. its seeded shuffle) is fixed up front from the plan, so thread
//! interleaving only changes *when* a tool sees something, never *what*.

use std::collections::{HashMap, HashSet};
use std::ffi::{c_void, CString};
use std::sync::{Arc, Condvar, Mutex, RwLock};

use super::abi::*;
use super::agents::agent_handle;
use super::buffer::Buffer;
use super::emit::{self, as_bytes, Corr};
use super::hip_event;
use super::hipargs;
use super::state::{self, lock, set_sim_now, Context, IntMap, IntSet};
use crate::plan::*;

struct Act {
    thread: usize,
    op: usize,
    idx: usize,
    call_key: usize,
    cid: u64,
    dispatch_id: u64,
    /// dst/src addresses of the HIP call's memcpy arguments (copies only).
    addrs: (u64, u64),
}

/// A HIP-event barrier of the plan (personalities with HIP event tracing only).
struct BarrierAct {
    thread: usize,
    op: usize,
    cid: u64,
}

struct PerCtx {
    ctx: Arc<Context>,
    external: u64,
    user: u64,
}

struct Enq {
    tid: u64,
    per_ctx: Vec<PerCtx>,
    /// What each context's dispatch counting callback answered (kernels only).
    counting: Vec<super::counting::Counting>,
}

struct Deferred {
    buffer: Arc<Buffer>,
    kind: u32,
    bytes: Vec<u8>,
}

struct Pending {
    remaining: usize,
    deferred: Option<Vec<Deferred>>,
}

/// A roctx range between its ENTER (push/start) and EXIT (pop/stop) range callbacks.
struct OpenRange {
    op: i32,
    cid: u64,
    /// The thread that opened it: a start/stop range's EXIT callback and record carry it even
    /// when another thread stops the range, as the real runtime's do.
    tid: u64,
    start: u64,
    message: CString,
    ctxs: Vec<(Arc<Context>, u64)>,
    /// One slot per context; its address is what ENTER and EXIT both receive.
    users: Box<[rocprofiler_user_data_t]>,
}

// SAFETY: the user-data slots are plain 8-byte values owned by the range; the range moves
// between threads only for start/stop ranges, exactly like the real runtime's range map.
unsafe impl Send for OpenRange {}

struct CoState {
    /// LOAD has begun (by one thread) …
    loaded: bool,
    /// … and its callbacks have all been delivered: only then may anyone dispatch its kernels.
    load_done: bool,
    unloaded: bool,
    /// Contexts (and their user data) that saw the LOAD; only they see the UNLOAD.
    contexts: Vec<Arc<Context>>,
    uri: CString,
    agent: u64,
    gpu: u32,
}

/// Code objects and kernel symbols of the running plan; kept for UNLOAD at finalization.
struct CodeObjects {
    cos: Vec<CoState>,
    kernels: Vec<(KernelSymbol, CString)>,
}

static CODE_OBJECTS: Mutex<Option<CodeObjects>> = Mutex::new(None);
/// Signalled when a code object's LOAD callbacks have all been delivered.
static CODE_OBJECT_LOADED: Condvar = Condvar::new();

/// What the replay did, for the ground truth.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ReplaySummary {
    pub personality: String,
    /// The SDK clock (the host's `CLOCK_BOOTTIME`) at simulated time 0.
    pub base_timestamp_ns: u64,
    /// The true instant of simulated time 0 (Unix ns on the machine's wall clock): a record
    /// stamped `t` happened at `base_unix_ns + (t - base_timestamp_ns)`.
    pub base_unix_ns: u64,
    /// The simulated host's clocks as the environment set them (`host_clock`).
    pub host_clock: super::host_clock::HostClockConfig,
    pub threads: Vec<u64>,
    pub hip_calls: u64,
    pub marker_calls: u64,
    pub kernel_dispatches: u64,
    pub memory_copies: u64,
    pub completion_order: Vec<u64>,
}

pub struct Replay {
    plan: Plan,
    base: u64,
    /// True instant of `base` (Unix ns).
    base_unix: u64,
    /// Wall-clock start of the replay, for `[delivery] real_time` pacing.
    wall_start: std::sync::OnceLock<std::time::Instant>,
    cid: Vec<Vec<u64>>,
    /// The personality's operation id of each HIP call (thread, op).
    hip_op: Vec<Vec<i32>>,
    kinds: CallKinds,
    call_key: Vec<Vec<usize>>,
    act_first: Vec<Vec<usize>>,
    acts: Vec<Act>,
    order: Vec<usize>,
    /// HIP-event barriers in completion order (end time, then global call order); their
    /// submissions sit in `enq` after the activities' (index `acts.len() + b`).
    barriers: Vec<BarrierAct>,
    barrier_index: HashMap<(usize, usize), usize>,
    enq: Mutex<Vec<Option<Enq>>>,
    enq_cv: Condvar,
    /// Set once every application thread has finished: activities never submitted (their
    /// HIP call failed inside the simulator) are then skipped instead of waited for.
    apps_done: std::sync::atomic::AtomicBool,
    /// Activity the device thread is blocked on (usize::MAX = none), so submitters only wake
    /// it when it waits for exactly what they submitted.
    device_waits: std::sync::atomic::AtomicUsize,
    /// `DEVICE_IN_STEP`: the application threads wait, before each call, for the device thread
    /// to have completed every activity that ends before the call starts (`None`: they run
    /// freely).
    in_step: Option<InStep>,
    pending: Mutex<HashMap<usize, Pending>>,
    api_last: Mutex<Vec<Deferred>>,
    range_ids: HashMap<u32, u64>,
    /// HIP_STREAM `stream_id` of each live `hipStream_t`, and the next index to hand out: the
    /// SDK numbers streams in creation order and gives a re-created handle a new index.
    stream_index: RwLock<(IntMap<u64, u64>, u64)>,
    streams_announced: RwLock<IntSet<u64>>,
    /// HIP_GRAPH exec id of each `hipGraphExec_t` launched so far.
    graph_exec_ids: Mutex<HashMap<u64, u64>>,
    push_depth: Mutex<HashMap<u64, i32>>,
    /// 1.x MARKER_CORE_RANGE_API: open push/pop ranges per thread, start/stop ranges by key.
    thread_ranges: Mutex<HashMap<u64, Vec<OpenRange>>>,
    process_ranges: Mutex<HashMap<u32, OpenRange>>,
    tids: Mutex<Vec<u64>>,
    /// Per (thread, op): ops of other threads that must have been replayed first (see
    /// `cross_thread_gates`).
    gates: HashMap<(usize, usize), Vec<(usize, usize)>>,
    /// Ops each thread has finished, and the condition gated ops wait on.
    progress: Mutex<Vec<usize>>,
    progress_cv: Condvar,
}

fn stream_of(args: &HipArgs) -> Option<u64> {
    match args {
        HipArgs::Launch { stream, .. }
        | HipArgs::GraphLaunch { stream, .. }
        | HipArgs::EventRecord { stream, .. }
        | HipArgs::StreamWaitEvent { stream, .. }
        | HipArgs::StreamSynchronize { stream } => Some(*stream),
        HipArgs::Memcpy { stream, .. } | HipArgs::Memset { stream, .. } => *stream,
        _ => None,
    }
}

/// What a real program cannot do out of order, even across threads: use a stream before the
/// call that created it returned, or stop a roctx range before `roctxRangeStartA` returned its
/// id. The plan orders these calls (global order); replay threads run freely, so without a gate
/// a thread could reach the use first in wall-clock time and the runtime would announce or
/// number the stream, or miss the range, in an order no real program shows. Each gate names
/// the earlier op of another thread; it always precedes the gated op in global order, so the
/// gates cannot form a cycle.
fn cross_thread_gates(
    plan: &Plan,
    global: &[(u64, usize, usize)],
) -> HashMap<(usize, usize), Vec<(usize, usize)>> {
    let mut created_by: HashMap<u64, (usize, usize)> = HashMap::new();
    let mut started_by: HashMap<u32, (usize, usize)> = HashMap::new();
    let mut gates: HashMap<(usize, usize), Vec<(usize, usize)>> = HashMap::new();
    for &(_, t, j) in global {
        let before = match &plan.threads[t].ops[j].call {
            HostCall::Hip {
                args: HipArgs::StreamCreate { stream, .. },
                ..
            } => {
                created_by.insert(*stream, (t, j));
                None
            }
            HostCall::Hip { args, .. } => stream_of(args).and_then(|s| created_by.get(&s)),
            HostCall::Marker(MarkerOp::Start { key, .. }) => {
                started_by.insert(*key, (t, j));
                None
            }
            HostCall::Marker(MarkerOp::Stop { key }) => started_by.get(key),
            _ => None,
        };
        if let Some(&(u, k)) = before.filter(|&&(u, _)| u != t) {
            gates.entry((t, j)).or_default().push((u, k));
        }
    }
    gates
}

/// Size of a kernel-dispatch buffer record with `pipe_id` (reference "newer" §3.2).
const DISPATCH_RECORD_WITH_PIPE_ID: usize = 192;

/// The kernel-dispatch callback payload as the newest SDK lays it out: the 152-byte payload of
/// earlier releases, then `int32_t pipe_id` at 152, padded to 160 (reference "newer" §3.2).
/// `size` says which layout a tool got; earlier personalities give 152 and no pipe.
#[repr(C)]
#[derive(Clone, Copy)]
struct KernelPayload {
    data: rocprofiler_callback_tracing_kernel_dispatch_data_t,
    pipe_id: i32,
    _pad: u32,
}
const _: () = assert!(std::mem::size_of::<KernelPayload>() == 160);
const _: () = assert!(std::mem::offset_of!(KernelPayload, pipe_id) == 152);

/// Where a HIP call sits in the replay: its plan position (thread, op), correlation id,
/// global call order, the index of its first activity, its span (sim-time ns since the
/// replay's start) and the barrier packet it enqueues.
struct CallSite<'a> {
    at: (usize, usize),
    cid: u64,
    /// The API's operation id in the running personality.
    op: i32,
    key: usize,
    act_first: usize,
    span_ns: (u64, u64),
    barrier: Option<&'a Barrier>,
}

fn queue_handle(gpu: u32, queue: u32) -> u64 {
    0x7f3a_0000_0000 + gpu as u64 * 0x10_0000 + queue as u64 * 0x1000
}

impl Replay {
    pub fn new(plan: Plan) -> Result<Replay, String> {
        let p = state::personality();
        // Validate what the runtime must be able to express.
        for (t, th) in plan.threads.iter().enumerate() {
            for (j, op) in th.ops.iter().enumerate() {
                match &op.call {
                    HostCall::Hip {
                        api, activities, ..
                    } => {
                        if p.hip_op(api).is_none() {
                            return Err(format!(
                                "thread {t} op {j}: HIP API `{api}` is not modelled by SDK {p}"
                            ));
                        }
                        for a in activities {
                            if let Activity::Kernel { kernel, gpu, .. } = a {
                                if *kernel as usize >= plan.kernels.len()
                                    || *gpu as usize >= plan.gpus.len()
                                {
                                    return Err(format!(
                                        "thread {t} op {j}: kernel/gpu index out of range"
                                    ));
                                }
                            }
                        }
                    }
                    HostCall::CodeObjectLoad(i) if *i as usize >= plan.code_objects.len() => {
                        return Err(format!("thread {t} op {j}: no code object {i}"));
                    }
                    _ => {}
                }
            }
        }
        // Global op order: (start, thread, index).
        let mut global: Vec<(u64, usize, usize)> = Vec::new();
        for (t, th) in plan.threads.iter().enumerate() {
            for (j, op) in th.ops.iter().enumerate() {
                global.push((op.start_ns, t, j));
            }
        }
        global.sort_unstable();
        let mut cid: Vec<Vec<u64>> = plan.threads.iter().map(|t| vec![0; t.ops.len()]).collect();
        let mut hip_op: Vec<Vec<i32>> =
            plan.threads.iter().map(|t| vec![-1; t.ops.len()]).collect();
        let mut call_key: Vec<Vec<usize>> =
            plan.threads.iter().map(|t| vec![0; t.ops.len()]).collect();
        let mut act_first: Vec<Vec<usize>> =
            plan.threads.iter().map(|t| vec![0; t.ops.len()]).collect();
        let mut acts = Vec::new();
        let mut range_ids = HashMap::new();
        let (mut next_cid, mut next_dispatch, mut next_range) = (1u64, 1u64, 1u64);
        for (key, &(_, t, j)) in global.iter().enumerate() {
            call_key[t][j] = key;
            let op = &plan.threads[t].ops[j];
            match &op.call {
                HostCall::Hip {
                    api,
                    activities,
                    args,
                } => {
                    cid[t][j] = next_cid;
                    next_cid += 1;
                    hip_op[t][j] = p.hip_op(api).unwrap_or(-1);
                    act_first[t][j] = acts.len();
                    let addrs = match args {
                        HipArgs::Memcpy { dst, src, .. } => (*dst, *src),
                        _ => (0, 0),
                    };
                    for (idx, a) in activities.iter().enumerate() {
                        let dispatch_id = if matches!(a, Activity::Kernel { .. }) {
                            next_dispatch += 1;
                            next_dispatch - 1
                        } else {
                            0
                        };
                        acts.push(Act {
                            thread: t,
                            op: j,
                            idx,
                            call_key: key,
                            cid: cid[t][j],
                            dispatch_id,
                            addrs,
                        });
                    }
                }
                HostCall::Marker(m) => {
                    cid[t][j] = next_cid;
                    next_cid += 1;
                    if let MarkerOp::Start { key, .. } = m {
                        range_ids.insert(*key, next_range);
                        next_range += 1;
                    }
                }
                _ => {}
            }
        }
        // Completion order: by end time, then shuffled within windows (seeded).
        let activity = |a: &Act| -> &Activity {
            match &plan.threads[a.thread].ops[a.op].call {
                HostCall::Hip { activities, .. } => &activities[a.idx],
                _ => unreachable!("activities only come from HIP calls"),
            }
        };
        let span = |a: &Activity| match a {
            Activity::Kernel {
                start_ns, end_ns, ..
            }
            | Activity::Copy {
                start_ns, end_ns, ..
            } => (*end_ns, *start_ns),
        };
        let mut order: Vec<usize> = (0..acts.len()).collect();
        order.sort_by_key(|&g| (span(activity(&acts[g])), g));
        let w = plan.delivery.shuffle_window;
        if w > 1 {
            let mut rng = crate::prng::SplitMix64::new(plan.delivery.seed);
            for chunk in order.chunks_mut(w) {
                for i in (1..chunk.len()).rev() {
                    let k = rng.below(i + 1);
                    chunk.swap(i, k);
                }
            }
        }
        let in_step = std::env::var_os(super::DEVICE_IN_STEP)
            .filter(|v| v == "1")
            .map(|_| InStep::new(order.iter().map(|&g| span(activity(&acts[g])).0)));
        // HIP-event barriers complete in end-time order (ties: global call order).
        let mut barriers: Vec<(u64, usize, BarrierAct)> = Vec::new();
        if hip_event::kinds().is_some() {
            for (key, &(_, t, j)) in global.iter().enumerate() {
                if let Some(b) = &plan.threads[t].ops[j].barrier {
                    let cid = cid[t][j];
                    barriers.push((
                        b.end_ns,
                        key,
                        BarrierAct {
                            thread: t,
                            op: j,
                            cid,
                        },
                    ));
                }
            }
        }
        barriers.sort_by_key(|(end, key, _)| (*end, *key));
        let barriers: Vec<BarrierAct> = barriers.into_iter().map(|(_, _, b)| b).collect();
        let barrier_index = barriers
            .iter()
            .enumerate()
            .map(|(i, b)| ((b.thread, b.op), i))
            .collect();
        let gates = cross_thread_gates(&plan, &global);
        let n = acts.len() + barriers.len();
        let (base, base_unix) = super::host_clock::replay_base();
        Ok(Replay {
            base,
            base_unix,
            wall_start: std::sync::OnceLock::new(),
            cid,
            hip_op,
            kinds: CallKinds::of(p),
            call_key,
            act_first,
            acts,
            order,
            barriers,
            barrier_index,
            enq: Mutex::new((0..n).map(|_| None).collect()),
            enq_cv: Condvar::new(),
            apps_done: std::sync::atomic::AtomicBool::new(false),
            device_waits: std::sync::atomic::AtomicUsize::new(usize::MAX),
            in_step,
            pending: Mutex::new(HashMap::new()),
            api_last: Mutex::new(Vec::new()),
            range_ids,
            stream_index: RwLock::new((IntMap::default(), 1)),
            streams_announced: RwLock::new(IntSet::default()),
            graph_exec_ids: Mutex::new(HashMap::new()),
            push_depth: Mutex::new(HashMap::new()),
            thread_ranges: Mutex::new(HashMap::new()),
            process_ranges: Mutex::new(HashMap::new()),
            tids: Mutex::new(vec![0; plan.threads.len()]),
            gates,
            progress: Mutex::new(vec![0; plan.threads.len()]),
            progress_cv: Condvar::new(),
            plan,
        })
    }

    fn activity(&self, g: usize) -> &Activity {
        let a = &self.acts[g];
        match &self.plan.threads[a.thread].ops[a.op].call {
            HostCall::Hip { activities, .. } => &activities[a.idx],
            _ => unreachable!("activities only come from HIP calls"),
        }
    }

    /// Runs the whole plan; thread 0 runs on the calling thread (the process main thread
    /// when driven by `rocprof-sim`), the others on fresh threads.
    pub fn run(self: &Arc<Self>) -> ReplaySummary {
        install_code_objects(&self.plan);
        super::device_counting::set_timeline(self.kernel_timeline());
        state::set_main_external_timeline(self.main_external_timeline());
        super::host_clock::wait_for_start();
        super::cli::attach_before_the_clock();
        let started = *self.wall_start.get_or_init(std::time::Instant::now);
        let _ = REPLAY_STARTED.set(started);
        let device = {
            let me = Arc::clone(self);
            std::thread::Builder::new()
                .name("rocprof-sim-dev".into())
                .spawn(move || me.device_thread())
                .ok()
        };
        let mut handles = Vec::new();
        for t in 1..self.plan.threads.len() {
            let me = Arc::clone(self);
            let name = format!("sim-app-{t}");
            handles.push(
                std::thread::Builder::new()
                    .name(name)
                    .spawn(move || me.run_thread(t)),
            );
        }
        if !self.plan.threads.is_empty() {
            self.run_thread(0);
        }
        for h in handles.into_iter().flatten() {
            let _ = h.join();
        }
        {
            let _q = lock(&self.enq);
            self.apps_done
                .store(true, std::sync::atomic::Ordering::Release);
        }
        self.enq_cv.notify_all();
        if let Some(d) = device {
            let _ = d.join();
        }
        let late: Vec<Deferred> = std::mem::take(&mut *lock(&self.api_last));
        for d in late {
            emit::emplace(&d.buffer, d.kind, &d.bytes);
        }
        let end = self.plan_end_ns();
        state::end_replay_clock(self.base + end);
        self.summary()
    }

    /// The top of thread 0's external-id stack over simulated time: what threads with an empty
    /// stack inherit (thread 0 replays on the process's main thread).
    fn main_external_timeline(&self) -> Vec<(u64, u64)> {
        let mut stack: Vec<u64> = Vec::new();
        let mut tl = Vec::new();
        for op in self.plan.threads.first().map_or(&[][..], |t| &t.ops[..]) {
            match op.call {
                HostCall::ExternalPush(v) => stack.push(v),
                HostCall::ExternalPop => {
                    stack.pop();
                }
                _ => continue,
            }
            tl.push((self.base + op.start_ns, stack.last().copied().unwrap_or(0)));
        }
        tl
    }

    fn plan_end_ns(&self) -> u64 {
        let mut end = 0;
        for th in &self.plan.threads {
            for op in &th.ops {
                end = end.max(op.end_ns);
                if let HostCall::Hip { activities, .. } = &op.call {
                    for a in activities {
                        let (e, _) = match a {
                            Activity::Kernel {
                                start_ns, end_ns, ..
                            }
                            | Activity::Copy {
                                start_ns, end_ns, ..
                            } => (*end_ns, *start_ns),
                        };
                        end = end.max(e);
                    }
                }
            }
        }
        end
    }

    fn summary(&self) -> ReplaySummary {
        let mut s = ReplaySummary {
            personality: state::personality().to_string(),
            base_timestamp_ns: self.base,
            base_unix_ns: self.base_unix,
            host_clock: super::host_clock::config(),
            threads: lock(&self.tids).clone(),
            ..Default::default()
        };
        for th in &self.plan.threads {
            for op in &th.ops {
                match &op.call {
                    HostCall::Hip { .. } => s.hip_calls += 1,
                    HostCall::Marker(_) => s.marker_calls += 1,
                    _ => {}
                }
            }
        }
        for g in 0..self.acts.len() {
            match self.activity(g) {
                Activity::Kernel { .. } => s.kernel_dispatches += 1,
                Activity::Copy { .. } => s.memory_copies += 1,
            }
        }
        s.completion_order = self
            .order
            .iter()
            .map(|&g| self.acts[g].call_key as u64)
            .collect();
        s
    }

    fn run_thread(&self, t: usize) {
        let tid = state::gettid();
        lock(&self.tids)[t] = tid;
        // Code objects this thread loads implicitly (no explicit load op) come first.
        let explicit: HashSet<u32> = self.plan.threads[t]
            .ops
            .iter()
            .filter_map(|o| match o.call {
                HostCall::CodeObjectLoad(i) => Some(i),
                _ => None,
            })
            .collect();
        let implicit: Vec<u32> = self
            .plan
            .code_objects
            .iter()
            .enumerate()
            .filter(|(i, c)| c.load_thread as usize == t && !explicit.contains(&(*i as u32)))
            .map(|(i, _)| i as u32)
            .collect();
        let delay = self.plan.threads[t].real_delay_ms;
        if delay > 0 {
            std::thread::sleep(std::time::Duration::from_millis(delay));
        }
        let first_start = self.plan.threads[t].ops.first().map_or(0, |o| o.start_ns);
        set_sim_now(self.base + first_start);
        for co in implicit {
            load_code_object(co, tid);
        }
        let pace = self.plan.delivery.real_time;
        let ops = &self.plan.threads[t].ops;
        let hold_at = hold_file().map(|_| ops.len() / 2);
        for (j, op) in ops.iter().enumerate() {
            if hold_at == Some(j) {
                wait_for_hold_file();
            }
            if end_requested() {
                // The calls left are never made: whatever waits on them goes on.
                lock(&self.progress)[t] = ops.len();
                self.progress_cv.notify_all();
                break;
            }
            if pace > 0.0 {
                self.wait_for_wall_time(op.start_ns, pace);
            }
            self.wait_for_gates(t, j);
            if let Some(step) = &self.in_step {
                step.wait_for_device(op.start_ns, &self.device_waits);
            }
            self.unload_due(t, Some(op.start_ns), tid);
            set_sim_now(self.base + op.start_ns);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &op.call {
                HostCall::Hip {
                    api,
                    args,
                    activities,
                } => {
                    let site = CallSite {
                        at: (t, j),
                        cid: self.cid[t][j],
                        op: self.hip_op[t][j],
                        key: self.call_key[t][j],
                        act_first: self.act_first[t][j],
                        span_ns: (op.start_ns, op.end_ns),
                        barrier: op.barrier.as_ref(),
                    };
                    self.hip_call(&site, tid, api, args, activities)
                }
                HostCall::Marker(m) => self.marker_call(t, j, tid, op, m),
                HostCall::ExternalPush(v) => {
                    for ctx in state::all_contexts() {
                        ctx.push_external(tid, *v);
                    }
                }
                HostCall::ExternalPop => {
                    for ctx in state::all_contexts() {
                        ctx.pop_external(tid);
                    }
                }
                HostCall::CodeObjectLoad(i) => load_code_object(*i, tid),
            }));
            if r.is_err() {
                eprintln!("rocprof-sim: internal panic replaying thread {t} op {j} (skipped)");
            }
            set_sim_now(self.base + op.end_ns);
            lock(&self.progress)[t] = j + 1;
            self.progress_cv.notify_all();
        }
        self.unload_due(t, None, tid);
        state::clear_sim_now();
    }

    /// Blocks until every op that op `j` of thread `t` depends on has been replayed.
    /// `[delivery] real_time`: sleeps until `pace` × the op's simulated offset has passed since
    /// the replay's wall-clock start.
    fn wait_for_wall_time(&self, start_ns: u64, pace: f64) {
        let base = *self.wall_start.get_or_init(std::time::Instant::now);
        let target = base + std::time::Duration::from_nanos((start_ns as f64 * pace) as u64);
        if end_file_set() {
            // Ended early (`END_FILE`) in the middle of a long wait too.
            while !end_requested() {
                let now = std::time::Instant::now();
                if target <= now {
                    break;
                }
                std::thread::sleep((target - now).min(std::time::Duration::from_millis(10)));
            }
            return;
        }
        let now = std::time::Instant::now();
        if target > now {
            std::thread::sleep(target - now);
        }
    }

    fn wait_for_gates(&self, t: usize, j: usize) {
        let Some(deps) = self.gates.get(&(t, j)) else {
            return;
        };
        let mut done = lock(&self.progress);
        while deps.iter().any(|&(u, k)| done[u] <= k) {
            done = self
                .progress_cv
                .wait(done)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Unloads code objects loaded by thread `t` whose unload time has come (`None` = end of
    /// the thread: every scheduled unload).
    fn unload_due(&self, t: usize, before: Option<u64>, tid: u64) {
        let due: Vec<u32> = self
            .plan
            .code_objects
            .iter()
            .enumerate()
            .filter(|(_, c)| c.load_thread as usize == t)
            .filter(|(_, c)| match (c.unload_at_ns, before) {
                (Some(u), Some(b)) => u <= b,
                (Some(_), None) => true,
                (None, _) => false,
            })
            .map(|(i, _)| i as u32)
            .collect();
        for co in due {
            unload_code_object(co, tid);
        }
    }

    fn stream_id(&self, handle: u64) -> u64 {
        if handle == 0 {
            return 0;
        }
        if let Some(&id) = read(&self.stream_index).0.get(&handle) {
            return id;
        }
        let mut guard = write(&self.stream_index);
        let (ids, next) = &mut *guard;
        *ids.entry(handle).or_insert_with(|| {
            *next += 1;
            *next - 1
        })
    }

    /// After `hipStreamDestroy`: the handle's index is retired and a later stream with the same
    /// `hipStream_t` value is created (announced) anew.
    fn retire_stream(&self, handle: u64) {
        write(&self.stream_index).0.remove(&handle);
        write(&self.streams_announced).remove(&handle);
    }

    /// HIP_STREAM callbacks (1.x only).
    fn stream_cb(
        &self,
        ctxs: &[(Arc<Context>, Arc<state::Services>)],
        tid: u64,
        op: i32,
        phase: u32,
        stream: u64,
    ) {
        let Some(kind) = self.kinds.hip_stream else {
            return;
        };
        let mut data = stream_payload(self.stream_id(stream), stream);
        callback_each(ctxs, tid, Corr::default(), kind, op, phase, &mut data);
    }

    /// The HIP_GRAPH exec id of `graph_exec`. Exec ids are process-monotonic, one per
    /// instantiation: the simulator instantiates each graph just before its first launch.
    fn graph_exec_id(&self, graph_exec: u64) -> u64 {
        let mut ids = lock(&self.graph_exec_ids);
        let next = ids.len() as u64 + 1;
        *ids.entry(graph_exec).or_insert(next)
    }

    /// HIP_GRAPH EXEC_LAUNCH in `phase` for a launch of `graph_exec` with exec id `exec_id`
    /// (where the release has the kind).
    fn graph_cb(
        &self,
        ctxs: &[(Arc<Context>, Arc<state::Services>)],
        tid: u64,
        cid: u64,
        phase: u32,
        (exec_id, graph_exec): (u64, u64),
    ) {
        let Some(kind) = self.kinds.hip_graph else {
            return;
        };
        let mut data = rocprofiler_callback_tracing_hip_graph_data_t {
            size: std::mem::size_of::<rocprofiler_callback_tracing_hip_graph_data_t>() as u64,
            graph_exec_id: rocprofiler_graph_exec_id_t { handle: exec_id },
            graph_exec_value: rocprofiler_address_t { handle: graph_exec },
        };
        let op = ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH as i32;
        callback_each(ctxs, tid, Corr::new(cid, 0), kind, op, phase, &mut data);
    }

    fn announce_stream(
        &self,
        ctxs: &[(Arc<Context>, Arc<state::Services>)],
        tid: u64,
        stream: u64,
    ) {
        if stream == 0 || !self.kinds.v1 || read(&self.streams_announced).contains(&stream) {
            return;
        }
        if write(&self.streams_announced).insert(stream) {
            self.stream_cb(ctxs, tid, 1, ROCPROFILER_CALLBACK_PHASE_NONE, stream);
        }
    }

    fn hip_call(
        &self,
        site: &CallSite,
        tid: u64,
        api: &str,
        args: &HipArgs,
        activities: &[Activity],
    ) {
        let (op_id, cid, key) = (site.op, site.cid, site.key);
        let active = state::REGISTRY.active();
        let ctxs: &[(Arc<Context>, Arc<state::Services>)] = &active;
        let v1 = self.kinds.v1;
        let api_kind = ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
        let ext_kind = self.kinds.hip_api_ext;
        // The stream the HIP_STREAM callbacks name: only a function with a `hipStream_t`
        // parameter has the runtime's stream wrapper (`hipargs::takes_stream`).
        let stream = stream_of(args).filter(|_| hipargs::takes_stream(api));
        let (start, end) = (self.base + site.span_ns.0, self.base + site.span_ns.1);

        // Each context's services for this call, looked up once (the snapshot's services do
        // not change while it is current).
        let stream_kind = self.kinds.hip_stream.filter(|_| v1 && stream.is_some());
        let resolved = PerCall::from_fn(ctxs.len(), HipServices::default(), |i| {
            let (ctx, svc) = &ctxs[i];
            HipServices {
                api_cb: emit::callback_for(
                    svc,
                    ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                    op_id,
                ),
                stream_cb: stream_kind.and_then(|k| emit::callback_for(svc, k, 3)),
                api_buf: emit::buffer_for(ctx, svc, api_kind, op_id),
                ext_buf: ext_kind.and_then(|k| emit::buffer_for(ctx, svc, k, op_id)),
                external: emit::traces(
                    svc,
                    Some(api_kind),
                    Some(ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API),
                ) || ext_kind.is_some_and(|k| svc.buffer.contains_key(&k)),
            }
        });
        let resolved: &[HipServices] = &resolved;
        // The stream's id, assigned on the first HIP_STREAM payload that names it.
        let stream_id = stream_kind.and(stream).map(|s| self.stream_id(s));
        let stream_brackets = |phase: u32| {
            let (Some(kind), Some(s), Some(id)) = (stream_kind, stream, stream_id) else {
                return;
            };
            let mut data = stream_payload(id, s);
            for (i, (ctx, _)) in ctxs.iter().enumerate() {
                if let Some(cb) = resolved[i].stream_cb {
                    let mut ud = rocprofiler_user_data_t { value: 0 };
                    emit::invoke(
                        ctx.handle,
                        cb,
                        tid,
                        Corr::default(),
                        kind,
                        3,
                        phase,
                        &mut data as *mut _ as *mut c_void,
                        &mut ud,
                    );
                }
            }
        };
        if let (true, Some(s)) = (v1, stream) {
            self.announce_stream(ctxs, tid, s);
        }
        stream_brackets(ROCPROFILER_CALLBACK_PHASE_ENTER);
        let mut externals = PerCall::from_fn(ctxs.len(), 0, |i| {
            let (ctx, svc) = &ctxs[i];
            if resolved[i].external {
                emit::external_id_of_kind(ctx, svc, tid, self.kinds.hip_request, op_id, cid)
            } else {
                0
            }
        });
        let externals: &mut [u64] = &mut externals;
        // Out-pointer target of hipStreamCreate's `hipStream_t*` and hipMalloc's `void**`
        // (written before EXIT): a slot of this call, alive until it returns.
        let mut out_slot = 0u64;
        let out_ptr: *mut u64 = &mut out_slot;
        let mut data = rocprofiler_callback_tracing_hip_api_data_t {
            size: std::mem::size_of::<rocprofiler_callback_tracing_hip_api_data_t>() as u64,
            args: hipargs::write_args(api, args, out_ptr as u64),
            retval: zeroed(),
        };
        let mut users = PerCall::from_fn(ctxs.len(), rocprofiler_user_data_t { value: 0 }, |_| {
            rocprofiler_user_data_t { value: 0 }
        });
        let users: &mut [rocprofiler_user_data_t] = &mut users;
        // ENTER and EXIT reach every context with the same payload and its own user_data slot.
        let api_callbacks = |phase: u32,
                             data: &mut rocprofiler_callback_tracing_hip_api_data_t,
                             users: &mut [rocprofiler_user_data_t],
                             externals: &[u64]| {
            for (i, (ctx, _)) in ctxs.iter().enumerate() {
                if let Some(cb) = resolved[i].api_cb {
                    emit::invoke(
                        ctx.handle,
                        cb,
                        tid,
                        Corr::new(cid, externals[i]),
                        ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                        op_id,
                        phase,
                        data as *mut _ as *mut c_void,
                        &mut users[i],
                    );
                }
            }
        };
        set_sim_now(start);
        let depths = PerCall::from_fn(ctxs.len(), 0, |i| ctxs[i].0.external_depth(tid));
        api_callbacks(
            ROCPROFILER_CALLBACK_PHASE_ENTER,
            &mut data,
            users,
            externals,
        );
        // An id the tool pushed during ENTER is this call's external id from then on: the
        // async work it starts, its EXIT callback and its record (reference §2.10).
        for (i, (ctx, _)) in ctxs.iter().enumerate() {
            if ctx.external_depth(tid) > depths[i] {
                externals[i] = ctx.external_top(tid);
            }
        }
        let activities_first = self.plan.delivery.api_order == ApiOrder::ActivitiesFirst;
        if activities_first && !activities.is_empty() {
            lock(&self.pending).insert(
                key,
                Pending {
                    remaining: activities.len(),
                    deferred: None,
                },
            );
        }
        // SDK 1.3.0+: HIP_GRAPH EXEC_LAUNCH brackets the launch's dispatches (reference
        // "newer" §4), whose external-correlation requests come in node order in between.
        let graph = match args {
            HipArgs::GraphLaunch { graph_exec, .. } => {
                Some((self.graph_exec_id(*graph_exec), *graph_exec))
            }
            _ => None,
        };
        if let Some(h) = graph {
            self.graph_cb(ctxs, tid, cid, ROCPROFILER_CALLBACK_PHASE_ENTER, h);
        }
        for (k, a) in activities.iter().enumerate() {
            let g = site.act_first + k;
            let per_ctx = self.enqueue_activity(ctxs, tid, g, a);
            let counting = match a {
                Activity::Kernel { .. } => super::counting::on_enqueue(ctxs, self.counting_data(g)),
                _ => Vec::new(),
            };
            self.submit(
                g,
                Enq {
                    tid,
                    per_ctx,
                    counting,
                },
            );
        }
        if let Some(h) = graph {
            self.graph_cb(ctxs, tid, cid, ROCPROFILER_CALLBACK_PHASE_EXIT, h);
        }
        if let Some(b) = site.barrier {
            self.enqueue_barrier(ctxs, tid, site.at, cid, externals, b);
        }
        if let (true, HipArgs::StreamCreate { stream: s, .. }) = (v1, args) {
            self.announce_stream(ctxs, tid, *s);
        }
        if let (true, HipArgs::StreamDestroy { stream: s }) = (v1, args) {
            self.stream_cb(ctxs, tid, 2, ROCPROFILER_CALLBACK_PHASE_NONE, *s);
            self.retire_stream(*s);
        }
        // Paced replay: a call takes its simulated time in wall-clock time too (a
        // `hipDeviceSynchronize` blocks until the work it waits on is done), so a window can
        // close while a call is under way, as it does in a real program.
        let pace = self.plan.delivery.real_time;
        if pace > 0.0 {
            self.wait_for_wall_time(site.span_ns.1, pace);
        }
        set_sim_now(end);
        if let HipArgs::Malloc { ptr, .. } | HipArgs::StreamCreate { stream: ptr, .. } = args {
            // The call's result, written through its out-pointer before EXIT (volatile: the
            // tool reads it through the address in the args union).
            // SAFETY: out_ptr points at out_slot, a local of this call alive until it returns.
            unsafe { std::ptr::write_volatile(out_ptr, *ptr) };
        }
        api_callbacks(ROCPROFILER_CALLBACK_PHASE_EXIT, &mut data, users, externals);
        // The API records, per context in context order: emplaced now (natural order), or
        // held for the order the plan asks for.
        let order = self.plan.delivery.api_order;
        let mut held = Vec::new();
        let mut record = |buffer: &Arc<Buffer>, kind: u32, rec: emit::ApiRecord| {
            if order == ApiOrder::Natural {
                emit::emplace(buffer, kind, rec.bytes());
            } else {
                held.push(Deferred {
                    buffer: Arc::clone(buffer),
                    kind,
                    bytes: rec.bytes().to_vec(),
                });
            }
        };
        // A call no context buffers a record of, whose callbacks reached a tool recording
        // records (one of its contexts of this call has a buffer-tracing service).
        let buffered = resolved
            .iter()
            .any(|r| r.api_buf.is_some() || r.ext_buf.is_some());
        let recording = |client: Option<usize>| {
            ctxs.iter()
                .any(|(c, svc)| c.client == client && !svc.buffer.is_empty())
        };
        if !buffered
            && ctxs
                .iter()
                .zip(resolved.iter())
                .any(|((c, _), r)| r.api_cb.is_some() && recording(c.client))
        {
            emit::count_callback_only_call();
        }
        for (i, r) in resolved.iter().enumerate() {
            let corr = Corr::new(cid, externals[i]);
            if let Some(buf) = r.api_buf {
                record(
                    buf,
                    api_kind,
                    emit::api_record(api_kind, op_id, corr, start, end, tid),
                );
            }
            if let (Some(k), Some(buf)) = (ext_kind, r.ext_buf) {
                let rec =
                    emit::api_ext_record(k, op_id, corr, start, end, tid, data.args, zeroed());
                record(buf, k, rec);
            }
        }
        match order {
            ApiOrder::Natural => {}
            ApiOrder::ApiLast => lock(&self.api_last).extend(held),
            ApiOrder::ActivitiesFirst => {
                let now = {
                    let mut pend = lock(&self.pending);
                    match pend.get_mut(&key) {
                        Some(pe) if pe.remaining > 0 => {
                            pe.deferred = Some(held);
                            None
                        }
                        _ => {
                            pend.remove(&key);
                            Some(held)
                        }
                    }
                };
                if let Some(recs) = now {
                    emit_all(recs);
                }
            }
        }
        stream_brackets(ROCPROFILER_CALLBACK_PHASE_EXIT);
    }

    /// Submission side of one activity: external-id requests and the ENQUEUE / copy ENTER
    /// callbacks on the application thread, per context that traces the activity's kind (a
    /// kernel gets ENQUEUE ENTER+EXIT, a copy ENTER); returns what its completion needs per
    /// context (external id, `user_data` value).
    fn enqueue_activity(
        &self,
        ctxs: &[(Arc<Context>, Arc<state::Services>)],
        tid: u64,
        g: usize,
        a: &Activity,
    ) -> Vec<PerCtx> {
        let act = &self.acts[g];
        let mut kernel_data;
        let mut copy_data;
        let (buffer_kind, callback_kind, kind_name, op, phases, payload): (
            u32,
            u32,
            &str,
            i32,
            &[u32],
            *mut c_void,
        ) = match a {
            Activity::Kernel { kernel, .. } => {
                // Like HIP's lazy module loading: a launch whose code object is not loaded yet
                // loads it first, on the launching thread, so LOAD always precedes dispatches.
                if let Some(sym) = self.plan.kernels.get(*kernel as usize) {
                    load_code_object(sym.code_object, tid);
                }
                kernel_data = self.kernel_payload(g, false);
                (
                    ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                    ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                    "KERNEL_DISPATCH",
                    KERNEL_DISPATCH_ENQUEUE,
                    &[
                        ROCPROFILER_CALLBACK_PHASE_ENTER,
                        ROCPROFILER_CALLBACK_PHASE_EXIT,
                    ],
                    &mut kernel_data as *mut _ as *mut c_void,
                )
            }
            Activity::Copy { direction, .. } => {
                copy_data = self.copy_payload(g, false);
                (
                    ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
                    ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
                    "MEMORY_COPY",
                    copy_op(*direction),
                    &[ROCPROFILER_CALLBACK_PHASE_ENTER],
                    copy_data.ptr(),
                )
            }
        };
        let mut out = Vec::new();
        for (ctx, svc) in ctxs {
            if !emit::traces(svc, Some(buffer_kind), Some(callback_kind)) {
                continue;
            }
            let external = emit::external_id(ctx, svc, tid, kind_name, op, act.cid);
            let mut ud = rocprofiler_user_data_t { value: 0 };
            for &phase in phases {
                emit::callback(
                    ctx.handle,
                    svc,
                    tid,
                    Corr::new(act.cid, external),
                    callback_kind,
                    op,
                    phase,
                    payload,
                    &mut ud,
                );
            }
            // SAFETY: plain 8-byte union.
            let user = unsafe { ud.value };
            out.push(PerCtx {
                ctx: Arc::clone(ctx),
                external,
                user,
            });
        }
        out
    }

    /// Publishes a submission for the device thread (activity or barrier slot `g`).
    fn submit(&self, g: usize, e: Enq) {
        let wake = {
            let mut q = lock(&self.enq);
            q[g] = Some(e);
            self.device_waits.load(std::sync::atomic::Ordering::Acquire) == g
        };
        if wake {
            self.enq_cv.notify_all();
        }
    }

    /// Waits until slot `g` was submitted; `None` once every application thread ended
    /// without submitting it.
    fn submitted(&self, g: usize) -> Option<Enq> {
        let mut q = lock(&self.enq);
        loop {
            if let Some(e) = q[g].take() {
                return Some(e);
            }
            if self.apps_done.load(std::sync::atomic::Ordering::Acquire) {
                return None;
            }
            // Published under the same lock the submitters take, so no wake-up is lost.
            self.device_waits
                .store(g, std::sync::atomic::Ordering::Release);
            q = self.enq_cv.wait(q).unwrap_or_else(|e| e.into_inner());
            self.device_waits
                .store(usize::MAX, std::sync::atomic::Ordering::Release);
        }
    }

    /// The barrier packet of a hipEventRecord / hipStreamWaitEvent: ENTER/EXIT (zero
    /// timestamps) per context tracing HIP events, then queued for its completion.
    fn enqueue_barrier(
        &self,
        ctxs: &[(Arc<Context>, Arc<state::Services>)],
        tid: u64,
        call: (usize, usize),
        cid: u64,
        externals: &[u64],
        b: &Barrier,
    ) {
        let (Some(k), Some(&bi)) = (hip_event::kinds(), self.barrier_index.get(&call)) else {
            return;
        };
        let op = hip_event::operation(b);
        let mut per_ctx = Vec::new();
        for (i, (ctx, svc)) in ctxs.iter().enumerate() {
            if !hip_event::traced(k, svc) {
                continue;
            }
            let corr = Corr::new(cid, externals[i]);
            let data = hip_event::payload(b, queue_handle, None);
            let user = hip_event::enqueue_callbacks(k, ctx, svc, tid, corr, op, data);
            per_ctx.push(PerCtx {
                ctx: Arc::clone(ctx),
                external: externals[i],
                user,
            });
        }
        self.submit(
            self.acts.len() + bi,
            Enq {
                tid,
                per_ctx,
                counting: Vec::new(),
            },
        );
    }

    /// Barrier `bi` completed on the GPU: PHASE_NONE callbacks and buffer records.
    fn complete_barrier(&self, bi: usize) {
        let Some(k) = hip_event::kinds() else { return };
        let ba = &self.barriers[bi];
        let Some(b) = self.plan.threads[ba.thread].ops[ba.op].barrier else {
            return;
        };
        let Some(enq) = self.submitted(self.acts.len() + bi) else {
            eprintln!("rocprof-sim: barrier {bi} was never submitted (skipped)");
            return;
        };
        let times = (self.base + b.start_ns, self.base + b.end_ns);
        set_sim_now(times.1);
        let op = hip_event::operation(&b);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for pc in enq.per_ctx.iter().filter(|pc| pc.ctx.is_active()) {
                let svc = pc.ctx.services();
                let corr = Corr::new(ba.cid, pc.external);
                let data = hip_event::payload(&b, queue_handle, Some(times));
                hip_event::complete(k, &pc.ctx, &svc, enq.tid, corr, pc.user, op, data);
            }
        }));
        if r.is_err() {
            eprintln!("rocprof-sim: internal panic emitting a barrier completion (skipped)");
        }
    }

    fn barrier_end(&self, bi: usize) -> u64 {
        let ba = &self.barriers[bi];
        self.plan.threads[ba.thread].ops[ba.op]
            .barrier
            .map_or(0, |b| self.base + b.end_ns)
    }

    /// The HSA queue index of kernel activity `g`.
    fn queue_of(&self, g: usize) -> u32 {
        match self.activity(g) {
            Activity::Kernel { queue, .. } => *queue,
            _ => 0,
        }
    }

    fn dispatch_info(&self, g: usize) -> rocprofiler_kernel_dispatch_info_t {
        let Activity::Kernel {
            gpu,
            queue,
            kernel,
            grid_items,
            block,
            group_segment_size,
            private_segment_size,
            ..
        } = self.activity(g)
        else {
            unreachable!("dispatch_info of a kernel activity")
        };
        rocprofiler_kernel_dispatch_info_t {
            // The SDK reports the used prefix (up to reserved_padding), not sizeof.
            size: 72,
            agent_id: rocprofiler_agent_id_t {
                handle: agent_handle(*gpu as usize + 1),
            },
            queue_id: rocprofiler_queue_id_t {
                handle: queue_handle(*gpu, *queue),
            },
            kernel_id: *kernel as u64 + 1,
            dispatch_id: self.acts[g].dispatch_id,
            private_segment_size: *private_segment_size,
            group_segment_size: *group_segment_size,
            workgroup_size: rocprofiler_dim3_t {
                x: block[0],
                y: block[1],
                z: block[2],
            },
            grid_size: rocprofiler_dim3_t {
                x: grid_items[0],
                y: grid_items[1],
                z: grid_items[2],
            },
            reserved_padding: [0; 56],
        }
    }

    /// The dispatch counting service's view of kernel activity `g`.
    fn counting_data(&self, g: usize) -> rocprofiler_dispatch_counting_service_data_t {
        let (s, e) = self.times(g);
        rocprofiler_dispatch_counting_service_data_t {
            size: std::mem::size_of::<rocprofiler_dispatch_counting_service_data_t>() as u64,
            correlation_id: rocprofiler_async_correlation_id_t {
                internal: self.acts[g].cid,
                external: rocprofiler_user_data_t { value: 0 },
            },
            start_timestamp: s,
            end_timestamp: e,
            dispatch_info: self.dispatch_info(g),
        }
    }

    /// The work of kernel activity `g` (what its counters are derived from).
    fn kernel_work(&self, g: usize) -> crate::plan::KernelWork {
        match self.activity(g) {
            Activity::Kernel { kernel, .. } => self
                .plan
                .kernels
                .get(*kernel as usize)
                .map(|k| k.work)
                .unwrap_or_default(),
            _ => Default::default(),
        }
    }

    fn kernel_payload(&self, g: usize, done: bool) -> KernelPayload {
        let (s, e) = self.times(g);
        let with_pipe = state::personality().dispatch_pipe_id();
        KernelPayload {
            data: rocprofiler_callback_tracing_kernel_dispatch_data_t {
                size: if with_pipe {
                    std::mem::size_of::<KernelPayload>()
                } else {
                    std::mem::size_of::<rocprofiler_callback_tracing_kernel_dispatch_data_t>()
                } as u64,
                start_timestamp: if done { s } else { 0 },
                end_timestamp: if done { e } else { 0 },
                dispatch_info: self.dispatch_info(g),
            },
            pipe_id: if with_pipe {
                self.queue_of(g) as i32
            } else {
                0
            },
            _pad: 0,
        }
    }

    /// Per GPU, its kernels on the timeline (what the device counting service reads).
    fn kernel_timeline(&self) -> Vec<Vec<crate::counters::KernelSpan>> {
        let mut out = vec![Vec::new(); self.plan.gpus.len()];
        for g in 0..self.acts.len() {
            let Activity::Kernel {
                gpu,
                grid_items,
                block,
                ..
            } = self.activity(g)
            else {
                continue;
            };
            let (start_ns, end_ns) = self.times(g);
            if let Some(list) = out.get_mut(*gpu as usize) {
                list.push(crate::counters::KernelSpan {
                    start_ns,
                    end_ns,
                    grid_items: *grid_items,
                    block: *block,
                    work: self.kernel_work(g),
                });
            }
        }
        out
    }

    fn times(&self, g: usize) -> (u64, u64) {
        match self.activity(g) {
            Activity::Kernel {
                start_ns, end_ns, ..
            }
            | Activity::Copy {
                start_ns, end_ns, ..
            } => (self.base + start_ns, self.base + end_ns),
        }
    }

    fn copy_agents(&self, g: usize) -> (u64, u64) {
        let Activity::Copy {
            src_gpu, dst_gpu, ..
        } = self.activity(g)
        else {
            unreachable!("copy_agents of a copy activity")
        };
        let h = |x: &Option<u32>| agent_handle(x.map_or(0, |g| g as usize + 1));
        (h(dst_gpu), h(src_gpu))
    }

    fn copy_payload(&self, g: usize, done: bool) -> CopyPayload {
        let Activity::Copy { bytes, .. } = self.activity(g) else {
            unreachable!("copy_payload of a copy activity")
        };
        let (s, e) = if done { self.times(g) } else { (0, 0) };
        let (dst, src) = self.copy_agents(g);
        let (da, sa) = self.acts[g].addrs;
        let v0 = rocprofiler_callback_tracing_memory_copy_data_v0_t {
            size: std::mem::size_of::<rocprofiler_callback_tracing_memory_copy_data_v0_t>() as u64,
            start_timestamp: s,
            end_timestamp: e,
            dst_agent_id: rocprofiler_agent_id_t { handle: dst },
            src_agent_id: rocprofiler_agent_id_t { handle: src },
            bytes: *bytes,
        };
        let v1 = rocprofiler_callback_tracing_memory_copy_data_v1_t {
            size: std::mem::size_of::<rocprofiler_callback_tracing_memory_copy_data_v1_t>() as u64,
            start_timestamp: s,
            end_timestamp: e,
            dst_agent_id: rocprofiler_agent_id_t { handle: dst },
            src_agent_id: rocprofiler_agent_id_t { handle: src },
            bytes: *bytes,
            dst_address: rocprofiler_address_t { handle: da },
            src_address: rocprofiler_address_t { handle: sa },
        };
        CopyPayload { v0, v1 }
    }

    /// The stand-in for the HSA signal-handler thread: completion records and callbacks in
    /// (possibly shuffled) completion order, each only after its submission happened.
    fn device_thread(&self) {
        let p = state::personality();
        let mut next_barrier = 0;
        for (done, &g) in self.order.iter().enumerate() {
            if let Some(step) = &self.in_step {
                step.device_at(done);
            }
            // Barriers that completed before this activity ends come first.
            let (_, act_end) = self.times(g);
            while next_barrier < self.barriers.len() && self.barrier_end(next_barrier) <= act_end {
                self.complete_barrier(next_barrier);
                next_barrier += 1;
            }
            let Some(enq) = self.submitted(g) else {
                if ENDED_EARLY.load(std::sync::atomic::Ordering::Acquire) {
                    // The replay ended early (`ROCPROF_SIM_END_FILE`): nothing later was
                    // launched.
                    break;
                }
                eprintln!("rocprof-sim: activity {g} was never submitted (skipped)");
                continue;
            };
            let act = &self.acts[g];
            let (s, e) = self.times(g);
            set_sim_now(e);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if !enq.counting.is_empty() {
                    super::counting::on_complete(
                        &enq.counting,
                        &self.counting_data(g),
                        &self.kernel_work(g),
                    );
                }
                for pc in &enq.per_ctx {
                    if !pc.ctx.is_active() {
                        continue;
                    }
                    let svc = pc.ctx.services();
                    let corr = Corr::new(act.cid, pc.external);
                    let mut ud = rocprofiler_user_data_t { value: pc.user };
                    match self.activity(g) {
                        Activity::Kernel { .. } => {
                            let op = KERNEL_DISPATCH_COMPLETE;
                            let kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
                            if let Some(buf) = emit::buffer_for(&pc.ctx, &svc, kind, op) {
                                let with_pipe = state::personality().dispatch_pipe_id();
                                let rec = rocprofiler_buffer_tracing_kernel_dispatch_record_t {
                                    size: if with_pipe {
                                        DISPATCH_RECORD_WITH_PIPE_ID
                                    } else {
                                        std::mem::size_of::<
                                            rocprofiler_buffer_tracing_kernel_dispatch_record_t,
                                        >()
                                    } as u64,
                                    kind,
                                    operation: op as u32,
                                    correlation_id: rocprofiler_async_correlation_id_t {
                                        internal: act.cid,
                                        external: rocprofiler_user_data_t { value: pc.external },
                                    },
                                    thread_id: enq.tid,
                                    start_timestamp: s,
                                    end_timestamp: e,
                                    dispatch_info: self.dispatch_info(g),
                                };
                                if with_pipe {
                                    // The newest layout: `int32_t pipe_id` at 184, padded to
                                    // 192. Modelled as the queue's index (the hardware pipe
                                    // the completion came from).
                                    let mut bytes = as_bytes(&rec).to_vec();
                                    bytes.extend_from_slice(
                                        &(self.queue_of(g) as i32).to_ne_bytes(),
                                    );
                                    bytes.resize(DISPATCH_RECORD_WITH_PIPE_ID, 0);
                                    emit::emplace(buf, kind, &bytes);
                                } else {
                                    emit::emplace(buf, kind, as_bytes(&rec));
                                }
                            }
                            if let Some(cb) = emit::callback_for(
                                &svc,
                                ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                                op,
                            ) {
                                let mut data = self.kernel_payload(g, true);
                                emit::invoke(
                                    pc.ctx.handle,
                                    cb,
                                    enq.tid,
                                    corr,
                                    ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                                    op,
                                    ROCPROFILER_CALLBACK_PHASE_NONE,
                                    &mut data as *mut _ as *mut c_void,
                                    &mut ud,
                                );
                            }
                        }
                        Activity::Copy {
                            direction, bytes, ..
                        } => {
                            let op = copy_op(*direction);
                            let kind = ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
                            if let Some(buf) = emit::buffer_for(&pc.ctx, &svc, kind, op) {
                                let (dst, src) = self.copy_agents(g);
                                let (da, sa) = act.addrs;
                                let rec = rocprofiler_buffer_tracing_memory_copy_record_v1_t {
                                    size: 0,
                                    kind,
                                    operation: op as u32,
                                    correlation_id: rocprofiler_async_correlation_id_t {
                                        internal: act.cid,
                                        external: rocprofiler_user_data_t { value: pc.external },
                                    },
                                    thread_id: enq.tid,
                                    start_timestamp: s,
                                    end_timestamp: e,
                                    dst_agent_id: rocprofiler_agent_id_t { handle: dst },
                                    src_agent_id: rocprofiler_agent_id_t { handle: src },
                                    bytes: *bytes,
                                    dst_address: rocprofiler_address_t { handle: da },
                                    src_address: rocprofiler_address_t { handle: sa },
                                };
                                // The 0.x record is the 80-byte prefix of the 1.x one.
                                let len = if p.is_v1() {
                                    std::mem::size_of::<
                                        rocprofiler_buffer_tracing_memory_copy_record_v1_t,
                                    >()
                                } else {
                                    std::mem::size_of::<
                                        rocprofiler_buffer_tracing_memory_copy_record_v0_t,
                                    >()
                                };
                                let rec = rocprofiler_buffer_tracing_memory_copy_record_v1_t {
                                    size: len as u64,
                                    ..rec
                                };
                                emit::emplace(buf, kind, &as_bytes(&rec)[..len]);
                            }
                            let mut payload = self.copy_payload(g, true);
                            emit::callback(
                                pc.ctx.handle,
                                &svc,
                                enq.tid,
                                corr,
                                ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
                                op,
                                ROCPROFILER_CALLBACK_PHASE_EXIT,
                                payload.ptr(),
                                &mut ud,
                            );
                        }
                    }
                }
            }));
            if r.is_err() {
                eprintln!("rocprof-sim: internal panic emitting a completion (skipped)");
            }
            if self.plan.delivery.api_order == ApiOrder::ActivitiesFirst {
                let ready = {
                    let mut pend = lock(&self.pending);
                    let mut out = None;
                    if let Some(pe) = pend.get_mut(&act.call_key) {
                        pe.remaining = pe.remaining.saturating_sub(1);
                        if pe.remaining == 0 {
                            out = pe.deferred.take();
                            if out.is_some() {
                                pend.remove(&act.call_key);
                            }
                        }
                    }
                    out
                };
                if let Some(recs) = ready {
                    emit_all(recs);
                }
            }
        }
        if let Some(step) = &self.in_step {
            step.device_at(self.order.len());
        }
        for bi in next_barrier..self.barriers.len() {
            self.complete_barrier(bi);
        }
        state::clear_sim_now();
    }

    fn marker_call(&self, t: usize, j: usize, tid: u64, op: &HostOp, m: &MarkerOp) {
        let cid = self.cid[t][j];
        let (op_id, message, arg_val): (i32, Option<CString>, u64) = match m {
            MarkerOp::Mark(s) => (
                ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA,
                Some(cstring(s)),
                0,
            ),
            MarkerOp::Push(s) => (
                ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA,
                Some(cstring(s)),
                0,
            ),
            MarkerOp::Pop => (ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, None, 0),
            MarkerOp::Start { message, .. } => (
                ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA,
                Some(cstring(message)),
                0,
            ),
            MarkerOp::Stop { key } => (
                ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop,
                None,
                self.range_ids.get(key).copied().unwrap_or(0),
            ),
        };
        let retval: u64 = match m {
            MarkerOp::Push(_) => {
                let mut d = lock(&self.push_depth);
                let e = d.entry(tid).or_insert(0);
                *e += 1;
                (*e - 1) as u32 as u64
            }
            MarkerOp::Pop => {
                let mut d = lock(&self.push_depth);
                let e = d.entry(tid).or_insert(0);
                *e = (*e - 1).max(0);
                *e as u32 as u64
            }
            MarkerOp::Start { key, .. } => self.range_ids.get(key).copied().unwrap_or(0),
            _ => 0,
        };
        let first_arg = message.as_ref().map_or(arg_val, |c| c.as_ptr() as u64);
        let mut data = rocprofiler_callback_tracing_marker_api_data_t {
            size: std::mem::size_of::<rocprofiler_callback_tracing_marker_api_data_t>() as u64,
            args: rocprofiler_marker_api_args_t {
                roctxMarkA: rocprofiler_marker_api_args_t__bindgen_ty_1 {
                    message: first_arg as *const std::ffi::c_char,
                },
            },
            retval: rocprofiler_marker_api_retval_t { int64_t_retval: 0 },
        };
        let kind_cb = ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;
        let kind_buf = ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API;
        let ctxs: Vec<(Arc<Context>, Arc<state::Services>)> = state::active_contexts()
            .into_iter()
            .map(|c| {
                let s = c.services();
                (c, s)
            })
            .collect();
        let externals: Vec<u64> = ctxs
            .iter()
            .map(|(ctx, svc)| {
                if emit::traces(svc, Some(kind_buf), Some(kind_cb)) {
                    emit::external_id(ctx, svc, tid, "MARKER_CORE_API", op_id, cid)
                } else {
                    0
                }
            })
            .collect();
        let mut users: Vec<rocprofiler_user_data_t> = ctxs
            .iter()
            .map(|_| rocprofiler_user_data_t { value: 0 })
            .collect();
        let (start, end) = (self.base + op.start_ns, self.base + op.end_ns);
        for phase in [
            ROCPROFILER_CALLBACK_PHASE_ENTER,
            ROCPROFILER_CALLBACK_PHASE_EXIT,
        ] {
            if phase == ROCPROFILER_CALLBACK_PHASE_EXIT {
                set_sim_now(end);
                data.retval = rocprofiler_marker_api_retval_t {
                    int64_t_retval: retval as i64,
                };
            }
            for (i, (ctx, svc)) in ctxs.iter().enumerate() {
                emit::callback(
                    ctx.handle,
                    svc,
                    tid,
                    Corr::new(cid, externals[i]),
                    kind_cb,
                    op_id,
                    phase,
                    &mut data as *mut _ as *mut c_void,
                    &mut users[i],
                );
            }
        }
        drop(message);
        if state::personality().is_v1() {
            self.range_marker(cid, tid, op, m);
        }
        let mut buffered = false;
        for (i, (ctx, svc)) in ctxs.iter().enumerate() {
            if let Some(buf) = emit::buffer_for(ctx, svc, kind_buf, op_id) {
                let corr = Corr::new(cid, externals[i]);
                let rec = emit::api_record(kind_buf, op_id, corr, start, end, tid);
                emit::emplace(buf, kind_buf, rec.bytes());
                buffered = true;
            }
        }
        // A call no context buffers a record of, whose callbacks reached a tool recording
        // records (one of its contexts has a buffer-tracing service), as for HIP calls.
        let recording = |client: Option<usize>| {
            ctxs.iter()
                .any(|(c, svc)| c.client == client && !svc.buffer.is_empty())
        };
        if !buffered
            && ctxs.iter().any(|(c, svc)| {
                emit::callback_for(svc, kind_cb, op_id).is_some() && recording(c.client)
            })
        {
            emit::count_roctx_callback_only_call();
        }
    }
}

impl Replay {
    /// 1.x `MARKER_CORE_RANGE_API`: the runtime pairs push/pop (per thread) and start/stop
    /// (process-wide) itself: ENTER at the opening call, EXIT at the closing one with the same
    /// correlation id and `user_data`; one buffer record spanning the range at its end.
    fn range_marker(&self, cid: u64, tid: u64, op: &HostOp, m: &MarkerOp) {
        let p = state::personality();
        let (Some(kind_cb), Some(kind_buf)) = (
            p.callback_kind("MARKER_CORE_RANGE_API"),
            p.buffer_kind("MARKER_CORE_RANGE_API"),
        ) else {
            return;
        };
        let (start, end) = (self.base + op.start_ns, self.base + op.end_ns);
        let open = |op_id: i32, message: &str| -> OpenRange {
            let ctxs: Vec<(Arc<Context>, u64)> = state::active_contexts()
                .into_iter()
                .filter_map(|c| {
                    let svc = c.services();
                    if !emit::traces(&svc, Some(kind_buf), Some(kind_cb)) {
                        return None;
                    }
                    let ext = emit::external_id(&c, &svc, tid, "MARKER_CORE_RANGE_API", op_id, cid);
                    Some((c, ext))
                })
                .collect();
            let users = ctxs
                .iter()
                .map(|_| rocprofiler_user_data_t { value: 0 })
                .collect();
            OpenRange {
                op: op_id,
                cid,
                tid,
                start,
                message: cstring(message),
                ctxs,
                users,
            }
        };
        match m {
            MarkerOp::Mark(s) => {
                let mut r = open(0, s);
                range_callbacks(&mut r, tid, kind_cb, ROCPROFILER_CALLBACK_PHASE_ENTER);
                range_callbacks(&mut r, tid, kind_cb, ROCPROFILER_CALLBACK_PHASE_EXIT);
                range_record(&r, tid, kind_buf, end);
            }
            MarkerOp::Push(s) => {
                let mut r = open(1, s);
                range_callbacks(&mut r, tid, kind_cb, ROCPROFILER_CALLBACK_PHASE_ENTER);
                lock(&self.thread_ranges).entry(tid).or_default().push(r);
            }
            MarkerOp::Start { message, key } => {
                let mut r = open(2, message);
                range_callbacks(&mut r, tid, kind_cb, ROCPROFILER_CALLBACK_PHASE_ENTER);
                lock(&self.process_ranges).insert(*key, r);
            }
            MarkerOp::Pop => {
                let r = lock(&self.thread_ranges)
                    .get_mut(&tid)
                    .and_then(|v| v.pop());
                if let Some(mut r) = r {
                    range_callbacks(&mut r, tid, kind_cb, ROCPROFILER_CALLBACK_PHASE_EXIT);
                    range_record(&r, tid, kind_buf, end);
                }
            }
            MarkerOp::Stop { key } => {
                let r = lock(&self.process_ranges).remove(key);
                if let Some(mut r) = r {
                    let opener = r.tid;
                    range_callbacks(&mut r, opener, kind_cb, ROCPROFILER_CALLBACK_PHASE_EXIT);
                    range_record(&r, opener, kind_buf, end);
                }
            }
        }
    }
}

fn range_callbacks(r: &mut OpenRange, tid: u64, kind: u32, phase: u32) {
    let mut data = rocprofiler_callback_tracing_marker_api_data_t {
        size: std::mem::size_of::<rocprofiler_callback_tracing_marker_api_data_t>() as u64,
        args: rocprofiler_marker_api_args_t {
            roctxMarkA: rocprofiler_marker_api_args_t__bindgen_ty_1 {
                message: r.message.as_ptr(),
            },
        },
        retval: rocprofiler_marker_api_retval_t { int64_t_retval: 0 },
    };
    for (i, (ctx, ext)) in r.ctxs.iter().enumerate() {
        if !ctx.is_active() {
            continue;
        }
        let svc = ctx.services();
        emit::callback(
            ctx.handle,
            &svc,
            tid,
            Corr::new(r.cid, *ext),
            kind,
            r.op,
            phase,
            &mut data as *mut _ as *mut c_void,
            &mut r.users[i],
        );
    }
}

fn range_record(r: &OpenRange, tid: u64, kind: u32, end: u64) {
    for (ctx, ext) in &r.ctxs {
        if !ctx.is_active() {
            continue;
        }
        let svc = ctx.services();
        if let Some(buf) = emit::buffer_for(ctx, &svc, kind, r.op) {
            let corr = Corr::new(r.cid, *ext);
            let rec = emit::api_record(kind, r.op, corr, r.start, end, tid);
            emit::emplace(buf, kind, rec.bytes());
        }
    }
}

/// A memory-copy callback payload in both layouts (0.x has no addresses).
struct CopyPayload {
    v0: rocprofiler_callback_tracing_memory_copy_data_v0_t,
    v1: rocprofiler_callback_tracing_memory_copy_data_v1_t,
}

impl CopyPayload {
    /// The payload in the running personality's layout.
    fn ptr(&mut self) -> *mut c_void {
        if state::personality().is_v1() {
            &mut self.v1 as *mut _ as *mut c_void
        } else {
            &mut self.v0 as *mut _ as *mut c_void
        }
    }
}

/// `ROCPROF_SIM_END_FILE`: once this file exists, every application thread ends its replay
/// before its next call (the calls left are never made), so a test can end a long paced run
/// when it has seen what it needs, however slowly a loaded machine let it get there.
const END_FILE: &str = "ROCPROF_SIM_END_FILE";

/// `ROCPROF_SIM_DEVICE_IN_STEP`: a GPU completes its work at its own pace, whatever the host's
/// CPU does, so on a real machine the completion of work that ended before a call has happened
/// by the time the call is made. The replay's device thread shares the machine's cores with the
/// application threads and the tool, and left free it can fall behind them in simulated time
/// without bound, which no GPU does. With this, an application thread waits before each call
/// until the device thread has completed every activity ending before the call's start. It never waits while the device thread
/// itself waits for a submission (some application thread must make it, and the completion
/// order may be shuffled), nor longer than `MAX_WAIT` for one call.
struct InStep {
    /// `floor[i]`: the earliest end (plan ns) among the activities from completion position
    /// `i` on; `u64::MAX` past the last.
    floor: Vec<u64>,
    /// Completion positions the device thread has passed (every activity before it done).
    done: std::sync::atomic::AtomicUsize,
}

impl InStep {
    const MAX_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

    /// From the activities' end times in completion order.
    fn new(ends: impl DoubleEndedIterator<Item = u64> + ExactSizeIterator) -> Self {
        let mut floor = vec![u64::MAX; ends.len() + 1];
        for (i, end) in ends.enumerate().rev() {
            floor[i] = end.min(floor[i + 1]);
        }
        InStep {
            floor,
            done: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    fn device_at(&self, done: usize) {
        self.done.store(done, std::sync::atomic::Ordering::Release);
    }

    /// Whether every activity ending before `start_ns` (plan ns) is complete.
    fn caught_up(&self, start_ns: u64) -> bool {
        let done = self.done.load(std::sync::atomic::Ordering::Acquire);
        self.floor.get(done).is_none_or(|&f| f >= start_ns)
    }

    /// Waits until the device thread completed the activities ending before `start_ns`, it
    /// waits for a submission (`device_waits` names one), or `MAX_WAIT` passed.
    fn wait_for_device(&self, start_ns: u64, device_waits: &std::sync::atomic::AtomicUsize) {
        if self.caught_up(start_ns) {
            return;
        }
        let began = std::time::Instant::now();
        let mut spins = 0u32;
        while !self.caught_up(start_ns)
            && device_waits.load(std::sync::atomic::Ordering::Acquire) == usize::MAX
            && began.elapsed() < Self::MAX_WAIT
        {
            if spins < 64 {
                spins += 1;
                std::thread::yield_now();
            } else {
                std::thread::sleep(std::time::Duration::from_micros(20));
            }
        }
    }
}

/// The replay was ended early through `END_FILE`.
static ENDED_EARLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn end_file() -> Option<&'static std::path::Path> {
    static PATH: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    PATH.get_or_init(|| std::env::var_os(END_FILE).map(Into::into))
        .as_deref()
}

fn end_file_set() -> bool {
    end_file().is_some()
}

/// Whether `END_FILE` asks the replay to end now (said once on stderr).
fn end_requested() -> bool {
    let Some(path) = end_file() else {
        return false;
    };
    if ENDED_EARLY.load(std::sync::atomic::Ordering::Acquire) {
        return true;
    }
    if !path.exists() {
        return false;
    }
    if !ENDED_EARLY.swap(true, std::sync::atomic::Ordering::AcqRel) {
        eprintln!(
            "rocprof-sim: {} exists: the replay ends before its remaining calls",
            path.display()
        );
    }
    true
}

/// `ROCPROF_SIM_HOLD_FILE`: every application thread waits before its middle call until this
/// file exists, so a test can see what a tool did with the first half of a run (a capture
/// window written, say) before the second half begins, however slowly a loaded machine runs
/// the tool's own thread.
const HOLD_FILE: &str = "ROCPROF_SIM_HOLD_FILE";

fn hold_file() -> Option<&'static std::path::Path> {
    static PATH: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    PATH.get_or_init(|| std::env::var_os(HOLD_FILE).map(Into::into))
        .as_deref()
}

fn wait_for_hold_file() {
    let Some(path) = hold_file() else {
        return;
    };
    while !path.exists() && !end_requested() {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// When the (first) replay of this process began: the origin of `--attach-window` times.
pub static REPLAY_STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// One callback of `kind`/`op` in `phase` with payload `data` to every context, each with a
/// fresh user-data slot (for payloads that need no ENTER→EXIT user data).
fn callback_each<T>(
    ctxs: &[(Arc<Context>, Arc<state::Services>)],
    tid: u64,
    corr: Corr,
    kind: u32,
    op: i32,
    phase: u32,
    data: &mut T,
) {
    for (ctx, svc) in ctxs {
        let mut ud = rocprofiler_user_data_t { value: 0 };
        emit::callback(
            ctx.handle,
            svc,
            tid,
            corr,
            kind,
            op,
            phase,
            data as *mut T as *mut c_void,
            &mut ud,
        );
    }
}

/// The HIP_STREAM payload naming `stream` (a `hipStream_t`) by its index `id`.
fn stream_payload(id: u64, stream: u64) -> rocprofiler_callback_tracing_hip_stream_data_t {
    rocprofiler_callback_tracing_hip_stream_data_t {
        size: std::mem::size_of::<rocprofiler_callback_tracing_hip_stream_data_t>() as u64,
        stream_id: rocprofiler_stream_id_t { handle: id },
        stream_value: rocprofiler_address_t { handle: stream },
    }
}

/// One context's services a HIP call of one operation uses (`None`: not traced there).
#[derive(Clone, Copy, Default)]
struct HipServices<'s> {
    api_cb: Option<&'s state::CallbackService>,
    /// HIP_STREAM's stream-use operation (1.x, a call on a stream).
    stream_cb: Option<&'s state::CallbackService>,
    api_buf: Option<&'s Arc<Buffer>>,
    ext_buf: Option<&'s Arc<Buffer>>,
    /// Whether the call's records there carry an external correlation id.
    external: bool,
}

/// The personality's kind values a HIP call uses, resolved once per replay.
struct CallKinds {
    v1: bool,
    /// The external-correlation request kind of HIP runtime calls.
    hip_request: Option<u32>,
    hip_api_ext: Option<u32>,
    hip_stream: Option<u32>,
    hip_graph: Option<u32>,
}

impl CallKinds {
    fn of(p: super::Personality) -> CallKinds {
        CallKinds {
            v1: p.is_v1(),
            hip_request: p.request_kind("HIP_RUNTIME_API"),
            hip_api_ext: p.buffer_kind("HIP_RUNTIME_API_EXT"),
            hip_stream: p.callback_kind("HIP_STREAM"),
            hip_graph: p.callback_kind("HIP_GRAPH"),
        }
    }
}

/// Per-context values of one call: on the stack for up to `PER_CALL_INLINE` contexts, on the
/// heap beyond (the number of active contexts has no bound).
struct PerCall<T> {
    inline: [T; PER_CALL_INLINE],
    heap: Vec<T>,
    len: usize,
}

const PER_CALL_INLINE: usize = 4;

impl<T: Copy> PerCall<T> {
    /// `f(i)` for each of `n` contexts; `zero` fills the unused inline slots.
    #[inline(always)]
    fn from_fn(n: usize, zero: T, mut f: impl FnMut(usize) -> T) -> PerCall<T> {
        let mut p = PerCall {
            inline: [zero; PER_CALL_INLINE],
            heap: Vec::new(),
            len: n,
        };
        if n <= PER_CALL_INLINE {
            for (i, slot) in p.inline[..n].iter_mut().enumerate() {
                *slot = f(i);
            }
        } else {
            p.heap = (0..n).map(f).collect();
        }
        p
    }
}

impl<T> std::ops::Deref for PerCall<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if self.len <= PER_CALL_INLINE {
            &self.inline[..self.len]
        } else {
            &self.heap
        }
    }
}

impl<T> std::ops::DerefMut for PerCall<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        if self.len <= PER_CALL_INLINE {
            &mut self.inline[..self.len]
        } else {
            &mut self.heap
        }
    }
}

fn read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

fn write<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

fn emit_all(recs: Vec<Deferred>) {
    for d in recs {
        emit::emplace(&d.buffer, d.kind, &d.bytes);
    }
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

fn copy_op(d: CopyDirection) -> i32 {
    match d {
        CopyDirection::HostToHost => 1,
        CopyDirection::HostToDevice => 2,
        CopyDirection::DeviceToHost => 3,
        CopyDirection::DeviceToDevice => 4,
    }
}

// ---- code objects ---------------------------------------------------------------------------

fn install_code_objects(plan: &Plan) {
    let mut slot = lock(&CODE_OBJECTS);
    *slot = Some(CodeObjects {
        cos: plan
            .code_objects
            .iter()
            .map(|c| CoState {
                loaded: false,
                load_done: false,
                unloaded: false,
                contexts: Vec::new(),
                uri: cstring(&c.uri),
                agent: agent_handle(c.gpu as usize + 1),
                gpu: c.gpu,
            })
            .collect(),
        kernels: plan
            .kernels
            .iter()
            .map(|k| (k.clone(), cstring(&k.symbol_name)))
            .collect(),
    });
}

fn co_payload(co: u32, st: &CoState) -> rocprofiler_callback_tracing_code_object_load_data_t {
    let base = 0x7f10_0000_0000 + co as u64 * 0x10_0000;
    rocprofiler_callback_tracing_code_object_load_data_t {
        size: std::mem::size_of::<rocprofiler_callback_tracing_code_object_load_data_t>() as u64,
        code_object_id: co as u64 + 1,
        agent_id: rocprofiler_agent_id_t { handle: st.agent },
        hsa_agent: hsa_agent_t {
            handle: 0x1000 + st.gpu as u64,
        },
        uri: st.uri.as_ptr(),
        load_base: base,
        load_size: 0x10_0000,
        load_delta: base as i64,
        storage_type: 2, // MEMORY
        __bindgen_anon_1: rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1 {
            memory_base: base,
        },
        memory_size: 0x10_0000,
    }
}

fn symbol_payload(
    k: usize,
    sym: &KernelSymbol,
    name: &CString,
) -> rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
    let kernel_object =
        0x7f10_0000_0000 + sym.code_object as u64 * 0x10_0000 + 0x1000 + k as u64 * 0x40;
    rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
        size: std::mem::size_of::<
            rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        >() as u64,
        kernel_id: k as u64 + 1,
        code_object_id: sym.code_object as u64 + 1,
        kernel_name: name.as_ptr(),
        kernel_object,
        kernarg_segment_size: sym.kernarg_segment_size,
        kernarg_segment_alignment: 8,
        group_segment_size: sym.group_segment_size,
        private_segment_size: sym.private_segment_size,
        sgpr_count: sym.sgpr_count,
        arch_vgpr_count: sym.arch_vgpr_count,
        accum_vgpr_count: sym.accum_vgpr_count,
        kernel_code_entry_byte_offset: 0x1000,
        kernel_address: rocprofiler_address_t {
            handle: kernel_object + 0x1000,
        },
    }
}

fn code_object_callbacks(co: u32, tid: u64, phase: u32, contexts: &[Arc<Context>]) {
    let (mut load, syms) = {
        let slot = lock(&CODE_OBJECTS);
        let Some(all) = slot.as_ref() else { return };
        let Some(st) = all.cos.get(co as usize) else {
            return;
        };
        let syms: Vec<_> = all
            .kernels
            .iter()
            .enumerate()
            .filter(|(_, (s, _))| s.code_object == co)
            .map(|(k, (s, n))| symbol_payload(k, s, n))
            .collect();
        (co_payload(co, st), syms)
    };
    let kind = ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT;
    for ctx in contexts {
        let svc = ctx.services();
        let mut ud = rocprofiler_user_data_t { value: 0 };
        emit::callback(
            ctx.handle,
            &svc,
            tid,
            Corr::default(),
            kind,
            CODE_OBJECT_LOAD,
            phase,
            &mut load as *mut _ as *mut c_void,
            &mut ud,
        );
        if let Some(cb) = emit::callback_for(&svc, kind, CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER)
        {
            for mut s in syms.iter().copied() {
                let mut ud = rocprofiler_user_data_t { value: 0 };
                emit::invoke(
                    ctx.handle,
                    cb,
                    tid,
                    Corr::default(),
                    kind,
                    CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER,
                    phase,
                    &mut s as *mut _ as *mut c_void,
                    &mut ud,
                );
            }
        }
    }
}

fn load_code_object(co: u32, tid: u64) {
    let contexts: Vec<Arc<Context>> = state::active_contexts()
        .into_iter()
        .filter(|c| {
            c.services()
                .callback
                .contains_key(&ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT)
        })
        .collect();
    {
        let mut slot = lock(&CODE_OBJECTS);
        loop {
            let Some(st) = slot.as_mut().and_then(|a| a.cos.get_mut(co as usize)) else {
                return;
            };
            if !st.loaded {
                st.loaded = true;
                st.contexts = contexts.clone();
                break;
            }
            if st.load_done {
                return;
            }
            // Another thread is loading it (its LOAD callbacks are running): like HIP's module
            // load lock, a launch waits for that load instead of dispatching a kernel the tool
            // has not been told about yet.
            slot = CODE_OBJECT_LOADED
                .wait(slot)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
    code_object_callbacks(co, tid, ROCPROFILER_CALLBACK_PHASE_LOAD, &contexts);
    if let Some(st) = lock(&CODE_OBJECTS)
        .as_mut()
        .and_then(|a| a.cos.get_mut(co as usize))
    {
        st.load_done = true;
    }
    CODE_OBJECT_LOADED.notify_all();
}

fn unload_code_object(co: u32, tid: u64) {
    let contexts = {
        let mut slot = lock(&CODE_OBJECTS);
        let Some(st) = slot.as_mut().and_then(|a| a.cos.get_mut(co as usize)) else {
            return;
        };
        if !st.load_done || st.unloaded {
            return;
        }
        st.unloaded = true;
        std::mem::take(&mut st.contexts)
    };
    code_object_callbacks(co, tid, ROCPROFILER_CALLBACK_PHASE_UNLOAD, &contexts);
}

/// Process attachment: every code object loaded before (and not unloaded) is reported to
/// `contexts` — the attach library tracks them from the process start — and they get the
/// matching UNLOAD later.
pub fn report_loaded_code_objects(contexts: &[Arc<Context>]) {
    let contexts: Vec<Arc<Context>> = contexts
        .iter()
        .filter(|c| {
            c.services()
                .callback
                .contains_key(&ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT)
        })
        .cloned()
        .collect();
    if contexts.is_empty() {
        return;
    }
    let loaded: Vec<u32> = {
        let mut slot = lock(&CODE_OBJECTS);
        let Some(all) = slot.as_mut() else { return };
        all.cos
            .iter_mut()
            .enumerate()
            .filter(|(_, st)| st.load_done && !st.unloaded)
            .map(|(i, st)| {
                for c in &contexts {
                    if !st.contexts.iter().any(|x| x.handle == c.handle) {
                        st.contexts.push(Arc::clone(c));
                    }
                }
                i as u32
            })
            .collect()
    };
    let tid = state::gettid();
    for co in loaded {
        code_object_callbacks(co, tid, ROCPROFILER_CALLBACK_PHASE_LOAD, &contexts);
    }
}

/// Finalization step F2: every code object still loaded is unloaded (UNLOAD callbacks: the
/// code object first, then its kernel symbols).
pub fn unload_all_code_objects() {
    let n = lock(&CODE_OBJECTS).as_ref().map_or(0, |a| a.cos.len());
    let tid = state::gettid();
    for co in 0..n {
        unload_code_object(co as u32, tid);
    }
}

/// The API a live call makes.
const LIVE_API: &str = "hipLaunchKernel";

/// A runtime an application drives one HIP call at a time (`rocprof_sim_hip_call`): the
/// replay of a plan without ops, whose calls take correlation ids in arrival order and their
/// times from the host clock. Each call is what the replay does for the same call in a plan.
pub struct Live {
    replay: Replay,
    next_cid: std::sync::atomic::AtomicU64,
    /// `hipLaunchKernel`'s operation id in the running personality.
    launch_op: i32,
}

impl Live {
    pub fn new(plan: Plan) -> Result<Live, String> {
        if plan.threads.iter().any(|t| !t.ops.is_empty()) {
            return Err("a live runtime takes its calls from the application, not a plan".into());
        }
        Ok(Live {
            replay: Replay::new(plan)?,
            next_cid: std::sync::atomic::AtomicU64::new(1),
            launch_op: state::personality().hip_op(LIVE_API).unwrap_or(-1),
        })
    }

    /// `hipLaunchKernel` of `kernel` on `stream`, made now by the calling thread, without
    /// the kernel's dispatch: the stream brackets (1.x; the first call on a stream announces
    /// it), the external-correlation request, ENTER/EXIT and the API records.
    pub fn launch(&self, kernel: u32, stream: u64) {
        let tid = state::gettid();
        let cid = self
            .next_cid
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let now = state::boottime_ns().saturating_sub(self.replay.base);
        let args = HipArgs::Launch {
            kernel,
            grid_blocks: [1, 1, 1],
            block: [64, 1, 1],
            dynamic_shared: 0,
            stream,
        };
        let site = CallSite {
            at: (0, 0),
            cid,
            op: self.launch_op,
            key: cid as usize,
            act_first: 0,
            span_ns: (now, now + 1),
            barrier: None,
        };
        self.replay.hip_call(&site, tid, LIVE_API, &args, &[]);
        state::clear_sim_now();
    }
}

#[cfg(test)]
mod tests {
    use super::{InStep, PerCall, PER_CALL_INLINE};
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    #[test]
    fn in_step_floor_is_the_earliest_end_from_each_completion_position() {
        // Completion order shuffled: a later position may end earlier.
        let step = InStep::new([30u64, 10, 40, 20].into_iter());
        assert_eq!(step.floor, vec![10, 10, 20, 20, u64::MAX]);
        // Nothing completed: a call at 10 needs nothing (no activity ends before it), one at
        // 11 needs the activity ending at 10, which completes second.
        assert!(step.caught_up(10));
        assert!(!step.caught_up(11));
        step.device_at(2);
        assert!(!step.caught_up(21), "the activity ending at 20 is not done");
        assert!(step.caught_up(20));
        step.device_at(4);
        assert!(step.caught_up(u64::MAX), "everything done");
    }

    #[test]
    fn in_step_waits_for_the_device_thread_then_goes_on() {
        let step = Arc::new(InStep::new([10u64, 20].into_iter()));
        let free = AtomicUsize::new(usize::MAX);
        // Behind: the call waits until the device thread passes the activity ending at 20.
        let device = {
            let step = Arc::clone(&step);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(5));
                step.device_at(2);
            })
        };
        step.wait_for_device(25, &free);
        assert!(
            step.caught_up(25),
            "returned only once the device caught up"
        );
        device.join().unwrap();
    }

    #[test]
    fn in_step_never_waits_on_a_device_thread_that_waits_for_a_submission() {
        let step = InStep::new([10u64].into_iter());
        // The device thread waits for activity 0's submission: the call that makes it may be
        // this one, so it goes on at once.
        let waiting = AtomicUsize::new(0);
        let began = Instant::now();
        step.wait_for_device(11, &waiting);
        assert!(began.elapsed() < InStep::MAX_WAIT);
        assert!(!step.caught_up(11));
        // A device thread that never moves is waited for at most `MAX_WAIT`.
        let free = AtomicUsize::new(usize::MAX);
        let began = Instant::now();
        step.wait_for_device(11, &free);
        assert!(began.elapsed() >= InStep::MAX_WAIT);
    }

    #[test]
    fn per_call_holds_one_value_per_context_inline_or_not() {
        for n in [
            0,
            1,
            PER_CALL_INLINE,
            PER_CALL_INLINE + 1,
            3 * PER_CALL_INLINE,
        ] {
            let mut p = PerCall::from_fn(n, 0u64, |i| 10 * i as u64);
            let want: Vec<u64> = (0..n as u64).map(|i| 10 * i).collect();
            assert_eq!(&p[..], &want[..], "{n} contexts");
            for v in p.iter_mut() {
                *v += 1;
            }
            let bumped: Vec<u64> = want.iter().map(|v| v + 1).collect();
            assert_eq!(&p[..], &bumped[..], "{n} contexts, written through");
        }
    }
}
