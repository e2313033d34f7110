//! Words for the `gpu_idle` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{GpuIdle, GpuIdleEvidence, IdleSuspect, Language, Recorded};

use crate::{pct, Language::*};

/// A `gpu_idle` finding's title.
pub fn title(c: &GpuIdle, l: Language) -> String {
    let (en, zh) = match c {
        GpuIdle::Unexplained { .. } => (
            "The GPU idles, and this recording cannot say why",
            "GPU 大部分时间在等待，而这份记录看不出原因",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `gpu_idle` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &GpuIdle, l: Language) -> String {
    match (c, l) {
        (GpuIdle::Unexplained { busy_share, recorded, suspect: Some(suspect) }, En) => format!(
            "The GPU is busy {}% of the time; {}. {}{}",
            pct(*busy_share),
            recorded_en(*recorded),
            match suspect {
                IdleSuspect::InputPipeline { workers_cpu_pct, .. } => format!("While it idled, the training's worker processes used {:.1} CPU cores between them: most likely the input pipeline cannot keep up.", workers_cpu_pct / 100.0),
                IdleSuspect::PythonLoop { main_cpu_pct } => format!("While it idled, the training process held {main_cpu_pct:.0}% of a core and its workers were not busy: most likely the Python loop itself (kernel launches, per-step Python work)."),
            },
            match recorded {
                r if traced(*r) => "",
                Recorded::StepsTrainingProfiler => " With the training's own profiler out, the checkup's profile would confirm it.",
                _ => " A short profile (checkup-agent run --profile-steps 8) would confirm it.",
            }
        ),
        (GpuIdle::Unexplained { busy_share, recorded, suspect: Some(suspect) }, Zh) => format!(
            "GPU 只有 {}% 的时间在忙；{}。{}{}",
            pct(*busy_share),
            recorded_zh(*recorded),
            match suspect {
                IdleSuspect::InputPipeline { workers_cpu_pct, .. } => format!("GPU 空闲时，训练的 worker 进程合计占用 {:.1} 个 CPU 核心：很可能是输入管道跟不上。", workers_cpu_pct / 100.0),
                IdleSuspect::PythonLoop { main_cpu_pct } => format!("GPU 空闲时，训练进程占用了一个核心的 {main_cpu_pct:.0}%，而它的 worker 并不忙：很可能是 Python 循环本身（内核发射、每步的 Python 工作）。"),
            },
            match recorded {
                r if traced(*r) => "",
                Recorded::StepsTrainingProfiler => "去掉训练自己的分析器后，体检的分析即可确认。",
                _ => "做一次简短的分析（checkup-agent run --profile-steps 8）即可确认。",
            }
        ),
        (GpuIdle::Unexplained { busy_share, recorded, .. }, En) if traced(*recorded) => format!(
            "The GPU is busy {}% of the time; {}. Look at what the loop does on the host between its operations: Python work, a thread holding the interpreter, waits on files or locks.",
            pct(*busy_share),
            recorded_en(*recorded)
        ),
        (GpuIdle::Unexplained { busy_share, recorded, .. }, Zh) if traced(*recorded) => format!(
            "GPU 只有 {}% 的时间在忙；{}。请查看循环在两次操作之间在主机上做了什么：Python 工作、占着解释器锁的线程、对文件或锁的等待。",
            pct(*busy_share),
            recorded_zh(*recorded)
        ),
        (GpuIdle::Unexplained { busy_share, recorded: Recorded::StepsTrainingProfiler, .. }, En) => format!(
            "The GPU is busy {}% of the time; {}. With it out of the loop, the checkup's profile tells whether the GPU waits for data, for kernel launches or for synchronisations.",
            pct(*busy_share),
            recorded_en(Recorded::StepsTrainingProfiler)
        ),
        (GpuIdle::Unexplained { busy_share, recorded: Recorded::StepsTrainingProfiler, .. }, Zh) => format!(
            "GPU 只有 {}% 的时间在忙；{}。把它移出训练循环后，体检的分析能看出 GPU 是在等数据、等内核发射，还是在等同步。",
            pct(*busy_share),
            recorded_zh(Recorded::StepsTrainingProfiler)
        ),
        (GpuIdle::Unexplained { busy_share, recorded, .. }, En) => format!(
            "The GPU is busy {}% of the time; {}. Profile a few training steps to see whether it waits for data, for kernel launches or for synchronisations.",
            pct(*busy_share),
            recorded_en(*recorded)
        ),
        (GpuIdle::Unexplained { busy_share, recorded, .. }, Zh) => format!(
            "GPU 只有 {}% 的时间在忙；{}。分析几个训练步骤，看它是在等数据、等内核发射，还是在等同步。",
            pct(*busy_share),
            recorded_zh(*recorded)
        ),
    }
}

/// Whether the recording holds a trace: then profiling again is no advice.
fn traced(r: Recorded) -> bool {
    matches!(r, Recorded::TraceNoSteps | Recorded::StepsAndTrace)
}

fn recorded_en(r: Recorded) -> &'static str {
    match r {
        Recorded::SamplesOnly => {
            "only GPU and host samples were recorded: no step timings, no trace"
        }
        Recorded::StepsNoTrace => "step timings were recorded but no trace",
        Recorded::StepsTrainingProfiler => {
            "step timings were recorded but no trace: the training's own profiler was recording, and one runs at a time"
        }
        Recorded::TraceNoSteps => "a trace was recorded but no step timings",
        Recorded::StepsAndTrace => "neither the step timings nor the trace account for it",
    }
}

fn recorded_zh(r: Recorded) -> &'static str {
    match r {
        Recorded::SamplesOnly => "这份记录只有 GPU 和主机采样：没有步骤计时，也没有 trace",
        Recorded::StepsNoTrace => "这份记录有步骤计时，但没有 trace",
        Recorded::StepsTrainingProfiler => {
            "这份记录有步骤计时，但没有 trace：训练自己的性能分析器正在记录，同一时间只能运行一个"
        }
        Recorded::TraceNoSteps => "这份记录有 trace，但没有步骤计时",
        Recorded::StepsAndTrace => "步骤计时和 trace 都解释不了这段空闲",
    }
}

/// What a `gpu_idle` evidence row measures.
pub fn evidence(k: &GpuIdleEvidence, l: Language) -> String {
    let (en, zh) = match k {
        GpuIdleEvidence::GpuIdleSeconds => (
            "host-sampled time with the GPU near idle",
            "GPU 接近空闲时的主机采样时长",
        ),
        GpuIdleEvidence::BusyWorkersWhileIdle => (
            "workers each at a full core while the GPU idled (mean)",
            "GPU 空闲时各自占满一个核心的 worker 数（平均）",
        ),
        GpuIdleEvidence::WorkersCpuWhileIdle => (
            "worker processes' CPU together while the GPU idled (100 = one core)",
            "GPU 空闲时各 worker 进程合计的 CPU（100 = 一个核心）",
        ),
        GpuIdleEvidence::MainCpuWhileIdle => (
            "training process CPU while the GPU idled (100 = one core)",
            "GPU 空闲时训练进程的 CPU（100 = 一个核心）",
        ),
        GpuIdleEvidence::GpuBusyShare => ("GPU busy share", "GPU 忙碌比例"),
        GpuIdleEvidence::UnexplainedIdle => (
            "GPU idle time no other finding explains",
            "其他发现都解释不了的 GPU 空闲时间",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}
