//! Words for the `periodic_stall` family's findings: each cause's title and summary.

use checkup_model::{Language, PeriodicStall, PeriodicWork};

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
        (PeriodicStall::Stalls { period_steps, excess_ms, work }, En) => format!(
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
        (PeriodicStall::Stalls { period_steps, excess_ms, work }, Zh) => format!(
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
    }
}
