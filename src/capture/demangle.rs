//! Kernel names exactly as AMD's tools print them.
//!
//! rocprofv3 demangles with the C++ runtime's `__cxa_demangle`, the demangler `c++filt` shares,
//! so a user searching our trace for a name they saw there must get the same string. The pure-Rust
//! `cpp_demangle` differs on common HIP/PyTorch kernels: integer template arguments come out as
//! casts (`std::array<char*, (unsigned long)1>` instead of `std::array<char*, 1ul>`), `nullptr_t`
//! and template-argument packs print differently. So the C++ runtime's own demangler is used:
//! found in the process (every HIP program links a C++ runtime), else `libstdc++.so.6` is loaded
//! (the simulator's and tests' Rust processes have none); `cpp_demangle` only where neither exists.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::LazyLock;

/// `char* __cxa_demangle(const char* mangled, char* buf, size_t* len, int* status)`.
type CxaDemangle =
    unsafe extern "C" fn(*const c_char, *mut c_char, *mut usize, *mut c_int) -> *mut c_char;

static CXA_DEMANGLE: LazyLock<Option<CxaDemangle>> = LazyLock::new(resolve);

fn resolve() -> Option<CxaDemangle> {
    let name = c"__cxa_demangle";
    // SAFETY: dlsym with the RTLD_DEFAULT pseudo-handle and a NUL-terminated name.
    let mut sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    if sym.is_null() {
        // SAFETY: dlopen of a system library by its soname; the handle is kept for the life of
        // the process (never closed), as the function pointer taken from it must stay valid.
        let lib = unsafe {
            libc::dlopen(
                c"libstdc++.so.6".as_ptr(),
                libc::RTLD_LAZY | libc::RTLD_LOCAL,
            )
        };
        if lib.is_null() {
            return None;
        }
        // SAFETY: a live handle and a NUL-terminated name.
        sym = unsafe { libc::dlsym(lib, name.as_ptr()) };
    }
    if sym.is_null() {
        return None;
    }
    // SAFETY: `__cxa_demangle` has this signature in every Itanium C++ ABI runtime.
    Some(unsafe { std::mem::transmute::<*mut c_void, CxaDemangle>(sym) })
}

/// The C++ runtime's demangling of `mangled`, `None` when it is not a mangled name or no runtime
/// demangler is available.
fn cxa(mangled: &str) -> Option<String> {
    let f = (*CXA_DEMANGLE)?;
    let c = CString::new(mangled).ok()?;
    let mut status: c_int = 0;
    // SAFETY: a NUL-terminated input, no caller buffer (the runtime mallocs the result), a valid
    // status out-pointer.
    let out = unsafe {
        f(
            c.as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut status,
        )
    };
    if out.is_null() {
        return None;
    }
    let s = (status == 0).then(|| {
        // SAFETY: on success the result is a NUL-terminated string the runtime malloc'ed.
        let text = unsafe { CStr::from_ptr(out) };
        text.to_string_lossy().into_owned()
    });
    // SAFETY: the result was allocated with malloc by `__cxa_demangle`; we own it.
    unsafe { libc::free(out.cast()) };
    s
}

/// `mangled` demangled as the C++ runtime prints it; `None` for a name that is not mangled (or
/// that no demangler understands).
pub fn demangle(mangled: &str) -> Option<String> {
    if !mangled.starts_with("_Z") {
        return None;
    }
    cxa(mangled).or_else(|| {
        cpp_demangle::Symbol::new(mangled.as_bytes())
            .ok()
            .and_then(|s| s.demangle().ok())
    })
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
            CXA_DEMANGLE.is_some(),
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
