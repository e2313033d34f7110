//! The baseline card: what identifies a healthy run's workload and what the whole run cost,
//! saved as a small text file next to the training code; and the comparison of a later run
//! against it, each change with the cause the engine can name for it.

use std::fmt::Write;

use checkup_model::{
    CompareReason, CurveShape, Delta, Diagnosis, Family, Figure, FigureChange, FigureUnit,
    FigureValue, PowerHeld, RunComparison, StepChange, TrainingContext,
};

use crate::ReportError;

/// What a comparison counts as a move worth a reason. Each is a change far beyond what two
/// recordings of the same run differ by on an H200 (run to run: power ±3 %, clocks ±1 %,
/// stall share ±1 point, data share ±2 points).
mod moved {
    /// A step time within 5 % reads as unchanged.
    pub const STEP: f64 = 0.05;
    /// Power while busy 10 % lower: the card was held below what the work drew before.
    pub const POWER_FALL: f64 = 0.10;
    /// SM clock while busy 5 % lower.
    pub const CLOCK_FALL: f64 = 0.05;
    /// Throttled share of busy time 10 points higher.
    pub const THROTTLED_RISE: f64 = 0.10;
    /// Highest temperature 10 °C higher.
    pub const TEMP_RISE_C: f64 = 10.0;
    /// Stall share of the whole run 5 points higher.
    pub const STALL_RISE: f64 = 0.05;
    /// Data-loading or communication share 10 points higher.
    pub const SHARE_RISE: f64 = 0.10;
    /// A quarter of the host's cores busier: the loop and its workers compete for CPU.
    pub const HOST_CPU_RISE_PCT: f64 = 25.0;
    /// The mean kernel gap half as long again: the host feeds the GPU more slowly.
    pub const KERNEL_GAP_RISE: f64 = 0.5;
    /// A memory peak 10 % higher and within 10 % of the card's capacity, where PyTorch's
    /// allocator frees its cache and retries.
    pub const MEMORY_RISE: f64 = 0.10;
    pub const MEMORY_NEAR_CAPACITY: f64 = 0.90;
}

/// A healthy run's figures kept beside the training code (`checkup baseline`), which later
/// runs are compared with (`checkup compare`). A `key = value` text file; old cards parse.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BaselineCard {
    // What the workload is: two runs that differ here are different work.
    /// The lab's name for the model, or the class the probe saw.
    pub model: String,
    /// Trainable parameters, as the probe counted them.
    pub parameters: Option<u64>,
    /// Samples per batch on each rank.
    pub batch_size: Option<u64>,
    /// `bf16-autocast`, `no autocast`…: one vocabulary whoever recorded it.
    pub precision: String,
    /// Ranks in the job.
    pub world_size: Option<u64>,
    // Where it ran.
    /// The GPU's name.
    pub gpu: String,
    /// NVIDIA driver version.
    pub driver: String,
    /// CUDA version of the driver.
    pub cuda: String,
    /// PyTorch version.
    pub torch: String,
    /// NCCL version.
    pub nccl: String,
    // The whole run: timed steps after warm-up, profiled ones left out.
    /// Time per step, stalls included.
    pub step_mean_ms: Option<f64>,
    /// Median time per step.
    pub step_median_ms: Option<f64>,
    /// 95th percentile of the time per step.
    pub step_p95_ms: Option<f64>,
    /// Share of the run's time lost to stalls (0..1).
    pub stall_share: Option<f64>,
    /// Optimizer steps per second over the whole run.
    pub steps_per_s: Option<f64>,
    /// Samples per second over all ranks.
    pub samples_per_s: Option<f64>,
    // The GPU: util over the steady window, the rest while busy over the whole run.
    /// Mean GPU-Util over the steady window, percent.
    pub util_mean_pct: Option<f64>,
    /// How GPU-Util moved over the steady window: flat, periodic dips…
    pub util_shape: Option<CurveShape>,
    /// Median power draw while the GPU was busy (GPU-Util ≥ 50 %).
    pub power_busy_w: Option<f64>,
    /// The enforced power limit.
    pub power_limit_w: Option<f64>,
    /// Median SM clock while the GPU was busy.
    pub sm_clock_busy_mhz: Option<f64>,
    /// The SM clock's maximum.
    pub sm_clock_max_mhz: Option<f64>,
    /// Share of busy readings with a throttling clock-event reason (0..1), and those reasons.
    pub throttled_share: Option<f64>,
    /// The throttling reasons seen, by NVML's names.
    pub throttle_reasons: Vec<String>,
    /// The highest GPU temperature.
    pub temp_max_c: Option<f64>,
    /// The most GPU memory in use.
    pub memory_peak_gib: Option<f64>,
    /// The card's memory.
    pub memory_total_gib: Option<f64>,
    // The steady window, the figures the diagnosis reads.
    /// Mean step time over the engine's steady window (warm-up and profiled steps left out).
    pub steady_step_ms: Option<f64>,
    /// Share of step time the GPU waits for the DataLoader (0..1).
    pub data_loading_share: Option<f64>,
    /// GPU idle time per kernel: the mean gap between kernels.
    pub mean_kernel_gap_us: Option<f64>,
    /// Exposed communication share, multi-GPU runs only.
    pub comm_share: Option<f64>,
    /// Host CPU use over the steady window, all cores, percent.
    pub host_cpu_pct: Option<f64>,
    /// The diagnosis's primary bottleneck (a finding id's cause).
    pub primary: String,
}

/// The loader the loop iterated most: the training one, not an evaluation loader.
fn training_batch_size(t: &TrainingContext) -> Option<u64> {
    t.loaders
        .iter()
        .max_by_key(|l| l.batches_fetched)
        .and_then(|l| l.batch_size)
}

/// A precision in one vocabulary whoever recorded it: the lab's `bf16-autocast` and the
/// probe's autocast dtype `bfloat16` are the same setting.
fn precision(d: &Diagnosis) -> String {
    if let Some(p) = d.facts.precision.as_deref().filter(|p| !p.is_empty()) {
        return p.to_owned();
    }
    let Some(model) = d.training.as_ref().and_then(|t| t.model.as_ref()) else {
        return String::new();
    };
    match model.autocast.as_deref() {
        Some("bfloat16") => "bf16-autocast".into(),
        Some("float16") => "fp16-autocast".into(),
        Some(other) => format!("{other}-autocast"),
        None => "no autocast".into(),
    }
}

impl BaselineCard {
    /// The card of a diagnosed run (its diagnosed rank).
    pub fn from_diagnosis(d: &Diagnosis) -> Self {
        let rank = d.diagnosed_rank_summary();
        let gpu_stats = d.diagnosed_samples();
        let whole = d.diagnosed_whole_run();
        let steps = whole.and_then(|w| w.steps.as_ref());
        let busy = whole.and_then(|w| w.gpu.as_ref());
        let training = d.training.as_ref();
        let model_info = training.and_then(|t| t.model.as_ref());
        // The engine's steady window, not a window of the card's own: the profiled steps
        // run slower and warm-up steps far slower.
        let steady_step_ms = d
            .diagnosed_timing()
            .map(|t| t.mean_step_ms)
            .filter(|v| *v > 0.0)
            .or_else(|| rank.map(|r| r.gpu_step_us / 1e3).filter(|v| *v > 0.0));
        let shape = |sawtooth: bool, period: Option<f64>| match (sawtooth, period) {
            (_, Some(p)) => CurveShape::DipsEvery { period_s: p },
            (true, None) => CurveShape::Sawtooth,
            _ => CurveShape::Steady,
        };
        let data_loading = d
            .finding(Family::DataLoading.id())
            .map(|f| f.share)
            .or_else(|| {
                rank.filter(|r| r.gpu.window_us > 0.0)
                    .map(|r| r.host_waits.dataloader_us / r.gpu.window_us)
            })
            .or_else(|| d.diagnosed_timing().map(|t| t.data_wait_share));
        let world_size = d
            .facts
            .world_size
            .map(u64::from)
            .or_else(|| (d.step_timing.len() > 1).then_some(d.step_timing.len() as u64))
            .or_else(|| (d.ranks.len() > 1).then_some(d.ranks.len() as u64))
            .or(Some(1).filter(|_| !d.step_timing.is_empty() || !d.ranks.is_empty()));
        let batch_size = d
            .facts
            .batch_size
            .or_else(|| training.and_then(training_batch_size));
        let steps_per_s = steps
            .map(|s| s.mean_step_ms)
            .or(steady_step_ms)
            .filter(|ms| *ms > 0.0)
            .map(|ms| 1e3 / ms);
        let samples_per_s = match (steps_per_s, batch_size) {
            (Some(rate), Some(b)) => Some(rate * b as f64 * world_size.unwrap_or(1) as f64),
            _ => d.facts.samples_per_s,
        };
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        BaselineCard {
            model: d
                .facts
                .model
                .clone()
                .or_else(|| model_info.and_then(|m| m.class.clone()))
                .unwrap_or_default(),
            parameters: model_info.and_then(|m| m.param_count),
            batch_size,
            precision: precision(d),
            world_size,
            gpu: text(&d.facts.gpu_name),
            driver: text(&d.facts.driver_version),
            cuda: d
                .facts
                .cuda_runtime_version
                .clone()
                .or(d.facts.cuda_driver_version.clone())
                .unwrap_or_default(),
            torch: d
                .facts
                .torch_version
                .clone()
                .or_else(|| training.and_then(|t| t.torch.clone()))
                .unwrap_or_default(),
            nccl: text(&d.facts.nccl_version),
            step_mean_ms: steps.map(|s| s.mean_step_ms),
            step_median_ms: steps.map(|s| s.median_step_ms),
            step_p95_ms: steps.map(|s| s.p95_step_ms),
            stall_share: steps.map(|s| s.stall_share),
            steps_per_s,
            samples_per_s,
            util_mean_pct: gpu_stats.and_then(|g| g.util_gpu_mean),
            util_shape: gpu_stats.map(|g| shape(g.sawtooth, g.dip_period_s)),
            power_busy_w: busy.and_then(|g| g.power_w),
            power_limit_w: busy.and_then(|g| g.power_limit_w),
            sm_clock_busy_mhz: busy.and_then(|g| g.sm_clock_mhz),
            sm_clock_max_mhz: busy.and_then(|g| g.sm_clock_max_mhz),
            throttled_share: busy
                .filter(|g| g.busy_samples > 0)
                .map(|g| g.throttled_share),
            throttle_reasons: busy.map(|g| g.throttle_reasons.clone()).unwrap_or_default(),
            temp_max_c: busy.and_then(|g| g.temp_max_c),
            memory_peak_gib: whole.and_then(|w| w.memory_peak_gib),
            memory_total_gib: whole.and_then(|w| w.memory_total_gib),
            steady_step_ms,
            data_loading_share: data_loading,
            mean_kernel_gap_us: rank
                .filter(|r| r.kernels.kernels > 0)
                .map(|r| r.gpu.idle_us / r.kernels.kernels as f64),
            comm_share: rank
                .filter(|_| d.ranks.len() > 1)
                .map(|r| r.gpu.share(r.gpu.exposed_comm_us)),
            host_cpu_pct: d.host.as_ref().and_then(|h| h.cpu_total_mean),
            primary: d.primary.clone(),
        }
    }

    /// The card as `key = value` lines under `#` headings, meant to be committed beside the
    /// training code. An empty value is a figure the run did not record.
    pub fn to_text(&self) -> String {
        let opt = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.4}"));
        let count = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
        let sections = [
            (
                "what the workload is",
                vec![
                    ("model", self.model.clone()),
                    ("parameters", count(self.parameters)),
                    ("batch_size", count(self.batch_size)),
                    ("precision", self.precision.clone()),
                    ("world_size", count(self.world_size)),
                ],
            ),
            (
                "where it ran",
                vec![
                    ("gpu", self.gpu.clone()),
                    ("driver", self.driver.clone()),
                    ("cuda", self.cuda.clone()),
                    ("torch", self.torch.clone()),
                    ("nccl", self.nccl.clone()),
                ],
            ),
            (
                "the whole run: its steps after warm-up, the profiled ones left out",
                vec![
                    ("step_mean_ms", opt(self.step_mean_ms)),
                    ("step_median_ms", opt(self.step_median_ms)),
                    ("step_p95_ms", opt(self.step_p95_ms)),
                    ("stall_share", opt(self.stall_share)),
                    ("steps_per_s", opt(self.steps_per_s)),
                    ("samples_per_s", opt(self.samples_per_s)),
                ],
            ),
            (
                "the GPU: util over the steady window, the rest while busy",
                vec![
                    ("util_mean_pct", opt(self.util_mean_pct)),
                    ("util_shape", shape_text(self.util_shape)),
                    ("power_busy_w", opt(self.power_busy_w)),
                    ("power_limit_w", opt(self.power_limit_w)),
                    ("sm_clock_busy_mhz", opt(self.sm_clock_busy_mhz)),
                    ("sm_clock_max_mhz", opt(self.sm_clock_max_mhz)),
                    ("throttled_share", opt(self.throttled_share)),
                    ("throttle_reasons", self.throttle_reasons.join("; ")),
                    ("temp_max_c", opt(self.temp_max_c)),
                    ("memory_peak_gib", opt(self.memory_peak_gib)),
                    ("memory_total_gib", opt(self.memory_total_gib)),
                ],
            ),
            (
                "the steady window",
                vec![
                    ("mean_step_ms_steady", opt(self.steady_step_ms)),
                    ("data_loading_share", opt(self.data_loading_share)),
                    ("mean_kernel_gap_us", opt(self.mean_kernel_gap_us)),
                    ("comm_share", opt(self.comm_share)),
                    ("host_cpu_pct", opt(self.host_cpu_pct)),
                    ("primary", self.primary.clone()),
                ],
            ),
        ];
        let mut s = String::from(
            "# GPU Checkup baseline card: compare a run with `checkup compare RUN THIS_FILE`\n",
        );
        for (heading, pairs) in sections {
            let _ = writeln!(s, "\n# {heading}");
            for (key, value) in pairs {
                let _ = writeln!(s, "{key} = {value}");
            }
        }
        s
    }

    /// Reads a card written by [`BaselineCard::to_text`]; unknown keys are ignored, a bad
    /// value is an error naming its line.
    pub fn parse(text: &str) -> Result<Self, ReportError> {
        let mut card = BaselineCard::default();
        let mut seen_any = false;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, value) = line.split_once('=').ok_or_else(|| {
                ReportError::Baseline(format!(
                    "line {}: expected `key = value`, found `{line}`",
                    i + 1
                ))
            })?;
            let (key, value) = (key.trim(), value.trim());
            let num = || -> Result<Option<f64>, ReportError> {
                if value.is_empty() {
                    return Ok(None);
                }
                // NaN, inf and negative figures are no measurement: a comparison with them
                // printed "-inf% → 0%".
                match value.parse::<f64>() {
                    Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
                    Ok(_) => Err(ReportError::Baseline(format!(
                        "line {}: `{key}` must be a finite number of at least 0, not `{value}`",
                        i + 1
                    ))),
                    Err(_) => Err(ReportError::Baseline(format!(
                        "line {}: `{key}` is not a number: `{value}`",
                        i + 1
                    ))),
                }
            };
            let count = || -> Result<Option<u64>, ReportError> {
                if value.is_empty() {
                    return Ok(None);
                }
                value.parse::<u64>().map(Some).map_err(|_| {
                    ReportError::Baseline(format!(
                        "line {}: `{key}` must be a whole number, not `{value}`",
                        i + 1
                    ))
                })
            };
            seen_any = true;
            match key {
                "model" => card.model = value.into(),
                "parameters" => card.parameters = count()?,
                "batch_size" => card.batch_size = count()?,
                "precision" => card.precision = value.into(),
                "world_size" => card.world_size = count()?,
                "gpu" => card.gpu = value.into(),
                "driver" => card.driver = value.into(),
                "cuda" => card.cuda = value.into(),
                "torch" => card.torch = value.into(),
                "nccl" => card.nccl = value.into(),
                "step_mean_ms" => card.step_mean_ms = num()?,
                "step_median_ms" => card.step_median_ms = num()?,
                "step_p95_ms" => card.step_p95_ms = num()?,
                "stall_share" => card.stall_share = num()?,
                "steps_per_s" => card.steps_per_s = num()?,
                "samples_per_s" => card.samples_per_s = num()?,
                "util_mean_pct" => card.util_mean_pct = num()?,
                "util_shape" => {
                    card.util_shape = parse_shape(value).map_err(|e| line_err(i, key, e))?
                }
                "power_busy_w" => card.power_busy_w = num()?,
                "power_limit_w" => card.power_limit_w = num()?,
                "sm_clock_busy_mhz" => card.sm_clock_busy_mhz = num()?,
                "sm_clock_max_mhz" => card.sm_clock_max_mhz = num()?,
                "throttled_share" => card.throttled_share = num()?,
                "throttle_reasons" => {
                    card.throttle_reasons = value
                        .split(';')
                        .map(str::trim)
                        .filter(|r| !r.is_empty())
                        .map(String::from)
                        .collect()
                }
                "temp_max_c" => card.temp_max_c = num()?,
                "memory_peak_gib" => card.memory_peak_gib = num()?,
                "memory_total_gib" => card.memory_total_gib = num()?,
                // Older cards named the steady mean `mean_step_ms_first_20_steady`.
                k if k.starts_with("mean_step_ms") => card.steady_step_ms = num()?,
                "data_loading_share" => card.data_loading_share = num()?,
                "mean_kernel_gap_us" => card.mean_kernel_gap_us = num()?,
                "comm_share" => card.comm_share = num()?,
                "host_cpu_pct" => card.host_cpu_pct = num()?,
                "primary" => card.primary = value.into(),
                // Cards written by other versions may carry figures this one does not read
                // (older ones: `power_mean_w`, a mean over idle readings too, and
                // `power_shape`, which was the util curve's).
                _ => {}
            }
        }
        if !seen_any {
            return Err(ReportError::Baseline(
                "no `key = value` lines: not a GPU Checkup baseline card".into(),
            ));
        }
        Ok(card)
    }
}

/// A curve shape as the card file writes it: `steady`, `sawtooth`, `dips every 12.5 s`.
fn shape_text(s: Option<CurveShape>) -> String {
    match s {
        None => String::new(),
        Some(CurveShape::Steady) => "steady".into(),
        Some(CurveShape::Sawtooth) => "sawtooth".into(),
        Some(CurveShape::DipsEvery { period_s }) => format!("dips every {period_s:.1} s"),
    }
}

/// The card file's curve-shape values (its own fixed vocabulary, written by [`shape_text`]).
fn parse_shape(v: &str) -> Result<Option<CurveShape>, String> {
    let period = v
        .strip_prefix("dips every ")
        .and_then(|p| p.strip_suffix(" s"))
        .map(|p| p.trim().parse::<f64>());
    match (v, period) {
        ("", _) => Ok(None),
        ("steady", _) => Ok(Some(CurveShape::Steady)),
        ("sawtooth", _) => Ok(Some(CurveShape::Sawtooth)),
        (_, Some(Ok(period_s))) if period_s.is_finite() && period_s > 0.0 => {
            Ok(Some(CurveShape::DipsEvery { period_s }))
        }
        _ => Err(format!(
            "`{v}` is not a curve shape (steady, sawtooth or `dips every N s`)"
        )),
    }
}

fn line_err(i: usize, key: &str, e: String) -> ReportError {
    ReportError::Baseline(format!("line {}: `{key}`: {e}", i + 1))
}

fn rel(base: Option<f64>, now: Option<f64>) -> Option<f64> {
    match (base, now) {
        (Some(b), Some(n)) if b.abs() > 1e-9 => Some((n - b) / b),
        _ => None,
    }
}

/// Where a card keeps a numeric figure.
type CardFigure = fn(&BaselineCard) -> Option<f64>;

/// How a numeric figure of the card is shown: a number in its unit, or a share as percent
/// (whose move is in points).
#[derive(Clone, Copy)]
enum Shown {
    Number(FigureUnit, Move),
    Share,
}

/// How a number's move is told: relative (+12 %), in points of a percentage, or in its own
/// unit (+8 °C).
#[derive(Clone, Copy)]
enum Move {
    Relative,
    Points,
    Units,
}

/// How a text fact moved: unknown when one side did not record it (a bare trace knows no
/// driver), not a change.
fn text_delta(b: &str, n: &str) -> Delta {
    if b.is_empty() || n.is_empty() {
        Delta::Unknown
    } else if b == n {
        Delta::Same
    } else {
        Delta::Changed
    }
}

fn count_delta(b: Option<u64>, n: Option<u64>) -> Delta {
    match (b, n) {
        (Some(b), Some(n)) if b == n => Delta::Same,
        (Some(_), Some(_)) => Delta::Changed,
        _ => Delta::Unknown,
    }
}

/// A run's card against the baseline's: each figure, the change in time per step and every
/// cause the cards can name for it, in the order a checkup looks at the layers.
pub fn compare(now: &BaselineCard, base: &BaselineCard) -> RunComparison {
    let mut changes = Vec::new();
    let number = |value: Option<f64>, unit| FigureValue::Number { value, unit };
    let share = |share: Option<f64>| FigureValue::Share { share };
    let relative =
        |b: Option<f64>, n: Option<f64>| rel(b, n).map_or(Delta::None, |by| Delta::Relative { by });
    let points = |b: Option<f64>, n: Option<f64>, scale: f64| match (b, n) {
        (Some(b), Some(n)) => Delta::Points {
            by: (n - b) * scale,
        },
        _ => Delta::None,
    };
    let by_units = |b: Option<f64>, n: Option<f64>, unit| match (b, n) {
        (Some(b), Some(n)) => Delta::Units { by: n - b, unit },
        _ => Delta::None,
    };

    // A fact verbatim, and a count, each with how it moved.
    let text_row = |figure, b: &String, n: &String| FigureChange {
        figure,
        baseline: FigureValue::Text { text: b.clone() },
        current: FigureValue::Text { text: n.clone() },
        delta: text_delta(b, n),
    };
    let count_row = |figure, b: Option<u64>, n: Option<u64>| FigureChange {
        figure,
        baseline: number(b.map(|v| v as f64), FigureUnit::Count),
        current: number(n.map(|v| v as f64), FigureUnit::Count),
        delta: count_delta(b, n),
    };

    let identity = [
        text_row(Figure::Model, &base.model, &now.model),
        count_row(Figure::Parameters, base.parameters, now.parameters),
        count_row(Figure::BatchSize, base.batch_size, now.batch_size),
        text_row(Figure::Precision, &base.precision, &now.precision),
        count_row(Figure::WorldSize, base.world_size, now.world_size),
    ];
    let differences: Vec<FigureChange> = identity
        .iter()
        .filter(|c| c.delta == Delta::Changed)
        .cloned()
        .collect();
    changes.extend(identity);

    let mut env_changes = Vec::new();
    for (figure, b, n) in [
        (Figure::Gpu, &base.gpu, &now.gpu),
        (Figure::Driver, &base.driver, &now.driver),
        (Figure::Cuda, &base.cuda, &now.cuda),
        (Figure::Torch, &base.torch, &now.torch),
        (Figure::Nccl, &base.nccl, &now.nccl),
    ] {
        let row = text_row(figure, b, n);
        if row.delta == Delta::Changed {
            env_changes.push((figure, b.clone(), n.clone()));
        }
        changes.push(row);
    }

    // Each numeric figure: where the card keeps it, how it is shown and how its move is told.
    let numeric: [(Figure, CardFigure, Shown); 18] = [
        (
            Figure::TimePerStep,
            |c| c.step_mean_ms,
            Shown::Number(FigureUnit::Ms, Move::Relative),
        ),
        (
            Figure::MedianStepTime,
            |c| c.step_median_ms,
            Shown::Number(FigureUnit::Ms, Move::Relative),
        ),
        (
            Figure::P95StepTime,
            |c| c.step_p95_ms,
            Shown::Number(FigureUnit::Ms, Move::Relative),
        ),
        (Figure::StallShare, |c| c.stall_share, Shown::Share),
        (
            Figure::SamplesPerSecond,
            |c| c.samples_per_s,
            Shown::Number(FigureUnit::PerSecond, Move::Relative),
        ),
        (
            Figure::StepsPerSecond,
            |c| c.steps_per_s,
            Shown::Number(FigureUnit::PerSecond, Move::Relative),
        ),
        (
            Figure::MeanStepTime,
            |c| c.steady_step_ms,
            Shown::Number(FigureUnit::Ms, Move::Relative),
        ),
        (
            Figure::GpuUtil,
            |c| c.util_mean_pct,
            Shown::Number(FigureUnit::Percent, Move::Points),
        ),
        (
            Figure::Power,
            |c| c.power_busy_w,
            Shown::Number(FigureUnit::Watts, Move::Relative),
        ),
        (
            Figure::PowerLimit,
            |c| c.power_limit_w,
            Shown::Number(FigureUnit::Watts, Move::Relative),
        ),
        (
            Figure::SmClock,
            |c| c.sm_clock_busy_mhz,
            Shown::Number(FigureUnit::Mhz, Move::Relative),
        ),
        (Figure::ThrottledShare, |c| c.throttled_share, Shown::Share),
        (
            Figure::TemperatureMax,
            |c| c.temp_max_c,
            Shown::Number(FigureUnit::Celsius, Move::Units),
        ),
        (
            Figure::MemoryPeak,
            |c| c.memory_peak_gib,
            Shown::Number(FigureUnit::Gib, Move::Relative),
        ),
        (
            Figure::DataLoadingShare,
            |c| c.data_loading_share,
            Shown::Share,
        ),
        (
            Figure::MeanKernelGap,
            |c| c.mean_kernel_gap_us,
            Shown::Number(FigureUnit::Us, Move::Relative),
        ),
        (
            Figure::HostCpu,
            |c| c.host_cpu_pct,
            Shown::Number(FigureUnit::Percent, Move::Points),
        ),
        (Figure::CommunicationShare, |c| c.comm_share, Shown::Share),
    ];
    for (figure, get, shown) in numeric {
        let (b, n) = (get(base), get(now));
        let (baseline, current, delta) = match shown {
            Shown::Share => (share(b), share(n), points(b, n, 100.0)),
            Shown::Number(unit, how) => (
                number(b, unit),
                number(n, unit),
                match how {
                    Move::Relative => relative(b, n),
                    Move::Points => points(b, n, 1.0),
                    Move::Units => by_units(b, n, unit),
                },
            ),
        };
        changes.push(FigureChange {
            figure,
            baseline,
            current,
            delta,
        });
    }
    if let (Some(b), Some(n)) = (base.util_shape, now.util_shape) {
        let at = changes
            .iter()
            .position(|c| c.figure == Figure::GpuUtil)
            .map_or(changes.len(), |i| i + 1);
        changes.insert(
            at,
            FigureChange {
                figure: Figure::UtilCurve,
                baseline: FigureValue::Shape { shape: b },
                current: FigureValue::Shape { shape: n },
                delta: if b == n { Delta::Same } else { Delta::Changed },
            },
        );
    }
    changes.push(FigureChange {
        figure: Figure::PrimaryBottleneck,
        baseline: FigureValue::Finding {
            id: base.primary.clone(),
        },
        current: FigureValue::Finding {
            id: now.primary.clone(),
        },
        delta: text_delta(&base.primary, &now.primary),
    });
    // A figure neither card recorded has nothing to say (a one-GPU run's communication);
    // the steady mean and steps per second repeat the time per step where both have it.
    let whole_run_timed = base.step_mean_ms.is_some() && now.step_mean_ms.is_some();
    let samples_counted = base.samples_per_s.is_some() && now.samples_per_s.is_some();
    changes.retain(|c| {
        let nothing_to_say = missing(&c.baseline) && missing(&c.current);
        let repeated = (whole_run_timed && c.figure == Figure::MeanStepTime)
            || (samples_counted && c.figure == Figure::StepsPerSecond);
        !nothing_to_say && !repeated
    });

    // Whole-run time per step where both cards have it: a run that loses a fifth of its
    // time to stalls has the same steady step.
    let (step_figure, step) = match rel(base.step_mean_ms, now.step_mean_ms) {
        Some(by) => (Figure::TimePerStep, Some(by)),
        None => (
            Figure::MeanStepTime,
            rel(base.steady_step_ms, now.steady_step_ms),
        ),
    };

    let rose = |b: Option<f64>, n: Option<f64>, by: f64| matches!((b, n), (Some(b), Some(n)) if n - b >= by);
    let fell = |b: Option<f64>, n: Option<f64>, by: f64| rel(b, n).is_some_and(|r| r <= -by);
    let mut reasons = Vec::new();
    if !differences.is_empty() {
        reasons.push(CompareReason::DifferentWorkloads { differences });
    }
    if !env_changes.is_empty() {
        reasons.push(CompareReason::EnvironmentChanged {
            changes: env_changes,
        });
    }
    let limit_fell = fell(base.power_limit_w, now.power_limit_w, moved::POWER_FALL);
    let clocks_fell = fell(
        base.sm_clock_busy_mhz,
        now.sm_clock_busy_mhz,
        moved::CLOCK_FALL,
    );
    let more_throttled = rose(
        base.throttled_share,
        now.throttled_share,
        moved::THROTTLED_RISE,
    );
    let power_fell = fell(base.power_busy_w, now.power_busy_w, moved::POWER_FALL);
    let power_lower = |held| CompareReason::PowerLower {
        from: base.power_busy_w,
        to: now.power_busy_w,
        limit_from: base.power_limit_w,
        limit_to: now.power_limit_w,
        held,
    };
    if limit_fell {
        reasons.push(power_lower(PowerHeld::LimitLowered));
    } else if power_fell && (clocks_fell || more_throttled) {
        reasons.push(power_lower(PowerHeld::ClocksHeld));
    }
    if clocks_fell {
        reasons.push(CompareReason::ClocksLower {
            from: base.sm_clock_busy_mhz,
            to: now.sm_clock_busy_mhz,
        });
    }
    if more_throttled {
        reasons.push(CompareReason::MoreThrottled {
            from: base.throttled_share,
            to: now.throttled_share,
            reasons: now.throttle_reasons.clone(),
        });
    }
    if rose(base.temp_max_c, now.temp_max_c, moved::TEMP_RISE_C) {
        reasons.push(CompareReason::Hotter {
            from: base.temp_max_c,
            to: now.temp_max_c,
        });
    }
    if rose(base.stall_share, now.stall_share, moved::STALL_RISE) {
        reasons.push(CompareReason::StallsGrew {
            from: base.stall_share,
            to: now.stall_share,
        });
    }
    if rose(
        base.data_loading_share,
        now.data_loading_share,
        moved::SHARE_RISE,
    ) {
        reasons.push(CompareReason::InputRegressed {
            from: base.data_loading_share,
            to: now.data_loading_share,
        });
    }
    if rose(base.comm_share, now.comm_share, moved::SHARE_RISE) {
        reasons.push(CompareReason::CommunicationRegressed {
            from: base.comm_share,
            to: now.comm_share,
        });
    }
    if rose(
        base.host_cpu_pct,
        now.host_cpu_pct,
        moved::HOST_CPU_RISE_PCT,
    ) {
        reasons.push(CompareReason::HostCpuBusier {
            from: base.host_cpu_pct,
            to: now.host_cpu_pct,
        });
    }
    // Waits for data, stalls or a busy host all lengthen the gaps between kernels: the gap
    // is a reason of its own only when none of them is.
    let host_side_named = reasons.iter().any(|r| {
        matches!(
            r,
            CompareReason::InputRegressed { .. }
                | CompareReason::StallsGrew { .. }
                | CompareReason::HostCpuBusier { .. }
                | CompareReason::CommunicationRegressed { .. }
        )
    });
    if !host_side_named
        && rel(base.mean_kernel_gap_us, now.mean_kernel_gap_us)
            .is_some_and(|r| r > moved::KERNEL_GAP_RISE)
    {
        reasons.push(CompareReason::HostFeedsSlower {
            from: base.mean_kernel_gap_us,
            to: now.mean_kernel_gap_us,
        });
    }
    let near_capacity = match (now.memory_peak_gib, now.memory_total_gib) {
        (Some(peak), Some(total)) => peak >= moved::MEMORY_NEAR_CAPACITY * total,
        _ => false,
    };
    if near_capacity
        && rel(base.memory_peak_gib, now.memory_peak_gib).is_some_and(|r| r >= moved::MEMORY_RISE)
    {
        reasons.push(CompareReason::MemoryNearLimit {
            from: base.memory_peak_gib,
            to: now.memory_peak_gib,
            total: now.memory_total_gib,
        });
    }
    // Less power at the same clocks and limit follows from less work per second: stalls,
    // waits or a busier host make it so, and then they are the reason.
    let named_elsewhere = reasons.iter().any(|r| {
        !matches!(
            r,
            CompareReason::DifferentWorkloads { .. } | CompareReason::EnvironmentChanged { .. }
        )
    });
    if power_fell && !named_elsewhere {
        reasons.push(power_lower(PowerHeld::LessWork));
    }
    if reasons.is_empty() && text_delta(&base.primary, &now.primary) == Delta::Changed {
        reasons.push(CompareReason::PrimaryMoved {
            from: base.primary.clone(),
            to: now.primary.clone(),
        });
    }
    if reasons.is_empty() {
        reasons.push(if step.is_some_and(|r| r >= moved::STEP) {
            CompareReason::Unexplained
        } else {
            CompareReason::NothingRegressed
        });
    }
    RunComparison {
        changes,
        step: match step {
            Some(by) if by.abs() >= moved::STEP => StepChange::Changed { by },
            Some(by) => StepChange::Unchanged { by },
            None => StepChange::NotComparable,
        },
        step_figure,
        reasons,
    }
}

fn missing(v: &FigureValue) -> bool {
    match v {
        FigureValue::Text { text } => text.is_empty(),
        FigureValue::Number { value, .. } => value.is_none(),
        FigureValue::Share { share } => share.is_none(),
        FigureValue::Shape { .. } => false,
        FigureValue::Finding { id } => id.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_with_nan_inf_or_a_negative_figure_is_refused_naming_the_line() {
        for (text, line) in [
            ("gpu = H200\nmean_step_ms = NaN\n", "line 2: `mean_step_ms`"),
            ("power_busy_w = inf\n", "line 1: `power_busy_w`"),
            (
                "gpu = H200\n\nutil_mean_pct = -3\n",
                "line 3: `util_mean_pct`",
            ),
        ] {
            let e = BaselineCard::parse(text).unwrap_err().to_string();
            assert!(e.contains(line), "{e}");
            assert!(e.contains("must be a finite number of at least 0"), "{e}");
        }
        assert_eq!(
            BaselineCard::parse("mean_step_ms = 28.5\n")
                .unwrap()
                .steady_step_ms,
            Some(28.5)
        );
    }

    #[test]
    fn a_figure_differs_when_a_fact_changed_or_a_number_moved() {
        for moved in [
            Delta::Changed,
            Delta::Relative { by: 9.51 },
            Delta::Relative { by: -0.12 },
            Delta::Points { by: 91.0 },
            Delta::Points { by: -3.0 },
        ] {
            assert!(moved.differs(), "{moved:?}");
        }
        for still in [
            Delta::Same,
            Delta::Unknown,
            Delta::None,
            Delta::Relative { by: 0.004 },
            Delta::Relative { by: -0.004 },
            Delta::Points { by: 0.4 },
        ] {
            assert!(!still.differs(), "{still:?}");
        }
    }

    #[test]
    fn curve_shapes_survive_the_card_file() {
        for s in [
            CurveShape::Steady,
            CurveShape::Sawtooth,
            CurveShape::DipsEvery { period_s: 12.5 },
        ] {
            assert_eq!(parse_shape(&shape_text(Some(s))), Ok(Some(s)));
        }
        assert_eq!(parse_shape(""), Ok(None));
        assert!(parse_shape("wobbly").is_err());
        assert!(parse_shape("dips every NaN s").is_err());
    }
}
