//! `ROCPROF_XPLANE_*` environment, read and validated once.
//!
//! The tool runs inside someone else's program, so a bad value must never stop it: every
//! problem becomes one line on stderr naming the variable, the bad value and the default used
//! instead. Parsing is a pure function of a lookup closure so it can be tested without touching
//! the process environment.

use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Prefix shared by every variable the tool reads.
pub const PREFIX: &str = "ROCPROF_XPLANE_";

pub const DEFAULT_OUTPUT_DIR: &str = "./rocprof-xplane-logs";
/// 1 MiB per buffer (5,000–16,000 records: the delivery thread is still woken rarely). The
/// runtime holds each lossless buffer twice and the halves stay resident once written, so the
/// size is paid up to eight times in the profiled process: at 4 MiB that was 32 MiB, and on the
/// 200 k-launch storm in the simulator 1 MiB took the process's peak RSS from 201 to 185–187 MB (about 24 B per
/// record; docs/performance.md). XLA's tracer uses 400 KiB.
pub const DEFAULT_BUFFER_SIZE: usize = 1 << 20;
/// Smallest buffer accepted: one page holds a few dozen records of the largest kind.
pub const MIN_BUFFER_SIZE: usize = 4096;
/// Largest buffer accepted: the runtime allocates a LOSSLESS buffer twice, once per traced kind, so
/// a typo such as `100g` must not be able to take the profiled program's memory.
pub const MAX_BUFFER_SIZE: usize = 1 << 30;

/// Which record families to trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Domains {
    pub hip: bool,
    pub kernel: bool,
    pub memcpy: bool,
    pub marker: bool,
}

impl Domains {
    pub const ALL: Domains = Domains {
        hip: true,
        kernel: true,
        memcpy: true,
        marker: true,
    };
    pub const NONE: Domains = Domains {
        hip: false,
        kernel: false,
        memcpy: false,
        marker: false,
    };

    pub fn any(&self) -> bool {
        self.hip || self.kernel || self.memcpy || self.marker
    }
}

impl fmt::Display for Domains {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = Vec::new();
        for (on, name) in [
            (self.hip, "hip"),
            (self.kernel, "kernel"),
            (self.memcpy, "memcpy"),
            (self.marker, "marker"),
        ] {
            if on {
                names.push(name);
            }
        }
        f.write_str(&names.join(","))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Off,
    Error,
    Warn,
    Info,
    Debug,
}

impl LogLevel {
    fn parse(s: &str) -> Option<LogLevel> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "off" | "none" | "0" => LogLevel::Off,
            "error" | "1" => LogLevel::Error,
            "warn" | "warning" | "2" => LogLevel::Warn,
            "info" | "3" => LogLevel::Info,
            "debug" | "trace" | "4" => LogLevel::Debug,
            _ => return None,
        })
    }
}

/// The most threads `ROCPROF_XPLANE_WRITE_THREADS` may ask for: each holds a plane being built.
pub const MAX_WRITE_THREADS: usize = 64;

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Log directory given to xprof (`xprof --logdir`); the profile lands in
    /// `<output_dir>/plugins/profile/<run_name>/`.
    pub output_dir: PathBuf,
    /// Run directory name. Every process of one job must use the same value to appear as one
    /// run in xprof; the default is a UTC timestamp taken when the tool is configured.
    pub run_name: String,
    /// True when `run_name` came from the environment rather than the clock.
    pub run_name_explicit: bool,
    pub domains: Domains,
    /// Bytes per rocprofiler buffer (each kind has its own).
    pub buffer_size: usize,
    /// Buffer-trace every HIP call (`ROCPROF_XPLANE_HIP_API=all`) rather than the ones the
    /// output needs (`crate::hip::traced_by_default`).
    pub hip_api_all: bool,
    /// Memory ceiling for what the tool holds, in bytes (0 = none); see `budget`.
    pub max_memory: u64,
    /// Capture windows, when asked for.
    pub window: Option<WindowRule>,
    /// `ROCPROF_XPLANE_WINDOW_RANGE`: the roctx range whose end cuts a window.
    pub window_range: Option<String>,
    /// `ROCPROF_XPLANE_START_DELAY`: records only from this long after start-up.
    pub start_delay_ms: Option<u64>,
    /// `ROCPROF_XPLANE_DURATION`: records only for this long (after the delay); the profile is
    /// written when it ends.
    pub duration_ms: Option<u64>,
    /// `ROCPROF_XPLANE_OUTPUT_FILE`: the file name's template (`%hostname%`, `%pid%`, `%rank%`,
    /// …; see [`expand_file_name`]); `None` = `<host>.<pid>`.
    pub file_template: Option<String>,
    /// `ROCPROF_XPLANE_SERVER`: where the profiler service listens (`host:port`; a bare port
    /// means 127.0.0.1). Off unless set.
    pub server: Option<String>,
    /// The flight recorder of continuous profiling (`server::ring`).
    pub ring: RingRule,
    /// `ROCPROF_XPLANE_CONTINUOUS`: start continuous profiling at start-up (needs `server`).
    pub continuous: bool,
    /// When true the tool opts out in `rocprofiler_configure`.
    pub disable: bool,
    pub log: LogLevel,
    /// What a terminating signal does (`terminate`).
    pub term: TermRule,
    /// `ROCPROF_XPLANE_WRITE_THREADS`: threads that build a profile's planes, as set; `None` =
    /// decided when writing (`xplane::plane_threads`: the cores, at most
    /// [`crate::xplane::MAX_PLANE_THREADS`], as far as the memory they add stays under the
    /// process's peak).
    pub write_threads: Option<usize>,
}

/// The signals after which the profile is written before the process ends as the signal
/// would end it (`ROCPROF_XPLANE_TERM_SIGNALS`, `ROCPROF_XPLANE_TERM_TIMEOUT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermRule {
    /// SIGTERM and SIGINT unless set (`none`: the signals are left alone).
    pub signals: Vec<i32>,
    /// How long writing may take before the process ends anyway.
    pub timeout_ms: u64,
}

impl Default for TermRule {
    /// 20 s: inside the 30 s that Slurm (`KillWait`) and Kubernetes
    /// (`terminationGracePeriodSeconds`) wait between SIGTERM and SIGKILL.
    fn default() -> Self {
        TermRule {
            signals: vec![libc::SIGTERM, libc::SIGINT],
            timeout_ms: 20_000,
        }
    }
}

/// `TERM,INT` → the signals; `none` (or `off`, or empty) → none.
fn parse_term_signals(v: &str) -> Result<Vec<i32>, String> {
    let v = v.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("none") || v.eq_ignore_ascii_case("off") {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for part in v.split(',') {
        let sig = match part.trim().to_ascii_uppercase().trim_start_matches("SIG") {
            "TERM" => libc::SIGTERM,
            "INT" => libc::SIGINT,
            "HUP" => libc::SIGHUP,
            other => {
                return Err(format!(
                    "unknown signal {other:?}: expected TERM, INT, HUP or none"
                ))
            }
        };
        if !out.contains(&sig) {
            out.push(sig);
        }
    }
    Ok(out)
}

/// How much the flight recorder keeps: the most recent `seconds`, at most `max_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingRule {
    pub keep_ms: u64,
    pub max_bytes: u64,
}

impl Default for RingRule {
    fn default() -> Self {
        RingRule {
            keep_ms: 30_000,
            max_bytes: 256 << 20,
        }
    }
}

/// The window size of the streaming pipeline (no window rule set, `WINDOW_MERGE` unset or
/// on): on the MaxText-sized run in the simulator (9 M records) the tool's heap peaked at
/// 45–48 B per record against 95 B held whole, at 20.7 M records 33 B against 94 B
/// (docs/performance.md).
pub const DEFAULT_MERGE_WINDOW_EVENTS: u64 = 1_000_000;

/// When to cut capture windows (`window`); any of the three ends the current window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowRule {
    /// `ROCPROF_XPLANE_WINDOW_SECONDS`: every this many milliseconds.
    pub period_ms: Option<u64>,
    /// `ROCPROF_XPLANE_WINDOW_EVENTS`: once this many records were delivered.
    pub events: Option<u64>,
    /// `ROCPROF_XPLANE_WINDOW_SIGNAL`: when this signal (SIGUSR1 or SIGUSR2) arrives.
    pub signal: Option<i32>,
    /// `ROCPROF_XPLANE_WINDOW_RANGE` (the name, in `Config::window_range`): after every this
    /// many closings of the roctx range of that name (`…_WINDOW_RANGE_EVERY`, default 1).
    pub range_every: Option<u64>,
    /// `ROCPROF_XPLANE_WINDOW_MERGE`: at exit the windows are merged into one profile of the
    /// run (`xplane::merge`) and removed: the memory of one window, one profile.
    pub merge: bool,
    /// No window rule was set: these are the streaming pipeline's windows (of
    /// `DEFAULT_MERGE_WINDOW_EVENTS` records), the run's working files, not windows the user
    /// asked to see: they are reported at `debug` level only, and never cut an attach
    /// session.
    pub by_default: bool,
}

/// One problem found while parsing; shown as a single stderr line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning(pub String);

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Config {
    /// Parses from any lookup (the real environment, or a map in tests). `now_unix_s` supplies
    /// the default run name.
    pub fn parse(
        lookup: impl Fn(&str) -> Option<String>,
        now_unix_s: u64,
    ) -> (Config, Vec<ConfigWarning>) {
        let mut warnings = Vec::new();
        let get = |name: &str| lookup(&format!("{PREFIX}{name}")).filter(|v| !v.trim().is_empty());
        let mut bad = |name: &str, value: &str, why: &str, default: &str| {
            warnings.push(ConfigWarning(format!(
                "{PREFIX}{name}={value:?} is invalid ({why}); using default {default}"
            )));
        };

        let disable = match get("DISABLE") {
            None => false,
            Some(v) => match parse_bool(&v) {
                Some(b) => b,
                None => {
                    bad(
                        "DISABLE",
                        &v,
                        "expected 1/0, true/false, yes/no, on/off",
                        "0",
                    );
                    false
                }
            },
        };

        let log = match get("LOG") {
            None => LogLevel::Warn,
            Some(v) => LogLevel::parse(&v).unwrap_or_else(|| {
                bad(
                    "LOG",
                    &v,
                    "expected off, error, warn, info or debug",
                    "warn",
                );
                LogLevel::Warn
            }),
        };

        let output_dir = get("OUTPUT_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_OUTPUT_DIR));

        let default_run = job_run_name(&lookup).unwrap_or_else(|| run_name_for(now_unix_s));
        let (run_name, run_name_explicit) = match get("RUN_NAME") {
            None => (default_run, false),
            Some(v) => match check_run_name(&v) {
                Ok(v) => (v, true),
                Err(why) => {
                    bad("RUN_NAME", v.trim(), why, &default_run);
                    (default_run, false)
                }
            },
        };

        let domains = match get("DOMAINS") {
            None => Domains::ALL,
            Some(v) => match parse_domains(&v) {
                Ok(d) => d,
                Err(why) => {
                    bad("DOMAINS", &v, &why, &Domains::ALL.to_string());
                    Domains::ALL
                }
            },
        };

        let buffer_size = match get("BUFFER_SIZE") {
            None => DEFAULT_BUFFER_SIZE,
            Some(v) => match parse_size(&v) {
                Some(n) if (MIN_BUFFER_SIZE..=MAX_BUFFER_SIZE).contains(&n) => n,
                Some(_) => {
                    bad(
                        "BUFFER_SIZE",
                        &v,
                        &format!(
                            "outside the accepted range (minimum {MIN_BUFFER_SIZE} bytes, maximum {} MiB)",
                            MAX_BUFFER_SIZE >> 20
                        ),
                        &DEFAULT_BUFFER_SIZE.to_string(),
                    );
                    DEFAULT_BUFFER_SIZE
                }
                None => {
                    bad(
                        "BUFFER_SIZE",
                        &v,
                        "expected bytes with an optional k/m/g suffix",
                        &DEFAULT_BUFFER_SIZE.to_string(),
                    );
                    DEFAULT_BUFFER_SIZE
                }
            },
        };

        let hip_api_all = match get("HIP_API").map(|v| v.trim().to_ascii_lowercase()) {
            None => false,
            Some(v) if v == "needed" => false,
            Some(v) if v == "all" => true,
            Some(v) => {
                bad("HIP_API", &v, "expected needed or all", "needed");
                false
            }
        };

        let max_memory = match get("MAX_MEMORY").map(|v| v.trim().to_ascii_lowercase()) {
            None => crate::budget::default_limit(),
            Some(v) if v == "none" || v == "off" || v == "0" => 0,
            Some(v) => match parse_size(&v) {
                Some(n) => n as u64,
                None => {
                    let d = crate::budget::default_limit();
                    bad(
                        "MAX_MEMORY",
                        &v,
                        "expected bytes with an optional k/m/g suffix, or none",
                        &format!("{} MiB (a quarter of physical memory)", d >> 20),
                    );
                    d
                }
            },
        };

        let write_threads = get("WRITE_THREADS").and_then(|v| match v.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_WRITE_THREADS).contains(&n) => Some(n),
            _ => {
                bad(
                    "WRITE_THREADS",
                    &v,
                    &format!("expected a thread count from 1 to {MAX_WRITE_THREADS}"),
                    &format!(
                        "the cores this process may use, at most {}, within its peak memory",
                        crate::xplane::MAX_PLANE_THREADS
                    ),
                );
                None
            }
        });

        let events = get("WINDOW_EVENTS").and_then(|v| match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                bad(
                    "WINDOW_EVENTS",
                    &v,
                    "expected a positive count",
                    "no count windows",
                );
                None
            }
        });
        let signal = get("WINDOW_SIGNAL").and_then(|v| {
            match v.trim().to_ascii_uppercase().trim_start_matches("SIG") {
                "USR1" => Some(libc::SIGUSR1),
                "USR2" => Some(libc::SIGUSR2),
                _ => {
                    bad(
                        "WINDOW_SIGNAL",
                        &v,
                        "expected USR1 or USR2",
                        "no signal windows",
                    );
                    None
                }
            }
        });
        let mut secs = |name: &str, min: f64, default: &str| {
            get(name).and_then(|v| match v.trim().trim_end_matches('s').parse::<f64>() {
                Ok(t) if t.is_finite() && (min..=1e7).contains(&t) => Some((t * 1e3) as u64),
                _ => {
                    let why = if min > 0.0 {
                        format!("expected seconds, at least {min}")
                    } else {
                        "expected seconds".to_string()
                    };
                    bad(name, &v, &why, default);
                    None
                }
            })
        };
        let seconds = secs("WINDOW_SECONDS", 0.05, "no time windows");
        let mut start_delay_ms = secs("START_DELAY", 0.0, "none").filter(|&ms| ms > 0);
        let mut duration_ms = secs("DURATION", 0.0, "none").filter(|&ms| ms > 0);
        let ring_keep_ms = secs("RING_SECONDS", 0.5, "30");
        let term_timeout_ms = secs("TERM_TIMEOUT", 0.01, "20");
        let ring_bytes = get("RING_MEMORY").and_then(|v| match parse_size(&v) {
            Some(n) if n >= 64 << 10 => Some(n as u64),
            _ => {
                bad(
                    "RING_MEMORY",
                    &v,
                    "expected bytes with an optional k/m/g suffix, at least 64k",
                    "256m",
                );
                None
            }
        });
        let ring = RingRule {
            keep_ms: ring_keep_ms.unwrap_or(RingRule::default().keep_ms),
            max_bytes: ring_bytes.unwrap_or(RingRule::default().max_bytes),
        };
        let term = TermRule {
            signals: match get("TERM_SIGNALS").map(|v| parse_term_signals(&v).map_err(|e| (v, e))) {
                None => TermRule::default().signals,
                Some(Ok(s)) => s,
                Some(Err((v, why))) => {
                    bad("TERM_SIGNALS", &v, &why, "TERM,INT");
                    TermRule::default().signals
                }
            },
            timeout_ms: term_timeout_ms.unwrap_or(TermRule::default().timeout_ms),
        };

        let file_template = get("OUTPUT_FILE").and_then(|v| match check_file_template(&v) {
            Ok(t) => Some(t),
            Err(why) => {
                bad("OUTPUT_FILE", &v, &why, "%hostname%.%pid%");
                None
            }
        });
        let mut window_range = get("WINDOW_RANGE").map(|v| v.to_string());
        let range_every = match get("WINDOW_RANGE_EVERY") {
            None => 1,
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) if n > 0 => n,
                _ => {
                    bad("WINDOW_RANGE_EVERY", &v, "expected a positive count", "1");
                    1
                }
            },
        };
        let local_rank = local_rank(&lookup);
        let server = get("SERVER").and_then(|v| match check_server_address(&v, local_rank) {
            Ok(a) => Some(a),
            Err(why) => {
                bad("SERVER", &v, &why, "no profiler service");
                None
            }
        });
        let any_window =
            seconds.is_some() || events.is_some() || signal.is_some() || window_range.is_some();
        // Unset: a run with no window rule and no bounded capture is joined while it goes on,
        // in windows of `DEFAULT_MERGE_WINDOW_EVENTS` records made one profile at exit (the
        // streaming pipeline: the memory of one window, however long the run); a rule set
        // keeps its windows apart, each its own profile, as the user asked.
        let streaming = !any_window && start_delay_ms.is_none() && duration_ms.is_none();
        let merge = match get("WINDOW_MERGE") {
            None => streaming,
            Some(v) => match parse_bool(&v) {
                Some(b) => b,
                None => {
                    bad(
                        "WINDOW_MERGE",
                        &v,
                        "expected 1/0, true/false, yes/no, on/off",
                        "0",
                    );
                    false
                }
            },
        };
        let continuous = match get("CONTINUOUS") {
            None => false,
            Some(v) => match parse_bool(&v) {
                Some(b) if b && server.is_none() => {
                    warnings.push(ConfigWarning(format!(
                        "{PREFIX}CONTINUOUS needs {PREFIX}SERVER (snapshots are taken through it); continuous profiling is off"
                    )));
                    false
                }
                Some(b) => b,
                None => {
                    bad(
                        "CONTINUOUS",
                        &v,
                        "expected 1/0, true/false, yes/no, on/off",
                        "0",
                    );
                    false
                }
            },
        };
        // `WINDOW_MERGE` alone: windows of `DEFAULT_MERGE_WINDOW_EVENTS` records, the run's
        // memory bounded by one of them and its profile still one.
        let events = events.or((merge && !any_window).then_some(DEFAULT_MERGE_WINDOW_EVENTS));
        let mut window = (any_window || merge).then_some(WindowRule {
            period_ms: seconds,
            events,
            signal,
            range_every: window_range.as_ref().map(|_| range_every),
            merge,
            by_default: merge && !any_window,
        });

        if server.is_some() {
            if any_window || start_delay_ms.is_some() || duration_ms.is_some() {
                warnings.push(ConfigWarning(format!(
                    "{PREFIX}SERVER is set: the profiler service decides what is captured, so capture windows, START_DELAY and DURATION are off"
                )));
            }
            // Its captures are one profile each, cut by the service (`server::capture`).
            window = None;
            window_range = None;
            start_delay_ms = None;
            duration_ms = None;
        }

        let cfg = Config {
            output_dir,
            run_name,
            run_name_explicit,
            domains,
            buffer_size,
            hip_api_all,
            max_memory,
            window,
            window_range,
            start_delay_ms,
            duration_ms,
            file_template,
            server,
            ring,
            continuous,
            disable,
            log,
            term,
            write_threads,
        };
        (cfg, warnings)
    }

    /// Watermark at 7/8 of the buffer, as the SDK samples do: delivery starts before the buffer
    /// is full, so LOSSLESS writers rarely block.
    pub fn buffer_watermark(&self) -> usize {
        self.buffer_size - self.buffer_size / 8
    }
}

static GLOBAL: OnceLock<Config> = OnceLock::new();

/// The process configuration, parsed from the environment on first use; problems are printed
/// once (unless logging is off).
pub fn get() -> &'static Config {
    GLOBAL.get_or_init(|| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let secure = secure_execution();
        let (cfg, mut warnings) = Config::parse(|k| env_for(secure, k), now);
        if secure {
            warnings.push(ConfigWarning(
                "secure-execution (setuid/setgid or capabilities) process: ROCPROF_XPLANE_* and \
                 job variables are ignored, defaults used"
                    .into(),
            ));
        }
        if cfg.log > LogLevel::Off {
            for w in &warnings {
                crate::log::stderr_line(format_args!("rocprof-xplane: {w}"));
            }
        }
        cfg
    })
}

/// The one rule for run names, applied by the tool (`ROCPROF_XPLANE_RUN_NAME`) and the CLI
/// (`--run-name`) alike: one directory name, not a path. Other characters are kept here and
/// made safe for the file system when the directory is named (`xplane::file::run_dir_name`:
/// `a:b` is written as `a_b`).
/// Tokens of `ROCPROF_XPLANE_OUTPUT_FILE` (rocprofv3's `-o` spelling), each with the
/// environment variables that give it, in order (`%hostname%` and `%pid%` come from the
/// process itself).
const RANK_VARS: &[&str] = &[
    "RANK",
    "OMPI_COMM_WORLD_RANK",
    "SLURM_PROCID",
    "PMI_RANK",
    "PMIX_RANK",
];
const LOCAL_RANK_VARS: &[&str] = &[
    "LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "SLURM_LOCALID",
    "MPI_LOCALRANKID",
];

/// Checks a file-name template: one path component (no `/`), only known `%…%` tokens.
pub fn check_file_template(v: &str) -> Result<String, String> {
    let v = v.trim().trim_end_matches(".xplane.pb");
    if v.is_empty() || v.contains('/') || v == "." || v == ".." {
        return Err("expected one file name (no '/'), e.g. %hostname%.rank%rank%".into());
    }
    let mut rest = v;
    while let Some(i) = rest.find('%') {
        let after = &rest[i + 1..];
        let j = after.find('%').ok_or("a '%' without its closing '%'")?;
        let token = &after[..j];
        let known = matches!(token, "hostname" | "pid" | "ppid" | "rank" | "local_rank")
            || token
                .strip_prefix("env{")
                .and_then(|t| t.strip_suffix('}'))
                .is_some_and(|n| !n.is_empty());
        if !known {
            return Err(format!(
                "unknown token %{token}% (known: %hostname%, %pid%, %ppid%, %rank%, %local_rank%, %env{{NAME}}%)"
            ));
        }
        rest = &after[j + 1..];
    }
    Ok(v.to_string())
}

/// The file's host part from a checked template: `%rank%` / `%local_rank%` without a launcher
/// variable become `0`, an unset `%env{NAME}%` becomes empty; `/` in a value becomes `_`.
pub fn expand_file_name(
    template: &str,
    hostname: &str,
    pid: u32,
    lookup: impl Fn(&str) -> Option<String>,
) -> String {
    let first = |vars: &[&str]| {
        vars.iter()
            .find_map(|k| lookup(k).filter(|v| !v.trim().is_empty()))
            .unwrap_or_else(|| "0".into())
    };
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let Some(j) = after.find('%') else {
            out.push_str(&rest[i..]);
            rest = "";
            break;
        };
        let token = &after[..j];
        let value = match token {
            "hostname" => hostname.to_string(),
            "pid" => pid.to_string(),
            // SAFETY: getppid has no preconditions and cannot fail.
            "ppid" => unsafe { libc::getppid() }.to_string(),
            "rank" => first(RANK_VARS),
            "local_rank" => first(LOCAL_RANK_VARS),
            t => t
                .strip_prefix("env{")
                .and_then(|t| t.strip_suffix('}'))
                .and_then(&lookup)
                .unwrap_or_default(),
        };
        out.push_str(&value.replace('/', "_"));
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    out
}

/// The launcher's local rank of this process (`torchrun`, Open MPI, Slurm, MPICH/Intel MPI).
fn local_rank(lookup: &impl Fn(&str) -> Option<String>) -> Option<u32> {
    LOCAL_RANK_VARS
        .iter()
        .find_map(|k| lookup(k).and_then(|v| v.trim().parse().ok()))
}

/// `ROCPROF_XPLANE_SERVER`: `port` (127.0.0.1), `host:port` or `[v6]:port`; port 0 lets the
/// system choose (the bound address is logged); `PORT+rank` adds the launcher's local rank, so
/// one setting serves every rank of a node. Names are resolved when the service starts.
pub fn check_server_address(v: &str, local_rank: Option<u32>) -> Result<String, String> {
    let v = v.trim();
    let (host, port) = match v.rsplit_once(':') {
        Some((h, p)) if !p.contains(']') => (Some(h), p),
        _ => (None, v),
    };
    let (port, plus_rank) = match port.strip_suffix("+rank") {
        Some(p) => (p, true),
        None => (port, false),
    };
    let mut port = port
        .parse::<u16>()
        .map_err(|_| format!("port {port:?} is not a number below 65536 (forms: port, host:port, [v6]:port, PORT+rank)"))?;
    if plus_rank {
        let rank = local_rank.ok_or(
            "PORT+rank, but no local rank is set (LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, MPI_LOCALRANKID)",
        )?;
        port = u16::try_from(u32::from(port) + rank)
            .ok()
            .filter(|&p| p > 0 && port > 0)
            .ok_or(format!("port {port} + local rank {rank} is not a port"))?;
    }
    let Some(host) = host else {
        return Ok(format!("127.0.0.1:{port}"));
    };
    if host.is_empty() || host.contains('/') {
        return Err("the host part is empty or holds '/'".into());
    }
    if host.contains(':') && !(host.starts_with('[') && host.ends_with(']')) {
        return Err("an IPv6 address goes in brackets: [::1]:port".into());
    }
    Ok(format!("{host}:{port}"))
}

pub fn check_run_name(v: &str) -> Result<String, &'static str> {
    let v = v.trim();
    if v.is_empty() || v.contains('/') || v == "." || v == ".." {
        Err("must be a single directory name")
    } else {
        Ok(v.to_string())
    }
}

/// Whether the kernel runs this process in secure-execution mode (`AT_SECURE`: setuid/setgid
/// binaries, file capabilities), where the environment belongs to a less privileged caller:
/// like glibc, which then drops `LD_PRELOAD` and friends, the tool must not let it choose where
/// a privileged process writes or how much memory it takes.
/// The process environment as the tool reads it: nothing in a setuid/setgid program.
pub fn env_var(key: &str) -> Option<String> {
    env_for(secure_execution(), key)
}

fn secure_execution() -> bool {
    // SAFETY: `getauxval` only reads the process's auxiliary vector; any key is allowed.
    unsafe { libc::getauxval(libc::AT_SECURE) != 0 }
}

/// The environment as the configuration may see it: nothing in secure-execution mode.
fn env_for(secure: bool, key: &str) -> Option<String> {
    if secure {
        None
    } else {
        std::env::var(key).ok()
    }
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// Comma-separated subset of hip,kernel,memcpy,marker; `all` and `none` are accepted.
fn parse_domains(v: &str) -> Result<Domains, String> {
    let mut d = Domains::NONE;
    for tok in v.split(',').map(|t| t.trim().to_ascii_lowercase()) {
        match tok.as_str() {
            "" => {}
            "hip" => d.hip = true,
            "kernel" | "kernels" => d.kernel = true,
            "memcpy" | "copy" => d.memcpy = true,
            "marker" | "markers" | "roctx" => d.marker = true,
            "all" => d = Domains::ALL,
            "none" => {}
            other => {
                return Err(format!(
                    "unknown domain '{other}'; known: hip, kernel, memcpy, marker, all, none"
                ))
            }
        }
    }
    Ok(d)
}

/// Bytes with an optional binary suffix: `65536`, `64k`, `4m`, `1g` (also `KiB`, `MB`, …).
pub fn parse_size(v: &str) -> Option<usize> {
    let s = v.trim().to_ascii_lowercase();
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits_end == 0 {
        return None;
    }
    let n: usize = s[..digits_end].parse().ok()?;
    let mult: usize = match s[digits_end..].trim() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// `YYYY_MM_DD_HH_MM_SS` in UTC, the run-directory name xprof's own profiler uses.
/// Job identifiers that launchers export to every process of one job, in order of preference, with
/// the prefix of the run name they give. With one of them set, the ranks of an MPI/Slurm/torchrun
/// job land in one run directory (one xprof profile, one host per process) with no setup at all.
const JOB_ID_VARS: &[(&str, &str)] = &[
    ("SLURM_JOB_ID", "slurm"),
    ("PMIX_NAMESPACE", "pmix"),
    ("OMPI_MCA_orte_ess_jobid", "ompi"),
    ("PBS_JOBID", "pbs"),
    ("LSB_JOBID", "lsf"),
    ("FLUX_JOB_ID", "flux"),
    ("TORCHELASTIC_RUN_ID", "torchrun"),
];

/// The default run name shared by every process of a launcher's job, e.g. `slurm_4242.0`
/// (job 4242, step 0), or `None` outside any known launcher. Characters that cannot appear in
/// a directory name are replaced by `_`.
pub fn job_run_name(lookup: impl Fn(&str) -> Option<String>) -> Option<String> {
    let clean = |v: &str| -> String {
        v.trim()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    JOB_ID_VARS.iter().find_map(|(var, label)| {
        let id = clean(&lookup(var)?);
        // torchrun's default rendezvous id is the literal "none": not a job identity.
        if id.is_empty() || id.chars().all(|c| c == '.') || id == "none" {
            return None;
        }
        let step = if *var == "SLURM_JOB_ID" {
            lookup("SLURM_STEP_ID")
                .map(|s| clean(&s))
                .filter(|s| !s.is_empty())
        } else {
            None
        };
        Some(match step {
            Some(step) => format!("{label}_{id}.{step}"),
            None => format!("{label}_{id}"),
        })
    })
}

pub fn run_name_for(unix_s: u64) -> String {
    let days = (unix_s / 86_400) as i64;
    let secs = unix_s % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}_{m:02}_{d:02}_{:02}_{:02}_{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secure_execution_sees_no_environment() {
        // A variable only this test uses.
        std::env::set_var("ROCPROF_XPLANE_TEST_SECURE_PROBE", "/attacker/chosen");
        assert_eq!(
            env_for(false, "ROCPROF_XPLANE_TEST_SECURE_PROBE").as_deref(),
            Some("/attacker/chosen")
        );
        assert_eq!(env_for(true, "ROCPROF_XPLANE_TEST_SECURE_PROBE"), None);
        // The test binary itself is not setuid.
        assert!(!secure_execution());
    }
    use std::collections::HashMap;

    fn parse(vars: &[(&str, &str)]) -> (Config, Vec<ConfigWarning>) {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (format!("{PREFIX}{k}"), v.to_string()))
            .collect();
        Config::parse(|k| map.get(k).cloned(), 1_700_000_000)
    }

    #[test]
    fn file_name_templates_as_rocprofv3_spells_them() {
        let env = |k: &str| match k {
            "RANK" => Some("7".to_string()),
            "SLURM_LOCALID" => Some("3".to_string()),
            "JOB" => Some("a/b".to_string()),
            _ => None,
        };
        let t = check_file_template("%hostname%.rank%rank%.xplane.pb").unwrap();
        assert_eq!(t, "%hostname%.rank%rank%");
        assert_eq!(expand_file_name(&t, "node1", 42, env), "node1.rank7");
        let t = check_file_template("job%env{JOB}%_l%local_rank%_%pid%").unwrap();
        assert_eq!(expand_file_name(&t, "h", 42, env), "joba_b_l3_42");
        assert_eq!(expand_file_name("r%rank%", "h", 1, |_| None), "r0");
        for bad in ["", "a/b", "%nope%", "x%pid", "%env{}%", ".."] {
            assert!(check_file_template(bad).is_err(), "{bad}");
        }
        let (c, w) = parse(&[("OUTPUT_FILE", "%bogus%")]);
        assert_eq!(c.file_template, None);
        assert!(w[0].0.contains("unknown token"), "{w:?}");
    }

    /// `WINDOW_MERGE` merges the windows of the rule set; alone, it cuts windows of
    /// `DEFAULT_MERGE_WINDOW_EVENTS` records; a value that is not a yes or a no is refused.
    /// Unset, it is on where no window rule and no bounded capture is set (the streaming
    /// pipeline), off where one is, and `0` holds the run whole until exit.
    #[test]
    fn window_merge_merges_the_windows_set_or_its_own() {
        let (c, w) = parse(&[]);
        let rule = c.window.unwrap();
        assert!(
            rule.merge && rule.by_default && w.is_empty(),
            "{rule:?} {w:?}"
        );
        assert_eq!(rule.events, Some(DEFAULT_MERGE_WINDOW_EVENTS));
        for bounded in [("START_DELAY", "1"), ("DURATION", "1")] {
            assert!(parse(&[bounded]).0.window.is_none(), "{bounded:?}");
        }
        let (c, w) = parse(&[("SERVER", "6009")]);
        assert!(c.window.is_none() && w.is_empty(), "{w:?}");
        let rule = parse(&[("WINDOW_EVENTS", "10")]).0.window.unwrap();
        assert!(!rule.merge && !rule.by_default, "{rule:?}");
        let (c, w) = parse(&[("WINDOW_SECONDS", "1"), ("WINDOW_MERGE", "1")]);
        let rule = c.window.unwrap();
        assert!(rule.merge && rule.events.is_none() && w.is_empty(), "{w:?}");
        let (c, w) = parse(&[("WINDOW_SECONDS", "1")]);
        assert!(!c.window.unwrap().merge && w.is_empty());
        let (c, w) = parse(&[("WINDOW_MERGE", "yes")]);
        let rule = c.window.unwrap();
        assert!(rule.merge && rule.by_default && w.is_empty(), "{w:?}");
        assert_eq!(rule.events, Some(DEFAULT_MERGE_WINDOW_EVENTS));
        assert_eq!(
            (rule.period_ms, rule.signal, rule.range_every),
            (None, None, None)
        );
        let (c, _) = parse(&[("WINDOW_MERGE", "0")]);
        assert!(c.window.is_none());
        let (c, w) = parse(&[("WINDOW_EVENTS", "10"), ("WINDOW_MERGE", "maybe")]);
        assert!(!c.window.unwrap().merge);
        assert!(w.iter().any(|w| w.0.contains("WINDOW_MERGE")), "{w:?}");
    }

    #[test]
    fn windows_on_a_roctx_range() {
        let (c, w) = parse(&[("WINDOW_RANGE", "train_step"), ("WINDOW_RANGE_EVERY", "25")]);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(c.window_range.as_deref(), Some("train_step"));
        assert_eq!(c.window.unwrap().range_every, Some(25));
        let (c, w) = parse(&[("WINDOW_RANGE", "step"), ("WINDOW_RANGE_EVERY", "0")]);
        assert_eq!(c.window.unwrap().range_every, Some(1));
        assert_eq!(w.len(), 1, "{w:?}");
        // Without the range, no range rule: the run's default windows only.
        let rule = parse(&[("WINDOW_RANGE_EVERY", "3")]).0.window.unwrap();
        assert!(rule.by_default && rule.range_every.is_none(), "{rule:?}");
    }

    #[test]
    fn the_service_address_forms_and_what_it_turns_off() {
        let server = |v: &str| parse(&[("SERVER", v)]).0.server;
        assert_eq!(server("6009").as_deref(), Some("127.0.0.1:6009"));
        assert_eq!(server("0.0.0.0:6009").as_deref(), Some("0.0.0.0:6009"));
        assert_eq!(server("localhost:1").as_deref(), Some("localhost:1"));
        assert_eq!(server("[::1]:6009").as_deref(), Some("[::1]:6009"));
        for bad in ["::1:6009", "host:port", ":6009", "a/b:1", "70000", "x"] {
            let (c, w) = parse(&[("SERVER", bad)]);
            assert_eq!(c.server, None, "{bad}");
            assert!(w[0].0.contains("SERVER"), "{bad}: {w:?}");
        }
        let raw = |vars: &[(&str, &str)]| {
            let map: HashMap<String, String> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Config::parse(|k| map.get(k).cloned(), 1_700_000_000)
        };
        let ranked =
            |v: &str, rank: (&str, &str)| raw(&[("ROCPROF_XPLANE_SERVER", v), rank]).0.server;
        assert_eq!(
            ranked("0.0.0.0:6009+rank", ("LOCAL_RANK", "3")).as_deref(),
            Some("0.0.0.0:6012")
        );
        assert_eq!(
            ranked("7000+rank", ("SLURM_LOCALID", "1")).as_deref(),
            Some("127.0.0.1:7001")
        );
        assert_eq!(ranked("65535+rank", ("LOCAL_RANK", "1")), None);
        let (c, w) = parse(&[("SERVER", "7000+rank")]);
        assert_eq!(c.server, None);
        assert!(w[0].0.contains("no local rank"), "{w:?}");
        let (c, w) = parse(&[
            ("SERVER", "7000"),
            ("WINDOW_SECONDS", "5"),
            ("DURATION", "3"),
        ]);
        assert!(c.window.is_none() && c.duration_ms.is_none(), "{c:?}");
        assert!(w.iter().any(|w| w.0.contains("service decides")), "{w:?}");

        let (c, w) = parse(&[("CONTINUOUS", "1")]);
        assert!(!c.continuous, "needs the service");
        assert!(w[0].0.contains("needs ROCPROF_XPLANE_SERVER"), "{w:?}");
        let (c, w) = parse(&[
            ("SERVER", "7000"),
            ("CONTINUOUS", "yes"),
            ("RING_SECONDS", "2.5"),
            ("RING_MEMORY", "64m"),
        ]);
        assert!(w.is_empty(), "{w:?}");
        assert!(c.continuous);
        assert_eq!(
            c.ring,
            RingRule {
                keep_ms: 2500,
                max_bytes: 64 << 20
            }
        );
        let (c, w) = parse(&[("RING_SECONDS", "0.1"), ("RING_MEMORY", "10k")]);
        assert_eq!(c.ring, RingRule::default());
        assert_eq!(w.len(), 2, "{w:?}");
    }

    #[test]
    fn launcher_job_ids_give_one_shared_run_name() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let slurm = env(&[("SLURM_JOB_ID", "4242"), ("SLURM_STEP_ID", "0")]);
        assert_eq!(job_run_name(slurm).as_deref(), Some("slurm_4242.0"));
        let pmix = env(&[("PMIX_NAMESPACE", "prterun-node1-77@1")]);
        assert_eq!(
            job_run_name(pmix).as_deref(),
            Some("pmix_prterun-node1-77_1")
        );
        let both = env(&[("TORCHELASTIC_RUN_ID", "abc"), ("PBS_JOBID", "9.server")]);
        assert_eq!(
            job_run_name(both).as_deref(),
            Some("pbs_9.server"),
            "order of preference"
        );
        assert_eq!(job_run_name(env(&[("TORCHELASTIC_RUN_ID", "none")])), None);
        assert_eq!(job_run_name(env(&[("SLURM_JOB_ID", " ")])), None);
        assert_eq!(job_run_name(env(&[("FLUX_JOB_ID", "..")])), None);
        assert_eq!(job_run_name(env(&[])), None);

        // Through Config::parse: the job id is the default, an explicit RUN_NAME still wins.
        let with_job = |extra: &[(&str, &str)]| {
            let mut map: HashMap<String, String> = extra
                .iter()
                .map(|(k, v)| (format!("{PREFIX}{k}"), v.to_string()))
                .collect();
            map.insert("SLURM_JOB_ID".into(), "7".into());
            Config::parse(|k| map.get(k).cloned(), 1_700_000_000).0
        };
        let c = with_job(&[]);
        assert_eq!(
            (c.run_name.as_str(), c.run_name_explicit),
            ("slurm_7", false)
        );
        assert_eq!(with_job(&[("RUN_NAME", "mine")]).run_name, "mine");
    }

    #[test]
    fn defaults_without_environment() {
        let (c, w) = parse(&[]);
        assert!(w.is_empty());
        assert_eq!(c.output_dir, PathBuf::from(DEFAULT_OUTPUT_DIR));
        assert_eq!(c.run_name, "2023_11_14_22_13_20");
        assert!(!c.run_name_explicit);
        assert_eq!(c.domains, Domains::ALL);
        assert_eq!(c.buffer_size, DEFAULT_BUFFER_SIZE);
        assert!(!c.disable);
        assert_eq!(c.log, LogLevel::Warn);
    }

    #[test]
    fn explicit_values_are_honoured() {
        let (c, w) = parse(&[
            ("OUTPUT_DIR", "/tmp/logs"),
            ("RUN_NAME", "job42"),
            ("DOMAINS", "kernel, memcpy"),
            ("BUFFER_SIZE", "64k"),
            ("DISABLE", "yes"),
            ("LOG", "debug"),
        ]);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(c.output_dir, PathBuf::from("/tmp/logs"));
        assert_eq!(c.run_name, "job42");
        assert!(c.run_name_explicit);
        assert_eq!(
            c.domains,
            Domains {
                hip: false,
                kernel: true,
                memcpy: true,
                marker: false
            }
        );
        assert_eq!(c.buffer_size, 65536);
        assert!(c.disable);
        assert_eq!(c.log, LogLevel::Debug);
    }

    #[test]
    fn buffer_size_outside_the_accepted_range_falls_back() {
        for v in ["1k", "100g", "2g"] {
            let (c, w) = parse(&[("BUFFER_SIZE", v)]);
            assert_eq!(c.buffer_size, DEFAULT_BUFFER_SIZE, "{v}");
            assert_eq!(w.len(), 1, "{v}: {w:?}");
            assert!(w[0].0.contains("outside the accepted range"), "{v}: {w:?}");
        }
        let (c, w) = parse(&[("BUFFER_SIZE", "1g")]);
        assert_eq!((c.buffer_size, w.len()), (MAX_BUFFER_SIZE, 0));
    }

    #[test]
    fn bad_values_fall_back_with_one_message_each() {
        let (c, w) = parse(&[
            ("DOMAINS", "kernel,gpu"),
            ("BUFFER_SIZE", "12q"),
            ("DISABLE", "maybe"),
            ("LOG", "loud"),
            ("RUN_NAME", "../x"),
        ]);
        assert_eq!(w.len(), 5, "{w:?}");
        assert_eq!(c.domains, Domains::ALL);
        assert_eq!(c.buffer_size, DEFAULT_BUFFER_SIZE);
        assert!(!c.disable);
        assert_eq!(c.log, LogLevel::Warn);
        assert_eq!(c.run_name, "2023_11_14_22_13_20");
        let joined = w.iter().map(|w| w.0.clone()).collect::<Vec<_>>().join("\n");
        assert!(
            joined.contains("ROCPROF_XPLANE_DOMAINS=\"kernel,gpu\""),
            "{joined}"
        );
        assert!(joined.contains("unknown domain 'gpu'"), "{joined}");
        assert!(
            joined.contains("ROCPROF_XPLANE_BUFFER_SIZE=\"12q\""),
            "{joined}"
        );
        assert!(
            joined.contains(&format!("using default {DEFAULT_BUFFER_SIZE}")),
            "{joined}"
        );
    }

    #[test]
    fn term_signals_and_their_time_limit() {
        let (c, w) = parse(&[]);
        assert_eq!(c.term, TermRule::default());
        assert_eq!(c.term.signals, [libc::SIGTERM, libc::SIGINT]);
        assert!(w.is_empty());
        for (v, want) in [
            ("none", vec![]),
            ("off", vec![]),
            ("TERM", vec![libc::SIGTERM]),
            ("sigint, hup,INT", vec![libc::SIGINT, libc::SIGHUP]),
        ] {
            let (c, w) = parse(&[("TERM_SIGNALS", v)]);
            assert_eq!((c.term.signals, w.len()), (want, 0), "{v}");
        }
        let (c, w) = parse(&[("TERM_SIGNALS", "TERM,KILL"), ("TERM_TIMEOUT", "5")]);
        assert_eq!(c.term.signals, TermRule::default().signals);
        assert_eq!(c.term.timeout_ms, 5_000);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].0.contains("unknown signal \"KILL\""), "{w:?}");
        let (c, w) = parse(&[("TERM_TIMEOUT", "-1")]);
        assert_eq!((c.term.timeout_ms, w.len()), (20_000, 1));
    }

    #[test]
    fn write_threads_a_count_or_the_cores() {
        let (c, w) = parse(&[]);
        assert_eq!((c.write_threads, w.len()), (None, 0));
        for (v, want) in [("1", Some(1)), (" 3 ", Some(3)), ("64", Some(64))] {
            let (c, w) = parse(&[("WRITE_THREADS", v)]);
            assert_eq!((c.write_threads, w.len()), (want, 0), "{v}");
        }
        for v in ["0", "65", "-2", "two", "1.5"] {
            let (c, w) = parse(&[("WRITE_THREADS", v)]);
            assert_eq!((c.write_threads, w.len()), (None, 1), "{v}");
            assert!(w[0].0.contains("from 1 to 64"), "{w:?}");
        }
    }

    #[test]
    fn tiny_buffer_is_rejected() {
        let (c, w) = parse(&[("BUFFER_SIZE", "100")]);
        assert_eq!(c.buffer_size, DEFAULT_BUFFER_SIZE);
        assert_eq!(w.len(), 1);
        assert!(w[0].0.contains("minimum"));
    }

    #[test]
    fn sizes_with_suffixes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("4K"), Some(4096));
        assert_eq!(parse_size("2m"), Some(2 << 20));
        assert_eq!(parse_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_size(" 8 kb "), Some(8192));
        assert_eq!(parse_size("k"), None);
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("99999999999999999999g"), None);
    }

    #[test]
    fn run_name_is_utc_timestamp() {
        assert_eq!(run_name_for(0), "1970_01_01_00_00_00");
        assert_eq!(run_name_for(951_782_400), "2000_02_29_00_00_00");
        assert_eq!(run_name_for(1_767_225_599), "2025_12_31_23_59_59");
    }

    #[test]
    fn domains_none_and_empty_values() {
        let (c, w) = parse(&[("DOMAINS", "none")]);
        assert!(w.is_empty());
        assert!(!c.domains.any());
        // An empty variable counts as unset.
        let (c, w) = parse(&[("OUTPUT_DIR", "  ")]);
        assert!(w.is_empty());
        assert_eq!(c.output_dir, PathBuf::from(DEFAULT_OUTPUT_DIR));
    }

    #[test]
    fn watermark_below_size() {
        let (c, _) = parse(&[("BUFFER_SIZE", "64k")]);
        assert_eq!(c.buffer_watermark(), 65536 - 8192);
    }
}
