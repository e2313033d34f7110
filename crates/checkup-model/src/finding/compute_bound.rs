//! The compute-bound verdict: the GPU computes most of each step.

causes! {
    /// The model's arithmetic is the limit.
    pub enum ComputeBound {
        /// The GPU computes most of each step.
        GpuComputes {
            /// Compute kernels' share of step time.
            compute_share: f64,
            /// The GPU is busy (nearly) all of each step: the GPU itself is the limit.
            gpu_is_limit: bool,
            /// Matrix multiplies dominate while the tensor cores sit idle.
            tensor_cores_idle: bool,
        } => "compute_bound",
    }
}
