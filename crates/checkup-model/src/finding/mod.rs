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
mod slowdown;
mod throttling;

pub use cause::{Cause, Family};
pub use communication::{Communication, ScalingFigures};
pub use compute_bound::ComputeBound;
pub use data_loading::DataLoading;
pub use diagnosis::{
    Diagnosis, ExpectedGain, FixGain, FixReach, PlannedFix, RankedFinding, RankedFix, StepBasis,
    DIAGNOSIS_FORMAT,
};
pub use entry::{Finding, Gains, Severity};
pub use environment::Environment;
pub use evidence::{BusyMethod, Comparison, Evidence, EvidenceKey, Source, Threshold, Unit};
pub use fix::Fix;
pub use gpu_idle::{GpuIdle, IdleSuspect, Recorded};
pub use h2d_copy::H2dCopy;
pub use host_sync::HostSync;
pub use kernel_launch::KernelLaunch;
pub use memory::Memory;
pub use memory_bandwidth::MemoryBandwidth;
pub use note::Note;
pub use periodic_stall::{PeriodicStall, PeriodicWork};
pub use slowdown::{Slowdown, SlowdownPart};
pub use throttling::Throttling;

#[cfg(test)]
mod tests;
