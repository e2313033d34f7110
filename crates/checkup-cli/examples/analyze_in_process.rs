//! `checkup analyze PATH --json` timed inside its process, for `bench/engine_vs_hta.py`:
//! Holistic Trace Analysis is timed inside its own (load, temporal and idle breakdowns, its
//! import and Python's start left out), so this is the like-for-like figure beside the whole
//! process's. The same two calls as the CLI: the analysis, then the JSON. Prints the seconds.
//!
//! `cargo run --release -p checkup-cli --example analyze_in_process -- PATH`

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
        // The CLI's write of the JSON is the pipe's cost, not the analysis's: left out.
        Ok(_) => println!("{:.6}", took.as_secs_f64()),
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            std::process::exit(1);
        }
    }
}
