//! A call under way at the end of a window or session: a paced scenario whose
//! `hipDeviceSynchronize` blocks in wall-clock time on a long kernel, and the check that every
//! HIP record the runtime emitted for the tool reached its profile.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rocprof_xplane::xplane::proto::XSpace;

use super::truth::read_truth;
use super::xspace::{count_by_name, host_api_events};

/// Writes `blocking.toml` in `dir`: one thread starting `start_us` in (paced at wall-clock
/// speed) that creates a stream, launches a kernel of `kernel_us`, waits for it with
/// `hipDeviceSynchronize`, then makes the calls `after` (scenario call tables).
pub fn scenario(dir: &Path, kernel_us: u64, start_us: u64, after: &[&str]) -> PathBuf {
    let path = dir.join("blocking.toml");
    let after: String = after.iter().map(|c| format!("  {c},\n")).collect();
    std::fs::write(
        &path,
        format!(
            r#"
name = "blocking-sync"
seed = 1
[delivery]
real_time = 1.0
[[gpus]]
preset = "mi300x"
[[kernels]]
name = "long"
dur_us = {kernel_us}
[[streams]]
name = "s"
[[threads]]
name = "main"
start_us = {start_us}
calls = [
  {{ op = "stream_create", stream = "s" }},
  {{ op = "launch", kernel = "long", stream = "s" }},
  {{ op = "device_sync" }},
{after}]
"#
        ),
    )
    .unwrap();
    path
}

/// The launch that [`scenario`]'s `after` may repeat.
pub const LAUNCH: &str = r#"{ op = "launch", kernel = "long", stream = "s" }"#;
/// A further wait for it.
pub const SYNC: &str = r#"{ op = "device_sync" }"#;

/// Asserts that the blocking `hipDeviceSynchronize` is in `s` and that its host plane holds as
/// many HIP API events as the runtime emitted (the simulator's `truth`); returns them by name.
pub fn assert_every_emitted_call_kept(
    s: &XSpace,
    truth: &Path,
    stderr: &str,
) -> BTreeMap<String, u64> {
    let api = count_by_name(host_api_events(s));
    assert_eq!(
        api.get("hipDeviceSynchronize"),
        Some(&1),
        "{api:?}\n{stderr}"
    );
    assert_eq!(
        api.values().sum::<u64>(),
        super::truth::hip_calls_recorded(&read_truth(truth), true),
        "{api:?}\n{stderr}"
    );
    api
}
