//! The device planes built on threads of their own while the writing thread builds the host
//! plane, reaching the sink in the order one thread gives them. A device plane that could
//! start only at the host plane's end is left to the writing thread, whose heap the host
//! events are freed into.

use std::sync::{Condvar, Mutex, PoisonError};

use super::{BuiltPlane, Device};

/// How far the host plane has freed the host events it writes (`HostEvents::take`: the trace's
/// last write), for the device planes built beside it. A device plane built while the host
/// plane still holds the events it has not written adds its whole size on top of them: on a
/// run of one long stream (a launch storm) its one line is as large as the host events, and
/// the two together were the writer's top, above the join's. So a device plane starts only
/// once the host plane has freed as many bytes as it will hold (`plane_bytes`), or has ended;
/// with the events borrowed (a window written again) nothing is freed and nothing waits.
pub(super) struct HostProgress {
    state: Mutex<Freed>,
    changed: Condvar,
    /// Bytes of events the host plane frees in all (0 when they are borrowed).
    total: u64,
}

#[derive(Clone, Copy)]
struct Freed {
    bytes: u64,
    /// The host plane has ended (built, failed or panicked): nothing is waited for any more.
    done: bool,
}

impl HostProgress {
    /// `gated`: the host plane frees its events as it writes them, `total` bytes in all.
    pub(super) fn new(gated: bool, total: u64) -> Self {
        HostProgress {
            state: Mutex::new(Freed {
                bytes: 0,
                done: !gated,
            }),
            changed: Condvar::new(),
            total: if gated { total } else { 0 },
        }
    }

    /// Whether a device plane that holds `bytes` starts only once the host plane has ended:
    /// the host plane frees less than that in all.
    fn holds_back_to_the_end(&self, bytes: u64) -> bool {
        let gated = !self
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .done;
        gated && self.total < bytes
    }

    /// The host plane freed `bytes` more of its events.
    pub(super) fn freed(&self, bytes: u64) {
        self.update(|f| f.bytes += bytes);
    }

    /// The host plane has ended.
    fn done(&self) {
        self.update(|f| f.done = true);
    }

    fn update(&self, f: impl FnOnce(&mut Freed)) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let was = *state;
        f(&mut state);
        if !was.done {
            self.changed.notify_all();
        }
    }

    /// Waits until the host plane has freed `bytes`, or has ended.
    fn wait_for(&self, bytes: u64) {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let state = self
            .changed
            .wait_while(state, |f| !f.done && f.bytes < bytes)
            .unwrap_or_else(PoisonError::into_inner);
        drop(state);
    }
}

/// Marks the host plane ended when dropped: a worker waiting on it is let go however the host
/// plane ends (its sink failing, a panic).
struct HostEnded<'p>(&'p HostProgress);

impl Drop for HostEnded<'_> {
    fn drop(&mut self) {
        self.0.done();
    }
}

/// The device planes handed out to the threads that build them, by a counter: a plane is
/// claimed once, by the first thread to ask, and the planes reach the sink in ordinal order.
pub(super) struct DevicePlanes<'t> {
    devices: &'t [Device],
    next: std::sync::atomic::AtomicUsize,
}

impl<'t> DevicePlanes<'t> {
    pub(super) fn new(devices: &'t [Device]) -> Self {
        DevicePlanes {
            devices,
            next: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The next unclaimed device, as its index; `kept`, the writing thread's own, is passed
    /// over.
    fn claim(&self, kept: Option<usize>) -> Option<usize> {
        loop {
            let i = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if Some(i) != kept {
                return (i < self.devices.len()).then_some(i);
            }
        }
    }

    /// The first device plane that would start only once the host plane has ended
    /// (`HostProgress::holds_back_to_the_end`), kept for the writing thread: it is free by
    /// then, and its heap holds the host events just freed (they were made on it), which the
    /// plane's lines then reuse; a worker's heap has none of them to give, and every page of
    /// the lines would be new to the process.
    fn kept_for_the_writer(
        &self,
        plane_bytes: &impl Fn(&Device) -> u64,
        progress: &HostProgress,
    ) -> Option<usize> {
        self.devices
            .iter()
            .position(|d| progress.holds_back_to_the_end(plane_bytes(d)))
    }

    /// No device is handed out after this (the sink failed: what is built is not written).
    fn close(&self) {
        self.next
            .store(self.devices.len(), std::sync::atomic::Ordering::Relaxed);
    }

    /// `workers` threads build device planes while this one builds the host plane (`host`),
    /// sinks it, and then builds the planes still unclaimed, sinking each in order as soon as
    /// the planes before it are in. A worker that cannot be started, or that ends without
    /// handing in its plane (a panic), leaves its planes to this thread.
    /// A worker starts a device plane once `progress` says the host plane has freed what that
    /// plane will hold (`plane_bytes`, by device index); the first plane that would wait for
    /// the host plane's end is this thread's (`kept_for_the_writer`), built in its turn.
    pub(super) fn build<E>(
        &self,
        workers: usize,
        device: &(impl Fn((usize, &Device)) -> BuiltPlane + Sync),
        plane_bytes: &(impl Fn(&Device) -> u64 + Sync),
        progress: &HostProgress,
        host: impl FnOnce() -> BuiltPlane,
        sink: &mut impl FnMut(BuiltPlane) -> Result<(), E>,
    ) -> Result<(), E> {
        let kept = self.kept_for_the_writer(plane_bytes, progress);
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel::<(usize, BuiltPlane)>();
            let mut started = Vec::new();
            let claimable = self.devices.len() - usize::from(kept.is_some());
            for _ in 0..workers.min(claimable) {
                let tx = tx.clone();
                let spawned = std::thread::Builder::new()
                    .name("rocprof-xplane-planes".into())
                    .spawn_scoped(scope, move || {
                        let timer = crate::measure::helper_start();
                        while let Some(i) = self.claim(kept) {
                            progress.wait_for(plane_bytes(&self.devices[i]));
                            if tx.send((i, device((i, &self.devices[i])))).is_err() {
                                break;
                            }
                        }
                        crate::measure::helper_done(timer);
                        crate::measure::cpu_with_helpers_ns()
                    });
                match spawned {
                    Ok(handle) => started.push(handle),
                    Err(e) => {
                        crate::log_debug!("building the device planes on fewer threads: {e}");
                        break;
                    }
                }
            }
            drop(tx);
            let sunk = self.sink_in_order(device, progress, host, kept, &rx, sink);
            if sunk.is_err() {
                self.close();
            }
            drop(rx);
            // Joined here, so a worker's panic (its plane then built by this thread) is
            // reported rather than raised again as the scope ends.
            for worker in started {
                match worker.join() {
                    Ok(cpu) => crate::measure::add_helper_cpu(cpu),
                    Err(_) => crate::log_debug!(
                        "a device plane thread panicked; its planes were built again"
                    ),
                }
            }
            sunk
        })
    }

    fn sink_in_order<E>(
        &self,
        device: &impl Fn((usize, &Device)) -> BuiltPlane,
        progress: &HostProgress,
        host: impl FnOnce() -> BuiltPlane,
        kept: Option<usize>,
        rx: &std::sync::mpsc::Receiver<(usize, BuiltPlane)>,
        sink: &mut impl FnMut(BuiltPlane) -> Result<(), E>,
    ) -> Result<(), E> {
        {
            let _ended = HostEnded(progress);
            sink(host())?;
        }
        let mut waiting: Vec<Option<BuiltPlane>> = Vec::new();
        waiting.resize_with(self.devices.len(), || None);
        for want in 0..self.devices.len() {
            let plane = loop {
                // Planes the workers finished first: the next in order is written before any
                // more work is taken, since the plane after it may take the output only then
                // (`spill::OutputTurn`); a plane left waiting while this thread builds another
                // would set its lines aside to its end instead.
                while let Ok((i, p)) = rx.try_recv() {
                    waiting[i] = Some(p);
                }
                if let Some(p) = waiting[want].take() {
                    break p;
                }
                // This thread's own plane in its turn; work first, wait only when nothing is
                // left to claim.
                if kept == Some(want) {
                    break device((want, &self.devices[want]));
                }
                let (i, p) = match self.claim(kept) {
                    Some(i) => (i, device((i, &self.devices[i]))),
                    None => match rx.recv() {
                        Ok(got) => got,
                        // Every worker has ended and this plane never came: build it here.
                        Err(_) => (want, device((want, &self.devices[want]))),
                    },
                };
                waiting[i] = Some(p);
            };
            sink(plane)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xplane::builder::{LineBuilder, PlaneBuilder, StatBytes};

    /// `n` devices with nothing but their ordinals, 0 to `n - 1`.
    fn numbered_devices(n: u32) -> Vec<Device> {
        (0..n)
            .map(|ordinal| Device {
                ordinal,
                ..Device::default()
            })
            .collect()
    }

    /// A worker that panics while building a plane leaves that plane to the writing thread:
    /// every plane still reaches the sink, once, in ordinal order. Each device plane here
    /// panics on a worker thread once.
    #[test]
    fn a_plane_a_worker_could_not_build_is_built_by_the_writing_thread() {
        let devices = numbered_devices(6);
        let failed = std::sync::Mutex::new(Vec::new());
        let device = |(_, d): (usize, &Device)| {
            let on_worker = std::thread::current().name() == Some("rocprof-xplane-planes");
            if on_worker && d.ordinal % 2 == 1 {
                let mut failed = failed.lock().unwrap();
                if !failed.contains(&d.ordinal) {
                    failed.push(d.ordinal);
                    drop(failed);
                    panic!("a test's panic on a worker, plane {}", d.ordinal);
                }
            }
            PlaneBuilder::new(i64::from(d.ordinal), format!("plane {}", d.ordinal)).finish()
        };
        let mut sunk = Vec::new();
        DevicePlanes::new(&devices)
            .build(
                2,
                &device,
                &|_| 0,
                &HostProgress::new(false, 0),
                // The host plane takes a while: the workers claim planes first.
                || {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    PlaneBuilder::new(-1, "host").finish()
                },
                &mut |p: BuiltPlane| {
                    sunk.push(p.into_xplane().id);
                    Ok::<(), std::convert::Infallible>(())
                },
            )
            .unwrap();
        assert_eq!(sunk, [-1, 0, 1, 2, 3, 4, 5]);
        assert!(!failed.lock().unwrap().is_empty(), "a worker panicked");
    }

    /// A worker that panics mid-plane after its plane took the output (its turn had come) has
    /// left part of that plane there. The writing thread builds the plane again, and the
    /// output is made to end where the turn began before it is written: the file is the same,
    /// byte for byte, as one no worker failed in. Here device plane 0's worker waits for its
    /// turn, writes three lines into the output and panics, once.
    #[test]
    fn a_plane_that_panicked_in_the_output_is_taken_out_before_it_is_written_again() {
        use crate::xplane::spill::{OutputTurn, SpillPolicy};
        use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
        let devices = numbered_devices(3);
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, panic_once: bool| {
            let path = dir.path().join(name);
            let file = std::fs::File::create(&path).unwrap();
            let turn = OutputTurn::of(&file, true).unwrap();
            let policy = SpillPolicy::past(dir.path(), 0).with_output(turn.clone());
            let (claimed, panicked) = (AtomicBool::new(false), AtomicBool::new(!panic_once));
            let waited = |what: &dyn Fn() -> bool| {
                let t = std::time::Instant::now();
                while !what() {
                    assert!(t.elapsed().as_secs() < 20, "the test's threads never met");
                    std::thread::yield_now();
                }
            };
            let device = |(i, d): (usize, &Device)| {
                let on_worker = std::thread::current().name() == Some("rocprof-xplane-planes");
                let policy = policy.for_plane(1 + i);
                if on_worker && i == 0 {
                    claimed.store(true, SeqCst);
                    waited(&|| policy.output.as_ref().is_some_and(|o| o.open().is_some()));
                }
                let mut p = PlaneBuilder::new(i64::from(d.ordinal), format!("plane {i}"));
                p.spill_lines(Some(policy));
                for l in 0..6 {
                    if on_worker && i == 0 && l == 3 && !panicked.swap(true, SeqCst) {
                        panic!("a test's panic on a worker, mid-plane");
                    }
                    let mut line = LineBuilder::new(l, format!("line {l}"), 0);
                    let id = p.event_metadata_id("k");
                    line.add_event(id, 10 * l, 5, &StatBytes::new());
                    p.add_line(line.finish());
                }
                p.finish()
            };
            let mut out = std::io::BufWriter::new(file.try_clone().unwrap());
            // The file writer's own step for each plane, rewind included.
            let write = crate::xplane::file::write_plane;
            DevicePlanes::new(&devices)
                .build(
                    1,
                    &device,
                    &|_| 0,
                    &HostProgress::new(false, 0),
                    // The worker claims device plane 0 before the host plane is written.
                    || {
                        waited(&|| claimed.load(SeqCst));
                        PlaneBuilder::new(-1, "host").finish()
                    },
                    &mut |p: BuiltPlane| write(&p, &mut out, Some(&turn), true),
                )
                .unwrap();
            assert!(panicked.load(SeqCst));
            std::fs::read(path).unwrap()
        };
        let want = write("whole.pb", false);
        let got = write("after-a-panic.pb", true);
        assert!(got == want, "{} B against {} B", got.len(), want.len());
        let space =
            <crate::xplane::proto::XSpace as prost::Message>::decode(got.as_slice()).unwrap();
        let names: Vec<&str> = space.planes.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["host", "plane 0", "plane 1", "plane 2"]);
        assert!(space.planes[1..].iter().all(|p| p.lines.len() == 6));
    }

    /// With the host events freed as written, a worker starts a device plane only once the
    /// host plane has freed what that plane will hold: the host plane here frees its events in
    /// four steps, a device plane holds two steps' worth, and the host plane waits a while for
    /// the worker to start before each step (without the gate it starts at once). With the
    /// events borrowed, the worker starts at once.
    #[test]
    fn a_device_plane_starts_once_the_host_plane_freed_what_it_will_hold() {
        use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
        use std::time::{Duration, Instant};
        const STEP: u64 = 1000;
        let devices = numbered_devices(1);
        let run = |gated: bool| {
            let progress = HostProgress::new(gated, 4 * STEP);
            // Bytes freed when the device plane started (`u64::MAX`: not yet).
            let started_at = AtomicU64::new(u64::MAX);
            let freed = AtomicU64::new(0);
            let device = |(_, d): (usize, &Device)| {
                started_at.store(freed.load(SeqCst), SeqCst);
                PlaneBuilder::new(i64::from(d.ordinal), "device").finish()
            };
            let host = || {
                for _ in 0..4 {
                    let t = Instant::now();
                    while started_at.load(SeqCst) == u64::MAX
                        && t.elapsed() < Duration::from_millis(1000)
                    {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    freed.fetch_add(STEP, SeqCst);
                    progress.freed(STEP);
                }
                PlaneBuilder::new(-1, "host").finish()
            };
            let mut sunk = Vec::new();
            DevicePlanes::new(&devices)
                .build(
                    1,
                    &device,
                    &|_| 2 * STEP,
                    &progress,
                    host,
                    &mut |p: BuiltPlane| {
                        sunk.push(p.into_xplane().id);
                        Ok::<(), std::convert::Infallible>(())
                    },
                )
                .unwrap();
            assert_eq!(sunk, [-1, 0]);
            started_at.load(SeqCst)
        };
        assert_eq!(run(true), 2 * STEP, "started once two steps were freed");
        assert_eq!(run(false), 0, "nothing freed, nothing waited for");
    }

    /// A device plane larger than all the host events freed as they are written would start
    /// only at the host plane's end: the writing thread builds it then (its heap holds what
    /// the host plane freed), never a worker; a smaller one goes to a worker as before. The
    /// host plane here ends only once the worker has taken its first claim.
    #[test]
    fn a_plane_that_waits_for_the_host_planes_end_is_the_writing_threads() {
        use std::sync::atomic::Ordering::SeqCst;
        let devices = numbered_devices(2);
        let writer = std::thread::current().id();
        let on_writer = Mutex::new(Vec::new());
        let device = |(_, d): (usize, &Device)| {
            if std::thread::current().id() == writer {
                on_writer.lock().unwrap().push(d.ordinal);
            }
            PlaneBuilder::new(i64::from(d.ordinal), "device").finish()
        };
        let progress = HostProgress::new(true, 1000);
        let planes = DevicePlanes::new(&devices);
        let mut sunk = Vec::new();
        planes
            .build(
                1,
                &device,
                &|d: &Device| if d.ordinal == 0 { 2000 } else { 500 },
                &progress,
                || {
                    let t = std::time::Instant::now();
                    while planes.next.load(SeqCst) == 0 {
                        assert!(t.elapsed().as_secs() < 20, "the worker never claimed");
                        std::thread::yield_now();
                    }
                    progress.freed(1000);
                    PlaneBuilder::new(-1, "host").finish()
                },
                &mut |p: BuiltPlane| {
                    sunk.push(p.into_xplane().id);
                    Ok::<(), std::convert::Infallible>(())
                },
            )
            .unwrap();
        assert_eq!(sunk, [-1, 0, 1]);
        assert!(
            on_writer.into_inner().unwrap().contains(&0),
            "plane 0 built by the writing thread"
        );
    }
}
