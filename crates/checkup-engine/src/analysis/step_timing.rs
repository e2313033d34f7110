//! Step timings of the whole run from `steps.csv`: warm-up, steady step time, data wait,
//! and stalls with their period. These steps are mostly unprofiled, so they are the honest
//! clock the profiled window is checked against.

use checkup_model::{EpochStartIdle, Stall, StepRecord, StepTiming};

use super::stats::{mean, median, percentile};
use crate::thresholds::Thresholds;

/// A checkpoint written on another thread: the step whose save began it, and when it ran
/// (epoch seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackgroundWrite {
    /// The step whose save began it.
    pub step: u64,
    /// When the write began, epoch seconds.
    pub start_s: f64,
    /// When it ended.
    pub end_s: f64,
}

impl BackgroundWrite {
    /// Whether a later `step`, begun at `t_start`, came while this write still ran: the
    /// writer holds the interpreter as it writes, and such a step may wait for it.
    pub fn was_running_at(&self, step: u64, t_start: f64) -> bool {
        self.step < step && self.start_s <= t_start && t_start < self.end_s
    }

    /// Whether a slow `step`, begun at `t_start`, waited for a write still running rather
    /// than for a save of its own.
    pub fn held(writes: &[Self], step: u64, t_start: f64) -> bool {
        !writes.iter().any(|w| w.step == step)
            && writes.iter().any(|w| w.was_running_at(step, t_start))
    }

    /// The probe's background checkpoint writes among `markers`.
    pub fn from_markers(markers: &[checkup_model::RunMarker]) -> Vec<Self> {
        markers
            .iter()
            .filter(|m| m.is_background_write())
            .filter_map(|m| {
                Some(Self {
                    step: m.step,
                    start_s: m.t,
                    end_s: m.t + m.duration_ms? / 1e3,
                })
            })
            .collect()
    }
}

/// One rank's step timing: warm-up, steady steps outside the profiled ones, data wait, stalls and what recurs.
pub fn analyze_steps(
    rank: u32,
    steps: &[StepRecord],
    profiled: Option<(u64, u64)>,
    epoch_starts: &[u64],
    background_writes: &[BackgroundWrite],
    timed_work: &[TimedWork],
    th: &Thresholds,
) -> StepTiming {
    // A step lasts until the next one starts; the last step has no end and is left out.
    let durations: Vec<(u64, f64)> = steps
        .windows(2)
        .map(|w| (w[0].step, (w[1].t_start - w[0].t_start) * 1e3))
        .collect();
    let warmup = warmup_len(&durations, th);
    let profiler_slowed = |step: u64| near_profiler(profiled, th.profiler_margin_steps, step);
    let steady: Vec<(u64, f64)> = durations[warmup..].to_vec();
    let clean: Vec<f64> = steady
        .iter()
        .filter(|(s, _)| !profiler_slowed(*s))
        .map(|(_, d)| *d)
        .collect();
    let median_step = median(&clean);
    // Per step: a span's GPU time over its steps.
    let gpu_ms: Vec<f64> = steps[warmup..]
        .iter()
        .filter_map(|s| Some(s.gpu_ms? / f64::from(s.gpu_steps.max(1))))
        .collect();
    let median_gpu = (!gpu_ms.is_empty()).then(|| median(&gpu_ms));
    // When the host runs ahead of the GPU (most steps shorter than their GPU work), a long
    // step is the host waiting for room in the launch queue, not a stall of the GPU.
    let host_runs_ahead = median_gpu.is_some_and(|g| median_step < th.host_ahead_ratio * g);

    let mut stalls: Vec<Stall> = Vec::new();
    if median_step > 0.0 {
        let by_step: std::collections::HashMap<u64, &StepRecord> =
            steps.iter().map(|s| (s.step, s)).collect();
        // The last slow step seen, for slow steps in a row.
        let mut last_slow: Option<u64> = None;
        for &(step, d) in &steady {
            let excess = d - median_step;
            // Back-pressure cannot make a step slow by periodic work the probe timed in it
            // (an evaluation pass that keeps the GPU busy): that step is a stall all the same.
            if host_runs_ahead
                && !timed_work
                    .iter()
                    .any(|w| w.step == step && w.duration_ms >= 0.5 * excess)
            {
                continue;
            }
            // A slow step spent waiting for its batch is the input pipeline (workers taking
            // turns), which the data-loading finding accounts for, not a stall.
            let waited = by_step.get(&step).map_or(0.0, |s| s.data_wait_ms);
            if d > th.stall_factor * median_step && !profiler_slowed(step) && waited < 0.5 * excess
            {
                let t_start = by_step.get(&step).map_or(0.0, |s| s.t_start);
                let in_a_row = last_slow.is_some_and(|s| s + 1 == step);
                last_slow = Some(step);
                match stalls.last_mut() {
                    // Slow steps in a row are one interruption of the loop: one stall; so
                    // is a slow step while the write its save began holds the interpreter.
                    Some(last)
                        if in_a_row || held_by_write(step, t_start, last, background_writes) =>
                    {
                        last.steps += 1;
                        last.duration_ms += d;
                        last.excess_ms += excess;
                    }
                    _ => stalls.push(Stall {
                        step,
                        steps: 1,
                        t_start,
                        duration_ms: d,
                        excess_ms: excess,
                    }),
                }
            }
        }
    }
    let period = stall_period(&stalls, th);
    // Isolated slow steps are kept in the mean (they are real time); a periodic pattern too.
    let steady_clean: Vec<&(u64, f64)> = steady
        .iter()
        .filter(|(s, _)| !profiler_slowed(*s))
        .collect();
    let total_ms: f64 = steady_clean.iter().map(|(_, d)| d).sum();
    let steady_set: Vec<&StepRecord> = steps[warmup..steps.len() - 1]
        .iter()
        .filter(|s| !profiler_slowed(s.step))
        .collect();
    let data_wait: Vec<f64> = steady_set.iter().map(|s| s.data_wait_ms).collect();
    let launch: Vec<f64> = steady_set.iter().map(|s| s.launch_ms).collect();
    let idle_per_span = data_idle_per_span(&steady_set);
    let data_idle_ms = idle_per_span
        .as_ref()
        .map(|v| v.iter().map(|(_, _, ms)| ms).sum::<f64>());
    let epoch_start_idle = idle_per_span
        .as_ref()
        .and_then(|v| epoch_start_idle(v, epoch_starts));
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
        epoch_start_idle,
        data_idle_share: data_idle_ms
            .filter(|_| total_ms > 0.0)
            .map(|ms| ms / total_ms),
        median_launch_ms: median(&launch),
        median_gpu_ms: median_gpu,
        stalls,
        stall_period_steps: period,
        profiled_steps: profiled,
    }
}

/// Consecutive steps timed together on the GPU's clock: from the end event of the span
/// before to that of its last step (`gpu_ms`, idle time included).
struct GpuSpan {
    first: u64,
    last: u64,
    steps: u32,
    gpu_ms: f64,
    data_wait_ms: f64,
}

/// The spans whose steps all lie in `steps` (in step order). A span reaching into steps
/// left out (warm-up, the profiler's) is left out with them.
fn gpu_spans(steps: &[&StepRecord]) -> Vec<GpuSpan> {
    steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let gpu_ms = s.gpu_ms?;
            let n = s.gpu_steps.max(1) as usize;
            let covered = &steps[(i + 1).checked_sub(n)?..=i];
            let consecutive = covered[0].step.checked_add(n as u64 - 1) == Some(s.step);
            consecutive.then(|| GpuSpan {
                first: covered[0].step,
                last: s.step,
                steps: n as u32,
                gpu_ms,
                data_wait_ms: covered.iter().map(|c| c.data_wait_ms.max(0.0)).sum(),
            })
        })
        .collect()
}

/// The GPU's idle time waiting for data, at least, span by span over `steps` (a span is
/// one step where steps are long; the probe times short steps in spans of ~20 ms).
/// The GPU's fastest spans per step (the 10th percentile, so that a short last batch of an
/// epoch does not count) bound its work per step from above. A span's GPU time beyond that
/// work for its steps was idle, and the data's doing for as long as the host waited for
/// batches in it. A host that ran ahead kept the GPU busy through its wait: that span's
/// GPU time is not longer. Each span as (first step, last step, idle ms); None without
/// GPU times.
fn data_idle_per_span(steps: &[&StepRecord]) -> Option<Vec<(u64, u64, f64)>> {
    let spans = gpu_spans(steps);
    if spans.is_empty() {
        return None;
    }
    let per_step: Vec<f64> = spans
        .iter()
        .map(|s| s.gpu_ms / f64::from(s.steps))
        .collect();
    let work = percentile(&per_step, 0.1);
    Some(
        spans
            .iter()
            .map(|s| {
                let idle = (s.gpu_ms - work * f64::from(s.steps)).clamp(0.0, s.data_wait_ms);
                (s.first, s.last, idle)
            })
            .collect(),
    )
}

/// The data idle of the spans holding a step that begins an epoch (the step a new iterator
/// was made in) or the one after it, whose batch the same start delays, when the run
/// marked any. The probe times those two steps alone.
fn epoch_start_idle(idle: &[(u64, u64, f64)], epoch_starts: &[u64]) -> Option<EpochStartIdle> {
    let first = idle.first()?.0;
    let last = idle.last()?.1;
    let starts: Vec<u64> = epoch_starts
        .iter()
        .copied()
        .filter(|s| (first..=last).contains(s))
        .collect();
    if starts.is_empty() {
        return None;
    }
    let idle_ms = idle
        .iter()
        // Step numbers come from the input: saturate rather than overflow.
        .filter(|(a, b, _)| {
            starts
                .iter()
                .any(|s| (*a..=*b).contains(s) || (*a..=*b).contains(&s.saturating_add(1)))
        })
        .map(|(_, _, ms)| ms)
        .sum();
    Some(EpochStartIdle {
        epochs: starts.len() as u32,
        idle_ms,
    })
}

/// Whether `step` is one of the `profiled` steps, the one after them, or one of the
/// `margin` before them: steps the checkup's profiler slowed, left out of step timings.
pub fn near_profiler(profiled: Option<(u64, u64)>, margin: u64, step: u64) -> bool {
    // Step numbers come from the input: saturate rather than overflow.
    profiled.is_some_and(|(a, b)| step.saturating_add(margin) >= a && step <= b.saturating_add(1))
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

/// Periodic work the probe timed in a step (an evaluation pass, a checkpoint, a garbage
/// collection), from its markers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedWork {
    /// The step it ran in.
    pub step: u64,
    /// How long it took, ms.
    pub duration_ms: f64,
}

impl TimedWork {
    /// The timed evaluation passes, checkpoints and collections among `markers`.
    pub fn from_markers(markers: &[checkup_model::RunMarker]) -> Vec<Self> {
        use checkup_model::MarkerKind as M;
        markers
            .iter()
            .filter(|m| matches!(m.kind, M::Eval | M::Checkpoint | M::Gc))
            .filter_map(|m| {
                Some(Self {
                    step: m.step,
                    duration_ms: m.duration_ms.filter(|d| d.is_finite() && *d > 0.0)?,
                })
            })
            .collect()
    }
}

/// Whether the slow `step`, begun at `t_start`, came while a checkpoint write that `last`'s
/// save began was still running on its thread: `torch.save` holds the interpreter while it
/// writes each tensor, and the loop waits for it. A step that saves itself is its own stall,
/// however late the last write runs (`BackgroundWrite::held` asks both; a save at `step`
/// is among the writes from `last` on).
fn held_by_write(step: u64, t_start: f64, last: &Stall, writes: &[BackgroundWrite]) -> bool {
    let since_last: Vec<BackgroundWrite> = writes
        .iter()
        .filter(|w| last.step <= w.step)
        .copied()
        .collect();
    BackgroundWrite::held(&since_last, step, t_start)
}

/// The stall period in steps, when at least `min_stalls` stalls come at regular spacing.
fn stall_period(stalls: &[Stall], th: &Thresholds) -> Option<f64> {
    if stalls.len() < th.min_stalls {
        return None;
    }
    let spacing: Vec<f64> = stalls
        .windows(2)
        // Step numbers come from the input: out of order, they are no spacing.
        .map(|w| w[1].step.saturating_sub(w[0].step) as f64)
        .collect();
    let m = mean(&spacing)?;
    let var = spacing.iter().map(|s| (s - m).powi(2)).sum::<f64>() / spacing.len() as f64;
    (m > 0.0 && var.sqrt() / m <= th.stall_period_cv).then_some(median(&spacing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stalls_out_of_step_order_have_no_period_and_no_overflow() {
        // Step numbers come from the file: a fuzzed steps.csv put a stall before the last.
        let stall = |step| Stall {
            step,
            steps: 1,
            t_start: 0.0,
            duration_ms: 100.0,
            excess_ms: 90.0,
        };
        let stalls: Vec<Stall> = [40, 80, 20, 120].map(stall).to_vec();
        assert_eq!(stall_period(&stalls, &Thresholds::default()), None);
    }

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
                gpu_steps: 1,
            });
            t += d / 1e3;
        }
        out
    }

    #[test]
    fn a_slow_step_holding_timed_periodic_work_is_a_stall_though_the_host_runs_ahead() {
        // 3.6 ms steps of 4.6 ms GPU work (the host runs ahead) and a 165 ms evaluation pass
        // every 25 steps that keeps the GPU busy: back-pressure alone, none is a stall.
        let mut d = vec![5000.0];
        for i in 1..300 {
            d.push(if i % 25 == 0 { 165.0 } else { 3.6 });
        }
        let mut rows = run(&d);
        for r in &mut rows {
            r.gpu_ms = Some(4.6);
        }
        let th = Thresholds::default();
        let t = analyze_steps(0, &rows, None, &[], &[], &[], &th);
        assert!(t.stalls.is_empty());
        // The probe timed a 150 ms pass in each: those steps are stalls, every 25 steps.
        let passes: Vec<TimedWork> = (1..12)
            .map(|k| TimedWork {
                step: 25 * k,
                duration_ms: 150.0,
            })
            .collect();
        let t = analyze_steps(0, &rows, None, &[], &[], &passes, &th);
        assert_eq!(t.stalls.len(), 11);
        assert_eq!(t.stall_period_steps, Some(25.0));
        // Work much shorter than a step's excess does not make it a stall.
        let short: Vec<TimedWork> = passes
            .iter()
            .map(|w| TimedWork {
                duration_ms: 10.0,
                ..*w
            })
            .collect();
        assert!(analyze_steps(0, &rows, None, &[], &[], &short, &th)
            .stalls
            .is_empty());
    }

    #[test]
    fn a_600ms_stall_every_25_steps_is_found_with_its_period() {
        let mut d = vec![5000.0];
        for i in 1..200 {
            d.push(if i % 25 == 0 { 640.0 } else { 40.0 });
        }
        let t = analyze_steps(0, &run(&d), None, &[], &[], &[], &Thresholds::default());
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
        let t = analyze_steps(0, &rows, None, &[], &[], &[], &Thresholds::default());
        assert!(t.stalls.is_empty(), "{:?}", t.stalls);
    }

    #[test]
    fn a_slow_step_right_after_a_stall_belongs_to_it_and_keeps_the_period() {
        // A 3.9 s checkpoint every 40 steps of 18 ms, each followed by a 60 ms step that
        // refills the GPU's queue (probe_lstm_checkpoint's shape).
        let mut d = vec![5000.0];
        for i in 1..241 {
            d.push(match i % 40 {
                0 => 3900.0,
                1 if i > 1 => 60.0,
                _ => 18.0,
            });
        }
        let t = analyze_steps(0, &run(&d), None, &[], &[], &[], &Thresholds::default());
        assert_eq!(t.stalls.len(), 5, "{:?}", t.stalls);
        assert_eq!(t.stall_period_steps, Some(40.0));
        let first = &t.stalls[0];
        assert_eq!((first.step, first.steps), (40, 2));
        assert!((first.duration_ms - 3960.0).abs() < 1e-6);
        assert!((first.excess_ms - (3960.0 - 2.0 * 18.0)).abs() < 1e-6);
    }

    #[test]
    fn a_slow_step_while_a_background_write_holds_the_loop_belongs_to_its_save() {
        // Every 40 steps a save stops the loop 1 s to copy the state, then writes it on a
        // thread for 3 s, which holds the interpreter near its end: one step 1.5 s long, 30
        // steps after the save. Alone, the slow steps have no period.
        let mut d = vec![5000.0];
        for i in 1..240 {
            d.push(match i % 40 {
                0 => 1050.0,
                30 if i > 40 => 1550.0,
                _ => 50.0,
            });
        }
        let rows = run(&d);
        let start = |step: u64| rows[step as usize].t_start;
        let writes: Vec<BackgroundWrite> = (1..6)
            .map(|k| BackgroundWrite {
                step: 40 * k,
                start_s: start(40 * k) + 1.0,
                end_s: start(40 * k) + 4.0,
            })
            .collect();
        let th = Thresholds::default();
        assert_eq!(
            analyze_steps(0, &rows, None, &[], &[], &[], &th).stall_period_steps,
            None
        );
        let t = analyze_steps(0, &rows, None, &[], &writes, &[], &th);
        assert_eq!(t.stall_period_steps, Some(40.0));
        assert_eq!(t.stalls[0].step, 40);
        assert_eq!(t.stalls[0].steps, 2);
        assert!((t.stalls[0].excess_ms - 2500.0).abs() < 1e-6);
        // A write still running when the next save comes does not take that save in: the
        // save is a stall of its own.
        let late: Vec<BackgroundWrite> = writes
            .iter()
            .map(|w| BackgroundWrite {
                end_s: w.end_s + 2.0,
                ..*w
            })
            .collect();
        let t = analyze_steps(0, &rows, None, &[], &late, &[], &th);
        assert_eq!(
            t.stalls.iter().map(|s| s.step).collect::<Vec<_>>(),
            [40, 80, 120, 160, 200]
        );
    }

    #[test]
    fn isolated_slow_steps_make_no_period() {
        let mut d = vec![40.0; 100];
        d[30] = 400.0;
        d[77] = 400.0;
        let t = analyze_steps(0, &run(&d), None, &[], &[], &[], &Thresholds::default());
        assert_eq!(t.stalls.len(), 2);
        assert_eq!(t.stall_period_steps, None);
    }

    #[test]
    fn a_long_wait_for_each_epochs_first_batch_counts_as_gpu_idle() {
        // 10 ms steps, GPU 9 ms of each; every 30th step waits 250 ms for its batch. Over the
        // run, waits (about 7 ms a step) are less than the GPU work (9 ms a step), which hid
        // them, but each long wait leaves the GPU idle.
        let mut d = vec![5000.0];
        for i in 1..181 {
            d.push(if i % 30 == 0 { 260.0 } else { 10.0 });
        }
        let mut rows = run(&d);
        for r in rows.iter_mut() {
            let waits = r.step % 30 == 0 && r.step > 0;
            r.data_wait_ms = if waits { 250.0 } else { 0.0 };
            // On the GPU's clock the step lasts as long, 250 ms of it idle.
            r.gpu_ms = Some(if waits { 259.0 } else { 9.0 });
        }
        let t = analyze_steps(0, &rows, None, &[], &[], &[], &Thresholds::default());
        // Steps 1-179 (the last has no end): five long waits, each idle all through.
        let total = 174.0 * 10.0 + 5.0 * 260.0;
        assert!((t.data_wait_share - 5.0 * 250.0 / total).abs() < 1e-9);
        let idle = t.data_idle_share.unwrap();
        assert!((idle - 5.0 * 250.0 / total).abs() < 1e-6, "{idle}");
    }

    #[test]
    fn a_host_that_ran_ahead_keeps_the_gpu_fed_through_a_wait() {
        // The host launches a step in 10 ms, the GPU needs 12: work piles up in the queue,
        // and every 10th step's 15 ms wait for its batch is covered by it: on the GPU's
        // clock every step takes its 12 ms.
        let d: Vec<f64> = (0..100)
            .map(|i| if i % 10 == 0 { 25.0 } else { 10.0 })
            .collect();
        let mut rows = run(&d);
        for r in rows.iter_mut() {
            r.data_wait_ms = if r.step % 10 == 0 { 15.0 } else { 0.0 };
            r.gpu_ms = Some(12.0);
        }
        let t = analyze_steps(0, &rows, None, &[], &[], &[], &Thresholds::default());
        assert!(t.data_wait_share > 0.1, "{}", t.data_wait_share);
        assert_eq!(t.data_idle_share, Some(0.0));
    }

    #[test]
    fn a_gpu_idle_while_the_host_launches_is_not_waiting_for_data() {
        // 40 ms steps, 30 ms of GPU work, no data wait: the 10 ms idle are the host's.
        let mut rows = run(&[40.0; 50]);
        for r in rows.iter_mut() {
            r.data_wait_ms = 0.0;
            r.gpu_ms = Some(40.0);
        }
        let t = analyze_steps(0, &rows, None, &[], &[], &[], &Thresholds::default());
        assert_eq!(t.data_idle_share, Some(0.0));
        // Without the GPU's time per step there is no bound.
        let rows: Vec<_> = rows
            .into_iter()
            .map(|r| StepRecord { gpu_ms: None, ..r })
            .collect();
        let t = analyze_steps(0, &rows, None, &[], &[], &[], &Thresholds::default());
        assert_eq!(t.data_idle_share, None);
    }

    /// The same rows timed on the GPU as the probe times short steps: spans of `k` steps;
    /// an epoch's start (a step in `starts`) ends the span before it, and it and the step
    /// after it are timed alone.
    fn in_spans(rows: &[StepRecord], k: usize, starts: &[u64]) -> Vec<StepRecord> {
        let mut out: Vec<StepRecord> = Vec::new();
        let mut open: Vec<StepRecord> = Vec::new();
        let mut open_gpu = 0.0;
        let close = |open: &mut Vec<StepRecord>, gpu: &mut f64, out: &mut Vec<StepRecord>| {
            let n = open.len() as u32;
            if let Some(last) = open.last_mut() {
                (last.gpu_ms, last.gpu_steps) = (Some(*gpu), n);
            }
            out.append(open);
            *gpu = 0.0;
        };
        for r in rows {
            let alone = starts.iter().any(|&s| r.step == s || r.step == s + 1);
            if starts.contains(&r.step) {
                close(&mut open, &mut open_gpu, &mut out);
            }
            open_gpu += r.gpu_ms.unwrap();
            open.push(StepRecord {
                gpu_ms: None,
                gpu_steps: 1,
                ..r.clone()
            });
            if alone || open.len() == k {
                close(&mut open, &mut open_gpu, &mut out);
            }
        }
        out.append(&mut open);
        out
    }

    #[test]
    fn short_steps_timed_in_spans_give_the_same_gpu_figures_as_step_by_step() {
        // 2 ms steps, 1.8 ms of GPU work each; every 100th step begins an epoch and waits
        // 50 ms for its batch, the GPU idle all through. The probe times such steps in spans
        // of 10, an epoch's first two steps alone.
        let mut d = vec![500.0];
        for i in 1..400 {
            d.push(if i % 100 == 0 { 52.0 } else { 2.0 });
        }
        let mut rows = run(&d);
        let starts: Vec<u64> = (1..4).map(|e| e * 100).collect();
        for r in rows.iter_mut() {
            let waits = starts.contains(&r.step);
            r.data_wait_ms = if waits { 50.0 } else { 0.0 };
            r.gpu_ms = Some(if waits { 51.8 } else { 1.8 });
        }
        let th = Thresholds::default();
        let each = analyze_steps(0, &rows, None, &starts, &[], &[], &th);
        let spans = in_spans(&rows, 10, &starts);
        assert!(spans.iter().any(|s| s.gpu_steps == 10));
        let spanned = analyze_steps(0, &spans, None, &starts, &[], &[], &th);
        let idle = each.data_idle_share.unwrap();
        assert!(idle > 0.1, "{idle}");
        assert!((spanned.data_idle_share.unwrap() - idle).abs() < 1e-9);
        let (a, b) = (
            each.epoch_start_idle.unwrap(),
            spanned.epoch_start_idle.unwrap(),
        );
        assert_eq!((a.epochs, b.epochs), (3, 3));
        assert!((a.idle_ms - 150.0).abs() < 1e-6, "{}", a.idle_ms);
        assert!((b.idle_ms - a.idle_ms).abs() < 1e-6);
        assert!((spanned.median_gpu_ms.unwrap() - 1.8).abs() < 1e-9);
    }

    #[test]
    fn a_span_reaching_into_the_profiled_steps_is_left_out_with_them() {
        let mut rows = run(&[10.0; 60]);
        for r in rows.iter_mut() {
            r.data_wait_ms = 0.0;
            (r.gpu_ms, r.gpu_steps) = (None, 1);
        }
        // One span of 10 steps ends at step 25, inside the margin before the window at 22..29;
        // another of 10 ends at step 50, clear of it.
        (rows[25].gpu_ms, rows[25].gpu_steps) = (Some(300.0), 10);
        (rows[50].gpu_ms, rows[50].gpu_steps) = (Some(95.0), 10);
        let t = analyze_steps(
            0,
            &rows,
            Some((22, 29)),
            &[],
            &[],
            &[],
            &Thresholds::default(),
        );
        // Only the clean span counts: its own 9.5 ms per step is the work, no idle.
        assert_eq!(t.data_idle_share, Some(0.0));
    }
}
