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
//!
//! `input` indexes an input, `heads` merges a plane's metadata and names each input's ids in
//! the output's, `events` merges a line's events; this module writes the output.

use std::fmt;
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::PathBuf;

use prost::Message;

use super::proto::XSpace;
use crate::wire::{self, xplane as fields, PADDED_LEN};

mod blocks;
mod copy;
mod encoded;
mod events;
mod heads;
mod inplace;
mod input;
mod splice;

use events::{MergedLine, PlaneMerge};
use heads::{merge_heads, PlanePart};
#[cfg(test)]
pub(crate) use inplace::Faults;
pub use inplace::{Assembly, NotAdded, StepIo, Unfinished};
use input::{shifts, Input};

/// Why a merge failed; the output is then not written (or not renamed into place).
#[derive(Debug)]
pub enum MergeError {
    Read {
        path: PathBuf,
        source: io::Error,
    },
    Malformed {
        path: PathBuf,
        what: String,
    },
    NoInput,
    /// Windows of two processes, or of two runs of one process id: never made one profile.
    Foreign {
        path: PathBuf,
        other: PathBuf,
    },
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
            MergeError::Foreign { path, other } => write!(
                f,
                "{} is a window of another process or run than {} (rocprof_xplane_window_pid and _run differ); windows of two processes are never merged into one profile",
                path.display(),
                other.display()
            ),
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
    /// Of `copied`, those copied within byte ranges of their files (`splice`), never read one
    /// by one.
    pub spliced: u64,
    /// roctx ranges an input showed open at its end, shown whole by a later one.
    pub open_ranges_left_out: u64,
}

/// Merges `inputs` (profiles of one process, any order: they are put in time order) into
/// `layout`'s file.
pub fn merge_files(
    inputs: &[PathBuf],
    layout: &super::OutputLayout,
) -> Result<(PathBuf, Merged), MergeError> {
    merge(inputs, layout, Check::Fields, &[])
}

/// As [`merge_files`], for files this process has just written itself (`WINDOW_MERGE` at
/// exit): an event copied as it is (a window on its run's ids and clock, `xplane::RunIds`) is
/// not checked field by field first (a large part of a copying merge's work, for bytes this
/// process wrote a moment ago). Bounds are still checked: damage could only make the output
/// unreadable, never the program fail. `warnings` are added to the profile's (what no input
/// says: a window that could not be written after the last one was).
pub fn merge_own_files(
    inputs: &[PathBuf],
    layout: &super::OutputLayout,
    warnings: &[String],
) -> Result<(PathBuf, Merged), MergeError> {
    merge(inputs, layout, Check::Bounds, warnings)
}

/// How the merge copies what it may copy.
#[derive(Debug, Clone, Copy)]
struct How {
    check: Check,
    splice: bool,
    /// The output's pages go to the writeback as large lines are copied
    /// (`OutputLayout::durable`).
    writeback: bool,
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
    warnings: &[String],
) -> Result<(PathBuf, Merged), MergeError> {
    let indexed = inputs
        .iter()
        .map(|p| Input::index(p, check))
        .collect::<Result<Vec<_>, _>>()?;
    merge_inputs(indexed, layout, check, warnings, true)
}

/// As [`merge_own_files`], every line merged event by event (no line spliced): what the
/// splice must give byte for byte.
#[cfg(test)]
pub(crate) fn merge_own_files_event_by_event(
    inputs: &[PathBuf],
    layout: &super::OutputLayout,
) -> Result<(PathBuf, Merged), MergeError> {
    let indexed = inputs
        .iter()
        .map(|p| Input::index(p, Check::Bounds))
        .collect::<Result<Vec<_>, _>>()?;
    merge_inputs(indexed, layout, Check::Bounds, &[], false)
}

/// A window of this process indexed as soon as it is written: from where its writer placed
/// its events ([`Indexed::written`], none read), or read back ([`Indexed::own`]). The merge at
/// exit then reads none of the earlier windows' events again, only the last window's, and
/// copies theirs as byte ranges of their files.
pub struct Indexed(Input);

/// The samples each line of a window held for the merge at exit keeps
/// ([`Indexed::thin_for_exit`]): where the merge looks for a place in a line of N events, it
/// reads at most about N / 256 from the sample before. The unit tests keep 2, so that their
/// windows are thinned.
pub const HELD_LINE_SAMPLES: usize = if cfg!(test) { 2 } else { 256 };

impl Indexed {
    /// Indexes a file this process has just written (checked as [`merge_own_files`] checks).
    /// The file is closed until the merge.
    pub fn own(path: &std::path::Path) -> Result<Indexed, MergeError> {
        let mut input = Input::index(path, Check::Bounds)?;
        input.file = None;
        Ok(Indexed(input))
    }

    /// Indexes a window this process has just written from where its writer placed its
    /// lines' events (`xplane::WrittenWindow`): only its planes' and lines' heads are read.
    /// A line the places do not match is read as [`Indexed::own`] reads it.
    pub fn written(window: &super::WrittenWindow) -> Result<Indexed, MergeError> {
        let mut input = Input::index_placed(&window.path, Check::Bounds, &window.places)?;
        input.file = None;
        Ok(Indexed(input))
    }

    /// Lets go of all but [`HELD_LINE_SAMPLES`] samples of each line's index: a window held
    /// for the merge at exit (where the filesystem cannot insert ranges) then costs a few
    /// kilobytes a line, not a sample every 64 events, however long the run.
    pub fn thin_for_exit(&mut self) {
        for line in self.0.planes.iter_mut().flat_map(|p| &mut p.lines) {
            line.events.thin_samples(HELD_LINE_SAMPLES);
        }
    }

    /// The samples its lines' indexes hold, in all.
    #[cfg(test)]
    pub(crate) fn samples(&self) -> usize {
        let lines = self.0.planes.iter().flat_map(|p| &p.lines);
        lines.map(|l| l.events.samples().count()).sum()
    }

    /// The file it indexes.
    pub fn path(&self) -> &std::path::Path {
        &self.0.path
    }
}

/// As [`merge_own_files`], for windows indexed as they were written ([`Indexed::own`]) and
/// files not indexed yet (the last window), in any order.
pub fn merge_own_indexed(
    indexed: Vec<Indexed>,
    files: &[PathBuf],
    layout: &super::OutputLayout,
    warnings: &[String],
) -> Result<(PathBuf, Merged), MergeError> {
    let mut inputs = indexed
        .into_iter()
        .map(|i| i.0.open(Check::Bounds))
        .collect::<Result<Vec<_>, _>>()?;
    for f in files {
        inputs.push(Input::index(f, Check::Bounds)?);
    }
    merge_inputs(inputs, layout, Check::Bounds, warnings, true)
}

/// Merges `indexed` into `layout`'s file; `splice`: lines whose pieces may be copied as they
/// are, as byte ranges (`splice`).
fn merge_inputs(
    mut indexed: Vec<Input>,
    layout: &super::OutputLayout,
    check: Check,
    warnings: &[String],
    splice: bool,
) -> Result<(PathBuf, Merged), MergeError> {
    if indexed.is_empty() {
        return Err(MergeError::NoInput);
    }
    refuse_foreign(&indexed)?;
    // Time order (the inputs' names need not sort), as `input::Order` says.
    let order = input::Order::of(indexed.iter().map(|i| &i.origin));
    indexed.sort_by_key(|i| i.origin.order_key(order));
    let mut merged = Merged {
        inputs: indexed.len(),
        ..Merged::default()
    };
    let path = super::file::write_with(layout, |w| {
        let how = How {
            check,
            splice,
            writeback: layout.durable,
        };
        write_merged(&indexed, w, how, warnings, &mut merged)
    })
    .map_err(MergeError::Write)?;
    Ok((path, merged))
}

/// Windows that name their process and run (`xplane::WindowIdentity`) must all name the same:
/// a window of another process that took the same run name, or of an earlier run of the same
/// process id, is refused rather than mixed in.
fn refuse_foreign<'a>(inputs: impl IntoIterator<Item = &'a Input>) -> Result<(), MergeError> {
    let mut named = inputs
        .into_iter()
        .filter_map(|i| Some((&i.path, i.identity?)));
    let Some((first_path, first)) = named.next() else {
        return Ok(());
    };
    match named.find(|(_, id)| *id != first) {
        Some((path, _)) => Err(MergeError::Foreign {
            path: path.clone(),
            other: first_path.clone(),
        }),
        None => Ok(()),
    }
}

/// A spliced line this long starts the output's writeback (`spill::start_writeback`).
const WRITEBACK_BYTES: u64 = 4 << 20;

/// What the merge hands its writer, in the output's order.
enum Out {
    /// A plane's entry begins: its key, a padded length filled in at its end, its head.
    PlaneStart(Vec<u8>),
    Line(MergedLine),
    /// The plane begun last is `len` bytes long.
    PlaneEnd(u64),
    Bytes(Vec<u8>),
}

impl Out {
    /// Writes it; `len_at` is where the length of the plane under way goes; `writeback`: a
    /// large spliced line's pages start to the disk.
    fn apply(
        self,
        w: &mut io::BufWriter<File>,
        len_at: &mut u64,
        writeback: bool,
    ) -> io::Result<()> {
        match self {
            Out::PlaneStart(head) => {
                let key_and_len = wire::padded_entry_head(fields::space::PLANES);
                w.write_all(&key_and_len[..key_and_len.len() - PADDED_LEN])?;
                *len_at = w.stream_position()?;
                w.write_all(&key_and_len[key_and_len.len() - PADDED_LEN..])?;
                w.write_all(&head)
            }
            Out::Line(line) => {
                line.write_entry(w)?;
                // A large spliced line went to the file in the kernel: its pages start to
                // the disk now, so the fsync at the end waits for the last ones only.
                if writeback && line.spliced_bytes() >= WRITEBACK_BYTES {
                    super::spill::start_writeback(w.get_ref());
                }
                Ok(())
            }
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
    how: How,
    warnings: &[String],
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
                    out.apply(&mut w, &mut len_at, how.writeback)?;
                }
                Ok(())
            });
        let writer = match writer {
            Ok(h) => h,
            Err(e) => {
                crate::log_debug!("the merge writes on the thread that merges: {e}");
                let (mut w, mut len_at) = (crate::store::sinks::lock(w), 0);
                return merge_to(inputs, how, warnings, merged, &mut |out| {
                    out.apply(&mut w, &mut len_at, how.writeback)
                });
            }
        };
        let merging = merge_to(inputs, how, warnings, merged, &mut |out| {
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

/// Merges `inputs` into what `out` writes, in order: each plane by name (in the order names
/// first appear), its lines by id (likewise), then the XSpace's other fields.
fn merge_to(
    inputs: &[Input],
    how: How,
    warnings: &[String],
    merged: &mut Merged,
    out: &mut dyn FnMut(Out) -> io::Result<()>,
) -> io::Result<()> {
    let shift = shifts(inputs);
    for name in plane_names(inputs) {
        let planes = plane_parts(inputs, name);
        let (head, ids) = merge_heads(&planes);
        let mut len = head.encoded_len() as u64;
        out(Out::PlaneStart(head.encode_to_vec()))?;
        let plane = PlaneMerge {
            inputs,
            planes,
            ids,
            shift: &shift,
            check: how.check,
            splice: how.splice,
        };
        for id in plane.line_ids() {
            let line = plane.line(id, merged)?;
            len += line.entry_len() as u64;
            out(Out::Line(line))?;
            merged.lines += 1;
        }
        out(Out::PlaneEnd(len))?;
        merged.planes += 1;
    }
    let mut rest = merge_rest(inputs);
    rest.warnings.extend(warnings.iter().cloned());
    out(Out::Bytes(rest.encode_to_vec()))
}

/// The planes named `name`, one part per input that has it, in the inputs' order.
fn plane_parts<'a>(inputs: &'a [Input], name: &str) -> Vec<PlanePart<'a>> {
    inputs
        .iter()
        .enumerate()
        .flat_map(|(input, i)| {
            i.planes
                .iter()
                .filter(move |p| p.head.name == name)
                .map(move |plane| PlanePart { input, plane })
        })
        .collect()
}

/// The inputs' plane names, in the order they first appear.
fn plane_names(inputs: &[Input]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for i in inputs {
        for p in &i.planes {
            if !names.contains(&p.head.name.as_str()) {
                names.push(&p.head.name);
            }
        }
    }
    names
}

/// The XSpace's fields but its planes: every input's host names, errors and warnings, each
/// once, in order.
fn merge_rest(inputs: &[Input]) -> XSpace {
    let mut rest = XSpace::default();
    for (k, i) in inputs.iter().enumerate() {
        add_rest(&mut rest, i, k + 1 == inputs.len());
    }
    rest
}

/// Adds input `i`'s host names, errors and warnings to `rest` (the inputs' before it), those
/// it has not yet; `last`: no window follows `i`.
fn add_rest(rest: &mut XSpace, i: &Input, last: bool) {
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
        // `open_at_end` part is left out): that window's warning is not the profile's.
        let obsolete = !last && e.contains(RANGES_OPEN_AT_CUT);
        // The last input's ranges open at its end go on in no window of this profile.
        let e = ranges_open_with_no_next(e).unwrap_or_else(|| e.clone());
        if !obsolete && !rest.warnings.contains(&e) {
            rest.warnings.push(e);
        }
    }
}

/// The words of the warning a capture window gives for the roctx ranges open at its cut
/// (`collect`), which the merge leaves out but for the last input's.
pub const RANGES_OPEN_AT_CUT: &str =
    "roctx ranges were still open at the end of this capture window";

/// What that warning adds for a window a later one follows.
pub const RANGES_GO_ON: &str = " (shown up to it; they go on in the next)";

/// That warning as a profile after which no window follows says it (the last input of a
/// merge, an attach session): `None` for any other warning.
pub fn ranges_open_with_no_next(warning: &str) -> Option<String> {
    let head = warning.strip_suffix(RANGES_GO_ON)?;
    head.contains(RANGES_OPEN_AT_CUT)
        .then(|| format!("{head} (shown up to it)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile no window follows (the last input of a merge, an attach session) says its
    /// ranges open at the end were shown up to it, never that they go on in the next window;
    /// any other warning is left as it is.
    #[test]
    fn ranges_open_at_the_end_of_the_last_window_go_on_in_no_next_one() {
        let window = format!("3 {RANGES_OPEN_AT_CUT}{RANGES_GO_ON}");
        let said = ranges_open_with_no_next(&window).unwrap();
        assert_eq!(said, format!("3 {RANGES_OPEN_AT_CUT} (shown up to it)"));
        assert!(!said.contains("next"));
        assert_eq!(ranges_open_with_no_next(&said), None);
        assert_eq!(
            ranges_open_with_no_next("2 roctx pops/stops had no matching push/start"),
            None
        );
    }
}

#[cfg(test)]
mod unknown_line_fields {
    use prost::Message;

    use crate::xplane::proto::{XEvent, XEventMetadata, XLine, XPlane, XSpace};

    /// Unknown fields of every fixed wire type (fixed64, fixed32) and of the others in an
    /// `XLine`, before its first event and between its events, as a newer writer may put
    /// them: every event of the line reaches the merged profile as it was, in time order
    /// beside the other input's, and the unknown fields are left out (the merged line is
    /// written anew). A field after the first event makes the line unfit to splice: its
    /// events are then read one by one, and a fixed-width value must be stepped over there.
    #[test]
    fn unknown_fixed_width_fields_of_a_line_are_stepped_over() {
        use prost::encoding::{encode_key, encode_varint, WireType};
        let unknown = |out: &mut Vec<u8>| {
            encode_key(20, WireType::SixtyFourBit, out);
            out.extend_from_slice(&0x0a0b_0c0d_0e0f_1011u64.to_le_bytes());
            encode_key(21, WireType::ThirtyTwoBit, out);
            out.extend_from_slice(&0x2204_0a08u32.to_le_bytes());
            encode_key(22, WireType::Varint, out);
            encode_varint(300, out);
            encode_key(23, WireType::LengthDelimited, out);
            encode_varint(2, out);
            out.extend_from_slice(&[0x22, 0x04]);
        };
        let event = |offset_ps: i64| XEvent {
            metadata_id: 1,
            data: Some(crate::xplane::proto::x_event::Data::OffsetPs(offset_ps)),
            duration_ps: 1000,
            ..XEvent::default()
        };
        // The line's head, then its events with unknown fields before and among them.
        let line_bytes = |offsets: &[i64], among: bool| {
            let head = XLine {
                id: 7,
                name: "line".into(),
                timestamp_ns: 1000,
                ..XLine::default()
            };
            let mut b = head.encode_to_vec();
            unknown(&mut b);
            for (i, &o) in offsets.iter().enumerate() {
                if among && i > 0 {
                    unknown(&mut b);
                }
                prost::encoding::message::encode(4, &event(o), &mut b);
            }
            if among {
                unknown(&mut b);
            }
            b
        };
        let space_bytes = |offsets: &[i64], among: bool| {
            let plane = XPlane {
                id: 1,
                name: "/device:GPU:0".into(),
                event_metadata: [(
                    1,
                    XEventMetadata {
                        id: 1,
                        name: "k".into(),
                        ..XEventMetadata::default()
                    },
                )]
                .into(),
                ..XPlane::default()
            };
            let mut p = plane.encode_to_vec();
            let line = line_bytes(offsets, among);
            encode_key(3, WireType::LengthDelimited, &mut p);
            encode_varint(line.len() as u64, &mut p);
            p.extend_from_slice(&line);
            let mut s = Vec::new();
            encode_key(1, WireType::LengthDelimited, &mut s);
            encode_varint(p.len() as u64, &mut s);
            s.extend_from_slice(&p);
            s
        };
        for among in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let strange = dir.path().join("a.xplane.pb");
            let plain = dir.path().join("b.xplane.pb");
            std::fs::write(&strange, space_bytes(&[0, 5000, 20_000], among)).unwrap();
            std::fs::write(&plain, space_bytes(&[10_000, 30_000], false)).unwrap();
            // The files decode as written: the unknown fields are well formed.
            let read = crate::xplane::read_xspace(&strange).unwrap();
            assert_eq!(read.planes[0].lines[0].events.len(), 3);
            let layout = crate::xplane::OutputLayout {
                log_dir: dir.path().into(),
                run_name: "one".into(),
                host: "h".into(),
                durable: false,
            };
            let (path, m) = super::merge_files(&[strange.clone(), plain.clone()], &layout).unwrap();
            assert_eq!(m.events, 5, "among: {among}");
            let merged: XSpace = crate::xplane::read_xspace(&path).unwrap();
            let lines = &merged.planes[0].lines;
            assert_eq!(lines.len(), 1, "among: {among}");
            let offsets: Vec<i64> = lines[0]
                .events
                .iter()
                .map(|e| match e.data {
                    Some(crate::xplane::proto::x_event::Data::OffsetPs(o)) => o,
                    _ => -1,
                })
                .collect();
            assert_eq!(offsets, [0, 5000, 10_000, 20_000, 30_000], "among: {among}");
            assert!(lines[0].events.iter().all(|e| e.duration_ps == 1000));
            assert_eq!((lines[0].id, lines[0].timestamp_ns), (7, 1000));
        }
    }
}
