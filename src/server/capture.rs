//! On-demand captures for the profiler service: one capture window at a time (like the
//! reference server's process-wide profiler lock), waited for on the service's own threads and
//! cut by the coordinator (`Control::record`, `stop`, `snapshot`), answered as an XSpace's bytes
//! in memory (the client writes the file on its own disk).
//!
//! While no capture runs the tool is paused exactly as before a `START_DELAY`: our buffer
//! context is stopped (the runtime records nothing for us) and the callbacks only keep their
//! per-thread state (roctx stacks, streams), so an idle service costs the program almost
//! nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::client_text::ClientText;
use crate::control::Control;
use crate::model::events::Collected;
use crate::model::join::join_on;
use crate::xplane::proto::XSpace;
use crate::{log_debug, log_info};

/// How often a waiting capture looks at its clock and its cancel flags.
const POLL: Duration = Duration::from_millis(5);
/// A start time further ahead than this is refused (a client clock far off, not a plan).
const MAX_START_AHEAD: Duration = Duration::from_secs(600);
/// The longest capture one request may ask for.
pub const MAX_DURATION: Duration = Duration::from_secs(3600);

/// What one `Profile` asks for, already validated.
#[derive(Debug, Clone)]
pub struct CaptureRequest {
    /// UNIX ns on the client's clock; 0 = now.
    pub start_unix_ns: u64,
    pub duration: Duration,
    /// The client's run directory name (a `Terminate` names it).
    pub session_id: String,
    /// The file's host part on the client's side (`<addr with ':' → '_'>`): `XSpace.hostnames`
    /// must be a substring of it.
    pub file_host: String,
    /// `device_tracer_level` > 0: kernels and copies.
    pub device: bool,
    /// `host_tracer_level` > 0: HIP API calls and roctx markers.
    pub host: bool,
}

/// Why a capture gave no profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureError {
    /// Another capture or a continuous session owns the tool.
    Busy(&'static str),
    /// The process is finalizing.
    ShuttingDown,
    /// The start time lies too far ahead.
    StartTooFar(Duration),
    /// The tool is not tracing in this process (configure or initialize declined).
    NoSession,
    /// Ended by the client (gone, or `Terminate`) before it started.
    Cancelled,
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaptureError::Busy(what) => write!(f, "{what} is already running"),
            CaptureError::ShuttingDown => f.write_str("the process is shutting down"),
            CaptureError::StartTooFar(d) => write!(
                f,
                "the requested start time is {:.0} s ahead (more than {} s); check the clocks",
                d.as_secs_f64(),
                MAX_START_AHEAD.as_secs()
            ),
            CaptureError::NoSession => f.write_str("rocprof-xplane is not tracing this process"),
            CaptureError::Cancelled => f.write_str("ended before it started"),
        }
    }
}

/// Who owns the tool's capture state.
#[derive(Debug, Clone, Default)]
pub enum Owner {
    #[default]
    Idle,
    /// A `Profile` window; its flag ends it early (`Terminate`).
    Window {
        session_id: String,
        terminate: Arc<AtomicBool>,
    },
    /// A continuous (flight-recorder) session.
    Continuous,
}

/// Who owns the tool's capture state, and whether the process is finalizing.
#[derive(Default)]
pub struct Captures {
    owner: Mutex<Owner>,
    idle: Condvar,
    /// Set at finalize: captures end at once, new ones are refused.
    shutdown: AtomicBool,
}

impl Captures {
    fn owner(&self) -> std::sync::MutexGuard<'_, Owner> {
        crate::store::sinks::lock(&self.owner)
    }

    /// Takes the tool for `next`, or says who has it.
    pub fn acquire(&self, next: Owner) -> Result<(), CaptureError> {
        if self.shutting_down() {
            return Err(CaptureError::ShuttingDown);
        }
        let mut o = self.owner();
        match &*o {
            Owner::Idle => {
                *o = next;
                Ok(())
            }
            Owner::Window { .. } => Err(CaptureError::Busy("a capture")),
            Owner::Continuous => Err(CaptureError::Busy("a continuous profiling session")),
        }
    }

    /// Gives the tool back.
    pub fn release(&self) {
        *self.owner() = Owner::Idle;
        self.idle.notify_all();
    }

    /// Whether a continuous session owns the tool.
    pub fn continuous_running(&self) -> bool {
        matches!(*self.owner(), Owner::Continuous)
    }

    /// `Terminate`: ends the running capture of `session_id` (any capture when empty) early.
    /// Returns whether one was running.
    pub fn terminate(&self, session_id: &str) -> bool {
        match &*self.owner() {
            Owner::Window {
                session_id: s,
                terminate,
            } if session_id.is_empty() || s == session_id => {
                terminate.store(true, Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }

    /// Finalize: ends whatever runs and waits (bounded) until it has let go, so the final
    /// drain never races a capture's drain.
    pub fn shut_down(&self, wait: Duration) {
        self.shutdown.store(true, Ordering::Relaxed);
        let deadline = Instant::now() + wait;
        let mut o = self.owner();
        while !matches!(*o, Owner::Idle) {
            if let Owner::Window { terminate, .. } = &*o {
                terminate.store(true, Ordering::Relaxed);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                crate::log_warn!("a capture still runs at exit; not waited for");
                return;
            }
            o = self
                .idle
                .wait_timeout(o, left.min(Duration::from_millis(50)))
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }

    pub fn shutting_down(&self) -> bool {
        self.shutdown.load(Ordering::Relaxed)
    }
}

fn unix_now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Sleeps until `until` (or at once when it has passed); false when `stop` said stop first.
fn sleep_until(until: Instant, stop: &dyn Fn() -> bool) -> bool {
    loop {
        if stop() {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(POLL));
    }
}

/// A profile for a client: the XSpace's bytes, as the file the client writes holds them.
/// Built straight to bytes (the planes side by side, as the file writer builds them), not as
/// messages: an XSpace's messages take several times its bytes, and would be held beside them
/// while the reply is encoded, in a program that is still running.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile(Vec<u8>);

impl Profile {
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    /// The XSpace as a message, for a reply that carries one too (`emit_xspace`).
    pub fn xspace(&self) -> XSpace {
        use prost::Message;
        // Our own encoding: decoding cannot fail short of a prost bug.
        XSpace::decode(self.0.as_slice()).unwrap_or_else(|e| {
            crate::log_error!("the profile could not be read back: {e}");
            XSpace::default()
        })
    }
}

#[cfg(test)]
impl From<&XSpace> for Profile {
    fn from(space: &XSpace) -> Self {
        use prost::Message;
        Profile(space.encode_to_vec())
    }
}

/// Joins `c` and builds its profile for a client that names the file `<file_host>.xplane.pb`;
/// `None` when nothing was recorded (the protocol's "empty trace").
pub fn profile_of(c: Collected, file_host: &str) -> Option<Profile> {
    let trace = joined(c)?;
    let threads = crate::output::plane_threads(&trace, crate::config::get());
    Some(profile_of_trace(&trace, file_host, threads))
}

/// As [`profile_of`], as a message: a snapshot's reply carries the XSpace in a message field,
/// so its messages are built directly (the bytes would be held beside them while decoded).
pub fn xspace_of(c: Collected, file_host: &str) -> Option<XSpace> {
    let mut space = crate::xplane::build_xspace(&joined(c)?);
    space.hostnames = vec![file_host.to_string()];
    Some(space)
}

/// The joined trace of `c`; `None` when nothing was recorded.
fn joined(c: Collected) -> Option<crate::model::Trace> {
    (c.has_records() || !c.markers.is_empty()).then(|| {
        let threads = crate::output::join_threads(crate::config::get(), &c);
        join_on(c, threads)
    })
}

/// A plane entry's key and length, at most.
const ENTRY_HEAD: usize = 1 + 10;

/// The profile of a joined trace, its planes built on `threads` threads.
pub fn profile_of_trace(trace: &crate::model::Trace, file_host: &str, threads: usize) -> Profile {
    use prost::Message;
    let mut bytes = Vec::new();
    // Each plane's room exactly, not a doubling: the reply is held whole, in a running program.
    let built = crate::xplane::build_planes_spilling(trace, None, threads, |plane| {
        bytes.reserve_exact(plane.encoded_len() + ENTRY_HEAD);
        plane.write_entry(&mut bytes)
    });
    // Writing into a Vec cannot fail: the error case is only the type's.
    let mut rest = built.unwrap_or_else(|e| {
        crate::log_error!("the profile could not be built: {e}");
        Default::default()
    });
    // xprof needs `hostnames[0]` to be a substring of the file's host name, which the client
    // picks (its address with ':' → '_'); the same in `xspace_of`.
    rest.hostnames = vec![file_host.to_string()];
    bytes.reserve_exact(rest.encoded_len());
    // Into a Vec, which grows as needed: cannot fail.
    let _ = rest.encode(&mut bytes);
    Profile(bytes)
}

/// One capture window: waits for the start time, records for the duration (or until
/// `cancelled`, a `Terminate` or finalize), and returns the profile (`None`: nothing happened).
/// Runs on a service thread; the caller must have acquired the tool as `Owner::Window` with
/// `terminate`.
pub fn run_window(
    control: &Control,
    captures: &Captures,
    req: &CaptureRequest,
    terminate: &AtomicBool,
    cancelled: &AtomicBool,
) -> Result<Option<Profile>, CaptureError> {
    let stop = || {
        terminate.load(Ordering::Relaxed)
            || cancelled.load(Ordering::Relaxed)
            || captures.shutting_down()
    };
    let now_ns = unix_now_ns();
    if req.start_unix_ns > now_ns {
        let ahead = Duration::from_nanos(req.start_unix_ns - now_ns);
        if ahead > MAX_START_AHEAD {
            return Err(CaptureError::StartTooFar(ahead));
        }
        log_debug!(
            "capture {}: starting in {ahead:?}",
            ClientText(&req.session_id)
        );
        if !sleep_until(Instant::now() + ahead, &stop) {
            return Err(if captures.shutting_down() {
                CaptureError::ShuttingDown
            } else {
                CaptureError::Cancelled
            });
        }
    }
    // Drops what the callbacks kept while paused and starts recording: the end holds exactly
    // what happened from here on.
    control.record();
    let t0 = Instant::now();
    sleep_until(t0 + req.duration, &stop);
    let mut c = control.stop();
    // The hosts of one capture were sent one start time: without a job origin shared by the
    // job, its origin is theirs.
    c.clock.origin = c
        .clock
        .origin
        .map(|o| o.for_capture(req.start_unix_ns, c.start_walltime_ns));
    log_info!(
        "capture {}: {:.0} ms, {} kernels, {} copies, {} API calls",
        ClientText(&req.session_id),
        t0.elapsed().as_secs_f64() * 1e3,
        c.kernels.len(),
        c.copies.len(),
        c.api_record_count()
    );
    if !req.device {
        c.kernels.clear();
        c.copies.clear();
        c.hip_events.clear();
    }
    if !req.host {
        c.api.clear();
        c.marker_records.clear();
        c.markers.clear();
    }
    Ok(profile_of(c, &req.file_host))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::events::MarkerSpan;

    /// The reply's bytes are the XSpace the file writer's planes make, with the client's host
    /// name, hostile labels included (empty, non-ASCII, 10 KB); nothing recorded is no profile.
    #[test]
    fn a_profile_is_the_xspace_of_what_was_recorded_as_bytes() {
        assert!(profile_of(Collected::default(), "h").is_none());
        let labels = [String::new(), "é日本🚀\u{200b}\n".into(), "ü".repeat(5_000)];
        let collected = Collected {
            markers: (1..=3u64)
                .map(|i| MarkerSpan {
                    label: labels[i as usize - 1].as_str().into(),
                    thread_id: 7,
                    start_ns: 1_000 * i,
                    end_ns: 1_000 * i + 500,
                    scope_id: i as i64,
                    ..MarkerSpan::default()
                })
                .collect(),
            ..Collected::default()
        };
        let mut want = crate::xplane::build_xspace(&crate::model::join::join(collected.clone()));
        want.hostnames = vec!["client_9012".into()];
        let names: Vec<&str> = want.planes[0]
            .event_metadata
            .values()
            .map(|m| m.name.as_str())
            .collect();
        for l in &labels {
            assert!(names.contains(&l.as_str()), "{l:.40} missing");
        }
        assert_eq!(xspace_of(collected.clone(), "client_9012").unwrap(), want);
        assert!(xspace_of(Collected::default(), "h").is_none());
        let profile = profile_of(collected, "client_9012").unwrap();
        assert!(!want.planes.is_empty());
        assert_eq!(profile.xspace(), want);
        use prost::Message;
        assert_eq!(profile.into_bytes(), want.encode_to_vec());
    }
}
