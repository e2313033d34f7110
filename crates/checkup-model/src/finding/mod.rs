//! Findings and the diagnosis that ranks them, as language-neutral facts: a finding says
//! which cause it found and the numbers its sentences quote, each evidence row names its
//! measure, unit and source by key, each fix names the change by id with its parameters.
//! The words live in `checkup-text`, one catalogue per language.
//!
//! One module per family of causes (`data_loading`, `host_sync`, …), each declaring its
//! causes with their ids; `cause` gathers them into `Cause`. Adding a cause to a family
//! touches its module alone here.

#[macro_use]
mod id;

mod cause;
mod communication;
mod compilation;
mod compute_bound;
mod data_loading;
mod diagnosis;
mod entry;
mod environment;
mod evidence;
mod fix;
mod gpu_idle;
mod h2d_copy;
mod host_sync;
mod kernel_launch;
mod memory;
mod memory_bandwidth;
mod note;
mod periodic_stall;
mod shared;
mod slowdown;
mod throttling;

pub use cause::{Cause, Family};
pub use communication::{Communication, CommunicationEvidence, CommunicationFix, ScalingFigures};
pub use compilation::{Compilation, CompilationEvidence, CompilationFix};
pub use compute_bound::{ComputeBound, ComputeBoundEvidence, ComputeBoundFix};
pub use data_loading::{DataLoading, DataLoadingEvidence, DataLoadingFix};
pub use diagnosis::{
    Diagnosis, ExpectedGain, FixGain, FixReach, PlannedFix, RankedFinding, RankedFix, SharedCores,
    StepBasis, DIAGNOSIS_FORMAT,
};
pub use entry::{Finding, Gains, Severity};
pub use environment::{Environment, EnvironmentEvidence, EnvironmentFix};
pub use evidence::{BusyMethod, Comparison, Evidence, EvidenceKey, Source, Threshold, Unit};
pub use fix::Fix;
pub use gpu_idle::{GpuIdle, GpuIdleEvidence, IdleSuspect, Recorded};
pub use h2d_copy::{H2dCopy, H2dCopyEvidence, H2dCopyFix};
pub use host_sync::{HostSync, HostSyncEvidence, HostSyncFix};
pub use kernel_launch::{
    CompileFloor, KernelLaunch, KernelLaunchEvidence, KernelLaunchFix, LaunchlessHostWork,
};
pub use memory::{Memory, MemoryEvidence, MemoryFix};
pub use memory_bandwidth::{MemoryBandwidth, MemoryBandwidthEvidence, MemoryBandwidthFix};
pub use note::Note;
pub use periodic_stall::{PeriodicStall, PeriodicStallEvidence, PeriodicStallFix, PeriodicWork};
pub use shared::{SharedEvidence, SharedFix};
pub use slowdown::{Slowdown, SlowdownEvidence, SlowdownFix, SlowdownPart, StepMeasure};
pub use throttling::{Throttling, ThrottlingEvidence, ThrottlingFix};

#[cfg(test)]
mod tests;
