//! State of application threads, fed by callback tracing (no FFI types here).
//!
//! Each application thread registers one `ThreadState` the first time a callback runs on it and
//! afterwards only locks its own (uncontended) mutex: the roctx stack, the annotation snapshot
//! cache, and the facts handed to the join (annotations keyed by correlation id, marker spans).
//! Finalize drains every registered state, including ranges still open.

pub mod demangle;
pub mod devices;
pub mod graph;
pub mod hip_stream;
pub mod inflight;
pub mod markers;
pub mod symbols;
pub mod thread;

pub use markers::MarkerOp;
pub use thread::{drain_all, with_current, ThreadState};
