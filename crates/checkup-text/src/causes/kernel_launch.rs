//! Words for the `kernel_launch` family's findings: each cause's title and summary.

use checkup_model::{KernelLaunch, Language};

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
