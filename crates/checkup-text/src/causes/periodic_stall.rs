//! Words for the `periodic_stall` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{
    Language, PeriodicStall, PeriodicStallEvidence, PeriodicStallFix, PeriodicWork,
};

use crate::fix_words::{pick, t, FixText};
use crate::Language::*;

/// A `periodic_stall` finding's title.
pub fn title(c: &PeriodicStall, l: Language) -> String {
    let (en, zh) = match c {
        PeriodicStall::Stalls { .. } => ("Periodic stalls", "周期性停顿"),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `periodic_stall` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &PeriodicStall, l: Language) -> String {
    match (c, l) {
        (PeriodicStall::Stalls { period_steps, excess_ms, work, gpu_busy }, En) => format!(
            "Every {period_steps:.0} steps a step takes about {excess_ms:.0} ms longer than usual; {}{}",
            match (gpu_busy, work) {
                (Some(true), _) => "the GPU runs that work meanwhile, not training.",
                // An evaluation pass runs on the GPU: idle only where NVML saw it so.
                (None, Some(PeriodicWork::Eval)) => "the training waits for it meanwhile.",
                _ => "during it the GPU has nothing to do.",
            },
            match work {
                None => String::new(),
                Some(PeriodicWork::EpochStart { workers, .. }) => format!(
                    " Each stall is an epoch start: the DataLoader starts its {workers} worker processes again."
                ),
                Some(PeriodicWork::Checkpoint) => " Each stall is a checkpoint being written.".into(),
                Some(PeriodicWork::BackgroundCheckpoint) => " Each stall is a checkpoint saved in the background: the copy of the state to host memory, and the loop waiting for the writer (the previous write still running, or the writer thread holding the interpreter as it writes).".into(),
                Some(PeriodicWork::Eval) => " Each stall is an evaluation pass (model.eval() … model.train()).".into(),
                Some(PeriodicWork::GarbageCollection) => " Each stall is a full Python garbage collection.".into(),
                Some(PeriodicWork::HostReadback { readbacks_per_stall }) => format!(
                    " In the profiled stalls the host read tensors back {readbacks_per_stall:.0} times, one at a time, and the GPU sat idle while it worked on them."
                ),
            }
        ),
        (PeriodicStall::Stalls { period_steps, excess_ms, work, gpu_busy }, Zh) => format!(
            "每 {period_steps:.0} 步就有一步比平常多耗时约 {excess_ms:.0} ms，{}{}",
            match (gpu_busy, work) {
                (Some(true), _) => "期间 GPU 在做这项工作，而不是训练。",
                (None, Some(PeriodicWork::Eval)) => "期间训练在等它完成。",
                _ => "期间 GPU 无事可做。",
            },
            match work {
                None => String::new(),
                Some(PeriodicWork::EpochStart { workers, .. }) => format!(
                    "每次停顿都是一个 epoch 的开始：DataLoader 重新启动它的 {workers} 个 worker 进程。"
                ),
                Some(PeriodicWork::Checkpoint) => "每次停顿都是在写检查点。".into(),
                Some(PeriodicWork::BackgroundCheckpoint) => "每次停顿都是一次后台保存检查点：把状态拷到主机内存，以及循环等待写入线程（上一次写入尚未结束，或写入线程写入时占着解释器）。".into(),
                Some(PeriodicWork::Eval) => "每次停顿都是一次评估（model.eval() … model.train()）。".into(),
                Some(PeriodicWork::GarbageCollection) => "每次停顿都是一次完整的 Python 垃圾回收。".into(),
                Some(PeriodicWork::HostReadback { readbacks_per_stall }) => format!(
                    "在被分析的停顿中，主机逐个把张量读回了 {readbacks_per_stall:.0} 次，GPU 在主机处理它们时一直空闲。"
                ),
            }
        ),
    }
}

/// What a `periodic_stall` evidence row measures.
pub fn evidence(k: &PeriodicStallEvidence, l: Language) -> String {
    let (en, zh) = match k {
        PeriodicStallEvidence::StallsWithMarker => (
            "stalled steps in which the probe saw that work",
            "探针在其中看到该工作的停顿步骤数",
        ),
        PeriodicStallEvidence::ProfiledStalls => {
            ("stalls inside the profiled steps", "被分析步骤中的停顿次数")
        }
        PeriodicStallEvidence::ReadbacksPerStall => (
            "host read-backs in a profiled stall",
            "被分析的停顿中主机读回次数",
        ),
        PeriodicStallEvidence::StallPeriod => ("stall period", "停顿周期"),
        PeriodicStallEvidence::StallExcess => (
            "typical stall length beyond a normal step",
            "比正常步骤多出的典型停顿时长",
        ),
        PeriodicStallEvidence::StallCount => {
            ("stalls in the steady window", "稳态窗口内的停顿次数")
        }
        PeriodicStallEvidence::StallLostShare => (
            "time lost to stalls (share of run)",
            "停顿损失的时间（占运行比例）",
        ),
        PeriodicStallEvidence::UtilDipPeriod => {
            ("GPU util dips to idle every", "GPU 利用率跌至空闲的周期")
        }
        PeriodicStallEvidence::StallsSeenIdle => (
            "stalls during which GPU-Util fell below busy",
            "GPU-Util 低于忙碌阈值的停顿",
        ),
        PeriodicStallEvidence::StagingCopy => (
            "copy of the state to host memory at each save",
            "每次保存时把状态拷到主机内存的时间",
        ),
        PeriodicStallEvidence::CheckpointWrite => (
            "each save's write beyond that copy",
            "每次保存中拷贝之外的写入时间",
        ),
        PeriodicStallEvidence::TrainingBetweenStalls => {
            ("training time between two stalls", "两次停顿之间的训练时间")
        }
        PeriodicStallEvidence::PeakDiskWrite => ("peak disk write rate", "磁盘写入峰值速率"),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `periodic_stall` fix in words.
pub fn fix(f: &PeriodicStallFix, l: Language) -> FixText {
    match (f, l) {
        (PeriodicStallFix::FreezeGc { again_later: false }, _) => t(
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
        (PeriodicStallFix::FreezeGc { again_later: true }, _) => t(
            pick(l, "Freeze once set-up is done, and keep no step's objects", "在准备工作全部完成后再冻结，并且不保留每一步的对象"),
            pick(l, "The run froze its objects with gc.freeze(), yet Python's own full collections still stall it, and the loop does not call gc.collect(): they walk what was built after the freeze (the model, the optimizer, datasets made later) and whatever each step keeps alive (outputs, losses or graphs in a list). Move gc.freeze() after the last of the set-up, and keep numbers, not the objects, across steps.", "这个运行已用 gc.freeze() 冻结了对象，循环也没有调用 gc.collect()，Python 自身的完整回收却仍让它停顿：这些回收遍历的是冻结之后才创建的对象（模型、优化器、之后才建的数据集），以及每一步保留下来的对象（列表里的输出、损失或计算图）。把 gc.freeze() 移到全部准备工作之后，并且跨步只保留数值而不是对象本身。"),
            Some(&format!(
                "model, optimizer, loader = build()\ngc.freeze()            # {}",
                pick(l, "after the last of the set-up", "在全部准备工作之后")
            )),
            pick(l, "Fewer and shorter stalls from the collector.", "垃圾回收造成的停顿更少、更短。"),
        ),
        (PeriodicStallFix::NoCollectInLoop { site, frozen }, _) => {
            // What each call walks: every object, or those made since the freeze.
            let walks = match (frozen, l) {
                (false, En) => "every object the run holds (millions, when the data is built from Python objects)",
                (false, Zh) => "进程持有的所有对象（数据由 Python 对象构成时可达数百万个）",
                (true, En) => "every object made since the run froze its start-up objects (gc.freeze)",
                (true, Zh) => "自运行冻结启动对象（gc.freeze）以来创建的所有对象",
            };
            // The training's own line is named; a call made inside code that line calls (a
            // helper, a callback) shows a line without the call itself.
            let direct = site.as_ref().is_some_and(|s| s.code.contains("collect("));
            let title = match (site, direct, l) {
                (Some(s), true, En) => format!("Stop calling gc.collect() at {}", s.location()),
                (Some(s), true, Zh) => format!("不要在 {} 调用 gc.collect()", s.location()),
                (Some(s), false, En) => format!("Stop the gc.collect() calls made through {}", s.location()),
                (Some(s), false, Zh) => format!("去掉经由 {} 发出的 gc.collect() 调用", s.location()),
                (None, _, En) => "Stop calling gc.collect() in the loop".to_owned(),
                (None, _, Zh) => "不要在循环里调用 gc.collect()".to_owned(),
            };
            let body = match (site, direct, l) {
                (Some(s), true, En) => format!("{} in {}() asks for a full collection again and again ({} calls): {}. Each walks {walks} while the loop waits. Python collects on its own when it needs to: remove the call, or make it rare.", s.location(), s.function, s.count, crate::code(&s.code)),
                (Some(s), true, Zh) => format!("{} 中 {}() 的这一行一次又一次地要求完整回收（{} 次）：{}。每次都要遍历{walks}，循环只能等待。Python 会在需要时自行回收：删掉这个调用，或让它很少发生。", s.location(), s.function, s.count, crate::code(&s.code)),
                (Some(s), false, En) => format!("{} in {}() calls code that asks for a full collection again and again ({} calls): {}. Each walks {walks} while the loop waits. Find the gc.collect() in what this line calls (a helper, a callback) and remove it, or make it rare: Python collects on its own when it needs to.", s.location(), s.function, s.count, crate::code(&s.code)),
                (Some(s), false, Zh) => format!("{} 中 {}() 的这一行所调用的代码一次又一次地要求完整回收（{} 次）：{}。每次都要遍历{walks}，循环只能等待。在这一行调用的代码（辅助函数、回调）里找到 gc.collect() 并删掉，或让它很少发生：Python 会在需要时自行回收。", s.location(), s.function, s.count, crate::code(&s.code)),
                (None, _, En) => format!("Full collections stall the run at a steady period: the loop calls gc.collect(), which walks {walks}. Python collects on its own when it needs to: remove the call, or make it rare."),
                (None, _, Zh) => format!("完整回收按固定周期让运行停顿：循环在调用 gc.collect()，它会遍历{walks}。Python 会在需要时自行回收：删掉这个调用，或让它很少发生。"),
            };
            t(
                &title,
                &body,
                Some(&format!("# gc.collect()   # {}", pick(l, "removed from the training loop", "从训练循环中删除"))),
                pick(l, "No more stalls from the collector in the steps.", "步骤中不再有垃圾回收造成的停顿。"),
            )
        }
        (PeriodicStallFix::SummariseOnGpu { readbacks }, _) => t(
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
        (
            PeriodicStallFix::AsyncCheckpoint {
                checkpoint_seen,
                every_steps,
            },
            _,
        ) => {
            let why = match (every_steps, l) {
                (Some(n), En) => format!("Checkpoint writes were seen while the GPU waited, and each takes longer than the training between two saves: in the background, the next save would wait for it. Save in the background, and every {n} steps, so each write ends before the next is due (fewer checkpoints: less work lost to a crash is the price)."),
                (Some(n), Zh) => format!("GPU 等待期间看到了检查点写入，而且每次写入都比两次保存之间的训练更久：放到后台，下一次保存也要等它。请在后台保存，并改为每 {n} 步保存一次，让每次写入在下一次到来前完成（代价是检查点更少，崩溃时丢失的进度更多）。"),
                (None, _) if *checkpoint_seen => pick(l, "Checkpoint writes were seen while the GPU waited. Save in the background so training continues.", "GPU 等待期间看到了检查点写入。请在后台保存，让训练继续。").into(),
                (None, _) => pick(l, "A stall every N steps is usually a checkpoint, an evaluation pass, logging or an epoch boundary. If it is a checkpoint, save it in the background.", "每 N 步一次的停顿通常来自检查点、评估、日志或 epoch 边界。如果是检查点，请在后台保存。").into(),
            };
            let when = every_steps.map_or(String::new(), |n| format!("if step % {n} == 0:\n    "));
            t(
                pick(l, "Write checkpoints asynchronously", "异步写检查点"),
                &why,
                Some(&format!(
                    "import torch.distributed.checkpoint as dcp\n{when}future = dcp.async_save(model.state_dict(), checkpoint_id=f\"ckpt/step{{step}}\")\n# {}",
                    pick(l, "or: copy the state_dict to CPU, then torch.save in a thread", "或者：把 state_dict 拷到 CPU，再在线程里 torch.save")
                )),
                pick(l, "The stall shrinks to the device-to-host copy of the weights.", "停顿缩短到把权重拷回主机所需的时间。"),
            )
        }
        (
            PeriodicStallFix::CheckpointLessOften {
                every_steps,
                write_ms,
            },
            _,
        ) => t(
            pick(l, "Save checkpoints less often", "降低检查点的保存频率"),
            &match l {
                En => format!("The run already writes its checkpoints in the background, but a write takes up to {} s, longer than the training between two saves: each save waits for the one before. Save every {every_steps} steps, so each write ends before the next is due (fewer checkpoints: less work lost to a crash is the price), or write to a faster disk.", crate::fixed(write_ms / 1e3, 1)),
                Zh => format!("这个运行已经在后台写检查点，但每次写入最长要 {} 秒，比两次保存之间的训练更久：每次保存都要等上一次。请改为每 {every_steps} 步保存一次，让每次写入在下一次到来前完成（代价是检查点更少，崩溃时丢失的进度更多），或写到更快的磁盘。", crate::fixed(write_ms / 1e3, 1)),
            },
            Some(&format!("if step % {every_steps} == 0:\n    save_checkpoint(step)   # {}", pick(l, "your background save, unchanged", "你原来的后台保存，不变"))),
            pick(l, "No more waits for the previous write.", "不再等待上一次写入。"),
        ),
        (
            PeriodicStallFix::EvaluateLessOften {
                period_steps,
                every_steps,
                pass_ms,
                pass_share,
            },
            _,
        ) => t(
            pick(l, "Evaluate less often", "降低评估频率"),
            &match l {
                En => format!("Each evaluation pass holds the training for about {} s, every {period_steps} steps. Evaluate every {every_steps} steps instead, so a pass takes at most {}% of the training time between two (the price: the validation score comes less often), or evaluate on a fixed subset of the validation set.", crate::fixed(pass_ms / 1e3, 2), crate::pct(*pass_share)),
                Zh => format!("每次评估都让训练停下约 {} 秒，每 {period_steps} 步一次。请改为每 {every_steps} 步评估一次，让每次评估最多占两次评估之间训练时间的 {}%（代价是验证分数更新得更少），或只在验证集的固定子集上评估。", crate::fixed(pass_ms / 1e3, 2), crate::pct(*pass_share)),
            },
            Some(&format!("if step % {every_steps} == 0:   # {}\n    evaluate()   # {}", pick(l, &format!("was {period_steps}"), &format!("原来是 {period_steps}")), pick(l, "your evaluation, unchanged", "你原来的评估，不变"))),
            pick(l, "The same passes, fewer of them.", "评估本身不变，次数更少。"),
        ),
        (PeriodicStallFix::LessPeriodicWork, _) => t(
            pick(l, "Do periodic work less often or off the critical path", "降低周期性工作的频率或移出关键路径"),
            pick(l, "Evaluate and log less often, keep DataLoader workers persistent across epochs, and avoid re-creating iterators.", "降低评估和日志的频率，保持 DataLoader worker 常驻，避免重复创建迭代器。"),
            Some("DataLoader(..., persistent_workers=True)\nif step % 1000 == 0: evaluate()"),
            pick(l, "Fewer stalls, each shorter.", "停顿更少、更短。"),
        ),
    }
}
