//! The host events stage: each host thread's timeline, of roctx spans (timed by the buffered
//! records of the calls that opened and closed them, else by the callbacks' own timestamps)
//! and every API call, with what it launched. The inputs are taken from their ends and given
//! back as the events grow (`util::buffers`), so the two never coexist whole at the join's peak.

use crate::facts::{ApiDomain, ApiRecord, Counters, MarkerSpan};
use crate::fastmap::HashMap;
use crate::hip::ops::expects_device_activity;
use crate::model::trace::{
    GraphLaunch, HostEvent, HostEventKind, HostThread, Launched, Name, Ordinal16, RangeInfo, Table,
};
use crate::store::PackedVec;
use crate::util::buffers::{Backwards, FromTheEnd};
use crate::util::sort::{apply_order, sort_two_runs};
use std::sync::Arc;

use super::annotations::{AnnotationIndex, HostCalls};
use super::device_work::{CallActivity, Interned};
use super::input::Names;

/// What the host events stage makes: the threads, sorted by id, and the names and graph
/// launches their events name by id.
pub(super) struct HostSide {
    pub threads: Vec<HostThread>,
    /// The earliest start and the latest end of the threads' events (`None`: no event).
    pub span: Option<(u64, u64)>,
    pub names: Table<Arc<str>>,
    pub graph_launches: Table<GraphLaunch>,
}

/// The host events stage (see the module's comment).
pub(super) fn host_events(
    calls: HostCalls,
    names: &Names,
    activity: CallActivity,
    annotations: &mut AnnotationIndex,
    counters: &mut Counters,
) -> HostSide {
    let mut interned = NameTable::default();
    let mut operations = OpNames::new(&names.operations, &mut interned);
    let HostCalls {
        api,
        markers: mut spans,
    } = calls;
    // The spans first where that gives the same events: then their events (40 B each) are
    // what the calls' events grow beside, not the spans (80 B each). A mark's annotation is
    // its captured one unless an external id names its id (in a collection made by hand), and
    // then merging it makes an annotation, whose number depends on the order: the calls first.
    let spans_first = !spans.is_empty()
        && !spans
            .iter()
            .any(|m| m.instant && annotations.merges(m.open_correlation_id));
    // `span_events` deals each span to its thread: only each thread's spans need be in
    // `span_order`, unless merging a mark's annotation numbers it by the spans' order.
    if !(spans_first && each_thread_in_span_order(&spans)) {
        sort_spans(&mut spans);
    }
    // Each thread's events grow in chunks towards its known count (`Growing`). The roctx
    // records the spans stand for are gone already (the annotations stage dropped them):
    // every record left is an event.
    let mut threads = ThreadEvents::new(thread_sizes(&spans, &api));
    if spans_first {
        operations.name_unnamed(&mut interned, &api);
    }
    let calls = CallsIn {
        api,
        operations: &mut operations,
        work: activity,
        counters,
    };
    let graph_launches = if spans_first {
        span_events(spans, &mut threads, &mut interned, annotations);
        call_events(calls, &mut threads, &mut interned, annotations)
    } else {
        let launches = call_events(calls, &mut threads, &mut interned, annotations);
        span_events(spans, &mut threads, &mut interned, annotations);
        launches
    };
    let names_table = interned.table;
    let mut span: Option<(u64, u64)> = None;
    let threads = threads
        .list
        .into_iter()
        .map(|(tid, grown)| {
            let spans = grown.spans;
            let last_end = grown.last_end;
            // Spans first, in their order, then the calls as delivered: merged as they are
            // joined when each run is in order, else joined and then sorted
            // (`sort_host_events` settles and merges the two runs).
            let less = |x: &HostEvent, y: &HostEvent| host_less(&names_table, x, y);
            let pushed_first = if spans_first {
                spans
            } else {
                grown.events.len() - spans
            };
            let events = match grown.events.into_merged(pushed_first, spans_first, less) {
                Ok(events) => events,
                Err(grown) => {
                    let mut events = if spans_first {
                        grown.into_vec_runs(spans)
                    } else {
                        grown.into_vec()
                    };
                    sort_host_events(&mut events, spans, &names_table);
                    events
                }
            };
            // In host order (by start first): the first starts first.
            if let Some(first) = events.first() {
                debug_assert!(events.iter().all(|e| e.start_ns >= first.start_ns));
                let (s, e) = span.unwrap_or((u64::MAX, 0));
                span = Some((s.min(first.start_ns), e.max(last_end)));
            }
            HostThread {
                tid,
                name: names.threads.get(&tid).cloned().unwrap_or_default(),
                events,
            }
        })
        .collect();
    HostSide {
        threads,
        span,
        names: names_table,
        graph_launches,
    }
}

/// How many events each thread has: its spans, counted by their runs, and its calls, counted
/// by their shared entries (each names its thread), so that no record is unpacked.
fn thread_sizes(spans: &[MarkerSpan], api: &PackedVec<ApiRecord>) -> HashMap<u64, usize> {
    let mut sizes = count_runs(spans.iter().map(|m| m.thread_id));
    for (entry, n) in api.shared().iter().zip(api.entry_counts()) {
        // An entry no record names any more makes no thread.
        if n > 0 {
            *sizes.entry(entry.thread_id()).or_default() += n;
        }
    }
    sizes
}

/// How many of `threads` are each thread's. A thread's records come in runs: each run is
/// counted, then added to its thread's tally once (not a hash probe per record).
fn count_runs(threads: impl Iterator<Item = u64>) -> HashMap<u64, usize> {
    let mut sizes: HashMap<u64, usize> = HashMap::default();
    let mut run: Option<(u64, usize)> = None;
    for t in threads {
        match &mut run {
            Some((r, n)) if *r == t => *n += 1,
            _ => {
                if let Some((r, n)) = run.replace((t, 1)) {
                    *sizes.entry(r).or_default() += n;
                }
            }
        }
    }
    if let Some((r, n)) = run {
        *sizes.entry(r).or_default() += n;
    }
    sizes
}

/// The order spans are made in: by thread, the opening call, start, then label.
fn span_order(a: &MarkerSpan, b: &MarkerSpan) -> std::cmp::Ordering {
    span_key(a)
        .cmp(&span_key(b))
        .then_with(|| a.label.cmp(&b.label))
}

/// A span's place in `span_order` but for its label.
fn span_key(m: &MarkerSpan) -> (u64, u64, u64) {
    (m.thread_id, m.open_correlation_id, m.start_ns)
}

/// Whether each thread's spans, read in their order, come in `span_order`: a stable sort by
/// it would then leave each thread's spans in the order they are (the threads' may
/// interleave). A thread's spans come in runs: the last span of each other thread is looked
/// up once per run.
fn each_thread_in_span_order(spans: &[MarkerSpan]) -> bool {
    let mut last_of: HashMap<u64, &MarkerSpan> = HashMap::default();
    let mut last: Option<&MarkerSpan> = None;
    for m in spans {
        let before = match last {
            Some(l) if l.thread_id == m.thread_id => Some(l),
            _ => {
                if let Some(l) = last {
                    last_of.insert(l.thread_id, l);
                }
                last_of.get(&m.thread_id).copied()
            }
        };
        if before.is_some_and(|b| span_order(b, m).is_gt()) {
            return false;
        }
        last = Some(m);
    }
    true
}

/// Sorts the spans by `span_order`, stably, moving each once (`apply_order`): their positions
/// are put in thread order first (a program has a few threads), then each thread's are sorted
/// by their keys (without the thread and the label) by value, so that a comparison reads no
/// span, and only spans whose keys tie are compared by label. A sort by a comparator reading
/// the spans (about 100 B each, at their positions) misses the cache at each comparison, and a
/// stable sort of the spans themselves would take a scratch copy. The keys are made a thread
/// at a time: made for every span at once they were held beside all the records at the host
/// events stage's start (32 B a span), the top of the join on a run of many roctx ranges.
fn sort_spans(spans: &mut [MarkerSpan]) {
    if spans.is_sorted_by(|a, b| span_order(a, b).is_le()) {
        return;
    }
    let Ok(n) = u32::try_from(spans.len()) else {
        spans.sort_by(span_order);
        return;
    };
    // Each thread's spans, by thread id.
    let mut threads: Vec<(u64, usize)> = count_runs(spans.iter().map(|m| m.thread_id))
        .into_iter()
        .collect();
    threads.sort_unstable();
    // Each thread's next position in `order`, in `threads`' order: a span's thread is found
    // once per run of its thread's spans (they come in runs), by a search of the few threads.
    let mut next = 0;
    let mut from = Vec::with_capacity(threads.len());
    let mut bounds = Vec::with_capacity(threads.len());
    for &(_, count) in &threads {
        from.push(next);
        bounds.push(next..next + count);
        next += count;
    }
    let mut order = vec![0u32; spans.len()];
    let mut run: Option<(u64, usize)> = None;
    for (m, i) in spans.iter().zip(0..n) {
        let t = match run {
            Some((tid, t)) if tid == m.thread_id => t,
            _ => {
                // (Every span's thread is counted in `threads`.)
                let Ok(t) = threads.binary_search_by_key(&m.thread_id, |&(tid, _)| tid) else {
                    continue;
                };
                run = Some((m.thread_id, t));
                t
            }
        };
        order[from[t]] = i;
        from[t] += 1;
    }
    drop(from);
    let mut keys: Vec<((u64, u64), u32)> = Vec::new();
    for range in bounds {
        let mine = &mut order[range];
        keys.clear();
        keys.extend(mine.iter().map(|&i| {
            let m = &spans[i as usize];
            ((m.open_correlation_id, m.start_ns), i)
        }));
        // Keys rising from span to span (a thread's spans mostly come in order, ranges that
        // do not nest): in order already, and no two tie, so the thread's positions stay.
        if keys.windows(2).all(|w| w[0].0 < w[1].0) {
            continue;
        }
        // Distinct (positions differ): an unstable sort gives ties in position order.
        keys.sort_unstable();
        let mut from = 0;
        while from < keys.len() {
            let mut to = from + 1;
            while to < keys.len() && keys[to].0 == keys[from].0 {
                to += 1;
            }
            if to - from > 1 {
                // Stable: equal labels keep their positions' order.
                keys[from..to]
                    .sort_by(|a, b| spans[a.1 as usize].label.cmp(&spans[b.1 as usize].label));
            }
            from = to;
        }
        for (o, (_, i)) in mine.iter_mut().zip(&keys) {
            *o = *i;
        }
    }
    drop(keys);
    apply_order(spans, &mut order);
}

/// What the calls' events are made of and counted in (`call_events`).
struct CallsIn<'a> {
    api: PackedVec<ApiRecord>,
    operations: &'a mut OpNames,
    /// Freed once the calls are events.
    work: CallActivity,
    counters: &'a mut Counters,
}

/// Every API record as its thread's event. The records are taken from the end, each chunk of
/// them freed once read, so their memory is given back while the host events (40 B each, the
/// records 32) grow. Each thread's events come out last first, and are turned round at the end,
/// merged as they are when each of its two runs is in order (`Backwards::into_merged`). What the device stages made of each call (`CallActivity`) is
/// freed here too.
fn call_events(
    calls: CallsIn<'_>,
    threads: &mut ThreadEvents,
    names: &mut NameTable,
    annotations: &mut AnnotationIndex,
) -> Table<GraphLaunch> {
    let CallsIn {
        api,
        operations,
        work,
        counters,
    } = calls;
    let mut graph_launches = Interned::default();
    // A run without graph launches reads no table of their executables.
    let graphs = !work.graph_exec_of.is_unused();
    for a in api.into_iter_from_the_end() {
        // Ranked once for the tables over the calls it reads.
        let call = work.activity_of.key(a.correlation_id);
        let annotation = annotations.get_ranked(call, a.external_id);
        let (name, launches) = operations.name(names, &a);
        let (count, device) = work
            .activity_of
            .get(call)
            .filter(|_| a.correlation_id != 0 && a.domain == ApiDomain::Hip)
            .map_or((0, None), |(n, d)| (n.get(), u16::try_from(d).ok()));
        if launches && count == 0 {
            counters.launches_without_activity += 1;
        }
        let exec = graphs
            .then(|| work.graph_exec_of.get_ranked(call))
            .flatten();
        let launched = match exec {
            Some(&exec) => Launched::graph(graph_launches.id(GraphLaunch {
                exec,
                activity_count: count,
            })),
            None => None,
        };
        threads.of(a.thread_id).push(HostEvent {
            name,
            start_ns: a.start_ns,
            end_ns: a.end_ns.max(a.start_ns),
            correlation_id: a.correlation_id,
            kind: match a.domain {
                ApiDomain::Hip => HostEventKind::HipApi,
                ApiDomain::Marker => HostEventKind::Marker,
            },
            annotation,
            device: device.into(),
            launched: launched.unwrap_or(Launched::count(count)),
        });
    }
    graph_launches.into_table()
}

/// Every span as its thread's event, taken from the end as the records are (`call_events`):
/// each thread's events are then its spans and its calls (or its calls and its spans, in
/// the order `host_events` made them), both last first.
fn span_events(
    spans: Vec<MarkerSpan>,
    threads: &mut ThreadEvents,
    names: &mut NameTable,
    annotations: &mut AnnotationIndex,
) {
    let mut spans = FromTheEnd::new(spans);
    while let Some(m) = spans.next() {
        let (start, end) = (m.start_ns, m.end_ns);
        let thread = threads.of(m.thread_id);
        thread.spans += 1;
        thread.push(HostEvent {
            name: names.intern(&m.label),
            start_ns: start,
            end_ns: end.max(start),
            // A push/pop range's scope id is its push's correlation id, which the event
            // carries (`HostEvent::scope_id`); a push that had no usable id got a fresh one.
            correlation_id: match m.scope_id {
                0 => m.open_correlation_id,
                scope => scope as u64,
            },
            kind: if m.instant {
                HostEventKind::Marker
            } else {
                HostEventKind::MarkerRange(RangeInfo {
                    process_wide: m.process_wide,
                    open_at_end: m.open_at_end,
                })
            },
            // A mark carries the context it was made in; a range is its own scope.
            annotation: if m.instant {
                annotations.get(m.open_correlation_id, 0)
            } else {
                None
            },
            device: Ordinal16::NONE,
            launched: Launched::NOTHING,
        });
    }
}

/// A host thread's events while they are built, towards its known count: made whole up
/// front, they would be held beside the API records they are made from, which are given back
/// as they are taken.
#[derive(Default)]
struct Growing {
    /// Made last first: the records are taken from the end.
    events: Backwards<HostEvent>,
    /// How many of the events are roctx spans (one run of them, before or after the calls').
    spans: usize,
    /// The latest end among the events (0 for none): noted as they come, for the time window
    /// (`HostSide::span`), where a walk over every event would read them again.
    last_end: u64,
}

/// Each thread's host events as they grow, in thread id order. `of` tries the thread it
/// answered last before searching: a thread's records come in runs, so most records need no
/// search at all.
struct ThreadEvents {
    list: Vec<(u64, Growing)>,
    last: usize,
}

impl ThreadEvents {
    /// One entry per thread of `sizes`, growing towards its size.
    fn new(sizes: HashMap<u64, usize>) -> Self {
        let all = sizes.values().sum();
        let mut list: Vec<(u64, Growing)> = sizes
            .into_iter()
            .map(|(t, total)| (t, Growing::towards(total, all)))
            .collect();
        list.sort_unstable_by_key(|(t, _)| *t);
        ThreadEvents { list, last: 0 }
    }

    /// Thread `tid`'s events; a thread not counted in the sizes gets an entry of its own.
    /// Inlined: the thread answered last is one compare; another one is searched apart.
    #[inline]
    fn of(&mut self, tid: u64) -> &mut Growing {
        match self.list.get_mut(self.last) {
            Some((t, _)) if *t == tid => {}
            _ => self.find(tid),
        }
        &mut self.list[self.last].1
    }

    /// Points `last` at thread `tid`'s entry, made when the thread has none.
    #[inline(never)]
    fn find(&mut self, tid: u64) {
        self.last = match self.list.binary_search_by_key(&tid, |(t, _)| *t) {
            Ok(i) => i,
            Err(i) => {
                self.list.insert(i, (tid, Growing::default()));
                i
            }
        };
    }
}

impl Growing {
    /// `all`: every thread's count. A thread of more than an eighth of them grows in place
    /// (`Backwards::in_place`): joining its chunks would hold its events twice for a moment,
    /// and a program that calls from one thread would hold them all twice at the join's end
    /// (`tests/peak_guard.rs`).
    fn towards(total: usize, all: usize) -> Self {
        Growing {
            events: if total > all / 8 {
                Backwards::in_place(total)
            } else {
                Backwards::towards(total)
            },
            spans: 0,
            last_end: 0,
        }
    }

    #[inline]
    fn push(&mut self, e: HostEvent) {
        self.last_end = self.last_end.max(e.end_ns);
        self.events.push(e);
    }
}

/// The host events' names, each stored once in the trace's table and found by its address:
/// the operation names and the roctx labels (interned by the capture) are `Arc`s shared by
/// many events. The table holds every name it hands out an id for, so an address cannot be
/// reused by another name while this lives.
#[derive(Default)]
struct NameTable {
    table: Table<Arc<str>>,
    by_addr: HashMap<usize, Name>,
    /// The name asked for last: consecutive spans of a loop mostly share their label.
    last: Option<(usize, Name)>,
}

impl NameTable {
    /// The id of `name`. The name asked for last is answered inlined (a span's label mostly
    /// is: a call per span otherwise), any other by `intern_new`.
    #[inline]
    fn intern(&mut self, name: &Arc<str>) -> Name {
        let addr = Arc::as_ptr(name).cast::<u8>() as usize;
        if let Some((_, id)) = self.last.filter(|&(a, _)| a == addr) {
            return id;
        }
        self.intern_new(name, addr)
    }

    /// `intern` of a name other than the one asked for last (at `addr`).
    #[inline(never)]
    fn intern_new(&mut self, name: &Arc<str>, addr: usize) -> Name {
        let table = &mut self.table;
        let id = *self
            .by_addr
            .entry(addr)
            .or_insert_with(|| table.push(name.clone()));
        self.last = Some((addr, id));
        id
    }
}

/// The runtime's operation names by (domain, operation), as a table per domain: operations
/// are small numbers (a few hundred HIP functions), so a record's name is an index, not a
/// hash probe. Each entry is the name's id and whether the operation launches device work
/// (looked up once per operation, not by name per record).
struct OpNames {
    hip: Vec<Option<(Name, bool)>>,
    marker: Vec<Option<(Name, bool)>>,
    /// Operations the runtime did not name: one name each, made on first use.
    unnamed: HashMap<(ApiDomain, i32), Name>,
}

/// Operations at or past this are left out of the tables (none are: the runtime numbers its
/// operations from 0), and shown as unnamed.
const MAX_OPERATION: usize = 1 << 16;

impl OpNames {
    fn new(
        names: &std::collections::HashMap<(ApiDomain, i32), Arc<str>>,
        interned: &mut NameTable,
    ) -> Self {
        let mut t = OpNames {
            hip: Vec::new(),
            marker: Vec::new(),
            unnamed: HashMap::default(),
        };
        // In operation order, so the table's ids do not follow the map's iteration order.
        let mut ops: Vec<_> = names.iter().collect();
        ops.sort_unstable_by_key(|(&(d, op), _)| (d == ApiDomain::Marker, op));
        for (&(domain, op), name) in ops {
            let Some(i) = usize::try_from(op).ok().filter(|&i| i < MAX_OPERATION) else {
                continue;
            };
            let launches = domain == ApiDomain::Hip && expects_device_activity(name);
            let entry = (interned.intern(name), launches);
            let table = t.table_mut(domain);
            if table.len() <= i {
                table.resize(i + 1, None);
            }
            table[i] = Some(entry);
        }
        t
    }

    fn table_mut(&mut self, domain: ApiDomain) -> &mut Vec<Option<(Name, bool)>> {
        match domain {
            ApiDomain::Hip => &mut self.hip,
            ApiDomain::Marker => &mut self.marker,
        }
    }

    #[inline]
    fn get(&self, domain: ApiDomain, op: i32) -> Option<(Name, bool)> {
        let table = match domain {
            ApiDomain::Hip => &self.hip,
            ApiDomain::Marker => &self.marker,
        };
        *table.get(usize::try_from(op).ok()?)?
    }

    /// The name of record `a`'s operation and whether it launches device work; an operation
    /// the runtime did not name is named by its number (`names` gets it on first use).
    /// Inlined: a named operation is an index; an unnamed one is hashed apart (`name_unnamed_op`).
    #[inline]
    fn name(&mut self, names: &mut NameTable, a: &ApiRecord) -> (Name, bool) {
        match self.get(a.domain, a.operation) {
            Some(named) => named,
            None => (self.name_unnamed_op(names, a.domain, a.operation), false),
        }
    }

    /// The name of an operation the runtime did not name, made on first use.
    #[inline(never)]
    fn name_unnamed_op(
        &mut self,
        names: &mut NameTable,
        domain: ApiDomain,
        operation: i32,
    ) -> Name {
        *self.unnamed.entry((domain, operation)).or_insert_with(|| {
            let d = match domain {
                ApiDomain::Hip => "hip",
                ApiDomain::Marker => "roctx",
            };
            names
                .table
                .push(Arc::from(format!("<{d} operation {operation}>")))
        })
    }

    /// Names the operations of `api` the runtime did not name, in the order `call_events`
    /// meets them (the records from the end): names made before the calls' events (the
    /// spans' labels) then follow them in the table, as when made after. (Rare: asked of the
    /// records' shared entries first, every record's operation among them, the records are
    /// read only when an entry's operation has no name.)
    fn name_unnamed(&mut self, names: &mut NameTable, api: &PackedVec<ApiRecord>) {
        if api
            .shared()
            .iter()
            .all(|s| self.get(s.domain(), s.operation()).is_some())
        {
            return;
        }
        let mut last: HashMap<(ApiDomain, i32), (usize, ApiRecord)> = HashMap::default();
        for (i, a) in api.iter().enumerate() {
            if self.get(a.domain, a.operation).is_none() {
                last.insert((a.domain, a.operation), (i, a));
            }
        }
        let mut met: Vec<(usize, ApiRecord)> = last.into_values().collect();
        met.sort_unstable_by_key(|&(i, _)| std::cmp::Reverse(i));
        for (_, a) in met {
            self.name(names, &a);
        }
    }
}

/// Sorts one thread's events by start, the longest first (an enclosing range before what it
/// encloses), then correlation id and name; events equal in all four keep their input order.
/// `events[..spans]` are the thread's roctx spans and the rest its calls as delivered: two
/// runs each nearly in order (`util::sort::sort_two_runs`).
fn sort_host_events(events: &mut [HostEvent], spans: usize, names: &Table<Arc<str>>) {
    sort_two_runs(events, spans, |x, y| host_order(names, x, y));
}

/// By start, the longest first, correlation id, then name (the text, as written).
fn host_order(names: &Table<Arc<str>>, x: &HostEvent, y: &HostEvent) -> std::cmp::Ordering {
    (x.start_ns, std::cmp::Reverse(x.end_ns), x.correlation_id)
        .cmp(&(y.start_ns, std::cmp::Reverse(y.end_ns), y.correlation_id))
        .then_with(|| names.get(x.name).cmp(&names.get(y.name)))
}

/// `host_order(names, x, y).is_lt()`, field by field: the merge of a thread's two runs asks
/// it twice per event, and an `Ordering` built of the whole key to be compared with `Less`
/// costs more than the first field, which mostly decides.
#[inline]
fn host_less(names: &Table<Arc<str>>, x: &HostEvent, y: &HostEvent) -> bool {
    if x.start_ns != y.start_ns {
        return x.start_ns < y.start_ns;
    }
    if x.end_ns != y.end_ns {
        return x.end_ns > y.end_ns;
    }
    if x.correlation_id != y.correlation_id {
        return x.correlation_id < y.correlation_id;
    }
    names.get(x.name) < names.get(y.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::next_random;

    /// `n` spans of three threads with few distinct keys (opening call, start, label), so
    /// that many tie; each span's end is its position, telling the ties apart.
    fn random_spans(
        n: usize,
        labels: &[Arc<str>],
        next: &mut impl FnMut(u64) -> u64,
    ) -> Vec<MarkerSpan> {
        (0..n)
            .map(|i| MarkerSpan {
                label: labels[next(3) as usize].clone(),
                thread_id: next(3),
                open_correlation_id: next(4),
                start_ns: next(3),
                end_ns: i as u64,
                ..MarkerSpan::default()
            })
            .collect()
    }

    /// The spans' sort is a stable sort by `span_order`: spans tying on thread, opening call
    /// and start go by label, and spans tying on all four keep their input order (told apart
    /// here by their ends); each thread's spans in order already stay so.
    #[test]
    fn spans_sort_as_a_stable_sort_by_span_order() {
        let mut x = 0x5eed_u64;
        let mut next = |m: u64| next_random(&mut x) % m;
        let labels: Vec<Arc<str>> = ["b", "a", "c"].into_iter().map(Arc::from).collect();
        for case in 0..200 {
            let n = 1 + next(60) as usize;
            let mut spans = random_spans(n, &labels, &mut next);
            if case % 5 == 0 {
                spans.sort_by(span_order);
            }
            if case % 5 == 1 {
                // Each thread's spans in order and none tying (their opening calls rise),
                // the threads' interleaved: grouped by thread, each thread's left as it is.
                for (i, m) in spans.iter_mut().enumerate() {
                    m.open_correlation_id = i as u64;
                }
            }
            let mut want = spans.clone();
            want.sort_by(span_order);
            sort_spans(&mut spans);
            let ends = |v: &[MarkerSpan]| v.iter().map(|m| m.end_ns).collect::<Vec<_>>();
            assert_eq!(ends(&spans), ends(&want), "case {case}");
        }
    }

    /// `each_thread_in_span_order` answers whether the stable sort by `span_order` leaves
    /// each thread's spans in the order they are: threads interleaved in runs, each thread's
    /// spans in order or not, ties on thread, opening call and start told apart by label.
    #[test]
    fn each_thread_in_span_order_is_whether_the_sort_leaves_each_threads_order() {
        let mut x = 0x51ce_u64;
        let mut next = |m: u64| next_random(&mut x) % m;
        let labels: Vec<Arc<str>> = ["b", "a", "c"].into_iter().map(Arc::from).collect();
        let (mut in_order, mut out_of_order) = (0, 0);
        for case in 0..400 {
            let n = 1 + next(40) as usize;
            let mut spans = random_spans(n, &labels, &mut next);
            if case % 2 == 0 {
                // Each thread's spans in order, the threads' dealt out in runs.
                let mut sorted = spans.clone();
                sorted.sort_by(span_order);
                let mut by_thread: Vec<Vec<MarkerSpan>> = vec![Vec::new(); 3];
                for m in sorted {
                    by_thread[m.thread_id as usize].push(m);
                }
                spans.clear();
                while by_thread.iter().any(|t| !t.is_empty()) {
                    let t = &mut by_thread[next(3) as usize];
                    let run = (1 + next(4) as usize).min(t.len());
                    spans.extend(t.drain(..run));
                }
            }
            let mut sorted = spans.clone();
            sorted.sort_by(span_order);
            let of_thread = |v: &[MarkerSpan], t: u64| -> Vec<u64> {
                v.iter()
                    .filter(|m| m.thread_id == t)
                    .map(|m| m.end_ns)
                    .collect()
            };
            let left = (0..3).all(|t| of_thread(&spans, t) == of_thread(&sorted, t));
            assert_eq!(each_thread_in_span_order(&spans), left, "case {case}");
            if left {
                in_order += 1;
            } else {
                out_of_order += 1;
            }
        }
        assert!(in_order > 100 && out_of_order > 100);
    }

    /// The operations the runtime did not name are named before the spans' labels in the
    /// order the calls' events meet them (the records from the end), once each; a collection
    /// whose every operation is named (asked of its shared entries) makes no name, and so
    /// does one whose unnamed operation only an entry no record names any more has.
    #[test]
    fn unnamed_operations_are_named_in_the_order_the_calls_meet_them() {
        let names: std::collections::HashMap<(ApiDomain, i32), Arc<str>> =
            [((ApiDomain::Hip, 1), Arc::from("hipLaunchKernel"))].into();
        let call = |op: i32, corr: u64| ApiRecord {
            domain: ApiDomain::Hip,
            operation: op,
            correlation_id: corr,
            external_id: 0,
            start_ns: corr,
            end_ns: corr + 1,
            thread_id: 7,
        };
        let made = |api: &PackedVec<ApiRecord>| {
            let mut interned = NameTable::default();
            let mut ops = OpNames::new(&names, &mut interned);
            ops.name_unnamed(&mut interned, api);
            let mut made: Vec<Name> = ops.unnamed.values().copied().collect();
            made.sort_unstable_by_key(|n| n.get());
            made.iter()
                .map(|&n| interned.table[n].to_string())
                .collect::<Vec<_>>()
        };
        let mixed: PackedVec<ApiRecord> =
            [call(1, 1), call(5, 2), call(9, 3), call(5, 4), call(1, 5)]
                .into_iter()
                .collect();
        assert_eq!(made(&mixed), ["<hip operation 5>", "<hip operation 9>"]);
        let named: PackedVec<ApiRecord> = [call(1, 1), call(1, 2)].into_iter().collect();
        assert!(made(&named).is_empty());
        let mut left = mixed.clone();
        left.retain(|a| a.operation == 1);
        assert!(left.shared().iter().any(|s| s.operation() == 9));
        assert!(made(&left).is_empty());
    }

    /// A HIP call's host event named `name`, from `start_ns` to `end_ns`, of call
    /// `correlation_id`, whose launches number `launched`.
    fn call_event(
        name: Name,
        start_ns: u64,
        end_ns: u64,
        correlation_id: u64,
        launched: u32,
    ) -> HostEvent {
        HostEvent {
            name,
            start_ns,
            end_ns,
            correlation_id,
            kind: HostEventKind::HipApi,
            annotation: None,
            device: Ordinal16::NONE,
            launched: Launched::count(launched),
        }
    }

    /// `host_less`, field by field, is `host_order`'s `Less`: events tying on any prefix of the
    /// key (start, end, id, then a name, one of them not in the table).
    #[test]
    fn host_less_is_host_orders_less() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| next_random(&mut x) % m;
        let mut table = Table::default();
        let mut names: Vec<Name> = ["b", "a", "c"]
            .iter()
            .map(|s| table.push(Arc::from(*s)))
            .collect();
        // An id past the table's (of another table, its fourth).
        let mut other = Table::default();
        let past = ["x", "y", "z", "w"].map(|s| other.push(Arc::<str>::from(s)))[3];
        assert!(table.get(past).is_none());
        names.push(past);
        let mut event = || call_event(names[next(4) as usize], next(3), 3 + next(3), next(3), 0);
        for _ in 0..5_000 {
            let (a, b) = (event(), event());
            assert_eq!(
                host_less(&table, &a, &b),
                host_order(&table, &a, &b).is_lt(),
                "{a:?} {b:?}"
            );
        }
    }

    /// Every path of `sort_host_events` (in order already; two runs, each in order or nearly,
    /// settled and merged; a settling given up half way; anything else sorted) gives what a
    /// stable sort by the same order gives: ties in input order.
    #[test]
    fn host_events_sort_as_a_stable_sort_on_every_path() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| next_random(&mut x) % m;
        let mut table = Table::default();
        let names: Vec<Name> = ["a", "b", "c"]
            .iter()
            .map(|s| table.push(Arc::from(*s)))
            .collect();
        let host_order = |x: &HostEvent, y: &HostEvent| host_order(&table, x, y);
        for case in 0..600 {
            let n = match case % 5 {
                // Long enough that a disorder beyond the settling's moves gives it up.
                4 => 2_000 + next(200) as usize,
                _ => next(40) as usize,
            };
            // Few distinct values, so ties in every key (and whole ties) are common.
            let mut events: Vec<HostEvent> = (0..n)
                .map(|i| {
                    call_event(
                        names[next(3) as usize],
                        next(6),
                        6 + next(4),
                        next(3),
                        i as u32,
                    )
                })
                .collect();
            // Two runs, as a thread's spans then its calls.
            let spans = next(n as u64 + 1) as usize;
            match case % 5 {
                0 => events.sort_by(host_order),
                1 => {
                    events[..spans].sort_by(host_order);
                    events[spans..].sort_by(host_order);
                }
                2 => {
                    // Each run nearly in order: neighbours swapped, as delivered.
                    events[..spans].sort_by(host_order);
                    events[spans..].sort_by(host_order);
                    for _ in 0..n / 3 {
                        let i = next(n as u64) as usize;
                        let j = (i + 1 + next(4) as usize).min(n - 1);
                        events.swap(i, j);
                    }
                }
                _ => {}
            }
            let mut want = events.clone();
            want.sort_by(host_order);
            sort_host_events(&mut events, spans, &table);
            let ids = |v: &[HostEvent]| v.iter().map(|e| e.launched).collect::<Vec<_>>();
            assert_eq!(ids(&events), ids(&want), "case {case}");
        }
    }

    #[test]
    fn host_events_sort_by_start_longest_first_then_id_and_name_ties_in_input_order() {
        let mut table = Table::default();
        let mut ev = |name: &str, start, end, corr, activity_count| {
            call_event(
                table.push(Arc::from(name)),
                start,
                end,
                corr,
                activity_count,
            )
        };
        // The spans first, then the calls, as `host_events` fills a thread.
        let mut events = vec![
            ev("range", 10, 100, 1, 0),
            ev("inner", 20, 30, 2, 0),
            ev("b", 40, 50, 7, 1),
            ev("hipMalloc", 10, 20, 3, 0),
            ev("a", 40, 50, 7, 0),
            ev("b", 40, 50, 7, 2),
            ev("hipFree", 5, 6, 9, 0),
            ev("long", 10, 100, 0, 0),
        ];
        sort_host_events(&mut events, 2, &table);
        let got: Vec<(&str, Launched)> = events
            .iter()
            .map(|e| (&*table[e.name], e.launched))
            .collect();
        assert_eq!(
            got,
            [
                ("hipFree", 0),
                ("long", 0),
                ("range", 0),
                ("hipMalloc", 0),
                ("inner", 0),
                ("a", 0),
                ("b", 1),
                ("b", 2),
            ]
            .map(|(name, n)| (name, Launched::count(n)))
        );
    }
}
