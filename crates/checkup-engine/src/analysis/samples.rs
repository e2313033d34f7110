//! Sampled series over the steady window: means, throttling and the curve's shape.

use checkup_model::{ClockEventReasons, HostStats, HostWhileGpuIdle, SampleSet, SampleStats};

use super::stats::{mean, median};
use crate::thresholds::Thresholds;

/// Per-GPU statistics of the samples inside `[start, end]` (epoch seconds), for GPUs that did
/// any work in it.
/// GPU memory in use from which a GPU has a process's CUDA context on it: a context alone
/// takes about 500 MiB; an unused GPU shows a few MiB.
const IN_USE_MIB: f64 = 256.0;

/// Each GPU's statistics over `window`: the GPUs that worked, and those a process held.
pub fn analyze_gpu_samples(
    samples: &SampleSet,
    window: Option<(f64, f64)>,
    th: &Thresholds,
) -> Vec<SampleStats> {
    let inside = |ts: f64| window.is_none_or(|(a, b)| ts >= a && ts <= b);
    let mut gpus: Vec<u32> = samples
        .nvml
        .iter()
        .map(|s| s.gpu)
        .chain(samples.gpm.iter().map(|s| s.gpu))
        .collect();
    gpus.sort_unstable();
    gpus.dedup();
    let mut out = Vec::new();
    for gpu in gpus {
        let nvml: Vec<_> = samples
            .nvml
            .iter()
            .filter(|s| s.gpu == gpu && inside(s.ts))
            .collect();
        let gpm: Vec<_> = samples
            .gpm
            .iter()
            .filter(|s| s.gpu == gpu && inside(s.ts))
            .collect();
        let col = |f: &dyn Fn(&checkup_model::NvmlSample) -> Option<f64>| -> Vec<f64> {
            nvml.iter().filter_map(|s| f(s)).collect()
        };
        let gcol = |f: &dyn Fn(&checkup_model::GpmSample) -> Option<f64>| {
            mean(&gpm.iter().filter_map(|s| f(s)).collect::<Vec<_>>())
        };
        let util = col(&|s| s.util_gpu);
        let busy: Vec<_> = nvml
            .iter()
            .filter(|s| s.util_gpu.unwrap_or(0.0) > 0.0)
            .collect();
        let throttled = busy
            .iter()
            .filter(|s| {
                s.clock_event_reasons
                    .is_some_and(ClockEventReasons::is_throttling)
            })
            .count();
        let with_reasons = busy
            .iter()
            .filter(|s| s.clock_event_reasons.is_some())
            .count();
        let mut reasons: Vec<String> = busy
            .iter()
            .filter_map(|s| s.clock_event_reasons)
            .filter(|r| r.is_throttling())
            .flat_map(|r| r.names())
            .filter(|n| *n != "GPU idle")
            .map(str::to_owned)
            .collect();
        reasons.sort();
        reasons.dedup();
        let sm_active = gcol(&|s| s.sm_util);
        let did_work = mean(&util).unwrap_or(0.0) >= 1.0 || sm_active.unwrap_or(0.0) >= 1.0;
        // A GPU that hardly worked is still the training's when a process held a CUDA
        // context on it (hundreds of MiB that an unused GPU does not have): a training
        // starved on the host, whose idle GPU is the finding, not a GPU to leave out.
        let held = nvml
            .iter()
            .filter_map(|s| s.mem_used_mib)
            .any(|m| m >= IN_USE_MIB);
        if !did_work && !held {
            continue;
        }
        let (drops, drop_share, period) = curve_shape(
            &nvml.iter().map(|s| (s.ts, s.util_gpu)).collect::<Vec<_>>(),
            th,
        );
        out.push(SampleStats {
            gpu,
            nvml_samples: nvml.len() as u64,
            util_gpu_mean: mean(&util),
            power_w_mean: mean(&col(&|s| s.power_w)),
            power_limit_w: Some(median(&col(&|s| s.power_limit_w))).filter(|v| *v > 0.0),
            sm_clock_mean_mhz: mean(
                &busy
                    .iter()
                    .filter_map(|s| s.sm_clock_mhz)
                    .collect::<Vec<_>>(),
            ),
            sm_clock_max_mhz: col(&|s| s.sm_clock_max_mhz).into_iter().reduce(f64::max),
            // Of the busy samples that carry a reading (the agent reads reasons at 2 Hz).
            throttled_share: if with_reasons == 0 {
                0.0
            } else {
                throttled as f64 / with_reasons as f64
            },
            throttle_reasons: reasons,
            temp_c_max: col(&|s| s.temp_c).into_iter().reduce(f64::max),
            gpm_samples: gpm.len() as u64,
            sm_active_mean: sm_active,
            sm_occupancy_mean: gcol(&|s| s.sm_occupancy),
            tensor_active_mean: gcol(&|s| s.any_tensor_util),
            dram_bw_mean: gcol(&|s| s.dram_bw_util),
            nvlink_tx_mibs_mean: gcol(&|s| s.nvlink_tx_mibs),
            util_drop_share: drop_share,
            sawtooth: drops >= th.min_stalls
                && drop_share >= th.sawtooth_min_drop_share
                && drop_share <= 1.0 - th.sawtooth_min_drop_share,
            dip_period_s: period,
        });
    }
    out
}

/// Drops of util from busy to near zero: their count, the share of samples near zero, and
/// the median spacing of drops when regular.
fn curve_shape(series: &[(f64, Option<f64>)], th: &Thresholds) -> (usize, f64, Option<f64>) {
    let vals: Vec<(f64, f64)> = series
        .iter()
        .filter_map(|&(t, u)| u.map(|u| (t, u)))
        .collect();
    if vals.is_empty() {
        return (0, 0.0, None);
    }
    let low = vals.iter().filter(|(_, u)| *u <= th.util_low_pct).count() as f64 / vals.len() as f64;
    let mut drop_starts = Vec::new();
    let mut was_busy = false;
    for &(t, u) in &vals {
        if u >= th.util_busy_pct {
            was_busy = true;
        } else if u <= th.util_low_pct && was_busy {
            drop_starts.push(t);
            was_busy = false;
        }
    }
    let spacing: Vec<f64> = drop_starts.windows(2).map(|w| w[1] - w[0]).collect();
    let period = mean(&spacing).filter(|m| {
        let sd =
            (spacing.iter().map(|s| (s - m).powi(2)).sum::<f64>() / spacing.len() as f64).sqrt();
        spacing.len() + 1 >= th.min_stalls && sd / m <= th.stall_period_cv
    });
    (drop_starts.len(), low, period.map(|_| median(&spacing)))
}

/// The host samples during which the GPUs' mean util, over the host sample's interval,
/// was at or below `util_low_pct`, and what the training's processes did then. `host` is
/// the steady window's: without step timings that runs from the first GPU work to the last
/// (set-up and the end left out, when an idle GPU says nothing about the training loop).
fn host_while_gpu_idle(
    samples: &SampleSet,
    host: &[&checkup_model::HostSample],
    th: &Thresholds,
) -> Option<HostWhileGpuIdle> {
    let mut util: Vec<(f64, f64)> = samples
        .nvml
        .iter()
        .filter_map(|s| Some((s.ts, s.util_gpu?)))
        .filter(|(ts, _)| ts.is_finite())
        .collect();
    if util.is_empty() || host.len() < 2 {
        return None;
    }
    util.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut of_samples = 0u64;
    let mut idle: Vec<&checkup_model::HostSample> = Vec::new();
    let mut seconds = 0.0;
    for w in host.windows(2) {
        let (a, b) = (w[0].ts, w[1].ts);
        // Samples out of order (or repeated, or NaN) in a hand-edited file span no interval.
        if b.partial_cmp(&a) != Some(std::cmp::Ordering::Greater) {
            continue;
        }
        let lo = util.partition_point(|u| u.0 <= a);
        let hi = util.partition_point(|u| u.0 <= b);
        let Some(u) = mean(&util[lo..hi].iter().map(|u| u.1).collect::<Vec<_>>()) else {
            continue;
        };
        of_samples += 1;
        if u <= th.util_low_pct {
            idle.push(w[1]);
            seconds += b - a;
        }
    }
    if of_samples == 0 {
        return None;
    }
    let col = |f: &dyn Fn(&checkup_model::HostSample) -> Option<f64>| {
        idle.iter().filter_map(|s| f(s)).collect::<Vec<_>>()
    };
    Some(HostWhileGpuIdle {
        samples: idle.len() as u64,
        seconds,
        of_samples,
        busy_children_mean: mean(&col(&|s| s.proc_busy_children.map(f64::from))),
        main_cpu_mean: mean(&col(&|s| s.proc_main_cpu_pct)),
        workers_cpu_mean: mean(&col(&|s| {
            Some((s.proc_tree_cpu_pct? - s.proc_main_cpu_pct?).max(0.0))
        })),
    })
}

/// Host CPU statistics over `window` (the whole recording when None); None without host samples.
pub fn analyze_host_samples(
    samples: &SampleSet,
    window: Option<(f64, f64)>,
    th: &Thresholds,
) -> Option<HostStats> {
    let inside = |ts: f64| window.is_none_or(|(a, b)| ts >= a && ts <= b);
    let host: Vec<_> = samples.host.iter().filter(|s| inside(s.ts)).collect();
    if host.is_empty() {
        return None;
    }
    let col = |f: &dyn Fn(&checkup_model::HostSample) -> Option<f64>| {
        host.iter().filter_map(|s| f(s)).collect::<Vec<_>>()
    };
    Some(HostStats {
        samples: host.len() as u64,
        cores: host.iter().map(|s| s.per_core_pct.len()).max().unwrap_or(0) as u32,
        cpu_total_mean: mean(&col(&|s| s.cpu_total_pct)),
        busiest_core_mean: mean(&col(&|s| s.per_core_pct.iter().copied().reduce(f64::max))),
        proc_tree_cpu_mean: mean(&col(&|s| s.proc_tree_cpu_pct)),
        disk_write_mbs_max: col(&|s| s.disk_write_mbs).into_iter().reduce(f64::max),
        while_gpu_idle: host_while_gpu_idle(samples, &host, th),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkup_model::{HostSample, NvmlSample};

    #[test]
    fn host_seconds_are_read_against_the_gpu_util_of_the_same_interval() {
        // 10 Hz GPU readings: busy for t in (0, 1], idle in (1, 3], busy in (3, 6]; host
        // samples at 1 Hz with two workers flat out while idle, none while busy.
        let nvml = (1..=60)
            .map(|i| NvmlSample {
                ts: i as f64 / 10.0,
                util_gpu: Some(if (11..=30).contains(&i) { 0.0 } else { 100.0 }),
                ..Default::default()
            })
            .collect();
        let idle = |t: i32| t == 2 || t == 3;
        let host = (0..=6)
            .map(|t| HostSample {
                ts: t as f64,
                proc_busy_children: Some(if idle(t) { 2 } else { 0 }),
                proc_main_cpu_pct: Some(if idle(t) { 20.0 } else { 100.0 }),
                proc_tree_cpu_pct: Some(if idle(t) { 215.0 } else { 100.0 }),
                ..Default::default()
            })
            .collect();
        let set = SampleSet {
            nvml,
            gpm: Vec::new(),
            host,
        };
        let h = analyze_host_samples(&set, None, &Thresholds::default()).unwrap();
        let w = h.while_gpu_idle.unwrap();
        assert_eq!((w.samples, w.of_samples), (2, 6));
        assert_eq!(w.seconds, 2.0);
        assert_eq!(w.busy_children_mean, Some(2.0));
        assert_eq!(w.main_cpu_mean, Some(20.0));
        assert_eq!(w.workers_cpu_mean, Some(195.0));
    }

    #[test]
    fn host_samples_from_before_the_new_columns_read_as_not_recorded() {
        let set = SampleSet {
            nvml: [(0.5, 100.0), (1.2, 0.0), (1.8, 0.0), (2.5, 100.0)]
                .map(|(ts, u)| NvmlSample {
                    ts,
                    util_gpu: Some(u),
                    ..Default::default()
                })
                .to_vec(),
            gpm: Vec::new(),
            host: [0.0, 1.0, 2.0]
                .map(|ts| HostSample {
                    ts,
                    ..Default::default()
                })
                .to_vec(),
        };
        let w = analyze_host_samples(&set, None, &Thresholds::default())
            .unwrap()
            .while_gpu_idle
            .unwrap();
        assert_eq!(w.busy_children_mean, None);
    }
}
