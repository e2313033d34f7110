//! Evidence: the measurements behind a finding, each by key, unit and source.

use serde::{Deserialize, Serialize};

use super::{
    CommunicationEvidence, CompilationEvidence, ComputeBoundEvidence, DataLoadingEvidence,
    EnvironmentEvidence, GpuIdleEvidence, H2dCopyEvidence, HostSyncEvidence, KernelLaunchEvidence,
    MemoryBandwidthEvidence, MemoryEvidence, PeriodicStallEvidence, SharedEvidence,
    SlowdownEvidence, ThrottlingEvidence,
};

by_family! {
    tag = "key", what = "evidence key";
    /// What an evidence row measures, by the family whose findings quote it (`"key": "data_wait_share"`, the key's own fields beside it).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub enum EvidenceKey {
        /// The `data_loading` family's.
        DataLoading(DataLoadingEvidence),
        /// The `kernel_launch` family's.
        KernelLaunch(KernelLaunchEvidence),
        /// The `host_sync` family's.
        HostSync(HostSyncEvidence),
        /// The `h2d_copy` family's.
        H2dCopy(H2dCopyEvidence),
        /// The `communication` family's.
        Communication(CommunicationEvidence),
        /// The `periodic_stall` family's.
        PeriodicStall(PeriodicStallEvidence),
        /// The `throttling` family's.
        Throttling(ThrottlingEvidence),
        /// The `gpu_idle` family's.
        GpuIdle(GpuIdleEvidence),
        /// The `compute_bound` family's.
        ComputeBound(ComputeBoundEvidence),
        /// The `memory_bandwidth` family's.
        MemoryBandwidth(MemoryBandwidthEvidence),
        /// The `slowdown` family's.
        Slowdown(SlowdownEvidence),
        /// The `memory` family's.
        Memory(MemoryEvidence),
        /// The `environment` family's.
        Environment(EnvironmentEvidence),
        /// The `compilation` family's.
        Compilation(CompilationEvidence),
        /// Shared by several families.
        Shared(SharedEvidence),
    }
}

/// The unit of an evidence value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Percent.
    Percent,
    /// Milliseconds.
    Ms,
    /// Microseconds.
    Us,
    /// Seconds.
    Seconds,
    /// A count of calls.
    Calls,
    /// A count of kernels.
    Kernels,
    /// A count of steps.
    Steps,
    /// A count of stalls.
    Stalls,
    /// A count of worker processes.
    Workers,
    /// Gigabytes (10⁹) per second.
    GbPerS,
    /// Gibibytes (2³⁰) per second.
    GibPerS,
    /// Megabytes (10⁶) per second.
    MbPerS,
    /// Megabytes (10⁶).
    Mb,
    /// A ratio (×).
    Times,
    /// Degrees Celsius.
    Celsius,
    /// Gibibytes.
    Gib,
    /// Gibibytes per minute.
    GibPerMin,
    /// Mebibytes.
    Mib,
    /// Watts.
    Watts,
    /// Yes (1) or no (0).
    Flag,
    /// 1 warn, 2 fail.
    Status,
}

impl Unit {
    /// The units every catalogue must word (the tests walk them).
    pub const ALL: [Unit; 21] = [
        Unit::Percent,
        Unit::Ms,
        Unit::Us,
        Unit::Seconds,
        Unit::Calls,
        Unit::Kernels,
        Unit::Steps,
        Unit::Stalls,
        Unit::Workers,
        Unit::GbPerS,
        Unit::GibPerS,
        Unit::MbPerS,
        Unit::Mb,
        Unit::Times,
        Unit::Celsius,
        Unit::Gib,
        Unit::GibPerMin,
        Unit::Mib,
        Unit::Watts,
        Unit::Flag,
        Unit::Status,
    ];
}

/// How the GPU's busy share was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BusyMethod {
    /// Trace busy time per step over the step time of unprofiled steps.
    TraceOverUnprofiledSteps,
    /// Trace busy time over the profiled steps' own time.
    ProfiledWindow,
    /// Sampled GPU-Util (share of time a kernel runs).
    SampledGpuUtil,
    /// Sampled SM activity (GPM).
    SampledSmActive,
}

/// Where an evidence value came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum Source {
    /// A rank's trace.
    Trace {
        /// The rank, when the trace says.
        rank: Option<u32>,
    },
    /// Every rank's trace.
    AllRankTraces,
    /// `steps.csv`.
    StepsCsv,
    /// `steps.csv`, unprofiled steps only.
    StepsCsvUnprofiled,
    /// steps.csv data wait minus the GPU's busy share.
    StepsWaitMinusBusy,
    /// steps.csv, step by step: each step's time on the GPU's clock beyond its fastest
    /// steps', up to its data wait.
    StepsGpuClockPerStep,
    /// NVML samples.
    NvmlSamples,
    /// GPM samples.
    GpmSamples,
    /// Each process's GPU memory (`samples_gpu_processes.csv`).
    GpuProcessSamples,
    /// Host samples.
    HostSamples,
    /// `meta.json`.
    MetaJson,
    /// `meta.json`'s environment and GPU topology.
    MetaEnvAndTopology,
    /// The static snapshot (`nvidia-smi -q -x`, NVML at start).
    StaticSnapshot,
    /// Derived from this diagnosis's other figures.
    ThisDiagnosis,
    /// The training probe, from inside the training (`training.json`, `events.csv`).
    Probe,
    /// The GPU's busy share, measured as `method` says.
    Busy {
        /// How it was measured.
        method: BusyMethod,
    },
    /// Samples per second.
    Throughput,
    /// samples/s against a 1-GPU partner run (its paths).
    PartnerThroughput {
        /// The partner run's paths.
        partner: String,
    },
}

/// One measurement behind a finding: what, its value and unit, the threshold it crossed, where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// `"key": "data_wait_share"`, with the key's own fields beside it (`"rank": 1`).
    #[serde(flatten)]
    pub key: EvidenceKey,
    /// The measured value, in `unit`.
    pub value: f64,
    /// Its unit.
    pub unit: Unit,
    /// The threshold it was judged against, if any.
    pub threshold: Option<Threshold>,
    /// Where it came from.
    pub source: Source,
}

/// Which side of a threshold a value must be on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Comparison {
    /// At least the threshold.
    #[serde(rename = ">=")]
    AtLeast,
    /// At most the threshold.
    #[serde(rename = "<=")]
    AtMost,
}

/// A threshold an evidence value was judged against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    /// At least or at most.
    pub comparison: Comparison,
    /// The threshold, in the evidence's unit.
    pub value: f64,
}
