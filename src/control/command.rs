//! What a trigger asks of the coordinator, and what it gets back.
//!
//! Every way a run's control changes arrives here as a [`Command`]: the user's window signal
//! and SIGTERM (`control::signal`), the profiler service (`server`), attach and detach, and
//! the runtime's finalize (`entry`). The window timer and the range-end flag are looked at by
//! the coordinator itself, between commands (`Coordinator::tick`).

use crate::model::events::Collected;
use crate::sdk::Context;

/// One request to the coordinator.
#[derive(Debug)]
pub enum Command {
    /// The user's window signal arrived: end the current capture window.
    Cut,
    /// Start recording for the profiler service, dropping what the callbacks kept while
    /// paused: what the next take holds began after this.
    Record,
    /// What was recorded since the last take, recording going on (a flight-recorder segment).
    Snapshot,
    /// Stop recording and hand back what was recorded since the last take.
    Stop,
    /// The tool was attached to the running process; these contexts are ours to start.
    Attach(Vec<Context>),
    /// The tool is being detached: write the attach session's profile.
    Detach,
    /// The program ends (the runtime's finalize, or a terminating signal): the last cut.
    Finalize,
}

impl Command {
    /// The command's name, for the panic guard's line.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Cut => "a window cut",
            Command::Record => "the start of a service capture",
            Command::Snapshot => "a flight-recorder segment",
            Command::Stop => "the end of a service capture",
            Command::Attach(_) => "tool_attach",
            Command::Detach => "tool_detach",
            Command::Finalize => "finalize",
        }
    }
}

/// The coordinator's answer.
#[derive(Debug, Default)]
pub enum Reply {
    /// Done (or nothing to do).
    #[default]
    Done,
    /// The records a `Snapshot` or `Stop` took.
    Records(Box<Collected>),
}

impl Reply {
    /// The records of a `Snapshot` or `Stop`; empty for any other reply (the coordinator has
    /// finalized, say).
    pub fn into_records(self) -> Collected {
        match self {
            Reply::Records(c) => *c,
            Reply::Done => Collected::default(),
        }
    }
}
