//! Draining what the tool holds into one `Collected` for the join: at finalize (the last
//! window) or at the end of a capture window while the program runs (`window`). Runs on the
//! runtime's finalize thread or our window thread, never on an application thread.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::capture;
use crate::log_debug;
use crate::log_warn;
use crate::model::events::Collected;
use crate::sdk::callbacks::{self, STORES};
use crate::sdk::session::{Flushed, Session};
use crate::store::sinks::lock;
use crate::store::EventStore;

/// Which end a collection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Finalize: tracing has stopped; open roctx ranges are closed at the end.
    Final,
    /// The end of a capture window: tracing goes on; open ranges are shown up to the cut and
    /// stay open for the next window.
    Window,
}

/// Start of the window being collected (boot-time ns, wall ns); 0 = the session's start.
static WINDOW_START_BOOT: AtomicU64 = AtomicU64::new(0);
static WINDOW_START_WALL: AtomicU64 = AtomicU64::new(0);

/// Everything held since the last cut, for the join: the records `flushed` took from the
/// stores (with its warnings), and the callbacks' facts.
pub fn collect(s: &Session, flushed: Flushed, cut: Cut) -> Collected {
    let Flushed {
        mut warnings,
        stores,
    } = flushed;
    // At finalize tracing has stopped and nothing is left for a later cut: a record delivered
    // after its buffer's flush (none is expected) is this collection's too.
    let stores: Vec<EventStore> = match cut {
        Cut::Window => stores.into(),
        Cut::Final => stores
            .into_iter()
            .chain(STORES.iter().map(|st| std::mem::take(&mut *lock(st))))
            .collect(),
    };
    let or = |v: u64, d: u64| if v == 0 { d } else { v };
    let start_boottime_ns = or(
        WINDOW_START_BOOT.load(Ordering::Relaxed),
        s.start_boottime_ns,
    );
    let start_walltime_ns = or(
        WINDOW_START_WALL.load(Ordering::Relaxed),
        s.start_walltime_ns,
    );
    let stop_boottime_ns = s.functions.timestamp();
    let stop_walltime_ns = crate::sdk::functions::walltime_ns();

    let mut c = Collected {
        hostname: crate::sdk::session::hostname(),
        pid: std::process::id(),
        sdk_version: s.sdk_version.clone(),
        start_boottime_ns,
        stop_boottime_ns,
        start_walltime_ns,
        stop_walltime_ns,
        agents: s.agents.clone(),
        ..Collected::default()
    };
    c.counters.memory_limit_dropped = crate::budget::take_dropped_and_reset();
    if c.counters.memory_limit_dropped > 0 {
        log_warn!(
            "the memory ceiling ({} MiB, ROCPROF_XPLANE_MAX_MEMORY) was reached: {} records were dropped and the profile is partial",
            crate::budget::limit().unwrap_or(0) >> 20,
            c.counters.memory_limit_dropped
        );
    }
    // The record stores and the callbacks' per-thread facts are two sources under locks of
    // their own: drained side by side when a second core may be used (the debug line below
    // gives each one's time).
    let threads = crate::config::get()
        .write_threads
        .unwrap_or_else(crate::model::join::cores);
    let began = std::time::Instant::now();
    let ((drained, facts_took), stores_took) = crate::model::join::side_by_side(
        threads,
        Records {
            api: &mut c.api,
            marker_records: &mut c.marker_records,
            kernels: &mut c.kernels,
            copies: &mut c.copies,
            hip_events: &mut c.hip_events,
            counters: &mut c.counters,
        },
        |records| {
            let began = std::time::Instant::now();
            records.drain_stores(s, stores);
            began.elapsed()
        },
        || {
            let began = std::time::Instant::now();
            let drained = capture::drain_all(stop_boottime_ns, cut == Cut::Window);
            (drained, began.elapsed())
        },
    );
    log_debug!(
        "drain on {threads} threads: {:.1} ms (per-thread facts {:.1} ms, stores {:.1} ms)",
        began.elapsed().as_secs_f64() * 1e3,
        facts_took.as_secs_f64() * 1e3,
        stores_took.as_secs_f64() * 1e3
    );
    log_debug!(
        "collected {} API ({} roctx), {} kernel, {} copy records ({} with an external correlation id)",
        c.api_record_count(),
        c.marker_records.len(),
        c.kernels.len(),
        c.copies.len(),
        c.kernels.iter().filter(|k| k.external_id != 0).count()
            + c.copies.iter().filter(|k| k.external_id != 0).count()
    );
    c.scopes = drained.scopes;
    c.calls = drained.calls;
    c.syncs = drained.syncs;
    c.memory = drained.memory;
    c.copy_ptrs = drained.copy_ptrs;
    // Stream creations stay known to later windows (their calls use streams made earlier).
    c.stream_creations = match cut {
        Cut::Final => crate::capture::devices::take_stream_creations(),
        Cut::Window => crate::capture::devices::stream_creations(),
    };
    c.markers = drained.markers;
    log_debug!(
        "captured {} annotation scopes, {} launch/copy facts, {} sync facts, {} marker spans",
        c.scopes.len(),
        c.calls.len(),
        c.syncs.len(),
        c.markers.len()
    );
    if drained.unmatched_pops > 0 {
        warnings.push(format!(
            "{} roctx pops/stops had no matching push/start",
            drained.unmatched_pops
        ));
    }
    if drained.ranges_left_open > 0 {
        warnings.push(match cut {
            Cut::Final => format!(
                "{} roctx ranges were still open at the end and were closed there",
                drained.ranges_left_open
            ),
            Cut::Window => format!(
                "{} {} (shown up to it; they go on in the next)",
                drained.ranges_left_open,
                crate::xplane::merge::RANGES_OPEN_AT_CUT
            ),
        });
    }
    c.symbols = capture::symbols::snapshot();
    for (domain, id, name) in s.op_names() {
        c.op_names.insert((domain, id), name);
    }
    c.thread_names
        .insert(u64::from(c.pid), "Main thread".to_string());
    let early = callbacks::EARLY_RECORDS.swap(0, Ordering::Relaxed);
    if early > 0 {
        warnings.push(format!(
            "{early} records arrived before the tool was ready and were not kept"
        ));
    }
    let bad = callbacks::BAD_CALLBACK_PAYLOADS.swap(0, Ordering::Relaxed);
    if bad > 0 {
        warnings.push(format!(
            "{bad} callback payloads were too small to read and were skipped"
        ));
    }
    let panics = crate::guard::caught_panics();
    if panics > 0 {
        warnings.push(format!(
            "{panics} internal errors were caught at the runtime boundary"
        ));
    }
    c.warnings = warnings;
    if cut == Cut::Window {
        WINDOW_START_BOOT.store(c.stop_boottime_ns, Ordering::Relaxed);
        WINDOW_START_WALL.store(c.stop_walltime_ns, Ordering::Relaxed);
    }
    c
}

/// Where the stores' records go in the collection.
struct Records<'a> {
    api: &'a mut Vec<crate::model::events::ApiRecord>,
    marker_records: &'a mut crate::store::PackedVec<crate::model::events::ApiRecord>,
    kernels: &'a mut crate::store::PackedVec<crate::model::events::KernelRecord>,
    copies: &'a mut Vec<crate::model::events::CopyRecord>,
    hip_events: &'a mut Vec<(
        crate::model::events::HipEventOp,
        crate::model::events::HipEventRecord,
    )>,
    counters: &'a mut crate::model::Counters,
}

impl Records<'_> {
    /// The buffered records of every store, moved into the collection.
    fn drain_stores(self, s: &Session, mut stores: Vec<EventStore>) {
        // How many records there are, so that the outputs grow in two steps toward it
        // (`chunked::room_toward`).
        let api = stores.iter().map(|st| st.api.len()).sum();
        let copies = stores.iter().map(|st| st.copies.len()).sum();
        for st in &mut stores {
            st.add_counters_to(self.counters);
            st.api.drain_into_toward(self.api, api);
            // The roctx records keep their chunks: the join reads them packed.
            self.counters.memory_limit_dropped += self
                .marker_records
                .append(std::mem::take(&mut st.marker_records));
            // Kernel records keep their chunks: the join frees each once its records are
            // events.
            self.counters.memory_limit_dropped +=
                self.kernels.append(std::mem::take(&mut st.kernels));
            st.copies.drain_into_toward(self.copies, copies);
            let mut raw = Vec::new();
            st.hip_events.drain_into(&mut raw);
            self.hip_events
                .extend(raw.into_iter().map(|r| (s.hip_event_op(r.operation), r)));
        }
        // The room left by growing in steps (`room_for`) is not kept through the join.
        self.api.shrink_to_fit();
        self.copies.shrink_to_fit();
    }
}
