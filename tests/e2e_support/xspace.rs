//! Reading an XSpace the way xprof does: events by plane, their names and typed stats, and the
//! ground truth's view of the same things.

use std::collections::BTreeMap;

use rocprof_xplane::capture::symbols::clean_kernel_name;
use rocprof_xplane::xplane::proto::{x_event, x_stat, XEvent, XLine, XPlane, XSpace};
use serde_json::Value;

use super::u;

pub const HOST_PLANE: &str = "/host:CPU";
pub const GPU_PREFIX: &str = "/device:GPU:";
pub const TASK_ENV: &str = "Task Environment";

pub fn plane<'a>(s: &'a XSpace, name: &str) -> &'a XPlane {
    s.planes
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no plane {name:?}; have {:?}", plane_names(s)))
}

pub fn plane_names(s: &XSpace) -> Vec<&str> {
    s.planes.iter().map(|p| p.name.as_str()).collect()
}

/// GPU planes ordered by ordinal (the number after `/device:GPU:`).
pub fn device_planes(s: &XSpace) -> Vec<&XPlane> {
    let mut v: Vec<&XPlane> = s
        .planes
        .iter()
        .filter(|p| p.name.starts_with(GPU_PREFIX))
        .collect();
    v.sort_by_key(|p| ordinal(p));
    v
}

pub fn ordinal(p: &XPlane) -> u32 {
    p.name[GPU_PREFIX.len()..]
        .parse()
        .unwrap_or_else(|_| panic!("bad GPU plane name {:?}", p.name))
}

/// A stat value, with `ref_value` resolved to its string.
#[derive(Debug, Clone, PartialEq)]
pub enum Stat {
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
    Bytes(usize),
}

impl Stat {
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Stat::U64(v) => Some(*v),
            Stat::I64(v) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Stat::Str(s) => Some(s),
            _ => None,
        }
    }
}

pub fn stat_value(p: &XPlane, v: &Option<x_stat::Value>) -> Option<Stat> {
    Some(match v.as_ref()? {
        x_stat::Value::Uint64Value(v) => Stat::U64(*v),
        x_stat::Value::Int64Value(v) => Stat::I64(*v),
        x_stat::Value::DoubleValue(v) => Stat::F64(*v),
        x_stat::Value::StrValue(s) => Stat::Str(s.clone()),
        x_stat::Value::BytesValue(b) => Stat::Bytes(b.len()),
        x_stat::Value::RefValue(r) => {
            Stat::Str(p.stat_metadata.get(&i64::try_from(*r).ok()?)?.name.clone())
        }
    })
}

/// Plane-level stats by name (device capabilities, `Task Environment` counters).
pub fn plane_stats(p: &XPlane) -> BTreeMap<String, Stat> {
    p.stats
        .iter()
        .filter_map(|s| {
            let name = p.stat_metadata.get(&s.metadata_id)?.name.clone();
            Some((name, stat_value(p, &s.value)?))
        })
        .collect()
}

/// One event with the plane and line it sits on.
#[derive(Clone, Copy)]
pub struct Ev<'a> {
    pub plane: &'a XPlane,
    pub line: &'a XLine,
    pub event: &'a XEvent,
}

impl<'a> Ev<'a> {
    pub fn name(&self) -> &'a str {
        self.plane
            .event_metadata
            .get(&self.event.metadata_id)
            .map(|m| m.name.as_str())
            .unwrap_or("")
    }

    /// The raw stat (value as written, for type checks), from the event or its metadata.
    pub fn raw_stat(&self, name: &str) -> Option<&'a x_stat::Value> {
        let md = self.plane.event_metadata.get(&self.event.metadata_id);
        self.event
            .stats
            .iter()
            .chain(md.into_iter().flat_map(|m| m.stats.iter()))
            .find(|s| {
                self.plane
                    .stat_metadata
                    .get(&s.metadata_id)
                    .is_some_and(|m| m.name == name)
            })
            .and_then(|s| s.value.as_ref())
    }

    pub fn stat(&self, name: &str) -> Option<Stat> {
        stat_value(self.plane, &self.raw_stat(name).cloned())
    }

    /// `correlation_id`, which must be written as uint64 (xprof reads it with `IntOrUintValue`
    /// but XLA writes uint64; the issue asks for uint64 on both sides).
    pub fn correlation_id(&self) -> Option<u64> {
        match self.raw_stat("correlation_id")? {
            x_stat::Value::Uint64Value(v) => Some(*v),
            other => panic!(
                "correlation_id of {:?} on {} is not uint64: {other:?}",
                self.name(),
                self.plane.name
            ),
        }
    }

    pub fn is_kernel(&self) -> bool {
        self.raw_stat("kernel_details").is_some()
    }

    pub fn is_memcpy(&self) -> bool {
        self.raw_stat("memcpy_details").is_some()
    }

    pub fn offset_ps(&self) -> i64 {
        match self.event.data {
            Some(x_event::Data::OffsetPs(o)) => o,
            _ => panic!("event {:?} has no offset_ps", self.name()),
        }
    }

    /// Absolute start in ps (line timestamp + offset).
    pub fn start_ps(&self) -> i64 {
        self.line.timestamp_ns * 1000 + self.offset_ps()
    }
}

pub fn events(p: &XPlane) -> Vec<Ev<'_>> {
    p.lines
        .iter()
        .flat_map(|line| {
            line.events.iter().map(move |event| Ev {
                plane: p,
                line,
                event,
            })
        })
        .collect()
}

/// Every event on every GPU plane.
pub fn device_events(s: &XSpace) -> Vec<Ev<'_>> {
    device_planes(s).into_iter().flat_map(events).collect()
}

pub fn kernels(s: &XSpace) -> Vec<Ev<'_>> {
    device_events(s)
        .into_iter()
        .filter(|e| e.is_kernel())
        .collect()
}

pub fn memcpys(s: &XSpace) -> Vec<Ev<'_>> {
    device_events(s)
        .into_iter()
        .filter(|e| e.is_memcpy())
        .collect()
}

/// Host API events (HIP calls), not the roctx marker lines.
pub fn host_api_events(s: &XSpace) -> Vec<Ev<'_>> {
    events(plane(s, HOST_PLANE))
        .into_iter()
        .filter(|e| !e.line.name.ends_with("/ROCTX"))
        .collect()
}

pub fn count_by_name<'a>(evs: impl IntoIterator<Item = Ev<'a>>) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for e in evs {
        *m.entry(e.name().to_string()).or_insert(0) += 1;
    }
    m
}

/// The tool's `rocprof_xplane_*` counters (on the `Task Environment` plane).
pub fn counters(s: &XSpace) -> BTreeMap<String, u64> {
    let p = s
        .planes
        .iter()
        .find(|p| {
            p.stats.iter().any(|st| {
                p.stat_metadata
                    .get(&st.metadata_id)
                    .is_some_and(|m| m.name.starts_with("rocprof_xplane_"))
            })
        })
        .unwrap_or_else(|| {
            panic!(
                "no plane carries rocprof_xplane_* counters: {:?}",
                plane_names(s)
            )
        });
    plane_stats(p)
        .into_iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("rocprof_xplane_")?.to_string(), v.as_u64()?)))
        .collect()
}

pub fn counter(s: &XSpace, name: &str) -> u64 {
    let c = counters(s);
    *c.get(name)
        .unwrap_or_else(|| panic!("no counter {name:?}; have {c:?}"))
}

/// Ground truth: dispatches per kernel name as the tool names kernels (demangled, no `.kd`).
pub fn truth_kernels(plan: &Value) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for (name, k) in plan["kernels"].as_object().expect("truth.kernels") {
        *m.entry(clean_kernel_name(name)).or_insert(0) += u(&k["dispatches"]);
    }
    m
}

/// Ground truth: dispatches per (GPU ordinal, kernel name).
pub fn truth_kernels_per_gpu(plan: &Value) -> BTreeMap<(u32, String), u64> {
    let mut m = BTreeMap::new();
    for (name, k) in plan["kernels"].as_object().expect("truth.kernels") {
        for (gpu, n) in k["per_gpu"].as_object().expect("per_gpu") {
            *m.entry((gpu.parse().unwrap(), clean_kernel_name(name)))
                .or_insert(0) += u(n);
        }
    }
    m
}

/// Ground truth: for each API name, `activities → calls` (how many calls made k activities).
pub fn truth_activities_per_call(plan: &Value) -> BTreeMap<String, BTreeMap<u64, u64>> {
    plan["activities_per_call"]
        .as_object()
        .expect("truth.activities_per_call")
        .iter()
        .map(|(api, per)| {
            let per = per
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, n)| (k.parse().unwrap(), u(n)))
                .collect();
            (api.clone(), per)
        })
        .collect()
}

/// `key:value` tokens of a details string (`kernel_details`, `memcpy_details`).
pub fn details(s: &str) -> BTreeMap<&str, &str> {
    s.split_whitespace()
        .filter_map(|t| t.split_once(':'))
        .collect()
}
