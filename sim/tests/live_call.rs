//! `rocprof_sim_hip_call`: an application's own HIP call reaches the tool as the replay
//! delivers a plan's. The application is a child process (this binary re-run on
//! `application`), which loads the runtime's cdylib the way `benches/c-driver/storm.c` does and
//! leaves through `exit()`, so the runtime's atexit finalization flushes the tool's buffers.

mod common;

use serde_json::Value;
use std::process::Command;

const CHILD: &str = "ROCPROF_SIM_LIVE_CALL_CHILD";

/// The application side; does nothing unless run as the child of the test below.
#[test]
fn application() {
    let Ok(lib) = std::env::var(CHILD) else {
        return;
    };
    let lib = std::ffi::CString::new(lib).unwrap();
    // SAFETY: a NUL-terminated path; the runtime library is never unloaded.
    let h = unsafe { libc::dlopen(lib.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    assert!(!h.is_null(), "dlopen the runtime");
    // SAFETY: live handle, NUL-terminated name.
    let f = unsafe { libc::dlsym(h, c"rocprof_sim_hip_call".as_ptr()) };
    assert!(!f.is_null(), "rocprof_sim_hip_call exported");
    // SAFETY: the export's signature, `int rocprof_sim_hip_call(uint64_t)`.
    let call: extern "C" fn(u64) -> libc::c_int = unsafe { std::mem::transmute(f) };
    let stream = 0x7e57_0000_1000u64;
    assert_eq!(call(stream), 0);
    std::thread::spawn(move || assert_eq!(call(stream), 0))
        .join()
        .unwrap();
    assert_eq!(call(stream), 0);
    // SAFETY: plain libc exit: runs the runtime's atexit finalization, as an application does.
    unsafe { libc::exit(0) }
}

#[test]
fn a_live_call_is_delivered_as_a_replayed_one() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tool.jsonl");
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "application", "--test-threads=1"])
        .env(CHILD, common::bin_dir().join("librocprofiler_sdk_sim.so"))
        .env("ROCP_TOOL_LIBRARIES", common::tool_path())
        .env("ROCPROF_SIM_TEST_TOOL_LOG", &log)
        .env("ROCPROF_SIM_TEST_TOOL_MODE", "")
        .env("ROCPROF_SIM_SDK", "1.0.0")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&log).unwrap();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let cbs = |kind: &str, op: &str| -> Vec<&Value> {
        events
            .iter()
            .filter(|v| v["ev"] == "cb" && v["kind_name"] == kind && v["op_name"] == op)
            .collect()
    };
    // The stream is announced once, on its first use, and brackets every call.
    assert_eq!(cbs("HIP_STREAM", "HIP_STREAM_CREATE").len(), 1);
    let sets = cbs("HIP_STREAM", "HIP_STREAM_SET");
    assert_eq!(sets.len(), 6, "SET ENTER/EXIT around each of 3 calls");
    assert!(sets.iter().all(|v| v["stream_id"] == 1));
    // ENTER and EXIT of each call, correlation ids in arrival order.
    let api = cbs("HIP_RUNTIME_API", "hipLaunchKernel");
    assert_eq!(api.len(), 6);
    let mut cids: Vec<u64> = api.iter().map(|v| v["corr"].as_u64().unwrap()).collect();
    cids.dedup();
    assert_eq!(cids, [1, 2, 3]);
    // One HIP API record per call, delivered at finalization.
    let recs = events
        .iter()
        .filter(|v| v["ev"] == "rec" && v["kind_name"] == "HIP_RUNTIME_API")
        .count();
    assert_eq!(recs, 3);
}
