//! What the tool knows about HIP runtime operations, in one table read by every layer: which
//! callbacks the session subscribes to, which arguments the capture reads at entry, which
//! calls the join expects device work from.

pub mod arch;
pub mod ops;

pub use ops::{lookup, traced_by_default, HipOp, Role, StreamArg};
