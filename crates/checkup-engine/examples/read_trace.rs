//! Reads one Kineto trace (`.json` or `.json.gz`) with the engine's reader only, no
//! analysis, and prints what it kept and the reader's rate: the figure issue 37's "trace
//! reader at disk speed" is measured by (`farm-bench` times the whole process beside it).
//!
//!     cargo run --release -p checkup-engine --example read_trace -- TRACE
//!     cargo run --release -p checkup-engine --example read_trace -- --inflate-only TRACE.gz
//!
//! `--inflate-only` inflates a gzip trace with the reader's own inflate (zlib-rs, through
//! flate2) and reads nothing: the floor of the gzip path, which the reader's second thread
//! reaches when the parse keeps up.

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let inflate_only = args.first().is_some_and(|a| a == "--inflate-only");
    if inflate_only {
        args.remove(0);
    }
    let Some(path) = args.first().map(PathBuf::from) else {
        eprintln!("usage: read_trace [--inflate-only] TRACE.json[.gz]");
        std::process::exit(2);
    };
    if inflate_only {
        let start = Instant::now();
        // As the reader inflates: the file through a 1 MiB buffer, out in 256 KiB chunks.
        let inflated = std::fs::File::open(&path).and_then(|f| {
            use std::io::Read;
            let mut gz =
                flate2::read::MultiGzDecoder::new(std::io::BufReader::with_capacity(1 << 20, f));
            let mut chunk = vec![0; 256 << 10];
            let mut total = 0u64;
            loop {
                match gz.read(&mut chunk)? {
                    0 => return Ok(total),
                    n => total += n as u64,
                }
            }
        });
        match inflated {
            Ok(n) => println!(
                "{}: inflated {n} bytes in {:.3} s",
                path.display(),
                start.elapsed().as_secs_f64()
            ),
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                std::process::exit(1);
            }
        }
        return;
    }
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
