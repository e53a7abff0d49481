//! Continuous profiling: a flight recorder of the most recent activity, answered as a complete
//! XPlane on `GetSnapshot` while the program runs on.
//!
//! Our own thread cuts what the tool holds into segments (a fraction of the kept time each) and
//! keeps the newest of them in a ring bounded by time (`ROCPROF_XPLANE_RING_SECONDS`) and by
//! memory (`ROCPROF_XPLANE_RING_MEMORY`); the oldest segments are let go, and counted, when
//! either bound is passed. A snapshot cuts the current segment and joins the whole ring in one
//! pass, so a launch in one segment and its kernel in the next still meet. The reference server
//! keeps no ring (a snapshot there is "everything since the last snapshot"); this one keeps the
//! recent past, so a snapshot taken when something goes wrong shows what led to it.
//!
//! Every cut, the ring thread's and a snapshot's, is asked of the coordinator under the ring's
//! lock, so segments are pushed in the order they were cut and none is missed.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::capture;
use crate::config::RingRule;
use crate::control::Control;
use crate::model::events::Collected;
use crate::store::sinks::lock;
use crate::xplane::proto::XSpace;
use crate::{log_debug, log_error};

struct Segment {
    collected: Collected,
    bytes: u64,
    cut_at: Instant,
}

#[derive(Default)]
struct Ring {
    segments: VecDeque<Segment>,
    bytes: u64,
    /// Records let go because they grew older than the kept time (the ring's purpose).
    aged_out: u64,
    /// Records let go early because the ring reached its memory bound.
    evicted_for_memory: u64,
}

/// The flight recorder: the ring while continuous profiling runs, and its thread.
#[derive(Default)]
pub struct FlightRecorder {
    ring: Arc<Mutex<Option<Ring>>>,
    stop: Arc<AtomicBool>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// Each segment covers this share of the kept time, so the ring holds between `keep` and
/// `keep` + one segment (at least 100 ms, at most 1 s per cut).
fn segment_period(rule: &RingRule) -> Duration {
    Duration::from_millis((rule.keep_ms / 20).clamp(100, 1000))
}

impl Ring {
    fn push(&mut self, c: Collected, rule: &RingRule) {
        let bytes = c.approx_bytes();
        self.bytes += bytes;
        self.segments.push_back(Segment {
            collected: c,
            bytes,
            cut_at: Instant::now(),
        });
        let keep = Duration::from_millis(rule.keep_ms);
        let newest = Instant::now();
        while self.segments.len() > 1 {
            // The segments after the oldest cover (its cut, now]: when that alone spans the
            // kept time, the oldest is no longer needed.
            let too_old = newest.duration_since(self.segments[0].cut_at) >= keep;
            let too_big = self.bytes > rule.max_bytes;
            if !(too_old || too_big) {
                break;
            }
            let gone = self.segments.pop_front().expect("len > 1");
            self.bytes -= gone.bytes;
            let n = gone.collected.record_count();
            if too_old {
                self.aged_out += n;
            } else {
                self.evicted_for_memory += n;
            }
        }
    }
}

impl FlightRecorder {
    fn ring(&self) -> MutexGuard<'_, Option<Ring>> {
        lock(&self.ring)
    }

    /// Starts recording into the ring; the caller holds the tool as `Owner::Continuous`.
    pub fn start(&self, control: &'static Control, rule: RingRule) -> Result<(), String> {
        *self.ring() = Some(Ring::default());
        self.stop.store(false, Ordering::Relaxed);
        control.record();
        let (ring, stop) = (Arc::clone(&self.ring), Arc::clone(&self.stop));
        let spawned = std::thread::Builder::new()
            .name("rocprof-xp-ring".into())
            .spawn(move || {
                let period = segment_period(&rule);
                let mut next = Instant::now() + period;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(5));
                    if Instant::now() < next {
                        continue;
                    }
                    next += period;
                    let mut r = lock(&ring);
                    let Some(r) = r.as_mut() else { break };
                    r.push(control.snapshot(), &rule);
                }
            });
        match spawned {
            Ok(h) => {
                *lock(&self.thread) = Some(h);
                log_debug!(
                    "continuous profiling: keeping the last {} ms, at most {} MiB",
                    rule.keep_ms,
                    rule.max_bytes >> 20
                );
                Ok(())
            }
            Err(e) => {
                control.stop();
                *self.ring() = None;
                log_error!("cannot start the flight-recorder thread: {e}");
                Err(format!("cannot start the flight-recorder thread: {e}"))
            }
        }
    }

    /// Stops recording and lets the ring go.
    pub fn stop(&self, control: &Control) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = lock(&self.thread).take() {
            let _ = h.join();
        }
        let _ = control.stop();
        *self.ring() = None;
    }

    /// Cuts the current segment and builds one XSpace of everything the ring holds (`None`: it
    /// holds nothing). Recording goes on; the ring keeps its segments for later snapshots.
    pub fn snapshot(
        &self,
        control: &Control,
        rule: &RingRule,
        file_host: &str,
    ) -> Option<(Option<XSpace>, SnapshotFacts)> {
        let t0 = Instant::now();
        let (c, facts) = {
            let mut guard = self.ring();
            let r = guard.as_mut()?;
            r.push(control.snapshot(), rule);
            r.merged(rule)
        };
        let space = capture::xspace_of(c, file_host);
        log_debug!(
            "snapshot of {} segments, {} records, in {:.1} ms",
            facts.segments,
            facts.records,
            t0.elapsed().as_secs_f64() * 1e3
        );
        Some((space, facts))
    }
}

/// What a snapshot held, for logs and tests.
#[derive(Debug, Clone, Copy, Default)]
pub struct SnapshotFacts {
    pub segments: usize,
    pub records: u64,
    pub bytes: u64,
}

impl Ring {
    /// Every segment as one collection, with a warning of what was let go, and its facts.
    fn merged(&self, rule: &RingRule) -> (Collected, SnapshotFacts) {
        let mut it = self.segments.iter();
        let mut merged = it.next().map(|g| g.collected.clone()).unwrap_or_default();
        for g in it {
            merged.absorb(g.collected.clone());
        }
        let facts = SnapshotFacts {
            segments: self.segments.len(),
            records: merged.record_count(),
            bytes: self.bytes,
        };
        if self.aged_out + self.evicted_for_memory > 0 {
            merged.warnings.push(format!(
                "rocprof-xplane flight recorder: keeps the last {:.1} s and at most {} KiB; {} older records were let go by age and {} for memory; this snapshot holds {} records in {} bytes",
                rule.keep_ms as f64 / 1e3,
                rule.max_bytes >> 10,
                self.aged_out,
                self.evicted_for_memory,
                facts.records,
                facts.bytes
            ));
        }
        (merged, facts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::events::MarkerSpan;

    fn seg(n: usize) -> Collected {
        Collected {
            markers: vec![MarkerSpan::default(); n],
            ..Collected::default()
        }
    }

    #[test]
    fn the_memory_bound_lets_the_oldest_segments_go_and_counts_them() {
        let one = seg(100).approx_bytes();
        let rule = RingRule {
            keep_ms: 3_600_000,
            max_bytes: one * 3,
        };
        let mut r = Ring::default();
        for _ in 0..5 {
            r.push(seg(100), &rule);
        }
        assert_eq!(r.segments.len(), 3);
        assert_eq!(r.bytes, one * 3);
        assert_eq!(r.evicted_for_memory, 200);
        assert_eq!(r.aged_out, 0);
    }

    #[test]
    fn the_newest_segment_stays_even_when_alone_too_big() {
        let rule = RingRule {
            keep_ms: 3_600_000,
            max_bytes: 1,
        };
        let mut r = Ring::default();
        r.push(seg(10), &rule);
        r.push(seg(10), &rule);
        assert_eq!(r.segments.len(), 1, "never empty after a push");
        assert_eq!(r.evicted_for_memory, 10);
    }

    #[test]
    fn segments_older_than_the_kept_time_age_out() {
        let rule = RingRule {
            keep_ms: 30,
            max_bytes: u64::MAX,
        };
        let mut r = Ring::default();
        r.push(seg(7), &rule);
        r.push(seg(5), &rule);
        std::thread::sleep(Duration::from_millis(40));
        r.push(seg(3), &rule);
        assert_eq!(r.aged_out, 12, "the first two were cut more than 30 ms ago");
        assert_eq!(r.segments.len(), 1);
        r.push(seg(1), &rule);
        assert_eq!(
            r.segments.len(),
            2,
            "the newest cut is within the kept time"
        );
    }
}
