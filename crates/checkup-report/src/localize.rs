//! Simplified Chinese for the texts the engine writes in English: finding titles, summaries,
//! evidence names and sources, fixes, environment checks and the verdict. Numbers come from
//! the finding's own evidence, so a translated summary says exactly what the English one says.
//! Anything without a translation (a string from a trace, a new engine string) stays as is.

use checkup_model::{ids, Diagnosis, EnvCheck, Evidence, Finding, Fix};

use crate::i18n::Language;

/// The diagnosis with its human-readable texts in `lang`.
pub fn localize(d: &Diagnosis, lang: Language) -> Diagnosis {
    let mut d = d.clone();
    if lang == Language::En {
        return d;
    }
    for f in &mut d.findings {
        localize_finding(f);
    }
    for c in &mut d.environment {
        localize_check(c);
    }
    d.window.method = window_method(&d);
    d.notes = d.notes.iter().map(|n| note(n)).collect();
    if let Some(first) = d.findings.first() {
        let fix = first
            .fixes
            .first()
            .map(|x| format!("首先尝试：{}。", x.title))
            .unwrap_or_default();
        d.verdict = if matches!(first.family(), ids::COMPUTE_BOUND) {
            format!("{}。{}{}", first.title, first.summary, fix)
        } else {
            format!(
                "{}：占步骤时间的 {:.0}%。{}{}",
                first.title,
                first.share * 100.0,
                first.summary,
                fix
            )
        };
    }
    d
}

fn value(f: &Finding, metric_prefix: &str) -> Option<f64> {
    f.evidence
        .iter()
        .find(|e| e.metric.starts_with(metric_prefix))
        .map(|e| e.value)
}

fn localize_finding(f: &mut Finding) {
    let pct = |v: Option<f64>| v.map_or_else(|| "?".into(), |v| format!("{v:.0}%"));
    let title = match f.family() {
        ids::COMPUTE_BOUND => "计算瓶颈：GPU 本身是限制",
        ids::DATA_LOADING => "输入管线（DataLoader）让 GPU 挨饿",
        ids::KERNEL_LAUNCH if f.id.ends_with("/cpu_contention") => {
            "内核发射在等待 CPU：其他进程占满了主机"
        }
        ids::KERNEL_LAUNCH => "内核启动开销：大量微小内核",
        ids::MEMORY_BANDWIDTH => "显存带宽瓶颈",
        ids::COMMUNICATION if f.id.ends_with("/straggler") => "某个 rank 在等待更慢的 rank",
        ids::COMMUNICATION if f.id.ends_with("/p2p_disabled") => {
            "存在 NVLink 却禁用了 NCCL 点对点通信"
        }
        ids::COMMUNICATION => "梯度 all-reduce 通信未被隐藏",
        ids::HOST_SYNC => "主机同步使 GPU 空闲",
        ids::H2D_COPY => "主机到设备的拷贝阻塞 GPU",
        ids::PERIODIC_STALL => "周期性停顿",
        ids::THROTTLING => "GPU 时钟被压低",
        ids::GPU_IDLE => "GPU 大部分时间在等待，而这份记录看不出原因",
        _ => "",
    };
    let summary = match f.family() {
        ids::COMPUTE_BOUND => format!("GPU 在每个步骤中有 {} 的时间在计算。", pct(value(f, "compute kernels").or(value(f, "GPU busy share")))),
        ids::DATA_LOADING if f.id.ends_with("/cpu_saturated") && value(f, "GPU idle waiting for kernel launches").is_some() => format!(
            "输入管线让主机 CPU 饱和（全部核心的 {}，其中 {:.1} 个核心属于训练自身的进程）：主线程缺少 CPU，内核发射变晚（GPU 每步有 {} 的时间在等待发射），批次也来得晚。增加 worker 无济于事，每个批次消耗的 CPU 太多。",
            pct(value(f, "host CPU use")),
            value(f, "training process tree CPU").unwrap_or(0.0) / 100.0,
            pct(value(f, "GPU idle waiting for kernel launches"))
        ),
        ids::DATA_LOADING if f.id.ends_with("/cpu_contention") => format!(
            "GPU 在等待输入管线，而训练之外的进程让主机 CPU 保持饱和（全部核心的 {}；训练自身的进程只得到 {:.1} 个核心）：它的 worker 缺少 CPU，也没有空闲核心可以再加 worker。",
            pct(value(f, "host CPU use")),
            value(f, "training process tree CPU").unwrap_or(0.0) / 100.0
        ),
        ids::DATA_LOADING if f.id.ends_with("/cpu_saturated") => {
            format!("GPU 在等待输入管线，而主机 CPU 已饱和（{}）：增加 worker 无济于事，每个批次消耗的 CPU 太多。", pct(value(f, "host CPU use")))
        }
        ids::DATA_LOADING => format!(
            "GPU 在等待下一个批次：输入管线比 GPU 慢（每步平均等待数据 {:.0} ms），而主机仍有空闲核心。",
            value(f, "mean data wait").unwrap_or(0.0)
        ),
        ids::KERNEL_LAUNCH if f.id.ends_with("/cpu_contention") => format!(
            "训练之外的进程让主机 CPU 保持饱和（全部核心的 {}；训练自身的进程只得到 {:.1} 个核心）：训练循环发射内核变晚，GPU 在等待它们。",
            pct(value(f, "host CPU use")),
            value(f, "training process CPU").unwrap_or(0.0) / 100.0
        ),
        ids::KERNEL_LAUNCH => format!(
            "主机发射内核的速度跟不上 GPU 执行的速度：每步 {:.0} 个内核，中位时长 {:.1} µs，GPU 大部分时间在等待下一次发射。",
            value(f, "kernels per step").unwrap_or(0.0),
            value(f, "median kernel duration").unwrap_or(0.0)
        ),
        ids::MEMORY_BANDWIDTH => format!(
            "GPU 处于忙碌状态，但内核受限于显存流量而非算力（显存带宽为峰值的 {}，张量核 {}）：减少对显存的遍历次数才能提速，而不是增加算力。",
            pct(value(f, "DRAM bandwidth")),
            pct(value(f, "tensor-core activity"))
        ),
        ids::COMMUNICATION if f.id.ends_with("/straggler") => format!(
            "{}：多出的 NCCL 时间是在等待较慢的 rank 到达 all-reduce，而不是传输时间；诊断以较慢的 rank 为准。",
            f.title
        ),
        ids::COMMUNICATION if f.id.ends_with("/p2p_disabled") => "NCCL_P2P_DISABLE 迫使 all-reduce 流量经由主机内存，而不是 NVLink。".into(),
        ids::COMMUNICATION => format!(
            "在最慢的 rank 上，NCCL all-reduce 有 {} 的步骤时间没有与计算重叠{}。",
            pct(value(f, "exposed communication on the slowest rank")),
            value(f, "scaling efficiency").map(|e| format!("；多 GPU 扩展效率为 {e:.0}%")).unwrap_or_default()
        ),
        ids::HOST_SYNC => "训练循环每步都在等待 GPU（loss.item()、.cpu()、显式 synchronize），随后 GPU 又要等主机做完 CPU 计算才能发射下一步。".into(),
        ids::H2D_COPY if f.id.ends_with("/pageable") => "批次从可分页（pageable）主机内存拷贝到 GPU：每次拷贝都很慢、是同步的，期间没有任何计算。".into(),
        ids::H2D_COPY => "主机到设备的拷贝没有与计算重叠。".into(),
        ids::PERIODIC_STALL => format!(
            "每 {:.0} 步就有一步比平常多耗时约 {:.0} ms，期间 GPU 无事可做。",
            value(f, "stall period").unwrap_or(0.0),
            value(f, "typical stall length").unwrap_or(0.0)
        ),
        ids::THROTTLING => format!("忙碌时 SM 时钟只有最大值的 {}。", pct(value(f, "SM clock while busy"))),
        ids::GPU_IDLE => format!(
            "GPU 只有 {} 的时间在忙；{}。分析几个训练步骤，看它是在等数据、等内核发射，还是在等同步。",
            pct(value(f, "GPU busy share")),
            if f.summary.contains("only GPU and host samples") {
                "这份记录只有 GPU 和主机采样：没有步骤计时，也没有 trace"
            } else if f.summary.contains("no trace") {
                "这份记录有步骤计时，但没有 trace"
            } else if f.summary.contains("no step timings") {
                "这份记录有 trace，但没有步骤计时"
            } else {
                "步骤计时和 trace 都解释不了这段空闲"
            }
        ),
        _ => String::new(),
    };
    if !title.is_empty() {
        f.title = title.into();
    }
    if !summary.is_empty() {
        f.summary = summary;
    }
    for e in &mut f.evidence {
        localize_evidence(e);
    }
    for x in &mut f.fixes {
        localize_fix(x);
    }
}

fn localize_evidence(e: &mut Evidence) {
    const METRICS: &[(&str, &str)] = &[
        ("DRAM bandwidth utilisation (GPM)", "显存带宽利用率（GPM）"),
        ("DataLoader num_workers", "DataLoader num_workers"),
        (
            "GPU busy share of a step at unprofiled speed",
            "未分析速度下 GPU 忙碌占步骤比例",
        ),
        ("GPU busy share of a step", "GPU 忙碌占步骤比例"),
        ("GPU busy share", "GPU 忙碌比例"),
        (
            "GPU idle time no other finding explains",
            "其他发现都解释不了的 GPU 空闲时间",
        ),
        ("GPU busy time per step", "每步 GPU 忙碌时间"),
        (
            "GPU idle after a host synchronisation (share of step)",
            "主机同步后的 GPU 空闲（占步骤比例）",
        ),
        (
            "GPU idle waiting for the host to launch work (share of step)",
            "GPU 等待主机发射工作的空闲（占步骤比例）",
        ),
        (
            "GPU idle while waiting for the DataLoader (share of step)",
            "GPU 等待 DataLoader 的空闲（占步骤比例）",
        ),
        (
            "GPU idle waiting for data in unprofiled steps, at least (share of step)",
            "未分析步骤中 GPU 等待数据的空闲，至少（占步骤比例）",
        ),
        (
            "GPU idle waiting for kernel launches, main thread short of CPU (share of step)",
            "GPU 等待内核发射的空闲，主线程缺少 CPU（占步骤比例）",
        ),
        ("GPU util dips to idle every", "GPU 利用率跌至空闲的周期"),
        (
            "GPU-Util (any kernel running)",
            "GPU-Util（有任一内核运行）",
        ),
        ("NCCL kernel time per step", "每步 NCCL 内核时间"),
        (
            "NCCL_P2P_DISABLE set while NVLink connects the GPUs",
            "GPU 之间有 NVLink 却设置了 NCCL_P2P_DISABLE",
        ),
        ("NVLink transmit", "NVLink 发送"),
        ("SM active (GPM)", "SM 活跃（GPM）"),
        (
            "SM clock while busy, share of max",
            "忙碌时 SM 时钟占最大值比例",
        ),
        (
            "aten::item / _local_scalar_dense per step",
            "每步 aten::item / _local_scalar_dense 次数",
        ),
        (
            "busy samples with a throttling clock-event reason",
            "带降频原因的忙碌采样",
        ),
        ("communication hidden behind compute", "被计算隐藏的通信"),
        ("compute kernels, share of step", "计算内核占步骤比例"),
        ("data wait share of step time", "数据等待占步骤时间比例"),
        (
            "elementwise/normalisation share of kernel time",
            "逐元素/归一化内核占内核时间比例",
        ),
        (
            "exposed communication on the slowest rank (share of step)",
            "最慢 rank 上暴露的通信（占步骤比例）",
        ),
        (
            "extra exposed communication on the waiting rank",
            "等待方 rank 多出的暴露通信",
        ),
        ("host CPU use, all cores", "主机 CPU 使用率（全部核心）"),
        (
            "host time to launch a step, outside syncs",
            "主机发射一步所需时间（不含同步）",
        ),
        (
            "host-to-device copies not hidden by compute (share of step)",
            "未被计算隐藏的主机到设备拷贝（占步骤比例）",
        ),
        ("kernels per step", "每步内核数"),
        ("kernels shorter than 10 µs", "短于 10 µs 的内核"),
        (
            "matmul/convolution share of kernel time",
            "矩阵乘/卷积占内核时间比例",
        ),
        ("mean GPU utilisation", "平均 GPU 利用率"),
        ("median data wait per step", "每步数据等待中位数"),
        ("mean data wait per step", "每步平均数据等待"),
        ("median kernel duration", "内核时长中位数"),
        ("pageable bytes copied per step", "每步可分页拷贝字节数"),
        ("pageable copy bandwidth", "可分页拷贝带宽"),
        (
            "pageable host-to-device copy time per step",
            "每步可分页主机到设备拷贝时间",
        ),
        ("peak GPU temperature", "GPU 峰值温度"),
        ("peak disk write rate", "磁盘写入峰值速率"),
        (
            "pinned host-to-device copy time per step",
            "每步锁页主机到设备拷贝时间",
        ),
        ("power draw, share of limit", "功耗占上限比例"),
        (
            "profiled step time (CPU side)",
            "分析期间的步骤时间（CPU 侧）",
        ),
        ("speed-up over 1 GPU", "相对单 GPU 的加速比"),
        ("stall period", "停顿周期"),
        ("stalls in the steady window", "稳态窗口内的停顿次数"),
        (
            "synchronising CUDA calls per step",
            "每步同步型 CUDA 调用次数",
        ),
        ("tensor-core activity (GPM)", "张量核活跃度（GPM）"),
        (
            "time lost to stalls (share of run)",
            "停顿损失的时间（占运行比例）",
        ),
        (
            "training process CPU (100 = one core)",
            "训练进程 CPU（100 = 1 核）",
        ),
        (
            "training process tree CPU (100 = one core)",
            "训练进程树 CPU（100 = 1 核）",
        ),
        (
            "typical stall length beyond a normal step",
            "比正常步骤多出的典型停顿时长",
        ),
        ("unprofiled step time", "未分析的步骤时间"),
    ];
    if let Some((_, zh)) = METRICS.iter().find(|(en, _)| *en == e.metric) {
        e.metric = (*zh).into();
    } else if let Some(rank) = e.metric.strip_prefix("exposed communication, rank ") {
        e.metric = format!("rank {rank} 暴露的通信");
    } else if let Some(rest) = e.metric.strip_prefix("scaling efficiency, ") {
        e.metric = format!(
            "扩展效率（{}）",
            rest.replace(" GPUs vs 1", " 个 GPU 对比 1 个")
        );
    }
    e.unit = match e.unit.as_str() {
        "calls" => "次".into(),
        "kernels" => "个".into(),
        "steps" => "步".into(),
        "stalls" => "次".into(),
        "workers" => "个".into(),
        other => other.into(),
    };
    e.source = e
        .source
        .replace("steps.csv (unprofiled steps)", "steps.csv（未分析的步骤）")
        .replace(
            "steps.csv data wait − GPU busy share",
            "steps.csv 数据等待 − GPU 忙碌占比",
        )
        .replace("NVML samples", "NVML 采样")
        .replace("GPM samples", "GPM 采样")
        .replace("host samples", "主机采样")
        .replace("static snapshot", "静态快照")
        .replace("traces of all ranks", "所有 rank 的 trace")
        .replace(
            "trace busy time per step ÷ unprofiled step time",
            "trace 每步忙碌时间 ÷ 未分析步骤时间",
        )
        .replace("profiled window", "分析窗口")
        .replace(
            "sampled GPU-Util (share of time a kernel runs)",
            "GPU-Util 采样（有内核运行的时间比例）",
        )
        .replace("sampled SM activity (GPM)", "SM 活跃度采样（GPM）")
        .replace("this diagnosis", "本次诊断")
        .replace("samples/s vs partner", "样本/秒，对照单 GPU 运行");
}

fn localize_fix(x: &mut Fix) {
    const FIXES: &[(&str, &str, &str, &str)] = &[
        ("Make each sample cheaper to produce (the CPU is already saturated)", "降低每个样本的生成成本（CPU 已饱和）", "所有核心都在忙，增加 DataLoader worker 只会争抢同样的核心。应降低每个样本的 CPU 成本：在 GPU 上解码 JPEG（torchvision.io.decode_jpeg(device='cuda') 或 NVIDIA DALI），把数据增强移到 GPU，预先缩放图像，或使用更快的解码器。", "当一个批次的 CPU 成本低于一步的时间，步骤时间会降到 GPU 的计算时间。"),
        ("Leave two cores to the training loop", "给训练循环留出两个核心", "每个核心一个 worker 时，运行训练循环的进程要和自己的 worker 争抢 CPU：内核发射和批次整理都会变慢。少用两个 worker，让它独占一个核心。", "内核发射恢复到无负载时的速度；在每个批次的 CPU 成本降下来之前，批次最多慢两个 worker 的份额。"),
        ("Give the DataLoader more worker processes", "给 DataLoader 更多 worker 进程", "主机还有空闲核心。每个 worker 并行准备批次；worker 足够多时，GPU 需要时批次已经就绪。", "每步数据等待大致随 worker 数成比例下降，直到 GPU 成为瓶颈。"),
        ("Pin host memory and copy asynchronously", "使用锁页内存并异步拷贝", "pin_memory=True 让批次可以通过 DMA 拷贝到 GPU，配合 non_blocking=True 可与计算重叠。", "同步的主机到设备拷贝从步骤中消失。"),
        ("Keep workers alive between epochs", "在 epoch 之间保留 worker", "persistent_workers=True 避免每个 epoch 重新创建 worker（以及重新打开数据集），否则每个 epoch 开始时都会停顿。", "epoch 边界不再停顿。"),
        ("Copy from pinned memory, asynchronously", "从锁页内存异步拷贝", "从可分页内存拷贝要经过驱动的中转缓冲，只能达到 PCIe 带宽的一小部分，并且会同时阻塞主机和流。锁页内存通过 DMA 全速拷贝，并可与计算重叠。", "拷贝时间成倍下降，剩余部分被计算隐藏。"),
        ("Overlap the next batch's copy with this step's compute", "让下一个批次的拷贝与本步计算重叠", "在本步运行时，用单独的流把下一个批次预取到 GPU。", "当拷贝短于一步的计算时，它会从关键路径上消失。"),
        ("Send fewer bytes", "少传字节", "拷贝 uint8 图像或 bf16 张量，在 GPU 上再转换，而不是拷贝 float32。", "拷贝时间随字节数下降（uint8 相比 float32 少 4 倍）。"),
        ("Find what else keeps the CPU busy", "找出还有什么在占用 CPU", "训练之外的进程占着主机的核心，训练循环拿到 CPU 时间就晚，内核发射也跟着晚。按 CPU 使用率列出进程，停止、迁移或限制那些不该在这里运行的；在共享主机上，申请专属的核心。", "训练及其 worker 重新得到 CPU 时间：内核发射和批次都不再为它等待。"),
        ("Give the training cores of its own", "给训练分配专属核心", "把训练（及其 DataLoader worker）绑定到其他负载不用的核心上，或降低其他进程的优先级。", "无论主机其他部分多忙，训练循环都能立即得到调度。"),
        ("Compile the model to fuse small kernels", "编译模型以融合小内核", "torch.compile 把一串小的逐元素操作融合成少数几个内核；mode=\"reduce-overhead\" 还会捕获 CUDA Graph，一次调用发射整步。", "每步内核数下降数倍，启动开销基本消失。"),
        ("Use fused or foreach optimizers", "使用 fused 或 foreach 优化器", "逐参数的优化器对每个参数张量发射多个内核；foreach/fused 版本用少数几个内核更新全部参数。", "优化器步骤从数百次发射降到几次。"),
        ("Give each kernel more work", "让每个内核做更多工作", "更大的批次（或用梯度累积保持等效批次）让每个内核运行更久，启动开销占比随之变小。", "在启动瓶颈下，吞吐量几乎随批次线性增长。"),
        ("Stop reading GPU values back every step", "不要每步都把 GPU 上的值读回主机", "loss.item()、.cpu()、.numpy()、print(tensor) 以及对张量做 Python 条件判断都会让主机等待 GPU，随后 GPU 又要等主机发射新工作。把指标累积在 GPU 上，每 N 步读取一次。", "每次同步之后的空闲间隙消失，GPU 持续有活干。"),
        ("Compute metrics on the GPU", "在 GPU 上计算指标", "用 CUDA 张量上的 torch 运算（如 torch.bincount）计算混淆矩阵和准确率，而不是在拷贝出来的张量上用 NumPy 循环。", "每步不再有主机往返。"),
        ("Find hidden syncs", "找出隐藏的同步", "torch.cuda.set_sync_debug_mode(\"warn\") 会在每个同步调用处打印带调用栈的警告。", "准确显示哪些代码行在同步。"),
        ("Re-enable NCCL peer-to-peer", "重新启用 NCCL 点对点通信", "NCCL_P2P_DISABLE=1 迫使 GPU 之间的流量经由主机内存，即使存在 NVLink。", "all-reduce 恢复 NVLink 速度，快数倍。"),
        ("Communicate less often: accumulate gradients", "降低通信频率：梯度累积", "使用梯度累积时，DDP 每 N 个微批次才做一次 all-reduce；其余微批次用 no_sync() 跳过。", "每个样本的通信量按累积倍数下降。"),
        ("Make each GPU do more work per all-reduce", "让每个 GPU 在每次 all-reduce 之间做更多工作", "更大的单卡批次保持梯度大小不变而计算量增加，all-reduce 更容易被反向传播隐藏。", "随着每步计算量增加，暴露的通信占比下降。"),
        ("Send fewer bytes per all-reduce", "每次 all-reduce 少传字节", "用 DDP 通信钩子把梯度压缩为 bf16，并让分桶更早开始。", "all-reduce 字节数减半（fp32 → bf16），与反向传播的重叠更多。"),
        ("Write checkpoints asynchronously", "异步写检查点", "每 N 步一次的停顿通常来自检查点、评估、日志或 epoch 边界。如果是检查点，请在后台保存，让训练继续。", "停顿缩短到把权重拷回主机所需的时间。"),
        ("Do periodic work less often or off the critical path", "降低周期性工作的频率或移出关键路径", "降低评估和日志的频率，保持 DataLoader worker 常驻，避免重复创建迭代器。", "停顿更少、更短。"),
        ("Profile a few training steps", "分析几个训练步骤", "trace 和步骤计时可以区分等待数据、发射开销和同步。agent 无需改代码即可记录两者。", "下一次体检会指出原因和修复方法。"),
        ("Look at the training loop's own CPU work", "检查训练循环自身的 CPU 工作", "训练进程大约占满一个 CPU 核心：Python 主线程在全速运行。常见原因是在主进程里准备数据（num_workers=0）、每步的 Python 工作，或大量小内核的发射。", "GPU 能以它能接受的速度拿到工作。"),
        ("Cool the GPU", "给 GPU 降温", "GPU 为了保持在温度限制内降低了时钟：检查风道、风扇曲线、灰尘和机房进风温度。", "负载下时钟恢复到最大值。"),
        ("Check the power limit and power delivery", "检查功耗上限与供电", "GPU 为了保持在功耗上限内压低了时钟。对比实际上限与默认值（nvidia-smi -q -d POWER）；共享主机请联系管理员。低精度运算（bf16）以更少的功耗完成同样的工作。", "时钟和吞吐量恢复到显卡的额定水平。"),
        ("Use tensor cores: bf16 autocast or TF32", "使用张量核：bf16 autocast 或 TF32", "矩阵乘以普通 fp32 运行，张量核闲置。bf16 autocast（至少 TF32）让它们在张量核上以数倍于 fp32 的速度运行。", "以矩阵乘为主的步骤快数倍。"),
        ("Compile the model", "编译模型", "GPU 已是瓶颈，下一步的收益来自每步少做工作：torch.compile 把逐元素操作融合进相邻内核。", "训练步骤通常提速 1.2–2 倍。"),
        ("Use channels_last for convolutions", "卷积使用 channels_last", "cuDNN 最快的张量核卷积需要 NHWC 布局。", "混合精度下卷积快 10–30%。"),
        ("Use fused optimizers", "使用 fused 优化器", "融合的优化器内核降低优化器在步骤中的占比。", "优化器占比下降。"),
        ("Fuse elementwise chains", "融合逐元素操作链", "归一化、激活和 dropout 各自读写整个张量；torch.compile 把它们融合，让张量只经过一次显存。", "每步搬运的字节按融合倍数下降，这类模块常见 1.5–3 倍提速。"),
        ("Halve the bytes: bf16 activations", "字节减半：bf16 激活", "在 autocast 下，激活以 bf16 存储：显存流量是 fp32 的一半。", "带宽受限的内核最多快 2 倍。"),
        ("Use fused kernels for the hot blocks", "热点模块使用融合内核", "融合的 LayerNorm/RMSNorm、融合 bias-GELU、scaled_dot_product_attention（flash attention）避免生成中间结果。", "每层对显存的遍历次数更少。"),
        ("Fix the environment", "修复环境问题", "", "消除任何代码修改都无法解决的减速。"),
    ];
    if let Some((_, title, detail, effect)) = FIXES.iter().find(|(en, ..)| *en == x.title) {
        x.title = (*title).into();
        if !detail.is_empty() {
            x.detail = (*detail).into();
        }
        x.expected_effect = (*effect).into();
    }
}

/// The agent's own check texts (titles, meanings, fixes, fixed values) in Chinese, matched
/// whole: a text not listed stays as it is.
const AGENT_CHECK_TEXTS: [(&str, &str); 35] = [
    ("NVIDIA driver", "NVIDIA 驱动"),
    ("NVML answered: GPU sampling works.", "NVML 有响应：可以采样 GPU。"),
    ("Without the driver there is nothing to sample on the GPU side.", "没有驱动，GPU 侧无从采样。"),
    ("Install the NVIDIA driver, or run the agent on the GPU host", "安装 NVIDIA 驱动，或在 GPU 主机上运行 agent"),
    ("agent built without NVML", "agent 构建时未包含 NVML"),
    ("GPU facts were not read.", "未读取 GPU 信息。"),
    ("Other processes on the GPUs", "GPU 上的其他进程"),
    ("Another process on the same GPU shares its SMs and memory: timings of this job will be slower and noisy.", "同一块 GPU 上的其他进程会共享 SM 和显存：本任务的耗时会变慢且波动。"),
    ("Check who runs them (ps -p PID) before measuring; on shared hosts pick an idle GPU with CUDA_VISIBLE_DEVICES", "测量前先查清是谁在运行它们（ps -p PID）；在共享主机上用 CUDA_VISIBLE_DEVICES 选一块空闲的 GPU"),
    ("none", "无"),
    ("GPU performance monitoring (GPM)", "GPU 性能监控（GPM）"),
    ("not supported", "不支持"),
    ("Without GPM (Hopper and newer), SM activity, tensor-core and DRAM bandwidth cannot be sampled; GPU-Util alone cannot tell memory- from compute-bound.", "没有 GPM（Hopper 及更新的架构才有）就无法采样 SM 活跃度、Tensor Core 和显存带宽；仅凭 GPU-Util 无法区分访存受限与计算受限。"),
    ("PyTorch in the training environment", "训练环境中的 PyTorch"),
    ("The versions training will use; torch's CUDA runtime must not be newer than the driver's.", "训练将使用的版本；torch 的 CUDA 运行时不能比驱动支持的版本新。"),
    ("Point --python at the interpreter of the training environment (a venv or conda env)", "用 --python 指向训练环境的解释器（venv 或 conda 环境）"),
    ("Training software versions could not be read.", "无法读取训练软件的版本。"),
    ("Pass --python /path/to/venv/bin/python", "传入 --python /path/to/venv/bin/python"),
    ("/dev/shm size", "/dev/shm 大小"),
    ("DataLoader workers hand batches to the training process through /dev/shm; containers default to 64 MB, which crashes workers (bus error) or forces tiny batches.", "DataLoader worker 通过 /dev/shm 把批次交给训练进程；容器默认只有 64 MB，会导致 worker 崩溃（bus error）或只能用很小的批次。"),
    ("Start the container with --shm-size=16g (or --ipc=host)", "启动容器时加上 --shm-size=16g（或 --ipc=host）"),
    ("missing", "不存在"),
    ("No /dev/shm: DataLoader workers cannot share batches.", "没有 /dev/shm：DataLoader worker 无法共享批次。"),
    ("Mount a tmpfs at /dev/shm", "在 /dev/shm 挂载一个 tmpfs"),
    ("GPU performance counters", "GPU 性能计数器"),
    ("admin only (RmProfilingAdminOnly=1)", "仅限管理员（RmProfilingAdminOnly=1）"),
    ("Hardware counters (Nsight Compute, DCGM profiling) need root here; NVML, GPM and torch.profiler traces still work.", "在这台主机上，硬件计数器（Nsight Compute、DCGM profiling）需要 root 权限；NVML、GPM 和 torch.profiler 跟踪仍然可用。"),
    ("Run as root, or set NVreg_RestrictProfilingToAdminUsers=0 (admin)", "以 root 运行，或由管理员设置 NVreg_RestrictProfilingToAdminUsers=0"),
    ("open to all users", "对所有用户开放"),
    ("Profiling counters are readable without root.", "无需 root 即可读取性能计数器。"),
    ("The driver's profiling restriction could not be read.", "无法读取驱动的性能分析权限设置。"),
    ("Free disk for data and checkpoints", "数据与检查点所在磁盘的剩余空间"),
    ("Checkpoints of large models take tens of GB each; a full disk kills training at the first save.", "大模型的每个检查点有数十 GB；磁盘写满会让训练在第一次保存时中断。"),
    ("Free space or point checkpoints at a larger volume", "清理空间，或把检查点写到更大的卷上"),
    ("no /proc/driver/nvidia/params", "没有 /proc/driver/nvidia/params"),
];

/// The engine's environment-check values and fixes in Chinese, matched whole (the titles and
/// meanings are translated by check id in `localize_check`).
const ENGINE_CHECK_TEXTS: [(&str, &str); 14] = [
    ("enabled", "已开启"),
    ("disabled", "已关闭"),
    ("enabled: this job gets a slice of the GPU", "已开启：本任务只分到 GPU 的一个切片"),
    ("row remapping or page retirement waits for a GPU reset", "行重映射或页面退役正在等待 GPU 重置"),
    ("sudo nvidia-smi -pm 1 (or enable nvidia-persistenced); ask the host's admin on shared machines", "sudo nvidia-smi -pm 1（或启用 nvidia-persistenced）；共享主机请联系管理员"),
    ("Ask for a full GPU (MIG disabled) or size expectations to the slice", "申请一整块 GPU（关闭 MIG），或按切片大小调整预期"),
    ("Re-check under load (nvidia-smi -q -d PCI); a reduced width needs the card reseated or the slot/BIOS fixed by the host's admin", "在负载下再查一次（nvidia-smi -q -d PCI）；链路宽度降低需要由管理员重新插卡或修复插槽/BIOS"),
    ("Drain the GPU and report it to the host's admin or cloud provider", "停止在这块 GPU 上调度任务，并报告给主机管理员或云服务商"),
    ("Reset the GPU when idle (nvidia-smi -r) or reboot the host", "在 GPU 空闲时重置它（nvidia-smi -r）或重启主机"),
    ("Ask the host's admin to restore the default power limit (nvidia-smi -pl)", "请主机管理员恢复默认功耗上限（nvidia-smi -pl）"),
    ("Check cooling and power; compare against the sampled clock-event reasons during training", "检查散热与供电；与训练期间采样到的降频原因对照"),
    ("Install a torch wheel built for the driver's CUDA version (e.g. the cu12x index), or upgrade the driver", "安装与驱动 CUDA 版本匹配的 torch（例如 cu12x 索引），或升级驱动"),
    ("Unset NCCL_P2P_DISABLE (it is often left over from a workaround for a broken PCIe switch)", "取消 NCCL_P2P_DISABLE（它常是为绕过故障 PCIe 交换机而遗留的设置）"),
    ("Lower num_workers to about (cores / GPUs) − 1", "把 num_workers 降到约（核心数 / GPU 数）− 1"),
];

/// An engine check value with numbers in it, in Chinese; `None` when it has no known form.
fn check_value_zh(value: &str) -> Option<String> {
    // "Gen 4 x16 of Gen 5 x16"
    if let Some((now, max)) = value
        .strip_prefix("Gen ")
        .and_then(|v| v.split_once(" of Gen "))
    {
        return Some(format!("Gen {now}（最高 Gen {max}）"));
    }
    // "600 W of 700 W default"
    if let Some((limit, default)) = value
        .strip_suffix(" W default")
        .and_then(|v| v.split_once(" W of "))
    {
        return Some(format!("{limit} W（默认 {default} W）"));
    }
    // "torch built for CUDA 12.8; driver supports up to CUDA 12.4"
    if let Some((runtime, driver)) = value
        .strip_prefix("torch built for CUDA ")
        .and_then(|v| v.split_once("; driver supports up to CUDA "))
    {
        return Some(format!(
            "torch 基于 CUDA {runtime} 构建；驱动最高支持 CUDA {driver}"
        ));
    }
    // "2 workers × 1 GPU(s) on 16 logical CPUs"
    let (workers, rest) = value.split_once(" workers × ")?;
    let (gpus, cpus) = rest
        .strip_suffix(" logical CPUs")?
        .split_once(" GPU(s) on ")?;
    Some(format!(
        "{workers} 个 worker × {gpus} 块 GPU，{cpus} 个逻辑 CPU"
    ))
}

fn localize_check(c: &mut EnvCheck) {
    let zh = |text: &str| {
        AGENT_CHECK_TEXTS
            .iter()
            .chain(&ENGINE_CHECK_TEXTS)
            .find(|(en, _)| *en == text)
            .map(|(_, zh)| (*zh).to_owned())
            .or_else(|| check_value_zh(text))
    };
    for text in [&mut c.title, &mut c.meaning, &mut c.value] {
        if let Some(t) = zh(text) {
            *text = t;
        }
    }
    if let Some(fix) = c.fix.as_mut() {
        if let Some(t) = zh(fix) {
            *fix = t;
        }
    }
    // "53.8 GiB free at /data"
    if let Some((free, at)) = c.value.split_once(" free at ") {
        c.value = format!("{at} 剩余 {free}");
    }
    let (title, meaning) = match c.id.as_str() {
        "persistence_mode" => ("持久模式", "未开启持久模式时，没有进程占用 GPU 驱动就会释放它；每次启动任务都要花数秒重新初始化，时钟也可能从低位开始。"),
        "mig" => ("MIG 模式", "开启 MIG 后，进程只能看到其切片的 SM 与显存带宽：速度只有整卡的一部分。"),
        "pcie_link" => ("PCIe 链路", "PCIe 链路比显卡支持的更窄或更慢，会削减主机与 GPU 之间的拷贝带宽。空闲的 GPU 可能为省电降低链路代数；链路宽度降低则是插槽、转接卡或 BIOS 问题。"),
        "ecc_errors" => ("不可纠正的 ECC 错误", "驱动加载以来出现不可纠正的显存错误，说明显存正在损坏：任务可能崩溃或结果出错。"),
        "memory_repair_pending" => ("显存修复待生效", "已有显存行被标记为坏行，修复需要重置 GPU 后才生效。"),
        "power_limit" => ("功耗上限", "功耗上限低于默认值会在重负载下降低时钟。"),
        "clock_event_reasons" => ("快照时的降频原因", "采集快照时 GPU 正在压低时钟。"),
        "cuda_driver_match" => ("CUDA 运行时与驱动", "PyTorch 的 CUDA 运行时版本不能高于驱动支持的版本，否则 CUDA 无法初始化或退化到慢路径。"),
        "nccl_p2p" => ("NCCL 点对点通信", "禁用 P2P 后，NCCL 经由主机内存而不是 NVLink/PCIe 直连传输 GPU 间流量：all-reduce 慢数倍。"),
        "dataloader_workers_vs_cpus" => ("DataLoader worker 数与 CPU 核心数", "每个 DataLoader worker 都是一个需要独占核心的进程，每个训练进程也是：核心都被 worker 占满时，训练循环发射内核会变慢。"),
        _ => return,
    };
    // Keep the "GPU n: " prefix the engine puts on per-GPU checks.
    c.title = match c.title.split_once(": ") {
        Some((gpu, _)) if gpu.starts_with("GPU ") => format!("{gpu}：{title}"),
        _ => title.into(),
    };
    c.meaning = meaning.into();
}

fn window_method(d: &Diagnosis) -> String {
    match (d.window.first_step, d.window.last_step) {
        (Some(a), Some(b)) => format!(
            "steps.csv 的第 {a}–{b} 步（排除 {} 个预热步：第 0 步以及开头明显慢于中位数的步骤）；分析器运行期间及其之前的步骤不计入步骤耗时",
            d.window.warmup_steps
        ),
        _ => {
            let whole = if d.ranks.is_empty() {
                "没有步骤计时"
            } else {
                "trace 中被分析的步骤，排除开头的预热步；没有 steps.csv"
            };
            // "...: samples from the GPU's first busy reading on (13.0 s in; ...)"
            let start_up = d
                .window
                .method
                .split_once('(')
                .and_then(|(_, rest)| rest.split_once(" s in"))
                .map(|(seconds, _)| seconds.to_owned())
                .filter(|_| d.window.start_s.is_some());
            match start_up {
                Some(s) => format!("{whole}：从 GPU 第一次忙碌的读数开始统计采样（开头 {s} 秒的启动阶段不计入）"),
                None => format!("{whole}：统计覆盖全部采样"),
            }
        }
    }
}

fn note(n: &str) -> String {
    if n.starts_with("The profiled steps show the GPU waiting for kernel launches") {
        "分析期间的步骤显示 GPU 在等待内核发射，但在未分析的速度下 GPU 每步几乎一直忙碌：这是分析器带来的开销，不是启动瓶颈。".into()
    } else {
        n.to_owned()
    }
}

/// Environment checks with their texts in `lang` (a live host's check list).
pub fn localize_checks(checks: &[EnvCheck], lang: Language) -> Vec<EnvCheck> {
    let mut out = checks.to_vec();
    if lang == Language::Zh {
        out.iter_mut().for_each(localize_check);
    }
    out
}

/// A curve shape of a baseline card ("steady", "sawtooth", "dips every 12.5 s") in Chinese;
/// any other value is returned as it is.
fn curve_shape_zh(value: &str) -> String {
    match value {
        "steady" => "平稳".into(),
        "sawtooth" => "锯齿状".into(),
        other => match other
            .strip_prefix("dips every ")
            .and_then(|rest| rest.strip_suffix(" s"))
        {
            Some(period) => format!("每 {period} s 一次下跌"),
            None => other.to_owned(),
        },
    }
}

/// A comparison with its figure names, change words and summary in `lang`. The summary's
/// phrases are the comparison's own fixed phrases; the numbers in it stay as they are.
pub fn localize_comparison(mut c: crate::Comparison, lang: Language) -> crate::Comparison {
    if lang == Language::En {
        return c;
    }
    const FIGURES: [(&str, &str); 12] = [
        ("GPU", "GPU"),
        ("driver", "驱动"),
        ("CUDA", "CUDA"),
        ("mean step time", "平均步骤时间"),
        ("GPU util", "GPU 利用率"),
        ("util curve", "利用率曲线"),
        ("power", "功率"),
        ("data-loading share", "数据加载占比"),
        ("mean kernel gap", "平均内核间隙"),
        ("communication share", "通信占比"),
        ("host CPU", "主机 CPU"),
        ("primary bottleneck", "主要瓶颈"),
    ];
    for ch in &mut c.changes {
        if let Some((_, zh)) = FIGURES.iter().find(|(en, _)| *en == ch.figure) {
            ch.figure = zh;
        }
        for value in [&mut ch.baseline, &mut ch.current] {
            *value = curve_shape_zh(value);
        }
        ch.change = match ch.change.as_str() {
            "same" => "相同".into(),
            "changed" => "已变化".into(),
            "unknown" => "未知".into(),
            other => other.replace(" points", " 个百分点"),
        };
    }
    const PHRASES: [(&str, &str); 16] = [
        ("step time unchanged (within 5%)", "步骤时间不变（5% 以内）"),
        ("step time not comparable", "步骤时间无法比较"),
        ("step time ", "步骤时间 "),
        (", with no input, communication or launch figure explaining it: look at the findings of the current run", "，输入、通信和内核发射的指标都无法解释：请查看本次运行的诊断结果"),
        ("; no figure regressed", "；没有指标退化"),
        ("the environment changed", "环境发生了变化"),
        ("data-loading share", "数据加载占比"),
        (": the input pipeline regressed", "：输入管线退化"),
        ("communication share", "通信占比"),
        (": communication regressed", "：通信退化"),
        (": the host's CPU is far busier (other processes, or the training's own workers)", "：主机 CPU 忙得多了（其他进程，或训练自身的 worker）"),
        ("host CPU", "主机 CPU"),
        ("mean kernel gap", "平均内核间隙"),
        (": the host feeds the GPU more slowly (launch overhead or syncs)", "：主机向 GPU 提交工作变慢（发射开销或同步）"),
        ("the primary bottleneck moved from ", "主要瓶颈从 "),
        (" to ", " 变为 "),
    ];
    for (en, zh) in PHRASES {
        c.summary = c.summary.replace(en, zh);
    }
    c.summary = c.summary.replace("; ", "；").replace(", ", "，");
    c
}

#[cfg(test)]
mod comparison_tests {
    use super::*;
    use crate::baseline::{Change, Comparison};

    #[test]
    fn a_comparison_reads_in_chinese_with_its_numbers_kept() {
        let c = Comparison {
            changes: vec![Change {
                figure: "data-loading share",
                baseline: "0%".into(),
                current: "91%".into(),
                change: "+91 points".into(),
            }],
            summary: "step time +951%, data-loading share 0% → 91%: the input pipeline regressed"
                .into(),
        };
        let zh = localize_comparison(c, Language::Zh);
        assert_eq!(
            zh.summary,
            "步骤时间 +951%，数据加载占比 0% → 91%：输入管线退化"
        );
        assert_eq!(zh.changes[0].figure, "数据加载占比");
        assert_eq!(zh.changes[0].change, "+91 个百分点");
    }

    #[test]
    fn the_agents_own_checks_read_in_chinese() {
        let checks = [
            EnvCheck {
                id: "dev_shm".into(),
                title: "/dev/shm size".into(),
                status: checkup_model::CheckStatus::Fail,
                value: "0.1 GiB".into(),
                meaning: "DataLoader workers hand batches to the training process through /dev/shm; containers default to 64 MB, which crashes workers (bus error) or forces tiny batches.".into(),
                fix: Some("Start the container with --shm-size=16g (or --ipc=host)".into()),
            },
            EnvCheck {
                id: "disk_free".into(),
                title: "Free disk for data and checkpoints".into(),
                status: checkup_model::CheckStatus::Pass,
                value: "53.8 GiB free at /data".into(),
                meaning: "Checkpoints of large models take tens of GB each; a full disk kills training at the first save.".into(),
                fix: None,
            },
        ];
        let zh = localize_checks(&checks, Language::Zh);
        assert_eq!(zh[0].title, "/dev/shm 大小");
        assert!(
            zh[0].meaning.starts_with("DataLoader worker 通过 /dev/shm"),
            "{}",
            zh[0].meaning
        );
        assert_eq!(
            zh[0].fix.as_deref(),
            Some("启动容器时加上 --shm-size=16g（或 --ipc=host）")
        );
        assert_eq!(zh[1].value, "/data 剩余 53.8 GiB");
        for (en, want) in [
            ("Gen 4 x16 of Gen 5 x16", "Gen 4 x16（最高 Gen 5 x16）"),
            ("600 W of 700 W default", "600 W（默认 700 W）"),
            (
                "2 workers × 1 GPU(s) on 16 logical CPUs",
                "2 个 worker × 1 块 GPU，16 个逻辑 CPU",
            ),
            (
                "torch built for CUDA 12.8; driver supports up to CUDA 12.4",
                "torch 基于 CUDA 12.8 构建；驱动最高支持 CUDA 12.4",
            ),
        ] {
            assert_eq!(check_value_zh(en).as_deref(), Some(want));
        }
        assert_eq!(check_value_zh("23.5 GiB"), None);
        assert_eq!(localize_checks(&checks, Language::En), checks.to_vec());
    }

    #[test]
    fn curve_shapes_are_worded_in_chinese() {
        let c = Comparison {
            changes: vec![Change {
                figure: "util curve",
                baseline: "steady".into(),
                current: "dips every 12.5 s".into(),
                change: "changed".into(),
            }],
            summary: String::new(),
        };
        let zh = localize_comparison(c, Language::Zh);
        assert_eq!(zh.changes[0].figure, "利用率曲线");
        assert_eq!(zh.changes[0].baseline, "平稳");
        assert_eq!(zh.changes[0].current, "每 12.5 s 一次下跌");
        assert_eq!(zh.changes[0].change, "已变化");
    }
}
