//! roctx ranges and marks from `MARKER_CORE_API` callbacks.
//!
//! The buffered marker records carry no text, so labels come from here. Push/pop ranges nest per
//! thread (they are the annotation stack); start/stop ranges are process-wide and may end on
//! another thread, so they live in one map keyed by range id (rare calls: a lock is fine).

use std::borrow::Cow;
use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::local::Local;
use super::thread::{OpenRange, ThreadState};
use super::threads::Threads;
use crate::model::events::MarkerSpan;
use crate::sdk::payload::Message;
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
    /// timestamp taken (but for a start's ENTER, whose time alone is kept).
    /// A mark and a push act at ENTER; a pop and a stop at EXIT, so the call itself still sees
    /// the range it closes, which ends at its exit as the call's buffered record does; a start
    /// at EXIT, where its return value is the range's id (its range starts at the call's
    /// ENTER, kept on the thread's slot: `sdk::payload::marker_now`).
    pub fn acts_at_enter(self) -> Option<bool> {
        match self {
            MarkerOp::Mark | MarkerOp::RangePush => Some(true),
            MarkerOp::RangePop | MarkerOp::RangeStart | MarkerOp::RangeStop => Some(false),
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
    /// Message argument (mark, push, start), read in place: its bytes as the caller passed
    /// them, not checked as UTF-8 yet ([`label_text`] makes them text).
    pub label: Option<Message<'a>>,
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

/// The roctx range whose N-th closing cuts a window (`ROCPROF_XPLANE_WINDOW_RANGE`).
struct RangeRule {
    name: Box<str>,
    every: NonZeroU64,
}

/// What roctx callbacks keep process-wide: the start/stop ranges open now (by range id), and
/// the range-end rule with its flag.
#[derive(Default)]
pub struct Markers {
    ranges: Mutex<HashMap<u64, ProcessRange>>,
    rule: OnceLock<RangeRule>,
    /// Closings of the rule's range so far.
    closed: AtomicU64,
    /// The rule's range closed for the N-th time since the coordinator last looked.
    range_end: AtomicBool,
}

impl Markers {
    /// Cuts a window at every `every`-th closing of the roctx range `name`.
    pub fn set_range_rule(&self, name: &str, every: u64) {
        let _ = self.rule.set(RangeRule {
            name: name.into(),
            every: NonZeroU64::new(every).unwrap_or(NonZeroU64::MIN),
        });
    }

    /// A roctx range named `label` closed on an application thread: with a range rule, every
    /// N-th such closing raises the range-end flag (one string compare and, on a match, one
    /// atomic add; the cut itself runs on the coordinator's thread). Nothing that can panic.
    #[inline(always)]
    fn on_range_closed(&self, label: &str) {
        let Some(rule) = self.rule.get() else {
            return;
        };
        if label == &*rule.name
            && self.closed.fetch_add(1, Ordering::Relaxed).wrapping_add(1) % rule.every == 0
        {
            self.range_end.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the rule's range ended since the last call.
    pub fn take_range_end(&self) -> bool {
        self.range_end.swap(false, Ordering::Relaxed)
    }
}

fn label_of(l: Option<&[u8]>) -> Arc<str> {
    Arc::from(label_text(l.unwrap_or(b"")))
}

/// A roctx message as text. Applications pass arbitrary bytes: invalid UTF-8 becomes U+FFFD
/// (never an error, never a panic), everything else is kept as is. Valid UTF-8 (nearly every
/// message) is borrowed after one check; the lossy conversion, a walk by chunks, only for the
/// rest.
pub fn label_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Records the span of a range closed by `call` on the calling thread's state, or counts an
/// unmatched pop/stop when there was no such range.
fn close_range(
    m: &Markers,
    s: &mut ThreadState,
    range: Option<ProcessRange>,
    call: &MarkerCall<'_>,
) {
    if let Some(r) = &range {
        m.on_range_closed(&r.label);
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
impl Markers {
    /// Applies one marker callback to the calling thread's state in `threads` (only in the phase
    /// its operation acts at, `MarkerOp::acts_at_enter`).
    pub fn on_marker(&self, threads: &Threads, call: &MarkerCall<'_>) {
        self.on_marker_on(threads, super::local::slot(), call);
    }

    /// [`Self::on_marker`] for a push, a pop or a mark that takes no allocation, no lock and no
    /// wait (nearly every one: a label the thread already holds, room on its stack or in its
    /// spans' chunk, its state not held by a drain): loads, compares and stores on this
    /// thread's slot `l` and state, nothing that can panic, so a callback runs it before its
    /// panic guard. False, having changed nothing, for any other call: [`Self::on_marker_on`]
    /// takes it. `call` is one its operation acts at ([`MarkerOp::acts_at_enter`]).
    #[inline(always)]
    pub(crate) fn on_marker_unguarded(
        &self,
        threads: &Threads,
        l: &Local,
        call: &MarkerCall<'_>,
    ) -> bool {
        let op = call.op;
        if !matches!(
            op,
            MarkerOp::RangePush | MarkerOp::RangePop | MarkerOp::Mark
        ) {
            return false;
        }
        let Some(mut s) = threads.try_borrow_current_on(l, call.thread_id) else {
            return false;
        };
        let span = match op {
            MarkerOp::RangePush => {
                return s.try_push_known(call.label, call.correlation_id, call.timestamp_ns)
            }
            MarkerOp::RangePop => {
                match s.try_pop_compact(call.thread_id, call.correlation_id, call.timestamp_ns) {
                    Ok(Some(span)) => {
                        self.on_range_closed(&span.label);
                        span
                    }
                    Ok(None) => return true,
                    Err(()) => return false,
                }
            }
            _ => match s.try_mark_known(
                call.label,
                call.thread_id,
                call.correlation_id,
                call.timestamp_ns,
            ) {
                Some(span) => span,
                None => return false,
            },
        };
        s.keep_in_room(span);
        true
    }

    /// [`Self::on_marker`], given this thread's slot.
    pub(crate) fn on_marker_on(&self, threads: &Threads, l: &Local, call: &MarkerCall<'_>) {
        let (m, c) = (self, threads);
        if call.op.acts_at_enter() != Some(call.enter) {
            return;
        }
        match call.op {
            MarkerOp::Mark => {
                c.with_current_on(l, call.thread_id, |s| {
                    let label = s.intern_label(call.label.map(Message::bytes));
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
                c.with_current_on(l, call.thread_id, |s| {
                    let label = s.intern_label(call.label.map(Message::bytes));
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
                c.with_current_on(l, call.thread_id, |s| {
                    let span = s.pop_range().map(|r| ProcessRange {
                        label: r.label,
                        thread_id: call.thread_id,
                        correlation_id: r.correlation_id,
                        start_ns: r.start_ns,
                        scope_id: r.scope_id,
                        parent_scope_id: r.parent_scope_id,
                        process_wide: false,
                    });
                    close_range(m, s, span, call);
                });
            }
            MarkerOp::RangeStart => {
                lock(&m.ranges).insert(
                    call.start_retval,
                    ProcessRange {
                        label: label_of(call.label.map(Message::bytes)),
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
                let r = lock(&m.ranges).remove(&call.stop_id);
                c.with_current_on(l, call.thread_id, |s| close_range(m, s, r, call));
            }
            MarkerOp::Other => {}
        }
    }
}

impl Markers {
    /// Start/stop ranges never stopped, closed at `end_ns` (sorted by id for determinism), and
    /// how many; with `keep_open` they stay open for the next window.
    pub fn drain_open(&self, end_ns: u64, keep_open: bool) -> (Vec<MarkerSpan>, u64) {
        let map = if keep_open {
            lock(&self.ranges).clone()
        } else {
            std::mem::take(&mut *lock(&self.ranges))
        };
        spans_left_open(map, end_ns)
    }
}

/// The spans of the start/stop ranges in `map`, closed at `end_ns`.
fn spans_left_open(mut map: HashMap<u64, ProcessRange>, end_ns: u64) -> (Vec<MarkerSpan>, u64) {
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
