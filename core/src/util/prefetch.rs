//! Asking the CPU to bring a value into the cache ahead of its read: a walk in one order over
//! values that lie in another (a plane's events reading their annotations, by id) otherwise
//! stalls on each miss in turn.

/// Starts bringing `value`'s bytes into the cache and does not wait for them. Its first and
/// last bytes are asked for: a value of up to a cache line's size straddles at most two.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = std::ptr::from_ref(value).cast::<i8>();
        let last = first.wrapping_add(std::mem::size_of::<T>().saturating_sub(1));
        // SAFETY: SSE is in every x86_64 target, and a prefetch only hints: it reads nothing
        // the program sees and does not fault (both ends lie in the live `value`).
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(first);
            _mm_prefetch::<_MM_HINT_T0>(last);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
