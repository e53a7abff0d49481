//! The API index stage: which correlation ids have a HIP record, for the device stages
//! (whether an activity's call is in the collection), and the ends of the calls an arrow may
//! start or end at, for the dependency stage.

use crate::facts::{ApiDomain, ApiRecord, SyncFact};
use crate::model::corrmap::{CorrMap, IdSet, Slot};
use crate::model::deps::CallEnds;
use crate::model::WrittenCalls;
use crate::store::PackedVec;

use super::input::Ids;

/// Which correlation ids have a HIP record. The records stay packed, in delivery order: a sort
/// by id would move each record along a permutation walked in cycles, a cache miss per
/// record waiting on the one before, and the stages after find records by id, never in order
/// (the host events stage settles each thread's own order, `host_events::sort_host_events`).
/// A bit per id: it is held through the kernels stage, the join's top, where the records'
/// positions (4 B per id) would be held for the few calls the dependency stage reads, whose
/// ends are copied out (`ApiIndexed::call_ends`) before.
pub(super) struct ApiIndex {
    /// The HIP records' ids and the calls an earlier window of the same profile wrote
    /// (`Carried::launched`): every HIP record is a call on the host plane
    /// (`host_events::call_events`), so the trace takes this set as its `written_calls`.
    written: WrittenCalls,
}

/// What the API index stage makes.
pub(super) struct ApiIndexed {
    pub index: ApiIndex,
    /// The ends of the sync calls' and event records' calls (`deps::CallEnds`).
    pub call_ends: CallEnds,
}

impl ApiIndex {
    /// The index of `api`, and the ends of the calls `syncs` name: one pass over the records,
    /// which notes each HIP record's id and the position of each record `syncs` name (of an
    /// id's repeats, the first in the records' order: `keep_first`).
    pub fn build(
        api: &PackedVec<ApiRecord>,
        ids: &Ids,
        earlier: Vec<u64>,
        syncs: &[SyncFact],
    ) -> ApiIndexed {
        // Bits over the records' ids (at most one per record; the HIP ones are most): an id
        // tested per record, where a table of every call's position would be filled for the
        // few calls the dependency stage reads.
        let mut wanted = IdSet::for_range(ids.range, api.len());
        let mut n_wanted = 0;
        for corr in CallEnds::wanted(syncs).filter(|&c| c != 0) {
            wanted.insert(corr);
            n_wanted += 1;
        }
        let any_wanted = n_wanted > 0;
        // Their positions: a slot per call when they are many (a program that synchronizes
        // most launches), else hashed (`CorrMap::reserve` chooses).
        let mut at: CorrMap<Slot> = ids.per_call();
        at.reserve(n_wanted);
        // About one member per call (`Ids::calls`: the HIP calls' ids and the marks').
        let mut hip = IdSet::for_range(ids.range, ids.calls.len());
        for (i, a) in api.positions() {
            if a.domain != ApiDomain::Hip || a.correlation_id == 0 {
                continue;
            }
            hip.insert(a.correlation_id);
            if any_wanted && wanted.contains(a.correlation_id) {
                // Read again (few are wanted): the walk reads a record's id and domain alone.
                if let Some(a) = api.get(i) {
                    keep_first(&mut at, i, &a, |j| api.get(j));
                }
            }
        }
        drop(wanted);
        let call_ends = CallEnds::of(syncs, |corr| api.get(at.get(&corr)?.index()));
        ApiIndexed {
            index: ApiIndex {
                written: WrittenCalls::new(hip, earlier),
            },
            call_ends,
        }
    }

    /// Whether an activity with this id has its launching call in the collection (counted
    /// when not). (Asked per activity: inlined, a bit test.)
    #[inline]
    pub fn launched(&self, corr: u64) -> bool {
        self.written.contains(corr)
    }

    /// The calls written, for the trace, once the device stages have asked them.
    pub fn into_written(self) -> WrittenCalls {
        self.written
    }
}

/// The API records' order: by correlation id, then every other field.
pub(super) fn api_key(a: &ApiRecord) -> (u64, u64, u64, u64, i32, ApiDomain, u64) {
    (
        a.correlation_id,
        a.start_ns,
        a.end_ns,
        a.thread_id,
        a.operation,
        a.domain,
        a.external_id,
    )
}

/// Where each correlation id's record of `domain` is in `api` (its position, `positions`): of
/// an id's repeats, the first in the records' order (`api_key`), whatever order they were
/// delivered in.
pub(super) fn positions(api: &PackedVec<ApiRecord>, ids: &Ids, domain: ApiDomain) -> CorrMap<Slot> {
    let mut map: CorrMap<Slot> = ids.per_call();
    map.reserve(api.iter().filter(|a| a.domain == domain).count());
    for (i, a) in api.positions() {
        if a.domain != domain || a.correlation_id == 0 {
            continue;
        }
        keep_first(&mut map, i, &a, |j| api.get(j));
    }
    map
}

/// Notes `a`, at position `i`, as its id's record unless one first in the records' order
/// (`api_key`) is there already; `at(j)` reads the record at position `j`.
pub(super) fn keep_first(
    map: &mut CorrMap<Slot>,
    i: usize,
    a: &ApiRecord,
    at: impl Fn(usize) -> Option<ApiRecord>,
) {
    let Some(slot) = Slot::new(i) else { return };
    let kept = map.get_or_insert_with(a.correlation_id, || slot);
    if *kept != slot && at(kept.index()).is_some_and(|b| api_key(a) < api_key(&b)) {
        *kept = slot;
    }
}
