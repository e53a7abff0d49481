//! Which rocprofiler-sdk release the simulator impersonates: version numbers, ABI family and
//! the enum numbering that differs between releases (reference §4). The sys crate only carries
//! value-stable constants; everything that moved between releases is resolved here by name.

use std::fmt;

/// One simulated SDK release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Personality {
    /// ROCm 6.4-era SDK 0.6.0: v0 layouts, PAGE_MIGRATION = 12, 304-byte agent.
    V0_6_0,
    /// ROCm 7.0 SDK 1.0.0: v1 layouts, 1.x numbering, 304-byte agent (rel-7.0 branch).
    V1_0_0,
    /// TheRock SDK 1.2.1: as 1.0.0 plus a 312-byte agent (16-byte UUID) and status 41.
    V1_2_1,
    /// The first SDK with HIP event tracing (reference "newer" §5: listed as Unreleased after
    /// 1.3.5, so the number 1.4.0 is an assumption): as 1.2.1 plus the kinds appended after
    /// 1.2.1 (HIP_GRAPH … HIP_EVENT), of which HIP_EVENT (both modes) and HIP_GRAPH
    /// (callback EXEC_LAUNCH around graph launches) are emitted.
    V1_4_0,
}

pub const ALL_PERSONALITIES: [Personality; 4] = [
    Personality::V0_6_0,
    Personality::V1_0_0,
    Personality::V1_2_1,
    Personality::V1_4_0,
];

impl Personality {
    pub fn parse(s: &str) -> Option<Personality> {
        match s {
            "0.6.0" | "0.6" | "0" => Some(Personality::V0_6_0),
            "1.0.0" | "1.0" | "1" => Some(Personality::V1_0_0),
            "1.2.1" | "1.2" => Some(Personality::V1_2_1),
            "1.4.0" | "1.4" => Some(Personality::V1_4_0),
            _ => None,
        }
    }
    pub fn triplet(self) -> (u32, u32, u32) {
        match self {
            Personality::V0_6_0 => (0, 6, 0),
            Personality::V1_0_0 => (1, 0, 0),
            Personality::V1_2_1 => (1, 2, 1),
            Personality::V1_4_0 => (1, 4, 0),
        }
    }
    /// `ROCPROFILER_VERSION` = 10000*major + 100*minor + patch, passed to `rocprofiler_configure`.
    pub fn version_number(self) -> u32 {
        let (a, b, c) = self.triplet();
        10000 * a + 100 * b + c
    }
    pub fn version_cstr(self) -> &'static std::ffi::CStr {
        match self {
            Personality::V0_6_0 => c"0.6.0",
            Personality::V1_0_0 => c"1.0.0",
            Personality::V1_2_1 => c"1.2.1",
            Personality::V1_4_0 => c"1.4.0",
        }
    }
    /// 1.x ABI family (24-byte correlation/client ids, 64-byte callback record, …).
    pub fn is_v1(self) -> bool {
        self != Personality::V0_6_0
    }
    /// Whether kernel-dispatch buffer records carry `int32_t pipe_id` after `dispatch_info`
    /// (192 bytes instead of 184; the newest SDK, reference "newer" §3.2).
    pub fn dispatch_pipe_id(self) -> bool {
        matches!(self, Personality::V1_4_0)
    }
    /// `sizeof(rocprofiler_agent_v0_t)` of this release.
    pub fn agent_size(self) -> usize {
        match self {
            Personality::V0_6_0 | Personality::V1_0_0 => 304,
            Personality::V1_2_1 | Personality::V1_4_0 => 312,
        }
    }
    pub fn buffer_kinds(self) -> &'static [&'static str] {
        match self {
            Personality::V0_6_0 => BUFFER_KINDS_V0_6,
            Personality::V1_0_0 | Personality::V1_2_1 => BUFFER_KINDS_V1,
            Personality::V1_4_0 => BUFFER_KINDS_HIP_EVENT,
        }
    }
    pub fn callback_kinds(self) -> &'static [&'static str] {
        match self {
            Personality::V0_6_0 => CALLBACK_KINDS_V0_6,
            Personality::V1_0_0 | Personality::V1_2_1 => CALLBACK_KINDS_V1,
            Personality::V1_4_0 => CALLBACK_KINDS_HIP_EVENT,
        }
    }
    /// Whether this release has HIP event tracing (the HIP_EVENT kinds).
    pub fn has_hip_event(self) -> bool {
        self.buffer_kind("HIP_EVENT").is_some()
    }
    pub fn request_kinds(self) -> &'static [&'static str] {
        if self.is_v1() {
            REQUEST_KINDS_V1
        } else {
            REQUEST_KINDS_V0_6
        }
    }
    pub fn status_names(self) -> &'static [&'static str] {
        match self {
            Personality::V1_2_1 | Personality::V1_4_0 => STATUS_NAMES,
            _ => &STATUS_NAMES[..41],
        }
    }
    /// Value of a buffer-tracing kind by enumerator suffix, if this release has it.
    pub fn buffer_kind(self, name: &str) -> Option<u32> {
        position(self.buffer_kinds(), name)
    }
    pub fn callback_kind(self, name: &str) -> Option<u32> {
        position(self.callback_kinds(), name)
    }
    pub fn request_kind(self, name: &str) -> Option<u32> {
        position(self.request_kinds(), name)
    }
    pub fn status(self, name: &str) -> u32 {
        // Every status the runtime returns exists in all personalities; a miss is a bug here.
        position(self.status_names(), name).unwrap_or(1)
    }
    /// `status("ROCPROFILER_STATUS_" + suffix)`, without making that string.
    pub fn status_suffix(self, suffix: &str) -> u32 {
        self.status_names()
            .iter()
            .position(|n| n.strip_prefix("ROCPROFILER_STATUS_") == Some(suffix))
            .map_or(1, |i| i as u32)
    }
    pub fn buffer_kind_name(self, kind: u32) -> Option<&'static str> {
        named(self.buffer_kinds(), kind)
    }
    pub fn callback_kind_name(self, kind: u32) -> Option<&'static str> {
        named(self.callback_kinds(), kind)
    }
    /// HIP runtime API ids the simulator models (reference §4.7).
    pub fn hip_ops(self) -> Vec<(i32, &'static str)> {
        let mut v: Vec<(i32, &'static str)> = HIP_OPS.to_vec();
        if self.is_v1() {
            v.extend_from_slice(HIP_OPS_V1_ONLY);
        }
        v.sort_unstable();
        v
    }
    pub fn hip_op(self, api: &str) -> Option<i32> {
        // Called for every simulated HIP call: look up in a per-family map built once.
        type Map = std::collections::HashMap<&'static str, i32>;
        static V0: std::sync::OnceLock<Map> = std::sync::OnceLock::new();
        static V1: std::sync::OnceLock<Map> = std::sync::OnceLock::new();
        let cell = if self.is_v1() { &V1 } else { &V0 };
        let map = cell.get_or_init(|| self.hip_ops().into_iter().map(|(id, n)| (n, id)).collect());
        map.get(api).copied()
    }
    /// Operations of a kind (by kind name); `None` = the simulator has no operation table for
    /// this kind (it is accepted but never emitted).
    pub fn operations(self, kind_name: &str) -> Option<Vec<(i32, &'static str)>> {
        let table: Vec<(i32, &'static str)> = match kind_name {
            "HIP_RUNTIME_API" | "HIP_RUNTIME_API_EXT" => self.hip_ops(),
            "MARKER_CORE_API" => enumerate(0, MARKER_CORE_OPS),
            "MARKER_CONTROL_API" => enumerate(0, MARKER_CONTROL_OPS),
            "MARKER_NAME_API" => enumerate(0, MARKER_NAME_OPS),
            "MARKER_CORE_RANGE_API" => enumerate(0, MARKER_CORE_RANGE_OPS),
            "MEMORY_COPY" => enumerate(1, MEMORY_COPY_OPS),
            "KERNEL_DISPATCH" => enumerate(1, KERNEL_DISPATCH_OPS),
            "CODE_OBJECT" => enumerate(1, CODE_OBJECT_OPS),
            "HIP_STREAM" => enumerate(1, HIP_STREAM_OPS),
            "HIP_EVENT" if self.has_hip_event() => enumerate(1, HIP_EVENT_OPS),
            "HIP_GRAPH" if self.callback_kind("HIP_GRAPH").is_some() => enumerate(1, HIP_GRAPH_OPS),
            _ => return None,
        };
        Some(table)
    }
    pub fn operation_name(self, kind_name: &str, op: i32) -> Option<&'static str> {
        self.operations(kind_name)?
            .into_iter()
            .find(|(id, _)| *id == op)
            .map(|(_, n)| n)
    }
}

impl fmt::Display for Personality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b, c) = self.triplet();
        write!(f, "{a}.{b}.{c}")
    }
}

fn position(table: &[&str], name: &str) -> Option<u32> {
    table.iter().position(|n| *n == name).map(|i| i as u32)
}

fn named(table: &'static [&'static str], v: u32) -> Option<&'static str> {
    let name = *table.get(v as usize)?;
    (name != "NONE").then_some(name)
}

fn enumerate(first: i32, names: &[&'static str]) -> Vec<(i32, &'static str)> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (first + i as i32, *n))
        .collect()
}

/// `rocprofiler_status_t` for 0.5.0+ (index = value); 41 only in 1.2.1.
pub const STATUS_NAMES: &[&str] = &[
    "ROCPROFILER_STATUS_SUCCESS",
    "ROCPROFILER_STATUS_ERROR",
    "ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR",
    "ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID",
    "ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED",
    "ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT",
    "ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO",
    "ROCPROFILER_STATUS_ERROR_BUFFER_BUSY",
    "ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED",
    "ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED",
    "ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED",
    "ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI",
    "ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT",
    "ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT",
    "ROCPROFILER_STATUS_ERROR_FINALIZED",
    "ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED",
    "ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_PROFILE_COUNTER_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_AST_GENERATION_FAILED",
    "ROCPROFILER_STATUS_ERROR_AST_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_AQL_NO_EVENT_COORD",
    "ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_KERNEL",
    "ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES",
    "ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND",
    "ROCPROFILER_STATUS_ERROR_AGENT_DISPATCH_CONFLICT",
    "ROCPROFILER_STATUS_INTERNAL_NO_AGENT_CONTEXT",
    "ROCPROFILER_STATUS_ERROR_SAMPLE_RATE_EXCEEDED",
    "ROCPROFILER_STATUS_ERROR_NO_PROFILE_QUEUE",
    "ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS",
    "ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH",
    "ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE",
    "ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT",
    "ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED",
    "ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED",
    "ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_REGISTER_VERSION",
];

/// Our own one-line explanations (the real strings are not reproduced).
pub fn status_string(name: &str) -> &'static str {
    match name.trim_start_matches("ROCPROFILER_STATUS_") {
        "SUCCESS" => "success",
        "ERROR" => "generic error",
        "ERROR_CONTEXT_NOT_FOUND" => "context id does not name a registered context",
        "ERROR_BUFFER_NOT_FOUND" => "buffer id does not name a buffer",
        "ERROR_KIND_NOT_FOUND" => "unknown tracing kind",
        "ERROR_OPERATION_NOT_FOUND" => "unknown operation for this kind",
        "ERROR_THREAD_NOT_FOUND" => "callback thread not found",
        "ERROR_CONTEXT_ID_NOT_ZERO" => "context id handle must be zero on input",
        "ERROR_BUFFER_BUSY" => "buffer is being flushed",
        "ERROR_SERVICE_ALREADY_CONFIGURED" => "service already configured for this context",
        "ERROR_CONFIGURATION_LOCKED" => "configuration is locked (outside the init window)",
        "ERROR_NOT_IMPLEMENTED" => "not implemented",
        "ERROR_INCOMPATIBLE_ABI" => "caller's struct size is larger than the runtime's",
        "ERROR_INVALID_ARGUMENT" => "invalid argument",
        "ERROR_FINALIZED" => "runtime already finalized",
        _ => "error (see status name)",
    }
}

/// Buffer-tracing kinds 0..=11, numbered alike in every release.
const BUFFER_KINDS_COMMON: &[&str] = &[
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
    "MEMORY_COPY",
    "KERNEL_DISPATCH",
];

/// 0.6.0 numbering: PAGE_MIGRATION still at 12.
pub const BUFFER_KINDS_V0_6: &[&str] = extend_table!(&str; BUFFER_KINDS_COMMON;
    "PAGE_MIGRATION", "SCRATCH_MEMORY", "CORRELATION_ID_RETIREMENT", "RCCL_API", "OMPT",
    "MEMORY_ALLOCATION", "RUNTIME_INITIALIZATION", "ROCDECODE_API");

/// 1.x numbering: PAGE_MIGRATION removed, later kinds shifted down, new kinds appended.
pub const BUFFER_KINDS_V1: &[&str] = extend_table!(&str; BUFFER_KINDS_COMMON;
    "SCRATCH_MEMORY", "CORRELATION_ID_RETIREMENT", "RCCL_API", "OMPT", "MEMORY_ALLOCATION",
    "RUNTIME_INITIALIZATION", "ROCDECODE_API", "ROCJPEG_API", "HIP_STREAM",
    "HIP_RUNTIME_API_EXT", "HIP_COMPILER_API_EXT", "ROCDECODE_API_EXT",
    "KFD_EVENT_PAGE_MIGRATE", "KFD_EVENT_PAGE_FAULT", "KFD_EVENT_QUEUE",
    "KFD_EVENT_UNMAP_FROM_GPU", "KFD_EVENT_DROPPED_EVENTS", "KFD_PAGE_MIGRATE",
    "KFD_PAGE_FAULT", "KFD_QUEUE", "MARKER_CORE_RANGE_API");

const CALLBACK_KINDS_V0_6: &[&str] = &[
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
];

/// 1.x: the 0.6 kinds plus ROCJPEG_API, HIP_STREAM and MARKER_CORE_RANGE_API.
const CALLBACK_KINDS_V1: &[&str] = extend_table!(&str; CALLBACK_KINDS_V0_6;
    "ROCJPEG_API", "HIP_STREAM", "MARKER_CORE_RANGE_API");

/// After 1.2.1 ("newer" reference §2.1): kinds appended up to HIP_EVENT = 38 (the value
/// upstream's HIP event tests hard-code; the declaring fwd.h was not available).
const BUFFER_KINDS_HIP_EVENT: &[&str] = extend_table!(&str; BUFFER_KINDS_V1;
    "HIP_GRAPH", "ROCSHMEM_API", "ROCSHMEM_API_EXT", "HIPFILE_API", "HIPFILE_API_EXT",
    "HIP_EVENT");

/// After 1.2.1 (§2.2): HIP_GRAPH 22, ROCSHMEM_API 23, HIPFILE_API 24 as compiled; HIP_EVENT
/// appended at 25 (INFERRED in the reference: the value was not available).
const CALLBACK_KINDS_HIP_EVENT: &[&str] = extend_table!(&str; CALLBACK_KINDS_V1;
    "HIP_GRAPH", "ROCSHMEM_API", "HIPFILE_API", "HIP_EVENT");

/// External-correlation request kinds: numbered like the buffer kinds up to KERNEL_DISPATCH.
const REQUEST_KINDS_V0_6: &[&str] = extend_table!(&str; BUFFER_KINDS_COMMON;
    "SCRATCH_MEMORY", "RCCL_API", "OMPT", "MEMORY_ALLOCATION", "ROCDECODE_API");

/// 1.x: the 0.6 kinds plus ROCJPEG_API and MARKER_CORE_RANGE_API.
const REQUEST_KINDS_V1: &[&str] = extend_table!(&str; REQUEST_KINDS_V0_6;
    "ROCJPEG_API", "MARKER_CORE_RANGE_API");

/// HIP ids from the unconditional block (identical 0.4.0 … 1.2.1).
const HIP_OPS: &[(i32, &str)] = &[
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

/// Step-guarded ids that only 1.x builds have (HIP step ≥ 10/11).
const HIP_OPS_V1_ONLY: &[(i32, &str)] = &[
    (473, "hipEventRecordWithFlags"),
    (474, "hipLaunchKernelExC"),
    (475, "hipDrvLaunchKernelEx"),
];

const MARKER_CORE_OPS: &[&str] = &[
    "roctxMarkA",
    "roctxRangePushA",
    "roctxRangePop",
    "roctxRangeStartA",
    "roctxRangeStop",
    "roctxGetThreadId",
];
const MARKER_CONTROL_OPS: &[&str] = &["roctxProfilerPause", "roctxProfilerResume"];
const MARKER_NAME_OPS: &[&str] = &[
    "roctxNameOsThread",
    "roctxNameHsaAgent",
    "roctxNameHipDevice",
    "roctxNameHipStream",
];
const MARKER_CORE_RANGE_OPS: &[&str] = &[
    "roctxMarkA",
    "roctxThreadRangeA",
    "roctxProcessRangeA",
    "roctxGetThreadId",
];
const MEMORY_COPY_OPS: &[&str] = &[
    "MEMORY_COPY_HOST_TO_HOST",
    "MEMORY_COPY_HOST_TO_DEVICE",
    "MEMORY_COPY_DEVICE_TO_HOST",
    "MEMORY_COPY_DEVICE_TO_DEVICE",
];
const KERNEL_DISPATCH_OPS: &[&str] = &["KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"];
const CODE_OBJECT_OPS: &[&str] = &[
    "CODE_OBJECT_LOAD",
    "CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER",
    "CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER",
];
const HIP_STREAM_OPS: &[&str] = &["HIP_STREAM_CREATE", "HIP_STREAM_DESTROY", "HIP_STREAM_SET"];
/// Operation names follow the SDK's `<KIND>_<OPERATION>` convention (not read from a source).
const HIP_EVENT_OPS: &[&str] = &["HIP_EVENT_RECORD", "HIP_EVENT_WAIT"];
/// HIP_GRAPH operations (reference "newer" §2.3), named by the same convention.
const HIP_GRAPH_OPS: &[&str] = &[
    "HIP_GRAPH_EXEC_CREATE",
    "HIP_GRAPH_EXEC_DESTROY",
    "HIP_GRAPH_EXEC_LAUNCH",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_by_suffix_is_its_full_names_position() {
        for p in ALL_PERSONALITIES {
            for (i, name) in p.status_names().iter().enumerate() {
                let suffix = name.strip_prefix("ROCPROFILER_STATUS_").unwrap();
                assert_eq!(p.status_suffix(suffix), i as u32, "{p:?} {name}");
                assert_eq!(p.status(name), i as u32);
            }
            // An unknown name is the generic error, as `status` has it.
            assert_eq!(p.status_suffix("NO_SUCH_STATUS"), 1);
        }
    }

    #[test]
    fn numbering_matches_reference_tables() {
        let p0 = Personality::V0_6_0;
        let p1 = Personality::V1_0_0;
        assert_eq!(p0.buffer_kind("PAGE_MIGRATION"), Some(12));
        assert_eq!(p0.buffer_kind("SCRATCH_MEMORY"), Some(13));
        assert_eq!(p0.buffer_kinds().len(), 20);
        assert_eq!(p1.buffer_kind("PAGE_MIGRATION"), None);
        assert_eq!(p1.buffer_kind("SCRATCH_MEMORY"), Some(12));
        assert_eq!(p1.buffer_kind("HIP_STREAM"), Some(20));
        assert_eq!(p1.buffer_kind("HIP_RUNTIME_API_EXT"), Some(21));
        assert_eq!(p1.buffer_kind("MARKER_CORE_RANGE_API"), Some(32));
        assert_eq!(p1.buffer_kinds().len(), 33);
        assert_eq!(p0.callback_kinds().len(), 19);
        assert_eq!(p1.callback_kind("HIP_STREAM"), Some(20));
        assert_eq!(p1.callback_kind("MARKER_CORE_RANGE_API"), Some(21));
        assert_eq!(
            p0.status("ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED"),
            16
        );
        assert_eq!(p0.status("ROCPROFILER_STATUS_ERROR_FINALIZED"), 21);
        assert_eq!(p0.status_names().len(), 41);
        assert_eq!(Personality::V1_2_1.status_names().len(), 42);
        assert_eq!(p0.request_kind("MEMORY_ALLOCATION"), Some(15));
        assert_eq!(p1.request_kind("MARKER_CORE_RANGE_API"), Some(18));
        assert_eq!(p0.hip_op("hipLaunchKernel"), Some(214));
        assert_eq!(p0.hip_op("hipLaunchKernelExC"), None);
        assert_eq!(p1.hip_op("hipLaunchKernelExC"), Some(474));
        // §4.6: request kinds have their own numbering, complete tables per family.
        let req0 = [
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
            "MEMORY_COPY",
            "KERNEL_DISPATCH",
            "SCRATCH_MEMORY",
            "RCCL_API",
            "OMPT",
            "MEMORY_ALLOCATION",
            "ROCDECODE_API",
        ];
        assert_eq!(p0.request_kinds(), &req0[..]);
        let mut req1 = req0.to_vec();
        req1.extend(["ROCJPEG_API", "MARKER_CORE_RANGE_API"]);
        assert_eq!(p1.request_kinds(), &req1[..]);
        assert_eq!(Personality::V1_2_1.request_kinds(), &req1[..]);
        assert_eq!(p0.agent_size(), 304);
        assert_eq!(p1.agent_size(), 304);
        assert_eq!(Personality::V1_2_1.agent_size(), 312);
        assert_eq!(p0.version_number(), 600);
        assert_eq!(p1.version_number(), 10000);
        assert_eq!(Personality::V1_2_1.version_number(), 10201);
    }
}
