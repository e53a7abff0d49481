//! The store one rocprofiler buffer decodes into.

use super::{ChunkedVec, PackedVec};
use crate::facts::{
    ApiRecord, CopyRecord, CounterDispatch, CounterSample, Counters, HipEventRecord, KernelRecord,
    MarkerRecord,
};

/// Events of one buffer plus the accounting of what was received, skipped and dropped.
#[derive(Debug, Default)]
pub struct EventStore {
    /// HIP API records.
    pub api: PackedVec<ApiRecord>,
    /// roctx API records, kept apart: most stand for a roctx range the callbacks followed and
    /// only give it its times, so the join reads them packed instead of unpacking them.
    pub marker_records: PackedVec<MarkerRecord>,
    pub kernels: PackedVec<KernelRecord>,
    pub copies: PackedVec<CopyRecord>,
    pub hip_events: ChunkedVec<HipEventRecord>,
    /// Hardware-counter values as delivered (one per counter instance), and the header record
    /// of each counted dispatch (`facts::pmc`).
    pub pmc_samples: ChunkedVec<CounterSample>,
    pub pmc_dispatches: ChunkedVec<CounterDispatch>,
    /// Only the record/skip/drop fields are filled here; join fills the rest.
    pub counters: Counters,
}

impl EventStore {
    /// Bytes of events held (charged against the memory ceiling).
    pub fn held_bytes(&self) -> u64 {
        use std::mem::size_of;
        (self.api.held_bytes()
            + self.marker_records.held_bytes()
            + self.kernels.held_bytes()
            + self.copies.held_bytes()
            + self.hip_events.len() * size_of::<HipEventRecord>()
            + self.pmc_samples.len() * size_of::<CounterSample>()
            + self.pmc_dispatches.len() * size_of::<CounterDispatch>()) as u64
    }

    /// Adds this store's counters into `c` (only the record/skip/drop fields are non-zero).
    pub fn add_counters_to(&self, c: &mut Counters) {
        *c += &self.counters;
    }
}
