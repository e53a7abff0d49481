//! A plane's finished lines, set aside in a file while the rest of the plane is built.
//!
//! A plane is one length-delimited entry of `XSpace.planes`: its length comes before its
//! bytes, so the writer cannot send a line to the output before the plane's last line is
//! built. Held in memory, the lines of the largest plane sat beside the whole joined trace at
//! the writer's peak (the stress run's device plane: about 60 MB; the MaxText-sized run's
//! host plane: about 250 MB). Past a threshold the lines go to an unlinked file in the run
//! directory instead, and are copied into the output once the plane's length is known: the
//! same bytes, the memory held is one line and the plane's metadata.
//!
//! The file is unlinked as soon as it is made, so nothing is left behind if the process dies;
//! it lives in the run directory (the output's filesystem, not a tmpfs `/tmp`), so its pages
//! are the kernel's to write back rather than the program's memory.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Where a plane's lines go once it holds more than `past` bytes of them.
#[derive(Debug, Clone)]
pub struct SpillPolicy {
    pub dir: PathBuf,
    pub past: usize,
}

/// Held line bytes past which a plane's lines go to a file: small planes (nearly all of them,
/// and every test's but the ones that ask) never touch the disk.
pub const SPILL_PAST: usize = 4 << 20;

impl SpillPolicy {
    /// Spill into `dir` past [`SPILL_PAST`] bytes.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        SpillPolicy {
            dir: dir.into(),
            past: SPILL_PAST,
        }
    }
}

/// The file the lines were written to, in order, each as its `XPlane.lines` entry.
#[derive(Debug)]
pub struct LineSpill {
    out: BufWriter<File>,
    bytes: usize,
}

impl LineSpill {
    /// A fresh file in `dir`, unlinked at once (the descriptor keeps it).
    pub fn create(dir: &Path) -> io::Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = dir.join(format!(
            ".rocprof-xplane-lines.{}.{}",
            std::process::id(),
            super::file::unique_suffix()
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
            out: BufWriter::with_capacity(1 << 16, f),
            bytes: 0,
        })
    }

    /// The file, flushed, for reading back.
    pub fn finish(self) -> io::Result<SpilledLines> {
        let bytes = self.bytes;
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        Ok(SpilledLines { file, bytes })
    }
}

/// Whole line entries are written into it (`builder`'s `write_line_entry`), counted.
impl Write for LineSpill {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.out.write(bytes)?;
        self.bytes += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
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
