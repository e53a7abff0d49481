//! The job clock: one time axis for every process of a job, so that the hosts xprof shows side
//! by side line up as they ran.
//!
//! xprof's trace viewer places an event at `XLine.timestamp_ns * 1000 + XEvent.offset_ps`
//! (int64 picoseconds) and, when several hosts are selected, merges their events as they are:
//! nothing is shifted per host, and neither `profile_start_time` nor the host names move
//! anything. An event before 0 is dropped, and past `i64::MAX` ps (about 106.75 days) the sum
//! wraps. So every process of one job must count its times from one instant, the same for all
//! of them, less than 106 days before its last event.
//!
//! Every rocprofiler-sdk record is stamped on `CLOCK_BOOTTIME`, which on a cluster differs
//! between hosts by days: only the wall clock is shared. A profile is therefore written on the
//! *job clock*, nanoseconds since the job's *origin*, a wall-clock instant that every process
//! of the job derives alike from a *job time* ([`origin_for`]); each process reaches it from
//! its boot clock through the boot/wall pairs it read ([`ClockPair`]), corrected by an
//! estimate of its host's offset to a reference where the job gave one ([`OffsetEstimate`]),
//! and [`JobClock`] is that map for one profile.

/// Nanoseconds in a day.
pub const DAY_NS: u64 = 86_400_000_000_000;

/// How far the origin lies at least before the job time: room for ranks whose clocks are
/// behind the one that gave the job time, for records a little before a process's start, and
/// for offset corrections, none of which may fall before the origin.
pub const MARGIN_NS: u64 = 3_600_000_000_000;

/// The furthest an event may lie after the origin: `i64::MAX` picoseconds, xprof's range
/// (about 106.75 days).
pub const RANGE_NS: u64 = (i64::MAX / 1000) as u64;

/// The job's origin for a job time (both Unix ns): 00:00 UTC of the day that holds
/// `job_time - MARGIN_NS`. So it lies 1 to 25 hours before the job time, and a run may last
/// about 105 days from the job time before its times leave xprof's range; a process's times
/// then read as the time of day (UTC) it ran at, plus a day after the first midnight.
///
/// Every process given the same job time gets the same origin. Processes that each use their
/// own start as the job time get the same origin unless their starts lie on either side of
/// 01:00:00 UTC (the day's boundary moved by the margin); that is why a job time shared by the
/// whole job (given by the launcher, a capture's start time, or the clock reference) is used
/// where there is one.
pub fn origin_for(job_time_unix_ns: u64) -> u64 {
    let t = job_time_unix_ns.saturating_sub(MARGIN_NS);
    t - t % DAY_NS
}

/// Where a process's job time came from, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobTimeSource {
    /// Given to every process of the job (`ROCPROF_XPLANE_JOB_START`, which `rocprof-xplane
    /// run` sets for everything it starts).
    Given,
    /// The job's clock reference told it (the reference's own origin).
    Reference,
    /// The start time a capture client sent (xprof sends one to every host of a capture).
    CaptureStart,
    /// This process's own start: shared with the other processes only as far as their starts
    /// lie on the same side of the rule's boundary.
    OwnStart,
}

impl JobTimeSource {
    /// Its number in the clock exchange's reply.
    pub fn code(self) -> u8 {
        match self {
            JobTimeSource::Given => 0,
            JobTimeSource::Reference => 1,
            JobTimeSource::CaptureStart => 2,
            JobTimeSource::OwnStart => 3,
        }
    }

    pub fn from_code(code: u8) -> Option<JobTimeSource> {
        [
            JobTimeSource::Given,
            JobTimeSource::Reference,
            JobTimeSource::CaptureStart,
            JobTimeSource::OwnStart,
        ]
        .into_iter()
        .find(|s| s.code() == code)
    }

    /// How the profile names it.
    pub fn describe(self) -> &'static str {
        match self {
            JobTimeSource::Given => {
                "the job start given to every process (ROCPROF_XPLANE_JOB_START)"
            }
            JobTimeSource::Reference => "the job's clock reference",
            JobTimeSource::CaptureStart => "the capture's start time",
            JobTimeSource::OwnStart => "this process's start",
        }
    }
}

/// A job's origin and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub unix_ns: u64,
    pub source: JobTimeSource,
}

impl Origin {
    /// The origin of `job_time_unix_ns` from `source`, if a process that started at
    /// `own_start_unix_ns` can use it ([`Origin::adopt`]). `Err` says why not (the caller
    /// falls back to its own start, and says so).
    pub fn from_job_time(
        job_time_unix_ns: u64,
        source: JobTimeSource,
        own_start_unix_ns: u64,
        keep_ns: u64,
    ) -> Result<Origin, String> {
        Origin::adopt(
            origin_for(job_time_unix_ns),
            source,
            own_start_unix_ns,
            keep_ns,
        )
    }

    /// Origin `unix_ns` (another process's, the job's clock reference's), if a process that
    /// started at `own_start_unix_ns` can use it: at or before its start, and far enough
    /// before 106 days after it that a run of `keep_ns` more still fits.
    pub fn adopt(
        unix_ns: u64,
        source: JobTimeSource,
        own_start_unix_ns: u64,
        keep_ns: u64,
    ) -> Result<Origin, String> {
        if unix_ns > own_start_unix_ns {
            return Err(format!(
                "its origin would lie {:.3} s after this process's start",
                (unix_ns - own_start_unix_ns) as f64 / 1e9
            ));
        }
        let since = own_start_unix_ns - unix_ns;
        if since.saturating_add(keep_ns) > RANGE_NS {
            return Err(format!(
                "this process started {:.1} days after its origin, too late for xprof's 106-day range",
                since as f64 / DAY_NS as f64
            ));
        }
        Ok(Origin { unix_ns, source })
    }

    /// The origin for this process's own start (always usable).
    pub fn own(own_start_unix_ns: u64) -> Origin {
        Origin {
            unix_ns: origin_for(own_start_unix_ns),
            source: JobTimeSource::OwnStart,
        }
    }

    /// The origin of a capture that a client asked to start at `start_unix_ns` (xprof sends
    /// one start time to every host of a capture): the job's when this process has one shared
    /// with the job (given, or the reference's), else the start time's, so that the hosts of
    /// one capture count from one origin; a process that began at `own_start_unix_ns`.
    pub fn for_capture(self, start_unix_ns: u64, own_start_unix_ns: u64) -> Origin {
        if self.source != JobTimeSource::OwnStart || start_unix_ns == 0 {
            return self;
        }
        Origin::from_job_time(
            start_unix_ns,
            JobTimeSource::CaptureStart,
            own_start_unix_ns,
            DAY_NS,
        )
        .unwrap_or(self)
    }
}

/// The boot clock (the SDK's, `CLOCK_BOOTTIME`) and the wall clock read at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockPair {
    pub boot_ns: u64,
    pub wall_ns: u64,
    /// How far the wall reading may lie from the boot reading's instant: half the time between
    /// the two boot readings around it.
    pub error_ns: u64,
}

impl ClockPair {
    /// Reads boot, wall, boot a few times and keeps the tightest bracket, the wall reading
    /// paired with the middle of its two boot readings.
    pub fn read(boot: impl Fn() -> u64, wall: impl Fn() -> u64) -> ClockPair {
        let mut best: Option<ClockPair> = None;
        for _ in 0..5 {
            let a = boot();
            let w = wall();
            let b = boot().max(a);
            let pair = ClockPair {
                boot_ns: a + (b - a) / 2,
                wall_ns: w,
                error_ns: (b - a).div_ceil(2),
            };
            if best.is_none_or(|p| pair.error_ns < p.error_ns) {
                best = Some(pair);
            }
        }
        best.unwrap_or_default()
    }

    /// The wall clock minus the boot clock.
    pub fn wall_minus_boot(&self) -> i128 {
        i128::from(self.wall_ns) - i128::from(self.boot_ns)
    }
}

/// One exchange with the job's clock reference: this host's wall clock when the request left
/// and when the reply came, and the reference's wall clock in the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetSample {
    pub sent_ns: u64,
    pub reference_ns: u64,
    pub received_ns: u64,
}

/// This host's wall clock minus the reference's, estimated from exchanges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetEstimate {
    pub offset_ns: i64,
    /// The true offset lies within this of `offset_ns`, given that the reference read its
    /// clock between receiving the request and sending the reply: half the round trip.
    pub error_ns: u64,
    /// This host's wall clock at the exchange used.
    pub at_wall_ns: u64,
}

impl OffsetEstimate {
    /// From the exchange with the shortest round trip (the tightest bound); `None` without a
    /// usable one (a reply before its request: this host's clock stepped).
    pub fn from_samples(samples: &[OffsetSample]) -> Option<OffsetEstimate> {
        let best = samples
            .iter()
            .filter(|s| s.received_ns >= s.sent_ns)
            .min_by_key(|s| s.received_ns - s.sent_ns)?;
        let mid = i128::from(best.sent_ns) + i128::from(best.received_ns - best.sent_ns) / 2;
        let offset = mid - i128::from(best.reference_ns);
        Some(OffsetEstimate {
            offset_ns: i64::try_from(offset).ok()?,
            error_ns: (best.received_ns - best.sent_ns).div_ceil(2),
            at_wall_ns: u64::try_from(mid).ok()?,
        })
    }
}

/// How well a profile's times line up with the other processes' of its job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Alignment {
    /// Each host's wall clock as it was: as good as the hosts' clock synchronisation (NTP or
    /// PTP), which the profile cannot know.
    HostClocks,
    /// Corrected by this host's offset to the job's clock reference (`reference`), each time
    /// within `error_ns` of the reference's clock.
    Estimated {
        reference: String,
        offset_ns: i64,
        error_ns: u64,
    },
    /// This process is the job's clock reference (it answers at `reference`): the others are
    /// aligned to this host's clock.
    Reference { reference: String },
}

impl Alignment {
    /// The sentence the profile carries.
    pub fn describe(&self) -> String {
        match self {
            Alignment::HostClocks => "aligned by host clocks".to_string(),
            Alignment::Estimated {
                reference,
                offset_ns,
                error_ns,
            } => format!(
                "aligned to the clock of {reference}: this host's clock is {:+.3} ms off it, times within ±{:.3} ms",
                *offset_ns as f64 / 1e6,
                *error_ns as f64 / 1e6
            ),
            Alignment::Reference { reference } => format!(
                "the job's clock reference ({reference}): the other processes are aligned to this host's clock"
            ),
        }
    }
}

/// What a collection knows of its clocks beside its start and stop readings (`Collected`'s
/// `start_*`/`stop_*` fields): the job's origin, how exact those readings are, and this host's
/// offset to the job's clock reference then.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClockFacts {
    /// `None`: no job origin (a converted file with no wall clock): the profile counts from
    /// its own start.
    pub origin: Option<Origin>,
    pub start_error_ns: u64,
    pub stop_error_ns: u64,
    pub start_offset: Option<OffsetEstimate>,
    pub stop_offset: Option<OffsetEstimate>,
    /// The job's clock reference (its address), when one was asked.
    pub reference: Option<String>,
    /// This process is the job's clock reference (it answers on `reference`).
    pub is_reference: bool,
    /// The pair and offset at the start of the process's first profile
    /// ([`JobClock::anchored`]).
    pub anchor: Option<(ClockPair, Option<OffsetEstimate>)>,
}

impl ClockFacts {
    /// Facts of this collection followed by those of `later`, the next cut of the same
    /// process: the start's from this one, the end's from the later.
    pub fn absorb(&mut self, later: ClockFacts) {
        self.origin = self.origin.or(later.origin);
        self.stop_error_ns = later.stop_error_ns;
        self.stop_offset = later.stop_offset.or(self.stop_offset);
        self.start_offset = self.start_offset.or(later.start_offset);
        self.reference = self.reference.take().or(later.reference);
        self.is_reference |= later.is_reference;
        self.anchor = self.anchor.or(later.anchor);
    }
}

/// A point of the map: a boot-clock reading and its time on the job clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Point {
    boot_ns: u64,
    job_ns: i128,
    error_ns: u64,
}

/// The map from the boot clock to the job clock for one profile, through the pairs read at its
/// start and at its end, each moved by the offset estimated then (if any).
///
/// On Linux the boot and wall clocks run at one rate (NTP slews both); they part only when the
/// wall clock is stepped, and a host's wall clock parts from the reference's as the two hosts'
/// oscillators differ. Where the two points disagree by more than their errors, the map is the
/// line through them (a boot time before the start or after the end takes the nearest point's
/// offset), so the profile's start and end are each where the clocks said, and a time in
/// between is off by at most that disagreement, which [`JobClock::drift_ns`] reports; else
/// it is the start's offset alone, and intervals on the boot clock are kept exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobClock {
    pub origin: Origin,
    /// The pairs read at the profile's start and end, as read.
    pub start_pair: ClockPair,
    pub stop_pair: ClockPair,
    pub alignment: Alignment,
    start: Point,
    /// `None` when the end agrees with the start within their errors.
    stop: Option<Point>,
}

impl JobClock {
    /// The map of a profile that read `start` and `stop`, with this host's offsets to the
    /// reference estimated then (`None`: host clocks).
    pub fn new(
        origin: Origin,
        start: ClockPair,
        stop: ClockPair,
        start_offset: Option<OffsetEstimate>,
        stop_offset: Option<OffsetEstimate>,
    ) -> JobClock {
        JobClock::anchored(origin, start, stop, start_offset, stop_offset, None)
    }

    /// As [`JobClock::new`], for a profile of a process whose first profile started at
    /// `anchor` (its pair and offset then): where this profile's start agrees with the anchor's
    /// map within their errors, it takes the anchor's map there, so that the profiles of one
    /// process (capture windows, the whole run) keep the exact intervals of its boot clock
    /// between them, and only a step of the wall clock beyond the readings' errors moves one
    /// against another.
    pub fn anchored(
        origin: Origin,
        start: ClockPair,
        stop: ClockPair,
        start_offset: Option<OffsetEstimate>,
        stop_offset: Option<OffsetEstimate>,
        anchor: Option<(ClockPair, Option<OffsetEstimate>)>,
    ) -> JobClock {
        let point = |p: ClockPair, o: Option<OffsetEstimate>| Point {
            boot_ns: p.boot_ns,
            job_ns: i128::from(p.wall_ns)
                - i128::from(o.map_or(0, |o| o.offset_ns))
                - i128::from(origin.unix_ns),
            error_ns: p.error_ns + o.map_or(0, |o| o.error_ns),
        };
        let mut a = point(start, start_offset);
        let mut b = point(stop, stop_offset.or(start_offset));
        if let Some((pair, offset)) = anchor {
            // A point within the errors of the anchor's map takes it, and the anchor's error.
            let at = point(pair, offset);
            let shift = at.job_ns - i128::from(at.boot_ns);
            for p in [&mut a, &mut b] {
                let own = p.job_ns - i128::from(p.boot_ns);
                if (own - shift).abs() <= i128::from(p.error_ns + at.error_ns) {
                    p.job_ns = i128::from(p.boot_ns) + shift;
                    p.error_ns += at.error_ns;
                }
            }
        }
        let drift = (b.job_ns - a.job_ns) - (i128::from(b.boot_ns) - i128::from(a.boot_ns));
        let noise = i128::from(a.error_ns + b.error_ns);
        let parted = (b.boot_ns > a.boot_ns && drift.abs() > noise).then_some(b);
        JobClock {
            origin,
            start_pair: start,
            stop_pair: stop,
            alignment: Alignment::HostClocks,
            start: a,
            stop: parted,
        }
    }

    /// The map of a collection: its start and stop readings (boot, wall) and its facts;
    /// `None` without an origin or a wall reading.
    pub fn of(start: (u64, u64), stop: (u64, u64), facts: &ClockFacts) -> Option<JobClock> {
        let origin = facts.origin?;
        if start.1 == 0 {
            return None;
        }
        let pair = |(boot_ns, wall_ns): (u64, u64), error_ns| ClockPair {
            boot_ns,
            wall_ns,
            error_ns,
        };
        // A stop never read (0) is the start.
        let stop = if stop.1 == 0 { start } else { stop };
        let mut c = JobClock::anchored(
            origin,
            pair(start, facts.start_error_ns),
            pair(stop, facts.stop_error_ns),
            facts.start_offset,
            facts.stop_offset,
            facts.anchor,
        );
        match (&facts.reference, facts.stop_offset.or(facts.start_offset)) {
            (Some(reference), _) if facts.is_reference => {
                c.alignment = Alignment::Reference {
                    reference: reference.clone(),
                }
            }
            (Some(reference), Some(o)) => {
                c.alignment = Alignment::Estimated {
                    reference: reference.clone(),
                    offset_ns: o.offset_ns,
                    error_ns: c.error_ns(),
                }
            }
            _ => {}
        }
        Some(c)
    }

    /// How far the end's pair parts from the start's offset (0 within their errors): the
    /// most a time between them can be off, were the wall clock stepped at one instant.
    pub fn drift_ns(&self) -> i128 {
        self.stop.map_or(0, |b| {
            (b.job_ns - self.start.job_ns)
                - (i128::from(b.boot_ns) - i128::from(self.start.boot_ns))
        })
    }

    /// The error of the map at its points (pair readings and offset estimates).
    pub fn error_ns(&self) -> u64 {
        self.start.error_ns.max(self.stop.map_or(0, |b| b.error_ns))
    }

    /// The job-clock time of boot-clock time `boot_ns`, in ns (negative before the origin).
    pub fn job_ns(&self, boot_ns: u64) -> i128 {
        let a = self.start;
        let since = i128::from(boot_ns) - i128::from(a.boot_ns);
        let Some(b) = self.stop else {
            return a.job_ns + since;
        };
        let span = i128::from(b.boot_ns - a.boot_ns);
        let part = since.clamp(0, span);
        a.job_ns + since + self.drift_ns() * part / span
    }

    /// When the map is a shift (no drift): the job-clock time is the boot time plus this.
    pub fn shift_ns(&self) -> Option<i128> {
        self.stop
            .is_none()
            .then(|| self.start.job_ns - i128::from(self.start.boot_ns))
    }

    /// Whether boot times `first..=last` all land in xprof's range on the job clock.
    pub fn holds(&self, first_boot_ns: u64, last_boot_ns: u64) -> bool {
        self.job_ns(first_boot_ns) >= 0 && self.job_ns(last_boot_ns) <= i128::from(RANGE_NS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;
    const MS: u64 = 1_000_000;
    /// 2026-08-21T13:20:00Z.
    const T: u64 = 1_787_318_400 * S;

    #[test]
    fn the_origin_is_the_midnight_before_the_job_time_less_an_hour() {
        let o = origin_for(T);
        assert_eq!(o % DAY_NS, 0, "a midnight (UTC)");
        assert!(o <= T - MARGIN_NS && T - o < DAY_NS + MARGIN_NS);
        assert_eq!(
            origin_for(T + 5 * S),
            o,
            "ranks started seconds apart agree"
        );
        // Around midnight the margin keeps the day before: ranks on either side agree.
        let midnight = o + DAY_NS;
        assert_eq!(origin_for(midnight - S), origin_for(midnight + S));
        // The rule's boundary is 01:00 UTC: ranks on either side of it get origins a day apart.
        let one = midnight + MARGIN_NS;
        assert_eq!(origin_for(one - 1), o);
        assert_eq!(origin_for(one), midnight);
        // Processes started within the same second agree, whichever second.
        assert_eq!(origin_for(one), origin_for(one + S - 1));
    }

    #[test]
    fn a_job_time_after_the_start_or_too_long_ago_is_refused() {
        let own = T + 10 * S;
        let given = JobTimeSource::Given;
        let o = Origin::from_job_time(T, given, own, DAY_NS).unwrap();
        assert_eq!(o.unix_ns, origin_for(T));
        // Given a little after the start (clocks off by seconds): the margin holds it.
        assert!(Origin::from_job_time(own + 30 * S, given, own, DAY_NS).is_ok());
        let late = Origin::from_job_time(own + 2 * DAY_NS, given, own, DAY_NS);
        assert!(late.unwrap_err().contains("after this process's start"));
        let old = Origin::from_job_time(own - 120 * DAY_NS, given, own, DAY_NS);
        assert!(old.unwrap_err().contains("106-day range"));
        assert_eq!(Origin::own(own).unix_ns, origin_for(own));
        // Another process's origin is taken as it is.
        let reference = Origin::adopt(o.unix_ns, JobTimeSource::Reference, own, DAY_NS);
        assert_eq!(reference.unwrap().unix_ns, o.unix_ns);
        // A capture's start time gives the origin of a process without a shared one.
        let capture = Origin::own(own).for_capture(own + 60 * S, own);
        assert_eq!(capture.source, JobTimeSource::CaptureStart);
        assert_eq!(capture.unix_ns, origin_for(own + 60 * S));
        assert_eq!(o.for_capture(own + 60 * S, own), o, "a shared origin stays");
        assert_eq!(Origin::own(own).for_capture(0, own), Origin::own(own));
    }

    #[test]
    fn a_pair_keeps_its_tightest_bracket() {
        // Five tries; the second is the tightest (10 ns between its boot readings).
        let boots = [100, 300, 1000, 1010, 2000, 2500, 3000, 3400, 4000, 4900];
        let walls = [5_000, 6_005, 7_000, 8_000, 9_000];
        let (b, w) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        let next = |i: &std::cell::Cell<usize>, v: &[u64]| {
            i.set(i.get() + 1);
            v[i.get() - 1]
        };
        let p = ClockPair::read(|| next(&b, &boots), || next(&w, &walls));
        assert_eq!(
            p,
            ClockPair {
                boot_ns: 1005,
                wall_ns: 6_005,
                error_ns: 5
            }
        );
        assert_eq!(p.wall_minus_boot(), 5_000);
    }

    #[test]
    fn an_offset_comes_from_the_shortest_round_trip_and_is_within_its_error() {
        // This host is 50 ms ahead; requests take 30 µs, replies 10..400 µs.
        let offset = 50 * MS as i64;
        let samples: Vec<OffsetSample> = [(30, 400), (30, 10), (30, 90)]
            .iter()
            .enumerate()
            .map(|(i, &(up, down))| {
                let sent = T + i as u64 * MS;
                let at_reference = sent + up * 1000;
                OffsetSample {
                    sent_ns: sent,
                    reference_ns: (at_reference as i64 - offset) as u64,
                    received_ns: at_reference + down * 1000,
                }
            })
            .collect();
        let e = OffsetEstimate::from_samples(&samples).unwrap();
        assert_eq!(e.error_ns, 20_000, "half the 40 µs round trip");
        assert!((e.offset_ns - offset).unsigned_abs() <= e.error_ns, "{e:?}");
        assert_eq!(e.at_wall_ns, T + MS + 20_000);
        let stepped = OffsetSample {
            sent_ns: T,
            reference_ns: T,
            received_ns: T - 1,
        };
        assert_eq!(OffsetEstimate::from_samples(&[stepped]), None);
    }

    fn pair(boot: u64, wall: u64) -> ClockPair {
        ClockPair {
            boot_ns: boot,
            wall_ns: wall,
            error_ns: 50,
        }
    }

    #[test]
    fn without_drift_the_map_is_a_shift_that_keeps_intervals() {
        let origin = Origin::own(T);
        let boot0 = 3 * DAY_NS;
        // The end's offset differs by less than the errors: read noise, not drift.
        let c = JobClock::new(
            origin,
            pair(boot0, T),
            pair(boot0 + 10 * S, T + 10 * S + 60),
            None,
            None,
        );
        assert_eq!(c.drift_ns(), 0);
        let shift = c.shift_ns().unwrap();
        assert_eq!(shift, i128::from(T - origin.unix_ns) - i128::from(boot0));
        assert_eq!(c.job_ns(boot0 + 7), i128::from(T - origin.unix_ns) + 7);
        assert!(c.holds(boot0, boot0 + 30 * DAY_NS));
        assert!(!c.holds(boot0 - DAY_NS, boot0), "before the origin");
        assert!(!c.holds(boot0, boot0 + 110 * DAY_NS), "past xprof's range");
    }

    #[test]
    fn a_step_of_the_wall_clock_is_spread_between_the_readings() {
        let origin = Origin::own(T);
        let boot0 = 3 * DAY_NS;
        let hour = 3_600 * S;
        // The wall clock was stepped 100 ms forward during the hour.
        let c = JobClock::new(
            origin,
            pair(boot0, T),
            pair(boot0 + hour, T + hour + 100 * MS),
            None,
            None,
        );
        assert_eq!(c.drift_ns(), i128::from(100 * MS));
        assert_eq!(c.shift_ns(), None);
        let at = |b: u64| c.job_ns(b) - i128::from(T - origin.unix_ns);
        assert_eq!(at(boot0), 0, "the start where the clocks said");
        assert_eq!(at(boot0 + hour), i128::from(hour + 100 * MS), "and the end");
        assert_eq!(at(boot0 + hour / 2), i128::from(hour / 2 + 50 * MS));
        assert_eq!(
            at(boot0 - S),
            -(S as i128),
            "before the start: the start's offset"
        );
        assert_eq!(at(boot0 + hour + S), i128::from(hour + 100 * MS + S));
        // Monotonic: no event of a stream is put before the one it followed.
        let mut last = i128::MIN;
        for k in 0..=100 {
            let t = c.job_ns(boot0 + k * hour / 100);
            assert!(t > last);
            last = t;
        }
    }

    #[test]
    fn an_estimated_offset_moves_the_map_onto_the_reference_clock() {
        let origin = Origin::own(T);
        let est = |offset_ns: i64| OffsetEstimate {
            offset_ns,
            error_ns: 200_000,
            at_wall_ns: T,
        };
        // This host's wall clock is 50 ms ahead of the reference's.
        let c = JobClock::new(
            origin,
            pair(5 * S, T),
            pair(15 * S, T + 10 * S),
            Some(est(50 * MS as i64)),
            Some(est(50 * MS as i64 + 1_000)),
        );
        assert_eq!(c.drift_ns(), 0, "1 µs apart: within the 200 µs error");
        assert_eq!(
            c.job_ns(5 * S),
            i128::from(T - origin.unix_ns) - i128::from(50 * MS)
        );
        assert_eq!(c.error_ns(), 200_050);
        assert_eq!(
            Alignment::Estimated {
                reference: "10.0.0.1:6009".into(),
                offset_ns: 50 * MS as i64,
                error_ns: 200_050,
            }
            .describe(),
            "aligned to the clock of 10.0.0.1:6009: this host's clock is +50.000 ms off it, times within ±0.200 ms"
        );
        assert_eq!(Alignment::HostClocks.describe(), "aligned by host clocks");
    }

    /// A later window of a process whose start pair reads 30 ns off its first profile's map
    /// (within the readings' errors) takes that map: the windows keep the boot clock's exact
    /// intervals between them. One read 5 µs off (a step) keeps its own.
    #[test]
    fn a_window_takes_its_process_s_map_within_the_errors() {
        let origin = Origin::own(T);
        let anchor = Some((pair(S, T), None));
        let window = |off: u64| {
            JobClock::anchored(
                origin,
                pair(10 * S, T + 9 * S + off),
                pair(11 * S, T + 10 * S + off),
                None,
                None,
                anchor,
            )
        };
        let base = i128::from(T - origin.unix_ns);
        assert_eq!(window(30).job_ns(10 * S), base + i128::from(9 * S));
        assert_eq!(window(30).shift_ns(), Some(base - i128::from(S)));
        assert_eq!(
            window(5_000).job_ns(10 * S),
            base + i128::from(9 * S) + 5_000
        );
    }
}
