//! Generates the XPlane protobuf types from `proto/xplane.proto`.
//!
//! protox parses the schema in pure Rust so no system `protoc` is needed on developer machines
//! or in CI; prost-build turns the descriptor into Rust code in `OUT_DIR`.

use std::path::PathBuf;

fn main() {
    let proto = PathBuf::from("proto/xplane.proto");
    println!("cargo:rerun-if-changed={}", proto.display());
    println!("cargo:rerun-if-changed=build.rs");

    let descriptors = match protox::compile([&proto], ["proto"]) {
        Ok(d) => d,
        Err(e) => panic!("parsing {}: {e}", proto.display()),
    };
    let mut config = prost_build::Config::new();
    // BTreeMap keeps metadata maps in id order, so serialized files are byte-for-byte
    // deterministic for the same trace.
    config.btree_map(["."]);
    if let Err(e) = config.compile_fds(descriptors) {
        panic!("generating Rust for {}: {e}", proto.display());
    }
}
