//! Words for the `data_loading` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{DataLoading, DataLoadingEvidence, DataLoadingFix, Language};

use crate::fix_words::{pick, t, FixText};
use crate::{pct, Language::*};

/// A `data_loading` finding's title.
pub fn title(c: &DataLoading, l: Language) -> String {
    let (en, zh) = match c {
        DataLoading::SlowLoader { .. }
        | DataLoading::CpuSaturated { .. }
        | DataLoading::CpuContention { .. } => (
            "Input pipeline (DataLoader) starves the GPU",
            "输入管线（DataLoader）让 GPU 挨饿",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `data_loading` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &DataLoading, l: Language) -> String {
    match (c, l) {
        (DataLoading::SlowLoader { data_wait_ms, step_ms, idle_per_epoch_start_ms: Some(idle), .. }, En) => format!(
            "The GPU waits for batches at the start of every epoch: it idles about {idle:.0} ms each time while the epoch's first batches are made{}.",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!(" (on average {w:.0} ms of a {s:.0} ms step waiting for data)")).unwrap_or_default()
        ),
        (DataLoading::SlowLoader { data_wait_ms, step_ms, idle_per_epoch_start_ms: Some(idle), .. }, Zh) => format!(
            "每个 epoch 开始时 GPU 都在等待批次：每次空闲约 {idle:.0} ms，等待该 epoch 的前几个批次生成{}。",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!("（{s:.0} ms 的步骤中平均有 {w:.0} ms 在等待数据）")).unwrap_or_default()
        ),
        (DataLoading::SlowLoader { data_wait_ms, step_ms, idle_per_epoch_start_ms: None, .. }, En) => format!(
            "The GPU waits for the next batch: the input pipeline is slower than the GPU{}, while the host has idle cores.",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!(" (on average {w:.0} ms of a {s:.0} ms step waiting for data)")).unwrap_or_default()
        ),
        (DataLoading::SlowLoader { data_wait_ms, step_ms, idle_per_epoch_start_ms: None, .. }, Zh) => format!(
            "GPU 在等待下一个批次：输入管线比 GPU 慢{}，而主机仍有空闲核心。",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!("（{s:.0} ms 的步骤中平均有 {w:.0} ms 在等待数据）")).unwrap_or_default()
        ),
        (DataLoading::CpuSaturated { host_cpu_pct, training_cores, launch_wait_share: Some(launch), .. }, En) => format!(
            "The input pipeline saturates the host CPU ({host_cpu_pct:.0}% of all cores, {training_cores:.1} cores of it the training's own processes): the main thread, short of CPU, launches kernels late (the GPU waits {}% of each step for them) and batches arrive late. More workers cannot help; each batch costs too much CPU.",
            pct(*launch)
        ),
        (DataLoading::CpuSaturated { host_cpu_pct, training_cores, launch_wait_share: Some(launch), .. }, Zh) => format!(
            "输入管线让主机 CPU 饱和（全部核心的 {host_cpu_pct:.0}%，其中 {training_cores:.1} 个核心属于训练自身的进程）：主线程缺少 CPU，内核发射变晚（GPU 每步有 {}% 的时间在等待发射），批次也来得晚。增加 worker 无济于事，每个批次消耗的 CPU 太多。",
            pct(*launch)
        ),
        (DataLoading::CpuSaturated { host_cpu_pct, launch_wait_share: None, .. }, En) => format!(
            "The GPU waits for the input pipeline and the host CPU is saturated ({host_cpu_pct:.0}%): more workers cannot help; each batch costs too much CPU."
        ),
        (DataLoading::CpuSaturated { host_cpu_pct, launch_wait_share: None, .. }, Zh) => format!(
            "GPU 在等待输入管线，而主机 CPU 已饱和（{host_cpu_pct:.0}%）：增加 worker 无济于事，每个批次消耗的 CPU 太多。"
        ),
        (DataLoading::CpuContention { host_cpu_pct, training_cores }, En) => format!(
            "The GPU waits for the input pipeline, and processes outside the training keep the host CPU saturated ({host_cpu_pct:.0}% of all cores; the training's processes get {training_cores:.1} cores): its workers run short of CPU and there is no idle core to add more."
        ),
        (DataLoading::CpuContention { host_cpu_pct, training_cores }, Zh) => format!(
            "GPU 在等待输入管线，而训练之外的进程让主机 CPU 保持饱和（全部核心的 {host_cpu_pct:.0}%；训练自身的进程只得到 {training_cores:.1} 个核心）：它的 worker 缺少 CPU，也没有空闲核心可以再加 worker。"
        ),
    }
}

/// What a `data_loading` evidence row measures.
pub fn evidence(k: &DataLoadingEvidence, l: Language) -> String {
    let (en, zh) = match k {
        DataLoadingEvidence::DataLoaderIdleShare => (
            "GPU idle while waiting for the DataLoader (share of step)",
            "GPU 等待 DataLoader 的空闲（占步骤比例）",
        ),
        DataLoadingEvidence::IdlePerEpochStart => (
            "GPU idle for data at each epoch start",
            "每个 epoch 开始时 GPU 等待数据的空闲",
        ),
        DataLoadingEvidence::UnprofiledDataIdleShare => (
            "GPU idle waiting for data in unprofiled steps, at least (share of step)",
            "未分析步骤中 GPU 等待数据的空闲，至少（占步骤比例）",
        ),
        DataLoadingEvidence::StarvedLaunchIdleShare => (
            "GPU idle waiting for kernel launches, main thread short of CPU (share of step)",
            "GPU 等待内核发射的空闲，主线程缺少 CPU（占步骤比例）",
        ),
        DataLoadingEvidence::MeanDataWait => ("mean data wait per step", "每步平均数据等待"),
        DataLoadingEvidence::MedianDataWait => ("median data wait per step", "每步数据等待中位数"),
        DataLoadingEvidence::DataWaitShare => {
            ("data wait share of step time", "数据等待占步骤时间比例")
        }
        DataLoadingEvidence::MeanGpuUtil => ("mean GPU utilisation", "平均 GPU 利用率"),
        DataLoadingEvidence::NumWorkers => ("DataLoader num_workers", "DataLoader num_workers"),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `data_loading` fix in words.
pub fn fix(f: &DataLoadingFix, l: Language) -> FixText {
    match (f, l) {
        (DataLoadingFix::CheaperSamples, _) => t(
            pick(l, "Make each sample cheaper to produce (the CPU is already saturated)", "降低每个样本的生成成本（CPU 已饱和）"),
            pick(l, "Every core is busy, so more DataLoader workers will not help: they would fight for the same cores. Cut the per-sample CPU cost: decode JPEGs on the GPU (torchvision.io.decode_jpeg(device='cuda') or NVIDIA DALI), move augmentation to the GPU, store pre-resized images, or use a faster decoder (pillow-simd).",
                "所有核心都在忙，增加 DataLoader worker 只会争抢同样的核心。应降低每个样本的 CPU 成本：在 GPU 上解码 JPEG（torchvision.io.decode_jpeg(device='cuda') 或 NVIDIA DALI），把数据增强移到 GPU，预先缩放图像，或使用更快的解码器（pillow-simd）。"),
            Some(&format!(
                "# {}\nfrom torchvision.io import decode_jpeg\nimgs = decode_jpeg(list_of_encoded_uint8_tensors, device=\"cuda\")\nimgs = gpu_augment(torch.stack(imgs))  # {}",
                pick(l, "decode and augment on the GPU instead of in workers", "在 GPU 上解码和增强，而不是在 worker 里"),
                pick(l, "e.g. torchvision.transforms.v2 on CUDA tensors", "例如对 CUDA 张量使用 torchvision.transforms.v2")
            )),
            pick(l, "Step time falls toward the GPU's compute time once a batch costs less CPU than a step.", "当一个批次的 CPU 成本低于一步的时间，步骤时间会降到 GPU 的计算时间。"),
        ),
        (DataLoadingFix::CheaperSamplesAtWorkerLimit { workers }, _) => t(
            pick(l, "Make each sample cheaper to produce (the loader already has its workers)", "降低每个样本的生成成本（DataLoader 的 worker 已经够多）"),
            &match l {
                Language::En => format!("The DataLoader already runs {workers} workers, as many as this host should give it (two cores stay with the training process and the system): more would not help. Cut the per-sample CPU cost: decode JPEGs on the GPU (torchvision.io.decode_jpeg(device='cuda') or NVIDIA DALI), move augmentation to the GPU, store pre-resized images, or use a faster decoder (pillow-simd)."),
                Language::Zh => format!("DataLoader 已经运行 {workers} 个 worker，这台主机能给它的就这么多（要留两个核心给训练进程和系统）：再加也无济于事。应降低每个样本的 CPU 成本：在 GPU 上解码 JPEG（torchvision.io.decode_jpeg(device='cuda') 或 NVIDIA DALI），把数据增强移到 GPU，预先缩放图像，或使用更快的解码器（pillow-simd）。"),
            },
            Some(&format!(
                "# {}\nfrom torchvision.io import decode_jpeg\nimgs = decode_jpeg(list_of_encoded_uint8_tensors, device=\"cuda\")\nimgs = gpu_augment(torch.stack(imgs))  # {}",
                pick(l, "decode and augment on the GPU instead of in workers", "在 GPU 上解码和增强，而不是在 worker 里"),
                pick(l, "e.g. torchvision.transforms.v2 on CUDA tensors", "例如对 CUDA 张量使用 torchvision.transforms.v2")
            )),
            pick(l, "Step time falls toward the GPU's compute time once a batch costs less CPU than a step.", "当一个批次的 CPU 成本低于一步的时间，步骤时间会降到 GPU 的计算时间。"),
        ),
        (
            DataLoadingFix::LeaveCoresToLoop {
                workers,
                cores,
                suggested,
                ranks: 1,
            },
            _,
        ) => t(
            pick(l, "Leave two cores to the training loop", "给训练循环留出两个核心"),
            &match l {
                En => format!("{workers} workers on {cores} cores compete with the process that runs the training loop: it launches kernels and collates batches late. Two workers fewer give it a core of its own."),
                Zh => format!("{cores} 个核心上运行 {workers} 个 worker，它们和运行训练循环的进程争抢 CPU：内核发射和批次整理都会变慢。少用两个 worker，让它独占一个核心。"),
            },
            Some(&format!(
                "loader = torch.utils.data.DataLoader(\n    dataset, batch_size=batch_size,\n    num_workers={suggested},          # {}\n    pin_memory=True, persistent_workers=True,\n)",
                match l {
                    En => format!("was {workers}: one per core"),
                    Zh => format!("原为 {workers}：每个核心一个"),
                }
            )),
            pick(l, "Kernel launches return to their unloaded speed; batches come at most two workers' share slower until each batch costs less CPU.", "内核发射恢复到无负载时的速度；在每个批次的 CPU 成本降下来之前，批次最多慢两个 worker 的份额。"),
        ),
        (
            DataLoadingFix::LeaveCoresToLoop {
                workers,
                cores,
                suggested,
                ranks,
            },
            _,
        ) => {
            let processes = ranks * (workers + 1);
            t(
                pick(l, "Leave a core to each training loop", "给每个训练循环留出一个核心"),
                &match l {
                    En => format!("{ranks} training processes share this host's {cores} cores, each with {workers} workers: {processes} processes, so the ones that run the training loops launch kernels and collate batches late. {suggested} workers each leave every training process a core of its own and one core for the system."),
                    Zh => format!("{ranks} 个训练进程共用本机的 {cores} 个核心，每个进程有 {workers} 个 worker：共 {processes} 个进程，运行训练循环的进程发射内核、整理批次都会变慢。每个进程用 {suggested} 个 worker，就能让每个训练进程独占一个核心，并给系统留一个。"),
                },
                Some(&format!(
                    "loader = torch.utils.data.DataLoader(\n    dataset, batch_size=batch_size,\n    num_workers={suggested},          # {}\n    pin_memory=True, persistent_workers=True,\n)",
                    match l {
                        En => format!("was {workers}: {ranks} ranks share {cores} cores"),
                        Zh => format!("原为 {workers}：{ranks} 个 rank 共用 {cores} 个核心"),
                    }
                )),
                pick(l, "Kernel launches return to their unloaded speed on every rank; batches come slower by the workers taken away until each batch costs less CPU.", "每个 rank 的内核发射恢复到无负载时的速度；在每个批次的 CPU 成本降下来之前，批次会因减少的 worker 而变慢。"),
            )
        }
        (DataLoadingFix::MoreWorkers { suggested, current, .. }, _) => t(
            pick(l, "Give the DataLoader more worker processes", "给 DataLoader 更多 worker 进程"),
            &match (l, current) {
                (En, Some(w)) => format!("The host has idle cores while only {w} worker(s) run. Each worker prepares batches in parallel; with enough workers a batch is ready before the GPU asks for it."),
                (En, None) => "The host has idle cores. Each worker prepares batches in parallel; with enough workers a batch is ready before the GPU asks for it.".into(),
                (Zh, Some(w)) => format!("主机还有空闲核心，而只有 {w} 个 worker 在运行。每个 worker 并行准备批次；worker 足够多时，GPU 需要时批次已经就绪。"),
                (Zh, None) => "主机还有空闲核心。每个 worker 并行准备批次；worker 足够多时，GPU 需要时批次已经就绪。".into(),
            },
            Some(&format!(
                "loader = torch.utils.data.DataLoader(\n    dataset, batch_size=batch_size, shuffle=True,\n    num_workers={suggested},          # {}\n    pin_memory=True,\n    persistent_workers=True,\n    prefetch_factor=4,\n)",
                match (l, current) {
                    (En, Some(w)) => format!("was {w}"),
                    (En, None) => "was unset".into(),
                    (Zh, Some(w)) => format!("原为 {w}"),
                    (Zh, None) => "原先未设置".into(),
                }
            )),
            pick(l, "Data wait per step shrinks roughly in proportion to the worker count until the GPU becomes the limit.", "每步数据等待大致随 worker 数成比例下降，直到 GPU 成为瓶颈。"),
        ),
        (DataLoadingFix::PinMemory, _) => t(
            pick(l, "Pin host memory and copy asynchronously", "使用锁页内存并异步拷贝"),
            pick(l, "pin_memory=True lets batches be copied to the GPU by DMA, overlapped with compute, when moved with non_blocking=True.", "pin_memory=True 让批次可以通过 DMA 拷贝到 GPU，配合 non_blocking=True 可与计算重叠。"),
            Some("loader = DataLoader(dataset, ..., pin_memory=True)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True); y = y.cuda(non_blocking=True)"),
            pick(l, "Removes the synchronous host-to-device copy from the step.", "同步的主机到设备拷贝从步骤中消失。"),
        ),
        (DataLoadingFix::PersistentWorkers, _) => t(
            pick(l, "Keep workers alive between epochs", "在 epoch 之间保留 worker"),
            pick(l, "persistent_workers=True avoids re-forking workers (and re-opening datasets) every epoch, which shows as a stall at each epoch start.", "persistent_workers=True 避免每个 epoch 重新创建 worker（以及重新打开数据集），否则每个 epoch 开始时都会停顿。"),
            Some("DataLoader(dataset, ..., num_workers=N, persistent_workers=True)"),
            pick(l, "No stall at epoch boundaries.", "epoch 边界不再停顿。"),
        ),
        (DataLoadingFix::LoaderAcrossEpochs { workers }, _) => t(
            pick(l, "Keep the loader running across epochs", "让 DataLoader 跨 epoch 持续运行"),
            pick(l, "Persistent workers stay alive, but they start on an epoch's batches only when its iterator is made, so the GPU waits for the first of them at every epoch start. One iterator over a sampler that repeats keeps the workers a few batches ahead across the boundary; count the epoch's batches yourself.",
                "worker 虽然常驻，但只有在新 epoch 的迭代器创建后才开始准备该 epoch 的批次，所以每个 epoch 开始时 GPU 都要等第一个批次。用一个在重复采样器上的迭代器，worker 就能跨过 epoch 边界始终领先几个批次；每个 epoch 的批次数自己计数。"),
            Some(&format!(
                "class RepeatSampler(torch.utils.data.Sampler):\n    def __init__(self, sampler):\n        self.sampler = sampler\n    def __iter__(self):\n        while True:  # {}\n            yield from self.sampler\n\nbatches_per_epoch = len(loader)\nloader = DataLoader(dataset, batch_size=batch_size, sampler=RepeatSampler(RandomSampler(dataset)),\n                    num_workers={}, pin_memory=True, persistent_workers=True)\nbatches = iter(loader)\nfor epoch in range(epochs):\n    for _ in range(batches_per_epoch):\n        x, y = next(batches)",
                pick(l, "epoch after epoch: the iterator never ends", "一个 epoch 接一个 epoch：迭代器永不结束"),
                workers.map_or("N".to_string(), |w| w.to_string())
            )),
            pick(l, "No wait at epoch starts: the next epoch's first batches are made while this one trains.", "epoch 开始时不再等待：下一个 epoch 的前几个批次在本 epoch 训练时就已生成。"),
        ),
    }
}
