//! Tool lifecycle: `rocprofiler_configure` → `initialize` → … → `finalize`.
//!
//! Every function here is an `extern "C"` edge and runs inside `ffi_guard`. Nothing is fatal to
//! the profiled program: a failure at any step is reported on stderr and the tool steps aside.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use rocprofiler_sdk_sys as sys;

use crate::config::{self, LogLevel, Off, RunMode};
use crate::guard::ffi_guard;
use crate::sdk::session::{self, Session};
use crate::sdk::Abi;
use crate::{log_debug, log_error, log_info, log_warn};

/// Client name shown in the runtime's logs.
static CLIENT_NAME: &CStr = c"rocprof-xplane";

/// What `rocprofiler_configure` learned about the runtime.
#[derive(Debug, Clone)]
pub struct Configured {
    pub version: u32,
    pub abi: Abi,
    pub runtime_version: String,
    pub priority: u32,
}

static CONFIGURED: OnceLock<Configured> = OnceLock::new();
static FINALIZED: AtomicBool = AtomicBool::new(false);
/// Set in the child of a `fork()` of the traced process (a `pthread_atfork` handler).
static FORKED_CHILD: AtomicBool = AtomicBool::new(false);

/// Whether this is the child of a fork of the traced process. A forked child is **not
/// profiled**: it has only the forking thread, so locks other threads held at the fork (a
/// delivery in progress, another thread's capture state) stay held forever, and everything
/// collected so far is the parent's. Every callback and finalize therefore do nothing in the
/// child: no lock is taken, no flush waits for a delivery thread that does not exist, and the
/// parent's events are never written under the child's pid. (A child that execs a HIP program
/// starts a new process, which loads the tool afresh.)
#[inline]
pub fn in_forked_child() -> bool {
    FORKED_CHILD.load(Ordering::Relaxed)
}

extern "C" fn mark_forked_child() {
    FORKED_CHILD.store(true, Ordering::Relaxed);
}

/// The configure result handed to the runtime, which copies it.
struct ConfigureResult(sys::rocprofiler_tool_configure_result_t);
// SAFETY: the struct holds function pointers and a null `tool_data`; it is never mutated.
unsafe impl Sync for ConfigureResult {}

static RESULT: ConfigureResult = ConfigureResult(sys::rocprofiler_tool_configure_result_t {
    size: std::mem::size_of::<sys::rocprofiler_tool_configure_result_t>(),
    initialize: Some(tool_initialize),
    finalize: Some(tool_finalize),
    tool_data: std::ptr::null_mut(),
});

/// The attach result handed to the runtime (copied by it).
struct AttachResult(sys::rocprofiler_tool_configure_attach_result_t);
// SAFETY: function pointers and a null `tool_data`; never mutated.
unsafe impl Sync for AttachResult {}

static ATTACH_RESULT: AttachResult =
    AttachResult(sys::rocprofiler_tool_configure_attach_result_t {
        size: std::mem::size_of::<sys::rocprofiler_tool_configure_attach_result_t>(),
        tool_attach: Some(tool_attach),
        tool_detach: Some(tool_detach),
        tool_data: std::ptr::null_mut(),
    });

/// Body of the exported `rocprofiler_configure_attach`: the SDK calls it right after a
/// non-NULL `rocprofiler_configure` (same arguments) and uses the result only when the tool
/// is attached to a running process. Declined when our configure declined.
pub fn configure_attach() -> *mut sys::rocprofiler_tool_configure_attach_result_t {
    if CONFIGURED.get().is_none() {
        return std::ptr::null_mut();
    }
    &ATTACH_RESULT.0 as *const sys::rocprofiler_tool_configure_attach_result_t as *mut _
}

/// Body of the exported `rocprofiler_configure`.
///
/// # Safety
/// `runtime_version` must be null or NUL-terminated; `client_id` must be null or point to a
/// writable client id of the layout matching `version` (0.x: 16 bytes, 1.x: 24 bytes).
pub unsafe fn configure(
    version: u32,
    runtime_version: *const c_char,
    priority: u32,
    client_id: *mut c_void,
) -> *mut sys::rocprofiler_tool_configure_result_t {
    let cfg = config::get();
    match cfg.mode {
        RunMode::Off(Off::Disabled) => {
            log_info!("disabled by ROCPROF_XPLANE_DISABLE; not tracing");
            return std::ptr::null_mut();
        }
        RunMode::Off(Off::NoDomains) => {
            log_warn!("ROCPROF_XPLANE_DOMAINS selects nothing; not tracing");
            return std::ptr::null_mut();
        }
        // The configuration's warning line has said why.
        RunMode::Off(Off::ServiceUnusable) => {
            log_info!("no usable ROCPROF_XPLANE_SERVER; not tracing");
            return std::ptr::null_mut();
        }
        _ => {}
    }
    let abi = Abi::from_version(version);
    let runtime_version = if runtime_version.is_null() {
        String::new()
    } else {
        // SAFETY: non-null and NUL-terminated per the contract.
        unsafe { CStr::from_ptr(runtime_version) }
            .to_string_lossy()
            .into_owned()
    };
    let c = Configured {
        version,
        abi,
        runtime_version,
        priority,
    };
    if CONFIGURED.set(c).is_err() {
        log_warn!("rocprofiler_configure called twice; the second registration is declined");
        return std::ptr::null_mut();
    }
    // SAFETY: forwarded from our caller's contract.
    unsafe { write_client_name(abi, client_id) };
    if priority > 0 {
        log_info!("loaded as tool #{priority} beside another rocprofiler-sdk tool; tracing anyway");
    }
    log_info!("configured for rocprofiler-sdk {version} ({abi:?} layouts)");
    &RESULT.0 as *const sys::rocprofiler_tool_configure_result_t as *mut _
}

/// Names the client in the runtime's client id: `name` sits at offset 0 in the 0.x layout and
/// at offset 8 in 1.x (after the new leading `size`).
///
/// # Safety
/// `client_id` must be null or point to a writable client id of `abi`'s layout.
pub unsafe fn write_client_name(abi: Abi, client_id: *mut c_void) {
    if client_id.is_null() {
        return;
    }
    // SAFETY: per the contract; our name is a static C string that outlives the process's use.
    unsafe {
        match abi {
            Abi::V0 => {
                (*(client_id as *mut sys::rocprofiler_client_id_v0_t)).name = CLIENT_NAME.as_ptr()
            }
            Abi::V1 => {
                (*(client_id as *mut sys::rocprofiler_client_id_v1_t)).name = CLIENT_NAME.as_ptr()
            }
        }
    }
}

unsafe extern "C" fn tool_initialize(
    _finalize: sys::rocprofiler_client_finalize_any_t,
    _tool_data: *mut c_void,
) -> c_int {
    ffi_guard("initialize", -1, || {
        // SAFETY: registers a handler that only stores to an atomic (async-signal-safe, as a
        // child handler of a multi-threaded process must be); no prepare/parent handlers.
        if unsafe { libc::pthread_atfork(None, None, Some(mark_forked_child)) } != 0 {
            log_warn!("pthread_atfork failed: a forked child would try to write a profile");
        }
        let Some(c) = CONFIGURED.get() else {
            log_error!("initialize called before configure; not tracing");
            return -1;
        };
        let cfg = config::get();
        crate::budget::set_limit(cfg.max_memory);
        // At debug level the edges time themselves (two clock reads per callback), for the
        // finalize line that gives the tool's whole cost per record.
        if crate::log::enabled(LogLevel::Debug) {
            crate::selftime::enable();
        }
        // A delayed capture, or the profiler service (which records only when asked), starts
        // with our buffers stopped.
        let deferred = cfg.start_delay_ms.is_some() || cfg.server.is_some();
        match Session::create(c.abi, &c.runtime_version, cfg) {
            Ok(s) => match session::publish_and_start(s, deferred) {
                Ok(s) => {
                    crate::window::start(s, cfg);
                    crate::server::start(s, cfg);
                    crate::terminate::start(cfg);
                    log_info!(
                        "tracing {}: {} agents, buffers of {} bytes",
                        cfg.domains,
                        s.agents.len(),
                        cfg.buffer_size
                    );
                    0
                }
                Err(e) => {
                    log_error!("cannot start tracing: {e}");
                    -1
                }
            },
            Err(e) => {
                log_error!("cannot set up tracing: {e}");
                -1
            }
        }
    })
}

unsafe extern "C" fn tool_attach(
    _detach: sys::rocprofiler_client_detach_t,
    context_ids: *mut sys::rocprofiler_context_id_t,
    count: u64,
    _tool_data: *mut c_void,
) -> c_int {
    ffi_guard("tool_attach", -1, || {
        if in_forked_child() || FINALIZED.load(Ordering::SeqCst) {
            return -1;
        }
        let Some(s) = session::get() else {
            log_error!("attach before initialize; not tracing");
            return -1;
        };
        let contexts = if context_ids.is_null() || count == 0 {
            &[][..]
        } else {
            // SAFETY: the SDK passes an array of `count` context ids, alive for this call.
            unsafe { std::slice::from_raw_parts(context_ids, count as usize) }
        };
        crate::attach::on_attach(s, contexts);
        0
    })
}

unsafe extern "C" fn tool_detach(_tool_data: *mut c_void) {
    ffi_guard("tool_detach", (), || {
        if in_forked_child() || FINALIZED.load(Ordering::SeqCst) {
            return;
        }
        if let Some(s) = session::get() {
            crate::attach::on_detach(s, config::get());
        }
    })
}

unsafe extern "C" fn tool_finalize(_tool_data: *mut c_void) {
    finalize();
    // A profile being written after a signal (`terminate`) is finished before the runtime
    // lets the process exit.
    let limit = std::time::Duration::from_millis(config::get().term.timeout_ms);
    wait_finalized(std::time::Instant::now() + limit);
}

/// Set when the one finalize has ended (written, failed or skipped).
static FINALIZE_DONE: AtomicBool = AtomicBool::new(false);

/// Writes the profile once: from the runtime's finalize at exit, or from `terminate` when a
/// signal ends the program first. A second call returns at once; `wait_finalized` waits for
/// the first.
pub(crate) fn finalize() {
    if FINALIZED.swap(true, Ordering::SeqCst) {
        return;
    }
    ffi_guard("finalize", (), finalize_once);
    FINALIZE_DONE.store(true, Ordering::SeqCst);
}

/// Whether the finalize begun (by anyone) has ended, waiting for it until `deadline`.
pub(crate) fn wait_finalized(deadline: std::time::Instant) -> bool {
    while !FINALIZE_DONE.load(Ordering::SeqCst) {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    true
}

fn finalize_once() {
    if in_forked_child() {
        log_debug!("forked child: not profiled; the parent writes the profile");
        return;
    }
    let Some(s) = session::get() else { return };
    let cfg = config::get();
    // Phase times and memory at `debug` level: finalize is where the process waits on us at
    // exit, and where memory peaks (everything collected, joined and encoded at once).
    if crate::log::enabled(LogLevel::Debug) {
        log_debug!("finalize: start, memory {}", process_memory());
    }
    let t0 = std::time::Instant::now();
    // A cut or capture in progress completes first; what follows it is the last window.
    crate::server::stop(s);
    crate::window::stop();
    crate::attach::wait_for_detach();
    // The last window takes in what the window before it handed on.
    let (collected, _) = crate::window::take_carried(s.finish());
    if crate::window::skip_final(&collected) {
        log_info!(
            "no further file: {} API, {} kernel and {} copy records came after the last capture window or attach session",
            collected.api_record_count(),
            collected.kernels.len(),
            collected.copies.len()
        );
        crate::window::merge_at_exit(cfg);
        log_finalize_done(t0);
        return;
    }
    let t1 = std::time::Instant::now();
    let threads = crate::output::join_threads(cfg, &collected);
    let trace = crate::window::join_window(collected, threads);
    let t2 = std::time::Instant::now();
    if crate::log::enabled(LogLevel::Debug) {
        log_debug!("finalize: joined, memory {}", process_memory());
    }
    let (run, ids) = crate::window::final_output(cfg);
    let written = crate::output::write_window_as(&trace, cfg, &run, ids);
    if crate::log::enabled(LogLevel::Debug) {
        log_debug!(
            "finalize: flush + drain {:.1} ms, join {:.1} ms, write {:.1} ms; memory {}",
            (t1 - t0).as_secs_f64() * 1e3,
            (t2 - t1).as_secs_f64() * 1e3,
            t2.elapsed().as_secs_f64() * 1e3,
            process_memory()
        );
        let finalize_ns = t0.elapsed().as_nanos() as u64;
        log_debug!("{}", crate::selftime::totals().describe(finalize_ns));
    }
    match written {
        Ok(path) => {
            // The streaming pipeline's last window: the merge below reports the profile.
            if ids.is_none() || !crate::window::working_files(cfg) {
                crate::output::report_written("", &path, &trace, cfg);
            }
            crate::window::note_written(&path);
        }
        Err(e) => log_error!("cannot write the profile: {e}"),
    }
    drop(trace);
    crate::window::merge_at_exit(cfg);
    log_finalize_done(t0);
}

/// How long the program waited on finalize, and the memory after it (debug).
fn log_finalize_done(t0: std::time::Instant) {
    if crate::log::enabled(LogLevel::Debug) {
        log_debug!(
            "finalize: done in {:.1} ms; memory {}",
            t0.elapsed().as_secs_f64() * 1e3,
            process_memory()
        );
    }
}

/// Resident memory and its peak of this process (and the tool's own heap, in a `heap-stats`
/// build), for debug lines.
fn process_memory() -> String {
    let (rss, peak) = crate::log::process_memory_kb();
    let kb = |v: Option<u64>| v.map_or("?".to_string(), |v| format!("{v} kB"));
    let heap = crate::heap::stats().map_or(String::new(), |(live, peak)| {
        format!(
            "; tool heap {:.1} MB, peak {:.1} MB",
            live as f64 / 1e6,
            peak as f64 / 1e6
        )
    });
    format!("rss {}, peak {}{heap}", kb(rss), kb(peak))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_name_lands_at_the_layout_offset() {
        // 0.x: {name @0, handle @8}; 1.x: {size @0, name @8, handle @16}.
        let mut v0 = [0u64; 2];
        let mut v1 = [24u64, 0, 7];
        // SAFETY: both buffers are large enough for their layouts and writable.
        unsafe {
            write_client_name(Abi::V0, v0.as_mut_ptr() as *mut c_void);
            write_client_name(Abi::V1, v1.as_mut_ptr() as *mut c_void);
            write_client_name(Abi::V1, std::ptr::null_mut());
        }
        let name = CLIENT_NAME.as_ptr() as u64;
        assert_eq!(v0, [name, 0]);
        assert_eq!(v1, [24, name, 7], "size and handle untouched");
    }

    #[test]
    fn process_memory_names_current_and_peak() {
        let m = process_memory();
        assert!(m.starts_with("rss ") && m.contains(", peak "), "{m}");
        assert!(m.contains("kB"), "Linux reports kB: {m}");
    }

    #[test]
    fn configure_result_is_complete() {
        let r = &RESULT.0;
        assert_eq!(r.size, 32);
        assert!(r.initialize.is_some() && r.finalize.is_some());
        assert!(r.tool_data.is_null());
        let a = &ATTACH_RESULT.0;
        assert_eq!(a.size, 32);
        assert!(a.tool_attach.is_some() && a.tool_detach.is_some());
    }
}
