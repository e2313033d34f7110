//! Clocks held down while busy: a throttling clock-event reason, or an SM clock well under
//! its maximum.

use checkup_model::{
    Cause, Comparison, EvidenceKey as K, Finding, FixReach, Severity, Source, Throttling,
    ThrottlingEvidence, ThrottlingFix, Unit,
};

use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    finding(cx).into()
}

fn finding(cx: &Ctx) -> Option<Finding> {
    let g = cx.gpu?;
    let th = cx.th;
    let ratio = g
        .sm_clock_mean_mhz
        .zip(g.sm_clock_max_mhz)
        .filter(|(_, m)| *m > 0.0)
        .map(|(c, m)| c / m);
    let throttled = g.throttled_share >= th.throttled_share;
    let slow_clock = ratio.is_some_and(|r| r < th.sm_clock_low_ratio);
    if !throttled && !slow_clock {
        return None;
    }
    let busy = cx.gpu_busy().map_or(1.0, |b| b.0);
    // Busy time runs at `ratio` of full speed: the rest of it is lost.
    let share = busy * (1.0 - ratio.unwrap_or(1.0)).max(0.0);
    let mut evidence = vec![share_ev(
        K::Throttling(ThrottlingEvidence::ThrottledSamples),
        g.throttled_share,
        Some(th.throttled_share),
        Source::NvmlSamples,
    )];
    if let Some(r) = ratio {
        evidence.push(ev(
            K::Throttling(ThrottlingEvidence::SmClockRatio),
            r * 100.0,
            Unit::Percent,
            Some((Comparison::AtMost, th.sm_clock_low_ratio * 100.0)),
            Source::NvmlSamples,
        ));
    }
    if let (Some(p), Some(l)) = (g.power_w_mean, g.power_limit_w) {
        evidence.push(ev(
            K::Throttling(ThrottlingEvidence::PowerShareOfLimit),
            p / l * 100.0,
            Unit::Percent,
            None,
            Source::NvmlSamples,
        ));
    }
    if let Some(t) = g.temp_c_max {
        evidence.push(ev(
            K::Throttling(ThrottlingEvidence::PeakTemp),
            t,
            Unit::Celsius,
            None,
            Source::NvmlSamples,
        ));
    }
    let thermal = g.throttle_reasons.iter().any(|r| r.contains("thermal"));
    let clock_ratio = ratio.unwrap_or(1.0);
    let reasons = g.throttle_reasons.clone();
    Some(Finding {
        gains: Default::default(),
        cause: if thermal {
            Cause::Throttling(Throttling::Thermal {
                clock_ratio,
                reasons,
            })
        } else {
            Cause::Throttling(Throttling::Power {
                clock_ratio,
                reasons,
            })
        },
        severity: cx.severity(share).max(if throttled {
            Severity::Minor
        } else {
            Severity::Info
        }),
        confidence: if throttled && slow_clock {
            confidence::CORROBORATED
        } else {
            confidence::ONE_CLOCK_SIGNAL
        },
        share,
        evidence,
        fixes: fixes::throttling(&g.throttle_reasons),
    })
}

/// What part of `finding`'s lost time a clock fix removes: the host's side, not measured.
pub fn reach(fix: &ThrottlingFix, _finding: &Finding) -> FixReach {
    match fix {
        ThrottlingFix::CoolGpu | ThrottlingFix::CheckPower => FixReach::Supporting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::Fixture;
    use checkup_model::SampleStats;

    fn gpu(clock: f64, throttled_share: f64) -> Fixture {
        Fixture::default().gpu(SampleStats {
            sm_clock_mean_mhz: Some(clock),
            sm_clock_max_mhz: Some(1980.0),
            throttled_share,
            util_gpu_mean: Some(100.0),
            ..Default::default()
        })
    }

    #[test]
    fn a_clock_at_ninety_percent_of_max_is_not_held_down() {
        assert!(finding(&gpu(0.9 * 1980.0, 0.0).cx()).is_none());
        let f = finding(&gpu(0.89 * 1980.0, 0.0).cx()).unwrap();
        assert!((f.share - 0.11).abs() < 1e-6, "{}", f.share);
        assert_eq!(f.confidence, confidence::ONE_CLOCK_SIGNAL);
    }

    #[test]
    fn a_throttling_reason_in_a_fifth_of_busy_samples_is_reported_at_full_clock() {
        assert!(finding(&gpu(1980.0, 0.19).cx()).is_none());
        let f = finding(&gpu(1980.0, 0.2).cx()).unwrap();
        assert_eq!(f.severity, Severity::Minor);
        assert_eq!(f.id(), "throttling/power");
    }
}
