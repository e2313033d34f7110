//! Fixes: the changes a finding proposes, each with the run's own values.

use serde::{Deserialize, Serialize};

use crate::CheckId;

/// A change to make, with the run's own values it quotes. The catalogue words it (title,
/// why, the code to paste, the effect to expect).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "fix")]
pub enum Fix {
    /// The CPU is saturated: make each sample cheaper (GPU decode, GPU augmentation).
    CheaperSamples,
    /// The host has idle cores but the loader already has as many workers as it should get
    /// (`workers`): each sample must get cheaper, not the worker count larger.
    CheaperSamplesAtWorkerLimit {
        /// The loader's workers.
        workers: u32,
    },
    /// Workers on every core: leave two to the training loop.
    LeaveCoresToLoop {
        /// The loader's workers (each training process's).
        workers: u32,
        /// The host's cores.
        cores: u32,
        /// Workers to use instead, per training process.
        suggested: u32,
        /// Training processes (ranks) on the host, each with its workers.
        #[serde(default = "one")]
        ranks: u32,
    },
    /// Give the DataLoader more worker processes.
    MoreWorkers {
        /// Workers to use.
        suggested: u32,
        /// The run's own worker count, when known.
        current: Option<u32>,
    },
    /// Pin host memory and copy asynchronously.
    PinMemory,
    /// Keep workers alive between epochs.
    PersistentWorkers,
    /// The GPU idles at each epoch start although the workers persist: keep one iterator
    /// running across epochs, so the next epoch's first batches are made during this one.
    LoaderAcrossEpochs {
        /// The loader's own worker count, quoted in the code.
        workers: Option<u32>,
    },
    /// Full garbage collections stall the loop: freeze the objects built at start-up.
    FreezeGc,
    /// Copy from pinned memory, asynchronously.
    PinnedCopy,
    /// Overlap the next batch's copy with this step's compute.
    OverlapCopy,
    /// Send fewer bytes.
    FewerCopyBytes,
    /// Find what else keeps the CPU busy.
    FindCpuHogs,
    /// Give the training cores of its own.
    ReserveCores,
    /// Compile the model to fuse small kernels.
    CompileFuseKernels,
    /// A model compiled in another mode: capture CUDA graphs with mode="reduce-overhead".
    ReduceOverhead {
        /// The mode the model was compiled in.
        current_mode: Option<String>,
    },
    /// `class`: the run's optimizer (`SGD`), when known, which the code names.
    ForeachOptimizer {
        /// The run's optimizer class.
        #[serde(default)]
        class: Option<String>,
    },
    /// Give each kernel more work.
    BiggerKernels,
    /// Stop reading GPU values back inside the step, at the line that does it most.
    FewerReadbacks {
        /// The line that synchronises most, when the probe saw it.
        #[serde(default)]
        site: Option<crate::SyncSite>,
        /// Its calls per step.
        #[serde(default)]
        site_per_step: Option<f64>,
    },
    /// Keep the caching allocator's memory between steps: take `torch.cuda.empty_cache()` out
    /// of the loop (at its line, when the probe saw it), or turn caching back on.
    KeepAllocatorCache {
        /// The line that empties the cache most, when the probe saw it.
        #[serde(default)]
        site: Option<crate::SyncSite>,
        /// `torch.cuda.empty_cache()` calls per step, when the probe counted them.
        #[serde(default)]
        calls_per_step: Option<f64>,
        /// `PYTORCH_NO_CUDA_MEMORY_CACHING` is set in the run's environment.
        #[serde(default)]
        caching_off: bool,
    },
    /// Compute metrics on the GPU.
    GpuMetrics,
    /// Find hidden syncs.
    FindHiddenSyncs,
    /// Periodic work that reads tensors back one at a time: summarise on the GPU and copy
    /// once. `readbacks`: read-backs per stall.
    SummariseOnGpu {
        /// Read-backs per stall.
        readbacks: f64,
    },
    /// Re-enable NCCL peer-to-peer.
    EnableP2p,
    /// Communicate less often: accumulate gradients.
    AccumulateGradients,
    /// Make each GPU do more work per all-reduce.
    MoreWorkPerAllReduce,
    /// Send fewer bytes per all-reduce.
    CompressGradients,
    /// The process group is gloo and the gradients are GPU tensors: let NCCL carry them.
    NcclForGpuTensors,
    /// The slowest rank changes from step to step: give every rank the same work in each step
    /// (batches grouped by length across the ranks).
    EvenStepWork,
    /// One rank computes markedly more per step than the others: find why and even it out.
    EvenRankWork {
        /// The rank that computes more.
        slow_rank: u32,
        /// Its compute per step over the median of the others'.
        ratio: f64,
    },
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
    },
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
    },
    /// Write checkpoints asynchronously.
    AsyncCheckpoint {
        /// Whether the probe saw the run write checkpoints.
        checkpoint_seen: bool,
    },
    /// Do periodic work less often or off the critical path.
    LessPeriodicWork,
    /// Per-step host work that grows with the steps done (a list re-scanned every step).
    ConstantHostWork,
    /// Kept loss tensors hold their graphs: keep their values.
    KeepValuesNotTensors,
    /// A per-step history kept on the host (predictions, tensors, arrays): aggregate as it
    /// comes, or write it out.
    BoundHostHistory,
    /// `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`.
    ExpandableSegments,
    /// Other processes hold `frees_gib` of the training's GPU: stop them or train on a GPU of
    /// its own.
    FreeSharedGpu {
        /// The other processes.
        pids: Vec<u32>,
        /// What they hold, GiB.
        frees_gib: f64,
    },
    /// The memory savers, in order of cost, each with what it would free (GiB), estimated
    /// from the recording where it can be.
    Bf16Memory {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Recompute activations in backward (activation checkpointing).
    ActivationCheckpointing {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Keep the optimizer's states in 8 bits.
    EightBitOptimizer {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Halve the micro-batch and accumulate two.
    SmallerMicroBatch {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Move the optimizer's states to the CPU.
    OffloadOptimizer {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Profile a few training steps.
    ProfileSteps,
    /// Look at the training loop's own CPU work.
    MainThreadCpu,
    /// Cool the GPU.
    CoolGpu,
    /// Check the power limit and power delivery.
    CheckPower,
    /// Use tensor cores: bf16 autocast or TF32.
    TensorCores,
    /// Compile the model.
    Compile,
    /// Use channels_last for convolutions.
    ChannelsLast,
    /// Use fused optimizers.
    FusedOptimizer {
        /// The run's optimizer class.
        #[serde(default)]
        class: Option<String>,
    },
    /// Fuse elementwise chains.
    FuseElementwise,
    /// Halve the bytes: bf16 activations.
    Bf16Activations,
    /// Use fused kernels for the hot blocks.
    FusedKernels,
    /// The environment check's own fix.
    Environment {
        /// The check.
        check: CheckId,
    },
}

impl Fix {
    /// Whether this fix measures more rather than changes the training (profile some steps,
    /// make syncs warn): there is nothing to re-run and compare after it.
    pub fn is_investigation(&self) -> bool {
        matches!(self, Fix::ProfileSteps | Fix::FindHiddenSyncs)
    }
}

/// A count that was one before it was recorded (fixes stored before the field existed).
fn one() -> u32 {
    1
}
