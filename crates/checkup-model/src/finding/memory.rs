//! Memory: GPU or host memory creeping up, close to the card's capacity, or fragmented.

causes! {
    /// GPU memory: creeping up, close to the card's capacity, or fragmented; and the
    /// training's host memory creeping up.
    pub enum Memory {
        /// Memory in live tensors keeps growing step after step: from and to (GiB), how fast,
        /// and when the card would be full at that pace (minutes from the recording's end).
        Creep {
            /// Live tensors at the start, GiB.
            from_gib: f64,
            /// Live tensors at the end, GiB.
            to_gib: f64,
            /// Growth per minute, GiB.
            gib_per_min: f64,
            /// The card's memory, GiB.
            capacity_gib: f64,
            /// Minutes from the recording's end until the card is full at that pace.
            full_in_min: Option<f64>,
        } => "memory/creep",
        /// The GPU's memory at its peak was close to its capacity: the batch size is set by
        /// memory. `others_gib`: what other processes held on the same GPU then.
        NearLimit {
            /// Memory in use at the peak, GiB.
            peak_gib: f64,
            /// The card's memory, GiB.
            capacity_gib: f64,
            /// What other processes held on the GPU then, GiB.
            others_gib: f64,
        } => "memory/near_limit",
        /// The training processes' host memory keeps growing over the run: from and to (MiB,
        /// the first and last tenth of its steps), and how fast.
        HostCreep {
            /// In the first tenth of the steps, MiB.
            from_mib: f64,
            /// In the last tenth, MiB.
            to_mib: f64,
            /// Growth per minute, MiB.
            mib_per_min: f64,
        } => "memory/host_creep",
        /// The caching allocator holds far more than the tensors ever needed at once: memory
        /// split into blocks of the wrong sizes. `retries`: cache flushes after a failed
        /// allocation.
        Fragmented {
            /// What the allocator reserved, GiB.
            reserved_gib: f64,
            /// The most live tensors held at once, GiB.
            peak_allocated_gib: f64,
            /// Cache flushes after a failed allocation.
            retries: u64,
        } => "memory/fragmented",
    }
}

keyed! {
    tag = "key";
    /// What the `memory` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum MemoryEvidence {
        /// Growth of memory in live tensors.
        AllocatedGrowth => "allocated_growth",
        /// Growth of memory in live tensors, per minute.
        AllocatedGrowthRate => "allocated_growth_rate",
        /// Growth of the training processes' host memory, per minute.
        HostRssGrowthRate => "host_rss_growth_rate",
        /// Peak GPU memory used, share of the card's.
        PeakMemoryShareOfCapacity => "peak_memory_share_of_capacity",
        /// Other processes' memory on this GPU.
        OtherProcessesMemory => "other_processes_memory",
        /// Reserved memory never used at once, share of reserved.
        ReservedUnusedShare => "reserved_unused_share",
        /// Allocation retries after a failed cudaMalloc.
        AllocRetries => "alloc_retries",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `memory` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum MemoryFix {
        /// Kept loss tensors hold their graphs: keep their values.
        KeepValuesNotTensors => "keep_values_not_tensors",
        /// A per-step history kept on the host (predictions, tensors, arrays): aggregate as it
        /// comes, or write it out.
        BoundHostHistory => "bound_host_history",
        /// `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`.
        ExpandableSegments => "expandable_segments",
        /// Other processes hold `frees_gib` of the training's GPU: stop them or train on a GPU of
        /// its own.
        FreeSharedGpu {
            /// The other processes.
            pids: Vec<u32>,
            /// What they hold, GiB.
            frees_gib: f64,
        } => "free_shared_gpu",
        /// The memory savers, in order of cost, each with what it would free (GiB), estimated
        /// from the recording where it can be.
        Bf16Memory {
            /// What it would free, GiB.
            frees_gib: Option<f64>,
        } => "bf16_memory",
        /// Recompute activations in backward (activation checkpointing).
        ActivationCheckpointing {
            /// What it would free, GiB.
            frees_gib: Option<f64>,
        } => "activation_checkpointing",
        /// Keep the optimizer's states in 8 bits.
        EightBitOptimizer {
            /// What it would free, GiB.
            frees_gib: Option<f64>,
        } => "eight_bit_optimizer",
        /// Halve the micro-batch and accumulate two.
        SmallerMicroBatch {
            /// What it would free, GiB.
            frees_gib: Option<f64>,
        } => "smaller_micro_batch",
        /// Move the optimizer's states to the CPU.
        OffloadOptimizer {
            /// What it would free, GiB.
            frees_gib: Option<f64>,
        } => "offload_optimizer",
    }
}
