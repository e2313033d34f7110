//! The shared vocabulary of GPU Checkup.
//!
//! Every type here is plain data with serde derives and no I/O, so the agent, the engine, the
//! CLI, the report and the WebAssembly UI all exchange exactly the same values. Data flows one
//! way: sources (agent, recordings) → these types → engine analysis → [`Diagnosis`] → views.

#![warn(missing_docs)]

pub mod agent_api;
pub mod analysis;
pub mod commands;
pub mod comparison;
pub mod environment;
pub mod facts;
pub mod finding;
pub mod fleet;
pub mod headline;
pub mod history;
pub mod hot_lines;
pub mod language;
pub mod ledger;
pub mod samples;
pub mod series;
pub mod setting_cost;
pub mod training;
pub mod ui_word;

pub use agent_api::*;
pub use analysis::*;
pub use commands::{CheckupsChanged, Command, Event, ExportFormat, HostRequest, WizardStep};
pub use comparison::*;
pub use environment::*;
pub use facts::*;
pub use finding::*;
pub use fleet::*;
pub use headline::*;
pub use history::*;
pub use hot_lines::*;
pub use language::*;
pub use ledger::*;
pub use samples::*;
pub use series::*;
pub use setting_cost::*;
pub use training::*;
pub use ui_word::UiWord;
