//! What the HIP calls of an input say beyond their times, the same for every format: the
//! arguments rocprofv3 recorded (`rocpd_arg` rows; the `args` of each JSON `hip_api` record;
//! none in CSV files) place kernels and copies on the stream their launching call named (as
//! the live tool reads it at API entry) and give the synchronization calls, so dependency
//! arrows are rebuilt as live; and each roctx record of the range kind becomes a mark or a
//! range as the live tool shows it.

use std::collections::HashMap;
use std::sync::Arc;

use rocprof_xplane_core::model::events::{AgentType, Collected, MarkerSpan, SyncFact, SyncKind};

/// The arguments of one call that the join uses, as rocprofv3 prints their values.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallArgs {
    pub stream: Option<u64>,
    pub event: Option<u64>,
    /// `hipSetDevice`'s `deviceId`.
    pub device: Option<u64>,
}

impl CallArgs {
    /// Adds argument `name` = `value` (others are not read).
    pub fn set(&mut self, name: &str, value: &str) {
        let v = handle_of(value);
        match name {
            "stream" => self.stream = v,
            "event" => self.event = v,
            "deviceId" => self.device = v,
            _ => {}
        }
    }

    /// The arguments among `(name, value)` pairs, `None` when there are none: a call without
    /// recorded arguments (an input without them, or one that dropped them) is told from a
    /// call that named no stream.
    pub fn of<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<CallArgs> {
        let mut any = false;
        let mut a = CallArgs::default();
        for (name, value) in pairs {
            any = true;
            a.set(name, value);
        }
        any.then_some(a)
    }
}

/// A HIP argument's value as rocprofv3 prints it: `0x…` hex, a decimal, or anything else
/// (structs, strings) → `None`.
pub(crate) fn handle_of(v: &str) -> Option<u64> {
    let v = v.trim();
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// A HIP call as the synchronization facts need it.
#[derive(Debug, Clone)]
pub(crate) struct HipCall {
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub name: Arc<str>,
    /// `None` when the input recorded no arguments for it.
    pub args: Option<CallArgs>,
}

/// The synchronization facts of `calls` (each event record's producer among them), from their
/// arguments as the live tool reads them at API entry; returns how many synchronization calls
/// had no recorded arguments and so make no fact. A stream's device is the device its kernels
/// and copies ran on; the null stream's is the thread's current device: its latest
/// `hipSetDevice`, or the device of its latest launch or copy (one GPU: that GPU).
pub(crate) fn sync_facts(c: &mut Collected, calls: &mut [HipCall]) -> u64 {
    use rocprof_xplane_core::hip::ops::Role;
    calls.sort_by_key(|h| (h.start_ns, h.correlation_id));
    let by_corr: HashMap<u64, i32> = c
        .calls
        .iter()
        .map(|f| (f.correlation_id, f.device))
        .collect();
    let stream_device: HashMap<u64, i32> = c
        .calls
        .iter()
        .filter(|f| f.stream != 0 && f.device >= 0)
        .map(|f| (f.stream, f.device))
        .collect();
    let gpus = c.agents.iter().filter(|a| a.kind == AgentType::Gpu).count();
    let mut unknown = 0;
    let mut current: HashMap<u64, i32> = HashMap::new();
    for h in calls.iter() {
        if let Some(&dev) = by_corr.get(&h.correlation_id).filter(|d| **d >= 0) {
            current.insert(h.thread_id, dev);
        }
        if let Some(d) = h
            .args
            .and_then(|a| a.device)
            .filter(|_| &*h.name == "hipSetDevice")
        {
            current.insert(h.thread_id, i32::try_from(d).unwrap_or(-1));
        }
        let Some(Role::Sync(kind)) = rocprof_xplane_core::hip::ops::lookup(&h.name).map(|r| r.role)
        else {
            continue;
        };
        // Without its arguments a call's stream and event are unknown: it is no fact
        // (`hipDeviceSynchronize` names neither and needs none).
        let Some((event, stream)) = h
            .args
            .map(|a| (a.event.unwrap_or(0), a.stream.unwrap_or(0)))
            .or((kind == SyncKind::DeviceSynchronize).then_some((0, 0)))
        else {
            unknown += 1;
            continue;
        };
        let device = stream_device
            .get(&stream)
            .filter(|_| stream != 0)
            .or_else(|| current.get(&h.thread_id))
            .copied()
            .unwrap_or(if gpus == 1 { 0 } else { -1 });
        c.syncs.push(SyncFact {
            correlation_id: h.correlation_id,
            kind,
            event,
            stream,
            device,
            stream_seq: 0,
        });
    }
    unknown
}

/// A roctx record of the range kind (`MARKER_CORE_RANGE_API`: one record per mark, push/pop
/// range or start/stop range) with its text. `op` is its operation's name where the input
/// names it (JSON and rocpd regions; a CSV row names only its text): a `roctxMarkA` is a
/// mark, a `roctxProcessRangeA` a process-wide (start/stop) range, as the live tool shows
/// them; without it, a record without duration is a mark and any other a range.
pub(crate) struct Roctx<'a> {
    pub op: Option<&'a str>,
    pub label: &'a str,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

impl Roctx<'_> {
    pub fn span(&self) -> MarkerSpan {
        MarkerSpan {
            label: Arc::from(self.label),
            thread_id: self.thread_id,
            open_correlation_id: self.correlation_id,
            close_correlation_id: self.correlation_id,
            start_ns: self.start_ns,
            end_ns: self.end_ns,
            instant: match self.op {
                Some(op) => op == "roctxMarkA",
                None => self.end_ns <= self.start_ns,
            },
            process_wide: self.op == Some("roctxProcessRangeA"),
            ..MarkerSpan::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_values_as_rocprofv3_prints_them() {
        assert_eq!(handle_of("0x5a5a00001000"), Some(0x5a5a_0000_1000));
        assert_eq!(handle_of("0"), Some(0));
        assert_eq!(handle_of(" 42 "), Some(42));
        assert_eq!(handle_of("{256, 1, 1}"), None);
        assert_eq!(CallArgs::of([]), None);
        assert_eq!(
            CallArgs::of([("stream", "0x10"), ("sharedMemBytes", "0")]),
            Some(CallArgs {
                stream: Some(16),
                ..CallArgs::default()
            })
        );
    }

    #[test]
    fn a_roctx_record_is_a_mark_or_a_range_by_its_operation() {
        let r = |op, start, end| {
            Roctx {
                op,
                label: "x",
                thread_id: 1,
                correlation_id: 2,
                start_ns: start,
                end_ns: end,
            }
            .span()
        };
        // A mark's record spans its call: still a mark when the operation says so.
        let m = r(Some("roctxMarkA"), 10, 13);
        assert!(m.instant && !m.process_wide);
        let p = r(Some("roctxProcessRangeA"), 10, 90);
        assert!(!p.instant && p.process_wide);
        assert!(!r(Some("roctxThreadRangeA"), 10, 90).instant);
        // Without the operation: by duration.
        assert!(r(None, 10, 10).instant);
        assert!(!r(None, 10, 13).instant);
    }
}
