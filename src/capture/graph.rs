//! HIP graph node attribution (SDK 1.3.0+, `HIP_GRAPH` callbacks).
//!
//! The runtime reports no node ids: every dispatch of a `hipGraphLaunch` shares the launch's
//! correlation id, and the records of one launch may arrive in any order. The SDK's documented
//! recipe: keep a per-thread stack of (exec id, node counter), pushed at
//! EXEC_LAUNCH ENTER and popped at EXIT; the runtime asks for an external correlation id for
//! each dispatch or copy it creates, in node order, on the launching thread, in between; answer
//! with the exec id and the counter, and read them back from the record's external id.
//!
//! Every request is counted by the call it is for ([`note_request_on`]), so a graph launch's
//! EXIT knows how many dispatches and copies it made, with or without `HIP_GRAPH`
//! ([`launched_on`]): the hand-off between windows holds a launch until all of them came.
//!
//! Our answer is tagged (bit 63) so it is never mistaken for an id the application pushed;
//! inside a graph launch it replaces such an id on the dispatch records, but the launch's own
//! API record keeps it and the join gives it back to them. Exact only as the SDK states:
//! segmented scheduling, direct dispatch, one launching thread per executable graph.

use super::local;

pub use crate::model::events::GraphLaunchFact;
pub use crate::model::graph::{split, GraphExec, GraphNode};
#[cfg(test)]
use crate::model::graph::{MAX_EXEC_ID, NODE_MASK};

/// EXEC_LAUNCH ENTER / EXIT of a launch of `exec_id` on this thread.
pub fn on_launch(enter: bool, exec_id: u64) {
    // Graph launches under way on this thread (nested only if the runtime nests them).
    local::with(|l| {
        let mut launches = l.launches.borrow_mut();
        if enter {
            launches.push((exec_id, 0));
        } else if launches.last().is_some_and(|(e, _)| *e == exec_id) {
            launches.pop();
        }
        l.launching.set(!launches.is_empty());
    });
}

/// The external id to give the next dispatch or copy the runtime creates on this thread:
/// `Some` inside a graph launch (the node counter advances), `None` outside one.
pub fn next_external() -> Option<u64> {
    local::with(next_external_on)
}

/// One external-id request of call `correlation_id` on this thread (slot `l`), counted: a
/// graph launch's requests come on its thread while it runs, one per dispatch or copy, so at
/// its EXIT the count is how many it made ([`launched_on`]). Loads, compares and stores: the
/// request's unguarded path runs it.
#[inline(always)]
pub(crate) fn note_request_on(l: &local::Local, correlation_id: u64) {
    let (call, n) = l.requests.get();
    l.requests.set(if call == correlation_id {
        (call, n.saturating_add(1))
    } else {
        (correlation_id, 1)
    });
}

/// At the EXIT of graph launch `correlation_id` on this thread (slot `l`): how many dispatches
/// and copies it made, the requests counted since its first. `None` when none came on this
/// thread (the runtime created its work elsewhere): the hand-off then goes by its stream.
pub(crate) fn launched_on(l: &local::Local, correlation_id: u64) -> Option<GraphLaunchFact> {
    let (call, n) = l.requests.get();
    (call == correlation_id && correlation_id != 0).then_some(GraphLaunchFact {
        correlation_id,
        activities: n,
    })
}

/// Whether no graph launch is under way on this thread (then [`next_external_on`] is `None`).
/// One load, no borrow, no panic: [`on_launch`] keeps the flag equal to the stack's being
/// non-empty.
#[inline(always)]
pub(crate) fn no_launch_on(l: &local::Local) -> bool {
    !l.launching.get()
}

/// [`next_external`], given this thread's slot.
#[inline]
pub(crate) fn next_external_on(l: &local::Local) -> Option<u64> {
    let mut l = l.launches.borrow_mut();
    let (exec_id, next) = l.last_mut()?;
    let node = u32::try_from(*next).ok();
    *next += 1;
    Some(GraphNode::new(*exec_id, node?)?.tagged_word())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_numbered_in_request_order_per_launch() {
        assert_eq!(next_external(), None, "outside a launch: no id of ours");
        on_launch(true, 7);
        let ids: Vec<_> = (0..3).map(|_| split(next_external().unwrap())).collect();
        on_launch(false, 7);
        assert_eq!(next_external(), None);
        for (i, (g, ext)) in ids.iter().enumerate() {
            assert_eq!(*g, GraphNode::new(7, i as u32));
            assert_eq!(g.map(|g| (g.exec_id(), g.node())), Some((7, i as u32)));
            assert_eq!(*ext, 0);
        }
        // A second launch of the same graph starts again at node 0.
        on_launch(true, 7);
        assert_eq!(split(next_external().unwrap()).0.unwrap().node(), 0);
        on_launch(false, 7);
    }

    #[test]
    fn the_launch_flag_follows_the_stack() {
        let idle = || local::with(no_launch_on);
        assert!(idle());
        on_launch(true, 3);
        on_launch(true, 4);
        assert!(!idle(), "inside a launch");
        on_launch(false, 9);
        assert!(!idle(), "an EXIT of another graph pops nothing");
        on_launch(false, 4);
        assert!(!idle(), "the outer launch is still under way");
        on_launch(false, 3);
        assert!(idle());
        assert_eq!(next_external(), None);
    }

    #[test]
    fn application_ids_pass_through_and_huge_exec_ids_are_not_encoded() {
        assert_eq!(split(1001), (None, 1001));
        on_launch(true, MAX_EXEC_ID + 1);
        assert_eq!(next_external(), None);
        on_launch(false, MAX_EXEC_ID + 1);
        assert_eq!(GraphNode::new(MAX_EXEC_ID + 1, 0), None);
        assert_eq!(GraphNode::new(0, NODE_MASK as u32 + 1), None);
        let g = GraphNode::new(MAX_EXEC_ID, NODE_MASK as u32).unwrap();
        assert_eq!((g.exec_id(), g.node()), (MAX_EXEC_ID, NODE_MASK as u32));
        let g = GraphNode::new(0, 0).unwrap();
        assert_eq!((g.exec_id(), g.node()), (0, 0));
        assert_eq!(g.exec().id(), 0);
        let g = GraphNode::new(12345, 77).unwrap();
        assert_eq!(
            (g.exec().id(), g.exec()),
            (12345, GraphNode::new(12345, 0).unwrap().exec())
        );
        assert_eq!(std::mem::size_of::<Option<GraphNode>>(), 8);
        assert_eq!(std::mem::size_of::<Option<GraphExec>>(), 8);
    }
}
