//! Rewrites `src/bindings.rs` from `include/rocprof_xplane_sdk.h`.
//!
//! Run: `cargo run -p rocprofiler-sdk-sys --features regen --bin regen-bindings`

use rocprofiler_sdk_sys::regen;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = regen::crate_dir();
    match regen::generate(&dir) {
        Ok(text) => {
            let out = dir.join(regen::BINDINGS);
            if let Err(e) = std::fs::write(&out, text) {
                eprintln!("cannot write {}: {e}", out.display());
                return ExitCode::FAILURE;
            }
            println!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
