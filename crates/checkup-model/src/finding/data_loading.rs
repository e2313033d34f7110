//! The input pipeline: the GPU waits for batches.

causes! {
    /// The GPU waits for the input pipeline.
    pub enum DataLoading {
        /// The GPU waits for batches while the host has idle cores.
        SlowLoader {
            /// Mean wait for a batch per step.
            data_wait_ms: Option<f64>,
            /// Mean step time.
            step_ms: Option<f64>,
            /// When most of the GPU's idle time for data falls at epoch starts: how long it
            /// idles at each (the epoch's first batches, which no worker had begun).
            #[serde(default)]
            idle_per_epoch_start_ms: Option<f64>,
        } => "data_loading",
        /// The training's own processes saturate the host CPU.
        CpuSaturated {
            /// The host's CPU use, percent of all cores.
            host_cpu_pct: f64,
            /// Cores the training's processes use.
            training_cores: f64,
            /// Share of the step the GPU waits for launches the starved main thread makes
            /// late.
            launch_wait_share: Option<f64>,
        } => "data_loading/cpu_saturated",
        /// Processes outside the training saturate the host CPU.
        CpuContention {
            /// The host's CPU use, percent of all cores.
            host_cpu_pct: f64,
            /// Cores the training's processes use.
            training_cores: f64,
        } => "data_loading/cpu_contention",
    }
}
