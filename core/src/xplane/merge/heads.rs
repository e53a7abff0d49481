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
/// Pass by pass: every input's stat metadata, then every input's event metadata, then every
/// input's plane stats (read by the names all the inputs give their ids).
pub(super) fn merge_heads(planes: &[PlanePart]) -> (XPlane, Vec<Ids>) {
    let mut m = HeadMerge::new(&planes[0].plane.head);
    let mut ids: Vec<Ids> = planes
        .iter()
        .map(|part| m.add_stat_metadata(part.plane))
        .collect();
    for (part, map) in planes.iter().zip(&mut ids) {
        m.add_event_metadata(part.plane, map);
    }
    for (part, map) in planes.iter().zip(&ids) {
        m.add_plane_stats(part.plane, map);
    }
    (m.out, ids)
}

/// A plane's heads merged so far, inputs added in time order: the output's head and the names
/// it gives its ids. [`merge_heads`] adds its inputs to one pass by pass; the run's profile
/// assembled in place (`inplace`) keeps one and adds each window's plane whole
/// ([`HeadMerge::add`]) as the window comes.
#[derive(Clone)]
pub(super) struct HeadMerge {
    out: XPlane,
    scope_tree: bool,
    task_env: bool,
    /// `/host:metadata`: event metadata are programs (`keep_program_ids`).
    programs: bool,
    stat_by_name: HashMap<String, i64>,
    event_by_name: HashMap<String, i64>,
    /// Where each plane stat of the output (by its output id) is in `out.stats`.
    stat_at: HashMap<i64, usize>,
}

impl HeadMerge {
    /// The merge of a plane named as `first` (its first input's) is, with its id.
    pub(super) fn new(first: &XPlane) -> HeadMerge {
        HeadMerge {
            out: XPlane {
                id: first.id,
                name: first.name.clone(),
                ..XPlane::default()
            },
            scope_tree: first.name == s::SCOPE_TREE_PLANE,
            task_env: first.name == s::TASK_ENV_PLANE,
            programs: first.name == hlo::METADATA_PLANE,
            stat_by_name: HashMap::default(),
            event_by_name: HashMap::default(),
            stat_at: HashMap::default(),
        }
    }

    /// The output's head so far (lines left out).
    pub(super) fn head(&self) -> &XPlane {
        &self.out
    }

    /// Adds input plane `p` whole, the next in time: its stat metadata, event metadata and
    /// plane stats, and returns its ids in the output's. The head is then the one
    /// [`merge_heads`] gives for the inputs added so far, provided every input added
    /// [`HeadMerge::adds_alone`].
    pub(super) fn add(&mut self, p: &PlaneIn) -> Ids {
        let mut map = self.add_stat_metadata(p);
        self.add_event_metadata(p, &mut map);
        self.add_plane_stats(p, &map);
        map
    }

    /// Whether [`HeadMerge::add`] reads `p` as [`merge_heads`] does, whatever inputs follow:
    /// where the merge reads a stat by its name (a program's HLO proto among its event
    /// metadata's stats; the Task Environment's plane stats, summed or widened by name), `p`
    /// names every stat it refers to. Else the name an id has after later inputs (which
    /// [`merge_heads`] reads) need not be the one it has when `p` is added.
    pub(super) fn adds_alone(&self, p: &PlaneIn) -> bool {
        let named = |st: &XStat| p.head.stat_metadata.contains_key(&st.metadata_id);
        let programs = || {
            p.head
                .event_metadata
                .values()
                .all(|m| m.stats.iter().all(named))
        };
        (!self.programs || programs()) && (!self.task_env || p.head.stats.iter().all(named))
    }

    /// Adds `p`'s stat metadata: its stats' ids in the output's.
    fn add_stat_metadata(&mut self, p: &PlaneIn) -> Ids {
        let out = &mut self.out;
        let mut map = Ids::default();
        let mut stat_ids: Vec<i64> = p.head.stat_metadata.keys().copied().collect();
        stat_ids.sort_unstable();
        for id in stat_ids {
            let m = &p.head.stat_metadata[&id];
            // Whose window it was: checked by the merge, not part of the profile it writes.
            if self.task_env && [s::WINDOW_PID, s::WINDOW_RUN].contains(&m.name.as_str()) {
                map.dropped_stats.push(id);
                continue;
            }
            // The scope tree's stat ids are the scopes themselves.
            let to = if self.scope_tree {
                id
            } else {
                output_id(&mut self.stat_by_name, &out.stat_metadata, &m.name, id)
            };
            out.stat_metadata.entry(to).or_insert_with(|| {
                let mut m = m.clone();
                m.id = to;
                m
            });
            map.stats.insert(id, to);
        }
        map.stats_kept = map.stats.iter().all(|(from, to)| from == to);
        map
    }

    /// Adds `p`'s event metadata (its stat metadata added: `map`), its events' ids to `map`.
    fn add_event_metadata(&mut self, p: &PlaneIn, map: &mut Ids) {
        if self.programs {
            self.keep_program_ids(p, map);
            return;
        }
        // Elsewhere event metadata are one by name.
        let out = &mut self.out;
        let mut event_ids: Vec<i64> = p.head.event_metadata.keys().copied().collect();
        event_ids.sort_unstable();
        for id in event_ids {
            let m = &p.head.event_metadata[&id];
            let to = output_id(&mut self.event_by_name, &out.event_metadata, &m.name, id);
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

    /// `/host:metadata`'s event metadata are programs and their ids the program ids xprof
    /// reads (`xplane::hlo`): each keeps its id, whatever its name (one module name can be
    /// compiled into several programs). A program met in several inputs keeps the first
    /// input's metadata, with the ops of every input's module where all are placeholders.
    fn keep_program_ids(&mut self, p: &PlaneIn, map: &mut Ids) {
        let out = &mut self.out;
        let proto_stat = out
            .stat_metadata
            .values()
            .find(|m| m.name == hlo::HLO_PROTO)
            .map(|m| m.id);
        for (&id, m) in &p.head.event_metadata {
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

    /// Adds `p`'s own stats (ids in the output's: `map`): the Task Environment's counters
    /// summed and times widened; the scope tree's every edge once; elsewhere the first
    /// input's, and any name it lacks.
    fn add_plane_stats(&mut self, p: &PlaneIn, map: &Ids) {
        let out = &mut self.out;
        for st in &p.head.stats {
            if map.dropped_stats.contains(&st.metadata_id) {
                continue;
            }
            let st = map.stat(st);
            let Some(&i) = self.stat_at.get(&st.metadata_id) else {
                self.stat_at.insert(st.metadata_id, out.stats.len());
                out.stats.push(st);
                continue;
            };
            if self.scope_tree || !self.task_env {
                continue;
            }
            let n = out
                .stat_metadata
                .get(&st.metadata_id)
                .map_or("", |m| m.name.as_str());
            let (Some(x_stat::Value::Uint64Value(old)), Some(x_stat::Value::Uint64Value(new))) =
                (&out.stats[i].value, &st.value)
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
            out.stats[i].value = Some(x_stat::Value::Uint64Value(v));
        }
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
