//! What debug lines report about the library's own work: the process's memory, the time its
//! helper threads (the join's second pass, the writer's device planes) worked, and the CPU
//! time of a thread with the helpers it started (a window cut's stages).
//!
//! Helper time is counted only after `enable_helper_timing` (the tool turns it on with its
//! debug log): a run's finalize time is the wall time of the thread that runs it, so the
//! helpers' work would otherwise be left out of the tool's cost. Helper CPU is added to a
//! thread-local of the thread that started the helper, when the helper is done. Nothing the
//! library writes depends on these counters (the crate's other mutable statics: the
//! `heap-stats` build's counting allocator, and the count that keeps temporary file names
//! apart, `xplane::spill`).

use std::cell::Cell;
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

/// The CPU time this thread has used, ns (`CLOCK_THREAD_CPUTIME_ID`; 0 where it cannot be
/// read). A system call, not a vDSO read: for stages, never per record.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through the valid pointer we pass.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return 0;
    }
    u64::try_from(ts.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(ts.tv_nsec).unwrap_or(0)
}

thread_local! {
    /// CPU ns the helper threads this thread started have used (`util::threads::side_by_side`,
    /// the writer's plane threads), added when each helper is done.
    static HELPERS_CPU_NS: Cell<u64> = const { Cell::new(0) };
}

/// The CPU time this thread and the helper threads it started have used, ns: a stage's CPU
/// is the difference of two readings on the thread that ran it.
pub fn cpu_with_helpers_ns() -> u64 {
    thread_cpu_ns() + helpers_cpu_ns()
}

/// The CPU time the helper threads this thread started have used, ns.
pub fn helpers_cpu_ns() -> u64 {
    HELPERS_CPU_NS.with(Cell::get)
}

/// Counts `ns` of a helper's CPU time as this thread's (the thread that started the helper).
/// A helper hands back its `cpu_with_helpers_ns`, so helpers a helper started count too.
pub fn add_helper_cpu(ns: u64) {
    HELPERS_CPU_NS.with(|c| c.set(c.get() + ns));
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

/// The minor page faults this process has taken so far (`/proc/self/stat`), for debug lines:
/// a page touched for the first time is one, so where a stage's count grows beyond what its
/// peak adds, it took fresh pages where memory freed before it could have served.
pub fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    minflt_of_stat(&stat)
}

/// `minflt` of a `/proc/PID/stat` line: the 10th field, the 8th after the command, which is
/// in parentheses and may hold spaces and parentheses itself.
fn minflt_of_stat(stat: &str) -> Option<u64> {
    let after_comm = &stat[stat.rfind(')')? + 1..];
    after_comm.split_whitespace().nth(7)?.parse().ok()
}

/// Bytes between this process's resident memory and its peak so far (0 when unknown): what
/// extra threads may hold without raising a peak that a memory limit has already let through.
pub fn peak_headroom_bytes() -> u64 {
    match process_memory_kb() {
        (Some(rss), Some(peak)) => peak.saturating_sub(rss).saturating_mul(1024),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minflt_is_read_past_a_command_holding_spaces_and_parentheses() {
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 1234 0 5 0 7 3 0 0 20 0 1";
        assert_eq!(minflt_of_stat(line), Some(1234));
        assert_eq!(minflt_of_stat("4242 (x) S 1"), None);
        assert_eq!(minflt_of_stat("no command"), None);
    }

    #[test]
    fn this_process_has_taken_minor_faults() {
        // Loading and starting a process touches pages: the count of a real `stat` is positive.
        let n = minor_faults().expect("/proc/self/stat readable on Linux");
        assert!(n > 0);
        assert!(minor_faults().unwrap() >= n);
    }
}
