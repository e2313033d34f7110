//! Host-to-device copies the GPU waits for (not hidden by compute), pageable or pinned.

use checkup_model::{
    Cause, EvidenceKey as K, Finding, FixReach, H2dCopy, H2dCopyEvidence, H2dCopyFix, Unit,
};

use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    finding(cx).into()
}

fn finding(cx: &Ctx) -> Option<Finding> {
    let r = cx.rank?;
    let share = cx.share_of_window(r.host_waits.exposed_h2d_us)?;
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
            share,
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
            src,
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
