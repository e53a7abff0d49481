/*
 * rocprof_xplane_sdk.h — rocprof-xplane's own declaration of the subset of the
 * rocprofiler-sdk C ABI that a tracing tool and our simulated runtime need.
 *
 * Written by the rocprof-xplane developers from layout facts (sizes, field
 * order, enumerator values) gathered in the project's ABI reference notes; it
 * is NOT a copy of the upstream headers. Target: x86-64, LP64. Conformance with
 * real SDK headers is checked by ci/abi-check.sh (see docs/abi.md).
 *
 * Conventions
 *  - Structs whose layout differs between SDK 0.x (ROCm 6.2–6.4) and 1.x
 *    (ROCm 7.x) exist twice, with a `_v0_t` / `_v1_t` suffix. A tool selects
 *    the family from the `version` argument of rocprofiler_configure:
 *    version >= 10000 ⇒ v1, otherwise v0.
 *  - Only enumerator values that are identical in every SDK version we know of
 *    (0.4.0 … 1.2.1 and the newest development copy) are declared. Buffer
 *    tracing kinds >= 12, callback tracing kinds >= 14, status codes >= 13 and
 *    every HIP runtime API operation id are NOT declared on purpose: they moved
 *    between versions (or depend on the HIP headers the SDK was built with), so
 *    they must be resolved by name at run time through the
 *    rocprofiler_iterate_* / rocprofiler_query_*_name functions.
 *  - No function prototypes: the tool resolves every SDK function with
 *    dlsym(RTLD_DEFAULT, name) so one library works with both sonames
 *    (librocprofiler-sdk.so.0 and .so.1). Only function-pointer typedefs named
 *    `<function>_fn` are declared; the simulator's Rust definitions can be
 *    type-checked against them.
 */
#ifndef ROCPROF_XPLANE_SDK_H
#define ROCPROF_XPLANE_SDK_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------- */
/* Scalar typedefs                                                            */
/* ------------------------------------------------------------------------- */

typedef uint64_t rocprofiler_timestamp_t; /* ns, CLOCK_BOOTTIME */
typedef uint64_t rocprofiler_thread_id_t; /* Linux TID */
typedef int32_t rocprofiler_tracing_operation_t; /* uint32_t in 0.4.0; same size */
typedef uint64_t rocprofiler_kernel_id_t;
typedef uint64_t rocprofiler_dispatch_id_t;

/* hsakmt bit-field unions, 4 bytes each; read as plain words. */
typedef uint32_t HSA_ENGINE_VERSION;
typedef uint32_t HSA_ENGINE_ID;
typedef uint32_t HSA_CAPABILITY;

/* HIP handle and value types used inside the HIP argument union. Handles are
 * opaque pointers; enums are 4 bytes. */
typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;
typedef struct ihipModuleSymbol_t* hipFunction_t;
typedef struct hipGraphExec* hipGraphExec_t;
typedef uint32_t hipMemcpyKind;
typedef int32_t hipError_t;

typedef struct hipChannelFormatDesc {
    int32_t x;
    int32_t y;
    int32_t z;
    int32_t w;
    int32_t f; /* hipChannelFormatKind */
} hipChannelFormatDesc;

/* By-value argument types of hipMemset3DAsync (32 and 24 bytes). */
typedef struct hipPitchedPtr {
    void* ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
} hipPitchedPtr;
typedef struct hipExtent {
    size_t width;
    size_t height;
    size_t depth;
} hipExtent;

/* hipLaunchKernelExC's config (HIP's hipLaunchConfig_t; CUDA's cudaLaunchConfig_t layout):
 * the launch's stream is read through this pointer at ENTER. */
typedef struct hipLaunchConfig_t {
    uint32_t gridDim[3]; /* dim3 */
    uint32_t blockDim[3];
    size_t dynamicSmemBytes;
    hipStream_t stream;
    void* attrs; /* hipLaunchAttribute* */
    uint32_t numAttrs;
} hipLaunchConfig_t;

/* ------------------------------------------------------------------------- */
/* Enumerations (stable values only; see the file comment)                    */
/* ------------------------------------------------------------------------- */

/* Status codes 0–12 never moved. Codes >= 13 shifted by one between 0.4.0 and
 * 0.5.0 (ERROR_CONTEXT_ID_NOT_ZERO inserted at 13): compare against names
 * from rocprofiler_get_status_name instead. */
typedef enum rocprofiler_status_t {
    ROCPROFILER_STATUS_SUCCESS = 0,
    ROCPROFILER_STATUS_ERROR = 1,
    ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND = 2,
    ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND = 3,
    ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND = 4,
    ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND = 5,
    ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND = 6,
    ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND = 7,
    ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND = 8,
    ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR = 9,
    ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID = 10,
    ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED = 11,
    ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT = 12
} rocprofiler_status_t;

/* Buffer tracing kinds 0–11 never moved. Kinds >= 12 differ between 0.x and
 * 1.x (PAGE_MIGRATION removed in 1.0.0): resolve them by name at run time. */
typedef enum rocprofiler_buffer_tracing_kind_t {
    ROCPROFILER_BUFFER_TRACING_NONE = 0,
    ROCPROFILER_BUFFER_TRACING_HSA_CORE_API = 1,
    ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API = 2,
    ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API = 3,
    ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API = 4,
    ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API = 5,
    ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API = 6,
    ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API = 7,
    ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API = 8,
    ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API = 9,
    ROCPROFILER_BUFFER_TRACING_MEMORY_COPY = 10,
    ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH = 11
} rocprofiler_buffer_tracing_kind_t;

/* Callback tracing kinds 0–13 are the same in every version (append-only);
 * later kinds (HIP_STREAM, MARKER_CORE_RANGE_API, …) are resolved by name. */
typedef enum rocprofiler_callback_tracing_kind_t {
    ROCPROFILER_CALLBACK_TRACING_NONE = 0,
    ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API = 1,
    ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API = 2,
    ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API = 3,
    ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API = 4,
    ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API = 5,
    ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API = 6,
    ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API = 7,
    ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API = 8,
    ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API = 9,
    ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT = 10,
    ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY = 11,
    ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH = 12,
    ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY = 13
} rocprofiler_callback_tracing_kind_t;

typedef enum rocprofiler_callback_phase_t {
    ROCPROFILER_CALLBACK_PHASE_NONE = 0,
    ROCPROFILER_CALLBACK_PHASE_ENTER = 1,
    ROCPROFILER_CALLBACK_PHASE_LOAD = 1,
    ROCPROFILER_CALLBACK_PHASE_EXIT = 2,
    ROCPROFILER_CALLBACK_PHASE_UNLOAD = 2,
    ROCPROFILER_CALLBACK_PHASE_LAST = 3
} rocprofiler_callback_phase_t;

typedef enum rocprofiler_agent_type_t {
    ROCPROFILER_AGENT_TYPE_NONE = 0,
    ROCPROFILER_AGENT_TYPE_CPU = 1,
    ROCPROFILER_AGENT_TYPE_GPU = 2,
    ROCPROFILER_AGENT_TYPE_LAST = 3
} rocprofiler_agent_type_t;

typedef enum rocprofiler_agent_version_t {
    ROCPROFILER_AGENT_INFO_VERSION_NONE = 0,
    ROCPROFILER_AGENT_INFO_VERSION_0 = 1,
    ROCPROFILER_AGENT_INFO_VERSION_LAST = 2
} rocprofiler_agent_version_t;

typedef enum rocprofiler_buffer_category_t {
    ROCPROFILER_BUFFER_CATEGORY_NONE = 0,
    ROCPROFILER_BUFFER_CATEGORY_TRACING = 1,
    ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING = 2,
    ROCPROFILER_BUFFER_CATEGORY_COUNTERS = 3,
    ROCPROFILER_BUFFER_CATEGORY_LAST = 4
} rocprofiler_buffer_category_t;

typedef enum rocprofiler_buffer_policy_t {
    ROCPROFILER_BUFFER_POLICY_NONE = 0,
    ROCPROFILER_BUFFER_POLICY_DISCARD = 1,
    ROCPROFILER_BUFFER_POLICY_LOSSLESS = 2,
    ROCPROFILER_BUFFER_POLICY_LAST = 3
} rocprofiler_buffer_policy_t;

typedef enum rocprofiler_kernel_dispatch_operation_t {
    ROCPROFILER_KERNEL_DISPATCH_NONE = 0,
    ROCPROFILER_KERNEL_DISPATCH_ENQUEUE = 1,
    ROCPROFILER_KERNEL_DISPATCH_COMPLETE = 2,
    ROCPROFILER_KERNEL_DISPATCH_LAST = 3
} rocprofiler_kernel_dispatch_operation_t;

typedef enum rocprofiler_memory_copy_operation_t {
    ROCPROFILER_MEMORY_COPY_NONE = 0,
    ROCPROFILER_MEMORY_COPY_HOST_TO_HOST = 1,
    ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE = 2,
    ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST = 3,
    ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE = 4,
    ROCPROFILER_MEMORY_COPY_LAST = 5
} rocprofiler_memory_copy_operation_t;

/* HOST_KERNEL_SYMBOL_REGISTER exists from 0.5.0; LAST moved, so not declared. */
typedef enum rocprofiler_code_object_operation_t {
    ROCPROFILER_CODE_OBJECT_NONE = 0,
    ROCPROFILER_CODE_OBJECT_LOAD = 1,
    ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER = 2,
    ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER = 3
} rocprofiler_code_object_operation_t;

typedef enum rocprofiler_code_object_storage_type_t {
    ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_NONE = 0,
    ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE = 1,
    ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY = 2
} rocprofiler_code_object_storage_type_t;

/* HIP_STREAM callback operations; the kind exists only in 1.x (resolve the
 * kind by name), but these operation values are the same in every 1.x. */
typedef enum rocprofiler_hip_stream_operation_t {
    ROCPROFILER_HIP_STREAM_NONE = 0,
    ROCPROFILER_HIP_STREAM_CREATE = 1,
    ROCPROFILER_HIP_STREAM_DESTROY = 2,
    ROCPROFILER_HIP_STREAM_SET = 3,
    ROCPROFILER_HIP_STREAM_LAST = 4
} rocprofiler_hip_stream_operation_t;

/* HIP_EVENT operations: the GPU barrier packet a hipEventRecord (RECORD) or a
 * hipStreamWaitEvent (WAIT) enqueued. Only SDKs after 1.3.5 have the HIP_EVENT
 * kinds (resolve them by name; 1.2.1 headers lack this enum). RECORD and WAIT
 * are the values upstream tests use; NONE = 0 and LAST = 3 follow the SDK's
 * enum convention (inferred, not compiled from a header). */
typedef enum rocprofiler_hip_event_operation_t {
    ROCPROFILER_HIP_EVENT_NONE = 0,
    ROCPROFILER_HIP_EVENT_RECORD = 1,
    ROCPROFILER_HIP_EVENT_WAIT = 2,
    ROCPROFILER_HIP_EVENT_LAST = 3
} rocprofiler_hip_event_operation_t;

/* HIP_GRAPH operations (SDK 1.3.0+; the kind itself is resolved by name).
 * EXEC_LAUNCH brackets hipGraphLaunch / hipGraphLaunch_spt with ENTER and EXIT. */
typedef enum rocprofiler_hip_graph_operation_t {
    ROCPROFILER_HIP_GRAPH_OPERATION_NONE = 0,
    ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_CREATE = 1,
    ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_DESTROY = 2,
    ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH = 3,
    ROCPROFILER_HIP_GRAPH_OPERATION_LAST = 4
} rocprofiler_hip_graph_operation_t;

/* ROCTx operation ids; unlike tracing kinds they start at 0. */
typedef enum rocprofiler_marker_core_api_id_t {
    ROCPROFILER_MARKER_CORE_API_ID_NONE = -1,
    ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA = 0,
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA = 1,
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop = 2,
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA = 3,
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop = 4,
    ROCPROFILER_MARKER_CORE_API_ID_roctxGetThreadId = 5,
    ROCPROFILER_MARKER_CORE_API_ID_LAST = 6
} rocprofiler_marker_core_api_id_t;

typedef enum rocprofiler_marker_control_api_id_t {
    ROCPROFILER_MARKER_CONTROL_API_ID_NONE = -1,
    ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause = 0,
    ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerResume = 1,
    ROCPROFILER_MARKER_CONTROL_API_ID_LAST = 2
} rocprofiler_marker_control_api_id_t;

typedef enum rocprofiler_marker_name_api_id_t {
    ROCPROFILER_MARKER_NAME_API_ID_NONE = -1,
    ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread = 0,
    ROCPROFILER_MARKER_NAME_API_ID_roctxNameHsaAgent = 1,
    ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipDevice = 2,
    ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream = 3,
    ROCPROFILER_MARKER_NAME_API_ID_LAST = 4
} rocprofiler_marker_name_api_id_t;

/* Bit flags naming the runtime on whose behalf the SDK creates an internal
 * thread. Flags only ever get added (RCCL in 0.5, ROCDECODE in 0.6, ROCJPEG in
 * 1.0); LAST moved with them and is not declared. */
typedef enum rocprofiler_runtime_library_t {
    ROCPROFILER_LIBRARY = 1,
    ROCPROFILER_HSA_LIBRARY = 2,
    ROCPROFILER_HIP_LIBRARY = 4,
    ROCPROFILER_MARKER_LIBRARY = 8,
    ROCPROFILER_RCCL_LIBRARY = 16,
    ROCPROFILER_ROCDECODE_LIBRARY = 32,
    ROCPROFILER_ROCJPEG_LIBRARY = 64
} rocprofiler_runtime_library_t;

/* Own numbering, not the buffer-kind numbering; 0–12 exist in every version. */
typedef enum rocprofiler_external_correlation_id_request_kind_t {
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE = 0,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_CORE_API = 1,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_AMD_EXT_API = 2,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_IMAGE_EXT_API = 3,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_FINALIZE_EXT_API = 4,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API = 5,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_COMPILER_API = 6,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_API = 7,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CONTROL_API = 8,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_NAME_API = 9,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY = 10,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH = 11,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_SCRATCH_MEMORY = 12
} rocprofiler_external_correlation_id_request_kind_t;

/* ------------------------------------------------------------------------- */
/* Handles and small unions (identical in every version)                      */
/* ------------------------------------------------------------------------- */

typedef struct rocprofiler_context_id_t { uint64_t handle; } rocprofiler_context_id_t;
typedef struct rocprofiler_buffer_id_t { uint64_t handle; } rocprofiler_buffer_id_t;
typedef struct rocprofiler_agent_id_t { uint64_t handle; } rocprofiler_agent_id_t;
typedef struct rocprofiler_queue_id_t { uint64_t handle; } rocprofiler_queue_id_t;
typedef struct rocprofiler_stream_id_t { uint64_t handle; } rocprofiler_stream_id_t;
/* SDK 1.3.0+: one per successful hipGraphInstantiate, process-monotonic. */
typedef struct rocprofiler_graph_exec_id_t { uint64_t handle; } rocprofiler_graph_exec_id_t;
typedef struct rocprofiler_callback_thread_t { uint64_t handle; } rocprofiler_callback_thread_t;
typedef struct hsa_agent_s { uint64_t handle; } hsa_agent_t;

typedef union rocprofiler_user_data_t {
    uint64_t value;
    void* ptr;
} rocprofiler_user_data_t;

/* A plain uint64_t in 0.4.0; an 8-byte union from 0.5.0. Same machine ABI. */
typedef union rocprofiler_address_t {
    uint64_t handle;
    uint64_t value;
    const void* ptr;
} rocprofiler_address_t;

typedef struct rocprofiler_dim3_t {
    uint32_t x;
    uint32_t y;
    uint32_t z;
} rocprofiler_dim3_t;

typedef struct rocprofiler_version_triplet_t { /* 1.x only */
    uint32_t major;
    uint32_t minor;
    uint32_t patch;
} rocprofiler_version_triplet_t;

/* ------------------------------------------------------------------------- */
/* Correlation ids and client ids (version-divergent)                         */
/* ------------------------------------------------------------------------- */

typedef struct rocprofiler_correlation_id_v0_t { /* 16 bytes, SDK 0.x */
    uint64_t internal;
    rocprofiler_user_data_t external;
} rocprofiler_correlation_id_v0_t;

typedef struct rocprofiler_correlation_id_v1_t { /* 24 bytes, SDK 1.x */
    uint64_t internal;
    rocprofiler_user_data_t external;
    uint64_t ancestor; /* internal id of the enclosing API call, 0 = none */
} rocprofiler_correlation_id_v1_t;

/* Kernel-dispatch and memory-copy records: 16 bytes in every version (in 0.x
 * these records used the then-16-byte correlation id, same layout). */
typedef struct rocprofiler_async_correlation_id_t {
    uint64_t internal;
    rocprofiler_user_data_t external;
} rocprofiler_async_correlation_id_t;

typedef struct rocprofiler_client_id_v0_t { /* 16 bytes, SDK 0.x */
    const char* name;
    uint32_t handle;
} rocprofiler_client_id_v0_t;

typedef struct rocprofiler_client_id_v1_t { /* 24 bytes, SDK 1.x */
    size_t size;
    const char* name;
    uint32_t handle;
} rocprofiler_client_id_v1_t;

/* ------------------------------------------------------------------------- */
/* Buffer record header                                                       */
/* ------------------------------------------------------------------------- */

/* hash = category | ((uint64_t)kind << 32) */
typedef struct rocprofiler_record_header_t {
    union {
        struct {
            uint32_t category;
            uint32_t kind;
        };
        uint64_t hash;
    };
    void* payload;
} rocprofiler_record_header_t;

/* ------------------------------------------------------------------------- */
/* Kernel dispatch                                                            */
/* ------------------------------------------------------------------------- */

/* 128 bytes fixed; the runtime sets `size` to 72 (offset of the padding). */
typedef struct rocprofiler_kernel_dispatch_info_t {
    uint64_t size;
    rocprofiler_agent_id_t agent_id;
    rocprofiler_queue_id_t queue_id;
    rocprofiler_kernel_id_t kernel_id;
    rocprofiler_dispatch_id_t dispatch_id;
    uint32_t private_segment_size;
    uint32_t group_segment_size;
    rocprofiler_dim3_t workgroup_size;
    rocprofiler_dim3_t grid_size;
    uint8_t reserved_padding[56];
} rocprofiler_kernel_dispatch_info_t;

typedef struct rocprofiler_buffer_tracing_kernel_dispatch_record_t { /* 184 */
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_kernel_dispatch_operation_t operation;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_buffer_tracing_kernel_dispatch_record_t;

typedef struct rocprofiler_callback_tracing_kernel_dispatch_data_t { /* 152 */
    uint64_t size;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_callback_tracing_kernel_dispatch_data_t;

/* ------------------------------------------------------------------------- */
/* Memory copy (dst/src addresses appended in 1.0.0)                          */
/* ------------------------------------------------------------------------- */

typedef struct rocprofiler_buffer_tracing_memory_copy_record_v0_t { /* 80 */
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_memory_copy_operation_t operation;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t dst_agent_id;
    rocprofiler_agent_id_t src_agent_id;
    uint64_t bytes;
} rocprofiler_buffer_tracing_memory_copy_record_v0_t;

typedef struct rocprofiler_buffer_tracing_memory_copy_record_v1_t { /* 96 */
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_memory_copy_operation_t operation;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t dst_agent_id;
    rocprofiler_agent_id_t src_agent_id;
    uint64_t bytes;
    rocprofiler_address_t dst_address;
    rocprofiler_address_t src_address;
} rocprofiler_buffer_tracing_memory_copy_record_v1_t;

typedef struct rocprofiler_callback_tracing_memory_copy_data_v0_t { /* 48 */
    uint64_t size;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t dst_agent_id;
    rocprofiler_agent_id_t src_agent_id;
    uint64_t bytes;
} rocprofiler_callback_tracing_memory_copy_data_v0_t;

typedef struct rocprofiler_callback_tracing_memory_copy_data_v1_t { /* 64 */
    uint64_t size;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t dst_agent_id;
    rocprofiler_agent_id_t src_agent_id;
    uint64_t bytes;
    rocprofiler_address_t dst_address;
    rocprofiler_address_t src_address;
} rocprofiler_callback_tracing_memory_copy_data_v1_t;

/* ------------------------------------------------------------------------- */
/* API records (HIP, marker): grow with the correlation id in 1.0.0           */
/* ------------------------------------------------------------------------- */

typedef struct rocprofiler_buffer_tracing_hip_api_record_v0_t { /* 56 */
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_v0_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_hip_api_record_v0_t;

typedef struct rocprofiler_buffer_tracing_hip_api_record_v1_t { /* 64 */
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_v1_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_hip_api_record_v1_t;

/* Same layout as the HIP API record; carries no message text. */
typedef struct rocprofiler_buffer_tracing_marker_api_record_v0_t { /* 56 */
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_v0_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_marker_api_record_v0_t;

typedef struct rocprofiler_buffer_tracing_marker_api_record_v1_t { /* 64 */
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_v1_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_marker_api_record_v1_t;

/* Correlation-id retirement record: 32 bytes in every version. */
typedef struct rocprofiler_buffer_tracing_correlation_id_retirement_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_timestamp_t timestamp;
    uint64_t internal_correlation_id;
} rocprofiler_buffer_tracing_correlation_id_retirement_record_t;

/* ------------------------------------------------------------------------- */
/* HIP API arguments (88-byte union) and return value (24-byte union)         */
/* ------------------------------------------------------------------------- */

/* Only the members the project reads are spelled out; the upstream union has
 * one member per HIP API (largest: hipExtModuleLaunchKernel, 88 bytes). The
 * `raw` member pins size 88 and alignment 8. Field names follow the HIP API
 * parameter names because the SDK's argument iterators report them by name. */
typedef union rocprofiler_hip_api_args_t {
    struct {
        const void* function_address;
        rocprofiler_dim3_t numBlocks;
        rocprofiler_dim3_t dimBlocks;
        void** args;
        size_t sharedMemBytes;
        hipStream_t stream;
    } hipLaunchKernel;
    struct {
        hipFunction_t func;
        uint32_t gridDimX;
        uint32_t gridDimY;
        uint32_t gridDimZ;
        uint32_t blockDimX;
        uint32_t blockDimY;
        uint32_t blockDimZ;
        uint32_t sharedMemBytes;
        hipStream_t stream;
        void** kernelParams;
        void** extra;
    } hipModuleLaunchKernel;
    struct {
        const void* function_address;
        rocprofiler_dim3_t numBlocks;
        rocprofiler_dim3_t dimBlocks;
        void** args;
        size_t sharedMemBytes;
        hipStream_t stream;
        hipEvent_t startEvent;
        hipEvent_t stopEvent;
        int32_t flags;
    } hipExtLaunchKernel;
    struct {
        hipGraphExec_t graphExec;
        hipStream_t stream;
    } hipGraphLaunch;
    struct {
        void* dst;
        const void* src;
        size_t sizeBytes;
        hipMemcpyKind kind;
    } hipMemcpy;
    struct {
        void* dst;
        const void* src;
        size_t sizeBytes;
        hipMemcpyKind kind;
        hipStream_t stream;
    } hipMemcpyAsync;
    struct {
        void* dst;
        const void* src;
        size_t sizeBytes;
        hipMemcpyKind kind;
        hipStream_t stream;
    } hipMemcpyWithStream;
    struct {
        void* dst;
        int32_t value;
        size_t sizeBytes;
        hipStream_t stream;
    } hipMemsetAsync;
    struct {
        void* dst;
        int32_t value;
        size_t sizeBytes;
    } hipMemset;
    struct {
        hipEvent_t event;
        hipStream_t stream;
    } hipEventRecord;
    struct {
        hipStream_t stream;
        hipEvent_t event;
        uint32_t flags;
    } hipStreamWaitEvent;
    struct {
        hipEvent_t event;
    } hipEventSynchronize;
    struct {
        hipStream_t stream;
    } hipStreamSynchronize;
    struct {
        hipStream_t* stream; /* out-pointer: dereference at EXIT only */
    } hipStreamCreate;
    struct {
        hipStream_t* stream;
        uint32_t flags;
    } hipStreamCreateWithFlags;
    struct {
        hipStream_t stream;
    } hipStreamDestroy;
    struct {
        int32_t deviceId;
    } hipSetDevice;
    /* Members below: the stream-ordered copies, memsets and allocations, the
     * launch with a config struct, the remaining stream creators and the event
     * queries, as HIP declares their parameters (LP64: pointers and size_t 8
     * bytes, int/unsigned 4, each at its natural alignment). */
    struct {
        void* dst;
        size_t dpitch;
        const void* src;
        size_t spitch;
        size_t width;
        size_t height;
        hipMemcpyKind kind;
        hipStream_t stream;
    } hipMemcpy2DAsync;
    struct {
        const void* p; /* const hipMemcpy3DParms* */
        hipStream_t stream;
    } hipMemcpy3DAsync;
    struct {
        const void* symbol;
        const void* src;
        size_t sizeBytes;
        size_t offset;
        hipMemcpyKind kind;
        hipStream_t stream;
    } hipMemcpyToSymbolAsync;
    struct {
        void* dst;
        const void* symbol;
        size_t sizeBytes;
        size_t offset;
        hipMemcpyKind kind;
        hipStream_t stream;
    } hipMemcpyFromSymbolAsync;
    struct {
        void* dst;
        const void* src;
        size_t sizeBytes;
        hipStream_t stream;
    } hipMemcpyHtoDAsync;
    struct {
        void* dst;
        int32_t dstDeviceId;
        const void* src;
        int32_t srcDevice;
        size_t sizeBytes;
        hipStream_t stream;
    } hipMemcpyPeerAsync;
    struct {
        void* dest; /* hipDeviceptr_t */
        uint8_t value;
        size_t count;
        hipStream_t stream;
    } hipMemsetD8Async;
    struct {
        void* dest;
        uint16_t value;
        size_t count;
        hipStream_t stream;
    } hipMemsetD16Async;
    struct {
        void* dst;
        int32_t value;
        size_t count;
        hipStream_t stream;
    } hipMemsetD32Async;
    struct {
        void* dst;
        size_t pitch;
        int32_t value;
        size_t width;
        size_t height;
        hipStream_t stream;
    } hipMemset2DAsync;
    struct {
        hipPitchedPtr pitchedDevPtr;
        int32_t value;
        hipExtent extent;
        hipStream_t stream;
    } hipMemset3DAsync;
    struct {
        void** dev_ptr;
        size_t size;
        hipStream_t stream;
    } hipMallocAsync;
    struct {
        void** dev_ptr;
        size_t size;
        void* mem_pool; /* hipMemPool_t */
        hipStream_t stream;
    } hipMallocFromPoolAsync;
    struct {
        void* dev_ptr;
        hipStream_t stream;
    } hipFreeAsync;
    /* Allocation and registration calls (the memory timeline and the memory kinds of copies). */
    struct {
        void** ptr;
        size_t size;
    } hipMalloc;
    struct {
        void* ptr;
    } hipFree;
    struct {
        void** ptr;
        size_t size;
        unsigned int flags;
    } hipHostMalloc;
    struct {
        void* ptr;
    } hipHostFree;
    struct {
        void** dev_ptr;
        size_t size;
        unsigned int flags;
    } hipMallocManaged;
    struct {
        void** ptr;
        size_t size;
    } hipMallocHost;
    struct {
        void** ptr;
        size_t size;
        unsigned int flags;
    } hipHostAlloc;
    struct {
        void* hostPtr;
        size_t sizeBytes;
        unsigned int flags;
    } hipHostRegister;
    struct {
        void* hostPtr;
    } hipHostUnregister;
    struct {
        void** ptr;
        size_t sizeBytes;
        unsigned int flags;
    } hipExtMallocWithFlags;
    struct {
        void* ptr;
    } hipFreeHost;
    struct {
        const hipLaunchConfig_t* config; /* the stream is config->stream */
        const void* fPtr;
        void** args;
    } hipLaunchKernelExC;
    struct {
        hipStream_t* stream;
        uint32_t flags;
        int32_t priority;
    } hipStreamCreateWithPriority;
    struct {
        hipStream_t* stream;
        uint32_t cuMaskSize;
        const uint32_t* cuMask;
    } hipExtStreamCreateWithCUMask;
    struct {
        hipEvent_t event;
        hipStream_t stream;
        uint32_t flags;
    } hipEventRecordWithFlags;
    struct {
        hipEvent_t event;
    } hipEventQuery;
    struct {
        hipStream_t stream;
    } hipStreamQuery;
    uint64_t align_;
    uint8_t raw[88];
} rocprofiler_hip_api_args_t;

typedef union rocprofiler_hip_api_retval_t { /* 24 bytes */
    uint64_t uint64_t_retval; /* 1.x */
    int32_t int_retval;
    const char* const_charp_retval;
    hipError_t hipError_t_retval; /* the one to read for almost every HIP API */
    hipChannelFormatDesc hipChannelFormatDesc_retval;
    void** voidpp_retval;
} rocprofiler_hip_api_retval_t;

typedef struct rocprofiler_callback_tracing_hip_api_data_t { /* 120 */
    uint64_t size;
    rocprofiler_hip_api_args_t args;
    rocprofiler_hip_api_retval_t retval;
} rocprofiler_callback_tracing_hip_api_data_t;

/* SDK 1.x only (kinds HIP_RUNTIME_API_EXT / HIP_COMPILER_API_EXT, resolved by
 * name): the API record plus arguments as passed and the return value. */
typedef struct rocprofiler_buffer_tracing_hip_api_ext_record_t { /* 176 */
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_v1_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_hip_api_args_t args;
    rocprofiler_hip_api_retval_t retval;
} rocprofiler_buffer_tracing_hip_api_ext_record_t;

/* ------------------------------------------------------------------------- */
/* Marker (ROCTx) callback payload                                            */
/* ------------------------------------------------------------------------- */

typedef uint64_t roctx_range_id_t;

typedef union rocprofiler_marker_api_args_t { /* 16 bytes */
    struct { const char* message; } roctxMarkA;
    struct { const char* message; } roctxRangePushA;
    struct { const char* message; } roctxRangeStartA;
    struct { roctx_range_id_t id; } roctxRangeStop;
    struct { const char* message; } roctxThreadRangeA;  /* MARKER_CORE_RANGE_API, 1.x */
    struct { const char* message; } roctxProcessRangeA; /* MARKER_CORE_RANGE_API, 1.x */
    uint64_t align_;
    uint8_t raw[16];
} rocprofiler_marker_api_args_t;

typedef union rocprofiler_marker_api_retval_t { /* 8 bytes */
    int32_t int32_t_retval;
    int64_t int64_t_retval;
    roctx_range_id_t roctx_range_id_t_retval;
} rocprofiler_marker_api_retval_t;

typedef struct rocprofiler_callback_tracing_marker_api_data_t { /* 32 */
    uint64_t size;
    rocprofiler_marker_api_args_t args;
    rocprofiler_marker_api_retval_t retval;
} rocprofiler_callback_tracing_marker_api_data_t;

/* ------------------------------------------------------------------------- */
/* Code objects, kernel symbols, HIP streams                                  */
/* ------------------------------------------------------------------------- */

/* 88 bytes in every version. The agent field is named `rocp_agent` in 0.4.0
 * and is a union {rocp_agent, agent_id} later — same offset 16. */
typedef struct rocprofiler_callback_tracing_code_object_load_data_t {
    uint64_t size;
    uint64_t code_object_id;
    rocprofiler_agent_id_t agent_id;
    hsa_agent_t hsa_agent;
    const char* uri;
    uint64_t load_base;
    uint64_t load_size;
    int64_t load_delta;
    rocprofiler_code_object_storage_type_t storage_type;
    union {
        int32_t storage_file; /* STORAGE_TYPE_FILE */
        uint64_t memory_base; /* STORAGE_TYPE_MEMORY */
    };
    uint64_t memory_size;
} rocprofiler_callback_tracing_code_object_load_data_t;

/* 72 bytes in 0.4.0/0.5.0, 88 bytes from 0.6.0: readers must check `size`
 * (>= 88) before touching kernel_code_entry_byte_offset / kernel_address. The
 * kernel name carries a trailing ".kd" (kernel descriptor symbol). */
typedef struct rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
    uint64_t size;
    uint64_t kernel_id;
    uint64_t code_object_id;
    const char* kernel_name;
    uint64_t kernel_object;
    uint32_t kernarg_segment_size;
    uint32_t kernarg_segment_alignment;
    uint32_t group_segment_size;
    uint32_t private_segment_size;
    uint32_t sgpr_count;
    uint32_t arch_vgpr_count;
    uint32_t accum_vgpr_count;
    int64_t kernel_code_entry_byte_offset; /* 0.6.0+ */
    rocprofiler_address_t kernel_address;  /* 0.6.0+ */
} rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;

/* 0.5.0+, 120 bytes. */
typedef struct rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t {
    uint64_t size;
    uint64_t host_function_id;
    uint64_t kernel_id;
    uint64_t code_object_id;
    rocprofiler_address_t host_function;
    rocprofiler_address_t modules;
    const char* device_function;
    uint32_t thread_limit;
    rocprofiler_dim3_t thread_ids;
    rocprofiler_dim3_t block_ids;
    rocprofiler_dim3_t block_dims;
    rocprofiler_dim3_t grid_dims;
    uint64_t workgroup_size;
} rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t;

/* 1.x only, 24 bytes. stream_id: SDK index (0 = default stream). */
typedef struct rocprofiler_callback_tracing_hip_stream_data_t {
    uint64_t size;
    rocprofiler_stream_id_t stream_id;
    rocprofiler_address_t stream_value; /* raw hipStream_t */
} rocprofiler_callback_tracing_hip_stream_data_t;

/* HIP_GRAPH (SDK 1.3.0+) callback payload, 24 bytes. The runtime reports no node
 * ids: a tool numbers a launch's dispatches itself (external-correlation requests
 * arrive in dispatch order between EXEC_LAUNCH ENTER and EXIT). */
typedef struct rocprofiler_callback_tracing_hip_graph_data_t {
    uint64_t size;
    rocprofiler_graph_exec_id_t graph_exec_id;
    rocprofiler_address_t graph_exec_value; /* raw hipGraphExec_t */
} rocprofiler_callback_tracing_hip_graph_data_t;

/* HIP_EVENT (after 1.3.5 only): one GPU barrier of a hipEventRecord or
 * hipStreamWaitEvent. Callback payload, 56 bytes; the ENTER/EXIT callbacks around
 * the enqueue carry zero timestamps, the PHASE_NONE callback at completion the
 * barrier's GPU times. source_queue_id: the queue the event was recorded on
 * (equal to queue_id for RECORD). */
typedef struct rocprofiler_callback_tracing_hip_event_data_t {
    uint64_t size;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t agent_id;
    rocprofiler_queue_id_t queue_id;
    uint64_t hip_event_handle; /* raw hipEvent_t */
    rocprofiler_queue_id_t source_queue_id;
} rocprofiler_callback_tracing_hip_event_data_t;

/* HIP_EVENT buffer record, 88 bytes: the same facts with the ASYNC (16-byte)
 * correlation id of the hipEventRecord / hipStreamWaitEvent call. */
typedef struct rocprofiler_buffer_tracing_hip_event_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_hip_event_operation_t operation;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_thread_id_t thread_id; /* thread that enqueued the barrier */
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t agent_id;   /* agent the barrier ran on */
    rocprofiler_queue_id_t queue_id;   /* queue the barrier was dispatched to */
    uint64_t hip_event_handle;
    rocprofiler_queue_id_t source_queue_id;
} rocprofiler_buffer_tracing_hip_event_record_t;

/* ------------------------------------------------------------------------- */
/* Callback tracing record (passed BY VALUE to the tracing callback)          */
/* ------------------------------------------------------------------------- */

typedef struct rocprofiler_callback_tracing_record_v0_t { /* 56 */
    rocprofiler_context_id_t context_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_correlation_id_v0_t correlation_id;
    rocprofiler_callback_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_callback_phase_t phase;
    void* payload;
} rocprofiler_callback_tracing_record_v0_t;

typedef struct rocprofiler_callback_tracing_record_v1_t { /* 64 */
    rocprofiler_context_id_t context_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_correlation_id_v1_t correlation_id;
    rocprofiler_callback_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_callback_phase_t phase;
    void* payload;
} rocprofiler_callback_tracing_record_v1_t;

/* ------------------------------------------------------------------------- */
/* Agents                                                                     */
/* ------------------------------------------------------------------------- */

/* One memory bank of an agent (24 bytes). `heap_type` is hsakmt's heap type
 * (an enum, 4 bytes): 0 system, 1 frame buffer public, 2 frame buffer private,
 * 3 GDS, 4 LDS, 5 scratch, 6 device SVM, 7 MMIO remap (only the first three are
 * declared). `flags` is hsakmt's
 * 4-byte memory-property bit-field union, read as a plain word. A GPU's own
 * memory is the sum of its frame-buffer banks; some runtimes report it only
 * there (local_mem_size 0). */
typedef enum HSA_HEAPTYPE {
    HSA_HEAPTYPE_SYSTEM = 0,
    HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC = 1,
    HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE = 2
} HSA_HEAPTYPE;
typedef uint32_t HSA_MEMORYPROPERTY;

typedef struct rocprofiler_agent_mem_bank_t {
    HSA_HEAPTYPE heap_type;
    HSA_MEMORYPROPERTY flags;
    uint32_t width;
    uint32_t mem_clk_max;
    uint64_t size_in_bytes;
} rocprofiler_agent_mem_bank_t;

typedef struct rocprofiler_agent_cache_t rocprofiler_agent_cache_t;
typedef struct rocprofiler_agent_io_link_t rocprofiler_agent_io_link_t;

/* Prefix of the real agent struct, common to every version (296 bytes; the
 * runtime's struct is 296 in 0.4/0.5, 304 in 0.6/1.0 release, 312 in 1.2.1).
 * Pass sizeof(rocprofiler_agent_v0_t) = 296 as `agent_size` to
 * rocprofiler_query_available_agents (a larger value fails with
 * INCOMPATIBLE_ABI on older runtimes) and check agent->size before reading
 * anything beyond logical_node_type_id. `reserved_292` is padding in 0.4/0.5
 * and the runtime_visibility bit-field from 0.6: do not interpret it. */
typedef struct rocprofiler_agent_v0_t {
    uint64_t size;
    rocprofiler_agent_id_t id;
    rocprofiler_agent_type_t type;
    uint32_t cpu_cores_count;
    uint32_t simd_count;
    uint32_t mem_banks_count;
    uint32_t caches_count;
    uint32_t io_links_count;
    uint32_t cpu_core_id_base;
    uint32_t simd_id_base;
    uint32_t max_waves_per_simd;
    uint32_t lds_size_in_kb;
    uint32_t gds_size_in_kb;
    uint32_t num_gws;
    uint32_t wave_front_size;
    uint32_t num_xcc;
    uint32_t cu_count;
    uint32_t array_count;
    uint32_t num_shader_banks;
    uint32_t simd_arrays_per_engine;
    uint32_t cu_per_simd_array;
    uint32_t simd_per_cu;
    uint32_t max_slots_scratch_cu;
    uint32_t gfx_target_version;
    uint16_t vendor_id;
    uint16_t device_id;
    uint32_t location_id;
    uint32_t domain;
    uint32_t drm_render_minor;
    uint32_t num_sdma_engines;
    uint32_t num_sdma_xgmi_engines;
    uint32_t num_sdma_queues_per_engine;
    uint32_t num_cp_queues;
    uint32_t max_engine_clk_ccompute;
    uint32_t max_engine_clk_fcompute;
    HSA_ENGINE_VERSION sdma_fw_version;
    HSA_ENGINE_ID fw_version;
    HSA_CAPABILITY capability;
    uint32_t cu_per_engine;
    uint32_t max_waves_per_cu;
    uint32_t family_id;
    uint32_t workgroup_max_size;
    uint32_t grid_max_size;
    uint64_t local_mem_size;
    uint64_t hive_id;
    uint64_t gpu_id;
    rocprofiler_dim3_t workgroup_max_dim;
    rocprofiler_dim3_t grid_max_dim;
    const rocprofiler_agent_mem_bank_t* mem_banks;
    const rocprofiler_agent_cache_t* caches;
    const rocprofiler_agent_io_link_t* io_links;
    const char* name;
    const char* vendor_name;
    const char* product_name;
    const char* model_name;
    uint32_t node_id;
    int32_t logical_node_id;
    int32_t logical_node_type_id;
    uint32_t reserved_292;
} rocprofiler_agent_v0_t;

/* ------------------------------------------------------------------------- */
/* Tool registration                                                          */
/* ------------------------------------------------------------------------- */

/* The finalizer handed to a tool's initialize takes the client id BY VALUE,
 * whose layout depends on the version (16 bytes in registers for v0, 24 bytes
 * in memory for v1). Call it with an unmodified copy of what was received. */
typedef void (*rocprofiler_client_finalize_v0_t)(rocprofiler_client_id_v0_t client_id);
typedef void (*rocprofiler_client_finalize_v1_t)(rocprofiler_client_id_v1_t client_id);
/* Type-erased finalizer as stored/passed: cast to _v0_t or _v1_t by version. */
typedef void (*rocprofiler_client_finalize_any_t)(void);

typedef int (*rocprofiler_tool_initialize_t)(rocprofiler_client_finalize_any_t finalize_func,
                                             void* tool_data);
typedef void (*rocprofiler_tool_finalize_t)(void* tool_data);

typedef struct rocprofiler_tool_configure_result_t { /* 32 */
    size_t size; /* the tool sets sizeof(rocprofiler_tool_configure_result_t) */
    rocprofiler_tool_initialize_t initialize;
    rocprofiler_tool_finalize_t finalize;
    void* tool_data;
} rocprofiler_tool_configure_result_t;

/* The exported entry point `rocprofiler_configure` has one of these shapes;
 * `version` = 10000*major + 100*minor + patch. */
typedef rocprofiler_tool_configure_result_t* (*rocprofiler_configure_v0_fn)(
    uint32_t version, const char* runtime_version, uint32_t priority,
    rocprofiler_client_id_v0_t* client_id);
typedef rocprofiler_tool_configure_result_t* (*rocprofiler_configure_v1_fn)(
    uint32_t version, const char* runtime_version, uint32_t priority,
    rocprofiler_client_id_v1_t* client_id);
/* Version-agnostic shape: client_id points to a _v0_t or _v1_t by version. */
typedef rocprofiler_tool_configure_result_t* (*rocprofiler_configure_any_fn)(
    uint32_t version, const char* runtime_version, uint32_t priority, void* client_id);

/* Process attachment (experimental in the SDK, 1.2.0+; `experimental/registration.h`): a tool
 * that also exports `rocprofiler_configure_attach` can be loaded into a running process
 * (started with ROCP_TOOL_ATTACH=1) and detached again. The SDK calls it right after a non-NULL
 * `rocprofiler_configure` with the same arguments and copies the result. `tool_attach` gets a
 * NULL `detach_func` and every context the client created (the SDK starts none of them; its
 * return value is ignored); `tool_detach` runs at every detach after the SDK stopped those
 * contexts, and the SDK flushes no buffer. Only 1.x client ids exist there. */
typedef void (*rocprofiler_client_detach_t)(rocprofiler_client_id_v1_t client_id);
typedef int (*rocprofiler_tool_attach_t)(rocprofiler_client_detach_t detach_func,
                                         rocprofiler_context_id_t* context_ids,
                                         uint64_t context_ids_length, void* tool_data);
typedef void (*rocprofiler_tool_detach_t)(void* tool_data);

typedef struct rocprofiler_tool_configure_attach_result_t { /* 32 */
    size_t size; /* the tool sets sizeof(rocprofiler_tool_configure_attach_result_t) */
    rocprofiler_tool_attach_t tool_attach;
    rocprofiler_tool_detach_t tool_detach;
    void* tool_data;
} rocprofiler_tool_configure_attach_result_t;

typedef rocprofiler_tool_configure_attach_result_t* (*rocprofiler_configure_attach_fn)(
    uint32_t version, const char* runtime_version, uint32_t priority,
    rocprofiler_client_id_v1_t* client_id);

/* ------------------------------------------------------------------------- */
/* Callback types                                                             */
/* ------------------------------------------------------------------------- */

typedef void (*rocprofiler_buffer_tracing_cb_t)(rocprofiler_context_id_t context,
                                                rocprofiler_buffer_id_t buffer_id,
                                                rocprofiler_record_header_t** headers,
                                                size_t num_headers, void* data,
                                                uint64_t drop_count);

/* The record is passed BY VALUE (56 vs 64 bytes, both in memory on SysV
 * x86-64): the callee must use the declaration of the running version. */
typedef void (*rocprofiler_callback_tracing_cb_v0_t)(rocprofiler_callback_tracing_record_v0_t record,
                                                     rocprofiler_user_data_t* user_data,
                                                     void* callback_data);
typedef void (*rocprofiler_callback_tracing_cb_v1_t)(rocprofiler_callback_tracing_record_v1_t record,
                                                     rocprofiler_user_data_t* user_data,
                                                     void* callback_data);
/* Type-erased form taken by the configure function: cast from _v0_t/_v1_t. */
typedef void (*rocprofiler_callback_tracing_cb_any_t)(void);

typedef rocprofiler_status_t (*rocprofiler_query_available_agents_cb_t)(
    rocprofiler_agent_version_t version, const void** agents, size_t num_agents, void* user_data);

typedef int (*rocprofiler_external_correlation_id_request_cb_t)(
    rocprofiler_thread_id_t thread_id, rocprofiler_context_id_t context_id,
    rocprofiler_external_correlation_id_request_kind_t kind,
    rocprofiler_tracing_operation_t operation, uint64_t internal_corr_id_value,
    rocprofiler_user_data_t* external_corr_id_value, void* data);

typedef int (*rocprofiler_buffer_tracing_kind_cb_t)(rocprofiler_buffer_tracing_kind_t kind,
                                                    void* data);
typedef int (*rocprofiler_buffer_tracing_kind_operation_cb_t)(
    rocprofiler_buffer_tracing_kind_t kind, rocprofiler_tracing_operation_t operation, void* data);
typedef int (*rocprofiler_callback_tracing_kind_cb_t)(rocprofiler_callback_tracing_kind_t kind,
                                                      void* data);
typedef int (*rocprofiler_callback_tracing_kind_operation_cb_t)(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t operation, void* data);

typedef int (*rocprofiler_callback_tracing_operation_args_cb_t)(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t operation,
    uint32_t arg_number, const void* const arg_value_addr, int32_t arg_indirection_count,
    const char* arg_type, const char* arg_name, const char* arg_value_str,
    int32_t arg_dereference_count, void* data);

/* 1.x only. */
typedef int (*rocprofiler_buffer_tracing_operation_args_cb_t)(
    rocprofiler_buffer_tracing_kind_t kind, rocprofiler_tracing_operation_t operation,
    uint32_t arg_number, const void* const arg_value_addr, int32_t arg_indirection_count,
    const char* arg_type, const char* arg_name, const char* arg_value_str, void* data);

/* ------------------------------------------------------------------------- */
/* SDK functions, as pointer types for dlsym                                  */
/* ------------------------------------------------------------------------- */

/* Contexts */
typedef rocprofiler_status_t (*rocprofiler_create_context_fn)(rocprofiler_context_id_t* context_id);
typedef rocprofiler_status_t (*rocprofiler_start_context_fn)(rocprofiler_context_id_t context_id);
typedef rocprofiler_status_t (*rocprofiler_stop_context_fn)(rocprofiler_context_id_t context_id);
typedef rocprofiler_status_t (*rocprofiler_context_is_active_fn)(rocprofiler_context_id_t context_id,
                                                                 int* status);
typedef rocprofiler_status_t (*rocprofiler_context_is_valid_fn)(rocprofiler_context_id_t context_id,
                                                                int* status);

/* Buffers */
typedef rocprofiler_status_t (*rocprofiler_create_buffer_fn)(
    rocprofiler_context_id_t context, size_t size, size_t watermark,
    rocprofiler_buffer_policy_t policy, rocprofiler_buffer_tracing_cb_t callback,
    void* callback_data, rocprofiler_buffer_id_t* buffer_id);
typedef rocprofiler_status_t (*rocprofiler_flush_buffer_fn)(rocprofiler_buffer_id_t buffer_id);
typedef rocprofiler_status_t (*rocprofiler_destroy_buffer_fn)(rocprofiler_buffer_id_t buffer_id);

/* Services */
typedef rocprofiler_status_t (*rocprofiler_configure_buffer_tracing_service_fn)(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_buffer_id_t buffer_id);
typedef rocprofiler_status_t (*rocprofiler_configure_callback_tracing_service_fn)(
    rocprofiler_context_id_t context_id, rocprofiler_callback_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_callback_tracing_cb_any_t callback, void* callback_args);
typedef rocprofiler_status_t (*rocprofiler_configure_external_correlation_id_request_service_fn)(
    rocprofiler_context_id_t context_id,
    const rocprofiler_external_correlation_id_request_kind_t* kinds, size_t kinds_count,
    rocprofiler_external_correlation_id_request_cb_t callback, void* callback_args);

/* Callback threads */
typedef rocprofiler_status_t (*rocprofiler_create_callback_thread_fn)(
    rocprofiler_callback_thread_t* cb_thread_id);
typedef rocprofiler_status_t (*rocprofiler_assign_callback_thread_fn)(
    rocprofiler_buffer_id_t buffer_id, rocprofiler_callback_thread_t cb_thread_id);

typedef void (*rocprofiler_internal_thread_library_cb_t)(rocprofiler_runtime_library_t lib,
                                                         void* data);
/* `libs` is an OR of rocprofiler_runtime_library_t flags. */
typedef rocprofiler_status_t (*rocprofiler_at_internal_thread_create_fn)(
    rocprofiler_internal_thread_library_cb_t precreate,
    rocprofiler_internal_thread_library_cb_t postcreate, int libs, void* data);

/* Agents */
typedef rocprofiler_status_t (*rocprofiler_query_available_agents_fn)(
    rocprofiler_agent_version_t version, rocprofiler_query_available_agents_cb_t callback,
    size_t agent_size, void* user_data);

/* Miscellaneous */
typedef rocprofiler_status_t (*rocprofiler_get_timestamp_fn)(rocprofiler_timestamp_t* ts);
typedef rocprofiler_status_t (*rocprofiler_get_thread_id_fn)(rocprofiler_thread_id_t* tid);
typedef const char* (*rocprofiler_get_status_name_fn)(rocprofiler_status_t status);
typedef const char* (*rocprofiler_get_status_string_fn)(rocprofiler_status_t status);
typedef rocprofiler_status_t (*rocprofiler_get_version_fn)(uint32_t* major, uint32_t* minor,
                                                           uint32_t* patch);
/* 1.x only */
typedef rocprofiler_status_t (*rocprofiler_get_version_triplet_fn)(rocprofiler_version_triplet_t* info);

/* Called by rocprofiler-register (not by tools) to hand a runtime's dispatch
 * tables to the SDK; the first call initializes the SDK. The simulator's
 * driver plays rocprofiler-register and calls it. */
typedef int (*rocprofiler_set_api_table_fn)(const char* name, uint64_t lib_version,
                                            uint64_t lib_instance, void** tables,
                                            uint64_t num_tables);

/* Registration state */
typedef rocprofiler_status_t (*rocprofiler_is_initialized_fn)(int* status);
typedef rocprofiler_status_t (*rocprofiler_is_finalized_fn)(int* status);
typedef rocprofiler_status_t (*rocprofiler_force_configure_fn)(rocprofiler_configure_any_fn configure_func);

/* Name and iteration queries (all versions) */
typedef rocprofiler_status_t (*rocprofiler_query_buffer_tracing_kind_name_fn)(
    rocprofiler_buffer_tracing_kind_t kind, const char** name, uint64_t* name_len);
typedef rocprofiler_status_t (*rocprofiler_query_buffer_tracing_kind_operation_name_fn)(
    rocprofiler_buffer_tracing_kind_t kind, rocprofiler_tracing_operation_t operation,
    const char** name, uint64_t* name_len);
typedef rocprofiler_status_t (*rocprofiler_iterate_buffer_tracing_kinds_fn)(
    rocprofiler_buffer_tracing_kind_cb_t callback, void* data);
typedef rocprofiler_status_t (*rocprofiler_iterate_buffer_tracing_kind_operations_fn)(
    rocprofiler_buffer_tracing_kind_t kind, rocprofiler_buffer_tracing_kind_operation_cb_t callback,
    void* data);
typedef rocprofiler_status_t (*rocprofiler_query_callback_tracing_kind_name_fn)(
    rocprofiler_callback_tracing_kind_t kind, const char** name, uint64_t* name_len);
typedef rocprofiler_status_t (*rocprofiler_query_callback_tracing_kind_operation_name_fn)(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t operation,
    const char** name, uint64_t* name_len);
typedef rocprofiler_status_t (*rocprofiler_iterate_callback_tracing_kinds_fn)(
    rocprofiler_callback_tracing_kind_cb_t callback, void* data);
typedef rocprofiler_status_t (*rocprofiler_iterate_callback_tracing_kind_operations_fn)(
    rocprofiler_callback_tracing_kind_t kind,
    rocprofiler_callback_tracing_kind_operation_cb_t callback, void* data);
typedef rocprofiler_status_t (*rocprofiler_query_external_correlation_id_request_kind_name_fn)(
    rocprofiler_external_correlation_id_request_kind_t kind, const char** name, uint64_t* name_len);

/* Argument iteration. The callback record is passed by value, hence two shapes. */
typedef rocprofiler_status_t (*rocprofiler_iterate_callback_tracing_kind_operation_args_v0_fn)(
    rocprofiler_callback_tracing_record_v0_t record,
    rocprofiler_callback_tracing_operation_args_cb_t callback, int32_t max_dereference_count,
    void* user_data);
typedef rocprofiler_status_t (*rocprofiler_iterate_callback_tracing_kind_operation_args_v1_fn)(
    rocprofiler_callback_tracing_record_v1_t record,
    rocprofiler_callback_tracing_operation_args_cb_t callback, int32_t max_dereference_count,
    void* user_data);
/* 1.x only */
typedef rocprofiler_status_t (*rocprofiler_iterate_buffer_tracing_record_args_fn)(
    rocprofiler_record_header_t record, rocprofiler_buffer_tracing_operation_args_cb_t callback,
    void* user_data);

/* External correlation ids */
typedef rocprofiler_status_t (*rocprofiler_push_external_correlation_id_fn)(
    rocprofiler_context_id_t context, rocprofiler_thread_id_t tid,
    rocprofiler_user_data_t external_correlation_id);
typedef rocprofiler_status_t (*rocprofiler_pop_external_correlation_id_fn)(
    rocprofiler_context_id_t context, rocprofiler_thread_id_t tid,
    rocprofiler_user_data_t* external_correlation_id);

/* ------------------------------------------------------------------------- */
/* Hardware counters: per-dispatch and per-device counting services           */
/* ------------------------------------------------------------------------- */
/*
 * Facts (docs/abi.md, "Hardware counters"): the SDK 0.x headers (0.4.0 of
 * ROCm 6.2, 0.5.0) and 1.x headers (1.2.1, the newest development copy) lay
 * these out identically except where a `_v0_t`/`_v1_t` pair says otherwise.
 * The services' function NAMES changed (profile_config -> counter_config,
 * buffered_dispatch_profile_counting -> buffer_dispatch_counting,
 * agent_profile -> device_counting); signatures did not, except the sampling
 * call (three arguments in 0.x, five in 1.x). A tool resolves each name it
 * knows and uses what the running library has.
 */

/* Counter handles {uint64_t handle;}. The config id is spelled
 * rocprofiler_profile_config_id_t in 0.x and rocprofiler_counter_config_id_t
 * in 1.x: same layout. */
typedef struct rocprofiler_counter_id_t {
    uint64_t handle;
} rocprofiler_counter_id_t;
typedef struct rocprofiler_counter_config_id_t {
    uint64_t handle;
} rocprofiler_counter_config_id_t;

/* One record's counter and dimension positions, encoded by the SDK (decode it
 * with rocprofiler_query_record_counter_id, never by hand). */
typedef uint64_t rocprofiler_counter_instance_id_t;
typedef uint64_t rocprofiler_counter_dimension_id_t;

/* Record kinds of ROCPROFILER_BUFFER_CATEGORY_COUNTERS (all versions). */
typedef enum rocprofiler_counter_record_kind_t {
    ROCPROFILER_COUNTER_RECORD_NONE = 0,
    ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER = 1,
    ROCPROFILER_COUNTER_RECORD_VALUE = 2,
} rocprofiler_counter_record_kind_t;

/* Version of the info struct rocprofiler_query_counter_info fills. VERSION_1
 * (1.x only) is not declared: the tool asks for VERSION_0 in every family. */
typedef enum rocprofiler_counter_info_version_id_t {
    ROCPROFILER_COUNTER_INFO_VERSION_NONE = 0,
    ROCPROFILER_COUNTER_INFO_VERSION_0 = 1,
} rocprofiler_counter_info_version_id_t;

/* Flags of the device sampling call. */
typedef enum rocprofiler_counter_flag_t {
    ROCPROFILER_COUNTER_FLAG_NONE = 0,
    ROCPROFILER_COUNTER_FLAG_ASYNC = 1,
} rocprofiler_counter_flag_t;

/* 48 bytes. The two flags are one-bit fields of the byte at 40 (is_constant
 * bit 0, is_derived bit 1); declared here as that byte. */
typedef struct rocprofiler_counter_info_v0_t {
    rocprofiler_counter_id_t id;
    const char* name;
    const char* description;
    const char* block;      /* hardware block; NULL or "" for a derived counter */
    const char* expression; /* derived counters only */
    uint8_t flags;          /* bit 0 is_constant, bit 1 is_derived */
} rocprofiler_counter_info_v0_t;

/* 24 bytes; `rocprofiler_record_dimension_info_t` in 0.x,
 * `rocprofiler_counter_record_dimension_info_t` in 1.x. */
typedef struct rocprofiler_counter_record_dimension_info_t {
    const char* name;
    size_t instance_size;
    rocprofiler_counter_dimension_id_t id;
} rocprofiler_counter_record_dimension_info_t;

/* One counter value of one instance. 0.x (`rocprofiler_record_counter_t`):
 * 32 bytes; 1.x (`rocprofiler_counter_record_t`) appends the agent: 40 bytes.
 * A buffered record is read through its header, one record per header, so
 * the common 32-byte prefix is all a reader needs. */
typedef struct rocprofiler_counter_record_v0_t {
    rocprofiler_counter_instance_id_t id;
    double counter_value;
    rocprofiler_dispatch_id_t dispatch_id; /* 0 = not a dispatch's (device counting) */
    rocprofiler_user_data_t user_data;
} rocprofiler_counter_record_v0_t;
typedef struct rocprofiler_counter_record_v1_t {
    rocprofiler_counter_instance_id_t id;
    double counter_value;
    rocprofiler_dispatch_id_t dispatch_id; /* as in the 0.x record */
    rocprofiler_user_data_t user_data;
    rocprofiler_agent_id_t agent_id;
} rocprofiler_counter_record_v1_t;

/* The dispatch callback's argument, passed BY VALUE: 168 bytes. The
 * correlation id is the 16-byte {internal, external} pair in every version
 * (`rocprofiler_correlation_id_t` of 0.x, `rocprofiler_async_correlation_id_t`
 * of 1.x). 0.x name: rocprofiler_profile_counting_dispatch_data_t. */
typedef struct rocprofiler_dispatch_counting_service_data_t {
    uint64_t size;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_dispatch_counting_service_data_t;

/* Buffered header record (kind PROFILE_COUNTING_DISPATCH_HEADER), put before
 * the dispatch's value records: 176 bytes. 0.x name:
 * rocprofiler_profile_counting_dispatch_record_t. */
typedef struct rocprofiler_dispatch_counting_service_record_t {
    uint64_t size;
    uint64_t num_records;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_dispatch_counting_service_record_t;

/* Called before each dispatch is enqueued: the tool writes the config to
 * collect (handle 0 = none) into `config`. */
typedef void (*rocprofiler_dispatch_counting_service_cb_t)(
    rocprofiler_dispatch_counting_service_data_t dispatch_data,
    rocprofiler_counter_config_id_t* config, rocprofiler_user_data_t* user_data,
    void* callback_data_args);

/* 1.x rocprofiler_configure_buffer_dispatch_counting_service; 0.x
 * rocprofiler_configure_buffered_dispatch_profile_counting_service. */
typedef rocprofiler_status_t (*rocprofiler_configure_buffer_dispatch_counting_service_fn)(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_id_t buffer_id,
    rocprofiler_dispatch_counting_service_cb_t callback, void* callback_data_args);

/* 1.x rocprofiler_create_counter_config; 0.x rocprofiler_create_profile_config. */
typedef rocprofiler_status_t (*rocprofiler_create_counter_config_fn)(
    rocprofiler_agent_id_t agent_id, rocprofiler_counter_id_t* counters_list,
    size_t counters_count, rocprofiler_counter_config_id_t* config_id);
typedef rocprofiler_status_t (*rocprofiler_destroy_counter_config_fn)(
    rocprofiler_counter_config_id_t config_id);

/* The counters an agent supports. */
typedef rocprofiler_status_t (*rocprofiler_available_counters_cb_t)(
    rocprofiler_agent_id_t agent_id, rocprofiler_counter_id_t* counters, size_t num_counters,
    void* user_data);
typedef rocprofiler_status_t (*rocprofiler_iterate_agent_supported_counters_fn)(
    rocprofiler_agent_id_t agent_id, rocprofiler_available_counters_cb_t cb, void* user_data);

/* `info` points to the struct of `version`. */
typedef rocprofiler_status_t (*rocprofiler_query_counter_info_fn)(
    rocprofiler_counter_id_t counter_id, rocprofiler_counter_info_version_id_t version,
    void* info);

/* Dimensions of a counter (deprecated in 1.x, still exported). */
typedef rocprofiler_status_t (*rocprofiler_available_dimensions_cb_t)(
    rocprofiler_counter_id_t id, const rocprofiler_counter_record_dimension_info_t* dim_info,
    size_t num_dims, void* user_data);
typedef rocprofiler_status_t (*rocprofiler_iterate_counter_dimensions_fn)(
    rocprofiler_counter_id_t id, rocprofiler_available_dimensions_cb_t info_cb, void* user_data);

/* The counter of a record's instance id. */
typedef rocprofiler_status_t (*rocprofiler_query_record_counter_id_fn)(
    rocprofiler_counter_instance_id_t id, rocprofiler_counter_id_t* counter_id);

/* Device (agent) counting: counters read on demand over the whole device.
 * 1.x rocprofiler_configure_device_counting_service; 0.x
 * rocprofiler_configure_agent_profile_counting_service. A context with it
 * cannot also hold a dispatch counting service. */
typedef rocprofiler_status_t (*rocprofiler_device_counting_agent_cb_t)(
    rocprofiler_context_id_t context_id, rocprofiler_counter_config_id_t config_id);
typedef void (*rocprofiler_device_counting_service_cb_t)(
    rocprofiler_context_id_t context_id, rocprofiler_agent_id_t agent_id,
    rocprofiler_device_counting_agent_cb_t set_config, void* user_data);
typedef rocprofiler_status_t (*rocprofiler_configure_device_counting_service_fn)(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_id_t buffer_id,
    rocprofiler_agent_id_t agent_id, rocprofiler_device_counting_service_cb_t cb,
    void* user_data);
/* 1.x rocprofiler_sample_device_counting_service (records to the buffer when
 * `output_records` is NULL). */
typedef rocprofiler_status_t (*rocprofiler_sample_device_counting_service_v1_fn)(
    rocprofiler_context_id_t context_id, rocprofiler_user_data_t user_data,
    rocprofiler_counter_flag_t flags, rocprofiler_counter_record_v1_t* output_records,
    size_t* rec_count);
/* 0.x rocprofiler_sample_agent_profile_counting_service. */
typedef rocprofiler_status_t (*rocprofiler_sample_device_counting_service_v0_fn)(
    rocprofiler_context_id_t context_id, rocprofiler_user_data_t user_data,
    rocprofiler_counter_flag_t flags);

#endif /* ROCPROF_XPLANE_SDK_H */
