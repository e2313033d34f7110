//! Evidence: the measurements behind a finding, each by key, unit and source.

use serde::{Deserialize, Serialize};

use crate::CheckId;

/// What an evidence row measures.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "key")]
pub enum EvidenceKey {
    // The input pipeline.
    /// Evidence: GPU idle while waiting for the DataLoader (share of step).
    DataLoaderIdleShare,
    /// Evidence: GPU idle waiting for data in unprofiled steps, at least (share of step).
    UnprofiledDataIdleShare,
    /// GPU idle for data at each epoch start, mean over the epochs that began.
    IdlePerEpochStart,
    /// Evidence: GPU idle waiting for kernel launches, main thread short of CPU (share of step).
    StarvedLaunchIdleShare,
    /// Evidence: mean data wait per step.
    MeanDataWait,
    /// Evidence: median data wait per step.
    MedianDataWait,
    /// Evidence: data wait share of step time.
    DataWaitShare,
    /// Evidence: mean GPU utilisation.
    MeanGpuUtil,
    /// Evidence: DataLoader num_workers.
    NumWorkers,
    // The host CPU.
    /// Evidence: host CPU use, all cores.
    HostCpu,
    /// Evidence: training process tree CPU (100 = one core).
    TrainingTreeCpu,
    /// Evidence: training process CPU (100 = one core).
    TrainingProcessCpu,
    // Copies.
    /// Evidence: host-to-device copies not hidden by compute (share of step).
    ExposedH2dShare,
    /// Evidence: pageable host-to-device copy time per step.
    PageableH2dPerStep,
    /// Evidence: pinned host-to-device copy time per step.
    PinnedH2dPerStep,
    /// Evidence: pageable copy bandwidth.
    PageableBandwidth,
    /// Evidence: pageable bytes copied per step.
    PageableBytesPerStep,
    // Synchronisation.
    /// Evidence: GPU idle after a host synchronisation (share of step).
    SyncIdleShare,
    /// Evidence: synchronising CUDA calls per step.
    SyncCallsPerStep,
    /// Synchronising calls per step the probe counted, outside the profiler.
    ProbeSyncsPerStep,
    /// Of them, the share made by the busiest line.
    TopSyncSiteShare,
    /// Stalled steps in which the probe marked the periodic work named.
    StallsWithMarker,
    /// Stalls inside the profiled window.
    ProfiledStalls,
    /// Seconds of host samples during which the GPU sat near idle.
    GpuIdleSeconds,
    /// DataLoader workers (other processes of the training) each at ≥ 90 % of a core, on
    /// average while the GPU idled.
    BusyWorkersWhileIdle,
    /// The training process's own CPU while the GPU idled (100 = one core).
    MainCpuWhileIdle,
    /// The training's other processes' CPU together while the GPU idled (100 = one core).
    WorkersCpuWhileIdle,
    /// Median host read-backs in a profiled stalled step.
    ReadbacksPerStall,
    /// Evidence: aten::item / _local_scalar_dense per step.
    ItemCallsPerStep,
    /// Evidence: GPU idle while the driver allocated or freed device memory and while the
    /// host launched into the queue that drained, share of step.
    AllocIdleShare,
    /// Evidence: `cudaMalloc` / `cudaFree` calls per step.
    AllocCallsPerStep,
    /// Evidence: host time in those calls per step.
    AllocHostTimePerStep,
    /// Evidence: `torch.cuda.empty_cache()` calls per step, as the probe counted them.
    EmptyCacheCallsPerStep,
    /// Evidence: host time to launch a step, outside syncs.
    HostLaunchTime,
    /// Evidence: GPU busy time per step.
    GpuBusyPerStep,
    // Launches.
    /// Evidence: GPU idle waiting for the host to launch work (share of step).
    LaunchIdleShare,
    /// Evidence: kernels per step.
    KernelsPerStep,
    /// Evidence: median kernel duration.
    MedianKernel,
    /// Evidence: kernels shorter than 10 µs.
    TinyKernelShare,
    /// Evidence: GPU busy share of a step at unprofiled speed.
    UnprofiledBusyShare,
    /// Evidence: unprofiled step time.
    UnprofiledStepTime,
    /// Evidence: profiled step time (CPU side).
    ProfiledStepTime,
    /// Evidence: GPU-Util (any kernel running).
    GpuUtil,
    /// Evidence: SM active (GPM).
    SmActive,
    // Communication.
    /// Evidence: exposed communication on the slowest rank (share of step).
    ExposedCommShare,
    /// Evidence: communication hidden behind compute.
    CommOverlap,
    /// Evidence: NCCL kernel time per step.
    NcclPerStep,
    /// Evidence: time per step in collectives a CPU backend (gloo) ran on the host, ms.
    HostCollectivePerStep,
    /// Evidence: GPU compute of one rank per step, ms.
    ComputeRank {
        /// The rank.
        rank: u32,
    },
    /// Evidence: busy samples of one GPU with a throttling clock-event reason.
    GpuThrottledSamples {
        /// The GPU, by its number in the job.
        gpu: u32,
    },
    /// Evidence: one GPU's power limit, W.
    GpuPowerLimit {
        /// The GPU, by its number in the job.
        gpu: u32,
    },
    /// Evidence: the other ranks' mean wait for each step's slowest rank, share of the step.
    StepWaitShare,
    /// Evidence: profiled steps in which one rank was the slowest.
    SlowestRankSteps {
        /// The rank.
        rank: u32,
    },
    /// Evidence: exposed communication of one rank.
    ExposedCommRank {
        /// The rank.
        rank: u32,
    },
    /// Evidence: scaling efficiency against a 1-GPU run.
    ScalingEfficiency {
        /// GPUs of the multi-GPU run.
        gpus: u32,
    },
    /// Evidence: speed-up over 1 GPU.
    Speedup,
    /// Evidence: NVLink transmit.
    NvlinkTx,
    /// Evidence: NCCL_P2P_DISABLE set while NVLink connects the GPUs.
    P2pDisabledWithNvlink,
    /// Evidence: extra exposed communication on the waiting rank.
    StragglerExtraComm,
    // Periodic stalls.
    /// Evidence: stall period.
    StallPeriod,
    /// Evidence: typical stall length beyond a normal step.
    StallExcess,
    /// Evidence: stalls in the steady window.
    StallCount,
    /// Evidence: time lost to stalls (share of run).
    StallLostShare,
    /// Evidence: GPU util dips to idle every.
    UtilDipPeriod,
    /// Evidence: stalls during which GPU-Util fell below busy.
    StallsSeenIdle,
    /// Evidence: peak disk write rate.
    PeakDiskWrite,
    // Clocks.
    /// Evidence: busy samples with a throttling clock-event reason.
    ThrottledSamples,
    /// Evidence: SM clock while busy, share of max.
    SmClockRatio,
    /// Evidence: power draw, share of limit.
    PowerShareOfLimit,
    /// Evidence: peak GPU temperature.
    PeakTemp,
    // Idle and busy.
    /// Evidence: GPU busy share.
    GpuBusyShare,
    /// Evidence: GPU idle time no other finding explains.
    UnexplainedIdle,
    /// Evidence: GPU busy share of a step.
    StepBusyShare,
    /// Evidence: compute kernels, share of step.
    ComputeShare,
    /// Evidence: DRAM bandwidth utilisation (GPM).
    DramBandwidth,
    /// Evidence: tensor-core activity (GPM).
    TensorActive,
    /// Evidence: matmul/convolution share of kernel time.
    GemmShare,
    /// Evidence: elementwise/normalisation share of kernel time.
    ElementwiseShare,
    // Over the whole run.
    /// Evidence: median step, first tenth of the run.
    FirstStepMedian,
    /// Evidence: median step, last tenth of the run.
    LastStepMedian,
    /// Evidence: step time growth over the run.
    StepTimeGrowth,
    /// Evidence: growth of the wait for data per step.
    DataWaitGrowth,
    /// Evidence: growth of the loop's host time per step.
    HostWorkGrowth,
    /// Evidence: growth of the training processes' host memory.
    HostRssGrowth,
    // Memory.
    /// Evidence: growth of memory in live tensors.
    AllocatedGrowth,
    /// Evidence: growth of memory in live tensors, per minute.
    AllocatedGrowthRate,
    /// Evidence: growth of the training processes' host memory, per minute.
    HostRssGrowthRate,
    /// Evidence: peak GPU memory used, share of the card's.
    PeakMemoryShareOfCapacity,
    /// Evidence: other processes' memory on this GPU.
    OtherProcessesMemory,
    /// Evidence: reserved memory never used at once, share of reserved.
    ReservedUnusedShare,
    /// Evidence: allocation retries after a failed cudaMalloc.
    AllocRetries,
    /// An environment check's status (1 warn, 2 fail).
    EnvStatus {
        /// The check.
        check: CheckId,
    },
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
