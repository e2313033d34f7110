//! Findings from an [`Analysis`]: each rule (one module under `rules/`) measures how much
//! step time one cause explains, with its evidence and fixes, as typed facts; `rank` orders
//! them, the one that explains the most lost time first. Words are the catalogue's
//! (`checkup-text`), not the engine's.

pub mod fixes;
pub mod gains;
mod host_lines;
mod ledger;
mod rank;
mod rules;
mod scaling;
mod settings;

use checkup_model::{
    Comparison, Diagnosis, Evidence, EvidenceKey, Finding, Note, RankSummary, RunFacts,
    SampleStats, Severity, Source, StepMarks, StepSyncs, StepTiming, Threshold, Unit,
    DIAGNOSIS_FORMAT,
};

use crate::analysis::Analysis;
use crate::thresholds::Thresholds;

/// What the rules read: the analysis, the run's facts, and the rank, step timings and GPU
/// samples of the rank whose cause is diagnosed.
pub struct Ctx<'a> {
    /// The decision thresholds.
    pub th: &'a Thresholds,
    /// The run's facts: GPU, versions, settings.
    pub facts: &'a RunFacts,
    /// Everything measured.
    pub a: &'a Analysis,
    /// The rank whose cause is diagnosed (the slowest on multi-GPU runs).
    pub rank: Option<&'a RankSummary>,
    /// The diagnosed rank's step timing.
    pub timing: Option<&'a StepTiming>,
    /// The diagnosed rank's GPU statistics.
    pub gpu: Option<&'a SampleStats>,
    /// The environment checks.
    pub env: &'a [checkup_model::EnvCheck],
    /// Multi-GPU scaling against a 1-GPU partner run, when one was given.
    pub scaling: Option<&'a checkup_model::Scaling>,
    /// A rank that waits for the diagnosed one: (waiting, slow, extra exposed share).
    pub straggler: Option<(u32, u32, f64)>,
    /// Each step waits for its slowest rank, and that rank changes from step to step.
    pub shifting: Option<rank::ShiftingStragglers>,
    /// What the probe saw of the diagnosed rank's training (None: not recorded).
    pub training: Option<&'a checkup_model::TrainingContext>,
    /// The diagnosed rank's markers of periodic work.
    pub markers: &'a [checkup_model::RunMarker],
}

/// A trace's steps as stalls and the rest (`Ctx::trace_stalls`).
pub struct TraceStalls<'a> {
    /// Each stalled step with its excess over a normal traced step (µs).
    pub stalled: Vec<(f64, &'a StepSyncs)>,
    /// The steps without a stall.
    pub others: Vec<&'a StepSyncs>,
}

/// What a rule adds to the diagnosis.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Findings the rule made.
    pub findings: Vec<Finding>,
    /// Notes it adds to the diagnosis (caveats, what it left out).
    pub notes: Vec<Note>,
}

impl From<Option<Finding>> for Outcome {
    fn from(f: Option<Finding>) -> Self {
        Outcome {
            findings: f.into_iter().collect(),
            notes: Vec::new(),
        }
    }
}

/// A rule: reads the context and the findings of the rules before it.
pub type Rule = fn(&Ctx, &[Finding]) -> Outcome;

impl<'a> Ctx<'a> {
    /// The diagnosed rank's step series, when its steps were timed.
    pub fn step_series(&self) -> Option<&'a checkup_model::StepSeries> {
        let rank = self.timing?.rank;
        self.a.charts.steps.iter().find(|s| s.rank == rank)
    }

    /// The first step after the warm-up (0 when no steps were timed): work before it is
    /// the run's start, not its loop's.
    pub fn first_steady_step(&self) -> u64 {
        let first = self
            .step_series()
            .and_then(|s| s.step.first().copied())
            .unwrap_or(0);
        first.saturating_add(self.timing.map_or(0, |t| t.warmup_steps))
    }

    /// The diagnosed rank's step time over the run in tenths (rank 0's when no steps were
    /// timed on a rank of its own).
    pub fn step_trend(&self) -> Option<&'a crate::analysis::trends::StepTrend> {
        let rank = self.timing.map(|t| t.rank).unwrap_or(0);
        self.a.step_trends.get(&rank)
    }

    /// The curves of the GPU the diagnosed rank's statistics describe (`gpu`): every rule
    /// that reads a curve reads the diagnosed rank's, never another GPU's.
    pub fn gpu_series(&self) -> Option<&'a checkup_model::GpuSeries> {
        let gpu = self.gpu?.gpu;
        self.a.charts.gpus.iter().find(|g| g.gpu == gpu)
    }

    fn share_of_window(&self, us: f64) -> Option<f64> {
        self.rank
            .filter(|r| r.gpu.window_us > 0.0)
            .map(|r| us / r.gpu.window_us)
    }

    fn rank_source(&self) -> Source {
        Source::Trace {
            rank: self.rank.map(|r| r.rank),
        }
    }

    /// Share of the step the GPU is busy at unprofiled speed: busy time per step from the
    /// trace over the step time of unprofiled steps. Falls back to the trace alone, then to
    /// sampled util.
    fn gpu_busy(&self) -> Option<(f64, checkup_model::BusyMethod)> {
        use checkup_model::BusyMethod;
        if let (Some(r), Some(step_ms)) = (self.rank, self.normal_step_ms()) {
            if r.gpu_busy_per_step_us > 0.0 && step_ms > 0.0 {
                return Some((
                    (r.gpu_busy_per_step_us / (step_ms * 1e3)).min(1.0),
                    BusyMethod::TraceOverUnprofiledSteps,
                ));
            }
        }
        if let Some(r) = self.rank.filter(|r| r.gpu.window_us > 0.0) {
            let busy = r.gpu.window_us - r.gpu.idle_us;
            return Some((busy / r.gpu.window_us, BusyMethod::ProfiledWindow));
        }
        // GPU-Util is the share of time a kernel runs, which is what busy means here; SM
        // active (GPM) stays under 100 % on a fully fed GPU whose kernels leave SMs empty.
        self.gpu
            .and_then(|g| {
                g.util_gpu_mean
                    .map(|u| (u, BusyMethod::SampledGpuUtil))
                    .or(g.sm_active_mean.map(|a| (a, BusyMethod::SampledSmActive)))
            })
            .map(|(u, how)| (u / 100.0, how))
    }

    /// Mean unprofiled step time without the periodic stalls: what a step costs when
    /// nothing periodic happens in it. Per-step causes are measured against it; the stalls
    /// are the stall rule's.
    fn normal_step_ms(&self) -> Option<f64> {
        let t = self.timing?;
        let n = t.steady_steps as f64;
        let k: f64 = t.stalls.iter().map(|s| s.steps as f64).sum();
        if t.stalls.is_empty() || n <= k {
            return Some(t.mean_step_ms);
        }
        let stalled: f64 = t.stalls.iter().map(|s| s.duration_ms).sum();
        Some(((t.mean_step_ms * n - stalled) / (n - k)).max(0.0))
    }

    /// `ms` as a share of the run's steady time (its unprofiled steps after the warm-up); 0
    /// without step timings.
    fn steady_share(&self, ms: f64) -> f64 {
        let total = self
            .timing
            .map_or(0.0, |t| t.mean_step_ms * t.steady_steps as f64);
        if total > 0.0 {
            ms / total
        } else {
            0.0
        }
    }

    /// The share of the run's steady time that the periodic stalls add (their excess over a
    /// normal step); 0 without step timings.
    fn stall_share(&self) -> f64 {
        self.timing.map_or(0.0, |t| {
            self.steady_share(t.stalls.iter().map(|s| s.excess_ms).sum())
        })
    }

    /// The trace's steps split into stalls like those steps.csv shows (each with its excess
    /// over a normal traced step, µs: a period at least `stall_factor` times the median) and
    /// the others. Only when the run has periodic stalls and the trace holds one; steps.csv
    /// leaves the profiled steps out of its own stall count, since the profiler slows them.
    fn trace_stalls(&self) -> Option<TraceStalls<'a>> {
        let (t, r) = (self.timing?, self.rank?);
        t.stall_period_steps?;
        let periods: Vec<f64> = r
            .step_syncs
            .iter()
            .map(|s| s.period_us)
            .filter(|p| *p > 0.0)
            .collect();
        let normal = crate::analysis::stats::median(&periods);
        if periods.len() < 3 || normal <= 0.0 {
            return None;
        }
        let (stalled, others): (Vec<&StepSyncs>, Vec<&StepSyncs>) = r
            .step_syncs
            .iter()
            .partition(|s| s.period_us >= self.th.stall_factor * normal);
        (!stalled.is_empty()).then(|| TraceStalls {
            stalled: stalled
                .into_iter()
                .map(|s| (s.period_us - normal, s))
                .collect(),
            others,
        })
    }

    /// A per-step idle cause's share of the run from its share of the profiled window: at
    /// unprofiled speed it is at most what the GPU neither computes (`busy`) nor spends
    /// waiting for data, and it costs that share of the normal steps only.
    fn idle_share_at_unprofiled_speed(&self, trace_share: f64, busy: f64) -> f64 {
        let data_idle = self.timing.and_then(|t| t.data_idle_share).unwrap_or(0.0);
        trace_share.min((1.0 - busy - data_idle).max(0.0)) * self.normal_time_share()
    }

    /// The share of the run's time spent in normal steps (outside the stalls' excess): a
    /// per-step cause costs its share of a normal step times this.
    fn normal_time_share(&self) -> f64 {
        (1.0 - self.stall_share()).clamp(0.0, 1.0)
    }

    /// Whether the training may run a torch.optim step: not when the diagnosed rank's trace
    /// shows none (torch.optim marks every step in a trace).
    fn optimizer_may_run(&self) -> bool {
        self.rank.is_none_or(|r| r.optimizer.is_some())
    }

    /// What the fixes must know of the run: its DataLoader, optimizer, compile and model.
    fn run_settings(&self) -> fixes::RunSettings {
        fixes::RunSettings::of(
            self.facts,
            self.training,
            self.rank,
            self.optimizer_may_run(),
        )
    }

    fn severity(&self, share: f64) -> Severity {
        let th = self.th;
        if share >= th.critical_share {
            Severity::Critical
        } else if share >= th.significant_share {
            Severity::Major
        } else if share >= th.reportable_share {
            Severity::Minor
        } else {
            Severity::Info
        }
    }
}

/// An evidence row, its value rounded to three decimals.
fn ev(
    key: EvidenceKey,
    value: f64,
    unit: Unit,
    threshold: Option<(Comparison, f64)>,
    source: Source,
) -> Evidence {
    Evidence {
        key,
        value: (value * 1000.0).round() / 1000.0,
        unit,
        threshold: threshold.map(|(comparison, value)| Threshold { comparison, value }),
        source,
    }
}

/// A share as a percent evidence row measured against `at_least` (a share too).
fn share_ev(key: EvidenceKey, share: f64, at_least: Option<f64>, source: Source) -> Evidence {
    ev(
        key,
        share * 100.0,
        Unit::Percent,
        at_least.map(|t| (Comparison::AtLeast, t * 100.0)),
        source,
    )
}

/// The rules, in the order they run: `idle` reads the lost-time findings before it,
/// `busy` comes after them, then memory, `environment` last.
const RULES: [Rule; 15] = [
    rules::data_loading::rule,
    rules::copies::rule,
    rules::sync::rule,
    rules::allocator::rule,
    rules::launches::rule,
    rules::communication::rule,
    rules::stalls::rule,
    rules::compilation::rule,
    rules::throttling::rule,
    // Before `idle`: the steps a slowdown lengthens are GPU idle it explains.
    rules::slowdown::rule,
    rules::idle::rule,
    rules::busy::rule,
    rules::memory::rule,
    rules::host_memory::rule,
    rules::environment::rule,
];

/// Judges an analysis: environment checks, the diagnosed rank, each rule in order, ranked findings and the primary cause.
pub fn diagnose(
    facts: RunFacts,
    a: Analysis,
    partner: Option<(&RunFacts, &Analysis, String)>,
    mut notes: Vec<Note>,
    sources: Vec<String>,
    th: &Thresholds,
) -> Diagnosis {
    let mut environment = checkup_environment::environment_checks(&facts);
    environment.extend(out_of_memory_checks(&a));
    let (diagnosed, straggler) = rank::pick_rank(&a, th);
    let shifting = rank::shifting_stragglers(&a, th);
    let scaling = partner.and_then(|(pf, pa, name)| scaling::scaling(&facts, &a, pf, pa, name));
    let cx = Ctx {
        th,
        facts: &facts,
        a: &a,
        rank: diagnosed.and_then(|r| a.ranks.iter().find(|x| x.rank == r)),
        timing: a
            .step_timing
            .iter()
            .find(|t| Some(t.rank) == diagnosed)
            .or(a.step_timing.first()),
        gpu: a
            .samples
            .iter()
            .find(|s| Some(s.gpu) == diagnosed.map(|r| facts.gpu_of_rank_or_own(r)))
            .or(a.samples.first()),
        env: &environment,
        scaling: scaling.as_ref(),
        straggler,
        shifting,
        training: a
            .training
            .get(&diagnosed.unwrap_or(0))
            .or(a.training.values().next()),
        markers: a
            .markers
            .get(&diagnosed.unwrap_or(0))
            .or(a.markers.values().next())
            .map_or(&[], Vec::as_slice),
    };
    let mut findings: Vec<Finding> = Vec::new();
    for rule in RULES {
        let out = rule(&cx, &findings);
        findings.extend(out.findings);
        notes.extend(out.notes);
    }
    for r in a
        .ranks
        .iter()
        .filter(|r| r.step_marks != StepMarks::ProfilerSteps)
    {
        notes.push(Note::StepsInferred {
            rank: r.rank,
            from: r.step_marks,
        });
    }
    // A whole-trace window is one step by construction: its own note says so.
    for r in a
        .ranks
        .iter()
        .filter(|r| r.steps.len() < th.min_trace_steps && r.step_marks != StepMarks::WholeTrace)
    {
        notes.push(Note::FewTraceSteps {
            rank: r.rank,
            steps: r.steps.len() as u32,
        });
    }
    let training = cx.training.cloned();
    let findings = rank::rank_findings(findings, th);
    let settings = settings::cost(&cx, &findings);
    let ledger = diagnosed
        .and_then(|r| a.ledgers.get(&r))
        .or(a.ledgers.values().next())
        .cloned()
        .map(|l| ledger::link(l, &findings));
    let primary = findings
        .first()
        .map_or_else(|| Diagnosis::UNDETERMINED.to_owned(), Finding::id);
    let mut d = Diagnosis {
        format: DIAGNOSIS_FORMAT,
        primary,
        findings,
        window: a.window.clone(),
        environment,
        ranks: a.ranks.clone(),
        diagnosed_rank: diagnosed,
        step_timing: a.step_timing.clone(),
        samples: a.samples.clone(),
        host: a.host.clone(),
        scaling,
        notes,
        sources,
        charts: a.charts.clone(),
        training,
        whole_run: a.whole_run.clone(),
        facts,
        plan: Vec::new(),
        ledger,
        settings,
    };
    gains::fill(&mut d);
    d
}

/// An out-of-memory check for each GPU whose training's allocator counted OOMs: what they
/// mean and what to try belong with the environment, where a newcomer looks first.
fn out_of_memory_checks(a: &Analysis) -> Vec<checkup_model::EnvCheck> {
    use checkup_model::{CheckId, CheckStatus, CheckValue, EnvCheck};
    a.memory
        .values()
        .filter(|m| m.ooms > 0)
        .map(|m| {
            let check = EnvCheck::new(
                CheckId::OutOfMemory,
                CheckStatus::Fail,
                CheckValue::OutOfMemory {
                    ooms: m.ooms,
                    peak_reserved_gib: m.peak_reserved_gib,
                    capacity_gib: m.capacity_gib,
                },
            );
            match m.gpu {
                Some(gpu) => check.on_gpu(gpu),
                None => check,
            }
        })
        .collect()
}

/// Whose processes hold the CPU of a saturated host.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Whose {
    /// The training's own processes hold most of the busy CPU (its DataLoader workers).
    TheTraining,
    /// Other processes hold most of it (other jobs on a shared host).
    Others,
    /// The recording does not say (no CPU figure for the training's processes).
    Unknown,
}

/// A host CPU at or above the saturation threshold, with the figures a finding quotes.
#[derive(Debug, Clone, Copy)]
struct HostSaturation {
    whose: Whose,
    /// All cores, percent.
    total_pct: f64,
    /// The training's process tree, in cores.
    training_cores: f64,
}

fn host_saturation(cx: &Ctx) -> Option<HostSaturation> {
    let th = cx.th;
    let h = cx.a.host.as_ref()?;
    let total_pct = h
        .cpu_total_mean
        .filter(|c| *c >= th.host_cpu_saturated_pct)?;
    let used_cores = total_pct / 100.0 * h.cores as f64;
    let training_cores = h.proc_tree_cpu_mean.map(|t| t / 100.0);
    let whose = match training_cores {
        None => Whose::Unknown,
        Some(t) if t >= th.host_cpu_own_share * used_cores => Whose::TheTraining,
        Some(_) => Whose::Others,
    };
    Some(HostSaturation {
        whose,
        total_pct,
        training_cores: training_cores.unwrap_or(0.0),
    })
}

#[cfg(test)]
mod test_support;
