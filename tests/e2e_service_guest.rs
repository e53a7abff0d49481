//! The profiler service (`ROCPROF_XPLANE_SERVER`) is a good guest in the program it serves,
//! whatever arrives on its port: a flood of idle connections takes neither the program's file
//! descriptors nor a core, and a client's text cannot forge, fill or flood the program's
//! stderr. Against the paced `scenarios/live-capture.toml` in the simulated rocprofiler-sdk
//! runtime (test infrastructure, not hardware), loopback only.

mod support;

use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use prost::Message;
use rocprof_xplane::server::proto::{ProfileOptions, ProfileRequest};
use support::served::{live, Served};
use support::sim::Direct;

const PROFILE: &str = "/tensorflow.ProfilerService/Profile";

/// CPU time (ms) the threads named `name` of process `pid` have used so far
/// (`/proc/<pid>/task/*/stat`: user + system ticks).
fn thread_cpu_ms(pid: u32, name: &str) -> u64 {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let mut ticks = 0;
    let mut found = false;
    for t in std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
    {
        let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        if &stat[open + 1..close] != name {
            continue;
        }
        found = true;
        // After the name: state is field 3, utime and stime fields 14 and 15.
        let f: Vec<&str> = stat[close + 2..].split_whitespace().collect();
        ticks += f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
    }
    assert!(found, "no thread named {name} in process {pid}");
    ticks * 1000 / hz
}

/// Raises this test process's own descriptor limit so it can hold `n` client sockets.
fn allow_open_files(n: u64) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the struct we pass.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut r), 0);
        if r.rlim_cur < n {
            assert!(
                r.rlim_max >= n,
                "this test needs {n} open files on the client side; the hard limit is {}",
                r.rlim_max
            );
            r.rlim_cur = n;
            assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &r), 0);
        }
    }
}

/// Opens up to `n` idle connections to `addr` (each given a moment; the door closes most at
/// once, which the client only sees when it reads).
fn flood(addr: &str, n: usize) -> Vec<TcpStream> {
    let addr: std::net::SocketAddr = addr.parse().unwrap();
    (0..n)
        .filter_map(|_| TcpStream::connect_timeout(&addr, Duration::from_millis(300)).ok())
        .collect()
}

/// 2,000 idle loopback connections against a served program limited to 1,024 open files
/// (`ulimit -n 1024`): the program's own output (the simulator's ground truth, written at its
/// end, while the 2,000 are still open) is written; the service thread stays under 5 % of a
/// core while it refuses them; a real capture through xprof's client during the flood works;
/// the program ends normally. Without the door, the service took every descriptor (the
/// program's write failed with "Too many open files") and spun a core on failed accepts.
#[test]
fn two_thousand_idle_connections_starve_neither_the_program_nor_a_core() {
    allow_open_files(4096);
    let tmp = tempfile::tempdir().unwrap();
    let truth = tmp.path().join("truth.json");
    let s = Served::start(
        Direct::new(&live(tmp.path(), 150), "1.0.0")
            .ground_truth(&truth)
            .fd_limit(1024),
    );
    let pid = s.child.id();
    let cpu0 = thread_cpu_ms(pid, rocprof_xplane::server::THREAD_NAME);
    let t0 = Instant::now();
    let held = flood(&s.addr, 2000);
    // The door refuses the rest at once and cuts the silent ones it let in after 5 s.
    std::thread::sleep(Duration::from_secs(6).saturating_sub(t0.elapsed()));
    let cpu_ms = thread_cpu_ms(pid, rocprof_xplane::server::THREAD_NAME) - cpu0;
    let wall_ms = t0.elapsed().as_millis() as u64;
    let share = cpu_ms as f64 / wall_ms as f64;
    eprintln!(
        "flood: {} of 2000 connections made; service thread {cpu_ms} ms of CPU in {wall_ms} ms ({:.1} % of a core)",
        held.len(),
        share * 100.0
    );
    assert!(
        share < 0.05,
        "the service thread used {:.1} % of a core while refusing",
        share * 100.0
    );
    assert!(
        held.len() > 1024,
        "the flood outnumbers the program's descriptors: {}",
        held.len()
    );
    if support::xprof::available() {
        // The places the flood took are freed within seconds (silent ones are cut): a client
        // that tries again, as people do, gets in while the 2,000 are still open.
        let logdir = tmp.path().join("captured");
        let deadline = Instant::now() + Duration::from_secs(20);
        let r = loop {
            let r = support::xprof::capture_client(&[
                "trace",
                &s.addr,
                logdir.to_str().unwrap(),
                "500",
            ]);
            if r["ok"] == true || Instant::now() > deadline {
                break r;
            }
            std::thread::sleep(Duration::from_millis(500));
        };
        assert_eq!(r["ok"], true, "a real capture during the flood: {r}");
        let files: Vec<PathBuf> = std::fs::read_dir(logdir.join("plugins/profile"))
            .unwrap()
            .flatten()
            .flat_map(|run| std::fs::read_dir(run.path()).unwrap().flatten())
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".xplane.pb"))
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        let space = rocprof_xplane::xplane::read_xspace(&files[0]).unwrap();
        assert!(
            !support::xspace::kernels(&space).is_empty(),
            "the capture holds the window's kernels"
        );
    }
    let (ok, stderr) = s.finish();
    drop(held);
    assert!(ok, "the program ends normally: {stderr}");
    assert!(
        !stderr.contains("Too many open files"),
        "the program kept its descriptors: {stderr}"
    );
    let written = std::fs::read_to_string(&truth)
        .unwrap_or_else(|e| panic!("the program's own output was not written ({e}): {stderr}"));
    assert!(
        serde_json::from_str::<serde_json::Value>(&written).is_ok(),
        "the program's own output is whole"
    );
}

fn encoded(r: &ProfileRequest) -> Vec<u8> {
    r.encode_to_vec()
}

/// A capture request whose start lies an hour ahead: refused after the session id is logged.
fn far_start(session_id: String) -> ProfileRequest {
    let hour_ahead = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        + 3_600_000_000_000;
    ProfileRequest {
        duration_ms: 100,
        session_id,
        opts: Some(ProfileOptions {
            start_timestamp_ns: hour_ahead,
            duration_ms: 100,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A client's text reaches the program's stderr escaped, shortened and rate-limited: a
/// session id with a newline and escape codes forges no line and no colour, 30 requests in a
/// row give at most ten lines (the next line that passes says how many were held back), a
/// 60 KiB id shows 64 characters, and a 1 MiB request is refused before it is read into a
/// line (`OUT_OF_RANGE`), adding nothing to the log.
#[test]
fn client_text_cannot_forge_fill_or_flood_the_programs_log() {
    if !support::xprof::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let s = Served::start(Direct::new(&live(tmp.path(), 120), "1.0.0"));
    let long = "x".repeat(60 << 10);
    let r = support::xprof::grpc_call(&s.addr, PROFILE, &encoded(&far_start(long)), 1);
    assert_eq!(r["codes"][0], "INVALID_ARGUMENT", "{r}");
    let forged = "run\nrocprof-xplane: wrote /etc/passwd\x1b[2J\x1b[31mred\r\u{202e}".to_string();
    let r = support::xprof::grpc_call(&s.addr, PROFILE, &encoded(&far_start(forged)), 30);
    let codes = r["codes"].as_array().unwrap();
    assert!(
        codes.iter().all(|c| c == "INVALID_ARGUMENT"),
        "refused for its start time: {r}"
    );
    let huge = "y".repeat(1 << 20);
    let r = support::xprof::grpc_call(&s.addr, PROFILE, &encoded(&far_start(huge)), 3);
    assert!(
        r["codes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c == "OUT_OF_RANGE"),
        "a 1 MiB request is refused by its size: {r}"
    );
    // The budget's period: the next line passes and says how many were held back.
    std::thread::sleep(Duration::from_secs(7));
    let r = support::xprof::grpc_call(&s.addr, PROFILE, &encoded(&far_start("after".into())), 1);
    assert_eq!(r["codes"][0], "INVALID_ARGUMENT", "{r}");
    let (ok, stderr) = s.finish();
    assert!(ok, "{stderr}");
    assert!(
        !stderr.contains('\x1b') && !stderr.contains('\r') && !stderr.contains('\u{202e}'),
        "no raw escape reaches the log: {stderr:?}"
    );
    assert!(
        !stderr
            .lines()
            .any(|l| l.starts_with("rocprof-xplane: wrote /etc/passwd")),
        "no forged line: {stderr}"
    );
    let captures: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("warning: capture "))
        .collect();
    // Ten at once (eleven if the budget's period passed during the burst), then one after it.
    let n = captures.len();
    assert!((11..=12).contains(&n), "{captures:#?}");
    assert!(
        captures[0].contains(&format!(
            "capture {}…(61440 bytes in all): ",
            "x".repeat(64)
        )),
        "{}",
        captures[0]
    );
    assert!(
        captures[1].contains("capture run\\nrocprof-xplane: wrote /etc/passwd\\u{1b}[2J"),
        "{}",
        captures[1]
    );
    let held = 31 - (n - 1);
    assert!(
        captures[n - 1].contains("capture after:")
            && captures[n - 1].contains(&format!(
                "({held} lines caused by clients held back before this one)"
            )),
        "{}",
        captures[n - 1]
    );
    assert!(
        stderr.len() < 8 << 10,
        "the log stays small: {} bytes",
        stderr.len()
    );
}

/// Descriptors process `pid` has open now.
fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

/// Stress, CI-sized: for four seconds, connections churn (opened, sent garbage or an HTTP/1
/// request, closed, again) and 300 more sit idle, against a program limited to 1,024 open
/// files whose flight recorder streams segments (continuous profiling). Meanwhile xprof's
/// client takes snapshots, retrying as people do while the flood holds the places. The
/// service never holds more than its 32 connections (the process's descriptors, sampled every
/// 50 ms, stay within 32 + a few of where they started), the snapshots hold the recent
/// kernels, and the program ends normally with its own output written.
#[test]
fn a_connection_flood_while_the_flight_recorder_streams_changes_nothing() {
    allow_open_files(4096);
    let tmp = tempfile::tempdir().unwrap();
    let truth = tmp.path().join("truth.json");
    let s = Served::start(
        Direct::new(&live(tmp.path(), 100), "1.0.0")
            .env("ROCPROF_XPLANE_CONTINUOUS", "1")
            .env("ROCPROF_XPLANE_RING_SECONDS", "1")
            .ground_truth(&truth)
            .fd_limit(1024),
    );
    let pid = s.child.id();
    let baseline = open_fds(pid);
    let cpu0 = thread_cpu_ms(pid, rocprof_xplane::server::THREAD_NAME);
    let t0 = Instant::now();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let addr: std::net::SocketAddr = s.addr.parse().unwrap();
    let churn = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            use std::io::Write;
            let mut n = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(mut c) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
                    let junk: &[u8] = if n % 2 == 0 {
                        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
                    } else {
                        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage"
                    };
                    let _ = c.write_all(junk);
                    n += 1;
                }
            }
            n
        })
    };
    let idle = flood(&s.addr, 300);
    let sampler = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut most = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(open_fds(pid));
                std::thread::sleep(Duration::from_millis(50));
            }
            most
        })
    };
    let mut snapshots = 0;
    if support::xprof::available() {
        let logdir = tmp.path().join("snapshots");
        let deadline = Instant::now() + Duration::from_secs(20);
        while snapshots < 2 && Instant::now() < deadline {
            let r =
                support::xprof::capture_client(&["snapshot", &s.addr, logdir.to_str().unwrap()]);
            if r["ok"] == true {
                snapshots += 1;
            } else {
                std::thread::sleep(Duration::from_millis(300));
            }
        }
        assert_eq!(snapshots, 2, "snapshots during the flood");
        for run in std::fs::read_dir(logdir.join("plugins/profile"))
            .unwrap()
            .flatten()
        {
            for f in std::fs::read_dir(run.path()).unwrap().flatten() {
                let space = rocprof_xplane::xplane::read_xspace(f.path()).unwrap();
                assert!(
                    !support::xspace::kernels(&space).is_empty(),
                    "{:?}",
                    f.path()
                );
            }
        }
    }
    std::thread::sleep(Duration::from_secs(4).saturating_sub(t0.elapsed()));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let churned = churn.join().unwrap();
    let most = sampler.join().unwrap();
    let cpu_ms = thread_cpu_ms(pid, rocprof_xplane::server::THREAD_NAME) - cpu0;
    let wall_ms = t0.elapsed().as_millis() as u64;
    eprintln!(
        "stress: {churned} connections churned, {} idle, {snapshots} snapshots; descriptors {baseline} → at most {most}; service thread {cpu_ms} ms of CPU in {wall_ms} ms ({:.1} % of a core)",
        idle.len(),
        cpu_ms as f64 / wall_ms as f64 * 100.0
    );
    assert!(churned > 100, "the churn ran: {churned}");
    assert!(
        most <= baseline + rocprof_xplane::server::door::MAX_CONNECTIONS + 8,
        "descriptors {baseline} → {most}"
    );
    let (ok, stderr) = s.finish();
    drop(idle);
    assert!(ok, "the program ends normally: {stderr}");
    assert!(!stderr.contains("Too many open files"), "{stderr}");
    let written = std::fs::read_to_string(&truth).expect("the program's own output");
    assert!(serde_json::from_str::<serde_json::Value>(&written).is_ok());
}
