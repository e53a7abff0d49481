//! An input, indexed: its planes' and lines' heads read, where each line's bytes lie in the
//! file, its other fields, and where its times start.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;

use prost::Message;

use super::encoded::LINE_EVENTS;
use super::MergeError;
use crate::wire::{xplane as fields, FileFields, RawField};
use crate::xplane::builder::{EventPlaces, PlanePlaces};
use crate::xplane::proto::{x_stat, XLine, XPlane, XSpace};
use crate::xplane::stats as s;

/// Where an input's times start, in ns: the job's origin (`rocprof_xplane_clock_origin_unix_ns`:
/// line timestamps and offsets count from it), else `rocprof_xplane_origin_boottime_ns` (exact,
/// ours) and `profile_start_time` (wall clock, what xprof reads).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Origin {
    pub(super) job: Option<u64>,
    pub(super) boot: Option<u64>,
    pub(super) wall: Option<u64>,
    /// `profile_stop_time`: where the input ended.
    pub(super) stop: Option<u64>,
    /// `rocprof_xplane_clock_boot_ns`: the boot-clock instant its collection began (ours, on a
    /// job clock). A window's is the cut that ended the window before it.
    pub(super) began: Option<u64>,
}

/// What inputs are put in time order by (`Origin::order_key`), the first every input has:
///
/// - `Began`: where each one's collection began. A run's windows follow one another by it
///   exactly, whatever they show: a window's origin covers its events, and one that took in
///   a call from a few windows back (`model::carry`) starts before the window before it.
/// - `Boot`: its origin on the boot clock (exact), then where it ended: windows on their run's
///   clock share an origin;
/// - `Wall`: its origin on the wall clock, then where it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    Began,
    Boot,
    Wall,
}

impl Order {
    /// The order `origins` can all be put in.
    pub(super) fn of<'a>(mut origins: impl Iterator<Item = &'a Origin> + Clone) -> Order {
        if origins.clone().all(|o| o.began.is_some()) {
            Order::Began
        } else if origins.all(|o| o.boot.is_some()) {
            Order::Boot
        } else {
            Order::Wall
        }
    }
}

impl Origin {
    /// Where the input lies in time among inputs that can all be put in `order`. Windows on
    /// their run's clock that share an origin tell their order by their ends: their wall-clock
    /// starts, moved back to that origin, differ only by the microseconds between reading the
    /// two clocks, either way.
    pub(super) fn order_key(&self, order: Order) -> (Option<u64>, Option<u64>) {
        let first = match order {
            Order::Began => self.began,
            Order::Boot => self.boot,
            Order::Wall => self.wall,
        };
        (first, self.stop)
    }
}

/// One input, indexed: its planes' and lines' heads, and where each line's bytes are.
pub(super) struct Input {
    pub(super) path: std::path::PathBuf,
    /// Open while it is indexed and merged; closed between (a run's windows indexed as they
    /// are written must not hold a descriptor each).
    pub(super) file: Option<Arc<File>>,
    /// Its length when indexed: a file changed since is indexed again.
    pub(super) len: u64,
    pub(super) planes: Vec<PlaneIn>,
    /// The XSpace's other fields (errors, warnings, hostnames).
    pub(super) rest: XSpace,
    pub(super) origin: Origin,
    /// The process and run of a window written to be merged (`xplane::WindowIdentity`).
    pub(super) identity: Option<Identity>,
    /// Its heads, lines and other fields were let go (`Input::forget`).
    pub(super) forgotten: bool,
}

/// `rocprof_xplane_window_pid` and `rocprof_xplane_window_run`, as a window's Task
/// Environment gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Identity {
    pub(super) pid: u64,
    pub(super) run: u64,
}

pub(super) struct PlaneIn {
    pub(super) head: XPlane,
    pub(super) lines: Vec<LineIn>,
}

pub(super) struct LineIn {
    pub(super) head: XLine,
    /// The line's bytes in the file (its fields, events included).
    pub(super) start: u64,
    pub(super) end: u64,
    /// Where its events lie and in what order (`splice`).
    pub(super) events: super::splice::EventIndex,
}

/// Field numbers of `proto/xplane.proto` the index reads.
const SPACE_PLANES: u32 = fields::space::PLANES.number;
const PLANE_LINES: u32 = fields::plane::LINES.number;

impl Input {
    /// Lets go of its planes' and lines' heads, its lines' indexes and its other fields,
    /// keeping where it is, where its times begin and whose it is: what a window put into a
    /// profile assembled in place still needs once a later one is in (its indexes and heads
    /// are about a megabyte a million records, and a long run puts in thousands).
    pub(super) fn forget(&mut self) {
        self.planes = Vec::new();
        self.rest = XSpace::default();
        self.forgotten = true;
    }

    /// The file, open (`Input::open`).
    pub(super) fn file(&self) -> Arc<File> {
        self.file
            .clone()
            .expect("an input is opened before it is merged")
    }

    /// The input ready to merge: opened again if it was closed, indexed again if its file
    /// changed since.
    pub(super) fn open(self, check: super::Check) -> Result<Self, MergeError> {
        if self.file.is_some() {
            return Ok(self);
        }
        let read = |source| MergeError::Read {
            path: self.path.clone(),
            source,
        };
        let file = File::open(&self.path).map_err(read)?;
        if file.metadata().map_err(read)?.len() != self.len {
            return Input::index(&self.path, check);
        }
        Ok(Input {
            file: Some(Arc::new(file)),
            ..self
        })
    }

    /// Reads `path`'s heads and indexes its lines' events, each checked as `check` says
    /// before it may be copied as it is.
    pub(super) fn index(path: &Path, check: super::Check) -> Result<Self, MergeError> {
        Input::index_placed(path, check, &[])
    }

    /// As [`Input::index`], each line whose events' places its writer handed over (`placed`,
    /// `builder::PlanePlaces` by plane name) indexed from them: its events are stepped over,
    /// not read. A line they do not match (another id, or its events elsewhere) is read.
    pub(super) fn index_placed(
        path: &Path,
        check: super::Check,
        placed: &[PlanePlaces],
    ) -> Result<Self, MergeError> {
        let read = |source| MergeError::Read {
            path: path.to_path_buf(),
            source,
        };
        let file = Arc::new(File::open(path).map_err(read)?);
        let len = file.metadata().map_err(read)?.len();
        let mut r = FileFields::new(file.clone(), 0, len);
        let mut planes = Vec::new();
        let mut rest = Vec::new();
        let malformed = |e: io::Error| MergeError::Malformed {
            path: path.to_path_buf(),
            what: e.to_string(),
        };
        let index = (|| -> io::Result<()> {
            while let Some((number, value)) = r.field()? {
                match (number, value) {
                    (SPACE_PLANES, RawField::Len(n)) => {
                        let end = r.end_of(n)?;
                        planes.push(index_plane(&file, &mut r, end, check, placed)?);
                    }
                    (number, value) => r.copy_field(number, value, &mut rest)?,
                }
            }
            Ok(())
        })();
        index.map_err(malformed)?;
        let rest = XSpace::decode(rest.as_slice()).map_err(|e| malformed(e.into()))?;
        let origin = origin_of(&planes);
        let identity = identity_of(&planes);
        Ok(Input {
            path: path.to_path_buf(),
            file: Some(file),
            len,
            planes,
            rest,
            origin,
            identity,
            forgotten: false,
        })
    }
}

/// One plane: its head first (its lines skipped: the head's fields follow them on the wire, and
/// the `open_at_end` stat's id is there), then each line's head and events (from `placed`
/// where it has the plane).
fn index_plane(
    file: &Arc<File>,
    r: &mut FileFields,
    end: u64,
    check: super::Check,
    placed: &[PlanePlaces],
) -> io::Result<PlaneIn> {
    let mut head = Vec::new();
    let mut spans = Vec::new();
    while r.position() < end {
        let Some((number, value)) = r.field()? else {
            break;
        };
        match (number, value) {
            (PLANE_LINES, RawField::Len(n)) => {
                spans.push((r.position(), r.end_of(n)?));
                r.skip(n)?;
            }
            (number, value) => r.copy_field(number, value, &mut head)?,
        }
    }
    let head = XPlane::decode(head.as_slice())?;
    let open = stat_id_named(&head, s::OPEN_AT_END);
    let placed = placed
        .iter()
        .find(|p| p.name == head.name)
        .map_or(&[][..], |p| &p.lines[..]);
    let lines = spans
        .into_iter()
        .enumerate()
        .map(|(k, (start, end))| {
            let places = placed.get(k).and_then(Option::as_ref);
            index_line(file, start, end, check, open, places)
        })
        .collect::<io::Result<Vec<_>>>()?;
    Ok(PlaneIn { head, lines })
}

/// One line's head and its events' index (`open`: the plane's `open_at_end` stat id), from
/// `placed` when they match the line (its events are then stepped over), else read.
fn index_line(
    file: &Arc<File>,
    start: u64,
    end: u64,
    check: super::Check,
    open: Option<i64>,
    placed: Option<&EventPlaces>,
) -> io::Result<LineIn> {
    if let Some(line) = placed.and_then(|p| index_placed_line(file, start, end, p).transpose()) {
        return line;
    }
    let mut r = FileFields::new(file.clone(), start, end);
    let mut line_head = Vec::new();
    let mut events = super::splice::EventIndexer::default();
    while r.position() < end {
        let at = r.position();
        let Some((number, value)) = r.field()? else {
            break;
        };
        match (number, value) {
            (LINE_EVENTS, RawField::Len(n)) => {
                let event_end = r.end_of(n)?;
                events.event(at, event_end, r.bytes(n)?, check, open)?;
            }
            (number, value) => {
                events.other_field();
                r.copy_field(number, value, &mut line_head)?
            }
        }
    }
    Ok(LineIn {
        head: XLine::decode(line_head.as_slice())?,
        start,
        end,
        events: events.finish(),
    })
}

/// One line indexed from where its writer placed its events (`p`): its fields before and after
/// them read, the events stepped over. `None` when the line is not as `p` says (another id,
/// its events not all where `p` has them): it is then read.
fn index_placed_line(
    file: &Arc<File>,
    start: u64,
    end: u64,
    p: &EventPlaces,
) -> io::Result<Option<LineIn>> {
    let events_at = start.saturating_add(p.lead);
    let events_end = events_at.saturating_add(p.len);
    if events_end > end {
        return Ok(None);
    }
    let mut line_head = Vec::new();
    for (from, to) in [(start, events_at), (events_end, end)] {
        let mut r = FileFields::new(file.clone(), from, to);
        while r.position() < to {
            let Some((number, value)) = r.field()? else {
                break;
            };
            if number == LINE_EVENTS {
                return Ok(None);
            }
            r.copy_field(number, value, &mut line_head)?;
        }
    }
    let head = XLine::decode(line_head.as_slice())?;
    if head.id != p.line_id {
        return Ok(None);
    }
    Ok(Some(LineIn {
        head,
        start,
        end,
        events: super::splice::EventIndex::placed(p, events_at),
    }))
}

/// A Task Environment stat of the input's, as an unsigned number.
fn env_stat(planes: &[PlaneIn], name: &str) -> Option<u64> {
    let env = planes.iter().find(|p| p.head.name == s::TASK_ENV_PLANE)?;
    let id = stat_id_named(&env.head, name)?;
    env.head
        .stats
        .iter()
        .find(|st| st.metadata_id == id)
        .and_then(|st| match st.value {
            Some(x_stat::Value::Uint64Value(v)) => Some(v),
            Some(x_stat::Value::Int64Value(v)) => u64::try_from(v).ok(),
            _ => None,
        })
}

/// Whose window the input is, if it says.
fn identity_of(planes: &[PlaneIn]) -> Option<Identity> {
    Some(Identity {
        pid: env_stat(planes, s::WINDOW_PID)?,
        run: env_stat(planes, s::WINDOW_RUN)?,
    })
}

/// The input's origin, from its Task Environment.
fn origin_of(planes: &[PlaneIn]) -> Origin {
    let stat = |name: &str| env_stat(planes, name);
    Origin {
        job: stat(s::CLOCK_ORIGIN_UNIX_NS),
        boot: stat(s::ORIGIN_BOOTTIME_NS),
        wall: stat(s::PROFILE_START_TIME),
        stop: stat(s::PROFILE_STOP_TIME),
        began: stat(s::CLOCK_BOOT_NS),
    }
}

/// The id plane `p` gives the stat named `name`, if it has one.
pub(super) fn stat_id_named(p: &XPlane, name: &str) -> Option<i64> {
    p.stat_metadata
        .iter()
        .find(|(_, m)| m.name == name)
        .map(|(&id, _)| id)
}

/// ps to add to each input's times (line timestamp and offset) to put them on the earliest
/// input's origin: on the job clock when every input is on one (its times then count from the
/// job's origin: nothing moves but between origins), else by the boot clock when every input
/// has it (exact), else by the wall clock.
pub(super) fn shifts(inputs: &[Input]) -> Vec<i64> {
    let job = inputs.iter().all(|i| i.origin.job.is_some());
    let boot = inputs.iter().all(|i| i.origin.boot.is_some());
    let ns = |i: &Input| match (job, boot) {
        (true, _) => i.origin.job,
        (false, true) => i.origin.boot,
        (false, false) => i.origin.wall,
    };
    let base = inputs.iter().filter_map(ns).min().unwrap_or(0);
    inputs
        .iter()
        .map(|i| {
            ns(i).map_or(0, |o| {
                i64::try_from(o - base)
                    .unwrap_or(i64::MAX)
                    .saturating_mul(1000)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows on one run's clock (one boot origin, wall starts a few µs apart either way)
    /// are ordered by their ends; inputs on their own clocks by their origins; inputs that
    /// say where their collection began by that, whatever their origins.
    #[test]
    fn windows_on_their_run_s_clock_are_ordered_by_their_ends() {
        let window = |wall, stop| Origin {
            boot: Some(500),
            wall: Some(wall),
            stop: Some(stop),
            ..Origin::default()
        };
        let (first, second) = (window(1_000_003, 2_000), window(1_000_000, 3_000));
        assert_eq!(Order::of([&first, &second].into_iter()), Order::Boot);
        assert!(first.order_key(Order::Boot) < second.order_key(Order::Boot));
        let own = |boot, wall| Origin {
            boot: Some(boot),
            wall: Some(wall),
            stop: Some(9),
            ..Origin::default()
        };
        assert!(own(10, 2).order_key(Order::Boot) < own(20, 1).order_key(Order::Boot));
        let no_boot = |wall| Origin {
            wall: Some(wall),
            ..Origin::default()
        };
        assert_eq!(Order::of([no_boot(1), own(1, 1)].iter()), Order::Wall);
        assert!(no_boot(1).order_key(Order::Wall) < no_boot(2).order_key(Order::Wall));
        // A window that took in a call from windows back starts before the window before
        // it, and ends before it when that one's events ran on past its cut.
        let began = |began, boot, stop| {
            Origin {
                began: Some(began),
                ..own(boot, 0)
            }
            .with_stop(stop)
        };
        let (before, after) = (began(100, 90, 300), began(200, 80, 250));
        assert_eq!(Order::of([&before, &after].into_iter()), Order::Began);
        assert!(before.order_key(Order::Began) < after.order_key(Order::Began));
        assert_eq!(Order::of([&before, &own(1, 1)].into_iter()), Order::Boot);
    }

    impl Origin {
        fn with_stop(mut self, stop: u64) -> Self {
            self.stop = Some(stop);
            self
        }
    }

    /// A line indexed from where its writer placed its events (`builder::EventPlaces`) has
    /// the index reading it gives: events in order and out of order (sorted when the line is
    /// finished), ties, negative offsets, every `SAMPLE`-th sampled, ranges open at the end
    /// among them, an empty line. Places that do not match a line (another id) leave it to
    /// be read.
    #[test]
    fn a_line_indexed_from_its_places_is_indexed_as_read() {
        use crate::xplane::builder::{LineBuilder, PlaneBuilder, StatBytes};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.xplane.pb");
        let mut plane = PlaneBuilder::new(1, "/host:CPU");
        let open = plane.stat_metadata_id(s::OPEN_AT_END);
        let other = plane.stat_metadata_id("x");
        for (id, shuffled) in [(1, false), (2, true)] {
            let mut line = LineBuilder::new(id, format!("line {id}"), 100);
            let mut st = StatBytes::new();
            for i in 0..300i64 {
                let at = if shuffled { (i * 7919) % 300 } else { i } / 2 * 1000 - 5000;
                st.clear();
                st.u64(other, i as u64);
                if i % 37 == 0 {
                    st.open_at_end(open);
                }
                line.add_event(1 + i % 3, at, (i % 5) * 10, &st);
            }
            plane.add_line(line.finish());
        }
        plane.add_line(LineBuilder::new(3, "empty", 0).finish());
        let mut built = plane.finish();
        let places = vec![built.take_places()];
        let mut bytes = Vec::new();
        built.write_entry(&mut bytes).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let check = crate::xplane::merge::Check::Bounds;
        let read = Input::index(&path, check).unwrap();
        let placed = Input::index_placed(&path, check, &places).unwrap();
        let lines =
            |i: &Input| -> Vec<(XLine, u64, u64, crate::xplane::merge::splice::EventIndex)> {
                i.planes[0]
                    .lines
                    .iter()
                    .map(|l| (l.head.clone(), l.start, l.end, l.events.clone()))
                    .collect()
            };
        assert_eq!(lines(&read).len(), 3);
        assert_eq!(lines(&read), lines(&placed));
        // Each line was indexed from its places, not read.
        let file = read.file();
        for (l, p) in read.planes[0].lines.iter().zip(&places[0].lines) {
            let p = p.as_ref().expect("our writer places every line's events");
            let from_places = index_placed_line(&file, l.start, l.end, p).unwrap();
            assert_eq!(from_places.map(|f| f.events), Some(l.events.clone()));
            let other = EventPlaces {
                line_id: p.line_id + 1,
                ..p.clone()
            };
            assert!(index_placed_line(&file, l.start, l.end, &other)
                .unwrap()
                .is_none());
        }
        let n = |i: &crate::xplane::merge::splice::EventIndex| i.open_at_end.len();
        assert_eq!(
            n(&read.planes[0].lines[1].events),
            9,
            "300 / 37, rounded up"
        );
    }

    /// A length that overflows the file's offsets is refused as damage, not a panic.
    #[test]
    fn a_length_past_any_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.xplane.pb");
        // `XSpace.planes`, length 2^64 - 1; and a plane whose line says 2^63.
        let mut bad = vec![0x0a];
        prost::encoding::encode_varint(u64::MAX, &mut bad);
        std::fs::write(&p, &bad).unwrap();
        assert!(matches!(
            Input::index(&p, crate::xplane::merge::Check::Fields),
            Err(MergeError::Malformed { .. })
        ));
        let mut line = vec![0x1a];
        prost::encoding::encode_varint(1 << 63, &mut line);
        let mut plane = vec![0x0a];
        prost::encoding::encode_varint(line.len() as u64, &mut plane);
        plane.extend_from_slice(&line);
        std::fs::write(&p, &plane).unwrap();
        assert!(matches!(
            Input::index(&p, crate::xplane::merge::Check::Fields),
            Err(MergeError::Malformed { .. })
        ));
    }
}
