//! Words for the `slowdown` family's findings: each cause's title and summary.

use checkup_model::{Language, Slowdown, SlowdownPart};

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
        (Slowdown::StepsGrow { first_ms, last_ms, began_at_s, began_at_step, grew, host_rss_mib }, En) => format!(
            "The median step took {} ms at the start of the run and {} ms at its end; it began to slow down about {} s in (step {began_at_step}). {}{}",
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
        (Slowdown::StepsGrow { first_ms, last_ms, began_at_s, began_at_step, grew, host_rss_mib }, Zh) => format!(
            "运行开始时步骤中位耗时 {} 毫秒，结束时 {} 毫秒；大约在第 {} 秒（第 {began_at_step} 步）开始变慢。{}{}",
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
