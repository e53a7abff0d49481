//! The annotations stage: the annotation of each correlation id (the roctx context captured at
//! the call's entry, else the ranges around it on its thread, and the external correlation id
//! the runtime stamped on its record) and the scope-range tree. The roctx records a span
//! stands for give the span its times and are dropped here: they become no event of their own.

use crate::facts::{ApiDomain, ApiRecord, MarkerSpan};
use crate::fastmap::HashMap;
use crate::model::annotations::{annotate_from_ranges, scope_tree, ScopeStacks};
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
    marker_records: PackedVec<ApiRecord>,
    markers: Vec<MarkerSpan>,
    scopes: Vec<(u64, i64)>,
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
    take_span_records(c, &span_ids, ids);
    drop(span_ids);
    annotations.captured.reserve(c.scopes.len());
    let mut stacks = ScopeStacks::with_context(&c.markers, &c.scope_context, ids.range);
    // In the order captured (the table takes them in any order): where an id was captured
    // twice the later one wins. A thread's calls come in order, so consecutive ones mostly
    // share their scope.
    let mut last: Option<(i64, Id<Annotation>)> = None;
    for (corr, scope) in std::mem::take(&mut c.scopes) {
        let a = match last {
            Some((s, a)) if s == scope => Some(a),
            _ => stacks.annotation(scope),
        };
        if let Some(a) = a {
            last = Some((scope, a));
            annotations.captured.insert(corr, a);
        }
    }
    let marks = c.markers.iter().filter(|m| m.instant);
    annotate_from_ranges(
        &mut annotations.captured,
        c.api
            .iter()
            .map(|a| (a.thread_id, a.correlation_id))
            .chain(marks.map(|m| (m.thread_id, m.open_correlation_id))),
        &c.markers,
        &mut stacks,
    );
    annotations.table = stacks.into_table();
    let scope_tree = scope_tree(c.scope_context.iter().chain(&c.markers));
    for a in c.api.iter() {
        if a.domain != ApiDomain::Hip || a.correlation_id == 0 {
            continue;
        }
        if let Some(e) = NonZeroU64::new(a.external_id) {
            annotations
                .external
                .get_or_insert_with(a.correlation_id, || e);
        }
    }
    (annotations, scope_tree)
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
/// pass (`times_from_packed`), else as `span_records_by_id` reads them.
fn take_span_records(c: &mut Spanned, span_ids: &IdSet, ids: &Ids) {
    // Asked of the table's entries, not of every record (an entry no record names any more
    // only sends the spans the general way).
    let roctx_in_api = c
        .api
        .shared()
        .iter()
        .any(|s| s.domain() == ApiDomain::Marker);
    if !roctx_in_api {
        if let Some(others) = times_from_packed(&mut c.markers, &c.marker_records, span_ids) {
            c.marker_records = PackedVec::new();
            c.api.append(others);
            return;
        }
    }
    span_records_by_id(c, span_ids, ids, roctx_in_api);
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
    for (i, a) in packed.positions() {
        if !is_span_record(&a) {
            // (Past 2^32 − 1 shapes a record is refused: not within the memory ceiling.)
            others.push(a);
            continue;
        }
        keep_first(&mut in_packed, i, &a, |j| packed.get(j));
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
            let packed = in_packed.get(&corr).and_then(|s| packed.get(s.index()));
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

/// `take_span_records` of the tool's collections (every roctx record packed), in one pass
/// over the records: each span record gives its times to the span whose push or pop it is,
/// found by id. `None` when an id is the push or pop of two spans, or a span's record repeats
/// an id (of repeats, the first in the records' order gives the times, which this pass does
/// not keep): the caller then reads them the general way, which sets the times of every span
/// this pass set (each had a record). Else the records no span stands for, in their order.
fn times_from_packed(
    markers: &mut [MarkerSpan],
    packed: &PackedVec<ApiRecord>,
    span_ids: &IdSet,
) -> Option<PackedVec<ApiRecord>> {
    // Per span id: its span's position + 1, and whether a record of it came.
    const CAME: u32 = 1 << 31;
    if u32::try_from(markers.len()).map_or(true, |n| n >= CAME - 1) {
        return None;
    }
    let mut span_of: CorrMap<NonZeroU32> = CorrMap::over(&Arc::new(IdRanks::of_set(span_ids)));
    span_of.reserve(2 * markers.len());
    for (j, m) in (1u32..).zip(markers.iter()) {
        let j = NonZeroU32::new(j)?;
        for id in [m.open_correlation_id, m.close_correlation_id] {
            if id != 0 && *span_of.get_or_insert_with(id, || j) != j {
                return None;
            }
        }
    }
    let mut others = PackedVec::new();
    for a in packed.iter() {
        let corr = a.correlation_id;
        if !is_span_record(&a, span_ids) {
            // (Past 2^32 − 1 shapes a record is refused: not within the memory ceiling.)
            others.push(a);
            continue;
        }
        // An id of no span here: a span an earlier window showed (`spans_shown`).
        let Some(e) = span_of.get_mut(corr) else {
            continue;
        };
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
            marker_records: records.into_iter().collect(),
            markers,
            scopes: Vec::new(),
            scope_context: Vec::new(),
            spans_shown,
        }
    }

    /// The one pass over the packed records gives every span the times, and leaves the
    /// calls, that reading each span's records by id gives; where it cannot (an id repeated,
    /// or shared by two spans) it declines and the spans come out the same all the same.
    #[test]
    fn span_times_read_in_one_pass_are_those_read_by_id() {
        let ids = Ids::every(1, 6_000);
        for (seed, repeat, shared) in [(1, false, false), (2, false, false), (3, true, false)]
            .into_iter()
            .chain([(4, false, true), (5, true, true)])
        {
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
            let declined =
                times_from_packed(&mut probe.markers, &probe.marker_records, &set).is_none();
            assert_eq!(declined, repeat || shared, "seed {seed}");
            take_span_records(&mut one_pass, &set, &ids);
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
