//! The simulated host's clocks: each process run by `rocprof-sim` lives on a host of its own,
//! with its own `CLOCK_BOOTTIME` (how long that host has been up) and a wall clock that may be
//! off true time, so that several processes of one job look like ranks on different machines.
//!
//! Three clocks are involved:
//! * **the machine's**: what the kernel of the machine running the simulator says, read
//!   through libc's own `clock_gettime` (never the driver's stand-in, below);
//! * **true time**: the machine's wall clock; several simulated ranks on one machine share it,
//!   as the real instants of one job do;
//! * **the host's**: what a program on the simulated host reads. Its `CLOCK_BOOTTIME` is the
//!   SDK clock (`rocprofiler_get_timestamp`, every record's timestamps: the machine's boot
//!   clock plus a shift, plus the simulated time a replay thread has reached); its
//!   `CLOCK_REALTIME` keeps the offset to that clock it had at start (the host's wall clock
//!   error added), stepped once if asked. So a program's two clocks never drift apart by
//!   themselves, even while simulated time runs ahead of the machine's.
//!
//! The driver (`rocprof-sim`) defines `clock_gettime` itself, so every library of the process,
//! the tool included, reads the host's `CLOCK_BOOTTIME` and `CLOCK_REALTIME` through
//! [`rocprof_sim_host_clock`]; other clocks (`CLOCK_MONOTONIC`, what `Instant` and sleeps use)
//! are the machine's. In-process replays (`run_plan` in tests) have no stand-in: there only the
//! SDK clock and the records follow the host (its boot-clock shift), not the tool's wall clock.
//!
//! Set per process through the environment (each may be a comma-separated list, one value per
//! rank, picked by the launcher's rank variable):
//! * `ROCPROF_SIM_BOOTTIME`: the host's `CLOCK_BOOTTIME` when the process starts (`3d`, `72h`,
//!   `259200s`, or ns); default the machine's;
//! * `ROCPROF_SIM_WALL_OFFSET`: how far the host's wall clock is ahead of true time
//!   (`+50ms`, `-1.5s`); default 0;
//! * `ROCPROF_SIM_WALL_STEP`: `AT:BY`, the host's wall clock steps by `BY` (signed) when the
//!   simulated time reaches `AT` after the replay's start (an NTP step mid-run);
//! * `ROCPROF_SIM_START_AT`: the true instant (Unix ns on the machine's wall clock) at which the
//!   replay's simulated time 0 lies: the driver waits for it, and ranks given one instant run
//!   their plans from the same true instant whatever their start-up took.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The machine's `clock_gettime`, resolved in libc itself: the driver's `clock_gettime` comes
/// first in the process's symbol lookup and answers with the host's clocks, which are computed
/// from this.
type ClockGettime = unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int;

fn libc_clock_gettime() -> Option<ClockGettime> {
    static F: OnceLock<Option<ClockGettime>> = OnceLock::new();
    *F.get_or_init(|| {
        // SAFETY: dlopen with a NUL-terminated name and RTLD_NOLOAD only returns the handle of
        // an already loaded libc (never loads anything); dlsym on that handle with a
        // NUL-terminated name finds libc's own definition.
        let sym = unsafe {
            let h = libc::dlopen(c"libc.so.6".as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY);
            if h.is_null() {
                return None;
            }
            libc::dlsym(h, c"clock_gettime".as_ptr())
        };
        // SAFETY: the symbol is libc's `clock_gettime`, of exactly this type.
        (!sym.is_null())
            .then(|| unsafe { std::mem::transmute::<*mut libc::c_void, ClockGettime>(sym) })
    })
}

/// The machine's clock `id` in ns (0 if it cannot be read).
pub fn machine_ns(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let rc = match libc_clock_gettime() {
        // SAFETY: `f` is libc's clock_gettime; `ts` is a valid, writable timespec.
        Some(f) => unsafe { f(id, &mut ts) },
        // SAFETY: the raw system call with a valid, writable timespec.
        None => unsafe { libc::syscall(libc::SYS_clock_gettime, id, &mut ts) as libc::c_int },
    };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A step of the host's wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct WallStep {
    /// Simulated ns after the replay's start at which the step happens.
    pub at_ns: u64,
    /// Signed ns the wall clock moves by.
    pub by_ns: i64,
}

/// What the environment asked for, as the ground truth reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct HostClockConfig {
    /// The host's `CLOCK_BOOTTIME` at the process's start (`None`: the machine's).
    pub boottime_at_start_ns: Option<u64>,
    /// The host's wall clock minus true time.
    pub wall_offset_ns: i64,
    pub wall_step: Option<WallStep>,
    /// True instant (Unix ns) of the replay's simulated time 0.
    pub start_at_unix_ns: Option<u64>,
}

/// The host model: the configuration and what was measured when it was set up.
#[derive(Debug)]
struct Host {
    config: HostClockConfig,
    /// The host's boot clock minus the machine's.
    boot_shift: i64,
    /// The host's wall clock minus its boot clock, as set up (before any step).
    wall_minus_boot: i64,
}

static HOST: OnceLock<Host> = OnceLock::new();

/// The SDK clock (host `CLOCK_BOOTTIME`) of plan time 0 once a replay has fixed it (0 before):
/// where a wall step's time counts from.
static REPLAY_BASE: AtomicU64 = AtomicU64::new(0);

fn host() -> &'static Host {
    HOST.get_or_init(|| Host::new(HostClockConfig::default()))
}

impl Host {
    fn new(config: HostClockConfig) -> Host {
        // The machine's two clocks read side by side, the pair with the shortest bracket.
        let mut best = (u64::MAX, 0i128);
        for _ in 0..5 {
            let a = machine_ns(libc::CLOCK_BOOTTIME);
            let w = machine_ns(libc::CLOCK_REALTIME);
            let b = machine_ns(libc::CLOCK_BOOTTIME);
            let span = b.saturating_sub(a);
            if span < best.0 {
                best = (span, i128::from(w) - i128::from(a) - i128::from(span / 2));
            }
        }
        let machine_boot = machine_ns(libc::CLOCK_BOOTTIME);
        let boot_shift = config
            .boottime_at_start_ns
            .map_or(0, |b| clamp_i64(i128::from(b) - i128::from(machine_boot)));
        let wall_minus_boot =
            clamp_i64(best.1 - i128::from(boot_shift) + i128::from(config.wall_offset_ns));
        Host {
            config,
            boot_shift,
            wall_minus_boot,
        }
    }
}

fn clamp_i64(v: i128) -> i64 {
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

fn add(t: u64, d: i64) -> u64 {
    u64::try_from(i128::from(t) + i128::from(d)).unwrap_or(0)
}

/// Sets the host model from the environment; the driver calls it once, before anything else
/// reads a clock. An error names the variable and what is wrong.
pub fn configure_from_env() -> Result<(), String> {
    let rank = launcher_rank();
    let var = |name: &str| -> Result<Option<String>, String> {
        let Ok(v) = std::env::var(name) else {
            return Ok(None);
        };
        pick_for_rank(name, &v, rank).map(Some)
    };
    let mut config = HostClockConfig::default();
    if let Some(v) = var("ROCPROF_SIM_BOOTTIME")? {
        let ns = parse_duration(&v).map_err(|e| format!("ROCPROF_SIM_BOOTTIME={v}: {e}"))?;
        if ns <= 0 {
            return Err(format!("ROCPROF_SIM_BOOTTIME={v}: must be above 0"));
        }
        config.boottime_at_start_ns = Some(ns as u64);
    }
    if let Some(v) = var("ROCPROF_SIM_WALL_OFFSET")? {
        config.wall_offset_ns =
            parse_duration(&v).map_err(|e| format!("ROCPROF_SIM_WALL_OFFSET={v}: {e}"))?;
    }
    if let Some(v) = var("ROCPROF_SIM_WALL_STEP")? {
        let (at, by) = v.split_once(':').ok_or(format!(
            "ROCPROF_SIM_WALL_STEP={v}: expected AT:BY, e.g. 12h:+100ms"
        ))?;
        let at = parse_duration(at).map_err(|e| format!("ROCPROF_SIM_WALL_STEP={v}: {e}"))?;
        let by = parse_duration(by).map_err(|e| format!("ROCPROF_SIM_WALL_STEP={v}: {e}"))?;
        if at < 0 {
            return Err(format!(
                "ROCPROF_SIM_WALL_STEP={v}: AT must not be negative"
            ));
        }
        config.wall_step = Some(WallStep {
            at_ns: at as u64,
            by_ns: by,
        });
    }
    if let Some(v) = var("ROCPROF_SIM_START_AT")? {
        config.start_at_unix_ns = Some(
            v.trim()
                .parse()
                .map_err(|_| format!("ROCPROF_SIM_START_AT={v}: expected Unix ns"))?,
        );
    }
    HOST.set(Host::new(config))
        .map_err(|_| "the host clock was read before it was set up".to_string())
}

/// The launcher's rank of this process (the first of the variables launchers export that is
/// a number), 0 without one.
fn launcher_rank() -> usize {
    [
        "RANK",
        "OMPI_COMM_WORLD_RANK",
        "SLURM_PROCID",
        "PMI_RANK",
        "PMIX_RANK",
    ]
    .iter()
    .find_map(|k| std::env::var(k).ok()?.trim().parse().ok())
    .unwrap_or(0)
}

/// One value of a comma-separated list, the one at `rank`; a single value serves every rank.
fn pick_for_rank(name: &str, v: &str, rank: usize) -> Result<String, String> {
    let values: Vec<&str> = v.split(',').map(str::trim).collect();
    if values.len() == 1 {
        return Ok(values[0].to_string());
    }
    values.get(rank).map(|s| s.to_string()).ok_or(format!(
        "{name}={v}: {} values, none for rank {rank}",
        values.len()
    ))
}

/// A signed duration in ns: a number (ns) or a number with a unit `ns`, `us`, `ms`, `s`, `m`,
/// `h` or `d`; a leading `+` or `-`; a decimal fraction allowed (`1.5s`).
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: u128 = match unit.trim() {
        "" | "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        u => return Err(format!("unknown unit `{u}` (ns, us, ms, s, m, h, d)")),
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty() {
        return Err("expected a number".into());
    }
    let bad = || "expected a number".to_string();
    let int: u128 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| bad())?
    };
    let mut ns = int.checked_mul(scale).ok_or("too large")?;
    if !frac.is_empty() {
        let digits: u32 = frac.len().try_into().map_err(|_| bad())?;
        let f: u128 = frac.parse().map_err(|_| bad())?;
        let den = 10u128.checked_pow(digits).ok_or("too many decimals")?;
        ns += f * scale / den;
    }
    let ns = i64::try_from(ns).map_err(|_| "too large".to_string())?;
    Ok(if neg { -ns } else { ns })
}

/// What the environment asked for.
pub fn config() -> HostClockConfig {
    host().config.clone()
}

/// The host's `CLOCK_BOOTTIME` on the machine's clock alone (no simulated time).
pub fn host_boottime_ns() -> u64 {
    add(machine_ns(libc::CLOCK_BOOTTIME), host().boot_shift)
}

/// Where a replay's simulated time 0 lies: the host boot clock's value then, and the true
/// instant (Unix ns). With `ROCPROF_SIM_START_AT`, that instant, which may lie ahead
/// ([`wait_for_start`] waits for it); else now.
pub fn replay_base() -> (u64, u64) {
    let boot = host_boottime_ns();
    let wall = machine_ns(libc::CLOCK_REALTIME);
    let (boot, at) = match host().config.start_at_unix_ns {
        Some(at) => (
            u64::try_from(i128::from(boot) + i128::from(at) - i128::from(wall)).unwrap_or(0),
            at,
        ),
        None => (boot, wall),
    };
    REPLAY_BASE.store(boot, Ordering::Release);
    (boot, at)
}

/// Sleeps until the machine's wall clock reaches `ROCPROF_SIM_START_AT` (at once without it);
/// says so when that instant had already passed.
pub fn wait_for_start() {
    let Some(at) = host().config.start_at_unix_ns else {
        return;
    };
    let now = machine_ns(libc::CLOCK_REALTIME);
    if now > at {
        eprintln!(
            "rocprof-sim: ROCPROF_SIM_START_AT was {:.3} ms ago when the replay could begin",
            (now - at) as f64 / 1e6
        );
        return;
    }
    std::thread::sleep(std::time::Duration::from_nanos(at - now));
}

/// Whether clock `id` is one of the host's (else the machine's is read).
pub fn is_host_clock(id: libc::clockid_t) -> bool {
    matches!(
        id,
        libc::CLOCK_BOOTTIME | libc::CLOCK_REALTIME | libc::CLOCK_REALTIME_COARSE
    )
}

/// The host's clock `id` at the SDK clock's `sdk_now` (host `CLOCK_BOOTTIME` and
/// `CLOCK_REALTIME`), `None` for any other clock.
pub fn host_clock_ns(id: libc::clockid_t, sdk_now: u64) -> Option<u64> {
    match id {
        libc::CLOCK_BOOTTIME => Some(sdk_now),
        libc::CLOCK_REALTIME | libc::CLOCK_REALTIME_COARSE => {
            let h = host();
            let mut wall = add(sdk_now, h.wall_minus_boot);
            if let Some(step) = h.config.wall_step {
                let base = REPLAY_BASE.load(Ordering::Acquire);
                if base != 0 && sdk_now >= base.saturating_add(step.at_ns) {
                    wall = add(wall, step.by_ns);
                }
            }
            Some(wall)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_units_signs_and_fractions() {
        assert_eq!(parse_duration("50ms"), Ok(50_000_000));
        assert_eq!(parse_duration("-50ms"), Ok(-50_000_000));
        assert_eq!(parse_duration("+1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("3d"), Ok(259_200_000_000_000));
        assert_eq!(parse_duration("12"), Ok(12));
        assert_eq!(parse_duration(".25us"), Ok(250));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("ms").is_err());
        assert!(parse_duration("200000d").is_err());
    }

    #[test]
    fn a_list_gives_each_rank_its_value() {
        assert_eq!(pick_for_rank("X", "+50ms", 3), Ok("+50ms".into()));
        assert_eq!(pick_for_rank("X", "1s, 2s ,3s", 1), Ok("2s".into()));
        let e = pick_for_rank("X", "1s,2s", 2).unwrap_err();
        assert!(e.contains("none for rank 2"), "{e}");
    }

    #[test]
    fn the_host_wall_clock_keeps_its_offset_to_the_sdk_clock() {
        let h = Host::new(HostClockConfig {
            boottime_at_start_ns: Some(3 * 86_400_000_000_000),
            wall_offset_ns: 50_000_000,
            ..HostClockConfig::default()
        });
        let boot = add(machine_ns(libc::CLOCK_BOOTTIME), h.boot_shift);
        // The host has been up three days, give or take the moments since.
        assert!(
            boot.abs_diff(3 * 86_400_000_000_000) < 10_000_000_000,
            "{boot}"
        );
        let wall = add(boot, h.wall_minus_boot);
        let machine_wall = machine_ns(libc::CLOCK_REALTIME);
        let ahead = i128::from(wall) - i128::from(machine_wall);
        assert!((ahead - 50_000_000).abs() < 5_000_000, "{ahead}");
    }
}
