//! The input pipeline: the GPU waits for batches (trace, step timings), or for launches a
//! main thread starved of CPU by its own workers makes late.

use checkup_model::{
    Cause, DataLoading, DataLoadingEvidence, DataLoadingFix, EvidenceKey as K, Finding, FixReach,
    PeriodicStall, PeriodicWork, SharedCores, SharedEvidence, Source, Unit,
};

use crate::diagnosis::{ev, fixes, host_lines, host_saturation, share_ev, Ctx, Outcome, Whose};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    finding(cx).into()
}

fn finding(cx: &Ctx) -> Option<Finding> {
    let th = cx.th;
    let trace_share = cx
        .rank
        .and_then(|r| cx.share_of_window(r.host_waits.dataloader_us));
    let steps_share = cx.timing.map(|t| t.data_wait_share).filter(|s| *s > 0.0);
    // The trace tells GPU idle time spent waiting for data; steps.csv tells host time blocked
    // on data, which may overlap GPU work still queued. Prefer the trace, unless its window
    // is too short to represent an input pipeline whose waits come in bursts.
    let short_window = cx.rank.is_some_and(|r| r.steps.len() < th.min_trace_steps);
    // Host time blocked on data overlaps GPU work still queued by at most the GPU's busy
    // time per step; the rest of it the GPU idled for data. That lower bound speaks for the
    // unprofiled steps when the profiled ones caught the input queue full (a prefetch
    // queue not yet drained, a burst).
    // Step by step on the GPU's clock (`data_idle_share`) the bound holds for waits that come
    // in a few long ones, such as each epoch's first batch; both are lower bounds: the larger.
    let whole_run_idle = steps_share
        .zip(cx.gpu_busy())
        .map(|(s, (busy, _))| s - busy);
    let per_step_idle = cx.timing.and_then(|t| t.data_idle_share);
    let steps_idle = match (whole_run_idle, per_step_idle) {
        (Some(a), Some(b)) if b > a => Some((b, Source::StepsGpuClockPerStep)),
        (Some(a), _) => Some((a, Source::StepsWaitMinusBusy)),
        (None, b) => b.map(|b| (b, Source::StepsGpuClockPerStep)),
    }
    .filter(|(s, _)| *s > 0.0);
    let steps_idle_share = steps_idle.as_ref().map(|(s, _)| *s);
    let data_share = if short_window {
        steps_share.or(trace_share)
    } else {
        match (trace_share, steps_idle_share) {
            (Some(t), Some(s)) => Some(t.max(s)),
            (Some(t), None) => Some(t),
            (None, _) => steps_share,
        }
    };
    // When the pipeline's workers saturate the host, the main thread gets too little CPU
    // to launch kernels: the GPU's waits for launches are the pipeline's doing too.
    let saturation = host_saturation(cx);
    let whose = saturation.map(|s| s.whose);
    let starved_launch_share = if whose == Some(Whose::TheTraining) {
        cx.rank
            .and_then(|r| cx.share_of_window(r.host_waits.launch_us))
            .filter(|s| *s >= th.reportable_share)
    } else {
        None
    };
    if data_share.is_none() && starved_launch_share.is_none() {
        return None;
    }
    let mut share = data_share.unwrap_or(0.0) + starved_launch_share.unwrap_or(0.0);
    if starved_launch_share.is_some() {
        // The profiler slows the host side too: the GPU cannot wait longer than it idles
        // at unprofiled speed.
        if let Some((busy, _)) = cx.gpu_busy() {
            share = share.min(1.0 - busy);
        }
    }
    let share = share.min(1.0);
    if share < th.reportable_share {
        return None;
    }
    let significant = Some(th.significant_share);
    let mut evidence = Vec::new();
    if let Some(s) = trace_share {
        evidence.push(share_ev(
            K::DataLoading(DataLoadingEvidence::DataLoaderIdleShare),
            s,
            significant,
            cx.rank_source(),
        ));
    }
    if let Some((s, source)) = steps_idle.filter(|(s, _)| trace_share.is_some_and(|t| *s > t)) {
        evidence.push(share_ev(
            K::DataLoading(DataLoadingEvidence::UnprofiledDataIdleShare),
            s,
            significant,
            source,
        ));
    }
    if let Some(s) = starved_launch_share {
        evidence.push(share_ev(
            K::DataLoading(DataLoadingEvidence::StarvedLaunchIdleShare),
            s,
            Some(th.reportable_share),
            cx.rank_source(),
        ));
    }
    if let Some(t) = cx.timing {
        evidence.push(ev(
            K::DataLoading(DataLoadingEvidence::MeanDataWait),
            t.data_wait_share * t.mean_step_ms,
            Unit::Ms,
            None,
            Source::StepsCsvUnprofiled,
        ));
        evidence.push(ev(
            K::DataLoading(DataLoadingEvidence::MedianDataWait),
            t.median_data_wait_ms,
            Unit::Ms,
            None,
            Source::StepsCsvUnprofiled,
        ));
        evidence.push(share_ev(
            K::DataLoading(DataLoadingEvidence::DataWaitShare),
            t.data_wait_share,
            significant,
            Source::StepsCsvUnprofiled,
        ));
    }
    if let Some(u) = cx.gpu.and_then(|g| g.util_gpu_mean) {
        evidence.push(ev(
            K::DataLoading(DataLoadingEvidence::MeanGpuUtil),
            u,
            Unit::Percent,
            None,
            Source::NvmlSamples,
        ));
    }
    if let Some(h) = cx.a.host.as_ref() {
        if let Some(c) = h.cpu_total_mean {
            evidence.push(ev(
                K::Shared(SharedEvidence::HostCpu),
                c,
                Unit::Percent,
                Some((
                    checkup_model::Comparison::AtLeast,
                    th.host_cpu_saturated_pct,
                )),
                Source::HostSamples,
            ));
        }
        if let Some(p) = h.proc_tree_cpu_mean {
            evidence.push(ev(
                K::Shared(SharedEvidence::TrainingTreeCpu),
                p,
                Unit::Percent,
                None,
                Source::HostSamples,
            ));
        }
    }
    let run = cx.run_settings();
    // Most of the GPU's idle time for data at epoch starts (the probe's markers): the cost
    // is each epoch's first batches, not a loader too slow for every step.
    let at_epoch_starts = cx
        .timing
        .and_then(|t| Some((t.epoch_start_idle.as_ref()?, t.data_idle_share?, t)))
        .filter(|(e, idle, t)| {
            e.epochs > 0 && e.idle_ms >= 0.5 * idle * t.mean_step_ms * t.steady_steps as f64
        })
        .map(|(e, _, _)| e.idle_ms / f64::from(e.epochs));
    if let Some(ms) = at_epoch_starts {
        evidence.push(ev(
            K::DataLoading(DataLoadingEvidence::IdlePerEpochStart),
            ms,
            Unit::Ms,
            None,
            Source::StepsGpuClockPerStep,
        ));
    }
    if let Some(w) = run.dataloader.as_ref().and_then(|d| d.num_workers) {
        let from = if cx.facts.dataloader.is_some() {
            Source::MetaJson
        } else {
            Source::Probe
        };
        evidence.push(ev(
            K::DataLoading(DataLoadingEvidence::NumWorkers),
            w as f64,
            Unit::Workers,
            None,
            from,
        ));
    }
    let cause = match saturation {
        Some(s) if s.whose == Whose::Others => Cause::DataLoading(DataLoading::CpuContention {
            host_cpu_pct: s.total_pct,
            training_cores: s.training_cores,
        }),
        Some(s) => Cause::DataLoading(DataLoading::CpuSaturated {
            host_cpu_pct: s.total_pct,
            training_cores: s.training_cores,
            launch_wait_share: starved_launch_share,
            hot_lines: host_lines::of_loader(cx.training, cx.th),
        }),
        None => Cause::DataLoading(DataLoading::SlowLoader {
            data_wait_ms: cx.timing.map(|t| t.data_wait_share * t.mean_step_ms),
            step_ms: cx.timing.map(|t| t.mean_step_ms),
            idle_per_epoch_start_ms: at_epoch_starts,
            epoch_start_idle_ms_per_step: cx
                .timing
                .and_then(|t| Some((t.epoch_start_idle.as_ref()?, t.steady_steps)))
                .filter(|(e, steps)| e.epochs > 0 && *steps > 0)
                .map(|(e, steps)| e.idle_ms / steps as f64),
            hot_lines: host_lines::of_loader(cx.training, cx.th),
        }),
    };
    let fixes = match whose {
        Some(Whose::Others) => fixes::cpu_contention(),
        _ if at_epoch_starts.is_some() => fixes::epoch_start_waits(&run),
        _ => fixes::data_loading(
            &run,
            whose.is_some(),
            cx.facts.host_cpus,
            cx.rank.map_or(1, |r| cx.facts.ranks_on_host_of(r.rank)),
        ),
    };
    Some(Finding {
        gains: Default::default(),
        cause,
        severity: cx.severity(share),
        confidence: if trace_share.is_some() && steps_share.is_some() {
            confidence::CORROBORATED
        } else {
            confidence::INDIRECT
        },
        share,
        evidence,
        fixes,
    })
}

/// What part of `finding`'s lost time an input-pipeline fix removes: persistent workers
/// remove the epoch-start waits they are offered for, but only support more workers against
/// a slow loader; more workers remove all but each epoch's first-batch wait, or less where
/// even at their best they stay slower than the loop; pinned memory and cores left to the
/// loop support the others.
pub fn reach(fix: &DataLoadingFix, finding: &Finding) -> FixReach {
    let at_epoch_starts = matches!(
        finding.cause,
        Cause::DataLoading(DataLoading::SlowLoader {
            idle_per_epoch_start_ms: Some(_),
            ..
        }) | Cause::PeriodicStall(PeriodicStall::Stalls {
            work: Some(PeriodicWork::EpochStart { .. }),
            ..
        })
    );
    match fix {
        // Workers that even at their best stay slower than the loop set the step. Otherwise
        // each epoch's first batch still waits for its workers to start and make it, however
        // many there are (more start slower, if anything): that idle stays.
        DataLoadingFix::MoreWorkers {
            suggested,
            current,
            host_cpus,
        } => current
            .and_then(|current| workers_pace(finding, current, *suggested, *host_cpus))
            .unwrap_or_else(|| match finding.cause {
                Cause::DataLoading(DataLoading::SlowLoader {
                    step_ms: Some(step),
                    epoch_start_idle_ms_per_step: Some(kept),
                    ..
                }) if kept > 0.0 && finding.share * step > 0.0 => FixReach::OutsideEpochStarts(
                    (1.0 - kept / (finding.share * step)).clamp(0.0, 1.0),
                ),
                _ => FixReach::Cause,
            }),
        DataLoadingFix::CheaperSamples
        | DataLoadingFix::CheaperSamplesAtWorkerLimit { .. }
        | DataLoadingFix::LoaderAcrossEpochs { .. } => FixReach::Cause,
        DataLoadingFix::PersistentWorkers if at_epoch_starts => FixReach::Cause,
        DataLoadingFix::PersistentWorkers
        | DataLoadingFix::LeaveCoresToLoop { .. }
        | DataLoadingFix::PinMemory => FixReach::Supporting,
    }
}

/// More workers priced at their pace when it, not the loop, would still set the step. A
/// loader that keeps the loop waiting makes a batch every step: outside each epoch's first
/// batch, every `step − kept` ms with `current` workers. `suggested` workers, each as fast
/// (the best case: they share the host's cores and the main process that receives their
/// batches), make one every `(step − kept) × current / suggested` ms. Where that is still
/// longer than the loop's own time per step (`step − wait`), the step waits for them and
/// only the rest of the wait goes; on a host of `host_cpus` logical CPUs, the slow end is
/// each worker at the pace of cores shared two threads to one ([`shared_cores_pace`]).
/// None where the workers would outrun the loop (all of the wait outside epoch starts
/// goes) or without the step, the wait or workers to scale.
fn workers_pace(
    finding: &Finding,
    current: u32,
    suggested: u32,
    host_cpus: Option<u32>,
) -> Option<FixReach> {
    let Cause::DataLoading(DataLoading::SlowLoader {
        data_wait_ms: Some(wait),
        step_ms: Some(step),
        epoch_start_idle_ms_per_step: kept,
        ..
    }) = finding.cause
    else {
        return None;
    };
    let kept = kept.unwrap_or(0.0).max(0.0);
    let lost = finding.share * step;
    if current == 0 || suggested <= current || lost <= 0.0 || wait <= 0.0 || step <= kept {
        return None;
    }
    let loop_ms = (step - wait).max(0.0);
    let batch_ms_now = step - kept;
    let batch_ms_after = batch_ms_now * f64::from(current) / f64::from(suggested);
    if batch_ms_after <= loop_ms {
        return None;
    }
    // The step comes to the workers' pace plus each epoch's first-batch wait.
    let part_at = |batch_ms: f64, kept: f64| {
        let saved = step - (batch_ms.max(loop_ms) + kept);
        (saved / lost).clamp(0.0, 1.0)
    };
    let part = part_at(batch_ms_after, kept);
    let if_cores_shared = host_cpus.and_then(|cpus| {
        // Against the pace the run's own workers had on the same host.
        let pace = shared_cores_pace(cpus, suggested + 1) / shared_cores_pace(cpus, current + 1);
        (pace < 1.0).then(|| {
            let batch_ms = batch_ms_after / pace;
            // Each epoch's first batch is made by one worker, at that pace too.
            SharedCores {
                host_cpus: cpus,
                pace,
                batch_ms,
                part: part_at(batch_ms, kept / pace).min(part),
            }
        })
    });
    Some(FixReach::WorkersPace {
        part,
        workers_now: current,
        batch_ms_now,
        workers_after: suggested,
        batch_ms_after,
        if_cores_shared,
    })
}

/// What a core's second hardware thread adds while both run: two threads on one core do
/// about 1.25 times the work of one (the vendors' figures for SMT run 1.15–1.3).
const SECOND_THREAD_ADDS: f64 = 0.25;

/// Each of `busy` CPU-bound processes' pace against a core of its own, on a host of `cpus`
/// logical CPUs taken as two hardware threads to a core: a cloud VM's vCPUs usually are,
/// though the VM shows each as a core (on the 16-vCPU H100 host this project borrows, which
/// reports one thread per core, 14 busy processes each ran at 0.72 of one alone, 16 at
/// 0.78). Up to one process a core, each runs alone; past that, the second threads add a
/// quarter of a core each, shared among all; past the logical CPUs, they take turns.
fn shared_cores_pace(cpus: u32, busy: u32) -> f64 {
    let cores = f64::from((cpus / 2).max(1));
    let busy_f = f64::from(busy.max(1));
    if busy_f <= cores {
        return 1.0;
    }
    let threads = busy_f.min(f64::from(cpus.max(1)));
    (cores + (threads - cores) * SECOND_THREAD_ADDS) / busy_f
}
