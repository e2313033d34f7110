//! Words for the `slowdown` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{Language, Slowdown, SlowdownEvidence, SlowdownFix, SlowdownPart, StepMeasure};

use crate::fix_words::{pick, t, FixText};
use crate::{fixed, Language::*};

/// A `slowdown` finding's title.
pub fn title(c: &Slowdown, l: Language) -> String {
    let (en, zh) = match c {
        Slowdown::StepsGrow { .. } => ("The run gets slower as it goes", "训练越跑越慢"),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `slowdown` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &Slowdown, l: Language) -> String {
    match (c, l) {
        (Slowdown::StepsGrow { first_ms, last_ms, measure, began_at_s, began_at_step, grew, host_rss_mib }, En) => format!(
            "{} {} ms at the start of the run and {} ms at its end; it began to slow down about {} s in (step {began_at_step}). {}{}",
            match measure {
                StepMeasure::Median => "The median step took",
                StepMeasure::Mean => "Most steps stayed fast, but ever longer ones among them took the mean step from",
            },
            fixed(*first_ms, 1),
            fixed(*last_ms, 1),
            fixed(*began_at_s, 0),
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
        (Slowdown::StepsGrow { first_ms, last_ms, measure, began_at_s, began_at_step, grew, host_rss_mib }, Zh) => format!(
            "{}运行开始时为 {} 毫秒，结束时 {} 毫秒；大约在第 {} 秒（第 {began_at_step} 步）开始变慢。{}{}",
            match measure {
                StepMeasure::Median => "步骤中位耗时",
                StepMeasure::Mean => "多数步骤仍然很快，但其中越来越长的步骤使平均步骤耗时",
            },
            fixed(*first_ms, 1),
            fixed(*last_ms, 1),
            fixed(*began_at_s, 0),
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
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `slowdown` fix in words.
pub fn fix(f: &SlowdownFix, l: Language) -> FixText {
    match (f, l) {
        (SlowdownFix::ConstantHostWork, _) => t(
            pick(l, "Keep each step's host work constant", "让每一步的主机工作量保持不变"),
            pick(l, "Work that grows with the steps done (appending every prediction to a list and scanning the whole list again, summing a kept history) makes each step slower than the one before. Keep running totals instead: count correct predictions on the GPU into one tensor and read it when you log.", "随步数增长的工作（把每个预测追加到列表再整体扫描、对保留的历史求和）会让每一步都比上一步更慢。改为维护累计值：在 GPU 上把预测正确数累加到一个张量里，记录日志时再读出。"),
            Some(&format!(
                "correct = torch.zeros((), device=\"cuda\", dtype=torch.long)\nseen = 0\n# {}\ncorrect += (out.argmax(1) == y).sum()\nseen += y.numel()\nif step % 100 == 0:\n    print(\"accuracy\", correct.item() / seen)",
                pick(l, "each step: constant work, no read-back", "每一步：工作量不变，不读回主机")
            )),
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
    }
}
