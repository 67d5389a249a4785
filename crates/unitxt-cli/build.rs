//! Links `unitxt-rs` as a position-dependent executable on x86-64 Linux: a PIE binary of this
//! size spends about a millisecond at every start applying some 45,000 relative relocations
//! (and copying the pages they touch), which a prepare of a few hundred instances notices.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target == "x86_64-unknown-linux-gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
