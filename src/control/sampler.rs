//! The sampling thread of the periodic device counters (`ROCPROF_XPLANE_PMC_INTERVAL`): owned
//! by the coordinator, which starts it, stops it before the contexts stop (finalize) or after
//! a detach, and starts it again at a reattach. Every interval it reads every GPU
//! (`sdk::device_counting`) and hands the read to the recorder whole; it never runs on an
//! application thread and takes no lock an application thread takes.
//!
//! Stopping asks for one last read (the interval up to the stop), then waits at most
//! [`STOP_WAIT`] for the thread: a read stuck in the SDK is left behind, said once, and never
//! holds up the program's exit.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use crate::recorder::Recorder;
use crate::sdk::device_counting::DeviceCounting;
use crate::sdk::os::thread_cpu_ns;
use crate::{log_debug, log_warn};

/// How long a stop waits for the thread's last read.
pub const STOP_WAIT: Duration = Duration::from_secs(2);

/// The thread's name (Linux keeps the first 15 bytes).
const THREAD_NAME: &str = "rocprof-xplane-pmc";

/// What the thread's reads cost it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadCost {
    pub reads: u64,
    /// CPU time of the sampling thread over those reads, naming and summing included.
    pub cpu_ns: u64,
}

/// A running sampling thread.
pub struct Sampler {
    /// Dropped to stop the thread.
    stop: Option<Sender<()>>,
    /// The device counting back, with what its reads cost, when the thread ends.
    done: Receiver<(Box<DeviceCounting>, ReadCost)>,
}

impl Sampler {
    /// Starts reading `dc` every `every` into `recorder` (a first read at once: the start of
    /// the first interval). `Err` gives `dc` back when no thread can be started.
    pub fn start(
        dc: Box<DeviceCounting>,
        recorder: &'static Recorder,
        every: Duration,
    ) -> Result<Sampler, Box<DeviceCounting>> {
        let (stop, stop_rx) = mpsc::channel();
        let (done_tx, done) = mpsc::channel();
        // The thread owns `dc` while it runs; it comes back through `done`, or through
        // `handed` when the thread never started.
        let handed = std::sync::Arc::new(std::sync::Mutex::new(Some(dc)));
        let theirs = std::sync::Arc::clone(&handed);
        let spawned = std::thread::Builder::new()
            .name(THREAD_NAME.into())
            .spawn(move || {
                let taken = crate::store::sinks::lock(&theirs).take();
                if let Some(dc) = taken {
                    // A panic ends the reads (counted among the profile's caught errors); the
                    // stop then finds the thread gone.
                    let back = crate::guard::ffi_guard("the device counter sampling", None, || {
                        Some(read_every(dc, recorder, every, stop_rx))
                    });
                    if let Some(back) = back {
                        let _ = done_tx.send(back);
                    }
                }
            });
        match spawned {
            Ok(_) => Ok(Sampler {
                stop: Some(stop),
                done,
            }),
            Err(e) => {
                log_warn!(
                    "ROCPROF_XPLANE_PMC_INTERVAL: cannot start the sampling thread: {e}; no device counters read"
                );
                let dc = crate::store::sinks::lock(&handed).take();
                Err(dc.expect("the thread never ran"))
            }
        }
    }

    /// Stops the thread after one last read, waiting at most [`STOP_WAIT`]; the device
    /// counting comes back for a later start (`None`: the thread did not end in time).
    pub fn stop(mut self) -> Option<Box<DeviceCounting>> {
        drop(self.stop.take());
        match self.done.recv_timeout(STOP_WAIT) {
            Ok((dc, cost)) => {
                if cost.reads > 0 {
                    log_debug!(
                        "device counters: {} reads, sampling thread CPU {:.1} µs per read",
                        cost.reads,
                        cost.cpu_ns as f64 / cost.reads as f64 / 1e3
                    );
                }
                Some(dc)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                log_warn!(
                    "ROCPROF_XPLANE_PMC_INTERVAL: a read of the device counters did not return within {} s; the sampling thread is left behind and later reads are not in the profile",
                    STOP_WAIT.as_secs()
                );
                None
            }
            // The thread ended early (an internal error, said where it was caught).
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
        }
    }
}

/// The thread: a read now, then one every `every` on a fixed schedule (a read that overran
/// skips the ticks it missed), until `stop` is dropped; then one last read.
fn read_every(
    mut dc: Box<DeviceCounting>,
    recorder: &'static Recorder,
    every: Duration,
    stop: Receiver<()>,
) -> (Box<DeviceCounting>, ReadCost) {
    let mut cost = ReadCost::default();
    let mut seq = 0u64;
    let mut read = |dc: &mut DeviceCounting| {
        let cpu = thread_cpu_ns();
        let samples = dc.read(seq);
        seq += 1;
        recorder.record_device_samples(samples);
        cost.reads += 1;
        cost.cpu_ns += thread_cpu_ns().saturating_sub(cpu);
    };
    read(&mut dc);
    let mut next = Instant::now() + every;
    loop {
        match stop.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => {
                read(&mut dc);
                next += every;
                let now = Instant::now();
                if next <= now {
                    next = now + every;
                }
            }
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                read(&mut dc);
                return (dc, cost);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdk::device_counting::stand_in;

    /// The thread reads at once and every interval, and a stop takes its last read and gives
    /// the device counting back for a later start.
    #[test]
    fn a_stop_takes_the_last_read_and_gives_the_counting_back() {
        let recorder: &'static Recorder = Box::leak(Box::default());
        let s = Sampler::start(
            Box::new(stand_in::counting(false)),
            recorder,
            Duration::from_millis(5),
        )
        .ok()
        .unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let began = Instant::now();
        let back = s.stop();
        assert!(back.is_some());
        assert!(began.elapsed() < STOP_WAIT);
        assert_eq!(back.unwrap().failed_reads(), 0);
    }

    /// A read stuck in the SDK never holds the stop past `STOP_WAIT`: the thread is left
    /// behind, and nothing comes back to restart.
    #[test]
    fn a_stuck_read_never_holds_the_stop() {
        let recorder: &'static Recorder = Box::leak(Box::default());
        let s = Sampler::start(
            Box::new(stand_in::counting(true)),
            recorder,
            Duration::from_millis(5),
        )
        .ok()
        .unwrap();
        let began = Instant::now();
        assert!(s.stop().is_none());
        let took = began.elapsed();
        assert!(took >= STOP_WAIT && took < stand_in::READ_STUCK, "{took:?}");
    }
}
