//! A partition point found from a hint: where a walk through sorted items asks again and again
//! near where it asked last (the dependency pass walks each stream's activities by falling
//! correlation id).

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

/// Where each of several sorted slices was last searched, by the slice's slot (its place in
/// the caller's table of them, found by the one lookup that finds the slice): a walk that asks
/// each slice again and again near its last answer (the dependency stage, by falling
/// correlation id) searches from there, reading a few entries next to each other where a binary
/// search over a long slice misses the cache at each of its last steps. One `Hints` serves one
/// table of slices.
#[derive(Debug, Default)]
pub struct Hints {
    /// Each slot's last answer; [`Hints::NONE`] for a slice not searched yet.
    last: Vec<usize>,
}

impl Hints {
    const NONE: usize = usize::MAX;

    /// `v.partition_point(pred)`, `v` the slice in `slot`, searched from where its last answer
    /// was (the end, the first time), which it then is.
    #[inline]
    pub fn partition_point<T>(&mut self, slot: usize, v: &[T], pred: impl Fn(&T) -> bool) -> usize {
        if self.last.len() <= slot {
            self.last.resize(slot + 1, Self::NONE);
        }
        let hint = &mut self.last[slot];
        let from = if *hint == Self::NONE { v.len() } else { *hint };
        *hint = partition_point_near(v, from, pred);
        *hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::next_random;

    /// Two slices searched in turn, each by a falling key: each search starts from its own
    /// slot's last answer (a few reads, where one from the end takes twice as many or more),
    /// and finds what a binary search finds.
    #[test]
    fn each_slot_is_searched_from_its_own_last_answer() {
        let (a, b): (Vec<u64>, Vec<u64>) = (
            (0..1000).map(|i| 2 * i).collect(),
            (0..1000).map(|i| 3 * i).collect(),
        );
        let mut hints = Hints::default();
        for round in 0..50u64 {
            for (slot, v, top) in [(1, &a, 1800), (0, &b, 900)] {
                let key = top - 5 * round;
                let search = |hints: &mut Hints| {
                    let reads = std::cell::Cell::new(0);
                    let i = hints.partition_point(slot, v, |&x| {
                        reads.set(reads.get() + 1);
                        x < key
                    });
                    (i, reads.get())
                };
                let (i, reads) = search(&mut hints);
                assert_eq!(i, v.partition_point(|&x| x < key));
                if round > 0 {
                    let (_, fresh) = search(&mut Hints::default());
                    assert!(
                        reads <= 7 && fresh >= 2 * reads,
                        "slot {slot} round {round}: {reads} reads, {fresh} from the end"
                    );
                }
            }
        }
    }

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
