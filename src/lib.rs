//! rocprof-xplane: a rocprofiler-sdk tool library that writes XPlane protobufs for xprof.
//!
//! The only symbol exported to C is `rocprofiler_configure` (below; the lifecycle lives in
//! `entry`). Data flows one way:
//! runtime records → decode → stores → model (join/resolve) → xplane → file.

pub mod cli;
pub mod collect;
pub mod convert;
pub mod model;
pub mod xplane;

pub mod capture;
pub mod config;
pub mod decode;
pub mod entry;
pub mod fastmap;
pub mod guard;
pub mod hip;
pub mod log;
pub mod output;
pub mod sdk;
pub mod server;
pub mod store;
pub mod window;

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
