//! A vector made of fixed-capacity chunks.
//!
//! The stores fill chunks on the delivery thread; collection moves them (kernel records) into
//! the `Collected` as they are, and the join frees each once its records have become events:
//! a million kernel records (40 MB packed, see `packed`) are never copied into one vector.
//!
//! A chunk's block comes from the tool's allocator (`heap::pool`), whose free list every thread
//! shares: what the join frees on its thread holds its own outputs next. Those are larger than
//! the records and made in another order, so they are not made in the records' blocks but in
//! free ranges, or of their pages moved into place where no free range holds an output.

/// Events per chunk: 4096 kernel records are ~160 KiB, small enough to allocate on the delivery
/// thread without a noticeable pause, large enough that chunk bookkeeping is negligible.
pub const CHUNK: usize = 4096;

/// Events per chunk of a thread's own capture vectors (its calls, annotations, spans): every
/// application thread has a few, each with a partly filled last chunk, so a smaller chunk
/// bounds that slack, which grows with threads × vectors × half a chunk.
pub const THREAD_CHUNK: usize = 1024;

/// Values per chunk of a thread's launch and copy facts (8 B each): the bytes of
/// [`THREAD_CHUNK`] values of 16 B, the least the tool's allocator pools (`heap::pool::LARGE`),
/// so that what the drain frees there the join's outputs can take.
pub const THREAD_FACT_CHUNK: usize = 2 * THREAD_CHUNK;

/// The first chunk's room: chunks double from here up to the vector's largest, so a vector of
/// a few values (a thread that makes three calls) does not hold a whole chunk.
const FIRST_CHUNK: usize = 16;

/// Makes room in `out` for `n` more values as chunks are moved into it, a quarter of its
/// length at a time (or `n`, if more). The chunks are freed as they are moved, so at any time
/// the values are held once, plus that room: growing by doubling (or by reserving every
/// store's total at once) would hold up to the whole output beside the whole input at the top
/// of finalize's peak.
pub fn room_for<T>(out: &mut Vec<T>, n: usize) {
    room_toward(out, n, 0);
}

/// As [`room_for`], toward `total` values in all, when known: half of them first, the rest
/// once those are in, quarter steps past it (`total` is a hint: at a window's cut the program
/// still runs and may add more). A block glibc did not map (below its threshold, up to 32 MiB
/// once the program has freed a mapped block that large) is copied whole at each step, so a
/// vector grown in small steps is copied many times over. In halves the output is copied
/// once, half of it, and only half of it is held beside the whole input. (The join's lines
/// are made in steps too, `join::device_work::line_sizes`.)
pub fn room_toward<T>(out: &mut Vec<T>, n: usize, total: usize) {
    if out.capacity() - out.len() < n {
        let len = out.len();
        let step = if len >= total {
            len / 4
        } else if out.capacity() == 0 {
            total.div_ceil(2)
        } else {
            total - len
        };
        out.reserve_exact(n.max(step));
    }
}

/// As [`room_toward`], in `steps` equal steps toward `total`: the room reaches the next
/// multiple of `total / steps` past what the values need (at most `total`).
pub fn room_in_steps<T>(out: &mut Vec<T>, n: usize, total: usize, steps: usize) {
    if out.capacity() - out.len() < n {
        let len = out.len();
        if len >= total {
            out.reserve_exact(n.max(len / 4));
            return;
        }
        let unit = total.div_ceil(steps.max(1));
        let to = (len + n).div_ceil(unit).saturating_mul(unit).min(total);
        out.reserve_exact(n.max(to - len));
    }
}

/// Values kept in chunks of at most `MAX` (each chunk allocated once, never moved). A chunk's
/// capacity is its room, never more than `MAX` (`Vec::with_capacity` gives exactly the room
/// asked for), so whether the last chunk has room is one compare of its length and capacity.
/// The last chunk, where pushes go, is a field of its own (`tail`): a push reads it in place,
/// not through the list of chunks.
#[derive(Debug, Clone)]
pub struct ChunkedVec<T, const MAX: usize = CHUNK> {
    /// Every chunk before the last.
    chunks: Vec<Vec<T>>,
    /// The last chunk; no room at all (never allocated) only when there is no chunk, so that
    /// `chunks` is empty then.
    tail: Vec<T>,
    /// Values in `chunks` (a push into `tail` leaves it as it is).
    before: usize,
    /// The first chunk's room: [`FIRST_CHUNK`], or the room the last chunk of the values
    /// taken before had (`take_keeping_room`).
    first: usize,
}

impl<T, const MAX: usize> Default for ChunkedVec<T, MAX> {
    fn default() -> Self {
        ChunkedVec {
            chunks: Vec::new(),
            tail: Vec::new(),
            before: 0,
            first: FIRST_CHUNK,
        }
    }
}

impl<T, const MAX: usize> ChunkedVec<T, MAX> {
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty vector whose every chunk, the first included, has room for `MAX` values: for
    /// one a tool thread fills with many (what a window hands to the next, `model::carry`).
    /// Chunks doubling from a few values come from the C heap the program shares, and freeing
    /// them beside free blocks makes glibc consolidate every small block the program's threads
    /// freed into that heap, on the tool's thread, once per chunk; full chunks are the tool's
    /// allocator's (`heap::pool`).
    fn with_full_chunks() -> Self {
        ChunkedVec {
            first: MAX,
            ..Self::default()
        }
    }

    /// Takes every value, leaving an empty vector whose first chunk will have the room the
    /// last chunk had: a thread's capture vectors, taken at each window's drain, start the
    /// next window where they were (a busy thread at full chunks, one that made a few calls
    /// still small), so the small chunks a vector doubles through are made once per thread,
    /// not once per window. (They come from the C heap the program shares: freed at the
    /// join, they can make glibc consolidate the program's freed blocks on the tool's thread.)
    pub fn take_keeping_room(&mut self) -> Self {
        let first = self.last_chunk().map_or(self.first, Vec::capacity);
        std::mem::replace(
            self,
            ChunkedVec {
                first,
                ..Self::default()
            },
        )
    }

    #[inline(always)]
    pub fn push(&mut self, value: T) {
        // At most MAX in a chunk (its capacity): positions count on it.
        if self.has_room() {
            self.tail.push(value);
        } else {
            self.push_to_new_chunk(value);
        }
    }

    /// Whether the next [`Self::push`] lands in the last chunk's room: no allocation, nothing
    /// that can panic.
    #[inline(always)]
    pub fn has_room(&self) -> bool {
        self.tail.len() < self.tail.capacity()
    }

    /// [`Self::push`] when the last chunk is full (or there is none): once per chunk.
    #[inline(never)]
    fn push_to_new_chunk(&mut self, value: T) {
        let room = self
            .last_chunk()
            .map_or(self.first, |c| c.capacity() * 2)
            .min(MAX);
        let mut c = Vec::with_capacity(room.max(1));
        assert!(
            c.capacity() <= MAX,
            "a chunk's capacity is its room: {} for {MAX}",
            c.capacity()
        );
        c.push(value);
        let full = std::mem::replace(&mut self.tail, c);
        if full.capacity() > 0 {
            self.before += full.len();
            self.chunks.push(full);
        }
    }

    /// The last chunk, if there is any.
    fn last_chunk(&self) -> Option<&Vec<T>> {
        (self.tail.capacity() > 0).then_some(&self.tail)
    }

    /// Every chunk, in order, the last included.
    fn all_chunks(&self) -> impl Iterator<Item = &Vec<T>> {
        self.chunks.iter().chain(self.last_chunk())
    }

    /// Moves the last chunk to the end of `chunks`, so that `chunks` holds every chunk, for the
    /// changes that work on the list of chunks ([`Self::unseal`] undoes it).
    fn seal(&mut self) {
        if self.tail.capacity() > 0 {
            self.before += self.tail.len();
            self.chunks.push(std::mem::take(&mut self.tail));
        }
    }

    /// The last of `chunks` back as the last chunk, where pushes go ([`Self::seal`]).
    fn unseal(&mut self) {
        if self.tail.capacity() == 0 {
            if let Some(c) = self.chunks.pop() {
                self.before -= c.len();
                self.tail = c;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.before + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most recently pushed value.
    pub fn last(&self) -> Option<&T> {
        self.tail.last()
    }

    /// The most recently pushed value.
    pub fn last_mut(&mut self) -> Option<&mut T> {
        self.tail.last_mut()
    }

    /// Takes back the value a [`Self::push`] just made (it is in the last chunk), leaving the
    /// chunks as they were before it: no allocation, no free, nothing that can panic. `None`
    /// when the last chunk holds nothing.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<T> {
        self.tail.pop()
    }

    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            cur: [].iter(),
            chunks: self.chunks.iter(),
            tail: &self.tail,
        }
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.chunks
            .iter_mut()
            .map(Vec::as_mut_slice)
            .chain(std::iter::once(self.tail.as_mut_slice()))
            .flatten()
    }

    /// Gives back the room the last chunk has left: values moved on whole (`append`) hold no
    /// more than their bytes beyond each chunk's but the last.
    pub fn shrink_to_fit(&mut self) {
        self.tail.shrink_to_fit();
    }

    /// Moves every event out, leaving the store empty (used once, at finalize).
    pub fn drain_into(&mut self, out: &mut Vec<T>) {
        self.drain_map_into(out, 0, |v| v);
    }

    /// As `drain_into`, `out` growing toward `total` values (`room_toward`; 0: not known).
    pub fn drain_into_toward(&mut self, out: &mut Vec<T>, total: usize) {
        self.drain_map_into(out, total, |v| v);
    }

    /// As `drain_into_toward`, each value made into the output's form as it moves (a chunk
    /// freed once moved).
    pub fn drain_map_into<U>(&mut self, out: &mut Vec<U>, total: usize, mut f: impl FnMut(T) -> U) {
        self.seal();
        for c in self.chunks.drain(..) {
            room_toward(out, c.len(), total);
            out.extend(c.into_iter().map(&mut f));
        }
        self.before = 0;
    }

    /// As `drain_map_into`, the output grown in `steps` steps of `total` (`room_in_steps`):
    /// where a value grows as it moves, the output's room beside the input not yet moved is
    /// the top, and smaller steps lower it (each step may copy what is in, though).
    pub fn drain_map_in_steps<U>(
        &mut self,
        out: &mut Vec<U>,
        total: usize,
        steps: usize,
        mut f: impl FnMut(T) -> U,
    ) {
        self.seal();
        for c in self.chunks.drain(..) {
            room_in_steps(out, c.len(), total, steps);
            out.extend(c.into_iter().map(&mut f));
        }
        self.before = 0;
    }

    /// The chunks, in order, each to be dropped by the caller once used.
    pub fn into_chunks(mut self) -> impl Iterator<Item = Vec<T>> {
        self.seal();
        self.chunks.into_iter()
    }

    /// The same values with chunks of at most `M` (`M` at least `MAX`: every chunk fits, and
    /// moves as it is).
    pub(super) fn rechunked<const M: usize>(self) -> ChunkedVec<T, M> {
        assert!(MAX <= M, "chunks of {MAX} do not fit chunks of {M}");
        ChunkedVec {
            chunks: self.chunks,
            tail: self.tail,
            before: self.before,
            first: self.first,
        }
    }

    /// Moves every chunk of `other` to the end of this one.
    pub fn append(&mut self, other: ChunkedVec<T, MAX>) {
        self.seal();
        self.before += other.len();
        self.chunks
            .extend(other.into_chunks().filter(|c| !c.is_empty()));
        self.unseal();
    }

    /// Moves every chunk of `earlier` before this one's.
    pub fn prepend(&mut self, earlier: ChunkedVec<T, MAX>) {
        self.seal();
        self.before += earlier.len();
        self.chunks
            .splice(0..0, earlier.into_chunks().filter(|c| !c.is_empty()));
        self.unseal();
    }

    pub fn clear(&mut self) {
        self.chunks.clear();
        self.tail = Vec::new();
        self.before = 0;
    }

    /// Keeps the values `keep` picks, in order, each chunk in place (a chunk left empty is
    /// freed): the values after a removed one are not copied into chunks anew.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.seal();
        for c in &mut self.chunks {
            c.retain(&mut keep);
        }
        self.chunks.retain(|c| !c.is_empty());
        self.before = self.chunks.iter().map(Vec::len).sum();
        self.unseal();
    }

    /// Moves the values `take` picks into a new vector, each changed by `moved` on its way, and
    /// keeps the others, both in their order. A chunk where `touches` passes no value is only
    /// read (`take` must fail each value `touches` fails); a chunk all of whose values are
    /// taken moves whole, changed in place: a window hands on its latest calls, most of them
    /// in chunks of their own, which are then neither copied nor freed and made again. `take`
    /// is asked once of each value `touches` does not pass over.
    pub fn split_where(
        &mut self,
        mut touches: impl FnMut(&T) -> bool,
        mut take: impl FnMut(&T) -> bool,
        mut moved: impl FnMut(&mut T),
    ) -> ChunkedVec<T, MAX>
    where
        T: Clone,
    {
        let mut out = ChunkedVec::with_full_chunks();
        self.seal();
        let mut emptied = false;
        for c in &mut self.chunks {
            let Some(first) = c.iter().position(&mut touches) else {
                continue;
            };
            let before = c.len();
            // The values before `from` are answered already: those of `known` are taken, the
            // others not (those before `first`, and the first `take` refused).
            let (known, from) = if first > 0 {
                (0..0, first)
            } else {
                match c.iter().position(|v| !take(v)) {
                    Some(refused) => (0..refused, refused + 1),
                    None => {
                        let mut whole = std::mem::take(c);
                        whole.iter_mut().for_each(&mut moved);
                        out.push_chunk(whole);
                        self.before -= before;
                        emptied = true;
                        continue;
                    }
                }
            };
            let mut i = 0;
            c.retain(|v| {
                let taken = if i < from {
                    known.contains(&i)
                } else {
                    take(v)
                };
                i += 1;
                if taken {
                    let mut v = v.clone();
                    moved(&mut v);
                    out.push(v);
                }
                !taken
            });
            self.before -= before - c.len();
            emptied |= c.is_empty();
        }
        if emptied {
            self.chunks.retain(|c| !c.is_empty());
        }
        self.unseal();
        out
    }

    /// `chunk` after every value, as a chunk of its own (at most `MAX` values).
    fn push_chunk(&mut self, chunk: Vec<T>) {
        debug_assert!(chunk.capacity() <= MAX);
        if chunk.is_empty() {
            return;
        }
        self.seal();
        self.before += chunk.len();
        self.chunks.push(chunk);
        self.unseal();
    }

    /// The values of chunk `i`.
    #[cfg(test)]
    pub(crate) fn chunk(&self, i: usize) -> &[T] {
        self.all_chunks().nth(i).expect("no such chunk")
    }

    /// Every value with its position, `chunk * MAX + offset`: unique and in order, though
    /// not dense where a chunk is not full (the first, smaller chunks; the last chunk of a store
    /// moved in whole by `append`).
    pub fn positions(&self) -> Positions<'_, T, MAX> {
        Positions::<T, MAX> {
            values: self.iter(),
            next: 0,
            chunk_start: 0usize.wrapping_sub(MAX),
        }
    }

    /// The value at `position` (see [`Self::positions`]).
    pub fn get(&self, position: usize) -> Option<&T> {
        let c = position / MAX;
        let chunk = match self.chunks.get(c) {
            Some(chunk) => chunk,
            None if c == self.chunks.len() => &self.tail,
            None => return None,
        };
        chunk.get(position % MAX)
    }

    /// A reader that takes each value once, by position, and frees a chunk with its last
    /// value.
    pub fn into_taker(mut self) -> TakeOnce<T, MAX> {
        self.seal();
        let left = self.chunks.iter().map(|c| c.len() as u32).collect();
        TakeOnce {
            chunks: self.chunks,
            left,
        }
    }

    /// Bytes held by chunk storage (for diagnostics).
    pub fn capacity_bytes(&self) -> usize {
        self.all_chunks()
            .map(|c| c.capacity() * std::mem::size_of::<T>())
            .sum()
    }
}

/// The values of a [`ChunkedVec`], in order: a step within a chunk is a step of a slice
/// iterator, and the next chunk (from the list, then the last chunk) is fetched once per chunk.
pub struct Iter<'a, T> {
    /// The chunk being read.
    cur: std::slice::Iter<'a, T>,
    /// The chunks of the list not yet read.
    chunks: std::slice::Iter<'a, Vec<T>>,
    /// The last chunk; empty once it is being read (or if it holds nothing).
    tail: &'a [T],
}

impl<'a, T> Iter<'a, T> {
    /// Moves to the next chunk that holds a value and returns its first; `None` at the end.
    #[inline(never)]
    fn next_chunk(&mut self) -> Option<&'a T> {
        // (The count, never read here, compiles away.)
        self.next_chunk_counted(&mut 0)
    }

    /// [`Self::next_chunk`], also saying how many chunks were started ([`Positions`] needs it).
    #[inline(always)]
    fn next_chunk_counted(&mut self, started: &mut usize) -> Option<&'a T> {
        loop {
            self.cur = match self.chunks.next() {
                Some(c) => c.iter(),
                None if self.tail.is_empty() => return None,
                None => std::mem::take(&mut self.tail).iter(),
            };
            *started += 1;
            if let Some(v) = self.cur.next() {
                return Some(v);
            }
        }
    }
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;

    #[inline(always)]
    fn next(&mut self) -> Option<&'a T> {
        match self.cur.next() {
            Some(v) => Some(v),
            None => self.next_chunk(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let known = self.cur.len() + self.tail.len();
        (known, self.chunks.as_slice().is_empty().then_some(known))
    }

    /// Nested loops, the chunks outside, with `f` called from one place: called from one loop
    /// per part (the chunk being read, the others, the last), it was kept out of line, and each
    /// value's call paid for the closure's state reloaded and its registers saved.
    fn fold<B, F: FnMut(B, &'a T) -> B>(self, init: B, mut f: F) -> B {
        let Iter { cur, chunks, tail } = self;
        let parts = std::iter::once(cur.as_slice())
            .chain(chunks.map(Vec::as_slice))
            .chain(std::iter::once(tail));
        let mut acc = init;
        for part in parts {
            for v in part {
                acc = f(acc, v);
            }
        }
        acc
    }
}

impl<T> std::iter::FusedIterator for Iter<'_, T> {}

/// [`ChunkedVec::positions`]: each value with its position, `chunk * MAX + offset`.
pub struct Positions<'a, T, const MAX: usize> {
    values: Iter<'a, T>,
    /// The position of the next value of the chunk being read.
    next: usize,
    /// The position of the chunk being read's first value (`0 - MAX` before the first).
    chunk_start: usize,
}

impl<'a, T, const MAX: usize> Iterator for Positions<'a, T, MAX> {
    type Item = (usize, &'a T);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, &'a T)> {
        match self.values.cur.next() {
            Some(v) => {
                let at = self.next;
                self.next += 1;
                Some((at, v))
            }
            None => self.next_chunk(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.values.size_hint()
    }

    fn fold<B, F: FnMut(B, (usize, &'a T)) -> B>(self, init: B, mut f: F) -> B {
        let Positions {
            values,
            next,
            mut chunk_start,
        } = self;
        // As `Iter::fold`: `f` called from one place. The chunk being read starts at `next`,
        // each other a chunk on from the one before.
        let Iter { cur, chunks, tail } = values;
        let others = chunks.map(Vec::as_slice).chain([tail]).map(move |c| {
            chunk_start = chunk_start.wrapping_add(MAX);
            (chunk_start, c)
        });
        let mut acc = init;
        for (start, part) in std::iter::once((next, cur.as_slice())).chain(others) {
            for (o, v) in part.iter().enumerate() {
                acc = f(acc, (start + o, v));
            }
        }
        acc
    }
}

impl<'a, T, const MAX: usize> Positions<'a, T, MAX> {
    /// [`Iterator::next`] at the end of a chunk: once per chunk.
    #[inline(never)]
    fn next_chunk(&mut self) -> Option<(usize, &'a T)> {
        let mut started = 0;
        let v = self.values.next_chunk_counted(&mut started)?;
        self.chunk_start = self.chunk_start.wrapping_add(started * MAX);
        self.next = self.chunk_start + 1;
        Some((self.chunk_start, v))
    }
}

impl<T, const MAX: usize> std::iter::FusedIterator for Positions<'_, T, MAX> {}

/// Values read once each, in any order, and freed a chunk at a time as the chunk is used up:
/// the join reads the kernel records in time order and turns each into an event, so a million
/// records (40 MB packed) are gone by the time their events are all built, instead of both forms
/// being held at once. Records come nearly in delivery order, so chunks empty steadily.
pub struct TakeOnce<T, const MAX: usize = CHUNK> {
    chunks: Vec<Vec<T>>,
    left: Vec<u32>,
}

impl<T: Copy, const MAX: usize> TakeOnce<T, MAX> {
    /// The value at `position` ([`ChunkedVec::positions`]), each taken once; the chunk is
    /// freed with its last value. `None` for a position out of range or a chunk already freed
    /// (never, for the positions of the values).
    pub fn take(&mut self, position: usize) -> Option<T> {
        let (c, at) = (position / MAX, position % MAX);
        let r = *self.chunks.get(c)?.get(at)?;
        let left = &mut self.left[c];
        *left = left.saturating_sub(1);
        if *left == 0 {
            self.chunks[c] = Vec::new();
        }
        Some(r)
    }

    /// Starts bringing the value at `position` into the cache, if it is still held: a reader
    /// that takes the values out of their order knows the positions ahead of their turn.
    #[inline]
    pub fn prefetch(&self, position: usize) {
        let (c, at) = (position / MAX, position % MAX);
        if let Some(v) = self.chunks.get(c).and_then(|chunk| chunk.get(at)) {
            crate::util::prefetch::prefetch(v);
        }
    }
}

impl<T, const MAX: usize> From<Vec<T>> for ChunkedVec<T, MAX> {
    fn from(v: Vec<T>) -> Self {
        v.into_iter().collect()
    }
}

impl<T, const MAX: usize> Extend<T> for ChunkedVec<T, MAX> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

impl<T, const MAX: usize> FromIterator<T> for ChunkedVec<T, MAX> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut r = ChunkedVec::new();
        r.extend(iter);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asking for a position ahead takes nothing: a freed chunk's position, one past the end
    /// and one still held are all asked for, and every value still held is taken as it was.
    #[test]
    fn a_taker_s_prefetch_takes_nothing_and_asks_for_any_position() {
        let v: ChunkedVec<u32, 4> = (0..10).collect();
        let mut t = v.into_taker();
        for p in 0..4 {
            assert_eq!(t.take(p), Some(p as u32));
        }
        assert!(
            t.chunks[0].is_empty(),
            "the first chunk is freed with its last value"
        );
        for p in [0, 2, 5, 9, 10, 1_000] {
            t.prefetch(p);
        }
        let rest: Vec<_> = (4..10).map(|p| t.take(p)).collect();
        assert_eq!(rest, (4..10).map(Some).collect::<Vec<_>>());
        assert_eq!(t.take(0), None);
    }

    /// A split keeps both sides in order, moves a chunk whose every value is taken whole (its
    /// block, not a copy), changes each value taken by `moved`, and leaves what `touches`
    /// passes over unwritten.
    #[test]
    fn a_split_moves_whole_chunks_and_keeps_both_sides_in_order() {
        // Chunks of 2, then 4: 0 1 | 2 3 4 5 | 6 7 8 9 | 10 11 12 13 | 14 15 16 17 | 18 19
        let mut v: ChunkedVec<u32, 4> = ChunkedVec::new();
        v.first = 2;
        v.extend(0..20);
        let (untouched, whole) = (v.chunk(0).as_ptr(), v.chunk(2).as_ptr());
        let taken_ids = |x: u32| (3..5).contains(&x) || (6..10).contains(&x) || x == 14;
        let out = v.split_where(|&x| x >= 3, |&x| taken_ids(x), |x| *x += 100);
        let got: Vec<u32> = out.iter().copied().collect();
        let want: Vec<u32> = (0..20).filter(|&x| taken_ids(x)).map(|x| x + 100).collect();
        assert_eq!(got, want);
        let kept: Vec<u32> = v.iter().copied().collect();
        let want: Vec<u32> = (0..20).filter(|&x| !taken_ids(x)).collect();
        assert_eq!(kept, want);
        assert_eq!((v.len(), out.len()), (13, 7));
        assert!(
            (0..out.all_chunks().count()).any(|i| out.chunk(i).as_ptr() == whole),
            "the chunk 6..10 moved whole"
        );
        assert_eq!(
            v.chunk(0).as_ptr(),
            untouched,
            "the chunk 0..2 stays as it was"
        );
    }

    /// In steps the room reaches each step's multiple of the total in turn, never past the
    /// total, and a chunk larger than a step gets its room all the same.
    #[test]
    fn room_in_steps_grows_by_a_step_of_the_total() {
        let mut out: Vec<u32> = Vec::new();
        let mut rooms = Vec::new();
        for _ in 0..100 {
            room_in_steps(&mut out, 10, 1_000, 8);
            out.extend([0; 10]);
            if rooms.last() != Some(&out.capacity()) {
                rooms.push(out.capacity());
            }
        }
        assert_eq!(rooms, [125, 250, 375, 500, 625, 750, 875, 1_000]);
        room_in_steps(&mut out, 10, 1_000, 8);
        assert!(out.capacity() >= 1_010, "past the total: room all the same");
        let mut big: Vec<u32> = Vec::new();
        room_in_steps(&mut big, 300, 1_000, 8);
        assert!(big.capacity() >= 300 && big.capacity() <= 375);
    }

    fn rooms<T, const MAX: usize>(v: &ChunkedVec<T, MAX>) -> Vec<usize> {
        v.all_chunks().map(|c| c.capacity()).collect()
    }

    /// A push taken back leaves the vector as it was, its rooms too.
    #[test]
    fn a_pop_takes_back_the_push_before_it() {
        let mut v: ChunkedVec<usize, 16> = ChunkedVec::new();
        assert_eq!(v.pop(), None);
        for i in 0..FIRST_CHUNK + 1 {
            v.push(i);
        }
        let (len, room) = (v.len(), rooms(&v));
        v.push(99);
        assert_eq!(v.pop(), Some(99));
        assert_eq!((v.len(), rooms(&v)), (len, room));
        assert!(v.iter().copied().eq(0..FIRST_CHUNK + 1));
    }

    /// The last chunk keeps taking pushes into its room through the changes that work on the
    /// list of chunks (retain, append, prepend), and positions reach into it.
    #[test]
    fn the_last_chunk_takes_pushes_across_changes_to_the_list() {
        let mut v: ChunkedVec<usize, 64> = (0..FIRST_CHUNK + 4).collect();
        assert_eq!(rooms(&v), [16, 32]);
        v.retain(|x| x % 2 == 0);
        v.push(100);
        assert_eq!(rooms(&v), [16, 32], "into the last chunk's room");
        v.append((0..3).collect());
        v.push(101);
        assert_eq!(rooms(&v), [16, 32, 16], "into the appended chunk's room");
        v.prepend((0..2).collect());
        v.push(102);
        assert_eq!(rooms(&v), [16, 16, 32, 16]);
        let want: Vec<usize> = [0, 1]
            .into_iter()
            .chain((0..FIRST_CHUNK + 4).filter(|x| x % 2 == 0))
            .chain([100, 0, 1, 2, 101, 102])
            .collect();
        assert!(v.iter().copied().eq(want.iter().copied()));
        assert_eq!(v.len(), want.len());
        assert_eq!(v.last(), Some(&102));
        for (p, x) in v.positions() {
            assert_eq!(v.get(p), Some(x));
        }
        assert_eq!(
            v.get(3 * 64 + 4),
            Some(&102),
            "a position in the last chunk"
        );
        assert_eq!(v.pop(), Some(102));
        assert_eq!(v.len(), want.len() - 1);
    }

    /// Taken keeping its room, a vector starts again at the room its last chunk had: full
    /// chunks for one that filled them, the small first chunk for one that held a few values,
    /// and what it had been given for one that held none.
    #[test]
    fn a_vector_taken_keeping_its_room_starts_again_where_it_was() {
        let mut busy: ChunkedVec<usize, 64> = (0..200).collect();
        let taken = busy.take_keeping_room();
        assert!(taken.iter().copied().eq(0..200));
        assert!(busy.is_empty());
        busy.push(1);
        assert_eq!(rooms(&busy), [64]);
        let mut quiet: ChunkedVec<usize, 64> = (0..3).collect();
        quiet.take_keeping_room();
        quiet.push(1);
        assert_eq!(rooms(&quiet), [FIRST_CHUNK]);
        let mut idle: ChunkedVec<usize, 64> = (0..200).collect();
        idle.take_keeping_room();
        idle.take_keeping_room();
        idle.push(1);
        assert_eq!(rooms(&idle), [64]);
    }

    #[test]
    fn push_across_chunks_keeps_order() {
        let mut v: ChunkedVec<usize> = ChunkedVec::new();
        for i in 0..(CHUNK * 2 + 10) {
            v.push(i);
        }
        assert_eq!(v.len(), CHUNK * 2 + 10);
        assert!(v.iter().copied().eq(0..CHUNK * 2 + 10));
        // Chunks double from the first one's room to CHUNK, then stay there.
        let doubling: Vec<usize> = (0..9).map(|k| FIRST_CHUNK << k).collect();
        assert_eq!(*doubling.last().unwrap(), CHUNK);
        assert_eq!(rooms(&v), [doubling, vec![CHUNK]].concat());
        assert_eq!(
            v.capacity_bytes(),
            rooms(&v).iter().sum::<usize>() * std::mem::size_of::<usize>()
        );
        let mut out = Vec::new();
        v.drain_into(&mut out);
        assert_eq!(out.len(), CHUNK * 2 + 10);
        assert!(v.is_empty());
        assert_eq!(out[CHUNK], CHUNK);
    }

    /// A thread's vectors stop doubling at their smaller chunk; a vector of three values holds
    /// a chunk of 16, not 4,096.
    #[test]
    fn chunks_stop_growing_at_their_largest() {
        let mut v: ChunkedVec<u8, 64> = ChunkedVec::new();
        v.extend([1, 2, 3]);
        assert_eq!(rooms(&v), [FIRST_CHUNK]);
        v.extend(0..150);
        assert_eq!(rooms(&v), [16, 32, 64, 64]);
        assert_eq!(v.len(), 153);
        let mut t: ChunkedVec<u64, THREAD_CHUNK> = (0..5000).collect();
        assert!(rooms(&t).iter().all(|&r| r <= THREAD_CHUNK));
        let mut out = Vec::new();
        t.drain_into(&mut out);
        assert!(out.into_iter().eq(0..5000));
    }

    /// Stores drained into one output toward their known total: the output is allocated in two
    /// steps, half and then the rest, and ends at exactly the total; without the total it
    /// grows in quarter steps (each one a copy of the whole when glibc did not map it). A total
    /// that falls short (a store filled meanwhile) still takes every value, in quarters past it.
    #[test]
    fn stores_drain_toward_their_total_in_two_steps() {
        let stores = || -> Vec<ChunkedVec<u32, 64>> {
            (0..7u32)
                .map(|s| (0..500 + 37 * s).map(|i| s * 10_000 + i).collect())
                .collect()
        };
        let total: usize = stores().iter().map(ChunkedVec::len).sum();
        let drained = |hint: usize| {
            let mut out = Vec::new();
            let mut steps = vec![];
            for mut s in stores() {
                s.drain_into_toward(&mut out, hint);
                if steps.last() != Some(&out.capacity()) {
                    steps.push(out.capacity());
                }
            }
            let want: Vec<u32> = stores().iter().flat_map(|s| s.iter().copied()).collect();
            assert_eq!(out, want, "every value, in order (hint {hint})");
            steps
        };
        assert_eq!(drained(total), [total.div_ceil(2), total]);
        assert!(drained(0).len() > 2, "quarter steps: {:?}", drained(0));
        let short = drained(total / 3);
        assert_eq!(short[0], (total / 3).div_ceil(2));
        assert!(*short.last().unwrap() >= total);
    }

    #[test]
    fn positions_address_values_across_partial_chunks() {
        let mut r: ChunkedVec<usize> = (0..CHUNK + 3).collect();
        r.append(ChunkedVec::from(vec![100, 101]));
        r.append(ChunkedVec::new());
        r.append((0..CHUNK + 1).map(|i| 1000 + i).collect());
        r.push(7);
        assert_eq!(r.len(), CHUNK + 3 + 2 + CHUNK + 1 + 1);
        assert_eq!(r.iter().count(), r.len());
        for (p, v) in r.positions() {
            assert_eq!(r.get(p), Some(v));
        }
        let ps: Vec<usize> = r.positions().map(|(p, _)| p).collect();
        assert!(ps.windows(2).all(|w| w[0] < w[1]), "positions in order");
        assert_eq!(
            r.get(FIRST_CHUNK),
            None,
            "a hole after the first, small chunk"
        );
        assert!(r.all_chunks().all(|c| !c.is_empty() && c.len() <= CHUNK));
        let mut s = ChunkedVec::from(vec![1, 2]);
        s.append(r);
        assert_eq!(s.len(), 2 + CHUNK + 3 + 2 + CHUNK + 1 + 1);
        s.clear();
        assert!(s.is_empty() && s.iter().next().is_none());
    }

    /// `iter` and `positions` give the same values stepped one by one (`next`) as folded,
    /// started anywhere: within a chunk, at a chunk's end, in the last chunk, with an empty
    /// last chunk, with no chunk at all.
    #[test]
    fn stepping_and_folding_give_the_same_values_and_positions() {
        let mut emptied: ChunkedVec<usize, 64> = (0..FIRST_CHUNK + 1).collect();
        assert_eq!(emptied.pop(), Some(FIRST_CHUNK));
        let mut appended: ChunkedVec<usize, 64> = (0..70).collect();
        appended.append((200..203).collect());
        appended.push(300);
        for v in [
            ChunkedVec::new(),
            (0..5).collect(),
            (0..FIRST_CHUNK).collect(),
            (0..200).collect(),
            emptied,
            appended,
        ] {
            let values: Vec<usize> = v.all_chunks().flatten().copied().collect();
            let positions: Vec<(usize, usize)> = v
                .all_chunks()
                .enumerate()
                .flat_map(|(c, chunk)| chunk.iter().enumerate().map(move |(o, &x)| (c * 64 + o, x)))
                .collect();
            for skip in 0..=values.len() {
                let mut it = v.iter();
                let mut stepped: Vec<usize> = it.by_ref().take(skip).copied().collect();
                let (low, high) = it.size_hint();
                let rest: Vec<usize> = it.fold(Vec::new(), |mut acc, &x| {
                    acc.push(x);
                    acc
                });
                assert!(low <= rest.len() && high.is_none_or(|h| h >= rest.len()));
                stepped.extend(rest);
                assert_eq!(stepped, values, "iter, {skip} stepped");
                let mut it = v.positions();
                let mut stepped: Vec<(usize, usize)> =
                    it.by_ref().take(skip).map(|(p, &x)| (p, x)).collect();
                stepped.extend(it.fold(Vec::new(), |mut acc, (p, &x)| {
                    acc.push((p, x));
                    acc
                }));
                assert_eq!(stepped, positions, "positions, {skip} stepped");
                let mut it = v.iter();
                it.by_ref().take(skip).for_each(drop);
                assert!(it.copied().eq(values[skip..].iter().copied()));
            }
        }
    }

    /// Every record comes back once, whatever the order, and a chunk is freed with its last.
    #[test]
    fn chunks_give_each_record_and_free_used_up_chunks() {
        let n = CHUNK * 2 + 7;
        let v: ChunkedVec<u64> = (0..n as u64).collect();
        let positions: Vec<usize> = v.positions().map(|(p, _)| p).collect();
        let mut c = v.into_taker();
        let first = c.chunks[0].len();
        for (i, &p) in positions.iter().enumerate().take(first).rev() {
            assert_eq!(c.take(p), Some(i as u64));
        }
        assert_eq!(c.chunks[0].capacity(), 0, "first chunk freed");
        assert_eq!(c.take(positions[n - 1]), Some(n as u64 - 1));
        assert_eq!(c.take(positions[0]), None, "freed with its chunk");
        assert_eq!(c.take(positions[n - 1] + CHUNK), None, "out of range");
        assert!(c.chunks[1].capacity() > 0 && c.chunks.last().unwrap().capacity() > 0);
        let empty = ChunkedVec::<u64>::new().into_taker();
        assert!(empty.chunks.is_empty());
    }
}
