//! Host synchronisation: the loop waits for the GPU, then the GPU waits for the host.

use checkup_model::{
    Cause, Comparison, EvidenceKey as K, EvidenceKey, Finding, FixReach, HostSync,
    HostSyncEvidence, HostSyncFix, Source, SyncSite, Unit,
};

use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome, TraceStalls};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    // With anomaly detection on, every backward operation reads a NaN flag back: those
    // reads are the syncs here, and the anomaly finding carries them; telling the user to
    // read back less at `loss.backward()` would be advice about code the run does not have.
    if super::launches::anomaly_detection_on(cx) {
        return Outcome::default();
    }
    finding(cx).into()
}

/// Whether the host syncs every step yet could launch a step's work faster than the GPU runs
/// it: then every launch gap of the step follows from the sync draining the queue, and
/// would vanish without it (the host would run ahead). A sync that returns into a GPU that
/// never idles after it (a wait on work long done) drains nothing.
pub fn sync_drains_queue(cx: &Ctx) -> bool {
    cx.rank.is_some_and(|r| {
        let w = &r.host_waits;
        w.sync_calls_per_step + w.item_calls_per_step >= cx.th.sync_calls_per_step
            && w.sync_us >= cx.th.sync_smell_min_share * r.gpu.window_us
            && w.host_work_per_step_us > 0.0
            && w.host_work_per_step_us < r.gpu_busy_per_step_us
    })
}

/// The host's own work per step at unprofiled speed, at most. The trace's host work is the
/// profiler's, slower than the run's; and a loop that waits at a sync every step shows its
/// speed in no step time. Two upper bounds, the lower kept:
/// - the trace's host work less what the profiler added to the step (a faster host only
///   waits longer at the sync), plus what the run's steps take beyond those around the
///   window;
/// - the training's CPU per step from the host samples (its work runs on the CPU, the
///   backward pass's launches on autograd's own thread; waits add to it where they spin).
///
/// None without unprofiled steps.
pub fn unprofiled_host_work_ms(cx: &Ctx) -> Option<f64> {
    let r = cx.rank?;
    let step_ms = cx.normal_step_ms().filter(|t| *t > 0.0)?;
    let w = &r.host_waits;
    // The profiler's addition is read against the unprofiled steps around the window; steps
    // elsewhere that run longer (a run that slows down) may hold that much more host work.
    let near_ms = cx
        .timing
        .and_then(|t| t.profiled_steps)
        .and_then(|(first, _)| {
            let tenths = &cx.step_trend()?.tenths;
            tenths.iter().rev().find(|t| t.first_step <= first)
        })
        .map_or(step_ms, |t| t.step_ms);
    let profiler_added = (r.profiled_step_us / 1e3 - near_ms).max(0.0);
    let elsewhere = (step_ms - near_ms).max(0.0);
    let from_trace = (w.host_work_per_step_us > 0.0)
        .then(|| (w.host_work_per_step_us / 1e3 - profiler_added + elsewhere).max(0.0));
    let from_cpu =
        cx.a.host
            .as_ref()
            .and_then(|h| h.proc_tree_cpu_mean)
            .map(|cpu| cpu / 100.0 * step_ms);
    match (from_trace, from_cpu) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// What syncs the probe counted in every step cost at unprofiled speed.
#[derive(Debug, Clone, Copy)]
pub struct UnprofiledSyncs {
    /// The least share of a normal step they cost.
    pub share: f64,
    /// The host's own work per step it rests on, at most ([`unprofiled_host_work_ms`]).
    pub host_work_ms: f64,
}

/// The share of a normal unprofiled step that syncs the probe counted in every step cost:
/// everything beyond what the step would take without them, the longer of the GPU's work and
/// the host's. The host's is known only as a bound ([`unprofiled_host_work_ms`]), so this is
/// the least they cost: the step's time beyond that bound (its fixes range down to the GPU's
/// work). A loop whose host work is all the step's gets nothing it cannot show: a per-step
/// `synchronize()` in a launch-bound loop costs it nothing. The profiled steps cannot say
/// it: the profiler's slower host waits at each sync less than the run's does. None when
/// the probe counted fewer syncs than one a step or the trace shows no GPU idle after them.
pub fn unprofiled_syncs(cx: &Ctx) -> Option<UnprofiledSyncs> {
    let r = cx.rank?;
    let (per_step, _, _) = probe_syncs(cx)?;
    if per_step < cx.th.sync_calls_per_step
        || r.host_waits.sync_us < cx.th.sync_smell_min_share * r.gpu.window_us
    {
        return None;
    }
    let host_work_ms = unprofiled_host_work_ms(cx)?;
    let share = share_beyond_work(cx, host_work_ms, f64::INFINITY)?;
    (share > 0.0).then_some(UnprofiledSyncs {
        share,
        host_work_ms,
    })
}

/// The least share of a normal unprofiled step that a wait holding the host costs: the step's
/// time beyond the longer of the GPU's work and `host_work_ms` (the host's own work, known
/// as an upper bound), never more than `most_ms` of it, as the GPU's idle at unprofiled
/// speed. Syncs and pageable copies are costed by it, each with its own bound.
pub fn share_beyond_work(cx: &Ctx, host_work_ms: f64, most_ms: f64) -> Option<f64> {
    let r = cx.rank?;
    let step_ms = cx.normal_step_ms().filter(|t| *t > 0.0)?;
    let (busy, _) = cx.gpu_busy()?;
    let gpu_ms = r.gpu_busy_per_step_us / 1e3;
    let at_least = (1.0 - gpu_ms.max(host_work_ms) / step_ms).clamp(0.0, most_ms / step_ms);
    Some(cx.idle_share_at_unprofiled_speed(at_least, busy))
}

/// The probe's count of syncs per step and its busiest line, with that line's calls per
/// step: counted in unprofiled steps, so they say how often the loop waits, wherever the
/// profiled window fell.
///
/// Where the trace shows copies from pageable memory to the GPU, the lines that copy to the GPU
/// synchronise because of them (the call returns when the copy is done): those waits are the
/// copy finding's, priced and fixed there, and are left out.
fn probe_syncs<'a>(cx: &Ctx<'a>) -> Option<(f64, &'a SyncSite, f64)> {
    let s = cx.training?.syncs.as_ref()?;
    let steps = s
        .steps
        .map(|[a, b]| (b + 1).saturating_sub(a))
        .filter(|n| *n > 0)?;
    let pageable = cx
        .rank
        .is_some_and(|r| r.host_waits.pageable_h2d_host_us_per_step > 0.0);
    // A host sort's order copied back is the sort's, gone with it once it runs on the GPU.
    let sorts = |x: &SyncSite| {
        s.sites
            .iter()
            .any(|y| y.sorts_on_host() && y.file == x.file && y.function == x.function)
    };
    let copies_pageable = |x: &SyncSite| pageable && x.copies_to_gpu() && !sorts(x);
    let in_copies: u64 = s
        .sites
        .iter()
        .filter(|x| copies_pageable(x))
        .map(|x| x.count)
        .sum();
    let per_step = (s.per_step? - in_copies as f64 / steps as f64).max(0.0);
    let sites: Vec<&'a SyncSite> = s.sites.iter().filter(|x| !copies_pageable(x)).collect();
    let most = sites.first()?.count;
    let busiest = sites.iter().copied().take_while(|x| x.count == most);
    // Of lines as busy, a sort on the host is the one to fix: the copy of its order back to
    // the GPU, as busy, follows from it.
    let top = busiest
        .clone()
        .find(|x| x.sorts_on_host())
        .or_else(|| sites.first().copied())?;
    let copied_back: u64 = if top.sorts_on_host() {
        busiest
            .filter(|x| !std::ptr::eq(*x, top))
            .filter(|x| x.file == top.file && x.function == top.function && x.copies_to_gpu())
            .map(|x| x.count)
            .sum()
    } else {
        0
    };
    Some((
        per_step,
        top,
        (top.count + copied_back) as f64 / steps as f64,
    ))
}

/// The trace's sync idle and synchronising calls per step, leaving out the steps that are
/// periodic stalls: a stall that reads tensors back is the stall rule's, and counting it
/// here would spread its cost over every step of the window.
struct PerStep {
    sync_us: f64,
    window_us: f64,
    sync_calls: f64,
    item_calls: f64,
}

fn per_step(cx: &Ctx, r: &checkup_model::RankSummary) -> PerStep {
    let w = &r.host_waits;
    let all = PerStep {
        sync_us: w.sync_us,
        window_us: r.gpu.window_us,
        sync_calls: w.sync_calls_per_step,
        item_calls: w.item_calls_per_step,
    };
    let Some(TraceStalls {
        stalled,
        others: rest,
    }) = cx.trace_stalls()
    else {
        return all;
    };
    let sync_us: f64 = stalled.iter().map(|(_, s)| s.sync_idle_us).sum();
    let period_us: f64 = stalled.iter().map(|(_, s)| s.period_us).sum();
    if rest.is_empty() || period_us >= all.window_us {
        return all;
    }
    PerStep {
        sync_us: (w.sync_us - sync_us).max(0.0),
        window_us: all.window_us - period_us,
        // A step's waits count each read-back once, `.item()` included.
        sync_calls: rest.iter().map(|s| s.waits as f64).sum::<f64>() / rest.len() as f64,
        item_calls: 0.0,
    }
}

fn finding(cx: &Ctx) -> Option<Finding> {
    let r = cx.rank?;
    let w = &r.host_waits;
    let probe = probe_syncs(cx);
    let drains = sync_drains_queue(cx);
    let p = per_step(cx, r);
    if p.window_us <= 0.0 {
        return None;
    }
    let traced = (p.sync_us + if drains { w.launch_us } else { 0.0 }) / p.window_us;
    let unprofiled = unprofiled_syncs(cx);
    let share = traced.max(unprofiled.map_or(0.0, |u| u.share));
    let many = p.sync_calls + p.item_calls >= cx.th.sync_calls_per_step;
    if share < cx.th.reportable_share && !(many && share > cx.th.sync_smell_min_share) {
        return None;
    }
    let src = cx.rank_source();
    Some(Finding {
        gains: Default::default(),
        cause: Cause::HostSync(HostSync::Readbacks),
        severity: cx.severity(share),
        confidence: confidence::MEASURED,
        share,
        evidence: vec![
            share_ev(
                K::HostSync(HostSyncEvidence::SyncIdleShare),
                share,
                Some(cx.th.significant_share),
                src.clone(),
            ),
            ev(
                K::HostSync(HostSyncEvidence::SyncCallsPerStep),
                p.sync_calls,
                Unit::Calls,
                Some((Comparison::AtLeast, cx.th.sync_calls_per_step)),
                src.clone(),
            ),
            ev(
                K::HostSync(HostSyncEvidence::ItemCallsPerStep),
                p.item_calls,
                Unit::Calls,
                None,
                src.clone(),
            ),
            ev(
                K::HostSync(HostSyncEvidence::HostLaunchTime),
                w.host_work_per_step_us / 1e3,
                Unit::Ms,
                None,
                src.clone(),
            ),
            ev(
                K::HostSync(HostSyncEvidence::GpuBusyPerStep),
                r.gpu_busy_per_step_us / 1e3,
                Unit::Ms,
                None,
                src,
            ),
        ]
        .into_iter()
        .chain(unprofiled.filter(|u| u.share >= traced).map(|u| {
            ev(
                K::HostSync(HostSyncEvidence::UnprofiledHostWork),
                u.host_work_ms,
                Unit::Ms,
                None,
                Source::ThisDiagnosis,
            )
        }))
        .chain(probe.iter().flat_map(|(per_step, _, top_per_step)| {
            [
                ev(
                    K::HostSync(HostSyncEvidence::ProbeSyncsPerStep),
                    *per_step,
                    Unit::Calls,
                    None,
                    Source::Probe,
                ),
                share_ev(
                    K::HostSync(HostSyncEvidence::TopSyncSiteShare),
                    (top_per_step / per_step.max(1e-9)).min(1.0),
                    None,
                    Source::Probe,
                ),
            ]
        }))
        .collect(),
        fixes: fixes::host_sync(probe.map(|(_, site, n)| (site, n))),
    })
}

/// What part of `finding`'s lost time a host-sync fix removes: the line that synchronises
/// most, its share of the calls; keeping the allocator's cache, all its calls' cost.
pub fn reach(fix: &HostSyncFix, finding: &Finding) -> FixReach {
    match fix {
        HostSyncFix::FewerReadbacks {
            site: Some(_),
            site_per_step: Some(_),
        }
        | HostSyncFix::AsyncCopyAtLine { .. }
        | HostSyncFix::SortOnGpuAtLine { .. } => match finding
            .evidence_value(&EvidenceKey::HostSync(HostSyncEvidence::TopSyncSiteShare))
        {
            Some(pct) if pct < 100.0 => FixReach::BusiestSyncLine((pct / 100.0).max(0.0)),
            _ => every_sync(finding),
        },
        // The allocator's calls to the driver drain the queue as syncs do.
        HostSyncFix::FewerReadbacks { .. } | HostSyncFix::KeepAllocatorCache { .. } => {
            every_sync(finding)
        }
        HostSyncFix::GpuMetrics | HostSyncFix::FindHiddenSyncs => FixReach::Supporting,
    }
}

/// A fix that removes every sync (or the allocator's every call to the driver): down to the
/// longer of the GPU's work and the host's where the finding bounded the host's work at
/// unprofiled speed, its cause otherwise.
fn every_sync(finding: &Finding) -> FixReach {
    if host_work_bound_ms(finding).is_some() {
        FixReach::SyncsAtUnprofiledSpeed
    } else {
        FixReach::Cause
    }
}

/// The host's own work per step at unprofiled speed, at most, as a host-sync finding bounded
/// it: beside its syncs, or beside the allocator's calls. What the step takes without them
/// when the host is the limit.
pub fn host_work_bound_ms(finding: &Finding) -> Option<f64> {
    [
        HostSyncEvidence::UnprofiledHostWork,
        HostSyncEvidence::HostWorkBesideAllocator,
    ]
    .into_iter()
    .find_map(|k| finding.evidence_value(&EvidenceKey::HostSync(k)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::{rank_with_profiled_stall, rank_with_waits, Fixture};

    #[test]
    fn a_sync_every_step_that_drains_the_queue_takes_the_launch_gaps_too() {
        // 2 syncs per step, the host needs 2 ms to launch a step the GPU runs in 8 ms.
        let mut r = rank_with_waits(10_000.0);
        r.host_waits.sync_calls_per_step = 2.0;
        r.host_waits.sync_us = 1_000.0;
        r.host_waits.launch_us = 2_000.0;
        r.host_waits.host_work_per_step_us = 2_000.0;
        r.gpu_busy_per_step_us = 8_000.0;
        let fx = Fixture::with_rank(r);
        let f = finding(&fx.cx()).unwrap();
        assert!((f.share - 0.3).abs() < 1e-9, "{}", f.share);
    }

    #[test]
    fn a_sync_whose_host_work_exceeds_the_gpus_keeps_only_its_own_idle() {
        let mut r = rank_with_waits(10_000.0);
        r.host_waits.sync_calls_per_step = 2.0;
        r.host_waits.sync_us = 1_000.0;
        r.host_waits.launch_us = 2_000.0;
        r.host_waits.host_work_per_step_us = 9_000.0;
        r.gpu_busy_per_step_us = 8_000.0;
        let fx = Fixture::with_rank(r);
        assert!((finding(&fx.cx()).unwrap().share - 0.1).abs() < 1e-9);
    }

    /// A rank of five profiled steps of `profiled_ms` with `host_ms` of host work each and
    /// `gpu_ms` of GPU work, the trace's GPU idle after syncs 2.5 %; unprofiled steps of
    /// `step_ms`; the training's process at a full core; the probe's count of two syncs a
    /// step at one line.
    fn synced_every_step(profiled_ms: f64, host_ms: f64, gpu_ms: f64, step_ms: f64) -> Fixture {
        let mut r = rank_with_waits(5.0 * profiled_ms * 1e3);
        r.profiled_step_us = profiled_ms * 1e3;
        r.host_waits.host_work_per_step_us = host_ms * 1e3;
        r.host_waits.sync_calls_per_step = 2.0;
        r.host_waits.sync_us = 0.025 * r.gpu.window_us;
        r.gpu_busy_per_step_us = gpu_ms * 1e3;
        let mut fx = Fixture::with_rank(r)
            .timing(checkup_model::StepTiming {
                mean_step_ms: step_ms,
                steady_steps: 1000,
                total_steps: 1000,
                ..Default::default()
            })
            .host(checkup_model::HostStats {
                proc_tree_cpu_mean: Some(100.0),
                ..Default::default()
            });
        let site = SyncSite {
            file: "train.py".into(),
            line: 43,
            function: "main".into(),
            code: "total += loss.item()".into(),
            count: 16,
            kinds: Default::default(),
        };
        fx.a.training.insert(
            0,
            checkup_model::TrainingContext {
                syncs: Some(checkup_model::SyncSummary {
                    steps: Some([2, 9]),
                    total: 16,
                    per_step: Some(2.0),
                    sites: vec![site],
                }),
                ..Default::default()
            },
        );
        fx
    }

    #[test]
    fn a_sync_every_step_costs_the_step_beyond_the_hosts_unprofiled_work() {
        // Profiled, the host takes 15 ms of a 16 ms step and looks too slow for the GPU's
        // 9 ms; unprofiled the step is 11 ms, so the host's own work is at most 10 ms, and
        // the sync costs at least the 1 ms beyond it.
        let fx = synced_every_step(16.0, 15.0, 9.0, 11.0);
        let cx = fx.cx();
        assert!((unprofiled_host_work_ms(&cx).unwrap() - 10.0).abs() < 1e-9);
        let f = finding(&cx).unwrap();
        assert!((f.share - 1.0 / 11.0).abs() < 1e-9, "{}", f.share);
        let bound = f.evidence_value(&K::HostSync(HostSyncEvidence::UnprofiledHostWork));
        assert_eq!(bound, Some(10.0));
        assert_eq!(
            reach(
                &HostSyncFix::FewerReadbacks {
                    site: None,
                    site_per_step: None
                },
                &f
            ),
            FixReach::SyncsAtUnprofiledSpeed
        );
    }

    #[test]
    fn a_sync_every_step_in_a_loop_whose_host_work_fills_the_step_costs_nothing_more() {
        // A launch-bound loop that synchronises each step to time it: profiled, 37.3 ms of
        // host work in a 37.33 ms step; unprofiled, 19.1 ms, all of it the host's.
        let fx = synced_every_step(37.33, 37.3, 7.4, 19.1);
        let cx = fx.cx();
        assert!(unprofiled_syncs(&cx).is_none_or(|u| u.share < 0.01));
        assert!(finding(&cx).is_none_or(|f| f
            .evidence_value(&K::HostSync(HostSyncEvidence::UnprofiledHostWork))
            .is_none()));
    }

    #[test]
    fn a_host_sort_copied_back_on_its_own_line_counts_once_with_its_copy_elsewhere_added() {
        let line = |line: u32, code: &str| SyncSite {
            file: "train.py".into(),
            line,
            function: "main".into(),
            code: code.into(),
            count: 8,
            kinds: Default::default(),
        };
        let with = |sites: Vec<SyncSite>| {
            let mut fx = Fixture::default();
            fx.a.training.insert(
                0,
                checkup_model::TrainingContext {
                    syncs: Some(checkup_model::SyncSummary {
                        steps: Some([2, 9]),
                        total: 8 * sites.len() as u64,
                        per_step: Some(sites.len() as f64),
                        sites,
                    }),
                    ..Default::default()
                },
            );
            fx
        };
        // Sorted on the host and copied back in one line: that line's one call a step.
        let fx = with(vec![line(
            43,
            "idx = torch.from_numpy(np.argsort(loss.cpu().numpy())).cuda()",
        )]);
        assert_eq!(probe_syncs(&fx.cx()).unwrap().2, 1.0);
        // Copied back on the next line: both calls go with the sort.
        let fx = with(vec![
            line(43, "idx = np.argsort(loss.cpu().numpy())"),
            line(44, "idx = torch.from_numpy(idx).cuda()"),
        ]);
        assert_eq!(probe_syncs(&fx.cx()).unwrap().2, 2.0);
    }

    #[test]
    fn a_rare_cheap_sync_is_not_reported() {
        let mut r = rank_with_waits(10_000.0);
        r.host_waits.sync_calls_per_step = 0.5;
        r.host_waits.sync_us = 400.0; // 4 %: under the reportable 5 %
        let fx = Fixture::with_rank(r);
        assert!(finding(&fx.cx()).is_none());
    }

    #[test]
    fn read_backs_inside_a_profiled_stall_are_left_to_the_stall() {
        // 100 read-backs and 480 ms of idle, all in the one stalled step of eight.
        let (r, t) = rank_with_profiled_stall(100, 480_000.0);
        let fx = Fixture::with_rank(r).timing(t);
        assert!(finding(&fx.cx()).is_none());
    }

    #[test]
    fn the_same_read_backs_without_periodic_stalls_are_a_sync_in_the_window() {
        let (r, _) = rank_with_profiled_stall(100, 480_000.0);
        let fx = Fixture::with_rank(r);
        let f = finding(&fx.cx()).unwrap();
        assert!((f.share - 480.0 / 570.0).abs() < 1e-9, "{}", f.share);
    }
}
