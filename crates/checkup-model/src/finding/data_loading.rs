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
            /// The GPU's idle at epoch starts spread over the steps, ms per step: each
            /// epoch's first batch waits for its workers to start and make it, which more
            /// workers do not shorten. None without an epoch start among the steps measured.
            #[serde(default)]
            epoch_start_idle_ms_per_step: Option<f64>,
            /// Where the workers' time goes (the training thread's when batches are made
            /// in its process): their busiest lines, empty without hot-line samples.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            hot_lines: Vec<crate::HostLine>,
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
            /// Where the workers' time goes: their busiest lines, empty without hot-line
            /// samples.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            hot_lines: Vec<crate::HostLine>,
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

keyed! {
    tag = "key";
    /// What the `data_loading` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum DataLoadingEvidence {
        /// GPU idle while waiting for the DataLoader (share of step).
        DataLoaderIdleShare => "data_loader_idle_share",
        /// GPU idle waiting for data in unprofiled steps, at least (share of step).
        UnprofiledDataIdleShare => "unprofiled_data_idle_share",
        /// GPU idle for data at each epoch start, mean over the epochs that began.
        IdlePerEpochStart => "idle_per_epoch_start",
        /// GPU idle waiting for kernel launches, main thread short of CPU (share of step).
        StarvedLaunchIdleShare => "starved_launch_idle_share",
        /// Mean data wait per step.
        MeanDataWait => "mean_data_wait",
        /// Median data wait per step.
        MedianDataWait => "median_data_wait",
        /// Data wait share of step time.
        DataWaitShare => "data_wait_share",
        /// Mean GPU utilisation.
        MeanGpuUtil => "mean_gpu_util",
        /// DataLoader num_workers.
        NumWorkers => "num_workers",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `data_loading` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum DataLoadingFix {
        /// The CPU is saturated: make each sample cheaper (GPU decode, GPU augmentation).
        CheaperSamples => "cheaper_samples",
        /// The host has idle cores but the loader already has as many workers as it should get
        /// (`workers`): each sample must get cheaper, not the worker count larger.
        CheaperSamplesAtWorkerLimit {
            /// The loader's workers.
            workers: u32,
        } => "cheaper_samples_at_worker_limit",
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
        } => "leave_cores_to_loop",
        /// Give the DataLoader more worker processes.
        MoreWorkers {
            /// Workers to use.
            suggested: u32,
            /// The run's own worker count, when known.
            current: Option<u32>,
            /// The host's logical CPUs the suggestion is sized from, when known.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            host_cpus: Option<u32>,
        } => "more_workers",
        /// Pin host memory and copy asynchronously.
        PinMemory => "pin_memory",
        /// Keep workers alive between epochs.
        PersistentWorkers => "persistent_workers",
        /// The GPU idles at each epoch start although the workers persist: keep one iterator
        /// running across epochs, so the next epoch's first batches are made during this one.
        LoaderAcrossEpochs {
            /// The loader's own worker count, quoted in the code.
            workers: Option<u32>,
        } => "loader_across_epochs",
    }
}

/// A count that was one before it was recorded (fixes stored before the field existed).
fn one() -> u32 {
    1
}
