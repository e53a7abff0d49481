//! Graph node identity: which node of which executable graph a dispatch or copy was, as the
//! tool encodes it in the external correlation id it hands the runtime (`capture::graph` in the
//! tool numbers the nodes; the join reads them back with [`split`]).
//!
//! The tagged word (bit 63) is never mistaken for an id the application pushed.

use std::num::NonZeroU64;

/// Marks an external correlation id as ours: exec id above, node ordinal below.
pub const TAG: u64 = 1 << 63;
const NODE_BITS: u32 = 24;
pub const NODE_MASK: u64 = (1 << NODE_BITS) - 1;
/// Exec ids are process-monotonic small numbers; larger ones are not encoded.
pub const MAX_EXEC_ID: u64 = (1 << (63 - NODE_BITS)) - 1;

/// Which node of which executable graph a dispatch or copy was: the runtime's
/// `rocprofiler_graph_exec_id_t` (one per `hipGraphInstantiate`) and the operation's zero-based
/// position within its launch.
///
/// Kept as the tagged word the runtime handed back (never zero), so an `Option<GraphNode>` in
/// every joined device event is 8 bytes, not the 24 of the two ids apart.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GraphNode(NonZeroU64);

impl GraphNode {
    /// `None` when the ids do not fit the tagged word (exec id above 2^39 − 1, node above
    /// 2^24 − 1): such work is not numbered, as `next_external` does not number it.
    pub fn new(exec_id: u64, node: u32) -> Option<Self> {
        let node = u64::from(node);
        (exec_id <= MAX_EXEC_ID && node <= NODE_MASK)
            .then(|| Self::from_tagged(TAG | (exec_id << NODE_BITS) | node))
    }

    pub fn from_tagged(word: u64) -> Self {
        GraphNode(tagged(word))
    }

    /// The tagged word itself: the external correlation id handed to the runtime.
    pub fn tagged_word(self) -> u64 {
        self.0.get()
    }

    pub fn exec_id(self) -> u64 {
        (self.0.get() & !TAG) >> NODE_BITS
    }

    pub fn node(self) -> u32 {
        (self.0.get() & NODE_MASK) as u32
    }

    /// The executable graph this node belongs to.
    pub fn exec(self) -> GraphExec {
        GraphExec(tagged(self.0.get() & !NODE_MASK))
    }
}

/// An executable graph, as its launches' host events carry it: the tagged word of its node 0,
/// so that an `Option` of it is 8 bytes in every host event (16 with the id apart).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GraphExec(NonZeroU64);

impl GraphExec {
    pub fn id(self) -> u64 {
        GraphNode(self.0).exec_id()
    }
}

/// `word` with our tag bit set: never zero.
fn tagged(word: u64) -> NonZeroU64 {
    NonZeroU64::new(word | TAG).unwrap_or(NonZeroU64::MIN)
}

impl std::fmt::Debug for GraphExec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GraphExec({})", self.id())
    }
}

impl std::fmt::Debug for GraphNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphNode")
            .field("exec_id", &self.exec_id())
            .field("node", &self.node())
            .finish()
    }
}

/// Splits a record's external correlation id into the graph node it names (ours) and the
/// application's external id (0 when it was ours).
pub fn split(external: u64) -> (Option<GraphNode>, u64) {
    if external & TAG == 0 {
        return (None, external);
    }
    (Some(GraphNode::from_tagged(external)), 0)
}
