//! Step timings of the whole run from `steps.csv`: warm-up, steady step time, data wait,
//! and stalls with their period. These steps are mostly unprofiled, so they are the honest
//! clock the profiled window is checked against.

use checkup_model::{Stall, StepRecord, StepTiming};

use super::stats::{mean, median, percentile};
use crate::diagnosis::thresholds::Thresholds;

pub fn analyze_steps(
    rank: u32,
    steps: &[StepRecord],
    profiled: Option<(u64, u64)>,
    th: &Thresholds,
) -> StepTiming {
    // A step lasts until the next one starts; the last step has no end and is left out.
    let durations: Vec<(u64, f64)> = steps
        .windows(2)
        .map(|w| (w[0].step, (w[1].t_start - w[0].t_start) * 1e3))
        .collect();
    let warmup = warmup_len(&durations, th);
    let near_profiler = |step: u64| {
        // Step numbers come from the input: saturate rather than overflow.
        profiled.is_some_and(|(a, b)| {
            step.saturating_add(th.profiler_margin_steps) >= a && step <= b.saturating_add(1)
        })
    };
    let steady: Vec<(u64, f64)> = durations[warmup..].to_vec();
    let clean: Vec<f64> = steady
        .iter()
        .filter(|(s, _)| !near_profiler(*s))
        .map(|(_, d)| *d)
        .collect();
    let median_step = median(&clean);
    let gpu_ms: Vec<f64> = steps[warmup..].iter().filter_map(|s| s.gpu_ms).collect();
    let median_gpu = (!gpu_ms.is_empty()).then(|| median(&gpu_ms));
    // When the host runs ahead of the GPU (most steps shorter than their GPU work), a long
    // step is the host waiting for room in the launch queue, not a stall of the GPU.
    let host_runs_ahead = median_gpu.is_some_and(|g| median_step < th.host_ahead_ratio * g);

    let mut stalls: Vec<Stall> = Vec::new();
    if !host_runs_ahead && median_step > 0.0 {
        let by_step: std::collections::HashMap<u64, &StepRecord> =
            steps.iter().map(|s| (s.step, s)).collect();
        for &(step, d) in &steady {
            let excess = d - median_step;
            // A slow step spent waiting for its batch is the input pipeline (workers taking
            // turns), which the data-loading finding accounts for, not a stall.
            let waited = by_step.get(&step).map_or(0.0, |s| s.data_wait_ms);
            if d > th.stall_factor * median_step && !near_profiler(step) && waited < 0.5 * excess {
                let t_start = by_step.get(&step).map_or(0.0, |s| s.t_start);
                stalls.push(Stall {
                    step,
                    t_start,
                    duration_ms: d,
                    excess_ms: excess,
                });
            }
        }
    }
    let period = stall_period(&stalls, th);
    // Isolated slow steps are kept in the mean (they are real time); a periodic pattern too.
    let steady_clean: Vec<&(u64, f64)> =
        steady.iter().filter(|(s, _)| !near_profiler(*s)).collect();
    let total_ms: f64 = steady_clean.iter().map(|(_, d)| d).sum();
    let steady_set: Vec<&StepRecord> = steps[warmup..steps.len() - 1]
        .iter()
        .filter(|s| !near_profiler(s.step))
        .collect();
    let data_wait: Vec<f64> = steady_set.iter().map(|s| s.data_wait_ms).collect();
    let launch: Vec<f64> = steady_set.iter().map(|s| s.launch_ms).collect();
    StepTiming {
        rank,
        total_steps: steps.len() as u64,
        steady_steps: steady_clean.len() as u64,
        warmup_steps: warmup as u64,
        mean_step_ms: mean(&steady_clean.iter().map(|(_, d)| *d).collect::<Vec<_>>())
            .unwrap_or(0.0),
        median_step_ms: median_step,
        p90_step_ms: percentile(&clean, 0.9),
        median_data_wait_ms: median(&data_wait),
        data_wait_share: if total_ms > 0.0 {
            data_wait.iter().sum::<f64>() / total_ms
        } else {
            0.0
        },
        median_launch_ms: median(&launch),
        median_gpu_ms: median_gpu,
        stalls,
        stall_period_steps: period,
        profiled_steps: profiled,
    }
}

/// Step 0 always holds first-call work; after it, leading steps slower than
/// `warmup_step_factor` × the median of the rest are warm-up too.
fn warmup_len(durations: &[(u64, f64)], th: &Thresholds) -> usize {
    if durations.len() < 3 {
        return 0;
    }
    let mut n = 1;
    let limit = durations.len() / 4;
    while n < limit {
        let rest: Vec<f64> = durations[n + 1..].iter().map(|(_, d)| *d).collect();
        if durations[n].1 > th.warmup_step_factor * median(&rest) {
            n += 1;
        } else {
            break;
        }
    }
    n
}

/// The stall period in steps, when at least `min_stalls` stalls come at regular spacing.
fn stall_period(stalls: &[Stall], th: &Thresholds) -> Option<f64> {
    if stalls.len() < th.min_stalls {
        return None;
    }
    let spacing: Vec<f64> = stalls
        .windows(2)
        .map(|w| (w[1].step - w[0].step) as f64)
        .collect();
    let m = mean(&spacing)?;
    let var = spacing.iter().map(|s| (s - m).powi(2)).sum::<f64>() / spacing.len() as f64;
    (m > 0.0 && var.sqrt() / m <= th.stall_period_cv).then_some(median(&spacing))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(durations_ms: &[f64]) -> Vec<StepRecord> {
        let mut t = 1000.0;
        let mut out = Vec::new();
        for (i, d) in durations_ms.iter().enumerate() {
            out.push(StepRecord {
                step: i as u64,
                t_start: t,
                data_wait_ms: 1.0,
                launch_ms: 5.0,
                gpu_ms: Some(d * 0.9),
            });
            t += d / 1e3;
        }
        out
    }

    #[test]
    fn a_600ms_stall_every_25_steps_is_found_with_its_period() {
        let mut d = vec![5000.0];
        for i in 1..200 {
            d.push(if i % 25 == 0 { 640.0 } else { 40.0 });
        }
        let t = analyze_steps(0, &run(&d), None, &Thresholds::default());
        assert_eq!(t.warmup_steps, 1);
        assert_eq!(t.stalls.len(), 7);
        assert_eq!(t.stall_period_steps, Some(25.0));
        assert!((t.stalls[0].excess_ms - 600.0).abs() < 1e-6);
        assert!((t.median_step_ms - 40.0).abs() < 1e-6);
    }

    #[test]
    fn slow_steps_spent_waiting_for_data_are_not_stalls() {
        let mut d = vec![5000.0];
        for i in 1..100 {
            d.push(if i % 2 == 0 { 900.0 } else { 60.0 });
        }
        let mut rows = run(&d);
        for r in rows.iter_mut().filter(|r| r.step % 2 == 0 && r.step > 0) {
            r.data_wait_ms = 830.0;
        }
        let t = analyze_steps(0, &rows, None, &Thresholds::default());
        assert!(t.stalls.is_empty(), "{:?}", t.stalls);
    }

    #[test]
    fn isolated_slow_steps_make_no_period() {
        let mut d = vec![40.0; 100];
        d[30] = 400.0;
        d[77] = 400.0;
        let t = analyze_steps(0, &run(&d), None, &Thresholds::default());
        assert_eq!(t.stalls.len(), 2);
        assert_eq!(t.stall_period_steps, None);
    }
}
