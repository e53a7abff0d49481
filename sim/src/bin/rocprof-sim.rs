//! Driver: plays the application + rocprofiler-register; loads the simulated runtime library.

fn main() {
    eprintln!("rocprof-sim: not yet implemented");
    std::process::exit(2);
}
