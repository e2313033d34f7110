//! Who held a GPU's memory: the training's process and any others on the same GPU, from
//! the agent's `samples_gpu_processes.csv`. A forgotten notebook kernel or another user's job
//! takes memory the training cannot have, and no change to the training gives it back.

use checkup_model::{GpuProcessSample, ProcessMemory};

use crate::analysis::trends::GIB;

const MIB_IN_GIB: f64 = GIB / (1024.0 * 1024.0);

/// About what a CUDA context takes on a GPU of this generation, outside any allocator: what
/// NVML counts for a process beyond its allocator's reserve.
pub const CUDA_CONTEXT_GIB: f64 = 0.6;

/// The processes that held memory on one GPU.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuSharing {
    /// The training's process, where the probe's allocator reserve tells which it is.
    pub training_pid: Option<u32>,
    /// The most memory the other processes held together at one reading (GiB), and how
    /// many they were; None when the training's process is not known.
    pub others_gib: Option<f64>,
    /// The other processes (empty when the training's is not known).
    pub other_pids: Vec<u32>,
    /// Each process's memory over time, for a chart; empty when one process alone held any.
    pub series: Vec<ProcessMemory>,
}

/// `gpu`'s processes. `reserved_peak_gib`: the training allocator's peak reserve (the
/// probe's), which picks the training's process: the one whose peak is nearest to it plus a
/// context. `t0`: the charts' time zero.
pub fn gpu_sharing(
    processes: &[GpuProcessSample],
    gpu: u32,
    reserved_peak_gib: Option<f64>,
    t0: f64,
) -> Option<GpuSharing> {
    let on_gpu: Vec<&GpuProcessSample> = processes.iter().filter(|p| p.gpu == gpu).collect();
    if on_gpu.is_empty() {
        return None;
    }
    let mut pids: Vec<u32> = on_gpu.iter().map(|p| p.pid).collect();
    pids.sort_unstable();
    pids.dedup();
    let peak_of = |pid: u32| {
        on_gpu
            .iter()
            .filter(|p| p.pid == pid)
            .filter_map(|p| p.used_mib)
            .fold(0.0, f64::max)
            / MIB_IN_GIB
    };
    let training_pid = match (pids.as_slice(), reserved_peak_gib) {
        ([only], _) => Some(*only),
        (_, Some(reserved)) => pids.iter().copied().min_by(|a, b| {
            let off = |pid| (peak_of(pid) - reserved - CUDA_CONTEXT_GIB).abs();
            off(*a).total_cmp(&off(*b))
        }),
        _ => None,
    };
    // The others' memory at each reading (readings share one timestamp per sweep).
    let others_gib = training_pid.map(|training| {
        let mut at: Vec<(f64, f64)> = Vec::new();
        for p in on_gpu.iter().filter(|p| p.pid != training) {
            let used = p.used_mib.unwrap_or(0.0) / MIB_IN_GIB;
            match at.iter_mut().find(|(ts, _)| *ts == p.ts) {
                Some((_, sum)) => *sum += used,
                None => at.push((p.ts, used)),
            }
        }
        at.iter().map(|(_, gib)| *gib).fold(0.0, f64::max)
    });
    let series = if pids.len() > 1 {
        pids.iter()
            .map(|&pid| {
                let rows = on_gpu.iter().filter(|p| p.pid == pid);
                ProcessMemory {
                    pid,
                    training: Some(pid) == training_pid,
                    t: rows.clone().map(|p| p.ts - t0).collect(),
                    used_gib: rows
                        .map(|p| p.used_mib.map(|m| (m / MIB_IN_GIB) as f32))
                        .collect(),
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    Some(GpuSharing {
        training_pid,
        others_gib,
        other_pids: training_pid.map_or_else(Vec::new, |training| {
            pids.iter().copied().filter(|p| *p != training).collect()
        }),
        series,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(ts: f64, pid: u32, gib: f64) -> GpuProcessSample {
        GpuProcessSample {
            ts,
            gpu: 0,
            pid,
            used_mib: Some(gib * 1024.0),
        }
    }

    #[test]
    fn the_process_matching_the_probes_reserve_is_the_training_and_the_rest_are_others() {
        // A 40 GiB neighbour started first; the training grows to a 90 GiB reserve.
        let mut rows = Vec::new();
        for i in 0..10 {
            let ts = 100.0 + i as f64;
            rows.push(row(ts, 7, 40.5));
            rows.push(row(ts, 524, 10.0 * i as f64 + 0.6));
        }
        let s = gpu_sharing(&rows, 0, Some(90.0), 100.0).unwrap();
        assert_eq!(s.training_pid, Some(524));
        assert_eq!((s.others_gib, s.other_pids), (Some(40.5), vec![7]));
        assert_eq!(s.series.len(), 2);
        assert!(s.series.iter().any(|p| p.pid == 524 && p.training));
        assert_eq!(s.series[0].t[3], 3.0);
    }

    #[test]
    fn without_the_probe_two_processes_are_charted_but_neither_is_called_the_training() {
        let rows = vec![row(1.0, 7, 40.0), row(1.0, 9, 60.0)];
        let s = gpu_sharing(&rows, 0, None, 0.0).unwrap();
        assert_eq!((s.training_pid, s.others_gib), (None, None));
        assert_eq!(s.series.len(), 2);
        assert!(s.series.iter().all(|p| !p.training));
    }

    #[test]
    fn a_process_alone_on_its_gpu_leaves_no_other_memory_and_no_chart() {
        let rows = vec![row(1.0, 524, 126.9), row(2.0, 524, 126.9)];
        let s = gpu_sharing(&rows, 0, None, 0.0).unwrap();
        assert_eq!((s.training_pid, s.others_gib), (Some(524), Some(0.0)));
        assert!(s.series.is_empty());
        assert!(gpu_sharing(&rows, 1, None, 0.0).is_none());
    }
}
