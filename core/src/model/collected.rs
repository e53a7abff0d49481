//! Everything collected in one process (or one capture window of it), ready for the join:
//! this window's records and facts, and apart from them what the run's other windows hand to
//! it or ask of it (`Carried`).

use std::collections::HashMap;
use std::sync::Arc;

use super::memory::LiveMemory;
use super::trace::{Anchor, StreamTail};
use crate::clock::ClockFacts;
use crate::facts::{
    AgentInfo, ApiDomain, ApiRecord, CallFact, CopyPtrs, CopyRecord, CounterValue, Counters,
    DeviceSample, GraphLaunchFact, HipEventOp, HipEventRecord, KernelRecord, KernelSymbol,
    MarkerRecord, MarkerSpan, MemFact, StreamCreation, SyncFact,
};
use crate::store::chunked::{ChunkedVec, THREAD_CHUNK};
use crate::store::PackedVec;

/// The scopes of the calls (`Collected::scopes`): (correlation id, scope) in the chunks the
/// threads captured them in.
pub type Scopes = ChunkedVec<(u64, i64), THREAD_CHUNK>;

/// Everything collected in one process, ready for `join`.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    pub hostname: String,
    pub pid: u32,
    pub sdk_version: String,
    /// The user's rule for the roctx ranges that are steps (`STEP_RANGE`); the frameworks'
    /// own step marks need none (`xplane::steps`).
    pub step_rule: Option<super::steps::StepRule>,
    pub start_boottime_ns: u64,
    pub stop_boottime_ns: u64,
    pub start_walltime_ns: u64,
    pub stop_walltime_ns: u64,
    /// The job's origin, how exact the start and stop readings above are, and this host's
    /// offset to the job's clock reference then (`clock`).
    pub clock: ClockFacts,
    pub agents: Vec<AgentInfo>,
    /// HIP API records (and, in a collection made otherwise than by the tool, roctx ones) as
    /// the stores packed them (`store::packed`, 20 B a call): the join reads them packed to
    /// the host events, never unpacked whole.
    pub api: PackedVec<ApiRecord>,
    /// roctx API records as the stores packed them (16 B a call; the tool's own collection: a
    /// collection made otherwise may hold its roctx records in `api`). Most stand for a span of
    /// `markers` and only give it its times: the join reads them here, packed, and moves only
    /// the others into `api`.
    pub marker_records: PackedVec<MarkerRecord>,
    pub kernels: PackedVec<KernelRecord>,
    pub copies: Vec<CopyRecord>,
    pub markers: Vec<MarkerSpan>,
    /// The roctx calls whose callbacks gave `markers` their times, the runtime buffering no
    /// record of them (`ROCTX_RECORDS=callbacks`): records delivered, for the count windows.
    pub roctx_calls_built: u64,
    /// The innermost roctx scope open at each API entry, keyed by internal correlation id
    /// (the stack is that scope's chain of parents in `markers`): in the chunks the threads
    /// captured them in, moved as they are from the threads to the annotations stage, which
    /// frees each once read.
    pub scopes: Scopes,
    /// Device and stream of launch/copy calls, keyed by internal correlation id: kept packed
    /// (16 B a call, its stream's facts shared) from the threads' stores to the join's call
    /// tables, which read them once.
    pub calls: PackedVec<CallFact>,
    /// Arguments of synchronization calls, keyed by internal correlation id.
    pub syncs: Vec<SyncFact>,
    /// Streams created in this capture window.
    pub stream_creations: Vec<StreamCreation>,
    /// Allocations, frees, registrations of memory (the memory timeline, the copies' kinds).
    pub memory: Vec<MemFact>,
    /// The pointers each copy call named.
    pub copy_ptrs: Vec<CopyPtrs>,
    /// How many dispatches and copies each graph launch made, where the runtime tells it
    /// (`model::carry` holds a launch until they all came).
    pub graph_launches: Vec<GraphLaunchFact>,
    /// HIP event barriers (GPU-side record/wait times), when the runtime offers them.
    pub hip_events: Vec<(HipEventOp, HipEventRecord)>,
    /// Hardware-counter values of the dispatches, one per counter instance (`model::pmc`).
    pub counter_values: Vec<CounterValue>,
    /// Reads of the GPUs' device counters (`model::device_counters`), the last reads of the
    /// window before first.
    pub device_samples: Vec<DeviceSample>,
    pub symbols: HashMap<u64, KernelSymbol>,
    /// `(domain, operation) → name` from the runtime's name queries.
    pub op_names: HashMap<(ApiDomain, i32), Arc<str>>,
    /// Thread names known to the tool (tid → name).
    pub thread_names: HashMap<u64, String>,
    /// Counts gathered while collecting (decode skips, runtime drops).
    pub counters: Counters,
    pub warnings: Vec<String>,
    /// What the run's other capture windows hand to this one or ask of it: none of it is a
    /// record of this window.
    pub carried: Carried,
}

/// What crosses from one capture window of a run to another (`model::carry`): facts an
/// earlier window hands on for this one's join to read beside its own records, and what the
/// next window asks this one's join to find. Empty for a run written whole.
#[derive(Debug, Clone, Default)]
pub struct Carried {
    /// Spans that only name the scopes of calls handed on to this window: read for their
    /// labels and the scope tree, never shown (they were shown in their own window).
    pub scope_context: Vec<MarkerSpan>,
    /// `hipEventRecord`s that are not calls of this collection, for the producer index only:
    /// the latest of each event handle from earlier capture windows (a wait resolving to one
    /// draws no arrow unless `anchors` says where it starts), and the records this window
    /// hands on with their calls (a wait of this window may have waited for one).
    pub producers: Vec<SyncFact>,
    /// Where the arrows from `producers` start, by the record's correlation id, found in the
    /// windows where those records were made: given only when the run's windows are merged
    /// into one profile (`WINDOW_MERGE`, one clock), where an arrow may start before its
    /// window does.
    pub anchors: Vec<(u64, Anchor)>,
    /// The records (`hipEventRecord` correlation ids) whose arrows' starts the next window
    /// needs (those handed on to it), when the run's windows are merged: this window's join
    /// finds them (`Trace::record_anchors`).
    pub anchors_wanted: Vec<u64>,
    /// The last work on each stream in the run's earlier windows (`Trace::stream_tails`),
    /// when the run's windows are merged: a record here with no work before it on its stream
    /// starts its arrows there.
    pub stream_tails: Vec<StreamTail>,
    /// Whether the next window wants this one's stream tails (windows merged): this window's
    /// join gives them (`Trace::stream_tails`).
    pub tails_wanted: bool,
    /// Correlation ids of roctx calls whose spans an earlier capture window showed before
    /// their buffered records came: those records stand for a span already shown, so they
    /// are dropped, not shown as calls of their own.
    pub spans_shown: Vec<u64>,
    /// Graph launches an earlier window wrote whose dispatches may still come (their launch
    /// facts were handed on, copied), sorted; given only when the run's windows are merged
    /// into one profile, where those calls are: a late dispatch is then labelled as launched
    /// (`correlation_id`), as the run written whole labels it, not as an activity without a
    /// call.
    pub launched: Vec<u64>,
    /// The graph launches whose scope and launch facts go along, copied, for dispatches still
    /// to come (`carry::CONTEXT_NS`): each with the tool's clock at the cut that wrote its call
    /// (`stop_boottime_ns`, on the clock the next cuts read), sorted.
    pub contexts: Vec<(u64, u64)>,
    /// What the run's earlier capture windows left allocated: this window's memory timeline
    /// and copies' kinds go on from it.
    pub memory: LiveMemory,
    /// Dispatch ids whose hardware-counter values an earlier window handed on (among this
    /// window's `counter_values`) because their kernel record had not come: values still
    /// without their kernel here are not handed on again (`carry::hand_off`).
    pub counters_awaited: Vec<u64>,
}

impl Carried {
    /// Adds what was carried into `later`, the next cut of the same window.
    fn absorb(&mut self, later: Carried) {
        let Carried {
            scope_context,
            producers,
            anchors,
            anchors_wanted,
            stream_tails,
            tails_wanted,
            spans_shown,
            launched,
            contexts,
            memory,
            counters_awaited,
        } = later;
        self.scope_context.extend(scope_context);
        self.producers.extend(producers);
        self.anchors.extend(anchors);
        self.anchors_wanted.extend(anchors_wanted);
        self.stream_tails.extend(stream_tails);
        self.tails_wanted |= tails_wanted;
        self.spans_shown.extend(spans_shown);
        self.launched.extend(launched);
        self.contexts.extend(contexts);
        self.counters_awaited.extend(counters_awaited);
        // What the earlier windows left: the carry holds it, the cut after it has none.
        if self.memory.is_empty() {
            self.memory = memory;
        }
    }
}

impl Collected {
    /// Whether any runtime record (API call, kernel, copy) was collected: roctx spans alone,
    /// which the callbacks keep to follow the stacks, are not records.
    pub fn has_records(&self) -> bool {
        !(self.api.is_empty()
            && self.marker_records.is_empty()
            && self.kernels.is_empty()
            && self.copies.is_empty())
            || self.has_device_intervals()
    }

    /// Whether the device counter reads end an interval here: two reads of a counter of a GPU
    /// (the first may be the last read of the window before).
    pub fn has_device_intervals(&self) -> bool {
        let mut first: HashMap<(u64, &str), u64> = HashMap::default();
        self.device_samples
            .iter()
            .any(|s| *first.entry((s.agent, &s.counter)).or_insert(s.read) != s.read)
    }

    /// Keeps a kernel record; one refused by its store (past 2^32 − 1 distinct launch shapes,
    /// never within the memory ceiling) is counted as the ceiling's drops are.
    pub fn push_kernel(&mut self, k: KernelRecord) {
        self.kernels
            .push_or_count(k, &mut self.counters.memory_limit_dropped);
    }

    /// The records the runtime delivered (HIP and roctx API, kernel and copy records): what a
    /// count window (`ROCPROF_XPLANE_WINDOW_EVENTS`) counts, the roctx calls whose records the
    /// callbacks built among them (`roctx_calls_built`; not their spans).
    pub fn delivered_count(&self) -> u64 {
        (self.api_record_count() + self.kernels.len() + self.copies.len()) as u64
            + self.roctx_calls_built
    }

    /// Records held (runtime records and roctx spans), for the flight recorder's accounting.
    pub fn record_count(&self) -> u64 {
        (self.api_record_count() + self.kernels.len() + self.copies.len() + self.markers.len())
            as u64
    }

    /// HIP and roctx API records held (the roctx ones may still be packed apart).
    pub fn api_record_count(&self) -> usize {
        self.api.len() + self.marker_records.len()
    }

    /// An estimate of the heap this collection holds: the per-event vectors (the maps it shares
    /// with every other window, symbols and names, are not counted).
    pub fn approx_bytes(&self) -> u64 {
        use std::mem::size_of_val;
        (self.api.held_bytes()
            + self.marker_records.held_bytes()
            + self.kernels.held_bytes()
            + size_of_val(self.copies.as_slice())
            + size_of_val(self.markers.as_slice())
            + self.scopes.capacity_bytes()
            + self.calls.held_bytes()
            + size_of_val(self.syncs.as_slice())
            + size_of_val(self.memory.as_slice())
            + size_of_val(self.carried.memory.allocations.as_slice())
            + size_of_val(self.copy_ptrs.as_slice())
            + size_of_val(self.hip_events.as_slice())
            + size_of_val(self.counter_values.as_slice())
            + size_of_val(self.device_samples.as_slice())) as u64
    }

    /// Appends `later`, the next cut of the same process, so that one join sees both (a launch
    /// in one cut and its kernel in the next still meet). A roctx range open at the cut between
    /// them appears in both, shown up to the cut in the first: the later copy wins.
    pub fn absorb(&mut self, later: Collected) {
        let Collected {
            hostname: _,
            pid: _,
            sdk_version: _,
            step_rule: _,
            start_boottime_ns,
            stop_boottime_ns,
            start_walltime_ns,
            stop_walltime_ns,
            clock,
            agents,
            api,
            marker_records,
            kernels,
            copies,
            markers,
            roctx_calls_built,
            scopes,
            calls,
            syncs,
            stream_creations,
            memory,
            copy_ptrs,
            graph_launches,
            hip_events,
            counter_values,
            device_samples,
            symbols,
            op_names,
            thread_names,
            counters,
            warnings,
            carried,
        } = later;
        self.start_boottime_ns = self.start_boottime_ns.min(start_boottime_ns);
        self.start_walltime_ns = self.start_walltime_ns.min(start_walltime_ns);
        self.stop_boottime_ns = self.stop_boottime_ns.max(stop_boottime_ns);
        self.stop_walltime_ns = self.stop_walltime_ns.max(stop_walltime_ns);
        self.clock.absorb(clock);
        if self.agents.is_empty() {
            self.agents = agents;
        }
        self.counters.memory_limit_dropped += self.api.append(api);
        self.counters.memory_limit_dropped += self.marker_records.append(marker_records);
        self.counters.memory_limit_dropped += self.kernels.append(kernels);
        concat(&mut self.copies, copies);
        self.roctx_calls_built += roctx_calls_built;
        if self.markers.iter().any(|m| m.open_at_end) {
            let reopened: crate::fastmap::HashSet<(u64, u64)> = markers
                .iter()
                .map(|m| (m.thread_id, m.open_correlation_id))
                .collect();
            self.markers.retain(|m| {
                !(m.open_at_end && reopened.contains(&(m.thread_id, m.open_correlation_id)))
            });
        }
        concat(&mut self.markers, markers);
        self.scopes.append(scopes);
        self.counters.memory_limit_dropped += self.calls.append(calls);
        concat(&mut self.syncs, syncs);
        for sc in stream_creations {
            if !self.stream_creations.contains(&sc) {
                self.stream_creations.push(sc);
            }
        }
        concat(&mut self.memory, memory);
        concat(&mut self.copy_ptrs, copy_ptrs);
        concat(&mut self.graph_launches, graph_launches);
        concat(&mut self.hip_events, hip_events);
        concat(&mut self.counter_values, counter_values);
        concat(&mut self.device_samples, device_samples);
        self.symbols.extend(symbols);
        self.op_names.extend(op_names);
        self.thread_names.extend(thread_names);
        self.counters += &counters;
        for w in warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
        self.carried.absorb(carried);
    }
}

/// `earlier` followed by `later`, in `earlier`: the shorter of the two is moved into the
/// longer (what a window takes in from the one before it is a few items beside its own
/// million, and is put before them in place, not the million copied after it). Put before
/// them, the few grow the million's vector by their room only: grown the way a vector grows
/// (doubling), a window's million items could take the room of two million from its hand-off
/// through its join. Appended (the longer first: the flight recorder's segments, one after
/// another), the vector grows as vectors do, so a run of appends copies each item a few
/// times, not once per append.
fn concat<T>(earlier: &mut Vec<T>, mut later: Vec<T>) {
    if later.len() > earlier.len() {
        later.reserve_exact(earlier.len());
        later.splice(0..0, earlier.drain(..));
        *earlier = later;
    } else {
        earlier.extend(later);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vector filled to its capacity, as a window's store may be when it is cut.
    fn full(items: std::ops::Range<u64>) -> Vec<u64> {
        let mut v = Vec::with_capacity(items.clone().count());
        v.extend(items);
        assert_eq!(v.len(), v.capacity());
        v
    }

    #[test]
    fn a_few_items_put_before_a_full_window_grow_it_by_their_room() {
        let mut earlier = vec![7, 8, 9];
        concat(&mut earlier, full(0..1000));
        assert_eq!(earlier[..4], [7, 8, 9, 0]);
        assert_eq!(earlier.len(), 1003);
        assert!(earlier.capacity() < 1100, "{}", earlier.capacity());
        // The longer first: the shorter after it.
        let mut earlier = full(0..1000);
        concat(&mut earlier, vec![7, 8, 9]);
        assert_eq!(earlier[998..], [998, 999, 7, 8, 9]);
    }

    fn call(corr: u64) -> CallFact {
        CallFact {
            correlation_id: corr,
            stream: 0xa,
            device: 0,
            stream_seq: 0,
        }
    }

    /// A count window counts a roctx range's calls, by their buffered records or as the calls
    /// the callbacks built them from, never the span the tool made of them too (it would count
    /// the range twice, and a window of roctx-heavy calls would look larger than its count).
    #[test]
    fn a_window_counts_the_runtime_s_records_not_the_spans_made_beside_them() {
        let record = |domain, corr| ApiRecord {
            domain,
            operation: 0,
            correlation_id: corr,
            external_id: 0,
            start_ns: corr,
            end_ns: corr + 1,
            thread_id: 1,
        };
        let mut c = Collected {
            api: [record(ApiDomain::Hip, 1)].into_iter().collect(),
            markers: vec![MarkerSpan {
                open_correlation_id: 2,
                close_correlation_id: 3,
                ..MarkerSpan::default()
            }],
            ..Collected::default()
        };
        c.marker_records
            .push(MarkerRecord::of(record(ApiDomain::Marker, 2)));
        c.marker_records
            .push(MarkerRecord::of(record(ApiDomain::Marker, 3)));
        assert_eq!(c.delivered_count(), 3);
        assert_eq!(c.record_count(), 4);
        // The same range's calls built from their callbacks instead: counted as delivered.
        c.marker_records = PackedVec::new();
        c.roctx_calls_built = 2;
        assert_eq!(c.delivered_count(), 3);
        assert_eq!(c.record_count(), 2);
    }

    /// A collection absorbs the next cut after its own items whichever of the two is the
    /// longer (the shorter is moved into the longer): a carry of a few calls taking in a
    /// window, and a window taking in a few calls.
    #[test]
    fn absorbing_puts_the_later_cut_after_whichever_is_longer() {
        for (n_earlier, n_later) in [(2u64, 7u64), (7, 2), (0, 3), (3, 0)] {
            let earlier: Vec<CallFact> = (0..n_earlier).map(call).collect();
            let later: Vec<CallFact> = (100..100 + n_later).map(call).collect();
            let scopes = |calls: &[CallFact]| -> Vec<(u64, i64)> {
                calls.iter().map(|f| (f.correlation_id, 1)).collect()
            };
            let mut c = Collected {
                calls: earlier.clone().into(),
                scopes: scopes(&earlier).into(),
                ..Collected::default()
            };
            c.absorb(Collected {
                calls: later.clone().into(),
                scopes: scopes(&later).into(),
                ..Collected::default()
            });
            let both = [earlier, later].concat();
            let calls: Vec<CallFact> = c.calls.iter().collect();
            assert_eq!(calls, both, "{n_earlier} then {n_later}");
            let got: Vec<(u64, i64)> = c.scopes.iter().copied().collect();
            assert_eq!(got, scopes(&both), "{n_earlier} then {n_later}");
        }
    }
}
