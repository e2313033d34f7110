//! A run compared with a baseline card: figure names, values, changes and the summary.

use checkup_model::{
    CompareReason, CurveShape, Delta, Figure, FigureChange, FigureUnit, FigureValue, Language,
    RunComparison, StepChange,
};

use crate::Language::*;

pub fn figure(f: Figure, l: Language) -> &'static str {
    match (f, l) {
        (Figure::Gpu, _) => "GPU",
        (Figure::Driver, En) => "driver",
        (Figure::Driver, Zh) => "驱动",
        (Figure::Cuda, _) => "CUDA",
        (Figure::MeanStepTime, En) => "mean step time",
        (Figure::MeanStepTime, Zh) => "平均步骤时间",
        (Figure::GpuUtil, En) => "GPU util",
        (Figure::GpuUtil, Zh) => "GPU 利用率",
        (Figure::UtilCurve, En) => "util curve",
        (Figure::UtilCurve, Zh) => "利用率曲线",
        (Figure::Power, En) => "power",
        (Figure::Power, Zh) => "功率",
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
    let unit = match unit {
        FigureUnit::Ms => "ms",
        FigureUnit::Percent => "%",
        FigureUnit::Watts => "W",
        FigureUnit::Us => "µs",
    };
    v.map_or_else(|| "–".into(), |v| format!("{} {unit}", crate::fixed(v, 1)))
}

pub fn value(v: &FigureValue, l: Language) -> String {
    match v {
        FigureValue::Text { text } => text.clone(),
        FigureValue::Number { value, unit } => number(*value, *unit),
        FigureValue::Share { share: s } => share(*s),
        FigureValue::Shape { shape: s } => shape(*s, l),
        FigureValue::Finding { id } => id.clone(),
    }
}

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
    match (r, l) {
        (CompareReason::EnvironmentChanged { changes }, _) => {
            let list = changes
                .iter()
                .map(|(f, b, n)| format!("{} {b} → {n}", figure(*f, l)))
                .collect::<Vec<_>>();
            match l {
                En => format!("the environment changed ({})", list.join(", ")),
                Zh => format!("环境发生了变化（{}）", list.join("，")),
            }
        }
        (CompareReason::InputRegressed { from, to }, En) => format!("data-loading share {} → {}: the input pipeline regressed", share(*from), share(*to)),
        (CompareReason::InputRegressed { from, to }, Zh) => format!("数据加载占比 {} → {}：输入管线退化", share(*from), share(*to)),
        (CompareReason::CommunicationRegressed { from, to }, En) => format!("communication share {} → {}: communication regressed", share(*from), share(*to)),
        (CompareReason::CommunicationRegressed { from, to }, Zh) => format!("通信占比 {} → {}：通信退化", share(*from), share(*to)),
        (CompareReason::HostCpuBusier { from, to }, En) => format!("host CPU {} → {}: the host's CPU is far busier (other processes, or the training's own workers)", cpu(from), cpu(to)),
        (CompareReason::HostCpuBusier { from, to }, Zh) => format!("主机 CPU {} → {}：主机 CPU 忙得多了（其他进程，或训练自身的 worker）", cpu(from), cpu(to)),
        (CompareReason::HostFeedsSlower { from, to }, En) => format!("mean kernel gap {} → {}: the host feeds the GPU more slowly (launch overhead or syncs)", gap(from), gap(to)),
        (CompareReason::HostFeedsSlower { from, to }, Zh) => format!("平均内核间隙 {} → {}：主机向 GPU 提交工作变慢（发射开销或同步）", gap(from), gap(to)),
        (CompareReason::PrimaryMoved { from, to }, En) => format!("the primary bottleneck moved from {from} to {to}"),
        (CompareReason::PrimaryMoved { from, to }, Zh) => format!("主要瓶颈从 {from} 变为 {to}"),
        (CompareReason::Unexplained, En) => "with no input, communication or launch figure explaining it: look at the findings of the current run".into(),
        (CompareReason::Unexplained, Zh) => "输入、通信和内核发射的指标都无法解释：请查看本次运行的诊断结果".into(),
        (CompareReason::NothingRegressed, En) => "no figure regressed".into(),
        (CompareReason::NothingRegressed, Zh) => "没有指标退化".into(),
    }
}

/// What changed, in one sentence ("step time +951%, data-loading share 0% → 91%: the input
/// pipeline regressed").
pub fn summary(c: &RunComparison, l: Language) -> String {
    let step = match (c.step, l) {
        (StepChange::Changed { by }, En) => format!("step time {}%", crate::signed(by * 100.0)),
        (StepChange::Changed { by }, Zh) => format!("步骤时间 {}%", crate::signed(by * 100.0)),
        (StepChange::Unchanged, En) => "step time unchanged (within 5%)".into(),
        (StepChange::Unchanged, Zh) => "步骤时间不变（5% 以内）".into(),
        (StepChange::NotComparable, En) => "step time not comparable".into(),
        (StepChange::NotComparable, Zh) => "步骤时间无法比较".into(),
    };
    let reasons: Vec<String> = c.reasons.iter().map(|r| reason(r, l)).collect();
    let (comma, semicolon) = match l {
        En => (", ", "; "),
        Zh => ("，", "；"),
    };
    match c.reasons.as_slice() {
        [CompareReason::NothingRegressed] => format!("{step}{semicolon}{}", reasons[0]),
        _ => format!("{step}{comma}{}", reasons.join(semicolon)),
    }
}
