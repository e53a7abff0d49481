//! Fuzz target for the scenario parser and compiler (hand-written TOML is the simulator's only
//! outside input): mutated copies of every shipped scenario must give a plan or an error that
//! names a real place in the text — never a panic. The engine is the root package's
//! `tests/support/fuzz.rs` (seeded mutation loop; `ROCPROF_FUZZ_ITERS`, `ROCPROF_FUZZ_SEED`,
//! `ROCPROF_FUZZ_REPLAY` as there).

#[path = "../../tests/support/fuzz.rs"]
#[allow(dead_code)]
mod fuzz;

use std::path::Path;

/// Inputs that ask for more than this many digits in one number are skipped: a legal scenario
/// may ask for up to 200 M calls, which is a valid (slow) plan, not a parser fault.
const MAX_DIGITS: usize = 4;

fn long_number(text: &str) -> bool {
    let mut run = 0;
    for c in text.chars() {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        if run > MAX_DIGITS {
            return true;
        }
    }
    false
}

fn scenario_text(input: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(input);
    if long_number(&text) {
        return 0;
    }
    match rocprofiler_sdk_sim::scenario::parse_str(&text) {
        Ok(plan) => 1 + plan.threads.len() as u64,
        Err(e) => {
            let lines = text.lines().count().max(1);
            assert!(
                e.line <= lines + 1,
                "error at line {} of a {lines}-line text: {e}",
                e.line
            );
            assert!(!e.message.is_empty(), "an error says what is wrong");
            0
        }
    }
}

/// Edits that keep most of the TOML valid so inputs reach the compiler: delete, duplicate or
/// swap whole lines, or put a boundary value in place of a number or a string.
fn mutate_lines(b: &mut Vec<u8>, rng: &mut fuzz::Rng) {
    let text = String::from_utf8_lossy(b).into_owned();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        return;
    }
    const VALUES: [&str; 12] = [
        "0", "1", "-1", "4096", "0.0001", "1e7", "9999", "\"\"", "\"x\"", "[]", "{}", "true",
    ];
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(lines.len());
        match rng.below(4) {
            0 => {
                lines.remove(i);
                if lines.is_empty() {
                    break;
                }
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(rng.below(lines.len() + 1), l);
            }
            2 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            _ => {
                // Replace the value after the first `=` (or a number anywhere on the line).
                let l = &lines[i];
                let v = VALUES[rng.below(VALUES.len())];
                if let Some(eq) = l.find('=') {
                    let end = l[eq..].find([',', '}']).map_or(l.len(), |k| eq + k);
                    lines[i] = format!("{} {v}{}", &l[..=eq], &l[end..]);
                }
            }
        }
    }
    *b = lines.join("\n").into_bytes();
}

#[test]
fn fuzz_scenario_parser() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut seeds = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        // The big benchmark scenarios compile for seconds; their syntax is in the others.
        let big = text.contains("repeat = 25000") || text.contains("repeat = 2048");
        if p.extension().is_some_and(|x| x == "toml") && !long_number(&text) && !big {
            seeds.push(text.into_bytes());
        }
    }
    assert!(seeds.len() >= 5, "scenarios found: {}", seeds.len());
    let dict: &[&[u8]] = &[
        b"=",
        b"\"",
        b"[",
        b"]",
        b"{",
        b"}",
        b",",
        b"\n",
        b"[[threads]]\n",
        b"[[gpus]]\n",
        b"op = \"launch\"",
        b"repeat = ",
        b"stream = ",
        b"kernel = ",
        b"dur_us = ",
        b"-1",
        b"1e9",
        b"nan",
        b"'''",
        b"#",
        "–".as_bytes(),
        &[0xff],
    ];
    fuzz::run_with(
        "scenario",
        &seeds,
        |b, rng| {
            if rng.below(2) == 0 {
                fuzz::mutate(b, rng, dict)
            } else {
                mutate_lines(b, rng)
            }
        },
        scenario_text,
    );
}
