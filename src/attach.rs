//! Process attachment (SDK 1.2.0+, feature-detected by the runtime looking up
//! `rocprofiler_configure_attach`): `rocprof-attach -p PID -t librocprof_xplane.so -d MS`
//! loads the tool into a running process (started with `ROCP_TOOL_ATTACH=1`), and detaches it
//! again later, possibly several times.
//!
//! Each attach..detach session is one capture: `tool_attach` starts our contexts (the SDK
//! starts none), `tool_detach` flushes our buffers (the SDK flushes none) and writes the
//! session's profile — the first into the run directory itself, later ones into
//! `<run>_attachNN` — so a profile exists as soon as the detach returns, long before the
//! process exits. Kernels keep their names although their code objects loaded before the
//! attach: the SDK's attach path reports the code objects that already exist.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use rocprofiler_sdk_sys as sys;

use crate::collect::{collect, Cut};
use crate::config::Config;
use crate::model::join::join;
use crate::sdk::session::Session;
use crate::{log_error, log_info};

/// Attach sessions begun in this process.
static SESSIONS: AtomicU32 = AtomicU32::new(0);
/// Between a `tool_attach` and its `tool_detach`.
static ATTACHED: AtomicBool = AtomicBool::new(false);

/// The run directory of attach session `n` (1-based).
pub fn run_name_of(cfg: &Config, n: u32) -> String {
    if n <= 1 {
        cfg.run_name.clone()
    } else {
        format!("{}_attach{n:02}", cfg.run_name)
    }
}

/// Whether this process was attached at least once (then only attach sessions make profiles).
pub fn used() -> bool {
    SESSIONS.load(Ordering::Relaxed) > 0
}

/// Whether an attach session is under way (attached and not detached).
pub fn attached() -> bool {
    ATTACHED.load(Ordering::Relaxed)
}

/// The run name of the attach session under way, if any: a process that ends while attached
/// writes that session at finalize.
pub fn current_session_run(cfg: &Config) -> Option<String> {
    attached().then(|| run_name_of(cfg, SESSIONS.load(Ordering::Relaxed)))
}

/// `tool_attach`: starts the contexts the SDK hands over; a reattach first drops what the
/// callbacks kept while detached.
pub fn on_attach(s: &Session, contexts: &[sys::rocprofiler_context_id_t]) {
    let n = SESSIONS.fetch_add(1, Ordering::Relaxed) + 1;
    if n > 1 {
        let _ = collect(s, s.flush_and_take(), Cut::Window);
    }
    let started = s.start_inactive(contexts);
    crate::window::set_paused(false);
    ATTACHED.store(true, Ordering::Relaxed);
    log_info!(
        "attached (session {n}): {} contexts handed over, {started} started",
        contexts.len()
    );
}

/// Held while a detach writes its session: finalize waits for it ([`wait_for_detach`]), so a
/// process that exits during a detach still gets the session's file.
static DETACHING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Returns once no detach is writing (finalize calls this first).
pub fn wait_for_detach() {
    drop(crate::store::sinks::lock(&DETACHING));
}

/// `tool_detach`: the SDK has stopped our contexts and drained in-flight work; flush our
/// buffers and write this session's profile.
pub fn on_detach(s: &Session, cfg: &Config) {
    let _writing = crate::store::sinks::lock(&DETACHING);
    if !ATTACHED.swap(false, Ordering::Relaxed) {
        return;
    }
    let n = SESSIONS.load(Ordering::Relaxed);
    // The SDK has stopped our contexts; HIP calls that began before still write their records
    // when they return: wait for them, so they are in this session and not left behind.
    crate::capture::inflight::settle_before_flush("the detach");
    // Our callbacks may stop with the detach: a call whose EXIT never comes is not waited for
    // again.
    crate::capture::inflight::forget_open_calls();
    let c = collect(s, s.flush_and_take(), Cut::Window);
    crate::window::set_paused(true);
    let trace = join(c);
    let run = run_name_of(cfg, n);
    match crate::output::write_trace_as(&trace, cfg, &run) {
        Ok(path) => crate::output::report_written("attach session: ", &path, &trace, cfg),
        Err(e) => log_error!("cannot write the profile of attach session {n}: {e}"),
    }
}
