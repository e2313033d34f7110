//! What several families measure and propose: the host's CPU, the GPU's busy share
//! at unprofiled speed, host memory growth; the investigations and the host-contention
//! fixes that more than one cause offers.

keyed! {
    tag = "key";
    /// Measures several families quote.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum SharedEvidence {
        /// Host CPU use, all cores.
        HostCpu => "host_cpu",
        /// Training process tree CPU (100 = one core).
        TrainingTreeCpu => "training_tree_cpu",
        /// Training process CPU (100 = one core).
        TrainingProcessCpu => "training_process_cpu",
        /// GPU busy share of a step at unprofiled speed.
        UnprofiledBusyShare => "unprofiled_busy_share",
        /// SM active (GPM).
        SmActive => "sm_active",
        /// Growth of the training processes' host memory.
        HostRssGrowth => "host_rss_growth",
    }
}

keyed! {
    tag = "fix";
    /// Changes several families propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum SharedFix {
        /// Find what else keeps the CPU busy.
        FindCpuHogs => "find_cpu_hogs",
        /// Give the training cores of its own.
        ReserveCores => "reserve_cores",
        /// Profile a few training steps.
        ProfileSteps => "profile_steps",
        /// Stop the training's own profiler, which records every step and kept the
        /// checkup's from tracing.
        StopTrainingProfiler => "stop_training_profiler",
        /// Look at the training loop's own CPU work.
        MainThreadCpu => "main_thread_cpu",
    }
}
