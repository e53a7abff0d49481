//! `rocprof-xplane convert`: rocprofv3's output files → the same `Collected` the live tool
//! gathers, so the one join and XPlane writer produce the profile (kernels, HIP API calls,
//! copies, streams, agents, kernel resources and occupancy) exactly as for a live run.
//!
//! Inputs: rocprofv3's rocpd SQLite database (its default since ROCm 7.0; every process of
//! every run in it; schema 3.0.x), rocprofv3 JSON (`--output-format json`, optionally gzipped)
//! and the CSV files of one run, in rocprofv3's own dialect or `rocpd2csv`'s (`csv`). The
//! legacy rocprof v1 `results.db` is refused with a message naming it.
//!
//! Input errors: what makes a file unreadable as a whole (a missing required column or field,
//! a malformed or truncated file, an unsupported schema) is refused with one line naming the
//! file and the place; a record with a value of the wrong type is a [`RowIssues`] oddity,
//! skipped and counted when it is one among thousands, refused otherwise.

pub mod calls;
pub mod csv;
pub mod json;
pub mod rocpd;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rocprof_xplane_core::model::events::{ApiDomain, ApiRecord, CallFact, Collected, KernelSymbol};

use calls::{CallArgs, HipCall, Roctx};

/// What went wrong, with the file it concerns.
#[derive(Debug)]
pub struct ConvertError {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for ConvertError {}

pub(crate) fn err(path: &Path, message: impl Into<String>) -> ConvertError {
    ConvertError {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The kinds of input this converter tells apart by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
    /// rocprofv3's rocpd SQLite database.
    Rocpd,
    /// The legacy rocprof (v1) `results.db`.
    RocprofV1Db,
}

/// Reads the first bytes (decompressed when gzipped) and says what the file is.
pub fn detect(path: &Path) -> Result<Format, ConvertError> {
    let head = read_head(path, 1 << 16)?;
    if head.iter().all(u8::is_ascii_whitespace) {
        return Err(err(
            path,
            "an empty file (expected rocprofv3 JSON, CSV or a rocpd database)",
        ));
    }
    if head.starts_with(b"SQLite format 3\0") {
        let text = String::from_utf8_lossy(&head);
        if text.contains("rocpd_") {
            return Ok(Format::Rocpd);
        }
        if text.contains("CREATE TABLE KERN") || text.contains("CREATE TABLE \"KERN\"") {
            return Ok(Format::RocprofV1Db);
        }
        return Err(err(
            path,
            "an SQLite database that is neither rocprofv3's rocpd nor rocprof v1's results.db",
        ));
    }
    let first = head.iter().find(|b| !b.is_ascii_whitespace()).copied();
    match first {
        Some(b'{') | Some(b'[') => Ok(Format::Json),
        _ if csv::is_rocprofv3_csv(path, &head) => Ok(Format::Csv),
        _ => Err(err(
            path,
            "not a rocprofv3 output this converter reads (rocpd .db, JSON, or the CSV files of \
             a run: *_kernel_trace.csv, *_hip_api_trace.csv, …)",
        )),
    }
}

fn read_head(path: &Path, n: usize) -> Result<Vec<u8>, ConvertError> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| err(path, e.to_string()))?;
    let mut buf = Vec::with_capacity(n);
    let mut r = open_maybe_gz(path, f, false)?;
    // A gzip stream cut short still yields its first bytes; the reader says so later.
    let _ = r.by_ref().take(n as u64).read_to_end(&mut buf);
    if buf.is_empty() {
        std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut [0u8; 1]))
            .map_err(|e| err(path, e.to_string()))?;
    }
    Ok(buf)
}

/// Where in a file a record is: a CSV line or a JSON record.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    pub file: PathBuf,
    /// `line 12` or `kernel_dispatch[40]`.
    pub at: String,
}

/// A record with a value that is not what its field holds (a timestamp that is not a number).
#[derive(Debug, Clone)]
pub(crate) struct BadValue {
    pub place: Place,
    pub column: String,
    pub value: String,
    pub expected: &'static str,
}

impl BadValue {
    fn message(&self) -> String {
        format!(
            "{}: {}, column {}: {:?} is not {}",
            self.place.file.display(),
            self.place.at,
            self.column,
            self.value,
            self.expected
        )
    }
}

/// Records skipped for a bad value, against all records read.
///
/// Policy: a bad record among thousands is an oddity of the recording, skipped, counted and
/// said (on stderr and in the profile); more than one in [`TOLERATED_PER`] records (any in a
/// file of fewer) means the file is not what it claims to be, and it is refused naming the
/// first bad value.
#[derive(Debug, Default)]
pub(crate) struct RowIssues {
    pub records: u64,
    pub bad: Vec<BadValue>,
}

/// One bad record is tolerated per this many records read.
pub(crate) const TOLERATED_PER: u64 = 1000;

impl RowIssues {
    /// Refuses the input when bad records are past the tolerance; else the warning that
    /// counts the skipped ones (none when there are none).
    pub fn settle(self) -> Result<Option<String>, ConvertError> {
        let Some(first) = self.bad.first() else {
            return Ok(None);
        };
        let bad = self.bad.len() as u64;
        if bad > self.records / TOLERATED_PER {
            return Err(ConvertError {
                path: first.place.file.clone(),
                message: format!(
                    "{}, column {}: {:?} is not {} ({bad} of {} records are bad; at most 1 in \
                     {TOLERATED_PER} is skipped)",
                    first.place.at, first.column, first.value, first.expected, self.records
                ),
            });
        }
        Ok(Some(format!(
            "{bad} of {} records skipped for a bad value; the first: {}",
            self.records,
            first.message()
        )))
    }
}

/// Inputs at least this large show a progress bar (when stderr is a terminal).
const PROGRESS_FROM_BYTES: u64 = 16 << 20;

/// A progress bar on stderr for reading `len` bytes of `path`, when it is worth one and a person
/// is watching (stderr is a terminal; scripts and tests see no bar).
pub(crate) fn progress(path: &Path, len: u64) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if len < PROGRESS_FROM_BYTES || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} ({eta} left)",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!(
        "reading {}",
        path.file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned())
    ));
    Some(bar)
}

/// A reader of `f`, decompressing when the file is gzip (by its magic bytes); with `show`, a
/// progress bar follows the file's bytes.
pub(crate) fn open_maybe_gz(
    path: &Path,
    mut f: std::fs::File,
    show: bool,
) -> Result<Box<dyn std::io::Read>, ConvertError> {
    use std::io::{Read, Seek};
    let mut magic = [0u8; 2];
    let n = f.read(&mut magic).map_err(|e| err(path, e.to_string()))?;
    f.rewind().map_err(|e| err(path, e.to_string()))?;
    let len = f.metadata().map_or(0, |m| m.len());
    let raw: Box<dyn Read> = match progress(path, len).filter(|_| show) {
        Some(bar) => Box::new(std::io::BufReader::new(bar.wrap_read(f))),
        None => Box::new(std::io::BufReader::new(f)),
    };
    Ok(if n == 2 && magic == [0x1f, 0x8b] {
        Box::new(flate2::read::GzDecoder::new(raw))
    } else {
        raw
    })
}

/// Reads `path` (any supported format) into the tool's collection: one per process (a rocpd
/// database may hold several processes and runs; the JSON and CSV inputs hold one).
pub fn read(path: &Path) -> Result<Vec<Collected>, ConvertError> {
    crate::files::check_regular(path).map_err(|why| err(path, why))?;
    match detect(path)? {
        Format::Json => json::read(path).map(|c| vec![c]),
        Format::Csv => csv::read(path).map(|c| vec![c]),
        Format::Rocpd => rocpd::read_all(path),
        Format::RocprofV1Db => Err(err(
            path,
            "a legacy rocprof (v1) results.db (table KERN), not rocprofv3 output: it has no \
             correlation ids, streams or API calls to join; re-profile with rocprofv3 \
             (`--kernel-trace --hip-runtime-trace --output-format json`)",
        )),
    }
}

/// Builds what every format shares once its records are read: kernel names as the live tool
/// prints them (`.kd` dropped, demangled by the C++ runtime), a stream line per HIP stream,
/// operation names, the streams and synchronization facts of the HIP calls' arguments
/// (`calls`), roctx marks and ranges.
///
/// Streams are numbered when the records are all read (`finish`), in the order of the first
/// call that used each (its correlation id): the order the program issued them, whatever
/// order a format lists its records in, so every format of the same records numbers its
/// stream lines alike (the live tool numbers them by creation, which the files do not record).
pub(crate) struct Builder {
    pub c: Collected,
    /// The HIP calls, for the synchronization facts made once every launch's device is known.
    hip_calls: Vec<HipCall>,
    /// Operation ids given by name, for inputs that name operations without their ids.
    hip_ops: HashMap<Arc<str>, i32>,
}

impl Builder {
    pub fn new(hostname: String, pid: u32) -> Self {
        Builder {
            c: Collected {
                hostname,
                pid,
                sdk_version: "rocprofv3 output (converted)".into(),
                ..Collected::default()
            },
            hip_calls: Vec::new(),
            hip_ops: HashMap::new(),
        }
    }

    /// The operation id of HIP function `name` for an input that names it without its id:
    /// one per name, in order of first appearance.
    pub fn hip_op(&mut self, name: &str) -> i32 {
        if let Some(&op) = self.hip_ops.get(name) {
            return op;
        }
        let op = self.hip_ops.len() as i32;
        let name: Arc<str> = Arc::from(name);
        self.op_name(ApiDomain::Hip, op, &name);
        self.hip_ops.insert(name, op);
        op
    }

    /// HIP call `a`, named `name`, with the arguments the input recorded for it (`None`: none
    /// recorded).
    pub fn hip_call(&mut self, a: ApiRecord, name: &str, args: Option<CallArgs>) {
        self.hip_calls.push(HipCall {
            thread_id: a.thread_id,
            correlation_id: a.correlation_id,
            start_ns: a.start_ns,
            name: Arc::from(name),
            args,
        });
        self.c.api.push(a);
    }

    /// A roctx mark or range (`calls::Roctx`).
    pub fn roctx(&mut self, r: &Roctx<'_>) {
        self.c.markers.push(r.span());
    }

    pub fn symbol(&mut self, kernel_id: u64, raw_name: &str, sym: KernelSymbol) {
        let name = rocprof_xplane::capture::symbols::clean_kernel_name(raw_name);
        self.c.symbols.insert(
            kernel_id,
            KernelSymbol {
                name: Arc::from(name.as_str()),
                ..sym
            },
        );
    }

    /// The work of call `correlation_id` ran on stream `stream` (0 = the null stream) of GPU
    /// `device` (ordinal). One fact per call: a graph launch's many dispatches share it.
    pub fn on_stream(&mut self, correlation_id: u64, stream: u64, device: i32) {
        self.c.calls.push(CallFact {
            correlation_id,
            stream,
            device,
            stream_seq: 0,
        });
    }

    /// Places each kernel and copy on the stream its launching call named where the call's
    /// arguments are known (the stream ids of the records otherwise), then makes the
    /// synchronization facts of the calls.
    fn calls_and_syncs(&mut self) {
        let named: HashMap<u64, u64> = self
            .hip_calls
            .iter()
            .filter_map(|h| Some((h.correlation_id, h.args?.stream?)))
            .collect();
        self.c.calls = self
            .c
            .calls
            .iter()
            .map(|mut f| {
                if let Some(&s) = named.get(&f.correlation_id) {
                    f.stream = s;
                }
                f
            })
            .collect();
        let unknown = calls::sync_facts(&mut self.c, &mut self.hip_calls);
        if unknown > 0 {
            self.c.warnings.push(format!(
                "{unknown} synchronization calls have no recorded arguments (the input holds \
                 none for them): their streams and events are unknown, so they draw no \
                 dependency"
            ));
        }
    }

    /// Numbers the streams by their first call (see the type's doc).
    fn number_streams(&mut self) {
        let c = &mut self.c;
        let mut calls: Vec<CallFact> = c.calls.iter().collect();
        calls.sort_by_key(|f| f.correlation_id);
        calls.dedup_by_key(|f| f.correlation_id);
        let mut uses: Vec<(u64, u64)> = calls
            .iter()
            .map(|f| (f.correlation_id, f.stream))
            .chain(c.syncs.iter().map(|s| (s.correlation_id, s.stream)))
            .filter(|&(_, s)| s != 0)
            .collect();
        uses.sort_unstable();
        let mut seq: HashMap<u64, u64> = HashMap::new();
        for (_, s) in uses {
            let n = seq.len() as u64 + 1;
            seq.entry(s).or_insert(n);
        }
        let of = |s: u64| if s == 0 { 0 } else { seq[&s] };
        for f in &mut calls {
            f.stream_seq = of(f.stream);
        }
        c.calls = calls.into();
        for s in &mut c.syncs {
            s.stream_seq = of(s.stream);
        }
    }

    pub fn op_name(&mut self, domain: ApiDomain, op: i32, name: &str) {
        self.c.op_names.insert((domain, op), Arc::from(name));
    }

    pub fn finish(mut self) -> Collected {
        self.calls_and_syncs();
        self.number_streams();
        let c = &self.c;
        let spans = c
            .kernels
            .iter()
            .map(|k| (k.start_ns, k.end_ns))
            .chain(c.api.iter().map(|a| (a.start_ns, a.end_ns)))
            .chain(c.copies.iter().map(|m| (m.start_ns, m.end_ns)));
        // The profile covers every record, even where the metadata's times do not.
        if let Some((first, last)) = spans.reduce(|(a, b), (s, e)| (a.min(s), b.max(e))) {
            if self.c.start_boottime_ns == 0 || self.c.start_boottime_ns > first {
                self.c.start_boottime_ns = first;
            }
            self.c.stop_boottime_ns = self.c.stop_boottime_ns.max(last);
        }
        self.c.counters.kernel_records = self.c.kernels.len() as u64;
        self.c.counters.memcpy_records = self.c.copies.len() as u64;
        self.c.counters.api_records = self
            .c
            .api
            .iter()
            .filter(|a| a.domain == ApiDomain::Hip)
            .count() as u64;
        self.c
    }
}
