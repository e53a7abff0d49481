//! Records kept as their per-record facts plus an index into a table of the facts many records
//! repeat.
//!
//! A kernel dispatch record is 112 bytes decoded, but most of it (launching thread, agent,
//! queue, kernel id, grid, work-group and segment sizes, pipe) is the same for every dispatch of
//! one kernel shape from one thread on one queue. Keeping those once in a table and a `u32`
//! index per record holds a dispatch in 24 bytes while tracing (at most 64 B are retained per
//! event): of its ids, start and duration only the low halves stay with the record, the high
//! ones, which change every 2^32 ids or nanoseconds, go with the shared facts.
//! API calls, a thread's launch facts and its sync facts are packed the same way. Reads give
//! the whole record back by value, so the join sees the decoded form.
//!
//! The table is per store (one writer: the delivery thread of one buffer), so interning takes
//! no lock. Its lookup map is capped and cleared when full: a workload whose every dispatch has
//! a new shape costs one table entry per record (no worse than the unpacked record), never an
//! unbounded map. A store that sees more than one shape also keeps a small memo of entries by
//! hash: one read and one compare find a shape that consecutive records do not repeat (many
//! threads' records interleaved in one buffer, a thread's calls of a few operations in turn),
//! before the map is probed.

use std::hash::{BuildHasher, Hash};

use super::chunked::{ChunkedVec, TakeOnce, CHUNK};
use crate::fastmap::HashMap;

/// A record that splits into facts of its own and facts shared with many others.
pub trait Pack: Copy {
    /// What differs per record (times, ids).
    type Each: Copy;
    /// What many records repeat; interned once per store.
    type Shared: Copy + Eq + Hash;
    fn split(self) -> (Self::Each, Self::Shared);
    fn join(each: Self::Each, shared: &Self::Shared) -> Self;
    /// The record's correlation id, read from its own facts without unpacking it; `shared`
    /// gives its shared facts, for a layout that keeps part of the id with them (a layout
    /// that does not never calls it, so the table is not read).
    fn id(each: &Self::Each, shared: impl FnOnce() -> Self::Shared) -> u64;
}

/// Lookup entries kept before the map is cleared (the table keeps every entry, so indexes stay
/// valid; only the deduplication restarts). 16 k shapes per buffer covers real workloads.
const INDEX_CAP: usize = 1 << 14;

/// No memoized entry.
const NONE: u32 = u32::MAX;

/// Slots of the memo of entries by hash (`PackedVec::memo`): a power of two.
const MEMO_BITS: u32 = 8;
const MEMO_SLOTS: usize = 1 << MEMO_BITS;

/// The memo's slot of a map hash: its bits mixed once more, so that every bit counts toward
/// the top ones taken (a hash of one word keeps what a bit far up adds out of some of its bits:
/// launches told apart by their thread alone would share a slot).
#[inline(always)]
fn memo_slot(hash: u64) -> usize {
    (hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (u64::BITS - MEMO_BITS)) as usize
}

/// Table entries a store holds before it keeps the memo. A store of one shape finds it by
/// `last` alone and allocates none; from its second, records that differ from the one before
/// (a thread's calls of a few operations in turn, as every program makes them: launch, copy,
/// event record, wait) find their entry by a memo read and a compare, not a map probe.
const MEMO_FROM: usize = 2;

#[derive(Debug, Clone, Copy)]
struct Packed<E> {
    each: E,
    shared: u32,
}

/// Append-only packed records (see the module comment).
#[derive(Debug, Clone)]
pub struct PackedVec<T: Pack, const MAX: usize = CHUNK> {
    records: ChunkedVec<Packed<T::Each>, MAX>,
    table: Vec<T::Shared>,
    index: HashMap<T::Shared, u32>,
    /// The entry the previous push used: consecutive records of one queue nearly always
    /// repeat it, so most pushes compare once and skip the hash …
    last: u32,
    /// … and a copy of it (`table[last]`, `None` when `last` is `NONE`), so that compare reads
    /// this struct alone: no bounds check, no load through the table.
    last_shared: Option<T::Shared>,
    /// A table index per slot of the shared facts' hash (its top `MEMO_BITS` bits), the entry
    /// last found there: empty until the table holds `MEMO_FROM` entries, then `MEMO_SLOTS`.
    /// Only indexes the map gave since it was last cleared (so a hit is the entry the map would
    /// give: the same records, the same entries), and a hint only: an index is used once the
    /// table's entry there equals the facts sought, so a stale one (the table rebased or
    /// moved) is a miss, never a wrong entry.
    memo: Box<[u32]>,
}

impl<T: Pack, const MAX: usize> Default for PackedVec<T, MAX> {
    fn default() -> Self {
        PackedVec {
            records: ChunkedVec::new(),
            table: Vec::new(),
            index: HashMap::default(),
            last: NONE,
            last_shared: None,
            memo: Box::default(),
        }
    }
}

impl<T: Pack, const MAX: usize> PackedVec<T, MAX> {
    /// Takes every record, leaving an empty vector whose first chunk will have the room the
    /// last chunk had (`ChunkedVec::take_keeping_room`).
    pub fn take_keeping_room(&mut self) -> Self {
        let records = self.records.take_keeping_room();
        let emptied = std::mem::take(&mut self.records);
        let mut taken = std::mem::take(self);
        taken.records = records;
        self.records = emptied;
        taken
    }

    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `value`; `false` (nothing stored) only when the table already has 2^32 − 1
    /// entries, which the memory ceiling stops long before (callers count it as a drop).
    #[inline(always)]
    pub fn push(&mut self, value: T) -> bool {
        let (each, shared) = value.split();
        let Some(at) = self.intern(shared) else {
            return false;
        };
        self.records.push(Packed { each, shared: at });
        true
    }

    /// [`Self::push`] for a record that takes neither an allocation nor a table lookup: the
    /// last chunk has room and the record repeats the previous one's shared entry (consecutive
    /// records of one stream). Loads, compares and stores, nothing that can panic. Returns
    /// false, having changed nothing, for any other record: [`Self::push`] takes it.
    #[inline(always)]
    pub fn push_repeating(&mut self, value: T) -> bool {
        let (each, shared) = value.split();
        if !self.records.has_room() || self.last_shared != Some(shared) {
            return false;
        }
        self.records.push(Packed {
            each,
            shared: self.last,
        });
        true
    }

    /// [`Self::push_repeating`], or a record whose shared entry the memo holds (a thread's
    /// calls of a few operations in turn): no allocation, no probe of the map. Loads, compares,
    /// a hash and stores, nothing that can panic. Returns false, having changed nothing, for
    /// any other record: [`Self::push`] takes it. Where records mostly repeat the one before
    /// (a thread's launch facts: one stream), [`Self::push_repeating`] is the shorter path.
    #[inline(always)]
    pub fn push_known(&mut self, value: T) -> bool {
        let (each, shared) = value.split();
        if !self.records.has_room() {
            return false;
        }
        let at = if self.last_shared == Some(shared) {
            self.last
        } else {
            let slot = self.memo_slot_of(&shared);
            let Some(at) = slot.and_then(|slot| self.memoized_in(slot, &shared)) else {
                return false;
            };
            self.last = at;
            self.last_shared = Some(shared);
            at
        };
        self.records.push(Packed { each, shared: at });
        true
    }

    /// [`Self::push`], counting a refused record into `dropped` (its owner's count of records
    /// lost to memory), as every owner does.
    #[inline]
    pub fn push_or_count(&mut self, value: T, dropped: &mut u64) {
        if !self.push(value) {
            *dropped += 1;
        }
    }

    #[inline(always)]
    fn intern(&mut self, shared: T::Shared) -> Option<u32> {
        if self.last_shared == Some(shared) {
            return Some(self.last);
        }
        self.intern_new(shared)
    }

    /// [`Self::intern`] for a record that does not repeat the previous one's entry: the memo's
    /// slot of its hash, then (out of line) the map.
    #[inline(never)]
    fn intern_new(&mut self, shared: T::Shared) -> Option<u32> {
        let Some(slot) = self.memo_slot_of(&shared) else {
            return self.intern_by_map(shared, None);
        };
        let Some(at) = self.memoized_in(slot, &shared) else {
            return self.intern_by_map(shared, Some(slot));
        };
        self.last = at;
        self.last_shared = Some(shared);
        Some(at)
    }

    /// The memo's slot for `shared`; `None` while the store keeps no memo.
    #[inline(always)]
    fn memo_slot_of(&self, shared: &T::Shared) -> Option<usize> {
        (!self.memo.is_empty()).then(|| memo_slot(self.index.hasher().hash_one(shared)))
    }

    /// The entry memoized in `slot`, when it is `shared`'s.
    #[inline(always)]
    fn memoized_in(&self, slot: usize, shared: &T::Shared) -> Option<u32> {
        let at = self.memo.get(slot).copied().unwrap_or(NONE);
        (self.table.get(at as usize) == Some(shared)).then_some(at)
    }

    /// [`Self::intern_new`] past the memo: the entry of `shared` by the map, added when absent
    /// (`None` only when the table already has 2^32 − 1 entries), then memoized in `slot`; the
    /// memo is made once the table holds `MEMO_FROM` entries.
    #[inline(never)]
    fn intern_by_map(&mut self, shared: T::Shared, slot: Option<usize>) -> Option<u32> {
        let at = match self.index.get(&shared) {
            Some(&at) => at,
            None => {
                let at = u32::try_from(self.table.len())
                    .ok()
                    .filter(|&i| i != NONE)?;
                if self.index.len() >= INDEX_CAP {
                    self.index.clear();
                    self.memo.fill(NONE);
                }
                self.table.push(shared);
                self.index.insert(shared, at);
                at
            }
        };
        if let Some(m) = slot.and_then(|s| self.memo.get_mut(s)) {
            *m = at;
        } else if self.memo.is_empty() && self.table.len() >= MEMO_FROM {
            self.memo = vec![NONE; MEMO_SLOTS].into_boxed_slice();
        }
        self.last = at;
        self.last_shared = Some(shared);
        Some(at)
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// The most recently pushed record.
    pub fn last(&self) -> Option<T> {
        let p = self.records.last()?;
        Some(self.unpack(p))
    }

    /// Replaces the most recently pushed record (a fact completed after it was pushed);
    /// `false`, nothing changed, when there is none or the table is full.
    pub fn set_last(&mut self, value: T) -> bool {
        if self.records.is_empty() {
            return false;
        }
        let (each, shared) = value.split();
        let Some(at) = self.intern(shared) else {
            return false;
        };
        if let Some(p) = self.records.last_mut() {
            *p = Packed { each, shared: at };
        }
        true
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    #[inline]
    fn unpack(&self, p: &Packed<T::Each>) -> T {
        // Every record's index was handed out by `intern` or rebased by `append` with its table.
        T::join(p.each, &self.table[p.shared as usize])
    }

    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.records.iter().map(|p| self.unpack(p))
    }

    /// Every record's correlation id ([`Pack::id`]), in order, none unpacked.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.ids_with_entry().map(|(id, _)| id)
    }

    /// The shared facts of every entry of the table: each record's are among them (and
    /// perhaps some no record names any more, after `retain` or a split). A question of the
    /// shared facts alone is asked here once per entry, not per record.
    pub fn shared(&self) -> &[T::Shared] {
        &self.table
    }

    /// Every record with its position (see [`ChunkedVec::positions`]).
    pub fn positions(&self) -> impl Iterator<Item = (usize, T)> + '_ {
        self.records.positions().map(|(i, p)| (i, self.unpack(p)))
    }

    /// Every record with the index of its shared entry (below [`Self::entries`]), so that a
    /// reader derives what depends on the shared facts alone once per entry, not per record.
    pub fn iter_with_entry(&self) -> impl Iterator<Item = (T, usize)> + '_ {
        self.records
            .iter()
            .map(|p| (self.unpack(p), p.shared as usize))
    }

    /// Every record's correlation id ([`Pack::id`]) with the index of its shared entry, none
    /// unpacked: a reader that asks a question of the shared facts (a call's operation) reads
    /// it once per entry, and only the id per record.
    pub fn ids_with_entry(&self) -> impl Iterator<Item = (u64, usize)> + '_ {
        self.records.iter().map(|p| {
            let entry = p.shared as usize;
            (T::id(&p.each, || self.table[entry]), entry)
        })
    }

    /// How many records name each shared entry, by the entry's index: a question of the
    /// shared facts alone asked of every record costs a count per record, nothing unpacked.
    pub fn entry_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.table.len()];
        for p in self.records.iter() {
            counts[p.shared as usize] += 1;
        }
        counts
    }

    /// How many shared entries there are.
    pub fn entries(&self) -> usize {
        self.table.len()
    }

    /// The record at `position`.
    pub fn get(&self, position: usize) -> Option<T> {
        self.records.get(position).map(|p| self.unpack(p))
    }

    /// Moves every record of `other` to the end of this one: the chunks move as they are, and
    /// the indexes of the shorter of the two are shifted past the other's table entries.
    /// Returns the records refused (only when the tables together would pass 2^32 − 1
    /// entries; then `other` is pushed record by record).
    pub fn append(&mut self, mut other: PackedVec<T, MAX>) -> u64 {
        let base = self.table.len();
        let fits = u32::try_from(base + other.table.len()).is_ok_and(|n| n < NONE);
        if !fits {
            let refused = other.iter().filter(|&r| !self.push(r)).count();
            return refused as u64;
        }
        if other.len() > self.len() {
            // The shorter is rebased: this one's records go past the other's table, and the
            // other's chunks, lookup map and last entry stay as they are.
            let before = other.table.len() as u32;
            if before > 0 {
                for p in self.records.iter_mut() {
                    p.shared += before;
                }
            }
            other.table.append(&mut self.table);
            let mine = std::mem::replace(&mut self.records, other.records);
            self.records.prepend(mine);
            self.table = other.table;
            self.index = other.index;
            self.last = other.last;
            self.last_shared = other.last_shared;
            self.memo = other.memo;
            return 0;
        }
        if base > 0 {
            for p in other.records.iter_mut() {
                p.shared += base as u32;
            }
        }
        self.records.append(other.records);
        self.table.append(&mut other.table);
        0
    }

    /// The same records in a vector of chunks of at most `M` records (the chunks moved as they
    /// are when they fit: `M` at least `MAX`; else repacked a record at a time).
    pub fn rechunked<const M: usize>(self) -> PackedVec<T, M> {
        if MAX > M {
            return self.iter().collect();
        }
        let PackedVec {
            records,
            table,
            index,
            last,
            last_shared,
            memo,
        } = self;
        PackedVec {
            records: records.rechunked(),
            table,
            index,
            last,
            last_shared,
            memo,
        }
    }

    /// Moves every record out unpacked, leaving this empty. Each chunk is freed once
    /// unpacked: the packed and unpacked forms of a store are never both held whole.
    pub fn drain_into(&mut self, out: &mut Vec<T>) {
        self.drain_into_toward(out, 0);
    }

    /// As `drain_into`, `out` growing toward `total` records (`chunked::room_toward`; 0: not
    /// known).
    pub fn drain_into_toward(&mut self, out: &mut Vec<T>, total: usize) {
        let table = std::mem::take(&mut self.table);
        for chunk in std::mem::take(&mut self.records).into_chunks() {
            super::chunked::room_toward(out, chunk.len(), total);
            out.extend(
                chunk
                    .iter()
                    .map(|p| T::join(p.each, &table[p.shared as usize])),
            );
        }
        self.clear();
    }

    /// Moves the records `take` picks into a new vector and keeps the others, both in their
    /// order. The kept ones stay where they are, with the table (an entry only the moved ones
    /// used stays in it); the moved ones keep their own facts and take their shared entries
    /// along, each once: for the records a capture window hands to the next (`model::carry`).
    pub fn split_where(&mut self, take: impl FnMut(&T) -> bool) -> PackedVec<T, MAX> {
        self.split_ids_where(|_| true, take)
    }

    /// [`Self::split_where`] for a `take` that picks only records whose id `may_take` passes:
    /// a record's id is read packed, and a record is unpacked for `take` only when it passes.
    /// A chunk none of whose ids passes is left as it is, unwritten (a capture window hands on
    /// its latest calls: most chunks hold none of them).
    pub fn split_ids_where(
        &mut self,
        may_take: impl Fn(u64) -> bool,
        mut take: impl FnMut(&T) -> bool,
    ) -> PackedVec<T, MAX> {
        let mut taken = PackedVec::new();
        // Each entry of this table the moved records use, at its index in `taken`'s table.
        let mut moved_entry: Vec<u32> = Vec::new();
        let PackedVec { records, table, .. } = self;
        let id = |p: &Packed<T::Each>| T::id(&p.each, || table[p.shared as usize]);
        taken.records = records.split_where(
            |p| may_take(id(p)),
            |p| may_take(id(p)) && take(&T::join(p.each, &table[p.shared as usize])),
            |p| {
                // An entry moved already (most records: a window hands on many calls of a few
                // shapes) is a read; only the first record of each entry takes it along.
                p.shared = match moved_entry.get(p.shared as usize) {
                    Some(&at) if at != NONE => at,
                    _ => take_entry_along(&mut moved_entry, &mut taken, table, p.shared),
                };
            },
        );
        taken
    }

    /// Keeps the records `keep` picks, in order, each in place with its table entry (an
    /// entry only removed records used stays in the table).
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let PackedVec { records, table, .. } = self;
        records.retain(|p| keep(&T::join(p.each, &table[p.shared as usize])));
    }

    /// Every record, last first, each chunk freed once its records are read: a reader that
    /// makes something of each record (the host events of the calls) never holds both forms
    /// whole.
    pub fn into_iter_from_the_end(self) -> FromTheEnd<T, MAX> {
        let PackedVec { records, table, .. } = self;
        FromTheEnd {
            chunks: records.into_chunks().collect(),
            table,
        }
    }

    pub fn clear(&mut self) {
        self.records.clear();
        self.table.clear();
        self.index.clear();
        self.memo.fill(NONE);
        self.last = NONE;
        self.last_shared = None;
    }

    /// A reader that takes each record once, by position, freeing chunks as they are used up.
    pub fn into_taker(self) -> PackedTaker<T, MAX> {
        PackedTaker {
            records: self.records.into_taker(),
            table: self.table,
        }
    }

    /// Bytes held for the records and their table (charged against the memory ceiling).
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        self.records.len() * size_of::<Packed<T::Each>>()
            + self.table.len() * size_of::<T::Shared>()
    }

    /// Bytes of storage reserved (chunks, table and lookup map), for diagnostics and benches.
    pub fn capacity_bytes(&self) -> usize {
        use std::mem::size_of;
        self.records.capacity_bytes()
            + self.table.capacity() * size_of::<T::Shared>()
            + self.index.capacity() * (size_of::<T::Shared>() + size_of::<u32>() + 1)
            + self.memo.len() * size_of::<u32>()
    }
}

/// The index in `taken`'s table of this table's entry `at`, added there when the first record
/// naming it moves (`PackedVec::split_ids_where`); `moved_entry` maps this table's indexes to
/// `taken`'s (made on the first call). Out of line: the call for each record moved stays a read.
#[cold]
#[inline(never)]
fn take_entry_along<T: Pack, const MAX: usize>(
    moved_entry: &mut Vec<u32>,
    taken: &mut PackedVec<T, MAX>,
    table: &[T::Shared],
    at: u32,
) -> u32 {
    if moved_entry.is_empty() {
        *moved_entry = vec![NONE; table.len()];
    }
    let entry = &mut moved_entry[at as usize];
    if *entry == NONE {
        // A subset of this table's entries fits in a table as large as it.
        *entry = taken.table.len() as u32;
        let shared = table[at as usize];
        taken.table.push(shared);
        if taken.index.len() < INDEX_CAP {
            taken.index.insert(shared, *entry);
        }
    }
    *entry
}

/// Bytes one record occupies in a [`PackedVec`], beside its share of the table.
pub const fn packed_size<T: Pack>() -> usize {
    std::mem::size_of::<Packed<T::Each>>()
}

/// Records read last first, each chunk freed once read (`PackedVec::into_iter_from_the_end`).
pub struct FromTheEnd<T: Pack, const MAX: usize = CHUNK> {
    chunks: Vec<Vec<Packed<T::Each>>>,
    table: Vec<T::Shared>,
}

impl<T: Pack, const MAX: usize> FromTheEnd<T, MAX> {
    /// Bytes of record storage still held.
    pub fn capacity_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.capacity() * std::mem::size_of::<Packed<T::Each>>())
            .sum()
    }
}

impl<T: Pack, const MAX: usize> Iterator for FromTheEnd<T, MAX> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        loop {
            let chunk = self.chunks.last_mut()?;
            match chunk.pop() {
                Some(p) => return Some(T::join(p.each, &self.table[p.shared as usize])),
                None => drop(self.chunks.pop()),
            }
        }
    }
}

/// Records taken once each, by position (see [`TakeOnce`]).
pub struct PackedTaker<T: Pack, const MAX: usize = CHUNK> {
    records: TakeOnce<Packed<T::Each>, MAX>,
    table: Vec<T::Shared>,
}

impl<T: Pack, const MAX: usize> PackedTaker<T, MAX> {
    /// The record at `position` as its own facts (`Pack::Each`) and the index of its shared
    /// entry, for a reader that derives what it needs of an entry once (`shared`): the record
    /// is not assembled whole per record (its fields copied through the reader's stack), only
    /// the few facts read are loaded.
    #[inline]
    pub fn take_each(&mut self, position: usize) -> Option<(T::Each, usize)> {
        let p = self.records.take(position)?;
        Some((p.each, p.shared as usize))
    }

    /// As [`TakeOnce::prefetch`]: the record at `position` asked into the cache.
    #[inline]
    pub fn prefetch(&self, position: usize) {
        self.records.prefetch(position);
    }

    /// The facts the records of entry `entry` share (`take_each`).
    #[inline]
    pub fn shared(&self, entry: usize) -> Option<&T::Shared> {
        self.table.get(entry)
    }

    /// How many shared entries there are (indexes from `take_each` are below this).
    pub fn entries(&self) -> usize {
        self.table.len()
    }
}

impl<T: Pack, const MAX: usize> From<Vec<T>> for PackedVec<T, MAX> {
    fn from(v: Vec<T>) -> Self {
        v.into_iter().collect()
    }
}

impl<T: Pack, const MAX: usize> FromIterator<T> for PackedVec<T, MAX> {
    /// For tests and converters: a refused record (never below 2^32 − 1 shapes) is not kept.
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut r = PackedVec::new();
        for v in iter {
            r.push(v);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::chunked::CHUNK;

    /// A record whose second half repeats: `(own, shape)`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct R(u64, u16);

    impl Pack for R {
        type Each = u64;
        type Shared = u16;
        fn split(self) -> (u64, u16) {
            (self.0, self.1)
        }
        fn join(each: u64, shared: &u16) -> R {
            R(each, *shared)
        }
        fn id(each: &u64, _: impl FnOnce() -> u16) -> u64 {
            *each
        }
    }

    /// Each entry's count is how many records name it, over chunks; an entry whose records
    /// were all dropped counts none.
    #[test]
    fn entry_counts_count_the_records_naming_each_entry() {
        let rs: Vec<R> = (0..CHUNK as u64 * 2 + 5)
            .map(|i| R(i, (i % 7) as u16))
            .collect();
        let mut v: PackedVec<R> = rs.clone().into();
        let counts = v.entry_counts();
        for (entry, &n) in v.shared().iter().zip(&counts) {
            assert_eq!(n, rs.iter().filter(|r| r.1 == *entry).count());
        }
        v.retain(|r| r.1 != 3);
        let counts = v.entry_counts();
        assert_eq!(counts.len(), 7);
        let three = v.shared().iter().position(|&e| e == 3).unwrap();
        assert_eq!(counts[three], 0);
        assert_eq!(counts.iter().sum::<usize>(), v.len());
    }

    /// Each record's id comes with the entry of its shared facts, in order, over chunks and
    /// after a split.
    #[test]
    fn ids_come_with_their_records_entries() {
        let rs: Vec<R> = (0..CHUNK as u64 * 2 + 5)
            .map(|i| R(i, (i % 5) as u16))
            .collect();
        let mut v: PackedVec<R> = rs.clone().into();
        let _ = v.split_where(|r| r.0 % 3 == 0);
        let kept: Vec<R> = rs.into_iter().filter(|r| r.0 % 3 != 0).collect();
        let read: Vec<(u64, u16)> = v
            .ids_with_entry()
            .map(|(id, entry)| (id, v.shared()[entry]))
            .collect();
        let want: Vec<(u64, u16)> = kept.iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(read, want);
    }

    #[test]
    fn records_come_back_whole_and_shapes_are_stored_once() {
        let rs: Vec<R> = (0..CHUNK as u64 * 2 + 5)
            .map(|i| R(i, (i % 7) as u16))
            .collect();
        let v: PackedVec<R> = rs.clone().into();
        assert_eq!(v.len(), rs.len());
        assert_eq!(v.table.len(), 7);
        assert!(v.iter().eq(rs.iter().copied()));
        for (p, r) in v.positions() {
            assert_eq!(v.get(p), Some(r));
        }
    }

    /// Each allocation-free append takes a record repeating the last one's entry into a
    /// chunk with room, and declines a new entry, or any record without room, without a change.
    #[test]
    fn allocation_free_appends_take_only_what_needs_no_room_nor_lookup() {
        type Push = fn(&mut PackedVec<R, 16>, R) -> bool;
        for push in [PackedVec::push_repeating as Push, PackedVec::push_known] {
            let mut v: PackedVec<R, 16> = PackedVec::new();
            assert!(!push(&mut v, R(1, 5)), "no chunk yet");
            assert!(v.push(R(1, 5)));
            assert!(!push(&mut v, R(2, 6)), "another entry");
            assert_eq!(v.len(), 1);
            let mut n = 1;
            while push(&mut v, R(n + 1, 5)) {
                n += 1;
            }
            // The first chunk's room (16) is filled, then it declines.
            assert_eq!((n, v.len()), (16, 16));
            assert!(v.push(R(17, 5)), "the full path grows a chunk");
            assert!(push(&mut v, R(18, 5)));
            assert!(v.iter().eq((1..=18).map(|i| R(i, 5))));
        }
    }

    /// Past the repeating record, the allocation-free append takes a shape the memo holds
    /// (shapes in turn, each seen once already), and declines one it does not hold, or any
    /// once the chunk is full, without a change.
    #[test]
    fn push_known_takes_a_shape_the_memo_holds() {
        let mut v: PackedVec<R, 16> = PackedVec::new();
        for (i, shape) in [(1, 3), (2, 9), (3, 4), (4, 3), (5, 9)] {
            assert!(v.push(R(i, shape)));
        }
        // 3 and 9 have come twice (the second time the memo took them); 4 once, after the memo
        // was made.
        let table = v.table.clone();
        assert!(v.push_known(R(6, 4)), "memoized when it first came");
        assert!(v.push_known(R(7, 3)));
        assert!(!v.push_known(R(8, 11)), "a new shape takes the map");
        assert_eq!(
            (v.len(), &v.table),
            (7, &table),
            "declined without a change"
        );
        while v.len() < 16 {
            let i = v.len() as u64 + 1;
            assert!(v.push_known(R(i, [3, 9, 4][i as usize % 3])));
        }
        assert!(!v.push_known(R(17, 9)), "a full chunk");
        let shapes: Vec<u16> = v.iter().map(|r| r.1).collect();
        assert_eq!(&shapes[..7], &[3, 9, 4, 3, 9, 4, 3]);
        assert!(v.iter().map(|r| r.0).eq(1..=16));
    }

    /// When the lookup map is cleared at its cap, indexes handed out before stay valid.
    #[test]
    fn a_full_lookup_map_restarts_without_breaking_indexes() {
        let n = INDEX_CAP as u64 * 2 + 3;
        let rs: Vec<R> = (0..n).map(|i| R(i, i as u16)).collect();
        let mut v: PackedVec<R> = rs.clone().into();
        assert!(v.index.len() <= INDEX_CAP);
        assert!(v.iter().eq(rs.iter().copied()));
        // A shape seen before the clear is stored again: a duplicate entry, not a wrong one.
        assert!(v.push(R(7, 1)));
        assert_eq!(v.iter().last(), Some(R(7, 1)));
    }

    /// A split keeps the records left in place, in order, with the table as it was (no
    /// record repacked), and gives the ones taken in order; both read back whole, by
    /// position too, and pushing after it goes on where the vector ended.
    #[test]
    fn a_split_keeps_the_rest_in_place_and_in_order() {
        let n = CHUNK as u64 * 2 + 5;
        let rs: Vec<R> = (0..n).map(|i| R(i, (i % 5) as u16)).collect();
        let mut v: PackedVec<R> = rs.clone().into();
        let table = v.table.clone();
        // Every record of the first chunk, and a few of the others.
        let take = |r: &R| r.0 < CHUNK as u64 || r.0 % 1000 == 7;
        let taken = v.split_where(take);
        assert!(taken.iter().eq(rs.iter().copied().filter(take)));
        assert!(v.iter().eq(rs.iter().copied().filter(|r| !take(r))));
        assert_eq!(v.len(), rs.iter().filter(|r| !take(r)).count());
        assert_eq!(v.table, table, "the table is kept as it was");
        for (p, r) in v.positions() {
            assert_eq!(v.get(p), Some(r));
        }
        assert!(v.push(R(n, 9)));
        assert_eq!(v.iter().last(), Some(R(n, 9)));
        let left = v.len();
        assert_eq!(v.split_where(|_| true).len(), left);
        assert!(v.is_empty());
    }

    /// A split by ids takes what the split by records takes, in order, with each shared entry
    /// once, unpacking only the records whose ids it may take; it leaves the chunks none of
    /// whose ids it may take as they were, and the rest in order; the records taken and kept
    /// read back whole, and pushing goes on after both.
    #[test]
    fn a_split_by_ids_takes_what_a_split_takes_and_leaves_other_chunks_alone() {
        let n = CHUNK as u64 * 3 + 5;
        let rs: Vec<R> = (0..n).map(|i| R(i, (i % 5) as u16)).collect();
        // The latest records, with gaps, and one of the first chunk's.
        let from = CHUNK as u64 * 2 + 100;
        let may = |id: u64| id >= from || id == 3;
        let take = |r: &R| (r.0 >= from && r.0 % 3 != 0) || r.0 == 3;
        let mut by_ids: PackedVec<R> = rs.clone().into();
        let mut whole = by_ids.clone();
        let second: Vec<*const Packed<u64>> = by_ids
            .records
            .chunk(1)
            .iter()
            .map(|p| p as *const _)
            .collect();
        // Counted: a record is unpacked for `take` only when its id passes.
        let unpacked = std::cell::Cell::new(0);
        let taken = by_ids.split_ids_where(may, |r| {
            unpacked.set(unpacked.get() + 1);
            take(r)
        });
        assert_eq!(unpacked.get(), rs.iter().filter(|r| may(r.0)).count());
        let want = whole.split_where(take);
        assert!(taken.iter().eq(want.iter()));
        assert!(taken.iter().eq(rs.iter().copied().filter(take)));
        assert_eq!(taken.table.len(), 5, "each entry once");
        assert!(by_ids.iter().eq(rs.iter().copied().filter(|r| !take(r))));
        assert_eq!(by_ids.len(), rs.iter().filter(|r| !take(r)).count());
        let second_after: Vec<*const Packed<u64>> = by_ids
            .records
            .chunk(1)
            .iter()
            .map(|p| p as *const _)
            .collect();
        assert_eq!(
            second, second_after,
            "a chunk with no id to take is not moved"
        );
        for (p, r) in by_ids.positions() {
            assert_eq!(by_ids.get(p), Some(r));
        }
        let mut taken = taken;
        assert!(taken.push(R(n, 2)) && taken.push(R(n + 1, 9)));
        assert_eq!(
            taken.table.len(),
            6,
            "a pushed shape seen before reuses its entry"
        );
        assert!(by_ids.push(R(n + 2, 1)));
        assert_eq!(by_ids.iter().last(), Some(R(n + 2, 1)));
        let left = by_ids.len();
        assert_eq!(by_ids.split_ids_where(|_| true, |_| true).len(), left);
        assert!(by_ids.is_empty());
    }

    /// Shapes interleaved (no record repeats the one before): a store of one shape keeps no
    /// memo; past `MEMO_FROM` it does, and finds each shape's one entry by it.
    #[test]
    fn interleaved_shapes_are_found_once_each_with_the_memo_past_its_threshold() {
        let one: PackedVec<R> = (0..100u64).map(|i| R(i, 7)).collect();
        assert!(one.memo.is_empty(), "one shape: no memo");
        let shapes = 64;
        let rs: Vec<R> = (0..shapes * 50)
            .map(|i| R(i, (i * 7 % shapes) as u16))
            .collect();
        let v: PackedVec<R> = rs.clone().into();
        assert_eq!(v.memo.len(), MEMO_SLOTS);
        assert_eq!(v.table.len(), shapes as usize, "each shape stored once");
        assert!(v.iter().eq(rs.iter().copied()));
    }

    /// A few shapes in turn, as a thread's calls of a few operations come (launch, copy, event
    /// record, wait): from the second shape on the store keeps the memo, and once each shape
    /// has come again it is found there, without a probe of the map.
    #[test]
    fn a_few_shapes_in_turn_are_found_by_the_memo() {
        let shapes = [3u16, 9, 4, 1];
        let v: PackedVec<R> = (0..400u64).map(|i| R(i, shapes[i as usize % 4])).collect();
        assert_eq!(v.table, shapes, "each shape stored once");
        assert_eq!(v.memo.len(), MEMO_SLOTS, "a memo from the second shape");
        for (entry, shape) in v.table.iter().enumerate() {
            let slot = memo_slot(v.index.hasher().hash_one(shape));
            assert_eq!(v.memo[slot] as usize, entry, "shape {shape} in the memo");
        }
    }

    /// When the map is cleared at its cap the memo is too: a shape seen before the clear gets
    /// a new entry, as from the map alone, never the older one (the same entries either way).
    #[test]
    fn the_memo_forgets_what_the_map_forgets() {
        let mut v: PackedVec<R> = (0..INDEX_CAP as u64).map(|i| R(i, i as u16)).collect();
        assert!(!v.memo.is_empty());
        assert!(v.push(R(1, 5)), "found by the memo or the map");
        assert_eq!(v.table.len(), INDEX_CAP);
        assert!(v.push(R(2, INDEX_CAP as u16)), "clears the map");
        assert!(v.push(R(3, 5)));
        assert_eq!(
            v.table.len(),
            INDEX_CAP + 2,
            "a new entry, as the map alone gives"
        );
        assert_eq!(v.iter().last(), Some(R(3, 5)));
    }

    /// The memo is a hint: after the table is rebased by an append, moved by a split or
    /// cleared, its stale indexes never give a record another shape's entry.
    #[test]
    fn a_stale_memo_never_gives_a_wrong_entry() {
        let shapes = 32;
        let rs = |from: u64, shift: u64| -> Vec<R> {
            (from..from + shapes * 3)
                .map(|i| R(i, ((i + shift) % shapes) as u16))
                .collect()
        };
        let (short, long) = (rs(0, 0), [rs(1000, 5), rs(2000, 5)].concat());
        let mut a: PackedVec<R> = short.clone().into();
        assert!(!a.memo.is_empty());
        // The longer is appended: this one's entries are rebased past its table.
        assert_eq!(a.append(long.clone().into()), 0);
        let more = rs(5000, 11);
        for &r in &more {
            assert!(a.push(r));
        }
        assert!(a.iter().eq([short, long, more].concat().into_iter()));
        let taken = a.split_where(|r| r.0 % 2 == 0);
        assert!(taken.iter().all(|r| r.0 % 2 == 0));
        a.clear();
        let again = rs(9000, 3);
        for &r in &again {
            assert!(a.push(r));
        }
        assert!(a.iter().eq(again.iter().copied()));
        assert_eq!(a.table.len(), shapes as usize);
    }

    /// Appended to a longer vector, a shorter one's records are rebased past its table; a
    /// longer one keeps its own entries, and the shorter one before it is rebased instead.
    /// Either way the records read back in order, by position too, and pushes go on.
    #[test]
    fn append_rebases_the_shorter_table() {
        let long = |from: u64| -> Vec<R> {
            (from..from + 9)
                .map(|i| R(i, (i % 4) as u16 + 20))
                .collect()
        };
        let short = vec![R(100, 7), R(101, 20)];
        for (first, second) in [(long(0), short.clone()), (short.clone(), long(0))] {
            let mut a: PackedVec<R> = first.clone().into();
            let b: PackedVec<R> = second.clone().into();
            assert_eq!(a.append(b), 0);
            let want = [first, second].concat();
            assert!(a.iter().eq(want.iter().copied()));
            for (p, r) in a.positions() {
                assert_eq!(a.get(p), Some(r));
            }
            assert!(a.push(R(7, 21)) && a.push(R(8, 7)));
            assert_eq!(a.len(), want.len() + 2);
            assert_eq!(a.iter().last(), Some(R(8, 7)));
        }
    }

    #[test]
    fn append_rebases_the_other_table() {
        let mut a: PackedVec<R> = vec![R(1, 10), R(2, 11), R(0, 10)].into();
        let b: PackedVec<R> = vec![R(3, 11), R(4, 12), R(5, 10)].into();
        assert_eq!(a.append(b), 0);
        let got: Vec<R> = a.iter().collect();
        assert_eq!(
            got,
            [R(1, 10), R(2, 11), R(0, 10), R(3, 11), R(4, 12), R(5, 10)]
        );
        // Pushing after an append interns against this vector's own entries.
        assert!(a.push(R(6, 11)));
        assert_eq!(a.iter().last(), Some(R(6, 11)));
        let (at, r) = a.positions().nth(4).unwrap();
        assert_eq!(r, R(4, 12));
        let mut t = a.into_taker();
        let (each, entry) = t.take_each(at).unwrap();
        assert_eq!(entry, 3, "b's entry 1, past a's 2");
        assert_eq!(R::join(each, t.shared(entry).unwrap()), R(4, 12));
        let mut out = Vec::new();
        let mut c: PackedVec<R> = vec![R(9, 9)].into();
        c.drain_into(&mut out);
        assert_eq!(out, [R(9, 9)]);
        assert!(c.is_empty() && c.table.is_empty());
    }

    /// Read from the end, the records come last first, whole, and each chunk is freed once
    /// its records are read; kept by a filter, the others stay in order.
    #[test]
    fn records_read_from_the_end_free_their_chunks_as_they_go() {
        // Chunks of 16, 32, … up to CHUNK (8,176 records in all), two more of CHUNK, and 11.
        let n = 8_176 + CHUNK as u64 * 2 + 11;
        let rs: Vec<R> = (0..n).map(|i| R(i, (i % 3) as u16)).collect();
        let v: PackedVec<R> = rs.clone().into();
        let mut from_end = v.clone().into_iter_from_the_end();
        let first: Vec<R> = from_end.by_ref().take(CHUNK + 12).collect();
        assert!(first
            .iter()
            .copied()
            .eq(rs.iter().rev().copied().take(CHUNK + 12)));
        drop(from_end);
        let all: Vec<R> = v.clone().into_iter_from_the_end().collect();
        assert!(all.into_iter().eq(rs.iter().rev().copied()));
        // A chunk is freed once its records are read: after the last chunk's 11 and one
        // more, the storage held is the chunks before it, full.
        let mut it = v.clone().into_iter_from_the_end();
        let before_last = (n as usize - 11) * packed_size::<R>();
        assert!(it.capacity_bytes() > before_last);
        assert_eq!(it.by_ref().take(12).count(), 12);
        assert_eq!(it.capacity_bytes(), before_last);
        assert_eq!(it.by_ref().count(), n as usize - 12);
        assert_eq!(it.capacity_bytes(), 0);
        let mut kept = v;
        kept.retain(|r| r.0 % 5 != 0);
        assert!(kept.iter().eq(rs.iter().copied().filter(|r| r.0 % 5 != 0)));
        assert_eq!(kept.len(), rs.iter().filter(|r| r.0 % 5 != 0).count());
    }
}
