//! Environment checks: one line each, pass / warn / fail, with what it means and how to fix it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Pass,
    Warn,
    Fail,
    /// The fact could not be read (no driver, not in the recording).
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvCheck {
    /// Stable id, e.g. `persistence_mode`, `pcie_link`, `cuda_driver_match`.
    pub id: String,
    pub title: String,
    pub status: CheckStatus,
    /// The value seen, as a person would read it ("Gen 3 x8 of Gen 5 x16").
    pub value: String,
    pub meaning: String,
    pub fix: Option<String>,
}

impl EnvCheck {
    /// A check as the engine and the agent write them: fixed texts, a value read off the host.
    pub fn new(
        id: &str,
        title: &str,
        status: CheckStatus,
        value: String,
        meaning: &str,
        fix: Option<&str>,
    ) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
            status,
            value,
            meaning: meaning.into(),
            fix: fix.map(str::to_owned),
        }
    }
}
