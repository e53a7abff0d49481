//! Maps keyed by internal correlation id, for the join.
//!
//! The runtime hands correlation ids out process-wide in call order, so a collection's ids are
//! dense, and the join walks records sorted by time, which is nearly id order. A vector over
//! the id range then replaces hashing with an index and random probes of a large table with an
//! almost sequential walk: the join's time went mostly to cache misses in its per-id hash maps.

use crate::fastmap::HashMap;
use std::sync::Arc;

/// A map from correlation id to `V`: dense over a chosen id range, or over a chosen set of ids
/// (`IdRanks`: a slot per member, not per id of its range), a hash map for the other ids (or
/// for everything, when the ids are too sparse for a vector to pay).
///
/// The vector is made only once the range fills: the join creates a table per call-level fact
/// over the whole id range (8-16 B per id, a million ids in a large run), and in a given run
/// several stay empty or nearly (graph executables of a few graph launches, the roctx calls
/// among a million HIP calls). Until then the range's entries live in the hash map too.
#[derive(Debug, Clone)]
pub struct CorrMap<V> {
    base: u64,
    /// Ids `base..base + span` (or the members of `ranks`, `span` of them) may go to `dense` …
    span: u64,
    /// The set whose members the slots are, by rank (`None`: the range's ids are).
    ranks: Option<Arc<IdRanks>>,
    /// … made when `in_range` fills enough of the span (`vector_pays`; empty before).
    dense: Vec<Option<V>>,
    /// Entries of the range held in `spill` while `dense` is not made.
    in_range: u64,
    spill: HashMap<u64, V>,
}

impl<V> Default for CorrMap<V> {
    fn default() -> Self {
        CorrMap {
            base: 0,
            span: 0,
            ranks: None,
            dense: Vec::new(),
            in_range: 0,
            spill: HashMap::default(),
        }
    }
}

/// The vector is used while the range holds at most this many ids per expected entry (plus a
/// small constant), or more while it is the smaller (`vector_pays`), and never beyond
/// `MAX_DENSE` slots.
const MAX_SPREAD: u64 = 4;
const MAX_DENSE: u64 = 1 << 28;

impl<V> CorrMap<V> {
    /// A map dense over `lo..=hi` when about `expected` ids of that range will be stored.
    pub fn for_range(range: Option<(u64, u64)>, expected: usize) -> Self {
        let limit = Self::max_span(expected as u64).saturating_add(4096);
        let Some((lo, n)) = dense_span(range, limit) else {
            return Self::default();
        };
        CorrMap {
            base: lo,
            span: n,
            ranks: None,
            dense: Vec::new(),
            in_range: 0,
            spill: HashMap::default(),
        }
    }

    /// A map dense over the members of `ranks` (their ranks are the slots), a hash map for
    /// other ids.
    pub fn over(ranks: &Arc<IdRanks>) -> Self {
        CorrMap {
            base: 0,
            span: ranks.len() as u64,
            ranks: Some(ranks.clone()),
            dense: Vec::new(),
            in_range: 0,
            spill: HashMap::default(),
        }
    }

    #[inline]
    fn slot(&self, k: u64) -> Option<usize> {
        if let Some(r) = &self.ranks {
            return r.rank(k);
        }
        let i = k.checked_sub(self.base)?;
        (i < self.span).then_some(i as usize)
    }

    /// The slot of `k` in the vector, when the vector is made (not ranked before: a table
    /// left empty is read without it).
    #[inline]
    fn dense_slot(&self, k: u64) -> Option<usize> {
        if self.dense.is_empty() {
            return None;
        }
        self.slot(k)
    }

    /// The entry of `k`'s slot in the vector, when `k` is a member of the set the map is over
    /// and the vector is made: one comparison, as a non-member's slot (`NO_SLOT`) is past any
    /// vector (`MAX_DENSE`), and every slot past an empty one. `None` for every key of a map
    /// over a range (its keys carry no slot: `CorrMap::key`), which `unranked_slot` answers.
    #[inline]
    fn member_entry(&self, k: Ranked) -> Option<&Option<V>> {
        self.check_ranked(k);
        self.dense.get(k.slot as usize)
    }

    /// `member_entry`, to change in place.
    #[inline]
    fn member_entry_mut(&mut self, k: Ranked) -> Option<&mut Option<V>> {
        self.check_ranked(k);
        self.dense.get_mut(k.slot as usize)
    }

    /// Debug builds: `k` was ranked by the set the map is over (a map over a range takes keys
    /// without a slot).
    #[inline]
    fn check_ranked(&self, k: Ranked) {
        debug_assert_eq!(
            (k.slot != NO_SLOT).then_some(k.slot as usize),
            self.ranks.as_ref().and_then(|r| r.rank_uncounted(k.id)),
            "ranked by another set"
        );
    }

    /// The slot of `k` in the vector when `member_entry` found none: in a map over a range, its
    /// id's slot once the vector is made; in a map over a set, none (a non-member, or no
    /// vector yet: the hash map holds it).
    #[inline]
    fn unranked_slot(&self, k: Ranked) -> Option<usize> {
        if self.ranks.is_some() {
            return None;
        }
        self.dense_slot(k.id)
    }

    /// Before `k` is stored: a new entry of the range while the vector is not made is counted,
    /// and once the range's entries are dense enough for a vector to pay, it is made and they
    /// move into it (so `k` then goes there too).
    #[inline]
    fn about_to_store(&mut self, k: u64) {
        if self.dense.is_empty() {
            self.count_spilled(k);
        }
    }

    /// `about_to_store` while the vector is not made.
    #[inline(never)]
    fn count_spilled(&mut self, k: u64) {
        if self.slot(k).is_none() || self.spill.contains_key(&k) {
            return;
        }
        self.in_range += 1;
        if !Self::vector_pays(self.in_range, self.span) {
            return;
        }
        self.densify();
    }

    /// About `n` more entries will be stored (a caller that knows its count): the vector is
    /// made now when they will fill enough of the range, else the hash map makes room for them
    /// once (grown entry by entry, it would rehash at every doubling).
    pub fn reserve(&mut self, n: usize) {
        if !self.dense.is_empty() {
            return;
        }
        if self.span > 0 && Self::vector_pays(self.in_range + n as u64, self.span) {
            self.densify();
        } else {
            self.spill.reserve(n);
        }
    }

    /// Whether `entries` ids of a range of `span` are dense enough for the vector: at most
    /// `MAX_SPREAD` ids per entry, or more while the vector is still no larger than the hash
    /// map holding the same entries. An id costs `Option<V>` in the vector; an entry costs its
    /// key, its value and a control byte in the hash map, at the map's highest load (7/8).
    /// For 4-byte positions that is 4.9 ids per entry: a run of roctx ranges each around two
    /// launches (4 ids per range, exactly the `MAX_SPREAD` line) kept its scope index in a
    /// hash map, larger than the vector and probed at random for every scope and parent.
    fn vector_pays(entries: u64, span: u64) -> bool {
        span <= Self::max_span(entries)
    }

    /// The widest range the vector pays for with `entries` entries (see `vector_pays`).
    fn max_span(entries: u64) -> u64 {
        let id_cost = std::mem::size_of::<Option<V>>() as u64 * 7;
        let entry_cost = (std::mem::size_of::<(u64, V)>() as u64 + 1) * 8;
        entries
            .saturating_mul(MAX_SPREAD)
            .max(entries.saturating_mul(entry_cost) / id_cost.max(1))
    }

    /// Makes the vector over the range and moves the range's entries into it.
    fn densify(&mut self) {
        self.dense.resize_with(self.span as usize, || None);
        for (k, v) in std::mem::take(&mut self.spill) {
            match self.slot(k) {
                Some(i) => self.dense[i] = Some(v),
                None => {
                    self.spill.insert(k, v);
                }
            }
        }
    }

    #[inline]
    pub fn get(&self, k: &u64) -> Option<&V> {
        match self.dense_slot(*k) {
            Some(i) => self.dense[i].as_ref(),
            None => self.spilled(*k),
        }
    }

    /// Starts bringing `k`'s slot in the vector into the cache (nothing for a key without
    /// one): a walk over keys in another order than the slots' knows the keys ahead.
    #[inline]
    pub fn prefetch(&self, k: u64) {
        if let Some(e) = self.dense_slot(k).and_then(|i| self.dense.get(i)) {
            crate::util::prefetch::prefetch(e);
        }
    }

    /// The entry of `k` in the hash map: apart, so that the vector's read is small enough
    /// to be inlined where the tables are read per record (a table with nothing hashed, most
    /// of them, answers without the call).
    #[inline]
    fn spilled(&self, k: u64) -> Option<&V> {
        if self.spill.is_empty() {
            return None;
        }
        self.spilled_hashed(k)
    }

    #[inline(never)]
    fn spilled_hashed(&self, k: u64) -> Option<&V> {
        self.spill.get(&k)
    }

    /// `k` ranked by the set the map is over (`IdRanks::key`): a key for every table over
    /// that set, ranked once.
    #[inline]
    pub fn key(&self, k: u64) -> Ranked {
        match &self.ranks {
            Some(r) => r.key(k),
            None => Ranked {
                id: k,
                slot: NO_SLOT,
            },
        }
    }

    /// `get` of an id ranked already (`IdRanks::key`, by the set the map is over).
    #[inline]
    pub fn get_ranked(&self, k: Ranked) -> Option<&V> {
        if let Some(e) = self.member_entry(k) {
            return e.as_ref();
        }
        match self.unranked_slot(k) {
            Some(i) => self.dense[i].as_ref(),
            None => self.spilled(k.id),
        }
    }

    /// The value of `k`, to change in place.
    #[inline]
    pub fn get_mut(&mut self, k: u64) -> Option<&mut V> {
        match self.dense_slot(k) {
            Some(i) => self.dense[i].as_mut(),
            None if self.spill.is_empty() => None,
            None => self.spill.get_mut(&k),
        }
    }

    /// Whether the map holds nothing, neither a vector (which `reserve` may make before any
    /// entry) nor a hashed entry: a reader of a table a run leaves empty (the external ids of
    /// a run without, the graph executables of one without graph launches) then skips it.
    #[inline]
    pub fn is_unused(&self) -> bool {
        self.dense.is_empty() && self.spill.is_empty()
    }

    pub fn contains_key(&self, k: &u64) -> bool {
        self.get(k).is_some()
    }

    #[inline]
    pub fn insert(&mut self, k: u64, v: V) -> Option<V> {
        self.about_to_store(k);
        match self.dense_slot(k) {
            Some(i) => self.dense[i].replace(v),
            None => self.spill_insert(k, v),
        }
    }

    /// `insert` of an id ranked already (`get_ranked`).
    #[inline]
    pub fn insert_ranked(&mut self, k: Ranked, v: V) -> Option<V> {
        if let Some(e) = self.member_entry_mut(k) {
            return e.replace(v);
        }
        self.about_to_store(k.id);
        // (The vector may be made by now, with `k`'s slot.)
        if let Some(e) = self.member_entry_mut(k) {
            return e.replace(v);
        }
        match self.unranked_slot(k) {
            Some(i) => self.dense[i].replace(v),
            None => self.spill_insert(k.id, v),
        }
    }

    /// `insert` into the hash map (apart, as `spilled`).
    #[inline(never)]
    fn spill_insert(&mut self, k: u64, v: V) -> Option<V> {
        self.spill.insert(k, v)
    }

    /// Takes the value of `k` out (a dense slot is left empty, not shrunk).
    pub fn remove(&mut self, k: &u64) -> Option<V> {
        match self.dense_slot(*k) {
            Some(i) => self.dense[i].take(),
            None => self.spill.remove(k),
        }
    }

    /// The value of `k`, inserted by `f` when absent.
    #[inline]
    pub fn get_or_insert_with(&mut self, k: u64, f: impl FnOnce() -> V) -> &mut V {
        self.about_to_store(k);
        match self.dense_slot(k) {
            Some(i) => self.dense[i].get_or_insert_with(f),
            None => self.spill.entry(k).or_insert_with(f),
        }
    }

    /// `get_or_insert_with` of an id ranked already (`get_ranked`). Always inlined: asked once
    /// per device event (`CallActivity::add`), where, left to the compiler, it may stay a call;
    /// a slot in the vector is answered in place, anything else apart.
    #[inline(always)]
    pub fn get_or_insert_with_ranked(&mut self, k: Ranked, f: impl FnOnce() -> V) -> &mut V {
        let i = k.slot as usize;
        if i < self.dense.len() {
            self.check_ranked(k);
            return self.dense[i].get_or_insert_with(f);
        }
        self.insert_ranked_apart(k, f)
    }

    /// `get_or_insert_with_ranked` of an id whose slot is not in the vector (yet).
    #[inline(never)]
    fn insert_ranked_apart(&mut self, k: Ranked, f: impl FnOnce() -> V) -> &mut V {
        let i = k.slot as usize;
        self.about_to_store(k.id);
        // (The vector may be made by now, with `k`'s slot.)
        if i < self.dense.len() {
            return self.dense[i].get_or_insert_with(f);
        }
        match self.unranked_slot(k) {
            Some(i) => self.dense[i].get_or_insert_with(f),
            None => self.spill.entry(k.id).or_insert_with(f),
        }
    }

    /// Every entry, dense ones in id order first.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &V)> {
        let base = self.base;
        let ids: Box<dyn Iterator<Item = u64> + '_> = match &self.ranks {
            Some(r) => Box::new(r.members()),
            None => Box::new((0..).map(move |i| base + i)),
        };
        ids.zip(&self.dense)
            .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
            .chain(self.spill.iter().map(|(k, v)| (*k, v)))
    }
}

/// A set of correlation ids, each numbered by its rank (how many members are smaller): the
/// slots of the tables over it (`CorrMap::over`). The join's per-call tables are keyed by the
/// calls' ids, and a run's ids are not all calls': a roctx range's push and pop take two ids
/// each, and their records are spans, not calls, by the time the tables are read. Over the
/// calls a table takes a slot per call, where over the id range it takes one per id (twice as
/// many on a run of ranges around every two launches). A word per 16 ids of the range (4 bits
/// per id): their members' bits and the members before them. A rank is one word read and two
/// bytes' populations from a table, a few instructions (the tables are read per event; a
/// population count is a dozen instructions where the processor has no instruction for it,
/// the build's baseline). A stage that reads several tables for one id ranks it once (`key`)
/// and reads each table by that key.
#[derive(Debug, Default)]
pub struct IdRanks {
    base: u64,
    /// Per 16 ids from `base`: the members among them in the low `GROUP` bits (a bit per id),
    /// the members before them above.
    words: Vec<u64>,
    len: usize,
}

#[cfg(test)]
thread_local! {
    /// How many ids this thread ranked (`IdRanks::rank`): the tests that guard how often a
    /// stage ranks a record read it.
    pub static RANKINGS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Ids per word of `IdRanks::words`.
const GROUP: u64 = 16;

/// The members of each byte.
const POPULATION: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).count_ones() as u8;
        i += 1;
    }
    t
};

/// A correlation id and its rank among the members of one `IdRanks` (`IdRanks::key`): what
/// the tables over that set are read by, ranked once for all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    pub id: u64,
    /// The rank, `NO_SLOT` for a non-member (or for a key of a map over a range).
    slot: u32,
}

/// The slot of a key without one (`Ranked`): past every vector (at most `MAX_DENSE` slots).
const NO_SLOT: u32 = u32::MAX;

impl IdRanks {
    /// The set of `ids` (0 is none, a repeat counts once) in `range`, about `expected` of
    /// them; ids outside the range, or all when it is too sparse for bits to pay
    /// (`IdSet::for_range`'s bound), are no members.
    pub fn of(
        range: Option<(u64, u64)>,
        expected: usize,
        ids: impl IntoIterator<Item = u64>,
    ) -> Self {
        let mut set = IdSet::for_range(range, expected);
        if set.bits.is_empty() {
            return Self::default();
        }
        for id in ids {
            if let Some((w, b)) = set.at(id) {
                set.bits[w] |= b;
            }
        }
        Self::ranked(set.base, &set.bits)
    }

    /// The members of `set` in its range (those it hashes are no members).
    pub fn of_set(set: &IdSet) -> Self {
        Self::ranked(set.base, &set.bits)
    }

    fn ranked(base: u64, bits: &[u64]) -> Self {
        let per_bit_word = (64 / GROUP) as usize;
        let mut words = Vec::with_capacity(bits.len() * per_bit_word);
        let mut len = 0u64;
        for &w in bits {
            for g in 0..per_bit_word as u64 {
                let members = (w >> (g * GROUP)) & ((1 << GROUP) - 1);
                // (At most `MAX_DENSE` ids: the count fits above the bits.)
                words.push(members | len << GROUP);
                len += u64::from(POPULATION[(members & 0xff) as usize])
                    + u64::from(POPULATION[(members >> 8) as usize]);
            }
        }
        IdRanks {
            base,
            words,
            len: len as usize,
        }
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The rank of `k` when it is a member.
    #[inline]
    pub fn rank(&self, k: u64) -> Option<usize> {
        #[cfg(test)]
        RANKINGS.with(|n| n.set(n.get() + 1));
        self.rank_uncounted(k)
    }

    /// [`IdRanks::rank`] without counting it in `RANKINGS`: for debug checks, which a count of
    /// the rankings a stage makes must not see (it would differ between debug and release).
    #[inline]
    fn rank_uncounted(&self, k: u64) -> Option<usize> {
        let i = k.checked_sub(self.base)?;
        let w = *self.words.get(usize::try_from(i / GROUP).ok()?)?;
        let b = i % GROUP;
        if w >> b & 1 == 0 {
            return None;
        }
        let below = w & ((1 << b) - 1);
        Some(
            (w >> GROUP) as usize
                + POPULATION[(below & 0xff) as usize] as usize
                + POPULATION[(below >> 8 & 0xff) as usize] as usize,
        )
    }

    /// `k` with its rank, for the tables over this set (`CorrMap::get_ranked`).
    #[inline]
    pub fn key(&self, k: u64) -> Ranked {
        Ranked {
            id: k,
            // (A rank is below `MAX_DENSE`, so below `NO_SLOT`.)
            slot: self.rank(k).map_or(NO_SLOT, |r| r as u32),
        }
    }

    /// The members, in id order (rank order).
    pub fn members(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().enumerate().flat_map(move |(at, &w)| {
            let from = self.base + GROUP * at as u64;
            (0..GROUP)
                .filter(move |b| w >> b & 1 != 0)
                .map(move |b| from + b)
        })
    }
}

/// A set of correlation ids: a bit per id of the collection's range, a hash set for ids outside
/// it (or for all of them when the range is too sparse for bits to pay). The join asks it once
/// per API record which records a roctx span stands for: a bit test, where a search of the
/// spans' sorted ids would cost a binary search per record.
#[derive(Debug, Clone, Default)]
pub struct IdSet {
    base: u64,
    bits: Vec<u64>,
    spill: crate::fastmap::HashSet<u64>,
}

/// Bits are used while the range holds at most this many ids per expected member (8 B per
/// member at most, as a hash set's entry), plus a small constant.
const BITS_PER_MEMBER: u64 = 64;

impl IdSet {
    /// A set dense over `lo..=hi` when about `expected` ids will be members.
    pub fn for_range(range: Option<(u64, u64)>, expected: usize) -> Self {
        let Some((lo, n)) = dense_span(range, bits_pay_for(expected)) else {
            return Self::default();
        };
        IdSet {
            base: lo,
            bits: vec![0; n.div_ceil(64) as usize],
            spill: Default::default(),
        }
    }

    /// The set of `ids`, about `expected` of them: dense over their range where that pays
    /// (`for_range`). `ids` is read twice, for the range and for the members.
    pub fn of<I>(ids: I, expected: usize) -> Self
    where
        I: IntoIterator<Item = u64>,
        I::IntoIter: Clone,
    {
        let ids = ids.into_iter();
        let mut set = Self::for_range(id_range(ids.clone()), expected);
        for id in ids {
            set.insert(id);
        }
        set
    }

    /// The word and bit of `k`, when it is in the dense range.
    fn at(&self, k: u64) -> Option<(usize, u64)> {
        let i = k.checked_sub(self.base)?;
        let w = usize::try_from(i / 64).ok()?;
        (w < self.bits.len()).then_some((w, 1 << (i % 64)))
    }

    /// Adds `k`; whether it was not a member (as `HashSet::insert`).
    pub fn insert(&mut self, k: u64) -> bool {
        match self.at(k) {
            Some((w, b)) => {
                let new = self.bits[w] & b == 0;
                self.bits[w] |= b;
                new
            }
            None => self.spill.insert(k),
        }
    }

    pub fn contains(&self, k: u64) -> bool {
        match self.at(k) {
            Some((w, b)) => self.bits[w] & b != 0,
            None => self.spill.contains(&k),
        }
    }
}

/// The top of `range` that bits pay for with about `expected` members (`IdSet::for_range`'s
/// bound): all of it, or its latest ids when it is wider. A set whose members are mostly a
/// run's latest ids, with a few from long before (a roctx range opened at the program's
/// start), is dense over the many and hashes the few, where over its whole range it would
/// hash them all.
pub fn latest_dense_range(range: Option<(u64, u64)>, expected: usize) -> Option<(u64, u64)> {
    let (lo, hi) = range.filter(|(lo, hi)| lo <= hi)?;
    let limit = bits_pay_for(expected).min(MAX_DENSE);
    Some((lo.max(hi.saturating_sub(limit - 1)), hi))
}

/// The most ids of a range that a set of about `expected` members keeps as bits.
fn bits_pay_for(expected: usize) -> u64 {
    BITS_PER_MEMBER
        .saturating_mul(expected as u64)
        .saturating_add(1 << 16)
}

/// The start and length of `range` (`lo..=hi`) when a table over it pays for the entries
/// expected: at most `limit` ids (the caller's ids per entry times its count, plus some
/// slack), and never past `MAX_DENSE`.
fn dense_span(range: Option<(u64, u64)>, limit: u64) -> Option<(u64, u64)> {
    let (lo, hi) = range.filter(|(lo, hi)| lo <= hi)?;
    let n = hi - lo + 1;
    (n <= limit.min(MAX_DENSE)).then_some((lo, n))
}

/// The smallest and largest non-zero id of `ids` (`None` when there is none).
pub fn id_range(ids: impl IntoIterator<Item = u64>) -> Option<(u64, u64)> {
    // Folded as plain bounds (0 is no id: it lowers no bound, and is never the highest
    // when there is one), not an `Option` per id.
    let (lo, hi) = ids.into_iter().fold((u64::MAX, 0u64), |(lo, hi), id| {
        (if id == 0 { lo } else { lo.min(id) }, hi.max(id))
    });
    (hi != 0).then_some((lo, hi))
}

impl CorrMap<Slot> {
    /// Where each id lies in a list, from its `n` `(position, id)` pairs, ids in `range`: a
    /// later position replaces an earlier one of the same id. (A position past what a `Slot`
    /// holds is left out.)
    pub fn positions_of(
        range: Option<(u64, u64)>,
        n: usize,
        items: impl IntoIterator<Item = (usize, u64)>,
    ) -> Self {
        let mut map = CorrMap::for_range(range, n);
        map.reserve(n);
        for (i, id) in items {
            if let Some(slot) = Slot::new(i) {
                map.insert(id, slot);
            }
        }
        map
    }
}

/// A position in a vector of fewer than 2^32 − 1 items, kept as position + 1 so that an
/// absent one costs nothing: a table of `Option<Slot>` is 4 B per id where `Option<u32>` is 8.
/// The join's per-call tables have a slot per call of the run (millions), so their entries'
/// size is a large share of its peak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slot(std::num::NonZeroU32);

impl Slot {
    /// The slot of position `i` (`None` past the last one a `u32` can name).
    pub fn new(i: usize) -> Option<Self> {
        u32::try_from(i)
            .ok()
            .and_then(|i| i.checked_add(1))
            .and_then(std::num::NonZeroU32::new)
            .map(Slot)
    }

    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_later_ones_win_inside_and_outside_the_range() {
        let items = [(0, 100), (1, 150), (2, 100), (3, 7_000)];
        let m = CorrMap::positions_of(Some((100, 199)), items.len(), items);
        let at = |id| m.get(&id).map(|s: &Slot| s.index());
        assert_eq!(
            (at(100), at(150), at(7_000), at(101)),
            (Some(2), Some(1), Some(3), None)
        );
    }

    /// A prefetch reads no entry and makes none: asked of an empty map, of keys in the
    /// vector, spilled and absent, the map answers as before.
    #[test]
    fn a_prefetch_changes_no_entry() {
        let mut m: CorrMap<u32> = CorrMap::for_range(Some((100, 199)), 100);
        m.prefetch(150);
        assert!(m.is_unused(), "an empty map makes nothing");
        for k in 100..200 {
            m.insert(k, (k * 2) as u32);
        }
        m.insert(7, 3);
        assert!(!m.dense.is_empty(), "the range's keys are in the vector");
        for k in [7, 8, 99, 100, 150, 199, 200, u64::MAX] {
            m.prefetch(k);
        }
        let got: Vec<_> = [7, 8, 100, 150, 199, 200]
            .iter()
            .map(|k| m.get(k).copied())
            .collect();
        assert_eq!(got, [Some(3), None, Some(200), Some(300), Some(398), None]);
    }

    #[test]
    fn dense_inside_the_range_and_spilled_outside_it() {
        let mut m: CorrMap<u32> = CorrMap::for_range(Some((100, 199)), 100);
        assert!(m.dense.is_empty(), "made when the range fills");
        assert_eq!(m.get(&150), None);
        assert_eq!(m.insert(7, 3), None, "below the range: spilled");
        assert!(m.dense.is_empty());
        assert_eq!(m.insert(100, 1), None);
        assert_eq!(m.insert(199, 2), None);
        assert_eq!(m.insert(500, 4), None, "above: spilled");
        assert_eq!(m.insert(100, 5), Some(1));
        assert_eq!(m.get(&100), Some(&5));
        assert_eq!(m.get(&150), None);
        assert!(m.contains_key(&7) && m.contains_key(&500) && !m.contains_key(&8));
        *m.get_or_insert_with(150, || 0) += 9;
        *m.get_or_insert_with(150, || 0) += 1;
        *m.get_or_insert_with(9, || 0) += 1;
        assert!(m.dense.is_empty(), "3 of 100 ids: still hashed");
        let mut all: Vec<(u64, u32)> = m.iter().map(|(k, v)| (k, *v)).collect();
        all.sort_unstable();
        assert_eq!(
            all,
            [(7, 3), (9, 1), (100, 5), (150, 10), (199, 2), (500, 4)]
        );
        // A quarter of the range: the vector is made and the range's entries move into it.
        for k in 101..=121 {
            m.insert(k, k as u32);
        }
        assert!(m.dense.is_empty());
        *m.get_or_insert_with(123, || 7) += 1;
        assert_eq!(m.dense.len(), 100, "made at 25 of 100 ids");
        assert_eq!(m.spill.len(), 3, "only ids outside the range stay hashed");
        assert_eq!(
            (m.get(&123), m.get(&150), m.get(&100)),
            (Some(&8), Some(&10), Some(&5))
        );
        let mut again: Vec<(u64, u32)> = m.iter().map(|(k, v)| (k, *v)).collect();
        again.sort_unstable();
        assert_eq!(again.len(), 6 + 21 + 1);
        assert!(again.contains(&(7, 3)) && again.contains(&(121, 121)));
    }

    #[test]
    fn a_slot_gives_its_position_back_and_its_option_is_four_bytes() {
        for i in [0usize, 1, 4096, u32::MAX as usize - 1] {
            assert_eq!(Slot::new(i).map(Slot::index), Some(i));
        }
        assert_eq!(Slot::new(u32::MAX as usize), None);
        assert_eq!(std::mem::size_of::<Option<Slot>>(), 4);
    }

    /// A map over a ranked set takes a slot per member: members are found by rank, other ids
    /// (inside the range or out of it) are hashed, and every entry reads back, members in id
    /// order first.
    #[test]
    fn a_map_over_ranked_ids_takes_a_slot_per_member() {
        let members: Vec<u64> = (100..1_100).filter(|k| k % 4 < 2).collect();
        let ranks = Arc::new(IdRanks::of(
            Some((100, 1_099)),
            members.len(),
            members.clone(),
        ));
        assert_eq!(ranks.len(), 500);
        for (r, &k) in members.iter().enumerate() {
            assert_eq!(ranks.rank(k), Some(r), "{k}");
        }
        assert_eq!(
            (ranks.rank(102), ranks.rank(99), ranks.rank(5_000)),
            (None, None, None)
        );
        assert_eq!(ranks.members().collect::<Vec<_>>(), members);
        let mut m: CorrMap<u32> = CorrMap::over(&ranks);
        m.reserve(500);
        assert_eq!(
            m.dense.len(),
            500,
            "a slot per member, not per id of the range"
        );
        for &k in &members {
            m.insert(k, k as u32);
        }
        m.insert(102, 7); // in the range, no member
        m.insert(7, 8); // out of the range
        assert_eq!(m.spill.len(), 2);
        assert_eq!(
            (m.get(&101), m.get(&102), m.get(&7)),
            (Some(&101), Some(&7), Some(&8))
        );
        // Read by a key ranked once: the same answers, members and others.
        for k in 0..1_200 {
            assert_eq!(m.get_ranked(m.key(k)), m.get(&k), "{k}");
            assert_eq!(m.key(k), ranks.key(k));
        }
        assert_eq!(*m.get_or_insert_with_ranked(ranks.key(104), || 9), 104);
        assert_eq!(*m.get_or_insert_with_ranked(ranks.key(106), || 9), 9);
        assert_eq!(m.get(&106), Some(&9));
        assert_eq!(m.remove(&106), Some(9));
        assert_eq!(m.remove(&101), Some(101));
        assert_eq!(m.get(&101), None);
        let all: Vec<u64> = m.iter().map(|(k, _)| k).collect();
        assert_eq!(all.len(), 501);
        assert!(
            all[..499].windows(2).all(|w| w[0] < w[1]),
            "members in id order first"
        );
        // Too sparse for bits: no members, everything hashed.
        let none = Arc::new(IdRanks::of(Some((1, 1 << 40)), 2, [1, 1 << 40]));
        assert!(none.is_empty());
        let mut h: CorrMap<u32> = CorrMap::over(&none);
        h.insert(1, 1);
        assert_eq!(h.get(&1), Some(&1));
        assert!(h.dense.is_empty());
    }

    #[test]
    fn a_reserved_count_makes_the_vector_at_once_when_it_will_pay() {
        let mut m: CorrMap<u32> = CorrMap::for_range(Some((100, 199)), 100);
        m.insert(150, 1);
        m.insert(5, 2); // outside the range
        m.reserve(10);
        assert!(m.dense.is_empty(), "10 more of 100 ids: still hashed");
        m.reserve(30);
        assert_eq!(m.dense.len(), 100, "a quarter of the range: the vector");
        assert_eq!((m.get(&150), m.get(&5)), (Some(&1), Some(&2)));
        m.insert(151, 3);
        assert_eq!(m.dense[51], Some(3));
        // Too sparse for a vector at all: the hash map only.
        let mut sparse: CorrMap<u32> = CorrMap::for_range(Some((1, 1 << 40)), 10);
        sparse.reserve(1_000);
        assert!(sparse.dense.is_empty());
        assert!(sparse.spill.capacity() >= 1_000);
    }

    /// A position table a vector holds in 4 B per id, smaller than the hash map's 17 B per
    /// entry (at its highest load) up to 4.9 ids per entry: one range per 4 ids (a push, two
    /// launches, a pop; one id past the `MAX_SPREAD` line) or per 4.8 ids is a vector, one per
    /// 6 ids a hash map.
    #[test]
    fn positions_are_a_vector_while_it_is_the_smaller() {
        let every = |step: u64, n: u64| {
            CorrMap::positions_of(
                Some((1, step * n + 1)),
                n as usize,
                (0..n).map(|i| (i as usize, 1 + step * i)),
            )
        };
        let four = every(4, 100_000);
        assert_eq!(four.dense.len(), 400_001, "4 ids per entry: the vector");
        assert_eq!(four.get(&(1 + 4 * 99_999)).map(|s| s.index()), Some(99_999));
        let wider: CorrMap<Slot> = CorrMap::positions_of(
            Some((1, 480_000)),
            100_000,
            (0..100_000u64).map(|i| (i as usize, 1 + i * 48 / 10)),
        );
        assert_eq!(wider.dense.len(), 480_000, "4.8 ids per entry: the vector");
        let six = every(6, 100_000);
        assert!(six.dense.is_empty(), "6 ids per entry: the hash map");
        assert_eq!(six.get(&(1 + 6 * 7)).map(|s| s.index()), Some(7));
    }

    #[test]
    fn an_id_set_holds_ids_inside_and_outside_its_range() {
        let mut s = IdSet::for_range(Some((100, 300)), 10);
        assert!(!s.bits.is_empty());
        for k in [100, 163, 164, 300, 7, 5_000] {
            assert!(!s.contains(k));
            s.insert(k);
            assert!(s.contains(k), "{k}");
        }
        assert!(!s.contains(165) && !s.contains(299) && !s.contains(0));
        // Outside the range: the hash set holds them.
        assert_eq!(s.spill.len(), 2);
        // Too sparse for bits: everything in the hash set, same answers.
        let mut sparse = IdSet::for_range(Some((1, 1 << 40)), 3);
        assert!(sparse.bits.is_empty());
        sparse.insert(1 << 39);
        assert!(sparse.contains(1 << 39) && !sparse.contains(1));
        assert!(!IdSet::for_range(None, 0).contains(0));
        // A set of given ids: bits over their range, or hashed when too sparse.
        let of = IdSet::of([40, 7, 90], 3);
        assert_eq!((of.base, of.spill.len()), (7, 0));
        assert!([7, 40, 90].iter().all(|&k| of.contains(k)) && !of.contains(41));
        let of = IdSet::of([3, 1 << 40], 2);
        assert!(of.bits.is_empty() && of.contains(3) && of.contains(1 << 40) && !of.contains(4));
    }

    #[test]
    fn sparse_ids_use_the_hash_map() {
        let m: CorrMap<u32> = CorrMap::for_range(Some((1, 1 << 40)), 10);
        assert!(m.span == 0 && m.dense.is_empty());
        let m: CorrMap<u32> = CorrMap::for_range(None, 10);
        assert!(m.dense.is_empty());
        assert_eq!(id_range([0, 5, 3, 9, 0]), Some((3, 9)));
        assert_eq!(id_range([0, 0]), None);
        assert_eq!(id_range([]), None);
        assert_eq!(id_range([0, u64::MAX, 0]), Some((u64::MAX, u64::MAX)));
        assert_eq!(id_range([7]), Some((7, 7)));
    }
}
