//! The agents the runtime enumerates and the kernel symbols its code objects declare: read
//! once (at initialize, at each code-object load), shared by every record that names them.

use std::sync::Arc;

/// A kernel symbol from a code-object callback, name already cleaned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSymbol {
    pub name: Arc<str>,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentType {
    Cpu,
    Gpu,
    Other,
}

/// Agent properties read at initialize.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInfo {
    pub handle: u64,
    pub kind: AgentType,
    /// 0..N-1 among agents of the same type (HIP's device numbering).
    pub type_index: i32,
    pub node_id: u32,
    pub name: String,
    pub product_name: String,
    pub vendor_name: String,
    pub cu_count: u32,
    pub simd_per_cu: u32,
    pub wave_front_size: u32,
    pub max_waves_per_cu: u32,
    pub max_engine_clk_mhz: u32,
    pub local_mem_bytes: u64,
    pub gfx_target_version: u32,
}

impl AgentInfo {
    /// An MI300X-like agent for unit tests and the fuzz targets (a CPU when `kind` says so).
    #[doc(hidden)]
    pub fn for_test(handle: u64, kind: AgentType, type_index: i32) -> AgentInfo {
        AgentInfo {
            handle,
            kind,
            type_index,
            node_id: type_index as u32,
            name: if kind == AgentType::Gpu {
                "gfx942".into()
            } else {
                "cpu".into()
            },
            product_name: "AMD Instinct MI300X".into(),
            vendor_name: "AMD".into(),
            cu_count: 304,
            simd_per_cu: 4,
            wave_front_size: 64,
            max_waves_per_cu: 32,
            max_engine_clk_mhz: 2100,
            local_mem_bytes: 192 << 30,
            gfx_target_version: 90402,
        }
    }
}
