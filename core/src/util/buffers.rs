//! Vectors made and consumed piecewise, so that an input and what is made of it are never held
//! whole at once, and a vector's room grows without holding much unused: the join's outputs
//! (a line's device events, a thread's host events, the sync calls) are its largest
//! allocations, made from inputs of about their size that are given back meanwhile.

/// Makes room for one more item in `v` before a push, at most to `total` items: doubling while
/// it holds fewer than `small_below`, then `1 / per` of its length at a time, in steps of at
/// least 1,024 items. Doubling leaves up to half of a large vector unused at its peak; small
/// steps copy it often. A block glibc mapped grows in place (`mremap`), but glibc maps only
/// blocks above its threshold, which rises to 32 MiB once the program frees a mapped block that
/// large: a block below it is copied whole at each step. So what can be sized ahead is (the
/// kernels' and copies' lines, `join::device_work::line_sizes`); what is made last first from
/// inputs given back meanwhile grows in eighths from the start, or in chunks (`Backwards`).
pub fn grow<T>(v: &mut Vec<T>, total: usize, small_below: usize, per: usize) {
    if v.len() == v.capacity() {
        let step = if v.len() < small_below {
            v.len()
        } else {
            v.len() / per
        };
        v.reserve_exact(step.max(1024).min(total.saturating_sub(v.len())).max(1));
    }
}

/// Items made last first (from inputs taken from their end, `FromTheEnd`), in chunks of an
/// eighth of what was made (at least 1,024, at most what is left of the known count), joined
/// once and turned round at the end (`into_vec`). A vector grown by eighths is copied whole at
/// each step, eight times its size in all; chunks are copied once. An eighth of what was made,
/// not of the count: a chunk is begun per producer at once (per thread of host events), and
/// chunks of an eighth of the count would hold more room unused. Joining holds the items twice
/// for a moment, so what is a large share of the output grows in one vector instead, by
/// eighths (`grow`), and is turned round in place (`in_place`).
pub struct Backwards<T> {
    /// Each full but the last (in place, one from the start).
    chunks: Vec<Vec<T>>,
    len: usize,
    total: usize,
    in_place: bool,
}

impl<T> Default for Backwards<T> {
    fn default() -> Self {
        Backwards::towards(0)
    }
}

impl<T> Backwards<T> {
    /// Chunks towards `total` items (a hint: more may be pushed).
    pub fn towards(total: usize) -> Self {
        Backwards {
            chunks: Vec::new(),
            len: 0,
            total,
            in_place: false,
        }
    }

    /// One vector grown by eighths towards `total` (`grow`): copied as it grows, never held
    /// twice.
    pub fn in_place(total: usize) -> Self {
        Backwards {
            chunks: vec![Vec::new()],
            in_place: true,
            ..Backwards::towards(total)
        }
    }

    /// How many items were pushed.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A push into room the last chunk has is inlined where it is made (once per event of
    /// the join's largest outputs); a new chunk or a step of growth is apart.
    #[inline]
    pub fn push(&mut self, item: T) {
        if let Some(c) = self.chunks.last_mut() {
            if c.len() < c.capacity() {
                c.push(item);
                self.len += 1;
                return;
            }
        }
        self.push_growing(item);
    }

    #[inline(never)]
    fn push_growing(&mut self, item: T) {
        match self.chunks.last_mut() {
            Some(c) if self.in_place => {
                grow(c, self.total, 0, 8);
                c.push(item);
            }
            Some(c) if c.len() < c.capacity() => c.push(item),
            _ => {
                // Past the count (a producer not counted) an eighth all the same.
                let step = (self.len / 8).max(1024);
                let left = self.total.saturating_sub(self.len);
                let step = if left == 0 { step } else { step.min(left) };
                let mut c = Vec::with_capacity(step);
                c.push(item);
                self.chunks.push(c);
            }
        }
        self.len += 1;
    }

    /// The items in one vector of their number, turned round (made last first, they come
    /// out first first): one chunk in place, more copied into one, each freed once copied.
    pub fn into_vec(mut self) -> Vec<T> {
        if self.chunks.len() == 1 {
            let mut items = self.chunks.pop().unwrap_or_default();
            items.reverse();
            return items;
        }
        let mut items = Vec::with_capacity(self.len);
        for c in self.chunks.into_iter().rev() {
            items.extend(c.into_iter().rev());
        }
        items
    }

    /// As `into_vec`, the first `first` items pushed turned round apart from the others and
    /// put first: two runs made one after the other, each last first, come out each first
    /// first, in the order they were made (`into_vec` is this with `first` 0).
    pub fn into_vec_runs(mut self, first: usize) -> Vec<T> {
        if first == 0 {
            return self.into_vec();
        }
        if self.chunks.len() == 1 {
            let mut items = self.chunks.pop().unwrap_or_default();
            let (a, b) = items.split_at_mut(first.min(self.len));
            a.reverse();
            b.reverse();
            return items;
        }
        // The chunk where the first run ends is split: no chunk holds both.
        let (mut firsts, mut rest) = (Vec::new(), Vec::new());
        let mut left = first;
        for mut c in self.chunks {
            if left >= c.len() {
                left -= c.len();
                firsts.push(c);
            } else if left > 0 {
                rest.push(c.split_off(left));
                left = 0;
                firsts.push(c);
            } else {
                rest.push(c);
            }
        }
        let mut items = Vec::with_capacity(self.len);
        for c in firsts.into_iter().rev().chain(rest.into_iter().rev()) {
            items.extend(c.into_iter().rev());
        }
        items
    }
}

impl<T: Copy> Backwards<T> {
    /// The items in one vector of their number, as two runs merged by `less` into one in
    /// order: the `split` items pushed first make one run, the rest the other, each turned
    /// round (made last first); `pushed_first_leads` tells which run wins a tie (on a tie the
    /// leading run's item comes first). When the items are in chunks and each run comes out
    /// in order, each item is copied once, to its place: where joining the chunks turned round
    /// (`into_vec_runs`) and then merging the runs (`util::sort::merge_runs`) moves each twice
    /// and copies the shorter run once more. Else (one vector, grown in place or never past
    /// its first chunk, whose runs are turned round where they lie; or a run out of order)
    /// the items are given back as they were (`Err`).
    pub fn into_merged(
        self,
        split: usize,
        pushed_first_leads: bool,
        less: impl Fn(&T, &T) -> bool,
    ) -> Result<Vec<T>, Self> {
        if self.in_place || self.chunks.len() < 2 || split > self.len {
            return Err(self);
        }
        let (early, late) = (self.run(0, split), self.run(split, self.len));
        let (lead, follow) = if pushed_first_leads {
            (early, late)
        } else {
            (late, early)
        };
        match merged(&lead, &follow, self.len, less) {
            Some(items) => Ok(items),
            None => Err(self),
        }
    }

    /// The items pushed `from..to` (counted in push order), as they come out: last first.
    fn run(&self, from: usize, to: usize) -> Run<'_, T> {
        let mut slices = Vec::new();
        let mut at = 0;
        for c in &self.chunks {
            let (lo, hi) = (from.max(at), to.min(at + c.len()));
            if lo < hi {
                slices.push(&c[lo - at..hi - at]);
            }
            at += c.len();
        }
        slices.reverse();
        Run(slices)
    }
}

/// The items of `lead` and `follow` (`n` in all) merged by `less` (on a tie `lead`'s first),
/// each run checked to come out in order as it is merged (`None` when one does not: what was
/// merged is freed). The check and the merge are one read of the items.
fn merged<T: Copy>(
    lead: &Run<'_, T>,
    follow: &Run<'_, T>,
    n: usize,
    less: impl Fn(&T, &T) -> bool,
) -> Option<Vec<T>> {
    let mut items = Vec::with_capacity(n);
    let (mut lead, mut follow) = (lead.items(), follow.items());
    let (mut a, mut b) = (lead.next(), follow.next());
    while let (Some(x), Some(y)) = (a, b) {
        if less(y, x) {
            items.push(*y);
            b = follow.next();
            if b.is_some_and(|next| less(next, y)) {
                return None;
            }
        } else {
            items.push(*x);
            a = lead.next();
            if a.is_some_and(|next| less(next, x)) {
                return None;
            }
        }
    }
    // The rest of one run (the other is used up), still checked.
    let mut rest = a.into_iter().chain(lead).chain(b).chain(follow);
    let Some(mut last) = rest.next() else {
        return Some(items);
    };
    items.push(*last);
    for x in rest {
        if less(x, last) {
            return None;
        }
        items.push(*x);
        last = x;
    }
    Some(items)
}

/// Items pushed into a `Backwards`, as slices of its chunks in the order they come out, each
/// read from its end.
struct Run<'a, T>(Vec<&'a [T]>);

impl<'a, T> Run<'a, T> {
    fn items(&self) -> impl Iterator<Item = &'a T> + '_ {
        self.0.iter().flat_map(|s| s.iter().rev())
    }
}

/// A vector taken from its end, its room given back every [`SHRINK_EVERY`] items: what the
/// join makes its host events from (the API records, then the spans) and its sync calls from
/// (the sync facts), so the input and what is made from it never coexist whole.
pub struct FromTheEnd<T> {
    items: Vec<T>,
    freed_at: usize,
    /// The last item is lent out (`next`), to be dropped at the next call.
    lent: bool,
}

/// Often enough that input and output never coexist whole, rarely enough that the shrinking
/// (one `realloc` each, in place) costs nothing per item.
pub const SHRINK_EVERY: usize = 1 << 14;

impl<T> FromTheEnd<T> {
    pub fn new(items: Vec<T>) -> Self {
        let freed_at = items.len();
        FromTheEnd {
            items,
            freed_at,
            lent: false,
        }
    }

    /// The last item not yet taken, lent where it lies; it is dropped when the next one is
    /// asked for. Moving each item out, as `Vec::pop` does, stages it on the stack in an
    /// `Option` whose payload lies at another offset, and copying it out again reads bytes just
    /// stored in other pieces, which the processor cannot forward from its store buffer: a
    /// stall per item.
    // A lending iterator: `Iterator::next` cannot lend from `self`.
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn next(&mut self) -> Option<&T> {
        if std::mem::take(&mut self.lent) {
            self.items.truncate(self.items.len() - 1);
            if self.items.len() + SHRINK_EVERY <= self.freed_at {
                self.give_back();
            }
        }
        self.lent = !self.items.is_empty();
        self.items.last()
    }

    #[inline(never)]
    fn give_back(&mut self) {
        self.items.shrink_to_fit();
        self.freed_at = self.items.len();
    }
}

/// Moves the items `take` picks from `from` to the end of `to`, keeping both in order; in
/// place (a capture window's vectors are not copied whole for the few items handed on). The
/// items before the first taken are only read: a window hands on its latest.
pub fn move_where<T: Copy>(from: &mut Vec<T>, to: &mut Vec<T>, mut take: impl FnMut(&T) -> bool) {
    let Some(first) = from.iter().position(&mut take) else {
        return;
    };
    to.push(from[first]);
    let mut kept = first;
    for i in first + 1..from.len() {
        let x = from[i];
        if take(&x) {
            to.push(x);
        } else {
            from[kept] = x;
            kept += 1;
        }
    }
    from.truncate(kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two runs made one after the other, each last first, come out each first first in the
    /// order they were made, whether their boundary falls inside a chunk, on one, or in a
    /// vector grown in place; with no first run it is `into_vec`.
    #[test]
    fn two_runs_made_last_first_come_out_each_turned_round() {
        for (total, first, second, in_place) in [
            (20_000, 7_321, 12_679, false),
            (20_000, 1_024, 18_976, false),
            (20_000, 0, 20_000, false),
            (20_000, 20_000, 0, false),
            (9_000, 4_000, 5_000, true),
            (0, 10, 3_000, false),
        ] {
            let mut b = if in_place {
                Backwards::in_place(total)
            } else {
                Backwards::towards(total)
            };
            for i in (0..first).rev() {
                b.push(i);
            }
            for i in (0..second).rev() {
                b.push(first + i);
            }
            let got = b.into_vec_runs(first);
            let want: Vec<usize> = (0..first + second).collect();
            assert_eq!(got, want, "{total} {first} {second}");
            assert_eq!(got.capacity(), got.len(), "one vector of their number");
        }
    }

    /// Two runs made last first, each in order once turned round, come out merged as a
    /// stable sort of the two one after the other gives them (the leading run's items first
    /// on a tie), whichever run was pushed first and wherever their boundary falls among the
    /// chunks; a run out of order, or items grown in place or in one chunk, are given back
    /// untouched (turned round and joined, they are what `into_vec_runs` gives).
    #[test]
    fn two_runs_in_order_come_out_merged() {
        let mut x = 0x3c6e_f372_fe94_f82bu64;
        for case in 0..60usize {
            let r = crate::util::next_random(&mut x) as usize;
            let (a, b) = match case % 6 {
                0 => (0, 5_000),
                1 => (5_000, 0),
                2 => (1_024, 9_000),
                3 => (3, 2_000),
                _ => (1 + r % 4_000, 1 + (r >> 20) % 6_000),
            };
            // (key, run, position): keys from a small range, so ties across runs are common.
            let mut run = |n: usize, tag: usize| -> Vec<(u64, usize, usize)> {
                let mut v: Vec<u64> = (0..n)
                    .map(|_| crate::util::next_random(&mut x) % 500)
                    .collect();
                v.sort_unstable();
                v.into_iter()
                    .enumerate()
                    .map(|(i, k)| (k, tag, i))
                    .collect()
            };
            let (mut lead, mut follow) = (run(a, 0), run(b, 1));
            let mut unsorted = case % 5 == 4 && b > 2;
            if unsorted {
                follow.swap(0, b - 1);
            }
            // Out of order at its very end: the leading run's last two (found only once one
            // run is used up, or at the last comparison of the merge).
            if case % 5 == 3 && a > 2 && lead[a - 2].0 != lead[a - 1].0 {
                lead.swap(a - 2, a - 1);
                unsorted = true;
            }
            let pushed_first_leads = case % 2 == 0;
            let in_place = case % 7 == 6;
            let make = || {
                let mut bw = if in_place {
                    Backwards::in_place(a + b)
                } else {
                    Backwards::towards(a + b)
                };
                let (first, second) = if pushed_first_leads {
                    (&lead, &follow)
                } else {
                    (&follow, &lead)
                };
                for &item in first.iter().rev().chain(second.iter().rev()) {
                    bw.push(item);
                }
                bw
            };
            let split = if pushed_first_leads { a } else { b };
            let less = |p: &(u64, usize, usize), q: &(u64, usize, usize)| p.0 < q.0;
            let joined: Vec<_> = lead.iter().chain(&follow).copied().collect();
            let chunked = make().chunks.len() > 1;
            match make().into_merged(split, pushed_first_leads, less) {
                Ok(got) => {
                    assert!(chunked && !in_place && !unsorted, "case {case}");
                    let mut want = joined.clone();
                    want.sort_by_key(|p| p.0);
                    assert_eq!(got, want, "case {case}");
                    assert_eq!(got.capacity(), got.len());
                }
                Err(back) => {
                    assert!(!chunked || in_place || unsorted, "case {case}");
                    let got = if pushed_first_leads {
                        back.into_vec_runs(split)
                    } else {
                        back.into_vec()
                    };
                    assert_eq!(got, joined, "case {case}");
                }
            }
        }
    }

    /// Items made last first come out first first, in one vector of their number, from
    /// chunks of an eighth of what was made before each (at least 1,024, at most what is left
    /// of the count) that never grew, or from one vector grown in place: past the count, and
    /// with no count, too.
    #[test]
    fn items_made_last_first_grow_in_chunks_and_come_out_turned_round() {
        for (total, made) in [(20_000, 20_000), (20_000, 23_500), (0, 3_000), (700, 700)] {
            let mut b = Backwards::towards(total);
            for i in (0..made).rev() {
                b.push(i);
            }
            let (last, full) = b.chunks.split_last().unwrap();
            assert!(full.iter().all(|c| c.len() == c.capacity()), "{total}");
            assert!(!last.is_empty());
            let mut before = 0;
            for c in &b.chunks {
                let step = (before / 8).max(1024);
                let left = total.saturating_sub(before);
                let want = if left == 0 { step } else { step.min(left) };
                assert_eq!(c.capacity(), want, "{total}, {made}: after {before}");
                before += c.len();
            }
            let items = b.into_vec();
            assert_eq!((items.len(), items.capacity()), (made, made));
            assert!(items.iter().enumerate().all(|(i, &x)| x == i));
            // In place: one vector, never joined from chunks, the same items.
            let mut b = Backwards::in_place(total);
            for i in (0..made).rev() {
                b.push(i);
            }
            assert_eq!(b.chunks.len(), 1);
            let items = b.into_vec();
            assert_eq!(items.len(), made);
            if made <= total {
                assert_eq!(items.capacity(), made);
            }
            assert!(items.iter().enumerate().all(|(i, &x)| x == i));
        }
    }

    /// Every item comes out once, last first, and the room behind the items taken is given
    /// back every `SHRINK_EVERY` items: never more than that many held beyond what is left.
    #[test]
    fn items_taken_from_the_end_give_their_room_back() {
        let n = 3 * SHRINK_EVERY + 17;
        let mut items = FromTheEnd::new((0..n).collect::<Vec<usize>>());
        let mut want = n;
        while let Some(&i) = items.next() {
            want -= 1;
            assert_eq!(i, want);
            assert!(items.items.capacity() <= items.items.len() + SHRINK_EVERY);
        }
        assert_eq!((want, items.items.len()), (0, 0));
        assert!(items.next().is_none());
    }

    /// Room doubles while small, then grows by a share of the length, in steps of 1,024 at
    /// least and never past the total.
    #[test]
    fn room_grows_by_doubling_then_by_a_share_never_past_the_total() {
        let mut v: Vec<u8> = Vec::new();
        grow(&mut v, usize::MAX, 1 << 12, 8);
        assert_eq!(v.capacity(), 1024);
        v.resize(1024, 0);
        grow(&mut v, usize::MAX, 1 << 12, 8);
        assert_eq!(v.capacity(), 2048);
        v.resize(1 << 14, 0);
        v.shrink_to_fit();
        grow(&mut v, usize::MAX, 1 << 12, 8);
        assert_eq!(v.capacity(), (1 << 14) + (1 << 11));
        let mut v: Vec<u8> = vec![0; 100];
        v.shrink_to_fit();
        grow(&mut v, 150, 0, 8);
        assert_eq!(v.capacity(), 150);
        // At the total: one more, so that a push past the count still has room.
        let mut v: Vec<u8> = vec![0; 150];
        v.shrink_to_fit();
        grow(&mut v, 150, 0, 8);
        assert_eq!(v.capacity(), 151);
        // Not full: nothing to do.
        let mut v: Vec<u8> = Vec::with_capacity(10);
        grow(&mut v, 5, 0, 8);
        assert_eq!(v.capacity(), 10);
    }

    #[test]
    fn moving_where_keeps_both_sides_in_order() {
        let mut from: Vec<u32> = (0..20).collect();
        let mut to = vec![100];
        move_where(&mut from, &mut to, |x| x % 3 == 0);
        assert_eq!(to, [100, 0, 3, 6, 9, 12, 15, 18]);
        assert!(from.iter().all(|x| x % 3 != 0) && from.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(from.len(), 13);
        // The latest taken, with gaps; then none.
        let mut from: Vec<u32> = (0..20).collect();
        let mut to = Vec::new();
        move_where(&mut from, &mut to, |&x| x >= 15 && x != 17);
        assert_eq!((&to[..], from.len()), (&[15, 16, 18, 19][..], 16));
        assert_eq!(&from[14..], [14, 17]);
        move_where(&mut from, &mut to, |_| false);
        assert_eq!(from.len(), 16);
    }
}
