//! A simulated rocprofiler-sdk runtime. **Test infrastructure**: it reproduces the documented
//! behaviour and ABI of the real runtime so the real tool `.so` can be exercised without a GPU.
//! Nothing measured through it is a measurement of real hardware.
//!
//! - [`plan`]: the timed, resolved replay plan (shared interface with the scenario compiler).
//! - [`runtime`]: the stand-in runtime — C entry points, lifecycle, buffers, replay.
//! - [`scenario`]: TOML scenarios → [`plan::Plan`]; [`truth`]: what a plan should produce.

pub mod counters;
pub mod plan;
mod prng;
pub mod runtime;
pub mod scenario;
pub mod truth;
