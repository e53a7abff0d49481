//! Two passes side by side: one on this thread, one on a scoped helper thread, when the
//! caller allows more than one thread. The passes share nothing they write, so which thread
//! ran which changes nothing in their results.

/// The cores this process may use: finalize's default thread count (the drain, the join and
/// the writer each bound it further).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `here()` on this thread while `other(input)` runs on a helper, when `threads` is 2 or more
/// and the helper starts; else one after the other, `other` first. Either way the results are
/// the same: the two share nothing they write. A panic on the helper is raised again here, as
/// it would have been had `other` run here. (The join's stages and finalize's drain use it.)
pub fn side_by_side<I, F, B, A>(
    threads: usize,
    input: I,
    other: F,
    here: impl FnOnce() -> A,
) -> (A, B)
where
    I: Send,
    F: FnOnce(I) -> B + Send,
    B: Send,
{
    if threads < 2 {
        let b = other(input);
        return (here(), b);
    }
    let job = std::sync::Mutex::new(Some((input, other)));
    let run = |job: &std::sync::Mutex<Option<(I, F)>>| {
        let taken = job
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        taken.map(|(i, f)| f(i))
    };
    std::thread::scope(|s| {
        let helper = std::thread::Builder::new()
            .name("rocprof-xplane-side".into())
            .spawn_scoped(s, || {
                let timer = crate::measure::helper_start();
                let out = run(&job);
                crate::measure::helper_done(timer);
                (out, crate::measure::cpu_with_helpers_ns())
            });
        let a = here();
        let from_helper = match helper {
            Ok(h) => {
                let (out, cpu) = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                crate::measure::add_helper_cpu(cpu);
                out
            }
            Err(e) => {
                crate::log_debug!("the join's passes run one after the other: {e}");
                None
            }
        };
        // The job is taken once, by the helper or (when it did not start) here.
        match from_helper.or_else(|| run(&job)) {
            Some(b) => (a, b),
            None => unreachable!("the job ran on the helper or here"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The helper's CPU time counts as the calling thread's (a stage's CPU is read on the
    /// thread that ran it), and on one thread nothing is added.
    #[test]
    fn a_helper_s_cpu_counts_as_the_caller_s() {
        use crate::measure::helpers_cpu_ns as helpers;
        let work = |n: u64| (0..n).fold(0u64, |a, i| std::hint::black_box(a ^ i));
        let before = helpers();
        side_by_side(1, 5_000_000, work, || ());
        assert_eq!(helpers(), before, "one thread: no helper");
        side_by_side(2, 5_000_000, work, || ());
        assert!(helpers() > before, "the helper's CPU is the caller's");
    }

    #[test]
    fn passes_side_by_side_give_both_results_and_one_thread_runs_the_other_first() {
        for threads in [1, 2, 4] {
            let order = std::sync::Mutex::new(Vec::new());
            let (a, b) = side_by_side(
                threads,
                20,
                |i: u32| {
                    order.lock().unwrap().push("other");
                    i + 1
                },
                || {
                    order.lock().unwrap().push("here");
                    "here"
                },
            );
            assert_eq!((a, b), ("here", 21), "{threads}");
            let order = order.into_inner().unwrap();
            assert_eq!(order.len(), 2, "{threads}");
            if threads == 1 {
                assert_eq!(order, ["other", "here"]);
            }
        }
    }

    #[test]
    fn a_panic_beside_is_raised_where_the_passes_were_started() {
        let here_ran = std::sync::atomic::AtomicBool::new(false);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            side_by_side(
                2,
                (),
                |()| -> u32 { panic!("beside") },
                || here_ran.store(true, std::sync::atomic::Ordering::Relaxed),
            )
        }));
        let message = caught.err().and_then(|p| p.downcast_ref::<&str>().copied());
        assert_eq!(message, Some("beside"));
        assert!(here_ran.load(std::sync::atomic::Ordering::Relaxed));
    }
}
