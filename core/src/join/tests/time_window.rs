//! The profile's time window.

use super::*;
use crate::join::join;

/// A call the runtime stamped 0 (a fuzzed record; device records at 0 are dropped and
/// counted, calls are kept) is inside the window: the window starts at 0, not at the next
/// event, so the writer's origin (taken from the window) is at or before every event.
#[test]
fn a_call_stamped_zero_is_inside_the_window() {
    let mut c = base();
    c.start_boottime_ns = 500;
    c.stop_boottime_ns = 2000;
    c.api.push(api(LAUNCH, 1, 0, 0, 7));
    c.api.push(api(LAUNCH, 2, 600, 700, 7));
    let t = join(c);
    let starts: Vec<u64> = t.host_threads[0]
        .events
        .iter()
        .map(|e| e.start_ns)
        .collect();
    assert_eq!(starts, [0, 600]);
    assert_eq!((t.start_boottime_ns, t.stop_boottime_ns), (0, 2000));
    assert!(t.start_covers_events);
    crate::xplane::build_xspace(&t);
}

#[test]
fn window_covers_all_events() {
    let mut c = base();
    c.start_boottime_ns = 1000;
    c.stop_boottime_ns = 2000;
    c.start_walltime_ns = 1_000_000;
    c.stop_walltime_ns = 1_001_000;
    c.api.push(api(LAUNCH, 1, 900, 950, 7));
    c.kernels.push(kernel(1, 1900, 2100, 1, 1, q()));
    let t = join(c);
    assert_eq!((t.start_boottime_ns, t.stop_boottime_ns), (900, 2100));
    assert_eq!(
        (t.start_walltime_ns, t.stop_walltime_ns),
        (999_900, 1_001_100)
    );
    // What the writer takes as its time origin without walking the events again: the
    // call before the session's start is at offset 0, and no warning says the origin moved.
    assert!(t.start_covers_events);
    let space = crate::xplane::build_xspace(&t);
    assert!(space.warnings.iter().all(|w| !w.contains("profile start")));
    let host = space.planes.iter().find(|p| p.name == "/host:CPU").unwrap();
    use crate::xplane::proto::x_event::Data;
    let first = host
        .lines
        .iter()
        .flat_map(|l| &l.events)
        .filter_map(|e| match e.data {
            Some(Data::OffsetPs(o)) => Some(o),
            _ => None,
        })
        .min();
    assert_eq!(first, Some(0));
    let gpu = space
        .planes
        .iter()
        .find(|p| p.name.starts_with("/device:GPU:"))
        .unwrap();
    let kernel = gpu.lines.iter().flat_map(|l| &l.events).next().unwrap();
    assert_eq!(kernel.data, Some(Data::OffsetPs((1900 - 900) * 1000)));
}

#[test]
fn wall_window_follows_the_boottime_window_when_clocks_drift() {
    let mut c = base();
    c.start_boottime_ns = 1000;
    c.stop_boottime_ns = 100_000; // the event clock ran far ahead of …
    c.start_walltime_ns = 5_000_000;
    c.stop_walltime_ns = 5_000_500; // … the wall clock
    c.api.push(api(LAUNCH, 1, 2000, 90_000, 7));
    let t = join(c);
    assert_eq!(
        t.stop_walltime_ns - t.start_walltime_ns,
        t.stop_boottime_ns - t.start_boottime_ns
    );
    assert_eq!(t.start_walltime_ns, 5_000_000);
}

/// The latest end is not always the last event's: a call that ends after the calls that start
/// later on its thread, and a kernel that ends after a later one of its queue (which the
/// stream lines split off onto a line of its own). The window reaches both ends.
#[test]
fn window_reaches_an_end_that_is_not_the_last_event_s() {
    let mut c = base();
    c.start_boottime_ns = 500;
    c.stop_boottime_ns = 1_500;
    c.api.push(api(LAUNCH, 1, 600, 3_000, 7));
    c.api.push(api(LAUNCH, 2, 700, 800, 7));
    c.kernels.push(kernel(1, 900, 4_000, 1, 1, q()));
    c.kernels.push(kernel(2, 1_000, 1_100, 1, 2, q()));
    let t = join(c);
    let line_ends: Vec<Vec<u64>> = t.devices[0]
        .lines
        .iter()
        .map(|l| l.events.iter().map(|e| e.end_ns).collect())
        .collect();
    assert_eq!(
        line_ends,
        [vec![4_000], vec![1_100]],
        "split where it overlaps"
    );
    assert_eq!((t.start_boottime_ns, t.stop_boottime_ns), (500, 4_000));
    let mut c = base();
    c.start_boottime_ns = 500;
    c.stop_boottime_ns = 1_500;
    c.api.push(api(LAUNCH, 1, 600, 3_000, 7));
    c.api.push(api(LAUNCH, 2, 700, 800, 7));
    let t = join(c);
    assert_eq!((t.start_boottime_ns, t.stop_boottime_ns), (500, 3_000));
}
