//! Byte-sized record buffers and the threads that deliver them (reference §2.2, §1.6).
//!
//! A buffer holds `size` bytes of records (each counted as a 16-byte header plus the record
//! rounded up to 8 bytes). LOSSLESS buffers have two halves: when the current half reaches the
//! watermark it is handed to the delivery thread and writers continue in the other; a writer
//! blocks while both halves are busy. DISCARD buffers have one half: while it is being
//! delivered, or when a record does not fit, records are dropped and counted, and the count
//! reaches the tool as `drop_count` in the next callback. After each callback the delivered
//! memory is poisoned (0xDD) and reused, so a tool that keeps record pointers reads garbage.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::abi::*;
use super::state::{lock, Opaque};

pub const HEADER_BYTES: usize = std::mem::size_of::<rocprofiler_record_header_t>();
const POISON: u8 = 0xDD;

struct Half {
    /// Record storage; u64 words so every record is 8-byte aligned. Never reallocated.
    words: Vec<u64>,
    used_words: usize,
    /// Bytes charged against the buffer size (headers + records).
    used_bytes: usize,
    headers: Vec<rocprofiler_record_header_t>,
    ptrs: Vec<*mut rocprofiler_record_header_t>,
    delivering: bool,
}

impl Half {
    fn new(size: usize) -> Half {
        Half {
            words: vec![0u64; size.div_ceil(8)],
            used_words: 0,
            used_bytes: 0,
            headers: Vec::with_capacity(size / (HEADER_BYTES + 8) + 1),
            ptrs: Vec::new(),
            delivering: false,
        }
    }
}

/// What happened to the records of one buffer, for the ground truth.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BufferStats {
    pub handle: u64,
    pub context: u64,
    pub size: usize,
    pub watermark: usize,
    /// The policy the buffer runs with.
    pub policy: &'static str,
    /// The policy the tool asked for; differs from `policy` under `[delivery] force_policy`.
    pub requested_policy: &'static str,
    pub emplaced: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub rejected_too_large: u64,
    pub callbacks: u64,
    pub writer_blocked: u64,
    pub flushes: u64,
    /// Records still in the buffer when the runtime finished (never delivered).
    pub lost_unflushed: u64,
    /// Records discarded by `rocprofiler_destroy_buffer`, and records offered afterwards.
    pub discarded_by_destroy: u64,
    pub destroyed: bool,
}

struct State {
    halves: Vec<Half>,
    current: usize,
    drops_pending: u64,
    submitted: u64,
    completed: u64,
    stats: BufferStats,
}

pub struct Buffer {
    pub handle: u64,
    pub context: u64,
    pub policy: rocprofiler_buffer_policy_t,
    pub callback: rocprofiler_buffer_tracing_cb_t,
    pub data: Opaque,
    pub size: usize,
    pub watermark: usize,
    /// Index into the delivery-thread table (0 = the shared default thread).
    pub thread: AtomicU64,
    state: Mutex<State>,
    cv: Condvar,
    delay_us: u64,
    destroyed: AtomicBool,
}

// SAFETY: the raw pointers inside `Half` point into the buffer's own storage and are only
// touched under `state`'s mutex or, for a half marked `delivering`, by the one delivery
// thread that owns it until it clears the flag.
unsafe impl Send for Buffer {}
// SAFETY: see above.
unsafe impl Sync for Buffer {}

/// The policy a buffer runs with and the one its tool asked for (they differ when the plan
/// forces a policy).
#[derive(Debug, Clone, Copy)]
pub struct BufferPolicies {
    pub effective: rocprofiler_buffer_policy_t,
    pub requested: rocprofiler_buffer_policy_t,
}

fn policy_name(policy: rocprofiler_buffer_policy_t) -> &'static str {
    if policy == ROCPROFILER_BUFFER_POLICY_LOSSLESS {
        "LOSSLESS"
    } else {
        "DISCARD"
    }
}

pub enum Emplace {
    Stored,
    Dropped,
    TooLarge,
}

impl Buffer {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        handle: u64,
        context: u64,
        size: usize,
        watermark: usize,
        policies: BufferPolicies,
        callback: rocprofiler_buffer_tracing_cb_t,
        data: Opaque,
        delay_us: u64,
    ) -> Buffer {
        let policy = policies.effective;
        let halves = if policy == ROCPROFILER_BUFFER_POLICY_LOSSLESS {
            2
        } else {
            1
        };
        Buffer {
            handle,
            context,
            policy,
            callback,
            data,
            size,
            watermark: watermark.min(size),
            thread: AtomicU64::new(0),
            state: Mutex::new(State {
                halves: (0..halves).map(|_| Half::new(size)).collect(),
                current: 0,
                drops_pending: 0,
                submitted: 0,
                completed: 0,
                stats: BufferStats {
                    handle,
                    context,
                    size,
                    watermark: watermark.min(size),
                    policy: policy_name(policy),
                    requested_policy: policy_name(policies.requested),
                    ..Default::default()
                },
            }),
            cv: Condvar::new(),
            delay_us,
            destroyed: AtomicBool::new(false),
        }
    }

    fn lossless(&self) -> bool {
        self.policy == ROCPROFILER_BUFFER_POLICY_LOSSLESS
    }

    /// Copies `record` (a `#[repr(C)]` record struct) into the buffer under header `kind`.
    pub fn emplace(self: &Arc<Self>, kind: u32, record: &[u8]) -> Emplace {
        self.emplace_in(ROCPROFILER_BUFFER_CATEGORY_TRACING, kind, record)
    }

    /// Copies `record` into the buffer under header (`category`, `kind`).
    pub fn emplace_in(self: &Arc<Self>, category: u32, kind: u32, record: &[u8]) -> Emplace {
        let rec_words = record.len().div_ceil(8);
        let need = HEADER_BYTES + rec_words * 8;
        let mut st = lock(&self.state);
        if self.destroyed.load(Ordering::Acquire) {
            st.stats.discarded_by_destroy += 1;
            return Emplace::Dropped;
        }
        if need > self.size {
            st.stats.rejected_too_large += 1;
            eprintln!(
                "rocprof-sim: record of {} bytes does not fit buffer {} of {} bytes; rejected",
                need, self.handle, self.size
            );
            return Emplace::TooLarge;
        }
        let mut blocked = false;
        loop {
            let h = st.current;
            let fits = !st.halves[h].delivering && st.halves[h].used_bytes + need <= self.size;
            if fits {
                let half = &mut st.halves[h];
                let start = half.used_words;
                // SAFETY: `words` has `size/8` words and `used_bytes + need <= size` bounds the
                // write; source and destination do not overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        record.as_ptr(),
                        half.words.as_mut_ptr().add(start) as *mut u8,
                        record.len(),
                    );
                }
                half.used_words += rec_words;
                half.used_bytes += need;
                let payload = half.words[start..].as_mut_ptr() as *mut std::ffi::c_void;
                half.headers
                    .push(rocprofiler_record_header_t::new(category, kind, payload));
                st.stats.emplaced += 1;
                if blocked {
                    st.stats.writer_blocked += 1;
                }
                if st.halves[h].used_bytes >= self.watermark {
                    self.submit(&mut st);
                }
                return Emplace::Stored;
            }
            if !self.lossless() {
                st.drops_pending += 1;
                st.stats.dropped += 1;
                if !st.halves[h].delivering && st.halves[h].used_bytes > 0 {
                    self.submit(&mut st);
                }
                return Emplace::Dropped;
            }
            if !st.halves[h].delivering && st.halves[h].used_bytes > 0 {
                self.submit(&mut st);
                continue;
            }
            // Both halves busy: the writer waits for the delivery thread (LOSSLESS back-pressure).
            blocked = true;
            st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Hands the current half to the delivery thread and (LOSSLESS) switches to the other.
    fn submit(self: &Arc<Self>, st: &mut State) {
        let h = st.current;
        st.halves[h].delivering = true;
        st.submitted += 1;
        let seq = st.submitted;
        if st.halves.len() == 2 {
            st.current = 1 - h;
        }
        let thread = self.thread.load(Ordering::Acquire) as usize;
        threads::enqueue(
            thread,
            Task {
                buffer: Arc::clone(self),
                half: h,
                seq,
            },
        );
    }

    /// Synchronous flush: waits for an in-flight delivery of the current half, then delivers
    /// whatever is left (records, or drops not yet reported) and waits for that too. Returns
    /// false if it could not wait (called from a thread that delivers this buffer, which would
    /// wait on itself).
    pub fn flush(self: &Arc<Self>) -> bool {
        let own_thread =
            threads::current_thread_index() == Some(self.thread.load(Ordering::Acquire) as usize);
        let mut st = lock(&self.state);
        st.stats.flushes += 1;
        loop {
            let h = st.current;
            if st.halves[h].delivering {
                if own_thread {
                    return false;
                }
                st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            if st.halves[h].used_bytes > 0 || st.drops_pending > 0 {
                self.submit(&mut st);
            }
            break;
        }
        if own_thread {
            return false;
        }
        let target = st.submitted;
        while st.completed < target {
            st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        true
    }

    fn deliver(&self, h: usize, seq: u64) {
        let (ptrs, n, drops) = {
            let mut st = lock(&self.state);
            let drops = std::mem::take(&mut st.drops_pending);
            let half = &mut st.halves[h];
            let base = half.headers.as_mut_ptr();
            half.ptrs = (0..half.headers.len())
                // SAFETY: i < headers.len(), so the pointer stays inside the allocation.
                .map(|i| unsafe { base.add(i) })
                .collect();
            let n = half.ptrs.len();
            (half.ptrs.as_mut_ptr(), n, drops)
        };
        if self.delay_us > 0 {
            std::thread::sleep(Duration::from_micros(self.delay_us));
        }
        if let Some(cb) = self
            .callback
            .filter(|_| !super::state::tool_calls_skipped())
        {
            if n > 0 || drops > 0 {
                // SAFETY: the half is marked `delivering`, so no writer touches `ptrs`, the
                // headers or the records until we clear the flag below; the callback is the
                // tool's, with the documented signature.
                unsafe {
                    cb(
                        rocprofiler_context_id_t {
                            handle: self.context,
                        },
                        rocprofiler_buffer_id_t {
                            handle: self.handle,
                        },
                        ptrs,
                        n,
                        self.data.ptr(),
                        drops,
                    )
                };
            }
        }
        let mut st = lock(&self.state);
        st.stats.delivered += n as u64;
        if n > 0 || drops > 0 {
            st.stats.callbacks += 1;
        }
        let half = &mut st.halves[h];
        // Poison what the tool saw: records, headers and the pointer array stay allocated
        // (reused by the next fill) but no longer hold the delivered values.
        let used = half.used_words;
        // SAFETY: `used <= words.len()`; writing bytes into our own u64 storage.
        unsafe {
            std::ptr::write_bytes(half.words.as_mut_ptr() as *mut u8, POISON, used * 8);
            std::ptr::write_bytes(
                half.headers.as_mut_ptr() as *mut u8,
                POISON,
                half.headers.len() * HEADER_BYTES,
            );
            std::ptr::write_bytes(
                half.ptrs.as_mut_ptr() as *mut u8,
                POISON,
                half.ptrs.len() * 8,
            );
        }
        self.release(st, h, seq);
    }

    /// Releases a half whose delivery failed, so writers and flushes cannot wait forever.
    fn abandon(&self, h: usize, seq: u64) {
        self.release(lock(&self.state), h, seq);
    }

    /// Empties half `h` for the next fill and marks delivery `seq` complete, waking writers
    /// and flushes.
    fn release(&self, mut st: MutexGuard<'_, State>, h: usize, seq: u64) {
        let half = &mut st.halves[h];
        half.headers.clear();
        half.ptrs.clear();
        half.used_words = 0;
        half.used_bytes = 0;
        half.delivering = false;
        st.completed = st.completed.max(seq);
        drop(st);
        self.cv.notify_all();
    }

    pub fn is_destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }

    /// `rocprofiler_destroy_buffer`: discards unflushed records; refused while a delivery is
    /// in flight. Storage stays allocated (earlier record pointers read poison, not freed
    /// memory). Returns false if busy.
    pub fn destroy(&self) -> bool {
        let mut st = lock(&self.state);
        if st.halves.iter().any(|h| h.delivering) {
            return false;
        }
        let mut discarded = 0;
        for half in st.halves.iter_mut() {
            discarded += half.headers.len() as u64;
            let used = half.used_words;
            // SAFETY: `used <= words.len()`; poisoning our own storage.
            unsafe { std::ptr::write_bytes(half.words.as_mut_ptr() as *mut u8, POISON, used * 8) };
            half.headers.clear();
            half.used_words = 0;
            half.used_bytes = 0;
        }
        st.drops_pending = 0;
        st.stats.discarded_by_destroy += discarded;
        self.destroyed.store(true, Ordering::Release);
        true
    }

    pub fn stats(&self) -> BufferStats {
        let st = lock(&self.state);
        let mut s = st.stats.clone();
        s.lost_unflushed = st.halves.iter().map(|h| h.headers.len() as u64).sum();
        s.destroyed = self.is_destroyed();
        s
    }
}

pub struct Task {
    buffer: Arc<Buffer>,
    half: usize,
    seq: u64,
}

/// Delivery threads: index 0 is the shared default; `rocprofiler_create_callback_thread`
/// adds more.
pub mod threads {
    use super::*;
    use std::cell::Cell;

    struct DeliveryThread {
        queue: Mutex<VecDeque<Task>>,
        cv: Condvar,
        stop: AtomicBool,
        join: Mutex<Option<JoinHandle<()>>>,
        /// The process that started the thread: a forked child inherits the handle but not
        /// the thread, and joining it there would wait on nothing (or panic).
        pid: u32,
    }

    static THREADS: Mutex<Vec<Arc<DeliveryThread>>> = Mutex::new(Vec::new());

    thread_local! {
        static CURRENT: Cell<usize> = const { Cell::new(usize::MAX) };
    }

    pub fn current_thread_index() -> Option<usize> {
        let c = CURRENT.with(|c| c.get());
        (c != usize::MAX).then_some(c)
    }

    /// Creates a delivery thread and returns its index.
    pub fn create() -> usize {
        let mut all = lock(&THREADS);
        let idx = all.len();
        let t = Arc::new(DeliveryThread {
            queue: Mutex::new(VecDeque::new()),
            cv: Condvar::new(),
            stop: AtomicBool::new(false),
            join: Mutex::new(None),
            pid: std::process::id(),
        });
        let t2 = Arc::clone(&t);
        let handle = std::thread::Builder::new()
            .name(format!("rocprof-sim-cb{idx}"))
            .spawn(move || run(idx, t2))
            .ok();
        *lock(&t.join) = handle;
        all.push(t);
        idx
    }

    pub fn count() -> usize {
        lock(&THREADS).len()
    }

    fn ensure_default() {
        if lock(&THREADS).is_empty() {
            create();
        }
    }

    pub fn enqueue(idx: usize, task: Task) {
        ensure_default();
        let t = {
            let all = lock(&THREADS);
            all.get(idx).or_else(|| all.first()).cloned()
        };
        if let Some(t) = t {
            lock(&t.queue).push_back(task);
            t.cv.notify_one();
        }
    }

    fn run(idx: usize, me: Arc<DeliveryThread>) {
        CURRENT.with(|c| c.set(idx));
        loop {
            let task = {
                let mut q = lock(&me.queue);
                loop {
                    if let Some(t) = q.pop_front() {
                        break Some(t);
                    }
                    if me.stop.load(Ordering::Acquire) {
                        break None;
                    }
                    q = me.cv.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            let Some(task) = task else { return };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                task.buffer.deliver(task.half, task.seq)
            }));
            if r.is_err() {
                eprintln!("rocprof-sim: internal panic while delivering a buffer (records lost)");
                task.buffer.abandon(task.half, task.seq);
            }
        }
    }

    /// Lets every delivery thread finish its queued tasks, then joins it (finalization F4).
    pub fn join_all() {
        let all: Vec<_> = lock(&THREADS).clone();
        for t in &all {
            t.stop.store(true, Ordering::Release);
            t.cv.notify_all();
        }
        for t in all.iter().filter(|t| t.pid == std::process::id()) {
            let h = lock(&t.join).take();
            if let Some(h) = h {
                if h.thread().id() != std::thread::current().id() {
                    let _ = h.join();
                }
            }
        }
    }
}
