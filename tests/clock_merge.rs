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
