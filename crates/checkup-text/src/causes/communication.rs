//! Words for the `communication` family's findings: each cause's title and summary.

use checkup_model::{Communication, Language};

use crate::{pct, Language::*};

/// A `communication` finding's title.
pub fn title(c: &Communication, l: Language) -> String {
    let (en, zh) = match c {
        Communication::Exposed { .. } => (
            "Gradient all-reduce is exposed",
            "梯度 all-reduce 通信未被隐藏",
        ),
        Communication::ShiftingStraggler { .. } => (
            "The slowest rank changes from step to step",
            "最慢的 rank 每一步都在变",
        ),
        Communication::Straggler {
            waiting_rank,
            slow_rank,
            ..
        } => {
            return match l {
                En => format!("Rank {waiting_rank} waits for rank {slow_rank}"),
                Zh => format!("rank {waiting_rank} 在等待 rank {slow_rank}"),
            }
        }
        Communication::P2pDisabled => (
            "NCCL peer-to-peer is disabled although NVLink is present",
            "存在 NVLink 却禁用了 NCCL 点对点通信",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `communication` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &Communication, l: Language) -> String {
    match (c, l) {
        (Communication::Exposed { exposed_share, scaling }, En) => format!(
            "The all-reduce runs while no compute runs for {}% of the slowest rank's step: communication is not hidden behind backward{}.",
            pct(*exposed_share),
            scaling.map(|s| format!(", and {} GPUs give {:.2}× one GPU ({}% efficiency)", s.gpus, s.speedup, pct(s.efficiency))).unwrap_or_default()
        ),
        (Communication::Exposed { exposed_share, scaling }, Zh) => format!(
            "在最慢的 rank 上，all-reduce 有 {}% 的步骤时间没有与计算重叠：通信没有被反向传播隐藏{}。",
            pct(*exposed_share),
            scaling.map(|s| format!("；{} 块 GPU 的速度是单块的 {:.2} 倍（扩展效率 {}%）", s.gpus, s.speedup, pct(s.efficiency))).unwrap_or_default()
        ),
        (Communication::Straggler { waiting_rank, slow_rank, extra_share }, En) => format!(
            "Rank {waiting_rank} spends {}% more of its step in communication than rank {slow_rank}: that is waiting for rank {slow_rank} to reach the all-reduce, not transfer time. The diagnosis follows rank {slow_rank}.",
            pct(*extra_share)
        ),
        (Communication::Straggler { waiting_rank, slow_rank, extra_share }, Zh) => format!(
            "rank {waiting_rank} 在通信中花的步骤时间比 rank {slow_rank} 多 {}%：这是在等待 rank {slow_rank} 到达 all-reduce，而不是传输时间。诊断以 rank {slow_rank} 为准。",
            pct(*extra_share)
        ),
        (Communication::ShiftingStraggler { slowest_ranks, steps, wait_share }, En) => format!(
            "In each of the {steps} profiled steps one rank is the last to reach the all-reduce and the others wait for it, {}% of the step on average; but it is not always the same rank ({} took turns). The work per step differs between the ranks and moves between them: batches of different size or length.",
            pct(*wait_share),
            rank_list(slowest_ranks, En)
        ),
        (Communication::ShiftingStraggler { slowest_ranks, steps, wait_share }, Zh) => format!(
            "在分析的 {steps} 个步骤中，每一步都有一个 rank 最后到达 all-reduce，其他 rank 等它，平均占步骤的 {}%；但不总是同一个 rank（{} 轮流最慢）。各 rank 每步的工作量不同，而且在 rank 之间变动：批次的大小或长度不一样。",
            pct(*wait_share),
            rank_list(slowest_ranks, Zh)
        ),
        (Communication::P2pDisabled, En) => "NCCL_P2P_DISABLE forces all-reduce traffic through host memory instead of NVLink.".into(),
        (Communication::P2pDisabled, Zh) => "NCCL_P2P_DISABLE 迫使 all-reduce 流量经由主机内存，而不是 NVLink。".into(),
    }
}

/// "ranks 0, 1, 2 and 3" (at most eight named, then how many more).
fn rank_list(ranks: &[u32], l: Language) -> String {
    const NAMED: usize = 8;
    let named: Vec<String> = ranks.iter().take(NAMED).map(u32::to_string).collect();
    let more = ranks.len().saturating_sub(NAMED);
    match l {
        En => {
            let list = match named.as_slice() {
                [] => String::new(),
                [one] => one.clone(),
                [init @ .., last] if more == 0 => format!("{} and {last}", init.join(", ")),
                all => format!("{} and {more} more", all.join(", ")),
            };
            format!("ranks {list}")
        }
        Zh => {
            let list = named.join("、");
            if more > 0 {
                format!("rank {list} 等 {} 个", ranks.len())
            } else {
                format!("rank {list}")
            }
        }
    }
}
