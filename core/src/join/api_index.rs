//! The API index stage: where each correlation id's HIP record is, for the device stages
//! (whether an activity's call is in the collection) and the dependency stage (the ends of the
//! calls an arrow may start or end at).

use crate::facts::{ApiDomain, ApiRecord};
use crate::model::corrmap::{CorrMap, Slot};

use super::input::Ids;

/// Where each correlation id's HIP record is. The records stay in delivery order: a sort by id
/// would move each 48-byte record along a permutation walked in cycles, a cache miss per
/// record waiting on the one before, and the stages after find records by id, never in order
/// (the host events stage settles each thread's own order, `host_events::sort_host_events`).
pub(super) struct ApiIndex {
    /// Positions in the API records (fewer than 2^32 records of 48 B are ever held; a
    /// `Slot` is 4 B per id of the table).
    pub hip: CorrMap<Slot>,
    /// Calls an earlier window of the same profile wrote (`Carried::launched`).
    earlier: Vec<u64>,
}

impl ApiIndex {
    pub fn build(api: &[ApiRecord], ids: Ids, earlier: &[u64]) -> Self {
        ApiIndex {
            hip: positions(api, ids, ApiDomain::Hip),
            earlier: earlier.to_vec(),
        }
    }

    /// Whether an activity with this id has its launching call in the collection (counted
    /// when not).
    pub fn launched(&self, corr: u64) -> bool {
        corr != 0 && (self.hip.contains_key(&corr) || self.earlier.binary_search(&corr).is_ok())
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

/// Where each correlation id's record of `domain` is in `api`: of an id's repeats, the first
/// in the records' order (`api_key`), whatever order they were delivered in.
pub(super) fn positions(api: &[ApiRecord], ids: Ids, domain: ApiDomain) -> CorrMap<Slot> {
    let mut map: CorrMap<Slot> = ids.map();
    map.reserve(api.iter().filter(|a| a.domain == domain).count());
    for (i, a) in api.iter().enumerate() {
        if a.domain != domain || a.correlation_id == 0 {
            continue;
        }
        keep_first(&mut map, i, a, |j| Some(api[j]));
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
