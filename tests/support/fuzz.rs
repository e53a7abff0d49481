//! The fuzz engine shared by the fuzz targets (`tests/fuzz.rs`, and the simulator's
//! `sim/tests/fuzz_scenario.rs`, which includes this file by path): a seeded mutation loop on
//! the stable toolchain. See `tests/fuzz.rs` for why it is not coverage-guided.

/// xorshift64*: small, seedable, reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn iterations() -> u64 {
    std::env::var("ROCPROF_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

fn seed() -> u64 {
    std::env::var("ROCPROF_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_f022)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// Mutates `buf` in place: bit flips, byte sets to boundary values, inserts of dictionary
/// tokens, deletes, duplicated spans.
pub fn mutate(buf: &mut Vec<u8>, rng: &mut Rng, dict: &[&[u8]]) {
    for _ in 0..1 + rng.below(6) {
        let len = buf.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                buf[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                buf[i] = [0, 0xff, 0x7f, 0x80, b'#', 0xc3][rng.below(6)];
            }
            2 if !dict.is_empty() => {
                let t = dict[rng.below(dict.len())];
                let i = rng.below(len + 1);
                buf.splice(i..i, t.iter().copied());
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(16));
                buf.drain(i..i + n);
            }
            4 if len > 0 && len < 1 << 16 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(64));
                let span: Vec<u8> = buf[i..i + n].to_vec();
                let at = rng.below(len + 1);
                buf.splice(at..at, span);
            }
            _ => buf.push(rng.next() as u8),
        }
    }
}

/// Runs `target` on `iterations()` inputs grown from `seeds`, or on one replayed input.
/// `target` returns how much of the input reached the output (events, keys), so a run can say
/// whether its inputs got past the first checks.
pub fn run(name: &str, seeds: &[Vec<u8>], dict: &[&[u8]], target: impl Fn(&[u8]) -> u64) {
    run_with(name, seeds, |b, rng| mutate(b, rng, dict), target)
}

/// [`run`] with a mutator of the target's own (e.g. one that knows the input's syntax).
pub fn run_with(
    name: &str,
    seeds: &[Vec<u8>],
    mutator: impl Fn(&mut Vec<u8>, &mut Rng),
    target: impl Fn(&[u8]) -> u64,
) {
    if let Ok(h) = std::env::var("ROCPROF_FUZZ_REPLAY") {
        eprintln!(
            "{name}: replayed, {} reached the output",
            target(&unhex(&h))
        );
        return;
    }
    let mut rng = Rng(seed() | 1);
    let mut corpus: Vec<Vec<u8>> = seeds.to_vec();
    let n = iterations();
    let mut productive = 0u64;
    for i in 0..n {
        let mut input = corpus[rng.below(corpus.len())].clone();
        mutator(&mut input, &mut rng);
        if input.len() > 1 << 16 {
            input.truncate(1 << 16);
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target(&input)));
        let reached = match r {
            Ok(reached) => reached,
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!(
                    "{name}: input {i} failed: {msg}\nreplay: ROCPROF_FUZZ_REPLAY={}",
                    hex(&input)
                );
            }
        };
        productive += u64::from(reached > 0);
        // The only feedback (no coverage): mutants that got through the first checks become
        // parents more often, so inputs drift away from the seeds while staying parseable.
        let keep = if reached > 0 { 2 } else { 32 };
        if rng.below(keep) == 0 {
            if corpus.len() < 512 {
                corpus.push(input);
            } else {
                let i = seeds.len() + rng.below(corpus.len() - seeds.len());
                corpus[i] = input;
            }
        }
    }
    eprintln!(
        "{name}: {n} inputs, no failure, {productive} reached the output (seed {:#x})",
        seed()
    );
}
