//! `rocprof-xplane convert`: rocprofv3's output files → the same `Collected` the live tool
//! gathers, so the one join and XPlane writer produce the profile (kernels, HIP API calls,
//! copies, streams, agents, kernel resources and occupancy) exactly as for a live run.
//!
//! Inputs: rocprofv3's rocpd SQLite database (its default since ROCm 7.0; every process of
//! every run in it), rocprofv3 JSON (`--output-format json`, optionally gzipped) and rocprofv3
//! CSV (`*_kernel_trace.csv`, with its sibling `*_hip_api_trace.csv` when present). The legacy
//! rocprof v1 `results.db` is refused with a message naming it.

pub mod csv;
pub mod json;
pub mod rocpd;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rocprof_xplane_core::model::events::{ApiDomain, CallFact, Collected, KernelSymbol};

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
        Some(b'"') if String::from_utf8_lossy(&head).contains("Kernel_Name") => Ok(Format::Csv),
        _ => Err(err(
            path,
            "not a rocprofv3 output this converter reads (JSON, *_kernel_trace.csv, or an SQLite database)",
        )),
    }
}

fn read_head(path: &Path, n: usize) -> Result<Vec<u8>, ConvertError> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| err(path, e.to_string()))?;
    let mut buf = Vec::with_capacity(n);
    let mut r = open_maybe_gz(path, f, false)?;
    r.by_ref()
        .take(n as u64)
        .read_to_end(&mut buf)
        .map_err(|e| err(path, e.to_string()))?;
    Ok(buf)
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
/// operation names.
pub(crate) struct Builder {
    pub c: Collected,
    /// HIP stream handle → creation order (first seen), so lines are numbered as live.
    streams: HashMap<u64, u64>,
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
            streams: HashMap::new(),
        }
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

    /// The creation order of HIP stream `stream` (first seen; 0 = the null stream).
    pub fn stream_seq(&mut self, stream: u64) -> u64 {
        let n = self.streams.len() as u64;
        if stream == 0 {
            0
        } else {
            *self.streams.entry(stream).or_insert(n + 1)
        }
    }

    /// The dispatch `correlation_id` ran on HIP stream `stream` of GPU `device` (ordinal).
    pub fn on_stream(&mut self, correlation_id: u64, stream: u64, device: i32) {
        let seq = self.stream_seq(stream);
        self.c.calls.push(CallFact {
            correlation_id,
            stream,
            device,
            stream_seq: seq,
        });
    }

    pub fn op_name(&mut self, domain: ApiDomain, op: i32, name: &str) {
        self.c.op_names.insert((domain, op), Arc::from(name));
    }

    pub fn finish(mut self) -> Collected {
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
