//! Profiles of one process cut in time (a run's capture windows) made into one profile, one
//! line at a time: each input is indexed (plane and line heads read, events skipped), then
//! every line of the output is merged from the inputs' lines by time and written before the
//! next is read. Memory holds the inputs' metadata and one line of the output, never a
//! profile: the merge of a week-long job's windows needs no more than one of them did.
//!
//! What the inputs share is named alike in the output: a plane by its name, a line by its
//! id within its plane, event and stat metadata by name (an input's ids are its own), a
//! scope in the scope-range tree by its id (there the ids are the scopes). Times are moved
//! to the earliest input's origin (`rocprof_xplane_origin_boottime_ns`, exact; else
//! `profile_start_time`). A roctx range an input shows open at its end (`open_at_end`) is
//! left out unless the input is the last: the window where it ends shows it whole. The Task
//! Environment's counters are summed, its times widened. A device line's name lists the
//! kinds of work of every input (`Stream #1(Compute,MemcpyDToH)`).
//!
//! Windows written on their run's names and clock (`WINDOW_MERGE`, `xplane::RunIds`) agree
//! with the output on every id and time: their events are copied as they were written, only
//! their times read to merge them, which costs a fraction of re-encoding them.
//! What is copied is first checked to decode as prost decodes it, unless this process has
//! just written it ([`merge_own_files`]). Lines are written on a thread of their own while the
//! next is merged.
//!
//! What a window boundary loses is not recovered (docs/configuration.md): an arrow whose
//! record and wait are in different windows is not drawn unless the windows were written to
//! be merged (`WINDOW_MERGE`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::fastmap::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use prost::Message;

use super::builder::LineBuilder;
use super::proto::{x_stat, XLine, XPlane, XSpace, XStat};
use super::stats as s;
use crate::wire::xplane::{self as fields, event, stat};
use crate::wire::{self, check, FieldValue, Fields, FileFields, RawField, PADDED_LEN};

/// Why a merge failed; the output is then not written (or not renamed into place).
#[derive(Debug)]
pub enum MergeError {
    Read { path: PathBuf, source: io::Error },
    Malformed { path: PathBuf, what: String },
    NoInput,
    Write(super::WriteError),
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            MergeError::Malformed { path, what } => {
                write!(f, "{} is not an XSpace: {what}", path.display())
            }
            MergeError::NoInput => write!(f, "no profile to merge"),
            MergeError::Write(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MergeError {}

/// What a merge wrote.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Merged {
    pub inputs: usize,
    pub planes: usize,
    pub lines: usize,
    pub events: u64,
    /// Of `events`, those copied as they are (inputs on one run's ids and clock,
    /// `xplane::RunIds`), not re-encoded.
    pub copied: u64,
    /// roctx ranges an input showed open at its end, shown whole by a later one.
    pub open_ranges_left_out: u64,
}

/// Merges `inputs` (profiles of one process, any order: they are put in time order) into
/// `layout`'s file.
pub fn merge_files(
    inputs: &[PathBuf],
    layout: &super::OutputLayout,
) -> Result<(PathBuf, Merged), MergeError> {
    merge(inputs, layout, Check::Fields)
}

/// As [`merge_files`], for files this process has just written itself (`WINDOW_MERGE` at
/// exit): an event copied as it is (a window on its run's ids and clock, `xplane::RunIds`) is
/// not checked field by field first (a large part of a copying merge's work, for bytes this
/// process wrote a moment ago). Bounds are still checked: damage could only make the output
/// unreadable, never the program fail.
pub fn merge_own_files(
    inputs: &[PathBuf],
    layout: &super::OutputLayout,
) -> Result<(PathBuf, Merged), MergeError> {
    merge(inputs, layout, Check::Bounds)
}

/// How much of an event copied as it is the merge checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Every field whole and of a known wire type, as re-encoding requires: a damaged file
    /// is refused instead of copied into one no reader could decode.
    Fields,
    /// Its length within its line, and the fields the merge reads.
    Bounds,
}

fn merge(
    inputs: &[PathBuf],
    layout: &super::OutputLayout,
    check: Check,
) -> Result<(PathBuf, Merged), MergeError> {
    if inputs.is_empty() {
        return Err(MergeError::NoInput);
    }
    let mut indexed = Vec::with_capacity(inputs.len());
    for p in inputs {
        indexed.push(Input::index(p)?);
    }
    // Time order, by origin (the inputs' names need not sort): the boot clock's when every
    // input has it (exact), else the wall clock's; windows on their run's clock (one origin)
    // by where each ended.
    let boot = indexed.iter().all(|i| i.origin.boot.is_some());
    indexed.sort_by_key(|i| i.origin.order_key(boot));
    let mut merged = Merged {
        inputs: indexed.len(),
        ..Merged::default()
    };
    let path = super::file::write_with(layout, |w| write_merged(&indexed, w, check, &mut merged))
        .map_err(MergeError::Write)?;
    Ok((path, merged))
}

/// Where an input's times start, in ns: `rocprof_xplane_origin_boottime_ns` (exact, ours)
/// and `profile_start_time` (wall clock, what xprof reads).
#[derive(Debug, Clone, Copy, Default)]
struct Origin {
    boot: Option<u64>,
    wall: Option<u64>,
    /// `profile_stop_time`: where the input ended.
    stop: Option<u64>,
}

impl Origin {
    /// Where the input lies in time among inputs that all have the boot clock's origin
    /// (`boot`) or not. Windows on their run's clock share an origin and tell their order by
    /// their ends: their wall-clock starts, moved back to that origin, differ only by the
    /// microseconds between reading the two clocks, either way.
    fn order_key(&self, boot: bool) -> (Option<u64>, Option<u64>) {
        (if boot { self.boot } else { self.wall }, self.stop)
    }
}

/// One input, indexed: its planes' and lines' heads, and where each line's bytes are.
struct Input {
    file: Arc<File>,
    planes: Vec<PlaneIn>,
    /// The XSpace's other fields (errors, warnings, hostnames).
    rest: XSpace,
    origin: Origin,
}

struct PlaneIn {
    head: XPlane,
    lines: Vec<LineIn>,
}

struct LineIn {
    head: XLine,
    /// The line's bytes in the file (its fields, events included).
    start: u64,
    end: u64,
}

/// Field numbers of `proto/xplane.proto` the index reads.
const SPACE_PLANES: u32 = fields::space::PLANES.number;
const PLANE_LINES: u32 = fields::plane::LINES.number;
const LINE_EVENTS: u32 = fields::line::EVENTS.number;

impl Input {
    fn index(path: &Path) -> Result<Self, MergeError> {
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
                        planes.push(index_plane(&mut r, end)?);
                    }
                    (number, value) => r.copy_field(number, value, &mut rest)?,
                }
            }
            Ok(())
        })();
        index.map_err(malformed)?;
        let rest = XSpace::decode(rest.as_slice()).map_err(|e| malformed(e.into()))?;
        let origin = origin_of(&planes);
        Ok(Input {
            file,
            planes,
            rest,
            origin,
        })
    }
}

fn index_plane(r: &mut FileFields, end: u64) -> io::Result<PlaneIn> {
    let mut head = Vec::new();
    let mut lines = Vec::new();
    while r.position() < end {
        let Some((number, value)) = r.field()? else {
            break;
        };
        match (number, value) {
            (PLANE_LINES, RawField::Len(n)) => {
                let (start, line_end) = (r.position(), r.end_of(n)?);
                let mut line_head = Vec::new();
                while r.position() < line_end {
                    let Some((number, value)) = r.field()? else {
                        break;
                    };
                    match (number, value) {
                        (LINE_EVENTS, RawField::Len(n)) => r.skip(n)?,
                        (number, value) => r.copy_field(number, value, &mut line_head)?,
                    }
                }
                lines.push(LineIn {
                    head: XLine::decode(line_head.as_slice())?,
                    start,
                    end: line_end,
                });
            }
            (number, value) => r.copy_field(number, value, &mut head)?,
        }
    }
    Ok(PlaneIn {
        head: XPlane::decode(head.as_slice())?,
        lines,
    })
}

/// The input's origin, from its Task Environment.
fn origin_of(planes: &[PlaneIn]) -> Origin {
    let Some(env) = planes.iter().find(|p| p.head.name == s::TASK_ENV_PLANE) else {
        return Origin::default();
    };
    let stat = |name: &str| {
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
    };
    Origin {
        boot: stat(s::ORIGIN_BOOTTIME_NS),
        wall: stat(s::PROFILE_START_TIME),
        stop: stat(s::PROFILE_STOP_TIME),
    }
}

/// The id plane `p` gives the stat named `name`, if it has one.
fn stat_id_named(p: &XPlane, name: &str) -> Option<i64> {
    p.stat_metadata
        .iter()
        .find(|(_, m)| m.name == name)
        .map(|(&id, _)| id)
}

/// ps to add to each input's offsets to put them on the earliest input's origin: by the boot
/// clock when every input has it (exact), else by the wall clock.
fn shifts(inputs: &[Input]) -> Vec<i64> {
    let boot = inputs.iter().all(|i| i.origin.boot.is_some());
    let ns = |i: &Input| if boot { i.origin.boot } else { i.origin.wall };
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

/// An input plane's ids in the output's numbering.
#[derive(Default)]
struct Ids {
    events: HashMap<i64, i64>,
    stats: HashMap<i64, i64>,
    /// Every stat keeps its id: an event's stats are copied as they are.
    stats_kept: bool,
    /// Every stat and event name keeps its id: with no time to move, an event is copied as
    /// it is.
    all_kept: bool,
}

impl Ids {
    fn stat(&self, st: &XStat) -> XStat {
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
fn merge_heads(planes: &[(usize, &PlaneIn)]) -> (XPlane, Vec<Ids>) {
    let first = &planes[0].1.head;
    let mut out = XPlane {
        id: first.id,
        name: first.name.clone(),
        ..XPlane::default()
    };
    let scope_tree = first.name == s::SCOPE_TREE_PLANE;
    let mut ids = Vec::with_capacity(planes.len());
    let mut stat_by_name: HashMap<String, i64> = HashMap::default();
    let mut event_by_name: HashMap<String, i64> = HashMap::default();
    for (_, p) in planes {
        let mut map = Ids::default();
        let mut stat_ids: Vec<i64> = p.head.stat_metadata.keys().copied().collect();
        stat_ids.sort_unstable();
        for id in stat_ids {
            let m = &p.head.stat_metadata[&id];
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
    for ((_, p), map) in planes.iter().zip(&mut ids) {
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

/// The output's id for metadata `name`, id `id` in its input: the one the name already has,
/// else the input's own if the output has not given it, else the one after the largest. An
/// input whose names and ids agree with the output's keeps its ids.
fn output_id<V>(
    by_name: &mut HashMap<String, i64>,
    out: &std::collections::BTreeMap<i64, V>,
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
    planes: &[(usize, &PlaneIn)],
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
    for ((_, p), map) in planes.iter().zip(ids) {
        for st in &p.head.stats {
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
            let v = if n == s::PROFILE_START_TIME || n == s::ORIGIN_BOOTTIME_NS {
                (*old).min(*new)
            } else if n == s::PROFILE_STOP_TIME {
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

/// The events of one input line, in its order, on the output's clock and in its ids; the
/// current one held (`metadata_id`, `offset_ps`, `duration_ps`, `stats` as their wire bytes).
struct LineCursor<'a> {
    reader: FileFields,
    ids: &'a Ids,
    line_ts_ps: i64,
    shift_ps: i64,
    /// An `open_at_end` stat id whose events are left out (inputs before the last).
    drop_stat: Option<i64>,
    dropped: u64,
    /// Events are copied as they are (`Ids::all_kept`, no time to move), checked as `check`
    /// says; the current one's bytes are then in `stats`.
    verbatim: Option<Check>,
    metadata_id: i64,
    offset_ps: i64,
    duration_ps: i64,
    stats: Vec<u8>,
    /// Scratch for one stat.
    stat: Vec<u8>,
}

impl LineCursor<'_> {
    /// Reads the next event kept; `false` at the line's end.
    fn advance(&mut self) -> io::Result<bool> {
        while let Some((number, value)) = self.reader.field()? {
            let RawField::Len(n) = value else {
                continue;
            };
            if number != LINE_EVENTS {
                self.reader.skip(n)?;
                continue;
            }
            let bytes = self.reader.bytes(n)?;
            if let Some(check) = self.verbatim {
                match event_times(bytes, self.drop_stat, check)? {
                    Some((offset, duration)) => {
                        self.stats.clear();
                        self.stats.extend_from_slice(bytes);
                        self.offset_ps = offset;
                        self.duration_ps = duration;
                        return Ok(true);
                    }
                    None => {
                        self.dropped += 1;
                        continue;
                    }
                }
            }
            let (ids, drop_stat) = (self.ids, self.drop_stat);
            let (stats, stat) = (&mut self.stats, &mut self.stat);
            match read_event(bytes, ids, drop_stat, stats, stat)? {
                Some((md, offset, duration)) => {
                    self.metadata_id = md;
                    self.offset_ps = offset
                        .saturating_add(self.line_ts_ps)
                        .saturating_add(self.shift_ps);
                    self.duration_ps = duration;
                    return Ok(true);
                }
                None => self.dropped += 1,
            }
        }
        Ok(false)
    }

    /// The writer's line order (start, the longer first), then the input's.
    fn key(&self, input: usize) -> (i64, Reverse<i64>, usize) {
        (self.offset_ps, Reverse(self.duration_ps), input)
    }
}

/// The keys of the `XEvent` and `XStat` fields the merge reads.
const EVENT_METADATA_ID: u64 = event::METADATA_ID.key();
const EVENT_OFFSET_PS: u64 = event::OFFSET_PS.key();
const EVENT_DURATION_PS: u64 = event::DURATION_PS.key();
const EVENT_STATS: u64 = event::STATS.key();
const STAT_METADATA_ID: u64 = stat::METADATA_ID.key();
const STAT_REF_VALUE: u64 = stat::REF_VALUE.key();

/// One encoded `XEvent`: its metadata id (in the output's ids), offset and duration, its
/// stats re-encoded into `stats` with the output's ids (`stat`: scratch); `None` when it
/// holds `drop_stat`. Read field by field, with no `XEvent` decoded and encoded again.
fn read_event(
    b: &[u8],
    ids: &Ids,
    drop_stat: Option<i64>,
    stats: &mut Vec<u8>,
    stat: &mut Vec<u8>,
) -> io::Result<Option<(i64, i64, i64)>> {
    let (mut md, mut offset, mut duration) = (0i64, 0i64, 0i64);
    stats.clear();
    let mut cursor = Fields::new(b, "an event");
    while let Some((key, value)) = cursor.next_field()? {
        match (key, value) {
            (EVENT_METADATA_ID, FieldValue::Varint(v)) => md = v as i64,
            (EVENT_OFFSET_PS, FieldValue::Varint(v)) => offset = v as i64,
            (EVENT_DURATION_PS, FieldValue::Varint(v)) => duration = v as i64,
            (EVENT_STATS, FieldValue::Len(one)) => {
                // Damage copied as it is (here, or a value field in `read_stat`) would make a
                // file nothing can read.
                check::check_stat(one)?;
                if ids.stats_kept && drop_stat.is_none() {
                    // The stat as it is (a plane whose stat ids the output keeps: the first
                    // input's, and often the others').
                    stats.push(event::STATS.key_byte());
                    stats.extend_from_slice(cursor.raw_value());
                    continue;
                }
                if !read_stat(one, ids, drop_stat, stat)? {
                    return Ok(None);
                }
                fields::put_entry(stats, event::STATS, stat);
            }
            // Fields the output's event does not carry.
            _ => {}
        }
    }
    let md = ids.events.get(&md).copied().unwrap_or(md);
    Ok(Some((md, offset, duration)))
}

/// `offset_ps` and `duration_ps` of one encoded `XEvent` copied as it is; `None` when it holds
/// `drop_stat`. Our writers put fields 1–3 first, so with only bounds to check and no stat to
/// look for, the reading stops at the first stat.
fn event_times(b: &[u8], drop_stat: Option<i64>, check: Check) -> io::Result<Option<(i64, i64)>> {
    if check == Check::Fields {
        check::check_event(b)?;
    }
    let (mut offset, mut duration) = (0i64, 0i64);
    let mut cursor = Fields::new(b, "an event");
    while let Some((key, value)) = cursor.next_field()? {
        match (key, value) {
            (EVENT_OFFSET_PS, FieldValue::Varint(v)) => offset = v as i64,
            (EVENT_DURATION_PS, FieldValue::Varint(v)) => duration = v as i64,
            (EVENT_STATS, _) if drop_stat.is_none() => break,
            (EVENT_STATS, FieldValue::Len(one)) if stat_metadata_id(one)? == drop_stat => {
                return Ok(None)
            }
            _ => {}
        }
    }
    Ok(Some((offset, duration)))
}

/// The `metadata_id` of one encoded `XStat` (field 1, first as our writers put it), if any.
fn stat_metadata_id(b: &[u8]) -> io::Result<Option<i64>> {
    let mut cursor = Fields::new(b, "a stat");
    while let Some((key, value)) = cursor.next_field()? {
        if let (STAT_METADATA_ID, FieldValue::Varint(id)) = (key, value) {
            return Ok(Some(id as i64));
        }
    }
    Ok(None)
}

/// One encoded `XStat` into `out` with the output's ids (its metadata id, and the stat a
/// `ref_value` names); `false` when it is `drop_stat`.
fn read_stat(b: &[u8], ids: &Ids, drop_stat: Option<i64>, out: &mut Vec<u8>) -> io::Result<bool> {
    out.clear();
    let stat_id = |id: i64| ids.stats.get(&id).copied().unwrap_or(id);
    let mut cursor = Fields::new(b, "a stat");
    loop {
        let start = cursor.position();
        let Some((key, value)) = cursor.next_field()? else {
            return Ok(true);
        };
        match (key, value) {
            (STAT_METADATA_ID, FieldValue::Varint(id)) => {
                let id = id as i64;
                if drop_stat == Some(id) {
                    return Ok(false);
                }
                fields::put_varint(out, stat::METADATA_ID, stat_id(id) as u64);
            }
            (STAT_REF_VALUE, FieldValue::Varint(r)) => {
                let to = i64::try_from(r).map_or(r, |r| stat_id(r) as u64);
                fields::put_varint(out, stat::REF_VALUE, to);
            }
            _ => out.extend_from_slice(cursor.since(start)),
        }
    }
}

/// What the merge hands its writer, in the output's order.
enum Out {
    /// A plane's entry begins: its key, a padded length filled in at its end, its head.
    PlaneStart(Vec<u8>),
    Line(super::builder::FinishedLine),
    /// The plane begun last is `len` bytes long.
    PlaneEnd(u64),
    Bytes(Vec<u8>),
}

impl Out {
    /// Writes it; `len_at` is where the length of the plane under way goes.
    fn apply(self, w: &mut io::BufWriter<File>, len_at: &mut u64) -> io::Result<()> {
        match self {
            Out::PlaneStart(head) => {
                let key_and_len = wire::padded_entry_head(fields::space::PLANES);
                w.write_all(&key_and_len[..key_and_len.len() - PADDED_LEN])?;
                *len_at = w.stream_position()?;
                w.write_all(&key_and_len[key_and_len.len() - PADDED_LEN..])?;
                w.write_all(&head)
            }
            Out::Line(line) => line.write_entry(w),
            Out::PlaneEnd(len) => {
                let end = w.stream_position()?;
                w.seek(SeekFrom::Start(*len_at))?;
                w.write_all(&wire::padded_varint(len)?)?;
                w.seek(SeekFrom::Start(end)).map(|_| ())
            }
            Out::Bytes(b) => w.write_all(&b),
        }
    }
}

/// Writes the merged profile into `w`: lines are merged on this thread and written on another
/// while the next is merged (writing a line costs about as much as merging it), so up to three
/// lines are held: one merged, one handed over, one written.
/// Without a thread, on this one.
fn write_merged(
    inputs: &[Input],
    w: &mut io::BufWriter<File>,
    check: Check,
    merged: &mut Merged,
) -> io::Result<()> {
    let w = std::sync::Mutex::new(w);
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Out>(1);
        let w = &w;
        let writer = std::thread::Builder::new()
            .name("rocprof-xplane-merge".into())
            .spawn_scoped(scope, move || {
                let (mut w, mut len_at) = (crate::store::sinks::lock(w), 0);
                for out in rx {
                    out.apply(&mut w, &mut len_at)?;
                }
                Ok(())
            });
        let writer = match writer {
            Ok(h) => h,
            Err(e) => {
                crate::log_debug!("the merge writes on the thread that merges: {e}");
                let (mut w, mut len_at) = (crate::store::sinks::lock(w), 0);
                return merge_to(inputs, check, merged, &mut |out| {
                    out.apply(&mut w, &mut len_at)
                });
            }
        };
        let merging = merge_to(inputs, check, merged, &mut |out| {
            tx.send(out)
                .map_err(|_| io::Error::other("the merge's writer stopped"))
        });
        drop(tx);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the merge's writer failed")));
        // The writer's error is the cause of a send that failed.
        written.and(merging)
    })
}

/// Merges `inputs` into what `out` writes, in order.
fn merge_to(
    inputs: &[Input],
    check: Check,
    merged: &mut Merged,
    out: &mut dyn FnMut(Out) -> io::Result<()>,
) -> io::Result<()> {
    let shift = shifts(inputs);
    // Planes by name, in the order they first appear.
    let mut names: Vec<&str> = Vec::new();
    for i in inputs {
        for p in &i.planes {
            if !names.contains(&p.head.name.as_str()) {
                names.push(&p.head.name);
            }
        }
    }
    for name in names {
        let planes: Vec<(usize, &PlaneIn)> = inputs
            .iter()
            .enumerate()
            .flat_map(|(k, i)| {
                i.planes
                    .iter()
                    .filter(|p| p.head.name == name)
                    .map(move |p| (k, p))
            })
            .collect();
        let (head, ids) = merge_heads(&planes);
        let mut len = head.encoded_len() as u64;
        out(Out::PlaneStart(head.encode_to_vec()))?;
        // Lines by id, in the order they first appear.
        let mut line_ids: Vec<i64> = Vec::new();
        for (_, p) in &planes {
            for l in &p.lines {
                if !line_ids.contains(&l.head.id) {
                    line_ids.push(l.head.id);
                }
            }
        }
        for id in line_ids {
            let parts: Vec<(usize, usize, &LineIn)> = planes
                .iter()
                .enumerate()
                .flat_map(|(j, (k, p))| {
                    p.lines
                        .iter()
                        .filter(|l| l.head.id == id)
                        .map(move |l| (j, *k, l))
                })
                .collect();
            let line = merge_line(inputs, &planes, &ids, &parts, &shift, check, merged)?;
            len += line.entry_len() as u64;
            out(Out::Line(line))?;
            merged.lines += 1;
        }
        out(Out::PlaneEnd(len))?;
        merged.planes += 1;
    }
    let mut rest = XSpace::default();
    let last = inputs.len().saturating_sub(1);
    for (k, i) in inputs.iter().enumerate() {
        for h in &i.rest.hostnames {
            if !rest.hostnames.contains(h) {
                rest.hostnames.push(h.clone());
            }
        }
        for e in &i.rest.errors {
            if !rest.errors.contains(e) {
                rest.errors.push(e.clone());
            }
        }
        for e in &i.rest.warnings {
            // A range open at a window's cut is shown whole in the merged profile (its
            // `open_at_end` part is left out above): that window's warning is not the profile's.
            let obsolete = k != last && e.contains(RANGES_OPEN_AT_CUT);
            if !obsolete && !rest.warnings.contains(e) {
                rest.warnings.push(e.clone());
            }
        }
    }
    out(Out::Bytes(rest.encode_to_vec()))
}

/// The words of the warning a capture window gives for the roctx ranges open at its cut
/// (`collect`), which the merge leaves out but for the last input's.
pub const RANGES_OPEN_AT_CUT: &str =
    "roctx ranges were still open at the end of this capture window";

/// One output line from its inputs' parts (`(plane's place among the inputs' planes, input,
/// line)`), merged by time.
fn merge_line(
    inputs: &[Input],
    planes: &[(usize, &PlaneIn)],
    ids: &[Ids],
    parts: &[(usize, usize, &LineIn)],
    shift: &[i64],
    check: Check,
    merged: &mut Merged,
) -> io::Result<super::builder::FinishedLine> {
    let last = inputs.len() - 1;
    let first = &parts[0].2.head;
    let names: Vec<&str> = parts.iter().map(|(_, _, l)| l.head.name.as_str()).collect();
    let mut line = LineBuilder::new(first.id, super::space::merged_line_name(&names), 0);
    if let Some(d) = parts
        .iter()
        .map(|(_, _, l)| &l.head.display_name)
        .find(|d| !d.is_empty())
    {
        line.set_display_name(d.clone());
    }
    let mut cursors: Vec<LineCursor> = parts
        .iter()
        .map(|&(j, k, l)| {
            let drop_stat = (k != last)
                .then(|| stat_id_named(&planes[j].1.head, s::OPEN_AT_END))
                .flatten();
            let line_ts_ps = l.head.timestamp_ns.saturating_mul(1000);
            LineCursor {
                reader: FileFields::new(inputs[k].file.clone(), l.start, l.end),
                ids: &ids[j],
                line_ts_ps,
                shift_ps: shift[k],
                drop_stat,
                dropped: 0,
                verbatim: (ids[j].all_kept && line_ts_ps == 0 && shift[k] == 0).then_some(check),
                metadata_id: 0,
                offset_ps: 0,
                duration_ps: 0,
                stats: Vec::new(),
                stat: Vec::new(),
            }
        })
        .collect();
    let mut heap = BinaryHeap::new();
    for (c, cursor) in cursors.iter_mut().enumerate() {
        if cursor.advance()? {
            heap.push(Reverse(cursor.key(c)));
        }
    }
    while let Some(Reverse((_, _, c))) = heap.pop() {
        let cur = &mut cursors[c];
        if cur.verbatim.is_some() {
            line.add_encoded_event(cur.offset_ps, cur.duration_ps, &cur.stats);
            merged.copied += 1;
        } else {
            line.add_event_bytes(cur.metadata_id, cur.offset_ps, cur.duration_ps, &cur.stats);
        }
        merged.events += 1;
        if cur.advance()? {
            heap.push(Reverse(cur.key(c)));
        }
    }
    merged.open_ranges_left_out += cursors.iter().map(|c| c.dropped).sum::<u64>();
    Ok(line.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows on one run's clock (one boot origin, wall starts a few µs apart either way)
    /// are ordered by their ends; inputs on their own clocks by their origins.
    #[test]
    fn windows_on_their_run_s_clock_are_ordered_by_their_ends() {
        let window = |wall, stop| Origin {
            boot: Some(500),
            wall: Some(wall),
            stop: Some(stop),
        };
        let (first, second) = (window(1_000_003, 2_000), window(1_000_000, 3_000));
        assert!(first.order_key(true) < second.order_key(true));
        let own = |boot, wall| Origin {
            boot: Some(boot),
            wall: Some(wall),
            stop: Some(9),
        };
        assert!(own(10, 2).order_key(true) < own(20, 1).order_key(true));
        let no_boot = |wall| Origin {
            wall: Some(wall),
            ..Origin::default()
        };
        assert!(no_boot(1).order_key(false) < no_boot(2).order_key(false));
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
            Input::index(&p),
            Err(MergeError::Malformed { .. })
        ));
        let mut line = vec![0x1a];
        prost::encoding::encode_varint(1 << 63, &mut line);
        let mut plane = vec![0x0a];
        prost::encoding::encode_varint(line.len() as u64, &mut plane);
        plane.extend_from_slice(&line);
        std::fs::write(&p, &plane).unwrap();
        assert!(matches!(
            Input::index(&p),
            Err(MergeError::Malformed { .. })
        ));
    }
}

#[cfg(test)]
mod damage_tests {
    use super::*;

    /// A stat damaged inside an event of a plane whose ids the output keeps (the fast path
    /// that copies stats as they are) is refused, as the field-by-field path refuses it:
    /// copied, it would make a merged file that no reader could decode.
    #[test]
    fn a_damaged_stat_is_refused_where_stats_are_copied_as_they_are() {
        let ids = Ids {
            stats_kept: true,
            ..Ids::default()
        };
        // metadata_id 1, offset 0, then a stat whose second field has wire type 7.
        let event = [0x08, 0x01, 0x10, 0x00, 0x22, 0x04, 0x08, 0x01, 0x0f, 0x00];
        let (mut stats, mut stat) = (Vec::new(), Vec::new());
        assert!(read_event(&event, &ids, None, &mut stats, &mut stat).is_err());
        // The same stat, sound, is copied as it is.
        let event = [0x08, 0x01, 0x10, 0x00, 0x22, 0x04, 0x08, 0x01, 0x18, 0x05];
        let got = read_event(&event, &ids, None, &mut stats, &mut stat).unwrap();
        assert_eq!(got, Some((1, 0, 0)));
        assert_eq!(stats, [0x22, 0x04, 0x08, 0x01, 0x18, 0x05]);
    }

    /// What prost refuses to decode is refused before it is copied, whole framing or not: a
    /// stat's `str_value` that is not UTF-8, a known field of the wrong wire type (a stat's
    /// `metadata_id`, an event's `offset_ps`), a field numbered 0: sound framing does not make
    /// an event copied as it is (or its stats, on a plane whose stat ids the output keeps)
    /// decodable.
    #[test]
    fn what_prost_cannot_decode_is_refused_before_it_is_copied() {
        use prost::Message;
        let ids = Ids {
            stats_kept: true,
            all_kept: true,
            ..Ids::default()
        };
        let stats_of = |stat: &[u8]| {
            // metadata_id 1, offset 0, then the stat.
            let mut e = vec![0x08, 0x01, 0x10, 0x00, 0x22, stat.len() as u8];
            e.extend_from_slice(stat);
            e
        };
        let damaged: [(&str, Vec<u8>); 4] = [
            (
                "str_value not UTF-8",
                stats_of(&[0x08, 0x01, 0x2a, 0x02, 0xff, 0xfe]),
            ),
            (
                "metadata_id as bytes",
                stats_of(&[0x0a, 0x01, 0x00, 0x18, 0x05]),
            ),
            ("field 0", stats_of(&[0x08, 0x01, 0x02, 0x00])),
            ("offset_ps as bytes", vec![0x08, 0x01, 0x12, 0x01, 0x00]),
        ];
        for (what, event) in damaged {
            assert!(
                crate::xplane::proto::XEvent::decode(event.as_slice()).is_err(),
                "{what}: prost decodes it"
            );
            // (Re-encoding writes an event's own fields anew, a wrong one left out.)
            let (mut stats, mut stat) = (Vec::new(), Vec::new());
            let reencoded = read_event(&event, &ids, None, &mut stats, &mut stat);
            assert!(
                reencoded.is_err() || what == "offset_ps as bytes",
                "{what}: re-encoded"
            );
            assert!(
                event_times(&event, None, Check::Fields).is_err(),
                "{what}: copied as it is"
            );
        }
        // Sound: a string, a double, bytes, an unknown field.
        let sound = stats_of(&[
            0x08, 0x01, 0x2a, 0x02, b'o', b'k', 0x11, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x32, 0x00,
            0x48, 0x07,
        ]);
        assert!(crate::xplane::proto::XEvent::decode(sound.as_slice()).is_ok());
        assert_eq!(
            event_times(&sound, None, Check::Fields).unwrap(),
            Some((0, 0))
        );
    }
}
