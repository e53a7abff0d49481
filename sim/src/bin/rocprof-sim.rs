//! `rocprof-sim` driver — plays the application and rocprofiler-register. **Test
//! infrastructure**: it drives the *simulated* rocprofiler-sdk runtime, not real hardware.
//!
//! Like rocprofiler-register with the real SDK, it does not link the runtime: it dlopens the
//! runtime library with `RTLD_GLOBAL | RTLD_NOW` (so tools resolve `rocprofiler_*` through
//! `dlsym(RTLD_DEFAULT, …)`), hands control to `rocprof_sim_main`, then calls `exit()` so the
//! runtime's atexit finalization runs as it would at the end of a real application
//! (`ROCPROF_SIM_EXIT_WITH__EXIT=1`: `_exit()` instead, which runs none of it).

use std::ffi::{c_char, c_int, CString};
use std::path::PathBuf;

type SimMain = unsafe extern "C" fn(c_int, *const *const c_char) -> c_int;

fn library_path() -> PathBuf {
    if let Some(p) = std::env::var_os("ROCPROF_SIM_LIBRARY") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    exe.parent()
        .unwrap_or(std::path::Path::new("."))
        .join("librocprofiler_sdk_sim.so")
}

fn die(msg: &str) -> ! {
    eprintln!("rocprof-sim: {msg}");
    std::process::exit(127);
}

fn main() {
    let lib = library_path();
    let Ok(c_lib) = CString::new(lib.to_string_lossy().as_bytes()) else {
        die("library path contains NUL");
    };
    // SAFETY: dlopen with a valid NUL-terminated path.
    let handle = unsafe { libc::dlopen(c_lib.as_ptr(), libc::RTLD_GLOBAL | libc::RTLD_NOW) };
    if handle.is_null() {
        // SAFETY: dlerror returns a NUL-terminated string after a failed dlopen.
        let e = unsafe { std::ffi::CStr::from_ptr(libc::dlerror()) };
        die(&format!(
            "cannot load simulated runtime {}: {}",
            lib.display(),
            e.to_string_lossy()
        ));
    }
    // SAFETY: live handle, NUL-terminated symbol name.
    let sym = unsafe { libc::dlsym(handle, c"rocprof_sim_main".as_ptr()) };
    if sym.is_null() {
        die(&format!(
            "{} does not export rocprof_sim_main",
            lib.display()
        ));
    }
    // SAFETY: the symbol is the library's `rocprof_sim_main` with this exact signature.
    let sim_main: SimMain = unsafe { std::mem::transmute::<*mut libc::c_void, SimMain>(sym) };
    let args: Vec<CString> = std::env::args()
        .map(|a| CString::new(a).unwrap_or_default())
        .collect();
    let mut argv: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
    // SAFETY: argv holds args.len() valid strings (kept alive by `args`) plus a NULL.
    let rc = unsafe { sim_main(args.len() as c_int, argv.as_ptr()) };
    if std::env::var_os("ROCPROF_SIM_EXIT_WITH__EXIT").is_some() {
        // A program that leaves through `_exit` (or is killed): no atexit handlers, so no
        // runtime finalization and no tool finalize.
        // SAFETY: `_exit` ends the process immediately; nothing runs after it.
        unsafe { libc::_exit(rc) };
    }
    // SAFETY: plain libc exit: runs atexit handlers (the runtime's finalization), then exits.
    unsafe { libc::exit(rc) };
}
