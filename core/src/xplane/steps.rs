//! Steps: which roctx ranges mark a program's steps, and the step roots written for them.
//!
//! xprof groups a GPU profile into steps only from a *step root*: an event on `/host:CPU` with
//! the int stat `_r` (its root level) that encloses, on its own line, the HIP calls that
//! launched the step's work (XLA's `group_events.cc`: events nest line by line, launches join
//! their device work by `correlation_id`). Our roctx ranges sit on lines of their own, so each
//! range that is a step gets a root on its thread's API line. A range is a step when
//!
//! * its text is TraceMe-encoded (`train#step_num=3,_r=1#`, what `jax.profiler.
//!   StepTraceAnnotation` produces) with a non-zero integer `_r` or an integer `step_num`;
//! * it is PyTorch's profiler step, `ProfilerStep#<n>`;
//! * or the user's rule (`model::steps::StepRule`, `STEP_RANGE`) matches its whole text.
//!
//! [`place`] fits one thread's steps to its API line so that nothing on that line overlaps
//! partially (xprof's nesting walk would drop the rest of the line's steps).

use std::sync::Arc;

use crate::fastmap::HashMap;
use crate::model::steps::StepRule;
use crate::model::{HostEvent, HostEventKind, RangeInfo, Trace};

use super::level::{parse_level, Level, LevelForm, ParsedValue};

/// The root level a step range gets when its text names none.
pub const ROOT_LEVEL: i64 = 1;

/// What a step range's root carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepMark {
    /// The root event's name; xprof names the step `"<name> <step_num>"`.
    pub name: String,
    pub step_num: Option<i64>,
    /// The root's `_r`: xprof groups the outermost of nested roots of one level.
    pub root_level: i64,
}

/// Whether the range `text` is a step, and how its root is written.
pub fn step_of(text: &str, rule: Option<&StepRule>) -> Option<StepMark> {
    // Both forms hold a `#` (a TraceMe text ends with one, PyTorch's step is `ProfilerStep#`):
    // a text without one is parsed by neither (a range per step, each its own text, is
    // classified per step).
    let level = text.as_bytes().contains(&b'#').then(|| parse_level(text));
    step_of_parsed(text, level.as_ref(), rule)
}

/// [`step_of`] for a text whose level is parsed already (`level`: `parse_level(text)`), as
/// the annotation parser has it: the text is not parsed again.
pub fn step_of_level(text: &str, level: &Level<'_>, rule: Option<&StepRule>) -> Option<StepMark> {
    let level = text.as_bytes().contains(&b'#').then_some(level);
    step_of_parsed(text, level, rule)
}

/// [`step_of`] given the text's level when the text holds a `#`, `None` otherwise.
fn step_of_parsed(
    text: &str,
    level: Option<&Level<'_>>,
    rule: Option<&StepRule>,
) -> Option<StepMark> {
    level
        .and_then(|l| traceme_step(text, l))
        .or_else(|| level.and_then(profiler_step))
        .or_else(|| {
            let rule = rule?;
            rule.matches(text).map(|step_num| StepMark {
                name: rule.root_name(text).to_owned(),
                step_num,
                root_level: ROOT_LEVEL,
            })
        })
}

/// `name#…,_r=<n>,step_num=<n>…#`: a step with a non-zero integer `_r` or an integer
/// `step_num` (`_r=0` says "not a root", as xprof reads it).
fn traceme_step<'t>(text: &'t str, level: &Level<'t>) -> Option<StepMark> {
    if level.form != LevelForm::TraceMe {
        return None;
    }
    let int = |key: &str| {
        level
            .fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| match ParsedValue::parse(v) {
                ParsedValue::I64(n) => Some(n),
                _ => None,
            })
    };
    let step_num = int("step_num").flatten();
    let root_level = match int("_r") {
        Some(Some(n)) if n != 0 => n,
        Some(_) => return None,
        None => {
            step_num?;
            ROOT_LEVEL
        }
    };
    let name = if level.name.is_empty() {
        text
    } else {
        level.name
    };
    Some(StepMark {
        name: name.to_owned(),
        step_num,
        root_level,
    })
}

/// PyTorch's profiler step, `ProfilerStep#<n>` (alone, or as the op of an `emit_nvtx` text).
fn profiler_step(level: &Level<'_>) -> Option<StepMark> {
    const NAME: &str = "ProfilerStep";
    let n = level.name.strip_prefix(NAME)?.strip_prefix('#')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(StepMark {
        name: NAME.to_owned(),
        step_num: n.parse().ok(),
        root_level: ROOT_LEVEL,
    })
}

/// A span on one thread's API line, boot-clock ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start_ns: u64,
    pub end_ns: u64,
}

/// Fits one thread's steps (`steps`, in start order, an enclosing one before those it
/// encloses) to the HIP calls on its API line (`calls`, in start order): a root whose start or
/// end falls inside a call takes in the whole call (a range stopped by another thread while
/// this one was in a call), and a root that would still overlap an earlier kept root partially
/// is left out (`None`): one line cannot show two overlapping steps, and xprof's nesting walk
/// would lose the steps after them.
pub fn place(steps: &[Span], calls: &[Span]) -> Vec<Option<Span>> {
    let reach = Reach::of(calls);
    let mut open: Vec<Span> = Vec::new();
    steps
        .iter()
        .map(|s| {
            if s.end_ns < s.start_ns {
                return None;
            }
            let span = take_in_calls(*s, calls, &reach);
            open.retain(|o| o.end_ns > span.start_ns);
            if open.iter().any(|o| o.end_ns < span.end_ns) {
                return None;
            }
            open.push(span);
            Some(span)
        })
        .collect()
}

/// The latest end among each prefix of a thread's calls (in start order): the calls before
/// the first prefix that reaches past a time all end by it, so no step starting then can start
/// or end inside them, and a step's walk over the calls starts there instead of at the
/// thread's first call (a walk from the first for each step is steps × calls).
struct Reach(Vec<u64>);

impl Reach {
    fn of(calls: &[Span]) -> Self {
        let mut latest = 0;
        Reach(
            calls
                .iter()
                .map(|c| {
                    latest = latest.max(c.end_ns);
                    latest
                })
                .collect(),
        )
    }

    /// The first call that may end after `t`.
    fn past(&self, t: u64) -> usize {
        self.0.partition_point(|&end| end <= t)
    }
}

/// `s` widened to the whole of any call it starts or ends inside of (`s` ends at or after its
/// start).
fn take_in_calls(mut s: Span, calls: &[Span], reach: &Reach) -> Span {
    // The calls of one thread nest or follow each other, so a handful of rounds settles it;
    // the bound keeps a malformed list from looping. A call before `reach.past(s.start_ns)`
    // ends by the span's start (and so by its end): it widens nothing.
    for _ in 0..8 {
        let before = s;
        let upto = |t: u64| calls.partition_point(|c| c.start_ns < t);
        let from = reach.past(s.start_ns);
        for c in calls.get(from..upto(s.end_ns)).unwrap_or_default() {
            if c.start_ns < s.start_ns && s.start_ns < c.end_ns {
                s.start_ns = c.start_ns;
            }
            if c.start_ns < s.end_ns && s.end_ns < c.end_ns {
                s.end_ns = c.end_ns;
            }
        }
        if s == before {
            break;
        }
    }
    s
}

/// One step root to write on a thread's API line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRoot {
    pub span: Span,
    /// Shared by every root of its text (a step range per step names a few texts).
    pub mark: Arc<StepMark>,
    /// The range was still open when the profile ended (a window's merge keeps the window
    /// where it ends, as for the range itself).
    pub open_at_end: bool,
}

/// The step roots of a trace, by thread, and the step ranges left as ranges only.
#[derive(Debug, Default)]
pub struct StepRoots {
    by_thread: HashMap<u64, Vec<StepRoot>>,
    /// Step ranges that overlapped an earlier step of their thread without nesting in it.
    pub overlapping: u64,
}

impl StepRoots {
    /// Thread `tid`'s roots (none when it marked no step).
    pub fn of_thread(&self, tid: u64) -> &[StepRoot] {
        self.by_thread.get(&tid).map_or(&[], Vec::as_slice)
    }

    /// The warning for the step ranges left as ranges, if any.
    pub fn warning(&self) -> Option<String> {
        (self.overlapping > 0).then(|| {
            format!(
                "rocprof-xplane: {} step ranges overlapped an earlier step of their thread without nesting in it; each is shown as a range only, not as a step",
                self.overlapping
            )
        })
    }
}

/// What each range text is as a step (`None`: not a step), by its name's id: classified once
/// per text, and the last text asked for answered without a lookup (a thread's ranges mostly
/// repeat one text).
#[derive(Default)]
struct Marks {
    by_name: HashMap<u32, Option<Arc<StepMark>>>,
    last: Option<(u32, Option<Arc<StepMark>>)>,
}

impl Marks {
    /// Inline: asked for by every range, and mostly answered by the last text.
    #[inline]
    fn of(&mut self, trace: &Trace, e: &HostEvent) -> Option<Arc<StepMark>> {
        match &self.last {
            Some((last, mark)) if *last == e.name.get() => mark.clone(),
            _ => self.classify(trace, e),
        }
    }

    /// [`Marks::of`] for a text other than the last one.
    #[inline(never)]
    fn classify(&mut self, trace: &Trace, e: &HostEvent) -> Option<Arc<StepMark>> {
        let name = e.name.get();
        let mark = self
            .by_name
            .entry(name)
            .or_insert_with(|| step_of(trace.name(e), trace.step_rule.as_ref()).map(Arc::new))
            .clone();
        self.last = Some((name, mark.clone()));
        mark
    }
}

/// Finds the step roots of a trace's threads as their events are walked, one thread after
/// another: each of a thread's ranges is told ([`StepFinder::range`]), then the thread's end
/// ([`StepFinder::end_thread`]), which fits its steps to its calls.
pub struct StepFinder<'t> {
    trace: &'t Trace,
    /// Names are interned: a text is classified once, however many ranges carry it.
    marks: Marks,
    /// The steps of the thread being walked, as they came.
    steps: Vec<StepRoot>,
    roots: StepRoots,
}

impl<'t> StepFinder<'t> {
    pub fn new(trace: &'t Trace) -> Self {
        StepFinder {
            trace,
            marks: Marks::default(),
            steps: Vec::new(),
            roots: StepRoots::default(),
        }
    }

    /// A roctx range `e` (its flags `r`) of the thread being walked.
    #[inline]
    pub fn range(&mut self, e: &HostEvent, r: RangeInfo) {
        let Some(mark) = self.marks.of(self.trace, e) else {
            return;
        };
        self.steps.push(StepRoot {
            span: Span {
                start_ns: e.start_ns,
                end_ns: e.end_ns,
            },
            mark,
            open_at_end: r.open_at_end,
        });
    }

    /// The end of thread `tid`, whose ranges were told: `events` are all of its events.
    pub fn end_thread(&mut self, tid: u64, events: &[HostEvent]) {
        if self.steps.is_empty() {
            return;
        }
        let steps = std::mem::take(&mut self.steps);
        let mine = thread_roots(steps, events, &mut self.roots.overlapping);
        if !mine.is_empty() {
            self.roots.by_thread.insert(tid, mine);
        }
    }

    pub fn finish(self) -> StepRoots {
        self.roots
    }
}

/// A thread's `steps` (its step ranges, as they came) fitted to its calls (among `events`).
fn thread_roots(
    mut steps: Vec<StepRoot>,
    events: &[HostEvent],
    overlapping: &mut u64,
) -> Vec<StepRoot> {
    steps.sort_by_key(|s| (s.span.start_ns, std::cmp::Reverse(s.span.end_ns)));
    let mut calls: Vec<Span> = events
        .iter()
        .filter(|e| e.kind == HostEventKind::HipApi)
        .map(|e| Span {
            start_ns: e.start_ns,
            end_ns: e.end_ns,
        })
        .collect();
    calls.sort_by_key(|c| c.start_ns);
    let spans: Vec<Span> = steps.iter().map(|s| s.span).collect();
    let placed = place(&spans, &calls);
    steps
        .into_iter()
        .zip(placed)
        .filter_map(|(mut s, p)| match p {
            Some(span) => {
                s.span = span;
                Some(s)
            }
            None => {
                *overlapping += u64::from(s.span.end_ns >= s.span.start_ns);
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(name: &str, step_num: Option<i64>, root_level: i64) -> Option<StepMark> {
        Some(StepMark {
            name: name.into(),
            step_num,
            root_level,
        })
    }

    #[test]
    fn traceme_texts_with_a_root_level_or_a_step_number_are_steps() {
        assert_eq!(
            step_of("train#step_num=3,_r=1#", None),
            mark("train", Some(3), 1)
        );
        assert_eq!(step_of("train#_r=2#", None), mark("train", None, 2));
        assert_eq!(step_of("eval#step_num=7#", None), mark("eval", Some(7), 1));
        // `_r=0` says "not a root"; a text `_r` is not a level; other keys alone are not steps.
        assert_eq!(step_of("train#step_num=3,_r=0#", None), None);
        assert_eq!(step_of("train#_r=yes#", None), None);
        assert_eq!(step_of("XlaModule:#hlo_module=m,program_id=7#", None), None);
        // A step number that is not an integer still leaves a step by `_r`.
        assert_eq!(step_of("t#step_num=x,_r=1#", None), mark("t", None, 1));
        assert_eq!(
            step_of("#step_num=4#", None),
            mark("#step_num=4#", Some(4), 1)
        );
    }

    #[test]
    fn pytorch_profiler_steps_are_steps() {
        assert_eq!(
            step_of("ProfilerStep#12", None),
            mark("ProfilerStep", Some(12), 1)
        );
        assert_eq!(
            step_of("ProfilerStep#3, sizes = []", None),
            mark("ProfilerStep", Some(3), 1)
        );
        for not in [
            "ProfilerStep#",
            "ProfilerStep#x",
            "ProfilerStep 3",
            "aten::mm, seq = 4",
        ] {
            assert_eq!(step_of(not, None), None, "{not}");
        }
    }

    #[test]
    fn plain_ranges_are_steps_only_by_the_rule() {
        assert_eq!(step_of("decode step 17", None), None);
        let rule = StepRule::parse("decode step *").unwrap();
        assert_eq!(
            step_of("decode step 17", Some(&rule)),
            mark("decode step", Some(17), 1)
        );
        assert_eq!(
            step_of("decode step final", Some(&rule)),
            mark("decode step", None, 1)
        );
        assert_eq!(step_of("decode", Some(&rule)), None);
        assert_eq!(step_of("prefill step 2", Some(&rule)), None);
        let exact = StepRule::parse("train_step").unwrap();
        assert_eq!(
            step_of("train_step", Some(&exact)),
            mark("train_step", None, 1)
        );
        assert_eq!(step_of("train_step 2", Some(&exact)), None);
        // The frameworks' own forms come first, whatever the rule says.
        let all_train = StepRule::parse("train*").unwrap();
        assert_eq!(
            step_of("train#step_num=3,_r=2#", Some(&all_train)),
            mark("train", Some(3), 2)
        );
    }

    fn span(start_ns: u64, end_ns: u64) -> Span {
        Span { start_ns, end_ns }
    }

    #[test]
    fn steps_take_in_a_call_they_cut_and_overlapping_ones_are_left_out() {
        let calls = [span(10, 20), span(30, 40), span(50, 60)];
        let steps = [
            // ends inside the call at 30..40 (stopped by another thread): ends with it
            span(5, 35),
            // nested in the first: kept
            span(8, 12),
            // starts inside the kept one and ends after it: left out
            span(25, 55),
            // after it: kept, taking in the call it starts inside of
            span(55, 70),
            // inverted times: not a step
            span(90, 80),
        ];
        assert_eq!(
            place(&steps, &calls),
            [
                Some(span(5, 40)),
                Some(span(8, 20)),
                None,
                Some(span(50, 70)),
                None
            ]
        );
    }

    /// The walk that starts at the first call reaching past a step's start widens every step
    /// as the walk over all the calls before it does: nested and following calls, calls that
    /// end before their start (malformed), steps starting and ending inside calls.
    #[test]
    fn steps_take_in_the_calls_a_walk_from_the_first_call_would() {
        fn from_the_first(mut s: Span, calls: &[Span]) -> Span {
            for _ in 0..8 {
                let before = s;
                let upto = calls.partition_point(|c| c.start_ns < s.end_ns);
                for c in &calls[..upto] {
                    if c.start_ns < s.start_ns && s.start_ns < c.end_ns {
                        s.start_ns = c.start_ns;
                    }
                    if c.start_ns < s.end_ns && s.end_ns < c.end_ns {
                        s.end_ns = c.end_ns;
                    }
                }
                if s == before {
                    break;
                }
            }
            s
        }
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..200 {
            let mut calls: Vec<Span> = (0..next(40))
                .map(|_| {
                    let start = next(1000);
                    // One in eight malformed: ending before it starts.
                    let end = if next(8) == 0 {
                        start.saturating_sub(next(50))
                    } else {
                        start + next(120)
                    };
                    span(start, end)
                })
                .collect();
            calls.sort_by_key(|c| c.start_ns);
            let mut steps: Vec<Span> = (0..next(12))
                .map(|_| {
                    let start = next(1000);
                    span(start, start + next(300))
                })
                .collect();
            steps.sort_by_key(|s| (s.start_ns, std::cmp::Reverse(s.end_ns)));
            let reach = Reach::of(&calls);
            for s in &steps {
                assert_eq!(
                    take_in_calls(*s, &calls, &reach),
                    from_the_first(*s, &calls),
                    "{s:?} in {calls:?}"
                );
            }
        }
    }

    #[test]
    fn nested_and_following_steps_are_all_kept() {
        let steps = [span(0, 100), span(10, 20), span(20, 30), span(100, 200)];
        assert_eq!(
            place(&steps, &[]),
            steps.iter().map(|s| Some(*s)).collect::<Vec<_>>()
        );
    }

    /// One thread: a TraceMe step with a call inside, a ProfilerStep nested in it, and a
    /// start/stop step that overlaps the first without nesting. The API line gets a root for
    /// each of the first two (with `_r` and `step_num`, spanning the range), the third stays a
    /// range, counted and warned of.
    #[test]
    fn the_api_line_gets_a_root_per_step_and_an_overlapping_one_is_counted() {
        use crate::model::{
            HostEvent, HostEventKind, HostThread, Ordinal16, RangeInfo, Table, Trace,
        };
        use crate::xplane::proto::x_stat::Value;
        use std::sync::Arc;
        let mut names = Table::default();
        let mut event = |name: &str, start_ns: u64, end_ns: u64, kind: HostEventKind| HostEvent {
            name: names.push(Arc::from(name)),
            start_ns,
            end_ns,
            correlation_id: start_ns,
            kind,
            annotation: None,
            device: Ordinal16::NONE,
            launched: crate::model::Launched::count(0),
        };
        let range = HostEventKind::MarkerRange(RangeInfo::default());
        let start_stop = HostEventKind::MarkerRange(RangeInfo {
            process_wide: true,
            open_at_end: false,
        });
        let events = vec![
            event("train#step_num=3,_r=1#", 10, 100, range),
            event("hipLaunchKernel", 20, 30, HostEventKind::HipApi),
            event("ProfilerStep#4", 40, 60, range),
            event("decode", 50, 150, start_stop),
        ];
        let trace = Trace {
            names,
            start_boottime_ns: 1,
            host_threads: vec![HostThread {
                tid: 7,
                name: String::new(),
                events,
            }],
            ..Trace::default()
        };
        let space = crate::xplane::build_xspace(&trace);
        let host = &space.planes[0];
        let stat_name = |id: i64| host.stat_metadata[&id].name.as_str();
        let api = host.lines.iter().find(|l| l.id == 7).expect("the API line");
        // Name, offset, duration and stats of each root.
        type Root<'a> = (&'a str, i64, i64, Vec<(&'a str, Value)>);
        let roots: Vec<Root> = api
            .events
            .iter()
            .filter(|e| e.stats.iter().any(|s| stat_name(s.metadata_id) == "_r"))
            .map(|e| {
                let stats = e
                    .stats
                    .iter()
                    .map(|s| (stat_name(s.metadata_id), s.value.clone().unwrap()))
                    .collect();
                let name = host.event_metadata[&e.metadata_id].name.as_str();
                let offset_ps = match e.data {
                    Some(crate::xplane::proto::x_event::Data::OffsetPs(o)) => o,
                    _ => panic!("no offset"),
                };
                (name, offset_ps, e.duration_ps, stats)
            })
            .collect();
        assert_eq!(
            roots,
            [
                (
                    "train",
                    9_000,
                    90_000,
                    vec![
                        ("_r", Value::Int64Value(1)),
                        ("step_num", Value::Int64Value(3))
                    ]
                ),
                (
                    "ProfilerStep",
                    39_000,
                    20_000,
                    vec![
                        ("_r", Value::Int64Value(1)),
                        ("step_num", Value::Int64Value(4))
                    ]
                ),
            ]
        );
        // Nothing else on any line is a root.
        let with_r = host
            .lines
            .iter()
            .flat_map(|l| &l.events)
            .filter(|e| e.stats.iter().any(|s| stat_name(s.metadata_id) == "_r"))
            .count();
        assert_eq!(with_r, 2);
        let env = space
            .planes
            .iter()
            .find(|p| p.name == crate::xplane::stats::TASK_ENV_PLANE)
            .unwrap();
        let overlapping = env
            .stats
            .iter()
            .find(|s| env.stat_metadata[&s.metadata_id].name == "rocprof_xplane_steps_overlapping")
            .and_then(|s| s.value.clone());
        assert_eq!(
            overlapping,
            Some(Value::Uint64Value(0)),
            "decode is no step"
        );
        // By a rule it is one, and it overlaps the TraceMe step without nesting in it.
        let trace = Trace {
            step_rule: Some(StepRule::parse("decode").unwrap()),
            ..trace
        };
        let space = crate::xplane::build_xspace(&trace);
        assert!(
            space
                .warnings
                .iter()
                .any(|w| w.contains("1 step ranges overlapped")),
            "{:?}",
            space.warnings
        );
    }
}
