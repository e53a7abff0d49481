//! Agent enumeration.
//!
//! The agent struct grew over SDK versions (296 → 304 → 312 bytes) and the runtime rejects an
//! `agent_size` larger than its own, so we pass the size of our declared prefix and read each
//! agent's own `size` before any field.

use std::ffi::{c_char, c_void, CStr};
use std::mem::{offset_of, size_of};

use rocprofiler_sdk_sys as sys;

use super::functions::Functions;
use super::status::{absent, SdkError};
use crate::guard::ffi_guard;
use crate::model::events::{AgentInfo, AgentType};

/// Bytes an agent must have for every field we read (everything up to `logical_node_type_id`).
pub const AGENT_BYTES_READ: usize =
    offset_of!(sys::rocprofiler_agent_v0_t, logical_node_type_id) + size_of::<i32>();

#[derive(Default)]
struct Collect {
    agents: Vec<AgentInfo>,
    too_small: usize,
}

/// # Safety
/// `p` must be null or point to a NUL-terminated string.
unsafe fn string(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// Reads one agent, or `None` when its `size` does not cover the fields we read.
///
/// # Safety
/// `p` must point to a readable agent struct of at least 8 bytes whose first field is `size`,
/// with string fields null or NUL-terminated.
pub unsafe fn read_agent(p: *const sys::rocprofiler_agent_v0_t) -> Option<AgentInfo> {
    // SAFETY: the caller guarantees the leading `size` is readable.
    let size = unsafe { std::ptr::addr_of!((*p).size).read_unaligned() } as usize;
    if size < AGENT_BYTES_READ {
        return None;
    }
    // Each field is read on its own through the raw pointer: no reference to the whole struct
    // is formed, since the runtime's struct need only be as long as its `size` says.
    macro_rules! field {
        ($($f:ident).+) => {
            // SAFETY: `size` covers every field read here (all lie before AGENT_BYTES_READ).
            unsafe { std::ptr::addr_of!((*p).$($f).+).read_unaligned() }
        };
    }
    // The runtime's agent strings are null or NUL-terminated and live as long as the agent;
    // `string` copies them.
    Some(AgentInfo {
        handle: field!(id.handle),
        kind: match field!(type_) {
            sys::ROCPROFILER_AGENT_TYPE_CPU => AgentType::Cpu,
            sys::ROCPROFILER_AGENT_TYPE_GPU => AgentType::Gpu,
            _ => AgentType::Other,
        },
        type_index: field!(logical_node_type_id),
        node_id: field!(node_id),
        name: {
            let ptr = field!(name);
            // SAFETY: a runtime agent string, null or NUL-terminated (above).
            unsafe { string(ptr) }
        },
        product_name: {
            let ptr = field!(product_name);
            // SAFETY: a runtime agent string, null or NUL-terminated (above).
            unsafe { string(ptr) }
        },
        vendor_name: {
            let ptr = field!(vendor_name);
            // SAFETY: a runtime agent string, null or NUL-terminated (above).
            unsafe { string(ptr) }
        },
        cu_count: field!(cu_count),
        simd_per_cu: field!(simd_per_cu),
        wave_front_size: field!(wave_front_size),
        max_waves_per_cu: field!(max_waves_per_cu),
        max_engine_clk_mhz: field!(max_engine_clk_fcompute),
        local_mem_bytes: {
            let count = field!(mem_banks_count);
            let banks = field!(mem_banks);
            // SAFETY: the runtime's `mem_banks` is null or points to `mem_banks_count` banks
            // that live as long as the agent.
            let banks = unsafe { mem_banks(banks, count) };
            sys::gpu_memory_bytes(field!(local_mem_size), banks)
        },
        gfx_target_version: field!(gfx_target_version),
    })
}

/// More banks than any node has (hsakmt reports a handful): a larger count is not read.
const MAX_MEM_BANKS: u32 = 64;

/// (heap type, size) of each of an agent's memory banks.
///
/// # Safety
/// `banks` must be null or point to `count` readable banks.
unsafe fn mem_banks(
    banks: *const sys::rocprofiler_agent_mem_bank_t,
    count: u32,
) -> impl Iterator<Item = (u32, u64)> {
    let n = if banks.is_null() || count > MAX_MEM_BANKS {
        0
    } else {
        count as usize
    };
    (0..n).map(move |i| {
        // SAFETY: `i < count`, and the caller guarantees `count` readable banks.
        let b = unsafe { banks.add(i).read_unaligned() };
        (b.heap_type, b.size_in_bytes)
    })
}

unsafe extern "C" fn on_agents(
    _version: sys::rocprofiler_agent_version_t,
    agents: *mut *const c_void,
    num_agents: usize,
    user_data: *mut c_void,
) -> sys::rocprofiler_status_t {
    ffi_guard(
        "agent query callback",
        sys::ROCPROFILER_STATUS_SUCCESS,
        || {
            // SAFETY: `user_data` is the `&mut Collect` passed by `query` (synchronous call).
            let out = unsafe { &mut *(user_data as *mut Collect) };
            if agents.is_null() {
                return sys::ROCPROFILER_STATUS_SUCCESS;
            }
            for i in 0..num_agents {
                // SAFETY: the runtime passes an array of `num_agents` agent pointers.
                let p = unsafe { *agents.add(i) } as *const sys::rocprofiler_agent_v0_t;
                if p.is_null() {
                    continue;
                }
                // SAFETY: `p` is a runtime agent struct, which starts with its `size`.
                match unsafe { read_agent(p) } {
                    Some(a) => out.agents.push(a),
                    None => out.too_small += 1,
                }
            }
            sys::ROCPROFILER_STATUS_SUCCESS
        },
    )
}

/// All agents (CPU and GPU) as the runtime reports them, plus how many were skipped.
pub fn query(f: &Functions) -> Result<(Vec<AgentInfo>, usize), SdkError> {
    let q = f
        .query_available_agents
        .ok_or_else(|| absent("rocprofiler_query_available_agents"))?;
    let mut c = Collect::default();
    // SAFETY: `on_agents` matches the callback type; `c` outlives the synchronous query;
    // agent_size is our prefix size, which every runtime version's struct covers.
    let st = unsafe {
        q(
            sys::ROCPROFILER_AGENT_INFO_VERSION_0,
            Some(on_agents),
            size_of::<sys::rocprofiler_agent_v0_t>(),
            &mut c as *mut Collect as *mut c_void,
        )
    };
    f.check(st, || "rocprofiler_query_available_agents".into())?;
    Ok((c.agents, c.too_small))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_read_checks_size_first() {
        // SAFETY: all-zero is a valid bit pattern for this plain C struct (null pointers).
        let mut a: sys::rocprofiler_agent_v0_t = unsafe { std::mem::zeroed() };
        a.size = size_of::<sys::rocprofiler_agent_v0_t>() as u64;
        a.id.handle = 0xabc;
        a.type_ = sys::ROCPROFILER_AGENT_TYPE_GPU;
        a.cu_count = 304;
        a.logical_node_type_id = 1;
        a.max_engine_clk_fcompute = 2100;
        a.name = c"gfx942".as_ptr();
        // SAFETY: `a` is a complete struct.
        let got = unsafe { read_agent(&a) }.unwrap();
        assert_eq!(got.handle, 0xabc);
        assert_eq!(got.kind, AgentType::Gpu);
        assert_eq!(
            (got.cu_count, got.type_index, got.max_engine_clk_mhz),
            (304, 1, 2100)
        );
        assert_eq!(got.name, "gfx942");
        assert_eq!(got.product_name, "");
        a.size = 200;
        // SAFETY: as above; the reader must refuse before touching later fields.
        assert!(unsafe { read_agent(&a) }.is_none());
        assert_eq!(AGENT_BYTES_READ, 292);
    }

    /// An agent whose memory is only in its frame-buffer bank (`local_mem_size` 0, as a real
    /// MI350X reports it) is read with that memory; the system-heap bank is not the GPU's.
    #[test]
    fn gpu_memory_is_read_from_the_frame_buffer_banks() {
        let banks = [
            sys::rocprofiler_agent_mem_bank_t {
                heap_type: sys::HSA_HEAPTYPE_SYSTEM,
                size_in_bytes: 1 << 40,
                ..Default::default()
            },
            sys::rocprofiler_agent_mem_bank_t {
                heap_type: sys::HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC,
                size_in_bytes: 309_220_868_096,
                ..Default::default()
            },
        ];
        // SAFETY: all-zero is a valid bit pattern for this plain C struct (null pointers).
        let mut a: sys::rocprofiler_agent_v0_t = unsafe { std::mem::zeroed() };
        a.size = size_of::<sys::rocprofiler_agent_v0_t>() as u64;
        a.type_ = sys::ROCPROFILER_AGENT_TYPE_GPU;
        a.mem_banks = banks.as_ptr();
        a.mem_banks_count = 2;
        // SAFETY: `a` is a complete struct whose banks pointer covers its count.
        let got = unsafe { read_agent(&a) }.unwrap();
        assert_eq!(got.local_mem_bytes, 309_220_868_096);
        a.local_mem_size = 64 << 30;
        // SAFETY: as above.
        assert_eq!(unsafe { read_agent(&a) }.unwrap().local_mem_bytes, 64 << 30);
        a.mem_banks = std::ptr::null();
        a.local_mem_size = 0;
        // SAFETY: as above; a null banks pointer is not read.
        assert_eq!(unsafe { read_agent(&a) }.unwrap().local_mem_bytes, 0);
    }
}
