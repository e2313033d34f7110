//! What a checkup does, apart from how it is shown: connect to hosts (one, or a fleet),
//! check their environment, sample and profile with live progress, gather a job's ranks,
//! read a Prometheus range, diagnose, store and export. The desktop app's commands are
//! one-line calls into [`Workflow`]; the `checkup` CLI shares [`gather`] and
//! [`prometheus`]. Tauri-free: everything here builds and tests without a window.
//!
//! Progress reaches whoever shows it through [`Events`]; errors are [`WorkflowError`], which
//! serialises as the `UiError` the UI words. Without the `history` feature (the CLI's
//! choice) only what needs no history is built: gathering a job and reading Prometheus.

mod error;
pub mod gather;
pub mod prometheus;

#[cfg(feature = "history")]
mod history;
#[cfg(feature = "history")]
pub use history::*;

pub use error::{Result, WorkflowError};
