//! What `rocprofiler_configure` and `rocprofiler_configure_attach` hand the runtime: the
//! client's name, written into the runtime's client id, and the lifecycle functions with the
//! user data the runtime passes back to them.

use std::ffi::{c_int, c_void, CStr};

use rocprofiler_sdk_sys as sys;

use crate::decode::abi::Abi;

/// Client name shown in the runtime's logs.
pub const CLIENT_NAME: &CStr = c"rocprof-xplane";

/// `initialize(finalize, tool_data)`.
pub type Initialize =
    unsafe extern "C" fn(sys::rocprofiler_client_finalize_any_t, *mut c_void) -> c_int;
/// `finalize(tool_data)`, and `detach(tool_data)`.
pub type WithToolData = unsafe extern "C" fn(*mut c_void);
/// `attach(detach, context_ids, count, tool_data)`.
pub type Attach = unsafe extern "C" fn(
    sys::rocprofiler_client_detach_t,
    *mut sys::rocprofiler_context_id_t,
    u64,
    *mut c_void,
) -> c_int;

/// The two results the runtime asks for; it copies each, so they need only outlive the call
/// that returns them (they live as long as the tool).
pub struct Registration {
    configure: sys::rocprofiler_tool_configure_result_t,
    attach: sys::rocprofiler_tool_configure_attach_result_t,
}

// SAFETY: the results hold function pointers and the user-data pointer of a `'static` value
// that is itself shared between threads; they are never mutated after construction.
unsafe impl Send for Registration {}
// SAFETY: as above.
unsafe impl Sync for Registration {}

impl Registration {
    /// The results naming our lifecycle functions; the runtime passes `tool_data` back to each.
    pub fn new(
        initialize: Initialize,
        finalize: WithToolData,
        attach: Attach,
        detach: WithToolData,
        tool_data: *const c_void,
    ) -> Registration {
        Registration {
            configure: sys::rocprofiler_tool_configure_result_t {
                size: std::mem::size_of::<sys::rocprofiler_tool_configure_result_t>(),
                initialize: Some(initialize),
                finalize: Some(finalize),
                tool_data: tool_data as *mut c_void,
            },
            attach: sys::rocprofiler_tool_configure_attach_result_t {
                size: std::mem::size_of::<sys::rocprofiler_tool_configure_attach_result_t>(),
                tool_attach: Some(attach),
                tool_detach: Some(detach),
                tool_data: tool_data as *mut c_void,
            },
        }
    }

    /// What `rocprofiler_configure` returns.
    pub fn configure_result(&self) -> *mut sys::rocprofiler_tool_configure_result_t {
        &self.configure as *const _ as *mut _
    }

    /// What `rocprofiler_configure_attach` returns.
    pub fn attach_result(&self) -> *mut sys::rocprofiler_tool_configure_attach_result_t {
        &self.attach as *const _ as *mut _
    }
}

/// Names the client in the runtime's client id: `name` sits at offset 0 in the 0.x layout and
/// at offset 8 in 1.x (after the new leading `size`).
///
/// # Safety
/// `client_id` must be null or point to a writable client id of `abi`'s layout.
pub unsafe fn write_client_name(abi: Abi, client_id: *mut c_void) {
    if client_id.is_null() {
        return;
    }
    // SAFETY: per the contract; our name is a static C string that outlives the process's use.
    unsafe {
        match abi {
            Abi::V0 => {
                (*(client_id as *mut sys::rocprofiler_client_id_v0_t)).name = CLIENT_NAME.as_ptr()
            }
            Abi::V1 => {
                (*(client_id as *mut sys::rocprofiler_client_id_v1_t)).name = CLIENT_NAME.as_ptr()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_name_lands_at_the_layout_offset() {
        // 0.x: {name @0, handle @8}; 1.x: {size @0, name @8, handle @16}.
        let mut v0 = [0u64; 2];
        let mut v1 = [24u64, 0, 7];
        // SAFETY: both buffers are large enough for their layouts and writable.
        unsafe {
            write_client_name(Abi::V0, v0.as_mut_ptr() as *mut c_void);
            write_client_name(Abi::V1, v1.as_mut_ptr() as *mut c_void);
            write_client_name(Abi::V1, std::ptr::null_mut());
        }
        let name = CLIENT_NAME.as_ptr() as u64;
        assert_eq!(v0, [name, 0]);
        assert_eq!(v1, [24, name, 7], "size and handle untouched");
    }

    unsafe extern "C" fn init(_: sys::rocprofiler_client_finalize_any_t, _: *mut c_void) -> c_int {
        0
    }
    unsafe extern "C" fn with_data(_: *mut c_void) {}
    unsafe extern "C" fn attach(
        _: sys::rocprofiler_client_detach_t,
        _: *mut sys::rocprofiler_context_id_t,
        _: u64,
        _: *mut c_void,
    ) -> c_int {
        0
    }

    #[test]
    fn the_results_are_complete_and_carry_the_user_data() {
        let data = 0x1234usize as *const c_void;
        let r = Registration::new(init, with_data, attach, with_data, data);
        // SAFETY: pointers to the registration's own fields, alive for the test.
        let (c, a) = unsafe { (&*r.configure_result(), &*r.attach_result()) };
        assert_eq!(c.size, 32);
        assert!(c.initialize.is_some() && c.finalize.is_some());
        assert_eq!(c.tool_data as usize, 0x1234);
        assert_eq!(a.size, 32);
        assert!(a.tool_attach.is_some() && a.tool_detach.is_some());
        assert_eq!(a.tool_data as usize, 0x1234);
    }
}
