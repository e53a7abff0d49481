//! `rocprof-xplane convert`: rocprofv3's output → the XPlane file the live tool would write,
//! in the log-directory layout xprof lists (`<dir>/plugins/profile/<run>/<host>.<pid>.xplane.pb`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use super::launch::{absolute, resolve_run_name};
use rocprof_xplane_core::xplane::{self, OutputLayout};

#[derive(Debug, Parser)]
#[command(about = "Convert rocprofv3 output (JSON, CSV) to an XPlane profile xprof opens")]
pub struct Args {
    /// rocprofv3 output: the JSON file (gzipped or not), or the `*_kernel_trace.csv` (its
    /// `*_hip_api_trace.csv` sibling is read too).
    input: PathBuf,
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
    let all = crate::rocprofv3::read(&args.input).map_err(|e| e.to_string())?;
    let log_dir = absolute(&args.output_dir);
    for c in all {
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
        };
        let path = xplane::write_xspace(&trace, &layout).map_err(|e| e.to_string())?;
        println!("wrote {}", path.display());
    }
    println!(
        "open it with:  xprof --logdir {} --port 6006",
        log_dir.display()
    );
    Ok(())
}
