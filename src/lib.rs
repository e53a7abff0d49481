//! rocprof-xplane: a rocprofiler-sdk tool library that writes XPlane protobufs for xprof.
//!
//! The only symbol exported to C is `rocprofiler_configure` (see `entry`). Data flows one way:
//! runtime records → decode → stores → model (join/resolve) → xplane → file.

pub mod cli;
pub mod model;
pub mod xplane;
