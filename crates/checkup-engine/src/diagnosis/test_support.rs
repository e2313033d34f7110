//! Constructed inputs for the rules' unit tests.

use checkup_model::{Cause, Finding, Severity};

/// A finding with `cause` explaining `share`, no evidence, no fixes.
pub fn finding(cause: Cause, share: f64) -> Finding {
    Finding {
        gains: Default::default(),
        cause,
        severity: Severity::Major,
        confidence: 0.9,
        share,
        evidence: Vec::new(),
        fixes: Vec::new(),
    }
}
