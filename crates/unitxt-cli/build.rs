//! Links `unitxt-rs` (and the `io_floor` example that benchmarks compare it with) as a
//! position-dependent executable on x86-64 Linux: a PIE binary of this size applies tens of
//! thousands of relative relocations at every start (and copies the pages they touch), which a
//! prepare of a few hundred instances notices.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target == "x86_64-unknown-linux-gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
        println!("cargo:rustc-link-arg-examples=-no-pie");
    }
}
