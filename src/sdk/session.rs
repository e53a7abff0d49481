//! One tracing session: contexts, buffers and services set up in `initialize`, torn down and
//! collected in `finalize`.
//!
//! Two contexts: the *buffer* context owns every buffer and every buffer-tracing service (a
//! buffer only receives records of its own context, and API and activity records must come from
//! one context to share correlation ids); the *callback* context carries callback tracing
//! (kernel symbols, roctx text, annotation capture at HIP API entry).

use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

use rocprofiler_sdk_sys as sys;

use super::callbacks::{self, STORES};
use super::names::NameMaps;
use super::status::{absent, check};
use super::{agents, Abi, Functions, SdkError};
use crate::config::Config;
use crate::decode::BufferKinds;
use crate::model::events::{AgentInfo, ApiDomain, Collected};
use crate::store::sinks::lock;
use crate::store::EventStore;
use crate::{log_debug, log_info, log_warn};

/// Buffers, one per traced kind (each has its own store and accounting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferSlot {
    HipApi = 0,
    MarkerApi = 1,
    KernelDispatch = 2,
    MemoryCopy = 3,
    HipEvent = 4,
}
pub const BUFFER_SLOTS: usize = 5;

/// What a cut's flush gives its collection: the flush's warnings, and each buffer slot's
/// records as they were when its flush returned (`Session::flush_and_take`).
pub struct Flushed {
    pub warnings: Vec<String>,
    pub stores: [EventStore; BUFFER_SLOTS],
}

/// How often (2 ms apart) finalize asks again when a flush reports BUFFER_BUSY.
const FLUSH_BUSY_RETRIES: u64 = 1000;

/// Runtime values of the callback-tracing kinds we configured.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallbackKinds {
    pub hip_api: Option<u32>,
    pub marker_api: Option<u32>,
    pub code_object: Option<u32>,
    /// SDK 1.x: the runtime's own HIP-stream brackets (`capture::hip_stream`).
    pub hip_stream: Option<u32>,
    /// SDK 1.3.0+: HIP graph launches (`capture::graph`).
    pub hip_graph: Option<u32>,
}

pub struct Session {
    pub abi: Abi,
    pub functions: Functions,
    pub sdk_version: String,
    pub buffer_kinds: BufferKinds,
    pub callback_kinds: CallbackKinds,
    pub names: NameMaps,
    /// Table row of each subscribed HIP operation, indexed by operation id.
    pub hip_ops: Vec<Option<crate::hip::HipOp>>,
    pub agents: Vec<AgentInfo>,
    contexts: Vec<sys::rocprofiler_context_id_t>,
    /// The context that owns the buffers (API and activity records share its correlation ids).
    buffer_context: Option<sys::rocprofiler_context_id_t>,
    buffers: Vec<(BufferSlot, sys::rocprofiler_buffer_id_t)>,
    pub start_boottime_ns: u64,
    pub start_walltime_ns: u64,
    /// Problems met while setting up, carried into the trace's warnings.
    pub setup_warnings: Vec<String>,
}

static SESSION: OnceLock<Session> = OnceLock::new();

/// The active session, once `initialize` has published it.
pub fn get() -> Option<&'static Session> {
    SESSION.get()
}

/// Publishes the session (callbacks start using it) and starts its contexts; with
/// `defer_buffers` the buffer context (the records) waits for [`Session::start_buffers`]
/// (`ROCPROF_XPLANE_START_DELAY`), while callbacks (kernel symbols, roctx stacks) run from the
/// start so nothing they keep state for is missed.
pub fn publish_and_start(s: Session, defer_buffers: bool) -> Result<&'static Session, String> {
    SESSION
        .set(s)
        .map_err(|_| "a tracing session already exists".to_string())?;
    let s = SESSION.get().expect("just set");
    let is_buffers = |ctx: sys::rocprofiler_context_id_t| {
        s.buffer_context.is_some_and(|b| b.handle == ctx.handle)
    };
    let started = s.start_where(|ctx| !(defer_buffers && is_buffers(ctx)))?;
    if started == 0 && !s.contexts.is_empty() && !defer_buffers {
        return Err("no tracing context could be started".into());
    }
    Ok(s)
}

impl Session {
    /// Starts the contexts `pick` selects; returns how many started.
    fn start_where(
        &self,
        pick: impl Fn(sys::rocprofiler_context_id_t) -> bool,
    ) -> Result<usize, String> {
        let start = self
            .functions
            .start_context
            .ok_or("rocprofiler_start_context not found")?;
        let mut started = 0;
        for ctx in self.contexts.iter().filter(|c| pick(**c)) {
            // SAFETY: `ctx` was created by this SDK in `initialize`; start is allowed any time
            // before finalization.
            let st = unsafe { start(*ctx) };
            match check(&self.functions, st, || {
                format!("rocprofiler_start_context({:#x})", ctx.handle)
            }) {
                Ok(()) => started += 1,
                Err(e) => log_warn!("{e}"),
            }
        }
        Ok(started)
    }

    /// Starts those of `ids` that are ours and not running (a process attachment: the SDK
    /// hands the tool its contexts and starts none of them); returns how many started.
    pub fn start_inactive(&self, ids: &[sys::rocprofiler_context_id_t]) -> usize {
        let f = &self.functions;
        let is_active = |ctx: sys::rocprofiler_context_id_t| {
            let Some(q) = f.context_is_active else {
                return false;
            };
            let mut st: i32 = 0;
            // SAFETY: a context of ours and a valid out-pointer for the answer.
            let rc = unsafe { q(ctx, &mut st) };
            rc == sys::ROCPROFILER_STATUS_SUCCESS && st != 0
        };
        let wanted = |ctx: sys::rocprofiler_context_id_t| {
            ids.iter().any(|i| i.handle == ctx.handle) && !is_active(ctx)
        };
        self.start_where(wanted).unwrap_or_else(|e| {
            log_warn!("{e}");
            0
        })
    }

    /// Starts the buffer context (the delayed start of `ROCPROF_XPLANE_START_DELAY`).
    pub fn start_buffers(&self) {
        if let Err(e) =
            self.start_where(|ctx| self.buffer_context.is_some_and(|b| b.handle == ctx.handle))
        {
            log_warn!("{e}");
        }
    }

    /// Stops the buffer context only (the end of a window): no more records; callbacks keep
    /// their state. Returns once the HIP calls that entered before the stop have exited (their
    /// records are written after the stop), so the flush that follows holds them.
    pub fn stop_buffers(&self) {
        let f = &self.functions;
        if let (Some(stop), Some(ctx)) = (f.stop_context, self.buffer_context) {
            // SAFETY: our own context; stopping is allowed at any time.
            let st = unsafe { stop(ctx) };
            if let Err(e) = check(f, st, || "rocprofiler_stop_context".into()) {
                log_info!("{e}");
            }
            crate::capture::inflight::settle_before_flush("the window closed");
        }
    }

    /// A HIP_EVENT operation by its runtime name (`…RECORD`, `…WAIT`).
    pub fn hip_event_op(&self, op: i32) -> crate::model::events::HipEventOp {
        use crate::model::events::HipEventOp;
        let name = self
            .buffer_kinds
            .hip_event
            .and_then(|k| self.names.buffer_ops.get(&k))
            .and_then(|ops| ops.iter().find(|(id, _)| *id == op))
            .map(|(_, n)| n.as_str())
            .unwrap_or("");
        if name.ends_with("RECORD") {
            HipEventOp::Record
        } else if name.ends_with("WAIT") {
            HipEventOp::Wait
        } else {
            HipEventOp::Other
        }
    }

    /// The table row of HIP operation `op`, when subscribed.
    #[inline]
    pub fn hip_op(&self, op: i32) -> Option<crate::hip::HipOp> {
        usize::try_from(op)
            .ok()
            .and_then(|i| self.hip_ops.get(i))
            .copied()
            .flatten()
    }

    /// Sets everything up (inside `initialize`, the only window where the SDK allows it).
    pub fn create(abi: Abi, sdk_version: &str, cfg: &Config) -> Result<Session, String> {
        let functions = Functions::from_process();
        let missing = functions.missing_required();
        if !missing.is_empty() {
            return Err(format!(
                "rocprofiler-sdk functions not found: {}",
                missing.join(", ")
            ));
        }
        log_debug!(
            "optional SDK functions not found: {:?}",
            functions.missing()
        );
        let names = NameMaps::query(
            &functions,
            &["HIP_RUNTIME_API", "MARKER_CORE_API", "HIP_EVENT"],
            &["HIP_RUNTIME_API"],
        );
        let mut s = Session {
            abi,
            functions,
            sdk_version: sdk_version.to_string(),
            buffer_kinds: BufferKinds::default(),
            callback_kinds: CallbackKinds::default(),
            names,
            hip_ops: Vec::new(),
            agents: Vec::new(),
            contexts: Vec::new(),
            buffer_context: None,
            buffers: Vec::new(),
            start_boottime_ns: 0,
            start_walltime_ns: 0,
            setup_warnings: Vec::new(),
        };
        s.start_boottime_ns = s.functions.timestamp();
        s.start_walltime_ns = super::functions::walltime_ns();

        match agents::query(&s.functions) {
            Ok((a, too_small)) => {
                if too_small > 0 {
                    s.warn(format!(
                        "{too_small} agents skipped: struct smaller than expected"
                    ));
                }
                s.agents = a;
            }
            Err(e) => s.warn(format!("no agent information: {e}")),
        }

        s.setup_buffers(cfg).map_err(|e| e.to_string())?;
        if let Err(e) = s.setup_callbacks(cfg) {
            s.warn(format!("callback tracing unavailable: {e}"));
        }
        Ok(s)
    }

    fn warn(&mut self, msg: String) {
        log_warn!("{msg}");
        self.setup_warnings.push(msg);
    }

    fn create_context(&self) -> Result<sys::rocprofiler_context_id_t, SdkError> {
        let create = self
            .functions
            .create_context
            .ok_or_else(|| absent("rocprofiler_create_context"))?;
        // The handle must be zero on input (SDK ≥ 0.5 rejects anything else).
        let mut ctx = sys::rocprofiler_context_id_t { handle: 0 };
        // SAFETY: `ctx` is a valid out-pointer; we are inside the init window.
        let st = unsafe { create(&mut ctx) };
        check(&self.functions, st, || "rocprofiler_create_context".into())?;
        Ok(ctx)
    }

    fn setup_buffers(&mut self, cfg: &Config) -> Result<(), SdkError> {
        let d = cfg.domains;
        let wanted: Vec<(BufferSlot, &str, u32)> = [
            (
                d.hip,
                BufferSlot::HipApi,
                "HIP_RUNTIME_API",
                sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
            ),
            (
                d.marker,
                BufferSlot::MarkerApi,
                "MARKER_CORE_API",
                sys::ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API,
            ),
            (
                d.kernel,
                BufferSlot::KernelDispatch,
                "KERNEL_DISPATCH",
                sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
            ),
            (
                d.memcpy,
                BufferSlot::MemoryCopy,
                "MEMORY_COPY",
                sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
            ),
        ]
        .into_iter()
        .filter(|w| w.0)
        .map(|(_, slot, name, stable)| (slot, name, self.names.buffer_kind(name).unwrap_or(stable)))
        // HIP event barriers: only where the runtime names the kind (after SDK 1.3.5).
        .chain(
            self.names
                .buffer_kind("HIP_EVENT")
                .filter(|_| d.hip)
                .map(|k| (BufferSlot::HipEvent, "HIP_EVENT", k)),
        )
        .collect();
        if wanted.is_empty() {
            return Ok(());
        }
        let ctx = self.create_context()?;
        self.contexts.push(ctx);
        self.buffer_context = Some(ctx);
        let f = self.functions;
        let create_buffer = f
            .create_buffer
            .ok_or_else(|| absent("rocprofiler_create_buffer"))?;
        let configure = f
            .configure_buffer_tracing_service
            .ok_or_else(|| absent("rocprofiler_configure_buffer_tracing_service"))?;
        for (slot, name, kind) in wanted {
            let mut buf = sys::rocprofiler_buffer_id_t { handle: 0 };
            // SAFETY: init window; `buffer_callback` matches the buffer-callback type and the
            // slot index it receives as `data` indexes the static `STORES`.
            let st = unsafe {
                create_buffer(
                    ctx,
                    cfg.buffer_size,
                    cfg.buffer_watermark(),
                    sys::ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                    Some(callbacks::buffer_callback),
                    slot as usize as *mut c_void,
                    &mut buf,
                )
            };
            if let Err(e) = check(&f, st, || format!("rocprofiler_create_buffer({name})")) {
                self.warn(e.to_string());
                continue;
            }
            let ops = self.buffer_operations(slot, kind, cfg);
            // SAFETY: init window; `ops` outlives the call (the runtime copies the list); null
            // operations with count 0 = every operation of the kind.
            let st = unsafe {
                configure(
                    ctx,
                    kind,
                    if ops.is_empty() {
                        std::ptr::null()
                    } else {
                        ops.as_ptr()
                    },
                    ops.len(),
                    buf,
                )
            };
            if let Err(e) = check(&f, st, || {
                format!("rocprofiler_configure_buffer_tracing_service({name})")
            }) {
                self.warn(e.to_string());
                continue;
            }
            match slot {
                BufferSlot::HipApi => self.buffer_kinds.hip_api = Some(kind),
                BufferSlot::MarkerApi => self.buffer_kinds.marker_api = Some(kind),
                BufferSlot::KernelDispatch => self.buffer_kinds.kernel_dispatch = Some(kind),
                BufferSlot::MemoryCopy => self.buffer_kinds.memory_copy = Some(kind),
                BufferSlot::HipEvent => self.buffer_kinds.hip_event = Some(kind),
            }
            self.buffers.push((slot, buf));
            log_debug!(
                "buffer tracing of {name} (kind {kind}) on buffer {:#x}",
                buf.handle
            );
        }
        if self.buffers.is_empty() {
            return Err(SdkError {
                call: "buffer tracing setup".into(),
                code: u32::MAX,
                name: Some("no buffer-tracing service could be configured".into()),
            });
        }
        Ok(())
    }

    /// The operations to buffer-trace for `slot` (empty = all). HIP calls: by default only those
    /// the output needs (`hip::traced_by_default`), unless `ROCPROF_XPLANE_HIP_API=all` or the
    /// runtime did not name its operations.
    fn buffer_operations(&self, slot: BufferSlot, kind: u32, cfg: &Config) -> Vec<i32> {
        if slot != BufferSlot::HipApi || cfg.hip_api_all {
            return Vec::new();
        }
        let Some(names) = self.names.buffer_ops.get(&kind) else {
            log_info!("HIP operation names unavailable: tracing every HIP call");
            return Vec::new();
        };
        let ops: Vec<i32> = names
            .iter()
            .filter(|(_, n)| crate::hip::traced_by_default(n))
            .map(|(id, _)| *id)
            .collect();
        log_debug!(
            "buffer tracing {} of {} HIP operations (ROCPROF_XPLANE_HIP_API=all for every one)",
            ops.len(),
            names.len()
        );
        ops
    }

    fn setup_callbacks(&mut self, cfg: &Config) -> Result<(), SdkError> {
        let d = cfg.domains;
        let f = self.functions;
        let configure = f
            .configure_callback_tracing_service
            .ok_or_else(|| absent("rocprofiler_configure_callback_tracing_service"))?;
        let hip_kind = self.names.callback_kind("HIP_RUNTIME_API");
        let hip_names: Vec<(i32, String)> = hip_kind
            .and_then(|k| self.names.callback_ops.get(&k))
            .cloned()
            .unwrap_or_default();
        // Annotations exist only when something pushes them (roctx today); devices of copies
        // need the stream arguments whenever copies are traced.
        let want_annotation = d.marker && (d.hip || d.kernel || d.memcpy);
        // … and sync-API arguments (seam for dependencies) whenever HIP calls are traced.
        let want_devices = d.memcpy || d.hip;
        let mut hip_ops: Vec<i32> = Vec::new();
        for (id, name) in &hip_names {
            let Some(op) = crate::hip::lookup(name) else {
                continue;
            };
            if (want_annotation && op.captured_at_entry()) || want_devices {
                hip_ops.push(*id);
                if let Ok(i) = usize::try_from(*id) {
                    if i < 4096 {
                        if self.hip_ops.len() <= i {
                            self.hip_ops.resize(i + 1, None);
                        }
                        self.hip_ops[i] = Some(op);
                    }
                }
            }
        }
        let mut services: Vec<(&str, Option<u32>, Vec<i32>)> = Vec::new();
        if d.kernel {
            services.push((
                "CODE_OBJECT",
                self.names.callback_kind("CODE_OBJECT"),
                vec![sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER as i32],
            ));
        }
        if d.marker {
            let ops = (sys::ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA
                ..=sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop)
                .collect();
            services.push((
                "MARKER_CORE_API",
                self.names.callback_kind("MARKER_CORE_API"),
                ops,
            ));
        }
        // SDK 1.x: the runtime's own stream of each call, for work the table cannot place.
        let hip_stream_kind = self
            .names
            .callback_kind("HIP_STREAM")
            .filter(|_| want_devices && (d.kernel || d.memcpy));
        if hip_stream_kind.is_some() {
            services.push((
                "HIP_STREAM",
                hip_stream_kind,
                vec![sys::ROCPROFILER_HIP_STREAM_SET as i32],
            ));
        }
        // SDK 1.3.0+: which node of which graph each dispatch and copy of a launch was.
        let hip_graph_kind = self
            .names
            .callback_kind("HIP_GRAPH")
            .filter(|_| d.kernel || d.memcpy);
        if hip_graph_kind.is_some() {
            services.push((
                "HIP_GRAPH",
                hip_graph_kind,
                vec![sys::ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH as i32],
            ));
        }
        if want_annotation || want_devices {
            if hip_ops.is_empty() {
                self.warn(
                    "no HIP operations resolved by name: GPU work is not annotated by roctx \
                     ranges and copies are placed by their agents"
                        .into(),
                );
            } else {
                services.push(("HIP_RUNTIME_API", hip_kind, hip_ops));
            }
        }
        if services.is_empty() {
            return Ok(());
        }
        let ctx = self.create_context()?;
        self.contexts.push(ctx);
        let cb = callbacks::tracing_callback_for(self.abi);
        for (name, kind, ops) in services {
            let Some(kind) = kind else {
                self.warn(format!("callback kind {name} not offered by this SDK"));
                continue;
            };
            // SAFETY: init window; `ops` outlives the call (the SDK copies the list); `cb` is
            // the trampoline for the running record layout.
            let st =
                unsafe { configure(ctx, kind, ops.as_ptr(), ops.len(), cb, std::ptr::null_mut()) };
            if let Err(e) = check(&f, st, || {
                format!("rocprofiler_configure_callback_tracing_service({name})")
            }) {
                self.warn(e.to_string());
                continue;
            }
            match name {
                "CODE_OBJECT" => self.callback_kinds.code_object = Some(kind),
                "MARKER_CORE_API" => self.callback_kinds.marker_api = Some(kind),
                "HIP_STREAM" => self.callback_kinds.hip_stream = Some(kind),
                "HIP_GRAPH" => self.callback_kinds.hip_graph = Some(kind),
                _ => self.callback_kinds.hip_api = Some(kind),
            }
            log_debug!(
                "callback tracing of {name} (kind {kind}, {} ops)",
                ops.len()
            );
        }
        if self.callback_kinds.hip_stream.is_some() || self.callback_kinds.hip_graph.is_some() {
            self.request_activity_ids();
        }
        if d.kernel && self.callback_kinds.code_object.is_none() {
            self.setup_warnings
                .push("kernel names unavailable: code-object callbacks not configured".into());
        }
        Ok(())
    }

    /// Asks the runtime, through the external-correlation-id request service on the buffer
    /// context (the one whose dispatch and copy records we read), to call us when a dispatch or
    /// copy is created, so `capture::hip_stream` can bind the stream HIP_STREAM reported to it
    /// and `capture::graph` can number the nodes of a graph launch. Without the service the
    /// argument path still places every operation the table knows; graph nodes stay unnumbered.
    fn request_activity_ids(&mut self) {
        let (Some(ctx), Some(configure)) = (
            self.buffer_context,
            self.functions
                .configure_external_correlation_id_request_service,
        ) else {
            return;
        };
        let kinds = [
            sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
            sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
        ];
        // SAFETY: init window; `kinds` outlives the call (the SDK copies the list);
        // `external_id_request` has the request-callback signature and writes the id only
        // inside a graph launch.
        let st = unsafe {
            configure(
                ctx,
                kinds.as_ptr(),
                kinds.len(),
                Some(callbacks::external_id_request),
                std::ptr::null_mut(),
            )
        };
        if let Err(e) = check(&self.functions, st, || {
            "rocprofiler_configure_external_correlation_id_request_service".into()
        }) {
            self.warn(format!(
                "{e}: work of HIP operations the tool does not know goes to the null stream, and graph nodes are not numbered"
            ));
        }
    }

    /// Stops tracing (finalize: the last capture window ends here).
    pub fn stop(&self) {
        let f = &self.functions;
        if let Some(stop) = f.stop_context {
            for ctx in &self.contexts {
                // SAFETY: our own context; stopping is allowed at any time.
                let st = unsafe { stop(*ctx) };
                if let Err(e) = check(f, st, || "rocprofiler_stop_context".into()) {
                    log_info!("{e}");
                }
            }
        }
    }

    /// Flushes every buffer of ours and waits for the deliveries (the runtime never flushes on
    /// its own before finalize); problems come back as warnings for the file.
    pub fn flush_all(&self) -> Vec<String> {
        self.flush_each(|_| {})
    }

    /// As [`Self::flush_all`], each buffer's records taken out of its store as soon as its flush
    /// has returned: what a cut collects (`collect::collect`). A buffer that fills often goes
    /// on delivering at its watermark while the others are flushed and the cut is drained;
    /// drained live, a cut held a few more milliseconds of kernels than of copies, and each
    /// copy not in it held its stream's later calls, waits included, apart from their event
    /// records, which were in it with their kernels (on the MaxText-shaped run cut every
    /// 10,000 records, up to 518 arrow anchors were lost in a run, `e2e_windows`). Taken at
    /// its flush, each kind is cut at its flush: what it delivers later is the next window's.
    pub fn flush_and_take(&self) -> Flushed {
        let take = |i: usize| std::mem::take(&mut *lock(&STORES[i]));
        let mut stores: [EventStore; BUFFER_SLOTS] = Default::default();
        let warnings = self.flush_each(|slot| stores[slot as usize] = take(slot as usize));
        // Without a flush (an SDK without the function), as they are. A slot without a buffer
        // has no records.
        if self.functions.flush_buffer.is_none() {
            stores = std::array::from_fn(take);
        }
        Flushed { warnings, stores }
    }

    fn flush_each(&self, mut flushed: impl FnMut(BufferSlot)) -> Vec<String> {
        let f = &self.functions;
        let mut warnings = Vec::new();
        if let Some(flush) = f.flush_buffer {
            for &(slot, buf) in &self.buffers {
                // SAFETY: our own buffer; flushing during finalize is allowed and synchronous.
                let mut st = unsafe { flush(buf) };
                let is_busy = |st| {
                    st != sys::ROCPROFILER_STATUS_SUCCESS
                        && super::status::status_name(f, st)
                            .is_some_and(|n| n.ends_with("BUFFER_BUSY"))
                };
                let mut busy = is_busy(st);
                // BUSY: a watermark flush is under way; wait for it and ask again. The delivery
                // it waits on is our own callback, which only decodes, so 2 s is generous.
                for _ in 0..FLUSH_BUSY_RETRIES {
                    if !busy {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    // SAFETY: as above.
                    st = unsafe { flush(buf) };
                    busy = is_busy(st);
                }
                if let Err(e) = check(f, st, || format!("rocprofiler_flush_buffer({slot:?})")) {
                    // Still busy after the wait: records delivered after the drain below are not
                    // in this profile, so say so in the file rather than lose them silently.
                    let e = if busy {
                        format!("{e} after {} ms; records delivered later are missing from this profile", FLUSH_BUSY_RETRIES * 2)
                    } else {
                        e.to_string()
                    };
                    log_warn!("{e}");
                    warnings.push(e);
                }
                flushed(slot);
            }
        }
        warnings
    }

    /// Stops tracing, flushes our buffers and collects everything for the join.
    pub fn finish(&self) -> Collected {
        self.stop();
        let mut flushed = self.flush_and_take();
        flushed
            .warnings
            .splice(0..0, self.setup_warnings.iter().cloned());
        crate::collect::collect(self, flushed, crate::collect::Cut::Final)
    }

    /// The operation names of our buffer kinds, for the join.
    pub fn op_names(&self) -> Vec<(ApiDomain, i32, Arc<str>)> {
        let mut v = Vec::new();
        for (domain, kind) in [
            (ApiDomain::Hip, self.buffer_kinds.hip_api),
            (ApiDomain::Marker, self.buffer_kinds.marker_api),
        ] {
            let Some(ops) = kind.and_then(|k| self.names.buffer_ops.get(&k)) else {
                continue;
            };
            for (id, name) in ops {
                v.push((domain, *id, Arc::from(name.as_str())));
            }
        }
        v
    }
}

pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into our buffer.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    if rc != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let s = String::from_utf8_lossy(&buf[..end]).into_owned();
    if s.is_empty() {
        "localhost".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn annotation_ops_cover_launches_copies_and_syncs() {
        let captured = |n: &str| crate::hip::lookup(n).is_some_and(|o| o.captured_at_entry());
        for n in [
            "hipLaunchKernel",
            "hipModuleLaunchKernel",
            "hipGraphLaunch",
            "hipMemcpyAsync",
            "hipMemcpy2DAsync",
            "hipMemsetAsync",
            "hipMemsetD32Async",
            "hipStreamSynchronize",
            "hipDeviceSynchronize",
            "hipStreamWaitEvent",
            "hipEventRecord",
            "hipEventQuery",
            // Allocations: the annotation at entry names what allocated (memory timeline).
            "hipMalloc",
            "hipHostMalloc",
        ] {
            assert!(captured(n), "{n}");
        }
        for n in ["hipGetDevice", "hipGetLastError", "hipSetDevice"] {
            assert!(!captured(n), "{n}");
        }
    }

    /// A cut takes each buffer's records when its flush returns: a kernel delivered at the
    /// kernel buffer's watermark while the copy buffer is being flushed (after the kernel
    /// flush) is the next cut's, not this one's. Drained live after every flush, as before,
    /// the cut held it, without the copies that completed beside it, and each copy missing
    /// held its stream's later waits apart from their records (e2e_windows: up to 518 arrow
    /// anchors lost in a run, 2 runs in 10).
    #[test]
    fn a_cut_takes_each_buffer_s_records_when_its_flush_returns() {
        use super::*;
        use crate::model::events::KernelRecord;
        const KERNELS: u64 = 2;
        const COPIES: u64 = 3;
        // The stand-in runtime's flush: the kernel buffer's delivers a kernel; while the copy
        // buffer is flushed, the kernel buffer passes its watermark and delivers another.
        unsafe extern "C" fn flush(buf: sys::rocprofiler_buffer_id_t) -> sys::rocprofiler_status_t {
            let late = match buf.handle {
                KERNELS => 100,
                COPIES => 200,
                _ => return sys::ROCPROFILER_STATUS_SUCCESS,
            };
            let mut st = lock(&STORES[BufferSlot::KernelDispatch as usize]);
            st.kernels.push(KernelRecord {
                correlation_id: late,
                dispatch_id: late,
                ..KERNEL
            });
            sys::ROCPROFILER_STATUS_SUCCESS
        }
        const KERNEL: KernelRecord = KernelRecord {
            correlation_id: 0,
            external_id: 0,
            start_ns: 1,
            end_ns: 2,
            thread_id: 1,
            agent: 0x10,
            queue: 0x91,
            kernel_id: 0,
            dispatch_id: 0,
            private_segment_size: 0,
            group_segment_size: 0,
            workgroup: [1, 1, 1],
            grid: [1, 1, 1],
            pipe_id: None,
        };
        lock(&STORES[BufferSlot::KernelDispatch as usize])
            .kernels
            .push(KernelRecord {
                correlation_id: 1,
                dispatch_id: 1,
                ..KERNEL
            });
        let s = Session {
            abi: Abi::V1,
            functions: Functions {
                flush_buffer: Some(flush),
                ..Functions::default()
            },
            sdk_version: String::new(),
            buffer_kinds: BufferKinds::default(),
            callback_kinds: CallbackKinds::default(),
            names: NameMaps::default(),
            hip_ops: Vec::new(),
            agents: Vec::new(),
            contexts: Vec::new(),
            buffer_context: None,
            buffers: vec![
                (
                    BufferSlot::KernelDispatch,
                    sys::rocprofiler_buffer_id_t { handle: KERNELS },
                ),
                (
                    BufferSlot::MemoryCopy,
                    sys::rocprofiler_buffer_id_t { handle: COPIES },
                ),
            ],
            start_boottime_ns: 0,
            start_walltime_ns: 0,
            setup_warnings: Vec::new(),
        };
        let ids =
            |st: &EventStore| -> Vec<u64> { st.kernels.iter().map(|k| k.correlation_id).collect() };
        let cut = s.flush_and_take();
        assert!(cut.warnings.is_empty(), "{:?}", cut.warnings);
        assert_eq!(
            ids(&cut.stores[BufferSlot::KernelDispatch as usize]),
            [1, 100]
        );
        let next = std::mem::take(&mut *lock(&STORES[BufferSlot::KernelDispatch as usize]));
        assert_eq!(ids(&next), [200]);
    }
}
