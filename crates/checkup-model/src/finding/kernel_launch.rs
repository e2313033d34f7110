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
            /// Where the host's time goes: the training thread's busiest lines (empty
            /// without the probe's hot-line samples).
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            hot_lines: Vec<crate::HostLine>,
            /// What compiling the model leaves of the step (None without unprofiled timings,
            /// or with nothing left outside the model).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            compile_floor: Option<CompileFloor>,
            /// The part of the launch wait in which the host launched nothing (None when it
            /// is under a reportable share of the step).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            launchless: Option<LaunchlessHostWork>,
        } => "kernel_launch",
        /// Kernels launched late because other processes hold the host's CPU.
        CpuContention {
            /// The host's CPU use, percent of all cores.
            host_cpu_pct: f64,
            /// Cores the training's processes use.
            training_cores: f64,
        } => "kernel_launch/cpu_contention",
        /// `CUDA_LAUNCH_BLOCKING=1`, a debugging setting, left on: every launch returns only
        /// when its kernel has finished, so the host and the GPU take turns instead of
        /// overlapping.
        SynchronousLaunches {
            /// Mean step time, ms (unprofiled steps).
            step_ms: f64,
            /// The GPU's own work per step, ms.
            gpu_busy_ms: f64,
            /// The host's own time per step, ms: the step less the GPU work it waited for.
            host_ms: f64,
        } => "kernel_launch/synchronous_launches",
        /// Autograd's anomaly detection, a debugging setting, left on: every forward operation
        /// keeps its Python traceback and, with its NaN check, every backward operation reads
        /// a flag back from the GPU, so the host waits for the GPU node by node.
        AnomalyDetection {
            /// Mean step time, ms (unprofiled steps).
            step_ms: f64,
            /// The GPU's own work per step, ms.
            gpu_busy_ms: f64,
            /// The host's own time per step, ms: the step less the GPU work it waited for.
            host_ms: f64,
            /// Whether each backward output is checked for NaN (a read-back per operation).
            check_nan: bool,
        } => "kernel_launch/anomaly_detection",
        /// Another thread of the training's process holds Python's interpreter lock: the
        /// training thread waits for it between its operations, so each launch takes a
        /// thousand times what launching costs, while the process keeps a core busy and the
        /// GPU idles.
        InterpreterHeld {
            /// The host's time in the model's calls per kernel launched, ms.
            host_ms_per_kernel: f64,
            /// The training process's CPU, 100 = one core.
            process_cpu_pct: f64,
            /// The thread that holds the interpreter, by its busiest lines (empty without
            /// the probe's hot-line samples).
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            hot_lines: Vec<crate::HostLine>,
        } => "kernel_launch/interpreter_held",
    }
}

keyed! {
    tag = "key";
    /// What the `kernel_launch` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum KernelLaunchEvidence {
        /// GPU idle waiting for the host to launch work (share of step).
        LaunchIdleShare => "launch_idle_share",
        /// Kernels per step.
        KernelsPerStep => "kernels_per_step",
        /// Median kernel duration.
        MedianKernel => "median_kernel",
        /// Kernels shorter than 10 µs.
        TinyKernelShare => "tiny_kernel_share",
        /// Unprofiled step time.
        UnprofiledStepTime => "unprofiled_step_time",
        /// Profiled step time (CPU side).
        ProfiledStepTime => "profiled_step_time",
        /// GPU-Util (any kernel running).
        GpuUtil => "gpu_util",
        /// `CUDA_LAUNCH_BLOCKING=1` in the training's environment (1: set).
        LaunchBlockingSet => "launch_blocking_set",
        /// The host's own time per step: the step less the GPU work it waited for.
        HostTurnPerStep => "host_turn_per_step",
        /// Autograd's anomaly detection on in the training (1: on).
        AnomalyDetectionOn => "anomaly_detection_on",
        /// The host's time in the model's calls (forward, backward, optimizer) per kernel
        /// launched, unprofiled steps.
        HostTimePerKernel => "host_time_per_kernel",
        /// GPU idle per step while the host made no CUDA call for a millisecond or more.
        LaunchlessHostPerStep => "launchless_host_per_step",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `kernel_launch` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum KernelLaunchFix {
        /// Compile the model to fuse small kernels.
        CompileFuseKernels => "compile_fuse_kernels",
        /// A model compiled in another mode: capture CUDA graphs with mode="reduce-overhead".
        ReduceOverhead {
            /// The mode the model was compiled in.
            current_mode: Option<String>,
        } => "reduce_overhead",
        /// `class`: the run's optimizer (`SGD`), when known, which the code names.
        ForeachOptimizer {
            /// The run's optimizer class.
            #[serde(default)]
            class: Option<String>,
        } => "foreach_optimizer",
        /// Give each kernel more work.
        BiggerKernels => "bigger_kernels",
        /// Take `CUDA_LAUNCH_BLOCKING` out of the training's environment.
        UnsetLaunchBlocking => "unset_launch_blocking",
        /// Turn autograd's anomaly detection off.
        DisableAnomalyDetection => "disable_anomaly_detection",
        /// Move the work of the thread that holds the interpreter into a process of its own.
        FreeInterpreter => "free_interpreter",
        /// Take the host's work that launches nothing out of the step (every N steps, a
        /// background thread or a DataLoader worker).
        HostWorkOffStep => "host_work_off_step",
    }
}

/// What a step keeps when its model is compiled (or replayed as a CUDA graph): the eager
/// optimizer's host time, as today, while the GPU works; and per
/// read-back (`.item()`, `.cpu()`, a synchronize) a turn of host and GPU that no fusion
/// removes: the host launches the kernel whose value it reads and waits, then the GPU idles
/// while the host launches the next one, two launches' host time.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CompileFloor {
    /// Read-backs per step.
    pub read_backs_per_step: f64,
    /// Kernels the optimizer's step launches per step.
    pub optimizer_kernels_per_step: f64,
    /// The share of the mean step that stays (0..=1): the longer of the GPU's work and the
    /// optimizer's host time, plus the read-backs' turns.
    pub floor_share: f64,
    /// The share of the mean step the host spends in the optimizer's step (0..=1): what a
    /// fused or multi-tensor optimizer, a few kernels in all, takes away.
    #[serde(default)]
    pub optimizer_share: f64,
}

/// The GPU's idle while the host made no CUDA call for a millisecond or more, where a launch
/// with its Python dispatch takes 5–50 µs: the host ran work that launches nothing (writing
/// a file, Python over data on the CPU, waiting for a lock). Compiling the model leaves it;
/// only taking that work out of the step removes it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LaunchlessHostWork {
    /// Per step, ms (such work is not the profiler's to slow: it makes no PyTorch call).
    pub ms_per_step: f64,
    /// Its share of the mean unprofiled step (0..=1).
    pub share: f64,
}
