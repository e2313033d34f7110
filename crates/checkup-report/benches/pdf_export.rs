//! Times the PDF export of every corpus run, printing one line per run. The first export of a
//! process parses the fonts; it is timed apart on a document not measured again (the Chinese
//! report), so no measured run reuses typst's cache of its own document.
//! Target: under 2 s each. `cargo bench -p checkup-report`.

use std::path::Path;
use std::time::Instant;

fn main() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let labels: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("labels.json")).unwrap())
            .unwrap();
    let opts = checkup_report::ReportOptions::default();
    let t0 = Instant::now();
    let first =
        checkup_engine::analyze_paths(&[corpus.join("healthy")], &Default::default()).unwrap();
    let zh = checkup_report::ReportOptions {
        language: checkup_report::Language::Zh,
        baseline: None,
    };
    checkup_report::pdf(&first, &zh).unwrap();
    println!(
        "first PDF of the process (font parsing included): {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    println!("| run | analysis | PDF export | pages bytes |");
    println!("|---|---|---|---|");
    for run in labels.as_object().unwrap().keys() {
        let t = Instant::now();
        let d = checkup_engine::analyze_paths(&[corpus.join(run)], &Default::default()).unwrap();
        let analysis = t.elapsed();
        let t = Instant::now();
        let pdf = checkup_report::pdf(&d, &opts).unwrap();
        let export = t.elapsed();
        println!(
            "| {run} | {:.0} ms | {:.0} ms | {} KB |",
            analysis.as_secs_f64() * 1e3,
            export.as_secs_f64() * 1e3,
            pdf.len() / 1024
        );
    }
}
