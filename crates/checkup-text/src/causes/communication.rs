//! Words for the `communication` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{Communication, CommunicationEvidence, CommunicationFix, Language};

use crate::fix_words::{pick, t, FixText};
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

/// What a `communication` evidence row measures.
pub fn evidence(k: &CommunicationEvidence, l: Language) -> String {
    let (en, zh) = match k {
        CommunicationEvidence::ExposedCommShare => (
            "exposed communication on the slowest rank (share of step)",
            "最慢 rank 上暴露的通信（占步骤比例）",
        ),
        CommunicationEvidence::CommOverlap => {
            ("communication hidden behind compute", "被计算隐藏的通信")
        }
        CommunicationEvidence::NcclPerStep => ("NCCL kernel time per step", "每步 NCCL 内核时间"),
        CommunicationEvidence::HostCollectivePerStep => (
            "time in host collectives (gloo) per step",
            "每步主机集合通信（gloo）时间",
        ),
        CommunicationEvidence::StepWaitShare => (
            "wait for each step's slowest rank (mean over steps, share of step)",
            "每步等待最慢 rank 的时间（各步平均，占步骤比例）",
        ),
        CommunicationEvidence::SlowestRankSteps { rank } => {
            return match l {
                En => format!("profiled steps in which rank {rank} was the slowest"),
                Zh => format!("rank {rank} 最慢的分析步骤数"),
            }
        }
        CommunicationEvidence::GpuThrottledSamples { gpu } => {
            return match l {
                En => format!("busy samples with a throttling clock-event reason, GPU {gpu}"),
                Zh => format!("GPU {gpu} 带降频原因的忙碌采样"),
            }
        }
        CommunicationEvidence::GpuPowerLimit { gpu } => {
            return match l {
                En => format!("power limit, GPU {gpu}"),
                Zh => format!("GPU {gpu} 的功耗上限"),
            }
        }
        CommunicationEvidence::ComputeRank { rank } => {
            return match l {
                En => format!("GPU compute per step, rank {rank}"),
                Zh => format!("rank {rank} 每步 GPU 计算时间"),
            }
        }
        CommunicationEvidence::ExposedCommRank { rank } => {
            return match l {
                En => format!("exposed communication, rank {rank}"),
                Zh => format!("rank {rank} 暴露的通信"),
            }
        }
        CommunicationEvidence::ScalingEfficiency { gpus } => {
            return match l {
                En => format!("scaling efficiency, {gpus} GPUs vs 1"),
                Zh => format!("扩展效率（{gpus} 个 GPU 对比 1 个）"),
            }
        }
        CommunicationEvidence::Speedup => ("speed-up over 1 GPU", "相对单 GPU 的加速比"),
        CommunicationEvidence::NvlinkTx => ("NVLink transmit", "NVLink 发送"),
        CommunicationEvidence::P2pDisabledWithNvlink => (
            "NCCL_P2P_DISABLE set while NVLink connects the GPUs",
            "GPU 之间有 NVLink 却设置了 NCCL_P2P_DISABLE",
        ),
        CommunicationEvidence::StragglerExtraComm => (
            "extra exposed communication on the waiting rank",
            "等待方 rank 多出的暴露通信",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `communication` fix in words.
pub fn fix(f: &CommunicationFix, l: Language) -> FixText {
    match (f, l) {
        (CommunicationFix::EnableP2p, _) => t(
            pick(l, "Re-enable NCCL peer-to-peer", "重新启用 NCCL 点对点通信"),
            pick(l, "NCCL_P2P_DISABLE=1 forces GPU-to-GPU traffic through host memory even though NVLink is present.", "NCCL_P2P_DISABLE=1 迫使 GPU 之间的流量经由主机内存，即使存在 NVLink。"),
            Some(&format!(
                "unset NCCL_P2P_DISABLE\n# {}: NCCL_DEBUG=INFO torchrun ... | grep -i 'via P2P'",
                pick(l, "check", "检查")
            )),
            pick(l, "All-reduce runs at NVLink speed again, several times faster.", "all-reduce 恢复 NVLink 速度，快数倍。"),
        ),
        (CommunicationFix::AccumulateGradients, _) => t(
            pick(l, "Communicate less often: accumulate gradients", "降低通信频率：梯度累积"),
            pick(l, "With gradient accumulation, DDP all-reduces once per N micro-batches; no_sync() skips the all-reduce on the others.", "使用梯度累积时，DDP 每 N 个微批次才做一次 all-reduce；其余微批次用 no_sync() 跳过。"),
            Some("for i, (x, y) in enumerate(loader):\n    ctx = model.no_sync() if (i + 1) % accum != 0 else contextlib.nullcontext()\n    with ctx:\n        (loss_fn(model(x), y) / accum).backward()\n    if (i + 1) % accum == 0:\n        opt.step(); opt.zero_grad(set_to_none=True)"),
            pick(l, "Communication per sample falls by the accumulation factor.", "每个样本的通信量按累积倍数下降。"),
        ),
        (CommunicationFix::MoreWorkPerAllReduce, _) => t(
            pick(l, "Make each GPU do more work per all-reduce", "让每个 GPU 在每次 all-reduce 之间做更多工作"),
            pick(l, "A larger per-GPU batch keeps the gradient size the same while compute grows, so the all-reduce hides behind more backward work.", "更大的单卡批次保持梯度大小不变而计算量增加，all-reduce 更容易被反向传播隐藏。"),
            Some("batch_size_per_gpu = 4 * batch_size_per_gpu"),
            pick(l, "Exposed communication share drops as compute per step grows.", "随着每步计算量增加，暴露的通信占比下降。"),
        ),
        (CommunicationFix::CompressGradients, _) => t(
            pick(l, "Send fewer bytes per all-reduce", "每次 all-reduce 少传字节"),
            pick(l, "Compress gradients to bf16 with a DDP communication hook, and let buckets start earlier.", "用 DDP 通信钩子把梯度压缩为 bf16，并让分桶更早开始。"),
            Some("from torch.distributed.algorithms.ddp_comm_hooks import default_hooks\nmodel = DDP(model, device_ids=[rank], bucket_cap_mb=50, gradient_as_bucket_view=True)\nmodel.register_comm_hook(None, default_hooks.bf16_compress_hook)"),
            pick(l, "All-reduce bytes halve (fp32 → bf16); more overlap with backward.", "all-reduce 字节数减半（fp32 → bf16），与反向传播的重叠更多。"),
        ),
        (CommunicationFix::NcclForGpuTensors, _) => t(
            pick(l, "Let NCCL carry the GPU gradients", "让 NCCL 传输 GPU 上的梯度"),
            pick(l, "The process group is gloo: each all-reduce copies the gradients from the GPU to host memory, reduces them on the CPU and copies them back while the GPU waits. NCCL reduces them GPU to GPU, over NVLink or the network, alongside the backward pass.", "进程组使用 gloo：每次 all-reduce 都把梯度从 GPU 复制到主机内存，在 CPU 上归约后再复制回去，GPU 一直在等。NCCL 在 GPU 之间直接归约（经 NVLink 或网络），并与反向传播重叠。"),
            Some(&format!(
                "dist.init_process_group(\"nccl\")\n# {}\ndist.init_process_group(\"cpu:gloo,cuda:nccl\")",
                pick(l, "or, to keep gloo for tensors on the CPU", "或者，CPU 上的张量仍用 gloo")
            )),
            pick(l, "The all-reduce runs on the GPUs and overlaps with backward; the host copies disappear.", "all-reduce 在 GPU 上进行并与反向传播重叠，主机上的复制消失。"),
        ),
        (CommunicationFix::EvenStepWork, _) => t(
            pick(l, "Give every rank the same work in each step", "让每个 rank 每一步的工作量相同"),
            pick(l, "Each step waits for the rank whose batch is largest or longest, and that rank changes from step to step. Build each step's global batch from samples of similar length and deal it evenly to the ranks (Hugging Face: group_by_length=True), or pack sequences to the same number of tokens on every rank.", "每一步都要等批次最大或最长的那个 rank，而这个 rank 每步都在变。让每一步的全局批次由长度相近的样本组成，再平均分给各 rank（Hugging Face：group_by_length=True），或者把序列打包成每个 rank 相同的 token 数。"),
            Some(&format!(
                "# {}\norder = sorted(range(len(dataset)), key=lambda i: lengths[i])\nsteps = [order[i:i + world * bs] for i in range(0, len(order), world * bs)]\nrandom.Random(epoch).shuffle(steps)          # {}\nmy_batches = [s[rank::world] for s in steps]   # {}",
                pick(l, "each step's batches from one length bucket, dealt evenly to the ranks", "每一步的批次来自同一长度区间，平均分给各 rank"),
                pick(l, "same order on every rank", "各 rank 顺序相同"),
                pick(l, "this rank's share of each step", "本 rank 在每一步中的份额")
            )),
            pick(l, "Every rank reaches the all-reduce at about the same time in every step; the wait for the slowest goes away.", "每一步各 rank 几乎同时到达 all-reduce，等待最慢 rank 的时间消失。"),
        ),
        (CommunicationFix::EvenRankWork { slow_rank, ratio }, _) => t(
            &match l {
                En => format!("Find why rank {slow_rank} computes more than the others"),
                Zh => format!("查明 rank {slow_rank} 为何比其他 rank 计算得多"),
            },
            &match l {
                En => format!("Rank {slow_rank}'s GPU computes {}× as long per step as the other ranks' median, and every other rank waits for it at each all-reduce. Its batches are larger or longer than theirs (an uneven shard, a sampler that hands it the long sequences), or it does work the others do not (logging, evaluation, a bigger model part). If its inputs are the same as theirs, its GPU is slower over the same kernels: compare its clocks, power and throttle reasons with the other GPUs' (the GPU charts, or nvidia-smi -q -d PERFORMANCE,CLOCK on its host).", crate::fixed(*ratio, 1)),
                Zh => format!("rank {slow_rank} 的 GPU 每步计算时间是其他 rank 中位数的 {} 倍，其他 rank 在每次 all-reduce 时都在等它。它的批次比其他 rank 大或长（数据分片不均、采样器把长序列都分给了它），或者它做了其他 rank 不做的工作（日志、评估、更大的模型部分）。如果它的输入与其他 rank 相同，那就是它的 GPU 执行同样的内核更慢：把它的时钟、功耗和降频原因与其他 GPU 对比（GPU 图表，或在它的主机上运行 nvidia-smi -q -d PERFORMANCE,CLOCK）。", crate::fixed(*ratio, 1)),
            },
            Some(&format!(
                "# {}\nif step < 3:\n    print(f\"rank {{dist.get_rank()}}: {{tuple(x.shape)}}\", flush=True)\n# {}\nsampler = DistributedSampler(dataset, drop_last=True)",
                pick(l, "compare what each rank gets", "比较每个 rank 拿到的数据"),
                pick(l, "equal shards for every rank", "每个 rank 分到相同的数据量")
            )),
            pick(l, "Every rank finishes its step at the same time; the others stop waiting in the all-reduce.", "每个 rank 同时完成一步，其他 rank 不再在 all-reduce 中等待。"),
        ),
        (CommunicationFix::SlowerGpu { slow_rank, gpu, host, reasons, power_limit_w, typical_power_limit_w }, _) => {
            let (on_host_en, on_host_zh) = match host {
                Some(h) => (format!(" on {h}"), format!("（{h}）")),
                None => (String::new(), String::new()),
            };
            let throttled = (!reasons.is_empty()).then(|| match l {
                En => format!("it is held down by {} while the other GPUs are not", reasons.join(", ")),
                Zh => format!("它因 {} 被降频，而其他 GPU 没有", reasons.join("、")),
            });
            let capped = power_limit_w.zip(*typical_power_limit_w).map(|(p, t)| match l {
                En => format!("its power limit is {} W against {} W on the others", crate::fixed(p, 0), crate::fixed(t, 0)),
                Zh => format!("它的功耗上限是 {} W，其他 GPU 是 {} W", crate::fixed(p, 0), crate::fixed(t, 0)),
            });
            let why = throttled.into_iter().chain(capped).collect::<Vec<_>>().join(match l {
                En => "; ",
                Zh => "；",
            });
            t(
                &match l {
                    En => format!("Bring GPU {gpu}{on_host_en}, where rank {slow_rank} runs, back to the others' speed"),
                    Zh => format!("让 rank {slow_rank} 所在的 GPU {gpu}{on_host_zh}恢复到与其他 GPU 相同的速度"),
                },
                &match l {
                    En => format!("Rank {slow_rank} computes longer than the others because its GPU runs the same kernels slower: {why}. Evening out the work would not help: every other rank waits for this GPU at each all-reduce. Show this to whoever runs the host: a GPU slowed by heat needs its cooling looked at, a power limit set lower than the others' can be restored by an administrator, and if neither can be done soon, run the job on the other GPUs without this one."),
                    Zh => format!("rank {slow_rank} 比其他 rank 计算得久，是因为它的 GPU 执行同样的内核更慢：{why}。平均分配工作量没有用：其他每个 rank 在每次 all-reduce 时都在等这块 GPU。把这些交给管理这台主机的人：因过热变慢的 GPU 需要检查散热；比其他 GPU 低的功耗上限可以由管理员恢复；如果短期内都做不到，就不用这块 GPU，在其他 GPU 上运行作业。"),
                },
                Some(&format!(
                    "# {}
nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE",
                    pick(l, "on its host: every GPU's clock-event reasons, power limit and temperature, side by side", "在它的主机上运行：并排查看每块 GPU 的降频原因、功耗上限和温度")
                )),
                pick(l, "Its steps take as long as the others'; the other ranks stop waiting in the all-reduce.", "它的每一步和其他 rank 一样快，其他 rank 不再在 all-reduce 中等待。"),
            )
        }
        (CommunicationFix::OtherGpuModel { slow_rank, gpu, host, model, others_model }, _) => {
            let (on_host_en, on_host_zh) = match host {
                Some(h) => (format!(" on {h}"), format!("（{h}）")),
                None => (String::new(), String::new()),
            };
            t(
                &match l {
                    En => format!("Run rank {slow_rank} on a GPU of the others' model, or give it less work"),
                    Zh => format!("让 rank {slow_rank} 使用与其他 rank 相同型号的 GPU，或给它更少的工作"),
                },
                &match l {
                    En => format!("Rank {slow_rank} runs on GPU {gpu}{on_host_en} ({model}), where every other rank has {others_model}. The same work takes longer there, and in synchronous training every other rank waits for it at each all-reduce: evening out the data would not help, the ranks already get the same. Ask for nodes of one GPU model (a Slurm constraint or GPU type, e.g. --gres=gpu:h200:8), or leave this GPU out; a job that must mix models gives the slower GPUs smaller batches."),
                    Zh => format!("rank {slow_rank} 运行在 GPU {gpu}{on_host_zh}上，型号为 {model}，而其他 rank 都是 {others_model}。同样的工作在这里更慢，同步训练中其他每个 rank 在每次 all-reduce 时都要等它：平均分配数据没有用，各 rank 拿到的已经一样多。申请同一型号 GPU 的节点（Slurm 的 constraint 或 GPU 类型，如 --gres=gpu:h200:8），或不用这块 GPU；必须混用型号时，给较慢的 GPU 更小的批次。"),
                },
                Some(&format!(
                    "# {}
nvidia-smi --query-gpu=index,name,clocks.max.sm --format=csv",
                    pick(l, "on each host: which GPU model every index is", "在每台主机上运行：查看每个编号的 GPU 型号")
                )),
                pick(l, "Its steps take as long as the others'; the other ranks stop waiting in the all-reduce.", "它的每一步和其他 rank 一样快，其他 rank 不再在 all-reduce 中等待。"),
            )
        }
    }
}
