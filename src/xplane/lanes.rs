//! Splitting a thread's roctx events over as few lines as keep every line nested.
//!
//! xprof's trace viewer draws a line as a stack of nested slices, so two events of one line that
//! partially overlap (one starts inside the other and ends after it) are mis-drawn. Push/pop
//! ranges and marks of one thread nest by construction; start/stop ranges need not nest with
//! each other or with anything, and clocks of buffered and callback timestamps may disagree by a
//! few ns. Each group is therefore dealt onto lanes: a span goes to the first lane where it nests.

use super::builder::{FinishedLine, LineBuilder, PlaneBuilder, StatBytes, StatIds};
use super::space::MARKER_LINE_BIT;
use super::stats as s;
use crate::model::RangeInfo;

/// Set on the line ids of start/stop ranges (push/pop ranges and marks have it clear).
pub const RANGE_LINE_BIT: i64 = 1 << 29;
/// Lane `k` of a group is `k << LANE_SHIFT` in the line id: Linux thread ids stay below 2^22.
const LANE_SHIFT: u32 = 22;
/// Lanes beyond this share the last one (seven bits, 22..=28, lie below `RANGE_LINE_BIT`).
const MAX_LANE: usize = 127;

/// Stats of a roctx range event itself: its own scope id (push/pop), so ids in the scope tree
/// and on kernels can be mapped to labels, and a mark when the range never closed.
pub fn range_stats(
    plane: &mut PlaneBuilder,
    ids: &mut StatIds,
    scope_id: i64,
    r: &RangeInfo,
    stats: &mut StatBytes,
) {
    if scope_id != 0 {
        stats.i64(ids.get(plane, s::SCOPE_RANGE_ID), scope_id);
    }
    if r.open_at_end {
        stats.i64(ids.get(plane, s::OPEN_AT_END), 1);
    }
}

struct Pending {
    process_wide: bool,
    span: (u64, u64),
    metadata_id: i64,
    offset_ps: i64,
    duration_ps: i64,
    /// Where its stats lie in `RoctxLines::stats`.
    stats: std::ops::Range<usize>,
}

/// The roctx lines of one host thread: push/pop ranges and marks on `Host Threads/<tid>/ROCTX`,
/// start/stop ranges on `Host Threads/<tid>/ROCTX ranges`, each group spread over extra lanes
/// (` #1`, ` #2`, …) only where its events would otherwise partially overlap.
pub struct RoctxLines {
    tid: u64,
    display: Option<String>,
    events: Vec<Pending>,
    /// The events' stats, one after the other (a buffer per event was an allocation per
    /// range).
    stats: Vec<u8>,
}

impl RoctxLines {
    pub fn new(tid: u64, display: Option<String>) -> Self {
        RoctxLines {
            tid,
            display,
            events: Vec::new(),
            stats: Vec::new(),
        }
    }

    pub fn add(
        &mut self,
        process_wide: bool,
        span: (u64, u64),
        metadata_id: i64,
        offset_ps: i64,
        duration_ps: i64,
        stats: &StatBytes,
    ) {
        let start = self.stats.len();
        self.stats.extend_from_slice(stats.as_bytes());
        self.events.push(Pending {
            process_wide,
            span,
            metadata_id,
            offset_ps,
            duration_ps,
            stats: start..self.stats.len(),
        });
    }

    pub fn finish(self) -> Vec<FinishedLine> {
        let mut out = Vec::new();
        let (stack, process): (Vec<Pending>, Vec<Pending>) =
            self.events.into_iter().partition(|e| !e.process_wide);
        for (process_wide, group) in [(false, stack), (true, process)] {
            if group.is_empty() {
                continue;
            }
            let spans: Vec<(u64, u64)> = group.iter().map(|e| e.span).collect();
            let lane_of = nesting_lanes(&spans);
            drop(spans);
            // Each lane's line is sized once for its events (a thread's line of ranges is as
            // long as its calls), not grown by doubling.
            let lanes = lane_of.iter().max().map_or(0, |m| m + 1).min(MAX_LANE + 1);
            let mut counts = vec![0; lanes];
            for &k in &lane_of {
                counts[k.min(MAX_LANE)] += 1;
            }
            let mut lines: Vec<LineBuilder> = counts
                .iter()
                .enumerate()
                .map(|(k, &n)| {
                    let mut line = roctx_line(self.tid, self.display.as_deref(), process_wide, k);
                    line.expect_events(n);
                    line
                })
                .collect();
            for (e, k) in group.into_iter().zip(lane_of) {
                lines[k.min(MAX_LANE)].add_event_bytes(
                    e.metadata_id,
                    e.offset_ps,
                    e.duration_ps,
                    &self.stats[e.stats],
                );
            }
            out.extend(lines.into_iter().map(LineBuilder::finish));
        }
        out
    }
}

fn roctx_line(tid: u64, display: Option<&str>, process_wide: bool, lane: usize) -> LineBuilder {
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
    let mut l = LineBuilder::new(id, format!("Host Threads/{tid}/{kind}{suffix}"), 0);
    if let Some(d) = display {
        l.set_display_name(format!("{d}/{kind}{suffix}"));
    }
    l
}

/// The lane of each span `(start, end)`, in input order; lane 0 holds the most. Spans that merely
/// touch (`end == start`) nest, as in `tests/support/xspace.rs::partial_overlaps`.
pub fn nesting_lanes(spans: &[(u64, u64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (spans[i].0, std::cmp::Reverse(spans[i].1), i));
    // Per lane, the ends of the events still open at the current start, innermost last.
    let mut lanes: Vec<Vec<u64>> = Vec::new();
    let mut lane_of = vec![0; spans.len()];
    for i in order {
        let (start, end) = (spans[i].0, spans[i].1.max(spans[i].0));
        let mut chosen = None;
        for (k, open) in lanes.iter_mut().enumerate() {
            while open.last().is_some_and(|&e| e <= start) {
                open.pop();
            }
            if open.last().is_none_or(|&outer| end <= outer) {
                chosen = Some(k);
                break;
            }
        }
        let k = chosen.unwrap_or_else(|| {
            lanes.push(Vec::new());
            lanes.len() - 1
        });
        lanes[k].push(end);
        lane_of[i] = k;
    }
    lane_of
}

#[cfg(test)]
mod tests {
    use super::*;

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
