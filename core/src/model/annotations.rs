//! Annotation passes of the join: the roctx stack of each scope, the scope-range-id tree, and
//! the roctx context of calls that the capture at API entry did not see.
//!
//! The capture at HIP API entry (`capture::thread`) covers the calls subscribed to callback
//! tracing (launches, copies, syncs) and keeps only the innermost open range's scope id: every
//! range's span records its parent's, so the stack at the call is that scope's chain of
//! parents, rebuilt here once per scope ([`ScopeStacks`]) instead of a snapshot allocated on
//! the application thread at every push. Every other call — `hipMalloc`, `hipGetDevice`, roctx
//! marks, … — reaches us only as a buffered record, after the fact. It can still be placed
//! exactly: the runtime hands out internal correlation ids in call order, so on one thread a
//! call whose id lies between a push's and its pop's ran inside that range.

use crate::fastmap::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::corrmap::{CorrMap, IdRanks, IdSet, Slot};
use super::trace::{Annotation, Id, Table};
use crate::facts::MarkerSpan;

/// Levels kept in one annotation: the outermost `KEEP_OUTER` and the innermost rest, with one
/// plain level `…<n> levels…` in between. A program that keeps pushing without popping must not
/// make every captured stack (and every `nvtx_range` written) grow with it; XLA's stats come
/// from the innermost levels and `tf_op` from the outermost, which both survive.
pub const MAX_LEVELS: usize = 64;
const KEEP_OUTER: usize = 16;

/// A label list, as an `Annotation` holds it.
pub type Labels = Arc<[Arc<str>]>;

/// A parent's label list and a label, by address.
type ListKey = (usize, usize);

/// The annotation of each push/pop scope, made from the spans on first use: its labels are its
/// parent's plus its own (bounded by [`MAX_LEVELS`]), so a scope costs one copy of at most
/// `MAX_LEVELS` labels however deep, and the ranges pushed again under the same labels (a
/// training loop's `step`) share one label list.
pub struct ScopeStacks<'a> {
    /// Spans that only name scopes (`Carried::scope_context`): positions first, so that a
    /// span of `spans` with the same scope wins.
    context: &'a [MarkerSpan],
    spans: &'a [MarkerSpan],
    /// Scope id → its span (the last one: a range open at a window's cut is shown again, and
    /// the later copy wins). Scope ids are their pushes' correlation ids: a table over them
    /// (ranked within the run's id range), not a hash map (a lookup per call and per parent).
    /// Made when first needed (`span_of`): while every scope asked is the span after the one
    /// asked before (`next_in_order`), none is.
    index: Option<CorrMap<Slot>>,
    /// The run's correlation id range, for `index`.
    ids: Option<(u64, u64)>,
    /// Whether no two scope spans share a scope id: then a scope span is its id's span.
    unique: bool,
    /// The position of the span asked for last (`annotation`).
    last: Option<usize>,
    /// The scope asked for last and its answer: consecutive calls are mostly in one range, so
    /// its annotation is asked again at once.
    answered: Option<(i64, Id<Annotation>)>,
    /// Per span: its annotation and its true depth (more than the labels kept when bounded).
    made: Vec<Option<(Id<Annotation>, u32)>>,
    /// Scopes asked for that have no span (never from the capture).
    unknown: HashMap<i64, Id<Annotation>>,
    /// The annotations made, which the join hands on to the trace.
    table: Table<Annotation>,
    /// (parent's label list, label) → the list they make, both by address: the `Arc`s are
    /// held by `made` and the spans for as long as this lives.
    lists: HashMap<ListKey, Labels>,
    empty: Labels,
    /// The entry of `lists` used last.
    last_list: Option<(ListKey, Labels)>,
    /// The spans being made, innermost first (kept for its room).
    chain: Vec<usize>,
}

impl<'a> ScopeStacks<'a> {
    /// `ids`: the run's correlation id range, which the push/pop scope ids fall in.
    pub fn new(spans: &'a [MarkerSpan], ids: Option<(u64, u64)>) -> Self {
        Self::with_context(spans, &[], ids)
    }

    /// As [`Self::new`], with `context`: spans read only to name scopes (those of calls a
    /// capture window handed on, `model::carry`).
    pub fn with_context(
        spans: &'a [MarkerSpan],
        context: &'a [MarkerSpan],
        ids: Option<(u64, u64)>,
    ) -> Self {
        // Whether each scope id names one span: a bit per id of the range (or hashed), set once
        // per scope.
        let all = context.len() + spans.len();
        let mut seen = IdSet::for_range(ids, all);
        let unique = context
            .iter()
            .chain(spans)
            .filter(|m| is_scope(m))
            .all(|m| seen.insert(m.scope_id as u64));
        drop(seen);
        ScopeStacks {
            context,
            spans,
            index: None,
            ids,
            unique,
            last: None,
            answered: None,
            made: std::iter::repeat_with(|| None).take(all).collect(),
            unknown: HashMap::default(),
            table: Table::default(),
            lists: HashMap::default(),
            empty: Arc::from(Vec::new()),
            last_list: None,
            chain: Vec::new(),
        }
    }

    /// The span at position `i` (the context's first).
    fn span(&self, i: usize) -> &'a MarkerSpan {
        match i.checked_sub(self.context.len()) {
            Some(j) => &self.spans[j],
            None => &self.context[i],
        }
    }

    #[inline]
    fn span_of(&mut self, scope: i64) -> Option<usize> {
        // 0 is "no parent": every outermost range asks.
        let id = u64::try_from(scope).ok().filter(|&id| id != 0)?;
        self.indexed(id)
    }

    /// `span_of` a scope id (not 0), by the index, made the first time. (Apart: `span_of` is
    /// asked for every scope's parent, mostly none, and is inlined there.)
    #[inline(never)]
    fn indexed(&mut self, id: u64) -> Option<usize> {
        let (context, spans, ids) = (self.context, self.spans, self.ids);
        let index = self
            .index
            .get_or_insert_with(|| scope_index(context, spans, ids));
        index.get(&id).map(|s| s.index())
    }

    /// The span of `scope` when it is the span asked for last or the one after it (the first,
    /// before any): a thread's ranges are asked for in the order their spans were made, so
    /// mostly it is, and no index need be made or read. Only where each scope id names one
    /// span (`unique`): then a scope span with the id is the span `span_of` finds.
    #[inline]
    fn next_in_order(&self, scope: i64) -> Option<(usize, &'a MarkerSpan)> {
        // Once a scope was not (the index is made), the index answers.
        if !self.unique || self.index.is_some() {
            return None;
        }
        let is = |i: usize| {
            self.span_checked(i)
                .filter(|m| is_scope(m) && m.scope_id == scope && Slot::new(i).is_some())
                .map(|m| (i, m))
        };
        let next = self.last.map_or(0, |l| l + 1);
        is(next).or_else(|| self.last.and_then(is))
    }

    /// The span at position `i`, if there is one.
    #[inline]
    fn span_checked(&self, i: usize) -> Option<&'a MarkerSpan> {
        match i.checked_sub(self.context.len()) {
            Some(j) => self.spans.get(j),
            None => self.context.get(i),
        }
    }

    /// The annotation of `scope` (`None` for 0). A scope whose span is missing (never seen
    /// from the capture, which keeps a span for every range it hands out an id for) gets its
    /// id and no labels; a missing parent ends the chain. A scope's answer never changes once
    /// given, so the one asked again at once is answered from `answered`, inlined where asked.
    #[inline]
    pub fn annotation(&mut self, scope: i64) -> Option<Id<Annotation>> {
        if scope == 0 {
            return None;
        }
        if let Some((s, a)) = self.answered {
            if s == scope {
                return Some(a);
            }
        }
        let a = self.annotation_of(scope);
        if let Some(a) = a {
            self.answered = Some((scope, a));
        }
        a
    }

    /// `annotation` of a scope not asked for just before (not 0).
    #[inline(never)]
    fn annotation_of(&mut self, scope: i64) -> Option<Id<Annotation>> {
        let found = self.next_in_order(scope).or_else(|| {
            let at = self.span_of(scope)?;
            Some((at, self.span(at)))
        });
        let Some((at, m)) = found else {
            let (empty, table) = (&self.empty, &mut self.table);
            return Some(*self.unknown.entry(scope).or_insert_with(|| {
                table.push(Annotation {
                    stack: empty.clone(),
                    scope_range_id: scope,
                    external_ids: Vec::new(),
                })
            }));
        };
        self.last = Some(at);
        if let Some((a, _)) = self.made[at] {
            return Some(a);
        }
        // Mostly the parent is made already, or there is none (an outermost range): one step.
        let parent = self.span_of(m.parent_scope_id);
        if parent.is_none_or(|p| p != at && self.made[p].is_some()) {
            return Some(self.make(at, m, parent));
        }
        // The spans not made yet, innermost first, up to a made one or the outermost. A chain
        // longer than the spans is a cycle (only malformed input makes one): cut there.
        let mut chain = std::mem::take(&mut self.chain);
        let mut next = Some(at);
        while let Some(i) = next.filter(|&i| self.made[i].is_none()) {
            if chain.len() > self.made.len() {
                break;
            }
            chain.push(i);
            next = self.span_of(self.span(i).parent_scope_id);
        }
        for &i in chain.iter().rev() {
            let parent = self
                .span_of(self.span(i).parent_scope_id)
                .filter(|&p| p != i);
            self.make_apart(i, parent);
        }
        chain.clear();
        self.chain = chain;
        self.made[at].map(|(a, _)| a)
    }

    /// Makes the annotation of the span `m` at `i`, whose parent's span (`parent`, not itself) is
    /// made or missing. Inlined where one step makes a scope: mostly the label list is the one
    /// made last (`last_list`), and only the annotation is pushed; a list looked up or made
    /// is apart (`list_of`).
    #[inline(always)]
    fn make(&mut self, i: usize, m: &MarkerSpan, parent: Option<usize>) -> Id<Annotation> {
        let parent = parent.and_then(|p| self.made[p].as_ref());
        let (parent, depth) = match parent {
            Some((a, d)) => (&self.table[*a].stack, *d),
            None => (&self.empty, 0),
        };
        let key = (
            Arc::as_ptr(parent) as *const () as usize,
            Arc::as_ptr(&m.label) as *const () as usize,
        );
        // Consecutive scopes are mostly one thread's ranges pushed again: the list
        // before is the one asked for.
        let list = match &self.last_list {
            Some((k, l)) if *k == key => l.clone(),
            _ => self.list_of(key, parent.clone(), depth, &m.label),
        };
        let a = self.table.push(Annotation {
            stack: list,
            scope_range_id: m.scope_id,
            external_ids: Vec::new(),
        });
        self.made[i] = Some((a, depth.saturating_add(1)));
        a
    }

    /// `make`, not inlined: a chain of scopes made at once.
    #[inline(never)]
    fn make_apart(&mut self, i: usize, parent: Option<usize>) -> Id<Annotation> {
        self.make(i, self.span(i), parent)
    }

    /// The label list of `key` (`parent`'s list `depth` deep, then `label`), made the first
    /// time, and kept as the list used last.
    #[inline(never)]
    fn list_of(&mut self, key: ListKey, parent: Labels, depth: u32, label: &Arc<str>) -> Labels {
        let l = self
            .lists
            .entry(key)
            .or_insert_with(|| extend_stack(&parent, depth as usize, label))
            .clone();
        self.last_list = Some((key, l.clone()));
        l
    }

    /// The annotations made so far.
    pub fn table(&self) -> &Table<Annotation> {
        &self.table
    }

    /// The annotations made, for the trace (or for more to be added to by the join).
    pub fn into_table(self) -> Table<Annotation> {
        self.table
    }
}

/// Whether `m` is a push/pop range that names a scope (`ScopeStacks`).
fn is_scope(m: &MarkerSpan) -> bool {
    m.scope_id > 0 && !m.instant && !m.process_wide
}

/// Scope id → the position of its span among `context` then `spans` (the last one), for
/// `ScopeStacks::index`. A slot per scope (ranked), not per id of the run's range: a run's
/// scopes are a share of its ids (a push and a pop take two, the calls inside them more).
fn scope_index(
    context: &[MarkerSpan],
    spans: &[MarkerSpan],
    ids: Option<(u64, u64)>,
) -> CorrMap<Slot> {
    let scopes = || {
        context
            .iter()
            .chain(spans)
            .enumerate()
            .filter(|(_, m)| is_scope(m))
    };
    let n = scopes().count();
    let ranks = Arc::new(IdRanks::of(
        ids,
        n,
        scopes().map(|(_, m)| m.scope_id as u64),
    ));
    let mut index = CorrMap::over(&ranks);
    index.reserve(n);
    for (i, m) in scopes() {
        // (A position past what a `Slot` holds is left out.)
        if let Some(slot) = Slot::new(i) {
            index.insert(m.scope_id as u64, slot);
        }
    }
    index
}

/// The bounded label list of a stack `depth + 1` deep whose first `depth` levels bound to
/// `parent`: the whole stack's first `KEEP_OUTER` levels, one `…<n> levels…` entry and its
/// innermost levels, `MAX_LEVELS` in all, once it is deeper than that.
fn extend_stack(parent: &[Arc<str>], depth: usize, label: &Arc<str>) -> Labels {
    if depth < MAX_LEVELS {
        return parent.iter().chain([label]).cloned().collect();
    }
    // Past the bound the parent's list is its outermost levels, one elided entry, and its
    // innermost levels: keep the outer, count one more elided, drop the oldest inner.
    let inner = MAX_LEVELS - 1 - KEEP_OUTER;
    let skipped = depth + 1 - KEEP_OUTER - inner;
    let mut out: Vec<Arc<str>> = Vec::with_capacity(MAX_LEVELS);
    out.extend(parent[..KEEP_OUTER].iter().cloned());
    out.push(Arc::from(format!("…{skipped} levels…")));
    out.extend(parent[parent.len() - (inner - 1)..].iter().cloned());
    out.push(label.clone());
    out.into()
}

/// Every push/pop range's (child, parent) pair, once, sorted; outermost ranges have no pair.
pub fn scope_tree<'m>(markers: impl IntoIterator<Item = &'m MarkerSpan>) -> Vec<(i64, i64)> {
    let mut pairs: Vec<(i64, i64)> = markers
        .into_iter()
        .filter(|m| m.scope_id != 0 && m.parent_scope_id != 0)
        .map(|m| (m.scope_id, m.parent_scope_id))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// A push/pop range as the sweep needs it.
struct Range<'a> {
    open: u64,
    /// Correlation id of the pop; `u64::MAX` when it never came (open at the end).
    close: u64,
    span: &'a MarkerSpan,
}

/// Whether `m` is a push/pop range calls can be placed in (by correlation id, on its thread).
fn is_range(m: &MarkerSpan) -> bool {
    !(m.instant || m.process_wide || m.scope_id == 0 || m.open_correlation_id == 0)
}

/// The threads that pushed ranges: only their calls can be placed in one.
#[derive(Debug, Default)]
pub struct RangeThreads(HashSet<u64>);

impl RangeThreads {
    pub fn of(markers: &[MarkerSpan]) -> Self {
        // A thread's ranges come in runs: each run's thread is added once, not hashed per
        // range.
        let mut threads: HashSet<u64> = HashSet::default();
        let mut last = None;
        for m in markers.iter().filter(|m| is_range(m)) {
            if last.replace(m.thread_id) != Some(m.thread_id) {
                threads.insert(m.thread_id);
            }
        }
        RangeThreads(threads)
    }

    /// No range: no call is placed, and none need be asked about.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether call `corr` of `thread` is one to place: a call (id 0 is none) the capture
    /// did not see (`captured`, asked only of a call) on a thread that pushed ranges. The
    /// captured table first: a vector over the ids, where the thread set is a hash probe.
    #[inline]
    pub fn places(&self, thread: u64, corr: u64, captured: impl FnOnce() -> bool) -> bool {
        corr != 0 && !captured() && self.0.contains(&thread)
    }
}

/// The calls the capture did not see on the threads that pushed ranges, by thread: what
/// [`place_in_ranges`] places (those [`RangeThreads::places`] answers for).
#[derive(Debug, Default)]
pub struct CallsToPlace(BTreeMap<u64, Vec<u64>>);

impl CallsToPlace {
    pub fn add(&mut self, thread: u64, corr: u64) {
        self.0.entry(thread).or_default().push(corr);
    }
}

/// Gives each call `(thread, correlation id)` that has no captured annotation the annotation of
/// the innermost push/pop range of its thread that contains it by correlation id. One
/// annotation per range, shared by all calls inside it; calls outside every range stay without.
/// (A caller that walks its calls for more than this asks [`RangeThreads::places`] in its own
/// walk, then calls [`place_in_ranges`].)
pub fn annotate_from_ranges(
    captured: &mut super::corrmap::CorrMap<Id<Annotation>>,
    calls: impl IntoIterator<Item = (u64, u64)>,
    markers: &[MarkerSpan],
    stacks: &mut ScopeStacks<'_>,
) {
    let threads = RangeThreads::of(markers);
    if threads.is_empty() {
        return;
    }
    // The calls the capture did not see, before the ranges: when every call was captured (a
    // program whose roctx ranges enclose only launches, copies and syncs) no range is indexed.
    let mut queries = CallsToPlace::default();
    for (thread, corr) in calls {
        if threads.places(thread, corr, || captured.contains_key(&corr)) {
            queries.add(thread, corr);
        }
    }
    place_in_ranges(captured, queries, markers, stacks);
}

/// `annotate_from_ranges` of the calls to place, found: each is given the annotation of the
/// innermost range of its thread that contains it.
pub fn place_in_ranges(
    captured: &mut super::corrmap::CorrMap<Id<Annotation>>,
    queries: CallsToPlace,
    markers: &[MarkerSpan],
    stacks: &mut ScopeStacks<'_>,
) {
    let queries = queries.0;
    if queries.is_empty() {
        return;
    }
    // Each thread's first and last call to place: a range that ends before the first or
    // opens after the last holds none of them, and is neither kept nor sorted. A program whose
    // only calls to place are a synchronize after its last range would otherwise keep and
    // sort all its ranges for them.
    let bounds: HashMap<u64, (u64, u64)> = queries
        .iter()
        .map(|(&thread, qs)| {
            let (lo, hi) = qs
                .iter()
                .fold((u64::MAX, 0), |(lo, hi), &q| (lo.min(q), hi.max(q)));
            (thread, (lo, hi))
        })
        .collect();
    let mut ranges: BTreeMap<u64, Vec<Range<'_>>> = BTreeMap::new();
    // A thread's ranges come in runs: its bounds are looked up once per run.
    let mut run: Option<(u64, Option<(u64, u64)>)> = None;
    for m in markers {
        if !is_range(m) {
            continue;
        }
        let of_thread = match run {
            Some((t, b)) if t == m.thread_id => b,
            _ => {
                let b = bounds.get(&m.thread_id).copied();
                run = Some((m.thread_id, b));
                b
            }
        };
        let Some((first, last)) = of_thread else {
            continue;
        };
        let close = match m.close_correlation_id {
            0 => u64::MAX,
            c => c,
        };
        // A range holds a call strictly after its push, up to its pop (the sweep below).
        if m.open_correlation_id >= last || close < first {
            continue;
        }
        ranges.entry(m.thread_id).or_default().push(Range {
            open: m.open_correlation_id,
            close,
            span: m,
        });
    }
    for (thread, mut qs) in queries {
        let Some(rs) = ranges.get_mut(&thread) else {
            continue;
        };
        qs.sort_unstable();
        qs.dedup();
        rs.sort_by_key(|r| (r.open, std::cmp::Reverse(r.close)));
        let mut open: Vec<&Range<'_>> = Vec::new();
        let mut next = 0;
        for q in qs {
            while next < rs.len() && rs[next].open < q {
                let r = &rs[next];
                while open.last().is_some_and(|top| top.close < r.open) {
                    open.pop();
                }
                open.push(r);
                next += 1;
            }
            while open.last().is_some_and(|top| top.close < q) {
                open.pop();
            }
            let Some(top) = open.last() else { continue };
            if let Some(a) = stacks.annotation(top.span.scope_id) {
                captured.insert(q, a);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole stack bounded at once: what the scopes' lists, made level by level, must be.
    fn bounded_stack(labels: &[Arc<str>]) -> Vec<String> {
        let n = labels.len();
        let text = |l: &[Arc<str>]| l.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        if n <= MAX_LEVELS {
            return text(labels);
        }
        let inner = MAX_LEVELS - 1 - KEEP_OUTER;
        let mut out = text(&labels[..KEEP_OUTER]);
        out.push(format!("…{} levels…", n - KEEP_OUTER - inner));
        out.extend(text(&labels[n - inner..]));
        out
    }

    fn span(label: &str, open: u64, close: u64, scope: i64, parent: i64) -> MarkerSpan {
        MarkerSpan {
            label: Arc::from(label),
            thread_id: 7,
            open_correlation_id: open,
            close_correlation_id: close,
            scope_id: scope,
            parent_scope_id: parent,
            ..MarkerSpan::default()
        }
    }

    fn labels_of(a: &Annotation) -> Vec<String> {
        a.stack.iter().map(|l| l.to_string()).collect()
    }

    /// `scope`'s annotation, as made.
    fn made(stacks: &mut ScopeStacks<'_>, scope: i64) -> Annotation {
        let id = stacks.annotation(scope).unwrap();
        stacks.table()[id].clone()
    }

    /// A chain 1,000 ranges deep, each scope's list made from its parent's: at every depth
    /// (asked innermost first, then every level) the list is the whole stack bounded at once.
    #[test]
    fn deep_stacks_keep_their_outer_and_inner_levels_only() {
        let labels: Vec<Arc<str>> = (0..1000).map(|i| Arc::from(format!("l{i}"))).collect();
        let spans: Vec<MarkerSpan> = (0..1000)
            .map(|i| span(&labels[i].clone(), i as u64 + 1, 0, i as i64 + 1, i as i64))
            .collect();
        let mut stacks = ScopeStacks::new(&spans, None);
        let deepest = made(&mut stacks, 1000);
        assert_eq!(deepest.stack.len(), MAX_LEVELS);
        assert_eq!(labels_of(&deepest)[..16], bounded_stack(&labels)[..16]);
        assert_eq!(labels_of(&deepest)[16], "…937 levels…");
        assert_eq!(labels_of(&deepest)[63], "l999");
        for depth in 1..=1000 {
            let a = made(&mut stacks, depth as i64);
            assert_eq!(labels_of(&a), bounded_stack(&labels[..depth]), "{depth}");
            assert_eq!(a.scope_range_id, depth as i64);
        }
        assert_eq!(made(&mut stacks, 64).stack.len(), 64);
        assert_eq!(stacks.annotation(0), None);
    }

    /// Ranges pushed again under the same labels are each their own annotation (their own
    /// scope id) sharing one label list; a different label, or the same under another
    /// parent, makes another list.
    #[test]
    fn scopes_share_label_lists_by_their_labels() {
        let step: Arc<str> = Arc::from("step");
        let with = |label: &Arc<str>, scope: i64, parent: i64| MarkerSpan {
            label: label.clone(),
            ..span("", scope as u64, 0, scope, parent)
        };
        let spans = vec![
            with(&step, 1, 0),
            with(&step, 2, 0),
            span("eval", 3, 0, 3, 0),
            with(&step, 4, 3),
        ];
        let mut stacks = ScopeStacks::new(&spans, None);
        let ids: Vec<Id<Annotation>> = (1..=4).map(|s| stacks.annotation(s).unwrap()).collect();
        assert_ne!(ids[0], ids[1], "each range its own scope");
        assert_eq!(stacks.annotation(1), Some(ids[0]), "made once");
        let a: Vec<&Annotation> = ids.iter().map(|&i| &stacks.table()[i]).collect();
        assert_eq!((a[0].scope_range_id, a[1].scope_range_id), (1, 2));
        assert!(Arc::ptr_eq(&a[0].stack, &a[1].stack), "one label list");
        assert_eq!(labels_of(a[3]), ["eval", "step"]);
        assert!(!Arc::ptr_eq(&a[0].stack, &a[3].stack));
        assert_eq!(stacks.table().len(), 4);
    }

    /// Scopes asked for in the order their spans were made are found without the index
    /// (`next_in_order`), others by it, made the first time one is: either way each scope gets
    /// the annotation the index alone gives it, whatever the order asked, with context spans,
    /// nested ranges, and a scope id shown twice (the later span wins; no span is found by
    /// order then).
    #[test]
    fn scopes_found_in_order_or_by_the_index_alike() {
        let mut x = 7u64;
        let mut next = move |m: u64| crate::model::next_random(&mut x) % m;
        let context = vec![span("ctx", 1, 0, 1, 0), span("ctx2", 2, 0, 2, 1)];
        let mut spans = Vec::new();
        for r in 0..300i64 {
            let open = 10 + 3 * r;
            // Every fifth range inside the one before it (or a context span).
            let parent = match r % 5 {
                4 => open - 3,
                3 => 2,
                _ => 0,
            };
            spans.push(span(
                ["a", "b", "c"][r as usize % 3],
                open as u64,
                0,
                open,
                parent,
            ));
        }
        spans.push(span("mark", 5, 5, 0, 0));
        for repeat in [false, true] {
            let mut spans = spans.clone();
            if repeat {
                spans.push(span("again", 40, 0, 40, 0));
            }
            let scopes: Vec<i64> = context
                .iter()
                .chain(&spans)
                .map(|m| m.scope_id)
                .chain([0, 9_999])
                .collect();
            let mut asks: Vec<i64> = scopes.clone();
            for _ in 0..400 {
                asks.push(scopes[next(scopes.len() as u64) as usize]);
            }
            let mut in_order = ScopeStacks::with_context(&spans, &context, Some((1, 2_000)));
            let mut by_index = ScopeStacks::with_context(&spans, &context, Some((1, 2_000)));
            assert_eq!(in_order.unique, !repeat);
            by_index.unique = false;
            for &s in &asks {
                let (a, b) = (in_order.annotation(s), by_index.annotation(s));
                let got = a.map(|a| in_order.table()[a].clone());
                let want = b.map(|b| by_index.table()[b].clone());
                assert_eq!(
                    got.as_ref().map(|a| (a.scope_range_id, labels_of(a))),
                    want.as_ref().map(|a| (a.scope_range_id, labels_of(a))),
                    "scope {s}, repeat {repeat}"
                );
            }
            if repeat {
                assert_eq!(labels_of(&made(&mut in_order, 40)), ["again"]);
            }
        }
        // Outermost ranges asked in the order made, each perhaps twice: no index is made.
        let flat: Vec<MarkerSpan> = (1..100).map(|r| span("step", r, 0, r as i64, 0)).collect();
        let mut stacks = ScopeStacks::new(&flat, Some((1, 2_000)));
        for m in &flat {
            let a = stacks.annotation(m.scope_id);
            assert_eq!(a, stacks.annotation(m.scope_id));
            assert_eq!(
                a.map(|a| stacks.table()[a].scope_range_id),
                Some(m.scope_id)
            );
        }
        assert!(stacks.index.is_none());
    }

    /// Input the capture never makes still ends: a scope without a span keeps its id, a
    /// missing parent cuts the chain, a cycle is cut.
    #[test]
    fn missing_spans_and_cycles_end() {
        let spans = vec![
            span("orphan", 5, 0, 5, 99),
            span("a", 6, 0, 6, 7),
            span("b", 7, 0, 7, 6),
            span("self", 8, 0, 8, 8),
        ];
        let mut stacks = ScopeStacks::new(&spans, None);
        let none = made(&mut stacks, 42);
        assert_eq!((none.scope_range_id, none.stack.len()), (42, 0));
        assert_eq!(labels_of(&made(&mut stacks, 5)), ["orphan"]);
        assert!(made(&mut stacks, 6).stack.ends_with(&[Arc::from("a")]));
        assert!(stacks.annotation(7).is_some());
        assert_eq!(labels_of(&made(&mut stacks, 8)), ["self"]);
    }

    #[test]
    fn tree_has_one_pair_per_nested_push() {
        let m = vec![
            span("step", 1, 20, 1, 0),
            span("fwd", 2, 10, 2, 1),
            span("mm", 3, 5, 3, 2),
            span("step", 21, 0, 21, 0),
            MarkerSpan {
                process_wide: true,
                ..span("job", 4, 30, 0, 0)
            },
        ];
        assert_eq!(scope_tree(&m), vec![(2, 1), (3, 2)]);
    }

    #[test]
    fn calls_take_the_innermost_range_of_their_own_thread_by_correlation_id() {
        let m = vec![
            span("step", 1, 20, 1, 0),
            span("fwd", 2, 10, 2, 1),
            span("mm", 3, 5, 3, 2),
            span("bwd", 11, 15, 11, 1),
            span("left open", 30, 0, 30, 0),
        ];
        // Dense over part of the ids, spilled beyond: both paths are exercised.
        let mut captured: super::super::corrmap::CorrMap<Id<Annotation>> =
            super::super::corrmap::CorrMap::for_range(Some((1, 10)), 10);
        let mut stacks = ScopeStacks::new(&m, Some((1, 40)));
        // A captured call keeps its own annotation (here: a scope without a span).
        let mine = stacks.annotation(99).unwrap();
        captured.insert(4, mine);
        let calls = [
            (7, 4),
            (7, 6),
            (7, 8),
            (7, 12),
            (7, 16),
            (7, 25),
            (7, 31),
            (8, 9),
        ];
        annotate_from_ranges(&mut captured, calls, &m, &mut stacks);
        let got = |c: u64| {
            captured.get(&c).map(|&id| {
                let a = &stacks.table()[id];
                (
                    a.scope_range_id,
                    a.stack.iter().map(|l| l.to_string()).collect(),
                )
            })
        };
        let at = |c: u64| *captured.get(&c).unwrap();
        assert_eq!(at(4), mine);
        assert_eq!(got(6), Some((2, vec!["step".into(), "fwd".into()])));
        assert_eq!(at(6), at(8), "one annotation per range");
        assert_eq!(got(12), Some((11, vec!["step".into(), "bwd".into()])));
        assert_eq!(got(16), Some((1, vec!["step".into()])));
        assert_eq!(got(25), None, "between ranges");
        assert_eq!(got(31), Some((30, vec!["left open".into()])));
        assert_eq!(got(9), None, "another thread's ranges never apply");
    }

    /// Only the ranges that may hold a call to place are swept: the ones that end before a
    /// thread's first such call or open at or after its last are skipped. At the edges: a
    /// range popped by the first call's id holds it (a call is inside from after the push up
    /// to the pop), one popped just before does not; a range pushed just before the last call
    /// holds it, one pushed by its id does not.
    #[test]
    fn ranges_around_the_calls_to_place_are_swept_at_their_edges() {
        let mut m: Vec<MarkerSpan> = (0..1_000)
            .map(|i| span("early", 2 * i + 1, 2 * i + 2, 2 * i as i64 + 1, 0))
            .collect();
        m.extend([
            span("around them all", 2_999, 0, 2_999, 0),
            span("ends before the first", 3_000, 3_050, 3_000, 2_999),
            span("ends at the first", 3_051, 3_100, 3_051, 2_999),
            span("opens before the last", 3_199, 3_300, 3_199, 2_999),
            span("opens at the last", 3_200, 3_250, 3_200, 3_199),
        ]);
        let mut captured: super::super::corrmap::CorrMap<Id<Annotation>> =
            super::super::corrmap::CorrMap::for_range(Some((1, 4_000)), 4_000);
        let mut stacks = ScopeStacks::new(&m, Some((1, 4_000)));
        annotate_from_ranges(
            &mut captured,
            [(7, 3_100), (7, 3_150), (7, 3_200)],
            &m,
            &mut stacks,
        );
        let scope = |c: u64| {
            captured
                .get(&c)
                .map(|&id| stacks.table()[id].scope_range_id)
        };
        assert_eq!(scope(3_100), Some(3_051));
        assert_eq!(scope(3_150), Some(2_999));
        assert_eq!(scope(3_200), Some(3_199));
    }
}
