//! The run's time ledger worded: each part's name, what the ledger's time is, and the
//! heading the report and the app show it under.

use checkup_model::{KernelClass, Language, LedgerBasis, LedgerKind, MarkerKind, TimeLedger};

use crate::{format_number, Language::*};

/// The heading.
pub fn title(l: Language) -> &'static str {
    crate::report::text(l).chart_ledger
}

/// What the ledger's time is: "the whole run, 142 s: every step from the first".
pub fn basis(ledger: &TimeLedger, l: Language) -> String {
    let s = format_number(ledger.total_s);
    match (ledger.basis, l) {
        (LedgerBasis::WholeRun, En) => format!(
            "Rank {}'s whole run, {s} s from its first step to its last: warm-up, periodic work and slow steps included. The parts add up to 100 %.",
            ledger.rank
        ),
        (LedgerBasis::WholeRun, Zh) => format!(
            "rank {} 的整个运行，从第一步到最后一步共 {s} 秒：包括预热、周期性工作和变慢的步骤。各部分合计 100%。",
            ledger.rank
        ),
        (LedgerBasis::ProfiledSteps, En) => format!(
            "The {s} s of profiled steps in the trace (no step timings were recorded). The parts add up to 100 %."
        ),
        (LedgerBasis::ProfiledSteps, Zh) => {
            format!("trace 中被分析步骤的 {s} 秒（未记录步骤时间）。各部分合计 100%。")
        }
        (LedgerBasis::SampledSeconds, En) => format!(
            "The {s} s sampled (neither steps nor a trace were recorded: profile the training to split the rest). The parts add up to 100 %."
        ),
        (LedgerBasis::SampledSeconds, Zh) => format!(
            "采样的 {s} 秒（未记录步骤和 trace：分析训练才能细分其余部分）。各部分合计 100%。"
        ),
    }
}

/// A part's name.
pub fn kind(kind: LedgerKind, l: Language) -> &'static str {
    use LedgerKind as K;
    match (kind, l) {
        (K::GpuCompute(KernelClass::MatmulConv), En) => "GPU: matrix multiplies and convolutions",
        (K::GpuCompute(KernelClass::MatmulConv), Zh) => "GPU：矩阵乘法与卷积",
        (K::GpuCompute(KernelClass::Elementwise), En) => {
            "GPU: elementwise, normalisation and reduction kernels"
        }
        (K::GpuCompute(KernelClass::Elementwise), Zh) => "GPU：逐元素、归一化与归约内核",
        (K::GpuCompute(KernelClass::Other), En) => "GPU: other kernels",
        (K::GpuCompute(KernelClass::Other), Zh) => "GPU：其他内核",
        (K::GpuCompute(KernelClass::Unsplit), En) => "GPU: kernels (GPU-Util; a trace splits them)",
        (K::GpuCompute(KernelClass::Unsplit), Zh) => "GPU：内核（GPU-Util；trace 可细分）",
        (K::Copies, En) => "Copies nothing hid",
        (K::Copies, Zh) => "未被隐藏的拷贝",
        (K::ExposedCommunication, En) => "Communication compute did not hide",
        (K::ExposedCommunication, Zh) => "未被计算隐藏的通信",
        (K::LaunchGaps, En) => "Gaps between kernels launched in time",
        (K::LaunchGaps, Zh) => "按时发射的内核之间的空隙",
        (K::HostLate, En) => "GPU idle: the host late with its next launch",
        (K::HostLate, Zh) => "GPU 空闲：主机下一次发射滞后",
        (K::HostLaunchless, En) => "GPU idle: the host busy with work that launches nothing",
        (K::HostLaunchless, Zh) => "GPU 空闲：主机在做不发射内核的工作",
        (K::SyncIdle, En) => "GPU idle after the host waited for it",
        (K::SyncIdle, Zh) => "主机等待 GPU 之后的 GPU 空闲",
        (K::DataWait, En) => "Waiting for the next batch",
        (K::DataWait, Zh) => "等待下一个批次",
        (K::Periodic(MarkerKind::EpochStart), En) => "Epoch starts: workers starting",
        (K::Periodic(MarkerKind::EpochStart), Zh) => "轮次开始：worker 启动",
        (K::Periodic(MarkerKind::Checkpoint), En) => "Checkpoints",
        (K::Periodic(MarkerKind::Checkpoint), Zh) => "检查点",
        (K::Periodic(MarkerKind::Eval), En) => "Evaluation passes",
        (K::Periodic(MarkerKind::Eval), Zh) => "评估",
        (K::Periodic(MarkerKind::Gc), En) => "Garbage collection",
        (K::Periodic(MarkerKind::Gc), Zh) => "垃圾回收",
        (K::Periodic(MarkerKind::Compile), En) => "Compiling after the warm-up (recompilations)",
        (K::Periodic(MarkerKind::Compile), Zh) => "预热之后的编译（重新编译）",
        (K::WarmUp, En) => "Warm-up and compilation: the first steps",
        (K::WarmUp, Zh) => "预热与编译：最初的步骤",
        (K::Profiler, En) => "The checkup's profiler: the profiled steps",
        (K::Profiler, Zh) => "本次检查的分析器：被分析的步骤",
        (K::SlowSteps, En) => "Slow steps with nothing marked",
        (K::SlowSteps, Zh) => "变慢且无标记的步骤",
        (K::NotExplained, En) => "Not explained",
        (K::NotExplained, Zh) => "无法解释",
    }
}

/// The column headings of the ledger's table: part, share, seconds, the finding it is in.
pub fn columns(l: Language) -> [&'static str; 4] {
    match l {
        En => ["Part", "Share", "Seconds", "Finding"],
        Zh => ["部分", "占比", "秒", "发现"],
    }
}

/// The row that holds the parts too small to list one by one.
pub fn smaller_parts(n: usize, l: Language) -> String {
    match l {
        En => format!("{n} smaller parts, under 2 % each"),
        Zh => format!("其余 {n} 个部分，各不足 2%"),
    }
}
