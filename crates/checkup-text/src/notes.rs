//! Caveats about the inputs, and how the steady window was chosen.

use checkup_model::{Language, NodeFacts, Note, StepMarks, WindowMethod};

use crate::{pct, rank_span, Language::*};

/// A finding's note in words.
pub fn note(n: &Note, l: Language) -> String {
    match (n, l) {
        (Note::JobOnNodes { nodes, host_readings_of }, l) => job_on_nodes(nodes, host_readings_of, l),
        (Note::SlowNode { node, ranks }, En) => format!(
            "Every rank of {node} ({}) reaches the all-reduce later than every rank of the other hosts: look at that host first — its GPUs' clocks and power, its network, its input data — before one rank's code.",
            ranks.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ),
        (Note::SlowNode { node, ranks }, Zh) => format!(
            "{node} 上的每个 rank（{}）都比其他主机上的每个 rank 更晚到达 all-reduce：先检查这台主机——GPU 的时钟和功耗、网络、输入数据——再看某个 rank 的代码。",
            ranks.iter().map(u32::to_string).collect::<Vec<_>>().join("、")
        ),
        (Note::TracesSummarisedOnHosts { ranks, trace_bytes }, En) => {
            let mb = *trace_bytes as f64 / 1e6;
            let first = ranks.first().copied().unwrap_or_default();
            match ranks.as_slice() {
                [one] => format!("Rank {one} was measured on its host (trace_summary.json, by this version of GPU Checkup); its {mb:.1} MB trace stayed there. To open it, copy it next to its summary (checkup gather --trace-ranks {one})."),
                _ => format!("Ranks {} were measured on their hosts (trace_summary.json, by this version of GPU Checkup); their {mb:.1} MB of traces stayed there. To open one, copy it next to its summary (checkup gather --trace-ranks {first}).", rank_span(ranks)),
            }
        }
        (Note::TracesSummarisedOnHosts { ranks, trace_bytes }, Zh) => format!(
            "rank {} 在各自的主机上完成测量（trace_summary.json，由同一版本的 GPU Checkup 生成）；其 trace 共 {:.1} MB 留在主机上。要打开某个 trace，请把它复制到对应的摘要旁边（checkup gather --trace-ranks {}）。",
            rank_span(ranks),
            *trace_bytes as f64 / 1e6,
            ranks.first().copied().unwrap_or_default(),
        ),
        (Note::ProfilerOverheadLaunches { launch_share, busy_share }, En) => format!(
            "The profiled steps show the GPU waiting for kernel launches ({}% of the step), but at unprofiled speed the GPU is busy {}% of each step: that wait is profiler overhead, not a launch bottleneck.",
            pct(*launch_share), pct(*busy_share)
        ),
        (Note::ProfilerOverheadLaunches { launch_share, busy_share }, Zh) => format!(
            "分析期间的步骤显示 GPU 在等待内核发射（占步骤的 {}%），但在未分析的速度下 GPU 每步有 {}% 的时间在忙：这段等待是分析器带来的开销，不是启动瓶颈。",
            pct(*launch_share), pct(*busy_share)
        ),
        (Note::EmptyFiles { files }, En) => format!(
            "Empty, read as nothing recorded yet (the run was stopped or was still starting): {}",
            files.join(", ")
        ),
        (Note::EmptyFiles { files }, Zh) => format!(
            "以下文件为空，按尚未记录任何内容处理（运行被中止或仍在启动）：{}",
            files.join("、")
        ),
        (Note::FewTraceSteps { rank, steps }, En) => format!(
            "The trace of rank {rank} holds only {steps} whole steady step(s): its shares are anecdotal; profile more steps (checkup-agent run --profile-steps 8, or a longer run)"
        ),
        (Note::FewTraceSteps { rank, steps }, Zh) => format!(
            "rank {rank} 的 trace 只有 {steps} 个完整的稳态步骤：它给出的占比只能作参考；请分析更多步骤（checkup-agent run --profile-steps 8，或更长的运行）"
        ),
        (Note::SamplesFromQueryLog { path }, En) => format!("GPU samples from the nvidia-smi log {path} (no samples_nvml.csv)"),
        (Note::SamplesFromQueryLog { path }, Zh) => format!("GPU 采样来自 nvidia-smi 日志 {path}（没有 samples_nvml.csv）"),
        (Note::SamplesFromDmon { path }, En) => format!("GPU samples from nvidia-smi dmon output {path} (1 s apart from the run's start)"),
        (Note::SamplesFromDmon { path }, Zh) => format!("GPU 采样来自 nvidia-smi dmon 输出 {path}（从运行开始起每秒一个）"),
        (Note::SamplesFromPrometheus { url, host, interval_s }, En) => format!(
            "GPU samples from DCGM-exporter's metrics in Prometheus at {url}, host {host}{}: without step times, a trace or the host's CPU, the causes they point at are suspects to confirm by profiling a few steps",
            interval_s.map(|s| format!(", one reading every {}", seconds(s, En))).unwrap_or_default()
        ),
        (Note::SamplesFromPrometheus { url, host, interval_s }, Zh) => format!(
            "GPU 采样来自 Prometheus（{url}）中 DCGM-exporter 的指标，主机 {host}{}：没有步骤时间、trace 和主机 CPU，它们指向的原因需要分析几步训练来确认",
            interval_s.map(|s| format!("，每 {} 一个读数", seconds(s, Zh))).unwrap_or_default()
        ),
        (Note::StepsInferred { rank, from: StepMarks::OptimizerSteps }, En) => format!(
            "The trace of rank {rank} has no ProfilerStep#N marks: its steps were taken from one optimizer step to the next. Call prof.step() once per iteration for exact steps."
        ),
        (Note::StepsInferred { rank, from: StepMarks::OptimizerSteps }, Zh) => format!(
            "rank {rank} 的 trace 没有 ProfilerStep#N 标记：步骤按相邻两次优化器 step 之间划分。每次迭代调用一次 prof.step() 可得到准确的步骤。"
        ),
        (Note::StepsInferred { rank, .. }, En) => format!(
            "The trace of rank {rank} has neither ProfilerStep#N marks nor optimizer steps (a one-off or inference profile): it is read as one window, from its first GPU work to its last, and per-step figures are figures of that window."
        ),
        (Note::StepsInferred { rank, .. }, Zh) => format!(
            "rank {rank} 的 trace 既没有 ProfilerStep#N 标记，也没有优化器 step（一次性或推理时的分析）：整段 trace 从第一次到最后一次 GPU 工作作为一个窗口来读，“每步”的数值都是这个窗口的数值。"
        ),
    }
}

/// How the steady-state window was chosen, in words.
pub fn window_method(m: &WindowMethod, l: Language) -> String {
    match (m, l) {
        (WindowMethod::Steps { first, last, warmup, warmup_factor, margin_steps }, En) => format!(
            "steps {first}–{last} of steps.csv ({warmup} warm-up step{} excluded: step 0 and leading steps over {warmup_factor}× the median); profiled steps and the {margin_steps} before them excluded from step timings",
            if *warmup == 1 { "" } else { "s" }
        ),
        (WindowMethod::Steps { first, last, warmup, warmup_factor, margin_steps }, Zh) => format!(
            "steps.csv 的第 {first}–{last} 步（排除 {warmup} 个预热步：第 0 步以及开头超过中位数 {warmup_factor} 倍的步骤）；分析器运行的步骤及其之前的 {margin_steps} 步不计入步骤耗时"
        ),
        (WindowMethod::NoStepTimings { has_trace, start_up_s, wind_down_s }, En) => {
            let whole = if *has_trace {
                "profiled steps of the trace, leading warm-up steps excluded; no steps.csv"
            } else {
                "no step timings"
            };
            match (start_up_s, wind_down_s.unwrap_or(0.0)) {
                (Some(s), end) if end >= 0.05 => format!("{whole}: samples from the GPU's first work to its last (the {s:.1} s of start-up before it and the {end:.1} s after it are left out)"),
                (Some(s), _) => format!("{whole}: samples from the GPU's first work on (the {s:.1} s of start-up before it are left out)"),
                (None, _) => format!("{whole}: statistics cover every sample"),
            }
        }
        (WindowMethod::NoStepTimings { has_trace, start_up_s, wind_down_s }, Zh) => {
            let whole = if *has_trace {
                "trace 中被分析的步骤，排除开头的预热步；没有 steps.csv"
            } else {
                "没有步骤计时"
            };
            match (start_up_s, wind_down_s.unwrap_or(0.0)) {
                (Some(s), end) if end >= 0.05 => format!("{whole}：统计 GPU 第一次到最后一次有负载之间的采样（开头 {s:.1} 秒的启动阶段和结尾 {end:.1} 秒不计入）"),
                (Some(s), _) => format!("{whole}：从 GPU 第一次有负载起统计采样（开头 {s:.1} 秒的启动阶段不计入）"),
                (None, _) => format!("{whole}：统计覆盖全部采样"),
            }
        }
    }
}

/// A scrape interval: "15 s", "0.1 s".
/// "a (ranks 0–1, GPUs 0–1), b (ranks 2–3, GPUs 2–3, clock +0.4 ms)" and what the merge did.
fn job_on_nodes(nodes: &[NodeFacts], host_readings_of: &str, l: Language) -> String {
    let span = rank_span;
    let unmeasured: Vec<String> = nodes
        .iter()
        .filter(|n| n.clock_offset_s.is_none())
        .map(|n| n.label(nodes))
        .collect();
    let listed: Vec<String> = nodes
        .iter()
        .map(|n| {
            let clock = n
                .clock_offset_s
                .filter(|o| o.abs() >= 5e-5)
                .map(|o| {
                    let sign = if o > 0.0 { "+" } else { "−" };
                    match l {
                        En => format!(", clock {sign}{} ms", crate::findings::ms(o.abs() * 1e3)),
                        Zh => format!("，时钟 {sign}{} ms", crate::findings::ms(o.abs() * 1e3)),
                    }
                })
                .unwrap_or_default();
            match l {
                En => format!(
                    "{} (ranks {}, GPUs {}{clock})",
                    n.label(nodes),
                    span(&n.ranks),
                    span(&n.gpus)
                ),
                Zh => format!(
                    "{}（rank {}，GPU {}{clock}）",
                    n.label(nodes),
                    span(&n.ranks),
                    span(&n.gpus)
                ),
            }
        })
        .collect();
    let reference = nodes.first().map(|n| n.label(nodes)).unwrap_or_default();
    match l {
        En => format!(
            "One job on {} hosts: {}. GPUs are numbered across the job and every time is on {reference}'s clock; the host CPU readings are {host_readings_of}'s.{}",
            nodes.len(),
            listed.join(", "),
            if unmeasured.is_empty() {
                String::new()
            } else {
                format!(" The clocks of {} were not measured (a probe older than the agent, or its ranks could not reach rank 0's store): their times are as their clocks read them.", unmeasured.join(", "))
            }
        ),
        Zh => format!(
            "一个作业运行在 {} 台主机上：{}。GPU 按整个作业编号，所有时间都换算到 {reference} 的时钟；主机 CPU 读数来自 {host_readings_of}。{}",
            nodes.len(),
            listed.join("，"),
            if unmeasured.is_empty() {
                String::new()
            } else {
                format!("{} 的时钟偏差未测得（探针版本早于 agent，或其 rank 无法连到 rank 0 的存储）：它们的时间按各自时钟记录。", unmeasured.join("，"))
            }
        ),
    }
}

fn seconds(s: f64, l: Language) -> String {
    let n = if s >= 1.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    };
    match l {
        En => format!("{n} s"),
        Zh => format!("{n} 秒"),
    }
}
