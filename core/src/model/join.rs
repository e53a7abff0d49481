//! The correlation join (`crate::join`), under the path the tool, the CLI and the tests name
//! it by.

pub use crate::join::{
    beside_bytes, cores, join, join_numbered, join_on, side_by_side, unknown_kernel_name,
};
