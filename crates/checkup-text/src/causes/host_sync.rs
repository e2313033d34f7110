//! Words for the `host_sync` family's findings: each cause's title and summary.

use checkup_model::{HostSync, Language};

use crate::Language::*;

/// A `host_sync` finding's title.
pub fn title(c: &HostSync, l: Language) -> String {
    let (en, zh) = match c {
        HostSync::Readbacks => (
            "Host synchronisation leaves the GPU idle",
            "主机同步使 GPU 空闲",
        ),
        HostSync::Allocator { .. } => (
            "The memory allocator goes to the driver every step",
            "显存分配器每步都向驱动申请和释放显存",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `host_sync` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &HostSync, l: Language) -> String {
    match (c, l) {
        (HostSync::Readbacks, En) => "The training loop waits for the GPU (loss.item(), .cpu(), explicit synchronize) and then the GPU waits while the host does CPU work before launching the next step.".into(),
        (HostSync::Readbacks, Zh) => "训练循环每步都在等待 GPU（loss.item()、.cpu()、显式 synchronize），随后 GPU 又要等主机做完 CPU 计算才能发射下一步。".into(),
        (HostSync::Allocator { calls_per_step }, En) => format!("PyTorch's caching allocator normally keeps GPU memory between steps; here it allocates and frees it through the driver {calls_per_step:.0} times per step (cudaMalloc, cudaFree). Each cudaFree waits for everything queued on the GPU, and each cudaMalloc holds the host, so the GPU idles while the host catches up."),
        (HostSync::Allocator { calls_per_step }, Zh) => format!("PyTorch 的缓存分配器通常在步骤之间保留显存；这里它每步通过驱动分配和释放显存 {calls_per_step:.0} 次（cudaMalloc、cudaFree）。每次 cudaFree 都要等 GPU 上排队的工作全部完成，每次 cudaMalloc 都占住主机，于是 GPU 空闲，等主机追上来。"),
    }
}
