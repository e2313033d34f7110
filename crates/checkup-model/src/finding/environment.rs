//! The environment: a check that warned or failed.

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
