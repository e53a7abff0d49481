//! rocprofv3 CSV (`--output-format csv`): `<prefix>_kernel_trace.csv` and, beside it,
//! `<prefix>_hip_api_trace.csv` when present. Columns are read by header name, so added or
//! reordered columns do not matter. The kernel trace names agents only by index (`Agent 1`), so
//! each becomes a GPU without properties (no ISA: no occupancy); the agent-info file is not read
//! yet (no real sample to check its columns against).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::{err, Builder, ConvertError};
use rocprof_xplane_core::model::events::{
    AgentInfo, AgentType, ApiDomain, ApiRecord, Collected, KernelRecord, KernelSymbol,
};

/// Rows of one CSV file as header → value maps.
fn rows(path: &Path) -> Result<Vec<HashMap<String, String>>, ConvertError> {
    let f = std::fs::File::open(path).map_err(|e| err(path, e.to_string()))?;
    let mut r = ::csv::Reader::from_reader(super::open_maybe_gz(path, f, true)?);
    let headers: Vec<String> = r
        .headers()
        .map_err(|e| err(path, format!("bad CSV header: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    let mut out = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| err(path, format!("row {}: {e}", i + 2)))?;
        out.push(
            headers
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_string))
                .collect(),
        );
    }
    Ok(out)
}

fn num(row: &HashMap<String, String>, col: &str) -> u64 {
    row.get(col)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0)
}

fn num32(row: &HashMap<String, String>, col: &str) -> u32 {
    u32::try_from(num(row, col)).unwrap_or(u32::MAX)
}

/// `Agent 1` → 1 (rocprofv3 writes agents by their absolute index).
fn agent_id(v: &str) -> u64 {
    v.trim()
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .unwrap_or(0)
}

/// The sibling `<prefix>_<suffix>` of a `<prefix>_kernel_trace.csv`.
fn sibling(kernel_csv: &Path, suffix: &str) -> Option<PathBuf> {
    let name = kernel_csv.file_name()?.to_str()?;
    let prefix = name.strip_suffix("kernel_trace.csv")?;
    let p = kernel_csv.with_file_name(format!("{prefix}{suffix}"));
    p.is_file().then_some(p)
}

pub fn read(path: &Path) -> Result<Collected, ConvertError> {
    let kernels = rows(path)?;
    if kernels
        .first()
        .is_some_and(|r| !r.contains_key("Kernel_Name"))
    {
        return Err(err(
            path,
            "no Kernel_Name column: not a rocprofv3 kernel trace",
        ));
    }
    let pid = kernels.first().map(|r| num(r, "Process_Id")).unwrap_or(0);
    let mut b = Builder::new(String::new(), u32::try_from(pid).unwrap_or(0));

    // Agents: one GPU per agent id seen, numbered in id order.
    let ids: BTreeSet<u64> = kernels
        .iter()
        .map(|r| agent_id(r.get("Agent_Id").map_or("", String::as_str)))
        .collect();
    let agents: Vec<AgentInfo> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| AgentInfo {
            handle: *id,
            kind: AgentType::Gpu,
            type_index: i as i32,
            node_id: *id as u32,
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
        })
        .collect();
    let handle_of = |id: u64| {
        agents
            .iter()
            .find(|a| a.node_id as u64 == id)
            .map_or((id, -1), |a| (a.handle, a.type_index))
    };

    for r in &kernels {
        let (agent, ordinal) = handle_of(agent_id(r.get("Agent_Id").map_or("", String::as_str)));
        let kernel_id = num(r, "Kernel_Id");
        let name = r.get("Kernel_Name").cloned().unwrap_or_default();
        let vgpr = num32(r, "VGPR_Count");
        let agpr = num32(r, "Accum_VGPR_Count");
        b.symbol(
            kernel_id,
            &name,
            KernelSymbol {
                name: "".into(),
                sgpr_count: num32(r, "SGPR_Count"),
                arch_vgpr_count: vgpr,
                accum_vgpr_count: agpr,
                // The CSV gives the dispatch's LDS, not the symbol's static part.
                group_segment_size: 0,
                private_segment_size: num32(r, "Scratch_Size"),
            },
        );
        let corr = num(r, "Correlation_Id");
        b.c.push_kernel(KernelRecord {
            correlation_id: corr,
            external_id: 0,
            start_ns: num(r, "Start_Timestamp"),
            end_ns: num(r, "End_Timestamp"),
            thread_id: num(r, "Thread_Id"),
            agent,
            queue: num(r, "Queue_Id"),
            kernel_id,
            dispatch_id: num(r, "Dispatch_Id"),
            private_segment_size: num32(r, "Scratch_Size"),
            group_segment_size: num32(r, "LDS_Block_Size"),
            workgroup: [
                num32(r, "Workgroup_Size_X"),
                num32(r, "Workgroup_Size_Y"),
                num32(r, "Workgroup_Size_Z"),
            ],
            grid: [
                num32(r, "Grid_Size_X"),
                num32(r, "Grid_Size_Y"),
                num32(r, "Grid_Size_Z"),
            ],
            pipe_id: None,
        });
        if corr != 0 {
            b.on_stream(corr, num(r, "Stream_Id"), ordinal);
        }
    }

    if let Some(p) = sibling(path, "hip_api_trace.csv") {
        // Operation ids are ours: one per function name, in order of first appearance.
        let mut ops: HashMap<String, i32> = HashMap::new();
        for r in rows(&p)? {
            let f = r.get("Function").cloned().unwrap_or_default();
            let n = ops.len() as i32;
            let op = *ops.entry(f.clone()).or_insert(n);
            if op == n {
                b.op_name(ApiDomain::Hip, op, &f);
            }
            if b.c.pid == 0 {
                b.c.pid = u32::try_from(num(&r, "Process_Id")).unwrap_or(0);
            }
            b.c.api.push(ApiRecord {
                domain: ApiDomain::Hip,
                operation: op,
                correlation_id: num(&r, "Correlation_Id"),
                external_id: 0,
                start_ns: num(&r, "Start_Timestamp"),
                end_ns: num(&r, "End_Timestamp"),
                thread_id: num(&r, "Thread_Id"),
            });
        }
    }
    b.c.agents = agents;
    Ok(b.finish())
}
