//! Fuzzing on the stable toolchain: a seeded, mutation-based fuzzer for the two inputs the tool
//! takes from outside — raw buffer records (through decode, join, XPlane build and encode) and
//! roctx annotation text — with the scenario parser's target in `sim/tests/fuzz_scenario.rs`.
//!
//! Not coverage-guided (cargo-fuzz needs a nightly compiler, which this project does not use):
//! inputs are generated from the record layouts and mutated from seeds and a dictionary of the
//! delimiters each parser splits on. Each target checks invariants, not just "no panic"; a
//! failing input is printed in hex so it can be replayed with `ROCPROF_FUZZ_REPLAY=<hex>`.
//!
//! `ROCPROF_FUZZ_ITERS` (default 2,000 per target, the CI run) and `ROCPROF_FUZZ_SEED` choose the
//! run; long runs and what they found are in docs/reliability.md.

use std::collections::HashMap;
use std::mem::size_of;
use std::sync::Arc;

use prost::Message;
use rocprof_xplane::decode::{decode_batch, BufferKinds};
use rocprof_xplane::model::carry::{hand_off, HandedOn, Windows};
use rocprof_xplane::model::events::{AgentInfo, AgentType, Collected, KernelSymbol, MarkerSpan};
use rocprof_xplane::model::join::join;
use rocprof_xplane::model::{HostEventKind, Trace};
use rocprof_xplane::sdk::Abi;
use rocprof_xplane::store::EventStore;
use rocprof_xplane::xplane::annotation::{parse_annotation, MAX_KEYS};
use rocprof_xplane::xplane::build_xspace;
use rocprof_xplane::xplane::proto::XSpace;
use rocprofiler_sdk_sys as sys;

mod support;
use support::fuzz::run;

// ---------------------------------------------------------------------------------------------
// Target 1: raw records → decode → join → XPlane → bytes → XSpace.

const HIP: u32 = sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
const MARKER: u32 = sys::ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API;
const COPY: u32 = sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
const KERNEL: u32 = sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
/// A value the runtime would resolve by name (`HIP_EVENT` has no fixed number).
const HIP_EVENT: u32 = 40;

fn kinds() -> BufferKinds {
    BufferKinds {
        hip_api: Some(HIP),
        marker_api: Some(MARKER),
        kernel_dispatch: Some(KERNEL),
        memory_copy: Some(COPY),
        hip_event: Some(HIP_EVENT),
        // Counter value records carry no size of their own: the fuzzed payloads are tracing
        // records, which say theirs.
        counters: false,
    }
}

/// Reads the input as a little stream of decisions and bytes.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn byte(&mut self) -> u8 {
        let v = self.b.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        v
    }
    fn u64(&mut self) -> u64 {
        let mut v = [0u8; 8];
        for x in &mut v {
            *x = self.byte();
        }
        u64::from_le_bytes(v)
    }
    fn done(&self) -> bool {
        self.at >= self.b.len()
    }
}

/// One record's payload: its kind's layout, a `size` field that may lie (smaller, larger, 0),
/// fields from the input — small values often, so ids and timestamps collide and join.
struct Built {
    category: u32,
    kind: u32,
    payload: Vec<u64>,
}

fn build_record(c: &mut Cursor<'_>, abi: Abi) -> Built {
    let kind = match c.byte() % 7 {
        0 => KERNEL,
        1 => COPY,
        2 => HIP,
        3 => MARKER,
        4 => HIP_EVENT,
        5 => u32::from(c.byte()),
        _ => KERNEL,
    };
    let category = if c.byte() % 16 == 0 {
        u32::from(c.byte())
    } else {
        sys::ROCPROFILER_BUFFER_CATEGORY_TRACING
    };
    let declared = match kind {
        KERNEL => size_of::<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t>(),
        COPY => match abi {
            Abi::V0 => size_of::<sys::rocprofiler_buffer_tracing_memory_copy_record_v0_t>(),
            Abi::V1 => size_of::<sys::rocprofiler_buffer_tracing_memory_copy_record_v0_t>() + 16,
        },
        HIP | MARKER => match abi {
            Abi::V0 => size_of::<sys::rocprofiler_buffer_tracing_hip_api_record_v0_t>(),
            Abi::V1 => size_of::<sys::rocprofiler_buffer_tracing_hip_api_record_v1_t>(),
        },
        HIP_EVENT => size_of::<sys::rocprofiler_buffer_tracing_hip_event_record_t>(),
        _ => 64,
    };
    let size = match c.byte() % 8 {
        0 => 8,
        1 => declared.saturating_sub(8),
        2 => declared + 64,
        3 => usize::from(c.byte()),
        _ => declared,
    }
    .max(8);
    let mut words = vec![0u64; size.div_ceil(8)];
    words[0] = size as u64;
    for w in words.iter_mut().skip(1) {
        *w = match c.byte() % 4 {
            0 => 0,
            1 => u64::from(c.byte() % 8),
            2 => 1_000 + u64::from(c.byte()) * 100,
            _ => c.u64(),
        };
    }
    Built {
        category,
        kind,
        payload: words,
    }
}

fn decode_pipeline(input: &[u8]) -> u64 {
    let mut c = Cursor { b: input, at: 0 };
    let abi = if c.byte() % 2 == 0 { Abi::V0 } else { Abi::V1 };
    let drops = u64::from(c.byte() % 4);
    let mut built = Vec::new();
    while !c.done() && built.len() < 256 {
        built.push(build_record(&mut c, abi));
    }
    let mut headers: Vec<sys::rocprofiler_record_header_t> = built
        .iter_mut()
        .map(|b| {
            // SAFETY: plain C header; all-zero is valid.
            let mut h: sys::rocprofiler_record_header_t = unsafe { std::mem::zeroed() };
            h.__bindgen_anon_1.hash = u64::from(b.category) | (u64::from(b.kind) << 32);
            h.payload = b.payload.as_mut_ptr() as *mut std::ffi::c_void;
            h
        })
        .collect();
    // A null header now and then: the runtime never sends one, the decoder must still cope.
    let mut ptrs: Vec<*const sys::rocprofiler_record_header_t> =
        headers.iter_mut().map(|h| h as *const _).collect();
    if input.len() % 13 == 0 {
        ptrs.push(std::ptr::null());
    }
    let mut store = EventStore::default();
    // SAFETY: every header points to a live payload of at least the size its `size` field
    // states (the buffer was allocated from it); null entries are allowed by the contract.
    unsafe { decode_batch(abi, &kinds(), ptrs.as_ptr(), ptrs.len(), drops, &mut store) };

    let mut col = Collected {
        hostname: "fuzz".into(),
        pid: 1,
        sdk_version: "fuzz".into(),
        start_boottime_ns: 500,
        stop_boottime_ns: 1 << 40,
        agents: vec![
            AgentInfo::for_test(1, AgentType::Cpu, 0),
            AgentInfo::for_test(2, AgentType::Gpu, 0),
            AgentInfo::for_test(3, AgentType::Gpu, 1),
        ],
        ..Collected::default()
    };
    store.add_counters_to(&mut col.counters);
    col.api.append(std::mem::take(&mut store.api));
    // The roctx records as the tool collects them (packed apart), or among the calls as a
    // converted file has them: the join reads both.
    if input.first().is_some_and(|b| b & 1 == 1) {
        for m in std::mem::take(&mut store.marker_records).iter() {
            col.api.push(m.api());
        }
    } else {
        col.marker_records
            .append(std::mem::take(&mut store.marker_records));
    }
    col.kernels.append(std::mem::take(&mut store.kernels));
    store.copies.drain_into(&mut col.copies);
    let c0 = col.counters.clone();
    let decoded = c0.api_records
        + c0.marker_records
        + c0.kernel_records
        + c0.memcpy_records
        + c0.hip_event_records;
    assert_eq!(
        decoded + c0.unknown_kind_records + c0.bad_size_records,
        ptrs.len() as u64,
        "every record decoded or counted: {c0:?}"
    );
    assert_eq!(c0.runtime_dropped, drops);
    let mut symbols = HashMap::new();
    for (i, k) in col.kernels.iter().enumerate().take(8) {
        let name = String::from_utf8_lossy(&input[i.min(input.len())..input.len().min(i + 24)]);
        symbols.insert(
            k.kernel_id,
            KernelSymbol {
                name: Arc::from(name.as_ref()),
                sgpr_count: k.kernel_id as u32,
                arch_vgpr_count: (k.kernel_id >> 8) as u32,
                // From the record too: counts a corrupt symbol may claim, up to u32::MAX each.
                accum_vgpr_count: (k.kernel_id >> 32) as u32,
                group_segment_size: (k.kernel_id >> 40) as u32,
                private_segment_size: (k.kernel_id >> 16) as u32,
            },
        );
    }
    col.symbols = symbols;
    let ids: Vec<u64> = col.api.iter().map(|a| a.correlation_id).take(8).collect();
    // Ranges whose scope and parent ids come from the input: repeats, self-parents and
    // cycles included (the capture never makes those; the join must still end).
    let byte = |i: usize| i64::from(input.get(i).copied().unwrap_or(0));
    for (i, id) in ids.into_iter().enumerate() {
        let text = String::from_utf8_lossy(&input[..input.len().min(8 * (i + 1))]).into_owned();
        let (outer, inner) = (1 + byte(i) % 8, 1 + byte(i + 1) % 8);
        let span = |label: &str, scope: i64, parent: i64| MarkerSpan {
            label: Arc::from(label),
            thread_id: id % 3,
            open_correlation_id: scope as u64,
            close_correlation_id: id,
            start_ns: 600 + i as u64,
            end_ns: 700 + i as u64,
            scope_id: scope,
            parent_scope_id: parent,
            ..MarkerSpan::default()
        };
        col.markers.push(span(&text, outer, byte(i + 2) % 9));
        col.markers
            .push(span("XlaModule:#hlo_module=m#", inner, outer));
        col.scopes.push((id, inner));
    }
    if input.len() % 3 == 0 {
        window_cut_after(&col);
    }
    let trace = join(col);
    let space = build_xspace(&trace);
    let bytes = space.encode_to_vec();
    let back = XSpace::decode(bytes.as_slice()).expect("our own encoding decodes");
    assert_eq!(back.planes.len(), space.planes.len());
    for p in &back.planes {
        for l in &p.lines {
            for e in &l.events {
                assert!(
                    p.event_metadata.contains_key(&e.metadata_id),
                    "{}: event without metadata",
                    p.name
                );
                assert!(e.duration_ps >= 0, "{}: negative duration", p.name);
            }
        }
    }
    back.planes
        .iter()
        .flat_map(|p| &p.lines)
        .map(|l| l.events.len() as u64)
        .sum()
}

/// A capture window cut after the records of `col`: what it hands on to the next window
/// (`model::carry`) and what it keeps, joined apart, show every call and every activity the
/// whole collection shows, each once; for windows written apart and for windows to be
/// merged (which also hold a stream wait for the work after it).
fn window_cut_after(col: &Collected) {
    for windows in [Windows::Apart, Windows::Merged] {
        window_cut_after_as(col, windows);
    }
}

fn window_cut_after_as(col: &Collected, windows: Windows) {
    let mut first = col.clone();
    let Some((held, _)) = hand_off(&mut first, &HandedOn::default(), windows) else {
        return;
    };
    let next = Collected {
        hostname: col.hostname.clone(),
        pid: col.pid,
        sdk_version: col.sdk_version.clone(),
        start_boottime_ns: col.stop_boottime_ns,
        stop_boottime_ns: col.stop_boottime_ns + 1000,
        agents: col.agents.clone(),
        symbols: col.symbols.clone(),
        op_names: col.op_names.clone(),
        ..Collected::default()
    };
    let mut carried = held;
    carried.absorb(next);
    let shown = |t: &Trace| {
        let calls = t
            .host_threads
            .iter()
            .flat_map(|h| &h.events)
            .filter(|e| e.kind == HostEventKind::HipApi)
            .count();
        let activities: usize = t
            .devices
            .iter()
            .flat_map(|d| &d.lines)
            .map(|l| l.events.len())
            .sum();
        (calls, activities)
    };
    let (a, b, whole) = (
        shown(&join(first)),
        shown(&join(carried)),
        shown(&join(col.clone())),
    );
    assert_eq!(
        (a.0 + b.0, a.1 + b.1),
        whole,
        "{windows:?}: kept {a:?}, handed on {b:?}"
    );
}

#[test]
fn fuzz_record_decoding_through_the_whole_pipeline() {
    let mut seeds = Vec::new();
    for abi in [0u8, 1] {
        for kind in 0u8..5 {
            // abi, drops, then one well-formed record of each kind (size choice 7 = declared).
            let mut s = vec![abi, 0, kind, 1, 7];
            s.extend(std::iter::repeat_n(2u8, 48));
            seeds.push(s);
        }
    }
    seeds.push(vec![1, 2, 0, 1, 7, 1, 3, 2, 9, 9, 0, 1, 7, 2, 1, 1]);
    run(
        "records",
        &seeds,
        &[&[0], &[0xff; 8], &[2, 1, 7]],
        decode_pipeline,
    );
}

// ---------------------------------------------------------------------------------------------
// Target 2: roctx annotation text.

fn annotation_text(input: &[u8]) -> u64 {
    let levels: Vec<Arc<str>> = input
        .split(|&b| b == 0)
        .take(16)
        .map(|l| Arc::from(String::from_utf8_lossy(l).as_ref()))
        .collect();
    let p = parse_annotation(&levels, None);
    let joined: Vec<&str> = levels.iter().map(|l| l.as_ref()).collect();
    assert_eq!(p.joined, joined.join("::"), "the stack is written whole");
    assert!(p.metadata.len() <= MAX_KEYS, "{} keys", p.metadata.len());
    if !p.tf_op.is_empty() {
        assert!(
            levels.iter().any(|l| l.contains(p.tf_op.as_str())),
            "tf_op {:?} comes from a level",
            p.tf_op
        );
    }
    let mut keys: Vec<&str> = p.metadata.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    let n = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), n, "first occurrence of a key wins");
    n as u64
}

#[test]
fn fuzz_annotation_text() {
    let seeds: Vec<Vec<u8>> = [
        "XlaModule:#hlo_module=jit_train_step,program_id=42#\0Thunk:#hlo_op=fusion.3#",
        "aten::linear, seq = 12, op_id = 4, sizes = [[8, 16], [16, 16]], input_op_ids = [(1,0)]",
        "train step – 1\0don't\0名前",
        "a#k=\"v,w\",x=[1,2]#",
        "",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let dict: &[&[u8]] = &[
        b"#",
        b"=",
        b",",
        b"\"",
        b"'",
        b"[",
        b"]",
        b"(",
        b")",
        b"::",
        b", seq = ",
        b", op_id = ",
        b", sizes = ",
        b"\0",
        "–".as_bytes(),
        "€".as_bytes(),
        "名".as_bytes(),
        &[0xc3],
        &[0xe2, 0x80],
        b"18446744073709551616",
        b"-9223372036854775809",
        b"1e309",
        b"NaN",
    ];
    run("annotation", &seeds, dict, annotation_text);
}

// ---------------------------------------------------------------------------------------------
// Target 3: damaged profiles → `xplane::merge` (what `rocprof-xplane merge` and
// `ROCPROF_XPLANE_WINDOW_MERGE` read: files a killed job left, or anyone's).

/// Merges a damaged profile with an intact one of the same process: the merge either refuses
/// with an error or writes a file that decodes, holding at least the intact one's events
/// (each input's events are all read, or the merge fails).
fn merge_damaged(input: &[u8]) -> u64 {
    use rocprof_xplane::xplane::merge::merge_files;
    use rocprof_xplane::xplane::{read_xspace, OutputLayout};
    let dir = tempfile::tempdir().unwrap();
    let intact = dir.path().join("intact.xplane.pb");
    std::fs::write(&intact, merge_seed()).unwrap();
    let damaged = dir.path().join("damaged.xplane.pb");
    std::fs::write(&damaged, input).unwrap();
    let layout = OutputLayout {
        log_dir: dir.path().into(),
        run_name: "merged".into(),
        host: "h.1".into(),
        durable: false,
    };
    match merge_files(&[damaged, intact.clone()], &layout) {
        Err(e) => {
            assert!(!e.to_string().is_empty());
            assert!(
                !layout.file_path().exists(),
                "a failed merge left its output"
            );
            0
        }
        Ok((path, m)) => {
            let out = read_xspace(&path).unwrap_or_else(|e| panic!("merged file unreadable: {e}"));
            let events = |s: &XSpace| -> u64 {
                s.planes
                    .iter()
                    .flat_map(|p| &p.lines)
                    .map(|l| l.events.len() as u64)
                    .sum()
            };
            assert_eq!(events(&out), m.events);
            assert!(m.events >= events(&read_xspace(&intact).unwrap()));
            1
        }
    }
}

/// A small profile of ours: the synthetic trace's planes, encoded.
fn merge_seed() -> Vec<u8> {
    let (trace, _) = support::synthetic::synthetic_trace();
    build_xspace(&trace).encode_to_vec()
}

#[test]
fn fuzz_merge_of_damaged_profiles() {
    let seeds = vec![merge_seed(), Vec::new(), vec![0x0a, 0x03, 0x12, 0x01]];
    let dict: &[&[u8]] = &[
        &[0x0a],
        &[0x1a],
        &[0x22],
        &[0x80, 0x80, 0x80, 0x80, 0x00],
        &[0xff, 0xff, 0xff, 0xff, 0x0f],
        &[0x38],
        b"open_at_end",
        b"rocprof_xplane_origin_boottime_ns",
        // A string that is not UTF-8; a varint field written as bytes.
        &[0x2a, 0x02, 0xff, 0xfe],
        &[0x0a, 0x01, 0x00],
    ];
    run("merge", &seeds, dict, merge_damaged);
}
