//! The record of a HIP call built from its ENTER and EXIT callbacks
//! (`ROCPROF_XPLANE_HIP_API_RECORDS=callbacks`, the default): ENTER stamps the SDK's clock into
//! the call's user-data slot, EXIT reads it back, takes the end and keeps the record in the
//! thread's store (`Recorder::keep_api_record*`). Out of line from the trampolines: each reads
//! the clock through a pointer.

use rocprofiler_sdk_sys as sys;

use super::payload::CallbackRecord;
use super::Clock;
use super::Tracer;
use crate::capture::local::Local;
use crate::guard::ffi_guard;
use crate::model::events::{ApiDomain, ApiRecord};
use crate::recorder::{Gate, Recorder};

/// What the unguarded path did with a HIP API callback it took, and what is left for the
/// call's record (`ROCPROF_XPLANE_HIP_API_RECORDS=callbacks`), out of line: calls through the
/// SDK's clock, which the trampoline's registers are not kept for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Took {
    /// Everything.
    Done,
    /// A call's ENTER: its start is still to be stamped ([`api_start_unguarded`]).
    Start,
    /// A call's EXIT: its record is still to be built and kept ([`api_record_unguarded`]).
    Record,
}

/// The start the ENTER of a call stamped into its user data (0: none, no record).
///
/// # Safety
/// `user_data` is null or the runtime's user-data slot of the call for our context, which
/// the runtime passes to its ENTER and its EXIT alike.
#[inline(always)]
unsafe fn stamped(user_data: *mut sys::rocprofiler_user_data_t) -> u64 {
    if user_data.is_null() {
        return 0;
    }
    // SAFETY: a valid slot (contract); a u64 read from a plain 8-byte union.
    unsafe { (*user_data).value }
}

/// Stamps a call's start (0: no record) into its user data, for its EXIT.
///
/// # Safety
/// As [`stamped`].
#[inline(always)]
unsafe fn stamp(user_data: *mut sys::rocprofiler_user_data_t, start: u64) {
    if !user_data.is_null() {
        // SAFETY: a valid slot, ours for this call (contract).
        unsafe { (*user_data).value = start };
    }
}

/// The record of a HIP call its EXIT `c` builds: from its ENTER's stamp `start_ns` to
/// `end_ns`, as the runtime's buffered record of it would read.
#[inline(always)]
fn built_record(c: &CallbackRecord, start_ns: u64, end_ns: u64) -> ApiRecord {
    ApiRecord {
        domain: ApiDomain::Hip,
        operation: c.operation,
        correlation_id: c.correlation_id,
        external_id: c.external_id,
        start_ns,
        end_ns: end_ns.max(start_ns),
        thread_id: c.thread_id,
    }
}

/// A call's ENTER: its start on `clock` stamped into its user data while `gate` lets capture
/// on (else 0: no record). Reads, a call and a store; nothing that can panic.
///
/// # Safety
/// As [`stamped`].
#[inline(always)]
pub(super) unsafe fn start_call(
    rec: &Recorder,
    gate: Gate,
    clock: Clock,
    user_data: *mut sys::rocprofiler_user_data_t,
) {
    // SAFETY: this function's contract.
    unsafe { stamp(user_data, rec.api_start(gate, || clock.now())) };
}

/// A call's EXIT `r`: its record, from the start its ENTER stamped into `r.user_data` (none:
/// no record) to `now()`, kept in this thread's store `l`: before the guard when that takes no
/// allocation or lookup, else through it. `now` is the caller's so that one EXIT reads the
/// clock once, whoever else needs the time.
///
/// # Safety
/// `r.user_data` as [`stamped`].
#[inline(always)]
pub(super) unsafe fn end_call(
    rec: &Recorder,
    l: &Local,
    gate: Gate,
    now: impl FnOnce() -> u64,
    r: &CallbackRecord,
) {
    // SAFETY: this function's contract.
    let start = unsafe { stamped(r.user_data) };
    if start == 0 {
        return;
    }
    let record = built_record(r, start, now());
    if !rec.keep_api_record_unguarded(l, gate, record) {
        keep_api_record_guarded(rec, l, gate, record);
    }
}

/// The start of a call whose ENTER the unguarded path took ([`Took::Start`]), stamped into its
/// user data while capture is on. Out of line from the trampolines: the SDK's clock is a call
/// through a pointer. Reads, a call and a store; nothing that can panic.
///
/// # Safety
/// `t`'s dispatch is armed for HIP API callbacks ([`hip_api_try`] took the ENTER);
/// `user_data` as [`stamped`].
#[inline(never)]
pub(super) unsafe fn api_start_unguarded(t: &Tracer, user_data: *mut sys::rocprofiler_user_data_t) {
    // SAFETY: armed (this function's contract: `hip_api_try` found the kind armed, acquire).
    let clock = unsafe { t.armed.get_known_set() }.dispatch.clock;
    let rec = &t.recorder;
    // SAFETY: this function's contract.
    unsafe { start_call(rec, rec.gate(), clock, user_data) };
}

/// The record of a call whose EXIT the unguarded path took ([`Took::Record`]), from its
/// `record` and the start its ENTER stamped into `user_data` (none: no record), kept in this
/// thread's store `l`: before the guard when that takes no allocation or lookup, else through
/// it. Out of line from the trampolines, as [`api_start_unguarded`].
///
/// # Safety
/// As [`api_start_unguarded`]; `record` is the runtime's record of this EXIT.
#[inline(never)]
pub(super) unsafe fn api_record_unguarded<R>(
    t: &Tracer,
    l: &Local,
    record: &R,
    user_data: *mut sys::rocprofiler_user_data_t,
) where
    for<'r> CallbackRecord: From<&'r R>,
{
    // SAFETY: armed (this function's contract).
    let clock = unsafe { t.armed.get_known_set() }.dispatch.clock;
    let mut r = CallbackRecord::from(record);
    r.user_data = user_data;
    let rec = &t.recorder;
    // SAFETY: this function's contract.
    unsafe { end_call(rec, l, rec.gate(), || clock.now(), &r) };
}

/// A built record the unguarded path could not keep: through the guard, out of line.
#[cold]
#[inline(never)]
fn keep_api_record_guarded(rec: &Recorder, l: &Local, gate: Gate, record: ApiRecord) {
    ffi_guard("HIP API record", (), || {
        rec.keep_api_record(l, gate, record)
    });
}
