//! One finding: the cause it names, how much it matters, its evidence, its fixes and their
//! gains; and its JSON form, with the stable id scripts read.

use super::CommunicationFix;
use serde::{Deserialize, Serialize};

use super::{Cause, Communication, Evidence, EvidenceKey, ExpectedGain, Family, Fix, FixGain};

/// How much a finding matters, mostly from the share of step time it explains (the engine's thresholds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing: below the reportable share, or a verdict rather than lost time.
    Info,
    /// At least the reportable share of step time.
    Minor,
    /// At least the significant share.
    Major,
    /// At least the critical share, or memory about to run out.
    Critical,
}

impl Severity {
    /// Every severity, least first.
    pub const ALL: [Severity; 4] = [
        Severity::Info,
        Severity::Minor,
        Severity::Major,
        Severity::Critical,
    ];

    /// The stable key (`major`).
    pub fn key(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Minor => "minor",
            Severity::Major => "major",
            Severity::Critical => "critical",
        }
    }
}

/// One cause found in a run, with its evidence and fixes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "FindingJson", from = "FindingJson")]
pub struct Finding {
    /// The cause and the figures its sentences quote.
    pub cause: Cause,
    /// How much it matters.
    pub severity: Severity,
    /// 0..=1: how sure the engine is, lower when signals disagree or are missing.
    pub confidence: f64,
    /// Share of step time this finding explains (0..=1).
    pub share: f64,
    /// The measurements that show it, each checkable in the charts or the recording.
    pub evidence: Vec<Evidence>,
    /// What to change, first fix first.
    pub fixes: Vec<Fix>,
    /// What removing the cause, and each fix, should make of the step: the engine computes
    /// them once the findings are ranked (empty until then); views only word them.
    pub gains: Gains,
}

/// A finding's expected gains, as the engine computed them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gains {
    /// The step time with the whole cause gone. None for verdicts that are not lost time
    /// (compute or memory bound, an environment check), an idle GPU of unknown cause, a rank
    /// that waits for a straggler (its fix is on the other rank), and throttling, whose lost
    /// time is inside the GPU's busy time.
    pub cause: Option<ExpectedGain>,
    /// One per fix, in the finding's order: None where the recording puts no number on what
    /// the fix removes (it supports the main fix, or finds where the time goes).
    pub fixes: Vec<Option<FixGain>>,
}

/// A finding as JSON: its stable `id` first, derived from the cause, for scripts that read
/// `findings[].id`; its gain, and each fix with its own.
#[derive(Serialize, Deserialize)]
struct FindingJson {
    #[serde(default)]
    id: String,
    cause: Cause,
    severity: Severity,
    confidence: f64,
    share: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gain: Option<ExpectedGain>,
    evidence: Vec<Evidence>,
    fixes: Vec<FixJson>,
}

/// A fix as JSON: the fix (`{"fix": "more_workers", …}`) and, where the engine put a number
/// on it, `gain`.
#[derive(Serialize, Deserialize)]
struct FixJson {
    #[serde(flatten)]
    fix: Fix,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gain: Option<FixGain>,
}

impl From<Finding> for FindingJson {
    fn from(f: Finding) -> Self {
        let mut gains = f.gains.fixes.into_iter();
        FindingJson {
            id: f.cause.id(),
            cause: f.cause,
            severity: f.severity,
            confidence: f.confidence,
            share: f.share,
            gain: f.gains.cause,
            evidence: f.evidence,
            fixes: f
                .fixes
                .into_iter()
                .map(|fix| FixJson {
                    fix,
                    gain: gains.next().flatten(),
                })
                .collect(),
        }
    }
}

impl From<FindingJson> for Finding {
    fn from(f: FindingJson) -> Self {
        let (fixes, fix_gains) = f.fixes.into_iter().map(|x| (x.fix, x.gain)).unzip();
        Finding {
            cause: f.cause,
            severity: f.severity,
            confidence: f.confidence,
            share: f.share,
            evidence: f.evidence,
            fixes,
            gains: Gains {
                cause: f.gain,
                fixes: fix_gains,
            },
        }
    }
}

impl Finding {
    /// The stable id (`communication/p2p_disabled`).
    pub fn id(&self) -> String {
        self.cause.id()
    }

    /// A straggler whose extra compute is the job's cost: the others' wait is time the whole
    /// job loses, and evening the work out (one rank with more work, or work that moves
    /// between ranks step by step) or mending the slower GPU gains it back. Any other
    /// straggler's wait is a symptom, counted on the slow rank's own finding.
    pub fn is_explained_straggler(&self) -> bool {
        match self.cause {
            Cause::Communication(Communication::ShiftingStraggler { .. }) => true,
            Cause::Communication(Communication::Straggler { .. }) => self.fixes.iter().any(|f| {
                matches!(
                    f,
                    Fix::Communication(CommunicationFix::EvenRankWork { .. })
                        | Fix::Communication(CommunicationFix::SlowerGpu { .. })
                        | Fix::Communication(CommunicationFix::OtherGpuModel { .. })
                )
            }),
            _ => false,
        }
    }

    /// The family of its cause.
    pub fn family(&self) -> Family {
        self.cause.family()
    }

    /// Each fix with its expected gain, in the finding's order.
    pub fn fixes_with_gains(&self) -> impl Iterator<Item = (&Fix, Option<&FixGain>)> {
        self.fixes
            .iter()
            .enumerate()
            .map(|(i, fix)| (fix, self.gains.fixes.get(i).and_then(Option::as_ref)))
    }

    /// The value of the evidence row with `key`.
    pub fn evidence_value(&self, key: &EvidenceKey) -> Option<f64> {
        self.evidence
            .iter()
            .find(|e| &e.key == key)
            .map(|e| e.value)
    }
}
