//! The time window stage: the profile covers the session and every event, on the boot clock
//! and the wall clock.

use crate::model::device_counters::DeviceInterval;
use crate::model::trace::{Device, HostThread};

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
    host_threads: &[HostThread],
    devices: &[Device],
    sampled: &[DeviceInterval],
) -> Window {
    // None until known: a start of 0 is "not recorded" only as the collection's, never as an
    // event's. An event at 0 (a record the runtime stamped 0) sets the start to 0, and the
    // next event must not take that 0 for "unset" and set the start past the first.
    let mut start = (c.start_boottime_ns != 0).then_some(c.start_boottime_ns);
    let mut stop = c.stop_boottime_ns;
    let all_times = host_threads
        .iter()
        .flat_map(|t| t.events.iter().map(|e| (e.start_ns, e.end_ns)))
        .chain(
            devices
                .iter()
                .flat_map(|d| d.lines.iter())
                .flat_map(|l| l.events.iter().map(|e| (e.start_ns, e.end_ns))),
        )
        // A device counter interval is drawn from its start, which may be in the window
        // before (its end is in this one).
        .chain(sampled.iter().map(|i| (i.start_ns, i.end_ns)));
    for (s, e) in all_times {
        start = Some(start.map_or(s, |start| start.min(s)));
        stop = stop.max(e);
    }
    let start = start.unwrap_or(0);
    let stop = stop.max(start);
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
