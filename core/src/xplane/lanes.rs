//! Splitting a thread's roctx events over as few lines as keep every line nested.
//!
//! xprof's trace viewer draws a line as a stack of nested slices, so two events of one line that
//! partially overlap (one starts inside the other and ends after it) are mis-drawn. Push/pop
//! ranges and marks of one thread nest by construction; start/stop ranges need not nest with
//! each other or with anything, and clocks of buffered and callback timestamps may disagree by a
//! few ns. Each group is therefore dealt onto lanes: a span goes to the first lane where it nests.

use super::builder::{FinishedLine, Hot, LineBuilder, PlaneBuilder, StatBytes, StatIds};
use super::stats as s;
use crate::model::RangeInfo;

/// Roctx ranges and marks of thread `tid` go on their own line, id `tid | MARKER_LINE_BIT`:
/// start/stop ranges need not nest with the API calls, so sharing a row would mis-nest them.
/// xprof's trace viewer keys rows by the line id truncated to 32 bits (seen with xprof 2.24.2:
/// a line `tid + 2^32`, as XLA uses for NVTX, lands in the same row as `tid`), so the bit must
/// lie below 2^31; Linux thread ids stay below 2^22, and a positive 32-bit id is never in
/// xprof's derived-line range (negative as int32).
pub const MARKER_LINE_BIT: i64 = 1 << 30;
/// Set on the line ids of start/stop ranges (push/pop ranges and marks have it clear).
pub const RANGE_LINE_BIT: i64 = 1 << 29;
/// Lane `k` of a group is `k << LANE_SHIFT` in the line id: Linux thread ids stay below 2^22.
const LANE_SHIFT: u32 = 22;
/// Lanes beyond this share the last one (seven bits, 22..=28, lie below `RANGE_LINE_BIT`).
const MAX_LANE: usize = 127;

/// Stats of a roctx range event itself: its own scope id (push/pop), so ids in the scope tree
/// and on kernels can be mapped to labels, and a mark when the range never closed.
// Inline (as `RoctxLines::new` and `add`): asked for by the host plane's walk over every
// event, which is in another module, and so perhaps in another codegen unit.
#[inline]
pub fn range_stats(
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
    scope_id: i64,
    r: &RangeInfo,
    stats: &mut StatBytes,
) {
    if scope_id != 0 {
        stats.i64(ids.hot(plane, Hot::ScopeRangeId), scope_id);
    }
    if r.open_at_end {
        stats.open_at_end(ids.get(plane, s::OPEN_AT_END));
    }
}

struct Pending {
    span: (u64, u64),
    metadata_id: i64,
    offset_ps: i64,
    duration_ps: i64,
    /// Where its stats lie in `Group::Held::stats`.
    stats: std::ops::Range<usize>,
    /// They hold `open_at_end` (`StatBytes::holds_open_at_end`).
    open_at_end: bool,
}

/// The roctx lines of one host thread: push/pop ranges and marks on `Host Threads/<tid>/ROCTX`,
/// start/stop ranges on `Host Threads/<tid>/ROCTX ranges`, each group spread over extra lanes
/// (` #1`, ` #2`, …) only where its events would otherwise partially overlap.
pub struct RoctxLines {
    tid: u64,
    display: Option<String>,
    /// Every line's `timestamp_ns` (the plane's).
    line_ts_ns: i64,
    /// Whether the lines note where their events lie (`LineBuilder::noting_places`).
    placed: bool,
    /// Push/pop ranges and marks, then start/stop ranges (`process_wide`).
    groups: [Group; 2],
}

/// One group's events. A group whose spans come in the order lanes are dealt in (by start,
/// the longest first: a thread's sorted host events, the usual case) is dealt as it comes,
/// each event encoded straight into its lane's line; otherwise its events are held until
/// `finish` and dealt in that order there. Both give the same lines: a lane's events in the
/// order they came. Dealt as they come, the usual group is never held whole, split, or sorted.
enum Group {
    Dealing {
        lanes: Lanes,
        lines: Vec<LineBuilder>,
        /// Events the group holds: lane 0's line is sized for them all (most stay there).
        expected: usize,
    },
    Held {
        events: Vec<Pending>,
        /// The events' stats, one after the other (not a buffer per event: an allocation per
        /// range).
        stats: Vec<u8>,
    },
}

/// What `RoctxLines` must know of a thread's roctx events before the first is added: how many
/// each group holds, and whether it holds them in the order lanes are dealt in. Told each
/// event's `(process_wide, span)` (what `RoctxLines::add` takes) in the order they will be
/// added.
#[derive(Debug, Clone)]
pub struct RoctxShape {
    /// Each group's last key told (at first the least key there is).
    last: [LaneKey; 2],
    in_order: [bool; 2],
    counts: [usize; 2],
}

impl Default for RoctxShape {
    fn default() -> Self {
        let least = (0, std::cmp::Reverse(u64::MAX));
        RoctxShape {
            last: [least; 2],
            in_order: [true; 2],
            counts: [0; 2],
        }
    }
}

impl RoctxShape {
    // Inline: told by the host plane's walk over every event, in another module.
    #[inline]
    pub fn add(&mut self, process_wide: bool, span: (u64, u64)) {
        let g = usize::from(process_wide);
        let key = lane_key(span);
        self.in_order[g] &= self.last[g] <= key;
        self.last[g] = key;
        self.counts[g] += 1;
    }

    /// How many events were told.
    pub fn len(&self) -> usize {
        self.counts[0] + self.counts[1]
    }
}

impl RoctxLines {
    /// `shape`: the thread's roctx events as they will be added, to tell which groups can be
    /// dealt as they come.
    #[inline]
    pub fn new(tid: u64, display: Option<String>, line_ts_ns: i64, shape: &RoctxShape) -> Self {
        let RoctxShape {
            in_order, counts, ..
        } = *shape;
        let group = |g: usize| {
            if in_order[g] {
                Group::Dealing {
                    lanes: Lanes::default(),
                    lines: Vec::new(),
                    expected: counts[g],
                }
            } else {
                Group::Held {
                    events: Vec::with_capacity(counts[g]),
                    stats: Vec::new(),
                }
            }
        };
        RoctxLines {
            tid,
            display,
            line_ts_ns,
            placed: true,
            groups: [group(0), group(1)],
        }
    }

    /// Whether the lines note where their events lie (`LineBuilder::noting_places`).
    pub fn noting_places(mut self, noting: bool) -> Self {
        self.placed = noting;
        self
    }

    #[inline]
    pub fn add(
        &mut self,
        process_wide: bool,
        span: (u64, u64),
        metadata_id: i64,
        offset_ps: i64,
        duration_ps: i64,
        stats: &StatBytes,
    ) {
        match &mut self.groups[usize::from(process_wide)] {
            Group::Dealing {
                lanes,
                lines,
                expected,
            } => {
                let k = lanes.deal(span).min(MAX_LANE);
                if k == lines.len() {
                    let mut line = roctx_line(
                        self.tid,
                        self.display.as_deref(),
                        self.line_ts_ns,
                        self.placed,
                        process_wide,
                        k,
                    );
                    if k == 0 {
                        line.expect_events(*expected);
                    }
                    lines.push(line);
                }
                lines[k].add_event(metadata_id, offset_ps, duration_ps, stats);
            }
            Group::Held {
                events,
                stats: held,
            } => {
                let start = held.len();
                held.extend_from_slice(stats.as_bytes());
                events.push(Pending {
                    span,
                    metadata_id,
                    offset_ps,
                    duration_ps,
                    stats: start..held.len(),
                    open_at_end: stats.holds_open_at_end(),
                });
            }
        }
    }

    pub fn finish(self) -> Vec<FinishedLine> {
        let mut out = Vec::new();
        for (process_wide, group) in [false, true].into_iter().zip(self.groups) {
            let lines = match group {
                Group::Dealing { lines, .. } => lines,
                Group::Held { events, stats } => held_lines(
                    self.tid,
                    self.display.as_deref(),
                    self.line_ts_ns,
                    self.placed,
                    process_wide,
                    events,
                    &stats,
                ),
            };
            out.extend(lines.into_iter().map(LineBuilder::finish));
        }
        out
    }
}

/// A held group's lines: its events dealt in lane order (`nesting_lanes`), each added to its
/// lane's line in the order it came.
fn held_lines(
    tid: u64,
    display: Option<&str>,
    line_ts_ns: i64,
    placed: bool,
    process_wide: bool,
    group: Vec<Pending>,
    stats: &[u8],
) -> Vec<LineBuilder> {
    if group.is_empty() {
        return Vec::new();
    }
    let spans: Vec<(u64, u64)> = group.iter().map(|e| e.span).collect();
    let lane_of = nesting_lanes(&spans);
    drop(spans);
    // Each lane's line is sized once for its events (a thread's line of ranges is as long as
    // its calls), not grown by doubling.
    let lanes = lane_of.iter().max().map_or(0, |m| m + 1).min(MAX_LANE + 1);
    let mut counts = vec![0; lanes];
    for &k in &lane_of {
        counts[k.min(MAX_LANE)] += 1;
    }
    let mut lines: Vec<LineBuilder> = counts
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let mut line = roctx_line(tid, display, line_ts_ns, placed, process_wide, k);
            line.expect_events(n);
            line
        })
        .collect();
    for (e, k) in group.into_iter().zip(lane_of) {
        lines[k.min(MAX_LANE)].add_event_bytes(
            e.metadata_id,
            e.offset_ps,
            e.duration_ps,
            &stats[e.stats],
            e.open_at_end,
        );
    }
    lines
}

fn roctx_line(
    tid: u64,
    display: Option<&str>,
    line_ts_ns: i64,
    placed: bool,
    process_wide: bool,
    lane: usize,
) -> LineBuilder {
    let kind = if process_wide {
        "ROCTX ranges"
    } else {
        "ROCTX"
    };
    let suffix = if lane == 0 {
        String::new()
    } else {
        format!(" #{lane}")
    };
    let id = tid as i64
        | MARKER_LINE_BIT
        | if process_wide { RANGE_LINE_BIT } else { 0 }
        | ((lane as i64) << LANE_SHIFT);
    let mut l = LineBuilder::new(id, format!("Host Threads/{tid}/{kind}{suffix}"), line_ts_ns)
        .noting_places(placed);
    if let Some(d) = display {
        l.set_display_name(format!("{d}/{kind}{suffix}"));
    }
    l
}

/// The order spans are dealt onto lanes in: by start, the longest first (a span's end is never
/// before its start: clocks that disagree by a few ns make a zero-length span).
type LaneKey = (u64, std::cmp::Reverse<u64>);

fn lane_key((start, end): (u64, u64)) -> LaneKey {
    (start, std::cmp::Reverse(end.max(start)))
}

/// Per lane, the ends of the spans still open at the current start, innermost last.
#[derive(Default)]
struct Lanes(Vec<Vec<u64>>);

impl Lanes {
    /// The first lane where `span` nests, opened on it; spans must come in [`LaneKey`] order.
    // Always: asked for by every roctx span, mostly answered by lane 0 in a compare or two.
    #[inline(always)]
    fn deal(&mut self, span: (u64, u64)) -> usize {
        let (start, end) = (span.0, span.1.max(span.0));
        let mut chosen = None;
        for (k, open) in self.0.iter_mut().enumerate() {
            while open.last().is_some_and(|&e| e <= start) {
                open.pop();
            }
            if open.last().is_none_or(|&outer| end <= outer) {
                chosen = Some(k);
                break;
            }
        }
        let k = chosen.unwrap_or_else(|| {
            self.0.push(Vec::new());
            self.0.len() - 1
        });
        self.0[k].push(end);
        k
    }
}

/// The lane of each span `(start, end)`, in input order; lane 0 holds the most. Spans that merely
/// touch (`end == start`) nest, as in `tests/support/xspace.rs::partial_overlaps`.
pub fn nesting_lanes(spans: &[(u64, u64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (lane_key(spans[i]), i));
    let mut lanes = Lanes::default();
    let mut lane_of = vec![0; spans.len()];
    for i in order {
        lane_of[i] = lanes.deal(spans[i]);
    }
    lane_of
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of `spans` as `RoctxLines` makes them, each event's stat naming its span and
    /// its metadata id its position among equal spans, so lines that differ in anything
    /// differ in bytes.
    fn lines_of(spans: &[(bool, (u64, u64))]) -> Vec<Vec<u8>> {
        let mut shape = RoctxShape::default();
        for &(process_wide, span) in spans {
            shape.add(process_wide, span);
        }
        let mut lines = RoctxLines::new(7, Some("worker".into()), 0, &shape);
        for (i, &(process_wide, span)) in spans.iter().enumerate() {
            let mut stats = StatBytes::new();
            stats.i64(1, (span.0 * 1000 + span.1) as i64);
            let dur = span.1.saturating_sub(span.0) as i64;
            let twin = spans[..i].iter().filter(|s| s.1 == span).count() as i64;
            lines.add(process_wide, span, 1 + twin, span.0 as i64, dur, &stats);
        }
        lines
            .finish()
            .iter()
            .map(|l| {
                let mut out = Vec::new();
                l.encode_into(&mut out);
                out
            })
            .collect()
    }

    /// A group whose spans come in lane order is dealt as they come; the same spans with one
    /// moved out of order are held and dealt at the end. Both must give the lines a held
    /// group gives for the spans in that order: the same lanes, each with its events in the
    /// order they came.
    #[test]
    fn a_group_dealt_as_it_comes_gives_the_lines_of_one_held_to_the_end() {
        // Nested, touching, zero-length, a span whose end is before its start (clamped),
        // equal spans, partial overlaps that need lanes 1 and 2; both groups interleaved.
        let mut spans = vec![
            (false, (0, 100)),
            (true, (5, 50)),
            (false, (10, 20)),
            (true, (6, 60)),
            (false, (20, 30)),
            (false, (25, 25)),
            (true, (7, 70)),
            (false, (40, 38)),
            (false, (50, 150)),
            (false, (50, 150)),
            (false, (60, 70)),
            (true, (55, 65)),
            (false, (120, 200)),
            (false, (140, 160)),
        ];
        let in_order = |spans: &[(bool, (u64, u64))], group: bool| {
            let keys = spans.iter().filter(|s| s.0 == group).map(|s| lane_key(s.1));
            keys.is_sorted()
        };
        assert!(in_order(&spans, false) && in_order(&spans, true));
        let dealt = lines_of(&spans);
        assert!(
            dealt.len() >= 5,
            "lanes were needed in both groups: {} lines",
            dealt.len()
        );
        // What holding gives for the same order: each group's lines from `held_lines`.
        let held = |process_wide: bool| {
            let mut stats = Vec::new();
            let mut events = Vec::new();
            for (i, &(p, span)) in spans.iter().enumerate() {
                if p != process_wide {
                    continue;
                }
                let mut b = StatBytes::new();
                b.i64(1, (span.0 * 1000 + span.1) as i64);
                let start = stats.len();
                stats.extend_from_slice(b.as_bytes());
                let twin = spans[..i].iter().filter(|s| s.1 == span).count() as i64;
                events.push(Pending {
                    span,
                    metadata_id: 1 + twin,
                    offset_ps: span.0 as i64,
                    duration_ps: span.1.saturating_sub(span.0) as i64,
                    stats: start..stats.len(),
                    open_at_end: false,
                });
            }
            held_lines(7, Some("worker"), 0, true, process_wide, events, &stats)
        };
        let expected: Vec<Vec<u8>> = held(false)
            .into_iter()
            .chain(held(true))
            .map(|l| {
                let mut out = Vec::new();
                l.finish().encode_into(&mut out);
                out
            })
            .collect();
        assert_eq!(dealt, expected);

        // Out of order: the outer span after one it holds. Dealt as they came, the inner one
        // would take lane 0 and push the outer to a lane of its own; held to the end, they
        // are dealt by span, and the lines are the ones above.
        spans.swap(0, 2);
        assert!(!in_order(&spans, false));
        assert_eq!(lines_of(&spans), dealt);
    }

    #[test]
    fn nested_spans_share_a_lane_and_partial_overlaps_do_not() {
        // outer [0,100) holds a [10,20) and b [20,30) (touching); c [50,150) overlaps outer;
        // d [60,70) nests in both; e [140,160) overlaps c; mark at 100 touches outer's end.
        let spans = [
            (0, 100),
            (10, 20),
            (20, 30),
            (50, 150),
            (60, 70),
            (140, 160),
            (100, 100),
        ];
        assert_eq!(nesting_lanes(&spans), vec![0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(nesting_lanes(&[(5, 10), (0, 7), (6, 20)]), vec![1, 0, 2]);
        assert!(nesting_lanes(&[]).is_empty());
        // Input already in order deals as the same spans out of order do; equal spans keep
        // their input order.
        let mut sorted = spans.to_vec();
        sorted.sort_by_key(|&(s, e)| (s, std::cmp::Reverse(e)));
        let lanes = nesting_lanes(&sorted);
        for (i, span) in spans.iter().enumerate() {
            let at = sorted.iter().position(|s| s == span).unwrap();
            assert_eq!(lanes[at], nesting_lanes(&spans)[i], "{span:?}");
        }
        assert_eq!(nesting_lanes(&[(0, 9), (0, 9), (0, 9)]), vec![0, 0, 0]);
        assert_eq!(nesting_lanes(&[(0, 9), (1, 10), (1, 10)]), vec![0, 1, 1]);
    }
}
