//! Which rank to diagnose, and the order of the findings.

use checkup_model::{Cause, Communication, Family, Finding, Severity};

use crate::analysis::Analysis;
use crate::thresholds::Thresholds;

/// Orders findings: the lost-time finding with the largest share leads when it is
/// significant; otherwise the GPU-busy verdict (compute or memory bound) leads. Findings under
/// the reportable share are dropped, except environment failures and the verdict.
pub fn rank_findings(mut findings: Vec<Finding>, th: &Thresholds) -> Vec<Finding> {
    findings.retain(|f| {
        f.share >= th.reportable_share
            || f.family() == Family::Environment
            || f.family().is_busy_verdict()
            || f.severity >= Severity::Minor
    });
    // At an equal share, recompilations come before the launch wait they are priced by:
    // a function past its recompile limit launches uncompiled, the cause of that wait.
    let cause_first = |f: &Finding| f.family() == Family::Compilation;
    findings.sort_by(|a, b| {
        b.share
            .total_cmp(&a.share)
            .then_with(|| cause_first(b).cmp(&cause_first(a)))
    });
    // A straggler is a symptom of the slow rank, whose own finding leads; unless the slow
    // rank's extra work is the cause (its fix evens the work out).
    let lost = findings.iter().position(|f| {
        f.family().is_lost_time()
            && f.share >= th.significant_share
            && (!matches!(
                f.cause,
                Cause::Communication(Communication::Straggler { .. })
            ) || f.is_explained_straggler())
    });
    let busy = findings.iter().position(|f| f.family().is_busy_verdict());
    // A run that memory will stop (a creep filling the card within the hour) leads: nothing
    // it loses per step matters once it dies.
    let dies = findings
        .iter()
        .position(|f| f.family() == Family::Memory && f.severity == Severity::Critical);
    if let Some(i) = dies.or(lost).or(busy) {
        let lead = findings.remove(i);
        findings.insert(0, lead);
    }
    // Behind a lost-time cause, the GPU-busy verdict describes the little time the GPU
    // works: making that work faster (compile, fused kernels) is not what the run needs
    // first, so it stays as a fact without fixes.
    if lost.is_some() {
        for f in findings.iter_mut().skip(1) {
            if f.family().is_busy_verdict() {
                f.fixes.clear();
            }
        }
    }
    findings
}

/// On multi-GPU runs, the rank with the least exposed communication is the one the others
/// wait for: diagnose it. Returns it and, when others wait markedly longer, the waiting rank
/// with its extra share.
pub fn pick_rank(a: &Analysis, th: &Thresholds) -> (Option<u32>, Option<(u32, u32, f64)>) {
    let shares: Vec<(u32, f64)> = a
        .ranks
        .iter()
        .filter(|r| r.gpu.window_us > 0.0)
        .map(|r| (r.rank, r.gpu.exposed_comm_us / r.gpu.window_us))
        .collect();
    let Some(&slowest) = shares.iter().min_by(|x, y| x.1.total_cmp(&y.1)) else {
        return (
            a.ranks
                .first()
                .map(|r| r.rank)
                .or(a.step_timing.first().map(|t| t.rank)),
            None,
        );
    };
    let most = shares
        .iter()
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .copied()
        .unwrap_or(slowest);
    let straggler = (most.1 - slowest.1 >= th.straggler_share).then_some((
        most.0,
        slowest.0,
        most.1 - slowest.1,
    ));
    (Some(slowest.0), straggler)
}

/// Stragglers that come and go: in each profiled step that every rank's trace holds, the
/// rank with the least exposed communication is the one the others waited for.
#[derive(Debug, Clone, PartialEq)]
pub struct ShiftingStragglers {
    /// Each rank that was the slowest in some step, with how many, most often first.
    pub slowest: Vec<(u32, u32)>,
    /// The steps compared.
    pub steps: u32,
    /// The other ranks' mean wait for the step's slowest rank, share of the step.
    pub wait_share: f64,
    /// The slowest rank's own exposed communication, mean share of the step: what the
    /// all-reduce costs once nobody waits.
    pub transfer_share: f64,
}

/// Whether every step waits for a slowest rank that is not the same rank most of the time,
/// because of its work: at least three steps every rank's trace holds, the others' wait for
/// each step's slowest at least the straggler share of the step on average, the slowest
/// rank's extra GPU compute explaining at least half of that wait in most steps (else the
/// ranks merely jitter: a shared GPU, a busy host), and no rank the slowest in half of the
/// steps or more (then it is one straggler, which [`pick_rank`] follows).
pub fn shifting_stragglers(a: &Analysis, th: &Thresholds) -> Option<ShiftingStragglers> {
    let ranks: Vec<&checkup_model::RankSummary> =
        a.ranks.iter().filter(|r| !r.steps.is_empty()).collect();
    if ranks.len() < 2 {
        return None;
    }
    let common: Vec<u64> = ranks[0]
        .steps
        .iter()
        .map(|s| s.step)
        .filter(|n| ranks.iter().all(|r| r.steps.iter().any(|s| s.step == *n)))
        .collect();
    if common.len() < 3 {
        return None;
    }
    let mut counts: std::collections::BTreeMap<u32, u32> = Default::default();
    let mut waits = Vec::with_capacity(common.len());
    let mut transfers = Vec::with_capacity(common.len());
    let mut explained = 0usize;
    for n in &common {
        let here: Vec<(u32, &checkup_model::StepBreakdown)> = ranks
            .iter()
            .filter_map(|r| Some((r.rank, r.steps.iter().find(|s| s.step == *n)?)))
            .collect();
        let (slowest, least) = here
            .iter()
            .map(|(r, s)| (*r, s.communication_us))
            .min_by(|x, y| x.1.total_cmp(&y.1))?;
        let duration = here.iter().map(|(_, s)| s.duration_us).sum::<f64>() / here.len() as f64;
        if duration <= 0.0 {
            return None;
        }
        let wait = here
            .iter()
            .filter(|(r, _)| *r != slowest)
            .map(|(_, s)| s.communication_us - least)
            .sum::<f64>()
            / (here.len() - 1) as f64;
        let others_compute: Vec<f64> = here
            .iter()
            .filter(|(r, _)| *r != slowest)
            .map(|(_, s)| s.kernel_us)
            .collect();
        let own_compute = here
            .iter()
            .find(|(r, _)| *r == slowest)
            .map_or(0.0, |(_, s)| s.kernel_us);
        if own_compute - crate::analysis::stats::median(&others_compute) >= 0.5 * wait {
            explained += 1;
        }
        *counts.entry(slowest).or_insert(0) += 1;
        waits.push(wait / duration);
        transfers.push(least / duration);
    }
    let wait_share = waits.iter().sum::<f64>() / waits.len() as f64;
    let transfer_share = transfers.iter().sum::<f64>() / transfers.len() as f64;
    let mut slowest: Vec<(u32, u32)> = counts.into_iter().collect();
    slowest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let steps = common.len() as u32;
    let by_work = explained * 2 > common.len();
    (wait_share >= th.straggler_share && by_work && slowest[0].1 * 2 < steps).then_some(
        ShiftingStragglers {
            slowest,
            steps,
            wait_share,
            transfer_share,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::test_support::finding;
    use checkup_model::{ComputeBound, H2dCopy, HostSync};

    #[test]
    fn a_significant_lost_time_finding_leads_over_a_larger_compute_verdict() {
        let th = Thresholds::default();
        let ranked = rank_findings(
            vec![
                finding(
                    Cause::ComputeBound(ComputeBound::GpuComputes {
                        compute_share: 0.8,
                        gpu_is_limit: false,
                        tensor_cores_idle: false,
                    }),
                    0.8,
                ),
                finding(Cause::HostSync(HostSync::Readbacks), 0.15),
            ],
            &th,
        );
        assert_eq!(ranked[0].id(), "host_sync");
    }

    #[test]
    fn a_lost_time_finding_just_under_significant_does_not_lead() {
        let th = Thresholds::default();
        let ranked = rank_findings(
            vec![
                finding(Cause::HostSync(HostSync::Readbacks), 0.149),
                finding(
                    Cause::ComputeBound(ComputeBound::GpuComputes {
                        compute_share: 0.8,
                        gpu_is_limit: true,
                        tensor_cores_idle: false,
                    }),
                    0.8,
                ),
            ],
            &th,
        );
        assert_eq!(ranked[0].id(), "compute_bound");
        assert_eq!(ranked[1].id(), "host_sync");
    }

    #[test]
    fn a_straggler_never_leads_and_tiny_findings_are_dropped() {
        let th = Thresholds::default();
        let mut tiny = finding(Cause::H2dCopy(H2dCopy::Exposed), 0.049);
        tiny.severity = Severity::Info;
        let ranked = rank_findings(
            vec![
                finding(
                    Cause::Communication(Communication::Straggler {
                        waiting_rank: 1,
                        slow_rank: 0,
                        extra_share: 0.5,
                    }),
                    0.5,
                ),
                finding(
                    Cause::Communication(Communication::Exposed {
                        exposed_share: 0.2,
                        scaling: None,
                    }),
                    0.2,
                ),
                tiny,
            ],
            &th,
        );
        assert_eq!(ranked[0].id(), "communication");
        assert_eq!(ranked.len(), 2);
    }

    /// `ranks` ranks over `steps` steps of 10 ms, the rank `slow(step)` computing 6 ms and
    /// communicating 1 ms, every other rank computing 2 ms and waiting 5 ms in all-reduce.
    fn job(ranks: u32, steps: u64, slow: impl Fn(u64) -> u32) -> Analysis {
        use checkup_model::{RankSummary, StepBreakdown};
        let mut a = Analysis::default();
        for rank in 0..ranks {
            let mut r = RankSummary {
                rank,
                ..RankSummary::default()
            };
            r.gpu.window_us = 10_000.0 * steps as f64;
            r.steps = (0..steps)
                .map(|step| {
                    let is_slow = slow(step) == rank;
                    StepBreakdown {
                        step,
                        duration_us: 10_000.0,
                        kernel_us: if is_slow { 6_000.0 } else { 2_000.0 },
                        communication_us: if is_slow { 1_000.0 } else { 5_000.0 },
                        ..StepBreakdown::default()
                    }
                })
                .collect();
            a.ranks.push(r);
        }
        a
    }

    #[test]
    fn a_slowest_rank_that_changes_every_step_is_a_shifting_straggler() {
        let th = Thresholds::default();
        let s = shifting_stragglers(&job(4, 8, |step| (step % 4) as u32), &th).unwrap();
        assert_eq!(s.steps, 8);
        assert_eq!(s.slowest, [(0, 2), (1, 2), (2, 2), (3, 2)]);
        // Each step the three others wait 4 ms of 10 ms for the slow one, whose own
        // all-reduce takes 1 ms.
        assert!((s.wait_share - 0.4).abs() < 1e-9, "{}", s.wait_share);
        assert!(
            (s.transfer_share - 0.1).abs() < 1e-9,
            "{}",
            s.transfer_share
        );
    }

    #[test]
    fn one_rank_slowest_in_half_the_steps_is_one_straggler_not_a_shifting_one() {
        let th = Thresholds::default();
        let a = job(
            4,
            8,
            |step| if step % 2 == 0 { 3 } else { (step % 3) as u32 },
        );
        assert_eq!(shifting_stragglers(&a, &th), None);
        let s = shifting_stragglers(
            &job(4, 8, |step| if step < 3 { 3 } else { (step % 3) as u32 }),
            &th,
        );
        assert!(s.is_some_and(|s| s.slowest[0] == (3, 3)));
    }

    #[test]
    fn ranks_that_wait_for_each_other_with_equal_work_only_jitter() {
        // The slowest rank changes, but computes what the others do: contention, not work.
        let th = Thresholds::default();
        let mut a = job(4, 8, |step| (step % 4) as u32);
        for r in &mut a.ranks {
            for s in &mut r.steps {
                s.kernel_us = 2_000.0;
            }
        }
        assert_eq!(shifting_stragglers(&a, &th), None);
    }

    #[test]
    fn ranks_that_barely_wait_have_no_shifting_straggler() {
        let th = Thresholds::default();
        let mut a = job(4, 8, |step| (step % 4) as u32);
        for r in &mut a.ranks {
            for s in &mut r.steps {
                s.communication_us = 1_000.0 + s.communication_us / 100.0;
            }
        }
        assert_eq!(shifting_stragglers(&a, &th), None);
    }
}
