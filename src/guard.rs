//! The panic guard every `extern "C"` edge goes through.
//!
//! A panic unwinding into the runtime's C++ frames is undefined behaviour and would take the
//! profiled program down; instead it is caught here, reported once per edge on stderr, and the
//! edge returns a neutral value.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};

static PANICS: AtomicU64 = AtomicU64::new(0);

/// Runs `f`; on panic returns `fallback` and reports `edge`.
#[inline]
pub fn ffi_guard<R>(edge: &'static str, fallback: R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let n = PANICS.fetch_add(1, Ordering::Relaxed);
            if n < 16 {
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic".into());
                // The raw line writer, not the level-filtered logger, which might be what
                // panicked; and never `eprintln!`, which panics when stderr is unwritable and
                // would unwind from here into the runtime.
                crate::log::stderr_line(format_args!(
                    "rocprof-xplane: error: internal error in {edge}: {msg} (ignored)"
                ));
            }
            // Dropping a payload runs its destructor, which could panic again outside the
            // guard; only string payloads (everything `panic!` makes) are known safe to drop.
            if !(payload.is::<&str>() || payload.is::<String>()) {
                std::mem::forget(payload);
            }
            fallback
        }
    }
}

/// How many panics were caught (reported in the trace's warnings).
pub fn caught_panics() -> u64 {
    PANICS.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

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
