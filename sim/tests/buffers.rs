//! Buffer semantics: byte watermark, LOSSLESS back-pressure, DISCARD drop counts, delivery
//! thread, record lifetime, synchronous flush, no automatic flush (reference §2.2, §1.3).

mod common;
use common::*;
use std::collections::HashSet;

fn app_tids(s: &Sim) -> HashSet<u64> {
    s.ev("cb")
        .iter()
        .filter(|v| v["kind_name"] == "HIP_RUNTIME_API")
        .map(|v| v["self_tid"].as_u64().unwrap())
        .collect()
}

fn watermark_zero_delivers_every_record(sdk: &str) {
    let s = run(sdk, "stress:20", "watermark=0");
    let bufs = s.ev("buffer");
    assert!(!bufs.is_empty());
    assert!(
        bufs.iter().all(|b| b["n"].as_u64().unwrap() == 1),
        "watermark 0 => exactly one record per delivery"
    );
    assert_eq!(s.ev("rec").len() as u64, s.emitted_total());
}

fn watermark_is_in_bytes(sdk: &str) {
    // 64 KiB buffer, 16 KiB watermark: every delivery but the final flush carries >= 16 KiB
    // of (header + record) bytes, and less than the buffer size.
    let s = run(
        sdk,
        "stress:200",
        "no_callbacks,buf_size=65536,watermark=16384",
    );
    let mut idx = 0;
    let bufs: Vec<(u64, bool)> = s
        .ev("buffer")
        .iter()
        .map(|b| (b["n"].as_u64().unwrap(), b["finalizing"].as_bool().unwrap()))
        .collect();
    let recs = s.ev("rec");
    assert!(
        bufs.len() >= 3,
        "expected several watermark deliveries, got {}",
        bufs.len()
    );
    for (n, finalizing) in bufs {
        let bytes: u64 = recs[idx..idx + n as usize]
            .iter()
            .map(|r| 16 + r["size"].as_u64().unwrap().div_ceil(8) * 8)
            .sum();
        idx += n as usize;
        if !finalizing {
            assert!(
                (16384..=65536).contains(&bytes),
                "delivery of {bytes} bytes"
            );
        }
    }
    assert_eq!(idx as u64, s.emitted_total());
}

fn lossless_loses_nothing_under_pressure(sdk: &str) {
    // Tiny buffer + slow consumer: writers must block, never drop.
    let s = run(sdk, "stress:300:200", "no_callbacks,buf_size=2048");
    let t = s.buffer_truth();
    assert_eq!(t["policy"], "LOSSLESS");
    assert!(
        t["writer_blocked"].as_u64().unwrap() > 0,
        "no back-pressure happened: {t}"
    );
    // No drops, none reported, every record delivered.
    assert_eq!(s.reported_drops(), 0);
}

fn discard_counts_drops(sdk: &str) {
    let s = run(sdk, "stress:300:300", "no_callbacks,discard,buf_size=2048");
    let t = s.buffer_truth();
    assert_eq!(t["policy"], "DISCARD");
    assert!(s.reported_drops() > 0, "expected drops: {t}");
}

fn delivery_on_another_thread(sdk: &str) {
    for modes in ["watermark=0", "watermark=0,callback_thread"] {
        let s = run(sdk, "basic", modes);
        let app = app_tids(&s);
        let pid = s.ev("configure")[0]["pid"].as_u64().unwrap();
        let del: HashSet<u64> = s
            .ev("buffer")
            .iter()
            .map(|b| b["tid"].as_u64().unwrap())
            .collect();
        assert!(!del.is_empty());
        assert!(
            del.is_disjoint(&app) && !del.contains(&pid),
            "{modes}: delivered on an app thread"
        );
        assert_eq!(del.len(), 1, "{modes}: one delivery thread per buffer");
        if modes.contains("callback_thread") {
            assert_eq!(s.status("create_callback_thread").unwrap().0, 0);
            assert_eq!(s.status("assign_callback_thread").unwrap().0, 0);
        }
    }
}

fn record_memory_invalid_after_callback(sdk: &str) {
    let s = run(sdk, "stress:30", "keep_record,watermark=0");
    let kept = s.ev("kept");
    assert_eq!(kept.len(), 1);
    let stale = s.ev("stale");
    assert_eq!(stale.len(), 1);
    assert_eq!(
        stale[0]["same"], false,
        "kept record still readable after the callback: {}",
        stale[0]
    );
}

fn flush_is_synchronous(sdk: &str) {
    let s = run(sdk, "basic", "");
    let flush = s
        .index_of(|v| v["what"] == "flush_in_finalize")
        .expect("flushed");
    let delivered = s
        .index_of(|v| v["ev"] == "buffer" && v["finalizing"] == true)
        .expect("delivery at flush");
    assert!(delivered < flush, "flush returned before the delivery ran");
    assert_eq!(s.status("flush_in_finalize").unwrap().0, 0);
    assert_eq!(s.ev("rec").len() as u64, s.emitted_total());
}

fn flush_inside_own_callback_does_not_hang(sdk: &str) {
    let s = run(sdk, "stress:10", "flush_in_cb,watermark=0");
    let (_, name) = s.status("flush_in_callback").unwrap();
    assert_eq!(name, "ROCPROFILER_STATUS_ERROR_BUFFER_BUSY");
}

fn no_automatic_flush_before_finalize(sdk: &str) {
    let s = run(sdk, "basic", "no_flush");
    assert!(s.emitted_total() > 0);
    assert!(
        s.ev("rec").is_empty(),
        "records arrived although nobody flushed"
    );
    assert_eq!(
        s.truth["delivery"]["total_lost_unflushed"]
            .as_u64()
            .unwrap(),
        s.emitted_total()
    );
}

fn destroy_discards_unflushed_records(sdk: &str) {
    let s = run(sdk, "basic", "destroy");
    assert_eq!(s.status("destroy_buffer").unwrap().0, 0);
    let again = s.status("destroy_buffer_again").unwrap().1;
    assert_eq!(again, "ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND");
    let flush = s.status("flush_in_finalize").unwrap().1;
    assert_eq!(flush, "ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND");
    assert!(s.ev("rec").is_empty());
    let t = s.buffer_truth();
    assert_eq!(t["destroyed"], true);
    assert_eq!(
        t["discarded_by_destroy"].as_u64().unwrap(),
        s.emitted_total()
    );
}

/// A record larger than its whole buffer is rejected as the real SDK rejects it
/// (`buffer::instance::emplace`: an error logged, `false` returned *before* `drop_count` is
/// incremented), under either policy: it is never delivered and never reported to the tool
/// as a drop, so only the runtime's log and our ground truth (`rejected_too_large`) know. The
/// tool never creates a buffer that small (`MIN_BUFFER_SIZE`, 4 KiB, is many times the largest
/// record), so this cannot happen to it.
fn record_larger_than_its_buffer_is_rejected_unreported(sdk: &str) {
    for modes in [
        "no_callbacks,buf_size=64",
        "no_callbacks,discard,buf_size=64",
    ] {
        let s = run(sdk, "stress:5", modes);
        let t = s.buffer_truth();
        assert!(
            t["rejected_too_large"].as_u64().unwrap() > 0,
            "{modes}: nothing rejected: {t}"
        );
        assert_eq!(
            s.ev("rec").len(),
            0,
            "{modes}: a rejected record was delivered"
        );
        let reported: u64 = s
            .ev("buffer")
            .iter()
            .map(|b| b["drops"].as_u64().unwrap())
            .sum();
        assert_eq!(
            reported, 0,
            "{modes}: the SDK does not count these in drop_count"
        );
        assert!(
            s.stderr.contains("does not fit buffer"),
            "{modes}: {}",
            s.stderr
        );
        assert_eq!(s.code, Some(0), "{modes}: the program is unaffected");
    }
}

both_sdks!(
    record_larger_than_its_buffer_is_rejected_unreported,
    destroy_discards_unflushed_records,
    watermark_zero_delivers_every_record,
    watermark_is_in_bytes,
    lossless_loses_nothing_under_pressure,
    discard_counts_drops,
    delivery_on_another_thread,
    record_memory_invalid_after_callback,
    flush_is_synchronous,
    flush_inside_own_callback_does_not_hang,
    no_automatic_flush_before_finalize,
);
