//! What debug lines report about the library's own work: the process's memory, and the time its
//! helper threads (the join's second pass, the writer's device planes) worked.
//!
//! Helper time is counted only after `enable_helper_timing` (the tool turns it on with its
//! debug log): a run's finalize time is the wall time of the thread that runs it, so the
//! helpers' work would otherwise be left out of the tool's cost. Nothing the library writes
//! depends on these two counters (the crate's other mutable statics: the `heap-stats` build's
//! counting allocator, and the count that keeps temporary file names apart, `xplane::spill`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

static HELPER_TIMING: AtomicBool = AtomicBool::new(false);
static HELPER_NS: AtomicU64 = AtomicU64::new(0);

/// Turns the helper threads' timing on.
pub fn enable_helper_timing() {
    HELPER_TIMING.store(true, Ordering::Relaxed);
}

/// The start of a helper thread's work, when timing is on.
pub fn helper_start() -> Option<Instant> {
    HELPER_TIMING.load(Ordering::Relaxed).then(Instant::now)
}

/// The end of a helper thread's work, when timing is on.
pub fn helper_done(t: Option<Instant>) {
    if let Some(t) = t {
        HELPER_NS.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
}

/// ns the helper threads worked so far.
pub fn helper_ns() -> u64 {
    HELPER_NS.load(Ordering::Relaxed)
}

/// Whether debug lines are wanted (the subscriber's level).
pub fn debug_enabled() -> bool {
    tracing::enabled!(tracing::Level::DEBUG)
}

/// This process's resident memory and its peak (`VmRSS`, `VmHWM`), kB, from
/// `/proc/self/status`, for debug lines.
pub fn process_memory_kb() -> (Option<u64>, Option<u64>) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |name: &str| -> Option<u64> {
        let v = status.lines().find_map(|l| l.strip_prefix(name))?;
        v.trim().trim_end_matches("kB").trim().parse().ok()
    };
    (kb("VmRSS:"), kb("VmHWM:"))
}

/// Bytes between this process's resident memory and its peak so far (0 when unknown): what
/// extra threads may hold without raising a peak that a memory limit has already let through.
pub fn peak_headroom_bytes() -> u64 {
    match process_memory_kb() {
        (Some(rss), Some(peak)) => peak.saturating_sub(rss).saturating_mul(1024),
        _ => 0,
    }
}
