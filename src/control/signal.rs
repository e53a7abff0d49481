//! Signals as triggers: the user's window signal (`ROCPROF_XPLANE_WINDOW_SIGNAL`, a cut) and
//! the signals that end the program (`ROCPROF_XPLANE_TERM_SIGNALS`, SIGTERM and SIGINT by
//! default: the profile is written first).
//!
//! Without a handler SIGTERM and SIGINT end the process at once: no `atexit`, so no runtime
//! finalize and no profile — the usual end of a batch job (Slurm sends SIGTERM at the time
//! limit, Kubernetes at eviction, then SIGKILL after a grace period) and of a run stopped with
//! Ctrl-C. Where the program has no handler of its own for a signal (we never take a signal
//! away from the program; Python, for one, handles SIGINT itself and exits normally, which
//! finalizes), the tool's handler only writes the signal's number to a pipe: async-signal-safe
//! work, nothing else. Our thread reading the pipe then sends the coordinator a cut, or, for a
//! terminating signal, writes the profile exactly as the runtime's finalize would, restores the
//! default action and raises the signal again, so the process ends as it would have without us
//! (the parent or the scheduler sees it killed by that signal). Writing is bounded: after
//! `ROCPROF_XPLANE_TERM_TIMEOUT` the process ends anyway, and a second terminating signal ends
//! it at once. A forked child (which shares the pipe but not our thread) gets the default
//! action, and its window signals are ignored.

use std::ffi::c_int;
use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};
use std::time::{Duration, Instant};

use super::Control;
use crate::config::Config;
use crate::log_warn;
use crate::sdk::os;

/// What the handler needs, in the one place a bare signal handler can find it.
struct Pipe {
    /// The pipe's write end (-1 until started).
    write: AtomicI32,
    /// The process that installed the handlers (a forked child is not it).
    owner: AtomicI32,
    /// The terminating signal being acted on (0: none yet).
    terminating: AtomicI32,
    /// The window signal (0: none).
    cut: AtomicI32,
}

static PIPE: Pipe = Pipe {
    write: AtomicI32::new(-1),
    owner: AtomicI32::new(0),
    terminating: AtomicI32::new(0),
    cut: AtomicI32::new(0),
};

/// The line a process cut short while it writes at exit says of what it keeps (the capture
/// windows not yet merged, or the profile they were merged into: `note_kept_windows`). Global because the signal handler reads it; set
/// once at exit (its bytes are never freed, so the handler may read them at any time).
static KEPT: AtomicPtr<&'static [u8]> = AtomicPtr::new(std::ptr::null_mut());

/// Sets what a second terminating signal, or the deadline, says before the process ends:
/// `note` (nothing when empty).
pub fn note_kept_windows(note: &str) {
    if note.is_empty() {
        return;
    }
    let line: &'static [u8] = Box::leak(
        format!("rocprof-xplane: {note}\n")
            .into_bytes()
            .into_boxed_slice(),
    );
    let old = KEPT.swap(Box::into_raw(Box::new(line)), Ordering::AcqRel);
    // A note set before (a second finalize) stays allocated: the handler may be reading it.
    let _ = old;
}

/// The note set by [`note_kept_windows`], if any.
fn kept_note() -> Option<&'static [u8]> {
    let p = KEPT.load(Ordering::Acquire);
    // SAFETY: `KEPT` only ever holds null or a pointer leaked by `note_kept_windows`, never
    // freed, to a slice that is itself leaked.
    (!p.is_null()).then(|| unsafe { *p })
}

extern "C" fn on_signal(sig: c_int) {
    // Async-signal-safe only: atomics, getpid, write, and `os::end_as`; errno as it was.
    let _errno = os::SavedErrno::save();
    let ours = std::process::id() as i32 == PIPE.owner.load(Ordering::Relaxed);
    let fd = PIPE.write.load(Ordering::Relaxed);
    if sig == PIPE.cut.load(Ordering::Relaxed) {
        // A cut already waiting in a full pipe is as good as this one.
        if ours && fd >= 0 {
            os::write_byte(fd, sig as u8);
        }
        return;
    }
    let first = PIPE
        .terminating
        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    let sent = ours && first && fd >= 0 && os::write_byte(fd, sig as u8);
    if !sent {
        // A forked child, a second signal, or no pipe: what the signal does without us; a
        // second signal while the windows were being merged first says where they are kept.
        if let Some(note) = kept_note().filter(|_| ours && !first) {
            os::write_all(libc::STDERR_FILENO, note);
        }
        os::end_as(sig);
    }
}

/// Writes the profile before the process ends, waiting at most until the deadline; whether it
/// was written (`entry::finalize`).
pub type Finalize = Box<dyn Fn(Instant) -> bool + Send>;

/// Installs the handlers `cfg` asks for (the window signal when windows are on) and starts the
/// thread that acts on them.
pub fn start(cfg: &'static Config, control: &'static Control, windows: bool, finalize: Finalize) {
    let window_signal = cfg.window.and_then(|r| r.signal).filter(|_| windows);
    if cfg.term.signals.is_empty() && window_signal.is_none() {
        return;
    }
    let pipe = match os::pipe() {
        Ok(p) => p,
        Err(e) => {
            if let Some(sig) = window_signal {
                log_warn!("ROCPROF_XPLANE_WINDOW_SIGNAL={sig}: {e}; windows by signal are off");
            }
            if !cfg.term.signals.is_empty() {
                log_warn!("cannot make the signal pipe ({e}): a program ended by SIGTERM/SIGINT leaves no profile");
            }
            return;
        }
    };
    PIPE.owner
        .store(std::process::id() as i32, Ordering::Relaxed);
    PIPE.write.store(pipe.write, Ordering::Relaxed);
    let timeout = Duration::from_millis(cfg.term.timeout_ms);
    let say = cfg.log > crate::config::LogLevel::Off;
    let spawned = std::thread::Builder::new()
        .name("rocprof-xplane-signal".into())
        .spawn(move || wait_for_signals(pipe.read, control, timeout, say, finalize));
    if let Err(e) = spawned {
        PIPE.write.store(-1, Ordering::Relaxed);
        log_warn!("cannot start the signal thread ({e}): a program ended by SIGTERM/SIGINT leaves no profile, and windows by signal are off");
        return;
    }
    if let Some(sig) = window_signal {
        PIPE.cut.store(sig, Ordering::Relaxed);
        if let Err(e) = os::take_if_unhandled(sig, on_signal) {
            PIPE.cut.store(0, Ordering::Relaxed);
            log_warn!("ROCPROF_XPLANE_WINDOW_SIGNAL={sig}: {e}; windows by signal are off");
        }
    }
    for &sig in &cfg.term.signals {
        match os::take_if_unhandled(sig, on_signal) {
            Ok(()) => crate::log_debug!(
                "{}: the profile is written before the process ends",
                name(sig)
            ),
            Err(e) => crate::log_debug!("{}: {e}", name(sig)),
        }
    }
}

/// Our thread: a window signal's byte asks the coordinator for a cut; a terminating signal's
/// writes the profile and ends the process as the signal would have.
fn wait_for_signals(
    fd: c_int,
    control: &Control,
    timeout: Duration,
    say: bool,
    finalize: Finalize,
) {
    while let Some(byte) = os::read_byte(fd) {
        let sig = c_int::from(byte);
        if sig == PIPE.cut.load(Ordering::Relaxed) {
            control.cut();
            continue;
        }
        terminate(sig, timeout, say, &finalize);
        return;
    }
}

/// Writes the profile and ends the process as `sig` would have.
fn terminate(sig: c_int, timeout: Duration, say: bool, finalize: &Finalize) {
    let name = name(sig);
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
            if let Some(note) = kept_note() {
                os::write_all(libc::STDERR_FILENO, note);
            }
            os::end_as(sig);
        });
    if let Err(e) = deadline_thread {
        log_warn!("{name}: no deadline thread ({e}): writing is not bounded");
    }
    // The runtime's finalize may already be writing (the program was exiting): that waits.
    if finalize(deadline) {
        os::end_as(sig);
    }
    // Otherwise the deadline thread ends the process.
}

/// `SIGTERM` for SIGTERM, and so on, for messages.
pub fn name(sig: c_int) -> &'static str {
    match sig {
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGHUP => "SIGHUP",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGUSR2 => "SIGUSR2",
        _ => "a signal",
    }
}
