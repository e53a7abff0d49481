//! The SDK's counter queries and its buffered dispatch counting service, over the counter model
//! of [`crate::counters`] (**test infrastructure**).
//!
//! What the real service does and this one reproduces (docs/abi.md, "Hardware counters"):
//! the tool lists an agent's counters (`rocprofiler_iterate_agent_supported_counters`), reads
//! their names and dimensions (`rocprofiler_query_counter_info` version 0,
//! `rocprofiler_iterate_counter_dimensions`), builds a config per agent (refused with
//! `ERROR_EXCEEDS_HW_LIMIT` past a block's per-pass limit), and configures the buffered
//! dispatch counting service on a context. Before each kernel is enqueued the runtime calls the
//! tool's dispatch callback on the launching thread with the dispatch's data (by value); the
//! tool answers with a config (or none). When the kernel completes, the runtime puts into the
//! service's buffer one header record (category `COUNTERS`, kind
//! `PROFILE_COUNTING_DISPATCH_HEADER`) and then one value record per counter instance (kind
//! `VALUE`), the 32-byte 0.x record or the 40-byte 1.x one. Function names follow the
//! personality: 0.x answers only the 0.x spellings, 1.x only the 1.x ones (the other answers
//! `ERROR_NOT_IMPLEMENTED`, as a library without that symbol would leave it unresolved).
//!
//! Not modelled: the real service serialises kernel dispatches while it is on; the simulated
//! kernels keep the plan's times.

use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex, OnceLock};

use super::abi::*;
use super::buffer::Buffer;
use super::emit::as_bytes;
use super::state::{self, in_init_window, lock, status, Context, Opaque, REGISTRY};
use crate::counters::{self, Arch, CounterDef, Dispatch};
use crate::plan::{GpuSpec, KernelWork};

pub(super) fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(on_panic)
}

pub(super) fn ok() -> rocprofiler_status_t {
    ROCPROFILER_STATUS_SUCCESS
}

/// Counter ids: `(gpu + 1) * 1000 + index in the GPU's catalogue + 1` (never 0).
const IDS_PER_GPU: u64 = 1000;

/// One GPU's counters.
pub(super) struct GpuCounters {
    pub(super) spec: GpuSpec,
    pub(super) defs: Vec<CounterDef>,
    /// The strings `rocprofiler_query_counter_info` hands out (owned here, never freed).
    names: Vec<CString>,
    descriptions: Vec<CString>,
    blocks: Vec<CString>,
}

static GPUS: OnceLock<Vec<GpuCounters>> = OnceLock::new();

/// The GPUs whose counters the runtime offers (the plan's; first call wins).
pub fn install(gpus: &[GpuSpec]) {
    let _ = GPUS.set(
        gpus.iter()
            .map(|g| {
                let defs = Arch::of(g).map(counters::catalogue).unwrap_or_default();
                let cs = |f: fn(&CounterDef) -> &'static str| {
                    defs.iter()
                        .map(|d| CString::new(f(d)).unwrap_or_default())
                        .collect()
                };
                GpuCounters {
                    spec: g.clone(),
                    names: cs(|d| d.name),
                    descriptions: cs(|d| d.description),
                    blocks: cs(|d| d.block),
                    defs,
                }
            })
            .collect(),
    );
}

pub(super) fn gpus() -> &'static [GpuCounters] {
    GPUS.get().map_or(&[], Vec::as_slice)
}

/// The GPU index of an agent handle (agent 0 is the CPU).
pub(super) fn gpu_of_agent(handle: u64) -> Option<usize> {
    let offset = REGISTRY.lock().agent_offset;
    let rel = handle.checked_sub(offset)?;
    (rel % 16 == 0 && rel >= 16)
        .then(|| (rel / 16 - 1) as usize)
        .filter(|&g| g < gpus().len())
}

/// `(gpu, index)` of a counter id.
fn counter(id: u64) -> Option<(usize, usize)> {
    let gpu = (id / IDS_PER_GPU).checked_sub(1)? as usize;
    let idx = (id % IDS_PER_GPU).checked_sub(1)? as usize;
    (gpus().get(gpu)?.defs.len() > idx).then_some((gpu, idx))
}

pub(super) fn counter_id(gpu: usize, idx: usize) -> u64 {
    (gpu as u64 + 1) * IDS_PER_GPU + idx as u64 + 1
}

/// A counter config: the agent's GPU and the counters' catalogue indices.
pub(super) struct Config {
    pub(super) gpu: usize,
    pub(super) counters: Vec<usize>,
}

static CONFIGS: Mutex<Option<HashMap<u64, Arc<Config>>>> = Mutex::new(None);

/// The config of handle `id`, if it exists.
pub(super) fn config(id: u64) -> Option<Arc<Config>> {
    lock(&CONFIGS).as_ref().and_then(|m| m.get(&id).cloned())
}
static NEXT_CONFIG: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The dispatch counting service of a context.
#[derive(Clone)]
pub struct DispatchCounting {
    pub buffer: Arc<Buffer>,
    pub callback: Opaque,
    pub data: Opaque,
}

/// `ERROR_NOT_IMPLEMENTED` unless the running personality has this spelling.
pub(super) fn spelled(v1_name: bool) -> Option<rocprofiler_status_t> {
    (state::personality().is_v1() != v1_name).then(|| status("ERROR_NOT_IMPLEMENTED"))
}

// ---- queries -------------------------------------------------------------------------------

/// # Safety
/// `cb` must be a valid callback; `user_data` is passed back verbatim.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_agent_supported_counters(
    agent_id: rocprofiler_agent_id_t,
    cb: rocprofiler_available_counters_cb_t,
    user_data: *mut c_void,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        let Some(cb) = cb else {
            return status("ERROR_INVALID_ARGUMENT");
        };
        let Some(gpu) = gpu_of_agent(agent_id.handle) else {
            return status("ERROR_AGENT_NOT_FOUND");
        };
        let mut ids: Vec<rocprofiler_counter_id_t> = (0..gpus()[gpu].defs.len())
            .map(|i| rocprofiler_counter_id_t {
                handle: counter_id(gpu, i),
            })
            .collect();
        if ids.is_empty() {
            return status("ERROR");
        }
        // SAFETY: the tool registered `cb` with this signature; `ids` lives across the call.
        unsafe { cb(agent_id, ids.as_mut_ptr(), ids.len(), user_data) };
        ok()
    })
}
const _: rocprofiler_iterate_agent_supported_counters_fn =
    Some(rocprofiler_iterate_agent_supported_counters);

/// # Safety
/// `info` must point to a writable struct of the version asked for.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_counter_info(
    counter_id: rocprofiler_counter_id_t,
    version: rocprofiler_counter_info_version_id_t,
    info: *mut c_void,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        if info.is_null() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        if version != ROCPROFILER_COUNTER_INFO_VERSION_0 {
            return status("ERROR_INCOMPATIBLE_ABI");
        }
        let Some((gpu, idx)) = counter(counter_id.handle) else {
            return status("ERROR_COUNTER_NOT_FOUND");
        };
        let g = &gpus()[gpu];
        let out = rocprofiler_counter_info_v0_t {
            id: counter_id,
            name: g.names[idx].as_ptr(),
            description: g.descriptions[idx].as_ptr(),
            block: g.blocks[idx].as_ptr(),
            expression: c"".as_ptr(),
            flags: 0,
        };
        // SAFETY: non-null, the caller's struct of version 0.
        unsafe { (info as *mut rocprofiler_counter_info_v0_t).write(out) };
        ok()
    })
}
const _: rocprofiler_query_counter_info_fn = Some(rocprofiler_query_counter_info);

/// # Safety
/// `info_cb` must be a valid callback.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_counter_dimensions(
    id: rocprofiler_counter_id_t,
    info_cb: rocprofiler_available_dimensions_cb_t,
    user_data: *mut c_void,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        let Some(cb) = info_cb else {
            return status("ERROR_INVALID_ARGUMENT");
        };
        let Some((gpu, idx)) = counter(id.handle) else {
            return status("ERROR_COUNTER_NOT_FOUND");
        };
        let g = &gpus()[gpu];
        let dims: Vec<rocprofiler_counter_record_dimension_info_t> =
            counters::dimensions(&g.defs[idx], &g.spec)
                .into_iter()
                .map(|(dim, n)| rocprofiler_counter_record_dimension_info_t {
                    name: dimension_cstr(dim).as_ptr(),
                    instance_size: n as usize,
                    id: dim,
                })
                .collect();
        // SAFETY: the tool registered `cb` with this signature; `dims` lives across the call.
        unsafe { cb(id, dims.as_ptr(), dims.len(), user_data) };
        ok()
    })
}
const _: rocprofiler_iterate_counter_dimensions_fn = Some(rocprofiler_iterate_counter_dimensions);

fn dimension_cstr(dim: u64) -> &'static std::ffi::CStr {
    match counters::dimension_name(dim) {
        "DIMENSION_XCC" => c"DIMENSION_XCC",
        "DIMENSION_SHADER_ENGINE" => c"DIMENSION_SHADER_ENGINE",
        "DIMENSION_INSTANCE" => c"DIMENSION_INSTANCE",
        _ => c"DIMENSION_NONE",
    }
}

/// # Safety
/// `counter_id` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_record_counter_id(
    id: rocprofiler_counter_instance_id_t,
    counter_id: *mut rocprofiler_counter_id_t,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        if counter_id.is_null() {
            return status("ERROR_INVALID_ARGUMENT");
        }
        // SAFETY: non-null, caller-owned.
        unsafe {
            counter_id.write(rocprofiler_counter_id_t {
                handle: counters::counter_of_instance(id),
            })
        };
        ok()
    })
}
const _: rocprofiler_query_record_counter_id_fn = Some(rocprofiler_query_record_counter_id);

// ---- configs -------------------------------------------------------------------------------

fn create_config(
    agent_id: rocprofiler_agent_id_t,
    list: *mut rocprofiler_counter_id_t,
    count: usize,
    config_id: *mut rocprofiler_counter_config_id_t,
) -> rocprofiler_status_t {
    if config_id.is_null() || (list.is_null() && count > 0) {
        return status("ERROR_INVALID_ARGUMENT");
    }
    let Some(gpu) = gpu_of_agent(agent_id.handle) else {
        return status("ERROR_AGENT_NOT_FOUND");
    };
    let ids = if count == 0 {
        &[][..]
    } else {
        // SAFETY: `list` is non-null (checked above) and holds `count` ids per the contract.
        unsafe { std::slice::from_raw_parts(list, count) }
    };
    let mut picked = Vec::new();
    let mut per_block: HashMap<&str, usize> = HashMap::new();
    for id in ids {
        match counter(id.handle) {
            Some((g, idx)) if g == gpu => {
                let block = gpus()[gpu].defs[idx].block;
                let n = per_block.entry(block).or_default();
                *n += 1;
                if *n > counters::block_limit(block) {
                    return status("ERROR_EXCEEDS_HW_LIMIT");
                }
                picked.push(idx);
            }
            _ => return status("ERROR_PROFILE_COUNTER_NOT_FOUND"),
        }
    }
    if picked.is_empty() {
        return status("ERROR_NO_HARDWARE_COUNTERS");
    }
    let handle = NEXT_CONFIG.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    lock(&CONFIGS).get_or_insert_with(HashMap::new).insert(
        handle,
        Arc::new(Config {
            gpu,
            counters: picked,
        }),
    );
    // SAFETY: non-null, caller-owned.
    unsafe { config_id.write(rocprofiler_counter_config_id_t { handle }) };
    ok()
}

fn destroy_config(config_id: rocprofiler_counter_config_id_t) -> rocprofiler_status_t {
    match lock(&CONFIGS)
        .as_mut()
        .and_then(|m| m.remove(&config_id.handle))
    {
        Some(_) => ok(),
        None => status("ERROR_PROFILE_NOT_FOUND"),
    }
}

/// 1.x spelling.
///
/// # Safety
/// `counters_list` must hold `counters_count` ids; `config_id` must be writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_create_counter_config(
    agent_id: rocprofiler_agent_id_t,
    counters_list: *mut rocprofiler_counter_id_t,
    counters_count: usize,
    config_id: *mut rocprofiler_counter_config_id_t,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(true)
            .unwrap_or_else(|| create_config(agent_id, counters_list, counters_count, config_id))
    })
}
const _: rocprofiler_create_counter_config_fn = Some(rocprofiler_create_counter_config);

/// 0.x spelling.
///
/// # Safety
/// As [`rocprofiler_create_counter_config`].
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_create_profile_config(
    agent_id: rocprofiler_agent_id_t,
    counters_list: *mut rocprofiler_counter_id_t,
    counters_count: usize,
    config_id: *mut rocprofiler_counter_config_id_t,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(false)
            .unwrap_or_else(|| create_config(agent_id, counters_list, counters_count, config_id))
    })
}
const _: rocprofiler_create_counter_config_fn = Some(rocprofiler_create_profile_config);

#[no_mangle]
pub extern "C" fn rocprofiler_destroy_counter_config(
    config_id: rocprofiler_counter_config_id_t,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(true).unwrap_or_else(|| destroy_config(config_id))
    })
}
const _: rocprofiler_destroy_counter_config_fn = Some(rocprofiler_destroy_counter_config);

#[no_mangle]
pub extern "C" fn rocprofiler_destroy_profile_config(
    config_id: rocprofiler_counter_config_id_t,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(false).unwrap_or_else(|| destroy_config(config_id))
    })
}
const _: rocprofiler_destroy_counter_config_fn = Some(rocprofiler_destroy_profile_config);

// ---- the dispatch counting service ---------------------------------------------------------

fn configure_dispatch_counting(
    context_id: rocprofiler_context_id_t,
    buffer_id: rocprofiler_buffer_id_t,
    callback: rocprofiler_dispatch_counting_service_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    if !in_init_window() {
        return status("ERROR_CONFIGURATION_LOCKED");
    }
    let Some(cb) = callback else {
        return status("ERROR_INVALID_ARGUMENT");
    };
    let reg = REGISTRY.lock();
    let Some(ctx) = reg.context(context_id.handle) else {
        return status("ERROR_CONTEXT_NOT_FOUND");
    };
    let Some(buffer) = reg.buffer(buffer_id.handle) else {
        return status("ERROR_BUFFER_NOT_FOUND");
    };
    ctx.edit_services(|svc| {
        if svc.dispatch_counting.is_some() {
            return status("ERROR_SERVICE_ALREADY_CONFIGURED");
        }
        if svc.device_counting.is_some() {
            return status("ERROR_AGENT_DISPATCH_CONFLICT");
        }
        svc.dispatch_counting = Some(DispatchCounting {
            buffer,
            callback: Opaque(cb as usize),
            data: Opaque(data as usize),
        });
        ok()
    })
}

/// 1.x spelling.
///
/// # Safety
/// `callback` must be a dispatch counting callback; `callback_data_args` is passed back.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_buffer_dispatch_counting_service(
    context_id: rocprofiler_context_id_t,
    buffer_id: rocprofiler_buffer_id_t,
    callback: rocprofiler_dispatch_counting_service_cb_t,
    callback_data_args: *mut c_void,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(true).unwrap_or_else(|| {
            configure_dispatch_counting(context_id, buffer_id, callback, callback_data_args)
        })
    })
}
const _: rocprofiler_configure_buffer_dispatch_counting_service_fn =
    Some(rocprofiler_configure_buffer_dispatch_counting_service);

/// 0.x spelling.
///
/// # Safety
/// As [`rocprofiler_configure_buffer_dispatch_counting_service`].
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_buffered_dispatch_profile_counting_service(
    context_id: rocprofiler_context_id_t,
    buffer_id: rocprofiler_buffer_id_t,
    callback: rocprofiler_dispatch_counting_service_cb_t,
    callback_data_args: *mut c_void,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(false).unwrap_or_else(|| {
            configure_dispatch_counting(context_id, buffer_id, callback, callback_data_args)
        })
    })
}
const _: rocprofiler_configure_buffer_dispatch_counting_service_fn =
    Some(rocprofiler_configure_buffered_dispatch_profile_counting_service);

/// What one context's dispatch callback answered for one dispatch.
pub struct Counting {
    buffer: Arc<Buffer>,
    config: Arc<Config>,
    user: u64,
}

/// Calls the dispatch callback of every active context with a dispatch counting service (on the
/// launching thread, before the kernel is enqueued), and keeps what each answered.
pub fn on_enqueue(
    ctxs: &[(Arc<Context>, Arc<state::Services>)],
    data: rocprofiler_dispatch_counting_service_data_t,
) -> Vec<Counting> {
    let mut out = Vec::new();
    if state::tool_calls_skipped() {
        return out;
    }
    for (_, svc) in ctxs {
        let Some(dc) = &svc.dispatch_counting else {
            continue;
        };
        let mut config = rocprofiler_counter_config_id_t { handle: 0 };
        let mut user = rocprofiler_user_data_t { value: 0 };
        // SAFETY: the tool registered this pointer as a dispatch counting callback; the
        // arguments live across the call.
        unsafe {
            let cb: unsafe extern "C" fn(
                rocprofiler_dispatch_counting_service_data_t,
                *mut rocprofiler_counter_config_id_t,
                *mut rocprofiler_user_data_t,
                *mut c_void,
            ) = std::mem::transmute(dc.callback.0);
            cb(data, &mut config, &mut user, dc.data.0 as *mut c_void);
        }
        if config.handle == 0 {
            continue;
        }
        let Some(cfg) = lock(&CONFIGS)
            .as_ref()
            .and_then(|m| m.get(&config.handle).cloned())
        else {
            eprintln!(
                "rocprof-sim: dispatch callback returned unknown config {}",
                config.handle
            );
            continue;
        };
        // SAFETY: plain 8-byte union.
        let user = unsafe { user.value };
        out.push(Counting {
            buffer: Arc::clone(&dc.buffer),
            config: cfg,
            user,
        });
    }
    out
}

/// Puts the counter records of a completed dispatch into each answering context's buffer: the
/// header record, then one value record per instance of each counter of the config.
pub fn on_complete(
    counting: &[Counting],
    data: &rocprofiler_dispatch_counting_service_data_t,
    work: &KernelWork,
) {
    for c in counting {
        let Some(g) = gpus().get(c.config.gpu) else {
            continue;
        };
        let info = &data.dispatch_info;
        let d = Dispatch {
            gpu: &g.spec,
            grid_items: [info.grid_size.x, info.grid_size.y, info.grid_size.z],
            block: [
                info.workgroup_size.x,
                info.workgroup_size.y,
                info.workgroup_size.z,
            ],
            duration_ns: data.end_timestamp.saturating_sub(data.start_timestamp),
            work,
        };
        let mut values = Vec::new();
        for &idx in &c.config.counters {
            let def = &g.defs[idx];
            let dims = counters::dimensions(def, &g.spec);
            for (i, v) in d.instances(def).into_iter().enumerate() {
                let pos = counters::positions(&dims, i as u64);
                values.push((
                    counters::instance_id(counter_id(c.config.gpu, idx), &dims, &pos),
                    v as f64,
                ));
            }
        }
        let header = rocprofiler_dispatch_counting_service_record_t {
            size: std::mem::size_of::<rocprofiler_dispatch_counting_service_record_t>() as u64,
            num_records: values.len() as u64,
            correlation_id: data.correlation_id,
            start_timestamp: data.start_timestamp,
            end_timestamp: data.end_timestamp,
            dispatch_info: data.dispatch_info,
        };
        let cat = ROCPROFILER_BUFFER_CATEGORY_COUNTERS;
        c.buffer.emplace_in(
            cat,
            ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER,
            as_bytes(&header),
        );
        let v1 = state::personality().is_v1();
        for (id, value) in values {
            let rec = rocprofiler_counter_record_v1_t {
                id,
                counter_value: value,
                dispatch_id: info.dispatch_id,
                user_data: rocprofiler_user_data_t { value: c.user },
                agent_id: info.agent_id,
            };
            // The 0.x record is the 32-byte prefix of the 1.x one.
            let bytes = as_bytes(&rec);
            let len = if v1 {
                bytes.len()
            } else {
                std::mem::size_of::<rocprofiler_counter_record_v0_t>()
            };
            c.buffer
                .emplace_in(cat, ROCPROFILER_COUNTER_RECORD_VALUE, &bytes[..len]);
        }
    }
}
