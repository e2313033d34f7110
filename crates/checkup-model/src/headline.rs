//! The figures a diagnosis is read by first: how long a step takes, how much of it the GPU
//! works, and the time each lost-time finding costs per step. The report's first page and
//! the app's verdict show them; every one is read from the diagnosis, never estimated anew.

use crate::Communication;
use serde::{Deserialize, Serialize};

use crate::{Cause, Diagnosis, LedgerBasis, StepBasis};

/// The headline figures of a diagnosis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    /// The step time.
    pub step: Option<StepTime>,
    /// How much of the step the GPU works.
    pub gpu_busy: Option<GpuBusy>,
    /// Lost-time findings, in the diagnosis's order.
    pub lost: Vec<LostTime>,
}

/// A step's time and what it was measured on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepTime {
    /// Mean step time.
    pub mean_ms: f64,
    /// None from a trace alone (its few profiled steps).
    pub median_ms: Option<f64>,
    /// Which steps.
    pub basis: StepBasis,
}

/// How much of the step the GPU works.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GpuBusy {
    /// 0..=1 of the step.
    pub share: f64,
    /// The GPU's own work per step, when a trace measured it.
    pub ms_per_step: Option<f64>,
    /// What measured it.
    pub source: BusySource,
}

/// Where the GPU's busy share came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BusySource {
    /// Kernels, copies and collectives in the trace, against the step time.
    Trace,
    /// NVML's utilisation (the share of time any kernel ran), when there is no trace.
    Utilisation,
}

/// The time one lost-time finding costs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LostTime {
    /// Index into `Diagnosis::findings`.
    pub finding: usize,
    /// Its share of what `of` says, 0..=1.
    pub share: f64,
    /// What the share is of.
    pub of: LostShareOf,
    /// The share of the step time, in ms; None without a step time.
    pub ms_per_step: Option<f64>,
}

/// What a lost-time share is a share of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "of", content = "basis", rename_all = "snake_case")]
pub enum LostShareOf {
    /// The ledger's steady time (its warm-up and the checkup's profiler left out): the parts
    /// tied to the finding, each second counted once, so the rows never add up past 100 %.
    Ledger(LedgerBasis),
    /// The finding's own share of a step, where the diagnosis has no ledger (stored before
    /// it had one); two findings may count the same idle time.
    Step,
}

impl Diagnosis {
    /// The headline figures, read from the diagnosis.
    pub fn headline(&self) -> Headline {
        let step = match self.diagnosed_timing().filter(|t| t.mean_step_ms > 0.0) {
            Some(t) => Some(StepTime {
                mean_ms: t.mean_step_ms,
                median_ms: Some(t.median_step_ms),
                basis: StepBasis::UnprofiledSteps,
            }),
            None => self
                .diagnosed_rank_summary()
                .filter(|r| r.profiled_step_us > 0.0)
                .map(|r| StepTime {
                    mean_ms: r.profiled_step_us / 1e3,
                    median_ms: None,
                    basis: StepBasis::ProfiledSteps,
                }),
        };
        let traced = self
            .diagnosed_rank_summary()
            .filter(|r| r.gpu_busy_per_step_us > 0.0);
        let gpu_busy = match (traced, step) {
            (Some(r), Some(s)) => Some(GpuBusy {
                share: (r.gpu_busy_per_step_us / 1e3 / s.mean_ms).min(1.0),
                ms_per_step: Some(r.gpu_busy_per_step_us / 1e3),
                source: BusySource::Trace,
            }),
            _ => self
                .diagnosed_samples()
                .and_then(|s| s.util_gpu_mean)
                .map(|u| GpuBusy {
                    share: (u / 100.0).clamp(0.0, 1.0),
                    ms_per_step: None,
                    source: BusySource::Utilisation,
                }),
        };
        let lost = match self.ledger.as_ref().filter(|l| l.steady_s() > 0.0) {
            Some(ledger) => ledger
                .steady_shares()
                .into_iter()
                .filter(|&(i, share)| {
                    // Shown as a whole percent: a row that reads 0 % says nothing.
                    share >= 0.005
                        && self
                            .findings
                            .get(i)
                            .is_some_and(|f| f.family().is_lost_time())
                })
                .map(|(i, share)| LostTime {
                    finding: i,
                    share,
                    of: LostShareOf::Ledger(ledger.basis),
                    ms_per_step: step.map(|s| s.mean_ms * share),
                })
                .collect(),
            None => self.lost_by_finding_shares(step),
        };
        Headline {
            step,
            gpu_busy,
            lost,
        }
    }

    /// Each lost-time finding's own share of a step: what a diagnosis without a ledger has.
    fn lost_by_finding_shares(&self, step: Option<StepTime>) -> Vec<LostTime> {
        self.findings
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.family().is_lost_time()
                    && f.share > 0.0
                    // A rank waiting for a straggler is the straggler's time, counted there,
                    // unless the straggler's extra work is the cause.
                    && (f.is_explained_straggler()
                        || !matches!(f.cause, Cause::Communication(Communication::Straggler { .. })))
            })
            .map(|(i, f)| LostTime {
                finding: i,
                share: f.share,
                of: LostShareOf::Step,
                ms_per_step: step.map(|s| s.mean_ms * f.share),
            })
            .collect()
    }
}
