//! `rocprof-xplane convert`: rocprofv3's output → the XPlane file the live tool would write,
//! in the log-directory layout xprof lists (`<dir>/plugins/profile/<run>/<host>.<pid>.xplane.pb`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use super::launch::{absolute, resolve_run_name};
use rocprof_xplane_core::model::events::Collected;
use rocprof_xplane_core::xplane::{self, OutputLayout};

#[derive(Debug, Parser)]
#[command(
    about = "Convert rocprofv3 output (rocpd .db, JSON, CSV) to an XPlane profile xprof opens",
    after_help = "Inputs: a rocpd database (`*_results.db`, rocprofv3's default since ROCm 7.0; \
                  schema 3.0.x; every process of every run in it), a rocprofv3 JSON file \
                  (gzipped or not), or any CSV file of a run (rocprofv3's or rocpd2csv's \
                  dialect): its kernel, HIP API, memory copy, marker and agent-info CSVs \
                  beside it are read together. Several inputs (the ranks of one job) are \
                  written into one run, the processes of each host on one time axis. A file \
                  that cannot be read as a whole is refused with one line (exit 2) and nothing \
                  is written; see docs/convert.md."
)]
pub struct Args {
    /// rocprofv3 output: rocpd databases (`.db`), JSON files (gzipped or not), or one CSV
    /// file of a run each (`<prefix>kernel_trace.csv`, …; its siblings are read too).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Log directory to write into (what `xprof --logdir` takes).
    #[arg(long, default_value = "rocprof-xplane-logs")]
    output_dir: PathBuf,
    /// Run directory name (default: $ROCPROF_XPLANE_RUN_NAME, else a timestamp).
    #[arg(long)]
    run_name: Option<String>,
}

pub fn execute(args: Args) -> ExitCode {
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rocprof-xplane convert: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let run_name = resolve_run_name(args.run_name.as_deref())?;
    let t0 = std::time::Instant::now();
    let mut all = Vec::new();
    for input in &args.inputs {
        all.extend(crate::rocprofv3::read(input).map_err(|e| e.to_string())?);
    }
    if let Some(w) = one_axis_per_host(&mut all) {
        eprintln!("rocprof-xplane convert: note: {w}");
    }
    let log_dir = absolute(&args.output_dir);
    for c in all {
        // What was skipped or left out is said here as well as in the profile.
        for w in &c.warnings {
            eprintln!("rocprof-xplane convert: warning: {w}");
        }
        let host = if c.hostname.is_empty() {
            "converted".to_string()
        } else {
            c.hostname.clone()
        };
        let pid = c.pid;
        eprintln!(
            "rocprof-xplane convert: read {} kernel dispatches, {} HIP API calls, {} copies, {} roctx ranges and marks of process {pid} in {:.1} s",
            c.kernels.len(),
            c.api.len(),
            c.copies.len(),
            c.markers.len(),
            t0.elapsed().as_secs_f64()
        );
        let trace = rocprof_xplane_core::model::join::join(c);
        let layout = OutputLayout {
            log_dir: log_dir.clone(),
            run_name: run_name.clone(),
            host: xplane::process_host_name(&host, pid),
            durable: true,
        };
        let path = xplane::write_xspace(&trace, &layout).map_err(|e| e.to_string())?;
        crate::out!("wrote {}", path.display());
    }
    crate::out!(
        "open it with:  xprof --logdir {} --port 6006",
        log_dir.display()
    );
    Ok(())
}

/// Puts the processes of each host on one time axis: rocprofv3 records only `CLOCK_BOOTTIME`,
/// which the processes of one host share and other hosts' do not, so every profile of a host
/// counts from the earliest start among that host's processes (the start recorded, else the
/// first record), and xprof shows them as they ran. Profiles of different hosts cannot be put
/// on one axis from what the files hold: the note returned says so (also in each profile).
fn one_axis_per_host(all: &mut [Collected]) -> Option<String> {
    let mut starts: BTreeMap<String, u64> = BTreeMap::new();
    for c in all.iter() {
        if let Some(t) = start_of(c) {
            let s = starts.entry(c.hostname.clone()).or_insert(t);
            *s = (*s).min(t);
        }
    }
    for c in all.iter_mut() {
        if let Some(&s) = starts.get(&c.hostname) {
            c.start_boottime_ns = s;
        }
    }
    if starts.len() < 2 {
        return None;
    }
    let hosts: Vec<&str> = starts.keys().map(String::as_str).collect();
    let note = format!(
        "the inputs hold processes of {} hosts ({}): rocprofv3 records only each host's boot clock, so each host's processes are on one time axis, but not with the other hosts'",
        hosts.len(),
        hosts.join(", ")
    );
    for c in all.iter_mut() {
        c.warnings.push(note.clone());
    }
    Some(note)
}

/// Where a process's times start: its recorded start, else its first record.
fn start_of(c: &Collected) -> Option<u64> {
    if c.start_boottime_ns != 0 {
        return Some(c.start_boottime_ns);
    }
    let api = c.api.iter().map(|r| r.start_ns);
    let markers = c.markers.iter().map(|m| m.start_ns);
    let kernels = c.kernels.iter().map(|k| k.start_ns);
    let copies = c.copies.iter().map(|k| k.start_ns);
    api.chain(markers)
        .chain(kernels)
        .chain(copies)
        .filter(|&t| t != 0)
        .min()
}
