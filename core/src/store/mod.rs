//! Append-only event storage for the hot path.
//!
//! `ChunkedVec` grows by whole chunks, so an append never moves earlier events (no large
//! reallocation copy while the runtime waits on our buffer callback), and memory is returned in
//! chunk-sized pieces. `Sinks` is the registry of per-producer stores: each producer (a
//! rocprofiler buffer, or an application thread) registers one store once and afterwards only
//! locks its own, uncontended mutex; finalize drains them all.

pub mod chunked;
pub mod events;
pub mod layouts;
pub mod packed;
pub mod sinks;

pub use chunked::ChunkedVec;
pub use events::EventStore;
pub use packed::PackedVec;
pub use sinks::Sinks;
