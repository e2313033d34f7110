//! The app's history of checkups, as the store returns it and the UI shows it.

use serde::{Deserialize, Serialize};

/// The wizard's steps, in order.
pub const WIZARD_STEPS: [&str; 5] = [
    "environment",
    "sampling",
    "profiling",
    "diagnosis",
    "report",
];

/// A row of the history list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckupSummary {
    pub id: i64,
    /// Epoch seconds.
    pub created_at: f64,
    pub title: String,
    /// "this computer", an SSH alias or `user@host`, or "recording".
    pub host: String,
    pub source: Option<String>,
    pub is_demo: bool,
    /// Where the wizard was left (one of [`WIZARD_STEPS`]).
    pub wizard_step: String,
    pub primary: Option<String>,
    pub verdict: Option<String>,
    pub is_baseline: bool,
}

/// A review note a team attached to a finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingNote {
    pub id: i64,
    pub finding_id: String,
    pub author: String,
    pub body: String,
    pub created_at: f64,
}

/// Everything the app shows for one checkup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckupView {
    pub summary: CheckupSummary,
    pub diagnosis: Option<crate::Diagnosis>,
    /// Charts drawn by the report's own chart code, in the view's language.
    pub charts: Vec<crate::ChartSvg>,
    pub notes: Vec<FindingNote>,
}
