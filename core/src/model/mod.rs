//! What the join reads and makes: the collection of one process or capture window
//! (`collected`, over the facts of `crate::facts`, re-exported with it in `events`), the trace
//! handed to the XPlane writer (`trace`), and the domain rules the join's stages apply: roctx
//! scopes (`annotations`), streams and their lines (`streams`), dependencies (`deps`), memory
//! (`memory`), graph nodes (`graph`), what a capture window hands to the next (`carry`), the
//! per-correlation-id tables (`corrmap`), bandwidth and occupancy (`hbm`, `occupancy`), the
//! user's rule for which ranges are steps (`steps`).
//!
//! The join itself is `crate::join`; `join` here is the path the tool and the CLI name it by.

pub mod annotations;
pub mod carry;
pub mod collected;
pub mod corrmap;
pub mod deps;
pub mod device_counters;
pub mod events;
pub mod graph;
pub mod hbm;
pub mod join;
pub mod memory;
pub mod occupancy;
pub mod pmc;
pub mod steps;
pub mod streams;
pub mod trace;

pub use trace::*;

#[cfg(test)]
pub(crate) use crate::util::next_random;
