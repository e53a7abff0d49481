//! What the windows of a run share when they are to be made one profile (`WINDOW_MERGE`):
//! each event plane's names with the ids they were given, and the clock's origin (on the boot
//! clock, and the line timestamp it has on the job clock). A window
//! written so numbers every name as the windows before it did and places its events on the
//! run's clock, so the merge copies each event's bytes as they are instead of re-encoding it
//! with other ids and times (`xplane::merge`), which costs several times the copy.
//!
//! Such a window is still a complete profile of its own: it holds the metadata of the names
//! it uses, and its times start where the run's do. A plane's names are kept for the next
//! window up to [`MAX_RUN_NAMES`]: a job that names every step anew (`ProfilerStep#123`) must
//! not hold a week's names. Past it, that plane's next window numbers its names afresh, and
//! the merge re-encodes the events of that plane's later windows (the profile is the same).

use std::sync::Mutex;

use crate::fastmap::HashMap;
use crate::store::sinks::lock;

use super::builder::{BuiltPlane, PlaneBuilder, PlaneNames};

/// The most names (event and stat metadata) a plane's windows carry to the next: about
/// 10 MB at most per plane.
pub const MAX_RUN_NAMES: usize = 1 << 16;

/// Shared by the windows of one run, in the order they are written (planes of one window may
/// be built on several threads: each plane takes its names and gives them back).
#[derive(Debug, Default)]
pub struct RunIds {
    origin: Mutex<Option<RunOrigin>>,
    planes: Mutex<Option<HashMap<String, PlaneNames>>>,
    /// Whose windows these are: written into each window's Task Environment, so the merge
    /// refuses a window of another process or run (`xplane::merge`).
    identity: Option<WindowIdentity>,
}

/// The process and run a window belongs to: `rocprof_xplane_window_pid` and
/// `rocprof_xplane_window_run` in its Task Environment. Two processes of one run name, or two
/// runs of one process id, never share both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowIdentity {
    pub pid: u32,
    /// Chosen when the run begins (the boot clock's ns then, in the tool).
    pub run: u64,
}

impl RunIds {
    pub const fn new() -> Self {
        RunIds {
            origin: Mutex::new(None),
            planes: Mutex::new(None),
            identity: None,
        }
    }

    /// As [`RunIds::new`], for the windows of process `identity.pid`'s run `identity.run`.
    pub const fn of(identity: WindowIdentity) -> Self {
        RunIds {
            origin: Mutex::new(None),
            planes: Mutex::new(None),
            identity: Some(identity),
        }
    }

    /// Whose windows these are, if known.
    pub fn identity(&self) -> Option<WindowIdentity> {
        self.identity
    }

    /// The run's origin for a window whose own would be `own`: the first window's; an earlier
    /// own origin (events before the run's first, which a clock step could give) keeps its
    /// own, and the merge then moves that window's times as it moves any other input's.
    pub(crate) fn origin(&self, own: RunOrigin) -> RunOrigin {
        let mut origin = lock(&self.origin);
        match *origin {
            Some(o) if o.boot_ns <= own.boot_ns => o,
            Some(_) => own,
            None => *origin.insert(own),
        }
    }

    /// A builder for plane `name` that goes on from that plane's names in the windows before.
    pub(crate) fn plane(&self, id: i64, name: String) -> PlaneBuilder {
        let names = lock(&self.planes)
            .as_mut()
            .and_then(|p| p.remove(&name))
            .unwrap_or_default();
        PlaneBuilder::with_names(id, name, names)
    }

    /// Finishes `plane`, keeping its names for the next window's plane of its name (up to
    /// [`MAX_RUN_NAMES`]).
    pub(crate) fn finish(&self, plane: PlaneBuilder) -> BuiltPlane {
        let name = plane.name().to_string();
        let (built, names) = plane.finish_with_names();
        if names.len() > MAX_RUN_NAMES {
            crate::log_debug!(
                "{name}: {} names, past {MAX_RUN_NAMES}: the next window numbers them afresh",
                names.len()
            );
            return built;
        }
        lock(&self.planes)
            .get_or_insert_with(HashMap::default)
            .insert(name, names);
        built
    }
}

/// Where a window's times count from: a boot-clock time, and the line timestamp (ns on the job
/// clock) it is written at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RunOrigin {
    pub boot_ns: u64,
    pub line_ts_ns: i64,
}

/// Builds a plane on its own or, for a window of a run to be merged, on the run's names.
pub(crate) fn new_plane(run: Option<&RunIds>, id: i64, name: String) -> PlaneBuilder {
    match run {
        Some(r) => r.plane(id, name),
        None => PlaneBuilder::new(id, name),
    }
}

/// Finishes a plane made by [`new_plane`].
pub(crate) fn finish_plane(run: Option<&RunIds>, plane: PlaneBuilder) -> BuiltPlane {
    match run {
        Some(r) => r.finish(plane),
        None => plane.finish(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xplane::builder::StatValue;
    use crate::xplane::proto::XPlane;
    use prost::Message;

    fn decode(p: BuiltPlane) -> XPlane {
        let mut b = Vec::new();
        p.write_to(&mut b).unwrap();
        XPlane::decode(b.as_slice()).unwrap()
    }

    /// A second window's plane gives the names of the first their ids, numbers new names after
    /// them, holds the first's metadata, and does not repeat a metadata stat set again.
    #[test]
    fn a_window_numbers_names_as_the_windows_before_it() {
        let run = RunIds::new();
        let mut p = run.plane(3, "/device:GPU:3".into());
        let a = p.event_metadata_id("a");
        let st = p.stat("registers", StatValue::I64(8));
        p.add_event_metadata_stat(a, st);
        p.stat_metadata_id("correlation_id");
        let first = decode(run.finish(p));
        let mut p = run.plane(3, "/device:GPU:3".into());
        assert_eq!(p.event_metadata_id("b"), a + 1);
        assert_eq!(p.event_metadata_id("a"), a);
        let st = p.stat("registers", StatValue::I64(8));
        p.add_event_metadata_stat(a, st);
        let second = decode(run.finish(p));
        assert_eq!(second.event_metadata[&a], first.event_metadata[&a]);
        assert_eq!(second.event_metadata[&a].stats.len(), 1);
        assert_eq!(second.event_metadata.len(), 2);
        // `correlation_id` is not used in the second: not written there.
        assert_eq!(second.stat_metadata.len(), first.stat_metadata.len() - 1);
        // A third window that uses only `correlation_id` writes its metadata, with its id.
        let mut p = run.plane(3, "/device:GPU:3".into());
        let corr = p.stat_metadata_id("correlation_id");
        let third = decode(run.finish(p));
        assert_eq!(third.stat_metadata.len(), 1);
        assert_eq!(third.stat_metadata[&corr], first.stat_metadata[&corr]);
        assert!(third.event_metadata.is_empty());
        // Another plane's names are its own.
        let mut other = run.plane(0, "/host:CPU".into());
        assert_eq!(other.event_metadata_id("b"), 1);
    }

    /// Past `MAX_RUN_NAMES` a plane's names are not kept: its next window numbers afresh.
    #[test]
    fn a_plane_past_the_most_names_starts_afresh() {
        let run = RunIds::new();
        let mut p = run.plane(0, "/host:CPU".into());
        for i in 0..=MAX_RUN_NAMES {
            p.event_metadata_id(&format!("ProfilerStep#{i}"));
        }
        run.finish(p);
        let mut p = run.plane(0, "/host:CPU".into());
        assert_eq!(p.event_metadata_id("ProfilerStep#7"), 1);
    }

    /// The first window's origin is the run's; a later window's later origin gives way to it,
    /// an earlier one does not.
    #[test]
    fn the_first_window_s_origin_is_the_run_s() {
        let run = RunIds::new();
        let at = |boot_ns, line_ts_ns| RunOrigin {
            boot_ns,
            line_ts_ns,
        };
        assert_eq!(run.origin(at(1_000, 7)), at(1_000, 7));
        assert_eq!(run.origin(at(5_000, 11)), at(1_000, 7));
        assert_eq!(run.origin(at(900, 6)), at(900, 6));
        assert_eq!(run.origin(at(2_000, 8)), at(1_000, 7));
    }
}
