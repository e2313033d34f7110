//! Fixes: the change to make, why it applies, the code to paste, the effect to expect. Code
//! is the same in every language; its comments are in the reader's.

use checkup_model::{Fix, Language};

use crate::{checks, Language::*};

/// A fix in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixText {
    /// What to change, in a line.
    pub title: String,
    /// Why, and how, with the run's own settings.
    pub detail: String,
    /// Code or a command to paste, where there is one.
    pub snippet: Option<String>,
    /// What the change should do to the step time.
    pub effect: String,
}

fn t(title: &str, detail: &str, snippet: Option<&str>, effect: &str) -> FixText {
    FixText {
        title: title.into(),
        detail: detail.into(),
        snippet: snippet.map(str::to_owned),
        effect: effect.into(),
    }
}

/// One text in the reader's language.
fn pick<'a>(l: Language, en: &'a str, zh: &'a str) -> &'a str {
    match l {
        En => en,
        Zh => zh,
    }
}

/// A fix in words.
pub fn text(f: &Fix, l: Language) -> FixText {
    match (f, l) {
        (Fix::CheaperSamples, _) => t(
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
        (Fix::CheaperSamplesAtWorkerLimit { workers }, _) => t(
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
            Fix::LeaveCoresToLoop {
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
            Fix::LeaveCoresToLoop {
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
        (Fix::MoreWorkers { suggested, current }, _) => t(
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
        (Fix::PinMemory, _) => t(
            pick(l, "Pin host memory and copy asynchronously", "使用锁页内存并异步拷贝"),
            pick(l, "pin_memory=True lets batches be copied to the GPU by DMA, overlapped with compute, when moved with non_blocking=True.", "pin_memory=True 让批次可以通过 DMA 拷贝到 GPU，配合 non_blocking=True 可与计算重叠。"),
            Some("loader = DataLoader(dataset, ..., pin_memory=True)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True); y = y.cuda(non_blocking=True)"),
            pick(l, "Removes the synchronous host-to-device copy from the step.", "同步的主机到设备拷贝从步骤中消失。"),
        ),
        (Fix::PersistentWorkers, _) => t(
            pick(l, "Keep workers alive between epochs", "在 epoch 之间保留 worker"),
            pick(l, "persistent_workers=True avoids re-forking workers (and re-opening datasets) every epoch, which shows as a stall at each epoch start.", "persistent_workers=True 避免每个 epoch 重新创建 worker（以及重新打开数据集），否则每个 epoch 开始时都会停顿。"),
            Some("DataLoader(dataset, ..., num_workers=N, persistent_workers=True)"),
            pick(l, "No stall at epoch boundaries.", "epoch 边界不再停顿。"),
        ),
        (Fix::LoaderAcrossEpochs { workers }, _) => t(
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
        (Fix::PinnedCopy, _) => t(
            pick(l, "Copy from pinned memory, asynchronously", "从锁页内存异步拷贝"),
            pick(l, "Copies from pageable memory are staged through a driver buffer at a fraction of PCIe bandwidth and block both the host and the stream. Pinned (page-locked) memory is copied by DMA at full speed and can overlap with compute.", "从可分页内存拷贝要经过驱动的中转缓冲，只能达到 PCIe 带宽的一小部分，并且会同时阻塞主机和流。锁页内存通过 DMA 全速拷贝，并可与计算重叠。"),
            Some(&format!(
                "loader = DataLoader(dataset, ..., pin_memory=True)\n# {}\nx = x.pin_memory()\nx = x.to(\"cuda\", non_blocking=True)",
                pick(l, "or for tensors you build yourself:", "或者对自己构造的张量：")
            )),
            pick(l, "Copy time drops several-fold (pageable copies here run far below pinned bandwidth) and the rest hides behind compute.", "拷贝时间成倍下降（这里的可分页拷贝远低于锁页带宽），剩余部分被计算隐藏。"),
        ),
        (Fix::OverlapCopy, _) => t(
            pick(l, "Overlap the next batch's copy with this step's compute", "让下一个批次的拷贝与本步计算重叠"),
            pick(l, "Prefetch the next batch to the GPU on a side stream while the current step runs.", "在本步运行时，用单独的流把下一个批次预取到 GPU。"),
            Some(&format!(
                "copy_stream = torch.cuda.Stream()\nwith torch.cuda.stream(copy_stream):\n    next_x = next_x_cpu.to(\"cuda\", non_blocking=True)\n# {}\ntorch.cuda.current_stream().wait_stream(copy_stream)\nx = next_x",
                pick(l, "... run the step on x ...", "……用 x 运行这一步……")
            )),
            pick(l, "The copy disappears from the critical path when it is shorter than a step's compute.", "当拷贝短于一步的计算时，它会从关键路径上消失。"),
        ),
        (Fix::FewerCopyBytes, _) => t(
            pick(l, "Send fewer bytes", "少传字节"),
            pick(l, "Copy uint8 images or bf16 tensors and convert on the GPU instead of copying float32.", "拷贝 uint8 图像或 bf16 张量，在 GPU 上再转换，而不是拷贝 float32。"),
            Some(&format!(
                "x = x_uint8.to(\"cuda\", non_blocking=True).float().div_(255)  # {}",
                pick(l, "4x fewer bytes over PCIe", "经 PCIe 传输的字节少 4 倍")
            )),
            pick(l, "Copy time falls with the byte count (4× for uint8 instead of float32).", "拷贝时间随字节数下降（uint8 相比 float32 少 4 倍）。"),
        ),
        (Fix::FindCpuHogs, _) => t(
            pick(l, "Find what else keeps the CPU busy", "找出还有什么在占用 CPU"),
            pick(l, "Processes outside the training hold the host's cores, so the training loop gets CPU time late and so do its kernel launches. List the processes by CPU use and stop, move or limit the ones that are not yours to run here; on a shared host, ask for cores of your own.", "训练之外的进程占着主机的核心，训练循环拿到 CPU 时间就晚，内核发射也跟着晚。按 CPU 使用率列出进程，停止、迁移或限制那些不该在这里运行的；在共享主机上，申请专属的核心。"),
            Some("ps -eo pid,user,pcpu,etime,comm --sort=-pcpu | head -20"),
            pick(l, "The training and its workers get their CPU time back: launches and batches stop waiting for it.", "训练及其 worker 重新得到 CPU 时间：内核发射和批次都不再为它等待。"),
        ),
        (Fix::ReserveCores, _) => t(
            pick(l, "Give the training cores of its own", "给训练分配专属核心"),
            pick(l, "Pin the training (and its DataLoader workers) to cores the other load does not use, or lower the other processes' priority.", "把训练（及其 DataLoader worker）绑定到其他负载不用的核心上，或降低其他进程的优先级。"),
            Some(&format!(
                "taskset -c 0-7 python train.py            # {}\nrenice -n 19 -p PID_OF_THE_OTHER_LOAD      # {}",
                pick(l, "the training on cores 0-7", "训练运行在核心 0-7 上"),
                pick(l, "the other load yields", "其他负载让出 CPU")
            )),
            pick(l, "The training loop is scheduled at once again, however busy the rest of the host is.", "无论主机其他部分多忙，训练循环都能立即得到调度。"),
        ),
        (Fix::CompileFuseKernels, _) => t(
            pick(l, "Compile the model to fuse small kernels", "编译模型以融合小内核"),
            pick(l, "torch.compile fuses chains of small elementwise ops into a few kernels; mode=\"reduce-overhead\" also captures CUDA graphs, launching a whole step with one call.", "torch.compile 把一串小的逐元素操作融合成少数几个内核；mode=\"reduce-overhead\" 还会捕获 CUDA Graph，一次调用发射整步。"),
            Some("model = torch.compile(model, mode=\"reduce-overhead\")"),
            pick(l, "Kernels per step drop by several times and launch overhead mostly disappears.", "每步内核数下降数倍，启动开销基本消失。"),
        ),
        (Fix::ReduceOverhead { current_mode }, _) => t(
            pick(l, "Capture the compiled model in CUDA graphs", "把编译后的模型捕获为 CUDA Graph"),
            &match l {
                En => format!("The model is already compiled (mode {}), yet the GPU still waits for launches. mode=\"reduce-overhead\" replays each step as a CUDA graph: one launch instead of hundreds. It needs static shapes; keep the batch size fixed (drop_last=True).", current_mode.as_deref().unwrap_or("default")),
                Zh => format!("模型已经编译过（mode {}），但 GPU 仍在等待内核发射。mode=\"reduce-overhead\" 把每步作为 CUDA Graph 重放：一次发射代替数百次。它要求形状固定；请保持批次大小不变（drop_last=True）。", current_mode.as_deref().unwrap_or("default")),
            },
            Some("model = torch.compile(model, mode=\"reduce-overhead\")"),
            pick(l, "Launch overhead per step drops to a few graph launches.", "每步的发射开销降到几次图发射。"),
        ),
        (Fix::FreezeGc, _) => t(
            pick(l, "Keep full garbage collections out of the loop", "避免在训练循环中进行完整的垃圾回收"),
            pick(l, "Python's collector walks every object the run holds; with millions of objects built at start-up, each full collection stops the loop. Freeze what exists once set-up is done, and collect at a time you choose.", "Python 的垃圾回收器会遍历进程持有的所有对象；启动时创建了数百万个对象时，每次完整回收都会让循环停下。在准备工作完成后冻结已有对象，并在自己选定的时刻回收。"),
            Some(&format!(
                "import gc
gc.freeze()            # {}
gc.set_threshold(50_000, 50, 1000)",
                pick(l, "after building the model and the datasets", "在构建好模型和数据集之后")
            )),
            pick(l, "No more stalls from the collector in the steps.", "步骤中不再有垃圾回收造成的停顿。"),
        ),
        (Fix::ForeachOptimizer { class }, _) => t(
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
        (Fix::BiggerKernels, _) => t(
            pick(l, "Give each kernel more work", "让每个内核做更多工作"),
            pick(l, "A larger batch (or gradient accumulation to keep the effective batch) makes each kernel longer, so launch cost becomes a smaller share.", "更大的批次（或用梯度累积保持等效批次）让每个内核运行更久，启动开销占比随之变小。"),
            Some(&format!(
                "# {}\nbatch_size = 4 * batch_size",
                pick(l, "e.g. 4x the batch, same effective optimisation with lr scaling or accumulation", "例如批次扩大 4 倍，用学习率缩放或梯度累积保持同样的优化效果")
            )),
            pick(l, "Throughput rises nearly linearly with batch size while launch-bound.", "在启动瓶颈下，吞吐量几乎随批次线性增长。"),
        ),
        (Fix::FewerReadbacks { site: Some(site), site_per_step }, _) => t(
            &match l {
                En => format!("Stop reading GPU values back at {}", site.location()),
                Zh => format!("不要在 {} 把 GPU 上的值读回主机", site.location()),
            },
            &match (l, site_per_step) {
                (En, Some(n)) => format!("{} in {}() synchronises {n:.0} times per step: `{}`. Each call makes the host wait for the GPU, then the GPU waits for the host. Keep the values on the GPU and read them back together, only on the steps you log.", site.location(), site.function, site.code),
                (Zh, Some(n)) => format!("{} 中 {}() 的这一行每步同步 {n:.0} 次：`{}`。每次调用都让主机等待 GPU，随后 GPU 又等待主机。把这些值留在 GPU 上，只在记录日志的步骤里一起读回。", site.location(), site.function, site.code),
                (En, None) => format!("{} in {}() synchronises with the GPU: `{}`. Keep the values on the GPU and read them back every N steps.", site.location(), site.function, site.code),
                (Zh, None) => format!("{} 中 {}() 的这一行与 GPU 同步：`{}`。把这些值留在 GPU 上，每 N 步读回一次。", site.location(), site.function, site.code),
            },
            Some(&crate::readback::snippet(site, l)),
            pick(l, "The idle gap after each of these syncs disappears; the host runs ahead of the GPU again.", "这些同步之后的空闲间隙消失，主机重新跑在 GPU 前面。"),
        ),
        (Fix::FewerReadbacks { site: None, .. }, _) => t(
            pick(l, "Stop reading GPU values back every step", "不要每步都把 GPU 上的值读回主机"),
            pick(l, "loss.item(), .cpu(), .numpy(), print(tensor) and Python conditions on tensors force the host to wait for the GPU, then the GPU waits for the host to launch more work. Accumulate metrics on the GPU and read them every N steps.", "loss.item()、.cpu()、.numpy()、print(tensor) 以及对张量做 Python 条件判断都会让主机等待 GPU，随后 GPU 又要等主机发射新工作。把指标累积在 GPU 上，每 N 步读取一次。"),
            Some(&format!(
                "running_loss += loss.detach()          # {}\nif step % 50 == 0:\n    print(running_loss.item() / 50)   # {}\n    running_loss.zero_()",
                pick(l, "stays on the GPU", "留在 GPU 上"),
                pick(l, "one sync every 50 steps", "每 50 步同步一次")
            )),
            pick(l, "The idle gap after each sync disappears; the GPU stays fed.", "每次同步之后的空闲间隙消失，GPU 持续有活干。"),
        ),
        (Fix::KeepAllocatorCache { caching_off: true, .. }, _) => t(
            pick(l, "Turn the caching allocator back on", "重新打开缓存分配器"),
            pick(l, "PYTORCH_NO_CUDA_MEMORY_CACHING is set in this run's environment: every tensor's memory is allocated from and freed to the driver. It is a debugging setting (for memory checkers); training runs without it.", "本次运行的环境中设置了 PYTORCH_NO_CUDA_MEMORY_CACHING：每个张量的显存都直接向驱动申请和释放。这是调试用的设置（供显存检查工具使用），训练时不应设置。"),
            Some(&format!("unset PYTORCH_NO_CUDA_MEMORY_CACHING   # {}", pick(l, "before starting the training", "在启动训练之前"))),
            pick(l, "The allocator keeps its blocks between steps; cudaMalloc and cudaFree leave the steps.", "分配器在步骤之间保留显存块；步骤中不再有 cudaMalloc 和 cudaFree。"),
        ),
        (Fix::KeepAllocatorCache { site: Some(site), calls_per_step, .. }, _) => t(
            &match l {
                En => format!("Take torch.cuda.empty_cache() out of the loop at {}", site.location()),
                Zh => format!("把 {} 处的 torch.cuda.empty_cache() 移出训练循环", site.location()),
            },
            &match (l, calls_per_step) {
                (En, Some(n)) => format!("{} in {}() empties the allocator's cache {n:.1} times per step: `{}`. The next step then asks the driver for all that memory again. Emptying the cache does not give the training more memory (PyTorch reuses its cached blocks itself); it only hands them to other processes.", site.location(), site.function, site.code),
                (Zh, Some(n)) => format!("{} 中 {}() 的这一行每步清空分配器缓存 {n:.1} 次：`{}`。下一步又要向驱动重新申请这些显存。清空缓存不会给训练更多显存（PyTorch 自己会复用缓存的块），只是把它们让给其他进程。", site.location(), site.function, site.code),
                (En, None) => format!("{} in {}() empties the allocator's cache: `{}`. The next step asks the driver for that memory again.", site.location(), site.function, site.code),
                (Zh, None) => format!("{} 中 {}() 的这一行清空分配器缓存：`{}`。下一步又要向驱动重新申请这些显存。", site.location(), site.function, site.code),
            },
            Some(&format!(
                "# torch.cuda.empty_cache()   # {}\n# {}",
                pick(l, "removed from the training step", "从训练步骤中删除"),
                pick(l, "if memory runs short, lower the peak instead: a smaller batch, activation checkpointing, or\n# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation", "若显存不够，应降低峰值：更小的批次、激活检查点，或用\n# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True 减少碎片")
            )),
            pick(l, "The allocator keeps its blocks between steps; cudaMalloc and cudaFree leave the steps and the GPU stays fed.", "分配器在步骤之间保留显存块；步骤中不再有 cudaMalloc 和 cudaFree，GPU 持续有活干。"),
        ),
        (Fix::KeepAllocatorCache { site: None, .. }, _) => t(
            pick(l, "Keep the allocator's cache between steps", "在步骤之间保留分配器缓存"),
            pick(l, "Something empties PyTorch's memory cache every step: look for torch.cuda.empty_cache() in the loop (or in a callback it calls) and for PYTORCH_NO_CUDA_MEMORY_CACHING in the environment. If the cache is emptied because allocations fail near the memory limit, lower the peak instead.", "有代码每步清空 PyTorch 的显存缓存：在训练循环（或它调用的回调）中查找 torch.cuda.empty_cache()，并检查环境变量 PYTORCH_NO_CUDA_MEMORY_CACHING。若是因为接近显存上限分配失败而清空缓存，应降低显存峰值。"),
            Some("grep -rn \"empty_cache\\|NO_CUDA_MEMORY_CACHING\" ."),
            pick(l, "The allocator keeps its blocks between steps; cudaMalloc and cudaFree leave the steps.", "分配器在步骤之间保留显存块；步骤中不再有 cudaMalloc 和 cudaFree。"),
        ),
        (Fix::GpuMetrics, _) => t(
            pick(l, "Compute metrics on the GPU", "在 GPU 上计算指标"),
            pick(l, "Build confusion matrices and accuracies with torch ops on CUDA tensors (e.g. torch.bincount) instead of NumPy loops on copied tensors.", "用 CUDA 张量上的 torch 运算（如 torch.bincount）计算混淆矩阵和准确率，而不是在拷贝出来的张量上用 NumPy 循环。"),
            Some("conf += torch.bincount(target * n_classes + pred, minlength=n_classes**2).view(n_classes, n_classes)"),
            pick(l, "No host round-trip per step.", "每步不再有主机往返。"),
        ),
        (Fix::SummariseOnGpu { readbacks }, _) => t(
            pick(l, "Summarise on the GPU and copy once", "在 GPU 上汇总，只拷贝一次"),
            &match l {
                En => format!("Every stall reads {readbacks:.0} tensors back one at a time (.cpu(), .item(), .numpy()), and each read waits for the GPU; then the GPU waits while the host computes on the copies. Compute the histograms or statistics with torch on the GPU, stack them and copy the result in one go, or do this work less often."),
                Zh => format!("每次停顿都逐个把 {readbacks:.0} 个张量读回主机（.cpu()、.item()、.numpy()），每次读取都要等待 GPU；随后 GPU 又在主机处理这些拷贝时空等。用 torch 在 GPU 上计算直方图或统计量，合并后一次拷贝回来，或降低这项工作的频率。"),
            },
            Some(&format!(
                "# {}\nstats = torch.stack([torch.histc(p.detach().float(), bins=256) for p in model.parameters()])\nstats = stats.cpu()   # {}",
                pick(l, "histograms computed on the GPU, one tensor per parameter", "在 GPU 上计算直方图，每个参数一个张量"),
                pick(l, "one read-back instead of one per tensor", "一次读回，而不是每个张量一次")
            )),
            pick(l, "Each stall shrinks to the GPU's time for the statistics plus one copy.", "每次停顿缩短为 GPU 计算统计量的时间加一次拷贝。"),
        ),
        (Fix::FindHiddenSyncs, _) => t(
            pick(l, "Find hidden syncs", "找出隐藏的同步"),
            pick(l, "torch.cuda.set_sync_debug_mode(\"warn\") prints a warning with a stack trace at every synchronising call.", "torch.cuda.set_sync_debug_mode(\"warn\") 会在每个同步调用处打印带调用栈的警告。"),
            Some("torch.cuda.set_sync_debug_mode(\"warn\")"),
            pick(l, "Shows exactly which lines synchronise.", "准确显示哪些代码行在同步。"),
        ),
        (Fix::EnableP2p, _) => t(
            pick(l, "Re-enable NCCL peer-to-peer", "重新启用 NCCL 点对点通信"),
            pick(l, "NCCL_P2P_DISABLE=1 forces GPU-to-GPU traffic through host memory even though NVLink is present.", "NCCL_P2P_DISABLE=1 迫使 GPU 之间的流量经由主机内存，即使存在 NVLink。"),
            Some(&format!(
                "unset NCCL_P2P_DISABLE\n# {}: NCCL_DEBUG=INFO torchrun ... | grep -i 'via P2P'",
                pick(l, "check", "检查")
            )),
            pick(l, "All-reduce runs at NVLink speed again, several times faster.", "all-reduce 恢复 NVLink 速度，快数倍。"),
        ),
        (Fix::AccumulateGradients, _) => t(
            pick(l, "Communicate less often: accumulate gradients", "降低通信频率：梯度累积"),
            pick(l, "With gradient accumulation, DDP all-reduces once per N micro-batches; no_sync() skips the all-reduce on the others.", "使用梯度累积时，DDP 每 N 个微批次才做一次 all-reduce；其余微批次用 no_sync() 跳过。"),
            Some("for i, (x, y) in enumerate(loader):\n    ctx = model.no_sync() if (i + 1) % accum != 0 else contextlib.nullcontext()\n    with ctx:\n        (loss_fn(model(x), y) / accum).backward()\n    if (i + 1) % accum == 0:\n        opt.step(); opt.zero_grad(set_to_none=True)"),
            pick(l, "Communication per sample falls by the accumulation factor.", "每个样本的通信量按累积倍数下降。"),
        ),
        (Fix::MoreWorkPerAllReduce, _) => t(
            pick(l, "Make each GPU do more work per all-reduce", "让每个 GPU 在每次 all-reduce 之间做更多工作"),
            pick(l, "A larger per-GPU batch keeps the gradient size the same while compute grows, so the all-reduce hides behind more backward work.", "更大的单卡批次保持梯度大小不变而计算量增加，all-reduce 更容易被反向传播隐藏。"),
            Some("batch_size_per_gpu = 4 * batch_size_per_gpu"),
            pick(l, "Exposed communication share drops as compute per step grows.", "随着每步计算量增加，暴露的通信占比下降。"),
        ),
        (Fix::CompressGradients, _) => t(
            pick(l, "Send fewer bytes per all-reduce", "每次 all-reduce 少传字节"),
            pick(l, "Compress gradients to bf16 with a DDP communication hook, and let buckets start earlier.", "用 DDP 通信钩子把梯度压缩为 bf16，并让分桶更早开始。"),
            Some("from torch.distributed.algorithms.ddp_comm_hooks import default_hooks\nmodel = DDP(model, device_ids=[rank], bucket_cap_mb=50, gradient_as_bucket_view=True)\nmodel.register_comm_hook(None, default_hooks.bf16_compress_hook)"),
            pick(l, "All-reduce bytes halve (fp32 → bf16); more overlap with backward.", "all-reduce 字节数减半（fp32 → bf16），与反向传播的重叠更多。"),
        ),
        (Fix::NcclForGpuTensors, _) => t(
            pick(l, "Let NCCL carry the GPU gradients", "让 NCCL 传输 GPU 上的梯度"),
            pick(l, "The process group is gloo: each all-reduce copies the gradients from the GPU to host memory, reduces them on the CPU and copies them back while the GPU waits. NCCL reduces them GPU to GPU, over NVLink or the network, alongside the backward pass.", "进程组使用 gloo：每次 all-reduce 都把梯度从 GPU 复制到主机内存，在 CPU 上归约后再复制回去，GPU 一直在等。NCCL 在 GPU 之间直接归约（经 NVLink 或网络），并与反向传播重叠。"),
            Some(&format!(
                "dist.init_process_group(\"nccl\")\n# {}\ndist.init_process_group(\"cpu:gloo,cuda:nccl\")",
                pick(l, "or, to keep gloo for tensors on the CPU", "或者，CPU 上的张量仍用 gloo")
            )),
            pick(l, "The all-reduce runs on the GPUs and overlaps with backward; the host copies disappear.", "all-reduce 在 GPU 上进行并与反向传播重叠，主机上的复制消失。"),
        ),
        (Fix::EvenStepWork, _) => t(
            pick(l, "Give every rank the same work in each step", "让每个 rank 每一步的工作量相同"),
            pick(l, "Each step waits for the rank whose batch is largest or longest, and that rank changes from step to step. Build each step's global batch from samples of similar length and deal it evenly to the ranks (Hugging Face: group_by_length=True), or pack sequences to the same number of tokens on every rank.", "每一步都要等批次最大或最长的那个 rank，而这个 rank 每步都在变。让每一步的全局批次由长度相近的样本组成，再平均分给各 rank（Hugging Face：group_by_length=True），或者把序列打包成每个 rank 相同的 token 数。"),
            Some(&format!(
                "# {}\norder = sorted(range(len(dataset)), key=lambda i: lengths[i])\nsteps = [order[i:i + world * bs] for i in range(0, len(order), world * bs)]\nrandom.Random(epoch).shuffle(steps)          # {}\nmy_batches = [s[rank::world] for s in steps]   # {}",
                pick(l, "each step's batches from one length bucket, dealt evenly to the ranks", "每一步的批次来自同一长度区间，平均分给各 rank"),
                pick(l, "same order on every rank", "各 rank 顺序相同"),
                pick(l, "this rank's share of each step", "本 rank 在每一步中的份额")
            )),
            pick(l, "Every rank reaches the all-reduce at about the same time in every step; the wait for the slowest goes away.", "每一步各 rank 几乎同时到达 all-reduce，等待最慢 rank 的时间消失。"),
        ),
        (Fix::EvenRankWork { slow_rank, ratio }, _) => t(
            &match l {
                En => format!("Find why rank {slow_rank} computes more than the others"),
                Zh => format!("查明 rank {slow_rank} 为何比其他 rank 计算得多"),
            },
            &match l {
                En => format!("Rank {slow_rank}'s GPU computes {}× as long per step as the other ranks' median, and every other rank waits for it at each all-reduce. Its batches are larger or longer than theirs (an uneven shard, a sampler that hands it the long sequences), or it does work the others do not (logging, evaluation, a bigger model part). If its inputs are the same as theirs, its GPU is slower over the same kernels: compare its clocks, power and throttle reasons with the other GPUs' (the GPU charts, or nvidia-smi -q -d PERFORMANCE,CLOCK on its host).", crate::fixed(*ratio, 1)),
                Zh => format!("rank {slow_rank} 的 GPU 每步计算时间是其他 rank 中位数的 {} 倍，其他 rank 在每次 all-reduce 时都在等它。它的批次比其他 rank 大或长（数据分片不均、采样器把长序列都分给了它），或者它做了其他 rank 不做的工作（日志、评估、更大的模型部分）。如果它的输入与其他 rank 相同，那就是它的 GPU 执行同样的内核更慢：把它的时钟、功耗和降频原因与其他 GPU 对比（GPU 图表，或在它的主机上运行 nvidia-smi -q -d PERFORMANCE,CLOCK）。", crate::fixed(*ratio, 1)),
            },
            Some(&format!(
                "# {}\nif step < 3:\n    print(f\"rank {{dist.get_rank()}}: {{tuple(x.shape)}}\", flush=True)\n# {}\nsampler = DistributedSampler(dataset, drop_last=True)",
                pick(l, "compare what each rank gets", "比较每个 rank 拿到的数据"),
                pick(l, "equal shards for every rank", "每个 rank 分到相同的数据量")
            )),
            pick(l, "Every rank finishes its step at the same time; the others stop waiting in the all-reduce.", "每个 rank 同时完成一步，其他 rank 不再在 all-reduce 中等待。"),
        ),
        (Fix::SlowerGpu { slow_rank, gpu, host, reasons, power_limit_w, typical_power_limit_w }, _) => {
            let (on_host_en, on_host_zh) = match host {
                Some(h) => (format!(" on {h}"), format!("（{h}）")),
                None => (String::new(), String::new()),
            };
            let throttled = (!reasons.is_empty()).then(|| match l {
                En => format!("it is held down by {} while the other GPUs are not", reasons.join(", ")),
                Zh => format!("它因 {} 被降频，而其他 GPU 没有", reasons.join("、")),
            });
            let capped = power_limit_w.zip(*typical_power_limit_w).map(|(p, t)| match l {
                En => format!("its power limit is {} W against {} W on the others", crate::fixed(p, 0), crate::fixed(t, 0)),
                Zh => format!("它的功耗上限是 {} W，其他 GPU 是 {} W", crate::fixed(p, 0), crate::fixed(t, 0)),
            });
            let why = throttled.into_iter().chain(capped).collect::<Vec<_>>().join(match l {
                En => "; ",
                Zh => "；",
            });
            t(
                &match l {
                    En => format!("Bring GPU {gpu}{on_host_en}, where rank {slow_rank} runs, back to the others' speed"),
                    Zh => format!("让 rank {slow_rank} 所在的 GPU {gpu}{on_host_zh}恢复到与其他 GPU 相同的速度"),
                },
                &match l {
                    En => format!("Rank {slow_rank} computes longer than the others because its GPU runs the same kernels slower: {why}. Evening out the work would not help: every other rank waits for this GPU at each all-reduce. Show this to whoever runs the host: a GPU slowed by heat needs its cooling looked at, a power limit set lower than the others' can be restored by an administrator, and if neither can be done soon, run the job on the other GPUs without this one."),
                    Zh => format!("rank {slow_rank} 比其他 rank 计算得久，是因为它的 GPU 执行同样的内核更慢：{why}。平均分配工作量没有用：其他每个 rank 在每次 all-reduce 时都在等这块 GPU。把这些交给管理这台主机的人：因过热变慢的 GPU 需要检查散热；比其他 GPU 低的功耗上限可以由管理员恢复；如果短期内都做不到，就不用这块 GPU，在其他 GPU 上运行作业。"),
                },
                Some(&format!(
                    "# {}
nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE",
                    pick(l, "on its host: every GPU's clock-event reasons, power limit and temperature, side by side", "在它的主机上运行：并排查看每块 GPU 的降频原因、功耗上限和温度")
                )),
                pick(l, "Its steps take as long as the others'; the other ranks stop waiting in the all-reduce.", "它的每一步和其他 rank 一样快，其他 rank 不再在 all-reduce 中等待。"),
            )
        }
        (Fix::OtherGpuModel { slow_rank, gpu, host, model, others_model }, _) => {
            let (on_host_en, on_host_zh) = match host {
                Some(h) => (format!(" on {h}"), format!("（{h}）")),
                None => (String::new(), String::new()),
            };
            t(
                &match l {
                    En => format!("Run rank {slow_rank} on a GPU of the others' model, or give it less work"),
                    Zh => format!("让 rank {slow_rank} 使用与其他 rank 相同型号的 GPU，或给它更少的工作"),
                },
                &match l {
                    En => format!("Rank {slow_rank} runs on GPU {gpu}{on_host_en} ({model}), where every other rank has {others_model}. The same work takes longer there, and in synchronous training every other rank waits for it at each all-reduce: evening out the data would not help, the ranks already get the same. Ask for nodes of one GPU model (a Slurm constraint or GPU type, e.g. --gres=gpu:h200:8), or leave this GPU out; a job that must mix models gives the slower GPUs smaller batches."),
                    Zh => format!("rank {slow_rank} 运行在 GPU {gpu}{on_host_zh}上，型号为 {model}，而其他 rank 都是 {others_model}。同样的工作在这里更慢，同步训练中其他每个 rank 在每次 all-reduce 时都要等它：平均分配数据没有用，各 rank 拿到的已经一样多。申请同一型号 GPU 的节点（Slurm 的 constraint 或 GPU 类型，如 --gres=gpu:h200:8），或不用这块 GPU；必须混用型号时，给较慢的 GPU 更小的批次。"),
                },
                Some(&format!(
                    "# {}
nvidia-smi --query-gpu=index,name,clocks.max.sm --format=csv",
                    pick(l, "on each host: which GPU model every index is", "在每台主机上运行：查看每个编号的 GPU 型号")
                )),
                pick(l, "Its steps take as long as the others'; the other ranks stop waiting in the all-reduce.", "它的每一步和其他 rank 一样快，其他 rank 不再在 all-reduce 中等待。"),
            )
        }
        (Fix::AsyncCheckpoint { checkpoint_seen }, _) => t(
            pick(l, "Write checkpoints asynchronously", "异步写检查点"),
            if *checkpoint_seen {
                pick(l, "Checkpoint writes were seen while the GPU waited. Save in the background so training continues.", "GPU 等待期间看到了检查点写入。请在后台保存，让训练继续。")
            } else {
                pick(l, "A stall every N steps is usually a checkpoint, an evaluation pass, logging or an epoch boundary. If it is a checkpoint, save it in the background.", "每 N 步一次的停顿通常来自检查点、评估、日志或 epoch 边界。如果是检查点，请在后台保存。")
            },
            Some(&format!(
                "import torch.distributed.checkpoint as dcp\nfuture = dcp.async_save(model.state_dict(), checkpoint_id=f\"ckpt/step{{step}}\")\n# {}",
                pick(l, "or: copy the state_dict to CPU, then torch.save in a thread", "或者：把 state_dict 拷到 CPU，再在线程里 torch.save")
            )),
            pick(l, "The stall shrinks to the device-to-host copy of the weights.", "停顿缩短到把权重拷回主机所需的时间。"),
        ),
        (Fix::LessPeriodicWork, _) => t(
            pick(l, "Do periodic work less often or off the critical path", "降低周期性工作的频率或移出关键路径"),
            pick(l, "Evaluate and log less often, keep DataLoader workers persistent across epochs, and avoid re-creating iterators.", "降低评估和日志的频率，保持 DataLoader worker 常驻，避免重复创建迭代器。"),
            Some("DataLoader(..., persistent_workers=True)\nif step % 1000 == 0: evaluate()"),
            pick(l, "Fewer stalls, each shorter.", "停顿更少、更短。"),
        ),
        (Fix::ConstantHostWork, _) => t(
            pick(l, "Keep each step's host work constant", "让每一步的主机工作量保持不变"),
            pick(l, "Work that grows with the steps done (appending every prediction to a list and scanning the whole list again, summing a kept history) makes each step slower than the one before. Keep running totals instead: count correct predictions on the GPU into one tensor and read it when you log.", "随步数增长的工作（把每个预测追加到列表再整体扫描、对保留的历史求和）会让每一步都比上一步更慢。改为维护累计值：在 GPU 上把预测正确数累加到一个张量里，记录日志时再读出。"),
            Some(&format!(
                "correct = torch.zeros((), device=\"cuda\", dtype=torch.long)\nseen = 0\n# {}\ncorrect += (out.argmax(1) == y).sum()\nseen += y.numel()\nif step % 100 == 0:\n    print(\"accuracy\", correct.item() / seen)",
                pick(l, "each step: constant work, no read-back", "每一步：工作量不变，不读回主机")
            )),
            pick(l, "Every step as fast as the first ones.", "每一步都和最初的步骤一样快。"),
        ),
        (Fix::KeepValuesNotTensors, _) => t(
            pick(l, "Keep values, not loss tensors", "保存数值，而不是损失张量"),
            pick(l, "A loss tensor kept in a list (or summed into a running total) keeps its whole autograd graph and the activations it saved alive, step after step; retain_graph=True does the same. Keep loss.item() when you log, or loss.detach() to sum on the GPU, and drop retain_graph unless you really call backward twice.", "保存在列表里（或累加到总和中）的损失张量会让它整个 autograd 图及其保存的激活一步接一步地存活；retain_graph=True 也是如此。记录日志时保存 loss.item()，或用 loss.detach() 在 GPU 上累加，并去掉 retain_graph，除非确实要调用两次 backward。"),
            Some("loss.backward()                 # no retain_graph\nlosses.append(loss.detach())    # or loss.item() when you log"),
            pick(l, "Memory stays flat from step to step.", "显存在各步之间保持平稳。"),
        ),
        (Fix::BoundHostHistory, _) => t(
            pick(l, "Don't keep every step's results on the host", "不要把每一步的结果都留在主机上"),
            pick(l, "Aggregate as the steps come (running sums, a confusion matrix, counts on the GPU read when you log), write what you must keep to disk as you go, or clear the list at each epoch's end. A metric over all predictions needs their summary, not the predictions.", "随步骤进行汇总（累计和、混淆矩阵、在 GPU 上计数并在记录日志时读出），必须保留的内容边产生边写到磁盘，或在每个 epoch 结束时清空列表。基于全部预测的指标需要的是汇总量，而不是预测本身。"),
            Some(&format!(
                "correct = torch.zeros((), device=\"cuda\", dtype=torch.long)\n# {}\ncorrect += (logits.argmax(1) == y).sum()\n# {}\nnp.save(f\"preds_{{step}}.npy\", logits.argmax(1).cpu().numpy())",
                pick(l, "each step: a running count, nothing kept", "每一步：累计计数，不保留任何东西"),
                pick(l, "only if you need them later: written out, not kept", "仅在之后确实需要时：写到磁盘，而不是留在内存")
            )),
            pick(l, "Host memory stays flat however long the run.", "无论运行多久，主机内存都保持平稳。"),
        ),
        (Fix::ExpandableSegments, _) => t(
            pick(l, "Let the allocator grow segments instead of splitting blocks", "让分配器扩展段而不是拆分块"),
            pick(l, "With expandable segments, PyTorch maps more memory into the same segment when a tensor needs it, so tensors of changing sizes reuse memory instead of leaving blocks of the wrong size behind. Set it before the training starts.", "启用可扩展段后，PyTorch 在张量需要时向同一段映射更多显存，尺寸变化的张量因此能复用显存，而不会留下尺寸不合用的块。请在训练启动前设置。"),
            Some("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python train.py"),
            pick(l, "Reserved memory close to what the tensors need.", "预留显存接近张量的实际需要。"),
        ),
        (Fix::FreeSharedGpu { pids, frees_gib }, _) => {
            let pids = pids.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
            memory_fix(
                l,
                pick(l, "Give the training the GPU to itself", "让训练独占这块 GPU"),
                &match l {
                    En => format!("Other processes hold memory on this GPU (PID {pids}): not the training's, so nothing in its code frees it. Find out whose they are (a notebook kernel left open, another user's job) and stop them or ask their owner, or train on a GPU nobody else uses (CUDA_VISIBLE_DEVICES). In a container the PIDs are the host's."),
                    Zh => format!("这块 GPU 上有其他进程占用显存（PID {pids}）：它们不属于训练，训练代码里的任何改动都释放不了。查清是谁的（遗留的 notebook 内核、其他用户的任务），停止它们或请其所有者停止，或换一块没人用的 GPU 训练（CUDA_VISIBLE_DEVICES）。在容器里看到的 PID 是宿主机的。"),
                },
                "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
                Some(*frees_gib),
            )
        }
        (Fix::Bf16Memory { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Store activations in bf16 (autocast)", "用 bf16 存储激活（autocast）"),
            pick(l, "Under autocast, the activations saved for backward are bf16: half the bytes of fp32. The weights and optimizer stay in fp32.", "在 autocast 下，为反向保存的激活是 bf16：字节数是 fp32 的一半。权重和优化器仍为 fp32。"),
            "with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    loss = loss_fn(model(x), y)",
            *frees_gib,
        ),
        (Fix::ActivationCheckpointing { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Recompute activations in backward (activation checkpointing)", "在反向时重算激活（激活检查点）"),
            pick(l, "Each checkpointed block keeps only its input and runs its forward again during backward: most of the activation memory, for about a third more compute.", "每个做了检查点的模块只保留输入，在反向时重新执行前向：省下大部分激活显存，代价约为多三分之一的计算。"),
            "from torch.utils.checkpoint import checkpoint\nfor block in model.blocks:\n    x = checkpoint(block, x, use_reentrant=False)",
            *frees_gib,
        ),
        (Fix::EightBitOptimizer { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Keep the optimizer's states in 8 bits", "用 8 位保存优化器状态"),
            pick(l, "Adam keeps two fp32 states per parameter (8 bytes); 8-bit Adam (bitsandbytes) keeps them in 2 bytes with the same updates in practice.", "Adam 为每个参数保存两个 fp32 状态（8 字节）；8 位 Adam（bitsandbytes）只用 2 字节，实际更新效果相同。"),
            "import bitsandbytes as bnb\nopt = bnb.optim.AdamW8bit(model.parameters(), lr=lr)",
            *frees_gib,
        ),
        (Fix::SmallerMicroBatch { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Halve the micro-batch and accumulate two", "微批减半并累积两次"),
            pick(l, "Two half batches with the gradients accumulated give the same update as one full batch, with half the activations in memory at a time; each step then takes two passes.", "两个半批并累积梯度，与一个完整批次的更新相同，同一时间只有一半激活在显存中；每一步则需要两次前反向。"),
            "for i, (x, y) in enumerate(loader):          # batches of half the size\n    (loss_fn(model(x), y) / 2).backward()\n    if i % 2 == 1:\n        opt.step(); opt.zero_grad(set_to_none=True)",
            *frees_gib,
        ),
        (Fix::OffloadOptimizer { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Move the optimizer's states to the CPU", "把优化器状态移到 CPU"),
            pick(l, "FSDP or DeepSpeed can keep the optimizer's states (and the update) in host memory: the most memory freed, and the slowest, since the states cross PCIe every step.", "FSDP 或 DeepSpeed 可以把优化器状态（及更新计算）放在主机内存：释放的显存最多，也最慢，因为每步状态都要经过 PCIe。"),
            "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, CPUOffload\nmodel = FSDP(model, cpu_offload=CPUOffload(offload_params=True))",
            *frees_gib,
        ),
        (Fix::ProfileSteps, _) => t(
            pick(l, "Profile a few training steps", "分析几个训练步骤"),
            pick(l, "A trace and step timings tell waiting for data, launch overhead and synchronisation apart. The agent records both without code changes.", "trace 和步骤计时可以区分等待数据、发射开销和同步。agent 无需改代码即可记录两者。"),
            Some("checkup-agent run --profile-steps 8 -- python train.py"),
            pick(l, "The next checkup names the cause and its fix.", "下一次体检会指出原因和修复方法。"),
        ),
        (Fix::MainThreadCpu, _) => t(
            pick(l, "Look at the training loop's own CPU work", "检查训练循环自身的 CPU 工作"),
            pick(l, "The training processes keep about one CPU core busy: the main Python thread is running flat out. Data preparation in the main process (num_workers=0), per-step Python work or many small kernel launches are the usual suspects; the profile says which before anything is changed.", "训练进程大约占满一个 CPU 核心：Python 主线程在全速运行。常见原因是在主进程里准备数据（num_workers=0）、每步的 Python 工作，或大量小内核的发射；改动之前先由性能分析确定是哪一个。"),
            // Samples do not hold the loader's settings: no line to paste that could repeat
            // or contradict what the run already does.
            None,
            pick(l, "The GPU gets work as fast as it can take it.", "GPU 能以它能接受的速度拿到工作。"),
        ),
        (Fix::CoolGpu, _) => t(
            pick(l, "Cool the GPU", "给 GPU 降温"),
            pick(l, "The GPU lowered its clocks to stay within temperature limits: check airflow, fan curves, dust and the datacentre inlet temperature.", "GPU 为了保持在温度限制内降低了时钟：检查风道、风扇曲线、灰尘和机房进风温度。"),
            None,
            pick(l, "Clocks return to their maximum under load.", "负载下时钟恢复到最大值。"),
        ),
        (Fix::CheckPower, _) => t(
            pick(l, "Check the power limit and power delivery", "检查功耗上限与供电"),
            pick(l, "The GPU held its clocks down to stay within its power limit. Compare the enforced limit to the default (nvidia-smi -q -d POWER); on shared hosts ask the admin. Lower-precision math (bf16) does the same work with less power.", "GPU 为了保持在功耗上限内压低了时钟。对比实际上限与默认值（nvidia-smi -q -d POWER）；共享主机请联系管理员。低精度运算（bf16）以更少的功耗完成同样的工作。"),
            Some("nvidia-smi -q -d POWER,PERFORMANCE"),
            pick(l, "Clocks and throughput return to the card's rating.", "时钟和吞吐量恢复到显卡的额定水平。"),
        ),
        (Fix::TensorCores, _) => t(
            pick(l, "Use tensor cores: bf16 autocast or TF32", "使用张量核：bf16 autocast 或 TF32"),
            pick(l, "Matrix multiplies run in plain fp32 and the tensor cores sit idle. bf16 autocast (or at least TF32) runs them on tensor cores at many times the fp32 rate.", "矩阵乘以普通 fp32 运行，张量核闲置。bf16 autocast（至少 TF32）让它们在张量核上以数倍于 fp32 的速度运行。"),
            Some("torch.backends.cuda.matmul.allow_tf32 = True\ntorch.backends.cudnn.allow_tf32 = True\nwith torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    loss = loss_fn(model(x), y)"),
            pick(l, "Matmul-heavy steps get several times faster.", "以矩阵乘为主的步骤快数倍。"),
        ),
        (Fix::Compile, _) => t(
            pick(l, "Compile the model", "编译模型"),
            pick(l, "The GPU is the limit, so the next gains come from doing less work per step: torch.compile fuses elementwise ops into the surrounding kernels.", "GPU 已是瓶颈，下一步的收益来自每步少做工作：torch.compile 把逐元素操作融合进相邻内核。"),
            Some("model = torch.compile(model)"),
            pick(l, "Typically 1.2–2× on training steps.", "训练步骤通常提速 1.2–2 倍。"),
        ),
        (Fix::ChannelsLast, _) => t(
            pick(l, "Use channels_last for convolutions", "卷积使用 channels_last"),
            pick(l, "cuDNN's fastest tensor-core convolutions want NHWC.", "cuDNN 最快的张量核卷积需要 NHWC 布局。"),
            Some("model = model.to(memory_format=torch.channels_last)\nx = x.to(memory_format=torch.channels_last)"),
            pick(l, "10–30 % faster convolutions in mixed precision.", "混合精度下卷积快 10–30%。"),
        ),
        (Fix::FusedOptimizer { class }, _) => t(
            pick(l, "Use fused optimizers", "使用 fused 优化器"),
            pick(l, "Fused optimizer kernels cut the optimizer's share of the step.", "融合的优化器内核降低优化器在步骤中的占比。"),
            Some(&match class.as_deref() {
                Some(c) => format!("opt = torch.optim.{c}(model.parameters(), lr=lr, fused=True)"),
                None => format!(
                    "opt = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)  # {}",
                    pick(l, "keep your optimizer's class", "保留你原来的优化器类")
                ),
            }),
            pick(l, "Smaller optimizer share of the step.", "优化器占比下降。"),
        ),
        (Fix::FuseElementwise, _) => t(
            pick(l, "Fuse elementwise chains", "融合逐元素操作链"),
            pick(l, "Norm, activation and dropout each read and write the whole tensor; torch.compile fuses them so the tensor passes through memory once.", "归一化、激活和 dropout 各自读写整个张量；torch.compile 把它们融合，让张量只经过一次显存。"),
            Some("model = torch.compile(model)"),
            pick(l, "Bytes moved per step drop by the fusion factor; often 1.5–3× on such blocks.", "每步搬运的字节按融合倍数下降，这类模块常见 1.5–3 倍提速。"),
        ),
        (Fix::Bf16Activations, _) => t(
            pick(l, "Halve the bytes: bf16 activations", "字节减半：bf16 激活"),
            pick(l, "Under autocast, activations are stored in bf16: half the DRAM traffic of fp32.", "在 autocast 下，激活以 bf16 存储：显存流量是 fp32 的一半。"),
            Some("with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    loss = loss_fn(model(x), y)"),
            pick(l, "Up to 2× on bandwidth-bound kernels.", "带宽受限的内核最多快 2 倍。"),
        ),
        (Fix::FusedKernels, _) => t(
            pick(l, "Use fused kernels for the hot blocks", "热点模块使用融合内核"),
            pick(l, "Fused LayerNorm/RMSNorm, fused bias-GELU, scaled_dot_product_attention (flash attention) avoid materialising intermediates.", "融合的 LayerNorm/RMSNorm、融合 bias-GELU、scaled_dot_product_attention（flash attention）避免生成中间结果。"),
            Some(&format!(
                "torch.nn.functional.scaled_dot_product_attention(q, k, v)  # {}",
                pick(l, "instead of softmax(q @ k.T) @ v", "代替 softmax(q @ k.T) @ v")
            )),
            pick(l, "Fewer passes over memory per layer.", "每层对显存的遍历次数更少。"),
        ),
        (Fix::Environment { check }, _) => t(
            pick(l, "Fix the environment", "修复环境问题"),
            &checks::fix_for(*check, l),
            None,
            pick(l, "Removes a slowdown that no code change can fix.", "消除任何代码修改都无法解决的减速。"),
        ),
    }
}

/// A memory-saving fix: its effect is the memory it frees in this run, when the recording
/// says how much.
fn memory_fix(
    l: Language,
    title: &str,
    detail: &str,
    snippet: &str,
    frees_gib: Option<f64>,
) -> FixText {
    let effect = match (frees_gib, l) {
        (Some(g), En) => format!("Frees about {} GiB in this run.", crate::fixed(g, 1)),
        (Some(g), Zh) => format!("在本次运行中约释放 {} GiB。", crate::fixed(g, 1)),
        (None, En) => "Frees memory; how much, this recording cannot say.".into(),
        (None, Zh) => "可释放显存；释放多少，这份记录无法给出。".into(),
    };
    FixText {
        title: title.into(),
        detail: detail.into(),
        snippet: Some(snippet.into()),
        effect,
    }
}
