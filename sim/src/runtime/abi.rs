//! The rocprofiler-sdk C ABI — one declaration shared by tool and simulator
//! (`rocprofiler-sdk-sys`, bindgen output of our own header) — plus the few items only the
//! runtime side needs.

pub use rocprofiler_sdk_sys::*;

use std::mem::{offset_of, size_of};

/// Storage of one agent as the runtime owns it. The sys struct declares the agent up to
/// offset 296 (all a tool should read without checking `size`); a 1.2.1 runtime's object is
/// 312 bytes with a 16-byte UUID at 296 (0.6.0 / 1.0.0: 304 bytes, 8-byte UUID).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct AgentStorage {
    pub agent: rocprofiler_agent_v0_t,
    pub uuid: [u8; 16],
}

const _: () = {
    assert!(size_of::<rocprofiler_agent_v0_t>() == 296);
    assert!(offset_of!(AgentStorage, uuid) == 296);
    assert!(size_of::<AgentStorage>() == 312);
};

/// `runtime_visibility` bits (0.6.0+) live in the sys struct's `reserved_292` slot.
pub const RUNTIME_VISIBILITY_HSA: u32 = 1;
pub const RUNTIME_VISIBILITY_HIP: u32 = 1 << 1;

pub const KERNEL_DISPATCH_ENQUEUE: rocprofiler_tracing_operation_t =
    ROCPROFILER_KERNEL_DISPATCH_ENQUEUE as rocprofiler_tracing_operation_t;
pub const KERNEL_DISPATCH_COMPLETE: rocprofiler_tracing_operation_t =
    ROCPROFILER_KERNEL_DISPATCH_COMPLETE as rocprofiler_tracing_operation_t;
pub const CODE_OBJECT_LOAD: rocprofiler_tracing_operation_t =
    ROCPROFILER_CODE_OBJECT_LOAD as rocprofiler_tracing_operation_t;
pub const CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER: rocprofiler_tracing_operation_t =
    ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER as rocprofiler_tracing_operation_t;
pub const HIP_STREAM_CREATE: rocprofiler_tracing_operation_t =
    ROCPROFILER_HIP_STREAM_CREATE as rocprofiler_tracing_operation_t;
pub const HIP_STREAM_DESTROY: rocprofiler_tracing_operation_t =
    ROCPROFILER_HIP_STREAM_DESTROY as rocprofiler_tracing_operation_t;
pub const HIP_STREAM_SET: rocprofiler_tracing_operation_t =
    ROCPROFILER_HIP_STREAM_SET as rocprofiler_tracing_operation_t;

/// The all-zero value of a plain-data FFI struct/union.
pub fn zeroed<T: Copy>() -> T {
    // SAFETY: only used for the sys crate's plain-data `#[repr(C)]` types (integers, raw
    // pointers, `Option<fn>`), for which all-zero bytes are a valid value.
    unsafe { std::mem::zeroed() }
}
