//! The one cut: stop what the kind of cut stops → wait for HIP calls under way → flush our
//! buffers → take each buffer's records as its flush returns → collect with the callbacks'
//! facts → hand the window to the window writer (`writer`: the hand-off of what straddles the
//! cut, the join and the write, each on a thread of the writer's), or hand the records back.
//! Every trigger's cut — a window rule, the user's signal, a range end, the end of a bounded
//! capture, the profiler service, a detach, the program's end — runs through [`Run::cut`], on
//! the coordinator's thread, one at a time.

use std::time::Instant;

use super::attach::{self, Attach};
use super::collect::{collect, End, Flushed, Sources};
use super::window_files::WindowFiles;
use super::windows::Windows;
use super::writer::{AttachAtExit, CutWindow, LastWindow, Sink};
use crate::config::Config;
use crate::model::events::Collected;
use crate::model::join::join;
use crate::output;
use crate::recorder::{BufferSlot, Recorder, BUFFER_SLOTS};
use crate::sdk::Session;
use crate::store::EventStore;
use crate::{log_error, log_warn};

/// What a cut is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutKind {
    /// What is held is dropped: the callbacks kept it while paused (before a delayed start, an
    /// attach session or a service capture).
    Discard,
    /// A window rule fired; recording goes on and straddling calls are handed on.
    Window,
    /// The bounded capture's duration passed: recording stops, and its profile is written even
    /// when nothing happened in it.
    BoundedEnd,
    /// The profiler service takes what was recorded; recording goes on.
    Snapshot,
    /// The profiler service's capture ends: recording stops and the records go back to it.
    StopRecording,
    /// The SDK detached the tool (and stopped our contexts): attach session `session`'s
    /// profile.
    Detach { session: u32 },
    /// The program ends: every context stops; the last window.
    Final,
}

impl CutKind {
    /// Whether this process writes the cut's records into a profile of its own (the others
    /// are dropped, or handed to the profiler service, whose profile carries its counts).
    fn writes_here(self) -> bool {
        matches!(
            self,
            CutKind::Window | CutKind::BoundedEnd | CutKind::Detach { .. } | CutKind::Final
        )
    }

    fn end(self) -> End {
        if self == CutKind::Final {
            End::Final
        } else {
            End::Window
        }
    }
}

/// Everything a cut reads and updates: the recorder's stores, the SDK session, and the run's
/// state across cuts.
pub struct Run {
    pub recorder: &'static Recorder,
    pub session: Session,
    pub cfg: &'static Config,
    pub windows: Windows,
    pub attach: Attach,
    /// Joins and writes the windows, in the order they were cut (`writer`).
    sink: Sink,
    /// The clocks at the start of the current window; `None`: the session's start.
    window_start: Option<crate::job_clock::CutClock>,
    /// The last device counter read of each counter of each GPU: where the next window's
    /// first interval starts (`model::device_counters`).
    device_reads: Vec<crate::model::events::DeviceSample>,
    /// Records the runtime dropped (`drop_count`) in the cuts this process wrote profiles of:
    /// said on stderr at exit, beside the line saying where the profile went.
    runtime_dropped: u64,
}

impl Run {
    pub fn new(
        recorder: &'static Recorder,
        session: Session,
        cfg: &'static Config,
        windows: Windows,
    ) -> Run {
        let files = WindowFiles::new(cfg, windows.active());
        let sink = Sink::start(recorder, cfg, files, windows.active());
        Run {
            recorder,
            session,
            cfg,
            windows,
            attach: Attach::default(),
            sink,
            window_start: None,
            device_reads: Vec::new(),
            runtime_dropped: 0,
        }
    }

    /// Whether windows are joined and written on the window writer's thread, not within
    /// their cut.
    pub fn writer_threaded(&self) -> bool {
        self.sink.threaded()
    }

    /// The device counters restarted (a reattach): the next read starts a new series.
    pub fn forget_device_reads(&mut self) {
        self.device_reads.clear();
    }

    /// Puts the last reads of the cut before in front of `c`'s device counter reads, and keeps
    /// `c`'s last ones for the next cut: each interval ends in exactly one cut, whatever kind
    /// of cut takes it (a discarded one too: the next interval starts at its last read).
    fn hand_on_device_reads(&mut self, c: &mut Collected) {
        if c.device_samples.is_empty() {
            return;
        }
        let mut reads = std::mem::take(&mut self.device_reads);
        reads.append(&mut c.device_samples);
        self.device_reads = crate::model::device_counters::last_reads(&reads);
        c.device_samples = reads;
    }

    /// Cuts: returns the records for the kinds that hand them back (`Discard`, `Snapshot`,
    /// `StopRecording`), `None` for the kinds that write a profile.
    pub fn cut(&mut self, kind: CutKind) -> Option<Collected> {
        let began = Instant::now();
        self.stop_for(kind);
        let flushed = self.flush_and_take(kind);
        let sources = Sources {
            recorder: self.recorder,
            session: &self.session,
            window_start: &mut self.window_start,
            step_rule: self.cfg.step_rule.as_ref(),
        };
        let mut c = collect(sources, flushed, kind.end());
        self.hand_on_device_reads(&mut c);
        if kind.writes_here() {
            self.runtime_dropped += c.counters.runtime_dropped;
        }
        match kind {
            CutKind::Discard | CutKind::Snapshot | CutKind::StopRecording => return Some(c),
            CutKind::Window | CutKind::BoundedEnd => self.sink.window(CutWindow {
                c,
                always: kind == CutKind::BoundedEnd,
                began,
                collected: Instant::now(),
            }),
            CutKind::Detach { session } => {
                self.recorder.set_paused(true);
                // The session's profile follows the windows cut before it.
                self.sink.barrier();
                self.write_attach_session(c, session);
            }
            CutKind::Final => {
                self.sink.last(LastWindow {
                    c,
                    began,
                    attach: AttachAtExit {
                        state: self.attach.state(),
                        run: self.attach.current_run(self.cfg),
                        used: self.attach.used(),
                    },
                    ended: self.windows.ended(),
                });
                self.say_runtime_drops();
            }
        }
        None
    }

    /// At exit: the records the runtime dropped over the whole run, on stderr where the user
    /// looks (the profile's warnings and `runtime_dropped` counter hold them per file).
    fn say_runtime_drops(&self) {
        if self.runtime_dropped > 0 {
            log_warn!(
                "the runtime dropped {} records of this run (its buffers were full and set to DISCARD): they are not in the profile; a larger ROCPROF_XPLANE_BUFFER_SIZE keeps more",
                self.runtime_dropped
            );
        }
    }

    /// Stops what `kind` stops and waits for the HIP calls under way: the runtime picks the
    /// contexts a call reports to when it enters and writes its record when it exits, so a
    /// call that entered before a stop lands its record after it.
    fn stop_for(&self, kind: CutKind) {
        let open = self.recorder.capture().open_calls();
        match kind {
            CutKind::Discard | CutKind::Window | CutKind::Snapshot => {}
            // Capture pauses before the buffers stop: a call that enters while the calls under
            // way are waited for gets neither a buffered record nor one built from its
            // callbacks (`Recorder::api_start`).
            CutKind::BoundedEnd | CutKind::StopRecording => {
                self.recorder.set_paused(true);
                self.stop_buffers();
            }
            CutKind::Detach { .. } => {
                // The SDK has stopped our contexts; calls that began before still write their
                // records when they return: wait for them, so they are in this attach session.
                open.settle_before_flush("the detach");
                // Our callbacks may stop with the detach: a call whose EXIT never comes is not
                // waited for again.
                open.forget_open_calls();
            }
            CutKind::Final => self.session.stop_all(),
        }
    }

    /// Stops the buffer context (no more records; callbacks keep their state) and waits for
    /// the calls that entered before the stop.
    fn stop_buffers(&self) {
        if self.session.stop_buffers() {
            self.recorder
                .capture()
                .open_calls()
                .settle_before_flush("the window closed");
        }
    }

    /// Flushes every buffer of ours and takes each buffer's records out of its store as soon
    /// as its flush has returned. A buffer that fills often goes on delivering at its
    /// watermark while the others are flushed and the cut is drained; taken at its flush, each
    /// kind is cut at its flush, and what it delivers later is the next window's (drained
    /// live, a cut would hold more of one kind than of another, and a copy missing from it
    /// would hold its stream's later waits apart from their event records).
    fn flush_and_take(&self, kind: CutKind) -> Flushed {
        let recorder = self.recorder;
        let mut flushed = take_at_flush(recorder, |taken| self.session.flush_each(taken));
        // Without a flush (an SDK without the function), as they are. A slot without a buffer
        // has no records.
        if !self.session.can_flush() {
            flushed.stores = std::array::from_fn(|slot| recorder.take_store(slot));
        }
        if kind == CutKind::Final {
            (flushed.warnings).splice(0..0, self.session.setup_warnings.iter().cloned());
        }
        flushed
    }

    /// An attach session's profile: the first into the run directory itself, later ones into
    /// `<run>_attachNN`.
    fn write_attach_session(&self, mut c: Collected, n: u32) {
        // No window of this profile follows: its open ranges are shown up to the detach.
        for w in &mut c.warnings {
            if let Some(said) = crate::xplane::merge::ranges_open_with_no_next(w) {
                *w = said;
            }
        }
        let trace = join(c);
        let run = attach::run_name_of(self.cfg, n);
        match output::write_trace_as(&trace, self.cfg, &run) {
            Ok(path) => output::report_written("attach session: ", &path, &trace, self.cfg),
            Err(e) => log_error!("cannot write the profile of attach session {n}: {e}"),
        }
    }
}

/// Each buffer slot's records, taken from `recorder` as soon as `flush` reports the slot's flush
/// returned (`flush` flushes every buffer in turn and returns its warnings).
fn take_at_flush(
    recorder: &Recorder,
    flush: impl FnOnce(&mut dyn FnMut(BufferSlot)) -> Vec<String>,
) -> Flushed {
    let mut stores: [EventStore; BUFFER_SLOTS] = Default::default();
    let warnings = flush(&mut |slot| stores[slot as usize] = recorder.take_store(slot as usize));
    Flushed { warnings, stores }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cut takes each buffer's records when its flush returns: a kernel delivered at the
    /// kernel buffer's watermark while the copy buffer is being flushed (after the kernel
    /// flush) is the next cut's, not this one's. Drained after every flush, the cut would hold
    /// it without the copies that completed beside it, and each copy missing would hold its
    /// stream's later waits apart from their records.
    #[test]
    fn a_cut_takes_each_buffer_s_records_when_its_flush_returns() {
        use crate::model::events::KernelRecord;
        let kernel = |id: u64| KernelRecord {
            correlation_id: id,
            external_id: 0,
            start_ns: 1,
            end_ns: 2,
            thread_id: 1,
            agent: 0x10,
            queue: 0x91,
            kernel_id: 0,
            dispatch_id: id,
            private_segment_size: 0,
            group_segment_size: 0,
            workgroup: [1, 1, 1],
            grid: [1, 1, 1],
            pipe_id: None,
        };
        let r = Recorder::default();
        let kernels = BufferSlot::KernelDispatch as usize;
        let deliver = |id| {
            r.deliver(kernels, 1, 0, |s| {
                s.kernels.push(kernel(id));
            })
        };
        deliver(1);
        // The runtime's flushes, in turn: the kernel buffer's delivers a kernel; while the
        // copy buffer is flushed, the kernel buffer passes its watermark and delivers another.
        let cut = take_at_flush(&r, |taken| {
            deliver(100);
            taken(BufferSlot::KernelDispatch);
            deliver(200);
            taken(BufferSlot::MemoryCopy);
            Vec::new()
        });
        let ids =
            |st: &EventStore| -> Vec<u64> { st.kernels.iter().map(|k| k.correlation_id).collect() };
        assert_eq!(ids(&cut.stores[kernels]), [1, 100]);
        assert_eq!(ids(&r.take_store(kernels)), [200], "the next cut's");
    }

    #[test]
    fn process_memory_names_current_and_peak() {
        let m = crate::log::process_memory();
        assert!(m.starts_with("rss ") && m.contains(", peak "), "{m}");
        assert!(m.contains("kB"), "Linux reports kB: {m}");
    }
}
