use super::*;

fn sink(dir: &std::path::Path) -> Sink {
    let (mut cfg, _) = Config::parse(|_| None, 0);
    cfg.output_dir = dir.to_path_buf();
    cfg.run_name = "run".into();
    let cfg: &'static Config = Box::leak(Box::new(cfg));
    let recorder: &'static Recorder = Box::leak(Box::default());
    Sink::start(recorder, cfg, WindowFiles::new(cfg, true), true)
}

fn last() -> LastWindow {
    LastWindow {
        c: Collected::default(),
        began: Instant::now(),
        attach: AttachAtExit::default(),
        ended: false,
    }
}

/// A run that ends before its first cut writes its one profile on the thread that ends it,
/// as a run held whole does: the writer's thread (and an allocator arena of its own) is
/// never started.
#[test]
fn a_run_without_a_cut_starts_no_writer_thread() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = sink(dir.path());
    assert!(s.threaded(), "windows still go to a thread once cut");
    s.barrier();
    s.last(last());
    assert!(
        matches!(s.mode, Mode::Unstarted(Some(_))),
        "the last window went to a thread"
    );
}

/// The threads that joined and wrote the windows of each output directory, in order.
static DONE: std::sync::Mutex<Vec<(std::path::PathBuf, &'static str, u32, String)>> =
    std::sync::Mutex::new(Vec::new());

fn note(cfg: &Config, what: &'static str, n: u32) {
    let thread = std::thread::current().name().unwrap_or("").to_string();
    let mut done = DONE.lock().unwrap();
    done.push((cfg.output_dir.clone(), what, n, thread));
}

/// Output directories whose joins take a while (a slow join, for the pipeline's test).
static SLOW_JOINS: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

pub(super) fn hold_join(cfg: &Config) {
    if SLOW_JOINS.lock().unwrap().contains(&cfg.output_dir) {
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
}

pub(super) fn note_hand_off(cfg: &Config) {
    note(cfg, "hand-off", 0);
}

pub(super) fn note_join(cfg: &Config) {
    note(cfg, "join", 0);
}

pub(super) fn note_write(cfg: &Config, n: u32) {
    note(cfg, "write", n);
}

fn done(dir: &std::path::Path) -> Vec<(&'static str, u32, String)> {
    let done = DONE.lock().unwrap();
    done.iter()
        .filter(|(d, ..)| d == dir)
        .map(|(_, what, n, thread)| (*what, *n, thread.clone()))
        .collect()
}

fn cut(always: bool) -> CutWindow {
    let now = Instant::now();
    CutWindow {
        c: Collected::default(),
        always,
        began: now,
        collected: now,
    }
}

/// Windows are handed off, joined and written on three threads of the writer's (a window
/// is handed off while the one before is joined, and written while the next is joined), in
/// the order they were cut, under the numbers of that order.
#[test]
fn windows_are_written_beside_their_joins_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = sink(dir.path());
    for _ in 0..3 {
        s.window(cut(true));
    }
    s.barrier();
    let done = done(dir.path());
    let hand_offs: Vec<_> = done.iter().filter(|d| d.0 == "hand-off").collect();
    assert_eq!(hand_offs.len(), 3, "{done:?}");
    assert!(
        hand_offs.iter().all(|h| h.2 == HAND_OFF_THREAD_NAME),
        "{done:?}"
    );
    let joins: Vec<_> = done.iter().filter(|d| d.0 == "join").collect();
    let writes: Vec<_> = done.iter().filter(|d| d.0 == "write").collect();
    assert_eq!(joins.len(), 3, "{done:?}");
    assert!(joins.iter().all(|j| j.2 == THREAD_NAME), "{done:?}");
    let numbers: Vec<u32> = writes.iter().map(|w| w.1).collect();
    assert_eq!(numbers, [1, 2, 3], "{done:?}");
    assert!(writes.iter().all(|w| w.2 == FILES_THREAD_NAME), "{done:?}");
    // After the barrier every window is on disk, numbered as cut.
    let mut runs: Vec<String> = std::fs::read_dir(dir.path().join("plugins/profile"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("run_w"))
        .collect();
    runs.sort();
    assert_eq!(runs, ["run_w0001", "run_w0002", "run_w0003"]);
    s.last(last());
}

/// A window is handed off while the one before it is joined: the hand-off does not wait
/// for the join before it (a slow join holds only the windows after the next).
#[test]
fn a_window_is_handed_off_while_the_one_before_is_joined() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = sink(dir.path());
    SLOW_JOINS.lock().unwrap().push(dir.path().to_path_buf());
    for _ in 0..3 {
        s.window(cut(true));
    }
    s.barrier();
    let done = done(dir.path());
    let at = |what: &str, nth: usize| {
        done.iter()
            .enumerate()
            .filter(|(_, d)| d.0 == what)
            .nth(nth)
            .map(|(i, _)| i)
            .unwrap()
    };
    assert!(at("hand-off", 1) < at("join", 0), "{done:?}");
    s.last(last());
}

/// Inline (window rules off), the hand-off, the join and the write run on the thread that
/// cuts.
#[test]
fn an_inline_writer_writes_on_the_cutting_thread() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, _) = Config::parse(|_| None, 0);
    cfg.output_dir = dir.path().to_path_buf();
    cfg.run_name = "run".into();
    let cfg: &'static Config = Box::leak(Box::new(cfg));
    let recorder: &'static Recorder = Box::leak(Box::default());
    let mut s = Sink::start(recorder, cfg, WindowFiles::new(cfg, false), false);
    s.window(cut(true));
    let here = std::thread::current().name().unwrap_or("").to_string();
    let done = done(dir.path());
    assert_eq!(done.len(), 3, "{done:?}");
    assert!(done.iter().all(|d| d.2 == here), "{done:?}");
}

/// The record anchors a window's join found go to the window after it, in front of what
/// it carried in, only when that window took in what the first handed on; the stream tails
/// go to the next window joined, whatever was handed on.
#[test]
fn record_anchors_go_to_the_window_that_took_the_carry() {
    use crate::model::streams::StreamKey;
    use crate::model::trace::StreamTail;
    let (a, b) = (Anchor::on_device(0, 1, 10), Anchor::on_device(0, 2, 20));
    let tail = StreamTail {
        plane: 0,
        key: StreamKey::Created(1),
        correlation_id: 3,
        anchor: b,
    };
    let joined = |anchors: Vec<(u64, Anchor)>| Trace {
        record_anchors: anchors,
        stream_tails: vec![tail],
        ..Trace::default()
    };
    let mut r = RecordAnchors::default();
    r.keep(true, &mut joined(vec![(1, a)]));
    let mut c = Collected::default();
    c.carried.anchors = vec![(2, b)];
    r.give(&mut c);
    assert_eq!(c.carried.anchors, [(1, a), (2, b)]);
    assert_eq!(c.carried.stream_tails, [tail]);
    // Given once.
    let mut c = Collected::default();
    r.give(&mut c);
    assert!(c.carried.anchors.is_empty());
    assert!(c.carried.stream_tails.is_empty());
    // A window that handed nothing on: the next window took no carry, so no anchors.
    r.keep(false, &mut joined(vec![(1, a)]));
    let mut c = Collected::default();
    r.give(&mut c);
    assert!(c.carried.anchors.is_empty());
    // A window not joined leaves the tails to the window after it.
    r.not_joined(&mut c);
    let mut c = Collected::default();
    r.give(&mut c);
    assert_eq!(c.carried.stream_tails, [tail]);
}

/// A hand-off tells its join whether the window handed something on (which the next
/// window takes in): the record anchors follow what the hand-off held.
#[test]
fn a_hand_off_tells_its_join_whether_it_handed_on() {
    let mut h = HandOff {
        windows: None,
        carry: None,
    };
    let now = Instant::now();
    let stages = || CutStages::begin(0, 0, now, now);
    let handed = h.window(cut(false), stages());
    assert!(!handed.hands_on);
    h.carry = Some((Collected::default(), HandedOn::default()));
    // Window rules off: the carry is taken in, nothing is handed on.
    let handed = h.window(cut(false), stages());
    assert!(!handed.hands_on && h.carry.is_none());
    h.windows = Some(carry::Windows::Apart);
    h.carry = Some((Collected::default(), HandedOn::default()));
    let handed = h.window(cut(true), stages());
    assert!(!handed.hands_on, "a bounded capture's end hands nothing on");
}

/// The first window cut starts the writer's thread, which then takes every window.
#[test]
fn the_first_cut_starts_the_writer_thread() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = sink(dir.path());
    let now = Instant::now();
    s.window(CutWindow {
        c: Collected::default(),
        always: false,
        began: now,
        collected: now,
    });
    assert!(matches!(s.mode, Mode::Thread { .. }));
    s.barrier();
    s.last(last());
    assert!(matches!(
        s.mode,
        Mode::Thread {
            hand_offs: None,
            joins: None,
            ..
        }
    ));
}
