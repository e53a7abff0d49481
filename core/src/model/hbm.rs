//! Published peak memory (HBM) bandwidth of known AMD Instinct products.
//!
//! The agent record the runtime gives a tool has no memory bandwidth (XLA computes one from HIP
//! device properties, which a tool cannot query). xprof's roofline divides by this figure, so a
//! wrong value misleads; an absent one is at least honest. The table is therefore used only when
//! the agent is unmistakably the whole product: same ISA, the product's name as a word in the
//! agent's marketing name, and the product's full compute-unit count. A partitioned GPU (CPX,
//! DPX… modes show fewer CUs per agent) or anything unlisted gets no figure, and the writer then
//! omits the `memory_bandwidth` stat (see docs/xplane-output.md).
//!
//! Figures are AMD's published peak theoretical bandwidth, in decimal units (1 TB/s = 1e12 B/s),
//! per **agent**. Sources: AMD's Instinct product pages and data sheets (amd.com/en/products/
//! accelerators/instinct), and for MI250/MI250X the ROCm documentation "AMD Instinct MI250
//! microarchitecture" (rocm.docs.amd.com, conceptual/gpu-arch/mi250), which states 1.6 TB/s per
//! GCD. An MI250/MI250X card is two GCDs, each its own agent, so each gets half of the card's
//! 3.2 TB/s.
//!
//! Beware when comparing with XLA: the real XLA files in ../shared/testdata/real carry
//! 2.6624e12 B/s for MI300X and 4.096e12 B/s for MI355X, exactly half of the published figures
//! (XLA's formula, 2 × memory clock × bus width / 8, undercounts HBM3/HBM3E by a factor of two).

/// One product: matched on ISA, name word and compute units.
#[derive(Debug, Clone, Copy)]
struct Product {
    gfx: &'static str,
    /// Word that must appear in the agent's `product_name` (case-insensitive, whole word).
    model: &'static str,
    /// Compute units of one whole agent (one GCD for MI200).
    compute_units: u32,
    bytes_per_s: u64,
}

const TB: u64 = 1_000_000_000_000;
const GB: u64 = 1_000_000_000;

const fn product(gfx: &'static str, model: &'static str, cus: u32, bytes_per_s: u64) -> Product {
    Product {
        gfx,
        model,
        compute_units: cus,
        bytes_per_s,
    }
}

/// Source of each figure in the module doc; CU counts are AMD's per-agent totals.
#[rustfmt::skip]
const PRODUCTS: [Product; 9] = [
    // CDNA: MI100, 1.2288 TB/s ("1.23 TB/s").
    product("gfx908", "MI100", 120, 1_228_800_000_000),
    // CDNA 2: MI210 is one GCD, 1.6 TB/s. MI250 / MI250X: 3.2 TB/s per card of two GCDs, each its
    // own agent → 1.6 TB/s per agent; 104 / 110 CUs per GCD (208 / 220 per card).
    product("gfx90a", "MI210", 104, 1600 * GB),
    product("gfx90a", "MI250", 104, 1600 * GB),
    product("gfx90a", "MI250X", 110, 1600 * GB),
    // CDNA 3: MI300A and MI300X 5.3 TB/s (HBM3), MI325X 6 TB/s (HBM3E).
    product("gfx942", "MI300A", 228, 5300 * GB),
    product("gfx942", "MI300X", 304, 5300 * GB),
    product("gfx942", "MI325X", 304, 6 * TB),
    // CDNA 4: MI350X and MI355X 8 TB/s (HBM3E).
    product("gfx950", "MI350X", 256, 8 * TB),
    product("gfx950", "MI355X", 256, 8 * TB),
];

/// Whether `word` stands in `text` as a whole word (case-insensitive): "MI250" is a word of
/// "AMD Instinct MI250X / MI250" but not of "AMD Instinct MI250X".
fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case(word))
}

/// Published peak memory bandwidth (bytes/s) of the agent, when it is a listed product whole.
///
/// `gfx` is the agent's ISA name (e.g. `gfx942`, possibly with feature suffixes such as
/// `gfx90a:sramecc+:xnack-`), `product_name` its marketing name, `compute_units` its CU count.
pub fn peak_bandwidth(gfx: &str, product_name: &str, compute_units: u32) -> Option<u64> {
    let isa = gfx.split(':').next().unwrap_or(gfx);
    PRODUCTS
        .iter()
        .find(|p| {
            p.gfx == isa && p.compute_units == compute_units && has_word(product_name, p.model)
        })
        .map(|p| p.bytes_per_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_known_products_get_their_published_figure() {
        for (gfx, name, cus, want) in [
            ("gfx942", "AMD Instinct MI300X", 304, 5_300_000_000_000),
            ("gfx950", "AMD Instinct MI355X", 256, 8_000_000_000_000),
            ("gfx908", "AMD Instinct MI100", 120, 1_228_800_000_000),
            // One MI250X GCD is one agent: half of the card's 3.2 TB/s. The marketing name the
            // driver reports names both products; the CU count tells them apart.
            (
                "gfx90a:sramecc+:xnack-",
                "AMD Instinct MI250X / MI250",
                110,
                1_600_000_000_000,
            ),
            (
                "gfx90a",
                "AMD Instinct MI250X / MI250",
                104,
                1_600_000_000_000,
            ),
        ] {
            assert_eq!(peak_bandwidth(gfx, name, cus), Some(want), "{name} {cus}");
        }
    }

    #[test]
    fn anything_not_unmistakably_listed_is_unknown() {
        for (gfx, name, cus, why) in [
            (
                "gfx942",
                "AMD Instinct MI300X",
                38,
                "a CPX partition is not the whole GPU",
            ),
            (
                "gfx942",
                "AMD Instinct MI308X",
                304,
                "unlisted product on a listed ISA",
            ),
            ("gfx1100", "AMD Radeon RX 7900 XTX", 96, "unlisted ISA"),
            ("gfx942", "", 304, "no marketing name"),
            (
                "gfx942",
                "AMD Instinct MI300XT",
                304,
                "the name must match as a word",
            ),
            ("gfx90a", "AMD Instinct MI300X", 304, "the ISA must agree"),
        ] {
            assert_eq!(peak_bandwidth(gfx, name, cus), None, "{why}");
        }
    }
}
