//! Varints: written in runs into a vector's spare room, read from slices by prost's rules.

use std::io;
use std::mem::MaybeUninit;

/// A few keys and varints written straight into the spare room of the vector they belong to,
/// whose length is set once at the end. prost's `encode_varint` appends a byte at a time
/// through `BufMut`: a capacity check and a length store per byte, on every event and stat the
/// writer encodes. A run writes its bytes in place, in order, and never reads them back: a
/// run staged elsewhere and copied in reads bytes just stored one at a time, which makes the
/// load wait for the stores to reach the cache. The run holds the spare room as a slice taken
/// once, not through the vector: its bounds and the count written stay in registers, where a
/// vector's length and capacity, read through the vector, may be loaded again after each byte
/// stored (a byte store may alias them, wherever the vector lies).
pub struct WireRun<'v> {
    /// The vector, held for the run's lifetime (its length is set by [`Self::done`]).
    out: *mut Vec<u8>,
    /// Its spare room, where the run writes.
    room: &'v mut [MaybeUninit<u8>],
    /// The vector's length when the run began.
    len: usize,
    /// Bytes written from `room`'s first.
    n: usize,
}

/// Room for the longest run written: an event's head (4 keys, 4 varints of up to 10 bytes).
pub const WIRE_RUN_BYTES: usize = 48;
/// The bytes of the longest varint (a u64 in 7-bit groups).
const MAX_VARINT_BYTES: usize = 10;

impl<'v> WireRun<'v> {
    /// A run appended to `out`, with room for the longest run made.
    #[inline]
    pub fn on(out: &'v mut Vec<u8>) -> Self {
        Self::with_room(out, 0)
    }

    /// A run appended to `out`, with room for the longest run made and `extra` bytes more
    /// (bytes the run copies in whole: [`Self::slice`]).
    #[inline]
    pub fn with_room(out: &'v mut Vec<u8>, extra: usize) -> Self {
        out.reserve(WIRE_RUN_BYTES + extra);
        let len = out.len();
        let out: *mut Vec<u8> = out;
        // SAFETY: `out` comes from a `&'v mut Vec<u8>`, so it is valid and unaliased for 'v;
        // the slice borrows the vector's heap buffer (past its length), not the `Vec` itself,
        // which the run touches again only in `done`, through `out`, to set its length.
        let room = unsafe { (*out).spare_capacity_mut() };
        WireRun {
            out,
            room,
            len,
            n: 0,
        }
    }

    /// Bytes already encoded (an event's stats), copied in without a call for the usual few
    /// dozen ([`copy_small`]). The room for them is the caller's: [`Self::with_room`].
    // Always: an event writes one, and a call would save registers around it as `memcpy`'s.
    #[inline(always)]
    pub fn slice(&mut self, b: &[u8]) {
        let at = self.n;
        copy_small(&mut self.room[at..at + b.len()], b);
        self.n += b.len();
    }

    /// Overwrites byte `i` of the run (counted from its first), one it wrote: a length left
    /// as a placeholder until the bytes after it were written.
    #[inline]
    pub fn set(&mut self, i: usize, b: u8) {
        assert!(i < self.n, "a byte the run did not write");
        self.room[i].write(b);
    }

    /// Bytes written so far.
    #[inline]
    pub fn written(&self) -> usize {
        self.n
    }

    /// One byte: a key of a field numbered below 16.
    #[inline]
    pub fn byte(&mut self, b: u8) {
        self.room[self.n].write(b);
        self.n += 1;
    }

    /// `N` bytes, checked against the room once: keys and lengths of one byte each.
    #[inline]
    pub fn bytes<const N: usize>(&mut self, b: [u8; N]) {
        let room = &mut self.room[self.n..self.n + N];
        for (slot, byte) in room.iter_mut().zip(b) {
            slot.write(byte);
        }
        self.n += N;
    }

    /// Base-128, least significant group first, the high bit marking "more": protobuf's varint.
    /// The ten bytes a varint may take are one slice, checked once: the loop's bound is the
    /// slice's, so its bytes are written without a check each.
    #[inline]
    pub fn varint(&mut self, mut v: u64) {
        let at = self.n;
        let room = &mut self.room[at..at + MAX_VARINT_BYTES];
        for (i, byte) in room.iter_mut().enumerate() {
            if v < 0x80 {
                byte.write(v as u8);
                self.n = at + i + 1;
                return;
            }
            byte.write(v as u8 | 0x80);
            v >>= 7;
        }
    }

    /// As [`Self::varint`], for a value that is often long (an event's offset in ps from its
    /// line's start: six to eight bytes): the length is worked out first and each length has
    /// its bytes written in a straight line, one branch on the length in all, where the loop
    /// tests every byte.
    #[inline]
    pub fn long_varint(&mut self, v: u64) {
        if v < 0x80 {
            return self.byte(v as u8);
        }
        let at = self.n;
        let Ok(room) = <&mut [MaybeUninit<u8>; MAX_VARINT_BYTES]>::try_from(
            &mut self.room[at..at + MAX_VARINT_BYTES],
        ) else {
            unreachable!("the room is cut to its length")
        };
        self.n = at + by_length(room, v);
    }

    /// Makes the run's bytes part of the vector.
    #[inline]
    pub fn done(self) {
        // SAFETY: `out` is the run's vector, borrowed for 'v and not touched otherwise while
        // the run held it (the run's `room` is its spare buffer, not the `Vec`); the `n` bytes
        // past its length are initialized: `byte`, `bytes`, `varint`, `long_varint` and
        // `slice` wrote each of them, in order, through `room`'s bounds-checked slots (`set`
        // only overwrites one of them), so `len + n` is within its capacity.
        unsafe { (*self.out).set_len(self.len + self.n) };
    }
}

/// The most bytes [`copy_small`] copies in pieces; it copies longer ones by a loop (a `memcpy`).
const SMALL_COPY_BYTES: usize = 64;

/// Copies `src` into `dst` (of the same length). A few dozen bytes (an event's stats) are
/// copied as two to five pieces of 16, 8, 4, 2 or 1 bytes, the last one overlapping the one
/// before it, with no call: `copy_from_slice` (and a loop over the bytes, which the compiler
/// makes one) calls `memcpy`, whose call and the registers saved around it cost more than
/// the copy of such a run.
#[inline(always)]
pub(crate) fn copy_small(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    let len = src.len();
    assert_eq!(dst.len(), len, "a copy between slices of different lengths");
    // The usual stats first: one compare of the length's range.
    if len.wrapping_sub(16) <= SMALL_COPY_BYTES - 16 {
        let mut i = 0;
        while i + 16 <= len {
            piece::<16>(&mut dst[i..i + 16], &src[i..i + 16]);
            i += 16;
        }
        if i < len {
            piece::<16>(&mut dst[len - 16..], &src[len - 16..]);
        }
        return;
    }
    match len {
        0 => {}
        1 => piece::<1>(dst, src),
        2..4 => {
            piece::<2>(&mut dst[..2], &src[..2]);
            piece::<2>(&mut dst[len - 2..], &src[len - 2..]);
        }
        4..8 => {
            piece::<4>(&mut dst[..4], &src[..4]);
            piece::<4>(&mut dst[len - 4..], &src[len - 4..]);
        }
        8..16 => {
            piece::<8>(&mut dst[..8], &src[..8]);
            piece::<8>(&mut dst[len - 8..], &src[len - 8..]);
        }
        _ => {
            for (d, &s) in dst.iter_mut().zip(src) {
                d.write(s);
            }
        }
    }
}

/// Writes the varint of `v` from `at`, as [`WireRun::varint`]; gives its length (1 to 10).
///
/// # Safety
/// `at` is valid for writes of [`MAX_VARINT_BYTES`] bytes.
#[inline(always)]
pub(crate) unsafe fn raw_varint(at: *mut u8, mut v: u64) -> usize {
    let mut i = 0;
    while v >= 0x80 {
        // SAFETY: `i` < 9 here (each turn takes 7 of the 64 bits), within the caller's room.
        unsafe { at.add(i).write(v as u8 | 0x80) };
        v >>= 7;
        i += 1;
    }
    // SAFETY: `i` <= 9, as above.
    unsafe { at.add(i).write(v as u8) };
    i + 1
}

/// Writes the varint of `v` from `at`, as [`WireRun::long_varint`]; gives its length.
///
/// # Safety
/// `at` is valid for writes of [`MAX_VARINT_BYTES`] bytes.
#[inline(always)]
pub(crate) unsafe fn raw_long_varint(at: *mut u8, v: u64) -> usize {
    if v < 0x80 {
        // SAFETY: the first byte of the caller's room.
        unsafe { at.write(v as u8) };
        return 1;
    }
    // SAFETY: the caller's room is `MAX_VARINT_BYTES` bytes from `at`, and nothing else
    // refers to it while the array does.
    let room = unsafe { &mut *at.cast::<[MaybeUninit<u8>; MAX_VARINT_BYTES]>() };
    by_length(room, v)
}

/// `N` bytes of `src` into `dst` (both `N` long) as one load and one store.
#[inline(always)]
fn piece<const N: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    let (Ok(d), Ok(s)) = (
        <&mut [MaybeUninit<u8>; N]>::try_from(dst),
        <&[u8; N]>::try_from(src),
    ) else {
        unreachable!("pieces are cut to their length")
    };
    *d = s.map(MaybeUninit::new);
}

/// The varint of `v` (two bytes or more) at the start of `room`, written by its length (no
/// test of each byte); the bytes it took.
#[inline(always)]
fn by_length(room: &mut [MaybeUninit<u8>; MAX_VARINT_BYTES], v: u64) -> usize {
    let len = prost::encoding::encoded_len_varint(v);
    match len {
        2 => sized::<2>(room, v),
        3 => sized::<3>(room, v),
        4 => sized::<4>(room, v),
        5 => sized::<5>(room, v),
        6 => sized::<6>(room, v),
        7 => sized::<7>(room, v),
        8 => sized::<8>(room, v),
        9 => sized::<9>(room, v),
        _ => sized::<10>(room, v),
    }
    len
}

/// The varint of `v` in the first `N` bytes of `room`, `N` the bytes it takes (at least 2).
#[inline(always)]
fn sized<const N: usize>(room: &mut [MaybeUninit<u8>; MAX_VARINT_BYTES], mut v: u64) {
    for slot in &mut room[..N - 1] {
        slot.write(v as u8 | 0x80);
        v >>= 7;
    }
    room[N - 1].write(v as u8);
}

/// `values` as varints, one after the other: the runs written once per plane or line rather
/// than per event.
pub fn varints(values: &[u64]) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut run = WireRun::on(&mut bytes);
    for &v in values {
        run.varint(v);
    }
    run.done();
    bytes
}

/// The varint at `b[*at..]`, `at` moved past it, by prost's rules (at most ten bytes, the tenth
/// at most 1; the tests check them against prost's `decode_varint`): a one-byte varint here,
/// without a call (keys and most ids take one byte), a longer one by a loop over its bytes.
#[inline(always)]
pub fn varint_at(b: &[u8], at: &mut usize) -> io::Result<u64> {
    match b.get(*at) {
        Some(&byte) if byte < 0x80 => {
            *at += 1;
            Ok(u64::from(byte))
        }
        _ => long_varint_at(b, at),
    }
}

#[inline(never)]
fn long_varint_at(b: &[u8], at: &mut usize) -> io::Result<u64> {
    let mut v = 0u64;
    for i in 0..MAX_VARINT_BYTES {
        let Some(&byte) = b.get(*at) else {
            return Err(invalid("a varint runs past its message"));
        };
        *at += 1;
        if i == MAX_VARINT_BYTES - 1 && byte > 1 {
            break;
        }
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Ok(v);
        }
    }
    Err(invalid("a varint of over 64 bits"))
}

/// An error of damaged bytes, saying what.
pub fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EDGES: [u64; 11] = [
        0,
        1,
        127,
        128,
        300,
        16_383,
        16_384,
        u32::MAX as u64,
        (-1i64) as u64,
        i64::MIN as u64,
        u64::MAX,
    ];

    #[test]
    fn wire_runs_write_the_varints_prost_writes() {
        // After what the vector held, whatever its room.
        let mut got = vec![7u8; 3];
        let mut run = WireRun::on(&mut got);
        let mut want = vec![7u8; 3];
        run.byte(0x22);
        want.push(0x22);
        for v in EDGES.iter().take(4) {
            run.varint(*v);
            prost::encoding::encode_varint(*v, &mut want);
        }
        run.done();
        assert_eq!(got, want);
        // The longest values, one run each (a run holds an event head: up to 44 bytes), into
        // a vector with no room to spare.
        for v in EDGES {
            let mut got = Vec::with_capacity(1);
            got.push(9);
            let mut run = WireRun::on(&mut got);
            for _ in 0..4 {
                run.varint(v);
            }
            run.done();
            let mut want = vec![9];
            for _ in 0..4 {
                prost::encoding::encode_varint(v, &mut want);
            }
            assert_eq!(got, want, "{v}");
            assert_eq!(
                varints(&[v, v]),
                want[1..1 + want.len() / 2].to_vec(),
                "{v}"
            );
        }
    }

    /// Every size of varint, by both of a run's ways of writing one, is prost's: each power
    /// of two and its neighbours, and values of every bit pattern.
    #[test]
    fn every_size_of_varint_is_prost_s() {
        let mut values: Vec<u64> = (0..64)
            .flat_map(|b| {
                let p = 1u64 << b;
                [p - 1, p, p + 1, p | (p >> 1), (p - 1) ^ 0x55]
            })
            .collect();
        values.push(u64::MAX);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..5_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            values.push(x >> (x % 64));
        }
        for v in values {
            let mut want = vec![0xee];
            prost::encoding::encode_varint(v, &mut want);
            want.push(0x10);
            for long in [false, true] {
                let mut got = vec![0xee];
                let mut run = WireRun::on(&mut got);
                if long {
                    run.long_varint(v);
                } else {
                    run.varint(v);
                }
                run.byte(0x10);
                run.done();
                assert_eq!(got, want, "{v:#x}, long {long}");
            }
        }
    }

    /// A run's copied bytes are the bytes given, at every length of every way it copies
    /// (single bytes, the overlapping 2-, 4-, 8- and 16-byte pieces, and past
    /// `SMALL_COPY_BYTES`), after other bytes of the run, into a vector with no room to spare
    /// and one with room beyond.
    #[test]
    fn runs_copy_slices_of_every_length_as_they_are() {
        for len in 0..=SMALL_COPY_BYTES * 2 + 3 {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            for spare in [0usize, 40] {
                let mut got = Vec::with_capacity(2 + spare);
                got.push(0xaa);
                let mut run = WireRun::with_room(&mut got, len);
                run.byte(0x22);
                run.slice(&src);
                run.varint(300);
                assert_eq!(run.written(), 1 + len + 2);
                run.done();
                let mut want = vec![0xaa, 0x22];
                want.extend_from_slice(&src);
                prost::encoding::encode_varint(300, &mut want);
                assert_eq!(got, want, "{len} bytes");
            }
        }
        // A byte set in place after it was written, and the run's bytes around it.
        let mut got = vec![5];
        let mut run = WireRun::on(&mut got);
        run.bytes([1, 0, 3]);
        run.set(1, 2);
        run.done();
        assert_eq!(got, [5, 1, 2, 3]);
    }

    #[test]
    #[should_panic(expected = "a byte the run did not write")]
    fn a_run_sets_only_bytes_it_wrote() {
        let mut v = Vec::new();
        let mut run = WireRun::on(&mut v);
        run.byte(1);
        run.set(1, 0);
    }

    /// What prost reads, this reads, and it refuses what prost refuses: bytes that end inside
    /// a varint, an eleventh byte, a tenth byte above 1.
    #[test]
    fn varints_are_read_as_prost_reads_them() {
        for v in EDGES {
            let mut b = vec![0xff];
            prost::encoding::encode_varint(v, &mut b);
            b.push(0x55);
            let mut at = 1;
            assert_eq!(varint_at(&b, &mut at).unwrap(), v);
            assert_eq!(at, b.len() - 1, "{v}");
        }
        let damaged: [(&[u8], &str); 4] = [
            (&[], "runs past"),
            (&[0x80, 0x80], "runs past"),
            (&[0xff; 11], "over 64 bits"),
            (
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
                "over 64",
            ),
        ];
        for (b, what) in damaged {
            let mut prost_read = b;
            assert!(prost::encoding::decode_varint(&mut prost_read).is_err());
            let e = varint_at(b, &mut 0).unwrap_err();
            assert!(e.to_string().contains(what), "{b:?}: {e}");
        }
        let padded = [0x85, 0x80, 0x80, 0x80, 0x00];
        assert_eq!(varint_at(&padded, &mut 0).unwrap(), 5);
    }
}
