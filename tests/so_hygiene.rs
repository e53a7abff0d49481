//! The tool `.so` is a guest in someone else's process: it must export only what we document,
//! need nothing beyond the C runtime at load time (in particular no `librocprofiler-sdk`, which is
//! resolved at run time so one binary serves SDK 0.x and 1.x), and run none of our code at load.
//!
//! Checked on the ELF file itself with binutils' `readelf`/`nm`, which is what a user would run.

mod support;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// Symbols we document as the tool's C interface (README / docs/configuration.md).
const DOCUMENTED_EXPORTS: &[&str] = &["rocprofiler_configure", "rocprofiler_configure_attach"];

/// Shared libraries the tool may need at load: the C runtime and the unwinder Rust uses.
const ALLOWED_NEEDED: &[&str] = &[
    "libc.so.6",
    "libm.so.6",
    "libgcc_s.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "ld-linux-x86-64.so.2",
];

/// `target/<profile>/librocprof_xplane.so`, the cdylib cargo builds with this package's tests.
fn tool_so() -> PathBuf {
    support::paths::tool_library()
}

fn tool(cmd: &str, args: &[&str], so: &PathBuf) -> String {
    let out = Command::new(cmd)
        .args(args)
        .arg(so)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd} (binutils): {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

#[test]
fn exports_only_documented_symbols() {
    let so = tool_so();
    let syms = tool("readelf", &["--dyn-syms", "-W"], &so);
    let mut exported = BTreeSet::new();
    for line in syms.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        // Num: Value Size Type Bind Vis Ndx Name
        if f.len() < 8 || !f[0].ends_with(':') {
            continue;
        }
        let (bind, ndx, name) = (f[4], f[6], f[7]);
        if ndx != "UND" && (bind == "GLOBAL" || bind == "WEAK") {
            exported.insert(name.split('@').next().unwrap_or(name).to_string());
        }
    }
    let documented: BTreeSet<String> = DOCUMENTED_EXPORTS.iter().map(|s| s.to_string()).collect();
    assert_eq!(exported, documented, "dynamic exports of {}", so.display());
}

#[test]
fn needs_only_the_c_runtime() {
    let so = tool_so();
    let dynamic = tool("readelf", &["-d", "-W"], &so);
    let needed: Vec<&str> = dynamic
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split('[').nth(1).and_then(|s| s.split(']').next()))
        .collect();
    assert!(
        !needed.is_empty(),
        "no NEEDED entries parsed from readelf -d output:\n{dynamic}"
    );
    for lib in &needed {
        assert!(
            !lib.contains("rocprofiler"),
            "links {lib}: SDK functions must be resolved at run time"
        );
        assert!(
            ALLOWED_NEEDED.contains(lib),
            "unexpected load-time dependency {lib}"
        );
    }
}

/// Load-time code lives in `.init_array` (and `.preinit_array`/`.ctors`). Allowed: the C runtime's
/// `frame_dummy` and Rust std's argv capture; nothing of ours.
#[test]
fn runs_none_of_our_code_at_load() {
    let so = tool_so();
    let sections = tool("readelf", &["-S", "-W"], &so);
    for forbidden in [".preinit_array", ".ctors"] {
        assert!(!sections.contains(forbidden), "{forbidden} present");
    }
    let (addr, size) = sections
        .lines()
        .find(|l| l.contains(".init_array"))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let i = f
                .iter()
                .position(|x| *x == "INIT_ARRAY")
                .expect("type column");
            (
                u64::from_str_radix(f[i + 1], 16).expect("addr"),
                u64::from_str_radix(f[i + 3], 16).expect("size"),
            )
        })
        .unwrap_or((0, 0));
    let relocs = tool("readelf", &["-r", "-W"], &so);
    let mut targets = Vec::new();
    for line in relocs.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 4 && f[2] == "R_X86_64_RELATIVE" {
            let at = u64::from_str_radix(f[0], 16).unwrap_or(u64::MAX);
            if at >= addr && at < addr + size {
                targets.push(u64::from_str_radix(f[3], 16).expect("addend"));
            }
        }
    }
    assert_eq!(
        targets.len() as u64,
        size / 8,
        "every .init_array slot has a RELATIVE relocation"
    );
    let symbols = tool("nm", &["-C"], &so);
    for t in targets {
        let name = symbols
            .lines()
            .find(|l| {
                l.split_whitespace()
                    .next()
                    .and_then(|a| u64::from_str_radix(a, 16).ok())
                    == Some(t)
            })
            .map(|l| l.splitn(3, ' ').nth(2).unwrap_or("").to_string())
            .unwrap_or_else(|| format!("<unnamed {t:#x}>"));
        let allowed = name == "frame_dummy" || name.contains("ARGV_INIT_ARRAY");
        assert!(allowed, "load-time function {name} in .init_array");
    }
}
