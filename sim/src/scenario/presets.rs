//! GPU presets: the public specification numbers of a few Instinct parts, so a scenario can say
//! `preset = "mi300x"` instead of spelling out every agent property. Every field stays
//! overridable in the scenario because the real runtime reports some values (e.g. `model_name`,
//! clocks) differently across driver and SDK versions.
//!
//! The copy/memset bandwidths are *model parameters* of the simulator's timing model, chosen to be
//! plausible for each part; they are not measurements.

use crate::plan::GpuSpec;

/// A GPU as the scenario compiler sees it: the agent properties plus timing-model parameters.
#[derive(Debug, Clone)]
pub(crate) struct GpuDef {
    pub spec: GpuSpec,
    /// Modelled bandwidths in GB/s (= bytes per ns).
    pub h2d_gbps: f64,
    pub d2h_gbps: f64,
    pub h2h_gbps: f64,
    pub d2d_gbps: f64,
    pub peer_gbps: f64,
    pub memset_gbps: f64,
    /// 0 = unlimited concurrent kernels across streams of this GPU.
    pub max_concurrent_kernels: u32,
}

pub(crate) const PRESET_NAMES: &[&str] = &["mi300x", "mi250x", "mi350x", "mi355x", "rx7900xtx"];

const GIB: u64 = 1 << 30;

/// What every Instinct preset shares: 4 SIMDs per CU, wave64, 32 waves per CU, AMD's PCI vendor
/// id, and the 4 HSA queues the runtime creates per GPU.
fn instinct() -> GpuSpec {
    GpuSpec {
        simd_per_cu: 4,
        wave_front_size: 64,
        max_waves_per_cu: 32,
        vendor_id: 0x1002,
        queues: 4,
        ..Default::default()
    }
}

/// The agent properties of a preset (the scenario compiler adds its timing parameters; the
/// runtime's built-in self-test plans use these directly, so there is one copy of the numbers).
pub(crate) fn spec(name: &str) -> Option<GpuSpec> {
    Some(match name.to_ascii_lowercase().as_str() {
        // MI300X: gfx942, 304 CUs in 8 XCDs, 2100 MHz peak engine clock, 192 GiB HBM3,
        // PCI device id 0x74a1 (AMD public specifications; rocminfo on MI300X).
        "mi300x" => GpuSpec {
            name: "gfx942".into(),
            product_name: "AMD Instinct MI300X".into(),
            model_name: "mi300".into(),
            cu_count: 304,
            max_engine_clk_mhz: 2100,
            num_xcc: 8,
            lds_size_in_kb: 64,
            local_mem_bytes: 192 * GIB,
            gfx_target_version: 90402,
            device_id: 0x74a1,
            ..instinct()
        },
        // MI250X: gfx90a, one GCD = one agent: 110 CUs, 1700 MHz, 64 GiB HBM2e, device id 0x740c.
        "mi250x" => GpuSpec {
            name: "gfx90a".into(),
            product_name: "AMD Instinct MI250X".into(),
            model_name: "aldebaran".into(),
            cu_count: 110,
            max_engine_clk_mhz: 1700,
            num_xcc: 1,
            lds_size_in_kb: 64,
            local_mem_bytes: 64 * GIB,
            gfx_target_version: 90010,
            device_id: 0x740c,
            ..instinct()
        },
        // MI350X: gfx950, 256 CUs, 8 XCDs, 2200 MHz, 160 KiB LDS, device id 0x75a0, 288 GiB HBM3E.
        // The agent values match a real rocprofv3 agent dump in
        // ../shared/testdata/real/rocprofv3-json-mi350x (model_name "ip discovery"), memory
        // included: `local_mem_size` 0 and 309,220,868,096 bytes in its one frame-buffer bank.
        "mi350x" => GpuSpec {
            name: "gfx950".into(),
            product_name: "AMD Instinct MI350X".into(),
            model_name: "ip discovery".into(),
            cu_count: 256,
            max_engine_clk_mhz: 2200,
            num_xcc: 8,
            lds_size_in_kb: 160,
            local_mem_bytes: 309_220_868_096,
            memory_in_banks: true,
            gfx_target_version: 90500,
            device_id: 0x75a0,
            ..instinct()
        },
        // MI355X: same gfx950 die and memory as MI350X at a higher clock (2400 MHz),
        // device id 0x75a3 (public specifications / PCI ID list).
        "mi355x" => GpuSpec {
            product_name: "AMD Instinct MI355X".into(),
            max_engine_clk_mhz: 2400,
            device_id: 0x75a3,
            ..spec("mi350x")?
        },
        // Radeon RX 7900 XTX: gfx1100 (RDNA3), 96 CUs of 2 SIMDs, wave32 (HIP's default on
        // RDNA), 16 waves per SIMD (32 per CU), 64 KiB LDS per CU, 2500 MHz boost, 24 GiB GDDR6,
        // PCI device id 0x744c (AMD public specifications; rocminfo on gfx1100).
        "rx7900xtx" => GpuSpec {
            name: "gfx1100".into(),
            product_name: "Radeon RX 7900 XTX".into(),
            model_name: "navi31".into(),
            cu_count: 96,
            simd_per_cu: 2,
            wave_front_size: 32,
            max_waves_per_cu: 32,
            max_engine_clk_mhz: 2500,
            num_xcc: 1,
            lds_size_in_kb: 64,
            local_mem_bytes: 24 * GIB,
            gfx_target_version: 110000,
            device_id: 0x744c,
            ..instinct()
        },
        _ => return None,
    })
}

pub(crate) fn preset(name: &str) -> Option<GpuDef> {
    let spec = spec(name)?;
    // Modelled bandwidths (GB/s): host↔device, within the device, to a peer, memset.
    let (h2d, d2d, peer, memset) = match name.to_ascii_lowercase().as_str() {
        "mi300x" => (50.0, 2000.0, 48.0, 3000.0),
        "mi250x" => (25.0, 800.0, 40.0, 1200.0),
        "mi350x" | "mi355x" => (50.0, 3000.0, 60.0, 4000.0),
        "rx7900xtx" => (25.0, 800.0, 25.0, 1500.0),
        _ => return None,
    };
    Some(GpuDef {
        spec,
        h2d_gbps: h2d,
        d2h_gbps: h2d,
        h2h_gbps: 20.0,
        d2d_gbps: d2d,
        peer_gbps: peer,
        memset_gbps: memset,
        max_concurrent_kernels: 0,
    })
}
