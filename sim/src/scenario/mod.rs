//! Scenarios: small, human-written TOML files describing GPUs, kernels and application threads,
//! compiled into a timed `Plan` the simulated runtime replays. **Test infrastructure**: the
//! timing model is a plausible model of the HIP runtime, not a measurement of hardware.
//! The format is documented in `docs/scenarios.md`.

mod ast;
mod compile;
mod error;
mod parse;
pub(crate) mod presets;
mod toml_read;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::plan::Plan;

pub use compile::FILL_KERNEL;
pub use error::ScenarioError;

/// Parses and compiles a scenario file.
pub fn load(path: &Path) -> Result<Plan, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: Some(path.to_path_buf()),
        line: 0,
        column: 0,
        path: String::new(),
        message: format!("cannot read scenario: {e}"),
    })?;
    parse_str(&text).map_err(|mut e| {
        e.file = Some(path.to_path_buf());
        e
    })
}

/// Parses and compiles scenario text.
pub fn parse_str(text: &str) -> Result<Plan, ScenarioError> {
    let sc = parse::parse(text)?;
    compile::compile(&sc)
}
