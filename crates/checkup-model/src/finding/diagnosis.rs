//! The diagnosis: the engine's answer for one run, its findings ranked with their gains.

use serde::{Deserialize, Serialize};

use super::{Finding, Fix, Note, Severity};
use crate::{
    ChartData, EnvCheck, HostStats, RankSummary, RunFacts, SampleStats, Scaling, SteadyWindow,
    StepTiming,
};

/// Version of the diagnosis' stored form. 1: English texts in findings (before typed facts);
/// 2: typed facts; 3: gains computed by the engine and stored with each finding and fix;
/// 4: the run's time ledger; 5: a fix's part of its finding says which part it is; 6: a
/// stall spans its slow steps in a row, and checkpoints written aside and TF32 are costed;
/// 7: a fix's gain may be a range (`after_at_most_ms`); 8: turning anomaly detection off is
/// a range down to the GPU's time, a slowdown is priced from the run's first steps and their
/// tail, and evaluation passes that take much of the run are told a longer period; 9: the
/// settings that change speed, each costed or shown harmless (`settings`), and the fill
/// kernels of deterministic algorithms costed; 10: syncs every step costed at unprofiled
/// speed, a host sort fixed on the GPU, a training's own profiler named; 11: copies from
/// pageable memory costed by the time they hold the host, the allocator's variables and sync
/// debug mode among the settings; 12: the synchronisation after such a copy is the copy's,
/// not a read-back, and a slowdown names its hot lines and the line that keeps a history;
/// 13: more workers that stay slower than the loop even at their best are priced at their
/// pace (`workers_pace`), and the launch wait in which the host launched nothing is
/// measured, left in compile's floor and priced as its own fix (`host_work_off_step`); 14:
/// a slowdown that grew within its first tenth names its first steps' pace, and its fix's
/// gain ranges down to it (`growth_from_first_steps`); 15: full collections the loop asks
/// for are told to stop at their line (`no_collect_in_loop` with `site` and `frozen`), and a
/// run that froze too early to freeze later (`freeze_gc` with `again_later`); 16: more
/// workers priced at their pace range down to the pace of logical CPUs that share cores
/// (`workers_pace` with `if_cores_shared`, `more_workers` with `host_cpus`); 17: the
/// `compilation` family (`compilation/recompiles`) and the ledger's compiling part
/// (`periodic` of `compile`); 18: dropping `dynamic=False` keeps one compilation for any
/// size (`all_but_one_dynamic_compile`).
pub const DIAGNOSIS_FORMAT: u32 = 18;

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
    /// Where the diagnosed rank's time went, in parts that add up to it; None when nothing
    /// was timed or sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ledger: Option<crate::TimeLedger>,
    /// Each setting the probe read that changes speed, with what it costs this run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<crate::SettingCost>,
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

/// A diagnosis of the current format that found nothing (`undetermined`): what tests and
/// views start from before filling in what they need.
impl Default for Diagnosis {
    fn default() -> Self {
        Diagnosis {
            format: DIAGNOSIS_FORMAT,
            primary: Diagnosis::UNDETERMINED.to_owned(),
            findings: Vec::new(),
            window: Default::default(),
            facts: Default::default(),
            environment: Vec::new(),
            ranks: Vec::new(),
            diagnosed_rank: None,
            step_timing: Vec::new(),
            samples: Vec::new(),
            host: None,
            scaling: None,
            notes: Vec::new(),
            sources: Vec::new(),
            charts: Default::default(),
            training: None,
            whole_run: Vec::new(),
            plan: Vec::new(),
            settings: Vec::new(),
            ledger: None,
        }
    }
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
    /// The slowest step time it may give, where the recording bounds what stays but cannot
    /// tell how much of it comes (a background writer's hold on the interpreter):
    /// `expected.after_ms` is then the fastest. None where `expected.after_ms` is the point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_at_most_ms: Option<f64>,
}

impl FixGain {
    /// The step times it should give, fastest and slowest (the same for a point).
    pub fn after_range_ms(&self) -> (f64, f64) {
        let at_most = self.after_at_most_ms.unwrap_or(self.expected.after_ms);
        (self.expected.after_ms, at_most.max(self.expected.after_ms))
    }
}

/// More workers' slow end: the host's logical CPUs taken as two hardware threads to a core
/// (as a cloud VM's vCPUs often are, though the VM shows each as a core), so workers beyond
/// half of them share cores, and a core running two threads does about 1.25 times the work
/// of one. Each worker then runs at `pace` of the pace the run's workers had, its batches
/// and each epoch's first batch that much slower.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SharedCores {
    /// The host's logical CPUs.
    pub host_cpus: u32,
    /// Each worker's pace against the run's workers' (0..1).
    pub pace: f64,
    /// How often the suggested workers would make a batch at that pace, ms.
    pub batch_ms: f64,
    /// The fraction of the finding's lost time removed at that pace (0..=part).
    pub part: f64,
}

/// How much of its finding's lost time a fix removes, as far as the recording tells.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixReach {
    /// All of it: the fix removes the cause the finding measured.
    Cause,
    /// This fraction of it (0..=1): the calls of the busiest of several lines that
    /// synchronise.
    BusiestSyncLine(f64),
    /// This fraction of it (0..=1): the wait for data outside each epoch's first batch, which
    /// the workers make however many there are.
    OutsideEpochStarts(f64),
    /// This fraction of it (0..=1): what more workers remove when, even at their best, they
    /// stay slower than the loop. The run's `workers_now` made a batch every `batch_ms_now`
    /// (outside each epoch's first batch); `workers_after`, each as fast, make one every
    /// `batch_ms_after`, still longer than the loop's own time per step, so the step waits
    /// for them that long. A best case: workers that share the host's cores or wait on the
    /// main process go slower, which a recording of fewer workers cannot measure; where
    /// the suggested workers and the loop would busy more logical CPUs than the host may
    /// have cores, `if_cores_shared` is the slow end.
    WorkersPace {
        /// The fraction of the finding's lost time removed.
        part: f64,
        /// The run's workers.
        workers_now: u32,
        /// How often they made a batch, ms.
        batch_ms_now: f64,
        /// The workers suggested.
        workers_after: u32,
        /// How often the suggested workers would, at best, ms.
        batch_ms_after: f64,
        /// The slow end, where the host's logical CPUs may be two threads to a core.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        if_cores_shared: Option<SharedCores>,
    },
    /// This fraction of it (0..=1): the launch wait inside the model, which compiling it
    /// removes; the eager optimizer's launches and each read-back's turn stay.
    CompiledPart(f64),
    /// This fraction of it (0..=1): the launch wait in which the host made no CUDA call,
    /// running work that launches nothing, which taking that work out of the step removes.
    HostWorkWithoutLaunches(f64),
    /// This fraction of it (0..=1): the host's launches of the optimizer's kernels, one or
    /// more per parameter, which a fused or multi-tensor optimizer makes a few.
    OptimizerLaunches(f64),
    /// `part` of it (0..=1): the stalls beyond copying the state to host memory at each
    /// save, which a background writer still does in the loop; only `at_least` of it if the
    /// writer holds the interpreter for all of its write (`torch.save` holds it while it
    /// writes each tensor), which the recording cannot tell.
    OutsideStagingCopy {
        /// The part removed with the write fully beside the loop.
        part: f64,
        /// The part removed with the loop waiting out every write as well.
        at_least: f64,
    },
    /// This fraction of it (0..=1): the evaluation passes a longer period leaves out; each
    /// pass left costs what it did.
    FewerPasses(f64),
    /// This fraction of it (0..=1): the recompilations but one. Without `dynamic=False`,
    /// dynamo compiles the function once more, for any size, where its size first changed
    /// (about what the run's first recompilation there took).
    AllButOneDynamicCompile(f64),
    /// All of it, and perhaps the host work the setting adds as well (anomaly detection keeps
    /// a Python traceback for every forward operation and checks every backward one for
    /// NaN): at best the step comes down to the GPU's own time. The recording cannot split
    /// the host's time between the setting's work and the loop's, so the gain is a range
    /// from the one to the other.
    CauseAndAddedHostWork,
    /// All of it, at unprofiled speed: without the syncs (or the allocator's calls to the
    /// driver, which drain the queue as a sync does) the step takes the longer of the GPU's
    /// work and the host's, and the recording bounds the host's work from above only
    /// (the profiler slows the host). From that bound down to the GPU's own time.
    SyncsAtUnprofiledSpeed,
    /// The GPU's own work made faster: `share` of the step (fp32 matrix multiplies) run
    /// `speedup` times faster (TF32 on the tensor cores). Not floored at the GPU's busy time,
    /// which is what shrinks.
    FasterMatmuls {
        /// Their share of the step.
        share: f64,
        /// How many times faster they run.
        speedup: f64,
    },
    /// All of it, and perhaps down to the pace of the run's first steps, where the step
    /// would lose this share of itself: work that grows from the very first step had
    /// already grown within the first tenth the lost time is read against, so the step
    /// without the growth lies between that tenth's mean and the first steps' median. The
    /// fast end is a best case: it leaves out the long steps the run would still have.
    GrowthFromFirstSteps(f64),
    /// This share of the step is GPU work the fix takes away (the fill kernels deterministic
    /// algorithms add). Not floored at the GPU's busy time, which is what shrinks.
    LessGpuWork(f64),
    /// No amount the recording can put a number on: a fix that helps the main one (pinned
    /// memory beside more workers), trims part of the cause by an unknown amount (a
    /// multi-tensor optimizer among many launches), finds where the time goes, or belongs to
    /// a finding that is not lost time.
    Supporting,
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
