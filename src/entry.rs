//! Tool lifecycle: `rocprofiler_configure` → `initialize` → … → `finalize`, and attach/detach.
//!
//! The C edges themselves are in `lib.rs`; each runs inside `ffi_guard` and calls the safe
//! functions here with the [`Tool`] the runtime hands back as user data. Nothing is fatal to
//! the profiled program: a failure at any step is reported on stderr and the tool steps aside.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Instant;

use crate::config::{self, LogLevel, Off, RunMode};
use crate::control::Control;
use crate::sdk::tool::Registration;
use crate::sdk::{Abi, Context, Session, Tracer};
use crate::store::sinks::lock;
use crate::{log_debug, log_error, log_info, log_warn};

/// What `rocprofiler_configure` learned about the runtime.
#[derive(Debug, Clone)]
pub struct Configured {
    pub version: u32,
    pub abi: Abi,
    pub runtime_version: String,
    pub priority: u32,
}

/// The tool in this process: created by `rocprofiler_configure`, reached by every later C
/// edge through its user data.
pub struct Tool {
    pub configured: Configured,
    /// What the callbacks record into.
    pub tracer: Tracer,
    /// What `rocprofiler_configure` and `…_attach` return (set once, right after the tool).
    pub registration: OnceLock<Registration>,
    /// The coordinator's handle, from `initialize` on.
    control: OnceLock<Control>,
    /// The profiler service, when `ROCPROF_XPLANE_SERVER` runs it.
    server: Mutex<Option<crate::server::Server>>,
    /// The job clock's side of this process (also the session's), from `initialize` on: its
    /// clock reference thread is told to stop at finalize.
    clock: OnceLock<std::sync::Arc<crate::job_clock::ProcessClock>>,
    /// Finalize has begun (by the runtime, or by a terminating signal).
    finalize_begun: AtomicBool,
    /// Finalize has ended (written, failed or skipped).
    finalized: (Mutex<bool>, Condvar),
}

/// The one tool of this process. A global because two C entry points reach it without user
/// data: `rocprofiler_configure_attach` (is there a configured tool?) and the `fork` child
/// handler (mark it forked).
static TOOL: OnceLock<Tool> = OnceLock::new();

/// Body of the exported `rocprofiler_configure`: the tool, unless it declines to trace (then
/// the runtime gets a null result).
pub fn configure(version: u32, runtime_version: String, priority: u32) -> Option<&'static Tool> {
    let cfg = config::get();
    match cfg.mode {
        RunMode::Off(Off::Disabled) => {
            log_info!("disabled by ROCPROF_XPLANE_DISABLE; not tracing");
            return None;
        }
        RunMode::Off(Off::NoDomains) => {
            log_warn!("ROCPROF_XPLANE_DOMAINS selects nothing; not tracing");
            return None;
        }
        // The configuration's warning line has said why.
        RunMode::Off(Off::ServiceUnusable) => {
            log_info!("no usable ROCPROF_XPLANE_SERVER; not tracing");
            return None;
        }
        _ => {}
    }
    let abi = Abi::from_version(version);
    let tool = Tool {
        configured: Configured {
            version,
            abi,
            runtime_version,
            priority,
        },
        tracer: Tracer::default(),
        registration: OnceLock::new(),
        control: OnceLock::new(),
        server: Mutex::new(None),
        clock: OnceLock::new(),
        finalize_begun: AtomicBool::new(false),
        finalized: (Mutex::new(false), Condvar::new()),
    };
    if TOOL.set(tool).is_err() {
        log_warn!("rocprofiler_configure called twice; the second registration is declined");
        return None;
    }
    if priority > 0 {
        log_info!("loaded as tool #{priority} beside another rocprofiler-sdk tool; tracing anyway");
    }
    log_info!("configured for rocprofiler-sdk {version} ({abi:?} layouts)");
    TOOL.get()
}

/// The configured tool, for `rocprofiler_configure_attach` (declined when configure declined).
pub fn configured() -> Option<&'static Tool> {
    TOOL.get()
}

/// The `fork` child handler: the child is not profiled (`recorder::Gate`), and its large
/// blocks bypass the shared free list (`heap::pool`). Async-signal-safe: atomic stores, an
/// atomic load and an atomic or.
extern "C" fn forked_child() {
    if let Some(heap) = crate::tool_heap() {
        heap.forked();
    }
    if let Some(tool) = TOOL.get() {
        tool.tracer.recorder.mark_forked();
    }
}

/// Body of `initialize`: sets tracing up and starts it; false when the tool steps aside.
pub fn initialize(tool: &'static Tool) -> bool {
    if let Err(e) = crate::sdk::os::on_fork_child(forked_child) {
        log_warn!("pthread_atfork failed ({e}): a forked child would try to write a profile");
    }
    let cfg = config::get();
    let recorder = &tool.tracer.recorder;
    recorder.budget().set_limit(cfg.max_memory);
    // At debug level the edges time themselves (two time-stamp counter reads per callback), for the
    // finalize line that gives the tool's whole cost per record.
    if crate::config::log_enabled(LogLevel::Debug) {
        recorder.time_callbacks();
    }
    // A delayed capture, or the profiler service (which records only when asked), starts with
    // capture paused and the buffers stopped.
    let deferred = cfg.start_delay_ms.is_some() || cfg.server.is_some();
    recorder.set_paused(deferred);
    let c = &tool.configured;
    let session = match Session::create(&tool.tracer, c.abi, &c.runtime_version, cfg) {
        Ok(s) => s,
        Err(e) => {
            log_error!("cannot set up tracing: {e}");
            return false;
        }
    };
    // Before the contexts start, so the first call that needs the runtime's stream brackets
    // asks for them (the coordinator starts them).
    if session.brackets_pending() {
        recorder.capture().streams().brackets().ready();
    }
    if let Err(e) = session.start(deferred) {
        log_error!("cannot start tracing: {e}");
        return false;
    }
    let agents = session.agents.len();
    let clock = std::sync::Arc::clone(&session.clock);
    if tool
        .control
        .set(Control::start(recorder, session, cfg))
        .is_err()
    {
        log_error!("initialize called twice; the second is ignored");
        return false;
    }
    let control = tool.control.get().expect("just set");
    *lock(&tool.server) = crate::server::start(control, cfg, std::sync::Arc::clone(&clock));
    let _ = tool.clock.set(clock);
    let finalize = Box::new(move |deadline| finalize(tool, deadline));
    crate::control::signal::start(cfg, control, control.windows_on(), finalize);
    log_info!(
        "tracing {}: {agents} agents, buffers of {} bytes",
        cfg.domains,
        cfg.buffer_size
    );
    true
}

/// Body of `tool_attach`: the contexts the SDK hands over are started; false when the tool
/// does not trace (a forked child, after finalize, before initialize).
pub fn attach(tool: &'static Tool, contexts: Vec<Context>) -> bool {
    if tool.tracer.recorder.gate().forked() || tool.finalize_begun.load(Ordering::SeqCst) {
        return false;
    }
    let Some(control) = tool.control.get() else {
        log_error!("attach before initialize; not tracing");
        return false;
    };
    control.attach(contexts);
    true
}

/// Body of `tool_detach`: returns once the attach session's profile is written.
pub fn detach(tool: &'static Tool) {
    if tool.tracer.recorder.gate().forked() || tool.finalize_begun.load(Ordering::SeqCst) {
        return;
    }
    if let Some(control) = tool.control.get() {
        control.detach();
    }
}

/// Writes the last profile once: from the runtime's finalize at exit, or from a terminating
/// signal that ends the program first. The first caller does it; a later one waits for it
/// until `deadline`. Returns whether it has ended.
pub fn finalize(tool: &'static Tool, deadline: Instant) -> bool {
    if tool.finalize_begun.swap(true, Ordering::SeqCst) {
        return wait_finalized(tool, deadline);
    }
    if tool.tracer.recorder.gate().forked() {
        log_debug!("forked child: not profiled; the parent writes the profile");
    } else if let Some(control) = tool.control.get() {
        // A service capture in progress ends first: it asks the coordinator for its records,
        // so the service stops before the coordinator's last cut.
        if let Some(server) = lock(&tool.server).take() {
            server.stop();
        }
        control.finalize();
    }
    if let Some(clock) = tool.clock.get() {
        clock.stop();
    }
    let (done, ended) = &tool.finalized;
    *lock(done) = true;
    ended.notify_all();
    true
}

/// Whether the finalize begun by another caller has ended, waiting for it until `deadline`.
fn wait_finalized(tool: &Tool, deadline: Instant) -> bool {
    let (done, ended) = &tool.finalized;
    let mut d = lock(done);
    while !*d {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        d = ended
            .wait_timeout(d, left)
            .map(|(g, _)| g)
            .unwrap_or_else(|e| e.into_inner().0);
    }
    true
}
