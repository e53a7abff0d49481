//! Regression guard for finalize's memory that is not a timer: the bytes the join and
//! the writer hold at their peak, counted by a global allocator that tracks live and peak
//! bytes. Counts, not timings: the same input gives the same figures on any machine.
//!
//! A program that holds its own memory to exit (a JAX job does) pays the tool's finalize peak
//! on top of its own, so what the join and the writer hold beside their input and output is
//! what these tests bound.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rocprof_xplane::model::events::{ApiDomain, ApiRecord, Collected};
use rocprof_xplane::model::{Anchor, AnchorPlace, DependencyFlow, Trace};

mod support;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: forwards to the system allocator; the counters are plain atomics (no allocation, no
// re-entrancy).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Counted as the change in size, as the tool's own count (`heap-stats`) does: a large
        // block grows and shrinks in place (glibc `mremap`s what it `mmap`ed), and what a
        // small one copies is small.
        if new_size > layout.size() {
            grew(new_size - layout.size());
        }
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if new_size < layout.size() {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The tests measure one at a time: the counters are process-wide.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Live bytes before `f`, the most held while it ran, and live bytes after (its result kept).
/// Other test threads allocate little while one measures (the lock below keeps the tests of
/// this file apart).
fn measured<T>(f: impl FnOnce() -> T) -> (T, usize, usize, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (
        out,
        before,
        PEAK.load(Ordering::Relaxed),
        LIVE.load(Ordering::Relaxed),
    )
}

/// `n` HIP calls on one thread, each with its record: what the join turns into host events.
fn calls(n: u64) -> Collected {
    Collected {
        start_boottime_ns: 1,
        stop_boottime_ns: 10 * n + 100,
        api: (1..=n)
            .map(|i| ApiRecord {
                domain: ApiDomain::Hip,
                operation: 1,
                correlation_id: i,
                external_id: 0,
                start_ns: 10 * i,
                end_ns: 10 * i + 5,
                thread_id: 7,
            })
            .collect(),
        op_names: [((ApiDomain::Hip, 1), Arc::from("hipGetDevice"))]
            .into_iter()
            .collect(),
        ..Default::default()
    }
}

/// The join gives the call records back as it turns them into host events, and grows each
/// thread's events in steps: at its peak it holds little more than its output and what is
/// left of its input. Making a thread's events whole up front beside every record (and
/// keeping the records to the join's end) would make the peak their sum, which fails this.
#[test]
fn the_join_holds_its_records_or_their_events_not_both() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 200_000;
    let c = calls(n);
    let records = c.api.held_bytes();
    let (trace, _, peak, after) = measured(move || rocprof_xplane::model::join::join(c));
    let events: usize = trace.host_threads.iter().map(|t| t.events.len()).sum();
    assert_eq!(events, n as usize, "every call is an event");
    let over = peak.saturating_sub(after);
    println!(
        "join of {n} calls ({records} B of records): peak {over} B over the trace it made \
         ({:.1} B per call)",
        over as f64 / n as f64
    );
    // The events are 48 B per call, the records 20 B packed: with the two whole side by side
    // the peak is the records' size (and the tables) over the trace.
    assert!(
        over * 4 < records * 3,
        "the join's peak is {over} B over its output, with {records} B of records: the \
         records and their events were held whole together"
    );
}

/// The dependency pass takes the sync facts from the end as it makes the sync calls, so the
/// two are never held whole together: the facts, a sorted list of references to them and the
/// calls (room made for all at once) held together would be the MaxText-sized run's peak.
#[test]
fn the_dependency_pass_holds_its_sync_facts_or_their_calls_not_both() {
    use rocprof_xplane::model::events::{SyncFact, SyncKind};
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 1_000_000u64;
    // Host syncs of one stream, one thread's worth after another's (ids interleave).
    let syncs: Vec<SyncFact> = (0..n)
        .map(|i| SyncFact {
            correlation_id: 1 + (i % 4) * n + i / 4,
            kind: SyncKind::StreamSynchronize,
            event: 0,
            stream: 0,
            device: 0,
            stream_seq: 0,
        })
        .collect();
    let facts = std::mem::size_of_val(syncs.as_slice());
    let c = Collected {
        start_boottime_ns: 1,
        stop_boottime_ns: 100,
        syncs,
        ..Default::default()
    };
    let (trace, _, peak, after) = measured(move || rocprof_xplane::model::join::join(c));
    assert_eq!(
        trace.sync_calls.len(),
        n as usize,
        "every sync call is kept"
    );
    let over = peak.saturating_sub(after);
    println!(
        "join of {n} sync facts ({facts} B): peak {over} B over the trace it made \
         ({:.1} B per call)",
        over as f64 / n as f64
    );
    // Whole together, the peak is over the calls by the facts and their references (56 B a
    // call); taken from the end, by the sort's scratch and a growth step.
    assert!(
        over * 2 < facts,
        "the join's peak is {over} B over its output, with {facts} B of sync facts: the \
         facts and their calls were held whole together"
    );
}

/// `n` launches on one thread and one stream (`support::synthetic::launches`), every fourth
/// with a dependency arrow from its kernel's end to the next call (both ends anchored on lines
/// that hold many events).
fn launches_with_arrows(n: u64) -> Trace {
    let mut trace = support::synthetic::launches(n);
    let (kernels, calls) = (&trace.devices[0].lines[0].events, &trace.host_threads[0]);
    trace.dependency_flows = (0..kernels.len() - 1)
        .step_by(4)
        .map(|i| DependencyFlow {
            id: i as u64 + 1,
            wait_correlation_id: calls.events[i + 1].correlation_id,
            record_correlation_id: kernels[i].correlation_id,
            from: Anchor::on_device(0, 0, kernels[i].end_ns),
            to: Anchor {
                place: AnchorPlace::Host { tid: calls.tid },
                time_ns: calls.events[i + 1].start_ns,
            },
        })
        .collect();
    trace
}

/// The writer holds one plane's bytes at a time and little else: a line's arrows are written
/// among its events in time order (appended after them, they would make the line sort itself:
/// an index of 32 B per event and a sorted copy of the whole line), and no table over every
/// call's id is made (it would take 16 B per call, for the few calls that are copies).
#[test]
fn the_writer_holds_about_one_plane_beyond_the_trace() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 100_000;
    let trace = launches_with_arrows(n);
    let mut largest = 0usize;
    let (_, before, peak, _) = measured(|| {
        rocprof_xplane::xplane::build_planes(&trace, |p| {
            largest = largest.max(p.encoded_len());
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap()
    });
    let over = peak - before;
    println!(
        "writing {n} launches with {} arrows: largest plane {largest} B, peak {over} B over \
         the trace ({:.2}× the plane)",
        trace.dependency_flows.len(),
        over as f64 / largest as f64
    );
    assert!(
        largest > 40 * n as usize,
        "{n} launches in a plane of {largest} B"
    );
    assert!(
        over < largest * 2,
        "the writer held {over} B beyond the trace for a largest plane of {largest} B"
    );
}

/// A capture's reply (xprof's Capture Profile, a snapshot) is the XSpace's bytes, built as the
/// file writer builds planes: it holds about those bytes beyond the trace. Built as messages
/// and then encoded, it held the messages (several times the bytes) beside the bytes, in a
/// program that is still running.
#[test]
fn a_capture_reply_holds_its_bytes_not_the_messages() {
    use prost::Message;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 100_000;
    let trace = launches_with_arrows(n);
    let (bytes, before, peak, _) =
        measured(|| rocprof_xplane::server::capture::profile_of_trace(&trace, "h", 1).into_bytes());
    let over = peak - before;
    let (_, before, messages_peak, _) =
        measured(|| rocprof_xplane::xplane::build_xspace(&trace).encode_to_vec());
    let messages = messages_peak - before;
    println!(
        "a capture reply of {n} launches: {} B; peak {over} B over the trace ({:.2}× the \
         reply); as messages then encoded: {messages} B ({:.2}×)",
        bytes.len(),
        over as f64 / bytes.len() as f64,
        messages as f64 / bytes.len() as f64
    );
    assert!(
        over < bytes.len() * 2,
        "the reply held {over} B beyond the trace for {} B",
        bytes.len()
    );
    assert!(over * 4 < messages, "{over} B against {messages} B");
}

/// With the lines set aside in a file past a size (`xplane::spill`, as the file writer does),
/// the writer holds about one line beyond the trace, not the largest plane: the plane's
/// length comes first on the wire, so its lines were all held until its end (the stress run's
/// device plane of a million kernels, about 60 MB, at the writer's peak). Sixteen streams of
/// 12,500 kernels and sixteen threads of 12,500 calls: each plane is sixteen lines.
#[test]
fn the_writer_holds_about_one_line_when_lines_are_set_aside() {
    use rocprof_xplane::model::DeviceLine;
    use rocprof_xplane::xplane::spill::SpillPolicy;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 200_000;
    let mut trace = launches_from_sixteen_threads(n);
    let all = std::mem::take(&mut trace.devices[0].lines);
    let events: Vec<_> = all.into_iter().flat_map(|l| l.events).collect();
    let per = events.len().div_ceil(16);
    trace.devices[0].lines = events
        .chunks(per)
        .enumerate()
        .map(|(i, e)| DeviceLine {
            id: i as i64,
            name: format!("Stream {i}"),
            events: e.to_vec(),
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let spill = SpillPolicy::past(dir.path(), 1 << 20);
    let mut largest = 0usize;
    let mut set_aside = 0usize;
    let (_, before, peak, _) = measured(|| {
        rocprof_xplane::xplane::build_planes_spilling(&trace, Some(&spill), 1, |p| {
            largest = largest.max(p.encoded_len());
            set_aside += p.spilled_bytes();
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap()
    });
    let over = peak - before;
    println!(
        "writing {n} launches on 16 streams, lines set aside past 1 MiB: largest plane \
         {largest} B, {set_aside} B set aside, peak {over} B over the trace ({:.2}× the plane)",
        over as f64 / largest as f64
    );
    assert!(set_aside > largest / 2, "the lines went to the file");
    assert!(
        over < largest / 2,
        "the writer held {over} B beyond the trace for a largest plane of {largest} B"
    );
    // The same trace with its lines held in memory, for comparison.
    let (_, before, peak, _) = measured(|| {
        rocprof_xplane::xplane::build_planes(&trace, |_| Ok::<(), std::convert::Infallible>(()))
            .unwrap()
    });
    let held = peak - before;
    println!(
        "… with the lines held: peak {held} B over the trace ({:.2}× the plane)",
        held as f64 / largest as f64
    );
    assert!(over < held / 2, "set aside {over} B, held {held} B");
}

/// A launch storm's shape: `n` launches and their kernels on one stream, the calls made from
/// sixteen threads.
fn launches_from_sixteen_threads(n: u64) -> Trace {
    let mut trace = support::synthetic::launches(n);
    let thread = std::mem::take(&mut trace.host_threads).remove(0);
    let per = thread.events.len().div_ceil(16);
    trace.host_threads = thread
        .events
        .chunks(per)
        .enumerate()
        .map(|(i, e)| rocprof_xplane::model::HostThread {
            tid: thread.tid + i as u64,
            name: String::new(),
            events: e.to_vec(),
        })
        .collect();
    trace
}

/// The last write of a trace takes its host events out of it (`xplane::HostEvents::take`) and
/// frees each thread's once its lines are encoded: the writer's peak then holds the events not
/// yet written, not all of them beside the planes being built. Sixteen threads of 12,500 calls
/// and their kernels, the lines set aside past 1 MiB as the file writer does: when the host
/// plane is done, its calls are gone; kept to the end, they are still held there.
#[test]
fn the_last_write_frees_each_threads_events_once_written() {
    use rocprof_xplane::xplane::spill::SpillPolicy;
    use rocprof_xplane::xplane::HostEvents;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 200_000;
    let mut trace = launches_from_sixteen_threads(n);
    let calls: usize = trace
        .host_threads
        .iter()
        .map(|t| std::mem::size_of_val(t.events.as_slice()))
        .sum();
    let dir = tempfile::tempdir().unwrap();
    let spill = SpillPolicy::past(dir.path(), 1 << 20);
    // The live bytes when the host plane (the first) is handed over, and the write's peak.
    let build = |trace: &Trace, host: HostEvents<'_>| {
        let mut at_host_plane = None;
        let (_, before, peak, _) = measured(|| {
            rocprof_xplane::xplane::build_window_planes(trace, host, Some(&spill), 1, None, |_| {
                at_host_plane.get_or_insert(LIVE.load(Ordering::Relaxed));
                Ok::<(), std::convert::Infallible>(())
            })
            .unwrap()
        });
        (
            at_host_plane.unwrap() as isize - before as isize,
            peak - before,
        )
    };
    let (kept_at_host, kept_peak) = build(&trace, HostEvents::of(&trace));
    let taken = HostEvents::take(&mut trace);
    let (freed_at_host, freed_peak) = build(&trace, taken);
    println!(
        "writing {n} launches from 16 threads ({calls} B of calls): at the host plane's end \
         {kept_at_host} B over the trace with the calls kept, {freed_at_host} B with them freed \
         as written; peak {kept_peak} B and {freed_peak} B over it"
    );
    assert!(
        freed_at_host < -(calls as isize) / 2,
        "the host plane is done, and {freed_at_host} B over the trace are held: the calls \
         ({calls} B) were not freed as they were written"
    );
    assert!(
        kept_at_host > -(calls as isize) / 2,
        "kept, the calls are held"
    );
    assert!(
        freed_peak <= kept_peak,
        "{freed_peak} B against {kept_peak} B"
    );
}

/// A stream a sync call names gets an index of its events for the arrows' anchors (16 B per
/// event), sorted in place with the times read from the events: sorted as a copy of every
/// event's id, times and place (32 B per event) and then copied, both were held at once, on
/// both threads' streams (the join's top on a run of a few long streams).
#[test]
fn a_named_streams_index_holds_no_copy_of_its_times() {
    use rocprof_xplane::model::streams::{prepare_line, StreamKey};
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 200_000;
    let mut trace = support::synthetic::launches(n);
    let events = std::mem::take(&mut trace.devices[0].lines[0].events);
    drop(trace);
    let (line, before, peak, _) =
        measured(move || prepare_line(((0, StreamKey::Null), events, true)));
    let over = peak - before;
    drop(line);
    println!("a named stream of {n} events: its index took {over} B at the top");
    assert!(
        over < 24 * n as usize,
        "{over} B for the index of {n} events: a copy of their times was held beside it"
    );
}

/// One allocation among a hundred thousand launches: the memory line (xprof's memory profile)
/// looks up the allocating calls only: a table of every HIP call made to find them would raise
/// the writer's peak by about 10 B per call, which fails this; one allocation leaves the peak
/// as it was.
#[test]
fn the_memory_line_looks_up_only_the_allocating_calls() {
    use rocprof_xplane::model::events::MemKind;
    use rocprof_xplane::model::memory::MemoryEvent;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 100_000;
    let mut trace = support::synthetic::launches(n);
    let peak_of = |trace: &Trace| {
        let (_, before, peak, _) = measured(|| {
            rocprof_xplane::xplane::build_planes(trace, |_| Ok::<(), std::convert::Infallible>(()))
                .unwrap()
        });
        peak - before
    };
    let without = peak_of(&trace);
    let call = &trace.host_threads[0].events[n as usize / 2];
    trace.memory.push(MemoryEvent {
        time_ns: call.end_ns,
        thread_id: trace.host_threads[0].tid,
        correlation_id: call.correlation_id,
        alloc: true,
        allocator: Arc::from("GPU_0"),
        kind: MemKind::Device,
        address: 0x7f00_0000_0000,
        bytes: 1 << 20,
        in_use: 1 << 20,
        peak: 1 << 20,
    });
    let with = peak_of(&trace);
    println!("writing {n} launches: peak {without} B over the trace, {with} B with one allocation");
    assert!(
        with < without + 64 * 1024,
        "one allocation took the writer's peak from {without} B to {with} B"
    );
}

/// `n` kernel launches on one thread and one stream, each with its call's record, its facts
/// read at entry and its kernel's record; the ids two apart (a roctx range's push and pop
/// around every two launches take the others, as in the launch storm).
fn launches_with_kernels(n: u64) -> Collected {
    use rocprof_xplane::model::events::{AgentInfo, AgentType, CallFact, KernelRecord};
    const GPU: u64 = 0x1000;
    let corr = |i: u64| 2 * i + 1 + i / 2 * 2;
    Collected {
        start_boottime_ns: 1,
        stop_boottime_ns: 100 * n + 100,
        agents: vec![AgentInfo::for_test(GPU, AgentType::Gpu, 0)],
        api: (0..n)
            .map(|i| ApiRecord {
                domain: ApiDomain::Hip,
                operation: 214,
                correlation_id: corr(i),
                external_id: 0,
                start_ns: 100 * i + 10,
                end_ns: 100 * i + 15,
                thread_id: 7,
            })
            .collect(),
        calls: (0..n)
            .map(|i| CallFact {
                correlation_id: corr(i),
                stream: 0x5000,
                device: 0,
                stream_seq: 0,
            })
            .collect(),
        kernels: (0..n)
            .map(|i| KernelRecord {
                correlation_id: corr(i),
                external_id: 0,
                start_ns: 100 * i + 20,
                end_ns: 100 * i + 90,
                thread_id: 7,
                agent: GPU,
                queue: 0x9000,
                kernel_id: 1,
                dispatch_id: i + 1,
                private_segment_size: 0,
                group_segment_size: 0,
                workgroup: [256, 1, 1],
                grid: [65536, 1, 1],
                pipe_id: None,
            })
            .collect(),
        op_names: [((ApiDomain::Hip, 214), Arc::from("hipLaunchKernel"))]
            .into_iter()
            .collect(),
        ..Default::default()
    }
}

/// The kernels stage is the join's top on a run of launches: its input's records not yet
/// events beside the events made, and the tables the stages before it made. Of those, it reads
/// only the stream each call named, whether a call has its record and the calls' annotations:
/// the records' positions (4 B per id, for the few calls the dependency stage reads) and the
/// device each call was issued to (4 B per id, for the copies) are not held to it. The tables
/// it reads take a slot per call, not per id of the run (here two ids a launch).
#[test]
fn the_kernels_stage_holds_no_table_it_does_not_read() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 200_000;
    let c = launches_with_kernels(n);
    let (trace, before, peak, after) = measured(move || rocprof_xplane::model::join::join_on(c, 1));
    let events: usize = trace
        .devices
        .iter()
        .flat_map(|d| &d.lines)
        .map(|l| l.events.len())
        .sum();
    assert_eq!(events, n as usize, "every kernel is an event");
    let over = peak.saturating_sub(before.max(after));
    println!(
        "join of {n} launches: input {before} B, trace {after} B, peak {over} B over the larger \
         ({:.1} B per launch)",
        over as f64 / n as f64
    );
    // The joined events take more than the records do (48 B a kernel's event and 40 B a
    // call's; 24 B a stored dispatch, 20 B a stored call and 8 B its facts), so the peak is
    // over the events: the kernel records not yet events beside the events made, and the
    // tables it reads, about
    // 14 B per launch. Each table over every id of the range (two ids per launch, 4 B each),
    // not by call, adds 8 B per launch; the two tables held to the kernels stage add that and
    // what they hold beside the kernel records.
    assert!(
        over < 18 * n as usize,
        "the join's peak is {over} B over its input or output for {n} launches: a table over \
         every id (not by call), or one the kernels stage does not read, was held to it"
    );
}

/// The join reads the calls' records packed, as the stores hold them (20 B a call), to the
/// host events, each chunk freed once its calls are events: unpacked to 48 B each, they were
/// held through the kernels stage beside the device events being made (16 B a call more at
/// the join's top), which fails this. So does an activity table of 8 B per id held through the
/// kernels stage where 4 B do, or the per-call tables over every id of the run (here two ids a
/// launch) where they take a slot per call. The top counts the collection made and joined.
#[test]
fn the_join_holds_the_calls_records_packed() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 200_000u64;
    let (trace, before, peak, _) = measured(move || {
        let c = launches_with_kernels(n);
        rocprof_xplane::model::join::join_on(c, 1)
    });
    let calls: usize = trace.host_threads.iter().map(|t| t.events.len()).sum();
    assert_eq!(calls, n as usize, "every call is an event");
    let top = peak - before;
    println!(
        "a collection of {n} launches made and joined: top {top} B ({:.1} B per launch)",
        top as f64 / n as f64
    );
    assert!(
        top < 102 * n as usize,
        "the join's top is {top} B for {n} launches: the calls' records were unpacked, the \
         activity table is 8 B per id, or the per-call tables span every id"
    );
}

/// The ids a window hands on, with how many times each was (`carry::HandedOn`), go to the next
/// window and are read there once per call up to the largest: a window whose device runs
/// behind hands on its latest calls by the hundred thousand. A bit table over their range and
/// a count per id keep about 4.5 B an id; a hash map of them kept about 22 B (its table of 16 B
/// entries and control bytes at most 7/8 full, rounded up to a power of two), which fails this.
#[test]
fn the_ids_a_window_hands_on_keep_a_few_bytes_each() {
    use rocprof_xplane::model::carry::HandedOn;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 200_000u64;
    // Every other id, as when each launch's call is followed by a roctx call's.
    let (ids, before, _, after) =
        measured(move || (1..=n).map(|i| (2 * i, 1u32)).collect::<HandedOn>());
    assert_eq!(ids.len(), n as usize);
    assert_eq!(ids.get(&(2 * n)), Some(&1));
    assert_eq!(ids.get(&3), None);
    let kept = after - before;
    println!(
        "{n} ids handed on: {kept} B ({:.1} B per id)",
        kept as f64 / n as f64
    );
    assert!(
        kept < 8 * n as usize,
        "{kept} B kept for {n} ids handed on: a hash map of them, or a slot per id of the range"
    );
}

/// Finalize's drain gathers every application thread's facts into one vector per kind, each
/// grown in two steps toward its count: made one kind after another, what it holds beyond the
/// facts is one vector's room at a time. Filled thread by thread, every kind's room was held
/// at once (the launch storm's finalize top, above the join's), which fails this. The calls'
/// and the scopes' chunks move as they are: copied, the scopes' output room (grown in eighths,
/// 2 B a scope) was held beside the chunks not yet moved, which fails this too.
#[test]
fn the_drain_holds_one_kinds_room_at_a_time() {
    use rocprof_xplane::capture::threads::Threads;
    use rocprof_xplane::model::events::CallFact;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (threads, per) = (16u64, 12_500u64);
    let registry = Threads::default();
    std::thread::scope(|sc| {
        for tid in 1..=threads {
            let registry = &registry;
            sc.spawn(move || {
                registry.with_current(tid, |t| {
                    for i in 0..per {
                        let corr = tid * 1_000_000 + i;
                        t.calls.push(CallFact {
                            correlation_id: corr,
                            stream: 0x5000 + tid,
                            device: 0,
                            stream_seq: 0,
                        });
                        t.scopes.push((corr, i as i64));
                    }
                });
            });
        }
    });
    let (drained, before, peak, after) = measured(|| registry.drain(0, false));
    let n = (threads * per) as usize;
    assert_eq!((drained.calls.len(), drained.scopes.len()), (n, n));
    let over = peak.saturating_sub(before.max(after));
    // The calls' bytes unpacked (the drain keeps them packed).
    let calls = n * std::mem::size_of::<CallFact>();
    println!(
        "drain of {n} calls and scopes from {threads} threads: facts {before} B, drained \
         {after} B, peak {over} B over the larger ({calls} B of calls unpacked)"
    );
    // The calls' chunks move packed and the scopes' with their last chunks' room given back:
    // the drained facts hold no more than the threads' did. Unpacked, the calls alone held 16 B
    // a call more.
    assert!(
        after <= before,
        "the drained facts hold {after} B, the threads' {before} B: the calls were unpacked"
    );
    // Filled side by side, every kind's room held at once reached half the calls' bytes.
    assert!(
        over * 10 < calls,
        "the drain held {over} B over its facts or its output, with {calls} B of calls: \
         every kind's room was held at once"
    );
    // Moved, the calls and the scopes add only the lists of their chunks (a few hundred,
    // 24 B each); copied, the scopes' room in eighths is 2 B a scope.
    assert!(
        over < 64 << 10,
        "the drain held {over} B over its facts or its output for {n} scopes: were they copied?"
    );
}

/// With the host events freed as written, a device plane built on a second thread starts once
/// the host plane has freed what it will hold (`xplane::space::threads::HostProgress`): the
/// write on two threads then holds no more than on one. A launch storm's shape: sixteen
/// threads of 12,500 calls and their 200,000 kernels on one stream, whose one line is about as
/// large as the host events. Built side by side from the start, that line was held beside the
/// host events not yet written (the writer's top, above the join's), which fails this.
#[test]
fn a_second_plane_thread_holds_no_more_than_one() {
    use rocprof_xplane::xplane::spill::SpillPolicy;
    use rocprof_xplane::xplane::HostEvents;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 200_000;
    let trace = launches_from_sixteen_threads(n);
    let dir = tempfile::tempdir().unwrap();
    let spill = SpillPolicy::past(dir.path(), 1 << 20);
    let peak_on = |threads: usize| {
        let mut trace = trace.clone();
        let host = HostEvents::take(&mut trace);
        let (_, before, peak, _) = measured(|| {
            rocprof_xplane::xplane::build_window_planes(
                &trace,
                host,
                Some(&spill),
                threads,
                None,
                |_| Ok::<(), std::convert::Infallible>(()),
            )
            .unwrap()
        });
        peak - before
    };
    let (one, two) = (peak_on(1), peak_on(2));
    let line: usize = trace.devices[0]
        .lines
        .iter()
        .map(|l| l.events.len())
        .sum::<usize>()
        * 40;
    println!(
        "writing {n} launches from 16 threads on one stream: peak {one} B over the trace on one \
         thread, {two} B on two (the device line about {line} B)"
    );
    assert!(
        two < one + line / 4,
        "on two threads the write held {two} B over the trace, on one {one} B: the device \
         plane was built beside the host events not yet written"
    );
}
