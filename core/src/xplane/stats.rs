//! Names xprof looks for, and the detail strings it parses.
//!
//! The strings are XLA's (`xplane_schema.cc`); xprof matches them exactly, capitalisation
//! included. Names marked "ours" are not in XLA's table: xprof shows them as plain arguments in
//! the trace viewer and otherwise ignores them.

use crate::model::occupancy::Occupancy;
use crate::model::{CopyDirection, LaunchShape, MemcpyInfo};

pub const HOST_PLANE: &str = "/host:CPU";

// The memory timeline xprof's memory profile reads (`xplane_to_memory_profile.cc`): events of
// these names on the host plane, with these stats (XLA's StatType names).
pub const MEMORY_ALLOCATION: &str = "MemoryAllocation";
pub const MEMORY_DEALLOCATION: &str = "MemoryDeallocation";
pub const ALLOCATOR_NAME: &str = "allocator_name";
pub const BYTES_RESERVED: &str = "bytes_reserved";
pub const BYTES_ALLOCATED: &str = "bytes_allocated";
pub const BYTES_AVAILABLE: &str = "bytes_available";
pub const PEAK_BYTES_IN_USE: &str = "peak_bytes_in_use";
pub const REQUESTED_BYTES: &str = "requested_bytes";
pub const ALLOCATION_BYTES: &str = "allocation_bytes";
pub const ADDRESS: &str = "addr";
pub const REGION_TYPE: &str = "region_type";
pub const DATA_TYPE: &str = "data_type";
pub const TENSOR_SHAPE: &str = "shape";
/// Line of the host plane holding the memory timeline: below 2^30 (the roctx lines' bit) and
/// far above any Linux thread id (< 2^22).
pub const MEMORY_LINE_ID: i64 = (1 << 30) - 1;
pub const GPU_PLANE_PREFIX: &str = "/device:GPU:";
pub const SCOPE_TREE_PLANE: &str = "/host:__ScopeRangeCallStack__";
pub const TASK_ENV_PLANE: &str = "Task Environment";

// Event stats.
pub const CORRELATION_ID: &str = "correlation_id";
/// Ours, on device events whose launch call is not in the file (its record was dropped, or HIP
/// tracing was off): xprof turns `correlation_id` into a launch-flow end, which would then be an
/// arrow without its source, so the id is kept under this name instead.
pub const ORPHAN_CORRELATION_ID: &str = "orphan_correlation_id";
pub const DEVICE_ID: &str = "device_id";
pub const KERNEL_DETAILS: &str = "kernel_details";
pub const MEMCPY_DETAILS: &str = "memcpy_details";
pub const SCOPE_RANGE_ID: &str = "scope_range_id";
pub const NVTX_RANGE: &str = "nvtx_range";
pub const TF_OP: &str = "tf_op";
/// Ours: innermost external correlation id pushed by the application (uint64).
pub const EXTERNAL_CORRELATION_ID: &str = "external_correlation_id";
/// Ours: every external correlation id, outermost first, comma-separated (only when > 1).
pub const EXTERNAL_CORRELATION_IDS: &str = "external_correlation_ids";
/// Ours: on a roctx range still open when the profile ended (int64 1; closed at the end time).
pub const OPEN_AT_END: &str = "open_at_end";
/// Ours: number of device activities a host API call produced (graph launches produce many).
pub const ACTIVITY_COUNT: &str = "activity_count";

// Steps (XLA's StatType names; `xplane::steps`). `_r` (int64) makes an event a step root of
// that level; `step_num` (int64) numbers it. `_a` marks an async root, `step_name` names a
// step and `group_id` is what xprof's own grouping writes: none of them may come from a label.
pub const STEP_ROOT_LEVEL: &str = "_r";
pub const STEP_NUM: &str = "step_num";
pub const ASYNC_ROOT_LEVEL: &str = "_a";
pub const STEP_NAME: &str = "step_name";
pub const GROUP_ID: &str = "group_id";

// Graphs in xprof's vocabulary (CUPTI's names, uint64): `cuda_graph_id` on every kernel and
// copy a `hipGraphLaunch` ran and on the launch, `cuda_graph_exec_id` on the launch; on AMD
// both are rocprofiler's executable-graph id (`GRAPH_EXEC_ID`'s value).
pub const CUDA_GRAPH_ID: &str = "cuda_graph_id";
pub const CUDA_GRAPH_EXEC_ID: &str = "cuda_graph_exec_id";

// Device-capability plane stats.
pub const DEVICE_VENDOR: &str = "device_vendor";
pub const GPU_DEVICE_NAME: &str = "gpu_device_name";
pub const CORE_COUNT: &str = "core_count";
pub const CLOCK_RATE: &str = "clock_rate";
pub const MEMORY_BANDWIDTH: &str = "memory_bandwidth";
pub const MEMORY_SIZE: &str = "memory_size";
/// double: the dense 16-bit matrix peak (`hip::arch::peak_teraflops`), xprof's roofline.
pub const PEAK_TERAFLOPS_PER_SECOND: &str = "peak_teraflops_per_second";
pub const COMPUTE_CAP_MAJOR: &str = "compute_cap_major";
pub const COMPUTE_CAP_MINOR: &str = "compute_cap_minor";
/// Ours: marketing name, e.g. "AMD Instinct MI300X".
pub const PRODUCT_NAME: &str = "product_name";
pub const VENDOR_AMD: &str = "AMD";

// Task Environment plane stats.
pub const PROFILE_START_TIME: &str = "profile_start_time";
pub const PROFILE_STOP_TIME: &str = "profile_stop_time";
/// Ours: the `CLOCK_BOOTTIME` ns every offset of the file counts from, so that profiles of one
/// run cut in time (capture windows) are put on one clock exactly (`xplane::merge`).
pub const ORIGIN_BOOTTIME_NS: &str = "rocprof_xplane_origin_boottime_ns";
/// Ours (`clock`): the job's origin, Unix ns: a line's `timestamp_ns` and its events' offsets
/// count from it, as every other process of the job's do.
pub const CLOCK_ORIGIN_UNIX_NS: &str = "rocprof_xplane_clock_origin_unix_ns";
/// Ours: which job time gave the origin (`clock::JobTimeSource::describe`).
pub const CLOCK_ORIGIN_FROM: &str = "rocprof_xplane_clock_origin_from";
/// Ours: how the times line up with the job's other processes (`clock::Alignment::describe`).
pub const CLOCK_ALIGNMENT: &str = "rocprof_xplane_clock_alignment";
/// Ours: how far any time of the file may be off the job clock, from what was measured (the
/// clock readings, the offset estimate, a wall-clock step), in ns.
pub const CLOCK_ERROR_NS: &str = "rocprof_xplane_clock_error_ns";
/// Ours: the boot and wall clocks read together at the profile's start and end.
pub const CLOCK_BOOT_NS: &str = "rocprof_xplane_clock_boot_ns";
pub const CLOCK_WALL_NS: &str = "rocprof_xplane_clock_wall_ns";
pub const CLOCK_STOP_BOOT_NS: &str = "rocprof_xplane_clock_stop_boot_ns";
pub const CLOCK_STOP_WALL_NS: &str = "rocprof_xplane_clock_stop_wall_ns";
/// Ours (int64, when not 0): how far the wall clock moved against the boot clock between the
/// start and the end, beyond the readings' errors (a step of the wall clock).
pub const CLOCK_DRIFT_NS: &str = "rocprof_xplane_clock_drift_ns";
/// Ours (int64): this host's wall clock minus the job's clock reference's, estimated.
pub const CLOCK_OFFSET_NS: &str = "rocprof_xplane_clock_offset_ns";

/// Ours, in a capture window to be merged (`xplane::WindowIdentity`): the process and the run
/// it belongs to. The merge refuses windows that differ in either and leaves both out of the
/// profile it writes.
pub const WINDOW_PID: &str = "rocprof_xplane_window_pid";
pub const WINDOW_RUN: &str = "rocprof_xplane_window_run";

/// Stats this writer sets itself; annotation keys with these names are not copied onto
/// events, so a user's `roctx` label can never forge a correlation id, a kernel marker or a
/// step root (a TraceMe step range's `_r` on every call inside it would make each call a step).
pub const RESERVED_EVENT_STATS: &[&str] = &[
    CORRELATION_ID,
    ORPHAN_CORRELATION_ID,
    DEVICE_ID,
    KERNEL_DETAILS,
    MEMCPY_DETAILS,
    SCOPE_RANGE_ID,
    NVTX_RANGE,
    TF_OP,
    EXTERNAL_CORRELATION_ID,
    EXTERNAL_CORRELATION_IDS,
    ACTIVITY_COUNT,
    OPEN_AT_END,
    "flow",
    STEP_ROOT_LEVEL,
    ASYNC_ROOT_LEVEL,
    STEP_NAME,
    GROUP_ID,
    "_pt",
    "_p",
    "_ct",
    "_c",
    // Sync stats, the queue stat and the dependency anchors' stat (`xplane::deps`).
    super::deps::HIP_EVENT,
    super::deps::HIP_STREAM,
    super::deps::SYNC_TYPE,
    super::deps::WAIT_ON_HIP_EVENT_ID,
    super::deps::WAIT_ON_STREAM,
    super::deps::WAIT_ON_HIP_EVENT_RECORD_CORR_ID,
    super::deps::HSA_QUEUE,
    super::deps::DEPENDENCY_OF,
    // Kernel resources (on kernel event metadata).
    SGPR_COUNT,
    ARCH_VGPR_COUNT,
    AGPR_COUNT,
    SCRATCH_BYTES,
    USES_SCRATCH,
    WAVES_PER_SIMD,
    OCCUPANCY_LIMITER,
    PIPE_ID,
    GRAPH_EXEC_ID,
    GRAPH_NODE_ID,
    CUDA_GRAPH_ID,
    CUDA_GRAPH_EXEC_ID,
];

/// `kernel_details` in the token format xprof's `ParseKernelLaunchParams` reads (`regs:`,
/// `static_shared:`, `dynamic_shared:`, `grid:` in blocks, `block:`, `occ_pct:`), with the ROCm
/// token `private_mem:` (scratch bytes per work-item) that xprof shows but does not parse.
/// `occ_pct` only where the architecture's limits are known (`model::occupancy`): a made-up 0
/// would read as a fact.
pub fn kernel_details(k: &LaunchShape, occ: Option<&Occupancy>) -> String {
    let mut s = format!(
        "regs:{} static_shared:{} dynamic_shared:{} grid:{},{},{} block:{},{},{} private_mem:{}",
        k.code.vgpr_count,
        k.code.static_shared_bytes,
        k.dynamic_shared_bytes,
        k.grid[0],
        k.grid[1],
        k.grid[2],
        k.block[0],
        k.block[1],
        k.block[2],
        k.private_segment_bytes,
    );
    if let Some(o) = occ {
        // Shortest form, at most 2 decimals: 100, 62.5, 31.25.
        s += &format!(" occ_pct:{}", (o.percent() * 100.0).round() / 100.0);
    }
    s
}

/// Ours, on kernel events whose occupancy is known: waves of the kernel per SIMD, and the
/// resource that limits it (`vgpr`, `sgpr`, `lds`, `workgroups`, or `waves` when only the
/// wave slots do).
pub const WAVES_PER_SIMD: &str = "waves_per_simd";
/// Ours: the hardware pipe the dispatch's completion came from (`pipe_id` of the newest SDK's
/// kernel-dispatch record; the raw value, the SDK's "none" sentinel included).
pub const PIPE_ID: &str = "pipe_id";
/// Ours (rocprofv3's column names; CUPTI's `graphId`/`graphNodeId` in spirit): the executable
/// graph (`rocprofiler_graph_exec_id_t`) of a graph launch and its work, and the work's
/// zero-based node position within the launch (uint64).
pub const GRAPH_EXEC_ID: &str = "graph_exec_id";
pub const GRAPH_NODE_ID: &str = "graph_node_id";
pub const OCCUPANCY_LIMITER: &str = "occupancy_limiter";

/// Register and scratch resources of a kernel, from its code object (the same for every
/// dispatch, so written once on the kernel's event metadata): what AMD users read to judge
/// register pressure and spilling, beside `kernel_details`' `regs:` total.
pub const SGPR_COUNT: &str = "sgpr_count";
pub const ARCH_VGPR_COUNT: &str = "arch_vgpr_count";
pub const AGPR_COUNT: &str = "agpr_count";
pub const SCRATCH_BYTES: &str = "scratch_bytes";
/// 1 when the kernel uses scratch (private segment > 0): register spills or private arrays —
/// the code object does not say which, so the name says "uses", not "spills".
pub const USES_SCRATCH: &str = "uses_scratch";

/// `(name, value)` of the resource stats of `k`.
pub fn kernel_resource_stats(k: &LaunchShape) -> Vec<(&'static str, i64)> {
    let mut v = vec![
        (SGPR_COUNT, i64::from(k.code.sgpr_count)),
        (
            ARCH_VGPR_COUNT,
            i64::from(k.code.vgpr_count.saturating_sub(k.code.agpr_count)),
        ),
        (AGPR_COUNT, i64::from(k.code.agpr_count)),
        (SCRATCH_BYTES, i64::from(k.code.symbol_scratch_bytes)),
    ];
    if k.code.symbol_scratch_bytes > 0 {
        v.push((USES_SCRATCH, 1));
    }
    v
}

/// Device event name for a copy. xprof classifies copies by case-insensitive name prefix
/// (`MemcpyHToD`, `MemcpyDToH`, `MemcpyDToD`, `MemcpyHToH`); XLA's ROCm names (`MemcpyH2D`, …)
/// match none of them and are counted as compute, so we use xprof's spelling.
pub fn memcpy_event_name(direction: CopyDirection) -> &'static str {
    match direction {
        CopyDirection::HostToDevice => "MemcpyHToD",
        CopyDirection::DeviceToHost => "MemcpyDToH",
        CopyDirection::DeviceToDevice => "MemcpyDToD",
        CopyDirection::HostToHost => "MemcpyHToH",
        CopyDirection::Unknown => "MemcpyOther",
    }
}

/// `memcpy_details` in CUPTI's key order (`kind_src:`, `kind_dst:`, `size:`, `dest:`), plus
/// `src:` for the source GPU. Memory kinds are CUPTI's names (`device`, `pinned`, `managed`,
/// `pageable`), from the allocations the tool saw (`model::memory`); when the call's pointers
/// were not seen, `host`/`device` by the copy's direction (rocprofiler's record does not say
/// whether host memory was pinned). `dest:`/`src:` are GPU ordinals and appear only for GPUs.
pub fn memcpy_details(m: &MemcpyInfo) -> String {
    let (src, dst) = if let Some((dst, src)) = m.kinds {
        (src.name(), dst.name())
    } else {
        match m.direction {
            CopyDirection::HostToDevice => ("host", "device"),
            CopyDirection::DeviceToHost => ("device", "host"),
            CopyDirection::DeviceToDevice => ("device", "device"),
            CopyDirection::HostToHost => ("host", "host"),
            CopyDirection::Unknown => ("unknown", "unknown"),
        }
    };
    let mut s = format!("kind_src:{src} kind_dst:{dst} size:{}", m.bytes);
    if let Some(d) = m.dst_device {
        s.push_str(&format!(" dest:{d}"));
    }
    if let Some(d) = m.src_device {
        s.push_str(&format!(" src:{d}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_details_tokens_are_the_ones_xprof_parses() {
        let k = LaunchShape {
            grid: [128, 2, 1],
            block: [256, 1, 1],
            code: std::sync::Arc::new(crate::model::KernelCode {
                vgpr_count: 64,
                static_shared_bytes: 1024,
                ..Default::default()
            }),
            dynamic_shared_bytes: 2048,
            private_segment_bytes: 16,
            ..Default::default()
        };
        assert_eq!(
            kernel_details(&k, None),
            "regs:64 static_shared:1024 dynamic_shared:2048 grid:128,2,1 block:256,1,1 private_mem:16"
        );
        let o = Occupancy {
            waves_per_simd: 5,
            max_waves_per_simd: 8,
            limiter: "vgpr",
        };
        assert!(kernel_details(&k, Some(&o)).ends_with(" private_mem:16 occ_pct:62.5"));
    }
}
