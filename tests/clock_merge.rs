//! Windows on the job clock (`clock`, docs/clock.md) merged into one profile keep it: every
//! event where its window put it on the job clock, the windows of one run (`xplane::RunIds`)
//! copied as they are, windows written each on its own start re-encoded onto the same times,
//! and the merged Task Environment names the job's origin and the run's whole span of pairs.

mod support;

use rocprof_xplane::clock::{ClockPair, JobClock, Origin};
use rocprof_xplane::model::Trace;
use rocprof_xplane::xplane::merge::{merge_files, merge_own_files};
use rocprof_xplane::xplane::{read_xspace, OutputLayout, RunIds};
use support::synthetic as common;
use support::xspace::{plane_stats, TASK_ENV};

fn layout_in(dir: &std::path::Path, run: &str) -> OutputLayout {
    OutputLayout {
        log_dir: dir.into(),
        run_name: run.into(),
        host: "h.1".into(),
        durable: false,
    }
}

/// `t` on the job clock of a host whose wall clock reads `wall_minus_boot` more than its boot
/// clock, its pairs read at its start and end.
fn on_the_job_clock(mut t: Trace, origin: Origin, wall_minus_boot: u64) -> Trace {
    let pair = |boot_ns: u64| ClockPair {
        boot_ns,
        wall_ns: boot_ns + wall_minus_boot,
        error_ns: 50,
    };
    t.clock = Some(JobClock::new(
        origin,
        pair(t.start_boottime_ns),
        pair(t.stop_boottime_ns),
        None,
        None,
    ));
    t
}

/// Every event's (plane, line, name, absolute start in ps): the line timestamp and the offset.
fn placed(s: &rocprof_xplane::xplane::proto::XSpace) -> Vec<(String, i64, String, i64)> {
    let mut v = Vec::new();
    for p in &s.planes {
        for e in support::xspace::events(p) {
            v.push((
                p.name.clone(),
                e.line.id,
                e.name().to_string(),
                e.start_ps(),
            ));
        }
    }
    v.sort();
    v
}

/// `t` with every event `by` ns later, its start at `at` and its stop after its last event.
fn moved(mut t: Trace, by: u64, at: u64) -> Trace {
    let mut last = at;
    for d in &mut t.devices {
        for l in &mut d.lines {
            for e in &mut l.events {
                e.start_ns += by;
                e.end_ns += by;
                last = last.max(e.end_ns);
            }
        }
    }
    for th in &mut t.host_threads {
        for e in &mut th.events {
            e.start_ns += by;
            e.end_ns += by;
            last = last.max(e.end_ns);
        }
    }
    t.start_boottime_ns = at;
    t.stop_boottime_ns = last + 1_000;
    t.start_covers_events = false;
    t
}

#[test]
fn windows_on_the_job_clock_keep_their_times_when_merged() {
    let wall_minus_boot = common::START_WALL_NS - common::START_BOOT_NS;
    let origin = Origin::own(common::START_WALL_NS);
    // A window of launches from the run's start, then a window after it.
    let first = moved(
        common::launches(40),
        common::START_BOOT_NS,
        common::START_BOOT_NS,
    );
    let first = on_the_job_clock(first, origin, wall_minus_boot);
    let (second, _) = common::synthetic_trace();
    let at = first.stop_boottime_ns;
    let second = moved(second, at, at);
    let second = on_the_job_clock(second, origin, wall_minus_boot);

    let dir = tempfile::tempdir().unwrap();
    let layout = |run: &str| layout_in(dir.path(), run);
    let write = |t: &Trace, name: &str, run: Option<&RunIds>| {
        rocprof_xplane::xplane::write_window(t, &layout(name), 2, run).unwrap()
    };
    let run = RunIds::new();
    let shared = [
        write(&first, "s_w0001", Some(&run)),
        write(&second, "s_w0002", Some(&run)),
    ];
    let own = [
        write(&first, "o_w0001", None),
        write(&second, "o_w0002", None),
    ];
    // Each window's lines carry the job-clock time of its own first instant, or of the run's.
    let line_ts = |p: &std::path::Path| {
        let s = read_xspace(p).unwrap();
        let mut ts: Vec<i64> = s
            .planes
            .iter()
            .flat_map(|p| p.lines.iter().map(|l| l.timestamp_ns))
            .collect();
        ts.dedup();
        ts
    };
    let first_ts = (common::START_WALL_NS - origin.unix_ns) as i64;
    assert_eq!(line_ts(&shared[0]), vec![first_ts]);
    assert_eq!(line_ts(&shared[1]), vec![first_ts], "the run's");
    assert!(line_ts(&own[1])[0] > first_ts, "its own");

    let (a, ma) = merge_own_files(&shared, &layout("s"), &[]).unwrap();
    let (b, mb) = merge_files(&own, &layout("o")).unwrap();
    assert_eq!(
        ma.copied, ma.events,
        "one run's windows are copied as they are"
    );
    assert!(
        mb.copied < mb.events,
        "windows on their own starts are moved"
    );
    let (a, b) = (read_xspace(&a).unwrap(), read_xspace(&b).unwrap());
    // Where each window put each event is where the merge puts it.
    let mut windows: Vec<_> = own
        .iter()
        .flat_map(|p| placed(&read_xspace(p).unwrap()))
        .collect();
    windows.sort();
    assert_eq!(placed(&a), windows);
    assert_eq!(placed(&b), windows);
    for s in [&a, &b] {
        let env = plane_stats(support::xspace::plane(s, TASK_ENV));
        let u = |k: &str| env[k].as_u64().unwrap();
        assert_eq!(u("rocprof_xplane_clock_origin_unix_ns"), origin.unix_ns);
        assert_eq!(
            u("rocprof_xplane_clock_boot_ns"),
            first.start_boottime_ns,
            "the first window's start pair"
        );
        assert_eq!(
            u("rocprof_xplane_clock_stop_boot_ns"),
            second.stop_boottime_ns,
            "the last window's end pair"
        );
        assert_eq!(
            u("rocprof_xplane_clock_error_ns"),
            50,
            "the largest, not a sum"
        );
    }
}

/// A run's windows merged by the CLI are put in the order they were collected, though a
/// window that took in a call from windows back (`model::carry`) starts before the window
/// before it: the range the earlier window shows open at its end (it goes on in the later
/// one) is left out, as it is from any window but the last.
#[test]
fn windows_are_merged_in_the_order_they_were_collected() {
    use rocprof_xplane::model::{HostEvent, HostEventKind, Launched, Ordinal16, RangeInfo};
    let wall_minus_boot = common::START_WALL_NS - common::START_BOOT_NS;
    let origin = Origin::own(common::START_WALL_NS);
    let mut first = moved(
        common::launches(40),
        common::START_BOOT_NS,
        common::START_BOOT_NS,
    );
    let range = first.names.push(std::sync::Arc::from("train_step"));
    let open = HostEvent {
        name: range,
        start_ns: common::START_BOOT_NS + 2_000,
        end_ns: first.stop_boottime_ns,
        correlation_id: 0,
        kind: HostEventKind::MarkerRange(RangeInfo {
            process_wide: false,
            open_at_end: true,
        }),
        annotation: None,
        device: Ordinal16::NONE,
        launched: Launched::count(0),
    };
    first.host_threads[0].events.push(open);
    let first = on_the_job_clock(first, origin, wall_minus_boot);
    let (second, _) = common::synthetic_trace();
    let at = first.stop_boottime_ns;
    let mut second = moved(second, at, at);
    // A call handed on from before the first window's start: the second window's own origin
    // is earlier than the first's.
    let mut taken_in = second.host_threads[0].events[0];
    taken_in.start_ns = common::START_BOOT_NS - 5_000;
    taken_in.end_ns = common::START_BOOT_NS - 4_000;
    second.host_threads[0].events.insert(0, taken_in);
    let second = on_the_job_clock(second, origin, wall_minus_boot);

    let dir = tempfile::tempdir().unwrap();
    let layout = |run: &str| layout_in(dir.path(), run);
    let windows = [(&first, "o_w0001"), (&second, "o_w0002")]
        .map(|(t, name)| rocprof_xplane::xplane::write_window(t, &layout(name), 2, None).unwrap());
    let origin_of = |p: &std::path::Path| {
        let s = read_xspace(p).unwrap();
        plane_stats(support::xspace::plane(&s, TASK_ENV))["rocprof_xplane_origin_boottime_ns"]
            .as_u64()
            .unwrap()
    };
    assert!(
        origin_of(&windows[1]) < origin_of(&windows[0]),
        "the second window starts first"
    );
    let (merged, m) = merge_files(&windows, &layout("o")).unwrap();
    let merged = read_xspace(&merged).unwrap();
    let opens = support::xspace::listing(&merged, &[])
        .into_iter()
        .filter(|(k, _)| k.contains("open_at_end="))
        .count();
    assert_eq!(opens, 0, "the first window's open range is left out");
    let each: usize = windows
        .iter()
        .map(|p| placed(&read_xspace(p).unwrap()).len())
        .sum();
    assert_eq!(placed(&merged).len(), each - 1);
    assert_eq!(m.events as usize, each - 1);
    assert_eq!(
        plane_stats(support::xspace::plane(&merged, TASK_ENV))["rocprof_xplane_clock_stop_boot_ns"]
            .as_u64(),
        Some(second.stop_boottime_ns),
        "the last window's end pair"
    );
}
