//! Capture windows: while the program runs, cut what the tool holds into complete profiles,
//! each written to its own run directory (`<run>_w0001`, `<run>_w0002`, …; the part after the
//! last cut is written at exit as the last window). A week-long job then never holds more than
//! one window, and a job killed mid-run keeps every window already written (each file is
//! written to a temporary name and renamed, so none is ever half there).
//!
//! Cuts happen on our own thread, never on an application thread: after a duration, after a
//! number of delivered records, or when the user's chosen signal arrives (the handler only
//! sets a flag). Each cut flushes our buffers, drains, joins and writes one window.
//!
//! What a boundary costs: a call whose pieces straddle the cut — a launch whose kernel
//! completes after it, a call that returns after it — is handed on whole to the next window
//! (`model::carry`, up to 16 windows in a row) and joined there with its kernels, roctx labels
//! and stream; a job killed (SIGKILL) before that window loses those calls. A wait on an event
//! recorded in an earlier window resolves to that record (the records a later wait may need
//! are handed on) and draws no arrow, unless the windows are merged at exit (`WINDOW_MERGE`:
//! then the record's window says where the arrow starts); a roctx range open at a cut is shown up to the cut and
//! again, whole, in the window where it ends.
//!
//! With no window rule set (and no bounded capture or profiler service) this is also how every
//! run is collected: windows of `config::DEFAULT_MERGE_WINDOW_EVENTS` records, merged at exit
//! (`WindowRule::by_default`), so the tool holds one window however long the run; a run that
//! never fills one is written at exit as one profile, with nothing to merge.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::collect::{collect, Cut};
use crate::config::Config;
use crate::model::carry::HandedOn;
use crate::model::events::Collected;
use crate::model::join::join_numbered;
use crate::model::streams::StreamNumbers;
use crate::model::Trace;
use crate::sdk::session::Session;
use crate::{log_debug, log_error, log_warn};

/// Records delivered to our buffers since the last cut (for `events` windows).
static DELIVERED: AtomicU64 = AtomicU64::new(0);
/// Set by the signal handler (or a test) to ask for a cut.
static CUT_REQUESTED: AtomicBool = AtomicBool::new(false);
/// The roctx range whose end cuts a window, and after how many of them.
static RANGE_RULE: std::sync::OnceLock<(Box<str>, u64)> = std::sync::OnceLock::new();
/// Closings of that range so far.
static RANGES_CLOSED: AtomicU64 = AtomicU64::new(0);
/// Set at finalize: the window thread stops.
static STOP: AtomicBool = AtomicBool::new(false);
/// Windows written so far.
static WRITTEN: AtomicU32 = AtomicU32::new(0);
/// Whether windows are on in this process.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Capture paused: before the start delay, after the duration.
static PAUSED: AtomicBool = AtomicBool::new(false);
/// The bounded capture (`DURATION`) has ended and was written.
static ENDED: AtomicBool = AtomicBool::new(false);
static THREAD: Mutex<Option<std::thread::JoinHandle<()>>> = Mutex::new(None);
/// What the last window handed on to the next (`model::carry`), with its correlation ids.
static CARRY: Mutex<Option<(Collected, HandedOn)>> = Mutex::new(None);
/// The stream numbers the windows gave so far: a stream is `Stream #N` in every window.
static NUMBERS: Mutex<Option<StreamNumbers>> = Mutex::new(None);
/// The files of this process's windows, for `WINDOW_MERGE` at exit.
static FILES: Mutex<Vec<std::path::PathBuf>> = Mutex::new(Vec::new());
/// With `WINDOW_MERGE`: the names and clock the windows share, so the merge copies their
/// events as they are.
static RUN_IDS: crate::xplane::RunIds = crate::xplane::RunIds::new();

/// How often the window thread looks at its triggers.
const TICK: Duration = Duration::from_millis(10);
/// For count windows, buffers are flushed every this many ticks (100 ms).
const EVENT_FLUSH_TICKS: u64 = 10;

/// Counts records delivered to a buffer callback (one relaxed add per delivery).
#[inline]
pub fn note_delivered(n: usize) {
    if ACTIVE.load(Ordering::Relaxed) {
        DELIVERED.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// The run directory of window `n` (1-based).
pub fn run_name_of(cfg: &Config, n: u32) -> String {
    format!("{}_w{n:04}", cfg.run_name)
}

pub use crate::xplane::is_window_of;

/// Whether this run's windows are the streaming pipeline's working files (no window rule was
/// set, `WindowRule::by_default`): the user hears of the profile they become at exit, not of
/// each.
pub fn working_files(cfg: &Config) -> bool {
    cfg.window.is_some_and(|r| r.by_default)
}

/// Whether windows to be merged at exit were never cut (a run shorter than one window):
/// its one profile is then written at exit as a run without windows writes it, with nothing
/// to merge.
fn merge_without_cut(cfg: &Config) -> bool {
    cfg.window.is_some_and(|r| r.merge) && WRITTEN.load(Ordering::Relaxed) == 0
}

/// The run directory of the profile written at exit (the last window when windows are on),
/// and the names and clock it shares with the windows before it when they are to be merged.
pub fn final_output(cfg: &Config) -> (String, Option<&'static crate::xplane::RunIds>) {
    if let Some(run) = crate::attach::current_session_run(cfg) {
        return (run, None);
    }
    if ACTIVE.load(Ordering::Relaxed) && !merge_without_cut(cfg) {
        let run = run_name_of(cfg, WRITTEN.load(Ordering::Relaxed) + 1);
        (run, run_ids(cfg))
    } else {
        (cfg.run_name.clone(), None)
    }
}

extern "C" fn on_signal(_: libc::c_int) {
    // Async-signal-safe: one atomic store.
    CUT_REQUESTED.store(true, Ordering::Relaxed);
}

/// Starts the window thread when the configuration asks for windows or a delayed or bounded
/// capture (`ROCPROF_XPLANE_START_DELAY`, `ROCPROF_XPLANE_DURATION`).
pub fn start(s: &'static Session, cfg: &'static Config) {
    let scheduled = cfg.start_delay_ms.is_some() || cfg.duration_ms.is_some();
    if cfg.window.is_none() && !scheduled {
        return;
    }
    if let (Some(name), Some(every)) = (&cfg.window_range, cfg.window.and_then(|r| r.range_every)) {
        let _ = RANGE_RULE.set((name.as_str().into(), every));
    }
    if let Some(sig) = cfg.window.and_then(|r| r.signal) {
        if let Err(e) = crate::signals::take_if_unhandled(sig, on_signal) {
            log_warn!("ROCPROF_XPLANE_WINDOW_SIGNAL={sig}: {e}; windows by signal are off");
        }
    }
    ACTIVE.store(cfg.window.is_some(), Ordering::Relaxed);
    PAUSED.store(cfg.start_delay_ms.is_some(), Ordering::Relaxed);
    let spawned = std::thread::Builder::new()
        .name("rocprof-xplane-window".into())
        .spawn(move || run(s, cfg));
    match spawned {
        Ok(h) => *crate::store::sinks::lock(&THREAD) = Some(h),
        Err(e) => {
            ACTIVE.store(false, Ordering::Relaxed);
            PAUSED.store(false, Ordering::Relaxed);
            if cfg.start_delay_ms.is_some() {
                s.start_buffers();
            }
            log_error!("cannot start the capture-window thread: {e}; one profile at exit");
        }
    }
}

/// Whether capture is paused (before `START_DELAY`, after `DURATION`): callbacks then keep
/// their state (roctx stacks, streams) but capture nothing for the profile.
#[inline]
pub fn paused() -> bool {
    PAUSED.load(Ordering::Relaxed)
}

/// A roctx range named `label` was closed on an application thread: with a range rule, every
/// N-th such closing asks the window thread for a cut (one string compare and, on a match, one
/// atomic add; the cut itself runs on our thread).
#[inline]
pub fn on_range_closed(label: &str) {
    let Some((name, every)) = RANGE_RULE.get() else {
        return;
    };
    if label == &**name && (RANGES_CLOSED.fetch_add(1, Ordering::Relaxed) + 1) % every == 0 {
        CUT_REQUESTED.store(true, Ordering::Relaxed);
    }
}

/// Pauses or resumes capture (the profiler service's windows, `server::capture`).
pub fn set_paused(paused: bool) {
    PAUSED.store(paused, Ordering::Relaxed);
}

/// Whether finalize should write nothing: the bounded capture (`DURATION`) already ended and
/// was written (records still in flight at its end are not a profile of their own), or windows
/// are on and no record came after the last one (roctx spans alone, which the callbacks keep to
/// follow the stacks, do not make a profile), or the profiler service is on (its clients get
/// the profiles they ask for; nothing is written at exit).
pub fn skip_final(c: &crate::model::events::Collected) -> bool {
    // With the profiler service on, profiles go to the clients that ask for them.
    if ENDED.load(Ordering::Relaxed) || crate::config::get().server.is_some() {
        return true;
    }
    // Attached: each detach wrote its session, under the name a final file would take; only a
    // session still attached at exit is written now. Records that came after the last detach
    // (a call that outlived the wait for calls under way) are counted in the log line finalize
    // prints, never written over it.
    if crate::attach::used() {
        return !crate::attach::attached();
    }
    ACTIVE.load(Ordering::Relaxed) && !c.has_records() && !merge_without_cut(crate::config::get())
}

/// `c` with what the last window handed on taken in first (their calls came first), and how
/// many times each of those ids was handed on. At finalize the last window takes them in.
pub fn take_carried(c: Collected) -> (Collected, HandedOn) {
    match crate::store::sinks::lock(&CARRY).take() {
        Some((mut held, ids)) => {
            held.absorb(c);
            (held, ids)
        }
        None => (c, HandedOn::default()),
    }
}

/// Joins a window (or the one profile of a run without windows) with the stream numbers the
/// run's earlier windows gave, and keeps its new ones for the next.
pub fn join_window(c: Collected, threads: usize) -> Trace {
    let mut numbers = crate::store::sinks::lock(&NUMBERS)
        .take()
        .unwrap_or_default();
    let trace = join_numbered(c, threads, &mut numbers);
    *crate::store::sinks::lock(&NUMBERS) = Some(numbers);
    trace
}

/// What the windows of this run share when they are to be merged at exit (`WINDOW_MERGE`);
/// `None` without windows or without the merge.
pub fn run_ids(cfg: &Config) -> Option<&'static crate::xplane::RunIds> {
    (ACTIVE.load(Ordering::Relaxed) && cfg.window.is_some_and(|r| r.merge)).then_some(&RUN_IDS)
}

/// Notes a window file this process wrote (the one finalize writes included).
pub fn note_written(path: &std::path::Path) {
    if ACTIVE.load(Ordering::Relaxed) {
        crate::store::sinks::lock(&FILES).push(path.to_path_buf());
    }
}

/// With `WINDOW_MERGE`, at exit: the windows this process wrote become one profile in the
/// run's own directory (`xplane::merge`, one line at a time), and are removed. If the merge
/// fails they are kept, and the error says why; a job killed before exit keeps its windows,
/// which `rocprof-xplane merge` makes one profile later.
pub fn merge_at_exit(cfg: &Config) {
    // Attach sessions are written each under its own name (`attach`), never merged.
    if run_ids(cfg).is_none() || merge_without_cut(cfg) || crate::attach::used() {
        return;
    }
    let files = std::mem::take(&mut *crate::store::sinks::lock(&FILES));
    let Some(host) = files
        .first()
        .and_then(|f| f.file_name())
        .and_then(|n| n.to_str())
        .and_then(crate::xplane::host_of_file_name)
    else {
        return;
    };
    let layout = crate::xplane::OutputLayout {
        log_dir: cfg.output_dir.clone(),
        run_name: cfg.run_name.clone(),
        host: host.to_string(),
    };
    let t0 = Instant::now();
    match crate::xplane::merge::merge_own_files(&files, &layout) {
        Ok((path, m)) => {
            for f in &files {
                let _ = std::fs::remove_file(f);
                // The window's directory, once no process has a file left there.
                if let Some(dir) = f.parent() {
                    let _ = std::fs::remove_dir(dir);
                }
            }
            if cfg.log > crate::config::LogLevel::Off {
                crate::log::stderr_line(format_args!(
                    "rocprof-xplane: merged {} windows into {} ({} events on {} lines, {:.0} ms; {} copied as they were written)",
                    m.inputs,
                    path.display(),
                    m.events,
                    m.lines,
                    t0.elapsed().as_secs_f64() * 1e3,
                    m.copied
                ));
            }
        }
        Err(e) => log_error!("cannot merge the capture windows ({e}); each is kept as written"),
    }
}

/// Stops the window thread (finalize), waiting for a cut in progress.
pub fn stop() {
    STOP.store(true, Ordering::Relaxed);
    let h = crate::store::sinks::lock(&THREAD).take();
    if let Some(h) = h {
        let _ = h.join();
    }
}

fn run(s: &'static Session, cfg: &'static Config) {
    let rule = cfg.window;
    let t_init = Instant::now();
    let mut capture_start = cfg.start_delay_ms.is_none().then_some(t_init);
    let mut started = Instant::now();
    let mut ticks = 0u64;
    while !STOP.load(Ordering::Relaxed) {
        std::thread::sleep(TICK);
        ticks += 1;
        if capture_start.is_none()
            && cfg
                .start_delay_ms
                .is_some_and(|d| t_init.elapsed() >= Duration::from_millis(d))
        {
            // What the callbacks captured during the delay has no records: drop it.
            let _ = collect(s, s.flush_and_take(), Cut::Window);
            s.start_buffers();
            PAUSED.store(false, Ordering::Relaxed);
            capture_start = Some(Instant::now());
            started = Instant::now();
            DELIVERED.store(0, Ordering::Relaxed);
            log_debug!("capture started after the delay");
        }
        let Some(t0) = capture_start else { continue };
        if ENDED.load(Ordering::Relaxed) {
            continue;
        }
        if cfg
            .duration_ms
            .is_some_and(|d| t0.elapsed() >= Duration::from_millis(d))
        {
            s.stop_buffers();
            PAUSED.store(true, Ordering::Relaxed);
            // The profile the user asked for is written even when nothing happened in it.
            cut(s, cfg, true);
            ENDED.store(true, Ordering::Relaxed);
            continue;
        }
        let Some(rule) = rule else { continue };
        // Records reach us only when a buffer passes its watermark or is flushed: for count
        // windows, flush now and then so the count follows the program.
        if rule.events.is_some() && ticks % EVENT_FLUSH_TICKS == 0 {
            for w in s.flush_all() {
                log_debug!("window flush: {w}");
            }
        }
        let by_time = rule
            .period_ms
            .is_some_and(|t| started.elapsed() >= Duration::from_millis(t));
        // The streaming pipeline's own windows do not cut an attach session: each session is
        // one profile of its own (`attach`).
        let by_count = rule
            .events
            .is_some_and(|n| DELIVERED.load(Ordering::Relaxed) >= n)
            && !(rule.by_default && crate::attach::used());
        let by_signal = CUT_REQUESTED.swap(false, Ordering::Relaxed);
        if by_time || by_count || by_signal {
            started = Instant::now();
            DELIVERED.store(0, Ordering::Relaxed);
            if STOP.load(Ordering::Relaxed) {
                break;
            }
            cut(s, cfg, false);
        }
    }
}

/// Ends the current window: flush, drain, join, write. An empty window writes nothing unless
/// `always`.
fn cut(s: &Session, cfg: &Config, always: bool) {
    let t0 = Instant::now();
    let (mut c, carried_in) = take_carried(collect(s, s.flush_and_take(), Cut::Window));
    // The window that ends a bounded capture (`DURATION`) has no window after it.
    if ACTIVE.load(Ordering::Relaxed) && !always {
        let began = Instant::now();
        let windows = if run_ids(cfg).is_some() {
            crate::model::carry::Windows::Merged
        } else {
            crate::model::carry::Windows::Apart
        };
        if let Some((held, ids)) = crate::model::carry::hand_off(&mut c, &carried_in, windows) {
            log_debug!(
                "window: {} calls, {} kernels and {} copies handed on to the next window, their pieces not all here yet, and {} event records ({:.1} ms)",
                held.api.len(),
                held.kernels.len(),
                held.copies.len(),
                held.carried.producers.len(),
                began.elapsed().as_secs_f64() * 1e3
            );
            *crate::store::sinks::lock(&CARRY) = Some((held, ids));
        }
    }
    if !c.has_records() && c.markers.is_empty() && !always {
        return;
    }
    let threads = crate::output::join_threads(cfg, &c);
    let mut trace = join_window(c, threads);
    if let Some((held, _)) = crate::store::sinks::lock(&CARRY).as_mut() {
        held.carried.anchors = std::mem::take(&mut trace.record_anchors);
    }
    let n = WRITTEN.load(Ordering::Relaxed) + 1;
    // Without window rules (a delayed or bounded capture only), the one profile keeps the
    // run name.
    let run = if ACTIVE.load(Ordering::Relaxed) {
        run_name_of(cfg, n)
    } else {
        cfg.run_name.clone()
    };
    match crate::output::write_window_as(&trace, cfg, &run, run_ids(cfg)) {
        Ok(path) => {
            WRITTEN.store(n, Ordering::Relaxed);
            note_written(&path);
            log_debug!(
                "window {n} written to {} in {:.1} ms",
                path.display(),
                t0.elapsed().as_secs_f64() * 1e3
            );
            if !working_files(cfg) {
                crate::output::report_written(&format!("window {n}: "), &path, &trace, cfg);
            }
        }
        Err(e) => log_error!("cannot write capture window {n}: {e}"),
    }
}
