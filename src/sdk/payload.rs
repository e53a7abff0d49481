//! Safe views of what a callback-tracing callback receives: the version-independent part of
//! its record, a HIP call's arguments ([`HipApiArgs`], the `capture::CallArgs` that
//! `capture::hip_call` reads), a roctx call, a kernel symbol, a HIP_STREAM or HIP_GRAPH
//! bracket. Each checks the payload's own `size` before any field it reads, and copies what
//! is kept: the payload lives only for the callback.

use std::ffi::{c_char, c_void, CStr};
use std::marker::PhantomData;
use std::mem::{offset_of, size_of};
use std::ptr::NonNull;

use rocprofiler_sdk_sys as sys;

use crate::capture::hip_call::{CallArgs, Phase};
use crate::capture::local::Local;
use crate::capture::markers::{MarkerCall, MarkerOp};
use crate::model::events::KernelSymbol;
use crate::recorder::Recorder;

/// The version-independent part of a callback-tracing record.
#[derive(Debug, Clone, Copy)]
pub struct CallbackRecord {
    pub thread_id: u64,
    pub correlation_id: u64,
    pub kind: u32,
    pub operation: i32,
    pub phase: u32,
    pub payload: *mut c_void,
    /// The external correlation id the runtime gave the call.
    pub external_id: u64,
    /// The runtime's user-data slot of this callback's call for our context (null until the
    /// edge sets it: it comes beside the record, not in it).
    pub user_data: *mut sys::rocprofiler_user_data_t,
}

/// A callback-tracing record of either SDK family, read into its version-independent part.
macro_rules! callback_record_from {
    ($($record:ty),*) => {$(
        impl From<&$record> for CallbackRecord {
            #[inline(always)]
            fn from(record: &$record) -> CallbackRecord {
                CallbackRecord {
                    thread_id: record.thread_id,
                    correlation_id: record.correlation_id.internal,
                    kind: record.kind,
                    operation: record.operation,
                    phase: record.phase,
                    payload: record.payload,
                    // SAFETY: reading a u64 from a plain 8-byte union.
                    external_id: unsafe { record.correlation_id.external.value },
                    user_data: std::ptr::null_mut(),
                }
            }
        }
    )*};
}
callback_record_from!(
    sys::rocprofiler_callback_tracing_record_v0_t,
    sys::rocprofiler_callback_tracing_record_v1_t
);

impl From<&CallbackRecord> for CallbackRecord {
    #[inline(always)]
    fn from(record: &CallbackRecord) -> CallbackRecord {
        *record
    }
}

impl CallbackRecord {
    /// The phase of a HIP API callback.
    pub fn hip_phase(&self) -> Phase {
        match self.phase {
            sys::ROCPROFILER_CALLBACK_PHASE_ENTER => Phase::Enter,
            sys::ROCPROFILER_CALLBACK_PHASE_EXIT => Phase::Exit,
            _ => Phase::Other,
        }
    }
}

/// The arguments and return value of a HIP call, read from its callback payload.
pub struct HipApiArgs<'a> {
    payload: *const sys::rocprofiler_callback_tracing_hip_api_data_t,
    recorder: &'a Recorder,
}

impl<'a> HipApiArgs<'a> {
    /// A view of `payload`, short payloads counted on `recorder`.
    ///
    /// # Safety
    /// `payload` must be null or the runtime's `rocprofiler_callback_tracing_hip_api_data_t`
    /// of the HIP call in progress, of at least the size its own `size` field states, valid
    /// for the view's life; its pointer arguments, where the table of HIP operations reads
    /// through them, must be null or point to what the HIP API declares, valid as long.
    pub unsafe fn new(payload: *mut c_void, recorder: &'a Recorder) -> HipApiArgs<'a> {
        HipApiArgs {
            payload: payload.cast(),
            recorder,
        }
    }

    /// The payload's own `size` (0 for a null payload).
    fn size(&self) -> usize {
        if self.payload.is_null() {
            return 0;
        }
        // SAFETY: a non-null payload starts with its u64 size (`new`'s contract).
        unsafe { std::ptr::addr_of!((*self.payload).size).read_unaligned() as usize }
    }
}

/// The u64 at `offset` bytes into a HIP call's arguments, as [`HipApiArgs`] reads it: `None`
/// for a null payload or one too short to hold it (not counted here: the caller's fallback,
/// [`HipApiArgs`], counts it). Checked reads, nothing that can panic.
///
/// # Safety
/// As [`HipApiArgs::new`]'s `payload`, for the duration of the call.
#[inline(always)]
pub unsafe fn hip_api_arg(payload: *const c_void, offset: usize) -> Option<u64> {
    type Data = sys::rocprofiler_callback_tracing_hip_api_data_t;
    if payload.is_null() {
        return None;
    }
    let at = offset_of!(Data, args) + offset;
    // SAFETY: a non-null payload starts with its u64 size (this function's contract).
    let size = unsafe { std::ptr::addr_of!((*payload.cast::<Data>()).size).read_unaligned() };
    if (size as usize) < at + size_of::<u64>()
        || offset + size_of::<u64>() > size_of::<sys::rocprofiler_hip_api_args_t>()
    {
        return None;
    }
    // SAFETY: the payload's `size` covers the 8 bytes at `at`.
    Some(unsafe { (payload.cast::<u8>().add(at) as *const u64).read_unaligned() })
}

impl CallArgs for HipApiArgs<'_> {
    fn arg(&self, offset: usize) -> Option<u64> {
        if self.payload.is_null() {
            return None;
        }
        // SAFETY: the payload of this view (`new`'s contract).
        let v = unsafe { hip_api_arg(self.payload.cast(), offset) };
        if v.is_none() {
            self.note_bad();
        }
        v
    }

    fn pointee(&self, offset: usize, field: usize) -> Option<u64> {
        let p = self.arg(offset)?;
        if p == 0 {
            return None;
        }
        // SAFETY: a non-null pointer argument of the call in progress, which the table reads
        // through only where the HIP API declares a struct (or out-variable) holding a u64 at
        // `field`, valid for the call (`new`'s contract).
        Some(unsafe { ((p as *const u8).add(field) as *const u64).read_unaligned() })
    }

    fn retval(&self) -> Option<i32> {
        type Data = sys::rocprofiler_callback_tracing_hip_api_data_t;
        if self.payload.is_null() {
            return None;
        }
        if self.size() < offset_of!(Data, retval) + size_of::<i32>() {
            self.note_bad();
            return None;
        }
        // SAFETY: `size` covers the 4-byte `hipError_t` at the start of the retval union.
        Some(unsafe {
            std::ptr::addr_of!((*self.payload).retval.hipError_t_retval).read_unaligned()
        })
    }

    fn note_bad(&self) {
        self.recorder.bad_payload();
    }
}

/// A roctx callback (`MARKER_CORE_API`) as `capture::markers` takes it, its label borrowed from
/// the caller's string; `None` for a phase its operation does not act in
/// ([`MarkerOp::acts_at_enter`]: then its payload is not read and no time taken; a
/// `roctxRangeStartA`'s ENTER only has its time kept on this thread's slot `l`, where its EXIT
/// takes it: [`marker_now`]) or a payload too short (counted). `now` reads the clock. Reads, a
/// string's length and `now`: nothing that can panic.
///
/// # Safety
/// `r.payload` must be null or the runtime's marker payload for `r`, valid for the callback,
/// whose message argument (mark, push, start) is null or a NUL-terminated string alive for
/// the callback; the call returned is used only during the callback.
#[inline(always)]
pub(crate) unsafe fn marker_call<'a>(
    r: &CallbackRecord,
    recorder: &Recorder,
    l: &Local,
    now: impl FnOnce() -> u64,
) -> Option<MarkerCall<'a>> {
    type Data = sys::rocprofiler_callback_tracing_marker_api_data_t;
    if !acts_on(r.operation, r.phase) {
        if marker_starts_range(r.operation, r.phase) {
            note_range_start(l, now());
        }
        return None;
    }
    if r.payload.is_null() {
        recorder.bad_payload();
        return None;
    }
    let p = r.payload as *const Data;
    // SAFETY: a marker payload starts with its u64 size.
    let size = unsafe { std::ptr::addr_of!((*p).size).read_unaligned() } as usize;
    if size < size_of::<Data>() {
        recorder.bad_payload();
        return None;
    }
    // SAFETY: `size` covers the args and retval unions; both are plain 8-byte reads.
    let (arg0, retval) = unsafe {
        (
            std::ptr::addr_of!((*p).args.align_).read_unaligned(),
            std::ptr::addr_of!((*p).retval.roctx_range_id_t_retval).read_unaligned(),
        )
    };
    let op = MarkerOp::from_id(r.operation);
    let enter = r.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER;
    let label_ptr = match op {
        MarkerOp::Mark | MarkerOp::RangePush | MarkerOp::RangeStart => arg0 as *const c_char,
        _ => std::ptr::null(),
    };
    // SAFETY: the message argument of roctxMarkA/RangePushA/RangeStartA is the caller's
    // NUL-terminated string (or null), alive for the duration of the call (it is copied).
    let label = unsafe { Message::at(label_ptr) };
    Some(MarkerCall {
        op,
        enter,
        thread_id: r.thread_id,
        correlation_id: r.correlation_id,
        timestamp_ns: marker_now(l, r.operation, now),
        label,
        stop_id: arg0,
        start_retval: retval,
    })
}

/// Whether a roctx callback does anything: its operation acts at its phase
/// ([`MarkerOp::acts_at_enter`]), or it is a `roctxRangeStartA`'s ENTER, whose time its range
/// starts at ([`marker_starts_range`]). The other callbacks carry nothing kept, so their
/// payload is not read (nor checked).
#[inline(always)]
pub fn marker_acts(r: &CallbackRecord) -> bool {
    marker_acts_at(r.operation, r.phase)
}

/// Whether a roctx callback is a `roctxRangeStartA`'s ENTER: the start of its range, kept on
/// the thread's slot ([`note_range_start`]) for the callback at its EXIT, which acts.
#[inline(always)]
pub fn marker_starts_range(operation: i32, phase: u32) -> bool {
    MarkerOp::from_id(operation) == MarkerOp::RangeStart
        && phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER
}

/// Keeps `ns`, a `roctxRangeStartA`'s ENTER, on this thread's slot `l` for its EXIT.
#[cold]
fn note_range_start(l: &Local, ns: u64) {
    l.range_start_ns.set(ns);
}

/// The time of the roctx callback of `operation` that acts ([`marker_acts`]) on the thread of
/// slot `l`: a `roctxRangeStartA`'s range starts at the call's ENTER ([`note_range_start`]),
/// any other callback (and a start whose ENTER was not seen) at `now`, read then.
#[inline(always)]
fn marker_now(l: &Local, operation: i32, now: impl FnOnce() -> u64) -> u64 {
    if MarkerOp::from_id(operation) == MarkerOp::RangeStart {
        let entered = l.range_start_ns.replace(0);
        if entered != 0 {
            return entered;
        }
    }
    now()
}

/// [`marker_acts`] from the record's operation and phase.
#[inline(always)]
pub fn marker_acts_at(operation: i32, phase: u32) -> bool {
    acts_on(operation, phase) || marker_starts_range(operation, phase)
}

/// Whether `operation` acts at `phase` ([`MarkerOp::acts_at_enter`]).
#[inline(always)]
fn acts_on(operation: i32, phase: u32) -> bool {
    let enter = phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER;
    MarkerOp::from_id(operation).acts_at_enter() == Some(enter)
}

/// A roctx message as the application passed it: a NUL-terminated string, alive for the
/// callback, read in place. A push compares it with the labels its thread holds byte by byte
/// up to the first difference ([`Self::is`]), without measuring it first; its bytes (arbitrary,
/// made text by the capture, [`crate::capture::markers::label_text`]) are measured
/// ([`Self::bytes`], a `strlen`) only where they are needed: a label new to the thread.
#[derive(Clone, Copy)]
pub struct Message<'a> {
    /// The first byte of a NUL-terminated string alive and unchanged for `'a`.
    ptr: NonNull<u8>,
    text: PhantomData<&'a CStr>,
}

impl<'a> Message<'a> {
    /// The message of `text`.
    pub fn new(text: &'a CStr) -> Message<'a> {
        Message {
            ptr: NonNull::from(text.to_bytes_with_nul()).cast(),
            text: PhantomData,
        }
    }

    /// The message at `ptr`, if not null.
    ///
    /// # Safety
    /// `ptr` is null or points to a NUL-terminated string alive and unchanged for `'a`.
    unsafe fn at(ptr: *const c_char) -> Option<Message<'a>> {
        NonNull::new(ptr.cast_mut().cast()).map(|ptr| Message {
            ptr,
            text: PhantomData,
        })
    }

    /// The message's bytes, without its NUL.
    pub fn bytes(self) -> &'a [u8] {
        // SAFETY: a NUL-terminated string alive for `'a` (the type's invariant).
        unsafe { CStr::from_ptr(self.ptr.as_ptr().cast()) }.to_bytes()
    }

    /// Whether the message's bytes (without its NUL) are `bytes`: read up to the first
    /// difference, never past the message's NUL.
    #[inline(always)]
    pub fn is(self, bytes: &[u8]) -> bool {
        let p = self.ptr.as_ptr().cast_const();
        for (i, &b) in bytes.iter().enumerate() {
            // SAFETY: the message's bytes before `i` equal `bytes[..i]` and none is its NUL
            // (checked below as each was read), so its NUL is at `i` or after: `i` is within
            // the string (the type's invariant).
            let c = unsafe { p.add(i).read() };
            if c != b || c == 0 {
                return false;
            }
        }
        // SAFETY: as above, at `i = bytes.len()`.
        unsafe { p.add(bytes.len()).read() == 0 }
    }
}

impl std::fmt::Debug for Message<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.bytes().escape_ascii().to_string())
    }
}

/// Bytes of the kernel-symbol payload read (through `accum_vgpr_count`): present in every
/// version (the struct grew from 72 to 88 bytes after that field).
pub const SYMBOL_BYTES_READ: usize = offset_of!(
    sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
    accum_vgpr_count
) + size_of::<u32>();

/// A kernel symbol's registration (`CODE_OBJECT` DEVICE_KERNEL_SYMBOL_REGISTER at LOAD): its
/// id, raw name and resources. `None` for other code-object callbacks (loads carry nothing we
/// show; unloads keep names, since records still arrive) and short payloads (counted).
///
/// # Safety
/// `r.payload` must be null or the runtime's code-object payload for `r`, valid for the
/// callback, its kernel name null or NUL-terminated.
pub unsafe fn kernel_symbol(
    r: &CallbackRecord,
    recorder: &Recorder,
) -> Option<(u64, String, KernelSymbol)> {
    type Data = sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;
    if r.operation != sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER as i32
        || r.phase != sys::ROCPROFILER_CALLBACK_PHASE_LOAD
    {
        return None;
    }
    if r.payload.is_null() {
        recorder.bad_payload();
        return None;
    }
    let p = r.payload as *const Data;
    // SAFETY: the payload starts with its u64 size.
    let size = unsafe { std::ptr::addr_of!((*p).size).read_unaligned() } as usize;
    if size < SYMBOL_BYTES_READ {
        recorder.bad_payload();
        return None;
    }
    // SAFETY: `size` covers every field read; each is read individually so nothing past the
    // runtime's (possibly 72-byte) struct is touched. The name is a NUL-terminated string owned
    // by the SDK, copied here.
    unsafe {
        let name_ptr = std::ptr::addr_of!((*p).kernel_name).read_unaligned();
        let name = if name_ptr.is_null() {
            String::new()
        } else {
            CStr::from_ptr(name_ptr).to_string_lossy().into_owned()
        };
        let kernel_id = std::ptr::addr_of!((*p).kernel_id).read_unaligned();
        let symbol = KernelSymbol {
            name: std::sync::Arc::from(""),
            sgpr_count: std::ptr::addr_of!((*p).sgpr_count).read_unaligned(),
            arch_vgpr_count: std::ptr::addr_of!((*p).arch_vgpr_count).read_unaligned(),
            accum_vgpr_count: std::ptr::addr_of!((*p).accum_vgpr_count).read_unaligned(),
            group_segment_size: std::ptr::addr_of!((*p).group_segment_size).read_unaligned(),
            private_segment_size: std::ptr::addr_of!((*p).private_segment_size).read_unaligned(),
        };
        Some((kernel_id, name, symbol))
    }
}

/// For an ENTER/EXIT callback of operation `op` whose payload is a `D` starting with its u64
/// size: whether it is the ENTER, and the u64 at `at` when the payload's size covers it (a
/// short payload is counted and skipped).
///
/// # Safety
/// `r.payload` must be null or point to a `D` of at least the size its first u64 states, and
/// `at + 8 <= size_of::<D>()`.
#[inline]
pub unsafe fn bracket_u64<D>(
    r: &CallbackRecord,
    recorder: &Recorder,
    op: i32,
    at: usize,
) -> Option<(bool, u64)> {
    if r.operation != op || r.payload.is_null() {
        return None;
    }
    let enter = match r.phase {
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER => true,
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT => false,
        _ => return None,
    };
    // SAFETY: the payload starts with its u64 size (caller's contract).
    let size = unsafe { (r.payload as *const u64).read_unaligned() } as usize;
    if size < at + size_of::<u64>() || at + size_of::<u64>() > size_of::<D>() {
        recorder.bad_payload();
        return None;
    }
    // SAFETY: `size` covers the u64 at `at` inside the payload.
    let v = unsafe { (r.payload.cast::<u8>().add(at) as *const u64).read_unaligned() };
    Some((enter, v))
}

#[cfg(test)]
mod tests;
