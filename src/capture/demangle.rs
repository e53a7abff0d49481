//! Kernel names exactly as AMD's tools print them.
//!
//! rocprofv3 demangles with the C++ runtime's `__cxa_demangle`, the demangler `c++filt` shares,
//! so a user searching our trace for a name they saw there must get the same string. The pure-Rust
//! `cpp_demangle` differs on common HIP/PyTorch kernels: integer template arguments come out as
//! casts (`std::array<char*, (unsigned long)1>` instead of `std::array<char*, 1ul>`), `nullptr_t`
//! and template-argument packs print differently. So the C++ runtime's own demangler is used:
//! found in the process (every HIP program links a C++ runtime), else `libstdc++.so.6` is loaded
//! (the simulator's and tests' Rust processes have none); `cpp_demangle` only where neither exists.

// The one import of this layer into `sdk`: its `os` leaf (no imports from the crate), where the
// FFI of every OS call lives.
use crate::sdk::os::CxaDemangle;

/// The demanglers of this process: the C++ runtime's, when there is one, and `cpp_demangle`.
#[derive(Debug, Clone, Copy)]
pub struct Demangler {
    cxa: Option<CxaDemangle>,
}

impl Demangler {
    /// Looks the C++ runtime's demangler up (once per holder: a `dlsym`, perhaps a `dlopen`).
    pub fn find() -> Demangler {
        Demangler {
            cxa: CxaDemangle::find(),
        }
    }

    /// `mangled` demangled as the C++ runtime prints it; `None` for a name that is not
    /// mangled (or that no demangler understands).
    pub fn demangle(&self, mangled: &str) -> Option<String> {
        if !mangled.starts_with("_Z") {
            return None;
        }
        let cxa = || self.cxa.and_then(|f| f.demangle(mangled));
        cxa().or_else(|| {
            cpp_demangle::Symbol::new(mangled.as_bytes())
                .ok()
                .and_then(|s| s.demangle().ok())
        })
    }
}

/// [`Demangler::demangle`] with a demangler looked up for this one name.
pub fn demangle(mangled: &str) -> Option<String> {
    Demangler::find().demangle(mangled)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real kernel-name shapes from HIP, PyTorch, rocBLAS-style and Composable-Kernel-style code,
    /// with the output GNU `c++filt` (binutils 2.40) printed for each when this table was made.
    const TABLE: &[(&str, &str)] = &[
        (
            "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
        ),
        (
            "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffEEjfLi4EEEEEvT1_",
            "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float>, unsigned int, float, 4>)",
        ),
        (
            "_Z9gemm_bf16PKvS0_Pvi",
            "gemm_bf16(void const*, void const*, void*, int)",
        ),
        (
            "_ZN7rocblas6kernelILb1ELi64EEEvPfPKfi",
            "void rocblas::kernel<true, 64>(float*, float const*, int)",
        ),
        (
            "_Z10add_kernelILj256EEvPfPKfS2_m",
            "void add_kernel<256u>(float*, float const*, float const*, unsigned long)",
        ),
        ("_Z6kernelILx5EEvv", "void kernel<5ll>()"),
        ("_Z6kernelILy5EEvv", "void kernel<5ull>()"),
        (
            "_Z3fooIDnLDn0EEvv",
            "void foo<decltype(nullptr), (decltype(nullptr))0>()",
        ),
    ];

    #[test]
    fn names_match_the_cpp_runtime_demangler() {
        assert!(
            Demangler::find().cxa.is_some(),
            "no C++ runtime demangler (libstdc++.so.6) in this environment"
        );
        for (mangled, want) in TABLE {
            assert_eq!(demangle(mangled).as_deref(), Some(*want), "{mangled}");
        }
    }

    #[test]
    fn plain_and_broken_names_are_not_demangled() {
        assert_eq!(demangle("matmul_kernel"), None);
        assert_eq!(demangle("_Z"), None);
        assert_eq!(demangle("_Zfoo\u{2013}bar"), None);
        assert_eq!(
            demangle("_Z3foo\0x"),
            None,
            "an interior NUL is not passed to C"
        );
    }
}
