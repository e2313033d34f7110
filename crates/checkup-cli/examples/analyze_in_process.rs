//! `checkup analyze PATH --json` timed inside its process, for `bench/engine_vs_hta.py`:
//! Holistic Trace Analysis is timed inside its own (load, temporal and idle breakdowns, its
//! import and Python's start left out), so this is the like-for-like figure beside the whole
//! process's. The same two calls as the CLI: the analysis, then the JSON. Prints the seconds.
//!
//! `cargo run --release -p checkup-cli --example analyze_in_process -- PATH`

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: analyze_in_process PATH");
        std::process::exit(2);
    };
    let started = Instant::now();
    let json = checkup_engine::analyze_paths(std::slice::from_ref(&path), &Default::default())
        .map_err(|e| e.to_string())
        .and_then(|d| checkup_report::json(&d).map_err(|e| e.to_string()));
    let took = started.elapsed();
    match json {
        Ok(json) => {
            // Written where the CLI's goes in the benchmark, after the clock stops: the
            // output's cost is the pipe's, not the analysis's.
            let _ = std::io::sink().write_all(json.as_bytes());
            println!("{:.6}", took.as_secs_f64());
        }
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            std::process::exit(1);
        }
    }
}
