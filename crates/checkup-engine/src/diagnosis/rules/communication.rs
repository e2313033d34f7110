//! Multi-GPU communication: all-reduce not hidden behind compute, a rank waiting for a
//! slower one, NCCL peer-to-peer disabled although NVLink is there.

use checkup_model::{
    Cause, CheckId, CheckStatus, Comparison, Evidence, EvidenceKey as K, Finding, Note,
    ScalingFigures, Severity, Source, Unit,
};

use crate::diagnosis::thresholds::confidence;
use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    Outcome {
        findings: findings(cx),
        notes: slow_node(cx).into_iter().collect(),
    }
}

/// The host whose every rank the others wait for: with a straggler on a job of several
/// hosts, when each of the slow rank's host's ranks (two or more) waits less than every rank
/// of the other hosts by at least the straggler share (each of them is a straggler, not
/// merely a rank beside one).
fn slow_node(cx: &Ctx) -> Option<Note> {
    let (_, slow, _) = cx.straggler?;
    let node = cx.facts.node_of_rank(slow).filter(|n| n.ranks.len() >= 2)?;
    let share = |rank: u32| {
        cx.a.ranks
            .iter()
            .find(|r| r.rank == rank && r.gpu.window_us > 0.0)
            .map(|r| r.gpu.exposed_comm_us / r.gpu.window_us)
    };
    let own = node
        .ranks
        .iter()
        .map(|r| share(*r))
        .collect::<Option<Vec<f64>>>()?;
    let others: Vec<f64> = cx
        .facts
        .nodes
        .iter()
        .filter(|n| !std::ptr::eq(*n, node))
        .flat_map(|n| n.ranks.iter().filter_map(|r| share(*r)))
        .collect();
    let slowest_of_others = others.iter().copied().fold(f64::INFINITY, f64::min);
    let latest_of_node = own.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let apart = slowest_of_others - latest_of_node >= cx.th.straggler_share;
    (!others.is_empty() && apart).then(|| Note::SlowNode {
        node: node.label(&cx.facts.nodes),
        ranks: node.ranks.clone(),
    })
}

fn findings(cx: &Ctx) -> Vec<Finding> {
    let th = cx.th;
    let mut out = Vec::new();
    let p2p_disabled = cx
        .env
        .iter()
        .any(|c| c.id == CheckId::NcclP2p && c.status == CheckStatus::Fail);
    let Some(r) = cx
        .rank
        .filter(|r| r.comm.nccl_kernels > 0 || r.comm.host_collectives > 0)
    else {
        if p2p_disabled {
            out.push(p2p_finding(cx, 0.0, Vec::new()));
        }
        return out;
    };
    // When the slowest rank changes from step to step, every rank's exposed communication
    // holds its waits for the others; the all-reduce's own cost is the slowest's, step by step.
    let share = match &cx.shifting {
        Some(s) => s.transfer_share,
        None => cx.share_of_window(r.gpu.exposed_comm_us).unwrap_or(0.0),
    };
    let src = cx.rank_source();
    let mut evidence = vec![
        share_ev(
            K::ExposedCommShare,
            share,
            Some(th.significant_share),
            if cx.shifting.is_some() {
                Source::AllRankTraces
            } else {
                src.clone()
            },
        ),
        share_ev(K::CommOverlap, r.comm.overlap_share, None, src.clone()),
        ev(
            if r.comm.nccl_kernels > 0 {
                K::NcclPerStep
            } else {
                K::HostCollectivePerStep
            },
            r.comm.total_us / r.steps.len().max(1) as f64 / 1e3,
            Unit::Ms,
            None,
            src,
        ),
    ];
    for other in
        cx.a.ranks
            .iter()
            .filter(|o| o.rank != r.rank && o.gpu.window_us > 0.0)
    {
        evidence.push(share_ev(
            K::ExposedCommRank { rank: other.rank },
            other.gpu.exposed_comm_us / other.gpu.window_us,
            None,
            Source::Trace {
                rank: Some(other.rank),
            },
        ));
    }
    if let Some(s) = cx.scaling {
        evidence.push(ev(
            K::ScalingEfficiency { gpus: s.gpus },
            s.efficiency * 100.0,
            Unit::Percent,
            Some((Comparison::AtLeast, th.scaling_efficiency_ok * 100.0)),
            Source::PartnerThroughput {
                partner: s.partner.clone(),
            },
        ));
        evidence.push(ev(
            K::Speedup,
            s.speedup,
            Unit::Times,
            None,
            Source::Throughput,
        ));
    }
    if let Some(nv) = cx
        .gpu
        .and_then(|g| g.nvlink_tx_mibs_mean)
        .filter(|v| *v > 0.0)
    {
        evidence.push(ev(
            K::NvlinkTx,
            nv / 1024.0,
            Unit::GibPerS,
            None,
            Source::GpmSamples,
        ));
    }
    if p2p_disabled {
        out.push(p2p_finding(cx, share, evidence));
    } else if share >= th.reportable_share
        || cx
            .scaling
            .is_some_and(|s| s.efficiency < th.scaling_efficiency_ok)
    {
        out.push(Finding {
            cause: Cause::Communication {
                exposed_share: share,
                scaling: cx.scaling.map(|s| ScalingFigures {
                    gpus: s.gpus,
                    speedup: s.speedup,
                    efficiency: s.efficiency,
                }),
            },
            severity: cx.severity(share),
            confidence: if cx.scaling.is_some() {
                confidence::CORROBORATED
            } else {
                confidence::MEASURED
            },
            share,
            evidence,
            fixes: fixes::communication(false, gloo_carries_gpu_tensors(cx, r)),
        });
    }
    if let Some(s) = &cx.shifting {
        out.push(shifting_finding(cx, s));
    } else if let Some((waiting, slow, extra)) = cx.straggler {
        let (evidence, fixes) = straggler_work(cx, waiting, slow, extra);
        out.push(Finding {
            cause: Cause::CommunicationStraggler {
                waiting_rank: waiting,
                slow_rank: slow,
                extra_share: extra,
            },
            // Uneven work makes the wait the job's own cost; otherwise it is the slow
            // rank's cause, reported on that rank.
            severity: if fixes.is_empty() {
                Severity::Minor
            } else {
                cx.severity(extra)
            },
            confidence: confidence::INDIRECT,
            share: extra,
            evidence,
            fixes,
        });
    }
    out
}

/// Every step waits for its slowest rank, a different one from step to step: the work per
/// step is uneven between ranks and moves, so evening it out step by step is the fix.
fn shifting_finding(cx: &Ctx, s: &crate::diagnosis::rank::ShiftingStragglers) -> Finding {
    let mut evidence = vec![share_ev(
        K::StepWaitShare,
        s.wait_share,
        Some(cx.th.straggler_share),
        Source::AllRankTraces,
    )];
    evidence.extend(s.slowest.iter().take(4).map(|(rank, steps)| {
        ev(
            K::SlowestRankSteps { rank: *rank },
            f64::from(*steps),
            Unit::Steps,
            None,
            Source::AllRankTraces,
        )
    }));
    Finding {
        cause: Cause::CommunicationShiftingStraggler {
            slowest_ranks: s.slowest.iter().map(|(r, _)| *r).collect(),
            steps: s.steps,
            wait_share: s.wait_share,
        },
        severity: cx.severity(s.wait_share),
        confidence: confidence::INDIRECT,
        share: s.wait_share,
        evidence,
        fixes: vec![checkup_model::Fix::EvenStepWork],
    }
}

/// Whether the all-reduce goes through gloo on the host although the gradients live on
/// GPUs that NCCL could connect: host collectives, no NCCL kernel, GPU compute, and each
/// rank with a GPU of its own (NCCL cannot put two ranks on one GPU).
fn gloo_carries_gpu_tensors(cx: &Ctx, r: &checkup_model::RankSummary) -> bool {
    let shared = if cx.facts.nodes.is_empty() {
        matches!((cx.facts.world_size, cx.facts.gpu_count), (Some(w), Some(g)) if w > g)
    } else {
        cx.facts
            .nodes
            .iter()
            .any(|n| !n.gpus.is_empty() && n.ranks.len() > n.gpus.len())
    };
    r.comm.host_collectives > 0 && r.comm.nccl_kernels == 0 && r.gpu.compute_us > 0.0 && !shared
}

/// The straggler's evidence, and its fix when the slow rank's extra GPU compute explains
/// most of the others' wait (its work is uneven, not its link or its clocks): compute per
/// step above the others' median by at least half the waiting rank's extra wait per step.
fn straggler_work(
    cx: &Ctx,
    waiting: u32,
    slow: u32,
    extra: f64,
) -> (Vec<Evidence>, Vec<checkup_model::Fix>) {
    let th = cx.th;
    let mut evidence = vec![share_ev(
        K::StragglerExtraComm,
        extra,
        Some(th.straggler_share),
        Source::AllRankTraces,
    )];
    let per_step = |r: &checkup_model::RankSummary| r.gpu.compute_us / r.steps.len().max(1) as f64;
    let Some(slow_rank) = cx.a.ranks.iter().find(|r| r.rank == slow) else {
        return (evidence, Vec::new());
    };
    let others: Vec<f64> =
        cx.a.ranks
            .iter()
            .filter(|r| r.rank != slow && r.gpu.window_us > 0.0)
            .map(per_step)
            .collect();
    let typical = crate::analysis::stats::median(&others);
    if typical <= 0.0 {
        return (evidence, Vec::new());
    }
    let ratio = per_step(slow_rank) / typical;
    let wait_per_step =
        cx.a.ranks
            .iter()
            .find(|r| r.rank == waiting)
            .map_or(f64::INFINITY, |r| {
                extra * r.gpu.window_us / r.steps.len().max(1) as f64
            });
    let explains_wait = per_step(slow_rank) - typical >= 0.5 * wait_per_step;
    let typical_rank =
        cx.a.ranks
            .iter()
            .filter(|r| r.rank != slow && r.gpu.window_us > 0.0)
            .min_by(|a, b| {
                (per_step(a) - typical)
                    .abs()
                    .total_cmp(&(per_step(b) - typical).abs())
            });
    for r in std::iter::once(slow_rank).chain(typical_rank) {
        evidence.push(ev(
            K::ComputeRank { rank: r.rank },
            per_step(r) / 1e3,
            Unit::Ms,
            None,
            Source::Trace { rank: Some(r.rank) },
        ));
    }
    let fixes = if explains_wait {
        vec![checkup_model::Fix::EvenRankWork {
            slow_rank: slow,
            ratio,
        }]
    } else {
        Vec::new()
    };
    (evidence, fixes)
}

fn p2p_finding(cx: &Ctx, share: f64, mut evidence: Vec<Evidence>) -> Finding {
    evidence.push(ev(
        K::P2pDisabledWithNvlink,
        1.0,
        Unit::Flag,
        None,
        Source::MetaEnvAndTopology,
    ));
    Finding {
        cause: Cause::CommunicationP2pDisabled,
        severity: Severity::Critical.max(cx.severity(share)),
        confidence: confidence::P2P_DISABLED,
        share,
        evidence,
        fixes: fixes::communication(true, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::{rank_with_waits, Fixture};
    use checkup_model::NodeFacts;

    /// Four ranks on two hosts, `exposed[r]` rank r's exposed communication share.
    fn two_hosts(exposed: [f64; 4]) -> Fixture {
        let mut fx = Fixture::default();
        for (rank, share) in exposed.into_iter().enumerate() {
            let mut r = rank_with_waits(10_000.0);
            r.rank = rank as u32;
            r.gpu.exposed_comm_us = share * 10_000.0;
            fx.a.ranks.push(r);
        }
        fx.facts.nodes = (0..2)
            .map(|n| NodeFacts {
                hostname: Some(format!("gpu-{n}")),
                node_rank: Some(n),
                ranks: vec![2 * n, 2 * n + 1],
                source: format!("job/node{n}"),
                ..NodeFacts::default()
            })
            .collect();
        fx
    }

    #[test]
    fn a_host_whose_every_rank_is_waited_for_is_named() {
        let fx = two_hosts([0.5, 0.45, 0.1, 0.15]);
        let mut cx = fx.cx();
        cx.straggler = Some((0, 2, 0.4));
        assert_eq!(
            slow_node(&cx),
            Some(Note::SlowNode {
                node: "gpu-1".into(),
                ranks: vec![2, 3]
            })
        );
    }

    #[test]
    fn a_rank_that_waits_nearly_as_long_as_the_other_hosts_ranks_is_not_slow() {
        // As recorded in two_node_slow_rank: rank 2 waits 52 %, the first host's 54-56 %.
        let fx = two_hosts([0.555, 0.541, 0.516, 0.177]);
        let mut cx = fx.cx();
        cx.straggler = Some((0, 3, 0.38));
        assert_eq!(slow_node(&cx), None);
    }

    #[test]
    fn one_slow_rank_on_a_host_does_not_make_the_host_slow() {
        // Rank 3 waits as long as the first host's ranks: only rank 2 is slow.
        let fx = two_hosts([0.5, 0.45, 0.1, 0.45]);
        let mut cx = fx.cx();
        cx.straggler = Some((0, 2, 0.4));
        assert_eq!(slow_node(&cx), None);
        cx.straggler = None;
        assert_eq!(slow_node(&two_hosts([0.5, 0.45, 0.1, 0.15]).cx()), None);
    }
}
