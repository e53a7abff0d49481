//! The runtime-facing callbacks: buffer delivery and callback tracing (v0/v1 trampolines).
//!
//! Each is an `extern "C"` edge wrapped in `ffi_guard`. They only decode and append: buffer
//! records into the delivering buffer's own store (one uncontended lock per delivery, not per
//! record), callback facts into the calling thread's capture state.

use std::ffi::{c_char, c_void, CStr};
use std::mem::{offset_of, size_of};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};

use rocprofiler_sdk_sys as sys;

use super::session::{self, Session};
use crate::capture::markers::{on_marker, MarkerCall, MarkerOp};
use crate::capture::{devices, hip_stream};
use crate::capture::{symbols, with_current, ThreadState};
use crate::guard::ffi_guard;
use crate::hip::{HipOp, Role, StreamArg};
use crate::model::events::{CopyPtrs, KernelSymbol, MemFact};
use crate::store::sinks::lock;
use crate::store::EventStore;

/// One store per buffer slot (see `session::BufferSlot`).
pub static STORES: LazyLock<[Mutex<EventStore>; session::BUFFER_SLOTS]> =
    LazyLock::new(|| std::array::from_fn(|_| Mutex::new(EventStore::default())));

/// Records delivered before the session was ready (should stay 0).
pub static EARLY_RECORDS: AtomicU64 = AtomicU64::new(0);
/// Callback payloads too small for what we read.
pub static BAD_CALLBACK_PAYLOADS: AtomicU64 = AtomicU64::new(0);

/// Buffer delivery: `data` is the buffer slot index.
///
/// # Safety
/// Called by the runtime: `headers` holds `num_headers` valid record-header pointers.
pub unsafe extern "C" fn buffer_callback(
    _context: sys::rocprofiler_context_id_t,
    _buffer_id: sys::rocprofiler_buffer_id_t,
    headers: *mut *mut sys::rocprofiler_record_header_t,
    num_headers: usize,
    data: *mut c_void,
    drop_count: u64,
) {
    let timer = crate::selftime::start();
    ffi_guard("buffer callback", (), || {
        if crate::entry::in_forked_child() {
            return;
        }
        let slot = data as usize;
        let Some(s) = session::get() else {
            EARLY_RECORDS.fetch_add(num_headers as u64, Ordering::Relaxed);
            return;
        };
        let Some(store) = STORES.get(slot) else {
            return;
        };
        crate::window::note_delivered(num_headers);
        let mut store = lock(store);
        if crate::budget::full() {
            // Past the memory ceiling: counted, not kept (the runtime's own drops still are).
            crate::budget::drop_records(num_headers as u64);
            store.counters.runtime_dropped += drop_count;
            return;
        }
        let before = store.held_bytes();
        // SAFETY: the runtime passes `num_headers` valid header pointers whose records stay
        // alive for the duration of this callback; decode copies what it keeps.
        unsafe {
            crate::decode::decode_batch(
                s.abi,
                &s.buffer_kinds,
                headers as *const *const sys::rocprofiler_record_header_t,
                num_headers,
                drop_count,
                &mut store,
            )
        };
        crate::budget::charge(store.held_bytes().saturating_sub(before));
    });
    crate::selftime::buffer_done(timer, num_headers);
}

/// The version-independent part of a callback-tracing record.
#[derive(Debug, Clone, Copy)]
pub struct CallbackRecord {
    pub thread_id: u64,
    pub correlation_id: u64,
    pub kind: u32,
    pub operation: i32,
    pub phase: u32,
    pub payload: *mut c_void,
}

/// Declares the callback-tracing trampoline for one ABI family: the runtime passes the record
/// **by value**, so each family needs a function declared with its own record layout; the body
/// is the same.
macro_rules! tracing_trampoline {
    ($(#[$doc:meta])* $name:ident, $record:ty, $what:literal) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Called by the runtime with a record whose payload matches its kind and operation.
        pub unsafe extern "C" fn $name(
            record: $record,
            _user_data: *mut sys::rocprofiler_user_data_t,
            _data: *mut c_void,
        ) {
            let timer = crate::selftime::start();
            ffi_guard($what, (), || {
                on_callback(&CallbackRecord {
                    thread_id: record.thread_id,
                    correlation_id: record.correlation_id.internal,
                    kind: record.kind,
                    operation: record.operation,
                    phase: record.phase,
                    payload: record.payload,
                })
            });
            crate::selftime::callback_done(timer);
        }
    };
}

tracing_trampoline!(
    /// Callback tracing under SDK 0.x (56-byte record by value).
    tracing_callback_v0,
    sys::rocprofiler_callback_tracing_record_v0_t,
    "callback tracing (0.x)"
);
tracing_trampoline!(
    /// Callback tracing under SDK 1.x (64-byte record by value).
    tracing_callback_v1,
    sys::rocprofiler_callback_tracing_record_v1_t,
    "callback tracing (1.x)"
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

/// The trampoline matching the running ABI, as the type-erased pointer the SDK takes.
pub fn tracing_callback_for(abi: super::Abi) -> sys::rocprofiler_callback_tracing_cb_any_t {
    match abi {
        super::Abi::V0 => erase(tracing_callback_v0 as Trampoline<_>),
        super::Abi::V1 => erase(tracing_callback_v1 as Trampoline<_>),
    }
}

fn on_callback(r: &CallbackRecord) {
    if crate::entry::in_forked_child() {
        return;
    }
    let Some(s) = session::get() else {
        EARLY_RECORDS.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let k = Some(r.kind);
    if k == s.callback_kinds.hip_api {
        on_hip_api(s, r);
    } else if k == s.callback_kinds.marker_api {
        on_marker_api(s, r);
    } else if k == s.callback_kinds.code_object {
        on_code_object(r);
    } else if k == s.callback_kinds.hip_stream {
        on_hip_stream(r);
    } else if k == s.callback_kinds.hip_graph {
        on_hip_graph(r);
    }
}

/// `HIP_GRAPH` (SDK 1.3.0+): EXEC_LAUNCH brackets a graph launch's dispatches.
fn on_hip_graph(r: &CallbackRecord) {
    type Data = sys::rocprofiler_callback_tracing_hip_graph_data_t;
    let op = sys::ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH as i32;
    let at = offset_of!(Data, graph_exec_id);
    // SAFETY: a HIP_GRAPH payload is a `Data` that starts with its u64 size (the SDK's
    // contract for this kind); `graph_exec_id` is a one-u64 handle inside it.
    let bracket = unsafe { bracket_u64::<Data>(r, op, at) };
    if let Some((enter, exec_id)) = bracket {
        crate::capture::graph::on_launch(enter, exec_id);
    }
}

/// `HIP_STREAM` (SDK 1.x): SET brackets every HIP call, dispatch and copy that has a stream.
fn on_hip_stream(r: &CallbackRecord) {
    type Data = sys::rocprofiler_callback_tracing_hip_stream_data_t;
    let op = sys::ROCPROFILER_HIP_STREAM_SET as i32;
    let at = offset_of!(Data, stream_value);
    // SAFETY: a HIP_STREAM payload is a `Data` that starts with its u64 size (the SDK's
    // contract for this kind); `stream_value` (the raw `hipStream_t`) is a u64 inside it.
    let bracket = unsafe { bracket_u64::<Data>(r, op, at) };
    if let Some((enter, stream)) = bracket {
        hip_stream::on_set(enter, stream);
    }
}

/// For an ENTER/EXIT callback of operation `op` whose payload is a `D` starting with its u64
/// size: whether it is the ENTER, and the u64 at `at` when the payload's size covers it (a
/// short payload is counted and skipped).
///
/// # Safety
/// `r.payload` must be null or point to a `D` of at least the size its first u64 states, and
/// `at + 8 <= size_of::<D>()`.
unsafe fn bracket_u64<D>(r: &CallbackRecord, op: i32, at: usize) -> Option<(bool, u64)> {
    if r.operation != op || r.payload.is_null() {
        return None;
    }
    let enter = match r.phase {
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER => true,
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT => false,
        _ => return None,
    };
    // SAFETY: the payload starts with its u64 size (caller's contract).
    let size = unsafe { (r.payload as *const u64).read_unaligned() } as usize;
    if size < at + size_of::<u64>() || at + size_of::<u64>() > size_of::<D>() {
        BAD_CALLBACK_PAYLOADS.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    // SAFETY: `size` covers the u64 at `at` inside the payload.
    let v = unsafe { (r.payload.cast::<u8>().add(at) as *const u64).read_unaligned() };
    Some((enter, v))
}

/// External-correlation-id request for a kernel dispatch or memory copy (SDK 1.x): binds the
/// runtime-reported stream (`HIP_STREAM`) to the activity's call when the call's arguments
/// could not, and inside a graph launch (`HIP_GRAPH`) answers with the node's attribution
/// (returns 0: the runtime uses the id written). Elsewhere returns non-zero: the runtime keeps
/// the id the application pushed.
///
/// # Safety
/// Called by the runtime on the thread creating the record; `external` is null or points to
/// the id the runtime will use when we return 0.
pub unsafe extern "C" fn external_id_request(
    thread_id: sys::rocprofiler_thread_id_t,
    _context: sys::rocprofiler_context_id_t,
    _kind: sys::rocprofiler_external_correlation_id_request_kind_t,
    _operation: sys::rocprofiler_tracing_operation_t,
    internal_corr_id_value: u64,
    external: *mut sys::rocprofiler_user_data_t,
    _data: *mut c_void,
) -> i32 {
    let timer = crate::selftime::start();
    let answer = ffi_guard("external correlation id request", 1, || {
        if crate::entry::in_forked_child() {
            return 1;
        }
        hip_stream::on_activity_request(thread_id, internal_corr_id_value);
        match crate::capture::graph::next_external() {
            Some(v) if !external.is_null() => {
                // SAFETY: non-null out-parameter the runtime passed for this request.
                unsafe { (*external).value = v };
                0
            }
            _ => 1,
        }
    });
    crate::selftime::callback_done(timer);
    answer
}

/// Reads a u64 argument at `offset` inside the args union of a HIP callback payload, if the
/// payload's `size` covers it.
///
/// # Safety
/// `payload` must be null or point to a `rocprofiler_callback_tracing_hip_api_data_t` of at
/// least the size its own `size` field states.
unsafe fn hip_arg_u64(payload: *mut c_void, offset: usize) -> Option<u64> {
    type Data = sys::rocprofiler_callback_tracing_hip_api_data_t;
    if payload.is_null() {
        return None;
    }
    let p = payload as *const Data;
    // SAFETY: the payload starts with its u64 size (caller's contract).
    let size = unsafe { std::ptr::addr_of!((*p).size).read_unaligned() } as usize;
    let at = offset_of!(Data, args) + offset;
    if size < at + size_of::<u64>()
        || offset + size_of::<u64>() > size_of::<sys::rocprofiler_hip_api_args_t>()
    {
        BAD_CALLBACK_PAYLOADS.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    // SAFETY: `size` covers the 8 bytes at `at`.
    Some(unsafe { ((payload as *const u8).add(at) as *const u64).read_unaligned() })
}

/// The `hipError_t` a HIP call returned, read from its payload at EXIT.
///
/// # Safety
/// As for [`hip_arg_u64`].
unsafe fn hip_retval(payload: *mut c_void) -> Option<i32> {
    type Data = sys::rocprofiler_callback_tracing_hip_api_data_t;
    if payload.is_null() {
        return None;
    }
    let p = payload as *const Data;
    // SAFETY: the payload starts with its u64 size (caller's contract).
    let size = unsafe { std::ptr::addr_of!((*p).size).read_unaligned() } as usize;
    if size < offset_of!(Data, retval) + size_of::<i32>() {
        BAD_CALLBACK_PAYLOADS.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    // SAFETY: `size` covers the 4-byte `hipError_t` at the start of the retval union.
    Some(unsafe { std::ptr::addr_of!((*p).retval.hipError_t_retval).read_unaligned() })
}

/// HIP API calls: at entry, snapshot the annotation context for the work this call starts and
/// note the device/stream it goes to and, for sync APIs, the event/stream arguments; track
/// `hipSetDevice` and stream creation. What to read comes from the table in `crate::hip`.
/// What one captured HIP call holds until finalize (its call or sync fact and annotation
/// entry), charged against the memory ceiling: an estimate, the facts vary in size.
const CAPTURE_BYTES_PER_CALL: u64 = 64;

fn on_hip_api(s: &Session, r: &CallbackRecord) {
    let Some(op) = s.hip_op(r.operation) else {
        return;
    };
    let mut enter = r.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER;
    if enter {
        crate::capture::inflight::enter();
        // Past the memory ceiling the call's record is dropped too: capture nothing for it.
        // (Current device and new streams, read at EXIT, are state and still followed.)
        if crate::budget::full() || crate::window::paused() {
            enter = false;
        } else {
            crate::budget::charge_call(CAPTURE_BYTES_PER_CALL);
        }
    }
    let exit = r.phase == sys::ROCPROFILER_CALLBACK_PHASE_EXIT;
    if exit {
        crate::capture::inflight::exit();
    }
    let exit_matters = exit && matches!(op.role, Role::SetDevice | Role::StreamCreate);
    // Allocations and frees are read at EXIT (the pointer an allocation returns is written by
    // the call), unless capture is paused or the ceiling reached.
    let memory = exit && op.mem.is_some() && !crate::budget::full() && !crate::window::paused();
    if enter || exit_matters || memory {
        let now = if memory { s.functions.timestamp() } else { 0 };
        with_current(r.thread_id, |t| {
            // SAFETY: `r.payload` is the runtime's `rocprofiler_callback_tracing_hip_api_data_t`
            // for this HIP call (kind HIP_RUNTIME_API) in phase `r.phase`.
            unsafe { apply_hip_call(enter, op, r.correlation_id, r.payload, t, now) }
        });
    }
}

/// The `hipStream_t` a call works on, read as its table row says (0 = null stream).
///
/// # Safety
/// As for [`hip_arg_u64`]; a config pointer in the arguments must be null or point to the
/// application's config struct, valid for the duration of the call.
unsafe fn stream_arg(payload: *mut c_void, at: StreamArg) -> Option<u64> {
    // SAFETY: per this function's contract.
    let arg = |o: u8| unsafe { hip_arg_u64(payload, usize::from(o)) };
    match at {
        StreamArg::None | StreamArg::Null | StreamArg::Current => Some(0),
        StreamArg::At(o) => arg(o),
        StreamArg::InConfig(p, field) => {
            let config = arg(p)?;
            if config == 0 {
                BAD_CALLBACK_PAYLOADS.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            // SAFETY: a non-null config pointer the application passed to the call whose
            // ENTER callback this is; `field` lies inside the declared config struct.
            Some(unsafe {
                ((config as *const u8).add(usize::from(field)) as *const u64).read_unaligned()
            })
        }
        StreamArg::Out(_) => None,
    }
}

/// What one HIP callback changes in the calling thread's state. Device and stream bindings
/// change only when the call succeeded (HIP leaves the current device alone when
/// `hipSetDevice` fails, and a failed `hipStreamCreate` writes no stream), so both are read at
/// EXIT, with the return value.
///
/// # Safety
/// `payload` must be null or the runtime's `rocprofiler_callback_tracing_hip_api_data_t` of a
/// call described by `op`, valid for the duration of the callback.
unsafe fn apply_hip_call(
    enter: bool,
    op: HipOp,
    correlation_id: u64,
    payload: *mut c_void,
    t: &mut ThreadState,
    now_ns: u64,
) {
    let arg = |offset: usize| {
        // SAFETY: per this function's contract; `hip_arg_u64` checks the payload's `size`.
        unsafe { hip_arg_u64(payload, offset) }
    };
    if enter {
        t.capture_at_api_enter(correlation_id);
        // SAFETY: per this function's contract.
        let stream = unsafe { stream_arg(payload, op.stream) };
        match op.role {
            Role::Launch | Role::Copy | Role::Memset => {
                if let Some((d, s)) = op.copy_ptrs {
                    if let (Some(dst), Some(src)) = (arg(usize::from(d)), arg(usize::from(s))) {
                        t.copy_ptrs.push(CopyPtrs {
                            correlation_id,
                            dst,
                            src,
                        });
                    }
                }
                // The table places the work unless it only knows "the current device"; then the
                // stream the runtime reported (SDK 1.x HIP_STREAM), or a later correction.
                let by_args = !matches!(op.stream, StreamArg::Current) && stream.is_some();
                let reported = (!by_args).then(hip_stream::current).flatten();
                if let Some(stream) = reported.or(stream) {
                    devices::on_work_enter(t, correlation_id, stream);
                }
                hip_stream::note_entry(correlation_id, by_args || reported.is_some());
            }
            Role::Sync(kind) => {
                let event = op.event.map_or(Some(0), |o| arg(usize::from(o)));
                if let (Some(event), Some(stream)) = (event, stream) {
                    devices::on_sync_enter(t, correlation_id, kind, event, stream);
                }
            }
            Role::StreamOrderedAlloc
            | Role::Memory
            | Role::StreamDestroy
            | Role::SetDevice
            | Role::StreamCreate => {}
        }
        return;
    }
    // SAFETY: per this function's contract.
    if unsafe { hip_retval(payload) } != Some(0) {
        return;
    }
    match (op.role, op.stream) {
        (Role::SetDevice, _) => {
            if let Some(v) = arg(0) {
                // `int deviceId`: the low 4 bytes of the slot.
                t.current_device = (v & 0xffff_ffff) as u32 as i32;
            }
        }
        (Role::StreamCreate, StreamArg::Out(o)) => {
            let Some(out) = arg(usize::from(o)).filter(|&p| p != 0) else {
                return;
            };
            // SAFETY: a non-null `hipStream_t*` the application passed to hipStreamCreate*,
            // written by the call whose EXIT callback this is and valid for its duration.
            let stream = unsafe { (out as *const u64).read_unaligned() };
            devices::on_stream_created(t, stream, correlation_id);
        }
        _ => {}
    }
    if let Some(m) = op.mem {
        // SAFETY: per this function's contract (the pointer argument of the call).
        let Some(ptr) = arg(usize::from(m.ptr)) else {
            return;
        };
        let address = if m.out {
            if ptr == 0 {
                return;
            }
            // SAFETY: a non-null `void**` the application passed to the allocation whose
            // successful EXIT this is: the call wrote the new pointer there.
            unsafe { (ptr as *const u64).read_unaligned() }
        } else {
            ptr
        };
        let bytes = m.size.and_then(|o| arg(usize::from(o))).unwrap_or(0);
        let device = match (op.role, op.stream) {
            // SAFETY: per this function's contract.
            (Role::StreamOrderedAlloc, at) => unsafe { stream_arg(payload, at) }
                .map_or(t.current_device, |st| devices::device_of(t, st)),
            _ => t.current_device,
        };
        t.memory.push(MemFact {
            correlation_id,
            thread_id: t.thread_id,
            time_ns: now_ns,
            action: m.action,
            kind: m.kind,
            address,
            bytes,
            device,
        });
    }
}

fn on_marker_api(s: &Session, r: &CallbackRecord) {
    type Data = sys::rocprofiler_callback_tracing_marker_api_data_t;
    if r.payload.is_null() {
        BAD_CALLBACK_PAYLOADS.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let p = r.payload as *const Data;
    // SAFETY: a marker payload starts with its u64 size.
    let size = unsafe { std::ptr::addr_of!((*p).size).read_unaligned() } as usize;
    if size < size_of::<Data>() {
        BAD_CALLBACK_PAYLOADS.fetch_add(1, Ordering::Relaxed);
        return;
    }
    // SAFETY: `size` covers the args and retval unions; both are plain 8-byte reads.
    let (arg0, retval) = unsafe {
        (
            std::ptr::addr_of!((*p).args.align_).read_unaligned(),
            std::ptr::addr_of!((*p).retval.roctx_range_id_t_retval).read_unaligned(),
        )
    };
    let op = MarkerOp::from_id(r.operation);
    let enter = r.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER;
    if op.acts_at_enter() != Some(enter) {
        return;
    }
    let label_ptr = match op {
        MarkerOp::Mark | MarkerOp::RangePush | MarkerOp::RangeStart => arg0 as *const c_char,
        _ => std::ptr::null(),
    };
    // SAFETY: the message argument of roctxMarkA/RangePushA/RangeStartA is the caller's
    // NUL-terminated string (or null), alive for the duration of the call (we copy it).
    let label = unsafe { roctx_label(label_ptr) };
    on_marker(&MarkerCall {
        op,
        enter,
        thread_id: r.thread_id,
        correlation_id: r.correlation_id,
        timestamp_ns: s.functions.timestamp(),
        label: label.as_deref(),
        stop_id: arg0,
        start_retval: retval,
    });
}

/// A roctx message as text. Applications pass arbitrary bytes: invalid UTF-8 becomes U+FFFD
/// (never an error, never a panic), everything else is kept as is.
///
/// # Safety
/// `ptr` is null or points to a NUL-terminated string valid for the returned lifetime.
unsafe fn roctx_label<'a>(ptr: *const c_char) -> Option<std::borrow::Cow<'a, str>> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: guaranteed by the caller.
    Some(unsafe { CStr::from_ptr(ptr) }.to_string_lossy())
}

/// Bytes of the kernel-symbol payload we read (through `accum_vgpr_count`): present in every
/// version (the struct grew from 72 to 88 bytes after that field).
const SYMBOL_BYTES_READ: usize = offset_of!(
    sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
    accum_vgpr_count
) + size_of::<u32>();

fn on_code_object(r: &CallbackRecord) {
    type Data = sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;
    if r.operation != sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER as i32
        || r.phase != sys::ROCPROFILER_CALLBACK_PHASE_LOAD
    {
        // Code-object loads carry nothing we show; unloads keep names (records still arrive).
        return;
    }
    if r.payload.is_null() {
        BAD_CALLBACK_PAYLOADS.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let p = r.payload as *const Data;
    // SAFETY: the payload starts with its u64 size.
    let size = unsafe { std::ptr::addr_of!((*p).size).read_unaligned() } as usize;
    if size < SYMBOL_BYTES_READ {
        BAD_CALLBACK_PAYLOADS.fetch_add(1, Ordering::Relaxed);
        return;
    }
    // SAFETY: `size` covers every field read; each is read individually so nothing past the
    // runtime's (possibly 72-byte) struct is touched. The name is a NUL-terminated string owned
    // by the SDK, copied here.
    unsafe {
        let name_ptr = std::ptr::addr_of!((*p).kernel_name).read_unaligned();
        let name = if name_ptr.is_null() {
            String::new()
        } else {
            CStr::from_ptr(name_ptr).to_string_lossy().into_owned()
        };
        let kernel_id = std::ptr::addr_of!((*p).kernel_id).read_unaligned();
        symbols::register(
            kernel_id,
            &name,
            KernelSymbol {
                name: std::sync::Arc::from(""),
                sgpr_count: std::ptr::addr_of!((*p).sgpr_count).read_unaligned(),
                arch_vgpr_count: std::ptr::addr_of!((*p).arch_vgpr_count).read_unaligned(),
                accum_vgpr_count: std::ptr::addr_of!((*p).accum_vgpr_count).read_unaligned(),
                group_segment_size: std::ptr::addr_of!((*p).group_segment_size).read_unaligned(),
                private_segment_size: std::ptr::addr_of!((*p).private_segment_size)
                    .read_unaligned(),
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_abi_gets_the_trampoline_of_its_own_layout() {
        let addr = |f: sys::rocprofiler_callback_tracing_cb_any_t| f.map(|f| f as usize);
        let v0 = addr(tracing_callback_for(super::super::Abi::V0));
        let v1 = addr(tracing_callback_for(super::super::Abi::V1));
        assert_eq!(v0, Some(tracing_callback_v0 as *const () as usize));
        assert_eq!(v1, Some(tracing_callback_v1 as *const () as usize));
        assert_ne!(v0, v1);
    }

    #[test]
    fn set_device_and_stream_creation_count_only_when_the_call_succeeds() {
        type Data = sys::rocprofiler_callback_tracing_hip_api_data_t;
        // SAFETY: all-zero is a valid bit pattern for this plain C struct.
        let mut d: Data = unsafe { std::mem::zeroed() };
        d.size = size_of::<Data>() as u64;
        let p = &mut d as *mut Data as *mut c_void;
        let mut t = ThreadState::default();
        let row = |n: &str| crate::hip::lookup(n).unwrap();
        let call = |t: &mut ThreadState, d: &mut Data, enter: bool, role, retval: u32| {
            d.retval.hipError_t_retval = retval as _;
            // SAFETY: `p` points to `d`, a complete payload of the role's call.
            unsafe { apply_hip_call(enter, role, 1, p, t, 0) };
        };

        // hipSetDevice(1) fails (hipErrorInvalidDevice = 101): HIP keeps device 0.
        d.args.hipSetDevice.deviceId = 1;
        call(&mut t, &mut d, true, row("hipSetDevice"), 0);
        call(&mut t, &mut d, false, row("hipSetDevice"), 101);
        assert_eq!(t.current_device, 0);
        call(&mut t, &mut d, true, row("hipSetDevice"), 0);
        call(&mut t, &mut d, false, row("hipSetDevice"), 0);
        assert_eq!(t.current_device, 1);

        // A failed hipStreamCreate leaves garbage in the out-variable: not a stream.
        let mut out: u64 = 0xd0d0;
        d.args.hipStreamCreate.stream = &mut out as *mut u64 as _;
        call(&mut t, &mut d, false, row("hipStreamCreate"), 1);
        assert_eq!(devices::device_of(&mut t, 0xd0d0), -1);
        call(&mut t, &mut d, false, row("hipStreamCreate"), 0);
        assert_eq!(devices::device_of(&mut t, 0xd0d0), 1);
    }

    /// Runs one HIP call's ENTER and EXIT through the table row of `name`.
    fn run_call(
        t: &mut ThreadState,
        name: &str,
        corr: u64,
        d: &mut sys::rocprofiler_callback_tracing_hip_api_data_t,
    ) {
        let op = crate::hip::lookup(name).unwrap();
        d.size = size_of::<sys::rocprofiler_callback_tracing_hip_api_data_t>() as u64;
        let p = d as *mut _ as *mut c_void;
        // SAFETY: `p` points to a complete payload whose arguments were set for `name`.
        unsafe {
            apply_hip_call(true, op, corr, p, t, 0);
            apply_hip_call(false, op, corr, p, t, 0);
        }
    }

    fn zeroed() -> sys::rocprofiler_callback_tracing_hip_api_data_t {
        // SAFETY: all-zero is a valid bit pattern for this plain C struct.
        unsafe { std::mem::zeroed() }
    }

    #[test]
    fn a_host_to_host_2d_copy_on_a_gpu1_stream_is_drawn_on_gpu1() {
        use crate::model::events::{AgentInfo, AgentType, Collected, CopyRecord};
        // The defect: hipMemcpy2DAsync was in no list, so its stream was never read and a copy
        // with no GPU end fell back to GPU 0.
        let mut t = ThreadState::default();
        t.current_device = 1;
        let mut stream_out: u64 = 0x6001;
        let mut d = zeroed();
        d.args.hipExtStreamCreateWithCUMask.stream = &mut stream_out as *mut u64 as _;
        run_call(&mut t, "hipExtStreamCreateWithCUMask", 1, &mut d);
        t.current_device = 0; // the copy is issued from device 0, on the GPU-1 stream
        let mut d = zeroed();
        d.args.hipMemcpy2DAsync.stream = 0x6001 as _;
        run_call(&mut t, "hipMemcpy2DAsync", 2, &mut d);
        let calls: Vec<_> = t.calls.iter().collect();
        assert_eq!((calls[0].stream, calls[0].device), (0x6001, 1));

        let gpu = |h: u64, i: i32| AgentInfo::for_test(h, AgentType::Gpu, i);
        let c = Collected {
            agents: vec![gpu(0x10, 0), gpu(0x11, 1)],
            copies: vec![CopyRecord {
                correlation_id: 2,
                external_id: 0,
                start_ns: 10,
                end_ns: 20,
                thread_id: 1,
                operation: 1, // host to host
                dst_agent: 0x99,
                src_agent: 0x99,
                bytes: 64,
            }],
            calls,
            ..Collected::default()
        };
        let trace = crate::model::join::join(c);
        let on = |i: usize| {
            trace.devices[i]
                .lines
                .iter()
                .map(|l| l.events.len())
                .sum::<usize>()
        };
        assert_eq!(
            (on(0), on(1)),
            (0, 1),
            "the copy belongs to its stream's GPU"
        );
    }

    #[test]
    fn launch_with_a_config_struct_reads_the_stream_through_it() {
        let mut t = ThreadState::default();
        t.current_device = 1;
        let mut out: u64 = 0x7001;
        let mut d = zeroed();
        d.args.hipStreamCreateWithPriority.stream = &mut out as *mut u64 as _;
        run_call(&mut t, "hipStreamCreateWithPriority", 1, &mut d);
        let config = sys::hipLaunchConfig_t {
            stream: 0x7001 as _,
            ..Default::default()
        };
        let mut d = zeroed();
        d.args.hipLaunchKernelExC.config = &config;
        run_call(&mut t, "hipLaunchKernelExC", 2, &mut d);
        let mut d = zeroed();
        d.args.hipMemsetD16Async.stream = 0x7001 as _;
        run_call(&mut t, "hipMemsetD16Async", 3, &mut d);
        let calls: Vec<(u64, u64, i32)> = t
            .calls
            .iter()
            .map(|c| (c.correlation_id, c.stream, c.device))
            .collect();
        assert_eq!(calls, vec![(2, 0x7001, 1), (3, 0x7001, 1)]);
    }

    #[test]
    fn event_calls_read_event_and_stream() {
        use crate::model::events::SyncKind;
        let mut t = ThreadState::default();
        let mut d = zeroed();
        d.args.hipEventRecordWithFlags.event = 0xe0 as _;
        d.args.hipEventRecordWithFlags.stream = 0 as _;
        run_call(&mut t, "hipEventRecordWithFlags", 5, &mut d);
        let mut d = zeroed();
        d.args.hipEventQuery.event = 0xe0 as _;
        run_call(&mut t, "hipEventQuery", 6, &mut d);
        let mut d = zeroed();
        d.args.hipStreamQuery.stream = 0x5 as _;
        run_call(&mut t, "hipStreamQuery", 7, &mut d);
        let got: Vec<(u64, SyncKind, u64, u64)> = t
            .syncs
            .iter()
            .map(|s| (s.correlation_id, s.kind, s.event, s.stream))
            .collect();
        assert_eq!(
            got,
            vec![
                (5, SyncKind::EventRecord, 0xe0, 0),
                (6, SyncKind::EventQuery, 0xe0, 0),
                (7, SyncKind::StreamQuery, 0, 0x5),
            ]
        );
    }

    #[test]
    fn symbol_prefix_fits_the_oldest_payload() {
        assert_eq!(
            SYMBOL_BYTES_READ, 68,
            "must fit the 72-byte payload of SDK 0.4/0.5"
        );
    }

    #[test]
    fn roctx_labels_with_invalid_utf8_or_none_are_safe() {
        let bad = std::ffi::CString::new(vec![b'a', 0xff, 0xfe, b'#', 0xc3, b'z']).unwrap();
        // SAFETY: `bad` is NUL-terminated and outlives the call's result.
        let got = unsafe { roctx_label(bad.as_ptr()) }.unwrap();
        assert_eq!(got, "a\u{fffd}\u{fffd}#\u{fffd}z");
        let cjk = std::ffi::CString::new("评估 – eval").unwrap();
        // SAFETY: `cjk` is NUL-terminated and outlives the call's result.
        let got = unsafe { roctx_label(cjk.as_ptr()) };
        assert_eq!(got.as_deref(), Some("评估 – eval"));
        // SAFETY: null is allowed.
        assert!(unsafe { roctx_label(std::ptr::null()) }.is_none());
    }
}
