//! `rocprof-xplane convert` on broken and odd inputs: each input that cannot be read as a whole
//! is refused with one line naming the file and the place (exit 2, no profile written); a bad
//! record among thousands is skipped, counted and said on stderr and in the profile. The
//! inputs are made from the real files in `../shared/testdata/real/` (attribution in each
//! README there), damaged here. The table in docs/convert.md lists these cases.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rocprof_xplane::xplane::read_xspace;
use support::paths::{cli, profiles, real_data};
use support::stderr_of;

fn convert(input: &Path, out: &Path) -> Output {
    Command::new(cli())
        .arg("convert")
        .arg(input)
        .arg("--output-dir")
        .arg(out)
        .args(["--run-name", "x"])
        .output()
        .expect("run rocprof-xplane convert")
}

/// Converting `input` fails with exit 2, one line on stderr containing every one of `says`,
/// and no profile.
fn refused(input: &Path, says: &[&str]) {
    let out_dir = input.with_extension("out");
    let out = convert(input, &out_dir);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{}: {err}", input.display());
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for s in says {
        assert!(
            err.contains(s),
            "{}: wanted {s:?} in: {err}",
            input.display()
        );
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(profiles(&out_dir, "x").is_empty(), "no profile written");
}

/// The real CSV's text with `edit` applied to each line (header = line 0).
fn edited_csv(
    src: &Path,
    dir: &Path,
    name: &str,
    edit: impl Fn(usize, &str) -> Option<String>,
) -> PathBuf {
    let text = std::fs::read_to_string(src).unwrap();
    let out: Vec<String> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| edit(i, l))
        .collect();
    let p = dir.join(name);
    std::fs::write(&p, out.join("\n") + "\n").unwrap();
    p
}

/// Removes column `col` (by header name) from a CSV line set.
fn without_column(src: &Path, dir: &Path, name: &str, col: &str) -> PathBuf {
    let text = std::fs::read_to_string(src).unwrap();
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let headers = rdr.headers().unwrap().clone();
    let at = headers.iter().position(|h| h == col).unwrap();
    let p = dir.join(name);
    let mut w = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .from_path(&p)
        .unwrap();
    let keep = |r: &csv::StringRecord| -> Vec<String> {
        r.iter()
            .enumerate()
            .filter(|(i, _)| *i != at)
            .map(|(_, v)| v.to_string())
            .collect()
    };
    w.write_record(keep(&headers)).unwrap();
    for r in rdr.records() {
        w.write_record(keep(&r.unwrap())).unwrap();
    }
    w.flush().unwrap();
    p
}

/// The field `col` of data line `line` replaced by `value` (all fields quoted).
fn with_value(src: &Path, dir: &Path, name: &str, line: usize, col: &str, value: &str) -> PathBuf {
    let text = std::fs::read_to_string(src).unwrap();
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let headers = rdr.headers().unwrap().clone();
    let at = headers.iter().position(|h| h == col).unwrap();
    let p = dir.join(name);
    let mut w = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .from_path(&p)
        .unwrap();
    w.write_record(&headers).unwrap();
    for (i, r) in rdr.records().enumerate() {
        let mut v: Vec<String> = r.unwrap().iter().map(str::to_string).collect();
        if i + 1 == line {
            v[at] = value.to_string();
        }
        w.write_record(&v).unwrap();
    }
    w.flush().unwrap();
    p
}

const PREFILL: &str = "rocprofv3-csv-gfx1151-prefill/prefill_kernel_trace.csv";
const DECODE_HIP: &str = "rocprofv3-csv-gfx1151/decode_hip_api_trace.csv";
const DECODE_KERNELS: &str = "rocprofv3-csv-gfx1151/decode_kernel_trace.csv";
const MI300A: &str = "rocpd2csv-mi300a/out_kernel_trace.csv";

#[test]
fn a_kernel_trace_without_end_timestamp_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let p = without_column(
        &real_data(PREFILL),
        tmp.path(),
        "a_kernel_trace.csv",
        "End_Timestamp",
    );
    refused(
        &p,
        &[
            "a_kernel_trace.csv",
            "no End_Timestamp column",
            "rocprofv3 CSV",
        ],
    );
}

#[test]
fn a_hip_trace_without_correlation_ids_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        real_data(DECODE_KERNELS),
        tmp.path().join("b_kernel_trace.csv"),
    )
    .unwrap();
    without_column(
        &real_data(DECODE_HIP),
        tmp.path(),
        "b_hip_api_trace.csv",
        "Correlation_Id",
    );
    refused(
        &tmp.path().join("b_kernel_trace.csv"),
        &[
            "b_hip_api_trace.csv",
            "HIP API trace",
            "no Correlation_Id column",
        ],
    );
}

#[test]
fn a_non_numeric_timestamp_in_a_small_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let p = with_value(
        &real_data(MI300A),
        tmp.path(),
        "c_kernel_trace.csv",
        2,
        "Start_Timestamp",
        "12:03:04",
    );
    refused(
        &p,
        &[
            "c_kernel_trace.csv",
            "line 3",
            "Start_Timestamp",
            "\"12:03:04\" is not an unsigned integer",
        ],
    );
}

#[test]
fn malformed_truncated_and_empty_csv_files_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read(real_data(MI300A)).unwrap();
    // Cut in the middle of the fifth row.
    let cut_at = text
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(4)
        .unwrap()
        .0
        + 60;
    let cut = tmp.path().join("d_kernel_trace.csv");
    std::fs::write(&cut, &text[..cut_at]).unwrap();
    refused(
        &cut,
        &[
            "d_kernel_trace.csv",
            "line 6",
            "fields where the header has 23",
            "truncated",
        ],
    );

    let empty = tmp.path().join("e_kernel_trace.csv");
    std::fs::write(&empty, b"").unwrap();
    refused(&empty, &["e_kernel_trace.csv", "an empty file"]);

    let header_only = edited_csv(
        &real_data(MI300A),
        tmp.path(),
        "f_kernel_trace.csv",
        |i, l| (i == 0).then(|| l.to_string()),
    );
    refused(
        &header_only,
        &["f_kernel_trace.csv", "a header and no rows"],
    );
}

/// A header no known writer produces (here a renamed timestamp column) is refused by name,
/// with the dialects that are read.
#[test]
fn an_unknown_column_layout_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let p = edited_csv(
        &real_data(MI300A),
        tmp.path(),
        "g_kernel_trace.csv",
        |i, l| {
            Some(if i == 0 {
                l.replace("Start_Timestamp", "Begin_Ns")
            } else {
                l.to_string()
            })
        },
    );
    refused(
        &p,
        &[
            "g_kernel_trace.csv",
            "no Start_Timestamp column",
            "nearest: rocpd2csv (ROCm 7.1)",
            "rocprofv3 CSV",
        ],
    );
}

/// One bad timestamp among 1,133 records (the prefill trace and its HIP file) is skipped,
/// counted, and said on stderr and in the profile; every other row converts.
#[test]
fn a_bad_row_among_thousands_is_skipped_counted_and_said() {
    let tmp = tempfile::tempdir().unwrap();
    let p = with_value(
        &real_data(PREFILL),
        tmp.path(),
        "h_kernel_trace.csv",
        500,
        "End_Timestamp",
        "n/a",
    );
    std::fs::copy(
        real_data("rocprofv3-csv-gfx1151-prefill/prefill_hip_api_trace.csv"),
        tmp.path().join("h_hip_api_trace.csv"),
    )
    .unwrap();
    let out_dir = tmp.path().join("out");
    let out = convert(&p, &out_dir);
    let err = stderr_of(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning: 1 of 1133 records skipped for a bad value")
            && err.contains("line 501, column End_Timestamp"),
        "{err}"
    );
    let s = read_xspace(&profiles(&out_dir, "x")[0]).unwrap();
    assert_eq!(support::xspace::kernels(&s).len(), 1127);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("1 of 1133 records skipped")),
        "{:?}",
        s.warnings
    );
}

/// rocprofv3 JSON: a document cut short, and dispatch records without `end_timestamp`.
#[test]
fn truncated_or_incomplete_json_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = serde_json::json!({"rocprofiler-sdk-tool": [{
        "metadata": {"node": {"hostname": "h"}, "pid": 7, "init_time": 1000, "fini_time": 9000},
        "agents": [{"id": {"handle": 5}, "type": 2, "name": "gfx942"}],
        "strings": {"buffer_records": []},
        "kernel_symbols": [],
        "buffer_records": {"kernel_dispatch": [
            {"correlation_id": {"internal": 1}, "start_timestamp": 2000,
             "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1,
                               "dispatch_id": 1,
                               "workgroup_size": {"x": 64, "y": 1, "z": 1},
                               "grid_size": {"x": 64, "y": 1, "z": 1}}}
        ]}
    }]})
    .to_string();
    let cut = tmp.path().join("cut.json");
    std::fs::write(&cut, &doc[..doc.len() / 2]).unwrap();
    refused(&cut, &["cut.json", "truncated JSON", "line 1 column"]);
    let no_end = tmp.path().join("no_end.json");
    std::fs::write(&no_end, &doc).unwrap();
    refused(
        &no_end,
        &[
            "no_end.json",
            "buffer_records.kernel_dispatch[0]",
            "column end_timestamp",
            "(absent)",
        ],
    );
}

/// A dispatch record's `pipe_id` holding the SDK's "none" sentinel (a negative value) writes
/// no `pipe_id` stat; a real pipe is written.
#[test]
fn a_sentinel_pipe_id_writes_no_stat() {
    let tmp = tempfile::tempdir().unwrap();
    let dispatch = |corr: u64, pipe: i64| {
        serde_json::json!({"correlation_id": {"internal": corr}, "start_timestamp": 1000 * corr,
             "end_timestamp": 1000 * corr + 500, "stream_id": {"handle": 0},
             "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1,
                               "dispatch_id": corr, "pipe_id": pipe,
                               "workgroup_size": {"x": 64, "y": 1, "z": 1},
                               "grid_size": {"x": 64, "y": 1, "z": 1}}})
    };
    let doc = serde_json::json!({"rocprofiler-sdk-tool": [{
        "metadata": {"node": {"hostname": "h"}, "pid": 7},
        "agents": [{"id": {"handle": 5}, "type": 2, "name": "gfx942"}],
        "kernel_symbols": [{"kernel_id": 1, "kernel_name": "k"}],
        "buffer_records": {"kernel_dispatch": [dispatch(1, -1), dispatch(2, 2)]}
    }]});
    let p = tmp.path().join("pipes.json");
    std::fs::write(&p, doc.to_string()).unwrap();
    let out = convert(&p, &tmp.path().join("out"));
    assert!(out.status.success(), "{}", stderr_of(&out));
    let s = read_xspace(&profiles(&tmp.path().join("out"), "x")[0]).unwrap();
    let pipes: Vec<Option<i64>> = support::xspace::kernels(&s)
        .iter()
        .map(|e| match e.raw_stat("pipe_id") {
            Some(rocprof_xplane::xplane::proto::x_stat::Value::Int64Value(v)) => Some(*v),
            Some(other) => panic!("{other:?}"),
            None => None,
        })
        .collect();
    assert_eq!(pipes.len(), 2);
    assert!(pipes.contains(&None), "the sentinel: {pipes:?}");
    assert!(pipes.contains(&Some(2)), "the pipe: {pipes:?}");
}
