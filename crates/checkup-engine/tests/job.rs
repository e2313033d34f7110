//! One job recorded on two nodes (`tests/corpus/two_node_slow_rank`: two agents, each
//! wrapping its own `torchrun --nnodes 2`), read as one recording: every rank, every GPU
//! numbered across the job, every time on rank 0's host's clock.

mod common;

use std::path::Path;

use common::{copy_dir, corpus};

use checkup_engine::ingest::{load, Recording};

/// When each rank started step `step`, on the recording's clock.
fn step_starts(rec: &Recording, step: u64) -> Vec<f64> {
    rec.steps
        .values()
        .map(|rows| rows.iter().find(|s| s.step == step).unwrap().t_start)
        .collect()
}

fn spread(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::MIN, f64::max) - v.iter().copied().fold(f64::MAX, f64::min)
}

/// Rewrites the first column (epoch seconds) of a CSV file, shifted by `by`.
fn shift_first_column(path: &Path, column: usize, by: f64) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    for line in lines {
        let mut cells: Vec<String> = line.split(',').map(str::to_owned).collect();
        let t: f64 = cells[column].parse().unwrap();
        cells[column] = format!("{:.6}", t + by);
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

#[test]
fn a_folder_of_two_nodes_reads_as_four_ranks_on_one_clock() {
    let rec = load(&[corpus("two_node_slow_rank")]).unwrap();
    assert_eq!(rec.steps.keys().copied().collect::<Vec<_>>(), [0, 1, 2, 3]);
    assert_eq!(rec.traces.len(), 4);
    let nodes = &rec.facts.nodes;
    assert_eq!(nodes.len(), 2);
    assert_eq!((nodes[0].node_rank, nodes[1].node_rank), (Some(0), Some(1)));
    assert_eq!(
        (nodes[0].ranks.clone(), nodes[1].ranks.clone()),
        (vec![0, 1], vec![2, 3])
    );
    // Both nodes sampled the one GPU of the machine: the job numbers it once per node.
    assert_eq!(
        (nodes[0].gpus.clone(), nodes[1].gpus.clone()),
        (vec![0], vec![1])
    );
    assert_eq!(rec.facts.gpu_count, Some(2));
    let gpus: std::collections::BTreeSet<u32> = rec.samples.nvml.iter().map(|s| s.gpu).collect();
    assert_eq!(gpus.into_iter().collect::<Vec<_>>(), [0, 1]);
    assert_eq!(rec.facts.world_size, Some(4));
    // The ranks measured their clocks against rank 0's through the job's store: one
    // machine, so the offsets are microseconds, measured over round trips of ~0.1 ms.
    for n in nodes {
        assert!(n.clock_offset_s.unwrap().abs() < 1e-3, "{n:?}");
        assert!(n.clock_rtt_s.unwrap() < 1e-3, "{n:?}");
    }
    // DDP steps together: each step starts within a few milliseconds on every rank.
    assert!(spread(&step_starts(&rec, 20)) < 0.005);
    // Each node's driver, from its own static facts, for the check across hosts.
    assert!(nodes
        .iter()
        .all(|n| n.driver_version.as_deref() == Some("580.159.04")));
    assert_eq!(rec.facts.gpu_of_rank(1), Some(0));
    assert_eq!(rec.facts.gpu_of_rank(3), Some(1));
}

#[test]
fn a_node_whose_clock_runs_behind_is_moved_onto_rank_0s_clock() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    copy_dir(&corpus("two_node_slow_rank"), &job);
    // Node 1's clock reads 2.5 s behind node 0's; its ranks measured that at start.
    let node1 = job.join("node1");
    for rank in ["rank2", "rank3"] {
        shift_first_column(&node1.join(rank).join("steps.csv"), 1, -2.5);
    }
    shift_first_column(&node1.join("samples_nvml.csv"), 0, -2.5);
    let meta_path = node1.join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    let offset = meta["node"]["clock_offset_s"].as_f64().unwrap();
    meta["node"]["clock_offset_s"] = (offset + 2.5).into();
    std::fs::write(&meta_path, meta.to_string()).unwrap();

    let rec = load(&[job]).unwrap();
    assert!(spread(&step_starts(&rec, 20)) < 0.005);
    let first = |gpu: u32| rec.samples.nvml.iter().find(|s| s.gpu == gpu).unwrap().ts;
    assert!(
        (first(1) - first(0)).abs() < 0.2,
        "{} vs {}",
        first(1),
        first(0)
    );
}

#[test]
fn the_node_folders_given_one_by_one_in_any_order_are_the_same_job() {
    let job = corpus("two_node_slow_rank");
    let rec = load(&[job.join("node1"), job.join("node0")]).unwrap();
    assert_eq!(rec.facts.nodes[0].ranks, [0, 1]);
    assert_eq!(rec.steps.len(), 4);
}

#[test]
fn two_runs_that_both_hold_rank_0_are_refused_as_one_job() {
    let e = load(&[corpus("healthy"), corpus("checkpoint_stall")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("rank 0 is also in"), "{e}");
    assert!(e.contains("checkup compare"), "{e}");
}
