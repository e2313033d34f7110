//! Periodic stalls: a long step every N steps during which the GPU has nothing to do.

use checkup_model::{
    Cause, Comparison, EvidenceKey as K, Finding, MarkerKind, PeriodicWork, RunMarker, Source,
    StepTiming, Unit,
};

use crate::diagnosis::thresholds::confidence;
use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    finding(cx).into()
}

/// Share of stalls during which the GPU's sampled utilisation dropped below busy, or None
/// without samples. A long host-side step while the GPU stays busy is the host waiting for
/// the GPU (a sync draining a deep queue), not a stall. Readings up to
/// `util_report_lag_s` after the step count: the GPU idles at the end of a stalled step
/// (once its queue drains) and GPU-Util reports a sample period late.
fn stalls_seen_idle(cx: &Ctx, t: &StepTiming) -> Option<f64> {
    let g =
        cx.a.charts
            .gpus
            .iter()
            .find(|g| Some(g.gpu) == cx.rank.map(|r| r.rank))
            .or(cx.a.charts.gpus.first())?;
    let t0 = cx.a.charts.t0;
    let mut checked = 0;
    let mut idle = 0;
    for s in &t.stalls {
        let a = s.t_start - t0;
        let b = a + s.duration_ms / 1e3 + cx.th.util_report_lag_s;
        let inside: Vec<f32> =
            g.t.iter()
                .zip(&g.util_pct)
                .filter(|(ts, _)| **ts >= a && **ts <= b)
                .filter_map(|(_, u)| *u)
                .collect();
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

/// What the probe's markers show in the stalled steps: the kind of periodic work marked in
/// the most of them, if that is at least half, with how many. A garbage collection counts
/// only when it took at least half the stall's excess; an epoch start only when it started
/// workers (a persistent loader's new epoch costs nothing).
fn stall_work(cx: &Ctx, t: &StepTiming) -> Option<(PeriodicWork, usize)> {
    if cx.markers.is_empty() || t.stalls.is_empty() {
        return None;
    }
    let in_stall = |m: &RunMarker, s: &checkup_model::Stall| {
        m.step == s.step
            && match m.kind {
                MarkerKind::EpochStart => m.detail.contains("forked"),
                MarkerKind::Gc => m.duration_ms.unwrap_or(0.0) >= 0.5 * s.excess_ms,
                MarkerKind::Checkpoint | MarkerKind::Eval => true,
            }
    };
    let kinds = [
        MarkerKind::EpochStart,
        MarkerKind::Checkpoint,
        MarkerKind::Eval,
        MarkerKind::Gc,
    ];
    let (kind, n) = kinds
        .iter()
        .map(|k| {
            let n = t
                .stalls
                .iter()
                .filter(|s| cx.markers.iter().any(|m| m.kind == *k && in_stall(m, s)))
                .count();
            (*k, n)
        })
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
        MarkerKind::Checkpoint => PeriodicWork::Checkpoint,
        MarkerKind::Eval => PeriodicWork::Eval,
        MarkerKind::Gc => PeriodicWork::GarbageCollection,
    };
    Some((work, n))
}

fn finding(cx: &Ctx) -> Option<Finding> {
    let t = cx.timing?;
    let period = t.stall_period_steps?;
    let seen_idle = stalls_seen_idle(cx, t);
    if seen_idle.is_some_and(|s| s < cx.th.stalls_idle_share) {
        return None;
    }
    let share = cx.stall_share();
    let median_excess =
        crate::analysis::stats::median(&t.stalls.iter().map(|s| s.excess_ms).collect::<Vec<_>>());
    let checkpoint_seen = cx.rank.is_some_and(|r| r.host_waits.checkpoint_us > 0.0);
    let mut evidence = vec![
        ev(K::StallPeriod, period, Unit::Steps, None, Source::StepsCsv),
        ev(
            K::StallExcess,
            median_excess,
            Unit::Ms,
            Some((
                Comparison::AtLeast,
                (cx.th.stall_factor - 1.0) * t.median_step_ms,
            )),
            Source::StepsCsv,
        ),
        ev(
            K::StallCount,
            t.stalls.len() as f64,
            Unit::Stalls,
            Some((Comparison::AtLeast, cx.th.min_stalls as f64)),
            Source::StepsCsv,
        ),
        share_ev(K::StallLostShare, share, None, Source::StepsCsv),
    ];
    if let Some(p) = cx.gpu.and_then(|g| g.dip_period_s) {
        evidence.push(ev(
            K::UtilDipPeriod,
            p,
            Unit::Seconds,
            None,
            Source::NvmlSamples,
        ));
    }
    if let Some(s) = seen_idle {
        evidence.push(share_ev(
            K::StallsSeenIdle,
            s,
            Some(cx.th.stalls_idle_share),
            Source::NvmlSamples,
        ));
    }
    if let Some(w) =
        cx.a.host
            .as_ref()
            .and_then(|h| h.disk_write_mbs_max)
            .filter(|w| *w > 0.0)
    {
        evidence.push(ev(
            K::PeakDiskWrite,
            w,
            Unit::MbPerS,
            None,
            Source::HostSamples,
        ));
    }
    let work = stall_work(cx, t);
    if let Some((_, n)) = &work {
        evidence.push(ev(
            K::StallsWithMarker,
            *n as f64,
            Unit::Stalls,
            None,
            Source::Probe,
        ));
    }
    let work = work.map(|(w, _)| w);
    Some(Finding {
        fixes: fixes::periodic_stall(checkpoint_seen, work.as_ref(), &cx.run_settings()),
        cause: Cause::PeriodicStall {
            period_steps: period,
            excess_ms: median_excess,
            work,
        },
        severity: cx.severity(share),
        confidence: confidence::STALLS,
        share,
        evidence,
    })
}
