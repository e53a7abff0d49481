//! The rocprofiler-sdk C entry points of the simulated runtime (`#[no_mangle] extern "C"`),
//! with the semantics of reference §1.5 and §2. Every body runs inside `catch_unwind`; each
//! export is type-checked against its `<function>_fn` typedef.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use super::abi::*;
use super::agents;
use super::buffer::{threads, Buffer, BufferPolicies};
use super::hipargs;
use super::lifecycle;
use super::personality::status_string;
use super::state::{self, in_init_window, lock, status, Opaque, REGISTRY};
use crate::plan::{BufferPolicy, DeliveryModel};

/// Runs `f`, turning a panic into `on_panic` (no panic may cross the C boundary).
fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(on_panic)
}

fn err() -> rocprofiler_status_t {
    status("ERROR")
}

fn ok() -> rocprofiler_status_t {
    ROCPROFILER_STATUS_SUCCESS
}

/// The parts of the plan's delivery model that shape buffers at creation.
#[derive(Debug, Clone, Copy)]
struct BufferModel {
    delay_us: u64,
    size_override: Option<usize>,
    force_policy: Option<BufferPolicy>,
}

static BUFFER_MODEL: Mutex<BufferModel> = Mutex::new(BufferModel {
    delay_us: 0,
    size_override: None,
    force_policy: None,
});

/// Applies a plan's delivery model to buffers created from now on.
pub fn set_buffer_model(delivery: &DeliveryModel) {
    *lock(&BUFFER_MODEL) = BufferModel {
        delay_us: delivery.delivery_delay_us,
        size_override: delivery.buffer_size_override,
        force_policy: delivery.force_policy,
    };
}

/// The policy every buffer is created with whatever the tool asks (`[delivery] force_policy`).
pub fn forced_policy() -> Option<BufferPolicy> {
    lock(&BUFFER_MODEL).force_policy
}

// ---- lifecycle -----------------------------------------------------------------------------

/// Plays rocprofiler-register handing over a runtime's dispatch table; the first call
/// initializes the SDK (discovery, configure, initialize).
#[no_mangle]
pub extern "C" fn rocprofiler_set_api_table(
    _name: *const c_char,
    _lib_version: u64,
    _lib_instance: u64,
    _tables: *mut *mut c_void,
    _num_tables: u64,
) -> c_int {
    guard(-1, || {
        lifecycle::ensure_initialized();
        0
    })
}
const _: rocprofiler_set_api_table_fn = Some(rocprofiler_set_api_table);

#[no_mangle]
pub extern "C" fn rocprofiler_force_configure(
    configure_func: rocprofiler_configure_any_fn,
) -> rocprofiler_status_t {
    guard(err(), || {
        let Some(f) = configure_func else {
            return status("ERROR_INVALID_ARGUMENT");
        };
        if lifecycle::force_configure(f as usize) {
            ok()
        } else {
            status("ERROR_CONFIGURATION_LOCKED")
        }
    })
}
const _: rocprofiler_force_configure_fn = Some(rocprofiler_force_configure);

/// # Safety
/// `status` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_is_initialized(
    status_out: *mut c_int,
) -> rocprofiler_status_t {
    guard(err(), || {
        if !status_out.is_null() {
            // SAFETY: caller passes a writable int.
            unsafe { *status_out = state::INIT_STATUS.load(Ordering::Acquire) };
        }
        ok()
    })
}
const _: rocprofiler_is_initialized_fn = Some(rocprofiler_is_initialized);

/// # Safety
/// `status` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_is_finalized(status_out: *mut c_int) -> rocprofiler_status_t {
    guard(err(), || {
        if !status_out.is_null() {
            // SAFETY: caller passes a writable int.
            unsafe { *status_out = state::FINI_STATUS.load(Ordering::Acquire) };
        }
        ok()
    })
}
const _: rocprofiler_is_finalized_fn = Some(rocprofiler_is_finalized);

// ---- contexts ------------------------------------------------------------------------------

/// # Safety
/// `context_id` must be null or point to a writable context id.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_create_context(
    context_id: *mut rocprofiler_context_id_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        if context_id.is_null() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        if !in_init_window() {
            // ROCPROFILER_CONTEXT_NONE: {UINT64_MAX} up to the rel-7.0 branch the 1.0.0
            // personality follows, {0} from the later 1.x line (1.2.1).
            let none = match state::personality() {
                super::personality::Personality::V1_2_1
                | super::personality::Personality::V1_4_0 => 0,
                _ => u64::MAX,
            };
            // SAFETY: non-null, caller-owned.
            unsafe { (*context_id).handle = none };
            return status("ERROR_CONFIGURATION_LOCKED");
        }
        // SAFETY: non-null, caller-owned.
        let input = unsafe { (*context_id).handle };
        let mut reg = REGISTRY.lock();
        if input != 0 {
            if reg.context(input).is_some() {
                return status("ERROR_CONTEXT_INVALID");
            }
            return status("ERROR_CONTEXT_ID_NOT_ZERO");
        }
        let handle = reg.context_offset + reg.contexts.len() as u64;
        let client = reg.current_client;
        reg.contexts
            .push(Arc::new(state::Context::new(handle, client)));
        // SAFETY: non-null, caller-owned.
        unsafe { (*context_id).handle = handle };
        ok()
    })
}
const _: rocprofiler_create_context_fn = Some(rocprofiler_create_context);

#[no_mangle]
pub extern "C" fn rocprofiler_start_context(
    context_id: rocprofiler_context_id_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        let Some(ctx) = REGISTRY.lock().context(context_id.handle) else {
            return status("ERROR_CONTEXT_NOT_FOUND");
        };
        if state::FINI_STATUS.load(Ordering::Acquire) != 0 {
            return status("ERROR_CONFIGURATION_LOCKED");
        }
        // A context of a client that opted out stays dead.
        if let Some(c) = ctx.client {
            let reg = REGISTRY.lock();
            if reg.clients.get(c).is_some_and(|c| {
                c.result.is_none() && state::INIT_STATUS.load(Ordering::Acquire) == 1
            }) {
                return status("ERROR_CONTEXT_INVALID");
            }
        }
        ctx.set_active(true);
        super::device_counting::on_start(&ctx);
        ok()
    })
}
const _: rocprofiler_start_context_fn = Some(rocprofiler_start_context);

#[no_mangle]
pub extern "C" fn rocprofiler_stop_context(
    context_id: rocprofiler_context_id_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        let Some(ctx) = REGISTRY.lock().context(context_id.handle) else {
            return status("ERROR_CONTEXT_NOT_FOUND");
        };
        ctx.set_active(false);
        ok()
    })
}
const _: rocprofiler_stop_context_fn = Some(rocprofiler_stop_context);

/// # Safety
/// `status_out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_context_is_active(
    context_id: rocprofiler_context_id_t,
    status_out: *mut c_int,
) -> rocprofiler_status_t {
    guard(err(), || {
        let Some(ctx) = REGISTRY.lock().context(context_id.handle) else {
            return status("ERROR_CONTEXT_NOT_FOUND");
        };
        if !status_out.is_null() {
            // SAFETY: caller passes a writable int.
            unsafe { *status_out = ctx.is_active() as c_int };
        }
        ok()
    })
}
const _: rocprofiler_context_is_active_fn = Some(rocprofiler_context_is_active);

/// # Safety
/// `status_out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_context_is_valid(
    context_id: rocprofiler_context_id_t,
    status_out: *mut c_int,
) -> rocprofiler_status_t {
    guard(err(), || {
        if REGISTRY.lock().context(context_id.handle).is_none() {
            return status("ERROR_CONTEXT_NOT_FOUND");
        }
        if !status_out.is_null() {
            // SAFETY: caller passes a writable int.
            unsafe { *status_out = 1 };
        }
        ok()
    })
}
const _: rocprofiler_context_is_valid_fn = Some(rocprofiler_context_is_valid);

// ---- buffers -------------------------------------------------------------------------------

/// # Safety
/// `buffer_id` must be null or writable; `callback` a valid buffer callback.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_create_buffer(
    context: rocprofiler_context_id_t,
    size: usize,
    watermark: usize,
    policy: rocprofiler_buffer_policy_t,
    callback: rocprofiler_buffer_tracing_cb_t,
    callback_data: *mut c_void,
    buffer_id: *mut rocprofiler_buffer_id_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        if buffer_id.is_null() || callback.is_none() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        if !in_init_window() {
            return status("ERROR_CONFIGURATION_LOCKED");
        }
        if policy != ROCPROFILER_BUFFER_POLICY_DISCARD
            && policy != ROCPROFILER_BUFFER_POLICY_LOSSLESS
        {
            return status("ERROR_INVALID_ARGUMENT");
        }
        let mut reg = REGISTRY.lock();
        if reg.context(context.handle).is_none() {
            return status("ERROR_CONTEXT_NOT_FOUND");
        }
        // SAFETY: non-null, caller-owned.
        let input = unsafe { (*buffer_id).handle };
        if input != 0 && reg.buffer(input).is_some() {
            return status("ERROR_SERVICE_ALREADY_CONFIGURED");
        }
        let model = *lock(&BUFFER_MODEL);
        let size = model.size_override.unwrap_or(size);
        let handle = reg.buffer_offset + reg.buffers.len() as u64;
        let effective = match model.force_policy {
            None => policy,
            Some(BufferPolicy::Discard) => ROCPROFILER_BUFFER_POLICY_DISCARD,
            Some(BufferPolicy::Lossless) => ROCPROFILER_BUFFER_POLICY_LOSSLESS,
        };
        reg.buffers.push(Arc::new(Buffer::new(
            handle,
            context.handle,
            size,
            watermark,
            BufferPolicies {
                effective,
                requested: policy,
            },
            callback,
            Opaque(callback_data as usize),
            model.delay_us,
        )));
        // SAFETY: non-null, caller-owned.
        unsafe { (*buffer_id).handle = handle };
        ok()
    })
}
const _: rocprofiler_create_buffer_fn = Some(rocprofiler_create_buffer);

#[no_mangle]
pub extern "C" fn rocprofiler_flush_buffer(
    buffer_id: rocprofiler_buffer_id_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        if state::FINI_STATUS.load(Ordering::Acquire) == 1 {
            return status("ERROR_FINALIZED");
        }
        let Some(buf) = REGISTRY.lock().buffer(buffer_id.handle) else {
            return status("ERROR_BUFFER_NOT_FOUND");
        };
        if buf.flush() {
            ok()
        } else {
            // Flushing from the thread that delivers this buffer would wait on itself.
            status("ERROR_BUFFER_BUSY")
        }
    })
}
const _: rocprofiler_flush_buffer_fn = Some(rocprofiler_flush_buffer);

/// Discards the buffer's unflushed records; later flushes report BUFFER_NOT_FOUND.
#[no_mangle]
pub extern "C" fn rocprofiler_destroy_buffer(
    buffer_id: rocprofiler_buffer_id_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        let Some(buf) = REGISTRY.lock().buffer(buffer_id.handle) else {
            return status("ERROR_BUFFER_NOT_FOUND");
        };
        if buf.destroy() {
            ok()
        } else {
            status("ERROR_BUFFER_BUSY")
        }
    })
}
const _: rocprofiler_destroy_buffer_fn = Some(rocprofiler_destroy_buffer);

/// What both `configure_*_tracing_service` check first: the init window, the kind, and the
/// operation filter (`None` = every operation; ids are validated only for kinds with an
/// operation table).
fn service_operations(
    tracing: Tracing,
    kind: u32,
    operations: *const rocprofiler_tracing_operation_t,
    count: usize,
) -> Result<Option<state::OpSet>, rocprofiler_status_t> {
    if !in_init_window() {
        return Err(status("ERROR_CONFIGURATION_LOCKED"));
    }
    let Some(kind_name) = tracing.kind_name(kind) else {
        return Err(status("ERROR_KIND_NOT_FOUND"));
    };
    if operations.is_null() || count == 0 {
        return Ok(None);
    }
    // SAFETY: caller passes `count` readable operation ids.
    let ops = unsafe { std::slice::from_raw_parts(operations, count) };
    if let Some(table) = state::personality().operations(kind_name) {
        if !ops.iter().all(|o| table.iter().any(|(id, _)| id == o)) {
            return Err(status("ERROR_OPERATION_NOT_FOUND"));
        }
    }
    Ok(Some(state::OpSet::new(ops)))
}

/// # Safety
/// `operations` must be null or point to `operations_count` ids.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_buffer_tracing_service(
    context_id: rocprofiler_context_id_t,
    kind: rocprofiler_buffer_tracing_kind_t,
    operations: *const rocprofiler_tracing_operation_t,
    operations_count: usize,
    buffer_id: rocprofiler_buffer_id_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        let ops = match service_operations(Tracing::Buffer, kind, operations, operations_count) {
            Ok(ops) => ops,
            Err(st) => return st,
        };
        let reg = REGISTRY.lock();
        let Some(ctx) = reg.context(context_id.handle) else {
            return status("ERROR_CONTEXT_NOT_FOUND");
        };
        let Some(buffer) = reg.buffer(buffer_id.handle) else {
            return status("ERROR_BUFFER_NOT_FOUND");
        };
        ctx.edit_services(|svc| {
            if svc.buffer.contains_key(&kind) {
                return status("ERROR_SERVICE_ALREADY_CONFIGURED");
            }
            svc.buffer
                .insert(kind, state::BufferService { buffer, ops });
            ok()
        })
    })
}
const _: rocprofiler_configure_buffer_tracing_service_fn =
    Some(rocprofiler_configure_buffer_tracing_service);

/// # Safety
/// `operations` must be null or point to `operations_count` ids; `callback` must be a
/// callback-tracing callback of this SDK version's record layout.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_callback_tracing_service(
    context_id: rocprofiler_context_id_t,
    kind: rocprofiler_callback_tracing_kind_t,
    operations: *const rocprofiler_tracing_operation_t,
    operations_count: usize,
    callback: rocprofiler_callback_tracing_cb_any_t,
    callback_args: *mut c_void,
) -> rocprofiler_status_t {
    guard(err(), || {
        let ops = match service_operations(Tracing::Callback, kind, operations, operations_count) {
            Ok(ops) => ops,
            Err(st) => return st,
        };
        let Some(callback) = callback else {
            return status("ERROR_INVALID_ARGUMENT");
        };
        let Some(ctx) = REGISTRY.lock().context(context_id.handle) else {
            return status("ERROR_CONTEXT_NOT_FOUND");
        };
        ctx.edit_services(|svc| {
            if svc.callback.contains_key(&kind) {
                return status("ERROR_SERVICE_ALREADY_CONFIGURED");
            }
            svc.callback.insert(
                kind,
                state::CallbackService {
                    callback: Opaque(callback as usize),
                    data: Opaque(callback_args as usize),
                    ops,
                },
            );
            ok()
        })
    })
}
const _: rocprofiler_configure_callback_tracing_service_fn =
    Some(rocprofiler_configure_callback_tracing_service);

// ---- callback threads ----------------------------------------------------------------------

fn thread_handle_to_index(h: u64) -> Option<usize> {
    let off = REGISTRY.lock().thread_offset;
    let idx = h.checked_sub(off)? as usize;
    (idx < threads::count()).then_some(idx)
}

/// # Safety
/// `cb_thread_id` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_create_callback_thread(
    cb_thread_id: *mut rocprofiler_callback_thread_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        if state::INIT_STATUS.load(Ordering::Acquire) > 0 {
            return status("ERROR_CONFIGURATION_LOCKED");
        }
        if cb_thread_id.is_null() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        if threads::count() == 0 {
            threads::create(); // the shared default keeps index 0
        }
        let idx = threads::create();
        let off = REGISTRY.lock().thread_offset;
        // SAFETY: non-null, caller-owned.
        unsafe { (*cb_thread_id).handle = off + idx as u64 };
        ok()
    })
}
const _: rocprofiler_create_callback_thread_fn = Some(rocprofiler_create_callback_thread);

#[no_mangle]
pub extern "C" fn rocprofiler_assign_callback_thread(
    buffer_id: rocprofiler_buffer_id_t,
    cb_thread_id: rocprofiler_callback_thread_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        if state::INIT_STATUS.load(Ordering::Acquire) > 0 {
            return status("ERROR_CONFIGURATION_LOCKED");
        }
        let Some(idx) = thread_handle_to_index(cb_thread_id.handle) else {
            return status("ERROR_THREAD_NOT_FOUND");
        };
        let Some(buf) = REGISTRY.lock().buffer(buffer_id.handle) else {
            return status("ERROR_BUFFER_NOT_FOUND");
        };
        buf.thread.store(idx as u64, Ordering::Release);
        ok()
    })
}
const _: rocprofiler_assign_callback_thread_fn = Some(rocprofiler_assign_callback_thread);

#[no_mangle]
pub extern "C" fn rocprofiler_at_internal_thread_create(
    _precreate: rocprofiler_internal_thread_library_cb_t,
    _postcreate: rocprofiler_internal_thread_library_cb_t,
    _libs: c_int,
    _data: *mut c_void,
) -> rocprofiler_status_t {
    // Accepted; the simulator never reports its internal threads to these callbacks.
    guard(err(), ok)
}
const _: rocprofiler_at_internal_thread_create_fn = Some(rocprofiler_at_internal_thread_create);

// ---- agents, version, clock, status strings -------------------------------------------------

/// # Safety
/// Callbacks must have the documented signature; `data` is passed back verbatim.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_available_agents(
    version: rocprofiler_agent_version_t,
    callback: rocprofiler_query_available_agents_cb_t,
    agent_size: usize,
    user_data: *mut c_void,
) -> rocprofiler_status_t {
    guard(err(), || {
        if version != ROCPROFILER_AGENT_INFO_VERSION_0 {
            return status("ERROR_INVALID_ARGUMENT");
        }
        let Some(cb) = callback else {
            return status("ERROR_INVALID_ARGUMENT");
        };
        if agent_size > state::personality().agent_size() {
            return status("ERROR_INCOMPATIBLE_ABI");
        }
        let agents = agents::get();
        let mut ptrs: Vec<*const c_void> = agents
            .list
            .iter()
            .map(|a| *a as *const AgentStorage as *const c_void)
            .collect();
        // SAFETY: tool callback with an array of `ptrs.len()` agent pointers that stay valid
        // for the process lifetime.
        unsafe { cb(version, ptrs.as_mut_ptr(), ptrs.len(), user_data) }
    })
}
const _: rocprofiler_query_available_agents_fn = Some(rocprofiler_query_available_agents);

/// # Safety
/// Each pointer must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_version(
    major: *mut u32,
    minor: *mut u32,
    patch: *mut u32,
) -> rocprofiler_status_t {
    guard(err(), || {
        let (a, b, c) = state::personality().triplet();
        for (p, v) in [(major, a), (minor, b), (patch, c)] {
            if !p.is_null() {
                // SAFETY: caller passes writable u32s.
                unsafe { *p = v };
            }
        }
        ok()
    })
}
const _: rocprofiler_get_version_fn = Some(rocprofiler_get_version);

/// 1.x only. The symbol exists in every personality of this one library; under 0.x it answers
/// NOT_IMPLEMENTED (a real 0.x library has no such symbol).
///
/// # Safety
/// `info` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_version_triplet(
    info: *mut rocprofiler_version_triplet_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        let p = state::personality();
        if !p.is_v1() {
            return status("ERROR_NOT_IMPLEMENTED");
        }
        if info.is_null() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        let (major, minor, patch) = p.triplet();
        // SAFETY: non-null, caller-owned.
        unsafe {
            *info = rocprofiler_version_triplet_t {
                major,
                minor,
                patch,
            }
        };
        ok()
    })
}
const _: rocprofiler_get_version_triplet_fn = Some(rocprofiler_get_version_triplet);

/// # Safety
/// `ts` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_timestamp(
    ts: *mut rocprofiler_timestamp_t,
) -> rocprofiler_status_t {
    // A clock read, as the real runtime's is: a tool may read it twice per HIP call on the
    // application's threads, so the panic's status is looked up only on a panic (the other
    // exports' `guard` looks it up on every call).
    std::panic::catch_unwind(|| {
        if ts.is_null() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        // SAFETY: non-null, caller-owned.
        unsafe { *ts = state::timestamp_ns() };
        ok()
    })
    .unwrap_or_else(|_| err())
}
const _: rocprofiler_get_timestamp_fn = Some(rocprofiler_get_timestamp);

/// # Safety
/// `tid` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_thread_id(
    tid: *mut rocprofiler_thread_id_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        if tid.is_null() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        // SAFETY: non-null, caller-owned.
        unsafe { *tid = state::gettid() };
        ok()
    })
}
const _: rocprofiler_get_thread_id_fn = Some(rocprofiler_get_thread_id);

/// Interned NUL-terminated copies of table strings (returned pointers are never freed).
fn intern(s: &str) -> *const c_char {
    static STRINGS: Mutex<Vec<(String, std::ffi::CString)>> = Mutex::new(Vec::new());
    let mut all = lock(&STRINGS);
    if let Some((_, c)) = all.iter().find(|(k, _)| k == s) {
        return c.as_ptr();
    }
    let c = std::ffi::CString::new(s).unwrap_or_default();
    let p = c.as_ptr();
    all.push((s.to_string(), c));
    p
}

#[no_mangle]
pub extern "C" fn rocprofiler_get_status_name(st: rocprofiler_status_t) -> *const c_char {
    guard(std::ptr::null(), || {
        match state::personality().status_names().get(st as usize) {
            Some(n) => intern(n),
            None => std::ptr::null(),
        }
    })
}
const _: rocprofiler_get_status_name_fn = Some(rocprofiler_get_status_name);

#[no_mangle]
pub extern "C" fn rocprofiler_get_status_string(st: rocprofiler_status_t) -> *const c_char {
    guard(std::ptr::null(), || {
        match state::personality().status_names().get(st as usize) {
            Some(n) => intern(status_string(n)),
            None => std::ptr::null(),
        }
    })
}
const _: rocprofiler_get_status_string_fn = Some(rocprofiler_get_status_string);

// ---- names and iteration --------------------------------------------------------------------

fn write_name(s: &str, name: *mut *const c_char, name_len: *mut u64) {
    if !name.is_null() {
        // SAFETY: caller passes a writable pointer slot.
        unsafe { *name = intern(s) };
    }
    if !name_len.is_null() {
        // SAFETY: caller passes a writable u64.
        unsafe { *name_len = s.len() as u64 };
    }
}

/// The SDK's name and iteration entry points come in pairs, one over the buffer-tracing kinds
/// and one over the callback-tracing kinds; the C types of each pair are identical, so one
/// body serves both and the exports only say which table they read.
#[derive(Debug, Clone, Copy)]
enum Tracing {
    Buffer,
    Callback,
}

impl Tracing {
    fn kinds(self) -> &'static [&'static str] {
        let p = state::personality();
        match self {
            Tracing::Buffer => p.buffer_kinds(),
            Tracing::Callback => p.callback_kinds(),
        }
    }

    fn kind_name(self, kind: u32) -> Option<&'static str> {
        let p = state::personality();
        match self {
            Tracing::Buffer => p.buffer_kind_name(kind),
            Tracing::Callback => p.callback_kind_name(kind),
        }
    }

    fn query_kind_name(
        self,
        kind: u32,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t {
        match self.kind_name(kind) {
            Some(n) => {
                write_name(n, name, name_len);
                ok()
            }
            None => status("ERROR_KIND_NOT_FOUND"),
        }
    }

    fn query_operation_name(
        self,
        kind: u32,
        op: i32,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t {
        let Some(kind_name) = self.kind_name(kind) else {
            return status("ERROR_KIND_NOT_FOUND");
        };
        match state::personality().operations(kind_name) {
            None => status("ERROR_NOT_IMPLEMENTED"),
            Some(table) => match table.iter().find(|(id, _)| *id == op) {
                Some((_, n)) => {
                    write_name(n, name, name_len);
                    ok()
                }
                None => status("ERROR_OPERATION_NOT_FOUND"),
            },
        }
    }

    /// Every kind but NONE (0), until the callback returns non-zero.
    ///
    /// # Safety
    /// `cb` must have the documented signature.
    unsafe fn iterate_kinds(
        self,
        cb: rocprofiler_buffer_tracing_kind_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t {
        let Some(cb) = cb else {
            return status("ERROR_INVALID_ARGUMENT");
        };
        for k in 1..self.kinds().len() as u32 {
            // SAFETY: tool callback with the documented signature.
            if unsafe { cb(k, data) } != 0 {
                break;
            }
        }
        ok()
    }

    /// The operations of `kind`, until the callback returns non-zero.
    ///
    /// # Safety
    /// `cb` must have the documented signature.
    unsafe fn iterate_operations(
        self,
        kind: u32,
        cb: rocprofiler_buffer_tracing_kind_operation_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t {
        let Some(cb) = cb else {
            return status("ERROR_INVALID_ARGUMENT");
        };
        let Some(kind_name) = self.kind_name(kind) else {
            return status("ERROR_KIND_NOT_FOUND");
        };
        for (op, _) in state::personality()
            .operations(kind_name)
            .unwrap_or_default()
        {
            // SAFETY: tool callback with the documented signature.
            if unsafe { cb(kind, op, data) } != 0 {
                break;
            }
        }
        ok()
    }
}

/// # Safety
/// `name`/`name_len` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_buffer_tracing_kind_name(
    kind: rocprofiler_buffer_tracing_kind_t,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> rocprofiler_status_t {
    guard(err(), || {
        Tracing::Buffer.query_kind_name(kind, name, name_len)
    })
}
const _: rocprofiler_query_buffer_tracing_kind_name_fn =
    Some(rocprofiler_query_buffer_tracing_kind_name);

/// # Safety
/// `name`/`name_len` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_buffer_tracing_kind_operation_name(
    kind: rocprofiler_buffer_tracing_kind_t,
    operation: rocprofiler_tracing_operation_t,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> rocprofiler_status_t {
    guard(err(), || {
        Tracing::Buffer.query_operation_name(kind, operation, name, name_len)
    })
}
const _: rocprofiler_query_buffer_tracing_kind_operation_name_fn =
    Some(rocprofiler_query_buffer_tracing_kind_operation_name);

/// # Safety
/// Callbacks must have the documented signature; `data` is passed back verbatim.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_buffer_tracing_kinds(
    cb: rocprofiler_buffer_tracing_kind_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    // SAFETY: the caller's promise about `cb` is passed on.
    guard(err(), || unsafe { Tracing::Buffer.iterate_kinds(cb, data) })
}
const _: rocprofiler_iterate_buffer_tracing_kinds_fn =
    Some(rocprofiler_iterate_buffer_tracing_kinds);

/// # Safety
/// Callbacks must have the documented signature; `data` is passed back verbatim.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_buffer_tracing_kind_operations(
    kind: rocprofiler_buffer_tracing_kind_t,
    cb: rocprofiler_buffer_tracing_kind_operation_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    // SAFETY: the caller's promise about `cb` is passed on.
    guard(err(), || unsafe {
        Tracing::Buffer.iterate_operations(kind, cb, data)
    })
}
const _: rocprofiler_iterate_buffer_tracing_kind_operations_fn =
    Some(rocprofiler_iterate_buffer_tracing_kind_operations);

/// # Safety
/// `name`/`name_len` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_callback_tracing_kind_name(
    kind: rocprofiler_callback_tracing_kind_t,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> rocprofiler_status_t {
    guard(err(), || {
        Tracing::Callback.query_kind_name(kind, name, name_len)
    })
}
const _: rocprofiler_query_callback_tracing_kind_name_fn =
    Some(rocprofiler_query_callback_tracing_kind_name);

/// # Safety
/// `name`/`name_len` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_callback_tracing_kind_operation_name(
    kind: rocprofiler_callback_tracing_kind_t,
    operation: rocprofiler_tracing_operation_t,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> rocprofiler_status_t {
    guard(err(), || {
        Tracing::Callback.query_operation_name(kind, operation, name, name_len)
    })
}
const _: rocprofiler_query_callback_tracing_kind_operation_name_fn =
    Some(rocprofiler_query_callback_tracing_kind_operation_name);

/// # Safety
/// Callbacks must have the documented signature; `data` is passed back verbatim.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_callback_tracing_kinds(
    cb: rocprofiler_callback_tracing_kind_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    // SAFETY: the caller's promise about `cb` is passed on.
    guard(err(), || unsafe {
        Tracing::Callback.iterate_kinds(cb, data)
    })
}
const _: rocprofiler_iterate_callback_tracing_kinds_fn =
    Some(rocprofiler_iterate_callback_tracing_kinds);

/// # Safety
/// Callbacks must have the documented signature; `data` is passed back verbatim.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_callback_tracing_kind_operations(
    kind: rocprofiler_callback_tracing_kind_t,
    cb: rocprofiler_callback_tracing_kind_operation_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    // SAFETY: the caller's promise about `cb` is passed on.
    guard(err(), || unsafe {
        Tracing::Callback.iterate_operations(kind, cb, data)
    })
}
const _: rocprofiler_iterate_callback_tracing_kind_operations_fn =
    Some(rocprofiler_iterate_callback_tracing_kind_operations);

/// Argument iteration for HIP runtime API callback records. Declared with the 64-byte (1.x)
/// record; a 0.x caller passes its 56-byte record in the same stack slot (both are passed in
/// memory), so under 0.x only the 0.x prefix is read.
/// # Safety
/// Callbacks must have the documented signature; `data` is passed back verbatim.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_callback_tracing_kind_operation_args(
    record: rocprofiler_callback_tracing_record_v1_t,
    cb: rocprofiler_callback_tracing_operation_args_cb_t,
    _max_dereference_count: i32,
    user_data: *mut c_void,
) -> rocprofiler_status_t {
    guard(err(), || {
        let Some(cb) = cb else {
            return status("ERROR_INVALID_ARGUMENT");
        };
        let (kind, op, payload) = if state::personality().is_v1() {
            (record.kind, record.operation, record.payload)
        } else {
            // SAFETY: reinterpreting the first 56 bytes as the 0.x record the caller passed.
            let v0: rocprofiler_callback_tracing_record_v0_t = unsafe {
                std::ptr::read(
                    &record as *const _ as *const rocprofiler_callback_tracing_record_v0_t,
                )
            };
            (v0.kind, v0.operation, v0.payload)
        };
        if kind != ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API || payload.is_null() {
            return status("ERROR_NOT_IMPLEMENTED");
        }
        let Some(api) = state::personality().operation_name("HIP_RUNTIME_API", op) else {
            return status("ERROR_OPERATION_NOT_FOUND");
        };
        // SAFETY: payload of a HIP API callback record is the 120-byte hip_api_data we built;
        // the args union starts at offset 8.
        let union = unsafe { std::slice::from_raw_parts((payload as *const u8).add(8), 88) };
        for (i, spec) in hipargs::schema(api).iter().enumerate() {
            let value =
                std::ffi::CString::new(hipargs::format_arg(spec, union)).unwrap_or_default();
            // SAFETY: tool callback; the value address points into the live payload.
            let rc = unsafe {
                cb(
                    kind,
                    op,
                    i as u32,
                    union.as_ptr().add(spec.offset) as *const c_void,
                    spec.indirection,
                    spec.ctype.as_ptr(),
                    spec.name.as_ptr(),
                    value.as_ptr(),
                    0,
                    user_data,
                )
            };
            if rc != 0 {
                break;
            }
        }
        ok()
    })
}
const _: rocprofiler_iterate_callback_tracing_kind_operation_args_v1_fn =
    Some(rocprofiler_iterate_callback_tracing_kind_operation_args);

/// 1.x only: argument iteration over a buffered `HIP_RUNTIME_API_EXT` record (values as
/// recorded, pointers never dereferenced). Under 0.x: NOT_IMPLEMENTED (the real 0.x library has
/// no such symbol).
///
/// # Safety
/// `record.payload` must point to a record delivered by this runtime (during its callback).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_buffer_tracing_record_args(
    record: rocprofiler_record_header_t,
    cb: rocprofiler_buffer_tracing_operation_args_cb_t,
    user_data: *mut c_void,
) -> rocprofiler_status_t {
    guard(err(), || {
        let p = state::personality();
        if !p.is_v1() {
            return status("ERROR_NOT_IMPLEMENTED");
        }
        let Some(cb) = cb else {
            return status("ERROR_INVALID_ARGUMENT");
        };
        if record.payload.is_null() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        if p.buffer_kind_name(record.kind()) != Some("HIP_RUNTIME_API_EXT") {
            return status("ERROR_NOT_IMPLEMENTED");
        }
        // SAFETY: the payload of a HIP_RUNTIME_API_EXT record is the 176-byte ext record.
        let rec =
            unsafe { &*(record.payload as *const rocprofiler_buffer_tracing_hip_api_ext_record_t) };
        let Some(api) = p.operation_name("HIP_RUNTIME_API", rec.operation) else {
            return status("ERROR_OPERATION_NOT_FOUND");
        };
        // SAFETY: `raw` views the whole 88-byte args union.
        let union: &[u8] = unsafe { &rec.args.raw };
        for (i, spec) in hipargs::schema(api).iter().enumerate() {
            let value =
                std::ffi::CString::new(hipargs::format_arg(spec, union)).unwrap_or_default();
            // SAFETY: tool callback; the value address points into the live record.
            let rc = unsafe {
                cb(
                    record.kind(),
                    rec.operation,
                    i as u32,
                    union.as_ptr().add(spec.offset) as *const c_void,
                    spec.indirection,
                    spec.ctype.as_ptr(),
                    spec.name.as_ptr(),
                    value.as_ptr(),
                    user_data,
                )
            };
            if rc != 0 {
                break;
            }
        }
        ok()
    })
}
const _: rocprofiler_iterate_buffer_tracing_record_args_fn =
    Some(rocprofiler_iterate_buffer_tracing_record_args);

// ---- external correlation ids ---------------------------------------------------------------

#[no_mangle]
pub extern "C" fn rocprofiler_push_external_correlation_id(
    context: rocprofiler_context_id_t,
    tid: rocprofiler_thread_id_t,
    external_correlation_id: rocprofiler_user_data_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        let Some(ctx) = REGISTRY.lock().context(context.handle) else {
            return status("ERROR_CONTEXT_NOT_FOUND");
        };
        if tid < state::pid() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        // SAFETY: plain 8-byte union.
        let v = unsafe { external_correlation_id.value };
        ctx.push_external(tid, v);
        ok()
    })
}
const _: rocprofiler_push_external_correlation_id_fn =
    Some(rocprofiler_push_external_correlation_id);

/// # Safety
/// `external_correlation_id` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_pop_external_correlation_id(
    context: rocprofiler_context_id_t,
    tid: rocprofiler_thread_id_t,
    external_correlation_id: *mut rocprofiler_user_data_t,
) -> rocprofiler_status_t {
    guard(err(), || {
        let Some(ctx) = REGISTRY.lock().context(context.handle) else {
            return status("ERROR_CONTEXT_NOT_FOUND");
        };
        if tid < state::pid() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        let v = ctx.pop_external(tid).unwrap_or(0);
        if !external_correlation_id.is_null() {
            // SAFETY: non-null, caller-owned.
            unsafe { (*external_correlation_id).value = v };
        }
        ok()
    })
}
const _: rocprofiler_pop_external_correlation_id_fn = Some(rocprofiler_pop_external_correlation_id);

/// # Safety
/// `kinds` must be null or point to `kinds_count` kinds.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_external_correlation_id_request_service(
    context_id: rocprofiler_context_id_t,
    kinds: *const rocprofiler_external_correlation_id_request_kind_t,
    kinds_count: usize,
    callback: rocprofiler_external_correlation_id_request_cb_t,
    callback_args: *mut c_void,
) -> rocprofiler_status_t {
    guard(err(), || {
        let Some(ctx) = REGISTRY.lock().context(context_id.handle) else {
            return status("ERROR_CONTEXT_NOT_FOUND");
        };
        if callback.is_none() || (!kinds.is_null() && kinds_count == 0) {
            return status("ERROR_INVALID_ARGUMENT");
        }
        let kinds = if kinds.is_null() {
            None
        } else {
            // SAFETY: caller passes `kinds_count` readable kinds.
            Some(unsafe { std::slice::from_raw_parts(kinds, kinds_count) }.to_vec())
        };
        ctx.edit_services(|svc| {
            if svc.request.is_some() {
                return status("ERROR_SERVICE_ALREADY_CONFIGURED");
            }
            svc.request = Some(state::RequestService {
                kinds,
                callback,
                data: Opaque(callback_args as usize),
            });
            ok()
        })
    })
}
const _: rocprofiler_configure_external_correlation_id_request_service_fn =
    Some(rocprofiler_configure_external_correlation_id_request_service);

/// # Safety
/// `name`/`name_len` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_external_correlation_id_request_kind_name(
    kind: rocprofiler_external_correlation_id_request_kind_t,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> rocprofiler_status_t {
    guard(err(), || {
        match state::personality()
            .request_kinds()
            .get(kind as usize)
            .filter(|n| **n != "NONE")
        {
            Some(n) => {
                write_name(n, name, name_len);
                ok()
            }
            None => status("ERROR_KIND_NOT_FOUND"),
        }
    })
}
const _: rocprofiler_query_external_correlation_id_request_kind_name_fn =
    Some(rocprofiler_query_external_correlation_id_request_kind_name);

/// Entry point for the `rocprof-sim` driver (plays the application).
///
/// # Safety
/// `argv` must hold `argc` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn rocprof_sim_main(argc: c_int, argv: *const *const c_char) -> c_int {
    guard(70, || {
        let mut args = Vec::new();
        for i in 0..argc.max(0) as usize {
            // SAFETY: caller guarantees argc valid NUL-terminated strings.
            let a = unsafe { *argv.add(i) };
            if !a.is_null() {
                // SAFETY: see above.
                args.push(unsafe { CStr::from_ptr(a) }.to_string_lossy().into_owned());
            }
        }
        super::cli::main(args)
    })
}

/// Test infrastructure for drivers written as applications: the calling thread makes one
/// `hipLaunchKernel` on `stream` now, with everything the replay does for such a call (the
/// runtime starts on the first call). 0, or -1 if the runtime could not start (one line on
/// stderr, once).
#[no_mangle]
pub extern "C" fn rocprof_sim_hip_call(stream: u64) -> c_int {
    guard(-1, || match super::live_hip_launch(stream) {
        Ok(()) => 0,
        Err(e) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| eprintln!("rocprof-sim: rocprof_sim_hip_call: {e}"));
            -1
        }
    })
}

/// The driver's first call after loading the runtime: sets up the simulated host's clocks from
/// the environment (`host_clock`). NULL, or a message saying which variable is wrong (static).
#[no_mangle]
pub extern "C" fn rocprof_sim_host_clock_setup() -> *const c_char {
    static ERROR: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();
    guard(
        c"rocprof-sim: internal panic setting up the host clock".as_ptr(),
        || match super::host_clock::configure_from_env() {
            Ok(()) => std::ptr::null(),
            Err(e) => ERROR
                .get_or_init(|| std::ffi::CString::new(e.replace('\0', " ")).unwrap_or_default())
                .as_ptr(),
        },
    )
}

/// What the driver's `clock_gettime` answers for the host's clocks: writes the host's clock
/// `id` in ns and returns 0, or returns -1 for a clock that is the machine's (the driver then
/// reads the machine's).
///
/// # Safety
/// `ns` must be writable.
#[no_mangle]
pub unsafe extern "C" fn rocprof_sim_host_clock(id: libc::clockid_t, ns: *mut u64) -> c_int {
    guard(-1, || {
        if !super::host_clock::is_host_clock(id) {
            return -1;
        }
        let Some(v) = super::host_clock::host_clock_ns(id, state::timestamp_ns()) else {
            return -1;
        };
        // SAFETY: the caller passes a writable u64.
        unsafe { *ns = v };
        0
    })
}
