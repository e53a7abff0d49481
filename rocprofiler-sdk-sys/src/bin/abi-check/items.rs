//! What the conformance check compares: every struct/union and enumerator we
//! declare, with our size/offset values taken from the Rust bindings (the
//! declarations the tool and simulator actually use).

use core::mem::{offset_of, size_of};
use rocprofiler_sdk_sys::*;

/// The ABI family of a set of real headers: SDK 0.x (ROCm 6.2–6.4) or 1.x
/// (ROCm 7.x). Decides which of our `_v0_t` / `_v1_t` twins the real
/// unsuffixed name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    V0,
    V1,
}

impl Family {
    pub fn of_version(version: u32) -> Family {
        if version >= ROCPROFILER_V1_MIN_VERSION {
            Family::V1
        } else {
            Family::V0
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Family::V0 => "v0",
            Family::V1 => "v1",
        }
    }
}

/// Which fields of ours are compared with the real struct.
#[derive(Clone, Copy, Debug)]
pub enum FieldSel {
    All,
    Only(&'static [&'static str]),
    AllBut(&'static [&'static str]),
}

impl FieldSel {
    pub fn includes(self, path: &str) -> bool {
        match self {
            FieldSel::All => true,
            FieldSel::Only(only) => only.contains(&path),
            FieldSel::AllBut(but) => !but.contains(&path),
        }
    }
}

/// How one item of ours relates to a struct in a given set of real headers.
#[derive(Clone, Debug)]
pub struct Rel {
    /// Name of the real struct/union.
    pub name: String,
    /// Whether `sizeof` must be equal (false where the real struct
    /// legitimately differs in size: the other family's twin, the agent prefix).
    pub size: bool,
    pub fields: FieldSel,
}

impl Rel {
    fn same(name: impl Into<String>) -> Rel {
        Rel {
            name: name.into(),
            size: true,
            fields: FieldSel::All,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Field {
    /// C member designator, e.g. `hipLaunchKernel.stream`.
    pub path: String,
    pub offset: usize,
    pub size: usize,
}

#[derive(Clone, Debug)]
pub struct Item {
    /// Name in our header.
    pub ours: &'static str,
    pub size: usize,
    pub fields: Vec<Field>,
}

#[derive(Clone, Copy, Debug)]
pub struct Enumerator {
    pub name: &'static str,
    pub value: i64,
}

/// Size of the field a (never called) accessor points at; lets the table name
/// a field once and get both its offset and its size from the bindings.
fn field_size<T, F>(_accessor: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// C designator from a Rust field path: bindgen's `__bindgen_anon_N` members
/// stand for C anonymous structs/unions, which C names transparently, and
/// bindgen appends `_` to C names that are Rust keywords (`type` → `type_`).
fn c_path(rust_path: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "type", "match", "ref", "fn", "mod", "use", "impl", "move", "loop",
    ];
    rust_path
        .split('.')
        .map(str::trim)
        .filter(|seg| !seg.starts_with("__bindgen_anon_"))
        .map(|seg| match seg.strip_suffix('_') {
            Some(kw) if KEYWORDS.contains(&kw) => kw,
            _ => seg,
        })
        .collect::<Vec<_>>()
        .join(".")
}

macro_rules! field {
    ($t:ident, $($p:ident).+) => {
        Field {
            path: c_path(stringify!($($p).+)),
            offset: offset_of!($t, $($p).+),
            #[allow(unused_unsafe)]
            // SAFETY: the accessor is only used for its type, never called.
            size: field_size::<$t, _>(|s| unsafe { &s.$($p).+ }),
        }
    };
}

macro_rules! item {
    ($t:ident, [$($($p:ident).+),* $(,)?]) => {
        Item {
            ours: stringify!($t),
            size: size_of::<$t>(),
            fields: vec![$(field!($t, $($p).+)),*],
        }
    };
}

macro_rules! enumerators {
    ($($name:ident),* $(,)?) => {
        vec![$(Enumerator { name: stringify!($name), value: $name as i64 }),*]
    };
}

/// Fields a `_v0_t` struct shares (same offset and size) with its `_v1_t`
/// twin, i.e. what can be compared against the other family's headers.
const CB_RECORD_SHARED: &[&str] = &["context_id", "thread_id"];
const CORR_SHARED: &[&str] = &["internal", "external"];
/// 1.x appended `agent_id` to the 0.x counter record.
const COUNTER_RECORD_SHARED: &[&str] = &["id", "counter_value", "dispatch_id", "user_data"];
/// API records embed the correlation id right after `operation`.
const API_RECORD_SHARED: &[&str] = &["size", "kind", "operation"];
/// 1.0.0 appended the addresses; everything before them is unchanged.
const MEMCPY_RECORD_SHARED: &[&str] = &[
    "size",
    "kind",
    "operation",
    "correlation_id",
    "thread_id",
    "start_timestamp",
    "end_timestamp",
    "dst_agent_id",
    "src_agent_id",
    "bytes",
];
const MEMCPY_DATA_SHARED: &[&str] = &[
    "size",
    "start_timestamp",
    "end_timestamp",
    "dst_agent_id",
    "src_agent_id",
    "bytes",
];
/// Kernel-symbol payload before 0.6.0 (72 bytes): everything up to the two
/// fields 0.6.0 appended.
const KERNEL_SYMBOL_PRE_0_6: &[&str] = &["kernel_code_entry_byte_offset", "kernel_address"];
/// `agent_id` joined `rocp_agent` (same offset) as a union member in 0.6.0.
const CODE_OBJECT_LOAD_PRE_0_6: &[&str] = &["agent_id"];
/// Marker-range members (MARKER_CORE_RANGE_API) exist since 1.0.0.
const MARKER_ARGS_PRE_1_0: &[&str] = &["roctxThreadRangeA.message", "roctxProcessRangeA.message"];
/// The `uint64_t` member of the HIP return-value union is 1.x only (the union's
/// size is set by `hipChannelFormatDesc` either way).
const HIP_RETVAL_PRE_1_0: &[&str] = &["uint64_t_retval"];
/// `rocprofiler_address_t` was a plain `uint64_t` in 0.4.0 and still in the
/// 0.5.0 line of October 2024, a union {`value`, `ptr`} at the end of that line
/// and {`handle`, `ptr`} in 0.6.0 (8 bytes always): before 0.6.0 only its
/// size is compared.
const ADDRESS_0_6: &[&str] = &["handle", "ptr"];
/// Every agent field we declare except `reserved_292`, which is
/// `runtime_visibility` (a bit-field) in the real 0.6+ struct.
const AGENT_SHARED: &[&str] = &[
    "size",
    "id",
    "type",
    "cpu_cores_count",
    "simd_count",
    "mem_banks_count",
    "caches_count",
    "io_links_count",
    "cpu_core_id_base",
    "simd_id_base",
    "max_waves_per_simd",
    "lds_size_in_kb",
    "gds_size_in_kb",
    "num_gws",
    "wave_front_size",
    "num_xcc",
    "cu_count",
    "array_count",
    "num_shader_banks",
    "simd_arrays_per_engine",
    "cu_per_simd_array",
    "simd_per_cu",
    "max_slots_scratch_cu",
    "gfx_target_version",
    "vendor_id",
    "device_id",
    "location_id",
    "domain",
    "drm_render_minor",
    "num_sdma_engines",
    "num_sdma_xgmi_engines",
    "num_sdma_queues_per_engine",
    "num_cp_queues",
    "max_engine_clk_ccompute",
    "max_engine_clk_fcompute",
    "sdma_fw_version",
    "fw_version",
    "capability",
    "cu_per_engine",
    "max_waves_per_cu",
    "family_id",
    "workgroup_max_size",
    "grid_max_size",
    "local_mem_size",
    "hive_id",
    "gpu_id",
    "workgroup_max_dim",
    "grid_max_dim",
    "mem_banks",
    "caches",
    "io_links",
    "name",
    "vendor_name",
    "product_name",
    "model_name",
    "node_id",
    "logical_node_id",
    "logical_node_type_id",
];

/// Field named in an injected-error run (`--inject-offset-error`): the
/// callback record's `kind`, in the twin of the family being checked.
pub fn inject_struct(family: Family) -> &'static str {
    match family {
        Family::V0 => "rocprofiler_callback_tracing_record_v0_t",
        Family::V1 => "rocprofiler_callback_tracing_record_v1_t",
    }
}

pub const INJECT_FIELD: &str = "kind";

/// How our item `ours` relates to real headers of SDK `version`
/// (`10000*major + 100*minor + patch`). Whether the real struct is declared at
/// all in a given (possibly trimmed) copy is decided by the caller.
///
/// Rules, from the layout facts in the team's reference notes (and confirmed
/// by compiling real 0.4.0–1.0.0 headers, see docs/abi.md):
/// * `X_v0_t` / `X_v1_t` of ours is the real `X_t` of its own family (full
///   comparison); against the other family only the fields the twins share
///   are compared, and the client id (whose `name` moved) not at all;
/// * the agent is compared field by field except `reserved_292`, never by
///   size (296/304/312 bytes depending on the version);
/// * a few payloads gained members before 1.0 (kernel symbol, code-object
///   load, address union, marker args, HIP return value): older versions are
///   compared without those members.
pub fn relation(ours: &'static str, version: u32) -> Option<Rel> {
    let family = Family::of_version(version);
    let fields = |name: &str, sel: FieldSel| {
        Some(Rel {
            name: name.to_string(),
            size: false,
            fields: sel,
        })
    };
    let all_but = |but: &'static [&'static str]| Rel {
        name: ours.to_string(),
        size: true,
        fields: FieldSel::AllBut(but),
    };
    match ours {
        "rocprofiler_agent_v0_t" => return fields(ours, FieldSel::Only(AGENT_SHARED)),
        // Its real name carries the `_v0` (a version of the info struct, in every family).
        "rocprofiler_counter_info_v0_t" => return Some(Rel::same(ours)),
        // 0.x spellings of the counter types (renamed in 1.x, same layout).
        "rocprofiler_counter_config_id_t" if version < 10000 => {
            return Some(Rel::same("rocprofiler_profile_config_id_t"))
        }
        "rocprofiler_counter_record_dimension_info_t" if version < 10000 => {
            return Some(Rel::same("rocprofiler_record_dimension_info_t"))
        }
        "rocprofiler_dispatch_counting_service_data_t" if version < 10000 => {
            return Some(Rel::same("rocprofiler_profile_counting_dispatch_data_t"))
        }
        "rocprofiler_dispatch_counting_service_record_t" if version < 10000 => {
            return Some(Rel::same("rocprofiler_profile_counting_dispatch_record_t"))
        }
        "rocprofiler_counter_record_v0_t" if version < 10000 => {
            return Some(Rel::same("rocprofiler_record_counter_t"))
        }
        "rocprofiler_counter_record_v1_t" if version < 10000 => {
            return fields(
                "rocprofiler_record_counter_t",
                FieldSel::Only(COUNTER_RECORD_SHARED),
            )
        }
        "rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t"
            if version < 600 =>
        {
            return fields(ours, FieldSel::AllBut(KERNEL_SYMBOL_PRE_0_6));
        }
        "rocprofiler_callback_tracing_code_object_load_data_t" if version < 600 => {
            return Some(all_but(CODE_OBJECT_LOAD_PRE_0_6));
        }
        "rocprofiler_marker_api_args_t" if version < 10000 => {
            return Some(all_but(MARKER_ARGS_PRE_1_0));
        }
        "rocprofiler_hip_api_retval_t" if version < 10000 => {
            return Some(all_but(HIP_RETVAL_PRE_1_0));
        }
        "rocprofiler_address_t" if version < 600 => {
            return Some(Rel {
                fields: FieldSel::Only(&[]),
                ..Rel::same(ours)
            });
        }
        "rocprofiler_address_t" if version < 10000 => {
            return Some(Rel {
                fields: FieldSel::Only(ADDRESS_0_6),
                ..Rel::same(ours)
            });
        }
        _ => {}
    }
    let (base, own) = if let Some(b) = ours.strip_suffix("_v0_t") {
        (b, Family::V0)
    } else if let Some(b) = ours.strip_suffix("_v1_t") {
        (b, Family::V1)
    } else {
        return Some(Rel::same(ours));
    };
    let real = format!("{base}_t");
    if own == family {
        return Some(Rel::same(real));
    }
    let shared = match base {
        "rocprofiler_correlation_id" => CORR_SHARED,
        "rocprofiler_callback_tracing_record" => CB_RECORD_SHARED,
        "rocprofiler_buffer_tracing_hip_api_record"
        | "rocprofiler_buffer_tracing_marker_api_record" => API_RECORD_SHARED,
        "rocprofiler_buffer_tracing_memory_copy_record" => MEMCPY_RECORD_SHARED,
        "rocprofiler_callback_tracing_memory_copy_data" => MEMCPY_DATA_SHARED,
        "rocprofiler_counter_record" => COUNTER_RECORD_SHARED,
        _ => return None,
    };
    fields(&real, FieldSel::Only(shared))
}

pub fn items() -> Vec<Item> {
    vec![
        // Handles and small types.
        item!(rocprofiler_context_id_t, [handle]),
        item!(rocprofiler_buffer_id_t, [handle]),
        item!(rocprofiler_agent_id_t, [handle]),
        item!(rocprofiler_queue_id_t, [handle]),
        item!(rocprofiler_stream_id_t, [handle]),
        item!(rocprofiler_graph_exec_id_t, [handle]),
        item!(rocprofiler_callback_thread_t, [handle]),
        item!(hsa_agent_t, [handle]),
        item!(rocprofiler_user_data_t, [value, ptr]),
        item!(rocprofiler_address_t, [handle, value, ptr]),
        item!(rocprofiler_dim3_t, [x, y, z]),
        item!(rocprofiler_version_triplet_t, [major, minor, patch]),
        item!(hipChannelFormatDesc, [x, y, z, w, f]),
        item!(hipPitchedPtr, [ptr, pitch, xsize, ysize]),
        item!(hipExtent, [width, height, depth]),
        item!(
            hipLaunchConfig_t,
            [gridDim, blockDim, dynamicSmemBytes, stream, attrs, numAttrs]
        ),
        // Correlation and client ids.
        item!(rocprofiler_correlation_id_v0_t, [internal, external]),
        item!(
            rocprofiler_correlation_id_v1_t,
            [internal, external, ancestor]
        ),
        item!(rocprofiler_async_correlation_id_t, [internal, external]),
        item!(rocprofiler_client_id_v0_t, [name, handle]),
        item!(rocprofiler_client_id_v1_t, [size, name, handle]),
        item!(
            rocprofiler_tool_configure_result_t,
            [size, initialize, finalize, tool_data]
        ),
        item!(
            rocprofiler_tool_configure_attach_result_t,
            [size, tool_attach, tool_detach, tool_data]
        ),
        // Record header.
        item!(
            rocprofiler_record_header_t,
            [
                __bindgen_anon_1.__bindgen_anon_1.category,
                __bindgen_anon_1.__bindgen_anon_1.kind,
                __bindgen_anon_1.hash,
                payload,
            ]
        ),
        // Kernel dispatch.
        item!(
            rocprofiler_kernel_dispatch_info_t,
            [
                size,
                agent_id,
                queue_id,
                kernel_id,
                dispatch_id,
                private_segment_size,
                group_segment_size,
                workgroup_size,
                grid_size,
                reserved_padding,
            ]
        ),
        item!(
            rocprofiler_buffer_tracing_kernel_dispatch_record_t,
            [
                size,
                kind,
                operation,
                correlation_id,
                thread_id,
                start_timestamp,
                end_timestamp,
                dispatch_info,
            ]
        ),
        item!(
            rocprofiler_callback_tracing_kernel_dispatch_data_t,
            [size, start_timestamp, end_timestamp, dispatch_info,]
        ),
        // Memory copy.
        item!(
            rocprofiler_buffer_tracing_memory_copy_record_v0_t,
            [
                size,
                kind,
                operation,
                correlation_id,
                thread_id,
                start_timestamp,
                end_timestamp,
                dst_agent_id,
                src_agent_id,
                bytes,
            ]
        ),
        item!(
            rocprofiler_buffer_tracing_memory_copy_record_v1_t,
            [
                size,
                kind,
                operation,
                correlation_id,
                thread_id,
                start_timestamp,
                end_timestamp,
                dst_agent_id,
                src_agent_id,
                bytes,
                dst_address,
                src_address,
            ]
        ),
        item!(
            rocprofiler_callback_tracing_memory_copy_data_v0_t,
            [
                size,
                start_timestamp,
                end_timestamp,
                dst_agent_id,
                src_agent_id,
                bytes,
            ]
        ),
        item!(
            rocprofiler_callback_tracing_memory_copy_data_v1_t,
            [
                size,
                start_timestamp,
                end_timestamp,
                dst_agent_id,
                src_agent_id,
                bytes,
                dst_address,
                src_address,
            ]
        ),
        // API records.
        item!(
            rocprofiler_buffer_tracing_hip_api_record_v0_t,
            [
                size,
                kind,
                operation,
                correlation_id,
                start_timestamp,
                end_timestamp,
                thread_id,
            ]
        ),
        item!(
            rocprofiler_buffer_tracing_hip_api_record_v1_t,
            [
                size,
                kind,
                operation,
                correlation_id,
                start_timestamp,
                end_timestamp,
                thread_id,
            ]
        ),
        item!(
            rocprofiler_buffer_tracing_marker_api_record_v0_t,
            [
                size,
                kind,
                operation,
                correlation_id,
                start_timestamp,
                end_timestamp,
                thread_id,
            ]
        ),
        item!(
            rocprofiler_buffer_tracing_marker_api_record_v1_t,
            [
                size,
                kind,
                operation,
                correlation_id,
                start_timestamp,
                end_timestamp,
                thread_id,
            ]
        ),
        item!(
            rocprofiler_buffer_tracing_hip_api_ext_record_t,
            [
                size,
                kind,
                operation,
                correlation_id,
                start_timestamp,
                end_timestamp,
                thread_id,
                args,
                retval,
            ]
        ),
        item!(
            rocprofiler_buffer_tracing_correlation_id_retirement_record_t,
            [size, kind, timestamp, internal_correlation_id,]
        ),
        // HIP payload.
        item!(
            rocprofiler_hip_api_args_t,
            [
                hipLaunchKernel.function_address,
                hipLaunchKernel.numBlocks,
                hipLaunchKernel.dimBlocks,
                hipLaunchKernel.args,
                hipLaunchKernel.sharedMemBytes,
                hipLaunchKernel.stream,
                hipModuleLaunchKernel.func,
                hipModuleLaunchKernel.gridDimX,
                hipModuleLaunchKernel.gridDimY,
                hipModuleLaunchKernel.gridDimZ,
                hipModuleLaunchKernel.blockDimX,
                hipModuleLaunchKernel.blockDimY,
                hipModuleLaunchKernel.blockDimZ,
                hipModuleLaunchKernel.sharedMemBytes,
                hipModuleLaunchKernel.stream,
                hipModuleLaunchKernel.kernelParams,
                hipModuleLaunchKernel.extra,
                hipExtLaunchKernel.function_address,
                hipExtLaunchKernel.numBlocks,
                hipExtLaunchKernel.dimBlocks,
                hipExtLaunchKernel.args,
                hipExtLaunchKernel.sharedMemBytes,
                hipExtLaunchKernel.stream,
                hipExtLaunchKernel.startEvent,
                hipExtLaunchKernel.stopEvent,
                hipExtLaunchKernel.flags,
                hipGraphLaunch.graphExec,
                hipGraphLaunch.stream,
                hipMemcpy.dst,
                hipMemcpy.src,
                hipMemcpy.sizeBytes,
                hipMemcpy.kind,
                hipMemcpyAsync.dst,
                hipMemcpyAsync.src,
                hipMemcpyAsync.sizeBytes,
                hipMemcpyAsync.kind,
                hipMemcpyAsync.stream,
                hipMemcpyWithStream.dst,
                hipMemcpyWithStream.src,
                hipMemcpyWithStream.sizeBytes,
                hipMemcpyWithStream.kind,
                hipMemcpyWithStream.stream,
                hipMemsetAsync.dst,
                hipMemsetAsync.value,
                hipMemsetAsync.sizeBytes,
                hipMemsetAsync.stream,
                hipMemset.dst,
                hipMemset.value,
                hipMemset.sizeBytes,
                hipEventRecord.event,
                hipEventRecord.stream,
                hipStreamWaitEvent.stream,
                hipStreamWaitEvent.event,
                hipStreamWaitEvent.flags,
                hipEventSynchronize.event,
                hipStreamSynchronize.stream,
                hipStreamCreate.stream,
                hipStreamCreateWithFlags.stream,
                hipStreamCreateWithFlags.flags,
                hipStreamDestroy.stream,
                hipSetDevice.deviceId,
                hipMemcpy2DAsync.kind,
                hipMemcpy2DAsync.stream,
                hipMemcpy3DAsync.stream,
                hipMemcpyToSymbolAsync.kind,
                hipMemcpyToSymbolAsync.stream,
                hipMemcpyFromSymbolAsync.stream,
                hipMemcpyHtoDAsync.stream,
                hipMemcpyPeerAsync.srcDevice,
                hipMemcpyPeerAsync.stream,
                hipMemsetD8Async.value,
                hipMemsetD8Async.stream,
                hipMemsetD16Async.stream,
                hipMemsetD32Async.stream,
                hipMemset2DAsync.stream,
                hipMemset3DAsync.value,
                hipMemset3DAsync.extent,
                hipMemset3DAsync.stream,
                hipMallocAsync.stream,
                hipMallocFromPoolAsync.stream,
                hipFreeAsync.stream,
                hipMalloc.ptr,
                hipMalloc.size,
                hipFree.ptr,
                hipHostMalloc.ptr,
                hipHostMalloc.size,
                hipHostMalloc.flags,
                hipHostFree.ptr,
                hipMallocManaged.dev_ptr,
                hipMallocManaged.size,
                hipMallocManaged.flags,
                hipMallocHost.ptr,
                hipMallocHost.size,
                hipHostAlloc.ptr,
                hipHostAlloc.size,
                hipHostAlloc.flags,
                hipHostRegister.hostPtr,
                hipHostRegister.sizeBytes,
                hipHostRegister.flags,
                hipHostUnregister.hostPtr,
                hipExtMallocWithFlags.ptr,
                hipExtMallocWithFlags.sizeBytes,
                hipExtMallocWithFlags.flags,
                hipFreeHost.ptr,
                hipMallocAsync.dev_ptr,
                hipMallocAsync.size,
                hipFreeAsync.dev_ptr,
                hipLaunchKernelExC.config,
                hipStreamCreateWithPriority.priority,
                hipExtStreamCreateWithCUMask.cuMask,
                hipEventRecordWithFlags.flags,
                hipEventQuery.event,
                hipStreamQuery.stream,
            ]
        ),
        item!(
            rocprofiler_hip_api_retval_t,
            [
                uint64_t_retval,
                int_retval,
                const_charp_retval,
                hipError_t_retval,
                hipChannelFormatDesc_retval,
                voidpp_retval,
            ]
        ),
        item!(
            rocprofiler_callback_tracing_hip_api_data_t,
            [size, args, retval,]
        ),
        // Marker payload.
        item!(
            rocprofiler_marker_api_args_t,
            [
                roctxMarkA.message,
                roctxRangePushA.message,
                roctxRangeStartA.message,
                roctxRangeStop.id,
                roctxThreadRangeA.message,
                roctxProcessRangeA.message,
            ]
        ),
        item!(
            rocprofiler_marker_api_retval_t,
            [int32_t_retval, int64_t_retval, roctx_range_id_t_retval,]
        ),
        item!(
            rocprofiler_callback_tracing_marker_api_data_t,
            [size, args, retval,]
        ),
        // Code objects, symbols, streams.
        item!(
            rocprofiler_callback_tracing_code_object_load_data_t,
            [
                size,
                code_object_id,
                agent_id,
                hsa_agent,
                uri,
                load_base,
                load_size,
                load_delta,
                storage_type,
                __bindgen_anon_1.storage_file,
                __bindgen_anon_1.memory_base,
                memory_size,
            ]
        ),
        item!(
            rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
            [
                size,
                kernel_id,
                code_object_id,
                kernel_name,
                kernel_object,
                kernarg_segment_size,
                kernarg_segment_alignment,
                group_segment_size,
                private_segment_size,
                sgpr_count,
                arch_vgpr_count,
                accum_vgpr_count,
                kernel_code_entry_byte_offset,
                kernel_address,
            ]
        ),
        item!(
            rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
            [
                size,
                host_function_id,
                kernel_id,
                code_object_id,
                host_function,
                modules,
                device_function,
                thread_limit,
                thread_ids,
                block_ids,
                block_dims,
                grid_dims,
                workgroup_size,
            ]
        ),
        item!(
            rocprofiler_callback_tracing_hip_stream_data_t,
            [size, stream_id, stream_value]
        ),
        item!(
            rocprofiler_callback_tracing_hip_graph_data_t,
            [size, graph_exec_id, graph_exec_value]
        ),
        item!(
            rocprofiler_callback_tracing_hip_event_data_t,
            [
                size,
                start_timestamp,
                end_timestamp,
                agent_id,
                queue_id,
                hip_event_handle,
                source_queue_id,
            ]
        ),
        item!(
            rocprofiler_buffer_tracing_hip_event_record_t,
            [
                size,
                kind,
                operation,
                correlation_id,
                thread_id,
                start_timestamp,
                end_timestamp,
                agent_id,
                queue_id,
                hip_event_handle,
                source_queue_id,
            ]
        ),
        // Callback record.
        item!(
            rocprofiler_callback_tracing_record_v0_t,
            [
                context_id,
                thread_id,
                correlation_id,
                kind,
                operation,
                phase,
                payload,
            ]
        ),
        item!(
            rocprofiler_callback_tracing_record_v1_t,
            [
                context_id,
                thread_id,
                correlation_id,
                kind,
                operation,
                phase,
                payload,
            ]
        ),
        // Agent prefix.
        item!(
            rocprofiler_agent_v0_t,
            [
                size,
                id,
                type_,
                cpu_cores_count,
                simd_count,
                mem_banks_count,
                caches_count,
                io_links_count,
                cpu_core_id_base,
                simd_id_base,
                max_waves_per_simd,
                lds_size_in_kb,
                gds_size_in_kb,
                num_gws,
                wave_front_size,
                num_xcc,
                cu_count,
                array_count,
                num_shader_banks,
                simd_arrays_per_engine,
                cu_per_simd_array,
                simd_per_cu,
                max_slots_scratch_cu,
                gfx_target_version,
                vendor_id,
                device_id,
                location_id,
                domain,
                drm_render_minor,
                num_sdma_engines,
                num_sdma_xgmi_engines,
                num_sdma_queues_per_engine,
                num_cp_queues,
                max_engine_clk_ccompute,
                max_engine_clk_fcompute,
                sdma_fw_version,
                fw_version,
                capability,
                cu_per_engine,
                max_waves_per_cu,
                family_id,
                workgroup_max_size,
                grid_max_size,
                local_mem_size,
                hive_id,
                gpu_id,
                workgroup_max_dim,
                grid_max_dim,
                mem_banks,
                caches,
                io_links,
                name,
                vendor_name,
                product_name,
                model_name,
                node_id,
                logical_node_id,
                logical_node_type_id,
                reserved_292,
            ]
        ),
        item!(
            rocprofiler_agent_mem_bank_t,
            [heap_type, flags, width, mem_clk_max, size_in_bytes]
        ),
        // Hardware counters (docs/abi.md, "Hardware counters").
        item!(rocprofiler_counter_id_t, [handle]),
        item!(rocprofiler_counter_config_id_t, [handle]),
        item!(
            rocprofiler_counter_record_dimension_info_t,
            [name, instance_size, id]
        ),
        item!(
            rocprofiler_counter_record_v0_t,
            [id, counter_value, dispatch_id, user_data]
        ),
        item!(
            rocprofiler_counter_record_v1_t,
            [id, counter_value, dispatch_id, user_data, agent_id]
        ),
        item!(
            rocprofiler_counter_info_v0_t,
            [id, name, description, block, expression]
        ),
        item!(
            rocprofiler_dispatch_counting_service_data_t,
            [
                size,
                correlation_id,
                start_timestamp,
                end_timestamp,
                dispatch_info
            ]
        ),
        item!(
            rocprofiler_dispatch_counting_service_record_t,
            [
                size,
                num_records,
                correlation_id,
                start_timestamp,
                end_timestamp,
                dispatch_info
            ]
        ),
    ]
}

pub fn enumerators() -> Vec<Enumerator> {
    enumerators![
        ROCPROFILER_COUNTER_RECORD_NONE,
        ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER,
        ROCPROFILER_COUNTER_RECORD_VALUE,
        ROCPROFILER_COUNTER_INFO_VERSION_NONE,
        ROCPROFILER_COUNTER_INFO_VERSION_0,
        ROCPROFILER_COUNTER_FLAG_NONE,
        ROCPROFILER_COUNTER_FLAG_ASYNC,
        ROCPROFILER_STATUS_SUCCESS,
        ROCPROFILER_STATUS_ERROR,
        ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
        ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
        ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
        ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
        ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND,
        ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
        ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
        ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
        ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID,
        ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED,
        ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT,
        ROCPROFILER_BUFFER_TRACING_NONE,
        ROCPROFILER_BUFFER_TRACING_HSA_CORE_API,
        ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API,
        ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API,
        ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API,
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
        ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API,
        ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API,
        ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API,
        ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API,
        ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
        ROCPROFILER_CALLBACK_TRACING_NONE,
        ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
        ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API,
        ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API,
        ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API,
        ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
        ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API,
        ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
        ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
        ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
        ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY,
        ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
        ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
        ROCPROFILER_CALLBACK_PHASE_NONE,
        ROCPROFILER_CALLBACK_PHASE_ENTER,
        ROCPROFILER_CALLBACK_PHASE_LOAD,
        ROCPROFILER_CALLBACK_PHASE_EXIT,
        ROCPROFILER_CALLBACK_PHASE_UNLOAD,
        ROCPROFILER_CALLBACK_PHASE_LAST,
        ROCPROFILER_AGENT_TYPE_NONE,
        ROCPROFILER_AGENT_TYPE_CPU,
        ROCPROFILER_AGENT_TYPE_GPU,
        ROCPROFILER_AGENT_TYPE_LAST,
        HSA_HEAPTYPE_SYSTEM,
        HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC,
        HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE,
        ROCPROFILER_AGENT_INFO_VERSION_NONE,
        ROCPROFILER_AGENT_INFO_VERSION_0,
        ROCPROFILER_AGENT_INFO_VERSION_LAST,
        ROCPROFILER_BUFFER_CATEGORY_NONE,
        ROCPROFILER_BUFFER_CATEGORY_TRACING,
        ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING,
        ROCPROFILER_BUFFER_CATEGORY_COUNTERS,
        ROCPROFILER_BUFFER_CATEGORY_LAST,
        ROCPROFILER_BUFFER_POLICY_NONE,
        ROCPROFILER_BUFFER_POLICY_DISCARD,
        ROCPROFILER_BUFFER_POLICY_LOSSLESS,
        ROCPROFILER_BUFFER_POLICY_LAST,
        ROCPROFILER_KERNEL_DISPATCH_NONE,
        ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
        ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
        ROCPROFILER_KERNEL_DISPATCH_LAST,
        ROCPROFILER_MEMORY_COPY_NONE,
        ROCPROFILER_MEMORY_COPY_HOST_TO_HOST,
        ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE,
        ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST,
        ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE,
        ROCPROFILER_MEMORY_COPY_LAST,
        ROCPROFILER_CODE_OBJECT_NONE,
        ROCPROFILER_CODE_OBJECT_LOAD,
        ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER,
        ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER,
        ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_NONE,
        ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE,
        ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY,
        ROCPROFILER_HIP_STREAM_NONE,
        ROCPROFILER_HIP_STREAM_CREATE,
        ROCPROFILER_HIP_STREAM_DESTROY,
        ROCPROFILER_HIP_STREAM_SET,
        ROCPROFILER_HIP_STREAM_LAST,
        ROCPROFILER_HIP_GRAPH_OPERATION_NONE,
        ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_CREATE,
        ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_DESTROY,
        ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH,
        ROCPROFILER_HIP_GRAPH_OPERATION_LAST,
        ROCPROFILER_HIP_EVENT_NONE,
        ROCPROFILER_HIP_EVENT_RECORD,
        ROCPROFILER_HIP_EVENT_WAIT,
        ROCPROFILER_HIP_EVENT_LAST,
        ROCPROFILER_MARKER_CORE_API_ID_NONE,
        ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA,
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA,
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop,
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA,
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop,
        ROCPROFILER_MARKER_CORE_API_ID_roctxGetThreadId,
        ROCPROFILER_MARKER_CORE_API_ID_LAST,
        ROCPROFILER_MARKER_CONTROL_API_ID_NONE,
        ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause,
        ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerResume,
        ROCPROFILER_MARKER_CONTROL_API_ID_LAST,
        ROCPROFILER_MARKER_NAME_API_ID_NONE,
        ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread,
        ROCPROFILER_MARKER_NAME_API_ID_roctxNameHsaAgent,
        ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipDevice,
        ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream,
        ROCPROFILER_MARKER_NAME_API_ID_LAST,
        ROCPROFILER_LIBRARY,
        ROCPROFILER_HSA_LIBRARY,
        ROCPROFILER_HIP_LIBRARY,
        ROCPROFILER_MARKER_LIBRARY,
        ROCPROFILER_RCCL_LIBRARY,
        ROCPROFILER_ROCDECODE_LIBRARY,
        ROCPROFILER_ROCJPEG_LIBRARY,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_CORE_API,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_AMD_EXT_API,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_IMAGE_EXT_API,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_FINALIZE_EXT_API,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_COMPILER_API,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_API,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CONTROL_API,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_NAME_API,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_SCRATCH_MEMORY,
    ]
}

/// A function-pointer typedef of ours and the real declaration with the same
/// C signature (a function, via `decltype(&f)`, or a real typedef).
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    pub ours: &'static str,
    /// The real declaration: a function name (compared as `decltype(&name)`)
    /// or a real typedef. `None` where there is no real counterpart by design.
    pub real: Option<RealDecl>,
    /// `Some(f)`: only comparable with headers of family `f` (the `_v0`/`_v1`
    /// shapes that carry family-specific structs by value).
    pub family: Option<Family>,
}

#[derive(Clone, Copy, Debug)]
pub enum RealDecl {
    Function(&'static str),
    Typedef(&'static str),
}

impl RealDecl {
    /// The identifier that must be declared in the real headers.
    pub fn ident(self) -> &'static str {
        match self {
            RealDecl::Function(n) | RealDecl::Typedef(n) => n,
        }
    }

    /// C++ type expression for the signature probe.
    pub fn type_expr(self) -> String {
        match self {
            RealDecl::Function(n) => format!("decltype(&{n})"),
            RealDecl::Typedef(n) => n.to_string(),
        }
    }
}

impl Signature {
    /// The real declaration to compare with in headers of `family`.
    pub fn real_for(&self, family: Family) -> Option<RealDecl> {
        match self.family {
            Some(f) if f != family => None,
            _ => self.real,
        }
    }
}

macro_rules! sigs {
    ($($ours:ident => $kind:ident $(($real:ident))? $([$fam:ident])?),* $(,)?) => {
        vec![$(Signature {
            ours: stringify!($ours),
            real: sigs!(@real $kind $($real)?),
            family: sigs!(@fam $($fam)?),
        }),*]
    };
    (@real fun $real:ident) => { Some(RealDecl::Function(stringify!($real))) };
    (@real ty $real:ident) => { Some(RealDecl::Typedef(stringify!($real))) };
    (@real none) => { None };
    (@fam) => { None };
    (@fam $fam:ident) => { Some(Family::$fam) };
}

/// Every function-pointer typedef in our header and its real counterpart.
/// Whether a given copy of the real headers declares it is decided by the
/// caller (the trimmed triton copy lacks context.h, rocprofiler.h and the
/// name/iterate parts of the tracing headers).
pub fn signatures() -> Vec<Signature> {
    sigs![
        rocprofiler_create_buffer_fn => fun(rocprofiler_create_buffer),
        rocprofiler_destroy_buffer_fn => fun(rocprofiler_destroy_buffer),
        rocprofiler_flush_buffer_fn => fun(rocprofiler_flush_buffer),
        rocprofiler_configure_buffer_tracing_service_fn => fun(rocprofiler_configure_buffer_tracing_service),
        rocprofiler_configure_callback_tracing_service_fn => fun(rocprofiler_configure_callback_tracing_service),
        rocprofiler_configure_external_correlation_id_request_service_fn => fun(rocprofiler_configure_external_correlation_id_request_service),
        rocprofiler_query_external_correlation_id_request_kind_name_fn => fun(rocprofiler_query_external_correlation_id_request_kind_name),
        rocprofiler_push_external_correlation_id_fn => fun(rocprofiler_push_external_correlation_id),
        rocprofiler_pop_external_correlation_id_fn => fun(rocprofiler_pop_external_correlation_id),
        rocprofiler_at_internal_thread_create_fn => fun(rocprofiler_at_internal_thread_create),
        rocprofiler_create_callback_thread_fn => fun(rocprofiler_create_callback_thread),
        rocprofiler_assign_callback_thread_fn => fun(rocprofiler_assign_callback_thread),
        rocprofiler_query_available_agents_fn => fun(rocprofiler_query_available_agents),
        rocprofiler_is_initialized_fn => fun(rocprofiler_is_initialized),
        rocprofiler_is_finalized_fn => fun(rocprofiler_is_finalized),
        rocprofiler_force_configure_fn => fun(rocprofiler_force_configure),
        rocprofiler_configure_v0_fn => fun(rocprofiler_configure) [V0],
        rocprofiler_configure_v1_fn => fun(rocprofiler_configure) [V1],
        rocprofiler_configure_any_fn => ty(rocprofiler_configure_func_t),
        rocprofiler_buffer_tracing_cb_t => ty(rocprofiler_buffer_tracing_cb_t),
        rocprofiler_callback_tracing_cb_v0_t => ty(rocprofiler_callback_tracing_cb_t) [V0],
        rocprofiler_callback_tracing_cb_v1_t => ty(rocprofiler_callback_tracing_cb_t) [V1],
        rocprofiler_query_available_agents_cb_t => ty(rocprofiler_query_available_agents_cb_t),
        rocprofiler_external_correlation_id_request_cb_t => ty(rocprofiler_external_correlation_id_request_cb_t),
        rocprofiler_internal_thread_library_cb_t => ty(rocprofiler_internal_thread_library_cb_t),
        rocprofiler_client_finalize_v0_t => ty(rocprofiler_client_finalize_t) [V0],
        rocprofiler_client_finalize_v1_t => ty(rocprofiler_client_finalize_t) [V1],
        rocprofiler_tool_initialize_t => ty(rocprofiler_tool_initialize_t),
        rocprofiler_tool_finalize_t => ty(rocprofiler_tool_finalize_t),
        rocprofiler_client_detach_t => ty(rocprofiler_client_detach_t) [V1],
        rocprofiler_tool_attach_t => ty(rocprofiler_tool_attach_t) [V1],
        rocprofiler_tool_detach_t => ty(rocprofiler_tool_detach_t),
        rocprofiler_configure_attach_fn => fun(rocprofiler_configure_attach) [V1],
        rocprofiler_create_context_fn => fun(rocprofiler_create_context),
        rocprofiler_start_context_fn => fun(rocprofiler_start_context),
        rocprofiler_stop_context_fn => fun(rocprofiler_stop_context),
        rocprofiler_context_is_active_fn => fun(rocprofiler_context_is_active),
        rocprofiler_context_is_valid_fn => fun(rocprofiler_context_is_valid),
        rocprofiler_get_timestamp_fn => fun(rocprofiler_get_timestamp),
        rocprofiler_get_thread_id_fn => fun(rocprofiler_get_thread_id),
        rocprofiler_get_status_name_fn => fun(rocprofiler_get_status_name),
        rocprofiler_get_status_string_fn => fun(rocprofiler_get_status_string),
        rocprofiler_get_version_fn => fun(rocprofiler_get_version),
        rocprofiler_get_version_triplet_fn => fun(rocprofiler_get_version_triplet),
        rocprofiler_query_buffer_tracing_kind_name_fn => fun(rocprofiler_query_buffer_tracing_kind_name),
        rocprofiler_query_buffer_tracing_kind_operation_name_fn => fun(rocprofiler_query_buffer_tracing_kind_operation_name),
        rocprofiler_iterate_buffer_tracing_kinds_fn => fun(rocprofiler_iterate_buffer_tracing_kinds),
        rocprofiler_iterate_buffer_tracing_kind_operations_fn => fun(rocprofiler_iterate_buffer_tracing_kind_operations),
        rocprofiler_query_callback_tracing_kind_name_fn => fun(rocprofiler_query_callback_tracing_kind_name),
        rocprofiler_query_callback_tracing_kind_operation_name_fn => fun(rocprofiler_query_callback_tracing_kind_operation_name),
        rocprofiler_iterate_callback_tracing_kinds_fn => fun(rocprofiler_iterate_callback_tracing_kinds),
        rocprofiler_iterate_callback_tracing_kind_operations_fn => fun(rocprofiler_iterate_callback_tracing_kind_operations),
        rocprofiler_iterate_callback_tracing_kind_operation_args_v0_fn => fun(rocprofiler_iterate_callback_tracing_kind_operation_args) [V0],
        rocprofiler_iterate_callback_tracing_kind_operation_args_v1_fn => fun(rocprofiler_iterate_callback_tracing_kind_operation_args) [V1],
        rocprofiler_iterate_buffer_tracing_record_args_fn => fun(rocprofiler_iterate_buffer_tracing_record_args),
        rocprofiler_buffer_tracing_kind_cb_t => ty(rocprofiler_buffer_tracing_kind_cb_t),
        rocprofiler_buffer_tracing_kind_operation_cb_t => ty(rocprofiler_buffer_tracing_kind_operation_cb_t),
        rocprofiler_callback_tracing_kind_cb_t => ty(rocprofiler_callback_tracing_kind_cb_t),
        rocprofiler_callback_tracing_kind_operation_cb_t => ty(rocprofiler_callback_tracing_kind_operation_cb_t),
        rocprofiler_callback_tracing_operation_args_cb_t => ty(rocprofiler_callback_tracing_operation_args_cb_t),
        rocprofiler_buffer_tracing_operation_args_cb_t => ty(rocprofiler_buffer_tracing_operation_args_cb_t),
        rocprofiler_dispatch_counting_service_cb_t => ty(rocprofiler_dispatch_counting_service_cb_t) [V1],
        rocprofiler_configure_buffer_dispatch_counting_service_fn => fun(rocprofiler_configure_buffer_dispatch_counting_service) [V1],
        rocprofiler_create_counter_config_fn => fun(rocprofiler_create_counter_config) [V1],
        rocprofiler_destroy_counter_config_fn => fun(rocprofiler_destroy_counter_config) [V1],
        rocprofiler_available_counters_cb_t => ty(rocprofiler_available_counters_cb_t),
        rocprofiler_iterate_agent_supported_counters_fn => fun(rocprofiler_iterate_agent_supported_counters),
        rocprofiler_query_counter_info_fn => fun(rocprofiler_query_counter_info),
        rocprofiler_available_dimensions_cb_t => ty(rocprofiler_available_dimensions_cb_t),
        rocprofiler_iterate_counter_dimensions_fn => fun(rocprofiler_iterate_counter_dimensions),
        rocprofiler_query_record_counter_id_fn => fun(rocprofiler_query_record_counter_id),
        rocprofiler_device_counting_agent_cb_t => ty(rocprofiler_device_counting_agent_cb_t) [V1],
        rocprofiler_device_counting_service_cb_t => ty(rocprofiler_device_counting_service_cb_t) [V1],
        rocprofiler_configure_device_counting_service_fn => fun(rocprofiler_configure_device_counting_service) [V1],
        rocprofiler_sample_device_counting_service_v1_fn => fun(rocprofiler_sample_device_counting_service) [V1],
        rocprofiler_sample_device_counting_service_v0_fn => fun(rocprofiler_sample_agent_profile_counting_service) [V0],
        // What rocprofiler-register calls inside the SDK; not in the SDK's
        // public headers.
        rocprofiler_set_api_table_fn => none,
        // Type-erased slots (one C pointer type for either family's shape).
        rocprofiler_callback_tracing_cb_any_t => none,
        rocprofiler_client_finalize_any_t => none,
    ]
}
