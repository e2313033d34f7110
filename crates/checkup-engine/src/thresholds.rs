//! Every threshold the engine uses, in one table. Each is derived from what the portrait
//! means (and from the prior art noted beside it), not fitted to a recording.

/// The engine's thresholds. `Thresholds::default()` is what the CLI and app use;
/// docs/engine.md lists them with their reasons.
#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds {
    /// A lost-time finding must explain at least this share of step time to be the primary
    /// one or rated major (xprof: input-bound "high" at 20 %, TraceLens flags idle > 15 %).
    pub significant_share: f64,
    /// Findings explaining less than this share are not reported (xprof's "moderate" 5 %).
    pub reportable_share: f64,
    /// A setting whose own GPU work (deterministic algorithms' fills) takes at least this
    /// share of the step gets its one-line fix: the line changes nothing else in the run,
    /// and 2 % is above the spread of a steady run's mean step from one recording to the
    /// next.
    pub setting_fix_share: f64,
    /// A setting's measured cost under this share of the step is none: within the spread
    /// of a mean step between recordings.
    pub setting_noise_share: f64,
    /// GPU busy at least this share of the step (at unprofiled speed) = the GPU is the limit.
    pub gpu_busy_high: f64,
    /// GPU-Util (any kernel running in NVML's sample period) reads above the GPU's true busy
    /// share for streams of tiny kernels: on launch-bound H200 runs, by up to 6 points over
    /// the trace's. Less this margin, it is a floor for the busy share over every step.
    pub util_over_busy: f64,
    /// HTA: an idle gap shorter than this, with the next work already launched, is kernel wait.
    pub kernel_wait_max_us: f64,
    /// A sync call counts as returning inside an idle gap up to this long before it (CPU and
    /// GPU clocks in a trace are aligned only to a few microseconds).
    pub sync_return_slack_us: f64,
    /// A kernel shorter than this is "tiny": launch cost (~5 µs) rivals its run time.
    pub tiny_kernel_us: f64,
    /// Host time in the model's calls per kernel launched above which the host is not
    /// launching but held: a launch with its Python dispatch costs 5–50 µs, so 1 ms is 20×
    /// the slowest; the training thread is waiting for something else between operations.
    pub held_host_ms_per_kernel: f64,
    /// A training process using at least this much of one core (percent) while its thread
    /// is held has a thread of its own computing: the one holding the interpreter.
    pub holder_process_cpu_pct: f64,
    /// A line quoted as where a host-bound thread's time goes holds at least this share of
    /// that thread's CPU: below a tenth, no one line is where the time goes.
    pub hot_line_min_share: f64,
    /// A thread's hot lines are quoted only from this many wake-ups of the sampler that
    /// found it: at 50 ms each, 2.5 s of the thread, so that a line at the tenth above is 5
    /// hits, not 1.
    pub hot_line_min_samples: u64,
    /// A leading step more than this many times the median of the rest is warm-up.
    pub warmup_step_factor: f64,
    /// Fewest whole step periods a trace window needs.
    pub min_periods: usize,
    /// A steady step more than this many times the median step is a stall.
    pub stall_factor: f64,
    /// Stalls form a period when there are at least this many ...
    pub min_stalls: usize,
    /// ... and their spacing varies by at most this coefficient of variation.
    pub stall_period_cv: f64,
    /// Steps within this many steps before the profiled range are left out of timings (the
    /// profiler's wait and warm-up phases and its start-up cost).
    pub profiler_margin_steps: u64,
    /// Median step shorter than this share of the median GPU time per step = the host runs
    /// ahead of the GPU (queue back-pressure, not stalls).
    pub host_ahead_ratio: f64,
    /// GPM DRAM bandwidth utilisation (percent of peak) at which busy GPU time is
    /// bandwidth-limited: achievable HBM bandwidth is ~85–90 % of peak, so a sustained 70 %
    /// average means the memory system is near its practical limit through most kernels.
    pub dram_bw_memory_bound_pct: f64,
    /// Share of kernel time in matrix/convolution kernels above which the work is
    /// compute-shaped.
    pub gemm_dominant_share: f64,
    /// Without GPM: elementwise/normalisation share of kernel time that means bandwidth-bound
    /// (stricter than with GPM: optimizer updates are elementwise too, yet small).
    pub elementwise_dominant_share: f64,
    /// Tensor-core activity below this (percent) while matrix kernels dominate = tensor cores
    /// unused (fp32 matmuls without TF32 or autocast).
    pub tensor_active_low_pct: f64,
    /// Share of busy samples with a throttling clock-event reason that makes a finding.
    pub throttled_share: f64,
    /// A GPU's power limit under this fraction of the other GPUs' median is a cap someone
    /// set: GPUs of one model ship with one default limit, and two readings of one setting
    /// differ by a watt or two, not by 5 %.
    pub lower_power_limit_ratio: f64,
    /// SM clock under this fraction of its max while busy = clocks held down.
    pub sm_clock_low_ratio: f64,
    /// Host CPU use (all cores, percent) at which the host is saturated: more DataLoader
    /// workers cannot help (SageMaker Debugger: CPU > 90 %).
    pub host_cpu_saturated_pct: f64,
    /// Share of the busy CPU held by the training's own processes above which a saturated
    /// host is the training's doing (its DataLoader workers), not another job's: more than
    /// half of it.
    pub host_cpu_own_share: f64,
    /// Util at or above this is busy, at or below `util_low_pct` near idle (sawtooth).
    pub util_busy_pct: f64,
    /// How late a GPU-Util reading can show an idle moment, seconds: NVML's GPU-Util is the
    /// share of the past sample period with a kernel running, and that period is 1/6 s to
    /// 1 s depending on the product, so an idle spell shows in readings up to a period after
    /// it ended (and the host sees a step end before the GPU drains its queue).
    pub util_report_lag_s: f64,
    /// GPU-Util at or below this (percent) counts as near idle in a sample.
    pub util_low_pct: f64,
    /// A sawtooth needs at least this share of near-idle samples, and at most 1 minus it.
    pub sawtooth_min_drop_share: f64,
    /// Exposed communication on a rank exceeding the slowest rank's by this share of the
    /// window is waiting for a straggler.
    pub straggler_share: f64,
    /// Scaling efficiency under this is worth a finding.
    pub scaling_efficiency_ok: f64,
    /// Several host synchronisations per step is a smell even when they cost little now.
    pub sync_calls_per_step: f64,
    /// ... reported when they cost at least this share of the step.
    pub sync_smell_min_share: f64,
    /// A lost-time finding this large is critical: the run spends more than a third of its
    /// time on it, so fixing it alone gives well over 1.5×.
    pub critical_share: f64,
    /// Fewer whole steps than this in a trace's steady window make its shares anecdotal.
    pub min_trace_steps: usize,
    /// Stalls with GPU samples count as stalls when the GPU went idle in at least this share
    /// of them; below it the long host-side steps are the host waiting for a busy GPU.
    pub stalls_idle_share: f64,
    /// The most of the training time between two evaluation passes a pass is told to take
    /// (a longer period is proposed beyond it): a pass is worth some time, and at a twentieth
    /// it no longer sets the run's pace.
    pub eval_share_of_training: f64,
    /// A profiled stall is the host reading tensors back one by one when it waited on the
    /// GPU at least this many times (a loss.item() is one; a read-back per tensor is dozens)
    /// and this many times more than a normal profiled step.
    pub readback_stall_min_waits: f64,
    /// How many times more read-backs than a normal profiled step a stalled step must have.
    pub readback_stall_factor: f64,
    /// Samples-only reading: on average at least this many workers each flat out on a core,
    /// or the workers together at this much CPU (100 = one core; workers re-forked every
    /// epoch live too briefly to be seen flat out in one sample), while the GPU idled is the
    /// input pipeline; fewer than this many idle host samples say nothing.
    pub busy_workers_while_idle: f64,
    /// The workers' CPU (100 = one core) that marks them busy while the GPU idles.
    pub workers_cpu_while_idle_pct: f64,
    /// Idle host samples needed before the workers' CPU says anything.
    pub min_idle_host_samples: u64,
    /// The training's processes using about one core (100 = one core) of CPU, within this
    /// range, is the Python main thread running flat out.
    pub main_thread_cpu_pct: (f64, f64),
    /// The median step of the run's last tenth at least this much longer than its first
    /// tenth's is a slowdown: 20 % is a change a user notices in epoch times, and far beyond
    /// the few percent steady steps vary by.
    pub slowdown_growth: f64,
    /// Checkpoints whose sizes differ by at most this fraction are the same state saved:
    /// pickled metadata and a step counter vary by bytes, a state that grows by much more.
    pub same_checkpoint_size: f64,
    /// ... and it lasts: every one of the last three tenths at least this much slower than
    /// the first (one bad tenth is a stall, not a trend).
    pub slowdown_sustained: f64,
    /// ... and it is a trend, not a level the run settles at after its first tenth (the
    /// loader's prefetched batches used up, caches warm): Kendall's tau of the tenths' medians
    /// against their order at least this, i.e. at least 80 % of the pairs of tenths have the
    /// later one slower.
    pub slowdown_consistency: f64,
    /// Fewest steady steps whose tenths can show a trend (ten steps a tenth).
    pub trend_min_steps: usize,
    /// The part of a slowdown a step timing part must carry to be named as what grew.
    pub slowdown_part_share: f64,
    /// Host memory that grew by this share and `host_rss_growth_mib` is said with a slowdown.
    pub host_rss_growth_share: f64,
    /// Host memory growth (MiB) said with a slowdown, beside `host_rss_growth_share`.
    pub host_rss_growth_mib: f64,
    /// The training processes' host memory growing by this much (MiB) over the run, at
    /// least `host_rss_growth_share` of where it began and as a trend (Kendall's tau of its
    /// tenths at least `slowdown_consistency`), is a creep of its own: a gigabyte a run adds
    /// without giving back is what a run ten times as long turns into the host's OOM killer.
    pub host_creep_mib: f64,
    /// The shortest run, in minutes of steps, over which host memory growth is read as a
    /// creep: start-up (libraries and CUDA's context loading, caches warming, DataLoader
    /// workers forked at each epoch and counted with their shared pages) settles within the
    /// first tens of seconds; a creep is growth that goes on after it.
    pub host_creep_min_minutes: f64,
    /// A creep this fast (MiB a minute) is major: a gigabyte a minute fills the 64–256 GiB
    /// a GPU server has per GPU within one to four hours.
    pub host_creep_major_mib_per_min: f64,
    /// GPU memory in use at its peak at least this share of the card's: no room left for a
    /// larger batch (a batch 18 % larger no longer fits).
    pub memory_near_limit_share: f64,
    /// Live-tensor memory that grows through the run by at least this share of the card's
    /// capacity, tenth after tenth, is a creep (a leak of a step's tensors per step).
    pub memory_creep_capacity_share: f64,
    /// Reserved memory never in use at once, at least this share of what is reserved and
    /// `fragmented_capacity_share` of the card, is fragmentation worth fixing.
    pub fragmented_unused_share: f64,
    /// The share of the card's capacity the unused reserve must also reach.
    pub fragmented_capacity_share: f64,
}

/// How sure a finding is, by what backs it. Each is a judgement of the signals' agreement,
/// kept in one place so findings of the same standing carry the same figure.
pub mod confidence {
    /// Two independent signals agree (trace and step timings; a clock and a reason).
    pub const CORROBORATED: f64 = 0.9;
    /// One direct measurement (a trace's idle time for one cause).
    pub const MEASURED: f64 = 0.8;
    /// One indirect measurement (step timings alone).
    pub const INDIRECT: f64 = 0.7;
    /// A verdict from a busy GPU (the GPU computes most of each step).
    pub const BUSY_VERDICT: f64 = 0.85;
    /// A verdict from a GPU that is not busy: the verdict stands, its meaning is weak.
    pub const WEAK_VERDICT: f64 = 0.5;
    /// The share of kernels alone says bandwidth-bound (no GPM DRAM figure): less sure.
    pub const WITHOUT_GPM_FACTOR: f64 = 0.8;
    /// The GPU waits and the recording cannot say for what: sure of the wait only.
    pub const CAUSE_UNKNOWN: f64 = 0.6;
    /// Periodic stalls seen in the step timings.
    pub const STALLS: f64 = 0.85;
    /// A configuration fact (an environment check, a flag) read off the host.
    pub const CONFIGURATION: f64 = 0.9;
    /// NCCL_P2P_DISABLE set with NVLink present.
    pub const P2P_DISABLED: f64 = 0.95;
    /// One signal of clock throttling without the other.
    pub const ONE_CLOCK_SIGNAL: f64 = 0.6;
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            significant_share: 0.15,
            reportable_share: 0.05,
            setting_fix_share: 0.02,
            setting_noise_share: 0.005,
            gpu_busy_high: 0.85,
            util_over_busy: 0.10,
            kernel_wait_max_us: 30.0,
            sync_return_slack_us: 50.0,
            tiny_kernel_us: 10.0,
            held_host_ms_per_kernel: 1.0,
            holder_process_cpu_pct: 90.0,
            hot_line_min_share: 0.10,
            hot_line_min_samples: 50,
            warmup_step_factor: 3.0,
            min_periods: 2,
            stall_factor: 3.0,
            min_stalls: 3,
            stall_period_cv: 0.25,
            profiler_margin_steps: 8,
            host_ahead_ratio: 0.8,
            dram_bw_memory_bound_pct: 70.0,
            gemm_dominant_share: 0.5,
            elementwise_dominant_share: 0.75,
            tensor_active_low_pct: 5.0,
            throttled_share: 0.2,
            lower_power_limit_ratio: 0.95,
            sm_clock_low_ratio: 0.9,
            host_cpu_saturated_pct: 85.0,
            host_cpu_own_share: 0.5,
            util_busy_pct: 50.0,
            util_report_lag_s: 1.0,
            util_low_pct: 10.0,
            sawtooth_min_drop_share: 0.1,
            straggler_share: 0.05,
            scaling_efficiency_ok: 0.9,
            sync_calls_per_step: 1.0,
            sync_smell_min_share: 0.01,
            critical_share: 0.4,
            min_trace_steps: 3,
            stalls_idle_share: 0.5,
            eval_share_of_training: 0.05,
            readback_stall_min_waits: 8.0,
            readback_stall_factor: 4.0,
            busy_workers_while_idle: 1.0,
            // The workers together at a core's worth of CPU while the GPU waits.
            workers_cpu_while_idle_pct: 90.0,
            min_idle_host_samples: 5,
            main_thread_cpu_pct: (80.0, 150.0),
            slowdown_growth: 0.2,
            same_checkpoint_size: 0.01,
            slowdown_sustained: 0.1,
            slowdown_consistency: 0.6,
            trend_min_steps: 100,
            slowdown_part_share: 0.5,
            host_rss_growth_share: 0.2,
            host_rss_growth_mib: 200.0,
            host_creep_mib: 1024.0,
            host_creep_min_minutes: 1.0,
            host_creep_major_mib_per_min: 1024.0,
            memory_near_limit_share: 0.85,
            memory_creep_capacity_share: 0.05,
            fragmented_unused_share: 0.2,
            fragmented_capacity_share: 0.05,
        }
    }
}
