//! Copying a byte range of one file into another: in the kernel where the filesystem can
//! (`copy_file_range`: on ext4/xfs/btrfs no bytes pass through user space), else through a
//! buffer. The in-place assembly copies to a given offset of the profile it grows; the splice
//! appends to the writer's file.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;

/// Where a copy's bytes go.
pub(super) enum Dest<'a> {
    /// At this offset of the file (its own file offset untouched).
    At(&'a File, u64),
    /// At the file's own offset, which the copy advances (a flushed writer's file).
    End(&'a File),
}

/// Copies `len` bytes of `from` at `at` into `to`. A source that ends first is an error.
pub(super) fn copy_range(from: &File, at: u64, len: u64, to: Dest<'_>) -> io::Result<()> {
    let off = |v: u64| i64::try_from(v).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput));
    let (file, mut dst) = match to {
        Dest::At(f, dst) => (f, Some(off(dst)?)),
        Dest::End(f) => (f, None),
    };
    let (mut src, mut left) = (off(at)?, len);
    while left > 0 {
        let chunk = usize::try_from(left.min(1 << 30)).unwrap_or(1 << 30);
        let out = dst.as_mut().map_or(std::ptr::null_mut(), |d| d as *mut i64);
        // SAFETY: both descriptors are open for the call (borrowed from `from` and `file`);
        // `src` and `dst` are live locals the call reads and advances; a null output offset
        // writes at (and advances) the output file's own offset.
        let n = unsafe {
            libc::copy_file_range(from.as_raw_fd(), &mut src, file.as_raw_fd(), out, chunk, 0)
        };
        if n > 0 {
            left -= n as u64;
            continue;
        }
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "an input ended before its indexed events",
            ));
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::ENOSYS | libc::EXDEV | libc::EINVAL | libc::EOPNOTSUPP | libc::EBADF) => {
                return by_reading(from, src as u64, left, file, dst.map(|d| d as u64));
            }
            _ => return Err(e),
        }
    }
    Ok(())
}

/// The fallback: through a buffer of at most 1 MiB, to `dst` or at the file's own offset.
fn by_reading(
    from: &File,
    mut at: u64,
    mut left: u64,
    mut to: &File,
    mut dst: Option<u64>,
) -> io::Result<()> {
    let mut buf = vec![0u8; left.min(1 << 20) as usize];
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        from.read_exact_at(&mut buf[..want], at)?;
        match dst.as_mut() {
            Some(d) => {
                to.write_all_at(&buf[..want], *d)?;
                *d += want as u64;
            }
            None => to.write_all(&buf[..want])?,
        }
        at += want as u64;
        left -= want as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom};

    fn source() -> (File, Vec<u8>) {
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&bytes).unwrap();
        (f, bytes)
    }

    fn contents(mut f: &File) -> Vec<u8> {
        let mut v = Vec::new();
        f.seek(SeekFrom::Start(0)).unwrap();
        f.read_to_end(&mut v).unwrap();
        v
    }

    #[test]
    fn copies_to_an_offset_and_to_the_end_in_the_kernel_and_through_a_buffer() {
        let (from, bytes) = source();
        let (at, len) = (1_000_003u64, 1_500_000u64);
        let want = &bytes[at as usize..(at + len) as usize];
        for kernel in [true, false] {
            // To an offset: what lies before it is kept; the file's own offset is not moved.
            let mut to = tempfile::tempfile().unwrap();
            to.write_all(b"head").unwrap();
            if kernel {
                copy_range(&from, at, len, Dest::At(&to, 2)).unwrap();
            } else {
                by_reading(&from, at, len, &to, Some(2)).unwrap();
            }
            assert_eq!(to.stream_position().unwrap(), 4, "kernel: {kernel}");
            let got = contents(&to);
            assert_eq!(&got[..2], b"he");
            assert!(got[2..] == *want, "kernel: {kernel}");
            // To the end: after what the file holds, its offset advanced past the copy.
            let mut to = tempfile::tempfile().unwrap();
            to.write_all(b"head").unwrap();
            if kernel {
                copy_range(&from, at, len, Dest::End(&to)).unwrap();
            } else {
                by_reading(&from, at, len, &to, None).unwrap();
            }
            assert_eq!(to.stream_position().unwrap(), 4 + len, "kernel: {kernel}");
            let got = contents(&to);
            assert_eq!(&got[..4], b"head");
            assert!(got[4..] == *want, "kernel: {kernel}");
        }
    }

    #[test]
    fn a_source_that_ends_first_is_an_error() {
        let (from, bytes) = source();
        let to = tempfile::tempfile().unwrap();
        let at = bytes.len() as u64 - 10;
        let e = copy_range(&from, at, 20, Dest::At(&to, 0)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        let e = copy_range(&from, at, 20, Dest::End(&to)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }
}
