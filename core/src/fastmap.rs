//! The hash maps of the join and the XPlane writer: keyed by correlation ids, handles, line keys
//! and interned pointers, millions of lookups at finalize. SipHash (std's default) is built to
//! resist flooding by chosen keys, at a cost per lookup that dominates such maps; these keys
//! come from the runtime and our own counters, not from an adversary, so rustc's Fx hash
//! serves.

pub type HashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;
pub type HashSet<K> = std::collections::HashSet<K, rustc_hash::FxBuildHasher>;
