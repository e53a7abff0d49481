//! Memory: the allocation timeline per allocator (xprof's memory profile) and the memory kind
//! of each copy's source and destination (`memcpy_details`), both from the allocation-family
//! HIP calls the tool saw (`MemFact`, read at each call's EXIT).
//!
//! Order is by correlation id: the runtime hands them out in call order, so "allocated before
//! this copy and not yet freed" is a comparison of ids, the same on every run.

use crate::fastmap::HashMap;
use std::sync::Arc;

use crate::facts::{CopyPtrs, MemAction, MemFact, MemKind};

/// A live or past allocation: `[address, address + bytes)` between two calls.
#[derive(Debug, Clone, Copy)]
struct Range {
    address: u64,
    bytes: u64,
    kind: MemKind,
    alloc_corr: u64,
    free_corr: u64,
}

/// Every allocation with the call that ended it (`u64::MAX`: still live at the end), sorted by
/// start address; frees that matched no live allocation are counted.
struct Ranges {
    by_address: Vec<Range>,
    longest: u64,
}

fn ranges(earlier: &LiveMemory, memory: &[MemFact]) -> Ranges {
    let mut facts: Vec<&MemFact> = earlier.allocations.iter().chain(memory).collect();
    facts.sort_by_key(|f| f.correlation_id);
    let mut live: HashMap<u64, Range> = HashMap::default();
    let mut done = Vec::new();
    for f in facts {
        match f.action {
            MemAction::Alloc => {
                let r = Range {
                    address: f.address,
                    bytes: f.bytes,
                    kind: f.kind,
                    alloc_corr: f.correlation_id,
                    free_corr: u64::MAX,
                };
                if let Some(mut old) = live.insert(f.address, r) {
                    // The same address handed out again without a free we saw.
                    old.free_corr = f.correlation_id;
                    done.push(old);
                }
            }
            MemAction::Free => {
                if let Some(mut r) = live.remove(&f.address) {
                    r.free_corr = f.correlation_id;
                    done.push(r);
                }
            }
        }
    }
    done.extend(live.into_values());
    done.sort_by_key(|r| (r.address, r.alloc_corr));
    let longest = done.iter().map(|r| r.bytes).max().unwrap_or(0);
    Ranges {
        by_address: done,
        longest,
    }
}

impl Ranges {
    /// The kind of the allocation holding `ptr` when call `corr` was made.
    fn kind_at(&self, ptr: u64, corr: u64) -> Option<MemKind> {
        let end = self.by_address.partition_point(|r| r.address <= ptr);
        self.by_address[..end]
            .iter()
            .rev()
            .take_while(|r| ptr - r.address < self.longest.max(1))
            .find(|r| ptr - r.address < r.bytes.max(1) && r.alloc_corr < corr && corr < r.free_corr)
            .map(|r| r.kind)
    }
}

/// Destination and source kinds of each copy call that named its pointers, from the
/// allocations of `memory` and those earlier windows left live (`earlier`). A pointer no
/// allocation holds is device memory on a GPU side and pageable host memory on a host side
/// (`dst_on_gpu` / `src_on_gpu` say which side is which, by the copy's direction).
pub fn copy_kinds(
    earlier: &LiveMemory,
    memory: &[MemFact],
    ptrs: &[CopyPtrs],
    sides: impl Fn(u64) -> Option<(bool, bool)>,
) -> HashMap<u64, (MemKind, MemKind)> {
    let r = ranges(earlier, memory);
    let mut out = HashMap::with_capacity_and_hasher(ptrs.len(), Default::default());
    for p in ptrs {
        let Some((dst_gpu, src_gpu)) = sides(p.correlation_id) else {
            continue;
        };
        let default = |gpu: bool| {
            if gpu {
                MemKind::Device
            } else {
                MemKind::Pageable
            }
        };
        let dst = r
            .kind_at(p.dst, p.correlation_id)
            .unwrap_or(default(dst_gpu));
        let src = r
            .kind_at(p.src, p.correlation_id)
            .unwrap_or(default(src_gpu));
        out.insert(p.correlation_id, (dst, src));
    }
    out
}

/// One allocation or free as xprof's memory profile reads it: the allocator's totals after it.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryEvent {
    pub time_ns: u64,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub alloc: bool,
    /// `GPU_<n>` (HIP device memory and managed memory of device n) or `host_pinned`.
    pub allocator: Arc<str>,
    pub kind: MemKind,
    pub address: u64,
    pub bytes: u64,
    /// Bytes allocated through this allocator after the event, and the most ever.
    pub in_use: u64,
    pub peak: u64,
}

/// The allocator a range belongs to: a GPU's (by HIP device) or the host's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Allocator {
    Gpu(i32),
    Host,
}

impl Allocator {
    fn of(kind: MemKind, device: i32) -> Self {
        match kind {
            MemKind::Pinned | MemKind::Registered | MemKind::Pageable | MemKind::Unknown => {
                Allocator::Host
            }
            MemKind::Device | MemKind::Managed => Allocator::Gpu(device.max(0)),
        }
    }

    /// `GPU_<n>` (HIP device memory and managed memory of device n) or `host_pinned`.
    fn name(self) -> Arc<str> {
        match self {
            Allocator::Gpu(n) => Arc::from(format!("GPU_{n}")),
            Allocator::Host => Arc::from("host_pinned"),
        }
    }
}

/// What a run's earlier capture windows leave live (`Carried::memory`, handed on by
/// `model::carry`): the allocations not freed, and the most bytes each allocator has had in
/// use. A later window's frees then find their allocations, its totals go on from the run's,
/// and a copy takes the kind of memory allocated before its window. A window started from
/// nothing would leave its frees of earlier memory unmatched, its in-use totals low, and show
/// a copy from pinned memory allocated earlier as pageable.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveMemory {
    /// The allocations' facts, in correlation order; at most [`MAX_LIVE`], the latest.
    pub allocations: Vec<MemFact>,
    /// The most bytes ever in use, per allocator.
    pub peaks: Vec<(Allocator, u64)>,
}

/// The most live allocations a window hands on: a program that never frees must not make
/// every window carry all it ever allocated. The oldest are let go (a later free of one is
/// counted as unmatched).
pub const MAX_LIVE: usize = 65_536;

impl LiveMemory {
    pub fn is_empty(&self) -> bool {
        self.allocations.is_empty() && self.peaks.is_empty()
    }
}

/// The allocator totals as facts are applied in call order, from what earlier windows left.
struct Tally {
    live: HashMap<u64, MemFact>,
    /// In use and peak, per allocator.
    totals: HashMap<Allocator, (u64, u64)>,
    /// Each allocator's name, made once.
    names: HashMap<Allocator, Arc<str>>,
    unmatched: u64,
}

impl Tally {
    fn from(earlier: &LiveMemory) -> Self {
        let mut t = Tally {
            live: HashMap::with_capacity_and_hasher(earlier.allocations.len(), Default::default()),
            totals: earlier
                .peaks
                .iter()
                .map(|&(a, peak)| (a, (0, peak)))
                .collect(),
            names: HashMap::default(),
            unmatched: 0,
        };
        for f in &earlier.allocations {
            t.live.insert(f.address, *f);
            let e = t.totals.entry(Allocator::of(f.kind, f.device)).or_default();
            e.0 += f.bytes;
            e.1 = e.1.max(e.0);
        }
        t
    }

    /// Applies `f`: the event it makes, or `None` for a free that ended no allocation seen.
    fn apply(&mut self, f: &MemFact) -> Option<MemoryEvent> {
        let (bytes, kind, device) = match f.action {
            MemAction::Alloc => {
                if let Some(old) = self.live.insert(f.address, *f) {
                    // Reused without a free we saw: the old one is gone.
                    let t = self
                        .totals
                        .entry(Allocator::of(old.kind, old.device))
                        .or_default();
                    t.0 = t.0.saturating_sub(old.bytes);
                }
                (f.bytes, f.kind, f.device)
            }
            MemAction::Free => match self.live.remove(&f.address) {
                Some(a) => (a.bytes, a.kind, a.device),
                None => {
                    self.unmatched += 1;
                    return None;
                }
            },
        };
        let a = Allocator::of(kind, device);
        let t = self.totals.entry(a).or_default();
        match f.action {
            MemAction::Alloc => t.0 += bytes,
            MemAction::Free => t.0 = t.0.saturating_sub(bytes),
        }
        t.1 = t.1.max(t.0);
        Some(MemoryEvent {
            time_ns: f.time_ns,
            thread_id: f.thread_id,
            correlation_id: f.correlation_id,
            alloc: f.action == MemAction::Alloc,
            allocator: self.names.entry(a).or_insert_with(|| a.name()).clone(),
            kind,
            address: f.address,
            bytes,
            in_use: t.0,
            peak: t.1,
        })
    }
}

/// `memory` in call order, applied after what earlier windows left.
fn tally<'m>(
    earlier: &LiveMemory,
    memory: &'m [MemFact],
) -> (Tally, impl Iterator<Item = &'m MemFact>) {
    let mut facts: Vec<&MemFact> = memory.iter().collect();
    facts.sort_by_key(|f| f.correlation_id);
    (Tally::from(earlier), facts.into_iter())
}

/// The timeline: every allocation and every free that ended an allocation seen in this
/// profile or left live by the run's earlier windows (`earlier`), in call order, with
/// running totals per allocator; and how many frees matched none (memory allocated before
/// the profile began, a double free, a foreign pointer).
pub fn timeline(earlier: &LiveMemory, memory: &[MemFact]) -> (Vec<MemoryEvent>, u64) {
    let (mut t, facts) = tally(earlier, memory);
    let mut out = Vec::with_capacity(memory.len());
    out.extend(facts.filter_map(|f| t.apply(f)));
    (out, t.unmatched)
}

/// What a window leaves live for the next: `earlier` with `memory` applied.
pub fn live_after(earlier: &LiveMemory, memory: &[MemFact]) -> LiveMemory {
    let (mut t, facts) = tally(earlier, memory);
    for f in facts {
        t.apply(f);
    }
    let mut allocations: Vec<MemFact> = t.live.into_values().collect();
    allocations.sort_unstable_by_key(|f| std::cmp::Reverse(f.correlation_id));
    allocations.truncate(MAX_LIVE);
    allocations.reverse();
    let mut peaks: Vec<(Allocator, u64)> = t
        .totals
        .into_iter()
        .map(|(a, (_, peak))| (a, peak))
        .filter(|&(_, peak)| peak > 0)
        .collect();
    peaks.sort_unstable();
    LiveMemory { allocations, peaks }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A memory fact of thread 1 on device 0, at ten times its correlation id.
    pub(crate) fn fact(
        corr: u64,
        action: MemAction,
        kind: MemKind,
        address: u64,
        bytes: u64,
    ) -> MemFact {
        MemFact {
            correlation_id: corr,
            thread_id: 1,
            time_ns: corr * 10,
            action,
            kind,
            address,
            bytes,
            device: 0,
        }
    }

    #[test]
    fn totals_and_peak_follow_allocations_and_frees() {
        use MemAction::*;
        let m = [
            fact(1, Alloc, MemKind::Device, 0x1000, 100),
            fact(2, Alloc, MemKind::Device, 0x2000, 300),
            fact(3, Free, MemKind::Device, 0x1000, 0),
            fact(4, Alloc, MemKind::Pinned, 0x9000, 50),
            fact(5, Free, MemKind::Device, 0x1000, 0), // double free
            fact(6, Free, MemKind::Device, 0x7777, 0), // never allocated here
            fact(7, Alloc, MemKind::Device, 0x1000, 10),
        ];
        let (ev, unmatched) = timeline(&LiveMemory::default(), &m);
        assert_eq!(unmatched, 2);
        let gpu: Vec<(bool, u64, u64)> = ev
            .iter()
            .filter(|e| &*e.allocator == "GPU_0")
            .map(|e| (e.alloc, e.in_use, e.peak))
            .collect();
        assert_eq!(
            gpu,
            [
                (true, 100, 100),
                (true, 400, 400),
                (false, 300, 400),
                (true, 310, 400)
            ]
        );
        let host: Vec<&MemoryEvent> = ev
            .iter()
            .filter(|e| &*e.allocator == "host_pinned")
            .collect();
        assert_eq!((host.len(), host[0].in_use), (1, 50));
    }

    #[test]
    fn a_copy_takes_the_kind_of_the_allocation_live_at_its_call() {
        use MemAction::*;
        let m = [
            fact(1, Alloc, MemKind::Pinned, 0x10_000, 4096),
            fact(2, Alloc, MemKind::Device, 0x7f00_0000, 1 << 20),
            fact(5, Free, MemKind::Pinned, 0x10_000, 0),
            fact(6, Alloc, MemKind::Managed, 0x10_000, 4096),
        ];
        let ptrs = [
            // H2D from inside the pinned buffer to the device buffer.
            CopyPtrs {
                correlation_id: 3,
                dst: 0x7f00_0010,
                src: 0x10_100,
            },
            // H2D from memory HIP never allocated.
            CopyPtrs {
                correlation_id: 4,
                dst: 0x7f00_0000,
                src: 0x55_0000,
            },
            // The address reused as managed memory later.
            CopyPtrs {
                correlation_id: 7,
                dst: 0x10_000,
                src: 0x7f00_0000,
            },
        ];
        let k = copy_kinds(&LiveMemory::default(), &m, &ptrs, |c| {
            Some(if c == 7 { (false, true) } else { (true, false) })
        });
        assert_eq!(k[&3], (MemKind::Device, MemKind::Pinned));
        assert_eq!(k[&4], (MemKind::Device, MemKind::Pageable));
        assert_eq!(k[&7], (MemKind::Managed, MemKind::Device));
    }

    /// A run cut into windows: each window's timeline goes on from what the windows before
    /// left live (`live_after`), so the windows' events are the run's, totals and peaks
    /// included, a free in a later window matches its allocation, and a copy in a later
    /// window from pinned memory allocated earlier is a pinned copy (from nothing, the second
    /// window's free would be unmatched, its totals start from 0 and the copy read as
    /// pageable).
    #[test]
    fn a_window_goes_on_from_what_the_windows_before_left_allocated() {
        use MemAction::*;
        let m = [
            fact(1, Alloc, MemKind::Device, 0x1000, 100),
            fact(2, Alloc, MemKind::Pinned, 0x9000, 50),
            fact(3, Alloc, MemKind::Device, 0x2000, 300),
            fact(4, Free, MemKind::Device, 0x2000, 0),
            fact(6, Alloc, MemKind::Device, 0x3000, 10),
            fact(7, Free, MemKind::Device, 0x1000, 0),
        ];
        let ptrs = [CopyPtrs {
            correlation_id: 5,
            dst: 0x1010,
            src: 0x9010,
        }];
        let h2d = |_| Some((true, false));
        let (whole, whole_unmatched) = timeline(&LiveMemory::default(), &m);
        for cut in 1..m.len() {
            let (first, second) = m.split_at(cut);
            let (a, _) = timeline(&LiveMemory::default(), first);
            let live = live_after(&LiveMemory::default(), first);
            let (b, unmatched) = timeline(&live, second);
            let windows: Vec<MemoryEvent> = a.into_iter().chain(b).collect();
            assert_eq!(windows, whole, "cut after {cut}");
            assert_eq!(unmatched, whole_unmatched, "cut after {cut}");
            // The copy (call 5) comes in the second window from cut 4 on.
            if cut >= 4 {
                let k = copy_kinds(&live, second, &ptrs, h2d);
                assert_eq!(k[&5], (MemKind::Device, MemKind::Pinned), "cut after {cut}");
            }
        }
        assert_eq!(whole_unmatched, 0);
        // Handed on once more, through a window with no memory calls: the same.
        let once = live_after(&LiveMemory::default(), &m[..3]);
        assert_eq!(live_after(&once, &[]), once);
        assert_eq!(once.allocations.len(), 3);
        assert_eq!(
            once.peaks,
            [(Allocator::Gpu(0), 400), (Allocator::Host, 50)]
        );
    }

    /// A program that never frees hands on its latest `MAX_LIVE` allocations, not all.
    #[test]
    fn a_window_hands_on_at_most_max_live_allocations() {
        let m: Vec<MemFact> = (1..=MAX_LIVE as u64 + 10)
            .map(|i| fact(i, MemAction::Alloc, MemKind::Device, i << 12, 1))
            .collect();
        let live = live_after(&LiveMemory::default(), &m);
        assert_eq!(live.allocations.len(), MAX_LIVE);
        assert_eq!(live.allocations[0].correlation_id, 11);
        assert_eq!(live.peaks, [(Allocator::Gpu(0), MAX_LIVE as u64 + 10)]);
    }
}
