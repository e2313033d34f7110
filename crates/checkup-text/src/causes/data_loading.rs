//! Words for the `data_loading` family's findings: each cause's title and summary.

use checkup_model::{DataLoading, Language};

use crate::{pct, Language::*};

/// A `data_loading` finding's title.
pub fn title(c: &DataLoading, l: Language) -> String {
    let (en, zh) = match c {
        DataLoading::SlowLoader { .. }
        | DataLoading::CpuSaturated { .. }
        | DataLoading::CpuContention { .. } => (
            "Input pipeline (DataLoader) starves the GPU",
            "输入管线（DataLoader）让 GPU 挨饿",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `data_loading` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &DataLoading, l: Language) -> String {
    match (c, l) {
        (DataLoading::SlowLoader { data_wait_ms, step_ms, idle_per_epoch_start_ms: Some(idle) }, En) => format!(
            "The GPU waits for batches at the start of every epoch: it idles about {idle:.0} ms each time while the epoch's first batches are made{}.",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!(" (on average {w:.0} ms of a {s:.0} ms step waiting for data)")).unwrap_or_default()
        ),
        (DataLoading::SlowLoader { data_wait_ms, step_ms, idle_per_epoch_start_ms: Some(idle) }, Zh) => format!(
            "每个 epoch 开始时 GPU 都在等待批次：每次空闲约 {idle:.0} ms，等待该 epoch 的前几个批次生成{}。",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!("（{s:.0} ms 的步骤中平均有 {w:.0} ms 在等待数据）")).unwrap_or_default()
        ),
        (DataLoading::SlowLoader { data_wait_ms, step_ms, idle_per_epoch_start_ms: None }, En) => format!(
            "The GPU waits for the next batch: the input pipeline is slower than the GPU{}, while the host has idle cores.",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!(" (on average {w:.0} ms of a {s:.0} ms step waiting for data)")).unwrap_or_default()
        ),
        (DataLoading::SlowLoader { data_wait_ms, step_ms, idle_per_epoch_start_ms: None }, Zh) => format!(
            "GPU 在等待下一个批次：输入管线比 GPU 慢{}，而主机仍有空闲核心。",
            data_wait_ms.zip(*step_ms).map(|(w, s)| format!("（{s:.0} ms 的步骤中平均有 {w:.0} ms 在等待数据）")).unwrap_or_default()
        ),
        (DataLoading::CpuSaturated { host_cpu_pct, training_cores, launch_wait_share: Some(launch) }, En) => format!(
            "The input pipeline saturates the host CPU ({host_cpu_pct:.0}% of all cores, {training_cores:.1} cores of it the training's own processes): the main thread, short of CPU, launches kernels late (the GPU waits {}% of each step for them) and batches arrive late. More workers cannot help; each batch costs too much CPU.",
            pct(*launch)
        ),
        (DataLoading::CpuSaturated { host_cpu_pct, training_cores, launch_wait_share: Some(launch) }, Zh) => format!(
            "输入管线让主机 CPU 饱和（全部核心的 {host_cpu_pct:.0}%，其中 {training_cores:.1} 个核心属于训练自身的进程）：主线程缺少 CPU，内核发射变晚（GPU 每步有 {}% 的时间在等待发射），批次也来得晚。增加 worker 无济于事，每个批次消耗的 CPU 太多。",
            pct(*launch)
        ),
        (DataLoading::CpuSaturated { host_cpu_pct, launch_wait_share: None, .. }, En) => format!(
            "The GPU waits for the input pipeline and the host CPU is saturated ({host_cpu_pct:.0}%): more workers cannot help; each batch costs too much CPU."
        ),
        (DataLoading::CpuSaturated { host_cpu_pct, launch_wait_share: None, .. }, Zh) => format!(
            "GPU 在等待输入管线，而主机 CPU 已饱和（{host_cpu_pct:.0}%）：增加 worker 无济于事，每个批次消耗的 CPU 太多。"
        ),
        (DataLoading::CpuContention { host_cpu_pct, training_cores }, En) => format!(
            "The GPU waits for the input pipeline, and processes outside the training keep the host CPU saturated ({host_cpu_pct:.0}% of all cores; the training's processes get {training_cores:.1} cores): its workers run short of CPU and there is no idle core to add more."
        ),
        (DataLoading::CpuContention { host_cpu_pct, training_cores }, Zh) => format!(
            "GPU 在等待输入管线，而训练之外的进程让主机 CPU 保持饱和（全部核心的 {host_cpu_pct:.0}%；训练自身的进程只得到 {training_cores:.1} 个核心）：它的 worker 缺少 CPU，也没有空闲核心可以再加 worker。"
        ),
    }
}
