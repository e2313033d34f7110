//! Which fixes apply to each finding, with the run's own values they quote. The catalogue
//! words them.

use checkup_model::{DataLoaderSettings, Fix};

use super::thresholds::Thresholds;

pub fn data_loading(
    settings: Option<&DataLoaderSettings>,
    host_saturated: bool,
    cores: Option<u32>,
) -> Vec<Fix> {
    let workers_now = settings.and_then(|s| s.num_workers);
    let mut out = Vec::new();
    if host_saturated {
        out.push(Fix::CheaperSamples);
        // Workers on every core leave none for the process that launches the kernels.
        if let (Some(w), Some(c)) = (workers_now, cores.filter(|c| *c > 2)) {
            if w + 1 >= c {
                out.push(Fix::LeaveCoresToLoop {
                    workers: w,
                    cores: c,
                    suggested: c - 2,
                });
            }
        }
    } else {
        // Two cores for the training process and the system; between 4 and 16 workers.
        let suggested = cores.map(|c| c.saturating_sub(2).clamp(4, 16)).unwrap_or(8);
        out.push(Fix::MoreWorkers {
            suggested,
            current: workers_now,
        });
    }
    if settings.and_then(|s| s.pin_memory) != Some(true) {
        out.push(Fix::PinMemory);
    }
    if settings.is_some_and(|s| s.persistent_workers != Some(true)) {
        out.push(Fix::PersistentWorkers);
    }
    out
}

pub fn h2d_copy(pageable: bool) -> Vec<Fix> {
    let mut out = Vec::new();
    if pageable {
        out.push(Fix::PinnedCopy);
    }
    out.extend([Fix::OverlapCopy, Fix::FewerCopyBytes]);
    out
}

/// The host CPU is saturated by processes outside the training: its loop and its workers
/// get CPU time late.
pub fn cpu_contention() -> Vec<Fix> {
    vec![Fix::FindCpuHogs, Fix::ReserveCores]
}

/// `optimizer`: whether a torch.optim step may run (a trace that shows none ran none:
/// inference, a one-off profile).
pub fn kernel_launch(optimizer: bool) -> Vec<Fix> {
    let mut out = vec![Fix::CompileFuseKernels];
    if optimizer {
        out.push(Fix::ForeachOptimizer);
    }
    out.push(Fix::BiggerKernels);
    out
}

pub fn host_sync() -> Vec<Fix> {
    vec![Fix::FewerReadbacks, Fix::GpuMetrics, Fix::FindHiddenSyncs]
}

pub fn communication(p2p_disabled: bool) -> Vec<Fix> {
    let mut out = Vec::new();
    if p2p_disabled {
        out.push(Fix::EnableP2p);
    }
    out.extend([
        Fix::AccumulateGradients,
        Fix::MoreWorkPerAllReduce,
        Fix::CompressGradients,
    ]);
    out
}

pub fn periodic_stall(checkpoint_seen: bool) -> Vec<Fix> {
    vec![
        Fix::AsyncCheckpoint { checkpoint_seen },
        Fix::LessPeriodicWork,
    ]
}

/// For an idle GPU whose cause was not recorded; `tree_cpu` is the training process tree's
/// CPU use (100 = one core).
pub fn gpu_idle(tree_cpu: Option<f64>, th: &Thresholds) -> Vec<Fix> {
    let mut out = vec![Fix::ProfileSteps];
    // One core's worth of CPU in the training processes (and not much more) is the Python
    // main thread running flat out: launches or per-step work in the main process.
    let (low, high) = th.main_thread_cpu_pct;
    if tree_cpu.is_some_and(|t| (low..high).contains(&t)) {
        out.push(Fix::MainThreadCpu);
    }
    out
}

/// NVML clock-event reason names (`sw_thermal_slowdown`, `sw_power_cap`, …).
pub fn throttling(reasons: &[String]) -> Vec<Fix> {
    let thermal = reasons.iter().any(|r| r.contains("thermal"));
    let power = reasons.iter().any(|r| r.contains("power"));
    let mut out = Vec::new();
    if thermal {
        out.push(Fix::CoolGpu);
    }
    if power || !thermal {
        out.push(Fix::CheckPower);
    }
    out
}

/// `optimizer`: as for [`kernel_launch`].
pub fn compute_bound(tensor_cores_idle: bool, conv_heavy: bool, optimizer: bool) -> Vec<Fix> {
    let mut out = Vec::new();
    if tensor_cores_idle {
        out.push(Fix::TensorCores);
    }
    out.push(Fix::Compile);
    if conv_heavy {
        out.push(Fix::ChannelsLast);
    }
    if optimizer {
        out.push(Fix::FusedOptimizer);
    }
    out
}

pub fn memory_bandwidth() -> Vec<Fix> {
    vec![
        Fix::FuseElementwise,
        Fix::Bf16Activations,
        Fix::FusedKernels,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_workers_quotes_the_current_count_and_leaves_two_cores() {
        let s = DataLoaderSettings {
            num_workers: Some(2),
            pin_memory: Some(true),
            persistent_workers: Some(true),
            prefetch_factor: None,
        };
        assert_eq!(
            data_loading(Some(&s), false, Some(16)),
            vec![Fix::MoreWorkers {
                suggested: 14,
                current: Some(2)
            }]
        );
    }

    #[test]
    fn workers_on_all_but_one_core_of_a_saturated_host_get_two_cores_back() {
        let s = DataLoaderSettings {
            num_workers: Some(15),
            ..Default::default()
        };
        let f = data_loading(Some(&s), true, Some(16));
        assert!(f.contains(&Fix::LeaveCoresToLoop {
            workers: 15,
            cores: 16,
            suggested: 14
        }));
        let s = DataLoaderSettings {
            num_workers: Some(14),
            ..Default::default()
        };
        assert!(!data_loading(Some(&s), true, Some(16))
            .iter()
            .any(|f| matches!(f, Fix::LeaveCoresToLoop { .. })));
    }

    #[test]
    fn a_trace_without_an_optimizer_step_is_not_told_to_fuse_the_optimizer() {
        assert!(!kernel_launch(false).contains(&Fix::ForeachOptimizer));
        assert!(kernel_launch(true).contains(&Fix::ForeachOptimizer));
        assert!(!compute_bound(false, false, false).contains(&Fix::FusedOptimizer));
    }

    #[test]
    fn settings_already_made_are_not_suggested() {
        let s = DataLoaderSettings {
            num_workers: Some(8),
            pin_memory: Some(true),
            persistent_workers: Some(true),
            prefetch_factor: Some(4),
        };
        let f = data_loading(Some(&s), false, Some(32));
        assert!(!f.contains(&Fix::PinMemory) && !f.contains(&Fix::PersistentWorkers));
    }
}
