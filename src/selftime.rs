//! The tool's own time at its runtime-facing edges, measured only when asked for
//! (`ROCPROF_XPLANE_LOG=debug`): the callbacks on application threads and the buffer callbacks
//! on the delivery thread, with what finalize logs, give the tool's whole cost per delivered
//! record apart from the runtime's own tracing cost — which in the simulator is the
//! simulator's, and on hardware the real runtime's. Off, an edge pays one relaxed load.
//!
//! The times are wall time from entering an edge to leaving it: with more runnable threads
//! than cores, a thread descheduled inside a callback counts the wait too, so the figure is
//! the tool's cost only where the application's threads do not outnumber the cores.
//!
//! An edge reads the processor's time-stamp counter ([`Stamp`]): one instruction, where a
//! clock read is a call into the vDSO that costs about as much as the fast paths it would
//! measure. The counts are in ticks; [`SelfTime::totals`] turns them into nanoseconds by the
//! ticks and the monotonic clock's nanoseconds elapsed since timing was enabled.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use crate::capture::local::{self, CallbackTimes, Local};
use crate::store::sinks::{OwnLine, ThreadSlots};

/// A reading of the edges' clock: the time-stamp counter on x86_64 (constant-rate on the
/// processors ROCm runs on), nanoseconds of the monotonic clock elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp(u64);

impl Stamp {
    #[inline(always)]
    pub fn now() -> Stamp {
        Stamp(ticks())
    }

    /// Ticks from `self` to now (0 if the counter read earlier on another core is ahead).
    #[inline(always)]
    fn elapsed(self) -> u64 {
        ticks().saturating_sub(self.0)
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn ticks() -> u64 {
    // SAFETY: `rdtsc` reads a counter every x86_64 processor has; it touches no memory.
    unsafe { std::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn ticks() -> u64 {
    static BASE: OnceLock<Instant> = OnceLock::new();
    BASE.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Where the tick count and the monotonic clock were when timing was enabled: the two ends
/// of the span [`SelfTime::totals`] converts ticks to nanoseconds by.
#[derive(Debug, Clone, Copy)]
struct Calibration {
    at: Instant,
    ticks: u64,
}

impl Calibration {
    fn now() -> Calibration {
        Calibration {
            at: Instant::now(),
            ticks: ticks(),
        }
    }

    /// Nanoseconds per tick from this reading to now: 1 until the span is long enough to tell
    /// (a thousand ticks).
    fn ns_per_tick(&self) -> f64 {
        let ns = self.at.elapsed().as_nanos() as f64;
        let ticks = ticks().saturating_sub(self.ticks);
        if ticks < 1000 {
            1.0
        } else {
            ns / ticks as f64
        }
    }
}

/// The tool's own time at its edges.
#[derive(Default)]
pub struct SelfTime {
    on: AtomicBool,
    /// Set when timing is enabled.
    calibration: OnceLock<Calibration>,
    /// Callbacks (HIP API, roctx, code objects, streams, graphs, external-id requests): calls
    /// and ticks, counted per thread (a thread's stay after it ends). One pair shared by all
    /// threads would be two locked adds on one cache line per callback: the measurement
    /// slowing what it measures.
    callbacks: ThreadSlots<[AtomicU64; 2]>,
    /// Buffer callbacks: deliveries, records, ticks.
    buffers: [AtomicU64; 3],
    /// Records the callbacks built (HIP calls' records from their ENTER and EXIT), counted at
    /// each cut: delivered records too, timed within the callbacks.
    built: AtomicU64,
}

impl SelfTime {
    pub fn enable(&self) {
        let _ = self.calibration.set(Calibration::now());
        self.on.store(true, Ordering::Relaxed);
        rocprof_xplane_core::measure::enable_helper_timing();
    }

    /// Whether timing is on: an edge that takes its timed path out of line checks this first.
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// The start of an edge's work, when timing is on.
    #[inline(always)]
    pub fn start(&self) -> Option<Stamp> {
        self.on.load(Ordering::Relaxed).then(Stamp::now)
    }

    /// The end of a callback's work on the thread whose slot is `l`: one branch when timing
    /// is off; on, the ticks and a load and a store to each of the thread's two counters.
    #[inline(always)]
    pub(crate) fn callback_done(&self, l: &Local, t: Option<Stamp>) {
        if let Some(t) = t {
            let ticks = t.elapsed();
            let owner = local::address_of(&self.callbacks);
            let m: &std::sync::Arc<CallbackTimes> = local::entry(&l.times, owner, || {
                self.callbacks.register(Default::default())
            });
            // Written by this thread only: a load and a store, no locked add.
            let [calls, sum] = &m.0;
            calls.store(calls.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            sum.store(sum.load(Ordering::Relaxed) + ticks, Ordering::Relaxed);
        }
    }

    #[inline]
    pub fn buffer_done(&self, t: Option<Stamp>, records: usize) {
        if let Some(t) = t {
            let ticks = t.elapsed();
            self.buffers[0].fetch_add(1, Ordering::Relaxed);
            self.buffers[1].fetch_add(records as u64, Ordering::Relaxed);
            self.buffers[2].fetch_add(ticks, Ordering::Relaxed);
        }
    }

    /// `n` records the callbacks built were taken at a cut (counted whether timing is on or
    /// not: the coordinator's thread, once per cut).
    pub fn records_built(&self, n: u64) {
        self.built.fetch_add(n, Ordering::Relaxed);
    }

    /// What was measured so far.
    pub fn totals(&self) -> Totals {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let per_tick = self.calibration.get().map_or(1.0, Calibration::ns_per_tick);
        let ns = |ticks: u64| (ticks as f64 * per_tick) as u64;
        let (callbacks, callback_ticks) = self.callbacks.all().iter().fold(
            (0, 0),
            |(n, ns), t: &std::sync::Arc<OwnLine<[AtomicU64; 2]>>| {
                (n + get(&t.0[0]), ns + get(&t.0[1]))
            },
        );
        Totals {
            callbacks,
            callback_ns: ns(callback_ticks),
            deliveries: get(&self.buffers[0]),
            records: get(&self.buffers[1]),
            built: get(&self.built),
            buffer_ns: ns(get(&self.buffers[2])),
            helper_ns: rocprof_xplane_core::measure::helper_ns(),
        }
    }
}

pub use rocprof_xplane_core::measure::helper_done;

/// What was measured so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub callbacks: u64,
    pub callback_ns: u64,
    pub deliveries: u64,
    /// Records delivered in buffers …
    pub records: u64,
    /// … and built by the callbacks.
    pub built: u64,
    pub buffer_ns: u64,
    pub helper_ns: u64,
}

/// The tool's own heap in a `heap-stats` build: peak bytes in all and per delivered record.
fn heap_line(records: u64) -> String {
    crate::heap::stats().map_or(String::new(), |(live, peak)| {
        format!(
            "; tool heap peak {:.1} MB ({:.0} B per delivered record), {:.1} MB live",
            peak as f64 / 1e6,
            peak as f64 / records.max(1) as f64,
            live as f64 / 1e6
        )
    })
}

impl Totals {
    /// One line for the finalize log: the running-time parts, and with `finalize_ns` the whole
    /// cost per delivered record.
    pub fn describe(&self, finalize_ns: u64) -> String {
        let per = |ns: u64, n: u64| if n == 0 { 0.0 } else { ns as f64 / n as f64 };
        let total = self.callback_ns + self.buffer_ns + finalize_ns + self.helper_ns;
        let records = self.records + self.built;
        format!(
            "tool time: {} callbacks {:.1} ms ({:.0} ns each), {} records in {} deliveries and the callbacks ({} built there), deliveries {:.1} ms ({:.0} ns per delivered record), finalize {:.1} ms and {:.1} ms on its helper threads; {:.0} ns of tool time per delivered record",
            self.callbacks,
            self.callback_ns as f64 / 1e6,
            per(self.callback_ns, self.callbacks),
            records,
            self.deliveries,
            self.built,
            self.buffer_ns as f64 / 1e6,
            per(self.buffer_ns, self.records),
            finalize_ns as f64 / 1e6,
            self.helper_ns as f64 / 1e6,
            per(total, records),
        ) + &heap_line(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_measures_nothing_on_counts_every_edge() {
        let st = SelfTime::default();
        // Off (the default): no start time, nothing added.
        assert_eq!(st.start(), None);
        let before = st.totals();
        st.callback_done(local::slot(), None);
        st.buffer_done(None, 5);
        assert_eq!(st.totals(), before);
        st.enable();
        let t = st.start();
        assert!(t.is_some());
        st.callback_done(local::slot(), t);
        st.buffer_done(st.start(), 7);
        helper_done(Some(Instant::now()));
        let after = st.totals();
        assert_eq!(after.callbacks, before.callbacks + 1);
        assert_eq!(after.records, before.records + 7);
        assert_eq!(after.deliveries, before.deliveries + 1);
        assert!(
            after.helper_ns > before.helper_ns,
            "a helper's time is counted"
        );
        // Another thread's callbacks are counted too, after it has ended.
        std::thread::scope(|s| {
            s.spawn(|| {
                st.callback_done(local::slot(), st.start());
                st.callback_done(local::slot(), st.start());
            });
        });
        assert_eq!(st.totals().callbacks, after.callbacks + 2);
        st.records_built(3);
        assert_eq!(
            st.totals().built,
            3,
            "built records are counted with timing on or off"
        );
        let line = st.totals().describe(1_000_000);
        assert!(line.contains("10 records in 1 deliveries"), "{line}");
        assert!(line.contains("finalize 1.0 ms and "), "{line}");
        assert!(
            line.contains("ns of tool time per delivered record"),
            "{line}"
        );
    }
}
