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

/// A run of `scenarios/counters.toml` with `PMC` by the tool and the simulator's test tool
/// beside it (which logs every record the runtime gave it): the live profile, the log, the
/// ground truth.
struct BothTools {
    dir: tempfile::TempDir,
    live: rocprof_xplane::xplane::proto::XSpace,
    records: support::records::Records,
    plan: Value,
}

fn both_tools(uuid: &str) -> BothTools {
    use support::paths::{profiles, sim_test_tool, tool_library};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("records.jsonl");
    let gt = dir.path().join("truth.json");
    let out = support::sim::Direct::new(&builtin("counters.toml"), "1.0.0")
        .env(
            "ROCP_TOOL_LIBRARIES",
            format!(
                "{}:{}:",
                sim_test_tool().display(),
                tool_library().display()
            ),
        )
        .env("ROCPROF_SIM_TEST_TOOL_LOG", &log)
        .env("ROCPROF_XPLANE_OUTPUT_DIR", dir.path().join("live"))
        .env("ROCPROF_XPLANE_RUN_NAME", uuid)
        .env("ROCPROF_XPLANE_PMC", PMC)
        .ground_truth(&gt)
        .output();
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let live =
        rocprof_xplane::xplane::read_xspace(&profiles(&dir.path().join("live"), uuid)[0]).unwrap();
    let truth: Value = serde_json::from_str(&std::fs::read_to_string(&gt).unwrap()).unwrap();
    let records =
        support::records::Records::from_log(&log, &rocprof_xplane::sdk::session::hostname());
    BothTools {
        dir,
        live,
        records,
        plan: truth["plan"].clone(),
    }
}

/// What rocprofv3 stores for dispatch `d` of the run: each counter its GPU collects, summed
/// over instances (the ground truth; the busy cycles from the dispatch's duration).
fn stored_values(run: &BothTools, d: &support::records::Dispatch) -> Vec<(&'static str, f64)> {
    let agent = run
        .records
        .agents
        .iter()
        .find(|a| a["id"].as_u64() == Some(d.agent))
        .unwrap();
    let gpu = agent["logical_node_type_id"].as_u64().unwrap();
    let isa = agent["name"].as_str().unwrap();
    let kernel = run
        .records
        .symbol(d.kernel_id)
        .unwrap()
        .name
        .trim_end_matches(".kd")
        .to_string();
    let dev = &run.plan["devices"][gpu as usize];
    collected(isa)
        .into_iter()
        .map(|name| {
            let v = if name == "GRBM_GUI_ACTIVE" {
                (d.head.end - d.head.start) as f64 * dev["max_engine_clk_mhz"].as_f64().unwrap()
                    / 1e3
                    * dev["num_xcc"].as_f64().unwrap().max(1.0)
            } else {
                run.plan["kernel_counters"][&kernel][gpu.to_string()]["values"][name]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{kernel} {gpu} {name}"))
            };
            (name, v)
        })
        .collect()
}

/// Every kernel's counter and derived stats, by (GPU, kernel), in time order.
fn kernel_stats(
    s: &rocprof_xplane::xplane::proto::XSpace,
) -> BTreeMap<(u32, String), Vec<BTreeMap<String, String>>> {
    let mut by: BTreeMap<(u32, String), Vec<BTreeMap<String, String>>> = BTreeMap::new();
    let mut evs: Vec<_> = device_events(s)
        .into_iter()
        .filter(|e| e.is_kernel())
        .collect();
    evs.sort_by_key(|e| e.start_ps());
    for e in evs {
        let mut m = BTreeMap::new();
        for name in all_counter_names().into_iter().chain([
            "flops",
            "bytes_read",
            "bytes_written",
            "bytes_accessed",
            "achieved_tflop_per_s",
            "achieved_gb_per_s",
        ]) {
            if let Some(v) = f64_stat(&e, name) {
                m.insert(name.to_string(), format!("{v:.6e}"));
            }
        }
        by.entry((ordinal(e.plane), e.name().to_string()))
            .or_default()
            .push(m);
    }
    by
}

fn convert_one(
    input: &std::path::Path,
    out: &std::path::Path,
) -> rocprof_xplane::xplane::proto::XSpace {
    let o = std::process::Command::new(support::paths::cli())
        .arg("convert")
        .arg(input)
        .arg("--output-dir")
        .arg(out)
        .args(["--run-name", "conv"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    rocprof_xplane::xplane::read_xspace(&support::paths::profiles(out, "conv")[0]).unwrap()
}

fn assert_same_stats(
    live: &rocprof_xplane::xplane::proto::XSpace,
    conv: &rocprof_xplane::xplane::proto::XSpace,
) {
    let (a, b) = (kernel_stats(live), kernel_stats(conv));
    // 3 kernels on gfx942 and gfx90a, 1 on gfx950 and gfx1100, each with its counters.
    assert_eq!(a.len(), 8);
    assert!(a.values().flatten().all(|m| m.len() >= 7), "{a:?}");
    assert_eq!(a, b);
}

/// `convert` of a rocpd database with counter rows gives every kernel the same counter stats,
/// FLOPs, bytes and rates as the live tool on the same run. The database is the simulator's
/// test tool's log written into the released rocpd tables (`support::rocpd`), plus what
/// rocprofv3 stores for counters: a `rocpd_info_pmc` row per counter and agent, and a
/// `rocpd_pmc_event` row per counter and dispatch on the dispatch's event.
#[test]
fn a_rocpd_database_with_counter_rows_converts_to_the_live_stats() {
    use rusqlite::{params, Connection};
    let uuid = "0195b2a0_4646_7000_8000_000000000046";
    let run = both_tools(uuid);
    let db = run.dir.path().join("results.db");
    support::rocpd::write(&db, &run.records, uuid);
    let conn = Connection::open(&db).unwrap();
    let t = |n: &str| format!("rocpd_{n}_{uuid}");
    conn.execute(
        &format!(
            "CREATE TABLE {} (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, \
             pid INTEGER NOT NULL, agent_id INTEGER NOT NULL, target_arch TEXT, event_code INTEGER, \
             instance_id INTEGER, name TEXT NOT NULL, symbol TEXT NOT NULL, description TEXT, \
             long_description TEXT, component TEXT, units TEXT, value_type TEXT, block TEXT, \
             expression TEXT, is_constant INTEGER, is_derived INTEGER, extdata JSONB DEFAULT '{{}}')",
            t("info_pmc")
        ),
        [],
    )
    .unwrap();
    conn.execute(
        &format!(
            "CREATE TABLE {} (id INTEGER PRIMARY KEY, guid TEXT, event_id INTEGER, \
             pmc_id INTEGER NOT NULL, value REAL DEFAULT 0.0, extdata JSONB DEFAULT '{{}}')",
            t("pmc_event")
        ),
        [],
    )
    .unwrap();
    // The dispatch rows `support::rocpd` wrote: their events and agents' rows.
    let rows: BTreeMap<u64, (i64, i64)> = conn
        .prepare(&format!(
            "SELECT dispatch_id, event_id, agent_id FROM {}",
            t("kernel_dispatch")
        ))
        .unwrap()
        .query_map([], |r| {
            Ok((r.get::<_, i64>(0)? as u64, (r.get(1)?, r.get(2)?)))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows.len(), 24);
    let mut pmc_ids: BTreeMap<(i64, &str), i64> = BTreeMap::new();
    for d in &run.records.dispatches {
        let (event, agent) = rows[&d.dispatch_id];
        for (name, value) in stored_values(&run, d) {
            let next = pmc_ids.len() as i64 + 1;
            let pmc = *pmc_ids.entry((agent, name)).or_insert_with(|| {
                conn.execute(
                    &format!(
                        "INSERT INTO {} (id, nid, pid, agent_id, name, symbol) \
                         VALUES (?1, 1, 1, ?2, ?3, ?3)",
                        t("info_pmc")
                    ),
                    params![next, agent, name],
                )
                .unwrap();
                next
            });
            conn.execute(
                &format!(
                    "INSERT INTO {} (event_id, pmc_id, value) VALUES (?1, ?2, ?3)",
                    t("pmc_event")
                ),
                params![event, pmc, value],
            )
            .unwrap();
        }
    }
    drop(conn);
    let conv = convert_one(&db, &run.dir.path().join("conv"));
    assert_same_stats(&run.live, &conv);
}

/// The same through rocprofv3's CSV files: the run's traces (`support::rocprofv3_csv`) and a
/// `counter_collection.csv` beside them with one row per counter and dispatch.
#[test]
fn rocprofv3_counter_csv_converts_to_the_live_stats() {
    let run = both_tools("counters_csv");
    let csv_dir = run.dir.path().join("csv");
    let files = support::rocprofv3_csv::write(&csv_dir, &run.records);
    let counters = csv_dir.join(format!("{}_counter_collection.csv", run.records.pid));
    let mut w = ::csv::Writer::from_path(&counters).unwrap();
    w.write_record([
        "Correlation_Id",
        "Dispatch_Id",
        "Agent_Id",
        "Kernel_Name",
        "Counter_Name",
        "Counter_Value",
        "Start_Timestamp",
        "End_Timestamp",
    ])
    .unwrap();
    for d in &run.records.dispatches {
        let name = run.records.symbol(d.kernel_id).unwrap().name.clone();
        for (counter, value) in stored_values(&run, d) {
            w.write_record([
                d.head.corr.to_string(),
                d.dispatch_id.to_string(),
                format!("Agent {}", run.records.node_id(d.agent)),
                name.clone(),
                counter.to_string(),
                value.to_string(),
                d.head.start.to_string(),
                d.head.end.to_string(),
            ])
            .unwrap();
        }
    }
    w.flush().unwrap();
    drop(w);
    let conv = convert_one(&files[0], &run.dir.path().join("conv"));
    assert_same_stats(&run.live, &conv);
}
