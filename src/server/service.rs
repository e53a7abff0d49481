//! The ProfilerService methods: protocol facts (fields, reply shapes, status codes) on one
//! side, `capture` and `ring` on the other. Captures run on tokio's blocking pool (our
//! threads), never on the runtime thread and never on an application thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tonic::{Request, Response, Status};

use super::capture::{self, CaptureError, CaptureRequest, Captures, Owner, Profile};
use super::client_text::{ClientText, LineBudget};
use super::proto::profiler_service_server::ProfilerService;
use super::proto::*;
use super::ring::FlightRecorder;
use crate::config::{Config, LogLevel};
use crate::control::Control;
use crate::store::sinks::lock;
use crate::xplane::proto::XSpace;
use crate::{log_info, log_warn};

/// The tool-data entry xprof's client writes as `<host>.xplane.pb` (protocol note §2, T).
const XPLANE_TOOL: &str = "xplane.pb";

pub struct Service {
    pub control: &'static Control,
    pub cfg: &'static Config,
    pub captures: Arc<Captures>,
    pub ring: Arc<FlightRecorder>,
    /// The file host of snapshots: `GetSnapshot` carries no address, and the client names the
    /// file after the address it called (protocol note §4.2), so the one the start request
    /// named (`host_name`, as the user typed it) is kept; else the connection's local address.
    pub snapshot_host: std::sync::Mutex<Option<String>>,
    /// The lines clients' requests cause on the program's stderr.
    pub lines: LineBudget,
}

/// Sets its flag when dropped: tonic drops a handler's future when the client goes away, and
/// the blocking capture it started must then end too.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The client's file host for `host_name` (`127.0.0.1:6009` → `127.0.0.1_6009`), as its
/// `SaveProfile` names the file.
pub fn file_host(host_name: &str) -> String {
    let h = if host_name.is_empty() {
        "rocprof-xplane"
    } else {
        host_name
    };
    h.replace(':', "_")
}

/// The capture length: `opts.duration_ms`, else the top-level field (protocol note §7).
fn duration_of(r: &ProfileRequest) -> Result<Duration, Status> {
    let ms = r
        .opts
        .as_ref()
        .map(|o| o.duration_ms)
        .filter(|&d| d > 0)
        .unwrap_or(r.duration_ms);
    if ms == 0 {
        return Err(Status::invalid_argument("duration_ms is 0"));
    }
    let d = Duration::from_millis(ms);
    if d > capture::MAX_DURATION {
        return Err(Status::invalid_argument(format!(
            "duration_ms {ms} is longer than the {} s one capture may take",
            capture::MAX_DURATION.as_secs()
        )));
    }
    Ok(d)
}

fn status_of(e: &CaptureError) -> Status {
    match e {
        CaptureError::Busy(_) => Status::already_exists(e.to_string()),
        CaptureError::ShuttingDown | CaptureError::NoSession => Status::unavailable(e.to_string()),
        CaptureError::StartTooFar(_) => Status::invalid_argument(e.to_string()),
        CaptureError::Cancelled => Status::cancelled(e.to_string()),
    }
}

/// A Profile reply: the XSpace as tool data (the field xprof's trace path reads), also in
/// `xspace` when the client asked for it; `empty_trace` when nothing was recorded.
fn profile_response(profile: Option<Profile>, emit_xspace: bool) -> ProfileResponse {
    match profile {
        None => ProfileResponse {
            empty_trace: true,
            ..ProfileResponse::default()
        },
        Some(profile) => ProfileResponse {
            xspace: emit_xspace.then(|| profile.xspace()),
            tool_data: vec![ProfileToolData {
                name: XPLANE_TOOL.to_string(),
                data: profile.into_bytes(),
            }],
            empty_trace: false,
        },
    }
}

/// A snapshot reply: the XSpace in `xspace` (the field the client's snapshot path writes).
fn snapshot_response(space: Option<XSpace>) -> ProfileResponse {
    ProfileResponse {
        empty_trace: space.is_none(),
        xspace: space,
        ..ProfileResponse::default()
    }
}

impl Service {
    async fn start_continuous(&self, r: ProfileRequest) -> Result<(), Status> {
        self.captures
            .acquire(Owner::Continuous)
            .map_err(|e| status_of(&e))?;
        let (control, rule, ring) = (self.control, self.cfg.ring, Arc::clone(&self.ring));
        let started = tokio::task::spawn_blocking(move || ring.start(control, rule))
            .await
            .map_err(|e| Status::internal(e.to_string()))?;
        if let Err(e) = started {
            self.captures.release();
            return Err(Status::internal(e));
        }
        *lock(&self.snapshot_host) = Some(file_host(&r.host_name));
        self.client_line(LogLevel::Info, format_args!("continuous profiling started"));
        Ok(())
    }

    async fn snapshot(&self, host: String) -> Result<Response<ProfileResponse>, Status> {
        if !self.captures.continuous_running() {
            return Err(Status::not_found("No continuous profiling session found."));
        }
        let (control, rule, ring) = (self.control, self.cfg.ring, Arc::clone(&self.ring));
        let taken = tokio::task::spawn_blocking(move || ring.snapshot(control, &rule, &host))
            .await
            .map_err(|e| Status::internal(e.to_string()))?;
        match taken {
            None => Err(Status::not_found("No continuous profiling session found.")),
            Some((space, facts)) => {
                self.client_line(
                    LogLevel::Info,
                    format_args!(
                        "snapshot: {} records from {} segments",
                        facts.records, facts.segments
                    ),
                );
                Ok(Response::new(snapshot_response(space)))
            }
        }
    }

    /// A line a client's request causes: written at `level` when that level is on and the
    /// budget lets it (client text in it goes through `ClientText`).
    fn client_line(&self, level: LogLevel, line: std::fmt::Arguments<'_>) {
        if level == LogLevel::Off || self.cfg.log < level {
            return;
        }
        let Some(l) = self.lines.pass(line) else {
            return;
        };
        match level {
            LogLevel::Warn | LogLevel::Error => log_warn!("{l}"),
            _ => log_info!("{l}"),
        }
    }

    fn snapshot_host<T>(&self, r: &Request<T>) -> String {
        lock(&self.snapshot_host)
            .clone()
            .filter(|h| h != &file_host(""))
            .or_else(|| r.local_addr().map(|a| file_host(&a.to_string())))
            .unwrap_or_else(|| file_host(""))
    }
}

#[tonic::async_trait]
impl ProfilerService for Service {
    async fn profile(
        &self,
        request: Request<ProfileRequest>,
    ) -> Result<Response<ProfileResponse>, Status> {
        let r = request.into_inner();
        let duration = duration_of(&r)?;
        let opts = r.opts.clone().unwrap_or_default();
        let req = CaptureRequest {
            start_unix_ns: opts.start_timestamp_ns,
            duration,
            session_id: r.session_id.clone(),
            file_host: file_host(&r.host_name),
            // The client leaves both at their defaults (2, 1) unless the user turned one off.
            device: opts.device_tracer_level > 0 || opts.version == 0,
            host: opts.host_tracer_level > 0 || opts.version == 0,
        };
        let terminate = Arc::new(AtomicBool::new(false));
        self.captures
            .acquire(Owner::Window {
                session_id: r.session_id.clone(),
                terminate: Arc::clone(&terminate),
            })
            .map_err(|e| status_of(&e))?;
        let cancelled = Arc::new(AtomicBool::new(false));
        let _cancel = CancelOnDrop(Arc::clone(&cancelled));
        let (control, captures) = (self.control, Arc::clone(&self.captures));
        let done = tokio::task::spawn_blocking(move || {
            let out = capture::run_window(control, &captures, &req, &terminate, &cancelled);
            captures.release();
            out
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?;
        match done {
            Ok(space) => Ok(Response::new(profile_response(space, r.emit_xspace))),
            Err(CaptureError::Cancelled) => Ok(Response::new(profile_response(None, false))),
            Err(e) => {
                self.client_line(
                    LogLevel::Warn,
                    format_args!("capture {}: {e}", ClientText(&r.session_id)),
                );
                Err(status_of(&e))
            }
        }
    }

    async fn terminate(
        &self,
        request: Request<TerminateRequest>,
    ) -> Result<Response<TerminateResponse>, Status> {
        self.captures.terminate(&request.into_inner().session_id);
        Ok(Response::new(TerminateResponse {}))
    }

    async fn monitor(
        &self,
        _request: Request<MonitorRequest>,
    ) -> Result<Response<MonitorResponse>, Status> {
        let state = if self.captures.continuous_running() {
            "continuous profiling"
        } else {
            "idle or capturing"
        };
        Ok(Response::new(MonitorResponse {
            data: format!(
                "rocprof-xplane profiler service, pid {}: {state}",
                std::process::id()
            ),
            monitor_result: None,
        }))
    }

    async fn start_continuous_profiling(
        &self,
        request: Request<ProfileRequest>,
    ) -> Result<Response<ContinuousProfilingResponse>, Status> {
        self.start_continuous(request.into_inner()).await?;
        Ok(Response::new(ContinuousProfilingResponse {}))
    }

    async fn stop_continuous_profiling(
        &self,
        _request: Request<StopContinuousProfilingRequest>,
    ) -> Result<Response<StopContinuousProfilingResponse>, Status> {
        if !self.captures.continuous_running() {
            return Err(Status::not_found("No continuous profiling session found."));
        }
        let (control, captures, ring) = (
            self.control,
            Arc::clone(&self.captures),
            Arc::clone(&self.ring),
        );
        tokio::task::spawn_blocking(move || {
            ring.stop(control);
            captures.release();
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?;
        self.client_line(LogLevel::Info, format_args!("continuous profiling stopped"));
        Ok(Response::new(StopContinuousProfilingResponse {}))
    }

    async fn get_snapshot(
        &self,
        request: Request<GetSnapshotRequest>,
    ) -> Result<Response<ProfileResponse>, Status> {
        let host = self.snapshot_host(&request);
        self.snapshot(host).await
    }

    async fn continuous_profiling(
        &self,
        request: Request<ProfileRequest>,
    ) -> Result<Response<ContinuousProfilingResponse>, Status> {
        self.start_continuous(request.into_inner()).await?;
        Ok(Response::new(ContinuousProfilingResponse {}))
    }

    async fn get_snap_shot(
        &self,
        request: Request<GetSnapshotRequest>,
    ) -> Result<Response<ProfileResponse>, Status> {
        let host = self.snapshot_host(&request);
        self.snapshot(host).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_host_is_the_address_the_client_typed() {
        assert_eq!(file_host("127.0.0.1:6009"), "127.0.0.1_6009");
        assert_eq!(file_host("localhost:1"), "localhost_1");
        assert_eq!(file_host(""), "rocprof-xplane");
    }

    #[test]
    fn opts_duration_wins_over_the_top_level_field() {
        let mut r = ProfileRequest {
            duration_ms: 2000,
            ..Default::default()
        };
        assert_eq!(duration_of(&r).unwrap(), Duration::from_millis(2000));
        r.opts = Some(ProfileOptions {
            duration_ms: 1500,
            ..Default::default()
        });
        assert_eq!(duration_of(&r).unwrap(), Duration::from_millis(1500));
        r.opts = None;
        r.duration_ms = 0;
        assert_eq!(
            duration_of(&r).unwrap_err().code(),
            tonic::Code::InvalidArgument
        );
        r.duration_ms = 10_000_000;
        assert_eq!(
            duration_of(&r).unwrap_err().code(),
            tonic::Code::InvalidArgument
        );
    }

    #[test]
    fn an_empty_window_says_empty_trace_and_a_full_one_carries_xplane_pb() {
        let empty = profile_response(None, true);
        assert!(empty.empty_trace && empty.tool_data.is_empty() && empty.xspace.is_none());
        use prost::Message;
        let space = XSpace {
            hostnames: vec!["h".into()],
            ..Default::default()
        };
        let profile = Profile::from(&space);
        let full = profile_response(Some(profile.clone()), false);
        assert!(!full.empty_trace);
        assert_eq!(full.tool_data.len(), 1);
        assert_eq!(full.tool_data[0].name, "xplane.pb");
        assert_eq!(XSpace::decode(&full.tool_data[0].data[..]).unwrap(), space);
        assert!(
            full.xspace.is_none(),
            "xspace only when asked (emit_xspace)"
        );
        assert_eq!(
            profile_response(Some(profile.clone()), true).xspace,
            Some(space.clone())
        );
        let snap = snapshot_response(None);
        assert!(snap.empty_trace);
        assert_eq!(snapshot_response(Some(space.clone())).xspace, Some(space));
    }
}
