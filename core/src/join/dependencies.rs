//! The dependency stage: each sync call resolved (the record a wait waited for) and each
//! resolved wait drawn as an arrow between two anchors (`model::deps`). It needs no host
//! event, and the host events stage needs nothing of it, so the two run side by side (after
//! the stream lines stage, on the same thread: `schedule::host_events_beside_lines`): what it
//! reads is taken out of the collection first (`DependencyWork::take`, beside the kernels
//! stage), the API records' part of it copied by the API index stage (`deps::CallEnds`),
//! since the host events stage consumes them.

use crate::facts::{Counters, HipEventOp, HipEventRecord, SyncFact};
use crate::fastmap::{HashMap, HashSet};
use crate::model::deps::{self, CallEnds, DepInputs, ProducerIndex};
use crate::model::streams::{StreamIndex, StreamKey};
use crate::model::trace::{Anchor, DependencyFlow, StreamTail, SyncCall};

use super::devices::Places;
use super::input::CarriedDeps;

/// What the dependency stage reads.
pub(super) struct DependencyWork {
    /// This window's sync calls.
    pub syncs: Vec<SyncFact>,
    /// What other windows hand the stage or ask of it.
    pub carried: CarriedDeps,
    call_ends: CallEnds,
    hip_events: Vec<(HipEventOp, HipEventRecord)>,
    host_salt: u64,
}

/// What the dependency stage makes, and its own accounting.
pub(super) struct Dependencies {
    pub sync_calls: Vec<SyncCall>,
    pub flows: Vec<DependencyFlow>,
    /// Where the arrows from the records the next window wants start.
    pub record_anchors: Vec<(u64, Anchor)>,
    /// Where each stream's last work ended, when the next window wants it.
    pub stream_tails: Vec<StreamTail>,
    pub counters: Counters,
}

impl DependencyWork {
    /// The stage's inputs, made ready beside the host events (the call ends were copied out
    /// of the API records by the API index stage).
    pub fn take(
        syncs: Vec<SyncFact>,
        carried: CarriedDeps,
        hip_events: Vec<(HipEventOp, HipEventRecord)>,
        call_ends: CallEnds,
        host_salt: u64,
    ) -> Self {
        DependencyWork {
            syncs,
            carried,
            call_ends,
            hip_events,
            host_salt,
        }
    }

    /// The sync facts the producer index and the stream numbers read: this window's and the
    /// records carried in.
    pub fn all_syncs(&self) -> impl Iterator<Item = &SyncFact> {
        self.syncs.iter().chain(&self.carried.producers)
    }

    /// The dependency stage (see the module's comment).
    pub fn resolve(self, stream_index: &StreamIndex, places: &Places) -> Dependencies {
        let mut counters = Counters::default();
        let producers = ProducerIndex::of(self.all_syncs());
        let CarriedDeps {
            producers: carried_producers,
            anchors: carried_anchors,
            anchors_wanted: wanted,
            stream_tails: carried_tails,
            tails_wanted,
        } = self.carried;
        let earlier_anchors: HashMap<u64, Anchor> = carried_anchors.into_iter().collect();
        let earlier_tails: HashMap<(u32, StreamKey), StreamTail> = carried_tails
            .into_iter()
            .map(|t| ((t.plane, t.key), t))
            .collect();
        let mut barriers: HashMap<(u64, HipEventOp), u64> = HashMap::default();
        for (op, r) in self
            .hip_events
            .iter()
            .filter(|(_, r)| r.correlation_id != 0)
        {
            let e = barriers.entry((r.correlation_id, *op)).or_default();
            *e = (*e).max(r.end_ns);
        }
        drop(self.hip_events);
        let plane_of = |d: i32| places.of_hip(d);
        let lines_of = |p: u32| places.devices.get(p as usize).map(|d| d.lines.as_slice());
        let inputs = DepInputs {
            producers: &producers,
            streams: stream_index,
            lines_of: &lines_of,
            plane_of: &plane_of,
            call_ends: &self.call_ends,
            barriers: &barriers,
            earlier_anchors: &earlier_anchors,
            earlier_tails: &earlier_tails,
            host_salt: self.host_salt,
        };
        let record_anchors = if wanted.is_empty() {
            Vec::new()
        } else {
            let wanted: HashSet<u64> = wanted.into_iter().collect();
            deps::record_anchors(
                &inputs,
                self.syncs
                    .iter()
                    .chain(&carried_producers)
                    .filter(|s| wanted.contains(&s.correlation_id)),
            )
        };
        drop(carried_producers);
        let (sync_calls, flows) = deps::resolve_dependencies(self.syncs, &inputs, &mut counters);
        // The tails go on from the map the inputs read (`lines_of` is borrowed as long as it).
        let stream_tails = if tails_wanted {
            let lines = |p: u32| places.devices.get(p as usize).map(|d| d.lines.as_slice());
            deps::stream_tails(earlier_tails, stream_index, &lines)
        } else {
            Vec::new()
        };
        Dependencies {
            sync_calls,
            flows,
            record_anchors,
            stream_tails,
            counters,
        }
    }
}
