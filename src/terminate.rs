//! A program ended by SIGTERM or SIGINT still leaves its profile. Without a handler those
//! signals end the process at once: no `atexit`, so no runtime finalize and no profile — the
//! usual end of a batch job (Slurm sends SIGTERM at the time limit, Kubernetes at eviction,
//! then SIGKILL after a 30 s grace period) and of a run stopped with Ctrl-C.
//!
//! Where the program has no handler of its own for them (we never take a signal away from the
//! program; Python, for one, handles SIGINT itself and exits normally, which finalizes), the
//! tool's handler only writes the signal's number to a pipe. Our thread waiting on the pipe
//! then writes the profile exactly as the runtime's finalize would (flush, drain, join, write),
//! restores the default action and raises the signal again, so the process ends as it would
//! have without us (the parent or the scheduler sees it killed by that signal). Writing is
//! bounded: after `ROCPROF_XPLANE_TERM_TIMEOUT` (20 s) the process ends anyway, and a second
//! signal ends it at once. A forked child (which shares the pipe but not our thread) gets the
//! default action.

use std::ffi::c_int;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::log_warn;
use crate::signals;

/// The pipe's write end (-1 until started).
static PIPE: AtomicI32 = AtomicI32::new(-1);
/// The process that installed the handlers (a forked child is not it).
static OWNER: AtomicI32 = AtomicI32::new(0);
/// The signal being acted on (0: none yet).
static PENDING: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_terminate(sig: c_int) {
    // Async-signal-safe only: atomics, getpid, write, and `signals::end_as`.
    // SAFETY: `__errno_location` is the calling thread's errno; saved and restored so the
    // program's view of errno is untouched by our `write`.
    let errno = unsafe { *libc::__errno_location() };
    // SAFETY: getpid is async-signal-safe.
    let ours = unsafe { libc::getpid() } == OWNER.load(Ordering::Relaxed);
    let first = PENDING
        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    let fd = PIPE.load(Ordering::Relaxed);
    let byte = sig as u8;
    // SAFETY: one byte from a live local to our pipe; `write` is async-signal-safe.
    let sent =
        ours && first && fd >= 0 && unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) } == 1;
    if !sent {
        // A forked child, a second signal, or no pipe: what the signal does without us.
        signals::end_as(sig);
    }
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = errno };
}

/// Installs the handlers the configuration asks for and starts the thread that acts on them.
pub fn start(cfg: &'static Config) {
    if cfg.term.signals.is_empty() {
        return;
    }
    let mut fds = [-1 as c_int; 2];
    // SAFETY: `fds` has room for the two descriptors; close-on-exec so an exec'd program
    // does not inherit them.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        log_warn!(
            "cannot make the signal pipe ({}): a program ended by SIGTERM/SIGINT leaves no profile",
            std::io::Error::last_os_error()
        );
        return;
    }
    let [read_fd, write_fd] = fds;
    // SAFETY: getpid cannot fail.
    OWNER.store(unsafe { libc::getpid() }, Ordering::Relaxed);
    PIPE.store(write_fd, Ordering::Relaxed);
    let timeout = Duration::from_millis(cfg.term.timeout_ms);
    let spawned = std::thread::Builder::new()
        .name("rocprof-xplane-term".into())
        .spawn(move || wait_for_signal(read_fd, timeout, cfg.log > crate::config::LogLevel::Off));
    if let Err(e) = spawned {
        PIPE.store(-1, Ordering::Relaxed);
        log_warn!("cannot start the signal thread ({e}): a program ended by SIGTERM/SIGINT leaves no profile");
        return;
    }
    for &sig in &cfg.term.signals {
        match signals::take_if_unhandled(sig, on_terminate) {
            Ok(()) => crate::log_debug!(
                "{}: the profile is written before the process ends",
                signals::name(sig)
            ),
            Err(e) => crate::log_debug!("{}: {e}", signals::name(sig)),
        }
    }
}

/// Our thread: waits for a signal's byte, writes the profile, ends the process as the signal
/// would have.
fn wait_for_signal(fd: c_int, timeout: Duration, say: bool) {
    let mut byte = 0u8;
    loop {
        // SAFETY: reads one byte into a live local from our own pipe.
        let n = unsafe { libc::read(fd, (&mut byte as *mut u8).cast(), 1) };
        if n == 1 {
            break;
        }
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return;
    }
    let sig = c_int::from(byte);
    let name = signals::name(sig);
    // One line at the default level, as for the profile written: the user sees why the
    // process took a moment longer to end.
    if say {
        crate::log::stderr_line(format_args!(
            "rocprof-xplane: {name}: writing the profile before the process ends (at most {} s; a second {name} ends it now; ROCPROF_XPLANE_TERM_SIGNALS=none leaves {name} alone)",
            timeout.as_secs_f64()
        ));
    }
    let deadline = Instant::now() + timeout;
    // The deadline holds even if writing hangs: a thread of its own ends the process then.
    let deadline_thread = std::thread::Builder::new()
        .name("rocprof-xplane-term-deadline".into())
        .spawn(move || {
            std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
            log_warn!(
                "{name}: the profile was not written within {} s (ROCPROF_XPLANE_TERM_TIMEOUT); ending now",
                timeout.as_secs_f64()
            );
            signals::end_as(sig);
        });
    if let Err(e) = deadline_thread {
        log_warn!("{name}: no deadline thread ({e}): writing is not bounded");
    }
    // The runtime's finalize may already be writing (the program was exiting): wait for it.
    crate::entry::finalize();
    if !crate::entry::wait_finalized(deadline) {
        return; // the deadline thread ends the process
    }
    signals::end_as(sig);
}
