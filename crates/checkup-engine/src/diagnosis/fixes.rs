//! Which fixes apply to each finding, with the run's own values they quote. A fix is never
//! one the run already made: what the probe saw of the training (its DataLoader, optimizer,
//! compile, convolutions) decides. The catalogue words them.

use checkup_model::{
    CommunicationFix, ComputeBoundFix, DataLoadingFix, H2dCopyFix, HostSyncFix, KernelLaunchFix,
    MemoryBandwidthFix, PeriodicStallFix, SharedFix, ThrottlingFix,
};
use checkup_model::{
    DataLoaderSettings, Fix, IdleSuspect, OptimizerImplementation, PeriodicWork, RankSummary,
    RunFacts, SyncSite, TrainingContext,
};

use crate::thresholds::Thresholds;

/// What the run already does, as far as the recording tells: the probe's account of the
/// training, else what its trace shows (compiled code, CUDA graphs, a fused optimizer, the
/// optimizer's class). `None`: not known (an old run folder, a trace that does not say): the
/// fix is then offered, as it was before the probe saw runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSettings {
    /// The training DataLoader's settings (workers, pinning, prefetch).
    pub dataloader: Option<DataLoaderSettings>,
    /// Whether a torch.optim step runs at all (a trace without one: inference).
    pub optimizer_runs: bool,
    /// Foreach, fused or per-parameter optimizer step.
    pub optimizer: Option<OptimizerImplementation>,
    /// The optimizer's class (`SGD`), from the probe or the trace's `Optimizer.step#SGD.step`.
    pub optimizer_class: Option<String>,
    /// Some(mode) when compiled (`None` inside: the default mode).
    pub compiled: Option<Option<String>>,
    /// Whether the training replays CUDA graphs already.
    pub cuda_graphs: bool,
    /// Whether a compiled function hit dynamo's recompile limit and runs uncompiled: another
    /// compile mode would recompile and fall back the same way.
    pub recompile_limit_hit: bool,
    /// Convolutions with 4-d inputs seen in the forward, and how many ran channels_last.
    pub convolutions: Option<(u64, u64)>,
    /// Checkpoint writes the probe saw over the run (`Some(0)`: watched, none written).
    pub checkpoints_seen: Option<u64>,
    /// Whether the run froze its start-up objects with `gc.freeze()`.
    pub gc_frozen: bool,
    /// What the probe saw of the training's own `gc.collect()` calls.
    pub gc_collect: GcCollectCalls,
}

/// The training's own `gc.collect()` calls, as the probe counted them by line.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum GcCollectCalls {
    /// Not counted (a recording from before the probe counted them).
    #[default]
    NotCounted,
    /// Counted: no line calls it again and again, so full collections are Python's own.
    NoneInLoop,
    /// The line that calls it most, called again and again.
    InLoop(SyncSite),
}

/// Frozen objects that say the run froze its start-up state: a freeze after set-up holds
/// the interpreter's and torch's objects, over a hundred thousand (165,459 on the H100
/// recordings of `gc_collect_every_n.py --freeze`), where a few hundred are some library's
/// own (375 in its runs that never call `gc.freeze()`, torch 2.11).
const GC_FROZEN_BY_THE_RUN: u64 = 10_000;

/// Calls at one line that make it the loop's, not set-up's: a line run once or twice
/// before training (after loading the data) is no periodic stall.
const GC_COLLECT_CALLS_IN_LOOP: u64 = 3;

impl GcCollectCalls {
    fn of(training: Option<&TrainingContext>) -> Self {
        match training.and_then(|t| t.gc_collect.as_ref()) {
            None => Self::NotCounted,
            Some(calls) => calls
                .sites
                .iter()
                .find(|s| s.count >= GC_COLLECT_CALLS_IN_LOOP)
                .map_or(Self::NoneInLoop, |s| Self::InLoop(s.clone())),
        }
    }
}

impl RunSettings {
    /// `trace`: the diagnosed rank's trace summary, when there is one.
    pub fn of(
        facts: &RunFacts,
        training: Option<&TrainingContext>,
        trace: Option<&RankSummary>,
        optimizer_runs: bool,
    ) -> Self {
        let code = trace.map(|t| t.code).unwrap_or_default();
        let trace_optimizer = trace.and_then(|t| t.optimizer.as_deref());
        let loader = training.and_then(TrainingContext::main_loader);
        let dataloader = facts.dataloader.clone().or_else(|| {
            loader.map(|l| DataLoaderSettings {
                num_workers: l.num_workers,
                pin_memory: l.pin_memory,
                persistent_workers: l.persistent_workers,
                prefetch_factor: l.prefetch_factor,
            })
        });
        let optimizer_runs =
            optimizer_runs || training.is_some_and(|t| t.main_optimizer().is_some());
        RunSettings {
            dataloader,
            optimizer_runs,
            optimizer: training
                .and_then(TrainingContext::main_optimizer)
                .and_then(|o| o.implementation)
                .or((code.fused_optimizer_kernels > 0).then_some(OptimizerImplementation::Fused)),
            optimizer_class: training
                .and_then(TrainingContext::main_optimizer)
                .and_then(|o| o.class.clone())
                .or_else(|| trace_optimizer.map(str::to_owned)),
            compiled: training
                .filter(|t| t.compiled())
                .map(|t| t.compile.calls.iter().find_map(|c| c.mode.clone()))
                .or(code.compiled().then_some(None)),
            cuda_graphs: training.is_some_and(|t| t.cuda_graphs.replays > 0)
                || code.graph_launches > 0,
            recompile_limit_hit: training.is_some_and(|t| t.compile.recompile_limit.is_some()),
            convolutions: training.and_then(TrainingContext::convolutions),
            checkpoints_seen: training.map(|t| t.markers.checkpoints),
            gc_frozen: training
                .is_some_and(|t| t.settings.gc_frozen_objects >= Some(GC_FROZEN_BY_THE_RUN)),
            gc_collect: GcCollectCalls::of(training),
        }
    }
}

/// Fixes for a starved input pipeline, minus what the run already does: more workers when
/// the host has CPU to spare, cheaper samples and cores left to the loop when it has not;
/// pinned memory and persistent workers where they are not set. `ranks_on_host` training
/// processes share the host's `cores`, each with its own loader: the workers suggested are
/// one rank's share.
pub fn data_loading(
    run: &RunSettings,
    host_saturated: bool,
    cores: Option<u32>,
    ranks_on_host: u32,
) -> Vec<Fix> {
    let settings = run.dataloader.as_ref();
    let workers_now = settings.and_then(|s| s.num_workers);
    let mut out = Vec::new();
    if host_saturated {
        out.push(Fix::DataLoading(DataLoadingFix::CheaperSamples));
        // Workers on every core leave none for the processes that launch the kernels: each
        // rank on the host is one, with its own workers.
        if let (Some(w), Some(c)) = (workers_now, cores.filter(|c| *c > 2)) {
            let ranks = ranks_on_host.max(1);
            if ranks * (w + 1) >= c {
                // A core for each training process and one for the system, the rest shared.
                let suggested = match ranks {
                    1 => c - 2,
                    r => (c.saturating_sub(r + 1) / r).max(1),
                };
                if suggested < w {
                    out.push(Fix::DataLoading(DataLoadingFix::LeaveCoresToLoop {
                        workers: w,
                        cores: c,
                        suggested,
                        ranks,
                    }));
                }
            }
        }
    } else {
        // One process alone: two cores for it and the system, between 4 and 16 workers.
        // Several: a core for each and one for the system, the rest shared out, at least one
        // worker each.
        let suggested = match (cores, ranks_on_host.max(1)) {
            (Some(c), 1) => c.saturating_sub(2).clamp(4, 16),
            (Some(c), ranks) => (c.saturating_sub(ranks + 1) / ranks).clamp(1, 16),
            (None, 1) => 8,
            (None, _) => 2,
        };
        if workers_now.is_none_or(|w| w < suggested) {
            out.push(Fix::DataLoading(DataLoadingFix::MoreWorkers {
                suggested,
                current: workers_now,
                // For the workers' pace on shared cores; where several ranks share the host,
                // their own workers' share is not this fix's to price.
                host_cpus: cores.filter(|_| ranks_on_host <= 1),
            }));
        } else if let Some(workers) = workers_now {
            // As many workers as the host can give: each sample must get cheaper.
            out.push(Fix::DataLoading(
                DataLoadingFix::CheaperSamplesAtWorkerLimit { workers },
            ));
        }
    }
    if settings.and_then(|s| s.pin_memory) != Some(true) {
        out.push(Fix::DataLoading(DataLoadingFix::PinMemory));
    }
    // persistent_workers=True with no workers is an error in torch: only with workers, the
    // run's or the ones suggested above.
    let will_have_workers = workers_now.is_some_and(|w| w > 0)
        || out
            .iter()
            .any(|f| matches!(f, Fix::DataLoading(DataLoadingFix::MoreWorkers { .. })));
    if will_have_workers && settings.is_some_and(|s| s.persistent_workers != Some(true)) {
        out.push(Fix::DataLoading(DataLoadingFix::PersistentWorkers));
    }
    out
}

/// The GPU idles for data mostly at epoch starts. Workers that are re-forked each epoch
/// are the first thing to keep; persistent ones still begin an epoch's batches only once its
/// iterator exists, so the loader must run across epochs. More workers would not help: each
/// start waits for one worker's batch.
pub fn epoch_start_waits(run: &RunSettings) -> Vec<Fix> {
    let settings = run.dataloader.as_ref();
    let workers = settings.and_then(|s| s.num_workers);
    let has_workers = workers.is_some_and(|w| w > 0);
    let persistent = settings.and_then(|s| s.persistent_workers) == Some(true);
    let mut out = Vec::new();
    if has_workers && !persistent {
        out.push(Fix::DataLoading(DataLoadingFix::PersistentWorkers));
    }
    out.push(Fix::DataLoading(DataLoadingFix::LoaderAcrossEpochs {
        workers,
    }));
    if settings.and_then(|s| s.pin_memory) != Some(true) {
        out.push(Fix::DataLoading(DataLoadingFix::PinMemory));
    }
    out
}

/// Fixes for exposed host-to-device copies: pinned memory first when the copies are pageable.
pub fn h2d_copy(pageable: bool) -> Vec<Fix> {
    let mut out = Vec::new();
    if pageable {
        out.push(Fix::H2dCopy(H2dCopyFix::PinnedCopy));
    }
    out.extend([
        Fix::H2dCopy(H2dCopyFix::OverlapCopy),
        Fix::H2dCopy(H2dCopyFix::FewerCopyBytes),
    ]);
    out
}

/// The host CPU is saturated by processes outside the training: its loop and its workers
/// get CPU time late.
pub fn cpu_contention() -> Vec<Fix> {
    vec![
        Fix::Shared(SharedFix::FindCpuHogs),
        Fix::Shared(SharedFix::ReserveCores),
    ]
}

/// Fewer, bigger launches: compile (or, compiled already, capture CUDA graphs, unless the
/// compiled function hit its recompile limit: the compilation finding's fix keeps it
/// compiled), a multi-tensor optimizer where the step runs one kernel per parameter,
/// bigger kernels.
pub fn kernel_launch(run: &RunSettings) -> Vec<Fix> {
    let mut out = Vec::new();
    match &run.compiled {
        None => out.push(Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels)),
        Some(mode)
            if !run.cuda_graphs
                && !run.recompile_limit_hit
                && mode.as_deref() != Some("reduce-overhead") =>
        {
            out.push(Fix::KernelLaunch(KernelLaunchFix::ReduceOverhead {
                current_mode: mode.clone(),
            }))
        }
        Some(_) => {}
    }
    if run.optimizer_runs
        && run
            .optimizer
            .is_none_or(|o| o == OptimizerImplementation::ForLoop)
    {
        out.push(Fix::KernelLaunch(KernelLaunchFix::ForeachOptimizer {
            class: run.optimizer_class.clone(),
        }));
    }
    out.push(Fix::KernelLaunch(KernelLaunchFix::BiggerKernels));
    out
}

/// `busiest`: the line that synchronises most and its calls per step, when the probe saw it.
/// A named line is the fix: finding syncs is what the probe already did, and a generic
/// metrics rewrite would be about some other line. A line that copies a host tensor to the
/// GPU needs that copy every step: its fix is to the copy, not to do it less often; nor is a
/// line that orders values on the host for the step to use: it sorts on the GPU instead.
pub fn host_sync(busiest: Option<(&SyncSite, f64)>) -> Vec<Fix> {
    match busiest {
        Some((site, per_step)) if site.sorts_on_host() => {
            vec![Fix::HostSync(HostSyncFix::SortOnGpuAtLine {
                site: site.clone(),
                site_per_step: per_step,
            })]
        }
        Some((site, per_step)) if site.copies_to_gpu() => {
            vec![Fix::HostSync(HostSyncFix::AsyncCopyAtLine {
                site: site.clone(),
                site_per_step: per_step,
            })]
        }
        Some((site, per_step)) => vec![Fix::HostSync(HostSyncFix::FewerReadbacks {
            site: Some(site.clone()),
            site_per_step: Some(per_step),
        })],
        None => vec![
            Fix::HostSync(HostSyncFix::FewerReadbacks {
                site: None,
                site_per_step: None,
            }),
            Fix::HostSync(HostSyncFix::GpuMetrics),
            Fix::HostSync(HostSyncFix::FindHiddenSyncs),
        ],
    }
}

/// Fixes for exposed communication: re-enable peer-to-peer first when it is disabled.
/// `gloo_on_gpus`: the all-reduce goes through gloo on the host while each rank has a GPU.
pub fn communication(p2p_disabled: bool, gloo_on_gpus: bool) -> Vec<Fix> {
    let mut out = Vec::new();
    if p2p_disabled {
        out.push(Fix::Communication(CommunicationFix::EnableP2p));
    }
    if gloo_on_gpus {
        out.push(Fix::Communication(CommunicationFix::NcclForGpuTensors));
    }
    out.extend([
        Fix::Communication(CommunicationFix::AccumulateGradients),
        Fix::Communication(CommunicationFix::MoreWorkPerAllReduce),
        Fix::Communication(CommunicationFix::CompressGradients),
    ]);
    out
}

/// Checkpoints whose writes take longer than the training between two saves: the period
/// (a multiple of the run's) at which each would end before the next is due, and the longest
/// write seen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckpointPace {
    /// Save every this many steps.
    pub every_steps: u64,
    /// The longest write, ms.
    pub write_ms: f64,
}

/// Evaluation passes that take more than a twentieth of the run: the period (a multiple of
/// the run's) at which they take at most that.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvalPace {
    /// The run's period, steps.
    pub period_steps: u64,
    /// Evaluate every this many steps.
    pub every_steps: u64,
    /// A typical pass beyond a normal step, ms.
    pub pass_ms: f64,
    /// The most of the training between two passes a pass takes at that period.
    pub pass_share: f64,
}

/// `work`: what the markers show in the stalled steps; the fix for that work first, the
/// general ones only when the work is not known. `pace`: when checkpoints' writes outlast
/// the training between two saves; `eval_pace`: when evaluation passes take much of the run.
pub fn periodic_stall(
    checkpoint_seen: bool,
    work: Option<&PeriodicWork>,
    run: &RunSettings,
    pace: Option<CheckpointPace>,
    eval_pace: Option<EvalPace>,
) -> Vec<Fix> {
    match work {
        Some(PeriodicWork::EpochStart { .. }) => {
            let persistent = run
                .dataloader
                .as_ref()
                .is_some_and(|d| d.persistent_workers == Some(true));
            if persistent {
                vec![Fix::PeriodicStall(PeriodicStallFix::LessPeriodicWork)]
            } else {
                vec![Fix::DataLoading(DataLoadingFix::PersistentWorkers)]
            }
        }
        Some(PeriodicWork::Checkpoint) => {
            vec![Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint {
                checkpoint_seen: true,
                every_steps: pace.map(|p| p.every_steps),
            })]
        }
        // Already in the background: only saving less often lets each write end in time.
        Some(PeriodicWork::BackgroundCheckpoint) => match pace {
            Some(p) => vec![Fix::PeriodicStall(PeriodicStallFix::CheckpointLessOften {
                every_steps: p.every_steps,
                write_ms: p.write_ms,
            })],
            None => vec![Fix::PeriodicStall(PeriodicStallFix::LessPeriodicWork)],
        },
        Some(PeriodicWork::Eval) => match eval_pace {
            Some(p) => vec![Fix::PeriodicStall(PeriodicStallFix::EvaluateLessOften {
                period_steps: p.period_steps,
                every_steps: p.every_steps,
                pass_ms: p.pass_ms,
                pass_share: p.pass_share,
            })],
            None => vec![Fix::PeriodicStall(PeriodicStallFix::LessPeriodicWork)],
        },
        // The loop asks for the collections: not asking removes them whole. Freezing would
        // leave each call walking every object made since (40-50 ms a call on the H100
        // twin, 4.8 ms steps where the twin without the calls ran 3.9).
        Some(PeriodicWork::GarbageCollection) => match (&run.gc_collect, run.gc_frozen) {
            (GcCollectCalls::InLoop(site), frozen) => {
                vec![Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
                    site: Some(site.clone()),
                    frozen,
                })]
            }
            // Already frozen, the calls not counted: what still stalls at a steady period
            // is a collection the loop asks for.
            (GcCollectCalls::NotCounted, true) => {
                vec![Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
                    site: None,
                    frozen: true,
                })]
            }
            // Python's own collections, frozen already: the freeze came before what the
            // collections still walk.
            (GcCollectCalls::NoneInLoop, true) => {
                vec![Fix::PeriodicStall(PeriodicStallFix::FreezeGc {
                    again_later: true,
                })]
            }
            (GcCollectCalls::NotCounted | GcCollectCalls::NoneInLoop, false) => {
                vec![Fix::PeriodicStall(PeriodicStallFix::FreezeGc {
                    again_later: false,
                })]
            }
        },
        Some(PeriodicWork::HostReadback {
            readbacks_per_stall,
        }) => vec![Fix::PeriodicStall(PeriodicStallFix::SummariseOnGpu {
            readbacks: *readbacks_per_stall,
        })],
        // Writing checkpoints asynchronously is no advice for a run the probe watched write
        // none.
        None if run.checkpoints_seen == Some(0) && !checkpoint_seen => {
            vec![Fix::PeriodicStall(PeriodicStallFix::LessPeriodicWork)]
        }
        None => vec![
            Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint {
                checkpoint_seen,
                every_steps: None,
            }),
            Fix::PeriodicStall(PeriodicStallFix::LessPeriodicWork),
        ],
    }
}

/// For an idle GPU whose cause was not recorded; `tree_cpu` is the training process tree's
/// CPU use (100 = one core).
/// `suspect`: what the host samples point at while the GPU idled, if anything.
/// `traced`: the recording holds a trace already, so profiling again is no advice: what is
/// left to look at is the loop's own host work.
pub fn gpu_idle(
    suspect: Option<IdleSuspect>,
    tree_cpu: Option<f64>,
    traced: bool,
    training_profiler: bool,
    th: &Thresholds,
) -> Vec<Fix> {
    if traced {
        return vec![Fix::Shared(SharedFix::MainThreadCpu)];
    }
    // A run that profiles itself is not told to profile: its profiler is what kept the
    // checkup from tracing, and what it records costs every step.
    let mut out = vec![Fix::Shared(if training_profiler {
        SharedFix::StopTrainingProfiler
    } else {
        SharedFix::ProfileSteps
    })];
    match suspect {
        // Workers flat out: the profile confirms it with the step's data wait; what to change
        // then depends on the loader's settings, which samples do not hold.
        Some(IdleSuspect::InputPipeline { .. }) => {}
        Some(IdleSuspect::PythonLoop { .. }) => out.push(Fix::Shared(SharedFix::MainThreadCpu)),
        // Without per-process samples: one core's worth of CPU in the training processes
        // (and not much more) is the Python main thread running flat out.
        None => {
            let (low, high) = th.main_thread_cpu_pct;
            if tree_cpu.is_some_and(|t| (low..high).contains(&t)) {
                out.push(Fix::Shared(SharedFix::MainThreadCpu));
            }
        }
    }
    out
}

/// NVML clock-event reason names (`sw_thermal_slowdown`, `sw_power_cap`, …).
pub fn throttling(reasons: &[String]) -> Vec<Fix> {
    let thermal = reasons.iter().any(|r| r.contains("thermal"));
    let power = reasons.iter().any(|r| r.contains("power"));
    let mut out = Vec::new();
    if thermal {
        out.push(Fix::Throttling(ThrottlingFix::CoolGpu));
    }
    if power || !thermal {
        out.push(Fix::Throttling(ThrottlingFix::CheckPower));
    }
    out
}

/// `fills`: the fill kernels' share of the step and their count per step, when deterministic
/// algorithms fill `torch.empty`'s memory and that is worth the line that stops it.
/// `fp32_matmuls`: the step's share in matrix multiplies on the fp32 units and this GPU's
/// TF32 speed-up, when that share is worth a change. `conv_heavy`: convolutions lead the
/// trace's kernels (a layout change for a convolution that costs nothing is no fix); the
/// probe's look at the forward, when taken, also decides (channels_last only for 4-d
/// convolution inputs not yet in it).
pub fn compute_bound(
    fills: Option<(f64, f64)>,
    fp32_matmuls: Option<(f64, Option<f64>)>,
    tensor_cores_idle: bool,
    conv_heavy: bool,
    run: &RunSettings,
) -> Vec<Fix> {
    let mut out = Vec::new();
    // A setting's one line, which keeps what the run asked for (determinism): first.
    if let Some((fill_share, fills_per_step)) = fills {
        out.push(Fix::ComputeBound(ComputeBoundFix::SkipUninitializedFill {
            fill_share,
            fills_per_step,
        }));
    }
    if let Some((share, speedup)) = fp32_matmuls {
        out.push(Fix::ComputeBound(ComputeBoundFix::AllowTf32 {
            fp32_matmul_share: share,
            tf32_speedup: speedup,
        }));
    }
    if tensor_cores_idle {
        out.push(Fix::ComputeBound(ComputeBoundFix::TensorCores));
    }
    if run.compiled.is_none() {
        out.push(Fix::ComputeBound(ComputeBoundFix::Compile));
    }
    let channels_last_missing = match run.convolutions {
        Some((inputs, channels_last)) => conv_heavy && inputs > 0 && channels_last < inputs,
        None => conv_heavy,
    };
    if channels_last_missing {
        out.push(Fix::ComputeBound(ComputeBoundFix::ChannelsLast));
    }
    // Only classes torch has a fused kernel for; their own name in the code.
    let fusable = run
        .optimizer_class
        .as_deref()
        .is_none_or(checkup_model::optimizer_supports_fused);
    if run.optimizer_runs && run.optimizer != Some(OptimizerImplementation::Fused) && fusable {
        out.push(Fix::ComputeBound(ComputeBoundFix::FusedOptimizer {
            class: run.optimizer_class.clone(),
        }));
    }
    out
}

/// Fixes for memory-bandwidth-bound kernels: fused elementwise work, bf16 activations,
/// fused library kernels.
pub fn memory_bandwidth() -> Vec<Fix> {
    vec![
        Fix::MemoryBandwidth(MemoryBandwidthFix::FuseElementwise),
        Fix::MemoryBandwidth(MemoryBandwidthFix::Bf16Activations),
        Fix::MemoryBandwidth(MemoryBandwidthFix::FusedKernels),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkup_model::{CompileCall, LoaderInfo, ModelInfo, OptimizerInfo};

    fn is_fused(f: &Fix) -> bool {
        matches!(f, Fix::ComputeBound(ComputeBoundFix::FusedOptimizer { .. }))
    }

    fn is_foreach(f: &Fix) -> bool {
        matches!(
            f,
            Fix::KernelLaunch(KernelLaunchFix::ForeachOptimizer { .. })
        )
    }

    #[test]
    fn a_line_that_copies_to_the_gpu_is_fixed_at_the_copy_not_read_back_less_often() {
        let line = |code: &str| SyncSite {
            file: "train.py".into(),
            line: 41,
            function: "train".into(),
            code: code.into(),
            count: 600,
            kinds: Default::default(),
        };
        let copy = line("x = x.cuda()");
        assert_eq!(
            host_sync(Some((&copy, 1.0))),
            vec![Fix::HostSync(HostSyncFix::AsyncCopyAtLine {
                site: copy.clone(),
                site_per_step: 1.0,
            })]
        );
        let item = line("total += loss.item()");
        assert!(matches!(
            host_sync(Some((&item, 1.0)))[..],
            [Fix::HostSync(HostSyncFix::FewerReadbacks {
                site: Some(_),
                ..
            })]
        ));
    }

    #[test]
    fn full_collections_are_fixed_where_the_loop_asks_for_them_else_by_freezing() {
        let gc = |calls: Option<&[u64]>, frozen_objects: u64| {
            let training = TrainingContext {
                gc_collect: calls.map(|counts| checkup_model::SyncSummary {
                    steps: Some([0, 1050]),
                    total: counts.iter().sum(),
                    per_step: None,
                    sites: counts
                        .iter()
                        .map(|&count| SyncSite {
                            file: "/work/train.py".into(),
                            line: 44,
                            function: "main".into(),
                            code: "gc.collect()".into(),
                            count,
                            kinds: Default::default(),
                        })
                        .collect(),
                }),
                settings: checkup_model::NumericSettings {
                    gc_frozen_objects: Some(frozen_objects),
                    ..Default::default()
                },
                ..Default::default()
            };
            let run = RunSettings::of(&RunFacts::default(), Some(&training), None, true);
            periodic_stall(
                false,
                Some(&PeriodicWork::GarbageCollection),
                &run,
                None,
                None,
            )
        };
        let stop = |frozen| {
            matches!(
                gc(Some(&[22]), if frozen { 165_459 } else { 375 })[..],
                [Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
                    site: Some(ref s),
                    frozen: f,
                })] if s.count == 22 && f == frozen
            )
        };
        // A line called again and again: stop it there, frozen or not (a library's 375
        // frozen objects are no freeze of the run's).
        assert!(stop(false));
        assert!(stop(true));
        let freeze = vec![Fix::PeriodicStall(PeriodicStallFix::FreezeGc {
            again_later: false,
        })];
        // Counted, and no line calls it more than at set-up: Python's own collections.
        assert_eq!(gc(Some(&[2]), 375), freeze);
        assert_eq!(gc(Some(&[]), 375), freeze);
        // Not counted (an older probe): freeze, or, frozen already, stop the calls.
        assert_eq!(gc(None, 375), freeze);
        assert_eq!(
            gc(None, 165_459),
            vec![Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
                site: None,
                frozen: true,
            })]
        );
        // Frozen, no calls: Python's own collections walk what was built after the freeze.
        assert_eq!(
            gc(Some(&[]), 165_459),
            vec![Fix::PeriodicStall(PeriodicStallFix::FreezeGc {
                again_later: true
            })]
        );
    }

    #[test]
    fn optimizer_fixes_name_the_runs_own_class_and_only_fuse_what_torch_can() {
        let sgd = RunSettings {
            optimizer_runs: true,
            optimizer_class: Some("SGD".into()),
            ..Default::default()
        };
        assert!(
            compute_bound(None, None, false, false, &sgd).contains(&Fix::ComputeBound(
                ComputeBoundFix::FusedOptimizer {
                    class: Some("SGD".into())
                }
            ))
        );
        let rmsprop = RunSettings {
            optimizer_class: Some("RMSprop".into()),
            ..sgd.clone()
        };
        assert!(!compute_bound(None, None, false, false, &rmsprop)
            .iter()
            .any(is_fused));
        assert!(kernel_launch(&rmsprop).contains(&Fix::KernelLaunch(
            KernelLaunchFix::ForeachOptimizer {
                class: Some("RMSprop".into())
            }
        )));
    }

    fn loader(workers: u32, pin: bool, persistent: bool) -> RunSettings {
        RunSettings {
            dataloader: Some(DataLoaderSettings {
                num_workers: Some(workers),
                pin_memory: Some(pin),
                persistent_workers: Some(persistent),
                prefetch_factor: None,
            }),
            optimizer_runs: true,
            ..Default::default()
        }
    }

    #[test]
    fn more_workers_quotes_the_current_count_and_leaves_two_cores() {
        assert_eq!(
            data_loading(&loader(2, true, true), false, Some(16), 1),
            vec![Fix::DataLoading(DataLoadingFix::MoreWorkers {
                suggested: 14,
                current: Some(2),
                host_cpus: Some(16),
            })]
        );
    }

    #[test]
    fn the_ranks_of_one_host_share_its_cores_out() {
        // 4 ranks on 16 cores: a core for each process and one for the system, 11 left.
        assert_eq!(
            data_loading(&loader(1, true, true), false, Some(16), 4),
            vec![Fix::DataLoading(DataLoadingFix::MoreWorkers {
                suggested: 2,
                current: Some(1),
                host_cpus: None,
            })]
        );
        // 8 ranks on 16 cores leave one worker each; 8 ranks on 128 cores, 14.
        assert!(matches!(
            data_loading(&loader(0, true, false), false, Some(16), 8)[0],
            Fix::DataLoading(DataLoadingFix::MoreWorkers { suggested: 1, .. })
        ));
        assert!(matches!(
            data_loading(&loader(2, true, true), false, Some(128), 8)[0],
            Fix::DataLoading(DataLoadingFix::MoreWorkers { suggested: 14, .. })
        ));
        // A rank that already has its share is told to make samples cheaper instead.
        assert!(matches!(
            data_loading(&loader(2, true, true), false, Some(16), 4)[0],
            Fix::DataLoading(DataLoadingFix::CheaperSamplesAtWorkerLimit { workers: 2 })
        ));
    }

    #[test]
    fn a_loader_with_as_many_workers_as_suggested_is_told_to_make_samples_cheaper() {
        let f = data_loading(&loader(14, true, true), false, Some(16), 1);
        // Not "the CPU is saturated": it is not; the workers are as many as they should be.
        assert_eq!(
            f,
            vec![Fix::DataLoading(
                DataLoadingFix::CheaperSamplesAtWorkerLimit { workers: 14 }
            )]
        );
    }

    #[test]
    fn workers_on_all_but_one_core_of_a_saturated_host_get_two_cores_back() {
        let f = data_loading(&loader(15, false, false), true, Some(16), 1);
        assert!(
            f.contains(&Fix::DataLoading(DataLoadingFix::LeaveCoresToLoop {
                workers: 15,
                cores: 16,
                suggested: 14,
                ranks: 1
            }))
        );
        assert!(!data_loading(&loader(14, false, false), true, Some(16), 1)
            .iter()
            .any(|f| matches!(f, Fix::DataLoading(DataLoadingFix::LeaveCoresToLoop { .. }))));
    }

    #[test]
    fn ranks_sharing_a_saturated_host_count_every_rank_s_workers() {
        let leave = |workers, ranks| {
            data_loading(&loader(workers, false, false), true, Some(16), ranks)
                .into_iter()
                .find(|f| matches!(f, Fix::DataLoading(DataLoadingFix::LeaveCoresToLoop { .. })))
        };
        // Four ranks × (3 workers + itself) fill the 16 cores: a core each for the four
        // training processes and one for the system leave 11, two workers each.
        assert_eq!(
            leave(3, 4),
            Some(Fix::DataLoading(DataLoadingFix::LeaveCoresToLoop {
                workers: 3,
                cores: 16,
                suggested: 2,
                ranks: 4
            }))
        );
        // Alone on the host, three workers leave cores to spare.
        assert_eq!(leave(3, 1), None);
        // Already at their share: nothing to take away.
        assert_eq!(leave(2, 4), None);
    }

    #[test]
    fn a_trace_without_an_optimizer_step_is_not_told_to_fuse_the_optimizer() {
        let inference = RunSettings::default();
        assert!(!kernel_launch(&inference).iter().any(is_foreach));
        assert!(!compute_bound(None, None, false, false, &inference)
            .iter()
            .any(is_fused));
        let training = RunSettings {
            optimizer_runs: true,
            ..Default::default()
        };
        assert!(kernel_launch(&training).iter().any(is_foreach));
    }

    #[test]
    fn waits_at_epoch_starts_keep_forked_workers_first_then_the_loader_across_epochs() {
        // Re-forked workers: keep them, then run across epochs; no "more workers".
        assert_eq!(
            epoch_start_waits(&loader(2, false, false)),
            vec![
                Fix::DataLoading(DataLoadingFix::PersistentWorkers),
                Fix::DataLoading(DataLoadingFix::LoaderAcrossEpochs { workers: Some(2) }),
                Fix::DataLoading(DataLoadingFix::PinMemory)
            ]
        );
        // Persistent and pinned already: only running across epochs is left to do.
        assert_eq!(
            epoch_start_waits(&loader(14, true, true)),
            vec![Fix::DataLoading(DataLoadingFix::LoaderAcrossEpochs {
                workers: Some(14)
            })]
        );
        // No workers: persistent_workers would be refused by torch.
        assert!(!epoch_start_waits(&loader(0, false, true))
            .contains(&Fix::DataLoading(DataLoadingFix::PersistentWorkers)));
    }

    #[test]
    fn persistent_workers_are_never_asked_of_a_loader_left_without_workers() {
        // A saturated host gets no more workers; torch refuses persistent_workers=True
        // with num_workers=0.
        let f = data_loading(&loader(0, false, false), true, Some(16), 1);
        assert!(
            !f.contains(&Fix::DataLoading(DataLoadingFix::PersistentWorkers)),
            "{f:?}"
        );
        // Told to add workers, it is told to keep them too.
        let f = data_loading(&loader(0, false, false), false, Some(16), 1);
        assert!(
            f.contains(&Fix::DataLoading(DataLoadingFix::PersistentWorkers)),
            "{f:?}"
        );
    }

    #[test]
    fn settings_already_made_are_not_suggested() {
        let f = data_loading(&loader(8, true, true), false, Some(32), 1);
        assert!(
            !f.contains(&Fix::DataLoading(DataLoadingFix::PinMemory))
                && !f.contains(&Fix::DataLoading(DataLoadingFix::PersistentWorkers))
        );
    }

    /// The probe's account of a compiled GPT with fused AdamW and no convolutions.
    fn compiled_gpt() -> TrainingContext {
        TrainingContext {
            optimizers: vec![OptimizerInfo {
                class: Some("AdamW".into()),
                implementation: Some(OptimizerImplementation::Fused),
                ..Default::default()
            }],
            compile: checkup_model::CompileInfo {
                calls: vec![CompileCall::default()],
                graphs: Some(1),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn a_compiled_model_with_a_fused_optimizer_is_not_told_to_compile_or_fuse() {
        let run = RunSettings::of(&RunFacts::default(), Some(&compiled_gpt()), None, true);
        let busy = compute_bound(None, None, false, true, &run);
        assert!(
            !busy.contains(&Fix::ComputeBound(ComputeBoundFix::Compile)),
            "{busy:?}"
        );
        assert!(!busy.iter().any(is_fused), "{busy:?}");
        let launch = kernel_launch(&run);
        assert!(
            !launch.contains(&Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels)),
            "{launch:?}"
        );
        assert!(!launch.iter().any(is_foreach), "{launch:?}");
        assert_eq!(
            launch[0],
            Fix::KernelLaunch(KernelLaunchFix::ReduceOverhead { current_mode: None })
        );
    }

    #[test]
    fn channels_last_is_suggested_only_for_costly_convolutions_not_yet_in_it() {
        let mut t = TrainingContext {
            model: Some(ModelInfo {
                conv_4d_inputs: 0,
                ..Default::default()
            }),
            ..Default::default()
        };
        let no_convs = RunSettings::of(&RunFacts::default(), Some(&t), None, true);
        assert!(!compute_bound(None, None, false, true, &no_convs)
            .contains(&Fix::ComputeBound(ComputeBoundFix::ChannelsLast)));
        t.model = Some(ModelInfo {
            conv_4d_inputs: 424,
            channels_last_inputs: 424,
            ..Default::default()
        });
        let already = RunSettings::of(&RunFacts::default(), Some(&t), None, true);
        assert!(!compute_bound(None, None, false, true, &already)
            .contains(&Fix::ComputeBound(ComputeBoundFix::ChannelsLast)));
        t.model = Some(ModelInfo {
            conv_4d_inputs: 160,
            channels_last_inputs: 0,
            ..Default::default()
        });
        let missing = RunSettings::of(&RunFacts::default(), Some(&t), None, true);
        assert!(compute_bound(None, None, false, true, &missing)
            .contains(&Fix::ComputeBound(ComputeBoundFix::ChannelsLast)));
        // Convolutions that are not among the trace's top kernels (an MLP-Mixer's one patch
        // embedding) are not worth a layout change.
        assert!(!compute_bound(None, None, false, false, &missing)
            .contains(&Fix::ComputeBound(ComputeBoundFix::ChannelsLast)));
    }

    #[test]
    fn the_probes_loader_gives_the_current_worker_count() {
        let t = TrainingContext {
            loaders: vec![LoaderInfo {
                num_workers: Some(2),
                persistent_workers: Some(false),
                pin_memory: Some(false),
                batches_fetched: 186,
                ..Default::default()
            }],
            ..Default::default()
        };
        let run = RunSettings::of(&RunFacts::default(), Some(&t), None, true);
        let f = data_loading(&run, false, Some(16), 1);
        assert_eq!(
            f[0],
            Fix::DataLoading(DataLoadingFix::MoreWorkers {
                suggested: 14,
                current: Some(2),
                host_cpus: Some(16),
            })
        );
        assert!(f.contains(&Fix::DataLoading(DataLoadingFix::PersistentWorkers)));
    }

    #[test]
    fn a_stall_at_each_epoch_start_gets_persistent_workers_not_a_checkpoint_fix() {
        let work = PeriodicWork::EpochStart {
            workers: 2,
            batches_per_epoch: Some(30),
        };
        assert_eq!(
            periodic_stall(false, Some(&work), &loader(2, false, false), None, None),
            vec![Fix::DataLoading(DataLoadingFix::PersistentWorkers)]
        );
        assert_eq!(
            periodic_stall(
                false,
                Some(&PeriodicWork::Checkpoint),
                &RunSettings::default(),
                None,
                None
            ),
            vec![Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint {
                checkpoint_seen: true,
                every_steps: None
            })]
        );
        // Writes that outlast the training between two saves: in the background and less
        // often; already in the background: less often only.
        let pace = CheckpointPace {
            every_steps: 280,
            write_ms: 4300.0,
        };
        assert_eq!(
            periodic_stall(
                true,
                Some(&PeriodicWork::Checkpoint),
                &RunSettings::default(),
                Some(pace),
                None
            ),
            vec![Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint {
                checkpoint_seen: true,
                every_steps: Some(280)
            })]
        );
        assert_eq!(
            periodic_stall(
                true,
                Some(&PeriodicWork::BackgroundCheckpoint),
                &RunSettings::default(),
                Some(pace),
                None
            ),
            vec![Fix::PeriodicStall(PeriodicStallFix::CheckpointLessOften {
                every_steps: 280,
                write_ms: 4300.0
            })]
        );
    }
}
