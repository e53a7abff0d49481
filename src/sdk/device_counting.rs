//! Periodic device counters through the SDK's device counting service
//! (`ROCPROF_XPLANE_PMC_INTERVAL`, docs/counters.md "Periodic device counters"): per GPU a
//! context of its own with the service configured for that GPU, a buffer its reads are
//! delivered to, and the counter config the service asks for when the context starts; and one
//! read of every GPU ([`DeviceCounting::read`]), which the coordinator's sampling thread
//! (`control::sampler`) makes every interval.
//!
//! **One context per GPU.** A read of a context reads every GPU configured in it, and the
//! 0.x value record does not say which GPU a value is from (1.x appends the agent). With one
//! GPU per context, the context read says it, in both families. The SDK allows this: only one
//! active context may count on an agent, and contexts counting on different agents may run
//! at once.
//!
//! **A read.** `sample` (synchronous) puts one value record per counter instance into the
//! context's buffer; the flush that follows delivers them to [`sink_callback`] before it
//! returns; their instances are summed per counter and the read becomes one
//! [`DeviceSample`] per counter, all at the time the read returned.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use rocprofiler_sdk_sys as sys;

use super::functions::{Buffer, Context, Functions};
use super::pmc::PmcSetup;
use super::status::SdkError;
use crate::guard::ffi_guard;
use crate::model::device_counters::{GRBM_COUNT, GUI_ACTIVE};
use crate::model::events::{AgentInfo, DeviceSample};
use crate::store::sinks::lock;

/// Said when both counting services are asked for: the SDK cannot run both on one GPU.
pub const INTERVAL_WINS: &str = "ROCPROF_XPLANE_PMC_INTERVAL is set: the ROCPROF_XPLANE_PMC counters are read per device every interval, not per dispatch (the SDK counts a GPU one way at a time)";

/// Bytes of each GPU's read buffer: a read of a few counters of a few hundred instances, 32–40 B
/// a record.
const READ_BUFFER_BYTES: usize = 256 << 10;

/// The value records a flush delivered: `(instance id, value)`. Written by the SDK's delivery
/// thread inside the flush, taken by the sampling thread after it.
#[derive(Default)]
struct Sink {
    values: Mutex<Vec<(u64, f64)>>,
    /// Records of another category or kind (none expected).
    other: std::sync::atomic::AtomicU64,
}

/// What the service's start callback answers for one GPU; leaked: the SDK may call it
/// whenever the context starts.
struct AgentConfig {
    config: u64,
}

/// One GPU's counting: its context, read buffer and where the buffer delivers.
#[derive(Clone, Copy)]
struct Gpu {
    agent: u64,
    ctx: Context,
    buffer: Buffer,
    sink: &'static Sink,
}

/// The device counting set up for a run.
pub struct DeviceCounting {
    functions: Functions,
    gpus: Vec<Gpu>,
    /// What each GPU counts, the names of the counters, and what is said about the rest.
    pub setup: PmcSetup,
    /// Failed reads per GPU; each GPU's first failure is said once.
    failed: Vec<u64>,
    /// Reads made so far: the next read's number (`DeviceSample::read`).
    reads: u64,
    /// The counter of each instance id met so far (`None`: not one of ours): the ids are the
    /// same in every read, and naming one is a call into the SDK.
    instance_names: HashMap<u64, Option<Arc<str>>>,
}

impl Functions {
    /// Whether this SDK has the device counting service (either family's spelling) and
    /// counter configs.
    pub fn can_count_devices(&self) -> bool {
        self.iterate_agent_supported_counters.is_some()
            && self.query_counter_info.is_some()
            && self.query_record_counter_id.is_some()
            && (self.create_counter_config.is_some() || self.create_profile_config.is_some())
            && (self.configure_device_counting.is_some()
                || self.configure_agent_profile_counting.is_some())
            && (self.sample_device_counting.is_some()
                || self.sample_agent_profile_counting.is_some())
    }

    /// Configures the device counting service of `ctx` for `agent` into `buffer`; its start
    /// callback answers with `config`.
    fn configure_device_counting(
        &self,
        ctx: Context,
        buffer: Buffer,
        agent: u64,
        config: &'static AgentConfig,
    ) -> Result<(), SdkError> {
        let spellings = [
            (
                self.configure_device_counting,
                "rocprofiler_configure_device_counting_service",
            ),
            (
                self.configure_agent_profile_counting,
                "rocprofiler_configure_agent_profile_counting_service",
            ),
        ];
        self.first_spelling(
            spellings,
            |name| format!("{name}({agent:#x})"),
            |f| {
                // SAFETY: `set_agent_config` has the service callback's signature and reads
                // its user data as the `&'static AgentConfig` passed here.
                unsafe {
                    f(
                        sys::rocprofiler_context_id_t {
                            handle: ctx.handle(),
                        },
                        sys::rocprofiler_buffer_id_t {
                            handle: buffer.handle(),
                        },
                        sys::rocprofiler_agent_id_t { handle: agent },
                        Some(set_agent_config),
                        config as *const AgentConfig as *mut c_void,
                    )
                }
            },
        )
    }

    /// One synchronous read of `ctx`'s counters into its buffer (1.x: no output array).
    fn sample_device_counting(&self, ctx: Context, seq: u64) -> Result<(), SdkError> {
        let ctx_id = sys::rocprofiler_context_id_t {
            handle: ctx.handle(),
        };
        let user = sys::rocprofiler_user_data_t { value: seq };
        let flags = sys::ROCPROFILER_COUNTER_FLAG_NONE;
        let mut last = Err(super::status::absent(
            "rocprofiler_sample_device_counting_service",
        ));
        if let Some(f) = self.sample_device_counting {
            // SAFETY: a context of ours; no output array (null, null): records go to the
            // context's buffer.
            let code = unsafe {
                f(
                    ctx_id,
                    user,
                    flags,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                )
            };
            match self.check(code, || "rocprofiler_sample_device_counting_service".into()) {
                Err(e) if e.is("NOT_IMPLEMENTED") => last = Err(e),
                done => return done,
            }
        }
        if let Some(f) = self.sample_agent_profile_counting {
            // SAFETY: a context of ours; plain values.
            let code = unsafe { f(ctx_id, user, flags) };
            return self.check(code, || {
                "rocprofiler_sample_agent_profile_counting_service".into()
            });
        }
        last
    }
}

/// At the start of a GPU's context: its counter config.
unsafe extern "C" fn set_agent_config(
    ctx: sys::rocprofiler_context_id_t,
    _agent: sys::rocprofiler_agent_id_t,
    set_config: sys::rocprofiler_device_counting_agent_cb_t,
    data: *mut c_void,
) {
    ffi_guard("device counting start callback", (), || {
        let Some(set_config) = set_config else { return };
        if data.is_null() {
            return;
        }
        // SAFETY: `data` is the `&'static AgentConfig` registered with this callback.
        let config = unsafe { &*(data as *const AgentConfig) };
        // SAFETY: the SDK's function, called during its callback as documented.
        let code = unsafe {
            set_config(
                ctx,
                sys::rocprofiler_counter_config_id_t {
                    handle: config.config,
                },
            )
        };
        if code != sys::ROCPROFILER_STATUS_SUCCESS {
            crate::log_warn!(
                "ROCPROF_XPLANE_PMC_INTERVAL: the SDK refused a GPU's counter config (status {code}): that GPU's counters are not read"
            );
        }
    })
}

/// A GPU's read buffer delivering: the value records' instance ids and values, kept for the
/// sampling thread.
unsafe extern "C" fn sink_callback(
    _context: sys::rocprofiler_context_id_t,
    _buffer: sys::rocprofiler_buffer_id_t,
    headers: *mut *mut sys::rocprofiler_record_header_t,
    num_headers: usize,
    data: *mut c_void,
    _drop_count: u64,
) {
    ffi_guard("device counting buffer", (), || {
        if data.is_null() || headers.is_null() {
            return;
        }
        // SAFETY: `data` is the `&'static Sink` registered with this buffer.
        let sink = unsafe { &*(data as *const Sink) };
        // SAFETY: the SDK passes `num_headers` header pointers, valid during the callback.
        let headers = unsafe { std::slice::from_raw_parts(headers, num_headers) };
        let mut values = lock(&sink.values);
        for &h in headers {
            if h.is_null() {
                continue;
            }
            // SAFETY: a valid header; the hash member covers category and kind.
            let (hash, payload) = unsafe { ((*h).__bindgen_anon_1.hash, (*h).payload) };
            let (category, kind) = ((hash & 0xffff_ffff) as u32, (hash >> 32) as u32);
            if category != sys::ROCPROFILER_BUFFER_CATEGORY_COUNTERS
                || kind != sys::ROCPROFILER_COUNTER_RECORD_VALUE
                || payload.is_null()
            {
                sink.other
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                continue;
            }
            // SAFETY: a value record of either family holds at least the 0.x record.
            let r = unsafe {
                (payload as *const sys::rocprofiler_counter_record_v0_t).read_unaligned()
            };
            values.push((r.id, r.counter_value));
        }
    })
}

/// The counters asked of every GPU: the two `GPU_UTIL` is made of, then the user's.
pub fn requested(user: &[String]) -> Vec<String> {
    let mut all: Vec<String> = vec![GUI_ACTIVE.into(), GRBM_COUNT.into()];
    for n in user {
        if !all.contains(n) {
            all.push(n.clone());
        }
    }
    all
}

impl DeviceCounting {
    /// Sets up device counting of `user`'s counters (and the two GRBM counters) on every GPU
    /// of `agents`: per GPU a context, a read buffer and a config. Returns the contexts to
    /// start with the others. Inside `initialize` only (contexts and services are configured
    /// there).
    pub fn create(
        f: &Functions,
        agents: &[AgentInfo],
        user: &[String],
    ) -> Result<(DeviceCounting, Vec<Context>), SdkError> {
        let asked = requested(user);
        let (setup, configs) = PmcSetup::choose(f, agents, &asked, "ROCPROF_XPLANE_PMC_INTERVAL");
        let mut gpus = Vec::new();
        for (agent, config) in configs {
            let ctx = f.create_context()?;
            let sink: &'static Sink = Box::leak(Box::default());
            // SAFETY: `sink_callback` has the buffer-callback signature and reads its user
            // data as the `&'static Sink` passed here, alive for the process.
            let buffer = unsafe {
                f.create_buffer(
                    ctx,
                    READ_BUFFER_BYTES,
                    READ_BUFFER_BYTES - 64,
                    Some(sink_callback),
                    sink as *const Sink as *mut c_void,
                )
            }?;
            let answer: &'static AgentConfig = Box::leak(Box::new(AgentConfig { config }));
            f.configure_device_counting(ctx, buffer, agent, answer)?;
            gpus.push(Gpu {
                agent,
                ctx,
                buffer,
                sink,
            });
        }
        let contexts = gpus.iter().map(|g| g.ctx).collect();
        let n = gpus.len();
        Ok((
            DeviceCounting {
                functions: *f,
                gpus,
                setup,
                failed: vec![0; n],
                reads: 0,
                instance_names: HashMap::new(),
            },
            contexts,
        ))
    }

    /// Whether any GPU is read.
    pub fn counts(&self) -> bool {
        !self.gpus.is_empty()
    }

    /// Reads every GPU once (`seq`: the read's user data for the SDK): one sample per counter
    /// of each GPU read, its instances summed, at the time its `sample` call returned (before
    /// the flush that delivers its values), with the read's number in the run. A GPU whose
    /// read fails (its context not started, or stopped by a detach) gives none; its first
    /// failure is said.
    pub fn read(&mut self, seq: u64) -> Vec<DeviceSample> {
        let f = self.functions;
        let mut out = Vec::new();
        let number = self.reads;
        self.reads += 1;
        for i in 0..self.gpus.len() {
            let g = self.gpus[i];
            lock(&g.sink.values).clear();
            // The read's time is when `sample` returned, not after the flush: the flush waits
            // for the SDK's delivery thread, which a loaded machine can keep waiting for
            // milliseconds.
            let sampled = f.sample_device_counting(g.ctx, seq);
            let time_ns = f.timestamp();
            let read = sampled.and_then(|()| f.flush_buffer(g.buffer));
            if let Err(e) = read {
                self.failed[i] += 1;
                if self.failed[i] == 1 {
                    crate::log_info!(
                        "ROCPROF_XPLANE_PMC_INTERVAL: a read of GPU {:#x} failed ({e}); reads of it are skipped until it counts",
                        g.agent
                    );
                }
                continue;
            }
            let values = std::mem::take(&mut *lock(&g.sink.values));
            out.extend(self.sum(g.agent, (number, time_ns), values));
        }
        out
    }

    /// The values of one read of `agent`, named and their instances summed, one per counter.
    fn sum(
        &mut self,
        agent: u64,
        (read, time_ns): (u64, u64),
        values: Vec<(u64, f64)>,
    ) -> Vec<DeviceSample> {
        let (setup, f) = (&self.setup, &self.functions);
        let mut sums: Vec<DeviceSample> = Vec::new();
        for (instance, value) in values {
            let name = self
                .instance_names
                .entry(instance)
                .or_insert_with(|| setup.counter_name(f, instance));
            let Some(name) = name else { continue };
            match sums.iter_mut().find(|s| Arc::ptr_eq(&s.counter, name)) {
                Some(s) => s.value += value,
                None => sums.push(DeviceSample {
                    agent,
                    read,
                    time_ns,
                    counter: name.clone(),
                    value,
                }),
            }
        }
        sums
    }

    /// Reads that failed, over every GPU.
    pub fn failed_reads(&self) -> u64 {
        self.failed.iter().sum()
    }
}

/// Stand-in SDK functions for the sampling thread's tests: a read that succeeds at once, or one
/// that takes `READ_STUCK` (a read stuck in the SDK); and, for the coordinator's tests, a GPU
/// whose reads count only once its context started, as the SDK's do.
#[cfg(test)]
pub mod stand_in {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};

    pub const READ_STUCK: std::time::Duration = std::time::Duration::from_secs(6);

    /// Stand-in SDK functions: `sample` as the device counting service's read, `flush` as the
    /// buffer flush, the functions `more` by name; every other one absent.
    fn functions(sample: *const (), flush: *const (), more: &[(&[u8], *const ())]) -> Functions {
        Functions::resolve(|name| {
            let f = match name.to_bytes() {
                b"rocprofiler_sample_device_counting_service" => sample,
                b"rocprofiler_flush_buffer" => flush,
                other => more
                    .iter()
                    .find(|(n, _)| *n == other)
                    .map_or(std::ptr::null(), |&(_, f)| f),
            };
            f as *mut c_void
        })
    }

    extern "C" fn quick(
        _: sys::rocprofiler_context_id_t,
        _: sys::rocprofiler_user_data_t,
        _: sys::rocprofiler_counter_flag_t,
        _: *mut sys::rocprofiler_counter_record_v1_t,
        _: *mut usize,
    ) -> sys::rocprofiler_status_t {
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    extern "C" fn stuck(
        c: sys::rocprofiler_context_id_t,
        u: sys::rocprofiler_user_data_t,
        f: sys::rocprofiler_counter_flag_t,
        o: *mut sys::rocprofiler_counter_record_v1_t,
        n: *mut usize,
    ) -> sys::rocprofiler_status_t {
        std::thread::sleep(READ_STUCK);
        quick(c, u, f, o, n)
    }

    extern "C" fn flush(_: sys::rocprofiler_buffer_id_t) -> sys::rocprofiler_status_t {
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    /// Device counting of one GPU over stand-in functions; `stuck`: its reads never return in
    /// time.
    pub fn counting(stuck_reads: bool) -> DeviceCounting {
        let sample: *const () = if stuck_reads {
            stuck as *const ()
        } else {
            quick as *const ()
        };
        over(functions(sample, flush as *const (), &[]), 1)
    }

    fn over(functions: Functions, ctx: u64) -> DeviceCounting {
        DeviceCounting {
            functions,
            gpus: vec![Gpu {
                agent: 0x10,
                ctx: Context::from_raw(sys::rocprofiler_context_id_t { handle: ctx }),
                buffer: Buffer::for_test(2),
                sink: Box::leak(Box::default()),
            }],
            setup: PmcSetup::empty("ROCPROF_XPLANE_PMC_INTERVAL"),
            failed: vec![0],
            reads: 0,
            instance_names: HashMap::new(),
        }
    }

    /// When [`counting_with_slow_flush`]'s read happens, on its stand-in clock (ns).
    pub const READ_AT_NS: u64 = 1_000_000;
    /// How long its flush takes, on that clock: as long as a loaded machine can keep the
    /// SDK's delivery thread waiting.
    pub const FLUSH_TAKES_NS: u64 = 50_000_000;
    /// The counter id its one value record is of, and that id's name.
    pub const SLOW_COUNTER: (u64, &str) = (7, "SQ_WAVES");
    /// The stand-in clock of [`counting_with_slow_flush`], and the sink its flush delivers
    /// into. One test owns them.
    static NOW_NS: AtomicU64 = AtomicU64::new(0);
    static SLOW_SINK: AtomicPtr<Sink> = AtomicPtr::new(std::ptr::null_mut());

    extern "C" fn stand_in_clock(ts: *mut u64) -> sys::rocprofiler_status_t {
        // SAFETY: the caller passes a writable timestamp.
        unsafe { ts.write(NOW_NS.load(Ordering::SeqCst)) };
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    /// Delivers the read's one value record, and takes [`FLUSH_TAKES_NS`] doing it.
    extern "C" fn slow_flush(_: sys::rocprofiler_buffer_id_t) -> sys::rocprofiler_status_t {
        let sink = SLOW_SINK.load(Ordering::SeqCst);
        if !sink.is_null() {
            // SAFETY: the leaked sink `counting_with_slow_flush` stored.
            lock(unsafe { &(*sink).values }).push((1, 3.0));
        }
        NOW_NS.fetch_add(FLUSH_TAKES_NS, Ordering::SeqCst);
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    extern "C" fn record_counter_id(
        _: sys::rocprofiler_counter_instance_id_t,
        id: *mut sys::rocprofiler_counter_id_t,
    ) -> sys::rocprofiler_status_t {
        // SAFETY: the caller passes a writable id.
        unsafe {
            id.write(sys::rocprofiler_counter_id_t {
                handle: SLOW_COUNTER.0,
            })
        };
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    /// Device counting of one GPU whose read happens at [`READ_AT_NS`] and whose flush, which
    /// delivers one value of [`SLOW_COUNTER`], takes [`FLUSH_TAKES_NS`] more.
    pub fn counting_with_slow_flush() -> DeviceCounting {
        let functions = functions(
            quick as *const (),
            slow_flush as *const (),
            &[
                (b"rocprofiler_get_timestamp", stand_in_clock as *const ()),
                (
                    b"rocprofiler_query_record_counter_id",
                    record_counter_id as *const (),
                ),
            ],
        );
        // The read takes no time: the clock stands at the read's time until the flush.
        NOW_NS.store(READ_AT_NS, Ordering::SeqCst);
        let mut dc = over(functions, 1);
        SLOW_SINK.store(
            dc.gpus[0].sink as *const Sink as *mut Sink,
            Ordering::SeqCst,
        );
        dc.setup = PmcSetup::naming(
            "ROCPROF_XPLANE_PMC_INTERVAL",
            &[(SLOW_COUNTER.0, SLOW_COUNTER.1)],
        );
        dc
    }

    /// The context of [`counting_once_started`]'s GPU.
    pub const STARTED_CTX: u64 = 0x51;
    /// Whether [`STARTED_CTX`] runs; the reads of it that counted. One test owns them.
    static RUNNING: AtomicBool = AtomicBool::new(false);
    static COUNTED: AtomicU64 = AtomicU64::new(0);

    extern "C" fn start(ctx: sys::rocprofiler_context_id_t) -> sys::rocprofiler_status_t {
        if ctx.handle != STARTED_CTX {
            return sys::ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID;
        }
        RUNNING.store(true, Ordering::SeqCst);
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    extern "C" fn is_active(
        _: sys::rocprofiler_context_id_t,
        status: *mut std::ffi::c_int,
    ) -> sys::rocprofiler_status_t {
        // SAFETY: the caller passes a writable status.
        unsafe { status.write(RUNNING.load(Ordering::SeqCst).into()) };
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    extern "C" fn sample_once_started(
        _: sys::rocprofiler_context_id_t,
        _: sys::rocprofiler_user_data_t,
        _: sys::rocprofiler_counter_flag_t,
        _: *mut sys::rocprofiler_counter_record_v1_t,
        _: *mut usize,
    ) -> sys::rocprofiler_status_t {
        if !RUNNING.load(Ordering::SeqCst) {
            return sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED;
        }
        COUNTED.fetch_add(1, Ordering::SeqCst);
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    /// The SDK functions of a GPU whose counters count once its context ([`STARTED_CTX`])
    /// started: a read before fails, as the SDK's does. With the device counting of that GPU
    /// over them.
    pub fn counting_once_started() -> (Functions, DeviceCounting) {
        let functions = functions(
            sample_once_started as *const (),
            flush as *const (),
            &[
                (b"rocprofiler_start_context", start as *const ()),
                (b"rocprofiler_context_is_active", is_active as *const ()),
            ],
        );
        (functions, over(functions, STARTED_CTX))
    }

    /// The reads of [`counting_once_started`]'s GPU that counted (its context was started).
    pub fn counted_reads() -> u64 {
        COUNTED.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::stand_in;

    /// A read's samples are at the time its `sample` call returned, however long the flush
    /// that delivers its values takes: a point's time is the read's, not the delivery's.
    #[test]
    fn a_read_is_timed_when_its_sample_returns_not_after_the_flush() {
        let mut dc = stand_in::counting_with_slow_flush();
        let samples = dc.read(0);
        assert_eq!(samples.len(), 1, "one counter read once");
        let s = &samples[0];
        assert_eq!(&*s.counter, stand_in::SLOW_COUNTER.1);
        assert_eq!(s.value, 3.0);
        assert_eq!(
            s.time_ns,
            stand_in::READ_AT_NS,
            "the flush took {} ns more",
            stand_in::FLUSH_TAKES_NS
        );
    }
}
