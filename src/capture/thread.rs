//! The capture state of one application thread.

use std::sync::Arc;

use crate::fastmap::HashMap;

use smallvec::SmallVec;

use super::markers::label_text;
use crate::model::events::{
    ApiRecord, CallFact, CopyPtrs, GraphLaunchFact, MarkerSpan, MemFact, SyncFact,
};
use crate::sdk::payload::Message;
use crate::store::chunked::{THREAD_CHUNK, THREAD_FACT_CHUNK};
use crate::store::{ChunkedVec, PackedVec};

/// A roctx push/pop range still open on this thread.
#[derive(Debug, Clone)]
pub struct OpenRange {
    pub label: Arc<str>,
    pub correlation_id: u64,
    pub start_ns: u64,
    /// Scope range id of this push (set by `push_range`).
    pub scope_id: i64,
    /// Scope id of the range it was pushed inside (0 = outermost).
    pub parent_scope_id: i64,
}

/// A roctx push/pop range or mark as its thread holds it until the drain: the thread is the
/// store's, and a range's scope id is its push's correlation id, so neither is kept (64 B where
/// a `MarkerSpan` is 80; a program that ranges every call holds one per few records). Ranges
/// that do not fit (a start/stop range, one whose push had no usable id) are kept whole.
#[derive(Debug, Clone)]
pub struct ThreadSpan {
    pub label: Arc<str>,
    pub open_correlation_id: u64,
    pub close_correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub parent_scope_id: i64,
    /// A mark (no scope), else a push/pop range.
    pub instant: bool,
}

impl ThreadSpan {
    pub(super) fn into_span(self, thread_id: u64) -> MarkerSpan {
        let ThreadSpan {
            label,
            open_correlation_id,
            close_correlation_id,
            start_ns,
            end_ns,
            parent_scope_id,
            instant,
        } = self;
        MarkerSpan {
            label,
            thread_id,
            open_correlation_id,
            close_correlation_id,
            start_ns,
            end_ns,
            instant,
            scope_id: if instant {
                0
            } else {
                open_correlation_id as i64
            },
            parent_scope_id,
            process_wide: false,
            open_at_end: false,
        }
    }
}

/// Stack depth kept inline: deeper stacks (rare) spill to the heap.
const INLINE_DEPTH: usize = 8;

/// Labels remembered per thread: a loop's few range names. Searched by comparing bytes, so it
/// stays short.
const RECENT_LABELS: usize = 16;

/// Ids handed out when a push has no usable correlation id (never seen from the runtime; kept
/// so an id is still fresh and non-zero) start far above any correlation id a process reaches,
/// each thread in a block of its own.
const FALLBACK_SCOPE_BASE: i64 = 1 << 62;
/// Fallback ids one thread can hand out before running into the next thread's block.
const FALLBACK_BLOCK: i64 = 1 << 40;

#[derive(Debug, Default)]
pub struct ThreadState {
    /// HIP device the thread works on (`hipSetDevice`; 0 until set, as in HIP).
    pub current_device: i32,
    /// Streams whose device this thread already looked up …
    pub stream_devices: HashMap<u64, (i32, u64)>,
    /// … valid while no stream has been created since (`devices::device_of`). Streams the
    /// tool never saw created are cached too (as unknown), so a program that launches on
    /// them does not take the process-wide lock on every call.
    pub stream_generation: u64,
    /// The last stream looked up and its entry, valid as `stream_devices` is.
    pub last_stream: Option<(u64, (i32, u64))>,
    /// Lookups that went to the process-wide stream map (for tests and the debug line).
    pub global_stream_lookups: u64,
    /// Device and stream of each launch/copy this thread made.
    pub calls: PackedVec<CallFact, THREAD_FACT_CHUNK>,
    /// The records of this thread's HIP calls the callbacks built (`ROCPROF_XPLANE_HIP_API_RECORDS`):
    /// packed as the buffer's are, a loop's calls sharing their thread and operation.
    pub api: PackedVec<ApiRecord, THREAD_CHUNK>,
    /// Arguments of each synchronization call this thread made.
    pub syncs: PackedVec<SyncFact, THREAD_CHUNK>,
    /// Allocations and frees this thread made.
    pub memory: Vec<MemFact>,
    /// The device work each graph launch this thread made promised.
    pub graph_launches: Vec<GraphLaunchFact>,
    /// The pointers of each copy this thread made.
    pub copy_ptrs: ChunkedVec<CopyPtrs, THREAD_CHUNK>,
    /// Thread id as reported by the runtime (set on first use).
    pub thread_id: u64,
    /// Open push/pop ranges, outermost first: this is the annotation stack. Changed only by
    /// [`Self::push_range`] and [`Self::pop_range`], which keep `top_scope`.
    pub(crate) stack: SmallVec<[OpenRange; INLINE_DEPTH]>,
    /// The innermost open range's scope id, 0 when none is open (scope ids are never 0): what
    /// a call's entry reads, without the stack's inline-or-heap choice.
    top_scope: i64,
    /// Labels this thread pushed lately, so that a label pushed again is the same `Arc`
    /// (no allocation per push; the join then shares label lists by pointer).
    recent_labels: SmallVec<[Arc<str>; RECENT_LABELS]>,
    /// Where the next new label goes in `recent_labels` once it is full (round robin).
    next_label: usize,
    /// The innermost open range's scope id at each API entry, keyed by internal correlation
    /// id: the stack is that scope's chain of parents, which the spans record, so the join
    /// rebuilds it once per scope (`model::annotations::ScopeStacks`) and a push allocates
    /// nothing here (a snapshot per push would hold 64 B a range to the cut).
    pub scopes: ChunkedVec<(u64, i64), THREAD_CHUNK>,
    /// This thread's closed ranges and its marks …
    pub spans: ChunkedVec<ThreadSpan, THREAD_CHUNK>,
    /// … and those that do not fit a `ThreadSpan` (rare).
    pub other_spans: Vec<MarkerSpan>,
    /// Pops with no matching push on this thread.
    pub unmatched_pops: u64,
    /// The next fallback scope id of this thread (0: its block is not chosen yet).
    next_fallback_scope: i64,
}

impl ThreadState {
    /// This thread is the `n`-th registered: its fallback scope ids come from block `n`.
    pub fn set_fallback_block(&mut self, n: u64) {
        let n = i64::try_from(n).unwrap_or(0) % ((i64::MAX - FALLBACK_SCOPE_BASE) / FALLBACK_BLOCK);
        self.next_fallback_scope = FALLBACK_SCOPE_BASE + n * FALLBACK_BLOCK;
    }

    /// The scope range id of a push: its own internal correlation id. The runtime hands those
    /// out once per call, process-wide, in call order and never 0 — so an id is fresh per push
    /// (a repeated invocation gets a new one), needs no counter of ours on the application
    /// thread, names the `roctxRangePushA` call it came from, and is the same run after run
    /// for the same call sequence.
    #[inline(always)]
    pub fn scope_id_for(&mut self, correlation_id: u64) -> i64 {
        match i64::try_from(correlation_id) {
            Ok(id) if id > 0 => id,
            _ => {
                if self.next_fallback_scope == 0 {
                    self.next_fallback_scope = FALLBACK_SCOPE_BASE;
                }
                let id = self.next_fallback_scope;
                self.next_fallback_scope += 1;
                id
            }
        }
    }

    /// Pushes a range, giving it its scope id and its parent's (the child→parent pair is
    /// recorded once, with the range's span when it closes or at the end).
    #[inline(always)]
    pub fn push_range(&mut self, mut r: OpenRange) {
        r.scope_id = self.scope_id_for(r.correlation_id);
        r.parent_scope_id = self.stack.last().map_or(0, |p| p.scope_id);
        self.top_scope = r.scope_id;
        self.stack.push(r);
    }

    #[inline(always)]
    pub fn pop_range(&mut self) -> Option<OpenRange> {
        let r = self.stack.pop();
        self.top_scope = self.stack.last().map_or(0, |p| p.scope_id);
        r
    }

    /// This state, its thread id set to `thread_id` at its first use (the runtime's id for
    /// the thread, the same for every call of it).
    #[inline(always)]
    pub(crate) fn adopting(&mut self, thread_id: u64) -> &mut Self {
        if self.thread_id == 0 {
            self.thread_id = thread_id;
        }
        self
    }

    /// The innermost open range's scope id, if a range is open.
    #[inline(always)]
    pub fn top_scope(&self) -> Option<i64> {
        (self.top_scope != 0).then_some(self.top_scope)
    }

    /// The text of `label`, a roctx message's bytes (empty when absent), as an `Arc` this
    /// thread already holds for the same bytes, else a new one ([`label_text`]), remembered.
    /// Compared by bytes, before any UTF-8 check: every label remembered is valid UTF-8, so
    /// bytes equal to one are valid and are its text; bytes that are not valid UTF-8 equal
    /// none (their remembered text has U+FFFD where they have invalid bytes), so they are
    /// converted again each time.
    #[inline]
    pub fn intern_label(&mut self, label: Option<&[u8]>) -> Arc<str> {
        if let Some(l) = self.known_label(label) {
            return l.clone();
        }
        let l: Arc<str> = Arc::from(label_text(label.unwrap_or(b"")));
        if self.recent_labels.len() < RECENT_LABELS {
            self.recent_labels.push(l.clone());
        } else {
            self.recent_labels[self.next_label] = l.clone();
            self.next_label = (self.next_label + 1) % RECENT_LABELS;
        }
        l
    }

    /// The `Arc` this thread already holds for the text of `label` ([`Self::intern_label`]),
    /// when it holds one: byte compares, no allocation. (The fast paths, which have the
    /// message unmeasured, use [`Self::known_message`].)
    #[inline]
    fn known_label(&self, label: Option<&[u8]>) -> Option<&Arc<str>> {
        let bytes = label.unwrap_or(b"");
        self.recent_labels.iter().find(|l| l.as_bytes() == bytes)
    }

    /// The `Arc` this thread already holds for the text of `label`, a roctx message read in
    /// place ([`Message::is`]: no `strlen`, no allocation), when it holds one; an absent message
    /// is the empty label ([`Self::intern_label`]).
    #[inline(always)]
    fn known_message(&self, label: Option<Message<'_>>) -> Option<&Arc<str>> {
        match label {
            Some(m) => self.recent_labels.iter().find(|l| m.is(l.as_bytes())),
            None => self.recent_labels.iter().find(|l| l.is_empty()),
        }
    }

    /// [`Self::intern_label`] and [`Self::push_range`] of a push when its label is one the
    /// thread holds and the stack has room: no allocation, nothing that can panic. False,
    /// having changed nothing, otherwise.
    #[inline(always)]
    pub(crate) fn try_push_known(
        &mut self,
        label: Option<Message<'_>>,
        correlation_id: u64,
        start_ns: u64,
    ) -> bool {
        if self.stack.len() >= self.stack.capacity() {
            return false;
        }
        let Some(label) = self.known_message(label) else {
            return false;
        };
        let label = label.clone();
        self.push_range(OpenRange {
            label,
            correlation_id,
            start_ns,
            scope_id: 0,
            parent_scope_id: 0,
        });
        true
    }

    /// A pop on thread `thread_id` at `end_ns` (correlation id `close_correlation_id`), when
    /// the span of the range it closes is kept compact in the room its chunk has:
    /// [`Self::pop_range`] and that span returned (`Ok(Some)`), for the caller to
    /// [`Self::keep_in_room`] next; or an unmatched pop counted (`Ok(None)`). No allocation,
    /// nothing that can panic. `Err`, having changed nothing, otherwise.
    #[inline(always)]
    pub(crate) fn try_pop_compact(
        &mut self,
        thread_id: u64,
        close_correlation_id: u64,
        end_ns: u64,
    ) -> Result<Option<ThreadSpan>, ()> {
        let Some(top) = self.stack.last() else {
            self.unmatched_pops += 1;
            return Ok(None);
        };
        let compact = self.kept_compact(
            thread_id,
            false,
            top.scope_id,
            top.parent_scope_id,
            top.correlation_id,
        );
        if !compact || !self.spans.has_room() {
            return Err(());
        }
        let Some(r) = self.pop_range() else {
            return Err(());
        };
        Ok(Some(ThreadSpan {
            label: r.label,
            open_correlation_id: r.correlation_id,
            close_correlation_id,
            start_ns: r.start_ns,
            end_ns,
            parent_scope_id: r.parent_scope_id,
            instant: false,
        }))
    }

    /// A mark on thread `thread_id` at `ns` as its compact span, for the caller to
    /// [`Self::keep_in_room`], when its label is one the thread holds and the spans' chunk has
    /// room: no allocation, nothing that can panic. `None`, having changed nothing, otherwise.
    #[inline(always)]
    pub(crate) fn try_mark_known(
        &mut self,
        label: Option<Message<'_>>,
        thread_id: u64,
        correlation_id: u64,
        ns: u64,
    ) -> Option<ThreadSpan> {
        if !self.kept_compact(thread_id, true, 0, 0, correlation_id) || !self.spans.has_room() {
            return None;
        }
        let label = self.known_message(label)?.clone();
        Some(ThreadSpan {
            label,
            open_correlation_id: correlation_id,
            close_correlation_id: correlation_id,
            start_ns: ns,
            end_ns: ns,
            parent_scope_id: 0,
            instant: true,
        })
    }

    /// Keeps a span [`Self::try_pop_compact`] or [`Self::try_mark_known`] returned, in the
    /// room they found: one push site for both, so the push is written in line once.
    #[inline(always)]
    pub(crate) fn keep_in_room(&mut self, span: ThreadSpan) {
        self.spans.push(span);
    }

    /// Whether a span of thread `thread_id`, neither process-wide nor open at the end, is kept
    /// compact ([`Self::keep_span`]): this thread's, its scope implied by its ids (a range's
    /// scope id is its push's correlation id; a mark has no scope and no parent). The one rule
    /// for the guarded path and the ones before the guard.
    #[inline(always)]
    fn kept_compact(
        &self,
        thread_id: u64,
        instant: bool,
        scope_id: i64,
        parent_scope_id: i64,
        open_correlation_id: u64,
    ) -> bool {
        let scope_implied = if instant {
            scope_id == 0 && parent_scope_id == 0
        } else {
            scope_id > 0 && scope_id as u64 == open_correlation_id
        };
        thread_id == self.thread_id && scope_implied
    }

    /// Keeps a closed range or a mark: compact when it is this thread's push/pop range (its
    /// scope id its push's correlation id) or a mark.
    #[inline]
    pub fn keep_span(&mut self, m: MarkerSpan) {
        let compact = !m.process_wide
            && !m.open_at_end
            && self.kept_compact(
                m.thread_id,
                m.instant,
                m.scope_id,
                m.parent_scope_id,
                m.open_correlation_id,
            );
        if !compact {
            self.other_spans.push(m);
            return;
        }
        self.spans.push(ThreadSpan {
            label: m.label,
            open_correlation_id: m.open_correlation_id,
            close_correlation_id: m.close_correlation_id,
            start_ns: m.start_ns,
            end_ns: m.end_ns,
            parent_scope_id: m.parent_scope_id,
            instant: m.instant,
        });
    }

    /// Records the annotation context of an API call at its entry: the innermost open
    /// range, if any.
    #[inline]
    pub fn capture_at_api_enter(&mut self, correlation_id: u64) {
        if let Some(scope) = self.top_scope() {
            self.scopes.push((correlation_id, scope));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(label: &str, corr: u64) -> OpenRange {
        OpenRange {
            label: Arc::from(label),
            correlation_id: corr,
            start_ns: corr * 10,
            scope_id: 0,
            parent_scope_id: 0,
        }
    }

    /// A label pushed again is the same `Arc` (the join shares label lists by pointer); a
    /// different label a new one.
    #[test]
    fn repeated_labels_are_one_arc() {
        let mut s = ThreadState::default();
        let a = s.intern_label(Some(b"step"));
        let b = s.intern_label(Some(b"step"));
        let c = s.intern_label(Some(b"eval"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&b, &c));
        assert!(Arc::ptr_eq(
            &s.intern_label(None),
            &s.intern_label(Some(b""))
        ));
        // More labels than remembered: old ones are replaced, texts still right.
        let many: Vec<Arc<str>> = (0..40)
            .map(|i| s.intern_label(Some(format!("l{i}").as_bytes())))
            .collect();
        assert!(many
            .iter()
            .enumerate()
            .all(|(i, l)| **l == *format!("l{i}")));
        assert_eq!(s.recent_labels.len(), RECENT_LABELS);
    }

    /// A label is known by its bytes, never by where they lie: a buffer the application
    /// rewrites between two pushes gives each push its own text.
    #[test]
    fn a_label_rewritten_in_place_is_read_again() {
        let mut s = ThreadState::default();
        let mut buf = *b"step";
        let a = s.intern_label(Some(&buf));
        buf[0] = b'S';
        let b = s.intern_label(Some(&buf));
        assert_eq!((&*a, &*b), ("step", "Step"));
        buf[0] = 0xff;
        assert_eq!(&*s.intern_label(Some(&buf)), "\u{fffd}tep");
    }

    /// Bytes that are not UTF-8 become text with U+FFFD each time they come (they never equal
    /// a remembered label's bytes); valid bytes equal to that text are that text.
    #[test]
    fn invalid_utf8_labels_are_converted_every_time() {
        let mut s = ThreadState::default();
        let bad: &[u8] = &[b'a', 0xff, 0xfe, b'#', 0xc3, b'z'];
        let want = "a\u{fffd}\u{fffd}#\u{fffd}z";
        let first = s.intern_label(Some(bad));
        assert_eq!(&*first, want);
        assert_eq!(&*s.intern_label(Some(bad)), want);
        let same_text = s.intern_label(Some(want.as_bytes()));
        assert!(
            Arc::ptr_eq(&first, &same_text),
            "the text's own bytes find it"
        );
        assert_eq!(&*s.intern_label(Some(&bad[..2])), "a\u{fffd}");
    }

    /// A call captures the innermost open range's scope id (the push's correlation id), and
    /// nothing outside every range; the stack itself is rebuilt by the join from the spans.
    #[test]
    fn a_call_captures_the_innermost_scope() {
        let mut s = ThreadState::default();
        s.capture_at_api_enter(1);
        assert!(s.scopes.is_empty(), "nothing pushed, nothing captured");
        s.push_range(range("step", 2));
        s.push_range(range("fwd", 3));
        s.capture_at_api_enter(4);
        s.capture_at_api_enter(5);
        s.pop_range();
        s.capture_at_api_enter(6);
        let got: Vec<(u64, i64)> = s.scopes.iter().copied().collect();
        assert_eq!(got, [(4, 3), (5, 3), (6, 2)]);
        assert_eq!(
            (s.stack[0].scope_id, s.stack[0].parent_scope_id),
            (2, 0),
            "outermost push has no parent"
        );
        s.pop_range();
        s.capture_at_api_enter(7);
        assert_eq!(s.scopes.len(), 3, "nothing open at 7: nothing captured");
    }

    /// Every span kept comes back whole at the drain, compact or not; the compact form is
    /// 64 B (a `MarkerSpan` is 80).
    #[test]
    fn spans_kept_compact_come_back_whole() {
        assert_eq!(std::mem::size_of::<ThreadSpan>(), 64);
        let mut s = ThreadState {
            thread_id: 7,
            ..ThreadState::default()
        };
        let range = |open: u64, scope: i64, parent: i64| MarkerSpan {
            label: Arc::from("r"),
            thread_id: 7,
            open_correlation_id: open,
            close_correlation_id: open + 5,
            start_ns: open * 10,
            end_ns: open * 10 + 50,
            scope_id: scope,
            parent_scope_id: parent,
            ..MarkerSpan::default()
        };
        let kept = vec![
            range(10, 10, 0),
            range(11, 11, 10),
            MarkerSpan {
                instant: true,
                ..range(12, 0, 0)
            },
            // Not compact: a fallback scope id, another thread's, a start/stop range.
            range(0, 1 << 62, 0),
            MarkerSpan {
                thread_id: 8,
                ..range(13, 13, 0)
            },
            MarkerSpan {
                process_wide: true,
                ..range(14, 0, 0)
            },
        ];
        for m in kept.clone() {
            s.keep_span(m);
        }
        assert_eq!((s.spans.len(), s.other_spans.len()), (3, 3));
        let mut back: Vec<MarkerSpan> = Vec::new();
        s.spans.drain_map_into(&mut back, 0, |m| m.into_span(7));
        back.append(&mut s.other_spans);
        assert_eq!(back, kept);
    }

    #[test]
    fn nested_pushes_get_fresh_ids_and_their_parent() {
        let mut s = ThreadState::default();
        for (i, corr) in [10u64, 11, 12, 13, 14].into_iter().enumerate() {
            s.push_range(range(&format!("level {i}"), corr));
        }
        // Deeper than the inline capacity: spills, still one id per level.
        for corr in 20..30 {
            s.push_range(range("deep", corr));
        }
        let pairs: Vec<(i64, i64)> = s
            .stack
            .iter()
            .map(|r| (r.scope_id, r.parent_scope_id))
            .collect();
        assert_eq!(pairs[0], (10, 0));
        assert_eq!(pairs[1], (11, 10));
        assert_eq!(pairs[14], (29, 28));
        while s.pop_range().is_some() {}
        // The same label pushed again is a new invocation with a new id.
        s.push_range(range("level 0", 40));
        s.capture_at_api_enter(41);
        assert_eq!(s.scopes.last(), Some(&(41, 40)));
        // A push without a correlation id still gets a fresh non-zero id.
        s.push_range(range("no id", 0));
        let (a, b) = (s.stack[1].scope_id, s.scope_id_for(0));
        assert!(a >= 1 << 62 && b > a, "{a} {b}");
    }
}
