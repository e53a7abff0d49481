//! `rocprof-xplane convert` on rocprofv3's rocpd SQLite database (its default output
//! since ROCm 7.0). The databases are built from simulated runs (test infrastructure, not
//! hardware): the simulator's test tool, loaded beside ours, logs every record and callback the
//! runtime gave it, and `support::rocpd` writes them into the released rocpd tables — what
//! rocprofv3's own tool would have stored. The round trip: scenario → rocpd → XPlane gives the
//! same kernels, HIP calls, launch arrows, streams and dependency edges as the live tool on the
//! same run.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use rocprof_xplane::xplane::proto::XSpace;
use rocprof_xplane::xplane::read_xspace;
use support::paths::{builtin, cli, profiles, sim_test_tool, tool_library};
use support::sim::Direct;
use support::xspace::{counter, host_api_events, kernels};

/// Runs `scenario` with both tools; returns the live profile and the rocpd database.
fn live_and_rocpd(dir: &Path, scenario: &Path, uuid: &str) -> (XSpace, PathBuf) {
    let log = dir.join(format!("{uuid}.jsonl"));
    let libs = format!(
        "{}:{}:",
        sim_test_tool().display(),
        tool_library().display()
    );
    let out = Direct::new(scenario, "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", &libs)
        .env("ROCPROF_SIM_TEST_TOOL_LOG", &log)
        .env("ROCPROF_XPLANE_OUTPUT_DIR", dir.join("live"))
        .env("ROCPROF_XPLANE_RUN_NAME", uuid)
        // The test tool sees every HIP call; so must the live profile compared with it.
        .env("ROCPROF_XPLANE_HIP_API", "all")
        .output();
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let live = profiles(&dir.join("live"), uuid);
    assert_eq!(live.len(), 1);
    let db = dir.join("results.db");
    support::rocpd::write_run(&db, &log, uuid, &rocprof_xplane::sdk::session::hostname());
    (read_xspace(&live[0]).unwrap(), db)
}

fn convert(db: &Path, out: &Path) -> std::process::Output {
    Command::new(cli())
        .args(["convert"])
        .arg(db)
        .arg("--output-dir")
        .arg(out)
        .args(["--run-name", "conv"])
        .output()
        .unwrap()
}

/// Time origin of a comparison: the first kernel's start (the two profiles begin at different
/// instants: the live one when the tool started, the converted one at its first record).
fn origin(s: &XSpace) -> i64 {
    kernels(s).iter().map(|e| e.start_ps()).min().unwrap_or(0)
}

/// (name, start ps from the first kernel, duration ps, correlation id) of every kernel.
fn kernel_set(s: &XSpace) -> BTreeSet<(String, i64, i64, Option<u64>)> {
    let t0 = origin(s);
    kernels(s)
        .iter()
        .map(|e| {
            (
                e.name().to_string(),
                e.start_ps() - t0,
                e.event.duration_ps,
                e.correlation_id(),
            )
        })
        .collect()
}

/// Kernels grouped by the line (stream) they are on, as sets of correlation ids: the
/// partition, whatever the lines are numbered.
fn stream_partition(s: &XSpace) -> BTreeSet<BTreeSet<u64>> {
    let mut by_line: BTreeMap<(String, i64), BTreeSet<u64>> = BTreeMap::new();
    for e in kernels(s) {
        by_line
            .entry((e.plane.name.clone(), e.line.id))
            .or_default()
            .insert(e.correlation_id().unwrap_or(0));
    }
    by_line.into_values().collect()
}

/// The HIP calls (not the dependency arrows' host anchors) with their start times.
fn api_set(s: &XSpace) -> BTreeSet<(String, i64)> {
    let t0 = origin(s);
    host_api_events(s)
        .iter()
        .filter(|e| !e.name().starts_with("HIP event "))
        .map(|e| (e.name().to_string(), e.start_ps() - t0))
        .collect()
}

/// The waits that got a dependency arrow: their correlation ids.
fn dependency_arrows(s: &XSpace) -> BTreeSet<u64> {
    s.planes
        .iter()
        .flat_map(support::xspace::events)
        .filter_map(|e| match e.stat("dependency_wait_corr_id") {
            Some(support::xspace::Stat::U64(v)) => Some(v),
            Some(support::xspace::Stat::I64(v)) => Some(v as u64),
            _ => None,
        })
        .collect()
}

/// The round trip on two scenarios: the converted profile has the same kernels (names, times,
/// correlation ids), the same stream partition, the same HIP calls, every kernel's launch
/// arrow, the same resolved dependency edges, and the same roctx ranges as the live one.
#[test]
fn scenario_to_rocpd_to_xplane_matches_the_live_tool() {
    for scenario in ["sync-deps.toml", "multi-gpu.toml", "markers.toml"] {
        let tmp = tempfile::tempdir().unwrap();
        let (live, db) = live_and_rocpd(
            tmp.path(),
            &builtin(scenario),
            "0195b2a0_1111_7000_8000_000000000001",
        );
        let out = convert(&db, &tmp.path().join("conv"));
        assert!(
            out.status.success(),
            "{scenario}: {}",
            support::stderr_of(&out)
        );
        let files = profiles(&tmp.path().join("conv"), "conv");
        assert_eq!(files.len(), 1, "{scenario}: {files:?}");
        let conv = read_xspace(&files[0]).unwrap();
        assert_eq!(kernel_set(&conv), kernel_set(&live), "{scenario}: kernels");
        assert!(!kernel_set(&live).is_empty());
        assert_eq!(
            stream_partition(&conv),
            stream_partition(&live),
            "{scenario}: streams"
        );
        assert_eq!(api_set(&conv), api_set(&live), "{scenario}: HIP calls");
        assert_eq!(
            counter(&conv, "activities_without_api"),
            counter(&live, "activities_without_api"),
            "{scenario}: launch arrows"
        );
        assert_eq!(
            dependency_arrows(&conv),
            dependency_arrows(&live),
            "{scenario}: dependency edges"
        );
        assert_eq!(
            counter(&conv, "waits_resolved"),
            counter(&live, "waits_resolved"),
            "{scenario}"
        );
        assert_eq!(
            counter(&conv, "waits_unresolved"),
            counter(&live, "waits_unresolved"),
            "{scenario}"
        );
        // A range never closed has no record in the runtime's buffers, so rocpd has no row for
        // it; the live tool shows it closed at the end (`open_at_end`): compare the others, by
        // line (a thread's push/pop ranges and marks, or its start/stop ranges), text and
        // kind (a mark is an instant).
        let roctx = |s: &XSpace| {
            let mut m: BTreeMap<(String, String, bool), u64> = BTreeMap::new();
            for e in support::xspace::events(support::xspace::plane(s, "/host:CPU"))
                .into_iter()
                .filter(|e| e.line.id & rocprof_xplane::xplane::MARKER_LINE_BIT != 0)
                .filter(|e| e.stat("open_at_end").is_none())
            {
                let key = (
                    e.line.name.clone(),
                    e.name().to_string(),
                    e.event.duration_ps == 0,
                );
                *m.entry(key).or_default() += 1;
            }
            m
        };
        assert_eq!(
            roctx(&conv),
            roctx(&live),
            "{scenario}: roctx ranges and marks"
        );
    }
}

/// A database holding two runs (two suffixed table sets, as `rocpd merge` leaves them) converts
/// to one profile per process.
#[test]
fn a_database_with_two_runs_converts_both() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, db) = live_and_rocpd(
        tmp.path(),
        &builtin("tiny.toml"),
        "0195b2a0_2222_7000_8000_00000000000a",
    );
    let log2 = tmp.path().join("second.jsonl");
    let out = Direct::new(&builtin("sync-deps.toml"), "1.0.0")
        .env("ROCP_TOOL_LIBRARIES", sim_test_tool())
        .env("ROCPROF_SIM_TEST_TOOL_LOG", &log2)
        .output();
    assert!(out.status.success());
    support::rocpd::write_run(
        &db,
        &log2,
        "0195b2a0_2222_7000_8000_00000000000b",
        "otherhost",
    );
    let out = convert(&db, &tmp.path().join("conv"));
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let files = profiles(&tmp.path().join("conv"), "conv");
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files
        .iter()
        .any(|f| support::paths::host_of(f).starts_with("otherhost.")));
}

/// Damaged input: a truncated file, a database without the rocpd tables it needs, or one that
/// is empty, is refused with a message naming what is wrong (exit 2), never a crash.
#[test]
fn a_damaged_or_incomplete_database_is_refused_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, db) = live_and_rocpd(
        tmp.path(),
        &builtin("tiny.toml"),
        "0195b2a0_3333_7000_8000_000000000001",
    );
    let bytes = std::fs::read(&db).unwrap();
    let cut = tmp.path().join("cut.db");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    let partial = tmp.path().join("partial.db");
    std::fs::copy(&db, &partial).unwrap();
    {
        let c = rusqlite::Connection::open(&partial).unwrap();
        c.execute_batch(
            "DROP VIEW rocpd_kernel_dispatch; \
             DROP TABLE rocpd_kernel_dispatch_0195b2a0_3333_7000_8000_000000000001;",
        )
        .unwrap();
    }
    let empty = tmp.path().join("empty.db");
    {
        let c = rusqlite::Connection::open(&empty).unwrap();
        c.execute_batch("CREATE TABLE rocpd_marker (x); INSERT INTO rocpd_marker VALUES (1);")
            .unwrap();
    }
    for (file, says) in [
        (
            &partial,
            "rocpd_kernel_dispatch_0195b2a0_3333_7000_8000_000000000001 is missing",
        ),
        (&empty, "without rocpd_info_process"),
    ] {
        let out = convert(file, &tmp.path().join("x"));
        assert_eq!(out.status.code(), Some(2), "{}", support::stderr_of(&out));
        assert!(
            support::stderr_of(&out).contains(says),
            "{}",
            support::stderr_of(&out)
        );
    }
    let out = convert(&cut, &tmp.path().join("x"));
    assert_eq!(out.status.code(), Some(2), "{}", support::stderr_of(&out));
    assert!(!support::stderr_of(&out).contains("panicked"));
}

/// A database of a future rocpd layout (schema 4.x, track-based tables) is refused naming its
/// schema and the ones read, before any table is queried.
#[test]
fn a_future_schema_is_refused_by_version() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("future.db");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "CREATE TABLE rocpd_metadata_x (id INTEGER PRIMARY KEY, tag TEXT, value TEXT); \
             INSERT INTO rocpd_metadata_x (tag, value) VALUES ('schema_version', '4.1.0'); \
             CREATE TABLE rocpd_info_process_x (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER); \
             CREATE TABLE rocpd_region_x (id INTEGER PRIMARY KEY, track_id INTEGER);",
        )
        .unwrap();
    }
    let out = convert(&db, &tmp.path().join("x"));
    let err = support::stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("rocpd schema 4.1.0 not supported (this build reads 3.0.0–3.0.x)"),
        "{err}"
    );
    assert!(!err.contains("no such column"), "{err}");
}

/// A database left in WAL mode (its `-wal` beside it, as when rocprofv3 is stopped before it
/// checkpoints): the records in the WAL are read, and the `-shm` file SQLite makes to read it
/// is not left behind.
#[test]
fn a_database_with_a_wal_is_read_and_no_shm_is_left() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, db) = live_and_rocpd(
        tmp.path(),
        &builtin("tiny.toml"),
        "0195b2a0_4444_7000_8000_000000000001",
    );
    let copy = tmp.path().join("wal.db");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;")
            .unwrap();
        // A change that lives only in the WAL while this connection is open: one more thread
        // name, which the converted profile must show.
        c.execute(
            "UPDATE rocpd_info_thread_0195b2a0_4444_7000_8000_000000000001 SET name = 'walthread'",
            [],
        )
        .unwrap();
        std::fs::copy(&db, &copy).unwrap();
        std::fs::copy(
            format!("{}-wal", db.display()),
            format!("{}-wal", copy.display()),
        )
        .unwrap();
    }
    assert!(!Path::new(&format!("{}-shm", copy.display())).exists());
    let out = convert(&copy, &tmp.path().join("conv"));
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    assert!(
        !Path::new(&format!("{}-shm", copy.display())).exists(),
        "-shm left beside the input"
    );
    let files = profiles(&tmp.path().join("conv"), "conv");
    let bytes = std::fs::read(&files[0]).unwrap();
    assert!(
        bytes.windows(9).any(|w| w == b"walthread"),
        "the WAL's change was read"
    );
}

/// Synchronization calls whose argument rows are missing (a database written without call
/// arguments) have no known stream or event: they make no synchronization fact (no wait
/// resolved or unresolved, no arrow), and the converter says so, where they were taken to
/// name the null stream.
#[test]
fn sync_calls_without_argument_rows_have_no_stream() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, db) = live_and_rocpd(
        tmp.path(),
        &builtin("sync-deps.toml"),
        "0195b2a0_5555_7000_8000_000000000001",
    );
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute(
            "DELETE FROM rocpd_arg_0195b2a0_5555_7000_8000_000000000001",
            [],
        )
        .unwrap();
    }
    let out = convert(&db, &tmp.path().join("conv"));
    let err = support::stderr_of(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("synchronization calls have no recorded arguments"),
        "{err}"
    );
    let conv = read_xspace(&profiles(&tmp.path().join("conv"), "conv")[0]).unwrap();
    assert_eq!(counter(&conv, "waits_unresolved"), 0);
    assert_eq!(counter(&conv, "waits_resolved"), 0);
    assert!(dependency_arrows(&conv).is_empty());
}

/// An MI350X-shaped agent (memory only in its frame-buffer bank, `local_mem_size` 0): the live
/// tool and the converted rocpd database (the agent record in `extdata`, banks included, as
/// rocprofv3 stores it) both give the GPU's `memory_size` as the bank's 309,220,868,096 bytes.
#[test]
fn an_mi350x_shaped_agent_has_its_bank_memory_live_and_converted() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("mi350x.toml");
    std::fs::write(
        &scenario,
        "name = \"mi350x\"\nseed = 1\n[[gpus]]\npreset = \"mi350x\"\n\
         [[kernels]]\nname = \"k\"\ndur_us = 5\n[[streams]]\nname = \"s\"\ndevice = 0\n\
         [[threads]]\nname = \"main\"\ncalls = [{ op = \"launch\", kernel = \"k\", stream = \"s\" }, \
         { op = \"stream_sync\", stream = \"s\" }]\n",
    )
    .unwrap();
    let (live, db) = live_and_rocpd(
        tmp.path(),
        &scenario,
        "0195b2a0_6666_7000_8000_000000000001",
    );
    let out = convert(&db, &tmp.path().join("conv"));
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let conv = read_xspace(&profiles(&tmp.path().join("conv"), "conv")[0]).unwrap();
    for s in [&live, &conv] {
        let sizes: Vec<Option<u64>> = support::xspace::device_planes(s)
            .into_iter()
            .map(|p| {
                support::xspace::plane_stats(p)
                    .get("memory_size")
                    .and_then(|v| v.as_u64())
            })
            .collect();
        assert_eq!(sizes, vec![Some(309_220_868_096)]);
    }
}
