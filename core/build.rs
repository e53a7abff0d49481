//! Generates the XPlane message types from `proto/xplane.proto` (package
//! `tensorflow.profiler`). protox parses the schema in pure Rust, so no system `protoc` is needed.

use std::path::PathBuf;

fn main() {
    let proto_dir = PathBuf::from("../proto");
    let xplane = proto_dir.join("xplane.proto");
    println!("cargo:rerun-if-changed={}", xplane.display());
    println!("cargo:rerun-if-changed=build.rs");
    let descriptors = match protox::compile([&xplane], [&proto_dir]) {
        Ok(d) => d,
        Err(e) => panic!("parsing {}: {e}", xplane.display()),
    };
    let mut config = prost_build::Config::new();
    // BTreeMap keeps metadata maps in id order, so serialized files are byte-for-byte
    // deterministic for the same trace.
    config.btree_map(["."]);
    if let Err(e) = config.compile_fds(descriptors) {
        panic!("generating Rust for {}: {e}", xplane.display());
    }
}
