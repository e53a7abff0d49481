//! Discovery, configure/initialize order, init window and finalization (reference §1).

mod common;
use common::*;

fn v1(sdk: &str) -> bool {
    sdk.starts_with('1')
}

fn discovery_parser_quirk(sdk: &str) {
    let dir = tempfile::tempdir().unwrap();
    let a = tool_copy(dir.path(), "liba.so");
    let b = tool_copy(dir.path(), "libb.so");
    // "a:b" keeps only the token followed by ':'.
    let mut o = Opts::new(sdk, "basic", "");
    o.tools = Some(format!("{}:{}", a.display(), b.display()));
    let s = run_opts(o);
    assert_eq!(s.code, Some(0), "{}", s.stderr);
    assert_eq!(s.ev("configure").len(), 1);
    assert_eq!(
        s.truth["delivery"]["clients"][0]["library"],
        a.display().to_string()
    );
    // "a:b:" keeps both, priorities = discovery index.
    let mut o = Opts::new(sdk, "basic", "");
    o.tools = Some(format!("{}:{}:", a.display(), b.display()));
    let s = run_opts(o);
    let prios: Vec<u64> = s
        .ev("configure")
        .iter()
        .map(|v| v["priority"].as_u64().unwrap())
        .collect();
    assert_eq!(prios, vec![0, 1]);
}

fn library_without_configure_is_skipped(sdk: &str) {
    let mut o = Opts::new(sdk, "basic", "");
    o.tools = Some(format!("libc.so.6:{}:", tool_path().display()));
    let s = run_opts(o);
    assert_eq!(s.code, Some(0), "{}", s.stderr);
    assert!(
        s.stderr.contains("no rocprofiler_configure"),
        "{}",
        s.stderr
    );
    let c = s.ev("configure");
    assert_eq!(c.len(), 1);
    // Priority is the index among *found* tools.
    assert_eq!(c[0]["priority"], 0);
}

fn dlopen_failure_aborts(sdk: &str) {
    let mut o = Opts::new(sdk, "basic", "");
    o.tools = Some("/nonexistent/libnotthere.so".into());
    let s = run_opts(o);
    assert_ne!(s.code, Some(0));
    assert!(s.stderr.contains("libnotthere.so"), "{}", s.stderr);
    assert!(s.ev("configure").is_empty());
}

fn configure_args_and_client_layout(sdk: &str) {
    let s = run(sdk, "basic", "");
    let c = s.ev("configure");
    assert_eq!(c.len(), 1);
    let c = c[0];
    assert_eq!(c["version"], if v1(sdk) { 10000 } else { 600 });
    assert_eq!(c["runtime_version"], sdk);
    assert_eq!(c["priority"], 0);
    if v1(sdk) {
        assert_eq!(c["client_size"], 24);
    } else {
        assert!(c["client_size"].is_null());
    }
    let client = &s.truth["delivery"]["clients"][0];
    assert_eq!(client["handle"], c["client_handle"]);
    assert!(client["handle"].as_u64().unwrap() >= 255);
    // The runtime read the name back at the layout's offset.
    assert_eq!(client["name"], "rocprof-sim-test-tool");
}

fn configure_all_before_initialize(sdk: &str) {
    let dir = tempfile::tempdir().unwrap();
    let a = tool_copy(dir.path(), "liba.so");
    let b = tool_copy(dir.path(), "libb.so");
    let mut o = Opts::new(sdk, "basic", "");
    o.tools = Some(format!("{}:{}:", a.display(), b.display()));
    let s = run_opts(o);
    let seq: Vec<(String, u64)> = s
        .log
        .iter()
        .filter(|v| v["ev"] == "configure" || v["ev"] == "initialize")
        .map(|v| {
            (
                v["ev"].as_str().unwrap().to_string(),
                v["priority"].as_u64().unwrap(),
            )
        })
        .collect();
    let expect: Vec<(String, u64)> = [
        ("configure", 0),
        ("configure", 1),
        ("initialize", 0),
        ("initialize", 1),
    ]
    .iter()
    .map(|(e, p)| (e.to_string(), *p))
    .collect();
    assert_eq!(seq, expect);
    for i in s.ev("initialize") {
        assert_eq!(
            i["init_status"], -1,
            "initialize runs inside the init window"
        );
    }
    // Each tool has its own context and gets its own records.
    assert_eq!(s.ev("context").len(), 2);
    assert_eq!(s.truth["delivery"]["buffers"].as_array().unwrap().len(), 2);
}

fn initialize_return_value_ignored(sdk: &str) {
    let s = run(sdk, "basic", "init_fail");
    assert!(
        !s.recs("KERNEL_DISPATCH").is_empty(),
        "records still flow after initialize returned -1"
    );
}

fn opt_out_with_null(sdk: &str) {
    let s = run(sdk, "basic", "optout");
    assert_eq!(s.ev("configure").len(), 1);
    assert!(s.ev("initialize").is_empty());
    assert!(s.ev("cb").is_empty() && s.ev("rec").is_empty());
    assert_eq!(s.truth["delivery"]["clients"][0]["configured"], false);
}

fn configuration_locked_after_init(sdk: &str) {
    let s = run(sdk, "basic", "late_create");
    for what in [
        "late_force_configure",
        "late_create_context",
        "late_create_buffer",
        "late_buffer_service",
        "late_create_callback_thread",
    ] {
        let (code, name) = s
            .status(what)
            .unwrap_or_else(|| panic!("{what} not logged"));
        assert_eq!(
            name, "ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED",
            "{what}"
        );
        assert_eq!(code, 16);
    }
    // The failed create writes ROCPROFILER_CONTEXT_NONE: {UINT64_MAX} in 0.6.0 and on the
    // rel-7.0 branch (the 1.0.0 personality), {0} later (reference §2.1).
    let h = &s.ev("late_context_handle")[0]["handle"];
    assert_eq!(h.as_u64(), Some(u64::MAX), "{sdk}: {h}");
}

#[test]
fn context_none_is_zero_in_1_2_1() {
    let s = run("1.2.1", "basic", "late_create");
    assert_eq!(
        s.status("late_create_context").unwrap().1,
        "ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED"
    );
    assert_eq!(s.ev("late_context_handle")[0]["handle"], 0);
}

fn context_id_not_zero(sdk: &str) {
    let s = run(sdk, "basic", "nonzero_ctx");
    assert_eq!(
        s.status("create_context_nonzero"),
        Some((13, "ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO".into()))
    );
    assert_eq!(s.status("create_context").unwrap().0, 0);
}

fn handles_are_random_and_not_small(sdk: &str) {
    let a = run(sdk, "empty", "");
    let b = run(sdk, "empty", "");
    let h = |s: &Sim| {
        (
            s.ev("context")[0]["handle"].as_u64().unwrap(),
            s.ev("buffer_created")[0]["handle"].as_u64().unwrap(),
        )
    };
    let (ca, ba) = h(&a);
    let (cb, bb) = h(&b);
    for x in [ca, ba, cb, bb] {
        assert!(
            (255..65535 + 16).contains(&x),
            "handle {x} is small or out of range"
        );
    }
    assert!(
        ca != cb || ba != bb,
        "handles should differ between processes"
    );
}

fn finalize_at_exit_then_finalized(sdk: &str) {
    let s = run(sdk, "basic", "");
    let fb = s.ev("finalize_begin");
    assert_eq!(fb.len(), 1, "finalize called exactly once");
    assert_eq!(fb[0]["fini_status"], -1);
    let after = s.ev("after_exit");
    assert_eq!(after.len(), 1);
    assert_eq!(after[0]["fini_status"], 1);
    assert_eq!(after[0]["flush_name"], "ROCPROFILER_STATUS_ERROR_FINALIZED");
    assert_eq!(
        after[0]["context_active"], 0,
        "contexts are stopped by finalization"
    );
    assert_eq!(
        after[0]["start_context"],
        "ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED"
    );
    assert_eq!(after[0]["stop_context"], "ROCPROFILER_STATUS_SUCCESS");
}

fn client_finalize_function_works(sdk: &str) {
    // The tool calls the finalizer it got from initialize inside its first buffer callback.
    let s = run(sdk, "stress:50", "client_fini,watermark=0");
    let call = s
        .index_of(|v| v["ev"] == "client_fini_call")
        .expect("finalizer called");
    let fin = s
        .index_of(|v| v["ev"] == "finalize_begin")
        .expect("tool finalized");
    assert!(fin > call);
    assert_eq!(
        s.ev("finalize_begin").len(),
        1,
        "not finalized again at exit"
    );
    assert_eq!(
        s.ev("finalize_begin")[0]["fini_status"],
        0,
        "runtime itself not finalizing yet"
    );
}

fn version_queries(sdk: &str) {
    let s = run(sdk, "empty", "");
    let t = s.ev("thread_id")[0];
    assert_eq!(
        t["sdk"], t["gettid"],
        "rocprofiler_get_thread_id is the Linux TID"
    );
    assert!(t["status_string_16"]
        .as_str()
        .is_some_and(|x| !x.is_empty()));
    let i = s.ev("initialize")[0];
    let want: Vec<u64> = sdk.split('.').map(|x| x.parse().unwrap()).collect();
    assert_eq!(i["version"], serde_json::json!(want));
    if v1(sdk) {
        assert_eq!(i["triplet_status"], "ROCPROFILER_STATUS_SUCCESS");
        assert_eq!(i["triplet"], serde_json::json!(want));
    } else {
        assert_ne!(i["triplet_status"], "ROCPROFILER_STATUS_SUCCESS");
    }
}

both_sdks!(
    discovery_parser_quirk,
    library_without_configure_is_skipped,
    dlopen_failure_aborts,
    configure_args_and_client_layout,
    configure_all_before_initialize,
    initialize_return_value_ignored,
    opt_out_with_null,
    configuration_locked_after_init,
    context_id_not_zero,
    handles_are_random_and_not_small,
    finalize_at_exit_then_finalized,
    client_finalize_function_works,
    version_queries,
);

#[test]
fn help_says_simulated() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocprof-sim"))
        .arg("--help")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("SIMULATED") && text.contains("test infrastructure"),
        "{text}"
    );
}

#[test]
fn driver_loads_runtime_from_env_override() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocprof-sim"))
        .args(["--builtin", "empty"])
        .env(
            "ROCPROF_SIM_LIBRARY",
            "/nonexistent/librocprofiler_sdk_sim.so",
        )
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/librocprofiler_sdk_sim.so"));
}

#[test]
fn bad_scenario_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "this is = not [valid").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocprof-sim"))
        .arg(&bad)
        .env_remove("ROCP_TOOL_LIBRARIES")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.toml"));
}
