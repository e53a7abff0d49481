//! Turning "this happened" into what a tool observes: callback invocations in the
//! personality's record layout, external correlation ids per context, and buffer records.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::abi::*;
use super::buffer::{Buffer, Emplace};
use super::state::{self, CallbackService, Context, Services};

/// Views a `#[repr(C)]` record as bytes for copying into a buffer.
pub fn as_bytes<T: Copy>(v: &T) -> &[u8] {
    // SAFETY: T is a plain-old-data `#[repr(C)]` record; reading its bytes (padding included,
    // which the tool never interprets) for a copy is sound for the lifetime of `v`.
    unsafe { std::slice::from_raw_parts(v as *const T as *const u8, std::mem::size_of::<T>()) }
}

/// Records produced per buffer-kind value (emitted into some buffer, whatever happened next).
static EMITTED: [AtomicU64; 64] = [const { AtomicU64::new(0) }; 64];

pub fn emplace(buffer: &Arc<Buffer>, kind: u32, bytes: &[u8]) -> Emplace {
    if let Some(c) = EMITTED.get(kind as usize) {
        c.fetch_add(1, Ordering::Relaxed);
    }
    buffer.emplace(kind, bytes)
}

/// HIP calls a tool learned of through their ENTER and EXIT callbacks alone (no buffered record
/// of the call went anywhere) while recording: at the call's entry the tool had a context with a
/// buffer-tracing service active. A tool can build the call's record from its callbacks, so
/// these are the calls beside the emitted HIP API records that such a tool's profile holds.
static CALLBACK_ONLY_CALLS: AtomicU64 = AtomicU64::new(0);

pub fn count_callback_only_call() {
    CALLBACK_ONLY_CALLS.fetch_add(1, Ordering::Relaxed);
}

pub fn callback_only_calls() -> u64 {
    CALLBACK_ONLY_CALLS.load(Ordering::Relaxed)
}

/// roctx calls a tool learned of through their callbacks alone (no buffered record of the call
/// went anywhere) while recording, as [`count_callback_only_call`] counts HIP calls: the calls
/// beside the emitted marker records that the profile of a tool taking roctx ranges' times
/// from their callbacks holds.
static ROCTX_CALLBACK_ONLY_CALLS: AtomicU64 = AtomicU64::new(0);

pub fn count_roctx_callback_only_call() {
    ROCTX_CALLBACK_ONLY_CALLS.fetch_add(1, Ordering::Relaxed);
}

pub fn roctx_callback_only_calls() -> u64 {
    ROCTX_CALLBACK_ONLY_CALLS.load(Ordering::Relaxed)
}

/// Emitted records per buffer-kind name of the running personality.
pub fn emitted_per_kind() -> BTreeMap<String, u64> {
    let p = state::personality();
    EMITTED
        .iter()
        .enumerate()
        .filter_map(|(k, c)| {
            let n = c.load(Ordering::Relaxed);
            let name = p.buffer_kind_name(k as u32).unwrap_or("UNKNOWN");
            (n > 0).then(|| (name.to_string(), n))
        })
        .collect()
}

/// Whether a service's operation filter (`None` = all operations) lets `op` through.
fn passes(ops: &Option<state::OpSet>, op: i32) -> bool {
    ops.as_ref().is_none_or(|ops| ops.contains(op))
}

/// The buffer configured for `kind` on `ctx`, if the operation passes the service's filter.
pub fn buffer_for<'s>(
    ctx: &Context,
    services: &'s Services,
    kind: u32,
    op: i32,
) -> Option<&'s Arc<Buffer>> {
    let svc = services.buffer.get(&kind)?;
    // A buffer only receives records of the context it belongs to (reference §10).
    (passes(&svc.ops, op) && svc.buffer.context == ctx.handle).then_some(&svc.buffer)
}

pub fn callback_for(services: &Services, kind: u32, op: i32) -> Option<&CallbackService> {
    let svc = services.callback.get(&kind)?;
    passes(&svc.ops, op).then_some(svc)
}

/// Correlation ids as the tool sees them in one callback.
#[derive(Clone, Copy, Default)]
pub struct Corr {
    pub internal: u64,
    pub external: u64,
    pub ancestor: u64,
}

impl Corr {
    /// `ancestor` stays 0: no HSA calls are simulated beneath HIP calls.
    pub fn new(internal: u64, external: u64) -> Corr {
        Corr {
            internal,
            external,
            ancestor: 0,
        }
    }

    fn v0(self) -> rocprofiler_correlation_id_v0_t {
        rocprofiler_correlation_id_v0_t {
            internal: self.internal,
            external: rocprofiler_user_data_t {
                value: self.external,
            },
        }
    }

    fn v1(self) -> rocprofiler_correlation_id_v1_t {
        rocprofiler_correlation_id_v1_t {
            internal: self.internal,
            external: rocprofiler_user_data_t {
                value: self.external,
            },
            ancestor: self.ancestor,
        }
    }
}

/// Calls `ctx`'s callback for (`kind`, `op`) if the context traces it (see [`invoke`]).
#[allow(clippy::too_many_arguments)]
pub fn callback(
    ctx: u64,
    services: &Services,
    tid: u64,
    corr: Corr,
    kind: u32,
    op: i32,
    phase: u32,
    payload: *mut c_void,
    user_data: *mut rocprofiler_user_data_t,
) {
    if let Some(cb) = callback_for(services, kind, op) {
        invoke(ctx, cb, tid, corr, kind, op, phase, payload, user_data);
    }
}

/// Calls a tool's callback-tracing callback with the record layout of the personality.
#[allow(clippy::too_many_arguments)]
pub fn invoke(
    ctx: u64,
    svc: &CallbackService,
    tid: u64,
    corr: Corr,
    kind: u32,
    op: i32,
    phase: u32,
    payload: *mut c_void,
    user_data: *mut rocprofiler_user_data_t,
) {
    if svc.callback.0 == 0 || state::tool_calls_skipped() {
        return;
    }
    let context_id = rocprofiler_context_id_t { handle: ctx };
    if state::personality().is_v1() {
        let rec = rocprofiler_callback_tracing_record_v1_t {
            context_id,
            thread_id: tid,
            correlation_id: corr.v1(),
            kind,
            operation: op,
            phase,
            payload,
        };
        // SAFETY: the tool registered this pointer as a `rocprofiler_callback_tracing_cb_t`
        // for an SDK of this (1.x) version; its record parameter has the v1 layout.
        unsafe { call_tool(svc, rec, user_data) };
    } else {
        let rec = rocprofiler_callback_tracing_record_v0_t {
            context_id,
            thread_id: tid,
            correlation_id: corr.v0(),
            kind,
            operation: op,
            phase,
            payload,
        };
        // SAFETY: as above, with the 0.x (56-byte) record layout.
        unsafe { call_tool(svc, rec, user_data) };
    }
}

/// Calls the tool's callback-tracing callback, which takes its record `R` by value.
///
/// # Safety
/// `svc.callback` must be a callback whose record parameter has the layout `R`.
unsafe fn call_tool<R>(svc: &CallbackService, rec: R, user_data: *mut rocprofiler_user_data_t) {
    type Callback<R> = unsafe extern "C" fn(R, *mut rocprofiler_user_data_t, *mut c_void);
    // SAFETY: non-zero function address of that type (the caller's promise).
    let f: Callback<R> = unsafe { std::mem::transmute(svc.callback.0) };
    // SAFETY: calling the tool's callback with the documented arguments.
    unsafe { f(rec, user_data, svc.data.ptr()) };
}

/// External correlation id of a new record on `ctx`: the request callback's answer if the
/// context asked for this request kind and the callback returned 0, else the top of the
/// push/pop stack (reference §2.10).
pub fn external_id(
    ctx: &Context,
    services: &Services,
    tid: u64,
    request_kind_name: &str,
    op: i32,
    internal: u64,
) -> u64 {
    let kind = services
        .request
        .as_ref()
        .and_then(|_| state::personality().request_kind(request_kind_name));
    external_id_of_kind(ctx, services, tid, kind, op, internal)
}

/// [`external_id`] with the request kind already resolved in the running personality
/// (`None`: the release has no such request kind).
#[inline]
pub fn external_id_of_kind(
    ctx: &Context,
    services: &Services,
    tid: u64,
    request_kind: Option<u32>,
    op: i32,
    internal: u64,
) -> u64 {
    if let Some(req) = services
        .request
        .as_ref()
        .filter(|_| !state::tool_calls_skipped())
    {
        if let Some(kind) = request_kind {
            let wanted = req.kinds.as_ref().is_none_or(|k| k.contains(&kind));
            if let (true, Some(cb)) = (wanted, req.callback) {
                let mut value = rocprofiler_user_data_t { value: 0 };
                // SAFETY: tool callback with the documented signature; `value` outlives the call.
                let rc = unsafe {
                    cb(
                        tid,
                        rocprofiler_context_id_t { handle: ctx.handle },
                        kind,
                        op,
                        internal,
                        &mut value,
                        req.data.ptr(),
                    )
                };
                if rc == 0 {
                    // SAFETY: both union members are 8-byte plain data.
                    return unsafe { value.value };
                }
            }
        }
    }
    ctx.external_top(tid)
}

/// Whether a context traces a kind in either mode (buffer kind name / callback kind name).
pub fn traces(services: &Services, buffer_kind: Option<u32>, callback_kind: Option<u32>) -> bool {
    buffer_kind.is_some_and(|k| services.buffer.contains_key(&k))
        || callback_kind.is_some_and(|k| services.callback.contains_key(&k))
}

/// A HIP API buffer record in the layout of the running personality (`_EXT`: 1.x only).
#[derive(Clone, Copy)]
pub enum ApiRecord {
    V0(rocprofiler_buffer_tracing_hip_api_record_v0_t),
    V1(rocprofiler_buffer_tracing_hip_api_record_v1_t),
    Ext(rocprofiler_buffer_tracing_hip_api_ext_record_t),
}

impl ApiRecord {
    pub fn bytes(&self) -> &[u8] {
        match self {
            ApiRecord::V0(r) => as_bytes(r),
            ApiRecord::V1(r) => as_bytes(r),
            ApiRecord::Ext(r) => as_bytes(r),
        }
    }
}

pub fn api_record(kind: u32, op: i32, corr: Corr, start: u64, end: u64, tid: u64) -> ApiRecord {
    if state::personality().is_v1() {
        ApiRecord::V1(rocprofiler_buffer_tracing_hip_api_record_v1_t {
            size: std::mem::size_of::<rocprofiler_buffer_tracing_hip_api_record_v1_t>() as u64,
            kind,
            operation: op,
            correlation_id: corr.v1(),
            start_timestamp: start,
            end_timestamp: end,
            thread_id: tid,
        })
    } else {
        ApiRecord::V0(rocprofiler_buffer_tracing_hip_api_record_v0_t {
            size: std::mem::size_of::<rocprofiler_buffer_tracing_hip_api_record_v0_t>() as u64,
            kind,
            operation: op,
            correlation_id: corr.v0(),
            start_timestamp: start,
            end_timestamp: end,
            thread_id: tid,
        })
    }
}

#[allow(clippy::too_many_arguments)]
pub fn api_ext_record(
    kind: u32,
    op: i32,
    corr: Corr,
    start: u64,
    end: u64,
    tid: u64,
    args: rocprofiler_hip_api_args_t,
    retval: rocprofiler_hip_api_retval_t,
) -> ApiRecord {
    ApiRecord::Ext(rocprofiler_buffer_tracing_hip_api_ext_record_t {
        size: std::mem::size_of::<rocprofiler_buffer_tracing_hip_api_ext_record_t>() as u64,
        kind,
        operation: op,
        correlation_id: corr.v1(),
        start_timestamp: start,
        end_timestamp: end,
        thread_id: tid,
        args,
        retval,
    })
}
