//! Every kind of label and name, drawn from random Unicode, goes
//! through the whole pipeline — scenario → simulated rocprofiler-sdk runtime (test
//! infrastructure, no GPU) → the tool → file — and always gives a file that decodes, keeps every
//! label and kernel name intact, nests on every line, and (for a few of the cases) that real
//! xprof opens without error. Positions: roctx push (nested), mark, start/stop messages, and
//! kernel names, around kernels, graph launches and copies. Invalid UTF-8 cannot be written in a
//! scenario (TOML is UTF-8); the C boundary's handling of it is unit-tested
//! (`sdk::payload::tests::roctx_labels_with_invalid_utf8_or_none_are_safe`,
//! `capture::thread::tests::invalid_utf8_labels_are_converted_every_time`).

mod support;

use std::collections::BTreeSet;

use support::paths::host_of;
use support::sim::simulate;
use support::xprof;
use support::xspace::{assert_lines_nest, device_events, events, plane, HOST_PLANE};

/// splitmix64: a seeded generator with no dependency; the seed is in every failure message.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Pieces that have broken text handling somewhere: annotation syntax, quotes and brackets
/// (unbalanced too), multi-byte characters of every width, combining marks, right-to-left text,
/// control characters, a lone `_Z` mangling prefix.
const PIECES: &[&str] = &[
    "step",
    "::",
    "#",
    "=",
    ",",
    "'",
    "\"",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "don't",
    "–",
    "€",
    "评估",
    "日本語",
    "🚀",
    "👩‍🔬",
    "e\u{301}",
    "\u{202e}rtl",
    "\u{7}",
    "\t",
    "\u{1b}[0m",
    "XlaModule:#hlo_module=m,program_id=7#",
    "Thunk:#hlo_op=fusion.1#",
    "aten::add, seq = 3",
    " ",
    "_Z",
    "\u{feff}",
    "\u{fffd}",
];

/// A random label: empty, long (10 KB), or a mix of pieces and random code points.
fn label(r: &mut Rng) -> String {
    match r.below(12) {
        0 => String::new(),
        1 => {
            let p = PIECES[r.below(PIECES.len() as u64) as usize];
            p.repeat(10_240 / p.len().max(1) + 1)
        }
        _ => {
            let mut s = String::new();
            for _ in 0..1 + r.below(8) {
                if r.below(3) == 0 {
                    // Any scalar value outside the surrogates (and not NUL: C strings).
                    let c = loop {
                        let v = 1 + r.below(0x10_ffff) as u32;
                        if let Some(c) = char::from_u32(v) {
                            break c;
                        }
                    };
                    s.push(c);
                } else {
                    s.push_str(PIECES[r.below(PIECES.len() as u64) as usize]);
                }
            }
            s
        }
    }
}

/// A TOML basic string: every control, quote, backslash and non-ASCII character escaped.
fn toml_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// One random case: its scenario text, the labels it pushes/marks/starts, its kernel names.
struct Case {
    toml: String,
    labels: BTreeSet<String>,
    kernels: BTreeSet<String>,
}

fn case(seed: u64) -> Case {
    let mut r = Rng(seed);
    // Kernel names must be unique and non-empty; a name starting with `_Z` would be demangled.
    let mut kernels = BTreeSet::new();
    while kernels.len() < 3 {
        let k = label(&mut r);
        if !k.trim().is_empty() && !k.starts_with("_Z") {
            kernels.insert(k);
        }
    }
    let ks: Vec<&String> = kernels.iter().collect();
    let mut labels = BTreeSet::new();
    let mut l = |r: &mut Rng| {
        let s = label(r);
        labels.insert(s.clone());
        toml_str(&s)
    };
    let (outer, inner, mark, job) = (l(&mut r), l(&mut r), l(&mut r), l(&mut r));
    let kernel_decls: String = ks
        .iter()
        .map(|k| format!("[[kernels]]\nname = {}\n", toml_str(k)))
        .collect();
    let toml = format!(
        r#"name = "unicode-{seed}"
seed = {seed}
[[gpus]]
preset = "mi300x"
{kernel_decls}
[[graphs]]
name = "g"
nodes = [ {{ kernel = {k0} }}, {{ kernel = {k1} }} ]
[[streams]]
name = "s"
[[threads]]
name = "main"
calls = [
  {{ op = "range_start", msg = {job}, key = "job" }},
  {{ op = "push", msg = {outer} }},
  {{ op = "memcpy", kind = "h2d", bytes = "1MiB", stream = "s" }},
  {{ op = "push", msg = {inner} }},
  {{ op = "launch", kernel = {k2}, stream = "s" }},
  {{ op = "mark", msg = {mark} }},
  {{ op = "graph", graph = "g", stream = "s" }},
  {{ op = "pop" }},
  {{ op = "memcpy", kind = "d2h", bytes = "64KiB", stream = "s" }},
  {{ op = "pop" }},
  {{ op = "range_stop", key = "job" }},
  {{ op = "stream_sync", stream = "s" }},
]
"#,
        k0 = toml_str(ks[0]),
        k1 = toml_str(ks[1]),
        k2 = toml_str(ks[2]),
    );
    Case {
        toml,
        labels,
        kernels,
    }
}

#[test]
fn random_unicode_labels_and_names_always_give_a_file_xprof_opens() {
    const CASES: u64 = 12;
    const THROUGH_XPROF: u64 = 2;
    for seed in 1..=CASES {
        let c = case(seed);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("unicode-{seed}.toml"));
        std::fs::write(&path, &c.toml).unwrap();
        let sdk = if seed % 2 == 0 { "0.6.0" } else { "1.0.0" };
        let r = simulate(&path, sdk, &[]);
        let what = format!("seed {seed} ({sdk})");
        assert_lines_nest(&r.space, &what);
        let kernels: BTreeSet<String> = device_events(&r.space)
            .into_iter()
            .filter(|e| e.is_kernel())
            .map(|e| e.name().to_string())
            .collect();
        assert_eq!(kernels, c.kernels, "{what}: kernel names intact");
        let roctx: BTreeSet<String> = events(plane(&r.space, HOST_PLANE))
            .into_iter()
            .filter(|e| e.line.name.contains("/ROCTX"))
            .map(|e| e.name().to_string())
            .collect();
        for l in &c.labels {
            assert!(
                roctx.contains(l),
                "{what}: label {l:?} missing from the roctx lines"
            );
        }
        if seed <= THROUGH_XPROF && xprof::available() {
            let s = xprof::summary(&r.files[0], &host_of(&r.files[0]));
            assert_eq!(s["errors"], serde_json::json!({}), "{what}: xprof errors");
            assert!(
                s["trace"]["complete_events"].as_u64().unwrap_or(0) > 0,
                "{what}: xprof shows no events"
            );
        }
    }
}

/// 1 MB texts: a kernel name, a roctx push label (around 20 launches and a copy) and a mark,
/// each of 1 MiB of multi-byte text. They reach the file intact, each stored once per plane
/// (interned), so the file stays a few MB; the run succeeds on both SDK families.
#[test]
fn one_megabyte_names_and_labels_are_kept_whole_and_stored_once() {
    let big = |seed: &str| -> String {
        let unit = format!("{seed}–é名€ ");
        unit.repeat((1 << 20) / unit.len() + 1)
    };
    let (kname, label, mark) = (big("kern"), big("range"), big("mark"));
    let scenario = format!(
        "name = \"huge-texts\"\nseed = 3\n[[gpus]]\npreset = \"mi300x\"\n\
         [[kernels]]\nname = {kname:?}\ndur_us = 2\n\
         [[threads]]\nname = \"main\"\ncalls = [\n\
         {{ op = \"push\", msg = {label:?} }},\n\
         {{ repeat = 20, calls = [ {{ op = \"launch\", kernel = {kname:?} }} ] }},\n\
         {{ op = \"memcpy\", kind = \"d2h\", bytes = 4096 }},\n\
         {{ op = \"mark\", msg = {mark:?} }},\n\
         {{ op = \"pop\" }},\n]\n"
    );
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("huge.toml");
    std::fs::write(&path, scenario).unwrap();
    for sdk in ["0.6.0", "1.0.0"] {
        let r = simulate(&path, sdk, &[]);
        let kernels: Vec<_> = device_events(&r.space)
            .into_iter()
            .filter(|e| e.is_kernel())
            .collect();
        assert_eq!(kernels.len(), 20, "{sdk}");
        assert!(
            kernels.iter().all(|e| e.name() == kname),
            "{sdk}: kernel name cut"
        );
        let roctx: Vec<String> = events(plane(&r.space, HOST_PLANE))
            .into_iter()
            .filter(|e| e.line.name.contains("/ROCTX"))
            .map(|e| e.name().to_string())
            .collect();
        assert!(roctx.contains(&label), "{sdk}: push label cut");
        assert!(roctx.contains(&mark), "{sdk}: mark cut");
        let size = std::fs::metadata(&r.files[0]).unwrap().len();
        assert!(
            size < 12 << 20,
            "{sdk}: {size} bytes: the texts were not stored once per plane"
        );
    }
}
