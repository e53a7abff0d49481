//! The counters stages: each dispatch's hardware-counter values, its counters' instances summed
//! and the derived metrics added on the architecture of the GPU that ran it (`model::pmc`),
//! which the kernel events find by dispatch id when they are written; and the device counters
//! per interval between reads (`model::device_counters`).

use crate::facts::DeviceSample;
use crate::facts::{AgentInfo, CounterValue};
use crate::fastmap::HashMap;
use crate::model::device_counters::{intervals, DeviceInterval};
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

/// The device counters per interval, every GPU; reads lower than the one before (the counters
/// restarted) are said in `warnings`.
pub(super) fn device_counters(
    samples: &[DeviceSample],
    warnings: &mut Vec<String>,
) -> Vec<DeviceInterval> {
    let d = intervals(samples);
    if d.restarts > 0 {
        warnings.push(format!(
            "{} device counter reads were lower than the read before (the counters restarted): no interval ends at them",
            d.restarts
        ));
    }
    d.intervals
}
