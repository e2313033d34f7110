//! Evidence rows: what each measures, its unit, where it came from.

use checkup_model::{BusyMethod, EvidenceKey, Language, Source, Unit};

use crate::{causes, Language::*};

/// What an evidence row measures.
pub fn label(k: &EvidenceKey, l: Language) -> String {
    match k {
        EvidenceKey::DataLoading(k) => causes::data_loading::evidence(k, l),
        EvidenceKey::KernelLaunch(k) => causes::kernel_launch::evidence(k, l),
        EvidenceKey::HostSync(k) => causes::host_sync::evidence(k, l),
        EvidenceKey::H2dCopy(k) => causes::h2d_copy::evidence(k, l),
        EvidenceKey::Communication(k) => causes::communication::evidence(k, l),
        EvidenceKey::PeriodicStall(k) => causes::periodic_stall::evidence(k, l),
        EvidenceKey::Throttling(k) => causes::throttling::evidence(k, l),
        EvidenceKey::GpuIdle(k) => causes::gpu_idle::evidence(k, l),
        EvidenceKey::ComputeBound(k) => causes::compute_bound::evidence(k, l),
        EvidenceKey::MemoryBandwidth(k) => causes::memory_bandwidth::evidence(k, l),
        EvidenceKey::Slowdown(k) => causes::slowdown::evidence(k, l),
        EvidenceKey::Memory(k) => causes::memory::evidence(k, l),
        EvidenceKey::Environment(k) => causes::environment::evidence(k, l),
        EvidenceKey::Compilation(k) => causes::compilation::evidence(k, l),
        EvidenceKey::Shared(k) => causes::shared::evidence(k, l),
    }
}

/// A unit as printed after a value.
pub fn unit(u: Unit, l: Language) -> &'static str {
    match (u, l) {
        (Unit::Percent, _) => "%",
        (Unit::Ms, _) => "ms",
        (Unit::Us, _) => "µs",
        (Unit::Seconds, _) => "s",
        (Unit::Calls, En) => "calls",
        (Unit::Calls, Zh) => "次",
        (Unit::Kernels, En) => "kernels",
        (Unit::Kernels, Zh) => "个",
        (Unit::Steps, En) => "steps",
        (Unit::Steps, Zh) => "步",
        (Unit::Stalls, En) => "stalls",
        (Unit::Stalls, Zh) => "次",
        (Unit::Workers, En) => "workers",
        (Unit::Workers, Zh) => "个",
        (Unit::GbPerS, _) => "GB/s",
        (Unit::GibPerS, _) => "GiB/s",
        (Unit::MbPerS, _) => "MB/s",
        (Unit::Mb, _) => "MB",
        (Unit::Times, _) => "×",
        (Unit::Celsius, _) => "°C",
        (Unit::Gib, _) => "GiB",
        (Unit::GibPerMin, En) => "GiB/min",
        (Unit::GibPerMin, Zh) => "GiB/分钟",
        (Unit::Mib, _) => "MiB",
        (Unit::Watts, _) => "W",
        (Unit::Flag, En) => "flag",
        (Unit::Flag, Zh) => "标志",
        (Unit::Status, En) => "status (1 warn, 2 fail)",
        (Unit::Status, Zh) => "状态（1 警告，2 失败）",
    }
}

/// Where an evidence value came from.
pub fn source(s: &Source, l: Language) -> String {
    let (en, zh) = match s {
        Source::Trace { rank: None } => ("trace", "trace"),
        Source::Trace { rank: Some(r) } => {
            return match l {
                En => format!("trace, rank {r}"),
                Zh => format!("rank {r} 的 trace"),
            }
        }
        Source::AllRankTraces => ("traces of all ranks", "所有 rank 的 trace"),
        Source::StepsCsv => ("steps.csv", "steps.csv"),
        Source::StepsCsvUnprofiled => ("steps.csv (unprofiled steps)", "steps.csv（未分析的步骤）"),
        Source::StepsWaitMinusBusy => (
            "steps.csv data wait − GPU busy share",
            "steps.csv 数据等待 − GPU 忙碌占比",
        ),
        Source::StepsGpuClockPerStep => (
            "steps.csv, step by step: GPU step time beyond its fastest steps, up to the data wait",
            "steps.csv 逐步计算：GPU 步骤时间超出最快步骤的部分，不超过数据等待",
        ),
        Source::NvmlSamples => ("NVML samples", "NVML 采样"),
        Source::GpuProcessSamples => (
            "each process's GPU memory (NVML)",
            "各进程的 GPU 显存（NVML）",
        ),
        Source::Probe => ("training probe", "训练探针"),
        Source::GpmSamples => ("GPM samples", "GPM 采样"),
        Source::HostSamples => ("host samples", "主机采样"),
        Source::MetaJson => ("meta.json", "meta.json"),
        Source::MetaEnvAndTopology => ("meta.json env + topo.txt", "meta.json 环境变量 + topo.txt"),
        Source::StaticSnapshot => ("static snapshot", "静态快照"),
        Source::ThisDiagnosis => ("this diagnosis", "本次诊断"),
        Source::Busy { method } => match method {
            BusyMethod::TraceOverUnprofiledSteps => (
                "trace busy time per step ÷ unprofiled step time",
                "trace 每步忙碌时间 ÷ 未分析步骤时间",
            ),
            BusyMethod::ProfiledWindow => ("profiled window", "分析窗口"),
            BusyMethod::SampledGpuUtil => (
                "sampled GPU-Util (share of time a kernel runs)",
                "GPU-Util 采样（有内核运行的时间比例）",
            ),
            BusyMethod::SampledSmActive => ("sampled SM activity (GPM)", "SM 活跃度采样（GPM）"),
        },
        Source::Throughput => ("samples/s", "样本/秒"),
        Source::PartnerThroughput { partner } => {
            return match l {
                En => format!("samples/s vs partner {partner}"),
                Zh => format!("样本/秒，对照单 GPU 运行 {partner}"),
            }
        }
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}
