//! The window writer: joins and writes the windows the coordinator cuts, one after another in
//! the order they were cut. A window's cut goes through three stages after its collect, each
//! owned by one thread:
//!
//! - the hand-off (`HandOff`, `model::carry`), on the window writer's thread: what straddles
//!   the cut goes to the next window, which takes it in before its hand-off. (Not on the
//!   coordinator's: a hand-off there holds back the coordinator's buffer flushes and count
//!   checks for its length, so later windows pass their count.)
//! - the join, on the window writer's thread, which owns the stream numbers; the record anchors
//!   a join finds for the window after it (`Carried::anchors`) go with what it handed on;
//! - the write, on a thread of the writer's own (`FileStage`), which owns the windows' files
//!   (`window_files`): a window is written while the next is joined. The join waits for the
//!   write before it, so at most one joined window waits beside the one being joined.
//!
//! So the coordinator goes back to the window timer after the collect: a window is cut at its
//! count even while the ones before it are still being joined and written. The writer's thread
//! starts with the first window cut: a run that ends before any cut writes its one profile on
//! the coordinator's thread, as a run held whole does (no thread, and no allocator arena of its
//! own holding the join's memory beside what the collection freed). Where windows are off, or
//! no thread could be started, the join and the write run inline on the coordinator's thread.
//!
//! Windows waiting for the writer are charged against the memory ceiling
//! (`ROCPROF_XPLANE_MAX_MEMORY`) until they are joined, and the user is told once when one
//! waits behind another (the program delivers faster than the tool joins and writes).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::thread::ThreadId;
use std::time::Instant;

use super::window_files::WindowFiles;
use super::windows;
use crate::config::{Config, LogLevel};
use crate::model::carry::{self, HandedOn};
use crate::model::events::Collected;
use crate::model::join::join_numbered;
use crate::model::streams::StreamNumbers;
use crate::model::trace::Anchor;
use crate::model::Trace;
use crate::output;
use crate::recorder::Recorder;
use crate::{log_debug, log_error, log_info, log_warn};

/// Test-only (docs/reliability.md): milliseconds the writer waits before each window it takes,
/// as a writer slower than the program would: the cuts must go on at their count meanwhile.
pub const TEST_WRITE_DELAY: &str = "ROCPROF_XPLANE_TEST_WRITE_DELAY_MS";

/// The writer's thread, which joins (Linux keeps the first 15 bytes of a name).
const THREAD_NAME: &str = "rocprof-xplane-writer";

/// The writer's file thread, which writes the joined windows.
const FILES_THREAD_NAME: &str = "rocprof-xp-file";

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

/// A window after its hand-off, for its join.
struct HandedOff {
    /// The window's records, with what the window before handed on taken in first.
    c: Collected,
    always: bool,
    stages: CutStages,
}

/// A window as cut, with its stages begun on the coordinator's thread.
struct Cut {
    w: CutWindow,
    stages: CutStages,
}

enum Job {
    Window(Cut),
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

    /// Hands on what straddles the cut of a window cut now, and hands the window to the writer
    /// (joined and written at once when inline).
    pub fn window(&mut self, w: CutWindow) {
        let stages = CutStages::begin(
            w.c.delivered_count(),
            w.c.markers.len(),
            w.began,
            w.collected,
        );
        let w = Cut { w, stages };
        if let Mode::Unstarted(slot) = &mut self.mode {
            if let Some(writer) = slot.take() {
                self.mode = spawn(writer);
            }
        }
        match &mut self.mode {
            Mode::Inline(writer) | Mode::Unstarted(Some(writer)) => writer.cut(w),
            Mode::Unstarted(None) => unreachable!("started above"),
            Mode::Thread { tx, .. } => {
                let before = self.waiting.add(&w.w.c, self.recorder.budget());
                if let Err(mpsc::SendError(Job::Window(w))) = tx.send(Job::Window(w)) {
                    // The writer's thread is gone (it cannot be, short of a crash): inline.
                    self.waiting.remove(&w.w.c, self.recorder.budget());
                    log_error!("the window writer stopped; this window is written on the coordinator's thread");
                    self.inline_now().cut(w);
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
            Mode::Inline(writer) | Mode::Unstarted(Some(writer)) => writer.last_window(last),
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
                        self.inline_now().last_window(last);
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

/// What straddles each window's cut, handed on to the next window (`model::carry`), on the
/// writer's thread before the window's join: the hand-off reads the window's records and what
/// the window before handed on, never what a join found.
struct HandOff {
    /// How the run's windows are kept; `None` where window rules are off (a bounded capture's
    /// one profile hands nothing on).
    windows: Option<carry::Windows>,
    /// What the last window handed on to the next, with its correlation ids.
    carry: Option<(Collected, HandedOn)>,
}

impl HandOff {
    fn of(files: &WindowFiles) -> HandOff {
        let windows = files.active().then(|| {
            if files.run_ids().is_some() {
                carry::Windows::Merged
            } else {
                carry::Windows::Apart
            }
        });
        HandOff {
            windows,
            carry: None,
        }
    }

    /// `c` with what the last window handed on taken in first (their calls came first), and how
    /// many times each of those ids was handed on.
    fn take_carried(&mut self, c: Collected) -> (Collected, HandedOn) {
        match self.carry.take() {
            Some((mut held, ids)) => {
                held.absorb(c);
                (held, ids)
            }
            None => (c, HandedOn::default()),
        }
    }

    /// Window `w` hands on what straddles its cut, unless it ends a bounded capture
    /// (`always`: no window comes after it). (Out of line: `ci/bench-instructions.sh` names
    /// it.)
    #[inline(never)]
    fn window(&mut self, w: CutWindow, mut stages: CutStages) -> HandedOff {
        let CutWindow { c, always, .. } = w;
        stages.start(1);
        let (mut c, carried_in) = self.take_carried(c);
        if let (Some(windows), false) = (self.windows, always) {
            let began = Instant::now();
            if let Some((held, ids)) = carry::hand_off(&mut c, &carried_in, windows) {
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
        stages.handed_on();
        HandedOff { c, always, stages }
    }

    /// The last window takes in what the window before handed on: it hands nothing on.
    fn last(&mut self, mut last: LastWindow) -> LastWindow {
        (last.c, _) = self.take_carried(std::mem::take(&mut last.c));
        last
    }

    /// The record anchors the join of the window that handed on what is held found, for the
    /// next window's waits on them: they go to it with what is held. (No window is held: no
    /// window wants them.)
    fn keep_anchors(&mut self, anchors: Vec<(u64, Anchor)>) {
        if let Some((held, _)) = self.carry.as_mut() {
            held.carried.anchors = anchors;
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
                serve(*w, rx);
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
fn serve(mut w: Writer, rx: Receiver<Job>) {
    w.out.beside = true;
    while let Ok(job) = rx.recv() {
        match job {
            Job::Window(cut) => {
                guarded("a capture window's hand-off, join and write", || w.cut(cut));
            }
            Job::Barrier(done) => {
                w.out.files();
                let _ = done.send(());
            }
            Job::Last(last, done) => {
                guarded("the last window's join and write", || w.last_window(last));
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

/// What the windows' join carries from one window to the next, and the windows' write.
pub struct Writer {
    recorder: &'static Recorder,
    cfg: &'static Config,
    /// What the last window handed on, taken in by the next.
    hand_off: HandOff,
    /// Writes the joined windows (on a thread of its own beside the join when this writer has
    /// one).
    out: FileStage,
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
            hand_off: HandOff::of(&files),
            out: FileStage {
                state: Files::Here(Box::new(files)),
                beside: false,
                cfg,
            },
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

    /// Joins a window (or the one profile of a run without windows) with the stream numbers
    /// the run's earlier windows gave, keeping its new ones for the next.
    fn join_window(&mut self, c: Collected) -> Trace {
        let threads = output::join_threads(self.cfg, &c);
        join_numbered(c, threads, &mut self.numbers)
    }

    /// A window as the coordinator cut it: taken off the queue, handed off, joined and
    /// written.
    fn cut(&mut self, cut: Cut) {
        let Cut { w, stages } = cut;
        if let Some(d) = self.delay {
            std::thread::sleep(d);
        }
        self.taken(&w.c);
        let handed = self.hand_off.window(w, stages);
        self.window(handed);
    }

    /// The last window: takes in what the window before handed on, then [`Writer::last`].
    fn last_window(&mut self, last: LastWindow) {
        let last = self.hand_off.last(last);
        self.last(last);
    }

    /// Joins a window after its hand-off and hands it to the write
    /// (`<run>_wNNNN`). An empty window is neither joined nor written unless `always`.
    /// (Out of line: the instruction counts of `ci/bench-instructions.sh` name it.)
    #[inline(never)]
    fn window(&mut self, w: HandedOff) {
        let HandedOff {
            c,
            always,
            mut stages,
        } = w;
        stages.taken();
        if !c.has_records() && c.markers.is_empty() && !always {
            return;
        }
        let mut trace = self.join_window(c);
        self.unplaced += trace.counters.activities_unplaced;
        stages.joined();
        #[cfg(test)]
        tests::note_join(self.cfg);
        self.hand_off
            .keep_anchors(std::mem::take(&mut trace.record_anchors));
        self.out.write(Joined { trace, stages });
    }

    /// The last window (or the run's one profile), then the merge of the windows at exit.
    /// (Out of line: `ci/bench-instructions.sh` names it.)
    #[inline(never)]
    fn last(&mut self, last: LastWindow) {
        let LastWindow {
            c: collected,
            began: t0,
            attach,
            ended,
        } = last;
        let cfg = self.cfg;
        let files = self.out.files();
        super::signal::note_kept_windows(&files.kept_note());
        files.retry_held();
        if files.skip_final(&collected, attach.state, ended) {
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
        let files = self.out.files();
        let (run, n, merged) = files.final_output(attach.run);
        // The streaming pipeline's last window: the merge below reports the profile.
        let report = !merged || !windows::working_files(cfg);
        files.say_losses_in(&mut trace);
        // Nothing writes this trace again: its host events are freed as they are written, so
        // the writer's peak does not hold them all beside the planes being built.
        let host = crate::xplane::HostEvents::take(&mut trace);
        // The write's own top of the tool's heap starts here (`heap-stats` builds).
        let _ = crate::heap::interval_peak();
        let written = files.write(&trace, host, &run, n, true, merged);
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
                files.note_last_written(window);
            }
            Err(e) => {
                log_error!("cannot write the profile: {e}");
                if run != cfg.run_name {
                    files.lose_last(n, &trace, e);
                }
            }
        }
        drop(trace);
        self.end_windows(t0, attach.used);
    }

    /// The windows made one profile, what the profile lacks said, the run's name let go.
    fn end_windows(&mut self, t0: Instant, attach_used: bool) {
        let files = self.out.files();
        files.merge_at_exit(attach_used);
        files.say_losses_at_exit();
        self.say_unplaced_at_exit();
        self.out.files().release_claim();
        log_finalize_done(t0);
    }
}

/// A joined window on its way to its file.
struct Joined {
    trace: Trace,
    stages: CutStages,
}

/// The windows' write, in the order they were joined: on a thread of its own beside the join
/// when the writer runs on one (`beside`), else on the join's thread. The thread starts with
/// the first window written and gives the files back whenever the join needs them (a barrier,
/// the last window): every window sent to it is then written.
struct FileStage {
    state: Files,
    /// The writer runs on a thread of its own: the write goes beside it.
    beside: bool,
    cfg: &'static Config,
}

enum Files {
    Here(Box<WindowFiles>),
    /// The file thread takes each joined window from `tx` (one at a time: a joined window waits
    /// there only while the one before is written) and gives the files back when `tx` closes.
    Thread {
        tx: SyncSender<Joined>,
        thread: std::thread::JoinHandle<Box<WindowFiles>>,
    },
    /// Only while the files move between the two.
    Moving,
}

impl FileStage {
    /// Writes `j`: on the file thread when it runs (started here for the first window), else
    /// here.
    fn write(&mut self, j: Joined) {
        if self.beside {
            if let Files::Here(_) = self.state {
                self.start_thread();
            }
        }
        let j = match &self.state {
            Files::Thread { tx, .. } => match tx.send(j) {
                Ok(()) => return,
                Err(mpsc::SendError(j)) => {
                    // The file thread is gone (it cannot be, short of a crash): here.
                    log_error!("the window file writer stopped; windows are written on the writer's thread");
                    self.beside = false;
                    j
                }
            },
            Files::Here(_) | Files::Moving => j,
        };
        let cfg = self.cfg;
        write_window(self.files(), cfg, j);
    }

    /// The windows' files once every window sent to the file thread is written (its thread
    /// ended).
    fn files(&mut self) -> &mut WindowFiles {
        if let Files::Thread { .. } = self.state {
            if let Files::Thread { tx, thread } = std::mem::replace(&mut self.state, Files::Moving)
            {
                drop(tx);
                let files = thread.join().unwrap_or_else(|_| {
                    log_error!("internal error in the window file writer: the windows it held are not merged at exit");
                    Box::new(WindowFiles::new(self.cfg, true))
                });
                self.state = Files::Here(files);
            }
        }
        match &mut self.state {
            Files::Here(files) => files,
            Files::Thread { .. } | Files::Moving => unreachable!("the files came back above"),
        }
    }

    /// Moves the files onto a thread of their own; they stay here if it cannot start.
    fn start_thread(&mut self) {
        let Files::Here(files) = std::mem::replace(&mut self.state, Files::Moving) else {
            unreachable!("started from here only");
        };
        let cfg = self.cfg;
        // Nothing waits beyond the hand-over: the join waits for the write before it.
        let (tx, rx) = mpsc::sync_channel::<Joined>(0);
        // The thread takes the files out of this slot; if it cannot start, the slot still
        // holds them.
        let slot = Arc::new(std::sync::Mutex::new(Some(files)));
        let theirs = Arc::clone(&slot);
        let spawned = std::thread::Builder::new()
            .name(FILES_THREAD_NAME.into())
            .spawn(move || {
                let mut files = crate::store::sinks::lock(&theirs)
                    .take()
                    .expect("given to this thread");
                while let Ok(j) = rx.recv() {
                    guarded("a capture window's write", || {
                        write_window(&mut files, cfg, j)
                    });
                }
                files
            });
        self.state = match spawned {
            Ok(thread) => Files::Thread { tx, thread },
            Err(e) => {
                log_error!("cannot start the tool's window file writer thread: {e}; windows are written on the writer's thread");
                self.beside = false;
                Files::Here(
                    crate::store::sinks::lock(&slot)
                        .take()
                        .expect("the thread never ran"),
                )
            }
        };
    }
}

/// Writes joined window `j` as the run's next window (`<run>_wNNNN`), after a window that
/// could not be written before. (Out of line: `ci/bench-instructions.sh` names it.)
#[inline(never)]
fn write_window(files: &mut WindowFiles, cfg: &'static Config, j: Joined) {
    let Joined { trace, mut stages } = j;
    stages.write_taken();
    let (run, n) = files.next_window();
    #[cfg(test)]
    tests::note_write(cfg, n);
    // A window that could not be written before goes first, under its own number.
    files.retry_held();
    // Kept whole: a window that cannot be written now is written again later.
    let host = crate::xplane::HostEvents::of(&trace);
    let written = files.write(&trace, host, &run, n, false, true);
    stages.written(n);
    match written {
        Ok(window) => {
            if !windows::working_files(cfg) {
                output::report_written(&format!("window {n}: "), &window.path, &trace, cfg);
            }
            // Written: the window's events are freed before the window is put into the
            // run's profile, which holds none of them.
            drop(trace);
            files.wrote_window(n, &window);
            log_debug!(
                "window {n} written to {} in {:.1} ms",
                window.path.display(),
                stages.began().elapsed().as_secs_f64() * 1e3
            );
        }
        Err(e) => files.failed(n, run, trace, e),
    }
    // What a second signal or the deadline says if it cuts the exit short: the windows
    // written so far are kept, and how to merge them.
    super::signal::note_kept_windows(&files.kept_note());
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

/// One stage of a window's cut: when it began and ended, and on which thread.
#[derive(Clone, Copy)]
struct Stage {
    from: Instant,
    to: Instant,
    thread: ThreadId,
}

impl Stage {
    fn secs(&self) -> f64 {
        (self.to - self.from).as_secs_f64()
    }
}

/// The stages of a window's cut, for its debug line: the records of the window (before the
/// carry) per second of each stage, in all (their sum), and of the busiest thread (each
/// thread's stages summed: the rate the tool sustains, stages on different threads
/// overlapping other windows' stages). The collect is the coordinator's, the hand-off and
/// the join the writer's, the write the file thread's (or the writer's, inline all of them the
/// coordinator's); the waits between them are said apart.
struct CutStages {
    /// The records delivered by the runtime (the count rule's unit), and the roctx spans the
    /// callbacks made beside them.
    records: u64,
    spans: usize,
    /// Collect, hand-off, join, write.
    stages: [Stage; 4],
}

const STAGE_NAMES: [&str; 4] = ["collect", "hand-off", "join", "write"];

impl CutStages {
    /// A cut of `records` delivered records and `spans` roctx spans that began at `began`,
    /// collected at `collected`, on this thread; its hand-off begins now.
    fn begin(records: u64, spans: usize, began: Instant, collected: Instant) -> CutStages {
        let now = Instant::now();
        let thread = std::thread::current().id();
        let stage = Stage {
            from: now,
            to: now,
            thread,
        };
        let mut stages = [stage; 4];
        stages[0] = Stage {
            from: began,
            to: collected,
            thread,
        };
        CutStages {
            records,
            spans,
            stages,
        }
    }

    fn began(&self) -> Instant {
        self.stages[0].from
    }

    /// Marks stage `i` begun now on this thread.
    fn start(&mut self, i: usize) {
        let now = Instant::now();
        self.stages[i] = Stage {
            from: now,
            to: now,
            thread: std::thread::current().id(),
        };
    }

    fn end(&mut self, i: usize) {
        self.stages[i].to = Instant::now();
    }

    fn handed_on(&mut self) {
        self.end(1);
    }

    /// The writer took the window: its join begins.
    fn taken(&mut self) {
        self.start(2);
    }

    fn joined(&mut self) {
        self.end(2);
    }

    fn write_taken(&mut self) {
        self.start(3);
    }

    /// The busiest thread's time on this cut's stages, and the stages it ran.
    fn busiest(&self) -> (f64, String) {
        let mut threads: Vec<(ThreadId, f64, Vec<&str>)> = Vec::new();
        for (stage, name) in self.stages.iter().zip(STAGE_NAMES) {
            match threads.iter_mut().find(|(t, ..)| *t == stage.thread) {
                Some((_, secs, names)) => {
                    *secs += stage.secs();
                    names.push(name);
                }
                None => threads.push((stage.thread, stage.secs(), vec![name])),
            }
        }
        threads
            .into_iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(_, secs, names)| (secs, names.join(" + ")))
            .unwrap_or_default()
    }

    /// Window `n` is written: its debug line.
    fn written(&mut self, n: u32) {
        self.end(3);
        if !crate::config::log_enabled(LogLevel::Debug) {
            return;
        }
        let rate = |s: f64| {
            format!(
                "{:.1} ms ({:.2} M records/s)",
                s * 1e3,
                self.records as f64 / s.max(1e-9) / 1e6
            )
        };
        let s = &self.stages;
        let work: f64 = s.iter().map(Stage::secs).sum();
        let (busiest, on) = self.busiest();
        let wait = |a: usize, b: usize| (s[b].from.max(s[a].to) - s[a].to).as_secs_f64() * 1e3;
        log_debug!(
            "window {n} cut: {} records (and {} roctx spans); collect {}, hand-off {}, join {}, write {}; in all {}; busiest thread {} ({on}); waited {:.1} ms for the writer, {:.1} ms for its write",
            self.records,
            self.spans,
            rate(s[0].secs()),
            rate(s[1].secs()),
            rate(s[2].secs()),
            rate(s[3].secs()),
            rate(work),
            rate(busiest),
            wait(0, 1) + wait(1, 2),
            wait(2, 3)
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

    /// The threads that joined and wrote the windows of each output directory, in order.
    static DONE: std::sync::Mutex<Vec<(std::path::PathBuf, &'static str, u32, String)>> =
        std::sync::Mutex::new(Vec::new());

    fn note(cfg: &Config, what: &'static str, n: u32) {
        let thread = std::thread::current().name().unwrap_or("").to_string();
        let mut done = DONE.lock().unwrap();
        done.push((cfg.output_dir.clone(), what, n, thread));
    }

    pub(super) fn note_join(cfg: &Config) {
        note(cfg, "join", 0);
    }

    pub(super) fn note_write(cfg: &Config, n: u32) {
        note(cfg, "write", n);
    }

    fn done(dir: &std::path::Path) -> Vec<(&'static str, u32, String)> {
        let done = DONE.lock().unwrap();
        done.iter()
            .filter(|(d, ..)| d == dir)
            .map(|(_, what, n, thread)| (*what, *n, thread.clone()))
            .collect()
    }

    fn cut(always: bool) -> CutWindow {
        let now = Instant::now();
        CutWindow {
            c: Collected::default(),
            always,
            began: now,
            collected: now,
        }
    }

    /// Windows are joined on the writer's thread and written on a thread of their own (a
    /// window is written while the next is joined), in the order they were cut, under the
    /// numbers of that order.
    #[test]
    fn windows_are_written_beside_their_joins_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sink(dir.path());
        for _ in 0..3 {
            s.window(cut(true));
        }
        s.barrier();
        let done = done(dir.path());
        let joins: Vec<_> = done.iter().filter(|d| d.0 == "join").collect();
        let writes: Vec<_> = done.iter().filter(|d| d.0 == "write").collect();
        assert_eq!(joins.len(), 3, "{done:?}");
        assert!(joins.iter().all(|j| j.2 == THREAD_NAME), "{done:?}");
        let numbers: Vec<u32> = writes.iter().map(|w| w.1).collect();
        assert_eq!(numbers, [1, 2, 3], "{done:?}");
        assert!(writes.iter().all(|w| w.2 == FILES_THREAD_NAME), "{done:?}");
        // After the barrier every window is on disk, numbered as cut.
        let mut runs: Vec<String> = std::fs::read_dir(dir.path().join("plugins/profile"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("run_w"))
            .collect();
        runs.sort();
        assert_eq!(runs, ["run_w0001", "run_w0002", "run_w0003"]);
        s.last(last());
    }

    /// Inline (window rules off), the join and the write run on the thread that cuts.
    #[test]
    fn an_inline_writer_writes_on_the_cutting_thread() {
        let dir = tempfile::tempdir().unwrap();
        let (mut cfg, _) = Config::parse(|_| None, 0);
        cfg.output_dir = dir.path().to_path_buf();
        cfg.run_name = "run".into();
        let cfg: &'static Config = Box::leak(Box::new(cfg));
        let recorder: &'static Recorder = Box::leak(Box::default());
        let mut s = Sink::start(recorder, cfg, WindowFiles::new(cfg, false), false);
        s.window(cut(true));
        let here = std::thread::current().name().unwrap_or("").to_string();
        let done = done(dir.path());
        assert_eq!(done.len(), 2, "{done:?}");
        assert!(done.iter().all(|d| d.2 == here), "{done:?}");
    }

    /// The record anchors a window's join found go to the window after it, in front of what
    /// it carried in, only when that window took in what the first handed on.
    #[test]
    fn record_anchors_go_to_the_window_that_took_the_carry() {
        let mut h = HandOff {
            windows: None,
            carry: None,
        };
        let (a, b) = (Anchor::on_device(0, 1, 10), Anchor::on_device(0, 2, 20));
        h.carry = Some((Collected::default(), HandedOn::default()));
        h.keep_anchors(vec![(1, a)]);
        let mut c = Collected::default();
        c.carried.anchors = vec![(2, b)];
        let (c, _) = h.take_carried(c);
        assert_eq!(c.carried.anchors, [(1, a), (2, b)]);
        assert!(h.carry.is_none());
        h.keep_anchors(vec![(1, a)]);
        let (c, _) = h.take_carried(Collected::default());
        assert!(c.carried.anchors.is_empty() && h.carry.is_none());
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
