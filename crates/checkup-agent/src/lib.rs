//! GPU Checkup's agent: what runs on the GPU host. It samples NVML/GPM and the host, checks
//! the environment, and profiles a training command without code changes, writing every
//! recording in the corpus run-folder layout so the engine reads live and recorded runs alike.

#![warn(missing_docs)]

pub mod api;
pub mod check;
pub mod collect;
/// Errors, each saying what to try next.
pub mod error;
pub mod guard;
pub mod listen;
pub mod peer_user;
pub mod private;
pub mod processes;
pub mod recorder;
pub mod reply;
pub mod retention;
pub mod run;
pub mod sampler;
pub mod stream;

pub use error::{AgentError, Result};
