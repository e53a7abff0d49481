//! A partition point found from a hint: where a walk through sorted items asks again and again
//! near where it asked last (the dependency pass walks each stream's activities by falling
//! correlation id).

use std::hash::Hash;

use crate::fastmap::HashMap;

/// `v.partition_point(pred)` (`pred` true on a prefix of `v`), found by steps doubling outward
/// from `hint`, then a binary search between the last two: a few reads next to `hint` when the
/// answer is near it, twice a binary search's when it is far.
#[inline]
pub fn partition_point_near<T>(v: &[T], hint: usize, pred: impl Fn(&T) -> bool) -> usize {
    let n = v.len();
    let h = hint.min(n);
    let mut step = 1;
    if h < n && pred(&v[h]) {
        // The answer is past `h`: at least `lo`.
        let mut lo = h + 1;
        loop {
            let probe = lo + step - 1;
            if probe >= n {
                return lo + v[lo..].partition_point(&pred);
            }
            if !pred(&v[probe]) {
                return lo + v[lo..probe].partition_point(&pred);
            }
            lo = probe + 1;
            step *= 2;
        }
    }
    // The answer is `h` or before it: at most `hi`.
    let mut hi = h;
    loop {
        if hi == 0 {
            return 0;
        }
        let probe = hi.saturating_sub(step);
        if pred(&v[probe]) {
            return probe + 1 + v[probe + 1..hi].partition_point(&pred);
        }
        hi = probe;
        step *= 2;
    }
}

/// Where each of several sorted slices was last searched, by a key of the caller's: a walk
/// that asks each slice again and again near its last answer (the dependency stage, by falling
/// correlation id) searches from there, reading a few entries next to each other where a binary
/// search over a long slice misses the cache at each of its last steps.
#[derive(Debug)]
pub struct Hints<K>(HashMap<K, usize>);

impl<K> Default for Hints<K> {
    fn default() -> Self {
        Hints(HashMap::default())
    }
}

impl<K: Hash + Eq> Hints<K> {
    /// `v.partition_point(pred)`, searched from where `key`'s last answer was (the end, the
    /// first time), which it then is.
    #[inline]
    pub fn partition_point<T>(&mut self, key: K, v: &[T], pred: impl Fn(&T) -> bool) -> usize {
        let hint = self.0.entry(key).or_insert(v.len());
        let i = partition_point_near(v, *hint, pred);
        *hint = i;
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::next_random;

    /// Whatever the hint, the search from it finds what a binary search over the whole slice
    /// finds: at either end, on runs of equal keys, before and past every key.
    #[test]
    fn a_search_from_a_hint_finds_the_partition_point() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| next_random(&mut x) % m;
        for case in 0..2_000 {
            let n = next(if case % 10 == 0 { 300 } else { 20 }) as usize;
            let mut v: Vec<u64> = (0..n).map(|_| next(16)).collect();
            v.sort_unstable();
            let key = next(18);
            let want = v.partition_point(|&a| a < key);
            for hint in 0..=n + 2 {
                assert_eq!(
                    partition_point_near(&v, hint, |&a| a < key),
                    want,
                    "case {case}: {v:?} key {key} hint {hint}"
                );
            }
        }
    }
}
