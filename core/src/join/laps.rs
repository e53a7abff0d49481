//! The time of each stage, for the debug line (where a slow join spends its time), and at
//! debug level the memory after it (which stage grows the join's peak) and the minor page
//! faults during it (which stage takes fresh pages).

use std::time::{Duration, Instant};

/// Time of each stage, for the debug log, and at debug level the memory after it.
pub(super) struct Laps {
    last: Instant,
    laps: Vec<Lap>,
    with_memory: bool,
    /// The process's minor faults at the end of the last stage (at debug level).
    faults: Option<u64>,
}

struct Lap {
    pass: &'static str,
    time: Duration,
    memory: Option<LapMemory>,
    /// Minor page faults during the stage (the whole process's, at debug level).
    faults: Option<u64>,
    /// A stage that ran beside this one on a helper thread, and its own time.
    beside: Option<Beside>,
}

/// A stage that ran beside another on a helper thread (`util::threads::side_by_side`), and
/// its own time.
#[derive(Debug, Clone, Copy)]
pub(super) struct Beside {
    pub stage: &'static str,
    pub time: Duration,
}

enum LapMemory {
    /// The process's resident memory, kB.
    Rss(u64),
    /// The tool's own heap in a `heap-stats` build: live, and the top during the stage, bytes.
    Heap(usize, usize),
}

impl Laps {
    pub fn start() -> Self {
        // Each stage's top counts from the join's start.
        let _ = crate::heap::interval_peak();
        let with_memory = crate::measure::debug_enabled();
        Laps {
            last: Instant::now(),
            laps: Vec::new(),
            with_memory,
            faults: with_memory.then(crate::measure::minor_faults).flatten(),
        }
    }

    pub fn lap(&mut self, pass: &'static str) {
        self.lap_beside(pass, None);
    }

    pub fn lap_beside(&mut self, pass: &'static str, beside: Option<Beside>) {
        let now = Instant::now();
        let memory = match crate::heap::stats() {
            _ if !self.with_memory => None,
            Some((live, _)) => Some(LapMemory::Heap(
                live,
                crate::heap::interval_peak().unwrap_or(live),
            )),
            None => crate::measure::process_memory_kb().0.map(LapMemory::Rss),
        };
        let before = self.faults;
        self.faults = self
            .with_memory
            .then(crate::measure::minor_faults)
            .flatten();
        let faults = before.zip(self.faults).map(|(b, a)| a.saturating_sub(b));
        self.laps.push(Lap {
            pass,
            time: now - self.last,
            memory,
            faults,
            beside,
        });
        self.last = now;
    }
}

impl std::fmt::Display for Laps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, l) in self.laps.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{} {:.1} ms", l.pass, l.time.as_secs_f64() * 1e3)?;
            if let Some(Beside { stage, time }) = l.beside {
                write!(f, " [{stage} {:.1} ms beside it]", time.as_secs_f64() * 1e3)?;
            }
            let faults = l
                .faults
                .map_or(String::new(), |n| format!(", {n} minor faults"));
            match l.memory {
                Some(LapMemory::Rss(kb)) => write!(f, " (rss {} MB{faults})", kb / 1000)?,
                Some(LapMemory::Heap(live, peak)) => write!(
                    f,
                    " (heap {:.1} MB, top {:.1} MB{faults})",
                    live as f64 / 1e6,
                    peak as f64 / 1e6
                )?,
                None => {}
            }
        }
        Ok(())
    }
}
