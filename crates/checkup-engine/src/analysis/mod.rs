//! Analyses over a [`crate::ingest::Recording`]. Each module measures one thing;
//! the diagnosis reads their results.

pub mod charts;
pub mod gpu_peaks;
pub mod gpu_sharing;
pub mod intervals;
pub mod ledger;
pub mod samples;
pub mod stats;
pub mod step_timing;
pub mod trace;
pub mod trends;
pub mod whole_run;

use checkup_model::{
    ChartData, HostStats, RankSummary, SampleStats, SteadyWindow, StepTiming, WindowMethod,
};

use crate::ingest::Recording;
use crate::thresholds::Thresholds;

/// Everything measured, before judging.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// The steady-state window the shares are measured over.
    pub window: SteadyWindow,
    /// Each rank's GPU time split (compute, exposed communication and copies, idle) from its trace.
    pub ranks: Vec<RankSummary>,
    /// Each rank's step timing from `steps.csv`.
    pub step_timing: Vec<StepTiming>,
    /// Each GPU's NVML/GPM statistics over the window.
    pub samples: Vec<SampleStats>,
    /// The host's CPU and the training processes' use over the window.
    pub host: Option<HostStats>,
    /// The curves the charts draw.
    pub charts: ChartData,
    /// What the probe saw of the training, per rank.
    pub training: std::collections::BTreeMap<u32, checkup_model::TrainingContext>,
    /// Markers of periodic work, per rank.
    pub markers: std::collections::BTreeMap<u32, Vec<checkup_model::RunMarker>>,
    /// Step time over the whole run, per rank with step timings.
    pub step_trends: std::collections::BTreeMap<u32, trends::StepTrend>,
    /// GPU memory over the run, per rank with the probe's memory rows (rank 0 from NVML
    /// alone when there are none).
    pub memory: std::collections::BTreeMap<u32, trends::MemoryTrend>,
    /// Each rank's whole run (rank 0 alone from the samples when no steps were timed).
    pub whole_run: Vec<checkup_model::WholeRun>,
    /// Where each rank's time went (rank 0 alone from the samples when nothing was timed
    /// or traced).
    pub ledgers: std::collections::BTreeMap<u32, checkup_model::TimeLedger>,
}

/// Measures a recording: windows, per-rank splits, step timings, sample statistics, trends.
pub fn analyze(rec: &Recording, th: &Thresholds) -> Analysis {
    let step_timing: Vec<StepTiming> = rec
        .steps
        .iter()
        .map(|(rank, steps)| {
            let markers = rec.markers.get(rank).map_or(&[][..], Vec::as_slice);
            let epoch_starts: Vec<u64> = markers
                .iter()
                .filter(|m| m.kind == checkup_model::MarkerKind::EpochStart)
                .map(|m| m.step)
                .collect();
            let writes = step_timing::BackgroundWrite::from_markers(markers);
            let timed = step_timing::TimedWork::from_markers(markers);
            step_timing::analyze_steps(
                *rank,
                steps,
                rec.profile_steps,
                &epoch_starts,
                &writes,
                &timed,
                th,
            )
        })
        .collect();
    let window = steady_window(rec, &step_timing, th);
    let span = window.start_s.zip(window.end_s);
    let ranks: Vec<RankSummary> = rec.traces.iter().map(|t| t.summary.clone()).collect();
    let mut charts = charts::chart_data(
        &rec.samples,
        &rec.steps,
        &step_timing,
        span,
        &ranks,
        rec.memory.values().next().map(Vec::as_slice),
    );
    let step_trends: std::collections::BTreeMap<u32, trends::StepTrend> = rec
        .steps
        .iter()
        .map(|(rank, rows)| {
            let warmup = step_timing
                .iter()
                .find(|t| t.rank == *rank)
                .map_or(0, |t| t.warmup_steps);
            let trend = trends::step_trend(
                rows,
                warmup,
                rec.profile_steps,
                &rec.samples.host,
                charts.t0,
                th,
            );
            (*rank, trend)
        })
        .collect();
    for g in &mut charts.gpus {
        let facts = rec.facts.gpus.iter().find(|s| s.index == g.gpu);
        g.temp_slowdown_c = facts.and_then(|s| s.temp_slowdown_c);
        g.pcie_peak_gbs = facts.and_then(checkup_model::GpuStatic::pcie_peak_gbs);
    }
    for s in &mut charts.steps {
        s.trend = step_trends
            .get(&s.rank)
            .map(|t| {
                t.tenths
                    .iter()
                    .map(|tenth| (tenth.middle_step, tenth.step_ms as f32))
                    .collect()
            })
            .unwrap_or_default();
    }
    let mut memory = memory_trends(rec, &window, charts.t0);
    share_gpus(rec, &mut charts, &mut memory);
    let whole_run = whole_runs(rec, &step_timing, &memory, th);
    let samples = samples::analyze_gpu_samples(&rec.samples, span, th);
    let ledgers = ledgers(rec, &step_timing, &ranks, &samples, span, th);
    Analysis {
        whole_run,
        ledgers,
        step_trends,
        memory,
        charts,
        samples,
        host: samples::analyze_host_samples(&rec.samples, span, th),
        window,
        ranks,
        step_timing,
        training: rec.training.clone(),
        markers: rec.markers.clone(),
    }
}

/// Each GPU's processes: their memory on the charts where several shared it, and what the
/// others held beside each rank's training.
fn share_gpus(
    rec: &Recording,
    charts: &mut ChartData,
    memory: &mut std::collections::BTreeMap<u32, trends::MemoryTrend>,
) {
    let reserved_on = |gpu: u32| {
        memory
            .values()
            .find(|m| m.gpu == Some(gpu))
            .and_then(|m| m.peak_reserved_gib)
    };
    // Memory a process held before the training's first step is not memory the training
    // lacked: the one before it on the GPU may still be exiting.
    let from = training_start(rec);
    let while_training: Vec<checkup_model::GpuProcessSample> = rec
        .gpu_processes
        .iter()
        .filter(|p| from.is_none_or(|t| p.ts >= t))
        .cloned()
        .collect();
    let mut others = Vec::new();
    for g in &mut charts.gpus {
        if let Some(s) =
            gpu_sharing::gpu_sharing(&while_training, g.gpu, reserved_on(g.gpu), charts.t0)
        {
            others.push((g.gpu, s.others_gib, s.other_pids));
            g.processes = s.series;
        }
    }
    for m in memory.values_mut() {
        if let Some((_, gib, pids)) = others.iter().find(|(gpu, ..)| Some(*gpu) == m.gpu) {
            m.others_gib = *gib;
            m.other_pids = pids.clone();
        }
    }
}

/// Each timed or traced rank's ledger; rank 0's from its samples alone when no rank was.
fn ledgers(
    rec: &Recording,
    step_timing: &[StepTiming],
    ranks: &[RankSummary],
    samples: &[checkup_model::SampleStats],
    span: Option<(f64, f64)>,
    th: &Thresholds,
) -> std::collections::BTreeMap<u32, checkup_model::TimeLedger> {
    let mut timed: Vec<u32> = rec
        .steps
        .keys()
        .copied()
        .chain(ranks.iter().map(|r| r.rank))
        .collect();
    timed.sort_unstable();
    timed.dedup();
    if timed.is_empty() {
        timed.push(0);
    }
    timed
        .into_iter()
        .filter_map(|rank| {
            let gpu = rec.facts.gpu_of_rank(rank).unwrap_or(rank);
            let stats = samples
                .iter()
                .find(|s| s.gpu == gpu)
                .or((samples.len() == 1).then(|| &samples[0]));
            // The seconds its GPU was sampled (over the steady window where there is one).
            let sampled_s = stats.and_then(|s| {
                let ts = rec
                    .samples
                    .nvml
                    .iter()
                    .filter(|x| x.gpu == s.gpu)
                    .map(|x| x.ts);
                let (a, b) = ts.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| {
                    (a.min(t), b.max(t))
                });
                let (a, b) = span.map_or((a, b), |(x, y)| (a.max(x), b.min(y)));
                (b > a).then_some(b - a)
            });
            let inputs = ledger::LedgerInputs {
                rank,
                rows: rec.steps.get(&rank).map_or(&[], Vec::as_slice),
                warmup: step_timing
                    .iter()
                    .find(|t| t.rank == rank)
                    .map_or(0, |t| t.warmup_steps),
                profiled: rec.profile_steps,
                markers: rec.markers.get(&rank).map_or(&[], Vec::as_slice),
                trace: ranks.iter().find(|r| r.rank == rank),
                util_pct: stats.and_then(|s| s.util_gpu_mean),
                sampled_s,
            };
            ledger::ledger(&inputs, th).map(|l| (rank, l))
        })
        .collect()
}

/// Each timed rank's whole run; rank 0's from its samples alone when no rank was timed.
fn whole_runs(
    rec: &Recording,
    step_timing: &[StepTiming],
    memory: &std::collections::BTreeMap<u32, trends::MemoryTrend>,
    th: &Thresholds,
) -> Vec<checkup_model::WholeRun> {
    let no_steps = std::collections::BTreeMap::from([(0, Vec::new())]);
    let ranks = if rec.steps.is_empty() {
        &no_steps
    } else {
        &rec.steps
    };
    ranks
        .iter()
        .map(|(rank, rows)| {
            let warmup = step_timing
                .iter()
                .find(|t| t.rank == *rank)
                .map_or(0, |t| t.warmup_steps);
            whole_run::whole_run(
                *rank,
                rec.facts.gpu_of_rank(*rank),
                rows,
                warmup,
                rec.profile_steps,
                &rec.samples.nvml,
                memory.get(rank),
                th,
            )
        })
        .filter(|w| w.steps.is_some() || w.gpu.is_some())
        .collect()
}

/// When the training's first step began (the earliest of its ranks'), None without steps.
fn training_start(rec: &Recording) -> Option<f64> {
    rec.steps
        .values()
        .filter_map(|s| s.first())
        .map(|s| s.t_start)
        .reduce(f64::min)
}

/// GPU memory per rank with memory rows, or for rank 0 from NVML alone: over the steady
/// window up to the rank's last step's start (a row after it is the exit's, tensors freed).
fn memory_trends(
    rec: &Recording,
    window: &SteadyWindow,
    t0: f64,
) -> std::collections::BTreeMap<u32, trends::MemoryTrend> {
    // What NVML saw in use from the training's first step: a process before it on the GPU
    // may still be exiting, its memory not yet given back.
    let from = training_start(rec);
    let mut nvml: Vec<checkup_model::NvmlSample> = rec
        .samples
        .nvml
        .iter()
        .filter(|s| from.is_none_or(|t| s.ts >= t))
        .cloned()
        .collect();
    if nvml.is_empty() {
        nvml = rec.samples.nvml.clone();
    }
    let no_rows = std::collections::BTreeMap::from([(0, Vec::new())]);
    let ranks = if rec.memory.is_empty() {
        &no_rows
    } else {
        &rec.memory
    };
    ranks
        .iter()
        .map(|(rank, rows)| {
            let last_step = rec
                .steps
                .get(rank)
                .and_then(|s| s.last())
                .map(|s| s.t_start);
            let span = match (window.start_s, last_step.or(window.end_s)) {
                (Some(a), Some(b)) => Some((a, b)),
                _ => None,
            };
            (*rank, trends::memory_trend(rows, &nvml, span, t0))
        })
        .collect()
}

/// The steady window in wall time: from the first steady step to the last step of rank 0's
/// `steps.csv`. Without step timings, samples count from the GPU's first work to its last
/// (before it the job was starting: importing, loading, autotuning; after it, saving and
/// exiting), and that is said. "Work" is any reading above `util_low_pct`, not a busy one: a
/// starved job may never be busy, and its whole run would otherwise count as start-up.
fn steady_window(rec: &Recording, timing: &[StepTiming], th: &Thresholds) -> SteadyWindow {
    let Some((rank, steps)) = rec.steps.iter().next() else {
        return samples_window(rec, th);
    };
    let t = timing.iter().find(|t| t.rank == *rank);
    let warmup = t
        .map_or(0, |t| t.warmup_steps as usize)
        .min(steps.len().saturating_sub(1));
    let first = &steps[warmup];
    let last = &steps[steps.len() - 1];
    SteadyWindow {
        start_s: Some(first.t_start),
        end_s: Some(last.t_start),
        first_step: Some(first.step),
        last_step: Some(last.step),
        warmup_steps: warmup as u64,
        method: WindowMethod::Steps {
            first: first.step,
            last: last.step,
            warmup: warmup as u64,
            warmup_factor: th.warmup_step_factor,
            margin_steps: th.profiler_margin_steps,
        },
    }
}

fn samples_window(rec: &Recording, th: &Thresholds) -> SteadyWindow {
    let has_trace = !rec.traces.is_empty();
    let readings = || rec.samples.nvml.iter().filter(|s| s.ts.is_finite());
    let first = readings().map(|s| s.ts).reduce(f64::min);
    let last = readings().map(|s| s.ts).reduce(f64::max);
    let mut per_gpu: std::collections::BTreeMap<u32, Vec<(f64, f64)>> = Default::default();
    for s in readings() {
        if let Some(u) = s.util_gpu.filter(|u| u.is_finite()) {
            per_gpu.entry(s.gpu).or_default().push((s.ts, u));
        }
    }
    let mut work: Option<(f64, f64)> = None;
    for series in per_gpu.values_mut() {
        series.sort_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((start, end)) = training_span(series, th.util_low_pct) {
            work = Some(work.map_or((start, end), |(a, b)| (a.min(start), b.max(end))));
        }
    }
    match (first, work, last) {
        (Some(first), Some((start, end)), Some(last)) if start < end => SteadyWindow {
            start_s: Some(start),
            end_s: Some(end),
            method: WindowMethod::NoStepTimings {
                has_trace,
                start_up_s: Some(start - first),
                wind_down_s: Some(last - end),
            },
            ..SteadyWindow::default()
        },
        _ => SteadyWindow {
            method: WindowMethod::NoStepTimings {
                has_trace,
                start_up_s: None,
                wind_down_s: None,
            },
            ..SteadyWindow::default()
        },
    }
}

/// From when to when one GPU's utilisation readings (in time order) show the training at
/// work. The start is where the level of the readings shifts up from a near-idle start-up
/// (the best single split of their mean, least squares): start-up has its own brief GPU
/// work (context creation, copies, autotuning), so the first reading above idle is too
/// early, and a starved job may never read as busy. The end is the last reading above idle.
fn training_span(series: &[(f64, f64)], util_low_pct: f64) -> Option<(f64, f64)> {
    let working = |&&(_, u): &&(f64, f64)| u > util_low_pct;
    let end = series.iter().rev().find(working)?.0;
    let n = series.len();
    let mut sum = vec![0.0; n + 1];
    let mut sq = vec![0.0; n + 1];
    for (i, (_, u)) in series.iter().enumerate() {
        sum[i + 1] = sum[i] + u;
        sq[i + 1] = sq[i] + u * u;
    }
    // Sum of squared deviations from the mean of readings lo..hi.
    let sse = |lo: usize, hi: usize| {
        let (s, q, k) = (sum[hi] - sum[lo], sq[hi] - sq[lo], (hi - lo) as f64);
        q - s * s / k
    };
    let split = (1..n)
        .map(|k| (k, sse(0, k) + sse(k, n)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k)
        .filter(|&k| {
            let before = sum[k] / k as f64;
            let after = (sum[n] - sum[k]) / (n - k) as f64;
            before <= util_low_pct && after > before
        })
        .unwrap_or(0);
    let start = series[split..].iter().find(working)?.0;
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use checkup_model::{HostSample, NvmlSample, SampleSet};

    use super::*;

    /// Imports and the model's set-up for 20 s (the main process at a full core, the GPU
    /// all but untouched), 10 s of a GPU kept only lightly busy, 5 s of saving at the end.
    fn starved_job_with_set_up_and_end() -> Recording {
        let util = |i: u32| match i {
            // Context creation and the first copies: brief work during the set-up.
            40 | 41 | 120 => 12.0,
            ..=200 => 0.0,
            201..=300 => 30.0,
            _ => 0.0,
        };
        let nvml = (1..=350)
            .map(|i| NvmlSample {
                ts: f64::from(i) / 10.0,
                util_gpu: Some(util(i)),
                ..Default::default()
            })
            .collect();
        let host = (0..=35)
            .map(|t| HostSample {
                ts: f64::from(t),
                proc_busy_children: Some(0),
                proc_main_cpu_pct: Some(100.0),
                proc_tree_cpu_pct: Some(100.0),
                ..Default::default()
            })
            .collect();
        Recording {
            samples: SampleSet {
                nvml,
                gpm: Vec::new(),
                host,
            },
            ..Recording::default()
        }
    }

    #[test]
    fn without_step_timings_the_window_runs_from_the_first_gpu_work_to_the_last() {
        // The GPU is never busy (30 %): the window must still start at its first work, not
        // cover the whole run as start-up or none of it.
        let a = analyze(&starved_job_with_set_up_and_end(), &Thresholds::default());
        assert_eq!((a.window.start_s, a.window.end_s), (Some(20.1), Some(30.0)));
        let WindowMethod::NoStepTimings {
            start_up_s: Some(start_up),
            wind_down_s: Some(wind_down),
            ..
        } = a.window.method
        else {
            panic!("{:?}", a.window.method);
        };
        assert!((start_up - 20.0).abs() < 1e-9, "{start_up}");
        assert!((wind_down - 5.0).abs() < 1e-9, "{wind_down}");
        assert_eq!(a.samples[0].nvml_samples, 100);
    }

    #[test]
    fn the_set_up_and_the_end_are_not_idle_time_of_the_training() {
        let a = analyze(&starved_job_with_set_up_and_end(), &Thresholds::default());
        let w = a.host.unwrap().while_gpu_idle.unwrap();
        assert_eq!(w.samples, 0, "{w:?}");
        // Host samples at 21 s … 30 s: nine intervals, each with the GPU at work.
        assert_eq!(w.of_samples, 9);
    }
}
