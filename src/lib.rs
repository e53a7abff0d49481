//! rocprof-xplane: a rocprofiler-sdk tool library that writes XPlane protobufs for xprof.
//!
//! The symbols exported to C are `rocprofiler_configure` and `rocprofiler_configure_attach`
//! (below; the lifecycle lives in `entry`, attach sessions in `attach`). Data flows one way:
//! runtime records → decode → stores → model (join/resolve) → xplane → file; the last three are
//! the core crate (`rocprof_xplane_core`), re-exported here under their own names.

pub mod attach;
pub mod budget;
pub mod capture;
pub mod collect;
pub mod config;
pub mod decode;
pub mod entry;
pub mod guard;
pub mod log;
pub mod output;
pub mod sdk;
pub mod selftime;
pub mod server;
pub mod signals;
pub mod terminate;
pub mod window;

// The pure library this tool builds on: records → join → XPlane.
pub use rocprof_xplane_core::{fastmap, heap, hip, model, store, xplane};

/// Entry point the rocprofiler-sdk runtime looks up in every tool library.
///
/// # Safety
/// Called by the runtime with the arguments its ABI defines: `runtime_version` NUL-terminated,
/// `client_id` a writable client id of the layout of `version`.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure(
    version: u32,
    runtime_version: *const std::ffi::c_char,
    priority: u32,
    client_id: *mut std::ffi::c_void,
) -> *mut rocprofiler_sdk_sys::rocprofiler_tool_configure_result_t {
    guard::install_quiet_panic_hook();
    guard::ffi_guard("rocprofiler_configure", std::ptr::null_mut(), || {
        log::install();
        // SAFETY: forwarded unchanged from the runtime, which upholds the contract above.
        unsafe { entry::configure(version, runtime_version, priority, client_id) }
    })
}

/// Entry point the runtime looks up beside `rocprofiler_configure` to support attaching the
/// tool to a running process (SDK 1.2.0+; older runtimes never look for it).
///
/// # Safety
/// Called by the runtime right after `rocprofiler_configure`, with the same arguments; they
/// are not read.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_attach(
    _version: u32,
    _runtime_version: *const std::ffi::c_char,
    _priority: u32,
    _client_id: *mut std::ffi::c_void,
) -> *mut rocprofiler_sdk_sys::rocprofiler_tool_configure_attach_result_t {
    guard::ffi_guard(
        "rocprofiler_configure_attach",
        std::ptr::null_mut(),
        entry::configure_attach,
    )
}
