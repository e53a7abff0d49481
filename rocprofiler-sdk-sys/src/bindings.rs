// @generated from include/rocprof_xplane_sdk.h by
// `cargo run -p rocprofiler-sdk-sys --features regen --bin regen-bindings`. Do not edit.

pub type rocprofiler_timestamp_t = u64;
pub type rocprofiler_thread_id_t = u64;
pub type rocprofiler_tracing_operation_t = i32;
pub type rocprofiler_kernel_id_t = u64;
pub type rocprofiler_dispatch_id_t = u64;
pub type HSA_ENGINE_VERSION = u32;
pub type HSA_ENGINE_ID = u32;
pub type HSA_CAPABILITY = u32;
#[repr(C)]
#[derive(Debug)]
pub struct ihipStream_t {
    _unused: [u8; 0],
}
pub type hipStream_t = *mut ihipStream_t;
#[repr(C)]
#[derive(Debug)]
pub struct ihipEvent_t {
    _unused: [u8; 0],
}
pub type hipEvent_t = *mut ihipEvent_t;
#[repr(C)]
#[derive(Debug)]
pub struct ihipModuleSymbol_t {
    _unused: [u8; 0],
}
pub type hipFunction_t = *mut ihipModuleSymbol_t;
#[repr(C)]
#[derive(Debug)]
pub struct hipGraphExec {
    _unused: [u8; 0],
}
pub type hipGraphExec_t = *mut hipGraphExec;
pub type hipMemcpyKind = u32;
pub type hipError_t = i32;
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct hipChannelFormatDesc {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub w: i32,
    pub f: i32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of hipChannelFormatDesc",
    ][::core::mem::size_of::<hipChannelFormatDesc>() - 20usize];
    [
        "Alignment of hipChannelFormatDesc",
    ][::core::mem::align_of::<hipChannelFormatDesc>() - 4usize];
    [
        "Offset of field: hipChannelFormatDesc::x",
    ][::core::mem::offset_of!(hipChannelFormatDesc, x) - 0usize];
    [
        "Offset of field: hipChannelFormatDesc::y",
    ][::core::mem::offset_of!(hipChannelFormatDesc, y) - 4usize];
    [
        "Offset of field: hipChannelFormatDesc::z",
    ][::core::mem::offset_of!(hipChannelFormatDesc, z) - 8usize];
    [
        "Offset of field: hipChannelFormatDesc::w",
    ][::core::mem::offset_of!(hipChannelFormatDesc, w) - 12usize];
    [
        "Offset of field: hipChannelFormatDesc::f",
    ][::core::mem::offset_of!(hipChannelFormatDesc, f) - 16usize];
};
#[repr(C)]
#[derive(Copy, Clone)]
pub struct hipPitchedPtr {
    pub ptr: *mut ::core::ffi::c_void,
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of hipPitchedPtr"][::core::mem::size_of::<hipPitchedPtr>() - 32usize];
    ["Alignment of hipPitchedPtr"][::core::mem::align_of::<hipPitchedPtr>() - 8usize];
    [
        "Offset of field: hipPitchedPtr::ptr",
    ][::core::mem::offset_of!(hipPitchedPtr, ptr) - 0usize];
    [
        "Offset of field: hipPitchedPtr::pitch",
    ][::core::mem::offset_of!(hipPitchedPtr, pitch) - 8usize];
    [
        "Offset of field: hipPitchedPtr::xsize",
    ][::core::mem::offset_of!(hipPitchedPtr, xsize) - 16usize];
    [
        "Offset of field: hipPitchedPtr::ysize",
    ][::core::mem::offset_of!(hipPitchedPtr, ysize) - 24usize];
};
impl Default for hipPitchedPtr {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct hipExtent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of hipExtent"][::core::mem::size_of::<hipExtent>() - 24usize];
    ["Alignment of hipExtent"][::core::mem::align_of::<hipExtent>() - 8usize];
    [
        "Offset of field: hipExtent::width",
    ][::core::mem::offset_of!(hipExtent, width) - 0usize];
    [
        "Offset of field: hipExtent::height",
    ][::core::mem::offset_of!(hipExtent, height) - 8usize];
    [
        "Offset of field: hipExtent::depth",
    ][::core::mem::offset_of!(hipExtent, depth) - 16usize];
};
#[repr(C)]
#[derive(Copy, Clone)]
pub struct hipLaunchConfig_t {
    pub gridDim: [u32; 3usize],
    pub blockDim: [u32; 3usize],
    pub dynamicSmemBytes: usize,
    pub stream: hipStream_t,
    pub attrs: *mut ::core::ffi::c_void,
    pub numAttrs: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of hipLaunchConfig_t"][::core::mem::size_of::<hipLaunchConfig_t>() - 56usize];
    [
        "Alignment of hipLaunchConfig_t",
    ][::core::mem::align_of::<hipLaunchConfig_t>() - 8usize];
    [
        "Offset of field: hipLaunchConfig_t::gridDim",
    ][::core::mem::offset_of!(hipLaunchConfig_t, gridDim) - 0usize];
    [
        "Offset of field: hipLaunchConfig_t::blockDim",
    ][::core::mem::offset_of!(hipLaunchConfig_t, blockDim) - 12usize];
    [
        "Offset of field: hipLaunchConfig_t::dynamicSmemBytes",
    ][::core::mem::offset_of!(hipLaunchConfig_t, dynamicSmemBytes) - 24usize];
    [
        "Offset of field: hipLaunchConfig_t::stream",
    ][::core::mem::offset_of!(hipLaunchConfig_t, stream) - 32usize];
    [
        "Offset of field: hipLaunchConfig_t::attrs",
    ][::core::mem::offset_of!(hipLaunchConfig_t, attrs) - 40usize];
    [
        "Offset of field: hipLaunchConfig_t::numAttrs",
    ][::core::mem::offset_of!(hipLaunchConfig_t, numAttrs) - 48usize];
};
impl Default for hipLaunchConfig_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub const ROCPROFILER_STATUS_SUCCESS: rocprofiler_status_t = 0;
pub const ROCPROFILER_STATUS_ERROR: rocprofiler_status_t = 1;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND: rocprofiler_status_t = 2;
pub const ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND: rocprofiler_status_t = 3;
pub const ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND: rocprofiler_status_t = 4;
pub const ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND: rocprofiler_status_t = 5;
pub const ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND: rocprofiler_status_t = 6;
pub const ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND: rocprofiler_status_t = 7;
pub const ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND: rocprofiler_status_t = 8;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR: rocprofiler_status_t = 9;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID: rocprofiler_status_t = 10;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED: rocprofiler_status_t = 11;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT: rocprofiler_status_t = 12;
pub type rocprofiler_status_t = ::core::ffi::c_uint;
pub const ROCPROFILER_BUFFER_TRACING_NONE: rocprofiler_buffer_tracing_kind_t = 0;
pub const ROCPROFILER_BUFFER_TRACING_HSA_CORE_API: rocprofiler_buffer_tracing_kind_t = 1;
pub const ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API: rocprofiler_buffer_tracing_kind_t = 2;
pub const ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API: rocprofiler_buffer_tracing_kind_t = 3;
pub const ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API: rocprofiler_buffer_tracing_kind_t = 4;
pub const ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API: rocprofiler_buffer_tracing_kind_t = 5;
pub const ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API: rocprofiler_buffer_tracing_kind_t = 6;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API: rocprofiler_buffer_tracing_kind_t = 7;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API: rocprofiler_buffer_tracing_kind_t = 8;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API: rocprofiler_buffer_tracing_kind_t = 9;
pub const ROCPROFILER_BUFFER_TRACING_MEMORY_COPY: rocprofiler_buffer_tracing_kind_t = 10;
pub const ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH: rocprofiler_buffer_tracing_kind_t = 11;
pub type rocprofiler_buffer_tracing_kind_t = ::core::ffi::c_uint;
pub const ROCPROFILER_CALLBACK_TRACING_NONE: rocprofiler_callback_tracing_kind_t = 0;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API: rocprofiler_callback_tracing_kind_t = 1;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API: rocprofiler_callback_tracing_kind_t = 2;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API: rocprofiler_callback_tracing_kind_t = 3;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API: rocprofiler_callback_tracing_kind_t = 4;
pub const ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API: rocprofiler_callback_tracing_kind_t = 5;
pub const ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API: rocprofiler_callback_tracing_kind_t = 6;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API: rocprofiler_callback_tracing_kind_t = 7;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API: rocprofiler_callback_tracing_kind_t = 8;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API: rocprofiler_callback_tracing_kind_t = 9;
pub const ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT: rocprofiler_callback_tracing_kind_t = 10;
pub const ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY: rocprofiler_callback_tracing_kind_t = 11;
pub const ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH: rocprofiler_callback_tracing_kind_t = 12;
pub const ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY: rocprofiler_callback_tracing_kind_t = 13;
pub type rocprofiler_callback_tracing_kind_t = ::core::ffi::c_uint;
pub const ROCPROFILER_CALLBACK_PHASE_NONE: rocprofiler_callback_phase_t = 0;
pub const ROCPROFILER_CALLBACK_PHASE_ENTER: rocprofiler_callback_phase_t = 1;
pub const ROCPROFILER_CALLBACK_PHASE_LOAD: rocprofiler_callback_phase_t = 1;
pub const ROCPROFILER_CALLBACK_PHASE_EXIT: rocprofiler_callback_phase_t = 2;
pub const ROCPROFILER_CALLBACK_PHASE_UNLOAD: rocprofiler_callback_phase_t = 2;
pub const ROCPROFILER_CALLBACK_PHASE_LAST: rocprofiler_callback_phase_t = 3;
pub type rocprofiler_callback_phase_t = ::core::ffi::c_uint;
pub const ROCPROFILER_AGENT_TYPE_NONE: rocprofiler_agent_type_t = 0;
pub const ROCPROFILER_AGENT_TYPE_CPU: rocprofiler_agent_type_t = 1;
pub const ROCPROFILER_AGENT_TYPE_GPU: rocprofiler_agent_type_t = 2;
pub const ROCPROFILER_AGENT_TYPE_LAST: rocprofiler_agent_type_t = 3;
pub type rocprofiler_agent_type_t = ::core::ffi::c_uint;
pub const ROCPROFILER_AGENT_INFO_VERSION_NONE: rocprofiler_agent_version_t = 0;
pub const ROCPROFILER_AGENT_INFO_VERSION_0: rocprofiler_agent_version_t = 1;
pub const ROCPROFILER_AGENT_INFO_VERSION_LAST: rocprofiler_agent_version_t = 2;
pub type rocprofiler_agent_version_t = ::core::ffi::c_uint;
pub const ROCPROFILER_BUFFER_CATEGORY_NONE: rocprofiler_buffer_category_t = 0;
pub const ROCPROFILER_BUFFER_CATEGORY_TRACING: rocprofiler_buffer_category_t = 1;
pub const ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING: rocprofiler_buffer_category_t = 2;
pub const ROCPROFILER_BUFFER_CATEGORY_COUNTERS: rocprofiler_buffer_category_t = 3;
pub const ROCPROFILER_BUFFER_CATEGORY_LAST: rocprofiler_buffer_category_t = 4;
pub type rocprofiler_buffer_category_t = ::core::ffi::c_uint;
pub const ROCPROFILER_BUFFER_POLICY_NONE: rocprofiler_buffer_policy_t = 0;
pub const ROCPROFILER_BUFFER_POLICY_DISCARD: rocprofiler_buffer_policy_t = 1;
pub const ROCPROFILER_BUFFER_POLICY_LOSSLESS: rocprofiler_buffer_policy_t = 2;
pub const ROCPROFILER_BUFFER_POLICY_LAST: rocprofiler_buffer_policy_t = 3;
pub type rocprofiler_buffer_policy_t = ::core::ffi::c_uint;
pub const ROCPROFILER_KERNEL_DISPATCH_NONE: rocprofiler_kernel_dispatch_operation_t = 0;
pub const ROCPROFILER_KERNEL_DISPATCH_ENQUEUE: rocprofiler_kernel_dispatch_operation_t = 1;
pub const ROCPROFILER_KERNEL_DISPATCH_COMPLETE: rocprofiler_kernel_dispatch_operation_t = 2;
pub const ROCPROFILER_KERNEL_DISPATCH_LAST: rocprofiler_kernel_dispatch_operation_t = 3;
pub type rocprofiler_kernel_dispatch_operation_t = ::core::ffi::c_uint;
pub const ROCPROFILER_MEMORY_COPY_NONE: rocprofiler_memory_copy_operation_t = 0;
pub const ROCPROFILER_MEMORY_COPY_HOST_TO_HOST: rocprofiler_memory_copy_operation_t = 1;
pub const ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE: rocprofiler_memory_copy_operation_t = 2;
pub const ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST: rocprofiler_memory_copy_operation_t = 3;
pub const ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE: rocprofiler_memory_copy_operation_t = 4;
pub const ROCPROFILER_MEMORY_COPY_LAST: rocprofiler_memory_copy_operation_t = 5;
pub type rocprofiler_memory_copy_operation_t = ::core::ffi::c_uint;
pub const ROCPROFILER_CODE_OBJECT_NONE: rocprofiler_code_object_operation_t = 0;
pub const ROCPROFILER_CODE_OBJECT_LOAD: rocprofiler_code_object_operation_t = 1;
pub const ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER: rocprofiler_code_object_operation_t = 2;
pub const ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER: rocprofiler_code_object_operation_t = 3;
pub type rocprofiler_code_object_operation_t = ::core::ffi::c_uint;
pub const ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_NONE: rocprofiler_code_object_storage_type_t = 0;
pub const ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE: rocprofiler_code_object_storage_type_t = 1;
pub const ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY: rocprofiler_code_object_storage_type_t = 2;
pub type rocprofiler_code_object_storage_type_t = ::core::ffi::c_uint;
pub const ROCPROFILER_HIP_STREAM_NONE: rocprofiler_hip_stream_operation_t = 0;
pub const ROCPROFILER_HIP_STREAM_CREATE: rocprofiler_hip_stream_operation_t = 1;
pub const ROCPROFILER_HIP_STREAM_DESTROY: rocprofiler_hip_stream_operation_t = 2;
pub const ROCPROFILER_HIP_STREAM_SET: rocprofiler_hip_stream_operation_t = 3;
pub const ROCPROFILER_HIP_STREAM_LAST: rocprofiler_hip_stream_operation_t = 4;
pub type rocprofiler_hip_stream_operation_t = ::core::ffi::c_uint;
pub const ROCPROFILER_HIP_EVENT_NONE: rocprofiler_hip_event_operation_t = 0;
pub const ROCPROFILER_HIP_EVENT_RECORD: rocprofiler_hip_event_operation_t = 1;
pub const ROCPROFILER_HIP_EVENT_WAIT: rocprofiler_hip_event_operation_t = 2;
pub const ROCPROFILER_HIP_EVENT_LAST: rocprofiler_hip_event_operation_t = 3;
pub type rocprofiler_hip_event_operation_t = ::core::ffi::c_uint;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_NONE: rocprofiler_hip_graph_operation_t = 0;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_CREATE: rocprofiler_hip_graph_operation_t = 1;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_DESTROY: rocprofiler_hip_graph_operation_t = 2;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH: rocprofiler_hip_graph_operation_t = 3;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_LAST: rocprofiler_hip_graph_operation_t = 4;
pub type rocprofiler_hip_graph_operation_t = ::core::ffi::c_uint;
pub const ROCPROFILER_MARKER_CORE_API_ID_NONE: rocprofiler_marker_core_api_id_t = -1;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA: rocprofiler_marker_core_api_id_t = 0;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA: rocprofiler_marker_core_api_id_t = 1;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop: rocprofiler_marker_core_api_id_t = 2;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA: rocprofiler_marker_core_api_id_t = 3;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop: rocprofiler_marker_core_api_id_t = 4;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxGetThreadId: rocprofiler_marker_core_api_id_t = 5;
pub const ROCPROFILER_MARKER_CORE_API_ID_LAST: rocprofiler_marker_core_api_id_t = 6;
pub type rocprofiler_marker_core_api_id_t = ::core::ffi::c_int;
pub const ROCPROFILER_MARKER_CONTROL_API_ID_NONE: rocprofiler_marker_control_api_id_t = -1;
pub const ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause: rocprofiler_marker_control_api_id_t = 0;
pub const ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerResume: rocprofiler_marker_control_api_id_t = 1;
pub const ROCPROFILER_MARKER_CONTROL_API_ID_LAST: rocprofiler_marker_control_api_id_t = 2;
pub type rocprofiler_marker_control_api_id_t = ::core::ffi::c_int;
pub const ROCPROFILER_MARKER_NAME_API_ID_NONE: rocprofiler_marker_name_api_id_t = -1;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread: rocprofiler_marker_name_api_id_t = 0;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameHsaAgent: rocprofiler_marker_name_api_id_t = 1;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipDevice: rocprofiler_marker_name_api_id_t = 2;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream: rocprofiler_marker_name_api_id_t = 3;
pub const ROCPROFILER_MARKER_NAME_API_ID_LAST: rocprofiler_marker_name_api_id_t = 4;
pub type rocprofiler_marker_name_api_id_t = ::core::ffi::c_int;
pub const ROCPROFILER_LIBRARY: rocprofiler_runtime_library_t = 1;
pub const ROCPROFILER_HSA_LIBRARY: rocprofiler_runtime_library_t = 2;
pub const ROCPROFILER_HIP_LIBRARY: rocprofiler_runtime_library_t = 4;
pub const ROCPROFILER_MARKER_LIBRARY: rocprofiler_runtime_library_t = 8;
pub const ROCPROFILER_RCCL_LIBRARY: rocprofiler_runtime_library_t = 16;
pub const ROCPROFILER_ROCDECODE_LIBRARY: rocprofiler_runtime_library_t = 32;
pub const ROCPROFILER_ROCJPEG_LIBRARY: rocprofiler_runtime_library_t = 64;
pub type rocprofiler_runtime_library_t = ::core::ffi::c_uint;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE: rocprofiler_external_correlation_id_request_kind_t = 0;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_CORE_API: rocprofiler_external_correlation_id_request_kind_t = 1;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_AMD_EXT_API: rocprofiler_external_correlation_id_request_kind_t = 2;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_IMAGE_EXT_API: rocprofiler_external_correlation_id_request_kind_t = 3;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_FINALIZE_EXT_API: rocprofiler_external_correlation_id_request_kind_t = 4;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API: rocprofiler_external_correlation_id_request_kind_t = 5;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_COMPILER_API: rocprofiler_external_correlation_id_request_kind_t = 6;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_API: rocprofiler_external_correlation_id_request_kind_t = 7;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CONTROL_API: rocprofiler_external_correlation_id_request_kind_t = 8;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_NAME_API: rocprofiler_external_correlation_id_request_kind_t = 9;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY: rocprofiler_external_correlation_id_request_kind_t = 10;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH: rocprofiler_external_correlation_id_request_kind_t = 11;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_SCRATCH_MEMORY: rocprofiler_external_correlation_id_request_kind_t = 12;
pub type rocprofiler_external_correlation_id_request_kind_t = ::core::ffi::c_uint;
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_context_id_t {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_context_id_t",
    ][::core::mem::size_of::<rocprofiler_context_id_t>() - 8usize];
    [
        "Alignment of rocprofiler_context_id_t",
    ][::core::mem::align_of::<rocprofiler_context_id_t>() - 8usize];
    [
        "Offset of field: rocprofiler_context_id_t::handle",
    ][::core::mem::offset_of!(rocprofiler_context_id_t, handle) - 0usize];
};
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_buffer_id_t {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_id_t",
    ][::core::mem::size_of::<rocprofiler_buffer_id_t>() - 8usize];
    [
        "Alignment of rocprofiler_buffer_id_t",
    ][::core::mem::align_of::<rocprofiler_buffer_id_t>() - 8usize];
    [
        "Offset of field: rocprofiler_buffer_id_t::handle",
    ][::core::mem::offset_of!(rocprofiler_buffer_id_t, handle) - 0usize];
};
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_agent_id_t {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_agent_id_t",
    ][::core::mem::size_of::<rocprofiler_agent_id_t>() - 8usize];
    [
        "Alignment of rocprofiler_agent_id_t",
    ][::core::mem::align_of::<rocprofiler_agent_id_t>() - 8usize];
    [
        "Offset of field: rocprofiler_agent_id_t::handle",
    ][::core::mem::offset_of!(rocprofiler_agent_id_t, handle) - 0usize];
};
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_queue_id_t {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_queue_id_t",
    ][::core::mem::size_of::<rocprofiler_queue_id_t>() - 8usize];
    [
        "Alignment of rocprofiler_queue_id_t",
    ][::core::mem::align_of::<rocprofiler_queue_id_t>() - 8usize];
    [
        "Offset of field: rocprofiler_queue_id_t::handle",
    ][::core::mem::offset_of!(rocprofiler_queue_id_t, handle) - 0usize];
};
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_stream_id_t {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_stream_id_t",
    ][::core::mem::size_of::<rocprofiler_stream_id_t>() - 8usize];
    [
        "Alignment of rocprofiler_stream_id_t",
    ][::core::mem::align_of::<rocprofiler_stream_id_t>() - 8usize];
    [
        "Offset of field: rocprofiler_stream_id_t::handle",
    ][::core::mem::offset_of!(rocprofiler_stream_id_t, handle) - 0usize];
};
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_graph_exec_id_t {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_graph_exec_id_t",
    ][::core::mem::size_of::<rocprofiler_graph_exec_id_t>() - 8usize];
    [
        "Alignment of rocprofiler_graph_exec_id_t",
    ][::core::mem::align_of::<rocprofiler_graph_exec_id_t>() - 8usize];
    [
        "Offset of field: rocprofiler_graph_exec_id_t::handle",
    ][::core::mem::offset_of!(rocprofiler_graph_exec_id_t, handle) - 0usize];
};
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_callback_thread_t {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_thread_t",
    ][::core::mem::size_of::<rocprofiler_callback_thread_t>() - 8usize];
    [
        "Alignment of rocprofiler_callback_thread_t",
    ][::core::mem::align_of::<rocprofiler_callback_thread_t>() - 8usize];
    [
        "Offset of field: rocprofiler_callback_thread_t::handle",
    ][::core::mem::offset_of!(rocprofiler_callback_thread_t, handle) - 0usize];
};
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct hsa_agent_s {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of hsa_agent_s"][::core::mem::size_of::<hsa_agent_s>() - 8usize];
    ["Alignment of hsa_agent_s"][::core::mem::align_of::<hsa_agent_s>() - 8usize];
    [
        "Offset of field: hsa_agent_s::handle",
    ][::core::mem::offset_of!(hsa_agent_s, handle) - 0usize];
};
pub type hsa_agent_t = hsa_agent_s;
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_user_data_t {
    pub value: u64,
    pub ptr: *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_user_data_t",
    ][::core::mem::size_of::<rocprofiler_user_data_t>() - 8usize];
    [
        "Alignment of rocprofiler_user_data_t",
    ][::core::mem::align_of::<rocprofiler_user_data_t>() - 8usize];
    [
        "Offset of field: rocprofiler_user_data_t::value",
    ][::core::mem::offset_of!(rocprofiler_user_data_t, value) - 0usize];
    [
        "Offset of field: rocprofiler_user_data_t::ptr",
    ][::core::mem::offset_of!(rocprofiler_user_data_t, ptr) - 0usize];
};
impl Default for rocprofiler_user_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_address_t {
    pub handle: u64,
    pub value: u64,
    pub ptr: *const ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_address_t",
    ][::core::mem::size_of::<rocprofiler_address_t>() - 8usize];
    [
        "Alignment of rocprofiler_address_t",
    ][::core::mem::align_of::<rocprofiler_address_t>() - 8usize];
    [
        "Offset of field: rocprofiler_address_t::handle",
    ][::core::mem::offset_of!(rocprofiler_address_t, handle) - 0usize];
    [
        "Offset of field: rocprofiler_address_t::value",
    ][::core::mem::offset_of!(rocprofiler_address_t, value) - 0usize];
    [
        "Offset of field: rocprofiler_address_t::ptr",
    ][::core::mem::offset_of!(rocprofiler_address_t, ptr) - 0usize];
};
impl Default for rocprofiler_address_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_dim3_t {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_dim3_t",
    ][::core::mem::size_of::<rocprofiler_dim3_t>() - 12usize];
    [
        "Alignment of rocprofiler_dim3_t",
    ][::core::mem::align_of::<rocprofiler_dim3_t>() - 4usize];
    [
        "Offset of field: rocprofiler_dim3_t::x",
    ][::core::mem::offset_of!(rocprofiler_dim3_t, x) - 0usize];
    [
        "Offset of field: rocprofiler_dim3_t::y",
    ][::core::mem::offset_of!(rocprofiler_dim3_t, y) - 4usize];
    [
        "Offset of field: rocprofiler_dim3_t::z",
    ][::core::mem::offset_of!(rocprofiler_dim3_t, z) - 8usize];
};
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_version_triplet_t {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_version_triplet_t",
    ][::core::mem::size_of::<rocprofiler_version_triplet_t>() - 12usize];
    [
        "Alignment of rocprofiler_version_triplet_t",
    ][::core::mem::align_of::<rocprofiler_version_triplet_t>() - 4usize];
    [
        "Offset of field: rocprofiler_version_triplet_t::major",
    ][::core::mem::offset_of!(rocprofiler_version_triplet_t, major) - 0usize];
    [
        "Offset of field: rocprofiler_version_triplet_t::minor",
    ][::core::mem::offset_of!(rocprofiler_version_triplet_t, minor) - 4usize];
    [
        "Offset of field: rocprofiler_version_triplet_t::patch",
    ][::core::mem::offset_of!(rocprofiler_version_triplet_t, patch) - 8usize];
};
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_correlation_id_v0_t {
    pub internal: u64,
    pub external: rocprofiler_user_data_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_correlation_id_v0_t",
    ][::core::mem::size_of::<rocprofiler_correlation_id_v0_t>() - 16usize];
    [
        "Alignment of rocprofiler_correlation_id_v0_t",
    ][::core::mem::align_of::<rocprofiler_correlation_id_v0_t>() - 8usize];
    [
        "Offset of field: rocprofiler_correlation_id_v0_t::internal",
    ][::core::mem::offset_of!(rocprofiler_correlation_id_v0_t, internal) - 0usize];
    [
        "Offset of field: rocprofiler_correlation_id_v0_t::external",
    ][::core::mem::offset_of!(rocprofiler_correlation_id_v0_t, external) - 8usize];
};
impl Default for rocprofiler_correlation_id_v0_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_correlation_id_v1_t {
    pub internal: u64,
    pub external: rocprofiler_user_data_t,
    pub ancestor: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_correlation_id_v1_t",
    ][::core::mem::size_of::<rocprofiler_correlation_id_v1_t>() - 24usize];
    [
        "Alignment of rocprofiler_correlation_id_v1_t",
    ][::core::mem::align_of::<rocprofiler_correlation_id_v1_t>() - 8usize];
    [
        "Offset of field: rocprofiler_correlation_id_v1_t::internal",
    ][::core::mem::offset_of!(rocprofiler_correlation_id_v1_t, internal) - 0usize];
    [
        "Offset of field: rocprofiler_correlation_id_v1_t::external",
    ][::core::mem::offset_of!(rocprofiler_correlation_id_v1_t, external) - 8usize];
    [
        "Offset of field: rocprofiler_correlation_id_v1_t::ancestor",
    ][::core::mem::offset_of!(rocprofiler_correlation_id_v1_t, ancestor) - 16usize];
};
impl Default for rocprofiler_correlation_id_v1_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_async_correlation_id_t {
    pub internal: u64,
    pub external: rocprofiler_user_data_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_async_correlation_id_t",
    ][::core::mem::size_of::<rocprofiler_async_correlation_id_t>() - 16usize];
    [
        "Alignment of rocprofiler_async_correlation_id_t",
    ][::core::mem::align_of::<rocprofiler_async_correlation_id_t>() - 8usize];
    [
        "Offset of field: rocprofiler_async_correlation_id_t::internal",
    ][::core::mem::offset_of!(rocprofiler_async_correlation_id_t, internal) - 0usize];
    [
        "Offset of field: rocprofiler_async_correlation_id_t::external",
    ][::core::mem::offset_of!(rocprofiler_async_correlation_id_t, external) - 8usize];
};
impl Default for rocprofiler_async_correlation_id_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_client_id_v0_t {
    pub name: *const ::core::ffi::c_char,
    pub handle: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_client_id_v0_t",
    ][::core::mem::size_of::<rocprofiler_client_id_v0_t>() - 16usize];
    [
        "Alignment of rocprofiler_client_id_v0_t",
    ][::core::mem::align_of::<rocprofiler_client_id_v0_t>() - 8usize];
    [
        "Offset of field: rocprofiler_client_id_v0_t::name",
    ][::core::mem::offset_of!(rocprofiler_client_id_v0_t, name) - 0usize];
    [
        "Offset of field: rocprofiler_client_id_v0_t::handle",
    ][::core::mem::offset_of!(rocprofiler_client_id_v0_t, handle) - 8usize];
};
impl Default for rocprofiler_client_id_v0_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_client_id_v1_t {
    pub size: usize,
    pub name: *const ::core::ffi::c_char,
    pub handle: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_client_id_v1_t",
    ][::core::mem::size_of::<rocprofiler_client_id_v1_t>() - 24usize];
    [
        "Alignment of rocprofiler_client_id_v1_t",
    ][::core::mem::align_of::<rocprofiler_client_id_v1_t>() - 8usize];
    [
        "Offset of field: rocprofiler_client_id_v1_t::size",
    ][::core::mem::offset_of!(rocprofiler_client_id_v1_t, size) - 0usize];
    [
        "Offset of field: rocprofiler_client_id_v1_t::name",
    ][::core::mem::offset_of!(rocprofiler_client_id_v1_t, name) - 8usize];
    [
        "Offset of field: rocprofiler_client_id_v1_t::handle",
    ][::core::mem::offset_of!(rocprofiler_client_id_v1_t, handle) - 16usize];
};
impl Default for rocprofiler_client_id_v1_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_record_header_t {
    pub __bindgen_anon_1: rocprofiler_record_header_t__bindgen_ty_1,
    pub payload: *mut ::core::ffi::c_void,
}
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_record_header_t__bindgen_ty_1 {
    pub __bindgen_anon_1: rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1,
    pub hash: u64,
}
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1 {
    pub category: u32,
    pub kind: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1",
    ][::core::mem::size_of::<rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1>()
        - 8usize];
    [
        "Alignment of rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1",
    ][::core::mem::align_of::<rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1>()
        - 4usize];
    [
        "Offset of field: rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1::category",
    ][::core::mem::offset_of!(
        rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1, category
    ) - 0usize];
    [
        "Offset of field: rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1::kind",
    ][::core::mem::offset_of!(
        rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1, kind
    ) - 4usize];
};
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_record_header_t__bindgen_ty_1",
    ][::core::mem::size_of::<rocprofiler_record_header_t__bindgen_ty_1>() - 8usize];
    [
        "Alignment of rocprofiler_record_header_t__bindgen_ty_1",
    ][::core::mem::align_of::<rocprofiler_record_header_t__bindgen_ty_1>() - 8usize];
    [
        "Offset of field: rocprofiler_record_header_t__bindgen_ty_1::hash",
    ][::core::mem::offset_of!(rocprofiler_record_header_t__bindgen_ty_1, hash) - 0usize];
};
impl Default for rocprofiler_record_header_t__bindgen_ty_1 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_record_header_t",
    ][::core::mem::size_of::<rocprofiler_record_header_t>() - 16usize];
    [
        "Alignment of rocprofiler_record_header_t",
    ][::core::mem::align_of::<rocprofiler_record_header_t>() - 8usize];
    [
        "Offset of field: rocprofiler_record_header_t::payload",
    ][::core::mem::offset_of!(rocprofiler_record_header_t, payload) - 8usize];
};
impl Default for rocprofiler_record_header_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_kernel_dispatch_info_t {
    pub size: u64,
    pub agent_id: rocprofiler_agent_id_t,
    pub queue_id: rocprofiler_queue_id_t,
    pub kernel_id: rocprofiler_kernel_id_t,
    pub dispatch_id: rocprofiler_dispatch_id_t,
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub workgroup_size: rocprofiler_dim3_t,
    pub grid_size: rocprofiler_dim3_t,
    pub reserved_padding: [u8; 56usize],
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_kernel_dispatch_info_t",
    ][::core::mem::size_of::<rocprofiler_kernel_dispatch_info_t>() - 128usize];
    [
        "Alignment of rocprofiler_kernel_dispatch_info_t",
    ][::core::mem::align_of::<rocprofiler_kernel_dispatch_info_t>() - 8usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::size",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, size) - 0usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::agent_id",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, agent_id) - 8usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::queue_id",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, queue_id) - 16usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::kernel_id",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, kernel_id) - 24usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::dispatch_id",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, dispatch_id)
        - 32usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::private_segment_size",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, private_segment_size)
        - 40usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::group_segment_size",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, group_segment_size)
        - 44usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::workgroup_size",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, workgroup_size)
        - 48usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::grid_size",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, grid_size) - 60usize];
    [
        "Offset of field: rocprofiler_kernel_dispatch_info_t::reserved_padding",
    ][::core::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, reserved_padding)
        - 72usize];
};
impl Default for rocprofiler_kernel_dispatch_info_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_kernel_dispatch_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_kernel_dispatch_operation_t,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_kernel_dispatch_record_t",
    ][::core::mem::size_of::<rocprofiler_buffer_tracing_kernel_dispatch_record_t>()
        - 184usize];
    [
        "Alignment of rocprofiler_buffer_tracing_kernel_dispatch_record_t",
    ][::core::mem::align_of::<rocprofiler_buffer_tracing_kernel_dispatch_record_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_kernel_dispatch_record_t::size",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_kernel_dispatch_record_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_kernel_dispatch_record_t::kind",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_kernel_dispatch_record_t, kind)
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_kernel_dispatch_record_t::operation",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_kernel_dispatch_record_t, operation
    ) - 12usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_kernel_dispatch_record_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_kernel_dispatch_record_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_kernel_dispatch_record_t::thread_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_kernel_dispatch_record_t, thread_id
    ) - 32usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_kernel_dispatch_record_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_kernel_dispatch_record_t, start_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_kernel_dispatch_record_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_kernel_dispatch_record_t, end_timestamp
    ) - 48usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_kernel_dispatch_record_t::dispatch_info",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_kernel_dispatch_record_t, dispatch_info
    ) - 56usize];
};
impl Default for rocprofiler_buffer_tracing_kernel_dispatch_record_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_kernel_dispatch_data_t {
    pub size: u64,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_kernel_dispatch_data_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_kernel_dispatch_data_t>()
        - 152usize];
    [
        "Alignment of rocprofiler_callback_tracing_kernel_dispatch_data_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_kernel_dispatch_data_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_kernel_dispatch_data_t::size",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_kernel_dispatch_data_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_kernel_dispatch_data_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_kernel_dispatch_data_t, start_timestamp
    ) - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_kernel_dispatch_data_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_kernel_dispatch_data_t, end_timestamp
    ) - 16usize];
    [
        "Offset of field: rocprofiler_callback_tracing_kernel_dispatch_data_t::dispatch_info",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_kernel_dispatch_data_t, dispatch_info
    ) - 24usize];
};
impl Default for rocprofiler_callback_tracing_kernel_dispatch_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_memory_copy_record_v0_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_memory_copy_operation_t,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dst_agent_id: rocprofiler_agent_id_t,
    pub src_agent_id: rocprofiler_agent_id_t,
    pub bytes: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_memory_copy_record_v0_t",
    ][::core::mem::size_of::<rocprofiler_buffer_tracing_memory_copy_record_v0_t>()
        - 80usize];
    [
        "Alignment of rocprofiler_buffer_tracing_memory_copy_record_v0_t",
    ][::core::mem::align_of::<rocprofiler_buffer_tracing_memory_copy_record_v0_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::size",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_memory_copy_record_v0_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::kind",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_memory_copy_record_v0_t, kind)
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::operation",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v0_t, operation
    ) - 12usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v0_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::thread_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v0_t, thread_id
    ) - 32usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v0_t, start_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v0_t, end_timestamp
    ) - 48usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::dst_agent_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v0_t, dst_agent_id
    ) - 56usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::src_agent_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v0_t, src_agent_id
    ) - 64usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v0_t::bytes",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_memory_copy_record_v0_t, bytes)
        - 72usize];
};
impl Default for rocprofiler_buffer_tracing_memory_copy_record_v0_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_memory_copy_record_v1_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_memory_copy_operation_t,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dst_agent_id: rocprofiler_agent_id_t,
    pub src_agent_id: rocprofiler_agent_id_t,
    pub bytes: u64,
    pub dst_address: rocprofiler_address_t,
    pub src_address: rocprofiler_address_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_memory_copy_record_v1_t",
    ][::core::mem::size_of::<rocprofiler_buffer_tracing_memory_copy_record_v1_t>()
        - 96usize];
    [
        "Alignment of rocprofiler_buffer_tracing_memory_copy_record_v1_t",
    ][::core::mem::align_of::<rocprofiler_buffer_tracing_memory_copy_record_v1_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::size",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_memory_copy_record_v1_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::kind",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_memory_copy_record_v1_t, kind)
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::operation",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v1_t, operation
    ) - 12usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v1_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::thread_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v1_t, thread_id
    ) - 32usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v1_t, start_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v1_t, end_timestamp
    ) - 48usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::dst_agent_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v1_t, dst_agent_id
    ) - 56usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::src_agent_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v1_t, src_agent_id
    ) - 64usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::bytes",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_memory_copy_record_v1_t, bytes)
        - 72usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::dst_address",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v1_t, dst_address
    ) - 80usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_memory_copy_record_v1_t::src_address",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_memory_copy_record_v1_t, src_address
    ) - 88usize];
};
impl Default for rocprofiler_buffer_tracing_memory_copy_record_v1_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_callback_tracing_memory_copy_data_v0_t {
    pub size: u64,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dst_agent_id: rocprofiler_agent_id_t,
    pub src_agent_id: rocprofiler_agent_id_t,
    pub bytes: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_memory_copy_data_v0_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_memory_copy_data_v0_t>()
        - 48usize];
    [
        "Alignment of rocprofiler_callback_tracing_memory_copy_data_v0_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_memory_copy_data_v0_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v0_t::size",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_memory_copy_data_v0_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v0_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v0_t, start_timestamp
    ) - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v0_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v0_t, end_timestamp
    ) - 16usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v0_t::dst_agent_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v0_t, dst_agent_id
    ) - 24usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v0_t::src_agent_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v0_t, src_agent_id
    ) - 32usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v0_t::bytes",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_memory_copy_data_v0_t, bytes)
        - 40usize];
};
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_memory_copy_data_v1_t {
    pub size: u64,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dst_agent_id: rocprofiler_agent_id_t,
    pub src_agent_id: rocprofiler_agent_id_t,
    pub bytes: u64,
    pub dst_address: rocprofiler_address_t,
    pub src_address: rocprofiler_address_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_memory_copy_data_v1_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_memory_copy_data_v1_t>()
        - 64usize];
    [
        "Alignment of rocprofiler_callback_tracing_memory_copy_data_v1_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_memory_copy_data_v1_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v1_t::size",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_memory_copy_data_v1_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v1_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v1_t, start_timestamp
    ) - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v1_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v1_t, end_timestamp
    ) - 16usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v1_t::dst_agent_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v1_t, dst_agent_id
    ) - 24usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v1_t::src_agent_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v1_t, src_agent_id
    ) - 32usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v1_t::bytes",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_memory_copy_data_v1_t, bytes)
        - 40usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v1_t::dst_address",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v1_t, dst_address
    ) - 48usize];
    [
        "Offset of field: rocprofiler_callback_tracing_memory_copy_data_v1_t::src_address",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_memory_copy_data_v1_t, src_address
    ) - 56usize];
};
impl Default for rocprofiler_callback_tracing_memory_copy_data_v1_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_hip_api_record_v0_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub correlation_id: rocprofiler_correlation_id_v0_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub thread_id: rocprofiler_thread_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_hip_api_record_v0_t",
    ][::core::mem::size_of::<rocprofiler_buffer_tracing_hip_api_record_v0_t>()
        - 56usize];
    [
        "Alignment of rocprofiler_buffer_tracing_hip_api_record_v0_t",
    ][::core::mem::align_of::<rocprofiler_buffer_tracing_hip_api_record_v0_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v0_t::size",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_record_v0_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v0_t::kind",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_record_v0_t, kind)
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v0_t::operation",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_record_v0_t, operation)
        - 12usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v0_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_api_record_v0_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v0_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_api_record_v0_t, start_timestamp
    ) - 32usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v0_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_api_record_v0_t, end_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v0_t::thread_id",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_record_v0_t, thread_id)
        - 48usize];
};
impl Default for rocprofiler_buffer_tracing_hip_api_record_v0_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_hip_api_record_v1_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub correlation_id: rocprofiler_correlation_id_v1_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub thread_id: rocprofiler_thread_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_hip_api_record_v1_t",
    ][::core::mem::size_of::<rocprofiler_buffer_tracing_hip_api_record_v1_t>()
        - 64usize];
    [
        "Alignment of rocprofiler_buffer_tracing_hip_api_record_v1_t",
    ][::core::mem::align_of::<rocprofiler_buffer_tracing_hip_api_record_v1_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v1_t::size",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_record_v1_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v1_t::kind",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_record_v1_t, kind)
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v1_t::operation",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_record_v1_t, operation)
        - 12usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v1_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_api_record_v1_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v1_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_api_record_v1_t, start_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v1_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_api_record_v1_t, end_timestamp
    ) - 48usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_record_v1_t::thread_id",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_record_v1_t, thread_id)
        - 56usize];
};
impl Default for rocprofiler_buffer_tracing_hip_api_record_v1_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_marker_api_record_v0_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub correlation_id: rocprofiler_correlation_id_v0_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub thread_id: rocprofiler_thread_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_marker_api_record_v0_t",
    ][::core::mem::size_of::<rocprofiler_buffer_tracing_marker_api_record_v0_t>()
        - 56usize];
    [
        "Alignment of rocprofiler_buffer_tracing_marker_api_record_v0_t",
    ][::core::mem::align_of::<rocprofiler_buffer_tracing_marker_api_record_v0_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v0_t::size",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_marker_api_record_v0_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v0_t::kind",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_marker_api_record_v0_t, kind)
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v0_t::operation",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v0_t, operation
    ) - 12usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v0_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v0_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v0_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v0_t, start_timestamp
    ) - 32usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v0_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v0_t, end_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v0_t::thread_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v0_t, thread_id
    ) - 48usize];
};
impl Default for rocprofiler_buffer_tracing_marker_api_record_v0_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_marker_api_record_v1_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub correlation_id: rocprofiler_correlation_id_v1_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub thread_id: rocprofiler_thread_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_marker_api_record_v1_t",
    ][::core::mem::size_of::<rocprofiler_buffer_tracing_marker_api_record_v1_t>()
        - 64usize];
    [
        "Alignment of rocprofiler_buffer_tracing_marker_api_record_v1_t",
    ][::core::mem::align_of::<rocprofiler_buffer_tracing_marker_api_record_v1_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v1_t::size",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_marker_api_record_v1_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v1_t::kind",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_marker_api_record_v1_t, kind)
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v1_t::operation",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v1_t, operation
    ) - 12usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v1_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v1_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v1_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v1_t, start_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v1_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v1_t, end_timestamp
    ) - 48usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_marker_api_record_v1_t::thread_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_marker_api_record_v1_t, thread_id
    ) - 56usize];
};
impl Default for rocprofiler_buffer_tracing_marker_api_record_v1_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_correlation_id_retirement_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub timestamp: rocprofiler_timestamp_t,
    pub internal_correlation_id: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_correlation_id_retirement_record_t",
    ][::core::mem::size_of::<
        rocprofiler_buffer_tracing_correlation_id_retirement_record_t,
    >() - 32usize];
    [
        "Alignment of rocprofiler_buffer_tracing_correlation_id_retirement_record_t",
    ][::core::mem::align_of::<
        rocprofiler_buffer_tracing_correlation_id_retirement_record_t,
    >() - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_correlation_id_retirement_record_t::size",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_correlation_id_retirement_record_t, size
    ) - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_correlation_id_retirement_record_t::kind",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_correlation_id_retirement_record_t, kind
    ) - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_correlation_id_retirement_record_t::timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_correlation_id_retirement_record_t, timestamp
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_correlation_id_retirement_record_t::internal_correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_correlation_id_retirement_record_t,
        internal_correlation_id
    ) - 24usize];
};
impl Default for rocprofiler_buffer_tracing_correlation_id_retirement_record_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_hip_api_args_t {
    pub hipLaunchKernel: rocprofiler_hip_api_args_t__bindgen_ty_1,
    pub hipModuleLaunchKernel: rocprofiler_hip_api_args_t__bindgen_ty_2,
    pub hipExtLaunchKernel: rocprofiler_hip_api_args_t__bindgen_ty_3,
    pub hipGraphLaunch: rocprofiler_hip_api_args_t__bindgen_ty_4,
    pub hipMemcpy: rocprofiler_hip_api_args_t__bindgen_ty_5,
    pub hipMemcpyAsync: rocprofiler_hip_api_args_t__bindgen_ty_6,
    pub hipMemcpyWithStream: rocprofiler_hip_api_args_t__bindgen_ty_7,
    pub hipMemsetAsync: rocprofiler_hip_api_args_t__bindgen_ty_8,
    pub hipMemset: rocprofiler_hip_api_args_t__bindgen_ty_9,
    pub hipEventRecord: rocprofiler_hip_api_args_t__bindgen_ty_10,
    pub hipStreamWaitEvent: rocprofiler_hip_api_args_t__bindgen_ty_11,
    pub hipEventSynchronize: rocprofiler_hip_api_args_t__bindgen_ty_12,
    pub hipStreamSynchronize: rocprofiler_hip_api_args_t__bindgen_ty_13,
    pub hipStreamCreate: rocprofiler_hip_api_args_t__bindgen_ty_14,
    pub hipStreamCreateWithFlags: rocprofiler_hip_api_args_t__bindgen_ty_15,
    pub hipStreamDestroy: rocprofiler_hip_api_args_t__bindgen_ty_16,
    pub hipSetDevice: rocprofiler_hip_api_args_t__bindgen_ty_17,
    pub hipMemcpy2DAsync: rocprofiler_hip_api_args_t__bindgen_ty_18,
    pub hipMemcpy3DAsync: rocprofiler_hip_api_args_t__bindgen_ty_19,
    pub hipMemcpyToSymbolAsync: rocprofiler_hip_api_args_t__bindgen_ty_20,
    pub hipMemcpyFromSymbolAsync: rocprofiler_hip_api_args_t__bindgen_ty_21,
    pub hipMemcpyHtoDAsync: rocprofiler_hip_api_args_t__bindgen_ty_22,
    pub hipMemcpyPeerAsync: rocprofiler_hip_api_args_t__bindgen_ty_23,
    pub hipMemsetD8Async: rocprofiler_hip_api_args_t__bindgen_ty_24,
    pub hipMemsetD16Async: rocprofiler_hip_api_args_t__bindgen_ty_25,
    pub hipMemsetD32Async: rocprofiler_hip_api_args_t__bindgen_ty_26,
    pub hipMemset2DAsync: rocprofiler_hip_api_args_t__bindgen_ty_27,
    pub hipMemset3DAsync: rocprofiler_hip_api_args_t__bindgen_ty_28,
    pub hipMallocAsync: rocprofiler_hip_api_args_t__bindgen_ty_29,
    pub hipMallocFromPoolAsync: rocprofiler_hip_api_args_t__bindgen_ty_30,
    pub hipFreeAsync: rocprofiler_hip_api_args_t__bindgen_ty_31,
    pub hipMalloc: rocprofiler_hip_api_args_t__bindgen_ty_32,
    pub hipFree: rocprofiler_hip_api_args_t__bindgen_ty_33,
    pub hipHostMalloc: rocprofiler_hip_api_args_t__bindgen_ty_34,
    pub hipHostFree: rocprofiler_hip_api_args_t__bindgen_ty_35,
    pub hipMallocManaged: rocprofiler_hip_api_args_t__bindgen_ty_36,
    pub hipMallocHost: rocprofiler_hip_api_args_t__bindgen_ty_37,
    pub hipHostAlloc: rocprofiler_hip_api_args_t__bindgen_ty_38,
    pub hipHostRegister: rocprofiler_hip_api_args_t__bindgen_ty_39,
    pub hipHostUnregister: rocprofiler_hip_api_args_t__bindgen_ty_40,
    pub hipExtMallocWithFlags: rocprofiler_hip_api_args_t__bindgen_ty_41,
    pub hipFreeHost: rocprofiler_hip_api_args_t__bindgen_ty_42,
    pub hipLaunchKernelExC: rocprofiler_hip_api_args_t__bindgen_ty_43,
    pub hipStreamCreateWithPriority: rocprofiler_hip_api_args_t__bindgen_ty_44,
    pub hipExtStreamCreateWithCUMask: rocprofiler_hip_api_args_t__bindgen_ty_45,
    pub hipEventRecordWithFlags: rocprofiler_hip_api_args_t__bindgen_ty_46,
    pub hipEventQuery: rocprofiler_hip_api_args_t__bindgen_ty_47,
    pub hipStreamQuery: rocprofiler_hip_api_args_t__bindgen_ty_48,
    pub align_: u64,
    pub raw: [u8; 88usize],
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_1 {
    pub function_address: *const ::core::ffi::c_void,
    pub numBlocks: rocprofiler_dim3_t,
    pub dimBlocks: rocprofiler_dim3_t,
    pub args: *mut *mut ::core::ffi::c_void,
    pub sharedMemBytes: usize,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_1",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_1>() - 56usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_1",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_1>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_1::function_address",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_1, function_address)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_1::numBlocks",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_1, numBlocks)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_1::dimBlocks",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_1, dimBlocks)
        - 20usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_1::args",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_1, args) - 32usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_1::sharedMemBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_1, sharedMemBytes)
        - 40usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_1::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_1, stream)
        - 48usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_1 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_2 {
    pub func: hipFunction_t,
    pub gridDimX: u32,
    pub gridDimY: u32,
    pub gridDimZ: u32,
    pub blockDimX: u32,
    pub blockDimY: u32,
    pub blockDimZ: u32,
    pub sharedMemBytes: u32,
    pub stream: hipStream_t,
    pub kernelParams: *mut *mut ::core::ffi::c_void,
    pub extra: *mut *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_2",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_2>() - 64usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_2",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_2>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::func",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, func) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::gridDimX",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, gridDimX)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::gridDimY",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, gridDimY)
        - 12usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::gridDimZ",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, gridDimZ)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::blockDimX",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, blockDimX)
        - 20usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::blockDimY",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, blockDimY)
        - 24usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::blockDimZ",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, blockDimZ)
        - 28usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::sharedMemBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, sharedMemBytes)
        - 32usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, stream)
        - 40usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::kernelParams",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, kernelParams)
        - 48usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_2::extra",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_2, extra)
        - 56usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_2 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_3 {
    pub function_address: *const ::core::ffi::c_void,
    pub numBlocks: rocprofiler_dim3_t,
    pub dimBlocks: rocprofiler_dim3_t,
    pub args: *mut *mut ::core::ffi::c_void,
    pub sharedMemBytes: usize,
    pub stream: hipStream_t,
    pub startEvent: hipEvent_t,
    pub stopEvent: hipEvent_t,
    pub flags: i32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_3",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_3>() - 80usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_3",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_3>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_3::function_address",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_3, function_address)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_3::numBlocks",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_3, numBlocks)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_3::dimBlocks",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_3, dimBlocks)
        - 20usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_3::args",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_3, args) - 32usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_3::sharedMemBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_3, sharedMemBytes)
        - 40usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_3::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_3, stream)
        - 48usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_3::startEvent",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_3, startEvent)
        - 56usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_3::stopEvent",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_3, stopEvent)
        - 64usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_3::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_3, flags)
        - 72usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_3 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_4 {
    pub graphExec: hipGraphExec_t,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_4",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_4>() - 16usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_4",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_4>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_4::graphExec",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_4, graphExec)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_4::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_4, stream)
        - 8usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_4 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_5 {
    pub dst: *mut ::core::ffi::c_void,
    pub src: *const ::core::ffi::c_void,
    pub sizeBytes: usize,
    pub kind: hipMemcpyKind,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_5",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_5>() - 32usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_5",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_5>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_5::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_5, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_5::src",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_5, src) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_5::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_5, sizeBytes)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_5::kind",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_5, kind) - 24usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_5 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_6 {
    pub dst: *mut ::core::ffi::c_void,
    pub src: *const ::core::ffi::c_void,
    pub sizeBytes: usize,
    pub kind: hipMemcpyKind,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_6",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_6>() - 40usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_6",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_6>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_6::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_6, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_6::src",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_6, src) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_6::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_6, sizeBytes)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_6::kind",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_6, kind) - 24usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_6::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_6, stream)
        - 32usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_6 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_7 {
    pub dst: *mut ::core::ffi::c_void,
    pub src: *const ::core::ffi::c_void,
    pub sizeBytes: usize,
    pub kind: hipMemcpyKind,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_7",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_7>() - 40usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_7",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_7>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_7::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_7, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_7::src",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_7, src) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_7::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_7, sizeBytes)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_7::kind",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_7, kind) - 24usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_7::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_7, stream)
        - 32usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_7 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_8 {
    pub dst: *mut ::core::ffi::c_void,
    pub value: i32,
    pub sizeBytes: usize,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_8",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_8>() - 32usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_8",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_8>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_8::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_8, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_8::value",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_8, value) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_8::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_8, sizeBytes)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_8::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_8, stream)
        - 24usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_8 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_9 {
    pub dst: *mut ::core::ffi::c_void,
    pub value: i32,
    pub sizeBytes: usize,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_9",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_9>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_9",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_9>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_9::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_9, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_9::value",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_9, value) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_9::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_9, sizeBytes)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_9 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_10 {
    pub event: hipEvent_t,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_10",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_10>() - 16usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_10",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_10>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_10::event",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_10, event)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_10::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_10, stream)
        - 8usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_10 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_11 {
    pub stream: hipStream_t,
    pub event: hipEvent_t,
    pub flags: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_11",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_11>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_11",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_11>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_11::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_11, stream)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_11::event",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_11, event)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_11::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_11, flags)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_11 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_12 {
    pub event: hipEvent_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_12",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_12>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_12",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_12>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_12::event",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_12, event)
        - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_12 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_13 {
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_13",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_13>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_13",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_13>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_13::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_13, stream)
        - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_13 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_14 {
    pub stream: *mut hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_14",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_14>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_14",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_14>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_14::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_14, stream)
        - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_14 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_15 {
    pub stream: *mut hipStream_t,
    pub flags: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_15",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_15>() - 16usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_15",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_15>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_15::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_15, stream)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_15::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_15, flags)
        - 8usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_15 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_16 {
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_16",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_16>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_16",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_16>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_16::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_16, stream)
        - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_16 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_17 {
    pub deviceId: i32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_17",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_17>() - 4usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_17",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_17>() - 4usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_17::deviceId",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_17, deviceId)
        - 0usize];
};
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_18 {
    pub dst: *mut ::core::ffi::c_void,
    pub dpitch: usize,
    pub src: *const ::core::ffi::c_void,
    pub spitch: usize,
    pub width: usize,
    pub height: usize,
    pub kind: hipMemcpyKind,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_18",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_18>() - 64usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_18",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_18>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_18::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_18, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_18::dpitch",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_18, dpitch)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_18::src",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_18, src) - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_18::spitch",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_18, spitch)
        - 24usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_18::width",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_18, width)
        - 32usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_18::height",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_18, height)
        - 40usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_18::kind",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_18, kind)
        - 48usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_18::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_18, stream)
        - 56usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_18 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_19 {
    pub p: *const ::core::ffi::c_void,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_19",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_19>() - 16usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_19",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_19>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_19::p",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_19, p) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_19::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_19, stream)
        - 8usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_19 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_20 {
    pub symbol: *const ::core::ffi::c_void,
    pub src: *const ::core::ffi::c_void,
    pub sizeBytes: usize,
    pub offset: usize,
    pub kind: hipMemcpyKind,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_20",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_20>() - 48usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_20",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_20>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_20::symbol",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_20, symbol)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_20::src",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_20, src) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_20::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_20, sizeBytes)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_20::offset",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_20, offset)
        - 24usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_20::kind",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_20, kind)
        - 32usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_20::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_20, stream)
        - 40usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_20 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_21 {
    pub dst: *mut ::core::ffi::c_void,
    pub symbol: *const ::core::ffi::c_void,
    pub sizeBytes: usize,
    pub offset: usize,
    pub kind: hipMemcpyKind,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_21",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_21>() - 48usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_21",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_21>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_21::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_21, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_21::symbol",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_21, symbol)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_21::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_21, sizeBytes)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_21::offset",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_21, offset)
        - 24usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_21::kind",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_21, kind)
        - 32usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_21::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_21, stream)
        - 40usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_21 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_22 {
    pub dst: *mut ::core::ffi::c_void,
    pub src: *const ::core::ffi::c_void,
    pub sizeBytes: usize,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_22",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_22>() - 32usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_22",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_22>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_22::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_22, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_22::src",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_22, src) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_22::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_22, sizeBytes)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_22::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_22, stream)
        - 24usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_22 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_23 {
    pub dst: *mut ::core::ffi::c_void,
    pub dstDeviceId: i32,
    pub src: *const ::core::ffi::c_void,
    pub srcDevice: i32,
    pub sizeBytes: usize,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_23",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_23>() - 48usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_23",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_23>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_23::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_23, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_23::dstDeviceId",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_23, dstDeviceId)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_23::src",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_23, src) - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_23::srcDevice",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_23, srcDevice)
        - 24usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_23::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_23, sizeBytes)
        - 32usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_23::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_23, stream)
        - 40usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_23 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_24 {
    pub dest: *mut ::core::ffi::c_void,
    pub value: u8,
    pub count: usize,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_24",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_24>() - 32usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_24",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_24>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_24::dest",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_24, dest) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_24::value",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_24, value)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_24::count",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_24, count)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_24::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_24, stream)
        - 24usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_24 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_25 {
    pub dest: *mut ::core::ffi::c_void,
    pub value: u16,
    pub count: usize,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_25",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_25>() - 32usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_25",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_25>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_25::dest",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_25, dest) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_25::value",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_25, value)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_25::count",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_25, count)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_25::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_25, stream)
        - 24usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_25 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_26 {
    pub dst: *mut ::core::ffi::c_void,
    pub value: i32,
    pub count: usize,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_26",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_26>() - 32usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_26",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_26>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_26::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_26, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_26::value",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_26, value)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_26::count",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_26, count)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_26::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_26, stream)
        - 24usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_26 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_27 {
    pub dst: *mut ::core::ffi::c_void,
    pub pitch: usize,
    pub value: i32,
    pub width: usize,
    pub height: usize,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_27",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_27>() - 48usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_27",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_27>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_27::dst",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_27, dst) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_27::pitch",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_27, pitch)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_27::value",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_27, value)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_27::width",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_27, width)
        - 24usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_27::height",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_27, height)
        - 32usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_27::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_27, stream)
        - 40usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_27 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_28 {
    pub pitchedDevPtr: hipPitchedPtr,
    pub value: i32,
    pub extent: hipExtent,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_28",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_28>() - 72usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_28",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_28>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_28::pitchedDevPtr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_28, pitchedDevPtr)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_28::value",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_28, value)
        - 32usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_28::extent",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_28, extent)
        - 40usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_28::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_28, stream)
        - 64usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_28 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_29 {
    pub dev_ptr: *mut *mut ::core::ffi::c_void,
    pub size: usize,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_29",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_29>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_29",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_29>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_29::dev_ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_29, dev_ptr)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_29::size",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_29, size) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_29::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_29, stream)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_29 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_30 {
    pub dev_ptr: *mut *mut ::core::ffi::c_void,
    pub size: usize,
    pub mem_pool: *mut ::core::ffi::c_void,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_30",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_30>() - 32usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_30",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_30>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_30::dev_ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_30, dev_ptr)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_30::size",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_30, size) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_30::mem_pool",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_30, mem_pool)
        - 16usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_30::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_30, stream)
        - 24usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_30 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_31 {
    pub dev_ptr: *mut ::core::ffi::c_void,
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_31",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_31>() - 16usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_31",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_31>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_31::dev_ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_31, dev_ptr)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_31::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_31, stream)
        - 8usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_31 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_32 {
    pub ptr: *mut *mut ::core::ffi::c_void,
    pub size: usize,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_32",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_32>() - 16usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_32",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_32>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_32::ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_32, ptr) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_32::size",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_32, size) - 8usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_32 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_33 {
    pub ptr: *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_33",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_33>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_33",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_33>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_33::ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_33, ptr) - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_33 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_34 {
    pub ptr: *mut *mut ::core::ffi::c_void,
    pub size: usize,
    pub flags: ::core::ffi::c_uint,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_34",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_34>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_34",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_34>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_34::ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_34, ptr) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_34::size",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_34, size) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_34::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_34, flags)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_34 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_35 {
    pub ptr: *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_35",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_35>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_35",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_35>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_35::ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_35, ptr) - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_35 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_36 {
    pub dev_ptr: *mut *mut ::core::ffi::c_void,
    pub size: usize,
    pub flags: ::core::ffi::c_uint,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_36",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_36>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_36",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_36>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_36::dev_ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_36, dev_ptr)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_36::size",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_36, size) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_36::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_36, flags)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_36 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_37 {
    pub ptr: *mut *mut ::core::ffi::c_void,
    pub size: usize,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_37",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_37>() - 16usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_37",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_37>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_37::ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_37, ptr) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_37::size",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_37, size) - 8usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_37 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_38 {
    pub ptr: *mut *mut ::core::ffi::c_void,
    pub size: usize,
    pub flags: ::core::ffi::c_uint,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_38",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_38>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_38",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_38>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_38::ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_38, ptr) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_38::size",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_38, size) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_38::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_38, flags)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_38 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_39 {
    pub hostPtr: *mut ::core::ffi::c_void,
    pub sizeBytes: usize,
    pub flags: ::core::ffi::c_uint,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_39",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_39>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_39",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_39>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_39::hostPtr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_39, hostPtr)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_39::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_39, sizeBytes)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_39::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_39, flags)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_39 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_40 {
    pub hostPtr: *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_40",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_40>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_40",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_40>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_40::hostPtr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_40, hostPtr)
        - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_40 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_41 {
    pub ptr: *mut *mut ::core::ffi::c_void,
    pub sizeBytes: usize,
    pub flags: ::core::ffi::c_uint,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_41",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_41>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_41",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_41>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_41::ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_41, ptr) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_41::sizeBytes",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_41, sizeBytes)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_41::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_41, flags)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_41 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_42 {
    pub ptr: *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_42",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_42>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_42",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_42>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_42::ptr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_42, ptr) - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_42 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_43 {
    pub config: *const hipLaunchConfig_t,
    pub fPtr: *const ::core::ffi::c_void,
    pub args: *mut *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_43",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_43>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_43",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_43>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_43::config",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_43, config)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_43::fPtr",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_43, fPtr) - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_43::args",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_43, args)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_43 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_44 {
    pub stream: *mut hipStream_t,
    pub flags: u32,
    pub priority: i32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_44",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_44>() - 16usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_44",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_44>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_44::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_44, stream)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_44::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_44, flags)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_44::priority",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_44, priority)
        - 12usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_44 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_45 {
    pub stream: *mut hipStream_t,
    pub cuMaskSize: u32,
    pub cuMask: *const u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_45",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_45>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_45",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_45>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_45::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_45, stream)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_45::cuMaskSize",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_45, cuMaskSize)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_45::cuMask",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_45, cuMask)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_45 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_46 {
    pub event: hipEvent_t,
    pub stream: hipStream_t,
    pub flags: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_46",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_46>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_46",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_46>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_46::event",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_46, event)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_46::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_46, stream)
        - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_46::flags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_46, flags)
        - 16usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_46 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_47 {
    pub event: hipEvent_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_47",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_47>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_47",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_47>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_47::event",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_47, event)
        - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_47 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_t__bindgen_ty_48 {
    pub stream: hipStream_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t__bindgen_ty_48",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t__bindgen_ty_48>() - 8usize];
    [
        "Alignment of rocprofiler_hip_api_args_t__bindgen_ty_48",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t__bindgen_ty_48>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t__bindgen_ty_48::stream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t__bindgen_ty_48, stream)
        - 0usize];
};
impl Default for rocprofiler_hip_api_args_t__bindgen_ty_48 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_args_t",
    ][::core::mem::size_of::<rocprofiler_hip_api_args_t>() - 88usize];
    [
        "Alignment of rocprofiler_hip_api_args_t",
    ][::core::mem::align_of::<rocprofiler_hip_api_args_t>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipLaunchKernel",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipLaunchKernel) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipModuleLaunchKernel",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipModuleLaunchKernel)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipExtLaunchKernel",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipExtLaunchKernel) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipGraphLaunch",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipGraphLaunch) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemcpy",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemcpy) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemcpyAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemcpyAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemcpyWithStream",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemcpyWithStream) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemsetAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemsetAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemset",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemset) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipEventRecord",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipEventRecord) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipStreamWaitEvent",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipStreamWaitEvent) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipEventSynchronize",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipEventSynchronize) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipStreamSynchronize",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipStreamSynchronize)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipStreamCreate",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipStreamCreate) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipStreamCreateWithFlags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipStreamCreateWithFlags)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipStreamDestroy",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipStreamDestroy) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipSetDevice",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipSetDevice) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemcpy2DAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemcpy2DAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemcpy3DAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemcpy3DAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemcpyToSymbolAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemcpyToSymbolAsync)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemcpyFromSymbolAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemcpyFromSymbolAsync)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemcpyHtoDAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemcpyHtoDAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemcpyPeerAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemcpyPeerAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemsetD8Async",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemsetD8Async) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemsetD16Async",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemsetD16Async) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemsetD32Async",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemsetD32Async) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemset2DAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemset2DAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMemset3DAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMemset3DAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMallocAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMallocAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMallocFromPoolAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMallocFromPoolAsync)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipFreeAsync",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipFreeAsync) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMalloc",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMalloc) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipFree",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipFree) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipHostMalloc",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipHostMalloc) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipHostFree",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipHostFree) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMallocManaged",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMallocManaged) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipMallocHost",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipMallocHost) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipHostAlloc",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipHostAlloc) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipHostRegister",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipHostRegister) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipHostUnregister",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipHostUnregister) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipExtMallocWithFlags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipExtMallocWithFlags)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipFreeHost",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipFreeHost) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipLaunchKernelExC",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipLaunchKernelExC) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipStreamCreateWithPriority",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipStreamCreateWithPriority)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipExtStreamCreateWithCUMask",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipExtStreamCreateWithCUMask)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipEventRecordWithFlags",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipEventRecordWithFlags)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipEventQuery",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipEventQuery) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::hipStreamQuery",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, hipStreamQuery) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::align_",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, align_) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_args_t::raw",
    ][::core::mem::offset_of!(rocprofiler_hip_api_args_t, raw) - 0usize];
};
impl Default for rocprofiler_hip_api_args_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_hip_api_retval_t {
    pub uint64_t_retval: u64,
    pub int_retval: i32,
    pub const_charp_retval: *const ::core::ffi::c_char,
    pub hipError_t_retval: hipError_t,
    pub hipChannelFormatDesc_retval: hipChannelFormatDesc,
    pub voidpp_retval: *mut *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_hip_api_retval_t",
    ][::core::mem::size_of::<rocprofiler_hip_api_retval_t>() - 24usize];
    [
        "Alignment of rocprofiler_hip_api_retval_t",
    ][::core::mem::align_of::<rocprofiler_hip_api_retval_t>() - 8usize];
    [
        "Offset of field: rocprofiler_hip_api_retval_t::uint64_t_retval",
    ][::core::mem::offset_of!(rocprofiler_hip_api_retval_t, uint64_t_retval) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_retval_t::int_retval",
    ][::core::mem::offset_of!(rocprofiler_hip_api_retval_t, int_retval) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_retval_t::const_charp_retval",
    ][::core::mem::offset_of!(rocprofiler_hip_api_retval_t, const_charp_retval)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_retval_t::hipError_t_retval",
    ][::core::mem::offset_of!(rocprofiler_hip_api_retval_t, hipError_t_retval) - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_retval_t::hipChannelFormatDesc_retval",
    ][::core::mem::offset_of!(rocprofiler_hip_api_retval_t, hipChannelFormatDesc_retval)
        - 0usize];
    [
        "Offset of field: rocprofiler_hip_api_retval_t::voidpp_retval",
    ][::core::mem::offset_of!(rocprofiler_hip_api_retval_t, voidpp_retval) - 0usize];
};
impl Default for rocprofiler_hip_api_retval_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_hip_api_data_t {
    pub size: u64,
    pub args: rocprofiler_hip_api_args_t,
    pub retval: rocprofiler_hip_api_retval_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_hip_api_data_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_hip_api_data_t>() - 120usize];
    [
        "Alignment of rocprofiler_callback_tracing_hip_api_data_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_hip_api_data_t>() - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_api_data_t::size",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_hip_api_data_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_api_data_t::args",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_hip_api_data_t, args)
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_api_data_t::retval",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_hip_api_data_t, retval)
        - 96usize];
};
impl Default for rocprofiler_callback_tracing_hip_api_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_hip_api_ext_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub correlation_id: rocprofiler_correlation_id_v1_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub args: rocprofiler_hip_api_args_t,
    pub retval: rocprofiler_hip_api_retval_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_hip_api_ext_record_t",
    ][::core::mem::size_of::<rocprofiler_buffer_tracing_hip_api_ext_record_t>()
        - 176usize];
    [
        "Alignment of rocprofiler_buffer_tracing_hip_api_ext_record_t",
    ][::core::mem::align_of::<rocprofiler_buffer_tracing_hip_api_ext_record_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_ext_record_t::size",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_ext_record_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_ext_record_t::kind",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_ext_record_t, kind)
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_ext_record_t::operation",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_ext_record_t, operation)
        - 12usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_ext_record_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_api_ext_record_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_ext_record_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_api_ext_record_t, start_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_ext_record_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_api_ext_record_t, end_timestamp
    ) - 48usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_ext_record_t::thread_id",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_ext_record_t, thread_id)
        - 56usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_ext_record_t::args",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_ext_record_t, args)
        - 64usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_api_ext_record_t::retval",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_api_ext_record_t, retval)
        - 152usize];
};
impl Default for rocprofiler_buffer_tracing_hip_api_ext_record_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub type roctx_range_id_t = u64;
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_marker_api_args_t {
    pub roctxMarkA: rocprofiler_marker_api_args_t__bindgen_ty_1,
    pub roctxRangePushA: rocprofiler_marker_api_args_t__bindgen_ty_2,
    pub roctxRangeStartA: rocprofiler_marker_api_args_t__bindgen_ty_3,
    pub roctxRangeStop: rocprofiler_marker_api_args_t__bindgen_ty_4,
    pub roctxThreadRangeA: rocprofiler_marker_api_args_t__bindgen_ty_5,
    pub roctxProcessRangeA: rocprofiler_marker_api_args_t__bindgen_ty_6,
    pub align_: u64,
    pub raw: [u8; 16usize],
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_t__bindgen_ty_1 {
    pub message: *const ::core::ffi::c_char,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_marker_api_args_t__bindgen_ty_1",
    ][::core::mem::size_of::<rocprofiler_marker_api_args_t__bindgen_ty_1>() - 8usize];
    [
        "Alignment of rocprofiler_marker_api_args_t__bindgen_ty_1",
    ][::core::mem::align_of::<rocprofiler_marker_api_args_t__bindgen_ty_1>() - 8usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t__bindgen_ty_1::message",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t__bindgen_ty_1, message)
        - 0usize];
};
impl Default for rocprofiler_marker_api_args_t__bindgen_ty_1 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_t__bindgen_ty_2 {
    pub message: *const ::core::ffi::c_char,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_marker_api_args_t__bindgen_ty_2",
    ][::core::mem::size_of::<rocprofiler_marker_api_args_t__bindgen_ty_2>() - 8usize];
    [
        "Alignment of rocprofiler_marker_api_args_t__bindgen_ty_2",
    ][::core::mem::align_of::<rocprofiler_marker_api_args_t__bindgen_ty_2>() - 8usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t__bindgen_ty_2::message",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t__bindgen_ty_2, message)
        - 0usize];
};
impl Default for rocprofiler_marker_api_args_t__bindgen_ty_2 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_t__bindgen_ty_3 {
    pub message: *const ::core::ffi::c_char,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_marker_api_args_t__bindgen_ty_3",
    ][::core::mem::size_of::<rocprofiler_marker_api_args_t__bindgen_ty_3>() - 8usize];
    [
        "Alignment of rocprofiler_marker_api_args_t__bindgen_ty_3",
    ][::core::mem::align_of::<rocprofiler_marker_api_args_t__bindgen_ty_3>() - 8usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t__bindgen_ty_3::message",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t__bindgen_ty_3, message)
        - 0usize];
};
impl Default for rocprofiler_marker_api_args_t__bindgen_ty_3 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_marker_api_args_t__bindgen_ty_4 {
    pub id: roctx_range_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_marker_api_args_t__bindgen_ty_4",
    ][::core::mem::size_of::<rocprofiler_marker_api_args_t__bindgen_ty_4>() - 8usize];
    [
        "Alignment of rocprofiler_marker_api_args_t__bindgen_ty_4",
    ][::core::mem::align_of::<rocprofiler_marker_api_args_t__bindgen_ty_4>() - 8usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t__bindgen_ty_4::id",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t__bindgen_ty_4, id) - 0usize];
};
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_t__bindgen_ty_5 {
    pub message: *const ::core::ffi::c_char,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_marker_api_args_t__bindgen_ty_5",
    ][::core::mem::size_of::<rocprofiler_marker_api_args_t__bindgen_ty_5>() - 8usize];
    [
        "Alignment of rocprofiler_marker_api_args_t__bindgen_ty_5",
    ][::core::mem::align_of::<rocprofiler_marker_api_args_t__bindgen_ty_5>() - 8usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t__bindgen_ty_5::message",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t__bindgen_ty_5, message)
        - 0usize];
};
impl Default for rocprofiler_marker_api_args_t__bindgen_ty_5 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_t__bindgen_ty_6 {
    pub message: *const ::core::ffi::c_char,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_marker_api_args_t__bindgen_ty_6",
    ][::core::mem::size_of::<rocprofiler_marker_api_args_t__bindgen_ty_6>() - 8usize];
    [
        "Alignment of rocprofiler_marker_api_args_t__bindgen_ty_6",
    ][::core::mem::align_of::<rocprofiler_marker_api_args_t__bindgen_ty_6>() - 8usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t__bindgen_ty_6::message",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t__bindgen_ty_6, message)
        - 0usize];
};
impl Default for rocprofiler_marker_api_args_t__bindgen_ty_6 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_marker_api_args_t",
    ][::core::mem::size_of::<rocprofiler_marker_api_args_t>() - 16usize];
    [
        "Alignment of rocprofiler_marker_api_args_t",
    ][::core::mem::align_of::<rocprofiler_marker_api_args_t>() - 8usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t::roctxMarkA",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t, roctxMarkA) - 0usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t::roctxRangePushA",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t, roctxRangePushA) - 0usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t::roctxRangeStartA",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t, roctxRangeStartA) - 0usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t::roctxRangeStop",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t, roctxRangeStop) - 0usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t::roctxThreadRangeA",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t, roctxThreadRangeA)
        - 0usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t::roctxProcessRangeA",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t, roctxProcessRangeA)
        - 0usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t::align_",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t, align_) - 0usize];
    [
        "Offset of field: rocprofiler_marker_api_args_t::raw",
    ][::core::mem::offset_of!(rocprofiler_marker_api_args_t, raw) - 0usize];
};
impl Default for rocprofiler_marker_api_args_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_marker_api_retval_t {
    pub int32_t_retval: i32,
    pub int64_t_retval: i64,
    pub roctx_range_id_t_retval: roctx_range_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_marker_api_retval_t",
    ][::core::mem::size_of::<rocprofiler_marker_api_retval_t>() - 8usize];
    [
        "Alignment of rocprofiler_marker_api_retval_t",
    ][::core::mem::align_of::<rocprofiler_marker_api_retval_t>() - 8usize];
    [
        "Offset of field: rocprofiler_marker_api_retval_t::int32_t_retval",
    ][::core::mem::offset_of!(rocprofiler_marker_api_retval_t, int32_t_retval) - 0usize];
    [
        "Offset of field: rocprofiler_marker_api_retval_t::int64_t_retval",
    ][::core::mem::offset_of!(rocprofiler_marker_api_retval_t, int64_t_retval) - 0usize];
    [
        "Offset of field: rocprofiler_marker_api_retval_t::roctx_range_id_t_retval",
    ][::core::mem::offset_of!(rocprofiler_marker_api_retval_t, roctx_range_id_t_retval)
        - 0usize];
};
impl Default for rocprofiler_marker_api_retval_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_marker_api_data_t {
    pub size: u64,
    pub args: rocprofiler_marker_api_args_t,
    pub retval: rocprofiler_marker_api_retval_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_marker_api_data_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_marker_api_data_t>()
        - 32usize];
    [
        "Alignment of rocprofiler_callback_tracing_marker_api_data_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_marker_api_data_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_marker_api_data_t::size",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_marker_api_data_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_marker_api_data_t::args",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_marker_api_data_t, args)
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_marker_api_data_t::retval",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_marker_api_data_t, retval)
        - 24usize];
};
impl Default for rocprofiler_callback_tracing_marker_api_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_code_object_load_data_t {
    pub size: u64,
    pub code_object_id: u64,
    pub agent_id: rocprofiler_agent_id_t,
    pub hsa_agent: hsa_agent_t,
    pub uri: *const ::core::ffi::c_char,
    pub load_base: u64,
    pub load_size: u64,
    pub load_delta: i64,
    pub storage_type: rocprofiler_code_object_storage_type_t,
    pub __bindgen_anon_1: rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1,
    pub memory_size: u64,
}
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1 {
    pub storage_file: i32,
    pub memory_base: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1",
    ][::core::mem::size_of::<
        rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1,
    >() - 8usize];
    [
        "Alignment of rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1",
    ][::core::mem::align_of::<
        rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1,
    >() - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1::storage_file",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1, storage_file
    ) - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1::memory_base",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1, memory_base
    ) - 0usize];
};
impl Default for rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1 {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_code_object_load_data_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_code_object_load_data_t>()
        - 88usize];
    [
        "Alignment of rocprofiler_callback_tracing_code_object_load_data_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_code_object_load_data_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::size",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_code_object_load_data_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::code_object_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t, code_object_id
    ) - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::agent_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t, agent_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::hsa_agent",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t, hsa_agent
    ) - 24usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::uri",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_code_object_load_data_t, uri)
        - 32usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::load_base",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t, load_base
    ) - 40usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::load_size",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t, load_size
    ) - 48usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::load_delta",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t, load_delta
    ) - 56usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::storage_type",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t, storage_type
    ) - 64usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_load_data_t::memory_size",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_load_data_t, memory_size
    ) - 80usize];
};
impl Default for rocprofiler_callback_tracing_code_object_load_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
    pub size: u64,
    pub kernel_id: u64,
    pub code_object_id: u64,
    pub kernel_name: *const ::core::ffi::c_char,
    pub kernel_object: u64,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_alignment: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
    pub kernel_code_entry_byte_offset: i64,
    pub kernel_address: rocprofiler_address_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t",
    ][::core::mem::size_of::<
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
    >() - 88usize];
    [
        "Alignment of rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t",
    ][::core::mem::align_of::<
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
    >() - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::size",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, size
    ) - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::kernel_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, kernel_id
    ) - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::code_object_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        code_object_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::kernel_name",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        kernel_name
    ) - 24usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::kernel_object",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        kernel_object
    ) - 32usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::kernarg_segment_size",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        kernarg_segment_size
    ) - 40usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::kernarg_segment_alignment",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        kernarg_segment_alignment
    ) - 44usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::group_segment_size",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        group_segment_size
    ) - 48usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::private_segment_size",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        private_segment_size
    ) - 52usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::sgpr_count",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        sgpr_count
    ) - 56usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::arch_vgpr_count",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        arch_vgpr_count
    ) - 60usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::accum_vgpr_count",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        accum_vgpr_count
    ) - 64usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::kernel_code_entry_byte_offset",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        kernel_code_entry_byte_offset
    ) - 72usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t::kernel_address",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
        kernel_address
    ) - 80usize];
};
impl Default for rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t {
    pub size: u64,
    pub host_function_id: u64,
    pub kernel_id: u64,
    pub code_object_id: u64,
    pub host_function: rocprofiler_address_t,
    pub modules: rocprofiler_address_t,
    pub device_function: *const ::core::ffi::c_char,
    pub thread_limit: u32,
    pub thread_ids: rocprofiler_dim3_t,
    pub block_ids: rocprofiler_dim3_t,
    pub block_dims: rocprofiler_dim3_t,
    pub grid_dims: rocprofiler_dim3_t,
    pub workgroup_size: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t",
    ][::core::mem::size_of::<
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
    >() - 120usize];
    [
        "Alignment of rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t",
    ][::core::mem::align_of::<
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
    >() - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::size",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t, size
    ) - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::host_function_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        host_function_id
    ) - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::kernel_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        kernel_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::code_object_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        code_object_id
    ) - 24usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::host_function",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        host_function
    ) - 32usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::modules",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        modules
    ) - 40usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::device_function",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        device_function
    ) - 48usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::thread_limit",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        thread_limit
    ) - 56usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::thread_ids",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        thread_ids
    ) - 60usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::block_ids",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        block_ids
    ) - 72usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::block_dims",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        block_dims
    ) - 84usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::grid_dims",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        grid_dims
    ) - 96usize];
    [
        "Offset of field: rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t::workgroup_size",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
        workgroup_size
    ) - 112usize];
};
impl Default
for rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_hip_stream_data_t {
    pub size: u64,
    pub stream_id: rocprofiler_stream_id_t,
    pub stream_value: rocprofiler_address_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_hip_stream_data_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_hip_stream_data_t>()
        - 24usize];
    [
        "Alignment of rocprofiler_callback_tracing_hip_stream_data_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_hip_stream_data_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_stream_data_t::size",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_hip_stream_data_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_stream_data_t::stream_id",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_hip_stream_data_t, stream_id)
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_stream_data_t::stream_value",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_hip_stream_data_t, stream_value
    ) - 16usize];
};
impl Default for rocprofiler_callback_tracing_hip_stream_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_hip_graph_data_t {
    pub size: u64,
    pub graph_exec_id: rocprofiler_graph_exec_id_t,
    pub graph_exec_value: rocprofiler_address_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_hip_graph_data_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_hip_graph_data_t>() - 24usize];
    [
        "Alignment of rocprofiler_callback_tracing_hip_graph_data_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_hip_graph_data_t>() - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_graph_data_t::size",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_hip_graph_data_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_graph_data_t::graph_exec_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_hip_graph_data_t, graph_exec_id
    ) - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_graph_data_t::graph_exec_value",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_hip_graph_data_t, graph_exec_value
    ) - 16usize];
};
impl Default for rocprofiler_callback_tracing_hip_graph_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_callback_tracing_hip_event_data_t {
    pub size: u64,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub agent_id: rocprofiler_agent_id_t,
    pub queue_id: rocprofiler_queue_id_t,
    pub hip_event_handle: u64,
    pub source_queue_id: rocprofiler_queue_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_hip_event_data_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_hip_event_data_t>() - 56usize];
    [
        "Alignment of rocprofiler_callback_tracing_hip_event_data_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_hip_event_data_t>() - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_event_data_t::size",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_hip_event_data_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_event_data_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_hip_event_data_t, start_timestamp
    ) - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_event_data_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_hip_event_data_t, end_timestamp
    ) - 16usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_event_data_t::agent_id",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_hip_event_data_t, agent_id)
        - 24usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_event_data_t::queue_id",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_hip_event_data_t, queue_id)
        - 32usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_event_data_t::hip_event_handle",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_hip_event_data_t, hip_event_handle
    ) - 40usize];
    [
        "Offset of field: rocprofiler_callback_tracing_hip_event_data_t::source_queue_id",
    ][::core::mem::offset_of!(
        rocprofiler_callback_tracing_hip_event_data_t, source_queue_id
    ) - 48usize];
};
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_hip_event_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_hip_event_operation_t,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub agent_id: rocprofiler_agent_id_t,
    pub queue_id: rocprofiler_queue_id_t,
    pub hip_event_handle: u64,
    pub source_queue_id: rocprofiler_queue_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_buffer_tracing_hip_event_record_t",
    ][::core::mem::size_of::<rocprofiler_buffer_tracing_hip_event_record_t>() - 88usize];
    [
        "Alignment of rocprofiler_buffer_tracing_hip_event_record_t",
    ][::core::mem::align_of::<rocprofiler_buffer_tracing_hip_event_record_t>() - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::size",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_event_record_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::kind",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_event_record_t, kind)
        - 8usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::operation",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_event_record_t, operation)
        - 12usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_event_record_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::thread_id",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_event_record_t, thread_id)
        - 32usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_event_record_t, start_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_event_record_t, end_timestamp
    ) - 48usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::agent_id",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_event_record_t, agent_id)
        - 56usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::queue_id",
    ][::core::mem::offset_of!(rocprofiler_buffer_tracing_hip_event_record_t, queue_id)
        - 64usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::hip_event_handle",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_event_record_t, hip_event_handle
    ) - 72usize];
    [
        "Offset of field: rocprofiler_buffer_tracing_hip_event_record_t::source_queue_id",
    ][::core::mem::offset_of!(
        rocprofiler_buffer_tracing_hip_event_record_t, source_queue_id
    ) - 80usize];
};
impl Default for rocprofiler_buffer_tracing_hip_event_record_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_record_v0_t {
    pub context_id: rocprofiler_context_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub correlation_id: rocprofiler_correlation_id_v0_t,
    pub kind: rocprofiler_callback_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub phase: rocprofiler_callback_phase_t,
    pub payload: *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_record_v0_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_record_v0_t>() - 56usize];
    [
        "Alignment of rocprofiler_callback_tracing_record_v0_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_record_v0_t>() - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v0_t::context_id",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v0_t, context_id)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v0_t::thread_id",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v0_t, thread_id)
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v0_t::correlation_id",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v0_t, correlation_id)
        - 16usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v0_t::kind",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v0_t, kind) - 32usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v0_t::operation",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v0_t, operation)
        - 36usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v0_t::phase",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v0_t, phase)
        - 40usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v0_t::payload",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v0_t, payload)
        - 48usize];
};
impl Default for rocprofiler_callback_tracing_record_v0_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_record_v1_t {
    pub context_id: rocprofiler_context_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub correlation_id: rocprofiler_correlation_id_v1_t,
    pub kind: rocprofiler_callback_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub phase: rocprofiler_callback_phase_t,
    pub payload: *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_callback_tracing_record_v1_t",
    ][::core::mem::size_of::<rocprofiler_callback_tracing_record_v1_t>() - 64usize];
    [
        "Alignment of rocprofiler_callback_tracing_record_v1_t",
    ][::core::mem::align_of::<rocprofiler_callback_tracing_record_v1_t>() - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v1_t::context_id",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v1_t, context_id)
        - 0usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v1_t::thread_id",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v1_t, thread_id)
        - 8usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v1_t::correlation_id",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v1_t, correlation_id)
        - 16usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v1_t::kind",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v1_t, kind) - 40usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v1_t::operation",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v1_t, operation)
        - 44usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v1_t::phase",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v1_t, phase)
        - 48usize];
    [
        "Offset of field: rocprofiler_callback_tracing_record_v1_t::payload",
    ][::core::mem::offset_of!(rocprofiler_callback_tracing_record_v1_t, payload)
        - 56usize];
};
impl Default for rocprofiler_callback_tracing_record_v1_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub const HSA_HEAPTYPE_SYSTEM: HSA_HEAPTYPE = 0;
pub const HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC: HSA_HEAPTYPE = 1;
pub const HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE: HSA_HEAPTYPE = 2;
pub type HSA_HEAPTYPE = ::core::ffi::c_uint;
pub type HSA_MEMORYPROPERTY = u32;
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_agent_mem_bank_t {
    pub heap_type: HSA_HEAPTYPE,
    pub flags: HSA_MEMORYPROPERTY,
    pub width: u32,
    pub mem_clk_max: u32,
    pub size_in_bytes: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_agent_mem_bank_t",
    ][::core::mem::size_of::<rocprofiler_agent_mem_bank_t>() - 24usize];
    [
        "Alignment of rocprofiler_agent_mem_bank_t",
    ][::core::mem::align_of::<rocprofiler_agent_mem_bank_t>() - 8usize];
    [
        "Offset of field: rocprofiler_agent_mem_bank_t::heap_type",
    ][::core::mem::offset_of!(rocprofiler_agent_mem_bank_t, heap_type) - 0usize];
    [
        "Offset of field: rocprofiler_agent_mem_bank_t::flags",
    ][::core::mem::offset_of!(rocprofiler_agent_mem_bank_t, flags) - 4usize];
    [
        "Offset of field: rocprofiler_agent_mem_bank_t::width",
    ][::core::mem::offset_of!(rocprofiler_agent_mem_bank_t, width) - 8usize];
    [
        "Offset of field: rocprofiler_agent_mem_bank_t::mem_clk_max",
    ][::core::mem::offset_of!(rocprofiler_agent_mem_bank_t, mem_clk_max) - 12usize];
    [
        "Offset of field: rocprofiler_agent_mem_bank_t::size_in_bytes",
    ][::core::mem::offset_of!(rocprofiler_agent_mem_bank_t, size_in_bytes) - 16usize];
};
impl Default for rocprofiler_agent_mem_bank_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Debug)]
pub struct rocprofiler_agent_cache_t {
    _unused: [u8; 0],
}
#[repr(C)]
#[derive(Debug)]
pub struct rocprofiler_agent_io_link_t {
    _unused: [u8; 0],
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_agent_v0_t {
    pub size: u64,
    pub id: rocprofiler_agent_id_t,
    pub type_: rocprofiler_agent_type_t,
    pub cpu_cores_count: u32,
    pub simd_count: u32,
    pub mem_banks_count: u32,
    pub caches_count: u32,
    pub io_links_count: u32,
    pub cpu_core_id_base: u32,
    pub simd_id_base: u32,
    pub max_waves_per_simd: u32,
    pub lds_size_in_kb: u32,
    pub gds_size_in_kb: u32,
    pub num_gws: u32,
    pub wave_front_size: u32,
    pub num_xcc: u32,
    pub cu_count: u32,
    pub array_count: u32,
    pub num_shader_banks: u32,
    pub simd_arrays_per_engine: u32,
    pub cu_per_simd_array: u32,
    pub simd_per_cu: u32,
    pub max_slots_scratch_cu: u32,
    pub gfx_target_version: u32,
    pub vendor_id: u16,
    pub device_id: u16,
    pub location_id: u32,
    pub domain: u32,
    pub drm_render_minor: u32,
    pub num_sdma_engines: u32,
    pub num_sdma_xgmi_engines: u32,
    pub num_sdma_queues_per_engine: u32,
    pub num_cp_queues: u32,
    pub max_engine_clk_ccompute: u32,
    pub max_engine_clk_fcompute: u32,
    pub sdma_fw_version: HSA_ENGINE_VERSION,
    pub fw_version: HSA_ENGINE_ID,
    pub capability: HSA_CAPABILITY,
    pub cu_per_engine: u32,
    pub max_waves_per_cu: u32,
    pub family_id: u32,
    pub workgroup_max_size: u32,
    pub grid_max_size: u32,
    pub local_mem_size: u64,
    pub hive_id: u64,
    pub gpu_id: u64,
    pub workgroup_max_dim: rocprofiler_dim3_t,
    pub grid_max_dim: rocprofiler_dim3_t,
    pub mem_banks: *const rocprofiler_agent_mem_bank_t,
    pub caches: *const rocprofiler_agent_cache_t,
    pub io_links: *const rocprofiler_agent_io_link_t,
    pub name: *const ::core::ffi::c_char,
    pub vendor_name: *const ::core::ffi::c_char,
    pub product_name: *const ::core::ffi::c_char,
    pub model_name: *const ::core::ffi::c_char,
    pub node_id: u32,
    pub logical_node_id: i32,
    pub logical_node_type_id: i32,
    pub reserved_292: u32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_agent_v0_t",
    ][::core::mem::size_of::<rocprofiler_agent_v0_t>() - 296usize];
    [
        "Alignment of rocprofiler_agent_v0_t",
    ][::core::mem::align_of::<rocprofiler_agent_v0_t>() - 8usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::size",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, size) - 0usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, id) - 8usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::type_",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, type_) - 16usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::cpu_cores_count",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, cpu_cores_count) - 20usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::simd_count",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, simd_count) - 24usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::mem_banks_count",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, mem_banks_count) - 28usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::caches_count",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, caches_count) - 32usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::io_links_count",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, io_links_count) - 36usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::cpu_core_id_base",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, cpu_core_id_base) - 40usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::simd_id_base",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, simd_id_base) - 44usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::max_waves_per_simd",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, max_waves_per_simd) - 48usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::lds_size_in_kb",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, lds_size_in_kb) - 52usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::gds_size_in_kb",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, gds_size_in_kb) - 56usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::num_gws",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, num_gws) - 60usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::wave_front_size",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, wave_front_size) - 64usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::num_xcc",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, num_xcc) - 68usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::cu_count",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, cu_count) - 72usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::array_count",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, array_count) - 76usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::num_shader_banks",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, num_shader_banks) - 80usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::simd_arrays_per_engine",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, simd_arrays_per_engine) - 84usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::cu_per_simd_array",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, cu_per_simd_array) - 88usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::simd_per_cu",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, simd_per_cu) - 92usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::max_slots_scratch_cu",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, max_slots_scratch_cu) - 96usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::gfx_target_version",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, gfx_target_version) - 100usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::vendor_id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, vendor_id) - 104usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::device_id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, device_id) - 106usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::location_id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, location_id) - 108usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::domain",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, domain) - 112usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::drm_render_minor",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, drm_render_minor) - 116usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::num_sdma_engines",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, num_sdma_engines) - 120usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::num_sdma_xgmi_engines",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, num_sdma_xgmi_engines) - 124usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::num_sdma_queues_per_engine",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, num_sdma_queues_per_engine)
        - 128usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::num_cp_queues",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, num_cp_queues) - 132usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::max_engine_clk_ccompute",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, max_engine_clk_ccompute)
        - 136usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::max_engine_clk_fcompute",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, max_engine_clk_fcompute)
        - 140usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::sdma_fw_version",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, sdma_fw_version) - 144usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::fw_version",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, fw_version) - 148usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::capability",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, capability) - 152usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::cu_per_engine",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, cu_per_engine) - 156usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::max_waves_per_cu",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, max_waves_per_cu) - 160usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::family_id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, family_id) - 164usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::workgroup_max_size",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, workgroup_max_size) - 168usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::grid_max_size",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, grid_max_size) - 172usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::local_mem_size",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, local_mem_size) - 176usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::hive_id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, hive_id) - 184usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::gpu_id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, gpu_id) - 192usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::workgroup_max_dim",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, workgroup_max_dim) - 200usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::grid_max_dim",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, grid_max_dim) - 212usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::mem_banks",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, mem_banks) - 224usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::caches",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, caches) - 232usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::io_links",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, io_links) - 240usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::name",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, name) - 248usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::vendor_name",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, vendor_name) - 256usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::product_name",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, product_name) - 264usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::model_name",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, model_name) - 272usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::node_id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, node_id) - 280usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::logical_node_id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, logical_node_id) - 284usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::logical_node_type_id",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, logical_node_type_id) - 288usize];
    [
        "Offset of field: rocprofiler_agent_v0_t::reserved_292",
    ][::core::mem::offset_of!(rocprofiler_agent_v0_t, reserved_292) - 292usize];
};
impl Default for rocprofiler_agent_v0_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub type rocprofiler_client_finalize_v0_t = ::core::option::Option<
    unsafe extern "C" fn(client_id: rocprofiler_client_id_v0_t),
>;
pub type rocprofiler_client_finalize_v1_t = ::core::option::Option<
    unsafe extern "C" fn(client_id: rocprofiler_client_id_v1_t),
>;
pub type rocprofiler_client_finalize_any_t = ::core::option::Option<
    unsafe extern "C" fn(),
>;
pub type rocprofiler_tool_initialize_t = ::core::option::Option<
    unsafe extern "C" fn(
        finalize_func: rocprofiler_client_finalize_any_t,
        tool_data: *mut ::core::ffi::c_void,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_tool_finalize_t = ::core::option::Option<
    unsafe extern "C" fn(tool_data: *mut ::core::ffi::c_void),
>;
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_tool_configure_result_t {
    pub size: usize,
    pub initialize: rocprofiler_tool_initialize_t,
    pub finalize: rocprofiler_tool_finalize_t,
    pub tool_data: *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_tool_configure_result_t",
    ][::core::mem::size_of::<rocprofiler_tool_configure_result_t>() - 32usize];
    [
        "Alignment of rocprofiler_tool_configure_result_t",
    ][::core::mem::align_of::<rocprofiler_tool_configure_result_t>() - 8usize];
    [
        "Offset of field: rocprofiler_tool_configure_result_t::size",
    ][::core::mem::offset_of!(rocprofiler_tool_configure_result_t, size) - 0usize];
    [
        "Offset of field: rocprofiler_tool_configure_result_t::initialize",
    ][::core::mem::offset_of!(rocprofiler_tool_configure_result_t, initialize) - 8usize];
    [
        "Offset of field: rocprofiler_tool_configure_result_t::finalize",
    ][::core::mem::offset_of!(rocprofiler_tool_configure_result_t, finalize) - 16usize];
    [
        "Offset of field: rocprofiler_tool_configure_result_t::tool_data",
    ][::core::mem::offset_of!(rocprofiler_tool_configure_result_t, tool_data) - 24usize];
};
impl Default for rocprofiler_tool_configure_result_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub type rocprofiler_configure_v0_fn = ::core::option::Option<
    unsafe extern "C" fn(
        version: u32,
        runtime_version: *const ::core::ffi::c_char,
        priority: u32,
        client_id: *mut rocprofiler_client_id_v0_t,
    ) -> *mut rocprofiler_tool_configure_result_t,
>;
pub type rocprofiler_configure_v1_fn = ::core::option::Option<
    unsafe extern "C" fn(
        version: u32,
        runtime_version: *const ::core::ffi::c_char,
        priority: u32,
        client_id: *mut rocprofiler_client_id_v1_t,
    ) -> *mut rocprofiler_tool_configure_result_t,
>;
pub type rocprofiler_configure_any_fn = ::core::option::Option<
    unsafe extern "C" fn(
        version: u32,
        runtime_version: *const ::core::ffi::c_char,
        priority: u32,
        client_id: *mut ::core::ffi::c_void,
    ) -> *mut rocprofiler_tool_configure_result_t,
>;
pub type rocprofiler_client_detach_t = ::core::option::Option<
    unsafe extern "C" fn(client_id: rocprofiler_client_id_v1_t),
>;
pub type rocprofiler_tool_attach_t = ::core::option::Option<
    unsafe extern "C" fn(
        detach_func: rocprofiler_client_detach_t,
        context_ids: *mut rocprofiler_context_id_t,
        context_ids_length: u64,
        tool_data: *mut ::core::ffi::c_void,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_tool_detach_t = ::core::option::Option<
    unsafe extern "C" fn(tool_data: *mut ::core::ffi::c_void),
>;
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_tool_configure_attach_result_t {
    pub size: usize,
    pub tool_attach: rocprofiler_tool_attach_t,
    pub tool_detach: rocprofiler_tool_detach_t,
    pub tool_data: *mut ::core::ffi::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_tool_configure_attach_result_t",
    ][::core::mem::size_of::<rocprofiler_tool_configure_attach_result_t>() - 32usize];
    [
        "Alignment of rocprofiler_tool_configure_attach_result_t",
    ][::core::mem::align_of::<rocprofiler_tool_configure_attach_result_t>() - 8usize];
    [
        "Offset of field: rocprofiler_tool_configure_attach_result_t::size",
    ][::core::mem::offset_of!(rocprofiler_tool_configure_attach_result_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_tool_configure_attach_result_t::tool_attach",
    ][::core::mem::offset_of!(rocprofiler_tool_configure_attach_result_t, tool_attach)
        - 8usize];
    [
        "Offset of field: rocprofiler_tool_configure_attach_result_t::tool_detach",
    ][::core::mem::offset_of!(rocprofiler_tool_configure_attach_result_t, tool_detach)
        - 16usize];
    [
        "Offset of field: rocprofiler_tool_configure_attach_result_t::tool_data",
    ][::core::mem::offset_of!(rocprofiler_tool_configure_attach_result_t, tool_data)
        - 24usize];
};
impl Default for rocprofiler_tool_configure_attach_result_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub type rocprofiler_configure_attach_fn = ::core::option::Option<
    unsafe extern "C" fn(
        version: u32,
        runtime_version: *const ::core::ffi::c_char,
        priority: u32,
        client_id: *mut rocprofiler_client_id_v1_t,
    ) -> *mut rocprofiler_tool_configure_attach_result_t,
>;
pub type rocprofiler_buffer_tracing_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        context: rocprofiler_context_id_t,
        buffer_id: rocprofiler_buffer_id_t,
        headers: *mut *mut rocprofiler_record_header_t,
        num_headers: usize,
        data: *mut ::core::ffi::c_void,
        drop_count: u64,
    ),
>;
pub type rocprofiler_callback_tracing_cb_v0_t = ::core::option::Option<
    unsafe extern "C" fn(
        record: rocprofiler_callback_tracing_record_v0_t,
        user_data: *mut rocprofiler_user_data_t,
        callback_data: *mut ::core::ffi::c_void,
    ),
>;
pub type rocprofiler_callback_tracing_cb_v1_t = ::core::option::Option<
    unsafe extern "C" fn(
        record: rocprofiler_callback_tracing_record_v1_t,
        user_data: *mut rocprofiler_user_data_t,
        callback_data: *mut ::core::ffi::c_void,
    ),
>;
pub type rocprofiler_callback_tracing_cb_any_t = ::core::option::Option<
    unsafe extern "C" fn(),
>;
pub type rocprofiler_query_available_agents_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        version: rocprofiler_agent_version_t,
        agents: *mut *const ::core::ffi::c_void,
        num_agents: usize,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_external_correlation_id_request_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        thread_id: rocprofiler_thread_id_t,
        context_id: rocprofiler_context_id_t,
        kind: rocprofiler_external_correlation_id_request_kind_t,
        operation: rocprofiler_tracing_operation_t,
        internal_corr_id_value: u64,
        external_corr_id_value: *mut rocprofiler_user_data_t,
        data: *mut ::core::ffi::c_void,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_buffer_tracing_kind_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_buffer_tracing_kind_t,
        data: *mut ::core::ffi::c_void,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_buffer_tracing_kind_operation_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_buffer_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        data: *mut ::core::ffi::c_void,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_callback_tracing_kind_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_callback_tracing_kind_t,
        data: *mut ::core::ffi::c_void,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_callback_tracing_kind_operation_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_callback_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        data: *mut ::core::ffi::c_void,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_callback_tracing_operation_args_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_callback_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        arg_number: u32,
        arg_value_addr: *const ::core::ffi::c_void,
        arg_indirection_count: i32,
        arg_type: *const ::core::ffi::c_char,
        arg_name: *const ::core::ffi::c_char,
        arg_value_str: *const ::core::ffi::c_char,
        arg_dereference_count: i32,
        data: *mut ::core::ffi::c_void,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_buffer_tracing_operation_args_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_buffer_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        arg_number: u32,
        arg_value_addr: *const ::core::ffi::c_void,
        arg_indirection_count: i32,
        arg_type: *const ::core::ffi::c_char,
        arg_name: *const ::core::ffi::c_char,
        arg_value_str: *const ::core::ffi::c_char,
        data: *mut ::core::ffi::c_void,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_create_context_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: *mut rocprofiler_context_id_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_start_context_fn = ::core::option::Option<
    unsafe extern "C" fn(context_id: rocprofiler_context_id_t) -> rocprofiler_status_t,
>;
pub type rocprofiler_stop_context_fn = ::core::option::Option<
    unsafe extern "C" fn(context_id: rocprofiler_context_id_t) -> rocprofiler_status_t,
>;
pub type rocprofiler_context_is_active_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        status: *mut ::core::ffi::c_int,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_context_is_valid_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        status: *mut ::core::ffi::c_int,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_create_buffer_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context: rocprofiler_context_id_t,
        size: usize,
        watermark: usize,
        policy: rocprofiler_buffer_policy_t,
        callback: rocprofiler_buffer_tracing_cb_t,
        callback_data: *mut ::core::ffi::c_void,
        buffer_id: *mut rocprofiler_buffer_id_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_flush_buffer_fn = ::core::option::Option<
    unsafe extern "C" fn(buffer_id: rocprofiler_buffer_id_t) -> rocprofiler_status_t,
>;
pub type rocprofiler_destroy_buffer_fn = ::core::option::Option<
    unsafe extern "C" fn(buffer_id: rocprofiler_buffer_id_t) -> rocprofiler_status_t,
>;
pub type rocprofiler_configure_buffer_tracing_service_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        kind: rocprofiler_buffer_tracing_kind_t,
        operations: *const rocprofiler_tracing_operation_t,
        operations_count: usize,
        buffer_id: rocprofiler_buffer_id_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_configure_callback_tracing_service_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        kind: rocprofiler_callback_tracing_kind_t,
        operations: *const rocprofiler_tracing_operation_t,
        operations_count: usize,
        callback: rocprofiler_callback_tracing_cb_any_t,
        callback_args: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_configure_external_correlation_id_request_service_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        kinds: *const rocprofiler_external_correlation_id_request_kind_t,
        kinds_count: usize,
        callback: rocprofiler_external_correlation_id_request_cb_t,
        callback_args: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_create_callback_thread_fn = ::core::option::Option<
    unsafe extern "C" fn(
        cb_thread_id: *mut rocprofiler_callback_thread_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_assign_callback_thread_fn = ::core::option::Option<
    unsafe extern "C" fn(
        buffer_id: rocprofiler_buffer_id_t,
        cb_thread_id: rocprofiler_callback_thread_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_internal_thread_library_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        lib: rocprofiler_runtime_library_t,
        data: *mut ::core::ffi::c_void,
    ),
>;
pub type rocprofiler_at_internal_thread_create_fn = ::core::option::Option<
    unsafe extern "C" fn(
        precreate: rocprofiler_internal_thread_library_cb_t,
        postcreate: rocprofiler_internal_thread_library_cb_t,
        libs: ::core::ffi::c_int,
        data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_query_available_agents_fn = ::core::option::Option<
    unsafe extern "C" fn(
        version: rocprofiler_agent_version_t,
        callback: rocprofiler_query_available_agents_cb_t,
        agent_size: usize,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_get_timestamp_fn = ::core::option::Option<
    unsafe extern "C" fn(ts: *mut rocprofiler_timestamp_t) -> rocprofiler_status_t,
>;
pub type rocprofiler_get_thread_id_fn = ::core::option::Option<
    unsafe extern "C" fn(tid: *mut rocprofiler_thread_id_t) -> rocprofiler_status_t,
>;
pub type rocprofiler_get_status_name_fn = ::core::option::Option<
    unsafe extern "C" fn(status: rocprofiler_status_t) -> *const ::core::ffi::c_char,
>;
pub type rocprofiler_get_status_string_fn = ::core::option::Option<
    unsafe extern "C" fn(status: rocprofiler_status_t) -> *const ::core::ffi::c_char,
>;
pub type rocprofiler_get_version_fn = ::core::option::Option<
    unsafe extern "C" fn(
        major: *mut u32,
        minor: *mut u32,
        patch: *mut u32,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_get_version_triplet_fn = ::core::option::Option<
    unsafe extern "C" fn(
        info: *mut rocprofiler_version_triplet_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_set_api_table_fn = ::core::option::Option<
    unsafe extern "C" fn(
        name: *const ::core::ffi::c_char,
        lib_version: u64,
        lib_instance: u64,
        tables: *mut *mut ::core::ffi::c_void,
        num_tables: u64,
    ) -> ::core::ffi::c_int,
>;
pub type rocprofiler_is_initialized_fn = ::core::option::Option<
    unsafe extern "C" fn(status: *mut ::core::ffi::c_int) -> rocprofiler_status_t,
>;
pub type rocprofiler_is_finalized_fn = ::core::option::Option<
    unsafe extern "C" fn(status: *mut ::core::ffi::c_int) -> rocprofiler_status_t,
>;
pub type rocprofiler_force_configure_fn = ::core::option::Option<
    unsafe extern "C" fn(
        configure_func: rocprofiler_configure_any_fn,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_query_buffer_tracing_kind_name_fn = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_buffer_tracing_kind_t,
        name: *mut *const ::core::ffi::c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_query_buffer_tracing_kind_operation_name_fn = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_buffer_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        name: *mut *const ::core::ffi::c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_iterate_buffer_tracing_kinds_fn = ::core::option::Option<
    unsafe extern "C" fn(
        callback: rocprofiler_buffer_tracing_kind_cb_t,
        data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_iterate_buffer_tracing_kind_operations_fn = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_buffer_tracing_kind_t,
        callback: rocprofiler_buffer_tracing_kind_operation_cb_t,
        data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_query_callback_tracing_kind_name_fn = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_callback_tracing_kind_t,
        name: *mut *const ::core::ffi::c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_query_callback_tracing_kind_operation_name_fn = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_callback_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        name: *mut *const ::core::ffi::c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_iterate_callback_tracing_kinds_fn = ::core::option::Option<
    unsafe extern "C" fn(
        callback: rocprofiler_callback_tracing_kind_cb_t,
        data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_iterate_callback_tracing_kind_operations_fn = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_callback_tracing_kind_t,
        callback: rocprofiler_callback_tracing_kind_operation_cb_t,
        data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_query_external_correlation_id_request_kind_name_fn = ::core::option::Option<
    unsafe extern "C" fn(
        kind: rocprofiler_external_correlation_id_request_kind_t,
        name: *mut *const ::core::ffi::c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_iterate_callback_tracing_kind_operation_args_v0_fn = ::core::option::Option<
    unsafe extern "C" fn(
        record: rocprofiler_callback_tracing_record_v0_t,
        callback: rocprofiler_callback_tracing_operation_args_cb_t,
        max_dereference_count: i32,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_iterate_callback_tracing_kind_operation_args_v1_fn = ::core::option::Option<
    unsafe extern "C" fn(
        record: rocprofiler_callback_tracing_record_v1_t,
        callback: rocprofiler_callback_tracing_operation_args_cb_t,
        max_dereference_count: i32,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_iterate_buffer_tracing_record_args_fn = ::core::option::Option<
    unsafe extern "C" fn(
        record: rocprofiler_record_header_t,
        callback: rocprofiler_buffer_tracing_operation_args_cb_t,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_push_external_correlation_id_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context: rocprofiler_context_id_t,
        tid: rocprofiler_thread_id_t,
        external_correlation_id: rocprofiler_user_data_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_pop_external_correlation_id_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context: rocprofiler_context_id_t,
        tid: rocprofiler_thread_id_t,
        external_correlation_id: *mut rocprofiler_user_data_t,
    ) -> rocprofiler_status_t,
>;
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_counter_id_t {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_counter_id_t",
    ][::core::mem::size_of::<rocprofiler_counter_id_t>() - 8usize];
    [
        "Alignment of rocprofiler_counter_id_t",
    ][::core::mem::align_of::<rocprofiler_counter_id_t>() - 8usize];
    [
        "Offset of field: rocprofiler_counter_id_t::handle",
    ][::core::mem::offset_of!(rocprofiler_counter_id_t, handle) - 0usize];
};
#[repr(C)]
#[derive(Default, Copy, Clone)]
pub struct rocprofiler_counter_config_id_t {
    pub handle: u64,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_counter_config_id_t",
    ][::core::mem::size_of::<rocprofiler_counter_config_id_t>() - 8usize];
    [
        "Alignment of rocprofiler_counter_config_id_t",
    ][::core::mem::align_of::<rocprofiler_counter_config_id_t>() - 8usize];
    [
        "Offset of field: rocprofiler_counter_config_id_t::handle",
    ][::core::mem::offset_of!(rocprofiler_counter_config_id_t, handle) - 0usize];
};
pub type rocprofiler_counter_instance_id_t = u64;
pub type rocprofiler_counter_dimension_id_t = u64;
pub const ROCPROFILER_COUNTER_RECORD_NONE: rocprofiler_counter_record_kind_t = 0;
pub const ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER: rocprofiler_counter_record_kind_t = 1;
pub const ROCPROFILER_COUNTER_RECORD_VALUE: rocprofiler_counter_record_kind_t = 2;
pub type rocprofiler_counter_record_kind_t = ::core::ffi::c_uint;
pub const ROCPROFILER_COUNTER_INFO_VERSION_NONE: rocprofiler_counter_info_version_id_t = 0;
pub const ROCPROFILER_COUNTER_INFO_VERSION_0: rocprofiler_counter_info_version_id_t = 1;
pub type rocprofiler_counter_info_version_id_t = ::core::ffi::c_uint;
pub const ROCPROFILER_COUNTER_FLAG_NONE: rocprofiler_counter_flag_t = 0;
pub const ROCPROFILER_COUNTER_FLAG_ASYNC: rocprofiler_counter_flag_t = 1;
pub type rocprofiler_counter_flag_t = ::core::ffi::c_uint;
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_counter_info_v0_t {
    pub id: rocprofiler_counter_id_t,
    pub name: *const ::core::ffi::c_char,
    pub description: *const ::core::ffi::c_char,
    pub block: *const ::core::ffi::c_char,
    pub expression: *const ::core::ffi::c_char,
    pub flags: u8,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_counter_info_v0_t",
    ][::core::mem::size_of::<rocprofiler_counter_info_v0_t>() - 48usize];
    [
        "Alignment of rocprofiler_counter_info_v0_t",
    ][::core::mem::align_of::<rocprofiler_counter_info_v0_t>() - 8usize];
    [
        "Offset of field: rocprofiler_counter_info_v0_t::id",
    ][::core::mem::offset_of!(rocprofiler_counter_info_v0_t, id) - 0usize];
    [
        "Offset of field: rocprofiler_counter_info_v0_t::name",
    ][::core::mem::offset_of!(rocprofiler_counter_info_v0_t, name) - 8usize];
    [
        "Offset of field: rocprofiler_counter_info_v0_t::description",
    ][::core::mem::offset_of!(rocprofiler_counter_info_v0_t, description) - 16usize];
    [
        "Offset of field: rocprofiler_counter_info_v0_t::block",
    ][::core::mem::offset_of!(rocprofiler_counter_info_v0_t, block) - 24usize];
    [
        "Offset of field: rocprofiler_counter_info_v0_t::expression",
    ][::core::mem::offset_of!(rocprofiler_counter_info_v0_t, expression) - 32usize];
    [
        "Offset of field: rocprofiler_counter_info_v0_t::flags",
    ][::core::mem::offset_of!(rocprofiler_counter_info_v0_t, flags) - 40usize];
};
impl Default for rocprofiler_counter_info_v0_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_counter_record_dimension_info_t {
    pub name: *const ::core::ffi::c_char,
    pub instance_size: usize,
    pub id: rocprofiler_counter_dimension_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_counter_record_dimension_info_t",
    ][::core::mem::size_of::<rocprofiler_counter_record_dimension_info_t>() - 24usize];
    [
        "Alignment of rocprofiler_counter_record_dimension_info_t",
    ][::core::mem::align_of::<rocprofiler_counter_record_dimension_info_t>() - 8usize];
    [
        "Offset of field: rocprofiler_counter_record_dimension_info_t::name",
    ][::core::mem::offset_of!(rocprofiler_counter_record_dimension_info_t, name)
        - 0usize];
    [
        "Offset of field: rocprofiler_counter_record_dimension_info_t::instance_size",
    ][::core::mem::offset_of!(rocprofiler_counter_record_dimension_info_t, instance_size)
        - 8usize];
    [
        "Offset of field: rocprofiler_counter_record_dimension_info_t::id",
    ][::core::mem::offset_of!(rocprofiler_counter_record_dimension_info_t, id)
        - 16usize];
};
impl Default for rocprofiler_counter_record_dimension_info_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_counter_record_v0_t {
    pub id: rocprofiler_counter_instance_id_t,
    pub counter_value: f64,
    pub dispatch_id: rocprofiler_dispatch_id_t,
    pub user_data: rocprofiler_user_data_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_counter_record_v0_t",
    ][::core::mem::size_of::<rocprofiler_counter_record_v0_t>() - 32usize];
    [
        "Alignment of rocprofiler_counter_record_v0_t",
    ][::core::mem::align_of::<rocprofiler_counter_record_v0_t>() - 8usize];
    [
        "Offset of field: rocprofiler_counter_record_v0_t::id",
    ][::core::mem::offset_of!(rocprofiler_counter_record_v0_t, id) - 0usize];
    [
        "Offset of field: rocprofiler_counter_record_v0_t::counter_value",
    ][::core::mem::offset_of!(rocprofiler_counter_record_v0_t, counter_value) - 8usize];
    [
        "Offset of field: rocprofiler_counter_record_v0_t::dispatch_id",
    ][::core::mem::offset_of!(rocprofiler_counter_record_v0_t, dispatch_id) - 16usize];
    [
        "Offset of field: rocprofiler_counter_record_v0_t::user_data",
    ][::core::mem::offset_of!(rocprofiler_counter_record_v0_t, user_data) - 24usize];
};
impl Default for rocprofiler_counter_record_v0_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_counter_record_v1_t {
    pub id: rocprofiler_counter_instance_id_t,
    pub counter_value: f64,
    pub dispatch_id: rocprofiler_dispatch_id_t,
    pub user_data: rocprofiler_user_data_t,
    pub agent_id: rocprofiler_agent_id_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_counter_record_v1_t",
    ][::core::mem::size_of::<rocprofiler_counter_record_v1_t>() - 40usize];
    [
        "Alignment of rocprofiler_counter_record_v1_t",
    ][::core::mem::align_of::<rocprofiler_counter_record_v1_t>() - 8usize];
    [
        "Offset of field: rocprofiler_counter_record_v1_t::id",
    ][::core::mem::offset_of!(rocprofiler_counter_record_v1_t, id) - 0usize];
    [
        "Offset of field: rocprofiler_counter_record_v1_t::counter_value",
    ][::core::mem::offset_of!(rocprofiler_counter_record_v1_t, counter_value) - 8usize];
    [
        "Offset of field: rocprofiler_counter_record_v1_t::dispatch_id",
    ][::core::mem::offset_of!(rocprofiler_counter_record_v1_t, dispatch_id) - 16usize];
    [
        "Offset of field: rocprofiler_counter_record_v1_t::user_data",
    ][::core::mem::offset_of!(rocprofiler_counter_record_v1_t, user_data) - 24usize];
    [
        "Offset of field: rocprofiler_counter_record_v1_t::agent_id",
    ][::core::mem::offset_of!(rocprofiler_counter_record_v1_t, agent_id) - 32usize];
};
impl Default for rocprofiler_counter_record_v1_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_dispatch_counting_service_data_t {
    pub size: u64,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_dispatch_counting_service_data_t",
    ][::core::mem::size_of::<rocprofiler_dispatch_counting_service_data_t>() - 168usize];
    [
        "Alignment of rocprofiler_dispatch_counting_service_data_t",
    ][::core::mem::align_of::<rocprofiler_dispatch_counting_service_data_t>() - 8usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_data_t::size",
    ][::core::mem::offset_of!(rocprofiler_dispatch_counting_service_data_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_data_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_dispatch_counting_service_data_t, correlation_id
    ) - 8usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_data_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_dispatch_counting_service_data_t, start_timestamp
    ) - 24usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_data_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_dispatch_counting_service_data_t, end_timestamp
    ) - 32usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_data_t::dispatch_info",
    ][::core::mem::offset_of!(
        rocprofiler_dispatch_counting_service_data_t, dispatch_info
    ) - 40usize];
};
impl Default for rocprofiler_dispatch_counting_service_data_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_dispatch_counting_service_record_t {
    pub size: u64,
    pub num_records: u64,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of rocprofiler_dispatch_counting_service_record_t",
    ][::core::mem::size_of::<rocprofiler_dispatch_counting_service_record_t>()
        - 176usize];
    [
        "Alignment of rocprofiler_dispatch_counting_service_record_t",
    ][::core::mem::align_of::<rocprofiler_dispatch_counting_service_record_t>()
        - 8usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_record_t::size",
    ][::core::mem::offset_of!(rocprofiler_dispatch_counting_service_record_t, size)
        - 0usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_record_t::num_records",
    ][::core::mem::offset_of!(
        rocprofiler_dispatch_counting_service_record_t, num_records
    ) - 8usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_record_t::correlation_id",
    ][::core::mem::offset_of!(
        rocprofiler_dispatch_counting_service_record_t, correlation_id
    ) - 16usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_record_t::start_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_dispatch_counting_service_record_t, start_timestamp
    ) - 32usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_record_t::end_timestamp",
    ][::core::mem::offset_of!(
        rocprofiler_dispatch_counting_service_record_t, end_timestamp
    ) - 40usize];
    [
        "Offset of field: rocprofiler_dispatch_counting_service_record_t::dispatch_info",
    ][::core::mem::offset_of!(
        rocprofiler_dispatch_counting_service_record_t, dispatch_info
    ) - 48usize];
};
impl Default for rocprofiler_dispatch_counting_service_record_t {
    fn default() -> Self {
        let mut s = ::core::mem::MaybeUninit::<Self>::uninit();
        unsafe {
            ::core::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub type rocprofiler_dispatch_counting_service_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        dispatch_data: rocprofiler_dispatch_counting_service_data_t,
        config: *mut rocprofiler_counter_config_id_t,
        user_data: *mut rocprofiler_user_data_t,
        callback_data_args: *mut ::core::ffi::c_void,
    ),
>;
pub type rocprofiler_configure_buffer_dispatch_counting_service_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        buffer_id: rocprofiler_buffer_id_t,
        callback: rocprofiler_dispatch_counting_service_cb_t,
        callback_data_args: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_create_counter_config_fn = ::core::option::Option<
    unsafe extern "C" fn(
        agent_id: rocprofiler_agent_id_t,
        counters_list: *mut rocprofiler_counter_id_t,
        counters_count: usize,
        config_id: *mut rocprofiler_counter_config_id_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_destroy_counter_config_fn = ::core::option::Option<
    unsafe extern "C" fn(
        config_id: rocprofiler_counter_config_id_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_available_counters_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        agent_id: rocprofiler_agent_id_t,
        counters: *mut rocprofiler_counter_id_t,
        num_counters: usize,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_iterate_agent_supported_counters_fn = ::core::option::Option<
    unsafe extern "C" fn(
        agent_id: rocprofiler_agent_id_t,
        cb: rocprofiler_available_counters_cb_t,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_query_counter_info_fn = ::core::option::Option<
    unsafe extern "C" fn(
        counter_id: rocprofiler_counter_id_t,
        version: rocprofiler_counter_info_version_id_t,
        info: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_available_dimensions_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        id: rocprofiler_counter_id_t,
        dim_info: *const rocprofiler_counter_record_dimension_info_t,
        num_dims: usize,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_iterate_counter_dimensions_fn = ::core::option::Option<
    unsafe extern "C" fn(
        id: rocprofiler_counter_id_t,
        info_cb: rocprofiler_available_dimensions_cb_t,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_query_record_counter_id_fn = ::core::option::Option<
    unsafe extern "C" fn(
        id: rocprofiler_counter_instance_id_t,
        counter_id: *mut rocprofiler_counter_id_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_device_counting_agent_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        config_id: rocprofiler_counter_config_id_t,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_device_counting_service_cb_t = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        agent_id: rocprofiler_agent_id_t,
        set_config: rocprofiler_device_counting_agent_cb_t,
        user_data: *mut ::core::ffi::c_void,
    ),
>;
pub type rocprofiler_configure_device_counting_service_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        buffer_id: rocprofiler_buffer_id_t,
        agent_id: rocprofiler_agent_id_t,
        cb: rocprofiler_device_counting_service_cb_t,
        user_data: *mut ::core::ffi::c_void,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_sample_device_counting_service_v1_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        user_data: rocprofiler_user_data_t,
        flags: rocprofiler_counter_flag_t,
        output_records: *mut rocprofiler_counter_record_v1_t,
        rec_count: *mut usize,
    ) -> rocprofiler_status_t,
>;
pub type rocprofiler_sample_device_counting_service_v0_fn = ::core::option::Option<
    unsafe extern "C" fn(
        context_id: rocprofiler_context_id_t,
        user_data: rocprofiler_user_data_t,
        flags: rocprofiler_counter_flag_t,
    ) -> rocprofiler_status_t,
>;
