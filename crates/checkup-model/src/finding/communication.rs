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

keyed! {
    tag = "key";
    /// What the `communication` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum CommunicationEvidence {
        /// Exposed communication on the slowest rank (share of step).
        ExposedCommShare => "exposed_comm_share",
        /// Communication hidden behind compute.
        CommOverlap => "comm_overlap",
        /// NCCL kernel time per step.
        NcclPerStep => "nccl_per_step",
        /// Time per step in collectives a CPU backend (gloo) ran on the host, ms.
        HostCollectivePerStep => "host_collective_per_step",
        /// GPU compute of one rank per step, ms.
        ComputeRank {
            /// The rank.
            rank: u32,
        } => "compute_rank",
        /// Busy samples of one GPU with a throttling clock-event reason.
        GpuThrottledSamples {
            /// The GPU, by its number in the job.
            gpu: u32,
        } => "gpu_throttled_samples",
        /// One GPU's power limit, W.
        GpuPowerLimit {
            /// The GPU, by its number in the job.
            gpu: u32,
        } => "gpu_power_limit",
        /// The other ranks' mean wait for each step's slowest rank, share of the step.
        StepWaitShare => "step_wait_share",
        /// Profiled steps in which one rank was the slowest.
        SlowestRankSteps {
            /// The rank.
            rank: u32,
        } => "slowest_rank_steps",
        /// Exposed communication of one rank.
        ExposedCommRank {
            /// The rank.
            rank: u32,
        } => "exposed_comm_rank",
        /// Scaling efficiency against a 1-GPU run.
        ScalingEfficiency {
            /// GPUs of the multi-GPU run.
            gpus: u32,
        } => "scaling_efficiency",
        /// Speed-up over 1 GPU.
        Speedup => "speedup",
        /// NVLink transmit.
        NvlinkTx => "nvlink_tx",
        /// NCCL_P2P_DISABLE set while NVLink connects the GPUs.
        P2pDisabledWithNvlink => "p2p_disabled_with_nvlink",
        /// Extra exposed communication on the waiting rank.
        StragglerExtraComm => "straggler_extra_comm",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `communication` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum CommunicationFix {
        /// Re-enable NCCL peer-to-peer.
        EnableP2p => "enable_p2p",
        /// Communicate less often: accumulate gradients.
        AccumulateGradients => "accumulate_gradients",
        /// Make each GPU do more work per all-reduce.
        MoreWorkPerAllReduce => "more_work_per_all_reduce",
        /// Send fewer bytes per all-reduce.
        CompressGradients => "compress_gradients",
        /// The process group is gloo and the gradients are GPU tensors: let NCCL carry them.
        NcclForGpuTensors => "nccl_for_gpu_tensors",
        /// The slowest rank changes from step to step: give every rank the same work in each step
        /// (batches grouped by length across the ranks).
        EvenStepWork => "even_step_work",
        /// One rank computes markedly more per step than the others: find why and even it out.
        EvenRankWork {
            /// The rank that computes more.
            slow_rank: u32,
            /// Its compute per step over the median of the others'.
            ratio: f64,
        } => "even_rank_work",
        /// The straggler computes longer because its GPU runs slower than the others' (held
        /// down by clock-event reasons they do not have, or capped at a lower power limit), not
        /// because it has more work: that GPU is what to fix.
        SlowerGpu {
            /// The rank on it.
            slow_rank: u32,
            /// The GPU, by its number in the job.
            gpu: u32,
            /// Its host, as the views name it, when the job ran on several.
            host: Option<String>,
            /// Its throttling clock-event reasons, by NVML's names (empty: not throttled).
            reasons: Vec<String>,
            /// Its power limit, W, when lower than the others'.
            power_limit_w: Option<f64>,
            /// The others' power limit, W, when its own is lower.
            typical_power_limit_w: Option<f64>,
        } => "slower_gpu",
        /// The slow rank's GPU is another model than every other rank's: the same work takes
        /// another time there, and in synchronous training the slower GPU sets every step.
        OtherGpuModel {
            /// The rank on it.
            slow_rank: u32,
            /// The GPU, by its number in the job.
            gpu: u32,
            /// Its host, as the views name it, when the job ran on several.
            host: Option<String>,
            /// Its model.
            model: String,
            /// The other ranks' GPUs' model.
            others_model: String,
        } => "other_gpu_model",
    }
}
