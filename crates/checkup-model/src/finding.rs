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
/// 2: typed facts; 3: gains computed by the engine and stored with each finding and fix.
pub const DIAGNOSIS_FORMAT: u32 = 3;

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
    /// GPU and host samples alone.
    SamplesOnly,
    /// Step times without a trace.
    StepsNoTrace,
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
    /// GPUs of the multi-GPU run.
    pub gpus: u32,
    /// Its throughput over the 1-GPU run's.
    pub speedup: f64,
    /// 0..=1.
    pub efficiency: f64,
}

/// The cause a finding names, with the figures its sentences quote. Shares are fractions
/// (0..=1), CPU figures percent of all cores or cores, times milliseconds unless named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Cause {
    /// The GPU computes most of each step.
    #[serde(rename = "compute_bound")]
    ComputeBound {
        /// Compute kernels' share of step time.
        compute_share: f64,
        /// The GPU is busy (nearly) all of each step: the GPU itself is the limit.
        gpu_is_limit: bool,
        /// Matrix multiplies dominate while the tensor cores sit idle.
        tensor_cores_idle: bool,
    },
    /// Kernels limited by memory bandwidth.
    #[serde(rename = "memory_bandwidth")]
    MemoryBandwidth {
        /// The GPU's busy share of a step.
        busy_share: f64,
        /// DRAM bandwidth utilisation (GPM), percent.
        dram_pct: Option<f64>,
        /// Tensor-core activity (GPM), percent.
        tensor_pct: Option<f64>,
    },
    /// The GPU waits for batches while the host has idle cores.
    #[serde(rename = "data_loading")]
    DataLoading {
        /// Mean wait for a batch per step.
        data_wait_ms: Option<f64>,
        /// Mean step time.
        step_ms: Option<f64>,
        /// When most of the GPU's idle time for data falls at epoch starts: how long it
        /// idles at each (the epoch's first batches, which no worker had begun).
        #[serde(default)]
        idle_per_epoch_start_ms: Option<f64>,
    },
    /// The training's own processes saturate the host CPU.
    #[serde(rename = "data_loading/cpu_saturated")]
    DataLoadingCpuSaturated {
        /// The host's CPU use, percent of all cores.
        host_cpu_pct: f64,
        /// Cores the training's processes use.
        training_cores: f64,
        /// Share of the step the GPU waits for launches the starved main thread makes late.
        launch_wait_share: Option<f64>,
    },
    /// Processes outside the training saturate the host CPU.
    #[serde(rename = "data_loading/cpu_contention")]
    DataLoadingCpuContention {
        /// The host's CPU use, percent of all cores.
        host_cpu_pct: f64,
        /// Cores the training's processes use.
        training_cores: f64,
    },
    /// The GPU waits for kernel launches: many short kernels per step.
    #[serde(rename = "kernel_launch")]
    KernelLaunch {
        /// Kernels launched per step.
        kernels_per_step: f64,
        /// Median kernel duration, µs.
        median_kernel_us: f64,
    },
    /// Kernel launches late because other processes hold the host's CPU.
    #[serde(rename = "kernel_launch/cpu_contention")]
    KernelLaunchCpuContention {
        /// The host's CPU use, percent of all cores.
        host_cpu_pct: f64,
        /// Cores the training's processes use.
        training_cores: f64,
    },
    /// Communication not hidden behind compute.
    #[serde(rename = "communication")]
    Communication {
        /// Exposed communication's share of step time.
        exposed_share: f64,
        /// Scaling against a 1-GPU partner run, when one was given.
        scaling: Option<ScalingFigures>,
    },
    /// One rank waits in NCCL for a slower one.
    #[serde(rename = "communication/straggler")]
    CommunicationStraggler {
        /// The rank that waits.
        waiting_rank: u32,
        /// The rank it waits for.
        slow_rank: u32,
        /// The waiting rank's extra exposed communication, share of step.
        extra_share: f64,
    },
    /// Every step waits for its slowest rank, and which rank that is changes from step to
    /// step: the work per step is uneven and moves between ranks.
    #[serde(rename = "communication/shifting_straggler")]
    CommunicationShiftingStraggler {
        /// The ranks that were the slowest in some profiled step, most often first.
        slowest_ranks: Vec<u32>,
        /// Profiled steps every rank's trace holds.
        steps: u32,
        /// The other ranks' mean wait for the step's slowest rank, share of the step.
        wait_share: f64,
    },
    /// `NCCL_P2P_DISABLE` is set while NVLink connects the GPUs.
    #[serde(rename = "communication/p2p_disabled")]
    CommunicationP2pDisabled,
    /// The host synchronises with the GPU inside the step and the GPU idles meanwhile.
    #[serde(rename = "host_sync")]
    HostSync,
    /// The caching allocator asks the driver for device memory in every step
    /// (`cudaMalloc`, `cudaFree`; its cache emptied, or caching turned off): `cudaFree` waits
    /// for the whole GPU, and the GPU idles while the host allocates and launches again.
    #[serde(rename = "host_sync/allocator")]
    HostSyncAllocator {
        /// `cudaMalloc` / `cudaFree` calls per step.
        calls_per_step: f64,
    },
    /// Exposed host-to-device copies.
    #[serde(rename = "h2d_copy")]
    H2dCopy,
    /// Exposed host-to-device copies from pageable memory.
    #[serde(rename = "h2d_copy/pageable")]
    H2dCopyPageable,
    /// Long steps at a regular period.
    #[serde(rename = "periodic_stall")]
    PeriodicStall {
        /// Steps between stalls.
        period_steps: f64,
        /// A stall's typical length beyond a normal step.
        excess_ms: f64,
        /// What the probe's markers show happening in the stalled steps; None without
        /// markers or when they show nothing there.
        #[serde(default)]
        work: Option<PeriodicWork>,
    },
    /// Clocks held down by the power limit.
    #[serde(rename = "throttling/power")]
    ThrottlingPower {
        /// The SM clock while busy, share of its maximum.
        clock_ratio: f64,
        /// NVML clock-event reason names, as NVML spells them.
        reasons: Vec<String>,
    },
    /// Clocks held down by temperature.
    #[serde(rename = "throttling/thermal")]
    ThrottlingThermal {
        /// The SM clock while busy, share of its maximum.
        clock_ratio: f64,
        /// NVML clock-event reason names, as NVML spells them.
        reasons: Vec<String>,
    },
    /// The GPU waits most of the time and the recording cannot say for what.
    #[serde(rename = "gpu_idle")]
    GpuIdle {
        /// The GPU's busy share.
        busy_share: f64,
        /// What the recording held.
        recorded: Recorded,
        /// What the host samples point at while the GPU idled, when they point at one.
        #[serde(default)]
        suspect: Option<IdleSuspect>,
    },
    /// An environment check that warned or failed.
    #[serde(rename = "environment")]
    Environment {
        /// The check.
        check: EnvCheck,
    },
    /// Steps get slower as the run goes on: the median step at its start and at its end,
    /// when the slowdown began (seconds from the run's start, and the step), what grew with
    /// it, and the training processes' host memory at the start and end when it grew too.
    #[serde(rename = "slowdown")]
    Slowdown {
        /// Median step in the first tenth of the run.
        first_ms: f64,
        /// Median step in the last tenth.
        last_ms: f64,
        /// Seconds from the run's start to where the slowdown began.
        began_at_s: f64,
        /// The step where it began.
        began_at_step: u64,
        /// What grew with the step time.
        grew: SlowdownPart,
        /// The training processes' host memory (MiB) in the first and last tenth, when it grew too.
        #[serde(default)]
        host_rss_mib: Option<[f64; 2]>,
    },
    /// Memory in live tensors keeps growing step after step: from and to (GiB), how fast,
    /// and when the card would be full at that pace (minutes from the recording's end).
    #[serde(rename = "memory/creep")]
    MemoryCreep {
        /// Live tensors at the start, GiB.
        from_gib: f64,
        /// Live tensors at the end, GiB.
        to_gib: f64,
        /// Growth per minute, GiB.
        gib_per_min: f64,
        /// The card's memory, GiB.
        capacity_gib: f64,
        /// Minutes from the recording's end until the card is full at that pace.
        full_in_min: Option<f64>,
    },
    /// The GPU's memory at its peak was close to its capacity: the batch size is set by
    /// memory. `others_gib`: what other processes held on the same GPU then.
    #[serde(rename = "memory/near_limit")]
    MemoryNearLimit {
        /// Memory in use at the peak, GiB.
        peak_gib: f64,
        /// The card's memory, GiB.
        capacity_gib: f64,
        /// What other processes held on the GPU then, GiB.
        others_gib: f64,
    },
    /// The training processes' host memory keeps growing over the run: from and to (MiB,
    /// the first and last tenth of its steps), and how fast.
    #[serde(rename = "memory/host_creep")]
    HostMemoryCreep {
        /// In the first tenth of the steps, MiB.
        from_mib: f64,
        /// In the last tenth, MiB.
        to_mib: f64,
        /// Growth per minute, MiB.
        mib_per_min: f64,
    },
    /// The caching allocator holds far more than the tensors ever needed at once: memory
    /// split into blocks of the wrong sizes. `retries`: cache flushes after a failed
    /// allocation.
    #[serde(rename = "memory/fragmented")]
    MemoryFragmented {
        /// What the allocator reserved, GiB.
        reserved_gib: f64,
        /// The most live tensors held at once, GiB.
        peak_allocated_gib: f64,
        /// Cache flushes after a failed allocation.
        retries: u64,
    },
}

impl Cause {
    /// The family the cause belongs to.
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
            | Cause::CommunicationShiftingStraggler { .. }
            | Cause::CommunicationP2pDisabled => Family::Communication,
            Cause::HostSync | Cause::HostSyncAllocator { .. } => Family::HostSync,
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
            Cause::CommunicationShiftingStraggler { .. } => "shifting_straggler",
            Cause::CommunicationP2pDisabled => "p2p_disabled",
            Cause::H2dCopyPageable => "pageable",
            Cause::HostSyncAllocator { .. } => "allocator",
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

/// How much a finding matters, mostly from the share of step time it explains (the engine's thresholds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing: below the reportable share, or a verdict rather than lost time.
    Info,
    /// At least the reportable share of step time.
    Minor,
    /// At least the significant share.
    Major,
    /// At least the critical share, or memory about to run out.
    Critical,
}

impl Severity {
    /// Every severity, least first.
    pub const ALL: [Severity; 4] = [
        Severity::Info,
        Severity::Minor,
        Severity::Major,
        Severity::Critical,
    ];

    /// The stable key (`major`).
    pub fn key(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Minor => "minor",
            Severity::Major => "major",
            Severity::Critical => "critical",
        }
    }
}

/// One cause found in a run, with its evidence and fixes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "FindingJson", from = "FindingJson")]
pub struct Finding {
    /// The cause and the figures its sentences quote.
    pub cause: Cause,
    /// How much it matters.
    pub severity: Severity,
    /// 0..=1: how sure the engine is, lower when signals disagree or are missing.
    pub confidence: f64,
    /// Share of step time this finding explains (0..=1).
    pub share: f64,
    /// The measurements that show it, each checkable in the charts or the recording.
    pub evidence: Vec<Evidence>,
    /// What to change, first fix first.
    pub fixes: Vec<Fix>,
    /// What removing the cause, and each fix, should make of the step: the engine computes
    /// them once the findings are ranked (empty until then); views only word them.
    pub gains: Gains,
}

/// A finding's expected gains, as the engine computed them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gains {
    /// The step time with the whole cause gone. None for verdicts that are not lost time
    /// (compute or memory bound, an environment check), an idle GPU of unknown cause, a rank
    /// that waits for a straggler (its fix is on the other rank), and throttling, whose lost
    /// time is inside the GPU's busy time.
    pub cause: Option<ExpectedGain>,
    /// One per fix, in the finding's order: None where the recording puts no number on what
    /// the fix removes (it supports the main fix, or finds where the time goes).
    pub fixes: Vec<Option<FixGain>>,
}

/// A finding as JSON: its stable `id` first, derived from the cause, for scripts that read
/// `findings[].id`; its gain, and each fix with its own.
#[derive(Serialize, Deserialize)]
struct FindingJson {
    #[serde(default)]
    id: String,
    cause: Cause,
    severity: Severity,
    confidence: f64,
    share: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gain: Option<ExpectedGain>,
    evidence: Vec<Evidence>,
    fixes: Vec<FixJson>,
}

/// A fix as JSON: the fix (`{"fix": "more_workers", …}`) and, where the engine put a number
/// on it, `gain`.
#[derive(Serialize, Deserialize)]
struct FixJson {
    #[serde(flatten)]
    fix: Fix,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gain: Option<FixGain>,
}

impl From<Finding> for FindingJson {
    fn from(f: Finding) -> Self {
        let mut gains = f.gains.fixes.into_iter();
        FindingJson {
            id: f.cause.id(),
            cause: f.cause,
            severity: f.severity,
            confidence: f.confidence,
            share: f.share,
            gain: f.gains.cause,
            evidence: f.evidence,
            fixes: f
                .fixes
                .into_iter()
                .map(|fix| FixJson {
                    fix,
                    gain: gains.next().flatten(),
                })
                .collect(),
        }
    }
}

impl From<FindingJson> for Finding {
    fn from(f: FindingJson) -> Self {
        let (fixes, fix_gains) = f.fixes.into_iter().map(|x| (x.fix, x.gain)).unzip();
        Finding {
            cause: f.cause,
            severity: f.severity,
            confidence: f.confidence,
            share: f.share,
            evidence: f.evidence,
            fixes,
            gains: Gains {
                cause: f.gain,
                fixes: fix_gains,
            },
        }
    }
}

impl Finding {
    /// The stable id (`communication/p2p_disabled`).
    pub fn id(&self) -> String {
        self.cause.id()
    }

    /// A straggler whose extra compute is the job's cost: the others' wait is time the whole
    /// job loses, and evening the work out (one rank with more work, or work that moves
    /// between ranks step by step) or mending the slower GPU gains it back. Any other
    /// straggler's wait is a symptom, counted on the slow rank's own finding.
    pub fn is_explained_straggler(&self) -> bool {
        match self.cause {
            Cause::CommunicationShiftingStraggler { .. } => true,
            Cause::CommunicationStraggler { .. } => self.fixes.iter().any(|f| {
                matches!(
                    f,
                    Fix::EvenRankWork { .. } | Fix::SlowerGpu { .. } | Fix::OtherGpuModel { .. }
                )
            }),
            _ => false,
        }
    }

    /// The family of its cause.
    pub fn family(&self) -> Family {
        self.cause.family()
    }

    /// Each fix with its expected gain, in the finding's order.
    pub fn fixes_with_gains(&self) -> impl Iterator<Item = (&Fix, Option<&FixGain>)> {
        self.fixes
            .iter()
            .enumerate()
            .map(|(i, fix)| (fix, self.gains.fixes.get(i).and_then(Option::as_ref)))
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

/// The periodic work a stall coincides with, from the probe's markers or the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PeriodicWork {
    /// A new epoch's iterator started its DataLoader workers again.
    EpochStart {
        /// The loader's worker count.
        workers: u32,
        /// Batches in an epoch, when known.
        batches_per_epoch: Option<u64>,
    },
    /// A checkpoint being written.
    Checkpoint,
    /// An evaluation pass.
    Eval,
    /// A full garbage collection.
    GarbageCollection,
    /// The profiled stalls are the host reading tensors back one by one (`.cpu()`, `.item()`
    /// for histograms or metrics), each read-back a wait for the GPU, with the GPU idle
    /// while the host works on the copies: seen in the trace.
    HostReadback {
        /// Median read-backs in a profiled stalled step.
        readbacks_per_stall: f64,
    },
}

/// A change to make, with the run's own values it quotes. The catalogue words it (title,
/// why, the code to paste, the effect to expect).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "fix")]
pub enum Fix {
    /// The CPU is saturated: make each sample cheaper (GPU decode, GPU augmentation).
    CheaperSamples,
    /// The host has idle cores but the loader already has as many workers as it should get
    /// (`workers`): each sample must get cheaper, not the worker count larger.
    CheaperSamplesAtWorkerLimit {
        /// The loader's workers.
        workers: u32,
    },
    /// Workers on every core: leave two to the training loop.
    LeaveCoresToLoop {
        /// The loader's workers (each training process's).
        workers: u32,
        /// The host's cores.
        cores: u32,
        /// Workers to use instead, per training process.
        suggested: u32,
        /// Training processes (ranks) on the host, each with its workers.
        #[serde(default = "one")]
        ranks: u32,
    },
    /// Give the DataLoader more worker processes.
    MoreWorkers {
        /// Workers to use.
        suggested: u32,
        /// The run's own worker count, when known.
        current: Option<u32>,
    },
    /// Pin host memory and copy asynchronously.
    PinMemory,
    /// Keep workers alive between epochs.
    PersistentWorkers,
    /// The GPU idles at each epoch start although the workers persist: keep one iterator
    /// running across epochs, so the next epoch's first batches are made during this one.
    LoaderAcrossEpochs {
        /// The loader's own worker count, quoted in the code.
        workers: Option<u32>,
    },
    /// Full garbage collections stall the loop: freeze the objects built at start-up.
    FreezeGc,
    /// Copy from pinned memory, asynchronously.
    PinnedCopy,
    /// Overlap the next batch's copy with this step's compute.
    OverlapCopy,
    /// Send fewer bytes.
    FewerCopyBytes,
    /// Find what else keeps the CPU busy.
    FindCpuHogs,
    /// Give the training cores of its own.
    ReserveCores,
    /// Compile the model to fuse small kernels.
    CompileFuseKernels,
    /// A model compiled in another mode: capture CUDA graphs with mode="reduce-overhead".
    ReduceOverhead {
        /// The mode the model was compiled in.
        current_mode: Option<String>,
    },
    /// `class`: the run's optimizer (`SGD`), when known, which the code names.
    ForeachOptimizer {
        /// The run's optimizer class.
        #[serde(default)]
        class: Option<String>,
    },
    /// Give each kernel more work.
    BiggerKernels,
    /// Stop reading GPU values back inside the step, at the line that does it most.
    FewerReadbacks {
        /// The line that synchronises most, when the probe saw it.
        #[serde(default)]
        site: Option<crate::SyncSite>,
        /// Its calls per step.
        #[serde(default)]
        site_per_step: Option<f64>,
    },
    /// Keep the caching allocator's memory between steps: take `torch.cuda.empty_cache()` out
    /// of the loop (at its line, when the probe saw it), or turn caching back on.
    KeepAllocatorCache {
        /// The line that empties the cache most, when the probe saw it.
        #[serde(default)]
        site: Option<crate::SyncSite>,
        /// `torch.cuda.empty_cache()` calls per step, when the probe counted them.
        #[serde(default)]
        calls_per_step: Option<f64>,
        /// `PYTORCH_NO_CUDA_MEMORY_CACHING` is set in the run's environment.
        #[serde(default)]
        caching_off: bool,
    },
    /// Compute metrics on the GPU.
    GpuMetrics,
    /// Find hidden syncs.
    FindHiddenSyncs,
    /// Periodic work that reads tensors back one at a time: summarise on the GPU and copy
    /// once. `readbacks`: read-backs per stall.
    SummariseOnGpu {
        /// Read-backs per stall.
        readbacks: f64,
    },
    /// Re-enable NCCL peer-to-peer.
    EnableP2p,
    /// Communicate less often: accumulate gradients.
    AccumulateGradients,
    /// Make each GPU do more work per all-reduce.
    MoreWorkPerAllReduce,
    /// Send fewer bytes per all-reduce.
    CompressGradients,
    /// The process group is gloo and the gradients are GPU tensors: let NCCL carry them.
    NcclForGpuTensors,
    /// The slowest rank changes from step to step: give every rank the same work in each step
    /// (batches grouped by length across the ranks).
    EvenStepWork,
    /// One rank computes markedly more per step than the others: find why and even it out.
    EvenRankWork {
        /// The rank that computes more.
        slow_rank: u32,
        /// Its compute per step over the median of the others'.
        ratio: f64,
    },
    /// The straggler computes longer because its GPU runs slower than the others' (held
    /// down by clock-event reasons they do not have, or capped at a lower power limit), not
    /// because it has more work: that GPU is what to fix.
    SlowerGpu {
        /// The rank on it.
        slow_rank: u32,
        /// The GPU, by its number in the job.
        gpu: u32,
        /// Its host, as the views name it, when the job ran on several.
        host: Option<String>,
        /// Its throttling clock-event reasons, by NVML's names (empty: not throttled).
        reasons: Vec<String>,
        /// Its power limit, W, when lower than the others'.
        power_limit_w: Option<f64>,
        /// The others' power limit, W, when its own is lower.
        typical_power_limit_w: Option<f64>,
    },
    /// The slow rank's GPU is another model than every other rank's: the same work takes
    /// another time there, and in synchronous training the slower GPU sets every step.
    OtherGpuModel {
        /// The rank on it.
        slow_rank: u32,
        /// The GPU, by its number in the job.
        gpu: u32,
        /// Its host, as the views name it, when the job ran on several.
        host: Option<String>,
        /// Its model.
        model: String,
        /// The other ranks' GPUs' model.
        others_model: String,
    },
    /// Write checkpoints asynchronously.
    AsyncCheckpoint {
        /// Whether the probe saw the run write checkpoints.
        checkpoint_seen: bool,
    },
    /// Do periodic work less often or off the critical path.
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
        /// The other processes.
        pids: Vec<u32>,
        /// What they hold, GiB.
        frees_gib: f64,
    },
    /// The memory savers, in order of cost, each with what it would free (GiB), estimated
    /// from the recording where it can be.
    Bf16Memory {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Recompute activations in backward (activation checkpointing).
    ActivationCheckpointing {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Keep the optimizer's states in 8 bits.
    EightBitOptimizer {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Halve the micro-batch and accumulate two.
    SmallerMicroBatch {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Move the optimizer's states to the CPU.
    OffloadOptimizer {
        /// What it would free, GiB.
        frees_gib: Option<f64>,
    },
    /// Profile a few training steps.
    ProfileSteps,
    /// Look at the training loop's own CPU work.
    MainThreadCpu,
    /// Cool the GPU.
    CoolGpu,
    /// Check the power limit and power delivery.
    CheckPower,
    /// Use tensor cores: bf16 autocast or TF32.
    TensorCores,
    /// Compile the model.
    Compile,
    /// Use channels_last for convolutions.
    ChannelsLast,
    /// Use fused optimizers.
    FusedOptimizer {
        /// The run's optimizer class.
        #[serde(default)]
        class: Option<String>,
    },
    /// Fuse elementwise chains.
    FuseElementwise,
    /// Halve the bytes: bf16 activations.
    Bf16Activations,
    /// Use fused kernels for the hot blocks.
    FusedKernels,
    /// The environment check's own fix.
    Environment {
        /// The check.
        check: CheckId,
    },
}

/// A caveat about the inputs or the method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "note")]
pub enum Note {
    /// Every rank of one host of a job is slower than every rank of the others: the host is
    /// the difference (its GPUs, its network, its data), not one rank.
    SlowNode {
        /// The host, as the views name it.
        node: String,
        /// Its ranks.
        ranks: Vec<u32>,
    },
    /// The recording is one job of several hosts, merged from each host's run folder: GPUs
    /// numbered across the job, every time moved onto the clock of rank 0's host.
    JobOnNodes {
        /// The hosts, in node order.
        nodes: Vec<crate::NodeFacts>,
        /// The host whose CPU readings the merged recording keeps.
        host_readings_of: String,
    },
    /// Some ranks' traces stayed on their hosts: what was read of them is what each host
    /// measured (`trace_summary.json`, by this same version).
    TracesSummarisedOnHosts {
        /// The ranks read from summaries.
        ranks: Vec<u32>,
        /// The size of their traces, left on the hosts.
        trace_bytes: u64,
    },
    /// The profiled steps show launch waits the unprofiled steps do not: profiler overhead.
    ProfilerOverheadLaunches {
        /// Launch waits' share of the profiled steps.
        launch_share: f64,
        /// The GPU's busy share at unprofiled speed.
        busy_share: f64,
    },
    /// A rank's trace holds too few whole steps for its shares to mean much.
    FewTraceSteps {
        /// The rank.
        rank: u32,
        /// Whole steps in its trace.
        steps: u32,
    },
    /// GPU samples came from an nvidia-smi query log (no samples_nvml.csv).
    SamplesFromQueryLog {
        /// The log.
        path: String,
    },
    /// GPU samples came from nvidia-smi dmon output, 1 s apart from the run's start.
    SamplesFromDmon {
        /// The output file.
        path: String,
    },
    /// GPU samples came from DCGM-exporter's metrics in Prometheus, scraped `interval_s`
    /// apart: no step timings, no trace, no host samples.
    SamplesFromPrometheus {
        /// The server.
        url: String,
        /// The host read.
        host: String,
        /// The median time between scrapes, seconds.
        interval_s: Option<f64>,
    },
    /// A trace without `ProfilerStep#N` marks: its steps were inferred as `from` says.
    StepsInferred {
        /// The rank.
        rank: u32,
        /// What marked the steps instead.
        from: crate::StepMarks,
    },
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
    /// The steady-state window the shares were measured over.
    pub window: SteadyWindow,
    /// The run's facts: GPU, versions, settings.
    pub facts: RunFacts,
    /// The environment checks.
    pub environment: Vec<EnvCheck>,
    /// Each rank's GPU time split from its trace.
    pub ranks: Vec<RankSummary>,
    /// The rank whose cause is diagnosed (the slowest one on multi-GPU runs).
    pub diagnosed_rank: Option<u32>,
    /// Each rank's step timing.
    pub step_timing: Vec<StepTiming>,
    /// Each GPU's sample statistics.
    pub samples: Vec<SampleStats>,
    /// The host's CPU statistics.
    pub host: Option<HostStats>,
    /// Multi-GPU scaling against a 1-GPU partner run.
    pub scaling: Option<Scaling>,
    /// Caveats about the inputs (missing files, profiler overhead, partial data).
    pub notes: Vec<Note>,
    /// The inputs read.
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
    /// What to do first: the best fix of each finding whose fixes have a gain, ranked by the
    /// time it saves per step.
    #[serde(default)]
    pub plan: Vec<PlannedFix>,
}

/// One entry of the plan: which finding's which fix, and what it should give.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlannedFix {
    /// Index of the finding in `Diagnosis::findings`.
    pub finding: usize,
    /// Index of the fix in that finding's `fixes`.
    pub fix: usize,
    /// Its expected gain.
    pub gain: FixGain,
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

    /// The samples of the diagnosed rank's GPU (rank n runs on GPU n, unless the job's nodes
    /// say otherwise).
    pub fn diagnosed_samples(&self) -> Option<&SampleStats> {
        let gpu = self
            .diagnosed_rank
            .map(|r| self.facts.gpu_of_rank_or_own(r));
        self.samples
            .iter()
            .find(|s| Some(s.gpu) == gpu)
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

    /// The findings as the views list them, each with its rank's index: the lead and every
    /// finding above informational first, then the informational ones behind the lead that
    /// explain little ("also noticed"), which views set apart instead of leading with fixes.
    pub fn findings_then_also_noticed(&self) -> (Vec<RankedFinding<'_>>, Vec<RankedFinding<'_>>) {
        self.findings
            .iter()
            .enumerate()
            .partition(|(i, f)| *i == 0 || f.severity > Severity::Info)
    }

    /// The plan with its findings and fixes looked up; entries that point at no finding or
    /// fix (a hand-edited file) are left out.
    pub fn fixes_by_gain(&self) -> Vec<RankedFix<'_>> {
        self.plan
            .iter()
            .filter_map(|p| {
                let fix = self.findings.get(p.finding)?.fixes.get(p.fix)?;
                Some(RankedFix {
                    finding: p.finding,
                    fix,
                    gain: p.gain,
                })
            })
            .collect()
    }
}

/// A finding with its index in `Diagnosis::findings` (its rank, from 0).
pub type RankedFinding<'a> = (usize, &'a Finding);

/// A finding's best fix in the list of what to do first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedFix<'a> {
    /// Index of its finding in `Diagnosis::findings`.
    pub finding: usize,
    /// The fix.
    pub fix: &'a Fix,
    /// Its expected gain.
    pub gain: FixGain,
}

/// One fix's expected gain and the part of its finding's time it rests on (the words say
/// which part when it is not all of it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FixGain {
    /// The step time it should give.
    #[serde(flatten)]
    pub expected: ExpectedGain,
    /// How much of the finding's time it removes.
    pub reach: FixReach,
}

/// How much of its finding's lost time a fix removes, as far as the recording tells.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
}

/// The step time if a finding's cause were removed, and what that rests on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ExpectedGain {
    /// The step time now, ms.
    pub before_ms: f64,
    /// The step time with the cause removed, ms.
    pub after_ms: f64,
    /// The GPU's busy time per step, which bounds `after_ms` from below.
    pub gpu_busy_ms: Option<f64>,
    /// Whether that bound, not the cause's share, set `after_ms`.
    pub bounded_by_gpu_busy: bool,
    /// Which step time `before_ms` is.
    pub basis: StepBasis,
}

impl ExpectedGain {
    /// Now over after: 1.25 means 25 % more steps per second.
    pub fn speedup(&self) -> f64 {
        if self.after_ms > 0.0 {
            self.before_ms / self.after_ms
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

/// A count that was one before it was recorded (fixes stored before the field existed).
fn one() -> u32 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn checkpoint_stall() -> Finding {
        let gain = ExpectedGain {
            before_ms: 41.0,
            after_ms: 18.2,
            gpu_busy_ms: Some(17.5),
            bounded_by_gpu_busy: false,
            basis: StepBasis::UnprofiledSteps,
        };
        Finding {
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
            fixes: vec![
                Fix::MoreWorkers {
                    suggested: 14,
                    current: Some(2),
                },
                Fix::PinMemory,
            ],
            gains: Gains {
                cause: Some(gain),
                fixes: vec![
                    Some(FixGain {
                        expected: gain,
                        reach: FixReach::Part(0.5),
                    }),
                    None,
                ],
            },
        }
    }

    #[test]
    fn a_finding_reads_back_from_its_json_with_the_id_and_gains_scripts_use() {
        let f = checkpoint_stall();
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(json["id"], "periodic_stall");
        assert_eq!(json["cause"]["kind"], "periodic_stall");
        assert_eq!(json["gain"]["before_ms"], 41.0);
        assert_eq!(json["gain"]["after_ms"], 18.2);
        assert_eq!(json["gain"]["basis"], "unprofiled_steps");
        assert_eq!(json["fixes"][0]["fix"], "more_workers");
        assert_eq!(json["fixes"][0]["suggested"], 14);
        assert_eq!(json["fixes"][0]["gain"]["after_ms"], 18.2);
        assert_eq!(json["fixes"][0]["gain"]["reach"]["part"], 0.5);
        assert_eq!(json["fixes"][1]["fix"], "pin_memory");
        assert!(json["fixes"][1].get("gain").is_none());
        assert_eq!(serde_json::from_value::<Finding>(json).unwrap(), f);
    }

    #[test]
    fn a_finding_stored_without_gains_reads_back_with_none() {
        let json = serde_json::json!({
            "id": "host_sync", "cause": {"kind": "host_sync"}, "severity": "major",
            "confidence": 0.9, "share": 0.4, "evidence": [],
            "fixes": [{"fix": "find_hidden_syncs"}]
        });
        let f: Finding = serde_json::from_value(json).unwrap();
        assert_eq!(f.fixes, vec![Fix::FindHiddenSyncs]);
        assert_eq!(f.gains.cause, None);
        assert_eq!(
            f.fixes_with_gains().collect::<Vec<_>>(),
            [(&Fix::FindHiddenSyncs, None)]
        );
    }

    #[test]
    fn the_plan_looks_up_its_findings_and_fixes_and_skips_dangling_entries() {
        let f = checkpoint_stall();
        let gain = f.gains.fixes[0].unwrap();
        let d = Diagnosis {
            format: DIAGNOSIS_FORMAT,
            primary: f.id(),
            findings: vec![f],
            window: Default::default(),
            facts: Default::default(),
            environment: vec![],
            ranks: vec![],
            diagnosed_rank: None,
            step_timing: vec![],
            samples: vec![],
            host: None,
            scaling: None,
            notes: vec![],
            sources: vec![],
            charts: Default::default(),
            training: None,
            whole_run: Vec::new(),
            plan: vec![
                PlannedFix {
                    finding: 0,
                    fix: 0,
                    gain,
                },
                PlannedFix {
                    finding: 0,
                    fix: 7,
                    gain,
                },
                PlannedFix {
                    finding: 3,
                    fix: 0,
                    gain,
                },
            ],
        };
        let plan = d.fixes_by_gain();
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].fix, &d.findings[0].fixes[0]);
        assert_eq!(plan[0].gain, gain);
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
