//! Our output against real XLA ROCm XPlanes (MI300X, MI355X, legacy MI300X): every plane/line
//! naming rule and every stat xprof uses on GPU planes, host launch events, kernel and memcpy
//! events must appear in ours with the same value type, except the documented deliberate
//! differences (docs/xplane-output.md, "Differences from XLA").

mod support;
use support::synthetic as common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use rocprof_xplane::model::Annotation;
use rocprof_xplane::xplane::proto::{x_stat::Value, XPlane, XSpace, XStat};
use rocprof_xplane::xplane::{build_xspace, read_xspace};
use support::paths::real_testdata;

fn real_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in [
        "xla-xplane-mi300x",
        "xla-xplane-mi355x",
        "xla-xplane-mi300x-legacy",
    ] {
        let dir = real_testdata().join(d);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for e in entries {
            let p = e.unwrap().path();
            if p.to_string_lossy().ends_with(".xplane.pb") {
                out.push(p);
            }
        }
    }
    assert_eq!(out.len(), 3, "expected the three real XLA files");
    out
}

fn value_type(v: &Option<Value>) -> &'static str {
    match v {
        Some(Value::DoubleValue(_)) => "double",
        Some(Value::Uint64Value(_)) => "uint64",
        Some(Value::Int64Value(_)) => "int64",
        Some(Value::StrValue(_)) | Some(Value::RefValue(_)) => "string",
        Some(Value::BytesValue(_)) => "bytes",
        None => "none",
    }
}

fn stat_name(p: &XPlane, s: &XStat) -> String {
    p.stat_metadata
        .get(&s.metadata_id)
        .map(|m| m.name.clone())
        .unwrap_or_default()
}

fn has_stat(p: &XPlane, stats: &[XStat], name: &str) -> bool {
    stats.iter().any(|s| stat_name(p, s) == name)
}

/// (category, stat name) → value types seen. Categories are what xprof distinguishes:
/// GPU plane stats, kernel events, memcpy events, host launch events, Task Environment stats.
type Shape = BTreeMap<(&'static str, String), BTreeSet<&'static str>>;

fn shape(space: &XSpace) -> Shape {
    let mut out = Shape::new();
    let mut add = |cat: &'static str, p: &XPlane, stats: &[XStat]| {
        for s in stats {
            out.entry((cat, stat_name(p, s)))
                .or_default()
                .insert(value_type(&s.value));
        }
    };
    for p in &space.planes {
        if p.name.starts_with("/device:GPU:") {
            add("gpu plane", p, &p.stats);
            for l in &p.lines {
                for e in &l.events {
                    if has_stat(p, &e.stats, "kernel_details") {
                        add("kernel event", p, &e.stats);
                    } else if has_stat(p, &e.stats, "memcpy_details") {
                        add("memcpy event", p, &e.stats);
                    }
                }
            }
        } else if p.name == "/host:CPU" {
            for l in &p.lines {
                for e in &l.events {
                    if has_stat(p, &e.stats, "correlation_id") {
                        add("host launch event", p, &e.stats);
                    }
                }
            }
        } else if p.name == "Task Environment" {
            add("task environment", p, &p.stats);
        }
    }
    out
}

/// XLA stats we deliberately do not write (docs/xplane-output.md explains each).
const NOT_WRITTEN: &[(&str, &str)] = &[
    // Occupancy: only the legacy fork build wrote these, always 0.0 / 0 there; we compute none.
    ("kernel event", "theoretical_occupancy_pct"),
    ("kernel event", "occupancy_min_grid_size"),
    ("kernel event", "occupancy_suggested_block_size"),
];

/// The synthetic trace, with the annotation shape XLA:GPU pushes, so annotation-derived stats
/// (tf_op, name, hlo_op, hlo_module, program_id) are present to compare.
fn our_space() -> XSpace {
    let (mut trace, _) = common::synthetic_trace();
    let xla_like = trace.annotations.push(Annotation {
        stack: vec![
            Arc::from("XlaModule:#hlo_module=jit_forward,program_id=15#"),
            Arc::from("Thunk:#name=kernel,hlo_op=loop_transpose_fusion#"),
        ]
        .into(),
        scope_range_id: 12,
        external_ids: vec![],
    });
    for d in &mut trace.devices {
        for l in &mut d.lines {
            for e in &mut l.events {
                e.annotation = Some(xla_like);
            }
        }
    }
    for t in &mut trace.host_threads {
        for e in &mut t.events {
            e.annotation = Some(xla_like);
        }
    }
    build_xspace(&trace)
}

#[test]
fn every_xla_stat_xprof_uses_is_written_with_the_same_type() {
    let ours = shape(&our_space());
    let mut checked = 0;
    for f in real_files() {
        let xla = read_xspace(&f).unwrap();
        let theirs = shape(&xla);
        assert!(
            theirs
                .keys()
                .any(|(c, _)| *c == "kernel event" || *c == "memcpy event"),
            "{}",
            f.display()
        );
        for ((cat, name), types) in &theirs {
            if NOT_WRITTEN.contains(&(cat, name.as_str())) {
                assert!(
                    !ours.contains_key(&(cat, name.clone())),
                    "{cat}/{name} is allow-listed but written"
                );
                continue;
            }
            let got = ours.get(&(cat, name.clone())).unwrap_or_else(|| {
                panic!(
                    "{}: {cat} stat `{name}` ({types:?}) missing from our output",
                    f.display()
                )
            });
            assert_eq!(
                got,
                types,
                "{}: {cat} stat `{name}` value type",
                f.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "compared only {checked} stats");
}

#[test]
fn plane_and_line_naming_rules_match_xla() {
    let ours = our_space();
    for f in real_files() {
        let xla = read_xspace(&f).unwrap();
        for (who, space) in [("xla", &xla), ("ours", &ours)] {
            assert_eq!(space.hostnames.len(), 1, "{who} hostnames");
            let names: Vec<&str> = space.planes.iter().map(|p| p.name.as_str()).collect();
            assert!(names.contains(&"/host:CPU"), "{who}: {names:?}");
            assert!(names.contains(&"Task Environment"), "{who}: {names:?}");
            assert!(
                !names.contains(&"/host:ROCTRACER"),
                "{who}: raw collector plane left unmerged"
            );
            for p in &space.planes {
                if let Some(ordinal) = p.name.strip_prefix("/device:GPU:") {
                    assert_eq!(p.id.to_string(), ordinal, "{who}: GPU plane id = ordinal");
                    for l in &p.lines {
                        let rest = l
                            .name
                            .strip_prefix("Stream #")
                            .unwrap_or_else(|| panic!("{who}: {}", l.name));
                        let num: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                        assert_eq!(num, l.id.to_string(), "{who}: `Stream #<line id>`");
                        let suffix = &rest[num.len()..];
                        assert!(
                            suffix.is_empty() || (suffix.starts_with('(') && suffix.ends_with(')')),
                            "{who}: {}",
                            l.name
                        );
                        // Small line ids, never in xprof's derived-line range.
                        assert!((0..1 << 20).contains(&l.id), "{who}: GPU line id {}", l.id);
                    }
                }
                for l in &p.lines {
                    // Relative timestamps: int64 picoseconds must not overflow.
                    assert!(
                        l.timestamp_ns.abs() < 1_000_000_000_000_000,
                        "{who}: {} ts {}",
                        l.name,
                        l.timestamp_ns
                    );
                    if p.name == "/host:CPU"
                        && l.name.starts_with("Host Threads/")
                        && !l.name.ends_with("/ROCTX")
                    {
                        assert_eq!(
                            l.name,
                            format!("Host Threads/{}", l.id),
                            "{who}: host API line"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn device_capabilities_match_xla_shape() {
    let ours = our_space();
    let gpu0 = ours
        .planes
        .iter()
        .find(|p| p.name == "/device:GPU:0")
        .unwrap();
    let get = |n: &str| {
        gpu0.stats
            .iter()
            .find(|s| stat_name(gpu0, s) == n)
            .map(|s| s.value.clone())
    };
    assert_eq!(
        get("device_vendor"),
        Some(Some(Value::StrValue("AMD".into())))
    );
    assert_eq!(
        get("gpu_device_name"),
        Some(Some(Value::StrValue("gfx942".into())))
    );
    assert_eq!(get("compute_cap_major"), Some(Some(Value::Int64Value(9))));
    assert_eq!(get("compute_cap_minor"), Some(Some(Value::Int64Value(4))));
    assert_eq!(get("clock_rate"), Some(Some(Value::Int64Value(2_100_000))));
    assert_eq!(get("core_count"), Some(Some(Value::Int64Value(304))));
    // The real MI300X files carry the same figures for the same GPU model.
    let xla = read_xspace(real_testdata().join("xla-xplane-mi300x/tw003.xplane.pb")).unwrap();
    let x0 = xla
        .planes
        .iter()
        .find(|p| p.name == "/device:GPU:0")
        .unwrap();
    for n in [
        "device_vendor",
        "compute_cap_major",
        "compute_cap_minor",
        "clock_rate",
        "core_count",
        "memory_size",
    ] {
        let theirs = x0
            .stats
            .iter()
            .find(|s| stat_name(x0, s) == n)
            .map(|s| s.value.clone());
        assert_eq!(get(n), theirs, "{n}");
    }
}

#[test]
fn our_metadata_references_resolve() {
    let ours = our_space();
    for p in &ours.planes {
        for (id, m) in &p.event_metadata {
            assert_eq!(*id, m.id);
        }
        for (id, m) in &p.stat_metadata {
            assert_eq!(*id, m.id);
        }
        if p.name == "/host:__ScopeRangeCallStack__" {
            continue; // plane stats keyed by scope id, by design
        }
        for s in &p.stats {
            assert!(p.stat_metadata.contains_key(&s.metadata_id), "{}", p.name);
        }
        for l in &p.lines {
            for e in &l.events {
                assert!(p.event_metadata.contains_key(&e.metadata_id), "{}", p.name);
                for s in &e.stats {
                    assert!(p.stat_metadata.contains_key(&s.metadata_id));
                    if let Some(Value::RefValue(r)) = s.value {
                        assert!(p.stat_metadata.contains_key(&(r as i64)));
                    }
                }
            }
        }
    }
}

/// End to end: kernels of the simulated `nested-annotations` run (XLA-style roctx texts, tool
/// library in the simulated runtime) carry every stat real XLA kernels carry, with the same type.
#[test]
fn simulated_xla_style_annotations_give_kernels_xlas_stats() {
    let run = support::sim::cached(
        &support::paths::builtin("nested-annotations.toml"),
        "1.0.0",
        &[],
    );
    let ours = shape(&run.space);
    let mut checked = BTreeSet::new();
    for f in real_files() {
        let theirs = shape(&read_xspace(&f).unwrap());
        for ((cat, name), types) in &theirs {
            if *cat != "kernel event" || NOT_WRITTEN.contains(&(cat, name.as_str())) {
                continue;
            }
            let got = ours.get(&(*cat, name.clone())).unwrap_or_else(|| {
                panic!(
                    "{}: kernel stat `{name}` ({types:?}) missing from the simulated run",
                    f.display()
                )
            });
            assert_eq!(got, types, "{}: kernel stat `{name}`", f.display());
            checked.insert(name.clone());
        }
    }
    // The real files predate ROCm scope tracking (openxla/xla#39309): no `scope_range_id` there.
    for name in ["hlo_op", "hlo_module", "program_id", "tf_op", "name"] {
        assert!(checked.contains(name), "{name} not compared: {checked:?}");
    }
}
