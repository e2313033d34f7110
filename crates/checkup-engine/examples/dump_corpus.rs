//! Prints the diagnosis of every run in a corpus folder as one JSON object per line
//! (`{"run": NAME, "diagnosis": {...}}`): used to compare the engine's answers before and
//! after a change, run by run.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "tests/corpus".into()),
    );
    let mut runs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.path())
        .collect();
    runs.sort();
    for run in runs {
        let name = run.file_name().unwrap().to_string_lossy().into_owned();
        match checkup_engine::analyze_paths(&[run], &Default::default()) {
            Ok(d) => println!("{}", serde_json::json!({ "run": name, "diagnosis": d })),
            Err(e) => println!(
                "{}",
                serde_json::json!({ "run": name, "error": e.to_string() })
            ),
        }
    }
}
