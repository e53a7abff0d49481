//! `Trace` → `XSpace`: the planes, lines, events and stats xprof's tools read.
//!
//! The file gets none of the post-processing XLA's `ProfilerSession` applies before saving, so
//! this writes that final shape directly: host API events already in `/host:CPU`, line
//! timestamps relative to the profile start, events sorted per line.
//!
//! One module per kind of plane: `host` (`/host:CPU`: a line per thread with its roctx lines,
//! and the memory timeline), `device` (`/device:GPU:<n>`: a line per stream), `summary` (the
//! scope-range tree, the Task Environment, the counters' warnings). `cache` keeps what the
//! events of a plane share (encoded stats by launch shape, annotation and copy route),
//! `line_names` names the device lines, and `threads` builds the device planes beside the
//! host plane.

use crate::clock::JobClock;
use crate::fastmap::HashMap;
use crate::model::{AnchorPlace, Device, DeviceLine, Trace};

use super::builder::{BuiltPlane, LineBuilder, PlaneBuilder, StatIds};
use super::deps::{AnchorEvent, AnchorFeed};
use super::proto::XSpace;
use super::run_ids::{RunIds, RunOrigin};
use super::spill::SpillPolicy;

mod cache;
mod device;
mod host;
mod levels;
mod line_names;
mod pmc;
mod summary;
#[cfg(test)]
mod testing;
mod threads;

pub use device::compute_capability;
pub use host::HostEvents;
pub use line_names::merged_line_name;
pub use summary::counter_warnings;

/// Builds the XSpace for one process. Pure: the same trace gives the same bytes.
pub fn build_xspace(trace: &Trace) -> XSpace {
    let mut planes = Vec::new();
    let mut space = build_planes(trace, |p| {
        planes.push(p.into_xplane());
        Ok::<(), std::convert::Infallible>(())
    })
    .unwrap_or_else(|e| match e {});
    space.planes = planes;
    space
}

/// Builds the planes one at a time, handing each to `sink` before the next is built (the file
/// writer encodes and writes it, then drops it: only one plane is ever in memory), and returns
/// the rest of the XSpace (warnings, host names) with no planes. The planes come in the order
/// `build_xspace` lists them, so the bytes are the same either way.
pub fn build_planes<E>(
    trace: &Trace,
    sink: impl FnMut(BuiltPlane) -> Result<(), E>,
) -> Result<XSpace, E> {
    build_planes_spilling(trace, None, 1, sink)
}

/// As [`build_planes`], the host and device planes' lines set aside in a file past a size
/// (`spill`, see `xplane::spill`) while each plane is built: the same bytes, the writer's peak
/// one line instead of the largest plane. With an output file in `spill`, those lines go
/// straight into it instead: `sink` must then have written each plane there, flushed, before
/// it returns, so the next plane starts where it belongs; the planes are then the same but for
/// their padded lengths.
///
/// With `threads` above 1, the device planes are built on that many threads less one while
/// this thread builds the host plane, which then takes device planes too: each plane is built
/// from the trace alone, so the planes are the same as one thread's, and they reach `sink` in
/// the same order; only the host plane's lines may go into an output file (the device planes
/// are built while it is), so a device plane's length is then unpadded. A device plane
/// finished before its turn waits with at most the spill size of its lines in memory (the rest
/// in its file): the memory held grows by a plane being built per thread and by up to the
/// spill size per waiting plane. With the host events taken out of the trace
/// (`HostEvents::take`), a device plane starts only once the host plane has freed what it will
/// hold (`threads::HostProgress`): it is not held beside the events not yet written.
pub fn build_planes_spilling<E>(
    trace: &Trace,
    spill: Option<&SpillPolicy>,
    threads: usize,
    sink: impl FnMut(BuiltPlane) -> Result<(), E>,
) -> Result<XSpace, E> {
    build_window_planes(trace, HostEvents::of(trace), spill, threads, None, sink)
}

/// As [`build_planes_spilling`], for a window of a run whose windows are to be merged (`run`):
/// the host and device planes number their names as the run's earlier windows did, and times
/// start at the run's origin (`xplane::RunIds`). The host threads' events are read from
/// `host_events` ([`HostEvents`]: the trace's own, or taken out of it to be freed as they are
/// encoded).
pub fn build_window_planes<E>(
    trace: &Trace,
    host_events: HostEvents<'_>,
    spill: Option<&SpillPolicy>,
    threads: usize,
    run: Option<&RunIds>,
    mut sink: impl FnMut(BuiltPlane) -> Result<(), E>,
) -> Result<XSpace, E> {
    let base = Timebase::new(trace, &host_events, run);
    let copies = host::FirstCopies::of(trace);
    let survey = host::HostSurvey::of(trace, &host_events);
    let anchors = super::deps::anchors_by_place(trace);

    // Each plane's place in the output: the host plane first, then the devices in order. A
    // plane writes into the output only in its turn (`spill::OutputTurn`), so one built while
    // another is sets its lines aside until then.
    let host_spill = spill.map(|s| s.for_plane(0));
    let progress =
        threads::HostProgress::new(host_events.freed_as_written(), host_events.owned_bytes());
    let host = || {
        let spill = host_spill.as_ref();
        let lookups = host::HostLookups {
            copies: &copies,
            survey: &survey,
            freed: &progress,
        };
        host::host_plane(trace, host_events, &base, lookups, &anchors, spill, run)
    };
    let device = |(i, d): (usize, &Device)| {
        let spill = spill.map(|s| s.for_plane(1 + i));
        device::device_plane(trace, d, &base, &anchors, spill.as_ref(), run)
    };
    if threads <= 1 || trace.devices.is_empty() {
        sink(host())?;
        for d in trace.devices.iter().enumerate() {
            sink(device(d))?;
        }
    } else {
        threads::DevicePlanes::new(&trace.devices).build(
            threads - 1,
            &device,
            &building_bytes,
            &progress,
            host,
            &mut sink,
        )?;
    }
    if let Some(p) = summary::scope_tree_plane(&trace.scope_tree) {
        sink(p)?;
    }
    if let Some(p) = summary::hlo_metadata_plane(trace) {
        sink(p)?;
    }
    sink(summary::task_environment_plane(
        trace,
        &base,
        &survey.steps,
        run,
    ))?;

    let mut warnings = trace.warnings.clone();
    warnings.extend(counter_warnings(&trace.counters));
    warnings.extend(survey.steps.warning());
    warnings.extend(base.off_clock.clone());
    if base.early_ns > 0 {
        warnings.push(format!(
            "rocprof-xplane: events began {} ns before the profile start; the time origin was moved back to the earliest event",
            base.early_ns
        ));
    }

    Ok(XSpace {
        planes: Vec::new(),
        errors: Vec::new(),
        warnings,
        hostnames: if trace.hostname.is_empty() {
            Vec::new()
        } else {
            vec![trace.hostname.clone()]
        },
    })
}

/// Bytes a line being built holds per event, at most: its encoded events (about 40–60 B) and
/// the arena's room for those still to come.
const LINE_BYTES_PER_EVENT: u64 = 96;

/// Events ahead of the one being written whose annotation is asked into the cache: about as
/// many as the time a miss takes over the time an event's write takes.
const ANNOTATION_PREFETCH_AHEAD: usize = 8;

/// What building the device planes on `workers` threads beside the host plane adds to the
/// writer's memory, at most: on each worker the largest device plane being built (its largest
/// line whole, and up to the spill size of its finished lines), and every device plane finished
/// before its turn (up to the spill size of its lines each).
pub fn parallel_planes_bytes(trace: &Trace, workers: usize) -> u64 {
    let building = trace.devices.iter().map(building_bytes).max().unwrap_or(0);
    let waiting: u64 = trace.devices.iter().map(waiting_bytes).sum();
    building * workers.min(trace.devices.len()) as u64 + waiting
}

/// What device plane `d` holds while it is built, at most: its largest line whole, and up to
/// the spill size of its finished lines.
fn building_bytes(d: &Device) -> u64 {
    let largest = d.lines.iter().map(line_bytes).max().unwrap_or(0);
    largest + waiting_bytes(d)
}

/// What device plane `d` holds once built, before its turn, at most: up to the spill size of
/// its lines.
fn waiting_bytes(d: &Device) -> u64 {
    let plane: u64 = d.lines.iter().map(line_bytes).sum();
    plane.min(super::spill::SPILL_PAST as u64)
}

fn line_bytes(l: &DeviceLine) -> u64 {
    l.events.len() as u64 * LINE_BYTES_PER_EVENT
}

/// Converts `CLOCK_BOOTTIME` ns to the times written in lines: every line's `timestamp_ns` is
/// `line_ts_ns`, the job-clock time of `origin_ns` (`clock::JobClock`; 0 without one), and an
/// event at boot time `t` is at `(t - origin_ns) * 1000` ps from it, moved where the profile's
/// job clock is not that shift. So xprof places it at its time on the job clock, where every
/// process of the job places its own (`clock`).
struct Timebase<'t> {
    origin_ns: u64,
    /// How far events began before the start (warned of).
    early_ns: u64,
    line_ts_ns: i64,
    /// ps added to every offset: how far this profile's job clock lies from the line
    /// timestamp's (a window whose clock was stepped since the first of its run).
    shift_ps: i64,
    /// The job clock when it is no shift (the wall clock was stepped during the profile):
    /// each offset is then computed through it.
    drift: Option<&'t JobClock>,
    /// The job clock the times are on (`None`: the profile's own start).
    clock: Option<&'t JobClock>,
    /// Why the times could not go on the job clock (warned of).
    off_clock: Option<String>,
    /// Whether the lines note where their events lie ([`crate::xplane::builder::EventPlaces`]):
    /// only a window of a run to be merged is indexed by them.
    placed: bool,
}

impl<'t> Timebase<'t> {
    /// The trace's own origin or, for a window of a run to be merged, the run's (at or before
    /// the window's own), on the job clock when the trace has one that holds its events.
    fn new(trace: &'t Trace, host: &HostEvents, run: Option<&RunIds>) -> Self {
        let (origin_ns, early_ns) = Self::own(trace, host);
        let mut off_clock = None;
        let clock = trace.clock.as_ref().filter(|c| {
            let last = trace.stop_boottime_ns.max(origin_ns);
            if c.holds(origin_ns, last) {
                return true;
            }
            off_clock = Some(format!(
                "rocprof-xplane: this profile's times count from its own start, not from the job's origin ({} ns since the Unix epoch): its events would lie outside 0..{} ns of it (xprof's range)",
                c.origin.unix_ns,
                crate::clock::RANGE_NS
            ));
            false
        });
        let own = RunOrigin {
            boot_ns: origin_ns,
            line_ts_ns: clock.map_or(0, |c| i64::try_from(c.job_ns(origin_ns)).unwrap_or(0)),
        };
        let at = run.map_or(own, |r| r.origin(own));
        let (shift_ps, drift) = match clock {
            None => (0, None),
            Some(c) => match c.shift_ns() {
                // Job time of `t` is `t + shift`: the offset from the line timestamp is
                // `t - origin` plus what is left of the shift (0 for the windows of one
                // process, on one map unless the wall clock was stepped: `JobClock::anchored`).
                Some(shift) => {
                    let left = i128::from(at.boot_ns) + shift - i128::from(at.line_ts_ns);
                    (i64::try_from(left * 1000).unwrap_or(0), None)
                }
                None => (0, Some(c)),
            },
        };
        Timebase {
            origin_ns: at.boot_ns,
            early_ns,
            line_ts_ns: at.line_ts_ns,
            shift_ps,
            drift,
            clock,
            off_clock,
            placed: run.is_some(),
        }
    }

    /// How far the origin lies before `trace.start_boottime_ns` (events before the start, or
    /// a window on its run's clock): what the wall-clock start is moved back by.
    fn before_start_ns(&self, trace: &Trace) -> u64 {
        trace.start_boottime_ns.saturating_sub(self.origin_ns)
    }

    /// The trace's own origin on the boot clock and how far events began before its start.
    fn own(trace: &Trace, host: &HostEvents) -> (u64, u64) {
        if trace.start_covers_events {
            // The join walked every event for this answer: no walk again here, before any
            // plane can start.
            debug_assert!(
                Self::earliest(trace, host).is_none_or(|e| e >= trace.start_boottime_ns),
                "an event starts before the trace's start"
            );
            return (trace.start_boottime_ns, 0);
        }
        match Self::earliest(trace, host) {
            // No profile start recorded (e.g. a converter that knows only the events): start
            // at the first event, never at boot, whose offsets could overflow int64 ps.
            Some(e) if trace.start_boottime_ns == 0 => (e, 0),
            Some(e) if e < trace.start_boottime_ns => (e, trace.start_boottime_ns - e),
            _ => (trace.start_boottime_ns, 0),
        }
    }

    /// The earliest event's start, walking every event.
    fn earliest(trace: &Trace, host: &HostEvents) -> Option<u64> {
        trace
            .devices
            .iter()
            .flat_map(|d| {
                d.lines
                    .iter()
                    .flat_map(|l| l.events.iter().map(|e| e.start_ns))
            })
            .chain(host.threads().flatten().map(|e| e.start_ns))
            .min()
    }

    /// A line of this profile, its timestamp set.
    fn line(&self, id: i64, name: impl Into<String>) -> LineBuilder {
        LineBuilder::new(id, name, self.line_ts_ns).noting_places(self.placed)
    }

    #[inline]
    fn offset_ps(&self, t_ns: u64) -> i64 {
        match self.drift {
            None => ps(t_ns.saturating_sub(self.origin_ns)).saturating_add(self.shift_ps),
            Some(c) => {
                let ns = (c.job_ns(t_ns) - i128::from(self.line_ts_ns)).max(0);
                i64::try_from(ns * 1000).unwrap_or(i64::MAX)
            }
        }
    }
}

/// `ns` in ps, or `i64::MAX` past what an i64 holds (106 days): a product checked by its
/// factor, not worked out in 128 bits.
#[inline]
fn ps(ns: u64) -> i64 {
    const MAX_NS: u64 = i64::MAX as u64 / 1000;
    if ns <= MAX_NS {
        (ns * 1000) as i64
    } else {
        i64::MAX
    }
}

#[inline]
fn duration_ps(start_ns: u64, end_ns: u64) -> i64 {
    ps(end_ns.saturating_sub(start_ns))
}

/// A line of its own for each place of `anchors` that `lone` names (its line id and name, for
/// a place of this plane with no line in this window), holding only its anchors, in line id
/// order: an arrow from a record an earlier window made, in a window to be merged with it
/// (`Collected::earlier_anchors`), starts on a thread or stream this window may not have.
fn anchor_only_lines(
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
    base: &Timebase,
    anchors: &HashMap<AnchorPlace, Vec<AnchorEvent>>,
    lone: impl Fn(&AnchorPlace) -> Option<(i64, String)>,
) {
    let mut lines: Vec<(i64, String, &Vec<AnchorEvent>)> = anchors
        .iter()
        .filter_map(|(place, a)| lone(place).map(|(id, name)| (id, name, a)))
        .collect();
    lines.sort_unstable_by_key(|l| l.0);
    for (id, name, a) in lines {
        let mut line = base.line(id, name);
        AnchorFeed::new(Some(a)).finish(plane, ids, &mut line, |t| base.offset_ps(t));
        plane.add_line(line.finish());
    }
}

#[cfg(test)]
mod tests {
    /// ns → ps is the exact product while an i64 holds it and `i64::MAX` from there on, at
    /// and around the edge.
    #[test]
    fn ps_saturates_where_the_product_leaves_an_i64() {
        let edge = i64::MAX as u64 / 1000;
        for ns in [
            0,
            1,
            999,
            edge - 1,
            edge,
            edge + 1,
            u64::MAX / 1000,
            u64::MAX,
        ] {
            let exact = i64::try_from(u128::from(ns) * 1000).unwrap_or(i64::MAX);
            assert_eq!(super::ps(ns), exact, "{ns}");
        }
        assert_eq!(super::duration_ps(5, 3), 0);
    }
}
