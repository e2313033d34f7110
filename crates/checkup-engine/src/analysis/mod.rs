//! Analyses over a [`Recording`](crate::ingest::Recording). Each module measures one thing;
//! the diagnosis reads their results.

pub mod charts;
pub mod intervals;
pub mod samples;
pub mod stats;
pub mod step_timing;
pub mod trace;

use checkup_model::{
    ChartData, HostStats, RankSummary, SampleStats, SteadyWindow, StepTiming, WindowMethod,
};

use crate::diagnosis::thresholds::Thresholds;
use crate::ingest::Recording;

/// Everything measured, before judging.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub window: SteadyWindow,
    pub ranks: Vec<RankSummary>,
    pub step_timing: Vec<StepTiming>,
    pub samples: Vec<SampleStats>,
    pub host: Option<HostStats>,
    pub charts: ChartData,
    /// What the probe saw of the training, per rank.
    pub training: std::collections::BTreeMap<u32, checkup_model::TrainingContext>,
    /// Markers of periodic work, per rank.
    pub markers: std::collections::BTreeMap<u32, Vec<checkup_model::RunMarker>>,
}

pub fn analyze(rec: &Recording, th: &Thresholds) -> Analysis {
    let step_timing: Vec<StepTiming> = rec
        .steps
        .iter()
        .map(|(rank, steps)| step_timing::analyze_steps(*rank, steps, rec.profile_steps, th))
        .collect();
    let window = steady_window(rec, &step_timing, th);
    let span = window.start_s.zip(window.end_s);
    let ranks: Vec<RankSummary> = rec
        .traces
        .iter()
        .map(|t| trace::analyze_trace(t, th).summary)
        .collect();
    let charts = charts::chart_data(&rec.samples, &rec.steps, &step_timing, span, &ranks);
    Analysis {
        charts,
        samples: samples::analyze_gpu_samples(&rec.samples, span, th),
        host: samples::analyze_host_samples(&rec.samples, span, th),
        window,
        ranks,
        step_timing,
        training: rec.training.clone(),
        markers: rec.markers.clone(),
    }
}

/// The steady window in wall time: from the first steady step to the last step of rank 0's
/// `steps.csv`. Without step timings, samples count from the GPU's first busy reading on
/// (before it the job was starting: loading, autotuning, not yet training), and that is said.
fn steady_window(rec: &Recording, timing: &[StepTiming], th: &Thresholds) -> SteadyWindow {
    let Some((rank, steps)) = rec.steps.iter().next() else {
        let has_trace = !rec.traces.is_empty();
        let ts = || rec.samples.nvml.iter().map(|s| s.ts);
        let first = ts().reduce(f64::min);
        let last = ts().reduce(f64::max);
        let first_busy = rec
            .samples
            .nvml
            .iter()
            .filter(|s| s.util_gpu.is_some_and(|u| u >= th.util_busy_pct))
            .map(|s| s.ts)
            .reduce(f64::min);
        return match (first, first_busy, last) {
            (Some(first), Some(busy), Some(last)) if busy > first && busy < last => SteadyWindow {
                start_s: Some(busy),
                end_s: Some(last),
                method: WindowMethod::NoStepTimings {
                    has_trace,
                    start_up_s: Some(busy - first),
                },
                ..SteadyWindow::default()
            },
            _ => SteadyWindow {
                method: WindowMethod::NoStepTimings {
                    has_trace,
                    start_up_s: None,
                },
                ..SteadyWindow::default()
            },
        };
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
