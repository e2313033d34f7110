//! A run that gets slower as it goes.

use serde::{Deserialize, Serialize};

use crate::MarkerKind;

causes! {
    /// The run gets slower as it goes.
    pub enum Slowdown {
        /// Steps get slower as the run goes on: the median step at its start and at its end,
        /// when the slowdown began (seconds from the run's start, and the step), what grew
        /// with it, and the training processes' host memory at the start and end when it grew
        /// too.
        StepsGrow {
            /// The step in the first tenth of the run, as `measure` says.
            first_ms: f64,
            /// The median of the run's first steps, where a growing tail of long steps had
            /// already slowed the first tenth's median past it: the growth began within the
            /// first tenth, and the step without it lies between `first_ms` and this.
            #[serde(default)]
            first_steps_ms: Option<f64>,
            /// The same in the last tenth.
            last_ms: f64,
            /// Whether the tenths' median steps grew, or only their means: a tail of ever
            /// longer steps among steps that stay fast.
            #[serde(default)]
            measure: StepMeasure,
            /// Seconds from the run's start to where the slowdown began.
            began_at_s: f64,
            /// The step where it began.
            began_at_step: u64,
            /// What grew with the step time.
            grew: SlowdownPart,
            /// What grew, per step (ms), in the first and the last tenth, as `measure` sums
            /// them up; None when nothing measured grew as much (`grew` is `Other`).
            #[serde(default)]
            grew_ms: Option<[f64; 2]>,
            /// The training processes' host memory (MiB) in the first and last tenth, when it
            /// grew too.
            #[serde(default)]
            host_rss_mib: Option<[f64; 2]>,
            /// Where the host's time went in the part that grew, when the probe sampled it:
            /// the training thread's lines for its host time, the loader's for the wait.
            #[serde(default)]
            hot_lines: Vec<crate::HostLine>,
        } => "slowdown",
        /// One kind of periodic work the probe timed takes longer each time it comes: the
        /// median of its first third and of its last, how many times it ran, and from which
        /// one on it stayed longer.
        PeriodicGrows {
            /// What periodic work.
            work: MarkerKind,
            /// The median time it took over its first third, ms.
            first_ms: f64,
            /// The same over its last third.
            last_ms: f64,
            /// How many times the probe timed it.
            count: u64,
            /// The step from which each one took longer than the first ones.
            began_at_step: u64,
        } => "slowdown/periodic_work",
    }
}

/// How a tenth of the run's steps is summed up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepMeasure {
    /// Its median step: most steps got slower.
    #[default]
    Median,
    /// Its mean step: some steps got ever longer while most stayed fast.
    Mean,
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
    /// The GPU's work per step: the step time with the GPU busy (NVML's utilisation) grew
    /// while the host's parts did not.
    GpuWork,
    /// None of them as much: waits the step timings do not split.
    Other,
}

keyed! {
    tag = "key";
    /// What the `slowdown` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum SlowdownEvidence {
        /// Median step, first tenth of the run.
        FirstStepMedian => "first_step_median",
        /// Median step, last tenth of the run.
        LastStepMedian => "last_step_median",
        /// Step time growth over the run.
        StepTimeGrowth => "step_time_growth",
        /// Growth of the wait for data per step.
        DataWaitGrowth => "data_wait_growth",
        /// Mean step, first tenth of the run.
        FirstStepMean => "first_step_mean",
        /// Mean step, last tenth of the run.
        LastStepMean => "last_step_mean",
        /// Median of the run's first steps, before the growth.
        FirstStepsMedian => "first_steps_median",
        /// Growth of the loop's host time per step.
        HostWorkGrowth => "host_work_growth",
        /// Growth of the GPU's work per step (the step with the GPU busy, by NVML).
        GpuWorkGrowth => "gpu_work_growth",
        /// Median duration of a periodic work's first third of runs.
        FirstPeriodicMedian => "first_periodic_median",
        /// Median duration of its last third.
        LastPeriodicMedian => "last_periodic_median",
        /// Its growth from the first third to the last.
        PeriodicGrowth => "periodic_growth",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `slowdown` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum SlowdownFix {
        /// Per-step host work that grows with the steps done (a list re-scanned every step).
        ConstantHostWork {
            /// The line the probe saw read GPU values back into a list the loop keeps,
            /// when it saw one: the history the loop walks again.
            #[serde(default)]
            kept_at: Option<crate::SyncSite>,
        } => "constant_host_work",
        /// Per-sample loading work that grows as the run goes (a folder listed per sample
        /// while files are added to it, a growing cache scanned).
        ConstantSampleWork => "constant_sample_work",
        /// GPU work per step that grows (a tensor kept across steps and extended, inputs
        /// that get longer).
        ConstantGpuWork => "constant_gpu_work",
        /// Periodic work that does more each time (an evaluation over everything seen so
        /// far, a checkpoint that keeps every earlier state, ever more live objects for the
        /// collector to walk).
        ConstantPeriodicWork {
            /// The periodic work that grows.
            work: MarkerKind,
        } => "constant_periodic_work",
    }
}
