//! Reads one Kineto trace (`.json` or `.json.gz`) with the engine's reader only, no
//! analysis, and prints what it kept and the reader's rate: the figure issue 37's "trace
//! reader at disk speed" is measured by (`farm-bench` times the whole process beside it).
//!
//!     cargo run --release -p checkup-engine --example read_trace -- TRACE

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: read_trace TRACE.json[.gz]");
        std::process::exit(2);
    };
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let start = Instant::now();
    match checkup_engine::ingest::kineto::read_trace(&path) {
        Ok(t) => {
            let s = start.elapsed().as_secs_f64();
            println!(
                "{}: {} GPU ops, {} runtime calls, {} CPU spans, {} steps; {:.3} s, {:.2} GB/s of file",
                path.display(),
                t.gpu.len(),
                t.runtime.len(),
                t.cpu.len(),
                t.steps.len(),
                s,
                bytes as f64 / s / 1e9
            );
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
