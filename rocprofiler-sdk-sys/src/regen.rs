//! Generation of `src/bindings.rs` from our header (feature `regen` only).
//!
//! Kept in the library so the `regen-bindings` binary and the freshness test
//! produce byte-identical output from one configuration.

use std::path::{Path, PathBuf};

/// Path of our C header, relative to this crate.
pub const HEADER: &str = "include/rocprof_xplane_sdk.h";
/// Path of the committed bindings, relative to this crate.
pub const BINDINGS: &str = "src/bindings.rs";

/// First lines of the committed file (comments do not survive formatting, so
/// they are added afterwards).
const GENERATED_NOTE: &str = "// @generated from include/rocprof_xplane_sdk.h by\n\
// `cargo run -p rocprofiler-sdk-sys --features regen --bin regen-bindings`. Do not edit.\n\n";

/// This crate's directory (where `include/` and `src/` live).
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs bindgen on our header and returns the formatted Rust source.
///
/// The output must not depend on the host: the target is pinned to x86-64
/// Linux, the header is passed by a path whose text never reaches the output
/// (no comments, no include paths), and formatting is done by prettyplease
/// rather than whatever rustfmt happens to be installed.
pub fn generate(crate_dir: &Path) -> Result<String, String> {
    let header = crate_dir.join(HEADER);
    let bindings = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .clang_arg("--target=x86_64-unknown-linux-gnu")
        .clang_arg("-std=c11")
        .allowlist_file(".*rocprof_xplane_sdk\\.h")
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .use_core()
        .ctypes_prefix("::core::ffi")
        .generate_comments(false)
        .layout_tests(true)
        .derive_default(true)
        .derive_debug(false)
        .formatter(bindgen::Formatter::None)
        .generate()
        .map_err(|e| format!("bindgen failed on {}: {e}", header.display()))?;
    let file = syn::parse_file(&bindings.to_string())
        .map_err(|e| format!("bindgen output does not parse: {e}"))?;
    Ok(format!("{GENERATED_NOTE}{}", prettyplease::unparse(&file)))
}
