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
use std::time::{Duration, Instant, SystemTime};

use crate::config::Config;
use crate::model::events::Collected;
use crate::model::Trace;
use crate::output;
use crate::xplane::{OutputLayout, RunIds, WindowIdentity};
use crate::{log_error, log_info, log_warn};

/// Test-only (docs/reliability.md): window numbers whose write fails once each with ENOSPC, as a
/// full disk would make it fail (`2,2`: window 2's first two attempts); `*` makes every write
/// fail but the profile's last (the windows cut while the program runs, and their retries).
pub const TEST_FAIL_WRITES: &str = "ROCPROF_XPLANE_TEST_FAIL_WRITES";

/// Writes made to fail (`TEST_FAIL_WRITES`).
#[derive(Debug, Default)]
struct InjectedFailures {
    windows: Vec<u32>,
    all_but_last: bool,
}

impl InjectedFailures {
    fn from_env() -> Self {
        let Some(v) = std::env::var_os(TEST_FAIL_WRITES) else {
            return InjectedFailures::default();
        };
        let v = v.to_string_lossy();
        InjectedFailures {
            windows: v.split(',').filter_map(|n| n.trim().parse().ok()).collect(),
            all_but_last: v.split(',').any(|n| n.trim() == "*"),
        }
    }

    /// Whether this write of window `n` fails (`last`: the profile written at exit).
    fn take(&mut self, n: u32, last: bool) -> bool {
        if self.all_but_last && !last {
            return true;
        }
        match self.windows.iter().position(|&w| w == n) {
            Some(i) => {
                self.windows.remove(i);
                true
            }
            None => false,
        }
    }
}

/// A capture window that could not be written: the profile's warnings and counters and the
/// exit's stderr say which span it covered and how many records it held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostWindow {
    pub n: u32,
    /// Its span on the wall clock (Unix ns).
    pub start_wall_ns: u64,
    pub stop_wall_ns: u64,
    pub records: u64,
    pub why: String,
}

impl LostWindow {
    fn of(n: u32, trace: &Trace, why: String) -> LostWindow {
        let c = &trace.counters;
        LostWindow {
            n,
            start_wall_ns: trace.start_walltime_ns,
            stop_wall_ns: trace.stop_walltime_ns,
            records: c.api_records + c.kernel_records + c.memcpy_records + c.marker_records,
            why,
        }
    }

    /// What the profile and stderr say of it; `run_start_wall_ns`: where the run's first window
    /// began.
    pub fn describe(&self, run_start_wall_ns: u64) -> String {
        let s = |ns: u64| ns.saturating_sub(run_start_wall_ns) as f64 / 1e9;
        format!(
            "capture window {} ({:.3} s to {:.3} s of the run, {} records) could not be written ({}): its events are not in this profile",
            self.n,
            s(self.start_wall_ns),
            s(self.stop_wall_ns),
            self.records,
            self.why
        )
    }
}

/// A window whose write failed, held to be written again at the next cut or at exit (one at a
/// time: a second failure while one is held loses the older).
struct Held {
    n: u32,
    run: String,
    trace: Trace,
}

/// The host part of this process's own profile (`<run>/<host>.xplane.pb`), chosen at its first
/// write. A file name without `%pid%` (`ROCPROF_XPLANE_OUTPUT_FILE`) may be another process's
/// too: the name is then held with a lock for the life of the process, and a name another
/// process holds, or wrote since this one began, gives way to `<host>_<pid>` with a line
/// saying so. The lock file is removed at exit.
struct HostClaim {
    host: String,
    lock: Option<(std::fs::File, PathBuf)>,
}

/// How often the coordinator looks at the window rules while windows or a schedule are on.
pub const TICK: Duration = Duration::from_millis(10);
/// For count windows, buffers are flushed every this many ticks (100 ms): records reach the
/// tool only when a buffer passes its watermark or is flushed, and the count must follow the
/// program.
const EVENT_FLUSH_TICKS: u64 = 10;
/// Within this share of its count (`1 / N`), a count window's buffers are flushed at every
/// tick: the cut then starts within a tick of the count, not within 100 ms of deliveries and
/// the buffers' contents on top of it (at 0.8 M records a second, 8 % of a 1 M window).
const EVENT_FLUSH_NEAR: u64 = 10;

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
    /// Windows numbered so far, written or not: a number is never given twice.
    written: u32,
    /// Windows whose files are in place: a run none of whose windows was written has nothing
    /// to merge its last window with.
    written_ok: u32,
    /// A window whose write failed, to be written again.
    held: Option<Held>,
    /// Windows that could not be written, and how many of them a written profile already says.
    lost: Vec<LostWindow>,
    lost_said: usize,
    /// Where the run's first window began (wall clock, Unix ns).
    run_start_wall_ns: Option<u64>,
    /// When this process's windows began (a file of the run's own name written since is
    /// another process's).
    began: SystemTime,
    claim: Option<HostClaim>,
    injected: InjectedFailures,
    /// The bounded capture (`DURATION`) has ended and was written.
    ended: bool,
    /// The files of this process's windows, for `WINDOW_MERGE` at exit.
    files: Vec<PathBuf>,
    /// Those indexed for the merge as they were written (`xplane::merge::Indexed`): the merge
    /// at exit reads none of their events again.
    indexed: Vec<crate::xplane::merge::Indexed>,
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
            written_ok: 0,
            held: None,
            lost: Vec::new(),
            lost_said: 0,
            run_start_wall_ns: None,
            began: SystemTime::now(),
            claim: None,
            injected: InjectedFailures::from_env(),
            ended: false,
            files: Vec::new(),
            indexed: Vec::new(),
            run_ids: RunIds::of(WindowIdentity {
                pid: std::process::id(),
                run: SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64),
            }),
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

    /// What is due at this tick; `delivered`: the records the current window holds for its
    /// count rule so far.
    pub fn tick(&mut self, delivered: u64) -> Step {
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
                flush: rule.events.is_some_and(|n| {
                    self.ticks % EVENT_FLUSH_TICKS == 0 || delivered >= n - n / EVENT_FLUSH_NEAR
                }),
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

    /// What is said if the process ends before the windows are merged (a second terminating
    /// signal, `ROCPROF_XPLANE_TERM_TIMEOUT`): where they are kept and the command that merges
    /// them; empty when no window is to be merged.
    pub fn kept_note(&self) -> String {
        let (Some(first), Some(last)) = (self.files.first(), self.files.last()) else {
            return String::new();
        };
        if self.run_ids().is_none() {
            return String::new();
        }
        let dir_of = |f: &PathBuf| {
            f.parent()
                .map_or_else(String::new, |d| d.display().to_string())
        };
        format!(
            "the capture windows are kept unmerged ({} to {}, and the last if it was written); `rocprof-xplane merge {} {}` makes them one profile",
            dir_of(first),
            dir_of(last),
            self.cfg.output_dir.display(),
            self.cfg.run_name
        )
    }

    /// The host part the merge at exit writes the run's profile under.
    fn own_host(&self) -> Option<String> {
        self.claim.as_ref().map(|c| c.host.clone())
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

    /// Window `n` was written to `path` while the program runs: it is indexed for the merge
    /// at exit now, off the exit's path.
    pub fn wrote_window(&mut self, n: u32, window: &crate::xplane::WrittenWindow) {
        self.written = self.written.max(n);
        self.note_written(&window.path);
        self.index_for_merge(window);
    }

    /// Indexes `window` from where its writer placed its events: its events are not read.
    fn index_for_merge(&mut self, window: &crate::xplane::WrittenWindow) {
        if self.run_ids().is_none() {
            return;
        }
        let t0 = Instant::now();
        match crate::xplane::merge::Indexed::written(window) {
            Ok(i) => {
                crate::log_debug!(
                    "window indexed for the merge in {:.1} ms",
                    t0.elapsed().as_secs_f64() * 1e3
                );
                self.indexed.push(i);
            }
            // Indexed again at exit.
            Err(e) => crate::log_debug!("{e}; indexed at exit instead"),
        }
    }

    /// Window `n` (`trace`, in run directory `run`) could not be written (`why`): its number is
    /// spent, and it is held to be written again at the next cut or at exit.
    pub fn failed(&mut self, n: u32, run: String, trace: Trace, why: String) {
        self.written = self.written.max(n);
        log_error!(
            "cannot write capture window {n}: {why}; it is tried again at the next cut and at exit"
        );
        if let Some(older) = self.held.replace(Held { n, run, trace }) {
            self.lose(older.n, &older.trace, "a later window failed too".into());
        }
    }

    /// Writes the held window again (before the next window, and at exit): in place, it is
    /// merged as any other; failing again, it is lost, and said.
    pub fn retry_held(&mut self) {
        let Some(h) = self.held.take() else {
            return;
        };
        match self.write(&h.trace, &h.run, h.n, false, true) {
            Ok(window) => {
                log_info!(
                    "capture window {} written on a second attempt to {}",
                    h.n,
                    window.path.display()
                );
                self.note_written(&window.path);
                self.index_for_merge(&window);
            }
            Err(why) => self.lose(h.n, &h.trace, why),
        }
    }

    fn lose(&mut self, n: u32, trace: &Trace, why: String) {
        let lost = LostWindow::of(n, trace, why);
        log_error!("{}", lost.describe(self.run_start()));
        self.lost.push(lost);
    }

    fn run_start(&self) -> u64 {
        self.run_start_wall_ns.unwrap_or(0)
    }

    /// The profile written at exit (the last window) could not be written either.
    pub fn lose_last(&mut self, n: u32, trace: &Trace, why: String) {
        self.lose(n, trace, why);
    }

    /// Puts the windows lost so far into `trace` (the profile written at exit, the last
    /// window): one warning each, and their count and records in its counters. The merge sums
    /// counters over windows, so only this one profile carries them.
    pub fn say_losses_in(&mut self, trace: &mut Trace) {
        let start = self.run_start().min(trace.start_walltime_ns);
        for lost in &self.lost[self.lost_said..] {
            trace.warnings.push(lost.describe(start));
            trace.counters.windows_lost += 1;
            trace.counters.window_records_lost += lost.records;
        }
        self.lost_said = self.lost.len();
    }

    /// The losses no written profile says yet (the last window's write failed too).
    fn unsaid_losses(&self) -> Vec<String> {
        let start = self.run_start();
        self.lost[self.lost_said..]
            .iter()
            .map(|l| l.describe(start))
            .collect()
    }

    /// At exit, on stderr: every window the profile lacks (unless logging is off).
    pub fn say_losses_at_exit(&self) {
        if self.cfg.log == crate::config::LogLevel::Off {
            return;
        }
        let start = self.run_start();
        for lost in &self.lost {
            crate::log::stderr_line(format_args!(
                "rocprof-xplane: the profile is partial: {}",
                lost.describe(start)
            ));
        }
    }

    /// Writes `trace` as window `n` in run directory `run` (`last`: the profile written at
    /// exit; `merged`: on the run's names and clock, as a window to be merged), under this
    /// process's name for it (`layout`).
    pub fn write(
        &mut self,
        trace: &Trace,
        run: &str,
        n: u32,
        last: bool,
        merged: bool,
    ) -> Result<crate::xplane::WrittenWindow, String> {
        let start = trace.start_walltime_ns;
        self.run_start_wall_ns = Some(self.run_start_wall_ns.map_or(start, |s| s.min(start)));
        let layout = self.layout(trace, run);
        if self.injected.take(n, last) {
            return Err(format!(
                "cannot write {}: {} ({TEST_FAIL_WRITES})",
                layout.file_path().display(),
                std::io::Error::from_raw_os_error(libc::ENOSPC)
            ));
        }
        let ids = if merged { self.run_ids() } else { None };
        output::write_window_at(trace, self.cfg, &layout, ids)
    }

    /// Where `trace` goes in run directory `run`: the run's own profile under this process's
    /// claimed name ([`HostClaim`]); a window (or attach session) under the name the user chose,
    /// with the pid added when that name lacks it, so two processes' windows never meet.
    fn layout(&mut self, trace: &Trace, run: &str) -> OutputLayout {
        let base = output::layout_for(trace, self.cfg);
        // The run's own name is taken at the first window of a run to be merged (held while
        // it runs), else when the profile is written.
        let own = (run == self.cfg.run_name || self.run_ids().is_some()).then(|| self.claim(&base));
        let host = if let Some(own) = own.filter(|_| run == self.cfg.run_name) {
            own
        } else if output::name_lacks_pid(self.cfg) {
            format!("{}.{}", base.host, trace.pid)
        } else {
            base.host.clone()
        };
        OutputLayout {
            run_name: run.to_string(),
            host,
            ..base
        }
    }

    /// This process's name for its own profile ([`HostClaim`]).
    fn claim(&mut self, base: &OutputLayout) -> String {
        if let Some(c) = &self.claim {
            return c.host.clone();
        }
        let claim = if output::name_lacks_pid(self.cfg) {
            claim_exclusive(base, self.began)
        } else {
            HostClaim {
                host: base.host.clone(),
                lock: None,
            }
        };
        let host = claim.host.clone();
        self.claim = Some(claim);
        host
    }

    /// At exit, after the last write: the claim's lock file goes.
    pub fn release_claim(&mut self) {
        if let Some(HostClaim {
            lock: Some((file, path)),
            ..
        }) = self.claim.take()
        {
            let _ = std::fs::remove_file(&path);
            drop(file);
        }
    }

    /// The run directory of the profile written at exit (the last window when windows are on),
    /// its window number, and whether it shares names and clock with the windows before it.
    pub fn final_output(&self, attached_run: Option<String>) -> (String, u32, bool) {
        let n = self.written + 1;
        if let Some(run) = attached_run {
            return (run, n, false);
        }
        if self.active && !self.merge_without_cut() {
            (run_name_of(self.cfg, n), n, self.run_ids().is_some())
        } else {
            (self.cfg.run_name.clone(), n, false)
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
        // A window lost and said in no profile yet: the last window is written, empty or not,
        // to say it.
        self.active
            && !c.has_records()
            && !self.merge_without_cut()
            && self.lost_said == self.lost.len()
    }

    /// Notes a window file this process wrote (the one finalize writes included).
    pub fn note_written(&mut self, path: &std::path::Path) {
        if self.active {
            self.written_ok += 1;
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
        if files.is_empty() {
            return;
        }
        let Some(host) = self.own_host() else {
            return;
        };
        let layout = crate::xplane::OutputLayout {
            log_dir: cfg.output_dir.clone(),
            run_name: cfg.run_name.clone(),
            host,
        };
        let t0 = Instant::now();
        let unsaid = self.unsaid_losses();
        let indexed = std::mem::take(&mut self.indexed);
        let rest: Vec<PathBuf> = files
            .iter()
            .filter(|f| !indexed.iter().any(|i| i.path() == f.as_path()))
            .cloned()
            .collect();
        match crate::xplane::merge::merge_own_indexed(indexed, &rest, &layout, &unsaid) {
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
                        "rocprof-xplane: merged {} windows into {} ({} events on {} lines, {:.0} ms; {} copied as they were written, {} of them as byte ranges)",
                        m.inputs,
                        path.display(),
                        m.events,
                        m.lines,
                        t0.elapsed().as_secs_f64() * 1e3,
                        m.copied,
                        m.spliced
                    ));
                }
            }
            Err(e) => {
                log_error!("cannot merge the capture windows ({e}); each is kept as written")
            }
        }
    }
}

/// Takes the run's own file name for this process ([`HostClaim`]): a lock beside it
/// (`.<host>.xplane.pb.lock`), held until exit. Where the lock cannot be made (a read-only
/// directory: the write will say why), the name as before.
fn claim_exclusive(base: &OutputLayout, began: SystemTime) -> HostClaim {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = base.run_dir();
    let path = dir.join(format!(".{}.xplane.pb.lock", base.file_host()));
    let opened = std::fs::create_dir_all(&dir).and_then(|()| {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
    });
    let file = match opened {
        Ok(f) => f,
        Err(e) => {
            crate::log_debug!("cannot lock {}: {e}", path.display());
            return HostClaim {
                host: base.host.clone(),
                lock: None,
            };
        }
    };
    let locked = crate::sdk::os::try_lock_exclusive(&file);
    let written_since = std::fs::metadata(base.file_path())
        .and_then(|m| m.modified())
        .is_ok_and(|t| t >= began);
    if locked && !written_since {
        return HostClaim {
            host: base.host.clone(),
            lock: Some((file, path)),
        };
    }
    let host = format!("{}_{}", base.host, std::process::id());
    log_warn!(
        "{} is another process's: it {} (ROCPROF_XPLANE_OUTPUT_FILE has no %pid%); this process writes {}{} instead",
        base.file_path().display(),
        if locked { "was written since this process began" } else { "is being written by a process still running" },
        host,
        ".xplane.pb"
    );
    HostClaim { host, lock: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WindowRule;

    /// Windows of `events` records on a coordinator that ticks, the capture started.
    fn windows_of(events: u64) -> Windows {
        let (mut cfg, _) = Config::parse(|_| None, 0);
        cfg.window = Some(WindowRule {
            period_ms: None,
            events: Some(events),
            signal: None,
            range_every: None,
            merge: true,
            by_default: false,
        });
        cfg.start_delay_ms = None;
        cfg.duration_ms = None;
        Windows::new(Box::leak(Box::new(cfg)), true)
    }

    /// Which of `ticks` ticks flush the buffers while the window holds `delivered` records.
    fn flushing_ticks(w: &mut Windows, ticks: u64, delivered: u64) -> u64 {
        (0..ticks)
            .filter(|_| matches!(w.tick(delivered), Step::Rules { flush: true }))
            .count() as u64
    }

    /// A count window's buffers are flushed every 100 ms while it fills, and at every tick
    /// once it is near its count: the records still in the runtime's buffers, and those of a
    /// 100 ms wait, would otherwise all land in the window past its count.
    #[test]
    fn a_count_window_near_its_count_is_flushed_at_every_tick() {
        let mut w = windows_of(1_000_000);
        assert!(w.active());
        assert_eq!(flushing_ticks(&mut w, 100, 0), 10);
        assert_eq!(flushing_ticks(&mut w, 100, 899_999), 10);
        assert_eq!(flushing_ticks(&mut w, 100, 900_000), 100);
        assert_eq!(flushing_ticks(&mut w, 100, 1_000_000), 100);
        // A window of a few records is flushed every 100 ms until it is full.
        let mut w = windows_of(5);
        assert_eq!(flushing_ticks(&mut w, 100, 4), 10);
        assert_eq!(flushing_ticks(&mut w, 100, 5), 100);
    }
}
