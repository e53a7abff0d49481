//! Names: the run's directory, this process's file, the launchers' job ids and ranks, and the
//! profiler service's address.

use std::ffi::OsString;

use super::show::shown_str;

/// The most bytes of one file or directory name (`NAME_MAX` on Linux file systems).
pub const NAME_MAX: usize = 255;
/// The most a run directory's name gets appended: `_attach` and a session number, or `_w` and
/// a window number (a `u32`, at most 10 digits).
const RUN_SUFFIX_MAX: usize = "_attach".len() + 10;
/// The longest run name: with what the tool appends, still one directory name.
pub const RUN_NAME_MAX_BYTES: usize = NAME_MAX - RUN_SUFFIX_MAX;
/// What the writer puts around a file's host part in the longest name it makes, its
/// temporary file `.<host>.xplane.pb.tmp.<pid>.<u128>` (`xplane::file`): 1 + 15 + 10 + 1 + 39.
const FILE_NAME_OVERHEAD: usize = 66;
/// The most bytes of a file-name template's own text (its tokens aside).
pub const FILE_TEMPLATE_MAX_BYTES: usize = NAME_MAX - FILE_NAME_OVERHEAD;

/// The one rule for run names, applied by the tool (`ROCPROF_XPLANE_RUN_NAME`) and the CLI
/// (`--run-name`) alike: one directory name, not a path, short enough that the names the tool
/// makes from it (`<run>_w0001`, `<run>_attach02`) are still names. Other characters are kept
/// here and made safe for the file system when the directory is named
/// (`xplane::file::run_dir_name`: `a:b` is written as `a_b`).
pub fn check_run_name(v: &str) -> Result<String, String> {
    let v = v.trim();
    if v.is_empty() || v.contains('/') || v == "." || v == ".." {
        Err("must be a single directory name".into())
    } else if v.len() > RUN_NAME_MAX_BYTES {
        Err(format!(
            "is {} bytes; at most {RUN_NAME_MAX_BYTES}, so that with what the tool appends (up to {RUN_SUFFIX_MAX}) it is still one directory name of at most {NAME_MAX}",
            v.len()
        ))
    } else {
        Ok(v.to_string())
    }
}

/// Tokens of `ROCPROF_XPLANE_OUTPUT_FILE` (rocprofv3's `-o` spelling), each with the
/// environment variables that give it, in order (`%hostname%` and `%pid%` come from the
/// process itself).
pub const RANK_VARS: &[&str] = &[
    "RANK",
    "OMPI_COMM_WORLD_RANK",
    "SLURM_PROCID",
    "PMI_RANK",
    "PMIX_RANK",
];
pub const LOCAL_RANK_VARS: &[&str] = &[
    "LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "SLURM_LOCALID",
    "MPI_LOCALRANKID",
];

/// Checks a file-name template: one path component (no `/`), only known `%…%` tokens, and
/// its own text short enough for a file name once the writer's parts are added.
pub fn check_file_template(v: &str) -> Result<String, String> {
    let v = v.trim().trim_end_matches(".xplane.pb");
    if v.is_empty() || v.contains('/') || v == "." || v == ".." {
        return Err("expected one file name (no '/'), e.g. %hostname%.rank%rank%".into());
    }
    let mut rest = v;
    let mut literal = 0;
    while let Some(i) = rest.find('%') {
        literal += i;
        let after = &rest[i + 1..];
        let j = after.find('%').ok_or("a '%' without its closing '%'")?;
        let token = &after[..j];
        let known = matches!(token, "hostname" | "pid" | "ppid" | "rank" | "local_rank")
            || token
                .strip_prefix("env{")
                .and_then(|t| t.strip_suffix('}'))
                .is_some_and(|n| !n.is_empty());
        if !known {
            return Err(format!(
                "unknown token {} (known: %hostname%, %pid%, %ppid%, %rank%, %local_rank%, %env{{NAME}}%)",
                shown_str(&format!("%{token}%"))
            ));
        }
        rest = &after[j + 1..];
    }
    literal += rest.len();
    if literal > FILE_TEMPLATE_MAX_BYTES {
        return Err(format!(
            "its text is {literal} bytes besides its tokens; at most {FILE_TEMPLATE_MAX_BYTES}, so that with what the writer adds (up to {FILE_NAME_OVERHEAD}) it is still a file name of at most {NAME_MAX}"
        ));
    }
    Ok(v.to_string())
}

/// The file's host part from a checked template: `%rank%` / `%local_rank%` without a launcher
/// variable become `0`, an unset `%env{NAME}%` becomes empty; `/` in a value becomes `_`.
pub fn expand_file_name(
    template: &str,
    hostname: &str,
    pid: u32,
    lookup: impl Fn(&str) -> Option<String>,
) -> String {
    let first = |vars: &[&str]| {
        vars.iter()
            .find_map(|k| lookup(k).filter(|v| !v.trim().is_empty()))
            .unwrap_or_else(|| "0".into())
    };
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let Some(j) = after.find('%') else {
            out.push_str(&rest[i..]);
            rest = "";
            break;
        };
        let token = &after[..j];
        let value = match token {
            "hostname" => hostname.to_string(),
            "pid" => pid.to_string(),
            // SAFETY: getppid has no preconditions and cannot fail.
            "ppid" => unsafe { libc::getppid() }.to_string(),
            "rank" => first(RANK_VARS),
            "local_rank" => first(LOCAL_RANK_VARS),
            t => t
                .strip_prefix("env{")
                .and_then(|t| t.strip_suffix('}'))
                .and_then(&lookup)
                .unwrap_or_default(),
        };
        out.push_str(&value.replace('/', "_"));
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    out
}

/// The launcher's local rank of this process (`torchrun`, Open MPI, Slurm, MPICH/Intel MPI):
/// the first of [`LOCAL_RANK_VARS`] that is set and a number, and those set before it that are
/// not numbers (variable and value as shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalRank {
    pub found: Option<(&'static str, u32)>,
    pub not_numbers: Vec<(&'static str, String)>,
}

pub fn local_rank(lookup: &dyn Fn(&str) -> Option<OsString>) -> LocalRank {
    let mut not_numbers = Vec::new();
    for &var in LOCAL_RANK_VARS {
        let Some(v) = lookup(var) else { continue };
        let v = v.to_string_lossy();
        if v.trim().is_empty() {
            continue;
        }
        match v.trim().parse::<u32>() {
            Ok(n) => {
                return LocalRank {
                    found: Some((var, n)),
                    not_numbers,
                }
            }
            Err(_) => not_numbers.push((var, shown_str(&v))),
        }
    }
    LocalRank {
        found: None,
        not_numbers,
    }
}

impl LocalRank {
    /// `LOCAL_RANK="abc" is not a number` for each variable passed over.
    fn passed_over(&self) -> String {
        self.not_numbers
            .iter()
            .map(|(var, v)| format!("{var}={v} is not a number"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The line saying that a variable set before the rank used is not a number, if one is.
    pub fn note(&self) -> Option<String> {
        let (var, n) = self.found?;
        (!self.not_numbers.is_empty())
            .then(|| format!("{}; the local rank is {var}={n}", self.passed_over()))
    }
}

/// `ROCPROF_XPLANE_SERVER` as written: `port` (127.0.0.1), `host:port` or `[v6]:port`; port 0
/// lets the system choose (the bound address is logged); `PORT+rank` adds the launcher's local
/// rank, so one setting serves every rank of a node. Names are resolved when the service starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    pub host: Option<String>,
    pub port: u16,
    pub plus_rank: bool,
}

impl Address {
    pub fn parse(v: &str) -> Result<Address, String> {
        let v = v.trim();
        let (host, port) = match v.rsplit_once(':') {
            Some((h, p)) if !p.contains(']') => (Some(h), p),
            _ => (None, v),
        };
        let (port, plus_rank) = match port.strip_suffix("+rank") {
            Some(p) => (p, true),
            None => (port, false),
        };
        let port = port.parse::<u16>().map_err(|_| {
            format!(
                "port {} is not a number below 65536 (forms: port, host:port, [v6]:port, PORT+rank)",
                shown_str(port)
            )
        })?;
        if let Some(host) = host {
            if host.is_empty() || host.contains('/') {
                return Err("the host part is empty or holds '/'".into());
            }
            if host.contains(':') && !(host.starts_with('[') && host.ends_with(']')) {
                return Err("an IPv6 address goes in brackets: [::1]:port".into());
            }
        }
        Ok(Address {
            host: host.map(str::to_string),
            port,
            plus_rank,
        })
    }

    /// `host:port`, the local rank added for `PORT+rank`.
    pub fn resolve(&self, rank: &LocalRank) -> Result<String, String> {
        let mut port = self.port;
        if self.plus_rank {
            let Some((_, rank)) = rank.found else {
                return Err(if rank.not_numbers.is_empty() {
                    format!(
                        "PORT+rank, but no local rank is set ({})",
                        LOCAL_RANK_VARS.join(", ")
                    )
                } else {
                    format!("PORT+rank, but {}", rank.passed_over())
                });
            };
            port = u16::try_from(u32::from(port) + rank)
                .ok()
                .filter(|&p| p > 0 && port > 0)
                .ok_or(format!("port {port} + local rank {rank} is not a port"))?;
        }
        Ok(match &self.host {
            None => format!("127.0.0.1:{port}"),
            Some(host) => format!("{host}:{port}"),
        })
    }
}

/// `ROCPROF_XPLANE_SERVER`'s address for the local rank given; see [`Address`].
pub fn check_server_address(v: &str, local_rank: Option<u32>) -> Result<String, String> {
    let rank = LocalRank {
        found: local_rank.map(|n| ("LOCAL_RANK", n)),
        not_numbers: Vec::new(),
    };
    Address::parse(v)?.resolve(&rank)
}

/// Job identifiers that launchers export to every process of one job, in order of preference, with
/// the prefix of the run name they give. With one of them set, the ranks of an MPI/Slurm/torchrun
/// job land in one run directory (one xprof profile, one host per process) with no setup at all.
pub const JOB_ID_VARS: &[(&str, &str)] = &[
    ("SLURM_JOB_ID", "slurm"),
    ("PMIX_NAMESPACE", "pmix"),
    ("OMPI_MCA_orte_ess_jobid", "ompi"),
    ("PBS_JOBID", "pbs"),
    ("LSB_JOBID", "lsf"),
    ("FLUX_JOB_ID", "flux"),
    ("TORCHELASTIC_RUN_ID", "torchrun"),
];

/// The default run name shared by every process of a launcher's job, e.g. `slurm_4242.0`
/// (job 4242, step 0), or `None` outside any known launcher. Characters that cannot appear in
/// a directory name are replaced by `_`.
pub fn job_run_name(lookup: impl Fn(&str) -> Option<String>) -> Option<String> {
    let clean = |v: &str| -> String {
        v.trim()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    JOB_ID_VARS.iter().find_map(|(var, label)| {
        let id = clean(&lookup(var)?);
        // torchrun's default rendezvous id is the literal "none": not a job identity.
        if id.is_empty() || id.chars().all(|c| c == '.') || id == "none" {
            return None;
        }
        let step = if *var == "SLURM_JOB_ID" {
            lookup("SLURM_STEP_ID")
                .map(|s| clean(&s))
                .filter(|s| !s.is_empty())
        } else {
            None
        };
        let name = match step {
            Some(step) => format!("{label}_{id}.{step}"),
            None => format!("{label}_{id}"),
        };
        // A job id too long for a run name is no run name: the clock gives it then.
        check_run_name(&name).ok()
    })
}

/// `YYYY_MM_DD_HH_MM_SS` in UTC, the run-directory name xprof's own profiler uses.
pub fn run_name_for(unix_s: u64) -> String {
    let days = (unix_s / 86_400) as i64;
    let secs = unix_s % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}_{m:02}_{d:02}_{:02}_{:02}_{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}
