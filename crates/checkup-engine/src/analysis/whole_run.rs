//! One rank's whole recorded run as a baseline card keeps it: step time with its stalls
//! counted (the steady window's median leaves them out), the GPU while it had work, and the
//! memory the training held at most.

use checkup_model::{BusyGpu, NvmlSample, StepRecord, WholeRun, WholeRunSteps};

use crate::analysis::stats::{median, percentile};
use crate::analysis::trends::{timed_steps, MemoryTrend};
use crate::thresholds::Thresholds;

/// A rank's whole run: `rows` its `steps.csv`, `nvml` every GPU's readings (its own GPU is
/// picked: `own_gpu` where the job's nodes say which it is), `memory` its memory trend where
/// one was read.
#[allow(clippy::too_many_arguments)]
pub fn whole_run(
    rank: u32,
    own_gpu: Option<u32>,
    rows: &[StepRecord],
    warmup: u64,
    profiled: Option<(u64, u64)>,
    nvml: &[NvmlSample],
    memory: Option<&MemoryTrend>,
    th: &Thresholds,
) -> WholeRun {
    WholeRun {
        rank,
        steps: run_steps(rows, warmup, profiled, th),
        gpu: busy_gpu(own_gpu.unwrap_or(rank), nvml, th),
        memory_peak_gib: memory.and_then(|m| m.peak_reserved_gib.or(m.peak_used_gib)),
        memory_total_gib: memory.and_then(|m| m.capacity_gib),
    }
}

fn run_steps(
    rows: &[StepRecord],
    warmup: u64,
    profiled: Option<(u64, u64)>,
    th: &Thresholds,
) -> Option<WholeRunSteps> {
    let steps = timed_steps(rows, warmup, profiled, th);
    if steps.is_empty() {
        return None;
    }
    let ms: Vec<f64> = steps.iter().map(|s| s.1).collect();
    let total_ms = ms.iter().fold(0.0, |sum, d| sum + d);
    if total_ms <= 0.0 {
        return None;
    }
    let median_ms = median(&ms);
    let median_wait_ms = median(&steps.iter().map(|s| s.0.data_wait_ms).collect::<Vec<_>>());
    // A stall's time beyond the median step, less what it waited for data beyond the median
    // wait: a starved loader's long steps are the input pipeline's time, said as such, not
    // work that stops the run (a checkpoint, an evaluation).
    let stalled: Vec<f64> = steps
        .iter()
        .filter(|(_, d)| *d >= th.stall_factor * median_ms)
        .map(|(r, d)| {
            let waited_beyond = (r.data_wait_ms - median_wait_ms).clamp(0.0, d - median_ms);
            d - median_ms - waited_beyond
        })
        // What is left of a step after its wait for data, within a tenth of a step of the
        // median, is the clock's noise, not a stall.
        .filter(|excess| *excess > 0.1 * median_ms)
        .collect();
    // Folded from +0: an empty float sum is -0, which a card would print as "-0.0000".
    let lost_ms = stalled.iter().fold(0.0, |sum, excess| sum + excess);
    // A step's data wait is part of that step's time; one longer than the step (a clock
    // read before the step's start) counts as the whole step.
    let waited_ms = steps
        .iter()
        .fold(0.0, |sum, (r, d)| sum + r.data_wait_ms.clamp(0.0, *d));
    Some(WholeRunSteps {
        steps: ms.len() as u64,
        seconds: total_ms / 1e3,
        median_step_ms: median_ms,
        p95_step_ms: percentile(&ms, 0.95),
        mean_step_ms: total_ms / ms.len() as f64,
        stall_share: lost_ms / total_ms,
        stalls: stalled.len() as u64,
        data_wait_share: waited_ms / total_ms,
    })
}

/// The GPU `gpu` (the rank's: rank n runs on GPU n unless its node says otherwise; a one-GPU
/// recording's only GPU when `gpu` was not recorded) while busy.
fn busy_gpu(gpu: u32, nvml: &[NvmlSample], th: &Thresholds) -> Option<BusyGpu> {
    let gpu = if nvml.iter().any(|s| s.gpu == gpu) {
        gpu
    } else {
        let first = nvml.first()?.gpu;
        nvml.iter().all(|s| s.gpu == first).then_some(first)?
    };
    let all: Vec<&NvmlSample> = nvml.iter().filter(|s| s.gpu == gpu).collect();
    let busy: Vec<&NvmlSample> = all
        .iter()
        .copied()
        .filter(|s| s.util_gpu.is_some_and(|u| u >= th.util_busy_pct))
        .collect();
    let median_of = |f: fn(&NvmlSample) -> Option<f64>| {
        let v: Vec<f64> = busy.iter().filter_map(|s| f(s)).collect();
        (!v.is_empty()).then(|| median(&v))
    };
    let max_of =
        |f: fn(&NvmlSample) -> Option<f64>| all.iter().filter_map(|s| f(s)).reduce(f64::max);
    let throttled: Vec<_> = busy
        .iter()
        .filter_map(|s| s.clock_event_reasons)
        .filter(|r| r.is_throttling())
        .collect();
    let mut reasons: Vec<String> = Vec::new();
    for r in &throttled {
        let bits =
            checkup_model::ClockEventReasons(r.0 & checkup_model::ClockEventReasons::THROTTLING);
        for name in bits.names() {
            if !reasons.iter().any(|n| n == name) {
                reasons.push(name.to_owned());
            }
        }
    }
    Some(BusyGpu {
        gpu,
        busy_samples: busy.len() as u64,
        samples: all.len() as u64,
        power_w: median_of(|s| s.power_w),
        sm_clock_mhz: median_of(|s| s.sm_clock_mhz),
        power_limit_w: max_of(|s| s.power_limit_w),
        sm_clock_max_mhz: max_of(|s| s.sm_clock_max_mhz),
        temp_max_c: max_of(|s| s.temp_c),
        throttled_share: if busy.is_empty() {
            0.0
        } else {
            throttled.len() as f64 / busy.len() as f64
        },
        throttle_reasons: reasons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkup_model::ClockEventReasons;

    /// `n` steps of `ms(i)` milliseconds each, 1 ms of it waiting for data.
    fn steps(n: usize, ms: impl Fn(usize) -> f64) -> Vec<StepRecord> {
        let mut t = 100.0;
        (0..n)
            .map(|i| {
                let row = StepRecord {
                    step: i as u64,
                    t_start: t,
                    data_wait_ms: 1.0,
                    launch_ms: 1.0,
                    gpu_ms: None,
                    gpu_steps: 1,
                };
                t += ms(i) / 1e3;
                row
            })
            .collect()
    }

    #[test]
    fn stalls_count_beyond_the_median_in_the_whole_runs_time() {
        let th = Thresholds::default();
        // 10 ms steps, every 10th takes 40 ms (a checkpoint): 9 × 10 + 40 = 130 ms per
        // ten steps, 30 of them lost.
        let rows = steps(201, |i| if i % 10 == 9 { 40.0 } else { 10.0 });
        let s = run_steps(&rows, 0, None, &th).unwrap();
        assert_eq!(s.steps, 200);
        assert!(
            (s.median_step_ms - 10.0).abs() < 1e-6,
            "{}",
            s.median_step_ms
        );
        assert!((s.mean_step_ms - 13.0).abs() < 1e-6, "{}", s.mean_step_ms);
        assert!(
            (s.stall_share - 30.0 / 130.0).abs() < 1e-9,
            "{}",
            s.stall_share
        );
        assert_eq!(s.stalls, 20);
        assert!((s.p95_step_ms - 40.0).abs() < 1e-6, "{}", s.p95_step_ms);
        assert!((s.data_wait_share - 10.0 / 130.0).abs() < 1e-6);
    }

    #[test]
    fn a_long_step_spent_waiting_for_data_is_the_input_pipelines_not_a_stall() {
        let th = Thresholds::default();
        // Every 10th step waits 30 ms for its batch (1 ms the others): its 30 ms beyond the
        // median are the loader's; a checkpoint step of the same length would be a stall.
        let mut rows = steps(101, |i| if i % 10 == 9 { 40.0 } else { 10.0 });
        for r in rows.iter_mut().filter(|r| r.step % 10 == 9) {
            r.data_wait_ms = 31.0;
        }
        let s = run_steps(&rows, 0, None, &th).unwrap();
        assert_eq!((s.stalls, s.stall_share), (0, 0.0));
        assert!((s.data_wait_share - (90.0 + 310.0) / 1300.0).abs() < 1e-6);
    }

    #[test]
    fn a_step_just_under_the_stall_factor_is_no_stall() {
        let th = Thresholds::default();
        let slow = th.stall_factor * 10.0 - 0.01;
        let rows = steps(101, |i| if i % 10 == 9 { slow } else { 10.0 });
        let s = run_steps(&rows, 0, None, &th).unwrap();
        assert_eq!((s.stalls, s.stall_share), (0, 0.0));
    }

    #[test]
    fn warm_up_and_profiled_steps_are_left_out() {
        let th = Thresholds::default();
        let rows = steps(120, |i| {
            if i < 5 || (50..=57).contains(&i) {
                500.0
            } else {
                10.0
            }
        });
        let s = run_steps(&rows, 5, Some((50, 57)), &th).unwrap();
        assert!(
            (s.median_step_ms - 10.0).abs() < 1e-6,
            "{}",
            s.median_step_ms
        );
        assert_eq!(s.stalls, 0, "{s:?}");
    }

    fn reading(gpu: u32, util: f64, power: f64, reasons: u64) -> NvmlSample {
        NvmlSample {
            gpu,
            util_gpu: Some(util),
            power_w: Some(power),
            power_limit_w: Some(700.0),
            sm_clock_mhz: Some(if reasons != 0 { 1500.0 } else { 1980.0 }),
            sm_clock_max_mhz: Some(1980.0),
            temp_c: Some(40.0 + power / 20.0),
            clock_event_reasons: Some(ClockEventReasons(reasons)),
            ..Default::default()
        }
    }

    #[test]
    fn the_gpu_while_busy_leaves_idle_readings_and_other_gpus_out() {
        let th = Thresholds::default();
        let mut nvml = vec![reading(0, 0.0, 90.0, ClockEventReasons::GPU_IDLE); 4];
        nvml.extend(vec![reading(0, 100.0, 650.0, 0); 3]);
        nvml.push(reading(0, 100.0, 690.0, ClockEventReasons::SW_POWER_CAP));
        nvml.push(reading(1, 100.0, 300.0, ClockEventReasons::HW_THERMAL));
        let g = busy_gpu(0, &nvml, &th).unwrap();
        assert_eq!((g.gpu, g.busy_samples, g.samples), (0, 4, 8));
        assert_eq!(g.power_w, Some(650.0));
        assert_eq!(g.sm_clock_mhz, Some(1980.0));
        assert_eq!(g.throttled_share, 0.25);
        assert_eq!(g.throttle_reasons, vec!["software power cap"]);
        assert_eq!(g.temp_max_c, Some(40.0 + 690.0 / 20.0));
    }

    #[test]
    fn a_rank_without_its_own_gpu_reads_the_only_gpu_recorded_or_none() {
        let th = Thresholds::default();
        let one = vec![reading(3, 100.0, 500.0, 0)];
        assert_eq!(busy_gpu(0, &one, &th).unwrap().gpu, 3);
        let two = vec![reading(2, 100.0, 500.0, 0), reading(3, 100.0, 500.0, 0)];
        assert!(busy_gpu(0, &two, &th).is_none());
    }
}
