//! Tool discovery, configuration, initialization and finalization, in the order the real
//! runtime uses (reference §1.2, §1.3).

use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::Ordering;
use std::sync::{Mutex, Once};

use super::abi::*;
use super::buffer::threads;
use super::state::{self, lock, Client, REGISTRY};

static INIT: Once = Once::new();
static FORCED: Mutex<Option<usize>> = Mutex::new(None);
/// Hooks run at the very end of finalization (ground-truth writer).
static AFTER_FINALIZE: Mutex<Vec<Box<dyn FnOnce() + Send>>> = Mutex::new(Vec::new());

pub fn after_finalize(f: Box<dyn FnOnce() + Send>) {
    lock(&AFTER_FINALIZE).push(f);
}

/// `ROCP_TOOL_LIBRARIES` as the real parser reads it: a value without ':' is one entry; with
/// ':' only tokens *followed* by ':' are kept (the last token is dropped).
pub fn parse_tool_libraries(value: &str) -> Vec<String> {
    if value.is_empty() {
        return Vec::new();
    }
    if !value.contains(':') {
        return vec![value.to_string()];
    }
    let tokens: Vec<&str> = value.split(':').collect();
    tokens[..tokens.len() - 1]
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| t.to_string())
        .collect()
}

fn dlerror() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated thread-local string.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: non-null, NUL-terminated (see above).
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// Configure functions in discovery order: (library, function address).
fn discover() -> Vec<(String, usize)> {
    let mut found: Vec<(String, usize)> = Vec::new();
    let push = |lib: String, addr: usize, found: &mut Vec<(String, usize)>| {
        if addr != 0 && !found.iter().any(|(_, a)| *a == addr) {
            found.push((lib, addr));
        }
    };
    if let Some(f) = *lock(&FORCED) {
        push("<rocprofiler_force_configure>".into(), f, &mut found);
    }
    let libs = std::env::var("ROCP_TOOL_LIBRARIES").unwrap_or_default();
    let sym = c"rocprofiler_configure";
    for lib in parse_tool_libraries(&libs) {
        let Ok(path) = CString::new(lib.clone()) else {
            continue;
        };
        // SAFETY: valid NUL-terminated path; RTLD_NOLOAD only queries.
        let mut h = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
        if h.is_null() {
            // SAFETY: as above; this is how the real runtime loads a tool (local scope).
            h = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LOCAL | libc::RTLD_LAZY) };
        }
        if h.is_null() {
            eprintln!(
                "rocprof-sim: [fatal] error loading ROCP_TOOL_LIBRARIES entry '{lib}': {}",
                dlerror()
            );
            std::process::abort();
        }
        // SAFETY: `h` is a live handle, `sym` NUL-terminated.
        let f = unsafe { libc::dlsym(h, sym.as_ptr()) };
        if f.is_null() {
            eprintln!(
                "rocprof-sim: [warning] '{lib}' has no rocprofiler_configure symbol; skipped"
            );
            continue;
        }
        push(lib, f as usize, &mut found);
    }
    // A tool linked into the application or LD_PRELOADed is visible in the global scope.
    // SAFETY: RTLD_DEFAULT lookup of a NUL-terminated name.
    let g = unsafe { libc::dlsym(libc::RTLD_DEFAULT, sym.as_ptr()) };
    push("<global scope>".into(), g as usize, &mut found);
    found
}

fn read_client_name(client: &Client) -> Option<String> {
    let p = state::personality();
    let ptr = if p.is_v1() {
        client.client_id[1]
    } else {
        client.client_id[0]
    } as *const std::ffi::c_char;
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the tool set `name` to a NUL-terminated string it owns (documented contract).
    Some(
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// Finalize function handed to `initialize`, 0.x layout (16-byte client id in registers).
unsafe extern "C" fn client_finalize_v0(id: rocprofiler_client_id_v0_t) {
    let _ = std::panic::catch_unwind(|| finalize_client_by_handle(id.handle));
}

/// Finalize function handed to `initialize`, 1.x layout (24-byte client id in memory).
unsafe extern "C" fn client_finalize_v1(id: rocprofiler_client_id_v1_t) {
    let _ = std::panic::catch_unwind(|| finalize_client_by_handle(id.handle));
}

const _: rocprofiler_client_finalize_v0_t = Some(client_finalize_v0);
const _: rocprofiler_client_finalize_v1_t = Some(client_finalize_v1);

fn finalize_client_by_handle(handle: u32) {
    let idx = REGISTRY
        .lock()
        .clients
        .iter()
        .position(|c| c.handle == handle);
    if let Some(i) = idx {
        finalize_client(i);
    }
}

/// Stops the client's contexts and calls its finalize once.
fn finalize_client(i: usize) {
    let (fini, data) = {
        let reg = REGISTRY.lock();
        let Some(c) = reg.clients.get(i) else { return };
        if c.finalized.swap(true, Ordering::AcqRel) {
            return;
        }
        for ctx in reg.contexts.iter().filter(|x| x.client == Some(i)) {
            ctx.set_active(false);
        }
        match c.result {
            Some(r) => (r.finalize, r.tool_data as usize),
            None => (None, 0),
        }
    };
    if let Some(f) = fini {
        // SAFETY: the tool's finalize callback with the tool_data it gave us.
        unsafe { f(data as *mut c_void) };
    }
}

extern "C" fn atexit_finalize() {
    let _ = std::panic::catch_unwind(finalize);
}

/// Runs initialization once (as the first `rocprofiler_set_api_table` would).
pub fn ensure_initialized() {
    INIT.call_once(initialize);
}

pub fn force_configure(f: usize) -> bool {
    if state::INIT_STATUS.load(Ordering::Acquire) != 0 {
        return false;
    }
    {
        let mut forced = lock(&FORCED);
        if forced.is_some() {
            return false;
        }
        *forced = Some(f);
    }
    ensure_initialized();
    true
}

fn initialize() {
    state::INIT_STATUS.store(-1, Ordering::Release);
    // SAFETY: registering a plain extern "C" fn; this library is never unloaded.
    unsafe { libc::atexit(atexit_finalize) };
    let found = discover();
    for (priority, (lib, f)) in found.into_iter().enumerate() {
        configure_client(lib, f, priority as u32);
    }
    // initialize() of every tool, after all configures, in the same order.
    let n = REGISTRY.lock().clients.len();
    let mut any_active = false;
    for i in 0..n {
        any_active |= initialize_client(i);
    }
    if any_active && threads::count() == 0 {
        threads::create();
    }
    state::INIT_STATUS.store(1, Ordering::Release);
}

/// Registers a tool's configure function `f` (from `lib`) as a client of `priority` and calls
/// it; returns the client's index. The result is copied, as the real runtime does.
pub(super) fn configure_client(lib: String, f: usize, priority: u32) -> usize {
    let p = state::personality();
    let offset = REGISTRY.lock().client_offset;
    let handle = offset + priority;
    let mut id = Box::new([0u64; 3]);
    if p.is_v1() {
        id[0] = std::mem::size_of::<rocprofiler_client_id_v1_t>() as u64;
        id[2] = handle as u64;
    } else {
        id[1] = handle as u64;
    }
    let idx = {
        let mut reg = REGISTRY.lock();
        reg.clients.push(Client {
            priority,
            library: lib,
            client_id: id,
            handle,
            result: None,
            initialized: false,
            finalized: std::sync::atomic::AtomicBool::new(false),
            name: None,
        });
        let idx = reg.clients.len() - 1;
        reg.current_client = Some(idx);
        idx
    };
    let id_ptr = REGISTRY.lock().clients[idx].client_id.as_mut_ptr() as *mut c_void;
    // The 0.x and 1.x `rocprofiler_configure` differ only in the pointee type of the client
    // id (a pointer either way), so one signature with an untyped pointer serves both.
    type ConfigureFn = unsafe extern "C" fn(
        u32,
        *const std::ffi::c_char,
        u32,
        *mut c_void,
    ) -> *mut rocprofiler_tool_configure_result_t;
    // SAFETY: `f` is the tool's `rocprofiler_configure`; the client-id storage has the
    // personality's layout and stays at a stable heap address for the process lifetime.
    let result = unsafe {
        let cf: ConfigureFn = std::mem::transmute(f);
        cf(
            p.version_number(),
            p.version_cstr().as_ptr(),
            priority,
            id_ptr,
        )
    };
    let mut reg = REGISTRY.lock();
    let name = read_client_name(&reg.clients[idx]);
    reg.clients[idx].name = name;
    if result.is_null() {
        // Opt-out: the client's contexts are deactivated and deregistered.
        for ctx in reg.contexts.iter().filter(|c| c.client == Some(idx)) {
            ctx.set_active(false);
        }
    } else {
        // SAFETY: non-null pointer to the tool's configure result; copied, as the real
        // runtime does, so the tool may return a pointer to a static or a temporary.
        reg.clients[idx].result = Some(unsafe { *result });
    }
    reg.current_client = None;
    idx
}

/// Calls client `i`'s initialize (when its configure accepted); returns whether it did.
pub(super) fn initialize_client(i: usize) -> bool {
    let p = state::personality();
    // SAFETY: initialize receives the finalizer as a version-erased function pointer; the
    // tool calls it with the client id layout of this version, which is what each takes.
    let fini: rocprofiler_client_finalize_any_t = Some(unsafe {
        if p.is_v1() {
            std::mem::transmute::<
                unsafe extern "C" fn(rocprofiler_client_id_v1_t),
                unsafe extern "C" fn(),
            >(client_finalize_v1)
        } else {
            std::mem::transmute::<
                unsafe extern "C" fn(rocprofiler_client_id_v0_t),
                unsafe extern "C" fn(),
            >(client_finalize_v0)
        }
    });
    let init = {
        let mut reg = REGISTRY.lock();
        let c = &mut reg.clients[i];
        let Some(r) = c.result else { return false };
        c.initialized = true;
        reg.current_client = Some(i);
        (r.initialize, r.tool_data as usize)
    };
    if let (Some(f), data) = init {
        // SAFETY: the tool's initialize callback; its return value is ignored, like the real
        // runtime does.
        let _ = unsafe { f(fini, data as *mut c_void) };
    }
    REGISTRY.lock().current_client = None;
    true
}

/// Finalization (atexit, or explicitly): F2 code-object unload, F3 per-client stop +
/// finalize, F4 join delivery threads — and no automatic flush anywhere.
pub fn finalize() {
    if state::INIT_STATUS.load(Ordering::Acquire) != 1 {
        return;
    }
    if state::FINI_STATUS
        .compare_exchange(0, -1, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return;
    }
    super::replay::unload_all_code_objects();
    let n = REGISTRY.lock().clients.len();
    for i in 0..n {
        finalize_client(i);
    }
    for ctx in state::all_contexts() {
        ctx.set_active(false);
    }
    threads::join_all();
    state::FINI_STATUS.store(1, Ordering::Release);
    let hooks: Vec<_> = std::mem::take(&mut *lock(&AFTER_FINALIZE));
    for h in hooks {
        h();
    }
}

#[cfg(test)]
mod tests {
    use super::parse_tool_libraries as p;

    #[test]
    fn tool_library_parser_quirk() {
        assert_eq!(p(""), Vec::<String>::new());
        assert_eq!(p("a.so"), vec!["a.so"]);
        assert_eq!(p("a.so:b.so"), vec!["a.so"]);
        assert_eq!(p("a.so:b.so:"), vec!["a.so", "b.so"]);
        assert_eq!(p("a.so:"), vec!["a.so"]);
    }
}
