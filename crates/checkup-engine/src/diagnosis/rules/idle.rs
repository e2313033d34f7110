//! The GPU's idle time that no lost-time finding accounts for. Without it a run recorded as
//! samples only (live sampling, an attached job) with the GPU 95 % idle would read
//! "compute-bound": the verdict for a busy GPU.

use checkup_model::{Cause, EvidenceKey as K, Family, Finding, Recorded, Source, Unit};

use crate::diagnosis::thresholds::confidence;
use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};

pub fn rule(cx: &Ctx, found: &[Finding]) -> Outcome {
    finding(cx, found).into()
}

fn finding(cx: &Ctx, found: &[Finding]) -> Option<Finding> {
    let th = cx.th;
    let (busy, method) = cx.gpu_busy()?;
    // Throttling slows busy time; it explains none of the idle time.
    let explained: f64 = found
        .iter()
        .filter(|f| f.family().is_lost_time() && f.family() != Family::Throttling)
        .map(|f| f.share)
        .sum();
    let idle = (1.0 - busy).max(0.0);
    let share = idle - explained;
    if busy >= th.gpu_busy_high || share < th.significant_share {
        return None;
    }
    let recorded = match (cx.timing.is_some(), cx.rank.is_some()) {
        (false, false) => Recorded::SamplesOnly,
        (true, false) => Recorded::StepsNoTrace,
        (false, true) => Recorded::TraceNoSteps,
        (true, true) => Recorded::StepsAndTrace,
    };
    let mut evidence = vec![
        share_ev(
            K::GpuBusyShare,
            busy,
            Some(th.gpu_busy_high),
            Source::Busy { method },
        ),
        share_ev(
            K::UnexplainedIdle,
            share,
            Some(th.significant_share),
            Source::ThisDiagnosis,
        ),
    ];
    let host = cx.a.host.as_ref();
    if let Some(c) = host.and_then(|h| h.cpu_total_mean) {
        evidence.push(ev(K::HostCpu, c, Unit::Percent, None, Source::HostSamples));
    }
    let tree = host.and_then(|h| h.proc_tree_cpu_mean);
    if let Some(t) = tree {
        evidence.push(ev(
            K::TrainingTreeCpu,
            t,
            Unit::Percent,
            None,
            Source::HostSamples,
        ));
    }
    Some(Finding {
        cause: Cause::GpuIdle {
            busy_share: busy,
            recorded,
        },
        severity: cx.severity(share),
        confidence: confidence::CAUSE_UNKNOWN,
        share,
        evidence,
        fixes: fixes::gpu_idle(tree, th),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::Fixture;
    use crate::diagnosis::test_support::finding as made;
    use checkup_model::{Fix, HostStats, SampleStats};

    fn sampled(util: f64) -> Fixture {
        Fixture::default()
            .gpu(SampleStats {
                util_gpu_mean: Some(util),
                ..Default::default()
            })
            .host(HostStats {
                proc_tree_cpu_mean: Some(100.0),
                ..Default::default()
            })
    }

    #[test]
    fn an_idle_gpu_recorded_as_samples_only_is_a_finding_with_the_main_thread_hint() {
        let f = finding(&sampled(10.0).cx(), &[]).unwrap();
        assert!(matches!(
            f.cause,
            Cause::GpuIdle {
                recorded: Recorded::SamplesOnly,
                ..
            }
        ));
        assert!((f.share - 0.9).abs() < 1e-9);
        assert_eq!(f.fixes, vec![Fix::ProfileSteps, Fix::MainThreadCpu]);
    }

    #[test]
    fn idle_time_other_findings_explain_is_not_counted_again() {
        // 60 % idle, 50 % of it the input pipeline's: 10 % left, under significant; 44 %: 16 %.
        let dl = made(
            Cause::DataLoading {
                data_wait_ms: None,
                step_ms: None,
            },
            0.5,
        );
        assert!(finding(&sampled(40.0).cx(), &[dl]).is_none());
        let dl = made(
            Cause::DataLoading {
                data_wait_ms: None,
                step_ms: None,
            },
            0.44,
        );
        assert!(finding(&sampled(40.0).cx(), &[dl]).is_some());
    }

    #[test]
    fn a_gpu_busy_85_percent_is_not_idle() {
        assert!(finding(&sampled(85.0).cx(), &[]).is_none());
    }
}
