//! Host-to-device copies the GPU waits for (not hidden by compute), pageable or pinned.

use checkup_model::{
    Cause, EvidenceKey as K, Finding, FixReach, H2dCopy, H2dCopyEvidence, H2dCopyFix, Source, Unit,
};

use super::sync::{share_beyond_work, unprofiled_host_work_ms};
use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    finding(cx).into()
}

/// What copies from pageable memory cost a normal unprofiled step by holding the host: such a
/// call returns only when its copy is done, so the host launches nothing meanwhile, and the
/// GPU, after the copy, waits for the launches the host still owes. Pinned, non-blocking
/// copies give the host that time back: the step then takes the longer of the GPU's work and
/// the host's other work. The host's is known only as a bound at unprofiled speed
/// ([`unprofiled_host_work_ms`] less the time held in the copies, during which the CPU
/// stages or spins), so this is the least the step would lose, and never more than the time
/// the copies hold the host: what else the step waits for (data, syncs) is not theirs.
#[derive(Debug, Clone, Copy)]
pub struct HeldByCopies {
    /// The least share of a normal step they cost.
    pub share: f64,
    /// The host's time per step inside those calls.
    pub held_ms: f64,
    /// The host's other work per step, at most.
    pub host_work_ms: f64,
}

pub fn held_by_pageable_copies(cx: &Ctx) -> Option<HeldByCopies> {
    let r = cx.rank?;
    let held_ms = r.host_waits.pageable_h2d_host_us_per_step / 1e3;
    if held_ms <= 0.0 {
        return None;
    }
    let host_work_ms = (unprofiled_host_work_ms(cx)? - held_ms).max(0.0);
    let share = share_beyond_work(cx, host_work_ms, held_ms)?;
    (share > 0.0).then_some(HeldByCopies {
        share,
        held_ms,
        host_work_ms,
    })
}

fn finding(cx: &Ctx) -> Option<Finding> {
    let r = cx.rank?;
    let exposed = cx.share_of_window(r.host_waits.exposed_h2d_us)?;
    let held = held_by_pageable_copies(cx);
    // The copy's own time and the host held by it are one wait seen from both sides: the
    // larger is what the copies cost.
    let share = exposed.max(held.map_or(0.0, |h| h.share));
    if share < cx.th.reportable_share {
        return None;
    }
    let w = &r.host_waits;
    let pageable = w.pageable_h2d_us > w.pinned_h2d_us;
    let steps = r.steps.len().max(1) as f64;
    let src = cx.rank_source();
    let mut evidence = vec![
        share_ev(
            K::H2dCopy(H2dCopyEvidence::ExposedH2dShare),
            exposed,
            Some(cx.th.significant_share),
            src.clone(),
        ),
        ev(
            K::H2dCopy(H2dCopyEvidence::PageableH2dPerStep),
            w.pageable_h2d_us / steps / 1e3,
            Unit::Ms,
            None,
            src.clone(),
        ),
        ev(
            K::H2dCopy(H2dCopyEvidence::PinnedH2dPerStep),
            w.pinned_h2d_us / steps / 1e3,
            Unit::Ms,
            None,
            src.clone(),
        ),
    ];
    if w.pageable_h2d_us > 0.0 {
        evidence.push(ev(
            K::H2dCopy(H2dCopyEvidence::PageableBandwidth),
            w.pageable_h2d_bytes as f64 / (w.pageable_h2d_us * 1e3),
            Unit::GbPerS,
            None,
            src.clone(),
        ));
        evidence.push(ev(
            K::H2dCopy(H2dCopyEvidence::PageableBytesPerStep),
            w.pageable_h2d_bytes as f64 / steps / 1e6,
            Unit::Mb,
            None,
            src.clone(),
        ));
    }
    if let Some(h) = held {
        evidence.push(ev(
            K::H2dCopy(H2dCopyEvidence::PageableCopyHostPerStep),
            h.held_ms,
            Unit::Ms,
            None,
            src,
        ));
        evidence.push(ev(
            K::H2dCopy(H2dCopyEvidence::HostWorkBesideCopies),
            h.host_work_ms,
            Unit::Ms,
            None,
            Source::ThisDiagnosis,
        ));
    }
    Some(Finding {
        gains: Default::default(),
        cause: if pageable {
            Cause::H2dCopy(H2dCopy::Pageable)
        } else {
            Cause::H2dCopy(H2dCopy::Exposed)
        },
        severity: cx.severity(share),
        confidence: confidence::CORROBORATED,
        share,
        evidence,
        fixes: fixes::h2d_copy(pageable),
    })
}

/// What part of `finding`'s lost time a copy fix removes: pinned, overlapped copies hide it.
pub fn reach(fix: &H2dCopyFix, _finding: &Finding) -> FixReach {
    match fix {
        H2dCopyFix::PinnedCopy | H2dCopyFix::OverlapCopy => FixReach::Cause,
        H2dCopyFix::FewerCopyBytes => FixReach::Supporting,
    }
}
