//! Links `checkup` at a fixed address on x86-64 Linux. As a position-independent executable
//! the loader applied 106,650 relative relocations at every start, one write per pointer in
//! the report's static tables: 620 page faults and about 2 ms on a 2-core VM, most of a
//! small trace's whole analysis. Fixed, the start takes what a C program's does
//! (docs/performance.md). The agent, which serves a socket, keeps its randomised address.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.starts_with("x86_64-unknown-linux-") {
        println!("cargo:rustc-link-arg-bin=checkup=-no-pie");
    }
}
