//! Words for the `host_sync` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{HostSync, HostSyncEvidence, HostSyncFix, Language};

use crate::fix_words::{pick, t, FixText};
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

/// What a `host_sync` evidence row measures.
pub fn evidence(k: &HostSyncEvidence, l: Language) -> String {
    let (en, zh) = match k {
        HostSyncEvidence::SyncIdleShare => (
            "GPU idle after a host synchronisation (share of step)",
            "主机同步后的 GPU 空闲（占步骤比例）",
        ),
        HostSyncEvidence::SyncCallsPerStep => (
            "synchronising CUDA calls per step",
            "每步同步型 CUDA 调用次数",
        ),
        HostSyncEvidence::ItemCallsPerStep => (
            "aten::item / _local_scalar_dense per step",
            "每步 aten::item / _local_scalar_dense 次数",
        ),
        HostSyncEvidence::AllocIdleShare => (
            "GPU idle around cudaMalloc / cudaFree and the launches after them (share of step)",
            "cudaMalloc / cudaFree 期间及其后发射时的 GPU 空闲（占步骤比例）",
        ),
        HostSyncEvidence::AllocCallsPerStep => (
            "cudaMalloc / cudaFree calls per step",
            "每步 cudaMalloc / cudaFree 调用次数",
        ),
        HostSyncEvidence::AllocHostTimePerStep => (
            "host time in cudaMalloc / cudaFree per step",
            "每步花在 cudaMalloc / cudaFree 上的主机时间",
        ),
        HostSyncEvidence::EmptyCacheCallsPerStep => (
            "torch.cuda.empty_cache() calls per step, counted from the probe's watch to the run's end",
            "每步 torch.cuda.empty_cache() 调用次数（从探针的观察窗口起计数至运行结束）",
        ),
        HostSyncEvidence::ProbeSyncsPerStep => (
            "synchronising calls per step, counted in unprofiled steps",
            "每步同步调用次数（在未分析的步骤中计数）",
        ),
        HostSyncEvidence::TopSyncSiteShare => (
            "share of them made by the busiest line",
            "其中最频繁的代码行所占比例",
        ),
        HostSyncEvidence::HostLaunchTime => (
            "host time to launch a step, outside syncs",
            "主机发射一步所需时间（不含同步）",
        ),
        HostSyncEvidence::GpuBusyPerStep => ("GPU busy time per step", "每步 GPU 忙碌时间"),
        HostSyncEvidence::HostWorkBesideAllocator => (
            "host's other work per step at unprofiled speed, at most (without its time in cudaMalloc / cudaFree)",
            "未分析速度下每步主机其他工作时间上限（不含 cudaMalloc / cudaFree 中的时间）",
        ),
        HostSyncEvidence::UnprofiledHostWork => (
            "host work per step at unprofiled speed, at most (the trace's less what the profiler added, or the training's CPU per step)",
            "未分析速度下每步主机工作时间上限（跟踪中的时间减去分析器增加的部分，或训练进程每步的 CPU 时间）",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `host_sync` fix in words.
pub fn fix(f: &HostSyncFix, l: Language) -> FixText {
    match (f, l) {
        (HostSyncFix::FewerReadbacks { site: Some(site), site_per_step }, _) => t(
            &match l {
                En => format!("Stop reading GPU values back at {}", site.location()),
                Zh => format!("不要在 {} 把 GPU 上的值读回主机", site.location()),
            },
            &match (l, site_per_step) {
                (En, Some(n)) => format!("{} in {}() synchronises {n:.0} times per step: {}. Each call makes the host wait for the GPU, then the GPU waits for the host. Keep the values on the GPU and read them back together, only on the steps you log.", site.location(), site.function, crate::code(&site.code)),
                (Zh, Some(n)) => format!("{} 中 {}() 的这一行每步同步 {n:.0} 次：{}。每次调用都让主机等待 GPU，随后 GPU 又等待主机。把这些值留在 GPU 上，只在记录日志的步骤里一起读回。", site.location(), site.function, crate::code(&site.code)),
                (En, None) => format!("{} in {}() synchronises with the GPU: {}. Keep the values on the GPU and read them back every N steps.", site.location(), site.function, crate::code(&site.code)),
                (Zh, None) => format!("{} 中 {}() 的这一行与 GPU 同步：{}。把这些值留在 GPU 上，每 N 步读回一次。", site.location(), site.function, crate::code(&site.code)),
            },
            Some(&crate::readback::snippet(site, l)),
            pick(l, "The idle gap after each of these syncs disappears; the host runs ahead of the GPU again.", "这些同步之后的空闲间隙消失，主机重新跑在 GPU 前面。"),
        ),
        (HostSyncFix::AsyncCopyAtLine { site, site_per_step }, _) => t(
            &match l {
                En => format!("Copy to the GPU from pinned memory, without waiting, at {}", site.location()),
                Zh => format!("在 {} 从锁页内存向 GPU 拷贝，不要等待", site.location()),
            },
            &match l {
                En => format!("{} in {}() copies a tensor from the host to the GPU {site_per_step:.0} times per step: {}. From ordinary (pageable) memory each copy makes the host wait until it is done, and the GPU then waits for the host. The copy is needed every step; make it asynchronous: copy from pinned memory with non_blocking=True.", site.location(), site.function, crate::code(&site.code)),
                Zh => format!("{} 中 {}() 的这一行每步把张量从主机拷贝到 GPU {site_per_step:.0} 次：{}。从普通（可分页）内存拷贝时，主机要等每次拷贝完成，随后 GPU 又等待主机。这个拷贝每步都需要；请让它异步：从锁页内存拷贝并设置 non_blocking=True。", site.location(), site.function, crate::code(&site.code)),
            },
            Some(&crate::readback::async_copy_snippet(site, l)),
            pick(l, "The host no longer waits for the copy; it runs ahead of the GPU again, and the copy overlaps with compute.", "主机不再等待拷贝，重新跑在 GPU 前面，拷贝与计算重叠。"),
        ),
        (HostSyncFix::SortOnGpuAtLine { site, site_per_step }, _) => t(
            &match l {
                En => format!("Sort on the GPU at {}", site.location()),
                Zh => format!("在 {} 改为在 GPU 上排序", site.location()),
            },
            &match l {
                En => format!("{} in {}() copies values to the host to sort them, {site_per_step:.0} times per step: {}. The step uses the order at once, so it cannot be read back less often; sort on the GPU instead (torch.argsort, torch.sort, torch.topk), and the host never waits for the GPU there.", site.location(), site.function, crate::code(&site.code)),
                Zh => format!("{} 中 {}() 的这一行每步 {site_per_step:.0} 次把值拷回主机再排序：{}。本步马上要用这个顺序，不能减少读回的次数；请改在 GPU 上排序（torch.argsort、torch.sort、torch.topk），主机就不必在此等待 GPU。", site.location(), site.function, crate::code(&site.code)),
            },
            Some(&crate::readback::sort_on_gpu_snippet(site, l)),
            pick(l, "The host no longer waits for the GPU to sort; it runs ahead again, and the indices never leave the GPU.", "主机不再为排序等待 GPU，重新跑在 GPU 前面，索引也不再离开 GPU。"),
        ),
        (HostSyncFix::FewerReadbacks { site: None, .. }, _) => t(
            pick(l, "Stop reading GPU values back every step", "不要每步都把 GPU 上的值读回主机"),
            pick(l, "loss.item(), .cpu(), .numpy(), print(tensor) and Python conditions on tensors force the host to wait for the GPU, then the GPU waits for the host to launch more work. Accumulate metrics on the GPU and read them every N steps.", "loss.item()、.cpu()、.numpy()、print(tensor) 以及对张量做 Python 条件判断都会让主机等待 GPU，随后 GPU 又要等主机发射新工作。把指标累积在 GPU 上，每 N 步读取一次。"),
            Some(&format!(
                "running_loss += loss.detach()          # {}\nif step % 50 == 0:\n    print(running_loss.item() / 50)   # {}\n    running_loss.zero_()",
                pick(l, "stays on the GPU", "留在 GPU 上"),
                pick(l, "one sync every 50 steps", "每 50 步同步一次")
            )),
            pick(l, "The idle gap after each sync disappears; the GPU stays fed.", "每次同步之后的空闲间隙消失，GPU 持续有活干。"),
        ),
        (HostSyncFix::KeepAllocatorCache { caching_off: true, .. }, _) => t(
            pick(l, "Turn the caching allocator back on", "重新打开缓存分配器"),
            pick(l, "PYTORCH_NO_CUDA_MEMORY_CACHING is set in this run's environment: every tensor's memory is allocated from and freed to the driver. It is a debugging setting (for memory checkers); training runs without it.", "本次运行的环境中设置了 PYTORCH_NO_CUDA_MEMORY_CACHING：每个张量的显存都直接向驱动申请和释放。这是调试用的设置（供显存检查工具使用），训练时不应设置。"),
            Some(&format!("unset PYTORCH_NO_CUDA_MEMORY_CACHING   # {}", pick(l, "before starting the training", "在启动训练之前"))),
            pick(l, "The allocator keeps its blocks between steps; cudaMalloc and cudaFree leave the steps.", "分配器在步骤之间保留显存块；步骤中不再有 cudaMalloc 和 cudaFree。"),
        ),
        (HostSyncFix::KeepAllocatorCache { site: Some(site), calls_per_step, .. }, _) => t(
            &match l {
                En => format!("Take torch.cuda.empty_cache() out of the loop at {}", site.location()),
                Zh => format!("把 {} 处的 torch.cuda.empty_cache() 移出训练循环", site.location()),
            },
            &match (l, calls_per_step) {
                (En, Some(n)) => format!("{} in {}() empties the allocator's cache {n:.1} times per step: {}. The next step then asks the driver for all that memory again. Emptying the cache does not give the training more memory (PyTorch reuses its cached blocks itself); it only hands them to other processes.", site.location(), site.function, crate::code(&site.code)),
                (Zh, Some(n)) => format!("{} 中 {}() 的这一行每步清空分配器缓存 {n:.1} 次：{}。下一步又要向驱动重新申请这些显存。清空缓存不会给训练更多显存（PyTorch 自己会复用缓存的块），只是把它们让给其他进程。", site.location(), site.function, crate::code(&site.code)),
                (En, None) => format!("{} in {}() empties the allocator's cache: {}. The next step asks the driver for that memory again.", site.location(), site.function, crate::code(&site.code)),
                (Zh, None) => format!("{} 中 {}() 的这一行清空分配器缓存：{}。下一步又要向驱动重新申请这些显存。", site.location(), site.function, crate::code(&site.code)),
            },
            Some(&format!(
                "# torch.cuda.empty_cache()   # {}\n# {}",
                pick(l, "removed from the training step", "从训练步骤中删除"),
                pick(l, "if memory runs short, lower the peak instead: a smaller batch, activation checkpointing, or\n# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation", "若显存不够，应降低峰值：更小的批次、激活检查点，或用\n# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True 减少碎片")
            )),
            pick(l, "The allocator keeps its blocks between steps; cudaMalloc and cudaFree leave the steps and the GPU stays fed.", "分配器在步骤之间保留显存块；步骤中不再有 cudaMalloc 和 cudaFree，GPU 持续有活干。"),
        ),
        (HostSyncFix::KeepAllocatorCache { site: None, .. }, _) => t(
            pick(l, "Keep the allocator's cache between steps", "在步骤之间保留分配器缓存"),
            pick(l, "Something empties PyTorch's memory cache every step: look for torch.cuda.empty_cache() in the loop (or in a callback it calls) and for PYTORCH_NO_CUDA_MEMORY_CACHING in the environment. If the cache is emptied because allocations fail near the memory limit, lower the peak instead.", "有代码每步清空 PyTorch 的显存缓存：在训练循环（或它调用的回调）中查找 torch.cuda.empty_cache()，并检查环境变量 PYTORCH_NO_CUDA_MEMORY_CACHING。若是因为接近显存上限分配失败而清空缓存，应降低显存峰值。"),
            Some("grep -rn \"empty_cache\\|NO_CUDA_MEMORY_CACHING\" ."),
            pick(l, "The allocator keeps its blocks between steps; cudaMalloc and cudaFree leave the steps.", "分配器在步骤之间保留显存块；步骤中不再有 cudaMalloc 和 cudaFree。"),
        ),
        (HostSyncFix::GpuMetrics, _) => t(
            pick(l, "Compute metrics on the GPU", "在 GPU 上计算指标"),
            pick(l, "Build confusion matrices and accuracies with torch ops on CUDA tensors (e.g. torch.bincount) instead of NumPy loops on copied tensors.", "用 CUDA 张量上的 torch 运算（如 torch.bincount）计算混淆矩阵和准确率，而不是在拷贝出来的张量上用 NumPy 循环。"),
            Some("conf += torch.bincount(target * n_classes + pred, minlength=n_classes**2).view(n_classes, n_classes)"),
            pick(l, "No host round-trip per step.", "每步不再有主机往返。"),
        ),
        (HostSyncFix::FindHiddenSyncs, _) => t(
            pick(l, "Find hidden syncs", "找出隐藏的同步"),
            pick(l, "torch.cuda.set_sync_debug_mode(\"warn\") prints a warning with a stack trace at every synchronising call.", "torch.cuda.set_sync_debug_mode(\"warn\") 会在每个同步调用处打印带调用栈的警告。"),
            Some("torch.cuda.set_sync_debug_mode(\"warn\")"),
            pick(l, "Shows exactly which lines synchronise.", "准确显示哪些代码行在同步。"),
        ),
    }
}
