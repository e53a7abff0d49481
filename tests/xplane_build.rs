//! `build_xspace` / `write_xspace` rules, read back through our own proto.

mod support;
use support::synthetic as common;
use support::xspace::plane;

use std::collections::BTreeMap;
use std::sync::Arc;

use prost::Message;
use rocprof_xplane::model::{DeviceEvent, DeviceEventKind, KernelCode, KernelInfo, LaunchShape};
use rocprof_xplane::xplane::proto::{x_event, x_stat::Value, XEvent, XPlane};
use rocprof_xplane::xplane::{
    build_xspace, read_xspace, write_xspace, OutputLayout, MARKER_LINE_BIT,
};

fn stats(p: &XPlane, e: &XEvent) -> BTreeMap<String, Value> {
    e.stats
        .iter()
        .map(|s| {
            let name = p.stat_metadata[&s.metadata_id].name.clone();
            let v = match s.value.clone().unwrap() {
                Value::RefValue(r) => Value::StrValue(p.stat_metadata[&(r as i64)].name.clone()),
                v => v,
            };
            (name, v)
        })
        .collect()
}

fn name<'a>(p: &'a XPlane, e: &XEvent) -> &'a str {
    &p.event_metadata[&e.metadata_id].name
}

fn offset(e: &XEvent) -> i64 {
    match e.data {
        Some(x_event::Data::OffsetPs(o)) => o,
        _ => panic!("event without offset"),
    }
}

#[test]
fn lines_sorted_relative_and_typed() {
    let (trace, expected) = common::synthetic_trace();
    let s = build_xspace(&trace);
    let names: Vec<&str> = s.planes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "/host:CPU",
            "/device:GPU:0",
            "/device:GPU:1",
            "/host:__ScopeRangeCallStack__",
            "Task Environment"
        ]
    );
    for p in &s.planes {
        for l in &p.lines {
            assert_eq!(l.timestamp_ns, 0);
            let keys: Vec<(i64, i64)> = l
                .events
                .iter()
                .map(|e| (offset(e), -e.duration_ps))
                .collect();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(keys, sorted, "{} / {} not sorted", p.name, l.name);
            assert!(keys.iter().all(|k| k.0 >= 0));
        }
    }

    let gpu0 = plane(&s, "/device:GPU:0");
    assert_eq!(gpu0.id, 0);
    let first = &gpu0.lines[0].events[0];
    let t0 = trace.devices[0].lines[0]
        .events
        .iter()
        .map(|e| e.start_ns)
        .min()
        .unwrap();
    assert_eq!(offset(first), ((t0 - common::START_BOOT_NS) * 1000) as i64);
    let st = stats(gpu0, first);
    assert!(matches!(st["correlation_id"], Value::Uint64Value(_)));
    assert_eq!(
        st["kernel_details"],
        // gfx942: 64 VGPRs → 512/64 = 8 waves; 5 KiB LDS → 12 work-groups × 4 waves / 4 SIMDs
        // = 12; so all 8 slots: 100 %.
        Value::StrValue("regs:64 static_shared:4096 dynamic_shared:1024 grid:128,1,1 block:256,1,1 private_mem:0 occ_pct:100".into())
    );
    assert!(
        !st.contains_key("device_id"),
        "device events carry no device_id (as XLA)"
    );

    // Every dispatch of the graph launch is kept with the launch's correlation id.
    let g = expected.graph_correlation_id;
    let graph_events = gpu0
        .lines
        .iter()
        .flat_map(|l| &l.events)
        .filter(|e| stats(gpu0, e)["correlation_id"] == Value::Uint64Value(g))
        .count();
    assert_eq!(graph_events, expected.dispatches_per_correlation[&g]);

    let host = plane(&s, "/host:CPU");
    let launch = host
        .lines
        .iter()
        .flat_map(|l| &l.events)
        .find(|e| name(host, e) == "hipGraphLaunch")
        .unwrap();
    let hs = stats(host, launch);
    assert_eq!(hs["correlation_id"], Value::Uint64Value(g));
    assert_eq!(hs["device_id"], Value::Uint64Value(0));
    assert_eq!(hs["activity_count"], Value::Uint64Value(8));
    // Host copy calls carry the copy's memcpy_details, like XLA's.
    let copy = host
        .lines
        .iter()
        .flat_map(|l| &l.events)
        .find(|e| name(host, e) == "hipMemcpyPeerAsync")
        .unwrap();
    assert_eq!(
        stats(host, copy)["memcpy_details"],
        Value::StrValue("kind_src:device kind_dst:device size:1048576 dest:1 src:0".into())
    );
    // A call without device work carries its correlation_id too, as XLA writes it
    // (xprof leaves it a one-ended flow, which draws no arrow: tests/e2e_deps.rs).
    let set_device = host
        .lines
        .iter()
        .flat_map(|l| &l.events)
        .find(|e| name(host, e) == "hipSetDevice")
        .unwrap();
    let sd = stats(host, set_device);
    assert!(
        matches!(sd.get("correlation_id"), Some(Value::Uint64Value(_))),
        "{sd:?}"
    );
    assert_eq!(sd["device_id"], Value::Uint64Value(0));
    // Memcpy device events use the names xprof classifies.
    let gpu1 = plane(&s, "/device:GPU:1");
    let copies: Vec<&str> = gpu1.lines[1].events.iter().map(|e| name(gpu1, e)).collect();
    assert_eq!(copies, ["MemcpyHToD", "MemcpyDToH"]);
    assert_eq!(gpu1.lines[1].name, "Stream #1(MemcpyHToD,MemcpyDToH)");

    // Host lines: id = tid; markers on their own line.
    let ids: Vec<i64> = host.lines.iter().map(|l| l.id).collect();
    assert_eq!(ids, [1001, 1001 | MARKER_LINE_BIT, 1002]);
    assert_eq!(host.lines[0].name, "Host Threads/1001");
    assert_eq!(host.lines[0].display_name, "python3/1001");
    let marks: Vec<(&str, i64)> = host.lines[1]
        .events
        .iter()
        .map(|e| (name(host, e), e.duration_ps))
        .collect();
    assert_eq!(marks, [("train_step", 51_000_000), ("checkpoint", 0)]);
}

#[test]
fn annotations_become_xla_stats() {
    let (trace, _) = common::synthetic_trace();
    let s = build_xspace(&trace);
    let gpu0 = plane(&s, "/device:GPU:0");
    let add = gpu0.lines[0]
        .events
        .iter()
        .find(|e| name(gpu0, e) == "elementwise_add")
        .unwrap();
    let st = stats(gpu0, add);
    assert_eq!(st["scope_range_id"], Value::Int64Value(12));
    // The outermost TraceMe-encoded level, not the plain label around it.
    assert_eq!(st["tf_op"], Value::StrValue("layer1".into()));
    assert_eq!(st["hlo_module"], Value::StrValue("jit_step".into()));
    assert_eq!(st["program_id"], Value::Int64Value(3));
    assert_eq!(
        st["nvtx_range"],
        Value::StrValue("train_step::layer1#hlo_module=jit_step,program_id=3#".into())
    );
    assert_eq!(st["external_correlation_id"], Value::Uint64Value(78));
    assert_eq!(
        st["external_correlation_ids"],
        Value::StrValue("77,78".into())
    );
    // Not annotated: no annotation stats.
    let gemm = gpu0.lines[0]
        .events
        .iter()
        .find(|e| name(gpu0, e) == "gemm_kernel")
        .unwrap();
    assert!(!stats(gpu0, gemm).contains_key("tf_op"));

    // Scope tree: plane stat metadata_id = child, int64 = parent.
    let tree = plane(&s, "/host:__ScopeRangeCallStack__");
    assert_eq!(tree.stats.len(), 1);
    assert_eq!(tree.stats[0].metadata_id, 12);
    assert_eq!(tree.stats[0].value, Some(Value::Int64Value(11)));
    assert!(
        tree.stat_metadata.contains_key(&12),
        "ids up to the largest scope id are reserved"
    );
}

#[test]
fn task_environment_warnings_and_early_events() {
    let (mut trace, _) = common::synthetic_trace();
    let s = build_xspace(&trace);
    let env = plane(&s, "Task Environment");
    let get = |p: &XPlane, n: &str| {
        p.stats
            .iter()
            .find(|s| p.stat_metadata[&s.metadata_id].name == n)
            .and_then(|s| s.value.clone())
    };
    assert_eq!(
        get(env, "profile_start_time"),
        Some(Value::Uint64Value(common::START_WALL_NS))
    );
    assert_eq!(
        get(env, "profile_stop_time"),
        Some(Value::Uint64Value(trace.stop_walltime_ns))
    );
    assert_eq!(
        get(env, "rocprof_xplane_runtime_dropped"),
        Some(Value::Uint64Value(12))
    );
    assert_eq!(
        s.warnings,
        [
            "synthetic warning",
            "rocprof-xplane: 12 records dropped by the runtime (drop_count)"
        ]
    );
    assert_eq!(s.hostnames, ["synthhost"]);

    // A dispatch 1 µs before the profile start: kept, origin moved back, said so.
    let shape = trace.shapes.push(LaunchShape {
        code: Arc::new(KernelCode {
            name: Arc::from("early"),
            ..Default::default()
        }),
        ..Default::default()
    });
    trace.devices[1].lines[0].events.push(DeviceEvent {
        start_ns: common::START_BOOT_NS - 1_000,
        end_ns: common::START_BOOT_NS + 500,
        correlation_id: 0,
        kind: DeviceEventKind::Kernel(KernelInfo {
            dispatch_id: 0,
            shape,
        }),
        annotation: None,
        graph: None,
    });
    let s = build_xspace(&trace);
    let env = plane(&s, "Task Environment");
    assert_eq!(
        get(env, "profile_start_time"),
        Some(Value::Uint64Value(common::START_WALL_NS - 1_000))
    );
    let gpu1 = plane(&s, "/device:GPU:1");
    let early = gpu1.lines[0].events.first().unwrap();
    assert_eq!(
        (name(gpu1, early), offset(early), early.duration_ps),
        ("early", 0, 1_500_000)
    );
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("1000 ns before the profile start")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn output_is_deterministic() {
    let (trace, _) = common::synthetic_trace();
    assert_eq!(
        build_xspace(&trace).encode_to_vec(),
        build_xspace(&trace).encode_to_vec()
    );
}

#[test]
fn files_are_written_atomically_per_host() {
    let (trace, _) = common::synthetic_trace();
    let dir = tempfile::tempdir().unwrap();
    let layout = |host: &str| OutputLayout {
        log_dir: dir.path().join("logs"),
        run_name: "2026_11_22_01_00_00".into(),
        host: host.into(),
        durable: false,
    };
    // Several processes of one job: distinct hosts, plus racing rewrites of one host.
    std::thread::scope(|sc| {
        for i in 0..6 {
            let trace = &trace;
            let layout = &layout;
            sc.spawn(move || {
                let host = if i < 4 {
                    format!("node1.{}", 100 + i)
                } else {
                    "node1.shared".into()
                };
                write_xspace(trace, &layout(&host)).unwrap();
            });
        }
    });
    let run = dir.path().join("logs/plugins/profile/2026_11_22_01_00_00");
    let mut files: Vec<String> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "node1.100.xplane.pb",
            "node1.101.xplane.pb",
            "node1.102.xplane.pb",
            "node1.103.xplane.pb",
            "node1.shared.xplane.pb"
        ],
        "no temp files left behind"
    );
    for f in &files {
        let s = read_xspace(run.join(f)).unwrap();
        assert_eq!(
            s.hostnames,
            [f.trim_end_matches(".xplane.pb")],
            "hostnames[0] = file host"
        );
        assert_eq!(s.planes.len(), 5);
    }
    // A rewrite drops xprof's stale trace-viewer caches for that host only.
    std::fs::write(run.join("node1.100.SSTABLE"), b"stale").unwrap();
    std::fs::write(run.join("node1.101.SSTABLE"), b"other").unwrap();
    let p = write_xspace(&trace, &layout("node1.100")).unwrap();
    assert_eq!(p, run.join("node1.100.xplane.pb"));
    assert!(!run.join("node1.100.SSTABLE").exists());
    assert!(run.join("node1.101.SSTABLE").exists());
}

#[test]
fn missing_profile_start_uses_the_first_event() {
    let (mut trace, _) = common::synthetic_trace();
    trace.start_boottime_ns = 0;
    let s = build_xspace(&trace);
    let first = s
        .planes
        .iter()
        .flat_map(|p| p.lines.iter().flat_map(|l| l.events.iter().map(offset)))
        .min()
        .unwrap();
    assert_eq!(first, 0);
    assert!(!s
        .warnings
        .iter()
        .any(|w| w.contains("before the profile start")));
}

/// The file is written plane by plane (only one plane in memory at a time); its bytes
/// are exactly those of the whole XSpace encoded at once.
#[test]
fn streamed_file_equals_the_whole_xspace_encoded() {
    let (trace, _) = common::synthetic_trace();
    let dir = tempfile::tempdir().unwrap();
    let layout = rocprof_xplane::xplane::OutputLayout {
        log_dir: dir.path().into(),
        run_name: "r".into(),
        host: "h.1".into(),
        durable: false,
    };
    let path = rocprof_xplane::xplane::write_xspace(&trace, &layout).unwrap();
    let mut whole = rocprof_xplane::xplane::build_xspace(&trace);
    assert!(whole.planes.len() > 2, "several planes");
    whole.hostnames = vec!["h.1".into()];
    assert_eq!(std::fs::read(&path).unwrap(), whole.encode_to_vec());
}

/// A plane past the spill size goes into the output file as it is built (its length padded,
/// filled in at the end) whenever it is its turn there: on one thread every such plane; on
/// several, a device plane built beside the host plane sets its lines aside until the host
/// plane is written, and then takes the output. Either way its length is padded, so the
/// bytes do not depend on the threads. The file, with hostile names in its lines and a run
/// directory whose name is not ASCII, decodes to the XSpace built in memory, its lines nest,
/// and nothing is left beside it.
#[test]
fn planes_written_as_they_are_built_decode_as_the_whole_xspace() {
    let mut trace = common::launches(150_000);
    hostile_names(&mut trace);
    let mut want = build_xspace(&trace);
    let big = want
        .planes
        .iter()
        .filter(|p| p.encoded_len() > rocprof_xplane::xplane::spill::SPILL_PAST)
        .count();
    assert_eq!(big, 2, "the host and device planes are past the spill size");
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for threads in [1, 3] {
        let layout = rocprof_xplane::xplane::OutputLayout {
            log_dir: dir.path().join("répertoire 日本"),
            run_name: format!("t{threads} ü"),
            host: "h.1".into(),
            durable: false,
        };
        let path = rocprof_xplane::xplane::write_xspace_on(&trace, &layout, threads).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let lengths = support::xspace::plane_length_widths(&bytes);
        assert_eq!(lengths[..2], [5, 5], "{threads} threads");
        assert!(
            lengths[2..].iter().all(|&w| w < 5),
            "small planes are whole"
        );
        want.hostnames = vec!["h.1".into()];
        let back = rocprof_xplane::xplane::proto::XSpace::decode(bytes.as_slice()).unwrap();
        assert!(back == want, "{threads} threads");
        support::xspace::assert_lines_nest(&back, "planes written as they are built");
        let left: Vec<_> = std::fs::read_dir(layout.run_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from("h.1.xplane.pb")]);
        files.push(bytes);
    }
    assert!(files[0] == files[1], "the same bytes on 1 and 3 threads");
}

/// The default's rule: device planes are built beside the host plane only as far as the
/// memory they add (each worker's plane being built, every finished plane waiting its turn)
/// fits in the headroom under the process's peak.
#[test]
fn plane_threads_are_as_many_as_the_headroom_holds() {
    use rocprof_xplane::xplane::{parallel_planes_bytes, threads_within};
    let mut trace = common::launches(20_000);
    for ordinal in 1..4 {
        let mut d = trace.devices[0].clone();
        d.ordinal = ordinal;
        trace.devices.push(d);
    }
    let [one, two, three] = [1, 2, 3].map(|w| parallel_planes_bytes(&trace, w));
    assert!(0 < one && one < two && two < three, "{one} {two} {three}");
    // At least what the lines' encodings take.
    let per_plane = build_xspace(&trace).planes[1].encoded_len() as u64;
    assert!(one >= per_plane, "{one} < {per_plane}");
    for (headroom, want) in [
        (0, 1),
        (one - 1, 1),
        (one, 2),
        (two, 3),
        (three, 4),
        (u64::MAX, 4),
    ] {
        assert_eq!(threads_within(&trace, 4, headroom), want, "{headroom}");
    }
    assert_eq!(threads_within(&trace, 1, u64::MAX), 1);
    assert_eq!(threads_within(&trace, 2, u64::MAX), 2);
}

/// Planes built on several threads (the device planes beside the host plane) reach the file
/// with the same bytes, in the same order, as planes built on one, their lines set aside or
/// not; a sink that fails ends the build with its error, at the plane where it failed.
#[test]
fn planes_built_on_several_threads_are_the_same_bytes_in_the_same_order() {
    use rocprof_xplane::xplane::spill::SpillPolicy;
    let (mut trace, _) = common::synthetic_trace();
    // More GPUs than threads, of unequal sizes, so that planes finish out of order.
    let first = trace.devices.clone();
    for ordinal in 2..7u32 {
        let mut d = first[ordinal as usize % first.len()].clone();
        d.ordinal = ordinal;
        if ordinal % 3 == 0 {
            for l in &mut d.lines {
                l.events.truncate(1);
            }
        }
        trace.devices.push(d);
    }
    let want = build_xspace(&trace).encode_to_vec();
    let dir = tempfile::tempdir().unwrap();
    for past in [usize::MAX, 0] {
        let spill = SpillPolicy::past(dir.path(), past);
        for threads in [1, 2, 3, 4, 16] {
            let mut out = Vec::new();
            let rest =
                rocprof_xplane::xplane::build_planes_spilling(&trace, Some(&spill), threads, |p| {
                    p.write_entry(&mut out)
                })
                .unwrap();
            out.extend(rest.encode_to_vec());
            assert!(
                out == want,
                "{threads} threads, lines set aside past {past} B"
            );
        }
    }
    let mut sunk = 0;
    let err = rocprof_xplane::xplane::build_planes_spilling(&trace, None, 3, |_| {
        sunk += 1;
        if sunk == 3 {
            Err("full")
        } else {
            Ok(())
        }
    })
    .unwrap_err();
    assert_eq!((err, sunk), ("full", 3));
}

/// Planes whose lines were set aside in a file while built (here every plane's, past 0
/// bytes) are written with the same bytes as the whole XSpace encoded in memory, and the file
/// leaves nothing in the directory; a directory where no file can be made keeps the lines in
/// memory, same bytes.
#[test]
fn planes_whose_lines_were_set_aside_are_the_same_bytes() {
    use rocprof_xplane::xplane::spill::SpillPolicy;
    let (trace, _) = common::synthetic_trace();
    let want = rocprof_xplane::xplane::build_xspace(&trace).encode_to_vec();
    let encode = |spill: Option<&SpillPolicy>| {
        let (mut out, mut set_aside) = (Vec::new(), 0);
        let rest = rocprof_xplane::xplane::build_planes_spilling(&trace, spill, 1, |p| {
            set_aside += p.spilled_bytes();
            p.write_entry(&mut out)
        })
        .unwrap();
        out.extend(rest.encode_to_vec());
        (out, set_aside)
    };
    let dir = tempfile::tempdir().unwrap();
    let every_line = SpillPolicy::past(dir.path(), 0);
    let (bytes, set_aside) = encode(Some(&every_line));
    assert!(set_aside > 0, "the lines went to the file");
    assert_eq!(bytes, want);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file left"
    );
    let nowhere = SpillPolicy::past(dir.path().join("missing"), 0);
    assert_eq!(encode(Some(&nowhere)), (want, 0));
}

/// Gives the trace's host threads, host events and device lines hostile names, in turn: empty,
/// non-ASCII with quotes, a zero-width space and a newline, and 10 KB; returns the three.
fn hostile_names(trace: &mut rocprof_xplane::model::Trace) -> [String; 3] {
    let names = [
        String::new(),
        "é日本🚀\u{200b}\"\\\n".to_string(),
        "ü".repeat(5_000), // 10 KB
    ];
    let ids = names.clone().map(|n| trace.names.push(Arc::from(n)));
    for (k, t) in trace.host_threads.iter_mut().enumerate() {
        t.name = names[k % names.len()].clone();
        for (i, e) in t.events.iter_mut().enumerate() {
            e.name = ids[i % names.len()];
        }
    }
    for (k, l) in trace
        .devices
        .iter_mut()
        .flat_map(|d| &mut d.lines)
        .enumerate()
    {
        l.name = names[k % names.len()].clone();
    }
    names
}

/// Hostile text through the set-aside lines: empty, non-ASCII and 10 KB event, thread and line
/// names, the file made in a directory whose name is not ASCII. The planes are the same bytes
/// as encoded in memory, read back whole, and no host line holds partially overlapping events.
#[test]
fn hostile_names_through_set_aside_lines() {
    use rocprof_xplane::xplane::spill::SpillPolicy;
    let (mut trace, _) = common::synthetic_trace();
    let names = hostile_names(&mut trace);
    let long = &names[2];
    let want = build_xspace(&trace);
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("répertoire 日本");
    std::fs::create_dir(&dir).unwrap();
    let spill = SpillPolicy::past(dir.clone(), 0);
    let mut out = Vec::new();
    let mut set_aside = 0;
    let rest = rocprof_xplane::xplane::build_planes_spilling(&trace, Some(&spill), 1, |p| {
        set_aside += p.spilled_bytes();
        p.write_entry(&mut out)
    })
    .unwrap();
    out.extend(rest.encode_to_vec());
    assert!(set_aside > long.len(), "the lines went to the file");
    assert_eq!(out, want.encode_to_vec());
    let back = rocprof_xplane::xplane::proto::XSpace::decode(out.as_slice()).unwrap();
    let host = plane(&back, "/host:CPU");
    let named: Vec<&str> = host
        .event_metadata
        .values()
        .map(|m| m.name.as_str())
        .collect();
    for n in &names {
        assert!(named.contains(&n.as_str()), "{:.40} missing", n);
    }
    // The host lines, whose names and events the hostile text went into, nest. (The
    // fixture's device lines hold kernels that overlap by construction: it is a hand-made
    // trace, not one the join made from a stream's in-order work.)
    let host_only = rocprof_xplane::xplane::proto::XSpace {
        planes: vec![host.clone()],
        ..Default::default()
    };
    support::xspace::assert_lines_nest(&host_only, "hostile names");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no file left");
}

/// Where the merge tests write run `run`: under `dir`, for host "h.1".
fn layout_in(dir: &std::path::Path, run: &str) -> OutputLayout {
    OutputLayout {
        log_dir: dir.into(),
        run_name: run.into(),
        host: "h.1".into(),
        durable: false,
    }
}

/// Each trace written as a window of its run name under `dir` (on `run`'s names and clock
/// when given, as `WINDOW_MERGE` writes them), two writing threads.
fn write_windows(
    dir: &std::path::Path,
    windows: &[(&rocprof_xplane::model::Trace, &str)],
    run: Option<&rocprof_xplane::xplane::RunIds>,
) -> Vec<std::path::PathBuf> {
    windows
        .iter()
        .map(|(t, name)| {
            rocprof_xplane::xplane::write_window(t, &layout_in(dir, name), 2, run).unwrap()
        })
        .collect()
}

/// Merging a single profile (`xplane::merge`, one line at a time from the file) gives it
/// back: the same planes, metadata ids, lines, events in their order and stats. A file cut
/// short is refused with its name and nothing is written in its place.
#[test]
fn merging_one_profile_gives_it_back_and_a_truncated_one_is_refused() {
    use rocprof_xplane::xplane::merge::{merge_files, MergeError};
    let (trace, _) = common::synthetic_trace();
    let dir = tempfile::tempdir().unwrap();
    let layout = |run: &str| layout_in(dir.path(), run);
    let path = write_xspace(&trace, &layout("one")).unwrap();
    let (merged, m) = merge_files(std::slice::from_ref(&path), &layout("merged")).unwrap();
    assert_eq!(m.inputs, 1);
    assert_eq!(
        m.open_ranges_left_out, 0,
        "the last input keeps its open ranges"
    );
    let (a, b) = (read_xspace(&path).unwrap(), read_xspace(&merged).unwrap());
    assert_eq!(a.planes.len(), b.planes.len());
    for (x, y) in a.planes.iter().zip(&b.planes) {
        assert_eq!(x, y, "plane {}", x.name);
    }
    assert_eq!(a, b);

    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.path().join("cut.xplane.pb");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    match merge_files(std::slice::from_ref(&cut), &layout("bad")) {
        Err(MergeError::Malformed { path, .. }) => assert_eq!(path, cut),
        other => panic!("{other:?}"),
    }
    assert!(!layout("bad").file_path().exists());
}

/// Windows written on one run's names and clock (`xplane::RunIds`, as `WINDOW_MERGE` writes
/// them) are merged by copying every event as it is, and the merge shows what the merge of
/// the same windows written each on its own ids and clock shows: the same events, names,
/// times and stats. The second window names a kernel the first did not and lacks the first's:
/// on its own ids its names are numbered from 1 again, so its events are re-encoded. A kernel's
/// resource stats, set on its metadata by each window, stay one each. Inputs given latest
/// first are put in time order (the windows on the run's clock share an origin: by their
/// ends).
#[test]
fn windows_on_one_run_s_ids_and_clock_are_merged_by_copying_their_events() {
    use rocprof_xplane::xplane::merge::{merge_files, merge_own_files};
    use rocprof_xplane::xplane::RunIds;
    let first = common::launches(50);
    let (mut second, _) = common::synthetic_trace();
    // The first window's kernel once more, late in the second: both windows set its stats.
    let DeviceEventKind::Kernel(k) = &first.devices[0].lines[0].events[0].kind else {
        unreachable!("launches are kernels")
    };
    let shape = second.shapes.push(first.shapes[k.shape].clone());
    let at = common::START_BOOT_NS + 1_900_000;
    second.devices[0].lines[0].events.push(DeviceEvent {
        start_ns: at,
        end_ns: at + 10,
        correlation_id: 0,
        kind: DeviceEventKind::Kernel(KernelInfo {
            dispatch_id: 9_999,
            shape,
        }),
        annotation: None,
        graph: None,
    });
    let dir = tempfile::tempdir().unwrap();
    let layout = |run: &str| layout_in(dir.path(), run);
    let run = RunIds::new();
    let shared = write_windows(
        dir.path(),
        &[(&first, "s_w0001"), (&second, "s_w0002")],
        Some(&run),
    );
    let own = write_windows(
        dir.path(),
        &[(&first, "o_w0001"), (&second, "o_w0002")],
        None,
    );
    let latest_first: Vec<_> = shared.iter().rev().cloned().collect();
    let (a, ma) = merge_own_files(&latest_first, &layout("s"), &[]).unwrap();
    let (b, mb) = merge_files(&own, &layout("o")).unwrap();
    let (c, mc) = merge_files(&shared, &layout("c")).unwrap();
    assert_eq!(ma.events, mb.events);
    assert_eq!(
        (ma.copied, mc.copied),
        (ma.events, mc.events),
        "every event copied"
    );
    assert!(
        mb.copied < mb.events,
        "windows on their own ids and clocks are re-encoded ({} of {} copied)",
        mb.copied,
        mb.events
    );
    let (a, b, c) = (
        read_xspace(&a).unwrap(),
        read_xspace(&b).unwrap(),
        read_xspace(&c).unwrap(),
    );
    let tids = support::xspace::host_tids([&b]);
    let sorted = |s| {
        let mut l = support::xspace::listing(s, &tids);
        l.sort();
        l
    };
    assert_eq!(sorted(&a), sorted(&b));
    assert_eq!(a, c, "checked and unchecked copies give the same file");
    // Each window set the kernel's resource stats on its metadata: once each in the second.
    let second = read_xspace(&shared[1]).unwrap();
    let gpu = plane(&second, "/device:GPU:0");
    let gemm = gpu
        .event_metadata
        .values()
        .find(|m| m.name == "gemm_kernel")
        .unwrap();
    let mut ids: Vec<i64> = gemm.stats.iter().map(|s| s.metadata_id).collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert!(n > 0 && ids.len() == n, "{:?}", gemm.stats);
}

/// A window's warning about the roctx ranges open at its cut is not the merged profile's: the
/// merge shows those ranges whole (their `open_at_end` parts left out but in the last input),
/// so it keeps that warning from the last input only; every other warning is kept, once.
/// Before, the profile merged from the default windows warned of ranges "still open at the end
/// of this capture window" that it shows closed. The last window's no longer says they go on in
/// the next: no window follows it in the profile.
#[test]
fn the_merge_keeps_a_window_s_open_range_warning_only_from_the_last_window() {
    use rocprof_xplane::xplane::merge::{merge_own_files, RANGES_OPEN_AT_CUT};
    use rocprof_xplane::xplane::RunIds;
    let open =
        |n: u32| format!("{n} {RANGES_OPEN_AT_CUT} (shown up to it; they go on in the next)");
    let mut first = common::launches(20);
    first.warnings = vec![
        open(7),
        "3 roctx pops/stops had no matching push/start".into(),
    ];
    let mut second = common::launches(20);
    second.warnings = vec![open(2)];
    let dir = tempfile::tempdir().unwrap();
    let layout = |run: &str| layout_in(dir.path(), run);
    let run = RunIds::new();
    let files = write_windows(
        dir.path(),
        &[(&first, "w_w0001"), (&second, "w_w0002")],
        Some(&run),
    );
    let (merged, _) = merge_own_files(&files, &layout("w"), &[]).unwrap();
    let warnings = read_xspace(&merged).unwrap().warnings;
    assert_eq!(
        warnings,
        [
            "3 roctx pops/stops had no matching push/start".to_string(),
            format!("2 {RANGES_OPEN_AT_CUT} (shown up to it)")
        ]
    );
}

/// Windows name their process and run (`rocprof_xplane_window_pid`, `_run`): the merge refuses
/// windows of two processes (one run name, a file name without `%pid%`) or of two runs of one
/// pid, naming the file, and writes nothing; windows of one process and run merge as before,
/// and the profile they make carries neither stat (its Task Environment is as before).
#[test]
fn the_merge_refuses_windows_of_another_process_or_run() {
    use rocprof_xplane::xplane::merge::{merge_files, merge_own_files, MergeError};
    use rocprof_xplane::xplane::{RunIds, WindowIdentity};
    let (a, b) = (common::launches(20), common::launches(20));
    let dir = tempfile::tempdir().unwrap();
    let layout = |run: &str| layout_in(dir.path(), run);
    let of = |pid, run| RunIds::of(WindowIdentity { pid, run });
    for (other, what) in [(of(8, 1), "another process"), (of(7, 2), "another run")] {
        let mine = of(7, 1);
        let tag = what.replace(' ', "_");
        let files = [
            write_windows(dir.path(), &[(&a, &format!("{tag}_w0001"))], Some(&mine)),
            write_windows(dir.path(), &[(&b, &format!("{tag}_w0002"))], Some(&other)),
        ]
        .concat();
        for merged in [
            merge_files(&files, &layout(&tag)),
            merge_own_files(&files, &layout(&tag), &[]),
        ] {
            match merged {
                Err(MergeError::Foreign { path, .. }) => assert_eq!(path, files[1], "{what}"),
                other => panic!("{what}: {other:?}"),
            }
        }
        assert!(
            !layout(&tag).file_path().exists(),
            "{what}: a file was written"
        );
    }
    let mine = of(7, 1);
    let files = write_windows(
        dir.path(),
        &[(&a, "same_w0001"), (&b, "same_w0002")],
        Some(&mine),
    );
    let (path, m) = merge_files(&files, &layout("same")).unwrap();
    assert_eq!(m.inputs, 2);
    let env = plane(&read_xspace(&path).unwrap(), "Task Environment").clone();
    let names: Vec<&str> = env
        .stat_metadata
        .values()
        .map(|m| m.name.as_str())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| ["rocprof_xplane_window_pid", "rocprof_xplane_window_run"].contains(n)),
        "{names:?}"
    );
    let window = read_xspace(&files[0]).unwrap();
    let window_env = plane(&window, "Task Environment");
    assert!(window_env
        .stat_metadata
        .values()
        .any(|m| m.name == "rocprof_xplane_window_pid"));
}

/// Each of `trace`'s first kernels on its first GPU line labelled as XLA labels the work of
/// program `program_id` (module `module`) op `op`, one label per kernel.
fn label_xla_ops(trace: &mut rocprof_xplane::model::Trace, ops: &[(i64, &str, &str)]) {
    for (i, (program_id, module, op)) in ops.iter().enumerate() {
        let a = trace.annotations.push(rocprof_xplane::model::Annotation {
            stack: vec![
                Arc::from(format!(
                    "XlaModule:#hlo_module={module},program_id={program_id}#"
                )),
                Arc::from(format!("Thunk:#hlo_op={op}#")),
            ]
            .into(),
            scope_range_id: 0,
            external_ids: Vec::new(),
        });
        trace.devices[0].lines[0].events[i].annotation = Some(a);
    }
}

/// The programs of a profile's `/host:metadata` plane: id → (name, ops of its placeholder).
fn programs(s: &rocprof_xplane::xplane::proto::XSpace) -> BTreeMap<i64, (String, Vec<String>)> {
    let p = plane(s, rocprof_xplane::xplane::hlo::METADATA_PLANE);
    let proto_stat = p
        .stat_metadata
        .values()
        .find(|m| m.name == rocprof_xplane::xplane::hlo::HLO_PROTO)
        .expect("an Hlo Proto stat")
        .id;
    p.event_metadata
        .iter()
        .map(|(&id, m)| {
            assert_eq!(m.id, id);
            let bytes = m
                .stats
                .iter()
                .find_map(|st| match &st.value {
                    Some(Value::BytesValue(b)) if st.metadata_id == proto_stat => Some(b),
                    _ => None,
                })
                .expect("each program has its HLO proto");
            let (module, ops) =
                rocprof_xplane::xplane::hlo::placeholder_ops(bytes).expect("a placeholder module");
            assert_eq!(module, m.name);
            (id, (m.name.clone(), ops))
        })
        .collect()
}

/// Kernels labelled by XLA's TraceMe texts get a placeholder module per program in
/// `/host:metadata`, its event-metadata id the program id (as xprof reads it), holding the
/// ops seen. Merged windows keep each program under its own id, even two programs of one
/// module name (a function compiled twice), and a program met in both windows holds the ops
/// of both.
#[test]
fn program_modules_keep_their_ids_and_every_windows_ops_through_a_merge() {
    use rocprof_xplane::xplane::merge::merge_files;
    let mut a = common::launches(8);
    label_xla_ops(&mut a, &[(9, "jit_f", "fusion.1"), (7, "jit_f", "copy.2")]);
    let mut b = common::launches(8);
    label_xla_ops(&mut b, &[(7, "jit_f", "fusion.3"), (7, "jit_f", "copy.2")]);
    let whole = |ops: &[&str]| ops.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        programs(&build_xspace(&a)),
        BTreeMap::from([
            (7, ("jit_f".to_string(), whole(&["copy.2"]))),
            (9, ("jit_f".to_string(), whole(&["fusion.1"]))),
        ])
    );
    // No labelled op, no plane.
    let plain = build_xspace(&common::launches(8));
    assert!(plain
        .planes
        .iter()
        .all(|p| p.name != rocprof_xplane::xplane::hlo::METADATA_PLANE));

    let dir = tempfile::tempdir().unwrap();
    let windows = write_windows(dir.path(), &[(&a, "w1"), (&b, "w2")], None);
    let (merged, _) = merge_files(&windows, &layout_in(dir.path(), "m")).unwrap();
    assert_eq!(
        programs(&read_xspace(&merged).unwrap()),
        BTreeMap::from([
            (7, ("jit_f".to_string(), whole(&["copy.2", "fusion.3"]))),
            (9, ("jit_f".to_string(), whole(&["fusion.1"]))),
        ])
    );
}
