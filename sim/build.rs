//! The scenario compiler (`src/scenario/`) and ground-truth module (`src/truth.rs`) are written
//! in parallel with the runtime; compile them in as soon as they exist.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sim_has_scenario)");
    println!("cargo::rustc-check-cfg=cfg(sim_has_truth)");
    println!("cargo::rerun-if-changed=src/scenario");
    println!("cargo::rerun-if-changed=src/scenario/mod.rs");
    println!("cargo::rerun-if-changed=src/scenario.rs");
    println!("cargo::rerun-if-changed=src/truth.rs");
    if Path::new("src/scenario/mod.rs").exists() || Path::new("src/scenario.rs").exists() {
        println!("cargo::rustc-cfg=sim_has_scenario");
    }
    if Path::new("src/truth.rs").exists() {
        println!("cargo::rustc-cfg=sim_has_truth");
    }
}
