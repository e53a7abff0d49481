//! Hardware counters on the GPU planes (`model::pmc`): each kernel event's counters as stats
//! named after the counter (summed over instances, double), and what derives from them.
//!
//! xprof's trace viewer shows every event stat in an event's details; `flops` and
//! `bytes_accessed` are the names xprof's op metrics read, but only for XLA ops with an HLO
//! instruction (docs/counters.md says which views use what).

use crate::model::device_counters::{DeviceInterval, GPU_UTIL};
use crate::model::pmc::KernelCounters;
use crate::xplane::builder::{PlaneBuilder, StatBytes, StatIds};
use crate::xplane::proto::{x_stat, XStat};

/// XLA's names for an op's FLOPs and bytes (`kFlops`, `kBytesAccessed`; uint64 here).
pub const FLOPS: &str = "flops";
pub const BYTES_ACCESSED: &str = "bytes_accessed";
/// Ours (uint64): the two parts of `bytes_accessed`, each written when known.
pub const BYTES_READ: &str = "bytes_read";
pub const BYTES_WRITTEN: &str = "bytes_written";
/// Ours (double): achieved rates over the dispatch's duration.
pub const ACHIEVED_TFLOP_PER_S: &str = "achieved_tflop_per_s";
pub const ACHIEVED_GB_PER_S: &str = "achieved_gb_per_s";

fn double(plane: &mut PlaneBuilder, name: &str, v: f64, stats: &mut StatBytes) {
    stats.push(&XStat {
        metadata_id: plane.stat_metadata_id(name),
        value: Some(x_stat::Value::DoubleValue(v)),
    });
}

/// Adds the counter stats of a kernel dispatch of `duration_ns` to `stats`.
pub(super) fn kernel_counter_stats(
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
    kc: &KernelCounters,
    duration_ns: u64,
    stats: &mut StatBytes,
) {
    for (name, v) in &kc.values {
        double(plane, name, *v, stats);
    }
    let d = &kc.derived;
    let mut int = |name: &'static str, v: Option<f64>, stats: &mut StatBytes| {
        if let Some(v) = v {
            stats.u64(ids.get(plane, name), v.max(0.0).round() as u64);
        }
    };
    int(FLOPS, d.flops, stats);
    int(BYTES_READ, d.bytes_read, stats);
    int(BYTES_WRITTEN, d.bytes_written, stats);
    int(BYTES_ACCESSED, d.bytes(), stats);
    if let Some(r) = d.tflop_per_s(duration_ns) {
        double(plane, ACHIEVED_TFLOP_PER_S, r, stats);
    }
    if let Some(r) = d.gb_per_s(duration_ns) {
        double(plane, ACHIEVED_GB_PER_S, r, stats);
    }
}

/// XLA's counter line of a GPU plane (`_counters_`, id `INT64_MAX`), holding the counter values
/// of its dispatches: one zero-length event per counter and dispatch, at the dispatch's start,
/// named after the counter, with its value as `counter_value` (uint64, rounded) and the kernel
/// it belongs to as `performance_counter_description`; and the periodic device counters: one
/// such event per counter and interval between two reads, at the interval's start (a counter
/// track holds each value until the next point), with `GPU_UTIL` beside them. perf_counters
/// reads `counter_value` as an integer only, hence uint64 for both. xprof's trace viewer draws the line as
/// one counter track per counter (each point labelled with its kernel); its perf_counters
/// lists every such event of a GPU plane that has a `device_id`.
pub const COUNTER_LINE_ID: i64 = i64::MAX;
pub const COUNTER_LINE_NAME: &str = "_counters_";
pub const COUNTER_VALUE: &str = "counter_value";
pub const COUNTER_DESCRIPTION: &str = "performance_counter_description";

pub(super) fn counter_line(
    trace: &crate::model::Trace,
    d: &crate::model::Device,
    base: &super::Timebase,
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
) -> Option<crate::xplane::builder::FinishedLine> {
    use crate::model::DeviceEventKind;
    let sampled = device_intervals(trace, d.agent_handle);
    if trace.kernel_counters.is_empty() && sampled.is_empty() {
        return None;
    }
    let mut line = base.line(COUNTER_LINE_ID, COUNTER_LINE_NAME);
    let mut stats = StatBytes::new();
    let mut any = false;
    for i in sampled {
        stats.clear();
        stats.u64(
            ids.get(plane, COUNTER_VALUE),
            i.value.max(0.0).round() as u64,
        );
        stats.push(&XStat {
            metadata_id: ids.get(plane, COUNTER_DESCRIPTION),
            value: Some(x_stat::Value::StrValue(interval_description(i))),
        });
        let id = plane.event_metadata_id(&i.counter);
        line.add_event(id, base.offset_ps(i.start_ns), 0, &stats);
        any = true;
    }
    for e in d.lines.iter().flat_map(|l| &l.events) {
        let DeviceEventKind::Kernel(info) = &e.kind else {
            continue;
        };
        let Some(kc) = trace.kernel_counters.get(&info.dispatch_id) else {
            continue;
        };
        let kernel = trace.shapes.get(info.shape).map_or("", |s| &*s.code.name);
        let description = format!("{kernel} (dispatch {})", info.dispatch_id);
        let at = base.offset_ps(e.start_ns);
        for (name, v) in &kc.values {
            stats.clear();
            stats.u64(ids.get(plane, COUNTER_VALUE), v.max(0.0).round() as u64);
            stats.push(&XStat {
                metadata_id: ids.get(plane, COUNTER_DESCRIPTION),
                value: Some(x_stat::Value::StrValue(description.clone())),
            });
            let id = plane.event_metadata_id(name);
            line.add_event(id, at, 0, &stats);
            any = true;
        }
    }
    any.then(|| line.finish())
}

/// The device counters of GPU `agent` per interval (`model::device_counters`), in the trace's
/// order: by counter, then time.
fn device_intervals(trace: &crate::model::Trace, agent: u64) -> &[DeviceInterval] {
    let all = &trace.device_counters;
    let from = all.partition_point(|i| i.agent < agent);
    let to = all.partition_point(|i| i.agent <= agent);
    &all[from..to]
}

/// What perf_counters' Description column and the trace viewer's details say of one interval's
/// point: the interval it holds for, and `GPU_UTIL`'s exact share (its `counter_value` is the
/// share in whole percent).
fn interval_description(i: &DeviceInterval) -> String {
    let ms = i.end_ns.saturating_sub(i.start_ns) as f64 / 1e6;
    if &*i.counter == GPU_UTIL {
        format!(
            "device counters over {ms:.3} ms: busy {:.2} % (100 * GRBM_GUI_ACTIVE / GRBM_COUNT)",
            i.value
        )
    } else {
        format!("device counters over {ms:.3} ms: {}", i.value)
    }
}
