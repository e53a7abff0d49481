//! The coordinator: the one owner of a run's control. It holds the SDK session, the window
//! policy, the attach state and the window writer (`writer`: the carry between windows, the
//! stream numbering and run ids), and acts on one command at a time — so a detach, a window's end, a service capture and the
//! finalize never overlap, and each runs every step of the cut it needs (`cut`).
//!
//! It runs on a thread of the tool (`Control::start`), between commands looking at the window
//! timer and the range-end flag; where no thread could be started it is driven inline, on the
//! thread of whoever sends a command, without the timer.

use super::command::{Command, Reply};
use super::cut::{CutKind, Run};
use super::sampler::Sampler;
use super::windows::{Step, Windows};
use crate::config::{Config, LogLevel};
use crate::recorder::Recorder;
use crate::sdk::device_counting::DeviceCounting;
use crate::sdk::Session;
use crate::{log_debug, log_info};

/// Bytes held per record of a count window past which the window is cut by memory: a record
/// held while tracing takes 16–24 B and a captured call's facts about 64 B (`recorder`), so a
/// window holding more than this per record of its count holds unusually large records.
const WINDOW_BYTES_PER_RECORD: u64 = 128;

/// How count windows keep pace with the program: what a window's size is measured in, and
/// whether the user has been told that records arrive faster than windows are cut.
#[derive(Debug, Default)]
struct Pace {
    told: bool,
}

impl Pace {
    /// The records a window holds for its count rule: those delivered, or what the bytes held
    /// would be in records of the usual size, whichever is more.
    fn count(delivered: u64, held_bytes: u64) -> u64 {
        delivered.max(held_bytes / WINDOW_BYTES_PER_RECORD)
    }

    /// Whether to tell the user, after a cut of windows of `n` records, that `during` records
    /// arrived while it ran: as many as a window holds means the program delivers faster than
    /// the tool's thread cuts. True once a run.
    fn outrun(&mut self, n: u64, during: u64) -> bool {
        if self.told || during < n {
            return false;
        }
        self.told = true;
        true
    }
}

/// The periodic device counters' sampling thread, when `ROCPROF_XPLANE_PMC_INTERVAL` is set:
/// running, or the device counting it reads while it is stopped.
struct Sampling {
    running: Option<Sampler>,
    idle: Option<Box<DeviceCounting>>,
    every: std::time::Duration,
    recorder: &'static Recorder,
}

impl Sampling {
    /// Starts the thread, unless it runs.
    fn start(&mut self) {
        if let Some(dc) = self.idle.take() {
            match Sampler::start(dc, self.recorder, self.every) {
                Ok(s) => self.running = Some(s),
                Err(dc) => self.idle = Some(dc),
            }
        }
    }

    /// Stops the thread after its last read (at most `sampler::STOP_WAIT`).
    fn stop(&mut self) {
        if let Some(s) = self.running.take() {
            self.idle = s.stop();
        }
    }
}

pub struct Coordinator {
    run: Run,
    /// The device counters' sampling thread (none without `ROCPROF_XPLANE_PMC_INTERVAL`).
    sampling: Option<Sampling>,
    pace: Pace,
    /// Whether the window timer runs (a thread to tick on, and windows or a schedule asked
    /// for).
    ticking: bool,
    /// Finalize has run: later commands do nothing.
    finalized: bool,
}

impl Coordinator {
    /// The coordinator of `session`; `ticking` says whether it gets a thread that looks at
    /// the window timer. Recording starts as `cfg` asks: paused for a start delay or the
    /// profiler service (`entry` paused it before the contexts started); without the timer a
    /// start delay cannot be waited for, and the buffers start now.
    pub fn new(
        recorder: &'static Recorder,
        session: Session,
        cfg: &'static Config,
        thread: bool,
    ) -> Coordinator {
        let ticking = thread && Windows::wanted(cfg);
        let windows = Windows::new(cfg, ticking);
        recorder.count_deliveries(windows.active());
        if windows.active() {
            if let (Some(name), Some(every)) =
                (&cfg.window_range, cfg.window.and_then(|r| r.range_every))
            {
                recorder.capture().set_range_rule(name, every);
            }
        }
        if !ticking && cfg.start_delay_ms.is_some() {
            session.start_buffers();
            recorder.set_paused(cfg.server.is_some());
        }
        let mut session = session;
        let sampling = match (session.device_counting.take(), cfg.pmc_interval_ms) {
            (Some(dc), Some(ms)) => {
                let mut s = Sampling {
                    running: None,
                    idle: Some(Box::new(dc)),
                    every: std::time::Duration::from_millis(ms.max(1)),
                    recorder,
                };
                s.start();
                Some(s)
            }
            _ => None,
        };
        Coordinator {
            run: Run::new(recorder, session, cfg, windows),
            sampling,
            ticking,
            finalized: false,
            pace: Pace::default(),
        }
    }

    /// Whether the coordinator ticks: the window timer runs, or the stream brackets are
    /// configured and not started (a tick starts them once a call asked).
    pub fn ticking(&self) -> bool {
        self.ticking || self.run.session.brackets_pending()
    }

    /// Starts the runtime's stream brackets once a call of a HIP function the table does not
    /// list asked for them (`capture::hip_stream::Brackets`).
    fn start_brackets_if_asked(&mut self) {
        let run = &mut self.run;
        let brackets = run.recorder.capture().streams().brackets();
        if brackets.asked() && run.session.start_brackets() {
            brackets.opened();
        }
    }

    /// Whether finalize has run.
    pub fn finalized(&self) -> bool {
        self.finalized
    }

    /// Acts on one command.
    pub fn handle(&mut self, command: Command) -> Reply {
        if self.finalized {
            return Reply::Done;
        }
        let run = &mut self.run;
        match command {
            Command::Cut => run.windows.request_cut(),
            Command::Record => {
                let stale = run.cut(CutKind::Discard).unwrap_or_default();
                let late = stale.api_record_count() + stale.kernels.len() + stale.copies.len();
                if late > 0 {
                    log_info!("{late} records that arrived between capture windows were not kept");
                }
                run.session.start_buffers();
                run.recorder.set_paused(false);
            }
            Command::Snapshot => return records(run.cut(CutKind::Snapshot)),
            Command::Stop => return records(run.cut(CutKind::StopRecording)),
            Command::Attach(contexts) => {
                let n = run.attach.begin();
                // A reattach first drops what the callbacks kept while detached, and the
                // device counters' series of the session before: its contexts start afresh and
                // count from zero, so no interval spans the gap.
                if n > 1 {
                    let _ = run.cut(CutKind::Discard);
                    run.forget_device_reads();
                }
                let started = run.session.start_inactive(&contexts);
                run.recorder.set_paused(false);
                // A reattach restarts the sampling thread the detach stopped; its first read,
                // at once, starts the session's series. At the first attach the thread runs
                // since initialize, as the contexts do, and reads on: a restart there would
                // read twice in a row (its last read, then its first), an interval of no time.
                if let Some(s) = self.sampling.as_mut() {
                    s.start();
                }
                log_info!(
                    "attached (session {n}): {} contexts handed over, {started} started",
                    contexts.len()
                );
            }
            Command::Detach => {
                if let Some(s) = self.sampling.as_mut() {
                    s.stop();
                }
                if let Some(session) = run.attach.end() {
                    let _ = run.cut(CutKind::Detach { session });
                }
            }
            Command::Finalize => self.finalize(),
        }
        Reply::Done
    }

    /// The program ends: the last cut. Later commands do nothing. (Out of line: the
    /// instruction counts of `ci/bench-instructions.sh` name it.)
    #[inline(never)]
    fn finalize(&mut self) {
        self.finalized = true;
        // The last read before the contexts stop: the interval up to the end.
        if let Some(s) = self.sampling.as_mut() {
            s.stop();
        }
        // Phase times and memory at `debug` level: finalize is where the process waits on us
        // at exit, and where memory peaks.
        if crate::config::log_enabled(LogLevel::Debug) {
            log_debug!("finalize: start, memory {}", crate::log::process_memory());
        }
        let _ = self.run.cut(CutKind::Final);
    }

    /// One tick of the window timer: starts a delayed capture, ends a bounded one, cuts a
    /// window when a rule fires.
    pub fn tick(&mut self) {
        if self.finalized {
            return;
        }
        self.start_brackets_if_asked();
        if !self.ticking {
            return;
        }
        let run = &mut self.run;
        let held = || Pace::count(run.recorder.delivered(), run.recorder.budget().held());
        match run.windows.tick(held()) {
            Step::Nothing => {}
            Step::Start => {
                // What the callbacks captured during the delay has no records: dropped.
                let _ = run.cut(CutKind::Discard);
                run.session.start_buffers();
                run.recorder.set_paused(false);
                run.windows.started_capture();
                run.recorder.reset_delivered();
                log_debug!("capture started after the delay");
            }
            Step::EndBounded => {
                let _ = run.cut(CutKind::BoundedEnd);
                run.windows.end_bounded();
            }
            Step::Rules { flush } => {
                if flush {
                    for w in run.session.flush_each(|_| {}) {
                        log_debug!("window flush: {w}");
                    }
                }
                let range_end = run.recorder.capture().take_range_end();
                // A count window is cut by its records or by what they hold, whichever comes
                // first.
                let delivered = held();
                if run.windows.cut_due(delivered, range_end, run.attach.used()) {
                    run.recorder.reset_delivered();
                    let began = std::time::Instant::now();
                    let _ = run.cut(CutKind::Window);
                    self.tell_if_outrun(delivered, began.elapsed());
                }
            }
        }
    }
}

impl Coordinator {
    /// After a count window's cut of `records` records that took `took`: when as many records
    /// as a window holds were delivered meanwhile, the program delivers faster than the tool's
    /// thread cuts, and each window holds what arrived during the cut before it. Said once.
    /// With the window writer on threads of its own a cut only collects, and the writer says
    /// when windows wait for it (`writer::Sink`).
    fn tell_if_outrun(&mut self, records: u64, took: std::time::Duration) {
        if self.run.writer_threaded() {
            return;
        }
        let Some(n) = self.run.cfg.window.and_then(|r| r.events) else {
            return;
        };
        let during = self.run.recorder.delivered();
        if !self.pace.outrun(n, during) {
            return;
        }
        let secs = took.as_secs_f64().max(1e-9);
        crate::log_warn!(
            "records arrive faster than capture windows of {n} records are cut: {during} came during the last cut ({records} records in {:.0} ms, {:.2} M records/s on the tool's thread); windows grow to what arrives during the cut before them, within ROCPROF_XPLANE_MAX_MEMORY",
            secs * 1e3,
            records as f64 / secs / 1e6
        );
    }
}

fn records(c: Option<crate::model::events::Collected>) -> Reply {
    Reply::Records(Box::new(c.unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count window is cut by its records or by the bytes they hold, whichever says more.
    #[test]
    fn a_count_window_is_measured_in_records_or_their_bytes() {
        assert_eq!(Pace::count(1000, 0), 1000);
        assert_eq!(Pace::count(1000, 1000 * WINDOW_BYTES_PER_RECORD), 1000);
        // Records bigger than usual: the bytes say more.
        assert_eq!(Pace::count(10, 1000 * WINDOW_BYTES_PER_RECORD), 1000);
    }

    /// The user hears once that records arrive faster than windows are cut, and only when a
    /// window's worth arrived during a cut.
    #[test]
    fn being_outrun_is_said_once() {
        let mut p = Pace::default();
        assert!(!p.outrun(1000, 999));
        assert!(p.outrun(1000, 1000));
        assert!(!p.outrun(1000, 5000));
    }
    use crate::sdk::Functions;

    /// A coordinator over no SDK at all (every function absent), writing under `dir`.
    fn coordinator(dir: &std::path::Path) -> Coordinator {
        let (mut cfg, _) = Config::parse(|_| None, 0);
        cfg.output_dir = dir.to_path_buf();
        cfg.run_name = "run".into();
        let cfg: &'static Config = Box::leak(Box::new(cfg));
        let recorder: &'static Recorder = Box::leak(Box::default());
        let session = Session::for_test(Functions::default(), Vec::new());
        Coordinator::new(recorder, session, cfg, false)
    }

    /// Every profile file under `dir`, with its bytes.
    fn profiles(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut found = Vec::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    todo.push(p);
                } else if p.to_string_lossy().ends_with(".xplane.pb") {
                    let bytes = std::fs::read(&p).unwrap();
                    found.push((p, bytes));
                }
            }
        }
        found.sort();
        found
    }

    /// A detach writes its session's profile before the finalize that follows it runs, and
    /// the finalize then writes nothing over it: the two are commands served one at a time.
    #[test]
    fn a_finalize_after_a_detach_leaves_the_session_s_profile_alone() {
        let dir = tempfile::tempdir().unwrap();
        let mut co = coordinator(dir.path());
        co.handle(Command::Attach(Vec::new()));
        co.handle(Command::Detach);
        let written = profiles(dir.path());
        assert_eq!(
            written.len(),
            1,
            "the attach session's profile: {written:?}"
        );
        co.handle(Command::Finalize);
        assert!(co.finalized());
        assert_eq!(profiles(dir.path()), written, "finalize wrote over it");
        // Commands after finalize do nothing.
        co.handle(Command::Attach(Vec::new()));
        co.handle(Command::Detach);
        assert_eq!(profiles(dir.path()), written);
    }

    /// The first attach finds the sampling thread reading since initialize and leaves it
    /// reading: no read of its own, which would come a moment after the thread's last one (an
    /// interval of almost no time; on a clock that reads the same twice, two reads at one
    /// time). A reattach restarts the thread the detach stopped, with a read at once.
    #[test]
    fn an_attach_never_reads_twice_in_a_row() {
        use crate::sdk::device_counting::stand_in;
        use crate::sdk::functions::Context;
        let dir = tempfile::tempdir().unwrap();
        let (mut cfg, _) = Config::parse(|_| None, 0);
        cfg.output_dir = dir.path().to_path_buf();
        cfg.run_name = "run".into();
        // No read falls due on the interval: only the reads at starts and stops.
        cfg.pmc_interval_ms = Some(3_600_000);
        let cfg: &'static Config = Box::leak(Box::new(cfg));
        let recorder: &'static Recorder = Box::leak(Box::default());
        let (functions, dc) = stand_in::counting_once_started();
        let ctx = Context::from_raw(rocprofiler_sdk_sys::rocprofiler_context_id_t {
            handle: stand_in::STARTED_CTX,
        });
        let mut session = Session::for_test(functions, Vec::new()).with_contexts(vec![ctx]);
        session.device_counting = Some(dc);
        // As initialize does: the contexts start, then the coordinator and its thread, which
        // reads at once.
        session.start(false).unwrap();
        let mut co = Coordinator::new(recorder, session, cfg, false);
        co.handle(Command::Attach(vec![ctx]));
        co.handle(Command::Detach);
        assert_eq!(
            stand_in::counted_reads(),
            2,
            "the read at initialize and the one at the detach"
        );
        co.handle(Command::Attach(vec![ctx]));
        co.handle(Command::Detach);
        assert_eq!(
            stand_in::counted_reads(),
            4,
            "a reattach reads at once, its detach once more"
        );
        co.handle(Command::Finalize);
    }

    /// A process that ends while attached writes the session under way at finalize, once.
    #[test]
    fn a_finalize_while_attached_writes_that_session() {
        let dir = tempfile::tempdir().unwrap();
        let mut co = coordinator(dir.path());
        co.handle(Command::Attach(Vec::new()));
        co.handle(Command::Finalize);
        let written = profiles(dir.path());
        assert_eq!(written.len(), 1, "{written:?}");
        assert!(written[0].0.to_string_lossy().contains("/run/"));
        co.handle(Command::Detach);
        assert_eq!(
            profiles(dir.path()),
            written,
            "a detach after finalize writes nothing"
        );
    }
}
