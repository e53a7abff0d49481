//! Per-architecture limits that decide how many waves of a kernel fit on a SIMD: the one table
//! the occupancy calculation (`model::occupancy`) reads. An architecture not listed here gets no
//! occupancy at all, never a guessed one.
//!
//! Sources (public):
//! * LLVM `lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp` (llvm/llvm-project), `IsaInfo`:
//!   `getTotalNumVGPRs` (512 per lane with the gfx90a instructions — gfx90a, gfx942, gfx950 —
//!   whose AGPRs share the file; 1536 in wave32 with the 1.5× VGPR file of gfx1100/gfx1101),
//!   `getVGPRAllocGranule` (8 with the gfx90a instructions; 24 in wave32 with the 1.5× file),
//!   `getMaxWavesPerEU` (8 on gfx90a and its successors; 16 from gfx10.3 on),
//!   `getOccupancyWithNumSGPRs` (gfx8–gfx9: ≤ 80 SGPRs → 10 waves, ≤ 88 → 9, ≤ 100 → 8, else 7;
//!   gfx10+: SGPRs never limit), `getMaxWorkGroupsPerCU` (at most 16 work-groups with barriers
//!   per CU; 32 per WGP in WGP mode, i.e. 16 per CU), `getEUsPerCU` (4 SIMDs per CU on gfx9).
//! * LLVM `lib/Target/AMDGPU/AMDGPUSubtarget.cpp`, `getOccupancyWithLocalMemSize`: work-groups
//!   per CU = LDS per CU / LDS per work-group (at least one wave when it does not fit), capped
//!   by the work-group slots; waves per SIMD = ⌈work-groups × waves per work-group / SIMDs⌉.
//! * LLVM `test/CodeGen/AMDGPU/agpr-register-count.ll`: on gfx90a the total VGPR count is the
//!   arch VGPRs aligned to 4 (the accumulation offset) plus the AGPRs (9 + 32 → 12 + 32 = 44).
//! * LDS per CU: 64 KiB on gfx90a/gfx942 (AMD CDNA2 and CDNA3 ISA guides, "Local data share"),
//!   160 KiB on gfx950 (AMD CDNA4 ISA guide; LLVM `FeatureAddressableLocalMemorySize163840`),
//!   64 KiB per CU on gfx1100/gfx1101 (AMD RDNA3 ISA guide: 128 KiB per work-group processor of
//!   two CUs).
//!
//! The table also holds each architecture's dense 16-bit matrix rate, the peak xprof's roofline
//! draws (`peak_teraflops`): FP16/BF16 matrix FLOPs per CU per clock, 1024 on gfx90a, 2048 on
//! gfx942, 4096 on gfx950 (AMD's CDNA 2, CDNA 3 and CDNA 4 architecture white papers, the
//! "FLOPS/clock/CU" table, dense, without sparsity). AMD publishes no such per-CU figure for
//! gfx1100/gfx1101, so they have none.

/// Limits of one GPU architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchLimits {
    pub name: &'static str,
    /// `gfx_target_version` as the agent reports it (major × 10000 + minor × 100 + stepping).
    pub gfx_target_version: u32,
    /// Wave size HIP compiles kernels for on this architecture.
    pub wave_size: u32,
    /// Most waves one SIMD holds.
    pub max_waves_per_simd: u32,
    /// VGPRs per lane in one SIMD's register file (shared by arch VGPRs and AGPRs where unified).
    pub vgprs_per_simd: u32,
    /// VGPRs are allocated per wave in multiples of this.
    pub vgpr_granule: u32,
    /// AGPRs live in the same file after the arch VGPRs, which are aligned to 4 first.
    pub unified_agprs: bool,
    /// SGPRs limit waves (gfx8–gfx9 SGPR file of 800 per SIMD).
    pub sgprs_limit: bool,
    /// LDS bytes one CU gives its work-groups.
    pub lds_bytes_per_cu: u32,
    /// SIMDs sharing one CU's work-groups.
    pub simds_per_cu: u32,
    /// Most work-groups (with barriers) resident on one CU.
    pub max_workgroups_per_cu: u32,
    /// Dense FP16/BF16 matrix FLOPs one CU does per clock (0: no published figure).
    pub matrix_f16_flops_per_cu_clock: u32,
}

const CDNA_GFX9: ArchLimits = ArchLimits {
    name: "",
    gfx_target_version: 0,
    wave_size: 64,
    max_waves_per_simd: 8,
    vgprs_per_simd: 512,
    vgpr_granule: 8,
    unified_agprs: true,
    sgprs_limit: true,
    lds_bytes_per_cu: 64 << 10,
    simds_per_cu: 4,
    max_workgroups_per_cu: 16,
    matrix_f16_flops_per_cu_clock: 0,
};

const RDNA3_1_5X: ArchLimits = ArchLimits {
    name: "",
    gfx_target_version: 0,
    wave_size: 32,
    max_waves_per_simd: 16,
    vgprs_per_simd: 1536,
    vgpr_granule: 24,
    unified_agprs: false,
    sgprs_limit: false,
    lds_bytes_per_cu: 64 << 10,
    simds_per_cu: 2,
    max_workgroups_per_cu: 16,
    matrix_f16_flops_per_cu_clock: 0,
};

/// The architectures with known limits.
pub static ARCHS: &[ArchLimits] = &[
    ArchLimits {
        name: "gfx90a",
        gfx_target_version: 90010,
        matrix_f16_flops_per_cu_clock: 1024,
        ..CDNA_GFX9
    },
    ArchLimits {
        name: "gfx942",
        gfx_target_version: 90402,
        matrix_f16_flops_per_cu_clock: 2048,
        ..CDNA_GFX9
    },
    ArchLimits {
        name: "gfx950",
        gfx_target_version: 90500,
        lds_bytes_per_cu: 160 << 10,
        matrix_f16_flops_per_cu_clock: 4096,
        ..CDNA_GFX9
    },
    ArchLimits {
        name: "gfx1100",
        gfx_target_version: 110000,
        ..RDNA3_1_5X
    },
    ArchLimits {
        name: "gfx1101",
        gfx_target_version: 110001,
        ..RDNA3_1_5X
    },
];

/// The limits of an agent by its `gfx_target_version`, or by its ISA name (`gfx942`,
/// `gfx942:sramecc+:xnack-`) when the version is 0.
pub fn limits(gfx_target_version: u32, isa_name: &str) -> Option<&'static ArchLimits> {
    let base = isa_name.split(':').next().unwrap_or("");
    ARCHS.iter().find(|a| {
        (gfx_target_version != 0 && a.gfx_target_version == gfx_target_version)
            || (gfx_target_version == 0 && a.name == base)
    })
}

/// The dense FP16/BF16 matrix peak of `compute_units` CUs at `clock_khz`, in TFLOP/s, for an
/// architecture with a published per-CU rate; `None` otherwise (never a guess). The roofline
/// of xprof means this precision for AMD GPUs: without the figure it takes the largest of its
/// own per-CU rates, on CDNA the FP16 matrix one.
pub fn peak_teraflops(
    gfx_target_version: u32,
    isa_name: &str,
    compute_units: u32,
    clock_khz: u64,
) -> Option<f64> {
    let rate = limits(gfx_target_version, isa_name)?.matrix_f16_flops_per_cu_clock;
    (rate > 0 && compute_units > 0 && clock_khz > 0)
        .then(|| f64::from(rate) * f64::from(compute_units) * clock_khz as f64 * 1e3 / 1e12)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AMD's published dense FP16 peaks: MI250X (gfx90a, 220 CUs, 1.7 GHz) 383 TFLOP/s,
    /// MI300X (gfx942, 304 CUs, 2.1 GHz) 1307.4, MI355X (gfx950, 256 CUs, 2.4 GHz) 2516.6.
    #[test]
    fn the_matrix_peak_is_amds_published_dense_fp16_figure() {
        let close = |got: Option<f64>, want: f64| {
            let got = got.expect("a peak");
            assert!((got - want).abs() < 0.05, "{got} vs {want}");
        };
        close(peak_teraflops(90010, "", 220, 1_700_000), 382.98);
        close(peak_teraflops(90402, "", 304, 2_100_000), 1307.4);
        close(
            peak_teraflops(0, "gfx950:sramecc+:xnack-", 256, 2_400_000),
            2516.58,
        );
        // No published per-CU rate, no CUs or no clock: no figure.
        assert_eq!(peak_teraflops(110000, "", 96, 2_500_000), None);
        assert_eq!(peak_teraflops(90402, "", 0, 2_100_000), None);
        assert_eq!(peak_teraflops(90402, "", 304, 0), None);
        assert_eq!(peak_teraflops(0, "gfx1200", 64, 2_000_000), None);
    }
}
