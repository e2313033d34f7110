//! The memory-bandwidth verdict: kernels limited by memory traffic, not arithmetic.

causes! {
    /// Kernels limited by memory bandwidth.
    pub enum MemoryBandwidth {
        /// The GPU is busy, its kernels limited by memory traffic.
        MemoryTraffic {
            /// The GPU's busy share of a step.
            busy_share: f64,
            /// DRAM bandwidth utilisation (GPM), percent.
            dram_pct: Option<f64>,
            /// Tensor-core activity (GPM), percent.
            tensor_pct: Option<f64>,
        } => "memory_bandwidth",
    }
}

keyed! {
    tag = "key";
    /// What the `memory_bandwidth` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum MemoryBandwidthEvidence {
        /// DRAM bandwidth utilisation (GPM).
        DramBandwidth => "dram_bandwidth",
        /// Elementwise/normalisation share of kernel time.
        ElementwiseShare => "elementwise_share",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `memory_bandwidth` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum MemoryBandwidthFix {
        /// Fuse elementwise chains.
        FuseElementwise => "fuse_elementwise",
        /// Halve the bytes: bf16 activations.
        Bf16Activations => "bf16_activations",
        /// Use fused kernels for the hot blocks.
        FusedKernels => "fused_kernels",
    }
}
