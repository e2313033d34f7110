//! Findings and the diagnosis that ranks them, as language-neutral facts: a finding says
//! which cause it found and the numbers its sentences quote, each evidence row names its
//! measure, unit and source by key, each fix names the change by id with its parameters.
//! The words live in `checkup-text`, one catalogue per language.

use serde::{Deserialize, Serialize};

use crate::{
    ChartData, CheckId, EnvCheck, HostStats, RankSummary, RunFacts, SampleStats, Scaling,
    SteadyWindow, StepTiming,
};

/// Version of the diagnosis' stored form. 1: English texts in findings (before typed facts);
/// 2: typed facts.
pub const DIAGNOSIS_FORMAT: u32 = 2;

/// Finding families: the first part of a finding's id (`communication/p2p_disabled` →
/// `communication`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    ComputeBound,
    DataLoading,
    KernelLaunch,
    MemoryBandwidth,
    Communication,
    HostSync,
    H2dCopy,
    PeriodicStall,
    Throttling,
    /// The GPU waits most of the time and the recording cannot say for what.
    GpuIdle,
    Environment,
    /// The run gets slower as it goes.
    Slowdown,
    /// GPU memory: creeping up, close to the card's capacity, or fragmented.
    Memory,
}

impl Family {
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

/// What a recording without a cause for the GPU's idle time held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recorded {
    SamplesOnly,
    StepsNoTrace,
    TraceNoSteps,
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
        workers_cpu_pct: f64,
        busy_workers: f64,
    },
    /// While the GPU idled, the training process held about one core and no worker was busy:
    /// the Python loop itself. `main_cpu_pct`: its CPU, 100 = one core.
    PythonLoop { main_cpu_pct: f64 },
}

/// What grew with a run's step time, as its steps' own timings split it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowdownPart {
    /// The wait for each batch.
    DataWait,
    /// The loop's own host time between batches (forward, backward and step calls, and
    /// whatever else the loop does).
    HostWork,
    /// Neither: the GPU's work per step, or waits the step timings do not split.
    Other,
}

/// Multi-GPU scaling against a 1-GPU run, as a communication finding quotes it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScalingFigures {
    pub gpus: u32,
    pub speedup: f64,
    /// 0..=1.
    pub efficiency: f64,
}

/// The cause a finding names, with the figures its sentences quote. Shares are fractions
/// (0..=1), CPU figures percent of all cores or cores, times milliseconds unless named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Cause {
    #[serde(rename = "compute_bound")]
    ComputeBound {
        compute_share: f64,
        /// The GPU is busy (nearly) all of each step: the GPU itself is the limit.
        gpu_is_limit: bool,
        /// Matrix multiplies dominate while the tensor cores sit idle.
        tensor_cores_idle: bool,
    },
    #[serde(rename = "memory_bandwidth")]
    MemoryBandwidth {
        busy_share: f64,
        dram_pct: Option<f64>,
        tensor_pct: Option<f64>,
    },
    /// The GPU waits for batches while the host has idle cores.
    #[serde(rename = "data_loading")]
    DataLoading {
        data_wait_ms: Option<f64>,
        step_ms: Option<f64>,
        /// When most of the GPU's idle time for data falls at epoch starts: how long it
        /// idles at each (the epoch's first batches, which no worker had begun).
        #[serde(default)]
        idle_per_epoch_start_ms: Option<f64>,
    },
    /// The training's own processes saturate the host CPU.
    #[serde(rename = "data_loading/cpu_saturated")]
    DataLoadingCpuSaturated {
        host_cpu_pct: f64,
        training_cores: f64,
        /// Share of the step the GPU waits for launches the starved main thread makes late.
        launch_wait_share: Option<f64>,
    },
    /// Processes outside the training saturate the host CPU.
    #[serde(rename = "data_loading/cpu_contention")]
    DataLoadingCpuContention {
        host_cpu_pct: f64,
        training_cores: f64,
    },
    #[serde(rename = "kernel_launch")]
    KernelLaunch {
        kernels_per_step: f64,
        median_kernel_us: f64,
    },
    #[serde(rename = "kernel_launch/cpu_contention")]
    KernelLaunchCpuContention {
        host_cpu_pct: f64,
        training_cores: f64,
    },
    #[serde(rename = "communication")]
    Communication {
        exposed_share: f64,
        scaling: Option<ScalingFigures>,
    },
    /// One rank waits in NCCL for a slower one.
    #[serde(rename = "communication/straggler")]
    CommunicationStraggler {
        waiting_rank: u32,
        slow_rank: u32,
        extra_share: f64,
    },
    #[serde(rename = "communication/p2p_disabled")]
    CommunicationP2pDisabled,
    #[serde(rename = "host_sync")]
    HostSync,
    #[serde(rename = "h2d_copy")]
    H2dCopy,
    #[serde(rename = "h2d_copy/pageable")]
    H2dCopyPageable,
    #[serde(rename = "periodic_stall")]
    PeriodicStall {
        period_steps: f64,
        excess_ms: f64,
        /// What the probe's markers show happening in the stalled steps; None without
        /// markers or when they show nothing there.
        #[serde(default)]
        work: Option<PeriodicWork>,
    },
    #[serde(rename = "throttling/power")]
    ThrottlingPower {
        clock_ratio: f64,
        /// NVML clock-event reason names, as NVML spells them.
        reasons: Vec<String>,
    },
    #[serde(rename = "throttling/thermal")]
    ThrottlingThermal {
        clock_ratio: f64,
        reasons: Vec<String>,
    },
    #[serde(rename = "gpu_idle")]
    GpuIdle {
        busy_share: f64,
        recorded: Recorded,
        /// What the host samples point at while the GPU idled, when they point at one.
        #[serde(default)]
        suspect: Option<IdleSuspect>,
    },
    /// An environment check that warned or failed.
    #[serde(rename = "environment")]
    Environment { check: EnvCheck },
    /// Steps get slower as the run goes on: the median step at its start and at its end,
    /// when the slowdown began (seconds from the run's start, and the step), what grew with
    /// it, and the training processes' host memory at the start and end when it grew too.
    #[serde(rename = "slowdown")]
    Slowdown {
        first_ms: f64,
        last_ms: f64,
        began_at_s: f64,
        began_at_step: u64,
        grew: SlowdownPart,
        #[serde(default)]
        host_rss_mib: Option<[f64; 2]>,
    },
    /// Memory in live tensors keeps growing step after step: from and to (GiB), how fast,
    /// and when the card would be full at that pace (minutes from the recording's end).
    #[serde(rename = "memory/creep")]
    MemoryCreep {
        from_gib: f64,
        to_gib: f64,
        gib_per_min: f64,
        capacity_gib: f64,
        full_in_min: Option<f64>,
    },
    /// The GPU's memory at its peak was close to its capacity: the batch size is set by
    /// memory. `others_gib`: what other processes held on the same GPU then.
    #[serde(rename = "memory/near_limit")]
    MemoryNearLimit {
        peak_gib: f64,
        capacity_gib: f64,
        others_gib: f64,
    },
    /// The training processes' host memory keeps growing over the run: from and to (MiB,
    /// the first and last tenth of its steps), and how fast.
    #[serde(rename = "memory/host_creep")]
    HostMemoryCreep {
        from_mib: f64,
        to_mib: f64,
        mib_per_min: f64,
    },
    /// The caching allocator holds far more than the tensors ever needed at once: memory
    /// split into blocks of the wrong sizes. `retries`: cache flushes after a failed
    /// allocation.
    #[serde(rename = "memory/fragmented")]
    MemoryFragmented {
        reserved_gib: f64,
        peak_allocated_gib: f64,
        retries: u64,
    },
}

impl Cause {
    pub fn family(&self) -> Family {
        match self {
            Cause::ComputeBound { .. } => Family::ComputeBound,
            Cause::MemoryBandwidth { .. } => Family::MemoryBandwidth,
            Cause::DataLoading { .. }
            | Cause::DataLoadingCpuSaturated { .. }
            | Cause::DataLoadingCpuContention { .. } => Family::DataLoading,
            Cause::KernelLaunch { .. } | Cause::KernelLaunchCpuContention { .. } => {
                Family::KernelLaunch
            }
            Cause::Communication { .. }
            | Cause::CommunicationStraggler { .. }
            | Cause::CommunicationP2pDisabled => Family::Communication,
            Cause::HostSync => Family::HostSync,
            Cause::H2dCopy | Cause::H2dCopyPageable => Family::H2dCopy,
            Cause::PeriodicStall { .. } => Family::PeriodicStall,
            Cause::ThrottlingPower { .. } | Cause::ThrottlingThermal { .. } => Family::Throttling,
            Cause::GpuIdle { .. } => Family::GpuIdle,
            Cause::Environment { .. } => Family::Environment,
            Cause::Slowdown { .. } => Family::Slowdown,
            Cause::MemoryCreep { .. }
            | Cause::MemoryNearLimit { .. }
            | Cause::MemoryFragmented { .. }
            | Cause::HostMemoryCreep { .. } => Family::Memory,
        }
    }

    /// The sub-id after the family, if any (`p2p_disabled`).
    pub fn sub_id(&self) -> Option<&str> {
        Some(match self {
            Cause::DataLoadingCpuSaturated { .. } => "cpu_saturated",
            Cause::DataLoadingCpuContention { .. } | Cause::KernelLaunchCpuContention { .. } => {
                "cpu_contention"
            }
            Cause::CommunicationStraggler { .. } => "straggler",
            Cause::CommunicationP2pDisabled => "p2p_disabled",
            Cause::H2dCopyPageable => "pageable",
            Cause::ThrottlingPower { .. } => "power",
            Cause::ThrottlingThermal { .. } => "thermal",
            Cause::Environment { check } => check.id.as_str(),
            Cause::MemoryCreep { .. } => "creep",
            Cause::MemoryNearLimit { .. } => "near_limit",
            Cause::MemoryFragmented { .. } => "fragmented",
            Cause::HostMemoryCreep { .. } => "host_creep",
            _ => return None,
        })
    }

    /// The stable finding id: the family, then the sub-id (`communication/p2p_disabled`).
    pub fn id(&self) -> String {
        match self.sub_id() {
            Some(sub) => format!("{}/{sub}", self.family().id()),
            None => self.family().id().to_owned(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Minor,
    Major,
    Critical,
}

impl Severity {
    pub const ALL: [Severity; 4] = [
        Severity::Info,
        Severity::Minor,
        Severity::Major,
        Severity::Critical,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Minor => "minor",
            Severity::Major => "major",
            Severity::Critical => "critical",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "FindingJson", from = "FindingJson")]
pub struct Finding {
    pub cause: Cause,
    pub severity: Severity,
    /// 0..=1: how sure the engine is, lower when signals disagree or are missing.
    pub confidence: f64,
    /// Share of step time this finding explains (0..=1).
    pub share: f64,
    pub evidence: Vec<Evidence>,
    pub fixes: Vec<Fix>,
}

/// A finding as JSON: its stable `id` first, derived from the cause, for scripts that read
/// `findings[].id`.
#[derive(Serialize, Deserialize)]
struct FindingJson {
    #[serde(default)]
    id: String,
    cause: Cause,
    severity: Severity,
    confidence: f64,
    share: f64,
    evidence: Vec<Evidence>,
    fixes: Vec<Fix>,
}

impl From<Finding> for FindingJson {
    fn from(f: Finding) -> Self {
        FindingJson {
            id: f.cause.id(),
            cause: f.cause,
            severity: f.severity,
            confidence: f.confidence,
            share: f.share,
            evidence: f.evidence,
            fixes: f.fixes,
        }
    }
}

impl From<FindingJson> for Finding {
    fn from(f: FindingJson) -> Self {
        Finding {
            cause: f.cause,
            severity: f.severity,
            confidence: f.confidence,
            share: f.share,
            evidence: f.evidence,
            fixes: f.fixes,
        }
    }
}

impl Finding {
    /// The stable id (`communication/p2p_disabled`).
    pub fn id(&self) -> String {
        self.cause.id()
    }

    pub fn family(&self) -> Family {
        self.cause.family()
    }

    /// The value of the evidence row with `key`.
    pub fn evidence_value(&self, key: &EvidenceKey) -> Option<f64> {
        self.evidence
            .iter()
            .find(|e| &e.key == key)
            .map(|e| e.value)
    }
}

/// What an evidence row measures.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "key")]
pub enum EvidenceKey {
    // The input pipeline.
    DataLoaderIdleShare,
    UnprofiledDataIdleShare,
    /// GPU idle for data at each epoch start, mean over the epochs that began.
    IdlePerEpochStart,
    StarvedLaunchIdleShare,
    MeanDataWait,
    MedianDataWait,
    DataWaitShare,
    MeanGpuUtil,
    NumWorkers,
    // The host CPU.
    HostCpu,
    TrainingTreeCpu,
    TrainingProcessCpu,
    // Copies.
    ExposedH2dShare,
    PageableH2dPerStep,
    PinnedH2dPerStep,
    PageableBandwidth,
    PageableBytesPerStep,
    // Synchronisation.
    SyncIdleShare,
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
    ItemCallsPerStep,
    HostLaunchTime,
    GpuBusyPerStep,
    // Launches.
    LaunchIdleShare,
    KernelsPerStep,
    MedianKernel,
    TinyKernelShare,
    UnprofiledBusyShare,
    UnprofiledStepTime,
    ProfiledStepTime,
    GpuUtil,
    SmActive,
    // Communication.
    ExposedCommShare,
    CommOverlap,
    NcclPerStep,
    ExposedCommRank {
        rank: u32,
    },
    ScalingEfficiency {
        gpus: u32,
    },
    Speedup,
    NvlinkTx,
    P2pDisabledWithNvlink,
    StragglerExtraComm,
    // Periodic stalls.
    StallPeriod,
    StallExcess,
    StallCount,
    StallLostShare,
    UtilDipPeriod,
    StallsSeenIdle,
    PeakDiskWrite,
    // Clocks.
    ThrottledSamples,
    SmClockRatio,
    PowerShareOfLimit,
    PeakTemp,
    // Idle and busy.
    GpuBusyShare,
    UnexplainedIdle,
    StepBusyShare,
    ComputeShare,
    DramBandwidth,
    TensorActive,
    GemmShare,
    ElementwiseShare,
    // Over the whole run.
    FirstStepMedian,
    LastStepMedian,
    StepTimeGrowth,
    DataWaitGrowth,
    HostWorkGrowth,
    HostRssGrowth,
    // Memory.
    AllocatedGrowth,
    AllocatedGrowthRate,
    HostRssGrowthRate,
    PeakMemoryShareOfCapacity,
    OtherProcessesMemory,
    ReservedUnusedShare,
    AllocRetries,
    /// An environment check's status (1 warn, 2 fail).
    EnvStatus {
        check: CheckId,
    },
}

/// The unit of an evidence value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Percent,
    Ms,
    Us,
    Seconds,
    Calls,
    Kernels,
    Steps,
    Stalls,
    Workers,
    GbPerS,
    GibPerS,
    MbPerS,
    Mb,
    Times,
    Celsius,
    Gib,
    GibPerMin,
    Mib,
    Flag,
    /// 1 warn, 2 fail.
    Status,
}

impl Unit {
    pub const ALL: [Unit; 17] = [
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
    ProfiledWindow,
    /// Sampled GPU-Util (share of time a kernel runs).
    SampledGpuUtil,
    SampledSmActive,
}

/// Where an evidence value came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum Source {
    Trace {
        rank: Option<u32>,
    },
    AllRankTraces,
    StepsCsv,
    StepsCsvUnprofiled,
    /// steps.csv data wait minus the GPU's busy share.
    StepsWaitMinusBusy,
    /// steps.csv, step by step: each step's time on the GPU's clock beyond its fastest
    /// steps', up to its data wait.
    StepsGpuClockPerStep,
    NvmlSamples,
    GpmSamples,
    /// Each process's GPU memory (`samples_gpu_processes.csv`).
    GpuProcessSamples,
    HostSamples,
    MetaJson,
    MetaEnvAndTopology,
    StaticSnapshot,
    ThisDiagnosis,
    /// The training probe, from inside the training (`training.json`, `events.csv`).
    Probe,
    Busy {
        method: BusyMethod,
    },
    Throughput,
    /// samples/s against a 1-GPU partner run (its paths).
    PartnerThroughput {
        partner: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// `"key": "data_wait_share"`, with the key's own fields beside it (`"rank": 1`).
    #[serde(flatten)]
    pub key: EvidenceKey,
    pub value: f64,
    pub unit: Unit,
    pub threshold: Option<Threshold>,
    pub source: Source,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Comparison {
    #[serde(rename = ">=")]
    AtLeast,
    #[serde(rename = "<=")]
    AtMost,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    pub comparison: Comparison,
    pub value: f64,
}

/// A change to make, with the run's own values it quotes. The catalogue words it (title,
/// why, the code to paste, the effect to expect).
/// The periodic work a stall coincides with, from the probe's markers or the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PeriodicWork {
    /// A new epoch's iterator started its DataLoader workers again.
    EpochStart {
        workers: u32,
        batches_per_epoch: Option<u64>,
    },
    Checkpoint,
    Eval,
    GarbageCollection,
    /// The profiled stalls are the host reading tensors back one by one (`.cpu()`, `.item()`
    /// for histograms or metrics), each read-back a wait for the GPU, with the GPU idle
    /// while the host works on the copies: seen in the trace.
    HostReadback {
        /// Median read-backs in a profiled stalled step.
        readbacks_per_stall: f64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "fix")]
pub enum Fix {
    /// The CPU is saturated: make each sample cheaper (GPU decode, GPU augmentation).
    CheaperSamples,
    /// The host has idle cores but the loader already has as many workers as it should get
    /// (`workers`): each sample must get cheaper, not the worker count larger.
    CheaperSamplesAtWorkerLimit {
        workers: u32,
    },
    /// Workers on every core: leave two to the training loop.
    LeaveCoresToLoop {
        workers: u32,
        cores: u32,
        suggested: u32,
    },
    MoreWorkers {
        suggested: u32,
        current: Option<u32>,
    },
    PinMemory,
    PersistentWorkers,
    /// The GPU idles at each epoch start although the workers persist: keep one iterator
    /// running across epochs, so the next epoch's first batches are made during this one.
    LoaderAcrossEpochs {
        /// The loader's own worker count, quoted in the code.
        workers: Option<u32>,
    },
    /// Full garbage collections stall the loop: freeze the objects built at start-up.
    FreezeGc,
    PinnedCopy,
    OverlapCopy,
    FewerCopyBytes,
    FindCpuHogs,
    ReserveCores,
    CompileFuseKernels,
    /// A model compiled in another mode: capture CUDA graphs with mode="reduce-overhead".
    ReduceOverhead {
        current_mode: Option<String>,
    },
    /// `class`: the run's optimizer (`SGD`), when known, which the code names.
    ForeachOptimizer {
        #[serde(default)]
        class: Option<String>,
    },
    BiggerKernels,
    FewerReadbacks {
        /// The line that synchronises most, when the probe saw it.
        #[serde(default)]
        site: Option<crate::SyncSite>,
        /// Its calls per step.
        #[serde(default)]
        site_per_step: Option<f64>,
    },
    GpuMetrics,
    FindHiddenSyncs,
    /// Periodic work that reads tensors back one at a time: summarise on the GPU and copy
    /// once. `readbacks`: read-backs per stall.
    SummariseOnGpu {
        readbacks: f64,
    },
    EnableP2p,
    AccumulateGradients,
    MoreWorkPerAllReduce,
    CompressGradients,
    AsyncCheckpoint {
        checkpoint_seen: bool,
    },
    LessPeriodicWork,
    /// Per-step host work that grows with the steps done (a list re-scanned every step).
    ConstantHostWork,
    /// Kept loss tensors hold their graphs: keep their values.
    KeepValuesNotTensors,
    /// A per-step history kept on the host (predictions, tensors, arrays): aggregate as it
    /// comes, or write it out.
    BoundHostHistory,
    /// `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`.
    ExpandableSegments,
    /// Other processes hold `frees_gib` of the training's GPU: stop them or train on a GPU of
    /// its own.
    FreeSharedGpu {
        pids: Vec<u32>,
        frees_gib: f64,
    },
    /// The memory savers, in order of cost, each with what it would free (GiB), estimated
    /// from the recording where it can be.
    Bf16Memory {
        frees_gib: Option<f64>,
    },
    ActivationCheckpointing {
        frees_gib: Option<f64>,
    },
    EightBitOptimizer {
        frees_gib: Option<f64>,
    },
    SmallerMicroBatch {
        frees_gib: Option<f64>,
    },
    OffloadOptimizer {
        frees_gib: Option<f64>,
    },
    ProfileSteps,
    MainThreadCpu,
    CoolGpu,
    CheckPower,
    TensorCores,
    Compile,
    ChannelsLast,
    FusedOptimizer {
        #[serde(default)]
        class: Option<String>,
    },
    FuseElementwise,
    Bf16Activations,
    FusedKernels,
    /// The environment check's own fix.
    Environment {
        check: CheckId,
    },
}

/// A caveat about the inputs or the method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "note")]
pub enum Note {
    /// The profiled steps show launch waits the unprofiled steps do not: profiler overhead.
    ProfilerOverheadLaunches { launch_share: f64, busy_share: f64 },
    /// A rank's trace holds too few whole steps for its shares to mean much.
    FewTraceSteps { rank: u32, steps: u32 },
    /// GPU samples came from an nvidia-smi query log (no samples_nvml.csv).
    SamplesFromQueryLog { path: String },
    /// GPU samples came from nvidia-smi dmon output, 1 s apart from the run's start.
    SamplesFromDmon { path: String },
    /// A trace without `ProfilerStep#N` marks: its steps were inferred as `from` says.
    StepsInferred { rank: u32, from: crate::StepMarks },
}

/// The engine's answer for one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// [`DIAGNOSIS_FORMAT`] when written.
    #[serde(default = "format_1")]
    pub format: u32,
    /// Id of the finding that explains the most lost time; [`Diagnosis::UNDETERMINED`] when
    /// the recording supports no finding at all.
    pub primary: String,
    /// Ranked, primary first.
    pub findings: Vec<Finding>,
    pub window: SteadyWindow,
    pub facts: RunFacts,
    pub environment: Vec<EnvCheck>,
    pub ranks: Vec<RankSummary>,
    /// The rank whose cause is diagnosed (the slowest one on multi-GPU runs).
    pub diagnosed_rank: Option<u32>,
    pub step_timing: Vec<StepTiming>,
    pub samples: Vec<SampleStats>,
    pub host: Option<HostStats>,
    pub scaling: Option<Scaling>,
    /// Caveats about the inputs (missing files, profiler overhead, partial data).
    pub notes: Vec<Note>,
    pub sources: Vec<String>,
    /// Curves and timelines for the charts of reports and the app.
    pub charts: ChartData,
    /// What the probe saw of the diagnosed rank's training; None when it was not recorded
    /// (an attached job, a trace, a run folder from before the probe wrote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<crate::TrainingContext>,
    /// Each rank's whole run (stalls included), for baseline cards and comparisons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub whole_run: Vec<crate::WholeRun>,
}

fn format_1() -> u32 {
    1
}

impl Diagnosis {
    /// The primary of a diagnosis without findings: the recording is too short or too idle
    /// to support any (naming a bottleneck there would be a guess).
    pub const UNDETERMINED: &'static str = "undetermined";

    /// The finding with `id`, or the first of the family `id`.
    pub fn finding(&self, id: &str) -> Option<&Finding> {
        self.findings
            .iter()
            .find(|f| f.id() == id)
            .or_else(|| self.findings.iter().find(|f| f.family().id() == id))
    }

    /// The diagnosed rank's trace summary (the first rank when none was picked).
    pub fn diagnosed_rank_summary(&self) -> Option<&RankSummary> {
        self.ranks
            .iter()
            .find(|r| Some(r.rank) == self.diagnosed_rank)
            .or(self.ranks.first())
    }

    /// The samples of the diagnosed rank's GPU (rank n runs on GPU n).
    pub fn diagnosed_samples(&self) -> Option<&SampleStats> {
        self.samples
            .iter()
            .find(|s| Some(s.gpu) == self.diagnosed_rank)
            .or(self.samples.first())
    }

    /// The diagnosed rank's step series.
    pub fn diagnosed_steps(&self) -> Option<&crate::StepSeries> {
        self.charts
            .steps
            .iter()
            .find(|s| Some(s.rank) == self.diagnosed_rank)
            .or(self.charts.steps.first())
    }

    /// The diagnosed rank's whole run.
    pub fn diagnosed_whole_run(&self) -> Option<&crate::WholeRun> {
        self.whole_run
            .iter()
            .find(|w| Some(w.rank) == self.diagnosed_rank)
            .or(self.whole_run.first())
    }

    /// The diagnosed rank's step timings (`steps.csv`).
    pub fn diagnosed_timing(&self) -> Option<&crate::StepTiming> {
        self.step_timing
            .iter()
            .find(|t| Some(t.rank) == self.diagnosed_rank)
            .or(self.step_timing.first())
    }

    /// What removing a finding's cause would make of the step: its share of the step time
    /// gone, and never below the GPU's own busy time per step (the step cannot be shorter than
    /// the work the GPU does in it). None for verdicts that are not lost time (compute or
    /// memory bound, an environment check), for an idle GPU of unknown cause, for a rank that
    /// waits for a straggler (its fix is on the other rank), and for throttling, whose lost
    /// time is inside the GPU's busy time.
    pub fn expected_gain(&self, f: &Finding) -> Option<ExpectedGain> {
        self.gain_for_share(f, f.share)
    }

    /// What one of a finding's fixes would make of the step: the finding's gain when the fix
    /// removes its cause, the part it removes when the recording says which part (one line
    /// of several that synchronise), None when it only helps the main fix or finds where the
    /// time goes.
    pub fn fix_gain(&self, f: &Finding, fix: &Fix) -> Option<FixGain> {
        let reach = fix.reach(f);
        let expected = match reach {
            FixReach::Cause => self.expected_gain(f),
            FixReach::Part(part) => self.gain_for_share(f, f.share * part),
            FixReach::Supporting => None,
        }?;
        Some(FixGain { expected, reach })
    }

    /// The findings as the views list them, each with its rank's index: the lead and every
    /// finding above informational first, then the informational ones behind the lead that
    /// explain little ("also noticed"), which views set apart instead of leading with fixes.
    pub fn findings_then_also_noticed(&self) -> (Vec<RankedFinding<'_>>, Vec<RankedFinding<'_>>) {
        self.findings
            .iter()
            .enumerate()
            .partition(|(i, f)| *i == 0 || f.severity > Severity::Info)
    }

    /// What to do first: for each finding whose fixes have a gain, the fix that saves the
    /// most (the first of equals, in the finding's order), ranked by the time it saves per
    /// step. One per finding, because the gains of one finding's fixes do not add up: pinned
    /// memory and an overlapped copy both remove the same copy time.
    pub fn fixes_by_gain(&self) -> Vec<RankedFix<'_>> {
        let saved = |g: &FixGain| g.expected.step_ms_now - g.expected.step_ms_after;
        let mut out: Vec<RankedFix> = Vec::new();
        for (i, f) in self.findings.iter().enumerate() {
            let mut best: Option<RankedFix> = None;
            for fix in &f.fixes {
                let Some(gain) = self.fix_gain(f, fix) else {
                    continue;
                };
                if best.is_none_or(|b| saved(&gain) > saved(&b.gain)) {
                    best = Some(RankedFix {
                        finding: i,
                        fix,
                        gain,
                    });
                }
            }
            out.extend(best);
        }
        // Stable: equal savings keep the findings' order.
        out.sort_by(|a, b| saved(&b.gain).total_cmp(&saved(&a.gain)));
        out
    }

    fn gain_for_share(&self, f: &Finding, share: f64) -> Option<ExpectedGain> {
        let counts = f.family().is_lost_time()
            && !matches!(
                f.cause,
                Cause::CommunicationStraggler { .. }
                    | Cause::ThrottlingPower { .. }
                    | Cause::ThrottlingThermal { .. }
            );
        if !counts || share <= 0.0 {
            return None;
        }
        let (now, basis) = match self.diagnosed_timing().filter(|t| t.mean_step_ms > 0.0) {
            Some(t) => (t.mean_step_ms, StepBasis::UnprofiledSteps),
            None => {
                let r = self.diagnosed_rank_summary()?;
                (r.profiled_step_us / 1e3, StepBasis::ProfiledSteps)
            }
        };
        if now <= 0.0 {
            return None;
        }
        let busy = self
            .diagnosed_rank_summary()
            .map(|r| r.gpu_busy_per_step_us / 1e3 * (1.0 - own_busy_part(&f.cause, &r.gpu)))
            .filter(|b| *b > 0.0);
        let removed = now * (1.0 - share.min(1.0));
        let (after, bounded) = match busy {
            Some(b) if b > removed => (b.min(now), true),
            _ => (removed, false),
        };
        Some(ExpectedGain {
            step_ms_now: now,
            step_ms_after: after,
            gpu_busy_ms: busy,
            bounded_by_gpu_busy: bounded,
            basis,
        })
    }
}

/// The part of the GPU's busy time that is the finding's own cause: copies and communication
/// keep the copy engines and NCCL busy in the time they cost, so the floor a gain stops at
/// is the rest of the GPU's work (removing exposed copies cannot leave the copies' time).
fn own_busy_part(cause: &Cause, gpu: &crate::GpuTimeSplit) -> f64 {
    let own = match cause {
        Cause::H2dCopy | Cause::H2dCopyPageable => gpu.exposed_memory_us,
        Cause::Communication { .. } | Cause::CommunicationP2pDisabled => gpu.exposed_comm_us,
        _ => return 0.0,
    };
    let busy = gpu.compute_us + gpu.exposed_comm_us + gpu.exposed_memory_us;
    if busy > 0.0 {
        (own / busy).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// A finding with its index in `Diagnosis::findings` (its rank, from 0).
pub type RankedFinding<'a> = (usize, &'a Finding);

/// A finding's best fix in the list of what to do first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedFix<'a> {
    /// Index of its finding in `Diagnosis::findings`.
    pub finding: usize,
    pub fix: &'a Fix,
    pub gain: FixGain,
}

/// One fix's expected gain and the part of its finding's time it rests on (the words say
/// which part when it is not all of it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixGain {
    pub expected: ExpectedGain,
    pub reach: FixReach,
}

/// How much of its finding's lost time a fix removes, as far as the recording tells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FixReach {
    /// All of it: the fix removes the cause the finding measured.
    Cause,
    /// This fraction of it (0..=1): the busiest of several lines that synchronise.
    Part(f64),
    /// No amount the recording can put a number on: a fix that helps the main one (pinned
    /// memory beside more workers), trims part of the cause by an unknown amount (a
    /// multi-tensor optimizer among many launches), finds where the time goes, or belongs to
    /// a finding that is not lost time.
    Supporting,
}

impl Fix {
    /// Whether this fix measures more rather than changes the training (profile some steps,
    /// make syncs warn): there is nothing to re-run and compare after it.
    pub fn is_investigation(&self) -> bool {
        matches!(self, Fix::ProfileSteps | Fix::FindHiddenSyncs)
    }

    /// What part of `finding`'s lost time this fix removes. Most fixes mean one thing
    /// wherever they appear; persistent workers remove the epoch-start waits they are
    /// offered for, but only support more workers against a slow loader.
    pub fn reach(&self, finding: &Finding) -> FixReach {
        use FixReach::{Cause as Whole, Part, Supporting};
        let at_epoch_starts = matches!(
            finding.cause,
            Cause::DataLoading {
                idle_per_epoch_start_ms: Some(_),
                ..
            } | Cause::PeriodicStall {
                work: Some(PeriodicWork::EpochStart { .. }),
                ..
            }
        );
        match self {
            Fix::CheaperSamples
            | Fix::CheaperSamplesAtWorkerLimit { .. }
            | Fix::MoreWorkers { .. }
            | Fix::LoaderAcrossEpochs { .. }
            | Fix::FreezeGc
            | Fix::PinnedCopy
            | Fix::OverlapCopy
            | Fix::FindCpuHogs
            | Fix::ReserveCores
            | Fix::CompileFuseKernels
            | Fix::ReduceOverhead { .. }
            | Fix::SummariseOnGpu { .. } => Whole,
            Fix::PersistentWorkers if at_epoch_starts => Whole,
            Fix::AsyncCheckpoint {
                checkpoint_seen: true,
            } => Whole,
            Fix::FewerReadbacks {
                site: Some(_),
                site_per_step: Some(_),
            } => match finding.evidence_value(&EvidenceKey::TopSyncSiteShare) {
                Some(pct) if pct < 100.0 => Part((pct / 100.0).max(0.0)),
                _ => Whole,
            },
            Fix::FewerReadbacks { .. } => Whole,
            // The slowdown is the per-step work that grows: constant work removes it.
            Fix::ConstantHostWork => Whole,
            // Exhaustive, so a new fix is placed here on purpose.
            Fix::LeaveCoresToLoop { .. }
            | Fix::PinMemory
            | Fix::PersistentWorkers
            | Fix::AsyncCheckpoint { .. }
            | Fix::FewerCopyBytes
            | Fix::ForeachOptimizer { .. }
            | Fix::BiggerKernels
            | Fix::GpuMetrics
            | Fix::FindHiddenSyncs
            | Fix::EnableP2p
            | Fix::AccumulateGradients
            | Fix::MoreWorkPerAllReduce
            | Fix::CompressGradients
            | Fix::LessPeriodicWork
            | Fix::ProfileSteps
            | Fix::MainThreadCpu
            | Fix::CoolGpu
            | Fix::CheckPower
            | Fix::TensorCores
            | Fix::Compile
            | Fix::ChannelsLast
            | Fix::FusedOptimizer { .. }
            | Fix::FuseElementwise
            | Fix::Bf16Activations
            | Fix::FusedKernels
            | Fix::Environment { .. }
            | Fix::KeepValuesNotTensors
            | Fix::BoundHostHistory
            | Fix::ExpandableSegments
            | Fix::FreeSharedGpu { .. }
            | Fix::Bf16Memory { .. }
            | Fix::ActivationCheckpointing { .. }
            | Fix::EightBitOptimizer { .. }
            | Fix::SmallerMicroBatch { .. }
            | Fix::OffloadOptimizer { .. } => Supporting,
        }
    }
}

/// The step time if a finding's cause were removed, and what that rests on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ExpectedGain {
    pub step_ms_now: f64,
    pub step_ms_after: f64,
    /// The GPU's busy time per step, which bounds `step_ms_after` from below.
    pub gpu_busy_ms: Option<f64>,
    /// Whether that bound, not the cause's share, set `step_ms_after`.
    pub bounded_by_gpu_busy: bool,
    pub basis: StepBasis,
}

impl ExpectedGain {
    pub fn speedup(&self) -> f64 {
        if self.step_ms_after > 0.0 {
            self.step_ms_now / self.step_ms_after
        } else {
            1.0
        }
    }
}

/// Which step time a gain starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepBasis {
    /// The mean of the steps the profiler did not slow (`steps.csv`).
    UnprofiledSteps,
    /// A trace alone: the profiled steps, which the profiler slowed on the host side.
    ProfiledSteps,
}

/// How every view prints a measured value: 3 significant-ish digits, no trailing noise, and
/// never "-0".
pub fn format_number(v: f64) -> String {
    let s = if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_owned(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sync_finding(top_site_pct: f64) -> Finding {
        Finding {
            cause: Cause::HostSync,
            severity: Severity::Major,
            confidence: 0.9,
            share: 0.4,
            evidence: vec![Evidence {
                key: EvidenceKey::TopSyncSiteShare,
                value: top_site_pct,
                unit: Unit::Percent,
                threshold: None,
                source: Source::Probe,
            }],
            fixes: vec![Fix::FewerReadbacks {
                site: Some(crate::SyncSite {
                    file: "train.py".into(),
                    line: 88,
                    function: "step".into(),
                    code: "p.grad.norm().item()".into(),
                    count: 380,
                }),
                site_per_step: Some(380.0 * top_site_pct / 100.0),
            }],
        }
    }

    #[test]
    fn a_line_that_makes_part_of_the_syncs_reaches_that_part_of_their_time() {
        let f = sync_finding(60.0);
        assert_eq!(f.fixes[0].reach(&f), FixReach::Part(0.6));
        let f = sync_finding(100.0);
        assert_eq!(f.fixes[0].reach(&f), FixReach::Cause);
    }

    #[test]
    fn persistent_workers_remove_epoch_start_waits_but_only_support_a_slow_loader() {
        let at_starts = |ms| Finding {
            cause: Cause::DataLoading {
                data_wait_ms: Some(8.0),
                step_ms: Some(22.0),
                idle_per_epoch_start_ms: ms,
            },
            ..sync_finding(100.0)
        };
        assert_eq!(
            Fix::PersistentWorkers.reach(&at_starts(Some(234.0))),
            FixReach::Cause
        );
        assert_eq!(
            Fix::PersistentWorkers.reach(&at_starts(None)),
            FixReach::Supporting
        );
        assert_eq!(Fix::PinMemory.reach(&at_starts(None)), FixReach::Supporting);
    }

    #[test]
    fn a_partial_fix_removes_its_part_of_the_share_from_the_step() {
        let f = sync_finding(50.0);
        let d = Diagnosis {
            format: DIAGNOSIS_FORMAT,
            primary: f.id(),
            findings: vec![f.clone()],
            window: Default::default(),
            facts: Default::default(),
            environment: vec![],
            ranks: vec![],
            diagnosed_rank: None,
            step_timing: vec![crate::StepTiming {
                mean_step_ms: 100.0,
                ..Default::default()
            }],
            samples: vec![],
            host: None,
            scaling: None,
            notes: vec![],
            sources: vec![],
            charts: Default::default(),
            training: None,
            whole_run: Vec::new(),
        };
        // 40 % of a 100 ms step is the syncs' time; the line makes half of them.
        let whole = d.expected_gain(&f).unwrap();
        let part = d.fix_gain(&f, &f.fixes[0]).unwrap();
        assert!((whole.step_ms_after - 60.0).abs() < 1e-9, "{whole:?}");
        assert!(
            (part.expected.step_ms_after - 80.0).abs() < 1e-9,
            "{part:?}"
        );
        assert_eq!(part.reach, FixReach::Part(0.5));
        let plan = d.fixes_by_gain();
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].gain, part);
    }

    #[test]
    fn a_finding_id_is_its_family_then_its_sub_id() {
        assert_eq!(Cause::HostSync.id(), "host_sync");
        assert_eq!(
            Cause::CommunicationP2pDisabled.id(),
            "communication/p2p_disabled"
        );
        let c = Cause::DataLoadingCpuContention {
            host_cpu_pct: 99.0,
            training_cores: 0.7,
        };
        assert_eq!(c.id(), "data_loading/cpu_contention");
        assert_eq!(c.family(), Family::DataLoading);
    }

    #[test]
    fn a_finding_reads_back_from_its_json_with_the_id_scripts_use() {
        let f = Finding {
            cause: Cause::PeriodicStall {
                period_steps: 25.0,
                excess_ms: 410.0,
                work: Some(PeriodicWork::Checkpoint),
            },
            severity: Severity::Major,
            confidence: 0.85,
            share: 0.2,
            evidence: vec![Evidence {
                key: EvidenceKey::ExposedCommRank { rank: 1 },
                value: 3.0,
                unit: Unit::Percent,
                threshold: None,
                source: Source::Trace { rank: Some(1) },
            }],
            fixes: vec![Fix::MoreWorkers {
                suggested: 14,
                current: Some(2),
            }],
        };
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(json["id"], "periodic_stall");
        assert_eq!(json["cause"]["kind"], "periodic_stall");
        assert_eq!(json["fixes"][0]["fix"], "more_workers");
        assert_eq!(serde_json::from_value::<Finding>(json).unwrap(), f);
    }

    #[test]
    fn numbers_print_without_a_negative_zero() {
        assert_eq!(format_number(-0.001), "0.00");
        assert_eq!(format_number(-0.0), "0");
        assert_eq!(format_number(-12.34), "-12.3");
        assert_eq!(format_number(2000.0), "2000");
    }

    #[test]
    fn profiling_and_sync_warnings_measure_more_and_change_nothing_to_compare() {
        assert!(Fix::ProfileSteps.is_investigation());
        assert!(Fix::FindHiddenSyncs.is_investigation());
        let changes = [
            Fix::MoreWorkers {
                suggested: 14,
                current: Some(2),
            },
            Fix::PinMemory,
            Fix::GpuMetrics,
            Fix::Compile,
        ];
        assert!(changes.iter().all(|f| !f.is_investigation()));
    }
}
