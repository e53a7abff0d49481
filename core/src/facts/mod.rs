//! The facts the tool records, as plain owned values: the runtime's records (`records`), what
//! the capture reads of a call beside them (`calls`), the agents and kernel symbols (`agents`),
//! and the accounting of what was received (`counters`).
//!
//! This is the bottom of the crate: it imports nothing of it. The stores keep these facts
//! (`store`), the HIP table names them (`hip`), the model and the join read them.

pub mod agents;
pub mod calls;
pub mod counters;
pub mod pmc;
pub mod records;

pub use agents::{AgentInfo, AgentType, KernelSymbol};
pub use calls::{
    CallFact, CopyPtrs, GraphLaunchFact, MarkerSpan, MemAction, MemFact, MemKind, StreamCreation,
    SyncFact, SyncKind,
};
pub use counters::Counters;
pub use pmc::{CounterDispatch, CounterSample, CounterValue, DeviceSample};
pub use records::{
    ApiDomain, ApiRecord, CopyDirection, CopyRecord, HipEventOp, HipEventRecord, KernelRecord,
    MarkerRecord,
};
