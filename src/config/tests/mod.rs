//! Tests of the configuration: `parse` for each setting's forms, `values` for what any value
//! of any setting gives (bytes that are not UTF-8, long values, control characters) and the
//! settings defects found by use.

mod parse;
mod values;

use std::collections::HashMap;
use std::ffi::OsString;

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

/// `Config::parse_os` of full variable names and any bytes.
fn parse_os(vars: &[(&str, OsString)]) -> (Config, Vec<ConfigWarning>) {
    let map: HashMap<String, OsString> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    Config::parse_os(|k| map.get(k).cloned(), NOW)
}
