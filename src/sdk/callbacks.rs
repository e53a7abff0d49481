//! The runtime-facing callbacks: buffer delivery, callback tracing (v0/v1 trampolines) and
//! external-correlation-id requests, and their registration.
//!
//! Each is an `extern "C"` edge wrapped in `ffi_guard`, and each finds the tool through the
//! user-data pointer it was registered with: the [`Tracer`], which lives as long as the
//! process. They stay thin: they turn the runtime's record into a safe view (`payload`) and
//! hand it to the recorder (`recorder`, `capture`), which only records and returns.

use std::cell::{OnceCell, UnsafeCell};
use std::ffi::c_void;
use std::mem::offset_of;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

use rocprofiler_sdk_sys as sys;

use super::functions::Functions;
use super::functions::{Buffer, Clock, Context};
use super::payload::{self, CallbackRecord, HipApiArgs};
use super::status::SdkError;
use crate::capture::hip_call::{self, HipCall};
use crate::capture::local::{self, Local};
use crate::capture::markers::MarkerCall;
use crate::capture::Capture;
use crate::decode::abi::Abi;
use crate::decode::BufferKinds;
use crate::guard::ffi_guard;
use crate::hip::HipOp;
use crate::recorder::{BufferSlot, ExitReads, Gate, Recorder};

mod api_record;
use api_record::{api_record_unguarded, api_start_unguarded, end_call, start_call, Took};

/// Runtime values of the callback-tracing kinds configured.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallbackKinds {
    pub hip_api: Option<u32>,
    pub marker_api: Option<u32>,
    pub code_object: Option<u32>,
    /// SDK 1.x: the runtime's own HIP-stream brackets (`capture::hip_stream`).
    pub hip_stream: Option<u32>,
    /// SDK 1.3.0+: HIP graph launches (`capture::graph`).
    pub hip_graph: Option<u32>,
}

/// What the callbacks dispatch on, fixed once the session is set up.
pub struct Dispatch {
    pub abi: Abi,
    pub buffer_kinds: BufferKinds,
    pub callback_kinds: CallbackKinds,
    /// Table row of each subscribed HIP operation, indexed by operation id.
    pub hip_ops: Vec<Option<HipOp>>,
    /// Each buffer's handle and the store slot its records go to.
    pub buffers: Vec<(u64, BufferSlot)>,
    pub clock: Clock,
    /// The records of the subscribed HIP operations come from their ENTER and EXIT callbacks
    /// (`ROCPROF_XPLANE_HIP_API_RECORDS=callbacks`; the runtime buffers none for them).
    pub api_from_callbacks: bool,
    /// roctx ranges and marks take their times from their callbacks
    /// (`ROCPROF_XPLANE_ROCTX_RECORDS=callbacks`; the runtime buffers no record of them): each
    /// call recorded is counted as a record built.
    pub roctx_from_callbacks: bool,
}

impl Dispatch {
    /// The table row of HIP operation `op`, when subscribed.
    #[inline(always)]
    fn hip_op(&self, op: i32) -> Option<&HipOp> {
        self.hip_ops.get(op as u32 as usize)?.as_ref()
    }

    #[inline]
    fn slot_of(&self, buffer: u64) -> Option<usize> {
        self.buffers
            .iter()
            .find(|(b, _)| *b == buffer)
            .map(|(_, slot)| *slot as usize)
    }
}

/// Where a callback of one callback-tracing kind goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Ignore,
    HipApi,
    HipStream,
    Marker,
    CodeObject,
    HipGraph,
}

/// The routes the trampolines' fast paths take ([`Tracer::armed_for`], [`marker_route`]),
/// each an index of [`Tracer`]'s `fast_kinds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FastRoute {
    HipApi = 0,
    HipStream = 1,
    Marker = 2,
}

impl FastRoute {
    const ALL: [FastRoute; 3] = [FastRoute::HipApi, FastRoute::HipStream, FastRoute::Marker];
}

/// Kinds at or above this are never routed: the SDK's kind enums are a few dozen values, and
/// the route table stays a few hundred bytes whatever a registration says.
const MAX_ROUTED_KIND: u32 = 1 << 10;

/// What the callbacks dispatch on once the session is set up: the session's [`Dispatch`] and
/// the route of each callback-tracing kind, indexed by kind, so a callback makes one decision
/// (one table read) whatever its kind.
struct Armed {
    dispatch: Dispatch,
    routes: Vec<Route>,
    /// For each operation id, what its unguarded paths need of its row, read once here.
    rows: Vec<Option<RowPlan>>,
    /// The kind routed to [`Route::HipApi`], the one routed to [`Route::HipStream`] and the one
    /// routed to [`Route::Marker`], widened (`NO_KIND` when none): a fast path compares its
    /// record's kind once instead of reading the route table.
    hip_api_kind: u64,
    hip_stream_kind: u64,
    marker_kind: u64,
}

/// No callback-tracing kind: wider than any `u32` kind, so no record's kind equals it.
const NO_KIND: u64 = u64::MAX;

/// What the unguarded ENTER and EXIT of a subscribed HIP operation need of its row.
#[derive(Debug, Clone, Copy)]
struct RowPlan {
    /// Where the stream argument is, when the call's entry only places its work by it
    /// (`hip_call::work_stream_at`).
    work_at: Option<u8>,
    /// What its EXIT reads.
    exit: ExitReads,
}

impl Armed {
    fn new(dispatch: Dispatch) -> Armed {
        let k = &dispatch.callback_kinds;
        let mut routes = Vec::new();
        // Lowest priority first: a kind configured for two services goes where the first of
        // HIP API, HIP stream, marker, code object, HIP graph says.
        for (kind, route) in [
            (k.hip_graph, Route::HipGraph),
            (k.code_object, Route::CodeObject),
            (k.marker_api, Route::Marker),
            (k.hip_stream, Route::HipStream),
            (k.hip_api, Route::HipApi),
        ] {
            let Some(kind) = kind else {
                continue;
            };
            if kind >= MAX_ROUTED_KIND {
                crate::log_warn!(
                    "callback-tracing kind {kind} is past the {MAX_ROUTED_KIND} the tool routes: its callbacks ({route:?}) are ignored"
                );
                continue;
            }
            let i = kind as usize;
            if routes.len() <= i {
                routes.resize(i + 1, Route::Ignore);
            }
            routes[i] = route;
        }
        let rows = dispatch
            .hip_ops
            .iter()
            .map(|op| {
                op.as_ref().map(|op| RowPlan {
                    work_at: hip_call::work_stream_at(op),
                    exit: ExitReads::of(op),
                })
            })
            .collect();
        let kind_of = |route: Route| {
            routes
                .iter()
                .position(|r| *r == route)
                .map_or(NO_KIND, |k| k as u64)
        };
        let (hip_api_kind, hip_stream_kind) = (kind_of(Route::HipApi), kind_of(Route::HipStream));
        let marker_kind = kind_of(Route::Marker);
        Armed {
            dispatch,
            routes,
            rows,
            hip_api_kind,
            hip_stream_kind,
            marker_kind,
        }
    }

    /// Whether a callback of `kind` goes to `route`, for the fast paths' two routes: one
    /// compare ([`Self::route`] agrees).
    #[cfg(test)]
    fn routes_to(&self, kind: u32, route: FastRoute) -> bool {
        u64::from(kind) == self.fast_kind(route)
    }

    /// The kind routed to the fast route `route`, widened (`NO_KIND` when none).
    fn fast_kind(&self, route: FastRoute) -> u64 {
        match route {
            FastRoute::HipApi => self.hip_api_kind,
            FastRoute::HipStream => self.hip_stream_kind,
            FastRoute::Marker => self.marker_kind,
        }
    }

    /// The plan of HIP operation `op`, when subscribed.
    #[inline(always)]
    fn row(&self, op: i32) -> Option<&RowPlan> {
        self.rows.get(op as u32 as usize)?.as_ref()
    }

    /// Where a callback of `kind` goes.
    #[inline(always)]
    fn route(&self, kind: u32) -> Route {
        self.routes
            .get(kind as usize)
            .copied()
            .unwrap_or(Route::Ignore)
    }
}

/// The armed dispatch: set once, then read by every callback. Unlike `OnceLock`, whose every
/// read loads its state, a reader that already knows the value is set (a fast path that found
/// its kind in [`Tracer`]'s `fast_kinds`) reads it with no atomic load of its own
/// ([`Self::get_known_set`]).
struct ArmedCell {
    /// Completed once `value` is written; written only inside its `call_once`.
    set: Once,
    value: UnsafeCell<Option<Armed>>,
}

// SAFETY: `value` is written once, inside `set.call_once`, before `set` completes, and read
// only after `set` is seen complete (acquire, `Once::is_completed`) or after an acquire load of
// a value stored (release) after that completion ([`Tracer::armed_for`]): no read overlaps the
// write, and every read sees it. `Armed` is `Sync` and `Send`.
unsafe impl Sync for ArmedCell {}

impl ArmedCell {
    const fn new() -> ArmedCell {
        ArmedCell {
            set: Once::new(),
            value: UnsafeCell::new(None),
        }
    }

    /// Sets the value, unless it was set before (then `armed` is dropped). Whether it set it.
    fn set(&self, armed: Armed) -> bool {
        let mut armed = Some(armed);
        self.set.call_once(|| {
            // SAFETY: inside the one `call_once`: no reader reads `value` before `set`
            // completes, and no other writer exists (the cell's contract).
            unsafe { *self.value.get() = armed.take() };
        });
        armed.is_none()
    }

    /// The value, once set.
    #[inline]
    fn get(&self) -> Option<&Armed> {
        if !self.set.is_completed() {
            return None;
        }
        // SAFETY: `set` is complete (acquire): the value was written before and is never
        // written again.
        unsafe { (*self.value.get()).as_ref() }
    }

    /// The value, known to be set: no load of the cell's state.
    ///
    /// # Safety
    /// The caller has seen, with acquire ordering, a store made with release ordering after
    /// [`Self::set`] returned true.
    #[inline(always)]
    unsafe fn get_known_set(&self) -> &Armed {
        // SAFETY: per the contract, the write in `set` happens before this read, and no write
        // follows it; `set` returned true, so the value is `Some`.
        unsafe { (*self.value.get()).as_ref().unwrap_unchecked() }
    }
}

/// What every callback's user data points to: the recorder, and what to dispatch on once the
/// session is set up (until then a callback counts its records as early and returns).
pub struct Tracer {
    pub recorder: Recorder,
    armed: ArmedCell,
    /// The kind each fast route takes ([`Armed::fast_kind`]), widened, indexed by
    /// [`FastRoute`]: `NO_KIND` until `armed` is set, stored (release) only after it, so a
    /// fast path that finds its record's kind here has found the dispatch armed, with one
    /// compare for both ([`Self::armed_for`]).
    fast_kinds: [AtomicU64; 3],
}

impl Default for Tracer {
    fn default() -> Self {
        Tracer {
            recorder: Recorder::default(),
            armed: ArmedCell::new(),
            fast_kinds: [
                AtomicU64::new(NO_KIND),
                AtomicU64::new(NO_KIND),
                AtomicU64::new(NO_KIND),
            ],
        }
    }
}

impl Tracer {
    /// Callbacks start dispatching.
    pub fn arm(&self, dispatch: Dispatch) {
        if !self.armed.set(Armed::new(dispatch)) {
            return;
        }
        let Some(a) = self.armed.get() else {
            return;
        };
        for route in FastRoute::ALL {
            self.fast_kinds[route as usize].store(a.fast_kind(route), Ordering::Release);
        }
    }

    /// Whether the dispatch is armed and a callback of `kind` goes to the fast route `route`:
    /// one load and compare ([`Armed::fast_kind`]).
    #[inline(always)]
    fn takes(&self, kind: u32, route: FastRoute) -> bool {
        u64::from(kind) == self.fast_kinds[route as usize].load(Ordering::Acquire)
    }

    /// The armed dispatch, when a callback of `kind` goes to the fast route `route`
    /// ([`Self::takes`]): no further load of the cell's state.
    #[inline(always)]
    fn armed_for(&self, kind: u32, route: FastRoute) -> Option<&Armed> {
        if !self.takes(kind, route) {
            return None;
        }
        // SAFETY: a kind other than `NO_KIND` (which no `u32` equals) is stored, with release
        // ordering, only after `armed.set` returned true (`arm`), and was loaded here with
        // acquire ordering.
        Some(unsafe { self.armed.get_known_set() })
    }

    /// The user data the SDK passes back to our callbacks.
    fn user_data(&'static self) -> *mut c_void {
        self as *const Tracer as *mut c_void
    }
}

/// The tracer a callback was registered with.
///
/// # Safety
/// `data` must be the user data of a registration below: a `&'static Tracer`.
#[inline]
unsafe fn tracer<'a>(data: *mut c_void) -> &'a Tracer {
    // SAFETY: per the contract; the tracer lives as long as the process.
    unsafe { &*(data as *const Tracer) }
}

/// A buffer of `ctx` whose deliveries `tracer` records.
pub fn create_buffer(
    f: &Functions,
    ctx: Context,
    size: usize,
    watermark: usize,
    tracer: &'static Tracer,
) -> Result<Buffer, SdkError> {
    // SAFETY: `buffer_callback` has the buffer-callback signature and reads its user data as
    // the `&'static Tracer` passed here.
    unsafe {
        f.create_buffer(
            ctx,
            size,
            watermark,
            Some(buffer_callback),
            tracer.user_data(),
        )
    }
}

/// Which trampoline a callback-tracing service is routed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// The general trampoline: any kind, dispatched by its route.
    General,
    /// `HIP_STREAM` (SDK 1.x): a trampoline whose path for SET brackets is its own (twice per
    /// HIP call), any other record handed to the general path.
    HipStream,
    /// `MARKER_CORE_API` (SDK 1.x): a trampoline whose path for roctx callbacks is its own
    /// (four per push/pop range), any other record handed to the general path.
    Marker,
}

/// Routes callback-tracing kind `kind` (operations `ops`) of `ctx` to the trampoline `edge` of
/// the running ABI, recording into `tracer`.
pub fn trace_callbacks(
    f: &Functions,
    ctx: Context,
    kind: u32,
    ops: &[i32],
    abi: Abi,
    edge: Edge,
    tracer: &'static Tracer,
) -> Result<(), SdkError> {
    // SAFETY: the trampoline takes the record layout of `abi`, the running SDK's, and reads
    // its user data as the `&'static Tracer` passed here.
    unsafe {
        f.configure_callback_tracing(
            ctx,
            kind,
            ops,
            tracing_callback_for(abi, edge),
            tracer.user_data(),
        )
    }
}

/// Asks the runtime to call us when a record of one of `kinds` (dispatches, copies) of `ctx`
/// is created.
pub fn request_external_ids(
    f: &Functions,
    ctx: Context,
    tracer: &'static Tracer,
    kinds: &[sys::rocprofiler_external_correlation_id_request_kind_t],
) -> Result<(), SdkError> {
    // SAFETY: `external_id_request` has the request-callback signature, writes the id only
    // inside a graph launch, and reads its user data as the `&'static Tracer` passed here.
    unsafe {
        f.configure_external_correlation_id_request(
            ctx,
            kinds,
            Some(external_id_request),
            tracer.user_data(),
        )
    }
}

/// Buffer delivery: `data` is the tracer.
///
/// # Safety
/// Called by the runtime: `headers` holds `num_headers` valid record-header pointers; `data`
/// is the tracer registered with the buffer.
pub unsafe extern "C" fn buffer_callback(
    _context: sys::rocprofiler_context_id_t,
    buffer_id: sys::rocprofiler_buffer_id_t,
    headers: *mut *mut sys::rocprofiler_record_header_t,
    num_headers: usize,
    data: *mut c_void,
    drop_count: u64,
) {
    // SAFETY: the user data of this buffer's registration (`create_buffer`).
    let t = unsafe { tracer(data) };
    let r = &t.recorder;
    let timer = r.selftime().start();
    ffi_guard("buffer callback", (), || {
        if r.gate().forked() {
            return;
        }
        let Some(Armed { dispatch: d, .. }) = t.armed.get() else {
            r.early(num_headers as u64);
            return;
        };
        let Some(slot) = d.slot_of(buffer_id.handle) else {
            return;
        };
        r.deliver(slot, num_headers, drop_count, |store| {
            // SAFETY: the runtime passes `num_headers` valid header pointers whose records stay
            // alive for the duration of this callback; decode copies what it keeps.
            unsafe {
                crate::decode::decode_batch(
                    d.abi,
                    &d.buffer_kinds,
                    headers as *const *const sys::rocprofiler_record_header_t,
                    num_headers,
                    drop_count,
                    store,
                )
            }
        });
    });
    r.selftime().buffer_done(timer, num_headers);
}

/// Declares the callback-tracing trampoline for one ABI family: the runtime passes the record
/// **by value**, so each family needs a function declared with its own record layout; the body
/// is the same. The common callbacks (a launch's ENTER, a call's EXIT) take [`hip_api_fast`],
/// which reads the record's fields where the runtime put them; any other, or one it declines,
/// the edge's rest ([`rest_edge`]), with this thread's slot.
macro_rules! tracing_trampoline {
    ($(#[$doc:meta])* $name:ident, $record:ty, $rest:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Called by the runtime with a record whose payload matches its kind and operation,
        /// and the tracer registered with the service as `data`.
        pub unsafe extern "C" fn $name(
            record: $record,
            _user_data: *mut sys::rocprofiler_user_data_t,
            data: *mut c_void,
        ) {
            // This thread's slot first: its address is a call in a shared library
            // (`__tls_get_addr`), with only the tracer live across it.
            let l = local::slot();
            // SAFETY: the user data of this service's registration (`trace_callbacks`).
            let t = unsafe { tracer(data) };
            let call = FastCall {
                kind: record.kind,
                operation: record.operation,
                phase: record.phase,
                correlation_id: record.correlation_id.internal,
                thread_id: record.thread_id,
                payload: record.payload,
            };
            // SAFETY: the runtime's record of this callback, its payload valid for it.
            match unsafe { hip_api_try::<false>(t, l, &call) } {
                Ok(Took::Done) => {}
                // SAFETY: the runtime's user-data slot of this call, and its record.
                Ok(Took::Start) => unsafe { api_start_unguarded(t, _user_data) },
                // SAFETY: as above.
                Ok(Took::Record) => unsafe { api_record_unguarded(t, l, &record, _user_data) },
                // SAFETY: the runtime's arguments, passed on unchanged, and this thread's slot.
                Err(l) => unsafe { $rest(record, _user_data, data, l) },
            }
        }
    };
}

/// Declares the rest of an edge's callbacks (reported as `$what` by the panic guard): what its
/// trampolines' fast paths decline, out of line: a roctx callback (untimed, not in a fork's
/// child) goes to [`marker_callback`], or ends here at the phase its operation does not act
/// at; any other goes on to [`callback_rest`]. It takes the trampoline's own arguments
/// (`extern "C"`, the record by value) and the thread's slot the trampoline read, so a
/// trampoline passes them on as it got them: a jump, with no frame, copy or landing pad in the
/// trampoline (an `extern "C"` function cannot unwind into its caller), and no second
/// thread-local look-up here.
macro_rules! rest_edge {
    ($name:ident, $record:ty, $what:literal) => {
        /// The callbacks of this edge its trampolines' fast paths did not take.
        ///
        /// # Safety
        /// As the edge's trampolines: the runtime's record of this callback, its payload valid
        /// for it, and the tracer registered with the service as `data`; `l` is this thread's
        /// slot (`local::slot`).
        #[inline(never)]
        unsafe extern "C" fn $name(
            record: $record,
            _user_data: *mut sys::rocprofiler_user_data_t,
            data: *mut c_void,
            l: &'static Local,
        ) {
            // SAFETY: the user data of this service's registration (`trace_callbacks`).
            let t = unsafe { tracer(data) };
            if let Some(a) = marker_route(t, record.kind) {
                // Half of the roctx callbacks (a push's EXIT, a pop's ENTER) carry nothing
                // kept: declined from the record's fields, before any call.
                if payload::marker_acts_at(record.operation, record.phase) {
                    // SAFETY: a MARKER_CORE_API record (routed by its kind), its payload
                    // valid for it (this function's contract).
                    unsafe { marker_callback(a, &t.recorder, l, &record, $what) };
                }
                return;
            }
            // SAFETY: this function's contract.
            unsafe { callback_rest(t, &record, _user_data, $what) };
        }
    };
}

rest_edge!(
    rest_v0,
    sys::rocprofiler_callback_tracing_record_v0_t,
    "callback tracing (0.x)"
);
rest_edge!(
    rest_v1,
    sys::rocprofiler_callback_tracing_record_v1_t,
    "callback tracing (1.x)"
);

/// The fields of a callback-tracing record the fast paths read, whatever the ABI family.
struct FastCall {
    kind: u32,
    operation: i32,
    phase: u32,
    correlation_id: u64,
    thread_id: u64,
    payload: *mut c_void,
}

impl FastCall {
    #[inline(always)]
    fn of(r: &CallbackRecord) -> FastCall {
        FastCall {
            kind: r.kind,
            operation: r.operation,
            phase: r.phase,
            correlation_id: r.correlation_id,
            thread_id: r.thread_id,
            payload: r.payload,
        }
    }
}

/// A HIP API callback the unguarded paths take (nearly every launch's ENTER and every EXIT
/// that tells nothing), straight from the trampoline: one gate test (not a fork's child, not
/// self-timed), the armed dispatch, one compare of the kind, one plan read, the phase, then
/// [`Recorder::on_work_enter_unguarded`] or [`Recorder::on_hip_exit_unguarded`] on this
/// thread's slot `l`, and the call's start or record ([`Took`]). Loads, compares and stores by
/// checked indexes and the SDK's clock, nothing that can panic. Returns false, having done
/// nothing, for any other callback: [`callback_rest`] takes it.
///
/// # Safety
/// `r` holds the fields of the runtime's record of this callback, its payload valid for it,
/// its `user_data` null or the runtime's user-data slot of the call.
#[inline(always)]
unsafe fn hip_api_fast<const TIMED: bool>(t: &Tracer, l: &Local, r: &CallbackRecord) -> bool {
    // SAFETY: this function's contract (`r.user_data` included).
    match unsafe { hip_api_try::<TIMED>(t, l, &FastCall::of(r)) } {
        Ok(Took::Done) => true,
        Ok(Took::Start) => {
            // SAFETY: armed for HIP API callbacks (`hip_api_try` took the ENTER); the call's
            // user-data slot (this function's contract).
            unsafe { api_start_unguarded(t, r.user_data) };
            true
        }
        Ok(Took::Record) => {
            // SAFETY: as above, for the call's EXIT and its record.
            unsafe { api_record_unguarded(t, l, r, r.user_data) };
            true
        }
        Err(_) => false,
    }
}

/// [`hip_api_fast`], handing this thread's slot back when it declines (`Err`): a trampoline
/// passes it on to its rest without keeping it through the call it may make. A call's start
/// or record is left to the caller ([`Took`]).
///
/// # Safety
/// As [`hip_api_fast`].
#[inline(always)]
unsafe fn hip_api_try<'l, const TIMED: bool>(
    t: &Tracer,
    l: &'l Local,
    c: &FastCall,
) -> Result<Took, &'l Local> {
    let rec = &t.recorder;
    let gate = rec.gate();
    if !untimed_unforked::<TIMED>(gate) {
        return Err(l);
    }
    let Some(a) = t.armed_for(c.kind, FastRoute::HipApi) else {
        return Err(l);
    };
    let Some(row) = a.row(c.operation) else {
        // Not subscribed: [`on_hip_api`] does nothing with it either.
        return Ok(Took::Done);
    };
    let builds = a.dispatch.api_from_callbacks;
    match c.phase {
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT => {
            if !rec.on_hip_exit_unguarded(l, gate, row.exit) {
                return Err(l);
            }
            Ok(if builds { Took::Record } else { Took::Done })
        }
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER => {
            let Some(at) = row.work_at else {
                return Err(l);
            };
            // SAFETY: a HIP_RUNTIME_API payload of the call in progress (routed by its kind;
            // this function's contract).
            let Some(stream) = (unsafe { payload::hip_api_arg(c.payload, usize::from(at)) }) else {
                return Err(l);
            };
            if rec.on_work_enter_unguarded(l, gate, c.correlation_id, c.thread_id, stream) {
                // The call's start, for the record its EXIT builds, is stamped by whichever
                // path takes the ENTER: the caller here, [`on_hip_api`] for the others.
                Ok(if builds { Took::Start } else { Took::Done })
            } else {
                // Rare (a new chunk, another stream): the slot read again, so that the
                // trampoline keeps nothing through the call above.
                Err(local::slot_again())
            }
        }
        _ => Err(l),
    }
}

/// The armed dispatch, when a callback of `kind` is a roctx one the rest edges take
/// themselves ([`marker_callback`]): not self-timed (then [`callback_rest`] times it), not in a
/// fork's child (where [`callback_rest`] ignores every callback), the dispatch armed and the
/// kind routed to markers. One gate test and one compare of the kind ([`Tracer::armed_for`]);
/// nothing that can panic.
#[inline(always)]
fn marker_route(t: &Tracer, kind: u32) -> Option<&Armed> {
    if !untimed_unforked::<false>(t.recorder.gate()) {
        return None;
    }
    t.armed_for(kind, FastRoute::Marker)
}

/// A roctx callback at the phase its operation acts at ([`marker_route`]): read from its
/// payload ([`payload::marker_call`], which counts a short one) and its time taken, outside
/// the panic guard (reads and the SDK's clock, nothing that can panic; the message is read in
/// place, its length measured only for a label new to the thread),
/// then recorded before the guard when it takes no allocation, lock or wait
/// (`Capture::on_marker_unguarded`: a push of a label the thread holds, a pop, a mark), else
/// inside it ([`on_marker_guarded`], reported as `edge`). `l` is this thread's slot.
///
/// # Safety
/// `record` is the runtime's MARKER_CORE_API record of this callback, its payload valid for it.
#[inline(never)]
unsafe fn marker_callback<R>(a: &Armed, rec: &Recorder, l: &Local, record: &R, edge: &'static str)
where
    for<'r> CallbackRecord: From<&'r R>,
{
    let r = CallbackRecord::from(record);
    let clock = a.dispatch.clock;
    // SAFETY: a MARKER_CORE_API payload of this callback (this function's contract); the call
    // is used only here.
    let Some(call) = (unsafe { payload::marker_call(&r, rec, l, || clock.now()) }) else {
        return;
    };
    let c = rec.capture();
    if !c.on_marker_unguarded(l, &call) {
        on_marker_guarded(c, l, call, edge);
    }
    if a.dispatch.roctx_from_callbacks {
        rec.roctx_call_built_on(l);
    }
}

/// A roctx callback [`marker_callback`] read but could not record before the guard: through
/// the guard (reported as `edge`), out of line. The call comes by value: its caller keeps it
/// in registers, not in memory for this path's sake.
#[cold]
#[inline(never)]
fn on_marker_guarded(c: &Capture, l: &Local, call: MarkerCall<'_>, edge: &'static str) {
    ffi_guard(edge, (), || c.on_marker_on(l, &call));
}

/// Whether `gate` lets a fast path run: not a fork's child, and (unless `TIMED`, the timed
/// path's own use) not self-timed.
#[inline(always)]
fn untimed_unforked<const TIMED: bool>(gate: Gate) -> bool {
    if TIMED {
        !gate.forked()
    } else {
        gate.untimed_unforked()
    }
}

/// A callback the trampoline's fast path did not take: timed or not, by kind, through the
/// panic guard where it may panic (reported as `edge`). Out of line, so the trampoline's fast
/// path keeps no guard, clock or copy of the record in its frame.
///
/// # Safety
/// `record` is the runtime's record of this callback, its payload valid for the callback;
/// `user_data` is null or the runtime's user-data slot of the callback's call.
#[inline(never)]
unsafe fn callback_rest<R>(
    t: &Tracer,
    record: &R,
    user_data: *mut sys::rocprofiler_user_data_t,
    edge: &'static str,
) where
    for<'r> CallbackRecord: From<&'r R>,
{
    let mut r = CallbackRecord::from(record);
    r.user_data = user_data;
    if t.recorder.gate().timed() {
        // SAFETY: this function's contract.
        unsafe { on_callback_timed(t, r, edge) };
        return;
    }
    // SAFETY: this function's contract.
    unsafe { on_callback(t, r, edge) };
}

tracing_trampoline!(
    /// Callback tracing under SDK 0.x (56-byte record by value).
    tracing_callback_v0,
    sys::rocprofiler_callback_tracing_record_v0_t,
    rest_v0
);
tracing_trampoline!(
    /// Callback tracing under SDK 1.x (64-byte record by value).
    tracing_callback_v1,
    sys::rocprofiler_callback_tracing_record_v1_t,
    rest_v1
);

/// A trampoline taking record type `R` by value.
type Trampoline<R> = unsafe extern "C" fn(R, *mut sys::rocprofiler_user_data_t, *mut c_void);

/// Erases a trampoline's signature into the pointer type the SDK's registration takes.
fn erase<R>(f: Trampoline<R>) -> sys::rocprofiler_callback_tracing_cb_any_t {
    // SAFETY: function pointers of any signature have the same size and representation; the
    // SDK casts it back to the signature of the record layout it passes, which the caller of
    // `erase` (only `tracing_callback_for`) chose to match.
    Some(unsafe { std::mem::transmute::<Trampoline<R>, unsafe extern "C" fn()>(f) })
}

/// The trampoline `edge` of the running ABI, as the type-erased pointer the SDK takes. SDK 0.x
/// has no `HIP_STREAM`: a kind of that name there gets the general trampoline of its layout, and
/// so do its roctx callbacks.
fn tracing_callback_for(abi: Abi, edge: Edge) -> sys::rocprofiler_callback_tracing_cb_any_t {
    match (abi, edge) {
        (Abi::V0, _) => erase(tracing_callback_v0 as Trampoline<_>),
        (Abi::V1, Edge::General) => erase(tracing_callback_v1 as Trampoline<_>),
        (Abi::V1, Edge::HipStream) => erase(hip_stream_callback_v1 as Trampoline<_>),
        (Abi::V1, Edge::Marker) => erase(marker_callback_v1 as Trampoline<_>),
    }
}

/// The `HIP_STREAM` trampoline (SDK 1.x): the runtime brackets every call of a HIP function with
/// a `hipStream_t` parameter with a SET ENTER and EXIT, so this runs twice per such call. Its
/// path for the bracket around a call nested in no other is [`hip_stream_fast`], from the
/// record's fields where the runtime put them; any other record, or one it declines, takes the
/// general path ([`rest_v1`]), out of line.
///
/// # Safety
/// Called by the runtime with a record whose payload matches its kind and operation, and the
/// tracer registered with the service as `data`.
pub unsafe extern "C" fn hip_stream_callback_v1(
    record: sys::rocprofiler_callback_tracing_record_v1_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    data: *mut c_void,
) {
    // This thread's slot first, as in the general trampoline.
    let l = local::slot();
    // SAFETY: the user data of this service's registration (`trace_callbacks`).
    let t = unsafe { tracer(data) };
    // SAFETY: the runtime's record of this callback, its payload valid for it.
    if unsafe {
        hip_stream_fast::<false>(
            t,
            l,
            record.kind,
            record.operation,
            record.phase,
            record.payload,
        )
    } {
        return;
    }
    // SAFETY: the runtime's arguments, passed on unchanged, and this thread's slot.
    unsafe { rest_v1(record, _user_data, data, l) };
}

/// The `MARKER_CORE_API` trampoline (SDK 1.x): the runtime calls it at the ENTER and the EXIT of
/// every roctx call, and half of those carry nothing kept (a push's EXIT, a pop's ENTER). With
/// the dispatch armed and untimed, a roctx callback ([`marker_route`]: one gate test and one
/// compare of the kind) is declined from the record's operation and phase before any
/// thread-local look-up, or goes to [`marker_callback`] with this thread's slot, without the
/// general trampoline's test for a HIP API callback first; any other record (self-timed, a
/// fork's child, the dispatch not armed, a kind routed elsewhere) takes the general path's rest
/// ([`rest_v1`]), out of line.
///
/// # Safety
/// Called by the runtime with a record whose payload matches its kind and operation, and the
/// tracer registered with the service as `data`.
pub unsafe extern "C" fn marker_callback_v1(
    record: sys::rocprofiler_callback_tracing_record_v1_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    data: *mut c_void,
) {
    // SAFETY: the user data of this service's registration (`trace_callbacks`).
    let t = unsafe { tracer(data) };
    let Some(a) = marker_route(t, record.kind) else {
        // SAFETY: the runtime's arguments, passed on unchanged, and this thread's slot.
        unsafe { rest_v1(record, _user_data, data, local::slot()) };
        return;
    };
    if payload::marker_acts_at(record.operation, record.phase) {
        // SAFETY: a MARKER_CORE_API record (routed by its kind), its payload valid for it (this
        // function's contract).
        unsafe {
            marker_callback(
                a,
                &t.recorder,
                local::slot(),
                &record,
                "callback tracing (1.x)",
            )
        };
    }
}

/// The outermost `HIP_STREAM` SET bracket (nearly every one), before the panic guard: one gate
/// test (not a fork's child, not self-timed), the armed dispatch, the kind's route (so a kind
/// configured for two services goes where the general trampoline sends it), the operation,
/// phase and payload checked, then `hip_stream::set_outermost_on`'s compare and stores on this
/// thread's slot `l`. Returns
/// false, having done nothing, for any other record (a nested bracket, a short payload, another
/// route): [`callback_rest`] takes it.
///
/// # Safety
/// `payload` is the payload of the runtime's record of this callback, valid for it.
#[inline(always)]
unsafe fn hip_stream_fast<const TIMED: bool>(
    t: &Tracer,
    l: &Local,
    kind: u32,
    operation: i32,
    phase: u32,
    payload: *mut c_void,
) -> bool {
    type Data = sys::rocprofiler_callback_tracing_hip_stream_data_t;
    const AT: usize = offset_of!(Data, stream_value);
    if !untimed_unforked::<TIMED>(t.recorder.gate()) {
        return false;
    }
    if !t.takes(kind, FastRoute::HipStream) {
        return false;
    }
    if operation != sys::ROCPROFILER_HIP_STREAM_SET as i32 || payload.is_null() {
        return false;
    }
    let enter = match phase {
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER => true,
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT => false,
        _ => return false,
    };
    // SAFETY: a HIP_STREAM payload (routed by its kind) starts with its u64 size (the SDK's
    // contract for this kind).
    let size = unsafe { (payload as *const u64).read_unaligned() } as usize;
    if size < AT + size_of::<u64>() {
        return false;
    }
    // SAFETY: `size` covers the u64 at `AT` (`stream_value`, the raw `hipStream_t`).
    let stream = unsafe { (payload.cast::<u8>().add(AT) as *const u64).read_unaligned() };
    crate::capture::hip_stream::set_outermost_on(l, enter, stream)
}

/// A callback with self-timing on, timed whole: the fast paths the trampolines take untimed,
/// then [`on_callback`] for what they decline. Part of [`callback_rest`], out of line, so a
/// trampoline's untimed path keeps no clock value through its frame.
///
/// # Safety
/// As [`on_callback`].
#[inline(always)]
unsafe fn on_callback_timed(t: &Tracer, r: CallbackRecord, edge: &'static str) {
    let timer = t.recorder.selftime().start();
    let c = FastCall::of(&r);
    let l = local::slot();
    // SAFETY: the runtime's record of this callback, its payload valid for it (this
    // function's contract).
    let done = unsafe {
        hip_api_fast::<true>(t, l, &r)
            || hip_stream_fast::<true>(t, l, c.kind, c.operation, c.phase, c.payload)
    };
    if !done {
        // SAFETY: this function's contract.
        unsafe { on_callback(t, r, edge) };
    }
    t.recorder.selftime().callback_done(l, timer);
}

/// One callback-tracing callback, by kind, that the trampoline's fast path did not take: one
/// gate load, one route read, then the kind's work inside the panic guard (reported as
/// `edge`). The decision itself runs outside the guard: a load of the gate, of the armed
/// dispatch and of one table entry by a checked index, none of which can panic.
///
/// # Safety
/// `r` is the runtime's record of this callback, its payload valid for the callback.
#[inline(always)]
unsafe fn on_callback(t: &Tracer, r: CallbackRecord, edge: &'static str) {
    let rec = &t.recorder;
    let gate = rec.gate();
    if gate.forked() {
        return;
    }
    let Some(a) = t.armed.get() else {
        rec.early(1);
        return;
    };
    // The guarded closures capture the record by reference: one pointer, not one per field.
    let r = &r;
    match a.route(r.kind) {
        Route::HipApi => ffi_guard(edge, (), move || {
            // SAFETY: a HIP_RUNTIME_API record (routed by its kind), payload valid (contract).
            unsafe { on_hip_api(&a.dispatch, rec, gate, r) }
        }),
        // SAFETY: a HIP_STREAM record (routed by its kind), payload valid (contract).
        Route::HipStream => unsafe { on_hip_stream(rec, r, edge) },
        // Half of the roctx callbacks (a push's EXIT, a pop's ENTER) carry nothing kept:
        // declined from the record's fields, before the guard.
        Route::Marker if !payload::marker_acts(r) => {}
        Route::Ignore => {}
        route => ffi_guard(edge, (), move || {
            // SAFETY: a record of the kind its route was configured for, payload valid
            // (contract).
            unsafe { on_other(a, rec, route, *r) }
        }),
    }
}

/// The callbacks of kinds other than HIP API and HIP stream: out of line.
///
/// # Safety
/// `r` is a record of the kind `route` was configured for, its payload valid for the callback.
#[inline(never)]
unsafe fn on_other(a: &Armed, rec: &Recorder, route: Route, r: CallbackRecord) {
    match route {
        // SAFETY: a MARKER_CORE_API record (routed by its kind), payload valid (contract).
        Route::Marker => unsafe { on_marker(&a.dispatch, rec, r) },
        // SAFETY: a CODE_OBJECT record (routed by its kind), payload valid (contract).
        Route::CodeObject => unsafe { on_code_object(rec, r) },
        // SAFETY: a HIP_GRAPH record (routed by its kind), payload valid (contract).
        Route::HipGraph => unsafe { on_hip_graph(rec, r) },
        Route::HipApi | Route::HipStream | Route::Ignore => {}
    }
}

/// A HIP API callback: the operation's table row, when subscribed, and the call's arguments to
/// the recorder; with `api_from_callbacks`, the call's start at ENTER and its record at EXIT.
///
/// # Safety
/// `r` is a HIP_RUNTIME_API record, its payload valid for the callback, its `user_data` null or
/// the runtime's user-data slot of the call.
#[inline(always)]
unsafe fn on_hip_api(d: &Dispatch, rec: &Recorder, gate: Gate, r: &CallbackRecord) {
    let Some(op) = d.hip_op(r.operation) else {
        return;
    };
    let call = HipCall {
        op,
        phase: r.hip_phase(),
        correlation_id: r.correlation_id,
        thread_id: r.thread_id,
    };
    // SAFETY: a HIP_RUNTIME_API payload of the call in progress (this function's contract).
    let args = unsafe { HipApiArgs::new(r.payload, rec) };
    // An EXIT that needs the time both for the thread's state (an allocation) and for the
    // call's record reads the clock once: the memo (a closure of references, so copied to
    // both).
    let read = OnceCell::new();
    let now = || *read.get_or_init(|| d.clock.now());
    rec.on_hip_call(gate, &call, &args, now);
    if !d.api_from_callbacks {
        return;
    }
    // The call's start at its ENTER, and its record at its EXIT, for the callbacks the
    // unguarded path (`hip_api_try`) did not take.
    match call.phase {
        // SAFETY: the runtime's user-data slot of this call (this function's contract).
        hip_call::Phase::Enter => unsafe { start_call(rec, gate, d.clock, r.user_data) },
        // SAFETY: as above.
        hip_call::Phase::Exit => unsafe { end_call(rec, local::slot(), gate, now, r) },
        hip_call::Phase::Other => {}
    }
}

/// HIP_STREAM (SDK 1.x): SET brackets every call of a HIP function with a stream parameter; here
/// those the trampoline's fast path ([`hip_stream_fast`]) did not take (a nested bracket, a
/// self-timed run), through the guard (reported as `edge`): the stack of a nested one may
/// grow.
///
/// # Safety
/// `r` is a HIP_STREAM record, its payload valid for the callback.
#[inline(always)]
unsafe fn on_hip_stream(rec: &Recorder, r: &CallbackRecord, edge: &'static str) {
    type Data = sys::rocprofiler_callback_tracing_hip_stream_data_t;
    let op = sys::ROCPROFILER_HIP_STREAM_SET as i32;
    // SAFETY: a HIP_STREAM payload is a `Data` that starts with its u64 size (the SDK's
    // contract for this kind); `stream_value` (the raw `hipStream_t`) is a u64 inside it.
    let bracket =
        unsafe { payload::bracket_u64::<Data>(r, rec, op, offset_of!(Data, stream_value)) };
    if let Some((enter, stream)) = bracket {
        on_set_guarded(enter, stream, edge);
    }
}

/// A `HIP_STREAM` SET bracket through the guard: out of line.
#[inline(never)]
fn on_set_guarded(enter: bool, stream: u64, edge: &'static str) {
    ffi_guard(edge, (), || {
        crate::capture::hip_stream::on_set(enter, stream)
    });
}

/// A roctx callback (MARKER_CORE_API).
///
/// # Safety
/// `r` is a MARKER_CORE_API record, its payload valid for the callback.
#[inline(never)]
unsafe fn on_marker(d: &Dispatch, rec: &Recorder, r: CallbackRecord) {
    let l = local::slot();
    // SAFETY: a MARKER_CORE_API payload (this function's contract); the call is used only here.
    if let Some(call) = unsafe { payload::marker_call(&r, rec, l, || d.clock.now()) } {
        rec.capture().on_marker(&call);
        if d.roctx_from_callbacks {
            rec.roctx_call_built_on(l);
        }
    }
}

/// A code-object callback: kernel symbols.
///
/// # Safety
/// `r` is a CODE_OBJECT record, its payload valid for the callback.
#[inline(never)]
unsafe fn on_code_object(rec: &Recorder, r: CallbackRecord) {
    // SAFETY: a CODE_OBJECT payload (this function's contract).
    if let Some((id, name, symbol)) = unsafe { payload::kernel_symbol(&r, rec) } {
        rec.capture().symbols().register(id, &name, symbol);
    }
}

/// HIP_GRAPH (SDK 1.3.0+): EXEC_LAUNCH brackets a graph launch's dispatches.
///
/// # Safety
/// `r` is a HIP_GRAPH record, its payload valid for the callback.
#[inline(never)]
unsafe fn on_hip_graph(rec: &Recorder, r: CallbackRecord) {
    type Data = sys::rocprofiler_callback_tracing_hip_graph_data_t;
    let op = sys::ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH as i32;
    // SAFETY: a HIP_GRAPH payload is a `Data` that starts with its u64 size (the SDK's
    // contract for this kind); `graph_exec_id` is a one-u64 handle inside it.
    let bracket =
        unsafe { payload::bracket_u64::<Data>(&r, rec, op, offset_of!(Data, graph_exec_id)) };
    if let Some((enter, exec_id)) = bracket {
        crate::capture::graph::on_launch(enter, exec_id);
    }
}

/// External-correlation-id request for a kernel dispatch or memory copy (SDK 1.x): binds the
/// runtime-reported stream (`HIP_STREAM`) to the activity's call when the call's arguments
/// could not, and inside a graph launch (`HIP_GRAPH`) answers with the node's attribution
/// (returns 0: the runtime uses the id written). Elsewhere returns non-zero: the runtime keeps
/// the id the application pushed.
///
/// # Safety
/// Called by the runtime on the thread creating the record; `external` is null or points to
/// the id the runtime will use when we return 0; `data` is the tracer registered with the
/// service.
pub unsafe extern "C" fn external_id_request(
    thread_id: sys::rocprofiler_thread_id_t,
    _context: sys::rocprofiler_context_id_t,
    _kind: sys::rocprofiler_external_correlation_id_request_kind_t,
    _operation: sys::rocprofiler_tracing_operation_t,
    internal_corr_id_value: u64,
    external: *mut sys::rocprofiler_user_data_t,
    data: *mut c_void,
) -> i32 {
    // SAFETY: the user data of this service's registration (`request_external_ids`).
    let t = unsafe { tracer(data) };
    // Every request is counted here, once (a graph launch's count of work). A dispatch of a
    // call already placed, outside a graph launch (nearly every one), is answered without the
    // guard: the count and the check are loads, compares and stores that cannot panic.
    let idle = t
        .recorder
        .capture()
        .note_external_id_request(internal_corr_id_value);
    if idle && !t.recorder.selftime().is_on() {
        return 1;
    }
    // SAFETY: the runtime's arguments, passed on unchanged.
    unsafe {
        external_id_request_rest(
            thread_id,
            _context,
            _kind,
            _operation,
            internal_corr_id_value,
            external,
            data,
        )
    }
}

/// [`external_id_request`] past its untimed idle answer, out of line: the request that binds a
/// stream or answers inside a graph launch, through the guard, and every request while
/// self-timing is on. It takes the request's own arguments and is `extern "C"` (it cannot
/// unwind into its caller), so the request reaches it by a jump: no landing pad kept for it.
///
/// # Safety
/// As [`external_id_request`]: the runtime's request, `external` null or its out-parameter,
/// `data` the tracer registered with the service.
#[cold]
#[inline(never)]
unsafe extern "C" fn external_id_request_rest(
    thread_id: sys::rocprofiler_thread_id_t,
    _context: sys::rocprofiler_context_id_t,
    _kind: sys::rocprofiler_external_correlation_id_request_kind_t,
    _operation: sys::rocprofiler_tracing_operation_t,
    internal_corr_id_value: u64,
    external: *mut sys::rocprofiler_user_data_t,
    data: *mut c_void,
) -> i32 {
    // SAFETY: the user data of this service's registration (`request_external_ids`).
    let t = unsafe { tracer(data) };
    let timer = t.recorder.selftime().start();
    if t.recorder
        .capture()
        .external_id_request_idle(internal_corr_id_value)
    {
        t.recorder.selftime().callback_done(local::slot(), timer);
        return 1;
    }
    let answer = ffi_guard("external correlation id request", 1, || {
        if t.recorder.gate().forked() {
            return 1;
        }
        let c = t.recorder.capture();
        match c.on_external_id_request(thread_id, internal_corr_id_value) {
            Some(v) if !external.is_null() => {
                // SAFETY: non-null out-parameter the runtime passed for this request.
                unsafe { (*external).value = v };
                0
            }
            _ => 1,
        }
    });
    t.recorder.selftime().callback_done(local::slot(), timer);
    answer
}

#[cfg(test)]
mod tests;
