//! `ROCPROF_XPLANE_*` environment, read and validated once.
//!
//! The tool runs inside someone else's program, so a bad value must never stop it: every
//! problem becomes one line on stderr naming the variable, the bad value (shortened and
//! escaped) and what is used instead. Every setting is one row of [`table::SETTINGS`] (name,
//! kind, default, meaning); the settings that act on one another are resolved into one
//! [`RunMode`] by [`mode::resolve`]. Parsing is a pure function of a lookup closure so it can
//! be tested without touching the process environment.

pub mod mode;
mod names;
mod show;
pub mod table;
pub mod values;

#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;

pub use mode::{Off, RangeRule, RunMode, Span, Triggers};
pub use names::{
    check_file_template, check_run_name, check_server_address, expand_file_name, job_run_name,
    run_name_for, Address, LocalRank, FILE_TEMPLATE_MAX_BYTES, JOB_ID_VARS, LOCAL_RANK_VARS,
    NAME_MAX, RANK_VARS, RUN_NAME_MAX_BYTES,
};
pub use values::{parse_size, shown};

use mode::ModeInputs;
use table as t;
use values::{Read, Reader};

/// Prefix shared by every variable the tool reads.
pub const PREFIX: &str = "ROCPROF_XPLANE_";

pub const DEFAULT_OUTPUT_DIR: &str = "./rocprof-xplane-logs";
/// 1 MiB per buffer (5,000–16,000 records: the delivery thread is still woken rarely). The
/// runtime holds each lossless buffer twice and the halves stay resident once written, so the
/// size is paid up to eight times in the profiled process (docs/performance.md). XLA's tracer
/// uses 400 KiB.
pub const DEFAULT_BUFFER_SIZE: usize = 1 << 20;
/// Smallest buffer accepted: one page holds a few dozen records of the largest kind.
pub const MIN_BUFFER_SIZE: usize = 4096;
/// Largest buffer accepted: the runtime allocates a LOSSLESS buffer twice, once per traced kind, so
/// a typo such as `100g` must not be able to take the profiled program's memory.
pub const MAX_BUFFER_SIZE: usize = 1 << 30;
/// The most threads `ROCPROF_XPLANE_WRITE_THREADS` may ask for: each holds a plane being built.
pub const MAX_WRITE_THREADS: usize = 64;
/// The window size of the streaming pipeline ([`RunMode::Streaming`]): the tool holds about
/// one window of records however long the run (docs/performance.md).
pub const DEFAULT_MERGE_WINDOW_EVENTS: u64 = 1_000_000;

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

    /// From the words of `DOMAINS` (`all` takes every one, `none` adds none).
    fn from_words(words: Vec<&str>) -> Domains {
        let mut d = Domains::NONE;
        for w in words {
            match w {
                "hip" => d.hip = true,
                "kernel" => d.kernel = true,
                "memcpy" => d.memcpy = true,
                "marker" => d.marker = true,
                "all" => d = Domains::ALL,
                _ => {}
            }
        }
        d
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

pub use crate::log::LogLevel;

/// Whether lines of `level` are printed (`ROCPROF_XPLANE_LOG`).
pub fn log_enabled(level: LogLevel) -> bool {
    level != LogLevel::Off && get().log >= level
}

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// How the run is recorded; `window`, `window_range`, `start_delay_ms`, `duration_ms`,
    /// `server` and `continuous` below are its views, for the modules that read them.
    pub mode: RunMode,
    /// Log directory given to xprof (`xprof --logdir`); the profile lands in
    /// `<output_dir>/plugins/profile/<run_name>/`.
    pub output_dir: PathBuf,
    /// Run directory name. Every process of one job must use the same value to appear as one
    /// run in xprof; the default is the launcher's job id, else a UTC timestamp taken when the
    /// tool is configured.
    pub run_name: String,
    /// True when `run_name` came from the environment rather than the defaults.
    pub run_name_explicit: bool,
    pub domains: Domains,
    /// Bytes per rocprofiler buffer (each kind has its own).
    pub buffer_size: usize,
    /// Buffer-trace every HIP call (`ROCPROF_XPLANE_HIP_API=all`) rather than the ones the
    /// output needs (`crate::hip::traced_by_default`).
    pub hip_api_all: bool,
    /// Build the records of the HIP calls callback tracing subscribes to from their ENTER and
    /// EXIT callbacks instead of buffer-tracing them (`ROCPROF_XPLANE_HIP_API_RECORDS`).
    pub hip_api_from_callbacks: bool,
    /// Take roctx ranges' and marks' times from their callbacks instead of buffer-tracing the
    /// roctx calls (`ROCPROF_XPLANE_ROCTX_RECORDS`).
    pub roctx_from_callbacks: bool,
    /// Hardware counters to collect per dispatch (`ROCPROF_XPLANE_PMC`), in the order given;
    /// empty: none.
    pub pmc: Vec<String>,
    /// Read the GPUs' counters every this many ms instead of per dispatch
    /// (`ROCPROF_XPLANE_PMC_INTERVAL`, `sdk::device_counting`).
    pub pmc_interval_ms: Option<u64>,
    /// Subscribe to the runtime's `HIP_STREAM` callbacks where it has them
    /// (`ROCPROF_XPLANE_HIP_STREAM`, `capture::hip_stream`).
    pub hip_stream: bool,
    /// Memory ceiling for what the tool holds, in bytes (0 = none); see `budget`.
    pub max_memory: u64,
    /// The windows cut while the program runs ([`RunMode::window_rule`]).
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
    /// `ROCPROF_XPLANE_SERVER`: where the profiler service listens (`host:port`).
    pub server: Option<String>,
    /// `ROCPROF_XPLANE_JOB_START`: the job's start (Unix ns), which gives every process of the
    /// job one origin (`clock`).
    pub job_start_ns: Option<u64>,
    /// `ROCPROF_XPLANE_CLOCK_REFERENCE`: the job's clock reference's profiler service.
    pub clock_reference: Option<String>,
    /// The flight recorder of continuous profiling (`server::ring`).
    pub ring: RingRule,
    /// `ROCPROF_XPLANE_CONTINUOUS`: start continuous profiling at start-up (with `server`).
    pub continuous: bool,
    /// `ROCPROF_XPLANE_DISABLE`: the tool opts out in `rocprofiler_configure`.
    pub disable: bool,
    pub log: LogLevel,
    /// What a terminating signal does (`terminate`).
    pub term: TermRule,
    /// `ROCPROF_XPLANE_WRITE_THREADS`: threads that build a profile's planes, as set; `None` =
    /// decided when writing (`xplane::plane_threads`: the cores, at most
    /// [`crate::xplane::MAX_PLANE_THREADS`], as far as the memory they add stays under the
    /// process's peak).
    pub write_threads: Option<usize>,
    /// `ROCPROF_XPLANE_FSYNC`: each file is fsynced before its rename
    /// (`xplane::OutputLayout::durable`).
    pub fsync: bool,
    /// `ROCPROF_XPLANE_STEP_RANGE`: the roctx ranges that are steps besides the frameworks'
    /// own step marks (`xplane::steps`).
    pub step_rule: Option<crate::model::steps::StepRule>,
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
    /// The table's defaults (`TERM,INT`; 20 s: inside the 30 s that Slurm (`KillWait`) and
    /// Kubernetes (`terminationGracePeriodSeconds`) wait between SIGTERM and SIGKILL).
    fn default() -> Self {
        TermRule {
            signals: vec![libc::SIGTERM, libc::SIGINT],
            timeout_ms: 20_000,
        }
    }
}

/// How much the flight recorder keeps: the most recent `keep_ms`, at most `max_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingRule {
    pub keep_ms: u64,
    pub max_bytes: u64,
}

impl Default for RingRule {
    /// The table's defaults (30 s, 256 MiB).
    fn default() -> Self {
        RingRule {
            keep_ms: 30_000,
            max_bytes: 256 << 20,
        }
    }
}

/// When to cut capture windows (`window`); any of them ends the current window.
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
    /// At exit the windows are merged into one profile of the run (`xplane::merge`) and
    /// removed: the memory of one window, one profile.
    pub merge: bool,
    /// The streaming pipeline's windows ([`RunMode::Streaming`]): the run's working files,
    /// not windows the user asked to see: they are reported at `debug` level only, and never
    /// cut an attach session.
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

/// Where the profile goes.
struct Destination {
    output_dir: PathBuf,
    run_name: String,
    run_name_explicit: bool,
    file_template: Option<String>,
}

/// What is traced and how the tool behaves, whatever the mode.
struct Behaviour {
    domains: Domains,
    job_start_ns: Option<u64>,
    clock_reference: Option<String>,
    hip_api_all: bool,
    hip_api_from_callbacks: bool,
    roctx_from_callbacks: bool,
    pmc: Vec<String>,
    pmc_interval_ms: Option<u64>,
    hip_stream: bool,
    buffer_size: usize,
    max_memory: u64,
    ring: RingRule,
    term: TermRule,
    write_threads: Option<usize>,
    fsync: bool,
    step_rule: Option<crate::model::steps::StepRule>,
    disable: bool,
    log: LogLevel,
}

fn read_destination(
    r: &mut Reader,
    lookup: &dyn Fn(&str) -> Option<OsString>,
    now_unix_s: u64,
) -> Destination {
    let output_dir = match r.os(&t::OUTPUT_DIR) {
        Read::Set(v) => PathBuf::from(v),
        _ => PathBuf::from(DEFAULT_OUTPUT_DIR),
    };
    // Job ids are cleaned to `[A-Za-z0-9._-]`, so bytes that are not UTF-8 become `_` too.
    let default_run = job_run_name(|k| lookup(k).map(|v| v.to_string_lossy().into_owned()))
        .unwrap_or_else(|| run_name_for(now_unix_s));
    let (run_name, run_name_explicit) = match r.get(&t::RUN_NAME, |_, v| check_run_name(v)) {
        Read::Set(v) => (v, true),
        Read::Unset => (default_run, false),
        Read::Bad(c) => {
            r.warnings.push(c.using(&default_run));
            (default_run, false)
        }
    };
    let file_template = r
        .value(&t::OUTPUT_FILE, |_, v| check_file_template(v))
        .filter(|t| t != t::OUTPUT_FILE.default.text());
    Destination {
        output_dir,
        run_name,
        run_name_explicit,
        file_template,
    }
}

fn read_behaviour(r: &mut Reader) -> Behaviour {
    use values::{bytes, count, flag, list, seconds_ms, word};
    let domains = r.value_or(
        &t::DOMAINS,
        |k, v| list(k, v).map(Domains::from_words),
        Domains::ALL,
    );
    let hip_api_all = r.value_or(&t::HIP_API, |k, v| word(k, v).map(|w| w == "all"), false);
    let hip_api_from_callbacks = r.value_or(
        &t::HIP_API_RECORDS,
        |k, v| word(k, v).map(|w| w == "callbacks"),
        true,
    );
    let roctx_from_callbacks = r.value_or(
        &t::ROCTX_RECORDS,
        |k, v| word(k, v).map(|w| w == "callbacks"),
        true,
    );
    let pmc = r
        .value(&t::PMC, values::text)
        .map(|v| counter_names(&v))
        .unwrap_or_default();
    let pmc_interval_ms = r.value(&t::PMC_INTERVAL, seconds_ms);
    let hip_stream = r.value_or(&t::HIP_STREAM, |k, v| word(k, v).map(|w| w == "on"), true);
    let buffer_size = r.value_or(&t::BUFFER_SIZE, bytes, DEFAULT_BUFFER_SIZE as u64) as usize;
    let max_memory = match r.get(&t::MAX_MEMORY, bytes) {
        Read::Set(n) => n,
        Read::Unset => crate::budget::default_limit(),
        Read::Bad(c) => {
            let d = crate::budget::default_limit();
            r.warnings.push(c.using(format_args!(
                "{} MiB ({})",
                d >> 20,
                t::MAX_MEMORY.default.text()
            )));
            d
        }
    };
    let ring = RingRule {
        keep_ms: r.value_or(&t::RING_SECONDS, seconds_ms, RingRule::default().keep_ms),
        max_bytes: r.value_or(&t::RING_MEMORY, bytes, RingRule::default().max_bytes),
    };
    let signals = |k: &t::Kind, v: &str| {
        let words = list(k, v)?;
        Ok(words
            .iter()
            .filter_map(|w| match *w {
                "TERM" => Some(libc::SIGTERM),
                "INT" => Some(libc::SIGINT),
                "HUP" => Some(libc::SIGHUP),
                _ => None,
            })
            .collect::<Vec<_>>())
    };
    let term = TermRule {
        signals: r.value_or(&t::TERM_SIGNALS, signals, TermRule::default().signals),
        timeout_ms: r.value_or(&t::TERM_TIMEOUT, seconds_ms, TermRule::default().timeout_ms),
    };
    let write_threads = r.value(&t::WRITE_THREADS, count).map(|n| n as usize);
    let fsync = r.value_or(&t::FSYNC, flag, false);
    let step_rule = r.value(&t::STEP_RANGE, values::step_rule);
    let job_start_ns = r.value(&t::JOB_START, values::unix_time_ns);
    let clock_reference = r.value(&t::CLOCK_REFERENCE, values::peer);
    let disable = r.value_or(&t::DISABLE, flag, false);
    let log = r.value_or(
        &t::LOG,
        |k, v| word(k, v).map(LogLevel::from_word),
        LogLevel::Warn,
    );
    Behaviour {
        domains,
        job_start_ns,
        clock_reference,
        hip_api_all,
        hip_api_from_callbacks,
        roctx_from_callbacks,
        pmc,
        pmc_interval_ms,
        hip_stream,
        buffer_size,
        max_memory,
        ring,
        term,
        write_threads,
        fsync,
        step_rule,
        disable,
        log,
    }
}

/// The counter names of `ROCPROF_XPLANE_PMC` (or `--pmc`): comma- or space-separated, each
/// once, in the order given (names are the SDK's, case-sensitive).
pub fn counter_names(v: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in v
        .split([',', ' ', '\t'])
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        if !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    }
    out
}

fn read_mode_inputs(
    r: &mut Reader,
    lookup: &dyn Fn(&str) -> Option<OsString>,
    b: &Behaviour,
) -> ModeInputs {
    use values::{count, flag, seconds_ms, text, word};
    let range_every = r.given(&t::WINDOW_RANGE_EVERY, count);
    let range = r.value(&t::WINDOW_RANGE, text);
    let triggers = Triggers {
        period_ms: r.value(&t::WINDOW_SECONDS, seconds_ms),
        events: r.value(&t::WINDOW_EVENTS, count),
        signal: r.value(&t::WINDOW_SIGNAL, |k, v| {
            word(k, v).map(|w| {
                if w == "USR1" {
                    libc::SIGUSR1
                } else {
                    libc::SIGUSR2
                }
            })
        }),
        range: range.clone().map(|name| RangeRule {
            name,
            every: range_every
                .or_else(|| values::default_of(&t::WINDOW_RANGE_EVERY, count))
                .unwrap_or(1),
        }),
    };
    let span = Span {
        delay_ms: r.value(&t::START_DELAY, seconds_ms).filter(|&ms| ms > 0),
        duration_ms: r.value(&t::DURATION, seconds_ms).filter(|&ms| ms > 0),
    };
    let merge = r.get(&t::WINDOW_MERGE, flag);
    let continuous = r.value_or(&t::CONTINUOUS, flag, false);
    ModeInputs {
        disable: b.disable,
        domains: b.domains,
        triggers,
        range_every_alone: range_every.is_some() && range.is_none(),
        merge,
        span,
        server: read_server(r, lookup),
        continuous,
    }
}

/// `SERVER`'s address, the local rank added for `PORT+rank` (a local-rank variable passed
/// over because it is not a number gets its own line).
fn read_server(r: &mut Reader, lookup: &dyn Fn(&str) -> Option<OsString>) -> Read<String> {
    let rank = names::local_rank(lookup);
    let read = r.get(&t::SERVER, |_, v| {
        let a = Address::parse(v)?;
        Ok((a.resolve(&rank)?, a.plus_rank))
    });
    match read {
        Read::Set((address, plus_rank)) => {
            if let (true, Some(note), Read::Set(raw)) = (plus_rank, rank.note(), r.os(&t::SERVER)) {
                r.warnings.push(ConfigWarning(format!(
                    "{}={}: {note}, so the address is {address}",
                    t::SERVER.var(),
                    shown(&raw)
                )));
            }
            Read::Set(address)
        }
        Read::Unset => Read::Unset,
        Read::Bad(c) => Read::Bad(c),
    }
}

impl Config {
    /// Parses from any lookup of UTF-8 values (a map in tests, `std::env::var`); see
    /// [`Config::parse_os`]. `now_unix_s` supplies the default run name.
    pub fn parse(
        lookup: impl Fn(&str) -> Option<String>,
        now_unix_s: u64,
    ) -> (Config, Vec<ConfigWarning>) {
        Config::parse_os(|k| lookup(k).map(OsString::from), now_unix_s)
    }

    /// Parses from any lookup (the real environment, or a map in tests): where the profile
    /// goes, what is traced, then the run's mode.
    pub fn parse_os(
        lookup: impl Fn(&str) -> Option<OsString>,
        now_unix_s: u64,
    ) -> (Config, Vec<ConfigWarning>) {
        let mut r = Reader::new(&lookup);
        let dest = read_destination(&mut r, &lookup, now_unix_s);
        let b = read_behaviour(&mut r);
        let inputs = read_mode_inputs(&mut r, &lookup, &b);
        let (mode, more) = mode::resolve(inputs);
        let mut warnings = r.warnings;
        warnings.extend(more);
        let span = mode.span();
        let cfg = Config {
            window: mode.window_rule(),
            window_range: mode.window_range(),
            start_delay_ms: span.delay_ms,
            duration_ms: span.duration_ms,
            server: mode.server(),
            continuous: mode.continuous(),
            mode,
            output_dir: dest.output_dir,
            run_name: dest.run_name,
            run_name_explicit: dest.run_name_explicit,
            file_template: dest.file_template,
            domains: b.domains,
            buffer_size: b.buffer_size,
            hip_api_all: b.hip_api_all,
            hip_api_from_callbacks: b.hip_api_from_callbacks,
            roctx_from_callbacks: b.roctx_from_callbacks,
            pmc: b.pmc,
            pmc_interval_ms: b.pmc_interval_ms,
            hip_stream: b.hip_stream,
            max_memory: b.max_memory,
            ring: b.ring,
            disable: b.disable,
            log: b.log,
            term: b.term,
            write_threads: b.write_threads,
            fsync: b.fsync,
            step_rule: b.step_rule,
            job_start_ns: b.job_start_ns,
            clock_reference: b.clock_reference,
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
/// once (unless logging is off), each on one line `rocprof-xplane: <warning>`.
pub fn get() -> &'static Config {
    GLOBAL.get_or_init(|| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let secure = secure_execution();
        let (cfg, mut warnings) = Config::parse_os(|k| env_for(secure, k), now);
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

/// The process environment as the tool reads it (nothing in a secure-execution process), a
/// value that is not UTF-8 read with its bad bytes replaced by U+FFFD: for the launchers'
/// variables of a file name (`%rank%`, `%env{NAME}%`), where they become `_`.
pub fn env_var(key: &str) -> Option<String> {
    env_for(secure_execution(), key).map(|v| v.to_string_lossy().into_owned())
}

/// Whether the kernel runs this process in secure-execution mode (`AT_SECURE`: setuid/setgid
/// binaries, file capabilities), where the environment belongs to a less privileged caller:
/// like glibc, which then drops `LD_PRELOAD` and friends, the tool must not let it choose where
/// a privileged process writes or how much memory it takes.
fn secure_execution() -> bool {
    // SAFETY: `getauxval` only reads the process's auxiliary vector; any key is allowed.
    unsafe { libc::getauxval(libc::AT_SECURE) != 0 }
}

/// The environment as the configuration may see it: nothing in secure-execution mode.
fn env_for(secure: bool, key: &str) -> Option<OsString> {
    if secure {
        None
    } else {
        std::env::var_os(key)
    }
}
