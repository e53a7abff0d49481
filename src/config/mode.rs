//! The run's mode: the settings that act on one another (`DISABLE`, `DOMAINS`, `SERVER`,
//! `CONTINUOUS`, the window rules, `WINDOW_MERGE`, `START_DELAY`, `DURATION`) resolved in one
//! function, [`resolve`], into one [`RunMode`]; the fields of `Config` that the rest of the
//! tool reads (`window`, `server`, `start_delay_ms`, …) are views of it.

use super::values::{Complaint, Read};
use super::{ConfigWarning, Domains, WindowRule, DEFAULT_MERGE_WINDOW_EVENTS, PREFIX};

/// How the run is recorded and written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunMode {
    /// Nothing is traced: the tool declines in `rocprofiler_configure`.
    Off(Off),
    /// `SERVER`: the profiler service records only what its clients ask for and sends it to
    /// them; nothing is written at exit.
    Served { address: String, continuous: bool },
    /// The default: windows of [`DEFAULT_MERGE_WINDOW_EVENTS`] records joined and written while
    /// the program runs, merged at exit into the run's one profile (also `WINDOW_MERGE=1`
    /// without a window rule).
    Streaming { span: Span },
    /// Held whole and written once: at exit (`WINDOW_MERGE=0`), or when a bounded capture
    /// ends (`START_DELAY`/`DURATION` without a window rule).
    Whole { span: Span },
    /// Windows cut by the user's rule, each its own profile, or merged at exit into one
    /// (`WINDOW_MERGE=1`).
    Windows {
        rule: Triggers,
        merge: bool,
        span: Span,
    },
}

/// Why nothing is traced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Off {
    /// `DISABLE=1`.
    Disabled,
    /// `DOMAINS=none`.
    NoDomains,
    /// `SERVER` is set to a value that cannot be used: the user asked for a service and not
    /// for a profile of the whole run, so none is made (one line says so).
    ServiceUnusable,
}

/// The part of the run that is recorded (`START_DELAY`, `DURATION`; 0 = unset).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    pub delay_ms: Option<u64>,
    pub duration_ms: Option<u64>,
}

impl Span {
    pub fn bounded(&self) -> bool {
        self.delay_ms.is_some() || self.duration_ms.is_some()
    }
}

/// What ends a window, as the user set it; any of them ends the current window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Triggers {
    /// `WINDOW_SECONDS`, in milliseconds.
    pub period_ms: Option<u64>,
    /// `WINDOW_EVENTS`.
    pub events: Option<u64>,
    /// `WINDOW_SIGNAL`.
    pub signal: Option<i32>,
    /// `WINDOW_RANGE` with `WINDOW_RANGE_EVERY`.
    pub range: Option<RangeRule>,
}

/// A window ends after every `every` closings of the roctx range `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeRule {
    pub name: String,
    pub every: u64,
}

impl Triggers {
    pub fn any(&self) -> bool {
        self.period_ms.is_some()
            || self.events.is_some()
            || self.signal.is_some()
            || self.range.is_some()
    }

    /// The variables set, by name, for messages.
    fn names(&self) -> Vec<&'static str> {
        [
            (self.period_ms.is_some(), "WINDOW_SECONDS"),
            (self.events.is_some(), "WINDOW_EVENTS"),
            (self.signal.is_some(), "WINDOW_SIGNAL"),
            (self.range.is_some(), "WINDOW_RANGE"),
        ]
        .into_iter()
        .filter_map(|(on, n)| on.then_some(n))
        .collect()
    }
}

/// The settings that decide the mode, as read (a refused value still holds its complaint,
/// finished here with what it comes to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeInputs {
    pub disable: bool,
    pub domains: Domains,
    pub triggers: Triggers,
    /// `WINDOW_RANGE_EVERY` was set without `WINDOW_RANGE`.
    pub range_every_alone: bool,
    pub merge: Read<bool>,
    pub span: Span,
    /// The address, the local rank added.
    pub server: Read<String>,
    pub continuous: bool,
}

/// `WINDOW_MERGE`'s default for these inputs, and why.
fn merge_default(i: &ModeInputs) -> (bool, &'static str) {
    if matches!(i.server, Read::Set(_)) {
        (false, "SERVER is set")
    } else if i.triggers.any() {
        (false, "a window rule is set")
    } else if i.span.bounded() {
        (false, "START_DELAY or DURATION is set")
    } else {
        (
            true,
            "no window rule, START_DELAY, DURATION or SERVER is set",
        )
    }
}

/// The run's mode from the settings that act on one another, and the lines about them:
/// - `DISABLE=1`, `DOMAINS=none`, or a `SERVER` that cannot be used: nothing is traced;
/// - `SERVER`: served; window rules, `WINDOW_MERGE`, `START_DELAY` and `DURATION` are ignored
///   (a line names them); `CONTINUOUS` needs it;
/// - a window rule: its windows, merged if `WINDOW_MERGE=1`;
/// - else `WINDOW_MERGE` decides between streaming (`1`) and held whole (`0`); unset, it is
///   streaming unless `START_DELAY` or `DURATION` bounds the capture.
pub fn resolve(i: ModeInputs) -> (RunMode, Vec<ConfigWarning>) {
    let mut warnings = Vec::new();
    let merge = settle_merge(&i, &mut warnings);
    let server = match &i.server {
        Read::Set(a) => Some(a.clone()),
        Read::Unset => None,
        Read::Bad(c) => {
            warnings.push(service_unusable(c.clone()));
            None
        }
    };
    let mode = choose(&i, merge, server);
    warnings.extend(without_effect(&i, &mode));
    (mode, warnings)
}

/// `WINDOW_MERGE` as set; a refused value's line names the default this run gets.
fn settle_merge(i: &ModeInputs, warnings: &mut Vec<ConfigWarning>) -> bool {
    let (default, because) = merge_default(i);
    match &i.merge {
        Read::Set(b) => *b,
        Read::Unset => default,
        Read::Bad(c) => {
            let d = u8::from(default);
            warnings.push(c.clone().using(format_args!("{d} ({because})")));
            default
        }
    }
}

/// The mode, in order of precedence: not traced, served, a window rule, `WINDOW_MERGE`.
fn choose(i: &ModeInputs, merge: bool, server: Option<String>) -> RunMode {
    if i.disable {
        RunMode::Off(Off::Disabled)
    } else if !i.domains.any() {
        RunMode::Off(Off::NoDomains)
    } else if matches!(i.server, Read::Bad(_)) {
        RunMode::Off(Off::ServiceUnusable)
    } else if let Some(address) = server {
        RunMode::Served {
            address,
            continuous: i.continuous,
        }
    } else if i.triggers.any() {
        RunMode::Windows {
            rule: i.triggers.clone(),
            merge,
            span: i.span,
        }
    } else if merge {
        RunMode::Streaming { span: i.span }
    } else {
        RunMode::Whole { span: i.span }
    }
}

/// The lines naming settings that `mode` leaves without effect.
fn without_effect(i: &ModeInputs, mode: &RunMode) -> Vec<ConfigWarning> {
    let mut out = Vec::new();
    if i.continuous && matches!(i.server, Read::Unset) {
        out.push(ConfigWarning(format!(
            "{PREFIX}CONTINUOUS needs {PREFIX}SERVER (snapshots are taken through it); continuous profiling is off"
        )));
    }
    if !matches!(mode, RunMode::Served { .. }) {
        if i.range_every_alone {
            out.push(ConfigWarning(format!(
                "{PREFIX}WINDOW_RANGE_EVERY is set without {PREFIX}WINDOW_RANGE; it is ignored"
            )));
        }
        return out;
    }
    let mut ignored = i.triggers.names();
    for (on, name) in [
        (i.range_every_alone, "WINDOW_RANGE_EVERY"),
        (i.merge.is_set(), "WINDOW_MERGE"),
        (i.span.delay_ms.is_some(), "START_DELAY"),
        (i.span.duration_ms.is_some(), "DURATION"),
    ] {
        if on {
            ignored.push(name);
        }
    }
    if !ignored.is_empty() {
        let names: Vec<String> = ignored.iter().map(|n| format!("{PREFIX}{n}")).collect();
        out.push(ConfigWarning(format!(
            "{PREFIX}SERVER is set: the profiler service decides what is captured, so {} {} ignored",
            names.join(", "),
            if names.len() == 1 { "is" } else { "are" }
        )));
    }
    out
}

/// What a `SERVER` that cannot be used comes to, a bad value or an address that cannot be
/// listened on (`server::start`) alike: the user asked for captures on demand, not for a
/// profile of the whole run, so none is made.
pub const NO_SERVICE: &str =
    "no profiler service, so nothing is recorded and no profile is written";

/// The line for a `SERVER` value that cannot be used.
pub fn service_unusable(c: Complaint) -> ConfigWarning {
    c.instead(format_args!(
        "{NO_SERVICE} (unset the variable to trace the whole run)"
    ))
}

impl RunMode {
    /// The windows the window thread cuts: the streaming pipeline's, or the user's rule.
    pub fn window_rule(&self) -> Option<WindowRule> {
        match self {
            RunMode::Streaming { .. } => Some(WindowRule {
                period_ms: None,
                events: Some(DEFAULT_MERGE_WINDOW_EVENTS),
                signal: None,
                range_every: None,
                merge: true,
                by_default: true,
            }),
            RunMode::Windows { rule, merge, .. } => Some(WindowRule {
                period_ms: rule.period_ms,
                events: rule.events,
                signal: rule.signal,
                range_every: rule.range.as_ref().map(|r| r.every),
                merge: *merge,
                by_default: false,
            }),
            _ => None,
        }
    }

    /// The roctx range whose end cuts a window.
    pub fn window_range(&self) -> Option<String> {
        match self {
            RunMode::Windows { rule, .. } => rule.range.as_ref().map(|r| r.name.clone()),
            _ => None,
        }
    }

    /// The recorded part of the run; the whole run where the tool does not decide it.
    pub fn span(&self) -> Span {
        match self {
            RunMode::Streaming { span }
            | RunMode::Whole { span }
            | RunMode::Windows { span, .. } => *span,
            RunMode::Off(_) | RunMode::Served { .. } => Span::default(),
        }
    }

    /// The profiler service's address.
    pub fn server(&self) -> Option<String> {
        match self {
            RunMode::Served { address, .. } => Some(address.clone()),
            _ => None,
        }
    }

    /// Continuous profiling from start-up.
    pub fn continuous(&self) -> bool {
        matches!(
            self,
            RunMode::Served {
                continuous: true,
                ..
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    fn inputs() -> ModeInputs {
        ModeInputs {
            disable: false,
            domains: Domains::ALL,
            triggers: Triggers::default(),
            range_every_alone: false,
            merge: Read::Unset,
            span: Span::default(),
            server: Read::Unset,
            continuous: false,
        }
    }

    fn bad(var: &str, v: &str) -> Complaint {
        Complaint::new(format!("{PREFIX}{var}"), OsStr::new(v), "why")
    }

    const BOUNDED: Span = Span {
        delay_ms: None,
        duration_ms: Some(3000),
    };

    fn by_time() -> Triggers {
        Triggers {
            period_ms: Some(1000),
            ..Triggers::default()
        }
    }

    /// Each mode from the settings that lead to it.
    #[test]
    fn the_mode_of_each_combination() {
        let served = |continuous| RunMode::Served {
            address: "127.0.0.1:1".into(),
            continuous,
        };
        let cases: Vec<(&str, ModeInputs, RunMode)> = vec![
            (
                "nothing set",
                inputs(),
                RunMode::Streaming {
                    span: Span::default(),
                },
            ),
            (
                "WINDOW_MERGE=0",
                ModeInputs {
                    merge: Read::Set(false),
                    ..inputs()
                },
                RunMode::Whole {
                    span: Span::default(),
                },
            ),
            (
                "a bounded capture",
                ModeInputs {
                    span: BOUNDED,
                    ..inputs()
                },
                RunMode::Whole { span: BOUNDED },
            ),
            (
                "a bounded capture, WINDOW_MERGE=1",
                ModeInputs {
                    span: BOUNDED,
                    merge: Read::Set(true),
                    ..inputs()
                },
                RunMode::Streaming { span: BOUNDED },
            ),
            (
                "a window rule",
                ModeInputs {
                    triggers: by_time(),
                    ..inputs()
                },
                RunMode::Windows {
                    rule: by_time(),
                    merge: false,
                    span: Span::default(),
                },
            ),
            (
                "a window rule, WINDOW_MERGE=1, bounded",
                ModeInputs {
                    triggers: by_time(),
                    merge: Read::Set(true),
                    span: BOUNDED,
                    ..inputs()
                },
                RunMode::Windows {
                    rule: by_time(),
                    merge: true,
                    span: BOUNDED,
                },
            ),
            (
                "SERVER over windows and a span",
                ModeInputs {
                    server: Read::Set("127.0.0.1:1".into()),
                    triggers: by_time(),
                    span: BOUNDED,
                    continuous: true,
                    ..inputs()
                },
                served(true),
            ),
            (
                "DISABLE over SERVER",
                ModeInputs {
                    disable: true,
                    server: Read::Set("127.0.0.1:1".into()),
                    ..inputs()
                },
                RunMode::Off(Off::Disabled),
            ),
            (
                "DOMAINS=none",
                ModeInputs {
                    domains: Domains::NONE,
                    ..inputs()
                },
                RunMode::Off(Off::NoDomains),
            ),
            (
                "a SERVER that cannot be used",
                ModeInputs {
                    server: Read::Bad(bad("SERVER", "x")),
                    ..inputs()
                },
                RunMode::Off(Off::ServiceUnusable),
            ),
            (
                "CONTINUOUS without SERVER",
                ModeInputs {
                    continuous: true,
                    ..inputs()
                },
                RunMode::Streaming {
                    span: Span::default(),
                },
            ),
        ];
        for (what, i, want) in cases {
            assert_eq!(resolve(i).0, want, "{what}");
        }
    }

    /// A refused `WINDOW_MERGE` says the default that applies to this run, and that default
    /// is used: on where nothing else is set, off beside a window rule or a bounded capture.
    #[test]
    fn a_bad_window_merge_names_the_default_it_gets() {
        let (mode, w) = resolve(ModeInputs {
            merge: Read::Bad(bad("WINDOW_MERGE", "maybe")),
            ..inputs()
        });
        assert_eq!(
            mode,
            RunMode::Streaming {
                span: Span::default()
            }
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].0.contains("using default 1 (no window rule"), "{w:?}");
        let (mode, w) = resolve(ModeInputs {
            merge: Read::Bad(bad("WINDOW_MERGE", "maybe")),
            span: BOUNDED,
            ..inputs()
        });
        assert_eq!(mode, RunMode::Whole { span: BOUNDED });
        assert!(
            w[0].0.contains("using default 0 (START_DELAY or DURATION"),
            "{w:?}"
        );
        let (mode, w) = resolve(ModeInputs {
            merge: Read::Bad(bad("WINDOW_MERGE", "maybe")),
            triggers: by_time(),
            ..inputs()
        });
        assert!(
            matches!(mode, RunMode::Windows { merge: false, .. }),
            "{mode:?}"
        );
        assert!(w[0].0.contains("using default 0 (a window rule"), "{w:?}");
    }

    #[test]
    fn what_the_service_turns_off_is_named() {
        let (_, w) = resolve(ModeInputs {
            server: Read::Set("127.0.0.1:1".into()),
            triggers: by_time(),
            merge: Read::Set(true),
            span: BOUNDED,
            ..inputs()
        });
        assert_eq!(w.len(), 1, "{w:?}");
        for n in [
            "service decides",
            "WINDOW_SECONDS",
            "WINDOW_MERGE",
            "DURATION are ignored",
        ] {
            assert!(w[0].0.contains(n), "{n}: {w:?}");
        }
        assert!(!w[0].0.contains("START_DELAY"), "{w:?}");
        let (_, w) = resolve(ModeInputs {
            server: Read::Set("127.0.0.1:1".into()),
            ..inputs()
        });
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn an_unusable_service_says_nothing_is_traced() {
        let (_, w) = resolve(ModeInputs {
            server: Read::Bad(bad("SERVER", "x")),
            continuous: true,
            ..inputs()
        });
        assert_eq!(w.len(), 1, "one line, not one more for CONTINUOUS: {w:?}");
        assert!(
            w[0].0
                .starts_with("ROCPROF_XPLANE_SERVER=\"x\" is invalid (why); "),
            "{w:?}"
        );
        assert!(w[0].0.contains(NO_SERVICE), "{w:?}");
    }

    #[test]
    fn a_range_count_without_its_range_is_reported() {
        let (mode, w) = resolve(ModeInputs {
            range_every_alone: true,
            ..inputs()
        });
        assert_eq!(
            mode,
            RunMode::Streaming {
                span: Span::default()
            }
        );
        assert!(
            w[0].0.contains("WINDOW_RANGE_EVERY is set without"),
            "{w:?}"
        );
    }

    /// The views the rest of the tool reads.
    #[test]
    fn the_views_of_each_mode() {
        let streaming = RunMode::Streaming { span: BOUNDED };
        let rule = streaming.window_rule().unwrap();
        assert!(rule.merge && rule.by_default);
        assert_eq!(rule.events, Some(DEFAULT_MERGE_WINDOW_EVENTS));
        assert_eq!(streaming.span(), BOUNDED);
        let windows = RunMode::Windows {
            rule: Triggers {
                range: Some(RangeRule {
                    name: "step".into(),
                    every: 5,
                }),
                ..Triggers::default()
            },
            merge: true,
            span: Span::default(),
        };
        let rule = windows.window_rule().unwrap();
        assert_eq!(
            (rule.range_every, rule.merge, rule.by_default),
            (Some(5), true, false)
        );
        assert_eq!(windows.window_range().as_deref(), Some("step"));
        assert_eq!(RunMode::Whole { span: BOUNDED }.window_rule(), None);
        let served = RunMode::Served {
            address: "h:1".into(),
            continuous: true,
        };
        assert_eq!(
            (served.server().as_deref(), served.continuous()),
            (Some("h:1"), true)
        );
        assert_eq!(served.span(), Span::default());
    }
}
