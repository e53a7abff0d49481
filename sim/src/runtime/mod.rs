//! The simulated rocprofiler-sdk runtime (test infrastructure).
//!
//! The cdylib exports the SDK's C entry points ([`exports`]); a tool loaded through
//! `ROCP_TOOL_LIBRARIES` talks to it exactly as to the real library. [`run_plan`] is the
//! in-process entry: it initializes the runtime (discovery, configure, initialize), replays a
//! [`Plan`] and returns what happened. Finalization runs at process exit (atexit) like the real
//! runtime, or explicitly through [`finalize`].

/// A `&'static [T]` table made of the table `$head` followed by `$tail`, built at compile time:
/// for tables that extend another (a later SDK release's kinds, an API's `…Async` variant with
/// one more argument), so each states only what it adds.
macro_rules! extend_table {
    ($ty:ty; $head:expr; $($tail:expr),* $(,)?) => {{
        const H: &[$ty] = $head;
        const T: &[$ty] = &[$($tail),*];
        const N: usize = H.len() + T.len();
        const OUT: [$ty; N] = {
            let mut out = [H[0]; N];
            let mut i = 0;
            while i < H.len() {
                out[i] = H[i];
                i += 1;
            }
            let mut j = 0;
            while j < T.len() {
                out[H.len() + j] = T[j];
                j += 1;
            }
            out
        };
        &OUT
    }};
}

pub mod abi;
mod agents;
mod attach;
mod buffer;
mod cli;
mod counting;
mod device_counting;
mod emit;
pub mod exports;
pub mod fixtures;
mod hip_event;
mod hipargs;
pub mod host_clock;
mod lifecycle;
pub mod personality;
mod replay;
mod state;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use buffer::BufferStats;
pub use lifecycle::parse_tool_libraries;
pub use personality::Personality;
pub use replay::ReplaySummary;

use crate::plan::Plan;

/// A tool the runtime discovered, as the ground truth reports it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClientReport {
    pub priority: u32,
    pub library: String,
    pub handle: u32,
    /// Name the tool wrote into its client id (read back at the personality's offset).
    pub name: Option<String>,
    /// False when `rocprofiler_configure` returned NULL (opt-out).
    pub configured: bool,
    pub initialized: bool,
}

/// Where the records went: what the runtime emitted per buffer-kind name, and per buffer.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DeliveryReport {
    pub personality: String,
    /// `[delivery] force_policy`: the policy every buffer was created with, whatever the tools
    /// asked for (`null` = the tools' own choice).
    pub forced_policy: Option<&'static str>,
    pub emitted_per_kind: BTreeMap<String, u64>,
    /// HIP calls a recording tool saw only through their callbacks (`emit::callback_only_calls`).
    pub hip_calls_by_callbacks: u64,
    /// roctx calls a recording tool saw only through their callbacks
    /// (`emit::roctx_callback_only_calls`).
    pub roctx_calls_by_callbacks: u64,
    pub buffers: Vec<BufferStats>,
    pub clients: Vec<ClientReport>,
    pub total_dropped: u64,
    pub total_lost_unflushed: u64,
}

/// Initializes the runtime (as the first `rocprofiler_set_api_table` would) for `personality`
/// and the plan's agents, replays the plan and returns once every record has been emitted
/// (delivery to the tool continues asynchronously). Fails if another personality is already
/// fixed in this process or the plan uses something the personality cannot express.
pub fn run_plan(plan: Plan, personality: Personality) -> Result<ReplaySummary, String> {
    run_plan_then(plan, personality, || {})
}

/// As [`run_plan`], calling `started` once the tools are loaded and initialized and the
/// replay is about to begin.
pub fn run_plan_then(
    plan: Plan,
    personality: Personality,
    started: impl FnOnce(),
) -> Result<ReplaySummary, String> {
    if !state::set_personality(personality) {
        return Err(format!(
            "this process already runs SDK personality {}",
            state::personality()
        ));
    }
    agents::install(&plan.gpus);
    exports::set_buffer_model(&plan.delivery);
    lifecycle::ensure_initialized();
    let replay = Arc::new(replay::Replay::new(plan)?);
    started();
    let summary = replay.run();
    if std::env::var_os(KEEP_REPLAY).is_some() {
        // The process exits after the tools' finalize: the replay's memory stays to the end.
        std::mem::forget(replay);
    }
    Ok(summary)
}

/// For memory benchmarks: the replay's memory (plan, schedule, queues) is kept until the
/// process exits, as by a program that holds its memory to the end, instead of being freed
/// before the tools' finalize runs at exit.
pub const KEEP_REPLAY: &str = "ROCPROF_SIM_KEEP_REPLAY";

/// For streaming benchmarks: the application threads do not run ahead of the simulated device
/// in simulated time (`replay::InStep`), as they cannot of a real GPU, which completes its
/// work whatever the host's CPU load; unset, the device thread may fall behind on a busy
/// machine.
pub const DEVICE_IN_STEP: &str = "ROCPROF_SIM_DEVICE_IN_STEP";

/// `hipLaunchKernel` of kernel 0 on `stream`, made now by the calling thread, as the replay
/// makes it (`replay::Live::launch`). The first call starts the runtime as a replay does:
/// personality from `ROCPROF_SIM_SDK` (default 1.0.0), one MI300X agent, the tools loaded and
/// initialized. Fails if the runtime cannot start (the reason is returned every time).
pub fn live_hip_launch(stream: u64) -> Result<(), String> {
    // One live runtime per process, reached from a C entry point that carries no handle.
    static LIVE: std::sync::OnceLock<Result<replay::Live, String>> = std::sync::OnceLock::new();
    let live = LIVE.get_or_init(|| {
        let plan = Plan {
            gpus: vec![fixtures::mi300x()],
            ..Plan::default()
        };
        // Fixed now (from ROCPROF_SIM_SDK), before the tools see the runtime.
        state::personality();
        agents::install(&plan.gpus);
        exports::set_buffer_model(&plan.delivery);
        lifecycle::ensure_initialized();
        replay::Live::new(plan)
    });
    match live {
        Ok(l) => {
            l.launch(0, stream);
            Ok(())
        }
        Err(e) => Err(e.clone()),
    }
}

/// Runs finalization now (normally done at exit): code-object unload, each tool's finalize,
/// delivery threads joined. No buffer is flushed automatically.
pub fn finalize() {
    lifecycle::finalize();
}

/// Current delivery statistics.
pub fn delivery_report() -> DeliveryReport {
    let reg = state::REGISTRY.lock();
    let buffers: Vec<BufferStats> = reg.buffers.iter().map(|b| b.stats()).collect();
    let clients = reg
        .clients
        .iter()
        .map(|c| ClientReport {
            priority: c.priority,
            library: c.library.clone(),
            handle: c.handle,
            name: c.name.clone(),
            configured: c.result.is_some(),
            initialized: c.initialized,
        })
        .collect();
    drop(reg);
    DeliveryReport {
        personality: state::personality().to_string(),
        forced_policy: exports::forced_policy().map(|p| p.name()),
        emitted_per_kind: emit::emitted_per_kind(),
        hip_calls_by_callbacks: emit::callback_only_calls(),
        roctx_calls_by_callbacks: emit::roctx_callback_only_calls(),
        total_dropped: buffers
            .iter()
            .map(|b| b.dropped + b.rejected_too_large)
            .sum(),
        total_lost_unflushed: buffers.iter().map(|b| b.lost_unflushed).sum(),
        buffers,
        clients,
    }
}

/// Registers `f` to run at the very end of finalization (after delivery threads are joined).
pub fn at_finalize_end(f: impl FnOnce() + Send + 'static) {
    lifecycle::after_finalize(Box::new(f));
}
