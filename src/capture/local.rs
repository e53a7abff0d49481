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

use std::cell::{Cell, RefCell};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use smallvec::SmallVec;

use super::thread::ThreadState;
use crate::store::sinks::OwnLine;

/// A thread's entry in a registry: the registry's address and the shared entry.
pub(crate) struct Registered<T> {
    owner: usize,
    value: Arc<T>,
}

/// Calls and nanoseconds of this thread's callbacks (`selftime`).
pub(crate) type CallbackTimes = OwnLine<[AtomicU64; 2]>;

/// Everything a thread keeps for the tool.
#[derive(Default)]
pub(crate) struct Local {
    /// This thread's capture state (`ThreadState`), shared with the drain.
    pub(super) state: RefCell<Option<Registered<Mutex<ThreadState>>>>,
    /// The open-call slot of this thread (`inflight`).
    pub(super) open_slot: RefCell<Option<Registered<OwnLine<AtomicU64>>>>,
    /// Depth of the HIP call in progress (nested calls count once) …
    pub(super) open_depth: Cell<u32>,
    /// … and the epoch it opened in (`inflight::OpenCalls::forget`).
    pub(super) open_epoch: Cell<u32>,
    /// Streams of the HIP calls in progress on this thread, innermost last (`hip_stream`).
    pub(super) hip_streams: RefCell<SmallVec<[u64; 4]>>,
    /// Correlation id of this thread's latest call whose entry could not tell its stream; 0 =
    /// none (`hip_stream`).
    pub(super) unplaced: Cell<u64>,
    /// Correlation id of this thread's latest call that already has its fact (`hip_stream`).
    pub(super) placed: Cell<u64>,
    /// Graph launches under way on this thread: (exec id, next node) (`graph`).
    pub(super) launches: RefCell<SmallVec<[(u64, u64); 2]>>,
    /// Bytes of captured calls not yet charged to the shared memory count (`budget`).
    pub(crate) pending_charge: Cell<u64>,
    /// This thread's callback counts (`selftime`).
    pub(crate) times: RefCell<Option<Registered<CallbackTimes>>>,
}

thread_local! {
    static LOCAL: Local = Local::default();
}

/// Runs `f` on this thread's slot; `None` once thread-local storage is gone (a callback during
/// thread teardown), when nothing is kept.
#[inline]
pub(crate) fn with<R>(f: impl FnOnce(&Local) -> R) -> Option<R> {
    LOCAL.try_with(f).ok()
}

/// Runs `f` on the entry `cell` holds for the registry at `owner`, registering one first with
/// `register` when the cell holds none, or one of another registry.
#[inline]
pub(crate) fn with_registered<T, R>(
    cell: &RefCell<Option<Registered<T>>>,
    owner: usize,
    register: impl FnOnce() -> Arc<T>,
    f: impl FnOnce(&T) -> R,
) -> R {
    {
        let held = cell.borrow();
        if let Some(r) = held.as_ref().filter(|r| r.owner == owner) {
            return f(&r.value);
        }
    }
    let value = register();
    let r = f(&value);
    *cell.borrow_mut() = Some(Registered { owner, value });
    r
}

/// The address that names a registry in [`Registered`].
#[inline]
pub(crate) fn address_of<T>(registry: &T) -> usize {
    registry as *const T as usize
}
