//! The run's profile assembled in place while the program runs: each window, once written and
//! indexed, is put into one growing file P (under the hidden name our files are written
//! under), its line pieces copied into P in the kernel (`copy_file_range`), and its file is
//! then no longer needed. At exit only the last window is put in, and P takes its name: the
//! exit copies one window, not the run.
//!
//! P is an `XSpace` after every window. Each region that grows ends on a block boundary of
//! P's filesystem, filled up by a padding field (`blocks::padding`): a plane's entry head and
//! metadata; each line's entry head and fields; each line's events. A region grows by whole
//! blocks inserted where it ends (`blocks::insert_range`: no byte after it is copied), and
//! lengths are padded varints patched in place. The `XSpace`'s other fields (host names,
//! warnings, errors) stay at the file's end and are written again as they change.
//!
//! P holds what [`super::merge_own_files`] writes for the same windows, event for event: the
//! plane heads and line heads merged as `heads` and `events` merge them (kept merged from
//! window to window, so a put merges the newest window's heads alone), the events in the
//! same order (start, the longer first, then the window's order). A window's piece of a line
//! goes after P's events of the line but for its events that sort before P's last one (a
//! roctx range open across the cut, shown whole by the later window; a call handed on across
//! it): each is put between the two events it falls between, by inserting blocks at the
//! block that holds the place and writing that block's bytes around it, so the cost is a
//! block however far back it goes. The ranges a window shows open at its end are left out of
//! P unless it is the last (the window where they end shows them whole).
//!
//! Where a window cannot be put in place (ids or clocks that are not the run's, too many
//! events out of order, an error writing P), the step is undone (the blocks inserted taken
//! out again, the bytes overwritten written back), P stays a valid profile of the windows
//! before it, and the caller merges P and the windows after it at exit as before
//! (`merge_own_indexed`: P is on the run's ids and clock).

use std::cmp::Reverse;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use prost::Message;

use super::blocks::{self, MIN_PAD};
use super::copy;
use super::encoded::{event_times, LINE_EVENTS};
use super::heads::{merge_heads, HeadMerge};
use super::input::{Input, Origin, PlaneIn};
use super::splice::Key;
use super::{add_rest, plane_parts, refuse_foreign, Check, Indexed, MergeError, Merged};
use crate::fastmap::HashMap;
use crate::wire::{xplane as fields, FileFields, RawField, PADDED_LEN};
use crate::xplane::builder::LineBuilder;
use crate::xplane::proto::{XPlane, XSpace};

/// Bytes an entry's region begins with: its key (one byte: `XSpace.planes`, `XPlane.lines`)
/// and its padded length.
const ENTRY_HEAD: u64 = 1 + PADDED_LEN as u64;

/// Room a plane's head is given beyond what it holds when it grows (a quarter more, up to
/// 1 MiB): its metadata grow with the windows, and each growth makes the filesystem write out
/// what follows first.
const PLANE_SLACK: u64 = 1 << 20;

/// Events of one window's line that sort before P's last event: more than this, and the
/// window is merged at exit instead (each costs a block).
const MAX_EARLY: usize = 4096;

/// Why a window was not put into P.
#[derive(Debug)]
pub enum NotAdded {
    /// P is as it was and valid: the window is to be merged at exit with P.
    Refused(String),
    /// A step failed and was undone: P is as it was and valid.
    Undone(io::Error),
    /// A step failed and could not be undone: P is no profile.
    Broken { step: io::Error, undo: io::Error },
}

impl std::fmt::Display for NotAdded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotAdded::Refused(why) => write!(f, "{why}"),
            NotAdded::Undone(e) => write!(f, "{e} (undone)"),
            NotAdded::Broken { step, undo } => {
                write!(f, "{step}, and undoing it failed too: {undo}")
            }
        }
    }
}

/// A profile [`Assembly::finish`] could not give its name: where it is, the windows it holds
/// (whole, but for the ranges the newest shows open at its end), and why.
#[derive(Debug)]
pub struct Unfinished {
    /// Where it can be opened while `file` is held.
    pub path: PathBuf,
    pub file: Arc<File>,
    pub held: Vec<PathBuf>,
    pub why: NotAdded,
}

/// Failures injected by tests: the filesystem refuses INSERT_RANGE; the n-th change of P
/// in a step fails.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Faults {
    pub(crate) no_insert: bool,
    pub(crate) fail_at: Option<u32>,
}

/// One change of P, undone in reverse order.
enum Undo {
    /// Blocks inserted at `at` (at the file's end: the file was lengthened).
    Gap { at: u64, len: u64, at_end: bool },
    /// Bytes that were at `at`.
    Bytes { at: u64, old: Vec<u8> },
    /// The file was cut at `at`; `old` followed.
    Tail { at: u64, old: Vec<u8> },
}

#[derive(Default)]
struct Journal {
    steps: Vec<Undo>,
    changes: u32,
    io: StepIo,
}

/// The bytes one step moved in P. A window's step moves about its own bytes and a few
/// blocks per line it has a piece of, whatever the windows before it hold: it reads none of
/// their events but the few around an early event's place (`put_early`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepIo {
    /// Written into P from memory: heads, the blocks a piece begins and ends in, an early
    /// event's block, the `XSpace`'s other fields.
    pub written: u64,
    /// Copied into P from the window's file in the kernel (`copy_file_range`).
    pub copied: u64,
    /// Of P, read back: the block an early event goes into and the events read to find its
    /// place.
    pub read_back: u64,
    /// Room made in P: blocks inserted (`FALLOC_FL_INSERT_RANGE`) or added at its end.
    pub inserted: u64,
}

impl std::fmt::Display for StepIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kib = |b: u64| b as f64 / 1024.0;
        write!(
            f,
            "{:.0} KiB written, {:.0} KiB copied in the kernel, {:.0} KiB of room made, {:.0} KiB read back",
            kib(self.written),
            kib(self.copied),
            kib(self.inserted),
            kib(self.read_back)
        )
    }
}

impl StepIo {
    fn add(&mut self, o: StepIo) {
        self.written += o.written;
        self.copied += o.copied;
        self.read_back += o.read_back;
        self.inserted += o.inserted;
    }
}

/// An event of a window that sorts before P's last of its line: its key and entry.
struct Early {
    key: Key,
    at: u64,
    end: u64,
}

/// A plane of P: its head region's bytes, then its lines'.
#[derive(Debug, Clone)]
struct PlaneAt {
    name: String,
    head: u64,
    /// What its head region holds now (its first bytes; zeros follow up to `head`): the
    /// undo of its next rewrite, kept here because a range inserted before it drops it from
    /// the page cache (ext4), and reading it back would wait for the disk.
    head_bytes: Vec<u8>,
    lines: Vec<LineAt>,
}

/// A line of P: its head region (entry head, fields, padding), then its body (events, then
/// padding to the body's end), both whole blocks.
#[derive(Debug, Clone)]
struct LineAt {
    id: i64,
    head: u64,
    /// What its head region holds now, as `PlaneAt::head_bytes`.
    head_bytes: Vec<u8>,
    body: u64,
    /// The events' bytes in the body (padding between them included).
    events: u64,
    /// The events' bytes in the body's block where they end (`events % block` of them): an
    /// append writes that block whole from here, as `PlaneAt::head_bytes` for the same
    /// reason (a write of part of a block that is not in the page cache reads it first).
    tail: Vec<u8>,
    count: u64,
    /// Its last event's key.
    last: Option<Key>,
    samples: Samples,
    max_end_ps: Option<i64>,
}

impl PlaneAt {
    fn len(&self) -> u64 {
        self.head + self.lines.iter().map(|l| l.head + l.body).sum::<u64>()
    }
}

/// Which events of the newest window's line pieces go into P.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Take {
    /// All but those open at the window's end (`drop_open`), or all.
    Window { drop_open: bool },
    /// Only those open at its end: the window turned out to be the last.
    OpenOnly,
}

/// What the newest window adds to one plane of P.
struct PlanePlan {
    name: String,
    /// The plane's merged head, encoded.
    head: Vec<u8>,
    lines: Vec<LinePlan>,
}

struct LinePlan {
    id: i64,
    name: String,
    display_name: Option<String>,
    timestamp_ns: i64,
    /// The newest window's piece: its plane's and line's places in that input.
    piece: Option<(usize, usize)>,
}

/// What the windows in P make of its planes' and lines' heads and the `XSpace`'s other
/// fields, kept from window to window: a window put in is merged into them alone
/// ([`Heads::with`]), not every window again. They are what [`super::merge_own_files`] makes
/// of the same windows.
#[derive(Clone, Default)]
struct Heads {
    /// In the order their names first appear in the windows (`plane_names`).
    planes: Vec<PlaneHeads>,
    clocks: Clocks,
    /// The `XSpace`'s other fields of the windows before the newest (`add_rest`).
    rest_before_newest: XSpace,
}

#[derive(Clone)]
struct PlaneHeads {
    name: String,
    merged: MergedHead,
    /// In the order their ids first appear in the windows (`events::PlaneMerge::line_ids`).
    lines: Vec<LineHeads>,
    /// Where each line's id is in `lines`.
    line_at: HashMap<i64, usize>,
}

/// A plane's head merged from its windows'.
#[derive(Clone)]
enum MergedHead {
    /// Each window's plane added as it comes (`HeadMerge::add`).
    Added(HeadMerge),
    /// Merged from every window's plane at each put (`merge_heads`): a window's plane refers
    /// to a stat it does not name where the merge reads stats by name, which only the merge
    /// of every window reads as the merge at exit does (`HeadMerge::adds_alone`).
    Whole(XPlane),
}

/// A line's head fields merged from its windows' pieces.
#[derive(Clone)]
struct LineHeads {
    id: i64,
    /// The pieces' names, each once, in the order first met (`merged_line_name` makes of
    /// them what it makes of every piece's).
    names: Vec<String>,
    /// The first piece's that has one.
    display_name: Option<String>,
    /// Every piece's: pieces on other clocks are not put in place.
    timestamp_ns: i64,
    /// The windows P held when a piece of the line was last put in (a window holding the
    /// line twice is not put in place).
    met_at: usize,
}

/// The windows' origins, each clock's, to tell whether they are all on one (`input::shifts`
/// all zero) from the newest window's alone.
#[derive(Clone, Copy, Default)]
struct Clocks {
    job: Clock,
    boot: Clock,
    wall: Clock,
}

/// One clock's origins of the windows: whether every window has one, and whether those
/// that have one have the same.
#[derive(Clone, Copy)]
struct Clock {
    every: bool,
    first: Option<u64>,
    one: bool,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock {
            every: true,
            first: None,
            one: true,
        }
    }
}

impl Clock {
    fn add(&mut self, origin: Option<u64>) {
        self.every &= origin.is_some();
        if let Some(o) = origin {
            self.one &= *self.first.get_or_insert(o) == o;
        }
    }
}

impl Clocks {
    fn add(&mut self, origin: &Origin) {
        self.job.add(origin.job);
        self.boot.add(origin.boot);
        self.wall.add(origin.wall);
    }

    /// No window's times move (`input::shifts`): on the job's clock where every window has
    /// it, else the boot clock's where every window has it, else the wall clock's, every
    /// window that has an origin has the same (one without moves by none).
    fn one_origin(&self) -> bool {
        if self.job.every {
            self.job.one
        } else if self.boot.every {
            self.boot.one
        } else {
            self.wall.one
        }
    }
}

impl Heads {
    /// The heads with the newest of `inputs` (the windows in P and the one being put in)
    /// merged in, or why it cannot be put in place.
    fn with(&self, inputs: &[Input]) -> Result<Heads, String> {
        let newest = inputs.last().expect("the window being put in");
        let mut heads = self.clone();
        // The window that was the newest is followed by this one.
        if let [.., before, _] = inputs {
            add_rest(&mut heads.rest_before_newest, before, false);
        }
        heads.clocks.add(&newest.origin);
        if !heads.clocks.one_origin() {
            return Err("a window on another clock than the run's".into());
        }
        for (k, plane) in newest.planes.iter().enumerate() {
            let name = plane.head.name.as_str();
            if newest.planes[..k].iter().any(|p| p.head.name == name) {
                return Err(format!("plane {name} twice in one window"));
            }
            let p = match heads.planes.iter().position(|h| h.name == name) {
                Some(p) => p,
                None => {
                    heads.planes.push(PlaneHeads {
                        name: name.to_string(),
                        merged: MergedHead::Added(HeadMerge::new(&plane.head)),
                        lines: Vec::new(),
                        line_at: HashMap::default(),
                    });
                    heads.planes.len() - 1
                }
            };
            heads.planes[p].add(inputs, plane)?;
        }
        Ok(heads)
    }
}

impl PlaneHeads {
    fn head(&self) -> &XPlane {
        match &self.merged {
            MergedHead::Added(m) => m.head(),
            MergedHead::Whole(head) => head,
        }
    }

    /// Merges `plane`, the newest of `inputs`' plane of this name, in.
    fn add(&mut self, inputs: &[Input], plane: &PlaneIn) -> Result<(), String> {
        let name = &self.name;
        let kept = match &mut self.merged {
            MergedHead::Added(m) if m.adds_alone(plane) => m.add(plane).all_kept,
            _ => {
                // The windows before the newest were let go once in (`Input::forget`): the
                // window is merged at exit instead.
                if inputs.iter().any(|i| i.forgotten) {
                    return Err(format!(
                        "plane {name}: its heads are merged from every window, and the windows before are no longer held"
                    ));
                }
                let (head, ids) = merge_heads(&plane_parts(inputs, name));
                self.merged = MergedHead::Whole(head);
                ids.iter().all(|i| i.all_kept)
            }
        };
        if !kept {
            return Err(format!(
                "plane {name}: a window on other ids than the run's"
            ));
        }
        let window = inputs.len();
        for l in &plane.lines {
            let id = l.head.id;
            let at = *self.line_at.entry(id).or_insert_with(|| {
                self.lines.push(LineHeads {
                    id,
                    names: Vec::new(),
                    display_name: None,
                    timestamp_ns: l.head.timestamp_ns,
                    met_at: 0,
                });
                self.lines.len() - 1
            });
            let line = &mut self.lines[at];
            if line.met_at == window {
                return Err(format!("line {id} of plane {name} twice in one window"));
            }
            line.met_at = window;
            if l.head.timestamp_ns != line.timestamp_ns || !l.events.spliceable {
                return Err(format!(
                    "line {id} of plane {name}: its windows' events are not on one clock or not in order"
                ));
            }
            if !line.names.contains(&l.head.name) {
                line.names.push(l.head.name.clone());
            }
            if line.display_name.is_none() && !l.head.display_name.is_empty() {
                line.display_name = Some(l.head.display_name.clone());
            }
        }
        Ok(())
    }
}

/// The profile P being assembled (see the module's documentation).
pub struct Assembly {
    file: Arc<File>,
    /// The name it takes before its own (unnamed until then where the filesystem allows).
    tmp: PathBuf,
    named: bool,
    block: u64,
    /// P's length.
    len: u64,
    /// The windows put into P, in time order (files closed).
    inputs: Vec<Input>,
    /// What they make of P's heads.
    heads: Box<Heads>,
    planes: Vec<PlaneAt>,
    /// The `XSpace`'s other fields at P's end, as written (`write_rest`).
    rest: Vec<u8>,
    merged: Merged,
    /// The newest window showed ranges open at its end, left out of P.
    open_left_out: bool,
    /// P is fsynced before it takes its name (`OutputLayout::durable`).
    durable: bool,
    faults: Faults,
    /// What the newest step moved in P.
    last_step: StepIo,
}

impl Assembly {
    /// P, begun empty in `layout`'s run directory; `None` where its filesystem cannot insert
    /// ranges (the windows are then merged at exit).
    pub fn start(layout: &super::super::OutputLayout) -> Result<Option<Assembly>, MergeError> {
        Assembly::start_with(layout, Faults::default())
    }

    pub(crate) fn start_with(
        layout: &super::super::OutputLayout,
        faults: Faults,
    ) -> Result<Option<Assembly>, MergeError> {
        let hidden = super::super::file::create_hidden(layout).map_err(MergeError::Write)?;
        let (file, path, named) = (hidden.file, hidden.tmp, hidden.named);
        let gone = |path: &Path| {
            if named {
                let _ = std::fs::remove_file(path);
            }
        };
        let read = |source| MergeError::Read {
            path: path.clone(),
            source,
        };
        let probe = blocks::block_size(&file).and_then(|block| {
            let inserts = !faults.no_insert && blocks::inserts_ranges(&file, block)?;
            Ok(inserts.then_some(block))
        });
        let block = match probe {
            Ok(Some(block)) => block,
            Ok(None) => {
                gone(&path);
                return Ok(None);
            }
            Err(e) if blocks::unsupported(&e) || e.kind() == io::ErrorKind::Unsupported => {
                gone(&path);
                return Ok(None);
            }
            Err(e) => {
                gone(&path);
                return Err(read(e));
            }
        };
        Ok(Some(Assembly {
            file: Arc::new(file),
            tmp: path,
            named,
            block,
            len: 0,
            inputs: Vec::new(),
            heads: Box::default(),
            planes: Vec::new(),
            rest: Vec::new(),
            merged: Merged::default(),
            open_left_out: false,
            durable: layout.durable,
            faults,
            last_step: StepIo::default(),
        }))
    }

    /// Makes later steps fail as `faults` says.
    #[cfg(test)]
    pub(crate) fn set_faults(&mut self, faults: Faults) {
        self.faults = faults;
    }

    /// A path P can be opened at while it is open here (`/proc/self/fd/<n>` while it has no
    /// name).
    pub fn path(&self) -> PathBuf {
        use std::os::fd::AsRawFd;
        if self.named {
            self.tmp.clone()
        } else {
            PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()))
        }
    }

    /// P itself: while it is held, [`Assembly::path`] opens it.
    pub fn file(&self) -> Arc<File> {
        self.file.clone()
    }

    /// The files of the windows P holds.
    pub fn window_paths(&self) -> impl Iterator<Item = &Path> {
        self.inputs.iter().map(|i| i.path.as_path())
    }

    /// How many windows P holds.
    pub fn windows(&self) -> usize {
        self.inputs.len()
    }

    /// The block size of P's filesystem, which its regions are rounded to.
    #[cfg(test)]
    pub(crate) fn block(&self) -> u64 {
        self.block
    }

    /// The bytes the newest window's step moved in P.
    pub fn last_step(&self) -> StepIo {
        self.last_step
    }

    /// The file of the newest window P holds (kept until the next is put in: should it turn
    /// out to be the last, its ranges open at its end go into P at [`Assembly::finish`]).
    pub fn newest_window(&self) -> Option<&Path> {
        self.inputs.last().map(|i| i.path.as_path())
    }

    /// Puts window `w` (the next in time) into P, its ranges open at its end left out. On
    /// `Err`, P is as it was (but for [`NotAdded::Broken`]).
    pub fn add(&mut self, w: Indexed) -> Result<(), NotAdded> {
        let input =
            w.0.open(Check::Bounds)
                .map_err(|e| NotAdded::Refused(e.to_string()))?;
        self.put(input, Take::Window { drop_open: true })
    }

    fn put(&mut self, input: Input, take: Take) -> Result<(), NotAdded> {
        if let Some(prev) = self.inputs.last() {
            let order = super::input::Order::of([&prev.origin, &input.origin].into_iter());
            if input.origin.order_key(order) < prev.origin.order_key(order) {
                return Err(NotAdded::Refused(format!(
                    "{} is earlier than the window before it",
                    input.path.display()
                )));
            }
        }
        // The windows in P name one process and run: the window must name the first's.
        let named = self.inputs.iter().find(|i| i.identity.is_some());
        refuse_foreign(named.into_iter().chain([&input]))
            .map_err(|e| NotAdded::Refused(e.to_string()))?;
        self.inputs.push(input);
        let heads = match self.heads.with(&self.inputs) {
            Ok(heads) => heads,
            Err(why) => {
                self.inputs.pop();
                return Err(NotAdded::Refused(why));
            }
        };
        let was = std::mem::replace(&mut *self.heads, heads);
        if let Err(e) = self.put_newest(take) {
            *self.heads = was;
            self.inputs.pop();
            return Err(e);
        }
        // The window before is in for good: only its place in P's history is needed now.
        let n = self.inputs.len();
        if n >= 2 {
            self.inputs[n - 2].forget();
        }
        if let Some(newest) = self.inputs.last_mut() {
            newest.file = None;
        }
        Ok(())
    }

    /// Puts what `take` names of the newest input (open, its heads merged into `heads`) into
    /// P.
    fn put_newest(&mut self, take: Take) -> Result<(), NotAdded> {
        let plan = self.plan();
        self.apply_undoably(&plan, take)
    }

    /// The newest input's part in every plane of P.
    fn plan(&self) -> Vec<PlanePlan> {
        let newest = self.inputs.last().expect("the window being put in");
        let mut plans = Vec::with_capacity(self.heads.planes.len());
        for ph in &self.heads.planes {
            // The newest window's plane of this name and the places of its lines (each
            // once: `Heads::with`).
            let k = newest.planes.iter().position(|p| p.head.name == ph.name);
            let mut at: HashMap<i64, usize> = HashMap::default();
            if let Some(k) = k {
                for (j, l) in newest.planes[k].lines.iter().enumerate() {
                    at.entry(l.head.id).or_insert(j);
                }
            }
            let lines = ph
                .lines
                .iter()
                .map(|lh| {
                    let names: Vec<&str> = lh.names.iter().map(String::as_str).collect();
                    LinePlan {
                        id: lh.id,
                        name: crate::xplane::space::merged_line_name(&names),
                        display_name: lh.display_name.clone(),
                        timestamp_ns: lh.timestamp_ns,
                        piece: k.zip(at.get(&lh.id).copied()),
                    }
                })
                .collect();
            plans.push(PlanePlan {
                name: ph.name.clone(),
                head: ph.head().encode_to_vec(),
                lines,
            });
        }
        plans
    }

    /// Applies `plan`; on failure, undoes every change it made.
    fn apply_undoably(&mut self, plan: &[PlanePlan], take: Take) -> Result<(), NotAdded> {
        let before = (
            self.planes.clone(),
            self.rest.clone(),
            self.merged.clone(),
            self.len,
        );
        let mut j = Journal::default();
        let applied = self.apply(plan, take, &mut j);
        let Err(step) = applied else {
            // A durable profile's pages start to the disk now (`OutputLayout::durable`): the
            // fsync at exit waits for the last ones only.
            if self.durable {
                super::super::spill::start_writeback(&self.file);
            }
            self.last_step = j.io;
            return Ok(());
        };
        let undone = self.undo(j);
        (self.planes, self.rest, self.merged, self.len) = before;
        match undone {
            Ok(()) => Err(NotAdded::Undone(step)),
            Err(undo) => Err(NotAdded::Broken { step, undo }),
        }
    }

    fn apply(&mut self, plan: &[PlanePlan], take: Take, j: &mut Journal) -> io::Result<()> {
        let newest = self.inputs.len() - 1;
        let file = self.inputs[newest].file();
        let mut events = 0u64;
        let mut left_out = 0u64;
        // Room is made from P's start on: inserting blocks makes the filesystem write out what
        // follows the place first (ext4), and what this window copies lies before every later
        // place, so it is not written out within the step.
        for pp in plan {
            let p = match self.planes.iter().position(|p| p.name == pp.name) {
                Some(p) => p,
                None => self.new_plane(j, &pp.name)?,
            };
            let head = &pp.head;
            let at = self.plane_at(p);
            let slack = (head.len() as u64 / 4).min(PLANE_SLACK);
            let size = self.grow(j, at, self.planes[p].head, head.len(), slack)?;
            self.planes[p].head = size;
            for lp in &pp.lines {
                let l = match self.planes[p].lines.iter().position(|l| l.id == lp.id) {
                    Some(l) => l,
                    None => self.new_line(j, p, lp.id)?,
                };
                let piece = lp
                    .piece
                    .map(|(k, line)| self.inputs[newest].planes[k].lines[line].events.clone());
                let end_ps = piece
                    .as_ref()
                    .and_then(|idx| idx.max_end_ps(take == Take::Window { drop_open: true }));
                let line = &mut self.planes[p].lines[l];
                if let Some(e) = end_ps {
                    line.max_end_ps = Some(line.max_end_ps.map_or(e, |m| m.max(e)));
                }
                let head = line_head(lp, line.max_end_ps);
                let at = self.line_at(p, l);
                let size = self.grow(j, at, self.planes[p].lines[l].head, head.len(), 0)?;
                self.planes[p].lines[l].head = size;
                if let Some(idx) = piece {
                    let (put, out) = self.put_piece(j, p, l, &file, &idx, take)?;
                    events += put;
                    left_out += out;
                }
                let (at, line) = (self.line_at(p, l), &self.planes[p].lines[l]);
                let (size, body) = (line.head, line.body);
                let key = fields::plane::LINES.key_byte();
                let was = std::mem::take(&mut self.planes[p].lines[l].head_bytes);
                let region =
                    self.write_region(j, at, size, key, |h| h + body - ENTRY_HEAD, &head, was)?;
                self.planes[p].lines[l].head_bytes = region;
            }
            let (at, plane) = (self.plane_at(p), &self.planes[p]);
            let (size, lines) = (plane.head, plane.len() - plane.head);
            let key = fields::space::PLANES.key_byte();
            let was = std::mem::take(&mut self.planes[p].head_bytes);
            let region =
                self.write_region(j, at, size, key, |h| h + lines - ENTRY_HEAD, head, was)?;
            self.planes[p].head_bytes = region;
        }
        self.write_rest(j, None)?;
        self.merged.events += events;
        self.merged.copied += events;
        self.merged.spliced += events;
        match take {
            Take::Window { .. } => {
                self.merged.open_ranges_left_out += left_out;
                self.open_left_out = left_out > 0;
            }
            Take::OpenOnly => {
                self.merged.open_ranges_left_out -= events;
                self.open_left_out = false;
            }
        }
        Ok(())
    }

    /// Where plane `p` begins in P.
    fn plane_at(&self, p: usize) -> u64 {
        self.planes[..p].iter().map(PlaneAt::len).sum()
    }

    /// Where line `l` of plane `p` begins.
    fn line_at(&self, p: usize, l: usize) -> u64 {
        let plane = &self.planes[p];
        self.plane_at(p)
            + plane.head
            + plane.lines[..l]
                .iter()
                .map(|l| l.head + l.body)
                .sum::<u64>()
    }

    fn planes_end(&self) -> u64 {
        self.planes.iter().map(PlaneAt::len).sum()
    }

    fn round_up(&self, n: u64) -> u64 {
        n.div_ceil(self.block) * self.block
    }

    /// One change of P is about to be made (a test may make it fail).
    fn change(&self, j: &mut Journal) -> io::Result<()> {
        j.changes += 1;
        if self.faults.fail_at == Some(j.changes) {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        Ok(())
    }

    /// `len` bytes of room at `at` (a block boundary), what follows moved up.
    fn gap(&mut self, j: &mut Journal, at: u64, len: u64) -> io::Result<()> {
        self.change(j)?;
        let at_end = at >= self.len;
        if at_end {
            self.file.set_len(at + len)?;
            self.len = at + len;
        } else {
            blocks::insert_range(&self.file, at, len)?;
            self.len += len;
        }
        j.steps.push(Undo::Gap { at, len, at_end });
        j.io.inserted += len;
        Ok(())
    }

    /// Writes `bytes` at `at`, into room just made (nothing to keep for the undo: the room's
    /// own undo takes it away).
    fn write(&mut self, j: &mut Journal, at: u64, bytes: &[u8]) -> io::Result<()> {
        self.change(j)?;
        self.file.write_all_at(bytes, at)?;
        j.io.written += bytes.len() as u64;
        self.len = self.len.max(at + bytes.len() as u64);
        Ok(())
    }

    fn undo(&mut self, j: Journal) -> io::Result<()> {
        for step in j.steps.into_iter().rev() {
            match step {
                Undo::Gap { at, len, at_end } => {
                    if at_end {
                        self.file.set_len(at)?;
                    } else {
                        blocks::collapse_range(&self.file, at, len)?;
                    }
                }
                Undo::Bytes { at, old } => self.file.write_all_at(&old, at)?,
                Undo::Tail { at, old } => {
                    self.file.set_len(at)?;
                    self.file.write_all_at(&old, at)?;
                }
            }
        }
        Ok(())
    }

    /// A plane at the planes' end: one block of head, written by `write_plane_head`.
    fn new_plane(&mut self, j: &mut Journal, name: &str) -> io::Result<usize> {
        let at = self.planes_end();
        self.gap(j, at, self.block)?;
        self.planes.push(PlaneAt {
            name: name.to_string(),
            head: self.block,
            head_bytes: Vec::new(),
            lines: Vec::new(),
        });
        Ok(self.planes.len() - 1)
    }

    /// A line at its plane's end: a block of head (written by `write_line_head`) and an
    /// empty body.
    fn new_line(&mut self, j: &mut Journal, p: usize, id: i64) -> io::Result<usize> {
        let at = self.plane_at(p) + self.planes[p].len();
        let b = self.block;
        self.gap(j, at, 2 * b)?;
        self.write(j, at + b, &blocks::padding(b)?)?;
        self.planes[p].lines.push(LineAt {
            id,
            head: b,
            head_bytes: Vec::new(),
            body: b,
            events: 0,
            tail: Vec::new(),
            count: 0,
            last: None,
            samples: Samples::default(),
            max_end_ps: None,
        });
        Ok(self.planes[p].lines.len() - 1)
    }

    /// The size of the region of `size` bytes at `at` once it holds `body` bytes (and
    /// `slack` more, when it must grow): grown by blocks inserted at its end.
    fn grow(
        &mut self,
        j: &mut Journal,
        at: u64,
        size: u64,
        body: usize,
        slack: u64,
    ) -> io::Result<u64> {
        let fits = ENTRY_HEAD + body as u64 + MIN_PAD;
        if fits <= size {
            return Ok(size);
        }
        let need = self.round_up(fits + slack);
        self.gap(j, at + size, need - size)?;
        Ok(need)
    }

    /// Writes the region of `size` bytes at `at` (grown to hold it by [`Assembly::grow`]):
    /// `key`, the padded length `len_after_head` gives for its size, `body`, padding. `was`:
    /// what the region held (zeros follow it: room made since), kept for the undo. Returns
    /// what it holds now.
    #[allow(clippy::too_many_arguments)]
    fn write_region(
        &mut self,
        j: &mut Journal,
        at: u64,
        size: u64,
        key: u8,
        len_after_head: impl Fn(u64) -> u64,
        body: &[u8],
        mut was: Vec<u8>,
    ) -> io::Result<Vec<u8>> {
        let mut region = Vec::with_capacity(size as usize);
        region.push(key);
        region.extend_from_slice(&crate::wire::padded_varint(len_after_head(size))?);
        region.extend_from_slice(body);
        let pad = size.checked_sub(ENTRY_HEAD + body.len() as u64);
        let pad = pad.ok_or_else(|| io::Error::other("a region outgrew its room"))?;
        region.extend_from_slice(&blocks::padding(pad)?);
        was.resize(region.len(), 0);
        self.debug_check_holds(at, &was);
        self.change(j)?;
        j.steps.push(Undo::Bytes { at, old: was });
        self.file.write_all_at(&region, at)?;
        j.io.written += region.len() as u64;
        self.len = self.len.max(at + size);
        Ok(region)
    }

    /// In test builds: P holds `bytes` at `at` (what the caller knows P holds, not read back
    /// in release builds).
    fn debug_check_holds(&self, at: u64, bytes: &[u8]) {
        if cfg!(debug_assertions) {
            let mut got = vec![0u8; bytes.len()];
            let read = self.file.read_exact_at(&mut got, at);
            assert!(
                read.is_ok() && got == bytes,
                "P does not hold at {at} what the assembly noted"
            );
        }
    }

    /// The `XSpace`'s other fields at P's end (`last`: no window follows the newest, and
    /// the warnings to add).
    fn write_rest(&mut self, j: &mut Journal, last: Option<&[String]>) -> io::Result<()> {
        let mut rest = self.heads.rest_before_newest.clone();
        if let Some(newest) = self.inputs.last() {
            add_rest(&mut rest, newest, last.is_some());
        }
        if let Some(warnings) = last {
            rest.warnings.extend(warnings.iter().cloned());
        }
        let bytes = rest.encode_to_vec();
        let at = self.planes_end();
        self.change(j)?;
        let old = std::mem::replace(&mut self.rest, bytes);
        self.debug_check_holds(at, &old);
        debug_assert_eq!(at + old.len() as u64, self.len);
        j.steps.push(Undo::Tail { at, old });
        self.file.set_len(at)?;
        self.file.write_all_at(&self.rest, at)?;
        j.io.written += self.rest.len() as u64;
        self.len = at + self.rest.len() as u64;
        Ok(())
    }

    /// Puts the events `take` names of one window's line piece (indexed by `idx` in `file`)
    /// into line `l` of plane `p`; returns how many went in and how many were left out.
    fn put_piece(
        &mut self,
        j: &mut Journal,
        p: usize,
        l: usize,
        file: &Arc<File>,
        idx: &super::splice::EventIndex,
        take: Take,
    ) -> io::Result<(u64, u64)> {
        let (start, end) = idx.span();
        if idx.count() == 0 {
            return Ok((0, 0));
        }
        // The byte ranges of the piece that go into P: each whole events.
        let open = &idx.open_at_end;
        let (spans, count, left_out) = match take {
            Take::Window { drop_open: false } => (vec![(start, end)], idx.count(), 0),
            Take::Window { drop_open: true } => {
                let mut spans = Vec::new();
                let mut at = start;
                for &(a, b) in open {
                    if a > at {
                        spans.push((at, a));
                    }
                    at = b;
                }
                if end > at {
                    spans.push((at, end));
                }
                let n = open.len() as u64;
                (spans, idx.count() - n, n)
            }
            Take::OpenOnly => (open.clone(), open.len() as u64, 0),
        };
        if count == 0 {
            return Ok((0, left_out));
        }
        // Its events that sort before P's last go between P's events; the rest after them.
        let (early, split) = self.early_events(file, &spans, self.planes[p].lines[l].last)?;
        let early_n = early.len() as u64;
        self.put_early(j, p, l, file, early)?;
        let tail: Vec<(u64, u64)> = spans
            .iter()
            .filter(|s| s.1 > split)
            .map(|&(a, b)| (a.max(split), b))
            .collect();
        self.append(j, p, l, file, idx, &tail, count - early_n)?;
        Ok((count, left_out))
    }

    /// The events of `spans` (in `file`) that sort before `last` (a prefix: the piece is in
    /// order), each with its key and entry, and where the others begin.
    fn early_events(
        &self,
        file: &Arc<File>,
        spans: &[(u64, u64)],
        last: Option<Key>,
    ) -> io::Result<(Vec<Early>, u64)> {
        let mut early = Vec::new();
        let Some(last) = last else {
            return Ok((early, spans[0].0));
        };
        for &(a, b) in spans {
            let mut r = FileFields::new(file.clone(), a, b);
            loop {
                let at = r.position();
                let Some((n, RawField::Len(len))) = r.field()? else {
                    break;
                };
                if n != LINE_EVENTS {
                    return Err(changed());
                }
                let key = event_key(r.bytes(len)?)?;
                if key >= last {
                    return Ok((early, at));
                }
                let end = r.position();
                early.push(Early { key, at, end });
                if early.len() > MAX_EARLY {
                    return Err(io::Error::other(format!(
                        "more than {MAX_EARLY} events of a window's line sort before the events before it"
                    )));
                }
            }
        }
        Ok((early, u64::MAX))
    }

    /// Puts each of `early` (events of `file`, in order) between the events of line `l` it
    /// falls between: blocks inserted at the block holding that place, that block's bytes
    /// written around the events and a padding field.
    fn put_early(
        &mut self,
        j: &mut Journal,
        p: usize,
        l: usize,
        file: &Arc<File>,
        early: Vec<Early>,
    ) -> io::Result<()> {
        if early.is_empty() {
            return Ok(());
        }
        // Places in the body, then groups of events that go to one place.
        let mut groups: Vec<(u64, Vec<u8>, u64)> = Vec::new();
        for e in early {
            let (q, read) = self.place_after(p, l, e.key)?;
            j.io.read_back += read;
            let mut bytes = vec![0u8; (e.end - e.at) as usize];
            file.read_exact_at(&mut bytes, e.at)?;
            match groups.last_mut() {
                Some(g) if g.0 == q => {
                    g.1.extend_from_slice(&bytes);
                    g.2 += 1;
                }
                _ => groups.push((q, bytes, 1)),
            }
        }
        let block = self.block;
        // From the last place back: a place before one already filled does not move.
        for (q, bytes, n) in groups.into_iter().rev() {
            let body_at = self.line_at(p, l) + self.planes[p].lines[l].head;
            let pos = body_at + q;
            let b = pos / block * block;
            let room = self.round_up(bytes.len() as u64 + MIN_PAD);
            let mut old = vec![0u8; block as usize];
            self.file.read_exact_at(&mut old, b)?;
            j.io.read_back += block;
            self.gap(j, b, room)?;
            j.steps.push(Undo::Bytes {
                at: b + room,
                old: old.clone(),
            });
            let cut = (pos - b) as usize;
            let mut new = Vec::with_capacity((room + block) as usize);
            new.extend_from_slice(&old[..cut]);
            new.extend_from_slice(&bytes);
            new.extend_from_slice(&blocks::padding(room - bytes.len() as u64)?);
            new.extend_from_slice(&old[cut..]);
            self.write(j, b, &new)?;
            let line = &mut self.planes[p].lines[l];
            line.samples.moved_up(q, room);
            line.body += room;
            line.events += room;
            line.count += n;
            // The block the events end in, if it was written here (else it moved up by
            // `room` as it was).
            let end = body_at + line.events;
            let t = end / block * block;
            if t < b + new.len() as u64 {
                let from = (t - b) as usize;
                line.tail = new[from..from + (end - t) as usize].to_vec();
            }
        }
        Ok(())
    }

    /// Where in line `l`'s body the first event that sorts after `key` begins (its events'
    /// end if none does), and the bytes of P read to find it: from the last sample not after
    /// it, read forward.
    fn place_after(&self, p: usize, l: usize, key: Key) -> io::Result<(u64, u64)> {
        let line = &self.planes[p].lines[l];
        let body_at = self.line_at(p, l) + line.head;
        let from = line.samples.last_not_after(key);
        let mut r = FileFields::new(self.file.clone(), body_at + from, body_at + line.events);
        // The events' bytes read (a padding field between them is skipped, not read).
        let mut read = 0;
        loop {
            let at = r.position();
            match r.field()? {
                None => return Ok((line.events, read)),
                Some((LINE_EVENTS, RawField::Len(len))) => {
                    read += r.position() - at + len;
                    if event_key(r.bytes(len)?)? > key {
                        return Ok((at - body_at, read));
                    }
                }
                Some((_, RawField::Len(len))) => r.skip(len)?,
                Some(_) => return Err(changed()),
            }
        }
    }

    /// Copies `spans` of `file` (`count` whole events, in order, none before line `l`'s last)
    /// after line `l`'s events, growing its body by blocks at its end as needed.
    #[allow(clippy::too_many_arguments)]
    fn append(
        &mut self,
        j: &mut Journal,
        p: usize,
        l: usize,
        file: &Arc<File>,
        idx: &super::splice::EventIndex,
        spans: &[(u64, u64)],
        count: u64,
    ) -> io::Result<()> {
        let bytes: u64 = spans.iter().map(|s| s.1 - s.0).sum();
        if bytes == 0 {
            return Ok(());
        }
        let line = &self.planes[p].lines[l];
        let body_at = self.line_at(p, l) + line.head;
        let (events, body) = (line.events, line.body);
        let new_body = self.round_up(events + bytes + MIN_PAD).max(body);
        // The padding that was after the events (a line's body ends in one padding field),
        // kept for the undo.
        let old = blocks::padding(body - events)?;
        self.debug_check_holds(body_at + events, &old);
        j.steps.push(Undo::Bytes {
            at: body_at + events,
            old,
        });
        if new_body > body {
            self.gap(j, body_at + body, new_body - body)?;
        }
        // From the block the events end in to the body's new end: the events there
        // (`tail`), the spans, a padding field. Its first and last blocks are written whole
        // from memory and the whole blocks between copied in the kernel: a range inserted
        // before them dropped P's blocks from the page cache (ext4), and a write of part of
        // one would wait for the disk to read it back.
        let block = self.block;
        let base = body_at + events / block * block;
        let tail = std::mem::take(&mut self.planes[p].lines[l].tail);
        let s = tail.len() as u64;
        debug_assert_eq!(s, events % block);
        self.debug_check_holds(base, &tail);
        let pad = blocks::padding(new_body - events - bytes)?;
        let total = s + bytes + pad.len() as u64;
        let piece = Piece {
            tail: &tail,
            file,
            spans,
            pad: &pad,
        };
        // The blocks copied in the kernel: from the first block boundary after the tail to
        // the last within the spans.
        let (from, to) = (s.next_multiple_of(block), (s + bytes) / block * block);
        let to = to.max(from);
        let first_block = piece.read(0, from)?;
        let last_blocks = piece.read(to, total)?;
        if !first_block.is_empty() {
            self.write(j, base, &first_block)?;
        }
        for (a, len, at) in piece.source_ranges(from, to) {
            self.change(j)?;
            copy::copy_range(file, a, len, copy::Dest::At(&self.file, base + at))?;
            j.io.copied += len;
        }
        self.write(j, base + to, &last_blocks)?;
        // The events' new last block, from what was written of it.
        let (t, e) = ((s + bytes) / block * block, s + bytes);
        let new_tail = if t >= to {
            last_blocks[(t - to) as usize..(e - to) as usize].to_vec()
        } else {
            first_block[t as usize..e as usize].to_vec()
        };
        // The piece's samples, where they now lie, from its first event on: where the piece's
        // first sample went in early or was left out, an early event of a later window would
        // be looked for from a sample windows back (a line of a few events a window, a range
        // open across every cut), its read growing with the run.
        let mut placed = Vec::new();
        let mut dst = events;
        for &(a, b) in spans {
            placed.extend(
                idx.samples()
                    .filter(|s| s.1 >= a && s.1 < b)
                    .map(|(k, pos)| (k, dst + pos - a)),
            );
            dst += b - a;
        }
        if placed.first().is_none_or(|s| s.1 != events) {
            placed.insert(0, (first_key(file, spans[0])?, events));
        }
        let last = last_key(file, spans, placed.last().copied(), events)?;
        let line = &mut self.planes[p].lines[l];
        for (key, at) in placed {
            line.samples.push(key, at);
        }
        line.tail = new_tail;
        line.events += bytes;
        line.body = new_body;
        line.count += count;
        line.last = Some(last);
        Ok(())
    }

    /// Puts the last window into P (its ranges open at its end kept), or, without one, the
    /// ranges the newest window left out; writes the `XSpace`'s other fields as the merge
    /// gives them (`warnings` added); gives P `layout`'s name, and says what this last step
    /// moved in P. On `Err` P is left where it is ([`Unfinished`]) for the caller to merge
    /// with the windows it does not hold.
    pub fn finish(
        mut self,
        last: Option<Indexed>,
        warnings: &[String],
        layout: &super::super::OutputLayout,
    ) -> Result<(PathBuf, Merged, StepIo), Box<Unfinished>> {
        self.last_step = StepIo::default();
        let put = match last {
            Some(w) => match w.0.open(Check::Bounds) {
                Ok(input) => self.put(input, Take::Window { drop_open: false }),
                Err(e) => Err(NotAdded::Refused(e.to_string())),
            },
            None if self.open_left_out => self.put_open_of_newest(),
            None => Ok(()),
        };
        if let Err(e) = put {
            return Err(self.unfinished(e));
        }
        let mut j = Journal::default();
        let last = (!self.inputs.is_empty()).then_some(warnings);
        if let Err(e) = self.write_rest(&mut j, last) {
            return Err(match self.undo(j) {
                Ok(()) => self.unfinished(NotAdded::Undone(e)),
                Err(undo) => self.unfinished(NotAdded::Broken { step: e, undo }),
            });
        }
        let mut step = self.last_step;
        step.add(j.io);
        let mut merged = self.merged.clone();
        merged.inputs = self.inputs.len();
        merged.planes = self.planes.len();
        merged.lines = self.planes.iter().map(|p| p.lines.len()).sum();
        let file = match self.file.try_clone() {
            Ok(f) => f,
            Err(e) => return Err(self.unfinished(NotAdded::Undone(e))),
        };
        let hidden = super::super::file::Hidden {
            file,
            tmp: self.tmp.clone(),
            named: self.named,
        };
        match super::super::file::put_in_place(hidden, layout) {
            Ok(path) => Ok((path, merged, step)),
            Err(e) => Err(self.unfinished(NotAdded::Undone(io::Error::other(e.to_string())))),
        }
    }

    /// P given up on, for the caller to merge with the windows it does not hold.
    pub fn unfinished(self, why: NotAdded) -> Box<Unfinished> {
        Box::new(Unfinished {
            held: self.window_paths().map(Path::to_path_buf).collect(),
            path: self.path(),
            file: self.file,
            why,
        })
    }

    /// The newest window's ranges open at its end, left out when it was put in: it turned
    /// out to be the last.
    fn put_open_of_newest(&mut self) -> Result<(), NotAdded> {
        let Some(input) = self.inputs.last_mut() else {
            return Ok(());
        };
        let opened = File::open(&input.path)
            .map_err(|e| NotAdded::Refused(format!("{}: {e}", input.path.display())))?;
        input.file = Some(Arc::new(opened));
        let put = self.put_newest(Take::OpenOnly);
        if let Some(i) = self.inputs.last_mut() {
            i.file = None;
        }
        put
    }
}

/// What an append writes from the block a line's events end in: the events already there,
/// the window's spans (of `file`), a padding field, read as one run of bytes.
struct Piece<'a> {
    tail: &'a [u8],
    file: &'a File,
    spans: &'a [(u64, u64)],
    pad: &'a [u8],
}

impl Piece<'_> {
    /// Its bytes from `x` to `y`.
    fn read(&self, x: u64, y: u64) -> io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(y.saturating_sub(x) as usize);
        let mut at = 0u64;
        let mut take = |bytes: &[u8], at: u64| {
            let (a, b) = (x.max(at), y.min(at + bytes.len() as u64));
            if a < b {
                out.extend_from_slice(&bytes[(a - at) as usize..(b - at) as usize]);
            }
        };
        take(self.tail, at);
        at += self.tail.len() as u64;
        for (a, len, from) in self.source_ranges(x, y) {
            let mut buf = vec![0u8; len as usize];
            self.file.read_exact_at(&mut buf, a)?;
            take(&buf, from);
        }
        at += self.spans.iter().map(|s| s.1 - s.0).sum::<u64>();
        take(self.pad, at);
        Ok(out)
    }

    /// The parts of the spans within its bytes `x` to `y`: where each begins in the file, its
    /// length and where it lies in the run, in order.
    fn source_ranges(&self, x: u64, y: u64) -> Vec<(u64, u64, u64)> {
        let mut out = Vec::new();
        let mut at = self.tail.len() as u64;
        for &(a, b) in self.spans {
            let (lo, hi) = (x.max(at), y.min(at + b - a));
            if lo < hi {
                out.push((a + lo - at, hi - lo, lo));
            }
            at += b - a;
        }
        out
    }
}

/// A line's fields but its events, as the merge writes them.
fn line_head(lp: &LinePlan, max_end_ps: Option<i64>) -> Vec<u8> {
    let mut b = LineBuilder::new(lp.id, lp.name.clone(), lp.timestamp_ns);
    if let Some(d) = &lp.display_name {
        b.set_display_name(d.clone());
    }
    if let Some(e) = max_end_ps {
        b.note_end_ps(e);
    }
    let finished = b.finish();
    let (before, after) = finished.around_events();
    [before, after].concat()
}

fn changed() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a line's events changed since they were indexed",
    )
}

/// An encoded event's place in the line's order.
fn event_key(b: &[u8]) -> io::Result<Key> {
    let (offset, duration) = event_times(b, None, Check::Bounds)?.unwrap_or((0, 0));
    Ok((offset, Reverse(duration)))
}

/// The most samples a line of P keeps ([`Samples`]). The unit tests' lines keep a few, so
/// that every profile they assemble in place has its lines thinned.
const LINE_SAMPLES: usize = if cfg!(test) { 8 } else { 2048 };

/// Keys of some of a line's events and where their entries begin in its body, in order:
/// every 64th event of each window's piece, and its first. The newest `LINE_SAMPLES / 2` are
/// kept as they came; of the older ones, every `stride`-th the line was given, the stride a
/// power of two. A long run's line so holds at most [`LINE_SAMPLES`] (a sample every 64
/// events for the whole run would grow with it), the older ones at most a stride apart. Early
/// events go near the line's end (a range open across the cut before, a call handed on
/// across it), where the samples are 64 events apart; one placed further back reads from a
/// sample up to a stride away.
#[derive(Debug, Clone)]
struct Samples {
    /// The most kept: [`LINE_SAMPLES`].
    cap: usize,
    kept: Vec<Sample>,
    /// Samples the line was given.
    given: u64,
    /// Of the older ones, those whose number is a multiple of it are kept.
    stride: u64,
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    key: Key,
    /// Where its entry begins in the line's body.
    at: u64,
    /// Its number among the samples the line was given.
    n: u64,
}

impl Default for Samples {
    fn default() -> Samples {
        Samples {
            cap: LINE_SAMPLES,
            kept: Vec::new(),
            given: 0,
            stride: 1,
        }
    }
}

impl Samples {
    /// The next sample (its key not before the last one's).
    fn push(&mut self, key: Key, at: u64) {
        self.kept.push(Sample {
            key,
            at,
            n: self.given,
        });
        self.given += 1;
        if self.kept.len() > self.cap {
            self.thin();
        }
    }

    /// Keeps of the older samples every `stride`-th, the stride doubled until they are at
    /// most a quarter of the cap: the next thinning is then a quarter of it away, never one
    /// sample away.
    fn thin(&mut self) {
        let old = self.kept.len() - self.cap / 2;
        loop {
            let stride = self.stride;
            let older = self.kept[..old]
                .iter()
                .filter(|s| s.n % stride == 0)
                .count();
            if older <= self.cap / 4 {
                break;
            }
            self.stride *= 2;
        }
        let stride = self.stride;
        let mut k = 0;
        self.kept.retain(|s| {
            k += 1;
            k > old || s.n % stride == 0
        });
    }

    /// Where the last sample whose key is not after `key` begins (the body's start if none).
    fn last_not_after(&self, key: Key) -> u64 {
        let k = self.kept.partition_point(|s| s.key <= key);
        k.checked_sub(1).map_or(0, |k| self.kept[k].at)
    }

    /// `room` bytes were inserted at `q`: the samples from there on moved up.
    fn moved_up(&mut self, q: u64, room: u64) {
        for s in self.kept.iter_mut().filter(|s| s.at >= q) {
            s.at += room;
        }
    }
}

/// The key of the event `span` (in `file`) begins with.
fn first_key(file: &Arc<File>, (a, b): (u64, u64)) -> io::Result<Key> {
    let mut r = FileFields::new(file.clone(), a, b);
    match r.field()? {
        Some((LINE_EVENTS, RawField::Len(len))) => event_key(r.bytes(len)?),
        _ => Err(changed()),
    }
}

/// The key of the last event of `spans`, read from the last sample among them (`sample`:
/// its key and place in the body, whose events began at `base`) or the first span's start.
fn last_key(
    file: &Arc<File>,
    spans: &[(u64, u64)],
    sample: Option<(Key, u64)>,
    base: u64,
) -> io::Result<Key> {
    // The sample's place in the file.
    let mut from = None;
    if let Some((_, at)) = sample {
        let mut dst = base;
        for (k, &(a, b)) in spans.iter().enumerate() {
            if at >= dst && at < dst + (b - a) {
                from = Some((k, a + (at - dst)));
            }
            dst += b - a;
        }
    }
    let (first, start) = from.unwrap_or((0, spans[0].0));
    let mut key = None;
    for (k, &(a, b)) in spans.iter().enumerate().skip(first) {
        let a = if k == first { start } else { a };
        let mut r = FileFields::new(file.clone(), a, b);
        while let Some((n, value)) = r.field()? {
            let (LINE_EVENTS, RawField::Len(len)) = (n, value) else {
                return Err(changed());
            };
            key = Some(event_key(r.bytes(len)?)?);
        }
    }
    key.ok_or_else(changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    use crate::xplane::hlo;
    use crate::xplane::proto::XStatMetadata;
    use crate::xplane::proto::{x_event, x_stat, XEvent, XEventMetadata, XLine, XStat};
    use crate::xplane::stats as s;

    fn stat_md(id: i64, name: &str) -> (i64, XStatMetadata) {
        let m = XStatMetadata {
            id,
            name: name.into(),
            ..XStatMetadata::default()
        };
        (id, m)
    }

    fn uint(metadata_id: i64, v: u64) -> XStat {
        XStat {
            metadata_id,
            value: Some(x_stat::Value::Uint64Value(v)),
        }
    }

    fn event_md(id: i64, name: &str, stats: Vec<XStat>) -> (i64, XEventMetadata) {
        let m = XEventMetadata {
            id,
            name: name.into(),
            stats,
            ..XEventMetadata::default()
        };
        (id, m)
    }

    /// A line with an event of `metadata_id` at each of `offsets` (ps, in order).
    fn line(id: i64, name: &str, display_name: &str, metadata_id: i64, offsets: &[i64]) -> XLine {
        XLine {
            id,
            name: name.into(),
            display_name: display_name.into(),
            timestamp_ns: 1_000 * id,
            events: offsets
                .iter()
                .map(|&o| XEvent {
                    metadata_id,
                    data: Some(x_event::Data::OffsetPs(o)),
                    duration_ps: 5,
                    ..XEvent::default()
                })
                .collect(),
            ..XLine::default()
        }
    }

    fn plane(id: i64, name: &str) -> XPlane {
        XPlane {
            id,
            name: name.into(),
            ..XPlane::default()
        }
    }

    /// Window `k` of a run's six, on the run's ids (a name has one id in every window that
    /// has it) and clock, each window's tables differing: the Task Environment's counters,
    /// times and a stat the first window gives; `/host:metadata`'s programs, the HLO proto's
    /// stat first named in the second window, a program's ops differing from window to
    /// window, two programs of one module name; a host plane's event and stat metadata and
    /// plane stats met in some windows only, a line first met in the third, a display name
    /// in the fourth; a device line's kinds of work differing; a device first met in the
    /// fifth; the scope tree growing. `late`: the Task Environment's first two windows refer
    /// to a stat they do not name, which the third names (a counter).
    fn window(k: usize, late: bool) -> XSpace {
        let k64 = k as u64;
        let mut env = plane(1, s::TASK_ENV_PLANE);
        env.stat_metadata = [
            stat_md(1, s::PROFILE_START_TIME),
            stat_md(2, s::PROFILE_STOP_TIME),
            stat_md(3, s::ORIGIN_BOOTTIME_NS),
            stat_md(4, s::WINDOW_PID),
            stat_md(5, s::WINDOW_RUN),
            stat_md(7, "first_wins"),
        ]
        .into();
        env.stats = vec![
            uint(1, [1_000, 990, 1_010, 980, 1_020, 1_000][k]),
            uint(2, [3_000, 2_500, 4_000, 3_500, 4_200, 100][k]),
            uint(3, 500),
            uint(4, 42),
            uint(5, 7),
            uint(7, k64),
        ];
        if [1, 3, 4].contains(&k) {
            env.stat_metadata
                .extend([stat_md(6, "rocprof_xplane_dropped")]);
            env.stats.push(uint(6, k64 + 1));
        }
        if late {
            if k >= 2 {
                env.stat_metadata
                    .extend([stat_md(99, "rocprof_xplane_late")]);
            }
            env.stats.push(uint(99, 10 + k64));
        }

        let mut programs = plane(2, hlo::METADATA_PLANE);
        let module = |id: i64, module: &str, ops: &[&str]| {
            let bytes = hlo::placeholder_module(module, id, ops.iter().copied());
            let proto = XStat {
                metadata_id: 10,
                value: Some(x_stat::Value::BytesValue(bytes)),
            };
            event_md(id, module, vec![proto])
        };
        programs.event_metadata = [event_md(100, "jit_f", vec![])].into();
        if k >= 1 {
            programs.stat_metadata = [stat_md(10, hlo::HLO_PROTO)].into();
            let ops: &[&[&str]] = &[&[], &["fusion.1"], &["copy.2"], &["fusion.1", "add.3"]];
            if k % 2 == 1 {
                programs
                    .event_metadata
                    .extend([module(101, "jit_g", ops[k % 4])]);
            }
            if k % 2 == 0 {
                programs
                    .event_metadata
                    .extend([module(102, "jit_g", ops[k / 2 + 1])]);
            }
        }

        const NAMES: [&str; 8] = [
            "hipLaunchKernel",
            "hipMemcpy",
            "hipMalloc",
            "hipFree",
            "step",
            "fwd",
            "bwd",
            "sync",
        ];
        let mut host = plane(3, "/host:CPU");
        host.stat_metadata = [stat_md(20, "a"), stat_md(22, "c")].into();
        for (i, name) in NAMES.iter().enumerate() {
            if (i + k) % 3 != 0 {
                let stats = if i % 2 == 0 {
                    vec![XStat {
                        metadata_id: 22,
                        value: Some(x_stat::Value::StrValue(format!("w{k}"))),
                    }]
                } else {
                    vec![]
                };
                host.event_metadata
                    .extend([event_md(30 + i as i64, name, stats)]);
            }
        }
        host.stats = vec![uint(20, k64)];
        if k >= 2 {
            host.stat_metadata.extend([stat_md(21, "b")]);
            host.stats.push(uint(21, k64));
        }
        let display = if k == 3 { "main" } else { "" };
        host.lines = vec![line(
            7,
            "Host Threads/7",
            display,
            30 + k as i64 % 2 + 1,
            &[10, 20],
        )];
        if k >= 2 {
            host.lines
                .push(line(8, "Host Threads/8", "", 31, &[k as i64 * 100]));
        }

        let kinds = [
            "Stream #1(Compute)",
            "Stream #1(MemcpyDToH)",
            "Stream #1(Compute,MemcpyDToD)",
            "Stream #1",
        ];
        let mut gpu0 = plane(4, "/device:GPU:0");
        gpu0.event_metadata = [
            event_md(1, "attention", vec![]),
            event_md(2 + k64 as i64 % 2, ["mlp", "copy"][k % 2], vec![]),
        ]
        .into();
        gpu0.lines = vec![line(1, kinds[k % 4], "", 1, &[0, 5, 9])];
        if k >= 1 {
            gpu0.lines
                .insert(0, line(2, "Stream #2(Compute)", "", 1, &[3]));
        }
        let mut space = XSpace {
            planes: vec![env, programs, host, gpu0],
            hostnames: vec!["h".into()],
            ..XSpace::default()
        };
        if k >= 4 {
            let mut gpu1 = plane(5, "/device:GPU:1");
            gpu1.event_metadata = [event_md(1, "attention", vec![])].into();
            gpu1.lines = vec![line(1, "Stream #1(Compute)", "", 1, &[1])];
            space.planes.insert(3, gpu1);
        }
        let mut scopes = plane(6, s::SCOPE_TREE_PLANE);
        for i in 1..=k as i64 + 1 {
            scopes
                .stat_metadata
                .extend([stat_md(i, &format!("scope{i}"))]);
            scopes.stats.push(uint(i, i as u64 - 1));
        }
        space.planes.push(scopes);
        space
    }

    /// The six windows written and indexed.
    fn inputs(dir: &Path, late: bool) -> Vec<Input> {
        (0..6)
            .map(|k| {
                let path = dir.join(format!("w{k}.xplane.pb"));
                std::fs::write(&path, window(k, late).encode_to_vec()).unwrap();
                Input::index(&path, Check::Bounds).unwrap()
            })
            .collect()
    }

    /// A plane's lines' heads as the merge of every window gives them (`events::PlaneMerge::line_ids`,
    /// `merge_to`'s lines): id, name, display name, timestamp.
    fn merged_lines(inputs: &[Input], name: &str) -> Vec<(i64, String, Option<String>, i64)> {
        let parts = plane_parts(inputs, name);
        let mut ids: Vec<i64> = Vec::new();
        for l in parts.iter().flat_map(|p| &p.plane.lines) {
            if !ids.contains(&l.head.id) {
                ids.push(l.head.id);
            }
        }
        ids.into_iter()
            .map(|id| {
                let pieces: Vec<&XLine> = parts
                    .iter()
                    .flat_map(|p| &p.plane.lines)
                    .filter(|l| l.head.id == id)
                    .map(|l| &l.head)
                    .collect();
                let names: Vec<&str> = pieces.iter().map(|l| l.name.as_str()).collect();
                let display = pieces
                    .iter()
                    .map(|l| &l.display_name)
                    .find(|d| !d.is_empty())
                    .cloned();
                let ts = pieces.iter().map(|l| l.timestamp_ns).min().unwrap();
                (
                    id,
                    crate::xplane::space::merged_line_name(&names),
                    display,
                    ts,
                )
            })
            .collect()
    }

    /// A line's samples stay within their cap (the tool's) however many come, in order: the line's
    /// first kept, the newest half as they came, the older ones at most a stride apart, the
    /// stride no more than the line's samples over an eighth of those kept; and they are
    /// thinned once every quarter of them at most, not at every sample.
    #[test]
    fn a_line_keeps_its_newest_samples_and_an_even_rest() {
        let key = |n: u64| (n as i64, Reverse(0i64));
        const CAP: usize = 2048;
        let mut samples = Samples {
            cap: CAP,
            ..Samples::default()
        };
        let given = 200_000u64;
        let mut thinned = 0;
        for n in 0..given {
            let before = samples.kept.len();
            samples.push(key(n), n * 64);
            thinned += usize::from(samples.kept.len() <= before);
            assert!(samples.kept.len() <= CAP);
        }
        assert!(thinned as u64 <= given / (CAP as u64 / 4), "{thinned}");
        let at: Vec<u64> = samples.kept.iter().map(|s| s.at / 64).collect();
        assert_eq!(at[0], 0, "the line's first event");
        let dense = at.len() - CAP / 2;
        assert!(at[dense..].windows(2).all(|w| w[1] - w[0] == 1));
        assert_eq!(*at.last().unwrap(), given - 1);
        let older: Vec<u64> = at[..=dense].windows(2).map(|w| w[1] - w[0]).collect();
        let stride = samples.stride;
        assert!(older.iter().all(|&g| g <= stride));
        assert!(stride <= given / (CAP as u64 / 8), "stride {stride}");
        // A key's place is looked for from the last sample not after it.
        assert_eq!(samples.last_not_after(key(given - 5)), (given - 5) * 64);
        assert_eq!(samples.last_not_after(key(3 * stride + 1)), 3 * stride * 64);
    }

    /// The heads of windows merged in one at a time, after each, are what the merge of every
    /// window so far gives (`merge_heads` of all their planes, the lines' heads as the merge
    /// writes them, the planes in the order their names first appear): every rule of which
    /// metadata and stats win, with a window's heads merged alone. `late`: the Task
    /// Environment refers to a stat it names only from the third window on; the counter's
    /// sum then depends on the name the merge of every window reads, so that plane is merged
    /// from every window (`MergedHead::Whole`), and only it.
    #[test]
    fn heads_merged_window_by_window_are_the_merge_of_every_window() {
        for late in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let inputs = inputs(dir.path(), late);
            let mut heads = Heads::default();
            for k in 0..inputs.len() {
                let so_far = &inputs[..=k];
                heads = heads.with(so_far).unwrap();
                let names: Vec<&str> = heads.planes.iter().map(|p| p.name.as_str()).collect();
                assert_eq!(names, super::super::plane_names(so_far), "window {k}");
                for ph in &heads.planes {
                    let (whole, ids) = merge_heads(&plane_parts(so_far, &ph.name));
                    assert!(ids.iter().all(|i| i.all_kept));
                    assert_eq!(ph.head(), &whole, "plane {} after window {k}", ph.name);
                    let lines: Vec<_> = ph
                        .lines
                        .iter()
                        .map(|l| {
                            let names: Vec<&str> = l.names.iter().map(String::as_str).collect();
                            let name = crate::xplane::space::merged_line_name(&names);
                            (l.id, name, l.display_name.clone(), l.timestamp_ns)
                        })
                        .collect();
                    assert_eq!(lines, merged_lines(so_far, &ph.name), "plane {}", ph.name);
                    let whole_merged = matches!(ph.merged, MergedHead::Whole(_));
                    assert_eq!(whole_merged, late && ph.name == s::TASK_ENV_PLANE);
                }
            }
            // What the windows' tables make, as the rules say.
            let find = |name: &str| heads.planes.iter().find(|p| p.name == name).unwrap();
            let env = find(s::TASK_ENV_PLANE).head();
            let stat = |id: i64| {
                env.stats
                    .iter()
                    .find(|st| st.metadata_id == id)
                    .and_then(|st| st.value.clone())
            };
            let v = |x| Some(x_stat::Value::Uint64Value(x));
            assert_eq!(
                (stat(1), stat(2), stat(6), stat(7)),
                (v(980), v(4_200), v(2 + 4 + 5), v(0))
            );
            assert_eq!(
                (stat(4), stat(5)),
                (None, None),
                "whose window it was is left out"
            );
            if late {
                assert_eq!(stat(99), v(10 + 11 + 12 + 13 + 14 + 15));
            }
            let programs = find(hlo::METADATA_PLANE).head();
            let ops = |id: i64| {
                let m = &programs.event_metadata[&id];
                m.stats.iter().find_map(|st| match &st.value {
                    Some(x_stat::Value::BytesValue(b)) => hlo::placeholder_ops(b),
                    _ => None,
                })
            };
            assert!(programs.event_metadata[&100].stats.is_empty());
            let module = |ops: &[&str]| {
                Some((
                    "jit_g".to_string(),
                    ops.iter().map(|o| o.to_string()).collect(),
                ))
            };
            assert_eq!(ops(101), module(&["add.3", "fusion.1"]));
            assert_eq!(ops(102), module(&["add.3", "copy.2", "fusion.1"]));
            let host = find("/host:CPU").head();
            assert_eq!(host.stats, [uint(20, 0), uint(21, 2)]);
            assert_eq!(host.event_metadata.len(), 8);
        }
    }

    /// In the case `HeadMerge::adds_alone` refuses, adding each window alone would not give
    /// what the merge of every window gives: the Task Environment's counter, referred to
    /// before its name is given, would keep the first window's value for the second.
    #[test]
    fn a_stat_named_after_it_is_referred_to_is_merged_from_every_window() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = inputs(dir.path(), true);
        fn env(i: &Input) -> &PlaneIn {
            let p = i.planes.iter().find(|p| p.head.name == s::TASK_ENV_PLANE);
            p.unwrap()
        }
        let mut alone = HeadMerge::new(&env(&inputs[0]).head);
        assert!(!alone.adds_alone(env(&inputs[0])));
        for i in &inputs {
            alone.add(env(i));
        }
        let (whole, _) = merge_heads(&plane_parts(&inputs, s::TASK_ENV_PLANE));
        assert_ne!(alone.head(), &whole);
    }

    /// Whether no window's times move, told from each window's origins as they come, is what
    /// `input::shifts` tells from every window's: every sequence of up to three windows, each
    /// with or without an origin on each clock, of two values.
    #[test]
    fn clocks_told_window_by_window_are_the_shifts_of_every_window() {
        let values = [None, Some(1_000u64), Some(2_000)];
        let origins: Vec<Origin> = (0..27)
            .map(|n| Origin {
                job: values[n % 3],
                boot: values[n / 3 % 3],
                wall: values[n / 9],
                ..Origin::default()
            })
            .collect();
        let input = |origin: Origin| Input {
            path: PathBuf::new(),
            file: None,
            len: 0,
            planes: Vec::new(),
            rest: XSpace::default(),
            origin,
            identity: None,
            forgotten: false,
        };
        for len in 1..=3u32 {
            for n in 0..27usize.pow(len) {
                let seq: Vec<usize> = (0..len).map(|d| n / 27usize.pow(d) % 27).collect();
                let inputs: Vec<Input> = seq.iter().map(|&o| input(origins[o])).collect();
                let mut clocks = Clocks::default();
                for i in &inputs {
                    clocks.add(&i.origin);
                }
                let none_move = super::super::input::shifts(&inputs).iter().all(|&s| s == 0);
                assert_eq!(clocks.one_origin(), none_move, "{seq:?}");
            }
        }
    }

    /// An append's run of bytes (the events already in the block, the spans of the window's
    /// file, the padding) reads the same between any two places, and the spans' parts between
    /// two places are where the run holds them.
    #[test]
    fn a_piece_reads_as_its_tail_spans_and_padding_in_order() {
        let src: Vec<u8> = (0..200u8).collect();
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&src).unwrap();
        let spans = [(10, 50), (70, 71), (100, 180)];
        let tail = [201u8, 202, 203];
        let pad = blocks::padding(9).unwrap();
        let piece = Piece {
            tail: &tail,
            file: &f,
            spans: &spans,
            pad: &pad,
        };
        let mut run = tail.to_vec();
        for &(a, b) in &spans {
            run.extend_from_slice(&src[a as usize..b as usize]);
        }
        let spans_end = run.len() as u64;
        run.extend_from_slice(&pad);
        let n = run.len() as u64;
        for x in 0..=n {
            for y in x..=n {
                let got = piece.read(x, y).unwrap();
                assert_eq!(got, run[x as usize..y as usize], "{x}..{y}");
                let parts = piece.source_ranges(x, y);
                for &(a, len, at) in &parts {
                    assert_eq!(
                        src[a as usize..(a + len) as usize],
                        run[at as usize..(at + len) as usize]
                    );
                }
                let within = y.min(spans_end).saturating_sub(x.max(tail.len() as u64));
                assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), within, "{x}..{y}");
            }
        }
    }
}
