//! Memory: the allocation timeline per allocator (xprof's memory profile) and the memory kind
//! of each copy's source and destination (`memcpy_details`), both from the allocation-family
//! HIP calls the tool saw (`MemFact`, read at each call's EXIT).
//!
//! Order is by correlation id: the runtime hands them out in call order, so "allocated before
//! this copy and not yet freed" is a comparison of ids, the same on every run.

use std::collections::HashMap;
use std::sync::Arc;

use super::events::{CopyPtrs, MemAction, MemFact, MemKind};

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

fn ranges(memory: &[MemFact]) -> Ranges {
    let mut facts: Vec<&MemFact> = memory.iter().collect();
    facts.sort_by_key(|f| f.correlation_id);
    let mut live: HashMap<u64, Range> = HashMap::new();
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

/// Destination and source kinds of each copy call that named its pointers. A pointer no
/// allocation holds is device memory on a GPU side and pageable host memory on a host side
/// (`dst_on_gpu` / `src_on_gpu` say which side is which, by the copy's direction).
pub fn copy_kinds(
    memory: &[MemFact],
    ptrs: &[CopyPtrs],
    sides: impl Fn(u64) -> Option<(bool, bool)>,
) -> HashMap<u64, (MemKind, MemKind)> {
    let r = ranges(memory);
    let mut out = HashMap::with_capacity(ptrs.len());
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

/// The allocator a range belongs to.
fn allocator(kind: MemKind, device: i32) -> String {
    match kind {
        MemKind::Pinned | MemKind::Registered | MemKind::Pageable | MemKind::Unknown => {
            "host_pinned".to_string()
        }
        MemKind::Device | MemKind::Managed => format!("GPU_{}", device.max(0)),
    }
}

/// The timeline: every allocation and every free that ended an allocation seen in this
/// profile, in call order, with running totals per allocator; and how many frees matched none
/// (memory allocated before the profile began, a double free, a foreign pointer).
pub fn timeline(memory: &[MemFact]) -> (Vec<MemoryEvent>, u64) {
    let mut facts: Vec<&MemFact> = memory.iter().collect();
    facts.sort_by_key(|f| f.correlation_id);
    let mut live: HashMap<u64, (u64, MemKind, i32)> = HashMap::new();
    let mut totals: HashMap<String, (u64, u64)> = HashMap::new();
    let mut names: HashMap<String, Arc<str>> = HashMap::new();
    let mut out = Vec::with_capacity(facts.len());
    let mut unmatched = 0;
    for f in facts {
        let (bytes, kind, device) = match f.action {
            MemAction::Alloc => {
                if let Some((old, k, d)) = live.insert(f.address, (f.bytes, f.kind, f.device)) {
                    // Reused without a free we saw: the old one is gone.
                    let t = totals.entry(allocator(k, d)).or_default();
                    t.0 = t.0.saturating_sub(old);
                }
                (f.bytes, f.kind, f.device)
            }
            MemAction::Free => match live.remove(&f.address) {
                Some(v) => v,
                None => {
                    unmatched += 1;
                    continue;
                }
            },
        };
        let key = allocator(kind, device);
        let t = totals.entry(key.clone()).or_default();
        match f.action {
            MemAction::Alloc => t.0 += bytes,
            MemAction::Free => t.0 = t.0.saturating_sub(bytes),
        }
        t.1 = t.1.max(t.0);
        let name = names
            .entry(key.clone())
            .or_insert_with(|| Arc::from(key.as_str()))
            .clone();
        out.push(MemoryEvent {
            time_ns: f.time_ns,
            thread_id: f.thread_id,
            correlation_id: f.correlation_id,
            alloc: f.action == MemAction::Alloc,
            allocator: name,
            kind,
            address: f.address,
            bytes,
            in_use: t.0,
            peak: t.1,
        });
    }
    (out, unmatched)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(corr: u64, action: MemAction, kind: MemKind, address: u64, bytes: u64) -> MemFact {
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
        let (ev, unmatched) = timeline(&m);
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
        let k = copy_kinds(&m, &ptrs, |c| {
            Some(if c == 7 { (false, true) } else { (true, false) })
        });
        assert_eq!(k[&3], (MemKind::Device, MemKind::Pinned));
        assert_eq!(k[&4], (MemKind::Device, MemKind::Pageable));
        assert_eq!(k[&7], (MemKind::Managed, MemKind::Device));
    }
}
