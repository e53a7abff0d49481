//! Per-thread capture state and its registry.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use std::collections::HashMap;

use smallvec::SmallVec;

use crate::model::events::{CallFact, CopyPtrs, MarkerSpan, MemFact, SyncFact};
use crate::model::Annotation;
use crate::store::chunked::THREAD_CHUNK;
use crate::store::sinks::lock;
use crate::store::{ChunkedVec, PackedVec, Sinks};

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

/// Stack depth kept inline: deeper stacks (rare) spill to the heap.
const INLINE_DEPTH: usize = 8;

/// Labels remembered per thread: a loop's few range names. Searched by comparing text, so it
/// stays short.
const RECENT_LABELS: usize = 16;

/// Ids handed out when a push has no usable correlation id (never seen from the runtime; kept so
/// an id is still fresh and non-zero): far above any correlation id a process reaches.
static FALLBACK_SCOPE_ID: AtomicI64 = AtomicI64::new(1 << 62);

/// The scope range id of a push: its own internal correlation id. The runtime hands those out
/// once per call, process-wide, in call order and never 0 — so an id is fresh per push (a
/// repeated invocation gets a new one), needs no counter of ours on the application thread,
/// names the `roctxRangePushA` call it came from, and is the same run after run for the same
/// call sequence (XLA's `tid << 48 | counter` ids are fresh too but differ per run).
pub fn scope_id_for(correlation_id: u64) -> i64 {
    match i64::try_from(correlation_id) {
        Ok(id) if id > 0 => id,
        _ => FALLBACK_SCOPE_ID.fetch_add(1, Ordering::Relaxed),
    }
}

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
    /// Lookups that went to the process-wide stream map (for tests and the debug line).
    pub global_stream_lookups: u64,
    /// Device and stream of each launch/copy this thread made.
    pub calls: PackedVec<CallFact, THREAD_CHUNK>,
    /// Arguments of each synchronization call this thread made.
    pub syncs: PackedVec<SyncFact, THREAD_CHUNK>,
    /// Allocations and frees this thread made.
    pub memory: Vec<MemFact>,
    /// The pointers of each copy this thread made.
    pub copy_ptrs: ChunkedVec<CopyPtrs, THREAD_CHUNK>,
    /// Thread id as reported by the runtime (set on first use).
    pub thread_id: u64,
    /// Open push/pop ranges, outermost first: this is the annotation stack.
    pub stack: SmallVec<[OpenRange; INLINE_DEPTH]>,
    /// Snapshot of `stack` shared by every event captured until the stack changes, so a
    /// capture costs one `Arc` clone rather than a vector copy.
    cached: Option<Arc<Annotation>>,
    dirty: bool,
    /// The label list of the last snapshot: a range pushed again under the same labels (a
    /// training step's `step`, every iteration) shares it instead of copying it.
    labels: Option<Arc<[Arc<str>]>>,
    /// Labels this thread pushed lately, so that a label pushed again is the same `Arc`
    /// (no allocation per push; the list above is then recognised by pointer).
    recent_labels: SmallVec<[Arc<str>; RECENT_LABELS]>,
    /// Where the next new label goes in `recent_labels` once it is full (round robin).
    next_label: usize,
    /// Annotation context at API entry, keyed by internal correlation id.
    pub annotations: ChunkedVec<(u64, Arc<Annotation>), THREAD_CHUNK>,
    pub markers: ChunkedVec<MarkerSpan, THREAD_CHUNK>,
    /// Pops with no matching push on this thread.
    pub unmatched_pops: u64,
}

impl ThreadState {
    /// Pushes a range, giving it its scope id and its parent's (the child→parent pair is
    /// recorded once, with the range's span when it closes or at the end).
    pub fn push_range(&mut self, mut r: OpenRange) {
        r.scope_id = scope_id_for(r.correlation_id);
        r.parent_scope_id = self.stack.last().map_or(0, |p| p.scope_id);
        self.stack.push(r);
        self.dirty = true;
    }

    pub fn pop_range(&mut self) -> Option<OpenRange> {
        let r = self.stack.pop();
        if r.is_some() {
            self.dirty = true;
        }
        r
    }

    /// The current annotation, or `None` when nothing is pushed.
    pub fn annotation(&mut self) -> Option<Arc<Annotation>> {
        if self.dirty {
            self.dirty = false;
            self.cached = if self.stack.is_empty() {
                None
            } else {
                Some(Arc::new(Annotation {
                    stack: self.label_list(),
                    scope_range_id: self.stack.last().map_or(0, |r| r.scope_id),
                    external_ids: Vec::new(),
                }))
            };
        }
        self.cached.clone()
    }

    /// The labels of the open ranges: the previous list again when they are the same `Arc`s.
    fn label_list(&mut self) -> Arc<[Arc<str>]> {
        if let Some(prev) = &self.labels {
            // A list longer than the bound has a "…n levels…" entry of its own: rebuilt.
            let same = prev.len() == self.stack.len()
                && self.stack.len() <= crate::model::annotations::MAX_LEVELS
                && prev
                    .iter()
                    .zip(&self.stack)
                    .all(|(a, r)| Arc::ptr_eq(a, &r.label));
            if same {
                return prev.clone();
            }
        }
        let list = crate::model::annotations::bounded_stack(&self.stack, |r| &r.label);
        self.labels = Some(list.clone());
        list
    }

    /// `label` (empty when absent) as an `Arc` this thread already holds for the same text,
    /// else a new one, remembered.
    pub fn intern_label(&mut self, label: Option<&str>) -> Arc<str> {
        let text = label.unwrap_or("");
        if let Some(l) = self.recent_labels.iter().find(|l| ***l == *text) {
            return l.clone();
        }
        let l: Arc<str> = Arc::from(text);
        if self.recent_labels.len() < RECENT_LABELS {
            self.recent_labels.push(l.clone());
        } else {
            self.recent_labels[self.next_label] = l.clone();
            self.next_label = (self.next_label + 1) % RECENT_LABELS;
        }
        l
    }

    /// Records the annotation context of an API call at its entry.
    pub fn capture_at_api_enter(&mut self, correlation_id: u64) {
        if let Some(a) = self.annotation() {
            self.annotations.push((correlation_id, a));
        }
    }
}

static THREADS: Sinks<ThreadState> = Sinks::new();

thread_local! {
    static MINE: Arc<Mutex<ThreadState>> = THREADS.register();
}

/// Runs `f` on the calling thread's state. Returns `None` if thread-local storage is already
/// gone (a callback during thread teardown): the event is then not captured.
pub fn with_current<R>(thread_id: u64, f: impl FnOnce(&mut ThreadState) -> R) -> Option<R> {
    MINE.try_with(|m| {
        let mut s = lock(m);
        if s.thread_id == 0 {
            s.thread_id = thread_id;
        }
        f(&mut s)
    })
    .ok()
}

/// Everything captured on all threads. Ranges still open are closed at `end_ns`.
#[derive(Debug, Default)]
pub struct Drained {
    pub annotations: Vec<(u64, Arc<Annotation>)>,
    pub calls: Vec<CallFact>,
    pub syncs: Vec<SyncFact>,
    pub memory: Vec<MemFact>,
    pub copy_ptrs: Vec<CopyPtrs>,
    pub markers: Vec<MarkerSpan>,
    pub unmatched_pops: u64,
    pub ranges_left_open: u64,
}

pub fn drain_all(end_ns: u64, keep_open: bool) -> Drained {
    let mut d = Drained::default();
    THREADS.for_each(|s| {
        s.annotations.drain_into(&mut d.annotations);
        s.calls.drain_into(&mut d.calls);
        s.syncs.drain_into(&mut d.syncs);
        d.memory.append(&mut s.memory);
        s.copy_ptrs.drain_into(&mut d.copy_ptrs);
        s.markers.drain_into(&mut d.markers);
        d.unmatched_pops += std::mem::take(&mut s.unmatched_pops);
        let tid = s.thread_id;
        // At a window's end open ranges are shown up to the cut and stay on the stack (their
        // pop comes in a later window); at finalize they are closed.
        let open: Vec<OpenRange> = if keep_open {
            s.stack.iter().rev().cloned().collect()
        } else {
            std::iter::from_fn(|| s.pop_range()).collect()
        };
        for r in open {
            d.ranges_left_open += 1;
            d.markers.push(MarkerSpan {
                label: r.label,
                thread_id: tid,
                open_correlation_id: r.correlation_id,
                close_correlation_id: 0,
                start_ns: r.start_ns,
                end_ns: end_ns.max(r.start_ns),
                scope_id: r.scope_id,
                parent_scope_id: r.parent_scope_id,
                open_at_end: true,
                ..MarkerSpan::default()
            });
        }
    });
    let (m, open) = super::markers::drain_process_ranges(end_ns, keep_open);
    d.markers.extend(m);
    d.ranges_left_open += open;
    // The room left by growing in steps (`room_for`) is not kept through the join.
    d.annotations.shrink_to_fit();
    d.calls.shrink_to_fit();
    d.syncs.shrink_to_fit();
    d.copy_ptrs.shrink_to_fit();
    d.markers.shrink_to_fit();
    d
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

    /// A label pushed again is the same `Arc`, and a range pushed again under the same labels
    /// shares its label list (a fresh annotation, for its own scope id, but no copy of the
    /// list); a different label makes a new list.
    #[test]
    fn repeated_ranges_share_labels_and_label_lists() {
        let mut s = ThreadState::default();
        let push = |s: &mut ThreadState, text: &str, corr: u64| {
            let label = s.intern_label(Some(text));
            s.push_range(OpenRange {
                label,
                ..range("", corr)
            });
            s.capture_at_api_enter(corr + 1);
        };
        push(&mut s, "step", 10);
        s.pop_range();
        push(&mut s, "step", 20);
        s.pop_range();
        push(&mut s, "eval", 30);
        let got: Vec<Arc<Annotation>> = s.annotations.iter().map(|(_, a)| a.clone()).collect();
        assert_eq!(got.len(), 3);
        assert!(!Arc::ptr_eq(&got[0], &got[1]), "each range its own scope");
        assert_ne!(got[0].scope_range_id, got[1].scope_range_id);
        assert!(Arc::ptr_eq(&got[0].stack, &got[1].stack), "one label list");
        assert!(Arc::ptr_eq(&got[0].stack[0], &got[1].stack[0]));
        assert_eq!(&*got[2].stack[0], "eval");
        assert!(!Arc::ptr_eq(&got[1].stack, &got[2].stack));
        assert!(Arc::ptr_eq(
            &s.intern_label(None),
            &s.intern_label(Some(""))
        ));
        // More labels than remembered: old ones are replaced, texts still right.
        let many: Vec<Arc<str>> = (0..40)
            .map(|i| s.intern_label(Some(&format!("l{i}"))))
            .collect();
        assert!(many
            .iter()
            .enumerate()
            .all(|(i, l)| **l == *format!("l{i}")));
        assert_eq!(s.recent_labels.len(), RECENT_LABELS);
    }

    #[test]
    fn annotation_snapshot_follows_the_stack_and_is_shared() {
        let mut s = ThreadState::default();
        s.capture_at_api_enter(1);
        assert!(s.annotations.is_empty(), "nothing pushed, nothing captured");
        s.push_range(range("step", 2));
        s.push_range(range("fwd", 3));
        s.capture_at_api_enter(4);
        s.capture_at_api_enter(5);
        s.pop_range();
        s.capture_at_api_enter(6);
        let got: Vec<(u64, Arc<Annotation>)> = s.annotations.iter().cloned().collect();
        assert_eq!(got.len(), 3);
        assert!(
            Arc::ptr_eq(&got[0].1, &got[1].1),
            "unchanged stack shares one snapshot"
        );
        let labels = |a: &Annotation| a.stack.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        assert_eq!(labels(&got[0].1), ["step", "fwd"]);
        assert_eq!(labels(&got[2].1), ["step"]);
        // Innermost scope id = the push's correlation id; the parent is recorded on the push.
        assert_eq!((got[0].1.scope_range_id, got[2].1.scope_range_id), (3, 2));
        assert_eq!(
            (s.stack[0].scope_id, s.stack[0].parent_scope_id),
            (2, 0),
            "outermost push has no parent"
        );
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
        assert_eq!(s.annotation().unwrap().scope_range_id, 40);
        // A push without a correlation id still gets a fresh non-zero id.
        s.push_range(range("no id", 0));
        let (a, b) = (s.stack[1].scope_id, scope_id_for(0));
        assert!(a >= 1 << 62 && b > a, "{a} {b}");
    }
}
