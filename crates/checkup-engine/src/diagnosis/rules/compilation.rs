//! A compiled function that dynamo compiles again and again: the probe's compilations after
//! the warm-up (`compile` rows of `events.csv`), the recompilations dynamo logged with the
//! guard that failed, and the recompile limit past which the function runs uncompiled.
//! Its time: those compilations, and where the limit was hit, each uncompiled step beyond
//! the compiled steps measured before it.

use checkup_model::{
    Cause, Compilation, CompilationEvidence, CompilationFix, EvidenceKey as K, Family, Finding,
    Fix, FixReach, GuardFailure, MarkerKind, Source, StepSeries, Unit,
};

use crate::analysis::stats::median;
use crate::analysis::step_timing::near_profiler;
use crate::diagnosis::{ev, share_ev, Ctx, Outcome};
use crate::thresholds::confidence;

/// Steps needed on each side of the recompile limit to compare compiled with uncompiled.
const MIN_STEPS_EACH_SIDE: usize = 3;

pub fn rule(cx: &Ctx, earlier: &[Finding]) -> Outcome {
    finding(cx, earlier).into()
}

/// Compiled and uncompiled step medians around the step `limit_step`, each from steps past
/// the warm-up that neither compiled nor were profiled; None with too few on either side.
fn around_limit(
    series: &StepSeries,
    limit_step: u64,
    left_out: &dyn Fn(u64) -> bool,
) -> Option<(f64, f64, u64)> {
    let steady = series
        .step
        .iter()
        .zip(&series.duration_ms)
        .skip(series.warmup_steps as usize)
        .filter(|(s, _)| !left_out(**s));
    let (before, after): (Vec<_>, Vec<_>) = steady.partition(|(s, _)| **s < limit_step);
    if before.len() < MIN_STEPS_EACH_SIDE || after.len() < MIN_STEPS_EACH_SIDE {
        return None;
    }
    let ms =
        |v: &[(&u64, &f32)]| median(&v.iter().map(|(_, d)| f64::from(**d)).collect::<Vec<_>>());
    Some((ms(&before), ms(&after), after.len() as u64))
}

/// The launch wait a compiled function takes away: an uncompiled model launches each of
/// its kernels from Python, which the launch finding measured.
fn launch_share(earlier: &[Finding]) -> Option<f64> {
    earlier
        .iter()
        .find(|f| f.family() == Family::KernelLaunch)
        .map(|f| f.share)
}

fn finding(cx: &Ctx, earlier: &[Finding]) -> Option<Finding> {
    let compile = &cx.training?.compile;
    let recompilations = compile.recompilations.unwrap_or(0);
    let limit = compile.recompile_limit.as_ref();
    if recompilations == 0 && limit.is_none() {
        return None;
    }
    let t = cx.timing?;
    let series = cx.step_series()?;
    let steady_from = cx.first_steady_step();
    let profiler_slowed =
        |step: u64| near_profiler(t.profiled_steps, cx.th.profiler_margin_steps, step);
    let compiles = || {
        cx.markers
            .iter()
            .filter(move |m| m.kind == MarkerKind::Compile && m.step >= steady_from)
    };
    // Every compilation after the warm-up, as the ledger counts them; of those, the ones
    // in the steps the mean step is measured over, which the gain removes from it.
    let compile_ms: f64 = compiles().filter_map(|m| m.duration_ms).sum();
    let in_mean_ms: f64 = compiles()
        .filter(|m| !profiler_slowed(m.step))
        .filter_map(|m| m.duration_ms)
        .sum();
    // The profiled steps' host side is the profiler's; the steps before them are not.
    let profiled = |step: u64| {
        t.profiled_steps
            .is_some_and(|(a, b)| (a..=b).contains(&step))
    };
    let left_out = |step: u64| profiled(step) || compiles().any(|m| m.step == step);
    let limit_step = limit.and_then(|l| l.step);
    let around = limit_step.and_then(|s| around_limit(series, s, &left_out));
    // Uncompiled steps beyond compiled ones, where both were measured and they differ.
    let uncompiled_excess_ms = around
        .filter(|(c, u, _)| u > c)
        .map_or(0.0, |(c, u, n)| (u - c) * n as f64);
    let steady_ms = t.mean_step_ms * t.steady_steps as f64;
    if steady_ms <= 0.0 {
        return None;
    }
    // Past the limit with no compiled step to compare: every steady step ran uncompiled,
    // and compiled, the launch wait goes.
    let uncompiled_share = match (limit_step, around) {
        (Some(s), None) if s <= steady_from => launch_share(earlier).unwrap_or(0.0),
        _ => 0.0,
    };
    let share =
        ((in_mean_ms + uncompiled_excess_ms) / steady_ms + uncompiled_share).clamp(0.0, 1.0);
    // The compilations' share of the whole run, as its ledger counts it.
    let run_ms =
        cx.a.ledgers
            .get(&t.rank)
            .map(|l| l.total_s * 1e3)
            .filter(|ms| *ms > 0.0)
            .unwrap_or(steady_ms);
    let most = compile.most_recompiled();
    let reason = most
        .and_then(|r| r.reasons.first().cloned())
        .or_else(|| limit.and_then(|l| l.reason.clone()));
    let guard = reason
        .as_deref()
        .map_or(GuardFailure::Other, GuardFailure::of);
    let function = most
        .map(|r| r.function.clone())
        .or_else(|| limit.and_then(|l| l.function.clone()))
        .unwrap_or_else(|| "?".into());
    let location = most
        .map(|r| (r.file.as_str(), Some(r.line)))
        .or_else(|| limit.and_then(|l| Some((l.file.as_deref()?, l.line))))
        .map(|(file, line)| {
            let name = file.rsplit('/').next().unwrap_or(file);
            line.map_or_else(|| name.to_owned(), |l| format!("{name}:{l}"))
        });
    let asked_static = compile.asked_static();

    let mut evidence = vec![
        ev(
            K::Compilation(CompilationEvidence::Recompilations),
            recompilations as f64,
            Unit::Times,
            None,
            Source::Probe,
        ),
        ev(
            K::Compilation(CompilationEvidence::CompileTime),
            compile_ms / 1e3,
            Unit::Seconds,
            None,
            Source::Probe,
        ),
        share_ev(
            K::Compilation(CompilationEvidence::CompileShare),
            (compile_ms / run_ms).min(1.0),
            None,
            Source::StepsCsv,
        ),
    ];
    if let Some(s) = limit_step {
        evidence.push(ev(
            K::Compilation(CompilationEvidence::LimitStep),
            s as f64,
            Unit::Steps,
            None,
            Source::Probe,
        ));
    }
    if let Some((c, u, _)) = around {
        evidence.push(ev(
            K::Compilation(CompilationEvidence::CompiledStep),
            c,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ));
        evidence.push(ev(
            K::Compilation(CompilationEvidence::UncompiledStep),
            u,
            Unit::Ms,
            None,
            Source::StepsCsv,
        ));
    }
    let first_fix = match guard {
        GuardFailure::Size { dim } if asked_static => CompilationFix::DropStaticShapes { dim },
        GuardFailure::Size { dim } => CompilationFix::MarkDynamic { dim },
        GuardFailure::Value => CompilationFix::StableGuardedValue,
        GuardFailure::Other => CompilationFix::FindRecompileReason,
    };
    // Without `dynamic=False`, dynamo compiles the function for any size where its size
    // first changed, in place of the run's first recompilation there: that one stays,
    // where it counted in the mean. A dimension marked dynamic before the first call
    // compiles for any size from the start, and keeps none.
    let dynamic_compile_ms = match first_fix {
        CompilationFix::DropStaticShapes { .. } => most
            .and_then(|r| r.steps)
            .map(|[first, _]| {
                compiles()
                    .filter(|m| m.step == first && !profiler_slowed(m.step))
                    .filter_map(|m| m.duration_ms)
                    .sum::<f64>()
            })
            .filter(|ms| *ms > 0.0),
        _ => None,
    };
    let mut fixes = vec![Fix::Compilation(first_fix.clone())];
    if first_fix != CompilationFix::FindRecompileReason {
        fixes.push(Fix::Compilation(CompilationFix::FindRecompileReason));
    }
    Some(Finding {
        gains: Default::default(),
        cause: Cause::Compilation(Compilation::Recompiles {
            function,
            location,
            recompilations,
            compile_ms,
            guard,
            reason,
            asked_static,
            limit_step,
            limit: limit.map(|l| l.value),
            compiled_step_ms: around.map(|(c, _, _)| c),
            uncompiled_step_ms: around.map(|(_, u, _)| u),
            step_ms: Some(t.mean_step_ms),
            dynamic_compile_ms_per_step: dynamic_compile_ms.map(|ms| ms / t.steady_steps as f64),
        }),
        severity: cx.severity(share),
        confidence: confidence::MEASURED,
        share,
        evidence,
        fixes,
    })
}

/// What part of `finding`'s lost time a compilation fix removes: a fix for the guard that
/// fails removes every recompilation and keeps the function compiled, but for the one
/// compilation for any size that dropping `dynamic=False` still makes after the warm-up;
/// the log finds it.
pub fn reach(fix: &CompilationFix, finding: &Finding) -> FixReach {
    match fix {
        CompilationFix::DropStaticShapes { .. } => match finding.cause {
            Cause::Compilation(Compilation::Recompiles {
                step_ms: Some(step),
                dynamic_compile_ms_per_step: Some(kept),
                ..
            }) if kept > 0.0 && finding.share * step > 0.0 => FixReach::AllButOneDynamicCompile(
                (1.0 - kept / (finding.share * step)).clamp(0.0, 1.0),
            ),
            _ => FixReach::Cause,
        },
        CompilationFix::MarkDynamic { .. } | CompilationFix::StableGuardedValue => FixReach::Cause,
        CompilationFix::FindRecompileReason => FixReach::Supporting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::Fixture;
    use checkup_model::{
        CompileCall, CompileInfo, RecompileLimit, Recompiled, RunMarker, StepTiming,
        TrainingContext,
    };

    /// 100 steps: two warm-up steps, a 3 s recompilation at every other step from 3 to 15
    /// (compiled steps of 20 ms between), the limit hit at step 16 and uncompiled 34 ms
    /// steps after.
    fn classifier(dynamic: Option<bool>, reason: &str, limit: bool) -> Fixture {
        let mut fx = Fixture::default();
        let recompiled: Vec<u64> = (3..16).step_by(2).collect();
        let limit_step = limit.then_some(16);
        let ms = |s: u64| -> f64 {
            if s < 2 {
                9000.0
            } else if recompiled.contains(&s) {
                3020.0
            } else if limit_step.is_some_and(|l| s >= l) {
                34.0
            } else {
                20.0
            }
        };
        let steps: Vec<u64> = (0..100).collect();
        let steady: Vec<f64> = steps[2..].iter().map(|s| ms(*s)).collect();
        fx.a.charts.steps.push(StepSeries {
            rank: 0,
            step: steps.clone(),
            duration_ms: steps.iter().map(|s| ms(*s) as f32).collect(),
            warmup_steps: 2,
            ..Default::default()
        });
        fx.a.step_timing.push(StepTiming {
            warmup_steps: 2,
            steady_steps: steady.len() as u64,
            mean_step_ms: steady.iter().sum::<f64>() / steady.len() as f64,
            ..Default::default()
        });
        fx.a.markers.insert(
            0,
            recompiled
                .iter()
                .chain(&[0])
                .map(|s| RunMarker {
                    step: *s,
                    t: 0.0,
                    kind: MarkerKind::Compile,
                    detail: String::new(),
                    duration_ms: Some(3000.0),
                })
                .collect(),
        );
        fx.a.training.insert(
            0,
            TrainingContext {
                compile: CompileInfo {
                    calls: vec![CompileCall {
                        dynamic,
                        ..Default::default()
                    }],
                    recompilations: Some(7),
                    recompiles: vec![Recompiled {
                        function: "forward".into(),
                        file: "/w/lab/classifier.py".into(),
                        line: 21,
                        count: 7,
                        steps: Some([3, 9]),
                        reasons: vec![reason.into()],
                    }],
                    recompile_limit: limit.then(|| RecompileLimit {
                        setting: "recompile_limit".into(),
                        value: 8,
                        function: Some("forward".into()),
                        step: limit_step,
                        ..Default::default()
                    }),
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        fx
    }

    const LENGTH: &str = "tensor 'tokens' size mismatch at index 1. expected 96, actual 136";

    #[test]
    fn lengths_recompiled_under_dynamic_false_cost_their_compilations_and_the_uncompiled_steps() {
        let fx = classifier(Some(false), LENGTH, true);
        let f = finding(&fx.cx(), &[]).unwrap();
        let Cause::Compilation(Compilation::Recompiles {
            location,
            compile_ms,
            guard,
            limit_step,
            compiled_step_ms,
            uncompiled_step_ms,
            ..
        }) = &f.cause
        else {
            panic!("{:?}", f.cause)
        };
        assert_eq!(location.as_deref(), Some("classifier.py:21"));
        // The warm-up's compilation is warm-up, not a recompilation.
        assert_eq!(*compile_ms, 7.0 * 3000.0);
        assert_eq!(*guard, GuardFailure::Size { dim: 1 });
        assert_eq!(*limit_step, Some(16));
        assert_eq!(
            (*compiled_step_ms, *uncompiled_step_ms),
            (Some(20.0), Some(34.0))
        );
        // 21 s of compiling and 84 uncompiled steps 14 ms slow, over 98 steady steps.
        let steady_ms = 7.0 * 3020.0 + 84.0 * 34.0 + 7.0 * 20.0;
        assert!(
            (f.share - (21_000.0 + 84.0 * 14.0) / steady_ms).abs() < 1e-9,
            "{}",
            f.share
        );
        assert_eq!(
            f.fixes[0],
            Fix::Compilation(CompilationFix::DropStaticShapes { dim: 1 })
        );
    }

    #[test]
    fn without_compiled_steps_before_the_limit_only_the_compilations_are_costed() {
        let mut fx = classifier(Some(false), LENGTH, true);
        // Every step before the limit recompiled: no compiled step to compare with.
        let compiles = fx.a.markers.get_mut(&0).unwrap();
        compiles.extend([2, 4, 6, 8, 10, 12, 14].map(|step| RunMarker {
            step,
            t: 0.0,
            kind: MarkerKind::Compile,
            detail: String::new(),
            duration_ms: Some(10.0),
        }));
        let f = finding(&fx.cx(), &[]).unwrap();
        let Cause::Compilation(Compilation::Recompiles {
            compile_ms,
            compiled_step_ms,
            ..
        }) = &f.cause
        else {
            panic!("{:?}", f.cause)
        };
        assert_eq!((*compile_ms, *compiled_step_ms), (21_070.0, None));
        let steady_ms = fx.a.step_timing[0].mean_step_ms * 98.0;
        assert!((f.share - 21_070.0 / steady_ms).abs() < 1e-9);
    }

    #[test]
    fn the_fix_follows_the_guard_that_failed() {
        let first = |dynamic, reason| {
            finding(&classifier(dynamic, reason, false).cx(), &[])
                .unwrap()
                .fixes[0]
                .clone()
        };
        assert_eq!(
            first(None, LENGTH),
            Fix::Compilation(CompilationFix::MarkDynamic { dim: 1 })
        );
        assert_eq!(
            first(None, "L['scale'] == 0.5"),
            Fix::Compilation(CompilationFix::StableGuardedValue)
        );
        assert_eq!(
            first(
                Some(false),
                "tensor 'x' dtype mismatch. expected Float, actual BFloat16"
            ),
            Fix::Compilation(CompilationFix::FindRecompileReason)
        );
    }

    #[test]
    fn dropping_static_shapes_keeps_one_compilation_where_the_length_first_changed() {
        // Static shapes, no limit: seven 3 s recompilations from step 3, all past the
        // warm-up. Compiled for any length, dynamo compiles once more at step 3.
        let fx = classifier(Some(false), LENGTH, false);
        let f = finding(&fx.cx(), &[]).unwrap();
        let steady_ms = fx.a.step_timing[0].mean_step_ms * 98.0;
        assert!((f.share - 21_000.0 / steady_ms).abs() < 1e-9);
        assert_eq!(
            reach(&CompilationFix::DropStaticShapes { dim: 1 }, &f),
            FixReach::AllButOneDynamicCompile(1.0 - 3000.0 / 21_000.0)
        );
        // Marked dynamic before its first call, the function compiles for any length from
        // the start: every recompilation goes.
        assert_eq!(
            reach(&CompilationFix::MarkDynamic { dim: 1 }, &f),
            FixReach::Cause
        );
        // The first recompilation in the warm-up: what stays is warm-up.
        let mut fx = classifier(Some(false), LENGTH, false);
        fx.a.training.get_mut(&0).unwrap().compile.recompiles[0].steps = Some([1, 9]);
        let f = finding(&fx.cx(), &[]).unwrap();
        assert_eq!(
            reach(&CompilationFix::DropStaticShapes { dim: 1 }, &f),
            FixReach::Cause
        );
    }

    #[test]
    fn a_compiled_run_that_never_recompiled_has_no_finding() {
        let mut fx = classifier(None, LENGTH, false);
        let t = fx.a.training.get_mut(&0).unwrap();
        t.compile.recompilations = Some(0);
        t.compile.recompiles.clear();
        assert!(finding(&fx.cx(), &[]).is_none());
    }
}
