//! The collection taken apart for the stages: this window's records and facts in named parts,
//! each moved to the stage that reads it (and freed there, or when its last reader is done);
//! what other capture windows carried in (`Carried`) apart from them.

use crate::clock::JobClock;
use std::collections::HashMap;
use std::sync::Arc;

use crate::facts::{
    AgentInfo, ApiDomain, ApiRecord, CallFact, CopyPtrs, CopyRecord, CounterValue, Counters,
    DeviceSample, HipEventOp, HipEventRecord, KernelRecord, KernelSymbol, MarkerRecord, MarkerSpan,
    MemFact, StreamCreation, SyncFact,
};
use crate::model::collected::{Carried, Collected};
use crate::model::corrmap::{id_range, CorrMap, IdRanks};
use crate::model::memory::LiveMemory;
use crate::model::trace::{Anchor, StreamTail};
use crate::store::PackedVec;

/// A collection in the parts the stages read.
pub(super) struct Input {
    pub header: Header,
    pub agents: Vec<AgentInfo>,
    pub host: HostRecords,
    pub device: DeviceRecords,
    pub facts: CallFacts,
    pub names: Names,
    pub carried: CarriedIn,
    /// What collecting counted (the records received, skipped, dropped).
    pub counters: Counters,
    pub warnings: Vec<String>,
}

/// What other capture windows of the run hand to this one or ask of it (`Carried`), by the
/// stage that reads it: none of it is a record of this window.
pub(super) struct CarriedIn {
    /// For the annotations stage.
    pub labels: CarriedLabels,
    /// For the dependency stage.
    pub deps: CarriedDeps,
    /// Graph launches an earlier window wrote (`Carried::launched`): for the API index, and
    /// handed on in the trace.
    pub launched: Vec<u64>,
    /// What earlier windows left allocated (`Carried::memory`): for the copies' memory kinds
    /// and the memory timeline.
    pub memory: LiveMemory,
}

/// Spans the annotations stage reads for labels only (`Carried::scope_context`), and the
/// roctx records it drops as standing for spans already shown (`Carried::spans_shown`).
pub(super) struct CarriedLabels {
    pub scope_context: Vec<MarkerSpan>,
    pub spans_shown: Vec<u64>,
}

/// What the dependency stage reads of other windows.
pub(super) struct CarriedDeps {
    /// Records that are not calls of this collection (`Carried::producers`): producers only.
    pub producers: Vec<SyncFact>,
    /// Where the arrows from those records start (`Carried::anchors`).
    pub anchors: Vec<(u64, Anchor)>,
    /// The records whose arrows' starts the next window needs (`Carried::anchors_wanted`).
    pub anchors_wanted: Vec<u64>,
    /// The last work on each stream in earlier windows (`Carried::stream_tails`).
    pub stream_tails: Vec<StreamTail>,
    /// Whether the next window wants this one's (`Carried::tails_wanted`).
    pub tails_wanted: bool,
}

/// The process and the capture's clock readings: the trace's header and time window.
pub(super) struct Header {
    pub hostname: String,
    pub pid: u32,
    pub sdk_version: String,
    pub step_rule: Option<crate::model::steps::StepRule>,
    pub start_boottime_ns: u64,
    pub stop_boottime_ns: u64,
    /// The wall clock at the start: without a job clock, the wall window is the boot window
    /// shifted by the two clocks' offset then (`time_window`).
    pub start_walltime_ns: u64,
    /// The map from the boot clock to the job clock (`None`: no job origin).
    pub clock: Option<JobClock>,
}

/// The host's records: HIP and roctx calls (roctx ones perhaps still packed), the roctx spans,
/// and the scope each call was made in. The annotations stage consumes the scopes and the
/// records the spans stand for (`annotations::HostCalls` is what it leaves).
pub(super) struct HostRecords {
    pub api: PackedVec<ApiRecord>,
    pub marker_records: PackedVec<MarkerRecord>,
    pub markers: Vec<MarkerSpan>,
    pub scopes: crate::model::collected::Scopes,
}

/// The devices' records: kernel dispatches and memory copies.
pub(super) struct DeviceRecords {
    pub kernels: PackedVec<KernelRecord>,
    pub copies: Vec<CopyRecord>,
    /// Hardware-counter values of the dispatches (the counters stage).
    pub counter_values: Vec<CounterValue>,
    /// Reads of the GPUs' device counters (the device counters stage).
    pub device_samples: Vec<DeviceSample>,
}

/// What the capture read of the calls beside their records.
pub(super) struct CallFacts {
    /// Stream and device of each launch and copy, read at entry.
    pub calls: PackedVec<CallFact>,
    pub syncs: Vec<SyncFact>,
    pub stream_creations: Vec<StreamCreation>,
    pub memory: Vec<MemFact>,
    pub copy_ptrs: Vec<CopyPtrs>,
    pub hip_events: Vec<(HipEventOp, HipEventRecord)>,
}

/// What the ids of the records are named by.
pub(super) struct Names {
    pub symbols: HashMap<u64, KernelSymbol>,
    pub operations: HashMap<(ApiDomain, i32), Arc<str>>,
    pub threads: HashMap<u64, String>,
}

impl Input {
    pub fn split(c: Collected) -> Self {
        let Collected {
            hostname,
            pid,
            sdk_version,
            step_rule,
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
            // Counted already (`counters.marker_records`).
            roctx_calls_built: _,
            scopes,
            calls,
            syncs,
            stream_creations,
            memory,
            copy_ptrs,
            // The hand-off's (`model::carry`): the join counts the activities that came.
            graph_launches: _,
            hip_events,
            counter_values,
            device_samples,
            symbols,
            op_names,
            thread_names,
            counters,
            warnings,
            carried,
        } = c;
        Input {
            header: Header {
                hostname,
                pid,
                sdk_version,
                step_rule,
                start_boottime_ns,
                stop_boottime_ns,
                start_walltime_ns,
                clock: JobClock::of(
                    (start_boottime_ns, start_walltime_ns),
                    (stop_boottime_ns, stop_walltime_ns),
                    &clock,
                ),
            },
            agents,
            host: HostRecords {
                api,
                marker_records,
                markers,
                scopes,
            },
            device: DeviceRecords {
                kernels,
                copies,
                counter_values,
                device_samples,
            },
            facts: CallFacts {
                calls,
                syncs,
                stream_creations,
                memory,
                copy_ptrs,
                hip_events,
            },
            names: Names {
                symbols,
                operations: op_names,
                threads: thread_names,
            },
            carried: CarriedIn::from(carried),
            counters,
            warnings,
        }
    }
}

impl CarriedIn {
    fn from(c: Carried) -> Self {
        let Carried {
            scope_context,
            producers,
            anchors,
            anchors_wanted,
            stream_tails,
            tails_wanted,
            spans_shown,
            launched,
            memory,
            // Read by the carry only: the values are among the window's own.
            counters_awaited: _,
            // Read by the carry only: `launched` names them for the join.
            contexts: _,
        } = c;
        CarriedIn {
            labels: CarriedLabels {
                scope_context,
                spans_shown,
            },
            deps: CarriedDeps {
                producers,
                anchors,
                anchors_wanted,
                stream_tails,
                tails_wanted,
            },
            launched,
            memory,
        }
    }
}

/// The correlation ids of a collection's calls, for its per-call tables.
#[derive(Debug, Clone)]
pub(super) struct Ids {
    /// The range of every id the host's records name (the calls' and the spans').
    pub range: Option<(u64, u64)>,
    /// The calls' ids, ranked: the slots of the tables read by call (`per_call`).
    pub calls: Arc<IdRanks>,
}

impl Ids {
    /// The roctx records still packed are not read for it: their ids are their spans' (or
    /// lie among the calls'), and the range only bounds the tables' slots (an id outside it is
    /// kept all the same, hashed). The calls are the API records and the marks: the roctx
    /// records of a range's push and pop are its span's, never read by call (a roctx record no
    /// span stands for is rare, and its entries, found all the same, are hashed).
    pub fn of(c: &HostRecords) -> Self {
        let calls = || c.api.ids();
        let marks = || {
            c.markers
                .iter()
                .filter(|m| m.instant)
                .map(|m| m.open_correlation_id)
        };
        let spans = c
            .markers
            .iter()
            .flat_map(|m| [m.open_correlation_id, m.close_correlation_id]);
        let range = id_range(calls().chain(spans));
        let expected = c.api.len() + c.markers.len();
        let ranked = IdRanks::of(range, expected, calls().chain(marks()));
        Ids {
            range,
            calls: Arc::new(ranked),
        }
    }

    /// Every id of `lo..=hi` a call's (for tests).
    #[cfg(test)]
    pub fn every(lo: u64, hi: u64) -> Self {
        let n = (hi - lo + 1) as usize;
        Ids {
            range: Some((lo, hi)),
            calls: Arc::new(IdRanks::of(Some((lo, hi)), n, lo..=hi)),
        }
    }

    /// A table read by call: a slot per call.
    pub fn per_call<V>(&self) -> CorrMap<V> {
        CorrMap::over(&self.calls)
    }
}
