//! The run's profile assembled in place window by window (`xplane::merge::Assembly`): the same
//! profile, decoded, as the merge of the same windows at exit (`merge_own_files`).

use super::*;
use crate::join::join;
use crate::xplane::merge::{self, Assembly, Indexed, NotAdded, StepIo};
use crate::xplane::proto::XSpace;
use crate::xplane::{OutputLayout, RunIds, WrittenWindow};

/// Four windows of one run: launches and their kernels on thread 7 and GPU 0; roctx ranges
/// open across each cut (left out of the earlier window, shown whole by the later); a call
/// and its kernel handed on to the next window, earlier than the last of the window before;
/// a new thread line, a new device (plane) and a new kernel name (metadata) in the third.
fn windows() -> Vec<Trace> {
    let mut w: Vec<Collected> = (0..4).map(|_| base_with_roctx_names()).collect();
    w[2].symbols.insert(
        2,
        crate::model::events::KernelSymbol {
            name: Arc::from("attention(half*)"),
            sgpr_count: 16,
            arch_vgpr_count: 32,
            accum_vgpr_count: 0,
            group_segment_size: 0,
            private_segment_size: 0,
        },
    );
    for i in 0..1000u64 {
        let (k, at) = match i {
            0..300 => (0, 1_000 + i * 100),
            300..600 => (1, 40_000 + i * 100),
            600..900 => (2, 40_000 + i * 100),
            _ => (3, 40_000 + i * 100),
        };
        let c = &mut w[k];
        c.api.push(api(LAUNCH, 100 + i, at, at + 50, 7));
        c.kernels
            .push(kernel(100 + i, at + 60, at + 90, 1, 100 + i, q()));
        if k == 2 && i % 3 == 0 {
            // A thread and a device first met in the third window, a kernel name too.
            c.api.push(api(LAUNCH, 5_000 + i, at + 10, at + 40, 8));
            let mut kr = kernel(5_000 + i, at + 20, at + 80, 2, 5_000 + i, q() + 1);
            kr.agent = GPU1;
            kr.thread_id = 8;
            c.kernels.push(kr);
        }
    }
    // Handed on across the first cut: earlier than the first window's last call.
    w[1].api.push(api(LAUNCH, 9_000, 29_000, 29_020, 7));
    w[1].kernels
        .push(kernel(9_000, 29_030, 29_040, 1, 9_000, q()));
    w[1].api.push(api(LAUNCH, 9_001, 2_005, 2_010, 7));
    w[1].kernels
        .push(kernel(9_001, 2_015, 2_017, 1, 9_001, q()));
    let range =
        |label: &str, scope, start_ns, end_ns, open_at_end| crate::facts::calls::MarkerSpan {
            start_ns,
            end_ns,
            open_at_end,
            ..range_span(label, scope, 10, 0)
        };
    w[0].markers.push(range("step", 9, 15_010, 31_000, true));
    // Ranges closed within a window after one open across its cut began: the later window's
    // whole range goes before them.
    w[0].markers.push(range("inner", 13, 20_000, 25_000, false));
    w[1].markers.push(range("tail", 14, 96_000, 97_000, false));
    w[1].markers.push(range("step", 9, 15_010, 90_000, false));
    w[1].markers.push(range("fwd", 11, 95_000, 100_000, true));
    w[2].markers.push(range("fwd", 11, 95_000, 125_000, false));
    w[2].markers.push(range("bwd", 12, 128_000, 130_000, true));
    w[3].markers.push(range("bwd", 12, 128_000, 135_000, false));
    w.into_iter().map(join).collect()
}

struct Run {
    dir: tempfile::TempDir,
    ids: RunIds,
    traces: Vec<Trace>,
}

impl Run {
    fn new() -> Run {
        Run::of(windows())
    }

    /// A run of `traces` (its windows, in time order).
    fn of(traces: Vec<Trace>) -> Run {
        Run {
            dir: tempfile::tempdir().unwrap(),
            ids: RunIds::new(),
            traces,
        }
    }

    fn layout(&self, run: &str) -> OutputLayout {
        OutputLayout {
            log_dir: self.dir.path().into(),
            run_name: run.into(),
            host: "h.1".into(),
            durable: false,
        }
    }

    /// The windows written as the writer writes them, in run directories named `tag`k.
    fn write(&self, tag: &str) -> Vec<WrittenWindow> {
        self.traces
            .iter()
            .enumerate()
            .map(|(k, t)| {
                crate::xplane::write_window_placed(
                    t,
                    crate::xplane::HostEvents::of(t),
                    &self.layout(&format!("{tag}{k}")),
                    1,
                    Some(&self.ids),
                )
                .unwrap()
            })
            .collect()
    }

    /// What the merge at exit makes of `windows`, decoded.
    fn merged(&self, windows: &[WrittenWindow], run: &str) -> (XSpace, merge::Merged) {
        let files: Vec<_> = windows.iter().map(|w| w.path.clone()).collect();
        let (path, m) = merge::merge_own_files(&files, &self.layout(run), &[]).unwrap();
        (crate::xplane::read_xspace(path).unwrap(), m)
    }

    /// P begun in run directory `run`; `None`, said, where the filesystem cannot insert
    /// ranges.
    fn start(&self, run: &str) -> Option<Assembly> {
        let a = Assembly::start(&self.layout(run)).unwrap();
        if a.is_none() {
            eprintln!(
                "SKIPPED: {} cannot insert ranges (fallocate INSERT_RANGE): the in-place assembly is not tried there",
                self.dir.path().display()
            );
        }
        a
    }
}

fn events(s: &XSpace) -> usize {
    s.planes
        .iter()
        .flat_map(|p| &p.lines)
        .map(|l| l.events.len())
        .sum()
}

/// Windows put into P one after another decode, after each, to a profile of the windows so
/// far; with the last put in at exit, P decodes to what the merge at exit gives for the same
/// windows: every plane, line, event, metadata and stat. The ranges a window shows open at
/// its end are left out of P until a later window shows them whole, or until it turns out to
/// be the last (finished without a later one: the merge of the windows so far).
#[test]
fn a_profile_assembled_in_place_is_the_merge_of_its_windows() {
    let run = Run::new();
    let written = run.write("w");
    let Some(mut p) = run.start("p") else {
        return;
    };
    for (k, w) in written[..3].iter().enumerate() {
        p.add(Indexed::written(w).unwrap()).unwrap();
        let now = crate::xplane::read_xspace(p.path()).unwrap();
        let (so_far, m) = run.merged(&written[..=k], &format!("m{k}"));
        // P leaves out the newest window's ranges open at its end; the merge of the windows
        // so far keeps them (its last input's).
        assert_eq!(
            events(&now) as u64 + 1,
            m.events,
            "window {k}: P holds every event so far but the newest window's open range"
        );
        assert_eq!(now.planes.len(), so_far.planes.len(), "window {k}");
    }
    // The third window's ranges open at its end go in when no window follows.
    let (whole3, m3) = run.merged(&written[..3], "m3");
    let copy = run.write("c");
    let mut q = run.start("q").unwrap();
    for w in &copy[..3] {
        q.add(Indexed::written(w).unwrap()).unwrap();
    }
    let (path, mq, _) = q
        .finish(None, &[], &run.layout("q"))
        .map_err(|e| e.why)
        .unwrap();
    assert_eq!(crate::xplane::read_xspace(&path).unwrap(), whole3);
    assert_eq!((mq.events, mq.lines), (m3.events, m3.lines));
    // The last window put in at exit: the merge of all four.
    let (whole, m) = run.merged(&written, "all");
    let last = Indexed::written(&written[3]).unwrap();
    let (path, mp, _) = p
        .finish(Some(last), &[], &run.layout("p"))
        .map_err(|e| e.why)
        .unwrap();
    let assembled = crate::xplane::read_xspace(&path).unwrap();
    assert_eq!(assembled, whole);
    assert_eq!(
        (
            mp.inputs,
            mp.planes,
            mp.lines,
            mp.events,
            mp.open_ranges_left_out
        ),
        (
            m.inputs,
            m.planes,
            m.lines,
            m.events,
            m.open_ranges_left_out
        )
    );
    assert_eq!(m.open_ranges_left_out, 3);
    assert!(
        whole.planes.len() >= 4,
        "a plane first met in the third window"
    );
    assert_eq!(path, run.layout("p").file_path());
}

/// The merge of `run`'s windows, where its filesystem lets a profile be assembled in place.
fn merged_where_assembled(run: &Run) -> Option<XSpace> {
    let (whole, _) = run.merged(&run.write("w"), "all");
    run.start("probe").map(|_| whole)
}

/// A window put into P after the first, failing at each of its changes in turn (the disk
/// full there) until one succeeds: `undone` gets each failed put's change number, P with the
/// first window in, P's bytes before the failed put, the windows' files and P's layout. How
/// many puts failed.
fn each_undone_put(
    run: &Run,
    mut undone: impl FnMut(u32, Assembly, Vec<u8>, &[WrittenWindow], &OutputLayout),
) -> u32 {
    let mut failed = 0;
    for fail_at in 1.. {
        let copy = run.write(&format!("f{fail_at}_"));
        let layout = run.layout(&format!("f{fail_at}"));
        let mut p = Assembly::start(&layout).unwrap().unwrap();
        p.add(Indexed::written(&copy[0]).unwrap()).unwrap();
        let before = std::fs::read(p.path()).unwrap();
        p.set_faults(crate::xplane::merge::Faults {
            no_insert: false,
            fail_at: Some(fail_at),
        });
        match p.add(Indexed::written(&copy[1]).unwrap()) {
            Ok(()) => break,
            Err(NotAdded::Undone(_)) => failed += 1,
            Err(e) => panic!("change {fail_at}: {e}"),
        }
        undone(fail_at, p, before, &copy, &layout);
    }
    failed
}

/// A step that fails part way (the disk full at each change in turn) is undone: P is byte
/// for byte as before it, and P with the windows not put in merges at exit into the profile
/// the merge of every window gives.
#[test]
fn a_failed_step_is_undone_and_the_rest_is_merged_at_exit() {
    let run = Run::new();
    let Some(whole) = merged_where_assembled(&run) else {
        return;
    };
    let failed = each_undone_put(&run, |fail_at, p, before, copy, layout| {
        assert!(
            std::fs::read(p.path()).unwrap() == before,
            "change {fail_at}: P is as it was"
        );
        let rest: Vec<_> = copy[1..]
            .iter()
            .map(|w| Indexed::written(w).unwrap())
            .collect();
        let (path, _) = merge::merge_own_indexed(rest, &[p.path()], layout, &[]).unwrap();
        assert_eq!(
            crate::xplane::read_xspace(&path).unwrap(),
            whole,
            "change {fail_at}"
        );
    });
    assert!(failed > 5, "a step of several changes: {failed}");
}

/// A step that fails part way leaves the assembly as it was, the windows' heads it keeps
/// too: the same window put in again, then the rest, make the profile the merge of every
/// window gives (a window's heads merged in twice would count its Task Environment's
/// counters twice).
#[test]
fn a_window_put_in_again_after_a_failed_step_counts_once() {
    let run = Run::new();
    let Some(whole) = merged_where_assembled(&run) else {
        return;
    };
    let failed = each_undone_put(&run, |fail_at, mut p, _, copy, layout| {
        p.set_faults(crate::xplane::merge::Faults::default());
        for w in &copy[1..3] {
            p.add(Indexed::written(w).unwrap()).unwrap();
        }
        let last = Indexed::written(&copy[3]).unwrap();
        let (path, m, _) = p
            .finish(Some(last), &[], layout)
            .map_err(|e| e.why)
            .unwrap();
        assert_eq!(m.inputs, 4);
        assert_eq!(
            crate::xplane::read_xspace(&path).unwrap(),
            whole,
            "change {fail_at}"
        );
    });
    assert!(failed > 5, "a step of several changes: {failed}");
}

/// Where the filesystem cannot insert ranges, no profile is begun: the windows are merged at
/// exit as before.
#[test]
fn without_insert_range_nothing_is_assembled() {
    let run = Run::new();
    let faults = crate::xplane::merge::Faults {
        no_insert: true,
        fail_at: None,
    };
    let a = Assembly::start_with(&run.layout("p"), faults).unwrap();
    assert!(a.is_none());
    let dir = run.layout("p").run_dir();
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0, "no P is left");
}

/// A window's Task Environment holds some stats only when they tell something: the clock's
/// drift where the boot and wall clocks parted within the window, the offset where the job's
/// clock reference was asked. A window with such a stat between windows without it keeps
/// every name's id, so every window goes into P in place (a window whose Task Environment
/// numbered its names afresh was refused, "a window on other ids than the run's", and the
/// rest of the run was read back and merged at exit), and P is the merge of the windows.
#[test]
fn a_window_with_a_clock_drift_goes_in_place_as_the_others() {
    use crate::clock::{ClockPair, JobClock, JobTimeSource, Origin};
    let mut run = Run::new();
    let origin = Origin {
        unix_ns: 1_700_000_000_000_000_000,
        source: JobTimeSource::OwnStart,
    };
    for (k, t) in run.traces.iter_mut().enumerate() {
        let pair = |boot_ns: u64, drift_ns: u64| ClockPair {
            boot_ns,
            wall_ns: origin.unix_ns + boot_ns + drift_ns,
            error_ns: 10,
        };
        // The wall clock stepped 5 µs ahead of the boot clock in the second window only.
        let drift = if k == 1 { 5_000 } else { 0 };
        let (start, stop) = (
            t.start_boottime_ns,
            t.stop_boottime_ns.max(t.start_boottime_ns + 1),
        );
        let clock = JobClock::new(origin, pair(start, 0), pair(stop, drift), None, None);
        assert_eq!(clock.drift_ns() != 0, k == 1, "window {k}");
        t.clock = Some(clock);
    }
    let Some(whole) = merged_where_assembled(&run) else {
        return;
    };
    let written = run.write("d");
    let mut p = run.start("p").unwrap();
    for (k, w) in written[..3].iter().enumerate() {
        let added = p.add(Indexed::written(w).unwrap());
        assert!(
            added.is_ok(),
            "window {k}: {:?}",
            added.err().map(|e| e.to_string())
        );
    }
    let last = Indexed::written(&written[3]).unwrap();
    let (path, m, _) = p
        .finish(Some(last), &[], &run.layout("p"))
        .map_err(|e| e.why)
        .unwrap();
    assert_eq!(m.inputs, 4);
    assert_eq!(crate::xplane::read_xspace(&path).unwrap(), whole);
}

/// `n` windows of one run, alike: each `launches` on thread 7 and their kernels on GPU 0,
/// a roctx range around every 100 launches, and a range open across each cut (shown whole by
/// the later window, where it sorts before the earlier window's last ranges: an early event),
/// and one open from the fourth window to the eleventh (an early event seven windows back).
fn alike(n: u64, launches: u64) -> Vec<Trace> {
    let span = 1_000 * launches + 400_000;
    let range = |label: &str, scope: u64, start_ns, end_ns, open_at_end| MarkerSpan {
        start_ns,
        end_ns,
        open_at_end,
        ..range_span(label, scope, 10, 0)
    };
    (0..n)
        .map(|k| {
            let mut c = base_with_roctx_names();
            let t0 = 1_000 + k * span;
            for i in 0..launches {
                let (corr, at) = (100 + k * 10_000 + i, t0 + i * 1_000);
                c.api.push(api(LAUNCH, corr, at, at + 50, 7));
                c.kernels.push(kernel(corr, at + 60, at + 90, 1, corr, q()));
                if i % 100 == 0 {
                    let scope = 1_000_000 + k * 1_000 + i;
                    c.markers.push(range("step", scope, at, at + 99_000, false));
                }
            }
            // Open across the cut after this window; the window before's, closed here.
            let open = |k: u64| 5_000_000 + k;
            let across = t0 + 450_000;
            c.markers
                .push(range("across", open(k), across, t0 + span, true));
            if k > 0 {
                let start = across - span;
                c.markers
                    .push(range("across", open(k - 1), start, t0 + 20_000, false));
            }
            // Open from the fourth window to the eleventh: placed among the fourth's events,
            // where P's samples are thinned by then.
            let epoch = 1_000 + 3 * span + 250_000;
            if (3..10).contains(&k) {
                c.markers
                    .push(range("epoch", 6_000_000, epoch, t0 + span, true));
            } else if k == 10 {
                c.markers
                    .push(range("epoch", 6_000_000, epoch, t0 + 30_000, false));
            }
            join(c)
        })
        .collect()
}

/// A window's step moves about the window's own bytes, whatever the windows before it: a
/// few blocks a line more (the block a piece begins in, the one it ends in, heads), and of P
/// reads back only the block an early event goes into and the events read to find its
/// place. So puts of alike windows move alike bytes however many windows P holds, and the
/// exit's step, the last window's, moves no more. Every read and write of P in a step is
/// counted (`StepIo`).
#[test]
fn a_put_moves_its_window_not_the_windows_before_it() {
    let run = Run::of(alike(12, 600));
    let written = run.write("w");
    let Some(mut p) = run.start("p") else {
        return;
    };
    let block = p.block();
    let mut steps = Vec::new();
    let (last, before) = written.split_last().unwrap();
    for w in before {
        p.add(Indexed::written(w).unwrap()).unwrap();
        steps.push(p.last_step());
    }
    let (path, m, exit) = p
        .finish(Some(Indexed::written(last).unwrap()), &[], &run.layout("p"))
        .map_err(|e| e.why)
        .unwrap();
    steps.push(exit);
    let (whole, _) = run.merged(&written, "all");
    assert_eq!(crate::xplane::read_xspace(&path).unwrap(), whole);
    let lines = m.lines as u64;
    let window_len = |w: &WrittenWindow| std::fs::metadata(&w.path).unwrap().len();
    for (k, (s, w)) in steps.iter().zip(&written).enumerate() {
        eprintln!("window {k}: {s} (window file {} B)", window_len(w));
        assert!(
            s.written + s.copied <= window_len(w) + 3 * block * (lines + m.planes as u64),
            "window {k}: {s}: more than its window and three blocks a line"
        );
        if k > 0 {
            assert!(s.read_back >= block, "window {k}: the early range's block");
        }
        // The eleventh also places the range open since the fourth, among events P's
        // samples were thinned over by then: its block, and the events read from a sample
        // up to a stride before it.
        let early = if k == 10 { 2 } else { 1 };
        assert!(s.read_back <= (early + 1) * block, "window {k}: {s}");
    }
    // Alike windows, alike steps: the tenth window's and the exit's are the second's, give
    // or take the blocks a head grows by (and the eleventh's range: a block read, one
    // inserted and written, the events read to place it).
    let moved = |s: &StepIo| s.written + s.copied + s.read_back;
    for (k, s) in steps.iter().enumerate().skip(2) {
        let more = if k == 10 {
            3 * block + 2 * block
        } else {
            2 * block
        };
        assert!(
            moved(s).abs_diff(moved(&steps[1])) <= more,
            "window {k} moved {} B, the second {} B",
            moved(s),
            moved(&steps[1])
        );
    }
}

/// A window put into P is let go once the next is in (its heads and its lines' indexes:
/// `Input::forget`), and P's lines keep a bounded number of samples (`Samples`): P holds no
/// memory per window, however long the run. Puts of alike windows (4,000 launches each)
/// from the 40th to the 100th leave the tool's heap where it was, give or take the samples'
/// thinning and a path per window; without the letting go it grew by each window's heads and
/// indexes and P's samples. Counted by the `heap-stats` build (`ci/test.sh` runs it alone).
#[cfg(feature = "heap-stats")]
#[test]
fn an_assembly_holds_nothing_per_window_heap() {
    let run = Run::of(alike(100, 4_000));
    let written = run.write("w");
    let Some(mut p) = run.start("p") else {
        return;
    };
    let mut live = Vec::new();
    for w in &written {
        p.add(Indexed::written(w).unwrap()).unwrap();
        live.push(crate::heap::stats().unwrap().0);
    }
    // By the 40th window the busiest lines hold all the samples they keep.
    let (at40, at100) = (live[39], live[99]);
    eprintln!("the heap after window 40: {at40} B, after window 100: {at100} B");
    assert!(
        at100 < at40 + 60 * 1024,
        "{} B more after 60 windows more",
        at100.saturating_sub(at40)
    );
}

/// Where the filesystem cannot insert ranges, each window is held for the merge at exit with
/// a few samples a line (`Indexed::thin_for_exit`): the merge of windows so thinned is the
/// merge of the windows indexed whole, ranges open across the cuts and far back included.
#[test]
fn windows_thinned_for_the_merge_at_exit_merge_as_they_were() {
    let run = Run::of(alike(12, 1_500));
    let written = run.write("w");
    let (whole, m) = run.merged(&written, "all");
    let mut held: Vec<Indexed> = written
        .iter()
        .map(|w| Indexed::written(w).unwrap())
        .collect();
    let before: usize = held.iter().map(Indexed::samples).sum();
    for w in &mut held {
        w.thin_for_exit();
    }
    let after: usize = held.iter().map(Indexed::samples).sum();
    assert!(after * 4 < before, "{before} samples, {after} thinned");
    let (path, mt) = merge::merge_own_indexed(held, &[], &run.layout("thin"), &[]).unwrap();
    assert_eq!(crate::xplane::read_xspace(path).unwrap(), whole);
    assert_eq!((mt.events, mt.spliced), (m.events, m.spliced));
}
