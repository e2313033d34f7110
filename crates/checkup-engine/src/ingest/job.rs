//! One job recorded on several hosts: each host's agent left a run folder of its own ranks
//! and GPUs (`checkup-agent run` under `torchrun --nnodes N` or `srun`), and they are read
//! here as one recording. Ranks keep their global numbers; each host's GPUs are numbered
//! after the previous host's; every time is moved onto the clock of rank 0's host by the
//! offset the host's ranks measured at start.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use checkup_model::{NodeFacts, Note};
use checkup_recording::{layout, meta};

use super::{load_log, load_run_folder, InputKind, Recording, TraceInput};
use crate::error::{EngineError, Result};

/// The node folders inside `dir`, when it is a folder of a job's hosts (each a run folder
/// with `meta.json` and its ranks' `rankN/` folders), sorted by name.
pub(super) fn node_folders_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| EngineError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && p.join(layout::META_JSON).is_file())
        .filter(|p| {
            std::fs::read_dir(p).is_ok_and(|rd| {
                rd.flatten().any(|e| {
                    e.path().is_dir()
                        && e.file_name()
                            .to_str()
                            .and_then(layout::rank_of_dir)
                            .is_some()
                })
            })
        })
        .collect();
    out.sort();
    Ok(out)
}

/// One host's folder, read on its own.
struct NodeRecording {
    node: NodeFacts,
    rec: Recording,
    traces: Vec<TraceInput>,
}

fn read_node(dir: &Path) -> Result<NodeRecording> {
    let mut rec = Recording::default();
    let mut traces = Vec::new();
    let mut logs: Vec<(InputKind, PathBuf)> = Vec::new();
    load_run_folder(dir, &mut rec, &mut traces, &mut logs)?;
    for (kind, path) in logs {
        load_log(kind, &path, &mut rec)?;
    }
    let node = match dir.join(layout::META_JSON) {
        m if m.is_file() => meta::read_meta(&m)?.node,
        _ => None,
    };
    let mut node = node.unwrap_or_default();
    node.source = dir.display().to_string();
    // The ranks it holds are what its folders say; the agent's list is only its account.
    let held: BTreeSet<u32> = rec
        .steps
        .keys()
        .copied()
        .chain(traces.iter().filter_map(|t| t.folder_rank))
        .collect();
    node.ranks = held.into_iter().collect();
    Ok(NodeRecording { node, rec, traces })
}

/// Reads the run folders of one job's hosts into `rec`; their traces go to `traces`.
pub(super) fn load_job(
    dirs: &[PathBuf],
    rec: &mut Recording,
    traces: &mut Vec<TraceInput>,
) -> Result<()> {
    let mut nodes = dirs
        .iter()
        .map(|d| read_node(d))
        .collect::<Result<Vec<_>>>()?;
    check_disjoint(&nodes)?;
    // Node order: the launcher's node index, else the lowest rank held.
    nodes.sort_by_key(|n| {
        (
            n.node.node_rank.unwrap_or(u32::MAX),
            n.node.ranks.first().copied(),
        )
    });
    let rank0_node = nodes
        .iter()
        .position(|n| n.node.ranks.contains(&0))
        .unwrap_or(0);
    // Times are moved onto rank 0's host's clock: its own offset is the reference.
    let reference = nodes[rank0_node].node.clock_offset_s.unwrap_or(0.0);
    let mut next_gpu = 0u32;
    let mut facts_out = Vec::with_capacity(nodes.len());
    for (i, mut n) in nodes.into_iter().enumerate() {
        let shift = n.node.clock_offset_s.map_or(0.0, |o| o - reference);
        let local: BTreeSet<u32> = n
            .rec
            .samples
            .nvml
            .iter()
            .map(|s| s.gpu)
            .chain(n.rec.samples.gpm.iter().map(|s| s.gpu))
            .chain(n.rec.facts.gpus.iter().map(|g| g.index))
            .collect();
        let local: Vec<u32> = local.into_iter().collect();
        let global = |gpu: u32| next_gpu + local.iter().position(|g| *g == gpu).unwrap_or(0) as u32;
        for s in &mut n.rec.samples.nvml {
            s.ts += shift;
            s.gpu = global(s.gpu);
        }
        for s in &mut n.rec.samples.gpm {
            s.ts += shift;
            s.gpu = global(s.gpu);
        }
        for s in &mut n.rec.gpu_processes {
            s.ts += shift;
            s.gpu = global(s.gpu);
        }
        for g in &mut n.rec.facts.gpus {
            g.index = global(g.index);
        }
        for steps in n.rec.steps.values_mut() {
            for s in steps {
                s.t_start += shift;
            }
        }
        for markers in n.rec.markers.values_mut() {
            for m in markers {
                m.t += shift;
            }
        }
        for memory in n.rec.memory.values_mut() {
            for m in memory {
                m.t += shift;
            }
        }
        n.node.gpus = (0..local.len() as u32).map(|g| next_gpu + g).collect();
        n.node.driver_version = n.rec.facts.driver_version.clone();
        next_gpu += local.len() as u32;
        merge_node(rec, n.rec, shift, i == rank0_node);
        traces.extend(n.traces);
        facts_out.push(n.node);
    }
    if next_gpu > 0 {
        rec.facts.gpu_count = Some(next_gpu);
    }
    let host_readings_of = facts_out[rank0_node].label(&facts_out);
    rec.notes.push(Note::JobOnNodes {
        nodes: facts_out.clone(),
        host_readings_of,
    });
    rec.facts.nodes = facts_out;
    Ok(())
}

/// Adds one host's recording to the job's. The host CPU readings kept are those of rank 0's
/// host: the rules read them as one machine's.
fn merge_node(into: &mut Recording, from: Recording, shift: f64, keep_host: bool) {
    let Recording {
        facts,
        samples,
        steps,
        training,
        markers,
        memory,
        gpu_processes,
        traces: _,
        profile_steps,
        notes,
        sources,
    } = from;
    let (started, ended) = (
        facts.started.map(|t| t + shift),
        facts.ended.map(|t| t + shift),
    );
    let gpus = facts.gpus.clone();
    if keep_host {
        into.samples.host = samples
            .host
            .into_iter()
            .map(|mut h| {
                h.ts += shift;
                h
            })
            .collect();
    }
    meta::merge_into(&mut into.facts, facts);
    if !into
        .facts
        .gpus
        .iter()
        .any(|g| gpus.iter().any(|n| n.index == g.index))
    {
        into.facts.gpus.extend(gpus);
        into.facts.gpus.sort_by_key(|g| g.index);
    }
    into.facts.started = into
        .facts
        .started
        .into_iter()
        .chain(started)
        .reduce(f64::min);
    into.facts.ended = into.facts.ended.into_iter().chain(ended).reduce(f64::max);
    into.samples.nvml.extend(samples.nvml);
    into.samples.gpm.extend(samples.gpm);
    into.samples.nvml.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    into.samples.gpm.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    into.gpu_processes.extend(gpu_processes);
    into.steps.extend(steps);
    into.training.extend(training);
    into.markers.extend(markers);
    into.memory.extend(memory);
    into.profile_steps = into.profile_steps.or(profile_steps);
    into.notes.extend(notes);
    into.sources.extend(sources);
}

/// Two folders holding one rank are two runs, not two hosts of one job.
fn check_disjoint(nodes: &[NodeRecording]) -> Result<()> {
    for (i, a) in nodes.iter().enumerate() {
        for b in &nodes[i + 1..] {
            if let Some(r) = a.node.ranks.iter().find(|r| b.node.ranks.contains(r)) {
                return Err(EngineError::invalid(
                    Path::new(&b.node.source),
                    format!(
                        "rank {r} is also in {}: several run folders are read as the hosts of one job, each with its own ranks (to set two runs side by side, use `checkup compare`)",
                        a.node.source
                    ),
                ));
            }
            if a.node.ranks.is_empty() || b.node.ranks.is_empty() {
                let empty = if a.node.ranks.is_empty() { a } else { b };
                return Err(EngineError::invalid(
                    Path::new(&empty.node.source),
                    "this run folder holds no rank of a job (no rankN/ folder with steps or a trace): several run folders are read as the hosts of one job",
                ));
            }
        }
    }
    Ok(())
}
