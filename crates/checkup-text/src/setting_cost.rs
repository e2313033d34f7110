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
        (SpeedSetting::AllocatorCachingOff, _) => "PYTORCH_NO_CUDA_MEMORY_CACHING=1",
        (SpeedSetting::AllocatorConf, En) => "PYTORCH_CUDA_ALLOC_CONF set",
        (SpeedSetting::AllocatorConf, Zh) => "已设置 PYTORCH_CUDA_ALLOC_CONF",
        (SpeedSetting::SyncDebugMode, En) => "sync debug mode on (torch.cuda.set_sync_debug_mode)",
        (SpeedSetting::SyncDebugMode, Zh) => "同步调试模式开启（torch.cuda.set_sync_debug_mode）",
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
                (SpeedSetting::AllocatorCachingOff | SpeedSetting::AllocatorConf, En) => {
                    "the GPU idles around the allocator's calls to the driver"
                }
                (SpeedSetting::AllocatorCachingOff | SpeedSetting::AllocatorConf, Zh) => {
                    "分配器调用驱动时 GPU 每步空闲"
                }
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
            (Harmless::NoDriverAllocations, En) => {
                "harmless here: the steps call neither cudaMalloc nor cudaFree (the allocator \
                 serves them without the driver's blocking calls)"
                    .into()
            }
            (Harmless::NoDriverAllocations, Zh) => {
                "此处无影响：各步既不调用 cudaMalloc 也不调用 cudaFree（分配器无需驱动的阻塞调用即可满足）".into()
            }
            (Harmless::NoSyncsInSteps, En) => {
                "harmless here: the probe counted no synchronising call in the steps".into()
            }
            (Harmless::NoSyncsInSteps, Zh) => "此处无影响：探针在各步中没有统计到同步调用".into(),
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
            (NotCosted::WarnsAtEachSync { per_step }, _, En) => format!(
                "not costed: it checks each of the {} synchronising calls a step the probe \
                 counted, and warns or raises at them; the probe counts in the same mode, so a \
                 run without it measures what it costs. A debugging setting: turn it off \
                 (torch.cuda.set_sync_debug_mode(0)) once the syncs are found",
                fixed(*per_step, 1)
            ),
            (NotCosted::WarnsAtEachSync { per_step }, _, Zh) => format!(
                "未计入：它检查探针统计到的每步 {} 次同步调用，并在这些调用处警告或报错；探针也在同一模式下计数，因此需去掉它再录制一次才能测出代价。这是调试设置：找到同步点后请关闭（torch.cuda.set_sync_debug_mode(0)）",
                fixed(*per_step, 1)
            ),
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
