//! End to end through the simulator: `rocprof-xplane simulate` runs the simulated
//! rocprofiler-sdk runtime (test infrastructure, not hardware) with the real tool `.so` loaded
//! through `ROCP_TOOL_LIBRARIES`; the XPlane it writes is read back and compared with the
//! simulator's ground truth, which is computed from the scenario alone.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use rocprof_xplane::capture::symbols::clean_kernel_name;
use rocprof_xplane::xplane::proto::{x_event, XPlane, XSpace};

mod support;
use support::paths::{builtin, tool_library_beside_cli};
use support::sim::{run_simulate, simulate_command};
use support::u;
use support::xspace::{count_by_name, device_counts_by_name, device_planes, events, plane};

struct Run {
    space: XSpace,
    truth: serde_json::Value,
    stdout: String,
}

fn simulate(scenario: &str, sdk: &str) -> Run {
    // The CLI finds the tool library beside itself, as it does for a user.
    fn without_tool_library(scenario: &Path, sdk: &str, log_dir: &Path) -> Command {
        tool_library_beside_cli();
        let mut cmd = simulate_command(scenario, sdk, log_dir);
        cmd.env_remove("ROCPROF_XPLANE_TOOL_LIBRARY");
        cmd
    }
    let r = run_simulate(without_tool_library, &builtin(scenario), sdk, &[]);
    let all = r.truth;
    // Nothing may be left in the runtime's buffers: the tool flushes them itself at finalize.
    assert_eq!(
        all["delivery"]["total_lost_unflushed"], 0,
        "records left unflushed"
    );
    assert_eq!(all["delivery"]["total_dropped"], 0, "records dropped");
    // The client name was written at the offset of this SDK's client-id layout.
    let clients = all["delivery"]["clients"].as_array().unwrap();
    assert!(
        clients
            .iter()
            .any(|c| c["name"] == "rocprof-xplane" && c["initialized"] == true),
        "{clients:?}"
    );
    Run {
        space: r.space,
        truth: all["plan"].clone(),
        stdout: r.stdout,
    }
}

/// Every dispatch and copy of the ground truth is in the file, per kernel name.
fn assert_matches_truth(r: &Run) {
    let (kernels, copies) = device_counts_by_name(&r.space);
    let totals = &r.truth["totals"];
    assert_eq!(
        kernels.values().sum::<u64>(),
        u(&totals["kernel_dispatches"])
    );
    assert_eq!(copies, u(&totals["memory_copies"]));
    let mut want = BTreeMap::new();
    for (name, stats) in r.truth["kernels"].as_object().unwrap() {
        let count = stats
            .get("dispatches")
            .or_else(|| stats.get("count"))
            .map(u)
            .unwrap();
        want.insert(clean_kernel_name(name), count);
    }
    assert_eq!(kernels, want);
    assert_eq!(device_planes(&r.space).len() as u64, u(&totals["gpus"]));
}

#[test]
fn tiny_on_both_abi_families() {
    // 0.x layouts; 1.x layouts; 1.2.1 (larger agent struct, newer runtime behaviour).
    for sdk in ["0.6.0", "1.0.0", "1.2.1"] {
        let r = simulate("tiny.toml", sdk);
        assert_matches_truth(&r);
        let (kernels, _) = device_counts_by_name(&r.space);
        assert!(
            kernels.contains_key("vectorAdd(float const*, float const*, float*, int)"),
            "demangled name expected: {kernels:?}"
        );
        let host = plane(&r.space, "/host:CPU");
        let api = count_by_name(events(host));
        for (name, n) in r.truth["hip_api"].as_object().unwrap() {
            assert_eq!(api.get(name).copied().unwrap_or(0), u(n), "{name} on {sdk}");
        }
        assert!(r.stdout.contains("xprof --logdir"), "{}", r.stdout);
    }
}

#[test]
fn graph_launch_keeps_every_dispatch() {
    let r = simulate("graph-launch.toml", "1.0.0");
    assert_matches_truth(&r);
    assert!(u(&r.truth["totals"]["graph_kernel_dispatches"]) >= 5120);
}

#[test]
fn roctx_ranges_are_on_the_host_plane() {
    let r = simulate("markers.toml", "1.0.0");
    assert_matches_truth(&r);
    let host = plane(&r.space, "/host:CPU");
    let names = count_by_name(events(host));
    for (msg, stats) in r.truth["ranges"].as_object().unwrap() {
        let count = stats.get("count").map(u).unwrap_or(1);
        assert!(
            names.get(msg).copied().unwrap_or(0) >= count,
            "range {msg:?} missing: {names:?}"
        );
    }
    let pushes = r.truth["markers"].get("push").map(u).unwrap_or(0);
    let marker_events: u64 = host
        .lines
        .iter()
        .filter(|l| l.name.contains("ROCTX") || l.display_name.contains("ROCTX"))
        .map(|l| l.events.len() as u64)
        .sum();
    assert!(
        marker_events >= pushes,
        "{marker_events} marker events for {pushes} pushes"
    );
}

/// (name, offset ps, duration ps)
type TimedEvent = (String, i64, i64);

#[test]
fn output_is_identical_run_after_run() {
    // Device timelines (names, offsets, durations, line by line) must not depend on delivery
    // order, thread scheduling or handle values.
    // Planes in file order: the order of planes must not change either.
    let timeline = |s: &XSpace| {
        s.planes
            .iter()
            .filter(|p| p.name.starts_with("/device:GPU:"))
            .map(|p| {
                let lines: Vec<(String, Vec<TimedEvent>)> = p
                    .lines
                    .iter()
                    .map(|l| {
                        let ev = l
                            .events
                            .iter()
                            .map(|e| {
                                let n =
                                    p.event_metadata.get(&e.metadata_id).map(|m| m.name.clone());
                                let off = match e.data {
                                    Some(x_event::Data::OffsetPs(o)) => o,
                                    _ => -1,
                                };
                                (n.unwrap_or_default(), off, e.duration_ps)
                            })
                            .collect();
                        (l.name.clone(), ev)
                    })
                    .collect();
                (p.name.clone(), lines)
            })
            .collect::<Vec<_>>()
    };
    // Offsets are relative to the first device event: the simulated clock starts at a
    // different boottime each run, as a real one would.
    let relative = |s: &XSpace| {
        let mut t = timeline(s);
        let first = t
            .iter()
            .flat_map(|(_, lines)| lines.iter().flat_map(|(_, ev)| ev.iter().map(|e| e.1)))
            .min()
            .unwrap();
        for (_, lines) in &mut t {
            for (_, ev) in lines {
                for e in ev {
                    e.1 -= first;
                }
            }
        }
        t
    };
    let a = simulate("graph-launch.toml", "0.6.0");
    let b = simulate("graph-launch.toml", "0.6.0");
    assert_eq!(relative(&a.space), relative(&b.space));
}

/// String value of stat `name` on an event (plain or interned), if present.
fn stat_str(p: &XPlane, e: &rocprof_xplane::xplane::proto::XEvent, name: &str) -> Option<String> {
    use rocprof_xplane::xplane::proto::x_stat::Value;
    e.stats.iter().find_map(|st| {
        let md = p.stat_metadata.get(&st.metadata_id)?;
        if md.name != name {
            return None;
        }
        match st.value.as_ref()? {
            Value::StrValue(s) => Some(s.clone()),
            Value::RefValue(r) => p.stat_metadata.get(&(*r as i64)).map(|m| m.name.clone()),
            _ => None,
        }
    })
}

fn stat_u64(p: &XPlane, e: &rocprof_xplane::xplane::proto::XEvent, name: &str) -> Option<u64> {
    use rocprof_xplane::xplane::proto::x_stat::Value;
    e.stats.iter().find_map(|st| {
        let md = p.stat_metadata.get(&st.metadata_id)?;
        match (md.name == name, st.value.as_ref()?) {
            (true, Value::Uint64Value(v)) => Some(*v),
            (true, Value::Int64Value(v)) => u64::try_from(*v).ok(),
            _ => None,
        }
    })
}

#[test]
fn kernels_carry_the_enclosing_roctx_ranges() {
    for sdk in ["0.6.0", "1.0.0"] {
        let r = simulate("markers.toml", sdk);
        let gpu = plane(&r.space, "/device:GPU:0");
        let mut seen = Vec::new();
        let mut external = Vec::new();
        for l in &gpu.lines {
            for e in &l.events {
                seen.push(stat_str(gpu, e, "nvtx_range").unwrap_or_default());
                external.push(stat_u64(gpu, e, "external_correlation_id").unwrap_or(0));
            }
        }
        // The framework's external id of each step (ext_push 1000, 1001, 1002).
        assert_eq!(external, [1000, 1000, 1001, 1001, 1002, 1002], "on {sdk}");
        // Three steps, two layers each: the whole push/pop stack at launch time.
        let want: Vec<String> = (0..3)
            .flat_map(|i| {
                [
                    format!("epoch::step {i}::layer"),
                    format!("epoch::step {i}::layer"),
                ]
            })
            .collect();
        assert_eq!(seen, want, "on {sdk}");
    }
}

/// One rule for run names, in the tool and the CLI: `--run-name 'a:b'` is written as `a_b/` and
/// the CLI reports that file (not `a:b/`, which would have it report "wrote nothing" and exit 2); a
/// name that is a path is refused before anything runs, with nothing written.
#[test]
fn run_names_follow_one_rule_and_the_cli_reports_what_was_written() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let out = simulate_command(&builtin("tiny.toml"), "1.0.0", &logs)
        .args(["--run-name", "a:b"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = logs.join("plugins/profile/a_b");
    assert!(
        stdout.contains(&format!("wrote {}", written.display())),
        "{stdout}"
    );
    assert_eq!(std::fs::read_dir(&written).unwrap().count(), 1);

    let out = simulate_command(&builtin("tiny.toml"), "1.0.0", &logs)
        .args(["--run-name", "x/y"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("single directory name"), "{stderr}");
    let runs = std::fs::read_dir(logs.join("plugins/profile"))
        .unwrap()
        .count();
    assert_eq!(runs, 1, "nothing written for the refused name");
}

/// The ranks of one job simulated at the same time into one run: each `simulate` lists only
/// the file its own process wrote as "wrote" (named as the tool names it, by its pid or by an
/// `OUTPUT_FILE` template with the rank), not the other ranks' files beside it. Before, it
/// listed every file of the run written since it started.
#[test]
fn simulate_of_one_rank_lists_only_its_own_file() {
    let tmp = tempfile::tempdir().unwrap();
    for (case, template) in [("pid", None), ("template", Some("%hostname%.rank%rank%"))] {
        let logs = tmp.path().join(case);
        let ranks: Vec<std::process::Child> = (0..2)
            .map(|rank| {
                let mut cmd = simulate_command(&builtin("tiny.toml"), "1.0.0", &logs);
                cmd.args(["--run-name", "job"])
                    .env("RANK", rank.to_string())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                if let Some(t) = template {
                    cmd.env("ROCPROF_XPLANE_OUTPUT_FILE", t);
                }
                cmd.spawn().unwrap()
            })
            .collect();
        let mut listed = Vec::new();
        for child in ranks {
            let out = child.wait_with_output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                out.status.success(),
                "{case}: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let wrote: Vec<&str> = stdout
                .lines()
                .filter_map(|l| l.strip_prefix("wrote "))
                .collect();
            assert_eq!(wrote.len(), 1, "{case}: its own file only: {stdout}");
            listed.push(wrote[0].to_string());
        }
        assert_ne!(listed[0], listed[1], "{case}");
        let files = support::paths::profiles(&logs, "job");
        assert_eq!(files.len(), 2, "{case}: {files:?}");
        for l in &listed {
            assert!(
                files.iter().any(|f| f.display().to_string() == *l),
                "{case}: {l} in {files:?}"
            );
        }
        if template.is_some() {
            assert!(
                listed.iter().any(|l| l.ends_with(".rank1.xplane.pb")),
                "{listed:?}"
            );
        }
    }
}
