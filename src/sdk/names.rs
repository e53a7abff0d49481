//! Name ↔ id maps built from the running SDK's iterate/query functions.
//!
//! Buffer kinds ≥ 12 and most HIP operation ids differ between SDK versions, so the tool never
//! hard-codes them: it asks the runtime, once, during `initialize`.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};

use rocprofiler_sdk_sys as sys;

use super::functions::Functions;
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

/// `kind name → kind` from the runtime's iterate + query-name pair, or `stable` when it lacks
/// either. Buffer and callback kinds are both `uint32_t` enums, so one function serves both.
fn kind_names(
    iterate: sys::rocprofiler_iterate_buffer_tracing_kinds_fn,
    query: sys::rocprofiler_query_buffer_tracing_kind_name_fn,
    stable: &[(&str, u32)],
) -> HashMap<String, u32> {
    let (Some(iterate), Some(query)) = (iterate, query) else {
        return stable.iter().map(|&(n, k)| (n.to_string(), k)).collect();
    };
    let mut kinds: Vec<u32> = Vec::new();
    // SAFETY: `collect_kind` matches the kind-callback type; `kinds` outlives the synchronous
    // call.
    unsafe {
        iterate(
            Some(collect_kind),
            &mut kinds as *mut Vec<u32> as *mut c_void,
        )
    };
    let mut names = HashMap::with_capacity(kinds.len());
    for k in kinds {
        let mut name: *const c_char = std::ptr::null();
        let mut len: u64 = 0;
        // SAFETY: out-pointers are valid locals; the SDK writes a static string.
        let st = unsafe { query(k, &mut name, &mut len) };
        if st == sys::ROCPROFILER_STATUS_SUCCESS {
            // SAFETY: `name` was set by the SDK to a static string or left null.
            if let Some(n) = unsafe { owned(name) } {
                names.insert(n, k);
            }
        }
    }
    names
}

/// `kind → [(operation id, name)]` for each kind named in `kind_names` that `kinds` knows;
/// empty when the runtime lacks the iterate or query function. Buffer and callback variants
/// share these function types.
fn operation_names(
    kind_names: &[&str],
    kinds: &HashMap<String, u32>,
    iterate: sys::rocprofiler_iterate_buffer_tracing_kind_operations_fn,
    query: sys::rocprofiler_query_buffer_tracing_kind_operation_name_fn,
) -> HashMap<u32, Vec<(i32, String)>> {
    let (Some(iterate), Some(query)) = (iterate, query) else {
        return HashMap::new();
    };
    let mut by_kind = HashMap::new();
    for kind in kind_names.iter().filter_map(|n| kinds.get(*n).copied()) {
        let mut ops: Vec<i32> = Vec::new();
        // SAFETY: `collect_op` matches the operation-callback type; `ops` outlives the call.
        unsafe {
            iterate(
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
        by_kind.insert(kind, named);
    }
    by_kind
}

impl NameMaps {
    /// Queries kind names and the operation names of the listed kinds (by kind name).
    pub fn query(
        f: &Functions,
        buffer_kinds_ops: &[&str],
        callback_kinds_ops: &[&str],
    ) -> NameMaps {
        let buffer_kinds = kind_names(
            f.iterate_buffer_tracing_kinds,
            f.query_buffer_tracing_kind_name,
            &STABLE_BUFFER_KINDS,
        );
        let callback_kinds = kind_names(
            f.iterate_callback_tracing_kinds,
            f.query_callback_tracing_kind_name,
            &STABLE_CALLBACK_KINDS,
        );
        NameMaps {
            buffer_ops: operation_names(
                buffer_kinds_ops,
                &buffer_kinds,
                f.iterate_buffer_tracing_kind_operations,
                f.query_buffer_tracing_kind_operation_name,
            ),
            callback_ops: operation_names(
                callback_kinds_ops,
                &callback_kinds,
                f.iterate_callback_tracing_kind_operations,
                f.query_callback_tracing_kind_operation_name,
            ),
            buffer_kinds,
            callback_kinds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn iterate_kinds(
        cb: sys::rocprofiler_buffer_tracing_kind_cb_t,
        data: *mut c_void,
    ) -> sys::rocprofiler_status_t {
        for k in [0, 1, 2] {
            // SAFETY: the callback and data the code under test passed.
            unsafe { cb.unwrap()(k, data) };
        }
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    unsafe extern "C" fn query_kind(
        kind: u32,
        name: *mut *const c_char,
        _len: *mut u64,
    ) -> sys::rocprofiler_status_t {
        let n = match kind {
            0 => c"NONE",
            1 => c"HIP_RUNTIME_API",
            // Kind 2 has no name: an error status, skipped.
            _ => return sys::ROCPROFILER_STATUS_ERROR,
        };
        // SAFETY: `name` is the out-pointer of the code under test.
        unsafe { *name = n.as_ptr() };
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    unsafe extern "C" fn iterate_ops(
        kind: u32,
        cb: sys::rocprofiler_buffer_tracing_kind_operation_cb_t,
        data: *mut c_void,
    ) -> sys::rocprofiler_status_t {
        for op in [0, 7] {
            // SAFETY: as above.
            unsafe { cb.unwrap()(kind, op, data) };
        }
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    unsafe extern "C" fn query_op(
        _kind: u32,
        op: i32,
        name: *mut *const c_char,
        _len: *mut u64,
    ) -> sys::rocprofiler_status_t {
        // Operation 0 "succeeds" but leaves the name null: skipped.
        if op == 7 {
            // SAFETY: as above.
            unsafe { *name = c"hipLaunchKernel".as_ptr() };
        }
        sys::ROCPROFILER_STATUS_SUCCESS
    }

    #[test]
    fn names_come_from_the_runtime_or_the_stable_fallback() {
        // Buffer functions present, callback functions absent.
        let f = Functions {
            iterate_buffer_tracing_kinds: Some(iterate_kinds),
            query_buffer_tracing_kind_name: Some(query_kind),
            iterate_buffer_tracing_kind_operations: Some(iterate_ops),
            query_buffer_tracing_kind_operation_name: Some(query_op),
            ..Functions::default()
        };
        let m = NameMaps::query(&f, &["HIP_RUNTIME_API", "MISSING"], &["HIP_RUNTIME_API"]);
        assert_eq!(m.buffer_kinds.len(), 2);
        assert_eq!(m.buffer_kind("NONE"), Some(0));
        assert_eq!(m.buffer_kind("HIP_RUNTIME_API"), Some(1));
        assert_eq!(m.buffer_ops.len(), 1);
        assert_eq!(m.buffer_ops[&1], vec![(7, "hipLaunchKernel".to_string())]);

        assert_eq!(m.callback_kinds.len(), STABLE_CALLBACK_KINDS.len());
        assert_eq!(
            m.callback_kind("CODE_OBJECT"),
            Some(sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT)
        );
        assert!(m.callback_ops.is_empty(), "no operation functions, no map");
        assert_eq!(m.callback_op(1, "hipLaunchKernel"), None);
    }
}
