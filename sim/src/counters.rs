//! Hardware counters of the simulated GPUs (**test infrastructure**): which counters each
//! architecture offers, their blocks and dimensions, how many counters of a block one pass
//! can collect, and the value each counter takes for a simulated kernel dispatch. The runtime
//! (`runtime::counting`) delivers these values the way the SDK's dispatch counting service
//! does; the ground truth (`truth`) reports the same totals, so a profiler's stats can be
//! checked against them.
//!
//! Names, blocks and the architectures each counter exists on follow rocprofiler-sdk's
//! counter definitions (`projects/rocprofiler-sdk/source/share/rocprofiler-sdk/counter_defs.yaml`
//! in ROCm/rocm-systems; the older `source/lib/rocprofiler-sdk/counters/yaml/counter_defs.yaml`
//! of ROCm/rocprofiler-sdk for gfx90a/gfx942/gfx1100). What that file does not say — how many
//! instances a block has on a given part and how many counters of a block fit one pass — the
//! SDK learns from the hardware at run time; the numbers here are the simulator's assumptions,
//! chosen so sums, dimensions and multi-pass sets are exercised.

use crate::plan::{GpuSpec, KernelWork, Precision};

/// The SDK's dimension ids (its `rocprofiler_profile_counter_instance_types`), and the names it
/// reports for them (`id_decode.cpp`).
pub const DIM_XCC: u64 = 1;
pub const DIM_SHADER_ENGINE: u64 = 3;
pub const DIM_INSTANCE: u64 = 7;

pub fn dimension_name(id: u64) -> &'static str {
    match id {
        DIM_XCC => "DIMENSION_XCC",
        DIM_SHADER_ENGINE => "DIMENSION_SHADER_ENGINE",
        DIM_INSTANCE => "DIMENSION_INSTANCE",
        _ => "DIMENSION_NONE",
    }
}

/// Bits of an instance id below the counter id (the SDK puts the counter id in the top 16
/// bits and 6 bits per dimension below, dimension `d` at `(d - 1) * 6`).
const DIM_BITS: u64 = 48;
const BITS_PER_DIM: u64 = 6;

/// What a counter counts, in terms of the simulated kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Waves launched (`SQ_WAVES`).
    Waves,
    /// GPU busy cycles over the dispatch (`GRBM_GUI_ACTIVE`, `GRBM_COUNT`).
    Cycles,
    /// VALU instructions of one kind on one precision (per wave, 64 lanes each).
    ValuAdd(Precision),
    ValuMul(Precision),
    ValuFma(Precision),
    ValuTrans(Precision),
    /// MFMA math operations / 512.
    MfmaMops(Precision),
    /// Read requests to memory of this many bytes (`None`: all read requests).
    Read(Option<u32>),
    /// gfx942's `TCC_BUBBLE`: 128-byte read requests.
    Bubble,
    /// Write requests of 64 bytes (`Some(64)`) or all of them (`None`).
    Write(Option<u32>),
    /// L2 hits and misses (all requests, half each).
    L2Hit,
    L2Miss,
}

/// One counter of an architecture.
#[derive(Debug, Clone, Copy)]
pub struct CounterDef {
    pub name: &'static str,
    pub block: &'static str,
    pub description: &'static str,
    pub source: Source,
}

/// The four architectures modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    Gfx90a,
    Gfx942,
    Gfx950,
    Gfx1100,
}

impl Arch {
    pub fn of(gpu: &GpuSpec) -> Option<Arch> {
        match gpu.name.as_str() {
            "gfx90a" => Some(Arch::Gfx90a),
            "gfx940" | "gfx941" | "gfx942" => Some(Arch::Gfx942),
            "gfx950" => Some(Arch::Gfx950),
            "gfx1100" | "gfx1101" | "gfx1102" => Some(Arch::Gfx1100),
            _ => None,
        }
    }
}

macro_rules! c {
    ($name:literal, $block:literal, $src:expr, $desc:literal) => {
        CounterDef {
            name: $name,
            block: $block,
            description: $desc,
            source: $src,
        }
    };
}

use Precision::{Bf16, F16, F32, F64};
use Source::*;

/// Counters every modelled architecture has (counter_defs.yaml lists each for gfx90a, gfx942,
/// gfx950 and gfx1100).
const COMMON: &[CounterDef] = &[
    c!(
        "GRBM_COUNT",
        "GRBM",
        Cycles,
        "Tie High - Count Number of Clocks"
    ),
    c!("GRBM_GUI_ACTIVE", "GRBM", Cycles, "The GUI is Active"),
    c!(
        "SQ_WAVES",
        "SQ",
        Waves,
        "Count number of waves sent to distributed sequencers (SQs)."
    ),
];

/// The CDNA VALU and MFMA counters (gfx90a, gfx942, gfx950).
const CDNA_SQ: &[CounterDef] = &[
    c!(
        "SQ_INSTS_VALU_ADD_F16",
        "SQ",
        ValuAdd(F16),
        "VALU ADD instructions on float16."
    ),
    c!(
        "SQ_INSTS_VALU_MUL_F16",
        "SQ",
        ValuMul(F16),
        "VALU MUL instructions on float16."
    ),
    c!(
        "SQ_INSTS_VALU_FMA_F16",
        "SQ",
        ValuFma(F16),
        "VALU FMA/MAD instructions on float16."
    ),
    c!(
        "SQ_INSTS_VALU_TRANS_F16",
        "SQ",
        ValuTrans(F16),
        "VALU transcendental instructions on float16."
    ),
    c!(
        "SQ_INSTS_VALU_ADD_F32",
        "SQ",
        ValuAdd(F32),
        "VALU ADD instructions on float32."
    ),
    c!(
        "SQ_INSTS_VALU_MUL_F32",
        "SQ",
        ValuMul(F32),
        "VALU MUL instructions on float32."
    ),
    c!(
        "SQ_INSTS_VALU_FMA_F32",
        "SQ",
        ValuFma(F32),
        "VALU FMA/MAD instructions on float32."
    ),
    c!(
        "SQ_INSTS_VALU_TRANS_F32",
        "SQ",
        ValuTrans(F32),
        "VALU transcendental instructions on float32."
    ),
    c!(
        "SQ_INSTS_VALU_ADD_F64",
        "SQ",
        ValuAdd(F64),
        "VALU ADD instructions on float64."
    ),
    c!(
        "SQ_INSTS_VALU_MUL_F64",
        "SQ",
        ValuMul(F64),
        "VALU MUL instructions on float64."
    ),
    c!(
        "SQ_INSTS_VALU_FMA_F64",
        "SQ",
        ValuFma(F64),
        "VALU FMA/MAD instructions on float64."
    ),
    c!(
        "SQ_INSTS_VALU_TRANS_F64",
        "SQ",
        ValuTrans(F64),
        "VALU transcendental instructions on float64."
    ),
    c!(
        "SQ_INSTS_VALU_MFMA_MOPS_F16",
        "SQ",
        MfmaMops(F16),
        "MFMA math operations on float16, divided by 512."
    ),
    c!(
        "SQ_INSTS_VALU_MFMA_MOPS_BF16",
        "SQ",
        MfmaMops(Bf16),
        "MFMA math operations on bfloat16, divided by 512."
    ),
    c!(
        "SQ_INSTS_VALU_MFMA_MOPS_F32",
        "SQ",
        MfmaMops(F32),
        "MFMA math operations on float32, divided by 512."
    ),
    c!(
        "SQ_INSTS_VALU_MFMA_MOPS_F64",
        "SQ",
        MfmaMops(F64),
        "MFMA math operations on float64, divided by 512."
    ),
    c!("TCC_HIT", "TCC", L2Hit, "Number of cache hits."),
    c!("TCC_MISS", "TCC", L2Miss, "Number of cache misses."),
];

const GFX90A_TCC: &[CounterDef] = &[
    c!(
        "TCC_EA_RDREQ",
        "TCC",
        Read(None),
        "Number of TCC/EA read requests (either 32-byte or 64-byte)"
    ),
    c!(
        "TCC_EA_RDREQ_32B",
        "TCC",
        Read(Some(32)),
        "Number of 32-byte TCC/EA read requests"
    ),
    c!(
        "TCC_EA_WRREQ",
        "TCC",
        Write(None),
        "Number of transactions (either 32-byte or 64-byte) going over the TC_EA_wrreq interface."
    ),
    c!(
        "TCC_EA_WRREQ_64B",
        "TCC",
        Write(Some(64)),
        "Number of 64-byte transactions going over the TC_EA_wrreq interface."
    ),
];

const GFX94X_TCC_WRITE: &[CounterDef] = &[
    c!(
        "TCC_EA0_WRREQ",
        "TCC",
        Write(None),
        "Number of transactions (either 32-byte or 64-byte) going over the TC_EA_wrreq interface."
    ),
    c!(
        "TCC_EA0_WRREQ_64B",
        "TCC",
        Write(Some(64)),
        "Number of 64-byte transactions going over the TC_EA_wrreq interface."
    ),
];

const GFX942_TCC: &[CounterDef] = &[
    c!(
        "TCC_EA0_RDREQ",
        "TCC",
        Read(None),
        "Number of TCC/EA read requests (either 32-byte or 64-byte)"
    ),
    c!(
        "TCC_EA0_RDREQ_32B",
        "TCC",
        Read(Some(32)),
        "Number of 32-byte TCC/EA read requests"
    ),
    c!(
        "TCC_BUBBLE",
        "TCC",
        Bubble,
        "Number of 128-byte read requests."
    ),
];

const GFX950_TCC: &[CounterDef] = &[
    c!(
        "TCC_EA0_RDREQ_32B",
        "TCC",
        Read(Some(32)),
        "Number of 32-byte TCC/EA read requests"
    ),
    c!(
        "TCC_EA0_RDREQ_64B",
        "TCC",
        Read(Some(64)),
        "Number of 64-byte TCC/EA read requests"
    ),
    c!(
        "TCC_EA0_RDREQ_128B",
        "TCC",
        Read(Some(128)),
        "Number of 128-byte TCC/EA read requests"
    ),
];

/// RDNA3's L2 (GL2C) counters; RDNA3 has no per-precision VALU or MFMA counters.
const GFX1100_GL2C: &[CounterDef] = &[
    c!("GL2C_HIT", "GL2C", L2Hit, "Number of cache hits"),
    c!("GL2C_MISS", "GL2C", L2Miss, "Number of cache misses"),
    c!(
        "GL2C_EA_RDREQ_32B",
        "GL2C",
        Read(Some(32)),
        "Number of 32-byte GL2C/EA read requests"
    ),
    c!(
        "GL2C_EA_RDREQ_64B",
        "GL2C",
        Read(Some(64)),
        "Number of 64-byte GL2C/EA read requests"
    ),
    c!(
        "GL2C_EA_RDREQ_96B",
        "GL2C",
        Read(Some(96)),
        "Number of 96-byte GL2C/EA read requests"
    ),
    c!(
        "GL2C_EA_RDREQ_128B",
        "GL2C",
        Read(Some(128)),
        "Number of 128-byte GL2C/EA read requests"
    ),
    c!(
        "GL2C_MC_WRREQ",
        "GL2C",
        Write(None),
        "Number of transactions going over the GL2C_MC_wrreq interface"
    ),
    c!(
        "GL2C_EA_WRREQ_64B",
        "GL2C",
        Write(Some(64)),
        "Number of 64-byte transactions going over the GL2C_EA_wrreq interface"
    ),
];

/// Every counter `arch` offers, in a stable order (the order of their ids).
pub fn catalogue(arch: Arch) -> Vec<CounterDef> {
    let parts: &[&[CounterDef]] = match arch {
        Arch::Gfx90a => &[COMMON, CDNA_SQ, GFX90A_TCC],
        Arch::Gfx942 => &[COMMON, CDNA_SQ, GFX942_TCC, GFX94X_TCC_WRITE],
        Arch::Gfx950 => &[COMMON, CDNA_SQ, GFX950_TCC, GFX94X_TCC_WRITE],
        Arch::Gfx1100 => &[COMMON, GFX1100_GL2C],
    };
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

/// How many counters of `block` one pass can collect (the simulator's assumption; the SDK asks
/// the hardware): a config asking for more fails with `ERROR_EXCEEDS_HW_LIMIT`.
pub fn block_limit(block: &str) -> usize {
    match block {
        "GRBM" => 2,
        "SQ" => 8,
        "TCC" | "GL2C" => 4,
        _ => 2,
    }
}

/// A counter's dimensions on `gpu`: (dimension id, instances), outermost first.
pub fn dimensions(def: &CounterDef, gpu: &GpuSpec) -> Vec<(u64, u64)> {
    let xcc = u64::from(gpu.num_xcc.max(1));
    match def.block {
        "GRBM" => vec![(DIM_XCC, xcc)],
        // Shader engines per XCC: the agent reports 4 per XCC (`num_shader_banks`).
        "SQ" => vec![(DIM_XCC, xcc), (DIM_SHADER_ENGINE, 4)],
        // L2 channels per XCC.
        "TCC" | "GL2C" => vec![(DIM_XCC, xcc), (DIM_INSTANCE, 16)],
        _ => vec![(DIM_XCC, xcc)],
    }
}

/// Number of instances (product of the dimensions).
pub fn instance_count(def: &CounterDef, gpu: &GpuSpec) -> u64 {
    dimensions(def, gpu).iter().map(|d| d.1).product()
}

/// The instance id of counter `counter_id` at the positions `pos` (one per dimension of
/// `dims`), encoded as the SDK encodes it.
pub fn instance_id(counter_id: u64, dims: &[(u64, u64)], pos: &[u64]) -> u64 {
    let mut id = counter_id << DIM_BITS;
    for (&(dim, _), &p) in dims.iter().zip(pos) {
        id |= (p & ((1 << BITS_PER_DIM) - 1)) << ((dim - 1) * BITS_PER_DIM);
    }
    id
}

/// The counter id an instance id carries.
pub fn counter_of_instance(instance: u64) -> u64 {
    instance >> DIM_BITS
}

/// One dispatch of a kernel: what the counters are derived from.
#[derive(Debug, Clone, Copy)]
pub struct Dispatch<'a> {
    pub gpu: &'a GpuSpec,
    pub grid_items: [u32; 3],
    pub block: [u32; 3],
    pub duration_ns: u64,
    pub work: &'a KernelWork,
}

impl Dispatch<'_> {
    /// Waves launched: work-groups × ceil(work-items per group / wavefront size).
    pub fn waves(&self) -> u64 {
        let groups: u64 = (0..3)
            .map(|i| u64::from(self.grid_items[i].div_ceil(self.block[i].max(1))))
            .product();
        let items: u64 = self.block.iter().map(|&b| u64::from(b.max(1))).product();
        groups * items.div_ceil(u64::from(self.gpu.wave_front_size.max(1)))
    }

    fn cycles(&self) -> u64 {
        self.duration_ns * u64::from(self.gpu.max_engine_clk_mhz) / 1000
    }

    /// VALU instructions (per wave) and MFMA math operations / 512 that do the kernel's
    /// floating-point work: FMAs (2 FLOPs × 64 lanes each) on VALU kernels, MOPS on MFMA ones.
    fn math(&self, source: Source) -> u64 {
        let w = self.work;
        match (source, w.mfma) {
            (ValuFma(p), false) if p == w.precision => w.flops / 128,
            (MfmaMops(p), true) if p == w.precision => w.flops / 512,
            _ => 0,
        }
    }

    /// Read requests of `size` bytes: reads go in the largest request the architecture
    /// counts apart (128 bytes, 64 on gfx90a), the rest in 32-byte requests.
    fn reads(&self, size: u32) -> u64 {
        let big = self.read_request_bytes();
        let r = self.work.read_bytes;
        if size == big {
            r / u64::from(big)
        } else if size == 32 {
            (r % u64::from(big)).div_ceil(32)
        } else {
            0
        }
    }

    fn read_request_bytes(&self) -> u32 {
        match Arch::of(self.gpu) {
            Some(Arch::Gfx90a) => 64,
            _ => 128,
        }
    }

    /// Write requests: 64-byte ones, the rest in 32-byte ones.
    fn writes(&self, only_64: bool) -> u64 {
        let w = self.work.write_bytes;
        let big = w / 64;
        if only_64 {
            big
        } else {
            big + (w % 64).div_ceil(32)
        }
    }

    /// The total (summed over instances) of counter `def` for this dispatch.
    pub fn total(&self, def: &CounterDef) -> u64 {
        match def.source {
            Waves => self.waves(),
            Cycles => self.cycles(),
            ValuAdd(_) | ValuMul(_) | ValuTrans(_) => 0,
            s @ (ValuFma(_) | MfmaMops(_)) => self.math(s),
            Read(Some(size)) => self.reads(size),
            Read(None) => self.reads(self.read_request_bytes()) + self.reads(32),
            Bubble => self.reads(128),
            Write(Some(_)) => self.writes(true),
            Write(None) => self.writes(false),
            L2Hit => (self.reads(self.read_request_bytes()) + self.writes(true)).div_ceil(2),
            L2Miss => (self.reads(self.read_request_bytes()) + self.writes(true)) / 2,
        }
    }

    /// The per-instance values of counter `def`, in instance order: cycles are the same on
    /// every instance (each XCC counts its own clock), everything else is spread evenly with
    /// the remainder on the first instances, so the instances sum to [`Dispatch::total`] (×
    /// instances for cycles).
    pub fn instances(&self, def: &CounterDef) -> Vec<u64> {
        let n = instance_count(def, self.gpu).max(1);
        let total = self.total(def);
        if def.source == Cycles {
            return vec![total; n as usize];
        }
        (0..n)
            .map(|i| total / n + u64::from(i < total % n))
            .collect()
    }

    /// What a profiler summing the instances of `def` must report.
    pub fn summed(&self, def: &CounterDef) -> u64 {
        self.instances(def).iter().sum()
    }
}

/// One kernel dispatch on a GPU's timeline (absolute ns), for the device counting service.
#[derive(Debug, Clone, Copy)]
pub struct KernelSpan {
    pub start_ns: u64,
    pub end_ns: u64,
    pub grid_items: [u32; 3],
    pub block: [u32; 3],
    pub work: KernelWork,
}

/// Busy time of a GPU within `[from, to)`: the union of its kernels' intervals clipped to it
/// (overlapping kernels count once, as `GRBM_GUI_ACTIVE` does).
pub fn busy_ns(kernels: &[KernelSpan], from: u64, to: u64) -> u64 {
    let mut spans: Vec<(u64, u64)> = kernels
        .iter()
        .map(|k| (k.start_ns.max(from), k.end_ns.min(to)))
        .filter(|(s, e)| s < e)
        .collect();
    spans.sort_unstable();
    let (mut busy, mut reach) = (0, from);
    for (s, e) in spans {
        let s = s.max(reach);
        if e > s {
            busy += e - s;
            reach = e;
        }
    }
    busy
}

/// The total (summed over instances) a device-wide read of counter `def` on `gpu` returns at
/// `now` for counters started at `start` (the device counting service reads counters that run
/// from its context's start): `GRBM_COUNT` = elapsed cycles, `GRBM_GUI_ACTIVE` = busy cycles
/// (each per XCC, summed over the XCCs); every other counter = the sum of its per-dispatch
/// totals over the kernels that completed in `[start, now]`.
pub fn device_total(
    def: &CounterDef,
    gpu: &GpuSpec,
    kernels: &[KernelSpan],
    start: u64,
    now: u64,
) -> u64 {
    let per_xcc_cycles = |ns: u64| ns * u64::from(gpu.max_engine_clk_mhz) / 1000;
    let xcc = instance_count(def, gpu).max(1);
    match (def.source, def.name) {
        (Cycles, "GRBM_COUNT") => xcc * per_xcc_cycles(now.saturating_sub(start)),
        (Cycles, _) => xcc * per_xcc_cycles(busy_ns(kernels, start, now)),
        _ => kernels
            .iter()
            .filter(|k| k.start_ns >= start && k.end_ns <= now)
            .map(|k| {
                Dispatch {
                    gpu,
                    grid_items: k.grid_items,
                    block: k.block,
                    duration_ns: k.end_ns - k.start_ns,
                    work: &k.work,
                }
                .total(def)
            })
            .sum(),
    }
}

/// [`device_total`] split over the counter's instances (evenly, the remainder on the first
/// ones; cycle counters carry the same count on every XCC).
pub fn device_instances(
    def: &CounterDef,
    gpu: &GpuSpec,
    kernels: &[KernelSpan],
    start: u64,
    now: u64,
) -> Vec<u64> {
    let n = instance_count(def, gpu).max(1);
    let total = device_total(def, gpu, kernels, start, now);
    (0..n)
        .map(|i| total / n + u64::from(i < total % n))
        .collect()
}

/// The positions of instance `i` within `dims` (row-major, last dimension fastest).
pub fn positions(dims: &[(u64, u64)], mut i: u64) -> Vec<u64> {
    let mut pos = vec![0; dims.len()];
    for (k, &(_, n)) in dims.iter().enumerate().rev() {
        pos[k] = i % n.max(1);
        i /= n.max(1);
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mi300x() -> GpuSpec {
        GpuSpec {
            name: "gfx942".into(),
            wave_front_size: 64,
            num_xcc: 8,
            max_engine_clk_mhz: 2100,
            ..Default::default()
        }
    }

    #[test]
    fn waves_round_each_group_up_to_whole_waves() {
        let gpu = mi300x();
        let work = KernelWork::default();
        let d = Dispatch {
            gpu: &gpu,
            grid_items: [1000, 1, 1],
            block: [96, 1, 1],
            duration_ns: 1000,
            work: &work,
        };
        // 11 groups (the last partial) × 2 waves of 64 for 96 items.
        assert_eq!(d.waves(), 22);
        let sq = catalogue(Arch::Gfx942)
            .into_iter()
            .find(|c| c.name == "SQ_WAVES")
            .unwrap();
        assert_eq!(d.instances(&sq).len(), 32);
        assert_eq!(d.summed(&sq), 22);
    }

    #[test]
    fn device_reads_count_busy_cycles_once_and_elapsed_cycles() {
        let gpu = mi300x();
        let k = |s: u64, e: u64| KernelSpan {
            start_ns: s,
            end_ns: e,
            grid_items: [128, 1, 1],
            block: [64, 1, 1],
            work: KernelWork::default(),
        };
        // Two overlapping kernels (1000..3000 busy) and one after a gap (5000..6000).
        let ks = [k(1000, 2500), k(2000, 3000), k(5000, 6000)];
        assert_eq!(busy_ns(&ks, 0, 10_000), 3000);
        assert_eq!(busy_ns(&ks, 2500, 5500), 1000);
        let def = |name| {
            catalogue(Arch::Gfx942)
                .into_iter()
                .find(|c| c.name == name)
                .unwrap()
        };
        // 8 XCCs at 2100 MHz: 2.1 cycles per ns each.
        assert_eq!(
            device_total(&def("GRBM_GUI_ACTIVE"), &gpu, &ks, 0, 10_000),
            8 * 3000 * 2100 / 1000
        );
        assert_eq!(
            device_total(&def("GRBM_COUNT"), &gpu, &ks, 0, 10_000),
            8 * 10_000 * 2100 / 1000
        );
        // Waves of the kernels completed by then: 2 per kernel.
        assert_eq!(device_total(&def("SQ_WAVES"), &gpu, &ks, 0, 5500), 4);
        let inst = device_instances(&def("SQ_WAVES"), &gpu, &ks, 0, 10_000);
        assert_eq!((inst.len(), inst.iter().sum::<u64>()), (32, 6));
    }

    #[test]
    fn instance_ids_carry_counter_and_positions() {
        let dims = [(DIM_XCC, 8), (DIM_SHADER_ENGINE, 4)];
        let id = instance_id(7, &dims, &positions(&dims, 13));
        assert_eq!(counter_of_instance(id), 7);
        assert_eq!(positions(&dims, 13), vec![3, 1]);
        assert_eq!((id >> (2 * BITS_PER_DIM)) & 63, 1);
        assert_eq!(id & 63, 3);
    }

    #[test]
    fn the_fetch_size_formulas_recover_the_bytes_read() {
        let work = KernelWork {
            read_bytes: 1 << 20,
            write_bytes: 1 << 19,
            ..Default::default()
        };
        for (name, big) in [("gfx942", 128), ("gfx90a", 64)] {
            let gpu = GpuSpec {
                name: name.into(),
                ..mi300x()
            };
            let d = Dispatch {
                gpu: &gpu,
                grid_items: [64, 1, 1],
                block: [64, 1, 1],
                duration_ns: 1,
                work: &work,
            };
            assert_eq!(d.reads(big) * u64::from(big) + d.reads(32) * 32, 1 << 20);
            assert_eq!(d.writes(true) * 64, 1 << 19);
        }
    }
}
