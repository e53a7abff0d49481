//! Argument layouts of the HIP calls the simulator models (reference §5.2): one schema per API
//! drives both the bytes written into the 88-byte args union (callback payloads, `_EXT` buffer
//! records) and `rocprofiler_iterate_*_args`, so the two can never disagree.

use std::ffi::CStr;

use super::abi::rocprofiler_hip_api_args_t;
use crate::plan::HipArgs;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgType {
    U32,
    I32,
    U64,
    Ptr,
    Dim3,
}

impl ArgType {
    fn size(self) -> usize {
        match self {
            ArgType::U32 | ArgType::I32 => 4,
            ArgType::U64 | ArgType::Ptr => 8,
            ArgType::Dim3 => 12,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct ArgSpec {
    pub name: &'static CStr,
    pub ctype: &'static CStr,
    pub offset: usize,
    pub ty: ArgType,
    /// 1 for pointer-typed arguments (the value is an address).
    pub indirection: i32,
}

const fn a(name: &'static CStr, ctype: &'static CStr, offset: usize, ty: ArgType) -> ArgSpec {
    let indirection = matches!(ty, ArgType::Ptr) as i32;
    ArgSpec {
        name,
        ctype,
        offset,
        ty,
        indirection,
    }
}

use ArgType::*;

const LAUNCH: &[ArgSpec] = &[
    a(c"function_address", c"const void*", 0, Ptr),
    a(c"numBlocks", c"dim3", 8, Dim3),
    a(c"dimBlocks", c"dim3", 20, Dim3),
    a(c"args", c"void**", 32, Ptr),
    a(c"sharedMemBytes", c"size_t", 40, U64),
    a(c"stream", c"hipStream_t", 48, U64),
];
const EXT_LAUNCH: &[ArgSpec] = extend_table!(ArgSpec; LAUNCH;
    a(c"startEvent", c"hipEvent_t", 56, U64),
    a(c"stopEvent", c"hipEvent_t", 64, U64),
    a(c"flags", c"int", 72, I32),
);
const COOP_LAUNCH: &[ArgSpec] = &[
    a(c"f", c"const void*", 0, Ptr),
    a(c"gridDim", c"dim3", 8, Dim3),
    a(c"blockDimX", c"dim3", 20, Dim3),
    a(c"kernelParams", c"void**", 32, Ptr),
    a(c"sharedMemBytes", c"unsigned int", 40, U32),
    a(c"stream", c"hipStream_t", 48, U64),
];
const MODULE_LAUNCH: &[ArgSpec] = &[
    a(c"f", c"hipFunction_t", 0, U64),
    a(c"gridDimX", c"unsigned int", 8, U32),
    a(c"gridDimY", c"unsigned int", 12, U32),
    a(c"gridDimZ", c"unsigned int", 16, U32),
    a(c"blockDimX", c"unsigned int", 20, U32),
    a(c"blockDimY", c"unsigned int", 24, U32),
    a(c"blockDimZ", c"unsigned int", 28, U32),
    a(c"sharedMemBytes", c"unsigned int", 32, U32),
    a(c"stream", c"hipStream_t", 40, U64),
    a(c"kernelParams", c"void**", 48, Ptr),
    a(c"extra", c"void**", 56, Ptr),
];
const EXT_MODULE_LAUNCH: &[ArgSpec] = &[
    a(c"f", c"hipFunction_t", 0, U64),
    a(c"globalWorkSizeX", c"uint32_t", 8, U32),
    a(c"globalWorkSizeY", c"uint32_t", 12, U32),
    a(c"globalWorkSizeZ", c"uint32_t", 16, U32),
    a(c"localWorkSizeX", c"uint32_t", 20, U32),
    a(c"localWorkSizeY", c"uint32_t", 24, U32),
    a(c"localWorkSizeZ", c"uint32_t", 28, U32),
    a(c"sharedMemBytes", c"size_t", 32, U64),
    a(c"stream", c"hipStream_t", 40, U64),
    a(c"kernelParams", c"void**", 48, Ptr),
    a(c"extra", c"void**", 56, Ptr),
    a(c"startEvent", c"hipEvent_t", 64, U64),
    a(c"stopEvent", c"hipEvent_t", 72, U64),
    a(c"flags", c"uint32_t", 80, U32),
];
const GRAPH_LAUNCH: &[ArgSpec] = &[
    a(c"graphExec", c"hipGraphExec_t", 0, U64),
    a(c"stream", c"hipStream_t", 8, U64),
];
const MEMCPY: &[ArgSpec] = &[
    a(c"dst", c"void*", 0, Ptr),
    a(c"src", c"const void*", 8, Ptr),
    a(c"sizeBytes", c"size_t", 16, U64),
    a(c"kind", c"hipMemcpyKind", 24, U32),
];
const MEMCPY_ASYNC: &[ArgSpec] =
    extend_table!(ArgSpec; MEMCPY; a(c"stream", c"hipStream_t", 32, U64));
/// hipMemcpyHtoD / DtoH / DtoD: no kind argument.
const MEMCPY_DIR: &[ArgSpec] = MEMCPY.split_at(3).0;
const MEMCPY_DIR_ASYNC: &[ArgSpec] =
    extend_table!(ArgSpec; MEMCPY_DIR; a(c"stream", c"hipStream_t", 24, U64));
// hipMemcpyPeerAsync(dst, int dstDeviceId, src, int srcDevice, size_t sizeBytes, hipStream_t).
const MEMCPY_PEER_ASYNC: &[ArgSpec] = &[
    a(c"dst", c"void*", 0, Ptr),
    a(c"dstDeviceId", c"int", 8, I32),
    a(c"src", c"const void*", 16, Ptr),
    a(c"srcDevice", c"int", 24, I32),
    a(c"sizeBytes", c"size_t", 32, U64),
    a(c"stream", c"hipStream_t", 40, U64),
];
const MEMSET: &[ArgSpec] = &[
    a(c"dst", c"void*", 0, Ptr),
    a(c"value", c"int", 8, I32),
    a(c"sizeBytes", c"size_t", 16, U64),
];
const MEMSET_ASYNC: &[ArgSpec] =
    extend_table!(ArgSpec; MEMSET; a(c"stream", c"hipStream_t", 24, U64));
const EVENT_RECORD: &[ArgSpec] = &[
    a(c"event", c"hipEvent_t", 0, U64),
    a(c"stream", c"hipStream_t", 8, U64),
];
const EVENT_RECORD_FLAGS: &[ArgSpec] =
    extend_table!(ArgSpec; EVENT_RECORD; a(c"flags", c"unsigned int", 16, U32));
const STREAM_WAIT_EVENT: &[ArgSpec] = &[
    a(c"stream", c"hipStream_t", 0, U64),
    a(c"event", c"hipEvent_t", 8, U64),
    a(c"flags", c"unsigned int", 16, U32),
];
const EVENT_ONLY: &[ArgSpec] = &[a(c"event", c"hipEvent_t", 0, U64)];
const STREAM_ONLY: &[ArgSpec] = &[a(c"stream", c"hipStream_t", 0, U64)];
const STREAM_CREATE: &[ArgSpec] = &[a(c"stream", c"hipStream_t*", 0, Ptr)];
const MALLOC: &[ArgSpec] = &[a(c"ptr", c"void**", 0, Ptr), a(c"size", c"size_t", 8, U64)];
const MALLOC_FLAGS: &[ArgSpec] =
    extend_table!(ArgSpec; MALLOC; a(c"flags", c"unsigned int", 16, U32));
const MALLOC_MANAGED: &[ArgSpec] = &[
    a(c"dev_ptr", c"void**", 0, Ptr),
    a(c"size", c"size_t", 8, U64),
    a(c"flags", c"unsigned int", 16, U32),
];
const HOST_REGISTER: &[ArgSpec] = &[
    a(c"hostPtr", c"void*", 0, Ptr),
    a(c"sizeBytes", c"size_t", 8, U64),
    a(c"flags", c"unsigned int", 16, U32),
];
const FREE: &[ArgSpec] = &[a(c"ptr", c"void*", 0, Ptr)];
const MALLOC_ASYNC: &[ArgSpec] = &[
    a(c"dev_ptr", c"void**", 0, Ptr),
    a(c"size", c"size_t", 8, U64),
    a(c"stream", c"hipStream_t", 16, U64),
];
const FREE_ASYNC: &[ArgSpec] = &[
    a(c"dev_ptr", c"void*", 0, Ptr),
    a(c"stream", c"hipStream_t", 8, U64),
];
const HOST_UNREGISTER: &[ArgSpec] = &[a(c"hostPtr", c"void*", 0, Ptr)];
const STREAM_CREATE_FLAGS: &[ArgSpec] =
    extend_table!(ArgSpec; STREAM_CREATE; a(c"flags", c"unsigned int", 8, U32));
const SET_DEVICE: &[ArgSpec] = &[a(c"deviceId", c"int", 0, I32)];

pub fn schema(api: &str) -> &'static [ArgSpec] {
    match api {
        "hipLaunchKernel" | "hipLaunchKernel_spt" => LAUNCH,
        "hipExtLaunchKernel" => EXT_LAUNCH,
        "hipLaunchCooperativeKernel" | "hipLaunchCooperativeKernel_spt" => COOP_LAUNCH,
        "hipModuleLaunchKernel" | "hipModuleLaunchCooperativeKernel" => MODULE_LAUNCH,
        "hipExtModuleLaunchKernel" | "hipHccModuleLaunchKernel" => EXT_MODULE_LAUNCH,
        "hipGraphLaunch" | "hipGraphLaunch_spt" => GRAPH_LAUNCH,
        "hipMemcpy" => MEMCPY,
        "hipMemcpyAsync" | "hipMemcpyAsync_spt" | "hipMemcpyWithStream" => MEMCPY_ASYNC,
        "hipMemcpyHtoD" | "hipMemcpyDtoH" | "hipMemcpyDtoD" => MEMCPY_DIR,
        "hipMemcpyHtoDAsync" | "hipMemcpyDtoHAsync" | "hipMemcpyDtoDAsync" => MEMCPY_DIR_ASYNC,
        "hipMemcpyPeerAsync" => MEMCPY_PEER_ASYNC,
        "hipMemset" => MEMSET,
        "hipMemsetAsync" | "hipMemsetAsync_spt" => MEMSET_ASYNC,
        "hipEventRecord" | "hipEventRecord_spt" => EVENT_RECORD,
        "hipEventRecordWithFlags" => EVENT_RECORD_FLAGS,
        "hipStreamWaitEvent" | "hipStreamWaitEvent_spt" => STREAM_WAIT_EVENT,
        "hipEventSynchronize" | "hipEventQuery" => EVENT_ONLY,
        "hipStreamSynchronize"
        | "hipStreamSynchronize_spt"
        | "hipStreamQuery"
        | "hipStreamDestroy" => STREAM_ONLY,
        "hipStreamCreate" => STREAM_CREATE,
        "hipStreamCreateWithFlags" => STREAM_CREATE_FLAGS,
        "hipSetDevice" => SET_DEVICE,
        "hipMalloc" | "hipMallocHost" => MALLOC,
        "hipHostMalloc" | "hipHostAlloc" => MALLOC_FLAGS,
        "hipMallocManaged" => MALLOC_MANAGED,
        "hipHostRegister" => HOST_REGISTER,
        "hipFree" | "hipHostFree" | "hipFreeHost" => FREE,
        "hipHostUnregister" => HOST_UNREGISTER,
        "hipMallocAsync" => MALLOC_ASYNC,
        "hipFreeAsync" => FREE_ASYNC,
        _ => &[],
    }
}

/// Whether HIP function `api` takes a `hipStream_t` parameter. rocprofiler-sdk wraps only such
/// functions with its HIP stream wrapper (`hip/stream.cpp`: the functions whose parameters hold
/// a `hipStream_t`, or a `hipStream_t*` for the creating ones), so only their calls bring
/// HIP_STREAM callbacks. A launch whose streams sit in a parameter list (one per device, the
/// `*MultiDevice` launches) or in a launch configuration (`hipLaunchKernelExC`,
/// `hipDrvLaunchKernelEx`) brings none, whatever stream its work runs on.
pub fn takes_stream(api: &str) -> bool {
    !matches!(
        api,
        "hipLaunchCooperativeKernelMultiDevice"
            | "hipModuleLaunchCooperativeKernelMultiDevice"
            | "hipExtLaunchMultiKernelMultiDevice"
            | "hipLaunchKernelExC"
            | "hipDrvLaunchKernelEx"
    )
}

/// Fake but stable host address of a kernel's stub function.
pub fn kernel_host_address(kernel: u32) -> u64 {
    0x5555_0000_0000 + kernel as u64 * 0x100
}

enum Val {
    U(u64),
    D([u32; 3]),
}

fn value(name: &[u8], args: &HipArgs, out_slot: u64) -> Option<Val> {
    use HipArgs::*;
    let axis = match name.last() {
        Some(b'Y') => 1,
        Some(b'Z') => 2,
        _ => 0,
    };
    let v = match (name, args) {
        (b"function_address" | b"f", Launch { kernel, .. }) => Val::U(kernel_host_address(*kernel)),
        (b"numBlocks" | b"gridDim", Launch { grid_blocks, .. }) => Val::D(*grid_blocks),
        (b"dimBlocks" | b"blockDimX3", Launch { block, .. }) => Val::D(*block),
        // Per-axis scalars of the module launches: the name's last letter is the axis.
        (b"gridDimX" | b"gridDimY" | b"gridDimZ", Launch { grid_blocks, .. }) => {
            Val::U(grid_blocks[axis] as u64)
        }
        (
            b"blockDimX" | b"blockDimY" | b"blockDimZ" | b"localWorkSizeX" | b"localWorkSizeY"
            | b"localWorkSizeZ",
            Launch { block, .. },
        ) => Val::U(block[axis] as u64),
        (
            b"globalWorkSizeX" | b"globalWorkSizeY" | b"globalWorkSizeZ",
            Launch {
                grid_blocks, block, ..
            },
        ) => Val::U(grid_blocks[axis] as u64 * block[axis] as u64),
        (b"sharedMemBytes", Launch { dynamic_shared, .. }) => Val::U(*dynamic_shared as u64),
        (b"stream", Launch { stream, .. }) => Val::U(*stream),
        (b"graphExec", GraphLaunch { graph_exec, .. }) => Val::U(*graph_exec),
        (b"stream", GraphLaunch { stream, .. }) => Val::U(*stream),
        (b"dst", Memcpy { dst, .. }) => Val::U(*dst),
        (b"src", Memcpy { src, .. }) => Val::U(*src),
        (b"sizeBytes", Memcpy { bytes, .. }) => Val::U(*bytes),
        (b"kind", Memcpy { kind, .. }) => Val::U(*kind as u64),
        (b"stream", Memcpy { stream, .. }) => Val::U(stream.unwrap_or(0)),
        (b"dst", Memset { dst, .. }) => Val::U(*dst),
        (b"value", Memset { value, .. }) => Val::U(*value as u32 as u64),
        (b"sizeBytes", Memset { bytes, .. }) => Val::U(*bytes),
        (b"stream", Memset { stream, .. }) => Val::U(stream.unwrap_or(0)),
        (b"event", EventRecord { event, .. }) => Val::U(*event),
        (b"stream", EventRecord { stream, .. }) => Val::U(*stream),
        (b"stream", StreamWaitEvent { stream, .. }) => Val::U(*stream),
        (b"event", StreamWaitEvent { event, .. }) => Val::U(*event),
        (b"flags", StreamWaitEvent { flags, .. }) => Val::U(*flags as u64),
        (b"event", EventSynchronize { event }) => Val::U(*event),
        (b"stream", StreamSynchronize { stream }) => Val::U(*stream),
        (b"stream", StreamCreate { .. }) => Val::U(out_slot),
        (b"flags", StreamCreate { flags, .. }) => Val::U(*flags as u64),
        (b"stream", StreamDestroy { stream }) => Val::U(*stream),
        (b"deviceId", SetDevice { device }) => Val::U(*device as u64),
        (b"ptr" | b"dev_ptr", Malloc { .. }) => Val::U(out_slot),
        (b"hostPtr", Malloc { ptr, .. }) => Val::U(*ptr),
        (b"size" | b"sizeBytes", Malloc { bytes, .. }) => Val::U(*bytes),
        (b"flags", Malloc { flags, .. }) => Val::U(*flags as u64),
        (b"stream", Malloc { stream, .. }) => Val::U(*stream),
        (b"ptr" | b"hostPtr" | b"dev_ptr", Free { ptr, .. }) => Val::U(*ptr),
        (b"stream", Free { stream, .. }) => Val::U(*stream),
        _ => return Option::None,
    };
    Some(v)
}

/// Fills the args union for `api` from the plan's arguments. `out_slot` is the address written
/// for out-pointer arguments (hipStreamCreate's `hipStream_t*`).
pub fn write_args(api: &str, args: &HipArgs, out_slot: u64) -> rocprofiler_hip_api_args_t {
    let mut bytes = [0u8; 88];
    for spec in schema(api) {
        let mut name = spec.name.to_bytes();
        if name == b"blockDimX" && spec.ty == ArgType::Dim3 {
            // hipLaunchCooperativeKernel really names its dim3 block argument "blockDimX".
            name = b"blockDimX3";
        }
        let Some(v) = value(name, args, out_slot) else {
            continue;
        };
        let off = spec.offset;
        match (spec.ty, v) {
            (ArgType::U32 | ArgType::I32, Val::U(x)) => {
                bytes[off..off + 4].copy_from_slice(&(x as u32).to_ne_bytes())
            }
            (ArgType::U64 | ArgType::Ptr, Val::U(x)) => {
                bytes[off..off + 8].copy_from_slice(&x.to_ne_bytes())
            }
            (ArgType::Dim3, Val::D(d)) => {
                for (i, x) in d.iter().enumerate() {
                    bytes[off + 4 * i..off + 4 * i + 4].copy_from_slice(&x.to_ne_bytes());
                }
            }
            _ => {}
        }
    }
    rocprofiler_hip_api_args_t { raw: bytes }
}

/// Human-readable value of one argument, read back from an args union.
pub fn format_arg(spec: &ArgSpec, union_bytes: &[u8]) -> String {
    let off = spec.offset;
    let Some(b) = union_bytes.get(off..off + spec.ty.size()) else {
        return String::new();
    };
    let u32_at = |i: usize| u32::from_ne_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    match spec.ty {
        ArgType::U32 => u32_at(0).to_string(),
        ArgType::I32 => (u32_at(0) as i32).to_string(),
        ArgType::U64 => {
            let v = u64::from_ne_bytes(b[..8].try_into().unwrap_or([0; 8]));
            if spec.ctype.to_bytes().starts_with(b"hip") && spec.ctype != c"hipMemcpyKind" {
                format!("{v:#x}")
            } else {
                v.to_string()
            }
        }
        ArgType::Ptr => {
            format!(
                "{:#x}",
                u64::from_ne_bytes(b[..8].try_into().unwrap_or([0; 8]))
            )
        }
        ArgType::Dim3 => format!("{{{}, {}, {}}}", u32_at(0), u32_at(4), u32_at(8)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_args_land_at_reference_offsets() {
        let args = HipArgs::Launch {
            kernel: 3,
            grid_blocks: [4, 5, 6],
            block: [64, 1, 1],
            dynamic_shared: 128,
            stream: 0xabc0,
        };
        let words = |a: rocprofiler_hip_api_args_t| -> Vec<u64> {
            // SAFETY: `raw` covers the whole union; every byte is initialised.
            let raw = unsafe { a.raw };
            raw.chunks(8)
                .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
                .collect()
        };
        let w = words(write_args("hipLaunchKernel", &args, 0));
        assert_eq!(w[0], kernel_host_address(3));
        assert_eq!(w[6], 0xabc0); // stream @48
        assert_eq!(w[5], 128); // sharedMemBytes @40
        let m = words(write_args("hipModuleLaunchKernel", &args, 0));
        assert_eq!(m[5], 0xabc0); // stream @40
        let g = words(write_args(
            "hipStreamWaitEvent",
            &HipArgs::StreamWaitEvent {
                stream: 7,
                event: 9,
                flags: 1,
            },
            0,
        ));
        assert_eq!(&g[..3], &[7, 9, 1]);
        let peer = HipArgs::Memcpy {
            dst: 1,
            src: 2,
            bytes: 3,
            kind: 4,
            stream: Some(0x5000),
        };
        let p = words(write_args("hipMemcpyPeerAsync", &peer, 0));
        assert_eq!((p[0], p[2], p[4], p[5]), (1, 2, 3, 0x5000)); // stream @40
    }
}
