//! The headline figures worded: label and value rows, in the diagnosis's order.

use checkup_model::{
    BusySource, Diagnosis, Headline, Language, LedgerBasis, LostShareOf, StepBasis,
};

use crate::findings::{ms, title};
use crate::{pct, Language::*};

/// (label, value) rows: the step time, the GPU's busy share, then each lost-time finding's
/// time per step.
pub fn rows(h: &Headline, d: &Diagnosis, l: Language) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(s) = h.step {
        let label = match l {
            En => "Step time",
            Zh => "步骤时间",
        };
        let value = match (s.basis, s.median_ms, l) {
            (StepBasis::UnprofiledSteps, Some(m), En) => format!(
                "{} ms mean, {} ms median, over the unprofiled steps",
                ms(s.mean_ms),
                ms(m)
            ),
            (StepBasis::UnprofiledSteps, Some(m), Zh) => {
                format!(
                    "平均 {} ms，中位数 {} ms（未分析步骤）",
                    ms(s.mean_ms),
                    ms(m)
                )
            }
            (_, _, En) => format!(
                "{} ms, over the profiled steps (the profiler slowed their host side)",
                ms(s.mean_ms)
            ),
            (_, _, Zh) => format!("{} ms（已分析步骤，分析器使其主机端变慢）", ms(s.mean_ms)),
        };
        out.push((label.to_owned(), value));
    }
    if let Some(b) = h.gpu_busy {
        let label = match l {
            En => "GPU busy",
            Zh => "GPU 忙碌",
        };
        let value = match (b.source, b.ms_per_step, l) {
            (BusySource::Trace, Some(work), En) => {
                format!("{}% of the step ({} ms of work)", pct(b.share), ms(work))
            }
            (BusySource::Trace, Some(work), Zh) => {
                format!("步骤的 {}%（{} ms 的工作）", pct(b.share), ms(work))
            }
            (_, _, En) => format!(
                "{}% (GPU-Util: the share of time any kernel ran)",
                pct(b.share)
            ),
            (_, _, Zh) => format!("{}%（GPU-Util：有内核运行的时间占比）", pct(b.share)),
        };
        out.push((label.to_owned(), value));
    }
    for lost in &h.lost {
        let Some(f) = d.findings.get(lost.finding) else {
            continue;
        };
        let label = match l {
            En => format!("Lost to: {}", title(&f.cause, l)),
            Zh => format!("损失于：{}", title(&f.cause, l)),
        };
        let of = match (lost.of, l) {
            (LostShareOf::Ledger(LedgerBasis::WholeRun), En) => {
                "of the unprofiled steps after warm-up"
            }
            (LostShareOf::Ledger(LedgerBasis::WholeRun), Zh) => "热身后未分析步骤的",
            (LostShareOf::Ledger(LedgerBasis::ProfiledSteps), En) => "of the profiled steps",
            (LostShareOf::Ledger(LedgerBasis::ProfiledSteps), Zh) => "已分析步骤的",
            (LostShareOf::Ledger(LedgerBasis::SampledSeconds), En) => "of the sampled time",
            (LostShareOf::Ledger(LedgerBasis::SampledSeconds), Zh) => "采样时间的",
            (LostShareOf::Step, En) => "of the step",
            (LostShareOf::Step, Zh) => "步骤的",
        };
        let value = match (lost.ms_per_step, l) {
            (Some(v), En) => format!("{} ms per step ({}% {of})", ms(v), pct(lost.share)),
            (Some(v), Zh) => format!("每步 {} ms（{of} {}%）", ms(v), pct(lost.share)),
            (None, En) => format!("{}% {of}", pct(lost.share)),
            (None, Zh) => format!("{of} {}%", pct(lost.share)),
        };
        out.push((label, value));
    }
    out
}
