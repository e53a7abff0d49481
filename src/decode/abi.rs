//! The ABI family of the running runtime: which layouts its records and structs have. The
//! decoders switch on it, and so does the SDK layer above them.

/// Record and struct layouts differ between SDK 0.x and 1.x (correlation id 16 → 24 bytes,
/// client id gains a leading `size`); everything version-dependent switches on this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abi {
    /// SDK 0.4–0.6 (ROCm 6.2–6.4).
    V0,
    /// SDK 1.x (ROCm 7.x).
    V1,
}

impl Abi {
    /// `version` as passed to `rocprofiler_configure`: `10000*major + 100*minor + patch`.
    pub fn from_version(version: u32) -> Abi {
        if version >= 10_000 {
            Abi::V1
        } else {
            Abi::V0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_family_from_version_number() {
        assert_eq!(Abi::from_version(400), Abi::V0);
        assert_eq!(Abi::from_version(600), Abi::V0);
        assert_eq!(Abi::from_version(9999), Abi::V0);
        assert_eq!(Abi::from_version(10000), Abi::V1);
        assert_eq!(Abi::from_version(10201), Abi::V1);
    }
}
