//! The settings that change speed, each costed for this run or shown harmless: the probe
//! lists them, and a reader of that list asks what each one costs. A setting a finding
//! costs points at it (the finding carries the fix); one the trace measures too little of
//! for a fix gets its time; one that cannot matter here says why; one whose cost no single
//! run can measure (the algorithms it would pick instead never ran) says that.

use checkup_model::{
    Cause, ComputeBoundFix, Finding, Fix, Harmless, KernelLaunch, NotCosted, SettingCost,
    SettingVerdict, SpeedSetting,
};

use super::rules::{busy, idle, launches};
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
    out
}

/// Whether `f` offers a compute fix `wanted` picks.
fn has_fix(f: &Finding, wanted: impl Fn(&ComputeBoundFix) -> bool) -> bool {
    f.fixes
        .iter()
        .any(|fix| matches!(fix, Fix::ComputeBound(c) if wanted(c)))
}
