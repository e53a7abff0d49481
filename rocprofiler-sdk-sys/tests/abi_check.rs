//! The conformance checker itself: passes on our header, and fails — naming the
//! struct and field — when a layout differs. (The run against the real SDK
//! headers lives in `ci/abi-check.sh`, which downloads them.)

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

const HEADER: &str = "rocprof_xplane_sdk.h";

fn include_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/include"))
}

fn abi_check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_abi-check"))
        .args(args)
        .output()
        .expect("run abi-check")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn own_header_matches_the_bindings() {
    let o = abi_check(&["--own-header", include_dir().to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("abi-check: OK"), "{out}");
}

#[test]
fn injected_offset_error_is_reported_by_name() {
    let o = abi_check(&["--inject-offset-error"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains(
            "MISMATCH rocprofiler_callback_tracing_record_v1_t.kind: offset ours 48 vs header 40"
        ),
        "{out}"
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("MISMATCH")).count(),
        1,
        "{out}"
    );
}

/// A header whose layout moved (a field inserted) must be caught: the check
/// compares compiled C, not text.
#[test]
fn moved_field_in_a_header_copy_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(include_dir().join(HEADER)).unwrap();
    let anchor = "    rocprofiler_dispatch_id_t dispatch_id;\n";
    assert_eq!(text.matches(anchor).count(), 1, "anchor must be unique");
    let moved = text.replace(anchor, &format!("{anchor}    uint64_t injected_field;\n"));
    std::fs::write(dir.path().join(HEADER), moved).unwrap();

    let o = abi_check(&["--own-header", dir.path().to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("MISMATCH rocprofiler_kernel_dispatch_info_t.private_segment_size: offset ours 40 vs header 48"),
        "{out}"
    );
    assert!(
        out.contains("MISMATCH rocprofiler_kernel_dispatch_info_t: sizeof ours 128 vs header 136"),
        "{out}"
    );
    // Structs embedding the dispatch info move too.
    assert!(
        out.contains("MISMATCH rocprofiler_buffer_tracing_kernel_dispatch_record_t: sizeof"),
        "{out}"
    );
}

#[test]
fn header_that_does_not_compile_is_an_error_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(HEADER), "#error broken\n").unwrap();
    let o = abi_check(&["--own-header", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

/// Every struct/union, enumerator and function-pointer typedef declared in
/// the header is in the checker's tables, so nothing we declare escapes the comparison.
#[test]
fn checker_covers_every_declaration() {
    let text = std::fs::read_to_string(include_dir().join(HEADER)).unwrap();
    let listed = stdout(&abi_check(&["--list"]));
    let listed: BTreeSet<&str> = listed.lines().collect();

    let mut missing = Vec::new();
    let mut in_enum = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("typedef enum") {
            in_enum = true;
            continue;
        }
        if in_enum {
            if t.starts_with('}') {
                in_enum = false;
            } else if let Some(name) = t.split(['=', ',', ' ']).next().filter(|n| !n.is_empty()) {
                let want = format!("enum {name}");
                if !listed.contains(want.as_str()) {
                    missing.push(want);
                }
            }
            continue;
        }
        // `} name;` closes a typedef'd struct/union (anonymous members end in `} member;`
        // too, but those are indented deeper than column 0).
        if let Some(name) = line.strip_prefix("} ").and_then(|r| r.strip_suffix(';')) {
            let want = format!("struct {name}");
            if !listed.contains(want.as_str()) {
                missing.push(want);
            }
        }
        // Function-pointer typedefs: `typedef R (*name)(…`
        if let Some(rest) = line.split("(*").nth(1) {
            if line.starts_with("typedef") {
                let name = rest.split(')').next().unwrap();
                let want = format!("fn {name}");
                if !listed.contains(want.as_str()) {
                    missing.push(want);
                }
            }
        }
        // One-line handle structs: `typedef struct X { uint64_t handle; } X;`
        if t.starts_with("typedef struct") && t.ends_with(';') && t.contains('{') {
            let name = t.rsplit("} ").next().unwrap().trim_end_matches(';');
            let want = format!("struct {name}");
            if !listed.contains(want.as_str()) {
                missing.push(want);
            }
        }
    }
    assert!(missing.is_empty(), "not covered by abi-check: {missing:?}");
    assert!(
        listed.len() > 150,
        "suspiciously short list: {}",
        listed.len()
    );
}

// ---------------------------------------------------------------------------
// Family selection and name mapping, exercised on a *synthetic* SDK directory.
//
// No real 0.x headers are reachable from a package registry (see docs/abi.md),
// so these tests build a stand-in: our own header plus a `version.h` of the
// chosen version and an umbrella `rocprofiler.h` that gives our `_v0_t` or
// `_v1_t` structs and shapes the real, unsuffixed names. This proves the
// checker's machinery (version.h → family, v0/v1 name mapping, signature
// shapes, failures named), NOT our layouts: that needs real headers.
// ---------------------------------------------------------------------------

/// Our structs whose real name is the unsuffixed `X_t`.
const TWINS: &[&str] = &[
    "rocprofiler_correlation_id",
    "rocprofiler_client_id",
    "rocprofiler_callback_tracing_record",
    "rocprofiler_buffer_tracing_hip_api_record",
    "rocprofiler_buffer_tracing_marker_api_record",
    "rocprofiler_buffer_tracing_memory_copy_record",
    "rocprofiler_callback_tracing_memory_copy_data",
    "rocprofiler_counter_record",
];

/// Writes a stand-in SDK of `version` (major, minor, patch) into `dir`. Each
/// real name `X_t` of TWINS is our `X_<family>_t`, unless `from_other`
/// names it: then it is the other family's struct (a deliberate error).
fn fake_sdk(dir: &Path, version: (u32, u32, u32), from_other: &[&str]) {
    let (major, minor, patch) = version;
    let fam = if major >= 1 { "v1" } else { "v0" };
    let other = if major >= 1 { "v0" } else { "v1" };
    let pick = |base: &str| {
        if from_other.contains(&base) {
            other
        } else {
            fam
        }
    };
    let sdk = dir.join("rocprofiler-sdk");
    std::fs::create_dir_all(&sdk).unwrap();
    let ours = std::fs::read_to_string(include_dir().join(HEADER)).unwrap();
    std::fs::write(sdk.join(HEADER), &ours).unwrap();
    std::fs::write(
        sdk.join("version.h"),
        format!(
            "#pragma once\n#define ROCPROFILER_VERSION_MAJOR {major}\n\
             #define ROCPROFILER_VERSION_MINOR {minor}\n#define ROCPROFILER_VERSION_PATCH {patch}\n\
             #define ROCPROFILER_VERSION_STRING \"{major}.{minor}.{patch}\"\n"
        ),
    )
    .unwrap();
    let mut u = String::from(
        "#pragma once\n#include <type_traits>\n#include <rocprofiler-sdk/version.h>\n\
         #include <rocprofiler-sdk/rocprof_xplane_sdk.h>\n",
    );
    for base in TWINS {
        u += &format!("typedef {base}_{}_t {base}_t;\n", pick(base));
    }
    for (ty, base) in [
        (
            "rocprofiler_callback_tracing_cb",
            "rocprofiler_callback_tracing_record",
        ),
        ("rocprofiler_client_finalize", "rocprofiler_client_id"),
    ] {
        u += &format!("typedef {ty}_{}_t {ty}_t;\n", pick(base));
    }
    u += "typedef rocprofiler_configure_any_fn rocprofiler_configure_func_t;\n";
    if major == 0 {
        // 0.x spellings of the counter types.
        u += "typedef rocprofiler_counter_record_v0_t rocprofiler_record_counter_t;\n\
              typedef rocprofiler_counter_config_id_t rocprofiler_profile_config_id_t;\n\
              typedef rocprofiler_counter_record_dimension_info_t rocprofiler_record_dimension_info_t;\n\
              typedef rocprofiler_dispatch_counting_service_data_t rocprofiler_profile_counting_dispatch_data_t;\n\
              typedef rocprofiler_dispatch_counting_service_record_t rocprofiler_profile_counting_dispatch_record_t;\n";
    }
    // A function for every `<name>_fn` typedef of ours (declared, not defined:
    // the probe only takes `decltype(&name)`).
    for line in ours.lines().filter(|l| l.starts_with("typedef")) {
        let Some(name) = line.split("(*").nth(1).and_then(|r| r.split(')').next()) else {
            continue;
        };
        let Some(stem) = name.strip_suffix("_fn") else {
            continue;
        };
        let real = match stem.strip_suffix(&format!("_{fam}")) {
            Some(s) => s,
            None if stem.ends_with("_v0") || stem.ends_with("_v1") || stem.ends_with("_any") => {
                continue
            }
            None => stem,
        };
        u += &format!("std::remove_pointer_t<{name}> {real};\n");
    }
    std::fs::write(sdk.join("rocprofiler.h"), u).unwrap();
}

fn run_fake(
    version: (u32, u32, u32),
    from_other: &[&str],
    extra: &[&str],
) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    fake_sdk(dir.path(), version, from_other);
    let mut args = vec!["--real-headers", dir.path().to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = abi_check(&args);
    let out = format!("{}{}", stdout(&o), String::from_utf8_lossy(&o.stderr));
    (o.status.code(), out)
}

#[test]
fn headers_of_version_0_6_are_compared_with_the_v0_twins() {
    let (code, out) = run_fake((0, 6, 0), &[], &["--family", "v0", "-v"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("(family v0, full install)"), "{out}");
    for line in [
        "compared struct rocprofiler_correlation_id_v0_t (vs rocprofiler_correlation_id_t)",
        "compared struct rocprofiler_client_id_v0_t (vs rocprofiler_client_id_t)",
        "compared struct rocprofiler_buffer_tracing_memory_copy_record_v0_t (vs rocprofiler_buffer_tracing_memory_copy_record_t)",
        "compared struct rocprofiler_callback_tracing_memory_copy_data_v0_t (vs rocprofiler_callback_tracing_memory_copy_data_t)",
        "compared struct rocprofiler_buffer_tracing_hip_api_record_v0_t (vs rocprofiler_buffer_tracing_hip_api_record_t)",
        "compared signature rocprofiler_callback_tracing_cb_v0_t (vs rocprofiler_callback_tracing_cb_t)",
        "compared signature rocprofiler_configure_v0_fn (vs decltype(&rocprofiler_configure))",
        "compared signature rocprofiler_create_context_fn (vs decltype(&rocprofiler_create_context))",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
    // The v1 twins meet the v0 struct only through the fields they share…
    assert!(out.contains("compared struct rocprofiler_buffer_tracing_memory_copy_record_v1_t (vs rocprofiler_buffer_tracing_memory_copy_record_t)"), "{out}");
    // …the v1 client id (name moved) and v1 shapes not at all.
    let skipped = |what: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("skipped {what}: ")))
            .unwrap_or_else(|| panic!("no skipped {what} line in\n{out}"))
            .split(' ')
            .filter(|s| !s.is_empty())
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(
        skipped("structs"),
        BTreeSet::from(["rocprofiler_client_id_v1_t"]),
        "{out}"
    );
    assert!(
        skipped("signatures").contains("rocprofiler_callback_tracing_cb_v1_t"),
        "{out}"
    );
    assert!(
        !skipped("signatures").contains("rocprofiler_callback_tracing_cb_v0_t"),
        "{out}"
    );
}

#[test]
fn v1_layouts_under_v0_names_are_caught() {
    let wrong = [
        "rocprofiler_buffer_tracing_memory_copy_record",
        "rocprofiler_callback_tracing_record",
    ];
    let (code, out) = run_fake((0, 6, 0), &wrong, &[]);
    assert_eq!(code, Some(1), "{out}");
    for line in [
        "MISMATCH rocprofiler_buffer_tracing_memory_copy_record_v0_t (vs rocprofiler_buffer_tracing_memory_copy_record_t): sizeof ours 80 vs header 96",
        "MISMATCH rocprofiler_callback_tracing_record_v0_t (vs rocprofiler_callback_tracing_record_t): sizeof ours 56 vs header 64",
        "MISMATCH rocprofiler_callback_tracing_record_v0_t.kind (vs rocprofiler_callback_tracing_record_t): offset ours 32 vs header 40",
        // The callback record travels by value: the callback type's shape differs too.
        "MISMATCH signature rocprofiler_callback_tracing_cb_v0_t (vs rocprofiler_callback_tracing_cb_t): ours v(s56a8,p,p,) vs header v(s64a8,p,p,)",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}

#[test]
fn injected_error_names_the_twin_of_the_family_checked() {
    let (code, out) = run_fake((0, 5, 0), &[], &["--inject-offset-error"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("MISMATCH rocprofiler_callback_tracing_record_v0_t.kind (vs rocprofiler_callback_tracing_record_t): offset ours 40 vs header 32"),
        "{out}"
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("MISMATCH")).count(),
        1,
        "{out}"
    );
}

#[test]
fn family_flag_refuses_headers_of_the_other_family() {
    let (code, out) = run_fake((0, 6, 0), &[], &["--family", "v1"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("rocprofiler-sdk 0.6.0 (family v0), not family v1"),
        "{out}"
    );
}

#[test]
fn full_1x_install_compares_every_v1_item() {
    let (code, out) = run_fake((1, 2, 1), &[], &["--family", "v1"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("(family v1, full install)"), "{out}");
    assert!(
        out.contains("skipped structs: rocprofiler_client_id_v0_t\n"),
        "{out}"
    );
    assert!(out.contains("skipped enumerators: \n"), "{out}");
}

#[test]
fn directory_without_version_h_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = abi_check(&["--real-headers", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("version.h"));
}

/// The per-version exceptions (members added within 0.x, the address type
/// before 0.6.0) select fewer comparisons for older headers, never more.
#[test]
fn older_0x_versions_compare_fewer_members() {
    let count = |v| {
        let (code, out) = run_fake(v, &[], &[]);
        assert_eq!(code, Some(0), "{out}");
        let ok = out
            .lines()
            .find(|l| l.starts_with("abi-check: OK"))
            .unwrap();
        ok.split_whitespace()
            .nth(3)
            .unwrap()
            .parse::<usize>()
            .unwrap()
    };
    let (v040, v050, v060) = (count((0, 4, 0)), count((0, 5, 0)), count((0, 6, 0)));
    // Before 0.6.0: the address type by size only, code-object load without
    // `agent_id`, kernel symbol without its last two members and without a size
    // check (2×2 + 2 + 2×2 + 1 = 11 comparisons fewer).
    assert_eq!(v040, v050);
    assert_eq!(v060 - v050, 11, "{v050} {v060}");
}
