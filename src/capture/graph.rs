//! HIP graph node attribution (SDK 1.3.0+, `HIP_GRAPH` callbacks).
//!
//! The runtime reports no node ids: every dispatch of a `hipGraphLaunch` shares the launch's
//! correlation id, and the records of one launch may arrive in any order. The SDK's recipe
//! (reference "newer" §4): keep a per-thread stack of (exec id, node counter), pushed at
//! EXEC_LAUNCH ENTER and popped at EXIT; the runtime asks for an external correlation id for
//! each dispatch or copy it creates, in node order, on the launching thread, in between; answer
//! with the exec id and the counter, and read them back from the record's external id.
//!
//! Our answer is tagged (bit 63) so it is never mistaken for an id the application pushed;
//! inside a graph launch it replaces such an id on the dispatch records, but the launch's own
//! API record keeps it and the join gives it back to them. Exact only as the SDK states:
//! segmented scheduling, direct dispatch, one launching thread per executable graph.

use std::cell::RefCell;

use smallvec::SmallVec;

/// Marks an external correlation id as ours: exec id above, node ordinal below.
const TAG: u64 = 1 << 63;
const NODE_BITS: u32 = 24;
const NODE_MASK: u64 = (1 << NODE_BITS) - 1;
/// Exec ids are process-monotonic small numbers; larger ones are not encoded.
const MAX_EXEC_ID: u64 = (1 << (63 - NODE_BITS)) - 1;

/// Which node of which executable graph a dispatch or copy was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GraphNode {
    /// The runtime's `rocprofiler_graph_exec_id_t` (one per `hipGraphInstantiate`).
    pub exec_id: u64,
    /// Zero-based position of the operation within its launch.
    pub node: u32,
}

thread_local! {
    /// Graph launches under way on this thread (nested only if the runtime nests them).
    static LAUNCHES: RefCell<SmallVec<[(u64, u64); 2]>> = const { RefCell::new(SmallVec::new_const()) };
}

/// EXEC_LAUNCH ENTER / EXIT of a launch of `exec_id` on this thread.
pub fn on_launch(enter: bool, exec_id: u64) {
    let _ = LAUNCHES.try_with(|l| {
        let mut l = l.borrow_mut();
        if enter {
            l.push((exec_id, 0));
        } else if l.last().is_some_and(|(e, _)| *e == exec_id) {
            l.pop();
        }
    });
}

/// The external id to give the next dispatch or copy the runtime creates on this thread:
/// `Some` inside a graph launch (the node counter advances), `None` outside one.
pub fn next_external() -> Option<u64> {
    LAUNCHES
        .try_with(|l| {
            let mut l = l.borrow_mut();
            let (exec_id, next) = l.last_mut()?;
            let node = *next;
            *next += 1;
            (*exec_id <= MAX_EXEC_ID && node <= NODE_MASK)
                .then_some(TAG | (*exec_id << NODE_BITS) | node)
        })
        .ok()
        .flatten()
}

/// Splits a record's external correlation id into the graph node it names (ours) and the
/// application's external id (0 when it was ours).
pub fn split(external: u64) -> (Option<GraphNode>, u64) {
    if external & TAG == 0 {
        return (None, external);
    }
    let node = GraphNode {
        exec_id: (external & !TAG) >> NODE_BITS,
        node: (external & NODE_MASK) as u32,
    };
    (Some(node), 0)
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
            assert_eq!(
                *g,
                Some(GraphNode {
                    exec_id: 7,
                    node: i as u32
                })
            );
            assert_eq!(*ext, 0);
        }
        // A second launch of the same graph starts again at node 0.
        on_launch(true, 7);
        assert_eq!(split(next_external().unwrap()).0.unwrap().node, 0);
        on_launch(false, 7);
    }

    #[test]
    fn application_ids_pass_through_and_huge_exec_ids_are_not_encoded() {
        assert_eq!(split(1001), (None, 1001));
        on_launch(true, MAX_EXEC_ID + 1);
        assert_eq!(next_external(), None);
        on_launch(false, MAX_EXEC_ID + 1);
    }
}
