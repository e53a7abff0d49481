//! What the callbacks keep about application threads, and what a HIP call means (no FFI types
//! here: the SDK layer hands in safe views).
//!
//! Each application thread registers one `ThreadState` the first time a callback runs on it and
//! afterwards works on it without a locked instruction (`owned`, which lends it to the drain):
//! the roctx stack, the stream lookups, and the facts handed to the join (annotations keyed by
//! correlation id, launch and sync facts, marker spans).
//! A cut drains every registered state, including ranges still open. The few facts that are
//! process-wide (streams and their devices, start/stop ranges, kernel symbols) change rarely
//! and sit behind locks of their own; [`Capture`] holds all of it.

pub mod demangle;
pub mod devices;
pub mod graph;
pub mod hip_call;
pub mod hip_stream;
pub mod inflight;
pub(crate) mod local;
pub mod markers;
pub(crate) mod owned;
pub mod registry;
pub mod symbols;
pub mod thread;
pub mod threads;

pub use markers::MarkerOp;
pub use registry::Capture;
pub use thread::ThreadState;
pub use threads::Drained;
