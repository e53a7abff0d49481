//! The timing model: replays the checked scenario on simulated host threads and GPUs and writes
//! down, in a `Plan`, when every host call and every piece of device work happened.
//!
//! Host calls of all threads are processed in one global sim-time order (a k-way merge on each
//! thread's next start time), so cross-thread interactions — a stream shared by two threads, an
//! event recorded on one thread and waited on by another — resolve exactly as the order of the
//! calls says. No two host calls of the whole process share a start time (ties are broken by
//! moving the later one by 1 ns), so "before" is always well defined: the global host order is
//! the order of `HostOp::start_ns`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::plan::*;

use super::ast::*;
use super::error::ScenarioError;
use super::parse::expanded_calls;
use crate::prng::SplitMix64;

/// Name of the fill kernel the HIP runtime dispatches for hipMemset* (it lives in the runtime's
/// own blit code object, loaded from memory).
pub const FILL_KERNEL: &str = "__amd_rocclr_fillBufferAligned.kd";

const STREAM_HANDLE_BASE: u64 = 0x0000_5a5a_0000_0000;
const EVENT_HANDLE_BASE: u64 = 0x0000_5e5e_0000_0000;
const GRAPH_EXEC_BASE: u64 = 0x0000_6a6a_0000_0000;
const HOST_ADDR_BASE: u64 = 0x0000_7f3a_0000_0000;
const DEVICE_ADDR_BASE: u64 = 0x0000_7e00_0000_0000;
/// Regions the simulated allocators hand addresses out of (named buffers).
const ALLOC_BASE: [u64; 4] = [
    0x0000_7d00_0000_0000, // device, + device << 36
    0x0000_7c00_0000_0000, // pinned host
    0x0000_7b00_0000_0000, // managed
    0x0000_7a00_0000_0000, // host memory registered with HIP
];

pub(crate) fn stream_handle(i: u32) -> u64 {
    STREAM_HANDLE_BASE | ((u64::from(i) + 1) << 12)
}
pub(crate) fn event_handle(i: u32) -> u64 {
    EVENT_HANDLE_BASE | ((u64::from(i) + 1) << 8)
}
pub(crate) fn graph_exec_handle(i: u32) -> u64 {
    GRAPH_EXEC_BASE | ((u64::from(i) + 1) << 12)
}

/// Device-side state of one stream (named streams first, then one null stream per GPU).
struct StreamState {
    gpu: u32,
    handle: u64,
    queue: u32,
    /// Earliest start of the next work on this stream: end of the previous work, raised by
    /// `hipStreamWaitEvent` barriers.
    tail: u64,
    live: bool,
    ever_created: bool,
}

#[derive(Clone, Copy)]
struct EventState {
    complete_ns: u64,
    /// GPU and queue of the stream it was recorded on.
    gpu: u32,
    queue: u32,
}

/// Where one application thread is in its (repeat-expanded) call list.
struct Cursor<'a> {
    stack: Vec<Frame<'a>>,
}

struct Frame<'a> {
    calls: &'a [Call],
    idx: usize,
    iter: u64,
    n: u64,
}

impl<'a> Cursor<'a> {
    fn new(calls: &'a [Call]) -> Self {
        Self {
            stack: vec![Frame {
                calls,
                idx: 0,
                iter: 0,
                n: 1,
            }],
        }
    }

    /// Next leaf call and the iteration index of its innermost repeat.
    fn next(&mut self) -> Option<(&'a Call, u64)> {
        loop {
            let top = self.stack.last_mut()?;
            if top.idx < top.calls.len() {
                let c = &top.calls[top.idx];
                top.idx += 1;
                let iter = top.iter;
                match &c.op {
                    Op::Repeat { n, calls } => {
                        if *n > 0 && !calls.is_empty() {
                            self.stack.push(Frame {
                                calls,
                                idx: 0,
                                iter: 0,
                                n: *n,
                            });
                        }
                    }
                    _ => return Some((c, iter)),
                }
            } else {
                top.iter += 1;
                if top.iter < top.n {
                    top.idx = 0;
                } else {
                    self.stack.pop();
                }
            }
        }
    }
}

struct Run<'a> {
    name: &'a str,
    cursor: Cursor<'a>,
    pending: Option<(&'a Call, u64)>,
    /// Start time of the pending call.
    next_start: u64,
    gap_ns: u64,
    device: u32,
    /// The thread starts on a device other than 0: its first op is an implicit hipSetDevice.
    initial_set_device: bool,
    push_depth: u32,
    ext_depth: u32,
    ops: Vec<HostOp>,
}

struct Sim<'a> {
    sc: &'a Scenario,
    n_gpus: u32,
    streams: Vec<StreamState>,
    events: Vec<Option<EventState>>,
    /// Per GPU: end times of the running kernels when the GPU has a concurrency limit.
    gpu_slots: Vec<Option<BinaryHeap<Reverse<u64>>>>,
    /// `kernel_map[k * n_gpus + g]` = plan kernel index of scenario kernel k on GPU g.
    kernel_map: Vec<Option<u32>>,
    fill_kernel: Vec<Option<u32>>,
    /// Plan code objects of each scenario code object: (gpu, plan index).
    co_instances: Vec<Vec<(u32, u32)>>,
    co_loaded: Vec<bool>,
    /// Thread that loads each plan code object (a lazy one: the thread of its `load` call).
    co_load_thread: Vec<u32>,
    thread_index: u32,
    range_active: Vec<bool>,
    exec_count: Vec<u64>,
    rng: SplitMix64,
    copy_counter: u64,
    last_start: Option<u64>,
    /// Named buffers: address, bytes, kind, and whether allocated now.
    buffers: HashMap<String, (u64, u64, AllocKind, bool)>,
    /// Next free address of the bump allocators (one region per kind).
    alloc_next: u64,
}

pub(crate) fn compile(sc: &Scenario) -> Result<Plan, ScenarioError> {
    let n_gpus = sc.gpus.len() as u32;
    let mut plan = Plan {
        gpus: sc.gpus.iter().map(|g| g.spec.clone()).collect(),
        delivery: sc.delivery.clone(),
        ..Default::default()
    };

    // Code objects and kernel symbols, grouped per code object as the loader reports them.
    let mut co_instances = vec![Vec::new(); sc.code_objects.len()];
    let mut kernel_map = vec![None; sc.kernels.len() * n_gpus as usize];
    let mut by_co: Vec<Vec<u32>> = vec![Vec::new(); sc.code_objects.len()];
    for (k, kd) in sc.kernels.iter().enumerate() {
        by_co[kd.code_object as usize].push(k as u32);
    }
    let mut eager = Vec::new();
    for (c, co) in sc.code_objects.iter().enumerate() {
        for &g in &co.gpus {
            let pi = plan.code_objects.len() as u32;
            plan.code_objects.push(CodeObjectSpec {
                uri: co
                    .uri
                    .clone()
                    .unwrap_or_else(|| format!("file:///app/{}.hsaco", co.name)),
                gpu: g,
                load_thread: co.load_thread,
                unload_at_ns: co.unload_at_ns,
            });
            co_instances[c].push((g, pi));
            if !co.lazy {
                eager.push(pi);
            }
            for &k in &by_co[c] {
                let kd = &sc.kernels[k as usize];
                kernel_map[k as usize * n_gpus as usize + g as usize] =
                    Some(plan.kernels.len() as u32);
                plan.kernels.push(KernelSymbol {
                    symbol_name: format!("{}.kd", kd.name),
                    code_object: pi,
                    sgpr_count: kd.sgpr,
                    arch_vgpr_count: kd.vgpr,
                    accum_vgpr_count: kd.agpr,
                    group_segment_size: kd.lds,
                    private_segment_size: kd.scratch,
                    kernarg_segment_size: kd.kernarg,
                    work: kd.work,
                });
            }
        }
    }
    let mut co_loaded = vec![false; plan.code_objects.len()];
    let mut fill_kernel = vec![None; n_gpus as usize];
    if sc.uses_memset {
        for g in 0..n_gpus {
            let pi = plan.code_objects.len() as u32;
            plan.code_objects.push(CodeObjectSpec {
                uri: format!(
                    "memory://1#offset=0x{:x}&size=32648",
                    0x55ac_7205_8080u64 + u64::from(g) * 0x10_0000
                ),
                gpu: g,
                load_thread: 0,
                unload_at_ns: None,
            });
            co_loaded.push(false);
            eager.push(pi);
            fill_kernel[g as usize] = Some(plan.kernels.len() as u32);
            plan.kernels.push(KernelSymbol {
                symbol_name: FILL_KERNEL.into(),
                code_object: pi,
                sgpr_count: 48,
                arch_vgpr_count: 8,
                accum_vgpr_count: 0,
                group_segment_size: 0,
                private_segment_size: 0,
                kernarg_segment_size: 40,
                work: Default::default(),
            });
        }
    }

    // Streams: named ones get queues round-robin per GPU after the null stream (queue 0).
    let mut per_gpu_rank = vec![0u32; n_gpus as usize];
    let mut streams = Vec::new();
    for (i, s) in sc.streams.iter().enumerate() {
        let handle = stream_handle(i as u32);
        plan.streams.push(StreamSpec {
            handle,
            gpu: s.gpu,
            name: s.name.clone(),
        });
        per_gpu_rank[s.gpu as usize] += 1;
        let queues = sc.gpus[s.gpu as usize].spec.queues;
        streams.push(StreamState {
            gpu: s.gpu,
            handle,
            queue: per_gpu_rank[s.gpu as usize] % queues,
            tail: 0,
            live: false,
            ever_created: false,
        });
    }
    for g in 0..n_gpus {
        streams.push(StreamState {
            gpu: g,
            handle: 0,
            queue: 0,
            tail: 0,
            live: true,
            ever_created: true,
        });
    }

    let mut sim = Sim {
        sc,
        n_gpus,
        streams,
        events: vec![None; sc.events.len()],
        gpu_slots: sc
            .gpus
            .iter()
            .map(|g| (g.max_concurrent_kernels > 0).then(BinaryHeap::new))
            .collect(),
        kernel_map,
        fill_kernel,
        co_instances,
        co_load_thread: plan.code_objects.iter().map(|c| c.load_thread).collect(),
        co_loaded,
        thread_index: 0,
        range_active: vec![false; sc.range_keys.len()],
        exec_count: vec![0; sc.n_calls as usize],
        rng: SplitMix64::new(sc.seed ^ 0x5157_1a7e_d0e5_0001),
        copy_counter: 0,
        last_start: None,
        buffers: HashMap::new(),
        alloc_next: 0,
    };

    let mut runs: Vec<Run> = sc
        .threads
        .iter()
        .map(|t| Run {
            name: &t.name,
            cursor: Cursor::new(&t.calls),
            pending: None,
            next_start: 0,
            gap_ns: t.gap_ns.unwrap_or(sc.timing.default_gap_ns),
            device: t.device,
            initial_set_device: t.device != 0,
            push_depth: 0,
            ext_depth: 0,
            ops: Vec::with_capacity(expanded_calls(&t.calls).min(1 << 24) as usize),
        })
        .collect();

    // Start-up: eager code objects load one after another on their loading threads.
    let mut t = 0u64;
    for pi in eager {
        let spec = &plan.code_objects[pi as usize];
        let d = sim.jit(sc.timing.api_ns(LOAD_KEY)).max(1);
        let run = &mut runs[spec.load_thread as usize];
        run.ops.push(HostOp {
            start_ns: t,
            end_ns: t + d,
            call: HostCall::CodeObjectLoad(pi),
            barrier: None,
        });
        sim.co_loaded[pi as usize] = true;
        sim.last_start = Some(t);
        t += d;
    }
    let init_end = t;

    let mut heap = BinaryHeap::new();
    for (i, run) in runs.iter_mut().enumerate() {
        let start = init_end + sc.threads[i].start_ns;
        if fetch_next(run, start) {
            heap.push(Reverse((run.next_start, i as u32)));
        }
    }
    while let Some(Reverse((start, th))) = heap.pop() {
        let run = &mut runs[th as usize];
        if let Some(ls) = sim.last_start {
            if start <= ls {
                run.next_start = ls + 1;
                heap.push(Reverse((ls + 1, th)));
                continue;
            }
        }
        if run.initial_set_device {
            run.initial_set_device = false;
            let d = sim.jit(sc.timing.api_ns("hipSetDevice")).max(1);
            let args = HipArgs::SetDevice { device: run.device };
            sim.emit_hip(run, start, start + d, "hipSetDevice", args, vec![]);
            run.next_start = start + d;
            heap.push(Reverse((start + d, th)));
            continue;
        }
        let (call, iter) = run
            .pending
            .take()
            .expect("a queued thread has a pending call");
        sim.thread_index = th;
        let end = sim.process(run, call, iter, start)?;
        if fetch_next(run, end) {
            heap.push(Reverse((run.next_start, th)));
        }
    }

    for (co, t) in plan.code_objects.iter_mut().zip(&sim.co_load_thread) {
        co.load_thread = *t;
    }
    plan.threads = runs
        .into_iter()
        .zip(&sc.threads)
        .map(|(r, def)| ThreadPlan {
            name: r.name.to_string(),
            ops: r.ops,
            real_delay_ms: def.real_delay_ms,
        })
        .collect();
    Ok(plan)
}

/// Attaches the barrier packet to the call just emitted.
fn set_barrier(run: &mut Run, b: Barrier) {
    if let Some(op) = run.ops.last_mut() {
        op.barrier = Some(b);
    }
}

/// Moves the thread to its next non-sleep call, starting no earlier than `after` plus gaps.
fn fetch_next(run: &mut Run, after: u64) -> bool {
    let mut t = after;
    while let Some((c, iter)) = run.cursor.next() {
        t += c.gap_ns.unwrap_or(run.gap_ns);
        if let Op::Sleep(d) = c.op {
            t += d;
            continue;
        }
        run.pending = Some((c, iter));
        run.next_start = t;
        return true;
    }
    false
}

fn template(t: &Text, iter: u64, n: u64) -> String {
    if t.dynamic {
        t.text
            .replace("{i}", &iter.to_string())
            .replace("{n}", &n.to_string())
    } else {
        t.text.clone()
    }
}

/// The `hipStream_t` argument of a copy or memset: the synchronous variants called without a
/// stream (hipMemcpy, hipMemset) have none; every other variant passes the stream used.
fn stream_arg(sync: bool, named: StreamRef, handle: u64) -> Option<u64> {
    (!sync || named.is_some()).then_some(handle)
}

impl<'a> Sim<'a> {
    fn jit(&mut self, d: u64) -> u64 {
        let j = self.sc.timing.jitter;
        if j == 0.0 {
            return d;
        }
        let u = self.rng.next_f64() * 2.0 - 1.0;
        ((d as f64) * (1.0 + j * u)).round().max(1.0) as u64
    }

    fn host(&mut self, call: &Call, api: &str) -> u64 {
        let d = call.host_ns.unwrap_or_else(|| self.sc.timing.api_ns(api));
        self.jit(d).max(1)
    }

    fn err(&self, run: &Run, call: &Call, msg: impl std::fmt::Display) -> ScenarioError {
        let s = &self.sc.srcs[call.src as usize];
        // Which repeat iteration(s) the failing call was in, outermost first.
        let iters: Vec<String> = run
            .cursor
            .stack
            .iter()
            .skip(1)
            .map(|f| f.iter.to_string())
            .collect();
        let at = if iters.is_empty() {
            String::new()
        } else {
            format!(" (repeat iteration {})", iters.join("/"))
        };
        ScenarioError::new(
            s.line,
            s.column,
            s.path.clone(),
            format!("thread `{}`{at}: {msg}", run.name),
        )
    }

    fn emit(&mut self, run: &mut Run, start: u64, end: u64, call: HostCall) {
        debug_assert!(end > start);
        run.ops.push(HostOp {
            start_ns: start,
            end_ns: end,
            call,
            barrier: None,
        });
        self.last_start = Some(start);
    }

    /// Emits a HIP call with its arguments and the device work it caused.
    fn emit_hip(
        &mut self,
        run: &mut Run,
        start: u64,
        end: u64,
        api: &str,
        args: HipArgs,
        activities: Vec<Activity>,
    ) {
        let call = HostCall::Hip {
            api: api.to_string(),
            args,
            activities,
        };
        self.emit(run, start, end, call);
    }

    fn slot(&self, run: &Run, s: StreamRef) -> usize {
        match s {
            Some(i) => i as usize,
            None => self.sc.streams.len() + run.device as usize,
        }
    }

    /// Makes sure a named stream exists before it is used: a stream never created is created
    /// implicitly (an extra hipStreamCreate on this thread, just before the use); a destroyed
    /// one is an error. Returns the (possibly later) start time of the using call.
    fn ensure_live(
        &mut self,
        run: &mut Run,
        call: &Call,
        slot: usize,
        start: u64,
    ) -> Result<u64, ScenarioError> {
        let st = &self.streams[slot];
        if st.live {
            return Ok(start);
        }
        if st.ever_created {
            let name = &self.sc.streams[slot].name;
            return Err(self.err(
                run,
                call,
                format!("stream `{name}` is used after hipStreamDestroy"),
            ));
        }
        Ok(self.create_stream(run, None, slot as u32, start))
    }

    fn create_stream(&mut self, run: &mut Run, call: Option<&Call>, s: u32, start: u64) -> u64 {
        let flags = self.sc.streams[s as usize].flags;
        let api = if flags != 0 {
            "hipStreamCreateWithFlags"
        } else {
            "hipStreamCreate"
        };
        let d = match call {
            Some(c) => self.host(c, api),
            None => self.jit(self.sc.timing.api_ns(api)).max(1),
        };
        let st = &mut self.streams[s as usize];
        st.live = true;
        st.ever_created = true;
        let handle = st.handle;
        self.emit_hip(
            run,
            start,
            start + d,
            api,
            HipArgs::StreamCreate {
                stream: handle,
                flags,
            },
            vec![],
        );
        start + d
    }

    /// Reserves a kernel slot on a GPU with a concurrency limit; returns the start time.
    fn occupy(&mut self, gpu: u32, ready: u64, dur: u64) -> u64 {
        match &mut self.gpu_slots[gpu as usize] {
            None => ready,
            Some(heap) => {
                let limit = self.sc.gpus[gpu as usize].max_concurrent_kernels as usize;
                let mut s = ready;
                if heap.len() >= limit {
                    if let Some(Reverse(free)) = heap.pop() {
                        s = s.max(free);
                    }
                }
                heap.push(Reverse(s + dur));
                s
            }
        }
    }

    fn kernel_on(&self, run: &Run, call: &Call, k: u32, gpu: u32) -> Result<u32, ScenarioError> {
        let kd = &self.sc.kernels[k as usize];
        let Some(pk) = self.kernel_map[k as usize * self.n_gpus as usize + gpu as usize] else {
            let co = &self.sc.code_objects[kd.code_object as usize];
            return Err(self.err(
                run,
                call,
                format!(
                    "kernel `{}` is launched on GPU {gpu}, but its code object `{}` is only loaded on devices {:?}",
                    kd.name, co.name, co.gpus
                ),
            ));
        };
        let (_, pi) = self.co_instances[kd.code_object as usize]
            .iter()
            .copied()
            .find(|(g, _)| *g == gpu)
            .expect("kernel map and instances agree");
        if !self.co_loaded[pi as usize] {
            let co = &self.sc.code_objects[kd.code_object as usize];
            return Err(self.err(
                run,
                call,
                format!("kernel `{}` is launched before its code object `{}` is loaded (add a `load` call)", kd.name, co.name),
            ));
        }
        Ok(pk)
    }

    fn copy_addr(&mut self, gpu: Option<u32>) -> u64 {
        self.copy_counter += 1;
        let off = (self.copy_counter % 4096) * 0x100_0000;
        match gpu {
            None => HOST_ADDR_BASE + off,
            Some(g) => DEVICE_ADDR_BASE + u64::from(g) * 0x100_0000_0000 + off,
        }
    }

    /// Host end of a call that blocks until `completion` (returns `sync_return` after it).
    fn block_until(&self, start: u64, host: u64, completion: Option<u64>) -> u64 {
        match completion {
            Some(c) if c > start => (start + host).max(c + self.sc.timing.sync_return_ns),
            _ => start + host,
        }
    }

    /// Processes one call starting at `start`; returns when the thread is free again.
    fn process(
        &mut self,
        run: &mut Run,
        call: &'a Call,
        iter: u64,
        start: u64,
    ) -> Result<u64, ScenarioError> {
        let n = self.exec_count[call.id as usize];
        self.exec_count[call.id as usize] += 1;
        let timing = &self.sc.timing;
        let latency = timing.dispatch_latency_ns;
        let copy_latency = timing.copy_latency_ns;
        let graph_node_host = timing.graph_node_host_ns;
        let mut start = start;
        match &call.op {
            Op::Launch {
                kernel,
                api,
                grid,
                block,
                dyn_lds,
                stream,
                dur_ns,
            } => {
                let slot = self.slot(run, *stream);
                start = self.ensure_live(run, call, slot, start)?;
                let gpu = self.streams[slot].gpu;
                let pk = self.kernel_on(run, call, *kernel, gpu)?;
                let kd = &self.sc.kernels[*kernel as usize];
                let (lds, scratch, def_dur) = (kd.lds, kd.scratch, kd.dur_ns);
                let host = self.host(call, api);
                let end = start + host;
                let dur = self.jit(dur_ns.unwrap_or(def_dur)).max(1);
                let ready = (end + latency).max(self.streams[slot].tail);
                let s = self.occupy(gpu, ready, dur);
                let st = &mut self.streams[slot];
                st.tail = s + dur;
                let act = Activity::Kernel {
                    gpu,
                    queue: st.queue,
                    kernel: pk,
                    grid_items: [grid[0] * block[0], grid[1] * block[1], grid[2] * block[2]],
                    block: *block,
                    group_segment_size: lds.saturating_add(*dyn_lds),
                    private_segment_size: scratch,
                    stream: st.handle,
                    start_ns: s,
                    end_ns: s + dur,
                };
                let args = HipArgs::Launch {
                    kernel: pk,
                    grid_blocks: *grid,
                    block: *block,
                    dynamic_shared: *dyn_lds,
                    stream: st.handle,
                };
                self.emit_hip(run, start, end, api, args, vec![act]);
                Ok(end)
            }
            Op::Graph { graph, api, stream } => {
                let slot = self.slot(run, *stream);
                start = self.ensure_live(run, call, slot, start)?;
                let gpu = self.streams[slot].gpu;
                let g = &self.sc.graphs[*graph as usize];
                let host = self.host(call, api) + graph_node_host * g.nodes.len() as u64;
                let end = start + host;
                let ready = (end + latency).max(self.streams[slot].tail);
                let branches = g.branches.min(g.nodes.len() as u32).max(1);
                let mut tails = vec![ready; branches as usize];
                let (handle, queue0) = (self.streams[slot].handle, self.streams[slot].queue);
                let queues = self.sc.gpus[gpu as usize].spec.queues;
                let mut acts = Vec::with_capacity(g.nodes.len());
                for (i, node) in g.nodes.iter().enumerate() {
                    let b = i % branches as usize;
                    let pk = self
                        .kernel_on(run, call, node.kernel, gpu)
                        .map_err(|mut e| {
                            e.message = format!("graph `{}` node {i}: {}", g.name, e.message);
                            e
                        })?;
                    let kd = &self.sc.kernels[node.kernel as usize];
                    let dur = self.jit(node.dur_ns).max(1);
                    let s = self.occupy(gpu, tails[b], dur);
                    tails[b] = s + dur;
                    acts.push(Activity::Kernel {
                        gpu,
                        queue: (queue0 + b as u32) % queues,
                        kernel: pk,
                        grid_items: [
                            node.grid[0] * node.block[0],
                            node.grid[1] * node.block[1],
                            node.grid[2] * node.block[2],
                        ],
                        block: node.block,
                        group_segment_size: kd.lds.saturating_add(node.dyn_lds),
                        private_segment_size: kd.scratch,
                        stream: handle,
                        start_ns: s,
                        end_ns: s + dur,
                    });
                }
                self.streams[slot].tail = tails.iter().copied().max().unwrap_or(ready);
                let args = HipArgs::GraphLaunch {
                    graph_exec: graph_exec_handle(*graph),
                    stream: handle,
                };
                self.emit_hip(run, start, end, api, args, acts);
                Ok(end)
            }
            Op::Memcpy {
                kind,
                api,
                bytes,
                stream,
                sync,
                src_dev,
                dst_dev,
                dur_ns,
                src_buffer,
                dst_buffer,
            } => {
                let buffer_addr =
                    |this: &Self, b: &Option<String>| -> Result<Option<u64>, String> {
                        let Some(name) = b else { return Ok(None) };
                        match this.buffers.get(name) {
                            Some(&(addr, _, _, true)) => Ok(Some(addr)),
                            _ => Err(format!("buffer `{name}` is not allocated here")),
                        }
                    };
                let src_fixed =
                    buffer_addr(self, src_buffer).map_err(|m| self.err(run, call, m))?;
                let dst_fixed =
                    buffer_addr(self, dst_buffer).map_err(|m| self.err(run, call, m))?;
                let slot = self.slot(run, *stream);
                start = self.ensure_live(run, call, slot, start)?;
                let gpu = self.streams[slot].gpu;
                let gd = &self.sc.gpus[gpu as usize];
                let (direction, src, dst, kind_v, bw) = match kind {
                    CopyKind::H2H => (CopyDirection::HostToHost, None, None, 0, gd.h2h_gbps),
                    CopyKind::H2D => {
                        let d = dst_dev.unwrap_or(gpu);
                        (
                            CopyDirection::HostToDevice,
                            None,
                            Some(d),
                            1,
                            self.sc.gpus[d as usize].h2d_gbps,
                        )
                    }
                    CopyKind::D2H => {
                        let s = src_dev.unwrap_or(gpu);
                        (
                            CopyDirection::DeviceToHost,
                            Some(s),
                            None,
                            2,
                            self.sc.gpus[s as usize].d2h_gbps,
                        )
                    }
                    CopyKind::D2D | CopyKind::Peer => {
                        let (s, d) = (src_dev.unwrap_or(gpu), dst_dev.unwrap_or(gpu));
                        let bw = if s == d {
                            self.sc.gpus[s as usize].d2d_gbps
                        } else {
                            gd.peer_gbps
                        };
                        (CopyDirection::DeviceToDevice, Some(s), Some(d), 3, bw)
                    }
                };
                let model = copy_latency + (*bytes as f64 / bw).round() as u64;
                let dur = self.jit(dur_ns.unwrap_or(model)).max(1);
                let host = self.host(call, api);
                let submit = start + host;
                let st = &mut self.streams[slot];
                let s = (submit + latency).max(st.tail);
                st.tail = s + dur;
                let handle = st.handle;
                let act = Activity::Copy {
                    direction,
                    src_gpu: src,
                    dst_gpu: dst,
                    bytes: *bytes,
                    stream: handle,
                    start_ns: s,
                    end_ns: s + dur,
                };
                let end = if *sync {
                    self.block_until(start, host, Some(s + dur))
                } else {
                    submit
                };
                let (dst_addr, src_addr) = (
                    dst_fixed.unwrap_or_else(|| self.copy_addr(dst)),
                    src_fixed.unwrap_or_else(|| self.copy_addr(src)),
                );
                let args = HipArgs::Memcpy {
                    dst: dst_addr,
                    src: src_addr,
                    bytes: *bytes,
                    kind: kind_v,
                    stream: stream_arg(*sync, *stream, handle),
                };
                self.emit_hip(run, start, end, api, args, vec![act]);
                Ok(end)
            }
            Op::Memset {
                api,
                bytes,
                value,
                stream,
                sync,
                dur_ns,
            } => {
                let slot = self.slot(run, *stream);
                start = self.ensure_live(run, call, slot, start)?;
                let gpu = self.streams[slot].gpu;
                let pk = self.fill_kernel[gpu as usize]
                    .expect("fill kernel exists when memsets are used");
                let bw = self.sc.gpus[gpu as usize].memset_gbps;
                let dur = self
                    .jit(dur_ns.unwrap_or(1_000 + (*bytes as f64 / bw).round() as u64))
                    .max(1);
                let host = self.host(call, api);
                let submit = start + host;
                let ready = (submit + latency).max(self.streams[slot].tail);
                let s = self.occupy(gpu, ready, dur);
                let st = &mut self.streams[slot];
                st.tail = s + dur;
                // The runtime's fill kernel: 256-wide blocks, 16 bytes per work-item, capped grid.
                let items = bytes.div_ceil(16).div_ceil(256).clamp(1, 256) as u32 * 256;
                let act = Activity::Kernel {
                    gpu,
                    queue: st.queue,
                    kernel: pk,
                    grid_items: [items, 1, 1],
                    block: [256, 1, 1],
                    group_segment_size: 0,
                    private_segment_size: 0,
                    stream: st.handle,
                    start_ns: s,
                    end_ns: s + dur,
                };
                let handle = st.handle;
                let end = if *sync {
                    self.block_until(start, host, Some(s + dur))
                } else {
                    submit
                };
                let dst = self.copy_addr(Some(gpu));
                let args = HipArgs::Memset {
                    dst,
                    value: *value,
                    bytes: *bytes,
                    stream: stream_arg(*sync, *stream, handle),
                };
                self.emit_hip(run, start, end, api, args, vec![act]);
                Ok(end)
            }
            Op::EventRecord { event, stream } => {
                let slot = self.slot(run, *stream);
                start = self.ensure_live(run, call, slot, start)?;
                let end = start + self.host(call, "hipEventRecord");
                let st = &self.streams[slot];
                let handle = st.handle;
                let done = EventState {
                    complete_ns: st.tail.max(end),
                    gpu: st.gpu,
                    queue: st.queue,
                };
                self.events[*event as usize] = Some(done);
                let args = HipArgs::EventRecord {
                    event: event_handle(*event),
                    stream: handle,
                };
                self.emit_hip(run, start, end, "hipEventRecord", args, vec![]);
                set_barrier(
                    run,
                    Barrier {
                        op: BarrierOp::Record,
                        gpu: done.gpu,
                        queue: done.queue,
                        source_gpu: done.gpu,
                        source_queue: done.queue,
                        event: event_handle(*event),
                        start_ns: done.complete_ns,
                        end_ns: done.complete_ns,
                    },
                );
                Ok(end)
            }
            Op::StreamWaitEvent {
                stream,
                event,
                flags,
            } => {
                let slot = self.slot(run, *stream);
                start = self.ensure_live(run, call, slot, start)?;
                let end = start + self.host(call, "hipStreamWaitEvent");
                let mut barrier = None;
                if let Some(ev) = self.events[*event as usize] {
                    let st = &mut self.streams[slot];
                    // The runtime enqueues a barrier only for an event still pending when the
                    // call checks it; waiting on a completed event enqueues nothing.
                    if ev.complete_ns > start {
                        let b_start = st.tail.max(end);
                        barrier = Some(Barrier {
                            op: BarrierOp::Wait,
                            gpu: st.gpu,
                            queue: st.queue,
                            source_gpu: ev.gpu,
                            source_queue: ev.queue,
                            event: event_handle(*event),
                            start_ns: b_start,
                            end_ns: b_start.max(ev.complete_ns),
                        });
                    }
                    st.tail = st.tail.max(ev.complete_ns);
                }
                let args = HipArgs::StreamWaitEvent {
                    stream: self.streams[slot].handle,
                    event: event_handle(*event),
                    flags: *flags,
                };
                self.emit_hip(run, start, end, "hipStreamWaitEvent", args, vec![]);
                if let Some(b) = barrier {
                    set_barrier(run, b);
                }
                Ok(end)
            }
            Op::EventSync { event } => {
                let host = self.host(call, "hipEventSynchronize");
                let end = self.block_until(
                    start,
                    host,
                    self.events[*event as usize].map(|e| e.complete_ns),
                );
                let args = HipArgs::EventSynchronize {
                    event: event_handle(*event),
                };
                self.emit_hip(run, start, end, "hipEventSynchronize", args, vec![]);
                Ok(end)
            }
            Op::StreamSync { stream } => {
                let slot = self.slot(run, *stream);
                start = self.ensure_live(run, call, slot, start)?;
                let host = self.host(call, "hipStreamSynchronize");
                let end = self.block_until(start, host, Some(self.streams[slot].tail));
                let args = HipArgs::StreamSynchronize {
                    stream: self.streams[slot].handle,
                };
                self.emit_hip(run, start, end, "hipStreamSynchronize", args, vec![]);
                Ok(end)
            }
            Op::DeviceSync => {
                let host = self.host(call, "hipDeviceSynchronize");
                let done = self
                    .streams
                    .iter()
                    .filter(|s| s.gpu == run.device)
                    .map(|s| s.tail)
                    .max();
                let end = self.block_until(start, host, done);
                self.emit_hip(
                    run,
                    start,
                    end,
                    "hipDeviceSynchronize",
                    HipArgs::None,
                    vec![],
                );
                Ok(end)
            }
            Op::Malloc {
                buffer,
                kind,
                bytes,
                stream,
            } => {
                if self.buffers.get(buffer).is_some_and(|b| b.3) {
                    return Err(self.err(
                        run,
                        call,
                        format!("buffer `{buffer}` is allocated twice without a free"),
                    ));
                }
                let (api, _) = kind.apis();
                let handle = if *kind == AllocKind::Async {
                    let slot = self.slot(run, *stream);
                    start = self.ensure_live(run, call, slot, start)?;
                    self.streams[slot].handle
                } else {
                    0
                };
                let region = match kind {
                    AllocKind::Async => AllocKind::Device as usize,
                    k => *k as usize,
                };
                let base = ALLOC_BASE[region]
                    + if matches!(kind, AllocKind::Device | AllocKind::Async) {
                        u64::from(run.device) << 36
                    } else {
                        0
                    };
                let addr = base + self.alloc_next;
                // 2 MiB alignment, as HIP's large allocations are.
                self.alloc_next += bytes.div_ceil(1 << 21).max(1) << 21;
                self.buffers
                    .insert(buffer.clone(), (addr, *bytes, *kind, true));
                let end = start + self.host(call, api);
                let args = HipArgs::Malloc {
                    ptr: addr,
                    bytes: *bytes,
                    flags: 0,
                    stream: handle,
                };
                self.emit_hip(run, start, end, api, args, vec![]);
                Ok(end)
            }
            Op::Free { buffer, stream } => {
                let Some(&(addr, _, kind, true)) = self.buffers.get(buffer) else {
                    return Err(self.err(
                        run,
                        call,
                        format!("buffer `{buffer}` is freed but not allocated"),
                    ));
                };
                if let Some(b) = self.buffers.get_mut(buffer) {
                    b.3 = false;
                }
                let (_, api) = kind.apis();
                let handle = if kind == AllocKind::Async {
                    let slot = self.slot(run, *stream);
                    start = self.ensure_live(run, call, slot, start)?;
                    self.streams[slot].handle
                } else {
                    0
                };
                let end = start + self.host(call, api);
                let args = HipArgs::Free {
                    ptr: addr,
                    stream: handle,
                };
                self.emit_hip(run, start, end, api, args, vec![]);
                Ok(end)
            }
            Op::SetDevice(d) => {
                let end = start + self.host(call, "hipSetDevice");
                run.device = *d;
                let args = HipArgs::SetDevice { device: *d };
                self.emit_hip(run, start, end, "hipSetDevice", args, vec![]);
                Ok(end)
            }
            Op::StreamCreate(s) => {
                if self.streams[*s as usize].live {
                    let name = &self.sc.streams[*s as usize].name;
                    return Err(self.err(
                        run,
                        call,
                        format!("stream `{name}` is created twice without a destroy"),
                    ));
                }
                Ok(self.create_stream(run, Some(call), *s, start))
            }
            Op::StreamDestroy(s) => {
                let name = &self.sc.streams[*s as usize].name;
                if !self.streams[*s as usize].live {
                    return Err(self.err(run, call, format!("stream `{name}` is destroyed but was never created (or destroyed twice)")));
                }
                let end = start + self.host(call, "hipStreamDestroy");
                let st = &mut self.streams[*s as usize];
                st.live = false;
                let args = HipArgs::StreamDestroy { stream: st.handle };
                self.emit_hip(run, start, end, "hipStreamDestroy", args, vec![]);
                Ok(end)
            }
            Op::Mark(t) => {
                let end = start + self.host(call, "roctxMarkA");
                self.emit(
                    run,
                    start,
                    end,
                    HostCall::Marker(MarkerOp::Mark(template(t, iter, n))),
                );
                Ok(end)
            }
            Op::Push(t) => {
                let end = start + self.host(call, "roctxRangePushA");
                run.push_depth += 1;
                self.emit(
                    run,
                    start,
                    end,
                    HostCall::Marker(MarkerOp::Push(template(t, iter, n))),
                );
                Ok(end)
            }
            Op::Pop => {
                if run.push_depth == 0 {
                    return Err(self.err(run, call, "roctx pop without a matching push"));
                }
                run.push_depth -= 1;
                let end = start + self.host(call, "roctxRangePop");
                self.emit(run, start, end, HostCall::Marker(MarkerOp::Pop));
                Ok(end)
            }
            Op::RangeStart { msg, key } => {
                if self.range_active[*key as usize] {
                    let k = &self.sc.range_keys[*key as usize];
                    return Err(self.err(
                        run,
                        call,
                        format!("range key `{k}` is started again before it was stopped"),
                    ));
                }
                self.range_active[*key as usize] = true;
                let end = start + self.host(call, "roctxRangeStartA");
                let op = MarkerOp::Start {
                    message: template(msg, iter, n),
                    key: *key,
                };
                self.emit(run, start, end, HostCall::Marker(op));
                Ok(end)
            }
            Op::RangeStop { key } => {
                if !self.range_active[*key as usize] {
                    let k = &self.sc.range_keys[*key as usize];
                    return Err(self.err(
                        run,
                        call,
                        format!("range_stop of key `{k}` without an active range_start"),
                    ));
                }
                self.range_active[*key as usize] = false;
                let end = start + self.host(call, "roctxRangeStop");
                self.emit(
                    run,
                    start,
                    end,
                    HostCall::Marker(MarkerOp::Stop { key: *key }),
                );
                Ok(end)
            }
            Op::ExtPush { base, step } => {
                run.ext_depth += 1;
                let end = start + self.host(call, EXT_PUSH_KEY);
                self.emit(
                    run,
                    start,
                    end,
                    HostCall::ExternalPush(base.wrapping_add(step.wrapping_mul(n))),
                );
                Ok(end)
            }
            Op::ExtPop => {
                if run.ext_depth == 0 {
                    return Err(self.err(run, call, "ext_pop without a matching ext_push"));
                }
                run.ext_depth -= 1;
                let end = start + self.host(call, EXT_POP_KEY);
                self.emit(run, start, end, HostCall::ExternalPop);
                Ok(end)
            }
            Op::Api(name) => {
                let end = start + self.host(call, name);
                self.emit_hip(run, start, end, name, HipArgs::None, vec![]);
                Ok(end)
            }
            Op::Load(co) => {
                let mut t = start;
                for (_, pi) in self.co_instances[*co as usize].clone() {
                    if self.co_loaded[pi as usize] {
                        let name = &self.sc.code_objects[*co as usize].name;
                        return Err(self.err(
                            run,
                            call,
                            format!("code object `{name}` is loaded twice"),
                        ));
                    }
                    self.co_loaded[pi as usize] = true;
                    self.co_load_thread[pi as usize] = self.thread_index;
                    let d = self.host(call, LOAD_KEY);
                    self.emit(run, t, t + d, HostCall::CodeObjectLoad(pi));
                    t += d;
                }
                Ok(t)
            }
            Op::Sleep(_) | Op::Repeat { .. } => {
                unreachable!("the cursor never yields sleeps or repeats")
            }
        }
    }
}
