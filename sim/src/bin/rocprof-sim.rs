//! `rocprof-sim` driver — plays the application and rocprofiler-register. **Test
//! infrastructure**: it drives the *simulated* rocprofiler-sdk runtime, not real hardware.
//!
//! Like rocprofiler-register with the real SDK, it does not link the runtime: it dlopens the
//! runtime library with `RTLD_GLOBAL | RTLD_NOW` (so tools resolve `rocprofiler_*` through
//! `dlsym(RTLD_DEFAULT, …)`), hands control to `rocprof_sim_main`, then calls `exit()` so the
//! runtime's atexit finalization runs as it would at the end of a real application
//! (`ROCPROF_SIM_EXIT_WITH__EXIT=1`: `_exit()` instead, which runs none of it).
//!
//! The process lives on a simulated host with clocks of its own (the runtime's `host_clock`):
//! this executable defines `clock_gettime`, exported to the libraries it loads (`build.rs`), so
//! the tool, the runtime and everything else read the host's `CLOCK_BOOTTIME` and
//! `CLOCK_REALTIME`; the other clocks are the machine's.

use std::ffi::{c_char, c_int, CString};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

type SimMain = unsafe extern "C" fn(c_int, *const *const c_char) -> c_int;
type HostClock = unsafe extern "C" fn(libc::clockid_t, *mut u64) -> c_int;
type HostClockSetup = extern "C" fn() -> *const c_char;
type ClockGettime = unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> c_int;

/// The runtime's `rocprof_sim_host_clock`, once the runtime is loaded and its host clock set
/// up (0 before: the machine's clocks).
static HOST_CLOCK: AtomicUsize = AtomicUsize::new(0);
/// libc's `clock_gettime` (the next definition after this executable's), 0 until looked up.
static MACHINE_CLOCK: AtomicUsize = AtomicUsize::new(0);

/// The process's `clock_gettime`: the host's clocks once the runtime is loaded, else libc's.
///
/// # Safety
/// As `clock_gettime(3)`: `ts` must be writable.
#[no_mangle]
pub unsafe extern "C" fn clock_gettime(id: libc::clockid_t, ts: *mut libc::timespec) -> c_int {
    let host = HOST_CLOCK.load(Ordering::Acquire);
    if host != 0 && !ts.is_null() {
        // SAFETY: `host` was stored from the runtime's `rocprof_sim_host_clock`, of this type.
        let f = unsafe { std::mem::transmute::<usize, HostClock>(host) };
        let mut ns = 0u64;
        // SAFETY: `ns` is a writable u64.
        if unsafe { f(id, &mut ns) } == 0 {
            // SAFETY: the caller passes a writable timespec.
            unsafe {
                (*ts).tv_sec = (ns / 1_000_000_000) as libc::time_t;
                (*ts).tv_nsec = (ns % 1_000_000_000) as libc::c_long;
            }
            return 0;
        }
    }
    let mut machine = MACHINE_CLOCK.load(Ordering::Acquire);
    if machine == 0 {
        // SAFETY: dlsym with RTLD_NEXT and a NUL-terminated name: the next `clock_gettime`
        // in lookup order after this executable, libc's.
        machine = unsafe { libc::dlsym(libc::RTLD_NEXT, c"clock_gettime".as_ptr()) } as usize;
        MACHINE_CLOCK.store(machine, Ordering::Release);
    }
    if machine == 0 {
        // SAFETY: the raw system call, with the caller's arguments.
        return unsafe { libc::syscall(libc::SYS_clock_gettime, id, ts) as c_int };
    }
    // SAFETY: `machine` is libc's clock_gettime, of this type; the arguments are the caller's.
    unsafe { std::mem::transmute::<usize, ClockGettime>(machine)(id, ts) }
}

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

/// Sets up the runtime's host clock from the environment (a wrong setting ends the process
/// with its message) and routes `clock_gettime` through it from now on.
fn install_host_clock(handle: *mut libc::c_void, lib: &std::path::Path) {
    // SAFETY: live handle, NUL-terminated symbol names.
    let (setup, clock) = unsafe {
        (
            libc::dlsym(handle, c"rocprof_sim_host_clock_setup".as_ptr()),
            libc::dlsym(handle, c"rocprof_sim_host_clock".as_ptr()),
        )
    };
    if setup.is_null() || clock.is_null() {
        die(&format!("{} has no host clock", lib.display()));
    }
    // SAFETY: the runtime's `rocprof_sim_host_clock_setup`, of this type.
    let setup = unsafe { std::mem::transmute::<*mut libc::c_void, HostClockSetup>(setup) };
    let error = setup();
    if !error.is_null() {
        // SAFETY: a NUL-terminated message the runtime keeps for the process's lifetime.
        let e = unsafe { std::ffi::CStr::from_ptr(error) };
        eprintln!("rocprof-sim: {}", e.to_string_lossy());
        std::process::exit(2);
    }
    HOST_CLOCK.store(clock as usize, Ordering::Release);
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
    install_host_clock(handle, &lib);
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
