//! Process attachment (SDK 1.2.0+, feature-detected by the runtime looking up
//! `rocprofiler_configure_attach`): `rocprof-attach -p PID -t librocprof_xplane.so -d MS`
//! loads the tool into a running process (started with `ROCP_TOOL_ATTACH=1`), and detaches it
//! again later, possibly several times.
//!
//! Each attach..detach session is one capture: the attach starts our contexts (the SDK starts
//! none), the detach flushes our buffers (the SDK flushes none) and writes the session's
//! profile — the first into the run directory itself, later ones into `<run>_attachNN` — so a
//! profile exists as soon as the detach returns, long before the process exits. Kernels keep
//! their names although their code objects loaded before the attach: the SDK's attach path
//! reports the code objects that already exist.
//!
//! This is the bookkeeping; the coordinator acts on attach and detach in order with every
//! other command, so a detach and the finalize never write at the same time.

use crate::config::Config;

/// The run directory of attach session `n` (1-based).
pub fn run_name_of(cfg: &Config, n: u32) -> String {
    session_run_name(&cfg.run_name, n)
}

/// The run name of attach session `n` (1-based) of a process whose tool was configured with
/// run name `run` at its first attach (later attaches do not configure it again): `run`, then
/// `<run>_attach02`, … The CLI's `attach` says where a session goes by the same rule.
pub fn session_run_name(run: &str, n: u32) -> String {
    if n <= 1 {
        run.to_string()
    } else {
        format!("{run}_attach{n:02}")
    }
}

/// The attach sessions of this process.
#[derive(Debug, Default)]
pub struct Attach {
    /// Sessions begun.
    sessions: u32,
    /// Between an attach and its detach.
    attached: bool,
}

impl Attach {
    /// Whether this process was attached at least once (then only attach sessions make
    /// profiles).
    pub fn used(&self) -> bool {
        self.sessions > 0
    }

    /// Whether an attach session is under way.
    pub fn attached(&self) -> bool {
        self.attached
    }

    /// Under attachment, whether a session is under way (`None`: never attached), as
    /// `Windows::skip_final` asks.
    pub fn state(&self) -> Option<bool> {
        self.used().then_some(self.attached)
    }

    /// The run name of the attach session under way, if any: a process that ends while
    /// attached writes that session at finalize.
    pub fn current_run(&self, cfg: &Config) -> Option<String> {
        self.attached.then(|| run_name_of(cfg, self.sessions))
    }

    /// A session begins; its number (1-based).
    pub fn begin(&mut self) -> u32 {
        self.sessions += 1;
        self.attached = true;
        self.sessions
    }

    /// The session under way ends; its number, or `None` when none was under way.
    pub fn end(&mut self) -> Option<u32> {
        std::mem::take(&mut self.attached).then_some(self.sessions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_numbered_and_named_after_the_run() {
        let (cfg, _) = Config::parse(|_| None, 0);
        let mut a = Attach::default();
        assert_eq!((a.used(), a.state(), a.end()), (false, None, None));
        assert_eq!(a.begin(), 1);
        assert_eq!(a.current_run(&cfg), Some(cfg.run_name.clone()));
        assert_eq!(a.end(), Some(1));
        assert_eq!((a.end(), a.state()), (None, Some(false)));
        assert_eq!(a.begin(), 2);
        assert_eq!(
            a.current_run(&cfg),
            Some(format!("{}_attach02", cfg.run_name))
        );
    }
}
