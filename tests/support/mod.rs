//! Helpers shared by the root package's integration tests: each `tests/*.rs` says `mod support;`.
//!
//! * [`paths`] — the workspace, built artifacts in `target/<profile>/`, scenarios, real test
//!   data, the profile files of a run directory;
//! * [`sim`] — running a scenario through `rocprof-xplane simulate` or the `rocprof-sim` driver
//!   directly (the simulated rocprofiler-sdk runtime: test infrastructure, no GPU involved),
//!   with a per-(scenario, SDK, environment) cache of runs;
//! * [`truth`] — the simulator's ground truth, computed from the scenario alone;
//! * [`xspace`] — reading an XSpace the way xprof does: planes, lines, events, typed stats;
//! * [`cli`] — `rocprof-xplane inspect`;
//! * [`records`] — a simulated run's records as rocprofv3 holds them, written as rocprofv3's
//!   outputs by [`rocpd`] (a database), [`rocprofv3_json`] and [`rocprofv3_csv`];
//! * [`xprof`] — real xprof (PyPI, pinned) as a test client, in `target/xprof-venv`;
//! * [`synthetic`] — a hand-built `Trace` for the XPlane writer's tests;
//! * [`fuzz`] — the seeded mutation loop of the fuzz targets;
//! * [`blocking`] — a call under way at the end of a window or session.
//!
//! Nothing here builds anything: `ci/test.sh` (the README's test command) runs
//! `cargo build --workspace --all-targets` before `cargo test`, and a missing artifact fails
//! with a message naming it and that command.
//!
//! Each test crate uses only part of this module, hence the `dead_code` allowance.
#![allow(dead_code)]

pub mod blocking;
pub mod cli;
pub mod fuzz;
pub mod paths;
pub mod records;
pub mod rocpd;
pub mod rocprofv3_csv;
pub mod rocprofv3_json;
pub mod served;
pub mod sim;
pub mod synthetic;
pub mod truth;
pub mod xprof;
pub mod xspace;

use std::process::Output;

use serde_json::Value;

/// A JSON number that must be an unsigned integer (ground truth, xprof summaries, witness logs).
pub fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not an unsigned number: {v}"))
}

/// Process output as text (lossy: a test message must never fail on bad UTF-8).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub fn stderr_of(o: &Output) -> String {
    text(&o.stderr)
}

pub fn stdout_of(o: &Output) -> String {
    text(&o.stdout)
}
