//! Reading a message field by field: from a slice ([`Fields`]), or from a part of a file
//! through a window of its own ([`FileFields`]), without decoding the message whole.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use super::frame::Field;
use super::varint::{invalid, varint_at};

/// A field's value as read from a slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValue<'a> {
    Varint(u64),
    /// A length-delimited value: its bytes, length left out.
    Len(&'a [u8]),
    /// A fixed-width value (8 or 4 bytes).
    Fixed(&'a [u8]),
}

/// The fields of one encoded message, in order: each as its key (number and wire type, any
/// number) and value. A wire type no field has (groups, 6, 7) and a value past the message's
/// end are errors, saying `what` the message is. Varints are read by prost's `decode_varint`,
/// inlined, on the rest of the message.
pub struct Fields<'a> {
    b: &'a [u8],
    /// The message from the next field on.
    rest: &'a [u8],
    /// Where the value of the field read last starts (after its key).
    value_at: usize,
    what: &'static str,
}

impl<'a> Fields<'a> {
    pub fn new(b: &'a [u8], what: &'static str) -> Self {
        Fields {
            b,
            rest: b,
            value_at: 0,
            what,
        }
    }

    /// Where the next field starts in the message.
    pub fn position(&self) -> usize {
        self.b.len() - self.rest.len()
    }

    /// The message's bytes from `start` to the position: fields read, as they are.
    pub fn since(&self, start: usize) -> &'a [u8] {
        &self.b[start..self.position()]
    }

    /// The value of the field read last as it is on the wire (a length-delimited one's length
    /// included), without its key.
    pub fn raw_value(&self) -> &'a [u8] {
        &self.b[self.value_at..self.position()]
    }

    /// The next field's key and value; `None` at the message's end. Inlined: each caller's
    /// match on the key and value then reads the value where it lies, with no value built.
    #[inline(always)]
    pub fn next_field(&mut self) -> io::Result<Option<(u64, FieldValue<'a>)>> {
        use prost::encoding::decode_varint;
        if self.rest.is_empty() {
            return Ok(None);
        }
        let key = decode_varint(&mut self.rest)?;
        self.value_at = self.position();
        let value = match key & 7 {
            0 => FieldValue::Varint(decode_varint(&mut self.rest)?),
            1 => FieldValue::Fixed(self.take(8)?),
            2 => {
                let len = decode_varint(&mut self.rest)?;
                FieldValue::Len(self.take(usize::try_from(len).unwrap_or(usize::MAX))?)
            }
            5 => FieldValue::Fixed(self.take(4)?),
            _ => return Err(self.damaged("'s field of an unknown wire type")),
        };
        Ok(Some((key, value)))
    }

    #[inline(always)]
    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        match self.rest.split_at_checked(n) {
            Some((value, rest)) => {
                self.rest = rest;
                Ok(value)
            }
            None => Err(self.past()),
        }
    }

    #[cold]
    #[inline(never)]
    fn damaged(&self, how: &str) -> io::Error {
        invalid(&format!("{}{how}", self.what))
    }

    #[cold]
    #[inline(never)]
    fn past(&self) -> io::Error {
        invalid(&format!("a field runs past {}", self.what))
    }
}

/// A field as a file's reader reads it: a length-delimited one not read yet (the reader
/// stands at its first byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawField {
    Varint(u64),
    Len(u64),
    Fixed(usize),
}

/// Reads a part of one file, from a position to an end, field by field, through a window of
/// its own.
pub struct FileFields {
    file: Arc<File>,
    /// File offset of `buf[0]`.
    base: u64,
    /// The window: `buf[..valid]` read, the rest room kept (zeroed once, when it grows, not
    /// for each read).
    buf: Vec<u8>,
    valid: usize,
    at: usize,
    end: u64,
}

/// How much a reader reads at once.
const CHUNK: usize = 64 << 10;

impl FileFields {
    pub fn new(file: Arc<File>, start: u64, end: u64) -> Self {
        FileFields {
            file,
            base: start,
            buf: Vec::new(),
            valid: 0,
            at: 0,
            end,
        }
    }

    pub fn position(&self) -> u64 {
        self.base + self.at as u64
    }

    fn done(&self) -> bool {
        self.position() >= self.end
    }

    /// At least `n` bytes from the position in the window, or an error past the end.
    fn fill(&mut self, n: usize) -> io::Result<()> {
        if self.valid - self.at >= n {
            return Ok(());
        }
        let pos = self.position();
        self.end_of(n as u64)?;
        let want = (n.max(CHUNK) as u64).min(self.end - pos) as usize;
        // What is left of the window moves to its front; the rest is read after it.
        self.buf.copy_within(self.at..self.valid, 0);
        self.valid -= self.at;
        self.base = pos;
        self.at = 0;
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        while self.valid < want {
            let at = self.valid;
            let k = self
                .file
                .read_at(&mut self.buf[at..want], pos + at as u64)?;
            if k == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file ends inside a message",
                ));
            }
            self.valid += k;
        }
        Ok(())
    }

    fn varint(&mut self) -> io::Result<u64> {
        // Up to ten bytes in the window (the most a varint takes; fewer at the reader's end),
        // then read from the slice. The window never holds bytes past the reader's end.
        if self.valid - self.at < 10 {
            self.fill(self.end.saturating_sub(self.position()).min(10) as usize)?;
        }
        let mut at = self.at;
        let v = varint_at(&self.buf[..self.valid], &mut at)?;
        self.at = at;
        Ok(v)
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: u64) -> io::Result<&[u8]> {
        let n = usize::try_from(n).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))?;
        self.fill(n)?;
        let b = &self.buf[self.at..self.at + n];
        self.at += n;
        Ok(b)
    }

    /// Where a field of `n` bytes starting here ends; an error past the reader's end.
    pub fn end_of(&self, n: u64) -> io::Result<u64> {
        self.position()
            .checked_add(n)
            .filter(|&e| e <= self.end)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "a field runs past its message",
                )
            })
    }

    /// Steps over the next `n` bytes.
    pub fn skip(&mut self, n: u64) -> io::Result<()> {
        let pos = self.end_of(n)?;
        if pos <= self.base + self.valid as u64 {
            self.at = (pos - self.base) as usize;
        } else {
            self.valid = 0;
            self.base = pos;
            self.at = 0;
        }
        Ok(())
    }

    /// The next field's number and value; `None` at the end.
    pub fn field(&mut self) -> io::Result<Option<(u32, RawField)>> {
        if self.done() {
            return Ok(None);
        }
        let key = self.varint()?;
        let number =
            u32::try_from(key >> 3).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))?;
        let value = match key & 7 {
            0 => RawField::Varint(self.varint()?),
            1 => RawField::Fixed(8),
            2 => RawField::Len(self.varint()?),
            5 => RawField::Fixed(4),
            w => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("wire type {w}"),
                ))
            }
        };
        Ok(Some((number, value)))
    }

    /// Appends the field just read (`number`, `value`) to `out` as it was on the wire (any
    /// number: one no message may have is kept, for the decoder of `out` to refuse).
    pub fn copy_field(
        &mut self,
        number: u32,
        value: RawField,
        out: &mut Vec<u8>,
    ) -> io::Result<()> {
        use prost::encoding::{encode_varint, WireType};
        let key = |wire: WireType| Field { number, wire }.key();
        match value {
            RawField::Varint(v) => {
                encode_varint(key(WireType::Varint), out);
                encode_varint(v, out);
            }
            RawField::Len(n) => {
                encode_varint(key(WireType::LengthDelimited), out);
                encode_varint(n, out);
                out.extend_from_slice(self.bytes(n)?);
            }
            RawField::Fixed(n) => {
                let wire = if n == 8 {
                    WireType::SixtyFourBit
                } else {
                    WireType::ThirtyTwoBit
                };
                encode_varint(key(wire), out);
                out.extend_from_slice(self.bytes(n as u64)?);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every wire type a field may have, read with its key; the raw value and the bytes since
    /// a field's start are as they were; a group, wire types 6 and 7, a value past the end and
    /// a varint past the end are refused.
    #[test]
    fn fields_read_every_wire_type_and_refuse_damage() {
        let b = [
            0x08, 0x96, 0x01, // 1: varint 150
            0x11, 1, 2, 3, 4, 5, 6, 7, 8, // 2: fixed64
            0x1a, 0x02, b'h', b'i', // 3: length-delimited
            0x25, 9, 9, 9, 9, // 4: fixed32
        ];
        let mut f = Fields::new(&b, "a message");
        assert_eq!(
            f.next_field().unwrap(),
            Some((0x08, FieldValue::Varint(150)))
        );
        assert_eq!(f.raw_value(), [0x96, 0x01]);
        let start = f.position();
        assert_eq!(
            f.next_field().unwrap(),
            Some((0x11, FieldValue::Fixed(&[1, 2, 3, 4, 5, 6, 7, 8])))
        );
        assert_eq!(f.since(start), &b[3..12]);
        assert_eq!(
            f.next_field().unwrap(),
            Some((0x1a, FieldValue::Len(b"hi")))
        );
        assert_eq!(f.raw_value(), [0x02, b'h', b'i']);
        assert_eq!(
            f.next_field().unwrap(),
            Some((0x25, FieldValue::Fixed(&[9; 4])))
        );
        assert_eq!(f.next_field().unwrap(), None);
        for damaged in [
            &[0x0b, 0x0c][..],
            &[0x0e, 0x00],
            &[0x0f, 0x00],
            &[0x1a, 0x03, b'h', b'i'],
            &[0x11, 1, 2],
            &[0x08, 0x80],
        ] {
            let mut f = Fields::new(damaged, "a message");
            assert!(f.next_field().is_err(), "{damaged:?}");
        }
    }
}
