//! Finding titles and summaries (each family's in `causes/`), gains and the verdict.

use checkup_model::{
    Cause, Diagnosis, ExpectedGain, Family, Finding, Fix, FixGain, FixReach, Language, StepBasis,
};

use crate::{causes, fixed, fixes, pct, Language::*};

/// A finding's title.
pub fn title(c: &Cause, l: Language) -> String {
    match c {
        Cause::ComputeBound(c) => causes::compute_bound::title(c, l),
        Cause::MemoryBandwidth(c) => causes::memory_bandwidth::title(c, l),
        Cause::DataLoading(c) => causes::data_loading::title(c, l),
        Cause::KernelLaunch(c) => causes::kernel_launch::title(c, l),
        Cause::Communication(c) => causes::communication::title(c, l),
        Cause::HostSync(c) => causes::host_sync::title(c, l),
        Cause::H2dCopy(c) => causes::h2d_copy::title(c, l),
        Cause::PeriodicStall(c) => causes::periodic_stall::title(c, l),
        Cause::Throttling(c) => causes::throttling::title(c, l),
        Cause::GpuIdle(c) => causes::gpu_idle::title(c, l),
        Cause::Environment(c) => causes::environment::title(c, l),
        Cause::Slowdown(c) => causes::slowdown::title(c, l),
        Cause::Memory(c) => causes::memory::title(c, l),
        Cause::Compilation(c) => causes::compilation::title(c, l),
    }
}

/// A finding's summary: what was measured, in a sentence or two.
pub fn summary(f: &Finding, l: Language) -> String {
    let said = match &f.cause {
        Cause::ComputeBound(c) => causes::compute_bound::summary(c, l),
        Cause::MemoryBandwidth(c) => causes::memory_bandwidth::summary(c, l),
        Cause::DataLoading(c) => causes::data_loading::summary(c, l),
        Cause::KernelLaunch(c) => causes::kernel_launch::summary(c, l),
        Cause::Communication(c) => causes::communication::summary(c, l),
        Cause::HostSync(c) => causes::host_sync::summary(c, l),
        Cause::H2dCopy(c) => causes::h2d_copy::summary(c, l),
        Cause::PeriodicStall(c) => causes::periodic_stall::summary(c, l),
        Cause::Throttling(c) => causes::throttling::summary(c, l),
        Cause::GpuIdle(c) => causes::gpu_idle::summary(c, l),
        Cause::Environment(c) => causes::environment::summary(c, l),
        Cause::Slowdown(c) => causes::slowdown::summary(c, l),
        Cause::Memory(c) => causes::memory::summary(c, l),
        Cause::Compilation(c) => causes::compilation::summary(c, l),
    };
    // Where a host-bound cause's time goes, when the probe sampled the host's lines.
    said + &causes::shared::hot_lines(f.cause.hot_lines(), l)
}

/// `title` with its first letter in lower case, to go on inside a sentence (acronyms such as
/// CPU and NCCL further on stay as they are).
fn lowercase_first(title: &str) -> String {
    let mut chars = title.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// One sentence for the top of a report: the leading finding, the share of step time it
/// explains and the first fix to try.
pub fn verdict(d: &Diagnosis, l: Language) -> String {
    // The fix to try first is the plan's, which "What to do first" lists first: a minor
    // finding's fix may save more than the leading verdict's.
    let planned = d
        .plan
        .first()
        .and_then(|p| d.findings.get(p.finding)?.fixes.get(p.fix));
    match d.findings.first() {
        Some(f) => lead_with(f, planned.or(f.fixes.first()), l),
        None => match l {
            En => "Not enough data for a verdict.".into(),
            Zh => "数据不足，无法给出结论。".into(),
        },
    }
}

/// The verdict sentence for a leading finding.
pub fn lead(f: &Finding, l: Language) -> String {
    lead_with(f, f.fixes.first(), l)
}

/// The verdict sentence for a leading finding, naming `first_fix` as the fix to try first.
fn lead_with(f: &Finding, first_fix: Option<&Fix>, l: Language) -> String {
    let title = title(&f.cause, l);
    let summary = summary(f, l);
    let fix = first_fix.map(|x| fixes::text(x, l).title);
    // A verdict, or a finding about memory rather than time: no share of step time to say.
    let busy = matches!(f.family(), Family::ComputeBound | Family::Memory);
    match l {
        En => {
            let first_fix = fix
                .map(|t| format!(" First fix to try: {}.", lowercase_first(&t)))
                .unwrap_or_default();
            if busy {
                format!("{title} — {summary}{first_fix}")
            } else {
                format!(
                    "{title}: {}% of step time. {summary}{first_fix}",
                    pct(f.share)
                )
            }
        }
        Zh => {
            let first_fix = fix.map(|t| format!("首先尝试：{t}。")).unwrap_or_default();
            if busy {
                format!("{title}。{summary}{first_fix}")
            } else {
                format!(
                    "{title}：占步骤时间的 {}%。{summary}{first_fix}",
                    pct(f.share)
                )
            }
        }
    }
}

/// A step time in ms: one decimal under 100 ms, whole above.
pub(crate) fn ms(v: f64) -> String {
    if v < 100.0 {
        fixed(v, 1)
    } else {
        fixed(v, 0)
    }
}

/// A speed-up: two decimals under 1.1× (a few per cent reads 1.04×, not 1.0×), one under
/// 10×, whole above.
pub(crate) fn times(speedup: f64) -> String {
    let decimals = if speedup < 1.1 {
        2
    } else if speedup < 10.0 {
        1
    } else {
        0
    };
    fixed(speedup, decimals)
}

/// One fix's expected gain, short (its finding's gain sentence states what it rests on);
/// for a fix that removes part of the cause, which part.
pub fn fix_gain(fg: &FixGain, l: Language) -> String {
    let g = &fg.expected;
    let (fastest, slowest) = fg.after_range_ms();
    // The slow end of a GPU-work range: the host's own time per step, as the profiled steps
    // measured it, may hold the shorter GPU work up.
    let host_bound = |l: Language| match (slowest > fastest, l) {
        (false, _) => String::new(),
        (true, En) => format!(
            "; {} ms if the host's own work per step holds the step up as the profiled \
             steps measured it (the profiler slows the host)",
            ms(slowest)
        ),
        (true, Zh) => format!(
            "；若主机每步自身的工作如分析步骤所测那样拖住步骤，则为 {} ms（分析器会拖慢主机）",
            ms(slowest)
        ),
    };
    let now = ms(g.before_ms);
    let (after, speedup) = if slowest > fastest {
        let at_slowest = ExpectedGain {
            after_ms: slowest,
            ..*g
        };
        (
            format!("{}–{}", ms(fastest), ms(slowest)),
            format!("{}–{}", times(at_slowest.speedup()), times(g.speedup())),
        )
    } else {
        (ms(fastest), times(g.speedup()))
    };
    let part = match (fg.reach, l) {
        (FixReach::BusiestSyncLine(p), En) => format!(
            ", for the {}% of the synchronising calls this line makes",
            pct(p)
        ),
        (FixReach::BusiestSyncLine(p), Zh) => format!("，按这一行占同步调用的 {}% 计", pct(p)),
        (FixReach::CompiledPart(p), En) => format!(
            ", for the {}% of the launch wait inside the model: the optimizer's own launches \
             and each read-back's wait for the GPU stay",
            pct(p)
        ),
        (FixReach::CompiledPart(p), Zh) => format!(
            "，按模型内部 {}% 的启动等待计：优化器自身的启动和每次回读对 GPU 的等待仍然存在",
            pct(p)
        ),
        (FixReach::HostWorkWithoutLaunches(p), En) => format!(
            ", for the {}% of the launch wait in which the host made no CUDA call",
            pct(p)
        ),
        (FixReach::HostWorkWithoutLaunches(p), Zh) => {
            format!("，按主机没有任何 CUDA 调用的 {}% 发射等待计", pct(p))
        }
        (FixReach::OptimizerLaunches(p), En) => format!(
            ", for the {}% of the launch wait that the optimizer's per-parameter kernels make",
            pct(p)
        ),
        (FixReach::OptimizerLaunches(p), Zh) => {
            format!("，按优化器逐参数内核造成的 {}% 启动等待计", pct(p))
        }
        (FixReach::OutsideStagingCopy { part, at_least }, En) => format!(
            ", for the {}% of the stalls beyond copying the state to host memory at each \
             save, which stays in the loop{}",
            pct(part),
            if at_least < part {
                format!(
                    "; {}% if the loop also waits out each write, as it does while the \
                     writer holds the interpreter (torch.save holds it as it writes each \
                     tensor), which the recording cannot tell",
                    pct(at_least)
                )
            } else {
                String::new()
            }
        ),
        (FixReach::OutsideStagingCopy { part, at_least }, Zh) => format!(
            "，按停顿中除每次保存时把状态拷到主机内存之外的 {}% 计（这部分拷贝仍在循环里）{}",
            pct(part),
            if at_least < part {
                format!(
                    "；若写入线程在写入时占着解释器（torch.save 写每个张量时都占着），循环还要等完每次写入，只能省下 {}%，录制无法区分",
                    pct(at_least)
                )
            } else {
                String::new()
            }
        ),
        (FixReach::FewerPasses(p), En) => format!(
            ", for the {}% of the evaluation time the longer period leaves out; each pass left \
             costs what it did",
            pct(p)
        ),
        (FixReach::FewerPasses(p), Zh) => {
            format!("，按更长周期省下的 {}% 评估时间计；留下的每次评估耗时不变", pct(p))
        }
        (FixReach::AllButOneDynamicCompile(p), En) => format!(
            ", for the {}% of the recompilation time beyond one compilation for any size, which \
             dynamo still makes where the size first changes (about as long as the first \
             recompilation there)",
            pct(p)
        ),
        (FixReach::AllButOneDynamicCompile(p), Zh) => format!(
            "，按 {}% 的重新编译时间计：dynamo 仍会在尺寸第一次变化处为任意尺寸再编译一次\
             （约与那里的第一次重新编译一样长）",
            pct(p)
        ),
        (FixReach::CauseAndAddedHostWork, En) => format!(
            ": {} ms if only the host's and the GPU's turns go, {} ms (the GPU's own work) if \
             the host's own time shrinks below it without the tracebacks and NaN checks, \
             which the recording cannot split from the loop's own work",
            ms(slowest),
            ms(fastest)
        ),
        (FixReach::CauseAndAddedHostWork, Zh) => format!(
            "：若只省去主机与 GPU 轮流等待的时间为 {} ms；若去掉回溯记录和 NaN 检查后主机自身的时间降到 GPU 之下，则为 {} ms（GPU 自身的工作），录制无法把这部分与循环自身的工作分开",
            ms(slowest),
            ms(fastest)
        ),
        (FixReach::GrowthFromFirstSteps(_), En) if slowest > fastest => format!(
            ": {} ms back at the first tenth's pace, {} ms at the run's first steps' if the \
             long steps go with the growth; the growth began within the first tenth, so the \
             recording cannot tell how much of that tenth's time was already growth",
            ms(slowest),
            ms(fastest)
        ),
        (FixReach::GrowthFromFirstSteps(_), Zh) if slowest > fastest => format!(
            "：回到前十分之一的速度为 {} ms；若长步骤随增长一起消失，回到运行最初几步的速度则为 {} ms。增长在前十分之一里就已开始，录制无法分清那一段里有多少时间已经是增长",
            ms(slowest),
            ms(fastest)
        ),
        (FixReach::SyncsAtUnprofiledSpeed, En) if slowest > fastest => format!(
            ": {} ms if the host's own work per step is as long as its bound, {} ms (the GPU's \
             own work) if it is shorter; the profiler slows the host, so the recording bounds \
             its work from above only",
            ms(slowest),
            ms(fastest)
        ),
        (FixReach::SyncsAtUnprofiledSpeed, Zh) if slowest > fastest => format!(
            "：若主机每步自身的工作达到其上限则为 {} ms，若更短则为 {} ms（GPU 自身的工作）；分析器会拖慢主机，录制只能给出主机工作的上限",
            ms(slowest),
            ms(fastest)
        ),
        // The host's bound is below the GPU's work: the step comes down to the GPU's.
        (FixReach::SyncsAtUnprofiledSpeed, _) => String::new(),
        (FixReach::FasterMatmuls { share, speedup }, En) => format!(
            ", for the {}% of the step in fp32 matrix multiplies, {}× faster with TF32 \
             (what training's matrix shapes reach of this GPU's datasheet ratio; skinny \
             matrices reach less){}",
            pct(share),
            fixed(speedup, 1),
            host_bound(l)
        ),
        (FixReach::FasterMatmuls { share, speedup }, Zh) => format!(
            "，按 fp32 矩阵乘占步骤的 {}% 计，开启 TF32 后快 {}×（训练常见矩阵形状能达到的该 GPU 规格比；细长矩阵达不到）{}",
            pct(share),
            fixed(speedup, 1),
            host_bound(l)
        ),
        (FixReach::LessGpuWork(share), En) => format!(
            " at most, for the {}% of the step all fill kernels take: the code's own fills \
             (zero_(), torch.zeros), which the trace cannot tell apart, stay{}",
            pct(share),
            host_bound(l)
        ),
        (FixReach::LessGpuWork(share), Zh) => format!(
            "，这是上限：按全部填充内核占步骤的 {}% 计，而代码自身的填充（zero_()、torch.zeros）仍会保留，trace 无法把它们区分开{}",
            pct(share),
            host_bound(l)
        ),
        (FixReach::OutsideEpochStarts(p), En) => format!(
            ", for the {}% of the wait outside each epoch's first batch, which still waits \
             for the workers to start",
            pct(p)
        ),
        (FixReach::OutsideEpochStarts(p), Zh) => format!(
            "，按每个 epoch 第一批之外的 {}% 等待计（第一批仍要等 worker 启动）",
            pct(p)
        ),
        (
            FixReach::WorkersPace {
                workers_now,
                batch_ms_now,
                workers_after,
                batch_ms_after,
                if_cores_shared,
                ..
            },
            En,
        ) => format!(
            " at best: the run's {} made a batch every {} ms; {}, each as fast, would make \
             one every {} ms, still slower than the loop, so the step waits for them{}",
            if workers_now == 1 {
                "1 worker".to_owned()
            } else {
                format!("{workers_now} workers")
            },
            ms(batch_ms_now),
            workers_after,
            ms(batch_ms_after),
            match if_cores_shared {
                Some(shared) if slowest > fastest => format!(
                    "; {} ms if the host's {} logical CPUs are {} cores of two threads, as \
                     cloud vCPUs often are (each worker then at {}% of its pace, a batch \
                     every {} ms)",
                    ms(slowest),
                    shared.host_cpus,
                    (shared.host_cpus / 2).max(1),
                    pct(shared.pace),
                    ms(shared.batch_ms)
                ),
                _ => " (workers that share the host's cores go slower, which this recording \
                      cannot measure)"
                    .to_owned(),
            }
        ),
        (
            FixReach::WorkersPace {
                workers_now,
                batch_ms_now,
                workers_after,
                batch_ms_after,
                if_cores_shared,
                ..
            },
            Zh,
        ) => format!(
            "，这是最好情况：现有 {} 个 worker 每 {} ms 产出一批；{} 个、每个同样快时每 {} ms 一批，仍慢于循环本身，步骤仍要等它们{}",
            workers_now,
            ms(batch_ms_now),
            workers_after,
            ms(batch_ms_after),
            match if_cores_shared {
                Some(shared) if slowest > fastest => format!(
                    "；若主机的 {} 个逻辑 CPU 实为 {} 个双线程核心（云主机的 vCPU 常常如此），每个 worker 只有原速度的 {}%，每 {} ms 一批，则为 {} ms",
                    shared.host_cpus,
                    (shared.host_cpus / 2).max(1),
                    pct(shared.pace),
                    ms(shared.batch_ms),
                    ms(slowest)
                ),
                _ => "（worker 共享主机核心时会更慢，本次录制无法测出）".to_owned(),
            }
        ),
        _ => String::new(),
    };
    match l {
        En => format!("Expected gain: about {now} → {after} ms per step ({speedup}×){part}."),
        Zh => format!("预期收益：每步约 {now} → {after} ms（{speedup}×）{part}。"),
    }
}

/// What removing a finding's cause would make of the step, with the assumptions it rests
/// on: "about 23.0 → 8.1 ms per step (2.8×) …".
pub fn gain(g: &ExpectedGain, l: Language) -> String {
    let speedup = times(g.speedup());
    let (now, after) = (ms(g.before_ms), ms(g.after_ms));
    let basis = match (g.basis, l) {
        (StepBasis::UnprofiledSteps, En) => "the mean of the unprofiled steps",
        (StepBasis::UnprofiledSteps, Zh) => "未分析步骤的平均值",
        (StepBasis::ProfiledSteps, En) => "the profiled steps, which the profiler slowed",
        (StepBasis::ProfiledSteps, Zh) => "已分析步骤（分析器使其变慢）",
    };
    let bound = match (g.gpu_busy_ms, g.bounded_by_gpu_busy, l) {
        (Some(b), true, En) => format!(
            " The GPU's own work, {} ms per step, sets that floor.",
            ms(b)
        ),
        (Some(b), true, Zh) => format!("GPU 自身每步 {} ms 的工作决定了这个下限。", ms(b)),
        (Some(b), false, En) => format!(" It stays above the GPU's own {} ms per step.", ms(b)),
        (Some(b), false, Zh) => format!("仍高于 GPU 自身每步 {} ms 的工作。", ms(b)),
        (None, _, _) => String::new(),
    };
    match l {
        En => format!(
            "Expected gain: about {now} → {after} ms per step ({speedup}×) if this cause's time went away entirely and nothing else changed; from {basis}.{bound}"
        ),
        Zh => format!(
            "预期收益：若这一原因的耗时完全消除且其他不变，每步约 {now} → {after} ms（{speedup}×）；基于{basis}。{bound}"
        ),
    }
}
