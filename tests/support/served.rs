//! A simulated process serving the profiler service (`ROCPROF_XPLANE_SERVER`) on an ephemeral
//! loopback port, with its stderr collected as it comes.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::paths::{scaled_scenario, tool_library};
use super::sim::Direct;

/// `scenarios/live-capture.toml` paced at wall-clock speed, cut to `blocks` blocks of 10 steps
/// (about 105 ms each).
pub fn live(dir: &Path, blocks: u32) -> PathBuf {
    scaled_scenario(dir, "live-capture.toml", 250, blocks)
}

/// The child, its address (from the one stderr line the service prints), and the rest of its
/// stderr, line by line with each line's newline.
pub struct Served {
    pub child: Child,
    pub addr: String,
    pub stderr: mpsc::Receiver<String>,
}

impl Served {
    pub fn start(run: Direct) -> Served {
        let mut child = run
            .env("ROCP_TOOL_LIBRARIES", tool_library())
            .env("ROCPROF_XPLANE_SERVER", "127.0.0.1:0")
            .spawn();
        let (tx, rx) = mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            // Bytes, not text: a raw escape or a stray newline must reach the assertions as is.
            let mut r = BufReader::new(err);
            let mut line = Vec::new();
            while r.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
                if tx
                    .send(String::from_utf8_lossy(&line).into_owned())
                    .is_err()
                {
                    break;
                }
                line.clear();
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = Vec::new();
        let addr = loop {
            let line = rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("no service line; stderr so far: {seen:?}"));
            if let Some(rest) = line.split("profiler service on ").nth(1) {
                break rest.split_whitespace().next().unwrap().to_string();
            }
            seen.push(line);
        };
        Served {
            child,
            addr,
            stderr: rx,
        }
    }

    /// Waits (bounded) for the end: whether it succeeded, and all it printed after the
    /// service line, each line with its newline.
    pub fn finish(mut self) -> (bool, String) {
        let ok = wait_bounded(&mut self.child, Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(100));
        (ok, self.stderr.try_iter().collect())
    }

    pub fn port(&self) -> &str {
        self.addr.rsplit(':').next().unwrap()
    }
}

/// Whether `child` ended successfully within `limit`; kills it and panics past it.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st.success();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the simulated process did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
