//! A run that gets slower as it goes.

use serde::{Deserialize, Serialize};

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
            /// The training processes' host memory (MiB) in the first and last tenth, when it
            /// grew too.
            #[serde(default)]
            host_rss_mib: Option<[f64; 2]>,
        } => "slowdown",
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
    /// Neither: the GPU's work per step, or waits the step timings do not split.
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
        /// Growth of the loop's host time per step.
        HostWorkGrowth => "host_work_growth",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `slowdown` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum SlowdownFix {
        /// Per-step host work that grows with the steps done (a list re-scanned every step).
        ConstantHostWork => "constant_host_work",
        /// Per-sample loading work that grows as the run goes (a folder listed per sample
        /// while files are added to it, a growing cache scanned).
        ConstantSampleWork => "constant_sample_work",
    }
}
