//! The GPU memory timeline in xprof's memory profile, and the memory kinds of copies,
//! from the allocation-family HIP calls (`scenarios/memory.toml` in the simulated runtime: test
//! infrastructure, not hardware).

mod support;

use std::collections::BTreeMap;

use rocprof_xplane::xplane::read_xspace;
use support::paths::{builtin, profiles, tool_library};
use support::sim::Direct;
use support::truth::read_truth;
use support::u;
use support::xspace::{counter, memcpys};

/// Runs the memory scenario; returns the profile and the ground truth.
fn run(sdk: &str) -> (tempfile::TempDir, std::path::PathBuf, serde_json::Value) {
    let tmp = tempfile::tempdir().unwrap();
    let truth = tmp.path().join("truth.json");
    let out = Direct::new(&builtin("memory.toml"), sdk)
        .env("ROCP_TOOL_LIBRARIES", tool_library())
        .env("ROCPROF_XPLANE_OUTPUT_DIR", tmp.path())
        .env("ROCPROF_XPLANE_RUN_NAME", "mem")
        .ground_truth(&truth)
        .output();
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let files = profiles(tmp.path(), "mem");
    assert_eq!(files.len(), 1);
    let t = read_truth(&truth);
    let f = files[0].clone();
    (tmp, f, t)
}

/// Every copy of the scenario says where it read and wrote: pinned staging → device weights,
/// host memory HIP never saw (pageable) → device, device → host memory registered with HIP
/// (pinned), managed → device. Both ABI families.
#[test]
fn copies_carry_the_memory_kinds_of_their_buffers() {
    for sdk in ["0.6.0", "1.0.0"] {
        let (_tmp, file, truth) = run(sdk);
        let s = read_xspace(&file).unwrap();
        let kinds: BTreeMap<u64, (String, String)> = memcpys(&s)
            .iter()
            .map(|e| {
                let d = match e.stat("memcpy_details") {
                    Some(support::xspace::Stat::Str(d)) => d,
                    other => panic!("{sdk}: memcpy_details {other:?}"),
                };
                let f = support::xspace::details(&d)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<BTreeMap<_, _>>();
                (
                    f["size"].parse().unwrap(),
                    (f["kind_src"].clone(), f["kind_dst"].clone()),
                )
            })
            .collect();
        let want = |src: &str, dst: &str| (src.to_string(), dst.to_string());
        assert_eq!(kinds[&(64 << 20)], want("pinned", "device"), "{sdk}");
        assert_eq!(kinds[&(1 << 20)], want("pageable", "device"), "{sdk}");
        assert_eq!(kinds[&(16 << 20)], want("device", "pinned"), "{sdk}");
        assert_eq!(kinds[&(8 << 20)], want("managed", "device"), "{sdk}");
        assert_eq!(counter(&s, "memory_frees_unmatched"), 0, "{sdk}");
        // Every allocation and free of the run is on the memory line, per allocator, the
        // stream-ordered hipMallocAsync/hipFreeAsync included.
        let mut seen: BTreeMap<(String, String), u64> = BTreeMap::new();
        for e in support::xspace::events(support::xspace::plane(&s, "/host:CPU")) {
            if e.line.id != rocprof_xplane::xplane::stats::MEMORY_LINE_ID {
                continue;
            }
            let Some(support::xspace::Stat::Str(a)) = e.stat("allocator_name") else {
                panic!("{sdk}: no allocator_name");
            };
            *seen.entry((a, e.name().to_string())).or_default() += 1;
        }
        for (allocator, t) in truth["plan"]["memory"].as_object().unwrap() {
            let get = |n: &str| seen.get(&(allocator.clone(), n.to_string())).copied();
            assert_eq!(
                get("MemoryAllocation"),
                Some(u(&t["allocations"])),
                "{sdk} {allocator}"
            );
            assert_eq!(
                get("MemoryDeallocation"),
                Some(u(&t["frees"])),
                "{sdk} {allocator}"
            );
        }
        assert_eq!(
            u(&truth["plan"]["memory"]["GPU_0"]["allocations"]),
            7,
            "with the async one"
        );
    }
}

/// Real xprof's memory profile tool reads the timeline: one allocator per device (and one for
/// pinned host memory), each with the peak the simulator's ground truth computes, reached
/// inside the roctx range that allocated the per-layer scratch buffer.
#[test]
fn xprof_memory_profile_shows_each_allocator_with_the_right_peak() {
    if !support::xprof::available() {
        return;
    }
    let (_tmp, file, truth) = run("1.0.0");
    let m = support::xprof::memory_profile(&file);
    let per = m["memoryProfilePerAllocator"].as_object().unwrap();
    let want = truth["plan"]["memory"].as_object().unwrap();
    assert_eq!(
        per.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{m}"
    );
    for (allocator, t) in want {
        let s = &per[allocator]["profileSummary"];
        let peak: u64 = s["peakBytesUsageLifetime"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(peak, u(&t["peak_bytes"]), "{allocator}: {s}");
        assert!(peak > 0);
    }
    // GPU 0's peak is the 1 GiB scratch on top of weights and activations (and the managed
    // buffer): 512 + 256 + 32 + 1024 MiB.
    assert_eq!(
        u(&want["GPU_0"]["peak_bytes"]),
        (512 + 256 + 32 + 1024) << 20
    );
    // The allocations live at the peak (xprof's breakdown table): the 1 GiB scratch buffer,
    // named by the roctx range that allocated it, with its real address; the others by call.
    let snaps = per["GPU_0"]["memoryProfileSnapshots"].as_array().unwrap();
    let active = per["GPU_0"]["activeAllocations"].as_array().unwrap();
    let at_peak: Vec<&serde_json::Value> = active
        .iter()
        .map(|a| {
            let i: usize = a["snapshotIndex"].as_str().unwrap().parse().unwrap();
            &snaps[i]["activityMetadata"]
        })
        .collect();
    let scratch = at_peak
        .iter()
        .find(|m| m["tfOpName"] == "layer")
        .unwrap_or_else(|| panic!("{at_peak:?}"));
    assert_eq!(scratch["allocationBytes"], (1u64 << 30).to_string());
    assert_ne!(scratch["address"], "0");
    assert!(
        at_peak.iter().any(|m| m["tfOpName"] == "hipMalloc"),
        "{at_peak:?}"
    );
}
