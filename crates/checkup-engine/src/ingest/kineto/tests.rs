//! The reader on small traces written out in full.

use super::*;

/// Calls `each` with every event of the first 256 KiB of every trace of the corpus and of
/// the public traces beside it (other profilers' layouts, AMD and MTIA among them), cut out
/// as the reader cuts them, with where their strings lie when all are plain.
pub(super) fn each_corpus_event(mut each: impl FnMut(&Path, &[u8], Option<&[u64]>)) {
    use std::io::Read;
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
    let mut traces = Vec::new();
    let mut dirs = vec![tests.join("corpus"), tests.join("external/hta")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if path.is_dir() {
                dirs.push(path);
            } else if name == "trace.json.gz" || dir.ends_with("hta") && name.ends_with(".json.gz")
            {
                traces.push(path);
            }
        }
    }
    assert!(traces.len() > 100, "{}", traces.len());
    for path in traces {
        let mut text = Vec::new();
        // Their first 256 KiB: inflating whole traces takes a debug build minutes.
        flate2::read::MultiGzDecoder::new(std::fs::File::open(&path).unwrap())
            .take(256 << 10)
            .read_to_end(&mut text)
            .unwrap();
        let Some(start) = memchr::memmem::find(&text, b"\"traceEvents\"") else {
            continue;
        };
        let mut at = start + memchr::memchr(b'[', &text[start..]).unwrap() + 1;
        while let Some(open) = text[at..].iter().position(|b| *b == b'{' || *b == b']') {
            at += open;
            if text[at] == b']' {
                break;
            }
            let mut quotes = structure::StringQuotes::default();
            let Some(end) = structure::value_end(&text[at..], &mut quotes) else {
                break;
            };
            each(&path, &text[at..=at + end], quotes.of_plain_strings());
            at += end + 1;
        }
    }
}

fn parse(text: &str) -> Result<Trace> {
    parse_trace(text.as_bytes(), Path::new("t.json"))
}

const MINIMAL: &str = r#"{"schemaVersion":1,"distributedInfo":{"rank":1,"world_size":2},
  "traceEvents":[
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":1,"tid":1,"ts":100.0,"dur":50.0},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":5,"args":{"correlation":9}},
    {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32","pid":0,"tid":7,"ts":120,"dur":10,"args":{"correlation":9}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":131,"dur":4,"args":{"correlation":10,"bytes":4096}},
    {"ph":"s","id":9,"pid":1,"tid":1,"ts":110,"cat":"ac2g","name":"ac2g"},
    {"ph":"X","cat":"Trace","ts":1,"dur":2,"pid":"Spans","tid":"PyTorch Profiler","name":"x \"quoted\" [}"}
  ],"traceName":"t"}"#;

#[test]
fn keeps_steps_launches_kernels_and_copies_with_their_rank() {
    let t = parse(MINIMAL).unwrap();
    assert_eq!(t.rank, Some(1));
    assert_eq!(t.world_size, Some(2));
    assert_eq!(
        t.steps,
        vec![StepSpan {
            number: 7,
            start: 100.0,
            end: 150.0
        }]
    );
    assert_eq!(t.runtime.len(), 1);
    assert_eq!(t.gpu.len(), 2);
    assert_eq!(t.gpu[0].kind, GpuKind::Communication);
    assert_eq!(t.gpu[1].kind, GpuKind::Memcpy(CopyKind::HtoDPageable));
    assert_eq!(t.gpu[1].bytes, 4096);
}

#[test]
fn a_trace_without_step_marks_is_read_as_one_window() {
    let t = parse(r#"{"traceEvents":[
        {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":1,"dur":2,"args":{"correlation":7}},
        {"ph":"X","cat":"kernel","name":"k","ts":5,"dur":10,"args":{"correlation":7}}]}"#)
    .unwrap();
    assert_eq!(t.step_marks, checkup_model::StepMarks::WholeTrace);
    assert_eq!(t.steps.len(), 1);
    assert!(
        t.steps[0].start <= 1.0 && t.steps[0].end > 15.0,
        "{:?}",
        t.steps
    );
}

#[test]
fn optimizer_steps_mark_the_steps_of_a_trace_without_profiler_steps() {
    let t = parse(
        r#"{"traceEvents":[
        {"ph":"X","cat":"user_annotation","name":"Optimizer.step#AdamW.step","ts":10,"dur":5},
        {"ph":"X","cat":"user_annotation","name":"Optimizer.step#AdamW.step","ts":40,"dur":5},
        {"ph":"X","cat":"user_annotation","name":"Optimizer.step#AdamW.step","ts":70,"dur":5},
        {"ph":"X","cat":"kernel","name":"k","ts":20,"dur":10}]}"#,
    )
    .unwrap();
    assert_eq!(t.step_marks, checkup_model::StepMarks::OptimizerSteps);
    assert_eq!(t.optimizer.as_deref(), Some("AdamW"));
    let spans: Vec<(f64, f64)> = t.steps.iter().map(|s| (s.start, s.end)).collect();
    assert_eq!(spans, vec![(15.0, 45.0), (45.0, 75.0)]);
}

#[test]
fn compiled_regions_and_graph_launches_are_counted() {
    let t = parse(
        r#"{"traceEvents":[
        {"ph":"X","cat":"user_annotation","name":"Torch-Compiled Region: 0/0","ts":10,"dur":50},
        {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","ts":12,"dur":5},
        {"ph":"X","cat":"kernel","name":"triton_poi_fused_add_0","ts":20,"dur":10}]}"#,
    )
    .unwrap();
    assert_eq!((t.compiled_regions, t.graph_launches), (1, 1));
}

#[test]
fn a_trace_without_gpu_work_is_refused() {
    let err =
        parse(r#"{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":1}]}"#)
            .unwrap_err();
    assert!(err.to_string().contains("no GPU activity"), "{err}");
}

#[test]
fn a_cut_off_trace_is_reported_as_truncated() {
    let err = parse(&MINIMAL[..MINIMAL.len() / 2]).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn broken_json_names_the_byte_where_it_broke() {
    let err = parse(r#"{"traceEvents":[{"ph":"X","cat":kernel}]}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.json: invalid trace event at byte 32: expected value"
    );
}

#[test]
fn a_json_file_that_is_not_a_trace_says_so() {
    let err = parse(r#"{"hello": [1, 2, 3]}"#).unwrap_err();
    assert!(err.to_string().contains("no \"traceEvents\""), "{err}");
}

/// A real trace read plain (mapped under a lease where the system grants one, its events
/// crossing the map's windows) and gzipped (inflated on a second thread) is read the same.
#[test]
fn a_plain_trace_reads_as_its_gzip_does() {
    use std::io::Read;
    let gz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/healthy/trace.json.gz");
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(&gz).unwrap())
        .read_to_end(&mut text)
        .unwrap();
    assert!(text.len() > 3 * (4 << 20), "{} bytes", text.len());
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("trace.json");
    std::fs::write(&plain, &text).unwrap();
    let (from_plain, from_gz) = (read_trace(&plain).unwrap(), read_trace(&gz).unwrap());
    assert_eq!(
        format!(
            "{:?}",
            Trace {
                source: gz.clone(),
                ..from_plain
            }
        ),
        format!("{from_gz:?}")
    );
}
