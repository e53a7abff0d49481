//! Kernel symbol table from code-object callbacks.
//!
//! Symbols are registered rarely (at code-object load) and read once at finalize, so one lock
//! is fine. Entries are kept after a code object is unloaded: dispatches recorded earlier are
//! still delivered later and must keep their names.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::demangle::Demangler;
use crate::model::events::KernelSymbol;
use crate::store::sinks::lock;

/// HSA symbol name → display name: drop the kernel-descriptor suffix `.kd`, then demangle as the
/// C++ runtime does (`super::demangle`, what rocprofv3 shows); names that do not demangle are
/// shown as they are.
pub fn clean_kernel_name(raw: &str) -> String {
    clean_with(&Demangler::find(), raw)
}

fn clean_with(demangler: &Demangler, raw: &str) -> String {
    let base = raw.strip_suffix(".kd").unwrap_or(raw);
    demangler.demangle(base).unwrap_or_else(|| base.to_string())
}

/// The kernels registered so far, by kernel id.
#[derive(Default)]
pub struct Symbols {
    by_id: Mutex<HashMap<u64, KernelSymbol>>,
    /// Looked up at the first registration.
    demangler: OnceLock<Demangler>,
}

impl Symbols {
    pub fn register(&self, kernel_id: u64, raw_name: &str, mut sym: KernelSymbol) {
        let demangler = self.demangler.get_or_init(Demangler::find);
        sym.name = Arc::from(clean_with(demangler, raw_name));
        lock(&self.by_id).insert(kernel_id, sym);
    }

    pub fn snapshot(&self) -> HashMap<u64, KernelSymbol> {
        lock(&self.by_id).clone()
    }
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
