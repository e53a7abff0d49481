//! One plane's inputs made one plane's metadata: every name once, with an id in the output,
//! and each input's ids mapped to the output's (kept where they agree, so events can be copied
//! as they are).

use std::collections::BTreeMap;

use super::input::PlaneIn;
use crate::fastmap::HashMap;
use crate::xplane::hlo;
use crate::xplane::proto::{x_stat, XEventMetadata, XPlane, XStat};
use crate::xplane::stats as s;

/// One input's plane of the name being merged.
pub(super) struct PlanePart<'a> {
    /// The input's place among the merge's inputs.
    pub(super) input: usize,
    pub(super) plane: &'a PlaneIn,
}

/// An input plane's ids in the output's numbering.
#[derive(Default)]
pub(super) struct Ids {
    pub(super) events: HashMap<i64, i64>,
    pub(super) stats: HashMap<i64, i64>,
    /// Every stat keeps its id: an event's stats are copied as they are.
    pub(super) stats_kept: bool,
    /// Every stat and event name keeps its id: with no time to move, an event is copied as
    /// it is.
    pub(super) all_kept: bool,
    /// Plane stats the output leaves out (a window's identity).
    pub(super) dropped_stats: Vec<i64>,
}

impl Ids {
    pub(super) fn stat(&self, st: &XStat) -> XStat {
        let value = match st.value {
            Some(x_stat::Value::RefValue(r)) => {
                let to = i64::try_from(r)
                    .ok()
                    .and_then(|r| self.stats.get(&r))
                    .map_or(r, |&t| t as u64);
                Some(x_stat::Value::RefValue(to))
            }
            ref v => v.clone(),
        };
        XStat {
            metadata_id: self
                .stats
                .get(&st.metadata_id)
                .copied()
                .unwrap_or(st.metadata_id),
            value,
        }
    }
}

/// One plane's inputs made one: the output's head (lines left out) and each input's ids in it.
pub(super) fn merge_heads(planes: &[PlanePart]) -> (XPlane, Vec<Ids>) {
    let first = &planes[0].plane.head;
    let mut out = XPlane {
        id: first.id,
        name: first.name.clone(),
        ..XPlane::default()
    };
    let scope_tree = first.name == s::SCOPE_TREE_PLANE;
    let task_env = first.name == s::TASK_ENV_PLANE;
    let mut ids = Vec::with_capacity(planes.len());
    let mut stat_by_name: HashMap<String, i64> = HashMap::default();
    let mut event_by_name: HashMap<String, i64> = HashMap::default();
    for part in planes {
        let p = part.plane;
        let mut map = Ids::default();
        let mut stat_ids: Vec<i64> = p.head.stat_metadata.keys().copied().collect();
        stat_ids.sort_unstable();
        for id in stat_ids {
            let m = &p.head.stat_metadata[&id];
            // Whose window it was: checked by the merge, not part of the profile it writes.
            if task_env && [s::WINDOW_PID, s::WINDOW_RUN].contains(&m.name.as_str()) {
                map.dropped_stats.push(id);
                continue;
            }
            // The scope tree's stat ids are the scopes themselves.
            let to = if scope_tree {
                id
            } else {
                output_id(&mut stat_by_name, &out.stat_metadata, &m.name, id)
            };
            out.stat_metadata.entry(to).or_insert_with(|| {
                let mut m = m.clone();
                m.id = to;
                m
            });
            map.stats.insert(id, to);
        }
        map.stats_kept = map.stats.iter().all(|(from, to)| from == to);
        ids.push(map);
    }
    let programs = first.name == hlo::METADATA_PLANE;
    if programs {
        keep_program_ids(planes, &mut ids, &mut out);
    }
    // Elsewhere event metadata are one by name.
    for (part, map) in planes.iter().zip(&mut ids).filter(|_| !programs) {
        let p = part.plane;
        let mut event_ids: Vec<i64> = p.head.event_metadata.keys().copied().collect();
        event_ids.sort_unstable();
        for id in event_ids {
            let m = &p.head.event_metadata[&id];
            let to = output_id(&mut event_by_name, &out.event_metadata, &m.name, id);
            out.event_metadata.entry(to).or_insert_with(|| {
                let mut m = m.clone();
                m.id = to;
                m.stats = m.stats.iter().map(|st| map.stat(st)).collect();
                m
            });
            map.events.insert(id, to);
        }
        map.all_kept = map.stats_kept && map.events.iter().all(|(from, to)| from == to);
    }
    out.stats = merge_plane_stats(planes, &ids, &out, scope_tree);
    (out, ids)
}

/// `/host:metadata`'s event metadata are programs and their ids the program ids xprof reads
/// (`xplane::hlo`): each keeps its id, whatever its name (one module name can be compiled into
/// several programs). A program met in several inputs keeps the first input's metadata, with
/// the ops of every input's module where all are placeholders.
fn keep_program_ids(planes: &[PlanePart], ids: &mut [Ids], out: &mut XPlane) {
    let proto_stat = out
        .stat_metadata
        .values()
        .find(|m| m.name == hlo::HLO_PROTO)
        .map(|m| m.id);
    for (part, map) in planes.iter().zip(ids.iter_mut()) {
        for (&id, m) in &part.plane.head.event_metadata {
            let mut m = m.clone();
            m.id = id;
            m.stats = m.stats.iter().map(|st| map.stat(st)).collect();
            map.events.insert(id, id);
            match out.event_metadata.entry(id) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(m);
                }
                std::collections::btree_map::Entry::Occupied(mut o) => {
                    if let Some(stat) = proto_stat {
                        union_placeholder_ops(o.get_mut(), &m, stat);
                    }
                }
            }
        }
        map.all_kept = map.stats_kept;
    }
}

/// `into`'s placeholder module with the ops of `from`'s added; left as it is unless both
/// modules' stat `stat` holds a placeholder module.
fn union_placeholder_ops(into: &mut XEventMetadata, from: &XEventMetadata, stat: i64) {
    let bytes = |m: &XEventMetadata| {
        m.stats.iter().find_map(|st| match &st.value {
            Some(x_stat::Value::BytesValue(b)) if st.metadata_id == stat => Some(b.clone()),
            _ => None,
        })
    };
    let (Some(a), Some(b)) = (bytes(into), bytes(from)) else {
        return;
    };
    let (Some((module, mut ops)), Some((_, more))) =
        (hlo::placeholder_ops(&a), hlo::placeholder_ops(&b))
    else {
        return;
    };
    ops.extend(more);
    ops.sort_unstable();
    ops.dedup();
    let merged = hlo::placeholder_module(&module, into.id, ops.iter().map(String::as_str));
    for st in &mut into.stats {
        if st.metadata_id == stat {
            st.value = Some(x_stat::Value::BytesValue(merged.clone()));
        }
    }
}

/// The output's id for metadata `name`, id `id` in its input: the one the name already has,
/// else the input's own if the output has not given it, else the one after the largest. An
/// input whose names and ids agree with the output's keeps its ids.
fn output_id<V>(
    by_name: &mut HashMap<String, i64>,
    out: &BTreeMap<i64, V>,
    name: &str,
    id: i64,
) -> i64 {
    if let Some(&to) = by_name.get(name) {
        return to;
    }
    let to = if out.contains_key(&id) {
        out.last_key_value().map_or(0, |(&k, _)| k) + 1
    } else {
        id
    };
    by_name.insert(name.to_string(), to);
    to
}

/// The plane's own stats: the Task Environment's counters summed and times widened; the
/// scope tree's every edge once; elsewhere the first input's, and any name it lacks.
fn merge_plane_stats(
    planes: &[PlanePart],
    ids: &[Ids],
    out: &XPlane,
    scope_tree: bool,
) -> Vec<XStat> {
    let task_env = out.name == s::TASK_ENV_PLANE;
    let name = |st: &XStat| {
        out.stat_metadata
            .get(&st.metadata_id)
            .map_or("", |m| m.name.as_str())
    };
    let mut stats: Vec<XStat> = Vec::new();
    let mut at: HashMap<i64, usize> = HashMap::default();
    for (part, map) in planes.iter().zip(ids) {
        for st in &part.plane.head.stats {
            if map.dropped_stats.contains(&st.metadata_id) {
                continue;
            }
            let st = map.stat(st);
            let Some(&i) = at.get(&st.metadata_id) else {
                at.insert(st.metadata_id, stats.len());
                stats.push(st);
                continue;
            };
            if scope_tree || !task_env {
                continue;
            }
            let n = name(&st);
            let (Some(x_stat::Value::Uint64Value(old)), Some(x_stat::Value::Uint64Value(new))) =
                (&stats[i].value, &st.value)
            else {
                continue;
            };
            let v = if [
                s::PROFILE_START_TIME,
                s::ORIGIN_BOOTTIME_NS,
                s::CLOCK_ORIGIN_UNIX_NS,
                s::CLOCK_BOOT_NS,
                s::CLOCK_WALL_NS,
            ]
            .contains(&n)
            {
                (*old).min(*new)
            } else if [
                s::PROFILE_STOP_TIME,
                s::CLOCK_STOP_BOOT_NS,
                s::CLOCK_STOP_WALL_NS,
                s::CLOCK_ERROR_NS,
            ]
            .contains(&n)
            {
                (*old).max(*new)
            } else if n.starts_with("rocprof_xplane_") {
                old.saturating_add(*new)
            } else {
                *old
            };
            stats[i].value = Some(x_stat::Value::Uint64Value(v));
        }
    }
    stats
}
