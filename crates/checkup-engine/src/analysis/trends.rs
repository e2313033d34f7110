//! What changes over the whole run, not only the steady window: step time and its parts by
//! tenths of the run, the training processes' host memory beside them, and GPU memory over
//! time (live tensors from the probe's `memory.csv`, or what NVML saw the GPU use).

use checkup_model::{HostSample, MemorySample, NvmlSample, StepRecord};

use crate::analysis::stats::median;
use crate::analysis::step_timing::near_profiler;
use crate::thresholds::Thresholds;

/// One tenth of a run's timed steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Tenth {
    /// The first step of the tenth.
    pub first_step: u64,
    /// The step in its middle, where a chart draws the tenth's median.
    pub middle_step: u64,
    /// Seconds from the run's time zero (the charts') to the tenth's first step.
    pub start_s: f64,
    /// Seconds from the run's time zero to the tenth's last step.
    pub end_s: f64,
    /// Medians over the tenth's steps.
    pub step_ms: f64,
    /// Median wait for the next batch.
    pub data_wait_ms: f64,
    /// The loop's host time between batches (`launch_ms`).
    pub host_ms: f64,
    /// Means over the tenth's steps: a tail of long steps shows here, not in the medians.
    pub mean_step_ms: f64,
    /// Mean wait for the next batch.
    pub mean_data_wait_ms: f64,
    /// Mean host time between batches.
    pub mean_host_ms: f64,
}

/// Step time over the run in tenths; empty when the run has too few timed steps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepTrend {
    /// The run's timed steps in ten parts, in order.
    pub tenths: Vec<Tenth>,
    /// The training processes' host memory (median MiB) over the first and the last tenth.
    pub host_rss_mib: Option<[f64; 2]>,
    /// The same for each tenth, None where no host reading says.
    pub host_rss_tenths: Vec<Option<f64>>,
    /// The median of the run's first steps after warm-up (a hundredth of them, ten at
    /// least), the margin before the profiled steps among them: the pace before work that
    /// grows from the very first step (over everything seen so far) had grown, which the
    /// first tenth's median already is not.
    pub earliest_step_ms: Option<f64>,
}

/// The steps to read a trend from: after warm-up, without the profiled steps (the profiler
/// slows them) and the margin before them. Each with its duration (to the next step's start).
pub(crate) fn timed_steps<'a>(
    rows: &'a [StepRecord],
    warmup: u64,
    profiled: Option<(u64, u64)>,
    th: &Thresholds,
) -> Vec<(&'a StepRecord, f64)> {
    steps_outside(rows, warmup, profiled, th.profiler_margin_steps).collect()
}

/// The steps after warm-up, without the profiled ones and the `margin` steps before them,
/// each with its duration, in order.
fn steps_outside(
    rows: &[StepRecord],
    warmup: u64,
    profiled: Option<(u64, u64)>,
    margin: u64,
) -> impl Iterator<Item = (&StepRecord, f64)> {
    rows.windows(2)
        .skip(warmup as usize)
        .filter(move |w| !near_profiler(profiled, margin, w[0].step))
        .map(|w| (&w[0], (w[1].t_start - w[0].t_start) * 1e3))
        .filter(|(_, ms)| ms.is_finite() && *ms >= 0.0)
}

/// The run's step time in tenths, `t0` being the charts' time zero.
pub fn step_trend(
    rows: &[StepRecord],
    warmup: u64,
    profiled: Option<(u64, u64)>,
    host: &[HostSample],
    t0: f64,
    th: &Thresholds,
) -> StepTrend {
    let steps = timed_steps(rows, warmup, profiled, th);
    if steps.len() < th.trend_min_steps {
        return StepTrend::default();
    }
    let n = steps.len();
    let tenths: Vec<Tenth> = (0..10)
        .map(|k| {
            let part = &steps[k * n / 10..(k + 1) * n / 10];
            let of = |f: &dyn Fn(&(&StepRecord, f64)) -> f64| {
                median(&part.iter().map(f).collect::<Vec<_>>())
            };
            let mean = |f: &dyn Fn(&(&StepRecord, f64)) -> f64| {
                part.iter().map(f).sum::<f64>() / part.len() as f64
            };
            let (first, last) = (part[0], part[part.len() - 1]);
            Tenth {
                first_step: first.0.step,
                middle_step: part[part.len() / 2].0.step,
                start_s: first.0.t_start - t0,
                end_s: last.0.t_start + last.1 / 1e3 - t0,
                step_ms: of(&|s| s.1),
                data_wait_ms: of(&|s| s.0.data_wait_ms),
                host_ms: of(&|s| s.0.launch_ms),
                mean_step_ms: mean(&|s| s.1),
                mean_data_wait_ms: mean(&|s| s.0.data_wait_ms),
                mean_host_ms: mean(&|s| s.0.launch_ms),
            }
        })
        .collect();
    // Host samples come once a second: a short tenth may hold none, and then the reading
    // nearest its middle stands for it.
    let rss_over = |t: &Tenth| {
        let rss: Vec<(f64, f64)> = host
            .iter()
            .filter_map(|h| Some((h.ts - t0, h.proc_tree_rss_mib?)))
            .collect();
        let inside: Vec<f64> = rss
            .iter()
            .filter(|(ts, _)| (t.start_s..=t.end_s).contains(ts))
            .map(|p| p.1)
            .collect();
        if !inside.is_empty() {
            return Some(median(&inside));
        }
        let middle = (t.start_s + t.end_s) / 2.0;
        rss.iter()
            .min_by(|a, b| (a.0 - middle).abs().total_cmp(&(b.0 - middle).abs()))
            .map(|p| p.1)
    };
    let host_rss_tenths: Vec<Option<f64>> = tenths.iter().map(rss_over).collect();
    let host_rss_mib = host_rss_tenths[0]
        .zip(host_rss_tenths[9])
        .map(|(a, b)| [a, b]);
    // The profiler's start can only slow the margin steps, never speed them up, and in a run
    // that grows from its first step they are the pace before the growth: the probe profiles
    // early, so without them the first steps read would come after the profiled window.
    let earliest: Vec<f64> = steps_outside(rows, warmup, profiled, 0)
        .take((n / 100).max(10))
        .map(|s| s.1)
        .collect();
    StepTrend {
        tenths,
        host_rss_mib,
        host_rss_tenths,
        earliest_step_ms: Some(median(&earliest)),
    }
}

/// GPU memory over the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryTrend {
    /// The card's memory (GiB), from NVML.
    pub capacity_gib: Option<f64>,
    /// The most NVML saw in use on the training's GPU (GiB), all processes together.
    pub peak_used_gib: Option<f64>,
    /// That GPU.
    pub gpu: Option<u32>,
    /// Other processes' memory on it (GiB, the most they held together), measured from
    /// each process's memory where the agent recorded it and the training's is known.
    pub others_gib: Option<f64>,
    /// The processes holding that memory.
    pub other_pids: Vec<u32>,
    /// From the probe: the allocator's peaks (GiB) and its retries and OOMs.
    pub peak_allocated_gib: Option<f64>,
    /// The most the caching allocator reserved (GiB).
    pub peak_reserved_gib: Option<f64>,
    /// Times the allocator freed its cache and retried a failed allocation.
    pub alloc_retries: u64,
    /// Out-of-memory errors the probe counted.
    pub ooms: u64,
    /// Memory over the steady part of the run, time-ordered (seconds from the charts' zero,
    /// GiB): live tensors from `memory.csv` when it has enough rows there, else what NVML saw
    /// in use. `live_tensors` says which.
    pub over_time: Vec<(f64, f64)>,
    /// Whether `over_time` is live tensors (true) or NVML's memory in use (false).
    pub live_tensors: bool,
}

/// Bytes in a GiB, for every memory figure the engine gives in GiB.
pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// Rows of `memory.csv` a creep can be read from (fewer and it is read from NVML).
const MIN_MEMORY_ROWS: usize = 5;

/// The training's GPU memory: `from..=to` is the steady part of the run in epoch seconds
/// (its first steady step to its last step's start: rows after it are the exit's).
pub fn memory_trend(
    rows: &[MemorySample],
    nvml: &[NvmlSample],
    span: Option<(f64, f64)>,
    t0: f64,
) -> MemoryTrend {
    // The training's GPU: the one with most memory in use.
    let used = |s: &NvmlSample| s.mem_used_mib.unwrap_or(0.0);
    let gpu = nvml
        .iter()
        .max_by(|a, b| used(a).total_cmp(&used(b)))
        .map(|s| s.gpu);
    let on_gpu = || nvml.iter().filter(move |s| Some(s.gpu) == gpu);
    let capacity_gib = on_gpu()
        .filter_map(|s| s.mem_total_mib)
        .reduce(f64::max)
        .map(|m| m / 1024.0);
    let peak_used_gib = on_gpu()
        .filter_map(|s| s.mem_used_mib)
        .reduce(f64::max)
        .map(|m| m / 1024.0);
    let last = rows.iter().max_by_key(|r| r.step);
    let inside = |t: f64| span.is_none_or(|(a, b)| (a..=b).contains(&t));
    let live: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| inside(r.t))
        .map(|r| (r.t - t0, r.allocated_bytes as f64 / GIB))
        .collect();
    let (over_time, live_tensors) = if live.len() >= MIN_MEMORY_ROWS {
        (live, true)
    } else {
        let seen: Vec<(f64, f64)> = on_gpu()
            .filter(|s| inside(s.ts))
            .filter_map(|s| Some((s.ts - t0, s.mem_used_mib? / 1024.0)))
            .collect();
        (seen, false)
    };
    MemoryTrend {
        gpu,
        others_gib: None,
        other_pids: Vec::new(),
        capacity_gib,
        peak_used_gib,
        peak_allocated_gib: last.map(|r| r.peak_allocated_bytes as f64 / GIB),
        peak_reserved_gib: last.map(|r| r.peak_reserved_bytes as f64 / GIB),
        alloc_retries: last.map_or(0, |r| r.alloc_retries),
        ooms: last.map_or(0, |r| r.ooms),
        over_time,
        live_tensors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(ms: impl Fn(usize) -> f64, n: usize) -> Vec<StepRecord> {
        let mut t = 100.0;
        (0..n)
            .map(|i| {
                let row = StepRecord {
                    step: i as u64,
                    t_start: t,
                    data_wait_ms: 0.1,
                    launch_ms: ms(i) - 0.1,
                    gpu_ms: None,
                    gpu_steps: 1,
                };
                t += ms(i) / 1e3;
                row
            })
            .collect()
    }

    #[test]
    fn tenths_follow_a_step_time_that_grows_and_leave_out_warm_up_and_profiled_steps() {
        let th = Thresholds::default();
        // 5 ms steps growing by 0.01 ms a step; the profiled steps 10..=17 take 50 ms.
        let rows = steps(
            |i| {
                if (10..=17).contains(&i) {
                    50.0
                } else {
                    5.0 + 0.01 * i as f64
                }
            },
            1002,
        );
        let t = step_trend(&rows, 2, Some((10, 17)), &[], 100.0, &th);
        assert_eq!(t.tenths.len(), 10);
        // Steps 2..=18 (the margin before the profiled steps, and them) are left out: the
        // first tenth's median is step 68's 5.68 ms, the last tenth's step 951's 14.51 ms.
        assert_eq!(t.tenths[0].first_step, 19);
        assert!(
            (t.tenths[0].step_ms - 5.68).abs() < 0.01,
            "{:?}",
            t.tenths[0]
        );
        assert!(
            (t.tenths[9].step_ms - 14.51).abs() < 0.01,
            "{:?}",
            t.tenths[9]
        );
        assert!(t.tenths.windows(2).all(|w| w[1].start_s > w[0].start_s));
        // The first steps' pace reads the margin steps too (2..=9, then 19 and 20): the
        // profiler's start only slows them, and they come before the growth has gone far.
        let earliest = t.earliest_step_ms.unwrap();
        assert!((earliest - 5.065).abs() < 1e-6, "{earliest}");
    }

    #[test]
    fn too_few_steps_show_no_trend() {
        let th = Thresholds::default();
        let rows = steps(|_| 5.0, th.trend_min_steps);
        assert!(step_trend(&rows, 0, None, &[], 100.0, &th)
            .tenths
            .is_empty());
    }
}
