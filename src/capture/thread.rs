//! Per-thread capture state and its registry.

use std::sync::{Arc, Mutex};

use std::collections::HashMap;

use crate::model::events::{CallFact, MarkerSpan, SyncFact};
use crate::model::Annotation;
use crate::store::sinks::lock;
use crate::store::{ChunkedVec, Sinks};

/// A roctx push/pop range still open on this thread.
#[derive(Debug, Clone)]
pub struct OpenRange {
    pub label: Arc<str>,
    pub correlation_id: u64,
    pub start_ns: u64,
}

#[derive(Debug, Default)]
pub struct ThreadState {
    /// HIP device the thread works on (`hipSetDevice`; 0 until set, as in HIP).
    pub current_device: i32,
    /// Streams whose device this thread already looked up …
    pub stream_devices: HashMap<u64, (i32, u64)>,
    /// … valid while no stream has been created since (`devices::device_of`).
    pub stream_generation: u64,
    /// Device and stream of each launch/copy this thread made.
    pub calls: ChunkedVec<CallFact>,
    /// Arguments of each synchronization call this thread made.
    pub syncs: ChunkedVec<SyncFact>,
    /// Thread id as reported by the runtime (set on first use).
    pub thread_id: u64,
    /// Open push/pop ranges, outermost first: this is the annotation stack.
    pub stack: Vec<OpenRange>,
    /// Snapshot of `stack` shared by every event captured until the stack changes, so a
    /// capture costs one `Arc` clone rather than a vector copy.
    cached: Option<Arc<Annotation>>,
    dirty: bool,
    /// Annotation context at API entry, keyed by internal correlation id.
    pub annotations: ChunkedVec<(u64, Arc<Annotation>)>,
    pub markers: ChunkedVec<MarkerSpan>,
    /// Pops with no matching push on this thread.
    pub unmatched_pops: u64,
}

impl ThreadState {
    pub fn push_range(&mut self, r: OpenRange) {
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
                    stack: self.stack.iter().map(|r| r.label.clone()).collect(),
                    scope_range_id: 0,
                    external_ids: Vec::new(),
                }))
            };
        }
        self.cached.clone()
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
    pub markers: Vec<MarkerSpan>,
    pub unmatched_pops: u64,
    pub ranges_left_open: u64,
}

pub fn drain_all(end_ns: u64) -> Drained {
    let mut d = Drained::default();
    THREADS.for_each(|s| {
        s.annotations.drain_into(&mut d.annotations);
        s.calls.drain_into(&mut d.calls);
        s.syncs.drain_into(&mut d.syncs);
        s.markers.drain_into(&mut d.markers);
        d.unmatched_pops += std::mem::take(&mut s.unmatched_pops);
        let tid = s.thread_id;
        while let Some(r) = s.pop_range() {
            d.ranges_left_open += 1;
            d.markers.push(MarkerSpan {
                label: r.label,
                thread_id: tid,
                open_correlation_id: r.correlation_id,
                close_correlation_id: 0,
                start_ns: r.start_ns,
                end_ns: end_ns.max(r.start_ns),
                instant: false,
            });
        }
    });
    let (m, open) = super::markers::drain_process_ranges(end_ns);
    d.markers.extend(m);
    d.ranges_left_open += open;
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
        }
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
    }
}
