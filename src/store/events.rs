//! The store one rocprofiler buffer decodes into.

use super::ChunkedVec;
use crate::model::events::{ApiRecord, CopyRecord, HipEventRecord, KernelRecord};
use crate::model::Counters;

/// Events of one buffer plus the accounting of what was received, skipped and dropped.
#[derive(Debug, Default)]
pub struct EventStore {
    pub api: ChunkedVec<ApiRecord>,
    pub kernels: ChunkedVec<KernelRecord>,
    pub copies: ChunkedVec<CopyRecord>,
    pub hip_events: ChunkedVec<HipEventRecord>,
    /// Only the record/skip/drop fields are filled here; join fills the rest.
    pub counters: Counters,
}

impl EventStore {
    /// Bytes of events held (charged against the memory ceiling).
    pub fn held_bytes(&self) -> u64 {
        use std::mem::size_of;
        (self.api.len() * size_of::<ApiRecord>()
            + self.kernels.len() * size_of::<KernelRecord>()
            + self.copies.len() * size_of::<CopyRecord>()
            + self.hip_events.len() * size_of::<HipEventRecord>()) as u64
    }

    /// Adds this store's counters into `c`.
    pub fn add_counters_to(&self, c: &mut Counters) {
        c.api_records += self.counters.api_records;
        c.kernel_records += self.counters.kernel_records;
        c.memcpy_records += self.counters.memcpy_records;
        c.hip_event_records += self.counters.hip_event_records;
        c.marker_records += self.counters.marker_records;
        c.unknown_kind_records += self.counters.unknown_kind_records;
        c.bad_size_records += self.counters.bad_size_records;
        c.runtime_dropped += self.counters.runtime_dropped;
    }
}
