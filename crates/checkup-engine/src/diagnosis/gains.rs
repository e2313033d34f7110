//! What each finding and each of its fixes should make of the step, computed once when the
//! findings are ranked and stored in the diagnosis: every view (CLI, `--json`, report, app)
//! words the same numbers, and a script can gate on them.

use checkup_model::{
    Cause, Communication, Diagnosis, ExpectedGain, Finding, Fix, FixGain, FixReach, GpuTimeSplit,
    PlannedFix, SharedFix, StepBasis,
};

use super::rules;

/// Fills every finding's gains and the diagnosis' plan (what to do first).
pub(crate) fn fill(d: &mut Diagnosis) {
    for i in 0..d.findings.len() {
        let f = &d.findings[i];
        let cause = gain_for_share(d, f, f.share);
        let fixes = f
            .fixes
            .iter()
            .map(|fix| fix_gain(d, f, fix, cause))
            .collect();
        d.findings[i].gains = checkup_model::Gains { cause, fixes };
    }
    d.plan = plan(&d.findings);
}

/// One fix's gain: the finding's when the fix removes its cause, the part it removes when
/// the recording says which part (one line of several that synchronise), None when it only
/// helps the main fix or finds where the time goes.
fn fix_gain(d: &Diagnosis, f: &Finding, fix: &Fix, cause: Option<ExpectedGain>) -> Option<FixGain> {
    let reach = reach(fix, f);
    // GPU work taken away: its point and, where the host may hold the step, its slow end.
    let gpu_work = match reach {
        FixReach::FasterMatmuls { share, speedup } if speedup > 1.0 => {
            less_gpu_work(d, share.min(1.0) * (1.0 - 1.0 / speedup))
        }
        FixReach::LessGpuWork(share) => less_gpu_work(d, share.min(1.0)),
        _ => None,
    };
    let expected = match reach {
        FixReach::Cause => cause,
        FixReach::BusiestSyncLine(part)
        | FixReach::OutsideEpochStarts(part)
        | FixReach::WorkersPace { part, .. }
        | FixReach::CompiledPart(part)
        | FixReach::OptimizerLaunches(part)
        | FixReach::HostWorkWithoutLaunches(part)
        | FixReach::FewerPasses(part)
        | FixReach::AllButOneDynamicCompile(part)
        | FixReach::OutsideStagingCopy { part, .. } => gain_for_share(d, f, f.share * part),
        // Everything down to the GPU's own time, where the trace measured it.
        FixReach::CauseAndAddedHostWork | FixReach::SyncsAtUnprofiledSpeed => {
            gain_for_share(d, f, 1.0)
                .filter(|g| g.bounded_by_gpu_busy)
                .or(cause)
        }
        FixReach::FasterMatmuls { .. } | FixReach::LessGpuWork(_) => {
            gpu_work.as_ref().map(|g| g.fastest)
        }
        FixReach::GrowthFromFirstSteps(share) => gain_for_share(d, f, share.max(f.share)),
        FixReach::Supporting => None,
    }?;
    // The slow end of a range: the least the fix may remove, as its reach bounds it.
    let after_at_most_ms = match reach {
        FixReach::FasterMatmuls { .. } | FixReach::LessGpuWork(_) => {
            gpu_work.and_then(|g| g.host_bound_ms)
        }
        FixReach::OutsideStagingCopy { part, at_least } if at_least < part => Some(
            gain_for_share(d, f, f.share * at_least).map_or(expected.before_ms, |g| g.after_ms),
        ),
        FixReach::WorkersPace {
            part,
            if_cores_shared: Some(shared),
            ..
        } if shared.part < part => Some(
            gain_for_share(d, f, f.share * shared.part).map_or(expected.before_ms, |g| g.after_ms),
        ),
        FixReach::CauseAndAddedHostWork | FixReach::GrowthFromFirstSteps(_) => cause
            .map(|g| g.after_ms)
            .filter(|slowest| *slowest > expected.after_ms),
        // The host's work at its bound holds the step up that long.
        FixReach::SyncsAtUnprofiledSpeed => rules::sync::host_work_bound_ms(f)
            .filter(|slowest| *slowest > expected.after_ms && *slowest < expected.before_ms),
        _ => None,
    };
    Some(FixGain {
        expected,
        reach,
        after_at_most_ms,
    })
}

/// For each finding whose fixes have a gain, the fix that saves the most (the first of
/// equals, in the finding's order), ranked by the time it saves per step. One per finding,
/// because the gains of one finding's fixes do not add up: pinned memory and an overlapped
/// copy both remove the same copy time. A range counts by its middle: ranked by its fast
/// end, a fix that may save little would come before one sure to save more.
fn plan(findings: &[Finding]) -> Vec<PlannedFix> {
    let saved = |g: &FixGain| {
        let (fastest, slowest) = g.after_range_ms();
        g.expected.before_ms - (fastest + slowest) / 2.0
    };
    let mut out: Vec<PlannedFix> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let mut best: Option<PlannedFix> = None;
        for (j, gain) in f.gains.fixes.iter().enumerate() {
            let Some(gain) = gain else { continue };
            if best.is_none_or(|b| saved(gain) > saved(&b.gain)) {
                best = Some(PlannedFix {
                    finding: i,
                    fix: j,
                    gain: *gain,
                });
            }
        }
        out.extend(best);
    }
    // Stable: equal savings keep the findings' order.
    out.sort_by(|a, b| saved(&b.gain).total_cmp(&saved(&a.gain)));
    out
}

/// What removing `share` of the step would make of it: that share gone, and never below the
/// GPU's own busy time per step (the step cannot be shorter than the work the GPU does in it).
/// None for findings that are not lost time, for a rank that waits for a straggler (its fix is
/// on the other rank), and for throttling, whose lost time is inside the GPU's busy time.
fn gain_for_share(d: &Diagnosis, f: &Finding, share: f64) -> Option<ExpectedGain> {
    let counts = f.family().is_lost_time()
        && (f.is_explained_straggler()
            || !matches!(
                f.cause,
                Cause::Communication(Communication::Straggler { .. }) | Cause::Throttling(_)
            ));
    if !counts || share <= 0.0 {
        return None;
    }
    let (before, basis) = match d.diagnosed_timing().filter(|t| t.mean_step_ms > 0.0) {
        Some(t) => (t.mean_step_ms, StepBasis::UnprofiledSteps),
        None => {
            let r = d.diagnosed_rank_summary()?;
            (r.profiled_step_us / 1e3, StepBasis::ProfiledSteps)
        }
    };
    if before <= 0.0 {
        return None;
    }
    // Evening out a straggler's work shrinks the slow rank's own GPU time too: its busy time
    // is no floor then.
    let busy = d
        .diagnosed_rank_summary()
        .filter(|_| !f.is_explained_straggler())
        .map(|r| r.gpu_busy_per_step_us / 1e3 * (1.0 - own_busy_part(&f.cause, &r.gpu)))
        .filter(|b| *b > 0.0);
    let removed = before * (1.0 - share.min(1.0));
    let (after, bounded) = match busy {
        Some(b) if b > removed => (b.min(before), true),
        _ => (removed, false),
    };
    Some(ExpectedGain {
        before_ms: before,
        after_ms: after,
        gpu_busy_ms: busy,
        bounded_by_gpu_busy: bounded,
        basis,
    })
}

/// What taking GPU work out of the step makes of it ([`less_gpu_work`]).
struct LessGpuWork {
    /// The step with the GPU's work that much shorter.
    fastest: ExpectedGain,
    /// The step held up by the host's own work per step instead, where that is longer: a
    /// figure from the profiled steps, whose host side the profiler slows, so the slow end
    /// of a range rather than the point.
    host_bound_ms: Option<f64>,
}

/// What taking `removed` of the step out of the GPU's own work makes of it (matrix
/// multiplies run faster, fill kernels gone): the GPU's work shrinks, so its busy time is
/// no floor. The host's work per step may be, where the trace measured it running ahead of
/// the GPU (a host that blocked in its launches for most of the step gives no figure); the
/// profiler slows that host work, so it bounds the slow end of a range only. On the
/// unprofiled steps' clock: the profiled ones are slowed on the host side, not in the
/// kernels.
fn less_gpu_work(d: &Diagnosis, removed: f64) -> Option<LessGpuWork> {
    let before = d
        .diagnosed_timing()
        .map(|t| t.mean_step_ms)
        .filter(|ms| *ms > 0.0)?;
    if removed <= 0.0 {
        return None;
    }
    let host_ms = d
        .diagnosed_rank_summary()
        .map(|r| (r.host_waits.host_work_per_step_us, r.gpu_busy_per_step_us))
        .filter(|(host, busy)| *host > 0.0 && host < busy)
        .map_or(0.0, |(host, _)| host / 1e3);
    let after = (before * (1.0 - removed)).min(before);
    Some(LessGpuWork {
        fastest: ExpectedGain {
            before_ms: before,
            after_ms: after,
            gpu_busy_ms: None,
            bounded_by_gpu_busy: false,
            basis: StepBasis::UnprofiledSteps,
        },
        host_bound_ms: (host_ms > after).then_some(host_ms.min(before)),
    })
}

/// The part of the GPU's busy time that is the finding's own cause: copies and communication
/// keep the copy engines and NCCL busy in the time they cost, so the floor a gain stops at is
/// the rest of the GPU's work (removing exposed copies cannot leave the copies' time).
fn own_busy_part(cause: &Cause, gpu: &GpuTimeSplit) -> f64 {
    let own = match cause {
        Cause::H2dCopy(_) => gpu.exposed_memory_us,
        Cause::Communication(Communication::Exposed { .. })
        | Cause::Communication(Communication::P2pDisabled) => gpu.exposed_comm_us,
        _ => return 0.0,
    };
    let busy = gpu.compute_us + gpu.exposed_comm_us + gpu.exposed_memory_us;
    if busy > 0.0 {
        (own / busy).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// What part of `finding`'s lost time `fix` removes, as the rule of the fix's family says
/// (each family's `reach` beside its rule, exhaustive over its fixes).
pub fn reach(fix: &Fix, finding: &Finding) -> FixReach {
    use rules::{busy, communication, copies, data_loading, environment, launches, memory};
    use rules::{compilation, slowdown, stalls, sync, throttling};
    match fix {
        Fix::DataLoading(f) => data_loading::reach(f, finding),
        Fix::KernelLaunch(f) => launches::reach(f, finding),
        Fix::HostSync(f) => sync::reach(f, finding),
        Fix::H2dCopy(f) => copies::reach(f, finding),
        Fix::Communication(f) => communication::reach(f, finding),
        Fix::PeriodicStall(f) => stalls::reach(f, finding),
        Fix::Throttling(f) => throttling::reach(f, finding),
        Fix::ComputeBound(f) => busy::compute_reach(f, finding),
        Fix::MemoryBandwidth(f) => busy::bandwidth_reach(f, finding),
        Fix::Slowdown(f) => slowdown::reach(f, finding),
        Fix::Memory(f) => memory::reach(f, finding),
        Fix::Environment(f) => environment::reach(f, finding),
        Fix::Compilation(f) => compilation::reach(f, finding),
        Fix::Shared(f) => shared_reach(f),
    }
}

/// What a fix several families offer removes: contention for the host's cores goes when
/// the cores are found or reserved; a profile or a look at the loop measures more.
fn shared_reach(fix: &SharedFix) -> FixReach {
    match fix {
        SharedFix::FindCpuHogs | SharedFix::ReserveCores => FixReach::Cause,
        // What a profiler costs a run that profiles every step is measured only without it.
        SharedFix::ProfileSteps | SharedFix::MainThreadCpu | SharedFix::StopTrainingProfiler => {
            FixReach::Supporting
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkup_model::{
        DataLoading, DataLoadingFix, Evidence, EvidenceKey, Gains, H2dCopy, H2dCopyFix, HostSync,
        HostSyncEvidence, HostSyncFix, Severity, Source, StepTiming, SyncSite, Throttling, Unit,
    };

    fn sync_finding(top_site_pct: f64) -> Finding {
        Finding {
            cause: Cause::HostSync(HostSync::Readbacks),
            severity: Severity::Major,
            confidence: 0.9,
            share: 0.4,
            evidence: vec![Evidence {
                key: EvidenceKey::HostSync(HostSyncEvidence::TopSyncSiteShare),
                value: top_site_pct,
                unit: Unit::Percent,
                threshold: None,
                source: Source::Probe,
            }],
            fixes: vec![Fix::HostSync(HostSyncFix::FewerReadbacks {
                site: Some(SyncSite {
                    file: "train.py".into(),
                    line: 88,
                    function: "step".into(),
                    code: "p.grad.norm().item()".into(),
                    count: 380,
                    kinds: Default::default(),
                }),
                site_per_step: Some(380.0 * top_site_pct / 100.0),
            })],
            gains: Gains::default(),
        }
    }

    fn diagnosis(findings: Vec<Finding>, mean_step_ms: f64) -> Diagnosis {
        Diagnosis {
            primary: findings[0].id(),
            findings,
            step_timing: vec![StepTiming {
                mean_step_ms,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_line_that_makes_part_of_the_syncs_reaches_that_part_of_their_time() {
        let f = sync_finding(60.0);
        assert_eq!(reach(&f.fixes[0], &f), FixReach::BusiestSyncLine(0.6));
        let f = sync_finding(100.0);
        assert_eq!(reach(&f.fixes[0], &f), FixReach::Cause);
    }

    #[test]
    fn persistent_workers_remove_epoch_start_waits_but_only_support_a_slow_loader() {
        let at_starts = |ms| Finding {
            cause: Cause::DataLoading(DataLoading::SlowLoader {
                hot_lines: Vec::new(),
                data_wait_ms: Some(8.0),
                step_ms: Some(22.0),
                idle_per_epoch_start_ms: ms,
                epoch_start_idle_ms_per_step: None,
            }),
            ..sync_finding(100.0)
        };
        assert_eq!(
            reach(
                &Fix::DataLoading(DataLoadingFix::PersistentWorkers),
                &at_starts(Some(234.0))
            ),
            FixReach::Cause
        );
        assert_eq!(
            reach(
                &Fix::DataLoading(DataLoadingFix::PersistentWorkers),
                &at_starts(None)
            ),
            FixReach::Supporting
        );
        assert_eq!(
            reach(
                &Fix::DataLoading(DataLoadingFix::PinMemory),
                &at_starts(None)
            ),
            FixReach::Supporting
        );
    }

    #[test]
    fn more_workers_leave_each_epochs_first_batch_wait() {
        // `probe_loader_short_epoch`'s figures: 66 % of a 49.3 ms step waiting for data,
        // 4.0 ms of it per step the GPU's idle at epoch starts (124 ms once every 30 steps).
        let slow_loader = |kept| Finding {
            cause: Cause::DataLoading(DataLoading::SlowLoader {
                hot_lines: Vec::new(),
                data_wait_ms: Some(32.7),
                step_ms: Some(49.3),
                idle_per_epoch_start_ms: None,
                epoch_start_idle_ms_per_step: kept,
            }),
            share: 0.66,
            ..sync_finding(100.0)
        };
        let more = Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: Some(2),
            host_cpus: None,
        });
        let FixReach::OutsideEpochStarts(part) = reach(&more, &slow_loader(Some(4.0))) else {
            panic!("more workers remove all of the wait")
        };
        // 32.5 ms of the step is the loader's; 28.5 ms of it goes.
        assert!((part - (1.0 - 4.0 / (0.66 * 49.3))).abs() < 1e-12, "{part}");
        // Without an epoch start among the steps, all of it goes.
        assert_eq!(reach(&more, &slow_loader(None)), FixReach::Cause);
    }

    #[test]
    fn more_workers_slower_than_the_loop_even_at_their_best_leave_the_step_at_their_pace() {
        // `probe_spectral_augment_loader`'s figures: 3 workers, 81.4 ms of a 90.4 ms step
        // waiting for data, 8.1 ms of it per step at epoch starts; 14 workers suggested on
        // its host's 16 logical CPUs.
        let spectral = |host_cpus| {
            let mut d = diagnosis(
                vec![Finding {
                    cause: Cause::DataLoading(DataLoading::SlowLoader {
                        hot_lines: Vec::new(),
                        data_wait_ms: Some(81.4),
                        step_ms: Some(90.4),
                        idle_per_epoch_start_ms: None,
                        epoch_start_idle_ms_per_step: Some(8.1),
                    }),
                    share: 0.85,
                    fixes: vec![Fix::DataLoading(DataLoadingFix::MoreWorkers {
                        suggested: 14,
                        current: Some(3),
                        host_cpus,
                    })],
                    ..sync_finding(100.0)
                }],
                90.4,
            );
            fill(&mut d);
            d.findings[0].gains.fixes[0].unwrap()
        };
        let gain = spectral(None);
        // A batch every 82.3 ms with 3; with 14 each as fast, every 17.6 ms, which is more
        // than the loop's own 9.0 ms: the step comes to 17.6 ms and the epoch starts' 8.1.
        let FixReach::WorkersPace {
            workers_now: 3,
            batch_ms_now,
            workers_after: 14,
            batch_ms_after,
            if_cores_shared: None,
            ..
        } = gain.reach
        else {
            panic!("{:?}", gain.reach)
        };
        assert!((batch_ms_now - 82.3).abs() < 1e-9, "{batch_ms_now}");
        assert!((batch_ms_after - 82.3 * 3.0 / 14.0).abs() < 1e-9);
        assert!(
            (gain.expected.after_ms - (82.3 * 3.0 / 14.0 + 8.1)).abs() < 1e-9,
            "{gain:?}"
        );
        assert_eq!(gain.after_at_most_ms, None);
        // On 16 logical CPUs taken as 8 cores of two threads, the 3 workers and the loop
        // each had a core; 14 and the loop share them: 8 + 7 × 0.25 cores among 15, each
        // at 0.65 of a core. Their batches and each epoch's first one take 1/0.65 as long:
        // the step ranges from 25.7 ms to 27.1 + 12.5 = 39.6 ms.
        let gain = spectral(Some(16));
        let FixReach::WorkersPace {
            if_cores_shared: Some(shared),
            ..
        } = gain.reach
        else {
            panic!("{:?}", gain.reach)
        };
        let pace = 9.75 / 15.0;
        assert_eq!(shared.host_cpus, 16);
        assert!((shared.pace - pace).abs() < 1e-12, "{shared:?}");
        assert!((shared.batch_ms - 82.3 * 3.0 / 14.0 / pace).abs() < 1e-9);
        let slowest = gain.after_at_most_ms.unwrap();
        assert!(
            (slowest - (82.3 * 3.0 / 14.0 + 8.1) / pace).abs() < 1e-9,
            "{gain:?}"
        );
        // Workers that would outrun the loop remove all of the wait outside epoch starts:
        // 2 workers to 14 at `probe_loader_short_epoch`'s 49.3 ms step, 16.6 ms of it the
        // loop's own time, priced as before.
        let short_epoch = Finding {
            cause: Cause::DataLoading(DataLoading::SlowLoader {
                hot_lines: Vec::new(),
                data_wait_ms: Some(32.7),
                step_ms: Some(49.3),
                idle_per_epoch_start_ms: None,
                epoch_start_idle_ms_per_step: Some(4.0),
            }),
            share: 0.66,
            ..sync_finding(100.0)
        };
        let two_to_fourteen = Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: Some(2),
            host_cpus: None,
        });
        assert!(matches!(
            reach(&two_to_fourteen, &short_epoch),
            FixReach::OutsideEpochStarts(_)
        ));
        // Two to three would not: 45.3 ms a batch becomes 30.2 ms, above the loop's 16.6;
        // and 4 busy processes on 16 logical CPUs have a core each: no slow end.
        let two_to_three = Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 3,
            current: Some(2),
            host_cpus: Some(16),
        });
        assert!(matches!(
            reach(&two_to_three, &short_epoch),
            FixReach::WorkersPace { batch_ms_after, if_cores_shared: None, .. } if (batch_ms_after - 45.3 * 2.0 / 3.0).abs() < 1e-9
        ));
    }

    #[test]
    fn a_partial_fix_removes_its_part_of_the_share_from_the_step() {
        // 40 % of a 100 ms step is the syncs' time; the line makes half of them.
        let mut d = diagnosis(vec![sync_finding(50.0)], 100.0);
        fill(&mut d);
        let f = &d.findings[0];
        let whole = f.gains.cause.unwrap();
        let part = f.gains.fixes[0].unwrap();
        assert!((whole.after_ms - 60.0).abs() < 1e-9, "{whole:?}");
        assert!((part.expected.after_ms - 80.0).abs() < 1e-9, "{part:?}");
        assert_eq!(part.reach, FixReach::BusiestSyncLine(0.5));
        assert_eq!(
            d.plan,
            [PlannedFix {
                finding: 0,
                fix: 0,
                gain: part
            }]
        );
    }

    #[test]
    fn the_plan_ranks_each_findings_best_fix_by_the_time_it_saves() {
        // A whole-cause sync finding (40 % of the step) and a copy finding of 20 %, whose
        // supporting fix has no gain and so is never its best.
        let copies = Finding {
            cause: Cause::H2dCopy(H2dCopy::Exposed),
            share: 0.2,
            fixes: vec![
                Fix::H2dCopy(H2dCopyFix::FewerCopyBytes),
                Fix::H2dCopy(H2dCopyFix::PinnedCopy),
            ],
            ..sync_finding(100.0)
        };
        let mut d = diagnosis(vec![copies, sync_finding(100.0)], 100.0);
        fill(&mut d);
        assert_eq!(d.findings[0].gains.fixes[0], None);
        let order: Vec<(usize, usize)> = d.plan.iter().map(|p| (p.finding, p.fix)).collect();
        assert_eq!(order, [(1, 0), (0, 1)]);
        assert!((d.plan[0].gain.expected.after_ms - 60.0).abs() < 1e-9);
        assert!((d.plan[1].gain.expected.after_ms - 80.0).abs() < 1e-9);
    }

    #[test]
    fn throttling_and_verdicts_get_no_gain() {
        let throttled = Finding {
            cause: Cause::Throttling(Throttling::Power {
                clock_ratio: 0.7,
                reasons: vec!["SwPowerCap".into()],
            }),
            ..sync_finding(100.0)
        };
        let mut d = diagnosis(vec![throttled], 100.0);
        fill(&mut d);
        assert_eq!(d.findings[0].gains.cause, None);
        assert!(d.plan.is_empty());
    }
}
