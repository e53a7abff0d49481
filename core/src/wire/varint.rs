//! Varints: written in runs into a vector's spare room, read from slices by prost's rules.

use std::io;

/// A few keys and varints written straight into the spare room of the vector they belong to,
/// whose length is set once at the end. prost's `encode_varint` appends a byte at a time
/// through `BufMut`: a capacity check and a length store per byte, on every event and stat the
/// writer encodes. A run writes its bytes in place, in order, and never reads them back: a
/// run staged elsewhere and copied in reads bytes just stored one at a time, which makes the
/// load wait for the stores to reach the cache.
pub struct WireRun<'v> {
    out: &'v mut Vec<u8>,
    /// Bytes written past `out`'s length.
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
        out.reserve(WIRE_RUN_BYTES);
        WireRun { out, n: 0 }
    }

    /// One byte: a key of a field numbered below 16.
    #[inline]
    pub fn byte(&mut self, b: u8) {
        self.out.spare_capacity_mut()[self.n].write(b);
        self.n += 1;
    }

    /// `N` bytes, checked against the room once: keys and lengths of one byte each.
    #[inline]
    pub fn bytes<const N: usize>(&mut self, b: [u8; N]) {
        let room = &mut self.out.spare_capacity_mut()[self.n..self.n + N];
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
        let room = &mut self.out.spare_capacity_mut()[at..at + MAX_VARINT_BYTES];
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

    /// Makes the run's bytes part of the vector.
    #[inline]
    pub fn done(self) {
        let len = self.out.len() + self.n;
        // SAFETY: the `n` bytes past the length are initialized: `byte` and `varint` wrote
        // each of them, in order, through the spare room's bounds-checked slots, and the
        // vector was not touched otherwise while the run held it.
        unsafe { self.out.set_len(len) };
    }
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
