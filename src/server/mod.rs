//! The opt-in profiler service (`ROCPROF_XPLANE_SERVER=host:port`): the gRPC ProfilerService
//! that xprof's "Capture Profile", `trace()`, continuous profiling and snapshots call, so a
//! running job can be profiled on demand without a restart.
//!
//! Off unless the variable is set: then, and only then, one thread of ours runs a
//! current-thread tokio runtime with the tonic server (captures run on tokio's blocking pool,
//! also our threads). The profile travels back in the reply and the *client* writes it on its
//! own disk; this process never writes a path a client chose. An address that cannot be
//! listened on is reported once and the program goes on with nothing recorded and no profile
//! written, as for a `SERVER` value refused at start-up (`config::mode::NO_SERVICE`). Protocol
//! facts: `shared/reference/xprof-capture-protocol.md`; what we answer: docs/capture.md.

pub mod capture;
pub mod client_text;
pub mod door;
pub mod proto;
pub mod ring;
mod service;

pub use service::file_host;

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use capture::Captures;
use ring::FlightRecorder;

use crate::config::mode::NO_SERVICE;
use crate::config::Config;
use crate::control::Control;
use crate::job_clock::ProcessClock;
use crate::{log_error, log_info};

/// The running service: its thread, and what finalize stops.
pub struct Server {
    shutdown: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<()>,
    control: &'static Control,
    captures: Arc<Captures>,
    ring: Arc<FlightRecorder>,
}

/// The largest request message accepted: every request of the protocol is a few hundred
/// bytes; a larger one is refused (`OUT_OF_RANGE`) before it is decoded.
pub const MAX_REQUEST_BYTES: usize = 64 << 10;
/// The largest header list a request may carry.
const MAX_HEADER_BYTES: u32 = 16 << 10;
/// Requests one connection may have under way at once.
const MAX_STREAMS_PER_CONNECTION: u32 = 16;

/// Names of the service thread and of its capture threads (Linux keeps 15 bytes of a thread
/// name; tests look for them).
pub const THREAD_NAME: &str = "rocprof-xp-srv";

/// Starts the service when `ROCPROF_XPLANE_SERVER` is set; does nothing otherwise. Capture
/// stays paused (as `entry` started it) until a client asks for a window (or continuous
/// profiling runs).
pub fn start(
    control: &'static Control,
    cfg: &'static Config,
    clock: Arc<ProcessClock>,
) -> Option<Server> {
    let addr = cfg.server.clone()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let service = service::Service {
        control,
        cfg,
        captures: Arc::default(),
        ring: Arc::default(),
        snapshot_host: Default::default(),
        lines: client_text::LineBudget::for_service(),
    };
    let (captures, ring) = (Arc::clone(&service.captures), Arc::clone(&service.ring));
    let spawned = std::thread::Builder::new()
        .name(THREAD_NAME.into())
        .spawn(move || serve(service, &addr, clock, rx));
    match spawned {
        Ok(thread) => Some(Server {
            shutdown: tx,
            thread,
            control,
            captures,
            ring,
        }),
        Err(e) => {
            log_error!("cannot start the profiler service thread: {e}; {NO_SERVICE}");
            None
        }
    }
}

fn resolve(addr: &str) -> Result<SocketAddr, String> {
    addr.to_socket_addrs()
        .map_err(|e| format!("cannot resolve {addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("{addr} resolves to no address"))
}

/// The service thread: binds, serves until finalize, reports a failure once. Beside the gRPC
/// service, the clock exchange answers on the same port number over UDP (`job_clock`).
fn serve(
    service: service::Service,
    addr: &str,
    clock: Arc<ProcessClock>,
    shutdown: tokio::sync::oneshot::Receiver<()>,
) {
    let cfg = service.cfg;
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .thread_name("rocprof-xp-cap")
        // Captures wait for their window on the blocking pool; a handful at most.
        .max_blocking_threads(4)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            log_error!("profiler service: cannot create its runtime: {e}; {NO_SERVICE}");
            return;
        }
    };
    rt.block_on(async move {
        let sock = match resolve(addr) {
            Ok(a) => a,
            Err(e) => {
                log_error!("ROCPROF_XPLANE_SERVER: {e}; {NO_SERVICE} (the program runs on)");
                return;
            }
        };
        let listener = match tokio::net::TcpListener::bind(sock).await {
            Ok(l) => l,
            Err(e) => {
                log_error!(
                    "ROCPROF_XPLANE_SERVER: cannot listen on {sock}: {e}; {NO_SERVICE} (the program runs on)"
                );
                return;
            }
        };
        let bound = listener.local_addr().map_or(sock, |a| a);
        match tokio::net::UdpSocket::bind(bound).await {
            Ok(udp) => {
                tokio::spawn(answer_clock_requests(udp, clock));
            }
            Err(e) => log_error!(
                "ROCPROF_XPLANE_SERVER: the clock exchange cannot listen on {bound} (UDP): {e}; the job's other processes cannot take this one as their clock reference"
            ),
        }
        if cfg.log > crate::config::LogLevel::Off {
            crate::log::stderr_line(format_args!(
                "rocprof-xplane: profiler service on {bound} (pid {}): capture with xprof's Capture Profile at {bound}",
                std::process::id()
            ));
        }
        if cfg.continuous {
            if let Err(e) = start_continuous_from_env(&service) {
                log_error!("ROCPROF_XPLANE_CONTINUOUS: {e}");
            }
        }
        let svc = proto::profiler_service_server::ProfilerServiceServer::new(service)
            // A profile can be large; the client accepts up to 2 GiB.
            .max_encoding_message_size(usize::MAX)
            // Every request of the protocol is a few hundred bytes.
            .max_decoding_message_size(MAX_REQUEST_BYTES);
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        let counts = std::sync::Arc::new(door::DoorCounts::default());
        tokio::spawn(door::admit(listener, tx, Arc::clone(&counts)));
        let served = tonic::transport::Server::builder()
            .http2_max_header_list_size(MAX_HEADER_BYTES)
            .max_concurrent_streams(MAX_STREAMS_PER_CONNECTION)
            // A peer that stops answering is let go (its place freed).
            .http2_keepalive_interval(Some(Duration::from_secs(30)))
            .http2_keepalive_timeout(Some(Duration::from_secs(10)))
            .add_service(svc)
            .serve_with_incoming_shutdown(
                tokio_stream::wrappers::ReceiverStream::new(rx),
                async {
                    let _ = shutdown.await;
                },
            )
            .await;
        if let Err(e) = served {
            log_error!("profiler service stopped: {e}");
        }
        if let Some(d) = counts.describe() {
            log_info!("{d}");
        }
    });
    log_info!("profiler service stopped");
}

/// The clock exchange: each request answered with this process's wall clock and origin, read
/// as the reply leaves; anything else is passed over.
async fn answer_clock_requests(udp: tokio::net::UdpSocket, clock: Arc<ProcessClock>) {
    let mut buf = [0u8; 64];
    loop {
        let Ok((n, from)) = udp.recv_from(&mut buf).await else {
            // Never spin on a socket that keeps failing.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        if let Some(reply) = crate::job_clock::answer(&clock, &buf[..n]) {
            let _ = udp.send_to(&reply, from).await;
        }
    }
}

fn start_continuous_from_env(s: &service::Service) -> Result<(), String> {
    s.captures
        .acquire(capture::Owner::Continuous)
        .map_err(|e| e.to_string())?;
    s.ring
        .start(s.control, s.cfg.ring)
        .inspect_err(|_| s.captures.release())
}

impl Server {
    /// Finalize: ends a running capture or continuous session, stops the server and joins its
    /// thread (each bounded, so exit is never held up for long).
    pub fn stop(self) {
        if self.captures.continuous_running() {
            self.ring.stop(self.control);
            self.captures.release();
        }
        self.captures.shut_down(Duration::from_secs(5));
        let _ = self.shutdown.send(());
        // Graceful shutdown waits for open connections; a client that keeps its connection
        // open must not hold the program's exit: wait a little, then leave the thread to the
        // exit.
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while !self.thread.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if self.thread.is_finished() {
            let _ = self.thread.join();
        }
    }
}
