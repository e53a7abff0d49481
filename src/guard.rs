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
                // Plain eprintln: the logger itself might be what panicked.
                eprintln!("rocprof-xplane: error: internal error in {edge}: {msg} (ignored)");
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
}
