//! What one HIP call means for the profile, driven by its row in the table of HIP operations
//! (`hip::ops`): at entry, the annotation context of the work it starts, the stream and device
//! that work goes to, the pointers of a copy, the event and stream of a synchronization; at a
//! successful exit, the device `hipSetDevice` made current, the stream `hipStream*Create*`
//! made, the memory an allocation returned or a free released.
//!
//! The call's arguments come through [`CallArgs`], a view the SDK layer builds over the
//! runtime's payload (`sdk::payload`): nothing here reads raw memory.

use super::devices::Streams;
use super::hip_stream;
use super::local::Local;
use super::thread::ThreadState;
use crate::hip::{HipOp, Role, StreamArg};
use crate::model::events::{CallFact, CopyPtrs, MemFact};

/// The arguments and return value of one HIP call, as its callback payload holds them.
pub trait CallArgs {
    /// The u64 at `offset` bytes into the call's arguments; `None` (counted as a bad payload)
    /// when the payload is too short to hold it.
    fn arg(&self, offset: usize) -> Option<u64>;
    /// The u64 at `field` bytes into the struct that the pointer argument at `offset` points
    /// to (a launch config, an out-parameter the call wrote); `None` when that pointer is null
    /// or unreadable.
    fn pointee(&self, offset: usize, field: usize) -> Option<u64>;
    /// The `hipError_t` the call returned (at EXIT); `None` when the payload does not hold it.
    fn retval(&self) -> Option<i32>;
    /// Counts a payload that lacked something the table says is there.
    fn note_bad(&self);
}

/// Which side of a call a callback is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Enter,
    Exit,
    /// A phase HIP API tracing does not use.
    Other,
}

/// One HIP API callback: the call's table row and identity.
#[derive(Debug, Clone, Copy)]
pub struct HipCall<'a> {
    pub op: &'a HipOp,
    pub phase: Phase,
    pub correlation_id: u64,
    pub thread_id: u64,
}

/// The `hipStream_t` a call works on, read as its table row says (0 = null stream).
#[inline(always)]
fn stream_arg(args: &impl CallArgs, at: StreamArg) -> Option<u64> {
    match at {
        StreamArg::None | StreamArg::Null | StreamArg::Current => Some(0),
        StreamArg::At(o) => args.arg(usize::from(o)),
        StreamArg::InConfig(p, field) => {
            if args.arg(usize::from(p))? == 0 {
                args.note_bad();
                return None;
            }
            args.pointee(usize::from(p), usize::from(field))
        }
        StreamArg::Out(_) => None,
    }
}

/// What one HIP callback changes in the calling thread's state `t`. At entry (`enter`; false
/// for an entry that captures nothing) the facts of the work the call starts; at exit, the
/// device and stream bindings and memory facts, only when the call succeeded (HIP leaves the
/// current device alone when `hipSetDevice` fails, and a failed `hipStreamCreate` writes no
/// stream). `now_ns` times a memory fact. (The recorder calls each side directly.)
#[cfg(test)]
pub(crate) fn apply(
    streams: &Streams,
    local: &Local,
    enter: bool,
    call: &HipCall,
    args: &impl CallArgs,
    t: &mut ThreadState,
    now_ns: u64,
) {
    if enter {
        at_entry(streams, local, call, args, t);
    } else {
        at_exit(streams, local, call, args, t, now_ns);
    }
}

/// The device and stream bindings, memory facts and a graph launch's count of work
/// (`graph::launched_on`, from this thread's slot `local`) of a call, at its exit ([`apply`]).
pub(crate) fn at_exit(
    streams: &Streams,
    local: &Local,
    call: &HipCall,
    args: &impl CallArgs,
    t: &mut ThreadState,
    now_ns: u64,
) {
    let (op, correlation_id) = (call.op, call.correlation_id);
    if args.retval() != Some(0) {
        return;
    }
    match (op.role, op.stream) {
        (Role::SetDevice, _) => {
            if let Some(v) = args.arg(0) {
                // `int deviceId`: the low 4 bytes of the slot.
                t.current_device = (v & 0xffff_ffff) as u32 as i32;
            }
        }
        (Role::StreamCreate, StreamArg::Out(o)) => {
            let Some(stream) = args.pointee(usize::from(o), 0) else {
                return;
            };
            streams.on_created(t, stream, correlation_id);
        }
        _ => {}
    }
    if op.many_activities {
        t.graph_launches
            .extend(super::graph::launched_on(local, correlation_id));
    }
    at_memory_exit(streams, op, correlation_id, args, t, now_ns);
}

/// The facts of the work a call starts, at its entry.
#[inline(always)]
pub(crate) fn at_entry(
    streams: &Streams,
    local: &Local,
    call: &HipCall,
    args: &impl CallArgs,
    t: &mut ThreadState,
) {
    let (op, correlation_id) = (call.op, call.correlation_id);
    t.capture_at_api_enter(correlation_id);
    let stream = stream_arg(args, op.stream);
    match op.role {
        Role::Launch | Role::Copy | Role::Memset => {
            if let Some((d, s)) = op.copy_ptrs {
                if let (Some(dst), Some(src)) = (args.arg(usize::from(d)), args.arg(usize::from(s)))
                {
                    t.copy_ptrs.push(CopyPtrs {
                        correlation_id,
                        dst,
                        src,
                    });
                }
            }
            // The table places the work unless it only knows "the current device"; then the
            // stream the runtime reported (SDK 1.x HIP_STREAM), or a later correction.
            let by_args = !matches!(op.stream, StreamArg::Current) && stream.is_some();
            let reported = (!by_args).then(|| hip_stream::current_on(local)).flatten();
            // A function the table does not list: only the runtime's brackets can place it.
            if reported.is_none() && !op.is_listed() {
                streams.brackets().unplaced_call();
            }
            if let Some(stream) = reported.or(stream) {
                streams.on_work_enter(t, correlation_id, stream);
            }
            hip_stream::note_entry_on(local, correlation_id, by_args || reported.is_some());
        }
        Role::Sync(kind) => {
            let event = op.event.map_or(Some(0), |o| args.arg(usize::from(o)));
            if let (Some(event), Some(stream)) = (event, stream) {
                streams.on_sync_enter(t, correlation_id, kind, event, stream);
            }
        }
        Role::StreamOrderedAlloc
        | Role::Memory
        | Role::StreamDestroy
        | Role::SetDevice
        | Role::StreamCreate => {}
    }
}

/// Where the stream argument is, for a call whose entry only places its work by that argument
/// (a launch, or a copy or memset with no pointers to read, whose row names the `hipStream_t`
/// at an offset of the arguments): what [`try_work_entry`] takes. `None` for every other row.
pub fn work_stream_at(op: &HipOp) -> Option<u8> {
    match (op.role, op.stream, op.copy_ptrs) {
        (Role::Launch | Role::Copy | Role::Memset, StreamArg::At(o), None) => Some(o),
        _ => None,
    }
}

/// [`at_entry`] for a call of a row [`work_stream_at`] takes, its stream argument read
/// (`stream`), when that takes no allocation and no lookup: the annotation context into a
/// chunk with room, the stream the thread looked up last (no creation since), the launch fact
/// repeating the previous one's stream. Loads, compares and stores, nothing that can panic.
/// Returns false, having changed nothing, otherwise: [`at_entry`] takes it.
#[inline(always)]
pub(crate) fn try_work_entry(
    streams: &Streams,
    t: &mut ThreadState,
    correlation_id: u64,
    stream: u64,
) -> bool {
    let Some((device, stream_seq)) = streams.stream_of_cached(t, stream) else {
        return false;
    };
    // The scope first, its room checked and used at once; taken back if the call's fact does
    // not go in.
    let scope = t.top_scope();
    if let Some(scope) = scope {
        if !t.scopes.has_room() {
            return false;
        }
        t.scopes.push((correlation_id, scope));
    }
    let fact = CallFact {
        correlation_id,
        stream,
        device,
        stream_seq,
    };
    if !t.calls.push_repeating(fact) {
        if scope.is_some() {
            t.scopes.pop();
        }
        return false;
    }
    true
}

/// An allocation or free at its successful exit: what it allocated or released, where.
fn at_memory_exit(
    streams: &Streams,
    op: &HipOp,
    correlation_id: u64,
    args: &impl CallArgs,
    t: &mut ThreadState,
    now_ns: u64,
) {
    let Some(m) = op.mem else {
        return;
    };
    let Some(ptr) = args.arg(usize::from(m.ptr)) else {
        return;
    };
    let address = if m.out {
        // The call wrote the new pointer through its `void**` argument.
        match args.pointee(usize::from(m.ptr), 0) {
            Some(a) if ptr != 0 => a,
            _ => return,
        }
    } else {
        ptr
    };
    let bytes = m.size.and_then(|o| args.arg(usize::from(o))).unwrap_or(0);
    let device = match (op.role, op.stream) {
        (Role::StreamOrderedAlloc, at) => {
            stream_arg(args, at).map_or(t.current_device, |st| streams.device_of(t, st))
        }
        _ => t.current_device,
    };
    t.memory.push(MemFact {
        correlation_id,
        thread_id: t.thread_id,
        time_ns: now_ns,
        action: m.action,
        kind: m.kind,
        address,
        bytes,
        device,
    });
}
