//! The panic guard every `extern "C"` edge goes through.
//!
//! A panic unwinding into the runtime's C++ frames is undefined behaviour and would take the
//! profiled program down; instead it is caught here, reported once per edge on stderr, and the
//! edge returns a neutral value.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

/// What the guard keeps for the whole process. A global because the panic hook is the
/// process's own (installed once, whoever calls first), and a panic caught on any thread
/// counts toward the profile's warnings.
struct Guard {
    hook: Once,
    panics: AtomicU64,
}

static GUARD: Guard = Guard {
    hook: Once::new(),
    panics: AtomicU64::new(0),
};

thread_local! {
    /// How many guards are active on this thread (a guarded call can reach another edge): the
    /// panic hook runs on the panicking thread and must know whether a guard there will catch
    /// the panic. A `Cell<u32>` has no destructor, so each guard's access is a thread-local
    /// address, no registration check: every callback pays it twice.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Where the last guarded panic on this thread happened, for the guard's one line (touched
    /// only when a panic is caught).
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs, once, a panic hook that keeps a panic the guard will catch quiet: Rust's default
/// hook prints a multi-line report ("thread … panicked at …", a backtrace note) into the
/// application's stderr before `catch_unwind` even runs. Inside a guard the hook only notes the
/// location, and the guard prints one line; every other panic goes to the hook that was there
/// before, unchanged. The hook belongs to this library's copy of the Rust runtime (a cdylib
/// links its own `std`), so a Rust host program's own panics are not routed through it.
pub fn install_quiet_panic_hook() {
    GUARD
        .hook
        .call_once(|| std::panic::set_hook(quiet_hook(std::panic::take_hook())));
}

type Hook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// The hook: quiet inside a guard, `previous` outside.
fn quiet_hook(previous: Hook) -> Hook {
    Box::new(move |info| {
        if DEPTH.try_with(Cell::get).unwrap_or(0) > 0 {
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()));
            let _ = LOCATION.try_with(|l| *l.borrow_mut() = at);
        } else {
            previous(info);
        }
    })
}

/// Marks this thread as inside a guard for the guard's lifetime.
struct Guarded;

impl Guarded {
    #[inline(always)]
    fn enter() -> Guarded {
        let _ = DEPTH.try_with(|d| d.set(d.get() + 1));
        Guarded
    }
}

impl Drop for Guarded {
    #[inline(always)]
    fn drop(&mut self) {
        let _ = DEPTH.try_with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Runs `f`; on panic returns `fallback` and reports `edge`.
#[inline(always)]
pub fn ffi_guard<R>(edge: &'static str, fallback: R, f: impl FnOnce() -> R) -> R {
    let result = {
        let _inside = Guarded::enter();
        catch_unwind(AssertUnwindSafe(f))
    };
    match result {
        Ok(r) => r,
        Err(payload) => {
            report(edge, payload);
            fallback
        }
    }
}

/// The one line for a panic caught at `edge` (the first 16 of the process), and the payload
/// disposed of safely. Out of the guard's inline path: a callback never gets here.
#[cold]
#[inline(never)]
fn report(edge: &'static str, payload: Box<dyn std::any::Any + Send>) {
    let n = GUARD.panics.fetch_add(1, Ordering::Relaxed);
    if n < 16 {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic".into());
        let at = LOCATION
            .try_with(|l| l.borrow_mut().take())
            .ok()
            .flatten()
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        // The raw line writer, not the level-filtered logger, which might be what
        // panicked; and never `eprintln!`, which panics when stderr is unwritable and
        // would unwind from here into the runtime.
        crate::log::stderr_line(format_args!(
            "rocprof-xplane: error: internal error in {edge}: {msg}{at} (ignored)"
        ));
    }
    // Dropping a payload runs its destructor, which could panic again outside the
    // guard; only string payloads (everything `panic!` makes) are known safe to drop.
    if !(payload.is::<&str>() || payload.is::<String>()) {
        std::mem::forget(payload);
    }
}

/// How many panics were caught (reported in the trace's warnings).
pub fn caught_panics() -> u64 {
    GUARD.panics.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guarded_panics_skip_the_previous_hook_and_others_reach_it() {
        use std::sync::atomic::AtomicBool;
        use std::sync::Arc;
        // Stands in for Rust's default hook (the multi-line report), seen only for this
        // test's thread: other tests panic in parallel.
        let seen = Arc::new(AtomicBool::new(false));
        let me = std::thread::current().id();
        let flag = seen.clone();
        // Other tests' panics still get the default report (their failure messages).
        let default = std::panic::take_hook();
        std::panic::set_hook(quiet_hook(Box::new(move |info| {
            if std::thread::current().id() == me {
                flag.store(true, Ordering::SeqCst);
            } else {
                default(info);
            }
        })));
        let r = ffi_guard("test", 0, || -> i32 { panic!("guarded") });
        assert_eq!(r, 0);
        assert!(
            !seen.load(Ordering::SeqCst),
            "a guarded panic reached the default report"
        );
        assert_eq!(DEPTH.with(Cell::get), 0, "the guard count unwinds");
        let _ = std::panic::catch_unwind(|| panic!("not ours to silence"));
        assert!(
            seen.load(Ordering::SeqCst),
            "an unguarded panic must reach the previous hook"
        );
    }

    #[test]
    fn panic_becomes_fallback() {
        let before = caught_panics();
        let r = ffi_guard("test", 7, || -> i32 { panic!("boom") });
        assert_eq!(r, 7);
        assert_eq!(ffi_guard("test", 7, || 3), 3);
        assert!(caught_panics() > before);
    }

    #[test]
    fn a_payload_whose_drop_panics_is_not_dropped() {
        struct PanicsOnDrop;
        impl Drop for PanicsOnDrop {
            fn drop(&mut self) {
                panic!("drop");
            }
        }
        // Without the guard's care this would unwind out of `ffi_guard` (and, at a real
        // `extern "C"` edge, abort the process).
        let r = std::panic::catch_unwind(|| {
            ffi_guard("test", 1, || -> i32 { std::panic::panic_any(PanicsOnDrop) })
        });
        assert_eq!(r.ok(), Some(1));
    }
}
