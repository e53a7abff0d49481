//! Each setting's forms, defaults and fallbacks.

use super::super::*;
use super::parse;
use std::collections::HashMap;

#[test]
fn secure_execution_sees_no_environment() {
    // A variable only this test uses.
    std::env::set_var("ROCPROF_XPLANE_TEST_SECURE_PROBE", "/attacker/chosen");
    assert_eq!(
        env_for(false, "ROCPROF_XPLANE_TEST_SECURE_PROBE").as_deref(),
        Some(std::ffi::OsStr::new("/attacker/chosen"))
    );
    assert_eq!(env_for(true, "ROCPROF_XPLANE_TEST_SECURE_PROBE"), None);
    // The test binary itself is not setuid.
    assert!(!secure_execution());
}

#[test]
fn file_name_templates_as_rocprofv3_spells_them() {
    let env = |k: &str| match k {
        "RANK" => Some("7".to_string()),
        "SLURM_LOCALID" => Some("3".to_string()),
        "JOB" => Some("a/b".to_string()),
        _ => None,
    };
    let t = check_file_template("%hostname%.rank%rank%.xplane.pb").unwrap();
    assert_eq!(t, "%hostname%.rank%rank%");
    assert_eq!(expand_file_name(&t, "node1", 42, env), "node1.rank7");
    let t = check_file_template("job%env{JOB}%_l%local_rank%_%pid%").unwrap();
    assert_eq!(expand_file_name(&t, "h", 42, env), "joba_b_l3_42");
    assert_eq!(expand_file_name("r%rank%", "h", 1, |_| None), "r0");
    for bad in ["", "a/b", "%nope%", "x%pid", "%env{}%", ".."] {
        assert!(check_file_template(bad).is_err(), "{bad}");
    }
    let (c, w) = parse(&[("OUTPUT_FILE", "%bogus%")]);
    assert_eq!(c.file_template, None);
    assert!(w[0].0.contains("unknown token"), "{w:?}");
}

/// `WINDOW_MERGE` merges the windows of the rule set; alone, it cuts windows of
/// `DEFAULT_MERGE_WINDOW_EVENTS` records; a value that is not a yes or a no is refused.
/// Unset, it is on where no window rule and no bounded capture is set (the streaming
/// pipeline), off where one is, and `0` holds the run whole until exit.
#[test]
fn window_merge_merges_the_windows_set_or_its_own() {
    let (c, w) = parse(&[]);
    let rule = c.window.unwrap();
    assert!(
        rule.merge && rule.by_default && w.is_empty(),
        "{rule:?} {w:?}"
    );
    assert_eq!(rule.events, Some(DEFAULT_MERGE_WINDOW_EVENTS));
    for bounded in [("START_DELAY", "1"), ("DURATION", "1")] {
        assert!(parse(&[bounded]).0.window.is_none(), "{bounded:?}");
    }
    let (c, w) = parse(&[("SERVER", "6009")]);
    assert!(c.window.is_none() && w.is_empty(), "{w:?}");
    let rule = parse(&[("WINDOW_EVENTS", "10")]).0.window.unwrap();
    assert!(!rule.merge && !rule.by_default, "{rule:?}");
    let (c, w) = parse(&[("WINDOW_SECONDS", "1"), ("WINDOW_MERGE", "1")]);
    let rule = c.window.unwrap();
    assert!(rule.merge && rule.events.is_none() && w.is_empty(), "{w:?}");
    let (c, w) = parse(&[("WINDOW_SECONDS", "1")]);
    assert!(!c.window.unwrap().merge && w.is_empty());
    let (c, w) = parse(&[("WINDOW_MERGE", "yes")]);
    let rule = c.window.unwrap();
    assert!(rule.merge && rule.by_default && w.is_empty(), "{w:?}");
    assert_eq!(rule.events, Some(DEFAULT_MERGE_WINDOW_EVENTS));
    assert_eq!(
        (rule.period_ms, rule.signal, rule.range_every),
        (None, None, None)
    );
    let (c, _) = parse(&[("WINDOW_MERGE", "0")]);
    assert!(c.window.is_none());
    let (c, w) = parse(&[("WINDOW_EVENTS", "10"), ("WINDOW_MERGE", "maybe")]);
    assert!(!c.window.unwrap().merge);
    assert!(w.iter().any(|w| w.0.contains("WINDOW_MERGE")), "{w:?}");
}

#[test]
fn windows_on_a_roctx_range() {
    let (c, w) = parse(&[("WINDOW_RANGE", "train_step"), ("WINDOW_RANGE_EVERY", "25")]);
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(c.window_range.as_deref(), Some("train_step"));
    assert_eq!(c.window.unwrap().range_every, Some(25));
    let (c, w) = parse(&[("WINDOW_RANGE", "step"), ("WINDOW_RANGE_EVERY", "0")]);
    assert_eq!(c.window.unwrap().range_every, Some(1));
    assert_eq!(w.len(), 1, "{w:?}");
    // Without the range, no range rule: the run's default windows only.
    let rule = parse(&[("WINDOW_RANGE_EVERY", "3")]).0.window.unwrap();
    assert!(rule.by_default && rule.range_every.is_none(), "{rule:?}");
}

#[test]
fn the_service_address_forms_and_what_it_turns_off() {
    let server = |v: &str| parse(&[("SERVER", v)]).0.server;
    assert_eq!(server("6009").as_deref(), Some("127.0.0.1:6009"));
    assert_eq!(server("0.0.0.0:6009").as_deref(), Some("0.0.0.0:6009"));
    assert_eq!(server("localhost:1").as_deref(), Some("localhost:1"));
    assert_eq!(server("[::1]:6009").as_deref(), Some("[::1]:6009"));
    for bad in ["::1:6009", "host:port", ":6009", "a/b:1", "70000", "x"] {
        let (c, w) = parse(&[("SERVER", bad)]);
        assert_eq!(c.server, None, "{bad}");
        assert!(w[0].0.contains("SERVER"), "{bad}: {w:?}");
    }
    let raw = |vars: &[(&str, &str)]| {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::parse(|k| map.get(k).cloned(), 1_700_000_000)
    };
    let ranked = |v: &str, rank: (&str, &str)| raw(&[("ROCPROF_XPLANE_SERVER", v), rank]).0.server;
    assert_eq!(
        ranked("0.0.0.0:6009+rank", ("LOCAL_RANK", "3")).as_deref(),
        Some("0.0.0.0:6012")
    );
    assert_eq!(
        ranked("7000+rank", ("SLURM_LOCALID", "1")).as_deref(),
        Some("127.0.0.1:7001")
    );
    assert_eq!(ranked("65535+rank", ("LOCAL_RANK", "1")), None);
    let (c, w) = parse(&[("SERVER", "7000+rank")]);
    assert_eq!(c.server, None);
    assert!(w[0].0.contains("no local rank"), "{w:?}");
    let (c, w) = parse(&[
        ("SERVER", "7000"),
        ("WINDOW_SECONDS", "5"),
        ("DURATION", "3"),
    ]);
    assert!(c.window.is_none() && c.duration_ms.is_none(), "{c:?}");
    assert!(w.iter().any(|w| w.0.contains("service decides")), "{w:?}");

    let (c, w) = parse(&[("CONTINUOUS", "1")]);
    assert!(!c.continuous, "needs the service");
    assert!(w[0].0.contains("needs ROCPROF_XPLANE_SERVER"), "{w:?}");
    let (c, w) = parse(&[
        ("SERVER", "7000"),
        ("CONTINUOUS", "yes"),
        ("RING_SECONDS", "2.5"),
        ("RING_MEMORY", "64m"),
    ]);
    assert!(w.is_empty(), "{w:?}");
    assert!(c.continuous);
    assert_eq!(
        c.ring,
        RingRule {
            keep_ms: 2500,
            max_bytes: 64 << 20
        }
    );
    let (c, w) = parse(&[("RING_SECONDS", "0.1"), ("RING_MEMORY", "10k")]);
    assert_eq!(c.ring, RingRule::default());
    assert_eq!(w.len(), 2, "{w:?}");
}

#[test]
fn launcher_job_ids_give_one_shared_run_name() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    };
    let slurm = env(&[("SLURM_JOB_ID", "4242"), ("SLURM_STEP_ID", "0")]);
    assert_eq!(job_run_name(slurm).as_deref(), Some("slurm_4242.0"));
    let pmix = env(&[("PMIX_NAMESPACE", "prterun-node1-77@1")]);
    assert_eq!(
        job_run_name(pmix).as_deref(),
        Some("pmix_prterun-node1-77_1")
    );
    let both = env(&[("TORCHELASTIC_RUN_ID", "abc"), ("PBS_JOBID", "9.server")]);
    assert_eq!(
        job_run_name(both).as_deref(),
        Some("pbs_9.server"),
        "order of preference"
    );
    assert_eq!(job_run_name(env(&[("TORCHELASTIC_RUN_ID", "none")])), None);
    assert_eq!(job_run_name(env(&[("SLURM_JOB_ID", " ")])), None);
    assert_eq!(job_run_name(env(&[("FLUX_JOB_ID", "..")])), None);
    assert_eq!(job_run_name(env(&[])), None);

    // Through Config::parse: the job id is the default, an explicit RUN_NAME still wins.
    let with_job = |extra: &[(&str, &str)]| {
        let mut map: HashMap<String, String> = extra
            .iter()
            .map(|(k, v)| (format!("{PREFIX}{k}"), v.to_string()))
            .collect();
        map.insert("SLURM_JOB_ID".into(), "7".into());
        Config::parse(|k| map.get(k).cloned(), 1_700_000_000).0
    };
    let c = with_job(&[]);
    assert_eq!(
        (c.run_name.as_str(), c.run_name_explicit),
        ("slurm_7", false)
    );
    assert_eq!(with_job(&[("RUN_NAME", "mine")]).run_name, "mine");
}

#[test]
fn defaults_without_environment() {
    let (c, w) = parse(&[]);
    assert!(w.is_empty());
    assert_eq!(c.output_dir, PathBuf::from(DEFAULT_OUTPUT_DIR));
    assert_eq!(c.run_name, "2023_11_14_22_13_20");
    assert!(!c.run_name_explicit);
    assert_eq!(c.domains, Domains::ALL);
    assert_eq!(c.buffer_size, DEFAULT_BUFFER_SIZE);
    assert!(!c.disable);
    assert_eq!(c.log, LogLevel::Warn);
    // The table's defaults are the types' own.
    assert_eq!((c.ring, c.term), (RingRule::default(), TermRule::default()));
    assert_eq!(
        c.mode,
        RunMode::Streaming {
            span: Span::default()
        }
    );
}

#[test]
fn explicit_values_are_honoured() {
    let (c, w) = parse(&[
        ("OUTPUT_DIR", "/tmp/logs"),
        ("RUN_NAME", "job42"),
        ("DOMAINS", "kernel, memcpy"),
        ("BUFFER_SIZE", "64k"),
        ("DISABLE", "yes"),
        ("LOG", "debug"),
    ]);
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(c.output_dir, PathBuf::from("/tmp/logs"));
    assert_eq!(c.run_name, "job42");
    assert!(c.run_name_explicit);
    assert_eq!(
        c.domains,
        Domains {
            hip: false,
            kernel: true,
            memcpy: true,
            marker: false
        }
    );
    assert_eq!(c.buffer_size, 65536);
    assert!(c.disable);
    assert_eq!(c.log, LogLevel::Debug);
}

#[test]
fn buffer_size_outside_the_accepted_range_falls_back() {
    for v in ["1k", "100g", "2g"] {
        let (c, w) = parse(&[("BUFFER_SIZE", v)]);
        assert_eq!(c.buffer_size, DEFAULT_BUFFER_SIZE, "{v}");
        assert_eq!(w.len(), 1, "{v}: {w:?}");
        assert!(w[0].0.contains("outside the accepted range"), "{v}: {w:?}");
    }
    let (c, w) = parse(&[("BUFFER_SIZE", "1g")]);
    assert_eq!((c.buffer_size, w.len()), (MAX_BUFFER_SIZE, 0));
}

#[test]
fn bad_values_fall_back_with_one_message_each() {
    let (c, w) = parse(&[
        ("DOMAINS", "kernel,gpu"),
        ("BUFFER_SIZE", "12q"),
        ("DISABLE", "maybe"),
        ("LOG", "loud"),
        ("RUN_NAME", "../x"),
    ]);
    assert_eq!(w.len(), 5, "{w:?}");
    assert_eq!(c.domains, Domains::ALL);
    assert_eq!(c.buffer_size, DEFAULT_BUFFER_SIZE);
    assert!(!c.disable);
    assert_eq!(c.log, LogLevel::Warn);
    assert_eq!(c.run_name, "2023_11_14_22_13_20");
    let joined = w.iter().map(|w| w.0.clone()).collect::<Vec<_>>().join("\n");
    assert!(
        joined.contains("ROCPROF_XPLANE_DOMAINS=\"kernel,gpu\""),
        "{joined}"
    );
    assert!(joined.contains("unknown \"gpu\"; known: hip,"), "{joined}");
    assert!(
        joined.contains("ROCPROF_XPLANE_BUFFER_SIZE=\"12q\""),
        "{joined}"
    );
    assert!(
        joined.contains("BUFFER_SIZE=\"12q\" is invalid (expected bytes with an optional k/m/g suffix); using default 1m"),
        "{joined}"
    );
}

#[test]
fn term_signals_and_their_time_limit() {
    let (c, w) = parse(&[]);
    assert_eq!(c.term, TermRule::default());
    assert_eq!(c.term.signals, [libc::SIGTERM, libc::SIGINT]);
    assert!(w.is_empty());
    for (v, want) in [
        ("none", vec![]),
        ("off", vec![]),
        ("TERM", vec![libc::SIGTERM]),
        ("sigint, hup,INT", vec![libc::SIGINT, libc::SIGHUP]),
    ] {
        let (c, w) = parse(&[("TERM_SIGNALS", v)]);
        assert_eq!((c.term.signals, w.len()), (want, 0), "{v}");
    }
    let (c, w) = parse(&[("TERM_SIGNALS", "TERM,KILL"), ("TERM_TIMEOUT", "5")]);
    assert_eq!(c.term.signals, TermRule::default().signals);
    assert_eq!(c.term.timeout_ms, 5_000);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].0.contains("unknown \"KILL\""), "{w:?}");
    let (c, w) = parse(&[("TERM_TIMEOUT", "-1")]);
    assert_eq!((c.term.timeout_ms, w.len()), (20_000, 1));
}

#[test]
fn write_threads_a_count_or_the_cores() {
    let (c, w) = parse(&[]);
    assert_eq!((c.write_threads, w.len()), (None, 0));
    for (v, want) in [("1", Some(1)), (" 3 ", Some(3)), ("64", Some(64))] {
        let (c, w) = parse(&[("WRITE_THREADS", v)]);
        assert_eq!((c.write_threads, w.len()), (want, 0), "{v}");
    }
    for v in ["0", "65", "-2", "two", "1.5"] {
        let (c, w) = parse(&[("WRITE_THREADS", v)]);
        assert_eq!((c.write_threads, w.len()), (None, 1), "{v}");
        assert!(w[0].0.contains("from 1 to 64"), "{w:?}");
    }
}

#[test]
fn tiny_buffer_is_rejected() {
    let (c, w) = parse(&[("BUFFER_SIZE", "100")]);
    assert_eq!(c.buffer_size, DEFAULT_BUFFER_SIZE);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].0
            .contains("outside the accepted range (from 4k to 1g)"),
        "{w:?}"
    );
}

#[test]
fn sizes_with_suffixes() {
    assert_eq!(parse_size("4096"), Some(4096));
    assert_eq!(parse_size("4K"), Some(4096));
    assert_eq!(parse_size("2m"), Some(2 << 20));
    assert_eq!(parse_size("1GiB"), Some(1 << 30));
    assert_eq!(parse_size(" 8 kb "), Some(8192));
    assert_eq!(parse_size("k"), None);
    assert_eq!(parse_size("-1"), None);
    assert_eq!(parse_size("99999999999999999999g"), None);
}

#[test]
fn run_name_is_utc_timestamp() {
    assert_eq!(run_name_for(0), "1970_01_01_00_00_00");
    assert_eq!(run_name_for(951_782_400), "2000_02_29_00_00_00");
    assert_eq!(run_name_for(1_767_225_599), "2025_12_31_23_59_59");
}

#[test]
fn domains_none_and_empty_values() {
    let (c, w) = parse(&[("DOMAINS", "none")]);
    assert!(w.is_empty());
    assert!(!c.domains.any());
    // An empty variable counts as unset.
    let (c, w) = parse(&[("OUTPUT_DIR", "  ")]);
    assert!(w.is_empty());
    assert_eq!(c.output_dir, PathBuf::from(DEFAULT_OUTPUT_DIR));
}

#[test]
fn watermark_below_size() {
    let (c, _) = parse(&[("BUFFER_SIZE", "64k")]);
    assert_eq!(c.buffer_watermark(), 65536 - 8192);
}

/// `JOB_START` is a Unix time in seconds (a fraction kept to the ns); `CLOCK_REFERENCE` an
/// address other processes reach. A bad one of either is one line, and the setting is off.
#[test]
fn the_job_start_and_the_clock_reference() {
    let (c, w) = parse(&[
        ("JOB_START", "1760000000.25"),
        ("CLOCK_REFERENCE", "node0:6010"),
    ]);
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(c.job_start_ns, Some(1_760_000_000_250_000_000));
    assert_eq!(c.clock_reference.as_deref(), Some("node0:6010"));
    let (c, _) = parse(&[("CLOCK_REFERENCE", "[::1]:6010")]);
    assert_eq!(c.clock_reference.as_deref(), Some("[::1]:6010"));
    for (var, v, says) in [
        ("JOB_START", "yesterday", "expected a Unix time"),
        ("JOB_START", "1760000000.1234567891", "expected a Unix time"),
        ("JOB_START", "0", "expected a Unix time"),
        ("CLOCK_REFERENCE", "6010", "expected HOST:PORT"),
        ("CLOCK_REFERENCE", "0.0.0.0:6010", "not a wildcard"),
        ("CLOCK_REFERENCE", "::1:6010", "in brackets"),
        ("CLOCK_REFERENCE", "node0:0", "expected HOST:PORT"),
    ] {
        let (c, w) = parse(&[(var, v)]);
        assert_eq!(w.len(), 1, "{var}={v}: {w:?}");
        assert!(w[0].0.contains(says), "{var}={v}: {w:?}");
        assert_eq!((c.job_start_ns, c.clock_reference.as_deref()), (None, None));
    }
}
