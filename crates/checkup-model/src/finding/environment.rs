//! The environment: a check that warned or failed.

use crate::CheckId;

use crate::EnvCheck;

causes! {
    /// An environment check that warned or failed; its finding id adds the check's id
    /// (`environment/persistence_mode`).
    pub enum Environment {
        /// An environment check that warned or failed.
        Check {
            /// The check.
            check: EnvCheck,
        } => "environment",
    }
}

keyed! {
    tag = "key";
    /// What the `environment` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum EnvironmentEvidence {
        /// An environment check's status (1 warn, 2 fail).
        EnvStatus {
            /// The check.
            check: CheckId,
        } => "env_status",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `environment` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum EnvironmentFix {
        /// The environment check's own fix.
        Environment {
            /// The check.
            check: CheckId,
        } => "environment",
    }
}
