//! Regression guard for the hot paths that is not a timer: heap allocations counted
//! per record. The buffer callback's decode and the capture at HIP API entry must allocate
//! nothing per record once their current chunk has room (a chunk of 4,096 events is allocated
//! once per 4,096). A counting global allocator, per thread, so other test threads do not count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::mem::{size_of, zeroed};
use std::sync::Arc;

use rocprof_xplane::capture::thread::OpenRange;
use rocprof_xplane::capture::ThreadState;
use rocprof_xplane::decode::{decode_batch, BufferKinds};
use rocprof_xplane::sdk::Abi;
use rocprof_xplane::store::EventStore;
use rocprofiler_sdk_sys as sys;

mod support;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the counter is a const-initialised thread-local
// `Cell` (no allocation, no re-entrancy).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = ALLOCS.with(Cell::get);
    f();
    ALLOCS.with(Cell::get) - before
}

fn header<T>(kind: u32, payload: &mut T) -> sys::rocprofiler_record_header_t {
    // SAFETY: plain C header; all-zero is valid.
    let mut h: sys::rocprofiler_record_header_t = unsafe { zeroed() };
    h.__bindgen_anon_1.hash =
        u64::from(sys::ROCPROFILER_BUFFER_CATEGORY_TRACING) | (u64::from(kind) << 32);
    h.payload = payload as *mut T as *mut std::ffi::c_void;
    h
}

#[test]
fn decoding_a_delivery_allocates_nothing_per_record() {
    const N: usize = 512;
    let mut kernels: Vec<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t> = (0..N)
        .map(|i| {
            // SAFETY: plain C struct.
            let mut r: sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t =
                unsafe { zeroed() };
            r.size = size_of::<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t>() as u64;
            r.kind = sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
            r.correlation_id.internal = i as u64 + 1;
            r.dispatch_info.size = 72;
            r.start_timestamp = 1000 + i as u64;
            r.end_timestamp = 2000 + i as u64;
            r
        })
        .collect();
    let mut apis: Vec<sys::rocprofiler_buffer_tracing_hip_api_record_v1_t> = (0..N)
        .map(|i| {
            // SAFETY: plain C struct.
            let mut r: sys::rocprofiler_buffer_tracing_hip_api_record_v1_t = unsafe { zeroed() };
            r.size = size_of::<sys::rocprofiler_buffer_tracing_hip_api_record_v1_t>() as u64;
            r.kind = sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
            r.correlation_id.internal = i as u64 + 1;
            r
        })
        .collect();
    let mut hs: Vec<sys::rocprofiler_record_header_t> = kernels
        .iter_mut()
        .map(|r| header(sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, r))
        .collect();
    hs.extend(
        apis.iter_mut()
            .map(|r| header(sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, r)),
    );
    let ptrs: Vec<*const sys::rocprofiler_record_header_t> =
        hs.iter().map(|h| h as *const _).collect();
    let kinds = BufferKinds {
        hip_api: Some(sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API),
        kernel_dispatch: Some(sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH),
        ..BufferKinds::default()
    };
    let mut store = EventStore::default();
    let decode = |store: &mut EventStore, n: usize| {
        // SAFETY: every header points to a live record of the size its `size` field states.
        unsafe { decode_batch(Abi::V1, &kinds, ptrs.as_ptr(), n, 0, store) };
    };
    // The first deliveries allocate each store's chunk list, table of shared facts and its
    // lookup map, and chunks doubling from 16 records: 2,048 records of each kind fill chunks
    // of 16 to 1,024 and start one of 2,048.
    let warm = allocations_in(|| {
        for _ in 0..4 {
            decode(&mut store, ptrs.len());
        }
    });
    assert!(warm <= 32, "{warm} allocations to start the stores");
    // Three more deliveries (3,072 records) fit in that chunk: nothing allocated.
    let hot = allocations_in(|| {
        for _ in 0..3 {
            decode(&mut store, ptrs.len());
        }
    });
    assert_eq!(
        hot, 0,
        "allocations while decoding 3,072 records into chunks with room"
    );
    // Over many chunks: one allocation per 4,096 records per kind, plus the chunk list.
    let records = 64 * ptrs.len() as u64;
    let many = allocations_in(|| {
        for _ in 0..64 {
            decode(&mut store, ptrs.len());
        }
    });
    let per = many as f64 / records as f64;
    eprintln!("decode: {many} allocations for {records} records ({per:.5} per record)");
    assert!(per < 0.001, "{per} allocations per record");
}

#[test]
fn capturing_at_hip_entry_allocates_nothing_per_call() {
    let mut t = ThreadState::default();
    t.push_range(OpenRange {
        label: Arc::from("train step"),
        correlation_id: 1,
        start_ns: 1,
        scope_id: 0,
        parent_scope_id: 0,
    });
    t.push_range(OpenRange {
        label: Arc::from("XlaModule:#hlo_module=m#"),
        correlation_id: 2,
        start_ns: 2,
        scope_id: 0,
        parent_scope_id: 0,
    });
    // The first captures build the shared snapshot and the first chunks: a thread's chunks
    // double from 16 entries to 1,024 (1,008 entries in the first six).
    let warm = allocations_in(|| {
        for c in 3..1011 {
            t.capture_at_api_enter(c);
        }
    });
    assert!(warm <= 12, "{warm} allocations for the first captures");
    let hot = allocations_in(|| {
        for c in 1011..1011 + 1024 {
            t.capture_at_api_enter(c);
        }
    });
    assert_eq!(
        hot, 1,
        "allocations while capturing 1,024 HIP calls under one stack: one chunk"
    );
}

/// A roctx range around every call (the 200 k-launch storm's shape: push, two launches, pop),
/// through the marker callbacks' own path: nothing is allocated per range once the thread's
/// chunks have room. A push that allocated the call's annotation (a 64 B `Arc`, held to the
/// end) would count here as one allocation per range.
#[test]
fn a_range_around_every_call_allocates_nothing_per_range() {
    use rocprof_xplane::capture::markers::MarkerCall;
    use rocprof_xplane::capture::{Capture, MarkerOp};
    use rocprof_xplane::sdk::payload::Message;
    std::thread::spawn(|| {
        let c = Capture::default();
        let tid = 4242;
        let mut corr = 0u64;
        let mut step = |n: u64| {
            for _ in 0..n {
                let call = |op, enter, corr, label| MarkerCall {
                    op,
                    enter,
                    thread_id: tid,
                    correlation_id: corr,
                    timestamp_ns: corr * 10,
                    label,
                    stop_id: 0,
                    start_retval: 0,
                };
                corr += 4;
                c.on_marker(&call(
                    MarkerOp::RangePush,
                    true,
                    corr,
                    Some(Message::new(c"step")),
                ));
                c.with_current(tid, |t| {
                    t.capture_at_api_enter(corr + 1);
                    t.capture_at_api_enter(corr + 2);
                });
                c.on_marker(&call(MarkerOp::RangePop, false, corr + 3, None));
            }
        };
        // The thread's registration, its label and its first chunks (doubling from 16 to
        // 1,024 entries).
        let warm = allocations_in(|| step(1008));
        assert!(warm <= 40, "{warm} allocations for the first ranges");
        let hot = allocations_in(|| step(512));
        assert!(
            hot <= 3,
            "{hot} allocations for 512 ranges of two calls each: a chunk per 1,024 entries"
        );
    })
    .join()
    .unwrap();
}

/// The allocations building and encoding `trace`'s planes takes, and the bytes they encode to.
fn building_planes(trace: &rocprof_xplane::model::Trace) -> (u64, usize) {
    let mut bytes = 0usize;
    let allocations = allocations_in(|| {
        rocprof_xplane::xplane::build_planes(trace, |p| {
            bytes += p.encoded_len();
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap();
    });
    (allocations, bytes)
}

/// Building and encoding the planes allocates nothing per event: events and their stats are
/// written straight to the line's bytes, which grow by doubling or to their announced count.
/// A vector of stat structs built per event would be at least one allocation per event, and
/// fails this.
#[test]
fn encoding_events_allocates_nothing_per_event() {
    let encode = |n| {
        let (allocations, bytes) = building_planes(&support::synthetic::launches(n));
        assert!(bytes > 60 * n as usize, "{n} launches encoded in {bytes} B");
        allocations
    };
    let (small, large) = (encode(2_000), encode(16_000));
    println!("allocations building and encoding the planes: {small} for 2,000 launches, {large} for 16,000");
    assert!(
        large - small < 64,
        "{small} allocations for 2,000 launches, {large} for 16,000: {} per extra event",
        (large - small) as f64 / 14_000.0
    );
}

/// The anchors of the sync dependencies (a record anchor and a wait anchor per flow, written
/// among a line's events) allocate nothing per anchor either: an anchor that built its two
/// stats in a new buffer would take one or two allocations each, and fails this.
#[test]
fn writing_dependency_anchors_allocates_nothing_per_anchor() {
    use rocprof_xplane::model::{Anchor, AnchorPlace, DependencyFlow};
    let encode = |n: u64| {
        let mut trace = support::synthetic::launches(n);
        // Kernel i waits on kernel i - 1 through an event: an arrow from its end to i's start,
        // both on the stream's line, and one from the host's wait call.
        trace.dependency_flows = (2..=n)
            .flat_map(|i| {
                let from = Anchor::on_device(0, 0, 1_000 + (i - 1) * 100 + 90);
                [
                    DependencyFlow {
                        id: 2 * i,
                        wait_correlation_id: i,
                        record_correlation_id: i - 1,
                        from,
                        to: Anchor::on_device(0, 0, 1_000 + i * 100),
                    },
                    DependencyFlow {
                        id: 2 * i + 1,
                        wait_correlation_id: i,
                        record_correlation_id: i - 1,
                        from,
                        to: Anchor {
                            place: AnchorPlace::Host { tid: 7 },
                            time_ns: 900 + i * 100,
                        },
                    },
                ]
            })
            .collect();
        let (allocations, bytes) = building_planes(&trace);
        // Four anchors per launch besides its two events.
        assert!(
            bytes > 120 * n as usize,
            "{n} launches encoded in {bytes} B"
        );
        allocations
    };
    let (small, large) = (encode(2_000), encode(16_000));
    println!(
        "allocations building planes with anchors: {small} for 2,000 launches, {large} for 16,000"
    );
    assert!(
        large - small < 64,
        "{small} allocations for 2,000 launches, {large} for 16,000: {} per extra anchor",
        (large - small) as f64 / 56_000.0
    );
}

/// A HIP call through the tool's own `extern "C"` edges, as an SDK 1.x runtime makes it with
/// every callback the tool subscribes to by default: `HIP_STREAM` SET ENTER, HIP API ENTER, the
/// external-correlation-id request of its kernel, HIP API EXIT (which builds the call's record),
/// SET EXIT. Nothing is allocated per call once the thread's chunks have room (a chunk per
/// thousand calls).
#[test]
fn a_hip_call_through_the_callbacks_allocates_nothing_per_call() {
    use rocprof_xplane::capture::markers::{MarkerCall, MarkerOp};
    use rocprof_xplane::sdk::callbacks::{
        external_id_request, hip_stream_callback_v1, tracing_callback_v1, CallbackKinds, Dispatch,
        Tracer,
    };
    use rocprof_xplane::sdk::payload::Message;
    use std::ffi::c_void;
    const HIP_STREAM_KIND_V1: u32 = 20;
    const LAUNCH: i32 = 3;
    let tracer: &'static Tracer = Box::leak(Box::default());
    let mut hip_ops = vec![None; LAUNCH as usize + 1];
    hip_ops[LAUNCH as usize] = rocprof_xplane::hip::lookup("hipLaunchKernel");
    tracer.arm(Dispatch {
        abi: Abi::V1,
        buffer_kinds: BufferKinds::default(),
        callback_kinds: CallbackKinds {
            hip_api: Some(sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API),
            hip_stream: Some(HIP_STREAM_KIND_V1),
            ..Default::default()
        },
        hip_ops,
        buffers: Vec::new(),
        clock: rocprof_xplane::sdk::Functions::from_process().clock(),
        // The default: each call's record built from its ENTER and EXIT.
        api_from_callbacks: true,
        // The default: each roctx call counted as a record built.
        roctx_from_callbacks: true,
    });
    let tid = 77;
    let stream = 0x7f00_0000_1000u64;
    tracer.recorder.capture().on_marker(&MarkerCall {
        op: MarkerOp::RangePush,
        enter: true,
        thread_id: tid,
        correlation_id: 1,
        timestamp_ns: 1,
        label: Some(Message::new(c"step")),
        stop_id: 0,
        start_retval: 0,
    });
    // SAFETY: plain C structs; all-zero is valid.
    let mut api: sys::rocprofiler_callback_tracing_hip_api_data_t = unsafe { zeroed() };
    api.size = size_of::<sys::rocprofiler_callback_tracing_hip_api_data_t>() as u64;
    api.args.hipLaunchKernel.stream = stream as sys::hipStream_t;
    let mut set = sys::rocprofiler_callback_tracing_hip_stream_data_t {
        size: size_of::<sys::rocprofiler_callback_tracing_hip_stream_data_t>() as u64,
        stream_id: sys::rocprofiler_stream_id_t { handle: 1 },
        stream_value: sys::rocprofiler_address_t { handle: stream },
    };
    let (api_p, set_p) = (
        &mut api as *mut _ as *mut c_void,
        &mut set as *mut _ as *mut c_void,
    );
    let data = tracer as *const Tracer as *mut c_void;
    // The call's user-data slot, which the runtime passes to its ENTER and its EXIT.
    let user: *mut sys::rocprofiler_user_data_t =
        Box::leak(Box::new(sys::rocprofiler_user_data_t { value: 0 }));
    let callback = |kind: u32, op: i32, phase: u32, corr: u64, payload: *mut c_void| {
        // SAFETY: all-zero is a valid record; the fields the tool reads are set.
        let mut r: sys::rocprofiler_callback_tracing_record_v1_t = unsafe { zeroed() };
        r.thread_id = tid;
        r.correlation_id.internal = corr;
        r.kind = kind;
        r.operation = op;
        r.phase = phase;
        r.payload = payload;
        // SAFETY: a record and payload as the runtime passes them, valid for the call; `data`
        // is the armed tracer. Each kind through the trampoline the session registers for it.
        unsafe {
            if kind == HIP_STREAM_KIND_V1 {
                hip_stream_callback_v1(r, std::ptr::null_mut(), data)
            } else {
                tracing_callback_v1(r, user, data)
            }
        };
    };
    let (enter, exit) = (
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
    );
    let hip = sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
    let set_op = sys::ROCPROFILER_HIP_STREAM_SET as i32;
    let call = |corr: u64| {
        callback(HIP_STREAM_KIND_V1, set_op, enter, 0, set_p);
        callback(hip, LAUNCH, enter, corr, api_p);
        // SAFETY: as the runtime calls it, with no out-parameter; `data` is the armed tracer.
        unsafe {
            external_id_request(
                tid,
                sys::rocprofiler_context_id_t { handle: 1 },
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
                0,
                corr,
                std::ptr::null_mut(),
                data,
            )
        };
        callback(hip, LAUNCH, exit, corr, api_p);
        callback(HIP_STREAM_KIND_V1, set_op, exit, 0, set_p);
    };
    // The first calls register the thread and grow its first chunks.
    let warm = allocations_in(|| (2..2050).for_each(call));
    assert!(warm <= 64, "{warm} allocations for the first calls");
    let hot = allocations_in(|| (2050..2050 + 1024).for_each(call));
    assert!(
        hot <= 4,
        "{hot} allocations for 1,024 HIP calls through the callbacks: a chunk or two"
    );
    let drained = tracer.recorder.capture().drain(0, true);
    assert_eq!(
        (drained.calls.len(), drained.api.len()),
        (2048 + 1024, 2048 + 1024),
        "each call's fact and record kept"
    );
}
