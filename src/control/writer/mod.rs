//! The window writer: hands off, joins and writes the windows the coordinator cuts, one after
//! another in the order they were cut. A window's cut goes through three stages after its
//! collect, each on a thread of the writer's own, a pipeline:
//!
//! - the hand-off (`HandOff`, `model::carry`), on the hand-off's thread (`HAND_OFF_THREAD_NAME`),
//!   which takes the windows off the coordinator's queue: what straddles the cut goes to the
//!   next window, which takes it in before its hand-off. The hand-off reads records only, never
//!   what a join found, so a window is handed off while the one before it is joined. (Not on
//!   the coordinator's thread: a hand-off there holds back the coordinator's buffer flushes and
//!   count checks for its length, so later windows pass their count.)
//! - the join (`Writer`), on the writer's thread, which owns the stream numbers and the record
//!   anchors a join finds for the window after it (`RecordAnchors`);
//! - the write, on a thread of the writer's own (`FileStage`), which owns the windows' files
//!   (`window_files`).
//!
//! Each stage passes its window to the next through a rendezvous: a stage that is ahead waits
//! with its window until the next takes it, so at most one window waits between two stages
//! beside the ones being handed off, joined and written. The coordinator's queue to the hand-off
//! is not bounded: the coordinator goes back to the window timer as soon as it has sent the
//! window, and a window is cut at its count even while the ones before it are still handed off,
//! joined and written. The writer's threads start with the first window cut: a run that ends
//! before any cut writes its one profile on the coordinator's thread, as a run held whole does
//! (no thread, and no allocator arena of its own holding the join's memory beside what the
//! collection freed). Where windows are off, or no thread could be started, the stages run
//! inline on the coordinator's thread (`Stages`).
//!
//! Windows waiting in the coordinator's queue are charged against the memory ceiling
//! (`ROCPROF_XPLANE_MAX_MEMORY`) until the hand-off takes them, and the user is told once when
//! one waits behind another (the program delivers faster than the tool joins and writes).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use super::window_files::WindowFiles;
use super::windows;
use crate::config::{Config, LogLevel};
use crate::model::carry::{self, HandedOn};
use crate::model::events::Collected;
use crate::model::join::join_numbered;
use crate::model::streams::StreamNumbers;
use crate::model::trace::{Anchor, StreamTail};
use crate::model::Trace;
use crate::output;
use crate::recorder::Recorder;
use crate::{log_debug, log_error, log_info, log_warn};

mod stages;
use stages::CutStages;

/// Test-only (docs/reliability.md): milliseconds the writer waits before each window it takes,
/// as a writer slower than the program would: the cuts must go on at their count meanwhile.
pub const TEST_WRITE_DELAY: &str = "ROCPROF_XPLANE_TEST_WRITE_DELAY_MS";

/// The writer's thread, which joins (Linux keeps the first 15 bytes of a name).
const THREAD_NAME: &str = "rocprof-xplane-writer";

/// The writer's hand-off thread, which takes the windows off the queue and hands on what
/// straddles each cut.
const HAND_OFF_THREAD_NAME: &str = "rocprof-xp-hand";

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
    /// The window handed something on to the next, which took it in: the record anchors its
    /// join finds go to that window's join (`RecordAnchors`).
    hands_on: bool,
    stages: CutStages,
}

/// A window as cut, with its stages begun on the coordinator's thread.
struct Cut {
    w: CutWindow,
    stages: CutStages,
}

/// What a stage's thread takes, in the order sent: windows (`W`: as cut for the hand-off,
/// handed off for the join), a barrier, the last window.
enum Job<W> {
    Window(W),
    /// Answered once every window sent before it is written.
    Barrier(SyncSender<()>),
    Last(Box<LastWindow>, SyncSender<()>),
}

/// Windows sent to the writer and not yet taken by its hand-off: their count, records and
/// bytes.
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
    /// Window rules are on but no window was cut yet: the threads start with the first. (The
    /// slot is empty only while that start takes the stages out of it.)
    Unstarted(Option<Box<Stages>>),
    /// The hand-off's thread takes the windows from `tx`; the join's thread takes them from it.
    Thread {
        tx: Sender<Job<Cut>>,
        hand_offs: Option<JoinHandle<()>>,
        joins: Option<JoinHandle<Option<Box<Writer>>>>,
    },
    Inline(Box<Stages>),
}

impl Sink {
    /// The writer of `cfg`'s windows: on threads of its own when `threaded` (window rules on),
    /// else inline.
    pub fn start(
        recorder: &'static Recorder,
        cfg: &'static Config,
        files: WindowFiles,
        threaded: bool,
    ) -> Sink {
        let waiting = Arc::new(Waiting::default());
        let stages = Box::new(Stages::new(recorder, cfg, files, Arc::clone(&waiting)));
        let mode = if threaded {
            Mode::Unstarted(Some(stages))
        } else {
            Mode::Inline(stages)
        };
        Sink {
            mode,
            waiting,
            recorder,
            cfg,
            told: false,
        }
    }

    /// Whether the writer runs on threads of its own (else each window is handed off, joined
    /// and written within its cut).
    pub fn threaded(&self) -> bool {
        matches!(self.mode, Mode::Unstarted(_) | Mode::Thread { .. })
    }

    /// Hands a window cut now to the writer, which hands on what straddles its cut, joins it
    /// and writes it (at once when inline; else on its threads, and this returns at once).
    pub fn window(&mut self, w: CutWindow) {
        let stages = CutStages::begin(
            w.c.delivered_count(),
            w.c.markers.len(),
            w.began,
            w.collected,
        );
        let w = Cut { w, stages };
        if let Mode::Unstarted(slot) = &mut self.mode {
            if let Some(stages) = slot.take() {
                self.mode = spawn(stages);
            }
        }
        match &mut self.mode {
            Mode::Inline(stages) | Mode::Unstarted(Some(stages)) => stages.cut(w),
            Mode::Unstarted(None) => unreachable!("started above"),
            Mode::Thread { tx, .. } => {
                let before = self.waiting.add(&w.w.c, self.recorder.budget());
                if let Err(mpsc::SendError(Job::Window(w))) = tx.send(Job::Window(w)) {
                    // The hand-off's thread is gone (it cannot be, short of a crash): inline.
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

    /// Once a run: windows wait behind the one being handed off.
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
    /// exit). Returns once all of it is done; the writer's threads end.
    pub fn last(&mut self, last: LastWindow) {
        match &mut self.mode {
            // No window was cut: the run's one profile, on this thread.
            Mode::Inline(stages) | Mode::Unstarted(Some(stages)) => stages.last_window(last),
            Mode::Unstarted(None) => unreachable!("a start never leaves the slot empty"),
            Mode::Thread {
                tx,
                hand_offs,
                joins,
            } => {
                let (done, wait) = mpsc::sync_channel(1);
                match tx.send(Job::Last(Box::new(last), done)) {
                    Ok(()) => {
                        let _ = wait.recv();
                        if let Some(t) = hand_offs.take() {
                            let _ = t.join();
                        }
                        if let Some(t) = joins.take() {
                            let _ = t.join();
                        }
                    }
                    Err(mpsc::SendError(Job::Last(last, _))) => {
                        log_error!("the window writer stopped; the last window is written on the coordinator's thread");
                        self.inline_now().last_window(*last);
                    }
                    Err(_) => {}
                }
            }
        }
    }

    /// The stages on this thread in place of threads that are gone: what they held is lost
    /// with them (the error said so), the run's files start afresh.
    fn inline_now(&mut self) -> &mut Stages {
        if let Mode::Thread { .. } = self.mode {
            let stages = Stages::new(
                self.recorder,
                self.cfg,
                WindowFiles::new(self.cfg, true),
                Arc::clone(&self.waiting),
            );
            self.mode = Mode::Inline(Box::new(stages));
        }
        match &mut self.mode {
            Mode::Inline(s) | Mode::Unstarted(Some(s)) => s,
            Mode::Thread { .. } | Mode::Unstarted(None) => unreachable!("made inline above"),
        }
    }
}

/// The writer's two stages in one place: before its threads start, and inline (each window
/// handed off, joined and written on the thread that cut it).
pub struct Stages {
    hand_off: HandOffStage,
    writer: Writer,
}

impl Stages {
    fn new(
        recorder: &'static Recorder,
        cfg: &'static Config,
        files: WindowFiles,
        waiting: Arc<Waiting>,
    ) -> Stages {
        Stages {
            hand_off: HandOffStage {
                hand_off: HandOff::of(&files),
                recorder,
                cfg,
                waiting,
                delay: std::env::var(TEST_WRITE_DELAY)
                    .ok()
                    .and_then(|v| v.trim().parse().ok())
                    .map(std::time::Duration::from_millis),
            },
            writer: Writer::new(recorder, cfg, files),
        }
    }

    /// A window as the coordinator cut it: handed off, joined and written.
    fn cut(&mut self, cut: Cut) {
        let handed = self.hand_off.cut(cut);
        self.writer.window(handed);
    }

    /// The last window: takes in what the window before handed on, then [`Writer::last`].
    fn last_window(&mut self, last: LastWindow) {
        let last = self.hand_off.hand_off.last(last);
        self.writer.last(last);
    }
}

/// The hand-off stage: takes each window off the queue and hands on what straddles its cut.
struct HandOffStage {
    hand_off: HandOff,
    recorder: &'static Recorder,
    cfg: &'static Config,
    waiting: Arc<Waiting>,
    /// `TEST_WRITE_DELAY`.
    delay: Option<std::time::Duration>,
}

impl HandOffStage {
    /// A window as the coordinator cut it: taken off the queue (no longer charged as waiting;
    /// inline, no window ever waits) and handed off.
    fn cut(&mut self, cut: Cut) -> HandedOff {
        let Cut { w, stages } = cut;
        if let Some(d) = self.delay {
            std::thread::sleep(d);
        }
        if self.waiting.windows.load(Ordering::Relaxed) > 0 {
            self.waiting.remove(&w.c, self.recorder.budget());
        }
        #[cfg(test)]
        tests::note_hand_off(self.cfg);
        self.hand_off.window(w, stages)
    }
}

/// What straddles each window's cut, handed on to the next window (`model::carry`), before
/// the window's join: the hand-off reads the window's records and what the window before
/// handed on, never what a join found (the record anchors go from join to join:
/// `RecordAnchors`), so a window is handed off while the one before it is joined.
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
        HandedOff {
            c,
            always,
            hands_on: self.carry.is_some(),
            stages,
        }
    }

    /// The last window takes in what the window before handed on: it hands nothing on.
    fn last(&mut self, mut last: LastWindow) -> LastWindow {
        (last.c, _) = self.take_carried(std::mem::take(&mut last.c));
        last
    }
}

/// The record anchors a window's join found for the window after it (`Trace::record_anchors`,
/// asked for by `Carried::anchors_wanted`): they go to the next join, in front of what that
/// window carried in, when the window that found them handed something on (which the next
/// window took in). With them, where each stream's last work so far ended
/// (`Trace::stream_tails`, asked for by `Carried::tails_wanted`), which goes to the next
/// join whatever was handed on. The join's own: a window's hand-off never waits for the join
/// before it.
#[derive(Default)]
struct RecordAnchors {
    next: Option<Vec<(u64, Anchor)>>,
    tails: Vec<StreamTail>,
}

impl RecordAnchors {
    /// What the join of a window that `handed_on` (or not) found.
    fn keep(&mut self, handed_on: bool, trace: &mut Trace) {
        self.next = handed_on.then(|| std::mem::take(&mut trace.record_anchors));
        self.tails = std::mem::take(&mut trace.stream_tails);
    }

    /// The next window, `c`, takes what the window before found.
    fn give(&mut self, c: &mut Collected) {
        if let Some(mut anchors) = self.next.take() {
            anchors.append(&mut c.carried.anchors);
            c.carried.anchors = anchors;
        }
        c.carried.stream_tails = std::mem::take(&mut self.tails);
    }

    /// `c`, given what the window before found, is not joined: the stream tails wait for
    /// the window after it.
    fn not_joined(&mut self, c: &mut Collected) {
        self.tails = std::mem::take(&mut c.carried.stream_tails);
    }
}

/// Starts the writer's threads (the join's, then the hand-off's, which sends to it); inline
/// when either cannot start.
fn spawn(stages: Box<Stages>) -> Mode {
    let Stages { hand_off, writer } = *stages;
    // At most one handed-off window waits for the join (memory stays bounded by the windows
    // queued for the hand-off, charged, and one window per stage).
    let (to_join, joins_rx) = mpsc::sync_channel::<Job<HandedOff>>(0);
    // Each thread takes its stage out of its slot; if it cannot start, the slot still holds it
    // for the inline mode.
    let slot = Arc::new(std::sync::Mutex::new(Some(Box::new(writer))));
    let theirs = Arc::clone(&slot);
    let joins = std::thread::Builder::new()
        .name(THREAD_NAME.into())
        .spawn(move || {
            let taken = crate::store::sinks::lock(&theirs).take();
            taken.and_then(|w| serve_joins(*w, joins_rx))
        });
    let joins = match joins {
        Ok(t) => t,
        Err(e) => {
            log_error!(
                "cannot start the tool's window writer thread: {e}; windows are joined and written on the control thread"
            );
            let writer = *crate::store::sinks::lock(&slot)
                .take()
                .expect("the thread never ran");
            return Mode::Inline(Box::new(Stages { hand_off, writer }));
        }
    };
    let (tx, rx) = mpsc::channel();
    let slot = Arc::new(std::sync::Mutex::new(Some((hand_off, to_join))));
    let theirs = Arc::clone(&slot);
    let hand_offs = std::thread::Builder::new()
        .name(HAND_OFF_THREAD_NAME.into())
        .spawn(move || {
            let taken = crate::store::sinks::lock(&theirs).take();
            if let Some((h, to_join)) = taken {
                serve_hand_offs(h, rx, to_join);
            }
        });
    match hand_offs {
        Ok(t) => Mode::Thread {
            tx,
            hand_offs: Some(t),
            joins: Some(joins),
        },
        Err(e) => {
            log_error!(
                "cannot start the tool's window hand-off thread: {e}; windows are handed off, joined and written on the control thread"
            );
            let (hand_off, to_join) = crate::store::sinks::lock(&slot)
                .take()
                .expect("the thread never ran");
            // The join's thread ends with its channel and gives the writer back.
            drop(to_join);
            let mut writer = match joins.join() {
                Ok(Some(w)) => *w,
                _ => Writer::new(
                    hand_off.recorder,
                    hand_off.cfg,
                    WindowFiles::new(hand_off.cfg, true),
                ),
            };
            writer.out.beside = false;
            Mode::Inline(Box::new(Stages { hand_off, writer }))
        }
    }
}

/// The hand-off's thread: one job at a time, in the order sent, until the last window, each
/// passed on to the join's thread. A panic in a hand-off loses that window (said), never the
/// thread.
fn serve_hand_offs(
    mut h: HandOffStage,
    rx: Receiver<Job<Cut>>,
    to_join: SyncSender<Job<HandedOff>>,
) {
    let mut join = ToJoin::Thread(to_join);
    while let Ok(job) = rx.recv() {
        match job {
            Job::Window(cut) => {
                let handed = guarded("a capture window's hand-off", || h.cut(cut));
                if let Some(handed) = handed {
                    join.send(&h, Job::Window(handed));
                }
            }
            Job::Barrier(done) => join.send(&h, Job::Barrier(done)),
            Job::Last(last, done) => {
                let last = Box::new(h.hand_off.last(*last));
                join.send(&h, Job::Last(last, done));
                return;
            }
        }
    }
}

/// Where the hand-off's thread sends its windows: the join's thread, or (once that thread is
/// gone, which it cannot be short of a crash) a writer on the hand-off's thread.
enum ToJoin {
    Thread(SyncSender<Job<HandedOff>>),
    Here(Box<Writer>),
}

impl ToJoin {
    fn send(&mut self, h: &HandOffStage, job: Job<HandedOff>) {
        let job = match self {
            ToJoin::Thread(tx) => match tx.send(job) {
                Ok(()) => return,
                Err(mpsc::SendError(job)) => {
                    // What the join's thread held is lost with it; the run's files start afresh.
                    log_error!("the window writer's join stopped; windows are joined and written on the hand-off's thread");
                    *self = ToJoin::Here(Box::new(Writer::new(
                        h.recorder,
                        h.cfg,
                        WindowFiles::new(h.cfg, true),
                    )));
                    job
                }
            },
            ToJoin::Here(_) => job,
        };
        let ToJoin::Here(w) = self else {
            unreachable!("made here above")
        };
        w.serve(job);
    }
}

/// The join's thread: one job at a time, in the order sent, until the last window. A panic in
/// a job loses that job's window (said), never the thread. Gives the writer back when its
/// channel closes before the last window.
fn serve_joins(mut w: Writer, rx: Receiver<Job<HandedOff>>) -> Option<Box<Writer>> {
    w.out.beside = true;
    while let Ok(job) = rx.recv() {
        if !w.serve(job) {
            return None;
        }
    }
    Some(Box::new(w))
}

/// Runs `f`, or says that its window is lost when it panics.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Option<T> {
    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    if done.is_err() {
        log_error!("internal error in {what}: that window is not written");
    }
    done.ok()
}

/// The windows' join and write: what the join carries from one window to the next (stream
/// numbers, record anchors), and the write.
pub struct Writer {
    recorder: &'static Recorder,
    cfg: &'static Config,
    /// Writes the joined windows (on a thread of its own beside the join when this writer has
    /// one).
    out: FileStage,
    /// The stream numbers the windows gave so far: a stream is `Stream #N` in every window.
    numbers: StreamNumbers,
    /// What the last join found for the next window.
    anchors: RecordAnchors,
    /// Device activities the run's profiles wrote without their call's launch facts
    /// (`Counters::activities_unplaced`): said once at exit.
    unplaced: u64,
}

impl Writer {
    fn new(recorder: &'static Recorder, cfg: &'static Config, files: WindowFiles) -> Writer {
        Writer {
            recorder,
            cfg,
            out: FileStage {
                state: Files::Here(Box::new(files)),
                beside: false,
                cfg,
            },
            numbers: StreamNumbers::default(),
            anchors: RecordAnchors::default(),
            unplaced: 0,
        }
    }

    /// One job of the join's thread; `false` after the last window.
    fn serve(&mut self, job: Job<HandedOff>) -> bool {
        match job {
            Job::Window(h) => {
                guarded("a capture window's join and write", || self.window(h));
                true
            }
            Job::Barrier(done) => {
                self.out.files();
                let _ = done.send(());
                true
            }
            Job::Last(last, done) => {
                guarded("the last window's join and write", || self.last(*last));
                let _ = done.send(());
                false
            }
        }
    }

    /// Joins a window (or the one profile of a run without windows) with the stream numbers
    /// the run's earlier windows gave, keeping its new ones for the next.
    fn join_window(&mut self, c: Collected) -> Trace {
        let threads = output::join_threads(self.cfg, &c);
        join_numbered(c, threads, &mut self.numbers)
    }

    /// Joins a window after its hand-off and hands it to the write
    /// (`<run>_wNNNN`). An empty window is neither joined nor written unless `always`.
    /// (Out of line: the instruction counts of `ci/bench-instructions.sh` name it.)
    #[inline(never)]
    fn window(&mut self, w: HandedOff) {
        let HandedOff {
            mut c,
            always,
            hands_on,
            mut stages,
        } = w;
        stages.taken();
        #[cfg(test)]
        tests::hold_join(self.cfg);
        self.anchors.give(&mut c);
        if !c.has_records() && c.markers.is_empty() && !always {
            self.anchors.not_joined(&mut c);
            return;
        }
        let mut trace = self.join_window(c);
        self.unplaced += trace.counters.activities_unplaced;
        stages.joined();
        #[cfg(test)]
        tests::note_join(self.cfg);
        self.anchors.keep(hands_on, &mut trace);
        self.out.write(Joined { trace, stages });
    }
    /// The last window (or the run's one profile), then the merge of the windows at exit.
    /// (Out of line: `ci/bench-instructions.sh` names it.)
    #[inline(never)]
    fn last(&mut self, last: LastWindow) {
        let LastWindow {
            c: mut collected,
            began: t0,
            attach,
            ended,
        } = last;
        self.anchors.give(&mut collected);
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

#[cfg(test)]
mod tests;
