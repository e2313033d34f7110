//! Kernel launches: the GPU waits for the host to launch its next kernel.

causes! {
    /// The GPU waits for the host to launch its many short kernels.
    pub enum KernelLaunch {
        /// Many short kernels per step: the host cannot launch them as fast as they run.
        TinyKernels {
            /// Kernels launched per step.
            kernels_per_step: f64,
            /// Median kernel duration, µs.
            median_kernel_us: f64,
        } => "kernel_launch",
        /// Kernels launched late because other processes hold the host's CPU.
        CpuContention {
            /// The host's CPU use, percent of all cores.
            host_cpu_pct: f64,
            /// Cores the training's processes use.
            training_cores: f64,
        } => "kernel_launch/cpu_contention",
    }
}
