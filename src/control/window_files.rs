//! What a run's windows wrote: each window's file under its own run directory, the name this
//! process holds for its own profile, the windows whose write failed (held to be written again,
//! or lost and said), and the merge of the windows into one profile at exit. Owned by the
//! window writer (`writer`), which joins and writes the windows in the order they were cut.

use std::path::PathBuf;
use std::time::{Instant, SystemTime};

use super::windows::run_name_of;
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

/// The files of this run's windows: their numbers, the written and the lost, and the merge.
pub struct WindowFiles {
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
    /// The files of this process's windows, for `WINDOW_MERGE` at exit.
    files: Vec<PathBuf>,
    /// Those indexed for the merge as they were written (`xplane::merge::Indexed`): the merge
    /// at exit reads none of their events again.
    indexed: Vec<crate::xplane::merge::Indexed>,
    /// With `WINDOW_MERGE`: the names and clock the windows share, so the merge copies their
    /// events as they are.
    run_ids: RunIds,
    /// The run's profile assembled in place as windows are written (`xplane::merge::Assembly`).
    in_place: InPlace,
    /// The last window, as written, for the merge at exit.
    last_written: Option<crate::xplane::WrittenWindow>,
}

/// Test-only (docs/reliability.md): `1` makes the run's directory as one whose filesystem
/// cannot insert ranges (`fallocate` INSERT_RANGE): the windows are merged at exit.
pub const TEST_NO_INSERT_RANGE: &str = "ROCPROF_XPLANE_TEST_NO_INSERT_RANGE";

/// Where the run's profile assembled in place stands. The windows' files are kept until the
/// profile has its name (as when they are merged at exit): a process killed before exit leaves
/// them for `rocprof-xplane merge`, and a profile that could not be kept whole loses nothing.
enum InPlace {
    /// No window was written yet.
    NotYet,
    /// Each window written is put into it.
    On(crate::xplane::merge::Assembly),
    /// Windows are merged at exit, with this profile of the windows before them if one was
    /// assembled (`None`: the filesystem cannot insert ranges, or no merge at exit).
    Off(Option<Assembled>),
}

/// A profile assembled in place no further: where it is (open at `path` while `_file` is
/// held), and the windows it holds.
struct Assembled {
    path: PathBuf,
    _file: std::sync::Arc<std::fs::File>,
    held: Vec<PathBuf>,
}

impl WindowFiles {
    /// The files of `cfg`'s windows; `active`: whether window rules are on in this process
    /// (`Windows::active`).
    pub fn new(cfg: &'static Config, active: bool) -> WindowFiles {
        WindowFiles {
            cfg,
            active,
            written: 0,
            written_ok: 0,
            held: None,
            lost: Vec::new(),
            lost_said: 0,
            run_start_wall_ns: None,
            began: SystemTime::now(),
            claim: None,
            injected: InjectedFailures::from_env(),
            files: Vec::new(),
            indexed: Vec::new(),
            run_ids: RunIds::of(WindowIdentity {
                pid: std::process::id(),
                run: SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64),
            }),
            in_place: InPlace::NotYet,
            last_written: None,
        }
    }

    /// Whether window rules are on in this process.
    pub fn active(&self) -> bool {
        self.active
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

    /// Indexes `window` from where its writer placed its events (its events are not read),
    /// and puts it into the run's profile assembled in place where that goes on.
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
                if let Some(mut not_put) = self.put_in_place(window, i) {
                    not_put.thin_for_exit();
                    self.indexed.push(not_put);
                }
            }
            // Indexed again at exit.
            Err(e) => {
                crate::log_debug!("{e}; indexed at exit instead");
                self.stop_in_place(&format!("{e}"), true);
            }
        }
    }

    /// The layout of the run's own profile, which the windows are merged into.
    fn merged_layout(&self) -> Option<OutputLayout> {
        Some(OutputLayout {
            log_dir: self.cfg.output_dir.clone(),
            run_name: self.cfg.run_name.clone(),
            host: self.own_host()?,
            durable: self.cfg.fsync,
        })
    }

    /// Puts window `w` into the profile assembled in place (begun at the first window);
    /// gives it back where it is to be merged at exit instead.
    fn put_in_place(
        &mut self,
        window: &crate::xplane::WrittenWindow,
        w: crate::xplane::merge::Indexed,
    ) -> Option<crate::xplane::merge::Indexed> {
        if let InPlace::NotYet = self.in_place {
            self.in_place = InPlace::Off(None);
            let no_insert = std::env::var_os(TEST_NO_INSERT_RANGE).is_some_and(|v| v == "1");
            match self.merged_layout().filter(|_| !no_insert) {
                Some(layout) => match crate::xplane::merge::Assembly::start(&layout) {
                    Ok(Some(a)) => self.in_place = InPlace::On(a),
                    Ok(None) => crate::log_debug!(
                        "{}: the filesystem cannot insert ranges (fallocate INSERT_RANGE); the windows are merged at exit",
                        layout.run_dir().display()
                    ),
                    Err(e) => crate::log_debug!(
                        "cannot begin the run's profile in place ({e}); the windows are merged at exit"
                    ),
                },
                None => crate::log_debug!("the windows are merged at exit"),
            }
        }
        let InPlace::On(a) = &mut self.in_place else {
            return Some(w);
        };
        let t0 = Instant::now();
        let path = w.path().to_path_buf();
        match a.add(w) {
            Ok(()) => {
                crate::log_debug!(
                    "window put into the run's profile in place in {:.1} ms ({})",
                    t0.elapsed().as_secs_f64() * 1e3,
                    a.last_step()
                );
                None
            }
            Err(e) => {
                let sound = !matches!(e, crate::xplane::merge::NotAdded::Broken { .. });
                self.stop_in_place(&format!("{}: {e}", path.display()), sound);
                // Indexed again (the index was handed over); else at exit.
                crate::xplane::merge::Indexed::written(window).ok()
            }
        }
    }

    /// The profile assembled in place takes no further window: those written from now on are
    /// merged with it at exit (`sound`), or, if it could not be kept whole, every window is
    /// merged at exit from its file. Said once.
    fn stop_in_place(&mut self, why: &str, sound: bool) {
        let InPlace::On(a) = std::mem::replace(&mut self.in_place, InPlace::Off(None)) else {
            return;
        };
        let path = a.path();
        if sound {
            log_info!(
                "the run's profile is no longer assembled in place ({why}); the windows from here on are merged with it at exit"
            );
            let held = a.window_paths().map(|p| p.to_path_buf()).collect();
            let _file = a.file();
            self.in_place = InPlace::Off(Some(Assembled { path, _file, held }));
        } else {
            log_warn!(
                "the run's profile assembled in place could not be kept whole ({why}); every capture window is merged at exit from its file instead"
            );
            remove_assembled(&path);
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
        let host = crate::xplane::HostEvents::of(&h.trace);
        match self.write(&h.trace, host, &h.run, h.n, false, true) {
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
    /// process's name for it (`layout`), its host threads' events read from `host`
    /// (`xplane::HostEvents`).
    pub fn write(
        &mut self,
        trace: &Trace,
        host: crate::xplane::HostEvents<'_>,
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
        output::write_window_at(trace, host, self.cfg, &layout, ids)
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
    /// still attached at exit (`attach`: `Some(attached)`) is written now. `ended`: the bounded
    /// capture has ended.
    pub fn skip_final(&self, c: &Collected, attach: Option<bool>, ended: bool) -> bool {
        if ended || self.cfg.server.is_some() {
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

    /// Notes the last window, as written (finalize), for the merge at exit.
    pub fn note_last_written(&mut self, window: crate::xplane::WrittenWindow) {
        self.note_written(&window.path);
        self.last_written = Some(window);
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
            // Not merged: the windows stay as written, the profile assembled from them goes.
            self.drop_in_place();
            return;
        }
        let files = std::mem::take(&mut self.files);
        if files.is_empty() {
            return;
        }
        let Some(host) = self.own_host() else {
            return;
        };
        let in_place = std::mem::replace(&mut self.in_place, InPlace::Off(None));
        let layout = crate::xplane::OutputLayout {
            log_dir: cfg.output_dir.clone(),
            run_name: cfg.run_name.clone(),
            host,
            durable: cfg.fsync,
        };
        let t0 = Instant::now();
        let unsaid = self.unsaid_losses();
        // The profile assembled in place, with the windows it holds.
        let assembled = match in_place {
            InPlace::On(a) => match self.finish_in_place(a, &files, &layout, &unsaid) {
                Ok((path, m)) => {
                    self.merged(&files, &path, &m, t0, ", in place as they were written");
                    return;
                }
                Err(u) => Some(Assembled {
                    path: u.path,
                    _file: u.file,
                    held: u.held,
                }),
            },
            InPlace::Off(a) => a,
            InPlace::NotYet => None,
        };
        let indexed = std::mem::take(&mut self.indexed);
        let held = assembled.as_ref().map_or(&[][..], |a| &a.held[..]);
        let mut rest: Vec<PathBuf> = assembled.iter().map(|a| a.path.clone()).collect();
        rest.extend(
            files
                .iter()
                .filter(|f| !held.contains(f))
                .filter(|f| !indexed.iter().any(|i| i.path() == f.as_path()))
                .cloned(),
        );
        match crate::xplane::merge::merge_own_indexed(indexed, &rest, &layout, &unsaid) {
            Ok((path, m)) => {
                // The profile assembled in place goes with its descriptor (or its name).
                if let Some(a) = assembled {
                    remove_assembled(&a.path);
                }
                self.merged(&files, &path, &m, t0, "");
            }
            Err(e) => {
                log_error!("cannot merge the capture windows ({e}); each is kept as written")
            }
        }
    }

    /// The profile assembled in place, not to be used: removed (the windows are kept).
    fn drop_in_place(&mut self) {
        match std::mem::replace(&mut self.in_place, InPlace::Off(None)) {
            InPlace::On(a) => remove_assembled(&a.path()),
            InPlace::Off(Some(a)) => remove_assembled(&a.path),
            _ => {}
        }
    }

    /// Puts what is left (the last window, a window written again at exit) into the profile
    /// assembled in place and gives it the run's name; on `Err`, the profile's path, to be
    /// merged with `files` as before.
    fn finish_in_place(
        &mut self,
        mut a: crate::xplane::merge::Assembly,
        files: &[PathBuf],
        layout: &OutputLayout,
        unsaid: &[String],
    ) -> Result<(PathBuf, crate::xplane::merge::Merged), Box<crate::xplane::merge::Unfinished>>
    {
        let t0 = Instant::now();
        let held: Vec<PathBuf> = a.window_paths().map(|p| p.to_path_buf()).collect();
        let mut left: Vec<&PathBuf> = files.iter().filter(|f| !held.contains(f)).collect();
        let last = left.pop();
        for f in left {
            let put = crate::xplane::merge::Indexed::own(f)
                .map_err(|e| e.to_string())
                .and_then(|w| a.add(w).map_err(|e| e.to_string()));
            if let Err(e) = put {
                log_info!("the run's profile is merged at exit: {e}");
                return Err(a.unfinished(crate::xplane::merge::NotAdded::Refused(e)));
            }
        }
        let last = match last {
            Some(f) => {
                let placed = self.last_written.take().filter(|w| &w.path == f);
                let indexed = match placed {
                    Some(w) => crate::xplane::merge::Indexed::written(&w),
                    None => crate::xplane::merge::Indexed::own(f),
                };
                match indexed {
                    Ok(i) => Some(i),
                    Err(e) => {
                        log_info!("the run's profile is merged at exit: {e}");
                        let why = crate::xplane::merge::NotAdded::Refused(e.to_string());
                        return Err(a.unfinished(why));
                    }
                }
            }
            None => None,
        };
        match a.finish(last, unsaid, layout) {
            Ok((path, merged, step)) => {
                crate::log_debug!(
                    "the last window put into the run's profile in place in {:.1} ms ({step})",
                    t0.elapsed().as_secs_f64() * 1e3
                );
                Ok((path, merged))
            }
            Err(u) => {
                log_info!("the run's profile is merged at exit: {}", u.why);
                Err(u)
            }
        }
    }

    /// The windows were made one profile at `path`: their files go, and it is said.
    fn merged(
        &self,
        files: &[PathBuf],
        path: &std::path::Path,
        m: &crate::xplane::merge::Merged,
        t0: Instant,
        how: &str,
    ) {
        // The windows go now: a second signal from here on says where their profile is, not
        // where they were kept.
        super::signal::note_kept_windows(&format!(
            "the capture windows were merged into {}",
            path.display()
        ));
        for f in files {
            let _ = std::fs::remove_file(f);
            // The window's directory, once no process has a file left there.
            if let Some(dir) = f.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
        if self.cfg.log > crate::config::LogLevel::Off {
            crate::log::stderr_line(format_args!(
                "rocprof-xplane: merged {} windows into {} ({} events on {} lines, {:.0} ms; {} copied as they were written, {} of them as byte ranges{how})",
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
}

/// A profile assembled in place, not to be used: its name goes (one without a name goes with
/// its descriptor).
fn remove_assembled(path: &std::path::Path) {
    if !path.starts_with("/proc") {
        let _ = std::fs::remove_file(path);
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
    if locked {
        // Ours (no other process holds it), perhaps made by the open above after the process
        // that wrote the file removed its own at exit: left behind, nothing would remove it.
        let _ = std::fs::remove_file(&path);
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

    /// A name written since this process began, by a process that has ended and removed its
    /// lock: this one writes under a name of its own and leaves no lock file behind (the open
    /// that tried the lock made one anew).
    #[test]
    fn a_name_written_since_start_leaves_no_lock_behind() {
        let dir = tempfile::tempdir().unwrap();
        let base = OutputLayout {
            log_dir: dir.path().into(),
            run_name: "r".into(),
            host: "h".into(),
            durable: false,
        };
        let began = SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::create_dir_all(base.run_dir()).unwrap();
        std::fs::write(base.file_path(), b"").unwrap();
        let claim = claim_exclusive(&base, began);
        assert_eq!(claim.host, format!("h_{}", std::process::id()));
        assert!(claim.lock.is_none());
        let left: Vec<_> = std::fs::read_dir(base.run_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("h.xplane.pb")]);
    }
}
