//! Public Kineto traces from other projects and machines (Holistic Trace Analysis's test
//! data, MIT licence, vendored in `tests/external/hta`): every trace that holds GPU work answers
//! with a diagnosis, with or without `ProfilerStep#N` marks; the others are refused with a
//! one-line reason. Which is which is read from each file, not from its name.

use std::io::Read;
use std::path::{Path, PathBuf};

use checkup_engine::{analyze_paths, Options};
use checkup_model::{Note, StepMarks};

fn hta() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/external/hta")
}

fn traces() -> Vec<PathBuf> {
    let dir = hta();
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (the public traces are in tests/external/hta)",
                dir.display()
            )
        })
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains(".json"))
        .collect();
    out.sort();
    out
}

/// Whether the trace holds kernels, copies or sets: GPU work the engine reads.
fn has_gpu_work(path: &Path) -> bool {
    let mut text = String::new();
    let file = std::fs::File::open(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(file)
            .read_to_string(&mut text)
            .unwrap();
    } else {
        std::io::BufReader::new(file)
            .read_to_string(&mut text)
            .unwrap();
    }
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["traceEvents"].as_array().is_some_and(|events| {
        events.iter().any(|e| {
            matches!(
                e["cat"].as_str().map(str::to_ascii_lowercase).as_deref(),
                Some("kernel" | "gpu_memcpy" | "gpu_memset")
            )
        })
    })
}

#[test]
fn every_public_trace_with_gpu_work_gets_a_diagnosis_the_others_a_reason() {
    let mut answered = 0;
    let mut inferred = 0;
    for path in traces() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match analyze_paths(std::slice::from_ref(&path), &Options::default()) {
            Ok(d) => {
                assert!(has_gpu_work(&path), "{name}: diagnosed without GPU work");
                assert!(!d.findings.is_empty(), "{name}");
                answered += 1;
                if d.ranks
                    .iter()
                    .any(|r| r.step_marks != StepMarks::ProfilerSteps)
                {
                    inferred += 1;
                    assert!(
                        d.notes
                            .iter()
                            .any(|n| matches!(n, Note::StepsInferred { .. })),
                        "{name}: inferred steps are said"
                    );
                }
            }
            Err(e) => {
                let e = e.to_string();
                assert!(!has_gpu_work(&path), "{name} holds GPU work yet: {e}");
                assert!(!e.contains('\n'), "{name}: one line: {e}");
                // Each refusal says what the file holds instead: no device work, counters
                // without timings, another accelerator, or not a profiler trace at all.
                assert!(
                    e.contains("no GPU activity")
                        || e.contains("not a PyTorch profiler trace")
                        || e.contains("CUPTI range-profiler counters for 77 kernels")
                        || e.contains("runs on MTIA"),
                    "{name}: {e}"
                );
            }
        }
    }
    // 22 of the 31 files hold GPU work; 7 of those have no ProfilerStep#N marks.
    assert_eq!(answered, 22);
    assert_eq!(inferred, 7);
}

#[test]
fn an_inference_trace_is_one_window_and_not_told_to_fuse_an_optimizer() {
    let d = analyze_paths(
        &[hta().join("trace_file_list__inference_rank_1.json.gz")],
        &Options::default(),
    )
    .unwrap();
    let r = &d.ranks[0];
    assert_eq!(r.step_marks, StepMarks::WholeTrace);
    assert_eq!(r.optimizer, None);
    assert!(d.findings.iter().flat_map(|f| &f.fixes).all(|x| !matches!(
        x,
        checkup_model::Fix::KernelLaunch(checkup_model::KernelLaunchFix::ForeachOptimizer { .. })
            | checkup_model::Fix::ComputeBound(
                checkup_model::ComputeBoundFix::FusedOptimizer { .. }
            )
    )));
    assert!(d.notes.contains(&Note::StepsInferred {
        rank: 1,
        from: StepMarks::WholeTrace
    }));
}

#[test]
fn a_trace_reads_the_same_every_time_kernels_tied_in_time_included() {
    // Two of this trace's kernels took the same time: the top ten once listed them in the
    // order of a hash map seeded afresh for each analysis, and its JSON changed between
    // runs. Ties now go by name, and the shares are summed in name order.
    let path = hta().join("critical_path__cuda_event_sync__event_sync_trace.json.gz");
    let json = || {
        serde_json::to_string(
            &analyze_paths(std::slice::from_ref(&path), &Options::default()).unwrap(),
        )
    };
    let first = json().unwrap();
    for _ in 0..8 {
        assert_eq!(json().unwrap(), first);
    }
    let d = analyze_paths(std::slice::from_ref(&path), &Options::default()).unwrap();
    let top = &d.ranks[0].kernels.top;
    let tied = top
        .windows(2)
        .find(|w| w[0].total_us == w[1].total_us)
        .expect("a tie");
    assert!(tied[0].name < tied[1].name);
}
