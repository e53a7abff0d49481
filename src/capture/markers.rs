//! roctx ranges and marks from `MARKER_CORE_API` callbacks.
//!
//! The buffered marker records carry no text, so labels come from here. Push/pop ranges nest per
//! thread (they are the annotation stack); start/stop ranges are process-wide and may end on
//! another thread, so they live in one map keyed by range id (rare calls: a lock is fine).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::thread::{with_current, OpenRange, ThreadState};
use crate::model::events::MarkerSpan;
use crate::store::sinks::lock;

/// `MARKER_CORE_API` operation ids (stable in every SDK version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerOp {
    Mark,
    RangePush,
    RangePop,
    RangeStart,
    RangeStop,
    Other,
}

impl MarkerOp {
    /// Whether a callback of this operation is acted on at ENTER (`Some(true)`) or at EXIT
    /// (`Some(false)`); the other phase carries nothing kept, so its label is not read and no
    /// timestamp taken (two clock reads and a label's UTF-8 check per range were spent on it).
    /// A mark, a push and a stop act at ENTER; a pop at EXIT, so the pop call itself still sees
    /// the range it closes; a start at EXIT, where its return value is the range's id.
    pub fn acts_at_enter(self) -> Option<bool> {
        match self {
            MarkerOp::Mark | MarkerOp::RangePush | MarkerOp::RangeStop => Some(true),
            MarkerOp::RangePop | MarkerOp::RangeStart => Some(false),
            MarkerOp::Other => None,
        }
    }

    pub fn from_id(op: i32) -> MarkerOp {
        match op {
            0 => MarkerOp::Mark,
            1 => MarkerOp::RangePush,
            2 => MarkerOp::RangePop,
            3 => MarkerOp::RangeStart,
            4 => MarkerOp::RangeStop,
            _ => MarkerOp::Other,
        }
    }
}

/// One marker callback, already read out of the runtime's payload.
#[derive(Debug, Clone, Copy)]
pub struct MarkerCall<'a> {
    pub op: MarkerOp,
    pub enter: bool,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub timestamp_ns: u64,
    /// Message argument (mark, push, start).
    pub label: Option<&'a str>,
    /// `roctxRangeStop` argument.
    pub stop_id: u64,
    /// `roctxRangeStartA` return value (EXIT only).
    pub start_retval: u64,
}

/// An open range with the thread that opened it (push/pop ranges close on that same thread;
/// start/stop ranges may close on another).
#[derive(Clone)]
struct ProcessRange {
    label: Arc<str>,
    thread_id: u64,
    correlation_id: u64,
    start_ns: u64,
    /// Push/pop ranges only (0 for start/stop).
    scope_id: i64,
    parent_scope_id: i64,
    process_wide: bool,
}

static PROCESS_RANGES: Mutex<Option<HashMap<u64, ProcessRange>>> = Mutex::new(None);

fn label_of(l: Option<&str>) -> Arc<str> {
    Arc::from(l.unwrap_or(""))
}

/// Records the span of a range closed by `call` on the calling thread's state, or counts an
/// unmatched pop/stop when there was no such range.
fn close_range(s: &mut ThreadState, range: Option<ProcessRange>, call: &MarkerCall<'_>) {
    if let Some(r) = &range {
        crate::window::on_range_closed(&r.label);
    }
    match range {
        Some(r) => s.keep_span(MarkerSpan {
            label: r.label,
            thread_id: r.thread_id,
            open_correlation_id: r.correlation_id,
            close_correlation_id: call.correlation_id,
            start_ns: r.start_ns,
            end_ns: call.timestamp_ns,
            instant: false,
            scope_id: r.scope_id,
            parent_scope_id: r.parent_scope_id,
            process_wide: r.process_wide,
            open_at_end: false,
        }),
        None => s.unmatched_pops += 1,
    }
}

/// Applies one marker callback to the calling thread's state (only in the phase its
/// operation acts at, `MarkerOp::acts_at_enter`).
pub fn on_marker(call: &MarkerCall<'_>) {
    if call.op.acts_at_enter() != Some(call.enter) {
        return;
    }
    match call.op {
        MarkerOp::Mark => {
            with_current(call.thread_id, |s| {
                let label = s.intern_label(call.label);
                s.keep_span(MarkerSpan {
                    label,
                    thread_id: call.thread_id,
                    open_correlation_id: call.correlation_id,
                    close_correlation_id: call.correlation_id,
                    start_ns: call.timestamp_ns,
                    end_ns: call.timestamp_ns,
                    instant: true,
                    scope_id: 0,
                    parent_scope_id: 0,
                    process_wide: false,
                    open_at_end: false,
                });
            });
        }
        MarkerOp::RangePush => {
            with_current(call.thread_id, |s| {
                let label = s.intern_label(call.label);
                s.push_range(OpenRange {
                    label,
                    correlation_id: call.correlation_id,
                    start_ns: call.timestamp_ns,
                    scope_id: 0,
                    parent_scope_id: 0,
                })
            });
        }
        MarkerOp::RangePop => {
            with_current(call.thread_id, |s| {
                let span = s.pop_range().map(|r| ProcessRange {
                    label: r.label,
                    thread_id: call.thread_id,
                    correlation_id: r.correlation_id,
                    start_ns: r.start_ns,
                    scope_id: r.scope_id,
                    parent_scope_id: r.parent_scope_id,
                    process_wide: false,
                });
                close_range(s, span, call);
            });
        }
        MarkerOp::RangeStart => {
            let mut g = lock(&PROCESS_RANGES);
            g.get_or_insert_with(HashMap::new).insert(
                call.start_retval,
                ProcessRange {
                    label: label_of(call.label),
                    thread_id: call.thread_id,
                    correlation_id: call.correlation_id,
                    start_ns: call.timestamp_ns,
                    scope_id: 0,
                    parent_scope_id: 0,
                    process_wide: true,
                },
            );
        }
        MarkerOp::RangeStop => {
            let r = lock(&PROCESS_RANGES)
                .as_mut()
                .and_then(|m| m.remove(&call.stop_id));
            with_current(call.thread_id, |s| close_range(s, r, call));
        }
        MarkerOp::Other => {}
    }
}

/// Start/stop ranges never stopped, closed at `end_ns` (sorted by id for determinism).
pub fn drain_process_ranges(end_ns: u64, keep_open: bool) -> (Vec<MarkerSpan>, u64) {
    let mut map = if keep_open {
        lock(&PROCESS_RANGES).clone().unwrap_or_default()
    } else {
        lock(&PROCESS_RANGES).take().unwrap_or_default()
    };
    let mut ids: Vec<u64> = map.keys().copied().collect();
    ids.sort_unstable();
    let spans: Vec<MarkerSpan> = ids
        .into_iter()
        .filter_map(|id| map.remove(&id))
        .map(|r| MarkerSpan {
            label: r.label,
            thread_id: r.thread_id,
            open_correlation_id: r.correlation_id,
            close_correlation_id: 0,
            start_ns: r.start_ns,
            end_ns: end_ns.max(r.start_ns),
            instant: false,
            scope_id: 0,
            parent_scope_id: 0,
            process_wide: true,
            open_at_end: true,
        })
        .collect();
    let n = spans.len() as u64;
    (spans, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::drain_all;

    fn call(
        op: MarkerOp,
        enter: bool,
        tid: u64,
        corr: u64,
        ts: u64,
        label: Option<&str>,
    ) -> MarkerCall<'_> {
        MarkerCall {
            op,
            enter,
            thread_id: tid,
            correlation_id: corr,
            timestamp_ns: ts,
            label,
            stop_id: 0,
            start_retval: 0,
        }
    }

    /// The only test touching the process-wide registries (drain_all empties them).
    #[test]
    fn ranges_pair_per_thread_and_across_threads() {
        std::thread::spawn(|| {
            // Each callback's other phase is not acted on (`MarkerOp::acts_at_enter`): these
            // leave no range, mark, pop or stop behind.
            for (op, enter) in [
                (MarkerOp::Mark, false),
                (MarkerOp::RangePush, false),
                (MarkerOp::RangePop, true),
                (MarkerOp::RangeStart, true),
                (MarkerOp::RangeStop, false),
                (MarkerOp::Other, true),
                (MarkerOp::Other, false),
            ] {
                let mut c = call(op, enter, 11, 90, 90, Some("other phase"));
                (c.start_retval, c.stop_id) = (42, 42);
                on_marker(&c);
            }
            on_marker(&call(MarkerOp::RangePush, true, 11, 1, 100, Some("outer")));
            on_marker(&call(MarkerOp::RangePush, true, 11, 2, 110, Some("inner")));
            // The annotation at a HIP call now is the whole stack.
            crate::capture::with_current(11, |t| t.capture_at_api_enter(3));
            on_marker(&call(MarkerOp::RangePop, false, 11, 4, 150, None));
            on_marker(&call(MarkerOp::Mark, true, 11, 5, 160, Some("tick")));
            let mut start = call(MarkerOp::RangeStart, false, 11, 6, 170, Some("job"));
            start.start_retval = 42;
            on_marker(&start);
            // `outer` stays open until the end.
        })
        .join()
        .unwrap();
        std::thread::spawn(|| {
            let mut stop = call(MarkerOp::RangeStop, true, 12, 7, 300, None);
            stop.stop_id = 42;
            on_marker(&stop);
            on_marker(&call(MarkerOp::RangePop, false, 12, 8, 310, None)); // nothing pushed
        })
        .join()
        .unwrap();
        let d = drain_all(1000, false);
        let mut spans: Vec<(String, u64, u64, u64, u64, bool)> = d
            .markers
            .iter()
            .map(|m| {
                (
                    m.label.to_string(),
                    m.thread_id,
                    m.start_ns,
                    m.end_ns,
                    m.close_correlation_id,
                    m.instant,
                )
            })
            .collect();
        spans.sort();
        assert_eq!(
            spans,
            [
                ("inner".into(), 11, 110, 150, 4, false),
                ("job".into(), 11, 170, 300, 7, false),
                ("outer".into(), 11, 100, 1000, 0, false),
                ("tick".into(), 11, 160, 160, 5, true),
            ]
        );
        assert_eq!((d.unmatched_pops, d.ranges_left_open), (1, 1));
        // Scope ids: each push its own correlation id, with its parent; start/stop ranges none.
        let by_label = |l: &str| d.markers.iter().find(|m| &*m.label == l).unwrap();
        let ids = |l: &str| {
            let m = by_label(l);
            (m.scope_id, m.parent_scope_id, m.process_wide, m.open_at_end)
        };
        assert_eq!(ids("outer"), (1, 0, false, true));
        assert_eq!(ids("inner"), (2, 1, false, false));
        assert_eq!(ids("job"), (0, 0, true, false));
        assert_eq!(ids("tick"), (0, 0, false, false));
        assert_eq!(d.scopes, [(3, 2)], "innermost at the HIP call");
        // The whole stack at the call is that scope's chain in the spans.
        let mut stacks = crate::model::annotations::ScopeStacks::new(&d.markers, None);
        let id = stacks.annotation(2).unwrap();
        let a = &stacks.table()[id];
        let stack: Vec<&str> = a.stack.iter().map(|s| &**s).collect();
        assert_eq!((a.scope_range_id, stack), (2, vec!["outer", "inner"]));
    }
}
