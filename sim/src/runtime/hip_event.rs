//! HIP event tracing (SDKs after 1.3.5, reference "newer" §5): the GPU barrier packets of
//! `hipEventRecord` (RECORD) and `hipStreamWaitEvent` (WAIT). The enqueue is bracketed by
//! ENTER/EXIT callbacks with zero timestamps on the calling thread; when the barrier completes
//! on the GPU a PHASE_NONE callback and an 88-byte buffer record (async correlation id of the
//! call) carry its times. Only personalities whose kind tables name `HIP_EVENT` emit anything.

use std::ffi::c_void;
use std::sync::Arc;

use super::abi::*;
use super::agents::agent_handle;
use super::emit::{self, as_bytes, Corr};
use super::state::{self, Context, Services};
use crate::plan::{Barrier, BarrierOp};

/// The kind values of the running personality, if it has HIP event tracing.
#[derive(Clone, Copy)]
pub struct Kinds {
    pub buffer: u32,
    pub callback: u32,
}

pub fn kinds() -> Option<Kinds> {
    let p = state::personality();
    Some(Kinds {
        buffer: p.buffer_kind("HIP_EVENT")?,
        callback: p.callback_kind("HIP_EVENT")?,
    })
}

pub fn operation(b: &Barrier) -> rocprofiler_tracing_operation_t {
    (match b.op {
        BarrierOp::Record => ROCPROFILER_HIP_EVENT_RECORD,
        BarrierOp::Wait => ROCPROFILER_HIP_EVENT_WAIT,
    }) as rocprofiler_tracing_operation_t
}

/// The callback payload; `times` = `None` at enqueue (both timestamps zero).
pub fn payload(
    b: &Barrier,
    queue_handle: impl Fn(u32, u32) -> u64,
    times: Option<(u64, u64)>,
) -> rocprofiler_callback_tracing_hip_event_data_t {
    let (s, e) = times.unwrap_or((0, 0));
    rocprofiler_callback_tracing_hip_event_data_t {
        size: std::mem::size_of::<rocprofiler_callback_tracing_hip_event_data_t>() as u64,
        start_timestamp: s,
        end_timestamp: e,
        agent_id: rocprofiler_agent_id_t {
            handle: agent_handle(b.gpu as usize + 1),
        },
        queue_id: rocprofiler_queue_id_t {
            handle: queue_handle(b.gpu, b.queue),
        },
        hip_event_handle: b.event,
        source_queue_id: rocprofiler_queue_id_t {
            handle: queue_handle(b.source_gpu, b.source_queue),
        },
    }
}

/// Whether a context traces HIP events through either service.
pub fn traced(k: Kinds, svc: &Services) -> bool {
    emit::traces(svc, Some(k.buffer), Some(k.callback))
}

/// ENTER and EXIT around the enqueue, on the calling thread.
pub fn enqueue_callbacks(
    k: Kinds,
    ctx: &Context,
    svc: &Services,
    tid: u64,
    corr: Corr,
    op: rocprofiler_tracing_operation_t,
    mut data: rocprofiler_callback_tracing_hip_event_data_t,
) -> u64 {
    let mut ud = rocprofiler_user_data_t { value: 0 };
    for phase in [
        ROCPROFILER_CALLBACK_PHASE_ENTER,
        ROCPROFILER_CALLBACK_PHASE_EXIT,
    ] {
        emit::callback(
            ctx.handle,
            svc,
            tid,
            corr,
            k.callback,
            op,
            phase,
            &mut data as *mut _ as *mut c_void,
            &mut ud,
        );
    }
    // SAFETY: plain 8-byte union.
    unsafe { ud.value }
}

/// Completion on the GPU: the PHASE_NONE callback with timestamps and the buffer record.
#[allow(clippy::too_many_arguments)]
pub fn complete(
    k: Kinds,
    ctx: &Arc<Context>,
    svc: &Services,
    tid: u64,
    corr: Corr,
    user: u64,
    op: rocprofiler_tracing_operation_t,
    mut data: rocprofiler_callback_tracing_hip_event_data_t,
) {
    if let Some(buf) = emit::buffer_for(ctx, svc, k.buffer, op) {
        let rec = rocprofiler_buffer_tracing_hip_event_record_t {
            size: std::mem::size_of::<rocprofiler_buffer_tracing_hip_event_record_t>() as u64,
            kind: k.buffer,
            operation: op as rocprofiler_hip_event_operation_t,
            correlation_id: rocprofiler_async_correlation_id_t {
                internal: corr.internal,
                external: rocprofiler_user_data_t {
                    value: corr.external,
                },
            },
            thread_id: tid,
            start_timestamp: data.start_timestamp,
            end_timestamp: data.end_timestamp,
            agent_id: data.agent_id,
            queue_id: data.queue_id,
            hip_event_handle: data.hip_event_handle,
            source_queue_id: data.source_queue_id,
        };
        emit::emplace(buf, k.buffer, as_bytes(&rec));
    }
    let mut ud = rocprofiler_user_data_t { value: user };
    emit::callback(
        ctx.handle,
        svc,
        tid,
        corr,
        k.callback,
        op,
        ROCPROFILER_CALLBACK_PHASE_NONE,
        &mut data as *mut _ as *mut c_void,
        &mut ud,
    );
}
