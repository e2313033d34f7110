//! Bad input gives one clear line naming the file and what is wrong, never a panic.

use std::io::Write;
use std::path::{Path, PathBuf};

use checkup_engine::{analyze_paths, Options};

fn corpus(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(run)
}

fn error_for(paths: &[PathBuf]) -> String {
    let e = analyze_paths(paths, &Options::default()).expect_err("bad input must fail");
    let text = e.to_string();
    assert!(!text.contains('\n'), "one line: {text}");
    text
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
    p
}

#[test]
fn truncated_gzip_trace_says_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read(corpus("memory_bound/trace.json.gz")).unwrap();
    let p = write(dir.path(), "trace.json.gz", &full[..full.len() / 3]);
    let e = error_for(std::slice::from_ref(&p));
    assert!(e.starts_with(&p.display().to_string()), "{e}");
    assert!(e.contains("truncated"), "{e}");
}

#[test]
fn invalid_json_names_the_byte() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "t.json",
        br#"{"traceEvents": [{"ph": "X", "name": }]}"#,
    );
    let e = error_for(&[p]);
    assert!(
        e.ends_with("invalid trace event at byte 37: expected value"),
        "{e}"
    );
}

#[test]
fn a_trace_without_profiler_steps_is_read_as_one_window_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "t.json", br#"{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"correlation": 1}}]}"#);
    let d = analyze_paths(&[p], &Options::default()).unwrap();
    assert_eq!(d.ranks[0].step_marks, checkup_model::StepMarks::WholeTrace);
    assert!(d
        .notes
        .iter()
        .any(|n| matches!(n, checkup_model::Note::StepsInferred { .. })));
}

#[test]
fn a_trace_without_gpu_work_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "t.json", br#"{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]}"#);
    let e = error_for(&[p]);
    assert!(e.contains("no GPU activity"), "{e}");
}

#[test]
fn empty_files_are_named_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["trace.json", "samples.csv"] {
        let p = write(dir.path(), name, b"");
        let e = error_for(&[p]);
        assert!(e.ends_with("file is empty"), "{e}");
    }
}

#[test]
fn a_steps_csv_with_wrong_columns_lists_what_it_has() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "steps.csv",
        b"step,start,wait\n0,1.0,2\n1,2.0,2\n",
    );
    let e = error_for(&[dir.path().to_path_buf()]);
    assert!(
        e.contains("missing column `t_start` (the header has: step, start, wait)"),
        "{e}"
    );
}

#[test]
fn a_multi_rank_run_missing_a_rank_says_which() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rank0")).unwrap();
    std::fs::copy(
        corpus("ddp_comm_bound/rank0/trace.json.gz"),
        dir.path().join("rank0/trace.json.gz"),
    )
    .unwrap();
    let e = error_for(&[dir.path().to_path_buf()]);
    assert!(
        e.contains("the run has 2 ranks but no trace for rank1"),
        "{e}"
    );
}

#[test]
fn a_folder_with_nothing_to_analyse_says_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "notes.md", b"hello");
    let e = error_for(&[dir.path().to_path_buf()]);
    assert!(e.contains("no recording found"), "{e}");
}

#[test]
fn a_missing_path_is_reported_with_the_os_reason() {
    let e = error_for(&[PathBuf::from("/nonexistent/run")]);
    assert!(e.starts_with("/nonexistent/run: No such file"), "{e}");
}

#[test]
fn a_tensorboard_trace_handler_folder_is_read_one_trace_per_rank() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        corpus("ddp_comm_bound/rank0/trace.json.gz"),
        dir.path().join("host_1.1700000000.pt.trace.json.gz"),
    )
    .unwrap();
    std::fs::copy(
        corpus("ddp_comm_bound/rank1/trace.json.gz"),
        dir.path().join("host_2.1700000001.pt.trace.json.gz"),
    )
    .unwrap();
    let d = analyze_paths(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    assert_eq!(
        d.ranks.iter().map(|r| r.rank).collect::<Vec<_>>(),
        vec![0, 1]
    );
    assert_eq!(d.primary, "communication");
}

#[test]
fn a_run_with_only_host_samples_says_no_gpu_was_recorded() {
    // What checkup-agent writes when sampling a host without an NVIDIA driver.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "samples_host.csv",
        b"ts,cpu_total_pct,proc_tree_cpu_pct,proc_tree_rss_mib,disk_read_mbs,disk_write_mbs,load1,cpu0,cpu1\n\
          1796028786.825,0.5,0,0,0,0,0.53,0,1\n1796028787.825,0,0,0,0,0,0.53,0,0\n",
    );
    let e = error_for(&[dir.path().to_path_buf()]);
    assert!(e.starts_with(&dir.path().display().to_string()), "{e}");
    assert!(e.contains("nothing was recorded on a GPU"), "{e}");
}

/// A run folder copied from `src` with `meta.json`'s world size set to `world`.
fn run_claiming_ranks(dir: &Path, src: &str, world: u64) -> PathBuf {
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::copy(corpus(src).join("trace.json.gz"), run.join("trace.json.gz")).unwrap();
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus(src).join("meta.json")).unwrap())
            .unwrap();
    meta["world_size"] = world.into();
    std::fs::write(run.join("meta.json"), meta.to_string()).unwrap();
    run
}

#[test]
fn a_world_size_no_run_has_is_refused_before_it_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_claiming_ranks(dir.path(), "memory_bound", 4_000_000_000);
    let e = error_for(&[run]);
    assert!(e.contains("world_size 4000000000 is over 65536"), "{e}");
}

#[test]
fn missing_ranks_are_listed_briefly() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_claiming_ranks(dir.path(), "memory_bound", 60_000);
    let e = error_for(&[run]);
    assert!(e.contains("rank1, rank2"), "{e}");
    assert!(e.contains("and 59991 more"), "{e}");
    assert!(e.len() < 600, "{} bytes", e.len());
}

#[test]
fn a_gzip_trace_holding_one_huge_string_is_refused_at_the_value_limit() {
    // 65 MiB of one kernel name inflate from well under a megabyte; the reader used to hold
    // the whole value (a 1 GB string cost 1.07 GB of memory).
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("trace.json.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&p).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(br#"{"traceEvents":[{"ph":"X","cat":"kernel","name":""#)
        .unwrap();
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..65 {
        gz.write_all(&chunk).unwrap();
    }
    gz.write_all(br#"","ts":1,"dur":1}]}"#).unwrap();
    gz.finish().unwrap();
    assert!(std::fs::metadata(&p).unwrap().len() < 1 << 20);
    let e = error_for(std::slice::from_ref(&p));
    assert!(
        e.contains("is over 64 MiB; a profiler event is a few KB"),
        "{e}"
    );
}

#[test]
fn a_run_killed_at_once_reads_as_nothing_recorded_yet_not_as_a_broken_file() {
    // The agent had created its files when the run was stopped: all empty, no meta.json.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "samples_nvml.csv", b"");
    write(dir.path(), "samples_host.csv", b"");
    let e = error_for(&[dir.path().to_path_buf()]);
    assert!(
        e.ends_with("nothing recorded yet: samples_nvml.csv, samples_host.csv are empty (the run was stopped before its first sample, or is still starting); record again, or analyse it once the run has written its samples"),
        "{e}"
    );
}

#[test]
fn an_interrupted_run_with_an_empty_file_and_no_meta_json_is_analysed_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    checkup_testkit::copy_dir(&checkup_testkit::corpus("launch_bound"), dir.path());
    std::fs::remove_file(dir.path().join("meta.json")).unwrap();
    write(dir.path(), "samples_host.csv", b"");
    let d = analyze_paths(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    assert_eq!(d.primary, "kernel_launch");
    assert!(d.notes.contains(&checkup_model::Note::EmptyFiles {
        files: vec!["samples_host.csv".into()]
    }));
}

#[test]
fn a_profiled_run_whose_idle_no_cause_explains_is_not_told_to_profile_again() {
    // The reporter-thread run without its host samples: its trace and steps cannot say what
    // holds the host, and it was profiled already.
    let dir = tempfile::tempdir().unwrap();
    checkup_testkit::copy_dir(
        &checkup_testkit::corpus("probe_reporter_thread"),
        dir.path(),
    );
    write(dir.path(), "samples_host.csv", b"");
    let d = analyze_paths(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    assert_eq!(d.primary, "gpu_idle");
    assert_eq!(
        d.findings[0].fixes,
        vec![checkup_model::Fix::Shared(
            checkup_model::SharedFix::MainThreadCpu
        )]
    );
    // Nor told to compile: 49 ms per launch is no launch overhead.
    assert!(d.finding("kernel_launch").is_none());
}
