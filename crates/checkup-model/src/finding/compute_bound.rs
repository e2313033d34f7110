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

keyed! {
    tag = "key";
    /// What the `compute_bound` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum ComputeBoundEvidence {
        /// GPU busy share of a step.
        StepBusyShare => "step_busy_share",
        /// Compute kernels, share of step.
        ComputeShare => "compute_share",
        /// Tensor-core activity (GPM).
        TensorActive => "tensor_active",
        /// Matmul/convolution share of kernel time.
        GemmShare => "gemm_share",
        /// Fill kernels' time per step: deterministic algorithms fill each new tensor.
        FillTimePerStep => "fill_time_per_step",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `compute_bound` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum ComputeBoundFix {
        /// Allow TF32 for the fp32 matrix multiplies that run on the CUDA cores now.
        AllowTf32 {
            /// Their share of the step.
            fp32_matmul_share: f64,
            /// This GPU's TF32 tensor-core peak over its fp32 peak, when its datasheet is
            /// known.
            #[serde(default)]
            tf32_speedup: Option<f64>,
        } => "allow_tf32",
        /// Keep deterministic algorithms but stop filling the memory `torch.empty` hands out
        /// (`torch.utils.deterministic.fill_uninitialized_memory = False`).
        SkipUninitializedFill {
            /// The fill kernels' share of the step.
            fill_share: f64,
            /// Fill kernels launched per step.
            fills_per_step: f64,
        } => "skip_uninitialized_fill",
        /// Use tensor cores: bf16 autocast or TF32.
        TensorCores => "tensor_cores",
        /// Compile the model.
        Compile => "compile",
        /// Use channels_last for convolutions.
        ChannelsLast => "channels_last",
        /// Use fused optimizers.
        FusedOptimizer {
            /// The run's optimizer class.
            #[serde(default)]
            class: Option<String>,
        } => "fused_optimizer",
    }
}
