//! Signal handlers the tool installs in someone else's program: only where the program has
//! none of its own (we never take a signal away from it), and handlers that do nothing but
//! async-signal-safe work (an atomic, a `write`, `sigaction`, `raise`). Used by capture
//! windows (`window`: a cut on SIGUSR1/SIGUSR2) and by `terminate` (the profile written when
//! SIGTERM or SIGINT ends the program).

use std::ffi::c_int;

/// Installs `handler` for `sig` unless the program already handles or ignores it; `SA_RESTART`,
/// so a system call the signal interrupts in the program carries on.
pub fn take_if_unhandled(sig: c_int, handler: extern "C" fn(c_int)) -> Result<(), String> {
    // SAFETY: querying the current disposition into a zeroed sigaction.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: `old` is a valid out-pointer; a null new action only queries.
    if unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) } != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    if old.sa_sigaction != libc::SIG_DFL {
        return Err("the program already handles it; not taken".into());
    }
    // SAFETY: a zeroed sigaction with our handler and an empty mask is a valid action.
    let mut act: libc::sigaction = unsafe { std::mem::zeroed() };
    act.sa_sigaction = handler as usize;
    act.sa_flags = libc::SA_RESTART;
    // SAFETY: `act.sa_mask` is a valid sigset to empty.
    unsafe { libc::sigemptyset(&mut act.sa_mask) };
    // SAFETY: installing a handler whose body is async-signal-safe (the callers' contract).
    if unsafe { libc::sigaction(sig, &act, std::ptr::null_mut()) } != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    Ok(())
}

/// Ends the process as `sig` would have without us: the default action restored, the signal
/// raised again (the parent, or the scheduler, sees the process killed by `sig`).
/// Async-signal-safe.
pub fn end_as(sig: c_int) {
    // SAFETY: a zeroed sigaction is SIG_DFL with an empty mask and no flags.
    let act: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: `sigaction` and `raise` are async-signal-safe; `act` is valid.
    unsafe {
        libc::sigaction(sig, &act, std::ptr::null_mut());
        libc::raise(sig);
    }
}

/// `TERM` for SIGTERM, and so on, for messages.
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
}
