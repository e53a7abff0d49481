//! Agents as the runtime describes them, through the live tool in the simulator (test
//! infrastructure, not hardware): a GPU that reports its memory only in its frame-buffer bank
//! (`local_mem_size` 0, as the real MI350X agents in
//! `../shared/testdata/real/rocprofv3-json-mi350x` do) gets that memory as its `memory_size`,
//! and one that reports it in `local_mem_size` keeps it.

mod support;

use support::sim::simulate;
use support::xspace::{device_planes, plane_stats};

/// `memory_size` of every device plane of a run of one kernel on each GPU of `presets`.
fn memory_sizes(presets: &[&str]) -> Vec<Option<u64>> {
    let tmp = tempfile::tempdir().unwrap();
    let mut toml = String::from("name = \"agents\"\nseed = 1\n");
    for p in presets {
        toml += &format!("[[gpus]]\npreset = \"{p}\"\n");
    }
    toml += "[[kernels]]\nname = \"k\"\ndur_us = 5\n";
    let mut calls = Vec::new();
    for (i, _) in presets.iter().enumerate() {
        toml += &format!("[[streams]]\nname = \"s{i}\"\ndevice = {i}\n");
        calls.push(format!(
            "{{ op = \"launch\", kernel = \"k\", stream = \"s{i}\" }}, {{ op = \"stream_sync\", stream = \"s{i}\" }}"
        ));
    }
    toml += &format!(
        "[[threads]]\nname = \"main\"\ncalls = [{}]\n",
        calls.join(", ")
    );
    let scenario = tmp.path().join("agents.toml");
    std::fs::write(&scenario, toml).unwrap();
    let run = simulate(&scenario, "1.0.0", &[]);
    device_planes(&run.space)
        .into_iter()
        .map(|p| plane_stats(p).get("memory_size").and_then(|v| v.as_u64()))
        .collect()
}

#[test]
fn an_mi350x_shaped_agent_reports_its_memory_in_its_banks() {
    assert_eq!(
        memory_sizes(&["mi350x", "mi350x"]),
        vec![Some(309_220_868_096); 2]
    );
    // An agent that fills `local_mem_size` (and a bank of the same size) keeps it.
    assert_eq!(memory_sizes(&["mi300x"]), vec![Some(192 << 30)]);
}
