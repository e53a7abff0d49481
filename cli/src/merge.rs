//! `rocprof-xplane merge <LOG_DIR> <RUN>`: a run's capture windows (`<RUN>_w0001`, …) made
//! into one profile per process, `<LOG_DIR>/plugins/profile/<RUN>/<host>.xplane.pb`, which
//! xprof opens as one run (`rocprof_xplane_core::xplane::merge`: one line at a time; memory holds
//! the windows' metadata and one line).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use rocprof_xplane_core::xplane::is_window_of;
use rocprof_xplane_core::xplane::merge::merge_files;
use rocprof_xplane_core::xplane::{host_of_file_name, run_dir_name, OutputLayout};

#[derive(Debug, clap::Parser)]
#[command(about = "Merge a run's capture windows into one profile per process")]
pub struct Args {
    /// The log directory the windows were written under (`ROCPROF_XPLANE_OUTPUT_DIR`).
    log_dir: PathBuf,
    /// The run whose windows (`<RUN>_w0001`, `<RUN>_w0002`, …) are merged.
    run: String,
    /// The run the merged profiles are written as (default: `<RUN>`).
    #[arg(long)]
    into: Option<String>,
}

pub fn execute(args: Args) -> ExitCode {
    let profiles = args.log_dir.join("plugins").join("profile");
    let prefix = format!("{}_w", run_dir_name(&args.run));
    let mut by_host: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    let dirs = match std::fs::read_dir(&profiles) {
        Ok(d) => d,
        Err(e) => {
            eprintln!(
                "rocprof-xplane merge: cannot read {}: {e}",
                profiles.display()
            );
            return ExitCode::FAILURE;
        }
    };
    for d in dirs.flatten() {
        if !is_window_of(&args.run, &d.file_name().to_string_lossy()) {
            continue;
        }
        for f in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
            let file = f.file_name().to_string_lossy().into_owned();
            if let Some(host) = host_of_file_name(&file) {
                by_host.entry(host.to_string()).or_default().push(f.path());
            }
        }
    }
    if by_host.is_empty() {
        eprintln!(
            "rocprof-xplane merge: no windows of run {:?} under {} (looked for {prefix}NNNN)",
            args.run,
            profiles.display()
        );
        return ExitCode::FAILURE;
    }
    let into = args.into.unwrap_or(args.run);
    let mut failed = false;
    for (host, files) in by_host {
        let layout = OutputLayout {
            log_dir: args.log_dir.clone(),
            run_name: into.clone(),
            host: host.clone(),
        };
        match merge_files(&files, &layout) {
            Ok((path, m)) => println!(
                "rocprof-xplane merge: {} windows of {host} → {} ({} events on {} lines; {} roctx ranges open at a window's end shown once, whole)",
                m.inputs,
                path.display(),
                m.events,
                m.lines,
                m.open_ranges_left_out
            ),
            Err(e) => {
                eprintln!("rocprof-xplane merge: {host}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
