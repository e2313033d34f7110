//! Multi-GPU communication: all-reduce not hidden behind compute, a rank waiting for a
//! slower one, NCCL peer-to-peer disabled although NVLink is there.

use checkup_model::{
    Cause, CheckId, CheckStatus, Comparison, Evidence, EvidenceKey as K, Finding, ScalingFigures,
    Severity, Source, Unit,
};

use crate::diagnosis::thresholds::confidence;
use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    Outcome {
        findings: findings(cx),
        notes: Vec::new(),
    }
}

fn findings(cx: &Ctx) -> Vec<Finding> {
    let th = cx.th;
    let mut out = Vec::new();
    let p2p_disabled = cx
        .env
        .iter()
        .any(|c| c.id == CheckId::NcclP2p && c.status == CheckStatus::Fail);
    let Some(r) = cx.rank.filter(|r| r.comm.nccl_kernels > 0) else {
        if p2p_disabled {
            out.push(p2p_finding(cx, 0.0, Vec::new()));
        }
        return out;
    };
    let share = cx.share_of_window(r.gpu.exposed_comm_us).unwrap_or(0.0);
    let src = cx.rank_source();
    let mut evidence = vec![
        share_ev(
            K::ExposedCommShare,
            share,
            Some(th.significant_share),
            src.clone(),
        ),
        share_ev(K::CommOverlap, r.comm.overlap_share, None, src.clone()),
        ev(
            K::NcclPerStep,
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
            fixes: fixes::communication(false),
        });
    }
    if let Some((waiting, slow, extra)) = cx.straggler {
        out.push(Finding {
            cause: Cause::CommunicationStraggler {
                waiting_rank: waiting,
                slow_rank: slow,
                extra_share: extra,
            },
            severity: Severity::Minor,
            confidence: confidence::INDIRECT,
            share: extra,
            evidence: vec![share_ev(
                K::StragglerExtraComm,
                extra,
                Some(th.straggler_share),
                Source::AllRankTraces,
            )],
            fixes: Vec::new(),
        });
    }
    out
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
        fixes: fixes::communication(true),
    }
}
