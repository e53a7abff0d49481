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

/// What differs per API call; the rest of [`ApiRecord`] is its [`ApiSource`]. Packed to 4-byte
/// alignment: 28 bytes, so that a stored call with its table index is 32 (48 unpacked).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
pub struct ApiEach {
    correlation_id: u64,
    external_id: u64,
    start_ns: u64,
    duration_low: u32,
}

/// The thread and operation many calls share (a loop calls the same few operations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ApiSource {
    thread_id: u64,
    operation: i32,
    domain: ApiDomain,
    duration_high: DurationHigh,
}

impl ApiSource {
    /// The domain of the calls of this entry.
    pub fn domain(&self) -> ApiDomain {
        self.domain
    }

    /// The operation of the calls of this entry.
    pub fn operation(&self) -> i32 {
        self.operation
    }

    /// The thread of the calls of this entry.
    pub fn thread_id(&self) -> u64 {
        self.thread_id
    }
}

impl Pack for ApiRecord {
    type Each = ApiEach;
    type Shared = ApiSource;

    #[inline]
    fn id(e: &ApiEach, _: impl FnOnce() -> Self::Shared) -> u64 {
        e.correlation_id
    }

    #[inline]
    fn split(self) -> (ApiEach, ApiSource) {
        let ApiRecord {
            domain,
            operation,
            correlation_id,
            external_id,
            start_ns,
            end_ns,
            thread_id,
        } = self;
        let (duration_low, duration_high) = split_duration(start_ns, end_ns);
        (
            ApiEach {
                correlation_id,
                external_id,
                start_ns,
                duration_low,
            },
            ApiSource {
                thread_id,
                operation,
                domain,
                duration_high,
            },
        )
    }

    #[inline]
    fn join(e: ApiEach, s: &ApiSource) -> ApiRecord {
        ApiRecord {
            domain: s.domain,
            operation: s.operation,
            correlation_id: e.correlation_id,
            external_id: e.external_id,
            start_ns: e.start_ns,
            end_ns: end_of(e.start_ns, e.duration_low, s.duration_high),
            thread_id: s.thread_id,
        }
    }
}

/// What differs per roctx call; the rest of [`MarkerRecord`] is its [`MarkerSource`]: the low
/// halves of its correlation id, start and duration, so that a stored call with its table index
/// is 16 bytes. The high halves go with the shared facts: they change every 2^32 calls or
/// nanoseconds (4.29 s), so a thread's calls of one operation share an entry that long.
#[derive(Debug, Clone, Copy)]
pub struct MarkerEach {
    correlation_low: u32,
    start_low: u32,
    duration_low: u32,
}

/// The thread, operation and high halves many roctx calls share, in four words (compared and
/// hashed a word at a time: push and pop alternate, so the delivery thread looks an entry up
/// for nearly every roctx record). The external id goes here too: the tool asks for external
/// ids for dispatches and copies only, so a roctx record carries the same one (none) as the
/// calls before it. The domain is the type's (`Marker`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkerSource {
    thread_id: u64,
    external_id: u64,
    /// The operation (low half, as `u32`) and the correlation id's high half.
    operation_id_high: u64,
    /// The start's high half (low half) and the duration's.
    times_high: u64,
}

impl std::hash::Hash for MarkerSource {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(
            self.thread_id
                ^ self.operation_id_high.rotate_left(7)
                ^ self.times_high.rotate_left(29)
                ^ self.external_id.rotate_left(43),
        );
    }
}

impl Pack for MarkerRecord {
    type Each = MarkerEach;
    type Shared = MarkerSource;

    #[inline]
    fn id(e: &MarkerEach, shared: impl FnOnce() -> MarkerSource) -> u64 {
        whole(e.correlation_low, (shared().operation_id_high >> 32) as u32)
    }

    #[inline]
    fn split(self) -> (MarkerEach, MarkerSource) {
        let ApiRecord {
            domain: _,
            operation,
            correlation_id,
            external_id,
            start_ns,
            end_ns,
            thread_id,
        } = self.0;
        let (duration_low, duration_high) = split_duration(start_ns, end_ns);
        let (correlation_low, correlation_high) = halves(correlation_id);
        let (start_low, start_high) = halves(start_ns);
        (
            MarkerEach {
                correlation_low,
                start_low,
                duration_low,
            },
            MarkerSource {
                thread_id,
                external_id,
                operation_id_high: whole(operation as u32, correlation_high),
                times_high: whole(start_high, duration_high.0),
            },
        )
    }

    #[inline]
    fn join(e: MarkerEach, s: &MarkerSource) -> MarkerRecord {
        let (operation, correlation_high) = halves(s.operation_id_high);
        let (start_high, duration_high) = halves(s.times_high);
        let start_ns = whole(e.start_low, start_high);
        MarkerRecord(ApiRecord {
            domain: ApiDomain::Marker,
            operation: operation as i32,
            correlation_id: whole(e.correlation_low, correlation_high),
            external_id: s.external_id,
            start_ns,
            end_ns: end_of(start_ns, e.duration_low, DurationHigh(duration_high)),
            thread_id: s.thread_id,
        })
    }
}

/// What differs per kernel dispatch; the rest of [`KernelRecord`] is its [`KernelLaunch`].
/// Packed to 4-byte alignment: 36 bytes, a stored dispatch with its table index 40 (48 unpacked).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
pub struct KernelEach {
    correlation_id: u64,
    external_id: u64,
    start_ns: u64,
    dispatch_id: u64,
    duration_low: u32,
}

/// A dispatch's own facts, read without assembling its whole record (`PackedTaker::take_each`):
/// the kernels stage reads its launch's once per store entry.
impl KernelEach {
    #[inline]
    pub fn correlation_id(&self) -> u64 {
        self.correlation_id
    }

    #[inline]
    pub fn external_id(&self) -> u64 {
        self.external_id
    }

    #[inline]
    pub fn start_ns(&self) -> u64 {
        self.start_ns
    }

    #[inline]
    pub fn dispatch_id(&self) -> u64 {
        self.dispatch_id
    }

    /// Its end, from its duration's low bits and its launch's high ones.
    #[inline]
    pub fn end_ns(&self, launch: &KernelLaunch) -> u64 {
        end_of(self.start_ns, self.duration_low, launch.duration_high)
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
            self.kernel_id ^ self.queue.rotate_left(21) ^ self.thread_id.rotate_left(42) ^ grid,
        );
    }
}

impl Pack for KernelRecord {
    type Each = KernelEach;
    type Shared = KernelLaunch;

    #[inline]
    fn id(e: &KernelEach, _: impl FnOnce() -> Self::Shared) -> u64 {
        e.correlation_id
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
                correlation_id,
                external_id,
                start_ns,
                dispatch_id,
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
            },
        )
    }

    #[inline]
    fn join(e: KernelEach, l: &KernelLaunch) -> KernelRecord {
        KernelRecord {
            correlation_id: e.correlation_id,
            external_id: e.external_id,
            start_ns: e.start_ns,
            end_ns: end_of(e.start_ns, e.duration_low, l.duration_high),
            thread_id: l.thread_id,
            agent: l.agent,
            queue: l.queue,
            kernel_id: l.kernel_id,
            dispatch_id: e.dispatch_id,
            private_segment_size: l.private_segment_size,
            group_segment_size: l.group_segment_size,
            workgroup: l.workgroup,
            grid: l.grid,
            pipe_id: l.pipe_id,
        }
    }
}

/// What differs per copy; the rest of [`CopyRecord`] is its [`CopyRoute`]. Packed as
/// [`KernelEach`]: 40 bytes stored (48 unpacked).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
pub struct CopyEach {
    correlation_id: u64,
    external_id: u64,
    start_ns: u64,
    bytes: u64,
    duration_low: u32,
}

/// The thread, direction and agents many copies share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CopyRoute {
    thread_id: u64,
    operation: i32,
    dst_agent: u64,
    src_agent: u64,
    duration_high: DurationHigh,
}

impl Pack for CopyRecord {
    type Each = CopyEach;
    type Shared = CopyRoute;

    #[inline]
    fn id(e: &CopyEach, _: impl FnOnce() -> Self::Shared) -> u64 {
        e.correlation_id
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
                correlation_id,
                external_id,
                start_ns,
                bytes,
                duration_low,
            },
            CopyRoute {
                thread_id,
                operation,
                dst_agent,
                src_agent,
                duration_high,
            },
        )
    }

    #[inline]
    fn join(e: CopyEach, r: &CopyRoute) -> CopyRecord {
        CopyRecord {
            correlation_id: e.correlation_id,
            external_id: e.external_id,
            start_ns: e.start_ns,
            end_ns: end_of(e.start_ns, e.duration_low, r.duration_high),
            thread_id: r.thread_id,
            operation: r.operation,
            dst_agent: r.dst_agent,
            src_agent: r.src_agent,
            bytes: e.bytes,
        }
    }
}

/// Where a thread's launches and copies go: the few streams it uses, shared by its calls, so
/// that a call is held in 16 bytes while tracing instead of 32 (`store::packed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallTarget {
    stream: u64,
    device: i32,
    stream_seq: u64,
}

impl Pack for CallFact {
    type Each = u64;
    type Shared = CallTarget;

    #[inline]
    fn id(e: &u64, _: impl FnOnce() -> Self::Shared) -> u64 {
        *e
    }

    #[inline]
    fn split(self) -> (u64, CallTarget) {
        let CallFact {
            correlation_id,
            stream,
            device,
            stream_seq,
        } = self;
        (
            correlation_id,
            CallTarget {
                stream,
                device,
                stream_seq,
            },
        )
    }

    #[inline]
    fn join(correlation_id: u64, t: &CallTarget) -> CallFact {
        CallFact {
            correlation_id,
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
                agent: 2,
                queue: 9,
                kernel_id: 4,
                dispatch_id: 100 + i as u64,
                private_segment_size: 0,
                group_segment_size: 64,
                workgroup: [256, 1, 1],
                grid: [4096, 1, 1],
                pipe_id: Some(1),
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
            2 * 32 + std::mem::size_of::<ApiSource>()
        );
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
        for (i, &(start_ns, end_ns)) in TIMES.iter().enumerate() {
            records.push(MarkerRecord(ApiRecord {
                domain: ApiDomain::Marker,
                operation: i32::MIN + i as i32,
                correlation_id: u64::MAX - i as u64,
                external_id: u64::MAX - 3 * i as u64,
                start_ns,
                end_ns,
                thread_id: u64::MAX,
            }));
        }
        let mut m: PackedVec<MarkerRecord> = records.clone().into();
        assert_eq!(m.iter().collect::<Vec<_>>(), records);
        assert!(m.ids().eq(records.iter().map(|r| r.0.correlation_id)));
        let entries = m.entries();
        let one_stretch: PackedVec<MarkerRecord> = records[..20].iter().copied().collect();
        assert_eq!(one_stretch.entries(), 6, "three threads, two operations");
        let high = |id: u64| id >= edge;
        let taken = m.split_ids_where(high, |r| r.0.thread_id != 10);
        let want = |r: &&MarkerRecord| high(r.0.correlation_id) && r.0.thread_id != 10;
        assert!(taken.iter().eq(records.iter().filter(want).copied()));
        assert!(m.iter().eq(records.iter().filter(|r| !want(r)).copied()));
        assert_eq!(m.entries(), entries, "the kept ones keep the table");
    }

    /// A thread's call and sync facts come back whole from their packed form, whatever
    /// repeats and whatever does not.
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
        let calls: Vec<CallFact> = (0..40u64)
            .map(|i| CallFact {
                correlation_id: 2000 + i,
                stream: i % 4,
                device: (i % 2) as i32,
                stream_seq: i % 4 * 3,
            })
            .collect();
        let s: PackedVec<SyncFact> = syncs.clone().into();
        let c: PackedVec<CallFact> = calls.clone().into();
        assert_eq!(s.iter().collect::<Vec<_>>(), syncs);
        assert_eq!(c.iter().collect::<Vec<_>>(), calls);
    }

    /// What one record costs while tracing: at most 64 B are retained per event.
    #[test]
    fn stored_records_are_small() {
        assert_eq!(packed_size::<ApiRecord>(), 32);
        assert_eq!(packed_size::<MarkerRecord>(), 16);
        assert_eq!(std::mem::size_of::<MarkerSource>(), 32);
        assert_eq!(packed_size::<KernelRecord>(), 40);
        assert_eq!(packed_size::<CopyRecord>(), 40);
        assert_eq!(packed_size::<CallFact>(), 16);
        assert_eq!(packed_size::<SyncFact>(), 20);
    }
}
