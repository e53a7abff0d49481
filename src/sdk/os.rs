//! The operating-system calls the tool makes, behind safe functions: signal dispositions, the
//! self-pipe a signal handler writes to, the fork handler, the host name, the machine's memory,
//! and the C++ runtime's demangler. Like the rest of `sdk`, this is the FFI edge: every `unsafe`
//! block of these calls lives here, each with its reason.
//!
//! A leaf: it imports nothing from the crate, so any layer may use it.

use std::ffi::{c_char, c_int, c_void, CStr, CString};

/// A signal handler as `sigaction` takes it (no `siginfo`).
pub type Handler = extern "C" fn(c_int);

/// Installs `handler` for `sig` unless the program already handles or ignores it; `SA_RESTART`,
/// so a system call the signal interrupts in the program carries on. The handler must be
/// async-signal-safe.
pub fn take_if_unhandled(sig: c_int, handler: Handler) -> Result<(), String> {
    // SAFETY: all-zero is a valid `sigaction` (SIG_DFL, empty mask, no flags).
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: `old` is a valid out-pointer; a null new action only queries.
    if unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) } != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    if old.sa_sigaction != libc::SIG_DFL {
        return Err("the program already handles it; not taken".into());
    }
    // SAFETY: as above.
    let mut act: libc::sigaction = unsafe { std::mem::zeroed() };
    act.sa_sigaction = handler as usize;
    act.sa_flags = libc::SA_RESTART;
    // SAFETY: `act.sa_mask` is a valid sigset to empty.
    unsafe { libc::sigemptyset(&mut act.sa_mask) };
    // SAFETY: installs a handler whose body is async-signal-safe (this function's contract).
    if unsafe { libc::sigaction(sig, &act, std::ptr::null_mut()) } != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    Ok(())
}

/// Ends the process as `sig` would have without us: the default action restored, the signal
/// raised again (the parent, or the scheduler, sees the process killed by `sig`).
/// Async-signal-safe.
pub fn end_as(sig: c_int) {
    // SAFETY: all-zero is SIG_DFL with an empty mask and no flags.
    let act: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: `sigaction` and `raise` are async-signal-safe; `act` is valid.
    unsafe {
        libc::sigaction(sig, &act, std::ptr::null_mut());
        libc::raise(sig);
    }
}

/// The calling thread's `errno`, restored when dropped: a signal handler that makes a system
/// call leaves the program's `errno` as it found it. Async-signal-safe.
pub struct SavedErrno(c_int);

impl SavedErrno {
    pub fn save() -> SavedErrno {
        // SAFETY: `__errno_location` returns the calling thread's errno slot, always valid.
        SavedErrno(unsafe { *libc::__errno_location() })
    }
}

impl Drop for SavedErrno {
    fn drop(&mut self) {
        // SAFETY: as in `save`.
        unsafe { *libc::__errno_location() = self.0 };
    }
}

/// A pipe's two ends, close-on-exec (an exec'd program does not inherit them); the write end
/// does not block, so a handler never waits on a full pipe.
pub struct Pipe {
    pub read: c_int,
    pub write: c_int,
}

/// Makes a [`Pipe`].
pub fn pipe() -> std::io::Result<Pipe> {
    let mut fds = [-1 as c_int; 2];
    // SAFETY: `fds` has room for the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fds[1]` is the write end just made; F_SETFL with O_NONBLOCK is valid on it.
    unsafe { libc::fcntl(fds[1], libc::F_SETFL, libc::O_NONBLOCK) };
    Ok(Pipe {
        read: fds[0],
        write: fds[1],
    })
}

/// Writes one byte to `fd`; whether it was written. Async-signal-safe.
pub fn write_byte(fd: c_int, byte: u8) -> bool {
    // SAFETY: one byte from a live local; `write` is async-signal-safe and checks `fd`.
    unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) == 1 }
}

/// Writes `bytes` to `fd` as far as it takes them (a short write or an error ends it, a signal
/// interrupting it retries). Async-signal-safe.
pub fn write_all(fd: c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a live slice of its stated length; `write` is async-signal-safe.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n > 0 {
            bytes = &bytes[n as usize..];
        } else if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {
            continue;
        } else {
            return;
        }
    }
}

/// Reads one byte from `fd`, retrying when a signal interrupts the read; `None` at the end of
/// the pipe or on an error.
pub fn read_byte(fd: c_int) -> Option<u8> {
    let mut byte = 0u8;
    loop {
        // SAFETY: reads one byte into a live local; `read` checks `fd`.
        let n = unsafe { libc::read(fd, (&mut byte as *mut u8).cast(), 1) };
        if n == 1 {
            return Some(byte);
        }
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return None;
    }
}

/// Registers `child` to run in the child of every later `fork()`. The handler must be
/// async-signal-safe, as a child handler of a multi-threaded process must be.
pub fn on_fork_child(child: unsafe extern "C" fn()) -> std::io::Result<()> {
    // SAFETY: registers a child handler only (no prepare/parent handlers).
    match unsafe { libc::pthread_atfork(None, None, Some(child)) } {
        0 => Ok(()),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

/// Takes an exclusive lock on `file` without waiting (`flock`): `false` when another open
/// file description holds one, or locks are not to be had. Released when the file is closed.
pub fn try_lock_exclusive(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock reads only the descriptor, which `file` keeps open during the call.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// The soft `RLIMIT_NOFILE` now (the program may change it while it runs); `u64::MAX` when it
/// cannot be read or is unlimited.
pub fn open_files_limit() -> u64 {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct we pass; it has no other effect.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } != 0 {
        return u64::MAX;
    }
    r.rlim_cur
}

/// This machine's host name ("localhost" when it has none).
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into our buffer.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut c_char, buf.len()) };
    if rc != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let s = String::from_utf8_lossy(&buf[..end]).into_owned();
    if s.is_empty() {
        "localhost".into()
    } else {
        s
    }
}

/// The machine's physical memory in bytes, when the system says.
pub fn physical_memory_bytes() -> Option<u64> {
    // SAFETY: sysconf only reads system configuration.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && page > 0).then(|| (pages as u64).saturating_mul(page as u64))
}

/// `char* __cxa_demangle(const char* mangled, char* buf, size_t* len, int* status)`.
type CxaDemangleFn =
    unsafe extern "C" fn(*const c_char, *mut c_char, *mut usize, *mut c_int) -> *mut c_char;

/// The C++ runtime's demangler (`__cxa_demangle`), found once by whoever keeps it.
#[derive(Clone, Copy)]
pub struct CxaDemangle(CxaDemangleFn);

impl std::fmt::Debug for CxaDemangle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CxaDemangle")
    }
}

impl CxaDemangle {
    /// The process's own C++ runtime's demangler, else `libstdc++.so.6`'s (loaded for it);
    /// `None` where neither exists.
    pub fn find() -> Option<CxaDemangle> {
        let name = c"__cxa_demangle";
        // SAFETY: dlsym with the RTLD_DEFAULT pseudo-handle and a NUL-terminated name.
        let mut sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        if sym.is_null() {
            // SAFETY: dlopen of a system library by its soname; the handle is kept for the
            // life of the process (never closed), as the function taken from it must stay
            // valid.
            let lib = unsafe {
                libc::dlopen(
                    c"libstdc++.so.6".as_ptr(),
                    libc::RTLD_LAZY | libc::RTLD_LOCAL,
                )
            };
            if lib.is_null() {
                return None;
            }
            // SAFETY: a live handle and a NUL-terminated name.
            sym = unsafe { libc::dlsym(lib, name.as_ptr()) };
        }
        if sym.is_null() {
            return None;
        }
        // SAFETY: `__cxa_demangle` has this signature in every Itanium C++ ABI runtime.
        Some(CxaDemangle(unsafe {
            std::mem::transmute::<*mut c_void, CxaDemangleFn>(sym)
        }))
    }

    /// `mangled` demangled, `None` when it is not a mangled name the runtime understands.
    pub fn demangle(&self, mangled: &str) -> Option<String> {
        let c = CString::new(mangled).ok()?;
        let mut status: c_int = 0;
        // SAFETY: a NUL-terminated input, no caller buffer (the runtime mallocs the result),
        // a valid status out-pointer.
        let out = unsafe {
            (self.0)(
                c.as_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut status,
            )
        };
        if out.is_null() {
            return None;
        }
        let s = (status == 0).then(|| {
            // SAFETY: on success the result is a NUL-terminated string the runtime malloc'ed.
            let text = unsafe { CStr::from_ptr(out) };
            text.to_string_lossy().into_owned()
        });
        // SAFETY: the result was allocated with malloc by `__cxa_demangle`; we own it.
        unsafe { libc::free(out.cast()) };
        s
    }
}

/// CPU time the calling thread has used, in ns (0 if the clock cannot be read).
pub use rocprof_xplane_core::measure::thread_cpu_ns;

/// CPU time (user and system) the whole process has used so far, every thread's, those ended
/// included, in ns (`None` if it cannot be read).
pub fn process_cpu_ns() -> Option<u64> {
    // SAFETY: `rusage` is plain data, for which all zeroes is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid out-pointer for the call's whole duration.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return None;
    }
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    Some(ns(ru.ru_utime) + ns(ru.ru_stime))
}

/// `membarrier(2)` commands (the kernel's ABI, `linux/membarrier.h`).
const MEMBARRIER_CMD_GLOBAL: c_int = 1;
const MEMBARRIER_CMD_PRIVATE_EXPEDITED: c_int = 8;
const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: c_int = 16;

/// `membarrier(cmd)`: 0 on success.
fn membarrier(cmd: c_int) -> libc::c_long {
    // SAFETY: membarrier takes two integer arguments and touches no memory of ours.
    unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as c_int, 0 as c_int) }
}

/// Registers this process for [`heavy_barrier`]'s expedited barrier (idempotent); `false`
/// when the kernel (before 4.14) or a sandbox (a seccomp filter, valgrind) refuses it.
pub fn register_heavy_barrier() -> bool {
    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0
}

/// Makes every running thread of this process pass a full memory barrier before returning
/// (the others pass one when they are next scheduled): the heavy side of an asymmetric fence
/// whose light side is a compiler fence. Only after [`register_heavy_barrier`] succeeded;
/// should the expedited command fail, the slower global one has the same effect.
pub fn heavy_barrier() {
    if membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 {
        membarrier(MEMBARRIER_CMD_GLOBAL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    extern "C" fn program_handler(_: c_int) {}
    extern "C" fn tool_handler(_: c_int) {}

    fn disposition(sig: c_int) -> usize {
        // SAFETY: a query into a zeroed out-value.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: valid out-pointer, null new action.
        unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) };
        old.sa_sigaction
    }

    /// SIGWINCH is used by no other test in this binary (dispositions are process-wide).
    #[test]
    fn a_signal_the_program_handles_or_ignores_is_left_to_it() {
        let sig = libc::SIGWINCH;
        let tool = tool_handler as extern "C" fn(c_int) as usize;
        for program in [
            program_handler as extern "C" fn(c_int) as usize,
            libc::SIG_IGN,
        ] {
            // SAFETY: installs a no-op handler (or ignores) for a signal nothing else uses.
            unsafe { libc::signal(sig, program) };
            assert!(take_if_unhandled(sig, tool_handler).is_err());
            assert_eq!(disposition(sig), program);
        }
        // SAFETY: back to the default action.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
        take_if_unhandled(sig, tool_handler).unwrap();
        assert_eq!(disposition(sig), tool);
        // SAFETY: back to the default action.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }

    #[test]
    fn a_pipe_carries_bytes_and_its_write_end_never_blocks() {
        let p = pipe().unwrap();
        assert!(write_byte(p.write, 7));
        assert_eq!(read_byte(p.read), Some(7));
        // Full: a write fails at once instead of blocking.
        let mut written = 0;
        while write_byte(p.write, 1) {
            written += 1;
            assert!(written < 1 << 22, "the pipe never filled");
        }
        assert!(written > 0);
    }

    #[test]
    fn errno_is_restored() {
        // SAFETY: the calling thread's errno slot.
        unsafe { *libc::__errno_location() = 42 };
        {
            let _saved = SavedErrno::save();
            // SAFETY: as above.
            unsafe { *libc::__errno_location() = 7 };
        }
        assert_eq!(std::io::Error::last_os_error().raw_os_error(), Some(42));
    }

    #[test]
    fn the_host_has_a_name_and_memory() {
        assert!(!hostname().is_empty());
        assert!(physical_memory_bytes().is_some_and(|b| b > 1 << 20));
    }
}
