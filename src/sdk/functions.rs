//! SDK entry points resolved at run time.

use std::ffi::{c_void, CStr};

use rocprofiler_sdk_sys as sys;

/// Declares the table: one field per SDK function, each an `Option` of its pointer type;
/// `None` means the running SDK does not have it (feature absent).
macro_rules! functions {
    ($($field:ident: $ty:ident = $sym:literal,)*) => {
        /// Every SDK function the tool may call.
        #[derive(Clone, Copy, Default)]
        pub struct Functions {
            $(pub $field: sys::$ty,)*
        }

        impl Functions {
            /// Resolves every function with `lookup` (normally `dlsym(RTLD_DEFAULT, …)`).
            pub fn resolve(lookup: impl Fn(&CStr) -> *mut c_void) -> Functions {
                Functions {
                    $($field: {
                        let p = lookup($sym);
                        // SAFETY: `p` is the address of the C function named `$sym` (or null);
                        // the field's type is that function's pointer type from our header, an
                        // `Option<extern "C" fn>` with the null-pointer niche, so null ↦ None.
                        unsafe { std::mem::transmute::<*mut c_void, sys::$ty>(p) }
                    },)*
                }
            }

            /// Names of functions that were not found, for diagnostics.
            pub fn missing(&self) -> Vec<&'static str> {
                let mut v = Vec::new();
                $(if self.$field.is_none() {
                    v.push($sym.to_str().unwrap_or("?"));
                })*
                v
            }
        }
    };
}

functions! {
    create_context: rocprofiler_create_context_fn = c"rocprofiler_create_context",
    start_context: rocprofiler_start_context_fn = c"rocprofiler_start_context",
    stop_context: rocprofiler_stop_context_fn = c"rocprofiler_stop_context",
    context_is_active: rocprofiler_context_is_active_fn = c"rocprofiler_context_is_active",
    create_buffer: rocprofiler_create_buffer_fn = c"rocprofiler_create_buffer",
    flush_buffer: rocprofiler_flush_buffer_fn = c"rocprofiler_flush_buffer",
    configure_buffer_tracing_service: rocprofiler_configure_buffer_tracing_service_fn =
        c"rocprofiler_configure_buffer_tracing_service",
    configure_callback_tracing_service: rocprofiler_configure_callback_tracing_service_fn =
        c"rocprofiler_configure_callback_tracing_service",
    configure_external_correlation_id_request_service:
        rocprofiler_configure_external_correlation_id_request_service_fn =
        c"rocprofiler_configure_external_correlation_id_request_service",
    create_callback_thread: rocprofiler_create_callback_thread_fn =
        c"rocprofiler_create_callback_thread",
    assign_callback_thread: rocprofiler_assign_callback_thread_fn =
        c"rocprofiler_assign_callback_thread",
    query_available_agents: rocprofiler_query_available_agents_fn =
        c"rocprofiler_query_available_agents",
    get_timestamp: rocprofiler_get_timestamp_fn = c"rocprofiler_get_timestamp",
    get_thread_id: rocprofiler_get_thread_id_fn = c"rocprofiler_get_thread_id",
    get_status_name: rocprofiler_get_status_name_fn = c"rocprofiler_get_status_name",
    get_status_string: rocprofiler_get_status_string_fn = c"rocprofiler_get_status_string",
    get_version: rocprofiler_get_version_fn = c"rocprofiler_get_version",
    query_buffer_tracing_kind_name: rocprofiler_query_buffer_tracing_kind_name_fn =
        c"rocprofiler_query_buffer_tracing_kind_name",
    query_buffer_tracing_kind_operation_name:
        rocprofiler_query_buffer_tracing_kind_operation_name_fn =
        c"rocprofiler_query_buffer_tracing_kind_operation_name",
    iterate_buffer_tracing_kinds: rocprofiler_iterate_buffer_tracing_kinds_fn =
        c"rocprofiler_iterate_buffer_tracing_kinds",
    iterate_buffer_tracing_kind_operations: rocprofiler_iterate_buffer_tracing_kind_operations_fn =
        c"rocprofiler_iterate_buffer_tracing_kind_operations",
    query_callback_tracing_kind_name: rocprofiler_query_callback_tracing_kind_name_fn =
        c"rocprofiler_query_callback_tracing_kind_name",
    query_callback_tracing_kind_operation_name:
        rocprofiler_query_callback_tracing_kind_operation_name_fn =
        c"rocprofiler_query_callback_tracing_kind_operation_name",
    iterate_callback_tracing_kinds: rocprofiler_iterate_callback_tracing_kinds_fn =
        c"rocprofiler_iterate_callback_tracing_kinds",
    iterate_callback_tracing_kind_operations:
        rocprofiler_iterate_callback_tracing_kind_operations_fn =
        c"rocprofiler_iterate_callback_tracing_kind_operations",
}

impl Functions {
    /// Looks every function up in the global symbol scope of the process.
    pub fn from_process() -> Functions {
        Functions::resolve(|name| {
            // SAFETY: `name` is a NUL-terminated C string; dlsym with RTLD_DEFAULT only reads
            // the global symbol tables and returns null when the symbol is absent.
            unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }
        })
    }

    /// Functions without which the tool cannot trace at all.
    pub fn missing_required(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (present, name) in [
            (self.create_context.is_some(), "rocprofiler_create_context"),
            (self.start_context.is_some(), "rocprofiler_start_context"),
            (self.create_buffer.is_some(), "rocprofiler_create_buffer"),
            (self.flush_buffer.is_some(), "rocprofiler_flush_buffer"),
            (
                self.configure_buffer_tracing_service.is_some(),
                "rocprofiler_configure_buffer_tracing_service",
            ),
        ] {
            if !present {
                v.push(name);
            }
        }
        v
    }

    /// Current time on the SDK's clock (`CLOCK_BOOTTIME` ns), falling back to the same clock
    /// read directly when the SDK function is absent.
    pub fn timestamp(&self) -> u64 {
        if let Some(f) = self.get_timestamp {
            let mut ts: u64 = 0;
            // SAFETY: `f` is the SDK's rocprofiler_get_timestamp; it writes one u64 through the
            // valid pointer we pass.
            if unsafe { f(&mut ts) } == sys::ROCPROFILER_STATUS_SUCCESS {
                return ts;
            }
        }
        boottime_ns()
    }
}

/// `CLOCK_BOOTTIME` in nanoseconds: the clock of every rocprofiler-sdk record.
pub fn boottime_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through the valid pointer we pass.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Wall clock (Unix epoch) in nanoseconds.
pub fn walltime_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_symbols_are_none_not_errors() {
        let f = Functions::resolve(|_| std::ptr::null_mut());
        assert!(f.create_context.is_none());
        assert_eq!(f.missing_required().len(), 5);
        assert!(f.missing().contains(&"rocprofiler_get_timestamp"));
        // Without the SDK the timestamp falls back to CLOCK_BOOTTIME.
        let a = f.timestamp();
        let b = boottime_ns();
        assert!(a > 0 && b >= a);
    }
}
