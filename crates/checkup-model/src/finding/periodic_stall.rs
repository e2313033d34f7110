//! Periodic stalls: some steps take far longer at a regular period.

use serde::{Deserialize, Serialize};

causes! {
    /// Some steps take far longer at a regular period (checkpoints, evaluation, epoch
    /// starts).
    pub enum PeriodicStall {
        /// Long steps at a regular period.
        Stalls {
            /// Steps between stalls.
            period_steps: f64,
            /// A stall's typical length beyond a normal step.
            excess_ms: f64,
            /// What the probe's markers show happening in the stalled steps; None without
            /// markers or when they show nothing there.
            #[serde(default)]
            work: Option<PeriodicWork>,
        } => "periodic_stall",
    }
}

/// The periodic work a stall coincides with, from the probe's markers or the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PeriodicWork {
    /// A new epoch's iterator started its DataLoader workers again.
    EpochStart {
        /// The loader's worker count.
        workers: u32,
        /// Batches in an epoch, when known.
        batches_per_epoch: Option<u64>,
    },
    /// A checkpoint being written.
    Checkpoint,
    /// An evaluation pass.
    Eval,
    /// A full garbage collection.
    GarbageCollection,
    /// The profiled stalls are the host reading tensors back one by one (`.cpu()`, `.item()`
    /// for histograms or metrics), each read-back a wait for the GPU, with the GPU idle
    /// while the host works on the copies: seen in the trace.
    HostReadback {
        /// Median read-backs in a profiled stalled step.
        readbacks_per_stall: f64,
    },
}
