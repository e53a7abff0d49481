//! Every number the tool can observe through the name/iterate queries, per personality,
//! compared with the reference tables (rocprofiler-sdk-abi.md §4.1–§4.5, §4.7), restated here
//! independently of the simulator's own tables so a re-ordering on either side fails.

mod common;
use common::*;
use serde_json::Value;

const SDKS_ALL: [&str; 4] = ["0.6.0", "1.0.0", "1.2.1", "1.4.0"];

/// Kinds appended after 1.2.1 ("newer" reference §2.1/§2.2), present only in the 1.4.0
/// personality (HIP event tracing): buffer kinds 33..=38 and callback kinds 22..=25.
const BUFFER_KINDS_AFTER_1_2: &[(u32, &str)] = &[
    (33, "HIP_GRAPH"),
    (34, "ROCSHMEM_API"),
    (35, "ROCSHMEM_API_EXT"),
    (36, "HIPFILE_API"),
    (37, "HIPFILE_API_EXT"),
    (38, "HIP_EVENT"),
];
const CALLBACK_KINDS_AFTER_1_2: &[(u32, &str)] = &[
    (22, "HIP_GRAPH"),
    (23, "ROCSHMEM_API"),
    (24, "HIPFILE_API"),
    (25, "HIP_EVENT"),
];

/// §4.1, index = value, for 0.5.0+ (41 exists only from 1.2.1).
const STATUS: &[&str] = &[
    "SUCCESS",
    "ERROR",
    "ERROR_CONTEXT_NOT_FOUND",
    "ERROR_BUFFER_NOT_FOUND",
    "ERROR_KIND_NOT_FOUND",
    "ERROR_OPERATION_NOT_FOUND",
    "ERROR_THREAD_NOT_FOUND",
    "ERROR_AGENT_NOT_FOUND",
    "ERROR_COUNTER_NOT_FOUND",
    "ERROR_CONTEXT_ERROR",
    "ERROR_CONTEXT_INVALID",
    "ERROR_CONTEXT_NOT_STARTED",
    "ERROR_CONTEXT_CONFLICT",
    "ERROR_CONTEXT_ID_NOT_ZERO",
    "ERROR_BUFFER_BUSY",
    "ERROR_SERVICE_ALREADY_CONFIGURED",
    "ERROR_CONFIGURATION_LOCKED",
    "ERROR_NOT_IMPLEMENTED",
    "ERROR_INCOMPATIBLE_ABI",
    "ERROR_INVALID_ARGUMENT",
    "ERROR_METRIC_NOT_VALID_FOR_AGENT",
    "ERROR_FINALIZED",
    "ERROR_HSA_NOT_LOADED",
    "ERROR_DIM_NOT_FOUND",
    "ERROR_PROFILE_COUNTER_NOT_FOUND",
    "ERROR_AST_GENERATION_FAILED",
    "ERROR_AST_NOT_FOUND",
    "ERROR_AQL_NO_EVENT_COORD",
    "ERROR_INCOMPATIBLE_KERNEL",
    "ERROR_OUT_OF_RESOURCES",
    "ERROR_PROFILE_NOT_FOUND",
    "ERROR_AGENT_DISPATCH_CONFLICT",
    "INTERNAL_NO_AGENT_CONTEXT",
    "ERROR_SAMPLE_RATE_EXCEEDED",
    "ERROR_NO_PROFILE_QUEUE",
    "ERROR_NO_HARDWARE_COUNTERS",
    "ERROR_AGENT_MISMATCH",
    "ERROR_NOT_AVAILABLE",
    "ERROR_EXCEEDS_HW_LIMIT",
    "ERROR_AGENT_ARCH_NOT_SUPPORTED",
    "ERROR_PERMISSION_DENIED",
    "ERROR_INCOMPATIBLE_REGISTER_VERSION",
];

/// §4.2 buffer-tracing kinds as (value in 0.6.0, value in 1.x, name); `None` = absent.
const BUFFER_KINDS: &[(Option<u32>, Option<u32>, &str)] = &[
    (Some(1), Some(1), "HSA_CORE_API"),
    (Some(2), Some(2), "HSA_AMD_EXT_API"),
    (Some(3), Some(3), "HSA_IMAGE_EXT_API"),
    (Some(4), Some(4), "HSA_FINALIZE_EXT_API"),
    (Some(5), Some(5), "HIP_RUNTIME_API"),
    (Some(6), Some(6), "HIP_COMPILER_API"),
    (Some(7), Some(7), "MARKER_CORE_API"),
    (Some(8), Some(8), "MARKER_CONTROL_API"),
    (Some(9), Some(9), "MARKER_NAME_API"),
    (Some(10), Some(10), "MEMORY_COPY"),
    (Some(11), Some(11), "KERNEL_DISPATCH"),
    (Some(12), None, "PAGE_MIGRATION"),
    (Some(13), Some(12), "SCRATCH_MEMORY"),
    (Some(14), Some(13), "CORRELATION_ID_RETIREMENT"),
    (Some(15), Some(14), "RCCL_API"),
    (Some(16), Some(15), "OMPT"),
    (Some(17), Some(16), "MEMORY_ALLOCATION"),
    (Some(18), Some(17), "RUNTIME_INITIALIZATION"),
    (Some(19), Some(18), "ROCDECODE_API"),
    (None, Some(19), "ROCJPEG_API"),
    (None, Some(20), "HIP_STREAM"),
    (None, Some(21), "HIP_RUNTIME_API_EXT"),
    (None, Some(22), "HIP_COMPILER_API_EXT"),
    (None, Some(23), "ROCDECODE_API_EXT"),
    (None, Some(24), "KFD_EVENT_PAGE_MIGRATE"),
    (None, Some(25), "KFD_EVENT_PAGE_FAULT"),
    (None, Some(26), "KFD_EVENT_QUEUE"),
    (None, Some(27), "KFD_EVENT_UNMAP_FROM_GPU"),
    (None, Some(28), "KFD_EVENT_DROPPED_EVENTS"),
    (None, Some(29), "KFD_PAGE_MIGRATE"),
    (None, Some(30), "KFD_PAGE_FAULT"),
    (None, Some(31), "KFD_QUEUE"),
    (None, Some(32), "MARKER_CORE_RANGE_API"),
];

/// §4.3 callback-tracing kinds: 0.6.0 has 1..=18, 1.x adds 19..=21.
const CALLBACK_KINDS: &[&str] = &[
    "NONE",
    "HSA_CORE_API",
    "HSA_AMD_EXT_API",
    "HSA_IMAGE_EXT_API",
    "HSA_FINALIZE_EXT_API",
    "HIP_RUNTIME_API",
    "HIP_COMPILER_API",
    "MARKER_CORE_API",
    "MARKER_CONTROL_API",
    "MARKER_NAME_API",
    "CODE_OBJECT",
    "SCRATCH_MEMORY",
    "KERNEL_DISPATCH",
    "MEMORY_COPY",
    "RCCL_API",
    "OMPT",
    "MEMORY_ALLOCATION",
    "RUNTIME_INITIALIZATION",
    "ROCDECODE_API",
    "ROCJPEG_API",
    "HIP_STREAM",
    "MARKER_CORE_RANGE_API",
];

/// §4.7: every HIP API the simulator models, with its id (unconditional block: all versions).
const HIP_IDS: &[(u32, &str)] = &[
    (214, "hipLaunchKernel"),
    (419, "hipLaunchKernel_spt"),
    (84, "hipExtLaunchKernel"),
    (308, "hipModuleLaunchKernel"),
    (388, "hipExtModuleLaunchKernel"),
    (389, "hipHccModuleLaunchKernel"),
    (211, "hipLaunchCooperativeKernel"),
    (418, "hipLaunchCooperativeKernel_spt"),
    (212, "hipLaunchCooperativeKernelMultiDevice"),
    (306, "hipModuleLaunchCooperativeKernel"),
    (307, "hipModuleLaunchCooperativeKernelMultiDevice"),
    (85, "hipExtLaunchMultiKernelMultiDevice"),
    (166, "hipGraphLaunch"),
    (420, "hipGraphLaunch_spt"),
    (259, "hipMemcpy"),
    (268, "hipMemcpyAsync"),
    (402, "hipMemcpyAsync_spt"),
    (287, "hipMemcpyWithStream"),
    (278, "hipMemcpyHtoD"),
    (279, "hipMemcpyHtoDAsync"),
    (272, "hipMemcpyDtoH"),
    (273, "hipMemcpyDtoHAsync"),
    (270, "hipMemcpyDtoD"),
    (271, "hipMemcpyDtoDAsync"),
    (282, "hipMemcpyPeer"),
    (283, "hipMemcpyPeerAsync"),
    (261, "hipMemcpy2DAsync"),
    (281, "hipMemcpyParam2DAsync"),
    (288, "hipMemset"),
    (293, "hipMemsetAsync"),
    (397, "hipMemsetAsync_spt"),
    (297, "hipMemsetD32Async"),
    (81, "hipEventRecord"),
    (417, "hipEventRecord_spt"),
    (348, "hipStreamWaitEvent"),
    (414, "hipStreamWaitEvent_spt"),
    (82, "hipEventSynchronize"),
    (80, "hipEventQuery"),
    (79, "hipEventElapsedTime"),
    (76, "hipEventCreate"),
    (77, "hipEventCreateWithFlags"),
    (78, "hipEventDestroy"),
    (346, "hipStreamSynchronize"),
    (412, "hipStreamSynchronize_spt"),
    (345, "hipStreamQuery"),
    (66, "hipDeviceSynchronize"),
    (334, "hipStreamCreate"),
    (335, "hipStreamCreateWithFlags"),
    (336, "hipStreamCreateWithPriority"),
    (337, "hipStreamDestroy"),
    (215, "hipMalloc"),
    (90, "hipFree"),
    // The allocation family of the memory timeline: counted in the real `hip/runtime_api_id.h`
    // (rocprofiler-sdk 1.2.1, triton's copy), in the block every version shares.
    (197, "hipHostMalloc"),
    (194, "hipHostFree"),
    (222, "hipMallocManaged"),
    (198, "hipHostRegister"),
    (199, "hipHostUnregister"),
    (219, "hipMallocAsync"),
    (92, "hipFreeAsync"),
    (327, "hipSetDevice"),
    (102, "hipGetDevice"),
];

/// Step-guarded HIP ids that only 1.x builds have (§4.7).
const HIP_IDS_1X: &[(u32, &str)] = &[
    (473, "hipEventRecordWithFlags"),
    (474, "hipLaunchKernelExC"),
    (475, "hipDrvLaunchKernelEx"),
];

fn ops_of(b: &Value, kind: u32) -> Vec<(u32, String)> {
    let mut v: Vec<(u32, String)> = b[kind.to_string()]["ops"]
        .as_object()
        .unwrap_or_else(|| panic!("kind {kind} has no operations: {b}"))
        .iter()
        .map(|(k, n)| (k.parse().unwrap(), n.as_str().unwrap().to_string()))
        .collect();
    v.sort();
    v
}

fn owned(t: &[(u32, &str)]) -> Vec<(u32, String)> {
    let mut v: Vec<(u32, String)> = t.iter().map(|(i, n)| (*i, n.to_string())).collect();
    v.sort();
    v
}

fn every_number_matches_the_reference(sdk: &str) {
    let v1 = sdk.starts_with('1');
    let s = run(sdk, "empty", "");
    let n = s.ev("names")[0];

    // Status codes: exactly the personality's enumerators, then NULL.
    let st = n["status"].as_array().unwrap();
    let newer = sdk == "1.4.0";
    let count = if sdk == "1.2.1" || newer { 42 } else { 41 };
    for (i, row) in st.iter().enumerate() {
        let want = STATUS
            .get(i)
            .filter(|_| i < count)
            .map_or("<null>".to_string(), |s| format!("ROCPROFILER_STATUS_{s}"));
        assert_eq!(row[1], want.as_str(), "{sdk}: status {i}");
    }

    // Buffer-tracing kinds: the iterated set and every value's name.
    let b = &n["buffer"];
    let mut want: Vec<(u32, &str)> = BUFFER_KINDS
        .iter()
        .filter_map(|(v0, v1v, name)| if v1 { *v1v } else { *v0 }.map(|k| (k, *name)))
        .collect();
    if newer {
        want.extend_from_slice(BUFFER_KINDS_AFTER_1_2);
    }
    let got = b.as_object().unwrap();
    assert_eq!(
        got.len(),
        want.len(),
        "{sdk}: buffer kinds iterated {got:?}"
    );
    for (k, name) in &want {
        assert_eq!(b[k.to_string()]["name"], *name, "{sdk}: buffer kind {k}");
    }

    // Callback-tracing kinds.
    let c = n["callback"].as_object().unwrap();
    let last = if v1 { 21 } else { 18 };
    let appended = if newer { CALLBACK_KINDS_AFTER_1_2 } else { &[] };
    assert_eq!(
        c.len(),
        last + appended.len(),
        "{sdk}: callback kinds iterated {c:?}"
    );
    for (k, name) in CALLBACK_KINDS.iter().enumerate().skip(1).take(last) {
        assert_eq!(c[&k.to_string()], *name, "{sdk}: callback kind {k}");
    }
    for (k, name) in appended {
        assert_eq!(c[&k.to_string()], *name, "{sdk}: callback kind {k}");
    }
    // HIP event tracing only where the kind exists (newer reference §5).
    if newer {
        assert_eq!(
            ops_of(b, 38),
            owned(&[(1, "HIP_EVENT_RECORD"), (2, "HIP_EVENT_WAIT")]),
            "{sdk}: HIP_EVENT ops"
        );
    } else {
        assert!(b.get("38").is_none() && !c.contains_key("25"), "{sdk}");
        assert!(
            !got.values().any(|v| v["name"] == "HIP_EVENT")
                && !c.values().any(|v| v == "HIP_EVENT"),
            "{sdk}: no HIP_EVENT kind before 1.4.0"
        );
    }

    // Operations: HIP ids (buffered HIP_RUNTIME_API and, 1.x, HIP_RUNTIME_API_EXT share them).
    let mut hip = HIP_IDS.to_vec();
    if v1 {
        hip.extend_from_slice(HIP_IDS_1X);
    }
    assert_eq!(ops_of(b, 5), owned(&hip), "{sdk}: HIP_RUNTIME_API ops");
    if v1 {
        assert_eq!(ops_of(b, 21), owned(&hip), "{sdk}: HIP_RUNTIME_API_EXT ops");
    }
    // Marker ids start at 0 (§4.5).
    let marker = [
        (0, "roctxMarkA"),
        (1, "roctxRangePushA"),
        (2, "roctxRangePop"),
        (3, "roctxRangeStartA"),
        (4, "roctxRangeStop"),
        (5, "roctxGetThreadId"),
    ];
    assert_eq!(ops_of(b, 7), owned(&marker), "{sdk}: MARKER_CORE_API ops");
    assert_eq!(
        ops_of(b, 8),
        owned(&[(0, "roctxProfilerPause"), (1, "roctxProfilerResume")])
    );
    assert_eq!(
        ops_of(b, 9),
        owned(&[
            (0, "roctxNameOsThread"),
            (1, "roctxNameHsaAgent"),
            (2, "roctxNameHipDevice"),
            (3, "roctxNameHipStream"),
        ])
    );
    if v1 {
        assert_eq!(
            ops_of(b, 32),
            owned(&[
                (0, "roctxMarkA"),
                (1, "roctxThreadRangeA"),
                (2, "roctxProcessRangeA"),
                (3, "roctxGetThreadId"),
            ]),
            "{sdk}: MARKER_CORE_RANGE_API ops"
        );
    }
    assert_eq!(
        ops_of(b, 10),
        owned(&[
            (1, "MEMORY_COPY_HOST_TO_HOST"),
            (2, "MEMORY_COPY_HOST_TO_DEVICE"),
            (3, "MEMORY_COPY_DEVICE_TO_HOST"),
            (4, "MEMORY_COPY_DEVICE_TO_DEVICE"),
        ])
    );
    assert_eq!(
        ops_of(b, 11),
        owned(&[
            (1, "KERNEL_DISPATCH_ENQUEUE"),
            (2, "KERNEL_DISPATCH_COMPLETE")
        ])
    );
}

fn agent_size_boundary(sdk: &str) {
    // §2.6: the runtime's own sizeof(rocprofiler_agent_v0_t) is accepted, one field more is not.
    let size = match sdk {
        "0.6.0" | "1.0.0" => 304,
        _ => 312,
    };
    let ok = run(sdk, "empty", &format!("agent_size={size}"));
    assert_eq!(ok.status("query_agents").unwrap().0, 0, "{sdk}: {size}");
    assert!(ok.ev("agent").iter().all(|a| a["size"] == size));
    let big = run(sdk, "empty", &format!("agent_size={}", size + 8));
    assert_eq!(
        big.status("query_agents").unwrap().1,
        "ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI",
        "{sdk}: {}",
        size + 8
    );
    assert!(big.ev("agent").is_empty());
}

fn configure_version_numbers(sdk: &str) {
    let s = run(sdk, "empty", "");
    let want = match sdk {
        "0.6.0" => 600,
        "1.0.0" => 10000,
        "1.4.0" => 10400,
        _ => 10201,
    };
    let c = s.ev("configure")[0];
    assert_eq!(c["version"], want, "{sdk}");
}

#[test]
fn numbering_tables_of_every_personality() {
    for sdk in SDKS_ALL {
        every_number_matches_the_reference(sdk);
    }
}

#[test]
fn agent_size_boundary_of_every_personality() {
    for sdk in SDKS_ALL {
        agent_size_boundary(sdk);
    }
}

#[test]
fn configure_version_of_every_personality() {
    for sdk in SDKS_ALL {
        configure_version_numbers(sdk);
    }
}
