//! The settings that change training speed, each with what it costs the run: the issue a
//! reader of the probe's *Settings* row asks ("deterministic algorithms on: does that cost
//! me anything?") answered beside the setting, from the recording's own numbers.

use serde::{Deserialize, Serialize};

/// A setting the probe reads that changes how fast training runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpeedSetting {
    /// `CUDA_LAUNCH_BLOCKING` set (not `0`): every launch waits for its kernel.
    LaunchBlocking,
    /// Autograd's anomaly detection on.
    AnomalyDetection,
    /// `torch.use_deterministic_algorithms(True)`.
    DeterministicAlgorithms,
    /// `torch.backends.cudnn.benchmark` off.
    CudnnBenchmarkOff,
    /// TF32 off for fp32 matrix multiplies (PyTorch's default).
    Tf32MatmulOff,
    /// A profiler of the training's own recording (`torch.profiler.profile` without a
    /// schedule left around the loop): every operator and kernel recorded, in every step.
    TrainingProfiler,
    /// `PYTORCH_NO_CUDA_MEMORY_CACHING` set: every allocation goes to the driver.
    AllocatorCachingOff,
    /// `PYTORCH_CUDA_ALLOC_CONF` set (its value is in the probe's settings): how the caching
    /// allocator grows, splits, frees or which backend serves it.
    AllocatorConf,
    /// `torch.cuda.set_sync_debug_mode` left at "warn" or "error": every synchronising call
    /// is checked, and warns or raises.
    SyncDebugMode,
}

/// What a setting costs this run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum SettingVerdict {
    /// A finding costs it and carries its fix: the finding's index in
    /// `Diagnosis::findings`.
    InFinding {
        /// Index of the finding.
        finding: usize,
    },
    /// GPU time it adds to each step, measured in the trace: below what is worth a fix.
    Small {
        /// Milliseconds per step.
        ms_per_step: f64,
        /// Share of the step.
        share: f64,
    },
    /// It costs this run nothing the recording can see, for this reason.
    Harmless {
        /// Why.
        because: Harmless,
    },
    /// The recording cannot put a number on it, for this reason.
    NotCosted {
        /// Why.
        because: NotCosted,
    },
}

/// Why a setting costs this run nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Harmless {
    /// cuDNN runs no convolutions here: the algorithm search has nothing to choose.
    NoConvolutions,
    /// No matrix multiply runs on the fp32 units: nothing for TF32 to move.
    NoFp32Matmuls,
    /// The steady steps call neither `cudaMalloc` nor `cudaFree`: the allocator serves them
    /// without the driver's blocking calls.
    NoDriverAllocations,
    /// The probe counted no synchronising call in the steps: nothing to check.
    NoSyncsInSteps,
}

/// Why the recording cannot cost a setting.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotCosted {
    /// The algorithms it would choose instead never ran: only a run with it changed
    /// measures them.
    OtherAlgorithmsNotRun,
    /// The step time was not measured well enough to split (no trace or no steps).
    NotMeasured,
    /// It records the steps itself: the checkup could not trace beside it (one profiler at
    /// a time), and only a run without it measures what it costs.
    MeasuredOnlyWithoutIt,
    /// It warns at each of the synchronising calls the probe counted in a step (its own
    /// count runs in that mode, so the recording cannot time a run without it).
    WarnsAtEachSync {
        /// Synchronising calls per step, the probe's count.
        per_step: f64,
    },
}

/// One setting and its verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingCost {
    /// The setting.
    pub setting: SpeedSetting,
    /// What it costs.
    #[serde(flatten)]
    pub verdict: SettingVerdict,
}
