//! Which rank to diagnose, and the order of the findings.

use checkup_model::{Cause, Family, Finding, Severity};

use super::thresholds::Thresholds;
use crate::analysis::Analysis;

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
    findings.sort_by(|a, b| b.share.total_cmp(&a.share));
    // A straggler is a symptom of the slow rank, whose own finding leads; unless the slow
    // rank's extra work is the cause (its fix evens the work out).
    let lost = findings.iter().position(|f| {
        f.family().is_lost_time()
            && f.share >= th.significant_share
            && (!matches!(f.cause, Cause::CommunicationStraggler { .. })
                || f.is_uneven_work_straggler())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::test_support::finding;

    #[test]
    fn a_significant_lost_time_finding_leads_over_a_larger_compute_verdict() {
        let th = Thresholds::default();
        let ranked = rank_findings(
            vec![
                finding(
                    Cause::ComputeBound {
                        compute_share: 0.8,
                        gpu_is_limit: false,
                        tensor_cores_idle: false,
                    },
                    0.8,
                ),
                finding(Cause::HostSync, 0.15),
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
                finding(Cause::HostSync, 0.149),
                finding(
                    Cause::ComputeBound {
                        compute_share: 0.8,
                        gpu_is_limit: true,
                        tensor_cores_idle: false,
                    },
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
        let mut tiny = finding(Cause::H2dCopy, 0.049);
        tiny.severity = Severity::Info;
        let ranked = rank_findings(
            vec![
                finding(
                    Cause::CommunicationStraggler {
                        waiting_rank: 1,
                        slow_rank: 0,
                        extra_share: 0.5,
                    },
                    0.5,
                ),
                finding(
                    Cause::Communication {
                        exposed_share: 0.2,
                        scaling: None,
                    },
                    0.2,
                ),
                tiny,
            ],
            &th,
        );
        assert_eq!(ranked[0].id(), "communication");
        assert_eq!(ranked.len(), 2);
    }
}
