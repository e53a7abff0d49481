//! A plane's finished lines, out of memory while the rest of the plane is built.
//!
//! A plane is one length-delimited entry of `XSpace.planes`: its length comes before its
//! bytes, and is known only when the plane's last line is built. Held in memory, the lines of
//! the largest plane would sit beside the whole joined trace at the writer's peak (hundreds of
//! MB for a large run's host plane). Past a threshold they leave memory, by one of two ways;
//! either way the memory held is one line and the plane's metadata:
//!
//! * into the output itself, while it is the plane's turn there (`OutputTurn`: every plane
//!   before it written; `PlaneInOutput`): the plane's length is left as a padded varint and
//!   filled in at the end, and the lines are written once;
//! * else into an unlinked file in the run directory (`LineSpill`), until the plane's turn
//!   comes: mid-plane, its lines so far are copied into the output and the rest written there
//!   (`PlaneBuilder::add_line`); at the end, copied in once its length is known. A plane
//!   written by the file writer has its length padded either way, so the file's bytes do not
//!   depend on which way its lines went.
//!
//! The file is unlinked as soon as it is made, so nothing is left behind if the process dies;
//! it lives in the run directory (the output's filesystem, not a tmpfs `/tmp`), so its pages
//! are the kernel's to write back rather than the program's memory.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::wire::{self, Field, PADDED_LEN};

/// Where a plane's lines go once it holds more than `past` bytes of them: the output itself
/// while it is the plane's turn there (`output`), else a file of their own in `dir`.
#[derive(Debug, Clone)]
pub struct SpillPolicy {
    pub dir: PathBuf,
    pub past: usize,
    pub output: Option<OutputSlot>,
}

/// Held line bytes past which a plane's lines go to a file: small planes (nearly all of them,
/// and every test's but the ones that ask) never touch the disk.
pub const SPILL_PAST: usize = 4 << 20;

impl SpillPolicy {
    /// Spill into `dir` past [`SPILL_PAST`] bytes.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        Self::past(dir, SPILL_PAST)
    }

    /// Spill into `dir` past `past` bytes.
    pub fn past(dir: impl Into<PathBuf>, past: usize) -> Self {
        SpillPolicy {
            dir: dir.into(),
            past,
            output: None,
        }
    }

    /// Lines may go into `output` too, each plane in its turn (`for_plane`).
    pub fn with_output(self, output: Arc<OutputTurn>) -> Self {
        SpillPolicy {
            output: Some(OutputSlot {
                turn: output,
                plane: 0,
            }),
            ..self
        }
    }

    /// The same, for the plane written `plane`-th (from 0) into the output.
    pub fn for_plane(&self, plane: usize) -> Self {
        SpillPolicy {
            output: self.output.as_ref().map(|o| OutputSlot {
                turn: Arc::clone(&o.turn),
                plane,
            }),
            ..self.clone()
        }
    }
}

/// The output and whose turn it is to write there. The planes go into the output one after
/// the other, in a fixed order, while several are built at once: the plane whose turn it is
/// (every plane before it written and flushed) writes its lines straight into the output as it
/// builds them, and the others set theirs aside in a file until it is theirs. A plane set aside
/// takes the output as soon as its turn comes, mid-plane: what it had set aside is copied in
/// once and its later lines are written once: a plane built beside another that kept its file
/// to the end would, in a workload whose device plane outweighs the host plane, write most of
/// the profile's bytes twice and copy them once more.
#[derive(Debug)]
pub struct OutputTurn {
    file: OutputFile,
    /// Planes in the output so far: the next plane's place in the order.
    written: std::sync::atomic::AtomicUsize,
    /// Where the plane whose turn it is begins in the output.
    turn_start: std::sync::atomic::AtomicU64,
}

impl OutputTurn {
    /// The output (a duplicate of its descriptor), no plane written yet; `writeback`: see
    /// [`OutputFile::of`].
    pub fn of(output: &File, writeback: bool) -> io::Result<Arc<Self>> {
        let file = OutputFile::of(output, writeback)?;
        let start = (&file.file).stream_position()?;
        Ok(Arc::new(OutputTurn {
            file,
            written: std::sync::atomic::AtomicUsize::new(0),
            turn_start: std::sync::atomic::AtomicU64::new(start),
        }))
    }

    /// One more plane is in the output, written and flushed: the next one may write there,
    /// from where the output ends now.
    pub fn plane_written(&self) -> io::Result<()> {
        let end = (&self.file.file).stream_position()?;
        self.turn_start
            .store(end, std::sync::atomic::Ordering::Relaxed);
        // Release: the next plane's thread reads the output's offset after this plane's writes
        // (and `turn_start` with it).
        self.written
            .fetch_add(1, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// Makes the output end where the current turn began. Bytes past it were written in this
    /// turn by a plane that never finished: a worker that panicked mid-plane, after it took the
    /// output (its plane is then built again, by the writing thread, and written from here).
    pub fn rewind(&self) -> io::Result<()> {
        let start = self.turn_start.load(std::sync::atomic::Ordering::Relaxed);
        let mut f = &self.file.file;
        let at = f.stream_position()?;
        if at != start {
            crate::log_debug!(
                "a plane that did not finish left {} bytes in the output; they are taken out",
                at.saturating_sub(start)
            );
            f.set_len(start)?;
            f.seek(SeekFrom::Start(start))?;
        }
        Ok(())
    }
}

/// A plane's place in the output's order.
#[derive(Debug, Clone)]
pub struct OutputSlot {
    turn: Arc<OutputTurn>,
    plane: usize,
}

impl OutputSlot {
    /// The output, when it is this plane's turn to write there, ending where the turn began
    /// ([`OutputTurn::rewind`]).
    pub fn open(&self) -> Option<&OutputFile> {
        let turn = &self.turn;
        if turn.written.load(std::sync::atomic::Ordering::Acquire) != self.plane {
            return None;
        }
        // Should the output not be made to end there, the plane's lines are set aside, and
        // the writer's own rewind before the plane is written reports the error.
        turn.rewind()
            .map_err(|e| crate::log_debug!("the output could not be rewound: {e}"))
            .ok()?;
        Some(&turn.file)
    }
}

/// The output file, for planes whose lines go straight into it: a duplicate of its
/// descriptor, so it shares the output's offset. Opened to a plane ([`OutputSlot::open`]) only
/// while every plane before it is in the file (written and flushed): the plane's bytes then go
/// where they belong, and its lines are never copied. Its length comes first on the
/// wire and is known last, so it is written as a varint padded to `wire::PADDED_LEN` bytes
/// and filled in at the end (`wire::padded_varint`).
#[derive(Debug)]
pub struct OutputFile {
    file: File,
    writeback: bool,
}

impl OutputFile {
    /// The output's descriptor, duplicated; `writeback`: the pages of lines written into it
    /// are handed to the kernel's writeback as they are written (for an output fsynced at its
    /// end, `OutputLayout::durable`, whose fsync then waits for the last pages only).
    pub fn of(output: &File, writeback: bool) -> io::Result<Self> {
        let file = output.try_clone()?;
        Ok(OutputFile { file, writeback })
    }
}

/// A plane being written straight into the output: its entry's key, a padded length filled in
/// by [`PlaneInOutput::finish`], then its bytes as they come.
#[derive(Debug)]
pub struct PlaneInOutput {
    /// The plane's bytes so far, counted from what follows the length.
    out: CountedFile,
    /// Where the length goes in the output.
    len_at: u64,
}

impl PlaneInOutput {
    /// Starts an entry of `field` at the output's offset: its key, the length's place, then
    /// `leading` (the plane's first fields).
    pub fn start(output: &OutputFile, field: Field, leading: &[u8]) -> io::Result<Self> {
        let mut f = output.file.try_clone()?;
        let key_and_len = wire::padded_entry_head(field);
        let len_at = f.stream_position()? + (key_and_len.len() - PADDED_LEN) as u64;
        // Nothing reaches the file before the first 64 KiB: a failure above leaves it as it was.
        let mut head = BufWriter::with_capacity(1 << 16, f);
        head.write_all(&key_and_len)?;
        let mut out = CountedFile {
            out: head,
            bytes: 0,
            next_writeback: output.writeback.then_some(WRITEBACK_EVERY),
        };
        out.write_all(leading)?;
        Ok(PlaneInOutput { out, len_at })
    }

    /// Where the plane's lines are written.
    pub fn lines(&mut self) -> &mut CountedFile {
        &mut self.out
    }

    /// Writes the plane's last fields (`rest`) and its length; returns the bytes of its lines.
    pub fn finish(mut self, rest: &[u8], leading: usize) -> io::Result<usize> {
        self.out.write_all(rest)?;
        let (f, bytes) = self.out.into_file()?;
        let len = wire::padded_varint(bytes as u64)?;
        std::os::unix::fs::FileExt::write_all_at(&f, &len, self.len_at)?;
        Ok(bytes - rest.len() - leading)
    }
}

/// A buffered file that counts the bytes written through it.
#[derive(Debug)]
pub struct CountedFile {
    out: BufWriter<File>,
    bytes: usize,
    /// For the output's own lines: `bytes` past which the file's dirty pages are next handed
    /// to the kernel's writeback (`start_writeback`). None for a spill file, whose pages are
    /// read back soon and thrown away: writing them to disk would be wasted work.
    next_writeback: Option<usize>,
}

impl CountedFile {
    /// Appends the lines set aside so far (all of them, or an error), counted as written here.
    pub fn append(&mut self, lines: &SpilledLines) -> io::Result<()> {
        // Into the buffered writer: std copies a file into it with `copy_file_range`, in the
        // kernel, once the buffer is flushed.
        lines.copy_to(&mut self.out)?;
        self.count(lines.bytes);
        Ok(())
    }

    /// `n` more bytes written; the output's pages handed to the writeback past each step.
    fn count(&mut self, n: usize) {
        self.bytes += n;
        if self.next_writeback.is_some_and(|at| self.bytes >= at) {
            start_writeback(self.out.get_ref());
            self.next_writeback = Some((self.bytes / WRITEBACK_EVERY + 1) * WRITEBACK_EVERY);
        }
    }

    /// The file, flushed, and the bytes written.
    fn into_file(self) -> io::Result<(File, usize)> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        Ok((file, self.bytes))
    }
}

impl Write for CountedFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.out.write(bytes)?;
        self.count(n);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Bytes of the output written between two calls of [`start_writeback`] while a plane's lines
/// go into it.
pub const WRITEBACK_EVERY: usize = 32 << 20;

/// Asks the kernel to start writing the file's dirty pages to disk now, without waiting for
/// them (`sync_file_range(SYNC_FILE_RANGE_WRITE)` over the whole file; pages already being
/// written are left alone). The output is fsynced once written (`file::write_atomically`),
/// and that fsync waits for every page the write left dirty, the profiled program's exit
/// waiting on the disk. Started while the rest is still being encoded, the writeback overlaps
/// that work and the fsync waits for the last pages only. Best effort: a filesystem that does
/// not support it (or any error) leaves the pages to the fsync.
pub fn start_writeback(f: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: `f` is an open file for the duration of the call; offset 0 and length 0 mean
    // "to the end of the file"; the call reads no memory of ours.
    let _ = unsafe { libc::sync_file_range(f.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
}

/// The file the lines were written to, in order, each as its `XPlane.lines` entry.
#[derive(Debug)]
pub struct LineSpill {
    out: CountedFile,
}

impl LineSpill {
    /// A fresh file in `dir`, unlinked at once (the descriptor keeps it).
    pub fn create(dir: &Path) -> io::Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = dir.join(format!(
            ".rocprof-xplane-lines.{}.{}",
            std::process::id(),
            unique_suffix()
        ));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)?;
        // Best effort: a file that cannot be unlinked is still used, and removed at the end.
        let unlinked = std::fs::remove_file(&path).is_ok();
        if !unlinked {
            crate::log_debug!(
                "the plane's line file {} could not be unlinked",
                path.display()
            );
        }
        Ok(LineSpill {
            out: CountedFile {
                out: BufWriter::with_capacity(1 << 16, f),
                bytes: 0,
                next_writeback: None,
            },
        })
    }

    /// Where whole line entries are written (`builder`'s `write_line_entry`).
    pub fn lines(&mut self) -> &mut CountedFile {
        &mut self.out
    }

    /// The file, flushed, for reading back.
    pub fn finish(self) -> io::Result<SpilledLines> {
        let (file, bytes) = self.out.into_file()?;
        Ok(SpilledLines { file, bytes })
    }
}

/// A number for a file name no other file this process makes has (the time, and a count of
/// the names asked for): the output's temporary file and the line files beside it.
///
/// The count is a process-wide static because several threads (the device planes built side by
/// side, a merge beside a window's write) may ask within one clock tick, and the name must
/// differ for each whoever asks; nothing written depends on its value.
pub(crate) fn unique_suffix() -> u128 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    nanos ^ u128::from(COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// Lines written to a file, ready to be copied into the output.
#[derive(Debug)]
pub struct SpilledLines {
    file: File,
    bytes: usize,
}

impl SpilledLines {
    /// Bytes of the lines.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Copies the lines' bytes, all of them or an error, into `w`.
    pub fn copy_to(&self, w: &mut impl Write) -> io::Result<()> {
        let mut f = &self.file;
        f.seek(SeekFrom::Start(0))?;
        let copied = io::copy(&mut io::Read::take(f, self.bytes as u64), w)?;
        if copied != self.bytes as u64 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the plane's set-aside lines came back short: {copied} of {} bytes",
                    self.bytes
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The output's own lines hand their pages to the writeback every `WRITEBACK_EVERY` bytes
    /// (the final fsync then waits for the last ones only); a spill file, read back and thrown
    /// away, never does. Both keep every byte.
    #[test]
    fn the_outputs_lines_start_their_writeback_as_they_go_and_a_spill_file_never() {
        let dir = tempfile::tempdir().unwrap();
        let chunk = vec![0x5au8; 1 << 20];
        let total = 2 * WRITEBACK_EVERY + (3 << 20);
        let write = |out: &mut CountedFile| {
            for _ in 0..total / chunk.len() {
                out.write_all(&chunk).unwrap();
            }
            out.flush().unwrap();
            // Started once per `WRITEBACK_EVERY` bytes passed: the next is one further on.
            let started = out
                .next_writeback
                .map_or(0, |next| next / WRITEBACK_EVERY - 1);
            (started, out.bytes)
        };

        let output = std::fs::File::create(dir.path().join("out.pb")).unwrap();
        let planes = wire::xplane::space::PLANES;
        let mut plane =
            PlaneInOutput::start(&OutputFile::of(&output, true).unwrap(), planes, &[]).unwrap();
        assert_eq!(write(plane.lines()), (2, total));
        plane.finish(&[], 0).unwrap();
        assert_eq!(
            output.metadata().unwrap().len() as usize,
            1 + PADDED_LEN + total
        );

        let mut spill = LineSpill::create(dir.path()).unwrap();
        assert_eq!(write(spill.lines()), (0, total));
        assert_eq!(spill.finish().unwrap().bytes(), total);
    }
}
