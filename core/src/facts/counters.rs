//! The accounting of a profile: what was received, skipped, dropped or left unmatched, so that
//! nothing is lost silently. Each store counts what it decoded, the join what it could not
//! join; the sums are written into the profile.

/// Accounting of everything received, so that nothing is lost silently.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters {
    pub api_records: u64,
    pub kernel_records: u64,
    pub memcpy_records: u64,
    pub marker_records: u64,
    /// Records of kinds we did not ask for or do not know, skipped.
    pub unknown_kind_records: u64,
    /// Records whose `size` field was too small for the layout we read, skipped.
    pub bad_size_records: u64,
    /// Sum of `drop_count` reported by the runtime to our buffer callbacks.
    pub runtime_dropped: u64,
    /// Device activities whose correlation id matched no API record (kept, without a flow).
    pub activities_without_api: u64,
    /// Of those, the ones with no launch facts of their call either (`CallFact`): shown without
    /// its stream and roctx labels. In a run cut into capture windows, a dispatch delivered
    /// after its launch's window and after what went along with it (`model::carry`).
    pub activities_unplaced: u64,
    /// Launch/copy API records that produced no device activity (kept on the host).
    pub launches_without_activity: u64,
    /// Kernel dispatches whose kernel id had no symbol (named by id).
    pub kernels_without_symbol: u64,
    /// Device activities with unusable timestamps: a zero start cannot be placed on the timeline
    /// (skipped), an end before the start is shown with zero duration.
    pub bad_timestamp_records: u64,
    /// Waits (`hipStreamWaitEvent`, `hipEventSynchronize`, `hipEventQuery`) resolved to the
    /// record they waited for, and those whose event was not recorded in the capture window.
    pub waits_resolved: u64,
    pub waits_unresolved: u64,
    /// Waits resolved to a record whose anchor is not in this profile (a record made in an
    /// earlier capture window, unless the windows are merged: `Collected::earlier_anchors`):
    /// no arrow is drawn.
    pub waits_without_arrow: u64,
    /// Device events moved to a sub-line because their stream overlapped itself.
    pub stream_overlap_events: u64,
    /// HIP event barrier records (`HIP_EVENT`, SDK after 1.3.5) received.
    pub hip_event_records: u64,
    /// Records delivered after the memory ceiling was reached, dropped instead of kept.
    pub memory_limit_dropped: u64,
    /// Frees (and unregistrations) that ended no allocation seen in the profile: memory
    /// allocated before it began, a double free, a pointer HIP did not hand out.
    pub memory_frees_unmatched: u64,
    /// Capture windows that could not be written (each named with its span and record count
    /// in the profile's warnings), and the records they held.
    pub windows_lost: u64,
    pub window_records_lost: u64,
}

impl std::ops::AddAssign<&Counters> for Counters {
    /// Sums two accountings (a store's into a window's, segments of the flight recorder).
    fn add_assign(&mut self, o: &Counters) {
        let Counters {
            api_records,
            kernel_records,
            memcpy_records,
            marker_records,
            unknown_kind_records,
            bad_size_records,
            runtime_dropped,
            activities_without_api,
            activities_unplaced,
            launches_without_activity,
            kernels_without_symbol,
            bad_timestamp_records,
            waits_resolved,
            waits_unresolved,
            waits_without_arrow,
            stream_overlap_events,
            hip_event_records,
            memory_limit_dropped,
            memory_frees_unmatched,
            windows_lost,
            window_records_lost,
        } = o;
        self.api_records += api_records;
        self.kernel_records += kernel_records;
        self.memcpy_records += memcpy_records;
        self.marker_records += marker_records;
        self.unknown_kind_records += unknown_kind_records;
        self.bad_size_records += bad_size_records;
        self.runtime_dropped += runtime_dropped;
        self.activities_without_api += activities_without_api;
        self.activities_unplaced += activities_unplaced;
        self.launches_without_activity += launches_without_activity;
        self.kernels_without_symbol += kernels_without_symbol;
        self.bad_timestamp_records += bad_timestamp_records;
        self.waits_resolved += waits_resolved;
        self.waits_unresolved += waits_unresolved;
        self.waits_without_arrow += waits_without_arrow;
        self.stream_overlap_events += stream_overlap_events;
        self.hip_event_records += hip_event_records;
        self.memory_limit_dropped += memory_limit_dropped;
        self.memory_frees_unmatched += memory_frees_unmatched;
        self.windows_lost += windows_lost;
        self.window_records_lost += window_records_lost;
    }
}
