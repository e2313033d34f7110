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
