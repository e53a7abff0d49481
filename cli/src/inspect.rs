//! `rocprof-xplane inspect <FILE> [--json]`: what an `.xplane.pb` holds, without xprof.
//!
//! Works on any XSpace (ours or XLA's). `--json` prints one object whose keys are stable, for
//! scripts and tests; the text form is for people.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use serde_json::{json, Map, Value};

use rocprof_xplane_core::xplane::proto::{x_event, x_stat, XEvent, XPlane, XSpace, XStat};
use rocprof_xplane_core::xplane::read_xspace;

/// How many kernels the summary lists.
const TOP_KERNELS: usize = 10;

#[derive(Debug, clap::Parser)]
#[command(
    about = "Summarise an .xplane.pb: planes, lines, events per kind, top kernels, streams, drops"
)]
pub struct Args {
    /// The profile (`.xplane.pb`; ours or another producer's, e.g. XLA's).
    file: String,
    /// One JSON object with stable keys, for scripts.
    #[arg(long)]
    json: bool,
    /// Every plane, line, event and stat, one per line, names resolved (planes by name, stats
    /// by name): a text two profiles can be compared by (`ci/compare-output.sh`).
    #[arg(long, conflicts_with = "json")]
    events: bool,
}

pub fn execute(args: Args) -> ExitCode {
    let (file, as_json) = (args.file, args.json);
    if let Err(why) = crate::files::profile(Path::new(&file)) {
        eprintln!("rocprof-xplane inspect: {why}");
        return ExitCode::FAILURE;
    }
    let space = match read_xspace(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rocprof-xplane inspect: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.events {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        return match write_events(&mut out, &space).and_then(|()| out.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            // A closed pipe (`| head`) ends the listing, not an error worth a line.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("rocprof-xplane inspect: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let summary = summarize(Path::new(&file), &space);
    if as_json {
        match serde_json::to_string_pretty(&summary) {
            Ok(s) => crate::out!("{s}"),
            Err(e) => {
                eprintln!("rocprof-xplane inspect: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        crate::files::out_text(&render_text(&summary));
    }
    ExitCode::SUCCESS
}

/// What kind of event this is, as far as xprof would tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Kernel,
    Memcpy,
    ApiCall,
    Marker,
    /// An allocation or free of the memory timeline (`MemoryAllocation`, `MemoryDeallocation`).
    Memory,
    Other,
}

fn stat_name<'a>(p: &'a XPlane, s: &XStat) -> &'a str {
    p.stat_metadata
        .get(&s.metadata_id)
        .map(|m| m.name.as_str())
        .unwrap_or("")
}

fn stat_json(p: &XPlane, s: &XStat) -> Value {
    match &s.value {
        Some(x_stat::Value::DoubleValue(v)) => json!(v),
        Some(x_stat::Value::Uint64Value(v)) => json!(v),
        Some(x_stat::Value::Int64Value(v)) => json!(v),
        Some(x_stat::Value::StrValue(v)) => json!(v),
        Some(x_stat::Value::RefValue(r)) => {
            json!(i64::try_from(*r)
                .ok()
                .and_then(|r| p.stat_metadata.get(&r))
                .map(|m| m.name.as_str())
                .unwrap_or(""))
        }
        Some(x_stat::Value::BytesValue(b)) => json!(format!("<{} bytes>", b.len())),
        None => Value::Null,
    }
}

/// Text of the profile as one line of the listing: control characters (a newline in a kernel
/// or roctx name) escaped, so one event stays one line.
fn one_line(text: &str) -> String {
    text.escape_debug().to_string()
}

/// A stat as `name=value`: a reference by the text it names (`ref:`), a string quoted.
fn stat_text(p: &XPlane, s: &XStat) -> String {
    let value = match &s.value {
        Some(x_stat::Value::StrValue(v)) => format!("{v:?}"),
        Some(x_stat::Value::RefValue(_)) => {
            format!("ref:{}", one_line(stat_json(p, s).as_str().unwrap_or("")))
        }
        _ => stat_json(p, s).to_string(),
    };
    format!("{}={value}", one_line(stat_name(p, s)))
}

/// A list of stats, sorted by their text (their order on the wire is not part of what they say).
fn stats_text(p: &XPlane, stats: &[XStat]) -> String {
    let mut all: Vec<String> = stats.iter().map(|s| stat_text(p, s)).collect();
    all.sort_unstable();
    all.join(",")
}

/// `--events`: planes by name; in each, its stats, its event metadata that carries stats, then
/// its lines by id, each event as `name T<start ps> <duration ps> [stats]` in the line's order.
/// The start is the line's timestamp plus the event's offset, so two files with their lines
/// based at different times still compare.
fn write_events(out: &mut impl std::io::Write, space: &XSpace) -> std::io::Result<()> {
    let mut planes: Vec<&XPlane> = space.planes.iter().collect();
    planes.sort_by(|a, b| (&a.name, a.id).cmp(&(&b.name, b.id)));
    for p in planes {
        writeln!(
            out,
            "PLANE {} {} [{}]",
            p.id,
            one_line(&p.name),
            stats_text(p, &p.stats)
        )?;
        let mut metadata: Vec<_> = p
            .event_metadata
            .values()
            .filter(|m| !m.stats.is_empty())
            .collect();
        metadata.sort_by(|a, b| (&a.name, a.id).cmp(&(&b.name, b.id)));
        for m in metadata {
            writeln!(
                out,
                "  EM {} {:?} [{}]",
                one_line(&m.name),
                m.display_name,
                stats_text(p, &m.stats)
            )?;
        }
        let mut lines: Vec<_> = p.lines.iter().collect();
        lines.sort_by_key(|l| l.id);
        for l in lines {
            writeln!(
                out,
                " LINE {} {} {:?} ts {} n {}",
                l.id,
                one_line(&l.name),
                l.display_name,
                l.timestamp_ns,
                l.events.len()
            )?;
            let base_ps = i128::from(l.timestamp_ns) * 1_000;
            for e in &l.events {
                let offset = match e.data {
                    Some(x_event::Data::OffsetPs(o)) => i128::from(o),
                    Some(x_event::Data::NumOccurrences(_)) | None => 0,
                };
                writeln!(
                    out,
                    "  {} T{} {} [{}]",
                    one_line(event_name(p, e)),
                    base_ps + offset,
                    e.duration_ps,
                    stats_text(p, &e.stats)
                )?;
            }
        }
    }
    Ok(())
}

fn event_name<'a>(p: &'a XPlane, e: &XEvent) -> &'a str {
    p.event_metadata
        .get(&e.metadata_id)
        .map(|m| m.name.as_str())
        .unwrap_or("")
}

fn classify(p: &XPlane, line_name: &str, e: &XEvent) -> Kind {
    let has = |n: &str| e.stats.iter().any(|s| stat_name(p, s) == n);
    let name = event_name(p, e);
    if p.name.starts_with("/device:") {
        if has("kernel_details") {
            Kind::Kernel
        } else if has("memcpy_details") || name.to_ascii_lowercase().starts_with("memcpy") {
            Kind::Memcpy
        } else {
            Kind::Other
        }
    } else if p.name == "/host:CPU" {
        // `…/ROCTX`, `…/ROCTX #k`, `…/ROCTX ranges[ #k]` (docs/xplane-output.md), XLA's `…/NVTX`.
        if line_name.contains("/ROCTX") || line_name.ends_with("/NVTX") {
            Kind::Marker
        } else if name == "MemoryAllocation" || name == "MemoryDeallocation" {
            Kind::Memory
        } else if has("correlation_id") || name.starts_with("hip") || name.starts_with("hsa") {
            Kind::ApiCall
        } else {
            Kind::Other
        }
    } else {
        Kind::Other
    }
}

/// The stable JSON summary (keys sorted; see docs/xplane-output.md).
pub fn summarize(path: &Path, space: &XSpace) -> Value {
    let mut counts: BTreeMap<&str, u64> = [
        "kernels",
        "memcpys",
        "api_calls",
        "markers",
        "memory_events",
        "other",
    ]
    .into_iter()
    .map(|k| (k, 0))
    .collect();
    // name → (count, total ps)
    let mut kernels: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    let mut planes = Vec::new();
    let mut devices = Vec::new();
    let mut counters = Map::new();
    let mut clock = Map::new();
    let mut span: Option<(i64, i64)> = None;
    for p in &space.planes {
        let mut lines = Vec::new();
        let mut plane_events = 0u64;
        for l in &p.lines {
            for e in &l.events {
                let kind = classify(p, &l.name, e);
                let key = match kind {
                    Kind::Kernel => "kernels",
                    Kind::Memcpy => "memcpys",
                    Kind::ApiCall => "api_calls",
                    Kind::Marker => "markers",
                    Kind::Memory => "memory_events",
                    Kind::Other => "other",
                };
                *counts.get_mut(key).unwrap() += 1;
                if kind == Kind::Kernel {
                    let k = kernels.entry(event_name(p, e).to_owned()).or_default();
                    k.0 += 1;
                    k.1 = k.1.saturating_add(e.duration_ps);
                }
                if let Some(x_event::Data::OffsetPs(o)) = e.data {
                    let start = l.timestamp_ns.saturating_mul(1000).saturating_add(o);
                    let end = start.saturating_add(e.duration_ps);
                    span = Some(match span {
                        None => (start, end),
                        Some((a, b)) => (a.min(start), b.max(end)),
                    });
                }
            }
            plane_events += l.events.len() as u64;
            lines.push(json!({"id": l.id, "name": l.name, "display_name": l.display_name, "events": l.events.len()}));
        }
        let mut stats = Map::new();
        if p.name != "/host:__ScopeRangeCallStack__" {
            for s in &p.stats {
                let name = stat_name(p, s);
                // The clock's stats are times and statements, not counts.
                if let Some(c) = name.strip_prefix("rocprof_xplane_clock_") {
                    clock.insert(c.to_owned(), stat_json(p, s));
                }
                let counter = name
                    .strip_prefix("rocprof_xplane_")
                    .filter(|_| name != rocprof_xplane_core::xplane::stats::ORIGIN_BOOTTIME_NS)
                    .filter(|c| !c.starts_with("clock_"));
                if let Some(c) = counter {
                    if let Some(x_stat::Value::Uint64Value(v)) = s.value {
                        counters.insert(c.to_owned(), json!(v));
                    }
                }
                stats.insert(name.to_owned(), stat_json(p, s));
            }
        }
        if p.name.starts_with("/device:GPU:") {
            devices.push(json!({"plane": p.name, "id": p.id, "properties": stats.clone()}));
        }
        planes.push(json!({
            "name": p.name,
            "id": p.id,
            "events": plane_events,
            "lines": lines,
            "stats": if p.name == "/host:__ScopeRangeCallStack__" { json!({"scope_tree_edges": p.stats.len()}) } else { Value::Object(stats) },
        }));
    }
    let row = |(name, (n, ps)): (&String, &(u64, i64))| json!({"name": name, "count": n, "total_ns": ps / 1000, "avg_ns": ps / 1000 / (*n as i64).max(1)});
    let mut by_time: Vec<(&String, &(u64, i64))> = kernels.iter().collect();
    by_time.sort_by(|a, b| {
        b.1 .1
            .cmp(&a.1 .1)
            .then(b.1 .0.cmp(&a.1 .0))
            .then(a.0.cmp(b.0))
    });
    let mut by_count = by_time.clone();
    by_count.sort_by(|a, b| {
        b.1 .0
            .cmp(&a.1 .0)
            .then(b.1 .1.cmp(&a.1 .1))
            .then(a.0.cmp(b.0))
    });
    let top: Vec<Value> = by_time.into_iter().take(TOP_KERNELS).map(row).collect();
    let top_by_count: Vec<Value> = by_count.into_iter().take(TOP_KERNELS).map(row).collect();
    json!({
        "file": path.display().to_string(),
        "streams": stream_activity(space),
        "dependency_arrows": dependency_arrows(space),
        "hostnames": space.hostnames,
        "planes": planes,
        "event_counts": counts,
        "distinct_kernels": kernels.len(),
        "top_kernels": top,
        "top_kernels_by_count": top_by_count,
        "devices": devices,
        "warnings": space.warnings,
        "errors": space.errors,
        "counters": counters,
        "clock": clock,
        "time_span_ns": span.map(|(a, b)| (b - a) / 1000).unwrap_or(0),
    })
}

/// The job clock a profile's times are on, in one line: how they line up with the job's other
/// processes, the origin they count from (UTC) and where it came from, the stated error.
fn clock_line(c: &Value) -> Option<String> {
    let origin = c["origin_unix_ns"].as_u64()?;
    let utc = rocprof_xplane::config::run_name_for(origin / 1_000_000_000);
    // `YYYY_MM_DD_HH_MM_SS` → `YYYY-MM-DD HH:MM:SS`.
    let utc: String = utc
        .char_indices()
        .map(|(i, ch)| match (i, ch) {
            (4 | 7, '_') => '-',
            (10, '_') => ' ',
            (_, '_') => ':',
            _ => ch,
        })
        .collect();
    let mut line = format!(
        "{}; times count from {utc} UTC ({}), within ±{} ns",
        c["alignment"].as_str().unwrap_or("?"),
        c["origin_from"].as_str().unwrap_or("?"),
        c["error_ns"].as_u64().unwrap_or(0)
    );
    if let Some(d) = c["drift_ns"].as_i64() {
        line += &format!("; the wall clock moved {d:+} ns against the boot clock during it");
    }
    Some(line)
}

/// Largest idle gaps listed per stream line.
const TOP_GAPS: usize = 3;

/// Per device line (a HIP stream): how busy it was over its active span (first start to last
/// end; overlapping events counted once) and its largest idle gaps ("bubbles") between
/// consecutive work. Zero-length events (dependency anchors) are not work.
fn stream_activity(space: &XSpace) -> Vec<Value> {
    let mut out = Vec::new();
    for p in space
        .planes
        .iter()
        .filter(|p| p.name.starts_with("/device:GPU:"))
    {
        for l in &p.lines {
            let mut spans: Vec<(i64, i64)> = l
                .events
                .iter()
                .filter(|e| e.duration_ps > 0)
                .filter_map(|e| match e.data {
                    Some(x_event::Data::OffsetPs(o)) => {
                        let start = l.timestamp_ns.saturating_mul(1000).saturating_add(o);
                        Some((start, start.saturating_add(e.duration_ps)))
                    }
                    _ => None,
                })
                .collect();
            if spans.is_empty() {
                continue;
            }
            spans.sort_unstable();
            let first = spans[0].0;
            let (mut busy, mut cur) = (0i64, spans[0]);
            let mut gaps: Vec<(i64, i64)> = Vec::new();
            for &(a, b) in &spans[1..] {
                if a > cur.1 {
                    busy += cur.1 - cur.0;
                    gaps.push((cur.1, a - cur.1));
                    cur = (a, b);
                } else {
                    cur.1 = cur.1.max(b);
                }
            }
            busy += cur.1 - cur.0;
            let span = (cur.1 - first).max(1);
            gaps.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
            let top: Vec<Value> = gaps
                .iter()
                .take(TOP_GAPS)
                .map(|(at, len)| json!({"at_ns": (at - first) / 1000, "gap_ns": len / 1000}))
                .collect();
            out.push(json!({
                "plane": p.name,
                "line": l.name,
                "events": spans.len(),
                "span_ns": span / 1000,
                "busy_fraction": busy as f64 / span as f64,
                "gaps": gaps.len(),
                "largest_gaps": top,
            }));
        }
    }
    out
}

/// Dependency arrows: pairs of `flow` stats (our anchors, and flows other producers write).
fn dependency_arrows(space: &XSpace) -> u64 {
    let mut ends = 0u64;
    for p in &space.planes {
        for l in &p.lines {
            for e in &l.events {
                let md = p.event_metadata.get(&e.metadata_id);
                ends += e
                    .stats
                    .iter()
                    .chain(md.into_iter().flat_map(|m| &m.stats))
                    .filter(|s| stat_name(p, s) == "flow")
                    .count() as u64;
            }
        }
    }
    ends / 2
}

fn render_text(s: &Value) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "file: {}", s["file"].as_str().unwrap_or(""));
    let _ = writeln!(o, "hostnames: {}", s["hostnames"]);
    let _ = writeln!(
        o,
        "time span: {:.3} ms",
        s["time_span_ns"].as_i64().unwrap_or(0) as f64 / 1e6
    );
    let c = &s["event_counts"];
    let _ = writeln!(
        o,
        "events: {} kernels, {} memcpys, {} API calls, {} markers, {} allocations/frees, {} other",
        c["kernels"], c["memcpys"], c["api_calls"], c["markers"], c["memory_events"], c["other"]
    );
    let _ = writeln!(o, "\nplanes:");
    for p in s["planes"].as_array().into_iter().flatten() {
        let lines = p["lines"].as_array().map(|l| l.len()).unwrap_or(0);
        let _ = writeln!(
            o,
            "  {} (id {}): {} lines, {} events",
            p["name"].as_str().unwrap_or(""),
            p["id"],
            lines,
            p["events"]
        );
        for l in p["lines"].as_array().into_iter().flatten() {
            let _ = writeln!(
                o,
                "    line {:>12}  {:<40} {} events",
                l["id"],
                l["name"].as_str().unwrap_or(""),
                l["events"]
            );
        }
    }
    let _ = writeln!(o, "\ndevices:");
    for d in s["devices"].as_array().into_iter().flatten() {
        let props: Vec<String> = d["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                format!(
                    "{k}={}",
                    v.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| v.to_string())
                )
            })
            .collect();
        let _ = writeln!(
            o,
            "  {}: {}",
            d["plane"].as_str().unwrap_or(""),
            props.join(" ")
        );
    }
    let _ = writeln!(
        o,
        "\ntop kernels by total time ({} distinct):",
        s["distinct_kernels"]
    );
    for k in s["top_kernels"].as_array().into_iter().flatten() {
        let _ = writeln!(
            o,
            "  {:>12.3} us  {:>7}x  {}",
            k["total_ns"].as_i64().unwrap_or(0) as f64 / 1e3,
            k["count"],
            k["name"].as_str().unwrap_or("")
        );
    }
    let _ = writeln!(o, "\ntop kernels by dispatch count:");
    for k in s["top_kernels_by_count"].as_array().into_iter().flatten() {
        let _ = writeln!(
            o,
            "  {:>7}x  {:>12.3} us  {}",
            k["count"],
            k["total_ns"].as_i64().unwrap_or(0) as f64 / 1e3,
            k["name"].as_str().unwrap_or("")
        );
    }
    let streams = s["streams"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if !streams.is_empty() {
        let _ = writeln!(
            o,
            "\nstreams (busy share of their active span; largest idle gaps, at µs from the first work):"
        );
        for st in streams {
            let gaps: Vec<String> = st["largest_gaps"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|g| {
                    format!(
                        "{:.1} µs at {:.1}",
                        g["gap_ns"].as_i64().unwrap_or(0) as f64 / 1e3,
                        g["at_ns"].as_i64().unwrap_or(0) as f64 / 1e3
                    )
                })
                .collect();
            let _ = writeln!(
                o,
                "  {} {:<32} {:>5.1}% busy over {:.3} ms, {} gaps{}{}",
                st["plane"].as_str().unwrap_or(""),
                st["line"].as_str().unwrap_or(""),
                st["busy_fraction"].as_f64().unwrap_or(0.0) * 100.0,
                st["span_ns"].as_i64().unwrap_or(0) as f64 / 1e6,
                st["gaps"],
                if gaps.is_empty() { "" } else { ": " },
                gaps.join(", ")
            );
        }
    }
    let _ = writeln!(o, "\ndependency arrows: {}", s["dependency_arrows"]);
    if let Some(line) = clock_line(&s["clock"]) {
        let _ = writeln!(o, "\nclock: {line}");
    }
    if let Some(c) = s["counters"].as_object().filter(|c| !c.is_empty()) {
        let _ = writeln!(o, "\nrecord counters:");
        for (k, v) in c {
            let _ = writeln!(o, "  {k}: {v}");
        }
    }
    let warnings = s["warnings"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let _ = writeln!(o, "\nwarnings: {}", warnings.len());
    for w in warnings {
        let _ = writeln!(o, "  {}", w.as_str().unwrap_or(""));
    }
    for e in s["errors"].as_array().into_iter().flatten() {
        let _ = writeln!(o, "error: {}", e.as_str().unwrap_or(""));
    }
    o
}
