//! The tool's large blocks, shared by all its threads (`BlockPool`, the tool's global
//! allocator).
//!
//! The tool's big buffers (the stores' chunks, the join's event vectors, the writer's encode
//! buffers) are made on one thread and freed on another: the stores' chunks on the runtime's
//! delivery thread and the application threads, freed by the join on a tool thread that then
//! makes its own outputs. glibc keeps freed memory in the arena of the thread that made it, so
//! the join's outputs cannot reuse the stores' pages: they take new pages, each a page fault,
//! and a streamed window's peak adds the arenas' leftovers to its own.
//!
//! So blocks of [`LARGE`] bytes and more are page ranges the pool maps itself. A freed block
//! goes back to the pool, whichever thread frees it, merged with its free neighbours, and the
//! next large allocation of any thread takes the smallest free range that holds it (the rest
//! stays free). A growing block extends into the free range after it, or moves into a free
//! range that holds it (a copy of resident pages is cheaper than faulting new ones in), and
//! only then is remapped (`mremap`, as glibc grows its large blocks). A block larger than
//! every free range (mapped, or the new part of one remapped) is made of free ranges' pages,
//! moved into place by the kernel (`mremap` to a fixed address: no copy, no fault), the
//! largest ranges first and only ranges of at least [`MOVED`] bytes, as each moved range is
//! one more of the kernel's areas (so at most [`MOVES`] ranges over the process's life); the
//! rest comes fresh. Without this, a block outgrowing what is free (the join's lines,
//! millions of events, while the records they are made from are freed in pieces) would take
//! fresh pages for all of it beside free pages already in memory. Smaller allocations go to
//! the system allocator, which is fast for them.
//!
//! So what is freed together should lie together: a free range holds an output only as far as
//! its neighbours are free too. Fresh blocks under [`NEAR`] bytes (the application threads'
//! capture chunks, which the drain at a cut frees all at once) are cut one after another from
//! regions of their own; larger ones (the stores' chunks, made meanwhile on the delivery
//! thread and freed by the join stage by stage) are mapped each on its own. Mapped in turn,
//! every store chunk would lie between two threads' chunks and cut what the drain frees into
//! pieces too small for the join's outputs, which would then take fresh pages beside them.
//! Blocks of the least size ([`LARGE`]) are cut from a region of their own: a thread's scopes
//! (the calls' annotation scopes, 16 KiB chunks) are held until the join's annotations stage,
//! while the drain frees the thread's calls (64 KiB chunks); cut from one region, the scopes'
//! chunks would keep what the drain frees in pieces of a chunk or two, too small for the
//! annotations stage's tables, which would take fresh pages while those pieces lie unused.
//!
//! Bounds: the pool maps new pages only when no free range (or, for a block under [`NEAR`],
//! the region's rest) holds a block; at most [`SLOTS`] free ranges are kept (the smallest goes
//! back to the kernel); a region's pages are touched only as blocks cut from it are used.
//!
//! After a `fork`, the child (not profiled) stops using the free list: another thread may have
//! held its lock at the fork. [`BlockPool::forked`] is called from the child handler; from
//! then on a block is mapped and unmapped on its own.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Allocations of this size and more are the pool's; smaller ones the system allocator's.
pub const LARGE: usize = 16 << 10;

/// Fresh blocks under this many bytes are cut from a region (see the module's comment): a
/// thread's capture chunks are at most 64 KiB, the stores' full chunks 128 KiB and more.
pub const NEAR: usize = 128 << 10;

/// Bytes of a region blocks under [`NEAR`] are cut from: mapped at once (one kernel area, its
/// pages untouched until used), large enough to hold many threads' capture chunks together.
const REGION: usize = 8 << 20;

/// Free ranges of this many bytes and more are moved into a block grown past every free
/// range (their pages kept); each moved range is one more of the kernel's areas.
const MOVED: usize = 256 << 10;

/// Free ranges moved into blocks at most over the process's life. A moved range stays an area
/// of its own (the kernel does not merge it with its neighbours), and a long run that cuts
/// many windows would otherwise keep adding areas towards the kernel's limit
/// (`vm.max_map_count`, 65,530 by default), past which mapping fails.
const MOVES: usize = 8192;

/// Free ranges kept at most.
pub const SLOTS: usize = 512;

/// The largest alignment a block has: it starts a page, and pages are at least this.
const ALIGN: usize = 4096;

/// A page range: start address and length in bytes, both multiples of the page size.
#[derive(Clone, Copy)]
struct Range {
    start: usize,
    len: usize,
}

impl Range {
    fn end(self) -> usize {
        self.start + self.len
    }

    /// Its first `len` bytes (at most its length) and the rest.
    fn split_at(self, len: usize) -> (Range, Range) {
        debug_assert!(len <= self.len);
        (
            Range {
                start: self.start,
                len,
            },
            Range {
                start: self.start + len,
                len: self.len - len,
            },
        )
    }
}

struct FreeList {
    ranges: [Range; SLOTS],
    len: usize,
    /// Sum of the free ranges' lengths, `region`'s included.
    bytes: usize,
    /// What is left of the regions blocks under [`NEAR`] are cut from when no free range
    /// holds them (never touched: its pages are fresh): blocks of [`LARGE`] bytes, and the
    /// others (`class`).
    region: [Range; 2],
}

/// The region a fresh block of `len` bytes (a multiple of the page) is cut from: blocks of
/// the least size lie apart (see the module's comment).
fn class(len: usize) -> usize {
    usize::from(len > LARGE)
}

impl FreeList {
    const fn new() -> Self {
        Self {
            ranges: [Range { start: 0, len: 0 }; SLOTS],
            len: 0,
            bytes: 0,
            region: [Range { start: 0, len: 0 }; 2],
        }
    }

    /// The next `len` bytes of the block's region (`class`), if it holds them.
    fn cut(&mut self, len: usize) -> Option<Range> {
        let region = &mut self.region[class(len)];
        if region.len < len {
            return None;
        }
        let (r, rest) = region.split_at(len);
        *region = rest;
        self.bytes -= len;
        Some(r)
    }

    /// `region`, just mapped, becomes the one blocks of `len`'s class are cut from, and its first
    /// `len` bytes (at most its length) are returned; what was left of the one before becomes
    /// a free range (and perhaps a range to unmap, as [`Self::give`] says).
    #[must_use]
    fn new_region(&mut self, region: Range, len: usize) -> (Range, Option<Range>) {
        let (r, rest) = region.split_at(len);
        let before = std::mem::replace(&mut self.region[class(len)], rest);
        self.bytes = self.bytes - before.len + rest.len;
        let out = if before.len > 0 {
            self.give(before)
        } else {
            None
        };
        (r, out)
    }

    fn live(&self) -> &[Range] {
        &self.ranges[..self.len]
    }

    fn remove(&mut self, i: usize) -> Range {
        let r = self.ranges[i];
        self.len -= 1;
        self.ranges[i] = self.ranges[self.len];
        self.bytes -= r.len;
        r
    }

    /// The smallest free range of at least `len` bytes, split so that what is left stays
    /// free.
    fn take(&mut self, len: usize) -> Option<Range> {
        let i = (0..self.len)
            .filter(|&i| self.ranges[i].len >= len)
            .min_by_key(|&i| self.ranges[i].len)?;
        let r = self.remove(i);
        Some(self.split(r, len))
    }

    /// The first bytes (at most `len`) of the largest free range, when it has at least
    /// [`MOVED`] bytes.
    fn take_largest(&mut self, len: usize) -> Option<Range> {
        let i = (0..self.len)
            .filter(|&i| self.ranges[i].len >= MOVED)
            .max_by_key(|&i| self.ranges[i].len)?;
        let r = self.remove(i);
        Some(self.split(r, len.min(r.len)))
    }

    /// `len` bytes at `start`, when a free range begins there and holds them.
    fn take_at(&mut self, start: usize, len: usize) -> Option<Range> {
        let i = self
            .live()
            .iter()
            .position(|r| r.start == start && r.len >= len)?;
        let r = self.remove(i);
        Some(self.split(r, len))
    }

    /// The first `len` bytes of `r` (just removed, so a slot is free); the rest stays free.
    fn split(&mut self, r: Range, len: usize) -> Range {
        let rest = Range {
            start: r.start + len,
            len: r.len - len,
        };
        if rest.len > 0 {
            self.push(rest);
        }
        Range {
            start: r.start,
            len,
        }
    }

    /// Puts `r` back, merged with the free ranges on either side. When every slot is taken,
    /// the smallest range (perhaps `r`) is handed back, to be unmapped outside the lock.
    #[must_use]
    fn give(&mut self, mut r: Range) -> Option<Range> {
        while let Some(i) = self
            .live()
            .iter()
            .position(|f| f.end() == r.start || r.end() == f.start)
        {
            let f = self.remove(i);
            r = Range {
                start: r.start.min(f.start),
                len: r.len + f.len,
            };
        }
        if self.len == SLOTS {
            let (i, smallest) = (0..self.len)
                .map(|i| (i, self.ranges[i].len))
                .min_by_key(|&(_, len)| len)
                .expect("SLOTS > 0");
            if smallest >= r.len {
                return Some(r);
            }
            let out = self.remove(i);
            self.push(r);
            return Some(out);
        }
        self.push(r);
        None
    }

    /// Adds `r` (a slot is free).
    fn push(&mut self, r: Range) {
        self.ranges[self.len] = r;
        self.len += 1;
        self.bytes += r.len;
    }
}

/// The tool's global allocator: large blocks from shared page ranges, the rest from the
/// system allocator (see the module's comment).
pub struct BlockPool {
    lock: AtomicBool,
    forked: AtomicBool,
    free: UnsafeCell<FreeList>,
    /// Bytes mapped by the pool and not unmapped: blocks in use and free ranges.
    mapped: AtomicUsize,
    /// Free ranges moved into blocks so far (at most [`MOVES`]).
    moves: AtomicUsize,
    /// The system's page size, read at the first large allocation.
    page: AtomicUsize,
}

// SAFETY: `free` is only touched with `lock` held (`with_free`); the rest are atomics.
unsafe impl Sync for BlockPool {}

impl Default for BlockPool {
    fn default() -> Self {
        Self::new()
    }
}

impl BlockPool {
    pub const fn new() -> Self {
        Self {
            lock: AtomicBool::new(false),
            forked: AtomicBool::new(false),
            free: UnsafeCell::new(FreeList::new()),
            mapped: AtomicUsize::new(0),
            moves: AtomicUsize::new(0),
            page: AtomicUsize::new(0),
        }
    }

    /// For the `fork` child handler (async-signal-safe: one atomic store): the free list is
    /// left as it is, and every block is mapped and unmapped on its own from now on.
    pub fn forked(&self) {
        self.forked.store(true, Ordering::SeqCst);
    }

    /// Bytes mapped (in use or free) and bytes free.
    pub fn footprint(&self) -> (usize, usize) {
        let free = self.with_free(|f| f.bytes).unwrap_or(0);
        (self.mapped.load(Ordering::Relaxed), free)
    }

    /// Runs `f` on the free list under the lock; `None` in a forked child.
    fn with_free<R>(&self, f: impl FnOnce(&mut FreeList) -> R) -> Option<R> {
        if self.forked.load(Ordering::Relaxed) {
            return None;
        }
        let mut spins = 0u32;
        while self
            .lock
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        // SAFETY: the lock is held, so this is the only reference to the free list.
        let r = f(unsafe { &mut *self.free.get() });
        self.lock.store(false, Ordering::Release);
        Some(r)
    }

    /// Gives `r` back to the free list, or to the kernel when the list has no slot for it
    /// (or in a forked child).
    fn release(&self, r: Range) {
        if let Some(out) = self.with_free(|f| f.give(r)).unwrap_or(Some(r)) {
            self.mapped.fetch_sub(out.len, Ordering::Relaxed);
            unmap(out);
        }
    }

    /// A range of `len` bytes, and how many of its first bytes are not fresh from the kernel
    /// (the rest is zeroed).
    fn obtain(&self, len: usize) -> Option<(Range, usize)> {
        let near = len < NEAR;
        let got = self.with_free(|f| match f.take(len) {
            Some(r) => Some((r, len)),
            None if near => f.cut(len).map(|r| (r, 0)),
            None => None,
        });
        match got {
            Some(Some(got)) => return Some(got),
            Some(None) if near => {
                if let Some(region) = map(REGION) {
                    self.mapped.fetch_add(REGION, Ordering::Relaxed);
                    // `None` only in a forked child, which keeps no region: the rest goes back.
                    let (r, out) = self
                        .with_free(|f| f.new_region(region, len))
                        .unwrap_or_else(|| {
                            let (r, rest) = region.split_at(len);
                            (r, Some(rest))
                        });
                    if let Some(out) = out {
                        self.mapped.fetch_sub(out.len, Ordering::Relaxed);
                        unmap(out);
                    }
                    return Some((r, 0));
                }
            }
            _ => {}
        }
        // Mapped, made of free ranges' pages where possible.
        let r = map(len)?;
        self.mapped.fetch_add(len, Ordering::Relaxed);
        Some((r, self.fill(r)))
    }

    /// The pooled block of `size` bytes at `p`: its page range, whose length follows from
    /// the size (a block is always given exactly the pages its size needs).
    fn range_of(&self, p: *mut u8, size: usize) -> Range {
        Range {
            start: p as usize,
            len: self.pages_for(size).unwrap_or(usize::MAX),
        }
    }

    fn pooled(layout: Layout) -> bool {
        layout.size() >= LARGE && layout.align() <= ALIGN
    }

    /// The page size, read once.
    fn page(&self) -> usize {
        match self.page.load(Ordering::Relaxed) {
            0 => {
                // SAFETY: sysconf reads a constant of the system.
                let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
                let p = usize::try_from(p)
                    .ok()
                    .filter(|p| p.is_power_of_two() && *p >= ALIGN)
                    .unwrap_or(4096);
                self.page.store(p, Ordering::Relaxed);
                p
            }
            p => p,
        }
    }

    /// Bytes of pages for a payload of `size`, or `None` on overflow.
    fn pages_for(&self, size: usize) -> Option<usize> {
        let page = self.page();
        size.checked_add(page - 1).map(|n| n & !(page - 1))
    }

    fn alloc_large(&self, size: usize, zeroed: bool) -> *mut u8 {
        let Some(len) = self.pages_for(size) else {
            return ptr::null_mut();
        };
        let Some((r, used)) = self.obtain(len) else {
            return ptr::null_mut();
        };
        let p = r.start as *mut u8;
        if zeroed && used > 0 {
            // SAFETY: the payload spans `size` bytes inside `r`.
            unsafe { p.write_bytes(0, size.min(used)) };
        }
        p
    }

    /// Grows the pooled block of `old` bytes at `p` to hold `new` bytes.
    fn grow(&self, p: *mut u8, old: usize, new: usize) -> *mut u8 {
        let r = self.range_of(p, old);
        let Some(len) = self.pages_for(new) else {
            return ptr::null_mut();
        };
        if len <= r.len {
            return p;
        }
        // Into the free range right after it.
        if let Some(Some(_)) = self.with_free(|f| f.take_at(r.end(), len - r.len)) {
            return p;
        }
        // Into a free range that holds it: a copy of resident pages, no faults.
        if let Some(Some(to)) = self.with_free(|f| f.take(len)) {
            // SAFETY: both hold `old` bytes; distinct ranges (the block is not free).
            unsafe { ptr::copy_nonoverlapping(p, to.start as *mut u8, old) };
            self.release(r);
            return to.start as *mut u8;
        }
        // Remapped: its pages move; the new ones are free ranges' pages moved in where
        // possible, else fresh.
        if let Some(moved) = remap(r, len) {
            self.mapped.fetch_add(len - r.len, Ordering::Relaxed);
            self.fill(Range {
                start: moved.start + r.len,
                len: len - r.len,
            });
            return moved.start as *mut u8;
        }
        // A block grown into the free range after it, or filled with moved pages, may span
        // several of the kernel's areas, which mremap refuses as a whole: moved into a new
        // mapping area by area, the rest made of free ranges' pages where possible.
        let Some(to) = map(len) else {
            return ptr::null_mut();
        };
        self.mapped.fetch_add(len - r.len, Ordering::Relaxed);
        move_block(r, to.start, self.page());
        self.fill(Range {
            start: to.start + r.len,
            len: len - r.len,
        });
        to.start as *mut u8
    }

    /// Moves the pages of free ranges (of at least [`MOVED`] bytes, the largest first, while
    /// fewer than [`MOVES`] have been) into
    /// `to`, a fresh mapping of the pool's whose pages are untouched, from its start: pages
    /// already in memory, where fresh ones would each be a page fault. Stops at the first
    /// range it cannot move (one that spans two of the kernel's areas goes back free).
    /// Returns the bytes moved.
    fn fill(&self, to: Range) -> usize {
        let mut at = to.start;
        while at < to.end() && self.moves.load(Ordering::Relaxed) < MOVES {
            let want = to.end() - at;
            let Some(Some(from)) = self.with_free(|f| f.take_largest(want)) else {
                break;
            };
            if !move_pages(from, at) {
                self.release(from);
                break;
            }
            self.mapped.fetch_sub(from.len, Ordering::Relaxed);
            self.moves.fetch_add(1, Ordering::Relaxed);
            at += from.len;
        }
        at - to.start
    }

    /// Shrinks the pooled block of `old` bytes at `p` to `new` (still pooled): the pages it
    /// no longer needs go back.
    fn shrink(&self, p: *mut u8, old: usize, new: usize) -> *mut u8 {
        let (r, keep) = (self.range_of(p, old), self.range_of(p, new));
        if keep.len < r.len {
            self.release(Range {
                start: keep.end(),
                len: r.len - keep.len,
            });
        }
        p
    }
}

// SAFETY: large blocks are page ranges of their own (mapped here, never handed out twice: a
// range is either in one block or in the free list), page-aligned and exactly the pages their
// layout's size needs, so the size given back names the range; `dealloc` and `realloc` route
// by the same test on the layout as `alloc`, so a pointer returns to the allocator that made
// it. Everything else is `System`'s.
unsafe impl GlobalAlloc for BlockPool {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if Self::pooled(layout) {
            self.alloc_large(layout.size(), false)
        } else {
            // SAFETY: the caller's contract for `alloc` is `System.alloc`'s.
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::pooled(layout) {
            self.alloc_large(layout.size(), true)
        } else {
            // SAFETY: as `alloc`.
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if Self::pooled(layout) {
            // A pooled layout's block: `p` starts the pages its size needs.
            self.release(self.range_of(p, layout.size()));
        } else {
            // SAFETY: `p` came from `System` with `layout`.
            unsafe { System.dealloc(p, layout) }
        }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size`, rounded to the alignment, does not
        // overflow, and the alignment is the layout's, already valid.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (Self::pooled(layout), Self::pooled(new)) {
            // SAFETY: `p` came from `System` with `layout`.
            (false, false) => unsafe { System.realloc(p, layout, new_size) },
            (true, true) if new_size <= layout.size() => self.shrink(p, layout.size(), new_size),
            (true, true) => self.grow(p, layout.size(), new_size),
            _ => {
                // SAFETY: `new` is a valid layout (see above), of non-zero size.
                let q = unsafe { self.alloc(new) };
                if !q.is_null() {
                    // SAFETY: both hold at least the smaller size; distinct allocations.
                    unsafe { ptr::copy_nonoverlapping(p, q, layout.size().min(new_size)) };
                    // SAFETY: `p` was allocated here with `layout`.
                    unsafe { self.dealloc(p, layout) };
                }
                q
            }
        }
    }
}

fn map(len: usize) -> Option<Range> {
    // SAFETY: a new private anonymous mapping; no memory of ours is touched.
    let p = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(Range {
        start: p as usize,
        len,
    })
}

/// Moves the pages of `from` (a free range of the pool's) to `to` (the start of as many
/// bytes of a mapping of the pool's), replacing what was mapped there; `from` is no longer
/// mapped. False when the kernel refuses (`from` spans two of its areas): nothing moved.
fn move_pages(from: Range, to: usize) -> bool {
    // SAFETY: `from` is a range no block holds; `to..to + from.len` lies in a mapping of the
    // pool's no block holds but the one being grown, whose untouched pages it replaces.
    let p = unsafe {
        libc::mremap(
            from.start as *mut libc::c_void,
            from.len,
            from.len,
            libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
            to as *mut libc::c_void,
        )
    };
    p != libc::MAP_FAILED
}

/// Moves the pages of `from` (a block or free range of the pool's) to `to` (as
/// [`move_pages`]), part by part where it spans several of the kernel's areas; a page the
/// kernel will not move (it has too many areas) is copied, and unmapped.
fn move_block(from: Range, to: usize, page: usize) {
    if move_pages(from, to) {
        return;
    }
    if from.len > page {
        let (a, b) = from.split_at((from.len / 2) & !(page - 1));
        move_block(a, to, page);
        move_block(b, to + a.len, page);
        return;
    }
    // SAFETY: distinct mappings; `from.len` bytes readable in `from` and writable at `to`.
    unsafe { ptr::copy_nonoverlapping(from.start as *const u8, to as *mut u8, from.len) };
    unmap(from);
}

/// The block `r` moved by the kernel to hold `len` bytes (its pages kept), or `None` when it
/// refuses (a block spanning two of its areas).
fn remap(r: Range, len: usize) -> Option<Range> {
    // SAFETY: `r` is a block this pool mapped and hands to no one else; the kernel moves its
    // pages (keeping them) or fails.
    let p = unsafe {
        libc::mremap(
            r.start as *mut libc::c_void,
            r.len,
            len,
            libc::MREMAP_MAYMOVE,
        )
    };
    (p != libc::MAP_FAILED).then_some(Range {
        start: p as usize,
        len,
    })
}

fn unmap(r: Range) {
    // SAFETY: `r` is a range this pool mapped and no block or free range holds any more.
    unsafe { libc::munmap(r.start as *mut libc::c_void, r.len) };
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: usize = 1 << 20;

    fn layout(size: usize) -> Layout {
        Layout::from_size_align(size, 8).unwrap()
    }

    fn fill(p: *mut u8, size: usize, seed: u8) {
        for i in (0..size).step_by(4093) {
            // SAFETY: `p` holds `size` bytes.
            unsafe { p.add(i).write(seed.wrapping_add(i as u8)) };
        }
    }

    fn holds(p: *mut u8, size: usize, seed: u8) -> bool {
        // SAFETY: `p` holds `size` bytes.
        (0..size)
            .step_by(4093)
            .all(|i| unsafe { p.add(i).read() } == seed.wrapping_add(i as u8))
    }

    /// Pages of `[p, p + len)` resident now, read without touching them (`mincore`).
    fn resident(p: *mut u8, len: usize) -> usize {
        let page = 4096;
        let start = p as usize & !(page - 1);
        let pages = (p as usize + len - start).div_ceil(page);
        let mut v = vec![0u8; pages];
        // SAFETY: the range is mapped (a live block); `v` has a byte per page.
        let rc = unsafe { libc::mincore(start as *mut libc::c_void, pages * page, v.as_mut_ptr()) };
        assert_eq!(rc, 0);
        v.iter().filter(|&&b| b & 1 == 1).count()
    }

    #[test]
    fn a_block_freed_on_one_thread_is_reused_on_another_without_new_pages() {
        let pool: &'static BlockPool = Box::leak(Box::new(BlockPool::new()));
        // Thread A: eight 1 MB blocks, written (resident), then freed.
        std::thread::spawn(move || {
            let blocks: Vec<_> = (0..8)
                .map(|i| {
                    // SAFETY: a valid non-zero layout.
                    let p = unsafe { pool.alloc(layout(MB)) };
                    fill(p, MB, i);
                    // SAFETY: every page of the payload.
                    unsafe { p.write_bytes(1, MB) };
                    p as usize
                })
                .collect();
            for p in blocks {
                // SAFETY: allocated above with this layout.
                unsafe { pool.dealloc(p as *mut u8, layout(MB)) };
            }
        })
        .join()
        .unwrap();
        let (mapped, free) = pool.footprint();
        assert_eq!(mapped, free, "all freed");
        // Thread B: six blocks of 1 MB, made of those pages.
        std::thread::spawn(move || {
            for _ in 0..6 {
                // SAFETY: a valid non-zero layout; freed once below.
                let p = unsafe { pool.alloc(layout(MB)) };
                assert_eq!(resident(p, MB), MB / 4096, "reused, not fresh");
                assert_eq!(pool.footprint().0, mapped, "no new pages mapped");
                // SAFETY: freed once.
                unsafe { pool.dealloc(p, layout(MB)) };
            }
        })
        .join()
        .unwrap();
        assert_eq!(pool.footprint(), (mapped, mapped));
    }

    /// Eight 1 MiB blocks written, every other one freed: four free ranges of 1 MiB in memory,
    /// none adjacent. A block larger than each (made, made zeroed, grown) takes their pages
    /// rather than fresh ones, and keeps its bytes.
    #[test]
    fn a_block_larger_than_every_free_range_is_made_of_free_pages() {
        let pool = BlockPool::new();
        let page = 4096;
        // SAFETY: valid layouts; each block freed once with its own.
        unsafe {
            let mut held = Vec::new();
            let mut freed = Vec::new();
            for i in 0..8 {
                let p = pool.alloc(layout(MB));
                p.write_bytes(0xa5, MB);
                if i % 2 == 0 {
                    held.push(p)
                } else {
                    freed.push(p)
                }
            }
            for q in freed {
                pool.dealloc(q, layout(MB));
            }
            let mapped = pool.footprint().0;
            let out = pool.alloc(layout(2 * MB));
            assert_eq!(resident(out, 2 * MB), 2 * MB / page, "free pages moved in");
            assert_eq!(pool.footprint().0, mapped, "nothing new in memory");
            let zeroed = pool.alloc_zeroed(layout(2 * MB));
            assert_eq!(resident(zeroed, 2 * MB), 2 * MB / page);
            assert!((0..2 * MB).all(|i| *zeroed.add(i) == 0), "zeroed");
            pool.dealloc(zeroed, layout(2 * MB));
            pool.dealloc(out, layout(2 * MB));
            // Grown: its bytes kept, the new part made of free pages again.
            let g = held.pop().unwrap();
            fill(g, MB, 7);
            for p in held.drain(..) {
                pool.dealloc(p, layout(MB));
            }
            let grown = pool.realloc(g, layout(MB), 3 * MB);
            assert!(holds(grown, MB, 7), "bytes kept");
            assert_eq!(
                resident(grown, 3 * MB),
                3 * MB / page,
                "free pages moved in"
            );
            pool.dealloc(grown, layout(3 * MB));
        }
        let (mapped, free) = pool.footprint();
        assert_eq!(mapped, free, "all freed");
    }

    #[test]
    fn blocks_keep_their_bytes_however_they_grow() {
        let pool = BlockPool::new();
        let mut live: Vec<(usize, usize, u8)> = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| crate::util::next_random(&mut x) % n;
        for round in 0..2000u32 {
            let seed = round as u8;
            match next(4) {
                0 | 1 => {
                    let size = LARGE + next(3 * MB as u64) as usize;
                    // SAFETY: a valid non-zero layout.
                    let p = unsafe { pool.alloc(layout(size)) };
                    fill(p, size, seed);
                    live.push((p as usize, size, seed));
                }
                2 if !live.is_empty() => {
                    let i = next(live.len() as u64) as usize;
                    let (p, size, s) = live[i];
                    let new = if next(3) == 0 {
                        LARGE + next((size - LARGE + 1) as u64) as usize
                    } else {
                        size + next(4 * MB as u64) as usize
                    };
                    // SAFETY: `p` is live with that layout.
                    let q = unsafe { pool.realloc(p as *mut u8, layout(size), new) };
                    assert!(holds(q, size.min(new), s), "round {round}: bytes lost");
                    fill(q, new, seed);
                    live[i] = (q as usize, new, seed);
                }
                _ if !live.is_empty() => {
                    let (p, size, s) = live.swap_remove(next(live.len() as u64) as usize);
                    assert!(holds(p as *mut u8, size, s), "round {round}: bytes changed");
                    // SAFETY: `p` is live with that layout.
                    unsafe { pool.dealloc(p as *mut u8, layout(size)) };
                }
                _ => {}
            }
            let (mapped, free) = pool.footprint();
            let held: usize = live.iter().map(|&(_, size, _)| size).sum();
            assert!(
                mapped >= free + held,
                "round {round}: {mapped} < {free} + {held}"
            );
        }
        for (p, size, s) in live {
            assert!(holds(p as *mut u8, size, s));
            // SAFETY: live with that layout.
            unsafe { pool.dealloc(p as *mut u8, layout(size)) };
        }
        let (mapped, free) = pool.footprint();
        assert_eq!(mapped, free);
    }

    #[test]
    fn a_full_free_list_hands_back_its_smallest_range() {
        let mut f = FreeList::new();
        // Ranges apart from each other (never merged), of growing lengths.
        let range = |i: usize| Range {
            start: (i + 1) << 32,
            len: (i + 2) * 4096,
        };
        for i in 0..SLOTS {
            assert!(f.give(range(i)).is_none());
        }
        let out = f.give(range(SLOTS)).expect("the list is full");
        assert_eq!((out.start, out.len), (range(0).start, range(0).len));
        let small = Range {
            start: 1 << 20,
            len: 4096,
        };
        let out = f.give(small).expect("still full");
        assert_eq!((out.start, out.len), (small.start, small.len));
        // Merged with a neighbour, a range takes no slot of its own.
        let next = range(SLOTS);
        assert!(f
            .give(Range {
                start: next.end(),
                len: 4096,
            })
            .is_none());
        assert_eq!(f.len, SLOTS);
        let total: usize = (1..=SLOTS).map(|i| range(i).len).sum::<usize>() + 4096;
        assert_eq!(f.bytes, total);
    }

    #[test]
    fn zeroed_blocks_are_zero_on_reused_pages() {
        let pool = BlockPool::new();
        // SAFETY: valid layouts; each block freed once.
        unsafe {
            let p = pool.alloc(layout(2 * MB));
            p.write_bytes(0xab, 2 * MB);
            pool.dealloc(p, layout(2 * MB));
            let q = pool.alloc_zeroed(layout(MB + 4096));
            assert!((0..MB + 4096).all(|i| q.add(i).read() == 0));
            pool.dealloc(q, layout(MB + 4096));
        }
    }

    #[test]
    fn small_and_overaligned_allocations_are_the_systems() {
        let pool = BlockPool::new();
        // SAFETY: valid layouts; each freed once with its own.
        unsafe {
            let small = pool.alloc(layout(LARGE - 1));
            let aligned = Layout::from_size_align(MB, 2 * ALIGN).unwrap();
            let big = pool.alloc(aligned);
            assert_eq!(big as usize % (2 * ALIGN), 0);
            assert_eq!(pool.footprint(), (0, 0));
            // Across the line and back: the bytes follow.
            fill(small, LARGE - 1, 7);
            let grown = pool.realloc(small, layout(LARGE - 1), 2 * LARGE);
            assert!(holds(grown, LARGE - 1, 7));
            assert!(pool.footprint().0 > 0);
            let shrunk = pool.realloc(grown, layout(2 * LARGE), 100);
            assert!(holds(shrunk, 100, 7));
            pool.dealloc(shrunk, layout(100));
            pool.dealloc(big, aligned);
        }
    }

    #[test]
    fn a_forked_child_keeps_no_free_ranges() {
        let pool = BlockPool::new();
        pool.forked();
        // SAFETY: a valid layout; freed once.
        unsafe {
            let p = pool.alloc(layout(MB));
            fill(p, MB, 3);
            let q = pool.realloc(p, layout(MB), 3 * MB);
            assert!(holds(q, MB, 3));
            pool.dealloc(q, layout(3 * MB));
            // A block under NEAR is mapped on its own too, not cut from a region.
            let small = pool.alloc(layout(LARGE));
            fill(small, LARGE, 4);
            pool.dealloc(small, layout(LARGE));
        }
        assert_eq!(pool.footprint(), (0, 0));
    }

    /// Blocks of `kept` and `freed` bytes made in turn, `n` of each, then the `freed` ones
    /// freed: one block of their size together is made of their pages, nothing new mapped.
    fn freed_in_turn_hold_a_block(kept: usize, freed: usize, n: usize) {
        assert!(freed < MOVED, "too small to be moved into a block");
        let pool = BlockPool::new();
        // SAFETY: valid layouts; each block freed once with its own.
        unsafe {
            let mut held = Vec::new();
            let mut gone = Vec::new();
            for _ in 0..n {
                let p = pool.alloc(layout(kept));
                p.write_bytes(1, kept);
                held.push(p);
                let q = pool.alloc(layout(freed));
                q.write_bytes(2, freed);
                gone.push(q);
            }
            for q in gone {
                pool.dealloc(q, layout(freed));
            }
            let mapped = pool.footprint().0;
            let out = pool.alloc(layout(n * freed));
            assert_eq!(pool.footprint().0, mapped, "nothing new mapped");
            assert_eq!(
                resident(out, n * freed),
                n * freed / 4096,
                "the freed pages"
            );
            pool.dealloc(out, layout(n * freed));
            for p in held {
                pool.dealloc(p, layout(kept));
            }
        }
        let (mapped, free) = pool.footprint();
        assert_eq!(mapped, free, "all freed");
    }

    /// The application threads' chunks (small) and the stores' (large) are made in turn, and
    /// the small ones freed together (a cut's drain): they lie together, so one free range
    /// holds a block of their size, made of their pages (each is too small to be moved into
    /// a block), and nothing new is mapped.
    #[test]
    fn small_blocks_freed_together_hold_a_block_of_their_size() {
        let (small, large) = (64 << 10, 160 << 10);
        assert!(small < NEAR && large >= NEAR);
        freed_in_turn_hold_a_block(large, small, 32);
    }

    /// Threads' chunks of the least size (held longer) and of 64 KiB (freed together) made in
    /// turn: the 64 KiB ones lie together, apart from the others, so once they are freed one
    /// free range holds a block of their size, made of their pages.
    #[test]
    fn blocks_of_the_least_size_lie_apart_from_larger_ones() {
        let chunk = 64 << 10;
        assert!(chunk < NEAR && BlockPool::new().pages_for(LARGE) == Some(LARGE));
        freed_in_turn_hold_a_block(LARGE, chunk, 32);
    }
}
