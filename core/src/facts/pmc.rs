//! Hardware-counter facts (performance monitoring counters, "PMC"): what the SDK's dispatch
//! counting service delivers, as the buffer callback keeps it, and one counter instance's value
//! once its counter is named.

use std::sync::Arc;

/// One counter instance's value for one dispatch, as delivered (a `VALUE` record of the
/// `COUNTERS` category): the instance id still encodes counter and dimension positions; the
/// capture names it through the SDK after the buffer is flushed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterSample {
    pub dispatch_id: u64,
    pub instance: u64,
    pub value: f64,
}

/// The header record the service puts before a dispatch's values: which agent it ran on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterDispatch {
    pub dispatch_id: u64,
    pub agent: u64,
}

/// One counter instance's value for one dispatch, named: what the join reads. A dispatch has one
/// per instance of each counter collected (a counter with 32 instances gives 32 values).
#[derive(Debug, Clone, PartialEq)]
pub struct CounterValue {
    pub dispatch_id: u64,
    /// Agent handle of the GPU that ran the dispatch (0 if its header record never came).
    pub agent: u64,
    pub counter: Arc<str>,
    pub value: f64,
}

/// One read of one GPU's device counters (the device counting service, `ROCPROF_XPLANE_PMC_INTERVAL`):
/// a counter's value **accumulated since the counters started**, its instances summed, and when
/// the read returned (SDK clock, ns). A sample of a GPU has one of these per counter, all with
/// the same `time_ns` and `read`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceSample {
    /// Agent handle of the GPU read.
    pub agent: u64,
    /// The read's number, one per read and never reused in a run: two reads the clock gave one
    /// time are two reads, and the copy of a read a cut hands on to the next is that read.
    pub read: u64,
    pub time_ns: u64,
    pub counter: Arc<str>,
    pub value: f64,
}
