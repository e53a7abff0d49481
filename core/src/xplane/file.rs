//! Files on disk: the layout xprof scans, atomic writes, and reading back.
//!
//! xprof finds runs as `<logdir>/plugins/profile/<run>/` and treats each `<host>.xplane.pb` in a
//! run as one host of a multi-host session, the host name being the file name minus
//! `.xplane.pb`. Each process writes its own file, so the processes of one job appear as hosts
//! of one run. The content is a plain binary XSpace, not compressed.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use prost::Message;

use super::proto::XSpace;
use crate::model::Trace;

/// Where one process's file goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputLayout {
    /// What the user passes to `xprof --logdir` / `tensorboard --logdir`.
    pub log_dir: PathBuf,
    /// Run directory name, shared by every process of one job.
    pub run_name: String,
    /// Host part of the file name; distinct per process (e.g. `<hostname>.<pid>`).
    pub host: String,
    /// Each file is fsynced before it takes its name (and its directory after), so a power loss
    /// right after cannot empty it; its pages are handed to the writeback as it is written, so
    /// that fsync waits for the last ones only. Otherwise the file is left to the page cache,
    /// as XLA's and rocprofv3's own writers leave theirs, and a write the disk refuses is still
    /// reported: by the write, or by the close (`close_checked`).
    pub durable: bool,
}

impl OutputLayout {
    /// `<log_dir>/plugins/profile/<run_name>`.
    pub fn run_dir(&self) -> PathBuf {
        self.log_dir
            .join("plugins")
            .join("profile")
            .join(run_dir_name(&self.run_name))
    }

    /// The host name as it appears in the file name (and so in xprof's host list).
    pub fn file_host(&self) -> String {
        sanitize_component(&self.host)
    }

    /// `<run_dir>/<host>.xplane.pb`.
    pub fn file_path(&self) -> PathBuf {
        self.run_dir()
            .join(format!("{}{FILE_SUFFIX}", self.file_host()))
    }
}

/// What every profile's file name ends with, after its host.
const FILE_SUFFIX: &str = ".xplane.pb";

/// The host of a profile's file name (`<host>.xplane.pb`, [`OutputLayout::file_path`]'s);
/// `None` for any other file, a write's temporary (`.<host>.xplane.pb.tmp…`) included.
pub fn host_of_file_name(name: &str) -> Option<&str> {
    name.strip_suffix(FILE_SUFFIX)
        .filter(|h| !h.is_empty() && !h.starts_with('.'))
}

/// The directory a run name is written as (`a:b` → `a_b`): what the CLI must look for.
pub fn run_dir_name(run_name: &str) -> String {
    sanitize_component(run_name)
}

/// The host part we recommend for one process: `<hostname>.<pid>`. xprof's file-name pattern
/// takes everything before `.xplane.pb` as the host, dots included, so this stays one host.
pub fn process_host_name(hostname: &str, pid: u32) -> String {
    format!("{}.{pid}", sanitize_component(hostname))
}

/// Keeps a name to one path component: separators, `:` (XLA replaces it too) and control
/// characters become `_`; an empty or dot-only name becomes `_`.
pub fn sanitize_component(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    if out.is_empty() || out.chars().all(|c| c == '.') {
        "_".to_owned()
    } else {
        out
    }
}

/// A file could not be written; says which path and which step.
#[derive(Debug)]
pub enum WriteError {
    CreateDir {
        path: PathBuf,
        source: io::Error,
    },
    Write {
        path: PathBuf,
        source: io::Error,
    },
    Rename {
        from: PathBuf,
        to: PathBuf,
        source: io::Error,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::CreateDir { path, source } => {
                write!(f, "cannot create directory {}: {source}", path.display())
            }
            WriteError::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            WriteError::Rename { from, to, source } => {
                write!(
                    f,
                    "cannot rename {} to {}: {source}",
                    from.display(),
                    to.display()
                )
            }
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::CreateDir { source, .. }
            | WriteError::Write { source, .. }
            | WriteError::Rename { source, .. } => Some(source),
        }
    }
}

/// A file could not be read as an XSpace.
#[derive(Debug)]
pub enum ReadError {
    Io {
        path: PathBuf,
        source: io::Error,
    },
    Decode {
        path: PathBuf,
        source: prost::DecodeError,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            ReadError::Decode { path, source } => {
                write!(
                    f,
                    "{} is not a valid XSpace protobuf: {source}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io { source, .. } => Some(source),
            ReadError::Decode { source, .. } => Some(source),
        }
    }
}

/// Builds the XSpace of `trace` and writes it to `layout.file_path()`; returns that path.
///
/// `XSpace.hostnames` is set to the file's host part (not `trace.hostname`): xprof requires
/// `hostnames[0]` to be a substring of the file's host name and seeds its flow ids with it, so
/// a per-process value keeps launch arrows of two processes in one run from joining.
///
/// Planes are built, encoded and written one at a time (`build_planes`): the exit path never
/// holds the whole XSpace or its whole encoding. A repeated field may be written as separate
/// entries, so the bytes are those `encode_to_vec` would give for the built XSpace, apart from
/// the length of a plane written into the output as it was built (padded to 5 bytes).
pub fn write_xspace(trace: &Trace, layout: &OutputLayout) -> Result<PathBuf, WriteError> {
    write_xspace_on(trace, layout, plane_threads(trace))
}

/// As [`write_xspace`], the planes built on `threads` threads (see `build_planes_spilling`):
/// the same XSpace on any number.
pub fn write_xspace_on(
    trace: &Trace,
    layout: &OutputLayout,
    threads: usize,
) -> Result<PathBuf, WriteError> {
    write_window(trace, layout, threads, None)
}

/// As [`write_xspace_on`], for a window of a run whose windows are to be merged (`run`, see
/// `build_window_planes`).
pub fn write_window(
    trace: &Trace,
    layout: &OutputLayout,
    threads: usize,
    run: Option<&super::RunIds>,
) -> Result<PathBuf, WriteError> {
    let host = super::HostEvents::of(trace);
    write_window_placed(trace, host, layout, threads, run).map(|w| w.path)
}

/// A window written, with where its lines' events lie in the file: what the merge at exit
/// indexes it by (`merge::Indexed::written`) instead of reading its events back.
#[derive(Debug)]
pub struct WrittenWindow {
    pub path: PathBuf,
    /// Plane by plane, in the file's order.
    pub places: Vec<super::builder::PlanePlaces>,
}

/// As [`write_window`], with where the lines' events lie ([`WrittenWindow`]), the host
/// threads' events read from `host` (`build_window_planes`: taken out of the trace, they are
/// freed as they are encoded).
pub fn write_window_placed(
    trace: &Trace,
    host: super::HostEvents<'_>,
    layout: &OutputLayout,
    threads: usize,
    run: Option<&super::RunIds>,
) -> Result<WrittenWindow, WriteError> {
    let mut places = Vec::new();
    let path = write_atomically(layout, |f| {
        // The largest planes' lines go into the output as they are built while it is their
        // plane's turn there (`spill::OutputTurn`: the host plane's from the start; on one
        // thread every plane's), else into a file beside it until it is.
        let mut spill = super::spill::SpillPolicy::in_dir(layout.run_dir());
        let turn = super::spill::OutputTurn::of(f.get_ref(), layout.durable)
            .map_err(|e| crate::log_debug!("the planes' lines go to files of their own: {e}"))
            .ok();
        if let Some(turn) = &turn {
            spill = spill.with_output(std::sync::Arc::clone(turn));
        }
        let mut rest = super::space::build_window_planes(
            trace,
            host,
            Some(&spill),
            threads,
            run,
            |mut plane| {
                places.push(plane.take_places());
                write_plane(&plane, f, turn.as_deref(), layout.durable)
            },
        )?;
        rest.hostnames = vec![layout.file_host()];
        f.write_all(&rest.encode_to_vec())
    })?;
    Ok(WrittenWindow { path, places })
}

/// Writes a built plane as the output's next `XSpace.planes` entry, in its turn (`turn`, when
/// planes may write into the output themselves): bytes a plane left there without finishing
/// are taken out first (`OutputTurn::rewind`), nothing is written for a plane already in the
/// output, the output is flushed (and its writeback started: `writeback`), and the next
/// plane's turn begins.
pub(super) fn write_plane(
    plane: &super::builder::BuiltPlane,
    f: &mut io::BufWriter<fs::File>,
    turn: Option<&super::spill::OutputTurn>,
    writeback: bool,
) -> io::Result<()> {
    if let Some(turn) = turn.filter(|_| !plane.is_written()) {
        turn.rewind()?;
    }
    plane.write_entry(f)?;
    f.flush()?;
    if writeback {
        super::spill::start_writeback(f.get_ref());
    }
    turn.map_or(Ok(()), super::spill::OutputTurn::plane_written)
}

/// Threads the planes of `trace` are built on by default: the cores this process may use (its
/// CPU set and cgroup quota), at most [`MAX_PLANE_THREADS`], and only as many as the memory
/// they add fits under the process's peak so far (`VmHWM` − `VmRSS`): by that estimate,
/// building planes side by side does not raise the peak the job has already been through,
/// which is what a memory limit sees. Where the process's memory cannot be read, one thread.
pub fn plane_threads(trace: &Trace) -> usize {
    let cores = crate::model::join::cores().min(MAX_PLANE_THREADS);
    let headroom = crate::measure::peak_headroom_bytes();
    let threads = threads_within(trace, cores, headroom);
    // The estimate for the chosen count is walked again only when the line is logged.
    crate::log_debug!(
        "planes built on {threads} of {cores} threads: {:.1} MB under the process's peak, at most {:.1} MB more held",
        headroom as f64 / 1e6,
        match threads {
            1 => 0,
            n => super::space::parallel_planes_bytes(trace, n - 1),
        } as f64
            / 1e6
    );
    threads
}

/// The most threads up to `threads` whose added memory fits in `headroom` bytes (at least one:
/// the writing thread alone adds nothing).
pub fn threads_within(trace: &Trace, threads: usize, headroom: u64) -> usize {
    (1..threads)
        .rev()
        .find(|&workers| super::space::parallel_planes_bytes(trace, workers) <= headroom)
        .map_or(1, |workers| workers + 1)
}

/// The default's bound: each thread holds a plane being built, so a large node's cores are not
/// all turned into planes held at once.
pub const MAX_PLANE_THREADS: usize = 4;

/// Writes an already-built XSpace atomically (temp file in the same directory, fsync, rename),
/// so xprof never sees a half-written file, even with several processes writing one run.
pub fn write_xspace_proto(space: &XSpace, layout: &OutputLayout) -> Result<PathBuf, WriteError> {
    let bytes = space.encode_to_vec();
    write_atomically(layout, |f| f.write_all(&bytes))
}

/// Writes `layout`'s file through `write` (which may seek in it), atomically as every file
/// of ours is written.
pub(crate) fn write_with(
    layout: &OutputLayout,
    write: impl FnOnce(&mut io::BufWriter<fs::File>) -> io::Result<()>,
) -> Result<PathBuf, WriteError> {
    write_atomically(layout, write)
}

/// Creates the run directory, writes the file through `write` into a fresh temporary file
/// ([`create_hidden`]) and gives it its name ([`put_in_place`]).
fn write_atomically(
    layout: &OutputLayout,
    write: impl FnOnce(&mut io::BufWriter<fs::File>) -> io::Result<()>,
) -> Result<PathBuf, WriteError> {
    let Hidden { file, tmp, named } = create_hidden(layout)?;
    let mut w = io::BufWriter::with_capacity(1 << 20, file);
    match write(&mut w).and_then(|()| w.into_inner().map_err(|e| e.into_error())) {
        Ok(file) => put_in_place(Hidden { file, tmp, named }, layout),
        Err(source) => {
            if named {
                let _ = fs::remove_file(&tmp);
            }
            Err(WriteError::Write { path: tmp, source })
        }
    }
}

/// A file written or assembled over time in `layout`'s run directory, open to read and
/// write: unnamed where the filesystem allows (`O_TMPFILE`: a process killed while it grows
/// leaves nothing behind), else under `tmp`, the hidden name a file of ours is written under
/// (`.<host>.xplane.pb.tmp.<pid>.<n>`). It takes its name through [`put_in_place`].
pub(crate) struct Hidden {
    pub(crate) file: fs::File,
    pub(crate) tmp: PathBuf,
    /// It is at `tmp` already.
    pub(crate) named: bool,
}

/// How many times a write makes its directory again when it vanished under it: another
/// process of the run removes a window's directory once it sees it empty, and an unnamed file
/// (`O_TMPFILE`) has no entry there to keep it.
const DIRECTORY_VANISHED_TRIES: usize = 3;

/// Makes `dir` (and its parents), refusing a foreign symlink.
fn make_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir).and_then(|()| refuse_foreign_symlink(dir))
}

/// `op` on an entry of `dir`, `dir` made again and `op` tried again while it finds `dir` gone
/// (see [`DIRECTORY_VANISHED_TRIES`]).
fn in_dir_made_again<T>(dir: &Path, mut op: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let mut tries = 0;
    loop {
        match op() {
            Err(e) if e.kind() == io::ErrorKind::NotFound && tries < DIRECTORY_VANISHED_TRIES => {
                tries += 1;
                make_dir(dir)?;
            }
            done => return done,
        }
    }
}

/// Creates the run directory and a fresh hidden file in it ([`Hidden`]).
pub(crate) fn create_hidden(layout: &OutputLayout) -> Result<Hidden, WriteError> {
    let dir = layout.run_dir();
    let tmp = dir.join(format!(
        ".{}.xplane.pb.tmp.{}.{}",
        layout.file_host(),
        std::process::id(),
        super::spill::unique_suffix()
    ));
    make_dir(&dir).map_err(|source| WriteError::CreateDir {
        path: dir.clone(),
        source,
    })?;
    let mut named = false;
    match in_dir_made_again(&dir, || create_temp(&dir, &tmp, &mut named)) {
        Ok(file) => Ok(Hidden { file, tmp, named }),
        Err(source) => Err(WriteError::Write { path: tmp, source }),
    }
}

/// Gives the file in `h` ([`create_hidden`]) `layout`'s name, as every file of ours takes
/// it: fsynced first when `layout.durable`, named `tmp` if it is not, closed (the hidden name
/// removed if any of these fails), renamed, the directory fsynced.
pub(crate) fn put_in_place(h: Hidden, layout: &OutputLayout) -> Result<PathBuf, WriteError> {
    let Hidden {
        file: f,
        tmp,
        mut named,
    } = h;
    let closed = (|| {
        if layout.durable {
            f.sync_all()?;
        }
        if !named {
            // Once named, the file keeps its directory from going.
            let dir = tmp.parent().unwrap_or(Path::new("."));
            in_dir_made_again(dir, || link_temp(&f, &tmp))?;
            named = true;
        }
        close_checked(f)
    })();
    if let Err(source) = closed {
        if named {
            let _ = fs::remove_file(&tmp);
        }
        return Err(WriteError::Write { path: tmp, source });
    }
    let path = layout.file_path();
    if let Err(source) = fs::rename(&tmp, &path) {
        let _ = fs::remove_file(&tmp);
        return Err(WriteError::Rename {
            from: tmp,
            to: path,
            source,
        });
    }
    let dir = layout.run_dir();
    // Make the rename itself durable; best effort (some filesystems refuse fsync on a dir).
    if layout.durable {
        if let Ok(d) = fs::File::open(&dir) {
            let _ = d.sync_all();
        }
    }
    remove_stale_xprof_caches(&dir, &layout.file_host());
    Ok(path)
}

/// A fresh file, open to read and write, for a write into `dir`: unnamed where the
/// filesystem allows it (`O_TMPFILE`: a process that ends while writing, a second signal or a
/// deadline at exit, leaves nothing behind, and the file gets its name `tmp` only once
/// complete), else created at `tmp` (`named` is then set). O_EXCL refuses anything already at that name, a symlink planted
/// there included, so the write can never land in a file someone else chose.
fn create_temp(dir: &Path, tmp: &Path, named: &mut bool) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // The name is given through /proc (`link_temp`): without it, a named file.
    if Path::new("/proc/self/fd").is_dir() {
        let unnamed = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .mode(0o644)
            .custom_flags(libc::O_TMPFILE | libc::O_CLOEXEC)
            .open(dir);
        match unnamed {
            Ok(f) => return Ok(f),
            Err(e) => crate::log_debug!(
                "{}: no unnamed files here ({e}): written under a hidden name",
                dir.display()
            ),
        }
    }
    let f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(tmp)?;
    *named = true;
    Ok(f)
}

/// Closes `f` and says what the close reports: a network filesystem (NFS) may report there a
/// write the server refused (its quota, its disk), which dropping the file would not say.
fn close_checked(f: fs::File) -> io::Result<()> {
    use std::os::fd::IntoRawFd;
    let fd = f.into_raw_fd();
    // SAFETY: `fd` was just released by its `File`, which no longer closes it: this is its
    // only close.
    if unsafe { libc::close(fd) } == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    // Linux has released the descriptor even then (it must not be closed again); what the
    // interrupted close would have said is not known.
    match e.raw_os_error() {
        Some(libc::EINTR) => Ok(()),
        _ => Err(e),
    }
}

/// Gives the unnamed file `f` (`create_temp`) the name `tmp`, which must not exist.
fn link_temp(f: &fs::File, tmp: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let c = |b: &[u8]| std::ffi::CString::new(b).map_err(io::Error::other);
    let from = c(format!("/proc/self/fd/{}", f.as_raw_fd()).as_bytes())?;
    let to = c(tmp.as_os_str().as_bytes())?;
    // SAFETY: both are NUL-terminated strings that live across the call; linkat reads only them.
    let linked = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if linked == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The run directory may be reached through a symlink the user made (their own choice), but
/// not through one another user planted in a shared directory (`/tmp/prof/...`) to steer a
/// process's writes (and the cache removal below) into a directory of the attacker's choosing.
fn refuse_foreign_symlink(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::symlink_metadata(dir)?;
    if !meta.file_type().is_symlink() {
        return Ok(());
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() == me || meta.uid() == 0 {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "the run directory is a symbolic link owned by another user (uid {}); not followed",
            meta.uid()
        ),
    ))
}

/// xprof's streaming trace viewer caches `<host>.SSTABLE` (and friends) beside the file and
/// reuses them whenever they exist, so a rewritten file would show the old trace.
fn remove_stale_xprof_caches(dir: &Path, host: &str) {
    for suffix in ["SSTABLE", "metadata.SSTABLE", "trie.SSTABLE"] {
        let _ = fs::remove_file(dir.join(format!("{host}.{suffix}")));
    }
}

/// Reads an `.xplane.pb` (plain binary XSpace).
pub fn read_xspace(path: impl AsRef<Path>) -> Result<XSpace, ReadError> {
    let path = path.as_ref();
    let bytes = fs::read(path).map_err(|source| ReadError::Io {
        path: path.to_owned(),
        source,
    })?;
    XSpace::decode(bytes.as_slice()).map_err(|source| ReadError::Decode {
        path: path.to_owned(),
        source,
    })
}

/// Whether run directory `dir_name` is one of run `run`'s windows (the tool names window `n` of run `run` `<run>_w<nnnn>`): `rocprof-xplane merge` finds them so.
pub fn is_window_of(run: &str, dir_name: &str) -> bool {
    dir_name
        .strip_prefix(&run_dir_name(&format!("{run}_w")))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    /// A profile's file name gives back the host it was written for, whatever the host
    /// (dots, non-ASCII); a write's temporary and other files give none.
    #[test]
    fn a_file_name_gives_back_its_host() {
        for host in ["h.1", "nodé.42", "a.b.c"] {
            let layout = super::OutputLayout {
                log_dir: "/l".into(),
                run_name: "r".into(),
                host: host.into(),
                durable: false,
            };
            let path = layout.file_path();
            let name = path.file_name().unwrap().to_str().unwrap();
            assert_eq!(super::host_of_file_name(name), Some(host));
        }
        for other in [
            ".h.1.xplane.pb.tmp.7.1",
            ".xplane.pb",
            "h.1.json",
            ".h.xplane.pb",
        ] {
            assert_eq!(super::host_of_file_name(other), None, "{other}");
        }
        // A window of run `r:x` is written as `r_x_w0001`.
        assert!(super::is_window_of(
            "r:x",
            &super::run_dir_name("r:x_w0001")
        ));
        assert!(!super::is_window_of("r:x", "r_x_w"));
        assert!(!super::is_window_of("r:x", "r_x_w00a1"));
        assert!(!super::is_window_of("r", "rr_w0001"));
    }

    use super::*;

    #[test]
    fn layout_paths_and_sanitizing() {
        let l = OutputLayout {
            log_dir: "/logs".into(),
            run_name: "2026_01_02_03_04_05".into(),
            host: "node:1/x".into(),
            durable: false,
        };
        assert_eq!(
            l.file_path(),
            PathBuf::from("/logs/plugins/profile/2026_01_02_03_04_05/node_1_x.xplane.pb")
        );
        assert_eq!(process_host_name("gpu-node-3", 4242), "gpu-node-3.4242");
        assert_eq!(sanitize_component(".."), "_");
    }

    /// Another process of the run removes a window's directory once it sees it empty, and an
    /// unnamed file being written there has no entry: the file still takes its name, in the
    /// directory made again.
    #[test]
    fn a_directory_removed_while_its_file_is_written_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let l = OutputLayout {
            log_dir: dir.path().join("logs"),
            run_name: "r_w0006".into(),
            host: "h".into(),
            durable: false,
        };
        let mut h = create_hidden(&l).unwrap();
        if h.named {
            // No unnamed files on this filesystem: the hidden name keeps the directory.
            return;
        }
        std::io::Write::write_all(&mut h.file, b"window").unwrap();
        fs::remove_dir(l.run_dir()).unwrap();
        let path = put_in_place(h, &l).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"window");
    }

    #[test]
    fn write_error_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        fs::write(&blocker, b"x").unwrap();
        let l = OutputLayout {
            log_dir: blocker.clone(),
            run_name: "r".into(),
            host: "h".into(),
            durable: false,
        };
        let err = write_xspace(&Trace::default(), &l).unwrap_err();
        assert!(matches!(err, WriteError::CreateDir { .. }), "{err}");
        assert!(
            err.to_string().contains(&blocker.display().to_string()),
            "{err}"
        );
    }

    #[test]
    fn a_run_directory_symlinked_by_another_user_is_refused() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::create_dir(&victim).unwrap();
        let l = OutputLayout {
            log_dir: dir.path().join("logs"),
            run_name: "r".into(),
            host: "h".into(),
            durable: false,
        };
        fs::create_dir_all(l.run_dir().parent().unwrap()).unwrap();
        symlink(&victim, l.run_dir()).unwrap();
        // Our own symlink is followed: the user chose it.
        let written = write_xspace(&Trace::default(), &l).unwrap();
        assert!(victim.join("h.xplane.pb").exists(), "{}", written.display());
        fs::remove_file(victim.join("h.xplane.pb")).unwrap();
        // Owned by someone else (as planted in a shared directory): refused, nothing written.
        let c = std::ffi::CString::new(l.run_dir().as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; lchown changes the link, not its target.
        let rc = unsafe { libc::lchown(c.as_ptr(), 65534, 65534) };
        if rc != 0 {
            // Not root: cannot give the link away, so the case cannot be set up here.
            return;
        }
        let err = write_xspace(&Trace::default(), &l).unwrap_err();
        assert!(
            err.to_string()
                .contains("symbolic link owned by another user"),
            "{err}"
        );
        assert_eq!(
            fs::read_dir(&victim).unwrap().count(),
            0,
            "nothing lands in the target"
        );
    }

    #[test]
    fn corrupt_file_is_a_decode_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.xplane.pb");
        fs::write(&p, [0x0a, 0xff, 0xff, 0xff, 0x0f, 1, 2]).unwrap();
        assert!(matches!(read_xspace(&p), Err(ReadError::Decode { .. })));
        assert!(matches!(
            read_xspace(dir.path().join("missing")),
            Err(ReadError::Io { .. })
        ));
    }
}
