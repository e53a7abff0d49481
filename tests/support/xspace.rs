//! Reading an XSpace the way xprof does: planes, lines, events with their names and typed stats,
//! the tool's counters.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rocprof_xplane::xplane::proto::{x_event, x_stat, XEvent, XLine, XPlane, XSpace};
use rocprof_xplane::xplane::read_xspace;

use super::paths::profiles;

pub const HOST_PLANE: &str = "/host:CPU";
pub const GPU_PREFIX: &str = "/device:GPU:";
pub const TASK_ENV: &str = "Task Environment";

/// The only profile of run `run` under `log_dir`, decoded.
pub fn read_one(log_dir: &Path, run: &str) -> XSpace {
    let files = profiles(log_dir, run);
    assert_eq!(files.len(), 1, "expected one profile: {files:?}");
    read_xspace(&files[0]).unwrap()
}

pub fn plane<'a>(s: &'a XSpace, name: &str) -> &'a XPlane {
    s.planes
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no plane {name:?}; have {:?}", plane_names(s)))
}

pub fn plane_names(s: &XSpace) -> Vec<&str> {
    s.planes.iter().map(|p| p.name.as_str()).collect()
}

/// GPU planes ordered by ordinal (the number after `/device:GPU:`).
pub fn device_planes(s: &XSpace) -> Vec<&XPlane> {
    let mut v: Vec<&XPlane> = s
        .planes
        .iter()
        .filter(|p| p.name.starts_with(GPU_PREFIX))
        .collect();
    v.sort_by_key(|p| ordinal(p));
    v
}

pub fn ordinal(p: &XPlane) -> u32 {
    p.name[GPU_PREFIX.len()..]
        .parse()
        .unwrap_or_else(|_| panic!("bad GPU plane name {:?}", p.name))
}

/// A stat value, with `ref_value` resolved to its string.
#[derive(Debug, Clone, PartialEq)]
pub enum Stat {
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
    Bytes(usize),
}

impl Stat {
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Stat::U64(v) => Some(*v),
            Stat::I64(v) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Stat::Str(s) => Some(s),
            _ => None,
        }
    }
}

pub fn stat_value(p: &XPlane, v: &Option<x_stat::Value>) -> Option<Stat> {
    Some(match v.as_ref()? {
        x_stat::Value::Uint64Value(v) => Stat::U64(*v),
        x_stat::Value::Int64Value(v) => Stat::I64(*v),
        x_stat::Value::DoubleValue(v) => Stat::F64(*v),
        x_stat::Value::StrValue(s) => Stat::Str(s.clone()),
        x_stat::Value::BytesValue(b) => Stat::Bytes(b.len()),
        x_stat::Value::RefValue(r) => {
            Stat::Str(p.stat_metadata.get(&i64::try_from(*r).ok()?)?.name.clone())
        }
    })
}

/// Plane-level stats by name (device capabilities, `Task Environment` counters).
pub fn plane_stats(p: &XPlane) -> BTreeMap<String, Stat> {
    p.stats
        .iter()
        .filter_map(|s| {
            let name = p.stat_metadata.get(&s.metadata_id)?.name.clone();
            Some((name, stat_value(p, &s.value)?))
        })
        .collect()
}

/// One event with the plane and line it sits on.
#[derive(Clone, Copy)]
pub struct Ev<'a> {
    pub plane: &'a XPlane,
    pub line: &'a XLine,
    pub event: &'a XEvent,
}

impl<'a> Ev<'a> {
    pub fn name(&self) -> &'a str {
        self.plane
            .event_metadata
            .get(&self.event.metadata_id)
            .map(|m| m.name.as_str())
            .unwrap_or("")
    }

    /// The raw stat (value as written, for type checks), from the event or its metadata.
    pub fn raw_stat(&self, name: &str) -> Option<&'a x_stat::Value> {
        let md = self.plane.event_metadata.get(&self.event.metadata_id);
        self.event
            .stats
            .iter()
            .chain(md.into_iter().flat_map(|m| m.stats.iter()))
            .find(|s| {
                self.plane
                    .stat_metadata
                    .get(&s.metadata_id)
                    .is_some_and(|m| m.name == name)
            })
            .and_then(|s| s.value.as_ref())
    }

    pub fn stat(&self, name: &str) -> Option<Stat> {
        stat_value(self.plane, &self.raw_stat(name).cloned())
    }

    /// `correlation_id`, which must be written as uint64 (xprof reads it with `IntOrUintValue`
    /// but XLA writes uint64; the issue asks for uint64 on both sides).
    pub fn correlation_id(&self) -> Option<u64> {
        match self.raw_stat("correlation_id")? {
            x_stat::Value::Uint64Value(v) => Some(*v),
            other => panic!(
                "correlation_id of {:?} on {} is not uint64: {other:?}",
                self.name(),
                self.plane.name
            ),
        }
    }

    pub fn is_kernel(&self) -> bool {
        self.raw_stat("kernel_details").is_some()
    }

    pub fn is_memcpy(&self) -> bool {
        self.raw_stat("memcpy_details").is_some()
    }

    pub fn offset_ps(&self) -> i64 {
        match self.event.data {
            Some(x_event::Data::OffsetPs(o)) => o,
            _ => panic!("event {:?} has no offset_ps", self.name()),
        }
    }

    /// Absolute start in ps (line timestamp + offset).
    pub fn start_ps(&self) -> i64 {
        self.line.timestamp_ns * 1000 + self.offset_ps()
    }
}

pub fn events(p: &XPlane) -> Vec<Ev<'_>> {
    p.lines
        .iter()
        .flat_map(|line| {
            line.events.iter().map(move |event| Ev {
                plane: p,
                line,
                event,
            })
        })
        .collect()
}

/// Every event on every GPU plane.
/// Every event on every GPU plane, except the zero-duration anchors of dependency arrows
/// (events with a `flow` stat), which are not device work.
pub fn device_events(s: &XSpace) -> Vec<Ev<'_>> {
    device_planes(s)
        .into_iter()
        .flat_map(events)
        .filter(|e| e.raw_stat("flow").is_none())
        .collect()
}

pub fn kernels(s: &XSpace) -> Vec<Ev<'_>> {
    device_events(s)
        .into_iter()
        .filter(|e| e.is_kernel())
        .collect()
}

pub fn memcpys(s: &XSpace) -> Vec<Ev<'_>> {
    device_events(s)
        .into_iter()
        .filter(|e| e.is_memcpy())
        .collect()
}

/// Host API events (HIP calls), not the roctx marker lines nor the memory timeline.
pub fn host_api_events(s: &XSpace) -> Vec<Ev<'_>> {
    events(plane(s, HOST_PLANE))
        .into_iter()
        .filter(|e| {
            !e.line.name.contains("/ROCTX")
                && e.line.id != rocprof_xplane::xplane::stats::MEMORY_LINE_ID
        })
        .collect()
}

pub fn count_by_name<'a>(evs: impl IntoIterator<Item = Ev<'a>>) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for e in evs {
        *m.entry(e.name().to_string()).or_insert(0) += 1;
    }
    m
}

/// The tool's `rocprof_xplane_*` counters (on the `Task Environment` plane).
pub fn counters(s: &XSpace) -> BTreeMap<String, u64> {
    let p = s
        .planes
        .iter()
        .find(|p| {
            p.stats.iter().any(|st| {
                p.stat_metadata
                    .get(&st.metadata_id)
                    .is_some_and(|m| m.name.starts_with("rocprof_xplane_"))
            })
        })
        .unwrap_or_else(|| {
            panic!(
                "no plane carries rocprof_xplane_* counters: {:?}",
                plane_names(s)
            )
        });
    plane_stats(p)
        .into_iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("rocprof_xplane_")?.to_string(), v.as_u64()?)))
        .collect()
}

pub fn counter(s: &XSpace, name: &str) -> u64 {
    let c = counters(s);
    *c.get(name)
        .unwrap_or_else(|| panic!("no counter {name:?}; have {c:?}"))
}

/// Device events per correlation id; every device event must carry one.
pub fn device_events_per_correlation(s: &XSpace) -> HashMap<u64, u64> {
    let mut m: HashMap<u64, u64> = HashMap::new();
    for e in device_events(s) {
        *m.entry(
            e.correlation_id()
                .expect("device event without correlation_id"),
        )
        .or_default() += 1;
    }
    m
}

/// The join left nothing unmatched: no activity without its API record and no launch API record
/// without activity, by the tool's own counters. `what` names the run in the messages.
pub fn assert_no_orphans(s: &XSpace, what: &str) {
    assert_eq!(counter(s, "activities_without_api"), 0, "{what}");
    assert_eq!(counter(s, "launches_without_activity"), 0, "{what}");
}

/// `key:value` tokens of a details string (`kernel_details`, `memcpy_details`).
pub fn details(s: &str) -> BTreeMap<&str, &str> {
    s.split_whitespace()
        .filter_map(|t| t.split_once(':'))
        .collect()
}

/// Device events counted by name and split the way a reader that knows only names splits them:
/// `Memcpy…` events are copies (counted together), the rest kernels (per name). Independent of
/// the `kernel_details` / `memcpy_details` stats [`kernels`] and [`memcpys`] go by.
pub fn device_counts_by_name(s: &XSpace) -> (BTreeMap<String, u64>, u64) {
    let mut kernels = BTreeMap::new();
    let mut copies = 0;
    for e in device_events(s) {
        let name = &e
            .plane
            .event_metadata
            .get(&e.event.metadata_id)
            .unwrap_or_else(|| {
                panic!(
                    "event on {} without metadata {}",
                    e.plane.name, e.event.metadata_id
                )
            })
            .name;
        if name.starts_with("Memcpy") {
            copies += 1;
        } else {
            *kernels.entry(name.clone()).or_insert(0) += 1;
        }
    }
    (kernels, copies)
}

/// Every pair of events on one line that partially overlap (one starts inside the other and ends
/// after it), as readable descriptions. xprof's trace viewer draws a line as a stack of nested
/// slices, so such a pair is mis-drawn; events that merely touch, or nest, are fine.
pub fn partial_overlaps(s: &XSpace) -> Vec<String> {
    let mut bad = Vec::new();
    for p in &s.planes {
        for line in &p.lines {
            let mut evs: Vec<(i64, i64, usize)> = line
                .events
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let start = match e.data {
                        Some(x_event::Data::OffsetPs(o)) => o,
                        _ => 0,
                    };
                    (start, start + e.duration_ps, i)
                })
                .collect();
            evs.sort_by_key(|&(s, e, i)| (s, std::cmp::Reverse(e), i));
            // Ends of the currently open (enclosing) events, innermost last.
            let mut open: Vec<(i64, usize)> = Vec::new();
            for &(start, end, i) in &evs {
                while open.last().is_some_and(|&(e, _)| e <= start) {
                    open.pop();
                }
                if let Some(&(outer_end, j)) = open.last() {
                    if end > outer_end {
                        let name = |k: usize| {
                            p.event_metadata
                                .get(&line.events[k].metadata_id)
                                .map(|m| m.name.clone())
                                .unwrap_or_default()
                        };
                        bad.push(format!(
                            "{} line {} ({:?}): {:?} [{start}, {end}) overlaps {:?} ending at {outer_end}",
                            p.name,
                            line.id,
                            line.name,
                            name(i),
                            name(j)
                        ));
                        continue;
                    }
                }
                open.push((end, i));
            }
        }
    }
    bad
}

/// Fails with the offending events when any line of any plane holds partially overlapping events.
pub fn assert_lines_nest(s: &XSpace, what: &str) {
    let bad = partial_overlaps(s);
    assert!(
        bad.is_empty(),
        "{what}: {} partially overlapping event pairs, e.g. {:#?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
}

/// Nothing lost silently: every record the simulated runtime emitted to the tool's buffers
/// (the ground truth's `delivery.emitted_per_kind`), and every HIP call whose record the tool
/// builds from its callbacks (`builds`: `truth::hip_calls_recorded`), is an event in the file, dropped by the
/// runtime (`runtime_dropped`, its `drop_count`), or skipped and counted by the tool
/// (`unknown_kind_records`, `bad_size_records`, `bad_timestamp_records`). Per kind when nothing
/// was lost (the runtime's drop count does not say which buffer's records it was), over all
/// kinds otherwise.
///
/// Kinds: kernel dispatches (memset fill kernels included) and copies are device events (the
/// dependency anchors are not); every HIP call is one host event with a `correlation_id`; roctx
/// calls become one event per push/pop pair, start/stop pair or mark on the roctx lines.
pub fn assert_accounting(s: &XSpace, truth: &serde_json::Value, builds: bool, what: &str) {
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    let emitted = &truth["delivery"]["emitted_per_kind"];
    let (want_k, want_m, want_api, want_marker_records) = (
        n(&emitted["KERNEL_DISPATCH"]),
        n(&emitted["MEMORY_COPY"]),
        super::truth::hip_calls_recorded(truth, builds),
        super::truth::roctx_calls_recorded(truth),
    );
    let m = &truth["plan"]["markers"];
    let want_roctx = if want_marker_records > 0 {
        n(&m["push"]) + n(&m["range_start"]) + n(&m["mark"])
    } else {
        0
    };
    let dev = device_events(s);
    let got_k = dev.iter().filter(|e| e.is_kernel()).count() as u64;
    let got_m = dev.iter().filter(|e| e.is_memcpy()).count() as u64;
    let host = events(plane(s, HOST_PLANE));
    let got_api = host_api_events(s)
        .iter()
        .filter(|e| e.raw_stat("correlation_id").is_some())
        .count() as u64;
    let got_roctx = host
        .iter()
        .filter(|e| e.line.name.contains("/ROCTX"))
        .count() as u64;
    let c = counters(s);
    let lost = c["runtime_dropped"]
        + c.get("memory_limit_dropped").copied().unwrap_or(0)
        + c["unknown_kind_records"]
        + c["bad_size_records"]
        + c["bad_timestamp_records"];
    if lost == 0 {
        assert_eq!((got_k, got_m), (want_k, want_m), "{what}: kernels, copies");
        assert_eq!(got_api, want_api, "{what}: HIP API calls");
        assert_eq!(got_roctx, want_roctx, "{what}: roctx ranges and marks");
        assert_eq!(
            (
                c["kernel_records"],
                c["memcpy_records"],
                c["api_records"],
                c["marker_records"]
            ),
            (want_k, want_m, want_api, want_marker_records),
            "{what}: records decoded"
        );
    } else {
        let produced: u64 = emitted
            .as_object()
            .map(|o| o.values().map(n).sum())
            .unwrap_or(0)
            - n(&emitted["HIP_RUNTIME_API"])
            + want_api
            + n(&truth["delivery"]["roctx_calls_by_callbacks"]);
        let decoded = c["kernel_records"]
            + c["memcpy_records"]
            + c["api_records"]
            + c["marker_records"]
            + c.get("hip_event_records").copied().unwrap_or(0);
        assert_eq!(
            decoded + lost - c["bad_timestamp_records"],
            produced,
            "{what}: decoded + dropped/skipped = emitted"
        );
        assert!(
            got_k + got_m <= want_k + want_m,
            "{what}: more device events than records"
        );
    }
}

/// The byte width of each plane entry's length in an encoded XSpace, in file order: a plane
/// written into the output as it was built has its length padded to 5 bytes, one written
/// whole has the shortest varint. Walks the file's top-level fields (planes are field 1).
pub fn plane_length_widths(file: &[u8]) -> Vec<usize> {
    let varint = |at: usize| -> (u64, usize) {
        let mut v = 0;
        for (i, b) in file[at..].iter().enumerate() {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return (v, i + 1);
            }
        }
        panic!("a varint runs past the end at {at}");
    };
    let (mut at, mut widths) = (0, Vec::new());
    while at < file.len() {
        let (key, k) = varint(at);
        assert_eq!(key & 7, 2, "XSpace's fields are all length-delimited");
        let (len, w) = varint(at + k);
        if key >> 3 == 1 {
            widths.push(w);
        }
        at += k + w + len as usize;
    }
    assert_eq!(at, file.len(), "the entries end with the file");
    widths
}

/// The thread ids of the host lines (`Host Threads/<tid>`) of `spaces` (one profile, or the
/// windows of one run), in the order of each thread's first HIP call (its smallest
/// `correlation_id` in any of them; a thread with none after those, by id): what `listing`
/// numbers threads by, so that two runs of one simulated program list the same threads alike.
/// The simulator fixes every correlation id from its plan; thread ids are the OS's, and their
/// order is not the threads' when the kernel's pid counter wraps (at `pid_max`) between the
/// creation of one process's threads, which a busy machine makes happen now and then.
pub fn host_tids<'a>(spaces: impl IntoIterator<Item = &'a XSpace>) -> Vec<u64> {
    let mut first: BTreeMap<u64, u64> = BTreeMap::new();
    for p in spaces.into_iter().flat_map(|s| &s.planes) {
        if p.name != HOST_PLANE {
            continue;
        }
        let corr = p
            .stat_metadata
            .iter()
            .find(|(_, m)| m.name == "correlation_id")
            .map(|(&id, _)| id);
        for l in &p.lines {
            let Some((_, tid, _)) = tid_in(&l.name) else {
                continue;
            };
            let ids = l.events.iter().flat_map(|e| &e.stats).filter_map(|st| {
                match (Some(st.metadata_id) == corr, &st.value) {
                    (true, Some(x_stat::Value::Uint64Value(v))) => Some(*v),
                    _ => None,
                }
            });
            let at = first.entry(tid).or_insert(u64::MAX);
            *at = ids.fold(*at, u64::min);
        }
    }
    let mut v: Vec<(u64, u64)> = first.into_iter().map(|(tid, at)| (at, tid)).collect();
    v.sort_unstable();
    v.into_iter().map(|(_, tid)| tid).collect()
}

/// `(before, tid, after)` of a name holding `Host Threads/<tid>`.
pub fn tid_in(name: &str) -> Option<(&str, u64, &str)> {
    const AT: &str = "Host Threads/";
    let i = name.find(AT)? + AT.len();
    let digits = name[i..].bytes().take_while(u8::is_ascii_digit).count();
    let tid = name[i..i + digits].parse().ok()?;
    Some((&name[..i], tid, &name[i + digits..]))
}

/// Every event of every line as two profiles of one simulated run are compared by: `plane |
/// line | name | duration | stats` (stats by name, sorted; a thread id in a line's name as its
/// position in `tids`, `host_tids`; a flow's id, salted with the process, left out), with its start in ps.
pub fn listing(s: &XSpace, tids: &[u64]) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for p in &s.planes {
        for l in &p.lines {
            let line = match tid_in(&l.name) {
                Some((before, tid, after)) => {
                    let rank = tids.iter().position(|&t| t == tid).map_or(-1, |r| r as i64);
                    format!("{before}T{rank}{after}")
                }
                None => l.name.clone(),
            };
            for e in &l.events {
                let ev = Ev {
                    plane: p,
                    line: l,
                    event: e,
                };
                let mut stats: Vec<String> = e
                    .stats
                    .iter()
                    .map(|st| {
                        let name = p
                            .stat_metadata
                            .get(&st.metadata_id)
                            .map_or("?", |m| m.name.as_str());
                        if name == "flow" {
                            return name.to_string();
                        }
                        format!("{name}={:?}", stat_value(p, &st.value))
                    })
                    .collect();
                stats.sort();
                let key = format!(
                    "{} | {line} | {} | {} | {}",
                    p.name,
                    ev.name(),
                    e.duration_ps,
                    stats.join(",")
                );
                out.push((key, ev.start_ps()));
            }
        }
    }
    out
}
