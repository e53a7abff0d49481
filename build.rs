//! Generates the gRPC ProfilerService that xprof's capture client calls
//! (`proto/profiler_service.proto`, server side only). Its XPlane messages are the core crate's
//! (`rocprof_xplane_core::xplane::proto`), so both crates share one set of types.
//!
//! protox parses the schemas in pure Rust so no system `protoc` is needed on developer
//! machines or in CI; tonic-prost-build (over prost-build) turns the descriptors into Rust code
//! in `OUT_DIR`.

use std::path::PathBuf;

fn main() {
    let protos = [PathBuf::from("proto/profiler_service.proto")];
    for p in protos.iter().chain([&PathBuf::from("proto/xplane.proto")]) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    println!("cargo:rerun-if-changed=build.rs");

    let descriptors = match protox::compile(&protos, ["proto"]) {
        Ok(d) => d,
        Err(e) => panic!("parsing the schemas in proto/: {e}"),
    };
    let mut config = prost_build::Config::new();
    // BTreeMap keeps metadata maps in id order, so serialized files are byte-for-byte
    // deterministic for the same trace.
    config.btree_map(["."]);
    config.extern_path(
        ".tensorflow.profiler",
        "::rocprof_xplane_core::xplane::proto",
    );
    let generated = tonic_prost_build::configure()
        .build_client(false)
        .build_server(true)
        .compile_fds_with_config(descriptors, config);
    if let Err(e) = generated {
        panic!("generating Rust for proto/: {e}");
    }
}
