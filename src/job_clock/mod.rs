//! This process's side of the job clock (`clock`): the origin its profiles count from, the
//! boot and wall clocks read together, and, with `ROCPROF_XPLANE_CLOCK_REFERENCE`, the job's
//! clock reference. Every process of the job is given the same address: the one that can
//! listen on it (on the host that has that address, the first there) is the reference and
//! answers the clock exchange (`exchange`) on a thread of its own; every other one estimates
//! its host's offset to it on a thread of its own, and again at every cut.
//!
//! The origin is chosen when the session is set up (the job start given, else this process's
//! start), replaced by the reference's when it answers, and fixed by the first collection:
//! every profile of the process (windows, captures without a start time, the last one) counts
//! from it. A process that serves the exchange (its profiler service is on) fixes its origin
//! when it first answers, so that every rank that takes it keeps it.

pub mod exchange;

use std::net::{ToSocketAddrs, UdpSocket};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::clock::{ClockFacts, ClockPair, JobTimeSource, OffsetEstimate, Origin, DAY_NS};
use crate::sdk::functions::{walltime_ns, Clock};
use crate::store::sinks::lock;
use crate::{log_debug, log_warn};

/// Exchanges per round, and how long each waits for its reply.
const TRIES: usize = 8;
const WAIT: Duration = Duration::from_millis(100);
/// How often the reference thread asks again: until the first answer, and after it.
const RETRY: Duration = Duration::from_millis(100);
const REFRESH: Duration = Duration::from_secs(30);
/// How long the thread keeps trying for a first answer (the reference may start later).
const FIRST_ANSWER_WITHIN: Duration = Duration::from_secs(120);
/// The thread's name (Linux keeps 15 bytes).
pub const THREAD_NAME: &str = "rocprof-xp-clock";

/// The clock readings a cut starts or ends at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CutClock {
    pub pair: ClockPair,
    /// This host's offset to the job's clock reference then (`None`: none known).
    pub offset: Option<OffsetEstimate>,
}

pub struct ProcessClock {
    sdk: Clock,
    /// What was read when the session was set up.
    start: CutClock,
    origin: Mutex<OriginChoice>,
    reference: Option<Arc<Reference>>,
}

#[derive(Debug, Clone, Copy)]
struct OriginChoice {
    origin: Origin,
    /// No longer replaced: a profile counts from it, or another process was told it.
    fixed: bool,
}

/// The job's clock reference and what its exchanges gave.
struct Reference {
    addr: String,
    /// This process listens on `addr`: it is the reference.
    serving: bool,
    state: Mutex<ReferenceState>,
    stopped: (Mutex<bool>, Condvar),
}

#[derive(Debug, Default)]
struct ReferenceState {
    /// The first estimate (the profile's start) and the latest.
    first: Option<OffsetEstimate>,
    latest: Option<OffsetEstimate>,
    /// Why the last round failed, if it did.
    failed: Option<String>,
}

impl ProcessClock {
    /// Reads the start pair and chooses the origin: `job_start_ns`'s when it is usable, else
    /// this process's start; with `reference`, starts the thread that asks it.
    pub fn begin(
        sdk: Clock,
        job_start_ns: Option<u64>,
        reference: Option<String>,
    ) -> Arc<ProcessClock> {
        let start = ClockPair::read(|| sdk.now(), walltime_ns);
        let origin = match job_start_ns {
            Some(t) => Origin::from_job_time(t, JobTimeSource::Given, start.wall_ns, DAY_NS)
                .unwrap_or_else(|e| {
                    log_warn!(
                        "ROCPROF_XPLANE_JOB_START is not used: {e}; this process's start gives the origin, and its times may not line up with the job's other processes"
                    );
                    Origin::own(start.wall_ns)
                }),
            None => Origin::own(start.wall_ns),
        };
        let listening = reference.as_deref().and_then(listen);
        let reference = reference.map(|addr| {
            Arc::new(Reference {
                addr,
                serving: listening.is_some(),
                state: Mutex::default(),
                stopped: (Mutex::new(false), Condvar::new()),
            })
        });
        let clock = Arc::new(ProcessClock {
            sdk,
            start: CutClock {
                pair: start,
                offset: None,
            },
            origin: Mutex::new(OriginChoice {
                origin,
                fixed: false,
            }),
            reference: reference.clone(),
        });
        if let Some(r) = reference {
            let me = Arc::clone(&clock);
            let spawned = std::thread::Builder::new()
                .name(THREAD_NAME.into())
                .spawn(move || match listening {
                    Some(sock) => me.serve(&r, &sock),
                    None => me.ask_the_reference(&r),
                });
            if let Err(e) = spawned {
                log_warn!("cannot start the clock exchange's thread: {e}");
            }
        }
        clock
    }

    /// The boot and wall clocks read together now.
    pub fn read_pair(&self) -> ClockPair {
        ClockPair::read(|| self.sdk.now(), walltime_ns)
    }

    /// What was read when the session was set up, with the first offset estimated since.
    pub fn at_start(&self) -> CutClock {
        CutClock {
            offset: self.reference.as_ref().and_then(|r| lock(&r.state).first),
            ..self.start
        }
    }

    /// What a cut ends at: the pair now, and this host's offset to the reference asked now
    /// (once if the last round failed), else the latest known.
    pub fn now(&self) -> CutClock {
        let pair = self.read_pair();
        let offset = self
            .reference
            .as_ref()
            .filter(|r| !r.serving)
            .and_then(|r| {
                let tries = if lock(&r.state).failed.is_some() {
                    1
                } else {
                    TRIES
                };
                self.round(r, tries);
                lock(&r.state).latest
            });
        CutClock { pair, offset }
    }

    /// What a collection from `start` to `stop` knows of its clocks (fixing the origin).
    pub fn facts(&self, start: CutClock, stop: CutClock) -> ClockFacts {
        let first = self.at_start();
        ClockFacts {
            origin: Some(self.origin()),
            start_error_ns: start.pair.error_ns,
            stop_error_ns: stop.pair.error_ns,
            start_offset: start.offset,
            stop_offset: stop.offset,
            reference: self.reference().map(str::to_string),
            is_reference: self.is_reference(),
            anchor: Some((first.pair, first.offset)),
        }
    }

    /// The profile's warning when the job's clock reference gave no estimate at all.
    pub fn reference_warning(&self) -> Option<String> {
        let why = self.reference_failure()?;
        Some(format!(
            "the job's clock reference {} gave no estimate ({why}): aligned by host clocks",
            self.reference()?
        ))
    }

    /// The origin every profile of this process counts from, fixed from now on.
    pub fn origin(&self) -> Origin {
        let mut o = lock(&self.origin);
        o.fixed = true;
        o.origin
    }

    /// The job's clock reference's address, when one is set.
    pub fn reference(&self) -> Option<&str> {
        self.reference.as_deref().map(|r| r.addr.as_str())
    }

    /// Whether this process is the job's clock reference.
    pub fn is_reference(&self) -> bool {
        self.reference.as_ref().is_some_and(|r| r.serving)
    }

    /// Why the reference gave no estimate, when it gave none at all (never for the reference
    /// itself).
    pub fn reference_failure(&self) -> Option<String> {
        let r = self.reference.as_ref().filter(|r| !r.serving)?;
        let s = lock(&r.state);
        s.latest
            .is_none()
            .then(|| s.failed.clone().unwrap_or_else(|| "no answer yet".into()))
    }

    /// Ends the reference thread's waits (finalize); it leaves at its next look.
    pub fn stop(&self) {
        if let Some(r) = &self.reference {
            *lock(&r.stopped.0) = true;
            r.stopped.1.notify_all();
        }
    }

    /// The reference's thread: answers every request on `sock`, until `stop`.
    fn serve(&self, r: &Reference, sock: &UdpSocket) {
        let mut buf = [0u8; 64];
        while !*lock(&r.stopped.0) {
            let Ok((n, from)) = sock.recv_from(&mut buf) else {
                // A timeout (to look at `stop`), or an error: never spin on a failing socket.
                std::thread::sleep(Duration::from_millis(1));
                continue;
            };
            if let Some(reply) = answer(self, &buf[..n]) {
                let _ = sock.send_to(&reply, from);
            }
        }
    }

    /// The reference thread: asks until the first answer (the reference may start after
    /// this process), then every `REFRESH`, until `stop`.
    fn ask_the_reference(&self, r: &Reference) {
        let began = std::time::Instant::now();
        loop {
            self.round(r, TRIES);
            let wait = if lock(&r.state).latest.is_some() || began.elapsed() > FIRST_ANSWER_WITHIN {
                REFRESH
            } else {
                RETRY
            };
            let (stopped, cv) = &r.stopped;
            let guard = lock(stopped);
            let (guard, _) = cv
                .wait_timeout_while(guard, wait, |s| !*s)
                .unwrap_or_else(|e| e.into_inner());
            if *guard {
                return;
            }
        }
    }

    /// One round of `tries` exchanges with the reference: the estimate kept (the first also
    /// as the start's), the reference's origin taken while this process's is not fixed.
    /// Whether it answered.
    fn round(&self, r: &Reference, tries: usize) -> bool {
        match exchange::exchange(&r.addr, tries, WAIT, &walltime_ns) {
            Ok(got) => {
                let estimate = crate::clock::OffsetEstimate::from_samples(&got.samples);
                {
                    let mut s = lock(&r.state);
                    if s.first.is_none() {
                        s.first = estimate;
                    }
                    s.latest = estimate.or(s.latest);
                    s.failed = None;
                }
                if let Some(theirs) = got.origin {
                    self.take_origin(theirs);
                }
                if let Some(e) = estimate {
                    log_debug!(
                        "clock reference {}: this host {:+} ns off it, ±{} ns",
                        r.addr,
                        e.offset_ns,
                        e.error_ns
                    );
                }
                true
            }
            Err(e) => {
                log_debug!("clock reference: {e}");
                lock(&r.state).failed = Some(e);
                false
            }
        }
    }

    /// The reference's origin, unless this process's is fixed or cannot use it.
    fn take_origin(&self, theirs: Origin) {
        let mut o = lock(&self.origin);
        if o.fixed {
            return;
        }
        if o.origin.unix_ns == theirs.unix_ns {
            o.origin.source = JobTimeSource::Reference;
            return;
        }
        match Origin::adopt(
            theirs.unix_ns,
            JobTimeSource::Reference,
            self.start.pair.wall_ns,
            DAY_NS,
        ) {
            Ok(origin) => o.origin = origin,
            Err(e) => log_warn!("the clock reference's origin is not used: {e}"),
        }
    }
}

/// A socket listening on `addr` when this process can (it then is the job's clock reference):
/// `None` when `addr` is another host's, or another process here listens on it.
fn listen(addr: &str) -> Option<UdpSocket> {
    let at = addr.to_socket_addrs().ok()?.next()?;
    let sock = UdpSocket::bind(at).ok()?;
    sock.set_read_timeout(Some(Duration::from_millis(200)))
        .ok()?;
    crate::log_info!("the job's clock reference: answering the clock exchange on {at}");
    Some(sock)
}

/// The clock exchange's answer, for the profiler service: this process's wall clock now and
/// its origin (fixed by the answer).
pub fn answer(clock: &ProcessClock, request: &[u8]) -> Option<[u8; exchange::LEN]> {
    let origin = clock.origin();
    exchange::reply(request, walltime_ns(), origin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::origin_for;
    use crate::sdk::functions::Functions;

    fn boot_clock() -> Clock {
        // No SDK here: the boot clock read directly.
        Functions::resolve(|_| std::ptr::null_mut()).clock()
    }

    #[test]
    fn the_origin_is_the_given_job_start_s_else_this_process_s() {
        let own = ProcessClock::begin(boot_clock(), None, None);
        let start = own.at_start().pair.wall_ns;
        assert_eq!(own.origin(), Origin::own(start));
        let job = start - 5_000_000_000;
        let given = ProcessClock::begin(boot_clock(), Some(job), None);
        assert_eq!(
            given.origin(),
            Origin {
                unix_ns: origin_for(job),
                source: JobTimeSource::Given
            }
        );
        // A job start days after this process's start is not used.
        let late = ProcessClock::begin(boot_clock(), Some(start + 3 * DAY_NS), None);
        assert_eq!(late.origin().source, JobTimeSource::OwnStart);
    }

    /// Two processes given one address: the first listens and is the reference, the second
    /// asks it, estimates its offset (about 0: one machine) and takes its origin.
    #[test]
    fn the_process_that_listens_is_the_reference_and_the_other_takes_its_clock() {
        let port = UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        // The reference's job start an hour earlier than the other's own start: another origin
        // whenever that other's would be 00:00 of the next day.
        let earlier = crate::sdk::functions::walltime_ns() - 3_600_000_000_000;
        let reference = ProcessClock::begin(boot_clock(), Some(earlier), Some(addr.clone()));
        assert!(reference.is_reference());
        let other = ProcessClock::begin(boot_clock(), None, Some(addr.clone()));
        assert!(!other.is_reference());
        let cut = other.now();
        let offset = cut.offset.expect("an estimate");
        assert!(
            offset.offset_ns.unsigned_abs() <= offset.error_ns + 1_000,
            "{offset:?}"
        );
        assert_eq!(other.reference_failure(), None);
        assert_eq!(reference.reference_failure(), None);
        let theirs = reference.origin();
        let mine = other.origin();
        assert_eq!(mine.unix_ns, theirs.unix_ns);
        assert_eq!(mine.source, JobTimeSource::Reference);
        reference.stop();
        other.stop();
    }

    #[test]
    fn a_reference_that_never_answers_is_said_and_costs_one_wait_per_cut() {
        let free = UdpSocket::bind("127.0.0.1:0").unwrap();
        // Bound here, not answering: the process under test cannot listen on it either.
        let addr = free.local_addr().unwrap().to_string();
        let clock = ProcessClock::begin(boot_clock(), None, Some(addr));
        assert!(!clock.is_reference());
        let began = std::time::Instant::now();
        let first = clock.now();
        assert_eq!(first.offset, None);
        let second = clock.now();
        assert_eq!(second.offset, None);
        assert!(
            began.elapsed() < Duration::from_secs(3),
            "{:?}",
            began.elapsed()
        );
        assert!(clock
            .reference_failure()
            .is_some_and(|why| why.contains("did not answer")));
        assert_eq!(clock.origin().source, JobTimeSource::OwnStart);
        clock.stop();
    }
}
