//! The planes that describe the run rather than hold its events: the scope-range tree
//! (`/host:__ScopeRangeCallStack__`) and the Task Environment (the profile's wall-clock
//! window, its origin, the record counters), and the warnings the counters give.

use crate::model::{Counters, Trace};

use super::Timebase;
use crate::xplane::builder::{BuiltPlane, PlaneBuilder, StatValue};
use crate::xplane::proto::{x_stat, XStat};
use crate::xplane::stats as s;

/// `/host:__ScopeRangeCallStack__`: one plane stat per (child, parent), `metadata_id` = child,
/// `int64_value` = parent. Like XLA's CUPTI collector, one empty-named stat metadata at the
/// largest id keeps later writers from reusing those ids; no plane when the tree is empty.
pub(super) fn scope_tree_plane(tree: &[(i64, i64)]) -> Option<BuiltPlane> {
    if tree.is_empty() {
        return None;
    }
    let mut plane = PlaneBuilder::new(0, s::SCOPE_TREE_PLANE);
    let mut max_id = 0;
    for &(child, parent) in tree {
        max_id = max_id.max(child).max(parent);
        plane.add_raw_plane_stat(XStat {
            metadata_id: child,
            value: Some(x_stat::Value::Int64Value(parent)),
        });
    }
    plane.reserve_stat_ids_up_to(max_id);
    Some(plane.finish())
}

/// `Task Environment`: the absolute wall-clock window (uint64 ns, as `ProfilerSession` writes),
/// which the relative line timestamps need to be placed in time, plus our record counters.
pub(super) fn task_environment_plane(trace: &Trace, base: &Timebase) -> BuiltPlane {
    let mut plane = PlaneBuilder::new(0, s::TASK_ENV_PLANE);
    let start_wall = trace
        .start_walltime_ns
        .saturating_sub(base.before_start_ns(trace));
    plane.add_plane_stat(s::PROFILE_START_TIME, StatValue::U64(start_wall));
    plane.add_plane_stat(s::PROFILE_STOP_TIME, StatValue::U64(trace.stop_walltime_ns));
    plane.add_plane_stat(s::ORIGIN_BOOTTIME_NS, StatValue::U64(base.origin_ns));
    plane.add_plane_stat(
        "rocprof_xplane_version",
        StatValue::Str(env!("CARGO_PKG_VERSION")),
    );
    if !trace.sdk_version.is_empty() {
        plane.add_plane_stat(
            "rocprofiler_sdk_version",
            StatValue::Str(&trace.sdk_version),
        );
    }
    for (name, value) in counter_fields(&trace.counters) {
        plane.add_plane_stat(&format!("rocprof_xplane_{name}"), StatValue::U64(value));
    }
    plane.finish()
}

/// Every counter with its field name, in declaration order.
fn counter_fields(c: &Counters) -> [(&'static str, u64); 18] {
    [
        ("api_records", c.api_records),
        ("kernel_records", c.kernel_records),
        ("memcpy_records", c.memcpy_records),
        ("marker_records", c.marker_records),
        ("unknown_kind_records", c.unknown_kind_records),
        ("bad_size_records", c.bad_size_records),
        ("runtime_dropped", c.runtime_dropped),
        ("activities_without_api", c.activities_without_api),
        ("launches_without_activity", c.launches_without_activity),
        ("kernels_without_symbol", c.kernels_without_symbol),
        ("bad_timestamp_records", c.bad_timestamp_records),
        ("waits_resolved", c.waits_resolved),
        ("waits_unresolved", c.waits_unresolved),
        ("waits_without_arrow", c.waits_without_arrow),
        ("stream_overlap_events", c.stream_overlap_events),
        ("hip_event_records", c.hip_event_records),
        ("memory_limit_dropped", c.memory_limit_dropped),
        ("memory_frees_unmatched", c.memory_frees_unmatched),
    ]
}

/// One warning per non-zero anomaly counter, so xprof users see losses without our CLI.
pub fn counter_warnings(c: &Counters) -> Vec<String> {
    let items = [
        (
            c.runtime_dropped,
            "records dropped by the runtime (drop_count)",
        ),
        (
            c.memory_limit_dropped,
            "records dropped at the memory ceiling (ROCPROF_XPLANE_MAX_MEMORY)",
        ),
        (
            c.memory_frees_unmatched,
            "frees that ended no allocation seen in the profile (allocated before it began, freed twice, or not HIP's)",
        ),
        (c.unknown_kind_records, "records of an unknown kind skipped"),
        (
            c.bad_size_records,
            "records with a too-small size field skipped",
        ),
        (
            c.activities_without_api,
            "device activities without a matching API call (kept, no launch arrow)",
        ),
        (
            c.launches_without_activity,
            "launch/copy API calls without device activity (kept on the host)",
        ),
        (
            c.kernels_without_symbol,
            "kernel dispatches without a kernel symbol (named by kernel id)",
        ),
        (
            c.bad_timestamp_records,
            "device activities with a zero start (skipped) or an end before the start (zero duration)",
        ),
        (
            c.waits_without_arrow,
            "waits resolved to an event record made in an earlier capture window (no arrow: its anchor is there; windows merged with ROCPROF_XPLANE_WINDOW_MERGE draw it)",
        ),
        (
            c.stream_overlap_events,
            "device events moved to a sub-line because their HIP stream overlapped itself",
        ),
    ];
    items
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("rocprof-xplane: {n} {what}"))
        .collect()
}
