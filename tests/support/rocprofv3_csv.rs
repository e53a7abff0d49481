//! rocprofv3's CSV output (`--output-format csv`) of a simulated run's [`Records`]: the files
//! `<pid>_agent_info.csv`, `<pid>_kernel_trace.csv`, `<pid>_hip_api_trace.csv`,
//! `<pid>_memory_copy_trace.csv` and `<pid>_marker_api_trace.csv`, each with rocprofv3's
//! columns in its order and every field quoted, as in the real files of
//! `../shared/testdata/real/`. What rocprofv3 puts in them:
//!
//! * agents are named `Agent <KFD node id>` (its default absolute index);
//! * a kernel's `Kernel_Name` is the symbol's formatted name (demangled, `.kd` dropped); its
//!   `LDS_Block_Size` the symbol's static LDS rounded up to the 512-byte allocation granule;
//!   `Scratch_Size` the dispatch's; the register counts the symbol's;
//! * a roctx row's `Function` is the call's message for `roctxMarkA`, `roctxThreadRangeA` and
//!   `roctxProcessRangeA`, else the operation's name;
//! * no external correlation ids, argument values, byte counts, host name or process times.
//!
//! A file whose kind has no record is not written (rocprofv3 writes none either).
//! Test infrastructure: no GPU is involved.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::records::Records;

/// rocprofv3's LDS allocation granule (bytes): `LDS_Block_Size` is rounded up to it.
pub const LDS_BLOCK: u64 = 512;

/// `n` rounded up to the LDS allocation granule.
pub fn lds_block_size(n: u64) -> u64 {
    n.div_ceil(LDS_BLOCK) * LDS_BLOCK
}

/// The columns of `agent_info.csv`, in rocprofv3's order.
const AGENT_COLUMNS: [&str; 53] = [
    "Node_Id",
    "Logical_Node_Id",
    "Agent_Type",
    "Cpu_Cores_Count",
    "Simd_Count",
    "Cpu_Core_Id_Base",
    "Simd_Id_Base",
    "Max_Waves_Per_Simd",
    "Lds_Size_In_Kb",
    "Gds_Size_In_Kb",
    "Num_Gws",
    "Wave_Front_Size",
    "Num_Xcc",
    "Cu_Count",
    "Array_Count",
    "Num_Shader_Banks",
    "Simd_Arrays_Per_Engine",
    "Cu_Per_Simd_Array",
    "Simd_Per_Cu",
    "Max_Slots_Scratch_Cu",
    "Gfx_Target_Version",
    "Vendor_Id",
    "Device_Id",
    "Location_Id",
    "Domain",
    "Drm_Render_Minor",
    "Num_Sdma_Engines",
    "Num_Sdma_Xgmi_Engines",
    "Num_Sdma_Queues_Per_Engine",
    "Num_Cp_Queues",
    "Max_Engine_Clk_Ccompute",
    "Max_Engine_Clk_Fcompute",
    "Sdma_Fw_Version",
    "Fw_Version",
    "Capability",
    "Cu_Per_Engine",
    "Max_Waves_Per_Cu",
    "Family_Id",
    "Workgroup_Max_Size",
    "Grid_Max_Size",
    "Local_Mem_Size",
    "Hive_Id",
    "Gpu_Id",
    "Workgroup_Max_Dim_X",
    "Workgroup_Max_Dim_Y",
    "Workgroup_Max_Dim_Z",
    "Grid_Max_Dim_X",
    "Grid_Max_Dim_Y",
    "Grid_Max_Dim_Z",
    "Name",
    "Vendor_Name",
    "Product_Name",
    "Model_Name",
];

const KERNEL_COLUMNS: [&str; 22] = [
    "Kind",
    "Agent_Id",
    "Queue_Id",
    "Stream_Id",
    "Thread_Id",
    "Dispatch_Id",
    "Kernel_Id",
    "Kernel_Name",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
    "LDS_Block_Size",
    "Scratch_Size",
    "VGPR_Count",
    "Accum_VGPR_Count",
    "SGPR_Count",
    "Workgroup_Size_X",
    "Workgroup_Size_Y",
    "Workgroup_Size_Z",
    "Grid_Size_X",
    "Grid_Size_Y",
    "Grid_Size_Z",
];

/// The HIP and the marker traces share these.
const API_COLUMNS: [&str; 7] = [
    "Domain",
    "Function",
    "Process_Id",
    "Thread_Id",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
];

const COPY_COLUMNS: [&str; 8] = [
    "Kind",
    "Direction",
    "Stream_Id",
    "Source_Agent_Id",
    "Destination_Agent_Id",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
];

/// The roctx operations whose row names the call's message instead of the operation.
const MESSAGE_OPS: [&str; 3] = ["roctxMarkA", "roctxThreadRangeA", "roctxProcessRangeA"];

/// Writes one file (header and rows, every field quoted) when it has rows.
fn file(path: &Path, header: &[&str], rows: Vec<Vec<String>>) -> Option<PathBuf> {
    if rows.is_empty() {
        return None;
    }
    let mut w = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .from_path(path)
        .unwrap();
    w.write_record(header).unwrap();
    for r in rows {
        w.write_record(r).unwrap();
    }
    w.flush().unwrap();
    Some(path.to_path_buf())
}

/// One `agent_info.csv` field: the agent record's field of the column's name in lower case
/// (`Workgroup_Max_Dim_X` → `workgroup_max_dim.x`); 0 (or empty text) when the SDK record
/// the test tool logged has no such field.
fn agent_field(a: &Value, column: &str) -> String {
    if column == "Agent_Type" {
        return match a["type"].as_u64() {
            Some(1) => "CPU",
            Some(2) => "GPU",
            _ => "UNK",
        }
        .into();
    }
    let key = column.to_ascii_lowercase();
    let v = match key.rsplit_once("_dim_") {
        Some((base, axis)) => &a[format!("{base}_dim")][axis],
        None => &a[key.as_str()],
    };
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ if matches!(
            column,
            "Name" | "Vendor_Name" | "Product_Name" | "Model_Name"
        ) =>
        {
            String::new()
        }
        _ => "0".into(),
    }
}

/// Writes the run's CSV files into `dir` (named `<pid>_<kind>.csv`); returns them, the kernel
/// trace first when there is one.
pub fn write(dir: &Path, r: &Records) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let path = |kind: &str| dir.join(format!("{}_{kind}.csv", r.pid));
    let agent = |h: u64| format!("Agent {}", r.node_id(h));
    let mut out = Vec::new();

    let kernels = r
        .dispatches
        .iter()
        .map(|k| {
            let s = r.symbol(k.kernel_id);
            let sym = |f: fn(&super::records::Symbol) -> u64| s.map_or(0, f);
            let name = s.map_or(String::new(), |s| {
                rocprof_xplane::capture::symbols::clean_kernel_name(&s.name)
            });
            vec![
                "KERNEL_DISPATCH".to_string(),
                agent(k.agent),
                k.queue.to_string(),
                k.stream_id.to_string(),
                k.head.tid.to_string(),
                k.dispatch_id.to_string(),
                k.kernel_id.to_string(),
                name,
                k.head.corr.to_string(),
                k.head.start.to_string(),
                k.head.end.to_string(),
                lds_block_size(sym(|s| s.group_segment_size)).to_string(),
                k.private_segment_size.to_string(),
                sym(|s| s.arch_vgpr_count).to_string(),
                sym(|s| s.accum_vgpr_count).to_string(),
                sym(|s| s.sgpr_count).to_string(),
                k.workgroup[0].to_string(),
                k.workgroup[1].to_string(),
                k.workgroup[2].to_string(),
                k.grid[0].to_string(),
                k.grid[1].to_string(),
                k.grid[2].to_string(),
            ]
        })
        .collect();
    out.extend(file(&path("kernel_trace"), &KERNEL_COLUMNS, kernels));

    let mut agents: Vec<&Value> = r.agents.iter().collect();
    agents.sort_by_key(|a| a["node_id"].as_u64());
    let agent_rows = agents
        .iter()
        .map(|a| AGENT_COLUMNS.iter().map(|c| agent_field(a, c)).collect())
        .collect();
    out.extend(file(&path("agent_info"), &AGENT_COLUMNS, agent_rows));

    let calls = r
        .calls
        .iter()
        .map(|c| {
            let h = &c.head;
            vec![
                h.kind_name.clone(),
                h.op_name.clone(),
                r.pid.to_string(),
                h.tid.to_string(),
                h.corr.to_string(),
                h.start.to_string(),
                h.end.to_string(),
            ]
        })
        .collect();
    out.extend(file(&path("hip_api_trace"), &API_COLUMNS, calls));

    let copies = r
        .copies
        .iter()
        .map(|m| {
            let h = &m.head;
            vec![
                h.kind_name.clone(),
                h.op_name.clone(),
                m.stream_id.to_string(),
                agent(m.src_agent),
                agent(m.dst_agent),
                h.corr.to_string(),
                h.start.to_string(),
                h.end.to_string(),
            ]
        })
        .collect();
    out.extend(file(&path("memory_copy_trace"), &COPY_COLUMNS, copies));

    let markers = r
        .markers
        .iter()
        .map(|m| {
            let h = &m.head;
            let function = match &m.message {
                Some(text) if MESSAGE_OPS.contains(&h.op_name.as_str()) => text.clone(),
                _ => h.op_name.clone(),
            };
            vec![
                h.kind_name.clone(),
                function,
                r.pid.to_string(),
                h.tid.to_string(),
                h.corr.to_string(),
                h.start.to_string(),
                h.end.to_string(),
            ]
        })
        .collect();
    out.extend(file(&path("marker_api_trace"), &API_COLUMNS, markers));
    out
}
