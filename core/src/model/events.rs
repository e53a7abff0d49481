//! The facts the join reads (`crate::facts`) and the collection that holds them (`Collected`),
//! under the path the tool, the CLI and the tests name them by.

pub use super::collected::{Carried, Collected};
pub use crate::facts::*;
