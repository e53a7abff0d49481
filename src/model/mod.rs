//! Joined, resolved data: the trace handed to the XPlane writer.

pub mod trace;

pub use trace::*;
