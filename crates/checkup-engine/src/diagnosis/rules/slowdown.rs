//! A run that gets slower as it goes: the median step of its last tenth well above its first
//! tenth's, and staying there, with what grew with it (the wait for data, the loop's own
//! host time, or neither) and the training processes' host memory when it grew too.

use checkup_model::{
    Cause, Comparison, EvidenceKey as K, Finding, Fix, FixReach, SharedEvidence, SharedFix,
    Slowdown, SlowdownEvidence, SlowdownFix, SlowdownPart, Source, StepMeasure, Unit,
};

use crate::analysis::stats::kendall_tau;
use crate::analysis::trends::{StepTrend, Tenth};
use crate::diagnosis::{ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    cx.step_trend().and_then(|t| finding(cx, t)).into()
}

fn finding(cx: &Ctx, trend: &StepTrend) -> Option<Finding> {
    let th = cx.th;
    let t = &trend.tenths;
    let measure = [StepMeasure::Median, StepMeasure::Mean]
        .into_iter()
        .find(|&m| grows(cx, t, m))?;
    let part = |x: &Tenth| parts(x, measure);
    let (first, last) = (part(&t[0]), part(&t[t.len() - 1]));
    let slower = |x: &Tenth| part(x).0 >= first.0 * (1.0 + th.slowdown_sustained);
    // It began with the first tenth from which every later one stays slower.
    let began = (1..t.len())
        .find(|&k| t[k..].iter().all(slower))
        .map_or(&t[t.len() - 1], |k| &t[k]);
    let growth = last.0 - first.0;
    let data = last.1 - first.1;
    let host = last.2 - first.2;
    let grew = if data >= th.slowdown_part_share * growth && data >= host {
        SlowdownPart::DataWait
    } else if host >= th.slowdown_part_share * growth {
        SlowdownPart::HostWork
    } else {
        SlowdownPart::Other
    };
    // The time lost: every step beyond the pace of the first tenth.
    let mean = t.iter().map(|x| part(x).0).sum::<f64>() / t.len() as f64;
    let share = (1.0 - first.0 / mean).clamp(0.0, 1.0);
    let host_rss_mib = trend.host_rss_mib.filter(|[a, b]| {
        b - a >= th.host_rss_growth_mib && *b >= a * (1.0 + th.host_rss_growth_share)
    });
    let (first_key, last_key) = match measure {
        StepMeasure::Median => (
            SlowdownEvidence::FirstStepMedian,
            SlowdownEvidence::LastStepMedian,
        ),
        StepMeasure::Mean => (
            SlowdownEvidence::FirstStepMean,
            SlowdownEvidence::LastStepMean,
        ),
    };
    let mut evidence = vec![
        ev(
            K::Slowdown(first_key),
            first.0,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ),
        ev(
            K::Slowdown(last_key),
            last.0,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ),
        ev(
            K::Slowdown(SlowdownEvidence::StepTimeGrowth),
            growth / first.0 * 100.0,
            Unit::Percent,
            Some((Comparison::AtLeast, th.slowdown_growth * 100.0)),
            Source::StepsCsv,
        ),
        ev(
            K::Slowdown(SlowdownEvidence::DataWaitGrowth),
            data,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ),
        ev(
            K::Slowdown(SlowdownEvidence::HostWorkGrowth),
            host,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ),
    ];
    if let Some([a, b]) = host_rss_mib {
        evidence.push(ev(
            K::Shared(SharedEvidence::HostRssGrowth),
            b - a,
            Unit::Mib,
            None,
            Source::HostSamples,
        ));
    }
    let fixes = match grew {
        SlowdownPart::HostWork => vec![Fix::Slowdown(SlowdownFix::ConstantHostWork)],
        // The batches themselves come slower as the run goes: the per-sample work grows,
        // which more workers only delay. Look at the data side, not the model.
        SlowdownPart::DataWait => vec![Fix::Slowdown(SlowdownFix::ConstantSampleWork)],
        // Which part of the GPU's work grows, a profile of a late step beside an early one
        // shows; no change can be named from the timings alone.
        SlowdownPart::Other => vec![Fix::Shared(SharedFix::ProfileSteps)],
    };
    Some(Finding {
        gains: Default::default(),
        cause: Cause::Slowdown(Slowdown::StepsGrow {
            first_ms: first.0,
            last_ms: last.0,
            measure,
            began_at_s: began.start_s,
            began_at_step: began.first_step,
            grew,
            host_rss_mib,
        }),
        severity: cx.severity(share),
        confidence: confidence::INDIRECT,
        share,
        evidence,
        fixes,
    })
}

/// Whether the step, as `m` sums up each tenth, grew: the last tenth well above the first,
/// the last three all slower than the first, and the tenths in rising order more often than
/// not.
fn grows(cx: &Ctx, t: &[Tenth], m: StepMeasure) -> bool {
    let th = cx.th;
    let (Some(first), Some(last)) = (t.first(), t.last()) else {
        return false;
    };
    if t.len() < 3 {
        return false;
    }
    let step = |x: &Tenth| parts(x, m).0;
    let slower = |x: &Tenth| step(x) >= step(first) * (1.0 + th.slowdown_sustained);
    let consistency = kendall_tau(&t.iter().map(step).collect::<Vec<_>>());
    step(first) > 0.0
        && step(last) >= step(first) * (1.0 + th.slowdown_growth)
        && t[t.len() - 3..].iter().all(slower)
        && consistency >= th.slowdown_consistency
}

/// A tenth's step, wait for data and host time, as `m` sums them up.
fn parts(x: &Tenth, m: StepMeasure) -> (f64, f64, f64) {
    match m {
        StepMeasure::Median => (x.step_ms, x.data_wait_ms, x.host_ms),
        StepMeasure::Mean => (x.mean_step_ms, x.mean_data_wait_ms, x.mean_host_ms),
    }
}

/// What part of `finding`'s lost time a slowdown fix removes: the per-step work that grows;
/// constant work removes it.
pub fn reach(fix: &SlowdownFix, _finding: &Finding) -> FixReach {
    match fix {
        SlowdownFix::ConstantHostWork | SlowdownFix::ConstantSampleWork => FixReach::Cause,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analysis::trends::Tenth, diagnosis::rules::test_cx::Fixture};

    /// Tenths whose median step and host time are `ms[k]`, data wait `wait[k]`; their
    /// means the same.
    fn trend(ms: [f64; 10], wait: [f64; 10]) -> StepTrend {
        tailed(ms, wait, ms, wait)
    }

    /// Tenths whose medians are `ms[k]` and `wait[k]`, their means `mean[k]` and
    /// `mean_wait[k]` (the host time the step less the wait, for both).
    fn tailed(ms: [f64; 10], wait: [f64; 10], mean: [f64; 10], mean_wait: [f64; 10]) -> StepTrend {
        StepTrend {
            tenths: (0..10)
                .map(|k| Tenth {
                    first_step: 100 * k as u64,
                    middle_step: 100 * k as u64 + 50,
                    start_s: 10.0 * k as f64,
                    end_s: 10.0 * (k + 1) as f64,
                    step_ms: ms[k],
                    data_wait_ms: wait[k],
                    host_ms: ms[k] - wait[k],
                    mean_step_ms: mean[k],
                    mean_data_wait_ms: mean_wait[k],
                    mean_host_ms: mean[k] - mean_wait[k],
                })
                .collect(),
            host_rss_mib: Some([400.0, 1200.0]),
            host_rss_tenths: Vec::new(),
        }
    }

    #[test]
    fn ever_longer_waits_among_fast_steps_are_a_slowdown_of_the_mean() {
        // An input pipeline that falls further behind each epoch: the median step stays at
        // 22 ms while the mean climbs from 22 to 260 ms, all of it waiting for data.
        let cx = Fixture::default();
        let cx = cx.cx();
        let ms = [22.0; 10];
        let mean = [
            22.0, 30.0, 45.0, 60.0, 90.0, 120.0, 150.0, 190.0, 220.0, 260.0,
        ];
        let mean_wait = mean.map(|m| m - 20.0);
        let f = finding(&cx, &tailed(ms, [2.0; 10], mean, mean_wait)).unwrap();
        let Cause::Slowdown(Slowdown::StepsGrow {
            first_ms,
            last_ms,
            measure,
            grew,
            ..
        }) = f.cause
        else {
            panic!("{:?}", f.cause)
        };
        assert_eq!((first_ms, last_ms), (22.0, 260.0));
        assert_eq!((measure, grew), (StepMeasure::Mean, SlowdownPart::DataWait));
        // The data side is where to look, not the model.
        assert_eq!(
            f.fixes,
            vec![Fix::Slowdown(SlowdownFix::ConstantSampleWork)]
        );
        // The time lost: the mean tenth (118.9 ms) against the first tenth's 22 ms.
        let mean_tenth = mean.iter().sum::<f64>() / 10.0;
        assert!(
            (f.share - (1.0 - 22.0 / mean_tenth)).abs() < 1e-9,
            "{}",
            f.share
        );
        // Periodic long steps that do not grow are no slowdown.
        let flat = [60.0, 58.0, 61.0, 59.0, 60.0, 62.0, 58.0, 60.0, 61.0, 59.0];
        assert!(finding(&cx, &tailed(ms, [2.0; 10], flat, flat.map(|m| m - 20.0))).is_none());
    }

    #[test]
    fn a_last_tenth_a_fifth_slower_and_staying_so_is_a_slowdown() {
        let cx = Fixture::default();
        let cx = cx.cx();
        let mut ms = [10.0, 10.2, 10.4, 10.6, 10.8, 11.0, 11.2, 11.5, 11.6, 11.9];
        assert!(finding(&cx, &trend(ms, [0.0; 10])).is_none());
        ms[9] = 12.0;
        let f = finding(&cx, &trend(ms, [0.0; 10])).unwrap();
        let Cause::Slowdown(Slowdown::StepsGrow {
            began_at_step,
            grew,
            host_rss_mib,
            ..
        }) = f.cause
        else {
            panic!("{:?}", f.cause)
        };
        assert_eq!((began_at_step, grew), (500, SlowdownPart::HostWork));
        assert_eq!(host_rss_mib, Some([400.0, 1200.0]));
        assert_eq!(f.fixes, [Fix::Slowdown(SlowdownFix::ConstantHostWork)]);
    }

    #[test]
    fn a_run_that_settles_slower_after_its_first_tenth_is_not_slowing_down() {
        let cx = Fixture::default();
        // The loader's prefetched batches carry the first tenth; then a level, up and down.
        let ms = [5.3, 6.1, 8.8, 14.4, 8.8, 7.9, 17.6, 10.6, 10.7, 9.9];
        assert!(kendall_tau(&ms) < 0.6, "{}", kendall_tau(&ms));
        assert!(finding(&cx.cx(), &trend(ms, [0.0; 10])).is_none());
        // A run that keeps slowing down: 80 % of its pairs of tenths in order.
        let ms = [6.1, 10.1, 13.6, 17.3, 19.1, 15.4, 18.4, 20.0, 34.2, 23.2];
        assert!(finding(&cx.cx(), &trend(ms, [0.0; 10])).is_some());
    }

    #[test]
    fn one_slow_tenth_at_the_end_is_not_a_trend() {
        let cx = Fixture::default();
        let mut ms = [10.0; 10];
        ms[9] = 20.0;
        assert!(finding(&cx.cx(), &trend(ms, [0.0; 10])).is_none());
    }

    #[test]
    fn a_wait_for_data_that_grows_with_the_step_is_named_and_fixed_on_the_data_side() {
        let cx = Fixture::default();
        let ms = [10.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0];
        let wait = [1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 8.5];
        let f = finding(&cx.cx(), &trend(ms, wait)).unwrap();
        assert!(matches!(
            f.cause,
            Cause::Slowdown(Slowdown::StepsGrow {
                grew: SlowdownPart::DataWait,
                ..
            })
        ));
        assert_eq!(f.fixes, [Fix::Slowdown(SlowdownFix::ConstantSampleWork)]);
        // Every step beyond the first tenth's pace: 1 - 10 / 13.6.
        assert!((f.share - (1.0 - 10.0 / 13.6)).abs() < 1e-9, "{}", f.share);
    }
}
