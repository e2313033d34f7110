//! The training processes' host memory creeping up over the run (`memory/host_creep`): a
//! per-step history kept on the host, which a longer run turns into the host's OOM killer.
//! Read from the host samples' RSS of the training's process tree, by tenths of its steps.

use checkup_model::{
    Cause, Comparison, EvidenceKey as K, Finding, Fix, Memory, Severity, Source, Unit,
};
use checkup_model::{MemoryEvidence, MemoryFix, SharedEvidence};

use crate::analysis::stats::kendall_tau;
use crate::analysis::trends::StepTrend;
use crate::diagnosis::{ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    cx.step_trend().and_then(|t| finding(cx, t)).into()
}

fn finding(cx: &Ctx, trend: &StepTrend) -> Option<Finding> {
    let th = cx.th;
    // Every tenth read: a trend from a few readings would be a guess.
    let rss: Vec<f64> = trend
        .host_rss_tenths
        .iter()
        .copied()
        .collect::<Option<_>>()?;
    let (first, last) = (*rss.first()?, *rss.last()?);
    let grew = last - first;
    if grew < th.host_creep_mib
        || last < first * (1.0 + th.host_rss_growth_share)
        || kendall_tau(&rss) < th.slowdown_consistency
    {
        return None;
    }
    let tenths = &trend.tenths;
    let middle = |k: usize| (tenths[k].start_s + tenths[k].end_s) / 2.0;
    let minutes = (middle(tenths.len() - 1) - middle(0)) / 60.0;
    let run_minutes = (tenths[tenths.len() - 1].end_s - tenths[0].start_s) / 60.0;
    if minutes <= 0.0 || run_minutes < th.host_creep_min_minutes {
        return None;
    }
    let mib_per_min = grew / minutes;
    Some(Finding {
        gains: Default::default(),
        cause: Cause::Memory(Memory::HostCreep {
            from_mib: first,
            to_mib: last,
            mib_per_min,
        }),
        severity: if mib_per_min >= th.host_creep_major_mib_per_min {
            Severity::Major
        } else {
            Severity::Minor
        },
        confidence: confidence::MEASURED,
        share: 0.0,
        evidence: vec![
            ev(
                K::Shared(SharedEvidence::HostRssGrowth),
                grew,
                Unit::Mib,
                Some((Comparison::AtLeast, th.host_creep_mib)),
                Source::HostSamples,
            ),
            ev(
                K::Memory(MemoryEvidence::HostRssGrowthRate),
                mib_per_min / 1024.0,
                Unit::GibPerMin,
                None,
                Source::HostSamples,
            ),
        ],
        fixes: vec![Fix::Memory(MemoryFix::BoundHostHistory)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analysis::trends::Tenth, diagnosis::rules::test_cx::Fixture};

    /// Ten tenths of 6 s each holding `rss` MiB.
    fn trend(rss: [f64; 10]) -> StepTrend {
        StepTrend {
            tenths: (0..10)
                .map(|k| Tenth {
                    first_step: 100 * k as u64,
                    middle_step: 100 * k as u64 + 50,
                    start_s: 6.0 * k as f64,
                    end_s: 6.0 * (k + 1) as f64,
                    step_ms: 60.0,
                    data_wait_ms: 0.1,
                    host_ms: 1.0,
                    mean_step_ms: 60.0,
                    mean_data_wait_ms: 0.1,
                    mean_host_ms: 1.0,
                })
                .collect(),
            host_rss_mib: Some([rss[0], rss[9]]),
            host_rss_tenths: rss.iter().map(|r| Some(*r)).collect(),
            earliest_step_ms: None,
        }
    }

    #[test]
    fn host_memory_growing_steadily_by_gigabytes_is_a_creep_with_its_pace() {
        let rss = std::array::from_fn(|k| 1000.0 + 1500.0 * k as f64);
        let b = Fixture::default();
        let f = finding(&b.cx(), &trend(rss)).unwrap();
        let Cause::Memory(Memory::HostCreep {
            from_mib,
            to_mib,
            mib_per_min,
        }) = f.cause
        else {
            panic!()
        };
        assert_eq!((from_mib, to_mib), (1000.0, 14500.0));
        // 13,500 MiB between the first and last tenths' middles, 54 s apart.
        assert!((mib_per_min - 13500.0 / 0.9).abs() < 1e-6, "{mib_per_min}");
        assert_eq!(f.severity, Severity::Major);
        assert_eq!(f.fixes, [Fix::Memory(MemoryFix::BoundHostHistory)]);
    }

    #[test]
    fn less_than_a_gigabyte_a_level_reached_early_or_a_missing_tenth_is_no_creep() {
        let b = Fixture::default();
        let small = std::array::from_fn(|k| 1000.0 + 100.0 * k as f64);
        assert!(finding(&b.cx(), &trend(small)).is_none());
        // Workers forked in the first tenth, then flat: a level, not a trend.
        let mut level = [9000.0; 10];
        level[0] = 1000.0;
        assert!(finding(&b.cx(), &trend(level)).is_none());
        let mut gap = trend(std::array::from_fn(|k| 1000.0 + 1500.0 * k as f64));
        gap.host_rss_tenths[4] = None;
        assert!(finding(&b.cx(), &gap).is_none());
    }
}
