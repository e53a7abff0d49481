//! The recorder: everything the runtime's callbacks write into, and nothing else. It records and
//! returns; deciding when to cut, what to write and where is the coordinator's (`control`).
//!
//! On the hot path a callback pays one relaxed load of the [`Gate`] (forked child? paused?
//! memory ceiling reached?), then touches only its own thread's capture state (`capture`) or
//! the store of the buffer that delivers (one uncontended lock per delivery, not per record).
//! The coordinator takes the stores and drains the capture state at a cut.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

use crate::budget::Budget;
use crate::capture::hip_call::{self, CallArgs, HipCall, Phase};
use crate::capture::hip_stream;
use crate::capture::local::{self, Local};
use crate::capture::Capture;
use crate::hip::{HipOp, Role};
use crate::model::events::ApiRecord;
use crate::selftime::SelfTime;
use crate::store::sinks::lock;
use crate::store::EventStore;

/// Buffers, one per traced kind (each has its own store and accounting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferSlot {
    HipApi = 0,
    MarkerApi = 1,
    KernelDispatch = 2,
    MemoryCopy = 3,
    HipEvent = 4,
    /// The dispatch counting service's records (`ROCPROF_XPLANE_PMC`).
    Counters = 5,
}

pub const BUFFER_SLOTS: usize = 6;

/// What one captured HIP call holds until its cut (its call or sync fact and annotation
/// entry), charged against the memory ceiling: an estimate, the facts vary in size.
const CAPTURE_BYTES_PER_CALL: u64 = 64;

/// What the record of a HIP call the callbacks built holds until its cut: a packed
/// `ApiRecord` with its table index (`store::layouts`).
const API_RECORD_BYTES: u64 = 20;
/// Bytes a roctx call's share of its span takes while tracing (a push/pop range's span,
/// `capture::thread::ThreadSpan`, is 64 B for its two calls).
const ROCTX_CALL_BYTES: u64 = 32;

/// Records a thread builds before it adds them to the shared count of records delivered: one
/// shared add per this many calls, not one per call from every thread. A count window is cut
/// up to this many records per thread late.
const DELIVERED_BATCH: u64 = 64;

/// Whether callbacks record, read in one load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate(u8);

impl Gate {
    /// Capture paused: before a start delay, after a bounded capture, between the profiler
    /// service's captures, while detached. Callbacks keep their state (roctx stacks, streams)
    /// but capture nothing for the profile.
    const PAUSED: u8 = 1;
    /// The memory ceiling is reached: delivered records are counted, not kept.
    const FULL: u8 = 2;
    /// This is the child of a fork of the traced process, which is not profiled: it has only
    /// the forking thread, so locks other threads held at the fork (a delivery in progress,
    /// another thread's capture state) stay held forever, and everything collected so far is
    /// the parent's. Every callback does nothing in the child. (A child that execs a HIP
    /// program starts a new process, which loads the tool afresh.)
    const FORKED: u8 = 4;
    /// The callbacks time themselves (`selftime`): every callback takes its timed path.
    const TIMED: u8 = 8;

    #[inline]
    pub fn forked(self) -> bool {
        self.0 & Gate::FORKED != 0
    }

    /// Whether a callback may take an untimed path before its panic guard: not a fork's
    /// child, self-timing off (one test for both).
    #[inline(always)]
    pub fn untimed_unforked(self) -> bool {
        self.0 & (Gate::FORKED | Gate::TIMED) == 0
    }

    /// Whether the callbacks time themselves.
    #[inline]
    pub fn timed(self) -> bool {
        self.0 & Gate::TIMED != 0
    }

    /// Whether a callback captures for the profile (not paused, ceiling not reached).
    #[inline]
    pub fn capturing(self) -> bool {
        self.0 & (Gate::PAUSED | Gate::FULL) == 0
    }

    #[inline]
    pub fn full(self) -> bool {
        self.0 & Gate::FULL != 0
    }

    #[inline]
    pub fn paused(self) -> bool {
        self.0 & Gate::PAUSED != 0
    }
}

/// Whether the EXIT of a call of row `op` changes the thread's state: a device set, a stream
/// created, a graph launch's count of work, or memory allocated or freed (read at EXIT: the
/// pointer an allocation returns is written by the call) while capture is on.
#[inline(always)]
fn exit_tells(op: &HipOp, gate: Gate) -> bool {
    ExitReads::of(op).tells(gate)
}

/// What the EXIT of a call of one row reads ([`exit_tells`] before the gate), fixed by the
/// row: the callbacks keep it per operation, so an EXIT does not look into the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitReads {
    /// Nothing: the open-call mark only.
    Nothing,
    /// The memory the call allocated or freed, while capture is on.
    Memory,
    /// The device set, the stream created, or a graph launch's count of work.
    State,
}

impl ExitReads {
    pub fn of(op: &HipOp) -> ExitReads {
        if matches!(op.role, Role::SetDevice | Role::StreamCreate) || op.many_activities {
            ExitReads::State
        } else if op.mem.is_some() {
            ExitReads::Memory
        } else {
            ExitReads::Nothing
        }
    }

    /// Whether the EXIT changes the thread's state under `gate`.
    #[inline(always)]
    fn tells(self, gate: Gate) -> bool {
        match self {
            ExitReads::Nothing => false,
            ExitReads::Memory => gate.capturing(),
            ExitReads::State => true,
        }
    }
}

/// Whether the EXIT of a call of row `op` reads the memory it allocated or freed: unless
/// capture is paused or the ceiling reached.
#[inline(always)]
fn reads_memory_at_exit(op: &HipOp, gate: Gate) -> bool {
    op.mem.is_some() && gate.capturing()
}

/// Where the callbacks record.
pub struct Recorder {
    gate: AtomicU8,
    stores: [Mutex<EventStore>; BUFFER_SLOTS],
    capture: Capture,
    budget: Budget,
    selftime: SelfTime,
    /// Records delivered before the tool was ready (should stay 0).
    early_records: AtomicU64,
    /// Callback payloads too small for what we read.
    bad_payloads: AtomicU64,
    /// Records delivered since the last reset, counted only while count windows are on.
    delivered: AtomicU64,
    count_deliveries: AtomicBool,
    /// Reads of the GPUs' device counters (`ROCPROF_XPLANE_PMC_INTERVAL`), from the
    /// coordinator's sampling thread.
    device_samples: Mutex<Vec<crate::model::events::DeviceSample>>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder {
            gate: AtomicU8::new(0),
            stores: Default::default(),
            capture: Capture::default(),
            budget: Budget::default(),
            selftime: SelfTime::default(),
            early_records: AtomicU64::new(0),
            bad_payloads: AtomicU64::new(0),
            delivered: AtomicU64::new(0),
            count_deliveries: AtomicBool::new(false),
            device_samples: Mutex::new(Vec::new()),
        }
    }
}

impl Recorder {
    /// The gate, for one callback.
    #[inline]
    pub fn gate(&self) -> Gate {
        Gate(self.gate.load(Ordering::Relaxed))
    }

    fn set(&self, bit: u8, on: bool) {
        if on {
            self.gate.fetch_or(bit, Ordering::Relaxed);
        } else {
            self.gate.fetch_and(!bit, Ordering::Relaxed);
        }
    }

    /// Marks this process as the child of a fork (async-signal-safe: one atomic or).
    pub fn mark_forked(&self) {
        self.set(Gate::FORKED, true);
    }

    /// Pauses or resumes capture.
    pub fn set_paused(&self, paused: bool) {
        self.set(Gate::PAUSED, paused);
    }

    /// The per-thread capture state and its registries.
    #[inline]
    pub fn capture(&self) -> &Capture {
        &self.capture
    }

    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    pub fn selftime(&self) -> &SelfTime {
        &self.selftime
    }

    /// The callbacks time themselves from now on: self-timing on, and the gate sends every
    /// callback down its timed path.
    pub fn time_callbacks(&self) {
        self.selftime.enable();
        self.set(Gate::TIMED, true);
    }

    /// Counts records delivered before the tool was ready.
    #[inline]
    pub fn early(&self, n: u64) {
        self.early_records.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts a callback payload too small for what is read from it.
    #[inline]
    pub fn bad_payload(&self) {
        self.bad_payloads.fetch_add(1, Ordering::Relaxed);
    }

    /// Charges `bytes` newly held against the memory ceiling.
    #[inline]
    fn charge(&self, bytes: u64) {
        if self.budget.charge(bytes) {
            self.set(Gate::FULL, true);
        }
    }

    /// A buffer delivered `n` records into `slot`: `decode` appends them to the slot's store,
    /// unless the memory ceiling is reached (then they are counted as dropped, with the
    /// runtime's own `drop_count`).
    #[inline]
    pub fn deliver(
        &self,
        slot: usize,
        n: usize,
        drop_count: u64,
        decode: impl FnOnce(&mut EventStore),
    ) {
        let Some(store) = self.stores.get(slot) else {
            return;
        };
        if self.count_deliveries.load(Ordering::Relaxed) {
            self.delivered.fetch_add(n as u64, Ordering::Relaxed);
        }
        let mut store = lock(store);
        if self.gate().full() {
            self.budget.drop_records(n as u64);
            store.counters.runtime_dropped += drop_count;
            return;
        }
        let before = store.held_bytes();
        decode(&mut store);
        self.charge(store.held_bytes().saturating_sub(before));
    }

    /// The start of a HIP call whose record the callbacks build, at its ENTER: the SDK's clock
    /// (`now`, never 0) while capture is on, else 0: the call gets no record, as the runtime
    /// gives none to a context stopped when the call entered. Past the memory ceiling (and
    /// not paused) the call's record is counted as dropped, as a delivered one would be.
    #[inline(always)]
    pub fn api_start(&self, gate: Gate, now: impl FnOnce() -> u64) -> u64 {
        if gate.capturing() {
            return now().max(1);
        }
        if !gate.paused() {
            self.budget.drop_records(1);
        }
        0
    }

    /// Keeps `record`, a HIP call's record its callbacks built (its ENTER gave it a start), in
    /// this thread's store, when that takes no registration, allocation, map probe or wait
    /// (`PackedVec::push_known`: the record repeats the one before's shared facts, or the
    /// store's memo holds them): loads, compares, a hash and stores, nothing that can panic.
    /// Returns false, having done nothing, otherwise: [`Self::keep_api_record`] takes it.
    #[inline(always)]
    pub(crate) fn keep_api_record_unguarded(
        &self,
        l: &Local,
        gate: Gate,
        record: ApiRecord,
    ) -> bool {
        if gate.full() {
            return false;
        }
        let Some(mut t) = self
            .capture
            .threads()
            .try_borrow_current_on(l, record.thread_id)
        else {
            return false;
        };
        if !t.api.push_known(record) {
            return false;
        }
        drop(t);
        self.count_built_on(l);
        true
    }

    /// [`Self::keep_api_record_unguarded`] for any record (a new chunk, another operation, the
    /// thread's first): past the memory ceiling it is counted as dropped. Out of line.
    #[inline(never)]
    pub(crate) fn keep_api_record(&self, l: &Local, gate: Gate, record: ApiRecord) {
        if gate.full() {
            self.budget.drop_records(1);
            return;
        }
        let kept = self
            .capture
            .threads()
            .with_current_on(l, record.thread_id, |t| t.api.push(record));
        if kept {
            self.count_built_on(l);
        } else {
            self.budget.drop_records(1);
        }
    }

    /// A HIP call's record built on this thread: charged against the memory ceiling and
    /// counted for the count windows, each in batches.
    #[inline(always)]
    fn count_built_on(&self, l: &Local) {
        self.count_built_bytes_on(l, API_RECORD_BYTES);
    }

    /// A roctx call whose callback recorded its range or mark, when the runtime buffers no
    /// record of it (`ROCPROF_XPLANE_ROCTX_RECORDS=callbacks`): charged and counted as a record
    /// built on this thread, as the buffered record it stands for was.
    #[inline(always)]
    pub(crate) fn roctx_call_built_on(&self, l: &Local) {
        self.count_built_bytes_on(l, ROCTX_CALL_BYTES);
    }

    /// A record of `bytes` built on this thread: charged against the memory ceiling and
    /// counted for the count windows, each in batches.
    #[inline(always)]
    fn count_built_bytes_on(&self, l: &Local, bytes: u64) {
        if self.budget.charge_call_on(l, bytes) {
            self.set(Gate::FULL, true);
        }
        if self.count_deliveries.load(Ordering::Relaxed) {
            let n = l.pending_delivered.get() + 1;
            if n < DELIVERED_BATCH {
                l.pending_delivered.set(n);
            } else {
                l.pending_delivered.set(0);
                self.delivered.fetch_add(n, Ordering::Relaxed);
            }
        }
    }

    /// A HIP API callback, `gate` read once for it: at entry, the annotation context and the
    /// device, stream and sync arguments of the call (unless capture is paused or the ceiling
    /// reached); at exit, the device and stream state the call changed and the memory it
    /// allocated or freed (`capture::hip_call`). `now` reads the clock for a memory fact.
    #[inline(always)]
    pub fn on_hip_call(
        &self,
        gate: Gate,
        call: &HipCall,
        args: &impl CallArgs,
        now: impl FnOnce() -> u64,
    ) {
        // One access to the thread's slot for everything below.
        local::with(move |l| match call.phase {
            Phase::Enter => self.on_hip_enter(l, gate, call, args),
            Phase::Exit => self.on_hip_exit(l, gate, call, args, now),
            Phase::Other => {}
        });
    }

    #[inline(always)]
    fn on_hip_enter(&self, l: &Local, gate: Gate, call: &HipCall, args: &impl CallArgs) {
        self.capture.open_calls().enter_on(l);
        // Past the memory ceiling the call's record is dropped too: capture nothing for it.
        // (Current device and new streams, read at EXIT, are state and still followed.)
        if !gate.capturing() {
            return;
        }
        if self.budget.charge_call_on(l, CAPTURE_BYTES_PER_CALL) {
            self.set(Gate::FULL, true);
        }
        let c = &self.capture;
        c.threads().with_current_on(l, call.thread_id, move |t| {
            hip_call::at_entry(c.streams(), l, call, args, t);
        });
    }

    /// The exit of a call: its open-call mark, and only for the calls whose exit tells
    /// something (a device set, a stream created, memory allocated or freed) the thread's
    /// state.
    #[inline(always)]
    fn on_hip_exit(
        &self,
        l: &Local,
        gate: Gate,
        call: &HipCall,
        args: &impl CallArgs,
        now: impl FnOnce() -> u64,
    ) {
        self.capture.open_calls().exit_on(l);
        let op = call.op;
        if exit_tells(op, gate) {
            let memory = reads_memory_at_exit(op, gate);
            self.on_hip_exit_state(l, call, args, if memory { now() } else { 0 });
        }
    }

    /// [`Self::on_hip_call`] for the EXIT of a call whose row's exit reads `reads` and tells
    /// nothing ([`exit_tells`]: nearly every call's), when its open-call mark needs no
    /// registration: loads, compares and stores on this thread's slot `l` (`local::slot`, which
    /// the callback reads first); no allocation, no lock, no index, nothing that can panic, so a
    /// callback runs it before its panic guard. Returns false, having done nothing, for any
    /// other EXIT: [`Self::on_hip_call`] takes it, inside the guard.
    #[inline(always)]
    pub(crate) fn on_hip_exit_unguarded(&self, l: &Local, gate: Gate, reads: ExitReads) -> bool {
        if reads.tells(gate) {
            return false;
        }
        self.capture.open_calls().exit_registered_on(l)
    }

    /// [`Self::on_hip_call`] for the ENTER of a call of a row `hip_call::work_stream_at`
    /// takes (nearly every launch), its stream argument read (`stream`), when its facts go
    /// into the thread's store without an allocation, a lookup or a wait
    /// (`hip_call::try_work_entry`) and its open-call mark needs no registration: loads,
    /// compares and stores on this thread's slot and state; nothing that can
    /// panic, so a callback runs it before its panic guard. Returns false, having done
    /// nothing, for any other ENTER (capture paused, a new chunk, another stream, a drain
    /// under way): [`Self::on_hip_call`] takes it, inside the guard.
    /// `l` is this thread's slot (`local::slot`), which the callback reads first. Out of line:
    /// a leaf whose arguments are registers (no thread-local look-up of its own), so the
    /// registers its work takes are saved on this path only, not by the trampoline on every
    /// callback.
    #[inline(never)]
    pub(crate) fn on_work_enter_unguarded(
        &self,
        l: &Local,
        gate: Gate,
        correlation_id: u64,
        thread_id: u64,
        stream: u64,
    ) -> bool {
        if !gate.capturing() {
            return false;
        }
        // Written without closures, so the whole path is this one function.
        let c = &self.capture;
        let Some(slot) = c.open_calls().registered_slot_on(l) else {
            return false;
        };
        let Some(mut t) = c.threads().try_borrow_current_on(l, thread_id) else {
            return false;
        };
        if !hip_call::try_work_entry(c.streams(), &mut t, correlation_id, stream) {
            return false;
        }
        drop(t);
        // The rest of [`Self::on_hip_enter`] and `hip_call::at_entry` for this call.
        c.open_calls().enter_on_slot(l, slot);
        if self.budget.charge_call_on(l, CAPTURE_BYTES_PER_CALL) {
            self.set(Gate::FULL, true);
        }
        hip_stream::note_entry_on(l, correlation_id, true);
        true
    }

    /// [`Self::on_hip_exit`] for a call whose exit changes the thread's state: out of line,
    /// as most calls' exits do not.
    #[inline(never)]
    fn on_hip_exit_state(&self, l: &Local, call: &HipCall, args: &impl CallArgs, now: u64) {
        let c = &self.capture;
        c.threads().with_current_on(l, call.thread_id, |t| {
            hip_call::at_exit(c.streams(), l, call, args, t, now);
        });
    }

    /// One read of the GPUs' device counters, kept whole (a cut takes all of it or none),
    /// unless the memory ceiling is reached (then its samples are counted as dropped).
    pub fn record_device_samples(&self, samples: Vec<crate::model::events::DeviceSample>) {
        if samples.is_empty() || self.gate().forked() {
            return;
        }
        if self.gate().full() {
            self.budget.drop_records(samples.len() as u64);
            return;
        }
        let bytes = std::mem::size_of_val(samples.as_slice()) as u64;
        lock(&self.device_samples).extend(samples);
        self.charge(bytes);
    }

    /// The device counter reads kept since the last take.
    pub fn take_device_samples(&self) -> Vec<crate::model::events::DeviceSample> {
        std::mem::take(&mut *lock(&self.device_samples))
    }

    /// What `slot`'s store holds, taken (the store is left empty).
    pub fn take_store(&self, slot: usize) -> EventStore {
        self.stores
            .get(slot)
            .map(|s| std::mem::take(&mut *lock(s)))
            .unwrap_or_default()
    }

    /// Counts delivered records from now on (count windows) or not.
    pub fn count_deliveries(&self, on: bool) {
        self.count_deliveries.store(on, Ordering::Relaxed);
    }

    /// Records delivered since the last reset.
    pub fn delivered(&self) -> u64 {
        self.delivered.load(Ordering::Relaxed)
    }

    pub fn reset_delivered(&self) {
        self.delivered.store(0, Ordering::Relaxed);
    }

    /// Records delivered before the tool was ready since the last call.
    pub fn take_early_records(&self) -> u64 {
        self.early_records.swap(0, Ordering::Relaxed)
    }

    /// Callback payloads skipped as too small since the last call.
    pub fn take_bad_payloads(&self) -> u64 {
        self.bad_payloads.swap(0, Ordering::Relaxed)
    }

    /// Records dropped at the memory ceiling since the last call; what was held has been
    /// handed over, so the budget starts afresh.
    pub fn take_dropped(&self) -> u64 {
        let dropped = self.budget.take_dropped_and_reset();
        self.set(Gate::FULL, false);
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch's arguments: its stream at every offset.
    struct Launch(u64);

    impl CallArgs for Launch {
        fn arg(&self, _offset: usize) -> Option<u64> {
            Some(self.0)
        }
        fn pointee(&self, _offset: usize, _field: usize) -> Option<u64> {
            None
        }
        fn retval(&self) -> Option<i32> {
            Some(0)
        }
        fn note_bad(&self) {}
    }

    /// The cost guard of a launch's ENTER: once the thread is registered, a launch on the
    /// stream of the one before takes the unguarded path (no panic guard, no table look-up
    /// of its row, no allocation); one on another stream, while capture is paused, or into a
    /// full chunk declines, changing nothing, and the guarded path records it. The facts are
    /// those the guarded path alone writes.
    #[test]
    fn a_launch_on_the_last_stream_enters_unguarded_and_others_decline() {
        std::thread::spawn(|| {
            let r = Recorder::default();
            let op = crate::hip::lookup("hipLaunchKernel").expect("a launch row");
            assert!(hip_call::work_stream_at(&op).is_some());
            let (tid, s1, s2) = (7, 0x5000, 0x6000);
            let guarded = |corr: u64, stream: u64| {
                let call = |phase| HipCall {
                    op: &op,
                    phase,
                    correlation_id: corr,
                    thread_id: tid,
                };
                r.on_hip_call(r.gate(), &call(Phase::Enter), &Launch(stream), || 0);
                r.on_hip_call(r.gate(), &call(Phase::Exit), &Launch(stream), || 0);
            };
            assert!(
                !r.on_work_enter_unguarded(local::slot(), r.gate(), 1, tid, s1),
                "an unregistered thread declines"
            );
            guarded(1, s1);
            // Launches `corrs` on s1, each unguarded where it can be: how many were.
            let launches = |corrs: std::ops::Range<u64>| {
                let mut unguarded = 0;
                for corr in corrs {
                    if r.on_work_enter_unguarded(local::slot(), r.gate(), corr, tid, s1) {
                        unguarded += 1;
                        let exit = ExitReads::of(&op);
                        assert!(r.on_hip_exit_unguarded(local::slot(), r.gate(), exit));
                    } else {
                        guarded(corr, s1);
                    }
                }
                unguarded
            };
            // The first chunk holds 16: the 16th launch needs a new one.
            assert_eq!(
                launches(2..22),
                19,
                "every launch but the one into a new chunk"
            );
            assert!(
                !r.on_work_enter_unguarded(local::slot(), r.gate(), 22, tid, s2),
                "another stream"
            );
            guarded(22, s2);
            r.set_paused(true);
            assert!(
                !r.on_work_enter_unguarded(local::slot(), r.gate(), 23, tid, s2),
                "paused"
            );
            r.set_paused(false);
            let calls: Vec<(u64, u64)> = r
                .capture()
                .drain(0, true)
                .calls
                .iter()
                .map(|c| (c.correlation_id, c.stream))
                .collect();
            let expected: Vec<(u64, u64)> = (1..=21).map(|c| (c, s1)).chain([(22, s2)]).collect();
            assert_eq!(calls, expected);
            // The drain leaves the thread's launch facts the room they had reached (a chunk
            // of 32): after the launch that makes it, the next window's 19 fit, where chunks
            // doubling from 16 again would take one more.
            assert_eq!(
                launches(30..50),
                19,
                "the next window starts at the room reached"
            );
        })
        .join()
        .unwrap();
    }

    /// A HIP call's record is kept without the guard when its shared facts repeat the call
    /// before's, and also, calls of a few operations coming in turn, when its thread's store
    /// has seen its operation; a new operation, or one into a full chunk, declines, changing
    /// nothing, and the guarded path keeps it. The records are those the guarded path alone
    /// keeps, in order.
    #[test]
    fn a_call_record_of_an_operation_seen_is_kept_unguarded() {
        std::thread::spawn(|| {
            let r = Recorder::default();
            let tid = 9;
            let record = |corr: u64, operation: i32| ApiRecord {
                domain: crate::model::events::ApiDomain::Hip,
                operation,
                correlation_id: corr,
                external_id: 0,
                start_ns: corr * 10,
                end_ns: corr * 10 + 5,
                thread_id: tid,
            };
            let ops = [3, 5, 8, 5];
            let mut kept = Vec::new();
            let mut unguarded = 0;
            for corr in 1..=40u64 {
                let op = if corr == 30 {
                    11
                } else {
                    ops[corr as usize % 4]
                };
                let rec = record(corr, op);
                if r.keep_api_record_unguarded(local::slot(), r.gate(), rec) {
                    unguarded += 1;
                } else {
                    r.keep_api_record(local::slot(), r.gate(), rec);
                }
                kept.push(rec);
            }
            // Guarded: the thread's first call (1); the first of each other operation (2, 4,
            // 30); the second calls of the first two operations (3, 6), which came before the
            // store kept its memo (from its second shape); the call into a new chunk (17: the
            // first holds 16).
            assert_eq!(unguarded, 40 - 7);
            let drained: Vec<ApiRecord> = r.capture().drain(0, true).api.iter().collect();
            assert_eq!(drained, kept);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn the_gate_is_one_load_of_four_facts() {
        let r = Recorder::default();
        assert!(r.gate().capturing() && !r.gate().forked());
        r.set_paused(true);
        assert!(!r.gate().capturing() && !r.gate().full());
        r.set_paused(false);
        r.budget().set_limit(100);
        let mut delivered = 0;
        r.deliver(BufferSlot::KernelDispatch as usize, 1, 0, |s| {
            s.kernels.push(crate::model::events::KernelRecord {
                correlation_id: 1,
                external_id: 0,
                start_ns: 1,
                end_ns: 2,
                thread_id: 1,
                agent: 0x10,
                queue: 0x91,
                kernel_id: 0,
                dispatch_id: 1,
                private_segment_size: 0,
                group_segment_size: 0,
                workgroup: [1, 1, 1],
                grid: [1, 1, 1],
                pipe_id: None,
            });
            delivered += 1;
        });
        assert_eq!(delivered, 1);
        assert!(r.gate().full(), "{} bytes held", r.budget().held());
        // Full: a delivery is counted as dropped, not decoded.
        r.deliver(BufferSlot::KernelDispatch as usize, 3, 2, |_| {
            delivered += 1
        });
        assert_eq!(delivered, 1);
        assert_eq!(r.take_dropped(), 3);
        assert!(r.gate().capturing());
        assert_eq!(
            r.take_store(BufferSlot::KernelDispatch as usize)
                .counters
                .runtime_dropped,
            2
        );
        assert!(r.gate().untimed_unforked() && !r.gate().timed());
        r.time_callbacks();
        assert!(r.gate().timed() && !r.gate().untimed_unforked());
        assert!(r.gate().capturing(), "timing changes nothing captured");
        r.mark_forked();
        assert!(r.gate().forked());
    }
}
