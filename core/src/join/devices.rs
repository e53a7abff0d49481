//! The devices stage: a plane per GPU agent, in HIP's numbering, and how each record finds its
//! plane. Kernels go by the agent they ran on; copies and sync calls name HIP devices, which
//! are mapped to planes from what the kernel launches show (HIP may see fewer GPUs than the
//! runtime enumerates).

use crate::facts::{AgentInfo, AgentType, CallFact, CopyRecord, KernelRecord};
use crate::fastmap::HashMap;
use crate::model::corrmap::CorrMap;
use crate::model::trace::Device;
use crate::store::PackedVec;

use super::input::Ids;

/// Device planes and how records find them.
pub(super) struct Places {
    pub devices: Vec<Device>,
    /// GPU agent handle → plane (enumerated GPUs only; copies use these).
    pub ordinal_of: HashMap<u64, u32>,
    /// Agent handle → plane for kernels (also agents that are not enumerated GPUs).
    kernel_plane_of: HashMap<u64, u32>,
    /// The kernels' plane by the index of their store entry (`PackedVec::iter_with_entry`),
    /// and whether their agent is an enumerated GPU (in `ordinal_of`): an entry is one
    /// agent's, so the stages that place every dispatch look its agent up once per entry (a
    /// few hundred), not once per dispatch (millions).
    entry_plane: Vec<(u32, bool)>,
    /// HIP device index → plane, learned from kernel launches (`hip_device_planes`).
    pub hip_plane: HashMap<i32, u32>,
    /// The HIP device each copy's call was issued to (emptied after the copies).
    pub issued_on: CorrMap<u16>,
}

impl Places {
    /// The plane of the kernels of `agent` (the first when it is not known): the kernels stage
    /// and the line sizes counted before it place them alike.
    pub(super) fn kernel_plane(&self, agent: u64) -> u32 {
        self.kernel_plane_of.get(&agent).copied().unwrap_or(0)
    }

    /// The plane of the kernels of store entry `entry`, as `kernel_plane` gives it for their
    /// agent.
    pub(super) fn entry_plane(&self, entry: usize) -> u32 {
        self.entry_plane.get(entry).map_or(0, |&(p, _)| p)
    }

    /// The plane of the kernels of store entry `entry` when their agent is an enumerated GPU
    /// (`ordinal_of`).
    fn entry_gpu(&self, entry: usize) -> Option<u32> {
        self.entry_plane
            .get(entry)
            .and_then(|&(p, gpu)| gpu.then_some(p))
    }

    /// The plane of HIP device `d` (sync calls and copies name HIP devices).
    pub(super) fn of_hip(&self, d: i32) -> Option<u32> {
        self.hip_plane.get(&d).copied().or_else(|| {
            u32::try_from(d)
                .ok()
                .filter(|&d| (d as usize) < self.ordinal_of.len())
        })
    }

    /// Learns which HIP device each launch or copy call was issued to (`calls`, the facts read
    /// at entry) and, from the kernels those launches made, which plane each HIP device is.
    /// Past this only the copies ask (`copy_plane`): their calls' devices alone are kept, not
    /// a table over every call held to the end of the kernels stage (the join's top).
    pub(super) fn learn_hip_devices(
        &mut self,
        calls: impl Iterator<Item = CallFact>,
        n: usize,
        kernels: &PackedVec<KernelRecord>,
        copies: &[CopyRecord],
        ids: &Ids,
    ) {
        let issued = issued_devices(calls, n, ids);
        self.hip_plane = hip_device_planes(&issued, kernels, self);
        let mut of_copies = CorrMap::for_range(ids.range, copies.len());
        of_copies.reserve(copies.len());
        for m in copies.iter().filter(|m| m.correlation_id != 0) {
            if let Some(&d) = issued.get(&m.correlation_id) {
                of_copies.insert(m.correlation_id, d);
            }
        }
        self.issued_on = of_copies;
    }

    /// Lets go of the device each call was issued to: the copies are the last to ask.
    pub(super) fn forget_issued_devices(&mut self) {
        drop(std::mem::take(&mut self.issued_on));
    }
}

/// A plane per GPU agent (HIP's numbering); kernels on agents that are not enumerated GPUs
/// still get a plane (numbered by handle, so deterministically), which is reported, not
/// hidden. Copies keep using GPUs only.
pub(super) fn place_devices(
    agents: &[AgentInfo],
    kernels: &PackedVec<KernelRecord>,
    warnings: &mut Vec<String>,
) -> Places {
    let mut devices: Vec<Device> = Vec::new();
    let mut ordinal_of: HashMap<u64, u32> = HashMap::default();
    for (i, a) in gpu_ordinals(agents).into_iter().enumerate() {
        ordinal_of.insert(a.handle, i as u32);
        devices.push(device_from_agent(i as u32, a));
    }
    let mut kernel_plane_of = ordinal_of.clone();
    // Each store entry's agent, read once per entry.
    let mut entry_agent: Vec<Option<u64>> = vec![None; kernels.entries()];
    for (k, e) in kernels.iter_with_entry() {
        if let Some(slot) = entry_agent.get_mut(e).filter(|a| a.is_none()) {
            *slot = Some(k.agent);
        }
    }
    let mut other_agents: Vec<u64> = entry_agent
        .iter()
        .flatten()
        .copied()
        .filter(|h| !ordinal_of.contains_key(h))
        .collect();
    other_agents.sort_unstable();
    other_agents.dedup();
    for h in other_agents {
        let ordinal = devices.len() as u32;
        let what = if agents.iter().any(|a| a.handle == h) {
            "which is not a GPU"
        } else {
            "which was not enumerated"
        };
        warnings.push(format!(
            "kernel dispatches on agent {h:#x}, {what}; shown as GPU {ordinal}"
        ));
        kernel_plane_of.insert(h, ordinal);
        devices.push(Device {
            ordinal,
            agent_handle: h,
            name: format!("unknown agent {h:#x}"),
            ..Device::default()
        });
    }
    let entry_plane = entry_agent
        .iter()
        .map(|a| match a {
            Some(a) => (
                kernel_plane_of.get(a).copied().unwrap_or(0),
                ordinal_of.contains_key(a),
            ),
            None => (0, false),
        })
        .collect();
    Places {
        devices,
        ordinal_of,
        kernel_plane_of,
        entry_plane,
        hip_plane: HashMap::default(),
        issued_on: CorrMap::default(),
    }
}

/// GPU ordinals: HIP numbers devices by their index among GPU agents, which the runtime reports
/// as `logical_node_type_id`; node id and handle only break ties.
fn gpu_ordinals(agents: &[AgentInfo]) -> Vec<&AgentInfo> {
    let mut gpus: Vec<&AgentInfo> = agents.iter().filter(|a| a.kind == AgentType::Gpu).collect();
    gpus.sort_by_key(|a| (a.type_index, a.node_id, a.handle));
    gpus
}

pub(super) fn device_from_agent(ordinal: u32, a: &AgentInfo) -> Device {
    Device {
        ordinal,
        agent_handle: a.handle,
        name: a.name.clone(),
        product_name: a.product_name.clone(),
        vendor_name: a.vendor_name.clone(),
        compute_units: a.cu_count,
        simd_per_cu: a.simd_per_cu,
        wave_front_size: a.wave_front_size,
        max_waves_per_cu: a.max_waves_per_cu,
        clock_rate_khz: u64::from(a.max_engine_clk_mhz) * 1000,
        memory_bytes: a.local_mem_bytes,
        memory_bandwidth_bytes_per_s: crate::model::hbm::peak_bandwidth(
            &a.name,
            &a.product_name,
            a.cu_count,
        )
        .unwrap_or(0),
        gfx_target_version: a.gfx_target_version,
        lines: Vec::new(),
    }
}

/// HIP device index → our GPU plane, learned from kernel launches (the device a launch was
/// issued to, and the agent its dispatch ran on). The two numberings differ whenever HIP sees
/// fewer GPUs than the runtime enumerates (`HIP_VISIBLE_DEVICES=2`: HIP's device 0 is the
/// third GPU agent). Most-seen plane per device; ties go to the lower plane.
fn hip_device_planes(
    issued_on: &CorrMap<u16>,
    kernels: &PackedVec<KernelRecord>,
    places: &Places,
) -> HashMap<i32, u32> {
    // Hashed by (device, plane), sorted once at the end: the GPUs' dispatches interleave, so
    // runs of one vote (below) are short, and a tree probe per run costs more than the rest
    // of the pass. Consecutive dispatches of one GPU vote alike: a run is counted, then added
    // to its tally once.
    let mut votes: HashMap<(u16, u32), u64> = HashMap::default();
    let mut run: Option<((u16, u32), u64)> = None;
    for (k, e) in kernels.iter_with_entry() {
        if k.correlation_id == 0 {
            continue;
        }
        // Only the dispatches on enumerated GPUs vote.
        let Some(p) = places.entry_gpu(e) else {
            continue;
        };
        if let Some(&d) = issued_on.get(&k.correlation_id) {
            let vote = (d, p);
            match &mut run {
                Some((v, n)) if *v == vote => *n += 1,
                _ => {
                    if let Some((v, n)) = run.replace((vote, 1)) {
                        *votes.entry(v).or_default() += n;
                    }
                }
            }
        }
    }
    if let Some((v, n)) = run {
        *votes.entry(v).or_default() += n;
    }
    // In (device, plane) order, so that of a tie the lower plane wins.
    let mut votes: Vec<((u16, u32), u64)> = votes.into_iter().collect();
    votes.sort_unstable();
    let mut best: HashMap<i32, (u64, u32)> = HashMap::default();
    for ((d, p), n) in votes {
        let e = best.entry(i32::from(d)).or_insert((n, p));
        if n > e.0 {
            *e = (n, p);
        }
    }
    best.into_iter().map(|(d, (_, p))| (d, p)).collect()
}

/// The HIP device each launch or copy call was issued to. 16 bits (`Option<u16>` is 4 B per id
/// of the table, `Option<i32>` 8): a HIP device number past 65,535 is no device of any node.
fn issued_devices(calls: impl Iterator<Item = CallFact>, n: usize, ids: &Ids) -> CorrMap<u16> {
    let mut map = ids.per_call();
    // Room once: entry by entry the table would fill a hash map until dense enough for its
    // vector.
    map.reserve(n);
    for f in calls.filter(|f| f.correlation_id != 0) {
        if let Ok(d) = u16::try_from(f.device) {
            map.insert(f.correlation_id, d);
        }
    }
    map
}

/// The GPU plane of HIP device `device` for copy `m`: the plane learned from kernel launches;
/// else the same index, but only when that cannot contradict the copy's own GPU ends (it has
/// none, or the index is one of them) — otherwise `None` and the copy goes by its GPU end.
fn issued_plane(
    device: i32,
    m: &CopyRecord,
    hip_plane: &HashMap<i32, u32>,
    ordinal_of: &HashMap<u64, u32>,
    gpu_count: usize,
) -> Option<u32> {
    if let Some(&p) = hip_plane.get(&device) {
        return Some(p);
    }
    let d = u32::try_from(device)
        .ok()
        .filter(|&d| (d as usize) < gpu_count)?;
    let ends = [ordinal_of.get(&m.dst_agent), ordinal_of.get(&m.src_agent)];
    if ends.iter().all(Option::is_none) || ends.contains(&Some(&d)) {
        Some(d)
    } else {
        None
    }
}

/// The plane of copy `m`: the device its call was issued to, else a GPU side of it, else the
/// first GPU; none without GPUs. (`gpu_count` is `places.ordinal_of.len()`, read once.)
pub(super) fn copy_plane(m: &CopyRecord, places: &Places, gpu_count: usize) -> Option<u32> {
    let issued = places
        .issued_on
        .get(&m.correlation_id)
        .filter(|_| m.correlation_id != 0)
        .and_then(|&d| {
            issued_plane(
                i32::from(d),
                m,
                &places.hip_plane,
                &places.ordinal_of,
                gpu_count,
            )
        });
    issued
        .or_else(|| copy_device(m, &places.ordinal_of))
        .or(if places.devices.is_empty() {
            None
        } else {
            Some(0)
        })
}

/// Which device plane a copy belongs to: the destination GPU, else the source GPU.
fn copy_device(c: &CopyRecord, ordinal_of: &HashMap<u64, u32>) -> Option<u32> {
    ordinal_of
        .get(&c.dst_agent)
        .or_else(|| ordinal_of.get(&c.src_agent))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::tests::{agent, GPU0};

    #[test]
    fn device_bandwidth_comes_from_the_table_only_for_a_whole_known_product() {
        let mi300x = device_from_agent(0, &agent(GPU0, AgentType::Gpu, 0));
        assert_eq!(mi300x.memory_bandwidth_bytes_per_s, 5_300_000_000_000);
        let partition = device_from_agent(
            0,
            &AgentInfo {
                cu_count: 38,
                ..agent(GPU0, AgentType::Gpu, 0)
            },
        );
        assert_eq!(
            partition.memory_bandwidth_bytes_per_s, 0,
            "unknown, not a guess"
        );
    }
}
