//! Building a plane: per-plane interning of event and stat metadata, typed stat values, and
//! each line encoded as it is finished.
//!
//! Mirrors how XLA's `XPlaneBuilder` assigns ids (per plane, `++last_id` from 1, deduplicated by
//! name, event and stat ids counted separately) so our files have the same shape xprof is tested
//! with. String values are written as `ref_value`: the string becomes a stat metadata entry, which
//! keeps files small when thousands of events repeat one `kernel_details` string.
//!
//! `line` builds a line's events into their wire bytes, `stats` an event's stats; the protobuf
//! encoding itself is `crate::wire`'s.

use prost::Message;

use crate::fastmap::HashMap;
use crate::wire::{self, xplane as fields};

use super::proto::{x_stat, XEventMetadata, XPlane, XStat, XStatMetadata};
use super::spill::{CountedFile, LineSpill, PlaneInOutput, SpillPolicy, SpilledLines};

mod line;
mod segments;
mod stats;

pub use line::{EventPlaces, EventSample, FinishedLine, LineBuilder, SAMPLE_EVERY};
pub(crate) use stats::fibonacci_slot;
pub use stats::{Hot, StatBytes, StatIds};

/// A typed stat value. The variant is part of the contract with xprof (e.g. `correlation_id`
/// must be `U64`, `scope_range_id` must be `I64`).
#[derive(Debug, Clone, PartialEq)]
pub enum StatValue<'a> {
    U64(u64),
    I64(i64),
    F64(f64),
    /// Interned: written as `ref_value` pointing at a stat metadata named by the string.
    Ref(&'a str),
    /// Written inline as `str_value`.
    Str(&'a str),
    Bytes(&'a [u8]),
}

/// Builds one `XPlane`, interning names as it goes. Each line is encoded as soon as it is
/// added: a finished line costs its wire bytes (about 60 B per event) rather than its message
/// structs (about 200 B per event), so the exit path's peak is the largest plane's encoding.
#[derive(Debug)]
pub struct PlaneBuilder {
    plane: XPlane,
    /// The lines added so far, each already encoded; written in order after fields 1–2.
    lines: Vec<FinishedLine>,
    /// Their bytes as `lines` entries.
    held: usize,
    /// Where the lines go past a size (`spill`), once they do, and a failure to put them
    /// there (reported when the plane is written).
    spill_policy: Option<SpillPolicy>,
    spill: Option<LinesOut>,
    spill_error: Option<std::io::Error>,
    names: PlaneNames,
    /// Where each line's events lie, in the order the lines were added.
    places: Vec<Option<EventPlaces>>,
}

/// A plane's names and the ids they were given, with their metadata: what a run's windows
/// that are to be merged carry from one to the next (`xplane::RunIds`), so that every window
/// numbers a name alike and the merge copies their events as they are. A window writes the
/// metadata of the names it uses only: a name used once (a step's numbered roctx range) is
/// not written again by every later window.
#[derive(Debug, Default, Clone)]
pub struct PlaneNames {
    event_ids: HashMap<String, i64>,
    stat_ids: HashMap<String, i64>,
    last_event_id: i64,
    last_stat_id: i64,
    /// The metadata of the names the plane being built has not used yet.
    event_metadata: std::collections::BTreeMap<i64, XEventMetadata>,
    stat_metadata: std::collections::BTreeMap<i64, XStatMetadata>,
}

impl PlaneNames {
    /// How many names it holds (event and stat metadata).
    pub fn len(&self) -> usize {
        self.event_ids.len() + self.stat_ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl PlaneBuilder {
    pub fn new(id: i64, name: impl Into<String>) -> Self {
        Self::with_names(id, name, PlaneNames::default())
    }

    /// A plane that goes on numbering from `names` (an earlier window's plane of the same
    /// name): a name gets the id it had there, and its metadata as it was there.
    pub fn with_names(id: i64, name: impl Into<String>, names: PlaneNames) -> Self {
        PlaneBuilder {
            plane: XPlane {
                id,
                name: name.into(),
                ..Default::default()
            },
            lines: Vec::new(),
            held: 0,
            spill_policy: None,
            spill: None,
            spill_error: None,
            names,
            places: Vec::new(),
        }
    }

    pub fn name(&self) -> &str {
        &self.plane.name
    }

    /// Lines past `policy.past` bytes go to a file in `policy.dir` (`xplane::spill`) instead
    /// of memory; the plane's bytes are the same either way.
    pub fn spill_lines(&mut self, policy: Option<SpillPolicy>) {
        self.spill_policy = policy;
    }

    /// Id of the event metadata called `name`, created on first use.
    pub fn event_metadata_id(&mut self, name: &str) -> i64 {
        let n = &mut self.names;
        let (id, new) = intern(&mut n.event_ids, &mut n.last_event_id, name);
        // A name of an earlier window, first used in this one: its metadata moves to the
        // plane (so the carried map holds only names the plane has not used; a new name, its
        // id past every carried one, is never there).
        if let Some(m) = n.event_metadata.remove(&id) {
            self.plane.event_metadata.insert(id, m);
        }
        if new {
            self.plane.event_metadata.insert(
                id,
                XEventMetadata {
                    id,
                    name: name.to_owned(),
                    ..Default::default()
                },
            );
        }
        id
    }

    /// Id of the stat metadata called `name`, created on first use. Stat names and interned
    /// string values share this namespace, as in XLA.
    pub fn stat_metadata_id(&mut self, name: &str) -> i64 {
        let n = &mut self.names;
        let (id, new) = intern(&mut n.stat_ids, &mut n.last_stat_id, name);
        if let Some(m) = n.stat_metadata.remove(&id) {
            self.plane.stat_metadata.insert(id, m);
        }
        if new {
            self.plane.stat_metadata.insert(
                id,
                XStatMetadata {
                    id,
                    name: name.to_owned(),
                    ..Default::default()
                },
            );
        }
        id
    }

    /// A stat named `name` with `value`, interning whatever it needs.
    pub fn stat(&mut self, name: &str, value: StatValue<'_>) -> XStat {
        let metadata_id = self.stat_metadata_id(name);
        let value = match value {
            StatValue::U64(v) => x_stat::Value::Uint64Value(v),
            StatValue::I64(v) => x_stat::Value::Int64Value(v),
            StatValue::F64(v) => x_stat::Value::DoubleValue(v),
            // Ids are positive, so the cast is lossless.
            StatValue::Ref(s) => x_stat::Value::RefValue(self.stat_metadata_id(s) as u64),
            StatValue::Str(s) => x_stat::Value::StrValue(s.to_owned()),
            StatValue::Bytes(b) => x_stat::Value::BytesValue(b.to_vec()),
        };
        XStat {
            metadata_id,
            value: Some(value),
        }
    }

    /// Appends a stat named `name` with `value` to an event's stats, interning what it needs
    /// in the order [`Self::stat`] does; numbers and references are written straight to bytes.
    pub fn put(&mut self, stats: &mut StatBytes, name: &str, value: StatValue<'_>) {
        match value {
            StatValue::U64(v) => {
                let id = self.stat_metadata_id(name);
                stats.u64(id, v);
            }
            StatValue::I64(v) => {
                let id = self.stat_metadata_id(name);
                stats.i64(id, v);
            }
            StatValue::Ref(r) => {
                let id = self.stat_metadata_id(name);
                let target = self.stat_metadata_id(r);
                stats.reference(id, target);
            }
            other => stats.push(&self.stat(name, other)),
        }
    }

    /// Sets a stat of event metadata `id` (what every event of that name shares), in place of
    /// one of the same name it has (a plane that went on from an earlier window's names).
    pub fn add_event_metadata_stat(&mut self, id: i64, stat: XStat) {
        if let Some(m) = self.plane.event_metadata.get_mut(&id) {
            match m
                .stats
                .iter_mut()
                .find(|s| s.metadata_id == stat.metadata_id)
            {
                Some(s) => *s = stat,
                None => m.stats.push(stat),
            }
        }
    }

    /// Adds event metadata `id` named `name` whose id is a fact of its own, not an interned
    /// name's (the program id of a `/host:metadata` module), with `stats`; later names are
    /// numbered past it.
    pub fn add_raw_event_metadata(&mut self, id: i64, name: &str, stats: Vec<XStat>) {
        self.plane.event_metadata.insert(
            id,
            XEventMetadata {
                id,
                name: name.to_owned(),
                stats,
                ..Default::default()
            },
        );
        self.names.last_event_id = self.names.last_event_id.max(id);
    }

    /// Adds a plane-level stat (device capabilities, Task Environment times).
    pub fn add_plane_stat(&mut self, name: &str, value: StatValue<'_>) {
        let stat = self.stat(name, value);
        self.plane.stats.push(stat);
    }

    /// Adds a raw plane-level stat whose `metadata_id` is not a stat-metadata id (the scope
    /// tree uses the child scope id there).
    pub fn add_raw_plane_stat(&mut self, stat: XStat) {
        self.plane.stats.push(stat);
    }

    /// Reserves stat-metadata ids up to `max_id` with one empty-named entry, so that raw ids
    /// used by [`Self::add_raw_plane_stat`] can never be reused for a real stat name later.
    pub fn reserve_stat_ids_up_to(&mut self, max_id: i64) {
        if max_id > self.names.last_stat_id {
            self.plane.stat_metadata.insert(
                max_id,
                XStatMetadata {
                    id: max_id,
                    ..Default::default()
                },
            );
            self.names.last_stat_id = max_id;
        }
    }

    /// Adds a finished line (see [`LineBuilder::finish`]); its bytes are not copied again
    /// until they are written.
    pub fn add_line(&mut self, mut line: FinishedLine) {
        if self.spill_error.is_some() {
            return;
        }
        self.places.push(line.take_places());
        if let Some(spill) = &mut self.spill {
            if let Err(e) = line.write_entry(spill.lines()) {
                self.spill_error = Some(e);
            }
            self.take_output_in_turn();
            return;
        }
        self.held += line.entry_len();
        self.lines.push(line);
        let Some(policy) = self.spill_policy.as_ref().filter(|p| self.held > p.past) else {
            return;
        };
        // Past the size: the lines so far go first, in order, then every later one.
        match self.lines_out(policy) {
            Ok(mut spill) => {
                for l in std::mem::take(&mut self.lines) {
                    if let Err(e) = l.write_entry(spill.lines()) {
                        self.spill_error = Some(e);
                        return;
                    }
                }
                self.held = 0;
                self.spill = Some(spill);
            }
            // No file (a read-only or full directory): the lines stay in memory.
            Err(e) => {
                crate::log_debug!(
                    "the plane's lines stay in memory: no file in {}: {e}",
                    policy.dir.display()
                );
                self.spill_policy = None;
            }
        }
    }

    /// Where the lines go past the size: into the output when it is the plane's turn there
    /// (the plane entry started there, its first fields written), else into a file of their
    /// own.
    fn lines_out(&self, policy: &SpillPolicy) -> std::io::Result<LinesOut> {
        if let Some(direct) = self.start_in_output(policy) {
            return Ok(LinesOut::Output(direct));
        }
        LineSpill::create(&policy.dir).map(LinesOut::File)
    }

    /// The plane's entry started in the output, if it is the plane's turn there.
    fn start_in_output(&self, policy: &SpillPolicy) -> Option<PlaneInOutput> {
        let output = policy.output.as_ref()?.open()?;
        PlaneInOutput::start(
            output,
            fields::space::PLANES,
            &self.leading().encode_to_vec(),
        )
        .map_err(|e| crate::log_debug!("the plane's lines go to a file of their own: {e}"))
        .ok()
    }

    /// A plane whose lines are set aside in a file takes the output once its turn comes: the
    /// lines so far are copied in, and every later one is written there once. Checked after
    /// each line (an atomic load).
    fn take_output_in_turn(&mut self) {
        if self.spill_error.is_some() || !matches!(self.spill, Some(LinesOut::File(_))) {
            return;
        }
        let Some(mut direct) = self
            .spill_policy
            .as_ref()
            .and_then(|p| self.start_in_output(p))
        else {
            return;
        };
        let Some(LinesOut::File(aside)) = self.spill.take() else {
            return;
        };
        // From here the plane's entry is under way in the output: a failure leaves the plane
        // (and so the file) unwritten, as any failed write into the output does.
        match aside
            .finish()
            .and_then(|lines| direct.lines().append(&lines))
        {
            Ok(()) => self.spill = Some(LinesOut::Output(direct)),
            Err(e) => self.spill_error = Some(e),
        }
    }

    /// The plane's fields that precede its lines on the wire (1–2: id, name).
    fn leading(&self) -> XPlane {
        XPlane {
            id: self.plane.id,
            name: self.plane.name.clone(),
            ..Default::default()
        }
    }

    /// As [`Self::finish`], with the plane's names and their metadata for the next window's
    /// plane of the same name ([`Self::with_names`]).
    pub fn finish_with_names(mut self) -> (BuiltPlane, PlaneNames) {
        let mut names = std::mem::take(&mut self.names);
        names.event_metadata.extend(
            self.plane
                .event_metadata
                .iter()
                .map(|(&id, m)| (id, m.clone())),
        );
        names.stat_metadata.extend(
            self.plane
                .stat_metadata
                .iter()
                .map(|(&id, m)| (id, m.clone())),
        );
        (self.finish(), names)
    }

    pub fn finish(mut self) -> BuiltPlane {
        let places = PlanePlaces {
            name: self.plane.name.clone(),
            lines: std::mem::take(&mut self.places),
        };
        // Fields 1–2 (id, name) come before the lines (field 3) on the wire.
        let leading = XPlane {
            id: std::mem::take(&mut self.plane.id),
            name: std::mem::take(&mut self.plane.name),
            ..Default::default()
        };
        let (head, split) = wire::around_repeated(&leading, self.plane);
        let spilled = match (self.spill_error, self.spill) {
            (Some(e), _) => Err(std::sync::Arc::new(e)),
            (None, None) => Ok(None),
            (None, Some(LinesOut::File(f))) => f
                .finish()
                .map(|s| Some(SetAside::File(s)))
                .map_err(std::sync::Arc::new),
            (None, Some(LinesOut::Output(o))) => o
                .finish(&head[split..], split)
                .map(|bytes| Some(SetAside::Written { bytes }))
                .map_err(std::sync::Arc::new),
        };
        // A plane past the spill size goes into the output with a padded length whichever way
        // it went (straight in, or set aside until its turn, which depends on how fast the
        // other planes were built): the file's bytes do not depend on the threads.
        let padded_len = matches!(spilled, Ok(Some(SetAside::File(_))))
            && self
                .spill_policy
                .as_ref()
                .is_some_and(|p| p.output.is_some());
        BuiltPlane {
            head,
            split,
            lines: self.lines,
            spilled,
            padded_len,
            places,
        }
    }
}

/// Where the events of a plane's lines lie ([`EventPlaces`]), line by line in the plane's
/// order (`None` for a line whose places are not known).
#[derive(Debug, Clone, Default)]
pub struct PlanePlaces {
    pub name: String,
    pub lines: Vec<Option<EventPlaces>>,
}

/// Where a plane's lines go once past the spill size.
#[derive(Debug)]
enum LinesOut {
    File(LineSpill),
    Output(PlaneInOutput),
}

impl LinesOut {
    fn lines(&mut self) -> &mut CountedFile {
        match self {
            LinesOut::File(f) => f.lines(),
            LinesOut::Output(o) => o.lines(),
        }
    }
}

/// A plane's lines that were not held in memory.
#[derive(Debug)]
enum SetAside {
    /// In a file of their own, to be copied into the output.
    File(SpilledLines),
    /// The whole plane is in the output already (`bytes`: of its lines).
    Written { bytes: usize },
}

/// A finished plane, encoded: everything but its lines (`head`, split where the lines go) and
/// its lines, each encoded.
#[derive(Debug)]
pub struct BuiltPlane {
    head: Vec<u8>,
    split: usize,
    lines: Vec<FinishedLine>,
    /// The lines set aside in a file (`xplane::spill`; then `lines` is empty), or why they
    /// could not all be: the plane is then not written.
    spilled: Result<Option<SetAside>, std::sync::Arc<std::io::Error>>,
    /// Its entry's length is written padded, as a plane that went straight into the output
    /// has it (`spill::PADDED_LEN`).
    padded_len: bool,
    places: PlanePlaces,
}

impl BuiltPlane {
    /// Length of the plane's encoding (what `XPlane::encoded_len` gives with its lines).
    pub fn encoded_len(&self) -> usize {
        self.head.len()
            + self.spilled_bytes()
            + self
                .lines
                .iter()
                .map(FinishedLine::entry_len)
                .sum::<usize>()
    }

    /// Where its lines' events lie, for the merge's index of the file it goes to; taken once.
    pub fn take_places(&mut self) -> PlanePlaces {
        std::mem::take(&mut self.places)
    }

    /// Bytes of lines not held in memory (`xplane::spill`: in a file of their own, or already
    /// in the output), 0 when held.
    pub fn spilled_bytes(&self) -> usize {
        match &self.spilled {
            Ok(Some(SetAside::File(s))) => s.bytes(),
            Ok(Some(SetAside::Written { bytes })) => *bytes,
            _ => 0,
        }
    }

    /// Whether the plane went into the output as it was built (see `spill::OutputFile`).
    pub fn is_written(&self) -> bool {
        matches!(self.spilled, Ok(Some(SetAside::Written { .. })))
    }

    /// Writes the plane as an entry of `XSpace.planes` (a file is its planes one after the
    /// other, then the rest of the XSpace); nothing for a plane that is in the output already.
    pub fn write_entry(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        if self.is_written() {
            return Ok(());
        }
        let planes = fields::space::PLANES;
        if self.padded_len {
            wire::write_padded_entry_head(planes, self.encoded_len() as u64, w)?;
        } else {
            wire::write_entry_head(planes, self.encoded_len(), w)?;
        }
        self.write_to(w)
    }

    /// Writes the bytes `XPlane::encode` gives for the plane with its lines: fields 1–2 (id,
    /// name), the lines (field 3), then fields 4–6, so the file is the same byte for byte.
    pub fn write_to(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        let spilled = match &self.spilled {
            Ok(None) => None,
            Ok(Some(SetAside::File(s))) => Some(s),
            Ok(Some(SetAside::Written { .. })) => {
                return Err(std::io::Error::other(
                    "the plane went into the output as it was built: its lines are not held",
                ))
            }
            Err(e) => {
                return Err(std::io::Error::new(
                    e.kind(),
                    format!("setting the plane's lines aside failed: {e}"),
                ))
            }
        };
        w.write_all(&self.head[..self.split])?;
        if let Some(s) = spilled {
            s.copy_to(w)?;
        }
        for l in &self.lines {
            l.write_entry(w)?;
        }
        w.write_all(&self.head[self.split..])
    }

    /// The plane as a message, for in-memory consumers.
    pub fn into_xplane(self) -> XPlane {
        let mut b = Vec::with_capacity(self.encoded_len());
        // Writing into a Vec cannot fail.
        let _ = self.write_to(&mut b);
        // Our own encoding: decoding cannot fail short of a prost bug; an empty plane is then
        // the safe answer.
        XPlane::decode(b.as_slice()).unwrap_or_default()
    }
}

/// The id of `name` in one id space, `(id, true)` when it was assigned now (`++last`, as XLA).
fn intern(ids: &mut HashMap<String, i64>, last: &mut i64, name: &str) -> (i64, bool) {
    if let Some(&id) = ids.get(name) {
        return (id, false);
    }
    *last += 1;
    ids.insert(name.to_owned(), *last);
    (*last, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_per_name_and_starts_at_one() {
        let mut p = PlaneBuilder::new(3, "/device:GPU:3");
        assert_eq!(p.event_metadata_id("k"), 1);
        assert_eq!(p.event_metadata_id("j"), 2);
        assert_eq!(p.event_metadata_id("k"), 1);
        assert_eq!(p.stat_metadata_id("correlation_id"), 1);
        let s = p.stat("kernel_details", StatValue::Ref("regs:1"));
        assert_eq!(s.metadata_id, 2);
        assert_eq!(s.value, Some(x_stat::Value::RefValue(3)));
        let plane = p.finish().into_xplane();
        assert_eq!(plane.stat_metadata[&3].name, "regs:1");
        assert_eq!(plane.event_metadata[&2].name, "j");
    }

    #[test]
    fn a_built_plane_encodes_as_the_message_with_its_lines() {
        let mut p = PlaneBuilder::new(2, "/device:GPU:2");
        for l in 0..3 {
            let mut line = LineBuilder::new(l, format!("Stream {l}"), 0);
            let id = p.event_metadata_id("k");
            let mut st = StatBytes::new();
            p.put(&mut st, "correlation_id", StatValue::U64(7 + l as u64));
            line.add_event(id, 10 * l, 5, &st);
            p.add_line(line.finish());
        }
        p.add_plane_stat("clock_rate", StatValue::U64(2100));
        let built = p.finish();
        let mut bytes = Vec::new();
        built.write_to(&mut bytes).unwrap();
        assert_eq!(built.encoded_len(), bytes.len());
        let plane = built.into_xplane();
        assert_eq!(plane.lines.len(), 3);
        assert_eq!(plane.lines[2].events[0].duration_ps, 5);
        assert_eq!(
            bytes,
            plane.encode_to_vec(),
            "same bytes as the whole message"
        );
    }

    /// A plane built while another has the output sets its lines aside in a file; once its
    /// turn comes it takes the output mid-plane: the lines set aside are copied in once and
    /// the later ones written there, and the output holds the plane entry with a padded
    /// length. A plane set aside to its end has the same padded length when written after, so
    /// the file's bytes do not depend on when the turn came.
    #[test]
    fn a_plane_set_aside_takes_the_output_when_its_turn_comes() {
        use super::super::spill::{OutputTurn, SpillPolicy};
        use crate::wire::PADDED_LEN;
        let dir = tempfile::tempdir().unwrap();
        let plane_with = |policy: Option<SpillPolicy>, turn: Option<&OutputTurn>| {
            let mut p = PlaneBuilder::new(3, "/device:GPU:3");
            p.spill_lines(policy);
            for l in 0..6 {
                if l == 3 {
                    // The plane before it is written: its turn.
                    if let Some(t) = turn {
                        t.plane_written().unwrap();
                    }
                }
                let mut line = LineBuilder::new(l, format!("Stream {l}"), 0);
                let id = p.event_metadata_id("k");
                let mut st = StatBytes::new();
                for e in 0..100 {
                    st.clear();
                    p.put(&mut st, "correlation_id", StatValue::U64(e));
                    line.add_event(id, 10 * e as i64, 5, &st);
                }
                p.add_line(line.finish());
            }
            p.finish()
        };
        let want = plane_with(None, None).into_xplane().encode_to_vec();
        let entry = |bytes: &[u8]| {
            let mut e = vec![0x0a];
            e.extend(wire::padded_varint(bytes.len() as u64).unwrap());
            e.extend(bytes);
            e
        };
        // Its turn comes after the first three lines.
        let path = dir.path().join("out.pb");
        let output = std::fs::File::create(&path).unwrap();
        let turn = OutputTurn::of(&output, true).unwrap();
        let policy = SpillPolicy::past(dir.path(), 0).with_output(turn.clone());
        let built = plane_with(Some(policy.for_plane(1)), Some(&turn));
        assert!(built.is_written(), "the plane took the output");
        assert_eq!(std::fs::read(&path).unwrap(), entry(&want));
        // Its turn never comes while it is built: set aside to its end, then written whole.
        let output = std::fs::File::create(dir.path().join("other.pb")).unwrap();
        let policy =
            SpillPolicy::past(dir.path(), 0).with_output(OutputTurn::of(&output, true).unwrap());
        let built = plane_with(Some(policy.for_plane(1)), None);
        assert!(!built.is_written() && built.spilled_bytes() > 0);
        let mut bytes = Vec::new();
        built.write_entry(&mut bytes).unwrap();
        assert_eq!(bytes, entry(&want));
        assert_eq!(bytes[1 + PADDED_LEN..], want[..]);
        // Only the two outputs are left: the set-aside files were unlinked.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
