//! Finding titles, summaries and the verdict.

use checkup_model::{
    Cause, Diagnosis, ExpectedGain, Family, Finding, FixGain, FixReach, IdleSuspect, Language,
    PeriodicWork, Recorded, SlowdownPart, StepBasis,
};

use crate::{checks, fixed, fixes, pct, Language::*};

/// A finding's title.
pub fn title(c: &Cause, l: Language) -> String {
    let (en, zh) = match c {
        Cause::ComputeBound { .. } => (
            "Compute-bound: the GPU is the limit",
            "计算瓶颈：GPU 本身是限制",
        ),
        Cause::MemoryBandwidth { .. } => ("Memory-bandwidth bound", "显存带宽瓶颈"),
        Cause::DataLoading { .. }
        | Cause::DataLoadingCpuSaturated { .. }
        | Cause::DataLoadingCpuContention { .. } => (
            "Input pipeline (DataLoader) starves the GPU",
            "输入管线（DataLoader）让 GPU 挨饿",
        ),
        Cause::KernelLaunch { .. } => (
            "Kernel launch overhead: many tiny kernels",
            "内核启动开销：大量微小内核",
        ),
        Cause::KernelLaunchCpuContention { .. } => (
            "Kernel launches wait for CPU: other processes saturate the host",
            "内核发射在等待 CPU：其他进程占满了主机",
        ),
        Cause::Communication { .. } => (
            "Gradient all-reduce is exposed",
            "梯度 all-reduce 通信未被隐藏",
        ),
        Cause::CommunicationShiftingStraggler { .. } => (
            "The slowest rank changes from step to step",
            "最慢的 rank 每一步都在变",
        ),
        Cause::CommunicationStraggler {
            waiting_rank,
            slow_rank,
            ..
        } => {
            return match l {
                En => format!("Rank {waiting_rank} waits for rank {slow_rank}"),
                Zh => format!("rank {waiting_rank} 在等待 rank {slow_rank}"),
            }
        }
        Cause::CommunicationP2pDisabled => (
            "NCCL peer-to-peer is disabled although NVLink is present",
            "存在 NVLink 却禁用了 NCCL 点对点通信",
        ),
        Cause::HostSync => (
            "Host synchronisation leaves the GPU idle",
            "主机同步使 GPU 空闲",
        ),
        Cause::HostSyncAllocator { .. } => (
            "The memory allocator goes to the driver every step",
            "显存分配器每步都向驱动申请和释放显存",
        ),
        Cause::H2dCopy | Cause::H2dCopyPageable => (
            "Host-to-device copies stall the GPU",
            "主机到设备的拷贝阻塞 GPU",
        ),
        Cause::PeriodicStall { .. } => ("Periodic stalls", "周期性停顿"),
        Cause::ThrottlingPower { .. } | Cause::ThrottlingThermal { .. } => {
            ("GPU clocks are held down", "GPU 时钟被压低")
        }
        Cause::GpuIdle { .. } => (
            "The GPU waits most of the time, and this recording cannot say for what",
            "GPU 大部分时间在等待，而这份记录看不出原因",
        ),
        Cause::Environment { check } => return checks::text(check, l).title,
        Cause::Slowdown { .. } => ("The run gets slower as it goes", "训练越跑越慢"),
        Cause::MemoryCreep { .. } => ("GPU memory creeps up step after step", "GPU 显存逐步上涨"),
        Cause::MemoryNearLimit { .. } => (
            "GPU memory is close to full: the batch size is set by memory",
            "GPU 显存接近用满：批大小受显存限制",
        ),
        Cause::MemoryFragmented { .. } => ("GPU memory is fragmented", "GPU 显存碎片化"),
        Cause::HostMemoryCreep { .. } => (
            "The training's host memory keeps growing",
            "训练进程的主机内存持续增长",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A finding's summary: what was measured, in a sentence or two.
pub fn summary(f: &Finding, l: Language) -> String {
    match (&f.cause, l) {
        (Cause::ComputeBound { compute_share, gpu_is_limit, tensor_cores_idle }, En) => format!(
            "The GPU computes {}% of each step{}.{}",
            pct(*compute_share),
            if *gpu_is_limit { "; the GPU itself is the limit" } else { "" },
            if *tensor_cores_idle { " Matrix multiplies do not use the tensor cores, though." } else { "" }
        ),
        (Cause::ComputeBound { compute_share, gpu_is_limit, tensor_cores_idle }, Zh) => format!(
            "GPU 在每个步骤中有 {}% 的时间在计算{}。{}",
            pct(*compute_share),
            if *gpu_is_limit { "；GPU 本身就是限制" } else { "" },
            if *tensor_cores_idle { "不过矩阵乘法没有用上张量核。" } else { "" }
        ),
        (Cause::MemoryBandwidth { busy_share, dram_pct, tensor_pct }, En) => format!(
            "The GPU is busy {}% of the step, but its kernels are limited by memory traffic rather than math{}: fewer passes over memory, not more FLOPs, will speed it up.",
            pct(*busy_share),
            dram_pct.map(|d| format!(" (DRAM bandwidth {d:.0}% of peak, tensor cores {:.0}%)", tensor_pct.unwrap_or(0.0))).unwrap_or_default()
        ),
        (Cause::MemoryBandwidth { busy_share, dram_pct, tensor_pct }, Zh) => format!(
            "GPU 每步有 {}% 的时间在忙，但内核受限于显存流量而非算力{}：减少对显存的遍历次数才能提速，而不是增加算力。",
            pct(*busy_share),
            dram_pct.map(|d| format!("（显存带宽为峰值的 {d:.0}%，张量核 {:.0}%）", tensor_pct.unwrap_or(0.0))).unwrap_or_default()
        ),
        (Cause::DataLoading { data_wait_ms, step_ms, idle_per_epoch_start_ms: Some(idle) }, En) => format!(
            "The GPU waits for batches at the start of every epoch: it idles about {idle:.0} ms each time while the epoch's first batches are made{}.",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!(" (on average {w:.0} ms of a {s:.0} ms step waiting for data)")).unwrap_or_default()
        ),
        (Cause::DataLoading { data_wait_ms, step_ms, idle_per_epoch_start_ms: Some(idle) }, Zh) => format!(
            "每个 epoch 开始时 GPU 都在等待批次：每次空闲约 {idle:.0} ms，等待该 epoch 的前几个批次生成{}。",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!("（{s:.0} ms 的步骤中平均有 {w:.0} ms 在等待数据）")).unwrap_or_default()
        ),
        (Cause::DataLoading { data_wait_ms, step_ms, idle_per_epoch_start_ms: None }, En) => format!(
            "The GPU waits for the next batch: the input pipeline is slower than the GPU{}, while the host has idle cores.",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!(" (on average {w:.0} ms of a {s:.0} ms step waiting for data)")).unwrap_or_default()
        ),
        (Cause::DataLoading { data_wait_ms, step_ms, idle_per_epoch_start_ms: None }, Zh) => format!(
            "GPU 在等待下一个批次：输入管线比 GPU 慢{}，而主机仍有空闲核心。",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!("（{s:.0} ms 的步骤中平均有 {w:.0} ms 在等待数据）")).unwrap_or_default()
        ),
        (Cause::DataLoadingCpuSaturated { host_cpu_pct, training_cores, launch_wait_share: Some(launch) }, En) => format!(
            "The input pipeline saturates the host CPU ({host_cpu_pct:.0}% of all cores, {training_cores:.1} cores of it the training's own processes): the main thread, short of CPU, launches kernels late (the GPU waits {}% of each step for them) and batches arrive late. More workers cannot help; each batch costs too much CPU.",
            pct(*launch)
        ),
        (Cause::DataLoadingCpuSaturated { host_cpu_pct, training_cores, launch_wait_share: Some(launch) }, Zh) => format!(
            "输入管线让主机 CPU 饱和（全部核心的 {host_cpu_pct:.0}%，其中 {training_cores:.1} 个核心属于训练自身的进程）：主线程缺少 CPU，内核发射变晚（GPU 每步有 {}% 的时间在等待发射），批次也来得晚。增加 worker 无济于事，每个批次消耗的 CPU 太多。",
            pct(*launch)
        ),
        (Cause::DataLoadingCpuSaturated { host_cpu_pct, launch_wait_share: None, .. }, En) => format!(
            "The GPU waits for the input pipeline and the host CPU is saturated ({host_cpu_pct:.0}%): more workers cannot help; each batch costs too much CPU."
        ),
        (Cause::DataLoadingCpuSaturated { host_cpu_pct, launch_wait_share: None, .. }, Zh) => format!(
            "GPU 在等待输入管线，而主机 CPU 已饱和（{host_cpu_pct:.0}%）：增加 worker 无济于事，每个批次消耗的 CPU 太多。"
        ),
        (Cause::DataLoadingCpuContention { host_cpu_pct, training_cores }, En) => format!(
            "The GPU waits for the input pipeline, and processes outside the training keep the host CPU saturated ({host_cpu_pct:.0}% of all cores; the training's processes get {training_cores:.1} cores): its workers run short of CPU and there is no idle core to add more."
        ),
        (Cause::DataLoadingCpuContention { host_cpu_pct, training_cores }, Zh) => format!(
            "GPU 在等待输入管线，而训练之外的进程让主机 CPU 保持饱和（全部核心的 {host_cpu_pct:.0}%；训练自身的进程只得到 {training_cores:.1} 个核心）：它的 worker 缺少 CPU，也没有空闲核心可以再加 worker。"
        ),
        (Cause::KernelLaunch { kernels_per_step, median_kernel_us }, En) => format!(
            "The host cannot launch kernels as fast as the GPU runs them: {kernels_per_step:.0} kernels per step with a median of {median_kernel_us:.1} µs each, so the GPU mostly waits for the next launch."
        ),
        (Cause::KernelLaunch { kernels_per_step, median_kernel_us }, Zh) => format!(
            "主机发射内核的速度跟不上 GPU 执行的速度：每步 {kernels_per_step:.0} 个内核，中位时长 {median_kernel_us:.1} µs，GPU 大部分时间在等待下一次发射。"
        ),
        (Cause::KernelLaunchCpuContention { host_cpu_pct, training_cores }, En) => format!(
            "Processes outside the training keep the host CPU saturated ({host_cpu_pct:.0}% of all cores; the training's processes get {training_cores:.1} cores): the training loop launches its kernels late and the GPU waits for them."
        ),
        (Cause::KernelLaunchCpuContention { host_cpu_pct, training_cores }, Zh) => format!(
            "训练之外的进程让主机 CPU 保持饱和（全部核心的 {host_cpu_pct:.0}%；训练自身的进程只得到 {training_cores:.1} 个核心）：训练循环发射内核变晚，GPU 在等待它们。"
        ),
        (Cause::Communication { exposed_share, scaling }, En) => format!(
            "The all-reduce runs while no compute runs for {}% of the slowest rank's step: communication is not hidden behind backward{}.",
            pct(*exposed_share),
            scaling.map(|s| format!(", and {} GPUs give {:.2}× one GPU ({}% efficiency)", s.gpus, s.speedup, pct(s.efficiency))).unwrap_or_default()
        ),
        (Cause::Communication { exposed_share, scaling }, Zh) => format!(
            "在最慢的 rank 上，all-reduce 有 {}% 的步骤时间没有与计算重叠：通信没有被反向传播隐藏{}。",
            pct(*exposed_share),
            scaling.map(|s| format!("；{} 块 GPU 的速度是单块的 {:.2} 倍（扩展效率 {}%）", s.gpus, s.speedup, pct(s.efficiency))).unwrap_or_default()
        ),
        (Cause::CommunicationStraggler { waiting_rank, slow_rank, extra_share }, En) => format!(
            "Rank {waiting_rank} spends {}% more of its step in communication than rank {slow_rank}: that is waiting for rank {slow_rank} to reach the all-reduce, not transfer time. The diagnosis follows rank {slow_rank}.",
            pct(*extra_share)
        ),
        (Cause::CommunicationStraggler { waiting_rank, slow_rank, extra_share }, Zh) => format!(
            "rank {waiting_rank} 在通信中花的步骤时间比 rank {slow_rank} 多 {}%：这是在等待 rank {slow_rank} 到达 all-reduce，而不是传输时间。诊断以 rank {slow_rank} 为准。",
            pct(*extra_share)
        ),
        (Cause::CommunicationShiftingStraggler { slowest_ranks, steps, wait_share }, En) => format!(
            "In each of the {steps} profiled steps one rank is the last to reach the all-reduce and the others wait for it, {}% of the step on average; but it is not always the same rank ({} took turns). The work per step differs between the ranks and moves between them: batches of different size or length.",
            pct(*wait_share),
            rank_list(slowest_ranks, En)
        ),
        (Cause::CommunicationShiftingStraggler { slowest_ranks, steps, wait_share }, Zh) => format!(
            "在分析的 {steps} 个步骤中，每一步都有一个 rank 最后到达 all-reduce，其他 rank 等它，平均占步骤的 {}%；但不总是同一个 rank（{} 轮流最慢）。各 rank 每步的工作量不同，而且在 rank 之间变动：批次的大小或长度不一样。",
            pct(*wait_share),
            rank_list(slowest_ranks, Zh)
        ),
        (Cause::CommunicationP2pDisabled, En) => "NCCL_P2P_DISABLE forces all-reduce traffic through host memory instead of NVLink.".into(),
        (Cause::CommunicationP2pDisabled, Zh) => "NCCL_P2P_DISABLE 迫使 all-reduce 流量经由主机内存，而不是 NVLink。".into(),
        (Cause::HostSync, En) => "The training loop waits for the GPU (loss.item(), .cpu(), explicit synchronize) and then the GPU waits while the host does CPU work before launching the next step.".into(),
        (Cause::HostSync, Zh) => "训练循环每步都在等待 GPU（loss.item()、.cpu()、显式 synchronize），随后 GPU 又要等主机做完 CPU 计算才能发射下一步。".into(),
        (Cause::HostSyncAllocator { calls_per_step }, En) => format!("PyTorch's caching allocator normally keeps GPU memory between steps; here it allocates and frees it through the driver {calls_per_step:.0} times per step (cudaMalloc, cudaFree). Each cudaFree waits for everything queued on the GPU, and each cudaMalloc holds the host, so the GPU idles while the host catches up."),
        (Cause::HostSyncAllocator { calls_per_step }, Zh) => format!("PyTorch 的缓存分配器通常在步骤之间保留显存；这里它每步通过驱动分配和释放显存 {calls_per_step:.0} 次（cudaMalloc、cudaFree）。每次 cudaFree 都要等 GPU 上排队的工作全部完成，每次 cudaMalloc 都占住主机，于是 GPU 空闲，等主机追上来。"),
        (Cause::H2dCopyPageable, En) => "Batches are copied to the GPU from pageable host memory: each copy is slow, synchronous, and nothing computes meanwhile.".into(),
        (Cause::H2dCopyPageable, Zh) => "批次从可分页（pageable）主机内存拷贝到 GPU：每次拷贝都很慢、是同步的，期间没有任何计算。".into(),
        (Cause::H2dCopy, En) => "Host-to-device copies are not overlapped with compute.".into(),
        (Cause::H2dCopy, Zh) => "主机到设备的拷贝没有与计算重叠。".into(),
        (Cause::PeriodicStall { period_steps, excess_ms, work }, En) => format!(
            "Every {period_steps:.0} steps a step takes about {excess_ms:.0} ms longer than usual; during it the GPU has nothing to do.{}",
            match work {
                None => String::new(),
                Some(PeriodicWork::EpochStart { workers, .. }) => format!(
                    " Each stall is an epoch start: the DataLoader starts its {workers} worker processes again."
                ),
                Some(PeriodicWork::Checkpoint) => " Each stall is a checkpoint being written.".into(),
                Some(PeriodicWork::Eval) => " Each stall is an evaluation pass (model.eval() … model.train()).".into(),
                Some(PeriodicWork::GarbageCollection) => " Each stall is a full Python garbage collection.".into(),
                Some(PeriodicWork::HostReadback { readbacks_per_stall }) => format!(
                    " In the profiled stalls the host read tensors back {readbacks_per_stall:.0} times, one at a time, and the GPU sat idle while it worked on them."
                ),
            }
        ),
        (Cause::PeriodicStall { period_steps, excess_ms, work }, Zh) => format!(
            "每 {period_steps:.0} 步就有一步比平常多耗时约 {excess_ms:.0} ms，期间 GPU 无事可做。{}",
            match work {
                None => String::new(),
                Some(PeriodicWork::EpochStart { workers, .. }) => format!(
                    "每次停顿都是一个 epoch 的开始：DataLoader 重新启动它的 {workers} 个 worker 进程。"
                ),
                Some(PeriodicWork::Checkpoint) => "每次停顿都是在写检查点。".into(),
                Some(PeriodicWork::Eval) => "每次停顿都是一次评估（model.eval() … model.train()）。".into(),
                Some(PeriodicWork::GarbageCollection) => "每次停顿都是一次完整的 Python 垃圾回收。".into(),
                Some(PeriodicWork::HostReadback { readbacks_per_stall }) => format!(
                    "在被分析的停顿中，主机逐个把张量读回了 {readbacks_per_stall:.0} 次，GPU 在主机处理它们时一直空闲。"
                ),
            }
        ),
        (Cause::ThrottlingPower { clock_ratio, reasons } | Cause::ThrottlingThermal { clock_ratio, reasons }, En) => format!(
            "The SM clock ran at {}% of its maximum while busy{}.",
            pct(*clock_ratio),
            if reasons.is_empty() { String::new() } else { format!(" ({})", reasons.join(", ")) }
        ),
        (Cause::ThrottlingPower { clock_ratio, reasons } | Cause::ThrottlingThermal { clock_ratio, reasons }, Zh) => format!(
            "忙碌时 SM 时钟只有最大值的 {}%{}。",
            pct(*clock_ratio),
            if reasons.is_empty() { String::new() } else { format!("（{}）", reasons.join("，")) }
        ),
        (Cause::Slowdown { first_ms, last_ms, began_at_s, began_at_step, grew, host_rss_mib }, En) => format!(
            "The median step took {} ms at the start of the run and {} ms at its end; it began to slow down about {} s in (step {began_at_step}). {}{}",
            crate::fixed(*first_ms, 1),
            crate::fixed(*last_ms, 1),
            crate::fixed(*began_at_s, 0),
            match grew {
                SlowdownPart::DataWait => "The wait for each batch grew with it: the input pipeline gets slower.",
                SlowdownPart::HostWork => "The loop's own host time grew with it, not the wait for data: the loop does more work each step than the step before (a list re-scanned, a history kept and summed).",
                SlowdownPart::Other => "Neither the wait for data nor the loop's host time grew as much: the GPU's work per step or waits the step timings do not split grew.",
            },
            match host_rss_mib {
                Some([a, b]) => format!(" The training processes' host memory grew from {a:.0} to {b:.0} MiB meanwhile."),
                None => String::new(),
            }
        ),
        (Cause::Slowdown { first_ms, last_ms, began_at_s, began_at_step, grew, host_rss_mib }, Zh) => format!(
            "运行开始时步骤中位耗时 {} 毫秒，结束时 {} 毫秒；大约在第 {} 秒（第 {began_at_step} 步）开始变慢。{}{}",
            crate::fixed(*first_ms, 1),
            crate::fixed(*last_ms, 1),
            crate::fixed(*began_at_s, 0),
            match grew {
                SlowdownPart::DataWait => "每个批次的等待时间随之增长：输入管道越来越慢。",
                SlowdownPart::HostWork => "随之增长的是循环自身的主机时间，而不是等待数据：循环每一步都比上一步做更多的工作（反复扫描的列表、保留并求和的历史记录）。",
                SlowdownPart::Other => "等待数据和循环的主机时间都没有相应增长：增长的是 GPU 每步的工作，或步骤计时无法拆分的等待。",
            },
            match host_rss_mib {
                Some([a, b]) => format!("同期训练进程的主机内存从 {a:.0} MiB 增长到 {b:.0} MiB。"),
                None => String::new(),
            }
        ),
        (Cause::MemoryCreep { from_gib, to_gib, gib_per_min, capacity_gib, full_in_min }, En) => format!(
            "Memory in live tensors grew from {} to {} GiB while the run went on ({} GiB a minute) on a {} GiB card{}. Something keeps tensors from every step alive.",
            crate::fixed(*from_gib, 1),
            crate::fixed(*to_gib, 1),
            crate::fixed(*gib_per_min, 1),
            crate::fixed(*capacity_gib, 0),
            match full_in_min {
                Some(m) if *m < 1.0 => ": at that pace it is full within a minute of the recording's end, and the run stops with an out-of-memory error".into(),
                Some(m) => format!(": at that pace it is full about {} minutes after the recording ends, and the run stops with an out-of-memory error", crate::fixed(*m, 0)),
                None => String::new(),
            }
        ),
        (Cause::MemoryCreep { from_gib, to_gib, gib_per_min, capacity_gib, full_in_min }, Zh) => format!(
            "运行过程中活动张量占用的显存从 {} GiB 增长到 {} GiB（每分钟 {} GiB），显卡容量 {} GiB{}。有东西让每一步的张量一直存活。",
            crate::fixed(*from_gib, 1),
            crate::fixed(*to_gib, 1),
            crate::fixed(*gib_per_min, 1),
            crate::fixed(*capacity_gib, 0),
            match full_in_min {
                Some(m) if *m < 1.0 => "：照此速度，记录结束后一分钟内显存就会用满，训练将因显存不足（OOM）而中止".into(),
                Some(m) => format!("：照此速度，记录结束后约 {} 分钟显存就会用满，训练将因显存不足（OOM）而中止", crate::fixed(*m, 0)),
                None => String::new(),
            }
        ),
        (Cause::MemoryNearLimit { peak_gib, capacity_gib, others_gib }, En) => format!(
            "At its peak the GPU had {} of its {} GiB in use ({}%){}. There is no room for a larger batch, and a longer sequence or a bigger layer runs out of memory. The fixes below free memory, cheapest first, each with what it would free in this run.",
            crate::fixed(*peak_gib, 1),
            crate::fixed(*capacity_gib, 0),
            crate::pct(peak_gib / capacity_gib),
            if *others_gib >= 1.0 { format!(", {} GiB of it held by other processes", crate::fixed(*others_gib, 1)) } else { String::new() }
        ),
        (Cause::MemoryNearLimit { peak_gib, capacity_gib, others_gib }, Zh) => format!(
            "峰值时 GPU 的 {} GiB 显存中已用 {} GiB（{}%）{}。已经没有空间增大批大小，更长的序列或更大的层都会显存不足。下面的修复按代价从低到高释放显存，并给出各自在本次运行中能释放的量。",
            crate::fixed(*capacity_gib, 0),
            crate::fixed(*peak_gib, 1),
            crate::pct(peak_gib / capacity_gib),
            if *others_gib >= 1.0 { format!("，其中 {} GiB 被其他进程占用", crate::fixed(*others_gib, 1)) } else { String::new() }
        ),
        (Cause::HostMemoryCreep { from_mib, to_mib, mib_per_min }, En) => format!(
            "The training's processes held {} GiB of host memory at the start of the run and {} GiB at its end, {} GiB more every minute, growing all along. Something keeps a piece of every step on the host (predictions, losses, arrays kept in a list; a cache that never evicts); a longer run ends when the host runs out of memory and its OOM killer stops the training.",
            crate::fixed(from_mib / 1024.0, 1),
            crate::fixed(to_mib / 1024.0, 1),
            crate::fixed(mib_per_min / 1024.0, 1),
        ),
        (Cause::HostMemoryCreep { from_mib, to_mib, mib_per_min }, Zh) => format!(
            "训练进程在运行开始时占用 {} GiB 主机内存，结束时 {} GiB，每分钟多 {} GiB，一直在增长。有东西把每一步的一部分留在了主机上（保存在列表里的预测、损失、数组；从不淘汰的缓存）；运行更久时，主机内存会被耗尽，系统的 OOM killer 会终止训练。",
            crate::fixed(from_mib / 1024.0, 1),
            crate::fixed(to_mib / 1024.0, 1),
            crate::fixed(mib_per_min / 1024.0, 1),
        ),
        (Cause::MemoryFragmented { reserved_gib, peak_allocated_gib, retries }, En) => format!(
            "PyTorch's allocator reserved {} GiB, but the tensors never needed more than {} GiB at once: {} GiB sit in cached blocks of the wrong sizes (tensors of changing shapes){}.",
            crate::fixed(*reserved_gib, 1),
            crate::fixed(*peak_allocated_gib, 1),
            crate::fixed(reserved_gib - peak_allocated_gib, 1),
            if *retries > 0 { format!(", and {retries} allocations failed until it emptied its cache, a slow step each") } else { String::new() }
        ),
        (Cause::MemoryFragmented { reserved_gib, peak_allocated_gib, retries }, Zh) => format!(
            "PyTorch 的分配器预留了 {} GiB，但张量同时所需从未超过 {} GiB：有 {} GiB 停留在尺寸不合用的缓存块中（张量形状不断变化）{}。",
            crate::fixed(*reserved_gib, 1),
            crate::fixed(*peak_allocated_gib, 1),
            crate::fixed(reserved_gib - peak_allocated_gib, 1),
            if *retries > 0 { format!("，并有 {retries} 次分配失败后才清空缓存重试，每次都是一个慢步骤") } else { String::new() }
        ),
        (Cause::GpuIdle { busy_share, recorded, suspect: Some(suspect) }, En) => format!(
            "The GPU is busy {}% of the time; {}. {} A short profile (checkup-agent run --profile-steps 8) would confirm it.",
            pct(*busy_share),
            recorded_en(*recorded),
            match suspect {
                IdleSuspect::InputPipeline { workers_cpu_pct, .. } => format!("While it idled, the training's worker processes used {:.1} CPU cores between them: most likely the input pipeline cannot keep up.", workers_cpu_pct / 100.0),
                IdleSuspect::PythonLoop { main_cpu_pct } => format!("While it idled, the training process held {main_cpu_pct:.0}% of a core and its workers were not busy: most likely the Python loop itself (kernel launches, per-step Python work)."),
            }
        ),
        (Cause::GpuIdle { busy_share, recorded, suspect: Some(suspect) }, Zh) => format!(
            "GPU 只有 {}% 的时间在忙；{}。{}做一次简短的分析（checkup-agent run --profile-steps 8）即可确认。",
            pct(*busy_share),
            recorded_zh(*recorded),
            match suspect {
                IdleSuspect::InputPipeline { workers_cpu_pct, .. } => format!("GPU 空闲时，训练的 worker 进程合计占用 {:.1} 个 CPU 核心：很可能是输入管道跟不上。", workers_cpu_pct / 100.0),
                IdleSuspect::PythonLoop { main_cpu_pct } => format!("GPU 空闲时，训练进程占用了一个核心的 {main_cpu_pct:.0}%，而它的 worker 并不忙：很可能是 Python 循环本身（内核发射、每步的 Python 工作）。"),
            }
        ),
        (Cause::GpuIdle { busy_share, recorded, .. }, En) => format!(
            "The GPU is busy {}% of the time; {}. Profile a few training steps to see whether it waits for data, for kernel launches or for synchronisations.",
            pct(*busy_share),
            recorded_en(*recorded)
        ),
        (Cause::GpuIdle { busy_share, recorded, .. }, Zh) => format!(
            "GPU 只有 {}% 的时间在忙；{}。分析几个训练步骤，看它是在等数据、等内核发射，还是在等同步。",
            pct(*busy_share),
            recorded_zh(*recorded)
        ),
        (Cause::Environment { check }, _) => {
            let t = checks::text(check, l);
            match l {
                En => format!("{}: {}. {}", t.title, t.value, t.meaning),
                Zh => format!("{}：{}。{}", t.title, t.value, t.meaning),
            }
        }
    }
}

fn recorded_en(r: Recorded) -> &'static str {
    match r {
        Recorded::SamplesOnly => {
            "only GPU and host samples were recorded: no step timings, no trace"
        }
        Recorded::StepsNoTrace => "step timings were recorded but no trace",
        Recorded::TraceNoSteps => "a trace was recorded but no step timings",
        Recorded::StepsAndTrace => "neither the step timings nor the trace account for it",
    }
}

fn recorded_zh(r: Recorded) -> &'static str {
    match r {
        Recorded::SamplesOnly => "这份记录只有 GPU 和主机采样：没有步骤计时，也没有 trace",
        Recorded::StepsNoTrace => "这份记录有步骤计时，但没有 trace",
        Recorded::TraceNoSteps => "这份记录有 trace，但没有步骤计时",
        Recorded::StepsAndTrace => "步骤计时和 trace 都解释不了这段空闲",
    }
}

/// `title` with its first letter in lower case, to go on inside a sentence (acronyms such as
/// CPU and NCCL further on stay as they are).
fn lowercase_first(title: &str) -> String {
    let mut chars = title.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// One sentence for the top of a report: the leading finding, the share of step time it
/// explains and the first fix to try.
pub fn verdict(d: &Diagnosis, l: Language) -> String {
    match d.findings.first() {
        Some(f) => lead(f, l),
        None => match l {
            En => "Not enough data for a verdict.".into(),
            Zh => "数据不足，无法给出结论。".into(),
        },
    }
}

/// The verdict sentence for a leading finding.
pub fn lead(f: &Finding, l: Language) -> String {
    let title = title(&f.cause, l);
    let summary = summary(f, l);
    let fix = f.fixes.first().map(|x| fixes::text(x, l).title);
    // A verdict, or a finding about memory rather than time: no share of step time to say.
    let busy = matches!(f.family(), Family::ComputeBound | Family::Memory);
    match l {
        En => {
            let first_fix = fix
                .map(|t| format!(" First fix to try: {}.", lowercase_first(&t)))
                .unwrap_or_default();
            if busy {
                format!("{title} — {summary}{first_fix}")
            } else {
                format!(
                    "{title}: {}% of step time. {summary}{first_fix}",
                    pct(f.share)
                )
            }
        }
        Zh => {
            let first_fix = fix.map(|t| format!("首先尝试：{t}。")).unwrap_or_default();
            if busy {
                format!("{title}。{summary}{first_fix}")
            } else {
                format!(
                    "{title}：占步骤时间的 {}%。{summary}{first_fix}",
                    pct(f.share)
                )
            }
        }
    }
}

/// "ranks 0, 1, 2 and 3" (at most eight named, then how many more).
fn rank_list(ranks: &[u32], l: Language) -> String {
    const NAMED: usize = 8;
    let named: Vec<String> = ranks.iter().take(NAMED).map(u32::to_string).collect();
    let more = ranks.len().saturating_sub(NAMED);
    match l {
        En => {
            let list = match named.as_slice() {
                [] => String::new(),
                [one] => one.clone(),
                [init @ .., last] if more == 0 => format!("{} and {last}", init.join(", ")),
                all => format!("{} and {more} more", all.join(", ")),
            };
            format!("ranks {list}")
        }
        Zh => {
            let list = named.join("、");
            if more > 0 {
                format!("rank {list} 等 {} 个", ranks.len())
            } else {
                format!("rank {list}")
            }
        }
    }
}

/// A step time in ms: one decimal under 100 ms, whole above.
pub(crate) fn ms(v: f64) -> String {
    if v < 100.0 {
        fixed(v, 1)
    } else {
        fixed(v, 0)
    }
}

/// One fix's expected gain, short (its finding's gain sentence states what it rests on);
/// for a fix that removes part of the cause, which part.
pub fn fix_gain(fg: &FixGain, l: Language) -> String {
    let g = &fg.expected;
    let speedup = fixed(g.speedup(), if g.speedup() < 10.0 { 1 } else { 0 });
    let (now, after) = (ms(g.before_ms), ms(g.after_ms));
    let part = match (fg.reach, l) {
        (FixReach::Part(p), En) => format!(
            ", for the {}% of the synchronising calls this line makes",
            pct(p)
        ),
        (FixReach::Part(p), Zh) => format!("，按这一行占同步调用的 {}% 计", pct(p)),
        _ => String::new(),
    };
    match l {
        En => format!("Expected gain: about {now} → {after} ms per step ({speedup}×){part}."),
        Zh => format!("预期收益：每步约 {now} → {after} ms（{speedup}×）{part}。"),
    }
}

/// What removing a finding's cause would make of the step, with the assumptions it rests
/// on: "about 23.0 → 8.1 ms per step (2.8×) …".
pub fn gain(g: &ExpectedGain, l: Language) -> String {
    let speedup = fixed(g.speedup(), if g.speedup() < 10.0 { 1 } else { 0 });
    let (now, after) = (ms(g.before_ms), ms(g.after_ms));
    let basis = match (g.basis, l) {
        (StepBasis::UnprofiledSteps, En) => "the mean of the unprofiled steps",
        (StepBasis::UnprofiledSteps, Zh) => "未分析步骤的平均值",
        (StepBasis::ProfiledSteps, En) => "the profiled steps, which the profiler slowed",
        (StepBasis::ProfiledSteps, Zh) => "已分析步骤（分析器使其变慢）",
    };
    let bound = match (g.gpu_busy_ms, g.bounded_by_gpu_busy, l) {
        (Some(b), true, En) => format!(
            " The GPU's own work, {} ms per step, sets that floor.",
            ms(b)
        ),
        (Some(b), true, Zh) => format!("GPU 自身每步 {} ms 的工作决定了这个下限。", ms(b)),
        (Some(b), false, En) => format!(" It stays above the GPU's own {} ms per step.", ms(b)),
        (Some(b), false, Zh) => format!("仍高于 GPU 自身每步 {} ms 的工作。", ms(b)),
        (None, _, _) => String::new(),
    };
    match l {
        En => format!(
            "Expected gain: about {now} → {after} ms per step ({speedup}×) if this cause's time went away entirely and nothing else changed; from {basis}.{bound}"
        ),
        Zh => format!(
            "预期收益：若这一原因的耗时完全消除且其他不变，每步约 {now} → {after} ms（{speedup}×）；基于{basis}。{bound}"
        ),
    }
}
