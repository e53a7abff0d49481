//! Process attachment as rocprofiler-sdk 1.2.0+ does it (reference "newer" §6), for
//! personalities that have it: a tool is loaded into the running process, configured as an
//! extra client, attached and later detached, possibly several times.
//!
//! First attach: `rocprofiler_configure` → `rocprofiler_configure_attach` (looked up in the
//! same library; its result is copied) → `initialize` → `tool_attach(NULL, contexts, n, data)`.
//! The runtime starts none of the tool's contexts. Code objects that were loaded before are
//! reported to the tool's contexts once `tool_attach` has returned (the attach library tracks
//! them from the process start). Reattach: only `tool_attach`. Detach: the client's contexts
//! stop, finalization is marked in progress around `tool_detach`, and no buffer is flushed —
//! the tool must. `finalize` runs only at process exit. The process must have been started with
//! `ROCP_TOOL_ATTACH=1`, or attach fails with "attachment not available".

use std::ffi::{c_void, CString};
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use super::abi::*;
use super::buffer::threads;
use super::state::{self, lock, REGISTRY};

/// The attached client and the attach result it gave.
struct Attached {
    client: usize,
    result: rocprofiler_tool_configure_attach_result_t,
    attached: bool,
}

// SAFETY: the result holds the tool's function pointers and tool_data, which the runtime calls
// from whichever thread attaches or detaches, as the real runtime does.
unsafe impl Send for Attached {}

static ATTACHED: Mutex<Option<Attached>> = Mutex::new(None);

/// Attaches `tool` (a path to the tool library) to this process; a reattach of the same tool
/// only calls its `tool_attach` again.
pub fn attach(tool: &str) -> Result<(), String> {
    let p = state::personality();
    if p.version_number() < 10200 {
        return Err(format!(
            "attachment not available: rocprofiler-sdk {p} has no process attachment (1.2.0 and later)"
        ));
    }
    if std::env::var("ROCP_TOOL_ATTACH").as_deref() != Ok("1") {
        return Err(
            "attachment not available: the process was not started with ROCP_TOOL_ATTACH=1".into(),
        );
    }
    if state::FINI_STATUS.load(Ordering::Acquire) != 0 {
        return Err("the process is finalizing".into());
    }
    let mut slot = lock(&ATTACHED);
    if let Some(a) = slot.as_mut() {
        if a.attached {
            return Err("already attached".into());
        }
        a.attached = true;
        let (client, result) = (a.client, a.result);
        drop(slot);
        call_tool_attach(client, &result);
        return Ok(());
    }
    let (configure, configure_attach) = load(tool)?;
    super::lifecycle::ensure_initialized();
    let priority = REGISTRY.lock().clients.len() as u32;
    // Anytime initialization: the new client may create contexts and buffers while it is
    // configured and initialized.
    state::INIT_STATUS.store(-1, Ordering::Release);
    let client = super::lifecycle::configure_client(tool.to_string(), configure, priority);
    let configured = REGISTRY.lock().clients[client].result.is_some();
    let mut result = None;
    if configured {
        if let Some(ca) = configure_attach {
            result = configure_attach_of(client, ca);
        }
        super::lifecycle::initialize_client(client);
    }
    state::INIT_STATUS.store(1, Ordering::Release);
    if threads::count() == 0 {
        threads::create();
    }
    let Some(result) = result else {
        return Err(format!(
            "{tool}: no rocprofiler_configure_attach result (the tool declined or lacks it); configured as a plain client"
        ));
    };
    *slot = Some(Attached {
        client,
        result,
        attached: true,
    });
    drop(slot);
    call_tool_attach(client, &result);
    Ok(())
}

/// Detaches the attached tool: stops its contexts, calls its `tool_detach` with finalization
/// marked in progress, and flushes nothing.
pub fn detach() -> Result<(), String> {
    let mut slot = lock(&ATTACHED);
    let Some(a) = slot.as_mut().filter(|a| a.attached) else {
        return Err("no tool is attached".into());
    };
    a.attached = false;
    let (client, result) = (a.client, a.result);
    drop(slot);
    for ctx in contexts_of(client) {
        ctx.set_active(false);
    }
    let before = state::FINI_STATUS.swap(-1, Ordering::AcqRel);
    if let Some(d) = result.tool_detach {
        // SAFETY: the tool's detach callback with the tool_data of its attach result.
        unsafe { d(result.tool_data) };
    }
    state::FINI_STATUS.store(before, Ordering::Release);
    for ctx in contexts_of(client) {
        ctx.set_active(false);
    }
    Ok(())
}

fn contexts_of(client: usize) -> Vec<std::sync::Arc<state::Context>> {
    REGISTRY
        .lock()
        .contexts
        .iter()
        .filter(|c| c.client == Some(client))
        .cloned()
        .collect()
}

fn call_tool_attach(client: usize, result: &rocprofiler_tool_configure_attach_result_t) {
    let contexts = contexts_of(client);
    let mut ids: Vec<rocprofiler_context_id_t> = contexts
        .iter()
        .map(|c| rocprofiler_context_id_t { handle: c.handle })
        .collect();
    if let Some(f) = result.tool_attach {
        // SAFETY: the tool's attach callback: a NULL detach function (as the real runtime
        // passes), the client's context ids (alive for the call) and its tool_data.
        let _ = unsafe { f(None, ids.as_mut_ptr(), ids.len() as u64, result.tool_data) };
    }
    // The code objects already loaded, reported to the contexts the tool started.
    let started: Vec<_> = contexts.into_iter().filter(|c| c.is_active()).collect();
    super::replay::report_loaded_code_objects(&started);
}

/// `rocprofiler_configure` and, when present, `rocprofiler_configure_attach` of `tool`.
fn load(tool: &str) -> Result<(usize, Option<usize>), String> {
    let path = CString::new(tool).map_err(|_| format!("bad tool path {tool:?}"))?;
    // SAFETY: a NUL-terminated path; loaded with local scope, as the runtime loads tools.
    let h = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LOCAL | libc::RTLD_LAZY) };
    if h.is_null() {
        return Err(format!("cannot load {tool}"));
    }
    // SAFETY: `h` is a live handle; the names are NUL-terminated.
    let (c, a) = unsafe {
        (
            libc::dlsym(h, c"rocprofiler_configure".as_ptr()),
            libc::dlsym(h, c"rocprofiler_configure_attach".as_ptr()),
        )
    };
    if c.is_null() {
        return Err(format!("{tool} has no rocprofiler_configure"));
    }
    Ok((c as usize, (!a.is_null()).then_some(a as usize)))
}

/// Calls the tool's `rocprofiler_configure_attach` with the arguments its configure got, and
/// copies the result.
fn configure_attach_of(
    client: usize,
    f: usize,
) -> Option<rocprofiler_tool_configure_attach_result_t> {
    let p = state::personality();
    let (priority, id_ptr) = {
        let mut reg = REGISTRY.lock();
        let c = &mut reg.clients[client];
        (c.priority, c.client_id.as_mut_ptr() as *mut c_void)
    };
    type ConfigureAttachFn =
        unsafe extern "C" fn(
            u32,
            *const std::ffi::c_char,
            u32,
            *mut c_void,
        ) -> *mut rocprofiler_tool_configure_attach_result_t;
    // SAFETY: `f` is the tool's `rocprofiler_configure_attach`; the arguments are those its
    // `rocprofiler_configure` received, the client id storage stays alive.
    let r = unsafe {
        let ca: ConfigureAttachFn = std::mem::transmute(f);
        ca(
            p.version_number(),
            p.version_cstr().as_ptr(),
            priority,
            id_ptr,
        )
    };
    // SAFETY: non-null pointer to the tool's result, copied at once.
    (!r.is_null()).then(|| unsafe { *r })
}
