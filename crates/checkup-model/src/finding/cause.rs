//! `Cause`: what a finding found, one variant per family, each holding its family's enum
//! (`Cause::HostSync(HostSync::Allocator { .. })`). Each cause's id is spelled once, in its
//! family's module; the family comes from the variant that holds it.

use serde::{Deserialize, Serialize};

use super::{Communication, Compilation};
use super::{
    ComputeBound, DataLoading, Environment, GpuIdle, H2dCopy, HostSync, KernelLaunch, Memory,
    MemoryBandwidth, PeriodicStall, Slowdown, Throttling,
};

/// Finding families: the first part of a finding's id (`communication/p2p_disabled` →
/// `communication`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// The GPU computes most of each step: the model's arithmetic is the limit.
    ComputeBound,
    /// The GPU waits for the input pipeline.
    DataLoading,
    /// The GPU waits for the host to launch its many short kernels.
    KernelLaunch,
    /// Kernels limited by memory bandwidth, not arithmetic.
    MemoryBandwidth,
    /// Multi-GPU communication not hidden behind compute.
    Communication,
    /// The host waits for the GPU (`.item()`, `.cpu()`, synchronise) and the GPU then idles.
    HostSync,
    /// Host-to-device copies not hidden behind compute.
    H2dCopy,
    /// Some steps take far longer at a regular period (checkpoints, evaluation, epoch starts).
    PeriodicStall,
    /// Clocks held down by power or temperature.
    Throttling,
    /// The GPU waits most of the time and the recording cannot say for what.
    GpuIdle,
    /// An environment check that warned or failed.
    Environment,
    /// The run gets slower as it goes.
    Slowdown,
    /// GPU memory: creeping up, close to the card's capacity, or fragmented.
    Memory,
    /// Dynamo compiling the training's functions again and again.
    Compilation,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 14] = [
        Family::ComputeBound,
        Family::DataLoading,
        Family::KernelLaunch,
        Family::MemoryBandwidth,
        Family::Communication,
        Family::HostSync,
        Family::H2dCopy,
        Family::PeriodicStall,
        Family::Throttling,
        Family::GpuIdle,
        Family::Environment,
        Family::Slowdown,
        Family::Memory,
        Family::Compilation,
    ];

    /// The family of a cause's kind or a finding's id (`host_sync/allocator` → `HostSync`).
    pub fn of_kind(kind: &str) -> Option<Family> {
        let family = kind.split('/').next()?;
        Family::ALL.into_iter().find(|f| f.id() == family)
    }

    /// The stable id (`data_loading`).
    pub fn id(self) -> &'static str {
        match self {
            Family::ComputeBound => "compute_bound",
            Family::DataLoading => "data_loading",
            Family::KernelLaunch => "kernel_launch",
            Family::MemoryBandwidth => "memory_bandwidth",
            Family::Communication => "communication",
            Family::HostSync => "host_sync",
            Family::H2dCopy => "h2d_copy",
            Family::PeriodicStall => "periodic_stall",
            Family::Throttling => "throttling",
            Family::GpuIdle => "gpu_idle",
            Family::Environment => "environment",
            Family::Slowdown => "slowdown",
            Family::Memory => "memory",
            Family::Compilation => "compilation",
        }
    }

    /// Families that are lost time: the GPU waits, or runs slower than it could.
    pub fn is_lost_time(self) -> bool {
        !matches!(
            self,
            Family::ComputeBound | Family::MemoryBandwidth | Family::Environment | Family::Memory
        )
    }

    /// The GPU-busy verdicts (compute or memory bound).
    pub fn is_busy_verdict(self) -> bool {
        matches!(self, Family::ComputeBound | Family::MemoryBandwidth)
    }
}

families! {
    /// The cause a finding names, with the figures its sentences quote. Shares are fractions
    /// (0..=1), CPU figures percent of all cores or cores, times milliseconds unless named.
    pub enum Cause {
        /// The GPU computes most of each step.
        ComputeBound(ComputeBound),
        /// The GPU waits for the input pipeline.
        DataLoading(DataLoading),
        /// The GPU waits for the host to launch its many short kernels.
        KernelLaunch(KernelLaunch),
        /// Kernels limited by memory bandwidth, not arithmetic.
        MemoryBandwidth(MemoryBandwidth),
        /// Multi-GPU communication not hidden behind compute.
        Communication(Communication),
        /// The host waits for the GPU and the GPU then idles.
        HostSync(HostSync),
        /// Host-to-device copies not hidden behind compute.
        H2dCopy(H2dCopy),
        /// Some steps take far longer at a regular period.
        PeriodicStall(PeriodicStall),
        /// Clocks held down by power or temperature.
        Throttling(Throttling),
        /// The GPU waits most of the time and the recording cannot say for what.
        GpuIdle(GpuIdle),
        /// An environment check that warned or failed.
        Environment(Environment),
        /// The run gets slower as it goes.
        Slowdown(Slowdown),
        /// GPU or host memory: creeping up, close to the card's capacity, or fragmented.
        Memory(Memory),
        /// Dynamo compiling the training's functions again and again.
        Compilation(Compilation),
    }
}

impl Cause {
    /// The stable finding id: the cause's kind (`communication/p2p_disabled`), and for an
    /// environment check the check's id after the family (`environment/persistence_mode`).
    pub fn id(&self) -> String {
        match self {
            Cause::Environment(Environment::Check { check }) => {
                format!("{}/{}", Family::Environment.id(), check.id.as_str())
            }
            c => c.kind().to_owned(),
        }
    }

    /// Where the host's time goes for a host-bound cause: the lines the probe's samples
    /// credit (empty for other causes, and without the samples).
    pub fn hot_lines(&self) -> &[crate::HostLine] {
        match self {
            Cause::KernelLaunch(KernelLaunch::TinyKernels { hot_lines, .. })
            | Cause::KernelLaunch(KernelLaunch::InterpreterHeld { hot_lines, .. })
            | Cause::DataLoading(DataLoading::SlowLoader { hot_lines, .. })
            | Cause::DataLoading(DataLoading::CpuSaturated { hot_lines, .. })
            | Cause::Slowdown(Slowdown::StepsGrow { hot_lines, .. }) => hot_lines,
            _ => &[],
        }
    }
}
