//! One job recorded on two nodes (`tests/corpus/two_node_slow_rank`: two agents, each
//! wrapping its own `torchrun --nnodes 2`), read as one recording: every rank, every GPU
//! numbered across the job, every time on rank 0's host's clock.

use checkup_model::{CommunicationEvidence, CommunicationFix};
use std::path::Path;

use checkup_testkit::{copy_dir, corpus};

use checkup_engine::ingest::{load, Recording};
use checkup_engine::{analyze_paths, Options};
use checkup_model::{EvidenceKey, Fix};

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

/// Marks every full NVML row of a node's samples with a software power cap and a power
/// limit, as a GPU capped by its host's administrator reads.
fn cap_power_of(node: &Path, limit_w: f64) {
    let path = node.join("samples_nvml.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let cols: Vec<&str> = header.split(',').collect();
    let col = |name: &str| cols.iter().position(|c| *c == name).unwrap();
    let (util, limit, reasons) = (
        col("util_gpu"),
        col("power_limit_w"),
        col("clock_event_reasons"),
    );
    let mut out = format!("{header}\n");
    for line in lines {
        let mut cells: Vec<String> = line.split(',').map(str::to_owned).collect();
        if !cells[util].is_empty() {
            cells[limit] = format!("{limit_w}");
            cells[reasons] = "4".into();
        }
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    std::fs::write(&path, out).unwrap();
}

#[test]
fn a_slow_host_on_a_capped_gpu_is_told_to_mend_the_gpu_not_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    copy_dir(&corpus("two_node_slow_node"), &job);
    let before = analyze_paths(std::slice::from_ref(&job), &Options::default()).unwrap();
    let straggler = before.finding("communication/straggler").unwrap();
    assert!(matches!(
        straggler.fixes.as_slice(),
        [Fix::Communication(CommunicationFix::EvenRankWork {
            slow_rank: 2,
            ..
        })]
    ));
    // Ranks 2 and 3 are both slow on node 1's GPU: capped, it is the difference.
    cap_power_of(&job.join("node1"), 600.0);
    let d = analyze_paths(std::slice::from_ref(&job), &Options::default()).unwrap();
    assert_eq!(d.primary, "communication/straggler");
    let straggler = d.finding("communication/straggler").unwrap();
    assert_eq!(
        straggler.fixes,
        [Fix::Communication(CommunicationFix::SlowerGpu {
            slow_rank: 2,
            gpu: 1,
            host: Some("vm#1".into()),
            reasons: vec!["software power cap".into()],
            power_limit_w: Some(600.0),
            typical_power_limit_w: Some(700.0),
        })]
    );
    assert_eq!(
        straggler.evidence_value(&EvidenceKey::Communication(
            CommunicationEvidence::GpuPowerLimit { gpu: 1 }
        )),
        Some(600.0)
    );
}

#[test]
fn a_capped_gpu_shared_with_a_fast_rank_leaves_the_work_to_even() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    copy_dir(&corpus("two_node_slow_rank"), &job);
    // Rank 2 computes on node 1's GPU as fast as ranks 0 and 1: the cap is not why rank 3
    // is slow.
    cap_power_of(&job.join("node1"), 600.0);
    let d = analyze_paths(std::slice::from_ref(&job), &Options::default()).unwrap();
    let straggler = d.finding("communication/straggler").unwrap();
    assert!(
        matches!(
            straggler.fixes.as_slice(),
            [Fix::Communication(CommunicationFix::EvenRankWork {
                slow_rank: 3,
                ..
            })]
        ),
        "{:?}",
        straggler.fixes
    );
}

/// Names the GPUs of a node's recorded static facts `model`, as a node of another GPU
/// model records them.
fn gpu_model_of(node: &Path, model: &str) {
    let path = node.join("static/facts.json");
    let mut facts: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    facts["gpu_name"] = model.into();
    for g in facts["gpus"].as_array_mut().unwrap() {
        g["name"] = model.into();
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&facts).unwrap()).unwrap();
}

#[test]
fn a_slow_host_of_another_gpu_model_is_told_to_match_the_models_not_even_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    copy_dir(&corpus("two_node_slow_node"), &job);
    // Ranks 2 and 3 are both slow on node 1's GPU, here another model than node 0's.
    gpu_model_of(&job.join("node1"), "NVIDIA A100-SXM4-80GB");
    let d = analyze_paths(std::slice::from_ref(&job), &Options::default()).unwrap();
    let straggler = d.finding("communication/straggler").unwrap();
    assert_eq!(
        straggler.fixes,
        [Fix::Communication(CommunicationFix::OtherGpuModel {
            slow_rank: 2,
            gpu: 1,
            host: Some("vm#1".into()),
            model: "NVIDIA A100-SXM4-80GB".into(),
            others_model: "NVIDIA H200".into(),
        })]
    );
    assert!(straggler.is_explained_straggler());
}

#[test]
fn a_slow_rank_beside_a_fast_one_on_the_other_model_is_not_blamed_on_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    copy_dir(&corpus("two_node_slow_rank"), &job);
    // Rank 2 computes on node 1's GPU as fast as ranks 0 and 1: the model is not why rank 3
    // is slow.
    gpu_model_of(&job.join("node1"), "NVIDIA A100-SXM4-80GB");
    let d = analyze_paths(std::slice::from_ref(&job), &Options::default()).unwrap();
    let straggler = d.finding("communication/straggler").unwrap();
    assert!(
        matches!(
            straggler.fixes.as_slice(),
            [Fix::Communication(CommunicationFix::EvenRankWork {
                slow_rank: 3,
                ..
            })]
        ),
        "{:?}",
        straggler.fixes
    );
}
