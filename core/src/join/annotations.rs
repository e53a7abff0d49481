//! The annotations stage: the annotation of each correlation id (the roctx context captured at
//! the call's entry, else the ranges around it on its thread, and the external correlation id
//! the runtime stamped on its record) and the scope-range tree. The roctx records a span
//! stands for give the span its times and are dropped here: they become no event of their own.

use crate::facts::{ApiDomain, ApiRecord, MarkerRecord, MarkerSpan};
use crate::fastmap::HashMap;
use crate::model::annotations::{
    place_in_ranges, scope_tree, CallsToPlace, RangeThreads, ScopeStacks,
};
use crate::model::collected::Scopes;
use crate::model::corrmap::{CorrMap, IdRanks, IdSet, Ranked, Slot};
use crate::model::trace::{Annotation, Id, Table};
use crate::store::PackedVec;
use std::num::{NonZeroU32, NonZeroU64};
use std::sync::Arc;

use super::api_index::{api_key, keep_first, positions};
use super::input::{CarriedLabels, HostRecords, Ids};

/// Annotation of each correlation id: the roctx context captured at API entry, plus the external
/// correlation id the runtime stamped on the call's records. Merged once per id and shared by
/// every event of that id (a graph launch's dispatches name one annotation).
#[derive(Default)]
pub(super) struct AnnotationIndex {
    captured: CorrMap<Id<Annotation>>,
    /// External id of each API call (from its record).
    /// Nonzero, so an entry is 8 B (an `Option<u64>` is 16): frameworks (PyTorch, XLA) stamp
    /// one on every call, and the table has a slot per call.
    external: CorrMap<NonZeroU64>,
    merged: HashMap<(u64, u64), Id<Annotation>>,
    /// Every annotation the ids name: the scopes' and the merged ones, for the trace.
    pub table: Table<Annotation>,
}

impl AnnotationIndex {
    /// The annotation of the events of call `corr` whose record carries `record_external`.
    pub(super) fn get(&mut self, corr: u64, record_external: u64) -> Option<Id<Annotation>> {
        self.get_ranked(self.captured.key(corr), record_external)
    }

    /// `get` of a call ranked already (`CorrMap::key` of a table over the calls). Inlined
    /// where events are made, a read per table; an event with an external id takes the call
    /// apart (`merged_with`), which hashes. (Always: left to the compiler, it stays a call,
    /// whose entry and exit cost as much as its reads.)
    #[inline(always)]
    pub(super) fn get_ranked(
        &mut self,
        call: Ranked,
        record_external: u64,
    ) -> Option<Id<Annotation>> {
        let base = if call.id == 0 {
            None
        } else {
            self.captured.get_ranked(call).copied()
        };
        let ext = self.external_of(call, record_external);
        if ext == 0 {
            return base;
        }
        self.merged_with(call.id, base, ext)
    }

    /// The annotation of call `corr`'s events carrying external id `ext`: the call's own
    /// (`base`) with `ext` appended, made once per (call, external id).
    #[inline(never)]
    fn merged_with(
        &mut self,
        corr: u64,
        base: Option<Id<Annotation>>,
        ext: u64,
    ) -> Option<Id<Annotation>> {
        let table = &mut self.table;
        Some(*self.merged.entry((corr, ext)).or_insert_with(|| {
            let mut a = base.map(|b| table[b].clone()).unwrap_or_default();
            if a.external_ids.last() != Some(&ext) {
                a.external_ids.push(ext);
            }
            table.push(a)
        }))
    }

    /// Whether the events of `corr` whose records carry no external id make an annotation of
    /// their own (`get` merges an external id the call's record named).
    pub(super) fn merges(&self, corr: u64) -> bool {
        self.external_of(self.external.key(corr), 0) != 0
    }

    /// The external correlation id an event of `corr` carries: the one the runtime answered
    /// for the call, else the record's own.
    #[inline]
    fn external_of(&self, call: Ranked, record_external: u64) -> u64 {
        if self.external.is_unused() {
            return record_external;
        }
        self.external
            .get_ranked(call)
            .map(|e| e.get())
            .filter(|_| call.id != 0)
            .unwrap_or(record_external)
    }
}

/// What the annotations stage reads and changes: the host's records (the records the spans
/// stand for are dropped, the spans given their times, the scopes consumed) and, for labels
/// and the scope tree only, the spans earlier windows carried in.
pub(super) struct Spanned {
    api: PackedVec<ApiRecord>,
    /// Consumed by the stage: the ones no span stands for are moved into `api`.
    marker_records: PackedVec<MarkerRecord>,
    markers: Vec<MarkerSpan>,
    /// Consumed by the stage, each chunk freed once read.
    scopes: Scopes,
    /// Read for labels and the scope tree only, then dropped (`Carried::scope_context`).
    scope_context: Vec<MarkerSpan>,
    /// Records of spans an earlier window showed: dropped too (`Carried::spans_shown`).
    spans_shown: Vec<u64>,
}

impl Spanned {
    pub fn new(host: HostRecords, carried: CarriedLabels) -> Self {
        let HostRecords {
            api,
            marker_records,
            markers,
            scopes,
        } = host;
        let CarriedLabels {
            scope_context,
            spans_shown,
        } = carried;
        Spanned {
            api,
            marker_records,
            markers,
            scopes,
            scope_context,
            spans_shown,
        }
    }
}

/// The host's calls once annotated: the API records no span stands for, and the spans with
/// their records' times.
pub(super) struct HostCalls {
    pub api: PackedVec<ApiRecord>,
    pub markers: Vec<MarkerSpan>,
}

/// What the annotations stage makes.
pub(super) struct Annotated {
    pub index: AnnotationIndex,
    /// The scope-range tree: (child, parent) pairs.
    pub scope_tree: Vec<(i64, i64)>,
    pub calls: HostCalls,
}

/// The annotations stage (see the module's comment).
pub(super) fn annotate(mut spanned: Spanned, ids: &Ids) -> Annotated {
    let (index, scope_tree) = index_annotations(&mut spanned, ids);
    debug_assert!(spanned.marker_records.is_empty());
    Annotated {
        index,
        scope_tree,
        calls: HostCalls {
            api: spanned.api,
            markers: spanned.markers,
        },
    }
}

/// The annotation of each correlation id and the scope-range tree (`annotate`).
fn index_annotations(c: &mut Spanned, ids: &Ids) -> (AnnotationIndex, Vec<(i64, i64)>) {
    let mut annotations = AnnotationIndex {
        captured: ids.per_call(),
        external: ids.per_call(),
        merged: HashMap::default(),
        table: Table::default(),
    };
    // The roctx records a span stands for become that span's event, never events of their
    // own: placed in ranges, each would make an annotation per range that nothing reads. They
    // are found by id (a bit per id of the range), give the span their times and are dropped
    // here, before the API records are indexed.
    // With no roctx record (the tool's default: the spans' callbacks gave their times and
    // the runtime buffered none) there is nothing to find.
    let roctx_in_api = roctx_in_api(c);
    if roctx_in_api || !c.marker_records.is_empty() {
        let mut span_ids = IdSet::for_range(ids.range, 2 * c.markers.len());
        for m in &c.markers {
            for id in [m.open_correlation_id, m.close_correlation_id] {
                if id != 0 {
                    span_ids.insert(id);
                }
            }
        }
        for &id in &c.spans_shown {
            span_ids.insert(id);
        }
        take_span_records(c, &span_ids, ids, roctx_in_api);
    }
    annotations.captured.reserve(c.scopes.len());
    let scopes = std::mem::take(&mut c.scopes);
    let c = &*c;
    let mut stacks = ScopeStacks::with_context(&c.markers, &c.scope_context, ids.range);
    let captured = capture_scopes(&mut annotations, scopes, &mut stacks, ids);
    annotate_calls(&mut annotations, c, &mut stacks, &captured);
    annotations.table = stacks.into_table();
    let scope_tree = scope_tree(c.scope_context.iter().chain(&c.markers));
    (annotations, scope_tree)
}

/// The annotation of each call the capture saw in a scope (`scopes`: call, scope), in the
/// order captured (the table takes them in any order): where an id was captured twice the
/// later one wins. Each chunk of the scopes is freed once read. Returns the calls captured
/// (`Captured`), for the walk over the calls.
fn capture_scopes(
    annotations: &mut AnnotationIndex,
    scopes: Scopes,
    stacks: &mut ScopeStacks<'_>,
    ids: &Ids,
) -> Captured {
    let mut captured = Captured::for_calls(ids, scopes.len());
    for chunk in scopes.into_chunks() {
        for (corr, scope) in chunk {
            if let Some(a) = stacks.annotation(scope) {
                annotations.captured.insert(corr, a);
                captured.insert(corr);
            }
        }
    }
    captured
}

/// The calls the capture saw in a scope (`capture_scopes`), a bit per id of the run's range:
/// the walk over the calls asks it of each call, a bit test where the captured table (a slot
/// per call) ranks the id first.
struct Captured(Option<IdSet>);

impl Captured {
    /// Room for about `n` calls (none: nothing is held, and every call answers no).
    fn for_calls(ids: &Ids, n: usize) -> Self {
        Captured((n > 0).then(|| IdSet::for_range(ids.range, n)))
    }

    #[inline]
    fn insert(&mut self, corr: u64) {
        if let Some(set) = &mut self.0 {
            set.insert(corr);
        }
    }

    #[inline]
    fn contains(&self, corr: u64) -> bool {
        self.0.as_ref().is_some_and(|set| set.contains(corr))
    }
}

/// What the calls' records add to the captured scopes: the external id of each HIP call, and
/// the annotation of the range around each call the capture did not see (`walk_calls`, then
/// `place_in_ranges`).
fn annotate_calls(
    annotations: &mut AnnotationIndex,
    c: &Spanned,
    stacks: &mut ScopeStacks<'_>,
    captured: &Captured,
) {
    let to_place = walk_calls(annotations, c, captured);
    place_in_ranges(&mut annotations.captured, to_place, &c.markers, stacks);
}

/// One walk over the calls (the API records, then the marks), each ranked at most once, for
/// the table of external ids: the external id each HIP call's record carries (the first of an
/// id's records names it), and whether it is a call to place in the ranges around it
/// (`RangeThreads::places`: not captured, `captured`, on a thread that pushed ranges). A run
/// with neither ranges nor external ids walks its calls without a lookup.
fn walk_calls(annotations: &mut AnnotationIndex, c: &Spanned, captured: &Captured) -> CallsToPlace {
    let threads = RangeThreads::of(&c.markers);
    let mut to_place = CallsToPlace::default();
    for a in c.api.iter() {
        let corr = a.correlation_id;
        let external = NonZeroU64::new(a.external_id).filter(|_| a.domain == ApiDomain::Hip);
        if corr == 0 || (external.is_none() && threads.is_empty()) {
            continue;
        }
        if let Some(e) = external {
            annotations.external.get_or_insert_with(corr, || e);
        }
        if threads.places(a.thread_id, corr, || captured.contains(corr)) {
            to_place.add(a.thread_id, corr);
        }
    }
    if threads.is_empty() {
        return to_place;
    }
    for m in c.markers.iter().filter(|m| m.instant) {
        let corr = m.open_correlation_id;
        if threads.places(m.thread_id, corr, || captured.contains(corr)) {
            to_place.add(m.thread_id, corr);
        }
    }
    to_place
}

/// A span takes the times of the buffered records of the calls that opened and closed it (the
/// runtime's clock for the calls; the callbacks' timestamps when a record is missing), and
/// those records are dropped: they become no event of their own, and are not held through the
/// device stages to the host events' (a push and a pop record per range, at the join's peak).
/// Of an id's repeats, the one first in the API
/// records' order (`api_key`) gives the times, whether it is in `api` (a collection made by
/// hand or converted) or still packed in `marker_records` (the tool's own), which are read
/// there: the roctx records no span stands for are the only ones unpacked, into `api`.
/// The tool's collections keep every roctx record packed: their spans' times are read in one
/// pass (`times_from_packed`), else as `span_records_by_id` reads them. `roctx_in_api`: whether
/// `api` holds roctx records (`roctx_in_api`).
fn take_span_records(c: &mut Spanned, span_ids: &IdSet, ids: &Ids, roctx_in_api: bool) {
    if !roctx_in_api {
        if let Some(others) = times_from_packed(
            &mut c.markers,
            &c.marker_records,
            span_ids,
            ids,
            &c.spans_shown,
        ) {
            c.marker_records = PackedVec::new();
            c.api.append(others);
            return;
        }
    }
    span_records_by_id(c, span_ids, ids, roctx_in_api);
}

/// Whether roctx records are among the calls' (a collection made by hand or converted):
/// asked of the table's entries, not of every record (an entry no record names any more only
/// sends the spans the general way).
fn roctx_in_api(c: &Spanned) -> bool {
    c.api
        .shared()
        .iter()
        .any(|s| s.domain() == ApiDomain::Marker)
}

/// `take_span_records` of any collection: where each span's record is, by id, in `api` (when
/// `roctx_in_api`) and among the packed ones, then each span's records read there.
fn span_records_by_id(c: &mut Spanned, span_ids: &IdSet, ids: &Ids, roctx_in_api: bool) {
    let is_span_record = |a: &ApiRecord| is_span_record(a, span_ids);
    let in_api = if roctx_in_api {
        positions(&c.api, ids, ApiDomain::Marker)
    } else {
        CorrMap::default()
    };
    // The packed ones, read once: where each span's record is, and the others moved among
    // the calls (after them: the positions above stay as they are).
    let packed = std::mem::take(&mut c.marker_records);
    // By the spans' records alone (a slot per record, not per id of the range).
    let mut in_packed: CorrMap<Slot> = CorrMap::over(&Arc::new(IdRanks::of_set(span_ids)));
    in_packed.reserve(packed.len());
    let mut others = PackedVec::new();
    for (i, MarkerRecord(a)) in packed.positions() {
        if !is_span_record(&a) {
            // (Past 2^32 − 1 shapes a record is refused: not within the memory ceiling.)
            others.push(a);
            continue;
        }
        keep_first(&mut in_packed, i, &a, |j| packed.get(j).map(|m| m.0));
    }
    c.api.append(others);
    for m in &mut c.markers {
        let record = |corr: u64| {
            if corr == 0 {
                return None;
            }
            let unpacked = roctx_in_api
                .then(|| in_api.get(&corr).and_then(|s| c.api.get(s.index())))
                .flatten();
            let packed = in_packed
                .get(&corr)
                .and_then(|s| packed.get(s.index()))
                .map(|m| m.0);
            match (unpacked, packed) {
                (Some(a), Some(b)) => Some(if api_key(&b) < api_key(&a) { b } else { a }),
                (a, b) => a.or(b),
            }
        };
        let open = record(m.open_correlation_id);
        let close = record(m.close_correlation_id);
        let start = open.map_or(m.start_ns, |r| r.start_ns);
        let end = if m.instant {
            open.map_or(m.end_ns, |r| r.end_ns)
        } else {
            close.map_or(m.end_ns, |r| r.end_ns)
        };
        (m.start_ns, m.end_ns) = (start, end);
    }
    drop((in_api, in_packed, packed));
    if roctx_in_api {
        c.api.retain(|a| !is_span_record(a));
    }
}

/// Whether `a` is the record of a span's push or pop (or mark): a roctx call whose id is
/// among `span_ids`.
#[inline]
fn is_span_record(a: &ApiRecord, span_ids: &IdSet) -> bool {
    a.domain == ApiDomain::Marker && a.correlation_id != 0 && span_ids.contains(a.correlation_id)
}

/// The table of `times_from_packed`, for about `n` span ids (`span_ids`): over the run's id
/// range where a vector over it pays (`CorrMap::reserve`: a run of ranges around a few calls
/// each), each record's id read by an index; else over the span ids alone, each id ranked
/// first (a few dozen instructions, for every span id and span record).
fn span_table(span_ids: &IdSet, ids: &Ids, n: usize) -> CorrMap<NonZeroU32> {
    let mut by_id = CorrMap::for_range(ids.range, n);
    by_id.reserve(n);
    if !by_id.is_unused() {
        return by_id;
    }
    let mut ranked = CorrMap::over(&Arc::new(IdRanks::of_set(span_ids)));
    ranked.reserve(n);
    ranked
}

/// Records ahead of the one read whose span's slot is asked into the cache.
const SPAN_PREFETCH_AHEAD: usize = 8;

/// `take_span_records` of the tool's collections (every roctx record packed), in one pass
/// over the records: each span record gives its times to the span whose push or pop it is,
/// found by id. `None` when an id is the push or pop of two spans, or a span's record repeats
/// an id (of repeats, the first in the records' order gives the times, which this pass does
/// not keep): the caller then reads them the general way, which sets the times of every span
/// this pass set (each had a record). Else the records no span stands for, in their order.
fn times_from_packed(
    markers: &mut [MarkerSpan],
    packed: &PackedVec<MarkerRecord>,
    span_ids: &IdSet,
    ids: &Ids,
    spans_shown: &[u64],
) -> Option<PackedVec<ApiRecord>> {
    // Per span id: its span's position + 1, and whether a record of it came; `SHOWN` for
    // the id of no span here, a span an earlier window showed (`spans_shown`). The ids of the
    // map are those of `span_ids`: a record is a span's when the map names its id, one lookup.
    const CAME: u32 = 1 << 31;
    const SHOWN: u32 = CAME - 1;
    if u32::try_from(markers.len()).map_or(true, |n| n >= SHOWN) {
        return None;
    }
    let mut span_of = span_table(span_ids, ids, 2 * markers.len() + spans_shown.len());
    for (j, m) in (1u32..).zip(markers.iter()) {
        let j = NonZeroU32::new(j)?;
        for id in [m.open_correlation_id, m.close_correlation_id] {
            if id != 0 && *span_of.get_or_insert_with(id, || j) != j {
                return None;
            }
        }
    }
    let shown = NonZeroU32::new(SHOWN)?;
    for &id in spans_shown {
        if id != 0 {
            span_of.get_or_insert_with(id, || shown);
        }
    }
    let mut others = PackedVec::new();
    // The records come as delivered, their spans' slots in the ids' order.
    let mut ahead = packed.ids().skip(SPAN_PREFETCH_AHEAD);
    for MarkerRecord(a) in packed.iter() {
        if let Some(id) = ahead.next() {
            span_of.prefetch(id);
        }
        let corr = a.correlation_id;
        let span = match a.domain == ApiDomain::Marker && corr != 0 {
            true => span_of.get_mut(corr),
            false => None,
        };
        let Some(e) = span else {
            // (Past 2^32 − 1 shapes a record is refused: not within the memory ceiling.)
            others.push(a);
            continue;
        };
        if *e == shown {
            continue;
        }
        if e.get() & CAME != 0 {
            return None;
        }
        *e |= CAME;
        let m = &mut markers[(e.get() & !CAME) as usize - 1];
        if corr == m.open_correlation_id {
            m.start_ns = a.start_ns;
            if m.instant {
                m.end_ns = a.end_ns;
            }
        }
        if corr == m.close_correlation_id && !m.instant {
            m.end_ns = a.end_ns;
        }
    }
    Some(others)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::input::Input;
    use crate::join::tests::{api, base, no_labels, roctx};
    use std::sync::Arc;

    /// Spans and their packed records, shuffled: ranges and marks (some with no record), roctx
    /// records no span stands for, records of spans an earlier window showed; with `repeat`
    /// a span's id recorded twice, with `shared` an id that closes one span and opens the
    /// next.
    fn packed_spans(seed: u64, repeat: bool, shared: bool) -> Spanned {
        let mut x = seed;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let mut markers = Vec::new();
        let mut records = Vec::new();
        let record = |corr: u64, next: &mut dyn FnMut(u64) -> u64| {
            let start = 1_000 + next(1_000_000);
            roctx(1, corr, start, start + next(500))
        };
        for r in 0..200u64 {
            let open = 100 + 4 * r;
            let instant = r % 7 == 0;
            let close = if instant { open } else { open + 3 };
            markers.push(MarkerSpan {
                label: Arc::from("step"),
                thread_id: 7,
                open_correlation_id: open,
                close_correlation_id: close,
                start_ns: 5,
                end_ns: 6,
                scope_id: if instant { 0 } else { open as i64 },
                instant,
                ..MarkerSpan::default()
            });
            for id in if instant {
                vec![open]
            } else {
                vec![open, close]
            } {
                if next(5) != 0 {
                    records.push(record(id, &mut next));
                }
            }
            // A roctx call no span stands for.
            records.push(record(open + 1, &mut next));
        }
        let spans_shown: Vec<u64> = (5_000..5_010).collect();
        for &id in &spans_shown {
            records.push(record(id, &mut next));
        }
        if repeat {
            // A push's record (their ids are 100 + 4r).
            let again = records[17..]
                .iter()
                .find(|a| a.correlation_id % 4 == 0 && a.correlation_id < 5_000)
                .copied()
                .expect("a push's record");
            records.push(ApiRecord {
                start_ns: again.start_ns - 1,
                ..again
            });
        }
        if shared {
            markers[3].close_correlation_id = markers[4].open_correlation_id;
        }
        for i in (1..records.len()).rev() {
            records.swap(i, next(i as u64 + 1) as usize);
        }
        Spanned {
            api: PackedVec::new(),
            marker_records: records.into_iter().map(MarkerRecord::of).collect(),
            markers,
            scopes: Scopes::new(),
            scope_context: Vec::new(),
            spans_shown,
        }
    }

    /// The one pass over the packed records gives every span the times, and leaves the
    /// calls, that reading each span's records by id gives; where it cannot (an id repeated,
    /// or shared by two spans) it declines and the spans come out the same all the same. Its
    /// table over a run's wide id range (the span ids ranked) and over a narrow one (the ids
    /// of the range read by index, those of the spans shown outside it hashed) alike.
    #[test]
    fn span_times_read_in_one_pass_are_those_read_by_id() {
        let cases = [(1, false, false), (2, false, false), (3, true, false)]
            .into_iter()
            .chain([(4, false, true), (5, true, true)]);
        let ranges = [(1, 6_000), (100, 900)];
        for ((seed, repeat, shared), (lo, hi)) in cases.flat_map(|c| ranges.map(|r| (c, r))) {
            let ids = Ids::every(lo, hi);
            let span_ids = |c: &Spanned| {
                let mut set = IdSet::for_range(ids.range, 2 * c.markers.len());
                for m in &c.markers {
                    set.insert(m.open_correlation_id);
                    set.insert(m.close_correlation_id);
                }
                for &id in &c.spans_shown {
                    set.insert(id);
                }
                set
            };
            let (mut one_pass, mut by_id) = (
                packed_spans(seed, repeat, shared),
                packed_spans(seed, repeat, shared),
            );
            let set = span_ids(&one_pass);
            let mut probe = packed_spans(seed, repeat, shared);
            let declined = times_from_packed(
                &mut probe.markers,
                &probe.marker_records,
                &set,
                &ids,
                &probe.spans_shown,
            )
            .is_none();
            assert_eq!(declined, repeat || shared, "seed {seed}");
            let in_api = roctx_in_api(&one_pass);
            take_span_records(&mut one_pass, &set, &ids, in_api);
            span_records_by_id(&mut by_id, &set, &ids, false);
            let times = |c: &Spanned| -> Vec<(u64, u64)> {
                c.markers.iter().map(|m| (m.start_ns, m.end_ns)).collect()
            };
            assert_eq!(times(&one_pass), times(&by_id), "seed {seed}");
            assert!(
                times(&by_id).iter().filter(|t| **t != (5, 6)).count() > 100,
                "most spans take their records' times"
            );
            let calls = |c: &Spanned| -> Vec<ApiRecord> { c.api.iter().collect() };
            assert_eq!(calls(&one_pass), calls(&by_id), "seed {seed}");
            // (Sharing, a span's pop left its own record to no span.)
            let no_span = 200 + usize::from(shared);
            assert_eq!(
                calls(&by_id).len(),
                no_span,
                "the roctx calls no span stands for"
            );
            assert!(one_pass.marker_records.is_empty() && by_id.marker_records.is_empty());
        }
    }

    /// Calls for the walk over the calls (`annotate_calls`) on threads 7, 8 and 9 (ids below
    /// 2,000): with `ranges` nested ranges on 7 and ranges on 8 (none on 9), and marks on 7
    /// (in a range) and 9; with `externals` external ids on HIP and roctx calls, on calls of
    /// id 0, and on ids recorded twice with two external ids; some calls captured in a scope
    /// (a range's, or one with no span), some twice.
    fn calls_in_ranges(seed: u64, ranges: bool, externals: bool) -> Spanned {
        let mut x = seed;
        let mut next = move |m: u64| crate::model::next_random(&mut x) % m;
        let span = |thread_id, open, close, scope_id, parent_scope_id, instant| MarkerSpan {
            label: Arc::from(if instant { "mark" } else { "range" }),
            thread_id,
            open_correlation_id: open,
            close_correlation_id: close,
            scope_id,
            parent_scope_id,
            instant,
            ..MarkerSpan::default()
        };
        let mut markers = vec![
            span(7, 333, 333, 0, 0, true),
            span(9, 1_201, 1_201, 0, 0, true),
        ];
        if ranges {
            markers.push(span(7, 50, 1_500, 50, 0, false));
            for r in 0..20u64 {
                let open = 100 + 50 * r;
                markers.push(span(7, open, open + 30, open as i64, 50, false));
                markers.push(span(8, open + 2, open + 25, open as i64 + 2, 0, false));
            }
        }
        let scope_ids: Vec<i64> = markers
            .iter()
            .filter(|m| !m.instant)
            .map(|m| m.scope_id)
            .chain([9_999])
            .collect();
        let mut api = PackedVec::new();
        let mut scopes = Vec::new();
        for corr in 1..1_600u64 {
            if next(4) == 0 {
                continue;
            }
            let thread = [7, 8, 9][next(3) as usize];
            let external = if externals && next(3) != 0 {
                1 + next(40)
            } else {
                0
            };
            let mut a = crate::join::tests::api(1, corr, corr * 10, corr * 10 + 5, thread);
            a.external_id = external;
            if next(8) == 0 {
                a.domain = ApiDomain::Marker;
            }
            api.push(a);
            if next(10) == 0 {
                // The same id again, another external id (or none).
                api.push(ApiRecord {
                    external_id: if externals { next(3) } else { 0 },
                    ..a
                });
            }
            if next(20) == 0 {
                api.push(ApiRecord {
                    correlation_id: 0,
                    ..a
                });
            }
            for _ in 0..next(3).saturating_sub(next(2)) {
                scopes.push((corr, scope_ids[next(scope_ids.len() as u64) as usize]));
            }
        }
        Spanned {
            api,
            marker_records: PackedVec::new(),
            markers,
            scopes: scopes.into(),
            scope_context: Vec::new(),
            spans_shown: Vec::new(),
        }
    }

    /// The one walk over the calls (`annotate_calls`) annotates them as the two passes it
    /// stands for: the calls the capture did not see placed in the ranges around them
    /// (`annotate_from_ranges` over the calls and the marks), then the external id of each
    /// HIP call's record (the first of an id's records names it). Calls captured or not, in
    /// ranges of their own thread or another's, ids recorded twice, id 0, roctx calls; with
    /// and without ranges, with and without external ids.
    #[test]
    fn one_walk_over_the_calls_annotates_as_the_passes_it_stands_for() {
        let ids = Ids::every(1, 2_000);
        let index = || AnnotationIndex {
            captured: ids.per_call(),
            external: ids.per_call(),
            merged: HashMap::default(),
            table: Table::default(),
        };
        let cases = [
            (1, true, true),
            (2, true, false),
            (3, false, true),
            (4, false, false),
        ];
        for (seed, ranges, externals) in cases.into_iter().chain([(5, true, true)]) {
            let c = calls_in_ranges(seed, ranges, externals);
            let mut walked = index();
            let mut stacks = ScopeStacks::with_context(&c.markers, &c.scope_context, ids.range);
            let captured = capture_scopes(&mut walked, c.scopes.clone(), &mut stacks, &ids);
            let scoped = walked.captured.iter().count();
            annotate_calls(&mut walked, &c, &mut stacks, &captured);
            walked.table = stacks.into_table();

            let mut passes = index();
            let mut stacks = ScopeStacks::with_context(&c.markers, &c.scope_context, ids.range);
            capture_scopes(&mut passes, c.scopes.clone(), &mut stacks, &ids);
            let marks = c.markers.iter().filter(|m| m.instant);
            let calls = c.api.iter().map(|a| (a.thread_id, a.correlation_id));
            let marks = marks.map(|m| (m.thread_id, m.open_correlation_id));
            crate::model::annotations::annotate_from_ranges(
                &mut passes.captured,
                calls.chain(marks),
                &c.markers,
                &mut stacks,
            );
            for a in c.api.iter() {
                if a.domain != ApiDomain::Hip || a.correlation_id == 0 {
                    continue;
                }
                if let Some(e) = NonZeroU64::new(a.external_id) {
                    passes.external.get_or_insert_with(a.correlation_id, || e);
                }
            }
            passes.table = stacks.into_table();

            let captured = |i: &AnnotationIndex| {
                let mut v: Vec<(u64, Id<Annotation>, Annotation)> = i
                    .captured
                    .iter()
                    .map(|(corr, &a)| (corr, a, i.table[a].clone()))
                    .collect();
                v.sort_unstable_by_key(|e| e.0);
                v
            };
            let external = |i: &AnnotationIndex| {
                let mut v: Vec<(u64, u64)> =
                    i.external.iter().map(|(corr, e)| (corr, e.get())).collect();
                v.sort_unstable();
                v
            };
            assert_eq!(captured(&walked), captured(&passes), "seed {seed}");
            assert_eq!(external(&walked), external(&passes), "seed {seed}");
            assert_eq!(walked.table.len(), passes.table.len(), "seed {seed}");
            // Neither half is empty where the case has it.
            let placed = captured(&walked).len() - scoped;
            assert_eq!(placed > 0, ranges, "seed {seed}: calls placed in ranges");
            assert_eq!(external(&walked).len() > 100, externals, "seed {seed}");
        }
    }

    #[test]
    fn records_a_span_stands_for_are_not_placed_in_ranges() {
        let mut c = base();
        // push (20), a HIP call the entry capture missed (21), a roctx call no span stands
        // for (22), pop (23).
        c.api.push(roctx(1, 20, 100, 110));
        c.api.push(api(1, 21, 200, 210, 7));
        c.api.push(roctx(1, 22, 300, 301));
        c.api.push(roctx(1, 23, 500, 510));
        c.markers.push(MarkerSpan {
            label: Arc::from("step"),
            thread_id: 7,
            open_correlation_id: 20,
            close_correlation_id: 23,
            start_ns: 101,
            end_ns: 509,
            scope_id: 20,
            instant: false,
            ..MarkerSpan::default()
        });
        let host = Input::split(c).host;
        let ids = Ids::of(&host);
        let Annotated { index, calls, .. } = annotate(Spanned::new(host, no_labels()), &ids);
        let placed = |corr| {
            index
                .captured
                .get(&corr)
                .map(|&a| index.table[a].scope_range_id)
        };
        assert_eq!(
            placed(21),
            Some(20),
            "a call inside the range is placed in it"
        );
        assert_eq!(
            placed(22),
            Some(20),
            "so is a roctx call that stays an event"
        );
        assert_eq!(placed(20), None, "the push is the span's own event");
        assert_eq!(placed(23), None, "the pop too");
        // The push's and the pop's records gave the span their times and are gone before the
        // API records are indexed: the device stages never hold them.
        let left: Vec<u64> = calls.api.iter().map(|a| a.correlation_id).collect();
        assert_eq!(left, [21, 22]);
        let span = &calls.markers[0];
        assert_eq!((span.start_ns, span.end_ns), (100, 510));
    }
}
