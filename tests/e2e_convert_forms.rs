//! The same records through rocprofv3's three output forms give the same profile.
//!
//! One simulated run (`tests/scenarios/convert-forms.toml`: two GPUs, two threads, kernels with
//! static and dynamic LDS, copies in every direction, a memset, event waits, every sync API,
//! roctx marks and ranges, external correlation ids; the simulator is test infrastructure, no
//! GPU is involved) is logged by the simulator's test tool; `tests/support/records.rs` reads
//! its records as rocprofv3 holds them, and the support writers write them as a rocpd database,
//! as rocprofv3's JSON and as its CSV files. Each is converted by `rocprof-xplane convert`.
//!
//! * The rocpd database and the JSON carry the same facts: their profiles are byte-identical,
//!   streams and dependency arrows included.
//! * The CSV files lack facts the others carry (`CSV_LACKS`, each by name). The richer forms
//!   restricted to what the CSV carries give the CSV's profile byte for byte; restricted in
//!   all but one of those ways, their profile differs from the CSV's, and in that one fact.
//! * Every form numbers the same stream lines with the same work on each.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use rocprof_xplane::xplane::proto::XSpace;
use rocprof_xplane::xplane::read_xspace;
use support::paths::{cli, host_of, profiles, sim_test_tool, test_scenario};
use support::records::Records;
use support::sim::Direct;
use support::xspace::{counter, device_planes, events, Ev};
use support::{rocpd, rocprofv3_csv, rocprofv3_json};

/// The host name the records carry (the CSV files have none).
const HOST: &str = "simhost";

/// The run's records, read once per test binary.
fn recorded() -> &'static Records {
    static ONCE: OnceLock<Records> = OnceLock::new();
    ONCE.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("tool.jsonl");
        let out = Direct::new(&test_scenario("convert-forms.toml"), "1.0.0")
            .env("ROCP_TOOL_LIBRARIES", sim_test_tool())
            .env("ROCPROF_SIM_TEST_TOOL_LOG", &log)
            .output();
        assert!(out.status.success(), "{}", support::stderr_of(&out));
        let r = Records::from_log(&log, HOST);
        assert!(!r.dispatches.is_empty() && !r.copies.is_empty() && !r.markers.is_empty());
        r
    })
}

/// A converted profile: its host (from the file name), bytes and decoded form.
struct Profile {
    file: PathBuf,
    host: String,
    bytes: Vec<u8>,
    space: XSpace,
}

/// `rocprof-xplane convert <input>` into `out`; its one profile.
fn convert(input: &Path, out: &Path) -> Profile {
    let o = Command::new(cli())
        .arg("convert")
        .arg(input)
        .arg("--output-dir")
        .arg(out)
        .args(["--run-name", "forms"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}: {}",
        input.display(),
        support::stderr_of(&o)
    );
    let files = profiles(out, "forms");
    assert_eq!(files.len(), 1, "{}: {files:?}", input.display());
    let file = files[0].clone();
    let bytes = std::fs::read(&file).unwrap();
    Profile {
        host: host_of(&file),
        space: read_xspace(&file).unwrap(),
        file,
        bytes,
    }
}

/// The three forms of a run's records.
#[derive(Clone, Copy, Debug)]
enum Form {
    Rocpd,
    Json,
    Csv,
}

/// `r` written in `form` into a fresh directory under `dir`, converted.
fn through(form: Form, r: &Records, dir: &Path) -> Profile {
    let d = tempfile::tempdir_in(dir).unwrap();
    let input = match form {
        Form::Rocpd => {
            let db = d.path().join("results.db");
            rocpd::write(&db, r, "0195b2a0_4444_7000_8000_000000000044");
            db
        }
        Form::Json => rocprofv3_json::write(d.path(), r),
        Form::Csv => rocprofv3_csv::write(d.path(), r)[0].clone(),
    };
    let p = convert(&input, &d.path().join("out"));
    // The profile outlives its directory.
    let kept = dir.join(format!(
        "{form:?}-{}.xplane.pb",
        d.path().file_name().unwrap().to_string_lossy()
    ));
    std::fs::copy(&p.file, &kept).unwrap();
    Profile { file: kept, ..p }
}

/// The first lines where two profiles differ, as `rocprof-xplane inspect --events` prints
/// them (planes, lines, events and stats by name).
fn first_differences(a: &Path, b: &Path) -> String {
    let dump = |f: &Path| {
        let o = Command::new(cli())
            .args(["inspect", "--events"])
            .arg(f)
            .output()
            .unwrap();
        support::stdout_of(&o)
    };
    let (a, b) = (dump(a), dump(b));
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut out = Vec::new();
    for i in 0..la.len().max(lb.len()) {
        let (x, y) = (la.get(i).copied(), lb.get(i).copied());
        if x != y {
            out.push(format!("  - {}\n  + {}", x.unwrap_or(""), y.unwrap_or("")));
            if out.len() == 6 {
                break;
            }
        }
    }
    out.join("\n")
}

fn same(a: &Profile, b: &Profile) -> bool {
    a.host == b.host && a.bytes == b.bytes
}

fn assert_same(a: &Profile, b: &Profile, what: &str) {
    assert!(
        same(a, b),
        "{what}: the profiles differ (hosts {:?} and {:?}); first differing lines:\n{}",
        a.host,
        b.host,
        first_differences(&a.file, &b.file)
    );
}

/// Every event of every plane.
fn all_events(s: &XSpace) -> Vec<Ev<'_>> {
    s.planes.iter().flat_map(events).collect()
}

/// `(static, dynamic)` LDS bytes of every kernel (`kernel_details`).
fn lds(s: &XSpace) -> Vec<(u64, u64)> {
    let field = |d: &str, k: &str| -> u64 {
        d.split_whitespace()
            .find_map(|f| f.strip_prefix(k))
            .map_or(0, |v| v.parse().unwrap())
    };
    support::xspace::kernels(s)
        .iter()
        .filter_map(|e| e.stat("kernel_details"))
        .map(|d| {
            let d = d.as_str().unwrap().to_string();
            (field(&d, "static_shared:"), field(&d, "dynamic_shared:"))
        })
        .collect()
}

/// A fact the CSV files do not carry: how the records are restricted to what they carry, and
/// how a profile shows the fact (true for the richer forms', false for the CSV's).
struct Lack {
    name: &'static str,
    restrict: fn(&mut Records),
    shows: fn(&Profile, &Records) -> bool,
}

/// What rocprofv3's CSV files lack that its rocpd database and JSON carry, as it reaches a
/// profile (docs/convert.md, "what each format carries").
const CSV_LACKS: &[Lack] = &[
    Lack {
        name: "host name",
        restrict: |r| r.hostname.clear(),
        shows: |p, _| p.host.starts_with(&format!("{HOST}.")),
    },
    Lack {
        name: "process start and end times",
        restrict: |r| (r.init_ns, r.fini_ns) = (0, 0),
        // The profile starts when the process did, not at its first record.
        shows: |p, r| counter(&p.space, "origin_boottime_ns") == r.init_ns,
    },
    Lack {
        name: "byte counts of copies",
        restrict: |r| r.copies.iter_mut().for_each(|m| m.bytes = 0),
        shows: |p, _| {
            all_events(&p.space).iter().any(|e| {
                e.stat("memcpy_details")
                    .is_some_and(|d| !d.as_str().unwrap().contains("size:0"))
            })
        },
    },
    Lack {
        name: "external correlation ids",
        restrict: |r| {
            let heads = r.calls.iter_mut().map(|c| &mut c.head);
            let heads = heads.chain(r.dispatches.iter_mut().map(|k| &mut k.head));
            let heads = heads.chain(r.copies.iter_mut().map(|m| &mut m.head));
            let heads = heads.chain(r.markers.iter_mut().map(|m| &mut m.head));
            heads.for_each(|h| h.ext = 0);
        },
        shows: |p, _| {
            all_events(&p.space)
                .iter()
                .any(|e| e.stat("external_correlation_id").is_some())
        },
    },
    Lack {
        name: "call arguments (streams and events of the synchronization calls)",
        restrict: |r| r.calls.iter_mut().for_each(|c| c.args = None),
        shows: |p, _| counter(&p.space, "waits_resolved") > 0,
    },
    Lack {
        name: "static and dynamic LDS (the CSV has the static LDS rounded up to 512 bytes)",
        restrict: |r| {
            for s in &mut r.symbols {
                s.group_segment_size = rocprofv3_csv::lds_block_size(s.group_segment_size);
            }
            let statics: BTreeMap<u64, u64> = r
                .symbols
                .iter()
                .map(|s| (s.kernel_id, s.group_segment_size))
                .collect();
            for k in &mut r.dispatches {
                k.group_segment_size = statics.get(&k.kernel_id).copied().unwrap_or(0);
            }
        },
        shows: |p, _| {
            lds(&p.space)
                .iter()
                .any(|&(st, dy)| dy > 0 || st % rocprofv3_csv::LDS_BLOCK != 0)
        },
    },
    Lack {
        name: "roctx operations (a mark and a start/stop range told from a push/pop range)",
        restrict: |r| {
            let (kind, ops) = r
                .kinds
                .iter()
                .find(|(_, (n, _))| n == "MARKER_CORE_RANGE_API")
                .map(|(k, (_, ops))| (*k, ops.clone()))
                .unwrap();
            let (op, name) = ops.iter().find(|(_, n)| *n == "roctxThreadRangeA").unwrap();
            for m in r.markers.iter_mut().filter(|m| m.head.kind == kind) {
                (m.head.op, m.head.op_name) = (*op, name.clone());
            }
        },
        // Marks are instants, start/stop ranges on a line of their own.
        shows: |p, _| {
            let roctx: Vec<Ev<'_>> = all_events(&p.space)
                .into_iter()
                .filter(|e| e.line.id & rocprof_xplane::xplane::MARKER_LINE_BIT != 0)
                .collect();
            roctx.iter().any(|e| e.event.duration_ps == 0)
                && roctx.iter().any(|e| e.line.name.ends_with("ROCTX ranges"))
        },
    },
];

/// The records restricted in every way of `CSV_LACKS` but `except`.
fn restricted(r: &Records, except: Option<&str>) -> Records {
    let mut r = r.clone();
    for l in CSV_LACKS.iter().filter(|l| Some(l.name) != except) {
        (l.restrict)(&mut r);
    }
    r
}

/// The rocpd database and the JSON of the same records carry the same facts: the same
/// profile, byte for byte, with every fact the CSV lacks in it (dependency arrows among them).
#[test]
fn rocpd_and_json_of_the_same_records_give_the_same_profile() {
    let (tmp, r) = (tempfile::tempdir().unwrap(), recorded());
    let db = through(Form::Rocpd, r, tmp.path());
    let json = through(Form::Json, r, tmp.path());
    assert_same(&db, &json, "rocpd and JSON");
    for l in CSV_LACKS {
        assert!((l.shows)(&db, r), "{}: not in the rocpd profile", l.name);
    }
    assert!(counter(&db.space, "waits_resolved") >= 5);
    assert_eq!(counter(&db.space, "waits_unresolved"), 0);
    assert_eq!(
        support::xspace::kernels(&db.space).len(),
        r.dispatches.len()
    );
}

/// The richer forms restricted to what the CSV files carry give the CSV's profile, byte for
/// byte; each fact the CSV lacks is a real difference: restricted in every other way, the
/// profile differs from the CSV's and shows that fact, which the CSV's does not.
#[test]
fn csv_gives_the_richer_forms_restricted_to_what_it_carries() {
    let (tmp, r) = (tempfile::tempdir().unwrap(), recorded());
    let csv = through(Form::Csv, r, tmp.path());
    let poor = restricted(r, None);
    // The restrictions remove only what the CSV files do not hold: they are the same files.
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let files = |d: &Path, r: &Records| -> Vec<(PathBuf, Vec<u8>)> {
        rocprofv3_csv::write(d, r)
            .into_iter()
            .map(|f| (f.file_name().unwrap().into(), std::fs::read(&f).unwrap()))
            .collect()
    };
    assert!(files(a.path(), r) == files(b.path(), &poor));

    for form in [Form::Rocpd, Form::Json] {
        assert_same(
            &through(form, &poor, tmp.path()),
            &csv,
            &format!("{form:?} restricted to the CSV's facts, and the CSV"),
        );
    }
    for l in CSV_LACKS {
        assert!(
            !(l.shows)(&csv, r),
            "{}: shows in the CSV's profile",
            l.name
        );
        let with = restricted(r, Some(l.name));
        for form in [Form::Rocpd, Form::Json] {
            let p = through(form, &with, tmp.path());
            assert!(
                !same(&p, &csv),
                "{form:?} with the {} and nothing else the CSV lacks: same as the CSV's",
                l.name
            );
            assert!(
                (l.shows)(&p, r),
                "{form:?} with the {}: the fact is not in the profile",
                l.name
            );
        }
    }
}

/// The stream lines of each device: (plane, line id, line name) → the correlation ids of the
/// work on it.
fn streams(s: &XSpace) -> BTreeMap<(String, i64, String), BTreeSet<u64>> {
    let mut out: BTreeMap<(String, i64, String), BTreeSet<u64>> = BTreeMap::new();
    for p in device_planes(s) {
        for e in events(p)
            .into_iter()
            .filter(|e| e.is_kernel() || e.is_memcpy())
        {
            out.entry((p.name.clone(), e.line.id, e.line.name.clone()))
                .or_default()
                .insert(e.correlation_id().unwrap());
        }
    }
    out
}

/// Every form numbers the same stream lines and puts the same kernels and copies on each:
/// rocpd places work by the launching call's `stream` argument, JSON by its arguments too,
/// the CSV by the records' stream ids; each numbers its streams by their first call.
#[test]
fn every_form_has_the_same_streams() {
    let (tmp, r) = (tempfile::tempdir().unwrap(), recorded());
    let lines: Vec<_> = [Form::Rocpd, Form::Json, Form::Csv]
        .into_iter()
        .map(|f| (f, streams(&through(f, r, tmp.path()).space)))
        .collect();
    let (_, first) = &lines[0];
    // Several streams on the first GPU, and the second GPU's.
    assert!(first.len() >= 4, "{first:?}");
    for (form, l) in &lines[1..] {
        assert_eq!(l, first, "{form:?} and rocpd");
    }
}

/// A converted profile opens in real xprof (the pinned PyPI release): no conversion errors,
/// and its kernel statistics count every dispatch under its name.
#[test]
fn the_converted_profile_opens_in_real_xprof() {
    if !support::xprof::available() {
        return;
    }
    let (tmp, r) = (tempfile::tempdir().unwrap(), recorded());
    let p = through(Form::Json, r, tmp.path());
    let s = support::xprof::summary(&p.file, &p.host);
    assert_eq!(s["errors"], serde_json::json!({}));
    let occ = support::xprof::occurrences(&s["kernel_stats"]);
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for k in &r.dispatches {
        let sym = r.symbol(k.kernel_id).unwrap();
        let name = rocprof_xplane::capture::symbols::clean_kernel_name(&sym.name);
        *want.entry(name).or_default() += 1;
    }
    assert_eq!(occ, want);
}
