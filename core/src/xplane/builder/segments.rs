//! A line's event entries as one run of bytes held in segments of at most [`SEGMENT_BYTES`]:
//! a line of a million events is a few hundred blocks the allocator can place in the holes
//! the planes written before it left (the host plane's lines and events), where one block of
//! its whole size fits in none and takes pages the process never touched.

/// The most a segment holds, but for an entry larger than that, which has one of its own.
/// Below glibc's default mmap threshold (128 KiB): a segment comes from the thread's heap,
/// never from a mapping of its own.
pub(super) const SEGMENT_BYTES: usize = 120 << 10;

/// Segments given to one vectored write (`Segments::write_to`): their bytes (up to 7.5 MiB)
/// are more than an output's buffer holds, and they are within every system's `IOV_MAX`.
const SEGMENTS_PER_WRITE: usize = 64;

/// Bytes written one entry at a time, in segments: those filled, held here, and the one
/// being written, held by the writer (a vector of its own, so that the per-entry path is a
/// vector's). Every entry lies whole in one segment, and the segments in order are the run's
/// bytes. Positions count from the first segment's first byte, as in the run.
#[derive(Debug, Clone, Default)]
pub(super) struct Segments {
    /// The segments filled, in order.
    full: Vec<Vec<u8>>,
    /// Bytes in them.
    len: usize,
}

impl Segments {
    /// Bytes in the filled segments: where the one being written begins.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Number of filled segments: the number of the one being written.
    #[inline]
    pub(super) fn count(&self) -> usize {
        self.full.len()
    }

    /// Room in `open`, the segment being written after these, for an entry of `need` bytes,
    /// and for `want` (at least `need`) more where the segment's size allows: a segment that
    /// cannot take `need` within [`SEGMENT_BYTES`] is filled, and the next one opened with
    /// room for `want`, up to that size. A reservation the allocator refuses is only a missed
    /// shortcut: the entry's own push then grows the segment.
    pub(super) fn make_room(&mut self, open: &mut Vec<u8>, need: usize, want: usize) {
        if open.len() + need > SEGMENT_BYTES && !open.is_empty() {
            self.fill(std::mem::take(open));
        }
        let most = SEGMENT_BYTES.saturating_sub(open.len());
        let _ = open.try_reserve_exact(want.min(most).max(need));
    }

    /// Appends an entry whole to `open`, the segment being written after these, with room
    /// for `want` bytes (this entry's included) where it has none ([`Self::make_room`]).
    pub(super) fn push(&mut self, open: &mut Vec<u8>, entry: &[u8], want: usize) {
        if open.capacity() - open.len() < entry.len() {
            self.make_room(open, entry.len(), want.max(entry.len()));
        }
        open.extend_from_slice(entry);
    }

    /// Adds `segment` after the filled ones (nothing when it is empty).
    pub(super) fn fill(&mut self, segment: Vec<u8>) {
        if !segment.is_empty() {
            self.len += segment.len();
            self.full.push(segment);
        }
    }

    /// The filled segments' bytes in order, each with the position of its first byte.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, &[u8])> + '_ {
        let mut at = 0;
        self.full.iter().map(move |s| {
            let start = at;
            at += s.len();
            (start, s.as_slice())
        })
    }

    /// Where each filled segment begins, by number.
    pub(super) fn starts(&self) -> Vec<usize> {
        self.iter().map(|(start, _)| start).collect()
    }

    /// Filled segment `n`.
    pub(super) fn segment(&self, n: usize) -> &[u8] {
        &self.full[n]
    }

    /// Writes the bytes in order.
    ///
    /// Written [`SEGMENTS_PER_WRITE`] segments at a time, as one vectored write: a buffered
    /// writer hands a write larger than its buffer straight to the file, where segment by
    /// segment each would be copied into its buffer first.
    pub(super) fn write_to(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        use std::io::{ErrorKind, IoSlice};
        for group in self.full.chunks(SEGMENTS_PER_WRITE) {
            let mut slices = [IoSlice::new(&[]); SEGMENTS_PER_WRITE];
            for (slice, s) in slices.iter_mut().zip(group) {
                *slice = IoSlice::new(s);
            }
            let mut rest = &mut slices[..group.len()];
            while rest.iter().any(|s| !s.is_empty()) {
                match w.write_vectored(rest) {
                    Ok(0) => return Err(ErrorKind::WriteZero.into()),
                    Ok(n) => IoSlice::advance_slices(&mut rest, n),
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// The bytes in one piece.
    #[cfg(test)]
    pub(super) fn to_vec(&self) -> Vec<u8> {
        self.full.concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries of every size up to past a segment: each lies whole in one segment, no
    /// segment is longer than the limit unless it holds one entry only, and the bytes in
    /// order are the entries in order.
    #[test]
    fn entries_lie_whole_in_segments_and_read_back_in_order() {
        let mut s = Segments::default();
        let mut open = Vec::new();
        let mut whole = Vec::new();
        let mut places = Vec::new();
        let sizes = [
            1usize,
            7,
            300,
            5000,
            SEGMENT_BYTES - 3,
            2,
            SEGMENT_BYTES + 11,
            9,
        ];
        for round in 0..40u8 {
            for &n in &sizes {
                let entry: Vec<u8> = (0..n).map(|i| (i as u8) ^ round).collect();
                s.push(&mut open, &entry, 4096);
                places.push((s.count(), s.len() + open.len() - n, n));
                whole.extend_from_slice(&entry);
            }
        }
        s.fill(open);
        assert_eq!(s.len(), whole.len());
        assert_eq!(s.to_vec(), whole);
        assert!(s.count() > 40, "{} segments", s.count());
        let starts = s.starts();
        for (seg, start, n) in places {
            let local = start - starts[seg];
            let got = &s.segment(seg)[local..local + n];
            assert_eq!(
                got,
                &whole[start..start + n],
                "entry at {start} in segment {seg}"
            );
        }
        for (_, seg) in s.iter() {
            assert!(seg.len() <= SEGMENT_BYTES || sizes.contains(&seg.len()));
        }
        let mut written = Vec::new();
        s.write_to(&mut written).unwrap();
        assert_eq!(written, whole);
    }

    /// A writer that takes a few bytes of each call, and is interrupted now and then, still
    /// gets every segment's bytes once, in order, across more segments than one vectored
    /// write gives.
    #[test]
    fn segments_written_in_vectored_parts_arrive_whole_and_in_order() {
        struct Stingy {
            got: Vec<u8>,
            calls: usize,
        }
        impl Stingy {
            /// Interrupted before anything is taken (every fifth call), else a few bytes.
            fn interrupted(&mut self) -> bool {
                self.calls += 1;
                self.calls % 5 == 0
            }
            fn take(&mut self, b: &[u8]) -> usize {
                let n = b.len().min(1 + self.calls % 97);
                self.got.extend_from_slice(&b[..n]);
                n
            }
        }
        impl std::io::Write for Stingy {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                if self.interrupted() {
                    return Err(std::io::ErrorKind::Interrupted.into());
                }
                Ok(self.take(b))
            }
            fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
                if self.interrupted() {
                    return Err(std::io::ErrorKind::Interrupted.into());
                }
                // Takes from the first two non-empty slices at most, partly.
                let mut n = 0;
                for b in bufs.iter().filter(|b| !b.is_empty()).take(2) {
                    let k = self.take(b);
                    n += k;
                    if k < b.len() {
                        break;
                    }
                }
                Ok(n)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut s = Segments::default();
        let mut whole = Vec::new();
        for i in 0..(SEGMENTS_PER_WRITE + 3) {
            // Small segments (each `fill`ed whole), one empty among them.
            let seg: Vec<u8> = (0..(i % 4) * 50).map(|j| (i * 7 + j) as u8).collect();
            whole.extend_from_slice(&seg);
            s.fill(seg);
        }
        let mut w = Stingy {
            got: Vec::new(),
            calls: 0,
        };
        s.write_to(&mut w).unwrap();
        assert_eq!(w.got, whole);
        let mut through_buffer = std::io::BufWriter::with_capacity(64, Vec::new());
        s.write_to(&mut through_buffer).unwrap();
        assert_eq!(through_buffer.into_inner().unwrap(), whole);
    }

    /// A reservation is capped at the segment's size; the next entry that does not fit in
    /// what is left fills the segment, and the next one is reserved for what is wanted.
    #[test]
    fn a_reservation_stops_at_the_segment_and_the_next_opens_for_the_rest() {
        let mut s = Segments::default();
        let mut open = Vec::new();
        s.make_room(&mut open, 10, 10 * SEGMENT_BYTES);
        assert_eq!(open.capacity(), SEGMENT_BYTES);
        s.push(&mut open, &vec![1; SEGMENT_BYTES - 5], 0);
        assert_eq!(s.count(), 0);
        s.make_room(&mut open, 10, 1000);
        assert_eq!((s.count(), s.len(), open.len()), (1, SEGMENT_BYTES - 5, 0));
        assert_eq!(open.capacity(), 1000);
        s.fill(Vec::new());
        assert_eq!(s.count(), 1, "an empty segment is not kept");
    }
}
