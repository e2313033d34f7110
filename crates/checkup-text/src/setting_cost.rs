//! The settings that change speed, each with what it costs the run, as rows of the same
//! two-column table as the probe's settings: the setting as the run had it, its cost.

use checkup_model::{Diagnosis, Harmless, Language, NotCosted, SettingVerdict, SpeedSetting};

use crate::training::Row;
use crate::{findings, fixed, pct, Language::*};

/// The table's title.
pub fn title(l: Language) -> &'static str {
    match l {
        En => "Settings that change speed",
        Zh => "影响速度的设置",
    }
}

/// The table's two columns.
pub fn columns(l: Language) -> [&'static str; 2] {
    match l {
        En => ["Setting", "What it costs this run"],
        Zh => ["设置", "对本次运行的代价"],
    }
}

/// The setting as the run had it.
pub fn setting(s: SpeedSetting, l: Language) -> &'static str {
    match (s, l) {
        (SpeedSetting::LaunchBlocking, _) => "CUDA_LAUNCH_BLOCKING=1",
        (SpeedSetting::AnomalyDetection, En) => "anomaly detection on",
        (SpeedSetting::AnomalyDetection, Zh) => "异常检测开启",
        (SpeedSetting::DeterministicAlgorithms, En) => "deterministic algorithms on",
        (SpeedSetting::DeterministicAlgorithms, Zh) => "确定性算法开启",
        (SpeedSetting::CudnnBenchmarkOff, En) => "cudnn.benchmark off",
        (SpeedSetting::CudnnBenchmarkOff, Zh) => "cudnn.benchmark 关",
        (SpeedSetting::Tf32MatmulOff, En) => "TF32 off for fp32 matmuls",
        (SpeedSetting::Tf32MatmulOff, Zh) => "fp32 矩阵乘未开 TF32",
        (SpeedSetting::TrainingProfiler, En) => "the training's own profiler recording",
        (SpeedSetting::TrainingProfiler, Zh) => "训练自己的性能分析器在记录",
    }
}

/// What the setting costs, in words.
pub fn verdict(d: &Diagnosis, s: SpeedSetting, v: &SettingVerdict, l: Language) -> String {
    // Deterministic algorithms also pick other kernels than the ones they replace, which
    // no single run measures: said wherever their fills are costed.
    let kernels_too = match (s, l) {
        (SpeedSetting::DeterministicAlgorithms, En) => {
            "; the deterministic kernels they pick instead are not costed (the others never ran)"
        }
        (SpeedSetting::DeterministicAlgorithms, Zh) => {
            "；它们改选的确定性内核未计入（被替换的内核没有运行过）"
        }
        _ => "",
    };
    match (v, l) {
        (SettingVerdict::InFinding { finding }, _) => {
            let title = d
                .findings
                .get(*finding)
                .map(|f| findings::title(&f.cause, l))
                .unwrap_or_default();
            match l {
                En => format!("costed in “{title}”, with its fix{kernels_too}"),
                Zh => format!("已在“{title}”中计入，附修复建议{kernels_too}"),
            }
        }
        (SettingVerdict::Small { ms_per_step, share }, _) => {
            let what = match (s, l) {
                (SpeedSetting::DeterministicAlgorithms, En) => "its fill kernels take",
                (SpeedSetting::DeterministicAlgorithms, Zh) => "其填充内核每步",
                (_, En) => "its fp32 matrix multiplies take",
                (_, Zh) => "其 fp32 矩阵乘每步",
            };
            match l {
                En => format!(
                    "{what} {} ms a step ({}%): too little for a change{kernels_too}",
                    fixed(*ms_per_step, 2),
                    pct(*share)
                ),
                Zh => format!(
                    "{what} {} ms（{}%）：不值得为此改动{kernels_too}",
                    fixed(*ms_per_step, 2),
                    pct(*share)
                ),
            }
        }
        (SettingVerdict::Harmless { because }, _) => match (because, l) {
            (Harmless::NoConvolutions, En) => {
                "harmless here: no convolution runs, so there is nothing to benchmark".into()
            }
            (Harmless::NoConvolutions, Zh) => "此处无影响：没有卷积运行，无需基准测试".into(),
            (Harmless::NoFp32Matmuls, En) => {
                "harmless here: no matrix multiply runs on the fp32 units".into()
            }
            (Harmless::NoFp32Matmuls, Zh) => "此处无影响：没有矩阵乘在 fp32 单元上运行".into(),
        },
        (SettingVerdict::NotCosted { because }, _) => match (because, s, l) {
            (NotCosted::OtherAlgorithmsNotRun, SpeedSetting::CudnnBenchmarkOff, En) => {
                "not costed: the convolution algorithms a benchmark would try never ran; with \
                 input shapes that repeat, a run with it on measures them"
                    .into()
            }
            (NotCosted::OtherAlgorithmsNotRun, SpeedSetting::CudnnBenchmarkOff, Zh) => {
                "未计入：基准测试会尝试的卷积算法没有运行过；输入形状固定时，开启它再录制一次即可测出".into()
            }
            (NotCosted::OtherAlgorithmsNotRun, _, En) => {
                "nothing filled; the deterministic kernels they pick instead are not costed \
                 (the others never ran)"
                    .into()
            }
            (NotCosted::OtherAlgorithmsNotRun, _, Zh) => {
                "没有填充；它们改选的确定性内核未计入（被替换的内核没有运行过）".into()
            }
            (NotCosted::NotMeasured, _, En) => {
                "not costed: no trace or step times measured the steps".into()
            }
            (NotCosted::NotMeasured, _, Zh) => "未计入：没有 trace 或步骤时间测量这些步骤".into(),
            (NotCosted::MeasuredOnlyWithoutIt, _, En) => {
                "not costed: it records every step itself, so the checkup could not trace \
                 beside it (one profiler at a time); a run without it measures what it costs"
                    .into()
            }
            (NotCosted::MeasuredOnlyWithoutIt, _, Zh) => {
                "未计入：它自己记录每一步，体检无法同时记录跟踪（同一时间只能运行一个分析器）；去掉它再录制一次即可测出代价".into()
            }
        },
    }
}

/// One row per setting that changes speed: the setting, what it costs this run.
pub fn rows(d: &Diagnosis, l: Language) -> Vec<Row> {
    d.settings
        .iter()
        .map(|c| {
            (
                setting(c.setting, l).to_owned(),
                verdict(d, c.setting, &c.verdict, l),
            )
        })
        .collect()
}
