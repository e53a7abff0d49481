//! The `rocprof-sim` driver defines `clock_gettime` (the simulated host's clocks); exporting it
//! from the executable puts it ahead of libc's for every library the driver loads.

fn main() {
    println!("cargo:rustc-link-arg-bin=rocprof-sim=-Wl,--export-dynamic-symbol=clock_gettime");
}
