//! Figures for the tool's own cost: the buffer-callback decode path (per record) and the
//! finalize join (per event). Prints numbers; asserts nothing about time.
//!
//! Run: `cargo bench -p rocprof-xplane --bench hot_path`. With `HOT_PATH_ONLY=finalize` it runs
//! only the 600 k-event join and exports that trace `HOT_PATH_REPEAT` times (10): a steady
//! workload to profile (`perf record`, or `valgrind --tool=callgrind` with `HOT_PATH_REPEAT=1`
//! for instruction counts that do not move with the machine's load); with `HOT_PATH_ONLY=decode`
//! only the decode rows, with `HOT_PATH_ONLY=annotations` only the application thread's rows
//! (the capture per HIP call at 1 to 32 threads, the capture at HIP entry, a roctx push + pop,
//! the open-call marks), with `HOT_PATH_ONLY=carry` only a capture window's cut
//! (`model::carry`, also windows cut while the device runs behind), with `HOT_PATH_ONLY=calls`
//! only the tool's callbacks per HIP call through its `extern "C"` edges, in each subscription
//! it can make (`HOT_PATH_CALLS=N`: N calls per subscription on one thread, for instruction
//! counts).

use std::hint::black_box;
use std::mem::{size_of, zeroed};
use std::sync::Arc;
use std::time::Instant;

use rocprof_xplane::decode::{decode_batch, BufferKinds};
use rocprof_xplane::model::events::{
    AgentInfo, AgentType, ApiDomain, ApiRecord, Collected, CopyRecord, KernelRecord, KernelSymbol,
    MarkerSpan,
};
use rocprof_xplane::model::join::join_on;
use rocprof_xplane::model::Trace;
use rocprof_xplane::sdk::Abi;
use rocprof_xplane::store::EventStore;
use rocprof_xplane::xplane::{build_planes, write_xspace_on, OutputLayout};
use rocprofiler_sdk_sys as sys;

const BATCH: usize = 512;

/// The application-thread side of annotations: the capture at HIP API entry through the tool's
/// own path (the per-thread, uncontended mutex of `capture::with_current`) against the same
/// `ThreadState` in a `thread_local!` `RefCell` (no synchronisation at all), and a roctx
/// push + pop through the tool's marker path.
fn bench_annotation_capture() {
    use rocprof_xplane::capture::markers::{MarkerCall, MarkerOp};
    use rocprof_xplane::capture::{Capture, ThreadState};
    use std::cell::RefCell;

    const CAPTURES: u64 = 2_000_000;
    const RANGES: u64 = 200_000;
    let call = |op, corr| MarkerCall {
        op,
        enter: op == MarkerOp::RangePush,
        thread_id: 42,
        correlation_id: corr,
        timestamp_ns: corr,
        label: Some(rocprof_xplane::sdk::payload::Message::new(
            c"Thunk:#hlo_op=fusion.1#",
        )),
        stop_id: 0,
        start_retval: 0,
    };
    let per = |t: Instant, n: u64| t.elapsed().as_nanos() as f64 / n as f64;
    std::thread::spawn(move || {
        thread_local! {
            static LOCAL: RefCell<ThreadState> = RefCell::new(ThreadState::default());
        }
        let c = Capture::default();
        // Two levels open, as inside an XLA module and op.
        for corr in [1, 2] {
            c.on_marker(&call(MarkerOp::RangePush, corr));
            LOCAL.with(|l| {
                l.borrow_mut()
                    .push_range(rocprof_xplane::capture::thread::OpenRange {
                        label: Arc::from("Thunk:#hlo_op=fusion.1#"),
                        correlation_id: corr,
                        start_ns: corr,
                        scope_id: 0,
                        parent_scope_id: 0,
                    })
            });
        }
        let t = Instant::now();
        for corr in 0..CAPTURES {
            c.with_current(42, |s| s.capture_at_api_enter(corr));
        }
        let mutex = per(t, CAPTURES);
        let t = Instant::now();
        for corr in 0..CAPTURES {
            LOCAL.with(|l| l.borrow_mut().capture_at_api_enter(corr));
        }
        let local = per(t, CAPTURES);
        let t = Instant::now();
        for r in 0..RANGES {
            c.on_marker(&call(MarkerOp::RangePush, 10 + 2 * r));
            c.on_marker(&call(MarkerOp::RangePop, 11 + 2 * r));
        }
        let range = per(t, RANGES);
        println!(
            "annotations: capture at HIP entry {mutex:>5.1} ns (per-thread mutex) vs {local:>5.1} ns (thread_local RefCell); roctx push+pop {range:>6.1} ns"
        );
        // The open-call marks every HIP call pays at ENTER and EXIT (so a window's end can wait
        // for calls under way).
        let open = c.open_calls();
        let t = Instant::now();
        for _ in 0..CAPTURES {
            open.enter();
            open.exit();
        }
        let marks = per(t, CAPTURES);
        println!("open-call marks: ENTER + EXIT {marks:>5.1} ns per HIP call");
    })
    .join()
    .unwrap();
}

/// The application-thread cost per HIP call at 1, 4, 16 and 32 threads calling at once: the
/// annotation capture and the launch fact (`devices::on_work_enter`), through the tool's own
/// per-thread path. Reported as CPU-ns per call (wall × busy cores / calls): flat means no
/// contention between threads. Two rows: launches on the null stream, and on a stream each
/// thread created (what frameworks launch on: its device comes from the thread's cache of
/// streams, a hash map probe per call).
fn bench_capture_threads() {
    for created in [false, true] {
        bench_capture_threads_on(created);
    }
}

fn bench_capture_threads_on(created_stream: bool) {
    use rocprof_xplane::capture::Capture;
    let cap = Arc::new(Capture::default());
    let mut line = format!(
        "per HIP call on application threads, {} (CPU-ns; wall ns per call in blocks of {CALL_BLOCK}, median / p99):",
        if created_stream {
            "on a created stream"
        } else {
            "on the null stream "
        }
    );
    for threads in [1u64, 4, 16, 32] {
        let blocks = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = Arc::clone(&blocks);
        let c = Arc::clone(&cap);
        let ns = cpu_ns_per_call(threads, 400_000, move |t, calls, start| {
            let tid = 1000 + t;
            // A stream handle of the thread's own, as an allocator would place them.
            let stream = if created_stream {
                0x7f00_0000_0000 + (t << 12)
            } else {
                0
            };
            c.with_current(tid, |s| {
                c.streams().on_created(s, stream, 1);
                s.push_range(rocprof_xplane::capture::thread::OpenRange {
                    label: Arc::from("step"),
                    correlation_id: 1,
                    start_ns: 1,
                    scope_id: 0,
                    parent_scope_id: 0,
                })
            });
            let mut per_call = Vec::with_capacity((calls / CALL_BLOCK + 1) as usize);
            start.wait();
            let mut mark = Instant::now();
            for i in 0..calls {
                let corr = (t << 32) | (i + 2);
                c.with_current(tid, |s| {
                    s.capture_at_api_enter(corr);
                    c.streams().on_work_enter(s, corr, stream);
                });
                if (i + 1) % CALL_BLOCK == 0 {
                    let now = Instant::now();
                    per_call.push((now - mark).as_nanos() as f64 / CALL_BLOCK as f64);
                    mark = now;
                }
            }
            sink.lock().unwrap().extend(per_call);
        });
        let (median, p99) = median_p99(&mut blocks.lock().unwrap());
        line += &format!("  {threads} threads {ns:>5.1} ({median:.1} / {p99:.1})");
        // Leave nothing behind for the next round.
        let _ = cap.drain(0, false);
    }
    println!("{line}");
}

/// Calls timed together for the per-call distribution: one clock read per block (about 1.5 ns
/// per call of its ~25 ns), short enough that a block a thread spends descheduled is rarer
/// than one in a hundred even with 32 threads on 2 cores (a block lasts about a microsecond,
/// a time slice milliseconds), so the p99 is the tool's own tail: a new chunk's first touch,
/// a stream map probe that misses.
const CALL_BLOCK: u64 = 16;

/// The median and the 99th percentile (nearest rank) of `v`, which it sorts.
fn median_p99(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    (at(0.5), at(0.99))
}

/// Runs `work(thread, calls, start)` on `threads` threads at once, `total` calls split among
/// them: each calls `start.wait()` once set up. Returns CPU-ns per call: the wall time from
/// the first thread's release to the last one's end, × the cores kept busy, / calls. The
/// threads read the clock themselves: the main thread, released with up to 32 others onto 2
/// cores, can be scheduled last and would start its clock when most of the work is done,
/// giving impossibly low figures (a few CPU-ns per call where each thread's calls take tens).
fn cpu_ns_per_call<F>(threads: u64, total: u64, work: F) -> f64
where
    F: Fn(u64, u64, &Start) + Send + Sync + 'static,
{
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let per_thread = total / threads;
    let start = Arc::new(Start {
        barrier: std::sync::Barrier::new(threads as usize),
        first: std::sync::Mutex::new(None),
    });
    let work = Arc::new(work);
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (b, w) = (Arc::clone(&start), Arc::clone(&work));
            std::thread::spawn(move || {
                w(t, per_thread, &b);
                Instant::now()
            })
        })
        .collect();
    let last = handles
        .into_iter()
        .map(|h| h.join().unwrap())
        .max()
        .unwrap();
    let first = start
        .first
        .lock()
        .unwrap()
        .expect("every thread waited on start");
    let wall = (last - first).as_nanos() as f64;
    wall * cores.min(threads as f64) / (per_thread * threads) as f64
}

/// The moment the threads of [`cpu_ns_per_call`] start together, read by the first of them
/// to go.
struct Start {
    barrier: std::sync::Barrier,
    first: std::sync::Mutex<Option<Instant>>,
}

impl Start {
    fn wait(&self) {
        self.barrier.wait();
        let now = Instant::now();
        let mut first = self.first.lock().unwrap();
        *first = Some(first.map_or(now, |f| f.min(now)));
    }
}

/// The memory ceiling's charge on every captured HIP call, from 1, 2 and 4 threads: one
/// shared atomic added to on every call (`budget::charge`) against the per-thread batch the
/// callbacks use (`budget::charge_call`). On a 2-core machine two threads already pass the
/// shared count's cache line between the cores at each call.
fn bench_budget_charge() {
    use rocprof_xplane::budget::Budget;
    let run = |threads: u64, batched: bool| {
        let budget = Arc::new(Budget::default());
        cpu_ns_per_call(threads, 4_000_000, move |_, calls, start| {
            start.wait();
            for _ in 0..calls {
                if batched {
                    budget.charge_call(black_box(64));
                } else {
                    budget.charge(black_box(64));
                }
            }
        })
    };
    let mut line = String::from("memory ceiling charge per HIP call (CPU-ns), shared / batched:");
    for threads in [1u64, 2, 4] {
        line += &format!(
            "  {threads} threads {:>5.1} / {:>4.1}",
            run(threads, false),
            run(threads, true)
        );
    }
    println!("{line}");
}

fn header<T>(kind: u32, payload: &mut T) -> sys::rocprofiler_record_header_t {
    // SAFETY: plain C struct; all-zero is valid.
    let mut h: sys::rocprofiler_record_header_t = unsafe { zeroed() };
    h.__bindgen_anon_1.hash =
        u64::from(sys::ROCPROFILER_BUFFER_CATEGORY_TRACING) | (u64::from(kind) << 32);
    h.payload = payload as *mut T as *mut std::ffi::c_void;
    h
}

/// This machine's copy bandwidth (bytes per ns), measured once: 8 copies of 256 MiB.
fn memcpy_bytes_per_ns() -> f64 {
    static BW: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *BW.get_or_init(|| {
        let src = vec![1u8; 256 << 20];
        let mut dst = vec![0u8; 256 << 20];
        dst.copy_from_slice(&src); // touch the pages first
        let t = Instant::now();
        for _ in 0..8 {
            dst.copy_from_slice(black_box(&src));
            black_box(&dst);
        }
        let bw = (8 * src.len()) as f64 / t.elapsed().as_nanos() as f64;
        println!("memcpy floor: {bw:.1} GB/s on this machine (8 x 256 MiB)");
        bw
    })
}

/// The `size` field of the record a header points to.
fn record_size(h: &sys::rocprofiler_record_header_t) -> u64 {
    // SAFETY: every header built here points to a live record starting with its u64 size.
    unsafe { (h.payload as *const u64).read_unaligned() }
}

fn bench_decode(
    label: &str,
    abi: Abi,
    headers: &[sys::rocprofiler_record_header_t],
    rounds: usize,
) {
    let kinds = BufferKinds {
        hip_api: Some(sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API),
        marker_api: Some(sys::ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API),
        kernel_dispatch: Some(sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH),
        memory_copy: Some(sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY),
        hip_event: None,
        counters: false,
    };
    let ptrs: Vec<*const sys::rocprofiler_record_header_t> =
        headers.iter().map(|h| h as *const _).collect();
    let mut store = EventStore::default();
    // Each batch is timed on its own as well (one clock read per 512 records), for the
    // distribution over deliveries: the median and the p99 per record.
    let mut batches = Vec::with_capacity(rounds);
    let t = Instant::now();
    let mut mark = t;
    for _ in 0..rounds {
        // SAFETY: every header points to a live record of the size its `size` field states.
        unsafe { decode_batch(abi, &kinds, ptrs.as_ptr(), ptrs.len(), 0, &mut store) };
        let now = Instant::now();
        batches.push((now - mark).as_nanos() as f64 / ptrs.len() as f64);
        mark = now;
    }
    let dt = t.elapsed();
    let (median, p99) = median_p99(&mut batches);
    let n = (rounds * headers.len()) as f64;
    let bytes =
        store.api.capacity_bytes() + store.kernels.capacity_bytes() + store.copies.capacity_bytes();
    let per = dt.as_nanos() as f64 / n;
    // The physical floor: copying the record's bytes at this machine's memory bandwidth.
    let record_bytes = std::mem::size_of_val(&headers[0]) as f64 + record_size(&headers[0]) as f64;
    let floor = record_bytes / memcpy_bytes_per_ns();
    println!(
        "decode {label:<28} {per:>7.1} ns/record (per batch of {}: median {median:.1}, p99 {p99:.1})  {:>6.1} M records/s  store {:>5.1} B/record  floor {floor:>5.1} ns ({:.0}x) (fresh store: includes first-touch page faults)",
        ptrs.len(),
        n / dt.as_secs_f64() / 1e6,
        bytes as f64 / n,
        per / floor
    );
    black_box(store);
}

/// Export: the joined trace built into planes, encoded and written, one plane at a time, as
/// finalize does — into a byte counter (build + encode) and into a file (`write_xspace_on`: the
/// buffered write, fsync and rename included). The floor is copying the file's bytes once.
fn bench_export(trace: &Trace, events: usize) {
    let bw = memcpy_bytes_per_ns();
    let mut runs = Vec::new();
    let mut bytes = 0u64;
    for _ in 0..5 {
        let t = Instant::now();
        let mut counter = CountingSink(0);
        let space = build_xspace_into(trace, &mut counter);
        runs.push(t.elapsed().as_nanos() as f64 / events as f64);
        bytes = counter.0 + space;
    }
    // Of 5 runs, the nearest-rank p99 is the slowest.
    let (median, p99) = median_p99(&mut runs);
    let floor = bytes as f64 / bw / events as f64;
    println!(
        "export {events:>9} events build+encode {median:>7.1} ns/event (median of 5, p99≈max {p99:.1}) = {:>5.1} M events/s; {:.1} B/event; floor {:.1} ns/event ({:.0}x)",
        1e3 / median,
        bytes as f64 / events as f64,
        floor,
        median / floor
    );
    let dir = tempfile::tempdir().expect("temp dir");
    // The tool's own rule and knob (`ci/bench-instructions.sh` sets 1, since callgrind counts
    // a helper thread's work outside the writer's call).
    let (cfg, _) = rocprof_xplane::config::Config::parse(|k| std::env::var(k).ok(), 0);
    let threads = rocprof_xplane::output::plane_threads(trace, &cfg);
    let mut runs = Vec::new();
    for run in 0..3 {
        // Each run writes a file of its own, as the tool does (a process's file name is new):
        // a rename over the last run's file would free that file's blocks inside the timing.
        let layout = OutputLayout {
            log_dir: dir.path().to_path_buf(),
            run_name: format!("bench{run}"),
            host: "bench".into(),
            durable: true,
        };
        let t = Instant::now();
        let written = write_xspace_on(trace, &layout, threads).expect("write");
        runs.push(t.elapsed().as_nanos() as f64 / events as f64);
        std::fs::remove_file(written).expect("remove the bench's file");
    }
    let (median, _) = median_p99(&mut runs);
    println!(
        "export {events:>9} events to a file    {median:>7.1} ns/event (median of 3) = {:>5.1} M events/s, planes built on {threads} threads",
        1e3 / median
    );
}

/// Counts bytes; the encode's destination when only building and encoding is timed.
struct CountingSink(u64);

impl std::io::Write for CountingSink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Builds and encodes every plane into `w` as the file writer does; returns the bytes of the
/// rest of the XSpace (warnings, host names).
fn build_xspace_into(trace: &Trace, w: &mut CountingSink) -> u64 {
    use prost::Message;
    let rest = build_planes(trace, |plane| plane.write_entry(w)).expect("counting cannot fail");
    rest.encoded_len() as u64
}

fn main() {
    let only = std::env::var("HOT_PATH_ONLY").unwrap_or_default();
    let finalize_only = only == "finalize";
    if only == "decode" {
        bench_decode_rows();
        return;
    }
    if only == "carry" {
        bench_carry();
        return;
    }
    if only == "calls" {
        bench_hip_calls();
        return;
    }
    if only == "annotations" {
        bench_capture_threads();
        bench_annotation_capture();
        bench_budget_charge();
        return;
    }
    let repeat: usize = std::env::var("HOT_PATH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    if !finalize_only {
        bench_capture_threads();
        bench_decode_rows();
    }
    // Join: N launches of which 1 in 16 is a graph launch of 64 dispatches.
    let sizes: &[u64] = if finalize_only {
        &[100_000]
    } else {
        &[10_000, 100_000]
    };
    for &launches in sizes {
        let (c, events) = synthetic_collection(launches);
        // The tool's own rule and knob, as for the write below.
        let (cfg, _) = rocprof_xplane::config::Config::parse(|k| std::env::var(k).ok(), 0);
        let threads = rocprof_xplane::output::join_threads(&cfg, &c);
        let t = Instant::now();
        let trace = join_on(black_box(c), threads);
        let dt = t.elapsed();
        println!(
            "join   {events:>9} events            {:>7.1} ns/event   total {:>7.1} ms  on {threads} thread(s)",
            dt.as_nanos() as f64 / events as f64,
            dt.as_secs_f64() * 1e3
        );
        for _ in 0..if finalize_only { repeat } else { 1 } {
            bench_export(&trace, events);
        }
        black_box(trace);
    }
    if finalize_only {
        return;
    }
    bench_carry();
    bench_annotation_capture();
    bench_budget_charge();
    println!(
        "sizes: ApiRecord {} B; KernelRecord {} B, stored {} B + its shape's table entry; CopyRecord {} B, stored {} B + table entry; joined: DeviceEvent {} B, HostEvent {} B",
        size_of::<ApiRecord>(),
        size_of::<KernelRecord>(),
        rocprof_xplane::store::packed::packed_size::<KernelRecord>(),
        size_of::<CopyRecord>(),
        rocprof_xplane::store::packed::packed_size::<CopyRecord>(),
        size_of::<rocprof_xplane::model::DeviceEvent>(),
        size_of::<rocprof_xplane::model::HostEvent>()
    );
}

/// A capture window's cut (`model::carry::hand_off`): the 600 k-event collection with
/// the kernels of its last tenth of launches not yet delivered, as when the GPU runs behind
/// the host; per record of the window (API, kernel and roctx records, and capture facts).
/// Each launch names one of 4 streams (`CallFact`), and every 16th is followed by an event
/// record on its stream and a wait on it from the next stream, so the stream-order rule
/// (`carry::hold_in_stream_order`) has streams, records and waits to hold. The records' and
/// waits' ids come after every launch's, so each one on a stream with a held launch is held
/// too: the dearest case for the rule.
fn bench_carry() {
    use rocprof_xplane::model::carry::{hand_off, HandedOn, Windows};
    use rocprof_xplane::model::events::{CallFact, SyncFact, SyncKind};
    let (mut c, _) = synthetic_collection(100_000);
    let stream = |corr: u64| 0x100 + corr % 4;
    let launches: Vec<u64> = c.api.iter().map(|a| a.correlation_id).collect();
    for &corr in &launches {
        c.calls.push(CallFact {
            correlation_id: corr,
            stream: stream(corr),
            device: 0,
            stream_seq: 0,
        });
        if corr % 16 == 0 {
            // Ids above the launches': the record and the wait come after this launch.
            let id = 1_000_000_000 + 2 * corr;
            let sync = |id, kind, stream| SyncFact {
                correlation_id: id,
                kind,
                event: corr % 8,
                stream,
                device: 0,
                stream_seq: 0,
            };
            c.syncs.push(sync(id, SyncKind::EventRecord, stream(corr)));
            c.syncs
                .push(sync(id + 1, SyncKind::StreamWaitEvent, stream(corr + 1)));
        }
    }
    let last = c.api.iter().map(|a| a.correlation_id).max().unwrap_or(0);
    let _late = c
        .kernels
        .split_where(|k| k.correlation_id > last - last / 10);
    let records = c.api.len()
        + c.kernels.len()
        + c.markers.len()
        + c.scopes.len()
        + c.calls.len()
        + c.syncs.len();
    let t = Instant::now();
    let held = hand_off(&mut c, &HandedOn::default(), Windows::Apart);
    let dt = t.elapsed();
    let handed = held.as_ref().map_or(0, |(h, _)| h.api.len());
    println!(
        "carry  {records:>9} records in a window, {handed} calls handed on {:>7.1} ns/record   total {:>7.1} ms",
        dt.as_nanos() as f64 / records as f64,
        dt.as_secs_f64() * 1e3
    );
    black_box((c, held));
    // Streams that wait on each other in a chain, at two sizes: the cost per record stays
    // flat (the stream-order rule settles each fact once, in correlation order).
    for launches in [25_000, 100_000] {
        let mut c = chained_window(launches);
        let records = c.api.len() + c.kernels.len() + c.calls.len() + c.syncs.len();
        let t = Instant::now();
        let held = hand_off(&mut c, &HandedOn::default(), Windows::Merged);
        let dt = t.elapsed();
        let handed = held.as_ref().map_or(0, |(h, _)| h.api.len());
        println!(
            "carry chain {records:>9} records in a window, {handed} calls handed on {:>7.1} ns/record   total {:>7.1} ms",
            dt.as_nanos() as f64 / records as f64,
            dt.as_secs_f64() * 1e3
        );
        black_box((c, held));
    }
    bench_carry_behind();
}

/// Windows cut while the device runs behind: each window brings `LAUNCHES` new launches (from
/// 4 threads, on 4 streams) and the kernels of the launches `BEHIND` calls before its last,
/// so each window takes in the `BEHIND` calls the window before handed on, reads them again
/// with its own, and hands the latest `BEHIND` on (after the first two, which only fill the
/// lag). Every 256th call is a `hipDeviceSynchronize` (no kernel), as a training step's. Per window after those: the records it reads (its own and those taken in) and the
/// time of its hand-off, taking in the carry included (`Collected::absorb`), as on the
/// writer's thread.
fn bench_carry_behind() {
    use rocprof_xplane::model::carry::{hand_off, HandedOn, Windows};
    use rocprof_xplane::model::events::{CallFact, SyncFact, SyncKind};
    const LAUNCHES: u64 = 300_000;
    const BEHIND: u64 = 600_000;
    const WINDOWS: u64 = 7;
    const DEVICE_SYNC: i32 = 300;
    let stream = |corr: u64| 0x100 + corr % 4;
    let device_sync = |id: u64| id % 256 == 0;
    let window = |w: u64| {
        let (mut c, _) = synthetic_collection(0);
        c.op_names.insert(
            (ApiDomain::Hip, DEVICE_SYNC),
            Arc::from("hipDeviceSynchronize"),
        );
        let first = w * LAUNCHES + 1;
        for id in first..first + LAUNCHES {
            let mut call = launch_call(id, id * 1_000, 7 + id % 4);
            if device_sync(id) {
                call.operation = DEVICE_SYNC;
                c.syncs.push(SyncFact {
                    correlation_id: id,
                    kind: SyncKind::DeviceSynchronize,
                    event: 0,
                    stream: 0,
                    device: 0,
                    stream_seq: 0,
                });
            }
            c.api.push(call);
        }
        // The launches' facts thread by thread, as the drain moves each thread's chunks.
        for thread in 0..4 {
            let launches = (first..first + LAUNCHES).filter(|&id| !device_sync(id));
            for id in launches.filter(|id| id % 4 == thread) {
                c.calls.push(CallFact {
                    correlation_id: id,
                    stream: stream(id),
                    device: 0,
                    stream_seq: 0,
                });
            }
        }
        // The kernels of the launches `BEHIND` before this window's: those of the window
        // before the one before.
        let done = (first + LAUNCHES).saturating_sub(BEHIND + 1);
        let kernels: Vec<KernelRecord> = (first.saturating_sub(BEHIND).max(1)..=done)
            .filter(|&id| !device_sync(id))
            .map(|id| launched_kernel(id, id * 1_000, 7 + id % 4, stream(id), id))
            .collect();
        c.kernels = kernels.into();
        c
    };
    let mut carry: Option<(Collected, HandedOn)> = None;
    let (mut records, mut steady) = (0usize, std::time::Duration::ZERO);
    let mut held_most = 0;
    for w in 0..WINDOWS {
        let mut c = window(w);
        let t = Instant::now();
        let carried_in = match carry.take() {
            Some((mut held, ids)) => {
                held.absorb(c);
                c = held;
                ids
            }
            None => HandedOn::default(),
        };
        let read = c.api.len() + c.kernels.len() + c.calls.len() + c.syncs.len();
        carry = hand_off(&mut c, &carried_in, Windows::Merged);
        let dt = t.elapsed();
        if w >= 2 {
            records += read;
            steady += dt;
            held_most = held_most.max(carry.as_ref().map_or(0, |(h, _)| h.api.len()));
        }
        black_box(c);
    }
    println!(
        "carry behind {records:>9} records in {} windows of {}k launches, up to {}k calls handed on {:>7.1} ns/record   {:>7.1} ms/window",
        WINDOWS - 2,
        LAUNCHES / 1000,
        held_most / 1000,
        steady.as_nanos() as f64 / records as f64,
        steady.as_secs_f64() * 1e3 / (WINDOWS - 2) as f64
    );
}

/// A window whose streams wait on each other in a chain: a new stream every 64 launches, the
/// last launch on each followed by an event record that the next stream waits on, and one
/// launch halfway whose kernel has not come. The stream-order rule then holds everything
/// after that launch, stream by stream along the chain: as many streams as it crosses.
fn chained_window(launches: u64) -> Collected {
    use rocprof_xplane::model::events::{CallFact, SyncFact, SyncKind};
    let (mut c, _) = synthetic_collection(0);
    let stream = |corr: u64| 0x100 + corr / 64;
    let mut kernels = Vec::new();
    for corr in 1..=launches {
        // Room between launches' ids for the records and waits after them.
        let id = 4 * corr;
        let t_ns = corr * 1_000;
        c.api.push(launch_call(id, t_ns, 7));
        c.calls.push(CallFact {
            correlation_id: id,
            stream: stream(corr),
            device: 0,
            stream_seq: 0,
        });
        if corr != launches / 2 {
            kernels.push(launched_kernel(id, t_ns, 7, stream(corr), corr));
        }
        if corr % 64 == 63 {
            let sync = |id, kind, stream| SyncFact {
                correlation_id: id,
                kind,
                event: corr,
                stream,
                device: 0,
                stream_seq: 0,
            };
            c.syncs
                .push(sync(id + 1, SyncKind::EventRecord, stream(corr)));
            c.syncs
                .push(sync(id + 2, SyncKind::StreamWaitEvent, stream(corr + 1)));
        }
    }
    c.kernels = kernels.into();
    c
}

/// The record of `hipLaunchKernel` call `id`, made at `t_ns` on thread `thread_id` and
/// returning 500 ns later.
fn launch_call(id: u64, t_ns: u64, thread_id: u64) -> ApiRecord {
    ApiRecord {
        domain: ApiDomain::Hip,
        operation: 214,
        correlation_id: id,
        external_id: 0,
        start_ns: t_ns,
        end_ns: t_ns + 500,
        thread_id,
    }
}

/// The kernel launch `id` (called at `t_ns`) ran on `queue`, from 600 to 900 ns after the
/// call: dispatch `dispatch_id`, one of 64 kernels.
fn launched_kernel(
    id: u64,
    t_ns: u64,
    thread_id: u64,
    queue: u64,
    dispatch_id: u64,
) -> KernelRecord {
    KernelRecord {
        correlation_id: id,
        external_id: 0,
        start_ns: t_ns + 600,
        end_ns: t_ns + 900,
        thread_id,
        agent: 1,
        queue,
        kernel_id: dispatch_id % 64,
        dispatch_id,
        private_segment_size: 0,
        group_segment_size: 0,
        workgroup: [256, 1, 1],
        grid: [65536, 1, 1],
        pipe_id: None,
    }
}

/// Decoding synthetic records of each kind in batches, as the buffer callback does.
fn bench_decode_rows() {
    // Kernel-dispatch records (184 B, same in every SDK version).
    let mut kernels: Vec<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t> = (0..BATCH)
        .map(|i| {
            // SAFETY: plain C struct.
            let mut r: sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t =
                unsafe { zeroed() };
            r.size = size_of::<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t>() as u64;
            r.kind = sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
            r.correlation_id.internal = i as u64;
            r.dispatch_info.size = 72;
            r.start_timestamp = i as u64 * 1000;
            r.end_timestamp = i as u64 * 1000 + 500;
            r
        })
        .collect();
    let hs: Vec<_> = kernels
        .iter_mut()
        .map(|r| header(sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, r))
        .collect();
    bench_decode("kernel dispatch (184 B)", Abi::V1, &hs, 4000);
    // The same records as several queues' buffers deliver them: consecutive records differ in
    // kernel and queue, so the store's shape memo misses and every record takes the hash lookup.
    for (i, r) in kernels.iter_mut().enumerate() {
        r.dispatch_info.kernel_id = (i % 61) as u64;
        r.dispatch_info.queue_id.handle = (i % 4) as u64;
        r.dispatch_info.grid_size.x = 256 << (i % 3);
    }
    let hs: Vec<_> = kernels
        .iter_mut()
        .map(|r| header(sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, r))
        .collect();
    bench_decode("kernel, shapes interleaved", Abi::V1, &hs, 4000);

    let mut apis: Vec<sys::rocprofiler_buffer_tracing_hip_api_record_v1_t> = (0..BATCH)
        .map(|i| {
            // SAFETY: plain C struct.
            let mut r: sys::rocprofiler_buffer_tracing_hip_api_record_v1_t = unsafe { zeroed() };
            r.size = 64;
            r.kind = sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
            r.operation = 214;
            r.correlation_id.internal = i as u64;
            r
        })
        .collect();
    let hs: Vec<_> = apis
        .iter_mut()
        .map(|r| header(sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, r))
        .collect();
    bench_decode("HIP API 1.x (64 B)", Abi::V1, &hs, 4000);

    let mut copies: Vec<sys::rocprofiler_buffer_tracing_memory_copy_record_v0_t> = (0..BATCH)
        .map(|_| {
            // SAFETY: plain C struct.
            let mut r: sys::rocprofiler_buffer_tracing_memory_copy_record_v0_t =
                unsafe { zeroed() };
            r.size = 80;
            r.kind = sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
            r
        })
        .collect();
    let hs: Vec<_> = copies
        .iter_mut()
        .map(|r| header(sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, r))
        .collect();
    bench_decode("memory copy 0.x (80 B)", Abi::V0, &hs, 4000);
}

/// `launches` launches of which 1 in 16 is a graph launch of 64 dispatches, and the number of
/// events they make.
fn synthetic_collection(launches: u64) -> (Collected, usize) {
    let mut c = Collected {
        agents: vec![AgentInfo {
            handle: 1,
            kind: AgentType::Gpu,
            type_index: 0,
            node_id: 1,
            name: "gfx942".into(),
            product_name: String::new(),
            vendor_name: String::new(),
            cu_count: 304,
            simd_per_cu: 4,
            wave_front_size: 64,
            max_waves_per_cu: 32,
            max_engine_clk_mhz: 2100,
            local_mem_bytes: 0,
            gfx_target_version: 90402,
        }],
        ..Collected::default()
    };
    c.op_names
        .insert((ApiDomain::Hip, 214), Arc::from("hipLaunchKernel"));
    c.op_names
        .insert((ApiDomain::Hip, 166), Arc::from("hipGraphLaunch"));
    for k in 0..64u64 {
        c.symbols.insert(
            k,
            KernelSymbol {
                name: Arc::from(format!("kernel_{k}")),
                sgpr_count: 0,
                arch_vgpr_count: 0,
                accum_vgpr_count: 0,
                group_segment_size: 0,
                private_segment_size: 0,
            },
        );
    }
    let mut t_ns = 0;
    let mut kernels = Vec::new();
    // A step-sized roctx context (two levels, an XLA-style `name#k=v#` inner level) around
    // every 16 launches, as a training step's launches share one: the two ranges' spans, and
    // each launch's innermost scope as the capture at API entry keeps it. Scope ids are the
    // pushes' correlation ids, above the launches' here.
    let mut open: Option<(u64, i64, u64)> = None;
    let close = |c: &mut Collected, (step, inner, start): (u64, i64, u64), end: u64| {
        let span = |label: String, scope: i64, parent: i64| MarkerSpan {
            label: Arc::from(label),
            thread_id: 7,
            open_correlation_id: scope as u64,
            close_correlation_id: scope as u64 + 2,
            start_ns: start,
            end_ns: end,
            scope_id: scope,
            parent_scope_id: parent,
            ..MarkerSpan::default()
        };
        c.markers
            .push(span(format!("train_step {step}"), inner - 1, 0));
        c.markers.push(span(
            format!(
                "fusion.{}#hlo_op=fusion.{},program_id=7#",
                step % 40,
                step % 40
            ),
            inner,
            inner - 1,
        ));
    };
    for corr in 1..=launches {
        if corr % 16 == 1 {
            if let Some(step) = open.take() {
                close(&mut c, step, t_ns);
            }
            let step = corr / 16;
            open = Some((step, (launches + 4 * step + 2) as i64, t_ns));
        }
        if let Some((_, inner, _)) = open {
            c.scopes.push((corr, inner));
        }
        let graph = corr % 16 == 0;
        c.api.push(ApiRecord {
            domain: ApiDomain::Hip,
            operation: if graph { 166 } else { 214 },
            correlation_id: corr,
            external_id: 0,
            start_ns: t_ns,
            end_ns: t_ns + 2_000,
            thread_id: 7 + corr % 4,
        });
        for d in 0..if graph { 64 } else { 1 } {
            t_ns += 1_000;
            kernels.push(KernelRecord {
                correlation_id: corr,
                external_id: 0,
                start_ns: t_ns,
                end_ns: t_ns + 900,
                thread_id: 7,
                agent: 1,
                queue: corr % 3,
                kernel_id: d,
                dispatch_id: t_ns,
                private_segment_size: 0,
                group_segment_size: 0,
                workgroup: [256, 1, 1],
                grid: [65536, 1, 1],
                pipe_id: None,
            });
        }
        if corr % 50 == 0 {
            c.copies.push(CopyRecord {
                correlation_id: 0,
                external_id: 0,
                start_ns: t_ns,
                end_ns: t_ns + 10,
                thread_id: 7,
                operation: 2,
                dst_agent: 1,
                src_agent: 0,
                bytes: 4096,
            });
        }
    }
    // Delivery order is not launch order: buffers of several queues interleave, so each
    // record lands up to a few hundred places from its sorted one (a fixed pseudo-random
    // shuffle within windows of 256; a fully reversed input would be one sorted run).
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for w in kernels.chunks_mut(256) {
        for i in (1..w.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            w.swap(i, (x % (i as u64 + 1)) as usize);
        }
    }
    if let Some(step) = open.take() {
        close(&mut c, step, t_ns);
    }
    c.api = c.api.iter().collect::<Vec<_>>().into_iter().rev().collect();
    c.kernels = kernels.into();
    let events = c.api.len() + c.kernels.len() + c.copies.len() + c.markers.len();
    (c, events)
}

/// The tool's own work per HIP call on the application thread, through its real `extern "C"`
/// edges (the callback-tracing trampoline and the external-correlation-id request) called the
/// way the SDK 1.x runtime calls them for one `hipLaunchKernel` on a created stream under an
/// open roctx range, in each subscription the tool can make:
///
/// * `table`: HIP API ENTER and EXIT only; the stream is read from the call's arguments
///   (the table of HIP operations).
/// * `table + request`: and the external-correlation-id request for the kernel it creates
///   (registered whenever `HIP_STREAM` or `HIP_GRAPH` is, SDK 1.3.0+).
/// * `table + HIP_STREAM`: and the runtime's `HIP_STREAM` SET ENTER/EXIT around the call,
///   through the trampoline the session registers for that kind (`hip_stream_callback_v1`).
/// * `…, no tool`: each of those, its records and calls made to callbacks that do nothing: the
///   bench's own cost per call (what a runtime pays to call any tool), which the row with the
///   tool includes; that row less this one is the tool's own part.
///
/// Each edge is called through a pointer, with records built once (only the correlation id
/// changes per call), as a runtime calls it; the capture is drained every 64 k calls on a
/// thread of its own, as a cut drains it on the tool's thread, so the calling thread reuses
/// the chunks freed there as it would in a run. No runtime is involved: the runtime's own
/// cost of dispatching each callback comes on top (more callbacks, more of it). Prints CPU-ns
/// per call (the calling threads' own CPU time) and the calling threads' minor page faults
/// per 1,000 calls (first touches of fresh memory, each a trap into the kernel and a page
/// zeroed: a fresh chunk's pages), at 1 and 16 threads; `HOT_PATH_CALL_MODE=<mode>` runs one row only. Under
/// callgrind (`HOT_PATH_CALLS=…`, one thread) the inclusive instructions of `calls_<mode>`
/// divided by the calls are the instructions per HIP call (`ci/bench-instructions.sh`), the
/// records the bench makes included; with `HOT_PATH_CALL_MODE=<mode>` (`table`,
/// `table_request`, `table_stream`, each with `_no_tool`) only that subscription runs, so the tool's
/// `extern "C"` edges' inclusive instructions are that subscription's alone.
fn bench_hip_calls() {
    let calls: u64 = std::env::var("HOT_PATH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if calls > 0 {
        let only = std::env::var("HOT_PATH_CALL_MODE").unwrap_or_default();
        // Fixed work, each subscription on a thread of its own (a thread's first registry is
        // its fast path): for instruction counts.
        for mode in CallMode::ALL
            .into_iter()
            .filter(|m| only.is_empty() || m.id() == only)
        {
            let tracer = call_tracer(mode);
            std::thread::spawn(move || run_calls(mode, tracer, 7, calls))
                .join()
                .unwrap();
        }
        return;
    }
    let mut line = String::from(
        "per HIP call through the tool's callbacks (CPU-ns; minor page faults per 1,000 calls):",
    );
    const TOTAL: u64 = 1_600_000;
    let only = std::env::var("HOT_PATH_CALL_MODE").unwrap_or_default();
    for mode in CallMode::ALL
        .into_iter()
        .filter(|m| only.is_empty() || m.id() == only)
    {
        line += &format!("  {}:", mode.name());
        for threads in [1u64, 16] {
            let tracer = call_tracer(mode);
            // Each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), summed: what the calls
            // cost, whatever else the shared machine runs meanwhile.
            let cpu = Arc::new([(); 2].map(|_| std::sync::atomic::AtomicU64::new(0)));
            let sum = Arc::clone(&cpu);
            cpu_ns_per_call(threads, TOTAL, move |t, calls, start| {
                // Warm the thread's slots (registration, first chunk) and its memory before
                // timing: a drain's worth of calls, whose chunks the drain frees for the timed
                // calls to reuse, as a run's calls reuse those of the windows before. (A run's
                // first windows touch fresh pages instead: the faults column shows them.)
                run_calls(mode, tracer, 100 + t, DRAIN_EVERY);
                start.wait();
                let (t0, f0) = (thread_cpu_ns(), thread_minor_faults());
                run_calls(mode, tracer, 100 + t, calls);
                let (t1, f1) = (thread_cpu_ns(), thread_minor_faults());
                sum[0].fetch_add(t1 - t0, std::sync::atomic::Ordering::Relaxed);
                sum[1].fetch_add(f1 - f0, std::sync::atomic::Ordering::Relaxed);
            });
            let [ns, faults] =
                [0, 1].map(|i| cpu[i].load(std::sync::atomic::Ordering::Relaxed) as f64);
            let (ns, faults) = (ns / TOTAL as f64, faults * 1000.0 / TOTAL as f64);
            line += &format!(" {threads} thread(s) {ns:.1} ({faults:.2})");
        }
    }
    println!("{line}");
    // The clock each call's record reads twice when the callbacks build it: the SDK's
    // `rocprofiler_get_timestamp` is `CLOCK_BOOTTIME`, which the tool reads itself here (no SDK).
    let clock = rocprof_xplane::sdk::Functions::from_process().clock();
    const READS: u64 = 2_000_000;
    let t0 = thread_cpu_ns();
    let sum = (0..READS).fold(0u64, |s, _| s.wrapping_add(black_box(clock).now()));
    black_box(sum);
    println!(
        "one clock read (CLOCK_BOOTTIME; a call's record built from its callbacks takes two): {:.1} CPU-ns",
        (thread_cpu_ns() - t0) as f64 / READS as f64
    );
}

/// This thread's minor page faults so far (first touches of fresh pages, counted by the kernel).
fn thread_minor_faults() -> u64 {
    // SAFETY: all-zero is a valid `rusage`.
    let mut ru: libc::rusage = unsafe { zeroed() };
    // SAFETY: getrusage writes one `rusage` through the valid pointer passed.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    ru.ru_minflt as u64
}

/// This thread's CPU time, in ns.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through the valid pointer passed.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Which callbacks the runtime makes per HIP call ([`bench_hip_calls`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallMode {
    Table,
    TableRequest,
    TableStream,
    /// Each of the above, its records and calls made to callbacks that do nothing: what the
    /// bench itself costs per call (the records it builds, the calls it makes), which a
    /// runtime pays too.
    TableNoTool,
    TableRequestNoTool,
    TableStreamNoTool,
    /// [`CallMode::Table`] with [`OPS_IN_TURN`] operations in turn, as a program's launches,
    /// copies, event records and waits come: no call's record repeats the one before's shared
    /// facts, so each looks its entry up in its thread's store.
    TableOps,
    TableOpsNoTool,
}

impl CallMode {
    const ALL: [CallMode; 8] = [
        CallMode::Table,
        CallMode::TableNoTool,
        CallMode::TableRequest,
        CallMode::TableRequestNoTool,
        CallMode::TableStream,
        CallMode::TableStreamNoTool,
        CallMode::TableOps,
        CallMode::TableOpsNoTool,
    ];

    /// The name `HOT_PATH_CALL_MODE` and the `calls_<mode>` functions give it.
    fn id(self) -> &'static str {
        match self {
            CallMode::Table => "table",
            CallMode::TableRequest => "table_request",
            CallMode::TableStream => "table_stream",
            CallMode::TableNoTool => "table_no_tool",
            CallMode::TableRequestNoTool => "table_request_no_tool",
            CallMode::TableStreamNoTool => "table_stream_no_tool",
            CallMode::TableOps => "table_ops",
            CallMode::TableOpsNoTool => "table_ops_no_tool",
        }
    }

    fn name(self) -> &'static str {
        match self {
            CallMode::Table => "table",
            CallMode::TableRequest => "table + request",
            CallMode::TableStream => "table + HIP_STREAM",
            CallMode::TableNoTool => "table, no tool",
            CallMode::TableRequestNoTool => "table + request, no tool",
            CallMode::TableStreamNoTool => "table + HIP_STREAM, no tool",
            CallMode::TableOps => "table, 4 operations in turn",
            CallMode::TableOpsNoTool => "table, 4 operations in turn, no tool",
        }
    }
}

/// The callback-tracing kind of `HIP_STREAM` under SDK 1.x.
const HIP_STREAM_KIND_V1: u32 = 20;
/// The operation id the bench gives `hipLaunchKernel`.
const LAUNCH_OP: i32 = 3;
/// Operations [`CallMode::TableOps`] calls in turn: ids from [`LAUNCH_OP`] on, each armed as
/// `hipLaunchKernel` (the same payload read; only the records' operations differ).
const OPS_IN_TURN: i32 = 4;

/// A tracer armed as a session subscribing `mode` would arm it (leaked: callbacks take a
/// `&'static Tracer`, as they do in the tool).
fn call_tracer(mode: CallMode) -> &'static rocprof_xplane::sdk::Tracer {
    use rocprof_xplane::decode::BufferKinds;
    use rocprof_xplane::sdk::callbacks::{CallbackKinds, Dispatch};
    let tracer: &'static _ = Box::leak(Box::default());
    let mut hip_ops = vec![None; (LAUNCH_OP + OPS_IN_TURN) as usize];
    for op in &mut hip_ops[LAUNCH_OP as usize..] {
        *op = rocprof_xplane::hip::lookup("hipLaunchKernel");
    }
    let mut kinds = CallbackKinds {
        hip_api: Some(sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API),
        marker_api: Some(sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API),
        ..Default::default()
    };
    if mode == CallMode::TableStream {
        kinds.hip_stream = Some(HIP_STREAM_KIND_V1);
    }
    rocprof_xplane::sdk::Tracer::arm(
        tracer,
        Dispatch {
            abi: Abi::V1,
            buffer_kinds: BufferKinds::default(),
            callback_kinds: kinds,
            hip_ops,
            buffers: Vec::new(),
            clock: rocprof_xplane::sdk::Functions::from_process().clock(),
            // As the tool's default: each call's record built from its ENTER and EXIT, timed
            // by the process's clock here (no SDK), two `clock_gettime` reads per call;
            // `HOT_PATH_RECORDS=buffer`: as `ROCPROF_XPLANE_HIP_API_RECORDS=buffer`, the
            // runtime's buffer holds them (its cost is not in this bench).
            api_from_callbacks: std::env::var("HOT_PATH_RECORDS").as_deref() != Ok("buffer"),
            // As the tool's default: each roctx call counted as a record built.
            roctx_from_callbacks: true,
        },
    );
    tracer
}

/// `calls` launches on thread `tid`'s own stream, the callbacks as `mode` has them.
fn run_calls(mode: CallMode, tracer: &'static rocprof_xplane::sdk::Tracer, tid: u64, calls: u64) {
    match mode {
        CallMode::Table => calls_table(tracer, tid, calls),
        CallMode::TableRequest => calls_table_request(tracer, tid, calls),
        CallMode::TableStream => calls_table_stream(tracer, tid, calls),
        CallMode::TableNoTool => calls_table_no_tool(tracer, tid, calls),
        CallMode::TableRequestNoTool => calls_table_request_no_tool(tracer, tid, calls),
        CallMode::TableStreamNoTool => calls_table_stream_no_tool(tracer, tid, calls),
        CallMode::TableOps => calls_table_ops(tracer, tid, calls),
        CallMode::TableOpsNoTool => calls_table_ops_no_tool(tracer, tid, calls),
    }
}

#[inline(never)]
fn calls_table(tracer: &'static rocprof_xplane::sdk::Tracer, tid: u64, calls: u64) {
    hip_calls(tracer, tid, calls, false, false, TOOL_EDGES, 1);
}

#[inline(never)]
fn calls_table_request(tracer: &'static rocprof_xplane::sdk::Tracer, tid: u64, calls: u64) {
    hip_calls(tracer, tid, calls, true, false, TOOL_EDGES, 1);
}

#[inline(never)]
fn calls_table_stream(tracer: &'static rocprof_xplane::sdk::Tracer, tid: u64, calls: u64) {
    hip_calls(tracer, tid, calls, true, true, TOOL_EDGES, 1);
}

#[inline(never)]
fn calls_table_no_tool(tracer: &'static rocprof_xplane::sdk::Tracer, tid: u64, calls: u64) {
    hip_calls(tracer, tid, calls, false, false, NO_EDGES, 1);
}

#[inline(never)]
fn calls_table_request_no_tool(tracer: &'static rocprof_xplane::sdk::Tracer, tid: u64, calls: u64) {
    hip_calls(tracer, tid, calls, true, false, NO_EDGES, 1);
}

#[inline(never)]
fn calls_table_stream_no_tool(tracer: &'static rocprof_xplane::sdk::Tracer, tid: u64, calls: u64) {
    hip_calls(tracer, tid, calls, true, true, NO_EDGES, 1);
}

#[inline(never)]
fn calls_table_ops(tracer: &'static rocprof_xplane::sdk::Tracer, tid: u64, calls: u64) {
    hip_calls(tracer, tid, calls, false, false, TOOL_EDGES, OPS_IN_TURN);
}

#[inline(never)]
fn calls_table_ops_no_tool(tracer: &'static rocprof_xplane::sdk::Tracer, tid: u64, calls: u64) {
    hip_calls(tracer, tid, calls, false, false, NO_EDGES, OPS_IN_TURN);
}

/// A callback-tracing callback under SDK 1.x.
type TracingEdge = unsafe extern "C" fn(
    sys::rocprofiler_callback_tracing_record_v1_t,
    *mut sys::rocprofiler_user_data_t,
    *mut std::ffi::c_void,
);
/// An external-correlation-id request callback.
type RequestEdge = unsafe extern "C" fn(
    sys::rocprofiler_thread_id_t,
    sys::rocprofiler_context_id_t,
    sys::rocprofiler_external_correlation_id_request_kind_t,
    sys::rocprofiler_tracing_operation_t,
    u64,
    *mut sys::rocprofiler_user_data_t,
    *mut std::ffi::c_void,
) -> i32;

/// The callbacks [`hip_calls`] makes, called through pointers as a runtime calls them.
#[derive(Clone, Copy)]
struct Edges {
    tracing: TracingEdge,
    hip_stream: TracingEdge,
    request: RequestEdge,
}

/// The tool's edges.
const TOOL_EDGES: Edges = Edges {
    tracing: rocprof_xplane::sdk::callbacks::tracing_callback_v1,
    hip_stream: rocprof_xplane::sdk::callbacks::hip_stream_callback_v1,
    request: rocprof_xplane::sdk::callbacks::external_id_request,
};

/// Callbacks that do nothing (the `…NoTool` modes of [`CallMode`]).
const NO_EDGES: Edges = Edges {
    tracing: no_tracing,
    hip_stream: no_tracing,
    request: no_request,
};

unsafe extern "C" fn no_tracing(
    _: sys::rocprofiler_callback_tracing_record_v1_t,
    _: *mut sys::rocprofiler_user_data_t,
    _: *mut std::ffi::c_void,
) {
}

unsafe extern "C" fn no_request(
    _: sys::rocprofiler_thread_id_t,
    _: sys::rocprofiler_context_id_t,
    _: sys::rocprofiler_external_correlation_id_request_kind_t,
    _: sys::rocprofiler_tracing_operation_t,
    _: u64,
    _: *mut sys::rocprofiler_user_data_t,
    _: *mut std::ffi::c_void,
) -> i32 {
    1
}

/// Calls between two drains of [`hip_calls`].
const DRAIN_EVERY: u64 = 65_536;

/// Drains a tracer's capture on a thread of its own, as the tool's cuts do, so that neither the
/// drain's work nor its page faults are counted on the calling threads ([`hip_calls`]): one
/// drain per request, the requests in order.
fn request_drain(tracer: &'static rocprof_xplane::sdk::Tracer) {
    use std::sync::mpsc::{channel, Sender};
    use std::sync::OnceLock;
    static DRAINER: OnceLock<Sender<&'static rocprof_xplane::sdk::Tracer>> = OnceLock::new();
    let tx = DRAINER.get_or_init(|| {
        let (tx, rx) = channel::<&'static rocprof_xplane::sdk::Tracer>();
        std::thread::spawn(move || {
            for tracer in rx {
                drop(tracer.recorder.capture().drain(0, true));
            }
        });
        tx
    });
    tx.send(tracer)
        .expect("the drainer runs as long as the bench");
}

/// The callbacks of `calls` `hipLaunchKernel`s on thread `tid` (ids from `tid << 32`), one
/// roctx range open around them, the records' operations taken in turn from `ops` ids
/// ([`OPS_IN_TURN`]; 1: every call the same); asks for a drain of the capture every 64 k
/// calls, as cuts would, so the state held stays bounded: made on another thread
/// ([`request_drain`]), it frees the chunks the calling thread filled there, as a cut's join
/// does.
#[inline(always)]
fn hip_calls(
    tracer: &'static rocprof_xplane::sdk::Tracer,
    tid: u64,
    calls: u64,
    request: bool,
    stream_brackets: bool,
    edges: Edges,
    ops: i32,
) {
    // Through pointers the compiler cannot see: each edge is called as the runtime calls it,
    // its record built and passed whatever the callee does with it.
    let Edges {
        tracing: tracing_callback_v1,
        hip_stream: hip_stream_callback_v1,
        request: external_id_request,
    } = black_box(edges);
    let data = tracer as *const _ as *mut std::ffi::c_void;
    let stream = 0x7f00_0000_0000 + (tid << 12);
    let record = |kind: u32, op: i32, phase: u32, corr: u64, payload: *mut std::ffi::c_void| {
        // SAFETY: all-zero is a valid record; the fields the tool reads are set below.
        let mut r: sys::rocprofiler_callback_tracing_record_v1_t = unsafe { zeroed() };
        r.thread_id = tid;
        r.correlation_id.internal = corr;
        r.kind = kind;
        r.operation = op;
        r.phase = phase;
        r.payload = payload;
        r
    };
    // SAFETY: all-zero is a valid payload; size and the stream argument are set.
    let mut api: sys::rocprofiler_callback_tracing_hip_api_data_t = unsafe { zeroed() };
    api.size = size_of::<sys::rocprofiler_callback_tracing_hip_api_data_t>() as u64;
    api.args.hipLaunchKernel.stream = stream as sys::hipStream_t;
    let mut set = sys::rocprofiler_callback_tracing_hip_stream_data_t {
        size: size_of::<sys::rocprofiler_callback_tracing_hip_stream_data_t>() as u64,
        stream_id: sys::rocprofiler_stream_id_t { handle: 1 },
        stream_value: sys::rocprofiler_address_t { handle: stream },
    };
    let api_p = &mut api as *mut _ as *mut std::ffi::c_void;
    let set_p = &mut set as *mut _ as *mut std::ffi::c_void;
    let (enter, exit) = (
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
    );
    let hip = sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
    let set_op = sys::ROCPROFILER_HIP_STREAM_SET as i32;
    let base = tid << 32;
    {
        use rocprof_xplane::capture::markers::{MarkerCall, MarkerOp};
        tracer.recorder.capture().on_marker(&MarkerCall {
            op: MarkerOp::RangePush,
            enter: true,
            thread_id: tid,
            correlation_id: base,
            timestamp_ns: 1,
            label: Some(rocprof_xplane::sdk::payload::Message::new(
                c"Thunk:#hlo_op=fusion.1#",
            )),
            stop_id: 0,
            start_retval: 0,
        });
    }
    // The records built once: per call only the API records' correlation id changes (a
    // runtime fills its records as it goes; building them whole here would be the bench's
    // cost counted as the tool's).
    let (set_enter, set_exit) = (
        record(HIP_STREAM_KIND_V1, set_op, enter, 0, set_p),
        record(HIP_STREAM_KIND_V1, set_op, exit, 0, set_p),
    );
    let (mut api_enter, mut api_exit) = (
        record(hip, LAUNCH_OP, enter, 0, api_p),
        record(hip, LAUNCH_OP, exit, 0, api_p),
    );
    // The call's user-data slot, which the runtime passes to its ENTER and its EXIT.
    let mut user = sys::rocprofiler_user_data_t { value: 0 };
    let user_p: *mut sys::rocprofiler_user_data_t = &mut user;
    for i in 0..calls {
        let corr = base | (i + 1);
        api_enter.correlation_id.internal = corr;
        api_exit.correlation_id.internal = corr;
        if ops > 1 {
            let op = LAUNCH_OP + (i % ops as u64) as i32;
            (api_enter.operation, api_exit.operation) = (op, op);
        }
        // SAFETY: a u64 written into a plain 8-byte union (a runtime zeroes it per call).
        unsafe { (*user_p).value = 0 };
        // SAFETY: records and payloads as the runtime passes them, valid for each call; `data`
        // is the armed tracer.
        unsafe {
            if stream_brackets {
                hip_stream_callback_v1(set_enter, std::ptr::null_mut(), data);
            }
            tracing_callback_v1(api_enter, user_p, data);
            if request {
                external_id_request(
                    tid,
                    sys::rocprofiler_context_id_t { handle: 1 },
                    sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
                    0,
                    corr,
                    std::ptr::null_mut(),
                    data,
                );
            }
            tracing_callback_v1(api_exit, user_p, data);
            if stream_brackets {
                hip_stream_callback_v1(set_exit, std::ptr::null_mut(), data);
            }
        }
        if i % DRAIN_EVERY == DRAIN_EVERY - 1 {
            request_drain(tracer);
        }
    }
}
