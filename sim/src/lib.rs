//! A simulated rocprofiler-sdk runtime. **Test infrastructure**: it reproduces the documented
//! behaviour and ABI of the real runtime so the real tool `.so` can be exercised without a GPU.
//! Nothing measured through it is a measurement of real hardware.

pub mod plan;
