//! `rocprof-xplane convert` on real rocprofv3 output recorded by others on AMD GPUs
//! (`../shared/testdata/real/`, attribution in each README there): the MI350X JSON (43,915
//! dispatches; AMD-AGI/TraceLens, MIT) through real xprof, the gfx1151 CSV pairs
//! (jimw567/rocprof-unified-viewer, MIT), the rocpd2csv export of an MI300A
//! (amd/HPCTrainingExamples, MIT), and the legacy rocprof v1 database refused with a message
//! naming it.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use rocprof_xplane::xplane::read_xspace;
use support::paths::{cli, host_of, profiles, real_data};
use support::xspace::{counters, device_counts_by_name, host_api_events};
use support::{stderr_of, stdout_of};

/// Converts `input` into a fresh log directory; returns (log dir, output).
fn convert(input: &Path, run: &str) -> (tempfile::TempDir, std::process::Output) {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(cli())
        .arg("convert")
        .arg(input)
        .arg("--output-dir")
        .arg(tmp.path())
        .args(["--run-name", run])
        .output()
        .expect("run rocprof-xplane convert");
    (tmp, out)
}

/// The MI350X JSON converted once per test binary (it takes a while in a debug build).
fn mi350x() -> &'static (tempfile::TempDir, PathBuf) {
    static ONCE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    ONCE.get_or_init(|| {
        let input = real_data("rocprofv3-json-mi350x/908_results.json.gz");
        let (tmp, out) = convert(&input, "mi350x");
        assert!(out.status.success(), "{}", stderr_of(&out));
        let files = profiles(tmp.path(), "mi350x");
        assert_eq!(files.len(), 1, "{files:?}");
        let f = files[0].clone();
        (tmp, f)
    })
}

#[test]
fn mi350x_json_keeps_every_dispatch_with_names_streams_and_occupancy() {
    let (_, file) = mi350x();
    let s = read_xspace(file).unwrap();
    support::xspace::assert_lines_nest(&s, "mi350x");
    let (by_name, copies) = device_counts_by_name(&s);
    assert_eq!(by_name.values().sum::<u64>(), 43_915, "every dispatch");
    assert_eq!(copies, 0);
    assert_eq!(counters(&s)["kernel_records"], 43_915);
    // Named from the kernel symbols (9,889 in the file), none by id.
    assert_eq!(counters(&s)["kernels_without_symbol"], 0);
    assert!(
        by_name.keys().any(|k| k.starts_with("ncclDevKernel")),
        "{:?}",
        by_name.keys().take(5).collect::<Vec<_>>()
    );
    // Host name and pid from the metadata.
    assert!(file
        .to_string_lossy()
        .ends_with("smci350-zts-gtu-c6-25.908.xplane.pb"));
    // gfx950 agents: the device plane carries the MI350X's properties.
    let gpu = support::xspace::plane(&s, "/device:GPU:0");
    let st = support::xspace::plane_stats(gpu);
    assert_eq!(st["gpu_device_name"].as_str(), Some("gfx950"));
}

/// The MI350X agents report `local_mem_size` 0 and their 288 GiB of HBM in their one
/// frame-buffer bank (`mem_banks[0].size_in_bytes` = 309,220,868,096): the device plane's
/// `memory_size` is that bank, not 0.
#[test]
fn mi350x_json_gpu_memory_comes_from_the_memory_banks() {
    let (_, file) = mi350x();
    let s = read_xspace(file).unwrap();
    let gpus = support::xspace::device_planes(&s);
    assert!(!gpus.is_empty());
    for p in gpus {
        let st = support::xspace::plane_stats(p);
        assert_eq!(
            st.get("memory_size").and_then(|v| v.as_u64()),
            Some(309_220_868_096),
            "{}",
            p.name
        );
    }
}

#[test]
fn mi350x_json_through_real_xprof_kernel_stats_sum_to_the_dispatches() {
    if !support::xprof::available() {
        return;
    }
    let (_, file) = mi350x();
    let s = support::xprof::summary(file, &host_of(file));
    assert_eq!(s["errors"], serde_json::json!({}));
    let occ = support::xprof::occurrences(&s["kernel_stats"]);
    assert_eq!(occ.values().sum::<u64>(), 43_915);
    // Registers come from the symbols; gfx950 limits are known, so occupancy shows.
    let rows = s["kernel_stats"]["rows"].as_array().unwrap();
    let with_regs: Vec<_> = rows
        .iter()
        .filter(|r| r["Registers per thread"].as_f64().unwrap_or(0.0) > 0.0)
        .collect();
    assert!(!with_regs.is_empty());
    assert!(with_regs
        .iter()
        .all(|r| r["Theoretical Occupancy %"].as_f64().unwrap_or(0.0) > 0.0));
}

#[test]
fn gfx1151_csv_pair_converts() {
    let input = real_data("rocprofv3-csv-gfx1151/decode_kernel_trace.csv");
    let (tmp, out) = convert(&input, "gfx1151");
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stdout_of(&out).contains("wrote "), "{}", stdout_of(&out));
    let files = profiles(tmp.path(), "gfx1151");
    let s = read_xspace(&files[0]).unwrap();
    support::xspace::assert_lines_nest(&s, "gfx1151");
    let (by_name, _) = device_counts_by_name(&s);
    assert_eq!(by_name.values().sum::<u64>(), 144, "every kernel row");
    assert_eq!(by_name.len(), 17, "17 kernel names: {by_name:?}");
    assert_eq!(host_api_events(&s).len(), 920, "every HIP API row");
    // The files were cut down by their maintainer: only 4 correlation ids are in both files,
    // shared by 27 kernel rows (counted with Python's csv module), so 117 have no API call.
    let c = counters(&s);
    assert_eq!(c["activities_without_api"], 117, "{c:?}");
    // No agent properties in the CSV: no ISA, so no invented occupancy.
    for e in support::xspace::device_events(&s) {
        let d = e.raw_stat("kernel_details");
        if let Some(rocprof_xplane::xplane::proto::x_stat::Value::RefValue(r)) = d {
            let text = &e.plane.stat_metadata[&(*r as i64)].name;
            assert!(!text.contains("occ_pct"), "{text}");
        }
    }
}

/// `kernel_details` tokens of every kernel event, by kernel name.
fn details_by_name(s: &rocprof_xplane::xplane::proto::XSpace) -> Vec<(String, String)> {
    support::xspace::device_events(s)
        .into_iter()
        .filter_map(|e| {
            let d = match e.raw_stat("kernel_details")? {
                rocprof_xplane::xplane::proto::x_stat::Value::RefValue(r) => {
                    e.plane.stat_metadata[&(*r as i64)].name.clone()
                }
                rocprof_xplane::xplane::proto::x_stat::Value::StrValue(v) => v.clone(),
                _ => return None,
            };
            Some((e.name().to_string(), d))
        })
        .collect()
}

/// rocpd2csv's dialect (a real ROCm 7.1.1 MI300A export: a leading `Guid` column,
/// `Lds_Block_Size`, `Vgpr_Count`, `Accum_Vgpr_Count`, `Sgpr_Count`): every row converts with
/// the registers and LDS the file gives (`regs` = VGPR + AGPR, as rocprofv3 counts a wave's
/// vector registers; the file's LDS as the dispatch's).
#[test]
fn rocpd2csv_mi300a_keeps_registers_and_lds() {
    let input = real_data("rocpd2csv-mi300a/out_kernel_trace.csv");
    let (tmp, out) = convert(&input, "mi300a");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let s = read_xspace(&profiles(tmp.path(), "mi300a")[0]).unwrap();
    let got = details_by_name(&s);
    assert_eq!(got.len(), 9, "every row: {got:?}");
    // From the file (name suffix → VGPR, AGPR, LDS): norm 16/0/8456, laplacian 32/0/0,
    // boundary_conditions 20/4/0, update 24/0/0.
    let want = |name: &str| match name.rsplit("__").next().unwrap_or("") {
        n if n.starts_with("QMnorm_mod") => ("16", "8456"),
        n if n.starts_with("QMlaplacian_mod") => ("32", "0"),
        n if n.starts_with("QMboundary_mod") => ("24", "0"),
        n if n.starts_with("QMupdate_mod") => ("24", "0"),
        n => panic!("unexpected kernel {n}"),
    };
    for (name, d) in &got {
        let t = support::xspace::details(d);
        let (regs, lds) = want(name);
        assert_eq!(t.get("regs"), Some(&regs), "{name}: {d}");
        let shared = t["static_shared"].parse::<u64>().unwrap()
            + t["dynamic_shared"].parse::<u64>().unwrap();
        assert_eq!(shared.to_string(), lds, "{name}: {d}");
    }
}

/// A real graph-launched llama.cpp prefill on gfx1151 (rocprofv3 CSV, trimmed by its author):
/// one `hipGraphLaunch` (correlation id 57328) owns 1,123 of the 1,128 dispatches, and every
/// one of them is drawn as launched by that call.
#[test]
fn gfx1151_prefill_graph_launch_owns_its_kernels() {
    let input = real_data("rocprofv3-csv-gfx1151-prefill/prefill_kernel_trace.csv");
    let (tmp, out) = convert(&input, "prefill");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let s = read_xspace(&profiles(tmp.path(), "prefill")[0]).unwrap();
    support::xspace::assert_lines_nest(&s, "prefill");
    let kernels = support::xspace::kernels(&s);
    assert_eq!(kernels.len(), 1128, "every dispatch");
    let of_launch = kernels
        .iter()
        .filter(|e| e.correlation_id() == Some(57328))
        .count();
    assert_eq!(of_launch, 1123);
    let api = host_api_events(&s);
    assert_eq!(api.len(), 5, "every HIP row");
    assert!(api
        .iter()
        .any(|e| e.name() == "hipGraphLaunch" && e.correlation_id() == Some(57328)));
    // Of the 5 others, one is the blit kernel of a hipMemcpyAsync in the file (57428); 4 have
    // no call in the trimmed HIP file.
    assert_eq!(
        counters(&s)["activities_without_api"],
        4,
        "{:?}",
        counters(&s)
    );
}

#[test]
fn the_legacy_rocprof_v1_database_is_refused_by_name() {
    let input = real_data("rocprof-v1-db-mi250x/results.db");
    let (tmp, out) = convert(&input, "v1");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.contains("legacy rocprof (v1) results.db"), "{err}");
    assert!(profiles(tmp.path(), "v1").is_empty());
}

#[test]
fn something_else_is_refused_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    let junk = tmp.path().join("notes.txt");
    std::fs::write(&junk, "hello\n").unwrap();
    let (_, out) = convert(&junk, "junk");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("not a rocprofv3 output"),
        "{}",
        stderr_of(&out)
    );
    let (_, out) = convert(&tmp.path().join("missing.json"), "missing");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("missing.json"),
        "{}",
        stderr_of(&out)
    );
}

/// Hostile text in a rocprofv3 JSON reaches the file intact or is made safe, never a crash: an
/// empty host name (the file is named `converted.<pid>`), a 10 KB multi-byte kernel name, an
/// empty kernel name (skipped: the dispatch is named by id), two dispatches on one stream that
/// overlap (split so every line nests).
#[test]
fn hostile_json_text_is_kept_or_made_safe() {
    let long: String = "名–é ".repeat(1500); // ~10 KB
    let doc = serde_json::json!({"rocprofiler-sdk-tool": [{
        "metadata": {"node": {"hostname": ""}, "pid": 77, "init_time": 1000, "fini_time": 9000},
        "agents": [{"id": {"handle": 5}, "type": 2, "name": "gfx942", "simd_per_cu": 4,
                    "wave_front_size": 64, "max_waves_per_cu": 32, "gfx_target_version": 90402}],
        "strings": {"buffer_records": []},
        "kernel_symbols": [
            {"kernel_id": 1, "kernel_name": format!("{long}.kd"), "arch_vgpr_count": 32},
            {"kernel_id": 2, "kernel_name": ""}
        ],
        "buffer_records": {"kernel_dispatch": [
            {"correlation_id": {"internal": 1}, "start_timestamp": 2000, "end_timestamp": 5000,
             "stream_id": {"handle": 9},
             "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1,
                               "workgroup_size": {"x": 64, "y": 1, "z": 1},
                               "grid_size": {"x": 64, "y": 1, "z": 1}}},
            {"correlation_id": {"internal": 2}, "start_timestamp": 3000, "end_timestamp": 6000,
             "stream_id": {"handle": 9},
             "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 2,
                               "workgroup_size": {"x": 64, "y": 1, "z": 1},
                               "grid_size": {"x": 64, "y": 1, "z": 1}}}
        ]}
    }]});
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("hostile.json");
    std::fs::write(&input, doc.to_string()).unwrap();
    let (logs, out) = convert(&input, "hostile");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let files = profiles(logs.path(), "hostile");
    assert!(
        files[0]
            .to_string_lossy()
            .ends_with("converted.77.xplane.pb"),
        "{files:?}"
    );
    let s = read_xspace(&files[0]).unwrap();
    support::xspace::assert_lines_nest(&s, "hostile");
    let (by_name, _) = device_counts_by_name(&s);
    assert_eq!(
        by_name.get(long.as_str()),
        Some(&1),
        "the 10 KB name intact"
    );
    assert_eq!(by_name.values().sum::<u64>(), 2);
    assert_eq!(
        counters(&s)["kernels_without_symbol"],
        1,
        "the empty name: named by id"
    );
}
