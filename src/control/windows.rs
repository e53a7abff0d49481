//! Capture windows: while the program runs, what the tool holds is cut into complete profiles,
//! each written to its own run directory (`<run>_w0001`, `<run>_w0002`, …; the part after the
//! last cut is written at exit as the last window). A long job then never holds more than one
//! window, and a job killed mid-run keeps every window already written (each file is written
//! to a temporary name and renamed, so none is ever half there).
//!
//! Cuts happen on the coordinator's thread, never on an application thread: after a duration,
//! after a number of delivered records, when the user's chosen signal arrives, or after the
//! N-th closing of a named roctx range (the callbacks only raise a flag). The coordinator only
//! takes each window's records; the window writer's thread (`writer`) joins and writes the
//! windows one after another in the order they were cut, so a window is cut at its count
//! even while the one before it is still being written.
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
//! This module is the policy (when a cut is due, what each window's file is called); `cut` does
//! the cutting, and the window writer (`writer`, `window_files`) joins and writes the windows.

use std::time::{Duration, Instant};

use crate::config::Config;

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

/// The window rules of this run and their schedule (what was written is `WindowFiles`').
pub struct Windows {
    cfg: &'static Config,
    /// Whether window rules are on (a rule set, or the streaming default) and the coordinator
    /// ticks to apply them.
    active: bool,
    /// The bounded capture (`DURATION`) has ended and was written.
    ended: bool,
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
            ended: false,
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
