//! Every setting the tool reads, in one table: name, kind of value (with its range or words),
//! default and a one-line meaning. Parsing takes the ranges, words and defaults from here,
//! warning lines name the default written here, and the tables of `docs/configuration.md` are
//! rendered from here ([`settings_markdown`], [`launchers_markdown`]; a test fails when the
//! committed doc differs).

use super::names::{
    FILE_TEMPLATE_MAX_BYTES, JOB_ID_VARS, LOCAL_RANK_VARS, RANK_VARS, RUN_NAME_MAX_BYTES,
};
use super::{MAX_BUFFER_SIZE, MAX_WRITE_THREADS, MIN_BUFFER_SIZE, PREFIX};

/// One accepted word, and the other spellings that mean it (all case-insensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
}

const fn w(name: &'static str, aliases: &'static [&'static str]) -> Word {
    Word { name, aliases }
}

/// The kind of value a setting takes; parsing checks a value against it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// `1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`.
    Flag,
    /// One of these words.
    Word(&'static [Word]),
    /// A comma list of these words.
    List(&'static [Word]),
    /// A byte count with an optional binary suffix, from `min` to `max`; with `none`, also
    /// `none` (`off`, `0`) for no limit.
    Bytes { min: u64, max: u64, none: bool },
    /// Seconds, fractions allowed, at least `min`.
    Seconds { min: f64 },
    /// A whole number from `min` to `max`.
    Count { min: u64, max: u64 },
    /// A directory path: any bytes, UTF-8 or not.
    Dir,
    /// One directory name (no `/`), UTF-8, at most `max` bytes.
    DirName { max: usize },
    /// A file-name template (`names::check_file_template`).
    FileTemplate { max: usize },
    /// The profiler service's address (`names::Address`).
    Address,
    /// Another process's profiler service: `HOST:PORT` or `[V6]:PORT`.
    Peer,
    /// A Unix time in seconds, fractions allowed.
    UnixTime,
    /// Any UTF-8 text.
    Text,
    /// A roctx range's text, or a pattern in which `*` stands for any text
    /// (`model::steps::StepRule`); not only `*`s.
    StepPattern,
}

/// What an unset variable means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Default {
    /// This value, read by the setting's own rule (a test checks that it parses).
    Value(&'static str),
    /// No value: the feature is off, or the text says what happens instead.
    Off(&'static str),
    /// Worked out at start-up from other facts, as the text says; a warning line names what it
    /// came to.
    Derived(&'static str),
}

impl Default {
    pub fn text(&self) -> &'static str {
        match *self {
            Default::Value(t) | Default::Off(t) | Default::Derived(t) => t,
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setting {
    /// The name after [`PREFIX`].
    pub name: &'static str,
    pub kind: Kind,
    pub default: Default,
    /// What it does, on one line (Markdown; the sections of `docs/configuration.md` say more).
    pub doc: &'static str,
}

impl Setting {
    /// The full variable name.
    pub fn var(&self) -> String {
        format!("{PREFIX}{}", self.name)
    }
}

const SECONDS_ANY: Kind = Kind::Seconds { min: 0.0 };
const COUNT_ANY: Kind = Kind::Count {
    min: 1,
    max: u64::MAX,
};

pub const OUTPUT_DIR: Setting = Setting {
    name: "OUTPUT_DIR",
    kind: Kind::Dir,
    default: Default::Value(super::DEFAULT_OUTPUT_DIR),
    doc: "The log directory to give `xprof --logdir` (created if missing); profiles go to `<OUTPUT_DIR>/plugins/profile/<RUN_NAME>/`.",
};
pub const RUN_NAME: Setting = Setting {
    name: "RUN_NAME",
    kind: Kind::DirName {
        max: RUN_NAME_MAX_BYTES,
    },
    default: Default::Derived("the launcher's job id, else the UTC time at start-up, `YYYY_MM_DD_HH_MM_SS`"),
    doc: "The run directory's name; every process of one job must share it to be one run in xprof ([several processes](#several-processes-one-run)).",
};
pub const OUTPUT_FILE: Setting = Setting {
    name: "OUTPUT_FILE",
    kind: Kind::FileTemplate {
        max: FILE_TEMPLATE_MAX_BYTES,
    },
    default: Default::Value("%hostname%.%pid%"),
    doc: "This process's file name in the run directory (`.xplane.pb` is added); xprof names the host after it ([file names](#file-names)).",
};
pub const DOMAINS: Setting = Setting {
    name: "DOMAINS",
    kind: Kind::List(&[
        w("hip", &[]),
        w("kernel", &["kernels"]),
        w("memcpy", &["copy"]),
        w("marker", &["markers", "roctx"]),
        w("all", &[]),
        w("none", &[]),
    ]),
    default: Default::Value("all"),
    doc: "What to trace: HIP API calls, kernel dispatches, memory copies, roctx ranges and marks; `none` traces nothing.",
};
pub const HIP_API: Setting = Setting {
    name: "HIP_API",
    kind: Kind::Word(&[w("needed", &[]), w("all", &[])]),
    default: Default::Value("needed"),
    doc: "Which HIP calls are traced: those the output uses (`hip::traced_by_default`), or every call.",
};
pub const HIP_API_RECORDS: Setting = Setting {
    name: "HIP_API_RECORDS",
    kind: Kind::Word(&[w("callbacks", &[]), w("buffer", &[])]),
    default: Default::Value("callbacks"),
    doc: "Where the records of HIP calls in the table of HIP operations come from: the ENTER and EXIT callbacks the tool receives anyway, each call timed by two `rocprofiler_get_timestamp` reads, so the runtime buffers no record for it; or `buffer`: the runtime's buffer tracing, one buffered record per call. Other HIP calls are buffer-traced either way ([performance](performance.md#the-application-thread-per-hip-call)).",
};
pub const ROCTX_RECORDS: Setting = Setting {
    name: "ROCTX_RECORDS",
    kind: Kind::Word(&[w("callbacks", &[]), w("buffer", &[])]),
    default: Default::Value("callbacks"),
    doc: "Where the times of roctx ranges and marks come from: the roctx callbacks the tool receives anyway (one `rocprofiler_get_timestamp` read each), so the runtime buffers no record for them; or `buffer`: the runtime's buffer tracing, one buffered record per roctx call, whose times the ranges take. roctx calls the callbacks do not cover (`roctxGetThreadId`) are buffer-traced either way.",
};
pub const PMC: Setting = Setting {
    name: "PMC",
    kind: Kind::Text,
    default: Default::Off("off: no hardware counters"),
    doc: "Hardware counters to collect per kernel dispatch, comma- or space-separated (`SQ_WAVES,GRBM_GUI_ACTIVE`); each kernel event carries their values ([counters.md](counters.md)). Counting serialises kernels on real hardware.",
};
pub const PMC_INTERVAL: Setting = Setting {
    name: "PMC_INTERVAL",
    kind: Kind::Seconds { min: 0.001 },
    default: Default::Off("off: counters per dispatch, if `PMC` names any"),
    doc: "Read each GPU's counters every this many seconds (`0.01` = 10 ms) instead of per dispatch: `GRBM_GUI_ACTIVE`, `GRBM_COUNT` and the `PMC` counters, drawn over time on each GPU with the busy share `GPU_UTIL` ([counters.md](counters.md#periodic-device-counters)); kernels are not serialised.",
};
pub const HIP_STREAM: Setting = Setting {
    name: "HIP_STREAM",
    kind: Kind::Word(&[w("on", &[]), w("off", &[])]),
    default: Default::Value("on"),
    doc: "Whether the runtime's `HIP_STREAM` callbacks (SDK 1.x, two more per call of a HIP function with a `hipStream_t` parameter) place the work of calls whose stream the table of HIP operations cannot read. `on` starts them at the first such call (that call's work, and any before they run, goes to the current device's null stream, counted in the warnings): a program whose calls are all rows of the table never pays for them; `off` never starts them ([performance](performance.md#the-application-thread-per-hip-call)).",
};
pub const BUFFER_SIZE: Setting = Setting {
    name: "BUFFER_SIZE",
    kind: Kind::Bytes {
        min: MIN_BUFFER_SIZE as u64,
        max: MAX_BUFFER_SIZE as u64,
        none: false,
    },
    default: Default::Value("1m"),
    doc: "Bytes per rocprofiler buffer, one per traced kind; the program holds up to eight times this ([memory](#memory)).",
};
pub const MAX_MEMORY: Setting = Setting {
    name: "MAX_MEMORY",
    kind: Kind::Bytes {
        min: 1,
        max: u64::MAX,
        none: true,
    },
    default: Default::Derived("a quarter of physical memory"),
    doc: "Ceiling on what the tool holds; past it records are dropped and counted, never an out-of-memory abort ([memory](#memory)).",
};
pub const WINDOW_SECONDS: Setting = Setting {
    name: "WINDOW_SECONDS",
    kind: Kind::Seconds { min: 0.05 },
    default: Default::Off("off"),
    doc: "Capture windows by time: every N seconds the current window is written as its own profile ([windows](#capture-windows)).",
};
pub const WINDOW_EVENTS: Setting = Setting {
    name: "WINDOW_EVENTS",
    kind: COUNT_ANY,
    default: Default::Off("off"),
    doc: "Capture windows by size: a window ends once about this many records were delivered.",
};
pub const WINDOW_SIGNAL: Setting = Setting {
    name: "WINDOW_SIGNAL",
    kind: Kind::Word(&[w("USR1", &["SIGUSR1"]), w("USR2", &["SIGUSR2"])]),
    default: Default::Off("off"),
    doc: "Capture windows on demand: `kill -USR1 <pid>` ends the current window.",
};
pub const WINDOW_RANGE: Setting = Setting {
    name: "WINDOW_RANGE",
    kind: Kind::Text,
    default: Default::Off("off"),
    doc: "Capture windows on the program's own structure: a window ends when a roctx range of this name ends.",
};
pub const STEP_RANGE: Setting = Setting {
    name: "STEP_RANGE",
    kind: Kind::StepPattern,
    default: Default::Off("only TraceMe-encoded steps (`_r`, `step_num`) and PyTorch's `ProfilerStep#<n>`"),
    doc: "roctx ranges that are the program's steps, for xprof's step views ([steps](xplane-output.md#steps-the-step-roots-xprof-groups-work-by)); `decode step *` numbers each by its `*`.",
};
pub const WINDOW_RANGE_EVERY: Setting = Setting {
    name: "WINDOW_RANGE_EVERY",
    kind: COUNT_ANY,
    default: Default::Value("1"),
    doc: "With `WINDOW_RANGE`: a window ends every N-th time the range ends.",
};
pub const WINDOW_MERGE: Setting = Setting {
    name: "WINDOW_MERGE",
    kind: Kind::Flag,
    default: Default::Derived("`1` unless a window rule, `START_DELAY`, `DURATION` or `SERVER` is set; else `0`"),
    doc: "At exit, merge the windows into one profile of the run; `0` alone holds the run whole until exit ([the run's mode](#the-runs-mode)).",
};
pub const START_DELAY: Setting = Setting {
    name: "START_DELAY",
    kind: SECONDS_ANY,
    default: Default::Off("off"),
    doc: "Bounded capture: records are taken only from this long after start-up ([bounded capture](#bounded-capture)).",
};
pub const DURATION: Setting = Setting {
    name: "DURATION",
    kind: SECONDS_ANY,
    default: Default::Off("off"),
    doc: "Bounded capture: records are taken for this long (after the delay); the profile is written when it ends.",
};
pub const SERVER: Setting = Setting {
    name: "SERVER",
    kind: Kind::Address,
    default: Default::Off("off"),
    doc: "Serve xprof's Capture Profile on this address; only what clients ask for is recorded. One that cannot be used: nothing is recorded ([service](#the-profiler-service)).",
};
pub const JOB_START: Setting = Setting {
    name: "JOB_START",
    kind: Kind::UnixTime,
    default: Default::Off("this process's start"),
    doc: "The job's start, the same for every process of the job: all count their times from the origin it gives, and line up in xprof ([one clock](clock.md)). `rocprof-xplane run` sets it.",
};
pub const CLOCK_REFERENCE: Setting = Setting {
    name: "CLOCK_REFERENCE",
    kind: Kind::Peer,
    default: Default::Off("off: aligned by host clocks"),
    doc: "The job's clock reference, the same address for every process of the job (e.g. `$MASTER_ADDR:6010`): the process that can listen on it (UDP) is the reference; every other one estimates its clock's offset to it, corrects its times by it and counts from its origin ([one clock](clock.md#the-jobs-clock-reference)).",
};
pub const CONTINUOUS: Setting = Setting {
    name: "CONTINUOUS",
    kind: Kind::Flag,
    default: Default::Value("0"),
    doc: "With `SERVER`: run the flight recorder from start-up, for `get_snapshot`.",
};
pub const RING_SECONDS: Setting = Setting {
    name: "RING_SECONDS",
    kind: Kind::Seconds { min: 0.5 },
    default: Default::Value("30"),
    doc: "How much recent activity the flight recorder keeps, in seconds.",
};
pub const RING_MEMORY: Setting = Setting {
    name: "RING_MEMORY",
    kind: Kind::Bytes {
        min: 64 << 10,
        max: u64::MAX,
        none: false,
    },
    default: Default::Value("256m"),
    doc:
        "Memory bound of the flight recorder; past it the oldest segments are let go, and counted.",
};
pub const TERM_SIGNALS: Setting = Setting {
    name: "TERM_SIGNALS",
    kind: Kind::List(&[
        w("TERM", &["SIGTERM"]),
        w("INT", &["SIGINT"]),
        w("HUP", &["SIGHUP"]),
        w("none", &["off"]),
    ]),
    default: Default::Value("TERM,INT"),
    doc: "Signals after which the profile is written before the process ends as the signal would end it ([signals](#signals)).",
};
pub const TERM_TIMEOUT: Setting = Setting {
    name: "TERM_TIMEOUT",
    kind: Kind::Seconds { min: 0.01 },
    default: Default::Value("20"),
    doc: "How long writing after such a signal may take before the process ends anyway.",
};
pub const WRITE_THREADS: Setting = Setting {
    name: "WRITE_THREADS",
    kind: Kind::Count {
        min: 1,
        max: MAX_WRITE_THREADS as u64,
    },
    default: Default::Off("the cores this process may use, at most 4, as far as its peak memory allows"),
    doc: "Threads that join and write a profile; the file is the same on any number ([writing](#writing)).",
};
pub const FSYNC: Setting = Setting {
    name: "FSYNC",
    kind: Kind::Flag,
    default: Default::Value("0"),
    doc: "`1`: each file is made durable (`fsync`) before it takes its name, so a power loss right after it cannot empty it; the program then waits for the disk at exit ([writing](#writing)).",
};
pub const DISABLE: Setting = Setting {
    name: "DISABLE",
    kind: Kind::Flag,
    default: Default::Value("0"),
    doc: "`1`: the tool declines in `rocprofiler_configure` and the program runs untraced.",
};
pub const LOG: Setting = Setting {
    name: "LOG",
    kind: Kind::Word(&[
        w("off", &["none", "0"]),
        w("error", &["1"]),
        w("warn", &["warning", "2"]),
        w("info", &["3"]),
        w("debug", &["trace", "4"]),
    ]),
    default: Default::Value("warn"),
    doc: "How much the tool says on stderr ([logging](#logging)).",
};

/// Every setting, in the order the documentation lists them.
pub const SETTINGS: &[Setting] = &[
    OUTPUT_DIR,
    RUN_NAME,
    OUTPUT_FILE,
    DOMAINS,
    HIP_API,
    HIP_API_RECORDS,
    ROCTX_RECORDS,
    PMC,
    PMC_INTERVAL,
    HIP_STREAM,
    BUFFER_SIZE,
    MAX_MEMORY,
    WINDOW_SECONDS,
    WINDOW_EVENTS,
    WINDOW_SIGNAL,
    WINDOW_RANGE,
    WINDOW_RANGE_EVERY,
    WINDOW_MERGE,
    STEP_RANGE,
    START_DELAY,
    DURATION,
    SERVER,
    CONTINUOUS,
    JOB_START,
    CLOCK_REFERENCE,
    RING_SECONDS,
    RING_MEMORY,
    TERM_SIGNALS,
    TERM_TIMEOUT,
    WRITE_THREADS,
    FSYNC,
    DISABLE,
    LOG,
];

/// `4096` → `4k`, `1 << 30` → `1g`: the suffix spelling the settings accept.
pub fn bytes_text(n: u64) -> String {
    for (shift, suffix) in [(30, "g"), (20, "m"), (10, "k")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{}{suffix}", n >> shift);
        }
    }
    n.to_string()
}

/// The accepted range of a byte count, as messages and the documentation say it.
pub fn bytes_range(min: u64, max: u64) -> String {
    match (min > 1, max < u64::MAX) {
        (true, true) => format!("from {} to {}", bytes_text(min), bytes_text(max)),
        (true, false) => format!("at least {}", bytes_text(min)),
        (false, true) => format!("at most {}", bytes_text(max)),
        (false, false) => "any size".into(),
    }
}

fn words_text(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| {
            if w.aliases.is_empty() {
                format!("`{}`", w.name)
            } else {
                let a: Vec<String> = w.aliases.iter().map(|a| format!("`{a}`")).collect();
                format!("`{}` ({})", w.name, a.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl Kind {
    /// The accepted values, as the documentation's table says them.
    pub fn describe(&self) -> String {
        match *self {
            Kind::Flag => "`1`/`0` (`true`/`false`, `yes`/`no`, `on`/`off`)".into(),
            Kind::Word(words) => format!("one of {}", words_text(words)),
            Kind::List(words) => format!("comma list of {}", words_text(words)),
            Kind::Bytes { min, max, none } => format!(
                "bytes, optional binary suffix `k`/`m`/`g`, {}{}",
                bytes_range(min, max),
                if none { "; or `none` (`off`, `0`)" } else { "" }
            ),
            Kind::Seconds { min } if min > 0.0 => {
                format!("seconds (fractions allowed), at least {min}")
            }
            Kind::Seconds { .. } => "seconds (fractions allowed); `0` is off".into(),
            Kind::Count { min, max } if max == u64::MAX => format!("a count, at least {min}"),
            Kind::Count { min, max } => format!("a count from {min} to {max}"),
            Kind::Dir => "a directory (any bytes, UTF-8 or not)".into(),
            Kind::DirName { max } => {
                format!("one directory name (no `/`), UTF-8, at most {max} bytes")
            }
            Kind::FileTemplate { max } => format!(
                "one file name, UTF-8, with tokens `%hostname%`, `%pid%`, `%ppid%`, `%rank%`, `%local_rank%`, `%env{{NAME}}%`; its text besides the tokens at most {max} bytes"
            ),
            Kind::Address => {
                "`PORT` (on 127.0.0.1), `HOST:PORT`, `[V6]:PORT`; `PORT+rank` adds the local rank; port `0`: any free port".into()
            }
            Kind::Peer => "`HOST:PORT` or `[V6]:PORT`".into(),
            Kind::UnixTime => {
                "Unix time in seconds, fractions allowed (e.g. `$(date +%s)`)".into()
            }
            Kind::Text => "any UTF-8 text".into(),
            Kind::StepPattern => {
                "a range's text, or a pattern where `*` stands for any text (not only `*`)".into()
            }
        }
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The settings table of `docs/configuration.md`.
pub fn settings_markdown() -> String {
    let mut out = String::from("| Variable | Values | Default | Meaning |\n|---|---|---|---|\n");
    for s in SETTINGS {
        let default = match s.default {
            Default::Value(t) => format!("`{t}`"),
            Default::Off(t) | Default::Derived(t) => t.to_string(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            s.var(),
            cell(&s.kind.describe()),
            cell(&default),
            cell(s.doc)
        ));
    }
    out
}

/// The table of the launchers' variables the tool reads, for `docs/configuration.md`.
pub fn launchers_markdown() -> String {
    let mut out = String::from("| Variable | Used for |\n|---|---|\n");
    for (var, label) in JOB_ID_VARS {
        let what = match *var {
            "SLURM_JOB_ID" => format!("default run name `{label}_<job>.<SLURM_STEP_ID>`"),
            "PMIX_NAMESPACE" => {
                format!("default run name `{label}_<id>` (Open MPI 5, PRRTE, PMIx launchers)")
            }
            "OMPI_MCA_orte_ess_jobid" => format!("default run name `{label}_<id>` (Open MPI 4)"),
            "TORCHELASTIC_RUN_ID" => {
                format!("default run name `{label}_<id>` (its default `none` is passed over)")
            }
            _ => format!("default run name `{label}_<id>`"),
        };
        out.push_str(&format!("| `{var}` | {what} |\n"));
    }
    out.push_str("| `SLURM_STEP_ID` | the step in Slurm's default run name |\n");
    let names = |vars: &[&str]| {
        vars.iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push_str(&format!(
        "| {} | `%rank%` in `OUTPUT_FILE`, the first one set (`0` without any) |\n",
        names(RANK_VARS)
    ));
    out.push_str(&format!(
        "| {} | `%local_rank%` in `OUTPUT_FILE`, `PORT+rank` in `SERVER`: the first one set (for `PORT+rank`, that is a number) |\n",
        names(LOCAL_RANK_VARS)
    ));
    out.push_str("| any `NAME` of `%env{NAME}%` | its value in `OUTPUT_FILE` |\n");
    out
}

/// A generated block of `docs/configuration.md`: what follows its start marker, up to
/// [`BLOCK_END`], is `render`'s.
pub struct Block {
    pub start: &'static str,
    pub render: fn() -> String,
}

pub const BLOCKS: &[Block] = &[
    Block {
        start: "<!-- settings table: generated from src/config/table.rs -->",
        render: settings_markdown,
    },
    Block {
        start: "<!-- launcher variables: generated from src/config/table.rs -->",
        render: launchers_markdown,
    },
];
pub const BLOCK_END: &str = "<!-- end of generated table -->";

/// `doc` with each generated block rendered anew; `None` when a marker is missing.
pub fn render_doc(doc: &str) -> Option<String> {
    let mut out = doc.to_string();
    for b in BLOCKS {
        let begin = out.find(b.start)? + b.start.len();
        let end = begin + out[begin..].find(BLOCK_END)?;
        out.replace_range(begin..end, &format!("\n{}", (b.render)()));
    }
    Some(out)
}

/// `docs/configuration.md` in this checkout.
pub fn doc_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md")
}

/// How to rewrite the generated tables; the doc says it too.
pub const REGENERATE: &str =
    "cargo test -p rocprof-xplane --lib config::table::tests::write_doc_tables -- --ignored";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doc_tables_are_the_table_rendered() {
        let path = doc_path();
        let doc = std::fs::read_to_string(&path).unwrap();
        let rendered = render_doc(&doc)
            .unwrap_or_else(|| panic!("{} lacks a generated block's markers", path.display()));
        assert!(
            doc == rendered,
            "{} differs from src/config/table.rs; rewrite its tables with\n    {REGENERATE}",
            path.display()
        );
    }

    /// Rewrites the generated tables of `docs/configuration.md` (ignored: run it by name).
    #[test]
    #[ignore = "writes docs/configuration.md"]
    fn write_doc_tables() {
        let path = doc_path();
        let doc = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, render_doc(&doc).expect("markers")).unwrap();
    }

    #[test]
    fn names_are_unique_and_cells_one_line() {
        for (i, s) in SETTINGS.iter().enumerate() {
            assert!(
                SETTINGS[..i].iter().all(|o| o.name != s.name),
                "{} twice",
                s.name
            );
            for text in [s.doc, s.default.text()] {
                assert!(!text.contains('\n'), "{}: {text}", s.name);
            }
        }
    }

    #[test]
    fn sizes_print_as_they_are_written() {
        assert_eq!(bytes_text(4096), "4k");
        assert_eq!(bytes_text(1 << 30), "1g");
        assert_eq!(bytes_text(super::super::DEFAULT_BUFFER_SIZE as u64), "1m");
        assert_eq!(bytes_text(1500), "1500");
        assert_eq!(bytes_range(4096, 1 << 30), "from 4k to 1g");
    }

    #[test]
    fn the_write_threads_default_names_the_real_limit() {
        assert!(WRITE_THREADS
            .default
            .text()
            .contains(&format!("at most {}", crate::xplane::MAX_PLANE_THREADS)));
    }
}
