//! Words for the `throttling` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{Language, Throttling, ThrottlingEvidence, ThrottlingFix};

use crate::fix_words::{pick, t, FixText};
use crate::{pct, Language::*};

/// A `throttling` finding's title.
pub fn title(c: &Throttling, l: Language) -> String {
    let (en, zh) = match c {
        Throttling::Power { .. } | Throttling::Thermal { .. } => {
            ("GPU clocks are held down", "GPU 时钟被压低")
        }
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `throttling` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &Throttling, l: Language) -> String {
    match (c, l) {
        (
            Throttling::Power {
                clock_ratio,
                reasons,
            }
            | Throttling::Thermal {
                clock_ratio,
                reasons,
            },
            En,
        ) => format!(
            "The SM clock ran at {}% of its maximum while busy{}.",
            pct(*clock_ratio),
            if reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", reasons.join(", "))
            }
        ),
        (
            Throttling::Power {
                clock_ratio,
                reasons,
            }
            | Throttling::Thermal {
                clock_ratio,
                reasons,
            },
            Zh,
        ) => format!(
            "忙碌时 SM 时钟只有最大值的 {}%{}。",
            pct(*clock_ratio),
            if reasons.is_empty() {
                String::new()
            } else {
                format!("（{}）", reasons.join("，"))
            }
        ),
    }
}

/// What a `throttling` evidence row measures.
pub fn evidence(k: &ThrottlingEvidence, l: Language) -> String {
    let (en, zh) = match k {
        ThrottlingEvidence::ThrottledSamples => (
            "busy samples with a throttling clock-event reason",
            "带降频原因的忙碌采样",
        ),
        ThrottlingEvidence::SmClockRatio => (
            "SM clock while busy, share of max",
            "忙碌时 SM 时钟占最大值比例",
        ),
        ThrottlingEvidence::PowerShareOfLimit => ("power draw, share of limit", "功耗占上限比例"),
        ThrottlingEvidence::PeakTemp => ("peak GPU temperature", "GPU 峰值温度"),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `throttling` fix in words.
pub fn fix(f: &ThrottlingFix, l: Language) -> FixText {
    match (f, l) {
        (ThrottlingFix::CoolGpu, _) => t(
            pick(l, "Cool the GPU", "给 GPU 降温"),
            pick(l, "The GPU lowered its clocks to stay within temperature limits: check airflow, fan curves, dust and the datacentre inlet temperature.", "GPU 为了保持在温度限制内降低了时钟：检查风道、风扇曲线、灰尘和机房进风温度。"),
            None,
            pick(l, "Clocks return to their maximum under load.", "负载下时钟恢复到最大值。"),
        ),
        (ThrottlingFix::CheckPower, _) => t(
            pick(l, "Check the power limit and power delivery", "检查功耗上限与供电"),
            pick(l, "The GPU held its clocks down to stay within its power limit. Compare the enforced limit to the default (nvidia-smi -q -d POWER); on shared hosts ask the admin. Lower-precision math (bf16) does the same work with less power.", "GPU 为了保持在功耗上限内压低了时钟。对比实际上限与默认值（nvidia-smi -q -d POWER）；共享主机请联系管理员。低精度运算（bf16）以更少的功耗完成同样的工作。"),
            Some("nvidia-smi -q -d POWER,PERFORMANCE"),
            pick(l, "Clocks and throughput return to the card's rating.", "时钟和吞吐量恢复到显卡的额定水平。"),
        ),
    }
}
