//! The SDK's device counting service (**test infrastructure**): counters read over a whole GPU
//! on demand, whatever runs on it.
//!
//! What the real service does and this one reproduces (`device_counting_service.h` and
//! `counters/device_counting.cpp` of rocprofiler-sdk in ROCm/rocm-systems): the tool configures
//! the service once per agent on a context (`rocprofiler_configure_device_counting_service`,
//! 0.x `rocprofiler_configure_agent_profile_counting_service`), with a buffer and a callback.
//! When the context starts, the runtime calls that callback for each configured agent with a
//! `set_config` function the tool calls with the agent's counter config; the counters start
//! then. Each `rocprofiler_sample_device_counting_service` (0.x
//! `rocprofiler_sample_agent_profile_counting_service`, three arguments) reads the running
//! counters of every agent of the context — values accumulated since the context started — and
//! puts one value record per counter instance into the buffer (category `COUNTERS`, kind
//! `VALUE`, no header record), each carrying the sample's `user_data` and, in 1.x, the agent;
//! 1.x can instead return them in the caller's array. A context cannot hold both a dispatch and
//! a device counting service (`ERROR_AGENT_DISPATCH_CONFLICT`).
//!
//! Values (`counters::device_total`): `GRBM_GUI_ACTIVE` = the cycles some simulated kernel ran
//! on the GPU since the start, `GRBM_COUNT` = the cycles elapsed; every other counter sums the
//! kernels completed since the start. Not modelled: the cost of a read on the GPU.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};

use super::abi::*;
use super::buffer::Buffer;
use super::counting::{config, counter_id, gpu_of_agent, gpus, guard, ok, spelled, Config};
use super::emit::as_bytes;
use super::state::{self, in_init_window, lock, status, Opaque, REGISTRY};
use crate::counters::{self, KernelSpan};

/// One agent the service was configured for on a context.
#[derive(Clone)]
pub struct DeviceAgent {
    pub agent: u64,
    pub callback: Opaque,
    pub data: Opaque,
}

/// The device counting service of a context.
#[derive(Clone)]
pub struct DeviceCounting {
    pub buffer: Option<Arc<Buffer>>,
    pub agents: Vec<DeviceAgent>,
}

/// Per GPU, the kernels of the plan on its timeline (absolute ns; set once by the replay).
static TIMELINE: OnceLock<Vec<Vec<KernelSpan>>> = OnceLock::new();

pub fn set_timeline(per_gpu: Vec<Vec<KernelSpan>>) {
    let _ = TIMELINE.set(per_gpu);
}

/// The counting state of a started context: when its counters started and each agent's config.
struct Started {
    start_ns: u64,
    configs: Vec<Arc<Config>>,
}

static STARTED: Mutex<Option<HashMap<u64, Started>>> = Mutex::new(None);

fn configure(
    context_id: rocprofiler_context_id_t,
    buffer_id: rocprofiler_buffer_id_t,
    agent_id: rocprofiler_agent_id_t,
    cb: rocprofiler_device_counting_service_cb_t,
    user_data: *mut c_void,
) -> rocprofiler_status_t {
    if !in_init_window() {
        return status("ERROR_CONFIGURATION_LOCKED");
    }
    let Some(cb) = cb else {
        return status("ERROR_INVALID_ARGUMENT");
    };
    if gpu_of_agent(agent_id.handle).is_none() {
        return status("ERROR_AGENT_NOT_FOUND");
    }
    let reg = REGISTRY.lock();
    let Some(ctx) = reg.context(context_id.handle) else {
        return status("ERROR_CONTEXT_INVALID");
    };
    let buffer = match buffer_id.handle {
        0 => None,
        h => match reg.buffer(h) {
            Some(b) => Some(b),
            None => return status("ERROR_BUFFER_NOT_FOUND"),
        },
    };
    ctx.edit_services(|svc| {
        if svc.dispatch_counting.is_some() {
            return status("ERROR_AGENT_DISPATCH_CONFLICT");
        }
        let dc = svc.device_counting.get_or_insert_with(|| DeviceCounting {
            buffer: buffer.clone(),
            agents: Vec::new(),
        });
        if dc.agents.iter().any(|a| a.agent == agent_id.handle) {
            return status("ERROR_INVALID_ARGUMENT");
        }
        dc.agents.push(DeviceAgent {
            agent: agent_id.handle,
            callback: Opaque(cb as usize),
            data: Opaque(user_data as usize),
        });
        ok()
    })
}

/// 1.x spelling.
///
/// # Safety
/// `cb` must be a device counting service callback; `user_data` is passed back verbatim.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_device_counting_service(
    context_id: rocprofiler_context_id_t,
    buffer_id: rocprofiler_buffer_id_t,
    agent_id: rocprofiler_agent_id_t,
    cb: rocprofiler_device_counting_service_cb_t,
    user_data: *mut c_void,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(true).unwrap_or_else(|| configure(context_id, buffer_id, agent_id, cb, user_data))
    })
}
const _: rocprofiler_configure_device_counting_service_fn =
    Some(rocprofiler_configure_device_counting_service);

/// 0.x spelling.
///
/// # Safety
/// As [`rocprofiler_configure_device_counting_service`].
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_agent_profile_counting_service(
    context_id: rocprofiler_context_id_t,
    buffer_id: rocprofiler_buffer_id_t,
    agent_id: rocprofiler_agent_id_t,
    cb: rocprofiler_device_counting_service_cb_t,
    user_data: *mut c_void,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(false).unwrap_or_else(|| configure(context_id, buffer_id, agent_id, cb, user_data))
    })
}
const _: rocprofiler_configure_device_counting_service_fn =
    Some(rocprofiler_configure_agent_profile_counting_service);

thread_local! {
    /// The configs `set_config` received during the start callbacks of this thread's
    /// `rocprofiler_start_context` (`None`: not inside one).
    static SETTING: std::cell::RefCell<Option<Vec<Arc<Config>>>> =
        const { std::cell::RefCell::new(None) };
}

/// The `set_config` the start callback hands the tool: only valid during that callback.
extern "C" fn set_config(
    _context_id: rocprofiler_context_id_t,
    config_id: rocprofiler_counter_config_id_t,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        let Some(cfg) = config(config_id.handle) else {
            return status("ERROR_PROFILE_NOT_FOUND");
        };
        SETTING.with(|s| match s.borrow_mut().as_mut() {
            Some(list) => {
                list.retain(|c| c.gpu != cfg.gpu);
                list.push(cfg);
                ok()
            }
            None => status("ERROR_CONFIGURATION_LOCKED"),
        })
    })
}

/// At `rocprofiler_start_context`: asks the tool for each configured agent's config and starts
/// the counters of the context at `now`.
pub fn on_start(ctx: &state::Context) {
    let svc = ctx.services();
    let Some(dc) = &svc.device_counting else {
        return;
    };
    SETTING.with(|s| *s.borrow_mut() = Some(Vec::new()));
    for a in &dc.agents {
        // SAFETY: the tool registered this pointer as a device counting callback; `set_config`
        // has the callback's signature.
        unsafe {
            let cb: unsafe extern "C" fn(
                rocprofiler_context_id_t,
                rocprofiler_agent_id_t,
                rocprofiler_device_counting_agent_cb_t,
                *mut c_void,
            ) = std::mem::transmute(a.callback.0);
            cb(
                rocprofiler_context_id_t { handle: ctx.handle },
                rocprofiler_agent_id_t { handle: a.agent },
                Some(set_config),
                a.data.0 as *mut c_void,
            );
        }
    }
    let configs = SETTING.with(|s| s.borrow_mut().take()).unwrap_or_default();
    lock(&STARTED).get_or_insert_with(HashMap::new).insert(
        ctx.handle,
        Started {
            start_ns: state::timestamp_ns(),
            configs,
        },
    );
}

/// The value records a read of context `ctx` at `now` gives (1.x layout; the 0.x record is
/// its 32-byte prefix).
fn read(
    ctx: u64,
    user_data: rocprofiler_user_data_t,
    now: u64,
) -> Option<Vec<rocprofiler_counter_record_v1_t>> {
    let started = lock(&STARTED);
    let st = started.as_ref()?.get(&ctx)?;
    let timeline = TIMELINE.get().map_or(&[][..], Vec::as_slice);
    let mut out = Vec::new();
    for cfg in &st.configs {
        let Some(g) = gpus().get(cfg.gpu) else {
            continue;
        };
        let kernels = timeline.get(cfg.gpu).map_or(&[][..], Vec::as_slice);
        let agent = super::agents::agent_handle(cfg.gpu + 1);
        for &idx in &cfg.counters {
            let def = &g.defs[idx];
            let dims = counters::dimensions(def, &g.spec);
            let values = counters::device_instances(def, &g.spec, kernels, st.start_ns, now);
            log_read(ReadTruth {
                ctx,
                user: user_data,
                now,
                gpu: cfg.gpu,
                agent,
                counter: def.name,
                total: values.iter().sum(),
            });
            for (i, v) in values.into_iter().enumerate() {
                let pos = counters::positions(&dims, i as u64);
                out.push(rocprofiler_counter_record_v1_t {
                    id: counters::instance_id(counter_id(cfg.gpu, idx), &dims, &pos),
                    counter_value: v as f64,
                    dispatch_id: 0,
                    user_data,
                    agent_id: rocprofiler_agent_id_t { handle: agent },
                });
            }
        }
    }
    Some(out)
}

/// With `ROCPROF_SIM_DEVICE_READS=<file>`, each read's truth is appended to the file, one
/// JSON line per counter of each GPU read: the context, the read's user data, the simulated
/// time of the read, the GPU (its index, the profile's GPU ordinal) and agent, the counter and
/// its value summed over its instances. Tests
/// compare a tool's per-interval values with the differences of these.
struct ReadTruth<'a> {
    ctx: u64,
    user: rocprofiler_user_data_t,
    now: u64,
    gpu: usize,
    agent: u64,
    counter: &'a str,
    total: u64,
}

fn log_read(r: ReadTruth<'_>) {
    use std::io::Write;
    static FILE: OnceLock<Option<Mutex<std::fs::File>>> = OnceLock::new();
    let file = FILE.get_or_init(|| {
        let path = std::env::var_os("ROCPROF_SIM_DEVICE_READS")?;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()?;
        Some(Mutex::new(f))
    });
    if let Some(f) = file {
        // SAFETY: the user data is a plain 8-byte union; its value member covers it.
        let user = unsafe { r.user.value };
        let line = serde_json::json!({
            "ctx": r.ctx, "user": user, "now": r.now, "gpu": r.gpu, "agent": r.agent,
            "counter": r.counter, "total": r.total,
        });
        let _ = writeln!(lock(f), "{line}");
    }
}

fn sample(
    context_id: rocprofiler_context_id_t,
    user_data: rocprofiler_user_data_t,
    flags: rocprofiler_counter_flag_t,
    output: Option<(*mut rocprofiler_counter_record_v1_t, *mut usize)>,
) -> rocprofiler_status_t {
    let Some(ctx) = REGISTRY.lock().context(context_id.handle) else {
        return status("ERROR_CONTEXT_INVALID");
    };
    let svc = ctx.services();
    let Some(dc) = &svc.device_counting else {
        return status("ERROR_CONTEXT_INVALID");
    };
    if output.is_some() && flags & ROCPROFILER_COUNTER_FLAG_ASYNC != 0 {
        return status("ERROR_INVALID_ARGUMENT");
    }
    let Some(records) = read(context_id.handle, user_data, state::timestamp_ns()) else {
        // Not started: nothing is counting yet.
        return status("ERROR_CONTEXT_ERROR");
    };
    if let Some((array, count)) = output {
        // SAFETY: the caller passes a writable count holding its array's capacity.
        let cap = unsafe { count.read() };
        if records.len() > cap {
            return status("ERROR_OUT_OF_RESOURCES");
        }
        // SAFETY: `array` holds `cap` >= records.len() records per the contract.
        unsafe {
            std::ptr::copy_nonoverlapping(records.as_ptr(), array, records.len());
            count.write(records.len());
        }
    }
    if let Some(buf) = &dc.buffer {
        let len = if state::personality().is_v1() {
            std::mem::size_of::<rocprofiler_counter_record_v1_t>()
        } else {
            std::mem::size_of::<rocprofiler_counter_record_v0_t>()
        };
        for rec in &records {
            buf.emplace_in(
                ROCPROFILER_BUFFER_CATEGORY_COUNTERS,
                ROCPROFILER_COUNTER_RECORD_VALUE,
                &as_bytes(rec)[..len],
            );
        }
    }
    ok()
}

/// 1.x: `output_records` null = records to the buffer only.
///
/// # Safety
/// `output_records`, when non-null, must hold `*rec_count` records and `rec_count` be writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_sample_device_counting_service(
    context_id: rocprofiler_context_id_t,
    user_data: rocprofiler_user_data_t,
    flags: rocprofiler_counter_flag_t,
    output_records: *mut rocprofiler_counter_record_v1_t,
    rec_count: *mut usize,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(true).unwrap_or_else(|| {
            let out = (!output_records.is_null() && !rec_count.is_null())
                .then_some((output_records, rec_count));
            sample(context_id, user_data, flags, out)
        })
    })
}
const _: rocprofiler_sample_device_counting_service_v1_fn =
    Some(rocprofiler_sample_device_counting_service);

/// 0.x: records to the buffer.
#[no_mangle]
pub extern "C" fn rocprofiler_sample_agent_profile_counting_service(
    context_id: rocprofiler_context_id_t,
    user_data: rocprofiler_user_data_t,
    flags: rocprofiler_counter_flag_t,
) -> rocprofiler_status_t {
    guard(status("ERROR"), || {
        spelled(false).unwrap_or_else(|| sample(context_id, user_data, flags, None))
    })
}
const _: rocprofiler_sample_device_counting_service_v0_fn =
    Some(rocprofiler_sample_agent_profile_counting_service);
