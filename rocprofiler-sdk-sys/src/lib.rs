//! Raw declarations of the rocprofiler-sdk C ABI subset used by rocprof-xplane.
