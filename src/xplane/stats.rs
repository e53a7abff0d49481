//! Names xprof looks for, and the detail strings it parses.
//!
//! The strings are XLA's (`xplane_schema.cc`); xprof matches them exactly, capitalisation
//! included. Names marked "ours" are not in XLA's table: xprof shows them as plain arguments in
//! the trace viewer and otherwise ignores them.

use crate::model::{Annotation, CopyDirection, KernelInfo, MemcpyInfo};

pub const HOST_PLANE: &str = "/host:CPU";
pub const GPU_PLANE_PREFIX: &str = "/device:GPU:";
pub const SCOPE_TREE_PLANE: &str = "/host:__ScopeRangeCallStack__";
pub const TASK_ENV_PLANE: &str = "Task Environment";

// Event stats.
pub const CORRELATION_ID: &str = "correlation_id";
pub const DEVICE_ID: &str = "device_id";
pub const KERNEL_DETAILS: &str = "kernel_details";
pub const MEMCPY_DETAILS: &str = "memcpy_details";
pub const SCOPE_RANGE_ID: &str = "scope_range_id";
pub const NVTX_RANGE: &str = "nvtx_range";
pub const TF_OP: &str = "tf_op";
/// Ours: innermost external correlation id pushed by the application (uint64).
pub const EXTERNAL_CORRELATION_ID: &str = "external_correlation_id";
/// Ours: every external correlation id, outermost first, comma-separated (only when > 1).
pub const EXTERNAL_CORRELATION_IDS: &str = "external_correlation_ids";
/// Ours: number of device activities a host API call produced (graph launches produce many).
pub const ACTIVITY_COUNT: &str = "activity_count";

// Device-capability plane stats.
pub const DEVICE_VENDOR: &str = "device_vendor";
pub const GPU_DEVICE_NAME: &str = "gpu_device_name";
pub const CORE_COUNT: &str = "core_count";
pub const CLOCK_RATE: &str = "clock_rate";
pub const MEMORY_BANDWIDTH: &str = "memory_bandwidth";
pub const MEMORY_SIZE: &str = "memory_size";
pub const COMPUTE_CAP_MAJOR: &str = "compute_cap_major";
pub const COMPUTE_CAP_MINOR: &str = "compute_cap_minor";
/// Ours: marketing name, e.g. "AMD Instinct MI300X".
pub const PRODUCT_NAME: &str = "product_name";
pub const VENDOR_AMD: &str = "AMD";

// Task Environment plane stats.
pub const PROFILE_START_TIME: &str = "profile_start_time";
pub const PROFILE_STOP_TIME: &str = "profile_stop_time";

/// Stats this writer sets itself; annotation keys with these names are not copied onto
/// events, so a user's `roctx` label can never forge a correlation id or a kernel marker.
pub const RESERVED_EVENT_STATS: &[&str] = &[
    CORRELATION_ID,
    DEVICE_ID,
    KERNEL_DETAILS,
    MEMCPY_DETAILS,
    SCOPE_RANGE_ID,
    NVTX_RANGE,
    TF_OP,
    EXTERNAL_CORRELATION_ID,
    EXTERNAL_CORRELATION_IDS,
    ACTIVITY_COUNT,
    "flow",
    "group_id",
    "_pt",
    "_p",
    "_ct",
    "_c",
    // Sync stats, the queue stat and the dependency anchors' stat (`xplane::deps`).
    super::deps::HIP_EVENT,
    super::deps::HIP_STREAM,
    super::deps::SYNC_TYPE,
    super::deps::WAIT_ON_HIP_EVENT_ID,
    super::deps::WAIT_ON_STREAM,
    super::deps::WAIT_ON_HIP_EVENT_RECORD_CORR_ID,
    super::deps::HSA_QUEUE,
    super::deps::DEPENDENCY_OF,
];

/// `kernel_details` in the token format xprof's `ParseKernelLaunchParams` reads (`regs:`,
/// `static_shared:`, `dynamic_shared:`, `grid:` in blocks, `block:`), followed by the ROCm
/// token `private_mem:` (scratch bytes per work-item) that xprof shows but does not parse.
/// `occ_pct` is left out: we do not compute occupancy, and a made-up 0 would read as a fact.
pub fn kernel_details(k: &KernelInfo) -> String {
    format!(
        "regs:{} static_shared:{} dynamic_shared:{} grid:{},{},{} block:{},{},{} private_mem:{}",
        k.vgpr_count,
        k.static_shared_bytes,
        k.dynamic_shared_bytes,
        k.grid[0],
        k.grid[1],
        k.grid[2],
        k.block[0],
        k.block[1],
        k.block[2],
        k.private_segment_bytes,
    )
}

/// Device event name for a copy. xprof classifies copies by case-insensitive name prefix
/// (`MemcpyHToD`, `MemcpyDToH`, `MemcpyDToD`, `MemcpyHToH`); XLA's ROCm names (`MemcpyH2D`, …)
/// match none of them and are counted as compute, so we use xprof's spelling.
pub fn memcpy_event_name(direction: CopyDirection) -> &'static str {
    match direction {
        CopyDirection::HostToDevice => "MemcpyHToD",
        CopyDirection::DeviceToHost => "MemcpyDToH",
        CopyDirection::DeviceToDevice => "MemcpyDToD",
        CopyDirection::HostToHost => "MemcpyHToH",
        CopyDirection::Unknown => "MemcpyOther",
    }
}

/// `memcpy_details` in CUPTI's key order (`kind_src:`, `kind_dst:`, `size:`, `dest:`), plus
/// `src:` for the source GPU. Memory kinds are `host`/`device`: rocprofiler does not say whether
/// host memory was pinned or pageable. `dest:`/`src:` are GPU ordinals and appear only for GPUs.
pub fn memcpy_details(m: &MemcpyInfo) -> String {
    let (src, dst) = match m.direction {
        CopyDirection::HostToDevice => ("host", "device"),
        CopyDirection::DeviceToHost => ("device", "host"),
        CopyDirection::DeviceToDevice => ("device", "device"),
        CopyDirection::HostToHost => ("host", "host"),
        CopyDirection::Unknown => ("unknown", "unknown"),
    };
    let mut s = format!("kind_src:{src} kind_dst:{dst} size:{}", m.bytes);
    if let Some(d) = m.dst_device {
        s.push_str(&format!(" dest:{d}"));
    }
    if let Some(d) = m.src_device {
        s.push_str(&format!(" src:{d}"));
    }
    s
}

/// A value parsed from an annotation's `k=v`, typed the way XLA's `ParseAndAddStatValue` does.
#[derive(Debug, Clone, PartialEq)]
pub enum ParsedValue {
    I64(i64),
    U64(u64),
    F64(f64),
    Str(String),
}

impl ParsedValue {
    fn parse(s: &str) -> Self {
        if let Ok(v) = s.parse::<i64>() {
            ParsedValue::I64(v)
        } else if let Ok(v) = s.parse::<u64>() {
            ParsedValue::U64(v)
        } else if let Some(v) = s.parse::<f64>().ok().filter(|v| v.is_finite()) {
            ParsedValue::F64(v)
        } else {
            ParsedValue::Str(s.to_owned())
        }
    }
}

/// What an annotation stack turns into on an event, following XLA's annotation convention:
/// levels separated by `::`, each `name` or `name#k=v,k=v#`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedAnnotation {
    /// The whole stack joined by `::` (stat `nvtx_range`).
    pub joined: String,
    /// The outermost level's name (stat `tf_op`).
    pub tf_op: String,
    /// Every `k=v`, innermost level first, first occurrence of a key wins.
    pub metadata: Vec<(String, ParsedValue)>,
}

pub fn parse_annotation(a: &Annotation) -> ParsedAnnotation {
    let joined = a
        .stack
        .iter()
        .map(|s| s.as_ref())
        .collect::<Vec<_>>()
        .join("::");
    let levels: Vec<(&str, Vec<(&str, &str)>)> =
        split_levels(&joined).into_iter().map(parse_level).collect();
    let tf_op = levels
        .first()
        .map(|(n, _)| n.trim().to_owned())
        .unwrap_or_default();
    let mut metadata: Vec<(String, ParsedValue)> = Vec::new();
    for (_, kvs) in levels.iter().rev() {
        for (k, v) in kvs {
            let k = k.trim();
            if k.is_empty() || metadata.iter().any(|(seen, _)| seen == k) {
                continue;
            }
            metadata.push((k.to_owned(), ParsedValue::parse(v.trim())));
        }
    }
    ParsedAnnotation {
        joined,
        tf_op,
        metadata,
    }
}

/// Splits on `::` outside quotes and brackets.
fn split_levels(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    split_outside_nesting(s, "::")
}

/// `name#k=v,k=v#` → (name, pairs); anything else is just a name.
fn parse_level(level: &str) -> (&str, Vec<(&str, &str)>) {
    let Some(hash) = level.find('#') else {
        return (level, Vec::new());
    };
    let rest = &level[hash + 1..];
    let Some(inner) = rest.strip_suffix('#') else {
        return (level, Vec::new());
    };
    let pairs = split_outside_nesting(inner, ",")
        .into_iter()
        .filter_map(|kv| kv.split_once('='))
        .collect();
    (&level[..hash], pairs)
}

fn split_outside_nesting<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut i = 0;
    let bytes = s.as_bytes();
    while i < s.len() {
        let c = bytes[i] as char;
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ if depth <= 0 && s[i..].starts_with(sep) => {
                    out.push(&s[start..i]);
                    i += sep.len();
                    start = i;
                    continue;
                }
                _ => {}
            },
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn ann(levels: &[&str]) -> Annotation {
        Annotation {
            stack: levels.iter().map(|s| Arc::from(*s)).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn kernel_details_tokens_are_the_ones_xprof_parses() {
        let k = KernelInfo {
            grid: [128, 2, 1],
            block: [256, 1, 1],
            vgpr_count: 64,
            static_shared_bytes: 1024,
            dynamic_shared_bytes: 2048,
            private_segment_bytes: 16,
            ..Default::default()
        };
        assert_eq!(
            kernel_details(&k),
            "regs:64 static_shared:1024 dynamic_shared:2048 grid:128,2,1 block:256,1,1 private_mem:16"
        );
    }

    #[test]
    fn annotation_levels_and_typed_values() {
        let p = parse_annotation(&ann(&[
            "XlaModule:#hlo_module=jit_f,program_id=7#",
            "Thunk:#hlo_op=fusion.1,name=\"a,b\",x=1.5,big=18446744073709551615#",
        ]));
        assert_eq!(p.tf_op, "XlaModule:");
        assert_eq!(
            p.joined,
            "XlaModule:#hlo_module=jit_f,program_id=7#::Thunk:#hlo_op=fusion.1,name=\"a,b\",x=1.5,big=18446744073709551615#"
        );
        assert_eq!(
            p.metadata,
            vec![
                ("hlo_op".into(), ParsedValue::Str("fusion.1".into())),
                ("name".into(), ParsedValue::Str("\"a,b\"".into())),
                ("x".into(), ParsedValue::F64(1.5)),
                ("big".into(), ParsedValue::U64(u64::MAX)),
                ("hlo_module".into(), ParsedValue::Str("jit_f".into())),
                ("program_id".into(), ParsedValue::I64(7)),
            ]
        );
    }

    #[test]
    fn inner_key_wins_and_plain_names_have_no_metadata() {
        let p = parse_annotation(&ann(&["train_step", "outer#k=1#", "inner#k=2#"]));
        assert_eq!(p.tf_op, "train_step");
        assert_eq!(p.metadata, vec![("k".into(), ParsedValue::I64(2))]);
        assert_eq!(parse_annotation(&ann(&[])), ParsedAnnotation::default());
    }
}
