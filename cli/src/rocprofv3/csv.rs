//! The CSV files of one rocprofv3 run, read together: `<prefix>kernel_trace.csv`,
//! `<prefix>hip_api_trace.csv`, `<prefix>memory_copy_trace.csv`, `<prefix>marker_api_trace.csv`
//! and `<prefix>agent_info.csv`, whichever of them is given and whichever are beside it.
//!
//! Two writers of these files are known, each a [`Dialect`] mapped column by column:
//! rocprofv3's own CSV output (`--output-format csv`) and `rocpd2csv` (a rocpd database
//! exported), which adds a leading `Guid` column and, in ROCm 7.1.1, spells the kernel
//! trace's register and LDS columns differently (`Lds_Block_Size`, `Vgpr_Count`,
//! `Accum_Vgpr_Count`, `Sgpr_Count`). Every column of the dialect must be there (extra columns
//! are ignored, order does not matter); a header that matches no dialect is refused naming
//! the columns missing from the nearest one.
//!
//! What the files do not carry (docs/convert.md, "What each format carries"): agents are named
//! by index (`Agent 1`, rocprofv3's absolute index = the KFD node id) and described only by
//! `agent_info.csv` when it is there (which has no memory banks: a GPU that reports its memory
//! only there shows none); copies have no byte count; no external correlation ids; a kernel's
//! LDS is one figure (rocprofv3: the symbol's static LDS rounded up to its 512-byte
//! allocation granule, no dynamic LDS; rocpd2csv: the dispatch's, no static part); calls have
//! no arguments, so there are no synchronization facts (no dependency arrows); a roctx row does
//! not name its operation; no host name and no process start and end times.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::calls::Roctx;
use super::{err, BadValue, Builder, ConvertError, Place, RowIssues};
use rocprof_xplane_core::model::events::{
    AgentInfo, AgentType, ApiDomain, ApiRecord, Collected, CopyRecord, CounterValue, KernelRecord,
    KernelSymbol,
};

/// The files of a run, by the suffix rocprofv3 gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Kernel,
    Hip,
    Copy,
    Marker,
    Agents,
    /// `--pmc`'s per-dispatch counters: one row per counter and dispatch.
    Counters,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::Kernel,
        Kind::Hip,
        Kind::Copy,
        Kind::Marker,
        Kind::Agents,
        Kind::Counters,
    ];

    fn suffix(self) -> &'static str {
        match self {
            Kind::Kernel => "kernel_trace.csv",
            Kind::Hip => "hip_api_trace.csv",
            Kind::Copy => "memory_copy_trace.csv",
            Kind::Marker => "marker_api_trace.csv",
            Kind::Agents => "agent_info.csv",
            Kind::Counters => "counter_collection.csv",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Kind::Kernel => "kernel trace",
            Kind::Hip => "HIP API trace",
            Kind::Copy => "memory copy trace",
            Kind::Marker => "marker (roctx) trace",
            Kind::Agents => "agent info",
            Kind::Counters => "counter collection",
        }
    }
}

/// A column as this reader names it; each dialect spells it its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Col {
    RecordKind,
    AgentId,
    QueueId,
    StreamId,
    ThreadId,
    DispatchId,
    KernelId,
    KernelName,
    CorrelationId,
    Start,
    End,
    Lds,
    Scratch,
    Vgpr,
    Agpr,
    Sgpr,
    WgX,
    WgY,
    WgZ,
    GridX,
    GridY,
    GridZ,
    Domain,
    Function,
    ProcessId,
    Direction,
    SrcAgent,
    DstAgent,
    NodeId,
    AgentType,
    CuCount,
    SimdPerCu,
    WaveFrontSize,
    MaxWavesPerCu,
    MaxWavesPerSimd,
    MaxClock,
    LocalMemSize,
    GfxTargetVersion,
    Name,
    VendorName,
    ProductName,
    CounterName,
    CounterValue,
}

/// rocprofv3's spelling of each column; dialects differ from it in a few.
fn rocprofv3_name(c: Col) -> &'static str {
    match c {
        Col::RecordKind => "Kind",
        Col::AgentId => "Agent_Id",
        Col::QueueId => "Queue_Id",
        Col::StreamId => "Stream_Id",
        Col::ThreadId => "Thread_Id",
        Col::DispatchId => "Dispatch_Id",
        Col::KernelId => "Kernel_Id",
        Col::KernelName => "Kernel_Name",
        Col::CorrelationId => "Correlation_Id",
        Col::Start => "Start_Timestamp",
        Col::End => "End_Timestamp",
        Col::Lds => "LDS_Block_Size",
        Col::Scratch => "Scratch_Size",
        Col::Vgpr => "VGPR_Count",
        Col::Agpr => "Accum_VGPR_Count",
        Col::Sgpr => "SGPR_Count",
        Col::WgX => "Workgroup_Size_X",
        Col::WgY => "Workgroup_Size_Y",
        Col::WgZ => "Workgroup_Size_Z",
        Col::GridX => "Grid_Size_X",
        Col::GridY => "Grid_Size_Y",
        Col::GridZ => "Grid_Size_Z",
        Col::Domain => "Domain",
        Col::Function => "Function",
        Col::ProcessId => "Process_Id",
        Col::Direction => "Direction",
        Col::SrcAgent => "Source_Agent_Id",
        Col::DstAgent => "Destination_Agent_Id",
        Col::NodeId => "Node_Id",
        Col::AgentType => "Agent_Type",
        Col::CuCount => "Cu_Count",
        Col::SimdPerCu => "Simd_Per_Cu",
        Col::WaveFrontSize => "Wave_Front_Size",
        Col::MaxWavesPerCu => "Max_Waves_Per_Cu",
        Col::MaxWavesPerSimd => "Max_Waves_Per_Simd",
        Col::MaxClock => "Max_Engine_Clk_Fcompute",
        Col::LocalMemSize => "Local_Mem_Size",
        Col::GfxTargetVersion => "Gfx_Target_Version",
        Col::Name => "Name",
        Col::VendorName => "Vendor_Name",
        Col::ProductName => "Product_Name",
        Col::CounterName => "Counter_Name",
        Col::CounterValue => "Counter_Value",
    }
}

/// The columns each file has (the agent-info file has many more; these are read).
fn columns(kind: Kind) -> &'static [Col] {
    use Col::*;
    match kind {
        Kind::Kernel => &[
            RecordKind,
            AgentId,
            QueueId,
            StreamId,
            ThreadId,
            DispatchId,
            KernelId,
            KernelName,
            CorrelationId,
            Start,
            End,
            Lds,
            Scratch,
            Vgpr,
            Agpr,
            Sgpr,
            WgX,
            WgY,
            WgZ,
            GridX,
            GridY,
            GridZ,
        ],
        Kind::Hip | Kind::Marker => &[
            Domain,
            Function,
            ProcessId,
            ThreadId,
            CorrelationId,
            Start,
            End,
        ],
        Kind::Copy => &[
            RecordKind,
            Direction,
            StreamId,
            SrcAgent,
            DstAgent,
            CorrelationId,
            Start,
            End,
        ],
        Kind::Agents => &[
            NodeId,
            AgentType,
            CuCount,
            SimdPerCu,
            WaveFrontSize,
            MaxWavesPerCu,
            MaxWavesPerSimd,
            MaxClock,
            LocalMemSize,
            GfxTargetVersion,
            Name,
            VendorName,
            ProductName,
        ],
        Kind::Counters => &[DispatchId, AgentId, CounterName, CounterValue],
    }
}

/// A known writer of these files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// rocprofv3's own CSV output.
    Rocprofv3,
    /// `rocpd2csv` as in ROCm 7.1.1 (a real MI300A export): a leading `Guid` column and
    /// title-case register and LDS columns in the kernel trace.
    Rocpd2csv,
    /// `rocpd2csv` as the upstream source writes it: a leading `Guid`, rocprofv3's spellings.
    Rocpd2csvUpstream,
}

impl Dialect {
    const ALL: [Dialect; 3] = [
        Dialect::Rocprofv3,
        Dialect::Rocpd2csv,
        Dialect::Rocpd2csvUpstream,
    ];

    fn name(self) -> &'static str {
        match self {
            Dialect::Rocprofv3 => "rocprofv3 CSV",
            Dialect::Rocpd2csv => "rocpd2csv (ROCm 7.1)",
            Dialect::Rocpd2csvUpstream => "rocpd2csv",
        }
    }

    fn has_guid(self) -> bool {
        self != Dialect::Rocprofv3
    }

    /// This dialect's spelling of `c`.
    fn spell(self, c: Col) -> &'static str {
        match (self, c) {
            (Dialect::Rocpd2csv, Col::Lds) => "Lds_Block_Size",
            (Dialect::Rocpd2csv, Col::Vgpr) => "Vgpr_Count",
            (Dialect::Rocpd2csv, Col::Agpr) => "Accum_Vgpr_Count",
            (Dialect::Rocpd2csv, Col::Sgpr) => "Sgpr_Count",
            _ => rocprofv3_name(c),
        }
    }
}

/// Whether `head` (the first bytes of `path`) is a CSV file of a rocprofv3 run.
pub fn is_rocprofv3_csv(path: &Path, head: &[u8]) -> bool {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let named = split_name(path).is_some();
    let header =
        line.contains("Kernel_Name") || line.contains("Correlation_Id") || line.contains("Node_Id");
    header && (named || line.trim_start().starts_with('"'))
}

/// `(prefix, kind)` of a file named `<prefix><suffix>`.
fn split_name(path: &Path) -> Option<(String, Kind)> {
    let name = path.file_name()?.to_str()?;
    Kind::ALL.into_iter().find_map(|k| {
        name.strip_suffix(k.suffix())
            .map(|prefix| (prefix.to_string(), k))
    })
}

/// One file's rows, with where each column of its dialect is.
struct Table {
    path: PathBuf,
    dialect: Dialect,
    index: HashMap<Col, usize>,
    rows: Vec<(u64, ::csv::StringRecord)>,
}

impl Table {
    fn read(path: &Path, kind: Kind) -> Result<Table, ConvertError> {
        crate::files::check_regular(path).map_err(|why| err(path, why))?;
        let f = std::fs::File::open(path).map_err(|e| err(path, e.to_string()))?;
        let mut r = ::csv::ReaderBuilder::new()
            .flexible(false)
            .from_reader(super::open_maybe_gz(path, f, true)?);
        let headers: Vec<String> = r
            .headers()
            .map_err(|e| err(path, format!("unreadable CSV header: {e}")))?
            .iter()
            .map(|h| h.trim().to_string())
            .collect();
        if headers.iter().all(String::is_empty) {
            return Err(err(path, "an empty file: no CSV header"));
        }
        let (dialect, index) = dialect_columns(path, kind, &headers)?;
        let mut rows = Vec::new();
        for rec in r.records() {
            let rec = rec.map_err(|e| err(path, csv_error(&e, headers.len())))?;
            let line = rec.position().map_or(0, |p| p.line());
            rows.push((line, rec));
        }
        if rows.is_empty() {
            return Err(err(
                path,
                format!(
                    "a {} with a header and no rows (rocprofv3 writes no file for a kind it \
                     recorded none of: a truncated file?)",
                    kind.what()
                ),
            ));
        }
        Ok(Table {
            path: path.to_path_buf(),
            dialect,
            index,
            rows,
        })
    }
}

/// A CSV reading error as one line: a row whose field count differs from the header's is a
/// malformed or truncated file.
fn csv_error(e: &::csv::Error, header_fields: usize) -> String {
    match e.kind() {
        ::csv::ErrorKind::UnequalLengths { pos, len, .. } => format!(
            "line {}: {len} fields where the header has {header_fields} (a malformed or \
             truncated file)",
            pos.as_ref().map_or(0, |p| p.line())
        ),
        ::csv::ErrorKind::Utf8 { pos, .. } => format!(
            "line {}: not UTF-8 text",
            pos.as_ref().map_or(0, |p| p.line())
        ),
        _ => format!("unreadable CSV: {e}"),
    }
}

/// The dialect whose columns `headers` has, with the column positions; refused naming the
/// columns missing from the nearest dialect when none matches.
fn dialect_columns(
    path: &Path,
    kind: Kind,
    headers: &[String],
) -> Result<(Dialect, HashMap<Col, usize>), ConvertError> {
    let pos = |name: &str| headers.iter().position(|h| h == name);
    let mut nearest: Option<(Dialect, Vec<&'static str>)> = None;
    for d in Dialect::ALL {
        if d.has_guid() != (headers.first().map(String::as_str) == Some("Guid")) {
            continue;
        }
        let missing: Vec<&'static str> = columns(kind)
            .iter()
            .map(|&c| d.spell(c))
            .filter(|n| pos(n).is_none())
            .collect();
        if missing.is_empty() {
            let index = columns(kind)
                .iter()
                .map(|&c| (c, pos(d.spell(c)).unwrap_or_default()))
                .collect();
            return Ok((d, index));
        }
        if nearest
            .as_ref()
            .is_none_or(|(_, m)| missing.len() < m.len())
        {
            nearest = Some((d, missing));
        }
    }
    let (d, missing) = nearest.unwrap_or((Dialect::Rocprofv3, Vec::new()));
    Err(err(
        path,
        format!(
            "a {} whose columns match no known dialect: {} (nearest: {}); the dialects read \
             are {}",
            kind.what(),
            if missing.is_empty() {
                "a leading Guid column is not expected".to_string()
            } else {
                format!("no {} column", missing.join(", "))
            },
            d.name(),
            Dialect::ALL.map(Dialect::name).join(", ")
        ),
    ))
}

/// A row being read: its values by column, bad values recorded in `issues`.
struct Row<'a> {
    t: &'a Table,
    line: u64,
    rec: &'a ::csv::StringRecord,
    bad: Option<BadValue>,
}

impl<'a> Row<'a> {
    fn text(&self, c: Col) -> &'a str {
        self.rec.get(self.t.index[&c]).unwrap_or_default().trim()
    }

    fn fail(&mut self, c: Col, expected: &'static str) {
        if self.bad.is_none() {
            self.bad = Some(BadValue {
                place: Place {
                    file: self.t.path.clone(),
                    at: format!("line {}", self.line),
                },
                column: rocprofv3_name(c).to_string(),
                value: self.text(c).to_string(),
                expected,
            });
        }
    }

    fn u64(&mut self, c: Col) -> u64 {
        match self.text(c).parse::<u64>() {
            Ok(v) => v,
            Err(_) => {
                self.fail(c, "an unsigned integer");
                0
            }
        }
    }

    fn u32(&mut self, c: Col) -> u32 {
        let v = self.u64(c);
        u32::try_from(v).unwrap_or_else(|_| {
            self.fail(c, "a 32-bit unsigned integer");
            0
        })
    }

    fn f64(&mut self, c: Col) -> f64 {
        match self.text(c).parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                self.fail(c, "a number");
                0.0
            }
        }
    }

    /// `Agent 4` → 4.
    fn agent(&mut self, c: Col) -> u64 {
        match self
            .text(c)
            .strip_prefix("Agent ")
            .and_then(|n| n.trim().parse::<u64>().ok())
        {
            Some(v) => v,
            None => {
                self.fail(c, "an agent (`Agent <index>`)");
                0
            }
        }
    }
}

/// Walks a table's rows; a row with a bad value is counted in `issues` and skipped.
fn each_row(t: &Table, issues: &mut RowIssues, mut f: impl FnMut(&mut Row<'_>)) {
    for (line, rec) in &t.rows {
        issues.records += 1;
        let mut row = Row {
            t,
            line: *line,
            rec,
            bad: None,
        };
        f(&mut row);
        if let Some(b) = row.bad {
            issues.bad.push(b);
        }
    }
}

/// Like [`each_row`], handing `keep` only the rows without a bad value.
fn good_rows<T>(
    t: &Table,
    issues: &mut RowIssues,
    mut read: impl FnMut(&mut Row<'_>) -> T,
    mut keep: impl FnMut(T),
) {
    each_row(t, issues, |row| {
        let v = read(row);
        if row.bad.is_none() {
            keep(v);
        }
    });
}

/// Reads the run that `path` (any of its CSV files) belongs to.
pub fn read(path: &Path) -> Result<Collected, ConvertError> {
    let (prefix, given) = split_name(path).ok_or_else(|| {
        err(
            path,
            format!(
                "a CSV file not named as rocprofv3 names its files (<prefix>{})",
                Kind::ALL.map(Kind::suffix).join(", <prefix>")
            ),
        )
    })?;
    let mut tables: HashMap<Kind, Table> = HashMap::new();
    for kind in Kind::ALL {
        let p = path.with_file_name(format!("{prefix}{}", kind.suffix()));
        if kind == given || p.is_file() {
            tables.insert(kind, Table::read(&p, kind)?);
        }
    }
    if ![Kind::Kernel, Kind::Hip, Kind::Copy, Kind::Marker]
        .iter()
        .any(|k| tables.contains_key(k))
    {
        return Err(err(
            path,
            format!(
                "a {} file without any trace beside it (no kernel, HIP, memory copy or marker \
                 trace of the same prefix)",
                given.what()
            ),
        ));
    }
    let mut issues = RowIssues::default();
    let mut b = Builder::new(String::new(), 0);
    let agents = tables
        .get(&Kind::Agents)
        .map(|t| agent_info(t, &mut issues))
        .unwrap_or_default();
    let mut agent_ids: BTreeSet<u64> = BTreeSet::new();
    if let Some(t) = tables.get(&Kind::Kernel) {
        kernels(t, &mut b, &mut issues, &mut agent_ids);
    }
    if let Some(t) = tables.get(&Kind::Copy) {
        copies(t, &mut b, &mut issues, &mut agent_ids);
    }
    if let Some(t) = tables.get(&Kind::Hip) {
        api(t, &mut b, &mut issues);
    }
    let mut textless = 0;
    if let Some(t) = tables.get(&Kind::Marker) {
        textless = markers(t, &mut b, &mut issues);
    }
    if let Some(t) = tables.get(&Kind::Counters) {
        counter_values(t, &mut b, &mut issues);
    }
    let warning = issues.settle()?;
    b.c.agents = resolve_agents(agents, &agent_ids);
    // Device ordinals of the streams' work, now that the agents are known.
    let ordinal: HashMap<u64, i32> =
        b.c.agents
            .iter()
            .filter(|a| a.kind == AgentType::Gpu)
            .map(|a| (a.handle, a.type_index))
            .collect();
    let kernel_agent: HashMap<u64, u64> =
        b.c.kernels
            .iter()
            .map(|k| (k.correlation_id, k.agent))
            .chain(b.c.copies.iter().map(|m| {
                let gpu = if ordinal.contains_key(&m.dst_agent) {
                    m.dst_agent
                } else {
                    m.src_agent
                };
                (m.correlation_id, gpu)
            }))
            .collect();
    b.c.calls =
        b.c.calls
            .iter()
            .map(|mut f| {
                f.device = kernel_agent
                    .get(&f.correlation_id)
                    .and_then(|a| ordinal.get(a))
                    .copied()
                    .unwrap_or(-1);
                f
            })
            .collect();
    if textless > 0 {
        b.c.warnings.push(format!(
            "{textless} roctx API rows without a message (push, pop, stop) were not converted: \
             their ranges carry the text"
        ));
    }
    b.c.warnings.extend(warning);
    Ok(b.finish())
}

fn kernels(t: &Table, b: &mut Builder, issues: &mut RowIssues, agent_ids: &mut BTreeSet<u64>) {
    struct K {
        agent: u64,
        stream: u64,
        name: String,
        sym: KernelSymbol,
        rec: KernelRecord,
    }
    good_rows(
        t,
        issues,
        |r| {
            let kernel_id = r.u64(Col::KernelId);
            let scratch = r.u32(Col::Scratch);
            let agent = r.agent(Col::AgentId);
            let lds = r.u32(Col::Lds);
            // rocprofv3 writes the kernel symbol's static LDS rounded up to its 512-byte
            // allocation granule, and no dynamic LDS; rocpd2csv the dispatch's LDS (static and
            // dynamic), and no static part.
            let (static_lds, dispatch_lds) = match t.dialect {
                Dialect::Rocprofv3 => (lds, lds),
                Dialect::Rocpd2csv | Dialect::Rocpd2csvUpstream => (0, lds),
            };
            K {
                agent,
                stream: r.u64(Col::StreamId),
                name: r.text(Col::KernelName).to_string(),
                sym: KernelSymbol {
                    name: "".into(),
                    sgpr_count: r.u32(Col::Sgpr),
                    arch_vgpr_count: r.u32(Col::Vgpr),
                    accum_vgpr_count: r.u32(Col::Agpr),
                    group_segment_size: static_lds,
                    private_segment_size: scratch,
                },
                rec: KernelRecord {
                    correlation_id: r.u64(Col::CorrelationId),
                    external_id: 0,
                    start_ns: r.u64(Col::Start),
                    end_ns: r.u64(Col::End),
                    thread_id: r.u64(Col::ThreadId),
                    agent,
                    queue: r.u64(Col::QueueId),
                    kernel_id,
                    dispatch_id: r.u64(Col::DispatchId),
                    private_segment_size: scratch,
                    group_segment_size: dispatch_lds,
                    workgroup: [r.u32(Col::WgX), r.u32(Col::WgY), r.u32(Col::WgZ)],
                    grid: [r.u32(Col::GridX), r.u32(Col::GridY), r.u32(Col::GridZ)],
                    pipe_id: None,
                },
            }
        },
        |k| {
            agent_ids.insert(k.agent);
            b.symbol(k.rec.kernel_id, &k.name, k.sym);
            if k.rec.correlation_id != 0 {
                b.on_stream(k.rec.correlation_id, k.stream, -1);
            }
            b.c.push_kernel(k.rec);
        },
    );
}

/// `counter_collection.csv`: one value per counter and dispatch (rocprofv3 sums a counter's
/// instances), kept as the tool keeps its per-instance values, which the join sums per dispatch.
fn counter_values(t: &Table, b: &mut Builder, issues: &mut RowIssues) {
    let mut names: HashMap<String, std::sync::Arc<str>> = HashMap::new();
    good_rows(
        t,
        issues,
        |r| {
            (
                r.u64(Col::DispatchId),
                r.agent(Col::AgentId),
                r.text(Col::CounterName).to_string(),
                r.f64(Col::CounterValue),
            )
        },
        |(dispatch_id, agent, name, value)| {
            if name.is_empty() {
                return;
            }
            let counter = names
                .entry(name)
                .or_insert_with_key(|n| std::sync::Arc::from(n.as_str()))
                .clone();
            b.c.counter_values.push(CounterValue {
                dispatch_id,
                agent,
                counter,
                value,
            });
        },
    );
}

fn copies(t: &Table, b: &mut Builder, issues: &mut RowIssues, agent_ids: &mut BTreeSet<u64>) {
    good_rows(
        t,
        issues,
        |r| {
            let op = super::rocpd::copy_op(r.text(Col::Direction));
            if op == 0 {
                r.fail(Col::Direction, "a copy direction (MEMORY_COPY_…)");
            }
            let stream = r.u64(Col::StreamId);
            (
                stream,
                CopyRecord {
                    correlation_id: r.u64(Col::CorrelationId),
                    external_id: 0,
                    start_ns: r.u64(Col::Start),
                    end_ns: r.u64(Col::End),
                    // Not in the file: the copying call's thread and the byte count.
                    thread_id: 0,
                    operation: op,
                    dst_agent: r.agent(Col::DstAgent),
                    src_agent: r.agent(Col::SrcAgent),
                    bytes: 0,
                },
            )
        },
        |(stream, m)| {
            agent_ids.extend([m.dst_agent, m.src_agent]);
            if m.correlation_id != 0 {
                b.on_stream(m.correlation_id, stream, -1);
            }
            b.c.copies.push(m);
        },
    );
}

fn api(t: &Table, b: &mut Builder, issues: &mut RowIssues) {
    good_rows(
        t,
        issues,
        |r| {
            (
                r.text(Col::Function).to_string(),
                r.u64(Col::ProcessId),
                ApiRecord {
                    domain: ApiDomain::Hip,
                    operation: 0,
                    correlation_id: r.u64(Col::CorrelationId),
                    external_id: 0,
                    start_ns: r.u64(Col::Start),
                    end_ns: r.u64(Col::End),
                    thread_id: r.u64(Col::ThreadId),
                },
            )
        },
        |(function, pid, mut a)| {
            if b.c.pid == 0 {
                b.c.pid = u32::try_from(pid).unwrap_or(0);
            }
            // Operation ids are ours: one per function name. The file holds no arguments.
            a.operation = b.hip_op(&function);
            b.hip_call(a, &function, None);
        },
    );
}

/// roctx rows: ranges and marks (domain `MARKER_CORE_RANGE_API`, the message in `Function`)
/// become spans; the API rows without text are counted. A row does not name its operation:
/// a mark is told from a range by its duration only (`calls::Roctx`).
fn markers(t: &Table, b: &mut Builder, issues: &mut RowIssues) -> u64 {
    let mut textless = 0;
    good_rows(
        t,
        issues,
        |r| {
            (
                r.text(Col::Domain) == "MARKER_CORE_RANGE_API",
                r.text(Col::Function).to_string(),
                r.u64(Col::ThreadId),
                r.u64(Col::CorrelationId),
                r.u64(Col::Start),
                r.u64(Col::End),
            )
        },
        |(range, label, tid, corr, start, end)| {
            if range {
                b.roctx(&Roctx {
                    op: None,
                    label: &label,
                    thread_id: tid,
                    correlation_id: corr,
                    start_ns: start,
                    end_ns: end,
                });
            } else {
                textless += 1;
            }
        },
    );
    b.op_name(ApiDomain::Marker, 0, "roctxMarkA");
    textless
}

/// `agent_info.csv`: agents by KFD node id, GPUs numbered in node order.
fn agent_info(t: &Table, issues: &mut RowIssues) -> Vec<AgentInfo> {
    let mut out = Vec::new();
    good_rows(
        t,
        issues,
        |r| {
            let kind = match r.text(Col::AgentType) {
                "GPU" => AgentType::Gpu,
                "CPU" => AgentType::Cpu,
                _ => AgentType::Other,
            };
            let simds = r.u32(Col::SimdPerCu);
            let per_simd = r.u32(Col::MaxWavesPerSimd);
            let node = r.u64(Col::NodeId);
            AgentInfo {
                handle: node,
                kind,
                type_index: -1,
                node_id: u32::try_from(node).unwrap_or(u32::MAX),
                name: r.text(Col::Name).to_string(),
                product_name: r.text(Col::ProductName).to_string(),
                vendor_name: r.text(Col::VendorName).to_string(),
                cu_count: r.u32(Col::CuCount),
                simd_per_cu: simds,
                wave_front_size: r.u32(Col::WaveFrontSize),
                max_waves_per_cu: match r.u32(Col::MaxWavesPerCu) {
                    0 => per_simd * simds,
                    n => n,
                },
                max_engine_clk_mhz: r.u32(Col::MaxClock),
                // The file has no memory banks: a GPU reporting its memory only there shows 0.
                local_mem_bytes: rocprofiler_sdk_sys::gpu_memory_bytes(
                    r.u64(Col::LocalMemSize),
                    [],
                ),
                gfx_target_version: r.u32(Col::GfxTargetVersion),
            }
        },
        |a| out.push(a),
    );
    out.sort_by_key(|a| a.node_id);
    out
}

/// The agents: those of `agent_info.csv` (GPUs numbered in node order), else one GPU without
/// properties per agent index the traces name; an index the traces name that the agent file
/// lacks is added the same way.
fn resolve_agents(mut agents: Vec<AgentInfo>, used: &BTreeSet<u64>) -> Vec<AgentInfo> {
    for &id in used {
        if !agents.iter().any(|a| a.handle == id) {
            agents.push(AgentInfo {
                handle: id,
                kind: AgentType::Gpu,
                type_index: -1,
                node_id: u32::try_from(id).unwrap_or(u32::MAX),
                name: String::new(),
                product_name: String::new(),
                vendor_name: String::new(),
                cu_count: 0,
                simd_per_cu: 0,
                wave_front_size: 0,
                max_waves_per_cu: 0,
                max_engine_clk_mhz: 0,
                local_mem_bytes: 0,
                gfx_target_version: 0,
            });
        }
    }
    agents.sort_by_key(|a| a.node_id);
    let mut gpu = 0;
    for a in &mut agents {
        if a.kind == AgentType::Gpu {
            a.type_index = gpu;
            gpu += 1;
        }
    }
    agents
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_dialect_is_recognised_by_its_spellings() {
        let p = Path::new("x_kernel_trace.csv");
        let mut v3: Vec<&str> = columns(Kind::Kernel)
            .iter()
            .map(|&c| rocprofv3_name(c))
            .collect();
        assert!(dialect_columns(p, Kind::Kernel, &header(&v3)).is_ok());
        // rocpd2csv (ROCm 7.1): Guid first, title-case registers and LDS.
        let mut r: Vec<&str> = vec!["Guid"];
        r.extend(
            columns(Kind::Kernel)
                .iter()
                .map(|&c| Dialect::Rocpd2csv.spell(c)),
        );
        let (d, idx) = dialect_columns(p, Kind::Kernel, &header(&r)).unwrap();
        assert_eq!(d, Dialect::Rocpd2csv);
        assert_eq!(r[idx[&Col::Vgpr]], "Vgpr_Count");
        // Upstream rocpd2csv: Guid first, rocprofv3's spellings.
        let mut u: Vec<&str> = vec!["Guid"];
        u.extend(v3.iter());
        assert!(dialect_columns(p, Kind::Kernel, &header(&u)).is_ok());
        // A missing column is named.
        v3.retain(|c| *c != "End_Timestamp");
        let e = dialect_columns(p, Kind::Kernel, &header(&v3)).unwrap_err();
        assert!(e.message.contains("no End_Timestamp column"), "{e}");
        assert!(e.message.contains("nearest: rocprofv3 CSV"), "{e}");
    }
}
