//! The baseline card: a few figures of a healthy run, saved as a small text file next to the
//! training code, and the comparison of a later run against it in plain words.

use std::fmt::Write;

use checkup_model::{ids, Diagnosis};

use crate::ReportError;

/// How many steady steps the card's mean step time covers.
pub const CARD_STEPS: usize = 20;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct BaselineCard {
    pub gpu: String,
    pub driver: String,
    pub cuda: String,
    /// Mean of the first 20 steady steps.
    pub mean_step_ms: Option<f64>,
    pub util_mean_pct: Option<f64>,
    /// "steady", "sawtooth" or "dips every N s".
    pub util_shape: String,
    pub power_mean_w: Option<f64>,
    pub power_limit_w: Option<f64>,
    pub power_shape: String,
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
        let series = d.diagnosed_steps();
        let mean_step_ms = series
            .map(|s| {
                s.duration_ms
                    .iter()
                    .skip(s.warmup_steps as usize)
                    .take(CARD_STEPS)
                    .map(|v| *v as f64)
                    .collect::<Vec<_>>()
            })
            .filter(|v| !v.is_empty())
            .map(|v| v.iter().sum::<f64>() / v.len() as f64)
            .or_else(|| rank.map(|r| r.gpu_step_us / 1e3).filter(|v| *v > 0.0));
        let shape = |sawtooth: bool, period: Option<f64>| match (sawtooth, period) {
            (_, Some(p)) => format!("dips every {p:.1} s"),
            (true, None) => "sawtooth".to_owned(),
            _ => "steady".to_owned(),
        };
        let data_loading = d
            .finding(ids::DATA_LOADING)
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
            util_shape: gpu_stats.map_or_else(String::new, |g| shape(g.sawtooth, g.dip_period_s)),
            power_mean_w: gpu_stats.and_then(|g| g.power_w_mean),
            power_limit_w: gpu_stats.and_then(|g| g.power_limit_w),
            power_shape: gpu_stats.map_or_else(String::new, |g| shape(g.sawtooth, g.dip_period_s)),
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
        let _ = writeln!(
            s,
            "mean_step_ms_first_{CARD_STEPS}_steady = {}",
            opt(self.mean_step_ms)
        );
        let _ = writeln!(s, "util_mean_pct = {}", opt(self.util_mean_pct));
        let _ = writeln!(s, "util_shape = {}", self.util_shape);
        let _ = writeln!(s, "power_mean_w = {}", opt(self.power_mean_w));
        let _ = writeln!(s, "power_limit_w = {}", opt(self.power_limit_w));
        let _ = writeln!(s, "power_shape = {}", self.power_shape);
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
                value.parse().map(Some).map_err(|_| {
                    ReportError::Baseline(format!(
                        "line {}: `{key}` is not a number: `{value}`",
                        i + 1
                    ))
                })
            };
            seen_any = true;
            match key {
                "gpu" => card.gpu = value.into(),
                "driver" => card.driver = value.into(),
                "cuda" => card.cuda = value.into(),
                k if k.starts_with("mean_step_ms") => card.mean_step_ms = num()?,
                "util_mean_pct" => card.util_mean_pct = num()?,
                "util_shape" => card.util_shape = value.into(),
                "power_mean_w" => card.power_mean_w = num()?,
                "power_limit_w" => card.power_limit_w = num()?,
                "power_shape" => card.power_shape = value.into(),
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

/// One figure of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub figure: &'static str,
    pub baseline: String,
    pub current: String,
    pub change: String,
}

impl Change {
    /// Whether the figure moved: an environment fact changed, or a number by at least the
    /// precision it is shown with. Read before the comparison is localised.
    pub fn differs(&self) -> bool {
        match self.change.as_str() {
            "" | "same" | "unknown" => false,
            c => !(c.starts_with("+0") || c.starts_with("-0")),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub changes: Vec<Change>,
    /// What changed, in plain words.
    pub summary: String,
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{:.0}%", v * 100.0))
}

fn rel(base: Option<f64>, now: Option<f64>) -> Option<f64> {
    match (base, now) {
        (Some(b), Some(n)) if b.abs() > 1e-9 => Some((n - b) / b),
        _ => None,
    }
}

pub fn compare(now: &BaselineCard, base: &BaselineCard) -> Comparison {
    let mut changes = Vec::new();
    let num =
        |v: Option<f64>, unit: &str| v.map_or_else(|| "–".into(), |v| format!("{v:.1} {unit}"));
    let signed = |r: Option<f64>| r.map_or_else(String::new, |r| format!("{:+.0}%", r * 100.0));
    let points = |b: Option<f64>, n: Option<f64>| match (b, n) {
        (Some(b), Some(n)) => format!("{:+.0} points", (n - b) * 100.0),
        _ => String::new(),
    };
    // A fact missing on either side (a bare trace knows no driver) is unknown, not a change.
    let mut env_changes = Vec::new();
    for (figure, b, n) in [
        ("GPU", &base.gpu, &now.gpu),
        ("driver", &base.driver, &now.driver),
        ("CUDA", &base.cuda, &now.cuda),
    ] {
        let change = if b.is_empty() || n.is_empty() {
            "unknown"
        } else if b == n {
            "same"
        } else {
            env_changes.push(format!("{figure} {b} → {n}"));
            "changed"
        };
        changes.push(Change {
            figure,
            baseline: b.clone(),
            current: n.clone(),
            change: change.into(),
        });
    }
    let step = rel(base.mean_step_ms, now.mean_step_ms);
    changes.push(Change {
        figure: "mean step time",
        baseline: num(base.mean_step_ms, "ms"),
        current: num(now.mean_step_ms, "ms"),
        change: signed(step),
    });
    changes.push(Change {
        figure: "GPU util",
        baseline: num(base.util_mean_pct, "%"),
        current: num(now.util_mean_pct, "%"),
        change: signed(rel(base.util_mean_pct, now.util_mean_pct)),
    });
    changes.push(Change {
        figure: "util curve",
        baseline: base.util_shape.clone(),
        current: now.util_shape.clone(),
        change: if base.util_shape == now.util_shape {
            "same".into()
        } else {
            "changed".into()
        },
    });
    changes.push(Change {
        figure: "power",
        baseline: num(base.power_mean_w, "W"),
        current: num(now.power_mean_w, "W"),
        change: signed(rel(base.power_mean_w, now.power_mean_w)),
    });
    changes.push(Change {
        figure: "data-loading share",
        baseline: pct(base.data_loading_share),
        current: pct(now.data_loading_share),
        change: points(base.data_loading_share, now.data_loading_share),
    });
    changes.push(Change {
        figure: "mean kernel gap",
        baseline: num(base.mean_kernel_gap_us, "µs"),
        current: num(now.mean_kernel_gap_us, "µs"),
        change: signed(rel(base.mean_kernel_gap_us, now.mean_kernel_gap_us)),
    });
    let cpu_points = match (base.host_cpu_pct, now.host_cpu_pct) {
        (Some(b), Some(n)) => format!("{:+.0} points", n - b),
        _ => String::new(),
    };
    changes.push(Change {
        figure: "host CPU",
        baseline: num(base.host_cpu_pct, "%"),
        current: num(now.host_cpu_pct, "%"),
        change: cpu_points,
    });
    if base.comm_share.is_some() || now.comm_share.is_some() {
        changes.push(Change {
            figure: "communication share",
            baseline: pct(base.comm_share),
            current: pct(now.comm_share),
            change: points(base.comm_share, now.comm_share),
        });
    }

    // Name the layer whose figure moved most, in the order a checkup looks at them.
    let rose = |b: Option<f64>, n: Option<f64>, by: f64| matches!((b, n), (Some(b), Some(n)) if n - b >= by);
    let mut reasons: Vec<String> = Vec::new();
    if !env_changes.is_empty() {
        reasons.push(format!(
            "the environment changed ({})",
            env_changes.join(", ")
        ));
    }
    if rose(base.data_loading_share, now.data_loading_share, 0.10) {
        reasons.push(format!(
            "data-loading share {} → {}: the input pipeline regressed",
            pct(base.data_loading_share),
            pct(now.data_loading_share)
        ));
    }
    if rose(base.comm_share, now.comm_share, 0.10) {
        reasons.push(format!(
            "communication share {} → {}: communication regressed",
            pct(base.comm_share),
            pct(now.comm_share)
        ));
    }
    // A quarter of the host's cores busier: the loop and its workers compete for CPU.
    if rose(base.host_cpu_pct, now.host_cpu_pct, 25.0) {
        reasons.push(format!(
            "host CPU {} → {}: the host's CPU is far busier (other processes, or the training's own workers)",
            num(base.host_cpu_pct, "%"),
            num(now.host_cpu_pct, "%")
        ));
    }
    if rel(base.mean_kernel_gap_us, now.mean_kernel_gap_us).is_some_and(|r| r > 0.5)
        && reasons.is_empty()
    {
        reasons.push(format!("mean kernel gap {} → {}: the host feeds the GPU more slowly (launch overhead or syncs)", num(base.mean_kernel_gap_us, "µs"), num(now.mean_kernel_gap_us, "µs")));
    }
    if base.primary != now.primary && reasons.is_empty() {
        reasons.push(format!(
            "the primary bottleneck moved from {} to {}",
            base.primary, now.primary
        ));
    }
    let step_words = match step {
        Some(r) if r.abs() >= 0.05 => format!("step time {:+.0}%", r * 100.0),
        Some(_) => "step time unchanged (within 5%)".into(),
        None => "step time not comparable".into(),
    };
    let summary = if reasons.is_empty() {
        if step.is_some_and(|r| r >= 0.05) {
            format!("{step_words}, with no input, communication or launch figure explaining it: look at the findings of the current run")
        } else {
            format!("{step_words}; no figure regressed")
        }
    } else {
        format!("{step_words}, {}", reasons.join("; "))
    };
    Comparison { changes, summary }
}

#[cfg(test)]
mod change_tests {
    use super::Change;

    fn change(text: &str) -> Change {
        Change {
            figure: "f",
            baseline: String::new(),
            current: String::new(),
            change: text.into(),
        }
    }

    #[test]
    fn a_figure_differs_when_a_fact_changed_or_a_number_moved() {
        for moved in ["changed", "+951%", "-12%", "+91 points", "-3 points"] {
            assert!(change(moved).differs(), "{moved}");
        }
        for still in ["same", "unknown", "", "+0%", "-0%", "+0 points"] {
            assert!(!change(still).differs(), "{still}");
        }
    }
}
