//! Capture windows: while the program runs, what the tool holds is cut into complete profiles,
//! each written to its own run directory (`<run>_w0001`, `<run>_w0002`, …; the part after the
//! last cut is written at exit as the last window). A long job then never holds more than one
//! window, and a job killed mid-run keeps every window already written (each file is written
//! to a temporary name and renamed, so none is ever half there).
//!
//! Cuts happen on the coordinator's thread, never on an application thread: after a duration,
//! after a number of delivered records, when the user's chosen signal arrives, or after the
//! N-th closing of a named roctx range (the callbacks only raise a flag).
//!
//! What a boundary costs: a call whose pieces straddle the cut — a launch whose kernel
//! completes after it, a call that returns after it — is handed on whole to the next window
//! (`model::carry`) and joined there with its kernels, roctx labels and stream; a job killed
//! (SIGKILL) before that window loses those calls. A wait on an event recorded in an earlier
//! window resolves to that record (the records a later wait may need are handed on) and draws
//! no arrow, unless the windows are merged at exit (`WINDOW_MERGE`: then the record's window
//! says where the arrow starts); a roctx range open at a cut is shown up to the cut and again,
//! whole, in the window where it ends.
//!
//! With no window rule set (and no bounded capture or profiler service) this is also how every
//! run is collected: windows of `config::DEFAULT_MERGE_WINDOW_EVENTS` records, merged at exit
//! (`WindowRule::by_default`), so the tool holds one window however long the run; a run that
//! never fills one is written at exit as one profile, with nothing to merge.
//!
//! This module is the policy and the bookkeeping (when a cut is due, what each window's file is
//! called, which files the merge takes); `cut` does the cutting.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::log_error;
use crate::model::events::Collected;
use crate::xplane::RunIds;

/// How often the coordinator looks at the window rules while windows or a schedule are on.
pub const TICK: Duration = Duration::from_millis(10);
/// For count windows, buffers are flushed every this many ticks (100 ms): records reach the
/// tool only when a buffer passes its watermark or is flushed, and the count must follow the
/// program.
const EVENT_FLUSH_TICKS: u64 = 10;

/// The run directory of window `n` (1-based).
pub fn run_name_of(cfg: &Config, n: u32) -> String {
    format!("{}_w{n:04}", cfg.run_name)
}

/// Whether this run's windows are the streaming pipeline's working files (no window rule was
/// set, `WindowRule::by_default`): the user hears of the profile they become at exit, not of
/// each.
pub fn working_files(cfg: &Config) -> bool {
    cfg.window.is_some_and(|r| r.by_default)
}

/// What the window timer found at one tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Nothing to do.
    Nothing,
    /// The start delay has passed: drop what the callbacks kept and start recording.
    Start,
    /// The bounded capture's duration has passed: stop recording and write its profile.
    EndBounded,
    /// Apply the window rules ([`Windows::cut_due`]), after flushing the buffers when `flush`
    /// (so that the delivered-record count follows the program).
    Rules { flush: bool },
}

/// The windows of this run: their rules and schedule, and what was written.
pub struct Windows {
    cfg: &'static Config,
    /// Whether window rules are on (a rule set, or the streaming default) and the coordinator
    /// ticks to apply them.
    active: bool,
    /// Windows written so far.
    written: u32,
    /// The bounded capture (`DURATION`) has ended and was written.
    ended: bool,
    /// The files of this process's windows, for `WINDOW_MERGE` at exit.
    files: Vec<PathBuf>,
    /// With `WINDOW_MERGE`: the names and clock the windows share, so the merge copies their
    /// events as they are.
    run_ids: RunIds,
    /// When the coordinator began ticking.
    t_init: Instant,
    /// When recording began (`None` during a start delay).
    capture_start: Option<Instant>,
    /// When the current window began.
    started: Instant,
    ticks: u64,
    /// The user's window signal arrived since the last cut.
    signal_pending: bool,
}

impl Windows {
    /// The windows `cfg` asks for; `ticking` says whether the coordinator has a thread to tick
    /// on (without one, rules cannot fire and the run is one profile at exit).
    pub fn new(cfg: &'static Config, ticking: bool) -> Windows {
        let now = Instant::now();
        Windows {
            cfg,
            active: ticking && cfg.window.is_some(),
            written: 0,
            ended: false,
            files: Vec::new(),
            run_ids: RunIds::new(),
            t_init: now,
            capture_start: cfg.start_delay_ms.is_none().then_some(now),
            started: now,
            ticks: 0,
            signal_pending: false,
        }
    }

    /// Whether `cfg` asks for the window timer: window rules, or a delayed or bounded capture
    /// (`ROCPROF_XPLANE_START_DELAY`, `ROCPROF_XPLANE_DURATION`).
    pub fn wanted(cfg: &Config) -> bool {
        cfg.window.is_some() || cfg.start_delay_ms.is_some() || cfg.duration_ms.is_some()
    }

    /// Whether window rules are on in this process.
    pub fn active(&self) -> bool {
        self.active
    }

    /// Whether the bounded capture has ended (and was written).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Whether recording waits for the start delay.
    pub fn delayed(&self) -> bool {
        self.capture_start.is_none()
    }

    /// The user's window signal arrived: the next tick cuts.
    pub fn request_cut(&mut self) {
        self.signal_pending = true;
    }

    /// What is due at this tick.
    pub fn tick(&mut self) -> Step {
        self.ticks += 1;
        let cfg = self.cfg;
        let Some(t0) = self.capture_start else {
            let delay = cfg.start_delay_ms.map(Duration::from_millis);
            return if delay.is_some_and(|d| self.t_init.elapsed() >= d) {
                Step::Start
            } else {
                Step::Nothing
            };
        };
        if self.ended {
            return Step::Nothing;
        }
        if cfg
            .duration_ms
            .is_some_and(|d| t0.elapsed() >= Duration::from_millis(d))
        {
            return Step::EndBounded;
        }
        match cfg.window.filter(|_| self.active) {
            Some(rule) => Step::Rules {
                flush: rule.events.is_some() && self.ticks % EVENT_FLUSH_TICKS == 0,
            },
            None => Step::Nothing,
        }
    }

    /// Whether a window rule fires now (a new window then begins). `delivered` is the records
    /// delivered since the last cut, `range_end` whether the named range's N-th closing asked
    /// for a cut, `attach_used` whether the tool was ever attached (the streaming default's
    /// windows do not cut an attach session: each is one profile of its own).
    pub fn cut_due(&mut self, delivered: u64, range_end: bool, attach_used: bool) -> bool {
        let Some(rule) = self.cfg.window else {
            return false;
        };
        let by_time = rule
            .period_ms
            .is_some_and(|t| self.started.elapsed() >= Duration::from_millis(t));
        let by_count =
            rule.events.is_some_and(|n| delivered >= n) && !(rule.by_default && attach_used);
        let by_signal = std::mem::take(&mut self.signal_pending) || range_end;
        let due = by_time || by_count || by_signal;
        if due {
            self.started = Instant::now();
        }
        due
    }

    /// Recording started after the delay.
    pub fn started_capture(&mut self) {
        let now = Instant::now();
        self.capture_start = Some(now);
        self.started = now;
    }

    /// The bounded capture ended and was written.
    pub fn end_bounded(&mut self) {
        self.ended = true;
    }

    /// Whether windows to be merged at exit were never cut (a run shorter than one window):
    /// its one profile is then written at exit as a run without windows writes it, with
    /// nothing to merge.
    fn merge_without_cut(&self) -> bool {
        self.cfg.window.is_some_and(|r| r.merge) && self.written == 0
    }

    /// What the windows of this run share when they are to be merged at exit (`WINDOW_MERGE`);
    /// `None` without windows or without the merge.
    pub fn run_ids(&self) -> Option<&RunIds> {
        (self.active && self.cfg.window.is_some_and(|r| r.merge)).then_some(&self.run_ids)
    }

    /// The run directory of the next window and its number: numbered while windows are on,
    /// else the run's own (a delayed or bounded capture without window rules).
    pub fn next_window(&self) -> (String, u32) {
        let n = self.written + 1;
        if self.active {
            (run_name_of(self.cfg, n), n)
        } else {
            (self.cfg.run_name.clone(), n)
        }
    }

    /// Window `n` was written to `path`.
    pub fn wrote_window(&mut self, n: u32, path: &std::path::Path) {
        self.written = n;
        self.note_written(path);
    }

    /// The run directory of the profile written at exit (the last window when windows are on),
    /// and whether it shares names and clock with the windows before it.
    pub fn final_output(&self, attached_run: Option<String>) -> (String, Option<&RunIds>) {
        if let Some(run) = attached_run {
            return (run, None);
        }
        if self.active && !self.merge_without_cut() {
            (run_name_of(self.cfg, self.written + 1), self.run_ids())
        } else {
            (self.cfg.run_name.clone(), None)
        }
    }

    /// Whether finalize should write nothing: the bounded capture (`DURATION`) already ended
    /// and was written (records still in flight at its end are not a profile of their own),
    /// or windows are on and no record came after the last one (roctx spans alone, which the
    /// callbacks keep to follow the stacks, do not make a profile), or the profiler service is
    /// on (its clients get the profiles they ask for; nothing is written at exit). Attached,
    /// each detach wrote its session under the name a final file would take: only a session
    /// still attached at exit (`attach`: `Some(attached)`) is written now.
    pub fn skip_final(&self, c: &Collected, attach: Option<bool>) -> bool {
        if self.ended || self.cfg.server.is_some() {
            return true;
        }
        if let Some(attached) = attach {
            return !attached;
        }
        self.active && !c.has_records() && !self.merge_without_cut()
    }

    /// Notes a window file this process wrote (the one finalize writes included).
    pub fn note_written(&mut self, path: &std::path::Path) {
        if self.active {
            self.files.push(path.to_path_buf());
        }
    }

    /// With `WINDOW_MERGE`, at exit: the windows this process wrote become one profile in the
    /// run's own directory (`xplane::merge`, one line at a time), and are removed. If the merge
    /// fails they are kept, and the error says why; a job killed before exit keeps its
    /// windows, which `rocprof-xplane merge` makes one profile later. Attach sessions are each
    /// written under a name of their own, never merged (`attach_used`).
    pub fn merge_at_exit(&mut self, attach_used: bool) {
        let cfg = self.cfg;
        if self.run_ids().is_none() || self.merge_without_cut() || attach_used {
            return;
        }
        let files = std::mem::take(&mut self.files);
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
            Err(e) => {
                log_error!("cannot merge the capture windows ({e}); each is kept as written")
            }
        }
    }
}
