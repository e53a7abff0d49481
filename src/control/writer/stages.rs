//! The stages of a window's cut, timed for its debug line.

use std::thread::ThreadId;
use std::time::Instant;

use crate::config::LogLevel;
use crate::log_debug;

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
pub(super) struct CutStages {
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
    pub(super) fn begin(
        records: u64,
        spans: usize,
        began: Instant,
        collected: Instant,
    ) -> CutStages {
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

    pub(super) fn began(&self) -> Instant {
        self.stages[0].from
    }

    /// Marks stage `i` begun now on this thread.
    pub(super) fn start(&mut self, i: usize) {
        let now = Instant::now();
        self.stages[i] = Stage {
            from: now,
            to: now,
            thread: std::thread::current().id(),
        };
    }

    pub(super) fn end(&mut self, i: usize) {
        self.stages[i].to = Instant::now();
    }

    pub(super) fn handed_on(&mut self) {
        self.end(1);
    }

    /// The writer took the window: its join begins.
    pub(super) fn taken(&mut self) {
        self.start(2);
    }

    pub(super) fn joined(&mut self) {
        self.end(2);
    }

    pub(super) fn write_taken(&mut self) {
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
    pub(super) fn written(&mut self, n: u32) {
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
