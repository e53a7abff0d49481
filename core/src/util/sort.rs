//! Sorts that give what a stable sort gives (ties in input order) while moving each item as
//! few times as the input's order allows: the join sorts its largest vectors (a thread's host
//! events, the roctx spans, the kernel records' order), where each extra move of every item is
//! a pass over hundreds of megabytes and each scratch copy raises the peak.

use std::cmp::Ordering;

/// How far `settle` goes before it gives a run up as out of order: moves per item of the
/// slice. Delivery that swaps near neighbours (a runtime's buffers reorder records within a
/// few dozen at most) moves an item a few places; a run out of order as a whole would need
/// moves in proportion to its length, per item.
pub const SETTLE_MOVES_PER_ITEM: usize = 8;

/// Sorts `items` by `order`, stably, where `items[..split]` and `items[split..]` are two runs
/// each nearly in order (a thread's roctx spans, then its calls as delivered: each run's items
/// end in the order they began, and buffers swap near neighbours at most). Each run is settled
/// by insertion (`settle`), a few moves per item and every item read in order, and the two
/// merged through a copy of the shorter one (`merge_runs`); a slice already in order is left as
/// it is. Items further out of order than that have their positions (4 B each) sorted and are
/// then moved once each to their place (`apply_order`): a sort of the items themselves moves
/// each many times, and a stable one holds half of them again as scratch.
pub fn sort_two_runs<T: Copy>(items: &mut [T], split: usize, order: impl Fn(&T, &T) -> Ordering) {
    let less = |x: &T, y: &T| order(x, y).is_lt();
    let n = items.len();
    let split = split.min(n);
    // One read of the neighbours tells both whether the slice is in order already and how
    // far each run is from it: a run in order is not settled (its settling would move
    // nothing).
    let (in_first, in_second) = (
        descents(&items[..split], less),
        descents(&items[split..], less),
    );
    let joined = split == 0 || split == n || !less(&items[split], &items[split - 1]);
    if in_first == 0 && in_second == 0 && joined {
        return;
    }
    let mut moves = SETTLE_MOVES_PER_ITEM * n + 1024;
    let (first, second) = items.split_at_mut(split);
    if settle_counted(first, in_first, less, &mut moves)
        && settle_counted(second, in_second, less, &mut moves)
    {
        merge_runs(items, split, less);
        return;
    }
    let Ok(n32) = u32::try_from(n) else {
        // Beyond 4 G items positions do not fit: sort the items themselves.
        items.sort_by(|x, y| order(x, y));
        return;
    };
    let mut positions: Vec<u32> = (0..n32).collect();
    positions
        .sort_unstable_by(|&a, &b| order(&items[a as usize], &items[b as usize]).then(a.cmp(&b)));
    apply_order(items, &mut positions);
}

/// Sorts `items` by `order`, stably, moving each item once: their positions (4 B each) are
/// sorted instead, by a stable sort (which finds the runs the input already has), and each
/// item is then moved to its place (`apply_order`). A stable sort of the items themselves would
/// take a scratch copy of half of them. A slice already in order is left as it is.
pub fn sort_by_positions<T>(items: &mut [T], order: impl Fn(&T, &T) -> Ordering) {
    if items.is_sorted_by(|a, b| order(a, b).is_le()) {
        return;
    }
    match u32::try_from(items.len()) {
        Ok(n) => {
            let mut positions: Vec<u32> = (0..n).collect();
            positions.sort_by(|&a, &b| order(&items[a as usize], &items[b as usize]));
            apply_order(items, &mut positions);
        }
        Err(_) => items.sort_by(order),
    }
}

/// Puts a run that is nearly in order in order by insertion, stably, spending at most `moves`
/// moves of an item by one place (shared by a thread's runs); false when that was not enough,
/// or at once, moving nothing, when more than a quarter of its neighbours are out of order
/// (a run delivered last first would use up the moves for nothing). The run is a permutation
/// of its input either way, and items that tie keep their order, so a stable sort after it
/// gives what a stable sort of the input gives.
pub fn settle<T: Copy>(items: &mut [T], less: impl Fn(&T, &T) -> bool, moves: &mut usize) -> bool {
    settle_counted(items, descents(items, &less), less, moves)
}

/// How many neighbours of `run` are out of order.
fn descents<T>(run: &[T], less: impl Fn(&T, &T) -> bool) -> usize {
    run.windows(2).filter(|w| less(&w[1], &w[0])).count()
}

/// [`settle`] of a run whose `descents` (neighbours out of order) are counted already: a run
/// without any is in order, and is left as it is.
fn settle_counted<T: Copy>(
    items: &mut [T],
    descents: usize,
    less: impl Fn(&T, &T) -> bool,
    moves: &mut usize,
) -> bool {
    if descents == 0 {
        return true;
    }
    if descents > items.len() / 4 {
        return false;
    }
    for i in 1..items.len() {
        if !less(&items[i], &items[i - 1]) {
            continue;
        }
        let item = items[i];
        let mut at = i;
        while at > 0 && less(&item, &items[at - 1]) {
            if *moves == 0 {
                items[at] = item;
                return false;
            }
            *moves -= 1;
            items[at] = items[at - 1];
            at -= 1;
        }
        items[at] = item;
    }
    true
}

/// Merges the sorted runs `..split` and `split..` of `items` in place, stably (on a tie the
/// first run's item comes first), through a copy of the shorter run: every item is read and
/// written once, in order. (A permutation walked in cycles moves each item once too, but in
/// the permutation's order: a cache miss per item on a long slice.) The copy is at most half
/// the items.
pub fn merge_runs<T: Copy>(items: &mut [T], split: usize, less: impl Fn(&T, &T) -> bool) {
    let n = items.len();
    if split == 0 || split >= n {
        return;
    }
    if split <= n - split {
        // Front to back: the write position never passes the second run's next item.
        let first = items[..split].to_vec();
        let (mut i, mut j, mut k) = (0, split, 0);
        while i < first.len() && j < n {
            if less(&items[j], &first[i]) {
                items[k] = items[j];
                j += 1;
            } else {
                items[k] = first[i];
                i += 1;
            }
            k += 1;
        }
        items[k..k + first.len() - i].copy_from_slice(&first[i..]);
    } else {
        // Back to front: the write position never passes the first run's next item.
        let second = items[split..].to_vec();
        let (mut i, mut j, mut k) = (split, second.len(), n);
        while i > 0 && j > 0 {
            if less(&second[j - 1], &items[i - 1]) {
                items[k - 1] = items[i - 1];
                i -= 1;
            } else {
                items[k - 1] = second[j - 1];
                j -= 1;
            }
            k -= 1;
        }
        items[..j].copy_from_slice(&second[..j]);
    }
}

/// Rearranges `items` so that position `k` holds what was at `order[k]`, in place: each cycle
/// of the permutation is walked once, every item moved once (`order` is used up).
pub fn apply_order<T>(items: &mut [T], order: &mut [u32]) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at] as usize;
            // Marks `at` done; a done position holds its own index.
            order[at] = at as u32;
            if from == start || from == at {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// Sorts `items` as a stable sort by `(time, rest)` would: their keys are sorted instead
/// ([`stable_order`]: one `u64` per item, `rest` read only where two times tie) and each item
/// is then moved once ([`apply_order`]). A slice already in order is left as it is. For items
/// many times larger than their key, delivered without long sorted runs (many threads' runs
/// interleaved drain by drain), where a stable sort moves each many times and holds half of
/// them again as scratch.
pub fn sort_by_time<T, K: Ord>(items: &mut [T], time: impl Fn(&T) -> u64, rest: impl Fn(&T) -> K) {
    let in_order = items.is_sorted_by(|a, b| match time(a).cmp(&time(b)) {
        Ordering::Less => true,
        Ordering::Equal => rest(a) <= rest(b),
        Ordering::Greater => false,
    });
    if in_order {
        return;
    }
    let mut order = stable_order(
        || items.iter().map(&time).enumerate(),
        |i| rest(&items[i]),
        items.len(),
    );
    apply_order(items, &mut order);
}

/// Positions of records in the order a stable sort by `(time, rest)` would leave them, from
/// each record's `(position, time)` (about `expected` of them) and `rest_at(position)`; `rest`
/// is read only when two times tie. Small keys are sorted instead of the records (delivered
/// interleaved across queues, so without long sorted runs, and each many times larger than
/// its key), and each record is read once more, in order, by whoever follows the positions.
/// When a record's time since the first and its position fit together in 64 bits (a run
/// shorter than days), each key is one `u64`, time above position: half the bytes of a
/// `(time, position)` pair while they are sorted, compared as plain integers. The positions
/// are kept as `u32` (4 bytes per record while the join runs).
///
/// The records are read once (`RecordTimes`): their times are kept in the keys' vector and
/// packed with their positions there. Many keys are first put in buckets by their times' top
/// digit (`sort_by_top_digit`, in place), so the comparison sort that follows takes the log2
/// of a bucket's keys in levels, not of all of them. Ties of time are looked for in one pass
/// over the sorted keys, which needs no branch per key, and ordered by the rest only when
/// there are any (`order_ties`).
pub fn stable_order<K: Ord, I: Iterator<Item = (usize, u64)>>(
    times: impl Fn() -> I,
    rest_at: impl Fn(usize) -> K,
    expected: usize,
) -> Vec<u32> {
    let read = RecordTimes::read(times(), expected);
    let position_bits = usize::BITS - read.top.leading_zeros();
    let span = read.last.saturating_sub(read.first);
    // (Positions are below 2^32: the order is kept as `u32`.)
    let packs =
        position_bits <= 32 && u64::BITS - span.leading_zeros() + position_bits <= u64::BITS;
    if !packs {
        drop(read);
        let mut order: Vec<(u64, usize)> = times().map(|(i, t)| (t, i)).collect();
        order.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| rest_at(a.1).cmp(&rest_at(b.1)))
                .then(a.1.cmp(&b.1))
        });
        // Fewer than 2^32 records: each holds at least 16 bytes (64 GiB for 2^32).
        return order.into_iter().map(|(_, i)| i as u32).collect();
    }
    let keys = &mut read.packed(position_bits, &times);
    if keys.len() >= RADIX_FROM && u32::try_from(keys.len()).is_ok() {
        sort_by_top_digit(keys, position_bits, u64::BITS - span.leading_zeros());
    } else {
        keys.sort_unstable();
    }
    // Equal times are in position order now: ordered by the rest, then position.
    let ties = keys
        .iter()
        .zip(keys.iter().skip(1))
        .fold(0u64, |n, (a, b)| {
            n + u64::from((a ^ b) >> position_bits == 0)
        });
    if ties > 0 {
        order_ties(keys, position_bits, rest_at);
    }
    let mask = (1u64 << position_bits) - 1;
    keys.iter().map(|&k| (k & mask) as u32).collect()
}

/// The runs of keys of one time among sorted `keys` (time above `position_bits` of position),
/// each ordered by the rest of its records (`rest_at` their positions), then position.
#[inline(never)]
fn order_ties<K: Ord>(keys: &mut [u64], position_bits: u32, rest_at: impl Fn(usize) -> K) {
    let mask = (1u64 << position_bits) - 1;
    let mut from = 0;
    while from < keys.len() {
        let time = keys[from] >> position_bits;
        let mut to = from + 1;
        while to < keys.len() && keys[to] >> position_bits == time {
            to += 1;
        }
        if to - from > 1 {
            keys[from..to].sort_by_key(|&k| rest_at((k & mask) as usize));
        }
        from = to;
    }
}

/// The records' times as `stable_order` reads them, once: in the order given, with their
/// bounds and the highest position, and where a position does not follow on from the one
/// before (a chunked store's partly filled chunks: a few per store), so that the positions
/// need not be kept beside the times. Records given in no such runs (more jumps than
/// `MAX_JUMPS_PER` per record) are read again, with their positions, when packed.
struct RecordTimes {
    /// Each record's time, in the order given.
    times: Vec<u64>,
    /// `(index in times, position)` of each record whose position is not one past the one
    /// before's (the first's, when it is not 0).
    jumps: Vec<(usize, usize)>,
    /// Too many jumps to keep: the positions are read again.
    reread: bool,
    first: u64,
    last: u64,
    top: usize,
}

/// Jumps of position kept at most, per record (`RecordTimes`), past a few.
const MAX_JUMPS_PER: usize = 8;

impl RecordTimes {
    fn read(records: impl Iterator<Item = (usize, u64)>, expected: usize) -> Self {
        let mut r = RecordTimes {
            times: Vec::with_capacity(expected),
            jumps: Vec::new(),
            reread: false,
            first: u64::MAX,
            last: 0,
            top: 0,
        };
        // The position after the last one read: within a run of consecutive positions the
        // highest is the run's last.
        let mut next = 0usize;
        for (i, t) in records {
            if i != next {
                r.jump(i, next);
            }
            next = i.wrapping_add(1);
            (r.first, r.last) = (r.first.min(t), r.last.max(t));
            r.times.push(t);
        }
        r.top = r.top.max(next.saturating_sub(1));
        r
    }

    /// Record `self.times.len()` is at position `i`, where the one before it ended a run at
    /// `next - 1`.
    #[cold]
    fn jump(&mut self, i: usize, next: usize) {
        self.top = self.top.max(next.saturating_sub(1));
        if !self.reread {
            self.jumps.push((self.times.len(), i));
            self.reread = self.jumps.len() > 64 + self.times.len() / MAX_JUMPS_PER;
        }
    }

    /// The keys: each record's time since the first above its position (`position_bits`
    /// wide), in place of the times (`records` gives the positions again when the jumps were
    /// too many to keep).
    fn packed<I: Iterator<Item = (usize, u64)>>(
        self,
        position_bits: u32,
        records: impl Fn() -> I,
    ) -> Vec<u64> {
        let (first, mut keys) = (self.first, self.times);
        if self.reread {
            for (k, (i, t)) in keys.iter_mut().zip(records()) {
                *k = ((t - first) << position_bits) | i as u64;
            }
            return keys;
        }
        // Runs of consecutive positions, each from a jump (the first from position 0).
        let mut from = (0, 0);
        for (to, position) in self.jumps.into_iter().chain([(keys.len(), 0)]) {
            let (at, start) = from;
            for (k, i) in keys[at..to].iter_mut().zip(start..) {
                *k = ((*k - first) << position_bits) | i as u64;
            }
            from = (to, position);
        }
        keys
    }
}

/// Bits of a key's time `sort_by_top_digit` sorts by first: at least 2^11 buckets …
const RADIX_BITS: u32 = 11;
/// … and more as the keys are more, about `KEYS_PER_BUCKET` keys per bucket, up to 2^16
/// buckets (a bucket's counts take 8 B: an eighth of its keys' bytes at most past the least).
const RADIX_MAX_BITS: u32 = 16;
const KEYS_PER_BUCKET: usize = 8;
/// Keys from which `stable_order` sorts by digits first: below, the counting pass outweighs
/// the comparison sort's levels it saves.
const RADIX_FROM: usize = 1 << 12;
/// Buckets of at most this many keys are sorted by insertion: a few keys each, where the
/// comparison sort's setup is most of its cost.
const INSERTION_UP_TO: usize = 24;

/// Sorts `keys`, unique, each a time (`time_bits` wide) above `position_bits` bits of
/// position, as `sort_unstable` would: in place by the time's top digit (the keys counted per
/// digit, then each moved once into its digit's bucket), then each bucket by a comparison
/// sort. A key's top digit rises with the key, so the buckets come in key order; the keys are
/// unique, so any sort of them gives one order. The digit is wide enough that a bucket holds a
/// few keys when the times are spread (`KEYS_PER_BUCKET`), so that most are sorted by a few
/// moves. No scratch beyond the buckets' counts: the keys are the join's largest table at the
/// time, beside the annotations' pass.
fn sort_by_top_digit(keys: &mut [u64], position_bits: u32, time_bits: u32) {
    let wanted = (keys.len() / KEYS_PER_BUCKET).max(1).ilog2();
    let bits = wanted.clamp(RADIX_BITS, RADIX_MAX_BITS);
    let buckets = 1usize << bits;
    let shift = position_bits + time_bits.saturating_sub(bits);
    let digit = |k: u64| (k >> shift) as usize & (buckets - 1);
    // (Fewer than 2^32 keys: positions are `u32`.)
    let mut ends = vec![0u32; buckets];
    for &k in keys.iter() {
        ends[digit(k)] += 1;
    }
    let mut at = 0u32;
    let mut next = vec![0u32; buckets];
    for (b, end) in ends.iter_mut().enumerate() {
        next[b] = at;
        at += *end;
        *end = at;
    }
    // Each bucket is filled from its start: a key out of place is swapped into the next free
    // slot of its own bucket until the key in hand belongs where it was taken from.
    for b in 0..buckets {
        while next[b] < ends[b] {
            let mut k = keys[next[b] as usize];
            loop {
                let d = digit(k);
                if d == b {
                    break;
                }
                std::mem::swap(&mut k, &mut keys[next[d] as usize]);
                next[d] += 1;
            }
            keys[next[b] as usize] = k;
            next[b] += 1;
        }
    }
    drop(next);
    let mut from = 0;
    for &end in &ends {
        let bucket = &mut keys[from..end as usize];
        if bucket.len() <= INSERTION_UP_TO {
            insertion_sort(bucket);
        } else {
            bucket.sort_unstable();
        }
        from = end as usize;
    }
}

/// Sorts a few keys by insertion.
#[inline]
fn insertion_sort(keys: &mut [u64]) {
    for i in 1..keys.len() {
        let k = keys[i];
        let mut at = i;
        while at > 0 && k < keys[at - 1] {
            keys[at] = keys[at - 1];
            at -= 1;
        }
        keys[at] = k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::next_random;

    /// Both paths of `sort_two_runs` past the slice in order (two runs settled and merged; a
    /// settling given up, positions sorted) and `sort_by_positions` give what a stable sort
    /// gives: ties in input order, whatever the disorder.
    #[test]
    fn sorts_by_runs_and_by_positions_are_stable_sorts() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| next_random(&mut x) % m;
        let by_key = |a: &(u64, usize), b: &(u64, usize)| a.0.cmp(&b.0);
        for case in 0..400 {
            let n = match case % 4 {
                // Long enough that a disorder beyond the settling's moves gives it up.
                3 => 2_000 + next(200) as usize,
                _ => next(60) as usize,
            };
            // (key, original position): few keys, so ties are common.
            let mut items: Vec<(u64, usize)> = (0..n).map(|i| (next(5), i)).collect();
            let split = next(n as u64 + 1) as usize;
            match case % 4 {
                0 => {
                    items[..split].sort_by(by_key);
                    items[split..].sort_by(by_key);
                }
                1 => {
                    items[..split].sort_by(by_key);
                    items[split..].sort_by(by_key);
                    for _ in 0..n / 3 {
                        let i = next(n as u64) as usize;
                        items.swap(i, (i + 1 + next(4) as usize).min(n - 1));
                    }
                }
                _ => {}
            }
            let mut want = items.clone();
            want.sort_by(by_key);
            let mut runs = items.clone();
            sort_two_runs(&mut runs, split, by_key);
            assert_eq!(runs, want, "case {case}: by runs");
            sort_by_positions(&mut items, by_key);
            assert_eq!(items, want, "case {case}: by positions");
        }
    }

    /// `sort_by_time` gives what a stable sort by `(time, rest)` gives: ties of both in input
    /// order, in order or not, times near and far apart (the keys packed with their positions
    /// or not), and leaves a slice in order as it is.
    #[test]
    fn a_sort_by_time_is_the_stable_sort() {
        let mut x = 0x0dd_ba11_cafe_f00du64;
        let mut next = |m: u64| next_random(&mut x) % m;
        for case in 0..300 {
            let n = next(if case % 5 == 0 { 3_000 } else { 80 }) as usize;
            let far = case % 3 == 0;
            // (time, rest, original position): few times and rests, so both tie often.
            let mut items: Vec<(u64, u8, usize)> = (0..n)
                .map(|i| {
                    let t = next(7);
                    (if far { t << 60 } else { 1_000 + t }, next(3) as u8, i)
                })
                .collect();
            if case % 4 == 1 {
                items.sort_by_key(|&(t, r, _)| (t, r));
            }
            let mut want = items.clone();
            want.sort_by_key(|&(t, r, _)| (t, r));
            sort_by_time(&mut items, |i| i.0, |i| i.1);
            assert_eq!(items, want, "case {case}");
        }
    }

    #[test]
    fn an_order_is_applied_in_place_whatever_its_cycles() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in [0usize, 1, 2, 3, 17, 1000] {
            // A pseudo-random permutation (Fisher-Yates), fixed points and long cycles alike.
            let mut order: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                order.swap(i, (next_random(&mut x) % (i as u64 + 1)) as usize);
            }
            let want: Vec<u32> = order.iter().map(|&k| k * 10).collect();
            let mut items: Vec<u32> = (0..n as u32).map(|k| k * 10).collect();
            apply_order(&mut items, &mut order.clone());
            assert_eq!(items, want, "n = {n}");
        }
    }

    /// Both directions of `merge_runs` (the shorter run first or second) at every split,
    /// with ties across and within the runs: what a stable sort gives.
    #[test]
    fn two_runs_merge_as_a_stable_sort_at_every_split() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in 0..24usize {
            for split in 0..=n {
                // (key, original position): keys from a small set, so ties are common.
                let mut items: Vec<(u64, usize)> =
                    (0..n).map(|i| (next_random(&mut x) % 4, i)).collect();
                items[..split].sort_by_key(|p| p.0);
                items[split..].sort_by_key(|p| p.0);
                let mut want = items.clone();
                want.sort_by_key(|p| p.0);
                merge_runs(&mut items, split, |a, b| a.0 < b.0);
                assert_eq!(items, want, "n = {n}, split = {split}");
            }
        }
    }

    /// A run nearly in order is settled within its moves, stably; one further out of order
    /// is given up, still a permutation of its input with ties in input order.
    #[test]
    fn settling_is_a_bounded_stable_insertion_sort() {
        let mut x = 0x51_7cc1_b727_220au64;
        let less = |a: &(u64, usize), b: &(u64, usize)| a.0 < b.0;
        // (key, original position): neighbours a step or two apart swapped.
        let mut near: Vec<(u64, usize)> = (0..1_000).map(|i| (i as u64 / 3, i)).collect();
        for i in (0..998).step_by(7) {
            near.swap(i, i + 1 + (next_random(&mut x) % 2) as usize);
        }
        let mut want = near.clone();
        want.sort_by_key(|p| p.0);
        let mut moves = 2_000;
        assert!(settle(&mut near, less, &mut moves));
        assert_eq!(near, want);
        assert!(moves > 1_000, "{moves} moves left");
        // Reversed: given up at once, nothing moved.
        let mut reversed: Vec<(u64, usize)> = (0..1_000).map(|i| (999 - i as u64 / 2, i)).collect();
        let copy = reversed.clone();
        let mut moves = 1_000_000;
        assert!(!settle(&mut reversed, less, &mut moves));
        assert_eq!((moves, &reversed), (1_000_000, &copy));
        // Few neighbours out of order, each far from its place: n^2 / 4 moves would settle
        // it; 1,000 are not enough.
        let mut halves: Vec<(u64, usize)> = (0..1_000)
            .map(|i| ((i as u64 + 500) % 1_000 / 2, i))
            .collect();
        let mut moves = 1_000;
        assert!(!settle(&mut halves, less, &mut moves));
        assert_eq!(moves, 0);
        let mut seen: Vec<usize> = halves.iter().map(|p| p.1).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..1_000).collect::<Vec<_>>());
        for w in halves.windows(2) {
            if w[0].0 == w[1].0 {
                assert!(w[0].1 < w[1].1, "ties out of input order: {w:?}");
            }
        }
    }

    /// The pair sort gives what a stable sort by the whole key gives, ties included.
    #[test]
    fn stable_order_is_the_stable_sort() {
        let items: Vec<(u64, u8, char)> = vec![
            (5, 1, 'a'),
            (3, 2, 'b'),
            (5, 0, 'c'),
            (3, 2, 'd'),
            (0, 9, 'e'),
            (5, 1, 'f'),
        ];
        let mut stable = items.clone();
        stable.sort_by_key(|x| (x.0, x.1));
        let records = items.clone();
        let times = || records.iter().enumerate().map(|(i, x)| (i, x.0));
        let ordered: Vec<_> = stable_order(times, |i| records.get(i).map(|x| x.1), records.len())
            .into_iter()
            .map(|i| *records.get(i as usize).unwrap())
            .collect();
        assert_eq!(ordered, stable);
        // Both paths: times that pack with their positions into 64 bits, and times too far
        // apart for it (here one time near 2^64, which leaves the positions no room).
        let mut x = 0x1234_5678_9abc_def1u64;
        for far in [false, true] {
            let items: Vec<(u64, u8, u32)> = (0..3_000u32)
                .map(|n| {
                    let r = next_random(&mut x);
                    let t = if far && n == 7 {
                        u64::MAX - 5
                    } else {
                        1_000 + r % 50
                    };
                    (t, (r >> 20) as u8 % 3, n)
                })
                .collect();
            let mut stable = items.clone();
            stable.sort_by_key(|x| (x.0, x.1));
            let times = || items.iter().enumerate().map(|(i, x)| (i, x.0));
            let ordered: Vec<_> = stable_order(times, |i| items[i].1, items.len())
                .into_iter()
                .map(|i| items[i as usize])
                .collect();
            assert_eq!(ordered, stable, "far apart: {far}");
        }
    }

    /// Two runs each in order are read once for their order and then merged: no run is
    /// settled, nor the slice read again to see whether it is in order (about `2n`
    /// comparisons in all, where reading the slice, then each run for its disorder, then each
    /// again to settle it takes over `3n`). A slice in order is one read.
    #[test]
    fn runs_in_order_are_compared_once_then_merged() {
        let compared = std::cell::Cell::new(0usize);
        let order = |a: &u64, b: &u64| {
            compared.set(compared.get() + 1);
            a.cmp(b)
        };
        let n = 3_000u64;
        // Evens then odds: each run in order, the two interleaved.
        let mut items: Vec<u64> = (0..n)
            .map(|i| 2 * i)
            .chain((0..n).map(|i| 2 * i + 1))
            .collect();
        let len = items.len();
        sort_two_runs(&mut items, n as usize, order);
        assert!(items.iter().copied().eq(0..2 * n));
        assert!(compared.get() <= 2 * len, "{} comparisons", compared.get());
        compared.set(0);
        sort_two_runs(&mut items, n as usize, order);
        assert_eq!(compared.get(), len - 1);
    }

    /// Positions in runs with a few gaps between them (a chunked store's partly filled
    /// chunks) are packed from where they jump, the records read once; with a first position
    /// past 0, and with gaps on every record (read again): the stable sort's order each time.
    #[test]
    fn positions_in_runs_with_gaps_give_the_stable_order() {
        let mut x = 0x5eed_0bad_c0de_1234u64;
        for (gap_every, first) in [(1_000usize, 0usize), (333, 40), (1, 3)] {
            let n = RADIX_FROM + 777;
            let items: Vec<(usize, u64, u8)> = (0..n)
                .map(|i| {
                    let r = next_random(&mut x);
                    let position = first + i + (i / gap_every) * 5;
                    (position, 7_000 + r % 3_000, (r >> 40) as u8 % 4)
                })
                .collect();
            let mut stable = items.clone();
            stable.sort_by_key(|x| (x.1, x.2));
            let rest: std::collections::HashMap<usize, u8> =
                items.iter().map(|x| (x.0, x.2)).collect();
            let read = RecordTimes::read(items.iter().map(|x| (x.0, x.1)), n);
            assert_eq!(read.reread, gap_every == 1, "every {gap_every}");
            assert_eq!(read.top, items[n - 1].0);
            let ordered: Vec<usize> =
                stable_order(|| items.iter().map(|x| (x.0, x.1)), |p| rest[&p], n)
                    .into_iter()
                    .map(|p| p as usize)
                    .collect();
            let want: Vec<usize> = stable.iter().map(|x| x.0).collect();
            assert_eq!(ordered, want, "a gap every {gap_every}");
        }
    }

    /// Past `RADIX_FROM` keys the keys are bucketed by their times' top digit first: the same
    /// order as the stable sort, whatever the times' width (under a digit, one, several, low
    /// bits every key shares), with ties in every width and positions with gaps (a chunked
    /// store's), given in position order or not.
    #[test]
    fn stable_order_by_digits_is_the_stable_sort() {
        let mut x = 0x0dd_ba11_cafe_f00du64;
        for (case, width) in [3u32, 11, 12, 23, 40, 47, 30].into_iter().enumerate() {
            // The last case has enough keys for a digit wider than the least.
            let n = match case {
                6 => KEYS_PER_BUCKET << (RADIX_BITS + 3),
                _ => RADIX_FROM + 1_000 * case,
            };
            // Times share their low bits in one case: a pass whose digit all keys share.
            let low = if width == 23 { 1 << 11 } else { 1 };
            let items: Vec<(usize, u64, u8)> = (0..n)
                .map(|i| {
                    let r = next_random(&mut x);
                    let t = 1_000_000 + (r % (1u64 << width)) / low * low;
                    (i * 3 + i / 100, t, (r >> 50) as u8 % 3)
                })
                .collect();
            let mut stable = items.clone();
            stable.sort_by_key(|x| (x.1, x.2));
            let by_position: std::collections::HashMap<usize, u8> =
                items.iter().map(|x| (x.0, x.2)).collect();
            // Odd cases give the times last position first.
            let given: Vec<(usize, u64)> = if case % 2 == 1 {
                items.iter().rev().map(|x| (x.0, x.1)).collect()
            } else {
                items.iter().map(|x| (x.0, x.1)).collect()
            };
            let ordered: Vec<usize> =
                stable_order(|| given.iter().copied(), |p| by_position[&p], n)
                    .into_iter()
                    .map(|p| p as usize)
                    .collect();
            let want: Vec<usize> = stable.iter().map(|x| x.0).collect();
            assert_eq!(ordered, want, "times {width} bits wide");
        }
    }
}
