//! The stream lines stage: each plane's events become its lines, one per HIP stream (split
//! where a stream overlaps itself; `model::streams`), numbered as the run's earlier windows
//! numbered them. Streams the sync calls name get numbers too, without device work of their
//! own.

use crate::facts::{Counters, SyncFact};
use crate::model::streams::{self, stream_key, StreamIndex, StreamKey as LineKey, StreamNumbers};
use crate::model::trace::DeviceEvent;
use crate::util::threads::side_by_side;
use std::collections::BTreeMap;

use super::devices::Places;

/// The stream lines stage (see the module's comment): `lines`' events onto `places`' devices;
/// the index of where each stream's line is, for the dependency stage.
pub(super) fn stream_lines<'s>(
    syncs: impl Iterator<Item = &'s SyncFact>,
    places: &mut Places,
    lines: BTreeMap<(u32, LineKey), Vec<DeviceEvent>>,
    threads: usize,
    numbers: &mut StreamNumbers,
    counters: &mut Counters,
) -> StreamIndex {
    // Read as the lines are built, not collected first (32 B per sync call naming a stream).
    let known_streams = syncs.filter(|f| f.kind.names_a_stream()).filter_map(|f| {
        places
            .of_hip(f.device)
            .map(|p| (p, stream_key(f.stream, f.stream_seq), f.correlation_id))
    });
    let (device_lines, stream_index) = streams::build_lines_with(
        lines,
        known_streams,
        &mut counters.stream_overlap_events,
        numbers,
        |tasks| prepare_lines(tasks, threads),
    );
    for (dev, dev_lines) in device_lines {
        places.devices[dev as usize].lines = dev_lines;
    }
    stream_index
}

/// Each stream's line prepared (sorted, split where it overlaps, indexed), the streams shared
/// between this thread and a helper by their events, largest first to the one with fewer: a
/// stream needs nothing of another, and which thread prepared it changes nothing in it.
fn prepare_lines(mut tasks: Vec<streams::LineTask>, threads: usize) -> Vec<streams::PreparedLine> {
    let prepare = |tasks: Vec<streams::LineTask>| -> Vec<streams::PreparedLine> {
        tasks.into_iter().map(streams::prepare_line).collect()
    };
    if threads < 2 || tasks.len() < 2 {
        return prepare(tasks);
    }
    tasks.sort_by_key(|t| std::cmp::Reverse(t.1.len()));
    let (mut here, mut beside) = (Vec::new(), Vec::new());
    let (mut here_events, mut beside_events) = (0usize, 0usize);
    for t in tasks {
        if here_events <= beside_events {
            here_events += t.1.len();
            here.push(t);
        } else {
            beside_events += t.1.len();
            beside.push(t);
        }
    }
    let (mut lines, others) = side_by_side(threads, beside, prepare, || prepare(here));
    lines.extend(others);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::next_random;
    use crate::model::streams::{build_lines, build_lines_with, prepare_line, Near};
    use crate::model::trace::{Anchor, AnchorPlace, DeviceLine};

    /// The lines' keys of the fixture, on each of its three planes.
    const KEYS: [LineKey; 6] = [
        LineKey::Null,
        LineKey::Created(1),
        LineKey::Created(2),
        LineKey::Unknown(0xa0),
        LineKey::Queue(0xb0),
        LineKey::Copies,
    ];

    type Grouped = BTreeMap<(u32, LineKey), Vec<DeviceEvent>>;
    type Known = Vec<(u32, LineKey, u64)>;

    /// Each line of `KEYS` on three planes, its events overlapping (so streams split into
    /// sub-lines) and not quite in time order, as copies after the kernels leave a line; some
    /// neighbours share an id, as a graph launch's dispatches do. Also the streams sync calls
    /// name: most of them, one with no work of its own, and (ignored) a queue. And the
    /// highest correlation id.
    fn overlapping_streams() -> (Grouped, Known, u64) {
        let mut seed = 0x5eed_u64;
        let mut grouped = BTreeMap::new();
        let mut corr = 1u64;
        for plane in 0..3u32 {
            for &key in &KEYS {
                let count = 5 + (next_random(&mut seed) % 40) as usize;
                let mut t = 1_000u64;
                let mut events: Vec<DeviceEvent> = (0..count)
                    .map(|_| {
                        t += next_random(&mut seed) % 50;
                        corr += next_random(&mut seed) % 2;
                        crate::model::streams::tests::ev(corr, t, t + next_random(&mut seed) % 80)
                    })
                    .collect();
                for _ in 0..count / 4 {
                    let (i, j) = (
                        (next_random(&mut seed) % count as u64) as usize,
                        (next_random(&mut seed) % count as u64) as usize,
                    );
                    events.swap(i, j);
                }
                grouped.insert((plane, key), events);
            }
        }
        let known = vec![
            (0, LineKey::Created(3), 5),
            (0, LineKey::Created(1), 2),
            (0, LineKey::Created(2), 9),
            (1, LineKey::Null, 1),
            (1, LineKey::Unknown(0xa0), 3),
            (2, LineKey::Created(2), 4),
            (2, LineKey::Queue(0xb0), 1),
        ];
        (grouped, known, corr)
    }

    /// Every plane's lines as (plane, id, name, events' times and ids), for comparing.
    type Listing = Vec<(u32, i64, String, Vec<(u64, u64, u64)>)>;

    fn listing(lines: &BTreeMap<u32, Vec<DeviceLine>>) -> Listing {
        lines
            .iter()
            .flat_map(|(&p, ls)| {
                ls.iter().map(move |l| {
                    let events: Vec<(u64, u64, u64)> = l
                        .events
                        .iter()
                        .map(|e| (e.start_ns, e.end_ns, e.correlation_id))
                        .collect();
                    (p, l.id, l.name.clone(), events)
                })
            })
            .collect()
    }

    /// Each stream's line is prepared on either thread and in any order, and the lines, the
    /// streams' numbers and the anchors found on them are those of one thread. Streams overlap
    /// themselves, so sub-lines take ids past the streams' numbers: an anchor must name the
    /// line its event is on, checked against the lines themselves (`anchors_are_on_their_lines`).
    #[test]
    fn stream_lines_prepared_on_two_threads_are_those_of_one_thread() {
        let (grouped, known, last_corr) = overlapping_streams();
        let built = |g, prepare: &dyn Fn(Vec<streams::LineTask>) -> Vec<streams::PreparedLine>| {
            let mut split = 0;
            let (lines, index) = build_lines_with(
                g,
                known.clone(),
                &mut split,
                &mut Default::default(),
                prepare,
            );
            (lines, index, split)
        };
        let mut split = 0;
        let (lines, index) = build_lines(grouped.clone(), known.clone(), &mut split);
        assert!(split > 0, "the fixture's streams overlap themselves");
        let two_threads = built(grouped.clone(), &|t| prepare_lines(t, 2));
        let reversed = built(grouped, &|t| {
            t.into_iter().rev().map(prepare_line).collect()
        });
        for (other_lines, other_index, other_split) in [two_threads, reversed] {
            assert_eq!(listing(&other_lines), listing(&lines));
            assert_eq!(other_split, split);
            for p in 0..3u32 {
                for &key in KEYS.iter().chain(&[LineKey::Created(3)]) {
                    assert_eq!(other_index.number(p, key), index.number(p, key));
                    assert_eq!(other_index.line_of(p, key), index.line_of(p, key));
                }
            }
            anchors_are_on_their_lines(&other_lines, &other_index, &known, last_corr);
        }
    }

    /// Anchors, against the lines: the last activity submitted before an id (the one ending
    /// last of a graph launch's), the first after it (the one starting first), on the line
    /// that holds it.
    fn anchors_are_on_their_lines(
        lines: &BTreeMap<u32, Vec<DeviceLine>>,
        index: &StreamIndex,
        known: &Known,
        last_corr: u64,
    ) {
        let lines_of = |p: u32| lines.get(&p).map(Vec::as_slice);
        // One memory of where each stream was searched, asked in rising order here (the
        // dependency stage asks in falling order).
        let mut near = Near::default();
        for &(p, key, _) in known.iter().filter(|k| !matches!(k.1, LineKey::Queue(_))) {
            let Some(n) = index.number(p, key) else {
                panic!("named stream {key:?} has no number");
            };
            let own = format!("Stream #{n}");
            let sub = format!("Stream #{n} (overlap ");
            let events: Vec<(i64, &DeviceEvent)> = lines
                .get(&p)
                .into_iter()
                .flatten()
                .filter(|l| l.name == own || l.name.starts_with(&sub))
                .flat_map(|l| l.events.iter().map(move |e| (l.id, e)))
                .collect();
            let of_id = |m: u64| events.iter().filter(move |(_, e)| e.correlation_id == m);
            for c in 0..=last_corr + 1 {
                let ids = || events.iter().map(|(_, e)| e.correlation_id);
                let before = ids()
                    .filter(|&id| id < c)
                    .max()
                    .and_then(|m| of_id(m).max_by_key(|(_, e)| (e.end_ns, e.start_ns)))
                    .map(|&(line, e)| Anchor::on_device(p, line, e.end_ns));
                let after = ids()
                    .filter(|&id| id > c)
                    .min()
                    .and_then(|m| of_id(m).min_by_key(|(_, e)| (e.start_ns, e.end_ns)))
                    .map(|&(line, e)| Anchor::on_device(p, line, e.start_ns));
                let slot = index.facts(p, key).activities;
                let got_before =
                    slot.and_then(|s| index.last_before(&lines_of, p, s, c, &mut near));
                let got_after = slot.and_then(|s| index.first_after(&lines_of, p, s, c, &mut near));
                // Ties of both times may be on either of two lines: the time is the anchor.
                let time = |a: Option<Anchor>| a.map(|a| a.time_ns);
                assert_eq!(time(got_before), time(before), "{key:?} before {c}");
                assert_eq!(time(got_after), time(after), "{key:?} after {c}");
                // The line named holds an event of that id at that time.
                for (got, at_end) in [(got_before, true), (got_after, false)] {
                    let Some(Anchor {
                        place: AnchorPlace::Device { line, .. },
                        time_ns,
                    }) = got
                    else {
                        continue;
                    };
                    assert!(
                        events.iter().any(|&(l, e)| l == line
                            && time_ns == if at_end { e.end_ns } else { e.start_ns }),
                        "{key:?} at {c}: no event at {time_ns} on line {line}"
                    );
                }
            }
        }
    }
}
