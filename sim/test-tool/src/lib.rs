//! Test tool for the simulator's own tests.
