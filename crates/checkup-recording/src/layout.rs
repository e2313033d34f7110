//! Where each file of a run folder lives (`tests/corpus/README.md` describes them). A
//! multi-GPU run keeps one `rankN/` folder per rank, each with its own `steps.csv` and trace.

/// NVML readings of every GPU (`ts,gpu,util_gpu,…`).
pub const NVML_CSV: &str = "samples_nvml.csv";
/// GPM readings of every GPU (Hopper and newer).
pub const GPM_CSV: &str = "samples_gpm.csv";
/// Host readings: CPU, the training tree's CPU and memory, disks.
pub const HOST_CSV: &str = "samples_host.csv";
/// Each GPU's compute processes and their memory, written by the agent.
pub const GPU_PROCESSES_CSV: &str = "samples_gpu_processes.csv";
/// Every step as the training loop timed it (per rank).
pub const STEPS_CSV: &str = "steps.csv";
/// What the recorder knew of the run: scenario, versions, profiled steps.
pub const META_JSON: &str = "meta.json";
/// The profiler trace of a run (or of one rank).
pub const TRACE: &str = "trace.json.gz";
/// What the engine measured of a rank's trace, written beside it on the host that recorded
/// it (`checkup-agent summarize`), so the trace itself need not be copied.
pub const TRACE_SUMMARY: &str = "trace_summary.json";
/// Static facts of the host: `facts.json`, `nvidia-smi-q.xml`, `topo.txt`.
pub const STATIC_DIR: &str = "static";
/// The GPUs and driver as NVML saw them, written by the agent (under `static/`).
pub const FACTS_JSON: &str = "facts.json";
/// `nvidia-smi -q -x` (under `static/`).
pub const SMI_XML: &str = "nvidia-smi-q.xml";
/// `nvidia-smi topo -m` (under `static/`).
pub const TOPOLOGY: &str = "topo.txt";
/// What the training is, as the probe saw it (loaders, optimizers, settings, syncs).
pub const TRAINING_JSON: &str = "training.json";
/// Markers of periodic work over every step: epoch starts, checkpoints, evaluation, GC.
pub const EVENTS_CSV: &str = "events.csv";
/// CUDA memory of the training process, a row every half second or so.
pub const MEMORY_CSV: &str = "memory.csv";
/// What the profiling probe could and could not do.
pub const PROBE_STATUS: &str = "probe_status.json";

/// The folder of rank `rank` in a multi-GPU run.
pub fn rank_dir(rank: u32) -> String {
    format!("rank{rank}")
}

/// The rank a folder named `rankN` holds.
pub fn rank_of_dir(name: &str) -> Option<u32> {
    name.strip_prefix("rank")
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_folders_are_named_and_read_back() {
        assert_eq!(rank_dir(3), "rank3");
        assert_eq!(rank_of_dir("rank12"), Some(12));
        for not in ["rank", "rankx", "rank-1", "ranks", "Rank1"] {
            assert_eq!(rank_of_dir(not), None, "{not}");
        }
    }
}
