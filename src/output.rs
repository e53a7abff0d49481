//! Where the trace goes: the one place that calls the XPlane writer.

use std::path::PathBuf;

use crate::config::Config;
use crate::model::Trace;
use crate::xplane::{self, OutputLayout};

/// The layout for this process: `<OUTPUT_DIR>/plugins/profile/<RUN_NAME>/<host>.<pid>.xplane.pb`,
/// or the file name `ROCPROF_XPLANE_OUTPUT_FILE` makes (xprof names the host after it).
pub fn layout_for(trace: &Trace, cfg: &Config) -> OutputLayout {
    OutputLayout {
        log_dir: cfg.output_dir.clone(),
        run_name: cfg.run_name.clone(),
        host: file_host(
            cfg.file_template.as_deref(),
            &trace.hostname,
            trace.pid,
            crate::config::env_var,
        ),
        durable: cfg.fsync,
    }
}

/// The file's host part for process `pid` on `hostname`: `<hostname>.<pid>`, or what
/// `template` (`ROCPROF_XPLANE_OUTPUT_FILE`) makes with the process's environment `lookup`.
/// The CLI uses it to tell the file of the process it started from others in the run.
pub fn file_host(
    template: Option<&str>,
    hostname: &str,
    pid: u32,
    lookup: impl Fn(&str) -> Option<String>,
) -> String {
    match template {
        Some(t) => {
            let name = crate::config::expand_file_name(t, hostname, pid, lookup);
            xplane::sanitize_component(&name)
        }
        None => xplane::process_host_name(hostname, pid),
    }
}

/// Whether the file name the user chose (`ROCPROF_XPLANE_OUTPUT_FILE`) lacks `%pid%`, so that
/// two processes of one run may be given the same one.
pub fn name_lacks_pid(cfg: &Config) -> bool {
    cfg.file_template
        .as_deref()
        .is_some_and(|t| !t.contains("%pid%"))
}

/// Writes the trace; the error names the path and the step that failed.
pub fn write_trace(trace: &Trace, cfg: &Config) -> Result<PathBuf, String> {
    write_trace_at(trace, cfg, &layout_for(trace, cfg), None)
}

/// Writes the trace into run directory `run_name` instead of the configured one (capture
/// windows).
pub fn write_trace_as(trace: &Trace, cfg: &Config, run_name: &str) -> Result<PathBuf, String> {
    write_window_as(trace, cfg, run_name, None)
}

/// As [`write_trace_as`], for a window of a run whose windows are to be merged (`run`:
/// numbered and timed as the run's other windows, `xplane::RunIds`).
pub fn write_window_as(
    trace: &Trace,
    cfg: &Config,
    run_name: &str,
    run: Option<&xplane::RunIds>,
) -> Result<PathBuf, String> {
    let layout = OutputLayout {
        run_name: run_name.to_string(),
        ..layout_for(trace, cfg)
    };
    write_trace_at(trace, cfg, &layout, run)
}

/// Writes the trace into `layout` (numbered and timed as the run's other windows when `run`).
pub fn write_trace_at(
    trace: &Trace,
    cfg: &Config,
    layout: &OutputLayout,
    run: Option<&xplane::RunIds>,
) -> Result<PathBuf, String> {
    write_window_at(trace, xplane::HostEvents::of(trace), cfg, layout, run).map(|w| w.path)
}

/// As [`write_trace_at`], with where the lines' events lie in the file (what the merge at exit
/// indexes a window by, `xplane::merge::Indexed::written`), the host threads' events read from
/// `host` (taken out of the trace, they are freed as they are written).
pub fn write_window_at(
    trace: &Trace,
    host: xplane::HostEvents<'_>,
    cfg: &Config,
    layout: &OutputLayout,
    run: Option<&xplane::RunIds>,
) -> Result<xplane::WrittenWindow, String> {
    xplane::write_window_placed(trace, host, layout, plane_threads(trace, cfg), run)
        .map_err(|e| e.to_string())
}

/// Threads the join of `c` uses (`model::join::join_on`): the count the user set for the
/// write, else the cores the process may use, as long as what the passes run side by side
/// hold beyond one thread's (`model::join::beside_bytes`) fits under the process's peak so
/// far, as for the writer's threads.
pub fn join_threads(cfg: &Config, c: &crate::model::events::Collected) -> usize {
    if let Some(n) = cfg.write_threads {
        return n;
    }
    let cores = crate::model::join::cores();
    let extra = crate::model::join::beside_bytes(c);
    let headroom = crate::log::peak_headroom_bytes();
    let threads = if extra as u64 <= headroom { cores } else { 1 };
    crate::log_debug!(
        "join on {threads} of {cores} threads: {:.1} MB under the process's peak, at most {:.1} MB more held",
        headroom as f64 / 1e6,
        extra as f64 / 1e6
    );
    threads
}

/// Threads that build the planes of `trace`: a count the user set is theirs; the default stays
/// under the process's peak (`xplane::plane_threads`).
pub fn plane_threads(trace: &Trace, cfg: &Config) -> usize {
    match cfg.write_threads {
        Some(n) => {
            crate::log_debug!("planes built on {n} threads, as ROCPROF_XPLANE_WRITE_THREADS asks");
            n
        }
        None => xplane::plane_threads(trace),
    }
}

/// The one stderr line saying where a profile went and what it holds (unless logging is off).
pub fn report_written(what: &str, path: &std::path::Path, trace: &Trace, cfg: &Config) {
    if cfg.log > crate::config::LogLevel::Off {
        let c = &trace.counters;
        crate::log::stderr_line(format_args!(
            "rocprof-xplane: wrote {what}{} ({} kernels, {} copies, {} API calls, {} markers)",
            path.display(),
            c.kernel_records,
            c.memcpy_records,
            c.api_records,
            c.marker_records
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_join_takes_a_set_thread_count_as_is_and_else_fits_the_cores() {
        let c = crate::model::events::Collected::default();
        for n in [1, 3] {
            let (mut cfg, _) = Config::parse(|_| None, 0);
            cfg.write_threads = Some(n);
            assert_eq!(join_threads(&cfg, &c), n);
        }
        let (cfg, _) = Config::parse(|_| None, 0);
        let cores = crate::model::join::cores();
        assert!((1..=cores).contains(&join_threads(&cfg, &c)));
    }

    #[test]
    fn what_the_second_thread_holds_grows_with_the_sync_calls_the_calls_and_the_copies() {
        use crate::model::events::{Collected, SyncFact, SyncKind};
        let mut c = Collected::default();
        let empty = crate::model::join::beside_bytes(&c);
        let sync = SyncFact {
            correlation_id: 1,
            kind: SyncKind::EventSynchronize,
            event: 1,
            stream: 0,
            device: 0,
            stream_seq: 0,
        };
        c.syncs = vec![sync; 1000];
        let with_syncs = crate::model::join::beside_bytes(&c);
        assert!(with_syncs >= empty + 1000 * std::mem::size_of::<SyncFact>());
        let call = crate::model::events::ApiRecord {
            domain: crate::model::events::ApiDomain::Hip,
            operation: 1,
            correlation_id: 1,
            external_id: 0,
            start_ns: 1,
            end_ns: 2,
            thread_id: 1,
        };
        c.api = vec![call; 100_000].into();
        assert!(crate::model::join::beside_bytes(&c) >= 100_000 * 12);
        // Copies: placed beside the kernels, and on the lines prepared beside each other.
        let copy = crate::model::events::CopyRecord {
            correlation_id: 1,
            external_id: 0,
            start_ns: 1,
            end_ns: 2,
            thread_id: 1,
            operation: 2,
            dst_agent: 1,
            src_agent: 2,
            bytes: 64,
        };
        c.copies = vec![copy; 1_000_000];
        assert!(crate::model::join::beside_bytes(&c) >= 1_000_000 * 32);
    }
}
