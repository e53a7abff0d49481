//! Theoretical occupancy of a dispatch: how many of its waves fit on one SIMD at once, from its
//! registers, its LDS per work-group and its work-group size, against the architecture's limits
//! (`hip::arch`, which cites where each limit comes from). It is what AMD users read to judge
//! register pressure, and what xprof shows as "occupancy" when `kernel_details` carries
//! `occ_pct:`. Unknown architectures get `None`.

use crate::hip::arch::{self, ArchLimits};

use super::trace::{Device, LaunchShape};

/// The result for one dispatch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Occupancy {
    /// Waves of this kernel one SIMD can hold.
    pub waves_per_simd: u32,
    /// The architecture's (or agent's) most waves per SIMD.
    pub max_waves_per_simd: u32,
    /// What limits it: `vgpr`, `sgpr`, `lds`, `workgroups`, or `waves` (nothing but the wave
    /// slots: full occupancy).
    pub limiter: &'static str,
}

impl Occupancy {
    pub fn percent(&self) -> f64 {
        100.0 * f64::from(self.waves_per_simd) / f64::from(self.max_waves_per_simd.max(1))
    }
}

/// `v` rounded up to a multiple of `to`, at most `u32::MAX`: register counts come from the
/// runtime's kernel symbols, and a corrupt one near `u32::MAX` overflowed the multiply (a panic
/// in a debug build, a wrapped count in a release one; found by `tests/fuzz.rs` with
/// `ROCPROF_FUZZ_SEED=2`).
fn align(v: u32, to: u32) -> u32 {
    v.div_ceil(to.max(1)).saturating_mul(to.max(1))
}

/// Waves per SIMD the VGPRs allow (LLVM's `getNumWavesPerEUWithNumVGPRs`).
fn waves_by_vgprs(a: &ArchLimits, arch_vgprs: u32, agprs: u32, max: u32) -> u32 {
    let total = if a.unified_agprs && agprs > 0 {
        align(arch_vgprs, 4).saturating_add(agprs)
    } else {
        arch_vgprs.saturating_add(agprs)
    };
    if total < a.vgpr_granule {
        return max;
    }
    (a.vgprs_per_simd / align(total, a.vgpr_granule)).clamp(1, max)
}

/// Waves per SIMD the SGPRs allow (LLVM's `getOccupancyWithNumSGPRs`, gfx8–gfx9).
fn waves_by_sgprs(a: &ArchLimits, sgprs: u32, max: u32) -> u32 {
    if !a.sgprs_limit {
        return max;
    }
    let w = match sgprs {
        0..=80 => 10,
        81..=88 => 9,
        89..=100 => 8,
        _ => 7,
    };
    w.min(max)
}

/// Occupancy of a dispatch of `k` on `d`, or `None` for an architecture without known limits.
pub fn occupancy(k: &LaunchShape, d: &Device) -> Option<Occupancy> {
    let a = arch::limits(d.gfx_target_version, &d.name)?;
    let wave = if d.wave_front_size > 0 {
        d.wave_front_size
    } else {
        a.wave_size
    };
    let simds = if d.simd_per_cu > 0 {
        d.simd_per_cu
    } else {
        a.simds_per_cu
    };
    let mut max = a.max_waves_per_simd;
    if d.max_waves_per_cu > 0 && d.simd_per_cu > 0 {
        max = max.min(d.max_waves_per_cu / d.simd_per_cu).max(1);
    }
    let block: u64 = k.block.iter().map(|&b| u64::from(b.max(1))).product();
    let waves_per_wg = u32::try_from(block.div_ceil(u64::from(wave))).unwrap_or(u32::MAX);

    let arch_vgprs = k.code.vgpr_count.saturating_sub(k.code.agpr_count);
    let by_vgpr = waves_by_vgprs(a, arch_vgprs, k.code.agpr_count, max);
    let by_sgpr = waves_by_sgprs(a, k.code.sgpr_count, max);
    // Work-groups per CU and their waves per SIMD, as LLVM's `getMaxWorkGroupsPerCU` and
    // `getOccupancyWithLocalMemSize` count them: single-wave work-groups need no barrier slot;
    // waves are spread over the CU's SIMDs rounding up; a work-group needing more LDS than
    // the CU has still gets one wave.
    let slots_per_cu = u64::from(max) * u64::from(simds);
    let max_wgs = if waves_per_wg <= 1 {
        slots_per_cu
    } else {
        (slots_per_cu / u64::from(waves_per_wg)).min(u64::from(a.max_workgroups_per_cu))
    };
    let per_simd = |wgs: u64| -> u32 {
        let w = (wgs * u64::from(waves_per_wg)).div_ceil(u64::from(simds));
        u32::try_from(w).unwrap_or(u32::MAX).clamp(1, max)
    };
    let lds = u64::from(k.code.static_shared_bytes) + u64::from(k.dynamic_shared_bytes);
    let lds_wgs = u64::from(a.lds_bytes_per_cu)
        .checked_div(lds)
        .unwrap_or(u64::MAX);
    let (by_lds, by_wg) = if lds_wgs < max_wgs {
        (per_simd(lds_wgs), max)
    } else {
        (max, per_simd(max_wgs))
    };
    let (waves, limiter) = [
        (by_vgpr, "vgpr"),
        (by_sgpr, "sgpr"),
        (by_lds, "lds"),
        (by_wg, "workgroups"),
    ]
    .into_iter()
    .filter(|(w, _)| *w < max)
    .min_by_key(|(w, _)| *w)
    .unwrap_or((max, "waves"));
    Some(Occupancy {
        waves_per_simd: waves,
        max_waves_per_simd: max,
        limiter,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(gfx: u32, name: &str, simds: u32, wave: u32, max_per_cu: u32) -> Device {
        Device {
            name: name.into(),
            gfx_target_version: gfx,
            simd_per_cu: simds,
            wave_front_size: wave,
            max_waves_per_cu: max_per_cu,
            ..Device::default()
        }
    }

    fn kernel(arch: u32, agpr: u32, sgpr: u32, block: u32, lds: u32) -> LaunchShape {
        LaunchShape {
            code: std::sync::Arc::new(crate::model::KernelCode {
                name: "k".into(),
                vgpr_count: arch + agpr,
                agpr_count: agpr,
                sgpr_count: sgpr,
                static_shared_bytes: lds,
                ..Default::default()
            }),
            block: [block, 1, 1],
            grid: [1, 1, 1],
            ..LaunchShape::default()
        }
    }

    /// Register counts a corrupt kernel symbol could carry, up to `u32::MAX`: one wave per
    /// SIMD, limited by the VGPRs, never an overflow (which panicked in debug builds).
    #[test]
    fn register_counts_near_the_top_of_u32_give_one_wave() {
        let mi250x = device(90010, "gfx90a", 4, 64, 32);
        for (arch, agpr) in [
            (u32::MAX, 0),
            (u32::MAX - 2, 0),
            (0, u32::MAX),
            (u32::MAX / 2, u32::MAX / 2 + 1),
        ] {
            let k = LaunchShape {
                code: std::sync::Arc::new(crate::model::KernelCode {
                    name: "k".into(),
                    vgpr_count: arch.saturating_add(agpr),
                    agpr_count: agpr,
                    ..Default::default()
                }),
                block: [64, 1, 1],
                ..LaunchShape::default()
            };
            let o = occupancy(&k, &mi250x).unwrap();
            assert_eq!(
                (o.waves_per_simd, o.limiter),
                (1, "vgpr"),
                "{arch} + {agpr}"
            );
        }
    }

    /// (arch VGPRs, AGPRs, SGPRs, block, LDS) → expected waves per SIMD and limiter, each row
    /// worked by hand from the rules `hip::arch` cites.
    #[test]
    fn waves_per_simd_table() {
        let mi300x = device(90402, "gfx942", 4, 64, 32);
        let mi250x = device(90010, "gfx90a", 4, 64, 32);
        let mi355x = device(90500, "gfx950", 4, 64, 32);
        let rx7900 = device(110000, "gfx1100", 2, 32, 32);
        /// (arch VGPRs, AGPRs, SGPRs, block, LDS bytes).
        type Resources = (u32, u32, u32, u32, u32);
        let rows: &[(&Device, Resources, u32, &str)] = &[
            // 32 VGPRs → 512/32 = 16 > 8 slots; 32 SGPRs ≤ 80 → 10; no LDS: 8 (100 %).
            (&mi300x, (32, 0, 32, 256, 0), 8, "waves"),
            // 128 VGPRs → 512/128 = 4 (50 %).
            (&mi300x, (128, 0, 32, 256, 0), 4, "vgpr"),
            // LLVM's agpr-register-count.ll: 9 arch + 32 AGPRs → align(9,4)+32 = 44 → 48 → 10 → 8.
            (&mi250x, (9, 32, 32, 256, 0), 8, "waves"),
            // Same test: 40 arch + 16 AGPRs = 56 → 56 → 9 → 8.
            (&mi250x, (40, 16, 32, 256, 0), 8, "waves"),
            // 96 + 96 = 192 → 512/192 = 2 (25 %).
            (&mi300x, (96, 96, 32, 256, 0), 2, "vgpr"),
            // 30 arch + 64 AGPRs: align(30,4) = 32, + 64 = 96 → 512/96 = 5.
            (&mi300x, (30, 64, 32, 256, 0), 5, "vgpr"),
            // 102 SGPRs > 100 → 7 waves on gfx9.
            (&mi300x, (32, 0, 102, 256, 0), 7, "sgpr"),
            // 256 threads = 4 waves; 32 KiB LDS → 64/32 = 2 work-groups × 4 waves / 4 SIMDs = 2.
            (&mi300x, (32, 0, 32, 256, 32 << 10), 2, "lds"),
            // 64 KiB per work-group: 1 per CU on gfx942 → 1 wave per SIMD …
            (&mi300x, (32, 0, 32, 256, 64 << 10), 1, "lds"),
            // … 2 per CU with gfx950's 160 KiB → 2.
            (&mi355x, (32, 0, 32, 256, 64 << 10), 2, "lds"),
            // 448 threads = 7 waves: 32 slots per CU hold 4 such work-groups = 28 waves → 7.
            (&mi300x, (16, 0, 16, 448, 0), 7, "workgroups"),
            // 104 KiB LDS, 128 threads (2 waves) on gfx950: 1 work-group → ⌈2/4⌉ = 1 wave.
            (&mi355x, (132, 0, 64, 128, 104 << 10), 1, "lds"),
            // More LDS than a CU has: still one wave (LLVM: "assume the worst").
            (&mi300x, (16, 0, 16, 256, 96 << 10), 1, "lds"),
            // One-wave work-groups take no barrier slot: 64 threads, 16 VGPRs → 8.
            (&mi300x, (16, 0, 16, 64, 0), 8, "waves"),
            // gfx1100, wave32: 64 VGPRs → align(64, 24) = 72 → 1536/72 = 21 > 16 slots.
            (&rx7900, (64, 0, 40, 256, 0), 16, "waves"),
            // 128 VGPRs → 144 → 1536/144 = 10 (62.5 %); SGPRs never limit on gfx10+.
            (&rx7900, (128, 0, 120, 256, 0), 10, "vgpr"),
            // 256 threads = 8 wave32; 32 KiB → 2 work-groups × 8 / 2 SIMDs = 8 (50 %).
            (&rx7900, (32, 0, 40, 256, 32 << 10), 8, "lds"),
            // Fewer VGPRs than one granule: all slots.
            (&rx7900, (1, 0, 1, 32, 0), 16, "waves"),
        ];
        for (d, (a, g, s, b, l), want, limiter) in rows {
            let o = occupancy(&kernel(*a, *g, *s, *b, *l), d).expect("known architecture");
            assert_eq!(
                (o.waves_per_simd, o.limiter),
                (*want, *limiter),
                "{} arch {a} agpr {g} sgpr {s} block {b} lds {l}",
                d.name
            );
        }
        let o = occupancy(&kernel(128, 0, 32, 256, 0), &mi300x).unwrap();
        assert_eq!(o.percent(), 50.0);
    }

    #[test]
    fn unknown_architectures_get_nothing() {
        let gfx906 = device(90006, "gfx906", 4, 64, 40);
        assert_eq!(occupancy(&kernel(32, 0, 32, 256, 0), &gfx906), None);
        let unnamed = device(0, "", 4, 64, 32);
        assert_eq!(occupancy(&kernel(32, 0, 32, 256, 0), &unnamed), None);
        // By ISA name when the version is missing.
        let named = device(0, "gfx942:sramecc+:xnack-", 4, 64, 32);
        assert!(occupancy(&kernel(32, 0, 32, 256, 0), &named).is_some());
    }
}
