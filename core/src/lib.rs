//! rocprof-xplane-core: records → join → XPlane, as pure code.
//!
//! This crate holds what a profile is made of and how it is made: the compact facts the tool
//! records (`facts`, kept in `store`), the HIP facts every layer reads (`hip`), the model of a
//! collection and of its trace (`model`), the correlation join that turns one into the other
//! (`join`), the XPlane writer and the merge of windows (`xplane`), and the protobuf wire format
//! they write and read beside prost (`wire`); generic helpers in `util`. Dependencies run one
//! way: `facts` ← `store`, `hip` ← `model` ← `join`, and the writer reads the trace. It calls no
//! SDK function and keeps no state of the process it runs in: the tool library
//! (`rocprof-xplane`, living inside a profiled program) and the command line
//! (`rocprof-xplane-cli`: readers of rocprofv3 outputs, inspect, merge) both build on it.
//!
//! The only statics are measurement counters read by debug lines (`measure`, and the counting
//! allocator of the `heap-stats` build in `heap`): a global allocator is global by nature.

pub mod clock;
pub mod facts;
pub mod fastmap;
pub mod heap;
pub mod hip;
pub mod join;
pub mod measure;
pub mod model;
pub mod store;
pub mod util;
pub mod wire;
pub mod xplane;

/// A debug line through `tracing` (the tool installs the subscriber that prints it).
#[macro_export]
macro_rules! log_debug { ($($t:tt)*) => { ::tracing::debug!("{}", format_args!($($t)*)) } }
