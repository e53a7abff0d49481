//! The memory timeline through the join, across windows.

use crate::facts::{MemAction, MemFact, MemKind};
use crate::model::memory::tests::fact;
use crate::model::memory::MemoryEvent;

/// The carry hands on what a window leaves allocated, though nothing else of it is
/// incomplete, and the next window's join goes on from it: the two windows' memory
/// timelines are the run's, and the free in the second matches.
#[test]
fn the_carry_hands_on_what_a_window_leaves_allocated() {
    use crate::model::carry::{hand_off, HandedOn, Windows};
    use crate::model::events::Collected;
    use MemAction::*;
    let m = [
        fact(1, Alloc, MemKind::Device, 0x1000, 100),
        fact(2, Alloc, MemKind::Pinned, 0x9000, 50),
        fact(3, Free, MemKind::Device, 0x1000, 0),
    ];
    // Each call returned before its window's cut (its API record is there).
    let window = |memory: &[MemFact]| Collected {
        hostname: "h".into(),
        api: memory
            .iter()
            .map(|f| crate::model::events::ApiRecord {
                domain: crate::model::events::ApiDomain::Hip,
                operation: 1,
                correlation_id: f.correlation_id,
                external_id: 0,
                start_ns: f.time_ns - 5,
                end_ns: f.time_ns,
                thread_id: f.thread_id,
            })
            .collect(),
        memory: memory.to_vec(),
        ..Collected::default()
    };
    let whole = crate::model::join::join(window(&m));
    let mut first = window(&m[..2]);
    let (mut held, _) = hand_off(&mut first, &HandedOn::default(), Windows::Apart)
        .expect("the window leaves memory allocated");
    assert_eq!(held.carried.memory.allocations.len(), 2);
    let first = crate::model::join::join(first);
    held.absorb(window(&m[2..]));
    let next = crate::model::join::join(held);
    let windows: Vec<&MemoryEvent> = first.memory.iter().chain(&next.memory).collect();
    assert_eq!(windows, whole.memory.iter().collect::<Vec<_>>());
    assert_eq!(next.counters.memory_frees_unmatched, 0);
}
