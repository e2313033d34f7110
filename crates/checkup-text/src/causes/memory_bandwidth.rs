//! Words for the `memory_bandwidth` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{Language, MemoryBandwidth, MemoryBandwidthEvidence, MemoryBandwidthFix};

use crate::fix_words::{pick, t, FixText};
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

/// What a `memory_bandwidth` evidence row measures.
pub fn evidence(k: &MemoryBandwidthEvidence, l: Language) -> String {
    let (en, zh) = match k {
        MemoryBandwidthEvidence::DramBandwidth => {
            ("DRAM bandwidth utilisation (GPM)", "显存带宽利用率（GPM）")
        }
        MemoryBandwidthEvidence::ElementwiseShare => (
            "elementwise/normalisation share of kernel time",
            "逐元素/归一化内核占内核时间比例",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `memory_bandwidth` fix in words.
pub fn fix(f: &MemoryBandwidthFix, l: Language) -> FixText {
    match (f, l) {
        (MemoryBandwidthFix::FuseElementwise, _) => t(
            pick(l, "Fuse elementwise chains", "融合逐元素操作链"),
            pick(l, "Norm, activation and dropout each read and write the whole tensor; torch.compile fuses them so the tensor passes through memory once.", "归一化、激活和 dropout 各自读写整个张量；torch.compile 把它们融合，让张量只经过一次显存。"),
            Some("model = torch.compile(model)"),
            pick(l, "Bytes moved per step drop by the fusion factor; often 1.5–3× on such blocks.", "每步搬运的字节按融合倍数下降，这类模块常见 1.5–3 倍提速。"),
        ),
        (MemoryBandwidthFix::Bf16Activations, _) => t(
            pick(l, "Halve the bytes: bf16 activations", "字节减半：bf16 激活"),
            pick(l, "Under autocast, activations are stored in bf16: half the DRAM traffic of fp32.", "在 autocast 下，激活以 bf16 存储：显存流量是 fp32 的一半。"),
            Some("with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    loss = loss_fn(model(x), y)"),
            pick(l, "Up to 2× on bandwidth-bound kernels.", "带宽受限的内核最多快 2 倍。"),
        ),
        (MemoryBandwidthFix::FusedKernels, _) => t(
            pick(l, "Use fused kernels for the hot blocks", "热点模块使用融合内核"),
            pick(l, "Fused LayerNorm/RMSNorm, fused bias-GELU, scaled_dot_product_attention (flash attention) avoid materialising intermediates.", "融合的 LayerNorm/RMSNorm、融合 bias-GELU、scaled_dot_product_attention（flash attention）避免生成中间结果。"),
            Some(&format!(
                "torch.nn.functional.scaled_dot_product_attention(q, k, v)  # {}",
                pick(l, "instead of softmax(q @ k.T) @ v", "代替 softmax(q @ k.T) @ v")
            )),
            pick(l, "Fewer passes over memory per layer.", "每层对显存的遍历次数更少。"),
        ),
    }
}
