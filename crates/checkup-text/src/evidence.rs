//! Evidence rows: what each measures, its unit, where it came from.

use checkup_model::{BusyMethod, EvidenceKey, Language, Source, Unit};

use crate::{checks, Language::*};

/// What an evidence row measures.
pub fn label(k: &EvidenceKey, l: Language) -> String {
    use EvidenceKey as K;
    let (en, zh) = match k {
        K::DataLoaderIdleShare => (
            "GPU idle while waiting for the DataLoader (share of step)",
            "GPU 等待 DataLoader 的空闲（占步骤比例）",
        ),
        K::IdlePerEpochStart => (
            "GPU idle for data at each epoch start",
            "每个 epoch 开始时 GPU 等待数据的空闲",
        ),
        K::UnprofiledDataIdleShare => (
            "GPU idle waiting for data in unprofiled steps, at least (share of step)",
            "未分析步骤中 GPU 等待数据的空闲，至少（占步骤比例）",
        ),
        K::StarvedLaunchIdleShare => (
            "GPU idle waiting for kernel launches, main thread short of CPU (share of step)",
            "GPU 等待内核发射的空闲，主线程缺少 CPU（占步骤比例）",
        ),
        K::MeanDataWait => ("mean data wait per step", "每步平均数据等待"),
        K::MedianDataWait => ("median data wait per step", "每步数据等待中位数"),
        K::DataWaitShare => ("data wait share of step time", "数据等待占步骤时间比例"),
        K::MeanGpuUtil => ("mean GPU utilisation", "平均 GPU 利用率"),
        K::NumWorkers => ("DataLoader num_workers", "DataLoader num_workers"),
        K::HostCpu => ("host CPU use, all cores", "主机 CPU 使用率（全部核心）"),
        K::TrainingTreeCpu => (
            "training process tree CPU (100 = one core)",
            "训练进程树 CPU（100 = 1 核）",
        ),
        K::TrainingProcessCpu => (
            "training process CPU (100 = one core)",
            "训练进程 CPU（100 = 1 核）",
        ),
        K::ExposedH2dShare => (
            "host-to-device copies not hidden by compute (share of step)",
            "未被计算隐藏的主机到设备拷贝（占步骤比例）",
        ),
        K::PageableH2dPerStep => (
            "pageable host-to-device copy time per step",
            "每步可分页主机到设备拷贝时间",
        ),
        K::PinnedH2dPerStep => (
            "pinned host-to-device copy time per step",
            "每步锁页主机到设备拷贝时间",
        ),
        K::PageableBandwidth => ("pageable copy bandwidth", "可分页拷贝带宽"),
        K::PageableBytesPerStep => ("pageable bytes copied per step", "每步可分页拷贝字节数"),
        K::SyncIdleShare => (
            "GPU idle after a host synchronisation (share of step)",
            "主机同步后的 GPU 空闲（占步骤比例）",
        ),
        K::SyncCallsPerStep => (
            "synchronising CUDA calls per step",
            "每步同步型 CUDA 调用次数",
        ),
        K::ItemCallsPerStep => (
            "aten::item / _local_scalar_dense per step",
            "每步 aten::item / _local_scalar_dense 次数",
        ),
        K::AllocIdleShare => (
            "GPU idle around cudaMalloc / cudaFree and the launches after them (share of step)",
            "cudaMalloc / cudaFree 期间及其后发射时的 GPU 空闲（占步骤比例）",
        ),
        K::AllocCallsPerStep => (
            "cudaMalloc / cudaFree calls per step",
            "每步 cudaMalloc / cudaFree 调用次数",
        ),
        K::AllocHostTimePerStep => (
            "host time in cudaMalloc / cudaFree per step",
            "每步花在 cudaMalloc / cudaFree 上的主机时间",
        ),
        K::EmptyCacheCallsPerStep => (
            "torch.cuda.empty_cache() calls per step, counted from the probe's watch to the run's end",
            "每步 torch.cuda.empty_cache() 调用次数（从探针的观察窗口起计数至运行结束）",
        ),
        K::ProbeSyncsPerStep => (
            "synchronising calls per step, counted in unprofiled steps",
            "每步同步调用次数（在未分析的步骤中计数）",
        ),
        K::TopSyncSiteShare => (
            "share of them made by the busiest line",
            "其中最频繁的代码行所占比例",
        ),
        K::StallsWithMarker => (
            "stalled steps in which the probe saw that work",
            "探针在其中看到该工作的停顿步骤数",
        ),
        K::ProfiledStalls => ("stalls inside the profiled steps", "被分析步骤中的停顿次数"),
        K::GpuIdleSeconds => (
            "host-sampled time with the GPU near idle",
            "GPU 接近空闲时的主机采样时长",
        ),
        K::BusyWorkersWhileIdle => (
            "workers each at a full core while the GPU idled (mean)",
            "GPU 空闲时各自占满一个核心的 worker 数（平均）",
        ),
        K::WorkersCpuWhileIdle => (
            "worker processes' CPU together while the GPU idled (100 = one core)",
            "GPU 空闲时各 worker 进程合计的 CPU（100 = 一个核心）",
        ),
        K::MainCpuWhileIdle => (
            "training process CPU while the GPU idled (100 = one core)",
            "GPU 空闲时训练进程的 CPU（100 = 一个核心）",
        ),
        K::ReadbacksPerStall => (
            "host read-backs in a profiled stall",
            "被分析的停顿中主机读回次数",
        ),
        K::HostLaunchTime => (
            "host time to launch a step, outside syncs",
            "主机发射一步所需时间（不含同步）",
        ),
        K::GpuBusyPerStep => ("GPU busy time per step", "每步 GPU 忙碌时间"),
        K::LaunchIdleShare => (
            "GPU idle waiting for the host to launch work (share of step)",
            "GPU 等待主机发射工作的空闲（占步骤比例）",
        ),
        K::KernelsPerStep => ("kernels per step", "每步内核数"),
        K::MedianKernel => ("median kernel duration", "内核时长中位数"),
        K::TinyKernelShare => ("kernels shorter than 10 µs", "短于 10 µs 的内核"),
        K::UnprofiledBusyShare => (
            "GPU busy share of a step at unprofiled speed",
            "未分析速度下 GPU 忙碌占步骤比例",
        ),
        K::UnprofiledStepTime => ("unprofiled step time", "未分析的步骤时间"),
        K::ProfiledStepTime => (
            "profiled step time (CPU side)",
            "分析期间的步骤时间（CPU 侧）",
        ),
        K::GpuUtil => (
            "GPU-Util (any kernel running)",
            "GPU-Util（有任一内核运行）",
        ),
        K::SmActive => ("SM active (GPM)", "SM 活跃（GPM）"),
        K::ExposedCommShare => (
            "exposed communication on the slowest rank (share of step)",
            "最慢 rank 上暴露的通信（占步骤比例）",
        ),
        K::CommOverlap => ("communication hidden behind compute", "被计算隐藏的通信"),
        K::NcclPerStep => ("NCCL kernel time per step", "每步 NCCL 内核时间"),
        K::HostCollectivePerStep => (
            "time in host collectives (gloo) per step",
            "每步主机集合通信（gloo）时间",
        ),
        K::StepWaitShare => (
            "wait for each step's slowest rank (mean over steps, share of step)",
            "每步等待最慢 rank 的时间（各步平均，占步骤比例）",
        ),
        K::SlowestRankSteps { rank } => {
            return match l {
                En => format!("profiled steps in which rank {rank} was the slowest"),
                Zh => format!("rank {rank} 最慢的分析步骤数"),
            }
        }
        K::GpuThrottledSamples { gpu } => {
            return match l {
                En => format!("busy samples with a throttling clock-event reason, GPU {gpu}"),
                Zh => format!("GPU {gpu} 带降频原因的忙碌采样"),
            }
        }
        K::GpuPowerLimit { gpu } => {
            return match l {
                En => format!("power limit, GPU {gpu}"),
                Zh => format!("GPU {gpu} 的功耗上限"),
            }
        }
        K::ComputeRank { rank } => {
            return match l {
                En => format!("GPU compute per step, rank {rank}"),
                Zh => format!("rank {rank} 每步 GPU 计算时间"),
            }
        }
        K::ExposedCommRank { rank } => {
            return match l {
                En => format!("exposed communication, rank {rank}"),
                Zh => format!("rank {rank} 暴露的通信"),
            }
        }
        K::ScalingEfficiency { gpus } => {
            return match l {
                En => format!("scaling efficiency, {gpus} GPUs vs 1"),
                Zh => format!("扩展效率（{gpus} 个 GPU 对比 1 个）"),
            }
        }
        K::Speedup => ("speed-up over 1 GPU", "相对单 GPU 的加速比"),
        K::NvlinkTx => ("NVLink transmit", "NVLink 发送"),
        K::P2pDisabledWithNvlink => (
            "NCCL_P2P_DISABLE set while NVLink connects the GPUs",
            "GPU 之间有 NVLink 却设置了 NCCL_P2P_DISABLE",
        ),
        K::StragglerExtraComm => (
            "extra exposed communication on the waiting rank",
            "等待方 rank 多出的暴露通信",
        ),
        K::StallPeriod => ("stall period", "停顿周期"),
        K::StallExcess => (
            "typical stall length beyond a normal step",
            "比正常步骤多出的典型停顿时长",
        ),
        K::StallCount => ("stalls in the steady window", "稳态窗口内的停顿次数"),
        K::StallLostShare => (
            "time lost to stalls (share of run)",
            "停顿损失的时间（占运行比例）",
        ),
        K::UtilDipPeriod => ("GPU util dips to idle every", "GPU 利用率跌至空闲的周期"),
        K::StallsSeenIdle => (
            "stalls during which GPU-Util fell below busy",
            "GPU-Util 低于忙碌阈值的停顿",
        ),
        K::PeakDiskWrite => ("peak disk write rate", "磁盘写入峰值速率"),
        K::ThrottledSamples => (
            "busy samples with a throttling clock-event reason",
            "带降频原因的忙碌采样",
        ),
        K::SmClockRatio => (
            "SM clock while busy, share of max",
            "忙碌时 SM 时钟占最大值比例",
        ),
        K::PowerShareOfLimit => ("power draw, share of limit", "功耗占上限比例"),
        K::PeakTemp => ("peak GPU temperature", "GPU 峰值温度"),
        K::GpuBusyShare => ("GPU busy share", "GPU 忙碌比例"),
        K::UnexplainedIdle => (
            "GPU idle time no other finding explains",
            "其他发现都解释不了的 GPU 空闲时间",
        ),
        K::StepBusyShare => ("GPU busy share of a step", "GPU 忙碌占步骤比例"),
        K::ComputeShare => ("compute kernels, share of step", "计算内核占步骤比例"),
        K::DramBandwidth => ("DRAM bandwidth utilisation (GPM)", "显存带宽利用率（GPM）"),
        K::TensorActive => ("tensor-core activity (GPM)", "张量核活跃度（GPM）"),
        K::GemmShare => (
            "matmul/convolution share of kernel time",
            "矩阵乘/卷积占内核时间比例",
        ),
        K::ElementwiseShare => (
            "elementwise/normalisation share of kernel time",
            "逐元素/归一化内核占内核时间比例",
        ),
        K::FirstStepMedian => (
            "median step, first tenth of the run",
            "运行前十分之一的步骤中位耗时",
        ),
        K::LastStepMedian => (
            "median step, last tenth of the run",
            "运行最后十分之一的步骤中位耗时",
        ),
        K::StepTimeGrowth => ("step time growth over the run", "运行期间步骤耗时的增长"),
        K::DataWaitGrowth => (
            "growth of the wait for data per step",
            "每步等待数据时间的增长",
        ),
        K::HostWorkGrowth => (
            "growth of the loop's host time per step",
            "每步循环主机时间的增长",
        ),
        K::HostRssGrowth => (
            "growth of the training processes' host memory",
            "训练进程主机内存的增长",
        ),
        K::AllocatedGrowth => ("growth of memory in live tensors", "活动张量占用显存的增长"),
        K::AllocatedGrowthRate => (
            "growth of memory in live tensors, per minute",
            "活动张量显存每分钟的增长",
        ),
        K::HostRssGrowthRate => (
            "growth of the training processes' host memory, per minute",
            "训练进程主机内存每分钟的增长",
        ),
        K::PeakMemoryShareOfCapacity => (
            "peak GPU memory used, share of the card's",
            "GPU 显存峰值占用占显卡容量比例",
        ),
        K::OtherProcessesMemory => (
            "other processes' memory on this GPU",
            "本 GPU 上其他进程占用的显存",
        ),
        K::ReservedUnusedShare => (
            "reserved memory never used at once, share of reserved",
            "从未同时使用的预留显存占预留比例",
        ),
        K::AllocRetries => (
            "allocation retries after a failed cudaMalloc",
            "cudaMalloc 失败后的分配重试",
        ),
        K::EnvStatus { check } => return checks::title(*check, None, l),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
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
