//! The window writer: joins and writes the windows the coordinator cuts, one after another in
//! the order they were cut. It owns everything a window's join and write hand to the next: what
//! straddles the cut (`model::carry`), the stream numbers, and the windows' files
//! (`window_files`). It runs on a thread of its own while window rules are on, so the
//! coordinator hands it each window's records and goes back to the window timer: a window is
//! cut at its count even while the one before it is still being joined and written. The thread
//! starts with the first window cut: a run that ends before any cut writes its one profile on
//! the coordinator's thread, as a run held whole does (no thread, and no allocator arena of its
//! own holding the join's memory beside what the collection freed). Where windows are off, or
//! no thread could be started, it runs inline on the coordinator's thread.
//!
//! Windows waiting for the writer are charged against the memory ceiling
//! (`ROCPROF_XPLANE_MAX_MEMORY`) until they are joined, and the user is told once when one
//! waits behind another (the program delivers faster than the tool joins and writes).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::time::Instant;

use super::window_files::WindowFiles;
use super::windows;
use crate::config::{Config, LogLevel};
use crate::model::carry::{self, HandedOn};
use crate::model::events::Collected;
use crate::model::join::join_numbered;
use crate::model::streams::StreamNumbers;
use crate::model::Trace;
use crate::output;
use crate::recorder::Recorder;
use crate::{log_debug, log_error, log_info, log_warn};

/// Test-only (docs/reliability.md): milliseconds the writer waits before each window it takes,
/// as a writer slower than the program would: the cuts must go on at their count meanwhile.
pub const TEST_WRITE_DELAY: &str = "ROCPROF_XPLANE_TEST_WRITE_DELAY_MS";

/// The writer's thread (Linux keeps the first 15 bytes of a name).
const THREAD_NAME: &str = "rocprof-xplane-writer";

/// What the attach state says at exit, for the last window.
#[derive(Debug, Clone, Default)]
pub struct AttachAtExit {
    /// `Some(attached)` when the tool was ever attached.
    pub state: Option<bool>,
    /// The run directory of the session under way, if one is.
    pub run: Option<String>,
    /// Whether the tool was ever attached (attach sessions are never merged).
    pub used: bool,
}

/// A window cut on the coordinator's thread, for the writer.
pub struct CutWindow {
    pub c: Collected,
    /// The window that ends a bounded capture: written even when empty, nothing handed on.
    pub always: bool,
    /// When the cut began, and when its records were collected.
    pub began: Instant,
    pub collected: Instant,
}

/// The program's end: the last window.
pub struct LastWindow {
    pub c: Collected,
    pub began: Instant,
    pub attach: AttachAtExit,
    /// The bounded capture has ended (and was written).
    pub ended: bool,
}

enum Job {
    Window(CutWindow),
    /// Answered once every window sent before it is written.
    Barrier(SyncSender<()>),
    Last(LastWindow, SyncSender<()>),
}

/// Windows sent to the writer and not yet joined: their count, records and bytes.
#[derive(Debug, Default)]
struct Waiting {
    windows: AtomicU64,
    records: AtomicU64,
    bytes: AtomicU64,
}

impl Waiting {
    /// `c` waits for the writer, charged against `budget`; how many windows waited before it.
    fn add(&self, c: &Collected, budget: &crate::budget::Budget) -> u64 {
        let bytes = c.approx_bytes();
        self.records.fetch_add(c.record_count(), Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        budget.queue(bytes);
        self.windows.fetch_add(1, Ordering::Relaxed)
    }

    /// `c` no longer waits (the writer took it, or it was never sent).
    fn remove(&self, c: &Collected, budget: &crate::budget::Budget) {
        let bytes = c.approx_bytes();
        self.windows.fetch_sub(1, Ordering::Relaxed);
        self.records.fetch_sub(c.record_count(), Ordering::Relaxed);
        self.bytes.fetch_sub(bytes, Ordering::Relaxed);
        budget.unqueue(bytes);
    }
}

/// The coordinator's handle on the window writer.
pub struct Sink {
    mode: Mode,
    waiting: Arc<Waiting>,
    recorder: &'static Recorder,
    cfg: &'static Config,
    /// The user was told that windows wait.
    told: bool,
}

enum Mode {
    /// Window rules are on but no window was cut yet: the thread starts with the first. (The
    /// slot is empty only while that start takes the writer out of it.)
    Unstarted(Option<Box<Writer>>),
    Thread {
        tx: Sender<Job>,
        thread: Option<std::thread::JoinHandle<()>>,
    },
    Inline(Box<Writer>),
}

impl Sink {
    /// The writer of `cfg`'s windows: on a thread of its own when `threaded` (window rules on),
    /// else inline.
    pub fn start(
        recorder: &'static Recorder,
        cfg: &'static Config,
        files: WindowFiles,
        threaded: bool,
    ) -> Sink {
        let waiting = Arc::new(Waiting::default());
        let writer = Box::new(Writer::new(recorder, cfg, files, Arc::clone(&waiting)));
        let mode = if threaded {
            Mode::Unstarted(Some(writer))
        } else {
            Mode::Inline(writer)
        };
        Sink {
            mode,
            waiting,
            recorder,
            cfg,
            told: false,
        }
    }

    /// Whether the writer runs on a thread of its own (else each window is joined and written
    /// within its cut).
    pub fn threaded(&self) -> bool {
        matches!(self.mode, Mode::Unstarted(_) | Mode::Thread { .. })
    }

    /// Hands a window cut now to the writer (written at once when inline).
    pub fn window(&mut self, w: CutWindow) {
        if let Mode::Unstarted(slot) = &mut self.mode {
            if let Some(writer) = slot.take() {
                self.mode = spawn(writer);
            }
        }
        match &mut self.mode {
            Mode::Inline(writer) | Mode::Unstarted(Some(writer)) => writer.window(w),
            Mode::Unstarted(None) => unreachable!("started above"),
            Mode::Thread { tx, .. } => {
                let before = self.waiting.add(&w.c, self.recorder.budget());
                if let Err(mpsc::SendError(Job::Window(w))) = tx.send(Job::Window(w)) {
                    // The writer's thread is gone (it cannot be, short of a crash): inline.
                    self.waiting.remove(&w.c, self.recorder.budget());
                    log_error!("the window writer stopped; this window is written on the coordinator's thread");
                    self.inline_now().window(w);
                    return;
                }
                if before >= 1 {
                    self.tell_waiting(before + 1);
                }
            }
        }
    }

    /// Once a run: windows wait behind the one being written.
    fn tell_waiting(&mut self, windows: u64) {
        if self.told {
            return;
        }
        self.told = true;
        log_warn!(
            "records arrive faster than capture windows are joined and written: {windows} windows ({} records, {} MiB) wait for the tool's writer; they are held within ROCPROF_XPLANE_MAX_MEMORY",
            self.waiting.records.load(Ordering::Relaxed),
            self.waiting.bytes.load(Ordering::Relaxed) >> 20
        );
    }

    /// Waits until every window sent so far is written.
    pub fn barrier(&mut self) {
        if let Mode::Thread { tx, .. } = &self.mode {
            let (done, wait) = mpsc::sync_channel(1);
            if tx.send(Job::Barrier(done)).is_ok() {
                let _ = wait.recv();
            }
        }
    }

    /// The last window: written after every window before it, then the windows merged (at
    /// exit). Returns once all of it is done; the writer's thread ends.
    pub fn last(&mut self, last: LastWindow) {
        match &mut self.mode {
            // No window was cut: the run's one profile, on this thread.
            Mode::Inline(writer) | Mode::Unstarted(Some(writer)) => writer.last(last),
            Mode::Unstarted(None) => unreachable!("a start never leaves the slot empty"),
            Mode::Thread { tx, thread } => {
                let (done, wait) = mpsc::sync_channel(1);
                match tx.send(Job::Last(last, done)) {
                    Ok(()) => {
                        let _ = wait.recv();
                        if let Some(t) = thread.take() {
                            let _ = t.join();
                        }
                    }
                    Err(mpsc::SendError(Job::Last(last, _))) => {
                        log_error!("the window writer stopped; the last window is written on the coordinator's thread");
                        self.inline_now().last(last);
                    }
                    Err(_) => {}
                }
            }
        }
    }

    /// A writer on this thread in place of one whose thread is gone: what it held is lost
    /// with it (the error said so), the run's files start afresh.
    fn inline_now(&mut self) -> &mut Writer {
        if let Mode::Thread { .. } = self.mode {
            let writer = Writer::new(
                self.recorder,
                self.cfg,
                WindowFiles::new(self.cfg, true),
                Arc::clone(&self.waiting),
            );
            self.mode = Mode::Inline(Box::new(writer));
        }
        match &mut self.mode {
            Mode::Inline(w) | Mode::Unstarted(Some(w)) => w,
            Mode::Thread { .. } | Mode::Unstarted(None) => unreachable!("made inline above"),
        }
    }
}

/// Starts the writer's thread; inline when it cannot start.
fn spawn(writer: Box<Writer>) -> Mode {
    let (tx, rx) = mpsc::channel();
    // The thread takes the writer out of this slot; if it cannot start, the slot still holds
    // it for the inline mode.
    let slot = Arc::new(std::sync::Mutex::new(Some(writer)));
    let theirs = Arc::clone(&slot);
    let spawned = std::thread::Builder::new()
        .name(THREAD_NAME.into())
        .spawn(move || {
            let taken = crate::store::sinks::lock(&theirs).take();
            if let Some(w) = taken {
                serve(w, rx);
            }
        });
    match spawned {
        Ok(thread) => Mode::Thread {
            tx,
            thread: Some(thread),
        },
        Err(e) => {
            log_error!(
                "cannot start the tool's window writer thread: {e}; windows are joined and written on the control thread"
            );
            let w = crate::store::sinks::lock(&slot)
                .take()
                .expect("the thread never ran");
            Mode::Inline(w)
        }
    }
}

/// The writer's thread: one job at a time, in the order sent, until the last window. A panic
/// in a job loses that job's window (said), never the thread.
fn serve(mut w: Box<Writer>, rx: Receiver<Job>) {
    while let Ok(job) = rx.recv() {
        match job {
            Job::Window(cut) => {
                guarded("a capture window's join and write", || w.window(cut));
            }
            Job::Barrier(done) => {
                let _ = done.send(());
            }
            Job::Last(last, done) => {
                guarded("the last window's join and write", || w.last(last));
                let _ = done.send(());
                return;
            }
        }
    }
}

fn guarded(what: &str, f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        log_error!("internal error in {what}: that window is not written");
    }
}

/// What the windows' join and write carry from one window to the next.
pub struct Writer {
    recorder: &'static Recorder,
    cfg: &'static Config,
    files: WindowFiles,
    /// What the last window handed on to the next (`model::carry`), with its correlation ids.
    carry: Option<(Collected, HandedOn)>,
    /// The stream numbers the windows gave so far: a stream is `Stream #N` in every window.
    numbers: StreamNumbers,
    waiting: Arc<Waiting>,
    /// `TEST_WRITE_DELAY`.
    delay: Option<std::time::Duration>,
    /// Device activities the run's profiles wrote without their call's launch facts
    /// (`Counters::activities_unplaced`): said once at exit.
    unplaced: u64,
}

impl Writer {
    fn new(
        recorder: &'static Recorder,
        cfg: &'static Config,
        files: WindowFiles,
        waiting: Arc<Waiting>,
    ) -> Writer {
        Writer {
            recorder,
            cfg,
            files,
            carry: None,
            numbers: StreamNumbers::default(),
            waiting,
            delay: std::env::var(TEST_WRITE_DELAY)
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .map(std::time::Duration::from_millis),
            unplaced: 0,
        }
    }

    /// A window taken off the queue: no longer waiting, no longer charged as waiting.
    /// (Inline, no window ever waits: nothing to take off.)
    fn taken(&self, c: &Collected) {
        if self.waiting.windows.load(Ordering::Relaxed) > 0 {
            self.waiting.remove(c, self.recorder.budget());
        }
    }

    /// `c` with what the last window handed on taken in first (their calls came first), and
    /// how many times each of those ids was handed on.
    fn take_carried(&mut self, c: Collected) -> (Collected, HandedOn) {
        match self.carry.take() {
            Some((mut held, ids)) => {
                held.absorb(c);
                (held, ids)
            }
            None => (c, HandedOn::default()),
        }
    }

    /// Joins a window (or the one profile of a run without windows) with the stream numbers
    /// the run's earlier windows gave, keeping its new ones for the next.
    fn join_window(&mut self, c: Collected) -> Trace {
        let threads = output::join_threads(self.cfg, &c);
        join_numbered(c, threads, &mut self.numbers)
    }

    /// Ends a window: hands on what straddles the cut, joins, writes `<run>_wNNNN`. An empty
    /// window writes nothing unless `always`; the window that ends a bounded capture
    /// (`always`) has no window after it. (Out of line: the instruction counts of
    /// `ci/bench-instructions.sh` name it.)
    #[inline(never)]
    fn window(&mut self, w: CutWindow) {
        let CutWindow {
            c,
            always,
            began,
            collected,
        } = w;
        if let Some(d) = self.delay {
            std::thread::sleep(d);
        }
        self.taken(&c);
        let cfg = self.cfg;
        let mut stages = CutStages::begin(c.delivered_count(), c.markers.len(), began, collected);
        let (mut c, carried_in) = self.take_carried(c);
        if self.files.active() && !always {
            let began = Instant::now();
            let apart = if self.files.run_ids().is_some() {
                carry::Windows::Merged
            } else {
                carry::Windows::Apart
            };
            if let Some((held, ids)) = carry::hand_off(&mut c, &carried_in, apart) {
                log_debug!(
                    "window: {} calls, {} kernels and {} copies handed on to the next window, their pieces not all here yet, and {} event records ({:.1} ms)",
                    held.api.len(),
                    held.kernels.len(),
                    held.copies.len(),
                    held.carried.producers.len(),
                    began.elapsed().as_secs_f64() * 1e3
                );
                self.carry = Some((held, ids));
            }
        }
        if !c.has_records() && c.markers.is_empty() && !always {
            return;
        }
        stages.handed_on();
        let mut trace = self.join_window(c);
        self.unplaced += trace.counters.activities_unplaced;
        stages.joined();
        if let Some((held, _)) = self.carry.as_mut() {
            held.carried.anchors = std::mem::take(&mut trace.record_anchors);
        }
        let (run, n) = self.files.next_window();
        // A window that could not be written before goes first, under its own number.
        self.files.retry_held();
        // Kept whole: a window that cannot be written now is written again later.
        let host = crate::xplane::HostEvents::of(&trace);
        let written = self.files.write(&trace, host, &run, n, false, true);
        stages.written(n);
        match written {
            Ok(window) => {
                if !windows::working_files(cfg) {
                    output::report_written(&format!("window {n}: "), &window.path, &trace, cfg);
                }
                // Written: the window's events are freed before the window is put into the
                // run's profile, which holds none of them.
                drop(trace);
                self.files.wrote_window(n, &window);
                log_debug!(
                    "window {n} written to {} in {:.1} ms",
                    window.path.display(),
                    began.elapsed().as_secs_f64() * 1e3
                );
            }
            Err(e) => self.files.failed(n, run, trace, e),
        }
        // What a second signal or the deadline says if it cuts the exit short: the windows
        // written so far are kept, and how to merge them.
        super::signal::note_kept_windows(&self.files.kept_note());
    }

    /// The last window (or the run's one profile), then the merge of the windows at exit.
    /// (Out of line: `ci/bench-instructions.sh` names it.)
    #[inline(never)]
    fn last(&mut self, last: LastWindow) {
        let LastWindow {
            c,
            began: t0,
            attach,
            ended,
        } = last;
        let cfg = self.cfg;
        super::signal::note_kept_windows(&self.files.kept_note());
        let (collected, _) = self.take_carried(c);
        self.files.retry_held();
        if self.files.skip_final(&collected, attach.state, ended) {
            log_info!(
                "no further file: {} API, {} kernel and {} copy records came after the last capture window or attach session",
                collected.api_record_count(),
                collected.kernels.len(),
                collected.copies.len()
            );
            self.end_windows(t0, attach.used);
            return;
        }
        let t1 = Instant::now();
        let mut trace = self.join_window(collected);
        self.unplaced += trace.counters.activities_unplaced;
        let t2 = Instant::now();
        if crate::config::log_enabled(LogLevel::Debug) {
            log_debug!("finalize: joined, memory {}", crate::log::process_memory());
        }
        let (run, n, merged) = self.files.final_output(attach.run);
        // The streaming pipeline's last window: the merge below reports the profile.
        let report = !merged || !windows::working_files(cfg);
        self.files.say_losses_in(&mut trace);
        // Nothing writes this trace again: its host events are freed as they are written, so
        // the writer's peak does not hold them all beside the planes being built.
        let host = crate::xplane::HostEvents::take(&mut trace);
        // The write's own top of the tool's heap starts here (`heap-stats` builds).
        let _ = crate::heap::interval_peak();
        let written = self.files.write(&trace, host, &run, n, true, merged);
        if crate::config::log_enabled(LogLevel::Debug) {
            let top = crate::heap::interval_peak().map_or(String::new(), |top| {
                format!(" (tool heap top {:.1} MB)", top as f64 / 1e6)
            });
            log_debug!(
                "finalize: flush + drain {:.1} ms, join {:.1} ms, write {:.1} ms{top}; memory {}",
                (t1 - t0).as_secs_f64() * 1e3,
                (t2 - t1).as_secs_f64() * 1e3,
                t2.elapsed().as_secs_f64() * 1e3,
                crate::log::process_memory()
            );
            let finalize_ns = t0.elapsed().as_nanos() as u64;
            log_debug!(
                "{}",
                self.recorder.selftime().totals().describe(finalize_ns)
            );
        }
        match written {
            Ok(window) => {
                if report {
                    output::report_written("", &window.path, &trace, cfg);
                }
                self.files.note_last_written(window);
            }
            Err(e) => {
                log_error!("cannot write the profile: {e}");
                if run != cfg.run_name {
                    self.files.lose_last(n, &trace, e);
                }
            }
        }
        drop(trace);
        self.end_windows(t0, attach.used);
    }

    /// The windows made one profile, what the profile lacks said, the run's name let go.
    fn end_windows(&mut self, t0: Instant, attach_used: bool) {
        self.files.merge_at_exit(attach_used);
        self.files.say_losses_at_exit();
        self.say_unplaced_at_exit();
        self.files.release_claim();
        log_finalize_done(t0);
    }
}

impl Writer {
    /// The one line for the device activities written without their call's stream and roctx
    /// labels: in a run cut into windows, mostly a graph's dispatches delivered after their
    /// launch's window and past the time its launch facts go along (`carry::CONTEXT_NS`).
    fn say_unplaced_at_exit(&self) {
        if self.unplaced == 0 || self.cfg.log == LogLevel::Off {
            return;
        }
        crate::log::stderr_line(format_args!(
            "rocprof-xplane: {} device activities came without their call's launch facts (delivered after their launch's capture window and the {} s its labels go along, or their call was not recorded): kept, without their stream and roctx labels (activities_unplaced)",
            self.unplaced,
            carry::CONTEXT_NS / 1_000_000_000
        ));
    }
}

/// How long the program waited on finalize, and the memory after it (debug).
fn log_finalize_done(t0: Instant) {
    if crate::config::log_enabled(LogLevel::Debug) {
        log_debug!(
            "finalize: done in {:.1} ms; memory {}",
            t0.elapsed().as_secs_f64() * 1e3,
            crate::log::process_memory()
        );
    }
}

/// When each stage of a window's cut ended, for its debug line: the records of the window
/// (before the carry) per second of each stage, the rate the tool's threads sustain. The
/// collect is the coordinator's; the hand-off, join and write the writer's, from when it took
/// the window (the wait before is said apart).
struct CutStages {
    /// The records delivered by the runtime (the count rule's unit), and the roctx spans the
    /// callbacks made beside them.
    records: u64,
    spans: usize,
    /// The cut's start, its records collected, the writer took them, handed on, joined,
    /// written.
    marks: [Instant; 6],
}

impl CutStages {
    /// A cut of `records` delivered records and `spans` roctx spans that began at `began`,
    /// collected at `collected`, taken by the writer now.
    fn begin(records: u64, spans: usize, began: Instant, collected: Instant) -> CutStages {
        let now = Instant::now();
        CutStages {
            records,
            spans,
            marks: [began, collected, now, now, now, now],
        }
    }

    fn handed_on(&mut self) {
        self.marks[3] = Instant::now();
    }

    fn joined(&mut self) {
        self.marks[4] = Instant::now();
    }

    /// Window `n` is written: its debug line.
    fn written(&mut self, n: u32) {
        self.marks[5] = Instant::now();
        if !crate::config::log_enabled(LogLevel::Debug) {
            return;
        }
        let m = &self.marks;
        let rate = |s: f64| {
            format!(
                "{:.1} ms ({:.2} M records/s)",
                s * 1e3,
                self.records as f64 / s.max(1e-9) / 1e6
            )
        };
        let stage = |a: usize, b: usize| rate((m[b] - m[a]).as_secs_f64());
        let work = (m[1] - m[0]) + (m[5] - m[2]);
        log_debug!(
            "window {n} cut: {} records (and {} roctx spans); collect {}, hand-off {}, join {}, write {}; in all {}; waited {:.1} ms for the writer",
            self.records,
            self.spans,
            stage(0, 1),
            stage(2, 3),
            stage(3, 4),
            stage(4, 5),
            rate(work.as_secs_f64()),
            (m[2] - m[1]).as_secs_f64() * 1e3
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sink(dir: &std::path::Path) -> Sink {
        let (mut cfg, _) = Config::parse(|_| None, 0);
        cfg.output_dir = dir.to_path_buf();
        cfg.run_name = "run".into();
        let cfg: &'static Config = Box::leak(Box::new(cfg));
        let recorder: &'static Recorder = Box::leak(Box::default());
        Sink::start(recorder, cfg, WindowFiles::new(cfg, true), true)
    }

    fn last() -> LastWindow {
        LastWindow {
            c: Collected::default(),
            began: Instant::now(),
            attach: AttachAtExit::default(),
            ended: false,
        }
    }

    /// A run that ends before its first cut writes its one profile on the thread that ends it,
    /// as a run held whole does: the writer's thread (and an allocator arena of its own) is
    /// never started.
    #[test]
    fn a_run_without_a_cut_starts_no_writer_thread() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sink(dir.path());
        assert!(s.threaded(), "windows still go to a thread once cut");
        s.barrier();
        s.last(last());
        assert!(
            matches!(s.mode, Mode::Unstarted(Some(_))),
            "the last window went to a thread"
        );
    }

    /// The first window cut starts the writer's thread, which then takes every window.
    #[test]
    fn the_first_cut_starts_the_writer_thread() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sink(dir.path());
        let now = Instant::now();
        s.window(CutWindow {
            c: Collected::default(),
            always: false,
            began: now,
            collected: now,
        });
        assert!(matches!(s.mode, Mode::Thread { .. }));
        s.barrier();
        s.last(last());
        assert!(matches!(s.mode, Mode::Thread { thread: None, .. }));
    }
}
