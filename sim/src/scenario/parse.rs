//! TOML text → checked `Scenario`. All name resolution and unit conversion happens here so the
//! compiler can assume a consistent scenario; errors name the line and the field path.

use std::collections::HashMap;

use toml_edit::ImDocument;

use crate::plan::{ApiOrder, BufferPolicy, DeliveryModel};

use super::ast::*;
use super::error::ScenarioError;
use super::presets::{preset, GpuDef, PRESET_NAMES};
use super::toml_read::{closest, At, Obj, Source};
use crate::prng::{hash_str, SplitMix64};

/// Upper bound on expanded host calls, so a typo like `repeat = 1e12` fails fast instead of
/// compiling forever.
pub(crate) const MAX_EXPANDED_CALLS: u64 = 200_000_000;
/// Most copies one `[[threads]]` entry may ask for with `count`.
const MAX_THREAD_COUNT: u64 = 1024;

pub(crate) fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let doc = ImDocument::parse(text).map_err(|e| {
        let src = Source::new(text);
        let (line, column) = e.span().map(|s| src.line_col(s.start)).unwrap_or((0, 0));
        let msg = e.message().trim().to_string();
        ScenarioError::new(line, column, "", format!("TOML syntax error: {msg}"))
    })?;
    let src = Source::new(text);
    let root_at = At::root(doc.as_item(), &src);
    let root = root_at.obj()?;
    Parser::default().scenario(&root)
}

#[derive(Default)]
struct Parser {
    kernels: Vec<KernelDef>,
    kernel_ix: HashMap<String, u32>,
    code_objects: Vec<CodeObjectDef>,
    co_ix: HashMap<String, u32>,
    graphs: Vec<GraphDef>,
    graph_ix: HashMap<String, u32>,
    streams: Vec<StreamDef>,
    stream_ix: HashMap<String, u32>,
    events: Vec<String>,
    event_ix: HashMap<String, u32>,
    range_keys: Vec<String>,
    range_ix: HashMap<String, u32>,
    thread_ix: HashMap<String, u32>,
    n_gpus: u32,
    srcs: Vec<SrcLoc>,
    n_calls: u32,
    uses_memset: bool,
    timing: Timing,
}

fn intern(names: &mut Vec<String>, ix: &mut HashMap<String, u32>, name: &str) -> u32 {
    if let Some(&i) = ix.get(name) {
        return i;
    }
    let i = names.len() as u32;
    names.push(name.to_string());
    ix.insert(name.to_string(), i);
    i
}

fn unknown(at: &At, what: &str, name: &str, known: &HashMap<String, u32>) -> ScenarioError {
    let mut names: Vec<&str> = known.keys().map(String::as_str).collect();
    names.sort_unstable();
    let hint = closest(name, &names)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default();
    let list = if names.is_empty() {
        format!("; no {what} is declared")
    } else if names.len() <= 12 {
        format!("; known: {}", names.join(", "))
    } else {
        String::new()
    };
    at.err(format!("unknown {what} `{name}`{hint}{list}"))
}

const TOP_KEYS: &[&str] = &[
    "name",
    "description",
    "seed",
    "timing",
    "delivery",
    "gpus",
    "code_objects",
    "kernels",
    "graphs",
    "streams",
    "threads",
];

impl Parser {
    fn scenario(mut self, root: &Obj) -> Result<Scenario, ScenarioError> {
        root.only(TOP_KEYS)?;
        root.opt_str("name")?;
        root.opt_str("description")?;
        let seed = root.opt_u64("seed")?.unwrap_or(0);
        if let Some(t) = root.get("timing") {
            self.timing = self.timing_section(&t.obj()?)?;
        }
        let mut delivery = DeliveryModel {
            seed,
            ..Default::default()
        };
        if let Some(d) = root.get("delivery") {
            delivery = delivery_section(&d.obj()?, seed)?;
        }

        // GPUs.
        let gpus_at = root.req("gpus")?;
        let mut gpus = Vec::new();
        for g in gpus_at.array()? {
            gpus.push(gpu(&g)?);
        }
        if gpus.is_empty() {
            return Err(gpus_at.err("at least one GPU is required"));
        }
        self.n_gpus = gpus.len() as u32;

        // Thread names first: code objects refer to their loading thread.
        let threads_at = root.req("threads")?;
        let thread_list = threads_at.array()?;
        if thread_list.is_empty() {
            return Err(threads_at.err("at least one thread is required"));
        }
        // `count = N` makes N identical threads (`name`, `name.1`, …, `name.{N-1}`); a
        // reference by `name` means the first of them.
        let mut counts = Vec::with_capacity(thread_list.len());
        let mut first_index = 0u32;
        for (i, t) in thread_list.iter().enumerate() {
            let o = t.obj()?;
            let name = match o.opt_str("name")? {
                Some(n) => n.to_string(),
                None => format!("thread{i}"),
            };
            let count = match o.opt_u64("count")? {
                None => 1,
                Some(n) if (1..=MAX_THREAD_COUNT).contains(&n) => n as u32,
                Some(n) => {
                    return Err(o
                        .req("count")?
                        .err(format!("count {n} outside 1..={MAX_THREAD_COUNT}")))
                }
            };
            counts.push(count);
            for k in 0..count {
                let n = if k == 0 {
                    name.clone()
                } else {
                    format!("{name}.{k}")
                };
                if self.thread_ix.insert(n.clone(), first_index + k).is_some() {
                    return Err(o.req("name")?.err(format!("duplicate thread name `{n}`")));
                }
            }
            first_index += count;
        }

        if let Some(cos) = root.get("code_objects") {
            for c in cos.array()? {
                self.code_object(&c)?;
            }
        }
        if let Some(ks) = root.get("kernels") {
            for k in ks.array()? {
                self.kernel(&k)?;
            }
        }
        if let Some(gs) = root.get("graphs") {
            for g in gs.array()? {
                self.graph(&g, seed)?;
            }
        }
        if let Some(ss) = root.get("streams") {
            for s in ss.array()? {
                self.stream(&s)?;
            }
        }

        let mut threads = Vec::new();
        for (i, t) in thread_list.iter().enumerate() {
            let def = self.thread(t, i)?;
            let copies: Vec<ThreadDef> = (1..counts[i])
                .map(|k| ThreadDef {
                    name: format!("{}.{k}", def.name),
                    ..def.clone()
                })
                .collect();
            threads.push(def);
            threads.extend(copies);
        }
        let total: u64 = threads
            .iter()
            .map(|t| expanded_calls(&t.calls))
            .fold(0, u64::saturating_add);
        if total > MAX_EXPANDED_CALLS {
            return Err(threads_at.err(format!(
                "the scenario expands to {total} host calls, more than the limit of {MAX_EXPANDED_CALLS}"
            )));
        }

        Ok(Scenario {
            gpus,
            code_objects: self.code_objects,
            kernels: self.kernels,
            graphs: self.graphs,
            streams: self.streams,
            events: self.events,
            range_keys: self.range_keys,
            threads,
            timing: self.timing,
            delivery,
            seed,
            srcs: self.srcs,
            n_calls: self.n_calls,
            uses_memset: self.uses_memset,
        })
    }

    fn timing_section(&self, o: &Obj) -> Result<Timing, ScenarioError> {
        o.only(&[
            "dispatch_latency_us",
            "sync_return_us",
            "copy_latency_us",
            "gap_us",
            "kernel_us",
            "graph_node_host_us",
            "jitter",
            "api_us",
        ])?;
        let mut t = Timing::default();
        if let Some(v) = o.opt_us("dispatch_latency_us")? {
            t.dispatch_latency_ns = v;
        }
        if let Some(v) = o.opt_us("sync_return_us")? {
            t.sync_return_ns = v;
        }
        if let Some(v) = o.opt_us("copy_latency_us")? {
            t.copy_latency_ns = v;
        }
        if let Some(v) = o.opt_us("gap_us")? {
            t.default_gap_ns = v;
        }
        if let Some(v) = o.opt_us("kernel_us")? {
            t.kernel_ns = v.max(1);
        }
        if let Some(v) = o.opt_us("graph_node_host_us")? {
            t.graph_node_host_ns = v;
        }
        if let Some(j) = o.get("jitter") {
            let v = j.nonneg()?;
            if v >= 1.0 {
                return Err(j.err("jitter is a fraction and must be < 1 (e.g. 0.05 for ±5 %)"));
            }
            t.jitter = v;
        }
        if let Some(a) = o.get("api_us") {
            let ao = a.obj()?;
            for (k, _) in ao.tbl.iter() {
                let v = ao.req(k)?.us_to_ns()?;
                t.api_ns.insert(k.to_string(), v.max(1));
            }
        }
        Ok(t)
    }

    fn code_object(&mut self, at: &At) -> Result<(), ScenarioError> {
        let o = at.obj()?;
        o.only(&[
            "name",
            "uri",
            "devices",
            "load_thread",
            "lazy",
            "unload_at_us",
        ])?;
        let name = o.req("name")?.str()?.to_string();
        if self.co_ix.contains_key(&name) {
            return Err(o
                .req("name")?
                .err(format!("duplicate code object `{name}`")));
        }
        let gpus = match o.get("devices") {
            Some(d) => {
                let mut v = Vec::new();
                for e in d.array()? {
                    let g = e.u32()?;
                    if g >= self.n_gpus {
                        return Err(e.err(format!(
                            "device {g} does not exist (the scenario has {} GPUs)",
                            self.n_gpus
                        )));
                    }
                    if !v.contains(&g) {
                        v.push(g);
                    }
                }
                v
            }
            None => (0..self.n_gpus).collect(),
        };
        let load_thread = match o.get("load_thread") {
            Some(t) => self.thread_ref(&t)?,
            None => 0,
        };
        let i = self.code_objects.len() as u32;
        self.code_objects.push(CodeObjectDef {
            name: name.clone(),
            uri: o.opt_str("uri")?.map(str::to_string),
            gpus,
            load_thread,
            lazy: o.opt_bool("lazy")?.unwrap_or(false),
            unload_at_ns: o.opt_us("unload_at_us")?,
        });
        self.co_ix.insert(name, i);
        Ok(())
    }

    fn thread_ref(&self, at: &At) -> Result<u32, ScenarioError> {
        if at.is_str() {
            let n = at.str()?;
            self.thread_ix
                .get(n)
                .copied()
                .ok_or_else(|| unknown(at, "thread", n, &self.thread_ix))
        } else {
            let i = at.u32()?;
            if i as usize >= self.thread_ix.len() {
                return Err(at.err(format!("thread {i} does not exist")));
            }
            Ok(i)
        }
    }

    /// The code object kernels go to when they name none: the first declared, or an implicit
    /// "app" code object loaded on every GPU.
    fn default_code_object(&mut self) -> u32 {
        if self.code_objects.is_empty() {
            self.code_objects.push(CodeObjectDef {
                name: "app".into(),
                uri: None,
                gpus: (0..self.n_gpus).collect(),
                load_thread: 0,
                lazy: false,
                unload_at_ns: None,
            });
            self.co_ix.insert("app".into(), 0);
        }
        0
    }

    fn co_ref(&mut self, o: &Obj) -> Result<u32, ScenarioError> {
        match o.get("code_object") {
            Some(c) => {
                let n = c.str()?;
                self.co_ix
                    .get(n)
                    .copied()
                    .ok_or_else(|| unknown(&c, "code object", n, &self.co_ix))
            }
            None => Ok(self.default_code_object()),
        }
    }

    fn kernel(&mut self, at: &At) -> Result<(), ScenarioError> {
        let o = at.obj()?;
        o.only(&[
            "name",
            "code_object",
            "sgpr",
            "vgpr",
            "agpr",
            "lds",
            "scratch",
            "kernarg",
            "grid",
            "block",
            "dur_us",
            "flops",
            "precision",
            "mfma",
            "read_bytes",
            "write_bytes",
        ])?;
        let name_at = o.req("name")?;
        let name = strip_kd(name_at.str()?);
        if name.is_empty() {
            return Err(name_at.err("kernel name must not be empty"));
        }
        if self.kernel_ix.contains_key(&name) {
            return Err(name_at.err(format!("duplicate kernel `{name}`")));
        }
        let code_object = self.co_ref(&o)?;
        let k = KernelDef {
            name: name.clone(),
            code_object,
            sgpr: o.opt_u32("sgpr")?.unwrap_or(32),
            vgpr: o.opt_u32("vgpr")?.unwrap_or(32),
            agpr: o.opt_u32("agpr")?.unwrap_or(0),
            lds: o
                .opt_bytes("lds")?
                .map(|b| to_u32(&o, "lds", b))
                .transpose()?
                .unwrap_or(0),
            scratch: o
                .opt_bytes("scratch")?
                .map(|b| to_u32(&o, "scratch", b))
                .transpose()?
                .unwrap_or(0),
            kernarg: o.opt_u32("kernarg")?.unwrap_or(64),
            grid: o.opt_dim3("grid")?.unwrap_or([1024, 1, 1]),
            block: o.opt_dim3("block")?.unwrap_or([256, 1, 1]),
            dur_ns: o.opt_us("dur_us")?.unwrap_or(self.timing.kernel_ns).max(1),
            work: kernel_work(&o)?,
        };
        check_grid(&o, k.grid, k.block)?;
        self.kernel_ix.insert(name, self.kernels.len() as u32);
        self.kernels.push(k);
        Ok(())
    }

    fn kernel_ref(&self, at: &At) -> Result<u32, ScenarioError> {
        let n = strip_kd(at.str()?);
        self.kernel_ix
            .get(&n)
            .copied()
            .ok_or_else(|| unknown(at, "kernel", &n, &self.kernel_ix))
    }

    fn graph(&mut self, at: &At, seed: u64) -> Result<(), ScenarioError> {
        let o = at.obj()?;
        o.only(&[
            "name",
            "nodes",
            "kernels",
            "name_pattern",
            "dur_us",
            "grid",
            "block",
            "dyn_lds",
            "code_object",
            "branches",
        ])?;
        let name = o.req("name")?.str()?.to_string();
        if self.graph_ix.contains_key(&name) {
            return Err(o.req("name")?.err(format!("duplicate graph `{name}`")));
        }
        let branches = o.opt_u32("branches")?.unwrap_or(1);
        if branches == 0 {
            return Err(o.req("branches")?.err("branches must be ≥ 1"));
        }
        let mut rng = SplitMix64::new(seed ^ hash_str(&name));
        let mut nodes = Vec::new();
        match (o.get("nodes"), o.get("kernels")) {
            (Some(_), Some(k)) => {
                return Err(k.err("give either `nodes` or `kernels` (generated), not both"))
            }
            (None, None) => return Err(at.err("a graph needs `nodes = [...]` or `kernels = N`")),
            (Some(list), None) => {
                for n in list.array()? {
                    let no = n.obj()?;
                    no.only(&["kernel", "grid", "block", "dyn_lds", "dur_us"])?;
                    let kernel = self.kernel_ref(&no.req("kernel")?)?;
                    let kd = &self.kernels[kernel as usize];
                    let node = GraphNode {
                        kernel,
                        grid: no.opt_dim3("grid")?.unwrap_or(kd.grid),
                        block: no.opt_dim3("block")?.unwrap_or(kd.block),
                        dyn_lds: no
                            .opt_bytes("dyn_lds")?
                            .map(|b| to_u32(&no, "dyn_lds", b))
                            .transpose()?
                            .unwrap_or(0),
                        dur_ns: no.opt_us("dur_us")?.unwrap_or(kd.dur_ns).max(1),
                    };
                    check_grid(&no, node.grid, node.block)?;
                    nodes.push(node);
                }
            }
            (None, Some(count_at)) => {
                let count = count_at.u32()?;
                let pattern = o
                    .opt_str("name_pattern")?
                    .map(str::to_string)
                    .unwrap_or(format!("{name}_node_{{i}}"));
                if count > 1 && !pattern.contains("{i}") {
                    return Err(o
                        .get("name_pattern")
                        .unwrap_or(count_at)
                        .err("name_pattern must contain `{i}` to generate distinct kernel names"));
                }
                let grid = o.opt_dim3("grid")?.unwrap_or([1024, 1, 1]);
                let block = o.opt_dim3("block")?.unwrap_or([256, 1, 1]);
                check_grid(&o, grid, block)?;
                let dyn_lds = o
                    .opt_bytes("dyn_lds")?
                    .map(|b| to_u32(&o, "dyn_lds", b))
                    .transpose()?
                    .unwrap_or(0);
                let (lo, hi) = match o.get("dur_us") {
                    None => (self.timing.kernel_ns, self.timing.kernel_ns),
                    Some(d) if d.is_array() => {
                        let a = d.array()?;
                        if a.len() != 2 {
                            return Err(d.err("dur_us range must be [min, max]"));
                        }
                        let (lo, hi) = (a[0].us_to_ns()?, a[1].us_to_ns()?);
                        if lo > hi {
                            return Err(d.err("dur_us range must have min ≤ max"));
                        }
                        (lo, hi)
                    }
                    Some(d) => {
                        let v = d.us_to_ns()?;
                        (v, v)
                    }
                };
                let co = self.co_ref(&o)?;
                for i in 0..count {
                    let kname = pattern.replace("{i}", &i.to_string());
                    let kernel = match self.kernel_ix.get(&kname) {
                        Some(&k) => k,
                        None => {
                            let k = self.kernels.len() as u32;
                            self.kernels.push(KernelDef {
                                name: kname.clone(),
                                code_object: co,
                                sgpr: 32,
                                vgpr: 32,
                                agpr: 0,
                                lds: 0,
                                scratch: 0,
                                kernarg: 64,
                                grid,
                                block,
                                dur_ns: lo.max(1),
                                work: Default::default(),
                            });
                            self.kernel_ix.insert(kname, k);
                            k
                        }
                    };
                    let dur = lo + ((hi - lo) as f64 * rng.next_f64()).round() as u64;
                    nodes.push(GraphNode {
                        kernel,
                        grid,
                        block,
                        dyn_lds,
                        dur_ns: dur.max(1),
                    });
                }
            }
        }
        if nodes.is_empty() {
            return Err(at.err("a graph needs at least one node"));
        }
        self.graph_ix.insert(name.clone(), self.graphs.len() as u32);
        self.graphs.push(GraphDef {
            name,
            nodes,
            branches,
        });
        Ok(())
    }

    fn stream(&mut self, at: &At) -> Result<(), ScenarioError> {
        let o = at.obj()?;
        o.only(&["name", "device", "flags"])?;
        let name_at = o.req("name")?;
        let name = name_at.str()?.to_string();
        if name == "null" || name.is_empty() {
            return Err(
                name_at.err("`null` (or empty) names the null stream; choose another stream name")
            );
        }
        if self.stream_ix.contains_key(&name) {
            return Err(name_at.err(format!("duplicate stream `{name}`")));
        }
        let gpu = self.device(&o, "device")?.unwrap_or(0);
        self.stream_ix
            .insert(name.clone(), self.streams.len() as u32);
        self.streams.push(StreamDef {
            name,
            gpu,
            flags: o.opt_u32("flags")?.unwrap_or(0),
        });
        Ok(())
    }

    fn device(&self, o: &Obj, key: &str) -> Result<Option<u32>, ScenarioError> {
        match o.get(key) {
            None => Ok(None),
            Some(d) => {
                let g = d.u32()?;
                if g >= self.n_gpus {
                    return Err(d.err(format!(
                        "device {g} does not exist (the scenario has {} GPUs)",
                        self.n_gpus
                    )));
                }
                Ok(Some(g))
            }
        }
    }

    fn thread(&mut self, at: &At, index: usize) -> Result<ThreadDef, ScenarioError> {
        let o = at.obj()?;
        o.only(&[
            "name",
            "device",
            "start_us",
            "gap_us",
            "real_delay_ms",
            "count",
            "calls",
        ])?;
        let name = match o.opt_str("name")? {
            Some(n) => n.to_string(),
            None => format!("thread{index}"),
        };
        let calls = match o.get("calls") {
            Some(c) => self.calls(&c)?,
            None => Vec::new(),
        };
        Ok(ThreadDef {
            name,
            device: self.device(&o, "device")?.unwrap_or(0),
            start_ns: o.opt_us("start_us")?.unwrap_or(0),
            gap_ns: o.opt_us("gap_us")?,
            real_delay_ms: o.opt_u64("real_delay_ms")?.unwrap_or(0),
            calls,
        })
    }

    fn calls(&mut self, at: &At) -> Result<Vec<Call>, ScenarioError> {
        let mut v = Vec::new();
        for c in at.array()? {
            v.push(self.call(&c)?);
        }
        Ok(v)
    }

    fn stream_ref(&self, o: &Obj) -> Result<StreamRef, ScenarioError> {
        match o.get("stream") {
            None => Ok(None),
            Some(s) => {
                if !s.is_str() && s.int().ok() == Some(0) {
                    return Ok(None);
                }
                let n = s.str()?;
                if n == "null" || n.is_empty() {
                    return Ok(None);
                }
                self.stream_ix
                    .get(n)
                    .copied()
                    .map(Some)
                    .ok_or_else(|| unknown(&s, "stream", n, &self.stream_ix))
            }
        }
    }

    fn named_stream(&self, o: &Obj) -> Result<u32, ScenarioError> {
        match self.stream_ref(o)? {
            Some(s) => Ok(s),
            None => Err(o
                .req("stream")?
                .err("a named stream is required here (not the null stream)")),
        }
    }

    fn event_ref(&mut self, o: &Obj) -> Result<u32, ScenarioError> {
        let e = o.req("event")?;
        let n = e.str()?;
        Ok(intern(&mut self.events, &mut self.event_ix, n))
    }

    fn text(o: &Obj, key: &str) -> Result<Text, ScenarioError> {
        let t = o.req(key)?.str()?.to_string();
        let dynamic = t.contains("{i}") || t.contains("{n}");
        Ok(Text { text: t, dynamic })
    }

    fn call(&mut self, at: &At) -> Result<Call, ScenarioError> {
        let o = at.obj()?;
        let (line, column) = at.position();
        let src = self.srcs.len() as u32;
        self.srcs.push(SrcLoc {
            line,
            column,
            path: at.path.clone(),
        });
        let id = self.n_calls;
        self.n_calls += 1;

        if let Some(r) = o.get("repeat") {
            o.only(&["repeat", "calls"])?;
            let n = r.u64()?;
            let calls = self.calls(&o.req("calls")?)?;
            return Ok(Call {
                op: Op::Repeat { n, calls },
                src,
                host_ns: None,
                gap_ns: None,
                id,
            });
        }
        let op_at = o
            .get("op")
            .ok_or_else(|| at.err("a call needs `op = \"...\"` (or `repeat = N` with `calls`)"))?;
        let op_name = op_at.str()?;
        let common = ["op", "host_us", "gap_us"];
        let allow = |extra: &[&str]| -> Result<(), ScenarioError> {
            let mut all: Vec<&str> = common.to_vec();
            all.extend_from_slice(extra);
            o.only(&all)
        };
        let api_or = |default: &str| -> Result<String, ScenarioError> {
            Ok(o.opt_str("api")?
                .map(str::to_string)
                .unwrap_or_else(|| default.to_string()))
        };
        let op = match canonical_op(op_name) {
            Some("launch") => {
                allow(&[
                    "kernel", "grid", "block", "dyn_lds", "stream", "dur_us", "api",
                ])?;
                let kernel = self.kernel_ref(&o.req("kernel")?)?;
                let kd = &self.kernels[kernel as usize];
                let grid = o.opt_dim3("grid")?.unwrap_or(kd.grid);
                let block = o.opt_dim3("block")?.unwrap_or(kd.block);
                check_grid(&o, grid, block)?;
                Op::Launch {
                    kernel,
                    api: api_or("hipLaunchKernel")?,
                    grid,
                    block,
                    dyn_lds: o
                        .opt_bytes("dyn_lds")?
                        .map(|b| to_u32(&o, "dyn_lds", b))
                        .transpose()?
                        .unwrap_or(0),
                    stream: self.stream_ref(&o)?,
                    dur_ns: o.opt_us("dur_us")?.map(|d| d.max(1)),
                }
            }
            Some("graph") => {
                allow(&["graph", "stream", "api"])?;
                let g = o.req("graph")?;
                let n = g.str()?;
                let graph = self
                    .graph_ix
                    .get(n)
                    .copied()
                    .ok_or_else(|| unknown(&g, "graph", n, &self.graph_ix))?;
                Op::Graph {
                    graph,
                    api: api_or("hipGraphLaunch")?,
                    stream: self.stream_ref(&o)?,
                }
            }
            Some("memcpy") => {
                allow(&[
                    "kind",
                    "bytes",
                    "stream",
                    "sync",
                    "src_device",
                    "dst_device",
                    "dur_us",
                    "api",
                    "src_buffer",
                    "dst_buffer",
                ])?;
                let k = o.req("kind")?;
                let kind = match k.str()?.to_ascii_lowercase().as_str() {
                    "h2h" | "hosttohost" => CopyKind::H2H,
                    "h2d" | "hosttodevice" => CopyKind::H2D,
                    "d2h" | "devicetohost" => CopyKind::D2H,
                    "d2d" | "devicetodevice" => CopyKind::D2D,
                    "peer" => CopyKind::Peer,
                    other => {
                        return Err(k.err(format!(
                            "unknown copy kind `{other}`; use h2d, d2h, d2d, h2h or peer"
                        )))
                    }
                };
                let stream = self.stream_ref(&o)?;
                let sync = o.opt_bool("sync")?.unwrap_or(stream.is_none());
                let src_dev = self.device(&o, "src_device")?;
                let dst_dev = self.device(&o, "dst_device")?;
                match kind {
                    CopyKind::Peer if src_dev.is_none() || dst_dev.is_none() => {
                        return Err(at.err("a peer copy needs both `src_device` and `dst_device`"))
                    }
                    CopyKind::H2H | CopyKind::H2D if src_dev.is_some() => {
                        return Err(o
                            .req("src_device")?
                            .err("the source of this copy is host memory"))
                    }
                    CopyKind::H2H | CopyKind::D2H if dst_dev.is_some() => {
                        return Err(o
                            .req("dst_device")?
                            .err("the destination of this copy is host memory"))
                    }
                    _ => {}
                }
                let default_api = match (kind, sync, stream.is_some()) {
                    (CopyKind::Peer, true, _) => "hipMemcpyPeer",
                    (CopyKind::Peer, false, _) => "hipMemcpyPeerAsync",
                    (_, true, true) => "hipMemcpyWithStream",
                    (_, true, false) => "hipMemcpy",
                    (_, false, _) => "hipMemcpyAsync",
                };
                Op::Memcpy {
                    kind,
                    api: api_or(default_api)?,
                    bytes: o.req("bytes")?.bytes()?,
                    stream,
                    sync,
                    src_dev,
                    dst_dev,
                    dur_ns: o.opt_us("dur_us")?.map(|d| d.max(1)),
                    src_buffer: o.opt_str("src_buffer")?.map(str::to_string),
                    dst_buffer: o.opt_str("dst_buffer")?.map(str::to_string),
                }
            }
            Some("malloc") => {
                allow(&["buffer", "kind", "bytes", "stream"])?;
                let kind = match o.opt_str("kind")?.unwrap_or("device") {
                    "device" => AllocKind::Device,
                    "pinned" => AllocKind::Pinned,
                    "managed" => AllocKind::Managed,
                    "registered" => AllocKind::Registered,
                    "async" => AllocKind::Async,
                    other => {
                        return Err(o.req("kind")?.err(format!(
                            "unknown allocation kind `{other}`; use device, pinned, managed, registered or async"
                        )))
                    }
                };
                Op::Malloc {
                    buffer: o.req("buffer")?.str()?.to_string(),
                    kind,
                    bytes: o.req("bytes")?.bytes()?,
                    stream: self.stream_ref(&o)?,
                }
            }
            Some("free") => {
                allow(&["buffer", "stream"])?;
                Op::Free {
                    buffer: o.req("buffer")?.str()?.to_string(),
                    stream: self.stream_ref(&o)?,
                }
            }
            Some("memset") => {
                allow(&["bytes", "value", "stream", "sync", "dur_us", "api"])?;
                self.uses_memset = true;
                let stream = self.stream_ref(&o)?;
                let sync = o.opt_bool("sync")?.unwrap_or(stream.is_none());
                Op::Memset {
                    api: api_or(if sync { "hipMemset" } else { "hipMemsetAsync" })?,
                    bytes: o.req("bytes")?.bytes()?,
                    value: o.get("value").map(|v| v.i32()).transpose()?.unwrap_or(0),
                    stream,
                    sync,
                    dur_ns: o.opt_us("dur_us")?.map(|d| d.max(1)),
                }
            }
            Some("event_record") => {
                allow(&["event", "stream"])?;
                Op::EventRecord {
                    event: self.event_ref(&o)?,
                    stream: self.stream_ref(&o)?,
                }
            }
            Some("stream_wait_event") => {
                allow(&["event", "stream", "flags"])?;
                Op::StreamWaitEvent {
                    stream: self.stream_ref(&o)?,
                    event: self.event_ref(&o)?,
                    flags: o.opt_u32("flags")?.unwrap_or(0),
                }
            }
            Some("event_sync") => {
                allow(&["event"])?;
                Op::EventSync {
                    event: self.event_ref(&o)?,
                }
            }
            Some("stream_sync") => {
                allow(&["stream"])?;
                Op::StreamSync {
                    stream: self.stream_ref(&o)?,
                }
            }
            Some("device_sync") => {
                allow(&[])?;
                Op::DeviceSync
            }
            Some("set_device") => {
                allow(&["device"])?;
                o.req("device")?;
                Op::SetDevice(self.device(&o, "device")?.unwrap_or(0))
            }
            Some("stream_create") => {
                allow(&["stream"])?;
                Op::StreamCreate(self.named_stream(&o)?)
            }
            Some("stream_destroy") => {
                allow(&["stream"])?;
                Op::StreamDestroy(self.named_stream(&o)?)
            }
            Some("mark") => {
                allow(&["msg"])?;
                Op::Mark(Self::text(&o, "msg")?)
            }
            Some("push") => {
                allow(&["msg"])?;
                Op::Push(Self::text(&o, "msg")?)
            }
            Some("pop") => {
                allow(&[])?;
                Op::Pop
            }
            Some("range_start") => {
                allow(&["msg", "key"])?;
                let msg = Self::text(&o, "msg")?;
                let key_name = o.opt_str("key")?.unwrap_or(&msg.text).to_string();
                Op::RangeStart {
                    msg,
                    key: intern(&mut self.range_keys, &mut self.range_ix, &key_name),
                }
            }
            Some("range_stop") => {
                allow(&["key"])?;
                let key_name = o.req("key")?.str()?;
                Op::RangeStop {
                    key: intern(&mut self.range_keys, &mut self.range_ix, key_name),
                }
            }
            Some("ext_push") => {
                allow(&["id", "step"])?;
                Op::ExtPush {
                    base: o.req("id")?.u64()?,
                    step: o.opt_u64("step")?.unwrap_or(0),
                }
            }
            Some("ext_pop") => {
                allow(&[])?;
                Op::ExtPop
            }
            Some("sleep") => {
                allow(&["us"])?;
                Op::Sleep(o.req("us")?.us_to_ns()?)
            }
            Some("api") => {
                allow(&["name"])?;
                let n = o.req("name")?.str()?;
                if n.is_empty() {
                    return Err(o.req("name")?.err("API name must not be empty"));
                }
                Op::Api(n.to_string())
            }
            Some("load") => {
                allow(&["code_object"])?;
                let c = o.req("code_object")?;
                let n = c.str()?;
                let co = self
                    .co_ix
                    .get(n)
                    .copied()
                    .ok_or_else(|| unknown(&c, "code object", n, &self.co_ix))?;
                if !self.code_objects[co as usize].lazy {
                    return Err(c.err(format!(
                        "code object `{n}` is loaded at start-up; mark it `lazy = true` to load it with this call"
                    )));
                }
                Op::Load(co)
            }
            _ => {
                let hint = closest(op_name, OP_NAMES)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                return Err(op_at.err(format!(
                    "unknown op `{op_name}`{hint}; ops: {}",
                    OP_NAMES.join(", ")
                )));
            }
        };
        Ok(Call {
            op,
            src,
            host_ns: o.opt_us("host_us")?.map(|d| d.max(1)),
            gap_ns: o.opt_us("gap_us")?,
            id,
        })
    }
}

const OP_NAMES: &[&str] = &[
    "malloc",
    "free",
    "launch",
    "graph",
    "memcpy",
    "memset",
    "event_record",
    "stream_wait_event",
    "event_sync",
    "stream_sync",
    "device_sync",
    "set_device",
    "stream_create",
    "stream_destroy",
    "mark",
    "push",
    "pop",
    "range_start",
    "range_stop",
    "ext_push",
    "ext_pop",
    "sleep",
    "api",
    "load",
];

/// Op names, plus the HIP / roctx function names as aliases.
fn canonical_op(name: &str) -> Option<&'static str> {
    if let Some(n) = OP_NAMES.iter().find(|n| **n == name) {
        return Some(n);
    }
    Some(match name {
        "hipLaunchKernel" => "launch",
        "hipGraphLaunch" => "graph",
        "hipMemcpy" | "hipMemcpyAsync" => "memcpy",
        "hipMemset" | "hipMemsetAsync" => "memset",
        "hipEventRecord" => "event_record",
        "hipStreamWaitEvent" => "stream_wait_event",
        "hipEventSynchronize" => "event_sync",
        "hipStreamSynchronize" => "stream_sync",
        "hipDeviceSynchronize" => "device_sync",
        "hipSetDevice" => "set_device",
        "hipStreamCreate" => "stream_create",
        "hipStreamDestroy" => "stream_destroy",
        "roctxMarkA" => "mark",
        "roctxRangePushA" => "push",
        "roctxRangePop" => "pop",
        "roctxRangeStartA" => "range_start",
        "roctxRangeStop" => "range_stop",
        _ => return None,
    })
}

fn strip_kd(name: &str) -> String {
    name.strip_suffix(".kd").unwrap_or(name).to_string()
}

fn to_u32(o: &Obj, key: &str, v: u64) -> Result<u32, ScenarioError> {
    u32::try_from(v).map_err(|_| {
        o.get(key)
            .expect("present")
            .err(format!("{v} does not fit 32 bits"))
    })
}

/// The dispatch packet stores the grid in work-items as 32-bit values.
fn check_grid(o: &Obj, grid: [u32; 3], block: [u32; 3]) -> Result<(), ScenarioError> {
    for d in 0..3 {
        if u64::from(grid[d]) * u64::from(block[d]) > u64::from(u32::MAX) {
            let at = o.get("grid").unwrap_or_else(|| o.at.clone());
            return Err(at.err(format!(
                "grid × block in dimension {d} exceeds 2^32 work-items"
            )));
        }
    }
    let threads: u64 = block.iter().map(|&b| u64::from(b)).product();
    if threads > 1024 {
        let at = o.get("block").unwrap_or_else(|| o.at.clone());
        return Err(at.err(format!(
            "a block of {threads} work-items exceeds the limit of 1024"
        )));
    }
    Ok(())
}

/// Host calls a call list expands to (saturating), counting a repeat's body N times.
pub(crate) fn expanded_calls(calls: &[Call]) -> u64 {
    calls
        .iter()
        .map(|c| match &c.op {
            Op::Repeat { n, calls } => n.saturating_mul(expanded_calls(calls)),
            _ => 1,
        })
        .fold(0, u64::saturating_add)
}

fn gpu(at: &At) -> Result<GpuDef, ScenarioError> {
    let o = at.obj()?;
    o.only(&[
        "preset",
        "name",
        "product_name",
        "model_name",
        "cu_count",
        "simd_per_cu",
        "wave_front_size",
        "max_waves_per_cu",
        "max_engine_clk_mhz",
        "num_xcc",
        "lds_size_in_kb",
        "memory",
        "gfx_target_version",
        "vendor_id",
        "device_id",
        "queues",
        "h2d_gbps",
        "d2h_gbps",
        "h2h_gbps",
        "d2d_gbps",
        "peer_gbps",
        "memset_gbps",
        "max_concurrent_kernels",
    ])?;
    let p = o.req("preset")?;
    let pname = p.str()?;
    let mut g = preset(pname).ok_or_else(|| {
        let hint = closest(pname, PRESET_NAMES)
            .map(|c| format!(" (did you mean `{c}`?)"))
            .unwrap_or_default();
        p.err(format!(
            "unknown GPU preset `{pname}`{hint}; presets: {}",
            PRESET_NAMES.join(", ")
        ))
    })?;
    let s = &mut g.spec;
    if let Some(v) = o.opt_str("name")? {
        s.name = v.into();
    }
    if let Some(v) = o.opt_str("product_name")? {
        s.product_name = v.into();
    }
    if let Some(v) = o.opt_str("model_name")? {
        s.model_name = v.into();
    }
    for (key, field) in [
        ("cu_count", &mut s.cu_count),
        ("simd_per_cu", &mut s.simd_per_cu),
        ("wave_front_size", &mut s.wave_front_size),
        ("max_waves_per_cu", &mut s.max_waves_per_cu),
        ("max_engine_clk_mhz", &mut s.max_engine_clk_mhz),
        ("num_xcc", &mut s.num_xcc),
        ("lds_size_in_kb", &mut s.lds_size_in_kb),
        ("gfx_target_version", &mut s.gfx_target_version),
        ("queues", &mut s.queues),
    ] {
        if let Some(v) = o.opt_u32(key)? {
            *field = v;
        }
    }
    if s.queues == 0 {
        return Err(o.req("queues")?.err("a GPU needs at least one queue"));
    }
    if let Some(v) = o.opt_bytes("memory")? {
        s.local_mem_bytes = v;
    }
    if let Some(a) = o.get("memory_reported_in") {
        s.memory_in_banks = match a.str()? {
            "local_mem_size" => false,
            "mem_banks" => true,
            other => {
                return Err(a.err(format!(
                    "memory_reported_in = {other:?}: expected \"local_mem_size\" or \"mem_banks\""
                )))
            }
        };
    }
    for (key, field) in [
        ("vendor_id", &mut s.vendor_id),
        ("device_id", &mut s.device_id),
    ] {
        if let Some(a) = o.get(key) {
            let v = a.int()?;
            *field = u16::try_from(v).map_err(|_| a.err(format!("{v} does not fit 16 bits")))?;
        }
    }
    for (key, field) in [
        ("h2d_gbps", &mut g.h2d_gbps),
        ("d2h_gbps", &mut g.d2h_gbps),
        ("h2h_gbps", &mut g.h2h_gbps),
        ("d2d_gbps", &mut g.d2d_gbps),
        ("peer_gbps", &mut g.peer_gbps),
        ("memset_gbps", &mut g.memset_gbps),
    ] {
        if let Some(a) = o.get(key) {
            let v = a.nonneg()?;
            if v <= 0.0 {
                return Err(a.err("bandwidth must be > 0"));
            }
            *field = v;
        }
    }
    if let Some(v) = o.opt_u32("max_concurrent_kernels")? {
        g.max_concurrent_kernels = v;
    }
    Ok(g)
}

fn delivery_section(o: &Obj, seed: u64) -> Result<DeliveryModel, ScenarioError> {
    o.only(&[
        "seed",
        "shuffle_window",
        "api_order",
        "delivery_delay_us",
        "buffer_size_override",
        "force_policy",
        "real_time",
    ])?;
    let real_time = match o.get("real_time") {
        None => 0.0,
        Some(a) => {
            let v = a.nonneg()?;
            if v > 1000.0 {
                return Err(
                    a.err("real_time is a factor of wall time per simulated time, at most 1000")
                );
            }
            v
        }
    };
    let api_order = match o.get("api_order") {
        None => ApiOrder::Natural,
        Some(a) => match a.str()? {
            "natural" => ApiOrder::Natural,
            "activities_first" => ApiOrder::ActivitiesFirst,
            "api_last" => ApiOrder::ApiLast,
            other => {
                return Err(a.err(format!(
                    "unknown api_order `{other}`; use natural, activities_first or api_last"
                )))
            }
        },
    };
    let force_policy = match o.get("force_policy") {
        None => None,
        Some(a) => Some(match a.str()? {
            "discard" => BufferPolicy::Discard,
            "lossless" => BufferPolicy::Lossless,
            other => {
                return Err(a.err(format!(
                    "unknown force_policy `{other}`; use discard or lossless"
                )))
            }
        }),
    };
    Ok(DeliveryModel {
        seed: o.opt_u64("seed")?.unwrap_or(seed),
        shuffle_window: o.opt_u64("shuffle_window")?.unwrap_or(0) as usize,
        api_order,
        delivery_delay_us: o.opt_u64("delivery_delay_us")?.unwrap_or(0),
        buffer_size_override: o.opt_bytes("buffer_size_override")?.map(|b| b as usize),
        force_policy,
        real_time,
    })
}

/// A kernel's floating-point work and memory traffic per dispatch (`flops`, `precision`,
/// `mfma`, `read_bytes`, `write_bytes`; all optional).
fn kernel_work(o: &Obj<'_, '_>) -> Result<crate::plan::KernelWork, ScenarioError> {
    let precision = match o.get("precision") {
        None => crate::plan::Precision::default(),
        Some(at) => {
            let p = at.str()?;
            crate::plan::Precision::parse(p).ok_or_else(|| {
                at.err(format!(
                    "precision `{p}`: expected one of f16, bf16, f32, f64"
                ))
            })?
        }
    };
    Ok(crate::plan::KernelWork {
        flops: o.opt_u64("flops")?.unwrap_or(0),
        precision,
        mfma: o.opt_bool("mfma")?.unwrap_or(false),
        read_bytes: o.opt_bytes("read_bytes")?.unwrap_or(0),
        write_bytes: o.opt_bytes("write_bytes")?.unwrap_or(0),
    })
}
