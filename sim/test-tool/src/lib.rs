//! Test tool for the simulator's own tests — **test infrastructure only**.
//!
//! A minimal rocprofiler-sdk tool that records everything the (simulated) runtime gives it as
//! JSON lines in `$ROCPROF_SIM_TEST_TOOL_LOG`: configure arguments and the client-id layout it
//! saw, initialize order, every callback and buffer record (summarised), drop counts, agents,
//! names, and the status codes of deliberate misuse. Behaviour switches come from
//! `$ROCPROF_SIM_TEST_TOOL_MODE` (comma-separated):
//!
//! `optout` (configure returns NULL), `no_flush` (no flush in finalize), `discard` (DISCARD
//! policy), `buf_size=N`, `watermark=N`, `keep_record` (keep a record pointer and re-read it
//! later), `late_create` (try configuration calls after init), `nonzero_ctx` (create a context
//! from a non-zero id first), `callback_thread` (own delivery thread), `init_fail`
//! (initialize returns -1), `agent_size=N`, `flush_in_cb` (flush from inside the buffer
//! callback), `ext_request` (external-correlation request service), `no_callbacks`
//! (buffer tracing only), `client_fini` (call the client finalizer at the first buffer),
//! `slow_load_ms=N` (sleep N ms inside each code-object LOAD callback).
//!
//! SDK functions are resolved with `dlsym(RTLD_DEFAULT, …)`, as a portable tool must.

use rocprofiler_sdk_sys::*;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

// ---- configuration and logging ------------------------------------------------------------

struct Config {
    modes: Vec<String>,
}

impl Config {
    fn has(&self, m: &str) -> bool {
        self.modes.iter().any(|x| x == m)
    }
    fn num(&self, key: &str) -> Option<usize> {
        self.modes
            .iter()
            .find_map(|x| x.strip_prefix(&format!("{key}="))?.parse().ok())
    }
}

fn cfg() -> &'static Config {
    static C: OnceLock<Config> = OnceLock::new();
    C.get_or_init(|| Config {
        modes: std::env::var("ROCPROF_SIM_TEST_TOOL_MODE")
            .unwrap_or_default()
            .split(',')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect(),
    })
}

fn log(v: Value) {
    static F: OnceLock<Option<Mutex<std::fs::File>>> = OnceLock::new();
    let f = F.get_or_init(|| {
        let path = std::env::var("ROCPROF_SIM_TEST_TOOL_LOG").ok()?;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()
            .map(Mutex::new)
    });
    if let Some(f) = f {
        let mut line = v.to_string();
        line.push('\n');
        if let Ok(mut f) = f.lock() {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

fn guard(f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        log(json!({"ev": "tool_panic"}));
    }
}

fn gettid() -> u64 {
    // SAFETY: no preconditions.
    unsafe { libc::gettid() as u64 }
}

/// Resolves an SDK function from the global scope (the runtime was dlopened RTLD_GLOBAL).
fn sym<T: Copy>(name: &CStr) -> T {
    assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<usize>());
    // SAFETY: RTLD_DEFAULT lookup of a NUL-terminated name.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    // SAFETY: T is an `Option<extern "C" fn>` typedef of this symbol; NULL maps to None.
    unsafe { std::mem::transmute_copy(&p) }
}

macro_rules! sdk {
    ($name:ident) => {{
        let f: paste_fn!($name) = sym(&cstr_of(concat!(stringify!($name), "\0")));
        f
    }};
}
macro_rules! paste_fn {
    (rocprofiler_create_context) => {
        rocprofiler_create_context_fn
    };
    (rocprofiler_start_context) => {
        rocprofiler_start_context_fn
    };
    (rocprofiler_create_buffer) => {
        rocprofiler_create_buffer_fn
    };
    (rocprofiler_flush_buffer) => {
        rocprofiler_flush_buffer_fn
    };
    (rocprofiler_configure_buffer_tracing_service) => {
        rocprofiler_configure_buffer_tracing_service_fn
    };
    (rocprofiler_configure_callback_tracing_service) => {
        rocprofiler_configure_callback_tracing_service_fn
    };
    (rocprofiler_create_callback_thread) => {
        rocprofiler_create_callback_thread_fn
    };
    (rocprofiler_assign_callback_thread) => {
        rocprofiler_assign_callback_thread_fn
    };
    (rocprofiler_query_available_agents) => {
        rocprofiler_query_available_agents_fn
    };
    (rocprofiler_get_status_name) => {
        rocprofiler_get_status_name_fn
    };
    (rocprofiler_get_status_string) => {
        rocprofiler_get_status_string_fn
    };
    (rocprofiler_get_thread_id) => {
        rocprofiler_get_thread_id_fn
    };
    (rocprofiler_get_timestamp) => {
        rocprofiler_get_timestamp_fn
    };
    (rocprofiler_get_version) => {
        rocprofiler_get_version_fn
    };
    (rocprofiler_get_version_triplet) => {
        rocprofiler_get_version_triplet_fn
    };
    (rocprofiler_is_initialized) => {
        rocprofiler_is_initialized_fn
    };
    (rocprofiler_is_finalized) => {
        rocprofiler_is_finalized_fn
    };
    (rocprofiler_query_buffer_tracing_kind_name) => {
        rocprofiler_query_buffer_tracing_kind_name_fn
    };
    (rocprofiler_query_buffer_tracing_kind_operation_name) => {
        rocprofiler_query_buffer_tracing_kind_operation_name_fn
    };
    (rocprofiler_iterate_buffer_tracing_kinds) => {
        rocprofiler_iterate_buffer_tracing_kinds_fn
    };
    (rocprofiler_iterate_buffer_tracing_kind_operations) => {
        rocprofiler_iterate_buffer_tracing_kind_operations_fn
    };
    (rocprofiler_query_callback_tracing_kind_name) => {
        rocprofiler_query_callback_tracing_kind_name_fn
    };
    (rocprofiler_query_callback_tracing_kind_operation_name) => {
        rocprofiler_query_callback_tracing_kind_operation_name_fn
    };
    (rocprofiler_iterate_callback_tracing_kinds) => {
        rocprofiler_iterate_callback_tracing_kinds_fn
    };
    (rocprofiler_configure_external_correlation_id_request_service) => {
        rocprofiler_configure_external_correlation_id_request_service_fn
    };
}

fn cstr_of(s: &'static str) -> &'static CStr {
    CStr::from_bytes_with_nul(s.as_bytes()).unwrap_or(c"")
}

fn status_name(st: rocprofiler_status_t) -> String {
    let Some(f) = sdk!(rocprofiler_get_status_name) else {
        return "?".into();
    };
    // SAFETY: runtime function; returns NULL or a static string.
    let p = unsafe { f(st) };
    if p.is_null() {
        return "<null>".into();
    }
    // SAFETY: non-null static NUL-terminated string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn log_status(what: &str, st: rocprofiler_status_t) {
    log(json!({"ev": "status", "what": what, "status": st, "name": status_name(st)}));
}

fn cstr(p: *const c_char) -> Value {
    if p.is_null() {
        return Value::Null;
    }
    // SAFETY: runtime-provided NUL-terminated string valid during the callback.
    Value::String(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

// ---- names --------------------------------------------------------------------------------

/// The name a `rocprofiler_query_*_name` call writes through its out-pointer (`null` on error).
fn queried_name(query: impl FnOnce(*mut *const c_char) -> rocprofiler_status_t) -> Value {
    let mut p: *const c_char = std::ptr::null();
    if query(&mut p) != 0 {
        return Value::Null;
    }
    cstr(p)
}

fn buffer_kind_name(kind: u32) -> Value {
    let Some(f) = sdk!(rocprofiler_query_buffer_tracing_kind_name) else {
        return Value::Null;
    };
    // SAFETY: runtime function with a writable out-pointer.
    queried_name(|p| unsafe { f(kind, p, std::ptr::null_mut()) })
}

fn buffer_op_name(kind: u32, op: i32) -> Value {
    let Some(f) = sdk!(rocprofiler_query_buffer_tracing_kind_operation_name) else {
        return Value::Null;
    };
    // SAFETY: as above.
    queried_name(|p| unsafe { f(kind, op, p, std::ptr::null_mut()) })
}

fn callback_kind_name(kind: u32) -> Value {
    let Some(f) = sdk!(rocprofiler_query_callback_tracing_kind_name) else {
        return Value::Null;
    };
    // SAFETY: as above.
    queried_name(|p| unsafe { f(kind, p, std::ptr::null_mut()) })
}

fn callback_op_name(kind: u32, op: i32) -> Value {
    let Some(f) = sdk!(rocprofiler_query_callback_tracing_kind_operation_name) else {
        return Value::Null;
    };
    // SAFETY: as above.
    queried_name(|p| unsafe { f(kind, op, p, std::ptr::null_mut()) })
}

unsafe extern "C" fn collect_kind(kind: u32, data: *mut c_void) -> c_int {
    // SAFETY: `data` is the Vec we passed.
    unsafe { (*(data as *mut Vec<u32>)).push(kind) };
    0
}

unsafe extern "C" fn collect_op(_kind: u32, op: i32, data: *mut c_void) -> c_int {
    // SAFETY: `data` is the Vec we passed.
    unsafe { (*(data as *mut Vec<i32>)).push(op) };
    0
}

fn buffer_kind_by_name(name: &str) -> Option<u32> {
    let f = sdk!(rocprofiler_iterate_buffer_tracing_kinds)?;
    let mut kinds: Vec<u32> = Vec::new();
    // SAFETY: runtime iterator calling our collector with our Vec.
    unsafe { f(Some(collect_kind), &mut kinds as *mut _ as *mut c_void) };
    kinds
        .into_iter()
        .find(|k| buffer_kind_name(*k).as_str() == Some(name))
}

fn callback_kind_by_name(name: &str) -> Option<u32> {
    let f = sdk!(rocprofiler_iterate_callback_tracing_kinds)?;
    let mut kinds: Vec<u32> = Vec::new();
    // SAFETY: as above.
    unsafe { f(Some(collect_kind), &mut kinds as *mut _ as *mut c_void) };
    kinds
        .into_iter()
        .find(|k| callback_kind_name(*k).as_str() == Some(name))
}

fn log_names() {
    let mut kinds: Vec<u32> = Vec::new();
    if let Some(f) = sdk!(rocprofiler_iterate_buffer_tracing_kinds) {
        // SAFETY: as above.
        unsafe { f(Some(collect_kind), &mut kinds as *mut _ as *mut c_void) };
    }
    let mut buffer = serde_json::Map::new();
    for k in &kinds {
        let mut ops: Vec<i32> = Vec::new();
        if let Some(f) = sdk!(rocprofiler_iterate_buffer_tracing_kind_operations) {
            // SAFETY: as above.
            unsafe { f(*k, Some(collect_op), &mut ops as *mut _ as *mut c_void) };
        }
        let ops: serde_json::Map<String, Value> = ops
            .iter()
            .map(|o| (o.to_string(), buffer_op_name(*k, *o)))
            .collect();
        buffer.insert(
            k.to_string(),
            json!({"name": buffer_kind_name(*k), "ops": ops}),
        );
    }
    let mut ckinds: Vec<u32> = Vec::new();
    if let Some(f) = sdk!(rocprofiler_iterate_callback_tracing_kinds) {
        // SAFETY: as above.
        unsafe { f(Some(collect_kind), &mut ckinds as *mut _ as *mut c_void) };
    }
    let callback: serde_json::Map<String, Value> = ckinds
        .iter()
        .map(|k| (k.to_string(), callback_kind_name(*k)))
        .collect();
    let statuses: Vec<Value> = (0..45).map(|s| json!([s, status_name(s)])).collect();
    log(json!({"ev": "names", "buffer": buffer, "callback": callback, "status": statuses}));
}

// ---- state --------------------------------------------------------------------------------

static VERSION: AtomicU64 = AtomicU64::new(0);
static PRIORITY: AtomicU64 = AtomicU64::new(0);
static CONTEXT: AtomicU64 = AtomicU64::new(0);
static BUFFER: AtomicU64 = AtomicU64::new(0);
static CLIENT_ID: Mutex<[u64; 3]> = Mutex::new([0; 3]);
static FINI_FN: AtomicUsize = AtomicUsize::new(0);
static LATE_DONE: AtomicBool = AtomicBool::new(false);
static CB_SEQ: AtomicU64 = AtomicU64::new(1);
/// (header address, payload address, header hash, first payload bytes) of a kept record.
type Kept = (usize, usize, u64, [u8; 48]);
static KEPT: Mutex<Option<Kept>> = Mutex::new(None);
static FINALIZED: AtomicBool = AtomicBool::new(false);
static KEPT_ONCE: AtomicBool = AtomicBool::new(false);
/// Open MARKER_CORE_RANGE_API ranges: correlation id -> (user_data address, value).
static RANGES: Mutex<Option<HashMap<u64, (usize, u64)>>> = Mutex::new(None);

fn is_v1() -> bool {
    VERSION.load(Ordering::Relaxed) >= 10000
}

/// (user_data address, value written at ENTER, tid).
type OpenCall = (usize, u64, u64);

thread_local! {
    /// ENTER state per internal correlation id: (user_data ptr, value written, tid).
    static OPEN: RefCell<HashMap<(u32, u64), OpenCall>> = RefCell::new(HashMap::new());
}

// ---- entry point --------------------------------------------------------------------------

static mut RESULT: rocprofiler_tool_configure_result_t = rocprofiler_tool_configure_result_t {
    size: std::mem::size_of::<rocprofiler_tool_configure_result_t>(),
    initialize: Some(tool_init),
    finalize: Some(tool_fini),
    tool_data: std::ptr::null_mut(),
};

/// # Safety
/// Called by the runtime with a valid, writable client id of the runtime's layout.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure(
    version: u32,
    runtime_version: *const c_char,
    priority: u32,
    client_id: *mut c_void,
) -> *mut rocprofiler_tool_configure_result_t {
    let mut out: *mut rocprofiler_tool_configure_result_t = std::ptr::null_mut();
    guard(|| {
        VERSION.store(version as u64, Ordering::Relaxed);
        PRIORITY.store(priority as u64, Ordering::Relaxed);
        let name = c"rocprof-sim-test-tool";
        let (size, handle) = if version >= 10000 {
            let id = client_id as *mut rocprofiler_client_id_v1_t;
            // SAFETY: 1.x runtime: 24-byte client id.
            unsafe {
                (*id).name = name.as_ptr();
                *CLIENT_ID.lock().unwrap_or_else(|e| e.into_inner()) =
                    [(*id).size as u64, name.as_ptr() as u64, (*id).handle as u64];
                (Some((*id).size), (*id).handle)
            }
        } else {
            let id = client_id as *mut rocprofiler_client_id_v0_t;
            // SAFETY: 0.x runtime: 16-byte client id.
            unsafe {
                (*id).name = name.as_ptr();
                *CLIENT_ID.lock().unwrap_or_else(|e| e.into_inner()) =
                    [name.as_ptr() as u64, (*id).handle as u64, 0];
                (None, (*id).handle)
            }
        };
        log(json!({
            "ev": "configure", "version": version, "runtime_version": cstr(runtime_version),
            "priority": priority, "client_size": size, "client_handle": handle,
            "tid": gettid(), "pid": std::process::id(),
        }));
        if !cfg().has("optout") {
            out = &raw mut RESULT;
        }
    });
    out
}

const _: rocprofiler_configure_any_fn = Some(rocprofiler_configure);

/// The clocks as a program sees them (the SDK clock, `clock_gettime` of the boot and wall
/// clocks, which on a simulated host are the host's) and as the machine's kernel has them
/// (the raw system call, which nothing in the process can stand in for).
fn clocks() -> Value {
    let mut sdk = 0u64;
    if let Some(f) = sdk!(rocprofiler_get_timestamp) {
        // SAFETY: writable u64.
        unsafe { f(&mut sdk) };
    }
    let read = |id: libc::clockid_t, raw: bool| -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for either call.
        let rc = unsafe {
            if raw {
                libc::syscall(libc::SYS_clock_gettime, id, &mut ts) as libc::c_int
            } else {
                libc::clock_gettime(id, &mut ts)
            }
        };
        if rc != 0 {
            return 0;
        }
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    };
    json!({
        "sdk": sdk,
        "boottime": read(libc::CLOCK_BOOTTIME, false),
        "realtime": read(libc::CLOCK_REALTIME, false),
        "machine_boottime": read(libc::CLOCK_BOOTTIME, true),
        "machine_realtime": read(libc::CLOCK_REALTIME, true),
    })
}

unsafe extern "C" fn tool_init(
    fini: rocprofiler_client_finalize_any_t,
    _data: *mut c_void,
) -> c_int {
    FINI_FN.store(fini.map_or(0, |f| f as usize), Ordering::Relaxed);
    guard(init_body);
    if cfg().has("init_fail") {
        -1
    } else {
        0
    }
}

fn init_body() {
    let mut st = 0;
    if let Some(f) = sdk!(rocprofiler_is_initialized) {
        // SAFETY: writable int.
        unsafe { f(&mut st) };
    }
    let (mut a, mut b, mut c) = (0, 0, 0);
    if let Some(f) = sdk!(rocprofiler_get_version) {
        // SAFETY: writable u32s.
        unsafe { f(&mut a, &mut b, &mut c) };
    }
    let mut trip = rocprofiler_version_triplet_t::default();
    let trip_status = sdk!(rocprofiler_get_version_triplet)
        // SAFETY: writable struct.
        .map(|f| unsafe { f(&mut trip) });
    let mut sdk_tid = 0u64;
    if let Some(f) = sdk!(rocprofiler_get_thread_id) {
        // SAFETY: writable u64.
        unsafe { f(&mut sdk_tid) };
    }
    let status_string = sdk!(rocprofiler_get_status_string)
        // SAFETY: runtime function returning a static string or NULL.
        .map(|f| cstr(unsafe { f(16) }))
        .unwrap_or(Value::Null);
    log(
        json!({"ev": "thread_id", "sdk": sdk_tid, "gettid": gettid(), "status_string_16": status_string}),
    );
    let mut now = 0u64;
    if let Some(f) = sdk!(rocprofiler_get_timestamp) {
        // SAFETY: writable u64.
        unsafe { f(&mut now) };
    }
    log(json!({"ev": "clocks", "at": "initialize", "clocks": clocks()}));
    log(json!({
        "ev": "initialize", "priority": PRIORITY.load(Ordering::Relaxed), "init_status": st,
        "version": [a, b, c], "triplet_status": trip_status.map(status_name),
        "triplet": [trip.major, trip.minor, trip.patch], "tid": gettid(), "now": now,
    }));
    log_names();
    query_agents();

    let create = sdk!(rocprofiler_create_context).expect("rocprofiler_create_context");
    if cfg().has("nonzero_ctx") {
        let mut ctx = rocprofiler_context_id_t { handle: 12345 };
        // SAFETY: writable id.
        log_status("create_context_nonzero", unsafe { create(&mut ctx) });
    }
    let mut ctx = rocprofiler_context_id_t { handle: 0 };
    // SAFETY: writable id.
    let rc = unsafe { create(&mut ctx) };
    log_status("create_context", rc);
    log(json!({"ev": "context", "handle": ctx.handle}));
    CONTEXT.store(ctx.handle, Ordering::Relaxed);

    let policy = if cfg().has("discard") {
        ROCPROFILER_BUFFER_POLICY_DISCARD
    } else {
        ROCPROFILER_BUFFER_POLICY_LOSSLESS
    };
    let size = cfg().num("buf_size").unwrap_or(8192);
    let watermark = cfg().num("watermark").unwrap_or(size - size / 8);
    let mut buf = rocprofiler_buffer_id_t { handle: 0 };
    let create_buffer = sdk!(rocprofiler_create_buffer).expect("rocprofiler_create_buffer");
    // SAFETY: valid arguments; callback has the documented signature.
    let rc = unsafe {
        create_buffer(
            ctx,
            size,
            watermark,
            policy,
            Some(buffer_cb),
            std::ptr::null_mut(),
            &mut buf,
        )
    };
    log_status("create_buffer", rc);
    log(
        json!({"ev": "buffer_created", "handle": buf.handle, "size": size, "watermark": watermark}),
    );
    BUFFER.store(buf.handle, Ordering::Relaxed);
    if cfg().has("device_counting") {
        device_counting_init();
    }

    if cfg().has("callback_thread") {
        let mut th = rocprofiler_callback_thread_t { handle: 0 };
        let c = sdk!(rocprofiler_create_callback_thread).expect("create_callback_thread");
        let a = sdk!(rocprofiler_assign_callback_thread).expect("assign_callback_thread");
        // SAFETY: writable id; valid handles.
        log_status("create_callback_thread", unsafe { c(&mut th) });
        // SAFETY: as above.
        log_status("assign_callback_thread", unsafe { a(buf, th) });
    }

    let cbt = sdk!(rocprofiler_configure_buffer_tracing_service).expect("buffer tracing");
    let mut kinds = vec![
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
        ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API,
        ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
    ];
    for name in ["HIP_RUNTIME_API_EXT", "MARKER_CORE_RANGE_API", "HIP_EVENT"] {
        if let Some(k) = buffer_kind_by_name(name) {
            kinds.push(k);
        }
    }
    for k in kinds {
        // SAFETY: valid context/buffer; no operation filter.
        let rc = unsafe { cbt(ctx, k, std::ptr::null(), 0, buf) };
        log_status(&format!("buffer_service_{k}"), rc);
    }
    if !cfg().has("no_callbacks") {
        let cct = sdk!(rocprofiler_configure_callback_tracing_service).expect("callback tracing");
        type CbV0 = unsafe extern "C" fn(
            rocprofiler_callback_tracing_record_v0_t,
            *mut rocprofiler_user_data_t,
            *mut c_void,
        );
        type CbV1 = unsafe extern "C" fn(
            rocprofiler_callback_tracing_record_v1_t,
            *mut rocprofiler_user_data_t,
            *mut c_void,
        );
        // SAFETY: the service takes the callback version-erased; the runtime calls it with the
        // record layout of its version, which is the one each of ours expects.
        let cb: rocprofiler_callback_tracing_cb_any_t = Some(unsafe {
            if is_v1() {
                std::mem::transmute::<CbV1, unsafe extern "C" fn()>(callback_v1)
            } else {
                std::mem::transmute::<CbV0, unsafe extern "C" fn()>(callback_v0)
            }
        });
        let mut ckinds = vec![
            ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
            ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
            ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
            ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
            ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
        ];
        for name in ["HIP_STREAM", "MARKER_CORE_RANGE_API", "HIP_EVENT"] {
            if let Some(k) = callback_kind_by_name(name) {
                ckinds.push(k);
            }
        }
        for k in ckinds {
            // SAFETY: valid context; callback matches this runtime's record layout.
            let rc = unsafe { cct(ctx, k, std::ptr::null(), 0, cb, std::ptr::null_mut()) };
            log_status(&format!("callback_service_{k}"), rc);
        }
    }
    if cfg().has("ext_request") {
        let f = sdk!(rocprofiler_configure_external_correlation_id_request_service)
            .expect("request service");
        // SAFETY: valid context; callback has the documented signature.
        let rc = unsafe {
            f(
                ctx,
                std::ptr::null(),
                0,
                Some(ext_request),
                std::ptr::null_mut(),
            )
        };
        log_status("ext_request_service", rc);
    }
    let start = sdk!(rocprofiler_start_context).expect("start_context");
    // SAFETY: valid context.
    log_status("start_context", unsafe { start(ctx) });
}

unsafe extern "C" fn ext_request(
    _tid: u64,
    _ctx: rocprofiler_context_id_t,
    kind: u32,
    _op: i32,
    internal: u64,
    out: *mut rocprofiler_user_data_t,
    _data: *mut c_void,
) -> c_int {
    // Answer only for kernel dispatches; everything else falls back to the push/pop stack.
    if kind == 11 {
        // SAFETY: runtime-provided writable slot.
        unsafe { (*out).value = 900_000 + internal };
        0
    } else {
        1
    }
}

unsafe extern "C" fn agents_cb(
    _v: u32,
    agents: *mut *const c_void,
    n: usize,
    _data: *mut c_void,
) -> rocprofiler_status_t {
    guard(|| {
        for i in 0..n {
            // SAFETY: the runtime passes `n` valid agent pointers.
            let a = unsafe { &*(*agents.add(i) as *const rocprofiler_agent_v0_t) };
            remember_gpu(a);
            // The memory banks as rocprofv3 writes them in its agent records.
            let banks: Vec<Value> = (0..a.mem_banks_count as usize)
                .filter(|_| !a.mem_banks.is_null())
                .map(|b| {
                    // SAFETY: the runtime's `mem_banks` holds `mem_banks_count` banks.
                    let m = unsafe { &*a.mem_banks.add(b) };
                    json!({"heap_type": m.heap_type, "width": m.width,
                           "mem_clk_max": m.mem_clk_max, "size_in_bytes": m.size_in_bytes})
                })
                .collect();
            log(json!({
                "ev": "agent", "size": a.size, "id": a.id.handle, "type": a.type_,
                "name": cstr(a.name), "product_name": cstr(a.product_name),
                "model_name": cstr(a.model_name), "vendor_name": cstr(a.vendor_name),
                "cu_count": a.cu_count, "simd_per_cu": a.simd_per_cu,
                "wave_front_size": a.wave_front_size, "num_xcc": a.num_xcc,
                "gfx_target_version": a.gfx_target_version, "node_id": a.node_id,
                "logical_node_id": a.logical_node_id, "logical_node_type_id": a.logical_node_type_id,
                "local_mem_size": a.local_mem_size, "max_engine_clk_fcompute": a.max_engine_clk_fcompute,
                "vendor_id": a.vendor_id, "device_id": a.device_id,
                "simd_count": a.simd_count, "max_waves_per_cu": a.max_waves_per_cu,
                "max_waves_per_simd": a.max_waves_per_simd, "lds_size_in_kb": a.lds_size_in_kb,
                "mem_banks_count": a.mem_banks_count, "mem_banks": banks,
            }));
        }
    });
    0
}

fn query_agents() {
    let Some(q) = sdk!(rocprofiler_query_available_agents) else {
        return;
    };
    let size = cfg().num("agent_size").unwrap_or(296);
    // SAFETY: valid callback; agent_size bounds what we read.
    let rc = unsafe {
        q(
            ROCPROFILER_AGENT_INFO_VERSION_0,
            Some(agents_cb),
            size,
            std::ptr::null_mut(),
        )
    };
    log_status("query_agents", rc);
}

fn late_create() {
    if LATE_DONE.swap(true, Ordering::AcqRel) {
        return;
    }
    let force: rocprofiler_force_configure_fn = sym(c"rocprofiler_force_configure");
    if let Some(f) = force {
        // SAFETY: runtime function; our own configure function is a valid argument.
        log_status("late_force_configure", unsafe {
            f(Some(rocprofiler_configure))
        });
    }
    let mut ctx = rocprofiler_context_id_t { handle: 0 };
    let create = sdk!(rocprofiler_create_context).expect("create_context");
    // SAFETY: writable id.
    log_status("late_create_context", unsafe { create(&mut ctx) });
    log(json!({"ev": "late_context_handle", "handle": ctx.handle}));
    let mut buf = rocprofiler_buffer_id_t { handle: 0 };
    let cb = sdk!(rocprofiler_create_buffer).expect("create_buffer");
    let live = rocprofiler_context_id_t {
        handle: CONTEXT.load(Ordering::Relaxed),
    };
    // SAFETY: valid arguments.
    let rc = unsafe {
        cb(
            live,
            4096,
            0,
            ROCPROFILER_BUFFER_POLICY_LOSSLESS,
            Some(buffer_cb),
            std::ptr::null_mut(),
            &mut buf,
        )
    };
    log_status("late_create_buffer", rc);
    let cbt = sdk!(rocprofiler_configure_buffer_tracing_service).expect("buffer tracing");
    let b = rocprofiler_buffer_id_t {
        handle: BUFFER.load(Ordering::Relaxed),
    };
    // SAFETY: valid arguments.
    log_status("late_buffer_service", unsafe {
        cbt(live, 6, std::ptr::null(), 0, b)
    });
    let mut th = rocprofiler_callback_thread_t { handle: 0 };
    let c = sdk!(rocprofiler_create_callback_thread).expect("create_callback_thread");
    // SAFETY: writable id.
    log_status("late_create_callback_thread", unsafe { c(&mut th) });
}

// ---- callbacks ----------------------------------------------------------------------------

struct Rec {
    ctx: u64,
    tid: u64,
    internal: u64,
    external: u64,
    kind: u32,
    op: i32,
    phase: u32,
    payload: *mut c_void,
}

unsafe extern "C" fn callback_v0(
    r: rocprofiler_callback_tracing_record_v0_t,
    user: *mut rocprofiler_user_data_t,
    _data: *mut c_void,
) {
    let rec = Rec {
        ctx: r.context_id.handle,
        tid: r.thread_id,
        internal: r.correlation_id.internal,
        // SAFETY: plain 8-byte union.
        external: unsafe { r.correlation_id.external.value },
        kind: r.kind,
        op: r.operation,
        phase: r.phase,
        payload: r.payload,
    };
    guard(|| on_callback(rec, user, None));
}

unsafe extern "C" fn callback_v1(
    r: rocprofiler_callback_tracing_record_v1_t,
    user: *mut rocprofiler_user_data_t,
    _data: *mut c_void,
) {
    let rec = Rec {
        ctx: r.context_id.handle,
        tid: r.thread_id,
        internal: r.correlation_id.internal,
        // SAFETY: plain 8-byte union.
        external: unsafe { r.correlation_id.external.value },
        kind: r.kind,
        op: r.operation,
        phase: r.phase,
        payload: r.payload,
    };
    let raw = r;
    guard(|| on_callback(rec, user, Some(raw)));
}
const _: rocprofiler_callback_tracing_cb_v0_t = Some(callback_v0);
const _: rocprofiler_callback_tracing_cb_v1_t = Some(callback_v1);

unsafe extern "C" fn collect_buffer_arg(
    kind: u32,
    op: i32,
    n: u32,
    addr: *const c_void,
    ind: i32,
    ty: *const c_char,
    name: *const c_char,
    value: *const c_char,
    data: *mut c_void,
) -> c_int {
    // SAFETY: same contract as `collect_arg`.
    unsafe { collect_arg(kind, op, n, addr, ind, ty, name, value, 0, data) }
}
const _: rocprofiler_buffer_tracing_operation_args_cb_t = Some(collect_buffer_arg);

unsafe extern "C" fn collect_arg(
    _kind: u32,
    _op: i32,
    _n: u32,
    _addr: *const c_void,
    _ind: i32,
    _ty: *const c_char,
    name: *const c_char,
    value: *const c_char,
    _deref: i32,
    data: *mut c_void,
) -> c_int {
    // SAFETY: `data` is our map; strings are valid during the callback.
    unsafe {
        let m = &mut *(data as *mut serde_json::Map<String, Value>);
        let k = CStr::from_ptr(name).to_string_lossy().into_owned();
        m.insert(k, cstr(value));
    }
    0
}

/// `push_in_enter`: pushes 777 (this context, this thread) at every HIP API ENTER and pops it
/// at EXIT, so the call's EXIT, record and async work should carry 777.
fn push_in_enter(r: &Rec) {
    let ctx = rocprofiler_context_id_t { handle: r.ctx };
    if r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER {
        let f: rocprofiler_push_external_correlation_id_fn =
            sym(c"rocprofiler_push_external_correlation_id");
        if let Some(f) = f {
            // SAFETY: runtime function with a registered context and our own TID.
            unsafe { f(ctx, gettid(), rocprofiler_user_data_t { value: 777 }) };
        }
    } else if r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT {
        let f: rocprofiler_pop_external_correlation_id_fn =
            sym(c"rocprofiler_pop_external_correlation_id");
        if let Some(f) = f {
            // SAFETY: as above; a null out-pointer is allowed.
            unsafe { f(ctx, gettid(), std::ptr::null_mut()) };
        }
    }
}

fn on_callback(
    r: Rec,
    user: *mut rocprofiler_user_data_t,
    raw_v1: Option<rocprofiler_callback_tracing_record_v1_t>,
) {
    let self_tid = gettid();
    let mut ev = json!({
        "ev": "cb", "ctx": r.ctx, "kind": r.kind, "kind_name": callback_kind_name(r.kind),
        "op": r.op, "op_name": callback_op_name(r.kind, r.op), "phase": r.phase,
        "tid": r.tid, "self_tid": self_tid, "corr": r.internal, "ext": r.external,
    });
    let key = (r.kind, r.internal);
    if r.kind == ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API
        || r.kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API
    {
        if r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER {
            let v = CB_SEQ.fetch_add(1, Ordering::Relaxed);
            // SAFETY: runtime-provided user_data slot, valid ENTER→EXIT.
            unsafe { (*user).value = v };
            OPEN.with(|o| o.borrow_mut().insert(key, (user as usize, v, self_tid)));
            let mut now = 0u64;
            if let Some(f) = sdk!(rocprofiler_get_timestamp) {
                // SAFETY: writable u64.
                unsafe { f(&mut now) };
            }
            ev["now"] = json!(now);
            if r.kind == ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API {
                let mut args = serde_json::Map::new();
                let name = c"rocprofiler_iterate_callback_tracing_kind_operation_args";
                let argp = &mut args as *mut _ as *mut c_void;
                if let Some(v1) = raw_v1 {
                    let f: rocprofiler_iterate_callback_tracing_kind_operation_args_v1_fn =
                        sym(name);
                    if let Some(f) = f {
                        // SAFETY: runtime function; `args` outlives the call.
                        unsafe { f(v1, Some(collect_arg), 0, argp) };
                    }
                } else {
                    // Under 0.x the 56-byte record is what a tool passes.
                    let f: rocprofiler_iterate_callback_tracing_kind_operation_args_v0_fn =
                        sym(name);
                    let v0 = rocprofiler_callback_tracing_record_v0_t {
                        context_id: rocprofiler_context_id_t { handle: r.ctx },
                        thread_id: r.tid,
                        correlation_id: rocprofiler_correlation_id_v0_t {
                            internal: r.internal,
                            external: rocprofiler_user_data_t { value: r.external },
                        },
                        kind: r.kind,
                        operation: r.op,
                        phase: r.phase,
                        payload: r.payload,
                    };
                    if let Some(f) = f {
                        // SAFETY: runtime function called with the 0.x record layout.
                        unsafe { f(v0, Some(collect_arg), 0, argp) };
                    }
                }
                ev["args"] = Value::Object(args);
            } else if !r.payload.is_null() {
                // SAFETY: marker payload; args[0] is the message for string-taking calls.
                let d = unsafe {
                    &*(r.payload as *const rocprofiler_callback_tracing_marker_api_data_t)
                };
                if matches!(r.op, 0 | 1 | 3) {
                    // SAFETY: for these operations the args union holds the message pointer.
                    ev["message"] = cstr(unsafe { d.args.roctxMarkA.message });
                }
            }
        } else if r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT {
            let open = OPEN.with(|o| o.borrow_mut().remove(&key));
            // SAFETY: runtime-provided user_data slot.
            let now = unsafe { (*user).value };
            ev["enter_exit_ok"] = json!(
                open.is_some_and(|(p, v, t)| p == user as usize && v == now && t == self_tid)
            );
            if r.kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API && !r.payload.is_null() {
                // SAFETY: marker payload.
                let d = unsafe {
                    &*(r.payload as *const rocprofiler_callback_tracing_marker_api_data_t)
                };
                // SAFETY: plain 8-byte integer union.
                ev["retval"] = json!(unsafe { d.retval.int64_t_retval });
            }
        }
        if r.kind == ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API && cfg().has("late_create") {
            late_create();
        }
        if r.kind == ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API && cfg().has("push_in_enter") {
            push_in_enter(&r);
        }
    } else if r.kind == ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT && !r.payload.is_null() {
        if r.op == 1 {
            // SAFETY: code-object load payload.
            let d = unsafe {
                &*(r.payload as *const rocprofiler_callback_tracing_code_object_load_data_t)
            };
            ev["co_id"] = json!(d.code_object_id);
            ev["uri"] = cstr(d.uri);
            ev["agent"] = json!(d.agent_id.handle);
            ev["size"] = json!(d.size);
            if let (Some(ms), ROCPROFILER_CALLBACK_PHASE_LOAD) =
                (cfg().num("slow_load_ms"), r.phase)
            {
                // A slow consumer of LOAD: widens the window in which another thread could
                // dispatch one of its kernels before the LOAD is even logged.
                std::thread::sleep(std::time::Duration::from_millis(ms as u64));
            }
        } else if r.op == 2 {
            // SAFETY: kernel-symbol payload.
            let d = unsafe {
                &*(r.payload as *const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t)
            };
            ev["co_id"] = json!(d.code_object_id);
            ev["kernel_id"] = json!(d.kernel_id);
            ev["kernel_name"] = cstr(d.kernel_name);
            ev["size"] = json!(d.size);
            ev["sgpr_count"] = json!(d.sgpr_count);
            ev["arch_vgpr_count"] = json!(d.arch_vgpr_count);
            ev["accum_vgpr_count"] = json!(d.accum_vgpr_count);
            ev["group_segment_size"] = json!(d.group_segment_size);
            ev["private_segment_size"] = json!(d.private_segment_size);
        }
    } else if r.kind == ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH && !r.payload.is_null() {
        // SAFETY: kernel-dispatch payload.
        let d =
            unsafe { &*(r.payload as *const rocprofiler_callback_tracing_kernel_dispatch_data_t) };
        ev["dispatch_id"] = json!(d.dispatch_info.dispatch_id);
        ev["start"] = json!(d.start_timestamp);
        ev["end"] = json!(d.end_timestamp);
        ev["size"] = json!(d.size);
        if d.size >= 160 {
            // SAFETY: `size` says the payload has the newest layout's `int32_t pipe_id` at 152.
            ev["pipe_id"] = json!(unsafe { *((r.payload as *const u8).add(152) as *const i32) });
        }
        // SAFETY: user_data slot.
        let u = unsafe { (*user).value };
        if r.op == 1 && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER {
            // SAFETY: user_data slot, carried to COMPLETE.
            unsafe { (*user).value = 7_000_000 + d.dispatch_info.dispatch_id };
        }
        ev["user"] = json!(u);
    } else if r.kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY && !r.payload.is_null() {
        // SAFETY: memory-copy payload (common prefix of both versions).
        let d =
            unsafe { &*(r.payload as *const rocprofiler_callback_tracing_memory_copy_data_v0_t) };
        ev["size"] = json!(d.size);
        ev["bytes"] = json!(d.bytes);
    } else if !r.payload.is_null()
        && callback_kind_name(r.kind).as_str() == Some("MARKER_CORE_RANGE_API")
    {
        // SAFETY: marker payload; the args union holds the message pointer.
        let d = unsafe { &*(r.payload as *const rocprofiler_callback_tracing_marker_api_data_t) };
        // SAFETY: as above.
        ev["message"] = cstr(unsafe { d.args.roctxMarkA.message });
        let mut guard = RANGES.lock().unwrap_or_else(|e| e.into_inner());
        let open = guard.get_or_insert_with(HashMap::new);
        if r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER {
            let v = CB_SEQ.fetch_add(1, Ordering::Relaxed);
            // SAFETY: runtime-provided user_data slot.
            unsafe { (*user).value = v };
            open.insert(r.internal, (user as usize, v));
        } else {
            let o = open.remove(&r.internal);
            // SAFETY: runtime-provided user_data slot.
            let now = unsafe { (*user).value };
            ev["enter_exit_ok"] = json!(o.is_some_and(|(p, v)| p == user as usize && v == now));
        }
    } else if !r.payload.is_null() && callback_kind_name(r.kind).as_str() == Some("HIP_STREAM") {
        // SAFETY: hip-stream payload.
        let d = unsafe { &*(r.payload as *const rocprofiler_callback_tracing_hip_stream_data_t) };
        ev["stream_id"] = json!(d.stream_id.handle);
        // SAFETY: plain 8-byte union.
        ev["stream"] = json!(unsafe { d.stream_value.handle });
    } else if !r.payload.is_null() && callback_kind_name(r.kind).as_str() == Some("HIP_EVENT") {
        // SAFETY: hip-event payload (declared size checked by the tests through `size`).
        let d = unsafe { &*(r.payload as *const rocprofiler_callback_tracing_hip_event_data_t) };
        ev["size"] = json!(d.size);
        ev["start"] = json!(d.start_timestamp);
        ev["end"] = json!(d.end_timestamp);
        ev["agent"] = json!(d.agent_id.handle);
        ev["queue"] = json!(d.queue_id.handle);
        ev["event"] = json!(d.hip_event_handle);
        ev["source_queue"] = json!(d.source_queue_id.handle);
        // SAFETY: runtime-provided user_data slot.
        ev["user"] = json!(unsafe { (*user).value });
    }
    log(ev);
}

fn summarize(h: &rocprofiler_record_header_t) -> Value {
    let kind = h.kind();
    let category = h.category();
    let p = h.payload as *const u8;
    // SAFETY: every tracing record starts with {u64 size, u32 kind, i32 operation}.
    let (size, rkind, op) = unsafe {
        (
            *(p as *const u64),
            *(p.add(8) as *const u32),
            *(p.add(12) as *const i32),
        )
    };
    let mut ev = json!({
        "ev": "rec", "category": category, "kind": kind, "record_kind": rkind, "size": size,
        "op": op, "kind_name": buffer_kind_name(kind), "op_name": buffer_op_name(kind, op),
    });
    let name = buffer_kind_name(kind);
    match name.as_str() {
        Some("HIP_RUNTIME_API_EXT") => {
            let mut args = serde_json::Map::new();
            let f: rocprofiler_iterate_buffer_tracing_record_args_fn =
                sym(c"rocprofiler_iterate_buffer_tracing_record_args");
            if let Some(f) = f {
                // SAFETY: runtime function on a record valid during this callback.
                let rc = unsafe {
                    f(
                        *h,
                        Some(collect_buffer_arg),
                        &mut args as *mut _ as *mut c_void,
                    )
                };
                ev["args_status"] = json!(rc);
            }
            ev["args"] = Value::Object(args);
            // SAFETY: the ext record starts like the v1 API record.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_hip_api_record_v1_t) };
            ev["corr"] = json!(r.correlation_id.internal);
            ev["tid"] = json!(r.thread_id);
            ev["start"] = json!(r.start_timestamp);
            ev["end"] = json!(r.end_timestamp);
        }
        Some("HIP_EVENT") => {
            // SAFETY: HIP_EVENT buffer record (88 bytes; `size` is logged for the tests).
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_hip_event_record_t) };
            ev["corr"] = json!(r.correlation_id.internal);
            // SAFETY: plain 8-byte union.
            ev["ext"] = json!(unsafe { r.correlation_id.external.value });
            ev["tid"] = json!(r.thread_id);
            ev["start"] = json!(r.start_timestamp);
            ev["end"] = json!(r.end_timestamp);
            ev["agent"] = json!(r.agent_id.handle);
            ev["queue"] = json!(r.queue_id.handle);
            ev["event"] = json!(r.hip_event_handle);
            ev["source_queue"] = json!(r.source_queue_id.handle);
        }
        Some("KERNEL_DISPATCH") => {
            // SAFETY: size checked by the reader in tests; layout identical in all versions.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_kernel_dispatch_record_t) };
            let i = &r.dispatch_info;
            ev["corr"] = json!(r.correlation_id.internal);
            // SAFETY: plain 8-byte union.
            ev["ext"] = json!(unsafe { r.correlation_id.external.value });
            ev["tid"] = json!(r.thread_id);
            ev["start"] = json!(r.start_timestamp);
            ev["end"] = json!(r.end_timestamp);
            ev["info_size"] = json!(i.size);
            ev["agent"] = json!(i.agent_id.handle);
            ev["queue"] = json!(i.queue_id.handle);
            ev["kernel_id"] = json!(i.kernel_id);
            ev["dispatch_id"] = json!(i.dispatch_id);
            ev["grid"] = json!([i.grid_size.x, i.grid_size.y, i.grid_size.z]);
            ev["workgroup"] = json!([i.workgroup_size.x, i.workgroup_size.y, i.workgroup_size.z]);
            ev["group_segment_size"] = json!(i.group_segment_size);
            ev["private_segment_size"] = json!(i.private_segment_size);
        }
        Some("MEMORY_COPY") => {
            // SAFETY: the 0.x record is a prefix of the 1.x one.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_memory_copy_record_v0_t) };
            ev["corr"] = json!(r.correlation_id.internal);
            // SAFETY: plain union.
            ev["ext"] = json!(unsafe { r.correlation_id.external.value });
            ev["tid"] = json!(r.thread_id);
            ev["start"] = json!(r.start_timestamp);
            ev["end"] = json!(r.end_timestamp);
            ev["bytes"] = json!(r.bytes);
            ev["src_agent"] = json!(r.src_agent_id.handle);
            ev["dst_agent"] = json!(r.dst_agent_id.handle);
        }
        Some(_) if is_v1() => {
            // SAFETY: API records (HIP, marker, _EXT prefix) share the v1 header layout.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_hip_api_record_v1_t) };
            ev["corr"] = json!(r.correlation_id.internal);
            // SAFETY: plain union.
            ev["ext"] = json!(unsafe { r.correlation_id.external.value });
            ev["tid"] = json!(r.thread_id);
            ev["start"] = json!(r.start_timestamp);
            ev["end"] = json!(r.end_timestamp);
        }
        Some(_) => {
            // SAFETY: API records share the v0 layout.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_hip_api_record_v0_t) };
            ev["corr"] = json!(r.correlation_id.internal);
            // SAFETY: plain union.
            ev["ext"] = json!(unsafe { r.correlation_id.external.value });
            ev["tid"] = json!(r.thread_id);
            ev["start"] = json!(r.start_timestamp);
            ev["end"] = json!(r.end_timestamp);
        }
        None => {}
    }
    ev
}

unsafe extern "C" fn buffer_cb(
    ctx: rocprofiler_context_id_t,
    buffer: rocprofiler_buffer_id_t,
    headers: *mut *mut rocprofiler_record_header_t,
    n: usize,
    _data: *mut c_void,
    drops: u64,
) {
    guard(|| {
        check_kept("next_callback");
        log(json!({
            "ev": "buffer", "ctx": ctx.handle, "buffer": buffer.handle, "n": n, "drops": drops,
            "tid": gettid(), "finalizing": FINALIZED.load(Ordering::Relaxed),
        }));
        for i in 0..n {
            // SAFETY: the runtime passes `n` valid header pointers for this callback.
            let h = unsafe { &**headers.add(i) };
            log(summarize(h));
        }
        if cfg().has("keep_record") && n > 0 {
            let mut k = KEPT.lock().unwrap_or_else(|e| e.into_inner());
            if k.is_none() && !KEPT_ONCE.swap(true, Ordering::AcqRel) {
                // SAFETY: valid during this callback; we keep the pointers on purpose.
                let h = unsafe { *headers };
                // SAFETY: as above; every record is at least 48 bytes.
                let (hash, bytes) = unsafe { ((*h).hash(), *((*h).payload as *const [u8; 48])) };
                // SAFETY: as above.
                *k = Some((h as usize, unsafe { (*h).payload } as usize, hash, bytes));
                log(json!({"ev": "kept", "hash": hash}));
            }
        }
        if cfg().has("flush_in_cb") {
            let f = sdk!(rocprofiler_flush_buffer).expect("flush");
            // SAFETY: valid buffer id.
            log_status("flush_in_callback", unsafe { f(buffer) });
        }
        if cfg().has("client_fini") && FINI_FN.load(Ordering::Relaxed) != 0 {
            call_client_fini();
        }
    });
}
const _: rocprofiler_buffer_tracing_cb_t = Some(buffer_cb);

fn call_client_fini() {
    let f = FINI_FN.swap(0, Ordering::AcqRel);
    if f == 0 {
        return;
    }
    let id = *CLIENT_ID.lock().unwrap_or_else(|e| e.into_inner());
    log(json!({"ev": "client_fini_call"}));
    if is_v1() {
        // SAFETY: the runtime's finalizer for 1.x takes the 24-byte client id by value.
        let g: unsafe extern "C" fn(rocprofiler_client_id_v1_t) = unsafe { std::mem::transmute(f) };
        let cid = rocprofiler_client_id_v1_t {
            size: id[0] as usize,
            name: id[1] as *const c_char,
            handle: id[2] as u32,
        };
        // SAFETY: calling the runtime with the id it gave us.
        unsafe { g(cid) };
    } else {
        // SAFETY: 0.x finalizer takes the 16-byte id by value.
        let g: unsafe extern "C" fn(rocprofiler_client_id_v0_t) = unsafe { std::mem::transmute(f) };
        let cid = rocprofiler_client_id_v0_t {
            name: id[0] as *const c_char,
            handle: id[1] as u32,
        };
        // SAFETY: as above.
        unsafe { g(cid) };
    }
}

/// Re-reads a record pointer kept from an earlier callback (deliberate misuse).
fn check_kept(when: &str) {
    let k = *KEPT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((h, p, hash, bytes)) = k {
        // SAFETY: deliberately reading memory the runtime told us is no longer ours; the
        // simulator keeps it mapped (poisoned or reused), which is exactly what the test checks.
        let (hash2, bytes2) = unsafe {
            (
                (*(h as *const rocprofiler_record_header_t)).hash(),
                *(p as *const [u8; 48]),
            )
        };
        log(json!({
            "ev": "stale", "when": when, "same": hash == hash2 && bytes == bytes2,
            "hash_after": hash2,
        }));
        *KEPT.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

unsafe extern "C" fn tool_fini(_data: *mut c_void) {
    guard(|| {
        FINALIZED.store(true, Ordering::Relaxed);
        let mut st = 0;
        if let Some(f) = sdk!(rocprofiler_is_finalized) {
            // SAFETY: writable int.
            unsafe { f(&mut st) };
        }
        let mut now = 0u64;
        if let Some(f) = sdk!(rocprofiler_get_timestamp) {
            // SAFETY: writable u64.
            unsafe { f(&mut now) };
        }
        log(json!({"ev": "finalize_begin", "fini_status": st, "tid": gettid(), "now": now}));
        log(json!({"ev": "clocks", "at": "finalize", "clocks": clocks()}));
        if cfg().has("destroy") {
            let d: rocprofiler_destroy_buffer_fn = sym(c"rocprofiler_destroy_buffer");
            let b = rocprofiler_buffer_id_t {
                handle: BUFFER.load(Ordering::Relaxed),
            };
            if let Some(d) = d {
                // SAFETY: valid buffer id.
                log_status("destroy_buffer", unsafe { d(b) });
                // SAFETY: as above.
                log_status("destroy_buffer_again", unsafe { d(b) });
            }
        }
        if !cfg().has("no_flush") {
            let f = sdk!(rocprofiler_flush_buffer).expect("flush");
            let b = rocprofiler_buffer_id_t {
                handle: BUFFER.load(Ordering::Relaxed),
            };
            // SAFETY: valid buffer id.
            log_status("flush_in_finalize", unsafe { f(b) });
        }
        if cfg().has("late_create") {
            LATE_DONE.store(false, Ordering::Release);
            late_create();
        }
        if cfg().has("device_counting") {
            device_counting_sample();
        }
        check_kept("finalize");
        log(json!({"ev": "finalize_end"}));
    });
}

/// Runs after every atexit handler (i.e. after the runtime finalized): the runtime must now
/// report itself finalized and refuse flushes.
extern "C" fn after_exit() {
    guard(|| {
        if BUFFER.load(Ordering::Relaxed) == 0 {
            return;
        }
        let mut st = 0;
        if let Some(f) = sdk!(rocprofiler_is_finalized) {
            // SAFETY: writable int.
            unsafe { f(&mut st) };
        }
        let f = sdk!(rocprofiler_flush_buffer).expect("flush");
        let b = rocprofiler_buffer_id_t {
            handle: BUFFER.load(Ordering::Relaxed),
        };
        // SAFETY: valid buffer id.
        let rc = unsafe { f(b) };
        let ctx = rocprofiler_context_id_t {
            handle: CONTEXT.load(Ordering::Relaxed),
        };
        let mut active = -1;
        let is_active: rocprofiler_context_is_active_fn = sym(c"rocprofiler_context_is_active");
        if let Some(f) = is_active {
            // SAFETY: valid context id, writable int.
            unsafe { f(ctx, &mut active) };
        }
        let start = sdk!(rocprofiler_start_context)
            // SAFETY: valid context id.
            .map(|f| status_name(unsafe { f(ctx) }));
        let stop: rocprofiler_stop_context_fn = sym(c"rocprofiler_stop_context");
        // SAFETY: valid context id.
        let stop = stop.map(|f| status_name(unsafe { f(ctx) }));
        log(json!({
            "ev": "after_exit", "fini_status": st, "flush": rc, "flush_name": status_name(rc),
            "context_active": active, "start_context": start, "stop_context": stop,
        }));
    });
}

#[used]
#[unsafe(link_section = ".fini_array")]
static AFTER_EXIT: extern "C" fn() = after_exit;

// ---- the device counting service (mode `device_counting`) -----------------------------------
//
// A context of its own counts GRBM_GUI_ACTIVE, GRBM_COUNT and SQ_WAVES on every GPU; the tool
// samples it once at finalize (user data 7) and logs each value record (`dc_value`).

static GPU_AGENTS: Mutex<Vec<u64>> = Mutex::new(Vec::new());
static DC_CONTEXT: AtomicU64 = AtomicU64::new(0);
static DC_BUFFER: AtomicU64 = AtomicU64::new(0);
/// Counter id → name of the counters configured.
static DC_NAMES: Mutex<Option<HashMap<u64, String>>> = Mutex::new(None);

const DC_COUNTERS: [&str; 3] = ["GRBM_GUI_ACTIVE", "GRBM_COUNT", "SQ_WAVES"];

fn remember_gpu(agent: &rocprofiler_agent_v0_t) {
    if agent.type_ == ROCPROFILER_AGENT_TYPE_GPU {
        GPU_AGENTS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(agent.id.handle);
    }
}

unsafe extern "C" fn dc_counters_cb(
    agent: rocprofiler_agent_id_t,
    ids: *mut rocprofiler_counter_id_t,
    n: usize,
    data: *mut c_void,
) -> rocprofiler_status_t {
    let _ = agent;
    let info: rocprofiler_query_counter_info_fn = sym(c"rocprofiler_query_counter_info");
    // SAFETY: `data` is the `Vec<(u64, String)>` `dc_set_config` passed.
    let out = unsafe { &mut *(data as *mut Vec<(u64, String)>) };
    for i in 0..n {
        // SAFETY: the runtime passes `n` ids.
        let id = unsafe { *ids.add(i) };
        let mut ci = std::mem::MaybeUninit::<rocprofiler_counter_info_v0_t>::zeroed();
        let Some(info) = info else { break };
        // SAFETY: writable version-0 struct.
        let rc = unsafe {
            info(
                id,
                ROCPROFILER_COUNTER_INFO_VERSION_0,
                ci.as_mut_ptr().cast(),
            )
        };
        if rc != 0 {
            continue;
        }
        // SAFETY: filled on success.
        let name = cstr(unsafe { ci.assume_init() }.name);
        if let Some(name) = name.as_str().filter(|n| DC_COUNTERS.contains(n)) {
            out.push((id.handle, name.to_string()));
        }
    }
    0
}

unsafe extern "C" fn dc_set_config(
    ctx: rocprofiler_context_id_t,
    agent: rocprofiler_agent_id_t,
    set_config: rocprofiler_device_counting_agent_cb_t,
    _data: *mut c_void,
) {
    guard(|| {
        let iterate: rocprofiler_iterate_agent_supported_counters_fn =
            sym(c"rocprofiler_iterate_agent_supported_counters");
        let mut found: Vec<(u64, String)> = Vec::new();
        if let Some(it) = iterate {
            // SAFETY: valid callback; `found` lives across the call.
            unsafe {
                it(
                    agent,
                    Some(dc_counters_cb),
                    (&mut found as *mut Vec<_>).cast(),
                )
            };
        }
        let mut ids: Vec<rocprofiler_counter_id_t> = found
            .iter()
            .map(|(h, _)| rocprofiler_counter_id_t { handle: *h })
            .collect();
        let mut config = rocprofiler_counter_config_id_t { handle: 0 };
        let mut rc = u32::MAX;
        for name in [
            c"rocprofiler_create_counter_config",
            c"rocprofiler_create_profile_config",
        ] {
            let f: rocprofiler_create_counter_config_fn = sym(name);
            if let Some(f) = f {
                // SAFETY: `ids` holds `ids.len()` ids; `config` is writable.
                rc = unsafe { f(agent, ids.as_mut_ptr(), ids.len(), &mut config) };
                if rc == 0 {
                    break;
                }
            }
        }
        log_status("dc_create_config", rc);
        DC_NAMES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(HashMap::new)
            .extend(found);
        if let Some(set) = set_config {
            // SAFETY: the runtime's `set_config`, called during its start callback.
            log_status("dc_set_config", unsafe { set(ctx, config) });
        }
    });
}

unsafe extern "C" fn dc_buffer_cb(
    _ctx: rocprofiler_context_id_t,
    _buffer: rocprofiler_buffer_id_t,
    headers: *mut *mut rocprofiler_record_header_t,
    n: usize,
    _data: *mut c_void,
    _drops: u64,
) {
    guard(|| {
        let query: rocprofiler_query_record_counter_id_fn =
            sym(c"rocprofiler_query_record_counter_id");
        let names = DC_NAMES.lock().unwrap_or_else(|e| e.into_inner());
        let v1 = VERSION.load(Ordering::Relaxed) >= 10000;
        for i in 0..n {
            // SAFETY: the runtime passes `n` valid header pointers for this callback.
            let h = unsafe { &**headers.add(i) };
            if h.category() != ROCPROFILER_BUFFER_CATEGORY_COUNTERS
                || h.kind() != ROCPROFILER_COUNTER_RECORD_VALUE
            {
                log(json!({"ev": "dc_other", "category": h.category(), "kind": h.kind()}));
                continue;
            }
            // SAFETY: a value record: the 32-byte 0.x prefix is always there.
            let r = unsafe { &*(h.payload as *const rocprofiler_counter_record_v0_t) };
            let agent = v1.then(|| {
                // SAFETY: 1.x value records are the 40-byte layout.
                unsafe {
                    (*(h.payload as *const rocprofiler_counter_record_v1_t))
                        .agent_id
                        .handle
                }
            });
            let mut id = rocprofiler_counter_id_t { handle: 0 };
            if let Some(q) = query {
                // SAFETY: writable id.
                unsafe { q(r.id, &mut id) };
            }
            let name = names.as_ref().and_then(|m| m.get(&id.handle)).cloned();
            log(json!({
                "ev": "dc_value", "counter": name, "counter_id": id.handle,
                "value": r.counter_value, "dispatch_id": r.dispatch_id,
                // SAFETY: plain 8-byte union.
                "user": unsafe { r.user_data.value }, "agent": agent,
            }));
        }
    });
}

/// At init: a context with the device counting service on every GPU, started.
fn device_counting_init() {
    let create = sdk!(rocprofiler_create_context).expect("create_context");
    let mut ctx = rocprofiler_context_id_t { handle: 0 };
    // SAFETY: writable id.
    log_status("dc_create_context", unsafe { create(&mut ctx) });
    let mut buf = rocprofiler_buffer_id_t { handle: 0 };
    let create_buffer = sdk!(rocprofiler_create_buffer).expect("create_buffer");
    // SAFETY: valid arguments; the callback has the documented signature.
    let rc = unsafe {
        create_buffer(
            ctx,
            1 << 20,
            1 << 19,
            ROCPROFILER_BUFFER_POLICY_LOSSLESS,
            Some(dc_buffer_cb),
            std::ptr::null_mut(),
            &mut buf,
        )
    };
    log_status("dc_create_buffer", rc);
    let agents = GPU_AGENTS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    for agent in agents {
        let mut rc = u32::MAX;
        for name in [
            c"rocprofiler_configure_device_counting_service",
            c"rocprofiler_configure_agent_profile_counting_service",
        ] {
            let f: rocprofiler_configure_device_counting_service_fn = sym(name);
            if let Some(f) = f {
                // SAFETY: valid ids; the callback has the documented signature.
                rc = unsafe {
                    f(
                        ctx,
                        buf,
                        rocprofiler_agent_id_t { handle: agent },
                        Some(dc_set_config),
                        std::ptr::null_mut(),
                    )
                };
                if rc == 0 {
                    break;
                }
            }
        }
        log_status("dc_configure", rc);
    }
    DC_CONTEXT.store(ctx.handle, Ordering::Relaxed);
    DC_BUFFER.store(buf.handle, Ordering::Relaxed);
    let start = sdk!(rocprofiler_start_context).expect("start_context");
    // SAFETY: valid context id.
    log_status("dc_start_context", unsafe { start(ctx) });
}

/// At finalize: one sample (user data 7), then the buffer flushed.
fn device_counting_sample() {
    let ctx = rocprofiler_context_id_t {
        handle: DC_CONTEXT.load(Ordering::Relaxed),
    };
    let ud = rocprofiler_user_data_t { value: 7 };
    let v1: rocprofiler_sample_device_counting_service_v1_fn =
        sym(c"rocprofiler_sample_device_counting_service");
    let v0: rocprofiler_sample_device_counting_service_v0_fn =
        sym(c"rocprofiler_sample_agent_profile_counting_service");
    let mut rc = u32::MAX;
    if let Some(f) = v1 {
        // SAFETY: valid context; no output array.
        rc = unsafe { f(ctx, ud, 0, std::ptr::null_mut(), std::ptr::null_mut()) };
    }
    if rc != 0 {
        if let Some(f) = v0 {
            // SAFETY: valid context.
            rc = unsafe { f(ctx, ud, 0) };
        }
    }
    log_status("dc_sample", rc);
    let mut now = 0u64;
    if let Some(f) = sdk!(rocprofiler_get_timestamp) {
        // SAFETY: writable u64.
        unsafe { f(&mut now) };
    }
    log(json!({"ev": "dc_sampled", "now": now}));
    let flush = sdk!(rocprofiler_flush_buffer).expect("flush");
    let b = rocprofiler_buffer_id_t {
        handle: DC_BUFFER.load(Ordering::Relaxed),
    };
    // SAFETY: valid buffer id.
    log_status("dc_flush", unsafe { flush(b) });
}
