//! The time window stage: the profile covers the session and every event, on the boot clock
//! and the wall clock.

use crate::model::device_counters::DeviceInterval;
use crate::model::trace::Device;

use super::input::Header;

/// The profile's time window, boot and wall clock.
pub(super) struct Window {
    pub start: u64,
    pub stop: u64,
    pub start_wall: u64,
    pub stop_wall: u64,
}

/// The window covers the session and every event (events before the start move it).
/// The wall-clock window is the same two instants on the job clock (`clock::JobClock`), or,
/// without one, the boottime window shifted by the offset between the two clocks measured at
/// the start: either way the Task Environment times and the event offsets agree.
pub(super) fn time_window(
    c: &Header,
    host: Option<(u64, u64)>,
    devices: &[Device],
    sampled: &[DeviceInterval],
) -> Window {
    // The events' earliest start and latest end: the host threads' from the host events stage,
    // which made them, and each device line's from its ends.
    let mut times = Times {
        first: u64::MAX,
        last: c.stop_boottime_ns,
        any: false,
    };
    if let Some(span) = host {
        times.include(span);
    }
    // A line's events follow one another (`model::streams`: sorted by start, split where they
    // overlap, each ending at or after its start, `device_work::usable_span`): its first
    // starts first and its last ends last.
    for l in devices.iter().flat_map(|d| d.lines.iter()) {
        debug_assert!(
            l.events.windows(2).all(|w| w[0].end_ns <= w[1].start_ns)
                && l.events.iter().all(|e| e.start_ns <= e.end_ns),
            "a device line's events overlap"
        );
        if let (Some(first), Some(last)) = (l.events.first(), l.events.last()) {
            times.include((first.start_ns, last.end_ns));
        }
    }
    // A device counter interval is drawn from its start, which may be in the window before
    // (its end is in this one).
    times.cover(sampled, |i| (i.start_ns, i.end_ns));
    // A start of 0 is "not recorded" only as the collection's, never as an event's: an event
    // at 0 (a record the runtime stamped 0) sets the start to 0.
    let start = if c.start_boottime_ns != 0 {
        c.start_boottime_ns.min(times.first)
    } else if times.any {
        times.first
    } else {
        0
    };
    let stop = times.last.max(start);
    let (start_wall, stop_wall) = if let Some(clock) = &c.clock {
        let wall =
            |t: u64| u64::try_from(i128::from(clock.origin.unix_ns) + clock.job_ns(t)).unwrap_or(0);
        (wall(start), wall(stop))
    } else if c.start_walltime_ns == 0 {
        (0, 0)
    } else {
        let offset = i128::from(c.start_walltime_ns) - i128::from(c.start_boottime_ns);
        let wall = |t: u64| u64::try_from(i128::from(t) + offset).unwrap_or(0);
        (wall(start), wall(stop))
    };
    Window {
        start,
        stop,
        start_wall,
        stop_wall: stop_wall.max(start_wall),
    }
}

/// The earliest start and the latest end of the events covered so far (`first` is `u64::MAX`
/// while `any` is false).
struct Times {
    first: u64,
    last: u64,
    any: bool,
}

impl Times {
    fn cover<T>(&mut self, events: &[T], span: impl Fn(&T) -> (u64, u64)) {
        let (mut first, mut last) = (self.first, self.last);
        for e in events {
            let (s, e) = span(e);
            first = first.min(s);
            last = last.max(e);
        }
        (self.first, self.last) = (first, last);
        self.any |= !events.is_empty();
    }

    /// One span covered.
    fn include(&mut self, (start, end): (u64, u64)) {
        (self.first, self.last) = (self.first.min(start), self.last.max(end));
        self.any = true;
    }
}
