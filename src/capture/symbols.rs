//! Kernel symbol table from code-object callbacks.
//!
//! Symbols are registered rarely (at code-object load) and read once at finalize, so one lock
//! is fine. Entries are kept after a code object is unloaded: dispatches recorded earlier are
//! still delivered later and must keep their names.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::model::events::KernelSymbol;
use crate::store::sinks::lock;

static SYMBOLS: Mutex<Option<HashMap<u64, KernelSymbol>>> = Mutex::new(None);

/// HSA symbol name → display name: drop the kernel-descriptor suffix `.kd`, then demangle as the
/// C++ runtime does (`super::demangle`, what rocprofv3 shows); names that do not demangle are
/// shown as they are.
pub fn clean_kernel_name(raw: &str) -> String {
    let base = raw.strip_suffix(".kd").unwrap_or(raw);
    super::demangle::demangle(base).unwrap_or_else(|| base.to_string())
}

pub fn register(kernel_id: u64, raw_name: &str, mut sym: KernelSymbol) {
    sym.name = Arc::from(clean_kernel_name(raw_name));
    lock(&SYMBOLS)
        .get_or_insert_with(HashMap::new)
        .insert(kernel_id, sym);
}

pub fn snapshot() -> HashMap<u64, KernelSymbol> {
    lock(&SYMBOLS).clone().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_kd_and_demangles() {
        assert_eq!(clean_kernel_name("attn_fwd.kd"), "attn_fwd");
        assert_eq!(
            clean_kernel_name("_Z4gemmPfS_i.kd"),
            "gemm(float*, float*, int)"
        );
        assert_eq!(
            clean_kernel_name("_ZN5torch6kernelIfEEvPT_.kd"),
            "void torch::kernel<float>(float*)"
        );
        // Not a valid mangling: shown as is, minus the suffix.
        assert_eq!(clean_kernel_name("_Zbogus.kd"), "_Zbogus");
        assert_eq!(clean_kernel_name("plain"), "plain");
    }
}
