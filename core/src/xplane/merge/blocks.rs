//! Room made in the middle of a file without moving its bytes through memory: Linux's
//! `fallocate(FALLOC_FL_INSERT_RANGE)` shifts everything from a block boundary on up by whole
//! blocks, leaving a hole there; `FALLOC_FL_COLLAPSE_RANGE` takes such blocks out again (the
//! undo). Both are ext4's and xfs's; elsewhere (tmpfs, NFS, Lustre, btrfs) the call says
//! EOPNOTSUPP or EINVAL, and the profile is assembled at exit instead (`inplace`).
//!
//! What fills a region of the profile up to its block boundary is a **padding field**: a
//! length-delimited field numbered [`PAD_FIELD`], which no message of `proto/xplane.proto`
//! uses, so every protobuf reader steps over it (prost drops it, C++ protobuf keeps it as an
//! unknown field).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

use crate::wire::{self, Field};

/// The padding field's number: no `XSpace`, `XPlane` or `XLine` field has it.
pub const PAD_FIELD: u32 = 2000;

const PAD: Field = Field::len(PAD_FIELD);

/// Bytes of the padding field's length: a padded varint of this many bytes (up to 2 MiB of
/// padding), so the field's size is any number from [`MIN_PAD`] on.
const PAD_LEN_BYTES: usize = 3;

/// The smallest padding field: its key and its length, nothing after.
pub const MIN_PAD: u64 = 2 + PAD_LEN_BYTES as u64;

/// The largest padding field.
const MAX_PAD: u64 = MIN_PAD + (1 << (7 * PAD_LEN_BYTES)) - 1;

/// A padding field exactly `len` bytes long (`len` from [`MIN_PAD`] to the largest a block
/// needs); zeros after its head.
pub fn padding(len: u64) -> io::Result<Vec<u8>> {
    if !(MIN_PAD..=MAX_PAD).contains(&len) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("no padding field is {len} bytes long"),
        ));
    }
    let key = wire::varints(&[PAD.key()]);
    debug_assert_eq!(key.len(), 2);
    let body = len - MIN_PAD;
    let mut b = Vec::with_capacity(len as usize);
    b.extend_from_slice(&key);
    for i in 0..PAD_LEN_BYTES {
        let seven = ((body >> (7 * i)) & 0x7f) as u8;
        b.push(if i + 1 < PAD_LEN_BYTES {
            seven | 0x80
        } else {
            seven
        });
    }
    b.resize(len as usize, 0);
    Ok(b)
}

/// The block size that offsets and lengths given to [`insert_range`] are multiples of.
pub fn block_size(f: &File) -> io::Result<u64> {
    use std::os::unix::fs::MetadataExt;
    let b = f.metadata()?.blksize();
    if b == 0 || !b.is_power_of_two() || b > MAX_PAD - MIN_PAD {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("a block of {b} bytes"),
        ));
    }
    Ok(b)
}

/// `len` bytes of hole at `at` (both multiples of the block size, `at` before the file's
/// end); the bytes from `at` on move up by `len`.
pub fn insert_range(f: &File, at: u64, len: u64) -> io::Result<()> {
    fallocate(f, libc::FALLOC_FL_INSERT_RANGE, at, len)
}

/// Takes `len` bytes at `at` out of the file (block multiples, ending before the file's end);
/// the bytes after move down.
pub fn collapse_range(f: &File, at: u64, len: u64) -> io::Result<()> {
    fallocate(f, libc::FALLOC_FL_COLLAPSE_RANGE, at, len)
}

fn fallocate(f: &File, mode: libc::c_int, at: u64, len: u64) -> io::Result<()> {
    let off =
        |v: u64| libc::off_t::try_from(v).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput));
    let (at, len) = (off(at)?, off(len)?);
    loop {
        // SAFETY: the descriptor is open for the call (borrowed from `f`); fallocate reads
        // only its integer arguments.
        let r = unsafe { libc::fallocate(f.as_raw_fd(), mode, at, len) };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

/// Whether `f`'s filesystem inserts ranges: tried on `f` itself, which must be empty, and left
/// empty. `Ok(false)` where the filesystem refuses (EOPNOTSUPP, EINVAL); another error (the
/// disk is full) is returned.
pub fn inserts_ranges(f: &File, block: u64) -> io::Result<bool> {
    f.set_len(2 * block)?;
    let tried = insert_range(f, block, block);
    f.set_len(0)?;
    match tried {
        Ok(()) => Ok(true),
        Err(e) if unsupported(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

/// What a filesystem without INSERT_RANGE says.
pub fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP | libc::EINVAL | libc::ENOSYS)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    /// A padding field of every size a block can need decodes as an unknown field: prost
    /// steps over it inside an `XLine`, before and between events.
    #[test]
    fn padding_is_skipped_by_prost_at_every_size() {
        use crate::xplane::proto::{XEvent, XLine};
        use prost::Message;
        let event = XEvent {
            metadata_id: 3,
            duration_ps: 7,
            ..XEvent::default()
        };
        for len in [
            MIN_PAD,
            MIN_PAD + 1,
            127,
            128,
            129,
            130,
            4095,
            4096,
            16389,
            65541,
        ] {
            let pad = padding(len).unwrap();
            assert_eq!(pad.len() as u64, len);
            let mut b = XLine {
                id: 4,
                ..XLine::default()
            }
            .encode_to_vec();
            b.extend_from_slice(&pad);
            prost::encoding::message::encode(4, &event, &mut b);
            b.extend_from_slice(&pad);
            prost::encoding::message::encode(4, &event, &mut b);
            b.extend_from_slice(&pad);
            let line = XLine::decode(b.as_slice()).unwrap();
            assert_eq!(line.id, 4);
            assert_eq!(line.events, [event.clone(), event.clone()], "{len}");
        }
        assert!(padding(MIN_PAD - 1).is_err());
    }

    /// Where the filesystem inserts ranges (this machine's ext4 does; a test run elsewhere
    /// says it could not try): a hole of one block in the middle moves the tail up unchanged,
    /// and collapsing it gives the file back byte for byte.
    #[test]
    fn an_inserted_range_moves_the_tail_and_collapses_back() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.path().join("p"))
            .unwrap();
        let block = block_size(&f).unwrap();
        if !inserts_ranges(&f, block).unwrap() {
            eprintln!(
                "SKIPPED: {} does not insert ranges (fallocate INSERT_RANGE)",
                dir.path().display()
            );
            return;
        }
        assert_eq!(f.metadata().unwrap().len(), 0, "the probe leaves it empty");
        let bytes: Vec<u8> = (0..3 * block + 100).map(|i| (i % 251) as u8).collect();
        f.write_all_at(&bytes, 0).unwrap();
        insert_range(&f, block, 2 * block).unwrap();
        let mut got = vec![0u8; bytes.len() + 2 * block as usize];
        f.read_exact_at(&mut got, 0).unwrap();
        let b = block as usize;
        assert_eq!(&got[..b], &bytes[..b]);
        assert!(
            got[b..3 * b].iter().all(|&x| x == 0),
            "a hole reads as zeros"
        );
        assert_eq!(&got[3 * b..], &bytes[b..]);
        // Not on a block boundary: refused, the file unchanged.
        assert!(insert_range(&f, 10, block).is_err());
        collapse_range(&f, block, 2 * block).unwrap();
        let mut back = vec![0u8; bytes.len()];
        f.read_exact_at(&mut back, 0).unwrap();
        assert_eq!(back, bytes);
        assert_eq!(f.metadata().unwrap().len(), bytes.len() as u64);
    }
}
