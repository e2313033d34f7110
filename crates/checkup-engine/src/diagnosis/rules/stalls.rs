//! Periodic stalls: a long step every N steps during which the GPU has nothing to do.

use checkup_model::{
    Cause, Comparison, EvidenceKey as K, Finding, FixReach, MarkerKind, PeriodicStall,
    PeriodicStallEvidence, PeriodicStallFix, PeriodicWork, RunMarker, Source, StepTiming, Unit,
};

use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome, TraceStalls};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    finding(cx).into()
}

/// Share of stalls during which the GPU's sampled utilisation dropped below busy, or None
/// without samples. A long host-side step while the GPU stays busy is the host waiting for
/// the GPU (a sync draining a deep queue), not a stall. Readings up to
/// `util_report_lag_s` after the step count: the GPU idles at the end of a stalled step
/// (once its queue drains) and GPU-Util reports a sample period late.
fn stalls_seen_idle(cx: &Ctx, t: &StepTiming) -> Option<f64> {
    let g = cx.gpu_series()?;
    let t0 = cx.a.charts.t0;
    let mut checked = 0;
    let mut idle = 0;
    for s in &t.stalls {
        let a = s.t_start - t0;
        let b = a + s.duration_ms / 1e3 + cx.th.util_report_lag_s;
        let inside: Vec<f32> = g.util_within(a, b).collect();
        if inside.is_empty() {
            continue;
        }
        checked += 1;
        if inside.iter().any(|u| (*u as f64) < cx.th.util_busy_pct) {
            idle += 1;
        }
    }
    (checked > 0).then(|| idle as f64 / checked as f64)
}

/// Whether marker `m` falls in stall `s`. A garbage collection counts only when it took at
/// least half the stall's excess; an epoch start only when it started workers (a
/// persistent loader's new epoch costs nothing).
fn in_stall(m: &RunMarker, s: &checkup_model::Stall) -> bool {
    // A background write began steps before the save that waits for it: it counts when
    // it was still being written during the stall.
    if m.is_background_write() {
        let end = m.t + m.duration_ms.unwrap_or(0.0) / 1e3;
        return m.t < s.t_start + s.duration_ms / 1e3 && end > s.t_start;
    }
    (s.step..s.step.saturating_add(s.steps)).contains(&m.step)
        && match m.kind {
            MarkerKind::EpochStart => m.detail.contains("forked"),
            MarkerKind::Gc => m.duration_ms.unwrap_or(0.0) >= 0.5 * s.excess_ms,
            MarkerKind::Checkpoint | MarkerKind::Eval | MarkerKind::Compile => true,
        }
}

/// The stalls in which the probe marked work of `kind`.
fn stalls_marked(cx: &Ctx, t: &StepTiming, kind: MarkerKind) -> usize {
    t.stalls
        .iter()
        .filter(|s| cx.markers.iter().any(|m| m.kind == kind && in_stall(m, s)))
        .count()
}

/// What the probe's markers show in the stalled steps: the kind of periodic work marked in
/// the most of them, if that is at least half, with how many.
fn stall_work(cx: &Ctx, t: &StepTiming) -> Option<(PeriodicWork, usize)> {
    if cx.markers.is_empty() || t.stalls.is_empty() {
        return None;
    }
    let kinds = [
        MarkerKind::EpochStart,
        MarkerKind::Checkpoint,
        MarkerKind::Eval,
        MarkerKind::Gc,
        MarkerKind::Compile,
    ];
    let (kind, n) = kinds
        .iter()
        .map(|k| (*k, stalls_marked(cx, t, *k)))
        .max_by_key(|(_, n)| *n)?;
    if n == 0 || 2 * n < t.stalls.len() {
        return None;
    }
    let work = match kind {
        MarkerKind::EpochStart => PeriodicWork::EpochStart {
            workers: cx
                .markers
                .iter()
                .find(|m| m.kind == MarkerKind::EpochStart)
                .and_then(|m| {
                    m.detail
                        .split_whitespace()
                        .find_map(|w| w.strip_prefix("workers="))
                })
                .and_then(|w| w.parse().ok())
                .unwrap_or(0),
            batches_per_epoch: cx
                .training
                .and_then(|t| t.main_loader())
                .and_then(|l| l.batches_per_epoch),
        },
        MarkerKind::Checkpoint if RunMarker::checkpoints_in_background(cx.markers) => {
            PeriodicWork::BackgroundCheckpoint
        }
        MarkerKind::Checkpoint => PeriodicWork::Checkpoint,
        MarkerKind::Eval => PeriodicWork::Eval,
        MarkerKind::Gc => PeriodicWork::GarbageCollection,
        // Stalls that are dynamo recompiling are the compilation finding's.
        MarkerKind::Compile => return None,
    };
    Some((work, n))
}

/// A stall's excess less the compilations the probe timed in it, ms: dynamo compiling
/// inside a stall is the compilation finding's time (the ledger's too), not the period's.
fn excess_not_compiling(cx: &Ctx, s: &checkup_model::Stall) -> f64 {
    let compiling: f64 = cx
        .markers
        .iter()
        .filter(|m| m.kind == MarkerKind::Compile && in_stall(m, s))
        .filter_map(|m| m.duration_ms)
        .sum();
    (s.excess_ms - compiling).max(0.0)
}

/// Whether dynamo compiled in at least half the stalls.
fn stalls_compiling(cx: &Ctx, t: &StepTiming) -> bool {
    let compiling = stalls_marked(cx, t, MarkerKind::Compile);
    compiling > 0 && 2 * compiling >= t.stalls.len()
}

/// What the trace shows of the stalls it holds: host read-backs when every profiled stall
/// waited on the GPU many times more than a normal profiled step did, and the GPU idle
/// after those waits makes up at least half the stall's excess.
fn stall_work_in_trace(cx: &Ctx) -> Option<(PeriodicWork, usize)> {
    // torch.save copies each CUDA tensor to the host too: a stall that writes is a checkpoint.
    if cx.rank?.host_waits.checkpoint_us > 0.0 {
        return None;
    }
    let TraceStalls { stalled, others } = cx.trace_stalls()?;
    let normal: Vec<f64> = others
        .iter()
        .filter(|s| s.period_us > 0.0)
        .map(|s| s.waits as f64)
        .collect();
    if normal.is_empty() {
        return None;
    }
    let normal_waits = crate::analysis::stats::median(&normal);
    let readback = |(excess_us, s): &(f64, &checkup_model::StepSyncs)| {
        let waits = s.waits as f64;
        waits >= cx.th.readback_stall_min_waits
            && waits >= cx.th.readback_stall_factor * normal_waits.max(1.0)
            && s.sync_idle_us >= 0.5 * excess_us
    };
    if !stalled.iter().all(readback) {
        return None;
    }
    let per_stall = crate::analysis::stats::median(
        &stalled
            .iter()
            .map(|(_, s)| s.waits as f64)
            .collect::<Vec<_>>(),
    );
    Some((
        PeriodicWork::HostReadback {
            readbacks_per_stall: per_stall,
        },
        stalled.len(),
    ))
}

fn finding(cx: &Ctx) -> Option<Finding> {
    let t = cx.timing?;
    let period = t.stall_period_steps?;
    let seen_idle = stalls_seen_idle(cx, t);
    let gpu_busy = seen_idle.map(|s| s < cx.th.stalls_idle_share);
    // Stalls that are dynamo recompiling are the compilation finding's, not a period's.
    if stalls_compiling(cx, t) {
        return None;
    }
    let marked = stall_work(cx, t);
    // A GPU busy through the long steps is the host waiting for it, unless the probe timed
    // periodic work in them: an evaluation pass keeps the GPU busy and is a stall all the same.
    if gpu_busy == Some(true) && marked.is_none() {
        return None;
    }
    let excess: Vec<f64> = t
        .stalls
        .iter()
        .map(|s| excess_not_compiling(cx, s))
        .collect();
    let share = cx.steady_share(excess.iter().sum());
    let median_excess = crate::analysis::stats::median(&excess);
    let checkpoint_seen = cx.rank.is_some_and(|r| r.host_waits.checkpoint_us > 0.0);
    let mut evidence = vec![
        ev(
            K::PeriodicStall(PeriodicStallEvidence::StallPeriod),
            period,
            Unit::Steps,
            None,
            Source::StepsCsv,
        ),
        ev(
            K::PeriodicStall(PeriodicStallEvidence::StallExcess),
            median_excess,
            Unit::Ms,
            Some((
                Comparison::AtLeast,
                (cx.th.stall_factor - 1.0) * t.median_step_ms,
            )),
            Source::StepsCsv,
        ),
        ev(
            K::PeriodicStall(PeriodicStallEvidence::StallCount),
            t.stalls.len() as f64,
            Unit::Stalls,
            Some((Comparison::AtLeast, cx.th.min_stalls as f64)),
            Source::StepsCsv,
        ),
        share_ev(
            K::PeriodicStall(PeriodicStallEvidence::StallLostShare),
            share,
            None,
            Source::StepsCsv,
        ),
    ];
    if let Some(p) = cx.gpu.and_then(|g| g.dip_period_s) {
        evidence.push(ev(
            K::PeriodicStall(PeriodicStallEvidence::UtilDipPeriod),
            p,
            Unit::Seconds,
            None,
            Source::NvmlSamples,
        ));
    }
    if let Some(s) = seen_idle {
        evidence.push(share_ev(
            K::PeriodicStall(PeriodicStallEvidence::StallsSeenIdle),
            s,
            Some(cx.th.stalls_idle_share),
            Source::NvmlSamples,
        ));
    }
    let between = cx.normal_step_ms().map(|normal| normal * period);
    if let Some(ms) = between {
        evidence.push(ev(
            K::PeriodicStall(PeriodicStallEvidence::TrainingBetweenStalls),
            ms,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ));
    }
    if let Some(w) =
        cx.a.host
            .as_ref()
            .and_then(|h| h.disk_write_mbs_max)
            .filter(|w| *w > 0.0)
    {
        evidence.push(ev(
            K::PeriodicStall(PeriodicStallEvidence::PeakDiskWrite),
            w,
            Unit::MbPerS,
            None,
            Source::HostSamples,
        ));
    }
    if let Some((_, n)) = &marked {
        evidence.push(ev(
            K::PeriodicStall(PeriodicStallEvidence::StallsWithMarker),
            *n as f64,
            Unit::Stalls,
            None,
            Source::Probe,
        ));
    }
    let work = marked.or_else(|| {
        let (work, n) = stall_work_in_trace(cx)?;
        if let PeriodicWork::HostReadback {
            readbacks_per_stall,
        } = &work
        {
            evidence.push(ev(
                K::PeriodicStall(PeriodicStallEvidence::ProfiledStalls),
                n as f64,
                Unit::Stalls,
                None,
                cx.rank_source(),
            ));
            evidence.push(ev(
                K::PeriodicStall(PeriodicStallEvidence::ReadbacksPerStall),
                *readbacks_per_stall,
                Unit::Calls,
                Some((Comparison::AtLeast, cx.th.readback_stall_min_waits)),
                cx.rank_source(),
            ));
        }
        Some((work, n))
    });
    let work = work.map(|(w, _)| w);
    let pace = between.and_then(|between| checkpoint_pace(cx, t, work.as_ref(), between));
    // Passes that grow are fixed first by keeping them the same (the slowdown's fix): a
    // longer period priced on their median would only put the growth off.
    let eval_pace = between
        .and_then(|between| {
            eval_pace(
                cx.th.eval_share_of_training,
                work.as_ref(),
                period,
                median_excess,
                between,
            )
        })
        .filter(|_| !super::slowdown::periodic_work_grows(cx, MarkerKind::Eval));
    if let Some(copy) = staging_copy_ms(cx, t, work.as_ref()) {
        evidence.push(ev(
            K::PeriodicStall(PeriodicStallEvidence::StagingCopy),
            copy,
            Unit::Ms,
            None,
            Source::Probe,
        ));
        if let Some(write) = checkpoint_write_ms(cx, work.as_ref(), median_excess, copy) {
            evidence.push(ev(
                K::PeriodicStall(PeriodicStallEvidence::CheckpointWrite),
                write,
                Unit::Ms,
                None,
                Source::Probe,
            ));
        }
    }
    Some(Finding {
        gains: Default::default(),
        fixes: fixes::periodic_stall(
            checkpoint_seen,
            work.as_ref(),
            &cx.run_settings(),
            pace,
            eval_pace,
        ),
        cause: Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps: period,
            excess_ms: median_excess,
            work,
            gpu_busy,
        }),
        severity: cx.severity(share),
        confidence: confidence::STALLS,
        share,
        evidence,
    })
}

/// Evaluation passes of `pass_ms` beyond a normal step, every `period` steps of `between` ms
/// of training: when they take more than `share` of that, the period (a multiple of the
/// run's, so passes stay where they were) at which they take at most that.
fn eval_pace(
    share: f64,
    work: Option<&PeriodicWork>,
    period: f64,
    pass_ms: f64,
    between: f64,
) -> Option<fixes::EvalPace> {
    if !matches!(work?, PeriodicWork::Eval) || period < 1.0 || between <= 0.0 {
        return None;
    }
    let times = (pass_ms / (share * between)).ceil();
    (times >= 2.0).then(|| fixes::EvalPace {
        period_steps: period.round() as u64,
        every_steps: (period * times).round() as u64,
        pass_ms,
        pass_share: share,
    })
}

/// When checkpoints' writes take longer than the training between two saves (`between`,
/// ms), the period that lets each end before the next is due: the run's period times
/// however many it takes for the longest write (the stalls' excess for writes in the loop,
/// the writes' own time for those in the background, which grow as a disk fills its cache).
fn checkpoint_pace(
    cx: &Ctx,
    t: &StepTiming,
    work: Option<&PeriodicWork>,
    between: f64,
) -> Option<fixes::CheckpointPace> {
    let write_ms = match work? {
        PeriodicWork::Checkpoint => t.stalls.iter().map(|s| s.excess_ms).fold(0.0, f64::max),
        PeriodicWork::BackgroundCheckpoint => background_write_ms(cx).fold(0.0, f64::max),
        _ => return None,
    };
    let period = t.stall_period_steps?;
    if between <= 0.0 || write_ms <= between {
        return None;
    }
    Some(fixes::CheckpointPace {
        every_steps: ((write_ms / between).ceil() * period).round() as u64,
        write_ms,
    })
}

/// What a save keeps in the loop once its write is in the background: copying the state to
/// host memory. A background writer's shortest stall is that copy (a save that found the
/// previous write done); a save written in the loop is that copy and the write, whose part
/// is its bytes at the disk's peak write rate, so the shortest stall less that. None for
/// other work, or without the bytes or the disk's rate.
fn staging_copy_ms(cx: &Ctx, t: &StepTiming, work: Option<&PeriodicWork>) -> Option<f64> {
    let shortest = t
        .stalls
        .iter()
        .map(|s| s.excess_ms)
        .reduce(f64::min)
        .filter(|ms| *ms > 0.0)?;
    match work? {
        PeriodicWork::BackgroundCheckpoint => Some(shortest),
        PeriodicWork::Checkpoint => {
            let bytes = cx.markers.iter().filter_map(|m| m.bytes()).max()?;
            let disk_mbs =
                cx.a.host
                    .as_ref()?
                    .disk_write_mbs_max
                    .filter(|r| *r > 0.0)?;
            let write_ms = bytes as f64 / 1e6 / disk_mbs * 1e3;
            Some((shortest - write_ms).max(0.0))
        }
        _ => None,
    }
}

/// How long each checkpoint written on another thread took, ms, as the probe timed it on
/// the writer's thread.
fn background_write_ms<'a>(cx: &'a Ctx) -> impl Iterator<Item = f64> + 'a {
    cx.markers
        .iter()
        .filter(|m| m.is_background_write())
        .filter_map(|m| m.duration_ms)
}

/// A save's write beyond its copy to host memory, ms: what a background writer does beside
/// the loop. A save in the loop: its typical stall less the copy; a background writer: its
/// typical write (the probe times each on the writer's thread).
fn checkpoint_write_ms(
    cx: &Ctx,
    work: Option<&PeriodicWork>,
    median_excess: f64,
    copy: f64,
) -> Option<f64> {
    match work? {
        PeriodicWork::Checkpoint => Some((median_excess - copy).max(0.0)),
        PeriodicWork::BackgroundCheckpoint => {
            let writes: Vec<f64> = background_write_ms(cx).collect();
            (!writes.is_empty()).then(|| crate::analysis::stats::median(&writes))
        }
        _ => None,
    }
    .filter(|ms| *ms > 0.0)
}

/// The part of a checkpoint stall that saving in the background, at `every_steps`,
/// removes: all of it but one copy to host memory per save; if the writer holds the
/// interpreter while it writes, the loop also waits out each write, and only the part
/// beyond both goes. The recording cannot tell which: both ends are kept.
fn outside_staging_copy(finding: &Finding, every_steps: Option<u64>) -> FixReach {
    let Cause::PeriodicStall(PeriodicStall::Stalls {
        period_steps,
        excess_ms,
        ..
    }) = finding.cause
    else {
        return FixReach::Cause;
    };
    let value = |k| finding.evidence_value(&K::PeriodicStall(k));
    let copy = value(PeriodicStallEvidence::StagingCopy);
    let write = value(PeriodicStallEvidence::CheckpointWrite).unwrap_or(0.0);
    let every = every_steps.map_or(period_steps, |n| n as f64);
    match copy {
        Some(copy) if excess_ms > 0.0 && period_steps > 0.0 && every > 0.0 => {
            let removed = |kept_per_save: f64| {
                (1.0 - (kept_per_save / every) / (excess_ms / period_steps)).clamp(0.0, 1.0)
            };
            FixReach::OutsideStagingCopy {
                part: removed(copy),
                at_least: removed(copy + write),
            }
        }
        _ => FixReach::Cause,
    }
}

/// What part of `finding`'s lost time a stall fix removes: no collection asked for, a frozen
/// collector or work summed on the GPU remove the stalls; a checkpoint written aside (when
/// the probe saw checkpoints, at a pace its writes keep up with) or saved less often leave
/// one copy to host memory per save.
pub fn reach(fix: &PeriodicStallFix, finding: &Finding) -> FixReach {
    match fix {
        // Frozen too early, by how much later the recording cannot say.
        PeriodicStallFix::FreezeGc { again_later: true } => FixReach::Supporting,
        PeriodicStallFix::FreezeGc { again_later: false }
        | PeriodicStallFix::NoCollectInLoop { .. }
        | PeriodicStallFix::SummariseOnGpu { .. } => FixReach::Cause,
        PeriodicStallFix::CheckpointLessOften { every_steps, .. } => {
            outside_staging_copy(finding, Some(*every_steps))
        }
        // One pass in `every / period` is left, at the cost it had.
        PeriodicStallFix::EvaluateLessOften {
            period_steps,
            every_steps,
            ..
        } if *every_steps > 0 => FixReach::FewerPasses(
            (1.0 - *period_steps as f64 / *every_steps as f64).clamp(0.0, 1.0),
        ),
        PeriodicStallFix::EvaluateLessOften { .. } => FixReach::Supporting,
        PeriodicStallFix::AsyncCheckpoint {
            checkpoint_seen: true,
            every_steps,
        } => outside_staging_copy(finding, *every_steps),
        PeriodicStallFix::AsyncCheckpoint { .. } | PeriodicStallFix::LessPeriodicWork => {
            FixReach::Supporting
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::{rank_with_profiled_stall, Fixture};

    #[test]
    fn evaluation_passes_over_a_twentieth_of_the_training_are_told_a_longer_multiple() {
        // 358 ms passes every 40 steps of 583 ms training: 13 periods bring a pass under a
        // twentieth of the training between two.
        let pace = eval_pace(0.05, Some(&PeriodicWork::Eval), 40.0, 358.0, 583.0).unwrap();
        assert_eq!((pace.period_steps, pace.every_steps), (40, 520));
        // A pass of a twentieth or less is left as it is, and other work is not evaluation.
        assert!(eval_pace(0.05, Some(&PeriodicWork::Eval), 40.0, 29.0, 583.0).is_none());
        assert!(eval_pace(0.05, Some(&PeriodicWork::Checkpoint), 40.0, 358.0, 583.0).is_none());
        assert!(eval_pace(0.05, None, 40.0, 358.0, 583.0).is_none());
    }

    /// A GPU's curve: readings every 0.1 s for 10 s at `util` percent.
    fn curve(gpu: u32, util: f32) -> checkup_model::GpuSeries {
        checkup_model::GpuSeries {
            gpu,
            t: (0..100).map(|i| i as f64 / 10.0).collect(),
            util_pct: vec![Some(util); 100],
            ..Default::default()
        }
    }

    #[test]
    fn stalls_are_judged_on_the_diagnosed_gpus_curve_not_the_first_one() {
        // Rank 0 trains on GPU 1 (the GPU its step statistics describe); GPU 0, busy with
        // someone else's work, comes first in the charts. The stalls happen on an idle GPU 1.
        let t = StepTiming {
            stalls: vec![
                checkup_model::Stall {
                    step: 12,
                    steps: 1,
                    t_start: 2.0,
                    duration_ms: 400.0,
                    excess_ms: 390.0,
                },
                checkup_model::Stall {
                    step: 24,
                    steps: 1,
                    t_start: 6.0,
                    duration_ms: 400.0,
                    excess_ms: 390.0,
                },
            ],
            ..StepTiming::default()
        };
        let mut fx = Fixture::with_rank(checkup_model::RankSummary::default())
            .timing(t.clone())
            .gpu(checkup_model::SampleStats {
                gpu: 1,
                ..Default::default()
            });
        fx.a.charts.gpus = vec![curve(0, 100.0), curve(1, 0.0)];
        assert_eq!(stalls_seen_idle(&fx.cx(), &t), Some(1.0));
        // And a GPU that was never sampled gives no verdict, rather than another's.
        fx.a.charts.gpus = vec![curve(0, 100.0)];
        assert_eq!(stalls_seen_idle(&fx.cx(), &t), None);
    }

    #[test]
    fn a_compilation_timed_inside_a_stall_is_not_the_stalls_time() {
        // A stall every 250 steps, each new sequence length's first step (120 ms beyond a
        // normal one); at step 250 dynamo also compiled for 8.3 s, which is the
        // compilation finding's time. A collection in another stall is the stall's.
        let stall = |step: u64, excess_ms: f64| checkup_model::Stall {
            step,
            steps: 1,
            t_start: step as f64,
            duration_ms: excess_ms + 10.0,
            excess_ms,
        };
        let marker = |step: u64, kind: MarkerKind, ms: f64| RunMarker {
            step,
            t: step as f64,
            kind,
            detail: String::new(),
            duration_ms: Some(ms),
        };
        let mut fx = Fixture::with_rank(checkup_model::RankSummary::default());
        fx.a.markers.insert(
            0,
            vec![
                marker(250, MarkerKind::Compile, 8_300.0),
                marker(500, MarkerKind::Gc, 100.0),
            ],
        );
        let cx = fx.cx();
        assert_eq!(excess_not_compiling(&cx, &stall(250, 8_420.0)), 120.0);
        assert_eq!(excess_not_compiling(&cx, &stall(500, 120.0)), 120.0);
        // A compilation in another step is not this stall's.
        assert_eq!(excess_not_compiling(&cx, &stall(750, 120.0)), 120.0);
    }

    #[test]
    fn a_stall_of_read_backs_in_the_trace_is_host_readback_work() {
        // 490 ms of excess; 480 ms of it idle after 100 read-backs.
        let (r, t) = rank_with_profiled_stall(100, 480_000.0);
        let fx = Fixture::with_rank(r).timing(t);
        assert_eq!(
            stall_work_in_trace(&fx.cx()),
            Some((
                PeriodicWork::HostReadback {
                    readbacks_per_stall: 100.0
                },
                1
            ))
        );
    }

    #[test]
    fn a_stall_whose_idle_is_mostly_not_after_read_backs_is_not_classified() {
        // Idle after the waits: 240 ms of 490 ms excess, under half.
        let (r, t) = rank_with_profiled_stall(100, 240_000.0);
        let fx = Fixture::with_rank(r).timing(t);
        assert_eq!(stall_work_in_trace(&fx.cx()), None);
    }

    #[test]
    fn a_few_waits_are_not_a_read_back_of_many_tensors() {
        let (r, t) = rank_with_profiled_stall(7, 480_000.0);
        let fx = Fixture::with_rank(r).timing(t);
        assert_eq!(stall_work_in_trace(&fx.cx()), None);
    }

    #[test]
    fn a_stall_that_saves_with_torch_save_is_a_checkpoint_not_read_backs() {
        let (mut r, t) = rank_with_profiled_stall(100, 480_000.0);
        r.host_waits.checkpoint_us = 1_000.0;
        let fx = Fixture::with_rank(r).timing(t);
        assert_eq!(stall_work_in_trace(&fx.cx()), None);
    }
}
