//! Maps keyed by internal correlation id, for the join.
//!
//! The runtime hands correlation ids out process-wide in call order, so a collection's ids are
//! dense, and the join walks records sorted by time, which is nearly id order. A vector over
//! the id range then replaces hashing with an index and random probes of a large table with an
//! almost sequential walk: the join's time went mostly to cache misses in its per-id hash maps.

use crate::fastmap::HashMap;

/// A map from correlation id to `V`: dense over a chosen id range, a hash map for ids outside
/// it (or for everything, when the ids are too sparse for a vector to pay).
///
/// The vector is made on the first insert into the range: the join creates a table per
/// call-level fact over the whole id range (16 B per id for most values, a million ids in a
/// large run), and several stay empty in a given run (graph executables without graphs,
/// external ids without a framework).
#[derive(Debug, Clone)]
pub struct CorrMap<V> {
    base: u64,
    /// Ids `base..base + span` go to `dense` (empty until the first of them is inserted).
    span: u64,
    dense: Vec<Option<V>>,
    spill: HashMap<u64, V>,
}

impl<V> Default for CorrMap<V> {
    fn default() -> Self {
        CorrMap {
            base: 0,
            span: 0,
            dense: Vec::new(),
            spill: HashMap::default(),
        }
    }
}

/// The vector is used while the range holds at most this many ids per expected entry (plus a
/// small constant), and never beyond `MAX_DENSE` slots.
const MAX_SPREAD: u64 = 4;
const MAX_DENSE: u64 = 1 << 28;

impl<V> CorrMap<V> {
    /// A map dense over `lo..=hi` when about `expected` ids of that range will be stored.
    pub fn for_range(range: Option<(u64, u64)>, expected: usize) -> Self {
        let Some((lo, hi)) = range.filter(|(lo, hi)| lo <= hi) else {
            return Self::default();
        };
        let n = hi - lo + 1;
        let limit = MAX_SPREAD
            .saturating_mul(expected as u64)
            .saturating_add(4096)
            .min(MAX_DENSE);
        if n > limit {
            return Self::default();
        }
        CorrMap {
            base: lo,
            span: n,
            dense: Vec::new(),
            spill: HashMap::default(),
        }
    }

    fn slot(&self, k: u64) -> Option<usize> {
        let i = k.checked_sub(self.base)?;
        (i < self.span).then_some(i as usize)
    }

    /// The slot of `k` in the vector, making the vector when `k` is the first of its range.
    fn slot_mut(&mut self, k: u64) -> Option<usize> {
        let i = self.slot(k)?;
        if self.dense.is_empty() {
            self.dense.resize_with(self.span as usize, || None);
        }
        Some(i)
    }

    pub fn get(&self, k: &u64) -> Option<&V> {
        match self.slot(*k) {
            Some(i) => self.dense.get(i)?.as_ref(),
            None => self.spill.get(k),
        }
    }

    pub fn contains_key(&self, k: &u64) -> bool {
        self.get(k).is_some()
    }

    pub fn insert(&mut self, k: u64, v: V) -> Option<V> {
        match self.slot_mut(k) {
            Some(i) => self.dense[i].replace(v),
            None => self.spill.insert(k, v),
        }
    }

    /// The value of `k`, inserted by `f` when absent.
    pub fn get_or_insert_with(&mut self, k: u64, f: impl FnOnce() -> V) -> &mut V {
        match self.slot_mut(k) {
            Some(i) => self.dense[i].get_or_insert_with(f),
            None => self.spill.entry(k).or_insert_with(f),
        }
    }

    /// Every entry, dense ones in id order first.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &V)> {
        let base = self.base;
        self.dense
            .iter()
            .enumerate()
            .filter_map(move |(i, v)| v.as_ref().map(|v| (base + i as u64, v)))
            .chain(self.spill.iter().map(|(k, v)| (*k, v)))
    }
}

/// The smallest and largest non-zero id of `ids` (`None` when there is none).
pub fn id_range(ids: impl IntoIterator<Item = u64>) -> Option<(u64, u64)> {
    ids.into_iter()
        .filter(|&id| id != 0)
        .fold(None, |r, id| match r {
            None => Some((id, id)),
            Some((lo, hi)) => Some((lo.min(id), hi.max(id))),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_inside_the_range_and_spilled_outside_it() {
        let mut m: CorrMap<u32> = CorrMap::for_range(Some((100, 199)), 100);
        assert!(
            m.dense.is_empty(),
            "made on the first insert into the range"
        );
        assert_eq!(m.get(&150), None);
        assert_eq!(m.insert(7, 3), None, "below the range: spilled");
        assert!(m.dense.is_empty());
        assert_eq!(m.insert(100, 1), None);
        assert_eq!(m.dense.len(), 100);
        assert_eq!(m.insert(199, 2), None);
        assert_eq!(m.insert(500, 4), None, "above: spilled");
        assert_eq!(m.insert(100, 5), Some(1));
        assert_eq!(m.get(&100), Some(&5));
        assert_eq!(m.get(&150), None);
        assert!(m.contains_key(&7) && m.contains_key(&500) && !m.contains_key(&8));
        *m.get_or_insert_with(150, || 0) += 9;
        *m.get_or_insert_with(150, || 0) += 1;
        *m.get_or_insert_with(9, || 0) += 1;
        let mut all: Vec<(u64, u32)> = m.iter().map(|(k, v)| (k, *v)).collect();
        all.sort_unstable();
        assert_eq!(
            all,
            [(7, 3), (9, 1), (100, 5), (150, 10), (199, 2), (500, 4)]
        );
    }

    #[test]
    fn sparse_ids_use_the_hash_map() {
        let m: CorrMap<u32> = CorrMap::for_range(Some((1, 1 << 40)), 10);
        assert!(m.span == 0 && m.dense.is_empty());
        let m: CorrMap<u32> = CorrMap::for_range(None, 10);
        assert!(m.dense.is_empty());
        assert_eq!(id_range([0, 5, 3, 9, 0]), Some((3, 9)));
        assert_eq!(id_range([0, 0]), None);
    }
}
