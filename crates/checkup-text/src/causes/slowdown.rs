//! Words for the `slowdown` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{
    Language, MarkerKind, Slowdown, SlowdownEvidence, SlowdownFix, SlowdownPart, StepMeasure,
};

use crate::fix_words::{pick, t, FixText};
use crate::{fixed, Language::*};

/// A `slowdown` finding's title.
pub fn title(c: &Slowdown, l: Language) -> String {
    let (en, zh) = match c {
        Slowdown::StepsGrow { .. } => ("The run gets slower as it goes", "训练越跑越慢"),
        Slowdown::PeriodicGrows {
            work: MarkerKind::Eval,
            ..
        } => ("Each evaluation pass takes longer", "每次评估都更久"),
        Slowdown::PeriodicGrows {
            work: MarkerKind::Checkpoint,
            ..
        } => ("Each checkpoint takes longer", "每次保存检查点都更久"),
        Slowdown::PeriodicGrows {
            work: MarkerKind::Gc,
            ..
        } => ("Each garbage collection takes longer", "每次垃圾回收都更久"),
        Slowdown::PeriodicGrows {
            work: MarkerKind::EpochStart,
            ..
        } => ("Each epoch takes longer to start", "每个 epoch 启动都更久"),
        Slowdown::PeriodicGrows {
            work: MarkerKind::Compile,
            ..
        } => ("Each compilation takes longer", "每次编译都更久"),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `slowdown` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &Slowdown, l: Language) -> String {
    match (c, l) {
        (Slowdown::StepsGrow { first_ms, first_steps_ms, last_ms, measure, began_at_s, began_at_step, grew, grew_ms, host_rss_mib, .. }, En) => format!(
            "{} {} ms at the start of the run and {} ms at its end; it began to slow down about {} s in (step {began_at_step}).{} {}{}{}",
            match measure {
                StepMeasure::Median => "The median step took",
                StepMeasure::Mean => "Most steps stayed fast, but ever longer ones among them took the mean step from",
            },
            fixed(*first_ms, 1),
            fixed(*last_ms, 1),
            fixed(*began_at_s, 0),
            match first_steps_ms {
                Some(e) => format!(" The run's first steps took {} ms at the median: the steps had already grown within the first tenth.", fixed(*e, 1)),
                None => String::new(),
            },
            match grew {
                SlowdownPart::DataWait => "The wait for each batch grew with it: the input pipeline gets slower.",
                SlowdownPart::HostWork => "The loop's own host time grew with it, not the wait for data: the loop does more work each step than the step before (usually a list re-scanned, a history kept and summed).",
                SlowdownPart::GpuWork => "The GPU's work per step grew with it (the step time with the GPU busy, by NVML's utilisation), not the wait for data or the loop's host time.",
                SlowdownPart::Other => "Neither the wait for data, the loop's host time nor the GPU's work grew as much: waits the step timings do not split grew.",
            },
            match grew_ms {
                Some([a, b]) => format!(" Per step, from {} ms to {} ms.", fixed(*a, 1), fixed(*b, 1)),
                None => String::new(),
            },
            match host_rss_mib {
                Some([a, b]) => format!(" The training processes' host memory grew from {a:.0} to {b:.0} MiB meanwhile."),
                None => String::new(),
            }
        ),
        (Slowdown::StepsGrow { first_ms, first_steps_ms, last_ms, measure, began_at_s, began_at_step, grew, grew_ms, host_rss_mib, .. }, Zh) => format!(
            "{}运行开始时为 {} 毫秒，结束时 {} 毫秒；大约在第 {} 秒（第 {began_at_step} 步）开始变慢。{}{}{}{}",
            match measure {
                StepMeasure::Median => "步骤中位耗时",
                StepMeasure::Mean => "多数步骤仍然很快，但其中越来越长的步骤使平均步骤耗时",
            },
            fixed(*first_ms, 1),
            fixed(*last_ms, 1),
            fixed(*began_at_s, 0),
            match first_steps_ms {
                Some(e) => format!("运行最初几步的中位耗时为 {} 毫秒：步骤在前十分之一里就已经变长。", fixed(*e, 1)),
                None => String::new(),
            },
            match grew {
                SlowdownPart::DataWait => "每个批次的等待时间随之增长：输入管道越来越慢。",
                SlowdownPart::HostWork => "随之增长的是循环自身的主机时间，而不是等待数据：循环每一步都比上一步做更多的工作（通常是反复扫描的列表、保留并求和的历史记录）。",
                SlowdownPart::GpuWork => "随之增长的是 GPU 每步的工作（按 NVML 利用率计算的 GPU 忙碌时间），而不是等待数据或循环的主机时间。",
                SlowdownPart::Other => "等待数据、循环的主机时间和 GPU 的工作都没有相应增长：增长的是步骤计时无法拆分的等待。",
            },
            match grew_ms {
                Some([a, b]) => format!("每步从 {} 毫秒增长到 {} 毫秒。", fixed(*a, 1), fixed(*b, 1)),
                None => String::new(),
            },
            match host_rss_mib {
                Some([a, b]) => format!("同期训练进程的主机内存从 {a:.0} MiB 增长到 {b:.0} MiB。"),
                None => String::new(),
            }
        ),
        (Slowdown::PeriodicGrows { work, first_ms, last_ms, count, began_at_step }, En) => format!(
            "The probe timed {} {count} times: the first third took {} ms at the median, the last third {} ms, and each from step {began_at_step} on took longer than the first ones. {}",
            match work {
                MarkerKind::Eval => "the evaluation pass (model.eval() … model.train())",
                MarkerKind::Checkpoint => "the checkpoint",
                MarkerKind::Gc => "Python's full garbage collection",
                MarkerKind::EpochStart => "the epoch's start",
                MarkerKind::Compile => "dynamo's compilation",
            },
            fixed(*first_ms, 0),
            fixed(*last_ms, 0),
            match work {
                MarkerKind::Eval => "The same model evaluated on the same data takes the same time: the evaluation does more each time (a set that grows, metrics over everything seen so far).",
                MarkerKind::Checkpoint => "The same model saved takes the same time: what is saved grows (a history kept in the state, every earlier state), or the disk it goes to gets slower.",
                MarkerKind::Gc => "A collection walks every Python object alive: ever more of them stay alive (outputs, losses or graphs kept in a list).",
                MarkerKind::EpochStart => "The loader's start does more each epoch.",
                MarkerKind::Compile => "Each compilation has more to compile: the graphs grow (a loop unrolled over inputs that get longer, a Python list traced into the graph).",
            }
        ),
        (Slowdown::PeriodicGrows { work, first_ms, last_ms, count, began_at_step }, Zh) => format!(
            "探针为{}计时 {count} 次：前三分之一的中位耗时 {} 毫秒，后三分之一 {} 毫秒，从第 {began_at_step} 步起每次都比最初几次更久。{}",
            match work {
                MarkerKind::Eval => "评估（model.eval() … model.train()）",
                MarkerKind::Checkpoint => "保存检查点",
                MarkerKind::Gc => "Python 的完整垃圾回收",
                MarkerKind::EpochStart => "epoch 启动",
                MarkerKind::Compile => "dynamo 的编译",
            },
            fixed(*first_ms, 0),
            fixed(*last_ms, 0),
            match work {
                MarkerKind::Eval => "同一模型在同样的数据上评估耗时应当相同：评估每次都做了更多工作（不断增长的数据集、对迄今所有结果计算指标）。",
                MarkerKind::Checkpoint => "保存同一模型耗时应当相同：保存的内容在增长（状态中保留的历史、每一个更早的状态），或写入的磁盘变慢。",
                MarkerKind::Gc => "一次回收要遍历所有存活的 Python 对象：存活的对象越来越多（输出、损失或计算图被保存在列表里）。",
                MarkerKind::EpochStart => "加载器每个 epoch 启动时做的工作越来越多。",
                MarkerKind::Compile => "每次编译要编译的内容都更多：计算图在增长（对越来越长的输入展开的循环、被追踪进图里的 Python 列表）。",
            }
        ),
    }
}

/// What a `slowdown` evidence row measures.
pub fn evidence(k: &SlowdownEvidence, l: Language) -> String {
    let (en, zh) = match k {
        SlowdownEvidence::FirstStepMedian => (
            "median step, first tenth of the run",
            "运行前十分之一的步骤中位耗时",
        ),
        SlowdownEvidence::LastStepMedian => (
            "median step, last tenth of the run",
            "运行最后十分之一的步骤中位耗时",
        ),
        SlowdownEvidence::FirstStepMean => (
            "mean step, first tenth of the run",
            "运行前十分之一的平均步骤耗时",
        ),
        SlowdownEvidence::LastStepMean => (
            "mean step, last tenth of the run",
            "运行最后十分之一的平均步骤耗时",
        ),
        SlowdownEvidence::FirstStepsMedian => (
            "median step, the run's first steps",
            "运行最初几步的步骤中位耗时",
        ),
        SlowdownEvidence::StepTimeGrowth => {
            ("step time growth over the run", "运行期间步骤耗时的增长")
        }
        SlowdownEvidence::DataWaitGrowth => (
            "growth of the wait for data per step",
            "每步等待数据时间的增长",
        ),
        SlowdownEvidence::HostWorkGrowth => (
            "growth of the loop's host time per step",
            "每步循环主机时间的增长",
        ),
        SlowdownEvidence::GpuWorkGrowth => (
            "growth of the GPU's work per step (step × utilisation)",
            "每步 GPU 工作的增长（步骤耗时 × 利用率）",
        ),
        SlowdownEvidence::FirstPeriodicMedian => (
            "median time, first third of the runs",
            "前三分之一次的中位耗时",
        ),
        SlowdownEvidence::LastPeriodicMedian => (
            "median time, last third of the runs",
            "后三分之一次的中位耗时",
        ),
        SlowdownEvidence::PeriodicGrowth => (
            "growth from the first third to the last",
            "从前三分之一到后三分之一的增长",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `slowdown` fix in words.
pub fn fix(f: &SlowdownFix, l: Language) -> FixText {
    match (f, l) {
        (SlowdownFix::ConstantHostWork { kept_at: Some(site) }, _) => t(
            &match l {
                En => format!("Keep running totals, not the list filled at {}", site.location()),
                Zh => format!("用累计值代替在 {} 填充的列表", site.location()),
            },
            &match l {
                En => format!("{} in {}() reads values back into a list the loop keeps, every step: {}. Whatever scans, sorts or sums that list walks every step so far again, so each step is slower than the one before. Keep what the metric needs as running totals on the GPU and read them when you log; clear what you keep at each epoch.", site.location(), site.function, crate::code(&site.code)),
                Zh => format!("{} 中 {}() 的这一行每步都把值读回到循环保留的列表里：{}。之后对这个列表的扫描、排序或求和都要把迄今所有步骤再走一遍，所以每一步都比上一步更慢。请把指标所需的量作为累计值保存在 GPU 上，记录日志时再读出；每个 epoch 清空保留的内容。", site.location(), site.function, crate::code(&site.code)),
            },
            Some(&format!(
                "# {}: `{}`\n# {}\ncorrect = torch.zeros((), device=\"cuda\", dtype=torch.long)\nseen = 0\ncorrect += (out.argmax(1) == y).sum()  # {}\nseen += y.numel()\nif step % 100 == 0:\n    print(\"accuracy\", correct.item() / seen)",
                site.location(),
                site.code,
                pick(l, "running totals instead, for example for accuracy:", "改用累计值，以准确率为例："),
                pick(l, "each step: constant work, no read-back", "每一步：工作量不变，不读回主机")
            )),
            pick(l, "Every step as fast as the first ones.", "每一步都和最初的步骤一样快。"),
        ),
        (SlowdownFix::ConstantHostWork { kept_at: None }, _) => t(
            pick(l, "Find the loop's work that grows with the steps", "找出循环中随步数增长的工作"),
            pick(l, "Something the loop does each step grows with the steps done: usually a list appended to every step and then scanned, sorted or summed again (predictions kept for a metric, a loss history), or a history concatenated. Keep running totals instead and read them when you log. The host's hot lines, or a Python profile of a late step beside an early one, show which line it is.", "循环每一步做的某件事随已完成的步数增长：通常是每步追加的列表又被整体扫描、排序或求和（为计算指标保留的预测、损失历史），或不断拼接的历史记录。请改用累计值，记录日志时再读出。主机热点行，或把后期步骤与早期步骤的 Python 分析结果并排对比，就能看出是哪一行。"),
            None,
            pick(l, "Every step as fast as the first ones.", "每一步都和最初的步骤一样快。"),
        ),
        (SlowdownFix::ConstantSampleWork, _) => t(
            pick(l, "Keep each sample's loading work constant", "让每个样本的加载工作量保持不变"),
            pick(l, "The batches come slower as the run goes while the model stays the same: something each sample's loading does grows with the run (a folder listed for every sample while the run writes files into it, a cache or log scanned that keeps growing, a file appended to and read again). Look at the dataset's __getitem__ and the collate function, not the model; list or index once, outside them. More workers only delay the slowdown.", "模型不变而批次来得越来越慢：每个样本的加载工作随运行增长（每个样本都列一次运行中不断写入文件的目录、扫描不断增长的缓存或日志、追加后又重读的文件）。请检查数据集的 __getitem__ 和 collate 函数，而不是模型；在它们之外只列一次目录或建一次索引。增加 worker 只能推迟变慢。"),
            Some(&format!(
                "class Samples(Dataset):\n    def __init__(self, root):\n        self.files = sorted(os.listdir(root))  # {}\n\n    def __getitem__(self, i):\n        return load(self.files[i])  # {}",
                pick(l, "listed once", "只列一次"),
                pick(l, "no listing or scan per sample", "不再对每个样本列目录或扫描")
            )),
            pick(l, "Every batch as fast as the first ones.", "每个批次都和最初的一样快。"),
        ),
        (SlowdownFix::ConstantGpuWork, _) => t(
            pick(l, "Find the GPU work that grows with the steps", "找出随步数增长的 GPU 工作"),
            pick(l, "The GPU does more per step as the run goes. Usually a tensor kept across steps and extended every step (torch.cat onto a history, a buffer that is never cut) or inputs that get longer. If the inputs grow by design (a curriculum of longer sequences), this is expected and nothing is wrong. Otherwise keep a fixed-size buffer or a running total instead of the growing tensor; a profile of one late step beside an early one shows which kernels grew.", "GPU 每步的工作随运行增加。通常是某个跨步保留、每步都被扩展的张量（对历史做 torch.cat、从不截断的缓冲区），或越来越长的输入。如果输入按设计增长（逐步加长序列的课程学习），这是预期行为，没有问题。否则请用固定大小的缓冲区或累计值代替不断增长的张量；把一个后期步骤与早期步骤的分析结果并排对比，就能看出哪些内核变长了。"),
            Some(&format!(
                "history = torch.zeros(window, dim, device=\"cuda\")  # {}\nhistory = torch.roll(history, -1, 0)\nhistory[-1] = features.detach().mean(0)  # {}",
                pick(l, "a fixed size, not torch.cat every step", "固定大小，而不是每步 torch.cat"),
                pick(l, "the same work every step", "每一步工作量相同")
            )),
            pick(l, "Every step's GPU work as small as the first ones'.", "每一步的 GPU 工作都和最初的一样少。"),
        ),
        (SlowdownFix::ConstantPeriodicWork { work }, _) => match work {
            MarkerKind::Eval => t(
                pick(l, "Evaluate the same amount each time", "每次评估同样多的数据"),
                pick(l, "Evaluate on a fixed validation set and compute its metrics from that pass alone: a set that grows with the run, or metrics recomputed over every prediction kept since the start, make each pass longer than the last.", "在固定的验证集上评估，只用本次评估的结果计算指标：随运行增长的数据集，或对从开始以来保留的所有预测重新计算指标，都会让每次评估比上一次更久。"),
                Some(&format!(
                    "val_loader = DataLoader(val_set, batch_size=256)  # {}\n\ndef evaluate(model):\n    correct = torch.zeros((), device=\"cuda\", dtype=torch.long)  # {}\n    ...",
                    pick(l, "a fixed set, built once", "固定的数据集，只建一次"),
                    pick(l, "this pass only, no history", "只算本次，不保留历史")
                )),
                pick(l, "Each evaluation as fast as the first ones.", "每次评估都和最初几次一样快。"),
            ),
            MarkerKind::Checkpoint => t(
                pick(l, "Save the same state each time", "每次保存同样的状态"),
                pick(l, "Save the model's and optimizer's state and nothing that accumulates (a list of past losses or predictions, every earlier checkpoint inside the new one). If what is saved stays the same size, the disk it goes to is slowing: write to local disk and copy elsewhere afterwards.", "只保存模型和优化器的状态，不保存会累积的东西（过去的损失或预测列表、新检查点里包含的所有旧检查点）。如果保存的大小不变，那就是写入的磁盘在变慢：先写本地磁盘，之后再复制到别处。"),
                Some(&format!(
                    "torch.save({{\"model\": model.state_dict(), \"optimizer\": opt.state_dict(), \"step\": step}}, path)  # {}",
                    pick(l, "the same size every time", "每次大小相同")
                )),
                pick(l, "Each checkpoint as fast as the first ones.", "每次保存都和最初几次一样快。"),
            ),
            MarkerKind::EpochStart => t(
                pick(l, "Build the loader's index once", "只建一次加载器的索引"),
                pick(l, "Each epoch's start does more than the one before: the dataset or sampler rebuilds an index over something that grows (a folder the run writes into, a list of everything seen). Build it once, before the first epoch, and keep the workers between epochs.", "每个 epoch 启动时做的工作都比上一个多：数据集或采样器在不断增长的东西上重建索引（运行中不断写入的目录、迄今所见的所有样本列表）。在第一个 epoch 之前只建一次，并让 worker 在 epoch 之间保留。"),
                Some(&format!(
                    "dataset = Samples(sorted(os.listdir(root)))  # {}\nloader = DataLoader(dataset, num_workers=8, persistent_workers=True)",
                    pick(l, "indexed once, before the first epoch", "在第一个 epoch 之前只建一次索引")
                )),
                pick(l, "Each epoch starts as fast as the first ones.", "每个 epoch 都和最初几个一样快地启动。"),
            ),
            MarkerKind::Gc => t(
                pick(l, "Stop keeping every step's objects alive", "不要让每一步的对象一直存活"),
                pick(l, "Each full collection walks every live Python object, so it takes longer as they pile up: outputs, losses or whole graphs appended to a list every step. Keep numbers (a running total, or loss.item() when you log) instead of the objects, and clear what you keep per epoch.", "每次完整回收都要遍历所有存活的 Python 对象，对象越积越多，回收就越久：每一步都追加到列表里的输出、损失或整个计算图。只保留数值（累计值，或记录日志时的 loss.item()），不要保留对象本身，并在每个 epoch 清空保留的内容。"),
                Some(&format!(
                    "running_loss += loss.detach()  # {}\nif step % 100 == 0:\n    print(running_loss.item() / 100)\n    running_loss.zero_()",
                    pick(l, "one tensor, not a list of them", "一个张量，而不是张量列表")
                )),
                pick(l, "Each collection as fast as the first ones.", "每次回收都和最初几次一样快。"),
            ),
            MarkerKind::Compile => t(
                pick(l, "Keep what is compiled the same size", "让被编译的内容保持同样大小"),
                pick(l, "Each compilation compiles more than the one before: a Python loop over an input that grows is unrolled into the graph, or a list kept across steps is traced into it. Loop over a fixed number of items, or keep the growing part outside the compiled function.", "每次编译都比上一次编译更多的内容：对不断增长的输入的 Python 循环被展开进计算图，或跨步保留的列表被追踪进图里。循环固定数量的元素，或把增长的部分放在被编译的函数之外。"),
                None,
                pick(l, "Each compilation as fast as the first ones.", "每次编译都和最初几次一样快。"),
            ),
        },
    }
}
