//! Words for the `memory_bandwidth` family's findings: each cause's title and summary.

use checkup_model::{Language, MemoryBandwidth};

use crate::{pct, Language::*};

/// A `memory_bandwidth` finding's title.
pub fn title(c: &MemoryBandwidth, l: Language) -> String {
    let (en, zh) = match c {
        MemoryBandwidth::MemoryTraffic { .. } => ("Memory-bandwidth bound", "显存带宽瓶颈"),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `memory_bandwidth` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &MemoryBandwidth, l: Language) -> String {
    match (c, l) {
        (MemoryBandwidth::MemoryTraffic { busy_share, dram_pct, tensor_pct }, En) => format!(
            "The GPU is busy {}% of the step, but its kernels are limited by memory traffic rather than math{}: fewer passes over memory, not more FLOPs, will speed it up.",
            pct(*busy_share),
            dram_pct.map(|d| format!(" (DRAM bandwidth {d:.0}% of peak, tensor cores {:.0}%)", tensor_pct.unwrap_or(0.0))).unwrap_or_default()
        ),
        (MemoryBandwidth::MemoryTraffic { busy_share, dram_pct, tensor_pct }, Zh) => format!(
            "GPU 每步有 {}% 的时间在忙，但内核受限于显存流量而非算力{}：减少对显存的遍历次数才能提速，而不是增加算力。",
            pct(*busy_share),
            dram_pct.map(|d| format!("（显存带宽为峰值的 {d:.0}%，张量核 {:.0}%）", tensor_pct.unwrap_or(0.0))).unwrap_or_default()
        ),
    }
}
