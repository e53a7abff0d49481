//! The devices stage: a plane per GPU agent, in HIP's numbering, and how each record finds its
//! plane. Kernels go by the agent they ran on; copies and sync calls name HIP devices, which
//! are mapped to planes from what the kernel launches show (HIP may see fewer GPUs than the
//! runtime enumerates).

use crate::facts::{AgentInfo, AgentType, CopyRecord, KernelRecord};
use crate::fastmap::HashMap;
use crate::model::corrmap::{CorrMap, Slot};
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
    /// (`ordinal_of`): only those dispatches vote for their HIP device's plane (`HipVotes`).
    pub(super) fn entry_gpu(&self, entry: usize) -> Option<u32> {
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

    /// The HIP devices' planes from the kernels' votes (`HipVotes`), and the HIP device each
    /// copy's call was issued to (`issued`: the device of call `corr`, made with the streams'
    /// table, `DeviceWork::of_calls`). Past this only the copies ask (`copy_plane`): their
    /// calls' devices alone are kept.
    pub(super) fn learn_hip_devices(
        &mut self,
        votes: HipVotes,
        issued: impl Fn(u64) -> Option<u16>,
        copies: &[CopyRecord],
        ids: &Ids,
    ) {
        self.hip_plane = votes.planes();
        let mut of_copies = CorrMap::for_range(ids.range, copies.len());
        of_copies.reserve(copies.len());
        for m in copies.iter().filter(|m| m.correlation_id != 0) {
            if let Some(d) = issued(m.correlation_id) {
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

/// The HIP device each launch or copy call was issued to, by the stream slot its call named
/// (`DeviceWork::of_calls`): a stream's calls go to its device, so the device is kept once per
/// slot (its first call's), and per call only where a call's differs (the null stream's calls
/// on several devices, a repeated id), hashed. No table over every call: it would be held
/// beside the streams' table and the call facts, the call tables stage's top. 16 bits: a HIP
/// device number past 65,535 is no device of any node (its call has none).
#[derive(Debug, Default)]
pub(super) struct IssuedDevices {
    of_slot: Vec<Option<u16>>,
    apart: HashMap<u64, Option<u16>>,
}

impl IssuedDevices {
    /// The device of call `corr`, whose stream is at `slot` (the streams' table's answer).
    #[inline]
    pub(super) fn get(&self, corr: u64, slot: Option<Slot>) -> Option<u16> {
        if !self.apart.is_empty() {
            if let Some(&d) = self.apart.get(&corr) {
                return d;
            }
        }
        slot.and_then(|s| self.of_slot.get(s.index()).copied().flatten())
    }

    /// Call `corr` was issued to `device`; its stream's table, which had `before` for it,
    /// now has `slot` (`None`: unchanged). A device past 16 bits leaves the call's device as
    /// it was (a repeated id keeps its earlier call's).
    #[inline]
    pub(super) fn note(
        &mut self,
        corr: u64,
        device: i32,
        before: impl FnOnce() -> Option<Slot>,
        slot: Option<Slot>,
    ) {
        let device = match u16::try_from(device) {
            Ok(d) => Some(d),
            Err(_) => self.get(corr, before()),
        };
        let Some(s) = slot else {
            self.apart.insert(corr, device);
            return;
        };
        if s.index() == self.of_slot.len() {
            self.of_slot.push(device);
        }
        if self.of_slot.get(s.index()) == Some(&device) {
            if !self.apart.is_empty() {
                self.apart.remove(&corr);
            }
        } else {
            self.apart.insert(corr, device);
        }
    }
}

/// HIP device index → our GPU plane, learned from kernel launches (the device a launch was
/// issued to, and the agent its dispatch ran on): each dispatch on an enumerated GPU votes
/// (`vote`, in the kernels' store order). The two numberings differ whenever HIP sees fewer
/// GPUs than the runtime enumerates (`HIP_VISIBLE_DEVICES=2`: HIP's device 0 is the third GPU
/// agent). Most-seen plane per device; ties go to the lower plane.
///
/// Hashed by (device, plane), sorted once at the end: the GPUs' dispatches interleave, so runs
/// of one vote are short, and a tree probe per run costs more than the rest of the pass.
/// Consecutive dispatches of one GPU vote alike: a run is counted, then added to its tally
/// once.
#[derive(Default)]
pub(super) struct HipVotes {
    votes: HashMap<(u16, u32), u64>,
    run: Option<((u16, u32), u64)>,
}

impl HipVotes {
    /// A dispatch on plane `plane` whose call was issued to HIP device `device`.
    #[inline]
    pub(super) fn vote(&mut self, device: u16, plane: u32) {
        let vote = (device, plane);
        match &mut self.run {
            Some((v, n)) if *v == vote => *n += 1,
            _ => {
                if let Some((v, n)) = self.run.replace((vote, 1)) {
                    *self.votes.entry(v).or_default() += n;
                }
            }
        }
    }

    /// Each HIP device's plane.
    fn planes(mut self) -> HashMap<i32, u32> {
        if let Some((v, n)) = self.run {
            *self.votes.entry(v).or_default() += n;
        }
        // In (device, plane) order, so that of a tie the lower plane wins.
        let mut votes: Vec<((u16, u32), u64)> = self.votes.into_iter().collect();
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
