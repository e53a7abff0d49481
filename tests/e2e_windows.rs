//! Capture windows: while the program runs the tool cuts what it holds into complete
//! profiles, one run directory per window. Through the simulated rocprofiler-sdk runtime (test
//! infrastructure, not hardware): windows by record count cover every record exactly once,
//! with no call cut from its kernel;
//! windows by time survive the process being killed with SIGKILL mid-run; a window on the
//! user's signal; and real xprof opens the windows.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rocprof_xplane::xplane::proto::XSpace;
use rocprof_xplane::xplane::read_xspace;
use support::paths::tool_library;
use support::sim::Direct;
use support::truth::read_truth;
use support::u;
use support::xspace::{counters, device_counts_by_name, host_tids, listing};

/// `scenario` run directly on `sdk` with this build's tool, writing run `run` under `dir`.
fn traced(scenario: &Path, sdk: &str, dir: impl AsRef<std::ffi::OsStr>, run: &str) -> Direct {
    Direct::new(scenario, sdk)
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", dir)
        .env("ROCPROF_XPLANE_RUN_NAME", run)
}

/// `scenarios/thread-storm.toml` with `repeat` iterations per thread (32 threads).
fn storm(dir: &Path, repeat: u32) -> PathBuf {
    support::paths::scaled_scenario(dir, "thread-storm.toml", 25000, repeat)
}

/// Window run directories `<run>_wNNNN` under `log_dir`, sorted, each with its files.
fn windows(log_dir: &Path, run: &str) -> BTreeMap<String, Vec<PathBuf>> {
    let mut m = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(log_dir.join("plugins/profile")) else {
        return m;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with(&format!("{run}_w")) {
            continue;
        }
        let files: Vec<PathBuf> = std::fs::read_dir(e.path())
            .unwrap()
            .flatten()
            .map(|f| f.path())
            .collect();
        m.insert(name, files);
    }
    m
}

/// Window runs by record count: several windows, and together they hold every record the
/// runtime delivered, each exactly once (per-kind counters and kernel events summed over the
/// windows equal the runtime's emitted records), and no launch is shown apart from its
/// kernel. Both SDK families.
///
/// How many windows a run gives depends on the machine: the tool's thread cuts at its ticks,
/// and a window grows by what arrives while the cut before it runs, so on a loaded machine a
/// run can end before its first cut. The storm's second half therefore starts only once the
/// first window is written (`ROCPROF_SIM_HOLD_FILE`): at least two windows, whatever the load.
#[test]
fn count_windows_hold_every_record_exactly_once() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = storm(tmp.path(), 250);
    for sdk in ["0.6.0", "1.0.0"] {
        let dir = tmp.path().join(sdk);
        let truth_path = dir.join("truth.json");
        std::fs::create_dir_all(&dir).unwrap();
        let first_written = || {
            windows(&dir, "win")
                .values()
                .flatten()
                .any(|f| f.to_string_lossy().ends_with(".xplane.pb"))
        };
        let out = traced(&scenario, sdk, &dir, "win")
            .env("ROCPROF_XPLANE_WINDOW_EVENTS", "3000")
            .ground_truth(&truth_path)
            .output_held_until(&tmp.path().join(format!("hold-{sdk}")), first_written);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{sdk}: {stderr}");
        let w = windows(&dir, "win");
        assert!(w.len() >= 2, "{sdk}: windows {w:?}\n{stderr}");
        let truth = read_truth(&truth_path);
        let emitted = &truth["delivery"]["emitted_per_kind"];
        let (mut kernels, mut api, mut markers, mut kernel_events) = (0, 0, 0, 0);
        let (mut unlaunched, mut uncalled) = (0, 0);
        for (name, files) in &w {
            assert_eq!(files.len(), 1, "{sdk}: {name}: {files:?}");
            let s = read_xspace(&files[0]).unwrap_or_else(|e| panic!("{name}: {e}"));
            support::xspace::assert_lines_nest(&s, name);
            let c = counters(&s);
            kernels += c["kernel_records"];
            api += c["api_records"];
            markers += c["marker_records"];
            kernel_events += device_counts_by_name(&s).0.values().sum::<u64>();
            unlaunched += c["launches_without_activity"];
            uncalled += c["activities_without_api"];
        }
        // Every launch of the storm makes a kernel: a cut between the two hands the call on
        // to the next window (`model::carry`), so no window shows one without the other (the
        // first window had shown 10,398 launches without their kernels, the second as many
        // kernels without their calls, labels or streams).
        assert_eq!(
            (unlaunched, uncalled),
            (0, 0),
            "{sdk}: split at a cut\n{stderr}"
        );
        assert_eq!(
            kernels,
            u(&emitted["KERNEL_DISPATCH"]),
            "{sdk}: kernel records"
        );
        assert_eq!(kernel_events, kernels, "{sdk}: kernel events");
        assert_eq!(
            api,
            support::truth::hip_calls_recorded(&truth, true),
            "{sdk}: API records"
        );
        assert_eq!(
            markers,
            support::truth::roctx_calls_recorded(&truth),
            "{sdk}: roctx records"
        );
        // The windows cut while running, plus the one written at exit unless nothing came
        // after the last cut.
        let cut = stderr.matches("wrote window ").count();
        assert!(w.len() == cut || w.len() == cut + 1, "{sdk}: {stderr}");
        if sdk == "1.0.0" && support::xprof::available() {
            for files in w.values().take(2) {
                let host = support::paths::host_of(&files[0]);
                let s = support::xprof::summary(&files[0], &host);
                assert_eq!(s["errors"], serde_json::json!({}), "{sdk}: xprof errors");
            }
        }
    }
}

/// Windows cut through a MaxText-shaped run (8 GPUs, graph launches, copies, event records
/// and waits; `scenarios/maxtext-scale.toml` at 365 steps), where the GPUs run behind the
/// host: what a cut separates is handed on (`model::carry`), so no window shows a launch
/// without its kernel, every wait resolves to its record, and every kernel keeps its roctx
/// labels. Before the carry, a run cut into 4 windows showed 21,554 launches without their
/// kernels, 4 unresolved waits and 34,104 kernels without labels.
#[test]
fn windows_keep_launches_with_their_kernels_and_waits_with_their_records() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = support::paths::scaled_scenario(tmp.path(), "maxtext-scale.toml", 36500, 365);
    // The run's second half starts once the first window is written: several windows on a
    // loaded machine too (`count_windows_hold_every_record_exactly_once`).
    let first_written = || {
        windows(tmp.path(), "mt")
            .values()
            .flatten()
            .any(|f| f.to_string_lossy().ends_with(".xplane.pb"))
    };
    let out = traced(&scenario, "1.0.0", tmp.path(), "mt")
        .env("ROCPROF_XPLANE_WINDOW_EVENTS", "10000")
        .output_held_until(&tmp.path().join("hold"), first_written);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let w = windows(tmp.path(), "mt");
    assert!(w.len() >= 2, "windows {w:?}\n{stderr}");
    let (mut unlaunched, mut resolved, mut unresolved, mut kernels) = (0, 0, 0, 0);
    let mut without_arrow = 0;
    for (name, files) in &w {
        let s = read_xspace(&files[0]).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Calls handed on land among the next window's: no line may overlap partially.
        support::xspace::assert_lines_nest(&s, name);
        let c = counters(&s);
        unlaunched += c["launches_without_activity"];
        resolved += c["waits_resolved"];
        unresolved += c["waits_unresolved"];
        without_arrow += c["waits_without_arrow"];
        for k in support::xspace::kernels(&s) {
            assert!(
                k.stat("scope_range_id").is_some(),
                "{name}: kernel {} without its roctx labels",
                k.name()
            );
            kernels += 1;
        }
    }
    assert_eq!(
        unlaunched, 0,
        "launches shown without their kernels\n{stderr}"
    );
    assert_eq!(
        unresolved, 0,
        "waits without their records ({resolved} resolved)"
    );
    assert!(resolved > 0 && kernels > 0);

    // Against the run written whole, event by event: the windows differ only where a
    // boundary must show (docs/configuration.md): the arrow of a wait
    // whose record is in an earlier window (neither anchor is drawn), and an arrow whose wait
    // or record is in another window than the work it anchors to: a wait whose stream's next
    // work came after the cut, a record returning after the cut with the work before it
    // written (that end of the arrow is at the call).
    let whole_dir = tmp.path().join("whole");
    let out = traced(&scenario, "1.0.0", &whole_dir, "mt").output();
    assert!(out.status.success());
    let whole = support::xspace::read_one(&whole_dir, "mt");
    let spaces: Vec<XSpace> = w.values().map(|f| read_xspace(&f[0]).unwrap()).collect();
    let eq = compare_windows(&whole, &spaces);
    let cut = cut_differences(&eq, &whole);
    // Each graph launch's work was counted (`GraphLaunchFact`): none is written before all of
    // it came, though SDK 1.0.0 has no `HIP_GRAPH` callbacks.
    assert_eq!(cut.late, 0, "{cut:?}");
    // Each arrow not drawn is counted where its wait is, both its anchors missing.
    assert_eq!(
        cut.missing_anchors as u64,
        2 * without_arrow,
        "arrows not drawn against the count"
    );
    assert!(
        (cut.missing_anchors + cut.moved) * 100 <= cut.anchors,
        "{cut:?}"
    );
    // Merged into one profile, the windows show what they showed apart, on one clock.
    let merged = support::cli::merge(tmp.path(), "mt");
    let one = compare_windows(&whole, std::slice::from_ref(&merged));
    assert_eq!(
        (one.only_windows, one.only_whole, one.matched),
        (eq.only_windows, eq.only_whole, eq.matched)
    );

    // Windows merged at exit (`WINDOW_MERGE`) draw every arrow as the run written whole
    // does, anchor for anchor: a wait whose stream's next work came after the cut goes on
    // to the window of that work, and a record returning after the cut starts its arrows
    // where its window found the work before it.
    let merged_dir = tmp.path().join("merged");
    let out = traced(&scenario, "1.0.0", &merged_dir, "mt")
        .env("ROCPROF_XPLANE_WINDOW_EVENTS", "10000")
        .env("ROCPROF_XPLANE_WINDOW_MERGE", "1")
        .output();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = support::xspace::read_one(&merged_dir, "mt");
    // Waits held for the work after them land among the next window's calls: no line of the
    // merged profile may hold partially overlapping events.
    support::xspace::assert_lines_nest(&merged, "the WINDOW_MERGE profile");
    let eq = compare_windows(&whole, std::slice::from_ref(&merged));
    let cut = cut_differences(&eq, &whole);
    assert_eq!(
        (cut.late, cut.moved, cut.missing_anchors),
        (0, 0, 0),
        "{cut:?}"
    );
    assert_eq!(counters(&merged)["waits_without_arrow"], 0);
    // A late graph dispatch is shown as launched: its call is in the merged profile.
    assert_eq!(counters(&merged)["activities_without_api"], 0);
}

/// With nothing set, a run longer than one window (`config::DEFAULT_MERGE_WINDOW_EVENTS`,
/// 1,000,000 records) is joined and written window by window while it runs, and the windows
/// are one profile at exit in the run's own directory: no window directory is left, the user
/// reads one line about it (no line per window), and it shows what the run held whole until
/// exit (`ROCPROF_XPLANE_WINDOW_MERGE=0`) shows, arrow for arrow, each graph launch's
/// `activity_count` included (`cut_differences`).
#[test]
fn a_run_longer_than_one_window_is_streamed_into_one_profile_by_default() {
    let tmp = tempfile::tempdir().unwrap();
    // 4,500 steps: about 1.1 M records, one cut.
    let scenario = support::paths::scaled_scenario(tmp.path(), "maxtext-scale.toml", 36500, 4500);
    let run = |dir: &Path, env: &[(&str, &str)]| {
        let mut d = traced(&scenario, "1.0.0", dir, "mt");
        for (k, v) in env {
            d = d.env(k, v);
        }
        let out = d.output();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        stderr
    };
    let (whole_dir, streamed_dir) = (tmp.path().join("whole"), tmp.path().join("streamed"));
    let stderr = run(&streamed_dir, &[]);
    let merged_line: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("rocprof-xplane: merged "))
        .collect();
    assert_eq!(merged_line.len(), 1, "{stderr}");
    assert!(!merged_line[0].contains("merged 1 windows"), "{stderr}");
    assert!(!stderr.contains("wrote window"), "{stderr}");
    assert!(windows(&streamed_dir, "mt").is_empty(), "windows left");
    let streamed = support::xspace::read_one(&streamed_dir, "mt");
    support::xspace::assert_lines_nest(&streamed, "the streamed profile");
    // Assembled in place as the windows were written (`xplane::merge::Assembly`), where the
    // filesystem inserts ranges; where it cannot, merged at exit: either shows what the run
    // held whole shows.
    let in_place = merged_line[0].contains("in place as they were written");
    if !in_place {
        eprintln!(
            "SKIPPED: {} cannot insert ranges: the profile was merged at exit",
            tmp.path().display()
        );
    }
    let fallback_dir = tmp.path().join("fallback");
    let stderr = run(
        &fallback_dir,
        &[("ROCPROF_XPLANE_TEST_NO_INSERT_RANGE", "1")],
    );
    assert!(
        !stderr.contains("in place as they were written"),
        "{stderr}"
    );
    assert!(windows(&fallback_dir, "mt").is_empty(), "windows left");
    let fallback = support::xspace::read_one(&fallback_dir, "mt");

    let stderr = run(&whole_dir, &[("ROCPROF_XPLANE_WINDOW_MERGE", "0")]);
    assert!(!stderr.contains("merged "), "{stderr}");
    let whole = support::xspace::read_one(&whole_dir, "mt");
    for streamed in [&streamed, &fallback] {
        let eq = compare_windows(&whole, std::slice::from_ref(streamed));
        let cut = cut_differences(&eq, &whole);
        assert_eq!(
            (cut.late, cut.moved, cut.missing_anchors),
            (0, 0, 0),
            "{cut:?}"
        );
        assert_eq!(counters(streamed)["waits_without_arrow"], 0);
        assert_eq!(counters(streamed)["activities_without_api"], 0);
        // Nor does it warn of what it shows whole (a range open at the cut).
        assert_eq!(streamed.warnings, whole.warnings);
        assert!(eq.matched > 1_000_000, "{} events matched", eq.matched);
    }
    // Real xprof opens the profile assembled in place.
    if in_place && support::xprof::available() {
        let file = support::paths::profiles(&streamed_dir, "mt").remove(0);
        let host = support::paths::host_of(&file);
        let s = support::xprof::summary(&file, &host);
        assert_eq!(s["errors"], serde_json::json!({}), "xprof errors");
        assert!(
            s["trace"]["complete_events"].as_u64().unwrap_or(0) > 0,
            "{s}"
        );
    }
}

/// By default no file is fsynced: the windows written while the program runs, the profile
/// merged from them at exit, and neither has its writeback started (the program does not wait
/// for the disk; windows removed after the merge need never reach it). `FSYNC=1` fsyncs every
/// file before its rename, and the run directory after: as many file fsyncs as files written.
/// The same profile either way.
#[test]
fn files_are_fsynced_only_when_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = storm(tmp.path(), 400);
    let run = |name: &str, env: &[(&str, &str)]| {
        let dir = tmp.path().join(name);
        let log = tmp.path().join(format!("{name}.strace"));
        let mut d = traced(&scenario, "1.0.0", &dir, "s")
            .env("ROCPROF_XPLANE_WINDOW_EVENTS", "10000")
            .env("ROCPROF_XPLANE_WINDOW_MERGE", "1");
        for (k, v) in env {
            d = d.env(k, v);
        }
        let out = d.output_under_strace("fsync,fdatasync,sync_file_range,rename", &log);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        let trace = std::fs::read_to_string(&log).unwrap();
        let calls = |name: &str| trace.matches(&format!(" {name}(")).count();
        let renamed = trace
            .lines()
            .filter(|l| l.contains(" rename(") && l.contains(".xplane.pb\") = 0"))
            .count();
        let profile = support::xspace::read_one(&dir, "s");
        (
            calls("fsync") + calls("fdatasync"),
            calls("sync_file_range"),
            renamed,
            profile,
            stderr,
        )
    };
    let (fsyncs, writebacks, renamed, default, stderr) = run("default", &[]);
    assert!(stderr.contains("merged "), "{stderr}");
    assert!(renamed >= 3, "{renamed} files renamed into place: {stderr}");
    assert_eq!((fsyncs, writebacks), (0, 0), "{stderr}");
    let (fsyncs, writebacks, renamed, durable, _) =
        run("durable", &[("ROCPROF_XPLANE_FSYNC", "1")]);
    assert!(renamed >= 3, "{renamed} files renamed into place");
    // Each file, and its directory after the rename.
    assert_eq!(fsyncs, 2 * renamed, "{renamed} files renamed");
    assert!(
        writebacks >= renamed,
        "{writebacks} writebacks started for {renamed} files"
    );
    assert_eq!(
        device_counts_by_name(&default),
        device_counts_by_name(&durable)
    );
}

/// Two runs of one program compared event by event (`compare_windows`) number their threads
/// by their first calls, not by their ids: the simulator's threads have the OS's ids, and
/// when the kernel's pid counter wraps while a process starts its threads, its later
/// threads have smaller ids than its first. Numbered by id, every host event of the
/// threads that wrapped showed only in one of two identical profiles (the first of them a
/// thread's `hipDeviceSynchronize`, with its `hip_stream=-1`, its name sorting first), and
/// `a_run_longer_than_one_window_is_streamed_into_one_profile_by_default` failed now and
/// then on a loaded machine. Here a run's profile is compared with itself, its threads
/// renamed as a wrap gives them: the main thread keeps its id near the wrap, the threads
/// after it start over from the smallest.
#[test]
fn runs_compared_event_by_event_number_threads_by_their_first_call() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = support::paths::scaled_scenario(tmp.path(), "maxtext-scale.toml", 36500, 20);
    let out = traced(&scenario, "1.0.0", tmp.path(), "mt").output();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = support::xspace::read_one(tmp.path(), "mt");
    let tids = host_tids([&run]);
    assert_eq!(tids.len(), 8, "{tids:?}");
    // The first thread made (the process's own) keeps an id just below the wrap, and the
    // others start over, in their order.
    let mut by_id = tids.clone();
    by_id.sort_unstable();
    let wrapped_id = |tid: u64| match by_id.iter().position(|&t| t == tid).unwrap() {
        0 => 32_760,
        n => 300 + n as u64,
    };
    let mut wrapped = run.clone();
    for p in &mut wrapped.planes {
        for l in &mut p.lines {
            if let Some((before, tid, after)) = support::xspace::tid_in(&l.name) {
                l.name = format!("{before}{}{after}", wrapped_id(tid));
            }
        }
    }
    let renamed = host_tids([&wrapped]);
    assert_eq!(
        renamed,
        tids.iter().map(|&t| wrapped_id(t)).collect::<Vec<_>>()
    );
    let eq = compare_windows(&run, std::slice::from_ref(&wrapped));
    let cut = cut_differences(&eq, &run);
    assert_eq!((cut.late, cut.moved, cut.missing_anchors), (0, 0, 0));
    assert_eq!(
        (eq.only_windows.first(), eq.only_whole.first()),
        (None, None)
    );
    assert_eq!(eq.matched, listing(&run, &tids).len());
    assert!(eq.matched > 1000, "{} events", eq.matched);
}

/// The windows of a run against the run written whole, event by event (`listing`): what
/// each shows only, what only the whole run shows, and how many matched.
#[derive(Debug, Default)]
struct Equivalence {
    matched: usize,
    only_windows: Vec<String>,
    only_whole: Vec<String>,
}

/// Every event of every window is looked for among the whole run's, on the same plane and
/// line, with the same name, duration and stats, at the same time: each window's clock
/// origin is its own, so its times are shifted by what the events unique on both sides
/// agree on. A roctx range a window shows open at its cut (`open_at_end`) is left out; the
/// window where it ends shows it whole. Threads are numbered in the order of their first
/// call (`host_tids`: two runs, two sets of thread ids, not always in the same order).
fn compare_windows(whole: &XSpace, windows: &[XSpace]) -> Equivalence {
    use std::collections::HashMap;
    let mut want: HashMap<String, Vec<i64>> = HashMap::new();
    for (k, start) in listing(whole, &host_tids([whole])) {
        want.entry(k).or_default().push(start);
    }
    let tids = host_tids(windows);
    let unique: HashMap<String, i64> = want
        .iter()
        .filter(|(_, v)| v.len() == 1)
        .map(|(k, v)| (k.clone(), v[0]))
        .collect();
    let mut eq = Equivalence::default();
    for (i, w) in windows.iter().enumerate() {
        let last = i + 1 == windows.len();
        let list: Vec<(String, i64)> = listing(w, &tids)
            .into_iter()
            .filter(|(k, _)| last || !k.contains("open_at_end="))
            .collect();
        let mut here: HashMap<&str, usize> = HashMap::new();
        for (k, _) in &list {
            *here.entry(k).or_default() += 1;
        }
        let mut shifts: HashMap<i64, usize> = HashMap::new();
        for (k, start) in &list {
            if let (Some(at), Some(1)) = (unique.get(k), here.get(k.as_str())) {
                *shifts.entry(at - start).or_default() += 1;
            }
        }
        let shift = shifts
            .into_iter()
            .max_by_key(|&(s, n)| (n, s))
            .map_or(0, |(s, _)| s);
        for (k, start) in list {
            let at = start + shift;
            let found = want
                .get_mut(&k)
                .and_then(|v| v.iter().position(|&s| s == at).map(|i| v.swap_remove(i)));
            match found {
                Some(_) => eq.matched += 1,
                None => eq.only_windows.push(format!("{k} @ {at}")),
            }
        }
    }
    for (k, v) in want {
        eq.only_whole
            .extend(v.into_iter().map(|at| format!("{k} @ {at}")));
    }
    eq.only_windows.sort();
    eq.only_whole.sort();
    eq
}

/// What the windows of a run show apart from the run written whole, each of a kind a cut
/// may cause (docs/configuration.md); anything else fails here, named.
#[derive(Debug)]
struct CutDifferences {
    /// Graph launches with a dispatch delivered after their stream's later work and after
    /// the cut: their call's `activity_count` the dispatches before the cut, and, in windows
    /// written apart, the late dispatch shown in the next window under
    /// `orphan_correlation_id`. None where the capture counted each launch's work, as it
    /// does in the simulator (`GraphLaunchFact`).
    late: usize,
    /// Arrow anchors at a call because the work they anchor to is in another window (a wait
    /// whose stream's next work came after the cut, a record returning after the cut).
    moved: usize,
    /// Anchors of arrows not drawn: a wait whose record is in an earlier window.
    missing_anchors: usize,
    /// Every anchor of the run written whole.
    anchors: usize,
}

fn cut_differences(eq: &Equivalence, whole: &XSpace) -> CutDifferences {
    let id_of = |e: &str, stat: &str| -> Option<String> {
        let at = e.find(&format!("{stat}=Some(U64("))? + stat.len() + 11;
        Some(e[at..].chars().take_while(char::is_ascii_digit).collect())
    };
    // A late dispatch is shown under `orphan_correlation_id` by windows written apart; merged
    // into one profile it is shown as launched, as the run written whole shows it, and only
    // its call's `activity_count` (written in the earlier window) differs from the whole
    // run's.
    let without_count = |e: &str| {
        let at = e.find("activity_count=").unwrap_or(e.len());
        let end = e[at..].find(',').map_or(e.len(), |i| at + i + 1);
        format!("{}{}", &e[..at], &e[end..])
    };
    let whole_calls: std::collections::HashSet<String> =
        eq.only_whole.iter().map(|e| without_count(e)).collect();
    let mut late: Vec<String> = eq
        .only_windows
        .iter()
        .filter_map(|e| id_of(e, "orphan_correlation_id"))
        .collect();
    let counted_short = eq
        .only_windows
        .iter()
        .filter(|e| e.contains("| hipGraphLaunch |") && whole_calls.contains(&without_count(e)));
    late.extend(counted_short.filter_map(|e| id_of(e, "correlation_id")));
    late.sort();
    late.dedup();
    let mut moved = Vec::new();
    for e in &eq.only_windows {
        if e.starts_with("/host:CPU") && e.contains(",flow @") {
            moved.extend(id_of(e, "dependency_wait_corr_id"));
            continue;
        }
        let id = id_of(e, "orphan_correlation_id").or_else(|| id_of(e, "correlation_id"));
        assert!(
            id.is_some_and(|id| late.contains(&id)),
            "only in the windows: {e}"
        );
    }
    let mut missing_anchors = 0;
    for e in &eq.only_whole {
        if e.contains("flow") && !e.contains("correlation_id=") {
            let moved_here =
                id_of(e, "dependency_wait_corr_id").is_some_and(|id| moved.contains(&id));
            if !moved_here {
                missing_anchors += 1;
            }
            continue;
        }
        let id = id_of(e, "correlation_id");
        assert!(
            id.is_some_and(|id| late.contains(&id)),
            "only in the whole run: {e}"
        );
    }
    let anchors = listing(whole, &host_tids([whole]))
        .iter()
        .filter(|(k, _)| k.contains(",flow") || k.ends_with("| flow"))
        .count();
    let cut = CutDifferences {
        late: late.len(),
        moved: moved.len(),
        missing_anchors,
        anchors,
    };
    eprintln!("{} events matched; {cut:?}", eq.matched);
    cut
}

/// The same simulated run, paced in wall time, written whole and cut into windows of 0.1 s:
/// the windows together show every event the whole run shows, on the same line, with the
/// same stats, at the same time, and nothing else, but for an arrow at a cut now and then
/// (counted, `cut_differences`). Stream `side` is used only at the start
/// and the end: the windows between have no work on it, and still call each stream by the
/// number the whole run gives it (numbered per window, the stream after it took its number
/// there). Each step's launches, event record, wait and copy are cut apart at the
/// boundaries; the carry joins each whole in one window.
#[test]
fn windows_show_what_the_run_written_whole_shows() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = support::paths::test_scenario("windows-idle-stream.toml");
    let run = |dir: &Path, windows: bool| {
        let mut d = traced(&scenario, "1.0.0", dir, "eq");
        if windows {
            d = d.env("ROCPROF_XPLANE_WINDOW_SECONDS", "0.1");
        }
        let out = d.output();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
    };
    let (whole_dir, windows_dir) = (tmp.path().join("whole"), tmp.path().join("windows"));
    run(&whole_dir, false);
    run(&windows_dir, true);
    let whole = support::xspace::read_one(&whole_dir, "eq");
    let w = windows(&windows_dir, "eq");
    assert!(w.len() >= 3, "windows {w:?}");
    let spaces: Vec<XSpace> = w.values().map(|f| read_xspace(&f[0]).unwrap()).collect();
    // The stream used at the ends only is absent from some window between.
    let lines = |s: &XSpace| -> Vec<String> {
        support::xspace::device_planes(s)
            .iter()
            .flat_map(|p| p.lines.iter().map(|l| l.name.clone()))
            .collect()
    };
    let whole_lines = lines(&whole);
    assert_eq!(whole_lines.len(), 3, "{whole_lines:?}");
    assert!(
        spaces.iter().any(|s| lines(s).len() < whole_lines.len()),
        "no window without the side stream"
    );
    // Only what a cut may cost: here an arrow at a step cut between its wait and the copy
    // after it (it ends at the wait's call), or between its record and its wait (not drawn,
    // counted), a few per cut at most; on a quiet machine, none.
    let eq = compare_windows(&whole, &spaces);
    let cut = cut_differences(&eq, &whole);
    let without_arrow: u64 = spaces
        .iter()
        .map(|s| counters(s)["waits_without_arrow"])
        .sum();
    assert_eq!(cut.late, 0, "{cut:?}");
    assert_eq!(cut.missing_anchors as u64, 2 * without_arrow, "{cut:?}");
    assert!(
        cut.missing_anchors + cut.moved <= 4 * (w.len() - 1),
        "{cut:?}"
    );
    assert!(eq.matched > 3000, "{eq:?}");

    // `rocprof-xplane merge` makes the windows one profile, line by line: what the windows
    // show, on one clock, with the same counts, and real xprof opens it.
    let merged = support::cli::merge(&windows_dir, "eq");
    let one = compare_windows(&whole, std::slice::from_ref(&merged));
    assert_eq!(
        (&one.only_windows, &one.only_whole, one.matched),
        (&eq.only_windows, &eq.only_whole, eq.matched)
    );
    let (a, b) = (counters(&whole), counters(&merged));
    for k in [
        "api_records",
        "kernel_records",
        "memcpy_records",
        "marker_records",
        "waits_resolved",
    ] {
        assert_eq!(a[k], b[k], "{k}");
    }
    if support::xprof::available() {
        let file = support::paths::profiles(&windows_dir, "eq").remove(0);
        let host = support::paths::host_of(&file);
        let s = support::xprof::summary(&file, &host);
        assert_eq!(
            s["errors"],
            serde_json::json!({}),
            "xprof errors on the merged profile"
        );
    }

    // `ROCPROF_XPLANE_WINDOW_MERGE=1`: the tool merges its windows at exit and removes them;
    // the one profile left is the run's, as the run written whole shows it.
    let merged_dir = tmp.path().join("merged");
    let out = traced(&scenario, "1.0.0", &merged_dir, "eq")
        .env("ROCPROF_XPLANE_WINDOW_SECONDS", "0.1")
        .env("ROCPROF_XPLANE_WINDOW_MERGE", "1")
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The windows were written on the run's names and clock: the merge copied every event
    // as it was written, re-encoding none.
    let line = stderr
        .lines()
        .find(|l| l.contains("rocprof-xplane: merged "))
        .unwrap_or_else(|| panic!("{stderr}"));
    let number_before = |what: &str| -> u64 {
        let head = &line[..line.find(what).unwrap_or_else(|| panic!("{line}"))];
        let digits = head.trim_end().rsplit(|c: char| !c.is_ascii_digit()).next();
        digits
            .and_then(|d| d.parse().ok())
            .unwrap_or_else(|| panic!("{line}"))
    };
    let events = number_before(" events on ");
    assert!(events > 0, "{line}");
    assert_eq!(
        number_before(" copied as they were written"),
        events,
        "{line}"
    );
    // And none read one by one: every line spliced from the windows' files as byte ranges.
    assert_eq!(number_before(" of them as byte ranges"), events, "{line}");
    assert!(
        windows(&merged_dir, "eq").is_empty(),
        "windows left beside the merged profile"
    );
    let merged = support::xspace::read_one(&merged_dir, "eq");
    // Real xprof opens it too: its events copied as the windows wrote them, on the run's
    // names and clock, an arrow's start on a line of its own where a window had no other.
    if support::xprof::available() {
        let file = support::paths::profiles(&merged_dir, "eq").remove(0);
        let host = support::paths::host_of(&file);
        let s = support::xprof::summary(&file, &host);
        assert_eq!(
            s["errors"],
            serde_json::json!({}),
            "xprof errors on the WINDOW_MERGE profile"
        );
        assert!(
            s["trace"]["complete_events"].as_u64().unwrap_or(0) > 0,
            "{s}"
        );
    }
    let eq = compare_windows(&whole, std::slice::from_ref(&merged));
    let cut = cut_differences(&eq, &whole);
    assert_eq!(cut.late, 0, "{cut:?}");
    assert_eq!(
        cut.missing_anchors as u64,
        2 * counters(&merged)["waits_without_arrow"],
        "{cut:?}"
    );
    assert!(cut.missing_anchors + cut.moved <= 4 * 8, "{cut:?}");
    // Merged on one clock, a wait on a record of an earlier window draws its arrow from
    // where that window found it.
    assert_eq!(counters(&merged)["waits_without_arrow"], 0);
}

/// Time windows, and the process killed with SIGKILL mid-run: every window written before the
/// kill is complete and readable (written to a temporary name, then renamed), and nothing
/// half-written carries the profile's name. Real xprof opens the first window.
#[test]
fn windows_written_before_a_sigkill_are_complete() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = storm(tmp.path(), 3000);
    let dir = tmp.path().join("logs");
    let mut child = traced(&scenario, "1.0.0", &dir, "killed")
        .env("ROCPROF_XPLANE_WINDOW_SECONDS", "0.3")
        .env("ROCPROF_XPLANE_WINDOW_MERGE", "1")
        .spawn();
    // Wait for two windows, then kill without warning.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let done: usize = windows(&dir, "killed")
            .values()
            .filter(|f| {
                f.iter()
                    .any(|p| p.to_string_lossy().ends_with(".xplane.pb"))
            })
            .count();
        if done >= 2 {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            panic!("the run ended before two windows were written");
        }
        assert!(Instant::now() < deadline, "no windows after 120 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "killed: {status}");
    let w = windows(&dir, "killed");
    let mut complete = 0;
    for (name, files) in &w {
        for f in files {
            let n = f.file_name().unwrap().to_string_lossy().into_owned();
            if n.ends_with(".xplane.pb") && !n.starts_with('.') {
                let s = read_xspace(f).unwrap_or_else(|e| panic!("{name}/{n} unreadable: {e}"));
                let events: usize = s
                    .planes
                    .iter()
                    .flat_map(|p| &p.lines)
                    .map(|l| l.events.len())
                    .sum();
                assert!(events > 0, "{name}: no events");
                complete += 1;
            } else {
                // Only a temporary file of a write in progress at the kill may be left.
                assert!(
                    n.starts_with('.') && n.contains(".tmp."),
                    "{name}: stray {n}"
                );
            }
        }
    }
    assert!(complete >= 2, "{w:?}");
    if support::xprof::available() {
        let first = &w.values().next().unwrap()[0];
        let s = support::xprof::summary(first, &support::paths::host_of(first));
        assert_eq!(s["errors"], serde_json::json!({}));
        assert!(s["trace"]["complete_events"].as_u64().unwrap_or(0) > 0);
    }
    // `WINDOW_MERGE` merges at exit, which a SIGKILL never reaches: the windows are all
    // there is, and `rocprof-xplane merge` makes them one profile afterwards (a write in
    // progress at the kill is not a window).
    assert!(support::paths::profiles(&dir, "killed").is_empty());
    let merged = support::cli::merge(&dir, "killed");
    let events: usize = merged
        .planes
        .iter()
        .flat_map(|p| &p.lines)
        .map(|l| l.events.len())
        .sum();
    assert!(events > 0);
    support::xspace::assert_lines_nest(&merged, "merged after the kill");
}

/// A window on the user's signal (`ROCPROF_XPLANE_WINDOW_SIGNAL=USR1`): SIGUSR1 mid-run cuts a
/// window, the program carries on (the handler only sets a flag) and exits normally; the rest
/// is the last window.
#[test]
fn a_signal_cuts_a_window_and_the_program_carries_on() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = storm(tmp.path(), 2000);
    let dir = tmp.path().join("logs");
    let child = traced(&scenario, "1.0.0", &dir, "sig")
        .env("ROCPROF_XPLANE_WINDOW_SIGNAL", "USR1")
        .spawn();
    let mut child = child;
    let pid = child.id() as i32;
    // Signals only once the tool has installed its handler (until then, SIGUSR1 would end the
    // program, as it would without the tool): `SigCgt` in /proc lists caught signals.
    let caught = |pid: i32| -> bool {
        let st = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        st.lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
            .is_some_and(|m| m & (1 << (libc::SIGUSR1 - 1)) != 0)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !caught(pid) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before the handler was set"
        );
        assert!(
            Instant::now() < deadline,
            "the tool never installed its SIGUSR1 handler"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // Then a signal every 300 ms until the program ends (one that comes before any work is an
    // empty window, which is not written).
    let mut sent = 0;
    while child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: signalling our own child process (it may have just exited: then ESRCH).
        if unsafe { libc::kill(pid, libc::SIGUSR1) } == 0 {
            sent += 1;
        }
    }
    assert!(sent > 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let w = windows(&dir, "sig");
    assert!(
        stderr.contains("wrote window 1"),
        "no window on the signal: {stderr}"
    );
    assert!(w.len() >= 2, "{w:?}\n{stderr}");
}

/// `scenarios/live-capture.toml` (paced at wall-clock speed by the simulator) cut to `repeat`
/// blocks of 10 steps (about 105 ms each).
fn live(dir: &Path, repeat: u32) -> PathBuf {
    support::paths::scaled_scenario(dir, "live-capture.toml", 250, repeat)
}

/// A delayed, bounded capture from the environment (`ROCPROF_XPLANE_START_DELAY=1`,
/// `ROCPROF_XPLANE_DURATION=1.5`) on a paced 4.2 s run: one profile, in the run directory
/// itself, holding the middle of the work (records start after the delay and stop after the
/// duration), written when the duration ends; nothing more at exit. roctx stacks stay
/// consistent (the callbacks ran throughout: no pop without a push in the file), kernels keep
/// their names (code objects loaded during the delay were still seen).
#[test]
fn a_delayed_bounded_capture_from_the_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = live(tmp.path(), 40);
    let dir = tmp.path().join("logs");
    let truth = tmp.path().join("truth.json");
    let out = traced(&scenario, "1.0.0", &dir, "timed")
        .env("ROCPROF_XPLANE_START_DELAY", "1")
        .env("ROCPROF_XPLANE_DURATION", "1.5")
        .ground_truth(&truth)
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let files = support::paths::profiles(&dir, "timed");
    assert_eq!(files.len(), 1, "{files:?}\n{stderr}");
    assert!(windows(&dir, "timed").is_empty(), "no window directories");
    // The user is told where the profile is (the default's working windows are not reported,
    // a bounded capture's profile is).
    let written = format!("{}", files[0].display());
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("rocprof-xplane: wrote") && l.contains(&written)),
        "{stderr}"
    );
    let s = read_xspace(&files[0]).unwrap();
    let (by_name, _) = device_counts_by_name(&s);
    let kept: u64 = by_name.values().sum();
    let all = support::truth::truth_kernels(&read_truth(&truth)["plan"])
        .values()
        .sum::<u64>();
    // 1.5 s of a 4.2 s run: about a third; wide bounds for a loaded machine.
    assert!(
        kept * 10 > all && kept * 10 < all * 7,
        "{kept} of {all} kernels: {stderr}"
    );
    assert!(
        by_name.keys().all(|k| k == "forward" || k == "backward"),
        "{by_name:?}"
    );
    assert!(
        !s.warnings.iter().any(|w| w.contains("no matching push")),
        "{:?}",
        s.warnings
    );
}

/// Windows on a roctx range (`ROCPROF_XPLANE_WINDOW_RANGE=train_step`,
/// `…_WINDOW_RANGE_EVERY=25`): every 25th end of a `train_step` range cuts a window, so a
/// 100-step run gives four windows of about 25 steps each, and every step is in exactly one
/// window. The cut runs on our thread, at its next 10 ms tick after the 25th pop, so the steps
/// both threads close meanwhile slip into the window: the k-th window ends 25·k steps in plus
/// those, and a window after one with slipped steps holds fewer than 25. How many slip is a
/// matter of the machine's load (a bound of 2 failed a loaded CI run with 3), so the bound is
/// the rule's, not a timing: each window ends at its cut (give or take the step another thread
/// closed at the same moment) and before the next cut's step.
#[test]
fn windows_on_a_roctx_range_hold_that_many_steps() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = live(tmp.path(), 10);
    let dir = tmp.path().join("logs");
    let out = traced(&scenario, "1.0.0", &dir, "steps")
        .env("ROCPROF_XPLANE_WINDOW_RANGE", "train_step")
        .env("ROCPROF_XPLANE_WINDOW_RANGE_EVERY", "25")
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let w = windows(&dir, "steps");
    let steps: Vec<u64> = w
        .values()
        .map(|files| {
            let s = read_xspace(&files[0]).unwrap();
            support::xspace::events(support::xspace::plane(&s, "/host:CPU"))
                .iter()
                .filter(|e| e.name() == "train_step" && e.stat("open_at_end").is_none())
                .count() as u64
        })
        .collect();
    assert!(steps.len() >= 4, "{steps:?}\n{stderr}");
    assert_eq!(steps.iter().sum::<u64>(), 100, "every step once: {steps:?}");
    let mut ended = 0;
    for (k, s) in steps[..3].iter().enumerate() {
        ended += s;
        let cut = 25 * (k as u64 + 1);
        assert!(
            (cut - 1..cut + 25).contains(&ended),
            "window {k} ends {ended} steps in, cut at step {cut}: {steps:?}"
        );
    }
}

/// A HIP call that entered before a window closed writes its record after the stop (the
/// runtime picks the contexts at ENTER and writes at EXIT): the window waits for it. Here a
/// `hipDeviceSynchronize` waits on a 450 ms kernel (paced: it blocks in wall-clock time too)
/// across the end of a 0.2 s window; the window holds the call, and every HIP record the
/// runtime emitted for us. Without the wait the record landed after the window's flush and
/// was lost (the CI failure of `xprof_capture_profile_gets_the_window_with_the_truth_counts`,
/// where the same race hit one call by chance).
#[test]
fn a_call_under_way_when_the_window_closes_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario =
        support::blocking::scenario(tmp.path(), 450_000, 0, &[support::blocking::LAUNCH]);
    let dir = tmp.path().join("logs");
    let truth = tmp.path().join("truth.json");
    let out = traced(&scenario, "1.0.0", &dir, "blocking")
        .env("ROCPROF_XPLANE_DURATION", "0.2")
        .ground_truth(&truth)
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let files = support::paths::profiles(&dir, "blocking");
    assert_eq!(files.len(), 1, "{files:?}\n{stderr}");
    let s = read_xspace(&files[0]).unwrap();
    let api = support::blocking::assert_every_emitted_call_kept(&s, &truth, &stderr);
    // The second launch came after the window: not in it.
    assert_eq!(api.get("hipLaunchKernel"), Some(&1), "{api:?}");
}

/// `scenarios/memory.toml` paced (each simulated µs 0.3 ms of wall time) and cut every
/// 0.05 s: each window goes on from what the windows before it left allocated. No window's
/// free is unmatched, the windows hold every allocation and free the run written whole holds,
/// with the same totals and peaks, and the copies the same memory kinds; merged on one clock
/// (`WINDOW_MERGE`) they are the whole run's, event for event. A window that started from
/// nothing would count frees unmatched, miss their events, and fall short of the run's totals.
#[test]
fn windows_go_on_from_the_memory_earlier_windows_left_allocated() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(support::paths::builtin("memory.toml")).unwrap();
    assert!(text.contains("\nseed = 7\n"), "memory.toml changed shape");
    let scenario = tmp.path().join("memory.toml");
    std::fs::write(
        &scenario,
        text.replace(
            "\nseed = 7\n",
            "\nseed = 7\n\n[delivery]\nreal_time = 300.0\n",
        ),
    )
    .unwrap();
    let run = |dir: &Path, env: &[(&str, &str)]| {
        let mut d = traced(&scenario, "1.0.0", dir, "mem");
        for (k, v) in env {
            d = d.env(k, v);
        }
        let out = d.output();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let (whole_dir, windows_dir, merged_dir) = (
        tmp.path().join("whole"),
        tmp.path().join("windows"),
        tmp.path().join("merged"),
    );
    run(&whole_dir, &[]);
    run(&windows_dir, &[("ROCPROF_XPLANE_WINDOW_SECONDS", "0.05")]);
    run(
        &merged_dir,
        &[
            ("ROCPROF_XPLANE_WINDOW_SECONDS", "0.05"),
            ("ROCPROF_XPLANE_WINDOW_MERGE", "1"),
        ],
    );
    let whole = support::xspace::read_one(&whole_dir, "mem");
    assert_eq!(counters(&whole)["memory_frees_unmatched"], 0);
    // Allocations, frees and copies, without their line's name (a window names a stream's
    // line by the kinds it saw on it).
    let memory = |s: &XSpace| -> Vec<String> {
        let mut v: Vec<String> = listing(s, &host_tids([s]))
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| k.contains("bytes_allocated=") || k.contains("memcpy_details="))
            .map(|k| {
                let mut f: Vec<&str> = k.split(" | ").collect();
                f.remove(1);
                f.join(" | ")
            })
            .collect();
        v.sort();
        v
    };
    let want = memory(&whole);
    assert!(want.len() > 10, "{want:?}");
    let w = windows(&windows_dir, "mem");
    assert!(w.len() >= 3, "windows {w:?}");
    let mut got = Vec::new();
    for (name, files) in &w {
        let s = read_xspace(&files[0]).unwrap();
        assert_eq!(counters(&s)["memory_frees_unmatched"], 0, "{name}");
        got.extend(memory(&s));
    }
    got.sort();
    assert_eq!(got, want);
    let merged = support::xspace::read_one(&merged_dir, "mem");
    let eq = compare_windows(&whole, std::slice::from_ref(&merged));
    assert_eq!(
        (eq.only_windows.len(), eq.only_whole.len()),
        (0, 0),
        "{eq:?}"
    );
}

/// A window is cut at its count even while the tool is still joining and writing the one
/// before it (`control::writer`: the coordinator hands each window to the window writer's
/// thread and goes back to the count). The storm is paced to a steady delivery of about 19 k
/// records a second (a window of 40,000 every 2.1 s), and the writer is held 3 s before each
/// window (`ROCPROF_XPLANE_TEST_WRITE_DELAY_MS`, as a writer slower than the program would be),
/// so windows queue behind it. Every window cut while the program runs holds its count within
/// what arrives in a few ticks (a cut that waited for the write before it would add 3 s of
/// deliveries, more than its count); the windows together hold every record once; and the
/// user is told once that windows wait.
///
/// The storm unpaced (or paced with its own 0.3 µs gaps) delivers its calls in a burst of half
/// a million records a second: a window then passes its count by what arrives while the
/// coordinator's thread waits for a core, which on a loaded 2-core machine is another count.
#[test]
fn windows_are_cut_at_their_count_while_the_writer_is_behind() {
    const COUNT: u64 = 40_000;
    let tmp = tempfile::tempdir().unwrap();
    let paced = support::paths::paced_scenario(tmp.path(), "thread-storm.toml", 25000, 1000, 60);
    let text = std::fs::read_to_string(&paced).unwrap();
    assert!(
        text.contains("gap_us = 0.3\n"),
        "thread-storm.toml changed shape"
    );
    // 40 µs between calls, 60× in wall time: each thread's 4,000 calls take about 10 s.
    let scenario = tmp.path().join("steady-storm.toml");
    std::fs::write(&scenario, text.replace("gap_us = 0.3\n", "gap_us = 40\n")).unwrap();
    let dir = tmp.path().join("out");
    let truth_path = dir.join("truth.json");
    std::fs::create_dir_all(&dir).unwrap();
    let out = traced(&scenario, "1.0.0", &dir, "slow")
        .env("ROCPROF_XPLANE_WINDOW_EVENTS", COUNT.to_string())
        .env("ROCPROF_XPLANE_TEST_WRITE_DELAY_MS", "3000")
        .ground_truth(&truth_path)
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let w = windows(&dir, "slow");
    assert!(w.len() >= 4, "windows {:?}\n{stderr}", w.keys());
    let truth = read_truth(&truth_path);
    let emitted = &truth["delivery"]["emitted_per_kind"];
    let mut sizes = Vec::new();
    let (mut kernels, mut api) = (0, 0);
    for (name, files) in &w {
        let s = read_xspace(&files[0]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = counters(&s);
        kernels += c["kernel_records"];
        api += c["api_records"];
        sizes.push(c["kernel_records"] + c["api_records"] + c["marker_records"]);
    }
    // Every window but the last (written at exit with what came after the last cut) holds
    // its count, plus what the runtime delivers within a few ticks of reaching it (here a
    // quarter of a count is 0.5 s of deliveries), never the 3 s a cut waiting on the write
    // would add; and no less than 90 % of it.
    let cut = &sizes[..sizes.len() - 1];
    eprintln!("window sizes for a count of {COUNT}: {sizes:?}");
    let bounds = COUNT * 9 / 10..=COUNT * 5 / 4;
    assert!(
        cut.iter().all(|n| bounds.contains(n)),
        "window sizes {sizes:?} for a count of {COUNT}\n{stderr}"
    );
    assert_eq!(kernels, u(&emitted["KERNEL_DISPATCH"]), "kernel records");
    assert_eq!(
        api,
        support::truth::hip_calls_recorded(&truth, true),
        "API records"
    );
    assert_eq!(
        stderr.matches("wait for the tool's writer").count(),
        1,
        "told once that windows wait\n{stderr}"
    );
}

/// A graph's dispatches delivered behind later work, many short windows after their launch's
/// window: `train-loop.toml` paced 50× (`[delivery] real_time = 50`; the simulator delivers
/// completion records shuffled in chunks of 32, in order, so a chunk spans about two steps)
/// cut every 50 ms. Every `fwd_fusion` dispatch keeps its call's roctx labels (XLA's
/// `hlo_op=command_buffer.2`); none is counted without its call or without its call's launch
/// facts (`activities_unplaced`), and no line at exit says any came so; each launch's
/// `activity_count` is the run written whole's: the capture counts each launch's work (the
/// runtime's requests for its dispatches), with `HIP_GRAPH` callbacks (SDK 1.4.0) or without
/// (1.0.0), and a launch is held until all of it came. Before, the launch facts went along
/// only while the windows showed none of the stream's work, work handed on from an earlier
/// window included: 380 of the 384 dispatches had their labels; and a launch was written once
/// its stream moved on, with the dispatches that came before the cut.
#[test]
fn late_graph_dispatches_keep_their_labels_across_short_windows() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(support::paths::builtin("train-loop.toml")).unwrap();
    assert!(
        text.contains("[delivery]\n"),
        "train-loop.toml changed shape"
    );
    let scenario = tmp.path().join("train-loop-paced.toml");
    std::fs::write(
        &scenario,
        text.replace("[delivery]\n", "[delivery]\nreal_time = 50\n"),
    )
    .unwrap();
    let labelled = |s: &XSpace| -> (usize, usize) {
        let events: Vec<String> = listing(s, &host_tids([s]))
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| k.contains("fwd_fusion_"))
            .collect();
        let with = events
            .iter()
            .filter(|k| k.contains("command_buffer.2"))
            .count();
        (events.len(), with)
    };
    // Each graph launch's `activity_count`, sorted.
    let launch_counts = |s: &XSpace| -> Vec<u64> {
        let mut v: Vec<u64> = listing(s, &host_tids([s]))
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| k.contains("| hipGraphLaunch |"))
            .map(|k| {
                let at = k.find("activity_count=").expect("a launch's count") + 15;
                let digits = k[at..].chars().skip_while(|c| !c.is_ascii_digit());
                digits
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
                    .parse()
                    .unwrap()
            })
            .collect();
        v.sort_unstable();
        v
    };
    let whole_dir = tmp.path().join("whole");
    let out = traced(&scenario, "1.4.0", &whole_dir, "late").output();
    assert!(out.status.success());
    let whole = launch_counts(&support::xspace::read_one(&whole_dir, "late"));
    assert!(!whole.is_empty());
    // SDK 1.0.0 has no `HIP_GRAPH` callbacks: a launch's count comes from the requests alone.
    for (sdk, merge) in [("1.4.0", "1"), ("1.4.0", "0"), ("1.0.0", "0")] {
        let dir = tmp.path().join(format!("{sdk}-merge{merge}"));
        let out = traced(&scenario, sdk, &dir, "late")
            .env("ROCPROF_XPLANE_WINDOW_SECONDS", "0.05")
            .env("ROCPROF_XPLANE_WINDOW_MERGE", merge)
            .output();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(
            !stderr.contains("launch facts"),
            "{sdk} merge {merge}: {stderr}"
        );
        let (mut events, mut with, mut unplaced, mut without_call) = (0, 0, 0, 0);
        let mut counts = Vec::new();
        if merge == "1" {
            let s = support::xspace::read_one(&dir, "late");
            without_call = counters(&s)["activities_without_api"];
            (events, with) = labelled(&s);
            unplaced = counters(&s)["activities_unplaced"];
            counts = launch_counts(&s);
        } else {
            let w = windows(&dir, "late");
            assert!(w.len() > 10, "windows {w:?}");
            for files in w.values() {
                let s = read_xspace(&files[0]).unwrap();
                let (e, l) = labelled(&s);
                (events, with) = (events + e, with + l);
                unplaced += counters(&s)["activities_unplaced"];
                without_call += counters(&s)["activities_without_api"];
                counts.extend(launch_counts(&s));
            }
            counts.sort_unstable();
        }
        assert_eq!(
            (events, with, unplaced, without_call),
            (384, 384, 0, 0),
            "{sdk} merge {merge}"
        );
        // Each launch's count was counted: a launch is written whole.
        assert_eq!(
            counts, whole,
            "{sdk} merge {merge}: each launch's activity_count"
        );
    }
}
