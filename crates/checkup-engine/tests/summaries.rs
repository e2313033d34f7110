//! Traces reduced on the hosts that recorded them (`trace_summary.json`): a job whose hosts
//! sent summaries instead of traces is diagnosed exactly as if the traces had been copied.

use std::path::{Path, PathBuf};

use checkup_testkit::{copy_dir, corpus};

use checkup_engine::ingest::{load, summarize_run};
use checkup_engine::{analyze_paths, Options};
use checkup_model::{Diagnosis, Note};

/// A copy of the two-node job, each node's traces summarised where they lie.
fn summarised_job(into: &Path) -> PathBuf {
    let job = into.join("job");
    copy_dir(&corpus("two_node_slow_rank"), &job);
    for node in ["node0", "node1"] {
        summarize_run(&job.join(node)).unwrap();
    }
    job
}

fn remove_traces(job: &Path) {
    for node in ["node0", "node1"] {
        for e in std::fs::read_dir(job.join(node)).unwrap().flatten() {
            let trace = e.path().join("trace.json.gz");
            if trace.exists() {
                std::fs::remove_file(trace).unwrap();
            }
        }
    }
}

/// The diagnosis with the files it read left out: what must not change with the source.
fn without_sources(mut d: Diagnosis) -> Diagnosis {
    for r in &mut d.ranks {
        r.source.clear();
    }
    d.sources.clear();
    d.notes.retain(|n| {
        !matches!(
            n,
            Note::TracesSummarisedOnHosts { .. } | Note::JobOnNodes { .. }
        )
    });
    d
}

#[test]
fn summarising_writes_one_small_file_beside_each_rank_trace() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    copy_dir(&corpus("two_node_slow_rank"), &job);
    let done = summarize_run(&job.join("node1")).unwrap();
    assert_eq!(done.iter().map(|s| s.rank).collect::<Vec<_>>(), [2, 3]);
    for s in &done {
        assert_eq!(s.summary, s.trace.with_file_name("trace_summary.json"));
        assert!(s.summary.is_file());
        // A summary is a small fraction of its trace (about a tenth here, less for longer traces).
        assert!(s.summary_bytes * 4 < s.trace_bytes, "{s:?}");
    }
    assert_eq!(done[1].trace_bytes, 117_665);
}

#[test]
fn a_job_whose_hosts_kept_their_traces_is_diagnosed_as_if_they_were_copied() {
    let dir = tempfile::tempdir().unwrap();
    let job = summarised_job(dir.path());
    let with_traces = analyze_paths(std::slice::from_ref(&job), &Options::default()).unwrap();
    remove_traces(&job);
    let from_summaries = analyze_paths(std::slice::from_ref(&job), &Options::default()).unwrap();
    assert_eq!(from_summaries.primary, "communication/straggler");
    assert_eq!(from_summaries.diagnosed_rank, Some(3));
    assert!(from_summaries
        .notes
        .contains(&Note::TracesSummarisedOnHosts {
            ranks: vec![0, 1, 2, 3],
            trace_bytes: 114_804 + 114_894 + 114_929 + 117_665,
        }));
    assert!(!with_traces
        .notes
        .iter()
        .any(|n| matches!(n, Note::TracesSummarisedOnHosts { .. })));
    assert_eq!(
        without_sources(from_summaries),
        without_sources(with_traces)
    );
}

#[test]
fn a_copied_trace_is_read_rather_than_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let job = summarised_job(dir.path());
    // Only rank 3's trace was copied back: the other ranks come from their summaries.
    for rank in ["node0/rank0", "node0/rank1", "node1/rank2"] {
        std::fs::remove_file(job.join(rank).join("trace.json.gz")).unwrap();
    }
    let rec = load(std::slice::from_ref(&job)).unwrap();
    let read: Vec<(Option<u32>, Option<u64>)> = rec
        .traces
        .iter()
        .map(|t| (t.rank, t.trace_left_on_host))
        .collect();
    assert_eq!(
        read,
        [
            (Some(0), Some(114_804)),
            (Some(1), Some(114_894)),
            (Some(2), Some(114_929)),
            (Some(3), None)
        ]
    );
    assert!(rec.traces[3].source.ends_with("node1/rank3/trace.json.gz"));
}

#[test]
fn a_summary_copied_into_another_ranks_folder_is_refused_as_a_rank_read_twice() {
    let dir = tempfile::tempdir().unwrap();
    let job = summarised_job(dir.path());
    remove_traces(&job);
    std::fs::copy(
        job.join("node1/rank3/trace_summary.json"),
        job.join("node1/rank2/trace_summary.json"),
    )
    .unwrap();
    let e = load(std::slice::from_ref(&job)).unwrap_err().to_string();
    assert!(
        e.contains("node1/rank3/trace_summary.json: rank 3 appears twice (also in ")
            && e.ends_with("node1/rank2/trace_summary.json): give one trace per rank"),
        "{e}"
    );
}

#[test]
fn a_summary_is_not_read_against_other_thresholds() {
    let dir = tempfile::tempdir().unwrap();
    let job = summarised_job(dir.path());
    remove_traces(&job);
    let mut options = Options::default();
    options.thresholds.straggler_share *= 2.0;
    let e = analyze_paths(&[job], &options).unwrap_err().to_string();
    assert!(
        e.ends_with("rank0/trace_summary.json: this rank's trace was measured on its host with the default thresholds and this analysis uses others: copy the trace itself beside it"),
        "{e}"
    );
}

#[test]
fn a_run_without_traces_has_nothing_to_summarise() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    copy_dir(&corpus("two_node_slow_rank/node0"), &run);
    for rank in ["rank0", "rank1"] {
        std::fs::remove_file(run.join(rank).join("trace.json.gz")).unwrap();
    }
    assert_eq!(summarize_run(&run).unwrap(), []);
}
