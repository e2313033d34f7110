//! Environment checks that warned or failed, as findings: they slow training before any
//! code runs. NCCL peer-to-peer is the communication rule's; an out-of-memory error, read
//! from the training's own recording, is the memory rule's (its fixes are code changes).

use checkup_model::{
    Cause, CheckId, CheckStatus, Environment, EnvironmentEvidence, EnvironmentFix, EvidenceKey,
    Finding, Fix, FixReach, Severity, Source, Unit,
};

use crate::diagnosis::{ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    let findings = cx
        .env
        .iter()
        .filter(|c| matches!(c.status, CheckStatus::Fail | CheckStatus::Warn))
        .filter(|c| c.id != CheckId::NcclP2p && !c.id.from_training_run())
        .map(|c| {
            let fail = c.status == CheckStatus::Fail;
            Finding {
                gains: Default::default(),
                cause: Cause::Environment(Environment::Check { check: c.clone() }),
                severity: if fail {
                    Severity::Major
                } else {
                    Severity::Minor
                },
                confidence: confidence::CONFIGURATION,
                share: 0.0,
                evidence: vec![ev(
                    EvidenceKey::Environment(EnvironmentEvidence::EnvStatus { check: c.id }),
                    if fail { 2.0 } else { 1.0 },
                    Unit::Status,
                    None,
                    Source::StaticSnapshot,
                )],
                fixes: vec![Fix::Environment(EnvironmentFix::Environment {
                    check: c.id,
                })],
            }
        })
        .collect();
    Outcome {
        findings,
        notes: Vec::new(),
    }
}

/// What part of `finding`'s lost time an environment fix removes: not measured.
pub fn reach(fix: &EnvironmentFix, _finding: &Finding) -> FixReach {
    match fix {
        EnvironmentFix::Environment { .. } => FixReach::Supporting,
    }
}
