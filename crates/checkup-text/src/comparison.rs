//! A run compared with a baseline card: figure names, values, changes and the summary.

use checkup_model::{
    CompareReason, CurveShape, Delta, Figure, FigureChange, FigureUnit, FigureValue, Language,
    PowerHeld, RunComparison, StepChange,
};

use crate::Language::*;

/// The name of a compared figure.
pub fn figure(f: Figure, l: Language) -> &'static str {
    match (f, l) {
        (Figure::Model, En) => "model",
        (Figure::Model, Zh) => "模型",
        (Figure::Parameters, En) => "parameters",
        (Figure::Parameters, Zh) => "参数量",
        (Figure::BatchSize, En) => "batch size",
        (Figure::BatchSize, Zh) => "批大小",
        (Figure::Precision, En) => "precision",
        (Figure::Precision, Zh) => "精度",
        (Figure::WorldSize, En) => "ranks",
        (Figure::WorldSize, Zh) => "进程数",
        (Figure::Gpu, _) => "GPU",
        (Figure::Driver, En) => "driver",
        (Figure::Driver, Zh) => "驱动",
        (Figure::Cuda, _) => "CUDA",
        (Figure::Torch, _) => "PyTorch",
        (Figure::Nccl, _) => "NCCL",
        (Figure::TimePerStep, En) => "time per step (whole run)",
        (Figure::TimePerStep, Zh) => "每步时间（整个运行）",
        (Figure::MedianStepTime, En) => "median step",
        (Figure::MedianStepTime, Zh) => "步骤时间中位数",
        (Figure::P95StepTime, En) => "p95 step",
        (Figure::P95StepTime, Zh) => "步骤时间 p95",
        (Figure::StallShare, En) => "time lost to stalls",
        (Figure::StallShare, Zh) => "卡顿损失的时间",
        (Figure::SamplesPerSecond, En) => "samples per second",
        (Figure::SamplesPerSecond, Zh) => "每秒样本数",
        (Figure::StepsPerSecond, En) => "steps per second",
        (Figure::StepsPerSecond, Zh) => "每秒步数",
        (Figure::MeanStepTime, En) => "mean step time (steady)",
        (Figure::MeanStepTime, Zh) => "平均步骤时间（稳定段）",
        (Figure::GpuUtil, En) => "GPU util",
        (Figure::GpuUtil, Zh) => "GPU 利用率",
        (Figure::UtilCurve, En) => "util curve",
        (Figure::UtilCurve, Zh) => "利用率曲线",
        (Figure::Power, En) => "power while busy",
        (Figure::Power, Zh) => "忙碌时功率",
        (Figure::PowerLimit, En) => "power limit",
        (Figure::PowerLimit, Zh) => "功率上限",
        (Figure::SmClock, En) => "SM clock while busy",
        (Figure::SmClock, Zh) => "忙碌时 SM 时钟",
        (Figure::ThrottledShare, En) => "throttled while busy",
        (Figure::ThrottledShare, Zh) => "忙碌时降频占比",
        (Figure::TemperatureMax, En) => "highest temperature",
        (Figure::TemperatureMax, Zh) => "最高温度",
        (Figure::MemoryPeak, En) => "GPU memory peak",
        (Figure::MemoryPeak, Zh) => "GPU 显存峰值",
        (Figure::DataLoadingShare, En) => "data-loading share",
        (Figure::DataLoadingShare, Zh) => "数据加载占比",
        (Figure::MeanKernelGap, En) => "mean kernel gap",
        (Figure::MeanKernelGap, Zh) => "平均内核间隙",
        (Figure::HostCpu, En) => "host CPU",
        (Figure::HostCpu, Zh) => "主机 CPU",
        (Figure::CommunicationShare, En) => "communication share",
        (Figure::CommunicationShare, Zh) => "通信占比",
        (Figure::PrimaryBottleneck, En) => "primary bottleneck",
        (Figure::PrimaryBottleneck, Zh) => "主要瓶颈",
    }
}

fn shape(s: CurveShape, l: Language) -> String {
    match (s, l) {
        (CurveShape::Steady, En) => "steady".into(),
        (CurveShape::Steady, Zh) => "平稳".into(),
        (CurveShape::Sawtooth, En) => "sawtooth".into(),
        (CurveShape::Sawtooth, Zh) => "锯齿状".into(),
        (CurveShape::DipsEvery { period_s }, En) => format!("dips every {period_s:.1} s"),
        (CurveShape::DipsEvery { period_s }, Zh) => format!("每 {period_s:.1} s 一次下跌"),
    }
}

fn share(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{}%", crate::pct(v)))
}

fn number(v: Option<f64>, unit: FigureUnit) -> String {
    let Some(v) = v else {
        return "–".into();
    };
    match unit {
        FigureUnit::Ms => format!("{} ms", crate::fixed(v, 1)),
        FigureUnit::Percent => format!("{} %", crate::fixed(v, 1)),
        FigureUnit::Watts => format!("{} W", crate::fixed(v, 0)),
        FigureUnit::Us => format!("{} µs", crate::fixed(v, 1)),
        FigureUnit::Mhz => format!("{} MHz", crate::fixed(v, 0)),
        FigureUnit::Celsius => format!("{} °C", crate::fixed(v, 0)),
        FigureUnit::Gib => format!("{} GiB", crate::fixed(v, 1)),
        FigureUnit::PerSecond => format!("{}/s", crate::fixed(v, 1)),
        FigureUnit::Count if v >= 1e6 => format!("{} M", crate::fixed(v / 1e6, 1)),
        FigureUnit::Count => crate::fixed(v, 0),
    }
}

/// A compared figure's value, with its unit.
pub fn value(v: &FigureValue, l: Language) -> String {
    match v {
        FigureValue::Text { text } => text.clone(),
        FigureValue::Number { value, unit } => number(*value, *unit),
        FigureValue::Share { share: s } => share(*s),
        FigureValue::Shape { shape: s } => shape(*s, l),
        FigureValue::Finding { id } => id.clone(),
    }
}

/// How a figure moved between baseline and run: "+23%", "unchanged", "unknown".
pub fn delta(d: Delta, l: Language) -> String {
    match (d, l) {
        (Delta::Unknown, En) => "unknown".into(),
        (Delta::Unknown, Zh) => "未知".into(),
        (Delta::Same, En) => "same".into(),
        (Delta::Same, Zh) => "相同".into(),
        (Delta::Changed, En) => "changed".into(),
        (Delta::Changed, Zh) => "已变化".into(),
        (Delta::Relative { by }, _) => format!("{}%", crate::signed(by * 100.0)),
        (Delta::Points { by }, En) => format!("{} points", crate::signed(by)),
        (Delta::Points { by }, Zh) => format!("{} 个百分点", crate::signed(by)),
        (Delta::Units { by, unit }, _) => match number(Some(by), unit) {
            n if by > 0.0 => format!("+{n}"),
            n => n,
        },
        (Delta::None, _) => String::new(),
    }
}

/// A figure change's three cells: baseline, current, change.
pub fn row(c: &FigureChange, l: Language) -> [String; 3] {
    [
        value(&c.baseline, l),
        value(&c.current, l),
        delta(c.delta, l),
    ]
}

fn reason(r: &CompareReason, l: Language) -> String {
    let cpu = |v: &Option<f64>| number(*v, FigureUnit::Percent);
    let gap = |v: &Option<f64>| number(*v, FigureUnit::Us);
    let watts = |v: &Option<f64>| number(*v, FigureUnit::Watts);
    let mhz = |v: &Option<f64>| number(*v, FigureUnit::Mhz);
    let deg = |v: &Option<f64>| number(*v, FigureUnit::Celsius);
    let gib = |v: &Option<f64>| number(*v, FigureUnit::Gib);
    let list_sep = match l {
        En => ", ",
        Zh => "，",
    };
    match (r, l) {
        (CompareReason::DifferentWorkloads { differences }, _) => {
            let list = differences
                .iter()
                .map(|c| format!("{} {} → {}", figure(c.figure, l), value(&c.baseline, l), value(&c.current, l)))
                .collect::<Vec<_>>()
                .join(list_sep);
            match l {
                En => format!("different workloads ({list}): their step times measure different work, so a change between them is no regression; write a baseline card of this workload to compare its runs"),
                Zh => format!("不同的工作负载（{list}）：两次的步骤时间衡量的是不同的工作，其间的变化不算退化；请为这个工作负载写一张基线卡再比较"),
            }
        }
        (CompareReason::EnvironmentChanged { changes }, _) => {
            let list = changes
                .iter()
                .map(|(f, b, n)| format!("{} {b} → {n}", figure(*f, l)))
                .collect::<Vec<_>>()
                .join(list_sep);
            match l {
                En => format!("the environment changed ({list})"),
                Zh => format!("环境发生了变化（{list}）"),
            }
        }
        (CompareReason::PowerLower { from, to, limit_from, limit_to, held }, _) => match (held, l) {
            (PowerHeld::LimitLowered, En) => format!("power limit {} → {}, power while busy {} → {}: the card is capped lower than the baseline's (`nvidia-smi -q -d POWER` shows the limit; whoever administers the host sets it)", watts(limit_from), watts(limit_to), watts(from), watts(to)),
            (PowerHeld::LimitLowered, Zh) => format!("功率上限 {} → {}，忙碌时功率 {} → {}：这张卡的功率上限比基线时低（`nvidia-smi -q -d POWER` 可查看上限，由主机管理员设置）", watts(limit_from), watts(limit_to), watts(from), watts(to)),
            (PowerHeld::ClocksHeld, En) => format!("power while busy {} → {}: the GPU was held to lower clocks", watts(from), watts(to)),
            (PowerHeld::ClocksHeld, Zh) => format!("忙碌时功率 {} → {}：GPU 被压在更低的时钟上", watts(from), watts(to)),
            (PowerHeld::LessWork, En) => format!("power while busy {} → {} at the same clocks and a {} limit: the GPU did less work per second while it had work (no cap or throttling held it: look at the current run's findings for what it waited on)", watts(from), watts(to), watts(limit_to)),
            (PowerHeld::LessWork, Zh) => format!("忙碌时功率 {} → {}，时钟相同、上限 {}：GPU 忙碌时每秒完成的工作更少（并非功率上限或降频所致：请查看本次运行的诊断结果，找出它在等待什么）", watts(from), watts(to), watts(limit_to)),
        },
        (CompareReason::ClocksLower { from, to }, En) => format!("SM clock while busy {} → {}: the GPU computed at a lower clock", mhz(from), mhz(to)),
        (CompareReason::ClocksLower { from, to }, Zh) => format!("忙碌时 SM 时钟 {} → {}：GPU 以更低的时钟计算", mhz(from), mhz(to)),
        (CompareReason::MoreThrottled { from, to, reasons }, _) => {
            let why = if reasons.is_empty() {
                String::new()
            } else {
                match l {
                    En => format!(" ({})", reasons.join(", ")),
                    Zh => format!("（{}）", reasons.join("，")),
                }
            };
            match l {
                En => format!("throttled {} → {} of the busy time{why}: the driver held the clocks down", share(*from), share(*to)),
                Zh => format!("忙碌时间中降频占比 {} → {}{why}：驱动压低了时钟", share(*from), share(*to)),
            }
        }
        (CompareReason::Hotter { from, to }, En) => format!("highest temperature {} → {}: the card runs hotter (cooling, airflow or a neighbour's heat)", deg(from), deg(to)),
        (CompareReason::Hotter { from, to }, Zh) => format!("最高温度 {} → {}：这张卡更热了（散热、风道或相邻设备的热量）", deg(from), deg(to)),
        (CompareReason::StallsGrew { from, to }, En) => format!("time lost to stalls {} → {} of the run: steps that stop the run now and then (checkpoints, evaluation, logging), which the median step does not show", share(*from), share(*to)),
        (CompareReason::StallsGrew { from, to }, Zh) => format!("卡顿损失的时间 {} → {}（占整个运行）：不时让运行停下来的步骤（保存检查点、评估、日志），步骤时间中位数看不出来", share(*from), share(*to)),
        (CompareReason::InputRegressed { from, to }, En) => format!("data-loading share {} → {}: the input pipeline regressed", share(*from), share(*to)),
        (CompareReason::InputRegressed { from, to }, Zh) => format!("数据加载占比 {} → {}：输入管线退化", share(*from), share(*to)),
        (CompareReason::CommunicationRegressed { from, to }, En) => format!("communication share {} → {}: communication regressed", share(*from), share(*to)),
        (CompareReason::CommunicationRegressed { from, to }, Zh) => format!("通信占比 {} → {}：通信退化", share(*from), share(*to)),
        (CompareReason::HostCpuBusier { from, to }, En) => format!("host CPU {} → {}: the host's CPU is far busier (other processes, or the training's own workers)", cpu(from), cpu(to)),
        (CompareReason::HostCpuBusier { from, to }, Zh) => format!("主机 CPU {} → {}：主机 CPU 忙得多了（其他进程，或训练自身的 worker）", cpu(from), cpu(to)),
        (CompareReason::HostFeedsSlower { from, to }, En) => format!("mean kernel gap {} → {}: the host feeds the GPU more slowly (launch overhead or syncs)", gap(from), gap(to)),
        (CompareReason::HostFeedsSlower { from, to }, Zh) => format!("平均内核间隙 {} → {}：主机向 GPU 提交工作变慢（发射开销或同步）", gap(from), gap(to)),
        (CompareReason::MemoryNearLimit { from, to, total }, En) => format!("GPU memory peak {} → {} of {}: close to the card's capacity the allocator frees its cache and retries", gib(from), gib(to), gib(total)),
        (CompareReason::MemoryNearLimit { from, to, total }, Zh) => format!("GPU 显存峰值 {} → {}（共 {}）：接近显存容量时，分配器会释放缓存并重试", gib(from), gib(to), gib(total)),
        (CompareReason::PrimaryMoved { from, to }, En) => format!("the primary bottleneck moved from {from} to {to}"),
        (CompareReason::PrimaryMoved { from, to }, Zh) => format!("主要瓶颈从 {from} 变为 {to}"),
        (CompareReason::Unexplained, En) => "with no figure of the card explaining it: look at the findings of the current run".into(),
        (CompareReason::Unexplained, Zh) => "基线卡上没有指标能解释：请查看本次运行的诊断结果".into(),
        (CompareReason::NothingRegressed, En) => "no figure regressed".into(),
        (CompareReason::NothingRegressed, Zh) => "没有指标退化".into(),
    }
}

/// What changed, in one sentence ("time per step +28%, time lost to stalls 0% → 22% of the
/// run: ..."); a comparison of different workloads says so first.
pub fn summary(c: &RunComparison, l: Language) -> String {
    let name = match (c.step_figure, l) {
        (Figure::TimePerStep, En) => "time per step",
        (Figure::TimePerStep, Zh) => "每步时间",
        (_, En) => "step time",
        (_, Zh) => "步骤时间",
    };
    let step = match (c.step, l) {
        (StepChange::Changed { by }, _) => format!("{name} {}%", crate::signed(by * 100.0)),
        (StepChange::Unchanged { .. }, En) => format!("{name} unchanged (within 5%)"),
        (StepChange::Unchanged { .. }, Zh) => format!("{name}不变（5% 以内）"),
        (StepChange::NotComparable, En) => format!("{name} not comparable"),
        (StepChange::NotComparable, Zh) => format!("{name}无法比较"),
    };
    let (comma, semicolon) = match l {
        En => (", ", "; "),
        Zh => ("，", "；"),
    };
    let (workloads, others): (Vec<&CompareReason>, Vec<&CompareReason>) = c
        .reasons
        .iter()
        .partition(|r| matches!(r, CompareReason::DifferentWorkloads { .. }));
    let others: Vec<String> = others.iter().map(|r| reason(r, l)).collect();
    let rest = match c.reasons.as_slice() {
        [CompareReason::NothingRegressed] => format!("{step}{semicolon}{}", others[0]),
        _ if others.is_empty() => step,
        _ => format!("{step}{comma}{}", others.join(semicolon)),
    };
    match workloads.first() {
        Some(w) => format!("{}{semicolon}{rest}", reason(w, l)),
        None => rest,
    }
}
