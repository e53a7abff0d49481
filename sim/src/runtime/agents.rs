//! Agents reported by `rocprofiler_query_available_agents`: one CPU agent, then the plan's
//! GPUs, with plausible topology values. Built once per process and leaked: agent pointers
//! must stay valid until after tool finalization.

use std::ffi::{c_char, CString};
use std::sync::Mutex;

use super::abi::*;
use super::state::{self, lock};
use crate::plan::GpuSpec;
use crate::truth::AgentProperties;

pub struct Agents {
    pub list: Vec<&'static AgentStorage>,
}

// SAFETY: agents are immutable after construction; their pointers reference leaked,
// never-mutated strings, so sharing them between threads is sound.
unsafe impl Sync for Agents {}
// SAFETY: see above.
unsafe impl Send for Agents {}

static AGENTS: Mutex<Option<&'static Agents>> = Mutex::new(None);

fn leak_str(s: &str) -> *const c_char {
    let c = CString::new(s.replace('\0', "")).unwrap_or_default();
    c.into_raw()
}

/// One leaked memory bank (`mem_banks` must stay valid as long as the agent).
fn leak_bank(
    heap_type: u32,
    bytes: u64,
    width: u32,
    mem_clk_max: u32,
) -> *const rocprofiler_agent_mem_bank_t {
    Box::leak(Box::new(rocprofiler_agent_mem_bank_t {
        heap_type,
        flags: 0,
        width,
        mem_clk_max,
        size_in_bytes: bytes,
    }))
}

fn blank(size: u64) -> rocprofiler_agent_v0_t {
    let mut a: rocprofiler_agent_v0_t = zeroed();
    a.size = size;
    a
}

/// Agent-id handle of agent `index` (0 = CPU, 1.. = GPUs).
pub fn agent_handle(index: usize) -> u64 {
    state::REGISTRY.lock().agent_offset + index as u64 * 16
}

/// Installs the agents for a plan's GPUs (first call wins; later calls are ignored).
pub fn install(gpus: &[GpuSpec]) {
    let mut slot = lock(&AGENTS);
    if slot.is_some() {
        return;
    }
    super::counting::install(gpus);
    let size = state::personality().agent_size() as u64;
    let mut list = Vec::new();
    let mut cpu = blank(size);
    cpu.id = rocprofiler_agent_id_t {
        handle: agent_handle(0),
    };
    cpu.type_ = ROCPROFILER_AGENT_TYPE_CPU;
    cpu.cpu_cores_count = 96;
    cpu.cpu_core_id_base = 0;
    cpu.mem_banks_count = 1;
    cpu.mem_banks = leak_bank(HSA_HEAPTYPE_SYSTEM, 768 << 30, 0, 0);
    cpu.caches_count = 0;
    cpu.io_links_count = gpus.len() as u32;
    cpu.max_engine_clk_ccompute = 3700;
    cpu.local_mem_size = 0;
    cpu.name = leak_str("AMD EPYC 9654 96-Core Processor");
    cpu.vendor_name = leak_str("CPU");
    cpu.product_name = leak_str("AMD EPYC 9654 96-Core Processor");
    cpu.model_name = leak_str("");
    cpu.node_id = 0;
    cpu.logical_node_id = 0;
    cpu.logical_node_type_id = 0;
    cpu.reserved_292 = RUNTIME_VISIBILITY_HSA;
    list.push(&*Box::leak(Box::new(AgentStorage {
        agent: cpu,
        uuid: [0; 16],
    })));
    for (i, g) in gpus.iter().enumerate() {
        // The ground truth reports these same values (one function, no second copy).
        let p = AgentProperties::of(i as u32, g);
        let mut a = blank(size);
        a.id = rocprofiler_agent_id_t {
            handle: agent_handle(i + 1),
        };
        a.type_ = ROCPROFILER_AGENT_TYPE_GPU;
        a.simd_count = p.simd_count;
        // The GPU's memory is its one frame-buffer bank; `local_mem_size` repeats it unless
        // the GPU reports it in the bank alone (as a real MI350X agent does: 8192-bit HBM at
        // 2000 MHz).
        a.mem_banks_count = 1;
        a.mem_banks = leak_bank(
            HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC,
            p.local_mem_bytes,
            8192,
            2000,
        );
        a.caches_count = 0;
        a.io_links_count = 1;
        a.simd_id_base = 0x8000_0000 + i as u32 * 0x1000;
        a.max_waves_per_simd = p.max_waves_per_simd;
        a.lds_size_in_kb = p.lds_size_in_kb;
        a.gds_size_in_kb = 0;
        a.num_gws = 64;
        a.wave_front_size = p.wave_front_size;
        a.num_xcc = p.num_xcc;
        a.cu_count = p.cu_count;
        a.array_count = 4 * p.num_xcc.max(1);
        a.num_shader_banks = 4 * p.num_xcc.max(1);
        a.simd_arrays_per_engine = 1;
        a.cu_per_simd_array = p.cu_count / a.array_count.max(1);
        a.simd_per_cu = p.simd_per_cu;
        a.max_slots_scratch_cu = 32;
        a.gfx_target_version = p.gfx_target_version;
        a.vendor_id = p.vendor_id;
        a.device_id = p.device_id;
        a.location_id = 0x0c00 + 0x1000 * i as u32;
        a.domain = 0;
        a.drm_render_minor = 128 + i as u32;
        a.num_sdma_engines = 2;
        a.num_sdma_xgmi_engines = 6;
        a.num_sdma_queues_per_engine = 8;
        a.num_cp_queues = g.queues.max(1) * 4;
        a.max_engine_clk_ccompute = 3700;
        a.max_engine_clk_fcompute = p.max_engine_clk_mhz;
        a.cu_per_engine = p.cu_count / p.num_xcc.max(1);
        a.max_waves_per_cu = p.max_waves_per_cu;
        a.family_id = 141;
        a.workgroup_max_size = 1024;
        a.grid_max_size = u32::MAX;
        a.local_mem_size = if p.memory_in_banks {
            0
        } else {
            p.local_mem_bytes
        };
        a.hive_id = 0x5a5a_0000_0000_0001;
        a.gpu_id = 0x3e00 + i as u64 * 0x101;
        a.workgroup_max_dim = rocprofiler_dim3_t {
            x: 1024,
            y: 1024,
            z: 1024,
        };
        a.grid_max_dim = rocprofiler_dim3_t {
            x: u32::MAX,
            y: u32::MAX,
            z: u32::MAX,
        };
        a.name = leak_str(&p.name);
        a.vendor_name = leak_str(&p.vendor_name);
        a.product_name = leak_str(&p.product_name);
        a.model_name = leak_str(&p.model_name);
        a.node_id = p.node_id;
        a.logical_node_id = p.logical_node_id;
        a.logical_node_type_id = p.logical_node_type_id;
        a.reserved_292 = RUNTIME_VISIBILITY_HSA | RUNTIME_VISIBILITY_HIP;
        let mut uuid = [0u8; 16];
        uuid[..8].copy_from_slice(&(0x5349_4d00_0000_0000u64 + i as u64).to_le_bytes());
        list.push(&*Box::leak(Box::new(AgentStorage { agent: a, uuid })));
    }
    *slot = Some(Box::leak(Box::new(Agents { list })));
}

pub fn get() -> &'static Agents {
    if lock(&AGENTS).is_none() {
        install(&[]);
    }
    lock(&AGENTS).expect("agents installed above")
}
