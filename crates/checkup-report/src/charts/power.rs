//! Power draw against the power limit over time.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;

use super::style::Area;
use super::time::{ceiling_chart, points, Ceiling, TimeFrame};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::Power,
    title: |t| t.chart_power,
    height: super::spec::usual_height,
    shown: |d| super::spec::first_gpu(d).is_some(),
    over_time: true,
    draw: |a, frame, d, t| super::spec::on_first_gpu(power_chart, a, frame, d, t),
};

fn power_chart(
    a: &Area,
    hover: &TimeFrame,
    d: &Diagnosis,
    g: &checkup_model::GpuSeries,
    t: &Text,
) -> Result<(), String> {
    let c = Ceiling {
        caption: t.chart_power,
        axis: t.axis_watts,
        unit: "W",
        series: t.series_power,
        ceiling_label: t.series_limit,
        more: Vec::new(),
    };
    ceiling_chart(
        a,
        hover,
        d,
        g,
        points(&g.t, &g.power_w),
        g.power_limit_w,
        c,
        t,
    )
}
