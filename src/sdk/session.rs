//! One tracing session: the contexts, buffers and services set up in `initialize`, and the
//! operations the coordinator drives on them (start, stop, flush).
//!
//! Two contexts: the *buffer* context owns every buffer and every buffer-tracing service (a
//! buffer only receives records of its own context, and API and activity records must come from
//! one context to share correlation ids); the *callback* context carries callback tracing
//! (kernel symbols, roctx text, annotation capture at HIP API entry).

use std::sync::Arc;

use rocprofiler_sdk_sys as sys;

use super::agents;
use super::callbacks::{self, CallbackKinds, Dispatch, Tracer};
use super::functions::Functions;
use super::functions::{Buffer, Context};
use super::names::NameMaps;
use super::status::SdkError;
use crate::config::Config;
use crate::decode::abi::Abi;
use crate::decode::BufferKinds;
use crate::model::events::{AgentInfo, ApiDomain, HipEventOp};
use crate::recorder::BufferSlot;
use crate::{log_debug, log_info, log_warn};

pub use super::os::hostname;

/// Said once when counting starts (stderr and the profile's warnings).
pub const SERIALISES: &str = "ROCPROF_XPLANE_PMC: per-dispatch hardware counters serialise kernel dispatches on real hardware: kernels that would overlap run one after another, so the timeline shows each kernel alone and the program runs slower while counting";

/// How often (2 ms apart) a flush is asked again when it reports BUFFER_BUSY.
const FLUSH_BUSY_RETRIES: u64 = 1000;

/// A callback-tracing service to configure: its kind's name, the kind, its operations.
struct Service {
    name: &'static str,
    kind: Option<u32>,
    ops: Vec<i32>,
}

/// The roctx operations the callbacks act on (`capture::markers::MarkerOp`): marks, push/pop
/// and start/stop ranges.
const MARKER_CALLBACK_OPS: std::ops::RangeInclusive<i32> =
    sys::ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA
        ..=sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop;

pub struct Session {
    functions: Functions,
    pub abi: Abi,
    pub sdk_version: String,
    pub buffer_kinds: BufferKinds,
    pub callback_kinds: CallbackKinds,
    pub names: NameMaps,
    /// Table row of each subscribed HIP operation, indexed by operation id.
    hip_ops: Vec<Option<crate::hip::HipOp>>,
    pub agents: Vec<AgentInfo>,
    contexts: Vec<Context>,
    /// The context that owns the buffers (API and activity records share its correlation ids).
    buffer_context: Option<Context>,
    /// The context of the runtime's stream brackets (`HIP_STREAM`, SDK 1.x), started only when
    /// a call needs them ([`Session::start_brackets`], `capture::hip_stream::Brackets`); one of
    /// `contexts` from then on.
    brackets: Option<Context>,
    buffers: Vec<(BufferSlot, Buffer)>,
    /// The job clock's side of this process: the clocks read at the start, the origin, the
    /// clock reference (`job_clock`).
    pub clock: std::sync::Arc<crate::job_clock::ProcessClock>,
    /// Problems met while setting up, carried into the trace's warnings.
    pub setup_warnings: Vec<String>,
    /// The records of the HIP operations callback tracing subscribes to are built from their
    /// callbacks, and not buffer-traced (`ROCPROF_XPLANE_HIP_API_RECORDS=callbacks`).
    api_from_callbacks: bool,
    /// roctx ranges and marks take their times from their callbacks, and the roctx calls the
    /// callbacks cover are not buffer-traced (`ROCPROF_XPLANE_ROCTX_RECORDS=callbacks`).
    roctx_from_callbacks: bool,
    /// The hardware counters collected per dispatch (`ROCPROF_XPLANE_PMC`), when any.
    pub pmc: Option<super::pmc::PmcSetup>,
    /// The GPUs' counters read every interval (`ROCPROF_XPLANE_PMC_INTERVAL`), until the
    /// coordinator hands them to its sampling thread.
    pub device_counting: Option<super::device_counting::DeviceCounting>,
}

impl Session {
    /// Sets everything up (inside `initialize`, the only window where the SDK allows it),
    /// every callback recording into `tracer`, which is armed with what the callbacks need.
    /// Nothing is started yet ([`Session::start`]).
    pub fn create(
        tracer: &'static Tracer,
        abi: Abi,
        sdk_version: &str,
        cfg: &Config,
    ) -> Result<Session, String> {
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
        let mut s = Session::empty(abi, functions, sdk_version, names);
        s.clock = crate::job_clock::ProcessClock::begin(
            s.functions.clock(),
            cfg.job_start_ns,
            cfg.clock_reference.clone(),
        );
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
        // Callbacks first: which HIP calls they build records of decides which the buffer
        // traces.
        if let Err(e) = s.setup_callbacks(tracer, cfg) {
            s.warn(format!("callback tracing unavailable: {e}"));
        }
        s.api_from_callbacks = cfg.hip_api_from_callbacks
            && cfg.domains.hip
            && s.callback_kinds.hip_api.is_some()
            && s.names
                .buffer_kind("HIP_RUNTIME_API")
                .is_some_and(|k| s.names.buffer_ops.contains_key(&k));
        s.roctx_from_callbacks =
            cfg.roctx_from_callbacks && cfg.domains.marker && s.callback_kinds.marker_api.is_some();
        s.setup_buffers(tracer, cfg).map_err(|e| e.to_string())?;
        if s.callback_kinds.hip_stream.is_some() || s.callback_kinds.hip_graph.is_some() {
            s.request_activity_ids(tracer, &cfg.domains);
        }
        if cfg.pmc_interval_ms.is_some() {
            s.setup_device_counting(cfg);
        } else if !cfg.pmc.is_empty() {
            s.setup_counting(tracer, cfg);
        }
        tracer.arm(Dispatch {
            abi,
            buffer_kinds: s.buffer_kinds,
            callback_kinds: s.callback_kinds,
            hip_ops: s.hip_ops.clone(),
            buffers: s
                .buffers
                .iter()
                .map(|(slot, b)| (b.handle(), *slot))
                .collect(),
            clock: s.functions.clock(),
            api_from_callbacks: s.api_from_callbacks,
            roctx_from_callbacks: s.roctx_from_callbacks,
        });
        Ok(s)
    }

    fn empty(abi: Abi, functions: Functions, sdk_version: &str, names: NameMaps) -> Session {
        Session {
            functions,
            abi,
            sdk_version: sdk_version.to_string(),
            buffer_kinds: BufferKinds::default(),
            callback_kinds: CallbackKinds::default(),
            names,
            hip_ops: Vec::new(),
            agents: Vec::new(),
            contexts: Vec::new(),
            buffer_context: None,
            brackets: None,
            buffers: Vec::new(),
            clock: crate::job_clock::ProcessClock::begin(functions.clock(), None, None),
            setup_warnings: Vec::new(),
            api_from_callbacks: false,
            roctx_from_callbacks: false,
            pmc: None,
            device_counting: None,
        }
    }

    /// A session over stand-in `functions` with `buffers`, for tests of what drives it.
    #[cfg(test)]
    pub fn for_test(functions: Functions, buffers: Vec<(BufferSlot, Buffer)>) -> Session {
        let mut s = Session::empty(Abi::V1, functions, "", NameMaps::default());
        s.buffers = buffers;
        s
    }

    /// [`Session::for_test`] owning `contexts` (an attach starts those it is handed).
    #[cfg(test)]
    pub fn with_contexts(mut self, contexts: Vec<Context>) -> Session {
        self.contexts = contexts;
        self
    }

    /// The SDK's functions (for the counter records' names at collection).
    pub fn functions(&self) -> &Functions {
        &self.functions
    }

    fn warn(&mut self, msg: String) {
        log_warn!("{msg}");
        self.setup_warnings.push(msg);
    }

    fn is_buffer_context(&self, ctx: Context) -> bool {
        self.buffer_context == Some(ctx)
    }

    /// Starts the contexts; with `defer_buffers` the buffer context (the records) waits for
    /// [`Session::start_buffers`] (a start delay, the profiler service), while callbacks
    /// (kernel symbols, roctx stacks) run from the start so nothing they keep state for is
    /// missed.
    pub fn start(&self, defer_buffers: bool) -> Result<(), String> {
        let started = self.start_where(|ctx| !(defer_buffers && self.is_buffer_context(ctx)));
        if started == 0 && !self.contexts.is_empty() && !defer_buffers {
            return Err("no tracing context could be started".into());
        }
        Ok(())
    }

    /// Starts the contexts `pick` selects; returns how many started.
    fn start_where(&self, pick: impl Fn(Context) -> bool) -> usize {
        let mut started = 0;
        for &ctx in self.contexts.iter().filter(|c| pick(**c)) {
            match self.functions.start_context(ctx) {
                Ok(()) => started += 1,
                Err(e) => log_warn!("{e}"),
            }
        }
        started
    }

    /// Starts those of `ids` that are ours and not running (a process attachment: the SDK
    /// hands the tool its contexts and starts none of them); returns how many started.
    pub fn start_inactive(&self, ids: &[Context]) -> usize {
        let f = &self.functions;
        self.start_where(|ctx| ids.contains(&ctx) && !f.context_is_active(ctx))
    }

    /// Starts the buffer context (recording begins).
    pub fn start_buffers(&self) {
        self.start_where(|ctx| self.is_buffer_context(ctx));
    }

    /// Stops the buffer context only (no more records; callbacks keep their state); whether
    /// it was stopped (the caller then waits for the calls under way).
    pub fn stop_buffers(&self) -> bool {
        let Some(ctx) = self.buffer_context else {
            return false;
        };
        match self.functions.stop_context(ctx) {
            Ok(stopped) => stopped,
            Err(e) => {
                log_info!("{e}");
                true
            }
        }
    }

    /// Stops every context (finalize).
    pub fn stop_all(&self) {
        for &ctx in &self.contexts {
            if let Err(e) = self.functions.stop_context(ctx) {
                log_info!("{e}");
            }
        }
    }

    /// Whether the runtime's stream brackets are configured and not started.
    pub fn brackets_pending(&self) -> bool {
        self.brackets.is_some_and(|b| !self.contexts.contains(&b))
    }

    /// Starts the runtime's stream brackets (a call of a HIP function the table does not list
    /// came); from here on they start and stop with the other contexts. Whether they run.
    pub fn start_brackets(&mut self) -> bool {
        let Some(ctx) = self.brackets.filter(|_| self.brackets_pending()) else {
            return false;
        };
        match self.functions.start_context(ctx) {
            Ok(()) => {
                self.contexts.push(ctx);
                log_info!(
                    "the runtime's HIP_STREAM brackets started: a HIP function the table of HIP operations does not list was called"
                );
                true
            }
            Err(e) => {
                log_warn!("{e}");
                self.brackets = None;
                false
            }
        }
    }

    /// Now on the SDK's clock.
    pub fn timestamp(&self) -> u64 {
        self.functions.timestamp()
    }

    /// Whether buffers can be flushed.
    pub fn can_flush(&self) -> bool {
        self.functions.can_flush()
    }

    /// Flushes every buffer of ours, one after another, waiting for each delivery (the
    /// runtime never flushes on its own before finalize), and calls `flushed` with each
    /// buffer's slot as soon as its flush has returned. Problems come back as warnings for
    /// the file.
    pub fn flush_each(&self, mut flushed: impl FnMut(BufferSlot)) -> Vec<String> {
        let f = &self.functions;
        let mut warnings = Vec::new();
        if !f.can_flush() {
            return warnings;
        }
        for &(slot, buf) in &self.buffers {
            let mut result = f.flush_buffer(buf);
            let busy = |r: &Result<(), SdkError>| r.as_ref().is_err_and(|e| e.is("BUFFER_BUSY"));
            // BUSY: a watermark flush is under way; wait for it and ask again. The delivery it
            // waits on is our own callback, which only decodes, so 2 s is generous.
            for _ in 0..FLUSH_BUSY_RETRIES {
                if !busy(&result) {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
                result = f.flush_buffer(buf);
            }
            if let Err(mut e) = result {
                e.call = format!("rocprofiler_flush_buffer({slot:?})");
                // Still busy after the wait: records delivered after the drain are not in this
                // profile, so say so in the file rather than lose them silently.
                let e = if e.is("BUFFER_BUSY") {
                    format!(
                        "{e} after {} ms; records delivered later are missing from this profile",
                        FLUSH_BUSY_RETRIES * 2
                    )
                } else {
                    e.to_string()
                };
                log_warn!("{e}");
                warnings.push(e);
            }
            flushed(slot);
        }
        warnings
    }

    /// A HIP_EVENT operation by its runtime name (`…RECORD`, `…WAIT`).
    pub fn hip_event_op(&self, op: i32) -> HipEventOp {
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

    /// The operation names of our buffer kinds, for the join.
    pub fn op_names(&self) -> Vec<(ApiDomain, i32, Arc<str>)> {
        let mut v = Vec::new();
        for (domain, kind) in [
            (
                ApiDomain::Hip,
                // The records the callbacks build name their operations as the buffer would.
                self.buffer_kinds.hip_api.or(self
                    .names
                    .buffer_kind("HIP_RUNTIME_API")
                    .filter(|_| self.api_from_callbacks)),
            ),
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

    /// The buffers to make: each traced kind's slot, name and runtime kind value.
    fn wanted_buffers(&self, cfg: &Config) -> Vec<(BufferSlot, &'static str, u32)> {
        let d = cfg.domains;
        [
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
        .collect()
    }

    fn setup_buffers(&mut self, tracer: &'static Tracer, cfg: &Config) -> Result<(), SdkError> {
        let wanted = self.wanted_buffers(cfg);
        if wanted.is_empty() {
            return Ok(());
        }
        let ctx = self.functions.create_context()?;
        self.contexts.push(ctx);
        self.buffer_context = Some(ctx);
        let f = self.functions;
        for (slot, name, kind) in wanted {
            let Some(ops) = self.buffer_operations(slot, kind, cfg) else {
                log_debug!("no buffer tracing of {name}: the callbacks build its records");
                continue;
            };
            let size = cfg.buffer_size;
            let buf = match callbacks::create_buffer(&f, ctx, size, cfg.buffer_watermark(), tracer)
            {
                Ok(b) => b,
                Err(mut e) => {
                    e.call = format!("rocprofiler_create_buffer({name})");
                    self.warn(e.to_string());
                    continue;
                }
            };
            if let Err(mut e) = f.configure_buffer_tracing(ctx, kind, &ops, buf) {
                e.call = format!("rocprofiler_configure_buffer_tracing_service({name})");
                self.warn(e.to_string());
                continue;
            }
            let kinds = &mut self.buffer_kinds;
            match slot {
                BufferSlot::HipApi => kinds.hip_api = Some(kind),
                BufferSlot::MarkerApi => kinds.marker_api = Some(kind),
                BufferSlot::KernelDispatch => kinds.kernel_dispatch = Some(kind),
                BufferSlot::MemoryCopy => kinds.memory_copy = Some(kind),
                BufferSlot::HipEvent => kinds.hip_event = Some(kind),
                BufferSlot::Counters => {}
            }
            self.buffers.push((slot, buf));
            log_debug!(
                "buffer tracing of {name} (kind {kind}) on buffer {:#x}",
                buf.handle()
            );
        }
        if self.buffers.is_empty() && !self.api_from_callbacks && !self.roctx_from_callbacks {
            return Err(SdkError {
                call: "buffer tracing setup".into(),
                code: u32::MAX,
                name: Some("no buffer-tracing service could be configured".into()),
            });
        }
        Ok(())
    }

    /// The dispatch counting service for `cfg.pmc`, in the buffer context (its records share
    /// the kernel records' context, started and stopped with them), into a buffer of its own.
    /// Everything that is not collected is said once, here, on stderr and in the profile.
    fn setup_counting(&mut self, tracer: &'static Tracer, cfg: &Config) {
        let f = self.functions;
        let Some(ctx) = self.buffer_context else {
            self.warn("ROCPROF_XPLANE_PMC: no buffer-tracing context to count in; no hardware counters collected".into());
            return;
        };
        if !f.can_count_dispatches() {
            self.warn("ROCPROF_XPLANE_PMC: this rocprofiler-sdk has no dispatch counting service; no hardware counters collected".into());
            return;
        }
        let buf = match callbacks::create_buffer(
            &f,
            ctx,
            cfg.buffer_size,
            cfg.buffer_watermark(),
            tracer,
        ) {
            Ok(b) => b,
            Err(mut e) => {
                e.call = "rocprofiler_create_buffer(COUNTERS)".into();
                self.warn(format!(
                    "ROCPROF_XPLANE_PMC: {e}; no hardware counters collected"
                ));
                return;
            }
        };
        let setup = match super::pmc::PmcSetup::create(&f, ctx, buf, &self.agents, &cfg.pmc) {
            Ok(s) => s,
            Err(e) => {
                self.warn(format!(
                    "ROCPROF_XPLANE_PMC: {e}; no hardware counters collected"
                ));
                return;
            }
        };
        for line in setup.lines() {
            self.warn(line);
        }
        if setup.counts() {
            self.buffer_kinds.counters = true;
            self.buffers.push((BufferSlot::Counters, buf));
            for s in setup.selections.iter().filter(|s| !s.collected.is_empty()) {
                log_info!(
                    "ROCPROF_XPLANE_PMC: GPU {} ({:#x}) collects {}",
                    s.device,
                    s.agent,
                    s.collected.join(", ")
                );
            }
            self.warn(SERIALISES.into());
        }
        self.pmc = Some(setup);
    }

    /// The device counting service on every GPU, each in a context of its own started and
    /// stopped with the others (`sdk::device_counting`). Per-dispatch counting is off: the
    /// SDK counts a GPU one way at a time, so the `ROCPROF_XPLANE_PMC` counters are read per
    /// device instead, which is said once. Everything that is not read is said once, here.
    fn setup_device_counting(&mut self, cfg: &Config) {
        use super::device_counting::{DeviceCounting, INTERVAL_WINS};
        let f = self.functions;
        if !cfg.pmc.is_empty() {
            self.warn(INTERVAL_WINS.into());
        }
        if !f.can_count_devices() {
            self.warn("ROCPROF_XPLANE_PMC_INTERVAL: this rocprofiler-sdk has no device counting service; no device counters read".into());
            return;
        }
        match DeviceCounting::create(&f, &self.agents, &cfg.pmc) {
            Ok((dc, contexts)) => {
                for line in dc.setup.lines() {
                    self.warn(line);
                }
                for s in dc
                    .setup
                    .selections
                    .iter()
                    .filter(|s| !s.collected.is_empty())
                {
                    log_info!(
                        "ROCPROF_XPLANE_PMC_INTERVAL: GPU {} ({:#x}) reads {} every {} ms",
                        s.device,
                        s.agent,
                        s.collected.join(", "),
                        cfg.pmc_interval_ms.unwrap_or(0)
                    );
                }
                self.contexts.extend(contexts);
                if dc.counts() {
                    self.device_counting = Some(dc);
                }
            }
            Err(e) => self.warn(format!(
                "ROCPROF_XPLANE_PMC_INTERVAL: {e}; no device counters read"
            )),
        }
    }

    /// The operations to buffer-trace for `slot` (empty = all; `None`: none, the kind is not
    /// buffer-traced). HIP calls: by default only those the output needs
    /// (`hip::traced_by_default`), unless `ROCPROF_XPLANE_HIP_API=all` or the runtime did not
    /// name its operations; of those, not the ones whose records the callbacks build.
    fn buffer_operations(&self, slot: BufferSlot, kind: u32, cfg: &Config) -> Option<Vec<i32>> {
        if slot == BufferSlot::MarkerApi && self.roctx_from_callbacks {
            return self.roctx_buffer_operations(kind);
        }
        if slot != BufferSlot::HipApi || (cfg.hip_api_all && !self.api_from_callbacks) {
            return Some(Vec::new());
        }
        let Some(names) = self.names.buffer_ops.get(&kind) else {
            log_info!("HIP operation names unavailable: tracing every HIP call");
            return Some(Vec::new());
        };
        let built = self.ops_built_by_callbacks();
        let ops: Vec<i32> = names
            .iter()
            .filter(|(_, n)| cfg.hip_api_all || crate::hip::traced_by_default(n))
            .filter(|(_, n)| !built.contains(n.as_str()))
            .map(|(id, _)| *id)
            .collect();
        log_debug!(
            "buffer tracing {} of {} HIP operations (ROCPROF_XPLANE_HIP_API=all for every one); the callbacks build the records of {}",
            ops.len(),
            names.len(),
            built.len()
        );
        // An empty list would mean every operation.
        (!ops.is_empty()).then_some(ops)
    }

    /// Whether roctx ranges and marks take their times from their callbacks, the runtime
    /// buffering no record of the calls they stand for.
    pub fn roctx_from_callbacks(&self) -> bool {
        self.roctx_from_callbacks
    }

    /// The roctx operations to buffer-trace when their callbacks give the ranges and marks
    /// their times: those the callbacks do not cover (`MARKER_CALLBACK_OPS`), none when the
    /// runtime names no other (or names none: then only the callbacks' are seen).
    fn roctx_buffer_operations(&self, kind: u32) -> Option<Vec<i32>> {
        let ops: Vec<i32> = self
            .names
            .buffer_ops
            .get(&kind)
            .into_iter()
            .flatten()
            .map(|(id, _)| *id)
            .filter(|id| !MARKER_CALLBACK_OPS.contains(id))
            .collect();
        log_debug!(
            "buffer tracing {} roctx operations; the callbacks give the ranges' and marks' times (ROCPROF_XPLANE_ROCTX_RECORDS=buffer to buffer them)",
            ops.len()
        );
        // An empty list would mean every operation.
        (!ops.is_empty()).then_some(ops)
    }

    /// The names of the HIP operations whose records the callbacks build: every one callback
    /// tracing subscribes to, when `api_from_callbacks`.
    fn ops_built_by_callbacks(&self) -> std::collections::HashSet<&str> {
        if !self.api_from_callbacks {
            return Default::default();
        }
        let subscribed = |id: i32| {
            usize::try_from(id)
                .ok()
                .and_then(|i| self.hip_ops.get(i))
                .is_some_and(|row| row.is_some())
        };
        self.callback_kinds
            .hip_api
            .and_then(|k| self.names.callback_ops.get(&k))
            .into_iter()
            .flatten()
            .filter(|(id, _)| subscribed(*id))
            .map(|(_, n)| n.as_str())
            .collect()
    }

    /// The HIP operations callback tracing subscribes to, each with its table row kept by id.
    /// Annotations exist only when something pushes them (roctx); devices of copies need the
    /// stream arguments whenever copies are traced, and sync-API arguments (the seam for
    /// dependencies) whenever HIP calls are.
    fn hip_callback_ops(&mut self, cfg: &Config) -> Vec<i32> {
        let d = cfg.domains;
        let want_annotation = d.marker && (d.hip || d.kernel || d.memcpy);
        let want_devices = d.memcpy || d.hip;
        let hip_names: Vec<(i32, String)> = self
            .names
            .callback_kind("HIP_RUNTIME_API")
            .and_then(|k| self.names.callback_ops.get(&k))
            .cloned()
            .unwrap_or_default();
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
        hip_ops
    }

    /// The callback-tracing services `cfg` asks for.
    fn callback_services(&mut self, cfg: &Config) -> Vec<Service> {
        let d = cfg.domains;
        let want_annotation = d.marker && (d.hip || d.kernel || d.memcpy);
        let want_devices = d.memcpy || d.hip;
        let hip_ops = self.hip_callback_ops(cfg);
        let kind = |s: &Self, name| s.names.callback_kind(name);
        let mut services = Vec::new();
        if d.kernel {
            services.push(Service {
                name: "CODE_OBJECT",
                kind: kind(self, "CODE_OBJECT"),
                ops: vec![sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER as i32],
            });
        }
        if d.marker {
            services.push(Service {
                name: "MARKER_CORE_API",
                kind: kind(self, "MARKER_CORE_API"),
                ops: MARKER_CALLBACK_OPS.collect(),
            });
        }
        // SDK 1.x: the runtime's own stream of each call, for work the table cannot place.
        let hip_stream = kind(self, "HIP_STREAM")
            .filter(|_| cfg.hip_stream && want_devices && (d.kernel || d.memcpy));
        if hip_stream.is_some() {
            services.push(Service {
                name: "HIP_STREAM",
                kind: hip_stream,
                ops: vec![sys::ROCPROFILER_HIP_STREAM_SET as i32],
            });
        }
        // SDK 1.3.0+: which node of which graph each dispatch and copy of a launch was.
        let hip_graph = kind(self, "HIP_GRAPH").filter(|_| d.kernel || d.memcpy);
        if hip_graph.is_some() {
            services.push(Service {
                name: "HIP_GRAPH",
                kind: hip_graph,
                ops: vec![sys::ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH as i32],
            });
        }
        if want_annotation || want_devices {
            if hip_ops.is_empty() {
                self.warn(
                    "no HIP operations resolved by name: GPU work is not annotated by roctx \
                     ranges and copies are placed by their agents"
                        .into(),
                );
            } else {
                services.push(Service {
                    name: "HIP_RUNTIME_API",
                    kind: kind(self, "HIP_RUNTIME_API"),
                    ops: hip_ops,
                });
            }
        }
        services
    }

    fn setup_callbacks(&mut self, tracer: &'static Tracer, cfg: &Config) -> Result<(), SdkError> {
        if !self.functions.can_trace_callbacks() {
            return Err(super::status::absent(
                "rocprofiler_configure_callback_tracing_service",
            ));
        }
        let services = self.callback_services(cfg);
        if services.is_empty() {
            return Ok(());
        }
        let ctx = self.functions.create_context()?;
        self.contexts.push(ctx);
        let f = self.functions;
        for Service { name, kind, ops } in services {
            let Some(kind) = kind else {
                self.warn(format!("callback kind {name} not offered by this SDK"));
                continue;
            };
            // The stream brackets go in a context of their own, started on demand.
            let ctx = if name == "HIP_STREAM" {
                match f.create_context() {
                    Ok(b) => b,
                    Err(e) => {
                        self.warn(format!("HIP_STREAM callbacks unavailable: {e}"));
                        continue;
                    }
                }
            } else {
                ctx
            };
            let edge = match name {
                "HIP_STREAM" => callbacks::Edge::HipStream,
                "MARKER_CORE_API" => callbacks::Edge::Marker,
                _ => callbacks::Edge::General,
            };
            if let Err(mut e) =
                callbacks::trace_callbacks(&f, ctx, kind, &ops, self.abi, edge, tracer)
            {
                e.call = format!("rocprofiler_configure_callback_tracing_service({name})");
                self.warn(e.to_string());
                continue;
            }
            let kinds = &mut self.callback_kinds;
            match name {
                "CODE_OBJECT" => kinds.code_object = Some(kind),
                "MARKER_CORE_API" => kinds.marker_api = Some(kind),
                "HIP_STREAM" => {
                    kinds.hip_stream = Some(kind);
                    self.brackets = Some(ctx);
                }
                "HIP_GRAPH" => kinds.hip_graph = Some(kind),
                _ => kinds.hip_api = Some(kind),
            }
            log_debug!(
                "callback tracing of {name} (kind {kind}, {} ops)",
                ops.len()
            );
        }
        if cfg.domains.kernel && self.callback_kinds.code_object.is_none() {
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
    ///
    /// Only the kinds whose records are traced are asked for: the requests also count a graph
    /// launch's work (`capture::graph::note_request_on`), which the hand-off between windows
    /// waits for, so a request must stand for a record that comes.
    fn request_activity_ids(&mut self, tracer: &'static Tracer, domains: &crate::config::Domains) {
        let Some(ctx) = self.buffer_context else {
            return;
        };
        if !self.functions.can_request_external_ids() {
            return;
        }
        let kinds: Vec<_> = [
            (
                domains.kernel,
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
            ),
            (
                domains.memcpy,
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
            ),
        ]
        .into_iter()
        .filter_map(|(traced, kind)| traced.then_some(kind))
        .collect();
        if kinds.is_empty() {
            return;
        }
        if let Err(e) = callbacks::request_external_ids(&self.functions, ctx, tracer, &kinds) {
            self.warn(format!(
                "{e}: work of HIP operations the tool does not know goes to the null stream, and graph nodes are not numbered"
            ));
        }
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
}
