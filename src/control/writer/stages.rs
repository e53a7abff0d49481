//! The stages of a window's cut, timed for its debug line.

use std::thread::ThreadId;
use std::time::Instant;

use crate::config::LogLevel;
use crate::log_debug;
use rocprof_xplane_core::measure::cpu_with_helpers_ns;

/// One stage of a window's cut: when it began and ended, on which thread, and the CPU time
/// that thread and the helpers it started used in it (`None`: not measured, the collect).
#[derive(Clone, Copy)]
struct Stage {
    from: Instant,
    to: Instant,
    thread: ThreadId,
    cpu: Option<Cpu>,
}

/// A stage's CPU: the reading of its thread's CPU with its helpers' at its start, then the
/// CPU it used.
#[derive(Clone, Copy)]
struct Cpu {
    from_ns: u64,
    ns: u64,
}

impl Stage {
    fn secs(&self) -> f64 {
        (self.to - self.from).as_secs_f64()
    }

    fn cpu_secs(&self) -> Option<f64> {
        self.cpu.map(|c| c.ns as f64 / 1e9)
    }
}

/// The stages of a window's cut, for its debug line: the records of the window (before the
/// carry) per second of each stage, in all (their sum), and of the busiest thread (each
/// thread's stages summed: the rate the tool sustains, stages on different threads
/// overlapping other windows' stages). The collect is the coordinator's, the hand-off and
/// the join the writer's, the write the file thread's (or the writer's, inline all of them the
/// coordinator's); the waits between them are said apart. Beside the wall times, the CPU
/// time of the hand-off, the join and the write, each with the helper threads its thread
/// started (the join's side-by-side stages, the write's plane threads), and the records per
/// second of the thread that used the most: the rate a core given to the tool sustains, where
/// the wall times also count the program's threads taking the cores.
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
            cpu: None,
        };
        let mut stages = [stage; 4];
        stages[0] = Stage {
            from: began,
            to: collected,
            thread,
            cpu: None,
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
            cpu: Some(Cpu {
                from_ns: cpu_with_helpers_ns(),
                ns: 0,
            }),
        };
    }

    pub(super) fn end(&mut self, i: usize) {
        let stage = &mut self.stages[i];
        stage.to = Instant::now();
        if let Some(c) = &mut stage.cpu {
            c.ns = cpu_with_helpers_ns().saturating_sub(c.from_ns);
        }
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

    /// The thread whose stages took the most by `secs` (stages it says nothing of left out),
    /// their sum and the stages it ran.
    fn busiest(&self, secs: impl Fn(&Stage) -> Option<f64>) -> (f64, String) {
        let mut threads: Vec<(ThreadId, f64, Vec<&str>)> = Vec::new();
        for (stage, name) in self.stages.iter().zip(STAGE_NAMES) {
            let Some(t) = secs(stage) else { continue };
            match threads.iter_mut().find(|(id, ..)| *id == stage.thread) {
                Some((_, sum, names)) => {
                    *sum += t;
                    names.push(name);
                }
                None => threads.push((stage.thread, t, vec![name])),
            }
        }
        threads
            .into_iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(_, sum, names)| (sum, names.join(" + ")))
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
        let (busiest, on) = self.busiest(|s| Some(s.secs()));
        let wait = |a: usize, b: usize| (s[b].from.max(s[a].to) - s[a].to).as_secs_f64() * 1e3;
        let cpu = |i: usize| format!("{:.1} ms", s[i].cpu_secs().unwrap_or(0.0) * 1e3);
        let (busiest_cpu, cpu_on) = self.busiest(Stage::cpu_secs);
        log_debug!(
            "window {n} cut: {} records (and {} roctx spans); collect {}, hand-off {}, join {}, write {}; in all {}; busiest thread {} ({on}); waited {:.1} ms for the writer, {:.1} ms for its write; CPU with helpers: hand-off {}, join {}, write {}; busiest thread's CPU {} ({cpu_on})",
            self.records,
            self.spans,
            rate(s[0].secs()),
            rate(s[1].secs()),
            rate(s[2].secs()),
            rate(s[3].secs()),
            rate(work),
            rate(busiest),
            wait(0, 1) + wait(1, 2),
            wait(2, 3),
            cpu(1),
            cpu(2),
            cpu(3),
            rate(busiest_cpu),
        );
    }
}
