//! `rocprof-xplane run`: run a program on a ROCm machine with this tool loaded.
//!
//! Sets `ROCP_TOOL_LIBRARIES` (keeping any tool already listed), the output directory and one
//! run name shared by every process the program starts, then replaces itself with the program.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Parser;

use super::launch::{absolute, find_tool_library, resolve_run_name, set_tool_env, tool_var};
use rocprof_xplane::config;

#[derive(Debug, Parser)]
#[command(about = "Run a program with the tool loaded")]
pub struct Args {
    /// Log directory (default: $ROCPROF_XPLANE_OUTPUT_DIR or ./rocprof-xplane-logs).
    /// `-d/--output-directory` as in rocprofv3.
    #[arg(long, short = 'd', visible_alias = "output-directory")]
    output_dir: Option<PathBuf>,
    /// Run directory name shared by all processes (default: $ROCPROF_XPLANE_RUN_NAME, else the launcher job id, else a timestamp).
    #[arg(long)]
    run_name: Option<String>,
    /// File name template of each process's profile, as rocprofv3's `-o`: `%hostname%`,
    /// `%pid%`, `%ppid%`, `%rank%`, `%local_rank%`, `%env{NAME}%` (ROCPROF_XPLANE_OUTPUT_FILE;
    /// default `%hostname%.%pid%`). xprof names each host after its file.
    #[arg(long, short = 'o', value_name = "TEMPLATE")]
    output_file: Option<String>,
    /// Trace kernel dispatches (rocprofv3's flag). With none of the four trace flags, all are
    /// traced; with some, only those.
    #[arg(long)]
    kernel_trace: bool,
    /// Trace HIP runtime API calls (rocprofv3's flag; `--hip-trace` also accepted).
    #[arg(long, visible_alias = "hip-trace")]
    hip_runtime_trace: bool,
    /// Trace roctx markers and ranges (rocprofv3's flag).
    #[arg(long)]
    marker_trace: bool,
    /// Trace memory copies (rocprofv3's flag).
    #[arg(long)]
    memory_copy_trace: bool,
    /// Hardware counters per kernel dispatch, space- or comma-separated (rocprofv3's flag;
    /// ROCPROF_XPLANE_PMC). Counting serialises kernels on real hardware.
    #[arg(long, value_name = "COUNTER", num_args = 1.., value_delimiter = ',')]
    pmc: Vec<String>,
    /// Read each GPU's counters every this many seconds instead of per dispatch: busy share
    /// (GPU_UTIL) and the --pmc counters over time (ROCPROF_XPLANE_PMC_INTERVAL; rocprofv3 has
    /// no option for the SDK's device counting service).
    #[arg(long, value_name = "SECONDS")]
    pmc_interval: Option<f64>,
    /// Start recording this many seconds after start-up (ROCPROF_XPLANE_START_DELAY).
    #[arg(long, value_name = "SECONDS")]
    start_delay: Option<f64>,
    /// Record for this many seconds, then write the profile (ROCPROF_XPLANE_DURATION).
    #[arg(long, value_name = "SECONDS")]
    duration: Option<f64>,
    /// Cut a capture window every this many seconds (ROCPROF_XPLANE_WINDOW_SECONDS).
    #[arg(long, value_name = "SECONDS")]
    window_seconds: Option<f64>,
    /// Cut a capture window every this many records (ROCPROF_XPLANE_WINDOW_EVENTS).
    #[arg(long, value_name = "COUNT")]
    window_events: Option<u64>,
    /// Cut a capture window when this signal arrives: USR1 or USR2 (ROCPROF_XPLANE_WINDOW_SIGNAL).
    #[arg(long, value_name = "SIGNAL")]
    window_signal: Option<String>,
    /// Cut a capture window at the end of every roctx range of this name
    /// (ROCPROF_XPLANE_WINDOW_RANGE; every N-th with --window-range-every N).
    #[arg(long, value_name = "NAME")]
    window_range: Option<String>,
    /// With --window-range: cut after every N-th such range (ROCPROF_XPLANE_WINDOW_RANGE_EVERY).
    #[arg(long, value_name = "N")]
    window_range_every: Option<u64>,
    /// roctx ranges that are the program's steps in xprof's step views: the range's text, or a
    /// pattern where `*` is any text, e.g. 'decode step *' (ROCPROF_XPLANE_STEP_RANGE).
    /// TraceMe steps (`_r`, `step_num`) and PyTorch's `ProfilerStep#N` need none.
    #[arg(long, value_name = "PATTERN")]
    step_range: Option<String>,
    /// The program and its arguments (after `--`).
    #[arg(last = true, required = true)]
    command: Vec<OsString>,
}

/// `ROCP_TOOL_LIBRARIES` with our library added. The runtime's parser drops the entry after
/// the last ':' when the value contains one, so a list always ends with ':'.
pub fn tool_libraries_value(existing: Option<&str>, ours: &str) -> String {
    match existing.map(str::trim).filter(|e| !e.is_empty()) {
        None => ours.to_string(),
        Some(e) => {
            if e.split(':').any(|t| t == ours) {
                if e.contains(':') && !e.ends_with(':') {
                    format!("{e}:")
                } else {
                    e.to_string()
                }
            } else {
                let e = e.trim_end_matches(':');
                format!("{e}:{ours}:")
            }
        }
    }
}

/// Where a ROCm installation's `librocprofiler-sdk.so` may be, in search order.
pub fn sdk_search_dirs(rocm_path: Option<&str>, ld_library_path: Option<&str>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(r) = rocm_path.filter(|r| !r.is_empty()) {
        dirs.push(Path::new(r).join("lib"));
        dirs.push(Path::new(r).join("lib64"));
    }
    for d in ld_library_path
        .unwrap_or("")
        .split(':')
        .filter(|d| !d.is_empty())
    {
        dirs.push(PathBuf::from(d));
    }
    dirs.push(PathBuf::from("/opt/rocm/lib"));
    if let Ok(rd) = std::fs::read_dir("/opt") {
        let mut more: Vec<PathBuf> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("rocm"))
            .map(|e| e.path().join("lib"))
            .collect();
        more.sort();
        dirs.extend(more);
    }
    dirs
}

/// The tool's variables the trace and capture flags set (flags override the environment).
fn capture_env(a: &Args) -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    let chosen: Vec<&str> = [
        (a.kernel_trace, "kernel"),
        (a.hip_runtime_trace, "hip"),
        (a.marker_trace, "marker"),
        (a.memory_copy_trace, "memcpy"),
    ]
    .into_iter()
    .filter_map(|(on, d)| on.then_some(d))
    .collect();
    if !chosen.is_empty() {
        v.push(("DOMAINS", chosen.join(",")));
    }
    if !a.pmc.is_empty() {
        v.push(("PMC", a.pmc.join(",")));
    }
    let secs = |x: Option<f64>| x.map(|t| t.to_string());
    for (var, value) in [
        ("PMC_INTERVAL", secs(a.pmc_interval)),
        ("START_DELAY", secs(a.start_delay)),
        ("DURATION", secs(a.duration)),
        ("WINDOW_SECONDS", secs(a.window_seconds)),
        ("WINDOW_EVENTS", a.window_events.map(|n| n.to_string())),
        ("WINDOW_SIGNAL", a.window_signal.clone()),
        ("WINDOW_RANGE", a.window_range.clone()),
        (
            "WINDOW_RANGE_EVERY",
            a.window_range_every.map(|n| n.to_string()),
        ),
        ("OUTPUT_FILE", a.output_file.clone()),
        ("STEP_RANGE", a.step_range.clone()),
    ] {
        if let Some(value) = value {
            v.push((var, value));
        }
    }
    v
}

/// The first `librocprofiler-sdk.so*` found in `dirs`.
pub fn find_sdk(dirs: &[PathBuf]) -> Option<PathBuf> {
    for d in dirs {
        for name in [
            "librocprofiler-sdk.so",
            "librocprofiler-sdk.so.1",
            "librocprofiler-sdk.so.0",
        ] {
            let p = d.join(name);
            if p.exists() {
                return Some(p);
            }
        }
    }
    None
}

pub fn execute(args: Args) -> ExitCode {
    if let Some(Err(e)) = args.output_file.as_deref().map(config::check_file_template) {
        eprintln!(
            "rocprof-xplane run: -o {:?}: {e}",
            args.output_file.unwrap_or_default()
        );
        return ExitCode::from(2);
    }
    if let Some(Err(e)) = args
        .step_range
        .as_deref()
        .map(rocprof_xplane::model::steps::StepRule::parse)
    {
        eprintln!(
            "rocprof-xplane run: --step-range {:?}: {e}",
            args.step_range.unwrap_or_default()
        );
        return ExitCode::from(2);
    }
    let dirs = sdk_search_dirs(
        std::env::var("ROCM_PATH").ok().as_deref(),
        std::env::var("LD_LIBRARY_PATH").ok().as_deref(),
    );
    let Some(sdk) = find_sdk(&dirs) else {
        eprintln!(
            "rocprof-xplane run: no ROCm runtime found (no librocprofiler-sdk.so in $ROCM_PATH/lib, \
             $LD_LIBRARY_PATH or /opt/rocm*/lib). Install ROCm ≥ 6.2 or set ROCM_PATH; without a \
             GPU, try `rocprof-xplane simulate`."
        );
        return ExitCode::from(2);
    };
    let tool = match find_tool_library() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("rocprof-xplane run: {e}");
            return ExitCode::from(2);
        }
    };
    let out_dir = args
        .output_dir
        .clone()
        .or_else(|| {
            std::env::var_os(tool_var("OUTPUT_DIR"))
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from(config::DEFAULT_OUTPUT_DIR));
    let out_dir = absolute(&out_dir);
    let run_name = match resolve_run_name(args.run_name.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rocprof-xplane run: {e}");
            return ExitCode::from(2);
        }
    };
    let libs = tool_libraries_value(
        std::env::var("ROCP_TOOL_LIBRARIES").ok().as_deref(),
        &tool.to_string_lossy(),
    );
    eprintln!(
        "rocprof-xplane run: ROCm SDK {}; profile → {}/plugins/profile/{}/",
        sdk.display(),
        out_dir.display(),
        rocprof_xplane_core::xplane::run_dir_name(&run_name)
    );
    eprintln!(
        "rocprof-xplane run: afterwards:  xprof --logdir {} --port 6006",
        out_dir.display()
    );
    let (prog, rest) = args.command.split_first().expect("clap requires a command");
    let mut cmd = Command::new(prog);
    cmd.args(rest);
    set_tool_env(&mut cmd, libs, &out_dir, &run_name);
    for (var, value) in capture_env(&args) {
        cmd.env(tool_var(var), value);
    }
    let err = cmd.exec();
    eprintln!(
        "rocprof-xplane run: cannot run {}: {err}",
        prog.to_string_lossy()
    );
    ExitCode::from(127)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocprofv3_trace_flags_and_capture_flags_become_the_tools_variables() {
        let a = Args::try_parse_from([
            "run",
            "--kernel-trace",
            "--hip-trace",
            "-d",
            "/tmp/x",
            "--duration",
            "2.5",
            "--window-signal",
            "USR1",
            "-o",
            "%hostname%.rank%rank%",
            "--",
            "prog",
        ])
        .unwrap();
        assert_eq!(a.output_dir, Some(PathBuf::from("/tmp/x")));
        assert_eq!(
            capture_env(&a),
            vec![
                ("DOMAINS", "kernel,hip".to_string()),
                ("DURATION", "2.5".to_string()),
                ("WINDOW_SIGNAL", "USR1".to_string()),
                ("OUTPUT_FILE", "%hostname%.rank%rank%".to_string()),
            ]
        );
        // rocprofv3's spelling: counters as separate words, or one comma list.
        for argv in [
            &["run", "--pmc", "SQ_WAVES", "GRBM_COUNT", "--", "p"][..],
            &["run", "--pmc", "SQ_WAVES,GRBM_COUNT", "--", "p"][..],
        ] {
            let a = Args::try_parse_from(argv).unwrap();
            assert_eq!(
                capture_env(&a),
                vec![("PMC", "SQ_WAVES,GRBM_COUNT".to_string())]
            );
        }
        let a = Args::try_parse_from([
            "run",
            "--pmc",
            "SQ_WAVES",
            "--pmc-interval",
            "0.01",
            "--",
            "p",
        ])
        .unwrap();
        assert_eq!(
            capture_env(&a),
            vec![
                ("PMC", "SQ_WAVES".to_string()),
                ("PMC_INTERVAL", "0.01".to_string())
            ]
        );
        let none = Args::try_parse_from(["run", "--output-directory", "/y", "--", "p"]).unwrap();
        assert!(
            capture_env(&none).is_empty(),
            "no flag: the tool's defaults (all domains)"
        );
        assert_eq!(none.output_dir, Some(PathBuf::from("/y")));
    }

    #[test]
    fn tool_libraries_quirk_is_respected() {
        assert_eq!(tool_libraries_value(None, "/t/ours.so"), "/t/ours.so");
        assert_eq!(tool_libraries_value(Some(""), "/t/ours.so"), "/t/ours.so");
        // Appending: end with ':' so the runtime keeps both entries.
        assert_eq!(
            tool_libraries_value(Some("/a.so"), "/t/ours.so"),
            "/a.so:/t/ours.so:"
        );
        assert_eq!(
            tool_libraries_value(Some("/a.so:/b.so:"), "/t/ours.so"),
            "/a.so:/b.so:/t/ours.so:"
        );
        // Already present: unchanged, but repaired to keep the last entry.
        assert_eq!(
            tool_libraries_value(Some("/t/ours.so"), "/t/ours.so"),
            "/t/ours.so"
        );
        assert_eq!(
            tool_libraries_value(Some("/a.so:/t/ours.so"), "/t/ours.so"),
            "/a.so:/t/ours.so:"
        );
    }

    #[test]
    fn sdk_search_finds_a_library_in_rocm_path() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("lib");
        std::fs::create_dir_all(&lib).unwrap();
        let dirs = sdk_search_dirs(Some(dir.path().to_str().unwrap()), Some("/nonexistent:"));
        assert_eq!(dirs[0], lib);
        assert!(dirs.contains(&PathBuf::from("/nonexistent")));
        let only_ours = vec![lib.clone()];
        assert_eq!(find_sdk(&only_ours), None);
        std::fs::write(lib.join("librocprofiler-sdk.so.1"), b"").unwrap();
        assert_eq!(
            find_sdk(&only_ours),
            Some(lib.join("librocprofiler-sdk.so.1"))
        );
    }
}
