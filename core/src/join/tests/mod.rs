//! The join's tests through its entry point (`join`), on collections made by hand; the tests
//! of one stage's own functions sit beside the stage.

mod annotations;
mod dependencies;
mod devices;
mod inplace;
mod memory;
mod time_window;
mod windows;

use crate::facts::{
    AgentInfo, AgentType, ApiDomain, ApiRecord, CopyRecord, KernelRecord, KernelSymbol, MarkerSpan,
};
use crate::model::collected::Collected;
use crate::model::trace::{Annotation, DeviceEvent, DeviceEventKind, Trace};
use std::sync::Arc;

pub(super) const GPU0: u64 = 0x1111;
pub(super) const GPU1: u64 = 0x2222;
pub(super) const CPU: u64 = 0x9999;
pub(super) const LAUNCH: i32 = 214;
pub(super) const GRAPH: i32 = 166;
pub(super) const MEMCPY: i32 = 268;
pub(super) const SYNC: i32 = 66;

pub(super) fn agent(handle: u64, kind: AgentType, type_index: i32) -> AgentInfo {
    AgentInfo::for_test(handle, kind, type_index)
}

pub(super) fn api(op: i32, corr: u64, start: u64, end: u64, tid: u64) -> ApiRecord {
    ApiRecord {
        domain: ApiDomain::Hip,
        operation: op,
        correlation_id: corr,
        external_id: 0,
        start_ns: start,
        end_ns: end,
        thread_id: tid,
    }
}

/// A roctx call's record on thread 7.
pub(super) fn roctx(op: i32, corr: u64, start: u64, end: u64) -> ApiRecord {
    ApiRecord {
        domain: ApiDomain::Marker,
        ..api(op, corr, start, end, 7)
    }
}

/// A push/pop range on thread 7, pushed by call 20 and popped by 21, with the callbacks'
/// times (101–509) that its records' times replace.
pub(super) fn train_step() -> MarkerSpan {
    MarkerSpan {
        label: Arc::from("train_step"),
        thread_id: 7,
        open_correlation_id: 20,
        close_correlation_id: 21,
        start_ns: 101,
        end_ns: 509,
        instant: false,
        ..MarkerSpan::default()
    }
}

pub(super) fn kernel(
    corr: u64,
    start: u64,
    end: u64,
    kernel_id: u64,
    dispatch: u64,
    queue: u64,
) -> KernelRecord {
    KernelRecord {
        correlation_id: corr,
        external_id: 0,
        start_ns: start,
        end_ns: end,
        thread_id: 7,
        agent: GPU0,
        queue,
        kernel_id,
        dispatch_id: dispatch,
        private_segment_size: 16,
        group_segment_size: 4096,
        workgroup: [256, 1, 1],
        grid: [1024, 1, 1],
        pipe_id: None,
    }
}

/// A one-byte copy on thread 7 at `corr * 10 ns` lasting 5 ns.
pub(super) fn copy(corr: u64, op: i32, dst: u64, src: u64) -> CopyRecord {
    CopyRecord {
        correlation_id: corr,
        external_id: 0,
        start_ns: corr * 10,
        end_ns: corr * 10 + 5,
        thread_id: 7,
        operation: op,
        dst_agent: dst,
        src_agent: src,
        bytes: 1,
    }
}

pub(super) fn base() -> Collected {
    let mut c = Collected {
        hostname: "host".into(),
        pid: 42,
        sdk_version: "1.0.0".into(),
        agents: vec![
            agent(CPU, AgentType::Cpu, 0),
            agent(GPU1, AgentType::Gpu, 1),
            agent(GPU0, AgentType::Gpu, 0),
        ],
        ..Collected::default()
    };
    for (op, name) in [
        (LAUNCH, "hipLaunchKernel"),
        (GRAPH, "hipGraphLaunch"),
        (MEMCPY, "hipMemcpyAsync"),
        (SYNC, "hipDeviceSynchronize"),
    ] {
        c.op_names.insert((ApiDomain::Hip, op), Arc::from(name));
    }
    c.symbols.insert(
        1,
        KernelSymbol {
            name: Arc::from("gemm(float*)"),
            sgpr_count: 32,
            arch_vgpr_count: 64,
            accum_vgpr_count: 8,
            group_segment_size: 1024,
            private_segment_size: 0,
        },
    );
    c
}

/// `base` with the roctx operations a push, a pop and a query are named by.
pub(super) fn base_with_roctx_names() -> Collected {
    let mut c = base();
    for (op, name) in [
        (1, "roctxRangePushA"),
        (2, "roctxRangePop"),
        (5, "roctxGetThreadId"),
    ] {
        c.op_names.insert((ApiDomain::Marker, op), Arc::from(name));
    }
    c
}

pub(super) fn kernels_of(t: &Trace) -> Vec<&DeviceEvent> {
    t.devices
        .iter()
        .flat_map(|d| d.lines.iter())
        .flat_map(|l| l.events.iter())
        .filter(|e| matches!(e.kind, DeviceEventKind::Kernel(_)))
        .collect()
}

/// An opaque queue handle, large like the runtime's.
pub(super) fn q() -> u64 {
    0xdead_0000
}

/// A roctx range on thread 7, `scope` its push's id, `parent` the enclosing push's.
pub(super) fn range_span(label: &str, scope: u64, close: u64, parent: i64) -> MarkerSpan {
    MarkerSpan {
        label: Arc::from(label),
        thread_id: 7,
        open_correlation_id: scope,
        close_correlation_id: close,
        start_ns: scope,
        end_ns: 1000 + close,
        scope_id: scope as i64,
        parent_scope_id: parent,
        ..MarkerSpan::default()
    }
}

/// Where kernel `corr` landed in a trace (device, line name, annotation), for comparing a
/// windowed join with one of the whole run (a window numbers its lines from 0).
pub(super) fn kernel_place(t: &Trace, corr: u64) -> (u32, String, Option<Annotation>) {
    t.devices
        .iter()
        .flat_map(|d| d.lines.iter().map(move |l| (d, l)))
        .flat_map(|(d, l)| l.events.iter().map(move |e| (d, l, e)))
        .find(|(_, _, e)| e.correlation_id == corr)
        .map(|(d, l, e)| {
            (
                d.ordinal,
                l.name.clone(),
                t.annotation(e.annotation).cloned(),
            )
        })
        .unwrap_or_else(|| panic!("no kernel {corr}"))
}

/// No spans carried in from other windows (`join::input::CarriedLabels`).
pub(super) fn no_labels() -> crate::join::input::CarriedLabels {
    crate::join::input::CarriedLabels {
        scope_context: Vec::new(),
        spans_shown: Vec::new(),
    }
}
