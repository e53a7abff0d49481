//! The in-process entry (`runtime::run_plan`) without any tool: the runtime initializes,
//! replays and reports; the C entry points answer consistently. One test per process (the
//! runtime is process-global, like the real one).

use rocprofiler_sdk_sim::runtime::{self, fixtures, Personality};

#[test]
fn run_plan_in_process() {
    // SAFETY (edition 2021 set/remove_var): this binary runs a single test, no other thread
    // reads the environment concurrently.
    std::env::remove_var("ROCP_TOOL_LIBRARIES");
    let summary = runtime::run_plan(fixtures::basic(), Personality::V0_6_0).expect("replay");
    assert_eq!(summary.personality, "0.6.0");
    assert_eq!(summary.hip_calls, 9);
    assert_eq!(summary.kernel_dispatches, 9);
    assert_eq!(summary.memory_copies, 1);
    assert_eq!(summary.threads.len(), 2);
    assert!(summary.threads.iter().all(|t| *t != 0));
    let mut st = 0;
    // SAFETY: writable int.
    unsafe { runtime::exports::rocprofiler_is_initialized(&mut st) };
    assert_eq!(st, 1);
    let report = runtime::delivery_report();
    assert!(report.clients.is_empty() && report.buffers.is_empty());
    // A second run in the same process with another personality is refused.
    assert!(runtime::run_plan(fixtures::basic(), Personality::V1_0_0).is_err());
    runtime::finalize();
    // SAFETY: writable int.
    unsafe { runtime::exports::rocprofiler_is_finalized(&mut st) };
    assert_eq!(st, 1);
    let flush = runtime::exports::rocprofiler_flush_buffer(Default::default());
    assert_eq!(
        flush,
        Personality::V0_6_0.status("ROCPROFILER_STATUS_ERROR_FINALIZED")
    );
}
