//! What any value of any setting gives: bytes that are not UTF-8, long values, control
//! characters; the table against what parsing reads; and the settings defects found by use.

use std::cell::RefCell;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use super::super::mode::NO_SERVICE;
use super::super::table::{self, Default, Kind, SETTINGS};
use super::super::*;
use super::{parse, parse_os, NOW};

fn bytes(b: &[u8]) -> OsString {
    OsString::from_vec(b.to_vec())
}

#[test]
fn values_are_shown_quoted_escaped_and_shortened() {
    assert_eq!(shown("abc".as_ref()), r#""abc""#);
    assert_eq!(
        shown("a\nb\t\u{1b}[31m \"q\" \\ it's".as_ref()),
        r#""a\nb\t\u{1b}[31m \"q\" \\ it's""#
    );
    assert_eq!(shown(&bytes(b"caf\xe9")), r#""caf\xe9""#);
    assert_eq!(
        shown("a\u{2028}b\u{202e}".as_ref()),
        r#""a\u{2028}b\u{202e}""#
    );
    assert_eq!(shown("nodé".as_ref()), "\"nodé\"");
    let long = "x".repeat(100_000);
    assert_eq!(
        shown(long.as_ref()),
        format!("\"{}…\" (100000 bytes)", "x".repeat(values::SHOWN_CHARS))
    );
    // Escapes count as they are shown, and one is never cut in half.
    let newlines = "\n".repeat(100);
    let s = shown(newlines.as_ref());
    assert!(s.starts_with(&format!("\"{}…\"", "\\n".repeat(40))), "{s}");
    let exact = "y".repeat(values::SHOWN_CHARS);
    assert_eq!(shown(exact.as_ref()), format!("\"{exact}\""));
}

/// The one line's form: variable, value, why, and the default used.
#[test]
fn a_bad_value_is_one_line_naming_the_default() {
    let (c, w) = parse(&[("LOG", "loud")]);
    assert_eq!(c.log, LogLevel::Warn);
    assert_eq!(
        w,
        [ConfigWarning(
            "ROCPROF_XPLANE_LOG=\"loud\" is invalid (expected off, error, warn, info or debug); using default warn".into()
        )]
    );
}

/// Every variable `Config::parse_os` asks for is a row of the table, and every row is asked
/// for; the others are the launchers' (job ids, local ranks).
#[test]
fn the_table_is_every_variable_the_tool_reads() {
    let asked = RefCell::new(Vec::<String>::new());
    let _ = Config::parse_os(
        |k| {
            asked.borrow_mut().push(k.to_string());
            None
        },
        NOW,
    );
    let asked = asked.into_inner();
    let mut ours: Vec<String> = asked
        .iter()
        .filter(|k| k.starts_with(PREFIX))
        .cloned()
        .collect();
    ours.sort();
    ours.dedup();
    let mut rows: Vec<String> = SETTINGS.iter().map(|s| s.var()).collect();
    rows.sort();
    assert_eq!(ours, rows);
    for k in asked.iter().filter(|k| !k.starts_with(PREFIX)) {
        assert!(
            JOB_ID_VARS.iter().any(|(v, _)| v == k) || LOCAL_RANK_VARS.contains(&k.as_str()),
            "{k} is read but not in the launchers' table"
        );
    }
}

/// A default written out is the same as unset: the table's default is what is really used.
#[test]
fn each_written_default_is_what_unset_gives() {
    let (unset, _) = parse(&[]);
    for s in SETTINGS {
        let Default::Value(text) = s.default else {
            continue;
        };
        let (c, w) = parse(&[(s.name, text)]);
        assert_eq!(c, unset, "{}={text}", s.name);
        if s.name != "WINDOW_RANGE_EVERY" {
            assert!(w.is_empty(), "{}={text}: {w:?}", s.name);
        }
    }
}

/// Bytes that are not UTF-8: a directory takes them as they are; any other setting gives one
/// line naming the variable and its default, and the default is what the run gets (a service
/// address that cannot be used records nothing).
#[test]
fn bytes_that_are_not_utf8_are_a_path_or_one_line() {
    let (unset, _) = parse(&[]);
    let value = bytes(b"\xff\xfe1");
    for s in SETTINGS {
        let (c, w) = parse_os(&[(&s.var(), value.clone())]);
        if s.kind == Kind::Dir {
            assert!(w.is_empty(), "{}: {w:?}", s.name);
            assert_eq!(c.output_dir.as_os_str(), value.as_os_str());
            continue;
        }
        assert_eq!(w.len(), 1, "{}: {w:?}", s.name);
        let head = format!("{}=\"\\xff\\xfe1\" is invalid (not UTF-8); ", s.var());
        assert!(w[0].0.starts_with(&head), "{}: {w:?}", s.name);
        match s.default {
            _ if s.name == "SERVER" => {
                assert!(w[0].0.contains(NO_SERVICE), "{w:?}");
                assert_eq!(c.mode, RunMode::Off(Off::ServiceUnusable));
                continue;
            }
            Default::Value(d) | Default::Off(d) => {
                assert!(w[0].0.ends_with(&format!("using default {d}")), "{w:?}")
            }
            Default::Derived(_) => assert!(w[0].0.contains("using default "), "{w:?}"),
        }
        assert_eq!(c, unset, "{}", s.name);
    }
}

/// A 100 KB value with control characters and a newline: every line stays short and on one
/// line, and says how long the value was.
#[test]
fn long_values_give_short_lines() {
    let value = format!(
        "\u{1b}[31m{}\nrocprof-xplane: a forged line",
        "9".repeat(100_000)
    );
    let total = value.len();
    for s in SETTINGS {
        let (_, w) = parse(&[(s.name, &value)]);
        if matches!(s.kind, Kind::Dir | Kind::Text | Kind::StepPattern) {
            assert!(w.is_empty(), "{}: {w:?}", s.name);
            continue;
        }
        assert_eq!(w.len(), 1, "{}: {w:?}", s.name);
        let line = &w[0].0;
        assert!(line.len() < 500, "{}: {} bytes: {line}", s.name, line.len());
        assert!(!line.chars().any(char::is_control), "{line}");
        assert!(line.starts_with(&s.var()), "{line}");
        assert!(line.contains(&format!("…\" ({total} bytes)")), "{line}");
    }
}

/// `WINDOW_MERGE=<typo>` says the default this run really has and uses it: on, the streaming
/// pipeline, where nothing else is set.
#[test]
fn a_window_merge_typo_keeps_the_streaming_default() {
    let (c, w) = parse(&[("WINDOW_MERGE", "yes please")]);
    assert_eq!(
        c.mode,
        RunMode::Streaming {
            span: Span::default()
        }
    );
    let rule = c.window.unwrap();
    assert!(rule.merge && rule.by_default, "{rule:?}");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].0
            .ends_with("using default 1 (no window rule, START_DELAY, DURATION or SERVER is set)"),
        "{w:?}"
    );
}

/// The longest run name accepted still makes directory names the file system takes, with
/// the longest suffixes the tool appends (a window's, an attach session's); one byte more,
/// or a 100 KB name, is refused at start with one short line and the default used.
#[test]
fn a_run_name_is_short_enough_for_every_directory_made_from_it() {
    let longest = "r".repeat(RUN_NAME_MAX_BYTES);
    let (c, w) = parse(&[("RUN_NAME", &longest)]);
    assert!(w.is_empty() && c.run_name == longest, "{w:?}");
    assert!(crate::control::windows::run_name_of(&c, u32::MAX).len() <= NAME_MAX);
    assert!(crate::control::attach::run_name_of(&c, u32::MAX).len() <= NAME_MAX);
    for len in [RUN_NAME_MAX_BYTES + 1, 100_000] {
        let (c, w) = parse(&[("RUN_NAME", &"r".repeat(len))]);
        assert_eq!(c.run_name, "2023_11_14_22_13_20");
        assert!(!c.run_name_explicit);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].0
                .contains(&format!("(is {len} bytes; at most {RUN_NAME_MAX_BYTES}")),
            "{w:?}"
        );
        assert!(
            w[0].0.ends_with("using default 2023_11_14_22_13_20"),
            "{w:?}"
        );
        assert!(w[0].0.len() < 400);
    }
    // The same rule for the CLI's --run-name.
    assert!(check_run_name(&"r".repeat(RUN_NAME_MAX_BYTES + 1)).is_err());
    // A template whose own text is too long for a file name.
    let (c, w) = parse(&[("OUTPUT_FILE", &format!("{}%pid%", "f".repeat(300)))]);
    assert_eq!(c.file_template, None);
    assert!(w[0].0.contains("its text is 300 bytes"), "{w:?}");
}

fn with_ranks(server: &str, ranks: &[(&str, &str)]) -> (Config, Vec<ConfigWarning>) {
    let mut vars: Vec<(String, OsString)> = ranks
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    vars.push((format!("{PREFIX}SERVER"), server.into()));
    let vars: Vec<(&str, OsString)> = vars.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    parse_os(&vars)
}

/// A local rank that is not a number is named as such, never as unset; a number further down
/// the launchers' variables is used, and the line says which.
#[test]
fn a_local_rank_that_is_not_a_number_is_said_so() {
    let (c, w) = with_ranks("7000+rank", &[("LOCAL_RANK", "abc")]);
    assert_eq!(c.mode, RunMode::Off(Off::ServiceUnusable));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].0
            .contains("(PORT+rank, but LOCAL_RANK=\"abc\" is not a number)"),
        "{w:?}"
    );
    assert!(!w[0].0.contains("no local rank"), "{w:?}");
    assert!(w[0].0.contains(NO_SERVICE), "{w:?}");

    let (c, w) = with_ranks(
        "7000+rank",
        &[("LOCAL_RANK", "abc"), ("SLURM_LOCALID", "2")],
    );
    assert_eq!(c.server.as_deref(), Some("127.0.0.1:7002"));
    assert_eq!(
        w,
        [ConfigWarning(
            "ROCPROF_XPLANE_SERVER=\"7000+rank\": LOCAL_RANK=\"abc\" is not a number; the local rank is SLURM_LOCALID=2, so the address is 127.0.0.1:7002".into()
        )]
    );
    // Not asked for, not mentioned.
    let (_, w) = with_ranks("7000", &[("LOCAL_RANK", "abc")]);
    assert!(w.is_empty(), "{w:?}");
}

/// A `SERVER` value that cannot be used records nothing (it does not fall back to a profile
/// of the whole run), and says so on one line.
#[test]
fn a_bad_service_address_records_nothing() {
    for v in ["host:port", "70000", "[::1:6009"] {
        let (c, w) = parse(&[("SERVER", v), ("CONTINUOUS", "1")]);
        assert_eq!(c.mode, RunMode::Off(Off::ServiceUnusable), "{v}");
        assert_eq!((c.window, c.server.as_deref()), (None, None), "{v}");
        assert_eq!(w.len(), 1, "{v}: {w:?}");
        assert!(w[0].0.contains(NO_SERVICE), "{v}: {w:?}");
    }
}

/// `STEP_RANGE` takes a range's text or a `*` pattern; one of only `*`s (every range a step)
/// is refused on one line, and no rule is used.
#[test]
fn a_step_range_is_a_text_or_a_pattern_but_not_only_stars() {
    let (c, w) = parse(&[("STEP_RANGE", "decode step *")]);
    assert!(w.is_empty(), "{w:?}");
    let rule = c.step_rule.expect("a rule");
    assert_eq!(rule.matches("decode step 7"), Some(Some(7)));
    let (c, w) = parse(&[]);
    assert_eq!(c.step_rule, None);
    assert!(w.is_empty(), "{w:?}");
    for bad in ["*", "**"] {
        let (c, w) = parse(&[("STEP_RANGE", bad)]);
        assert_eq!(c.step_rule, None, "{bad:?}");
        assert_eq!(w.len(), 1, "{bad:?}: {w:?}");
        assert!(w[0].0.contains("ROCPROF_XPLANE_STEP_RANGE="), "{w:?}");
    }
}

#[test]
fn kinds_read_their_own_defaults() {
    for s in SETTINGS {
        if let Default::Value(text) = s.default {
            let ok = match s.kind {
                Kind::Flag => values::flag(&s.kind, text).is_ok(),
                Kind::Word(_) => values::word(&s.kind, text).is_ok(),
                Kind::List(_) => values::list(&s.kind, text).is_ok(),
                Kind::Bytes { .. } => values::bytes(&s.kind, text).is_ok(),
                Kind::Seconds { .. } => values::seconds_ms(&s.kind, text).is_ok(),
                Kind::Count { .. } => values::count(&s.kind, text).is_ok(),
                Kind::FileTemplate { .. } => check_file_template(text).is_ok(),
                Kind::UnixTime => values::unix_time_ns(&s.kind, text).is_ok(),
                Kind::Peer => values::peer(&s.kind, text).is_ok(),
                Kind::StepPattern => values::step_rule(&s.kind, text).is_ok(),
                Kind::Dir | Kind::Text | Kind::DirName { .. } | Kind::Address => true,
            };
            assert!(ok, "{}'s default {text:?}", s.name);
        }
    }
    assert_eq!(
        values::bytes(&table::BUFFER_SIZE.kind, "1m"),
        Ok(DEFAULT_BUFFER_SIZE as u64)
    );
}
