//! The baseline card: a few figures of a healthy run, saved as a small text file next to the
//! training code, and the comparison of a later run against it in plain words.

use std::fmt::Write;

use checkup_model::{
    CompareReason, CurveShape, Delta, Diagnosis, Family, Figure, FigureChange, FigureUnit,
    FigureValue, RunComparison, StepChange,
};

use crate::ReportError;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct BaselineCard {
    pub gpu: String,
    pub driver: String,
    pub cuda: String,
    /// Mean step time over the engine's steady window (warm-up and profiled steps left
    /// out), the same figure the diagnosis uses.
    pub mean_step_ms: Option<f64>,
    pub util_mean_pct: Option<f64>,
    pub util_shape: Option<CurveShape>,
    pub power_mean_w: Option<f64>,
    pub power_limit_w: Option<f64>,
    pub power_shape: Option<CurveShape>,
    /// Share of step time the GPU waits for the DataLoader (0..1).
    pub data_loading_share: Option<f64>,
    /// GPU idle time per kernel: the mean gap between kernels.
    pub mean_kernel_gap_us: Option<f64>,
    /// Exposed communication share, multi-GPU runs only.
    pub comm_share: Option<f64>,
    /// Host CPU use over the steady window, all cores, percent.
    pub host_cpu_pct: Option<f64>,
    pub primary: String,
}

impl BaselineCard {
    pub fn from_diagnosis(d: &Diagnosis) -> Self {
        let rank = d.diagnosed_rank_summary();
        let gpu_stats = d.diagnosed_samples();
        // The engine's steady window, not a window of the card's own: the profiled steps
        // run slower and warm-up steps far slower.
        let mean_step_ms = d
            .step_timing
            .iter()
            .find(|t| Some(t.rank) == d.diagnosed_rank)
            .or(d.step_timing.first())
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
            .or_else(|| d.step_timing.first().map(|t| t.data_wait_share));
        BaselineCard {
            gpu: d.facts.gpu_name.clone().unwrap_or_default(),
            driver: d.facts.driver_version.clone().unwrap_or_default(),
            cuda: d
                .facts
                .cuda_runtime_version
                .clone()
                .or(d.facts.cuda_driver_version.clone())
                .unwrap_or_default(),
            mean_step_ms,
            util_mean_pct: gpu_stats.and_then(|g| g.util_gpu_mean),
            util_shape: gpu_stats.map(|g| shape(g.sawtooth, g.dip_period_s)),
            power_mean_w: gpu_stats.and_then(|g| g.power_w_mean),
            power_limit_w: gpu_stats.and_then(|g| g.power_limit_w),
            power_shape: gpu_stats.map(|g| shape(g.sawtooth, g.dip_period_s)),
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

    /// The card as `key = value` lines, meant to be committed beside the training code.
    pub fn to_text(&self) -> String {
        let mut s = String::from(
            "# GPU Checkup baseline card: compare a run with `checkup compare RUN THIS_FILE`\n",
        );
        let opt = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.4}"));
        let _ = writeln!(s, "gpu = {}", self.gpu);
        let _ = writeln!(s, "driver = {}", self.driver);
        let _ = writeln!(s, "cuda = {}", self.cuda);
        let _ = writeln!(s, "mean_step_ms_steady = {}", opt(self.mean_step_ms));
        let _ = writeln!(s, "util_mean_pct = {}", opt(self.util_mean_pct));
        let _ = writeln!(s, "util_shape = {}", shape_text(self.util_shape));
        let _ = writeln!(s, "power_mean_w = {}", opt(self.power_mean_w));
        let _ = writeln!(s, "power_limit_w = {}", opt(self.power_limit_w));
        let _ = writeln!(s, "power_shape = {}", shape_text(self.power_shape));
        let _ = writeln!(s, "data_loading_share = {}", opt(self.data_loading_share));
        let _ = writeln!(s, "mean_kernel_gap_us = {}", opt(self.mean_kernel_gap_us));
        let _ = writeln!(s, "comm_share = {}", opt(self.comm_share));
        let _ = writeln!(s, "host_cpu_pct = {}", opt(self.host_cpu_pct));
        let _ = writeln!(s, "primary = {}", self.primary);
        s
    }

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
            seen_any = true;
            match key {
                "gpu" => card.gpu = value.into(),
                "driver" => card.driver = value.into(),
                "cuda" => card.cuda = value.into(),
                k if k.starts_with("mean_step_ms") => card.mean_step_ms = num()?,
                "util_mean_pct" => card.util_mean_pct = num()?,
                "util_shape" => {
                    card.util_shape = parse_shape(value).map_err(|e| line_err(i, key, e))?
                }
                "power_mean_w" => card.power_mean_w = num()?,
                "power_limit_w" => card.power_limit_w = num()?,
                "power_shape" => {
                    card.power_shape = parse_shape(value).map_err(|e| line_err(i, key, e))?
                }
                "data_loading_share" => card.data_loading_share = num()?,
                "mean_kernel_gap_us" => card.mean_kernel_gap_us = num()?,
                "comm_share" => card.comm_share = num()?,
                "host_cpu_pct" => card.host_cpu_pct = num()?,
                "primary" => card.primary = value.into(),
                // Cards written by newer versions may carry more figures.
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

/// A run's card against the baseline's: each figure, the step-time change and the layer
/// whose figure moved most.
pub fn compare(now: &BaselineCard, base: &BaselineCard) -> RunComparison {
    let mut changes = Vec::new();
    let number = |value: Option<f64>, unit| FigureValue::Number { value, unit };
    let relative =
        |b: Option<f64>, n: Option<f64>| rel(b, n).map_or(Delta::None, |by| Delta::Relative { by });
    let points = |b: Option<f64>, n: Option<f64>, scale: f64| match (b, n) {
        (Some(b), Some(n)) => Delta::Points {
            by: (n - b) * scale,
        },
        _ => Delta::None,
    };
    // A fact missing on either side (a bare trace knows no driver) is unknown, not a change.
    let mut env_changes = Vec::new();
    for (figure, b, n) in [
        (Figure::Gpu, &base.gpu, &now.gpu),
        (Figure::Driver, &base.driver, &now.driver),
        (Figure::Cuda, &base.cuda, &now.cuda),
    ] {
        let delta = if b.is_empty() || n.is_empty() {
            Delta::Unknown
        } else if b == n {
            Delta::Same
        } else {
            env_changes.push((figure, b.clone(), n.clone()));
            Delta::Changed
        };
        changes.push(FigureChange {
            figure,
            baseline: FigureValue::Text { text: b.clone() },
            current: FigureValue::Text { text: n.clone() },
            delta,
        });
    }
    let step = rel(base.mean_step_ms, now.mean_step_ms);
    changes.push(FigureChange {
        figure: Figure::MeanStepTime,
        baseline: number(base.mean_step_ms, FigureUnit::Ms),
        current: number(now.mean_step_ms, FigureUnit::Ms),
        delta: relative(base.mean_step_ms, now.mean_step_ms),
    });
    changes.push(FigureChange {
        figure: Figure::GpuUtil,
        baseline: number(base.util_mean_pct, FigureUnit::Percent),
        current: number(now.util_mean_pct, FigureUnit::Percent),
        delta: relative(base.util_mean_pct, now.util_mean_pct),
    });
    if let (Some(b), Some(n)) = (base.util_shape, now.util_shape) {
        changes.push(FigureChange {
            figure: Figure::UtilCurve,
            baseline: FigureValue::Shape { shape: b },
            current: FigureValue::Shape { shape: n },
            delta: if b == n { Delta::Same } else { Delta::Changed },
        });
    }
    changes.push(FigureChange {
        figure: Figure::Power,
        baseline: number(base.power_mean_w, FigureUnit::Watts),
        current: number(now.power_mean_w, FigureUnit::Watts),
        delta: relative(base.power_mean_w, now.power_mean_w),
    });
    changes.push(FigureChange {
        figure: Figure::DataLoadingShare,
        baseline: FigureValue::Share {
            share: base.data_loading_share,
        },
        current: FigureValue::Share {
            share: now.data_loading_share,
        },
        delta: points(base.data_loading_share, now.data_loading_share, 100.0),
    });
    changes.push(FigureChange {
        figure: Figure::MeanKernelGap,
        baseline: number(base.mean_kernel_gap_us, FigureUnit::Us),
        current: number(now.mean_kernel_gap_us, FigureUnit::Us),
        delta: relative(base.mean_kernel_gap_us, now.mean_kernel_gap_us),
    });
    changes.push(FigureChange {
        figure: Figure::HostCpu,
        baseline: number(base.host_cpu_pct, FigureUnit::Percent),
        current: number(now.host_cpu_pct, FigureUnit::Percent),
        delta: points(base.host_cpu_pct, now.host_cpu_pct, 1.0),
    });
    if base.comm_share.is_some() || now.comm_share.is_some() {
        changes.push(FigureChange {
            figure: Figure::CommunicationShare,
            baseline: FigureValue::Share {
                share: base.comm_share,
            },
            current: FigureValue::Share {
                share: now.comm_share,
            },
            delta: points(base.comm_share, now.comm_share, 100.0),
        });
    }

    // Name the layer whose figure moved most, in the order a checkup looks at them.
    let rose = |b: Option<f64>, n: Option<f64>, by: f64| matches!((b, n), (Some(b), Some(n)) if n - b >= by);
    let mut reasons = Vec::new();
    if !env_changes.is_empty() {
        reasons.push(CompareReason::EnvironmentChanged {
            changes: env_changes,
        });
    }
    if rose(base.data_loading_share, now.data_loading_share, 0.10) {
        reasons.push(CompareReason::InputRegressed {
            from: base.data_loading_share,
            to: now.data_loading_share,
        });
    }
    if rose(base.comm_share, now.comm_share, 0.10) {
        reasons.push(CompareReason::CommunicationRegressed {
            from: base.comm_share,
            to: now.comm_share,
        });
    }
    // A quarter of the host's cores busier: the loop and its workers compete for CPU.
    if rose(base.host_cpu_pct, now.host_cpu_pct, 25.0) {
        reasons.push(CompareReason::HostCpuBusier {
            from: base.host_cpu_pct,
            to: now.host_cpu_pct,
        });
    }
    if rel(base.mean_kernel_gap_us, now.mean_kernel_gap_us).is_some_and(|r| r > 0.5)
        && reasons.is_empty()
    {
        reasons.push(CompareReason::HostFeedsSlower {
            from: base.mean_kernel_gap_us,
            to: now.mean_kernel_gap_us,
        });
    }
    if base.primary != now.primary && reasons.is_empty() {
        reasons.push(CompareReason::PrimaryMoved {
            from: base.primary.clone(),
            to: now.primary.clone(),
        });
    }
    if reasons.is_empty() {
        reasons.push(if step.is_some_and(|r| r >= 0.05) {
            CompareReason::Unexplained
        } else {
            CompareReason::NothingRegressed
        });
    }
    RunComparison {
        changes,
        step: match step {
            Some(r) if r.abs() >= 0.05 => StepChange::Changed { by: r },
            Some(_) => StepChange::Unchanged,
            None => StepChange::NotComparable,
        },
        reasons,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_with_nan_inf_or_a_negative_figure_is_refused_naming_the_line() {
        for (text, line) in [
            ("gpu = H200\nmean_step_ms = NaN\n", "line 2: `mean_step_ms`"),
            ("power_mean_w = inf\n", "line 1: `power_mean_w`"),
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
                .mean_step_ms,
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
