//! The settings that change speed, each costed for this run or shown harmless: the probe
//! lists them, and a reader of that list asks what each one costs. A setting a finding
//! costs points at it (the finding carries the fix); one the trace measures too little of
//! for a fix gets its time; one that cannot matter here says why; one whose cost no single
//! run can measure (the algorithms it would pick instead never ran) says that.

use checkup_model::{
    Cause, ComputeBoundFix, Finding, Fix, Harmless, HostSync, KernelLaunch, NotCosted, SettingCost,
    SettingVerdict, SpeedSetting,
};

use super::rules::{allocator, busy, idle, launches};
use super::Ctx;

/// Each slow setting the probe saw, with its verdict. `findings`: ranked, as the diagnosis
/// stores them (the verdicts point into them). Empty without the probe's settings.
pub(crate) fn cost(cx: &Ctx, findings: &[Finding]) -> Vec<SettingCost> {
    let Some(training) = cx.training else {
        return Vec::new();
    };
    let s = &training.settings;
    let find = |wanted: &dyn Fn(&Finding) -> bool| {
        findings
            .iter()
            .position(wanted)
            .map(|finding| SettingVerdict::InFinding { finding })
    };
    let not = |because| SettingVerdict::NotCosted { because };
    // A debugging setting whose finding is costed for every run that has it: that finding,
    // else nothing measured it.
    let costed_by =
        |wanted: &dyn Fn(&Finding) -> bool| find(wanted).unwrap_or(not(NotCosted::NotMeasured));
    let measured = cx.rank.is_some();
    let mut out = Vec::new();
    let mut push = |setting, verdict| out.push(SettingCost { setting, verdict });

    if launches::launch_blocking(cx) {
        push(
            SpeedSetting::LaunchBlocking,
            costed_by(&|f| {
                matches!(
                    f.cause,
                    Cause::KernelLaunch(KernelLaunch::SynchronousLaunches { .. })
                )
            }),
        );
    }
    if launches::anomaly_detection_on(cx) {
        push(
            SpeedSetting::AnomalyDetection,
            costed_by(&|f| {
                matches!(
                    f.cause,
                    Cause::KernelLaunch(KernelLaunch::AnomalyDetection { .. })
                )
            }),
        );
    }
    if idle::training_profiler(cx) {
        push(
            SpeedSetting::TrainingProfiler,
            not(NotCosted::MeasuredOnlyWithoutIt),
        );
    }
    if s.deterministic_algorithms == Some(true) {
        let verdict = match busy::deterministic_fills(cx) {
            Some(fills) => find(&|f| {
                has_fix(f, |c| {
                    matches!(c, ComputeBoundFix::SkipUninitializedFill { .. })
                })
            })
            .unwrap_or(SettingVerdict::Small {
                ms_per_step: fills.ms_per_step,
                share: fills.share,
            }),
            // Nothing filled: what is left is the deterministic kernels it picks, which
            // one run cannot compare with the ones it replaces.
            None if measured => not(NotCosted::OtherAlgorithmsNotRun),
            None => not(NotCosted::NotMeasured),
        };
        push(SpeedSetting::DeterministicAlgorithms, verdict);
    }
    if s.cudnn_benchmark == Some(false) {
        let probe_convolutions = training.model.as_ref().map(|m| m.conv_layers_called > 0);
        let trace_convolutions = cx.rank.map(|r| {
            r.kernels
                .top
                .iter()
                .any(|k| busy::is_convolution_kernel(&k.name))
        });
        let verdict = match probe_convolutions.or(trace_convolutions) {
            Some(false) => SettingVerdict::Harmless {
                because: Harmless::NoConvolutions,
            },
            Some(true) => not(NotCosted::OtherAlgorithmsNotRun),
            None => not(NotCosted::NotMeasured),
        };
        push(SpeedSetting::CudnnBenchmarkOff, verdict);
    }
    let tf32_off = s.tf32_matmul == Some(false)
        && s.float32_matmul_precision
            .as_deref()
            .is_none_or(|p| p == "highest");
    if tf32_off {
        let verdict = match (cx.rank, cx.timing.map(|t| t.mean_step_ms)) {
            (Some(r), Some(step_ms)) if step_ms > 0.0 => {
                let ms_per_step = r.kernels.us_per_step(r.kernels.fp32_gemm_time_share) / 1e3;
                let share = (ms_per_step / step_ms).min(1.0);
                find(&|f| has_fix(f, |c| matches!(c, ComputeBoundFix::AllowTf32 { .. }))).unwrap_or(
                    if share < cx.th.setting_noise_share {
                        SettingVerdict::Harmless {
                            because: Harmless::NoFp32Matmuls,
                        }
                    } else {
                        SettingVerdict::Small { ms_per_step, share }
                    },
                )
            }
            _ => not(NotCosted::NotMeasured),
        };
        push(SpeedSetting::Tf32MatmulOff, verdict);
    }
    if allocator::caching_off(cx) {
        push(
            SpeedSetting::AllocatorCachingOff,
            allocator_verdict(cx, findings),
        );
    }
    if s.alloc_conf
        .as_deref()
        .is_some_and(|c| !c.trim().is_empty())
    {
        push(SpeedSetting::AllocatorConf, allocator_verdict(cx, findings));
    }
    if s.sync_debug_mode.is_some_and(|m| m > 0) {
        let verdict = match training.syncs.as_ref().and_then(|x| x.per_step) {
            Some(per_step) if per_step > 0.0 => not(NotCosted::WarnsAtEachSync { per_step }),
            Some(_) => SettingVerdict::Harmless {
                because: Harmless::NoSyncsInSteps,
            },
            None => not(NotCosted::NotMeasured),
        };
        push(SpeedSetting::SyncDebugMode, verdict);
    }
    out
}

/// What an allocator setting costs: what the allocator finding costs, if there is one (the
/// driver called every step); else the GPU's idle around the driver's allocation calls in
/// the trace, or nothing when the steady steps make none.
fn allocator_verdict(cx: &Ctx, findings: &[Finding]) -> SettingVerdict {
    if let Some(finding) = findings
        .iter()
        .position(|f| matches!(f.cause, Cause::HostSync(HostSync::Allocator { .. })))
    {
        return SettingVerdict::InFinding { finding };
    }
    let (Some(r), Some(step_ms)) = (cx.rank, cx.timing.map(|t| t.mean_step_ms)) else {
        return SettingVerdict::NotCosted {
            because: NotCosted::NotMeasured,
        };
    };
    if r.host_waits.alloc_calls_per_step == 0.0 || step_ms <= 0.0 {
        return SettingVerdict::Harmless {
            because: Harmless::NoDriverAllocations,
        };
    }
    let ms_per_step = r.host_waits.alloc_us / r.steps.len().max(1) as f64 / 1e3;
    SettingVerdict::Small {
        ms_per_step,
        share: (ms_per_step / step_ms).min(1.0),
    }
}

/// Whether `f` offers a compute fix `wanted` picks.
fn has_fix(f: &Finding, wanted: impl Fn(&ComputeBoundFix) -> bool) -> bool {
    f.fixes
        .iter()
        .any(|fix| matches!(fix, Fix::ComputeBound(c) if wanted(c)))
}

#[cfg(test)]
mod tests {
    use checkup_model::{
        Cause, Finding, Harmless, HostSync, NotCosted, SettingVerdict, Severity, SpeedSetting,
        StepTiming, SyncSummary, TrainingContext,
    };

    use super::cost;
    use crate::diagnosis::rules::test_cx::{rank_with_waits, Fixture};

    /// A run of 10 ms steps whose trace makes `alloc_calls_per_step` driver allocation calls
    /// a step with `alloc_idle_us` of GPU idle around them in all (5 steps), with
    /// PYTORCH_CUDA_ALLOC_CONF and PYTORCH_NO_CUDA_MEMORY_CACHING set.
    fn allocating(alloc_calls_per_step: f64, alloc_idle_us: f64) -> Fixture {
        let mut r = rank_with_waits(50_000.0);
        r.host_waits.alloc_calls_per_step = alloc_calls_per_step;
        r.host_waits.alloc_us = alloc_idle_us;
        let mut fx = Fixture::with_rank(r).timing(StepTiming {
            mean_step_ms: 10.0,
            ..StepTiming::default()
        });
        let mut training = TrainingContext::default();
        training.settings.alloc_conf = Some("expandable_segments:True".into());
        fx.a.training.insert(0, training);
        fx.facts
            .env
            .insert("PYTORCH_NO_CUDA_MEMORY_CACHING".into(), Some("1".into()));
        fx
    }

    fn verdict_of(costs: &[checkup_model::SettingCost], s: SpeedSetting) -> &SettingVerdict {
        &costs.iter().find(|c| c.setting == s).unwrap().verdict
    }

    #[test]
    fn allocator_settings_are_harmless_when_the_steps_never_call_the_driver() {
        let fx = allocating(0.0, 0.0);
        let costs = cost(&fx.cx(), &[]);
        for s in [
            SpeedSetting::AllocatorCachingOff,
            SpeedSetting::AllocatorConf,
        ] {
            assert_eq!(
                *verdict_of(&costs, s),
                SettingVerdict::Harmless {
                    because: Harmless::NoDriverAllocations
                }
            );
        }
    }

    #[test]
    fn allocator_settings_get_the_gpu_idle_around_driver_calls_or_the_finding_that_costs_it() {
        // 0.4 ms a step of idle around half a call a step: measured, too little to fix.
        let fx = allocating(0.5, 2_000.0);
        let costs = cost(&fx.cx(), &[]);
        let SettingVerdict::Small { ms_per_step, share } =
            *verdict_of(&costs, SpeedSetting::AllocatorConf)
        else {
            panic!("{costs:?}");
        };
        assert!((ms_per_step - 0.4).abs() < 1e-9 && (share - 0.04).abs() < 1e-9);
        // With the allocator finding, both point at it.
        let finding = |cause| Finding {
            cause,
            severity: Severity::Major,
            confidence: 0.9,
            share: 0.4,
            evidence: Vec::new(),
            fixes: Vec::new(),
            gains: Default::default(),
        };
        let findings = [
            finding(Cause::HostSync(HostSync::Readbacks)),
            finding(Cause::HostSync(HostSync::Allocator {
                calls_per_step: 2.0,
            })),
        ];
        let costs = cost(&allocating(2.0, 20_000.0).cx(), &findings);
        assert_eq!(
            *verdict_of(&costs, SpeedSetting::AllocatorCachingOff),
            SettingVerdict::InFinding { finding: 1 }
        );
    }

    #[test]
    fn sync_debug_mode_warns_at_the_syncs_the_probe_counted_or_is_harmless_without_them() {
        let mut fx = allocating(0.0, 0.0);
        let training = fx.a.training.get_mut(&0).unwrap();
        training.settings.sync_debug_mode = Some(1);
        training.syncs = Some(SyncSummary {
            per_step: Some(3.0),
            ..SyncSummary::default()
        });
        assert_eq!(
            *verdict_of(&cost(&fx.cx(), &[]), SpeedSetting::SyncDebugMode),
            SettingVerdict::NotCosted {
                because: NotCosted::WarnsAtEachSync { per_step: 3.0 }
            }
        );
        fx.a.training.get_mut(&0).unwrap().syncs = Some(SyncSummary {
            per_step: Some(0.0),
            ..SyncSummary::default()
        });
        assert_eq!(
            *verdict_of(&cost(&fx.cx(), &[]), SpeedSetting::SyncDebugMode),
            SettingVerdict::Harmless {
                because: Harmless::NoSyncsInSteps
            }
        );
        // Mode 0, the default, is no setting to cost.
        fx.a.training.get_mut(&0).unwrap().settings.sync_debug_mode = Some(0);
        assert!(cost(&fx.cx(), &[])
            .iter()
            .all(|c| c.setting != SpeedSetting::SyncDebugMode));
    }
}
