//! The copies stage, in two halves: placing each memory copy (its plane, its sides' memory
//! kinds: `place_copies`), which needs neither the annotations nor the lines and so runs beside
//! the kernels stage, then making the placed copies events on their lines (`copy_events`).

use crate::facts::{CopyPtrs, CopyRecord, Counters, MemFact};
use crate::fastmap::HashMap;
use crate::hip::ops::copy_direction;
use crate::model::graph;
use crate::model::memory::{copy_kinds, LiveMemory};
use crate::model::streams::StreamKey as LineKey;
use crate::model::trace::{CopyDirection, DeviceEvent, DeviceEventKind, MemcpyInfo};

use super::device_work::{usable_span, DeviceStage};
use super::devices::{copy_plane, Places};

/// Every memory copy placed on the plane of the device it was issued to (its stream's device,
/// as CUPTI reports it) when the HIP callback saw the call, else on its GPU end, with the
/// memory kinds of its two sides: from this window's allocations (`memory`) and those earlier
/// windows left live (`earlier`, `Carried::memory`).
pub(super) fn place_copies(
    mut copies: Vec<CopyRecord>,
    earlier: &LiveMemory,
    memory: &[MemFact],
    copy_ptrs: &[CopyPtrs],
    places: &Places,
) -> PlacedCopies {
    crate::util::sort::sort_by_time(
        &mut copies,
        |m| m.start_ns,
        |m| {
            (
                m.end_ns,
                m.correlation_id,
                m.operation,
                m.bytes,
                m.src_agent,
                m.dst_agent,
            )
        },
    );
    let mut placed = PlacedCopies {
        copies: Vec::with_capacity(copies.len()),
        counters: Counters::default(),
        without_gpu: 0,
    };
    let gpu_count = places.ordinal_of.len();
    // Memory kinds of each copy's two sides, from the allocations live at its call.
    let directions: HashMap<u64, CopyDirection> = copies
        .iter()
        .map(|m| (m.correlation_id, copy_direction(m.operation)))
        .collect();
    let sides = |corr| directions.get(&corr)?.gpu_sides();
    let copy_kinds = copy_kinds(earlier, memory, copy_ptrs, sides);
    drop(directions);
    for m in &copies {
        let Some((start_ns, end_ns)) = usable_span(m.start_ns, m.end_ns, &mut placed.counters)
        else {
            continue;
        };
        let Some(dev) = copy_plane(m, places, gpu_count) else {
            placed.without_gpu += 1;
            continue;
        };
        let (graph, external) = graph::split(m.external_id);
        let e = DeviceEvent {
            start_ns,
            end_ns,
            correlation_id: m.correlation_id,
            kind: DeviceEventKind::Memcpy(Box::new(MemcpyInfo {
                direction: copy_direction(m.operation),
                bytes: m.bytes,
                src_device: places.ordinal_of.get(&m.src_agent).copied(),
                dst_device: places.ordinal_of.get(&m.dst_agent).copied(),
                kinds: copy_kinds.get(&m.correlation_id).copied(),
            })),
            annotation: None,
            graph: None,
        };
        placed.copies.push(PlacedCopy {
            plane: dev,
            external_id: external,
            graph,
            event: e,
        });
    }
    placed
}

/// The copies as events in time order, not yet annotated nor on a line; and what placing them
/// counted.
pub(super) struct PlacedCopies {
    copies: Vec<PlacedCopy>,
    counters: Counters,
    /// Copies with no GPU to be placed on (none enumerated): warned of.
    without_gpu: u64,
}

/// A copy's event, its plane, its record's external correlation id (for its annotation) and
/// the graph node it was (named by id once on its line).
struct PlacedCopy {
    plane: u32,
    external_id: u64,
    graph: Option<graph::GraphNode>,
    event: DeviceEvent,
}

/// Each placed copy, annotated, on its stream's line, in time order after the kernels (whose
/// lines and annotations it shares).
pub(super) fn copy_events(placed: PlacedCopies, to: DeviceStage<'_>, warnings: &mut Vec<String>) {
    let DeviceStage {
        api,
        annotations,
        work,
        counters,
        ..
    } = to;
    *counters += &placed.counters;
    for PlacedCopy {
        plane: dev,
        external_id: external,
        graph,
        event: mut e,
    } in placed.copies
    {
        let call = work.key(e.correlation_id);
        let key = work.place_ranked(call, LineKey::Copies);
        if !api.launched(e.correlation_id) {
            counters.activities_without_api += 1;
            counters.activities_unplaced += u64::from(key.slot.is_none());
        }
        e.annotation = annotations.get_ranked(call, external);
        work.push(dev, key, call, e, graph);
    }
    let copies_without_gpu = placed.without_gpu;
    if copies_without_gpu > 0 {
        warnings.push(format!(
            "{copies_without_gpu} memory copies could not be placed: no GPU agent known"
        ));
    }
}
