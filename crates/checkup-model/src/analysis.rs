//! What the engine measured: windows, time splits, step breakdowns, kernel and sample
//! statistics. Durations are microseconds (`_us`), shares are fractions in 0..=1.

use serde::{Deserialize, Serialize};

/// The steady-state window every statistic is taken over.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SteadyWindow {
    /// Epoch seconds, where known (from `steps.csv`).
    pub start_s: Option<f64>,
    /// Epoch seconds of its end, where known.
    pub end_s: Option<f64>,
    /// Its first step, where steps were timed.
    pub first_step: Option<u64>,
    /// Its last step.
    pub last_step: Option<u64>,
    /// Steps left out at the start as warm-up (autotune, compile, first iterations).
    pub warmup_steps: u64,
    /// How the window was chosen.
    pub method: WindowMethod,
}

/// How the steady window was chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum WindowMethod {
    /// Steps `first..=last` of steps.csv, `warmup` leading steps left out (step 0 and those
    /// over `warmup_factor` × the median); the profiled steps and `margin_steps` before them
    /// left out of step timings.
    Steps {
        /// The window's first step.
        first: u64,
        /// Its last step.
        last: u64,
        /// Warm-up steps left out.
        warmup: u64,
        /// A step this many times the median counts as warm-up.
        warmup_factor: f64,
        /// Steps before the profiled ones left out of step timings.
        margin_steps: u64,
    },
    /// No steps.csv: the trace's profiled steps (when there is a trace) and the samples from
    /// the GPU's first work to its last when `start_up_s` is given (`start_up_s` before it and
    /// `wind_down_s` after it left out), else all of them.
    NoStepTimings {
        /// Whether a trace was read.
        has_trace: bool,
        /// Seconds left out before the GPU's first work.
        start_up_s: Option<f64>,
        /// Seconds left out after its last work.
        #[serde(default)]
        wind_down_s: Option<f64>,
    },
}

impl Default for WindowMethod {
    fn default() -> Self {
        WindowMethod::NoStepTimings {
            has_trace: false,
            start_up_s: None,
            wind_down_s: None,
        }
    }
}

/// A rank's GPU time over its window, split exclusively in this order:
/// compute kernels > communication not hidden by compute > memcpy/memset not hidden > idle.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuTimeSplit {
    /// The window's length.
    pub window_us: f64,
    /// Compute kernels.
    pub compute_us: f64,
    /// Communication not hidden by compute.
    pub exposed_comm_us: f64,
    /// Copies and sets not hidden by either.
    pub exposed_memory_us: f64,
    /// Nothing running.
    pub idle_us: f64,
    /// The idle time by cause.
    pub idle: IdleSplit,
    /// All NCCL kernel time, hidden or not.
    pub comm_total_us: f64,
}

impl GpuTimeSplit {
    /// `us` as a share of the window.
    pub fn share(&self, us: f64) -> f64 {
        if self.window_us > 0.0 {
            us / self.window_us
        } else {
            0.0
        }
    }
}

/// GPU idle time by cause, with Holistic Trace Analysis' definitions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IdleSplit {
    /// The next GPU work had not been launched yet when the GPU went idle: the host was late.
    pub host_wait_us: f64,
    /// Launched in time, gap under the kernel-wait threshold: launch/scheduling overhead.
    pub kernel_wait_us: f64,
    /// Idle gaps of neither kind (the window's edges, long gaps with work queued).
    pub other_us: f64,
}

/// One `ProfilerStep#N`, split exclusively with torch-tb-profiler's priority:
/// kernel > memcpy > memset > communication > CUDA runtime > DataLoader > other CPU.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepBreakdown {
    /// The step's number.
    pub step: u64,
    /// Its length on the CPU side.
    pub duration_us: f64,
    /// Kernels.
    pub kernel_us: f64,
    /// Copies.
    pub memcpy_us: f64,
    /// Sets.
    pub memset_us: f64,
    /// NCCL kernels.
    pub communication_us: f64,
    /// CUDA runtime calls with nothing on the GPU.
    pub runtime_us: f64,
    /// Waiting for the DataLoader with nothing on the GPU.
    pub dataloader_us: f64,
    /// Other CPU time.
    pub cpu_other_us: f64,
}

/// Kernel counts, durations and the kernels and operators that took most time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelStats {
    /// Kernels in the steady steps.
    pub kernels: u64,
    /// Kernels per step.
    pub per_step: f64,
    /// Of those, the kernels the optimizer's step launched (inside `Optimizer.step#…`):
    /// launches that compiling the model leaves to the eager optimizer.
    #[serde(default)]
    pub optimizer_per_step: f64,
    /// The host's time inside `Optimizer.step#…` per step, µs (profiled, as the trace's
    /// steps are): what launching the optimizer's kernels costs the host.
    #[serde(default)]
    pub optimizer_host_us_per_step: f64,
    /// Median kernel duration.
    pub median_us: f64,
    /// Share of kernels shorter than 10 µs.
    pub share_under_10us: f64,
    /// Launch call start to kernel start, median and 90th percentile.
    pub launch_delay_median_us: f64,
    /// Its 90th percentile.
    pub launch_delay_p90_us: f64,
    /// Share of kernel time in matrix-multiply / convolution kernels (tensor-core candidates).
    pub gemm_conv_time_share: f64,
    /// Share of kernel time in elementwise, normalisation and reduction kernels.
    pub elementwise_time_share: f64,
    /// Share of kernel time in matrix multiplies run on the fp32 units, not the tensor
    /// cores (cuBLAS's and CUTLASS's SIMT `sgemm` kernels): TF32 off for fp32 matmuls.
    #[serde(default)]
    pub fp32_gemm_time_share: f64,
    /// Share of kernel time in fill kernels (`FillFunctor`): `zero_()`, `torch.zeros` and,
    /// with deterministic algorithms on, every tensor `torch.empty` hands out.
    #[serde(default)]
    pub fill_time_share: f64,
    /// Fill kernels per step.
    #[serde(default)]
    pub fills_per_step: f64,
    /// The kernels that took most time (ten), most first.
    pub top: Vec<KernelTime>,
    /// All those kernels' time together (0 in diagnoses from before it was kept).
    #[serde(default)]
    pub kernel_time_us: f64,
    /// The CPU operators whose kernels took most time (ten), most first; empty when the
    /// trace does not say which operator launched what (and in older diagnoses).
    #[serde(default)]
    pub top_operators: Vec<OperatorTime>,
}

impl KernelStats {
    /// The GPU time per step, µs, of the kernels that take `time_share` of all kernel time
    /// (`fill_time_share`, `fp32_gemm_time_share`); 0 without kernels.
    pub fn us_per_step(&self, time_share: f64) -> f64 {
        if self.kernels == 0 || self.per_step <= 0.0 {
            return 0.0;
        }
        let steps = self.kernels as f64 / self.per_step;
        time_share * self.kernel_time_us / steps
    }
}

/// A CPU operator (`aten::addmm`) and the GPU time of the kernels it launched itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OperatorTime {
    /// The operator (`aten::addmm`).
    pub name: String,
    /// Its calls that launched GPU work.
    pub calls: u64,
    /// GPU time of the kernels it launched.
    pub total_us: f64,
}

/// A kernel's name and the GPU time its calls took.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelTime {
    /// The kernel's name as the trace gives it.
    pub name: String,
    /// Its calls.
    pub count: u64,
    /// Their time together.
    pub total_us: f64,
}

/// What the host was doing while the GPU sat idle. Each idle gap of the steady window is
/// given to one cause, in this order: DataLoader, checkpoint writes, the driver allocating
/// or freeing device memory, a host synchronisation that returned inside the gap, otherwise
/// launch overhead (host-wait gaps) or other.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostWaits {
    /// Waiting for the DataLoader.
    pub dataloader_us: f64,
    /// Writing checkpoints.
    pub checkpoint_us: f64,
    /// Synchronising with the GPU.
    pub sync_us: f64,
    /// Launching work late (host-wait gaps).
    pub launch_us: f64,
    /// Of `launch_us`, the GPU's idle while the host made no CUDA call for a millisecond or
    /// more: host work that launches nothing (file I/O, Python over data on the CPU, a wait
    /// for a lock), which fewer or fused kernels leave as it is.
    #[serde(default)]
    pub launchless_us: f64,
    /// Anything else.
    pub other_us: f64,
    /// Synchronising calls (`cudaStreamSynchronize`, `cudaDeviceSynchronize`, blocking copies)
    /// and `aten::item` / `aten::_local_scalar_dense` per steady step.
    pub sync_calls_per_step: f64,
    /// `aten::item` / `aten::_local_scalar_dense` calls per steady step.
    pub item_calls_per_step: f64,
    /// Host-to-device copies from pageable memory: GPU time, bytes, and the time not hidden
    /// behind compute.
    pub pageable_h2d_us: f64,
    /// Bytes copied from pageable memory.
    pub pageable_h2d_bytes: u64,
    /// Copy time not hidden behind compute.
    pub exposed_h2d_us: f64,
    /// GPU time of host-to-device copies from pinned memory.
    pub pinned_h2d_us: f64,
    /// GPU time of device-to-host copies.
    pub dtoh_us: f64,
    /// Host time per steady step inside the calls that copy from pageable memory to the
    /// device and the stream synchronisation PyTorch makes right after each: the driver
    /// stages the bytes and the host waits for the copy (the call returns when it is done),
    /// so the host is held for about the copy's length, whatever it had left to launch.
    #[serde(default)]
    pub pageable_h2d_host_us_per_step: f64,
    /// Median host time per steady step not spent blocked in synchronising calls or the
    /// DataLoader: what the host needs to launch one step's work (profiled, so inflated).
    pub host_work_per_step_us: f64,
    /// GPU idle while the host allocated or freed device memory through the driver
    /// (`cudaMalloc`, `cudaFree`), or launched into the queue a `cudaFree` drained.
    #[serde(default)]
    pub alloc_us: f64,
    /// `cudaMalloc` / `cudaFree` calls per steady step: none once the caching allocator
    /// holds what the step needs.
    #[serde(default)]
    pub alloc_calls_per_step: f64,
    /// Host time in those calls per steady step.
    #[serde(default)]
    pub alloc_host_us_per_step: f64,
}

/// Communication: NCCL kernels on the GPU and collectives a CPU backend (gloo) ran on the
/// host; their time, and how much of it compute hides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CommStats {
    /// NCCL kernels in the window.
    pub nccl_kernels: u64,
    /// Collectives run by the host (`gloo:all_reduce`) in the window.
    #[serde(default)]
    pub host_collectives: u64,
    /// Their time (NCCL kernels and host collectives).
    pub total_us: f64,
    /// Their time not hidden behind compute: NCCL kernels outside compute, host
    /// collectives while the GPU idled.
    pub exposed_us: f64,
    /// Share of communication time that ran while compute kernels ran too.
    pub overlap_share: f64,
}

/// The shape of `trace_summary.json` this build writes and reads.
pub const TRACE_SUMMARY_FORMAT: u32 = 1;

/// One rank's profiler trace reduced on the host that recorded it (`rankN/trace_summary.json`):
/// what the engine measures of the trace, so that a job's hosts send kilobytes instead of
/// their traces. The measurement changes between versions, so only the version that made a
/// summary reads it (`made_by`); an older one is measured again from its trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceSummaryFile {
    /// [`TRACE_SUMMARY_FORMAT`] when written.
    pub format: u32,
    /// The GPU Checkup version that measured it.
    pub made_by: String,
    /// The trace's file name, in the same rank folder.
    pub trace: String,
    /// The trace's size, to say what was not copied.
    pub trace_bytes: u64,
    /// Its rank: the trace's `distributedInfo`, else its folder's.
    pub rank: Option<u32>,
    /// The job's ranks, from `distributedInfo`.
    pub world_size: Option<u32>,
    /// The GPU's name, from `deviceProperties`.
    pub device_name: Option<String>,
    /// What was measured, with the default thresholds.
    pub summary: RankSummary,
}

/// Everything measured from one rank's profiler trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankSummary {
    /// The rank.
    pub rank: u32,
    /// The trace file.
    pub source: String,
    /// The GPU's name, from the trace.
    pub device_name: Option<String>,
    /// The steps the profiler recorded.
    pub profiled_steps: Vec<u64>,
    /// Those inside the steady window.
    pub steady_steps: Vec<u64>,
    /// GPU time split over the window.
    pub gpu: GpuTimeSplit,
    /// Each profiled step's split.
    pub steps: Vec<StepBreakdown>,
    /// Kernel statistics.
    pub kernels: KernelStats,
    /// What the host did while the GPU idled.
    pub host_waits: HostWaits,
    /// Communication statistics.
    pub comm: CommStats,
    /// Median CPU-side duration of a profiled step.
    pub profiled_step_us: f64,
    /// Median GPU-side duration of a profiled step (first to last GPU work of the step).
    pub gpu_step_us: f64,
    /// Median GPU busy time (any kernel, copy or set) per step.
    pub gpu_busy_per_step_us: f64,
    /// The GPU's activity over the first few steady steps, for the timeline chart.
    pub timeline: crate::RankTimeline,
    /// Where the trace's steps came from.
    #[serde(default)]
    pub step_marks: StepMarks,
    /// The torch.optim optimizer whose steps the trace shows (`Optimizer.step#AdamW.step` →
    /// `AdamW`); `None` when the trace holds no optimizer step (inference, a one-off profile).
    #[serde(default)]
    pub optimizer: Option<String>,
    /// Per trace step, in the trace's order: its host waits, to tell a sync in every step
    /// from one inside a periodic stall.
    #[serde(default)]
    pub step_syncs: Vec<StepSyncs>,
    /// How the training's code runs, as its trace shows it: what fixes must not ask for
    /// again when no probe saw the training.
    #[serde(default)]
    pub code: TraceCode,
}

/// How the training's code runs, as its trace shows it (counted over the whole trace).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TraceCode {
    /// `Torch-Compiled Region` ranges: code torch.compile runs.
    pub compiled_regions: u64,
    /// Kernels Triton generated (`triton_poi_fused_…`): what torch.compile's Inductor makes.
    pub triton_kernels: u64,
    /// `cudaGraphLaunch` calls: CUDA graphs replayed.
    pub graph_launches: u64,
    /// Kernels of a fused optimizer step (`FusedAdamMathFunctor`, apex's `AdamFunctor`).
    pub fused_optimizer_kernels: u64,
}

impl TraceCode {
    /// Whether the trace shows compiled code.
    pub fn compiled(&self) -> bool {
        self.compiled_regions > 0 || self.triton_kernels > 0
    }
}

/// One profiled step's host synchronisation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepSyncs {
    /// The trace's step number (`ProfilerStep#N`).
    pub step: u64,
    /// Times the host blocked on the GPU (a copy to the host and the synchronize after it
    /// count once).
    pub waits: u32,
    /// GPU idle in the step's period credited to a synchronisation.
    pub sync_idle_us: f64,
    /// The step's period on the GPU (0 when it launched no GPU work).
    pub period_us: f64,
}

/// What a trace's steps were taken from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepMarks {
    /// `ProfilerStep#N` annotations (`prof.step()` once per iteration).
    #[default]
    ProfilerSteps,
    /// No `ProfilerStep#N`: one step ends where an optimizer step ends.
    OptimizerSteps,
    /// Neither: the whole trace is one window (a one-off profile, an inference trace).
    WholeTrace,
}

/// Step timings of the whole run from `steps.csv`, profiled or not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepTiming {
    /// The rank.
    pub rank: u32,
    /// Steps in `steps.csv`.
    pub total_steps: u64,
    /// Steps in the steady window.
    pub steady_steps: u64,
    /// Warm-up steps.
    pub warmup_steps: u64,
    /// Wall time per steady step: span of the window over its steps.
    pub mean_step_ms: f64,
    /// Median step.
    pub median_step_ms: f64,
    /// 90th percentile step.
    pub p90_step_ms: f64,
    /// Median wait for a batch.
    pub median_data_wait_ms: f64,
    /// Data wait's share of the step.
    pub data_wait_share: f64,
    /// Share of the steady time the GPU must have idled for data, step by step (span by
    /// span where short steps were timed together): a step's time on the GPU's clock
    /// (`gpu_ms`) beyond its fastest steps', up to the step's data wait. A lower bound that holds when the waits come in a few long ones (a new epoch's
    /// first batch), which the whole run's wait less its GPU time hides, and gives nothing
    /// for waits a host that ran ahead covered. None without `gpu_ms`.
    #[serde(default)]
    pub data_idle_share: Option<f64>,
    /// The part of that idle time in the steps that begin an epoch (the probe's markers).
    #[serde(default)]
    pub epoch_start_idle: Option<EpochStartIdle>,
    /// Median host time between batches (the loop's own work).
    pub median_launch_ms: f64,
    /// Median step time on the GPU's clock, where the probe recorded it.
    pub median_gpu_ms: Option<f64>,
    /// Steps much slower than their neighbours.
    pub stalls: Vec<Stall>,
    /// Steps between stalls, when they recur.
    pub stall_period_steps: Option<f64>,
    /// Steps inside the profiled window, excluded from timing figures since the profiler
    /// slows the host side.
    pub profiled_steps: Option<(u64, u64)>,
}

/// GPU idle for data at epoch starts: how many epochs began in the steady window and the
/// idle milliseconds of their first two steps together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpochStartIdle {
    /// Epoch starts in the window.
    pub epochs: u32,
    /// GPU idle in their first two steps together, ms.
    pub idle_ms: f64,
}

/// One interruption of the loop: a step much slower than its neighbours, with the slow
/// steps right after it (a checkpoint's write is often followed by a step that refills the
/// GPU's queue and caches), which belong to the same interruption.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    /// Its first step.
    pub step: u64,
    /// Slow steps it spans (1 for a single slow step): in a row, or while the checkpoint
    /// write its save began on another thread still held the loop.
    #[serde(default = "one_step")]
    pub steps: u64,
    /// Epoch seconds when its first step began.
    pub t_start: f64,
    /// Its length, all its steps together.
    pub duration_ms: f64,
    /// Its length beyond as many normal steps.
    pub excess_ms: f64,
}

fn one_step() -> u64 {
    1
}

/// One rank's whole recorded run, stalls and slow stretches included: the figures a baseline
/// card keeps. The steady window's figures ([`StepTiming`], [`SampleStats`]) describe the
/// run's typical step; these say what the run cost as a whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WholeRun {
    /// The rank.
    pub rank: u32,
    /// From `steps.csv`; None without step timings.
    pub steps: Option<WholeRunSteps>,
    /// The rank's GPU while it was busy; None without NVML samples.
    pub gpu: Option<BusyGpu>,
    /// The most GPU memory the training held (the allocator's peak reserve from the probe,
    /// else what NVML saw in use on its GPU), and the card's; GiB.
    pub memory_peak_gib: Option<f64>,
    /// The card's memory, GiB.
    pub memory_total_gib: Option<f64>,
}

/// The timed steps of a whole run: after warm-up, without the profiled ones (the profiler
/// slows them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WholeRunSteps {
    /// How many.
    pub steps: u64,
    /// Their time together.
    pub seconds: f64,
    /// Median step.
    pub median_step_ms: f64,
    /// 95th percentile step.
    pub p95_step_ms: f64,
    /// Time per step over them: what the run's throughput comes from.
    pub mean_step_ms: f64,
    /// Share of their time lost to stalls: each step of at least the stall factor times the
    /// median counts beyond the median.
    pub stall_share: f64,
    /// How many stalls.
    pub stalls: u64,
    /// Share of their time the loop waited for batches.
    pub data_wait_share: f64,
}

/// A GPU over the whole run, while busy (GPU-Util at or above the busy mark): what the card
/// ran at when it had work, apart from how often it had work.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BusyGpu {
    /// The GPU.
    pub gpu: u32,
    /// Readings while busy, of all readings.
    pub busy_samples: u64,
    /// All readings.
    pub samples: u64,
    /// Medians while busy.
    pub power_w: Option<f64>,
    /// Median SM clock while busy.
    pub sm_clock_mhz: Option<f64>,
    /// The power limit.
    pub power_limit_w: Option<f64>,
    /// The SM clock's maximum.
    pub sm_clock_max_mhz: Option<f64>,
    /// Over all readings.
    pub temp_max_c: Option<f64>,
    /// Share of the busy readings with a throttling clock-event reason, and those reasons.
    pub throttled_share: f64,
    /// The throttling reasons seen, by NVML's names.
    pub throttle_reasons: Vec<String>,
}

/// Mean readings over the steady window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleStats {
    /// The GPU.
    pub gpu: u32,
    /// NVML readings in the window.
    pub nvml_samples: u64,
    /// Mean GPU-Util, percent.
    pub util_gpu_mean: Option<f64>,
    /// Mean power draw, W.
    pub power_w_mean: Option<f64>,
    /// The power limit, W.
    pub power_limit_w: Option<f64>,
    /// Mean SM clock.
    pub sm_clock_mean_mhz: Option<f64>,
    /// The SM clock's maximum.
    pub sm_clock_max_mhz: Option<f64>,
    /// Share of busy samples (util > 0) with a throttling clock-event reason.
    pub throttled_share: f64,
    /// The throttling reasons seen, by NVML's names.
    pub throttle_reasons: Vec<String>,
    /// Highest temperature, °C.
    pub temp_c_max: Option<f64>,
    /// GPM readings in the window.
    pub gpm_samples: u64,
    /// Mean SM activity (GPM), percent.
    pub sm_active_mean: Option<f64>,
    /// Mean SM occupancy (GPM), percent.
    pub sm_occupancy_mean: Option<f64>,
    /// Mean tensor-core activity (GPM), percent.
    pub tensor_active_mean: Option<f64>,
    /// Mean DRAM bandwidth utilisation (GPM), percent.
    pub dram_bw_mean: Option<f64>,
    /// Mean NVLink transmit, MiB/s.
    pub nvlink_tx_mibs_mean: Option<f64>,
    /// Share of samples where util dropped to near zero after being busy (a sawtooth).
    pub util_drop_share: f64,
    /// Whether util falls to idle and back regularly.
    pub sawtooth: bool,
    /// The period of those dips, seconds.
    pub dip_period_s: Option<f64>,
}

/// Host CPU over the steady window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostStats {
    /// Host readings in the window.
    pub samples: u64,
    /// The host's cores.
    pub cores: u32,
    /// Mean CPU use, percent of all cores.
    pub cpu_total_mean: Option<f64>,
    /// Mean of the busiest core in each sample.
    pub busiest_core_mean: Option<f64>,
    /// Training process tree CPU, 100 = one core.
    pub proc_tree_cpu_mean: Option<f64>,
    /// Highest disk write rate, MB/s.
    pub disk_write_mbs_max: Option<f64>,
    /// The host seconds during which the GPUs sat near idle, read with the GPU samples
    /// (None without both kinds of samples).
    #[serde(default)]
    pub while_gpu_idle: Option<HostWhileGpuIdle>,
}

/// What the training's processes did while the GPU idled: the reading that tells an input
/// pipeline (workers flat out) from a Python loop (the main process flat out) without a
/// trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostWhileGpuIdle {
    /// Host samples whose interval had the GPUs' mean util at or below the low mark.
    pub samples: u64,
    /// Their intervals' length in all.
    pub seconds: f64,
    /// Of all host samples in the window with GPU readings.
    pub of_samples: u64,
    /// Mean, over those samples, of the tree's other processes each using ≥ 90 % of a core.
    pub busy_children_mean: Option<f64>,
    /// Mean CPU of the training process itself (100 = one core).
    pub main_cpu_mean: Option<f64>,
    /// Mean CPU of the tree's other processes together (100 = one core): counts workers
    /// that live for less than a sample, which `busy_children_mean` misses.
    #[serde(default)]
    pub workers_cpu_mean: Option<f64>,
}

/// Multi-GPU scaling against a 1-GPU partner run of the same model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scaling {
    /// GPUs of the multi-GPU run.
    pub gpus: u32,
    /// The 1-GPU run's throughput.
    pub single_gpu_samples_per_s: f64,
    /// The multi-GPU run's throughput.
    pub multi_gpu_samples_per_s: f64,
    /// Multi over single.
    pub speedup: f64,
    /// Speedup over the GPU count (0..=1).
    pub efficiency: f64,
    /// The partner run's paths.
    pub partner: String,
}
