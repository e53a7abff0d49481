//! How each fact is packed (`packed::Pack`): what differs per record, and what it shares with
//! the records of the same thread, queue or stream, kept once per store.

use super::packed::Pack;
use crate::facts::{
    ApiDomain, ApiRecord, CallFact, CopyRecord, KernelRecord, MarkerRecord, SyncFact, SyncKind,
};

/// A record's duration split in two for its packed form (`store::packed`): the low 32 bits stay
/// with the record, the high ones (zero below 4.29 s) go with the facts it shares with others,
/// so a record keeps 4 bytes for its end instead of 8. Lossless for any pair of timestamps,
/// an end before its start included (wrapping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DurationHigh(u32);

#[inline]
fn split_duration(start_ns: u64, end_ns: u64) -> (u32, DurationHigh) {
    let (low, high) = halves(end_ns.wrapping_sub(start_ns));
    (low, DurationHigh(high))
}

#[inline]
fn end_of(start_ns: u64, low: u32, high: DurationHigh) -> u64 {
    start_ns.wrapping_add(whole(low, high.0))
}

/// A word's low and high 32 bits.
#[inline]
fn halves(v: u64) -> (u32, u32) {
    (v as u32, (v >> 32) as u32)
}

/// The word of `low` and `high` 32 bits.
#[inline]
fn whole(low: u32, high: u32) -> u64 {
    u64::from(low) | (u64::from(high) << 32)
}

/// The low halves of a HIP or roctx call's correlation id, start and duration: what differs
/// per call in both layouts. The high halves go with its [`CallSource`]: ids and nanoseconds
/// cross a 2^32 boundary every 4.29 G calls or 4.29 s, so a thread's calls of one operation
/// share an entry that long.
#[derive(Debug, Clone, Copy)]
pub struct CallLows {
    correlation: u32,
    start: u32,
    duration: u32,
}

/// The four words a HIP or roctx call shares with the calls of its thread and operation,
/// compared and hashed a word at a time: the delivery thread looks an entry up whenever
/// consecutive records differ (for nearly every roctx record: push and pop alternate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallSource {
    thread_id: u64,
    /// The operation (low half, as `u32`) and the correlation id's high half.
    operation_id_high: u64,
    /// The start's high half (low half) and the duration's.
    times_high: u64,
    /// The layout's own word ([`ApiSource`], [`MarkerSource`]).
    own: u64,
}

impl std::hash::Hash for CallSource {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(
            self.thread_id
                ^ self.operation_id_high.rotate_left(7)
                ^ self.times_high.rotate_left(29)
                ^ self.own.rotate_left(43),
        );
    }
}

impl CallSource {
    /// `r`'s low halves, and what it shares, with the layout's own word `own`.
    #[inline]
    fn split(r: &ApiRecord, own: u64) -> (CallLows, CallSource) {
        let (duration, duration_high) = split_duration(r.start_ns, r.end_ns);
        let (correlation, correlation_high) = halves(r.correlation_id);
        let (start, start_high) = halves(r.start_ns);
        (
            CallLows {
                correlation,
                start,
                duration,
            },
            CallSource {
                thread_id: r.thread_id,
                operation_id_high: whole(r.operation as u32, correlation_high),
                times_high: whole(start_high, duration_high.0),
                own,
            },
        )
    }

    /// The record of the call whose low halves are `lows`, in `domain`, with `external_id`.
    #[inline]
    fn record(&self, lows: CallLows, domain: ApiDomain, external_id: u64) -> ApiRecord {
        let (operation, _) = halves(self.operation_id_high);
        let (start_high, duration_high) = halves(self.times_high);
        let start_ns = whole(lows.start, start_high);
        ApiRecord {
            domain,
            operation: operation as i32,
            correlation_id: self.id(lows.correlation),
            external_id,
            start_ns,
            end_ns: end_of(start_ns, lows.duration, DurationHigh(duration_high)),
            thread_id: self.thread_id,
        }
    }

    /// The correlation id whose low half is `low`.
    #[inline]
    fn id(&self, low: u32) -> u64 {
        whole(low, (self.operation_id_high >> 32) as u32)
    }
}

/// What differs per API call; the rest of [`ApiRecord`] is its [`ApiSource`]: the low halves
/// of its correlation id, external id, start and duration, so that a stored call with its
/// table index is 20 bytes (48 unpacked). The external id keeps its low half here, not all of
/// it with the shared facts as a roctx record's does: a framework that pushes an external id
/// per operation (each of its operations makes a few HIP calls) would otherwise make a table
/// entry per operation.
#[derive(Debug, Clone, Copy)]
pub struct ApiEach {
    lows: CallLows,
    external_low: u32,
}

/// The thread, operation, domain and high halves many API calls share: a [`CallSource`]
/// whose own word is the external id's high half (low half) and the domain (`Marker` as 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ApiSource(CallSource);

impl ApiSource {
    /// The domain of the calls of this entry.
    pub fn domain(&self) -> ApiDomain {
        if self.0.own >> 32 == 0 {
            ApiDomain::Hip
        } else {
            ApiDomain::Marker
        }
    }

    /// The operation of the calls of this entry.
    pub fn operation(&self) -> i32 {
        self.0.operation_id_high as u32 as i32
    }

    /// The thread of the calls of this entry.
    pub fn thread_id(&self) -> u64 {
        self.0.thread_id
    }
}

impl Pack for ApiRecord {
    type Each = ApiEach;
    type Shared = ApiSource;

    #[inline]
    fn id(e: &ApiEach, shared: impl FnOnce() -> Self::Shared) -> u64 {
        shared().0.id(e.lows.correlation)
    }

    #[inline]
    fn split(self) -> (ApiEach, ApiSource) {
        let (external_low, external_high) = halves(self.external_id);
        let domain_bit = match self.domain {
            ApiDomain::Hip => 0,
            ApiDomain::Marker => 1,
        };
        let (lows, source) = CallSource::split(&self, whole(external_high, domain_bit));
        (ApiEach { lows, external_low }, ApiSource(source))
    }

    #[inline]
    fn join(e: ApiEach, s: &ApiSource) -> ApiRecord {
        let external_id = whole(e.external_low, s.0.own as u32);
        s.0.record(e.lows, s.domain(), external_id)
    }
}

/// What differs per roctx call; the rest of [`MarkerRecord`] is its [`MarkerSource`]: the low
/// halves of its correlation id, start and duration, so that a stored call with its table index
/// is 16 bytes.
#[derive(Debug, Clone, Copy)]
pub struct MarkerEach(CallLows);

/// The thread, operation and high halves many roctx calls share: a [`CallSource`] whose own
/// word is the external id: the tool asks for external ids for dispatches and copies only, so
/// a roctx record carries the same one (none) as the calls before it. The domain is the
/// type's (`Marker`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MarkerSource(CallSource);

impl Pack for MarkerRecord {
    type Each = MarkerEach;
    type Shared = MarkerSource;

    #[inline]
    fn id(e: &MarkerEach, shared: impl FnOnce() -> MarkerSource) -> u64 {
        shared().0.id(e.0.correlation)
    }

    #[inline]
    fn split(self) -> (MarkerEach, MarkerSource) {
        let (lows, source) = CallSource::split(&self.0, self.0.external_id);
        (MarkerEach(lows), MarkerSource(source))
    }

    #[inline]
    fn join(e: MarkerEach, s: &MarkerSource) -> MarkerRecord {
        MarkerRecord(s.0.record(e.0, ApiDomain::Marker, s.0.own))
    }
}

/// What differs per kernel dispatch; the rest of [`KernelRecord`] is its [`KernelLaunch`]: the
/// low halves of its correlation id, external id, start, dispatch id and duration, so that a
/// stored dispatch with its table index is 24 bytes (48 unpacked). The high halves go with the
/// launch's facts: ids and nanoseconds cross a 2^32 boundary every 4.29 G dispatches or 4.29 s,
/// and the external ids the tool gives a graph's nodes keep their graph above the low half
/// (`model::graph`), so a launch shape's dispatches share an entry that long.
#[derive(Debug, Clone, Copy)]
pub struct KernelEach {
    correlation_low: u32,
    external_low: u32,
    start_low: u32,
    dispatch_low: u32,
    duration_low: u32,
}

/// A dispatch's own facts, read without assembling its whole record (`PackedTaker::take_each`)
/// with its launch's high halves: the kernels stage reads its launch's once per store entry.
impl KernelEach {
    #[inline]
    pub fn correlation_id(&self, launch: &KernelLaunch) -> u64 {
        whole(self.correlation_low, launch.highs.correlation)
    }

    #[inline]
    pub fn external_id(&self, launch: &KernelLaunch) -> u64 {
        whole(self.external_low, launch.highs.external)
    }

    #[inline]
    pub fn start_ns(&self, launch: &KernelLaunch) -> u64 {
        whole(self.start_low, launch.highs.start)
    }

    #[inline]
    pub fn dispatch_id(&self, launch: &KernelLaunch) -> u64 {
        whole(self.dispatch_low, launch.highs.fourth)
    }

    /// Its end, from its duration's low bits and its launch's high ones.
    #[inline]
    pub fn end_ns(&self, launch: &KernelLaunch) -> u64 {
        end_of(
            self.start_ns(launch),
            self.duration_low,
            launch.duration_high,
        )
    }
}

/// The high halves of a dispatch's or a copy's ids and start, and of its fourth word (a
/// dispatch's id, a copy's byte count), kept with the facts it shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Highs {
    correlation: u32,
    external: u32,
    start: u32,
    fourth: u32,
}

impl Highs {
    /// The high halves of the four words.
    #[inline]
    fn of(correlation_id: u64, external_id: u64, start_ns: u64, fourth: u64) -> Highs {
        Highs {
            correlation: halves(correlation_id).1,
            external: halves(external_id).1,
            start: halves(start_ns).1,
            fourth: halves(fourth).1,
        }
    }

    /// One word of the halves, for a hash.
    #[inline]
    fn word(&self) -> u64 {
        whole(self.correlation ^ self.fourth, self.start ^ self.external)
    }
}

/// What the dispatches of one kernel shape from one thread on one queue share: stored once per
/// store (see `store::packed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelLaunch {
    thread_id: u64,
    agent: u64,
    queue: u64,
    kernel_id: u64,
    private_segment_size: u32,
    group_segment_size: u32,
    workgroup: [u32; 3],
    grid: [u32; 3],
    pipe_id: Option<i32>,
    duration_high: DurationHigh,
    highs: Highs,
}

impl KernelLaunch {
    /// The queue its dispatches ran on.
    #[inline]
    pub fn queue(&self) -> u64 {
        self.queue
    }
}

/// One word of the fields that tell launches apart in practice (kernel, queue, thread, grid),
/// instead of hashing all fourteen: equal launches still hash equally, and the delivery thread
/// looks a launch up whenever consecutive records differ (several queues in one buffer;
/// `hot_path`'s `kernel, shapes interleaved` times it).
impl std::hash::Hash for KernelLaunch {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let grid = u64::from(self.grid[0]) | (u64::from(self.grid[1]) << 32);
        state.write_u64(
            self.kernel_id
                ^ self.queue.rotate_left(21)
                ^ self.thread_id.rotate_left(42)
                ^ grid
                ^ self.highs.word().rotate_left(11),
        );
    }
}

impl Pack for KernelRecord {
    type Each = KernelEach;
    type Shared = KernelLaunch;

    #[inline]
    fn id(e: &KernelEach, shared: impl FnOnce() -> Self::Shared) -> u64 {
        e.correlation_id(&shared())
    }

    #[inline]
    fn split(self) -> (KernelEach, KernelLaunch) {
        let KernelRecord {
            correlation_id,
            external_id,
            start_ns,
            end_ns,
            thread_id,
            agent,
            queue,
            kernel_id,
            dispatch_id,
            private_segment_size,
            group_segment_size,
            workgroup,
            grid,
            pipe_id,
        } = self;
        let (duration_low, duration_high) = split_duration(start_ns, end_ns);
        (
            KernelEach {
                correlation_low: correlation_id as u32,
                external_low: external_id as u32,
                start_low: start_ns as u32,
                dispatch_low: dispatch_id as u32,
                duration_low,
            },
            KernelLaunch {
                thread_id,
                agent,
                queue,
                kernel_id,
                private_segment_size,
                group_segment_size,
                workgroup,
                grid,
                pipe_id,
                duration_high,
                highs: Highs::of(correlation_id, external_id, start_ns, dispatch_id),
            },
        )
    }

    #[inline]
    fn join(e: KernelEach, l: &KernelLaunch) -> KernelRecord {
        KernelRecord {
            correlation_id: e.correlation_id(l),
            external_id: e.external_id(l),
            start_ns: e.start_ns(l),
            end_ns: e.end_ns(l),
            thread_id: l.thread_id,
            agent: l.agent,
            queue: l.queue,
            kernel_id: l.kernel_id,
            dispatch_id: e.dispatch_id(l),
            private_segment_size: l.private_segment_size,
            group_segment_size: l.group_segment_size,
            workgroup: l.workgroup,
            grid: l.grid,
            pipe_id: l.pipe_id,
        }
    }
}

/// What differs per copy; the rest of [`CopyRecord`] is its [`CopyRoute`]: the low halves,
/// as [`KernelEach`] keeps them (the byte count's in place of the dispatch id's), 24 bytes
/// stored (48 unpacked).
#[derive(Debug, Clone, Copy)]
pub struct CopyEach {
    correlation_low: u32,
    external_low: u32,
    start_low: u32,
    bytes_low: u32,
    duration_low: u32,
}

/// The thread, direction and agents many copies share, and the high halves of their words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyRoute {
    thread_id: u64,
    operation: i32,
    dst_agent: u64,
    src_agent: u64,
    duration_high: DurationHigh,
    highs: Highs,
}

impl std::hash::Hash for CopyRoute {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(
            self.thread_id
                ^ (self.operation as u64).rotate_left(13)
                ^ self.dst_agent.rotate_left(23)
                ^ self.src_agent.rotate_left(37)
                ^ self.highs.word().rotate_left(51),
        );
    }
}

impl Pack for CopyRecord {
    type Each = CopyEach;
    type Shared = CopyRoute;

    #[inline]
    fn id(e: &CopyEach, shared: impl FnOnce() -> Self::Shared) -> u64 {
        whole(e.correlation_low, shared().highs.correlation)
    }

    #[inline]
    fn split(self) -> (CopyEach, CopyRoute) {
        let CopyRecord {
            correlation_id,
            external_id,
            start_ns,
            end_ns,
            thread_id,
            operation,
            dst_agent,
            src_agent,
            bytes,
        } = self;
        let (duration_low, duration_high) = split_duration(start_ns, end_ns);
        (
            CopyEach {
                correlation_low: correlation_id as u32,
                external_low: external_id as u32,
                start_low: start_ns as u32,
                bytes_low: bytes as u32,
                duration_low,
            },
            CopyRoute {
                thread_id,
                operation,
                dst_agent,
                src_agent,
                duration_high,
                highs: Highs::of(correlation_id, external_id, start_ns, bytes),
            },
        )
    }

    #[inline]
    fn join(e: CopyEach, r: &CopyRoute) -> CopyRecord {
        let h = r.highs;
        let start_ns = whole(e.start_low, h.start);
        CopyRecord {
            correlation_id: whole(e.correlation_low, h.correlation),
            external_id: whole(e.external_low, h.external),
            start_ns,
            end_ns: end_of(start_ns, e.duration_low, r.duration_high),
            thread_id: r.thread_id,
            operation: r.operation,
            dst_agent: r.dst_agent,
            src_agent: r.src_agent,
            bytes: whole(e.bytes_low, h.fourth),
        }
    }
}

/// Where a thread's launches and copies go: the few streams it uses, shared by its calls with
/// the high half of their correlation ids, so that a call is held in 8 bytes while tracing (its
/// id's low half and the table index) instead of 32 (`store::packed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallTarget {
    stream: u64,
    device: i32,
    correlation_high: u32,
    stream_seq: u64,
}

impl Pack for CallFact {
    type Each = u32;
    type Shared = CallTarget;

    #[inline]
    fn id(e: &u32, shared: impl FnOnce() -> Self::Shared) -> u64 {
        whole(*e, shared().correlation_high)
    }

    #[inline]
    fn split(self) -> (u32, CallTarget) {
        let CallFact {
            correlation_id,
            stream,
            device,
            stream_seq,
        } = self;
        let (low, correlation_high) = halves(correlation_id);
        (
            low,
            CallTarget {
                stream,
                device,
                correlation_high,
                stream_seq,
            },
        )
    }

    #[inline]
    fn join(low: u32, t: &CallTarget) -> CallFact {
        CallFact {
            correlation_id: whole(low, t.correlation_high),
            stream: t.stream,
            device: t.device,
            stream_seq: t.stream_seq,
        }
    }
}

/// What differs per synchronization call; the rest of [`SyncFact`] is its [`SyncTarget`].
/// Packed to 4-byte alignment: a stored call with its table index is 20 bytes (40 unpacked).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
pub struct SyncEach {
    correlation_id: u64,
    event: u64,
}

/// The kind of call and the stream it names, which a loop repeats every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SyncTarget {
    kind: SyncKind,
    stream: u64,
    device: i32,
    stream_seq: u64,
}

impl Pack for SyncFact {
    type Each = SyncEach;
    type Shared = SyncTarget;

    #[inline]
    fn id(e: &SyncEach, _: impl FnOnce() -> Self::Shared) -> u64 {
        e.correlation_id
    }

    #[inline]
    fn split(self) -> (SyncEach, SyncTarget) {
        let SyncFact {
            correlation_id,
            kind,
            event,
            stream,
            device,
            stream_seq,
        } = self;
        (
            SyncEach {
                correlation_id,
                event,
            },
            SyncTarget {
                kind,
                stream,
                device,
                stream_seq,
            },
        )
    }

    #[inline]
    fn join(e: SyncEach, t: &SyncTarget) -> SyncFact {
        SyncFact {
            correlation_id: e.correlation_id,
            kind: t.kind,
            event: e.event,
            stream: t.stream,
            device: t.device,
            stream_seq: t.stream_seq,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::*;
    use crate::store::packed::{packed_size, PackedVec};

    /// A dispatch of one launch shape, its ids and times to be set.
    const DISPATCH: KernelRecord = KernelRecord {
        correlation_id: 0,
        external_id: 0,
        start_ns: 0,
        end_ns: 0,
        thread_id: 0,
        agent: 2,
        queue: 9,
        kernel_id: 4,
        dispatch_id: 0,
        private_segment_size: 0,
        group_segment_size: 64,
        workgroup: [256, 1, 1],
        grid: [4096, 1, 1],
        pipe_id: Some(1),
    };

    /// Start/end pairs whose duration needs more than the 32 bits kept per record: the high
    /// part goes with the shared entry, so every end comes back exactly (an end before its
    /// start and the extremes of the clock included).
    const TIMES: [(u64, u64); 7] = [
        (1_000, 1_500),
        (5, 5),
        (10, (1 << 32) + 10),
        (7, 7 + 9_000_000_000),
        (2_000, 1_000),
        (0, u64::MAX),
        (u64::MAX, 0),
    ];

    #[test]
    fn packed_records_keep_every_duration() {
        let api: Vec<ApiRecord> = TIMES
            .iter()
            .enumerate()
            .map(|(i, &(start_ns, end_ns))| ApiRecord {
                domain: if i % 2 == 0 {
                    ApiDomain::Hip
                } else {
                    ApiDomain::Marker
                },
                operation: 3,
                correlation_id: i as u64 + 1,
                external_id: 40 + i as u64,
                start_ns,
                end_ns,
                thread_id: 77,
            })
            .collect();
        let kernels: Vec<KernelRecord> = TIMES
            .iter()
            .enumerate()
            .map(|(i, &(start_ns, end_ns))| KernelRecord {
                correlation_id: i as u64 + 1,
                external_id: 0,
                start_ns,
                end_ns,
                thread_id: 77,
                dispatch_id: 100 + i as u64,
                ..DISPATCH
            })
            .collect();
        let copies: Vec<CopyRecord> = TIMES
            .iter()
            .enumerate()
            .map(|(i, &(start_ns, end_ns))| CopyRecord {
                correlation_id: i as u64 + 1,
                external_id: 0,
                start_ns,
                end_ns,
                thread_id: 77,
                operation: 2,
                dst_agent: 2,
                src_agent: 1,
                bytes: 1 << 20,
            })
            .collect();
        let markers: Vec<MarkerRecord> = api.iter().map(|&r| MarkerRecord::of(r)).collect();
        let a: PackedVec<ApiRecord> = api.clone().into();
        let m: PackedVec<MarkerRecord> = markers.clone().into();
        let k: PackedVec<KernelRecord> = kernels.clone().into();
        let c: PackedVec<CopyRecord> = copies.clone().into();
        assert_eq!(a.iter().collect::<Vec<_>>(), api);
        assert_eq!(m.iter().collect::<Vec<_>>(), markers);
        assert_eq!(k.iter().collect::<Vec<_>>(), kernels);
        assert_eq!(c.iter().collect::<Vec<_>>(), copies);
        // Short calls of one thread and operation share one entry.
        let short: PackedVec<ApiRecord> = api[..2]
            .iter()
            .map(|&r| ApiRecord {
                domain: ApiDomain::Hip,
                ..r
            })
            .collect();
        assert_eq!(
            short.held_bytes(),
            2 * 20 + std::mem::size_of::<ApiSource>()
        );
    }

    /// Calls of `domain` with every field at its extremes: ids and thread at the top, the
    /// operation at the bottom, the times of [`TIMES`].
    fn at_the_extremes(domain: ApiDomain) -> impl Iterator<Item = ApiRecord> {
        TIMES
            .iter()
            .enumerate()
            .map(move |(i, &(start_ns, end_ns))| ApiRecord {
                domain,
                operation: i32::MIN + i as i32,
                correlation_id: u64::MAX - i as u64,
                external_id: u64::MAX - 3 * i as u64,
                start_ns,
                end_ns,
                thread_id: u64::MAX,
            })
    }

    /// `records` come back whole from their packed form, by record and by id (`id`), and
    /// through a split by id: those with an id past 2^32 that `take` picks are taken, in order,
    /// the rest kept, in order, with the table as it was.
    fn come_back_whole<T: Pack + PartialEq + std::fmt::Debug>(
        records: &[T],
        id: impl Fn(&T) -> u64,
        take: impl Fn(&T) -> bool,
    ) {
        let mut p: PackedVec<T> = records.to_vec().into();
        assert_eq!(p.iter().collect::<Vec<_>>(), records);
        assert!(p.ids().eq(records.iter().map(&id)));
        let entries = p.entries();
        let high = |i: u64| i >= 1 << 32;
        let taken = p.split_ids_where(high, &take);
        let want = |r: &&T| high(id(r)) && take(r);
        assert!(taken.iter().eq(records.iter().filter(want).copied()));
        assert!(p.iter().eq(records.iter().filter(|r| !want(r)).copied()));
        assert_eq!(p.entries(), entries, "the kept ones keep the table");
    }

    /// roctx records keep the low halves of their ids and times: records whose ids and starts
    /// cross a 2^32 boundary, and every field at its extremes, come back whole, by record, by
    /// id and through a split by id; records of one thread and operation within one stretch of
    /// 2^32 ids and nanoseconds share one entry.
    #[test]
    fn marker_records_come_back_whole_across_the_halves() {
        let edge = 1u64 << 32;
        let mut records: Vec<MarkerRecord> = (0..40u64)
            .map(|i| {
                MarkerRecord(ApiRecord {
                    domain: ApiDomain::Marker,
                    operation: (i % 2) as i32,
                    correlation_id: edge - 20 + i,
                    external_id: 0,
                    start_ns: 3 * edge - 7 * 20 + 7 * i,
                    end_ns: 3 * edge - 7 * 20 + 7 * i + 5,
                    thread_id: 9 + i % 3,
                })
            })
            .collect();
        records.extend(at_the_extremes(ApiDomain::Marker).map(MarkerRecord));
        come_back_whole(&records, |r| r.0.correlation_id, |r| r.0.thread_id != 10);
        let one_stretch: PackedVec<MarkerRecord> = records[..20].iter().copied().collect();
        assert_eq!(one_stretch.entries(), 6, "three threads, two operations");
    }

    /// HIP and roctx API records keep the low halves of their ids, external ids and times:
    /// records whose ids, external ids and starts cross a 2^32 boundary, and every field at its
    /// extremes, come back whole, by record, by id and through a split by id. Calls of one
    /// thread, operation and domain within one stretch of 2^32 share one entry, whatever
    /// external id each carries (a framework's id per operation makes no entry of its own).
    #[test]
    fn api_records_come_back_whole_across_the_halves() {
        let edge = 1u64 << 32;
        let mut records: Vec<ApiRecord> = (0..40u64)
            .map(|i| ApiRecord {
                domain: if i % 4 == 3 {
                    ApiDomain::Marker
                } else {
                    ApiDomain::Hip
                },
                operation: (i % 2) as i32,
                correlation_id: edge - 20 + i,
                external_id: edge - 10 + i,
                start_ns: 3 * edge - 7 * 20 + 7 * i,
                end_ns: 3 * edge - 7 * 20 + 7 * i + 5,
                thread_id: 9 + i % 3,
            })
            .collect();
        records.extend(at_the_extremes(ApiDomain::Hip));
        come_back_whole(&records, |r| r.correlation_id, |r| r.thread_id != 10);
        let per_operation: PackedVec<ApiRecord> = records[..10]
            .iter()
            .map(|&r| ApiRecord {
                domain: ApiDomain::Hip,
                thread_id: 9,
                operation: 1,
                ..r
            })
            .collect();
        assert_eq!(per_operation.entries(), 1, "a new external id per call");
    }

    /// Dispatches and copies keep the low halves of their ids, start, dispatch id or byte
    /// count: records whose words cross a 2^32 boundary (the external ids the tool gives a
    /// graph's nodes among them) come back whole, by record, by id and through a split by id;
    /// the dispatches of one launch shape within one stretch of 2^32 share one entry, whatever
    /// their own low halves.
    #[test]
    fn dispatches_and_copies_come_back_whole_across_the_halves() {
        let edge = 1u64 << 32;
        let node = |i: u64| crate::model::graph::GraphNode::new(3 + i / 16, i as u32 % 16);
        let kernels: Vec<KernelRecord> = (0..48u64)
            .map(|i| KernelRecord {
                correlation_id: edge - 24 + i,
                external_id: if i % 3 == 0 {
                    node(i).unwrap().tagged_word()
                } else {
                    edge - 5 + i
                },
                start_ns: 5 * edge - 24 * 9 + 9 * i,
                end_ns: 5 * edge - 24 * 9 + 9 * i + 4,
                thread_id: 70 + i % 2,
                dispatch_id: edge - 30 + i,
                ..DISPATCH
            })
            .collect();
        let copies: Vec<CopyRecord> = kernels
            .iter()
            .map(|k| CopyRecord {
                correlation_id: k.correlation_id,
                external_id: k.external_id,
                start_ns: k.start_ns,
                end_ns: k.end_ns,
                thread_id: k.thread_id,
                operation: 2,
                dst_agent: 2,
                src_agent: 1,
                bytes: k.dispatch_id * 3,
            })
            .collect();
        come_back_whole(&kernels, |r| r.correlation_id, |r| r.thread_id != 71);
        come_back_whole(&copies, |r| r.correlation_id, |r| r.thread_id != 71);
        let plain = |r: &&KernelRecord| r.external_id & crate::model::graph::TAG == 0;
        let one_stretch: PackedVec<KernelRecord> = kernels[..4]
            .iter()
            .filter(plain)
            .map(|&r| KernelRecord { thread_id: 70, ..r })
            .collect();
        assert_eq!(one_stretch.entries(), 1, "one shape, one stretch");
    }

    /// A thread's call and sync facts come back whole from their packed form, whatever
    /// repeats and whatever does not, call ids across a 2^32 boundary included.
    #[test]
    fn packed_facts_come_back_whole() {
        let kinds = [
            SyncKind::EventRecord,
            SyncKind::StreamWaitEvent,
            SyncKind::StreamSynchronize,
            SyncKind::DeviceSynchronize,
        ];
        let syncs: Vec<SyncFact> = (0..40u64)
            .map(|i| SyncFact {
                correlation_id: 1000 + i,
                kind: kinds[i as usize % kinds.len()],
                event: if i % 3 == 0 { 0 } else { 0xe000 + i % 5 },
                stream: 0x5000 + i % 2,
                device: (i % 3) as i32 - 1,
                stream_seq: i % 2 * 17,
            })
            .collect();
        // The calls' ids cross a 2^32 boundary: each keeps its low half.
        let calls: Vec<CallFact> = (0..40u64)
            .map(|i| CallFact {
                correlation_id: (1 << 32) - 20 + i,
                stream: i % 4,
                device: (i % 2) as i32,
                stream_seq: i % 4 * 3,
            })
            .collect();
        let s: PackedVec<SyncFact> = syncs.clone().into();
        let c: PackedVec<CallFact> = calls.clone().into();
        assert_eq!(s.iter().collect::<Vec<_>>(), syncs);
        assert_eq!(c.iter().collect::<Vec<_>>(), calls);
        assert!(c.ids().eq(calls.iter().map(|f| f.correlation_id)));
        assert_eq!(
            c.entries(),
            8,
            "four targets on either side of the boundary"
        );
    }

    /// A thread's full chunks of calls and launch facts are blocks the tool's allocator pools
    /// (`heap::pool::LARGE` and more): freed by the drain on the tool's thread, they are
    /// where the join's outputs go next. Below it they were the system allocator's, kept in
    /// the application thread's arena.
    #[test]
    fn a_thread_s_full_chunks_are_pooled() {
        use crate::heap::pool::LARGE;
        use crate::store::chunked::{THREAD_CHUNK, THREAD_FACT_CHUNK};
        assert!(THREAD_CHUNK * packed_size::<ApiRecord>() >= LARGE);
        assert!(THREAD_FACT_CHUNK * packed_size::<CallFact>() >= LARGE);
        assert!(THREAD_CHUNK * packed_size::<SyncFact>() >= LARGE);
    }

    /// What one record costs while tracing: at most 64 B are retained per event.
    #[test]
    fn stored_records_are_small() {
        assert_eq!(packed_size::<ApiRecord>(), 20);
        assert_eq!(std::mem::size_of::<ApiSource>(), 32);
        assert_eq!(packed_size::<MarkerRecord>(), 16);
        assert_eq!(std::mem::size_of::<MarkerSource>(), 32);
        assert_eq!(packed_size::<KernelRecord>(), 24);
        assert_eq!(packed_size::<CopyRecord>(), 24);
        assert_eq!(packed_size::<CallFact>(), 8);
        assert_eq!(packed_size::<SyncFact>(), 20);
    }
}
