//! Which GPU each HIP call was issued to: the device of its stream, else the thread's current
//! device — what CUPTI reports as an activity's `deviceId`.
//!
//! Copy records only name their two agents (host ends are CPUs, peer copies have two GPUs), so
//! the GPU plane a copy belongs to comes from here: `hipSetDevice` sets the thread's current
//! device, `hipStream*Create*` binds the new stream to it, and at the entry of a launch or copy
//! the `stream` argument (null stream: the current device) gives the device. Streams are created
//! rarely, so one process-wide map with a lock is fine; each thread caches what it looked up.
//!
//! This is also the seam for HIP-stream lines and sync dependencies: the stream of every call
//! is recorded with its correlation id.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::thread::ThreadState;
use crate::model::events::{CallFact, StreamCreation, SyncFact, SyncKind};
use crate::store::sinks::lock;

/// The streams the program created, process-wide.
#[derive(Default)]
pub struct Streams {
    /// Device and creation order of each live stream.
    devices: Mutex<HashMap<u64, (i32, u64)>>,
    /// Bumped at every stream creation: a destroyed stream's handle can be reused by a new
    /// stream on another device, so a thread's cached lookups are only good for the generation
    /// they were made in.
    generation: AtomicU64,
    /// Every stream creation, for the join: a call on another thread can be seen before the
    /// creating thread's EXIT callback has published the stream (the simulator replays threads
    /// independently), so the join re-reads each call's stream from these by correlation
    /// order, which does not depend on callback timing.
    creations: Mutex<Vec<StreamCreation>>,
    /// The runtime's stream brackets, started when a call needs them.
    brackets: super::hip_stream::Brackets,
}

impl Streams {
    /// The runtime's stream brackets (`hip_stream::Brackets`).
    pub fn brackets(&self) -> &super::hip_stream::Brackets {
        &self.brackets
    }

    /// Records a synchronization call's arguments at its entry; a `hipEventRecord`'s are its
    /// event's producer for the join (`model::deps::ProducerIndex::of`).
    pub fn on_sync_enter(
        &self,
        t: &mut ThreadState,
        correlation_id: u64,
        kind: SyncKind,
        event: u64,
        stream: u64,
    ) {
        let (device, stream_seq) = self.stream_of(t, stream);
        t.syncs.push(SyncFact {
            correlation_id,
            kind,
            event,
            stream,
            device,
            stream_seq,
        });
    }

    /// The stream creations recorded so far (the list is kept: later windows' calls use
    /// streams made earlier).
    pub fn creations(&self) -> Vec<StreamCreation> {
        lock(&self.creations).clone()
    }

    /// The stream creations recorded so far, leaving the list empty.
    pub fn take_creations(&self) -> Vec<StreamCreation> {
        std::mem::take(&mut *lock(&self.creations))
    }

    /// Binds a newly created stream to the creating thread's current device.
    pub fn on_created(&self, t: &mut ThreadState, stream: u64, correlation_id: u64) {
        if stream == 0 {
            return;
        }
        let device = t.current_device;
        // The creating call's correlation id orders streams by creation (call order, whatever
        // the callback timing) and tells a reused handle from the stream that had it before.
        let seq = correlation_id.max(1);
        lock(&self.devices).insert(stream, (device, seq));
        self.generation.fetch_add(1, Ordering::AcqRel);
        lock(&self.creations).push(StreamCreation {
            correlation_id,
            stream,
            device,
            stream_seq: seq,
        });
        t.stream_devices.insert(stream, (device, seq));
    }

    /// Device of `stream` as seen from thread `t` (null stream: its current device).
    pub fn device_of(&self, t: &mut ThreadState, stream: u64) -> i32 {
        self.stream_of(t, stream).0
    }

    /// Device and creation order of `stream` (null stream: current device, 0; a stream created
    /// before the tool: -1, 0).
    #[inline(always)]
    pub fn stream_of(&self, t: &mut ThreadState, stream: u64) -> (i32, u64) {
        // Consecutive calls of a thread mostly go to one stream: no hash for those.
        self.stream_of_cached(t, stream)
            .unwrap_or_else(|| self.stream_of_looked_up(t, stream))
    }

    /// [`Self::stream_of`] when it takes no lookup: the null stream, or the thread's last
    /// stream with no creation since (else `None`: [`Self::stream_of`] looks it up).
    #[inline(always)]
    pub fn stream_of_cached(&self, t: &ThreadState, stream: u64) -> Option<(i32, u64)> {
        if stream == 0 {
            return Some((t.current_device, 0));
        }
        match t.last_stream {
            Some((s, d))
                if s == stream
                    && t.stream_generation == self.generation.load(Ordering::Acquire) =>
            {
                Some(d)
            }
            _ => None,
        }
    }

    /// [`Self::stream_of`] for a stream other than the thread's last, or after a creation.
    #[inline(never)]
    fn stream_of_looked_up(&self, t: &mut ThreadState, stream: u64) -> (i32, u64) {
        let generation = self.generation.load(Ordering::Acquire);
        if t.stream_generation != generation {
            t.stream_devices.clear();
            t.last_stream = None;
            t.stream_generation = generation;
        }
        if let Some((s, d)) = t.last_stream {
            if s == stream {
                return d;
            }
        }
        if let Some(&d) = t.stream_devices.get(&stream) {
            t.last_stream = Some((stream, d));
            return d;
        }
        t.global_stream_lookups += 1;
        let found = lock(&self.devices)
            .get(&stream)
            .copied()
            // Created before the tool (or by another runtime): remembered as unknown until the
            // next stream creation anywhere, which clears every thread's cache.
            .unwrap_or((-1, 0));
        t.stream_devices.insert(stream, found);
        t.last_stream = Some((stream, found));
        found
    }

    /// Replaces the stream of this thread's latest launch/copy fact, when it belongs to
    /// `correlation_id` (the entry did not know the stream; the runtime reported it later).
    pub fn restream_last(&self, t: &mut ThreadState, correlation_id: u64, stream: u64) {
        let (device, stream_seq) = self.stream_of(t, stream);
        let fact = CallFact {
            correlation_id,
            stream,
            device,
            stream_seq,
        };
        let replaced = t
            .calls
            .last()
            .is_some_and(|f| f.correlation_id == correlation_id)
            && t.calls.set_last(fact);
        if !replaced {
            t.calls.push(fact);
        }
    }

    /// Records the device/stream of a launch or copy at its entry. (A push is refused only
    /// past 2^32 − 1 distinct streams on one thread, which no program reaches.)
    #[inline]
    pub fn on_work_enter(&self, t: &mut ThreadState, correlation_id: u64, stream: u64) {
        let (device, stream_seq) = self.stream_of(t, stream);
        t.calls.push(CallFact {
            correlation_id,
            stream,
            device,
            stream_seq,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_follow_the_device_current_at_creation() {
        let st = Streams::default();
        let mut a = ThreadState::default();
        let mut b = ThreadState::default();
        st.on_created(&mut a, 0xa0, 1); // device 0
        a.current_device = 1;
        st.on_created(&mut a, 0xa1, 2);
        // Another thread sees both through the process-wide map.
        assert_eq!(st.device_of(&mut b, 0xa0), 0);
        assert_eq!(st.device_of(&mut b, 0xa1), 1);
        assert_eq!(st.device_of(&mut b, 0xdead), -1, "unknown stream");
        let (s0, s1) = (st.stream_of(&mut b, 0xa0).1, st.stream_of(&mut b, 0xa1).1);
        assert!(s0 > 0 && s1 > s0, "creation order: {s0} {s1}");
        b.current_device = 1;
        st.on_work_enter(&mut b, 7, 0);
        st.on_work_enter(&mut b, 8, 0xa0);
        let calls: Vec<CallFact> = b.calls.iter().collect();
        assert_eq!(
            calls,
            [
                CallFact {
                    correlation_id: 7,
                    stream: 0,
                    device: 1,
                    stream_seq: 0,
                },
                CallFact {
                    correlation_id: 8,
                    stream: 0xa0,
                    device: 0,
                    stream_seq: s0,
                },
            ]
        );
    }

    /// A launch on a stream the tool never saw created must not take the process-wide lock
    /// on every call: the failed lookup is remembered until the next stream creation.
    #[test]
    fn an_unknown_stream_is_looked_up_globally_once() {
        let st = Streams::default();
        let mut t = ThreadState::default();
        for _ in 0..100 {
            assert_eq!(st.stream_of(&mut t, 0xdead_0000), (-1, 0));
        }
        assert_eq!(t.global_stream_lookups, 1, "lookups for 100 calls");
        // A creation anywhere clears the cache once.
        st.on_created(&mut ThreadState::default(), 0xbeef, 1);
        for _ in 0..100 {
            assert_eq!(st.stream_of(&mut t, 0xdead_0000), (-1, 0));
        }
        assert_eq!(t.global_stream_lookups, 2);
    }

    #[test]
    fn a_reused_stream_handle_is_not_read_from_a_stale_cache() {
        let st = Streams::default();
        let mut a = ThreadState::default();
        let mut b = ThreadState::default();
        st.on_created(&mut a, 0xc0, 3); // device 0
        let first = st.stream_of(&mut b, 0xc0);
        assert_eq!(first.0, 0, "b caches the lookup");
        // The stream is destroyed and its handle reused by a new stream on device 1.
        a.current_device = 1;
        st.on_created(&mut a, 0xc0, 4);
        let second = st.stream_of(&mut b, 0xc0);
        assert_eq!(second.0, 1);
        assert!(second.1 > first.1, "a new stream, not the old one");
        assert_eq!(st.device_of(&mut a, 0xc0), 1);
    }

    #[test]
    fn sync_calls_keep_event_stream_and_device() {
        let st = Streams::default();
        let mut t = ThreadState::default();
        st.on_created(&mut t, 0x51, 5);
        let seq = st.stream_of(&mut t, 0x51).1;
        st.on_sync_enter(&mut t, 9, SyncKind::StreamWaitEvent, 0xe1, 0x51);
        st.on_sync_enter(&mut t, 10, SyncKind::DeviceSynchronize, 0, 0);
        let got: Vec<SyncFact> = t.syncs.iter().collect();
        assert_eq!(
            got[0],
            SyncFact {
                correlation_id: 9,
                kind: SyncKind::StreamWaitEvent,
                event: 0xe1,
                stream: 0x51,
                device: 0,
                stream_seq: seq,
            }
        );
        assert_eq!(
            (got[1].kind, got[1].device),
            (SyncKind::DeviceSynchronize, 0)
        );
    }
}
