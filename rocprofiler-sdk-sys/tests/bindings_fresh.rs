//! The committed `src/bindings.rs` must be exactly what bindgen makes of our
//! header today; otherwise someone edited one without the other.
//! Runs only with `--features regen` (needs libclang).
#![cfg(feature = "regen")]

use rocprofiler_sdk_sys::regen;

#[test]
fn committed_bindings_match_the_header() {
    let dir = regen::crate_dir();
    let fresh = regen::generate(&dir).expect("bindgen runs on our header");
    let committed = std::fs::read_to_string(dir.join(regen::BINDINGS)).expect("read bindings.rs");
    if fresh != committed {
        let line = fresh
            .lines()
            .zip(committed.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| fresh.lines().count().min(committed.lines().count()));
        panic!(
            "src/bindings.rs is stale (first difference at line {}); regenerate with \
             `cargo run -p rocprofiler-sdk-sys --features regen --bin regen-bindings`",
            line + 1
        );
    }
}

#[test]
fn generation_is_deterministic() {
    let dir = regen::crate_dir();
    let a = regen::generate(&dir).expect("first run");
    let b = regen::generate(&dir).expect("second run");
    assert_eq!(a, b);
    // Nothing host-specific may leak into the committed file.
    assert!(
        !a.contains(dir.to_string_lossy().as_ref()),
        "bindings mention the build path"
    );
}
