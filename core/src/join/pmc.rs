//! The counters stage: each dispatch's hardware-counter values, its counters' instances summed
//! and the derived metrics added on the architecture of the GPU that ran it (`model::pmc`).
//! The kernel events find them by dispatch id when they are written.

use crate::facts::{AgentInfo, CounterValue};
use crate::fastmap::HashMap;
use crate::model::pmc::{per_dispatch, KernelCounters};

pub(super) fn kernel_counters(
    values: Vec<CounterValue>,
    agents: &[AgentInfo],
) -> HashMap<u64, KernelCounters> {
    if values.is_empty() {
        return HashMap::default();
    }
    per_dispatch(values, |agent| {
        agents
            .iter()
            .find(|a| a.handle == agent)
            .map(|a| a.name.clone())
    })
}
