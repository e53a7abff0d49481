//! The control plane: one owner of a run's control, and the triggers that ask it for cuts.
//!
//! ```text
//!  triggers ──Command──▶ coordinator (its own thread)       owns: the SDK session, window
//!    window timer, range end (looked at between commands)    policy, attach state, and the
//!    user's window signal, SIGTERM (signal: self-pipe)       window writer
//!    profiler service (server)
//!    attach / detach, finalize (entry)
//!                          │ cut(kind): stop → wait for calls under way → flush → take the
//!                          ▼ stores → collect (or hand the records back)
//!                    writer (its own thread while window rules are on; owns the carry between
//!                          │ windows, stream numbers, run ids, the windows' files)
//!                          ▼ hand-off → join → write, one window at a time in cut order
//! ```
//!
//! The callbacks only record (`recorder`); everything that decides when to cut and what to
//! write lives here, and runs on the coordinator's thread one command at a time.

pub mod attach;
pub mod collect;
pub mod command;
pub mod coordinator;
pub mod cut;
pub mod sampler;
pub mod signal;
pub mod window_files;
pub mod windows;
pub mod writer;

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use command::{Command, Reply};
use coordinator::Coordinator;

use crate::config::Config;
use crate::guard::ffi_guard;
use crate::model::events::Collected;
use crate::recorder::Recorder;
use crate::sdk::{Context, Session};
use crate::store::sinks::lock;

/// A command and where its answer goes.
struct Request {
    command: Command,
    reply: Option<SyncSender<Reply>>,
}

/// How commands reach the coordinator.
enum Mode {
    /// Over a channel to its thread.
    Thread(Sender<Request>),
    /// No thread could be started: run on the sender's thread, one at a time.
    Inline(Box<Mutex<Coordinator>>),
}

/// The handle every trigger holds to send the coordinator commands.
pub struct Control {
    mode: Mode,
    /// Whether window rules are on (they need the coordinator's thread).
    windows: bool,
}

/// The coordinator's thread (Linux keeps the first 15 bytes of a name).
const THREAD_NAME: &str = "rocprof-xplane-control";

impl Control {
    /// Starts the coordinator of `session` on its own thread (inline when no thread can be
    /// started: then without the window timer, and one profile at exit).
    pub fn start(recorder: &'static Recorder, session: Session, cfg: &'static Config) -> Control {
        let (tx, rx) = mpsc::channel();
        // The thread takes the coordinator out of this slot; if it cannot start, the slot
        // still holds it for the inline mode.
        let slot = Arc::new(Mutex::new(Some((recorder, session))));
        let theirs = Arc::clone(&slot);
        let spawned = std::thread::Builder::new()
            .name(THREAD_NAME.into())
            .spawn(move || {
                let taken = lock(&theirs).take();
                if let Some((recorder, session)) = taken {
                    serve(Coordinator::new(recorder, session, cfg, true), rx);
                }
            });
        let windows = spawned.is_ok() && cfg.window.is_some();
        let mode = match spawned {
            Ok(_) => Mode::Thread(tx),
            Err(e) => {
                crate::log_error!(
                    "cannot start the tool's control thread: {e}; no capture windows, one profile at exit"
                );
                let (recorder, session) = lock(&slot).take().expect("the thread never ran");
                Mode::Inline(Box::new(Mutex::new(Coordinator::new(
                    recorder, session, cfg, false,
                ))))
            }
        };
        Control { mode, windows }
    }

    /// Whether window rules are on in this process.
    pub fn windows_on(&self) -> bool {
        self.windows
    }

    /// Sends `command` and waits for the answer (`Done` when the coordinator has stopped).
    fn request(&self, command: Command) -> Reply {
        match &self.mode {
            Mode::Thread(tx) => {
                let (reply, answer) = mpsc::sync_channel(1);
                let request = Request {
                    command,
                    reply: Some(reply),
                };
                if tx.send(request).is_err() {
                    return Reply::Done;
                }
                answer.recv().unwrap_or_default()
            }
            Mode::Inline(co) => {
                let mut co = lock(co);
                let name = command.name();
                ffi_guard(name, Reply::Done, || co.handle(command))
            }
        }
    }

    /// The user's window signal arrived: the coordinator cuts at its next tick. Does not wait.
    pub fn cut(&self) {
        match &self.mode {
            Mode::Thread(tx) => {
                let _ = tx.send(Request {
                    command: Command::Cut,
                    reply: None,
                });
            }
            Mode::Inline(_) => {}
        }
    }

    /// Starts recording for the profiler service.
    pub fn record(&self) {
        self.request(Command::Record);
    }

    /// What was recorded since the last take, recording going on.
    pub fn snapshot(&self) -> Collected {
        self.request(Command::Snapshot).into_records()
    }

    /// Stops recording; what was recorded since the last take.
    pub fn stop(&self) -> Collected {
        self.request(Command::Stop).into_records()
    }

    /// The tool was attached; `contexts` are ours to start.
    pub fn attach(&self, contexts: Vec<Context>) {
        self.request(Command::Attach(contexts));
    }

    /// The tool is being detached; returns once the session's profile is written.
    pub fn detach(&self) {
        self.request(Command::Detach);
    }

    /// The program ends; returns once the last profile is written.
    pub fn finalize(&self) {
        self.request(Command::Finalize);
    }
}

/// The coordinator's thread: one command at a time, the window timer between them, until
/// finalize. A panic in one command is reported once and the next command is served.
fn serve(mut co: Coordinator, rx: Receiver<Request>) {
    let mut next_tick = Instant::now() + windows::TICK;
    loop {
        let got = if co.ticking() {
            rx.recv_timeout(next_tick.saturating_duration_since(Instant::now()))
        } else {
            rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
        };
        match got {
            Ok(Request { command, reply }) => {
                let name = command.name();
                let answer = ffi_guard(name, Reply::Done, || co.handle(command));
                if let Some(reply) = reply {
                    let _ = reply.send(answer);
                }
                if co.finalized() {
                    return;
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                ffi_guard("the window timer", (), || co.tick());
                next_tick = Instant::now() + windows::TICK;
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
