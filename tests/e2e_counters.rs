//! Hardware counters per kernel dispatch (`ROCPROF_XPLANE_PMC`), through the simulated
//! rocprofiler-sdk runtime (test infrastructure, not hardware) on both SDK families:
//! `scenarios/counters.toml` runs kernels of known FLOPs and bytes on gfx942, gfx90a, gfx950
//! and gfx1100. Every counter stat must equal the simulator's ground truth (each counter's
//! instances summed); the derived FLOPs and bytes must equal the scenario's, and the achieved
//! TFLOP/s and GB/s must be within 1 % of them over each event's own duration; a counter no GPU
//! offers, counters a GPU lacks and counters that need a second pass are each said once and
//! never appear as stats.

mod support;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use support::paths::builtin;
use support::sim::cached;
use support::xspace::{device_events, ordinal, Ev, Stat};

/// The counters asked for: what the SDK's derived FLOPs and bytes need on each architecture,
/// the waves and busy cycles, and one name no GPU has.
const PMC: &str = "SQ_WAVES,GRBM_GUI_ACTIVE,\
SQ_INSTS_VALU_FMA_F32,SQ_INSTS_VALU_FMA_F64,SQ_INSTS_VALU_MFMA_MOPS_BF16,\
TCC_BUBBLE,TCC_EA0_RDREQ,TCC_EA0_WRREQ,TCC_EA0_WRREQ_64B,\
TCC_EA_RDREQ,TCC_EA_RDREQ_32B,TCC_EA_WRREQ,TCC_EA_WRREQ_64B,\
TCC_EA0_RDREQ_128B,TCC_EA0_RDREQ_64B,\
GL2C_EA_RDREQ_32B,GL2C_EA_RDREQ_64B,GL2C_EA_RDREQ_96B,GL2C_EA_RDREQ_128B,\
GL2C_MC_WRREQ,GL2C_EA_WRREQ_64B,NOT_A_COUNTER";

/// What each GPU of the scenario must collect (in one pass), worked out from the simulator's
/// catalogues: the names it offers, in the order asked, up to 4 of a TCC/GL2C block.
fn collected(isa: &str) -> BTreeSet<&'static str> {
    let common = ["SQ_WAVES", "GRBM_GUI_ACTIVE"];
    let cdna = [
        "SQ_INSTS_VALU_FMA_F32",
        "SQ_INSTS_VALU_FMA_F64",
        "SQ_INSTS_VALU_MFMA_MOPS_BF16",
    ];
    let mut s: BTreeSet<&str> = common.into_iter().collect();
    match isa {
        "gfx942" => s.extend(cdna.into_iter().chain([
            "TCC_BUBBLE",
            "TCC_EA0_RDREQ",
            "TCC_EA0_WRREQ",
            "TCC_EA0_WRREQ_64B",
        ])),
        "gfx90a" => s.extend(cdna.into_iter().chain([
            "TCC_EA_RDREQ",
            "TCC_EA_RDREQ_32B",
            "TCC_EA_WRREQ",
            "TCC_EA_WRREQ_64B",
        ])),
        "gfx950" => s.extend(cdna.into_iter().chain([
            "TCC_EA0_WRREQ",
            "TCC_EA0_WRREQ_64B",
            "TCC_EA0_RDREQ_128B",
            "TCC_EA0_RDREQ_64B",
        ])),
        // The two write counters do not fit the pass the four read counters fill.
        "gfx1100" => s.extend([
            "GL2C_EA_RDREQ_32B",
            "GL2C_EA_RDREQ_64B",
            "GL2C_EA_RDREQ_96B",
            "GL2C_EA_RDREQ_128B",
        ]),
        _ => panic!("unexpected ISA {isa}"),
    }
    s
}

fn isa(e: &Ev<'_>) -> String {
    support::xspace::plane_stats(e.plane)["gpu_device_name"]
        .as_str()
        .unwrap()
        .to_string()
}

fn f64_stat(e: &Ev<'_>, name: &str) -> Option<f64> {
    match e.stat(name)? {
        Stat::F64(v) => Some(v),
        Stat::U64(v) => Some(v as f64),
        other => panic!("{name}: {other:?}"),
    }
}

fn duration_ns(e: &Ev<'_>) -> f64 {
    e.event.duration_ps as f64 / 1000.0
}

fn within_1pct(got: f64, want: f64) -> bool {
    (got - want).abs() <= want.abs() * 0.01
}

#[test]
fn every_kernels_counter_stats_equal_the_truth_on_both_families() {
    for sdk in ["0.6.0", "1.0.0"] {
        let r = cached(
            &builtin("counters.toml"),
            sdk,
            &[("ROCPROF_XPLANE_PMC", PMC)],
        );
        let truth = &r.plan()["kernel_counters"];
        let mut checked: BTreeMap<String, u64> = BTreeMap::new();
        for e in device_events(&r.space)
            .into_iter()
            .filter(|e| e.is_kernel())
        {
            let isa = isa(&e);
            let gpu = ordinal(e.plane).to_string();
            let t = &truth[e.name()][&gpu];
            assert!(
                t.is_object(),
                "{sdk}: no truth for {} on GPU {gpu}",
                e.name()
            );
            let want = collected(&isa);
            // Exactly the collected counters are stats, and each equals the truth (the
            // busy cycles depend on the duration and are checked below).
            for name in all_counter_names() {
                let got = f64_stat(&e, name);
                assert_eq!(
                    got.is_some(),
                    want.contains(name),
                    "{sdk}: {} on {isa}: {name} present: {got:?}",
                    e.name()
                );
                if let (Some(v), Some(t)) = (got, t["values"][name].as_u64()) {
                    assert_eq!(v, t as f64, "{sdk}: {} on {isa}: {name}", e.name());
                }
            }
            // GRBM_GUI_ACTIVE: busy cycles at the engine clock on every XCC, summed.
            let dev = &r.plan()["devices"][ordinal(e.plane) as usize];
            let clock_mhz = dev["max_engine_clk_mhz"].as_u64().unwrap() as f64;
            let xcc = dev["num_xcc"].as_u64().unwrap().max(1) as f64;
            let cycles = f64_stat(&e, "GRBM_GUI_ACTIVE").unwrap();
            assert!(
                within_1pct(cycles, duration_ns(&e) * clock_mhz / 1e3 * xcc),
                "{sdk}: {} on {isa}: GRBM_GUI_ACTIVE {cycles}",
                e.name()
            );
            check_derived(sdk, &isa, &e, t);
            *checked.entry(isa).or_default() += 1;
        }
        // 3 launches of 3 kernels on gfx942 and gfx90a, of 1 on gfx950 and gfx1100.
        assert_eq!(
            checked,
            BTreeMap::from([
                ("gfx942".to_string(), 9),
                ("gfx90a".to_string(), 9),
                ("gfx950".to_string(), 3),
                ("gfx1100".to_string(), 3),
            ]),
            "{sdk}"
        );
        check_said_once(sdk, &r.stderr, &r.space.warnings);
    }
}

/// FLOPs and bytes equal the scenario's; the rates are within 1 % of them over the event's
/// duration. gfx1100 has no FLOP counters and, in one pass, only the read counters.
fn check_derived(sdk: &str, isa: &str, e: &Ev<'_>, t: &Value) {
    let what = format!("{sdk}: {} on {isa}", e.name());
    let (flops, read, written) = (
        t["flops"].as_u64().unwrap() as f64,
        t["read_bytes"].as_u64().unwrap() as f64,
        t["write_bytes"].as_u64().unwrap() as f64,
    );
    let dur = duration_ns(e);
    if isa == "gfx1100" {
        assert_eq!(f64_stat(e, "flops"), None, "{what}");
        assert_eq!(f64_stat(e, "bytes_read"), Some(read), "{what}");
        assert_eq!(f64_stat(e, "bytes_written"), None, "{what}");
        assert_eq!(f64_stat(e, "achieved_gb_per_s"), None, "{what}");
        return;
    }
    assert_eq!(f64_stat(e, "flops"), Some(flops), "{what}");
    assert_eq!(f64_stat(e, "bytes_read"), Some(read), "{what}");
    assert_eq!(f64_stat(e, "bytes_written"), Some(written), "{what}");
    assert_eq!(
        f64_stat(e, "bytes_accessed"),
        Some(read + written),
        "{what}"
    );
    let tflops = f64_stat(e, "achieved_tflop_per_s").unwrap();
    assert!(
        within_1pct(tflops, flops / dur / 1e3),
        "{what}: {tflops} TFLOP/s"
    );
    let gbs = f64_stat(e, "achieved_gb_per_s").unwrap();
    assert!(
        within_1pct(gbs, (read + written) / dur),
        "{what}: {gbs} GB/s"
    );
}

/// The unknown name, the second-pass counters and the serialisation are each said once on
/// stderr and in the profile's warnings.
fn check_said_once(sdk: &str, stderr: &str, warnings: &[String]) {
    for needle in [
        "no GPU offers NOT_A_COUNTER",
        "GL2C_MC_WRREQ, GL2C_EA_WRREQ_64B do not fit the same hardware pass",
        "serialise kernel dispatches on real hardware",
    ] {
        assert_eq!(
            stderr.matches(needle).count(),
            1,
            "{sdk}: {needle:?} on stderr:\n{stderr}"
        );
        assert_eq!(
            warnings.iter().filter(|w| w.contains(needle)).count(),
            1,
            "{sdk}: {needle:?} in warnings: {warnings:?}"
        );
    }
}

fn all_counter_names() -> Vec<&'static str> {
    PMC.split(',').collect()
}

/// Without ROCPROF_XPLANE_PMC nothing about counters is said or written.
#[test]
fn without_pmc_there_are_no_counter_stats_and_no_warning() {
    let r = cached(&builtin("counters.toml"), "1.0.0", &[]);
    for e in device_events(&r.space)
        .into_iter()
        .filter(|e| e.is_kernel())
    {
        assert_eq!(e.stat("SQ_WAVES"), None);
        assert_eq!(e.stat("flops"), None);
    }
    assert!(!r.stderr.contains("ROCPROF_XPLANE_PMC"), "{}", r.stderr);
    assert!(
        r.space.warnings.iter().all(|w| !w.contains("PMC")),
        "{:?}",
        r.space.warnings
    );
}

/// Through real xprof: perf_counters lists every counter value of every GPU (one row per
/// dispatch and counter, numbered by the plane's `device_id`, the kernel in the description);
/// the trace viewer draws one counter track per counter per GPU; kernel_stats still lists only
/// the kernels.
#[test]
fn xprof_perf_counters_and_trace_viewer_show_the_counters() {
    if !support::xprof::available() {
        return;
    }
    let r = cached(
        &builtin("counters.toml"),
        "1.0.0",
        &[("ROCPROF_XPLANE_PMC", PMC)],
    );
    let v = support::xprof::views(&r.files[0]);
    assert_eq!(v["errors"], serde_json::json!({}), "{v}");
    // Expected rows per chip: dispatches × counters collected there.
    let mut want: BTreeMap<u64, usize> = BTreeMap::new();
    let mut tracks: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for e in device_events(&r.space)
        .into_iter()
        .filter(|e| e.is_kernel())
    {
        let chip = u64::from(ordinal(e.plane));
        let names = collected(&isa(&e));
        *want.entry(chip).or_default() += names.len();
        tracks
            .entry(chip)
            .or_default()
            .extend(names.into_iter().map(String::from));
    }
    let mut got: BTreeMap<u64, usize> = BTreeMap::new();
    for row in v["perf_counters"].as_array().unwrap() {
        *got.entry(row["Chip"].as_f64().unwrap() as u64).or_default() += 1;
        let counter = row["Counter"].as_str().unwrap();
        assert!(
            PMC.to_lowercase().split(',').any(|n| n == counter),
            "{counter}"
        );
        assert!(
            row["Description"].as_str().unwrap().contains("(dispatch "),
            "{row}"
        );
    }
    assert_eq!(got, want);
    let drawn = v["counter_tracks"].as_object().unwrap();
    for (chip, names) in &tracks {
        let (_, per) = drawn
            .iter()
            .find(|(p, _)| p.ends_with(&format!("/device:GPU:{chip}")))
            .unwrap_or_else(|| panic!("no counter tracks for GPU {chip}: {drawn:?}"));
        let shown: BTreeSet<String> = per.as_object().unwrap().keys().cloned().collect();
        assert_eq!(&shown, names, "GPU {chip}");
    }
    let s = support::xprof::summary(&r.files[0], &support::paths::host_of(&r.files[0]));
    let rows = s["kernel_stats"]["rows"].as_array().unwrap();
    let occurrences: f64 = rows
        .iter()
        .map(|r| r["Occurrences"].as_f64().unwrap())
        .sum();
    assert_eq!(occurrences, 24.0, "{rows:?}");
}
