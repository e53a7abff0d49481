//! Periodic device counters (`ROCPROF_XPLANE_PMC_INTERVAL`): from reads of each GPU's counters,
//! each a value accumulated since the counters started (`facts::DeviceSample`), the values of
//! the intervals between consecutive reads, and the GPU's busy share over each.
//!
//! * A counter's value over an interval is the difference of its two reads (instances were
//!   summed when the reads were taken).
//! * `GPU_UTIL` = 100 × `GRBM_GUI_ACTIVE` / `GRBM_COUNT` over the same interval: the SDK's
//!   derived `GPU_UTIL` (`counter_defs.yaml`), which takes the largest XCC's counts where this
//!   takes their sums — the same wherever the XCCs count alike, else the XCCs' average.
//! * A read lower than the one before (the counters restarted: a context started afresh) ends
//!   no interval; it is counted and the next interval starts from it.
//!
//! The reads of one run may be cut into windows: the last read of each counter before a cut is
//! handed to the next window ([`last_reads`]) so the interval across the cut is in exactly one
//! window, the one holding its end.

use std::sync::Arc;

use crate::facts::DeviceSample;

/// The SDK's name for the busy share, the derived metric written beside the counters.
pub const GPU_UTIL: &str = "GPU_UTIL";
/// The two counters `GPU_UTIL` is made of; the tool always asks for them.
pub const GUI_ACTIVE: &str = "GRBM_GUI_ACTIVE";
pub const GRBM_COUNT: &str = "GRBM_COUNT";

/// One counter's value over one interval between two reads of a GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceInterval {
    pub agent: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub counter: Arc<str>,
    pub value: f64,
}

/// The intervals of a set of reads and what could not be made one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceCounters {
    /// Sorted by agent, counter name, then start.
    pub intervals: Vec<DeviceInterval>,
    /// Reads lower than the read before (the counters restarted).
    pub restarts: u64,
}

/// The reads of one counter of one GPU, in time order, each read once: a read handed on across
/// a cut comes twice, as the same read; two reads the clock gave one time stay two.
fn series(samples: &[DeviceSample]) -> Vec<Vec<&DeviceSample>> {
    let mut all: Vec<&DeviceSample> = samples.iter().collect();
    all.sort_by(|a, b| {
        (a.agent, &*a.counter, a.time_ns, a.read).cmp(&(b.agent, &*b.counter, b.time_ns, b.read))
    });
    all.dedup_by(|b, a| a.agent == b.agent && a.counter == b.counter && a.read == b.read);
    let mut out: Vec<Vec<&DeviceSample>> = Vec::new();
    for s in all {
        match out.last_mut() {
            Some(run) if run[0].agent == s.agent && run[0].counter == s.counter => run.push(s),
            _ => out.push(vec![s]),
        }
    }
    out
}

/// Per-interval values of `samples` (every GPU, every counter), with `GPU_UTIL` where both
/// GRBM counters were read.
pub fn intervals(samples: &[DeviceSample]) -> DeviceCounters {
    let mut out = DeviceCounters::default();
    for run in series(samples) {
        for pair in run.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let value = b.value - a.value;
            if value < 0.0 {
                out.restarts += 1;
                continue;
            }
            out.intervals.push(DeviceInterval {
                agent: a.agent,
                start_ns: a.time_ns,
                end_ns: b.time_ns,
                counter: a.counter.clone(),
                value,
            });
        }
    }
    let util = gpu_util(&out.intervals);
    out.intervals.extend(util);
    out.intervals.sort_by(|a, b| {
        (a.agent, &*a.counter, a.start_ns).cmp(&(b.agent, &*b.counter, b.start_ns))
    });
    out
}

/// `GPU_UTIL` of every interval that has both GRBM counters with elapsed cycles.
fn gpu_util(intervals: &[DeviceInterval]) -> Vec<DeviceInterval> {
    let name: Arc<str> = Arc::from(GPU_UTIL);
    let count_of = |i: &DeviceInterval| {
        intervals.iter().find(|c| {
            &*c.counter == GRBM_COUNT
                && c.agent == i.agent
                && c.start_ns == i.start_ns
                && c.end_ns == i.end_ns
        })
    };
    intervals
        .iter()
        .filter(|i| &*i.counter == GUI_ACTIVE)
        .filter_map(|busy| {
            let count = count_of(busy)?;
            (count.value > 0.0).then(|| DeviceInterval {
                counter: name.clone(),
                value: 100.0 * busy.value / count.value,
                ..busy.clone()
            })
        })
        .collect()
}

/// The last read of each counter of each GPU: what the next window's first interval starts
/// from.
pub fn last_reads(samples: &[DeviceSample]) -> Vec<DeviceSample> {
    series(samples)
        .into_iter()
        .filter_map(|run| run.last().map(|s| (*s).clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read at `t`, numbered by its time (the clock never reads the same twice here).
    fn read(agent: u64, t: u64, counter: &str, value: f64) -> DeviceSample {
        DeviceSample {
            agent,
            read: t,
            time_ns: t,
            counter: Arc::from(counter),
            value,
        }
    }

    fn values(d: &DeviceCounters, agent: u64, counter: &str) -> Vec<(u64, u64, f64)> {
        d.intervals
            .iter()
            .filter(|i| i.agent == agent && &*i.counter == counter)
            .map(|i| (i.start_ns, i.end_ns, i.value))
            .collect()
    }

    /// Each interval is the difference of its two reads, per GPU and counter, whatever order
    /// the reads come in; GPU_UTIL is the busy share of each interval.
    #[test]
    fn differences_of_consecutive_reads_and_the_busy_share() {
        let mut s = vec![
            read(1, 100, GUI_ACTIVE, 0.0),
            read(1, 100, GRBM_COUNT, 0.0),
            read(1, 100, "SQ_WAVES", 0.0),
            read(1, 200, GUI_ACTIVE, 50.0),
            read(1, 200, GRBM_COUNT, 200.0),
            read(1, 200, "SQ_WAVES", 64.0),
            read(1, 300, GUI_ACTIVE, 250.0),
            read(1, 300, GRBM_COUNT, 400.0),
            read(1, 300, "SQ_WAVES", 64.0),
            read(2, 150, "SQ_WAVES", 10.0),
            read(2, 250, "SQ_WAVES", 30.0),
        ];
        s.reverse();
        let d = intervals(&s);
        assert_eq!(d.restarts, 0);
        assert_eq!(
            values(&d, 1, "SQ_WAVES"),
            [(100, 200, 64.0), (200, 300, 0.0)]
        );
        assert_eq!(values(&d, 2, "SQ_WAVES"), [(150, 250, 20.0)]);
        assert_eq!(
            values(&d, 1, GPU_UTIL),
            [(100, 200, 25.0), (200, 300, 100.0)]
        );
        assert!(values(&d, 2, GPU_UTIL).is_empty(), "no GRBM read on GPU 2");
    }

    /// The last reads handed across a cut give the interval across it once: in the window that
    /// holds its end, never in the one before, and a read that appears twice counts once.
    #[test]
    fn a_cut_neither_loses_nor_doubles_an_interval() {
        let all: Vec<DeviceSample> = (0..6)
            .map(|k| read(1, 100 * k, "SQ_WAVES", (k * k) as f64))
            .collect();
        let whole = intervals(&all);
        for cut in 1..all.len() {
            let first = intervals(&all[..cut]);
            let mut second_in = last_reads(&all[..cut]);
            // The read before the cut may reach the next window too.
            second_in.extend(all[cut - 1..].iter().cloned());
            let second = intervals(&second_in);
            let mut both = first.intervals.clone();
            both.extend(second.intervals.clone());
            assert_eq!(both, whole.intervals, "cut after read {cut}");
        }
    }

    /// Two reads the clock gave one time are two reads: the interval between them is there
    /// (of no time), none is merged into the next, and the last read of a series is never
    /// dropped for the time of the one before.
    #[test]
    fn two_reads_at_one_time_are_two_reads() {
        let at = |n: u64, t: u64, value: f64| DeviceSample {
            read: n,
            ..read(1, t, GRBM_COUNT, value)
        };
        let s = [at(0, 100, 0.0), at(1, 200, 40.0), at(2, 200, 40.0)];
        let d = intervals(&s);
        assert_eq!(
            values(&d, 1, GRBM_COUNT),
            [(100, 200, 40.0), (200, 200, 0.0)]
        );
        // Handed on across a cut, a read comes twice: it counts once.
        let handed = [at(1, 200, 40.0), at(1, 200, 40.0), at(2, 200, 50.0)];
        assert_eq!(
            values(&intervals(&handed), 1, GRBM_COUNT),
            [(200, 200, 10.0)]
        );
        assert_eq!(last_reads(&s), [at(2, 200, 40.0)]);
    }

    /// A read lower than the one before (counters restarted) ends no interval.
    #[test]
    fn a_restart_ends_no_interval() {
        let s = [
            read(1, 1, "SQ_WAVES", 10.0),
            read(1, 2, "SQ_WAVES", 3.0),
            read(1, 3, "SQ_WAVES", 7.0),
        ];
        let d = intervals(&s);
        assert_eq!(d.restarts, 1);
        assert_eq!(values(&d, 1, "SQ_WAVES"), [(2, 3, 4.0)]);
    }
}
