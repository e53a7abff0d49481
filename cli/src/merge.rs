//! `rocprof-xplane merge <LOG_DIR> <RUN>`: a run's capture windows (`<RUN>_w0001`, …) made
//! into one profile per process, `<LOG_DIR>/plugins/profile/<RUN>/<host>.xplane.pb`, which
//! xprof opens as one run (`rocprof_xplane_core::xplane::merge`: one line at a time; memory holds
//! the windows' metadata and one line).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::{files, out};

use rocprof_xplane::config;
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
    // The merged profiles' run follows the rule every run name follows (`--run-name`).
    let into = args.into.as_deref().unwrap_or(&args.run);
    let into = match config::check_run_name(into) {
        Ok(name) => name,
        Err(why) => {
            let what = if args.into.is_some() {
                "--into"
            } else {
                "<RUN>"
            };
            eprintln!("rocprof-xplane merge: {what} {into:?} {why}");
            return ExitCode::from(2);
        }
    };
    let profiles = args.log_dir.join("plugins").join("profile");
    let prefix = format!("{}_w", run_dir_name(&args.run));
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
    let mut by_host: BTreeMap<String, Vec<Window>> = BTreeMap::new();
    for d in dirs.flatten() {
        let name = d.file_name().to_string_lossy().into_owned();
        if !is_window_of(&args.run, &name) {
            continue;
        }
        let Some(number) = name.strip_prefix(&prefix).and_then(|n| n.parse().ok()) else {
            continue;
        };
        for f in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
            let file = f.file_name().to_string_lossy().into_owned();
            if let Some(host) = host_of_file_name(&file) {
                by_host.entry(host.to_string()).or_default().push(Window {
                    number,
                    path: f.path(),
                });
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
    // Every window is a profile before anything is merged: a merge that took a FIFO would
    // hang, one that took an empty file as an empty window would look complete.
    let refused: Vec<String> = by_host
        .values()
        .flatten()
        .filter_map(|w| files::profile(&w.path).err())
        .collect();
    if !refused.is_empty() {
        for why in &refused {
            eprintln!("rocprof-xplane merge: {why}; nothing merged");
        }
        return ExitCode::FAILURE;
    }
    let mut failed = false;
    for (host, mut windows) in by_host {
        windows.sort_by_key(|w| w.number);
        if let Some(gap) = missing(&windows) {
            eprintln!(
                "rocprof-xplane merge: warning: {host}: {gap} missing (no {prefix}NNNN/{host}.xplane.pb for them): the merged profile lacks their time"
            );
        }
        let files: Vec<PathBuf> = windows.into_iter().map(|w| w.path).collect();
        let layout = OutputLayout {
            log_dir: args.log_dir.clone(),
            run_name: into.clone(),
            host: host.clone(),
            durable: true,
        };
        match merge_files(&files, &layout) {
            Ok((path, m)) => out!(
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

/// One window file of a process: its number (`<RUN>_wNNNN`) and path.
struct Window {
    number: u32,
    path: PathBuf,
}

/// The window numbers missing before the last one of a process (sorted `windows`), as
/// `window 3` or `windows 2, 5`; `None` when they follow on from 1.
fn missing(windows: &[Window]) -> Option<String> {
    let last = windows.last()?.number;
    let have: std::collections::BTreeSet<u32> = windows.iter().map(|w| w.number).collect();
    let gaps: Vec<String> = (1..last)
        .filter(|n| !have.contains(n))
        .map(|n| n.to_string())
        .collect();
    match gaps.len() {
        0 => None,
        1 => Some(format!("window {}", gaps[0])),
        _ => Some(format!("windows {}", gaps.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_window_numbers_are_named() {
        let of = |ns: &[u32]| -> Vec<Window> {
            ns.iter()
                .map(|&number| Window {
                    number,
                    path: PathBuf::new(),
                })
                .collect()
        };
        assert_eq!(missing(&of(&[1, 2, 3])), None);
        assert_eq!(missing(&of(&[1, 2, 4])).as_deref(), Some("window 3"));
        assert_eq!(missing(&of(&[3, 5])).as_deref(), Some("windows 1, 2, 4"));
        assert_eq!(missing(&of(&[])), None);
    }
}
