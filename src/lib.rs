//! rocprof-xplane: a rocprofiler-sdk tool library that writes XPlane protobufs for xprof.
//!
//! The symbols exported to C are `rocprofiler_configure` and `rocprofiler_configure_attach`;
//! the lifecycle functions the runtime calls through the configure result (`initialize`,
//! `finalize`, `attach`, `detach`) are here too, each a thin edge over `entry`. Data flows one
//! way: runtime callbacks → `sdk` (trampolines, safe views) → `recorder` (`capture`, `decode`
//! into stores) → at a cut, `control` (collect → join → write) → file; the model, the join and
//! the writer are the core crate (`rocprof_xplane_core`), re-exported here under their own
//! names.

/// The tool's global allocator: large blocks from page ranges all the tool's threads share,
/// the rest from the system allocator (`heap::pool`). A static because the language makes a
/// global allocator one. The `heap-stats` build has the core crate's counting allocator
/// instead, which wraps a pool of its own; the `system-heap` build has none.
#[cfg(not(any(feature = "heap-stats", feature = "system-heap")))]
#[global_allocator]
static TOOL_HEAP: heap::BlockPool = heap::BlockPool::new();

/// The pool under the tool's global allocator, for the fork child handler (none in the
/// `system-heap` build).
pub fn tool_heap() -> Option<&'static heap::BlockPool> {
    #[cfg(not(any(feature = "heap-stats", feature = "system-heap")))]
    {
        Some(&TOOL_HEAP)
    }
    #[cfg(feature = "heap-stats")]
    {
        Some(heap::counted_pool())
    }
    #[cfg(all(feature = "system-heap", not(feature = "heap-stats")))]
    {
        None
    }
}

pub mod budget;
pub mod capture;
pub mod config;
pub mod control;
pub mod decode;
pub mod entry;
pub mod guard;
pub mod job_clock;
pub mod log;
pub mod output;
pub mod recorder;
pub mod sdk;
pub mod selftime;
pub mod server;

// The pure library this tool builds on: records → join → XPlane.
pub use rocprof_xplane_core::{clock, fastmap, heap, hip, model, store, xplane};

use std::ffi::{c_char, c_int, c_void, CStr};

use rocprofiler_sdk_sys as sys;

use entry::Tool;
use guard::ffi_guard;

/// Entry point the rocprofiler-sdk runtime looks up in every tool library.
///
/// # Safety
/// Called by the runtime with the arguments its ABI defines: `runtime_version` null or
/// NUL-terminated, `client_id` null or a writable client id of the layout of `version`.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure(
    version: u32,
    runtime_version: *const c_char,
    priority: u32,
    client_id: *mut c_void,
) -> *mut sys::rocprofiler_tool_configure_result_t {
    guard::install_quiet_panic_hook();
    ffi_guard("rocprofiler_configure", std::ptr::null_mut(), || {
        log::install(config::get().log);
        let runtime_version = if runtime_version.is_null() {
            String::new()
        } else {
            // SAFETY: non-null and NUL-terminated per the contract.
            unsafe { CStr::from_ptr(runtime_version) }
                .to_string_lossy()
                .into_owned()
        };
        let Some(tool) = entry::configure(version, runtime_version, priority) else {
            return std::ptr::null_mut();
        };
        // SAFETY: forwarded from the runtime, which upholds the contract above.
        unsafe { sdk::tool::write_client_name(tool.configured.abi, client_id) };
        tool.registration
            .get_or_init(|| registration(tool))
            .configure_result()
    })
}

/// Entry point the runtime looks up beside `rocprofiler_configure` to support attaching the
/// tool to a running process (SDK 1.2.0+; older runtimes never look for it). Declined when
/// our configure declined.
///
/// # Safety
/// Called by the runtime right after `rocprofiler_configure`, with the same arguments; they
/// are not read.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_attach(
    _version: u32,
    _runtime_version: *const c_char,
    _priority: u32,
    _client_id: *mut c_void,
) -> *mut sys::rocprofiler_tool_configure_attach_result_t {
    ffi_guard("rocprofiler_configure_attach", std::ptr::null_mut(), || {
        entry::configured()
            .and_then(|tool| tool.registration.get())
            .map_or(std::ptr::null_mut(), |r| r.attach_result())
    })
}

/// Our lifecycle functions, each given the tool as its user data.
fn registration(tool: &'static Tool) -> sdk::tool::Registration {
    sdk::tool::Registration::new(
        tool_initialize,
        tool_finalize,
        tool_attach,
        tool_detach,
        tool as *const Tool as *const c_void,
    )
}

/// The tool a lifecycle function was given.
///
/// # Safety
/// `tool_data` must be null or the user data of our registration: a `&'static Tool`.
unsafe fn tool_of<'a>(tool_data: *mut c_void) -> Option<&'a Tool> {
    // SAFETY: per the contract.
    unsafe { (tool_data as *const Tool).as_ref() }
}

unsafe extern "C" fn tool_initialize(
    _finalize: sys::rocprofiler_client_finalize_any_t,
    tool_data: *mut c_void,
) -> c_int {
    ffi_guard("initialize", -1, || {
        // SAFETY: the runtime passes back the user data of our configure result.
        let Some(tool) = (unsafe { tool_of(tool_data) }) else {
            return -1;
        };
        if entry::initialize(tool) {
            0
        } else {
            -1
        }
    })
}

unsafe extern "C" fn tool_finalize(tool_data: *mut c_void) {
    ffi_guard("finalize", (), || {
        // SAFETY: the runtime passes back the user data of our configure result.
        if let Some(tool) = unsafe { tool_of(tool_data) } {
            // A profile being written after a signal is finished before the runtime lets the
            // process exit, for at most the signal's own time limit.
            let limit = std::time::Duration::from_millis(config::get().term.timeout_ms);
            entry::finalize(tool, std::time::Instant::now() + limit);
        }
    })
}

unsafe extern "C" fn tool_attach(
    _detach: sys::rocprofiler_client_detach_t,
    context_ids: *mut sys::rocprofiler_context_id_t,
    count: u64,
    tool_data: *mut c_void,
) -> c_int {
    ffi_guard("tool_attach", -1, || {
        // SAFETY: the runtime passes back the user data of our attach result.
        let Some(tool) = (unsafe { tool_of(tool_data) }) else {
            return -1;
        };
        let contexts = if context_ids.is_null() || count == 0 {
            &[][..]
        } else {
            // SAFETY: the SDK passes an array of `count` context ids, alive for this call.
            unsafe { std::slice::from_raw_parts(context_ids, count as usize) }
        };
        let contexts = contexts
            .iter()
            .map(|&c| sdk::Context::from_raw(c))
            .collect();
        if entry::attach(tool, contexts) {
            0
        } else {
            -1
        }
    })
}

unsafe extern "C" fn tool_detach(tool_data: *mut c_void) {
    ffi_guard("tool_detach", (), || {
        // SAFETY: the runtime passes back the user data of our attach result.
        if let Some(tool) = unsafe { tool_of(tool_data) } {
            entry::detach(tool);
        }
    })
}
