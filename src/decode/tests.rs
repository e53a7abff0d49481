//! Decoding raw records built in memory with the sys types, in both ABI families.

use std::mem::{size_of, zeroed};

use rocprofiler_sdk_sys as sys;

use super::*;
use crate::model::events::ApiDomain;

const HIP: u32 = sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
const MARKER: u32 = sys::ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API;
const COPY: u32 = sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
const KERNEL: u32 = sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;

fn kinds() -> BufferKinds {
    BufferKinds {
        hip_api: Some(HIP),
        marker_api: Some(MARKER),
        kernel_dispatch: Some(KERNEL),
        memory_copy: Some(COPY),
        hip_event: Some(HIP_EVENT),
        counters: true,
    }
}

/// A value the runtime would resolve by name (`HIP_EVENT` has no stable number).
const HIP_EVENT: u32 = 40;

fn header<T>(kind: u32, payload: &mut T) -> sys::rocprofiler_record_header_t {
    // SAFETY: the header is plain data; all-zero is valid.
    let mut h: sys::rocprofiler_record_header_t = unsafe { zeroed() };
    h.__bindgen_anon_1.hash =
        u64::from(sys::ROCPROFILER_BUFFER_CATEGORY_TRACING) | (u64::from(kind) << 32);
    h.payload = payload as *mut T as *mut std::ffi::c_void;
    h
}

fn decode_all(abi: Abi, headers: &[sys::rocprofiler_record_header_t], drops: u64) -> EventStore {
    let ptrs: Vec<*const sys::rocprofiler_record_header_t> =
        headers.iter().map(|h| h as *const _).collect();
    let mut out = EventStore::default();
    // SAFETY: every header points to a live record of the size its `size` field states.
    unsafe { decode_batch(abi, &kinds(), ptrs.as_ptr(), ptrs.len(), drops, &mut out) };
    out
}

/// A zeroed sys record with the given fields set (every field not named stays 0).
macro_rules! record {
    ($t:ty { $($($f:ident).+ = $v:expr),* $(,)? }) => {{
        // SAFETY: plain C struct; all-zero is valid.
        let mut r: $t = unsafe { zeroed() };
        $(r.$($f).+ = $v;)*
        r
    }};
}

fn kernel_record() -> sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t {
    record!(sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t {
        size = size_of::<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t>() as u64,
        kind = KERNEL,
        operation = sys::ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
        correlation_id.internal = 42,
        correlation_id.external.value = 9,
        thread_id = 1234,
        start_timestamp = 1_000,
        end_timestamp = 2_500,
        dispatch_info.size = 72,
        dispatch_info.agent_id.handle = 0xa9e,
        dispatch_info.queue_id.handle = 0x9,
        dispatch_info.kernel_id = 17,
        dispatch_info.dispatch_id = 5,
        dispatch_info.private_segment_size = 64,
        dispatch_info.group_segment_size = 2048,
        dispatch_info.workgroup_size = sys::rocprofiler_dim3_t { x: 256, y: 1, z: 1 },
        dispatch_info.grid_size = sys::rocprofiler_dim3_t { x: 65536, y: 2, z: 1 },
    })
}

#[test]
fn kernel_dispatch_fields() {
    let mut r = kernel_record();
    let out = decode_all(Abi::V1, &[header(KERNEL, &mut r)], 0);
    let k: Vec<_> = out.kernels.iter().collect();
    assert_eq!(k.len(), 1);
    let k = k[0];
    assert_eq!(
        (k.correlation_id, k.external_id, k.thread_id),
        (42, 9, 1234)
    );
    assert_eq!((k.start_ns, k.end_ns), (1_000, 2_500));
    assert_eq!(
        (k.agent, k.queue, k.kernel_id, k.dispatch_id),
        (0xa9e, 9, 17, 5)
    );
    assert_eq!((k.private_segment_size, k.group_segment_size), (64, 2048));
    assert_eq!(k.workgroup, [256, 1, 1]);
    assert_eq!(k.grid, [65536, 2, 1]);
    assert_eq!(out.counters.kernel_records, 1);
}

#[test]
fn hip_api_v0_and_v1_layouts() {
    let mut v0 = record!(sys::rocprofiler_buffer_tracing_hip_api_record_v0_t {
        size = 56,
        kind = HIP,
        operation = 214,
        correlation_id.internal = 7,
        start_timestamp = 10,
        end_timestamp = 20,
        thread_id = 99,
    });
    let mut v1 = record!(sys::rocprofiler_buffer_tracing_hip_api_record_v1_t {
        size = 64,
        kind = HIP,
        operation = 166,
        correlation_id.internal = 8,
        correlation_id.ancestor = 3,
        correlation_id.external.value = 1001,
        start_timestamp = 30,
        end_timestamp = 40,
        thread_id = 98,
    });
    assert_eq!(
        size_of::<sys::rocprofiler_buffer_tracing_hip_api_record_v0_t>(),
        56
    );
    assert_eq!(
        size_of::<sys::rocprofiler_buffer_tracing_hip_api_record_v1_t>(),
        64
    );

    let out = decode_all(Abi::V0, &[header(HIP, &mut v0)], 0);
    let a: Vec<_> = out.api.iter().collect();
    assert_eq!(a.len(), 1);
    assert_eq!(
        (
            a[0].domain,
            a[0].operation,
            a[0].correlation_id,
            a[0].start_ns,
            a[0].end_ns,
            a[0].thread_id
        ),
        (ApiDomain::Hip, 214, 7, 10, 20, 99)
    );

    let out = decode_all(Abi::V1, &[header(HIP, &mut v1)], 0);
    let a: Vec<_> = out.api.iter().collect();
    assert_eq!(
        (
            a[0].operation,
            a[0].correlation_id,
            a[0].start_ns,
            a[0].end_ns,
            a[0].thread_id
        ),
        (166, 8, 30, 40, 98)
    );
    assert_eq!(a[0].external_id, 1001);
    assert_eq!(out.counters.api_records, 1);

    // A 56-byte record under the 1.x ABI is too short for the layout read: skipped, counted.
    let out = decode_all(Abi::V1, &[header(HIP, &mut v0)], 0);
    assert!(out.api.is_empty());
    assert_eq!(out.counters.bad_size_records, 1);
}

#[test]
fn marker_record_goes_to_marker_domain() {
    let mut m = record!(sys::rocprofiler_buffer_tracing_marker_api_record_v1_t {
        size = 64,
        kind = MARKER,
        operation = 1,
        correlation_id.internal = 11,
        start_timestamp = 5,
        end_timestamp = 6,
        thread_id = 1,
    });
    let out = decode_all(Abi::V1, &[header(MARKER, &mut m)], 0);
    // Kept apart from the HIP records, packed (the join reads them there).
    assert!(out.api.is_empty());
    let a: Vec<_> = out.marker_records.iter().map(|m| m.api()).collect();
    assert_eq!(
        (a[0].domain, a[0].operation, a[0].correlation_id),
        (ApiDomain::Marker, 1, 11)
    );
    assert_eq!(out.counters.marker_records, 1);
    assert_eq!(out.counters.api_records, 0);
}

#[test]
fn memory_copy_v0_and_v1_layouts() {
    let mut v0 = record!(sys::rocprofiler_buffer_tracing_memory_copy_record_v0_t {
        size = 80,
        kind = COPY,
        operation = sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE,
        correlation_id.internal = 4,
        thread_id = 2,
        start_timestamp = 100,
        end_timestamp = 200,
        dst_agent_id.handle = 0xd,
        src_agent_id.handle = 0xc,
        bytes = 1 << 20,
    });
    let mut v1 = record!(sys::rocprofiler_buffer_tracing_memory_copy_record_v1_t {
        size = 96,
        kind = COPY,
        operation = sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST,
        correlation_id.internal = 5,
        thread_id = 3,
        start_timestamp = 300,
        end_timestamp = 400,
        dst_agent_id.handle = 0xc,
        src_agent_id.handle = 0xd,
        bytes = 4096,
        dst_address.value = 0xdead,
    });
    let out = decode_all(Abi::V0, &[header(COPY, &mut v0)], 0);
    let c: Vec<_> = out.copies.iter().collect();
    assert_eq!(
        (c[0].operation, c[0].correlation_id, c[0].bytes),
        (2, 4, 1 << 20)
    );
    assert_eq!(
        (c[0].dst_agent, c[0].src_agent, c[0].start_ns, c[0].end_ns),
        (0xd, 0xc, 100, 200)
    );
    let out = decode_all(Abi::V1, &[header(COPY, &mut v1)], 0);
    let c: Vec<_> = out.copies.iter().collect();
    assert_eq!(
        (
            c[0].operation,
            c[0].correlation_id,
            c[0].bytes,
            c[0].thread_id
        ),
        (3, 5, 4096, 3)
    );
    assert_eq!(out.counters.memcpy_records, 1);
}

#[test]
fn unknown_kinds_short_records_and_drops_are_counted() {
    let mut k = kernel_record();
    let mut short = kernel_record();
    short.size = 100;
    let mut bad_info = kernel_record();
    bad_info.dispatch_info.size = 40;
    let mut retire = record!(sys::rocprofiler_buffer_tracing_correlation_id_retirement_record_t {
        size = 32,
    });
    let mut other_category = header(KERNEL, &mut k);
    other_category.__bindgen_anon_1.hash = 3 | (u64::from(KERNEL) << 32);
    let hs = [
        header(KERNEL, &mut k),
        header(KERNEL, &mut short),
        header(KERNEL, &mut bad_info),
        header(13, &mut retire),
        other_category,
    ];
    let out = decode_all(Abi::V1, &hs, 5);
    assert_eq!(out.kernels.len(), 1);
    assert_eq!(out.counters.kernel_records, 1);
    assert_eq!(out.counters.bad_size_records, 2);
    assert_eq!(out.counters.unknown_kind_records, 2);
    assert_eq!(out.counters.runtime_dropped, 5);
}

/// A runtime that leaves the inner `dispatch_info.size` at 0 (not verified for every SDK version)
/// must not lose every kernel: the outer record size already proves the layout.
#[test]
fn unset_dispatch_info_size_keeps_the_kernel() {
    let mut unset = kernel_record();
    unset.dispatch_info.size = 0;
    let out = decode_all(Abi::V0, &[header(KERNEL, &mut unset)], 0);
    assert_eq!(out.kernels.len(), 1);
    assert_eq!(out.counters.kernel_records, 1);
    assert_eq!(out.counters.bad_size_records, 0);
    assert_eq!(out.kernels.iter().next().unwrap().grid, [65536, 2, 1]);
}

#[test]
fn kinds_not_traced_are_unknown() {
    let mut k = kernel_record();
    let ptr = [&header(KERNEL, &mut k) as *const sys::rocprofiler_record_header_t];
    let mut out = EventStore::default();
    let only_hip = BufferKinds {
        hip_api: Some(HIP),
        ..BufferKinds::default()
    };
    // SAFETY: the header points to a live, complete record.
    unsafe { decode_batch(Abi::V0, &only_hip, ptr.as_ptr(), 1, 0, &mut out) };
    assert!(out.kernels.is_empty());
    assert_eq!(out.counters.unknown_kind_records, 1);
}

#[test]
fn hip_event_barriers_keep_their_gpu_times() {
    let mut r = record!(sys::rocprofiler_buffer_tracing_hip_event_record_t {
        size = size_of::<sys::rocprofiler_buffer_tracing_hip_event_record_t>() as u64,
        kind = HIP_EVENT,
        operation = sys::ROCPROFILER_HIP_EVENT_WAIT,
        correlation_id.internal = 77,
        start_timestamp = 5_000,
        end_timestamp = 5_400,
        queue_id.handle = 0x91,
        hip_event_handle = 0xe0,
    });
    let mut short = r;
    short.size = 80; // older/shorter layout: skipped, counted
    let out = decode_all(
        Abi::V1,
        &[header(HIP_EVENT, &mut r), header(HIP_EVENT, &mut short)],
        0,
    );
    let got: Vec<_> = out.hip_events.iter().copied().collect();
    assert_eq!(got.len(), 1);
    assert_eq!(
        (
            got[0].correlation_id,
            got[0].start_ns,
            got[0].end_ns,
            got[0].event
        ),
        (77, 5_000, 5_400, 0xe0)
    );
    assert_eq!(got[0].operation, sys::ROCPROFILER_HIP_EVENT_WAIT as i32);
    assert_eq!(out.counters.hip_event_records, 1);
    assert_eq!(out.counters.bad_size_records, 1);
}

fn counter_header<T>(kind: u32, payload: &mut T) -> sys::rocprofiler_record_header_t {
    let mut h = header(kind, payload);
    h.__bindgen_anon_1.hash =
        u64::from(sys::ROCPROFILER_BUFFER_CATEGORY_COUNTERS) | (u64::from(kind) << 32);
    h
}

/// The dispatch counting service's records: the header names the agent, each value record
/// (32 bytes in 0.x, 40 in 1.x: only the common prefix is read) one instance's value; with no
/// counting service configured they are unknown records, counted.
#[test]
fn counter_records_decode_in_both_layouts() {
    let mut head = record!(sys::rocprofiler_dispatch_counting_service_record_t {
        size = size_of::<sys::rocprofiler_dispatch_counting_service_record_t>() as u64,
        num_records = 2,
        dispatch_info.dispatch_id = 5,
        dispatch_info.agent_id.handle = 0xa9e,
    });
    let mut v1 = record!(sys::rocprofiler_counter_record_v1_t {
        id = (3 << 48) | 1,
        counter_value = 2.5,
        dispatch_id = 5,
        agent_id.handle = 0xa9e,
    });
    let mut v0 = record!(sys::rocprofiler_counter_record_v0_t {
        id = 3 << 48,
        counter_value = 4.0,
        dispatch_id = 5,
    });
    let headers = [
        counter_header(
            sys::ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER,
            &mut head,
        ),
        counter_header(sys::ROCPROFILER_COUNTER_RECORD_VALUE, &mut v1),
        counter_header(sys::ROCPROFILER_COUNTER_RECORD_VALUE, &mut v0),
    ];
    let out = decode_all(Abi::V1, &headers, 0);
    let mut samples = Vec::new();
    let mut st = out;
    st.pmc_samples.drain_into(&mut samples);
    let mut dispatches = Vec::new();
    st.pmc_dispatches.drain_into(&mut dispatches);
    assert_eq!(
        dispatches,
        [crate::model::events::CounterDispatch {
            dispatch_id: 5,
            agent: 0xa9e
        }]
    );
    let got: Vec<(u64, u64, f64)> = samples
        .iter()
        .map(|s| (s.dispatch_id, s.instance, s.value))
        .collect();
    assert_eq!(got, [(5, (3 << 48) | 1, 2.5), (5, 3 << 48, 4.0)]);
    assert_eq!(st.counters.unknown_kind_records, 0);

    let ptrs: Vec<*const sys::rocprofiler_record_header_t> =
        headers.iter().map(|h| h as *const _).collect();
    let mut none = EventStore::default();
    let kinds = BufferKinds {
        counters: false,
        ..kinds()
    };
    // SAFETY: every header points to a live record of its kind.
    unsafe { decode_batch(Abi::V1, &kinds, ptrs.as_ptr(), ptrs.len(), 0, &mut none) };
    assert_eq!(none.counters.unknown_kind_records, 3);
    assert_eq!(none.pmc_samples.len(), 0);
}

/// A delivery's table of decoders sends every kind where the chain of compares does, for kinds
/// configured once, twice (the first in the chain's order wins), not at all, and past the
/// table.
#[test]
fn the_route_table_agrees_with_the_kinds_for_every_kind() {
    let configs = [
        kinds(),
        BufferKinds::default(),
        BufferKinds {
            hip_api: Some(7),
            marker_api: Some(7),
            kernel_dispatch: Some(3),
            memory_copy: Some(3),
            hip_event: Some(200),
            counters: false,
        },
        BufferKinds {
            hip_api: Some(ROUTED_KINDS as u32),
            marker_api: Some(ROUTED_KINDS as u32 - 1),
            hip_event: Some(0),
            memory_copy: Some(0),
            ..BufferKinds::default()
        },
    ];
    for k in &configs {
        let routes = Routes::of(k);
        for kind in (0..300).chain([u32::MAX]) {
            assert_eq!(
                routes.decoder(kind),
                k.decoder(kind),
                "kind {kind} of {k:?}"
            );
        }
    }
    let dup = Routes::of(&configs[2]);
    assert_eq!(
        (dup.decoder(7), dup.decoder(3)),
        (Decoder::HipApi, Decoder::Kernel)
    );
    assert_eq!(dup.decoder(200), Decoder::HipEvent);
}
