use super::*;
use crate::model::events::ApiDomain;

fn armed(kinds: CallbackKinds) -> Armed {
    Armed::new(Dispatch {
        abi: Abi::V1,
        buffer_kinds: BufferKinds::default(),
        callback_kinds: kinds,
        hip_ops: Vec::new(),
        buffers: Vec::new(),
        clock: Functions::from_process().clock(),
        api_from_callbacks: false,
        roctx_from_callbacks: false,
    })
}

/// The fast paths' one-compare routes agree with the route table for every kind.
fn fast_routes_agree(a: &Armed) {
    for k in (0..64).chain([MAX_ROUTED_KIND, u32::MAX]) {
        for (fast, route) in [
            (FastRoute::HipApi, Route::HipApi),
            (FastRoute::HipStream, Route::HipStream),
            (FastRoute::Marker, Route::Marker),
        ] {
            assert_eq!(a.routes_to(k, fast), a.route(k) == route, "kind {k}");
        }
    }
}

#[test]
fn each_kind_routes_to_its_service_and_others_are_ignored() {
    let a = armed(CallbackKinds {
        hip_api: Some(2),
        marker_api: Some(4),
        code_object: Some(1),
        hip_stream: Some(20),
        hip_graph: Some(30),
    });
    assert_eq!(a.route(2), Route::HipApi);
    assert_eq!(a.route(4), Route::Marker);
    assert_eq!(a.route(1), Route::CodeObject);
    assert_eq!(a.route(20), Route::HipStream);
    assert_eq!(a.route(30), Route::HipGraph);
    for other in [0, 3, 19, 21, 31, u32::MAX] {
        assert_eq!(a.route(other), Route::Ignore, "kind {other}");
    }
    fast_routes_agree(&a);
    // Nothing configured: every kind is ignored.
    let none = armed(CallbackKinds::default());
    assert!((0..64).all(|k| none.route(k) == Route::Ignore));
    fast_routes_agree(&none);
}

#[test]
fn a_kind_named_for_two_services_goes_to_the_first_and_huge_kinds_nowhere() {
    // The order a chain of checks had: HIP API, HIP stream, marker, code object, graph.
    let a = armed(CallbackKinds {
        hip_api: Some(5),
        hip_stream: Some(5),
        marker_api: Some(6),
        hip_graph: Some(6),
        code_object: Some(MAX_ROUTED_KIND),
    });
    assert_eq!(a.route(5), Route::HipApi);
    assert_eq!(a.route(6), Route::Marker);
    assert_eq!(a.route(MAX_ROUTED_KIND), Route::Ignore);
    assert!(a.routes.len() <= 7, "the table spans the kinds configured");
    fast_routes_agree(&a);
    // HIP stream named for the HIP API's kind: no kind is its fast route.
    assert!(!(0..64).any(|k| a.routes_to(k, FastRoute::HipStream)));
}

/// The operation id and HIP_STREAM kind the fast-path tests arm.
const LAUNCH_OP: i32 = 3;
const STREAM_KIND: u32 = 20;

/// A tracer armed for the HIP API callbacks of operation `op` (the HIP function `name`), and
/// `HIP_STREAM` at `hip_stream`, each call's record built from its callbacks, leaked as the
/// tool's is.
fn hip_api_tracer(op: i32, name: &str, hip_stream: Option<u32>, clock: Clock) -> &'static Tracer {
    let t: &'static Tracer = Box::leak(Box::default());
    let mut hip_ops = vec![None; op as usize + 1];
    hip_ops[op as usize] = crate::hip::lookup(name);
    t.arm(Dispatch {
        abi: Abi::V1,
        buffer_kinds: BufferKinds::default(),
        callback_kinds: CallbackKinds {
            hip_api: Some(sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API),
            hip_stream,
            ..Default::default()
        },
        hip_ops,
        buffers: Vec::new(),
        clock,
        api_from_callbacks: true,
        roctx_from_callbacks: false,
    });
    t
}

/// A tracer armed for `hipLaunchKernel` (operation [`LAUNCH_OP`]) and `HIP_STREAM`
/// ([`STREAM_KIND`]).
fn launch_tracer() -> &'static Tracer {
    let clock = Functions::from_process().clock();
    hip_api_tracer(LAUNCH_OP, "hipLaunchKernel", Some(STREAM_KIND), clock)
}

/// The roctx callback kind the marker tests arm.
const MARKER_KIND: u32 = 4;

/// A tracer armed for roctx callbacks ([`MARKER_KIND`]) only, leaked as the tool's is.
fn marker_tracer() -> &'static Tracer {
    let t: &'static Tracer = Box::leak(Box::default());
    t.arm(Dispatch {
        abi: Abi::V1,
        buffer_kinds: BufferKinds::default(),
        callback_kinds: CallbackKinds {
            marker_api: Some(MARKER_KIND),
            ..Default::default()
        },
        hip_ops: Vec::new(),
        buffers: Vec::new(),
        clock: Functions::from_process().clock(),
        api_from_callbacks: false,
        roctx_from_callbacks: false,
    });
    t
}

/// An SDK 1.x record of thread 9, as the runtime passes it.
fn record_v1(
    kind: u32,
    operation: i32,
    phase: u32,
    correlation_id: u64,
    payload: *mut c_void,
) -> sys::rocprofiler_callback_tracing_record_v1_t {
    // SAFETY: all-zero is a valid record; the fields the tool reads are set below.
    let mut r: sys::rocprofiler_callback_tracing_record_v1_t = unsafe { std::mem::zeroed() };
    r.thread_id = 9;
    r.correlation_id.internal = correlation_id;
    r.kind = kind;
    r.operation = operation;
    r.phase = phase;
    r.payload = payload;
    r
}

/// A roctx callback at the phase its operation does not act in (a push's EXIT, a pop's
/// ENTER) is declined from the record: its payload is not read, so even a null one is not
/// counted as bad; at the phase it acts in, the same null payload is.
#[test]
fn a_marker_callback_at_its_other_phase_reads_no_payload() {
    for edge in [Edge::General, Edge::Marker] {
        let t = marker_tracer();
        let data = t as *const Tracer as *mut c_void;
        let (push, pop) = (1, 2);
        let (enter, exit) = (
            sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
            sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
        );
        for (op, phase) in [(push, exit), (pop, enter)] {
            let r = record_v1(MARKER_KIND, op, phase, 1, std::ptr::null_mut());
            // SAFETY: a record of the configured marker kind; its payload is never read.
            unsafe { trampoline_v1(edge)(r, std::ptr::null_mut(), data) };
        }
        assert_eq!(t.recorder.take_bad_payloads(), 0, "{edge:?}");
        let r = record_v1(MARKER_KIND, push, enter, 1, std::ptr::null_mut());
        // SAFETY: a null payload, which the tool checks before reading.
        unsafe { trampoline_v1(edge)(r, std::ptr::null_mut(), data) };
        assert_eq!(t.recorder.take_bad_payloads(), 1, "{edge:?}");
    }
}

/// The SDK 1.x trampoline `edge` registers.
fn trampoline_v1(edge: Edge) -> Trampoline<sys::rocprofiler_callback_tracing_record_v1_t> {
    match edge {
        Edge::General => tracing_callback_v1,
        Edge::HipStream => hip_stream_callback_v1,
        Edge::Marker => marker_callback_v1,
    }
}

/// roctx callbacks through the general trampoline and the roctx one, untimed (the marker
/// path, mostly before the guard) and self-timed (the guarded path), record the same ranges and
/// marks: labels, ids and scopes (the times are the process clock's, taken per call).
#[test]
fn roctx_callbacks_record_the_same_untimed_and_timed() {
    type Data = sys::rocprofiler_callback_tracing_marker_api_data_t;
    let run = |timed: bool, edge: Edge| {
        std::thread::spawn(move || {
            let t = marker_tracer();
            if timed {
                t.recorder.time_callbacks();
            }
            let data = t as *const Tracer as *mut c_void;
            let (mark, push, pop) = (0, 1, 2);
            let labels = [c"step", c"fwd", c"step", c"", c"step"];
            let mut corr = 0;
            let mut callback = |op: i32, label: Option<&std::ffi::CStr>| {
                corr += 1;
                for phase in [
                    sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
                    sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
                ] {
                    // SAFETY: all-zero is a valid payload; its size and message are set.
                    let mut d: Data = unsafe { std::mem::zeroed() };
                    d.size = std::mem::size_of::<Data>() as u64;
                    d.args.roctxRangePushA.message = label.map_or(std::ptr::null(), |l| l.as_ptr());
                    let p = &mut d as *mut Data as *mut c_void;
                    let r = record_v1(MARKER_KIND, op, phase, corr, p);
                    // SAFETY: a marker record, its payload and message valid meanwhile.
                    unsafe { trampoline_v1(edge)(r, std::ptr::null_mut(), data) };
                }
            };
            for round in 0..40 {
                callback(push, Some(labels[round % labels.len()]));
                callback(push, Some(c"inner"));
                callback(mark, Some(labels[(round + 1) % labels.len()]));
                callback(pop, None);
                callback(pop, None);
                if round % 7 == 0 {
                    callback(pop, None);
                }
            }
            callback(push, None);
            let d = t.recorder.capture().drain(0, false);
            let spans: Vec<_> = d
                .markers
                .iter()
                .map(|m| {
                    (
                        m.label.to_string(),
                        m.open_correlation_id,
                        m.close_correlation_id,
                        m.scope_id,
                        m.parent_scope_id,
                        m.instant,
                    )
                })
                .collect();
            (spans, d.unmatched_pops, t.recorder.take_bad_payloads())
        })
        .join()
        .unwrap()
    };
    let untimed = run(false, Edge::General);
    assert_eq!(untimed, run(true, Edge::General));
    assert_eq!(untimed, run(false, Edge::Marker));
    assert_eq!(untimed, run(true, Edge::Marker));
    assert_eq!(untimed.0.len(), 40 * 3 + 1);
    assert_eq!((untimed.1, untimed.2), (6, 0));
}

/// A record of another kind reaching the roctx trampoline (a kind the SDK named for two
/// services) goes where its route says, as through the general trampoline: a launch's ENTER and
/// EXIT there write the launch's fact.
#[test]
fn the_roctx_trampoline_hands_other_kinds_to_the_general_path() {
    std::thread::spawn(|| {
        type Api = sys::rocprofiler_callback_tracing_hip_api_data_t;
        let t = launch_tracer();
        let data = t as *const Tracer as *mut c_void;
        // SAFETY: all-zero is a valid payload; its size and the stream argument are set below.
        let mut api: Api = unsafe { std::mem::zeroed() };
        api.size = std::mem::size_of::<Api>() as u64;
        api.args.hipLaunchKernel.stream = 0x5000 as sys::hipStream_t;
        for phase in [
            sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
            sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
        ] {
            let kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
            let p = &mut api as *mut Api as *mut c_void;
            let r = record_v1(kind, LAUNCH_OP, phase, 2, p);
            // SAFETY: a HIP_RUNTIME_API record of a launch, its payload valid meanwhile.
            unsafe { marker_callback_v1(r, std::ptr::null_mut(), data) };
        }
        assert_eq!(facts(t).0, [(2, 0x5000)]);
    })
    .join()
    .unwrap();
}

/// The facts a drain of `t` gives: each call's (id, stream), the scopes, and the records the
/// callbacks built: (id, external id, operation, thread), each checked to be timed.
type Facts = (Vec<(u64, u64)>, Vec<(u64, i64)>, Vec<(u64, u64, i32, u64)>);

fn facts(t: &Tracer) -> Facts {
    let d = t.recorder.capture().drain(0, true);
    let calls = d
        .calls
        .iter()
        .map(|c| (c.correlation_id, c.stream))
        .collect();
    let records = d
        .api
        .iter()
        .map(|r| {
            assert!(r.start_ns > 0 && r.end_ns >= r.start_ns, "{r:?}");
            assert_eq!(r.domain, ApiDomain::Hip);
            (r.correlation_id, r.external_id, r.operation, r.thread_id)
        })
        .collect();
    (calls, d.scopes.iter().copied().collect(), records)
}

/// 40 launches under a roctx range, the last 20 on a second stream, each ENTER and
/// EXIT offered to the trampoline's fast path first (`fast`) or straight to the guarded
/// path, as the trampoline would pass them on. Returns the facts and how many callbacks
/// the fast path took.
fn launches(t: &'static Tracer, fast: bool) -> (Facts, u32) {
    type Api = sys::rocprofiler_callback_tracing_hip_api_data_t;
    // SAFETY: all-zero is a valid payload; its size and the stream argument are set below.
    let mut api: Api = unsafe { std::mem::zeroed() };
    api.size = std::mem::size_of::<Api>() as u64;
    t.recorder
        .capture()
        .on_marker(&crate::capture::markers::MarkerCall {
            op: crate::capture::markers::MarkerOp::RangePush,
            enter: true,
            thread_id: 9,
            correlation_id: 1,
            timestamp_ns: 1,
            label: Some(crate::sdk::payload::Message::new(c"step")),
            stop_id: 0,
            start_retval: 0,
        });
    let mut taken = 0;
    for corr in 2..42u64 {
        let stream = if corr < 22 { 0x5000 } else { 0x6000 };
        api.args.hipLaunchKernel.stream = stream as sys::hipStream_t;
        // The call's user-data slot, which the runtime passes to its ENTER and its EXIT.
        let mut user = sys::rocprofiler_user_data_t { value: 0 };
        for phase in [
            sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
            sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
        ] {
            let payload = &mut api as *mut Api as *mut c_void;
            let kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
            let mut r = record_v1(kind, LAUNCH_OP, phase, corr, payload);
            r.correlation_id.external.value = 100 + corr;
            let mut c = CallbackRecord::from(&r);
            c.user_data = &mut user;
            // SAFETY: a HIP_RUNTIME_API record of a launch, its payload valid meanwhile.
            if fast && unsafe { hip_api_fast::<false>(t, local::slot(), &c) } {
                taken += 1;
                continue;
            }
            // SAFETY: as above.
            unsafe { callback_rest(t, &r, c.user_data, "test") };
        }
    }
    (facts(t), taken)
}

/// The trampoline's fast path takes nearly every launch's ENTER and EXIT and writes the
/// facts the guarded path alone writes; with self-timing on it takes none.
#[test]
fn the_fast_path_takes_launches_and_writes_what_the_guarded_path_does() {
    let on_thread = |fast: bool, timed: bool| {
        std::thread::spawn(move || {
            let t = launch_tracer();
            if timed {
                t.recorder.time_callbacks();
            }
            launches(t, fast)
        })
        .join()
        .unwrap()
    };
    let (guarded, none) = on_thread(false, false);
    let (fast, taken) = on_thread(true, false);
    assert_eq!(none, 0);
    assert_eq!(fast, guarded);
    assert_eq!(guarded.0.len(), 40);
    // Each launch's record, built from its ENTER and EXIT, with its ids.
    assert_eq!(
        guarded.2,
        (2..42u64)
            .map(|c| (c, 100 + c, LAUNCH_OP, 9))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        guarded.1.len(),
        40,
        "each launch under the range has its scope"
    );
    // Every EXIT; every ENTER but the first (registration), the one that changes stream
    // (a look-up) and those into a new chunk.
    assert!(taken >= 40 + 30, "the fast path took {taken} of 80");
    let (timed, taken) = on_thread(true, true);
    assert_eq!(taken, 0, "self-timed callbacks take the timed path");
    assert_eq!(timed, guarded);
}

/// The `HIP_STREAM` fast path takes the bracket nested in no other and declines a nested
/// one, changing nothing; the general path then keeps the same stack.
#[test]
fn the_stream_fast_path_takes_outermost_brackets_only() {
    std::thread::spawn(|| {
        type Data = sys::rocprofiler_callback_tracing_hip_stream_data_t;
        let t = launch_tracer();
        let set = sys::ROCPROFILER_HIP_STREAM_SET as i32;
        let data = |stream: u64| Data {
            size: std::mem::size_of::<Data>() as u64,
            stream_id: sys::rocprofiler_stream_id_t { handle: 1 },
            stream_value: sys::rocprofiler_address_t { handle: stream },
        };
        let (enter, exit) = (
            sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
            sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
        );
        let bracket = |phase: u32, stream: u64| {
            let mut d = data(stream);
            let p = &mut d as *mut Data as *mut c_void;
            let l = local::slot();
            // SAFETY: a HIP_STREAM SET record's fields, its payload valid meanwhile.
            let taken = unsafe { hip_stream_fast::<false>(t, l, STREAM_KIND, set, phase, p) };
            if !taken {
                let r = record_v1(STREAM_KIND, set, phase, 0, p);
                // SAFETY: as above.
                unsafe { callback_rest(t, &r, std::ptr::null_mut(), "test") };
            }
            (taken, crate::capture::hip_stream::current())
        };
        assert_eq!(bracket(enter, 0xa), (true, Some(0xa)));
        assert_eq!(bracket(enter, 0xb), (false, Some(0xb)), "nested: guarded");
        assert_eq!(bracket(exit, 0xb), (false, Some(0xa)));
        assert_eq!(bracket(exit, 0xa), (true, None));
        assert_eq!(bracket(exit, 0xa), (true, None), "unbalanced EXIT: ignored");
        // A kind routed elsewhere is not a bracket.
        let mut d = data(0xc);
        let p = &mut d as *mut Data as *mut c_void;
        let l = local::slot();
        // SAFETY: as above.
        assert!(!unsafe { hip_stream_fast::<false>(t, l, STREAM_KIND + 1, set, enter, p) });
    })
    .join()
    .unwrap();
}

#[test]
fn each_abi_gets_the_trampoline_of_its_own_layout() {
    let addr = |f: sys::rocprofiler_callback_tracing_cb_any_t| f.map(|f| f as usize);
    let v0 = addr(tracing_callback_for(Abi::V0, Edge::General));
    let v1 = addr(tracing_callback_for(Abi::V1, Edge::General));
    assert_eq!(v0, Some(tracing_callback_v0 as *const () as usize));
    assert_eq!(v1, Some(tracing_callback_v1 as *const () as usize));
    assert_ne!(v0, v1);
    // HIP_STREAM has its own trampoline under 1.x; 0.x has no such kind.
    let stream_v1 = addr(tracing_callback_for(Abi::V1, Edge::HipStream));
    assert_eq!(
        stream_v1,
        Some(hip_stream_callback_v1 as *const () as usize)
    );
    assert_eq!(addr(tracing_callback_for(Abi::V0, Edge::HipStream)), v0);
    // So has MARKER_CORE_API under 1.x; 0.x's roctx callbacks take the general one.
    let marker_v1 = addr(tracing_callback_for(Abi::V1, Edge::Marker));
    assert_eq!(marker_v1, Some(marker_callback_v1 as *const () as usize));
    assert_eq!(addr(tracing_callback_for(Abi::V0, Edge::Marker)), v0);
}

thread_local! {
    /// How many times [`counting_clock`] was read on this thread.
    static CLOCK_READS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// A clock that counts its reads on this thread and reads 1,000 ns at the first, 2,000 at the
/// second, and so on.
unsafe extern "C" fn counting_clock(ts: *mut u64) -> sys::rocprofiler_status_t {
    let n = CLOCK_READS.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    // SAFETY: the caller passes a valid u64 to write (`Clock::now`).
    unsafe { *ts = u64::from(n) * 1_000 };
    sys::ROCPROFILER_STATUS_SUCCESS
}

/// The EXIT of an allocation needs the time twice, for the memory timeline and for the call's
/// record; it reads the clock once, and both carry that one time. ENTER reads it once too.
#[test]
fn an_allocation_reads_the_clock_once_at_its_exit() {
    const MALLOC_OP: i32 = 5;
    std::thread::spawn(|| {
        type Api = sys::rocprofiler_callback_tracing_hip_api_data_t;
        let clock = Clock::of(Some(counting_clock));
        let t = hip_api_tracer(MALLOC_OP, "hipMalloc", None, clock);
        // SAFETY: all-zero is a valid payload; its size and arguments are set below.
        let mut api: Api = unsafe { std::mem::zeroed() };
        api.size = std::mem::size_of::<Api>() as u64;
        let mut allocated: *mut c_void = 0x7000_0000 as *mut c_void;
        api.args.hipMalloc.ptr = &mut allocated;
        api.args.hipMalloc.size = 4096;
        let mut user = sys::rocprofiler_user_data_t { value: 0 };
        let mut reads = Vec::new();
        for phase in [
            sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
            sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
        ] {
            let payload = &mut api as *mut Api as *mut c_void;
            let kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
            let r = record_v1(kind, MALLOC_OP, phase, 7, payload);
            let before = CLOCK_READS.with(|c| c.get());
            // SAFETY: a HIP_RUNTIME_API record of an allocation, its payload and user-data
            // slot valid meanwhile.
            unsafe { callback_rest(t, &r, &mut user, "test") };
            reads.push(CLOCK_READS.with(|c| c.get()) - before);
        }
        assert_eq!(reads, [1, 1], "clock reads at ENTER, at EXIT");
        let d = t.recorder.capture().drain(0, true);
        let records: Vec<_> = d.api.iter().map(|r| (r.start_ns, r.end_ns)).collect();
        assert_eq!(records, [(1_000, 2_000)]);
        let memory: Vec<_> = d
            .memory
            .iter()
            .map(|m| (m.address, m.bytes, m.time_ns))
            .collect();
        assert_eq!(memory, [(0x7000_0000, 4096, 2_000)]);
    })
    .join()
    .unwrap();
}
