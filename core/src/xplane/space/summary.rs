//! The planes that describe the run rather than hold its events: the scope-range tree
//! (`/host:__ScopeRangeCallStack__`) and the Task Environment (the profile's wall-clock
//! window, its origin, the record counters), and the warnings the counters give.

use crate::clock::{Alignment, JobClock};
use crate::model::{Counters, Trace};

use super::Timebase;
use crate::xplane::builder::{BuiltPlane, PlaneBuilder, StatValue};
use crate::xplane::hlo;
use crate::xplane::proto::{x_stat, XStat};
use crate::xplane::run_ids::{finish_plane, new_plane, RunIds};
use crate::xplane::stats as s;
use crate::xplane::steps::StepRoots;

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

/// `/host:metadata`: a placeholder HLO module per program the run's labels name
/// (`xplane::hlo`), so xprof's op tools place the kernels labelled with its ops; no plane when
/// the labels name none.
pub(super) fn hlo_metadata_plane(trace: &Trace) -> Option<BuiltPlane> {
    let programs = hlo::programs(trace);
    if programs.is_empty() {
        return None;
    }
    let mut plane = PlaneBuilder::new(0, hlo::METADATA_PLANE);
    for (id, p) in &programs {
        let proto = hlo::placeholder_module(&p.module, *id, p.ops.iter().map(String::as_str));
        let stat = plane.stat(hlo::HLO_PROTO, StatValue::Bytes(&proto));
        plane.add_raw_event_metadata(*id, &p.module, vec![stat]);
    }
    Some(plane.finish())
}

/// `Task Environment`: the absolute wall-clock window (uint64 ns, as `ProfilerSession` writes),
/// which the relative line timestamps need to be placed in time, plus our record counters.
/// Some stats are written only when they tell something (the clock's drift and offset): for a
/// window of a run, the plane goes on from the run's names, so a stat keeps its id in every
/// window whichever of them came before it (the merge puts windows in place only then).
pub(super) fn task_environment_plane(
    trace: &Trace,
    base: &Timebase,
    steps: &StepRoots,
    run: Option<&RunIds>,
) -> BuiltPlane {
    let mut plane = new_plane(run, 0, s::TASK_ENV_PLANE.to_string());
    if let Some(id) = run.and_then(RunIds::identity) {
        plane.add_plane_stat(s::WINDOW_PID, StatValue::U64(u64::from(id.pid)));
        plane.add_plane_stat(s::WINDOW_RUN, StatValue::U64(id.run));
    }
    let start_wall = trace
        .start_walltime_ns
        .saturating_sub(base.before_start_ns(trace));
    plane.add_plane_stat(s::PROFILE_START_TIME, StatValue::U64(start_wall));
    plane.add_plane_stat(s::PROFILE_STOP_TIME, StatValue::U64(trace.stop_walltime_ns));
    plane.add_plane_stat(s::ORIGIN_BOOTTIME_NS, StatValue::U64(base.origin_ns));
    if let Some(c) = base.clock {
        clock_stats(&mut plane, c);
    }
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
    // Counted by the writer, which decides the steps (`xplane::steps`).
    plane.add_plane_stat(
        "rocprof_xplane_steps_overlapping",
        StatValue::U64(steps.overlapping),
    );
    finish_plane(run, plane)
}

/// The job clock the times are on: its origin and where it came from, the clock readings of
/// the map, and how well the times line up with the job's other processes.
fn clock_stats(plane: &mut PlaneBuilder, c: &JobClock) {
    plane.add_plane_stat(s::CLOCK_ORIGIN_UNIX_NS, StatValue::U64(c.origin.unix_ns));
    plane.add_plane_stat(
        s::CLOCK_ORIGIN_FROM,
        StatValue::Str(c.origin.source.describe()),
    );
    plane.add_plane_stat(s::CLOCK_ALIGNMENT, StatValue::Str(&c.alignment.describe()));
    let drift = c.drift_ns();
    let error = u64::try_from(drift.unsigned_abs()).unwrap_or(u64::MAX);
    plane.add_plane_stat(
        s::CLOCK_ERROR_NS,
        StatValue::U64(c.error_ns().saturating_add(error)),
    );
    plane.add_plane_stat(s::CLOCK_BOOT_NS, StatValue::U64(c.start_pair.boot_ns));
    plane.add_plane_stat(s::CLOCK_WALL_NS, StatValue::U64(c.start_pair.wall_ns));
    plane.add_plane_stat(s::CLOCK_STOP_BOOT_NS, StatValue::U64(c.stop_pair.boot_ns));
    plane.add_plane_stat(s::CLOCK_STOP_WALL_NS, StatValue::U64(c.stop_pair.wall_ns));
    if drift != 0 {
        let drift = i64::try_from(drift).unwrap_or(i64::MAX);
        plane.add_plane_stat(s::CLOCK_DRIFT_NS, StatValue::I64(drift));
    }
    if let Alignment::Estimated { offset_ns, .. } = c.alignment {
        plane.add_plane_stat(s::CLOCK_OFFSET_NS, StatValue::I64(offset_ns));
    }
}

/// Every counter with its field name, in declaration order.
fn counter_fields(c: &Counters) -> [(&'static str, u64); 21] {
    [
        ("api_records", c.api_records),
        ("kernel_records", c.kernel_records),
        ("memcpy_records", c.memcpy_records),
        ("marker_records", c.marker_records),
        ("unknown_kind_records", c.unknown_kind_records),
        ("bad_size_records", c.bad_size_records),
        ("runtime_dropped", c.runtime_dropped),
        ("activities_without_api", c.activities_without_api),
        ("activities_unplaced", c.activities_unplaced),
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
        ("windows_lost", c.windows_lost),
        ("window_records_lost", c.window_records_lost),
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
            c.activities_unplaced,
            "device activities without their call's launch facts either (kept, without its stream and roctx labels)",
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

#[cfg(test)]
mod tests {
    use super::super::testing::{events_in_turn, gpu_plane, one_line};
    use crate::clock::{ClockPair, JobClock, Origin, DAY_NS};
    use crate::model::{CopyDirection, DeviceEventKind, MemcpyInfo, Trace};
    use crate::xplane::proto::{x_event, x_stat, XPlane};
    use crate::xplane::stats as s;

    const S: u64 = 1_000_000_000;
    /// 2026-08-21T13:20:00Z.
    const WALL: u64 = 1_787_318_400 * S;
    const BOOT: u64 = 3 * DAY_NS;

    fn pair(boot_ns: u64, wall_ns: u64) -> ClockPair {
        ClockPair {
            boot_ns,
            wall_ns,
            error_ns: 40,
        }
    }

    /// A GPU with four 5 ns kernels 10 ns apart from `BOOT`, on a job clock through `stop`.
    fn trace(stop: ClockPair) -> Trace {
        let copy = MemcpyInfo {
            direction: CopyDirection::HostToDevice,
            bytes: 4096,
            src_device: None,
            dst_device: Some(0),
            kinds: None,
        };
        let mut d = one_line(events_in_turn(4, |_| {
            DeviceEventKind::Memcpy(Box::new(copy.clone()))
        }));
        for e in &mut d.lines[0].events {
            e.start_ns += BOOT;
            e.end_ns += BOOT;
        }
        Trace {
            start_boottime_ns: BOOT,
            stop_boottime_ns: stop.boot_ns,
            start_covers_events: true,
            clock: Some(JobClock::new(
                Origin::own(WALL),
                pair(BOOT, WALL),
                stop,
                None,
                None,
            )),
            devices: vec![d],
            ..Trace::default()
        }
    }

    fn starts_ps(p: &XPlane) -> Vec<i64> {
        let l = &p.lines[0];
        l.events
            .iter()
            .map(|e| match e.data {
                Some(x_event::Data::OffsetPs(o)) => l.timestamp_ns * 1000 + o,
                _ => panic!("no offset"),
            })
            .collect()
    }

    fn env_stat(space: &crate::xplane::proto::XSpace, name: &str) -> Option<x_stat::Value> {
        let env = space.planes.iter().find(|p| p.name == s::TASK_ENV_PLANE)?;
        let (&id, _) = env.stat_metadata.iter().find(|(_, m)| m.name == name)?;
        env.stats
            .iter()
            .find(|st| st.metadata_id == id)
            .and_then(|st| st.value.clone())
    }

    /// Lines carry the job-clock time of the profile's start; offsets count from it as from
    /// the start on the boot clock; the Task Environment says which origin and how well.
    #[test]
    fn times_are_on_the_job_clock() {
        let t = trace(pair(BOOT + 60 * S, WALL + 60 * S));
        let space = crate::xplane::build_xspace(&t);
        let origin = Origin::own(WALL).unix_ns;
        let gpu = gpu_plane(&space);
        assert_eq!(gpu.lines[0].timestamp_ns, (WALL - origin) as i64);
        assert_eq!(
            starts_ps(gpu),
            (0..4)
                .map(|k| (WALL - origin) as i64 * 1000 + k * 10_000)
                .collect::<Vec<_>>()
        );
        assert_eq!(
            env_stat(&space, s::CLOCK_ORIGIN_UNIX_NS),
            Some(x_stat::Value::Uint64Value(origin))
        );
        assert_eq!(
            env_stat(&space, s::CLOCK_ALIGNMENT),
            Some(x_stat::Value::StrValue("aligned by host clocks".into()))
        );
        assert_eq!(
            env_stat(&space, s::CLOCK_ERROR_NS),
            Some(x_stat::Value::Uint64Value(40))
        );
        assert_eq!(env_stat(&space, s::CLOCK_DRIFT_NS), None);
    }

    /// The wall clock stepped 1 µs forward over 40 ns of boot time (a step): the events are
    /// spread over the line through the two pairs, still in order, and the profile says so.
    #[test]
    fn a_stepped_wall_clock_moves_the_events_and_is_said() {
        let t = trace(pair(BOOT + 40, WALL + 40 + 1_000));
        let space = crate::xplane::build_xspace(&t);
        let origin = Origin::own(WALL).unix_ns;
        let at = (WALL - origin) as i64 * 1000;
        // 10 ns of boot time is 10 + 250 ns there.
        assert_eq!(
            starts_ps(gpu_plane(&space)),
            vec![at, at + 260_000, at + 520_000, at + 780_000]
        );
        assert_eq!(
            env_stat(&space, s::CLOCK_DRIFT_NS),
            Some(x_stat::Value::Int64Value(1_000))
        );
        assert_eq!(
            env_stat(&space, s::CLOCK_ERROR_NS),
            Some(x_stat::Value::Uint64Value(1_040))
        );
    }

    /// Events that would lie past xprof's range on the job clock keep the profile's own
    /// start, and a warning says why.
    #[test]
    fn a_profile_out_of_range_keeps_its_own_start() {
        let mut t = trace(pair(BOOT + 60 * S, WALL + 60 * S));
        t.stop_boottime_ns = BOOT + 200 * DAY_NS;
        let space = crate::xplane::build_xspace(&t);
        assert_eq!(gpu_plane(&space).lines[0].timestamp_ns, 0);
        assert!(
            space.warnings.iter().any(|w| w.contains("its own start")),
            "{:?}",
            space.warnings
        );
        assert_eq!(env_stat(&space, s::CLOCK_ORIGIN_UNIX_NS), None);
    }
}
