//! Attaching the tool to a running process and detaching it again (rocprofiler-sdk
//! 1.2.0+ process attachment), in the simulated runtime (test infrastructure, not hardware):
//! the simulator's driver plays `rocprof-attach` on a paced `live-capture` run that was started
//! without any tool; and the `rocprof-xplane attach` command around AMD's driver.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rocprof_xplane::xplane::read_xspace;
use support::paths::{cli, profiles, tool_library};
use support::sim::Direct;
use support::truth::read_truth;
use support::u;
use support::xspace::{counter, device_counts_by_name, host_api_events};

fn live(dir: &Path, blocks: u32) -> PathBuf {
    support::paths::scaled_scenario(dir, "live-capture.toml", 250, blocks)
}

/// A process started with `ROCP_TOOL_ATTACH=1` and no tool, attached to by the simulated
/// driver in the given windows (ms from its start).
fn attached(dir: &Path, sdk: &str, windows: &[&str], attach_env: bool) -> Direct {
    let mut d = Direct::new(&live(dir, 30), sdk)
        .env("ROCPROF_XPLANE_OUTPUT_DIR", dir.join("logs"))
        .env("ROCPROF_XPLANE_RUN_NAME", "att")
        .ground_truth(&dir.join("truth.json"))
        .arg("--attach")
        .arg(tool_library().to_str().unwrap());
    for w in windows {
        d = d.arg("--attach-window").arg(w);
    }
    if attach_env {
        d = d.env("ROCP_TOOL_ATTACH", "1");
    }
    d
}

/// Attach at t₁ = 0.8 s, detach at t₂ = 1.8 s: one complete XPlane, written at the detach,
/// holding exactly the work between them (the runtime emits records only while our contexts
/// run, and the simulator counts what it emitted), with every kernel named although its code
/// object loaded before the attach. Both personalities with attachment; real xprof opens it.
#[test]
fn attach_then_detach_gives_one_profile_of_exactly_that_work() {
    for sdk in ["1.2.1", "1.4.0"] {
        let tmp = tempfile::tempdir().unwrap();
        let out = attached(tmp.path(), sdk, &["800:1800"], true).output();
        let stderr = support::stderr_of(&out);
        assert!(out.status.success(), "{sdk}: {stderr}");
        let files = profiles(&tmp.path().join("logs"), "att");
        assert_eq!(files.len(), 1, "{sdk}: {files:?}\n{stderr}");
        let s = read_xspace(&files[0]).unwrap();
        let truth = read_truth(&tmp.path().join("truth.json"));
        let emitted = &truth["delivery"]["emitted_per_kind"];
        let (by_name, copies) = device_counts_by_name(&s);
        let kernels: u64 = by_name.values().sum();
        assert_eq!(
            kernels,
            u(&emitted["KERNEL_DISPATCH"]),
            "{sdk}: {by_name:?}"
        );
        assert_eq!(copies, u(&emitted["MEMORY_COPY"]), "{sdk}");
        assert_eq!(
            host_api_events(&s).len() as u64,
            support::truth::hip_calls_recorded(&truth, true),
            "{sdk}"
        );
        // A second of a 3.2 s run: the middle, not all of it.
        let all = support::truth::truth_kernels(&truth["plan"])
            .values()
            .sum::<u64>();
        assert!(
            kernels * 10 > all && kernels * 10 < all * 6,
            "{kernels} of {all}"
        );
        assert!(
            by_name.keys().all(|k| k == "forward" || k == "backward"),
            "{sdk}: named from code objects loaded before the attach: {by_name:?}"
        );
        assert_eq!(counter(&s, "kernels_without_symbol"), 0, "{sdk}");
        let clients = truth["delivery"]["clients"].as_array().unwrap();
        assert_eq!(clients.len(), 1, "one client, added by the attach");
        if support::xprof::available() && sdk == "1.4.0" {
            let x = support::xprof::summary(&files[0], &support::paths::host_of(&files[0]));
            assert_eq!(x["errors"], serde_json::json!({}), "{x}");
            let occ = support::xprof::occurrences(&x["kernel_stats"]);
            assert_eq!(occ.values().sum::<u64>(), kernels);
        }
    }
}

/// Detach, then attach again: each session is its own profile (the second in `att_attach02`),
/// and together they hold every record the runtime emitted — nothing from the detached gap,
/// nothing lost; nothing more is written at exit.
#[test]
fn a_reattach_is_a_second_profile_and_the_gap_is_in_neither() {
    let tmp = tempfile::tempdir().unwrap();
    let out = attached(tmp.path(), "1.2.1", &["500:1200", "1800:2400"], true).output();
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    let logs = tmp.path().join("logs");
    let first = profiles(&logs, "att");
    let second = profiles(&logs, "att_attach02");
    assert_eq!((first.len(), second.len()), (1, 1), "{stderr}");
    let count = |f: &PathBuf| {
        let s = read_xspace(f).unwrap();
        device_counts_by_name(&s).0.values().sum::<u64>()
    };
    let (a, b) = (count(&first[0]), count(&second[0]));
    assert!(a > 0 && b > 0, "{a} {b}\n{stderr}");
    let truth = read_truth(&tmp.path().join("truth.json"));
    assert_eq!(
        a + b,
        u(&truth["delivery"]["emitted_per_kind"]["KERNEL_DISPATCH"])
    );
    let all = support::truth::truth_kernels(&truth["plan"])
        .values()
        .sum::<u64>();
    assert!(
        a + b < all,
        "the detached gap is in neither: {a} + {b} of {all}"
    );
    let runs = std::fs::read_dir(logs.join("plugins/profile"))
        .unwrap()
        .count();
    assert_eq!(runs, 2, "nothing written at exit");
}

/// Attachment refused by the runtime — a process not started with `ROCP_TOOL_ATTACH=1`, an SDK
/// without attachment — is reported and the program runs to its end, with no profile.
#[test]
fn attach_refused_without_rocp_tool_attach_or_on_an_older_sdk() {
    for (sdk, env, why) in [
        ("1.2.1", false, "ROCP_TOOL_ATTACH=1"),
        ("1.0.0", true, "no process attachment"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let out = attached(tmp.path(), sdk, &["300:900"], env).output();
        let stderr = support::stderr_of(&out);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains("attachment not available") && stderr.contains(why),
            "{sdk}: {stderr}"
        );
        assert!(profiles(&tmp.path().join("logs"), "att").is_empty());
    }
}

/// `rocprof-xplane attach` wraps AMD's `rocprof-attach`: it refuses a process that was not
/// started with `ROCP_TOOL_ATTACH=1` (saying so), fails clearly where the driver is absent, and
/// otherwise runs the driver with the pid, our tool library and the duration in ms (a
/// stand-in driver records what it was given).
#[test]
fn the_attach_command_checks_the_target_and_runs_amds_driver() {
    let tmp = tempfile::tempdir().unwrap();
    let start = |attach: bool| {
        let mut c = Command::new("sleep");
        c.arg("30");
        if attach {
            c.env("ROCP_TOOL_ATTACH", "1");
        }
        c.spawn().unwrap()
    };
    let mut plain = start(false);
    let out = Command::new(cli())
        .args(["attach", &plain.id().to_string(), "--duration", "2s"])
        .output()
        .unwrap();
    plain.kill().unwrap();
    let _ = plain.wait();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        support::stderr_of(&out).contains("was not started with ROCP_TOOL_ATTACH=1"),
        "{}",
        support::stderr_of(&out)
    );

    let mut target = start(true);
    let pid = target.id().to_string();
    let out = Command::new(cli())
        .args(["attach", &pid])
        .env("PATH", tmp.path())
        .env_remove("ROCM_PATH")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = support::stderr_of(&out);
    assert!(
        e.contains("rocprof-attach not found") || e.contains("/opt/rocm/bin"),
        "{e}"
    );

    let fake = tmp.path().join("rocprof-attach");
    let log = tmp.path().join("args.txt");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho \"$@\" > {}\necho \"$ROCPROF_XPLANE_OUTPUT_DIR\" >> {}\n",
            log.display(),
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(cli())
        .args(["attach", &pid, "--duration", "1.5s", "--output-dir"])
        .arg(tmp.path().join("prof"))
        .arg("--rocprof-attach")
        .arg(&fake)
        .env("ROCPROF_XPLANE_TOOL_LIBRARY", tool_library())
        .output()
        .unwrap();
    target.kill().unwrap();
    let _ = target.wait();
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let got = std::fs::read_to_string(&log).unwrap();
    let mut lines = got.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!("-p {pid} -t {} -d 1500", tool_library().display())
    );
    assert_eq!(
        lines.next().unwrap(),
        tmp.path().join("prof").display().to_string()
    );
}

/// Attaching into a process where another client was configured first — as in every PyTorch
/// process, whose `libtorch_cpu.so` exports a dormant `rocprofiler_configure` — adds us as an
/// extra client (priority 1): we profile the attach window, and the other client's tracing
/// goes on untouched by our attach and detach (it receives every kernel of the run).
#[test]
fn attach_beside_a_client_configured_first() {
    let tmp = tempfile::tempdir().unwrap();
    let other_log = tmp.path().join("other.jsonl");
    let out = attached(tmp.path(), "1.2.1", &["800:1800"], true)
        .env("ROCP_TOOL_LIBRARIES", support::paths::sim_test_tool())
        .env("ROCPROF_SIM_TEST_TOOL_LOG", &other_log)
        .env("ROCPROF_XPLANE_LOG", "info")
        .output();
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("loaded as tool #1"), "{stderr}");
    let files = profiles(&tmp.path().join("logs"), "att");
    assert_eq!(files.len(), 1, "{stderr}");
    let (by_name, _) = device_counts_by_name(&read_xspace(&files[0]).unwrap());
    let ours: u64 = by_name.values().sum();
    let truth = read_truth(&tmp.path().join("truth.json"));
    let all = support::truth::truth_kernels(&truth["plan"])
        .values()
        .sum::<u64>();
    assert!(ours > 0 && ours < all, "{ours} of {all}\n{stderr}");
    assert!(
        by_name.keys().all(|k| k == "forward" || k == "backward"),
        "{by_name:?}"
    );
    let clients = truth["delivery"]["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 2);
    assert_eq!(clients[1]["priority"], 1);
    let theirs = std::fs::read_to_string(&other_log)
        .unwrap()
        .lines()
        .filter(|l| l.contains(r#""ev":"rec""#) && l.contains(r#""kind_name":"KERNEL_DISPATCH""#))
        .count() as u64;
    assert_eq!(theirs, all, "the first client saw every kernel");
}

/// A HIP call under way at the detach (a `hipDeviceSynchronize` waiting on a 500 ms kernel,
/// paced in wall-clock time) writes its record after the SDK stopped our contexts: the detach
/// waits for it, so the session holds every HIP record the runtime emitted for us, and nothing
/// is written at exit. The tool is attached before the replay's clock starts (window `0:…`):
/// an attach due at a set time can end after the call entered (loading and attaching a debug
/// build takes hundreds of ms on a loaded machine), and the call is then not ours. The call
/// runs from 0.15 s to 0.65 s of the replay: the detach, due at 0.3 s, falls inside it unless
/// the machine holds the driver's thread back by 0.35 s, and the tool waits for the call (at
/// most 0.5 s) at the detach. (The process runs on past the detach: an exit during a detach
/// skips every client's finalize in the simulator, as the SDK marks finalization in progress.)
/// Were the late record left for finalize, it would write a near-empty profile under the
/// session's own name, over the session (`attach_beside_a_client_configured_first` would then
/// fail now and then with "0 of 600").
#[test]
fn a_call_under_way_at_the_detach_stays_in_the_session() {
    let tmp = tempfile::tempdir().unwrap();
    let (launch, sync) = (support::blocking::LAUNCH, support::blocking::SYNC);
    let scenario = support::blocking::scenario(tmp.path(), 500_000, 150_000, &[launch, sync]);
    let truth = tmp.path().join("truth.json");
    let out = Direct::new(&scenario, "1.2.1")
        .env("ROCPROF_XPLANE_OUTPUT_DIR", tmp.path().join("logs"))
        .env("ROCPROF_XPLANE_RUN_NAME", "att")
        .env("ROCPROF_XPLANE_LOG", "info")
        .env("ROCP_TOOL_ATTACH", "1")
        .ground_truth(&truth)
        .arg("--attach")
        .arg(tool_library().to_str().unwrap())
        .arg("--attach-window")
        .arg("0:300")
        .output();
    let stderr = support::stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    let files = profiles(&tmp.path().join("logs"), "att");
    assert_eq!(files.len(), 1, "{stderr}");
    let s = read_xspace(&files[0]).unwrap();
    support::blocking::assert_every_emitted_call_kept(&s, &truth, &stderr);
    assert!(!stderr.contains("no further file: 1 API"), "{stderr}");
}

/// Two `rocprof-xplane attach` to one process: the second, while the first is attached, is
/// refused with one line (exit 2) and never runs the driver; one made after the first has
/// detached names where the tool in the process really writes it — the first attach's
/// directory, as `<first run>_attach02` — whatever `--output-dir` and `--run-name` it was
/// given, and says why. Before, both ran at once, and the second printed a path the tool never
/// wrote. (A stand-in driver that stays attached 2 s; the tool's own naming of sessions is
/// `a_reattach_is_a_second_profile_and_the_gap_is_in_neither`.)
#[test]
fn a_second_attach_is_refused_while_one_runs_and_later_says_where_it_goes() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let fake = tmp.path().join("rocprof-attach");
    let log = tmp.path().join("driver.log");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho \"$@ $ROCPROF_XPLANE_OUTPUT_DIR $ROCPROF_XPLANE_RUN_NAME\" >> {}\nsleep 2\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut target = Command::new("sleep")
        .arg("60")
        .env("ROCP_TOOL_ATTACH", "1")
        .spawn()
        .unwrap();
    let pid = target.id().to_string();
    let attach = |dir: &str, run: &str| {
        let mut c = Command::new(cli());
        c.args(["attach", &pid, "--duration", "1s", "--output-dir"])
            .arg(tmp.path().join(dir))
            .args(["--run-name", run, "--rocprof-attach"])
            .arg(&fake)
            .env("XDG_RUNTIME_DIR", &state)
            .env("ROCPROF_XPLANE_TOOL_LIBRARY", tool_library());
        c
    };
    let first = attach("a", "first")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !log.exists() {
        assert!(
            Instant::now() < deadline,
            "the first attach never ran its driver"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = attach("b", "second").output().unwrap();
    let e = support::stderr_of(&second);
    assert_eq!(second.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!(
            "process {pid} is being profiled by another `rocprof-xplane attach`"
        )),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    let first = first.wait_with_output().unwrap();
    let e = support::stderr_of(&first);
    assert!(first.status.success(), "{e}");
    assert!(
        e.contains(&format!(
            "profile into {}/",
            tmp.path().join("a/plugins/profile/first").display()
        )),
        "{e}"
    );
    let third = attach("c", "third").output().unwrap();
    let e = support::stderr_of(&third);
    assert!(third.status.success(), "{e}");
    let really = tmp.path().join("a/plugins/profile/first_attach02");
    assert!(
        e.contains(&format!("profile into {}/", really.display())),
        "{e}"
    );
    assert!(e.contains("keeps those settings"), "{e}");
    assert!(
        !e.contains(&tmp.path().join("c").display().to_string()),
        "no path the tool does not write: {e}"
    );
    target.kill().unwrap();
    let _ = target.wait();
    // The driver ran twice (the refused attach never started it), both times with the first
    // attach's settings.
    let runs = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = runs.lines().collect();
    assert_eq!(lines.len(), 2, "{runs}");
    let a = tmp.path().join("a").display().to_string();
    assert!(
        lines.iter().all(|l| l.ends_with(&format!("{a} first"))),
        "{runs}"
    );
}
