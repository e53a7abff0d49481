//! Generic helpers the model and the join build on; nothing here knows of records or traces.
//!
//! - `sort`: sorts that give what a stable sort gives while moving each item as few times as
//!   the input's order allows (the join's vectors are its largest allocations);
//! - `buffers`: vectors made and consumed piecewise, so that an input and what is made of it
//!   are never held whole at once;
//! - `prefetch`: a value asked into the cache ahead of its read;
//! - `search`: a partition point found from a hint;
//! - `threads`: two passes run side by side on a helper thread.

pub mod buffers;
pub mod prefetch;
pub mod search;
pub mod sort;
pub mod threads;

/// A fixed pseudo-random sequence for the crate's tests (xorshift64): `x` is the state.
#[cfg(test)]
pub(crate) fn next_random(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}
