use std::ffi::c_void;
use std::mem::size_of;

use rocprofiler_sdk_sys as sys;

use super::*;
use crate::capture::hip_call::{self, HipCall};
use crate::capture::{Capture, ThreadState};
use crate::hip::HipOp;

/// Applies one callback of `op` to `t` through the payload view, as the HIP trampoline does.
///
/// # Safety
/// `p` must point to a complete HIP API payload whose arguments were set for `op`.
unsafe fn apply_hip_call(
    c: &Capture,
    enter: bool,
    op: HipOp,
    corr: u64,
    p: *mut c_void,
    t: &mut ThreadState,
) {
    let recorder = Recorder::default();
    let call = HipCall {
        op: &op,
        phase: if enter { Phase::Enter } else { Phase::Exit },
        correlation_id: corr,
        thread_id: 1,
    };
    // SAFETY: the caller's contract.
    let args = unsafe { HipApiArgs::new(p, &recorder) };
    crate::capture::local::with(|l| hip_call::apply(c.streams(), l, enter, &call, &args, t, 0));
}

#[test]
fn set_device_and_stream_creation_count_only_when_the_call_succeeds() {
    type Data = sys::rocprofiler_callback_tracing_hip_api_data_t;
    // SAFETY: all-zero is a valid bit pattern for this plain C struct.
    let mut d: Data = unsafe { std::mem::zeroed() };
    d.size = size_of::<Data>() as u64;
    let p = &mut d as *mut Data as *mut c_void;
    let c = Capture::default();
    let mut t = ThreadState::default();
    let row = |n: &str| crate::hip::lookup(n).unwrap();
    let call = |t: &mut ThreadState, d: &mut Data, enter: bool, role, retval: u32| {
        d.retval.hipError_t_retval = retval as _;
        // SAFETY: `p` points to `d`, a complete payload of the role's call.
        unsafe { apply_hip_call(&c, enter, role, 1, p, t) };
    };

    // hipSetDevice(1) fails (hipErrorInvalidDevice = 101): HIP keeps device 0.
    d.args.hipSetDevice.deviceId = 1;
    call(&mut t, &mut d, true, row("hipSetDevice"), 0);
    call(&mut t, &mut d, false, row("hipSetDevice"), 101);
    assert_eq!(t.current_device, 0);
    call(&mut t, &mut d, true, row("hipSetDevice"), 0);
    call(&mut t, &mut d, false, row("hipSetDevice"), 0);
    assert_eq!(t.current_device, 1);

    // A failed hipStreamCreate leaves garbage in the out-variable: not a stream.
    let mut out: u64 = 0xd0d0;
    d.args.hipStreamCreate.stream = &mut out as *mut u64 as _;
    call(&mut t, &mut d, false, row("hipStreamCreate"), 1);
    assert_eq!(c.streams().device_of(&mut t, 0xd0d0), -1);
    call(&mut t, &mut d, false, row("hipStreamCreate"), 0);
    assert_eq!(c.streams().device_of(&mut t, 0xd0d0), 1);
}

/// Runs one HIP call's ENTER and EXIT through the table row of `name`.
fn run_call(
    c: &Capture,
    t: &mut ThreadState,
    name: &str,
    corr: u64,
    d: &mut sys::rocprofiler_callback_tracing_hip_api_data_t,
) {
    let op = crate::hip::lookup(name).unwrap();
    d.size = size_of::<sys::rocprofiler_callback_tracing_hip_api_data_t>() as u64;
    let p = d as *mut _ as *mut c_void;
    // SAFETY: `p` points to a complete payload whose arguments were set for `name`.
    unsafe {
        apply_hip_call(c, true, op, corr, p, t);
        apply_hip_call(c, false, op, corr, p, t);
    }
}

fn zeroed() -> sys::rocprofiler_callback_tracing_hip_api_data_t {
    // SAFETY: all-zero is a valid bit pattern for this plain C struct.
    unsafe { std::mem::zeroed() }
}

#[test]
fn a_host_to_host_2d_copy_on_a_gpu1_stream_is_drawn_on_gpu1() {
    use crate::model::events::{AgentInfo, AgentType, Collected, CopyRecord};
    // hipMemcpy2DAsync's stream is read: a copy with no GPU end belongs to its stream's GPU,
    // not to GPU 0.
    let c = Capture::default();
    let mut t = ThreadState::default();
    t.current_device = 1;
    let mut stream_out: u64 = 0x6001;
    let mut d = zeroed();
    d.args.hipExtStreamCreateWithCUMask.stream = &mut stream_out as *mut u64 as _;
    run_call(&c, &mut t, "hipExtStreamCreateWithCUMask", 1, &mut d);
    t.current_device = 0; // the copy is issued from device 0, on the GPU-1 stream
    let mut d = zeroed();
    d.args.hipMemcpy2DAsync.stream = 0x6001 as _;
    run_call(&c, &mut t, "hipMemcpy2DAsync", 2, &mut d);
    let calls: Vec<_> = t.calls.iter().collect();
    assert_eq!((calls[0].stream, calls[0].device), (0x6001, 1));

    let gpu = |h: u64, i: i32| AgentInfo::for_test(h, AgentType::Gpu, i);
    let c = Collected {
        agents: vec![gpu(0x10, 0), gpu(0x11, 1)],
        copies: vec![CopyRecord {
            correlation_id: 2,
            external_id: 0,
            start_ns: 10,
            end_ns: 20,
            thread_id: 1,
            operation: 1, // host to host
            dst_agent: 0x99,
            src_agent: 0x99,
            bytes: 64,
        }],
        calls: calls.into(),
        ..Collected::default()
    };
    let trace = crate::model::join::join(c);
    let on = |i: usize| {
        trace.devices[i]
            .lines
            .iter()
            .map(|l| l.events.len())
            .sum::<usize>()
    };
    assert_eq!(
        (on(0), on(1)),
        (0, 1),
        "the copy belongs to its stream's GPU"
    );
}

#[test]
fn launch_with_a_config_struct_reads_the_stream_through_it() {
    let c = Capture::default();
    let mut t = ThreadState::default();
    t.current_device = 1;
    let mut out: u64 = 0x7001;
    let mut d = zeroed();
    d.args.hipStreamCreateWithPriority.stream = &mut out as *mut u64 as _;
    run_call(&c, &mut t, "hipStreamCreateWithPriority", 1, &mut d);
    let config = sys::hipLaunchConfig_t {
        stream: 0x7001 as _,
        ..Default::default()
    };
    let mut d = zeroed();
    d.args.hipLaunchKernelExC.config = &config;
    run_call(&c, &mut t, "hipLaunchKernelExC", 2, &mut d);
    let mut d = zeroed();
    d.args.hipMemsetD16Async.stream = 0x7001 as _;
    run_call(&c, &mut t, "hipMemsetD16Async", 3, &mut d);
    let calls: Vec<(u64, u64, i32)> = t
        .calls
        .iter()
        .map(|c| (c.correlation_id, c.stream, c.device))
        .collect();
    assert_eq!(calls, vec![(2, 0x7001, 1), (3, 0x7001, 1)]);
}

#[test]
fn event_calls_read_event_and_stream() {
    use crate::model::events::SyncKind;
    let c = Capture::default();
    let mut t = ThreadState::default();
    let mut d = zeroed();
    d.args.hipEventRecordWithFlags.event = 0xe0 as _;
    d.args.hipEventRecordWithFlags.stream = 0 as _;
    run_call(&c, &mut t, "hipEventRecordWithFlags", 5, &mut d);
    let mut d = zeroed();
    d.args.hipEventQuery.event = 0xe0 as _;
    run_call(&c, &mut t, "hipEventQuery", 6, &mut d);
    let mut d = zeroed();
    d.args.hipStreamQuery.stream = 0x5 as _;
    run_call(&c, &mut t, "hipStreamQuery", 7, &mut d);
    let got: Vec<(u64, SyncKind, u64, u64)> = t
        .syncs
        .iter()
        .map(|s| (s.correlation_id, s.kind, s.event, s.stream))
        .collect();
    assert_eq!(
        got,
        vec![
            (5, SyncKind::EventRecord, 0xe0, 0),
            (6, SyncKind::EventQuery, 0xe0, 0),
            (7, SyncKind::StreamQuery, 0, 0x5),
        ]
    );
}

#[test]
fn symbol_prefix_fits_the_oldest_payload() {
    assert_eq!(
        SYMBOL_BYTES_READ, 68,
        "must fit the 72-byte payload of SDK 0.4/0.5"
    );
}

#[test]
fn roctx_labels_with_invalid_utf8_or_none_are_safe() {
    use crate::capture::markers::label_text;
    let bad = std::ffi::CString::new(vec![b'a', 0xff, 0xfe, b'#', 0xc3, b'z']).unwrap();
    // SAFETY: `bad` is NUL-terminated and outlives the call's result.
    let got = unsafe { Message::at(bad.as_ptr()) }.unwrap().bytes();
    assert_eq!(got, bad.as_bytes());
    assert_eq!(label_text(got), "a\u{fffd}\u{fffd}#\u{fffd}z");
    let cjk = std::ffi::CString::new("评估 – eval").unwrap();
    // SAFETY: `cjk` is NUL-terminated and outlives the call's result.
    let got = unsafe { Message::at(cjk.as_ptr()) }.map(Message::bytes);
    assert_eq!(got.map(label_text).as_deref(), Some("评估 – eval"));
    // SAFETY: null is allowed.
    assert!(unsafe { Message::at(std::ptr::null()) }.is_none());
}

/// A message is compared in place up to its NUL: equal bytes only, neither a prefix nor a
/// longer text, and bytes holding a NUL equal no message (the compare stops at the message's).
#[test]
fn a_message_is_its_bytes_only() {
    let m = Message::new(c"step");
    assert!(m.is(b"step"));
    for other in [&b"ste"[..], b"steps", b"stop", b"", b"step\0", b"step\0x"] {
        assert!(!m.is(other), "{:?}", other.escape_ascii().to_string());
    }
    let empty = Message::new(c"");
    assert!(empty.is(b""));
    assert!(!empty.is(b"\0"));
    assert!(!empty.is(b"a"));
    assert_eq!(m.bytes(), b"step");
}
