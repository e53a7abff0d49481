//! Name ↔ id maps built from the running SDK's iterate/query functions.
//!
//! Buffer kinds ≥ 12 and most HIP operation ids differ between SDK versions, so the tool never
//! hard-codes them: it asks the runtime, once, during `initialize`.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};

use rocprofiler_sdk_sys as sys;

use super::Functions;
use crate::guard::ffi_guard;

/// Kinds and operations of interest, by name.
#[derive(Debug, Clone, Default)]
pub struct NameMaps {
    pub buffer_kinds: HashMap<String, u32>,
    pub callback_kinds: HashMap<String, u32>,
    /// `buffer kind → (operation id, name)` for the kinds queried.
    pub buffer_ops: HashMap<u32, Vec<(i32, String)>>,
    /// `callback kind → (operation id, name)` for the kinds queried.
    pub callback_ops: HashMap<u32, Vec<(i32, String)>>,
}

impl NameMaps {
    pub fn buffer_kind(&self, name: &str) -> Option<u32> {
        self.buffer_kinds.get(name).copied()
    }

    pub fn callback_kind(&self, name: &str) -> Option<u32> {
        self.callback_kinds.get(name).copied()
    }

    /// Operation id of `op_name` under callback kind `kind`.
    pub fn callback_op(&self, kind: u32, op_name: &str) -> Option<i32> {
        self.callback_ops
            .get(&kind)?
            .iter()
            .find(|(_, n)| n == op_name)
            .map(|(id, _)| *id)
    }
}

unsafe extern "C" fn collect_kind(kind: u32, data: *mut c_void) -> c_int {
    ffi_guard("kind iteration callback", 0, || {
        // SAFETY: `data` is the `&mut Vec<u32>` passed by `iterate_kinds` below, alive for
        // the duration of the synchronous iteration.
        let v = unsafe { &mut *(data as *mut Vec<u32>) };
        v.push(kind);
        0
    })
}

unsafe extern "C" fn collect_op(_kind: u32, op: i32, data: *mut c_void) -> c_int {
    ffi_guard("operation iteration callback", 0, || {
        // SAFETY: as in `collect_kind`, `data` is our `&mut Vec<i32>`.
        let v = unsafe { &mut *(data as *mut Vec<i32>) };
        v.push(op);
        0
    })
}

/// Converts an SDK-owned name (static storage) into an owned string.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string.
unsafe fn owned(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: guaranteed by the caller.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

/// Kind names that never moved (0–11 buffer, 0–13 callback), used only when the SDK lacks the
/// iteration functions.
const STABLE_BUFFER_KINDS: [(&str, u32); 4] = [
    (
        "HIP_RUNTIME_API",
        sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
    ),
    (
        "MARKER_CORE_API",
        sys::ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API,
    ),
    ("MEMORY_COPY", sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY),
    (
        "KERNEL_DISPATCH",
        sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
    ),
];
const STABLE_CALLBACK_KINDS: [(&str, u32); 3] = [
    (
        "HIP_RUNTIME_API",
        sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
    ),
    (
        "MARKER_CORE_API",
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
    ),
    ("CODE_OBJECT", sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT),
];

impl NameMaps {
    /// Queries kind names and the operation names of the listed kinds (by kind name).
    pub fn query(
        f: &Functions,
        buffer_kinds_ops: &[&str],
        callback_kinds_ops: &[&str],
    ) -> NameMaps {
        let mut m = NameMaps::default();

        match (
            f.iterate_buffer_tracing_kinds,
            f.query_buffer_tracing_kind_name,
        ) {
            (Some(iter), Some(query)) => {
                let mut kinds: Vec<u32> = Vec::new();
                // SAFETY: `collect_kind` matches the kind-callback type; `kinds` outlives the
                // synchronous call.
                unsafe {
                    iter(
                        Some(collect_kind),
                        &mut kinds as *mut Vec<u32> as *mut c_void,
                    )
                };
                for k in kinds {
                    let mut name: *const c_char = std::ptr::null();
                    let mut len: u64 = 0;
                    // SAFETY: out-pointers are valid locals; the SDK writes a static string.
                    let st = unsafe { query(k, &mut name, &mut len) };
                    if st == sys::ROCPROFILER_STATUS_SUCCESS {
                        // SAFETY: `name` was set by the SDK to a static string or left null.
                        if let Some(n) = unsafe { owned(name) } {
                            m.buffer_kinds.insert(n, k);
                        }
                    }
                }
            }
            _ => {
                for (n, k) in STABLE_BUFFER_KINDS {
                    m.buffer_kinds.insert(n.to_string(), k);
                }
            }
        }
        match (
            f.iterate_callback_tracing_kinds,
            f.query_callback_tracing_kind_name,
        ) {
            (Some(iter), Some(query)) => {
                let mut kinds: Vec<u32> = Vec::new();
                // SAFETY: as above.
                unsafe {
                    iter(
                        Some(collect_kind),
                        &mut kinds as *mut Vec<u32> as *mut c_void,
                    )
                };
                for k in kinds {
                    let mut name: *const c_char = std::ptr::null();
                    let mut len: u64 = 0;
                    // SAFETY: as above.
                    let st = unsafe { query(k, &mut name, &mut len) };
                    if st == sys::ROCPROFILER_STATUS_SUCCESS {
                        // SAFETY: as above.
                        if let Some(n) = unsafe { owned(name) } {
                            m.callback_kinds.insert(n, k);
                        }
                    }
                }
            }
            _ => {
                for (n, k) in STABLE_CALLBACK_KINDS {
                    m.callback_kinds.insert(n.to_string(), k);
                }
            }
        }

        for kind_name in buffer_kinds_ops {
            let Some(kind) = m.buffer_kind(kind_name) else {
                continue;
            };
            let (Some(iter), Some(query)) = (
                f.iterate_buffer_tracing_kind_operations,
                f.query_buffer_tracing_kind_operation_name,
            ) else {
                continue;
            };
            let mut ops: Vec<i32> = Vec::new();
            // SAFETY: `collect_op` matches the operation-callback type; `ops` outlives the call.
            unsafe {
                iter(
                    kind,
                    Some(collect_op),
                    &mut ops as *mut Vec<i32> as *mut c_void,
                )
            };
            let mut named = Vec::with_capacity(ops.len());
            for op in ops {
                let mut name: *const c_char = std::ptr::null();
                let mut len: u64 = 0;
                // SAFETY: out-pointers are valid locals.
                let st = unsafe { query(kind, op, &mut name, &mut len) };
                if st == sys::ROCPROFILER_STATUS_SUCCESS {
                    // SAFETY: static string or null.
                    if let Some(n) = unsafe { owned(name) } {
                        named.push((op, n));
                    }
                }
            }
            m.buffer_ops.insert(kind, named);
        }
        for kind_name in callback_kinds_ops {
            let Some(kind) = m.callback_kind(kind_name) else {
                continue;
            };
            let (Some(iter), Some(query)) = (
                f.iterate_callback_tracing_kind_operations,
                f.query_callback_tracing_kind_operation_name,
            ) else {
                continue;
            };
            let mut ops: Vec<i32> = Vec::new();
            // SAFETY: as above.
            unsafe {
                iter(
                    kind,
                    Some(collect_op),
                    &mut ops as *mut Vec<i32> as *mut c_void,
                )
            };
            let mut named = Vec::with_capacity(ops.len());
            for op in ops {
                let mut name: *const c_char = std::ptr::null();
                let mut len: u64 = 0;
                // SAFETY: as above.
                let st = unsafe { query(kind, op, &mut name, &mut len) };
                if st == sys::ROCPROFILER_STATUS_SUCCESS {
                    // SAFETY: as above.
                    if let Some(n) = unsafe { owned(name) } {
                        named.push((op, n));
                    }
                }
            }
            m.callback_ops.insert(kind, named);
        }
        m
    }
}
