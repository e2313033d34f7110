//! Multi-GPU communication not hidden behind compute, and ranks waiting for each other.

use serde::{Deserialize, Serialize};

causes! {
    /// Multi-GPU communication not hidden behind compute.
    pub enum Communication {
        /// Communication not hidden behind compute.
        Exposed {
            /// Exposed communication's share of step time.
            exposed_share: f64,
            /// Scaling against a 1-GPU partner run, when one was given.
            scaling: Option<ScalingFigures>,
        } => "communication",
        /// One rank waits in NCCL for a slower one.
        Straggler {
            /// The rank that waits.
            waiting_rank: u32,
            /// The rank it waits for.
            slow_rank: u32,
            /// The waiting rank's extra exposed communication, share of step.
            extra_share: f64,
        } => "communication/straggler",
        /// Every step waits for its slowest rank, and which rank that is changes from step
        /// to step: the work per step is uneven and moves between ranks.
        ShiftingStraggler {
            /// The ranks that were the slowest in some profiled step, most often first.
            slowest_ranks: Vec<u32>,
            /// Profiled steps every rank's trace holds.
            steps: u32,
            /// The other ranks' mean wait for the step's slowest rank, share of the step.
            wait_share: f64,
        } => "communication/shifting_straggler",
        /// `NCCL_P2P_DISABLE` is set while NVLink connects the GPUs.
        P2pDisabled => "communication/p2p_disabled",
    }
}

/// Multi-GPU scaling against a 1-GPU run, as a communication finding quotes it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScalingFigures {
    /// GPUs of the multi-GPU run.
    pub gpus: u32,
    /// Its throughput over the 1-GPU run's.
    pub speedup: f64,
    /// 0..=1.
    pub efficiency: f64,
}
