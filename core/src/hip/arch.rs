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
};

/// The architectures with known limits.
pub static ARCHS: &[ArchLimits] = &[
    ArchLimits {
        name: "gfx90a",
        gfx_target_version: 90010,
        ..CDNA_GFX9
    },
    ArchLimits {
        name: "gfx942",
        gfx_target_version: 90402,
        ..CDNA_GFX9
    },
    ArchLimits {
        name: "gfx950",
        gfx_target_version: 90500,
        lds_bytes_per_cu: 160 << 10,
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
