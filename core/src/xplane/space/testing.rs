//! Traces and lookups the plane modules' tests share.

use std::sync::Arc;

use crate::model::steps::StepRule;
use crate::model::{Device, DeviceEvent, DeviceEventKind, DeviceLine};
use crate::xplane::annotation::{parse_annotation, ParsedValue};
use crate::xplane::builder::{PlaneBuilder, StatBytes, StatValue};
use crate::xplane::proto::{x_stat, XEvent, XPlane, XSpace};
use crate::xplane::stats as s;

/// A GPU whose one line holds `events`.
pub(super) fn one_line(events: Vec<DeviceEvent>) -> Device {
    Device {
        lines: vec![DeviceLine {
            id: 0,
            name: String::new(),
            events,
        }],
        ..Default::default()
    }
}

/// `n` events one after the other, the `k`-th of kind `kind(k)`.
pub(super) fn events_in_turn(
    n: usize,
    kind: impl Fn(usize) -> DeviceEventKind,
) -> Vec<DeviceEvent> {
    (0..n)
        .map(|k| DeviceEvent {
            start_ns: k as u64 * 10,
            end_ns: k as u64 * 10 + 5,
            correlation_id: 0,
            kind: kind(k),
            annotation: None,
            graph: None,
        })
        .collect()
}

/// The string that event `w`'s reference stat `name` points at.
pub(super) fn ref_stat<'p>(plane: &'p XPlane, w: &XEvent, name: &str) -> Option<&'p str> {
    let stat_name = |id: i64| plane.stat_metadata[&id].name.as_str();
    w.stats
        .iter()
        .find(|st| stat_name(st.metadata_id) == name)
        .and_then(|st| match st.value {
            Some(x_stat::Value::RefValue(r)) => Some(stat_name(r as i64)),
            _ => None,
        })
}

/// The (first) device plane of `space`.
pub(super) fn gpu_plane(space: &XSpace) -> &XPlane {
    space
        .planes
        .iter()
        .find(|p| p.name.starts_with(s::GPU_PLANE_PREFIX))
        .expect("a device plane")
}

/// The stats of the roctx labels open at a call (outermost first), encoded afresh from
/// `parse_annotation`, one `put` per stat: what the plane's cached label stats must give.
pub(super) fn add_label_stats(
    plane: &mut PlaneBuilder,
    labels: &[Arc<str>],
    step_rule: Option<&StepRule>,
    stats: &mut StatBytes,
) {
    if labels.is_empty() {
        return;
    }
    let parsed = parse_annotation(labels, step_rule);
    plane.put(stats, s::NVTX_RANGE, StatValue::Ref(&parsed.joined));
    if parsed.metadata.is_empty() {
        return;
    }
    if !parsed.tf_op.is_empty() {
        plane.put(stats, s::TF_OP, StatValue::Ref(&parsed.tf_op));
    }
    for (k, v) in &parsed.metadata {
        if s::RESERVED_EVENT_STATS.contains(&k.as_str()) {
            continue;
        }
        let value = match v {
            ParsedValue::I64(v) => StatValue::I64(*v),
            ParsedValue::U64(v) => StatValue::U64(*v),
            ParsedValue::F64(v) => StatValue::F64(*v),
            ParsedValue::Str(v) => StatValue::Ref(v),
        };
        plane.put(stats, k, value);
    }
}
