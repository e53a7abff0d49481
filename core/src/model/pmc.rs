//! Hardware counters of kernel dispatches: the rule that makes one value per counter of each
//! dispatch (its instances **summed**), and the derived metrics, FLOPs and bytes, from the
//! counters' definitions per architecture.
//!
//! **Dimensions.** The SDK delivers one value per instance of a counter (per XCC, shader engine,
//! L2 channel, …). Every counter stat is the sum over all of a dispatch's instances, the
//! aggregate rocprofv3 reports per dispatch; per-instance values are not kept. For counters
//! every instance counts in full (the `GRBM_*` cycle counters count on each XCC), the sum is
//! instances × the per-XCC count.
//!
//! **Derived metrics.** Definitions from rocprofiler-sdk's counter definitions
//! (`projects/rocprofiler-sdk/source/share/rocprofiler-sdk/counter_defs.yaml`, ROCm/rocm-systems):
//! * FLOPs: `TOTAL_16_OPS`, `TOTAL_32_OPS`, `TOTAL_64_OPS` without their integer terms, i.e.
//!   64 × (ADD + MUL + TRANS + 2 × FMA) VALU instructions per precision, plus
//!   512 × `SQ_INSTS_VALU_MFMA_MOPS_*` (`MfmaFlops*`); gfx90a, gfx940–942, gfx950. FLOPs count
//!   the FLOP counters that were collected (each appears as a stat beside them); RDNA parts have
//!   none, so no FLOPs there.
//! * Bytes read: `FETCH_SIZE` × 1024; bytes written: `WRITE_SIZE` × 1024, per architecture
//!   (table in [`BYTES`]). On gfx940–942 and gfx950, a missing `TCC_EA0_RDREQ_32B` counts as 0,
//!   the approximation the SDK's own `BANDWIDTH_EA` makes there because the TCC block cannot
//!   collect every read counter in one pass.

use std::sync::Arc;

use crate::facts::CounterValue;
use crate::fastmap::HashMap;

/// One dispatch's counters: each counter's instances summed, sorted by name, and what derives
/// from them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KernelCounters {
    pub values: CounterSums,
    pub derived: Derived,
}

/// Metrics derived from a dispatch's counters (`None`: a counter they need was not collected,
/// or the architecture has no definition).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Derived {
    pub flops: Option<f64>,
    pub bytes_read: Option<f64>,
    pub bytes_written: Option<f64>,
}

impl Derived {
    /// Bytes read and written, when both are known.
    pub fn bytes(&self) -> Option<f64> {
        Some(self.bytes_read? + self.bytes_written?)
    }

    /// Achieved TFLOP/s over a dispatch of `duration_ns`.
    pub fn tflop_per_s(&self, duration_ns: u64) -> Option<f64> {
        (duration_ns > 0).then_some(self.flops? / duration_ns as f64 / 1e3)
    }

    /// Achieved GB/s (10^9 bytes per second) over a dispatch of `duration_ns`.
    pub fn gb_per_s(&self, duration_ns: u64) -> Option<f64> {
        (duration_ns > 0).then_some(self.bytes()? / duration_ns as f64)
    }
}

/// A dispatch's counters, each summed over its instances.
type CounterSums = Vec<(Arc<str>, f64)>;

/// The counters of every dispatch that has any, by dispatch id (a dispatch on an agent without
/// a known architecture has no derived metrics).
pub fn per_dispatch(
    values: Vec<CounterValue>,
    arch_of_agent: impl Fn(u64) -> Option<String>,
) -> HashMap<u64, KernelCounters> {
    let mut sums: HashMap<u64, (u64, CounterSums)> = HashMap::default();
    for v in values {
        let (agent, list) = sums
            .entry(v.dispatch_id)
            .or_insert_with(|| (v.agent, Vec::new()));
        if *agent == 0 {
            *agent = v.agent;
        }
        match list.iter_mut().find(|(n, _)| *n == v.counter) {
            Some((_, sum)) => *sum += v.value,
            None => list.push((v.counter, v.value)),
        }
    }
    let mut arches: HashMap<u64, Option<String>> = HashMap::default();
    sums.into_iter()
        .map(|(dispatch, (agent, mut values))| {
            values.sort_by(|a, b| a.0.cmp(&b.0));
            let arch = arches.entry(agent).or_insert_with(|| arch_of_agent(agent));
            let derived = arch
                .as_deref()
                .map_or_else(Derived::default, |a| derive(a, &values));
            (dispatch, KernelCounters { values, derived })
        })
        .collect()
}

/// The architectures' families whose definitions differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Gfx90a,
    Gfx94x,
    Gfx950,
    Rdna3,
}

fn family(arch: &str) -> Option<Family> {
    // The agent's name may carry target features ("gfx90a:sramecc+:xnack-").
    let base = arch.split(':').next().unwrap_or(arch);
    match base {
        "gfx90a" => Some(Family::Gfx90a),
        "gfx940" | "gfx941" | "gfx942" => Some(Family::Gfx94x),
        "gfx950" => Some(Family::Gfx950),
        _ if base.starts_with("gfx11") => Some(Family::Rdna3),
        _ => None,
    }
}

/// FLOPs per VALU instruction of each kind (one per lane of a 64-wide wave; FMA counts two).
const VALU_FLOPS: &[(&str, f64)] = &[
    ("SQ_INSTS_VALU_ADD_F16", 64.0),
    ("SQ_INSTS_VALU_MUL_F16", 64.0),
    ("SQ_INSTS_VALU_TRANS_F16", 64.0),
    ("SQ_INSTS_VALU_FMA_F16", 128.0),
    ("SQ_INSTS_VALU_ADD_F32", 64.0),
    ("SQ_INSTS_VALU_MUL_F32", 64.0),
    ("SQ_INSTS_VALU_TRANS_F32", 64.0),
    ("SQ_INSTS_VALU_FMA_F32", 128.0),
    ("SQ_INSTS_VALU_ADD_F64", 64.0),
    ("SQ_INSTS_VALU_MUL_F64", 64.0),
    ("SQ_INSTS_VALU_TRANS_F64", 64.0),
    ("SQ_INSTS_VALU_FMA_F64", 128.0),
    ("SQ_INSTS_VALU_MFMA_MOPS_F16", 512.0),
    ("SQ_INSTS_VALU_MFMA_MOPS_BF16", 512.0),
    ("SQ_INSTS_VALU_MFMA_MOPS_F32", 512.0),
    ("SQ_INSTS_VALU_MFMA_MOPS_F64", 512.0),
];

/// One term of a bytes definition: `bytes × counter` (a negative `bytes` subtracts).
type Term = (&'static str, f64);

/// A bytes definition: its terms, and the counters that may be missing (taken as 0).
struct Bytes {
    terms: &'static [Term],
    optional: &'static [&'static str],
}

/// `FETCH_SIZE` and `WRITE_SIZE` (× 1024) per family, expanded into terms:
/// * gfx90a: read `32·R32 + 64·(R − R32)`; write `32·(W − W64) + 64·W64`;
/// * gfx940–942: read `128·BUBBLE + 64·(R − BUBBLE − R32) + 32·R32`; write as gfx90a on `EA0`;
/// * gfx950: read `128·R128 + 64·R64 + 32·R32`; write as gfx940–942;
/// * gfx11: read `32·R32 + 64·R64 + 96·R96 + 128·R128` (GL2C); write
///   `32·(MC_WRREQ − W64) + 64·W64`.
const BYTES: &[(Family, Bytes, Bytes)] = &[
    (
        Family::Gfx90a,
        Bytes {
            terms: &[("TCC_EA_RDREQ", 64.0), ("TCC_EA_RDREQ_32B", -32.0)],
            optional: &[],
        },
        Bytes {
            terms: &[("TCC_EA_WRREQ", 32.0), ("TCC_EA_WRREQ_64B", 32.0)],
            optional: &[],
        },
    ),
    (
        Family::Gfx94x,
        Bytes {
            terms: &[
                ("TCC_BUBBLE", 64.0),
                ("TCC_EA0_RDREQ", 64.0),
                ("TCC_EA0_RDREQ_32B", -32.0),
            ],
            optional: &["TCC_EA0_RDREQ_32B"],
        },
        Bytes {
            terms: &[("TCC_EA0_WRREQ", 32.0), ("TCC_EA0_WRREQ_64B", 32.0)],
            optional: &[],
        },
    ),
    (
        Family::Gfx950,
        Bytes {
            terms: &[
                ("TCC_EA0_RDREQ_128B", 128.0),
                ("TCC_EA0_RDREQ_64B", 64.0),
                ("TCC_EA0_RDREQ_32B", 32.0),
            ],
            optional: &["TCC_EA0_RDREQ_32B"],
        },
        Bytes {
            terms: &[("TCC_EA0_WRREQ", 32.0), ("TCC_EA0_WRREQ_64B", 32.0)],
            optional: &[],
        },
    ),
    (
        Family::Rdna3,
        Bytes {
            terms: &[
                ("GL2C_EA_RDREQ_32B", 32.0),
                ("GL2C_EA_RDREQ_64B", 64.0),
                ("GL2C_EA_RDREQ_96B", 96.0),
                ("GL2C_EA_RDREQ_128B", 128.0),
            ],
            optional: &[],
        },
        Bytes {
            terms: &[("GL2C_MC_WRREQ", 32.0), ("GL2C_EA_WRREQ_64B", 32.0)],
            optional: &[],
        },
    ),
];

fn value(values: &[(Arc<str>, f64)], name: &str) -> Option<f64> {
    values.iter().find(|(n, _)| &**n == name).map(|(_, v)| *v)
}

fn bytes(b: &Bytes, values: &[(Arc<str>, f64)]) -> Option<f64> {
    b.terms
        .iter()
        .try_fold(0.0, |acc, &(name, per)| match value(values, name) {
            Some(v) => Some(acc + per * v),
            None if b.optional.contains(&name) => Some(acc),
            None => None,
        })
}

/// The metrics `values` (a dispatch's summed counters) give on architecture `arch`.
pub fn derive(arch: &str, values: &[(Arc<str>, f64)]) -> Derived {
    let Some(fam) = family(arch) else {
        return Derived::default();
    };
    let flops = (fam != Family::Rdna3)
        .then(|| {
            VALU_FLOPS
                .iter()
                .filter_map(|&(name, per)| value(values, name).map(|v| v * per))
                .reduce(|a, b| a + b)
        })
        .flatten();
    let (read, write) = BYTES
        .iter()
        .find(|(f, _, _)| *f == fam)
        .map_or((None, None), |(_, r, w)| {
            (bytes(r, values), bytes(w, values))
        });
    Derived {
        flops,
        bytes_read: read,
        bytes_written: write,
    }
}

/// The counters a derived metric needs on `arch` (for the documentation and the start-up line
/// saying what a set lacks): (metric, counters).
pub fn needs(arch: &str) -> Vec<(&'static str, Vec<&'static str>)> {
    let Some(fam) = family(arch) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if fam != Family::Rdna3 {
        out.push(("flops", VALU_FLOPS.iter().map(|(n, _)| *n).collect()));
    }
    if let Some((_, r, w)) = BYTES.iter().find(|(f, _, _)| *f == fam) {
        out.push(("bytes_read", r.terms.iter().map(|t| t.0).collect()));
        out.push(("bytes_written", w.terms.iter().map(|t| t.0).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(pairs: &[(&str, f64)]) -> Vec<(Arc<str>, f64)> {
        pairs.iter().map(|(n, x)| (Arc::from(*n), *x)).collect()
    }

    /// The expansions of FETCH_SIZE/WRITE_SIZE give the SDK's formulas back.
    #[test]
    fn bytes_follow_the_sdk_definitions() {
        // gfx90a: 10 requests of which 4 are 32 B → 4·32 + 6·64.
        let d = derive(
            "gfx90a",
            &v(&[
                ("TCC_EA_RDREQ", 10.0),
                ("TCC_EA_RDREQ_32B", 4.0),
                ("TCC_EA_WRREQ", 5.0),
                ("TCC_EA_WRREQ_64B", 3.0),
            ]),
        );
        assert_eq!(d.bytes_read, Some(4.0 * 32.0 + 6.0 * 64.0));
        assert_eq!(d.bytes_written, Some(2.0 * 32.0 + 3.0 * 64.0));
        // gfx942: 128·B + 64·(R − B − R32) + 32·R32, R32 optional.
        let d = derive(
            "gfx942:sramecc+:xnack-",
            &v(&[
                ("TCC_BUBBLE", 3.0),
                ("TCC_EA0_RDREQ", 10.0),
                ("TCC_EA0_RDREQ_32B", 2.0),
            ]),
        );
        assert_eq!(d.bytes_read, Some(3.0 * 128.0 + 5.0 * 64.0 + 2.0 * 32.0));
        assert_eq!(d.bytes_written, None);
        let d = derive("gfx942", &v(&[("TCC_BUBBLE", 3.0), ("TCC_EA0_RDREQ", 3.0)]));
        assert_eq!(d.bytes_read, Some(384.0));
        // gfx1100: every read counter is needed.
        let d = derive("gfx1100", &v(&[("GL2C_EA_RDREQ_128B", 1.0)]));
        assert_eq!(d.bytes_read, None);
    }

    #[test]
    fn flops_count_fmas_twice_and_mfma_ops_by_512() {
        let d = derive(
            "gfx950",
            &v(&[
                ("SQ_INSTS_VALU_FMA_F32", 2.0),
                ("SQ_INSTS_VALU_ADD_F64", 1.0),
                ("SQ_INSTS_VALU_MFMA_MOPS_BF16", 3.0),
                ("SQ_WAVES", 99.0),
            ]),
        );
        assert_eq!(d.flops, Some(2.0 * 128.0 + 64.0 + 3.0 * 512.0));
        assert_eq!(derive("gfx942", &v(&[("SQ_WAVES", 1.0)])).flops, None);
        assert_eq!(
            derive("gfx1100", &v(&[("SQ_INSTS_VALU_FMA_F32", 1.0)])).flops,
            None
        );
        assert_eq!(d.tflop_per_s(0), None);
        assert_eq!(
            Derived {
                flops: Some(2e6),
                ..d
            }
            .tflop_per_s(1000),
            Some(2.0)
        );
    }

    #[test]
    fn instances_are_summed_per_dispatch_and_named_counter() {
        let val = |d: u64, c: &str, x: f64| CounterValue {
            dispatch_id: d,
            agent: 7,
            counter: Arc::from(c),
            value: x,
        };
        let out = per_dispatch(
            vec![
                val(1, "SQ_WAVES", 3.0),
                val(1, "SQ_WAVES", 4.0),
                val(2, "SQ_WAVES", 1.0),
                val(1, "GRBM_COUNT", 5.0),
            ],
            |a| (a == 7).then(|| "gfx942".to_string()),
        );
        assert_eq!(out[&1].values, v(&[("GRBM_COUNT", 5.0), ("SQ_WAVES", 7.0)]));
        assert_eq!(out[&2].values, v(&[("SQ_WAVES", 1.0)]));
    }
}
