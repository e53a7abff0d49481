//! Everything held since the last cut, gathered into one `Collected` for the join: the records
//! the cut took from the buffer stores, the facts the callbacks kept per thread, the kernel
//! symbols, the operation names, and the warnings of what went wrong on the way. Runs on the
//! coordinator's thread, never on an application thread.

use std::time::Instant;

use crate::job_clock::CutClock;
use crate::log_debug;
use crate::log_warn;
use crate::model::events::{
    ApiRecord, Collected, CopyRecord, HipEventOp, HipEventRecord, MarkerRecord,
};
use crate::recorder::{Recorder, BUFFER_SLOTS};
use crate::sdk::Session;
use crate::store::{EventStore, PackedVec};

/// Which end a collection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Finalize: tracing has stopped; open roctx ranges are closed at the end, and nothing is
    /// left for a later cut.
    Final,
    /// The end of a window: tracing goes on; open ranges are shown up to the cut and stay open
    /// for the next window.
    Window,
}

/// What a cut's flush took: the flush's warnings, and each buffer slot's records as they were
/// when its flush returned.
pub struct Flushed {
    pub warnings: Vec<String>,
    pub stores: [EventStore; BUFFER_SLOTS],
}

/// Where a collection's records and facts come from.
pub struct Sources<'a> {
    pub recorder: &'a Recorder,
    pub session: &'a Session,
    /// The clocks at the start of the window being collected; `None` = the session's start.
    /// A window's end is the next one's start.
    pub window_start: &'a mut Option<CutClock>,
    /// Which roctx ranges are steps besides the frameworks' own (`STEP_RANGE`).
    pub step_rule: Option<&'a crate::model::steps::StepRule>,
}

/// Everything held since the last cut: the records `flushed` took from the stores (with its
/// warnings), and the callbacks' facts.
pub fn collect(src: Sources<'_>, flushed: Flushed, end: End) -> Collected {
    let Sources {
        recorder,
        session: s,
        window_start,
        step_rule,
    } = src;
    let Flushed {
        mut warnings,
        stores,
    } = flushed;
    // At finalize tracing has stopped and nothing is left for a later cut: a record delivered
    // after its buffer's flush (none is expected) is this collection's too.
    let stores: Vec<EventStore> = match end {
        End::Window => stores.into(),
        End::Final => stores
            .into_iter()
            .chain((0..BUFFER_SLOTS).map(|slot| recorder.take_store(slot)))
            .collect(),
    };
    let start = window_start.unwrap_or_else(|| s.clock.at_start());
    let stop = s.clock.now();

    let mut c = Collected {
        hostname: crate::sdk::os::hostname(),
        pid: std::process::id(),
        sdk_version: s.sdk_version.clone(),
        step_rule: step_rule.cloned(),
        start_boottime_ns: start.pair.boot_ns,
        stop_boottime_ns: stop.pair.boot_ns,
        start_walltime_ns: start.pair.wall_ns,
        stop_walltime_ns: stop.pair.wall_ns,
        clock: s.clock.facts(start, stop),
        agents: s.agents.clone(),
        ..Collected::default()
    };
    c.counters.memory_limit_dropped = recorder.take_dropped();
    if c.counters.memory_limit_dropped > 0 {
        log_warn!(
            "the memory ceiling ({} MiB, ROCPROF_XPLANE_MAX_MEMORY) was reached: {} records were dropped and the profile is partial",
            recorder.budget().limit().unwrap_or(0) >> 20,
            c.counters.memory_limit_dropped
        );
    }
    let (unmatched_pops, ranges_left_open) = drain(recorder, s, stores, &mut c, end);
    c.device_samples = recorder.take_device_samples();
    if unmatched_pops > 0 {
        warnings.push(format!(
            "{unmatched_pops} roctx pops/stops had no matching push/start"
        ));
    }
    if ranges_left_open > 0 {
        warnings.push(match end {
            End::Final => format!(
                "{ranges_left_open} roctx ranges were still open at the end and were closed there"
            ),
            End::Window => format!(
                "{ranges_left_open} {}{}",
                crate::xplane::merge::RANGES_OPEN_AT_CUT,
                crate::xplane::merge::RANGES_GO_ON
            ),
        });
    }
    c.symbols = recorder.capture().symbols().snapshot();
    for (domain, id, name) in s.op_names() {
        c.op_names.insert((domain, id), name);
    }
    c.thread_names
        .insert(u64::from(c.pid), "Main thread".to_string());
    let early = recorder.take_early_records();
    if early > 0 {
        warnings.push(format!(
            "{early} records arrived before the tool was ready and were not kept"
        ));
    }
    let bad = recorder.take_bad_payloads();
    if bad > 0 {
        warnings.push(format!(
            "{bad} callback payloads were too small to read and were skipped"
        ));
    }
    let unplaced = recorder.capture().streams().brackets().take_unplaced();
    if unplaced > 0 {
        warnings.push(format!(
            "{unplaced} calls of HIP functions the table of HIP operations does not list came before the runtime's HIP_STREAM brackets started: their work is on the current device's null stream"
        ));
    }
    let panics = crate::guard::caught_panics();
    if panics > 0 {
        warnings.push(format!(
            "{panics} internal errors were caught at the runtime boundary"
        ));
    }
    warnings.extend(s.clock.reference_warning());
    c.warnings.append(&mut warnings);
    if end == End::Window {
        *window_start = Some(stop);
    }
    c
}

/// The record stores and the callbacks' per-thread facts into `c`; returns the roctx pops that
/// had no push and the ranges left open. The two sources are under locks of their own:
/// drained side by side when a second core may be used (the debug line gives each one's time).
fn drain(
    recorder: &Recorder,
    s: &Session,
    stores: Vec<EventStore>,
    c: &mut Collected,
    end: End,
) -> (u64, u64) {
    let threads = crate::config::get()
        .write_threads
        .unwrap_or_else(crate::model::join::cores);
    let began = Instant::now();
    // The drain's own top of the tool's heap starts here (`heap-stats` builds).
    let _ = crate::heap::interval_peak();
    let stop_ns = c.stop_boottime_ns;
    let ((mut drained, facts_took), stores_took) = crate::model::join::side_by_side(
        threads,
        Records {
            api: &mut c.api,
            marker_records: &mut c.marker_records,
            kernels: &mut c.kernels,
            copies: &mut c.copies,
            hip_events: &mut c.hip_events,
            counter_values: &mut c.counter_values,
            counters: &mut c.counters,
        },
        |records| {
            let began = Instant::now();
            records.drain_stores(s, stores);
            began.elapsed()
        },
        || {
            let began = Instant::now();
            let drained = recorder.capture().drain(stop_ns, end == End::Window);
            (drained, began.elapsed())
        },
    );
    // The HIP calls' records the callbacks built join those the buffer delivered (the join
    // finds records by id, never by order).
    let built = std::mem::take(&mut drained.api);
    recorder.selftime().records_built(built.len() as u64);
    c.counters.api_records += built.len() as u64;
    c.counters.memory_limit_dropped += c.api.append(built);
    let top = crate::heap::interval_peak().map_or(String::new(), |top| {
        format!(" (tool heap top {:.1} MB)", top as f64 / 1e6)
    });
    log_debug!(
        "drain on {threads} threads: {:.1} ms (per-thread facts {:.1} ms, stores {:.1} ms){top}",
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
    c.counters.memory_limit_dropped += drained.refused;
    c.syncs = drained.syncs;
    c.memory = drained.memory;
    c.graph_launches = drained.graph_launches;
    c.copy_ptrs = drained.copy_ptrs;
    // Stream creations stay known to later windows (their calls use streams made earlier).
    let streams = recorder.capture().streams();
    c.stream_creations = match end {
        End::Final => streams.take_creations(),
        End::Window => streams.creations(),
    };
    c.markers = drained.markers;
    if s.roctx_from_callbacks() {
        // The roctx calls the spans stand for have records the callbacks built, not the
        // runtime's buffer: counted as the buffered ones were.
        let n = roctx_calls(&c.markers, end == End::Final);
        recorder.selftime().records_built(n);
        c.counters.marker_records += n;
        c.roctx_calls_built = n;
    }
    log_debug!(
        "captured {} annotation scopes, {} launch/copy facts, {} sync facts, {} marker spans",
        c.scopes.len(),
        c.calls.len(),
        c.syncs.len(),
        c.markers.len()
    );
    (drained.unmatched_pops, drained.ranges_left_open)
}

/// Where the stores' records go in the collection.
struct Records<'a> {
    api: &'a mut PackedVec<ApiRecord>,
    marker_records: &'a mut PackedVec<MarkerRecord>,
    kernels: &'a mut PackedVec<crate::model::events::KernelRecord>,
    copies: &'a mut Vec<CopyRecord>,
    hip_events: &'a mut Vec<(HipEventOp, HipEventRecord)>,
    counter_values: &'a mut Vec<crate::model::events::CounterValue>,
    counters: &'a mut crate::model::Counters,
}

impl Records<'_> {
    /// The buffered records of every store, moved into the collection.
    fn drain_stores(self, s: &Session, mut stores: Vec<EventStore>) {
        // How many records there are, so that the outputs grow in two steps toward it
        // (`chunked::room_toward`).
        let copies = stores.iter().map(|st| st.copies.len()).sum();
        let (mut samples, mut dispatches) = (Vec::new(), Vec::new());
        for st in &mut stores {
            st.pmc_samples.drain_into(&mut samples);
            st.pmc_dispatches.drain_into(&mut dispatches);
            st.add_counters_to(self.counters);
            // The API records keep their chunks: the join reads them packed.
            self.counters.memory_limit_dropped += self.api.append(std::mem::take(&mut st.api));
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
        if let (Some(pmc), false) = (&s.pmc, samples.is_empty()) {
            let (values, unnamed) = pmc.values(s.functions(), samples, &dispatches);
            self.counter_values.extend(values);
            self.counters.unknown_kind_records += unnamed;
        }
        // The room left by growing in steps (`room_for`) is not kept through the join.
        self.copies.shrink_to_fit();
    }
}

/// The roctx calls `spans` stand for, each counted once over a run's windows: a mark's call, a
/// closed range's push and pop (in the window it closes in), and, at the run's end
/// (`final_end`), the push of a range still open. A range shown open at a window's cut is
/// shown again in the next window: it is counted when it closes.
fn roctx_calls(spans: &[crate::model::events::MarkerSpan], final_end: bool) -> u64 {
    spans
        .iter()
        .map(|m| match (m.instant, m.close_correlation_id) {
            (true, _) => 1,
            (false, 0) => u64::from(final_end && m.open_correlation_id != 0),
            (false, _) => 1 + u64::from(m.open_correlation_id != 0),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::roctx_calls;
    use crate::model::events::MarkerSpan;

    fn span(open: u64, close: u64, instant: bool) -> MarkerSpan {
        MarkerSpan {
            open_correlation_id: open,
            close_correlation_id: close,
            instant,
            open_at_end: close == 0,
            ..MarkerSpan::default()
        }
    }

    #[test]
    fn roctx_calls_count_each_call_once_across_windows() {
        let mark = span(5, 5, true);
        let range = span(6, 9, false);
        let open = span(7, 0, false);
        // A window's cut: the mark and the closed range, the open range not yet.
        assert_eq!(
            roctx_calls(&[mark.clone(), range.clone(), open.clone()], false),
            3
        );
        // The next window: the range closes there (push and pop), and at the run's end a
        // range still open counts its push.
        assert_eq!(roctx_calls(&[span(7, 12, false)], false), 2);
        assert_eq!(roctx_calls(&[open], true), 1);
        // A pop whose push came before the tool (no push id).
        assert_eq!(roctx_calls(&[span(0, 12, false)], true), 1);
    }
}
