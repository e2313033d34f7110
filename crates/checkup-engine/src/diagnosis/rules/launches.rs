//! Kernel launch overhead: the GPU waits for the host to launch work, checked against the
//! unprofiled steps (the profiler slows the host side) and against a saturated host. When
//! the training ran with `CUDA_LAUNCH_BLOCKING=1`, the launches wait because of it, and that
//! is the finding.

use checkup_model::{
    BusyMethod, Cause, Comparison, CompileFloor, EvidenceKey as K, Finding, Fix, FixReach,
    HostSyncEvidence, KernelLaunch, KernelLaunchEvidence, KernelLaunchFix, LaunchlessHostWork,
    Note, RankSummary, SharedEvidence, Source, ThreadRole, Unit,
};

use super::allocator::allocator_drains_queue;
use super::sync::sync_drains_queue;
use crate::diagnosis::{ev, fixes, host_lines, host_saturation, share_ev, Ctx, Outcome, Whose};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    let Some(r) = cx.rank else {
        return Outcome::default();
    };
    if let Some(f) = synchronous_launches(cx, r) {
        return Some(f).into();
    }
    if let Some(f) = anomaly_detection(cx, r) {
        return Some(f).into();
    }
    if let Some(f) = interpreter_held(cx, r) {
        return Some(f).into();
    }
    // A host that takes a millisecond or more per launch is not launching: it is held or
    // blocked, and no fewer or fused kernels would help. Without the process's CPU to say
    // which, the GPU's idle time is left to the idle finding, which says what to record.
    if host_ms_per_kernel(cx, r).is_some_and(|ms| ms >= cx.th.held_host_ms_per_kernel) {
        return Outcome::default();
    }
    let th = cx.th;
    let Some(trace_share) = cx.share_of_window(r.host_waits.launch_us) else {
        return Outcome::default();
    };
    // With the host saturated by the training's own workers, launches are late for want of
    // CPU, not because the kernels are tiny: the input pipeline finding carries that wait.
    let saturation = host_saturation(cx);
    if trace_share < th.reportable_share
        || sync_drains_queue(cx)
        || allocator_drains_queue(cx)
        || saturation.is_some_and(|s| s.whose == Whose::TheTraining)
    {
        return Outcome::default();
    }
    let k = &r.kernels;
    let src = cx.rank_source();
    let mut share = trace_share;
    let mut sure = confidence::MEASURED;
    let mut evidence = vec![
        share_ev(
            K::KernelLaunch(KernelLaunchEvidence::LaunchIdleShare),
            trace_share,
            Some(th.significant_share),
            src.clone(),
        ),
        ev(
            K::KernelLaunch(KernelLaunchEvidence::KernelsPerStep),
            k.per_step,
            Unit::Kernels,
            None,
            src.clone(),
        ),
        ev(
            K::KernelLaunch(KernelLaunchEvidence::MedianKernel),
            k.median_us,
            Unit::Us,
            Some((Comparison::AtMost, th.tiny_kernel_us)),
            src.clone(),
        ),
        share_ev(
            K::KernelLaunch(KernelLaunchEvidence::TinyKernelShare),
            k.share_under_10us,
            None,
            src.clone(),
        ),
    ];
    // The profiler slows the host side; check the claim against unprofiled steps. The
    // trace holds a few early steps; GPU-Util holds them all: a GPU whose work grows as the
    // run goes is busier than the profiled steps show and cannot wait for launches longer
    // than it idles.
    let sampled_busy = cx
        .gpu
        .and_then(|g| g.util_gpu_mean)
        .map(|u| u / 100.0 - th.util_over_busy);
    let busy = match (cx.gpu_busy(), sampled_busy) {
        (Some((b, _)), Some(s)) if s > b => Some((s, BusyMethod::SampledGpuUtil)),
        (b, _) => b,
    };
    if let Some((busy, method)) = busy {
        evidence.push(ev(
            K::Shared(SharedEvidence::UnprofiledBusyShare),
            busy * 100.0,
            Unit::Percent,
            Some((Comparison::AtMost, th.gpu_busy_high * 100.0)),
            Source::Busy { method },
        ));
        if busy >= th.gpu_busy_high {
            return Outcome {
                findings: Vec::new(),
                notes: vec![Note::ProfilerOverheadLaunches {
                    launch_share: trace_share,
                    busy_share: busy,
                }],
            };
        }
        // Launch gaps cost their share of the normal steps only: periodic stalls (a
        // checkpoint every N steps) are time the launches do not explain, and neither is
        // the GPU's idle time the steps spent waiting for data (each epoch's first batch).
        share = cx.idle_share_at_unprofiled_speed(share, busy);
        sure = confidence::CORROBORATED;
        // Syncs in every step leave the GPU idle too, and the sync finding costs that part
        // at unprofiled speed: the launches keep only what the host's own work adds beyond
        // the GPU's.
        // So do copies from pageable memory, which hold the host until they are done; the
        // copy finding costs that part the same way.
        let held = [
            super::sync::unprofiled_syncs(cx).map(|s| s.share),
            super::copies::held_by_pageable_copies(cx).map(|h| h.share),
        ];
        if held.iter().any(Option::is_some) {
            share = (share - held.iter().flatten().sum::<f64>()).max(0.0);
            if share < th.reportable_share {
                return Outcome::default();
            }
        }
    }
    if let Some(t) = cx.timing {
        evidence.push(ev(
            K::KernelLaunch(KernelLaunchEvidence::UnprofiledStepTime),
            t.mean_step_ms,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ));
        evidence.push(ev(
            K::KernelLaunch(KernelLaunchEvidence::ProfiledStepTime),
            r.profiled_step_us / 1e3,
            Unit::Ms,
            None,
            src.clone(),
        ));
    }
    if let Some(g) = cx.gpu {
        if let (Some(u), Some(sm)) = (g.util_gpu_mean, g.sm_active_mean) {
            evidence.push(ev(
                K::KernelLaunch(KernelLaunchEvidence::GpuUtil),
                u,
                Unit::Percent,
                None,
                Source::NvmlSamples,
            ));
            evidence.push(ev(
                K::Shared(SharedEvidence::SmActive),
                sm,
                Unit::Percent,
                None,
                Source::GpmSamples,
            ));
        }
    }
    if let Some(p) = cx.a.host.as_ref().and_then(|h| h.proc_tree_cpu_mean) {
        evidence.push(ev(
            K::Shared(SharedEvidence::TrainingProcessCpu),
            p,
            Unit::Percent,
            None,
            Source::HostSamples,
        ));
    }
    // Other jobs holding the host's cores delay the loop's launches whatever the kernels:
    // the cause to fix is the contention, not the kernel sizes.
    let (cause, fixes) = match saturation.filter(|s| s.whose == Whose::Others) {
        Some(s) => {
            evidence.push(ev(
                K::Shared(SharedEvidence::HostCpu),
                s.total_pct,
                Unit::Percent,
                Some((Comparison::AtLeast, th.host_cpu_saturated_pct)),
                Source::HostSamples,
            ));
            // Fewer launches per step need less CPU time, which helps on a busy host too.
            let mut f = fixes::cpu_contention();
            f.extend(fixes::kernel_launch(&cx.run_settings()).into_iter().take(1));
            (
                Cause::KernelLaunch(KernelLaunch::CpuContention {
                    host_cpu_pct: s.total_pct,
                    training_cores: s.training_cores,
                }),
                f,
            )
        }
        None => {
            let run = cx.run_settings();
            // A compiled model's runtime does its own bookkeeping in Python between graph
            // replays, which launches nothing and which the trace cannot tell from the
            // training's own work: only an eager loop's quiet host is the training's.
            let launchless = (run.compiled.is_none() && !run.cuda_graphs)
                .then(|| launchless_host_work(cx, r, share))
                .flatten();
            let mut f = fixes::kernel_launch(&run);
            if let Some(w) = launchless {
                evidence.push(ev(
                    K::KernelLaunch(KernelLaunchEvidence::LaunchlessHostPerStep),
                    w.ms_per_step,
                    Unit::Ms,
                    None,
                    src.clone(),
                ));
                // Most of the wait launching nothing: that work is the first thing to move.
                let at = if w.share * 2.0 >= share {
                    0
                } else {
                    f.len().min(1)
                };
                f.insert(at, Fix::KernelLaunch(KernelLaunchFix::HostWorkOffStep));
            }
            (
                Cause::KernelLaunch(KernelLaunch::TinyKernels {
                    kernels_per_step: k.per_step,
                    median_kernel_us: k.median_us,
                    hot_lines: host_lines::of_role(cx.training, ThreadRole::Training, cx.th),
                    compile_floor: compile_floor(cx, r, launchless.map_or(0.0, |w| w.ms_per_step)),
                    launchless,
                }),
                f,
            )
        }
    };
    Some(Finding {
        gains: Default::default(),
        cause,
        severity: cx.severity(share),
        confidence: sure,
        share,
        evidence,
        fixes,
    })
    .into()
}

/// Whether the training ran with `CUDA_LAUNCH_BLOCKING=1`, as the probe listed its
/// settings, else as the agent recorded its environment (CUDA reads `1` as on).
pub fn launch_blocking(cx: &Ctx) -> bool {
    cx.training
        .and_then(|t| t.settings.cuda_launch_blocking.as_deref())
        .or_else(|| {
            cx.facts
                .env
                .get("CUDA_LAUNCH_BLOCKING")
                .and_then(|v| v.as_deref())
        })
        .is_some_and(|v| v.trim() == "1")
}

/// A step in which the host and the GPU take turns (a debugging setting makes the host wait
/// for each kernel or operation): the step is the host's own time plus the GPU's work; with
/// the setting gone the host runs ahead and a step takes the larger of the two, and the
/// rest, `share` of the step, is lost.
struct Turns {
    step_ms: f64,
    gpu_busy_ms: f64,
    host_ms: f64,
    share: f64,
}

impl Turns {
    /// The turns of the diagnosed rank's unprofiled steps; None without step or GPU time.
    fn of(cx: &Ctx, r: &RankSummary) -> Option<Turns> {
        let step_ms = cx.timing?.mean_step_ms;
        let gpu_busy_ms = r.gpu_busy_per_step_us / 1e3;
        if !(step_ms > 0.0 && gpu_busy_ms > 0.0) {
            return None;
        }
        let host_ms = (step_ms - gpu_busy_ms).max(0.0);
        let after_ms = gpu_busy_ms.max(host_ms);
        Some(Turns {
            step_ms,
            gpu_busy_ms,
            host_ms,
            share: ((step_ms - after_ms) / step_ms).clamp(0.0, 1.0),
        })
    }

    /// The finding of a setting that makes host and GPU take turns: `cause` from the step,
    /// the GPU's work and the host's turn; its share what running ahead would save.
    fn finding(
        self,
        cx: &Ctx,
        evidence: Vec<checkup_model::Evidence>,
        cause: impl FnOnce(f64, f64, f64) -> KernelLaunch,
        fix: KernelLaunchFix,
    ) -> Finding {
        Finding {
            gains: Default::default(),
            cause: Cause::KernelLaunch(cause(self.step_ms, self.gpu_busy_ms, self.host_ms)),
            severity: cx.severity(self.share),
            confidence: confidence::CORROBORATED,
            share: self.share,
            evidence,
            fixes: vec![Fix::KernelLaunch(fix)],
        }
    }

    /// The setting seen on (`setting`, a flag), then the step, the GPU's work and the
    /// host's turn.
    fn evidence(&self, cx: &Ctx, setting: KernelLaunchEvidence) -> Vec<checkup_model::Evidence> {
        vec![
            ev(
                K::KernelLaunch(setting),
                1.0,
                Unit::Flag,
                None,
                Source::Probe,
            ),
            ev(
                K::KernelLaunch(KernelLaunchEvidence::UnprofiledStepTime),
                self.step_ms,
                Unit::Ms,
                None,
                Source::StepsCsv,
            ),
            ev(
                K::HostSync(HostSyncEvidence::GpuBusyPerStep),
                self.gpu_busy_ms,
                Unit::Ms,
                None,
                cx.rank_source(),
            ),
            ev(
                K::KernelLaunch(KernelLaunchEvidence::HostTurnPerStep),
                self.host_ms,
                Unit::Ms,
                None,
                Source::ThisDiagnosis,
            ),
        ]
    }
}

/// Whether the probe saw autograd's anomaly detection on.
pub fn anomaly_detection_on(cx: &Ctx) -> bool {
    cx.training
        .is_some_and(|t| t.settings.anomaly_detection == Some(true))
}

/// Anomaly detection keeps a Python traceback for every forward operation and, with its NaN
/// check, reads a flag back from the GPU after every backward operation: the host waits for
/// the GPU node by node, so the two take turns as with blocking launches ([`Turns`]). With
/// the setting gone the step is at most the larger of the host's time and the GPU's, and the
/// host's time shrinks too (no tracebacks, no checks), which the recording cannot say by how
/// much: the fix's gain is a range from that down to the GPU's own time.
fn anomaly_detection(cx: &Ctx, r: &RankSummary) -> Option<Finding> {
    if !anomaly_detection_on(cx) {
        return None;
    }
    let check_nan = cx
        .training
        .is_some_and(|t| t.settings.anomaly_check_nan != Some(false));
    let turns = Turns::of(cx, r)?;
    let mut evidence = turns.evidence(cx, KernelLaunchEvidence::AnomalyDetectionOn);
    evidence.push(ev(
        K::HostSync(HostSyncEvidence::SyncCallsPerStep),
        r.host_waits.sync_calls_per_step,
        Unit::Calls,
        None,
        cx.rank_source(),
    ));
    Some(turns.finding(
        cx,
        evidence,
        |step_ms, gpu_busy_ms, host_ms| KernelLaunch::AnomalyDetection {
            step_ms,
            gpu_busy_ms,
            host_ms,
            check_nan,
        },
        KernelLaunchFix::DisableAnomalyDetection,
    ))
}

/// With every launch waiting for its kernel, the host and the GPU take turns ([`Turns`]).
/// Costed for every run that has the setting, so one that costs little is shown as such.
fn synchronous_launches(cx: &Ctx, r: &RankSummary) -> Option<Finding> {
    if !launch_blocking(cx) {
        return None;
    }
    let turns = Turns::of(cx, r)?;
    let evidence = turns.evidence(cx, KernelLaunchEvidence::LaunchBlockingSet);
    Some(turns.finding(
        cx,
        evidence,
        |step_ms, gpu_busy_ms, host_ms| KernelLaunch::SynchronousLaunches {
            step_ms,
            gpu_busy_ms,
            host_ms,
        },
        KernelLaunchFix::UnsetLaunchBlocking,
    ))
}

/// The training thread held between its operations by another thread of its process: it
/// spends far longer in the model's calls per kernel than launching costs, while its process
/// keeps a core busy (the holder computing) and the host is not saturated by others (that
/// is CPU contention). Everything but the GPU's own work is the hold's: with the interpreter
/// free, a step of so few launches falls to the GPU's time.
fn interpreter_held(cx: &Ctx, r: &RankSummary) -> Option<Finding> {
    let th = cx.th;
    let t = cx.timing?;
    let kernels = r.kernels.per_step;
    let per_kernel_ms = host_ms_per_kernel(cx, r)?;
    let process_cpu = cx.a.host.as_ref()?.proc_tree_cpu_mean?;
    if per_kernel_ms < th.held_host_ms_per_kernel
        || process_cpu < th.holder_process_cpu_pct
        || host_saturation(cx).is_some_and(|s| s.whose == Whose::Others)
    {
        return None;
    }
    let gpu_busy_ms = r.gpu_busy_per_step_us / 1e3;
    let share = ((t.mean_step_ms - gpu_busy_ms) / t.mean_step_ms).clamp(0.0, 1.0);
    let evidence = vec![
        ev(
            K::KernelLaunch(KernelLaunchEvidence::HostTimePerKernel),
            per_kernel_ms,
            Unit::Ms,
            Some((Comparison::AtLeast, th.held_host_ms_per_kernel)),
            Source::StepsCsv,
        ),
        ev(
            K::KernelLaunch(KernelLaunchEvidence::KernelsPerStep),
            kernels,
            Unit::Kernels,
            None,
            cx.rank_source(),
        ),
        ev(
            K::Shared(SharedEvidence::TrainingProcessCpu),
            process_cpu,
            Unit::Percent,
            Some((Comparison::AtLeast, th.holder_process_cpu_pct)),
            Source::HostSamples,
        ),
        ev(
            K::KernelLaunch(KernelLaunchEvidence::UnprofiledStepTime),
            t.mean_step_ms,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ),
        ev(
            K::HostSync(HostSyncEvidence::GpuBusyPerStep),
            gpu_busy_ms,
            Unit::Ms,
            None,
            cx.rank_source(),
        ),
    ];
    Some(Finding {
        gains: Default::default(),
        cause: Cause::KernelLaunch(KernelLaunch::InterpreterHeld {
            host_ms_per_kernel: per_kernel_ms,
            process_cpu_pct: process_cpu,
            hot_lines: host_lines::of_role(cx.training, ThreadRole::Thread, cx.th),
        }),
        severity: cx.severity(share),
        confidence: confidence::CORROBORATED,
        share,
        evidence,
        fixes: vec![Fix::KernelLaunch(KernelLaunchFix::FreeInterpreter)],
    })
}

/// The launch wait's part in which the host made no CUDA call for a millisecond or more,
/// per step: that work makes no PyTorch call for the profiler to slow, so the profiled
/// window's share of it times the profiled step is its time in an unprofiled step too, at
/// most the launch wait's `launch_share` of it. None under a reportable share of the step.
fn launchless_host_work(
    cx: &Ctx,
    r: &RankSummary,
    launch_share: f64,
) -> Option<LaunchlessHostWork> {
    let profiled_ms = cx.share_of_window(r.host_waits.launchless_us)? * r.profiled_step_us / 1e3;
    let step = cx
        .timing
        .map(|t| t.mean_step_ms)
        .filter(|s| *s > 0.0)
        .unwrap_or(r.profiled_step_us / 1e3);
    if step <= 0.0 {
        return None;
    }
    let share = (profiled_ms / step).min(launch_share);
    (share >= cx.th.reportable_share).then_some(LaunchlessHostWork {
        ms_per_step: share * step,
        share,
    })
}

/// What compiling the model leaves of the step (see [`CompileFloor`]), at unprofiled speed:
/// the longer of the GPU's work and the eager optimizer's host time, plus two launches' host
/// time per read-back and the host's work that launches nothing (`launchless_ms`). None
/// without unprofiled timings, or with none of the three.
fn compile_floor(cx: &Ctx, r: &RankSummary, launchless_ms: f64) -> Option<CompileFloor> {
    let read_backs = r.host_waits.sync_calls_per_step;
    let optimizer = r.kernels.optimizer_per_step;
    let step = cx.timing?.mean_step_ms;
    let per_kernel = host_ms_per_kernel(cx, r)?;
    if step <= 0.0 || (read_backs < 1.0 && optimizer < 1.0 && launchless_ms <= 0.0) {
        return None;
    }
    // The optimizer's host time: its share of the profiled step (the profiler slows the
    // whole host side alike), else its kernels at the step's mean host time per launch (an
    // optimizer's bare tensor calls cost less each than the model's module calls).
    let optimizer_ms = if r.profiled_step_us > 0.0 && r.kernels.optimizer_host_us_per_step > 0.0 {
        step * (r.kernels.optimizer_host_us_per_step / r.profiled_step_us).min(1.0)
    } else {
        optimizer * per_kernel
    };
    let gpu = r.gpu_busy_per_step_us / 1e3;
    let floor = gpu.max(optimizer_ms) + read_backs * 2.0 * per_kernel + launchless_ms;
    Some(CompileFloor {
        read_backs_per_step: read_backs,
        optimizer_kernels_per_step: optimizer,
        floor_share: (floor / step).min(1.0),
        optimizer_share: (optimizer_ms / step).min(1.0),
    })
}

/// The host's time in the model's calls per kernel launched, on the unprofiled steps.
fn host_ms_per_kernel(cx: &Ctx, r: &RankSummary) -> Option<f64> {
    let t = cx.timing?;
    let kernels = r.kernels.per_step;
    (kernels >= 1.0 && t.mean_step_ms > 0.0).then(|| t.median_launch_ms / kernels)
}

/// What part of `finding`'s lost time a launch fix removes: compiling fuses the launches
/// away, and launches queued again overlap the host with the GPU; foreach optimizers and
/// bigger kernels support it.
pub fn reach(fix: &KernelLaunchFix, finding: &Finding) -> FixReach {
    match fix {
        // Fusing or replaying the model's launches leaves the eager optimizer's and each
        // read-back's turn of host and GPU.
        KernelLaunchFix::CompileFuseKernels | KernelLaunchFix::ReduceOverhead { .. } => {
            match finding.cause {
                Cause::KernelLaunch(KernelLaunch::TinyKernels {
                    compile_floor: Some(CompileFloor { floor_share, .. }),
                    ..
                }) if finding.share > 0.0 && floor_share > 1.0 - finding.share => {
                    FixReach::CompiledPart(((1.0 - floor_share) / finding.share).max(0.0))
                }
                _ => FixReach::Cause,
            }
        }
        // Blocking launches cost the host what they cost without the setting: only the turns
        // go. Anomaly detection's tracebacks and NaN checks are host work that goes too.
        KernelLaunchFix::UnsetLaunchBlocking | KernelLaunchFix::FreeInterpreter => FixReach::Cause,
        KernelLaunchFix::DisableAnomalyDetection => FixReach::CauseAndAddedHostWork,
        // Taking out the work that launches nothing removes the wait it made, no more.
        KernelLaunchFix::HostWorkOffStep => match finding.cause {
            Cause::KernelLaunch(KernelLaunch::TinyKernels {
                launchless: Some(LaunchlessHostWork { share, .. }),
                ..
            }) if finding.share > 0.0 => {
                FixReach::HostWorkWithoutLaunches((share / finding.share).min(1.0))
            }
            _ => FixReach::Supporting,
        },
        // A fused or multi-tensor optimizer takes the host's launches of the per-parameter
        // kernels away (what it launches instead is a few kernels in all).
        KernelLaunchFix::ForeachOptimizer { .. } => match finding.cause {
            Cause::KernelLaunch(KernelLaunch::TinyKernels {
                compile_floor:
                    Some(CompileFloor {
                        optimizer_share, ..
                    }),
                ..
            }) if finding.share > 0.0 && optimizer_share > 0.0 => {
                FixReach::OptimizerLaunches((optimizer_share / finding.share).min(1.0))
            }
            _ => FixReach::Supporting,
        },
        KernelLaunchFix::BiggerKernels => FixReach::Supporting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::{rank_with_waits, Fixture};
    use checkup_model::StepTiming;

    fn launch_bound(busy_per_step_us: f64) -> Fixture {
        let mut r = rank_with_waits(10_000.0);
        r.host_waits.launch_us = 6_000.0;
        r.gpu_busy_per_step_us = busy_per_step_us;
        Fixture::with_rank(r).timing(StepTiming {
            mean_step_ms: 10.0,
            ..Default::default()
        })
    }

    #[test]
    fn launch_waits_are_capped_by_the_gpus_idle_time_at_unprofiled_speed() {
        // 60 % launch wait in the trace, but unprofiled the GPU is busy 70 % of a step.
        let out = rule(&launch_bound(7_000.0).cx(), &[]);
        let f = &out.findings[0];
        assert_eq!(f.id(), "kernel_launch");
        assert!((f.share - 0.3).abs() < 1e-9, "{}", f.share);
    }

    #[test]
    fn a_gpu_busy_at_unprofiled_speed_makes_the_launch_wait_a_note_not_a_finding() {
        // 85 % busy is the boundary: the GPU is the limit.
        let out = rule(&launch_bound(8_500.0).cx(), &[]);
        assert!(out.findings.is_empty());
        assert!(matches!(
            out.notes[..],
            [Note::ProfilerOverheadLaunches { .. }]
        ));
        assert_eq!(rule(&launch_bound(8_499.0).cx(), &[]).findings.len(), 1);
    }

    /// A run whose probe listed `CUDA_LAUNCH_BLOCKING` as `value`: `step_ms` per unprofiled
    /// step, `busy_ms` of GPU work per step.
    fn with_launch_blocking(value: &str, step_ms: f64, busy_ms: f64) -> Fixture {
        let mut fx = launch_bound(busy_ms * 1e3);
        fx.a.step_timing[0].mean_step_ms = step_ms;
        let mut t = checkup_model::TrainingContext::default();
        t.settings.cuda_launch_blocking = Some(value.into());
        fx.a.training.insert(0, t);
        fx
    }

    #[test]
    fn synchronous_launches_cost_the_turns_the_host_and_gpu_take() {
        // The audio ConvNet under CUDA_LAUNCH_BLOCKING=1: 47.1 ms a step, 27.5 ms of it GPU
        // work; queued again, the GPU's 27.5 ms is the longer part.
        let out = rule(&with_launch_blocking("1", 47.1, 27.5).cx(), &[]);
        let f = &out.findings[0];
        assert_eq!(f.id(), "kernel_launch/synchronous_launches");
        assert!((f.share - (47.1 - 27.5) / 47.1).abs() < 1e-9, "{}", f.share);
        assert_eq!(
            f.fixes,
            vec![Fix::KernelLaunch(KernelLaunchFix::UnsetLaunchBlocking)]
        );
        assert_eq!(
            reach(&KernelLaunchFix::UnsetLaunchBlocking, f),
            FixReach::Cause
        );
    }

    #[test]
    fn a_host_longer_than_the_gpu_keeps_its_own_time_after_the_setting_goes() {
        // 30 ms steps of 10 ms GPU work: 20 ms of host work stays, 10 ms goes.
        let out = rule(&with_launch_blocking("1", 30.0, 10.0).cx(), &[]);
        assert!((out.findings[0].share - 1.0 / 3.0).abs() < 1e-9);
        // Host and GPU alike: the turns cost half the step.
        let out = rule(&with_launch_blocking(" 1 ", 20.0, 10.0).cx(), &[]);
        assert!((out.findings[0].share - 0.5).abs() < 1e-9);
    }

    #[test]
    fn launch_blocking_off_leaves_the_launch_rule_as_it_was() {
        let out = rule(&with_launch_blocking("0", 10.0, 7.0).cx(), &[]);
        assert_eq!(out.findings[0].id(), "kernel_launch");
    }

    /// A run whose probe saw anomaly detection on (`check_nan` its NaN check), `step_ms` per
    /// unprofiled step, `busy_ms` of GPU work per step.
    fn with_anomaly_detection(on: bool, check_nan: bool, step_ms: f64, busy_ms: f64) -> Fixture {
        let mut fx = launch_bound(busy_ms * 1e3);
        fx.a.step_timing[0].mean_step_ms = step_ms;
        let mut t = checkup_model::TrainingContext::default();
        t.settings.anomaly_detection = Some(on);
        t.settings.anomaly_check_nan = Some(check_nan);
        fx.a.training.insert(0, t);
        fx
    }

    #[test]
    fn anomaly_detection_left_on_is_costed_as_turns_and_its_fix_is_to_turn_it_off() {
        // 30 ms steps of 6 ms GPU work: the host's 24 ms stays at most, 6 ms goes at least.
        let out = rule(&with_anomaly_detection(true, true, 30.0, 6.0).cx(), &[]);
        let f = &out.findings[0];
        assert_eq!(f.id(), "kernel_launch/anomaly_detection");
        assert!((f.share - 6.0 / 30.0).abs() < 1e-9, "{}", f.share);
        assert!(matches!(
            f.cause,
            Cause::KernelLaunch(KernelLaunch::AnomalyDetection {
                check_nan: true,
                ..
            })
        ));
        assert_eq!(
            f.fixes,
            vec![Fix::KernelLaunch(KernelLaunchFix::DisableAnomalyDetection)]
        );
        assert_eq!(
            reach(&KernelLaunchFix::DisableAnomalyDetection, f),
            FixReach::CauseAndAddedHostWork
        );
        // Without its NaN check the finding says so.
        let out = rule(&with_anomaly_detection(true, false, 30.0, 6.0).cx(), &[]);
        assert!(matches!(
            out.findings[0].cause,
            Cause::KernelLaunch(KernelLaunch::AnomalyDetection {
                check_nan: false,
                ..
            })
        ));
    }

    #[test]
    fn anomaly_detection_off_leaves_the_launch_rule_as_it_was() {
        let out = rule(&with_anomaly_detection(false, true, 10.0, 7.0).cx(), &[]);
        assert_eq!(out.findings[0].id(), "kernel_launch");
    }

    /// 41 kernels a step, `launch_ms` of host time in the model's calls per step, the
    /// training process at `process_cpu` % of a core.
    fn held(launch_ms: f64, process_cpu: f64) -> Fixture {
        let mut r = rank_with_waits(10_000.0);
        r.host_waits.launch_us = 9_000.0;
        r.kernels.per_step = 41.0;
        r.gpu_busy_per_step_us = 1_600.0;
        Fixture::with_rank(r)
            .timing(StepTiming {
                mean_step_ms: launch_ms + 20.0,
                median_launch_ms: launch_ms,
                ..Default::default()
            })
            .host(checkup_model::HostStats {
                proc_tree_cpu_mean: Some(process_cpu),
                cpu_total_mean: Some(6.0),
                cores: 16,
                ..Default::default()
            })
    }

    #[test]
    fn a_held_training_thread_is_named_at_a_millisecond_per_kernel_with_a_busy_process() {
        // The reporter thread's run: 2000 ms of host time for 41 kernels, the process at one
        // core.
        let out = rule(&held(2_000.0, 101.0).cx(), &[]);
        let f = &out.findings[0];
        assert_eq!(f.id(), "kernel_launch/interpreter_held");
        assert_eq!(
            f.fixes,
            vec![Fix::KernelLaunch(KernelLaunchFix::FreeInterpreter)]
        );
        // Everything but the GPU's 1.6 ms of work.
        assert!(
            (f.share - (2020.0 - 1.6) / 2020.0).abs() < 1e-9,
            "{}",
            f.share
        );
        // 1 ms per kernel is the boundary; below it the launches are only slow.
        assert_eq!(
            rule(&held(41.0, 101.0).cx(), &[]).findings[0].id(),
            "kernel_launch/interpreter_held"
        );
        assert_eq!(
            rule(&held(40.9, 101.0).cx(), &[]).findings[0].id(),
            "kernel_launch"
        );
        // A process that does not keep a core busy is not held by a thread of its own; and
        // a millisecond per launch is no launch overhead either: the idle finding takes it.
        assert!(rule(&held(2_000.0, 89.0).cx(), &[]).findings.is_empty());
    }
}
