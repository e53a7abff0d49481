//! Occupancy, registers and shared memory in kernel stats, per architecture, through
//! the simulated rocprofiler-sdk runtime (test infrastructure, not hardware) and real xprof.
//! `scenarios/occupancy.toml` runs five kernels with distinct register/LDS needs on gfx942,
//! gfx90a, gfx950 and gfx1100; every expected value below was worked out by hand from the rules
//! `hip::arch` cites (LLVM AMDGPUBaseInfo, AMD ISA guides), not computed by the code under test.

mod support;

use std::collections::BTreeMap;

use rocprof_xplane::xplane::proto::x_stat;
use support::paths::{builtin, host_of};
use support::sim::cached;
use support::xspace::{device_events, Ev};

/// (kernel, ISA) → (occ_pct, limiter).
fn expected() -> BTreeMap<(&'static str, &'static str), (f64, &'static str)> {
    let mut m = BTreeMap::new();
    for isa in ["gfx942", "gfx90a"] {
        // 96 arch + 128 AGPRs: align(96,4)+128 = 224 → 512/224 = 2 of 8.
        m.insert(("gemm_bf16_mfma", isa), (25.0, "vgpr"));
        // 12 VGPRs → 16 → 32 ≥ 8 slots.
        m.insert(("elementwise_add", isa), (100.0, "waves"));
        // 512 threads = 8 waves; 32 KiB LDS → 2 work-groups × 8 / 4 SIMDs = 4.
        m.insert(("softmax_lds", isa), (50.0, "lds"));
        // 104 SGPRs > 100 → 7.
        m.insert(("reduce_sgpr_heavy", isa), (87.5, "sgpr"));
        // 256 VGPRs → 2.
        m.insert(("attention_spill", isa), (25.0, "vgpr"));
    }
    // gfx950: the same, except 160 KiB LDS: softmax fits 5 work-groups → 10 ≥ 8.
    m.insert(("gemm_bf16_mfma", "gfx950"), (25.0, "vgpr"));
    m.insert(("elementwise_add", "gfx950"), (100.0, "waves"));
    m.insert(("softmax_lds", "gfx950"), (100.0, "waves"));
    m.insert(("reduce_sgpr_heavy", "gfx950"), (87.5, "sgpr"));
    m.insert(("attention_spill", "gfx950"), (25.0, "vgpr"));
    // gfx1100, wave32, 1536 VGPRs in granules of 24, 16 slots, 2 SIMDs, SGPRs never limit.
    // 224 → 240 → 6 of 16.
    m.insert(("gemm_bf16_mfma", "gfx1100"), (37.5, "vgpr"));
    m.insert(("elementwise_add", "gfx1100"), (100.0, "waves"));
    // 512 threads = 16 wave32; 32 KiB → 2 × 16 / 2 = 16: not below the slots.
    m.insert(("softmax_lds", "gfx1100"), (100.0, "waves"));
    m.insert(("reduce_sgpr_heavy", "gfx1100"), (100.0, "waves"));
    // 256 → 264 → 1536/264 = 5 of 16.
    m.insert(("attention_spill", "gfx1100"), (31.25, "vgpr"));
    m
}

fn occ_pct(details: &str) -> Option<f64> {
    details
        .split_whitespace()
        .find_map(|t| t.strip_prefix("occ_pct:"))
        .map(|v| v.parse().unwrap())
}

fn str_stat(e: &Ev<'_>, name: &str) -> Option<String> {
    let md = &e.plane.stat_metadata;
    e.event.stats.iter().find_map(|s| {
        (md.get(&s.metadata_id)?.name == name).then(|| match &s.value {
            Some(x_stat::Value::StrValue(v)) => v.clone(),
            Some(x_stat::Value::RefValue(r)) => md[&(*r as i64)].name.clone(),
            other => panic!("{name}: {other:?}"),
        })
    })
}

#[test]
fn occupancy_per_architecture_matches_the_worked_table() {
    for sdk in ["0.6.0", "1.0.0"] {
        let r = cached(&builtin("occupancy.toml"), sdk, &[]);
        let want = expected();
        let mut seen = BTreeMap::new();
        for e in device_events(&r.space)
            .into_iter()
            .filter(|e| e.is_kernel())
        {
            let plane_isa = device_isa(e.plane);
            let details = str_stat(&e, "kernel_details").expect("kernel_details");
            let occ = occ_pct(&details).unwrap_or_else(|| panic!("{sdk}: no occ_pct: {details}"));
            let limiter = str_stat(&e, "occupancy_limiter").expect("occupancy_limiter");
            let key = (e.name().to_string(), plane_isa);
            seen.insert(key, (occ, limiter));
        }
        assert_eq!(seen.len(), want.len(), "{sdk}: {seen:?}");
        for ((k, isa), (occ, lim)) in &want {
            let got = &seen[&(k.to_string(), isa.to_string())];
            assert_eq!(got.0, *occ, "{sdk}: {k} on {isa}: occ_pct");
            assert_eq!(got.1, *lim, "{sdk}: {k} on {isa}: limiter");
        }
    }
}

/// The ISA of a device plane: its `gpu_device_name` plane stat (the agent's name).
fn device_isa(plane: &rocprof_xplane::xplane::proto::XPlane) -> String {
    support::xspace::plane_stats(plane)
        .get("gpu_device_name")
        .and_then(|s| s.as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("{}: no gpu_device_name", plane.name))
}

/// Through real xprof's kernel_stats: every kernel shows a non-zero theoretical occupancy and
/// registers per thread, and the kernels with LDS show their shared memory.
#[test]
fn xprof_kernel_stats_show_occupancy_registers_and_shared_memory() {
    if !support::xprof::available() {
        return;
    }
    let r = cached(&builtin("occupancy.toml"), "1.0.0", &[]);
    let s = support::xprof::summary(&r.files[0], &host_of(&r.files[0]));
    assert_eq!(s["errors"], serde_json::json!({}));
    let rows = s["kernel_stats"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "{rows:?}");
    for row in rows {
        let name = row["Kernel Name"].as_str().unwrap();
        let occ = row["Theoretical Occupancy %"].as_f64().unwrap_or(0.0);
        assert!(occ > 0.0, "{name}: occupancy {occ}");
        assert!(
            row["Registers per thread"].as_f64().unwrap_or(0.0) > 0.0,
            "{name}"
        );
        let shared = row["Shared Mem bytes"].as_f64().unwrap_or(0.0);
        match name {
            "gemm_bf16_mfma" => assert_eq!(shared, 16384.0),
            "softmax_lds" => assert_eq!(shared, 32768.0),
            _ => assert_eq!(shared, 0.0, "{name}"),
        }
    }
}
