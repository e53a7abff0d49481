//! Annotation passes of the join: the scope-range-id tree, and the roctx context of calls that
//! the capture at API entry did not see.
//!
//! The capture at HIP API entry (`capture::thread`) covers the calls subscribed to callback
//! tracing (launches, copies, syncs). Every other call — `hipMalloc`, `hipGetDevice`, roctx
//! marks, … — reaches us only as a buffered record, after the fact. It can still be placed
//! exactly: the runtime hands out internal correlation ids in call order, so on one thread a
//! call whose id lies between a push's and its pop's ran inside that range.

use crate::fastmap::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::events::MarkerSpan;
use super::trace::Annotation;

/// Levels kept in one annotation: the outermost `KEEP_OUTER` and the innermost rest, with one
/// plain level `…<n> levels…` in between. A program that keeps pushing without popping must not
/// make every captured stack (and every `nvtx_range` written) grow with it; XLA's stats come
/// from the innermost levels and `tf_op` from the outermost, which both survive.
pub const MAX_LEVELS: usize = 64;
const KEEP_OUTER: usize = 16;

/// The labels of a stack (`items`, outermost first), bounded by [`MAX_LEVELS`]; touches at most
/// `MAX_LEVELS` items however deep the stack. As the shared list an `Annotation` holds; a
/// stack within the bound is one allocation (built in place from an exact-size iterator).
pub fn bounded_stack<T>(items: &[T], label: impl Fn(&T) -> &Arc<str>) -> Arc<[Arc<str>]> {
    let n = items.len();
    if n <= MAX_LEVELS {
        return items.iter().map(|i| label(i).clone()).collect();
    }
    let inner = MAX_LEVELS - 1 - KEEP_OUTER;
    let skipped = n - KEEP_OUTER - inner;
    let mut out: Vec<Arc<str>> = Vec::with_capacity(MAX_LEVELS);
    out.extend(items[..KEEP_OUTER].iter().map(|i| label(i).clone()));
    out.push(Arc::from(format!("…{skipped} levels…")));
    out.extend(items[n - inner..].iter().map(|i| label(i).clone()));
    out.into()
}

/// Every push/pop range's (child, parent) pair, once, sorted; outermost ranges have no pair.
pub fn scope_tree(markers: &[MarkerSpan]) -> Vec<(i64, i64)> {
    let mut pairs: Vec<(i64, i64)> = markers
        .iter()
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

/// Gives each call `(thread, correlation id)` that has no captured annotation the annotation of
/// the innermost push/pop range of its thread that contains it by correlation id. One `Arc` per
/// range, shared by all calls inside it; calls outside every range stay without.
pub fn annotate_from_ranges(
    captured: &mut super::corrmap::CorrMap<Arc<Annotation>>,
    calls: impl IntoIterator<Item = (u64, u64)>,
    markers: &[MarkerSpan],
) {
    let is_range = |m: &MarkerSpan| {
        !(m.instant || m.process_wide || m.scope_id == 0 || m.open_correlation_id == 0)
    };
    let threads: HashSet<u64> = markers
        .iter()
        .filter(|m| is_range(m))
        .map(|m| m.thread_id)
        .collect();
    if threads.is_empty() {
        return;
    }
    // The calls the capture did not see, before the ranges: when every call was captured (a
    // program whose roctx ranges enclose only launches, copies and syncs) no range is indexed.
    let mut queries: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for (thread, corr) in calls {
        if corr != 0 && threads.contains(&thread) && !captured.contains_key(&corr) {
            queries.entry(thread).or_default().push(corr);
        }
    }
    if queries.is_empty() {
        return;
    }
    let mut ranges: BTreeMap<u64, Vec<Range<'_>>> = BTreeMap::new();
    for m in markers {
        if !is_range(m) || !queries.contains_key(&m.thread_id) {
            continue;
        }
        let close = match m.close_correlation_id {
            0 => u64::MAX,
            c => c,
        };
        ranges.entry(m.thread_id).or_default().push(Range {
            open: m.open_correlation_id,
            close,
            span: m,
        });
    }
    let mut made: HashMap<i64, Arc<Annotation>> = HashMap::default();
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
            let a = made.entry(top.span.scope_id).or_insert_with(|| {
                Arc::new(Annotation {
                    stack: bounded_stack(&open, |r| &r.span.label),
                    scope_range_id: top.span.scope_id,
                    external_ids: Vec::new(),
                })
            });
            captured.insert(q, a.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn deep_stacks_keep_their_outer_and_inner_levels_only() {
        let labels: Vec<Arc<str>> = (0..1000).map(|i| Arc::from(format!("l{i}"))).collect();
        let b = bounded_stack(&labels, |l| l);
        assert_eq!(b.len(), MAX_LEVELS);
        assert_eq!((&*b[0], &*b[15]), ("l0", "l15"));
        assert_eq!(&*b[16], "…937 levels…");
        assert_eq!((&*b[17], &*b[63]), ("l953", "l999"));
        assert_eq!(bounded_stack(&labels[..64], |l| l).len(), 64);
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
        let mut captured: super::super::corrmap::CorrMap<Arc<Annotation>> =
            super::super::corrmap::CorrMap::for_range(Some((1, 10)), 10);
        // A captured call keeps its own annotation.
        let mine = Arc::new(Annotation {
            stack: vec![Arc::from("captured")].into(),
            scope_range_id: 99,
            ..Annotation::default()
        });
        captured.insert(4, mine.clone());
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
        annotate_from_ranges(&mut captured, calls, &m);
        let got = |c: u64| {
            captured.get(&c).map(|a| {
                (
                    a.scope_range_id,
                    a.stack.iter().map(|l| l.to_string()).collect(),
                )
            })
        };
        let at = |c: u64| captured.get(&c).unwrap().clone();
        assert!(Arc::ptr_eq(&at(4), &mine));
        assert_eq!(got(6), Some((2, vec!["step".into(), "fwd".into()])));
        assert!(Arc::ptr_eq(&at(6), &at(8)), "one Arc per range");
        assert_eq!(got(12), Some((11, vec!["step".into(), "bwd".into()])));
        assert_eq!(got(16), Some((1, vec!["step".into()])));
        assert_eq!(got(25), None, "between ranges");
        assert_eq!(got(31), Some((30, vec!["left open".into()])));
        assert_eq!(got(9), None, "another thread's ranges never apply");
    }

    /// Through the whole join: uncaptured calls and marks get their range's context, ranges
    /// carry their own id and kind, and the tree comes out of the spans.
    #[test]
    fn join_fills_calls_marks_ranges_and_the_tree() {
        use crate::model::events::{ApiDomain, ApiRecord, Collected};
        use crate::model::join::join;
        use crate::model::{HostEventKind, RangeInfo};

        let api = |corr: u64, thread: u64| ApiRecord {
            domain: ApiDomain::Hip,
            operation: 1,
            correlation_id: corr,
            external_id: 0,
            start_ns: corr * 10,
            end_ns: corr * 10 + 5,
            thread_id: thread,
        };
        let timed = |mut m: MarkerSpan, s: u64, e: u64| {
            m.start_ns = s;
            m.end_ns = e;
            m
        };
        let markers = vec![
            timed(span("step", 1, 10, 1, 0), 10, 105),
            timed(span("mm", 2, 6, 2, 1), 20, 65),
            MarkerSpan {
                instant: true,
                close_correlation_id: 4,
                ..timed(span("tick", 4, 4, 0, 0), 40, 40)
            },
            MarkerSpan {
                process_wide: true,
                ..timed(span("job", 8, 12, 0, 0), 80, 125)
            },
            MarkerSpan {
                open_at_end: true,
                ..timed(span("left open", 20, 0, 20, 0), 200, 300)
            },
        ];
        let t = join(Collected {
            markers,
            api: vec![api(3, 7), api(5, 7), api(7, 8), api(21, 7)],
            ..Collected::default()
        });
        assert_eq!(t.scope_tree, vec![(2, 1)]);
        let ev = |name: &str| {
            t.host_threads
                .iter()
                .flat_map(|th| th.events.iter())
                .filter(|e| &*e.name == name)
                .collect::<Vec<_>>()
        };
        let scopes: Vec<Option<i64>> = ev("<hip operation 1>")
            .iter()
            .map(|e| e.annotation.as_ref().map(|a| a.scope_range_id))
            .collect();
        // Sorted by thread, then time: cid 3, 5, 21 on thread 7; cid 7 on thread 8.
        assert_eq!(scopes, vec![Some(2), Some(2), Some(20), None]);
        assert_eq!(ev("tick")[0].annotation.as_ref().unwrap().scope_range_id, 2);
        assert_eq!(
            ev("mm")[0].kind,
            HostEventKind::MarkerRange(RangeInfo {
                scope_id: 2,
                ..RangeInfo::default()
            })
        );
        assert!(ev("mm")[0].annotation.is_none(), "a range is its own scope");
        assert!(matches!(ev("job")[0].kind, HostEventKind::MarkerRange(r) if r.process_wide));
        assert!(matches!(ev("left open")[0].kind, HostEventKind::MarkerRange(r) if r.open_at_end));
    }
}
