//! Tests of the configuration: `parse` for each setting's forms.

mod parse;

use std::collections::HashMap;

use super::{Config, ConfigWarning, PREFIX};

/// The time the default run name is taken from in these tests.
const NOW: u64 = 1_700_000_000;

/// `Config::parse` of `ROCPROF_XPLANE_<name>=<value>` pairs.
fn parse(vars: &[(&str, &str)]) -> (Config, Vec<ConfigWarning>) {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (format!("{PREFIX}{k}"), v.to_string()))
        .collect();
    Config::parse(|k| map.get(k).cloned(), NOW)
}
