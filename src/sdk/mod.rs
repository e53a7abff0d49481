//! The safe layer over `rocprofiler-sdk-sys`, and the only code that calls SDK functions: the
//! function table (resolved with `dlsym`) behind typed handles and `Result`s, the ABI family of
//! the running runtime, status names, name↔id maps, agents, the session's setup, the
//! callbacks' trampolines and the safe views they hand on, the tool's configure result — and
//! the operating-system calls the tool makes (`os`).
//!
//! Nothing here links against `librocprofiler-sdk.so.{0,1}`: the runtime dlopens the SDK
//! `RTLD_GLOBAL` before configuring tools, so every function is found through
//! `dlsym(RTLD_DEFAULT, …)` and one build of the tool works with both sonames.

pub mod agents;
pub mod callbacks;
pub mod device_counting;
pub mod functions;
pub mod names;
pub mod os;
pub mod payload;
pub mod pmc;
pub mod session;
pub mod status;
pub mod tool;

pub use crate::decode::abi::Abi;
pub use callbacks::Tracer;
pub use functions::{Buffer, Context, Functions};
pub use session::Session;
pub use status::SdkError;
