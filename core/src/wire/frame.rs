//! Field keys and length-delimited entries: their lengths, their heads, the padded length of
//! an entry written before its length is known, and a message's encoding split where a
//! repeated field's entries go.

use std::io;

use prost::encoding::{encoded_len_varint, key_len, WireType};
use prost::Message;

use super::varint::varints;

/// A field of a message: its number and wire type, which make its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub number: u32,
    pub wire: WireType,
}

impl Field {
    pub const fn varint(number: u32) -> Self {
        Field {
            number,
            wire: WireType::Varint,
        }
    }

    pub const fn len(number: u32) -> Self {
        Field {
            number,
            wire: WireType::LengthDelimited,
        }
    }

    pub const fn fixed64(number: u32) -> Self {
        Field {
            number,
            wire: WireType::SixtyFourBit,
        }
    }

    /// The key: the number, then the wire type in the low three bits.
    pub const fn key(self) -> u64 {
        (self.number as u64) << 3 | self.wire as u64
    }

    /// The key as the one byte it takes (a field numbered below 16).
    pub const fn key_byte(self) -> u8 {
        assert!(self.number < 16, "a key of more than one byte");
        self.key() as u8
    }
}

/// Length of a message of `len` bytes as a length-delimited entry of `field` (key and length
/// included).
pub fn entry_len(field: Field, len: usize) -> usize {
    key_len(field.number) + encoded_len_varint(len as u64) + len
}

/// Writes the key and length of an entry of `field`; its `len` bytes follow.
pub fn write_entry_head(field: Field, len: usize, w: &mut impl io::Write) -> io::Result<()> {
    debug_assert_eq!(field.wire, WireType::LengthDelimited);
    w.write_all(&varints(&[field.key(), len as u64]))
}

/// Bytes of a padded length: 35 bits, 32 GiB, past what protobuf readers accept (2 GiB).
pub const PADDED_LEN: usize = 5;

/// `len` as a varint of exactly [`PADDED_LEN`] bytes: continuation bits on all but the last.
/// Protobuf decoders read a padded varint as the same number (prost, and xprof:
/// `tests/xprof_synthetic.rs`), so an entry's length can be written before its bytes as room
/// to fill in once they are.
pub fn padded_varint(len: u64) -> io::Result<[u8; PADDED_LEN]> {
    if len >> (7 * PADDED_LEN) != 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a plane of {len} bytes is past what a protobuf length can say here"),
        ));
    }
    let mut b = [0u8; PADDED_LEN];
    for (i, byte) in b.iter_mut().enumerate() {
        *byte = ((len >> (7 * i)) & 0x7f) as u8 | if i + 1 < PADDED_LEN { 0x80 } else { 0 };
    }
    Ok(b)
}

/// Writes the key of an entry of `field` and its length `len` padded to [`PADDED_LEN`] bytes,
/// as an entry whose length was filled in once known has them.
pub fn write_padded_entry_head(field: Field, len: u64, w: &mut impl io::Write) -> io::Result<()> {
    debug_assert_eq!(field.wire, WireType::LengthDelimited);
    w.write_all(&varints(&[field.key()]))?;
    w.write_all(&padded_varint(len)?)
}

/// The head of an entry of `field` whose length is not known yet: its key, then a padded
/// length of 0 (a well-formed varint), to be overwritten by [`padded_varint`] of the length
/// once it is known, at `head.len() - PADDED_LEN`.
pub fn padded_entry_head(field: Field) -> Vec<u8> {
    debug_assert_eq!(field.wire, WireType::LengthDelimited);
    let mut head = varints(&[field.key()]);
    head.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x00]);
    head
}

/// The encoding of `leading` followed by the rest of `whole`'s fields, and where a repeated
/// field numbered between the two goes: `leading` holds the fields that precede it on the
/// wire (moved out of `whole`, so nothing is cloned), `whole` the fields that follow (its
/// leading fields left at their defaults, which encode to nothing). prost writes a message's
/// fields in the order of their numbers, so entries written at the split are where prost
/// would write them.
pub fn around_repeated<M: Message>(leading: &M, whole: M) -> (Vec<u8>, usize) {
    let split = leading.encoded_len();
    let mut head = Vec::with_capacity(split + whole.encoded_len());
    leading.encode_raw(&mut head);
    whole.encode_raw(&mut head);
    (head, split)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_padded_length_decodes_as_the_number_and_refuses_what_it_cannot_say() {
        for len in [0u64, 1, 127, 128, 300, 4 << 20, (1 << 35) - 1] {
            let b = padded_varint(len).unwrap();
            assert!(b[..PADDED_LEN - 1].iter().all(|x| x & 0x80 != 0), "{b:?}");
            assert_eq!(b[PADDED_LEN - 1] & 0x80, 0, "{b:?}");
            let mut read = &b[..];
            assert_eq!(prost::encoding::decode_varint(&mut read).unwrap(), len);
            assert!(read.is_empty());
        }
        let e = padded_varint(1 << 35).unwrap_err();
        assert!(e.to_string().contains("past what a protobuf length"), "{e}");
        let head = padded_entry_head(Field::len(1));
        assert_eq!(head[..1], [0x0a]);
        assert_eq!(head[1..], padded_varint(0).unwrap());
    }

    #[test]
    fn an_entry_head_is_prost_s() {
        for (number, len) in [(1, 0usize), (3, 127), (4, 128), (2047, 70_000)] {
            let field = Field::len(number);
            let mut want = Vec::new();
            prost::encoding::encode_key(number, WireType::LengthDelimited, &mut want);
            prost::encoding::encode_varint(len as u64, &mut want);
            let mut got = Vec::new();
            write_entry_head(field, len, &mut got).unwrap();
            assert_eq!(got, want);
            assert_eq!(entry_len(field, len), want.len() + len);
        }
    }
}
