//! Words for the `kernel_launch` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{KernelLaunch, KernelLaunchEvidence, KernelLaunchFix, Language};

use crate::fixes::{pick, t, FixText};
use crate::Language::*;

/// A `kernel_launch` finding's title.
pub fn title(c: &KernelLaunch, l: Language) -> String {
    let (en, zh) = match c {
        KernelLaunch::TinyKernels { .. } => (
            "Kernel launch overhead: many tiny kernels",
            "内核启动开销：大量微小内核",
        ),
        KernelLaunch::CpuContention { .. } => (
            "Kernel launches wait for CPU: other processes saturate the host",
            "内核发射在等待 CPU：其他进程占满了主机",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `kernel_launch` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &KernelLaunch, l: Language) -> String {
    match (c, l) {
        (KernelLaunch::TinyKernels { kernels_per_step, median_kernel_us }, En) => format!(
            "The host cannot launch kernels as fast as the GPU runs them: {kernels_per_step:.0} kernels per step with a median of {median_kernel_us:.1} µs each, so the GPU mostly waits for the next launch."
        ),
        (KernelLaunch::TinyKernels { kernels_per_step, median_kernel_us }, Zh) => format!(
            "主机发射内核的速度跟不上 GPU 执行的速度：每步 {kernels_per_step:.0} 个内核，中位时长 {median_kernel_us:.1} µs，GPU 大部分时间在等待下一次发射。"
        ),
        (KernelLaunch::CpuContention { host_cpu_pct, training_cores }, En) => format!(
            "Processes outside the training keep the host CPU saturated ({host_cpu_pct:.0}% of all cores; the training's processes get {training_cores:.1} cores): the training loop launches its kernels late and the GPU waits for them."
        ),
        (KernelLaunch::CpuContention { host_cpu_pct, training_cores }, Zh) => format!(
            "训练之外的进程让主机 CPU 保持饱和（全部核心的 {host_cpu_pct:.0}%；训练自身的进程只得到 {training_cores:.1} 个核心）：训练循环发射内核变晚，GPU 在等待它们。"
        ),
    }
}

/// What a `kernel_launch` evidence row measures.
pub fn evidence(k: &KernelLaunchEvidence, l: Language) -> String {
    let (en, zh) = match k {
        KernelLaunchEvidence::LaunchIdleShare => (
            "GPU idle waiting for the host to launch work (share of step)",
            "GPU 等待主机发射工作的空闲（占步骤比例）",
        ),
        KernelLaunchEvidence::KernelsPerStep => ("kernels per step", "每步内核数"),
        KernelLaunchEvidence::MedianKernel => ("median kernel duration", "内核时长中位数"),
        KernelLaunchEvidence::TinyKernelShare => {
            ("kernels shorter than 10 µs", "短于 10 µs 的内核")
        }
        KernelLaunchEvidence::UnprofiledStepTime => ("unprofiled step time", "未分析的步骤时间"),
        KernelLaunchEvidence::ProfiledStepTime => (
            "profiled step time (CPU side)",
            "分析期间的步骤时间（CPU 侧）",
        ),
        KernelLaunchEvidence::GpuUtil => (
            "GPU-Util (any kernel running)",
            "GPU-Util（有任一内核运行）",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `kernel_launch` fix in words.
pub fn fix(f: &KernelLaunchFix, l: Language) -> FixText {
    match (f, l) {
        (KernelLaunchFix::CompileFuseKernels, _) => t(
            pick(l, "Compile the model to fuse small kernels", "编译模型以融合小内核"),
            pick(l, "torch.compile fuses chains of small elementwise ops into a few kernels; mode=\"reduce-overhead\" also captures CUDA graphs, launching a whole step with one call.", "torch.compile 把一串小的逐元素操作融合成少数几个内核；mode=\"reduce-overhead\" 还会捕获 CUDA Graph，一次调用发射整步。"),
            Some("model = torch.compile(model, mode=\"reduce-overhead\")"),
            pick(l, "Kernels per step drop by several times and launch overhead mostly disappears.", "每步内核数下降数倍，启动开销基本消失。"),
        ),
        (KernelLaunchFix::ReduceOverhead { current_mode }, _) => t(
            pick(l, "Capture the compiled model in CUDA graphs", "把编译后的模型捕获为 CUDA Graph"),
            &match l {
                // The mode is known when the probe saw the compile call; a trace shows only
                // that the model is compiled.
                En => format!("The model is already compiled{}, yet the GPU still waits for launches. mode=\"reduce-overhead\" replays each step as a CUDA graph: one launch instead of hundreds. It needs static shapes; keep the batch size fixed (drop_last=True).", current_mode.as_deref().map(|m| format!(" (mode {m})")).unwrap_or_default()),
                Zh => format!("模型已经编译过{}，但 GPU 仍在等待内核发射。mode=\"reduce-overhead\" 把每步作为 CUDA Graph 重放：一次发射代替数百次。它要求形状固定；请保持批次大小不变（drop_last=True）。", current_mode.as_deref().map(|m| format!("（mode {m}）")).unwrap_or_default()),
            },
            Some("model = torch.compile(model, mode=\"reduce-overhead\")"),
            pick(l, "Launch overhead per step drops to a few graph launches.", "每步的发射开销降到几次图发射。"),
        ),
        (KernelLaunchFix::ForeachOptimizer { class }, _) => t(
            pick(l, "Use fused or foreach optimizers", "使用 fused 或 foreach 优化器"),
            pick(l, "A per-parameter optimizer launches several kernels per parameter tensor; foreach/fused versions update all parameters in a handful of kernels.", "逐参数的优化器对每个参数张量发射多个内核；foreach/fused 版本用少数几个内核更新全部参数。"),
            Some(&match class.as_deref() {
                Some(c) if checkup_model::optimizer_supports_fused(c) => format!(
                    "opt = torch.optim.{c}(model.parameters(), lr=lr, fused=True)  # {}",
                    pick(l, "or foreach=True", "或 foreach=True")
                ),
                Some(c) => format!("opt = torch.optim.{c}(model.parameters(), lr=lr, foreach=True)"),
                None => format!(
                    "opt = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)  # {}",
                    pick(l, "or foreach=True; keep your optimizer's class", "或 foreach=True；保留你原来的优化器类")
                ),
            }),
            pick(l, "Optimizer step goes from hundreds of launches to a few.", "优化器步骤从数百次发射降到几次。"),
        ),
        (KernelLaunchFix::BiggerKernels, _) => t(
            pick(l, "Give each kernel more work", "让每个内核做更多工作"),
            pick(l, "A larger batch (or gradient accumulation to keep the effective batch) makes each kernel longer, so launch cost becomes a smaller share.", "更大的批次（或用梯度累积保持等效批次）让每个内核运行更久，启动开销占比随之变小。"),
            Some(&format!(
                "# {}\nbatch_size = 4 * batch_size",
                pick(l, "e.g. 4x the batch, same effective optimisation with lr scaling or accumulation", "例如批次扩大 4 倍，用学习率缩放或梯度累积保持同样的优化效果")
            )),
            pick(l, "Throughput rises nearly linearly with batch size while launch-bound.", "在启动瓶颈下，吞吐量几乎随批次线性增长。"),
        ),
    }
}
