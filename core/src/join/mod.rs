//! The correlation join: API records ↔ every device activity they caused, into a `Trace`.
//!
//! Runs once per profile (or capture window), at finalize, over everything collected: sorting
//! there beats a locked hash map on the hot path. Rules that matter (each has a test):
//! * every activity record is kept, including all N dispatches sharing one correlation id
//!   (`hipGraphLaunch`), and activities whose correlation id matches no API record (counted);
//! * launch/copy APIs that produced no activity are kept on the host (counted);
//! * unknown kernel ids are named by id (counted);
//! * output order depends only on the data, never on delivery order, handle values or the
//!   number of threads.
//!
//! The join is a sequence of named stages (`join_numbered`), one module each, over the
//! collection taken apart into named parts (`input`): this window's records and facts, and
//! apart from them what the run's other capture windows carried in (`model::Carried`). Each
//! stage reads what the stages before it built and adds to the output; the records are freed
//! as soon as they are events. Stages that share nothing they write run side by side on two
//! threads (`schedule`).

mod annotations;
mod api_index;
mod copies;
mod dependencies;
mod device_work;
mod devices;
mod host_events;
mod input;
mod kernels;
mod laps;
mod pmc;
mod schedule;
mod stream_lines;
mod time_window;

#[cfg(test)]
mod tests;

pub use crate::util::threads::{cores, side_by_side};
pub use kernels::unknown_kernel_name;

use crate::facts::{HipEventOp, HipEventRecord, SyncFact};
use crate::model::collected::Collected;
use crate::model::streams::StreamNumbers;
use crate::model::Trace;

use annotations::Spanned;
use device_work::DeviceStage;
use input::{Ids, Input};
use laps::Laps;
use schedule::{ApiIndexIn, BesideKernels, CallTablesIn, HostEventsIn, LinesIn};

/// The join, on as many threads as this process may use (two at most: `schedule`).
pub fn join(c: Collected) -> Trace {
    join_on(c, cores())
}

/// [`join`] on at most `threads` threads (1: every stage on this one).
pub fn join_on(c: Collected, threads: usize) -> Trace {
    join_numbered(c, threads, &mut StreamNumbers::default())
}

/// [`join_on`] with the stream numbers earlier capture windows of the run gave (`numbers`,
/// which gets this window's new streams): a stream keeps its `Stream #N` in every window.
pub fn join_numbered(c: Collected, threads: usize, numbers: &mut StreamNumbers) -> Trace {
    let mut laps = Laps::start();
    let Input {
        header,
        agents,
        host,
        device,
        mut facts,
        names,
        mut carried,
        mut counters,
        mut warnings,
    } = Input::split(c);
    let mut places = devices::place_devices(&agents, &device.kernels, &mut warnings);
    // The correlation ids of the calls: the per-call tables are vectors over them.
    let ids = Ids::of(&host);

    let tables = CallTablesIn {
        calls: std::mem::take(&mut facts.calls),
        syncs: &mut facts.syncs,
        carried_producers: &mut carried.deps.producers,
        creations: &facts.stream_creations,
        device: &device,
    };
    let spanned = Spanned::new(host, carried.labels);
    let indexed =
        schedule::annotations_beside_call_tables(threads, spanned, tables, &mut places, &ids);
    laps.lap_beside("annotations", Some(indexed.beside));
    let (mut work, host_calls) = (indexed.work, indexed.annotated.calls);
    let mut annotations = indexed.annotated.index;

    let (indexed_api, beside) = schedule::api_index_beside_line_sizes(
        threads,
        ApiIndexIn {
            records: &host_calls.api,
            launched_earlier: std::mem::take(&mut carried.launched),
            syncs: &facts.syncs,
        },
        &device,
        &places,
        &mut work,
        &ids,
    );
    laps.lap_beside("api index", Some(beside));
    let api = indexed_api.index;

    // At most one activity entry per dispatch or copy (a graph launch's share one): room
    // once, as for the issued devices.
    work.calls
        .activity_of
        .reserve(device.kernels.len() + device.copies.len());
    let beside_kernels = BesideKernels {
        copies: device.copies,
        earlier_memory: &carried.memory,
        memory: &facts.memory,
        copy_ptrs: &facts.copy_ptrs,
        syncs: facts.syncs,
        carried: carried.deps,
        hip_events: facts.hip_events,
        call_ends: indexed_api.call_ends,
        host_salt: crate::model::deps::host_salt(&header.hostname, header.pid),
    };
    let mut stage = DeviceStage {
        places: &places,
        api: &api,
        annotations: &mut annotations,
        work: &mut work,
        counters: &mut counters,
    };
    let (kernels, order) = (device.kernels, indexed.kernel_order);
    let symbols = &names.symbols;
    let done = schedule::kernels_beside_copies(
        threads,
        kernels,
        order,
        symbols,
        stage.reborrow(),
        beside_kernels,
    );
    laps.lap_beside("kernels", Some(done.beside));
    copies::copy_events(done.placed, stage, &mut warnings);
    let kernel_counters = pmc::kernel_counters(device.counter_values, &agents);
    let device_counters = pmc::device_counters(&device.device_samples, &mut warnings);
    // The device records are events now (the kernel records were freed as they became
    // events): free the rest before the host events are built.
    places.forget_issued_devices();
    work.forget_call_streams();
    drop(facts.copy_ptrs);
    // The HIP records' index has served its last stage: its set of calls is the trace's.
    let written_calls = api.into_written();
    laps.lap("copies");

    // The streams the sync calls name get numbers too, and those of the records carried in
    // (a wait may resolve to them): the stream lines stage reads the dependency stage's
    // sync facts before that stage resolves them, both beside the host events.
    let graph_nodes = work.take_graph_nodes();
    let lines = LinesIn {
        lines: work.take_lines(),
        places: &mut places,
        numbers,
    };
    let host = HostEventsIn {
        calls: host_calls,
        names: &names,
        activity: work.take_call_activity(),
        annotations: &mut annotations,
        counters: &mut counters,
    };
    let (host_side, beside) =
        schedule::host_events_beside_lines(threads, done.dependency_work, lines, host);
    let dependencies = beside.dependencies;
    counters += &beside.counters;
    counters += &dependencies.counters;
    laps.lap_beside("host events", Some(beside.beside));

    let sampled = &device_counters;
    let window = time_window::time_window(&header, host_side.span, &places.devices, sampled);
    crate::log_debug!("join passes: {laps}");
    let (memory, frees_unmatched) = crate::model::memory::timeline(&carried.memory, &facts.memory);
    counters.memory_frees_unmatched += frees_unmatched;

    Trace {
        hostname: header.hostname,
        pid: header.pid,
        sdk_version: header.sdk_version,
        step_rule: header.step_rule,
        start_boottime_ns: window.start,
        stop_boottime_ns: window.stop,
        start_covers_events: true,
        start_walltime_ns: window.start_wall,
        stop_walltime_ns: window.stop_wall,
        clock: header.clock,
        devices: places.devices,
        host_threads: host_side.threads,
        scope_tree: indexed.annotated.scope_tree,
        sync_calls: dependencies.sync_calls,
        dependency_flows: dependencies.flows,
        record_anchors: dependencies.record_anchors,
        stream_tails: dependencies.stream_tails,
        written_calls,
        memory,
        names: host_side.names,
        annotations: annotations.table,
        shapes: done.shapes,
        graph_nodes,
        graph_launches: host_side.graph_launches,
        kernel_counters,
        device_counters,
        counters,
        warnings,
    }
}

/// What running stages side by side (`schedule`) holds beyond what one thread holds running
/// them one after the other, at most: the call tables' per-call vectors and the kernels' order, made
/// while the annotations' are (about 12 B per call and per kernel), the copies' placing
/// maps (their directions and memory kinds by correlation id, about 32 B per copy) while
/// the kernels grow, or what the stream lines and dependency stages hold while the host
/// events grow: the lines' index of activities (16 B per device event), a line's sort
/// scratch (half its events, at most 24 B per device event), with three threads or more a
/// second line being prepared (32 B per event and its scratch, 32 B: at most half the device
/// events are on the other thread's lines), and the dependency stage's inputs (the sync
/// facts, the producers made of them, the call ends, 24 B each).
pub fn beside_bytes(c: &Collected) -> usize {
    use std::mem::size_of;
    let tables = (c.api.len() + c.kernels.len()) * 3 * size_of::<u32>();
    let placing = c.copies.len() * 4 * size_of::<u64>();
    let events = c.kernels.len() + c.copies.len();
    let lines = events * 40 + events / 2 * 64;
    let ends = size_of::<u64>() + size_of::<crate::model::deps::CallEnd>();
    let dependencies = c.syncs.len()
        * (size_of::<SyncFact>() + size_of::<crate::model::deps::Producer>() + ends)
        + c.hip_events.len() * size_of::<(HipEventOp, HipEventRecord)>();
    tables.max(placing).max(lines + dependencies)
}
