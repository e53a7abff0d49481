//! Hardware counters through the SDK (docs/counters.md, docs/abi.md "Hardware counters"):
//! each GPU's counters, the user's set checked against them, one counter config per GPU, the
//! buffered dispatch counting service and its dispatch callback, and the names of the delivered
//! records' counters.
//!
//! A config is one pass of the hardware: the SDK refuses one whose counters exceed a block's
//! per-pass limit. Counters are added to a GPU's config one at a time in the order given; one
//! the SDK refuses is left for another run and said so, never dropped silently.

use std::collections::HashMap;
use std::ffi::{c_void, CStr};
use std::sync::Arc;

use rocprofiler_sdk_sys as sys;

use super::functions::{Buffer, Context, Functions};
use super::status::{absent, SdkError};
use crate::guard::ffi_guard;
use crate::model::events::{AgentInfo, AgentType, CounterDispatch, CounterSample, CounterValue};

/// One counter a GPU offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterInfo {
    pub id: u64,
    pub name: String,
    pub block: String,
    /// Instances the SDK delivers per dispatch (product of its dimensions; 0 if unknown).
    pub instances: u64,
}

/// What was decided for one GPU.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentSelection {
    pub agent: u64,
    pub device: String,
    /// Counters in the config, in the order given.
    pub collected: Vec<String>,
    /// Asked for but not offered by this GPU.
    pub unsupported: Vec<String>,
    /// Offered, but the config could not take them in the same pass.
    pub another_pass: Vec<String>,
    /// Refused for another reason (the SDK's status).
    pub refused: Vec<(String, String)>,
}

/// The dispatch callback's answer per agent: `(agent handle, config handle)`; leaked for the
/// life of the process (the SDK may call the callback until it finalizes).
struct CountingPlan {
    configs: Vec<(u64, u64)>,
}

/// The counters set up for a run: what to say about them and how to name their records.
pub struct PmcSetup {
    pub selections: Vec<AgentSelection>,
    /// Names asked for that no GPU offers.
    pub unknown: Vec<String>,
    /// Counter id → name, for every counter collected.
    names: HashMap<u64, Arc<str>>,
    /// The setting the lines name (`ROCPROF_XPLANE_PMC`, `ROCPROF_XPLANE_PMC_INTERVAL`).
    setting: &'static str,
}

impl Functions {
    /// Whether this SDK has the dispatch counting service and counter configs (either family's
    /// spelling).
    pub fn can_count_dispatches(&self) -> bool {
        self.iterate_agent_supported_counters.is_some()
            && self.query_counter_info.is_some()
            && self.query_record_counter_id.is_some()
            && (self.create_counter_config.is_some() || self.create_profile_config.is_some())
            && (self.configure_buffer_dispatch_counting.is_some()
                || self.configure_buffered_dispatch_profile_counting.is_some())
    }

    /// The counters `agent` offers.
    pub fn agent_counters(&self, agent: u64) -> Result<Vec<CounterInfo>, SdkError> {
        let iterate = self
            .iterate_agent_supported_counters
            .ok_or_else(|| absent("rocprofiler_iterate_agent_supported_counters"))?;
        unsafe extern "C" fn collect(
            _agent: sys::rocprofiler_agent_id_t,
            counters: *mut sys::rocprofiler_counter_id_t,
            n: usize,
            data: *mut c_void,
        ) -> sys::rocprofiler_status_t {
            ffi_guard(
                "iterate_agent_supported_counters",
                sys::ROCPROFILER_STATUS_SUCCESS,
                || {
                    // SAFETY: `data` is the `Vec<u64>` passed below, alive across the call.
                    let out = unsafe { &mut *(data as *mut Vec<u64>) };
                    if !counters.is_null() {
                        // SAFETY: the SDK hands `n` ids.
                        let ids = unsafe { std::slice::from_raw_parts(counters, n) };
                        out.extend(ids.iter().map(|c| c.handle));
                    }
                    sys::ROCPROFILER_STATUS_SUCCESS
                },
            )
        }
        let mut ids: Vec<u64> = Vec::new();
        // SAFETY: `collect` has the callback's signature and reads `data` as `ids`, which
        // outlives the call (the SDK calls back before returning).
        let code = unsafe {
            iterate(
                sys::rocprofiler_agent_id_t { handle: agent },
                Some(collect),
                &mut ids as *mut Vec<u64> as *mut c_void,
            )
        };
        self.check(code, || {
            format!("rocprofiler_iterate_agent_supported_counters({agent:#x})")
        })?;
        Ok(ids
            .into_iter()
            .filter_map(|id| self.counter_info(id))
            .collect())
    }

    /// Name, block and instance count of counter `id`.
    fn counter_info(&self, id: u64) -> Option<CounterInfo> {
        let query = self.query_counter_info?;
        let mut info = sys::rocprofiler_counter_info_v0_t::default();
        // SAFETY: `info` is a writable version-0 info struct, the version asked for.
        let code = unsafe {
            query(
                sys::rocprofiler_counter_id_t { handle: id },
                sys::ROCPROFILER_COUNTER_INFO_VERSION_0,
                &mut info as *mut _ as *mut c_void,
            )
        };
        if code != sys::ROCPROFILER_STATUS_SUCCESS || info.name.is_null() {
            return None;
        }
        let text = |p: *const std::ffi::c_char| {
            // SAFETY: the SDK's strings live as long as the SDK; checked non-null.
            (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
        };
        Some(CounterInfo {
            id,
            name: text(info.name)?,
            block: text(info.block).unwrap_or_default(),
            instances: self.counter_instances(id),
        })
    }

    /// The product of counter `id`'s dimensions (0 when the SDK cannot say).
    fn counter_instances(&self, id: u64) -> u64 {
        let Some(iterate) = self.iterate_counter_dimensions else {
            return 0;
        };
        unsafe extern "C" fn dims(
            _id: sys::rocprofiler_counter_id_t,
            info: *const sys::rocprofiler_counter_record_dimension_info_t,
            n: usize,
            data: *mut c_void,
        ) -> sys::rocprofiler_status_t {
            ffi_guard(
                "iterate_counter_dimensions",
                sys::ROCPROFILER_STATUS_SUCCESS,
                || {
                    // SAFETY: `data` is the `u64` passed below, alive across the call.
                    let out = unsafe { &mut *(data as *mut u64) };
                    if !info.is_null() {
                        // SAFETY: the SDK hands `n` dimension infos.
                        let d = unsafe { std::slice::from_raw_parts(info, n) };
                        *out = d.iter().map(|d| d.instance_size as u64).product();
                    }
                    sys::ROCPROFILER_STATUS_SUCCESS
                },
            )
        }
        let mut n = 0u64;
        // SAFETY: `dims` has the callback's signature and reads `data` as `n`, which outlives
        // the call.
        unsafe {
            iterate(
                sys::rocprofiler_counter_id_t { handle: id },
                Some(dims),
                &mut n as *mut u64 as *mut c_void,
            )
        };
        n
    }

    /// A config of `counters` for `agent`, through whichever spelling the SDK has (a library
    /// answering NOT_IMPLEMENTED to one lacks it).
    pub fn create_counter_config(&self, agent: u64, counters: &[u64]) -> Result<u64, SdkError> {
        let mut ids: Vec<sys::rocprofiler_counter_id_t> = counters
            .iter()
            .map(|&handle| sys::rocprofiler_counter_id_t { handle })
            .collect();
        let mut config = sys::rocprofiler_counter_config_id_t { handle: 0 };
        let spellings = [
            (
                self.create_counter_config,
                "rocprofiler_create_counter_config",
            ),
            (
                self.create_profile_config,
                "rocprofiler_create_profile_config",
            ),
        ];
        self.first_spelling(
            spellings,
            |name| format!("{name}({agent:#x})"),
            |f| {
                // SAFETY: `ids` holds `ids.len()` counter ids; `config` is writable.
                unsafe {
                    f(
                        sys::rocprofiler_agent_id_t { handle: agent },
                        ids.as_mut_ptr(),
                        ids.len(),
                        &mut config,
                    )
                }
            },
        )?;
        Ok(config.handle)
    }

    /// Configures the buffered dispatch counting service of `ctx` into `buffer`, the dispatch
    /// callback answering from `plan`.
    fn configure_dispatch_counting(
        &self,
        ctx: Context,
        buffer: Buffer,
        plan: &'static CountingPlan,
    ) -> Result<(), SdkError> {
        let spellings = [
            (
                self.configure_buffer_dispatch_counting,
                "rocprofiler_configure_buffer_dispatch_counting_service",
            ),
            (
                self.configure_buffered_dispatch_profile_counting,
                "rocprofiler_configure_buffered_dispatch_profile_counting_service",
            ),
        ];
        self.first_spelling(spellings, str::to_string, |f| {
            // SAFETY: `dispatch_counting_cb` has the dispatch callback's signature and reads
            // its argument as the `&'static CountingPlan` passed here.
            unsafe {
                f(
                    sys::rocprofiler_context_id_t {
                        handle: ctx.handle(),
                    },
                    sys::rocprofiler_buffer_id_t {
                        handle: buffer.handle(),
                    },
                    Some(dispatch_counting_cb),
                    plan as *const CountingPlan as *mut c_void,
                )
            }
        })
    }

    /// The counter of a delivered record's instance id.
    pub(super) fn record_counter_id(&self, instance: u64) -> Option<u64> {
        let query = self.query_record_counter_id?;
        let mut id = sys::rocprofiler_counter_id_t { handle: 0 };
        // SAFETY: `id` is writable.
        let code = unsafe { query(instance, &mut id) };
        (code == sys::ROCPROFILER_STATUS_SUCCESS).then_some(id.handle)
    }
}

/// Before each kernel is enqueued: the config of the GPU it runs on (none for a GPU without
/// one). Runs on the launching thread; a scan of at most a few entries.
unsafe extern "C" fn dispatch_counting_cb(
    data: sys::rocprofiler_dispatch_counting_service_data_t,
    config: *mut sys::rocprofiler_counter_config_id_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    arg: *mut c_void,
) {
    ffi_guard("dispatch_counting_cb", (), || {
        if config.is_null() || arg.is_null() {
            return;
        }
        // SAFETY: `arg` is the `&'static CountingPlan` registered with this callback.
        let plan = unsafe { &*(arg as *const CountingPlan) };
        let agent = data.dispatch_info.agent_id.handle;
        if let Some(&(_, handle)) = plan.configs.iter().find(|(a, _)| *a == agent) {
            // SAFETY: non-null, the SDK's out-parameter.
            unsafe { (*config).handle = handle };
        }
    })
}

/// Which of `requested` each GPU collects, and what it cannot: `try_config` is asked for a
/// config of the counters so far plus one more, in the order given (pure apart from it, so
/// the rule is testable without an SDK).
pub fn select(
    requested: &[String],
    agent: &AgentInfo,
    offered: &[CounterInfo],
    mut try_config: impl FnMut(&[u64]) -> Result<u64, SdkError>,
) -> (AgentSelection, Option<u64>) {
    let mut sel = AgentSelection {
        agent: agent.handle,
        device: agent.name.clone(),
        ..Default::default()
    };
    let mut ids: Vec<u64> = Vec::new();
    let mut config = None;
    for name in requested {
        let Some(c) = offered.iter().find(|c| &c.name == name) else {
            sel.unsupported.push(name.clone());
            continue;
        };
        ids.push(c.id);
        match try_config(&ids) {
            Ok(h) => {
                config = Some(h);
                sel.collected.push(name.clone());
            }
            Err(e) => {
                ids.pop();
                if e.is("EXCEEDS_HW_LIMIT") {
                    sel.another_pass.push(name.clone());
                } else {
                    sel.refused.push((name.clone(), e.to_string()));
                }
            }
        }
    }
    (sel, config)
}

impl PmcSetup {
    /// Sets up counting of `requested` on every GPU of `agents` in `ctx`, into `buffer`; the
    /// lines to say come back in the selections (`lines`).
    pub fn create(
        f: &Functions,
        ctx: Context,
        buffer: Buffer,
        agents: &[AgentInfo],
        requested: &[String],
    ) -> Result<PmcSetup, SdkError> {
        let (setup, configs) = PmcSetup::choose(f, agents, requested, "ROCPROF_XPLANE_PMC");
        if !configs.is_empty() {
            let plan: &'static CountingPlan = Box::leak(Box::new(CountingPlan { configs }));
            f.configure_dispatch_counting(ctx, buffer, plan)?;
        }
        Ok(setup)
    }

    /// Which of `requested` every GPU of `agents` can count in one pass, and its config
    /// (`(agent, config)` for each GPU that counts anything); `setting` names the setting in
    /// the lines said about the rest.
    pub fn choose(
        f: &Functions,
        agents: &[AgentInfo],
        requested: &[String],
        setting: &'static str,
    ) -> (PmcSetup, Vec<(u64, u64)>) {
        let mut selections = Vec::new();
        let mut configs = Vec::new();
        let mut names = HashMap::new();
        let mut offered_anywhere: Vec<String> = Vec::new();
        for a in agents.iter().filter(|a| a.kind == AgentType::Gpu) {
            let offered = match f.agent_counters(a.handle) {
                Ok(o) => o,
                Err(e) => {
                    selections.push(AgentSelection {
                        agent: a.handle,
                        device: a.name.clone(),
                        refused: requested
                            .iter()
                            .map(|n| (n.clone(), e.to_string()))
                            .collect(),
                        ..Default::default()
                    });
                    continue;
                }
            };
            offered_anywhere.extend(
                offered
                    .iter()
                    .filter(|c| requested.contains(&c.name))
                    .map(|c| c.name.clone()),
            );
            let (sel, config) = select(requested, a, &offered, |ids| {
                f.create_counter_config(a.handle, ids)
            });
            if let Some(h) = config {
                configs.push((a.handle, h));
                for c in offered.iter().filter(|c| sel.collected.contains(&c.name)) {
                    names.insert(c.id, Arc::from(c.name.as_str()));
                }
            }
            selections.push(sel);
        }
        let unknown: Vec<String> = requested
            .iter()
            .filter(|n| !offered_anywhere.contains(n))
            .cloned()
            .collect();
        let setup = PmcSetup {
            selections,
            unknown,
            names,
            setting,
        };
        (setup, configs)
    }

    /// The name of a counter this setup collects, by the counter id of a delivered record's
    /// instance (`None`: not one of ours, or the SDK cannot say).
    pub fn counter_name(&self, f: &Functions, instance: u64) -> Option<Arc<str>> {
        f.record_counter_id(instance)
            .and_then(|id| self.names.get(&id).cloned())
    }

    /// A setup that collects nothing, for tests of what reads through it.
    #[cfg(test)]
    pub fn empty(setting: &'static str) -> PmcSetup {
        PmcSetup {
            selections: Vec::new(),
            unknown: Vec::new(),
            names: HashMap::new(),
            setting,
        }
    }

    /// A setup that names the counters `names` (id, name) and collects nothing, for tests of
    /// what reads through it.
    #[cfg(test)]
    pub fn naming(setting: &'static str, names: &[(u64, &str)]) -> PmcSetup {
        PmcSetup {
            names: names.iter().map(|&(id, n)| (id, Arc::from(n))).collect(),
            ..PmcSetup::empty(setting)
        }
    }

    /// Whether any GPU collects anything.
    pub fn counts(&self) -> bool {
        self.selections.iter().any(|s| !s.collected.is_empty())
    }

    /// One line per thing the user should know: unknown names, and per GPU what it does not
    /// offer, what needs another pass and what the SDK refused.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.unknown.is_empty() {
            out.push(format!(
                "{}: no GPU offers {}: not collected",
                self.setting,
                self.unknown.join(", ")
            ));
        }
        for s in &self.selections {
            let gpu = format!("GPU {} ({:#x})", s.device, s.agent);
            let unsupported: Vec<&String> = s
                .unsupported
                .iter()
                .filter(|n| !self.unknown.contains(n))
                .collect();
            if !unsupported.is_empty() {
                out.push(format!(
                    "{}: {gpu} does not offer {}: not collected there",
                    self.setting,
                    join(&unsupported)
                ));
            }
            if !s.another_pass.is_empty() {
                out.push(format!(
                    "{}: {gpu}: {} do not fit the same hardware pass as {}: not collected; collect them in another run",
                    self.setting,
                    s.another_pass.join(", "),
                    s.collected.join(", ")
                ));
            }
            for (n, why) in &s.refused {
                out.push(format!("{}: {gpu}: {n} refused: {why}", self.setting));
            }
        }
        out
    }

    /// The delivered records of a collection, named by their counters and placed on the GPU
    /// their dispatch's header record names: one value per counter and dispatch, its instances
    /// added up here already (the join's rule, `model::pmc`, sums whatever it is given; a
    /// dispatch's hundreds of instance values become one per counter before they are kept).
    /// Samples whose counter is not one we collect are counted in the second value.
    pub fn values(
        &self,
        f: &Functions,
        samples: Vec<CounterSample>,
        dispatches: &[CounterDispatch],
    ) -> (Vec<CounterValue>, u64) {
        let agent_of: HashMap<u64, u64> = dispatches
            .iter()
            .map(|d| (d.dispatch_id, d.agent))
            .collect();
        let mut by_instance: HashMap<u64, Option<u64>> = HashMap::new();
        let mut unnamed = 0;
        // (dispatch, counter id) → position in `out`.
        let mut slot: HashMap<(u64, u64), usize> = HashMap::new();
        let mut out: Vec<CounterValue> = Vec::new();
        for s in samples {
            let id = *by_instance.entry(s.instance).or_insert_with(|| {
                f.record_counter_id(s.instance)
                    .filter(|id| self.names.contains_key(id))
            });
            let Some(id) = id else {
                unnamed += 1;
                continue;
            };
            match slot.get(&(s.dispatch_id, id)) {
                Some(&i) => out[i].value += s.value,
                None => {
                    slot.insert((s.dispatch_id, id), out.len());
                    out.push(CounterValue {
                        dispatch_id: s.dispatch_id,
                        agent: agent_of.get(&s.dispatch_id).copied().unwrap_or(0),
                        counter: self.names[&id].clone(),
                        value: s.value,
                    });
                }
            }
        }
        (out, unnamed)
    }
}

fn join(names: &[&String]) -> String {
    names
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: u64, name: &str, block: &str) -> CounterInfo {
        CounterInfo {
            id,
            name: name.into(),
            block: block.into(),
            instances: 1,
        }
    }

    fn err(name: &str) -> SdkError {
        SdkError {
            call: "create".into(),
            code: 1,
            name: Some(format!("ROCPROFILER_STATUS_ERROR_{name}")),
        }
    }

    /// Counters go into the config in the order given; one the SDK refuses for the pass limit
    /// waits for another run, one the GPU does not offer is said so, the rest are collected.
    #[test]
    fn selection_keeps_order_and_says_what_is_left() {
        let agent = AgentInfo::for_test(0x10, AgentType::Gpu, 0);
        let offered = [
            info(1, "SQ_WAVES", "SQ"),
            info(2, "TCC_HIT", "TCC"),
            info(3, "TCC_MISS", "TCC"),
            info(4, "TCC_EA0_RDREQ", "TCC"),
        ];
        let requested: Vec<String> = [
            "SQ_WAVES",
            "GL2C_HIT",
            "TCC_HIT",
            "TCC_MISS",
            "TCC_EA0_RDREQ",
        ]
        .map(String::from)
        .to_vec();
        // The pass takes two TCC counters.
        let (sel, config) = select(&requested, &agent, &offered, |ids| {
            let tcc = ids.iter().filter(|&&i| i >= 2).count();
            if tcc > 2 {
                Err(err("EXCEEDS_HW_LIMIT"))
            } else {
                Ok(ids.len() as u64)
            }
        });
        assert_eq!(sel.collected, ["SQ_WAVES", "TCC_HIT", "TCC_MISS"]);
        assert_eq!(sel.unsupported, ["GL2C_HIT"]);
        assert_eq!(sel.another_pass, ["TCC_EA0_RDREQ"]);
        assert_eq!(config, Some(3));
        let setup = PmcSetup {
            selections: vec![sel],
            unknown: vec!["GL2C_HIT".into()],
            names: HashMap::new(),
            setting: "ROCPROF_XPLANE_PMC",
        };
        let lines = setup.lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains("no GPU offers GL2C_HIT"), "{lines:?}");
        assert!(
            lines[1].contains("TCC_EA0_RDREQ do not fit the same hardware pass"),
            "{lines:?}"
        );
    }
}
