//! Joined, resolved data: the trace handed to the XPlane writer, the compact facts it is built
//! from, and the join between them.

pub mod annotations;
pub mod carry;
pub mod collected;
pub mod corrmap;
pub mod deps;
pub mod events;
pub mod graph;
pub mod hbm;
pub mod join;
pub mod memory;
pub mod occupancy;
pub mod streams;
pub mod trace;

pub use trace::*;

#[cfg(test)]
pub(crate) use crate::util::next_random;
