//! Status codes, printed by name.
//!
//! Codes ≥ 13 shifted by one between SDK 0.4 and 0.5, so numbers are never compared except
//! SUCCESS; names come from `rocprofiler_get_status_name` of the running SDK.

use std::fmt;

use rocprofiler_sdk_sys as sys;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SdkError {
    /// What the tool was doing, e.g. "rocprofiler_create_buffer(KERNEL_DISPATCH)".
    pub call: String,
    pub code: u32,
    /// Enumerator name when the SDK can tell it.
    pub name: Option<String>,
}

impl fmt::Display for SdkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(n) => write!(f, "{} failed: {n} ({})", self.call, self.code),
            None => write!(f, "{} failed: status {}", self.call, self.code),
        }
    }
}

impl std::error::Error for SdkError {}

impl SdkError {
    pub fn is(&self, suffix: &str) -> bool {
        self.name.as_deref().is_some_and(|n| n.ends_with(suffix))
    }
}

/// Turns a status into a `Result`, naming the failing call and, when `name_of` can tell, the
/// status.
pub fn check_with(
    code: sys::rocprofiler_status_t,
    call: impl FnOnce() -> String,
    name_of: impl FnOnce(sys::rocprofiler_status_t) -> Option<String>,
) -> Result<(), SdkError> {
    if code == sys::ROCPROFILER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(SdkError {
            call: call(),
            code,
            name: name_of(code),
        })
    }
}

/// An SDK function the table does not have.
pub fn absent(call: &str) -> SdkError {
    SdkError {
        call: call.to_string(),
        code: u32::MAX,
        name: Some("symbol not found".into()),
    }
}
