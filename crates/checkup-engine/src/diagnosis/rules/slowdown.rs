//! A run that gets slower as it goes: the median step of its last tenth well above its first
//! tenth's, and staying there, with what grew with it (the wait for data, the loop's own
//! host time, the GPU's work, or none of them) and the training processes' host memory when
//! it grew too; or one kind of periodic work that takes longer each time it comes.

use checkup_model::{
    Cause, Comparison, EvidenceKey as K, Finding, Fix, FixReach, MarkerKind, RunMarker,
    SharedEvidence, SharedFix, Slowdown, SlowdownEvidence, SlowdownFix, SlowdownPart, Source,
    StepMeasure, ThreadRole, Unit,
};

use crate::analysis::stats::{kendall_tau, median};
use crate::analysis::trends::{StepTrend, Tenth};
use crate::diagnosis::{ev, host_lines, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    let periodic: Vec<Finding> = [MarkerKind::Eval, MarkerKind::Checkpoint, MarkerKind::Gc]
        .into_iter()
        .filter_map(|kind| periodic_finding(cx, kind))
        .collect();
    // A mean step that grows while the median does not is a tail of long steps growing:
    // with periodic work that grows, that tail is the work, and its own finding says which.
    let steps = cx
        .step_trend()
        .and_then(|t| finding(cx, t, &tenths_utilisation(cx, t)))
        .filter(|f| {
            periodic.is_empty()
                || !matches!(
                    f.cause,
                    Cause::Slowdown(Slowdown::StepsGrow {
                        measure: StepMeasure::Mean,
                        ..
                    })
                )
        });
    Outcome {
        findings: steps.into_iter().chain(periodic).collect(),
        notes: Vec::new(),
    }
}

/// The diagnosed GPU's mean utilisation (NVML, percent) over each tenth, None where no
/// reading falls inside it.
fn tenths_utilisation(cx: &Ctx, trend: &StepTrend) -> Vec<Option<f64>> {
    let Some(g) = cx.gpu_series() else {
        return vec![None; trend.tenths.len()];
    };
    trend
        .tenths
        .iter()
        .map(|t| {
            let inside: Vec<f64> = g.util_within(t.start_s, t.end_s).map(f64::from).collect();
            (!inside.is_empty()).then(|| inside.iter().sum::<f64>() / inside.len() as f64)
        })
        .collect()
}

/// `util` is the GPU's utilisation over each tenth (percent), where sampled.
fn finding(cx: &Ctx, trend: &StepTrend, util: &[Option<f64>]) -> Option<Finding> {
    let th = cx.th;
    let t = &trend.tenths;
    let measure = [StepMeasure::Median, StepMeasure::Mean]
        .into_iter()
        .find(|&m| grows(cx, t, m))?;
    let part = |x: &Tenth| parts(x, measure);
    let (first, last) = (part(&t[0]), part(&t[t.len() - 1]));
    let steps: Vec<f64> = t.iter().map(|x| part(x).0).collect();
    let began = began_at(cx, first.0, &steps).map_or(&t[t.len() - 1], |k| &t[k]);
    let growth = last.0 - first.0;
    let data = last.1 - first.1;
    let host = last.2 - first.2;
    // The GPU's work per step: the step with the GPU busy, where both tenths were sampled.
    let gpu_work = match (
        util.first().copied().flatten(),
        util.last().copied().flatten(),
    ) {
        (Some(a), Some(b)) => Some([first.0 * a / 100.0, last.0 * b / 100.0]),
        _ => None,
    };
    let gpu = gpu_work.map_or(0.0, |[a, b]| b - a);
    let enough = |part: f64| part >= th.slowdown_part_share * growth;
    let (grew, grew_ms) = if enough(data) && data >= host && data >= gpu {
        (SlowdownPart::DataWait, Some([first.1, last.1]))
    } else if enough(host) && host >= gpu {
        (SlowdownPart::HostWork, Some([first.2, last.2]))
    } else if enough(gpu) {
        // The GPU's work grew with the inputs a compiled function was called with, as its
        // recompilations' guards say: longer sequences (a curriculum) make more work per
        // step by design, and "as small as the first steps" would undo the schedule. Those
        // recompilations' time is the compilation finding's.
        if cx.training.is_some_and(|t| t.compile.input_grew()) {
            return None;
        }
        (SlowdownPart::GpuWork, gpu_work)
    } else {
        (SlowdownPart::Other, None)
    };
    // The time lost: the mean step beyond what it was before the growth. A growing median
    // is read from the pace before it, the first tenth's or, when the steps grow from the
    // start, the run's first steps', with the tail of long steps the first tenth had (a
    // tail that grows with the median is the growth's too). A growing tail is read against
    // the first tenth's mean alone.
    let mean_step = t.iter().map(|x| x.mean_step_ms).sum::<f64>() / t.len() as f64;
    let without_growth = match measure {
        StepMeasure::Median => {
            let pace = trend
                .earliest_step_ms
                .filter(|e| *e > 0.0)
                .map_or(first.0, |e| e.min(first.0));
            let first_tail = t[0].mean_step_ms / t[0].step_ms;
            pace * if first_tail.is_finite() {
                first_tail.max(1.0)
            } else {
                1.0
            }
        }
        StepMeasure::Mean => first.0,
    };
    let share = (1.0 - without_growth / mean_step).clamp(0.0, 1.0);
    // A growing tail read against the first tenth's mean: where the first tenth's median was
    // already well above the run's first steps, the growth had begun inside that tenth, and
    // how much of its mean is growth the tenths cannot say. The first steps bound it.
    let first_steps_ms = match measure {
        StepMeasure::Mean => trend
            .earliest_step_ms
            .filter(|e| *e > 0.0 && t[0].step_ms >= e * (1.0 + th.slowdown_sustained)),
        StepMeasure::Median => None,
    };
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
    let mut evidence = vec![ev(
        K::Slowdown(first_key),
        first.0,
        Unit::Ms,
        None,
        Source::StepsCsv,
    )];
    if let Some(e) = first_steps_ms {
        evidence.push(ev(
            K::Slowdown(SlowdownEvidence::FirstStepsMedian),
            e,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ));
    }
    evidence.extend([
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
    ]);
    if let Some([a, b]) = gpu_work {
        evidence.push(ev(
            K::Slowdown(SlowdownEvidence::GpuWorkGrowth),
            b - a,
            Unit::Ms,
            None,
            Source::NvmlSamples,
        ));
    }
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
        // A line that reads values back into a list the loop keeps is the likeliest history
        // the loop walks again; without one, no code can be named from the timings.
        SlowdownPart::HostWork => vec![Fix::Slowdown(SlowdownFix::ConstantHostWork {
            kept_at: cx
                .training
                .and_then(|t| t.syncs.as_ref())
                .and_then(|s| s.sites.iter().find(|x| x.keeps_history()))
                .cloned(),
        })],
        // The batches themselves come slower as the run goes: the per-sample work grows,
        // which more workers only delay. Look at the data side, not the model.
        SlowdownPart::DataWait => vec![Fix::Slowdown(SlowdownFix::ConstantSampleWork)],
        SlowdownPart::GpuWork => vec![Fix::Slowdown(SlowdownFix::ConstantGpuWork)],
        // Which part of the GPU's work grows, a profile of a late step beside an early one
        // shows; no change can be named from the timings alone.
        SlowdownPart::Other => vec![Fix::Shared(SharedFix::ProfileSteps)],
    };
    Some(Finding {
        gains: Default::default(),
        cause: Cause::Slowdown(Slowdown::StepsGrow {
            first_ms: first.0,
            first_steps_ms,
            last_ms: last.0,
            measure,
            began_at_s: began.start_s,
            began_at_step: began.first_step,
            grew,
            grew_ms,
            host_rss_mib,
            hot_lines: match grew {
                SlowdownPart::HostWork => {
                    host_lines::of_role(cx.training, ThreadRole::Training, cx.th)
                }
                SlowdownPart::DataWait => host_lines::of_loader(cx.training, cx.th),
                SlowdownPart::GpuWork | SlowdownPart::Other => Vec::new(),
            },
        }),
        severity: cx.severity(share),
        confidence: confidence::INDIRECT,
        share,
        evidence,
        fixes,
    })
}

/// Whether passes of one kind of periodic work take longer each time they come (the
/// `slowdown/periodic_work` finding's test): another rule's fix for that work must not hide
/// the growth.
pub(crate) fn periodic_work_grows(cx: &Ctx, kind: MarkerKind) -> bool {
    periodic_finding(cx, kind).is_some()
}

/// Fewest timed runs of one kind of periodic work a growth is read from: a third of them
/// against another third, two at least in each.
const MIN_PERIODIC_RUNS: usize = 6;

/// One kind of periodic work that takes longer each time: its last third's median well
/// above its first third's, the last ones all longer, the durations in rising order more
/// often than not (the step trend's thresholds), and the time it added over the first
/// ones' pace worth reporting. An epoch's start is the loader's, which the steps' wait for
/// data already follows.
fn periodic_finding(cx: &Ctx, kind: MarkerKind) -> Option<Finding> {
    let th = cx.th;
    // Work in the warm-up steps is the start's (a compiler's collections of what it
    // builds), not the loop's.
    let steady_from = cx.first_steady_step();
    let marked: Vec<&RunMarker> = cx
        .markers
        .iter()
        .filter(|m| m.kind == kind && m.step >= steady_from)
        .collect();
    // A write in the background costs the loop only what it waits for, which the stall
    // finding prices; and checkpoints of one size that take longer are the disk slowing,
    // not a state that grows: "save the same state" would ask for what the run does.
    let background = RunMarker::checkpoints_in_background(cx.markers);
    let sizes: Vec<u64> = marked.iter().filter_map(|m| m.bytes()).collect();
    let same_size = sizes.len() == marked.len()
        && sizes
            .iter()
            .max()
            .zip(sizes.iter().min())
            .is_some_and(|(max, min)| {
                (*max as f64) <= (*min as f64) * (1.0 + th.same_checkpoint_size)
            });
    if background || same_size {
        return None;
    }
    let runs: Vec<(u64, f64)> = marked
        .iter()
        .filter_map(|m| Some((m.step, m.duration_ms?)))
        .filter(|(_, ms)| ms.is_finite() && *ms >= 0.0)
        .collect();
    if runs.len() < MIN_PERIODIC_RUNS {
        return None;
    }
    let ms: Vec<f64> = runs.iter().map(|r| r.1).collect();
    let third = ms.len() / 3;
    let first = median(&ms[..third]);
    let last = median(&ms[ms.len() - third..]);
    if !rises(cx, first, last, &ms[ms.len() - third..], &ms) {
        return None;
    }
    // The time lost: each run beyond the work's size before it grew, over the steady time
    // the mean step is measured over (so that the step less this share is the step with
    // the work kept constant). That size is the fastest of the first third: the growth may
    // have begun within it (work over everything seen so far grows from the first run), and
    // interference only ever adds time to a run.
    let before_growth = ms[..third].iter().copied().fold(f64::INFINITY, f64::min);
    let rank = cx.timing.map(|t| t.rank).unwrap_or(0);
    let steady_s = cx.a.ledgers.get(&rank).map(|l| l.steady_s())?;
    let extra_s: f64 = ms.iter().map(|d| (d - before_growth).max(0.0)).sum::<f64>() / 1e3;
    let share = (extra_s / steady_s).clamp(0.0, 1.0);
    if steady_s <= 0.0 || share < th.reportable_share {
        return None;
    }
    let began = began_at(cx, first, &ms).unwrap_or(runs.len() - 1);
    let evidence = vec![
        ev(
            K::Slowdown(SlowdownEvidence::FirstPeriodicMedian),
            first,
            Unit::Ms,
            None,
            Source::Probe,
        ),
        ev(
            K::Slowdown(SlowdownEvidence::LastPeriodicMedian),
            last,
            Unit::Ms,
            None,
            Source::Probe,
        ),
        ev(
            K::Slowdown(SlowdownEvidence::PeriodicGrowth),
            (last - first) / first * 100.0,
            Unit::Percent,
            Some((Comparison::AtLeast, th.slowdown_growth * 100.0)),
            Source::Probe,
        ),
    ];
    Some(Finding {
        gains: Default::default(),
        cause: Cause::Slowdown(Slowdown::PeriodicGrows {
            work: kind,
            first_ms: first,
            last_ms: last,
            count: runs.len() as u64,
            began_at_step: runs[began].0,
        }),
        severity: cx.severity(share),
        // The probe timed each run itself.
        confidence: confidence::MEASURED,
        share,
        evidence,
        fixes: vec![Fix::Slowdown(SlowdownFix::ConstantPeriodicWork {
            work: kind,
        })],
    })
}

/// Whether the step, as `m` sums up each tenth, grew: the last tenth well above the first,
/// the last three all slower than the first, and the tenths in rising order more often than
/// not.
fn grows(cx: &Ctx, t: &[Tenth], m: StepMeasure) -> bool {
    if t.len() < 3 {
        return false;
    }
    let steps: Vec<f64> = t.iter().map(|x| parts(x, m).0).collect();
    let (first, last) = (steps[0], steps[steps.len() - 1]);
    rises(cx, first, last, &steps[steps.len() - 3..], &steps)
}

/// Whether `series` grew from `first` to `last` as a slowdown means, for step tenths and
/// periodic work alike: `last` at least `slowdown_growth` above `first`, every one of
/// `tail` at least `slowdown_sustained` above it, and the series in rising order more often
/// than not (Kendall's tau at least `slowdown_consistency`).
fn rises(cx: &Ctx, first: f64, last: f64, tail: &[f64], series: &[f64]) -> bool {
    let th = cx.th;
    first > 0.0
        && last >= first * (1.0 + th.slowdown_growth)
        && tail
            .iter()
            .all(|&v| v >= first * (1.0 + th.slowdown_sustained))
        && kendall_tau(series) >= th.slowdown_consistency
}

/// Where a growth began: the first place after the start from which every later value stays
/// `slowdown_sustained` above `first`.
fn began_at(cx: &Ctx, first: f64, series: &[f64]) -> Option<usize> {
    let longer = |v: f64| v >= first * (1.0 + cx.th.slowdown_sustained);
    (1..series.len()).find(|&k| series[k..].iter().all(|&v| longer(v)))
}

/// A tenth's step, wait for data and host time, as `m` sums them up.
fn parts(x: &Tenth, m: StepMeasure) -> (f64, f64, f64) {
    match m {
        StepMeasure::Median => (x.step_ms, x.data_wait_ms, x.host_ms),
        StepMeasure::Mean => (x.mean_step_ms, x.mean_data_wait_ms, x.mean_host_ms),
    }
}

/// What part of `finding`'s lost time a slowdown fix removes: the per-step work that grows;
/// constant work removes it, and where the growth began inside the first tenth, perhaps
/// down to the run's first steps.
pub fn reach(fix: &SlowdownFix, finding: &Finding) -> FixReach {
    match (fix, &finding.cause) {
        (
            SlowdownFix::ConstantHostWork { .. }
            | SlowdownFix::ConstantSampleWork
            | SlowdownFix::ConstantGpuWork,
            Cause::Slowdown(Slowdown::StepsGrow {
                first_ms,
                first_steps_ms: Some(first_steps),
                ..
            }),
        ) if *first_ms > 0.0 && first_steps < first_ms => {
            // The finding's share is the step less the first tenth's mean: the mean step is
            // `first_ms / (1 - share)`, and the first steps' pace that share of it.
            FixReach::GrowthFromFirstSteps(1.0 - (1.0 - finding.share) * first_steps / first_ms)
        }
        _ => FixReach::Cause,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analysis::trends::Tenth, diagnosis::rules::test_cx::Fixture};
    use checkup_model::{CompileInfo, Recompiled, TrainingContext};

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
            earliest_step_ms: None,
        }
    }

    #[test]
    fn work_that_grows_from_the_first_step_is_priced_from_the_first_steps_pace() {
        // Work over everything seen so far: the first tenth's median (12 ms) already holds
        // some growth; the first steps ran at 8 ms, and a constant-work loop runs at that.
        let fx = Fixture::default();
        let ms = [12.0, 16.0, 20.0, 24.0, 28.0, 32.0, 36.0, 40.0, 44.0, 48.0];
        let mut t = trend(ms, [0.0; 10]);
        let without = finding(&fx.cx(), &t, &[None; 10]).unwrap();
        assert!(
            (without.share - (1.0 - 12.0 / 30.0)).abs() < 1e-9,
            "{}",
            without.share
        );
        t.earliest_step_ms = Some(8.0);
        let with = finding(&fx.cx(), &t, &[None; 10]).unwrap();
        assert!(
            (with.share - (1.0 - 8.0 / 30.0)).abs() < 1e-9,
            "{}",
            with.share
        );
        // First steps slower than the first tenth (workers starting) leave its pace.
        t.earliest_step_ms = Some(20.0);
        let slow_start = finding(&fx.cx(), &t, &[None; 10]).unwrap();
        assert!((slow_start.share - without.share).abs() < 1e-9);
    }

    #[test]
    fn a_tail_that_grows_with_the_median_is_priced_as_the_first_tenth_had_it() {
        // A history concatenated on the GPU every step: the median grows from 12 to 33 ms
        // and the long steps grow with it (means 12.6 to 48 ms, a tail of 5 % at first and
        // 45 % at the end). Without the growth the step is the first steps' 8 ms with the
        // first tenth's 5 % tail: 8.4 ms, not 8 ms times the whole run's tail.
        let fx = Fixture::default();
        let ms = [12.0, 13.0, 14.0, 15.0, 18.0, 18.0, 18.0, 23.0, 25.0, 33.0];
        let mean = [12.6, 15.0, 17.5, 20.0, 25.0, 29.0, 33.0, 38.0, 43.0, 48.0];
        let mut t = tailed(ms, [0.0; 10], mean, [0.0; 10]);
        t.earliest_step_ms = Some(8.0);
        let f = finding(&fx.cx(), &t, &[None; 10]).unwrap();
        assert!(matches!(
            f.cause,
            Cause::Slowdown(Slowdown::StepsGrow {
                measure: StepMeasure::Median,
                ..
            })
        ));
        let mean_step = mean.iter().sum::<f64>() / 10.0;
        let without_growth = 8.0 * 12.6 / 12.0;
        assert!(
            (f.share - (1.0 - without_growth / mean_step)).abs() < 1e-9,
            "{}",
            f.share
        );
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
        let f = finding(&cx, &tailed(ms, [2.0; 10], mean, mean_wait), &[]).unwrap();
        let Cause::Slowdown(Slowdown::StepsGrow {
            first_ms,
            last_ms,
            measure,
            grew,
            first_steps_ms,
            ..
        }) = f.cause
        else {
            panic!("{:?}", f.cause)
        };
        assert_eq!((first_ms, last_ms), (22.0, 260.0));
        // No first steps' pace read: the tenths alone say nothing of a growth in the first.
        assert_eq!(first_steps_ms, None);
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
        assert!(finding(
            &cx,
            &tailed(ms, [2.0; 10], flat, flat.map(|m| m - 20.0)),
            &[]
        )
        .is_none());
    }

    #[test]
    fn a_growing_tail_begun_within_the_first_tenth_is_priced_down_to_the_first_steps() {
        // A folder listed per sample while the loop writes into it: the long waits grow the
        // mean from 18 to 150 ms, and the first tenth's median (12 ms) is already well above
        // the run's first steps (5 ms): the step without the growth lies between the two.
        let fx = Fixture::default();
        let ms = [12.0, 15.0, 16.0, 17.0, 16.0, 17.0, 16.0, 17.0, 16.0, 17.0];
        let mean = [
            18.0, 30.0, 45.0, 65.0, 75.0, 95.0, 110.0, 125.0, 145.0, 150.0,
        ];
        let mut t = tailed(ms, [1.0; 10], mean, mean.map(|m| m - 11.0));
        t.earliest_step_ms = Some(5.0);
        let f = finding(&fx.cx(), &t, &[None; 10]).unwrap();
        let Cause::Slowdown(Slowdown::StepsGrow {
            first_ms,
            first_steps_ms,
            measure,
            ..
        }) = f.cause
        else {
            panic!("{:?}", f.cause)
        };
        assert_eq!(
            (measure, first_ms, first_steps_ms),
            (StepMeasure::Mean, 18.0, Some(5.0))
        );
        assert_eq!(
            f.evidence_value(&K::Slowdown(SlowdownEvidence::FirstStepsMedian)),
            Some(5.0)
        );
        // The lost time is still read against the first tenth's mean; the fix reaches down
        // to the first steps' pace, a share of the mean tenth.
        let mean_tenth = mean.iter().sum::<f64>() / 10.0;
        assert!((f.share - (1.0 - 18.0 / mean_tenth)).abs() < 1e-9);
        let FixReach::GrowthFromFirstSteps(share) = reach(&SlowdownFix::ConstantSampleWork, &f)
        else {
            panic!("{:?}", reach(&SlowdownFix::ConstantSampleWork, &f))
        };
        assert!((share - (1.0 - 5.0 / mean_tenth)).abs() < 1e-9, "{share}");
        // First steps within a tenth of the first tenth's median: the growth had not begun
        // inside it, and the first tenth's mean is the pace.
        t.earliest_step_ms = Some(11.0);
        let f = finding(&fx.cx(), &t, &[None; 10]).unwrap();
        assert!(f
            .evidence_value(&K::Slowdown(SlowdownEvidence::FirstStepsMedian))
            .is_none());
        assert_eq!(reach(&SlowdownFix::ConstantSampleWork, &f), FixReach::Cause);
    }

    #[test]
    fn a_last_tenth_a_fifth_slower_and_staying_so_is_a_slowdown() {
        let cx = Fixture::default();
        let cx = cx.cx();
        let mut ms = [10.0, 10.2, 10.4, 10.6, 10.8, 11.0, 11.2, 11.5, 11.6, 11.9];
        assert!(finding(&cx, &trend(ms, [0.0; 10]), &[]).is_none());
        ms[9] = 12.0;
        let f = finding(&cx, &trend(ms, [0.0; 10]), &[]).unwrap();
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
        assert_eq!(
            f.fixes,
            [Fix::Slowdown(SlowdownFix::ConstantHostWork {
                kept_at: None
            })]
        );
    }

    #[test]
    fn a_run_that_settles_slower_after_its_first_tenth_is_not_slowing_down() {
        let cx = Fixture::default();
        // The loader's prefetched batches carry the first tenth; then a level, up and down.
        let ms = [5.3, 6.1, 8.8, 14.4, 8.8, 7.9, 17.6, 10.6, 10.7, 9.9];
        assert!(kendall_tau(&ms) < 0.6, "{}", kendall_tau(&ms));
        assert!(finding(&cx.cx(), &trend(ms, [0.0; 10]), &[]).is_none());
        // A run that keeps slowing down: 80 % of its pairs of tenths in order.
        let ms = [6.1, 10.1, 13.6, 17.3, 19.1, 15.4, 18.4, 20.0, 34.2, 23.2];
        assert!(finding(&cx.cx(), &trend(ms, [0.0; 10]), &[]).is_some());
    }

    #[test]
    fn one_slow_tenth_at_the_end_is_not_a_trend() {
        let cx = Fixture::default();
        let mut ms = [10.0; 10];
        ms[9] = 20.0;
        assert!(finding(&cx.cx(), &trend(ms, [0.0; 10]), &[]).is_none());
    }

    #[test]
    fn a_wait_for_data_that_grows_with_the_step_is_named_and_fixed_on_the_data_side() {
        let cx = Fixture::default();
        let ms = [10.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0];
        let wait = [1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 8.5];
        let f = finding(&cx.cx(), &trend(ms, wait), &[]).unwrap();
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

    /// Steps from 10 to 18 ms with no wait for data and the loop's host time flat at 4 ms;
    /// the GPU busy half the first tenth and 90 % of the last: its work per step went from
    /// 5 to 16.2 ms. The tenths and their utilisation.
    fn gpu_work_growing() -> (StepTrend, [Option<f64>; 10]) {
        let ms = [10.0, 10.5, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0];
        let mut trend = trend(ms, [0.0; 10]);
        for t in &mut trend.tenths {
            (t.host_ms, t.mean_host_ms) = (4.0, 4.0);
        }
        let mut util = [Some(70.0); 10];
        (util[0], util[9]) = (Some(50.0), Some(90.0));
        (trend, util)
    }

    #[test]
    fn gpu_work_that_grows_while_the_host_keeps_pace_is_named_with_its_figures() {
        let cx = Fixture::default();
        let (trend, mut util) = gpu_work_growing();
        let f = finding(&cx.cx(), &trend, &util).unwrap();
        let Cause::Slowdown(Slowdown::StepsGrow { grew, grew_ms, .. }) = f.cause else {
            panic!("{:?}", f.cause)
        };
        assert_eq!(grew, SlowdownPart::GpuWork);
        let [a, b] = grew_ms.unwrap();
        assert!((a - 5.0).abs() < 1e-9 && (b - 16.2).abs() < 1e-9, "{a} {b}");
        assert_eq!(f.fixes, [Fix::Slowdown(SlowdownFix::ConstantGpuWork)]);
        // The same steps with the GPU ever less busy: its work stays at 5 ms, so what grew
        // is not the GPU's, and the timings do not say what it is.
        (util[0], util[9]) = (Some(50.0), Some(28.0));
        let f = finding(&cx.cx(), &trend, &util).unwrap();
        assert!(matches!(
            f.cause,
            Cause::Slowdown(Slowdown::StepsGrow {
                grew: SlowdownPart::Other,
                grew_ms: None,
                ..
            })
        ));
        // Unsampled tenths say nothing of the GPU.
        let f = finding(&cx.cx(), &trend, &[None; 10]).unwrap();
        assert!(matches!(
            f.cause,
            Cause::Slowdown(Slowdown::StepsGrow {
                grew: SlowdownPart::Other,
                ..
            })
        ));
    }

    #[test]
    fn gpu_work_that_grows_with_a_compiled_functions_longer_inputs_is_no_slowdown() {
        // The GPU's work from 5 to 16.2 ms a step in a run whose compiled model
        // recompiled for ever longer sequences: a curriculum's work grows by design.
        let mut fx = Fixture::default();
        fx.a.training.insert(
            0,
            TrainingContext {
                compile: CompileInfo {
                    recompiles: vec![Recompiled {
                        function: "forward".into(),
                        count: 2,
                        reasons: vec![
                            "tensor 'tokens' size mismatch at index 1. expected 64, actual 128"
                                .into(),
                            "tensor 'tokens' size mismatch at index 1. expected 128, actual 192"
                                .into(),
                        ],
                        ..Default::default()
                    }],
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        let (trend, util) = gpu_work_growing();
        assert!(finding(&fx.cx(), &trend, &util).is_none());
        // Lengths that come and go say nothing of a trend: the growth is the finding's.
        fx.a.training.get_mut(&0).unwrap().compile.recompiles[0].reasons[1] =
            "tensor 'tokens' size mismatch at index 1. expected 128, actual 96".into();
        let f = finding(&fx.cx(), &trend, &util).unwrap();
        assert!(matches!(
            f.cause,
            Cause::Slowdown(Slowdown::StepsGrow {
                grew: SlowdownPart::GpuWork,
                ..
            })
        ));
    }

    /// A run of 50 s of steady steps whose evaluation passes, one every 50 steps, took `ms`
    /// each.
    fn with_evals(ms: &[f64]) -> Fixture {
        let mut fx = Fixture::default();
        let markers = ms
            .iter()
            .enumerate()
            .map(|(i, &d)| checkup_model::RunMarker {
                step: 50 * (i as u64 + 1),
                t: i as f64 * 10.0,
                kind: MarkerKind::Eval,
                detail: String::new(),
                duration_ms: Some(d),
            })
            .collect();
        fx.a.markers.insert(0, markers);
        fx.a.ledgers.insert(
            0,
            checkup_model::TimeLedger {
                total_s: 55.0,
                parts: vec![
                    checkup_model::LedgerPart {
                        kind: checkup_model::LedgerKind::WarmUp,
                        seconds: 5.0,
                        share: 5.0 / 55.0,
                        finding: None,
                    },
                    checkup_model::LedgerPart {
                        kind: checkup_model::LedgerKind::NotExplained,
                        seconds: 50.0,
                        share: 50.0 / 55.0,
                        finding: None,
                    },
                ],
                ..Default::default()
            },
        );
        fx
    }

    #[test]
    fn an_evaluation_that_takes_longer_each_time_is_a_slowdown_of_its_own() {
        // 390 ms at first, 1.4 s at the end: 4.05 s beyond the fastest of the first passes
        // (380 ms, the work before it grew), 8.1 % of the 50 s of steady steps (the warm-up
        // is not among them).
        let ms = [
            380.0, 390.0, 400.0, 600.0, 800.0, 1000.0, 1200.0, 1300.0, 1400.0,
        ];
        let fx = with_evals(&ms);
        let f = periodic_finding(&fx.cx(), MarkerKind::Eval).unwrap();
        let Cause::Slowdown(Slowdown::PeriodicGrows {
            work,
            first_ms,
            last_ms,
            count,
            began_at_step,
        }) = f.cause
        else {
            panic!("{:?}", f.cause)
        };
        assert_eq!(
            (work, first_ms, last_ms, count),
            (MarkerKind::Eval, 390.0, 1300.0, 9)
        );
        // From the fourth pass on each took over 10 % longer than the first ones.
        assert_eq!(began_at_step, 200);
        let extra: f64 = ms.iter().map(|d| (d - 380.0f64).max(0.0)).sum();
        assert!((extra - 4050.0).abs() < 1e-9);
        assert!((f.share - extra / 1e3 / 50.0).abs() < 1e-9, "{}", f.share);
        assert_eq!(
            f.fixes,
            [Fix::Slowdown(SlowdownFix::ConstantPeriodicWork {
                work: MarkerKind::Eval
            })]
        );
        // No other kind of periodic work was timed.
        assert!(periodic_finding(&fx.cx(), MarkerKind::Checkpoint).is_none());
    }

    #[test]
    fn periodic_work_that_varies_or_grows_little_is_no_slowdown() {
        // The corpus's evaluation passes: 316 to 406 ms in no order.
        let varies = [
            336.0, 376.0, 400.0, 346.0, 316.0, 353.0, 406.0, 320.0, 385.0, 328.0,
        ];
        assert!(periodic_finding(&with_evals(&varies).cx(), MarkerKind::Eval).is_none());
        // A creep of 1 % a pass: 6 % from the first third to the last, under the fifth a
        // slowdown needs.
        let little = [
            100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0,
        ];
        assert!(periodic_finding(&with_evals(&little).cx(), MarkerKind::Eval).is_none());
        // Five runs are too few to split in thirds.
        let few = [100.0, 200.0, 400.0, 800.0, 1600.0];
        assert!(periodic_finding(&with_evals(&few).cx(), MarkerKind::Eval).is_none());
        // Growing, but what it adds (55 ms) is far under the reportable share of the run.
        let small = [10.0, 10.0, 11.0, 14.0, 16.0, 18.0, 20.0, 22.0, 24.0];
        assert!(periodic_finding(&with_evals(&small).cx(), MarkerKind::Eval).is_none());
    }
}
