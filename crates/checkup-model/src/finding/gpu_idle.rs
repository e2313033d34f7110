//! An idle GPU whose cause the recording cannot name.

use serde::{Deserialize, Serialize};

causes! {
    /// The GPU waits most of the time and the recording cannot say for what.
    pub enum GpuIdle {
        /// The GPU waits most of the time and the recording cannot say for what.
        Unexplained {
            /// The GPU's busy share.
            busy_share: f64,
            /// What the recording held.
            recorded: Recorded,
            /// What the host samples point at while the GPU idled, when they point at one.
            #[serde(default)]
            suspect: Option<IdleSuspect>,
        } => "gpu_idle",
    }
}

/// What a recording without a cause for the GPU's idle time held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recorded {
    /// GPU and host samples alone.
    SamplesOnly,
    /// Step times without a trace.
    StepsNoTrace,
    /// Step times, and no trace: the training's own profiler was recording, and one runs at
    /// a time.
    StepsTrainingProfiler,
    /// A trace without step times.
    TraceNoSteps,
    /// Both, and neither explains the idle time.
    StepsAndTrace,
}

/// The likely cause of an idle GPU read from host samples alone, to be confirmed by a
/// profile.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum IdleSuspect {
    /// While the GPU idled, the training's other processes (DataLoader workers) were at
    /// work: `workers_cpu_pct` their CPU together (100 = one core), `busy_workers` of them
    /// on average each at a full core.
    InputPipeline {
        /// The workers' CPU together (100 = one core).
        workers_cpu_pct: f64,
        /// Workers each at a full core, on average.
        busy_workers: f64,
    },
    /// While the GPU idled, the training process held about one core and no worker was busy:
    /// the Python loop itself. `main_cpu_pct`: its CPU, 100 = one core.
    PythonLoop {
        /// The training process's CPU (100 = one core).
        main_cpu_pct: f64,
    },
}

keyed! {
    tag = "key";
    /// What the `gpu_idle` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum GpuIdleEvidence {
        /// Seconds of host samples during which the GPU sat near idle.
        GpuIdleSeconds => "gpu_idle_seconds",
        /// DataLoader workers (other processes of the training) each at ≥ 90 % of a core, on
        /// average while the GPU idled.
        BusyWorkersWhileIdle => "busy_workers_while_idle",
        /// The training process's own CPU while the GPU idled (100 = one core).
        MainCpuWhileIdle => "main_cpu_while_idle",
        /// The training's other processes' CPU together while the GPU idled (100 = one core).
        WorkersCpuWhileIdle => "workers_cpu_while_idle",
        /// GPU busy share.
        GpuBusyShare => "gpu_busy_share",
        /// GPU idle time no other finding explains.
        UnexplainedIdle => "unexplained_idle",
    }
}
