//! Multi-GPU communication: all-reduce not hidden behind compute, a rank waiting for a
//! slower one, NCCL peer-to-peer disabled although NVLink is there.

use checkup_model::{
    Cause, CheckId, CheckStatus, Communication, CommunicationEvidence, CommunicationFix,
    Comparison, Evidence, EvidenceKey as K, Finding, FixReach, Note, ScalingFigures, Severity,
    Source, Unit,
};

use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};
use crate::thresholds::confidence;

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
            K::Communication(CommunicationEvidence::ExposedCommShare),
            share,
            Some(th.significant_share),
            if cx.shifting.is_some() {
                Source::AllRankTraces
            } else {
                src.clone()
            },
        ),
        share_ev(
            K::Communication(CommunicationEvidence::CommOverlap),
            r.comm.overlap_share,
            None,
            src.clone(),
        ),
        ev(
            if r.comm.nccl_kernels > 0 {
                K::Communication(CommunicationEvidence::NcclPerStep)
            } else {
                K::Communication(CommunicationEvidence::HostCollectivePerStep)
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
            K::Communication(CommunicationEvidence::ExposedCommRank { rank: other.rank }),
            other.gpu.exposed_comm_us / other.gpu.window_us,
            None,
            Source::Trace {
                rank: Some(other.rank),
            },
        ));
    }
    if let Some(s) = cx.scaling {
        evidence.push(ev(
            K::Communication(CommunicationEvidence::ScalingEfficiency { gpus: s.gpus }),
            s.efficiency * 100.0,
            Unit::Percent,
            Some((Comparison::AtLeast, th.scaling_efficiency_ok * 100.0)),
            Source::PartnerThroughput {
                partner: s.partner.clone(),
            },
        ));
        evidence.push(ev(
            K::Communication(CommunicationEvidence::Speedup),
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
            K::Communication(CommunicationEvidence::NvlinkTx),
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
            gains: Default::default(),
            cause: Cause::Communication(Communication::Exposed {
                exposed_share: share,
                scaling: cx.scaling.map(|s| ScalingFigures {
                    gpus: s.gpus,
                    speedup: s.speedup,
                    efficiency: s.efficiency,
                }),
            }),
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
            gains: Default::default(),
            cause: Cause::Communication(Communication::Straggler {
                waiting_rank: waiting,
                slow_rank: slow,
                extra_share: extra,
            }),
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
        K::Communication(CommunicationEvidence::StepWaitShare),
        s.wait_share,
        Some(cx.th.straggler_share),
        Source::AllRankTraces,
    )];
    evidence.extend(s.slowest.iter().take(4).map(|(rank, steps)| {
        ev(
            K::Communication(CommunicationEvidence::SlowestRankSteps { rank: *rank }),
            f64::from(*steps),
            Unit::Steps,
            None,
            Source::AllRankTraces,
        )
    }));
    Finding {
        gains: Default::default(),
        cause: Cause::Communication(Communication::ShiftingStraggler {
            slowest_ranks: s.slowest.iter().map(|(r, _)| *r).collect(),
            steps: s.steps,
            wait_share: s.wait_share,
        }),
        severity: cx.severity(s.wait_share),
        confidence: confidence::INDIRECT,
        share: s.wait_share,
        evidence,
        fixes: vec![checkup_model::Fix::Communication(
            CommunicationFix::EvenStepWork,
        )],
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
        K::Communication(CommunicationEvidence::StragglerExtraComm),
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
            K::Communication(CommunicationEvidence::ComputeRank { rank: r.rank }),
            per_step(r) / 1e3,
            Unit::Ms,
            None,
            Source::Trace { rank: Some(r.rank) },
        ));
    }
    // A rank computing less than halfway from the others' median to the slow rank's is not
    // slow itself.
    let slow_from = (typical + per_step(slow_rank)) / 2.0;
    let is_slow = |rank: u32| {
        cx.a.ranks
            .iter()
            .find(|r| r.rank == rank)
            .is_some_and(|r| per_step(r) >= slow_from)
    };
    // Another GPU model is the surer reason than throttling, and both than uneven work.
    let fixes = if !explains_wait {
        Vec::new()
    } else if let Some(fix) = other_gpu_model(cx, slow, &is_slow) {
        vec![fix]
    } else if let Some((fix, mut clocks)) = slower_gpu(cx, slow, &is_slow) {
        evidence.append(&mut clocks);
        vec![fix]
    } else {
        vec![checkup_model::Fix::Communication(
            CommunicationFix::EvenRankWork {
                slow_rank: slow,
                ratio,
            },
        )]
    };
    (evidence, fixes)
}

/// Whether the slow rank's GPU is another model than the other ranks' GPUs, which are all of
/// one model, with every rank on it slow: the same work takes it another time. None when a
/// GPU's model is unknown, the others are of several models, or a rank that is not slow
/// shares the GPU.
fn other_gpu_model(
    cx: &Ctx,
    slow: u32,
    is_slow: &impl Fn(u32) -> bool,
) -> Option<checkup_model::Fix> {
    let gpu_of = |rank: u32| cx.facts.gpu_of_rank_or_own(rank);
    let gpu = gpu_of(slow);
    let model = |g: u32| {
        cx.facts
            .gpus
            .iter()
            .find(|x| x.index == g)
            .and_then(|x| x.name.clone())
    };
    if cx
        .a
        .ranks
        .iter()
        .any(|r| gpu_of(r.rank) == gpu && !is_slow(r.rank))
    {
        return None;
    }
    let mine = model(gpu)?;
    let others =
        cx.a.ranks
            .iter()
            .map(|r| gpu_of(r.rank))
            .filter(|g| *g != gpu)
            .map(model)
            .collect::<Option<std::collections::BTreeSet<String>>>()?;
    let others_model = match others.into_iter().collect::<Vec<_>>().as_slice() {
        [one] if *one != mine => one.clone(),
        _ => return None,
    };
    let host = (cx.facts.nodes.len() > 1)
        .then(|| cx.facts.node_of_rank(slow))
        .flatten()
        .map(|n| n.label(&cx.facts.nodes));
    Some(checkup_model::Fix::Communication(
        CommunicationFix::OtherGpuModel {
            slow_rank: slow,
            gpu,
            host,
            model: mine,
            others_model,
        },
    ))
}

/// Whether the slow rank's GPU is what computes longer: throttled (clock-event reasons in at
/// least the throttling finding's share of its busy samples) while no GPU of the other ranks
/// is, and every rank on it slow. Its power limit is named too when it is lower than the
/// others'. None when no other rank has a GPU of its own to compare with, when a rank that is
/// not slow shares the GPU (its clocks are not the difference), or no samples say.
fn slower_gpu(
    cx: &Ctx,
    slow: u32,
    is_slow: &impl Fn(u32) -> bool,
) -> Option<(checkup_model::Fix, Vec<Evidence>)> {
    let th = cx.th;
    let gpu_of = |rank: u32| cx.facts.gpu_of_rank_or_own(rank);
    if cx
        .a
        .ranks
        .iter()
        .any(|r| gpu_of(r.rank) == gpu_of(slow) && !is_slow(r.rank))
    {
        return None;
    }
    let stats = |gpu: u32| {
        cx.a.samples
            .iter()
            .find(|s| s.gpu == gpu && s.nvml_samples > 0)
    };
    let gpu = gpu_of(slow);
    let mine = stats(gpu)?;
    let others: std::collections::BTreeSet<u32> =
        cx.a.ranks
            .iter()
            .map(|r| gpu_of(r.rank))
            .filter(|g| *g != gpu)
            .collect();
    let others: Vec<&checkup_model::SampleStats> = others.into_iter().filter_map(stats).collect();
    let most_throttled_other = others
        .iter()
        .max_by(|a, b| a.throttled_share.total_cmp(&b.throttled_share))?;
    if mine.throttled_share < th.throttled_share
        || most_throttled_other.throttled_share >= th.throttled_share
    {
        return None;
    }
    let limits: Vec<f64> = others.iter().filter_map(|o| o.power_limit_w).collect();
    let typical_limit = (!limits.is_empty()).then(|| crate::analysis::stats::median(&limits));
    // Limits a few watts apart are one setting read twice; a cap is well below.
    let capped = mine
        .power_limit_w
        .zip(typical_limit)
        .filter(|(p, t)| *p < t * th.lower_power_limit_ratio);
    let mut evidence = Vec::new();
    for g in [mine, *most_throttled_other] {
        evidence.push(share_ev(
            K::Communication(CommunicationEvidence::GpuThrottledSamples { gpu: g.gpu }),
            g.throttled_share,
            Some(th.throttled_share),
            Source::NvmlSamples,
        ));
    }
    if let Some((p, t)) = capped {
        evidence.push(ev(
            K::Communication(CommunicationEvidence::GpuPowerLimit { gpu }),
            p,
            Unit::Watts,
            None,
            Source::NvmlSamples,
        ));
        if let Some(o) = others.iter().find(|o| o.power_limit_w == Some(t)) {
            evidence.push(ev(
                K::Communication(CommunicationEvidence::GpuPowerLimit { gpu: o.gpu }),
                t,
                Unit::Watts,
                None,
                Source::NvmlSamples,
            ));
        }
    }
    let host = (cx.facts.nodes.len() > 1)
        .then(|| cx.facts.node_of_rank(slow))
        .flatten()
        .map(|n| n.label(&cx.facts.nodes));
    let fix = checkup_model::Fix::Communication(CommunicationFix::SlowerGpu {
        slow_rank: slow,
        gpu,
        host,
        reasons: mine.throttle_reasons.clone(),
        power_limit_w: capped.map(|(p, _)| p),
        typical_power_limit_w: capped.map(|(_, t)| t),
    });
    Some((fix, evidence))
}

fn p2p_finding(cx: &Ctx, share: f64, mut evidence: Vec<Evidence>) -> Finding {
    evidence.push(ev(
        K::Communication(CommunicationEvidence::P2pDisabledWithNvlink),
        1.0,
        Unit::Flag,
        None,
        Source::MetaEnvAndTopology,
    ));
    Finding {
        gains: Default::default(),
        cause: Cause::Communication(Communication::P2pDisabled),
        severity: Severity::Critical.max(cx.severity(share)),
        confidence: confidence::P2P_DISABLED,
        share,
        evidence,
        fixes: fixes::communication(true, false),
    }
}

/// What part of `finding`'s lost time a communication fix removes: the others' wait is the
/// slow rank's extra compute, so even work, or a GPU as fast as the others', removes it.
pub fn reach(fix: &CommunicationFix, _finding: &Finding) -> FixReach {
    match fix {
        CommunicationFix::EvenRankWork { .. }
        | CommunicationFix::SlowerGpu { .. }
        | CommunicationFix::OtherGpuModel { .. }
        | CommunicationFix::EvenStepWork => FixReach::Cause,
        CommunicationFix::EnableP2p
        | CommunicationFix::AccumulateGradients
        | CommunicationFix::MoreWorkPerAllReduce
        | CommunicationFix::CompressGradients
        | CommunicationFix::NcclForGpuTensors => FixReach::Supporting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::{rank_with_waits, Fixture};
    use checkup_model::{EvidenceKey, Fix, NodeFacts, SampleStats};

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

    /// Two ranks on GPUs 0 and 1 (5 steps in a 50 ms window): rank 1 computes 6 ms a step,
    /// rank 0 computes 2 ms and waits 40 % of its window (4 ms a step) for it. The GPUs'
    /// throttled shares and power limits as given.
    fn straggler_on_gpu_1(throttled: [f64; 2], limits: [f64; 2]) -> Fixture {
        let mut fx = Fixture::default();
        for (rank, compute_ms) in [(0u32, 2.0), (1, 6.0)] {
            let mut r = rank_with_waits(50_000.0);
            r.rank = rank;
            r.gpu.compute_us = compute_ms * 5_000.0;
            fx.a.ranks.push(r);
            fx.a.samples.push(SampleStats {
                gpu: rank,
                nvml_samples: 100,
                throttled_share: throttled[rank as usize],
                throttle_reasons: if throttled[rank as usize] > 0.0 {
                    vec!["software power cap".into()]
                } else {
                    Vec::new()
                },
                power_limit_w: Some(limits[rank as usize]),
                ..SampleStats::default()
            });
        }
        fx
    }

    fn fix_of(fx: &Fixture) -> Vec<Fix> {
        straggler_work(&fx.cx(), 0, 1, 0.4).1
    }

    #[test]
    fn a_straggler_on_a_throttled_gpu_gets_its_gpu_fixed_not_its_work_evened() {
        let fx = straggler_on_gpu_1([0.0, 0.2], [700.0, 700.0]);
        assert_eq!(
            fix_of(&fx),
            [Fix::Communication(CommunicationFix::SlowerGpu {
                slow_rank: 1,
                gpu: 1,
                host: None,
                reasons: vec!["software power cap".into()],
                power_limit_w: None,
                typical_power_limit_w: None,
            })]
        );
        let (evidence, _) = straggler_work(&fx.cx(), 0, 1, 0.4);
        let throttled: Vec<(EvidenceKey, f64)> = evidence
            .iter()
            .filter(|e| {
                matches!(
                    e.key,
                    K::Communication(CommunicationEvidence::GpuThrottledSamples { .. })
                )
            })
            .map(|e| (e.key.clone(), e.value))
            .collect();
        assert_eq!(
            throttled,
            [
                (
                    K::Communication(CommunicationEvidence::GpuThrottledSamples { gpu: 1 }),
                    20.0
                ),
                (
                    K::Communication(CommunicationEvidence::GpuThrottledSamples { gpu: 0 }),
                    0.0
                )
            ]
        );
    }

    #[test]
    fn a_lower_power_limit_is_named_with_the_throttling() {
        let fx = straggler_on_gpu_1([0.05, 0.6], [700.0, 650.0]);
        assert!(matches!(
            fix_of(&fx).as_slice(),
            [Fix::Communication(CommunicationFix::SlowerGpu {
                power_limit_w: Some(650.0),
                typical_power_limit_w: Some(700.0),
                ..
            })]
        ));
        // 5 % under the others' is a cap; a watt apart is one setting.
        let fx = straggler_on_gpu_1([0.0, 0.6], [700.0, 666.0]);
        assert!(matches!(
            fix_of(&fx).as_slice(),
            [Fix::Communication(CommunicationFix::SlowerGpu {
                power_limit_w: None,
                ..
            })]
        ));
    }

    #[test]
    fn a_gpu_throttled_like_the_others_or_barely_is_not_the_difference() {
        // Under the throttling finding's share: the work is the difference.
        let fx = straggler_on_gpu_1([0.0, 0.19], [700.0, 700.0]);
        assert!(matches!(
            fix_of(&fx).as_slice(),
            [Fix::Communication(CommunicationFix::EvenRankWork {
                slow_rank: 1,
                ..
            })]
        ));
        // Every GPU throttled: the slow one's clocks are not what sets it apart.
        let fx = straggler_on_gpu_1([0.3, 0.5], [700.0, 700.0]);
        assert!(matches!(
            fix_of(&fx).as_slice(),
            [Fix::Communication(CommunicationFix::EvenRankWork {
                slow_rank: 1,
                ..
            })]
        ));
    }

    #[test]
    fn ranks_sharing_one_gpu_have_no_other_gpu_to_compare_with() {
        let mut fx = straggler_on_gpu_1([0.0, 0.5], [700.0, 700.0]);
        // Both ranks on one host with one GPU, as in the two-node recordings.
        fx.facts.nodes = vec![NodeFacts {
            ranks: vec![0, 1],
            gpus: vec![1],
            ..NodeFacts::default()
        }];
        assert!(matches!(
            fix_of(&fx).as_slice(),
            [Fix::Communication(CommunicationFix::EvenRankWork {
                slow_rank: 1,
                ..
            })]
        ));
    }

    #[test]
    fn a_throttled_gpu_whose_other_rank_is_fast_is_not_the_difference() {
        // Ranks 1 and 2 share GPU 1, throttled; rank 2 computes as little as rank 0.
        let mut fx = straggler_on_gpu_1([0.0, 0.5], [700.0, 700.0]);
        let mut fast = fx.a.ranks[0].clone();
        fast.rank = 2;
        fx.a.ranks.push(fast);
        fx.facts.nodes = vec![
            NodeFacts {
                ranks: vec![0],
                gpus: vec![0],
                ..NodeFacts::default()
            },
            NodeFacts {
                ranks: vec![1, 2],
                gpus: vec![1],
                ..NodeFacts::default()
            },
        ];
        assert!(matches!(
            fix_of(&fx).as_slice(),
            [Fix::Communication(CommunicationFix::EvenRankWork {
                slow_rank: 1,
                ..
            })]
        ));
        // Both ranks of GPU 1 slow: the GPU is.
        fx.a.ranks[2].gpu.compute_us = fx.a.ranks[1].gpu.compute_us;
        assert!(matches!(
            fix_of(&fx).as_slice(),
            [Fix::Communication(CommunicationFix::SlowerGpu {
                gpu: 1,
                ..
            })]
        ));
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
