//! The one thread-local slot of every thread the runtime calls us on: what the callbacks keep
//! per thread without a lock (the HIP-stream brackets, the graph launches under way, the depth
//! of the HIP call in progress, the memory charge not yet added to the shared count) and the
//! handles of the per-thread entries registered with the tool's registries (capture state,
//! open-call slot, self-time counters).
//!
//! A `thread_local!` is the only way a callback on an application thread finds state of its own
//! without a lock or a lookup; one slot holds all of it, so a thread pays one TLS access per
//! callback. A registered handle remembers which registry it belongs to (by address): a thread
//! used with a second registry (tests make several) registers with that one too.

use std::cell::{Cell, OnceCell, RefCell};
use std::mem::ManuallyDrop;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use smallvec::SmallVec;

use super::owned::Owner;
use super::thread::ThreadState;
use crate::store::sinks::OwnLine;

/// A thread's entry in a registry: the registry's address and the thread's handle of its
/// entry there (an `Arc` of a shared slot, or the owner's handle of its capture state).
pub(crate) struct Registered<T> {
    owner: usize,
    value: T,
}

/// A thread's entries in registries of one kind: the first registry it was used with (the
/// tool has one of each), then a chain for any other (tests make several).
pub(crate) struct Entries<T> {
    first: OnceCell<Registered<T>>,
    others: OnceCell<Box<Entries<T>>>,
}

impl<T> Entries<T> {
    const fn new() -> Self {
        Entries {
            first: OnceCell::new(),
            others: OnceCell::new(),
        }
    }
}

/// Calls and nanoseconds of this thread's callbacks (`selftime`).
pub(crate) type CallbackTimes = OwnLine<[AtomicU64; 2]>;

/// Everything a thread keeps for the tool.
pub(crate) struct Local {
    /// This thread's capture state (`ThreadState`), lent to the drain (`owned`).
    pub(super) state: Entries<Owner<ThreadState>>,
    /// The open-call slot of this thread (`inflight`).
    pub(super) open_slot: Entries<Arc<OwnLine<AtomicU64>>>,
    /// Depth of the HIP call in progress (nested calls count once) …
    pub(super) open_depth: Cell<u32>,
    /// … and the epoch it opened in (`inflight::OpenCalls::forget_open_calls`).
    pub(super) open_epoch: Cell<u32>,
    /// How many `HIP_STREAM` SET brackets are open on this thread (`hip_stream`) …
    pub(super) stream_depth: Cell<u32>,
    /// … the stream of the innermost, when one is open …
    pub(super) stream_top: Cell<u64>,
    /// … and those of the brackets around it, innermost last (nested HIP calls only).
    pub(super) streams_below: RefCell<SmallVec<[u64; 4]>>,
    /// Correlation id of this thread's latest call whose entry could not tell its stream; 0 =
    /// none (`hip_stream`).
    pub(super) unplaced: Cell<u64>,
    /// Correlation id of this thread's latest call that already has its fact (`hip_stream`).
    pub(super) placed: Cell<u64>,
    /// Graph launches under way on this thread: (exec id, next node) (`graph`) …
    pub(super) launches: RefCell<SmallVec<[(u64, u64); 2]>>,
    /// … and whether there is any (`launches` not empty), in a cell of its own: the check
    /// every external-id request makes is one load.
    pub(super) launching: Cell<bool>,
    /// The call the latest external-id requests on this thread were for, and how many in a
    /// row (`graph::note_request_on`).
    pub(super) requests: Cell<(u64, u32)>,
    /// Bytes of captured calls not yet charged to the shared memory count (`budget`).
    pub(crate) pending_charge: Cell<u64>,
    /// Records this thread's callbacks built not yet added to the shared count of records
    /// delivered (`recorder`, count windows).
    pub(crate) pending_delivered: Cell<u64>,
    /// This thread's callback counts (`selftime`).
    pub(crate) times: Entries<Arc<CallbackTimes>>,
    /// When this thread's `roctxRangeStartA` in progress entered, 0 = none: its range starts
    /// there, though its callback acts at EXIT (`sdk::payload::marker_now`).
    pub(crate) range_start_ns: Cell<u64>,
}

impl Local {
    const fn new() -> Local {
        Local {
            state: Entries::new(),
            open_slot: Entries::new(),
            open_depth: Cell::new(0),
            open_epoch: Cell::new(0),
            stream_depth: Cell::new(0),
            stream_top: Cell::new(0),
            streams_below: RefCell::new(SmallVec::new_const()),
            unplaced: Cell::new(0),
            placed: Cell::new(0),
            launches: RefCell::new(SmallVec::new_const()),
            launching: Cell::new(false),
            requests: Cell::new((0, 0)),
            pending_charge: Cell::new(0),
            pending_delivered: Cell::new(0),
            times: Entries::new(),
            range_start_ns: Cell::new(0),
        }
    }
}

thread_local! {
    // Initialised without code (`const`) and never destroyed (`ManuallyDrop`): an access is a
    // TLS address, with no lazy-init branch, no destructor registration and no state check,
    // and it never fails, also for a callback made while the thread exits. What the slot
    // holds outlives the thread in the registries, which hold their own handles: not dropping
    // the thread's handles leaves a reference count up, and frees no memory the tool reads.
    static LOCAL: ManuallyDrop<Local> = const { ManuallyDrop::new(Local::new()) };
}

/// This thread's slot.
///
/// A plain reference, so a callback's path reads the slot without a closure: the path stays
/// one function the compiler inlines where it is written, not a call into an outlined
/// `LocalKey::with` with its captures passed through memory. `'static` is sound here: the
/// slot is initialised without code and never destroyed (`LOCAL`), so its storage lasts as
/// long as the thread, and a `&Local` cannot leave the thread (`Local` is not `Sync`).
#[inline(always)]
pub(crate) fn slot() -> &'static Local {
    let l: *const Local = LOCAL.with(|l| &**l as *const Local);
    // SAFETY: the storage of `LOCAL` is valid for as long as this thread runs and is never
    // dropped (`ManuallyDrop`, no destructor registered); the reference cannot reach another
    // thread (`&Local` is not `Send`), and the slot is only ever reached through shared
    // references (its mutable parts are cells).
    unsafe { &*l }
}

/// [`slot`], out of line: for a rare path after a call, so that its caller keeps no slot
/// through the call (the compiler would reuse the address [`slot`] gave before it).
#[cold]
#[inline(never)]
pub(crate) fn slot_again() -> &'static Local {
    slot()
}

/// Runs `f` on this thread's slot.
#[inline(always)]
pub(crate) fn with<R>(f: impl FnOnce(&Local) -> R) -> R {
    f(slot())
}

/// Runs `f` on the entry `entries` holds for the registry at `owner`, registering one first
/// with `register` when it holds none for that registry.
#[inline(always)]
pub(crate) fn with_registered<T, R>(
    entries: &Entries<T>,
    owner: usize,
    register: impl FnOnce() -> T,
    f: impl FnOnce(&T) -> R,
) -> R {
    f(entry(entries, owner, register))
}

/// The entry `entries` holds for the registry at `owner`: on a callback's path, one load and
/// one compare.
#[inline(always)]
pub(crate) fn entry<T>(entries: &Entries<T>, owner: usize, register: impl FnOnce() -> T) -> &T {
    match registered(entries, owner) {
        Some(v) => v,
        None => entry_registering(entries, owner, register),
    }
}

/// The entry `entries` holds for the registry at `owner` when it is the thread's first one, without
/// registering: one load and one compare, nothing that can panic. `None` when it would take a
/// registration or the chain walk ([`entry`] does those).
#[inline(always)]
pub(crate) fn registered<T>(entries: &Entries<T>, owner: usize) -> Option<&T> {
    match entries.first.get() {
        Some(r) if r.owner == owner => Some(&r.value),
        _ => None,
    }
}

/// [`entry`] for a thread's first callback with a registry, or a registry other than its
/// first (tests, in practice): walks the chain, registering at its end.
#[cold]
#[inline(never)]
fn entry_registering<T>(entries: &Entries<T>, owner: usize, register: impl FnOnce() -> T) -> &T {
    let mut e = entries;
    loop {
        match e.first.get() {
            Some(r) if r.owner == owner => return &r.value,
            Some(_) => e = e.others.get_or_init(|| Box::new(Entries::new())),
            None => {
                let r = e.first.get_or_init(|| Registered {
                    owner,
                    value: register(),
                });
                return &r.value;
            }
        }
    }
}

/// The address that names a registry in [`Registered`].
#[inline]
pub(crate) fn address_of<T>(registry: &T) -> usize {
    registry as *const T as usize
}
