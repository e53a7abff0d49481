//! The stages that run side by side (`util::threads::side_by_side`): each pair shares nothing
//! it writes, so the join's result is the same on one thread or two. On one thread the
//! helper's stage runs first. Each function here says why its two stages may overlap.

use crate::facts::{ApiRecord, CallFact, Counters, KernelRecord, KernelSymbol, StreamCreation};
use crate::facts::{CopyPtrs, CopyRecord, HipEventOp, HipEventRecord, MemFact, SyncFact};
use crate::model::deps::CallEnds;
use crate::model::memory::LiveMemory;
use crate::model::streams::{StreamKey as LineKey, StreamNumbers};
use crate::model::trace::DeviceEvent;
use crate::model::trace::{LaunchShape, Table};
use crate::store::PackedVec;
use crate::util::threads::side_by_side;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::annotations::{annotate, Annotated, AnnotationIndex, HostCalls, Spanned};
use super::api_index::{ApiIndex, ApiIndexed};
use super::copies::{place_copies, PlacedCopies};
use super::dependencies::{Dependencies, DependencyWork};
use super::device_work::{call_tables, line_sizes, CallActivity, DeviceStage, DeviceWork};
use super::devices::Places;
use super::host_events::{host_events, HostSide};
use super::input::{CarriedDeps, DeviceRecords, Ids, Names};
use super::kernels::{kernel_events, kernel_order};
use super::laps::Beside;
use super::stream_lines::stream_lines;

/// What the call tables stage reads: the facts read at the calls' entry, and the device records
/// (the kernels, from which the HIP devices' planes are learned, and the copies, whose calls'
/// devices are kept).
pub(super) struct CallTablesIn<'a> {
    pub calls: PackedVec<CallFact>,
    pub syncs: &'a mut [SyncFact],
    /// `Carried::producers`, restamped with the stream creations too.
    pub carried_producers: &'a mut [SyncFact],
    pub creations: &'a [StreamCreation],
    pub device: &'a DeviceRecords,
}

/// What the first pair makes.
pub(super) struct Indexed {
    pub annotated: Annotated,
    pub work: DeviceWork,
    /// The kernel records' positions in the order their events are made (`kernel_order`).
    pub kernel_order: Vec<u32>,
    pub beside: Beside,
}

/// The annotations (they read the records, the spans and the scopes) beside the call tables
/// (they read the call and sync facts, the stream creations and the kernels). The kernels'
/// order needs nothing else either: made by whichever side is free first (the annotations are
/// the longer on a run of many calls, the call tables on a run of many dispatches), claimed
/// once, so made once; made here should neither side have claimed it.
pub(super) fn annotations_beside_call_tables(
    threads: usize,
    spanned: Spanned,
    tables: CallTablesIn<'_>,
    places: &mut Places,
    ids: &Ids,
) -> Indexed {
    let kernels = &tables.device.kernels;
    let order_claimed = AtomicBool::new(false);
    let claim_order = || {
        let first = !order_claimed.swap(true, Ordering::Relaxed);
        first.then(|| kernel_order(kernels))
    };
    let ((annotated, order_here), (work, order_beside, beside)) = side_by_side(
        threads,
        (tables, places),
        {
            let claim_order = &claim_order;
            move |(t, places): (CallTablesIn<'_>, &mut Places)| {
                let began = Instant::now();
                let work = call_tables(
                    t.calls,
                    t.syncs,
                    t.carried_producers,
                    t.creations,
                    t.device,
                    places,
                    ids,
                );
                (work, claim_order(), began.elapsed())
            }
        },
        || (annotate(spanned, ids), claim_order()),
    );
    let stage = if order_beside.is_some() {
        "call tables and kernel order"
    } else {
        "call tables"
    };
    Indexed {
        annotated,
        work,
        kernel_order: order_beside
            .or(order_here)
            .unwrap_or_else(|| kernel_order(kernels)),
        beside: Beside {
            stage,
            time: beside,
        },
    }
}

/// What the API index reads: the calls' records, the calls earlier windows wrote
/// (`Carried::launched`) and the sync facts (whose calls' ends it copies out).
pub(super) struct ApiIndexIn<'a> {
    pub records: &'a PackedVec<ApiRecord>,
    pub launched_earlier: Vec<u64>,
    pub syncs: &'a [SyncFact],
}

/// The HIP records' index beside each line's size (they read different records), so that the
/// kernels and copies fill lines made once at their size.
pub(super) fn api_index_beside_line_sizes(
    threads: usize,
    calls: ApiIndexIn<'_>,
    device: &DeviceRecords,
    places: &Places,
    work: &mut DeviceWork,
    ids: &Ids,
) -> (ApiIndexed, Beside) {
    let (api, (sizes, beside)) = side_by_side(
        threads,
        (),
        {
            let work = &*work;
            move |()| {
                let began = Instant::now();
                let sizes = line_sizes(&device.copies, places, work);
                (sizes, began.elapsed())
            }
        },
        || ApiIndex::build(calls.records, ids, calls.launched_earlier, calls.syncs),
    );
    work.reserve_lines(sizes);
    let beside = Beside {
        stage: "line sizes",
        time: beside,
    };
    (api, beside)
}

/// What is made beside the kernels: the copies placed, and what the dependency stage reads.
pub(super) struct BesideKernels<'a> {
    pub copies: Vec<CopyRecord>,
    /// `Carried::memory`: what earlier windows left allocated.
    pub earlier_memory: &'a LiveMemory,
    pub memory: &'a [MemFact],
    pub copy_ptrs: &'a [CopyPtrs],
    pub syncs: Vec<SyncFact>,
    pub carried: CarriedDeps,
    pub hip_events: Vec<(HipEventOp, HipEventRecord)>,
    pub call_ends: CallEnds,
    pub host_salt: u64,
}

/// What the kernels pair makes.
pub(super) struct KernelsDone {
    pub shapes: Table<LaunchShape>,
    pub placed: PlacedCopies,
    pub dependency_work: DependencyWork,
    pub beside: Beside,
}

/// The kernels stage beside what the rest of the join needs of neither the annotations nor
/// the lines: the copies' planes and memory kinds, and the dependency stage's call ends.
pub(super) fn kernels_beside_copies(
    threads: usize,
    kernels: PackedVec<KernelRecord>,
    order: Vec<u32>,
    symbols: &std::collections::HashMap<u64, KernelSymbol>,
    to: DeviceStage<'_>,
    input: BesideKernels<'_>,
) -> KernelsDone {
    let places = to.places;
    let (shapes, (placed, dependency_work, beside)) = side_by_side(
        threads,
        input,
        move |b: BesideKernels<'_>| {
            let began = Instant::now();
            let placed = place_copies(b.copies, b.earlier_memory, b.memory, b.copy_ptrs, places);
            let work =
                DependencyWork::take(b.syncs, b.carried, b.hip_events, b.call_ends, b.host_salt);
            (placed, work, began.elapsed())
        },
        || kernel_events(kernels, order, symbols, to),
    );
    KernelsDone {
        shapes,
        placed,
        dependency_work,
        beside: Beside {
            stage: "copies' places and call ends",
            time: beside,
        },
    }
}

/// What the host events stage reads and adds to.
pub(super) struct HostEventsIn<'a> {
    pub calls: HostCalls,
    pub names: &'a Names,
    /// Freed once the calls are events (the spans read none of it).
    pub activity: CallActivity,
    pub annotations: &'a mut AnnotationIndex,
    pub counters: &'a mut Counters,
}

/// What the stream lines stage reads and changes: the events grouped by line, the planes they
/// go onto, and the run's stream numbers.
pub(super) struct LinesIn<'a> {
    pub lines: BTreeMap<(u32, LineKey), Vec<DeviceEvent>>,
    pub places: &'a mut Places,
    pub numbers: &'a mut StreamNumbers,
}

/// What the stream lines and dependency stages make beside the host events.
pub(super) struct LinesAndDependencies {
    pub dependencies: Dependencies,
    /// The stream lines stage's accounting (the host events stage adds to its own).
    pub counters: Counters,
    pub beside: Beside,
}

/// The host events beside the stream lines and then the dependencies: the host events stage
/// reads no line, plane or stream number, and neither of the others reads a host event, the
/// annotations or the call activity. The dependencies read the lines the stream lines stage
/// put on the planes, so the two go one after the other, on the helper. On one thread the
/// helper's stages go first, so that the dependencies' inputs (the sync facts, the producers
/// made of them, the per-stream index) are freed before the host events, the join's largest
/// output, are built. On two, the stream lines stage prepares its lines on one thread (the
/// other builds the host events); with more it has the rest.
pub(super) fn host_events_beside_lines(
    threads: usize,
    dependency_work: DependencyWork,
    lines: LinesIn<'_>,
    host: HostEventsIn<'_>,
) -> (HostSide, LinesAndDependencies) {
    let lines_threads = if threads < 2 { 1 } else { threads - 1 };
    side_by_side(
        threads,
        (dependency_work, lines),
        move |(w, l): (DependencyWork, LinesIn<'_>)| {
            let began = Instant::now();
            let mut counters = Counters::default();
            let stream_index = stream_lines(
                w.all_syncs(),
                l.places,
                l.lines,
                lines_threads,
                l.numbers,
                &mut counters,
            );
            let dependencies = w.resolve(&stream_index, l.places);
            drop(stream_index);
            LinesAndDependencies {
                dependencies,
                counters,
                beside: Beside {
                    stage: "stream lines and dependencies",
                    time: began.elapsed(),
                },
            }
        },
        || {
            host_events(
                host.calls,
                host.names,
                host.activity,
                host.annotations,
                host.counters,
            )
        },
    )
}
