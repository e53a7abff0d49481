//! Traces and lookups the plane modules' tests share.

use crate::model::{Device, DeviceEvent, DeviceEventKind, DeviceLine};
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
