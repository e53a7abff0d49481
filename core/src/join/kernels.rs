//! The kernels stage: every kernel dispatch record becomes a device event (a graph launch's
//! dispatches all of them, sharing its correlation id), on its call's stream's line, named
//! from its code object. The records are taken in time order (`kernel_order`) and each chunk
//! of them freed as soon as its records are events.

use crate::facts::{KernelRecord, KernelSymbol};
use crate::fastmap::HashMap;
use crate::model::graph;
use crate::model::streams::StreamKey as LineKey;
use crate::model::trace::{
    DeviceEvent, DeviceEventKind, Id, KernelCode, KernelInfo, LaunchShape, Table,
};
use crate::store::packed::Pack;
use crate::store::PackedVec;
use crate::util::sort::stable_order;
use std::sync::Arc;

use super::device_work::{usable_span, DeviceStage};

/// Records ahead of the one being made an event that are asked into the cache.
const RECORD_PREFETCH_AHEAD: usize = 8;

/// The kernels stage (see the module's comment): the records in `order`, and the launch shapes
/// their events name.
pub(super) fn kernel_events(
    kernels: PackedVec<KernelRecord>,
    order: Vec<u32>,
    symbols: &std::collections::HashMap<u64, KernelSymbol>,
    to: DeviceStage<'_>,
) -> Table<LaunchShape> {
    let DeviceStage {
        places,
        api,
        annotations,
        work,
        counters,
    } = to;
    // Each record is freed with its chunk once it is an event.
    let mut records = kernels.into_taker();
    // One `KernelCode` per kernel id, shared by its dispatches; one `LaunchShape` per launch
    // entry of the stores (the same kernel, grid, block and queue), shared by its dispatches.
    let mut codes: HashMap<u64, Arc<KernelCode>> = HashMap::default();
    let mut table = Table::default();
    let mut shapes: Vec<Option<(Id<LaunchShape>, u32, bool)>> = vec![None; records.entries()];
    for (k, &i) in order.iter().enumerate() {
        // The order is the records' times, their positions the order they were delivered in.
        if let Some(&ahead) = order.get(k + RECORD_PREFETCH_AHEAD) {
            records.prefetch(ahead as usize);
        }
        // The dispatch's own facts, and its launch's (read whole once per entry, below).
        let Some((each, entry)) = records.take_each(i as usize) else {
            continue;
        };
        let Some(launch) = records.shared(entry) else {
            continue;
        };
        let span = usable_span(each.start_ns(launch), each.end_ns(launch), counters);
        let Some((start_ns, end_ns)) = span else {
            continue;
        };
        let correlation_id = each.correlation_id(launch);
        // Ranked once for the tables over the calls it reads.
        let call = work.key(correlation_id);
        let key = work.place_ranked(call, LineKey::Queue(launch.queue()));
        if !api.launched(correlation_id) {
            counters.activities_without_api += 1;
            counters.activities_unplaced += u64::from(key.slot.is_none());
        }
        // Per store entry (one agent, one kernel): its plane and whether its symbol came are
        // looked up once, not per dispatch.
        let (shape, dev, has_symbol) = shapes[entry].get_or_insert_with(|| {
            let k = KernelRecord::join(each, launch);
            let code = codes
                .entry(k.kernel_id)
                .or_insert_with(|| Arc::new(kernel_code(k.kernel_id, symbols.get(&k.kernel_id))))
                .clone();
            (
                table.push(launch_shape(&k, code)),
                places.kernel_plane(k.agent),
                symbols.contains_key(&k.kernel_id),
            )
        });
        if !*has_symbol {
            counters.kernels_without_symbol += 1;
        }
        let (shape, dev) = (*shape, *dev);
        let info = KernelInfo {
            dispatch_id: each.dispatch_id(launch),
            shape,
        };
        let (graph, external) = graph::split(each.external_id(launch));
        let e = DeviceEvent {
            start_ns,
            end_ns,
            correlation_id,
            kind: DeviceEventKind::Kernel(info),
            annotation: annotations.get_ranked(call, external),
            graph: None,
        };
        work.push(dev, key, call, e, graph);
    }
    table
}

/// The kernel records' positions in time order (ties by end, correlation id, dispatch, agent,
/// queue, then position): the order their events are made in.
pub(super) fn kernel_order(kernels: &PackedVec<KernelRecord>) -> Vec<u32> {
    stable_order(
        || kernels.positions().map(|(i, k)| (i, k.start_ns)),
        |i| {
            kernels
                .get(i)
                .map(|k| (k.end_ns, k.correlation_id, k.dispatch_id, k.agent, k.queue))
        },
        kernels.len(),
    )
}

/// The launch facts of dispatch `k` of the kernel `code`.
fn launch_shape(k: &KernelRecord, code: Arc<KernelCode>) -> LaunchShape {
    LaunchShape {
        grid: [
            ceil_div(k.grid[0], k.workgroup[0]),
            ceil_div(k.grid[1], k.workgroup[1]),
            ceil_div(k.grid[2], k.workgroup[2]),
        ],
        block: k.workgroup,
        dynamic_shared_bytes: k
            .group_segment_size
            .saturating_sub(code.static_shared_bytes),
        private_segment_bytes: k.private_segment_size,
        queue: k.queue,
        pipe_id: k.pipe_id,
        code,
    }
}

/// A kernel's code-object facts from its symbol; named by id when the symbol never came.
fn kernel_code(kernel_id: u64, sym: Option<&KernelSymbol>) -> KernelCode {
    KernelCode {
        name: sym.map_or_else(
            || Arc::from(unknown_kernel_name(kernel_id)),
            |s| s.name.clone(),
        ),
        kernel_id,
        // Saturating: a corrupt symbol (or a converted file's row) may claim counts near
        // u32::MAX, whose sum would overflow (a panic in debug builds).
        vgpr_count: sym.map_or(0, |s| s.arch_vgpr_count.saturating_add(s.accum_vgpr_count)),
        agpr_count: sym.map_or(0, |s| s.accum_vgpr_count),
        sgpr_count: sym.map_or(0, |s| s.sgpr_count),
        symbol_scratch_bytes: sym.map_or(0, |s| s.private_segment_size),
        static_shared_bytes: sym.map_or(0, |s| s.group_segment_size),
    }
}

/// Name used for a kernel whose id never appeared in a kernel-symbol callback.
pub fn unknown_kernel_name(kernel_id: u64) -> String {
    format!("<unknown kernel {kernel_id}>")
}

fn ceil_div(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        a.div_ceil(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Register counts a corrupt symbol (or a converted file's row) claims near u32::MAX: the
    /// kernel's VGPRs saturate rather than overflow (a panic in debug builds; `tests/fuzz.rs`
    /// makes such symbols).
    #[test]
    fn a_symbols_register_counts_saturate() {
        let sym = KernelSymbol {
            name: Arc::from("k"),
            sgpr_count: u32::MAX,
            arch_vgpr_count: u32::MAX - 1,
            accum_vgpr_count: 5,
            group_segment_size: u32::MAX,
            private_segment_size: u32::MAX,
        };
        let code = kernel_code(1, Some(&sym));
        assert_eq!((code.vgpr_count, code.agpr_count), (u32::MAX, 5));
    }
}
