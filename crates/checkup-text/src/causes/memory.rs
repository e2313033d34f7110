//! Words for the `memory` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{Language, Memory, MemoryEvidence, MemoryFix};

use crate::fix_words::{memory_fix, pick, t, FixText};
use crate::{fixed, pct, Language::*};

/// A `memory` finding's title.
pub fn title(c: &Memory, l: Language) -> String {
    let (en, zh) = match c {
        Memory::Creep { .. } => ("GPU memory creeps up step after step", "GPU 显存逐步上涨"),
        Memory::NearLimit { .. } => (
            "GPU memory is close to full: the batch size is set by memory",
            "GPU 显存接近用满：批大小受显存限制",
        ),
        Memory::Fragmented { .. } => ("GPU memory is fragmented", "GPU 显存碎片化"),
        Memory::HostCreep { .. } => (
            "The training's host memory keeps growing",
            "训练进程的主机内存持续增长",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `memory` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &Memory, l: Language) -> String {
    match (c, l) {
        (Memory::Creep { from_gib, to_gib, gib_per_min, capacity_gib, full_in_min }, En) => format!(
            "Memory in live tensors grew from {} to {} GiB while the run went on ({} GiB a minute) on a {} GiB card{}. Something keeps tensors from every step alive.",
            fixed(*from_gib, 1),
            fixed(*to_gib, 1),
            fixed(*gib_per_min, 1),
            fixed(*capacity_gib, 0),
            match full_in_min {
                Some(m) if *m < 1.0 => ": at that pace it is full within a minute of the recording's end, and the run stops with an out-of-memory error".into(),
                Some(m) => format!(": at that pace it is full about {} minutes after the recording ends, and the run stops with an out-of-memory error", fixed(*m, 0)),
                None => String::new(),
            }
        ),
        (Memory::Creep { from_gib, to_gib, gib_per_min, capacity_gib, full_in_min }, Zh) => format!(
            "运行过程中活动张量占用的显存从 {} GiB 增长到 {} GiB（每分钟 {} GiB），显卡容量 {} GiB{}。有东西让每一步的张量一直存活。",
            fixed(*from_gib, 1),
            fixed(*to_gib, 1),
            fixed(*gib_per_min, 1),
            fixed(*capacity_gib, 0),
            match full_in_min {
                Some(m) if *m < 1.0 => "：照此速度，记录结束后一分钟内显存就会用满，训练将因显存不足（OOM）而中止".into(),
                Some(m) => format!("：照此速度，记录结束后约 {} 分钟显存就会用满，训练将因显存不足（OOM）而中止", fixed(*m, 0)),
                None => String::new(),
            }
        ),
        (Memory::NearLimit { peak_gib, capacity_gib, others_gib }, En) => format!(
            "At its peak the GPU had {} of its {} GiB in use ({}%){}. There is no room for a larger batch, and a longer sequence or a bigger layer runs out of memory. The fixes below free memory, cheapest first, each with what it would free in this run.",
            fixed(*peak_gib, 1),
            fixed(*capacity_gib, 0),
            pct(peak_gib / capacity_gib),
            if *others_gib >= 1.0 { format!(", {} GiB of it held by other processes", fixed(*others_gib, 1)) } else { String::new() }
        ),
        (Memory::NearLimit { peak_gib, capacity_gib, others_gib }, Zh) => format!(
            "峰值时 GPU 的 {} GiB 显存中已用 {} GiB（{}%）{}。已经没有空间增大批大小，更长的序列或更大的层都会显存不足。下面的修复按代价从低到高释放显存，并给出各自在本次运行中能释放的量。",
            fixed(*capacity_gib, 0),
            fixed(*peak_gib, 1),
            pct(peak_gib / capacity_gib),
            if *others_gib >= 1.0 { format!("，其中 {} GiB 被其他进程占用", fixed(*others_gib, 1)) } else { String::new() }
        ),
        (Memory::HostCreep { from_mib, to_mib, mib_per_min }, En) => format!(
            "The training's processes held {} GiB of host memory at the start of the run and {} GiB at its end, {} GiB more every minute, growing all along. Something keeps a piece of every step on the host (predictions, losses, arrays kept in a list; a cache that never evicts); a longer run ends when the host runs out of memory and its OOM killer stops the training.",
            fixed(from_mib / 1024.0, 1),
            fixed(to_mib / 1024.0, 1),
            fixed(mib_per_min / 1024.0, 1),
        ),
        (Memory::HostCreep { from_mib, to_mib, mib_per_min }, Zh) => format!(
            "训练进程在运行开始时占用 {} GiB 主机内存，结束时 {} GiB，每分钟多 {} GiB，一直在增长。有东西把每一步的一部分留在了主机上（保存在列表里的预测、损失、数组；从不淘汰的缓存）；运行更久时，主机内存会被耗尽，系统的 OOM killer 会终止训练。",
            fixed(from_mib / 1024.0, 1),
            fixed(to_mib / 1024.0, 1),
            fixed(mib_per_min / 1024.0, 1),
        ),
        (Memory::Fragmented { reserved_gib, peak_allocated_gib, retries }, En) => format!(
            "PyTorch's allocator reserved {} GiB, but the tensors never needed more than {} GiB at once: {} GiB sit in cached blocks of the wrong sizes (tensors of changing shapes){}.",
            fixed(*reserved_gib, 1),
            fixed(*peak_allocated_gib, 1),
            fixed(reserved_gib - peak_allocated_gib, 1),
            if *retries > 0 { format!(", and {retries} allocations failed until it emptied its cache, a slow step each") } else { String::new() }
        ),
        (Memory::Fragmented { reserved_gib, peak_allocated_gib, retries }, Zh) => format!(
            "PyTorch 的分配器预留了 {} GiB，但张量同时所需从未超过 {} GiB：有 {} GiB 停留在尺寸不合用的缓存块中（张量形状不断变化）{}。",
            fixed(*reserved_gib, 1),
            fixed(*peak_allocated_gib, 1),
            fixed(reserved_gib - peak_allocated_gib, 1),
            if *retries > 0 { format!("，并有 {retries} 次分配失败后才清空缓存重试，每次都是一个慢步骤") } else { String::new() }
        ),
    }
}

/// What a `memory` evidence row measures.
pub fn evidence(k: &MemoryEvidence, l: Language) -> String {
    let (en, zh) = match k {
        MemoryEvidence::AllocatedGrowth => {
            ("growth of memory in live tensors", "活动张量占用显存的增长")
        }
        MemoryEvidence::AllocatedGrowthRate => (
            "growth of memory in live tensors, per minute",
            "活动张量显存每分钟的增长",
        ),
        MemoryEvidence::HostRssGrowthRate => (
            "growth of the training processes' host memory, per minute",
            "训练进程主机内存每分钟的增长",
        ),
        MemoryEvidence::PeakMemoryShareOfCapacity => (
            "peak GPU memory used, share of the card's",
            "GPU 显存峰值占用占显卡容量比例",
        ),
        MemoryEvidence::OtherProcessesMemory => (
            "other processes' memory on this GPU",
            "本 GPU 上其他进程占用的显存",
        ),
        MemoryEvidence::ReservedUnusedShare => (
            "reserved memory never used at once, share of reserved",
            "从未同时使用的预留显存占预留比例",
        ),
        MemoryEvidence::AllocRetries => (
            "allocation retries after a failed cudaMalloc",
            "cudaMalloc 失败后的分配重试",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `memory` fix in words.
pub fn fix(f: &MemoryFix, l: Language) -> FixText {
    match (f, l) {
        (MemoryFix::KeepValuesNotTensors, _) => t(
            pick(l, "Keep values, not loss tensors", "保存数值，而不是损失张量"),
            pick(l, "A loss tensor kept in a list (or summed into a running total) keeps its whole autograd graph and the activations it saved alive, step after step; retain_graph=True does the same. Keep loss.item() when you log, or loss.detach() to sum on the GPU, and drop retain_graph unless you really call backward twice.", "保存在列表里（或累加到总和中）的损失张量会让它整个 autograd 图及其保存的激活一步接一步地存活；retain_graph=True 也是如此。记录日志时保存 loss.item()，或用 loss.detach() 在 GPU 上累加，并去掉 retain_graph，除非确实要调用两次 backward。"),
            Some("loss.backward()                 # no retain_graph\nlosses.append(loss.detach())    # or loss.item() when you log"),
            pick(l, "Memory stays flat from step to step.", "显存在各步之间保持平稳。"),
        ),
        (MemoryFix::BoundHostHistory, _) => t(
            pick(l, "Don't keep every step's results on the host", "不要把每一步的结果都留在主机上"),
            pick(l, "Aggregate as the steps come (running sums, a confusion matrix, counts on the GPU read when you log), write what you must keep to disk as you go, or clear the list at each epoch's end. A metric over all predictions needs their summary, not the predictions.", "随步骤进行汇总（累计和、混淆矩阵、在 GPU 上计数并在记录日志时读出），必须保留的内容边产生边写到磁盘，或在每个 epoch 结束时清空列表。基于全部预测的指标需要的是汇总量，而不是预测本身。"),
            Some(&format!(
                "correct = torch.zeros((), device=\"cuda\", dtype=torch.long)\n# {}\ncorrect += (logits.argmax(1) == y).sum()\n# {}\nnp.save(f\"preds_{{step}}.npy\", logits.argmax(1).cpu().numpy())",
                pick(l, "each step: a running count, nothing kept", "每一步：累计计数，不保留任何东西"),
                pick(l, "only if you need them later: written out, not kept", "仅在之后确实需要时：写到磁盘，而不是留在内存")
            )),
            pick(l, "Host memory stays flat however long the run.", "无论运行多久，主机内存都保持平稳。"),
        ),
        (MemoryFix::ExpandableSegments, _) => t(
            pick(l, "Let the allocator grow segments instead of splitting blocks", "让分配器扩展段而不是拆分块"),
            pick(l, "With expandable segments, PyTorch maps more memory into the same segment when a tensor needs it, so tensors of changing sizes reuse memory instead of leaving blocks of the wrong size behind. Set it before the training starts.", "启用可扩展段后，PyTorch 在张量需要时向同一段映射更多显存，尺寸变化的张量因此能复用显存，而不会留下尺寸不合用的块。请在训练启动前设置。"),
            Some("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python train.py"),
            pick(l, "Reserved memory close to what the tensors need.", "预留显存接近张量的实际需要。"),
        ),
        (MemoryFix::FreeSharedGpu { pids, frees_gib }, _) => {
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
        (MemoryFix::Bf16Memory { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Store activations in bf16 (autocast)", "用 bf16 存储激活（autocast）"),
            pick(l, "Under autocast, the activations saved for backward are bf16: half the bytes of fp32. The weights and optimizer stay in fp32.", "在 autocast 下，为反向保存的激活是 bf16：字节数是 fp32 的一半。权重和优化器仍为 fp32。"),
            "with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    loss = loss_fn(model(x), y)",
            *frees_gib,
        ),
        (MemoryFix::ActivationCheckpointing { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Recompute activations in backward (activation checkpointing)", "在反向时重算激活（激活检查点）"),
            pick(l, "Each checkpointed block keeps only its input and runs its forward again during backward: most of the activation memory, for about a third more compute.", "每个做了检查点的模块只保留输入，在反向时重新执行前向：省下大部分激活显存，代价约为多三分之一的计算。"),
            "from torch.utils.checkpoint import checkpoint\nfor block in model.blocks:\n    x = checkpoint(block, x, use_reentrant=False)",
            *frees_gib,
        ),
        (MemoryFix::EightBitOptimizer { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Keep the optimizer's states in 8 bits", "用 8 位保存优化器状态"),
            pick(l, "Adam keeps two fp32 states per parameter (8 bytes); 8-bit Adam (bitsandbytes) keeps them in 2 bytes with the same updates in practice.", "Adam 为每个参数保存两个 fp32 状态（8 字节）；8 位 Adam（bitsandbytes）只用 2 字节，实际更新效果相同。"),
            "import bitsandbytes as bnb\nopt = bnb.optim.AdamW8bit(model.parameters(), lr=lr)",
            *frees_gib,
        ),
        (MemoryFix::SmallerMicroBatch { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Halve the micro-batch and accumulate two", "微批减半并累积两次"),
            pick(l, "Two half batches with the gradients accumulated give the same update as one full batch, with half the activations in memory at a time; each step then takes two passes.", "两个半批并累积梯度，与一个完整批次的更新相同，同一时间只有一半激活在显存中；每一步则需要两次前反向。"),
            "for i, (x, y) in enumerate(loader):          # batches of half the size\n    (loss_fn(model(x), y) / 2).backward()\n    if i % 2 == 1:\n        opt.step(); opt.zero_grad(set_to_none=True)",
            *frees_gib,
        ),
        (MemoryFix::OffloadOptimizer { frees_gib }, _) => memory_fix(
            l,
            pick(l, "Move the optimizer's states to the CPU", "把优化器状态移到 CPU"),
            pick(l, "FSDP or DeepSpeed can keep the optimizer's states (and the update) in host memory: the most memory freed, and the slowest, since the states cross PCIe every step.", "FSDP 或 DeepSpeed 可以把优化器状态（及更新计算）放在主机内存：释放的显存最多，也最慢，因为每步状态都要经过 PCIe。"),
            "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, CPUOffload\nmodel = FSDP(model, cpu_offload=CPUOffload(offload_params=True))",
            *frees_gib,
        ),
    }
}
