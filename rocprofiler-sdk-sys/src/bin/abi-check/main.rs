//! ABI conformance check: our declarations (the Rust bindings the tool and the
//! simulator use) against C headers compiled by a real C/C++ compiler.
//!
//! ```text
//! abi-check [--real-headers DIR [--family v0|v1] | --own-header DIR] [--inject-offset-error]
//!           [--keep-c FILE] [-v]
//! abi-check --list
//! ```
//!
//! * `--real-headers DIR`: DIR holds real `rocprofiler-sdk/` headers (plus
//!   the `hip/`, `hsa/` … they include): the trimmed copy bundled in the triton
//!   wheel, or a full install's `include/` (recognised by
//!   `rocprofiler-sdk/rocprofiler.h`). Compiled as C++ (`$CXX`, default `c++`)
//!   because the HIP headers only parse as C++. The SDK version is read from
//!   `rocprofiler-sdk/version.h` and picks the family: 0.x headers are compared
//!   with our `_v0_t` structs and shapes, 1.x headers with the `_v1_t` ones
//!   (see `items::relation`). Items whose real name the headers do not declare
//!   (trimmed copies, older versions) are skipped and listed by name.
//!   `--family` makes a run fail (exit 2) if the headers are of the other family.
//! * `--own-header DIR` (default: this crate's `include/`): compiles our own
//!   header with `$CC` (default `cc`) and compares every item, which catches a
//!   header edited without regenerating, or bindgen/C disagreeing.
//! * `--inject-offset-error`: pretends one of our offsets is 8 bytes off, to
//!   show that a mismatch is caught and reported by name
//!   (`rocprofiler_callback_tracing_record_v1_t.kind`, or its `_v0_t` twin
//!   against 0.x headers).
//! * `-v`: also list every struct compared, with the real name it was compared to.
//!
//! Exit status: 0 all equal, 1 mismatches found, 2 usage/compile/run error.

mod items;

use items::{Enumerator, Family, FieldSel, Item, Signature};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Our header as compiled into this binary (used for the signature probe, so
/// the binary does not need the source tree at run time).
const OWN_HEADER: &str = include_str!("../../../include/rocprof_xplane_sdk.h");
const OWN_HEADER_NAME: &str = "rocprof_xplane_sdk.h";

/// A directory of real SDK headers and what was learnt from it before compiling.
struct RealHeaders {
    dir: PathBuf,
    /// `10000*major + 100*minor + patch`, from `rocprofiler-sdk/version.h`.
    version: u32,
    family: Family,
    /// A full install (has the umbrella `rocprofiler-sdk/rocprofiler.h`), as
    /// opposed to a trimmed copy.
    full: bool,
    /// Every identifier in `rocprofiler-sdk/**/*.h` outside comments: what
    /// these headers declare (or at least mention) — decides which of our
    /// items have a counterpart to compare with.
    idents: HashSet<String>,
}

impl RealHeaders {
    fn open(dir: &Path) -> Result<RealHeaders, String> {
        let version_h = dir.join("rocprofiler-sdk/version.h");
        let text = std::fs::read_to_string(&version_h)
            .map_err(|e| format!("cannot read {}: {e}", version_h.display()))?;
        let part = |name: &str| -> Result<u32, String> {
            text.lines()
                .filter_map(|l| l.trim().strip_prefix("#define"))
                .filter_map(|l| l.trim().strip_prefix(name))
                .find_map(|v| v.split_whitespace().next().map(str::parse::<u32>))
                .and_then(Result::ok)
                .ok_or_else(|| format!("{} does not define {name}", version_h.display()))
        };
        let version = 10000 * part("ROCPROFILER_VERSION_MAJOR")?
            + 100 * part("ROCPROFILER_VERSION_MINOR")?
            + part("ROCPROFILER_VERSION_PATCH")?;
        let mut idents = HashSet::new();
        collect_idents(&dir.join("rocprofiler-sdk"), &mut idents)?;
        Ok(RealHeaders {
            dir: dir.to_path_buf(),
            version,
            family: Family::of_version(version),
            full: dir.join("rocprofiler-sdk/rocprofiler.h").is_file(),
            idents,
        })
    }

    /// Whether these headers declare `name`. Names from outside the SDK
    /// (`hsa_agent_t`, `hipChannelFormatDesc`) come from the HSA/HIP headers,
    /// which every copy carries; they are not scanned.
    fn declares(&self, name: &str) -> bool {
        let sdk = name.starts_with("rocprofiler_") || name.starts_with("ROCPROFILER_");
        !sdk || self.idents.contains(name)
    }

    fn version_string(&self) -> String {
        format!(
            "{}.{}.{}",
            self.version / 10000,
            self.version / 100 % 100,
            self.version % 100
        )
    }
}

/// Adds the identifiers of every `.h` under `dir` (recursively), comments removed.
fn collect_idents(dir: &Path, out: &mut HashSet<String>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_idents(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "h" || e == "hpp") {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let code = strip_comments(&text);
            out.extend(
                code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .filter(|t| t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
                    .map(str::to_string),
            );
        }
    }
    Ok(())
}

/// C/C++ source without `//` and `/* */` comments (string literals are not
/// special-cased: an identifier inside one only makes an item look declared,
/// which then fails loudly at compile time rather than being skipped).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('/') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("//") {
            rest = tail.find('\n').map_or("", |j| &tail[j..]);
        } else if let Some(body) = tail.strip_prefix("/*") {
            rest = body.find("*/").map_or("", |j| &body[j + 2..]);
            out.push(' ');
        } else {
            out.push('/');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

enum Mode {
    Real(RealHeaders),
    Own(PathBuf),
}

impl Mode {
    /// Family whose `_vN_t` twin the injected error targets (our own header
    /// has both; the v1 one is used there).
    fn family(&self) -> Family {
        match self {
            Mode::Real(h) => h.family,
            Mode::Own(_) => Family::V1,
        }
    }
}

struct Options {
    real: Option<PathBuf>,
    own: Option<PathBuf>,
    family: Option<Family>,
    inject: bool,
    keep_c: Option<PathBuf>,
    list: bool,
    verbose: bool,
}

/// One comparison: what our bindings say, and how C computes the same thing.
struct Check {
    label: String,
    ours: i64,
    c_expr: String,
    what: &'static str,
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: abi-check [--real-headers DIR [--family v0|v1] | --own-header DIR] \
         [--inject-offset-error] [--keep-c FILE] [-v]\n       abi-check --list"
    );
    ExitCode::from(2)
}

fn parse_args() -> Option<Options> {
    let mut o = Options {
        real: None,
        own: None,
        family: None,
        inject: false,
        keep_c: None,
        list: false,
        verbose: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--real-headers" => o.real = Some(PathBuf::from(args.next()?)),
            "--own-header" => o.own = Some(PathBuf::from(args.next()?)),
            "--family" => {
                o.family = Some(match args.next()?.as_str() {
                    "v0" => Family::V0,
                    "v1" => Family::V1,
                    _ => return None,
                })
            }
            "--inject-offset-error" => o.inject = true,
            "--keep-c" => o.keep_c = Some(PathBuf::from(args.next()?)),
            "--list" => o.list = true,
            "-v" | "--verbose" => o.verbose = true,
            _ => return None,
        }
    }
    if o.real.is_some() && o.own.is_some() || o.family.is_some() && o.real.is_none() {
        return None;
    }
    Some(o)
}

/// The checks for one mode, in a stable order, and the structs/enumerators
/// that have no counterpart there.
struct Plan {
    checks: Vec<Check>,
    compared: Vec<String>,
    skipped: Vec<&'static str>,
    skipped_enums: Vec<&'static str>,
}

fn build_checks(mode: &Mode, items: &[Item], enums: &[Enumerator], inject: bool) -> Plan {
    let mut plan = Plan {
        checks: Vec::new(),
        compared: Vec::new(),
        skipped: Vec::new(),
        skipped_enums: Vec::new(),
    };
    let inject_struct = items::inject_struct(mode.family());
    for item in items {
        let (c_name, size, sel) = match mode {
            Mode::Own(_) => (item.ours.to_string(), true, FieldSel::All),
            Mode::Real(h) => match items::relation(item.ours, h.version) {
                Some(rel) if h.declares(&rel.name) => (rel.name, rel.size, rel.fields),
                _ => {
                    plan.skipped.push(item.ours);
                    continue;
                }
            },
        };
        let vs = if c_name == item.ours {
            String::new()
        } else {
            format!(" (vs {c_name})")
        };
        plan.compared.push(format!("{}{vs}", item.ours));
        if size {
            plan.checks.push(Check {
                label: format!("{}{vs}", item.ours),
                ours: item.size as i64,
                c_expr: format!("(long long)sizeof({c_name})"),
                what: "sizeof",
            });
        }
        for f in item.fields.iter().filter(|f| sel.includes(&f.path)) {
            let mut offset = f.offset as i64;
            if inject && item.ours == inject_struct && f.path == items::INJECT_FIELD {
                offset += 8;
            }
            plan.checks.push(Check {
                label: format!("{}.{}{vs}", item.ours, f.path),
                ours: offset,
                c_expr: format!("(long long)offsetof({c_name}, {})", f.path),
                what: "offset",
            });
            plan.checks.push(Check {
                label: format!("{}.{}{vs}", item.ours, f.path),
                ours: f.size as i64,
                c_expr: format!("(long long)sizeof((({c_name}*)0)->{})", f.path),
                what: "size",
            });
        }
    }
    for e in enums {
        if let Mode::Real(h) = mode {
            if !h.declares(e.name) {
                plan.skipped_enums.push(e.name);
                continue;
            }
        }
        plan.checks.push(Check {
            label: e.name.to_string(),
            ours: e.value,
            c_expr: format!("(long long)({})", e.name),
            what: "value",
        });
    }
    plan
}

/// Headers a check program includes, when present in the directory: the
/// parts the trimmed triton copy has, and in a full install also the
/// umbrella header (contexts, names, iteration, …).
const REAL_INCLUDES: &[&str] = &[
    "rocprofiler-sdk/rocprofiler.h",
    "rocprofiler-sdk/version.h",
    "rocprofiler-sdk/fwd.h",
    "rocprofiler-sdk/agent.h",
    "rocprofiler-sdk/registration.h",
    "rocprofiler-sdk/experimental/registration.h",
    "rocprofiler-sdk/buffer.h",
    "rocprofiler-sdk/buffer_tracing.h",
    "rocprofiler-sdk/callback_tracing.h",
    "rocprofiler-sdk/external_correlation.h",
    "rocprofiler-sdk/internal_threading.h",
    "rocprofiler-sdk/marker/api_id.h",
    "rocprofiler-sdk/hip/api_args.h",
    "hsa/hsa.h",
];

fn real_includes(dir: &Path) -> impl Iterator<Item = &'static str> + '_ {
    REAL_INCLUDES
        .iter()
        .copied()
        .filter(move |inc| dir.join(inc).is_file())
}

fn c_source(mode: &Mode, checks: &[Check]) -> String {
    let mut s = String::from("#include <stddef.h>\n#include <stdio.h>\n");
    match mode {
        Mode::Real(h) => {
            for inc in real_includes(&h.dir) {
                let _ = writeln!(s, "#include <{inc}>");
            }
        }
        Mode::Own(_) => s.push_str("#include \"rocprof_xplane_sdk.h\"\n"),
    }
    s.push_str("int main(void) {\n");
    if matches!(mode, Mode::Real(_)) {
        s.push_str("    printf(\"V %s\\n\", ROCPROFILER_VERSION_STRING);\n");
    }
    for (i, c) in checks.iter().enumerate() {
        let _ = writeln!(s, "    printf(\"C {i} %lld\\n\", {});", c.c_expr);
    }
    s.push_str("    return 0;\n}\n");
    s
}

/// How to compile a check program.
#[derive(Clone, Copy)]
enum Lang {
    /// Our header: plain C11, as a C tool would see it.
    C,
    /// C++17 (`$CXX`): the bundled HIP headers and the signature probe need it.
    Cxx,
}

fn compile_and_run(
    lang: Lang,
    include: &Path,
    source: &str,
    keep_c: Option<&Path>,
) -> Result<String, String> {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let work = std::env::temp_dir().join(format!(
        "rocprof-xplane-abi-check-{}-{n}",
        std::process::id()
    ));
    std::fs::create_dir_all(&work).map_err(|e| format!("create {}: {e}", work.display()))?;
    let result = compile_and_run_in(&work, lang, include, source, keep_c);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn compile_and_run_in(
    work: &Path,
    lang: Lang,
    include: &Path,
    source: &str,
    keep_c: Option<&Path>,
) -> Result<String, String> {
    let src = work.join("abi_check.c");
    let exe = work.join("abi_check");
    std::fs::write(&src, source).map_err(|e| format!("write {}: {e}", src.display()))?;
    if let Some(k) = keep_c {
        std::fs::write(k, source).map_err(|e| format!("write {}: {e}", k.display()))?;
    }
    let mut cmd = match lang {
        Lang::Cxx => {
            let mut c = Command::new(std::env::var("CXX").unwrap_or_else(|_| "c++".into()));
            c.args(["-x", "c++", "-std=c++17", "-w", "-D__HIP_PLATFORM_AMD__"]);
            c
        }
        Lang::C => {
            let mut c = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
            c.args(["-std=c11", "-Wall"]);
            c
        }
    };
    cmd.arg("-I").arg(include).arg(&src).arg("-o").arg(&exe);
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run the C compiler: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "compiling the check program failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let run = Command::new(&exe)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if run.status.success() {
        Ok(String::from_utf8_lossy(&run.stdout).into_owned())
    } else {
        Err(format!("check program failed: {}", run.status))
    }
}

/// C++ helper that renders a function type as its calling-convention shape:
/// return and parameter classes with sizes (`i4`, `p`, `fp`, `s24a8`, …).
/// Two declarations with equal shapes are call-compatible on SysV x86-64 for
/// the integer/pointer/struct-of-integer types this ABI uses.
const SIG_PRELUDE: &str = r#"
#include <string>
#include <type_traits>
template <typename T> std::string shape() {
    if constexpr (std::is_void_v<T>) return "v";
    else if constexpr (std::is_pointer_v<T>) {
        if constexpr (std::is_function_v<std::remove_pointer_t<T>>) return "fp";
        else return "p";
    }
    else if constexpr (std::is_class_v<T> || std::is_union_v<T>)
        return "s" + std::to_string(sizeof(T)) + "a" + std::to_string(alignof(T));
    else if constexpr (std::is_floating_point_v<T>) return "f" + std::to_string(sizeof(T));
    else return "i" + std::to_string(sizeof(T));
}
template <typename R, typename... A> std::string sig(R (*)(A...)) {
    std::string s = shape<R>() + "(";
    ((s += shape<A>() + ","), ...);
    return s + ")";
}
template <typename R, typename... A> std::string sig(R (*)(A...) noexcept) {
    return sig(static_cast<R (*)(A...)>(nullptr));
}
"#;

/// Program printing `G <index> <shape>` for each signature, using our names
/// (`real == None`) or the real declarations of that header directory.
fn sig_source(sigs: &[(Signature, String)], real: Option<&Path>) -> String {
    let mut s = String::from("#include <stdio.h>\n");
    match real {
        Some(dir) => {
            for inc in real_includes(dir) {
                let _ = writeln!(s, "#include <{inc}>");
            }
        }
        None => s.push_str("#include \"rocprof_xplane_sdk.h\"\n"),
    }
    s.push_str(SIG_PRELUDE);
    s.push_str("int main() {\n");
    for (i, (g, real_ty)) in sigs.iter().enumerate() {
        let ty = if real.is_some() { real_ty } else { g.ours };
        let _ = writeln!(
            s,
            "    printf(\"G {i} %s\\n\", sig(static_cast<{ty}>(nullptr)).c_str());"
        );
    }
    s.push_str("    return 0;\n}\n");
    s
}

fn parse_sigs(output: &str, n: usize) -> Vec<Option<String>> {
    let mut v = vec![None; n];
    for line in output.lines() {
        if let Some(rest) = line.strip_prefix("G ") {
            if let Some((i, shape)) = rest.split_once(' ') {
                if let Some(slot) = i.parse::<usize>().ok().and_then(|i| v.get_mut(i)) {
                    *slot = Some(shape.to_string());
                }
            }
        }
    }
    v
}

/// Result of the signature probe.
struct SigReport {
    compared: usize,
    mismatches: usize,
    skipped: Vec<&'static str>,
}

/// Compares our function-pointer typedefs with the real declarations of the
/// same family that these headers declare (real mode only).
fn check_signatures(h: &RealHeaders, verbose: bool) -> Result<SigReport, String> {
    let mut sigs = Vec::new();
    let mut skipped = Vec::new();
    for g in items::signatures() {
        match g.real_for(h.family) {
            Some(r) if h.declares(r.ident()) => sigs.push((g, r.type_expr())),
            _ => skipped.push(g.ours),
        }
    }
    let own_dir = std::env::temp_dir().join(format!(
        "rocprof-xplane-abi-check-{}-own",
        std::process::id()
    ));
    std::fs::create_dir_all(&own_dir).map_err(|e| format!("create {}: {e}", own_dir.display()))?;
    let header = own_dir.join(OWN_HEADER_NAME);
    let ours = std::fs::write(&header, OWN_HEADER)
        .map_err(|e| format!("write {}: {e}", header.display()))
        .and_then(|()| compile_and_run(Lang::Cxx, &own_dir, &sig_source(&sigs, None), None));
    let _ = std::fs::remove_dir_all(&own_dir);
    let ours = parse_sigs(&ours?, sigs.len());
    let real = parse_sigs(
        &compile_and_run(Lang::Cxx, &h.dir, &sig_source(&sigs, Some(&h.dir)), None)?,
        sigs.len(),
    );
    let mut mismatches = 0;
    for (((g, real_ty), o), r) in sigs.iter().zip(&ours).zip(&real) {
        if verbose {
            println!("compared signature {} (vs {real_ty})", g.ours);
        }
        if o.is_none() || o != r {
            mismatches += 1;
            println!(
                "MISMATCH signature {} (vs {real_ty}): ours {} vs header {}",
                g.ours,
                o.as_deref().unwrap_or("(missing)"),
                r.as_deref().unwrap_or("(missing)")
            );
        }
    }
    Ok(SigReport {
        compared: sigs.len(),
        mismatches,
        skipped,
    })
}

fn main() -> ExitCode {
    let Some(opts) = parse_args() else {
        return usage();
    };
    let items = items::items();
    let enums = items::enumerators();
    if opts.list {
        for i in &items {
            println!("struct {}", i.ours);
        }
        for e in &enums {
            println!("enum {}", e.name);
        }
        for g in items::signatures() {
            println!("fn {}", g.ours);
        }
        return ExitCode::SUCCESS;
    }
    let mode = match (&opts.real, &opts.own) {
        (Some(dir), _) => match RealHeaders::open(dir) {
            Ok(h) => Mode::Real(h),
            Err(e) => {
                eprintln!("abi-check: {e}");
                return ExitCode::from(2);
            }
        },
        (None, Some(dir)) => Mode::Own(dir.clone()),
        (None, None) => Mode::Own(Path::new(env!("CARGO_MANIFEST_DIR")).join("include")),
    };
    if let (Mode::Real(h), Some(want)) = (&mode, opts.family) {
        if h.family != want {
            eprintln!(
                "abi-check: {} holds rocprofiler-sdk {} (family {}), not family {}",
                h.dir.display(),
                h.version_string(),
                h.family.name(),
                want.name()
            );
            return ExitCode::from(2);
        }
    }
    let plan = build_checks(&mode, &items, &enums, opts.inject);
    let checks = &plan.checks;
    let source = c_source(&mode, checks);
    let (lang, include) = match &mode {
        Mode::Real(h) => (Lang::Cxx, h.dir.as_path()),
        Mode::Own(d) => (Lang::C, d.as_path()),
    };
    let output = match compile_and_run(lang, include, &source, opts.keep_c.as_deref()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("abi-check: {e}");
            return ExitCode::from(2);
        }
    };

    let mut version = None;
    let mut seen = vec![None; checks.len()];
    for line in output.lines() {
        if let Some(v) = line.strip_prefix("V ") {
            version = Some(v.to_string());
        } else if let Some(rest) = line.strip_prefix("C ") {
            let mut it = rest.split_whitespace();
            if let (Some(Ok(i)), Some(Ok(v))) = (
                it.next().map(str::parse::<usize>),
                it.next().map(str::parse::<i64>),
            ) {
                if let Some(slot) = seen.get_mut(i) {
                    *slot = Some(v);
                }
            }
        }
    }

    let against = match &mode {
        Mode::Real(h) => format!(
            "real rocprofiler-sdk headers {} (family {}, {}) in {}",
            version.as_deref().unwrap_or("(unknown version)"),
            h.family.name(),
            if h.full {
                "full install"
            } else {
                "trimmed copy"
            },
            h.dir.display()
        ),
        Mode::Own(d) => format!("our header rocprof_xplane_sdk.h in {}", d.display()),
    };
    if opts.verbose {
        for c in &plan.compared {
            println!("compared struct {c}");
        }
    }
    let mut mismatches = 0;
    for (c, got) in checks.iter().zip(&seen) {
        match got {
            Some(v) if *v == c.ours => {}
            Some(v) => {
                mismatches += 1;
                println!(
                    "MISMATCH {}: {} ours {} vs header {}",
                    c.label, c.what, c.ours, v
                );
            }
            None => {
                mismatches += 1;
                println!(
                    "MISMATCH {}: {} not reported by the check program",
                    c.label, c.what
                );
            }
        }
    }
    let mut n_sigs = 0;
    if let Mode::Real(h) = &mode {
        match check_signatures(h, opts.verbose) {
            Ok(report) => {
                n_sigs = report.compared;
                mismatches += report.mismatches;
                // One line each, in table order, so a script can compare them
                // with what a pinned copy is known to lack.
                println!("skipped structs: {}", plan.skipped.join(" "));
                println!("skipped enumerators: {}", plan.skipped_enums.join(" "));
                println!("skipped signatures: {}", report.skipped.join(" "));
            }
            Err(e) => {
                eprintln!("abi-check: signature probe: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let n_enums = enums.len() - plan.skipped_enums.len();
    if mismatches == 0 {
        println!(
            "abi-check: OK — {} comparisons ({} structs/unions, {} enumerators, {} function \
             signatures) against {}",
            checks.len() + n_sigs,
            plan.compared.len(),
            n_enums,
            n_sigs,
            against,
        );
        ExitCode::SUCCESS
    } else {
        println!(
            "abi-check: FAILED — {mismatches} of {} comparisons differ against {against}",
            checks.len() + n_sigs
        );
        ExitCode::from(1)
    }
}
